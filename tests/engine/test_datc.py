"""The whole of DATC 3.0 chapter 6 (preferred options), from the transcription in tests/datc."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from diplomat.cli.main import main
from diplomat.engine import datc
from diplomat.engine.datc import (
    Case,
    CaseFileError,
    OrderVerdict,
    parse_cases,
    parse_verdict,
    run_case,
    run_file,
)
from diplomat.engine.map import load_map
from diplomat.engine.notation import NotationError
from diplomat.engine.orders import RESULTS, Note, Order, Outcome, Result
from diplomat.engine.orderset import OrderSet
from diplomat.engine.state import GameState
from diplomat.engine.turn import PhaseResult, process

DATC_DIR = Path(__file__).parent.parent / "datc"
FILES = sorted(DATC_DIR.glob("datc_6?.txt"))
GMAP = load_map("standard")
CASES = [c for f in FILES for c in parse_cases(f.read_text(), GMAP, f.name)]


def test_every_chapter_6_case_is_transcribed() -> None:
    ids = {c.name for c in CASES}
    counts = {
        "A": 12,
        "B": 15,
        "C": 9,
        "D": 34,
        "E": 15,
        "F": 25,
        "G": 20,
        "H": 16,
        "I": 7,
        "J": 11,
    }
    expected = {f"6.{s}.{i}" for s, n in counts.items() for i in range(1, n + 1)}
    assert expected <= ids
    assert len(expected) == 164


def test_every_order_line_states_its_result() -> None:
    unmarked = [f"{c.name} line {o.line}" for c in CASES for o in c.orders if o.expect is None]
    assert unmarked == []


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_datc_case(case: Case) -> None:
    result = run_case(case, GMAP)
    assert result.passed, "; ".join(result.problems)


GODIP_STYLE = """
VARIANT_ALL Standard
CASE godip names
PRESTATE_SETPHASE Spring 1901, Movement
PRESTATE
	England: F nat
	England: F eng
	France: F mid
	Russia: F stp/sc
ORDERS
	England: F nat-mid
	England: F eng S F nat-mid
	Russia: F stp/sc-bot
POSTSTATE
	England: F mid
	England: F eng
	Russia: F bot
POSTSTATE_DISLODGED
	France: F mid
END
CASE deliberately wrong
PRESTATE_SETPHASE Spring 1901, Movement
PRESTATE
	England: A lon
ORDERS
	England: A lon-wal
POSTSTATE_SAME
END
"""


def test_runner_reads_godip_ids_and_reports_failures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "cases.txt"
    path.write_text(GODIP_STYLE)
    results = run_file(path, load_map("standard"))
    assert [r.passed for r in results] == [True, False]
    assert main(["datc", str(path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "PASS godip names"
    assert out[1].startswith("FAIL deliberately wrong")
    assert "ENG A WAL" in out[1]
    assert out[-1] == "1 passed, 1 failed"


def test_cli_passes_on_the_whole_transcription(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["datc", "-q", *map(str, FILES)]) == 0
    assert capsys.readouterr().out.strip().splitlines()[-1] == f"{len(CASES)} passed, 0 failed"


@pytest.mark.parametrize(
    "text, message",
    [
        ("CASE x\nPRESTATE\n\tEngland: A lon\n", "has no END"),
        ("CASE x\nPRESTATE\n\tNarnia: A lon\nEND\n", "unknown power"),
        ("CASE x\nPRESTATE\n\tEngland: A xyz\nEND\n", "unknown province"),
        ("CASE x\nPRESTATE_SETPHASE Autumn 1901, Dance\nEND\n", "cannot read"),
        ("PRESTATE\n", "outside a CASE"),
    ],
)
def test_bad_case_files_get_clear_errors(text: str, message: str) -> None:
    with pytest.raises(CaseFileError, match=message):
        parse_cases(text, GMAP)


def test_cli_reports_unreadable_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["datc", str(tmp_path / "missing.txt")]) == 2
    assert "missing.txt" in capsys.readouterr().err


def _failing(
    monkeypatch: pytest.MonkeyPatch, run_phase: Callable[[GameState, OrderSet], PhaseResult]
) -> set[str]:
    monkeypatch.setattr(datc, "process", run_phase)
    return {c.name for c in CASES if not run_case(c, GMAP).passed}


def _cases_with(pred: Callable[[OrderVerdict], bool]) -> set[str]:
    return {c.name for c in CASES if any(o.expect and pred(o.expect) for o in c.orders)}


def test_dropping_every_order_fails_every_case_that_orders_something(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The runner used to check positions only: with every order dropped, 85 cases still passed.
    def drop_orders(state: GameState, book: OrderSet) -> PhaseResult:
        return process(state, OrderSet(state))

    # A dropped order cannot show where every order is refused anyway or is a hold, nor where
    # civil disorder removes what the dropped removals named (6.J.1).
    unnoticeable = {
        c.name
        for c in CASES
        if c.phase.kind == "adjustment"
        or all(o.expect and (o.expect.illegal or o.text.upper().endswith(" H")) for o in c.orders)
    }
    failing = _failing(monkeypatch, drop_orders)
    assert {c.name for c in CASES} - unnoticeable <= failing
    assert len(failing) > 120  # most of the 165


def test_orders_the_runner_cannot_read_fail_every_case_that_has_orders(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The old runner skipped an unreadable order, and the unit held.
    def unreadable(*args: object, **kwargs: object) -> Order:
        raise NotationError("unreadable")

    def passes(case: Case) -> bool:
        try:
            return run_case(case, GMAP).passed
        except CaseFileError:  # the unreadable previous orders of a retreat case
            return False

    monkeypatch.setattr(datc, "parse_order", unreadable)
    assert {c.name for c in CASES if not passes(c)} == {c.name for c in CASES if c.orders}


def _mutated(result: Result) -> Result:
    other = Outcome.BNC if result.outcome is Outcome.SUC else Outcome.SUC
    return RESULTS[other, result.dislodged]


def test_every_mutated_result_fails_its_case(monkeypatch: pytest.MonkeyPatch) -> None:
    def mutate_results(state: GameState, book: OrderSet) -> PhaseResult:
        real = process(state, book)
        results = [(o, _mutated(r)) for o, r in real.results]
        return PhaseResult(real.phase, results, real.state, real.centres_updated)

    adjudicated = _cases_with(lambda v: not v.illegal)
    assert _failing(monkeypatch, mutate_results) == adjudicated
    assert len(adjudicated) > 120


def test_a_wrong_dislodgement_flag_fails_its_case(monkeypatch: pytest.MonkeyPatch) -> None:
    def forget_dislodgements(state: GameState, book: OrderSet) -> PhaseResult:
        real = process(state, book)
        results = [(o, RESULTS[r.outcome, False]) for o, r in real.results]
        return PhaseResult(real.phase, results, real.state, real.centres_updated)

    assert _cases_with(lambda v: v.dislodged) <= _failing(monkeypatch, forget_dislodgements)


@pytest.mark.parametrize(
    "text",
    ["succeeds", "holds", "bounces, dislodged", "cut, dislodged", "disrupted", "void",
     "illegal", "illegal FAR", "illegal NSU, dislodged", "replaced", "dislodged"],
)  # fmt: skip
def test_result_markers_read_back(text: str) -> None:
    verdict = parse_verdict(text)
    again = parse_verdict(str(verdict))
    assert again == verdict
    assert isinstance(verdict, OrderVerdict)


def test_markers_carry_notes_and_dislodgement() -> None:
    assert parse_verdict("illegal far") == OrderVerdict(illegal=True, note=Note.FAR)
    assert parse_verdict("dislodged") == OrderVerdict(Outcome.SUC, dislodged=True)
    assert parse_verdict("Bounces , Dislodged") == OrderVerdict(Outcome.BNC, dislodged=True)
    assert not parse_verdict("illegal FAR").matches(OrderVerdict(illegal=True, note=Note.CST))
    assert parse_verdict("illegal").matches(OrderVerdict(illegal=True, note=Note.CST))


@pytest.mark.parametrize(
    "mark, message",
    [("wins", "cannot read result"), ("illegal XYZ", "unknown THX note"),
     ("bounces, cut", "cannot read result"), ("", "cannot read result")],
)  # fmt: skip
def test_bad_markers_are_case_file_errors(mark: str, message: str) -> None:
    text = f"CASE x\nPRESTATE\n\tEngland: A LON\nORDERS\n\tEngland: A LON-WAL => {mark}\nEND\n"
    with pytest.raises(CaseFileError, match=message):
        parse_cases(text, GMAP)


def _one_order_case(order: str) -> str:
    return f"""CASE typo
PRESTATE_SETPHASE Spring 1901, Movement
PRESTATE
\tEngland: A LON
\tEngland: F NTH
ORDERS
\t{order}
POSTSTATE_SAME
END
"""


@pytest.mark.parametrize(
    "order, message",
    [
        ("England: A LON-XYZ", "unknown province 'XYZ'"),
        ("England: A LON-XYZ => illegal", "unknown province 'XYZ'"),
        ("England: A LON jumps", "cannot read 'A LON jumps'"),
        ("England: A YOR H", "refused (NSU: no such unit)"),
        ("England: F NTH S A YOR", "refused (NSU: no such unit)"),
        ("England: A LON-PAR => bounces", "A LON-PAR: illegal FAR, expected bounces"),
        ("England: F LON-WAL => succeeds", "names F LON, but A LON stands there"),
        ("England: F NTH S F LON => succeeds", "names F LON, but A LON stands there"),
        ("England: A LON-YOR => holds", "'holds' is the result of a hold order"),
    ],
)
def test_a_mistyped_order_fails_its_case_with_a_clear_message(order: str, message: str) -> None:
    (case,) = parse_cases(_one_order_case(order), GMAP)
    result = run_case(case, GMAP)
    assert not result.passed
    assert any(message in p for p in result.problems), result.problems


def test_a_deliberately_illegal_order_is_marked_and_passes() -> None:
    (case,) = parse_cases(_one_order_case("England: A YOR H => illegal NSU"), GMAP)
    assert run_case(case, GMAP).passed


def _without_markers(text: str) -> str:
    """A case file as the standard DATC files are written: no result markers."""
    return "\n".join(re.sub(r"\s*=>[^#]*", " ", line) for line in text.splitlines())


@pytest.mark.parametrize("chapter", ["6j", "6e"])
def test_a_file_without_markers_is_judged_on_positions(
    chapter: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A mark-free copy of chapter 6.J (6.J.1 removes a unit that does not exist: refused,
    as the DATC intends) and of 6.E passes, the refused orders listed as notes."""
    text = _without_markers((DATC_DIR / f"datc_{chapter}.txt").read_text())
    assert "=>" not in text
    path = tmp_path / f"{chapter}.txt"
    path.write_text(text)
    results = run_file(path, load_map("standard"))
    assert results and all(r.passed for r in results), [r.problems for r in results]
    assert main(["datc", str(path)]) == 0
    out, err = capsys.readouterr()
    assert "no result markers: judged on positions" in err
    if chapter == "6j":
        (j1,) = [r for r in results if r.case.name == "6.J.1"]
        assert j1.notes == [
            f"line {j1.case.orders[0].line}: Remove GOL refused (NSU: no such unit)",
            f"line {j1.case.orders[2].line}: Remove PAR refused (NMR)",
        ]
        assert "  note: line" in out and "Remove GOL refused (NSU: no such unit)" in out


def test_a_file_without_markers_still_fails_on_positions(tmp_path: Path) -> None:
    text = _without_markers((DATC_DIR / "datc_6j.txt").read_text())
    (case,) = [c for c in parse_cases(text, GMAP) if c.name == "6.J.1"]
    # 6.J.1 keeps A PAR; a copy that says A PIC stays fails on the position.
    lines = text.splitlines()
    end = next(i for i in range(case.line, len(lines)) if lines[i].strip() == "END")
    block = "\n".join(lines[case.line - 1 : end + 1])
    path = tmp_path / "wrong.txt"
    path.write_text(block.replace("POSTSTATE\n\tFrance: A PAR", "POSTSTATE\n\tFrance: A PIC"))
    (result,) = run_file(path, load_map("standard"))
    assert result.case.name == "6.J.1" and not result.passed
    assert any("units missing: FRA A PIC" in p for p in result.problems), result.problems
