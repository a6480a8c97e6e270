"""Stopping `diplomat serve` (SIGTERM, as docker stop sends; Ctrl-C is the same path): every
client gets OFF, binary clients then an FM, and the process exits 0. The stop plays nobody's
phase: the clocks stop first, nobody is in civil disorder for being disconnected by it, and a
restart resumes each game in the same phase, with the orders given and the time it had left."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import trio

from diplomat.engine.orders import Hold
from diplomat.engine.state import Unit
from diplomat.protocol import messages
from diplomat.protocol.connection import Closed
from diplomat.protocol.tokens import STANDARD

from .daide_client import PATIENCE, WireClient

MOVE_TIME = 900  # far longer than the test: only the shutdown may end the phase


def _serve(db: Path, *extra: str) -> subprocess.Popen[str]:
    argv = [sys.executable, "-m", "diplomat.cli.main", "serve", "--port", "0", "--no-web"]
    argv += ["--db", str(db), *extra]
    return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)


async def _port(proc: subprocess.Popen[str]) -> int:
    assert proc.stdout is not None
    line = await trio.to_thread.run_sync(proc.stdout.readline)
    assert "serving DAIDE on" in line, line
    return int(line.split("127.0.0.1:")[1].split()[0])


async def test_sigterm_sends_off_and_fm(tmp_path: Path) -> None:
    proc = _serve(tmp_path / "db.sqlite")
    try:
        port = await _port(proc)
        binary = await WireClient.connect(port, table=STANDARD)
        text = await WireClient.connect(port, text=True, table=STANDARD)
        for c in (binary, text):
            await c.send(messages.Nme("stayer", "1"))
            await c.expect(messages.Map)
        proc.send_signal(signal.SIGTERM)
        for c in (binary, text):
            assert await c.expect(messages.Off) == messages.Off()
            end = await c.event()
            assert isinstance(end, Closed)
        # The binary client was sent an FM (a clean close), not just a dropped socket.
        assert binary.closed is not None and binary.closed.reason == "FM received"
        assert await trio.to_thread.run_sync(proc.wait) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@contextmanager
def _processes() -> Iterator[list[subprocess.Popen[str]]]:
    procs: list[subprocess.Popen[str]] = []
    try:
        yield procs
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
            p.wait()


def _dumbbot(port: int, seed: int, *extra: str) -> subprocess.Popen[str]:
    argv = [sys.executable, "-m", "diplomat.bots.dumbbot", "--port", str(port), "--seed", str(seed)]
    argv += ["--reconnect", "0", *extra]
    return subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True)


def _read(db: Path, sql: str, *args: object) -> list[tuple[Any, ...]]:
    """A read of the server's database, as another program would (read-only)."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        return conn.execute(sql, args).fetchall()


async def _until(check: Callable[[], bool]) -> None:
    """Wait (generously) for a condition another process brings about."""
    with trio.fail_after(PATIENCE):
        while not check():
            await trio.sleep(0.1)


def _ordered_all(db: Path, units: dict[str, int]) -> bool:
    """Every bot has an order in the database for each of its units."""
    rows = _read(db, "SELECT power, COUNT(*) FROM submissions WHERE action='sub' GROUP BY power")
    given = {str(p): int(n) for p, n in rows}
    return all(given.get(p, 0) >= n for p, n in units.items())


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
async def test_a_stop_mid_phase_plays_nothing_and_the_restart_resumes_it(
    tmp_path: Path, signum: signal.Signals
) -> None:
    """Six DumbBots have ordered, the person (a TCP client) has ordered one unit of three:
    the signal must not play the phase with the person's other units holding. After the
    restart the phase is the same, the order is there, the deadline has the time it had left,
    and the game goes on."""
    db = tmp_path / "game.sqlite"
    timing = ["--mtl", str(MOVE_TIME), "--rejoin-grace", "300", "--max-year", "1901"]
    with _processes() as procs:
        server = _serve(db, *timing)
        procs.append(server)
        port = await _port(server)
        me = await WireClient.connect(port, text=True, table=STANDARD)
        await me.join("person")
        procs += [_dumbbot(port, seed) for seed in range(6)]
        hlo = await me.expect(messages.Hlo)
        now = await me.expect(messages.Now)
        assert now.turn is not None and now.turn.name == "S1901M"
        mine = [u for u in now.units if isinstance(u, Unit) and u.power == hlo.power]
        others: dict[str, int] = {}
        for u in now.units:
            if isinstance(u, Unit) and u.power != hlo.power:
                others[u.power] = others.get(u.power, 0) + 1
        await me.send(messages.Sub((Hold(mine[0]),)))
        assert (await me.expect(messages.Thx)).note.value == "MBV"
        await _until(lambda: _ordered_all(db, others))
        # Let the deadline's clock visibly run (the server tells when 897 s are left), so
        # that a restart with a fresh 900 s could not pass for one with the time left.
        await me.send(messages.Tme(MOVE_TIME - 3))
        assert await me.expect(messages.Yes) == messages.Yes(messages.Tme(MOVE_TIME - 3))
        assert await me.expect(messages.Tme) == messages.Tme(MOVE_TIME - 3)
        await me.send(messages.Tme())
        left = (await me.expect(messages.Tme)).seconds
        asked = time.monotonic()
        assert left is not None and left <= MOVE_TIME - 3

        server.send_signal(signum)
        assert await me.expect(messages.Off) == messages.Off()
        assert await trio.to_thread.run_sync(server.wait) == 0
        stopped_within = time.monotonic() - asked

        # Nothing was processed, nobody went into civil disorder, the orders are kept and
        # the clock's time left was saved.
        assert [p for (p,) in _read(db, "SELECT phase FROM phases")] == ["S1901M"]
        assert {s for (s,) in _read(db, "SELECT status FROM players")} == {"playing"}
        mine_kept = _read(
            db, "SELECT body FROM submissions WHERE power=? AND action='sub'", hlo.power
        )
        assert len(mine_kept) == 1
        ((phase, remaining),) = _read(db, "SELECT phase, remaining FROM clocks")
        assert phase == "S1901M"
        assert isinstance(remaining, float)
        # What the TME answer said, less the time the stop took (rounding: half a second).
        assert left - stopped_within - 0.5 <= remaining <= left + 0.5

        # The clock runs again from when the restarted server loads the game, before it
        # listens: time it from the launch, or a slow start looks like a clock that lost time.
        restarted = time.monotonic()
        server = _serve(db, *timing)
        procs.append(server)
        port = await _port(server)
        me = await WireClient.connect(port, text=True, table=STANDARD)
        await me.send(messages.Iam(hlo.power, hlo.passcode))
        assert await me.expect(messages.Yes) == messages.Yes(messages.Iam(hlo.power, hlo.passcode))
        await me.send(messages.Now())
        assert (await me.expect(messages.Now)).turn == now.turn
        await me.send(messages.Tme())
        resumed_left = (await me.expect(messages.Tme)).seconds
        since = time.monotonic() - restarted
        assert resumed_left is not None
        assert remaining - since - 0.5 <= resumed_left <= remaining + 0.5
        # The unit ordered before the stop is not missing; the other two are.
        await me.send(messages.Mis())
        missing = (await me.expect(messages.Mis)).units
        assert set(missing) == set(mine[1:])

        # The bots take their powers back; the person orders the rest: the game plays on.
        for i, (power, passcode) in enumerate(
            _read(db, "SELECT power, passcode FROM players WHERE power != ?", hlo.power)
        ):
            procs.append(_dumbbot(port, 10 + i, "--power", str(power), "--passcode", str(passcode)))
        await me.send(messages.Sub(tuple(Hold(u) for u in mine[1:])))
        results: list[messages.Ord] = []
        with trio.fail_after(PATIENCE):
            while True:
                msg = await me.event()
                assert not isinstance(msg, Closed), msg
                if isinstance(msg, messages.Ord):
                    results.append(msg)
                if isinstance(msg, messages.Now) and msg.turn != now.turn:
                    break
        assert msg.turn is not None and msg.turn.name == "F1901M"
        # The order given before the stop was adjudicated with the others.
        assert {o.order for o in results} >= {Hold(u) for u in mine}
        server.send_signal(signal.SIGTERM)
        assert await trio.to_thread.run_sync(server.wait) == 0
