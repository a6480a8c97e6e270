"""A web game's open seat is a seat like any: `serve` prints where a bot connects to take it,
and a bundled bot that plays it sees the end of the game (SMR, OFF) and exits cleanly, as it
does in a plain game, instead of losing its connection and trying to reconnect."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import trio
import trio_websocket

from .conftest import start_server, stop_server, web_port, your_game
from .test_web_protocol import Page


async def test_a_bot_in_an_open_seat_sees_the_end_and_exits(tmp_path: Path) -> None:
    # A one-year game whose phases end at short deadlines: nobody needs to click anything.
    args = ["--play", "FRA", "--against", "open,holdbot:5", "--max-year", "1901"]
    args += ["--mtl", "2", "--rtl", "2", "--btl", "2"]
    server = await trio.to_thread.run_sync(lambda: start_server(tmp_path / "db.sqlite", *args))
    bot: subprocess.Popen[str] | None = None
    try:
        printed = [x for x in server.lines if "open seat" in x]
        assert len(printed) == 1, server.lines
        found = re.search(
            r"game (\d+): 1 open seat, for bots connecting to 127.0.0.1:(\d+)", printed[0]
        )
        assert found is not None, printed
        port = int(found.group(2))
        game, token = your_game(server, "FRA")
        assert game == int(found.group(1))
        async with trio_websocket.open_websocket(
            "127.0.0.1", web_port(server), "/ws", use_ssl=False
        ) as ws:
            page = Page(ws)
            await page.send(t="hello", game=game, token=token)
            argv = [sys.executable, "-m", "bots.holdbot", "--port", str(port), "-v"]
            bot = subprocess.Popen(
                argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
            )
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
