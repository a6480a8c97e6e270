"""A bundled bot outlives a server restart: it reconnects with backoff and takes its power
back with IAM and the passcode of its HLO. Over a pipe, it exits as soon as the pipe closes."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import trio

from diplomat.protocol import messages
from diplomat.server.store import Store
from tests.server.daide_client import PATIENCE, WireClient
from tests.server.test_reliability import _units


def _own_address() -> str:
    """A loopback address of the test's own (any 127.x.y.z reaches this machine): the
    restarted server must listen on the port the bot knows, and no other process, however
    many connections the machine makes meanwhile, holds or takes that port there."""
    rng = random.SystemRandom()
    return f"127.{rng.randrange(1, 255)}.{rng.randrange(1, 255)}.{rng.randrange(2, 255)}"


async def _serve(db: Path, host: str, port: int = 0) -> tuple[subprocess.Popen[str], int]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "diplomat.cli.main", "serve", "--host", host, "--port", str(port),
         "--db", str(db), "--max-year", "1901", "--rejoin-grace", "600", "--no-web"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    assert proc.stdout is not None
    line = await trio.to_thread.run_sync(proc.stdout.readline)
    assert "serving DAIDE on" in line, line
    return proc, int(line.split(f"{host}:")[1].split()[0])


async def test_a_tcp_bot_reconnects_after_a_server_restart(tmp_path: Path) -> None:
    db, host = tmp_path / "g.sqlite", _own_address()
    server, port = await _serve(db, host)
    bot = subprocess.Popen(
        [sys.executable, "-m", "diplomat.bots.holdbot", "--host", host, "--port", str(port),
         "--seed", "1"],
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        people = [await WireClient.connect(port, text=True, host=host) for _ in range(6)]
        for i, c in enumerate(people):
            await c.join(f"p{i}")
        hlos = [await c.expect(messages.Hlo) for c in people]
        # Only a bot that has its HLO (its passcode) can take its power back: wait until its
        # first orders are stored, which it sends after the HLO, before killing the server.
        store = Store(db)
        try:
            with trio.fail_after(PATIENCE):
                while not any(
                    s.power not in {h.power for h in hlos} for s in store.submissions(1, "S1901M")
                ):
                    await trio.sleep(0.05)
        finally:
            store.close()
        server.kill()
        server.wait()
        server, _ = await _serve(db, host, port)
        back = []
        for h in hlos:
            c = await WireClient.connect(port, host=host)
            await c.send(messages.Iam(h.power, h.passcode))
            assert await c.expect(messages.Yes) == messages.Yes(messages.Iam(h.power, h.passcode))
            await c.send(f"SUB {' '.join(f'(({h.power} {u}) HLD)' for u in _units(h.power))}")
            back.append(c)
        # The grace is ten minutes: the phase is processed only if the bot is back too.
        assert (await back[0].expect(messages.Now)).turn.name == "F1901M"
        for c, h in zip(back, hlos, strict=True):
            await c.send(f"SUB {' '.join(f'(({h.power} {u}) HLD)' for u in _units(h.power))}")
        await back[0].expect(messages.Smr)
        assert await trio.to_thread.run_sync(bot.wait, PATIENCE) == 0
    finally:
        for proc in (server, bot):
            proc.kill()
            proc.wait()


async def test_a_pipe_bot_exits_when_its_pipe_closes() -> None:
    """The launcher is gone (kill -9 of a tournament): the bot reads end of input and exits
    at once, with status 1 (its game did not end)."""
    bot = subprocess.Popen(
        [sys.executable, "-m", "diplomat.bots.dumbbot", "--stdio"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert bot.stdin is not None and bot.stdout is not None
    line = await trio.to_thread.run_sync(bot.stdout.readline)  # its NME: it is running
    assert line.startswith(b"NME")
    bot.stdin.close()
    assert await trio.to_thread.run_sync(bot.wait, PATIENCE) == 1
