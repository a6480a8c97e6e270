"""kill -9 the server mid-game, restart it on the same database, come back with IAM: the
game continues from the same phase with no order, result or press message lost."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import trio

from diplomat.engine.orders import Result
from diplomat.protocol import messages
from diplomat.server.store import Store

from .daide_client import PATIENCE, WireClient
from .test_reliability import _units


async def _start(db: Path, grace: float = PATIENCE) -> tuple[subprocess.Popen[str], int]:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "diplomat.cli.main",
            "serve",
            "--port",
            "0",
            "--db",
            str(db),
            "--level",
            "10",
            # untimed, though a press game: the game must wait for absent players
            "--mtl",
            "0",
            "--rtl",
            "0",
            "--btl",
            "0",
            "--max-year",
            "1901",
            "--rejoin-grace",
            str(grace),
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
        hlos = [await c.expect(messages.Hlo) for c in clients]
        by_power = {h.power: c for h, c in zip(hlos, clients, strict=True)}
        fra = by_power["FRA"]
        await fra.send("SUB ((FRA AMY PAR) MTO BUR)")
        assert (await fra.expect(messages.Thx)).note.value == "MBV"
        await by_power["ENG"].send("SND (FRA) (PRP (PCE (ENG FRA)))")
        await by_power["ENG"].expect(messages.Yes)
        await fra.expect(messages.Frm)
    finally:
        proc.kill()  # SIGKILL: no chance to save anything more
        proc.wait()
    proc, port = await _start(db)
    try:
        back: dict[str, WireClient] = {}
        for h in hlos:
            c = await WireClient.connect(port)
            await c.send(messages.Iam(h.power, h.passcode))
            assert await c.expect(messages.Yes) == messages.Yes(messages.Iam(h.power, h.passcode))
            back[h.power] = c
        await back["FRA"].send("MIS")
        mis = await back["FRA"].expect(messages.Mis)
        assert {str(u) for u in mis.units} == {"F BRE", "A MAR"}  # PAR's order survived
        for power, c in back.items():
            units = [u for u in _units(power) if not (power == "FRA" and "PAR" in u)]
            await c.send(f"SUB {' '.join(f'(({power} {u}) HLD)' for u in units)}")
        ords: list[messages.Ord] = []
        while len(ords) < 22:
            ords.append(await back["AUS"].expect(messages.Ord))
        par = [o for o in ords if str(o.order) == "A PAR - BUR"]
        assert par and isinstance(par[0].result, Result) and par[0].result.outcome.value == "SUC"
    finally:
        proc.kill()
        proc.wait()
    out = subprocess.run(
        [sys.executable, "-m", "diplomat.cli.main", "show", "1", "--db", str(db), "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    data = json.loads(out.stdout)
    assert [p["phase"] for p in data["phases"]][:2] == ["S1901M", "F1901M"]
    assert data["press"] == [
        {"phase": "S1901M", "from": "ENG", "to": ["FRA"], "message": "PRP ( PCE ( ENG FRA ) )"}
    ]


async def test_after_the_grace_absent_players_are_in_disorder_and_the_game_waits(
    tmp_path: Path,
) -> None:
    """After a restart nobody but one player comes back: when the grace is over the others
    are in civil disorder on the wire and in the database; the game (no deadlines) goes on
    with the one who came back, and when that one leaves too, it waits for them."""
    db = tmp_path / "game.sqlite"
    proc, port = await _start(db)
    try:
        clients = [await WireClient.connect(port, text=True) for _ in range(7)]
        for i, c in enumerate(clients):
            await c.join(f"p{i}")
        hlos = [await c.expect(messages.Hlo) for c in clients]
    finally:
        proc.kill()
        proc.wait()
    back_hlo = hlos[0]
    others = sorted(h.power for h in hlos[1:])
    # The grace is the timer under test, short enough to wait out; long enough that the one
    # player who comes back is surely back before it ends (it learns of the others' disorder
    # only if it is connected when the grace ends), however loaded the machine.
    proc, port = await _start(db, grace=10)
    store = Store(db)
    try:
        back = await WireClient.connect(port)
        await back.send(messages.Iam(back_hlo.power, back_hlo.passcode))
        assert await back.expect(messages.Yes) == messages.Yes(
            messages.Iam(back_hlo.power, back_hlo.passcode)
        )
        ccds = [await back.expect(messages.Ccd) for _ in others]
        assert sorted(c.power for c in ccds) == others
        status = {p.power: p.status for p in store.players(1)}
        assert status == {back_hlo.power: "playing", **{p: "disorder" for p in others}}
        await back.send("NOW")
        assert (await back.expect(messages.Now)).turn.name == "S1901M"
        units = _units(back_hlo.power)
        await back.send(f"SUB {' '.join(f'(({back_hlo.power} {u}) HLD)' for u in units)}")
        assert (await back.expect(messages.Now)).turn.name == "F1901M"
        # Everybody away: the game waits, however long; it resumes when one comes back.
        await back.aclose()
        with trio.fail_after(PATIENCE):
            while any(p.status != "disorder" for p in store.players(1)):
                await trio.sleep(0.05)
        again = await WireClient.connect(port)
        await again.send(messages.Iam(back_hlo.power, back_hlo.passcode))
        assert await again.expect(messages.Yes) == messages.Yes(
            messages.Iam(back_hlo.power, back_hlo.passcode)
        )
        await again.send("NOW")
        assert (await again.expect(messages.Now)).turn.name == "F1901M"
    finally:
        store.close()
        proc.kill()
        proc.wait()


async def test_a_power_the_game_waits_for_is_waited_for_however_long(make_server) -> None:  # type: ignore[no-untyped-def]
    """``GameRunner.wait_for(power)`` (the web page's person): in a game without deadlines
    the phase is not processed while that power's player is away, even though every other
    power has ordered; it is as soon as the player is back and has ordered."""
    server = await make_server()
    port = server.address[1]
    clients = [await WireClient.connect(port, text=True) for _ in range(7)]
    for i, c in enumerate(clients):
        await c.join(f"p{i}")
    hlos = [await c.expect(messages.Hlo) for c in clients]
    (runner,) = [r for r in server.games.values() if r.status().started]
    person, hlo = clients[0], hlos[0]
    runner.wait_for(hlo.power)
    await person.aclose()
    for c, h in zip(clients[1:], hlos[1:], strict=True):
        await c.expect(messages.Ccd)
        await c.send(f"SUB {' '.join(f'(({h.power} {u}) HLD)' for u in _units(h.power))}")
        await c.expect(messages.Thx)  # handled by the game
    back = await WireClient.connect(port)
    await back.send(messages.Iam(hlo.power, hlo.passcode))
    assert await back.expect(messages.Yes) == messages.Yes(messages.Iam(hlo.power, hlo.passcode))
    await back.send("NOW")
    assert (await back.expect(messages.Now)).turn.name == "S1901M"  # it waited
    await back.send(f"SUB {' '.join(f'(({hlo.power} {u}) HLD)' for u in _units(hlo.power))}")
    assert (await back.expect(messages.Now)).turn.name == "F1901M"
