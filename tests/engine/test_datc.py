"""The whole of DATC 3.0 chapter 6 (preferred options), from the transcription in tests/datc."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli.main import main
from engine.datc import CaseFileError, parse_cases, run_case, run_file
from engine.map import load_map

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


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_datc_case(case) -> None:  # type: ignore[no-untyped-def]
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


def test_runner_reads_godip_ids_and_reports_failures(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "cases.txt"
    path.write_text(GODIP_STYLE)
    results = run_file(path)
    assert [r.passed for r in results] == [True, False]
    assert main(["datc", str(path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "PASS godip names"
    assert out[1].startswith("FAIL deliberately wrong")
    assert "ENG A WAL" in out[1]
    assert out[-1] == "1 passed, 1 failed"


def test_cli_passes_on_the_whole_transcription(capsys) -> None:  # type: ignore[no-untyped-def]
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


def test_cli_reports_unreadable_file(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["datc", str(tmp_path / "missing.txt")]) == 2
    assert "missing.txt" in capsys.readouterr().err
