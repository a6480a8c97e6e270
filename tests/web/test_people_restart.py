"""kill -9 the server during a game with two people, start it again on the same database:
each link opens its own seat again, the bots come back (the game is supervised from its
creator's seat alone), and the game goes on when both people say Ready."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import trio
import trio_websocket

from .conftest import start_server, stop_server, web_port, your_game
from .test_web_protocol import Page, given

PEOPLE = {"ITA": "A VEN - TYR", "AUS": "A VIE - GAL"}


def _given(order: str) -> Callable[[dict[str, Any]], bool]:
    return lambda v: given(v) == [order]


async def _pages(
    stack: AsyncExitStack, port: int, links: dict[str, tuple[int, str]]
) -> dict[str, Page]:
    pages = {}
    for power, (game, token) in links.items():
        ws = await stack.enter_async_context(
            trio_websocket.open_websocket("127.0.0.1", port, "/ws", use_ssl=False)
        )
        pages[power] = Page(ws)
        await pages[power].send(t="hello", game=game, token=token)
    return pages


async def test_two_people_come_back_after_a_kill(tmp_path: Path) -> None:
    db = tmp_path / "people.sqlite"
    args = ("--play", "ITA", "--play", "AUS", "--against", "holdbot:5", "--mtl", "900",
            "--rejoin-grace", "300")  # fmt: skip
    server = await trio.to_thread.run_sync(lambda: start_server(db, *args))
    links = {p: your_game(server, p) for p in PEOPLE}
    assert links["ITA"][0] == links["AUS"][0] and links["ITA"][1] != links["AUS"][1]
    try:
        async with AsyncExitStack() as stack:
            pages = await _pages(stack, web_port(server), links)
            for power, order in PEOPLE.items():
                await pages[power].until(lambda v: v["stage"] == "playing" and "orders" in v)
                await pages[power].send(t="order", text=order)
                await pages[power].until(_given(order))
    finally:
        server.proc.kill()  # SIGKILL: nothing more is saved
        server.proc.wait()
    again = await trio.to_thread.run_sync(lambda: start_server(db, "--rejoin-grace", "300"))
    try:
        async with AsyncExitStack() as stack:
            pages = await _pages(stack, web_port(again), links)
            for power, order in PEOPLE.items():
                view = await pages[power].until(lambda v: v["stage"] == "playing" and "orders" in v)
                assert view["power"] == power and view["phase"] == "S1901M"
                await pages[power].until(_given(order))
            # The bots took their powers back, and the game waits for both people.
            ita = pages["ITA"]
            await ita.until(
                lambda v: all(
                    p["state"] == "ready" for p in v["powers"] if p["power"] not in PEOPLE
                )
            )
            await ita.send(t="ready", on=True)
            await pages["AUS"].send(t="ready", on=True)
            view = await ita.until(lambda v: v["phase"] == "F1901M")
            lines = {(r["power"], r["text"]) for r in view["results"][0]["lines"]}
            assert ("ITA", PEOPLE["ITA"]) in lines and ("AUS", PEOPLE["AUS"]) in lines
    finally:
        stop_server(again)
