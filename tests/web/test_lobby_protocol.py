"""The server's games list (``GET /api/list``) and a spectator's WebSocket, read as the server
sends them: against a real server on loopback with real subprocess bots. What a spectator is
sent during a game holds no press and no player's name; after the end, the press is there."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from functools import partial
from pathlib import Path
from typing import Any

import pytest
import trio
import trio_websocket

from diplomat.server.app import Server
from diplomat.server.settings import GameSettings
from diplomat.server.store import Store
from diplomat.web.hub import WebHub
from tests.web.test_web_protocol import Page, http, open_page


async def _hub(tmp_path: Path, public: bool) -> AsyncIterator[WebHub]:
    store = Store(tmp_path / "web.sqlite")
    srv = Server(store, GameSettings(map="standard"), port=0, open_games=False, seed=5)
    async with trio.open_nursery() as nursery:
        await nursery.start(srv.run)
        hub = WebHub(srv, grace=0.5, max_bots=64, public=public)
        await nursery.start(hub.run, 0)
        yield hub
        nursery.cancel_scope.cancel()
    store.close()


@pytest.fixture
async def web(tmp_path: Path) -> AsyncIterator[WebHub]:
    async for hub in _hub(tmp_path, public=False):
        yield hub


@pytest.fixture
async def public_web(tmp_path: Path) -> AsyncIterator[WebHub]:
    async for hub in _hub(tmp_path, public=True):
        yield hub


class Watcher:
    """A spectator's WebSocket: every text the server sent it, and the latest view."""

    def __init__(self, ws: trio_websocket.WebSocketConnection) -> None:
        self.ws = ws
        self.texts: list[str] = []
        self.view: dict[str, Any] = {}
        self.other: list[dict[str, Any]] = []

    async def until(self, pred: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        with trio.fail_after(120):
            if self.view and pred(self.view):
                return self.view
            while True:
                text = str(await self.ws.get_message())
                self.texts.append(text)
                msg = json.loads(text)
                if msg["t"] == "view":
                    self.view = msg
                    if pred(msg):
                        return msg
                else:
                    self.other.append(msg)
                    if pred(msg):
                        return msg


async def watch(web: WebHub, game: int) -> tuple[Watcher, Any]:
    cm = trio_websocket.open_websocket("127.0.0.1", web.address[1], "/ws", use_ssl=False)
    ws = await cm.__aenter__()
    await ws.send_message(json.dumps({"t": "watch", "game": game}))
    return Watcher(ws), cm


async def listed(web: WebHub) -> list[dict[str, Any]]:
    status, _, body = await http(web.address[1], "GET", "/api/list")
    assert status == 200
    rows: list[dict[str, Any]] = json.loads(body)
    return rows


async def test_only_listed_games_are_on_the_list_and_may_be_watched(web: WebHub) -> None:
    shown = web.create_game(
        {"power": "FRA", "opponents": ["holdbot"] * 6, "listed": True, "move_time": 600}
    )
    hidden = web.create_game({"power": "FRA", "opponents": ["holdbot"] * 6})
    rows = await listed(web)
    assert [r["id"] for r in rows] == [shown.game_id]
    row = rows[0]
    assert row["map"] == "standard" and row["level"] == 0 and row["press"].startswith("gunboat")
    assert row["deadlines"] == {"move": 600, "retreat": 120, "build": 120}
    assert row["stage"] == "forming" and row["free_seats"] >= 1 and row["watch"] == "/watch/1"
    assert [p["power"] for p in row["powers"]] == ["AUS", "ENG", "FRA", "GER", "ITA", "RUS", "TUR"]
    assert shown.token not in json.dumps(rows)  # no seat's link
    # Once the person is in, it plays: the phase, its deadline, who is ready.
    page, cm = await open_page(web, shown.game_id, shown.token)
    try:
        await page.until(lambda v: v["stage"] == "playing")
        row = (await listed(web))[0]  # (the page plays: its game has started)
        assert row["stage"] == "playing"
        assert row["phase"] == "S1901M" and row["phase_title"] == "Spring 1901 Movement"
        assert 0 < row["deadline"] <= 600 and row["free_seats"] == 0
        states = {p["power"]: p["state"] for p in row["powers"]}
        assert states["FRA"] == "ordering" and "HoldBot" not in json.dumps(row)
    finally:
        await cm.__aexit__(None, None, None)
    # The unlisted game cannot be watched, nor a game that does not exist.
    for game in (hidden.game_id, 99):
        watcher, wcm = await watch(web, game)
        try:
            msg = await watcher.until(lambda v: v.get("t") == "error")
            assert msg["text"] == f"No game {game} is listed here."
        finally:
            await wcm.__aexit__(None, None, None)
    # A malformed request to the create API is refused by name.
    status, _, body = await http(
        web.address[1], "POST", "/api/games", {"opponents": ["holdbot"] * 6, "listed": "yes"}
    )
    assert status == 400 and b"listed" in body


async def test_public_lists_every_game(public_web: WebHub) -> None:
    a = public_web.create_game({"power": "FRA", "opponents": ["holdbot"] * 6})
    b = public_web.create_game({"power": "GER", "opponents": ["holdbot"] * 6, "level": 10})
    runners = [public_web.server.games[a.game_id], public_web.server.games[b.game_id]]
    rows = await listed(public_web)
    assert [r["id"] for r in rows] == [b.game_id, a.game_id]  # newest first
    assert rows[0]["press"] == "level 10"
    # Abandoned before they start (as when nobody comes): off the list, and nobody can watch.
    for runner in runners:
        runner.abandon()
        await runner.done.wait()
    assert await listed(public_web) == []
    watcher, wcm = await watch(public_web, a.game_id)
    try:
        msg = await watcher.until(lambda v: v.get("t") == "error")
        assert msg["text"] == f"No game {a.game_id} is listed here."
    finally:
        await wcm.__aexit__(None, None, None)


def _moved_on(phase: str, v: dict[str, Any]) -> bool:
    return v["phase"] != phase or v["stage"] == "finished"


async def _ready_until_over(page: Page) -> dict[str, Any]:
    """Ready in every phase (units hold, builds waived) until the game is over."""
    while True:
        view = await page.until(
            lambda v: v["stage"] == "finished" or bool(v.get("can_ready") and not v.get("ready"))
        )
        if view["stage"] == "finished":
            return view
        phase = view["phase"]
        await page.send(t="ready", on=True, phase=phase)
        await page.until(partial(_moved_on, phase))


async def test_a_spectator_sees_no_press_until_the_end(web: WebHub) -> None:
    seat = web.create_game(
        {
            "power": "FRA",
            "level": 10,
            "opponents": ["holdbot"] * 6,
            "listed": True,
            "max_year": 1901,
        }
    )
    page, cm = await open_page(web, seat.game_id, seat.token)
    watcher, wcm = await watch(web, seat.game_id)
    try:
        view = await page.until(lambda v: v["stage"] == "playing" and bool(v.get("press")))
        seen = await watcher.until(lambda v: v.get("stage") == "playing" and v["phase"])
        assert seen["spectator"] and seen["power"] is None and seen["svg"].startswith("<svg")
        # Private press: France proposes peace to England, which answers HUH and TRY.
        await page.send(t="press", op="to", power="ENG")
        await page.until(lambda v: bool(v["press"]["kinds"]))
        await page.send(t="press", op="add", kind="pce")
        await page.send(t="press", op="send", how="and")
        await page.until(
            lambda v: any(
                m.get("state") for c in v["press"]["conversations"] for m in c["messages"]
            )
        )
        # A spectator may only look: an order is refused with a notice.
        await watcher.ws.send_message(json.dumps({"t": "click", "loc": "PAR"}))
        await watcher.until(lambda v: v.get("t") == "notice")
        await _ready_until_over(page)
        over = await watcher.until(lambda v: v.get("stage") == "finished" and "press_log" in v)
        # During the game: not one message with press, nor a player's name.
        during = watcher.texts[: watcher.texts.index(json.dumps(over))]
        for text in during:
            assert "PCE" not in text and "peace" not in text and "press" not in text, text
            assert "HoldBot" not in text and "Human" not in text, text
        assert any('"results"' in t and "A PAR H" in t for t in during)  # results as they come
        # After the end: everyone's press, and the players' names.
        daide = [m["daide"] for m in over["press_log"]]
        assert "PRP ( PCE ( ENG FRA ) )" in daide and any(d.startswith("HUH") for d in daide)
        names = {r["power"]: r["name"] for r in over["end"]["table"]}
        assert names["FRA"] == "Human" and names["ENG"] == "HoldBot"
        # The history of a phase now carries its press too.
        await watcher.ws.send_message(json.dumps({"t": "history", "index": 0}))
        hist = await watcher.until(lambda v: v.get("t") == "history")
        assert hist["phase"] == "S1901M" and any(
            m["daide"] == "PRP ( PCE ( ENG FRA ) )" for m in hist["press"]
        )
    finally:
        await wcm.__aexit__(None, None, None)
        await cm.__aexit__(None, None, None)
    # A finished game is still on the list, and a spectator who comes later sees it all.
    row = (await listed(web))[0]
    assert row["stage"] == "finished" and row["result"]["kind"] == "draw"
    late, lcm = await watch(web, seat.game_id)
    try:
        view = await late.until(lambda v: v.get("stage") == "finished")
        assert view["end"]["table"] and view["press_log"]
    finally:
        await lcm.__aexit__(None, None, None)
