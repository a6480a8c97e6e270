"""``diplomat map`` (list, show, import, export) and ``--map`` on datc, demo and replay."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from diplomat.cli.main import main
from diplomat.engine.map import GameMap, load_map

DATC_VARIANTS = Path(__file__).parent.parent / "datc" / "variants"
REPLAY_DIR = Path(__file__).parent.parent / "replay"


def test_map_list_and_show(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["map", "list"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("standard")
    assert "Andy Schwarz" in out and "34 powers" in out and "17 powers" in out
    assert main(["map", "show", "chaos"]) == 0
    out = capsys.readouterr().out
    assert "builds: in any owned supply centre" in out and "starts WIN 1900" in out
    assert main(["map", "show", "atlantis"]) == 2
    assert "unknown map 'atlantis'" in capsys.readouterr().err


def test_export_then_import_a_variant(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["map", "export", "sailho", "-o", str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "sailho.mdf", "sailho.now", "sailho.rem", "sailho.sco",
    ]  # fmt: skip
    (tmp_path / "sailho.cfg").write_text(
        "# Designed by Someone in 1998\n[variant]\nname=sailho\nstart=SPR 1700\n"
        "[provinces]\nNAR=Narrows\n"
    )
    out = tmp_path / "mine.json"
    assert main(["map", "import", str(tmp_path / "sailho.mdf"), "--name", "mine",
                 "-o", str(out)]) == 0  # fmt: skip
    assert "4 powers" in capsys.readouterr().out
    data = json.loads(out.read_text())
    assert data["name"] == "mine" and data["designer"] == "Someone"
    assert data["provinces"]["NAR"]["name"] == "Narrows"
    mine = GameMap.from_dict(data)
    sailho = load_map("sailho")
    assert mine.fleet_adj == sailho.fleet_adj and mine.start_year == 1700
    # The file plays: --map PATH.
    assert main(["demo", "--map", str(out), "--max-year", "1701"]) == 0
    assert "game over" in capsys.readouterr().out


def test_import_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["map", "import", str(tmp_path / "none.mdf")]) == 2
    assert "no such file" in capsys.readouterr().err
    (tmp_path / "x.txt").write_text("hello")
    assert main(["map", "import", str(tmp_path / "x.txt")]) == 2
    assert "expected a .mdf or .cfg" in capsys.readouterr().err
    (tmp_path / "bad.mdf").write_text("MDF (AUS) garbage")
    assert main(["map", "import", str(tmp_path / "bad.mdf")]) == 2
    assert "bad.mdf" in capsys.readouterr().err


def test_datc_on_variants(capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("hundred3", "chaos"):
        assert main(["datc", "--map", name, str(DATC_VARIANTS / f"{name}.txt")]) == 0
        assert " 0 failed" in capsys.readouterr().out
    # On the wrong map the file names provinces that are not there.
    assert main(["datc", str(DATC_VARIANTS / "hundred3.txt")]) == 2
    assert "unknown province" in capsys.readouterr().err
    assert main(["datc", "--map", "atlantis", str(DATC_VARIANTS / "hundred3.txt")]) == 2


def test_render_with_map(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "s.svg"
    assert main(["render", "--map", "standard", "-o", str(out)]) == 0
    assert out.read_text().startswith("<svg")
    assert main(["render", "--map", "atlantis", "-o", str(out)]) == 2
    assert "unknown map 'atlantis'" in capsys.readouterr().err


def test_demo_and_replay_with_map(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--map", "world3", "--max-year", "1902"]) == 0
    assert "game over: no solo by 1902" in capsys.readouterr().out
    assert main(["replay", str(REPLAY_DIR / "fleet_rome_7.json")]) == 0
    assert "0 differ" in capsys.readouterr().out
    # Each phase's position comes from the file: on the same board (standard) it agrees too;
    # on another board its provinces are unknown.
    assert main(["replay", "--map", "standard", str(REPLAY_DIR / "fleet_rome_7.json")]) == 0
    capsys.readouterr()
    assert main(["replay", "--map", "hundred3", str(REPLAY_DIR / "fleet_rome_7.json")]) == 2
    assert "unknown power" in capsys.readouterr().err
    assert main(["replay", "--map", "atlantis", str(REPLAY_DIR / "fleet_rome_7.json")]) == 2
    assert "unknown map" in capsys.readouterr().err


def test_map_option_takes_daide_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert main(["map", "export", "hundred3", "-o", str(tmp_path)]) == 0
    capsys.readouterr()
    assert main(["demo", "--map", str(tmp_path / "hundred3.mdf"), "--max-year", "1426"]) == 0
    assert "game over: no solo by 1426" in capsys.readouterr().out
    assert (tmp_path / "data" / "diplomat" / "maps" / "hundred3.json").is_file()
    assert main(["demo", "--map", str(tmp_path / "nothing.mdf")]) == 2
    assert "--map: " in capsys.readouterr().err


def test_import_reads_the_aop_beside_the_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """AiMapper's NAME.aop beside the DAIDE files gives the map its picture; a broken one
    stops the import with the line or province at fault."""
    assert main(["map", "export", "sailho", "-o", str(tmp_path)]) == 0
    sailho = load_map("sailho")
    coast_type = {"NC": "CN", "SC": "CS", "EC": "CE", "WC": "CW"}
    lines = []
    for loc, (x, y) in sailho.picture.items():
        prov, _, coast = loc.partition("/")
        kind = coast_type[coast] if coast else "SC" if prov in sailho.supply_centres else "NO"
        lines.append(f"{x:g} {y:g} {prov.title()} {kind} {sailho.provinces[prov].name}")
    aop = tmp_path / "sailho.aop"
    aop.write_text("\n".join(lines) + "\n")
    out = tmp_path / "mine.json"
    assert main(["map", "import", str(tmp_path / "sailho.mdf"), "-o", str(out)]) == 0
    capsys.readouterr()
    assert GameMap.from_dict(json.loads(out.read_text())).picture == sailho.picture
    aop.write_text("\n".join(line for line in lines if " Nar " not in line) + "\n")
    assert main(["map", "import", str(tmp_path / "sailho.mdf"), "-o", str(out)]) == 2
    assert "sailho.aop: no position for province NAR" in capsys.readouterr().err
