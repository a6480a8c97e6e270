"""``diplomat replay`` on games saved by the ``diplomacy`` package (tests/replay, made by
tests/replay/generate.py), and on files it must refuse."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from diplomat.cli.main import main
from diplomat.engine.rules import PACKAGE
from diplomat.replay.games import (
    ReplayError,
    load_saved_games,
    read_saved_game,
    replay_file,
    replay_game,
)

REPLAY_DIR = Path(__file__).parent
AGREEING = [
    "random_18.json",
    "random_39.json",
    "dont_skip_5.json",
    "rule_choices.json",
    "solo.json",
    "fleet_rome_7.json",  # the package's standard_fleet_rome, our fleet_rome
]


def _game(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((REPLAY_DIR / name).read_text())
    return data


def _verdicts(data: dict[str, Any]) -> dict[str, Any]:
    return {v.phase: v for v in replay_game(read_saved_game(data)).verdicts}


@pytest.mark.parametrize("name", AGREEING)
def test_sample_games_agree_or_differ_by_a_rule_choice(name: str) -> None:
    (game,) = load_saved_games(REPLAY_DIR / name)
    report = replay_game(game)
    assert report.differ == 0, [v for v in report.verdicts if v.status == "differ"]
    assert report.agree > 0
    # Every phase with a successor is replayed.
    saved = [p for p in game.phases if not p.completed]
    assert len(report.verdicts) == len(saved) - (0 if game.phases[-1].completed else 1)
    status, lines = replay_file(REPLAY_DIR / name)
    assert status == 0
    assert lines[-1].startswith(f"{report.agree} phases agree, 0 differ")


def test_random_games_exercise_retreats_adjustments_and_civil_disorder() -> None:
    kinds: set[str] = set()
    choices: set[str] = set()
    for name in ("random_18.json", "random_39.json"):
        (game,) = load_saved_games(REPLAY_DIR / name)
        kinds.update(p.name[-1] for p in game.phases)
        choices.update(c for v in replay_game(game).verdicts for c in v.choices)
    assert kinds == {"M", "R", "A"}
    assert any("4.D.8" in c for c in choices)
    assert any("4.A.3" in c for c in choices)


def test_each_documented_choice_is_recognised_in_its_phase() -> None:
    verdicts = _verdicts(_game("rule_choices.json"))
    assert verdicts["S1901M"].status == "agree"  # the package saves supports without coasts
    assert verdicts["F1901M"].status == "choice"
    assert "6.G.10" in verdicts["F1901M"].choices[0]
    assert verdicts["F1901R"].status == "agree"  # the retreat to Norway the package allowed
    assert verdicts["W1901A"].status == "choice"
    assert "4.D.8" in verdicts["W1901A"].choices[0]
    assert any("ITA A WAR" in d for d in verdicts["W1901A"].differences)
    assert verdicts["S1902M"].status == "choice"
    assert "4.A.3" in verdicts["S1902M"].choices[0]
    assert verdicts["S1902R"].status == "agree"


def test_kept_empty_phases_are_compared_like_with_like() -> None:
    data = _game("dont_skip_5.json")
    assert "DONT_SKIP_PHASES" in data["rules"]
    verdicts = _verdicts(data)
    # S1901M is compared with the package's F1901M, past the empty S1901R it kept.
    assert verdicts["S1901M"].target == "F1901M"
    assert verdicts["S1901R"].status == "agree"


def test_a_solo_ends_the_record() -> None:
    verdicts = _verdicts(_game("solo.json"))
    assert verdicts["F1901M"].target == "COMPLETED"
    assert verdicts["F1901M"].status == "agree"


def test_a_package_deviation_is_a_difference(capsys: pytest.CaptureFixture[str]) -> None:
    # England's own support helps a convoyed French army dislodge F YOR in the package.
    status = main(["replay", str(REPLAY_DIR / "package_deviation.json")])
    out = capsys.readouterr().out.splitlines()
    assert status == 1
    assert out[0] == "S1901M differs (compared with the package's S1901R):"
    assert "  next phase: ours F1901M, package S1901R" in out
    assert any("dislodged only in package: ENG F YOR" in line for line in out)
    assert out[-1] == "0 phases agree, 1 differ"


def test_a_changed_outcome_is_not_excused_as_a_rule_choice() -> None:
    data = _game("rule_choices.json")
    after = next(p for p in data["phases"] if p["name"] == "S1902M")
    # Italy's civil disorder kept neither army: no rule removes both.
    after["state"]["units"]["ITALY"] = []
    verdicts = _verdicts(data)
    assert verdicts["W1901A"].status == "differ"
    assert "units only in ours: ITA A WAR; only in package: -" in verdicts["W1901A"].differences


def test_a_tampered_movement_result_differs() -> None:
    data = _game("random_18.json")
    after = next(p for p in data["phases"] if p["name"] == "F1901M")
    lost = after["state"]["units"]["FRANCE"].pop(0)
    verdicts = _verdicts(data)
    assert verdicts["S1901M"].status == "differ"
    assert f"units only in ours: FRA {lost}; only in package: -" in verdicts["S1901M"].differences


def _tamper_results(phase: str, unit: str, codes: list[str]) -> Any:
    data = _game("random_18.json")
    saved = next(p for p in data["phases"] if p["name"] == phase)
    assert unit in saved["results"]
    saved["results"][unit] = codes
    return _verdicts(data)[phase]


@pytest.mark.parametrize(
    "phase, unit, codes, line",
    [
        ("S1901M", "A BUD", ["bounce"], "result of A BUD - SER: ours SUC, package bounce (moved)"),
        ("S1902M", "A VEN", ["bounce"], "result of A VEN - ROM: ours BNC RET, package bounce"),
        ("S1902M", "F TRI", ["cut"], "result of F TRI S A PIE - VEN: ours SUC, package cut (cut)"),
        ("S1902M", "A LVN", [], "result of A LVN S A WAR: ours NSO, package ok (void)"),
        ("W1902A", "F BRE", ["void"], "result of F BRE B: carried out here, void in the package"),
    ],
)
def test_a_tampered_order_result_differs(
    phase: str, unit: str, codes: list[str], line: str
) -> None:
    verdict = _tamper_results(phase, unit, codes)
    assert verdict.status == "differ"
    assert any(d.startswith(line) for d in verdict.differences), verdict.differences


def test_results_only_the_package_defines_are_not_differences() -> None:
    data = _game("random_18.json")
    s1902 = next(p for p in data["phases"] if p["name"] == "S1902M")
    # Italy's support against its own A ROM counts for nothing: 'void' in the package only.
    assert s1902["results"]["F NAP"] == ["void"]
    f1905 = next(p for p in data["phases"] if p["name"] == "F1905M")
    # Fleets convoying an army that was not carried: 'no convoy' in the package; ours stayed.
    assert f1905["results"]["F MAO"] == ["no convoy"]
    verdicts = _verdicts(data)
    assert verdicts["S1902M"].status == "agree"
    assert verdicts["F1905M"].status == "agree"


def test_a_support_the_package_leaves_uncut_by_its_1982_paradox_rule_is_a_rule_choice() -> None:
    verdict = _verdicts(_game("random_18.json"))["F1903M"]
    # A YOR - DEN VIA, convoyed by F NTH, attacks F DEN S F NTH: cut under DATC 3.0.
    assert verdict.status == "choice"
    assert "4.A.2" in verdict.choices[0]
    assert verdict.differences == ("result of F DEN S F NTH: ours CUT, package ok (cut)",)


def test_json_lines_with_several_games(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "games.jsonl"
    path.write_text(
        (REPLAY_DIR / "solo.json").read_text() + (REPLAY_DIR / "package_deviation.json").read_text()
    )
    assert main(["replay", str(path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("game 1 (")
    assert out[0].endswith("2 phases agree, 0 differ")
    assert out[-1] == "2 phases agree, 1 differ"


def _bad(tmp_path: Path, content: str | bytes) -> Path:
    path = tmp_path / "game.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    return path


def _phase(**changes: Any) -> dict[str, Any]:
    phase = _game("solo.json")["phases"][0]
    phase.update(changes)
    return phase


def _units(units: dict[str, list[str]]) -> dict[str, Any]:
    phase = _phase()
    phase["state"]["units"] = units
    return phase


def _retreat(unit: str, options: list[str]) -> dict[str, Any]:
    phase = _units({"GERMANY": ["*" + unit], "FRANCE": ["A BEL"]})
    phase["state"]["retreats"] = {"GERMANY": {unit: options}}
    return phase


BAD_FILES: list[tuple[str, str | bytes, str]] = [
    ("empty", "", "is empty"),
    ("not json", "{'phases': [}", "is not valid JSON"),
    ("binary", b"\xff\xfe\x00garbage", "not a UTF-8 text file"),
    ("bad second line", json.dumps(_game("solo.json")) + "\n{oops\n", "line 2, is not valid JSON"),
    ("a number", "3", "top level must be a JSON object"),
    ("no phases", json.dumps({"id": "x", "map": "standard"}), "'phases' must be a non-empty list"),
    ("another map", json.dumps({"map": "modern", "phases": [_phase()]}), "map 'modern'"),
    ("build any", json.dumps({"rules": ["BUILD_ANY"], "phases": [_phase()]}), "BUILD_ANY"),
    ("phase not an object", json.dumps({"phases": [3]}), "phase 1: must be an object"),
    ("bad phase name", json.dumps({"phases": [_phase(name="Spring")]}), "not a phase name"),
    ("no state", json.dumps({"phases": [_phase(state=None)]}), "no 'state' object"),
    ("bad orders", json.dumps({"phases": [_phase(orders={"FRANCE": "A PAR H"})]}), "list of str"),
    ("unknown power", json.dumps({"phases": [_units({"NARNIA": ["A PAR"]})]}), "NARNIA"),
    ("unknown province", json.dumps({"phases": [_units({"FRANCE": ["A XYZ"]})]}), "XYZ"),
    ("fleet inland", json.dumps({"phases": [_units({"FRANCE": ["F PAR"]})]}), "cannot stand"),
    ("bad unit", json.dumps({"phases": [_units({"FRANCE": ["PARIS"]})]}), "not a unit"),
    ("bad retreat", json.dumps({"phases": [_retreat("A HOL", ["NTH"])]}), "cannot retreat to"),
    ("bad results", json.dumps({"phases": [_phase(results={"A PAR": "bounce"})]}), "results of"),
    ("results list", json.dumps({"phases": [_phase(results=["bounce"])]}), "'results' must be"),
]


@pytest.mark.parametrize(
    ("content", "message"), [b[1:] for b in BAD_FILES], ids=[b[0] for b in BAD_FILES]
)
def test_unreadable_files_exit_2_with_a_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | bytes, message: str
) -> None:
    path = _bad(tmp_path, content)
    assert main(["replay", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("error: ")
    assert message in captured.err
    assert "Traceback" not in captured.err
    with pytest.raises(ReplayError):
        load_saved_games(path)


def test_missing_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(tmp_path / "nope.json")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_unreadable_orders_are_reported_not_fatal() -> None:
    data = _game("package_deviation.json")
    data["phases"][0]["orders"]["FRANCE"].append("A BEL FLIES TO THE MOON")
    (verdict,) = replay_game(read_saved_game(data)).verdicts
    assert any("unreadable" in r for r in verdict.refused)


SAMPLES = sorted(
    p.name for p in REPLAY_DIR.iterdir() if p.name.endswith((".json", ".jsonl", ".jsonl.gz"))
)


@pytest.mark.parametrize("name", SAMPLES)
def test_every_sample_replays_with_no_difference_under_the_package_rules(name: str) -> None:
    games = load_saved_games(REPLAY_DIR / name)
    for game in games:
        report = replay_game(game, PACKAGE)
        assert report.differ == 0, [v for v in report.verdicts if v.status == "differ"]
        assert report.by_choice == 0  # nothing left to explain by a choice
        assert report.agree == len(report.verdicts) > 0


def test_the_random_corpus_holds_thirty_games_or_more_and_exercises_the_rules() -> None:
    games = load_saved_games(REPLAY_DIR / "corpus.jsonl.gz")
    assert len(games) >= 30
    assert {g.map.name for g in games} == {"standard", "fleet_rome"}
    choices = {c for g in games for v in replay_game(g).verdicts for c in v.choices}
    assert any("4.A.3" in c for c in choices) and any("4.D.8" in c for c in choices)


def test_the_package_rule_positions_differ_under_datc() -> None:
    (land, head_to_head, retreat) = load_saved_games(REPLAY_DIR / "package_rules.jsonl")
    assert "4.A.3" in replay_game(land).verdicts[0].choices[0]
    assert replay_game(head_to_head).verdicts[0].status == "differ"  # a deviation, no choice
    assert "6.G.10" in replay_game(retreat).verdicts[0].choices[0]


def test_cli_replay_rules_package(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(REPLAY_DIR / "package_deviation.json")
    assert main(["replay", path]) == 1
    capsys.readouterr()
    assert main(["replay", "--rules", "package", path]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "1 phases agree, 0 differ"
    with pytest.raises(SystemExit) as exc:
        main(["replay", "--rules", "dpjudge", path])
    assert exc.value.code == 2
    assert "invalid choice: 'dpjudge'" in capsys.readouterr().err


def test_a_gzipped_file_that_is_not_gzip_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "games.jsonl.gz"
    path.write_text("{}")
    with pytest.raises(ReplayError, match=r"cannot read .*games\.jsonl\.gz"):
        load_saved_games(path)
