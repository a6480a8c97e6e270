"""kill -9 the server during a web game, start it again on the same database: the same link
opens the same seat, the orders given are still there, the bots come back (IAM), and the game
goes on."""

from __future__ import annotations

from pathlib import Path

import trio
import trio_websocket

from .conftest import start_server, stop_server, web_port, your_game
from .test_web_protocol import Page, given


async def test_kill_and_come_back(tmp_path: Path) -> None:
    db = tmp_path / "web.sqlite"
    # Deadlines and grace far longer than anything takes: the test waits for events.
    args = ("--play", "ITA", "--against", "holdbot:6", "--mtl", "900", "--rejoin-grace", "300")
    server = await trio.to_thread.run_sync(lambda: start_server(db, *args))
    try:
        game, token = your_game(server, "ITA")
        async with trio_websocket.open_websocket(
            "127.0.0.1", web_port(server), "/ws", use_ssl=False
        ) as ws:
            page = Page(ws)
            await page.send(t="hello", game=game, token=token)
            await page.until(lambda v: v["stage"] == "playing" and "orders" in v)
            await page.send(t="order", text="A VEN - TYR")
            await page.until(lambda v: given(v) == ["A VEN - TYR"])
    finally:
        server.proc.kill()  # SIGKILL: nothing more is saved
        server.proc.wait()
    again = await trio.to_thread.run_sync(lambda: start_server(db, "--rejoin-grace", "300"))
    try:
        async with trio_websocket.open_websocket(
            "127.0.0.1", web_port(again), "/ws", use_ssl=False
        ) as ws:
            page = Page(ws)
            await page.send(t="hello", game=game, token=token)
            view = await page.until(lambda v: v["stage"] == "playing" and "orders" in v)
            assert view["power"] == "ITA" and view["phase"] == "S1901M"
            await page.until(lambda v: given(v) == ["A VEN - TYR"])
            # The bots were started again and took their powers back.
            await page.until(
                lambda v: all(p["state"] == "ready" for p in v["powers"] if p["power"] != "ITA")
            )
            await page.send(t="ready", on=True)
            view = await page.until(lambda v: v["phase"] == "F1901M")
            lines = {(r["power"], r["text"]) for r in view["results"][0]["lines"]}
            assert ("ITA", "A VEN - TYR") in lines
    finally:
        stop_server(again)
