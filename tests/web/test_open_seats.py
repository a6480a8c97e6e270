"""A web game's open seat is a seat like any: `serve` prints where a bot connects to take it,
and a bundled bot that plays it sees the end of the game (SMR, OFF) and exits cleanly, as it
does in a plain game, instead of losing its connection and trying to reconnect."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import trio
import trio_websocket

from .conftest import LiveServer, start_server, stop_server, web_port, your_game
from .test_web_protocol import Page
from .test_web_shutdown import all_in


def _open_port(server: LiveServer, game: int) -> int:
    printed = [x for x in server.lines if f"game {game}: " in x and "open seat" in x]
    assert len(printed) == 1, server.lines
    found = re.search(r"for bots connecting to 127.0.0.1:(\d+)", printed[0])
    assert found is not None, printed
    return int(found.group(1))


def _open_seat_bot(port: int) -> subprocess.Popen[str]:
    """A bundled bot taking an open seat, as its owner would start it (logging what it does)."""
    argv = [sys.executable, "-m", "diplomat.bots.holdbot", "--port", str(port), "-v"]
    return subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


@asynccontextmanager
async def _page(server: LiveServer, game: int, token: str) -> AsyncIterator[Page]:
    """The person's page, open on their seat."""
    async with trio_websocket.open_websocket(
        "127.0.0.1", web_port(server), "/ws", use_ssl=False
    ) as ws:
        page = Page(ws)
        await page.send(t="hello", game=game, token=token)
        yield page


async def test_a_bot_in_an_open_seat_sees_the_end_and_exits(tmp_path: Path) -> None:
    # A one-year game whose phases end at short deadlines: nobody needs to click anything.
    args = ["--play", "FRA", "--against", "open,holdbot:5", "--max-year", "1901"]
    args += ["--mtl", "2", "--rtl", "2", "--btl", "2"]
    server = await trio.to_thread.run_sync(lambda: start_server(tmp_path / "db.sqlite", *args))
    bot: subprocess.Popen[str] | None = None
    try:
        game, token = your_game(server, "FRA")
        assert any(f"game {game}: 1 open seat, for bots" in x for x in server.lines)
        async with _page(server, game, token) as page:
            bot = _open_seat_bot(_open_port(server, game))
            await page.until(lambda v: v.get("stage") == "finished", timeout=300)
            # The bot's own account, once it has exited by itself (a generous outer limit).
            with trio.fail_after(300):
                _, log = await trio.to_thread.run_sync(bot.communicate)
        assert bot.returncode == 0, log
        assert "game over" in log and "OFF: leaving" in log, log
        assert "connection closed before the game ended" not in log, log
    finally:
        if bot is not None and bot.poll() is None:
            bot.kill()
            bot.wait()
        stop_server(server)


async def test_after_a_crash_the_open_seats_bot_comes_back_to_the_same_port(
    tmp_path: Path,
) -> None:
    """kill -9 mid-phase: the bot in the open seat keeps trying its game's port; the restarted
    server listens there again (and prints it), the bot takes its power back with IAM, and the
    game plays on."""
    db = tmp_path / "db.sqlite"
    args = ["--play", "FRA", "--against", "open,holdbot:5", "--mtl", "900"]
    args += ["--rejoin-grace", "300"]
    server = await trio.to_thread.run_sync(lambda: start_server(db, *args))
    bot: subprocess.Popen[str] | None = None
    again: LiveServer | None = None
    try:
        game, token = your_game(server, "FRA")
        port = _open_port(server, game)
        async with _page(server, game, token) as page:
            bot = _open_seat_bot(port)
            await page.until(all_in)
            server.proc.kill()  # SIGKILL: the bot's connection is simply lost
            server.proc.wait()
        again = await trio.to_thread.run_sync(lambda: start_server(db, "--rejoin-grace", "300"))
        assert _open_port(again, game) == port
        async with _page(again, game, token) as page:
            # Every power is back: the person, the HoldBots the server started again, and the
            # bot in the open seat, which came back by itself (and all ready but the person).
            await page.until(all_in)
            await page.send(t="ready", on=True)
            await page.until(lambda v: v["phase"] == "F1901M")
        stop_server(again)  # SIGTERM: OFF to the bot, which leaves
        with trio.fail_after(300):
            _, log = await trio.to_thread.run_sync(bot.communicate)
        assert bot.returncode == 0, log
        assert "rejoined as" in log and "OFF: leaving" in log, log
    finally:
        if bot is not None and bot.poll() is None:
            bot.kill()
            bot.wait()
        for s in (server, again):
            if s is not None and s.proc.poll() is None:
                stop_server(s)
