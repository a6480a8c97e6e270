"""Stop `diplomat serve` with SIGTERM, or Ctrl-C, while a person plays from the page against
DumbBots that have all ordered: the stop plays nothing (the person's units do not hold by
default), and after the restart the page is back in the same phase with the person's orders,
the time the deadline had left, and no word of the person having been away."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import trio
import trio_websocket

from .conftest import LiveServer, start_server, stop_server, web_port, your_game
from .test_web_protocol import Page, given

ORDER = "A PAR - BUR"


def _read(db: Path, sql: str) -> list[tuple[Any, ...]]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        return conn.execute(sql).fetchall()


def all_in(view: dict[str, Any]) -> bool:
    """The person is in and may act (the view has its orders), and every other power is in
    and ready."""
    states = {p["power"]: p["state"] for p in view.get("powers", [])}
    mine = states.pop("FRA", "disorder")
    return (
        "orders" in view
        and mine != "disorder"
        and bool(states)
        and all(state == "ready" for state in states.values())
    )


async def _playing(server: LiveServer, game: int, token: str, nursery: trio.Nursery) -> Page:
    ws = await trio_websocket.connect_websocket(
        nursery, "127.0.0.1", web_port(server), "/ws", use_ssl=False
    )
    page = Page(ws)
    await page.send(t="hello", game=game, token=token)
    await page.until(lambda v: v.get("stage") == "playing" and "orders" in v)
    return page


def _ctrl_c(proc: subprocess.Popen[str]) -> None:
    """What Ctrl-C in its terminal does: SIGINT to the server's whole process group (the
    bots it started included)."""
    os.killpg(os.getpgid(proc.pid), signal.SIGINT)


def _sigterm(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGTERM)


@pytest.mark.parametrize("stop", [_sigterm, _ctrl_c])
async def test_a_stop_plays_nothing_and_the_page_comes_back_to_the_same_phase(
    tmp_path: Path, stop: Callable[[subprocess.Popen[str]], None]
) -> None:
    db = tmp_path / "web.sqlite"
    args = ("--play", "FRA", "--against", "dumbbot:6", "--mtl", "900", "--rejoin-grace", "300")
    server = await trio.to_thread.run_sync(lambda: start_server(db, *args, session=True))
    try:
        game, token = your_game(server, "FRA")
        async with trio.open_nursery() as nursery:
            page = await _playing(server, game, token, nursery)
            await page.send(t="order", text=ORDER)
            await page.until(lambda v: given(v) == [ORDER])
            # The bots have all ordered and are ready: only the person holds the phase.
            view = await page.until(all_in)
            left = view["deadline"]
            stop(server.proc)
            assert await trio.to_thread.run_sync(server.proc.wait) == 0
            nursery.cancel_scope.cancel()
    finally:
        if server.proc.poll() is None:
            server.proc.kill()
            server.proc.wait()

    assert [p for (p,) in _read(db, "SELECT phase FROM phases")] == ["S1901M"]
    assert {s for (s,) in _read(db, "SELECT status FROM players")} == {"playing"}
    ((remaining,),) = _read(db, "SELECT remaining FROM clocks")
    assert 0 < remaining <= left

    again = await trio.to_thread.run_sync(lambda: start_server(db, "--rejoin-grace", "300"))
    try:
        async with trio.open_nursery() as nursery:
            page = await _playing(again, game, token, nursery)
            view = await page.until(lambda v: given(v) == [ORDER])
            assert view["phase"] == "S1901M" and not view.get("results")
            assert 0 < view["deadline"] <= remaining
            await page.until(all_in)  # started again, the bots took their powers back
            await page.send(t="ready", on=True)
            view = await page.until(lambda v: v["phase"] == "F1901M")
            played = view["results"][0]
            assert ("FRA", ORDER) in {(r["power"], r["text"]) for r in played["lines"]}
            assert played["away"] is False  # the person gave those orders before the stop
            nursery.cancel_scope.cancel()
    finally:
        stop_server(again)
