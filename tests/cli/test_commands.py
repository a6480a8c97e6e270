"""What the commands print for people: errors found before anything starts, usages, the
games list, ``show`` in words and in DAIDE, and the placeholders of ``--help``."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from diplomat.cli.main import build_parser, main
from diplomat.engine.map import load_map
from diplomat.engine.state import initial_state, make_state
from diplomat.replay.games import compare
from diplomat.server.store import Store
from tests.mapdraw.stored import store_random_game
from tests.web.conftest import ROOT


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse's errors
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


# -- ports and the database ------------------------------------------------------------------


@pytest.mark.parametrize("option", ["--port", "--web-port"])
@pytest.mark.parametrize("value", ["99999", "-1", "65536", "http"])
def test_a_port_outside_0_to_65535_is_an_error(
    capsys: pytest.CaptureFixture[str], option: str, value: str
) -> None:
    code, _, err = run(capsys, "serve", option, value)
    assert code == 2
    assert f"argument {option}:" in err and "usage: diplomat serve" in err


def test_a_database_in_a_missing_folder_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    db = tmp_path / "no" / "such" / "x.sqlite"
    for command in (["serve", "--port", "0", "--no-web"], ["tournament", "holdbot:7"]):
        code, _, err = run(capsys, *command, "--db", str(db))
        assert code == 2
        assert f"the folder {db.parent} does not exist" in err
    assert not (tmp_path / "no").exists()


def test_games_without_a_database_says_there_are_none_yet(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, err = run(capsys, "games", "--db", str(tmp_path / "none.sqlite"))
    assert (code, out, err) == (0, "no games yet\n", "")
    assert not (tmp_path / "none.sqlite").exists()


def test_an_unknown_option_gets_the_subcommands_usage(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = run(capsys, "games", "--bogus")
    assert code == 2
    assert err.startswith("usage: diplomat games ")
    assert "diplomat games: error: unrecognized arguments: --bogus" in err


# -- diplomat games --------------------------------------------------------------------------


def test_games_shows_whole_results_and_hides_abandoned_games(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    db = tmp_path / "g.sqlite"
    store = Store(db)
    done = store.create_game({}, name="long draw")
    store.finish(
        done, {"kind": "draw", "powers": ["AUS", "ENG", "FRA", "GER", "ITA", "RUS", "TUR"]}
    )
    gone = store.create_game({}, name="interrupted")
    store.set_status(gone, "abandoned")
    store.close()
    code, out, _ = run(capsys, "games", "--db", str(db))
    assert code == 0
    assert "draw AUS ENG FRA GER ITA RUS TUR\n" in out
    assert "interrupted" not in out
    assert "(1 abandoned game not listed: --all lists them)" in out
    header = out.splitlines()[0].split()
    assert header == ["id", "status", "phase", "name", "result"]
    code, out, _ = run(capsys, "games", "--db", str(db), "--all")
    assert "interrupted" in out and "not listed" not in out


# -- diplomat show ---------------------------------------------------------------------------


def test_show_is_for_people_and_keeps_daide_under_an_option(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    db = store_random_game(tmp_path / "s.sqlite", max_year=1902)
    store = Store(db)
    store.set_player(1, "AUS", "Bot", "1.0", 1)
    store.set_player_status(1, "AUS", "eliminated", 1906)
    store.set_player(1, "ENG", "Bot", "1.0", 2)
    store.set_player_status(1, "ENG", "crashed", 1905)
    store.close()
    code, out, _ = run(capsys, "show", "1", "--db", str(db))
    assert code == 0
    assert "AUS: Bot 1.0 (eliminated 1906)" in out
    assert "ENG: Bot 1.0 (crashed, eliminated 1905)" in out
    assert "\nSpring 1901 Movement (S1901M)\n" in out
    assert "ORD (" not in out
    # Orders as players write them, under their power, with what became of them.
    assert re.search(r"^  AUS  [AF] [A-Z]{3}", out, re.M)
    assert re.search(r"^       [AF] [A-Z]{3}", out, re.M)
    assert re.search(r"\((bounced|cut|void|dislodged)[^)]*\)$", out, re.M)
    assert re.search(r"^centres at the end of 1901: ([A-Z]{3} \d+, ){6}[A-Z]{3} \d+$", out, re.M)
    retreats = [line for line in out.splitlines() if " Retreats (" in line]
    assert all(line.startswith(("Spring", "Fall")) for line in retreats)
    code, daide, _ = run(capsys, "show", "1", "--db", str(db), "--daide")
    assert code == 0
    assert "\nS1901M  centres AUS:3 ENG:3 FRA:3 GER:3 ITA:3 RUS:4 TUR:3\n" in daide
    assert "  ORD ( SPR 1901 ) ( ( AUS " in daide


def test_show_press_prints_the_games_press_in_english_by_phase(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    db = store_random_game(tmp_path / "p.sqlite", max_year=1901)
    store = Store(db)
    store.add_press(1, "S1901M", "GER", ["ENG", "FRA"], "TRY ( PRP PCE ALY VSS )")
    store.add_press(1, "S1901M", "ENG", ["FRA"], "PRP ( PCE ( ENG FRA ) )")
    store.add_press(1, "S1901M", "FRA", ["ENG"], "YES ( PRP ( PCE ( ENG FRA ) ) )")
    store.add_press(1, "S1901M", "ITA", ["ENG"], "HUH ( ERR PRP ( PCE ( ENG ITA ) ) )")
    store.add_press(1, "F1901M", "GER", ["ENG", "FRA"], "PRP ( DMZ ( ENG FRA GER ) ( BEL ) )")
    store.close()
    code, out, _ = run(capsys, "show", "1", "--db", str(db), "--press")
    assert code == 0
    assert "ORD" not in out  # the press alone
    assert (
        "\nSpring 1901 Movement (S1901M)\n"
        "  England to France: I propose peace between England and France.\n"
        "  France to England: I agree to peace between England and France.\n"
        "\nFall 1901 Movement (F1901M)\n"
        "  Germany to England and France: I propose a demilitarised zone in Belgium (no unit "
        "of England, France or Germany there).\n"
    ) in out
    # The machine handshake (TRY, HUH) is for bots: left out, and counted.
    assert "TRY (" not in out and "HUH (" not in out and "discuss" not in out
    assert "(2 protocol messages between bots left out: TRY and HUH; --daide shows them)" in out
    code, daide, _ = run(capsys, "show", "1", "--db", str(db), "--press", "--daide")
    assert code == 0
    # With --daide every message, the handshake too, each a sentence over its DAIDE.
    assert (
        "  Germany to England and France: I can discuss only proposals, peace and alliances.\n"
        "    FRM ( GER ) ( ENG FRA ) ( TRY ( PRP PCE ALY VSS ) )\n"
    ) in daide
    assert (
        "  Italy to England: I did not understand your proposal of peace between England and "
        "Italy.\n    FRM ( ITA ) ( ENG ) ( HUH ( ERR PRP ( PCE ( ENG ITA ) ) ) )\n"
    ) in daide
    assert "  FRM ( ENG ) ( FRA ) ( PRP ( PCE ( ENG FRA ) ) )\n" in daide
    assert "  FRM ( GER ) ( ENG FRA ) ( PRP ( DMZ ( ENG FRA GER ) ( BEL ) ) )\n" in daide
    # The whole history shows the press in English too, under its phase.
    code, out, _ = run(capsys, "show", "1", "--db", str(db))
    assert "  press: England to France: I propose peace between England and France.\n" in out
    assert "discuss" not in out and "did not understand" not in out


def test_show_press_of_a_gunboat_game_says_there_is_none(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    db = store_random_game(tmp_path / "g.sqlite", max_year=1901)
    code, out, _ = run(capsys, "show", "1", "--db", str(db), "--press")
    assert code == 0 and "no press in game 1 (a gunboat game: press level 0)" in out


# -- the engine's commands -------------------------------------------------------------------


def test_demo_orders_name_their_power(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "demo", "--orders", "--max-year", "1901")
    assert code == 0
    orders = [line.strip() for line in out.splitlines() if line.startswith("    ")]
    assert orders
    for line in orders:
        assert re.match(r"(AUS|ENG|FRA|GER|ITA|RUS|TUR) ([AF] |waives a build)", line), line


def test_replay_separates_the_units_it_lists() -> None:
    gmap = load_map("standard")
    ours = initial_state(gmap)
    kept = [u for p, u in ours.units.items() if p not in ("EDI", "LON")]
    theirs = make_state(gmap, ours.phase, kept, dict(ours.centres))
    line = next(x for x in compare(ours, theirs, None) if x.startswith("units only in ours"))
    assert "units only in ours: ENG F EDI, ENG F LON; only in package: -" in line


def test_help_names_what_each_option_takes() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    assert isinstance(sub.choices, dict)
    for name, command in sub.choices.items():
        text = command.format_help()
        # argparse's default placeholders are the option's name in capitals.
        for raw in ("REJOIN_GRACE", "LOG_LEVEL", " MTL", " RTL", " BTL", " PTL", "MAX_YEAR",
                    " DB", "WEB_PORT", " LVL"):  # fmt: skip
            assert raw not in text, (name, raw)
    serve = sub.choices["serve"].format_help()
    for shown in ("--rejoin-grace SECONDS", "--log-level LEVEL", "--mtl SECONDS", "--db PATH"):
        assert shown in serve


def test_dumbbots_help_ends_its_sentence() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "diplomat.bots.dumbbot", "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    description = done.stdout.split("\n\n")[1]
    assert description.startswith("DumbBot:")
    assert description.rstrip().endswith(".")


def test_readme_counts_the_datc_cases_the_command_runs(
    capsys: pytest.CaptureFixture[str],
) -> None:
    files = sorted(str(p) for p in (ROOT / "tests" / "datc").glob("*.txt"))
    code, out, _ = run(capsys, "datc", "-q", *files)
    assert code == 0
    summary = re.search(r"(\d+) passed, 0 failed", out)
    assert summary is not None, out
    total = int(summary.group(1))
    readme = (ROOT / "README.md").read_text()
    assert f"runs {total} cases and prints `{total} passed, 0 failed`" in readme
