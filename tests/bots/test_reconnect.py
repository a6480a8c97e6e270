"""A bundled bot outlives a server restart: it reconnects with backoff and takes its power
back with IAM and the passcode of its HLO. Over a pipe, it exits as soon as the pipe closes."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import trio

from protocol import messages as m
from tests.server.daide_client import PATIENCE, WireClient
from tests.server.test_reliability import _units


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def _serve(db: Path, port: int) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "cli.main", "serve", "--port", str(port), "--db", str(db),
         "--max-year", "1901", "--rejoin-grace", "600", "--no-web"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    assert proc.stdout is not None
    line = await trio.to_thread.run_sync(proc.stdout.readline)
    assert "serving DAIDE on" in line, line
    return proc


async def test_a_tcp_bot_reconnects_after_a_server_restart(tmp_path: Path) -> None:
    db, port = tmp_path / "g.sqlite", _free_port()
    server = await _serve(db, port)
    bot = subprocess.Popen(
        [sys.executable, "-m", "bots.holdbot", "--port", str(port), "--seed", "1"],
        stderr=subprocess.DEVNULL,
    )
    try:
        people = [await WireClient.connect(port, text=True) for _ in range(6)]
        for i, c in enumerate(people):
            await c.join(f"p{i}")
        hlos = [await c.expect(m.Hlo) for c in people]
        server.kill()
        server.wait()
        server = await _serve(db, port)
        back = []
        for h in hlos:
            c = await WireClient.connect(port)
            await c.send(m.Iam(h.power, h.passcode))
            assert await c.expect(m.Yes) == m.Yes(m.Iam(h.power, h.passcode))
            await c.send(f"SUB {' '.join(f'(({h.power} {u}) HLD)' for u in _units(h.power))}")
            back.append(c)
        # The grace is ten minutes: the phase is processed only if the bot is back too.
        assert (await back[0].expect(m.Now)).turn.name == "F1901M"
        for c, h in zip(back, hlos, strict=True):
            await c.send(f"SUB {' '.join(f'(({h.power} {u}) HLD)' for u in _units(h.power))}")
        await back[0].expect(m.Smr)
        assert await trio.to_thread.run_sync(bot.wait, PATIENCE) == 0
    finally:
        for proc in (server, bot):
            proc.kill()
            proc.wait()


async def test_a_pipe_bot_exits_when_its_pipe_closes() -> None:
    """The launcher is gone (kill -9 of a tournament): the bot reads end of input and exits
    at once, with status 1 (its game did not end)."""
    bot = subprocess.Popen(
        [sys.executable, "-m", "bots.dumbbot", "--stdio"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert bot.stdin is not None and bot.stdout is not None
    line = await trio.to_thread.run_sync(bot.stdout.readline)  # its NME: it is running
    assert line.startswith(b"NME")
    bot.stdin.close()
    assert await trio.to_thread.run_sync(bot.wait, PATIENCE) == 1
