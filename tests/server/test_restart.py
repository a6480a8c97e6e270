"""kill -9 the server mid-game, restart it on the same database, come back with IAM: the
game continues from the same phase with no order, result or press message lost."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import trio

from engine.orders import Result
from protocol import messages as m

from .daide_client import WireClient
from .test_reliability import _units


async def _start(db: Path) -> tuple[subprocess.Popen[str], int]:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "cli.main",
            "serve",
            "--port",
            "0",
            "--db",
            str(db),
            "--level",
            "10",
            "--max-year",
            "1901",
            "--rejoin-grace",
            "30",
            "--no-web",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdout is not None
    line = await trio.to_thread.run_sync(proc.stdout.readline)
    assert "serving DAIDE on" in line, line
    return proc, int(line.split("127.0.0.1:")[1].split()[0])


async def test_kill_and_resume(tmp_path: Path) -> None:
    db = tmp_path / "game.sqlite"
    proc, port = await _start(db)
    try:
        clients = [await WireClient.connect(port, text=True) for _ in range(7)]
        for i, c in enumerate(clients):
            await c.join(f"p{i}")
        hlos = [await c.expect(m.Hlo) for c in clients]
        by_power = {h.power: c for h, c in zip(hlos, clients, strict=True)}
        fra = by_power["FRA"]
        await fra.send("SUB ((FRA AMY PAR) MTO BUR)")
        assert (await fra.expect(m.Thx)).note.value == "MBV"
        await by_power["ENG"].send("SND (FRA) (PRP (PCE (ENG FRA)))")
        await by_power["ENG"].expect(m.Yes)
        await fra.expect(m.Frm)
    finally:
        proc.kill()  # SIGKILL: no chance to save anything more
        proc.wait()
    proc, port = await _start(db)
    try:
        back: dict[str, WireClient] = {}
        for h in hlos:
            c = await WireClient.connect(port)
            await c.send(m.Iam(h.power, h.passcode))
            assert await c.expect(m.Yes) == m.Yes(m.Iam(h.power, h.passcode))
            back[h.power] = c
        await back["FRA"].send("MIS")
        mis = await back["FRA"].expect(m.Mis)
        assert {str(u) for u in mis.units} == {"F BRE", "A MAR"}  # PAR's order survived
        for power, c in back.items():
            units = [u for u in _units(power) if not (power == "FRA" and "PAR" in u)]
            await c.send(f"SUB {' '.join(f'(({power} {u}) HLD)' for u in units)}")
        ords: list[m.Ord] = []
        while len(ords) < 22:
            ords.append(await back["AUS"].expect(m.Ord))
        par = [o for o in ords if str(o.order) == "A PAR - BUR"]
        assert par and isinstance(par[0].result, Result) and par[0].result.outcome.value == "SUC"
    finally:
        proc.kill()
        proc.wait()
    out = subprocess.run(
        [sys.executable, "-m", "cli.main", "show", "1", "--db", str(db), "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    data = json.loads(out.stdout)
    assert [p["phase"] for p in data["phases"]][:2] == ["S1901M", "F1901M"]
    assert data["press"] == [
        {"phase": "S1901M", "from": "ENG", "to": ["FRA"], "message": "PRP ( PCE ( ENG FRA ) )"}
    ]
