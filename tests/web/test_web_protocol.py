"""The page's side of the server without a browser: HTTP, the JSON API, and the WebSocket
protocol of a seat (hello, click, choose, order, ready, history, start), against a real server
on loopback with real subprocess bots."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from functools import partial
from pathlib import Path
from typing import Any

import pytest
import trio
import trio_websocket

from diplomat.engine.map import bundled_maps, load_map
from diplomat.protocol import messages
from diplomat.server.app import Server
from diplomat.server.settings import GameSettings
from diplomat.server.store import Store
from diplomat.web.hub import WebHub
from tests.server.daide_client import WireClient
from tests.server.masters import master_of


@pytest.fixture
async def web(tmp_path: Path) -> AsyncIterator[WebHub]:
    store = Store(tmp_path / "web.sqlite")
    srv = Server(store, GameSettings(map="standard"), port=0, open_games=False, seed=3)
    # The server and the hub stop before the store closes: a bot's last message may still
    # be on its way when a test ends.
    async with trio.open_nursery() as nursery:
        await nursery.start(srv.run)
        # Several tests open one game after another, and a game a page has left holds its
        # bots until it ends: the cap on bot processes (six a core) is tested on its own.
        hub = WebHub(srv, grace=0.5, max_bots=64)
        await nursery.start(hub.run, 0)
        yield hub
        nursery.cancel_scope.cancel()
    store.close()


async def http(
    port: int, method: str, path: str, body: Any = None
) -> tuple[int, dict[str, str], bytes]:
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    data = json.dumps(body).encode() if body is not None else b""
    await stream.send_all(
        f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n".encode()
        + data
    )
    raw = b""
    while chunk := await stream.receive_some(65536):
        raw += chunk
    head, _, payload = raw.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    headers = dict(line.lower().split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), headers, payload


class Page:
    """A page's WebSocket: sends requests, waits for views."""

    def __init__(self, ws: trio_websocket.WebSocketConnection) -> None:
        self.ws = ws
        self.view: dict[str, Any] = {}
        self.svg = ""
        self.notices: list[dict[str, Any]] = []
        self.other: list[dict[str, Any]] = []

    async def send(self, **msg: Any) -> None:
        await self.ws.send_message(json.dumps(msg))

    async def until(
        self, pred: Callable[[dict[str, Any]], bool], timeout: float = 120
    ) -> dict[str, Any]:
        with trio.fail_after(timeout):
            if self.view and pred(self.view):
                return self.view
            while True:
                msg = json.loads(await self.ws.get_message())
                if msg["t"] == "view":
                    if msg["svg"] is not None:
                        self.svg = msg["svg"]
                    self.view = msg
                    if pred(msg):
                        return msg
                elif msg["t"] == "notice":
                    self.notices.append(msg)
                    if pred(self.view):
                        return self.view
                else:
                    self.other.append(msg)
                    if pred(msg):
                        return msg


async def open_page(web: WebHub, game: int, token: str) -> tuple[Page, Any]:
    port = web.address[1]
    cm = trio_websocket.open_websocket("127.0.0.1", port, "/ws", use_ssl=False)
    ws = await cm.__aenter__()
    page = Page(ws)
    await page.send(t="hello", game=game, token=token)
    return page, cm


def given(view: dict[str, Any]) -> list[str]:
    return sorted(o["order"] for o in view.get("orders", []) if o["order"])


async def test_static_files_and_api(web: WebHub) -> None:
    port = web.address[1]
    status, headers, body = await http(port, "GET", "/")
    assert status == 200 and b"/static/app.js" in body
    assert "default-src 'self'" in headers["content-security-policy"]
    assert (await http(port, "GET", "/game/12"))[0] == 200  # the same page
    status, headers, _ = await http(port, "GET", "/static/app.js")
    assert status == 200 and headers["content-type"].startswith("text/javascript")
    assert (await http(port, "GET", "/static/../hub.py"))[0] == 404
    assert (await http(port, "GET", "/nothing"))[0] == 404
    assert (await http(port, "DELETE", "/api/games"))[0] == 405
    status, _, body = await http(port, "GET", "/api/options")
    options = json.loads(body)
    assert len(options["powers"]) == 7 and "dumbbot" in options["bots"]
    for bad in (
        {"power": "XYZ"},
        {"opponents": ["dumbbot"] * 5},
        {"opponents": ["nobot"] * 6},
        {"move_time": 0.5},
        {"move_time": 9000},
        {"max_year": 1800},
        {"level": 15},  # the page offers 0, 10, 20, 30 and 8000
        {"level": "x"},
        {"opponents": ["bordeaux --think 99"] * 6},  # no option but --negotiate
        {"opponents": ["holdbot --negotiate"] * 6},  # holdbot does not talk
    ):
        status, _, body = await http(port, "POST", "/api/games", bad)
        assert status == 400 and json.loads(body)["error"], bad
    assert (await http(port, "POST", "/api/games", []))[0] == 400
    assert options["levels"] == [0, 10, 20, 30, 8000] and options["defaults"]["level"] == 0
    assert {"bordeaux --negotiate", "dumbbot --negotiate"} <= set(options["bots"])


async def test_wrong_token_opens_nothing(web: WebHub) -> None:
    seat = web.create_game({"power": "ENG", "opponents": ["holdbot"] * 6})
    page, cm = await open_page(web, seat.game_id, "not-the-token")
    msg = await page.until(lambda v: v.get("t") == "error")
    assert "no seat" in msg["text"]
    await cm.__aexit__(None, None, None)


async def test_a_game_by_clicks_typed_orders_and_ready(web: WebHub) -> None:
    seat = web.create_game(
        {"power": "FRA", "opponents": ["holdbot"] * 6, "max_year": 1901, "move_time": 60}
    )
    page, cm = await open_page(web, seat.game_id, seat.token)
    try:
        view = await page.until(lambda v: v["stage"] == "playing" and "orders" in v)
        assert view["power"] == "FRA" and view["phase"] == "S1901M"
        assert 50 < view["deadline"] <= 60
        assert page.svg.startswith("<svg") and 'data-phase="S1901M"' in page.svg
        # Nobody's name, bot or person, is in the view before the end.
        assert "HoldBot" not in json.dumps(view) and "holdbot" not in json.dumps(view)
        # The others' progress is shown (not who they are).
        await page.until(
            lambda v: all(p["state"] == "ready" for p in v["powers"] if p["power"] != "FRA")
        )
        await page.send(t="click", loc="PAR")
        view = await page.until(lambda v: "Move the army in PAR" in v.get("prompt", ""))
        assert 'id="unit-PAR"' in page.svg and "selected" in page.svg
        assert [i["id"] for i in view["menu"]] == ["hold", "move", "support", "cancel"]
        await page.send(t="click", loc="BUR")
        await page.until(lambda v: given(v) == ["A PAR - BUR"])
        assert 'id="pending-PAR"' in page.svg
        await page.send(t="order", text="(FRA FLT BRE) MTO MAO")  # DAIDE's form
        await page.until(lambda v: len(given(v)) == 2)
        await page.send(t="order", text="A MAR - MUN")  # not adjacent: the game says FAR
        await page.until(lambda v: bool(page.notices))
        assert "A MAR - MUN" in page.notices[-1]["text"] and page.notices[-1]["level"] == "error"
        await page.send(t="order", text="A MAR jumps")
        await page.until(lambda v: len(page.notices) == 2)
        assert "Cannot read" in page.notices[-1]["text"]
        await page.send(t="clear", loc="PAR")
        await page.until(lambda v: given(v) == ["F BRE - MAO"])
        assert view["todo"] == "3 units without orders will hold."
        # Ready: the units still without orders hold, and the phase is processed.
        await page.send(t="ready", on=True)
        view = await page.until(lambda v: v["phase"] == "F1901M" and "orders" in v)
        assert view["results"][0]["phase"] == "S1901M"
        lines = {(r["power"], r["text"]) for r in view["results"][0]["lines"]}
        assert ("FRA", "F BRE - MAO") in lines and ("FRA", "A PAR H") in lines
        assert view["ready"] is False  # a new phase: not ready until one says so
        # A Ready sent for the phase just over (clicked as the game moved on) is refused:
        # the new phase is not ended unordered.
        page.notices.clear()
        await page.send(t="ready", on=True, phase="S1901M")
        await page.until(lambda v: bool(page.notices))
        assert "now in F1901M" in page.notices[-1]["text"]
        assert page.notices[-1]["level"] == "error"
        await page.send(t="ready", on=True, phase=5)  # not a phase name: refused as such
        await page.until(lambda v: len(page.notices) == 2)
        assert "names its phase as text" in page.notices[-1]["text"]
        # (Fall is still to be ordered: the orders below are given in it, then Ready ends it.)
        # The history: the first phase with its orders.
        await page.send(t="history", index=0)
        hist = await page.until(lambda v: v.get("t") == "history")
        assert hist["phase"] == "S1901M" and hist["count"] == 2
        assert 'id="order-BRE"' in hist["svg"] and ("FRA", "F BRE - MAO") in {
            (r["power"], r["text"]) for r in hist["lines"]
        }
        # Fall, then Winter (France may build), then the year limit ends the game.
        await page.send(t="click", loc="MAO")
        await page.send(t="click", loc="POR")
        await page.until(lambda v: given(v) == ["F MAO - POR"])
        await page.send(t="ready", on=True)
        view = await page.until(lambda v: v["phase"] == "W1901A" and "orders" in v)
        assert "build" in view["prompt"]
        await page.send(t="click", loc="BRE")  # PAR and MAR are occupied
        await page.until(lambda v: any(i["id"].startswith("build:") for i in v.get("menu", [])))
        await page.send(t="choose", id="build:1")
        await page.until(lambda v: given(v) == ["F BRE B"])
        await page.send(t="ready", on=True)
        view = await page.until(lambda v: v["stage"] == "finished" and "end" in v)
        end = view["end"]
        assert end["kind"] == "draw" and "year limit" in end["text"]
        names = {r["power"]: r["name"] for r in end["table"]}
        assert names["FRA"] == "Human" and set(names.values()) == {"Human", "HoldBot"}
    finally:
        await cm.__aexit__(None, None, None)


async def order_and_leave(web: WebHub, spec: dict[str, Any]) -> tuple[Any, Any]:
    """A Turkish seat whose page orders A CON - BUL and closes: the seat and its game."""
    seat = web.create_game(spec)
    page, cm = await open_page(web, seat.game_id, seat.token)
    await page.until(lambda v: v["stage"] == "playing" and "orders" in v)
    await page.send(t="order", text="A CON - BUL")
    await page.until(lambda v: given(v) == ["A CON - BUL"])
    await cm.__aexit__(None, None, None)
    return seat, master_of(web.server.games[seat.game_id])


async def test_leaving_means_civil_disorder_and_the_link_brings_you_back(
    web: WebHub,
) -> None:
    seat, master = await order_and_leave(web, {"power": "TUR", "opponents": ["holdbot"] * 6})
    with trio.fail_after(120):
        while master.seats["TUR"].client is not None:
            await trio.sleep(0.05)
    # In civil disorder the power is not waited for: the bots played on, and the order
    # given before leaving stood.
    with trio.fail_after(120):
        while not master.history:
            await trio.sleep(0.05)
    first = {str(o.order) for o in master.history.phases[0].ords}
    assert "A CON - BUL" in first
    page, cm = await open_page(web, seat.game_id, seat.token)
    view = await page.until(lambda v: v["stage"] == "playing" and "orders" in v)
    assert view["power"] == "TUR" and master.seats["TUR"].client is not None
    assert view["phase"] == master.state.phase.name
    # A reload within the grace period does not leave the game at all (a grace long enough
    # that a busy machine reloads within it).
    web.grace = 600.0
    client = master.seats["TUR"].client
    await cm.__aexit__(None, None, None)
    page, cm = await open_page(web, seat.game_id, seat.token)
    await page.until(lambda v: v["stage"] == "playing" and "orders" in v)
    assert master.seats["TUR"].client == client
    await cm.__aexit__(None, None, None)


async def test_open_seats_wait_for_tcp_bots_or_start_now(web: WebHub) -> None:
    seat = web.create_game({"power": "GER", "opponents": ["holdbot"] * 4 + ["open", "open"]})
    page, cm = await open_page(web, seat.game_id, seat.token)
    view = await page.until(lambda v: v["stage"] == "forming" and v["forming"]["port"])
    forming = view["forming"]
    assert forming["open"] == 2 and forming["bots"] == 4
    bot = await WireClient.connect(forming["port"])
    await bot.join("tcp-bot")
    await page.until(lambda v: v["stage"] == "forming" and v["forming"]["joined"] == 6)
    await page.send(t="start")
    view = await page.until(lambda v: v["stage"] == "playing" and "orders" in v)
    states = {p["state"] for p in view["powers"]}
    assert "disorder" in states  # the seat nobody took
    hlo = await bot.expect(messages.Hlo)
    assert hlo.power in seat.lineup and seat.lineup[hlo.power] == "open"
    await bot.aclose()
    await cm.__aexit__(None, None, None)


async def test_a_retreat_by_clicks(web: WebHub) -> None:
    from diplomat.engine.orderset import OrderSet
    from diplomat.engine.state import Dislodged, Phase, Unit, make_state

    seat = web.create_game({"power": "FRA", "opponents": ["holdbot"] * 6})
    master = master_of(web.server.games[seat.game_id])
    start = master.state
    # The game has not started: begin it at a retreat phase where France must retreat.
    units = [u for u in start.units.values() if u.province != "BUR"]
    units = [u for u in units if u.province != "MUN"] + [Unit("GER", "A", "BUR")]
    retreat = make_state(
        master.map,
        Phase.parse("S1901R"),
        units,
        dict(start.centres),
        [Dislodged(Unit("FRA", "A", "BUR"), "MUN", ("BEL", "PIC", "RUH"))],
    )
    master.state = retreat
    master.book = OrderSet(retreat)
    page, cm = await open_page(web, seat.game_id, seat.token)
    try:
        view = await page.until(lambda v: v["stage"] == "playing" and "orders" in v)
        assert view["phase"] == "S1901R" and 'id="dislodged-BUR"' in page.svg
        assert view["orders"] == [
            {"loc": "BUR", "unit": "A BUR", "order": None, "names": "BUR: Burgundy"}
        ]
        await page.send(t="click", loc="BUR")
        view = await page.until(lambda v: "Retreat the army in BUR" in v.get("prompt", ""))
        assert view["menu"][0]["id"] == "disband"
        await page.send(t="click", loc="PIC")
        await page.until(lambda v: given(v) == ["A BUR R PIC"])
        await page.send(t="ready", on=True)
        view = await page.until(lambda v: v["phase"] == "F1901M")
        lines = view["results"][0]["lines"]
        assert ("FRA", "A BUR R PIC") in {(r["power"], r["text"]) for r in lines}
    finally:
        await cm.__aexit__(None, None, None)


async def test_results_since_your_last_orders_newest_first(web: WebHub) -> None:
    """A retreat that does not involve you resolves at once; the movement results you
    waited for stay listed under it, and phases are named as players name them."""
    from diplomat.engine.orderset import OrderSet
    from diplomat.engine.state import Phase, Unit, make_state

    seat = web.create_game({"power": "FRA", "opponents": ["holdbot"] * 6})
    master = master_of(web.server.games[seat.game_id])
    start = master.state
    units = [u for u in start.units.values() if u.province != "MUN"] + [Unit("GER", "A", "BUR")]
    master.state = make_state(master.map, Phase.parse("S1901M"), units, dict(start.centres))
    master.book = OrderSet(master.state)
    page, cm = await open_page(web, seat.game_id, seat.token)
    try:
        await page.until(lambda v: v["stage"] == "playing" and "orders" in v)
        await page.send(t="order", text="A PAR - BUR; A MAR S A PAR - BUR")
        await page.until(lambda v: given(v) == ["A MAR S A PAR - BUR", "A PAR - BUR"])
        await page.send(t="ready", on=True)
        # The holdbot's retreat (a disband) needs nothing from France: on to the Fall.
        view = await page.until(lambda v: v["phase"] == "F1901M" and "orders" in v)
        groups = view["results"]
        assert [g["phase"] for g in groups] == ["S1901R", "S1901M"]
        assert [g["title"] for g in groups] == ["Spring 1901 Retreats", "Spring 1901 Movement"]
        assert view["phase_title"] == "Fall 1901 Movement"
        assert ("GER", "A BUR D") in {(r["power"], r["text"]) for r in groups[0]["lines"]}
        moves = {r["text"]: r for r in groups[1]["lines"]}
        assert moves["A PAR - BUR"]["outcome"] == "" and moves["A PAR - BUR"]["power"] == "FRA"
        assert moves["A PAR - BUR"]["names"] == "PAR: Paris, BUR: Burgundy"
        assert not any(g["away"] for g in groups)
        # Lines come grouped by power in the map's order.
        ranks = [master.map.powers.index(r["power"]) for r in groups[1]["lines"]]
        assert ranks == sorted(ranks)
        # A new order in the Fall: the next results start again from it.
        await page.send(t="ready", on=True)
        view = await page.until(lambda v: v["phase"] == "W1901A")
        assert [g["phase"] for g in view["results"]] == ["F1901M"]
    finally:
        await cm.__aexit__(None, None, None)


async def test_coming_back_the_page_says_what_happened_while_away(web: WebHub) -> None:
    # Turkey leaves after ordering in the spring: in civil disorder it is not waited for, so
    # the bots play on at once; the game ends after 1902, six phases, fewer than the page
    # keeps, so whenever Turkey comes back every phase since its orders is there.
    deadlines = {"move_time": 1, "retreat_time": 1, "build_time": 1}
    spec = {"power": "TUR", "opponents": ["holdbot"] * 6, "max_year": 1902, **deadlines}
    seat, _ = await order_and_leave(web, spec)
    page, cm = await open_page(web, seat.game_id, seat.token)
    try:
        view = await page.until(
            lambda v: any(g["phase"] == "F1901M" for g in v.get("results") or [])
        )
        groups = {g["phase"]: g for g in view["results"]}
        assert not groups["S1901M"]["away"]
        assert ("TUR", "A CON - BUL") in {
            (r["power"], r["text"]) for r in groups["S1901M"]["lines"]
        }
        assert groups["F1901M"]["away"]
        assert [g["phase"] for g in view["results"]][-2:] == ["F1901M", "S1901M"]  # newest first
    finally:
        await cm.__aexit__(None, None, None)


def _noticed(page: Page, view: dict[str, Any]) -> bool:
    return bool(page.notices)


def _press(v: dict[str, Any]) -> dict[str, Any]:
    press: dict[str, Any] = v.get("press") or {}
    return press


async def test_press_offers_only_what_the_games_level_allows(web: WebHub) -> None:
    # Level 10: peace, alliances, draws; one arrangement a message. A silent bot does not
    # understand, and the page says so.
    seat = web.create_game({"power": "FRA", "level": 10, "opponents": ["holdbot"] * 6})
    page, cm = await open_page(web, seat.game_id, seat.token)
    try:
        view = await page.until(lambda v: v["stage"] == "playing" and bool(_press(v).get("open")))
        assert _press(view)["level"] == 10 and _press(view)["kinds"] == []  # no recipient yet
        await page.send(t="press", op="to", power="ENG")
        view = await page.until(lambda v: bool(_press(v)["kinds"]))
        assert [k["id"] for k in _press(view)["kinds"]] == ["pce", "aly", "drw"]
        await page.send(t="press", op="add", kind="dmz")  # level 20: refused
        await page.until(lambda v: bool(page.notices))
        assert "press level" in page.notices[-1]["text"]
        await page.send(t="press", op="add", kind="pce")
        view = await page.until(lambda v: len(_press(v)["parts"]) == 1)
        assert _press(view)["kinds"] == [] and not _press(view)["combine"]  # one part at 10
        assert _press(view)["preview"] == "I propose peace between England and France"
        await page.send(t="press", op="send", how="orr")  # one part: a plain PRP
        view = await page.until(
            lambda v: any(
                item.get("state") == "not understood"
                for c in _press(v)["conversations"]
                for item in c["messages"]
            )
        )
        eng = next(c for c in _press(view)["conversations"] if c["key"] == "ENG")
        assert eng["messages"][0]["daide"] == "PRP ( PCE ( ENG FRA ) )"
        assert not eng["messages"][0]["protocol"]
        # The HUH is the machine handshake: flagged, so the page shows it only on request (the
        # proposal's state says it), and a sentence when shown.
        huh = eng["messages"][1]
        assert huh["protocol"] and huh["daide"].startswith("HUH ( ERR PRP")
        assert huh["text"] == (
            "I did not understand your proposal of peace between England and France"
        )
        # Answering a proposal that does not exist, or sending to oneself, is refused here.
        await page.send(t="press", op="reply", seq=99, answer="yes")
        await page.until(lambda v: "no longer waiting" in page.notices[-1]["text"])
        assert "FRA" not in [p["power"] for p in _press(view)["powers"]]
    finally:
        await cm.__aexit__(None, None, None)
    # Level 20 adds zones and orders; 30 combines them.
    for level, combine in ((20, False), (30, True)):
        seat = web.create_game({"power": "FRA", "level": level, "opponents": ["holdbot"] * 6})
        page, cm = await open_page(web, seat.game_id, seat.token)
        try:
            await page.until(lambda v: v["stage"] == "playing" and bool(_press(v).get("open")))
            await page.send(t="press", op="to", power="GER")
            view = await page.until(lambda v: bool(_press(v)["kinds"]))
            kinds = [k["id"] for k in _press(view)["kinds"]]
            assert kinds == ["pce", "aly", "drw", "dmz", "xdo"]
            await page.send(t="press", op="add", kind="xdo")
            await page.until(lambda v: "click a unit" in v.get("prompt", ""))
            await page.send(t="click", loc="KIE")  # Germany's fleet
            await page.until(lambda v: "Proposing: Move the fleet in KIE" in v.get("prompt", ""))
            await page.send(t="click", loc="HOL")
            view = await page.until(lambda v: len(_press(v)["parts"]) == 1)
            assert _press(view)["parts"][0]["text"] == "Germany ordering F KIE - HOL"
            assert 'id="pending-KIE"' in page.svg  # drawn as a proposed order
            await page.send(t="press", op="add", kind="drw")
            if combine:
                view = await page.until(lambda v: len(_press(v)["parts"]) == 2)
                assert _press(view)["combine"]
            else:
                await page.until(partial(_noticed, page))
                assert "press level" in page.notices[-1]["text"]
        finally:
            await cm.__aexit__(None, None, None)


async def test_the_lobby_offers_every_map(web: WebHub) -> None:
    port = web.address[1]
    status, _, body = await http(port, "GET", "/api/options")
    options = json.loads(body)
    maps = {m_["name"]: m_ for m_ in options["maps"]}
    assert options["defaults"]["map"] == "standard" and options["maps"][0]["name"] == "standard"
    assert set(maps) == set(bundled_maps())
    hundred = load_map("hundred3")
    assert [p["id"] for p in maps["hundred3"]["powers"]] == list(hundred.powers)
    assert maps["hundred3"]["first_year"] == hundred.start_year
    assert maps["hundred3"]["max_year"] == hundred.start_year + 9
    assert maps["hundred3"]["designer"] == hundred.designer
    assert len(maps["chaos"]["powers"]) == 34
    for bad, why in (
        ({"map": "nowhere"}, "unknown map"),
        ({"map": "hundred3", "opponents": ["dumbbot"] * 6}, "choose 2 opponents"),
        ({"map": "hundred3", "power": "RUS"}, "no power RUS"),
        ({"map": "hundred3", "max_year": 1901 - 500}, "first year"),
        ({"map": ["standard"]}, "unknown map"),
    ):
        status, _, body = await http(port, "POST", "/api/games", bad)
        assert status == 400 and why in json.loads(body)["error"], (bad, body)


async def test_a_variant_game_by_clicks(web: WebHub) -> None:
    """A three-power variant with no display positions: the page's map is the computed
    drawing, clicks order the units, and the bots (speaking the variant's tokens) play."""
    gmap = load_map("hundred3")
    year = gmap.start_year
    seat = web.create_game({"map": "hundred3", "power": "ENG", "opponents": ["holdbot"] * 2})
    assert web.server.games[seat.game_id].map.name == "hundred3"
    page, cm = await open_page(web, seat.game_id, seat.token)
    try:
        view = await page.until(lambda v: v["stage"] == "playing" and "orders" in v)
        assert view["phase"] == f"S{year}M" and len(view["powers"]) == 3
        assert 'data-map="hundred3"' in page.svg
        assert page.svg.count('class="prov ') == len(gmap.provinces)
        await page.send(t="click", loc="NMD")
        view = await page.until(lambda v: "NMD" in v.get("prompt", ""))
        await page.send(t="click", loc="BRT")
        await page.until(lambda v: given(v) == ["A NMD - BRT"])
        assert 'id="pending-NMD"' in page.svg
        await page.send(t="ready", on=True)
        view = await page.until(lambda v: v["phase"] == f"F{year}M" and "orders" in v)
        lines = {(r["power"], r["text"]) for r in view["results"][0]["lines"]}
        assert ("ENG", "A NMD - BRT") in lines
        await page.send(t="history", index=0)
        hist = await page.until(lambda v: v.get("t") == "history")
        assert 'id="order-NMD"' in hist["svg"]
    finally:
        await cm.__aexit__(None, None, None)


async def test_an_open_seat_on_a_variant_speaks_the_variants_tokens(web: WebHub) -> None:
    """The lobby's server plays the standard map; an open seat of a Hundred game is reached on
    the game's own port, whose RM and messages carry Hundred's names."""
    from diplomat.protocol.mdf import table_for_map

    hundred = load_map("hundred3")
    seat = web.create_game({"map": "hundred3", "power": "ENG", "opponents": ["holdbot", "open"]})
    page, cm = await open_page(web, seat.game_id, seat.token)
    try:
        view = await page.until(lambda v: v["stage"] == "forming" and v["forming"]["port"])
        bot = await WireClient.connect(view["forming"]["port"], table=table_for_map(hundred))
        await bot.send(messages.Nme("tcp-bot", "1.0"))
        assert await bot.expect(messages.Yes) == messages.Yes(messages.Nme("tcp-bot", "1.0"))
        got = await bot.expect(messages.Map)
        assert got == messages.Map("hundred3")
        await bot.send(messages.Yes(got))
        hlo = await bot.expect(messages.Hlo)
        assert hlo.power in hundred.powers and seat.lineup[hlo.power] == "open"
        now = await bot.expect(messages.Now)
        assert {u.power for u in now.units} == set(hundred.powers)
        await bot.aclose()
    finally:
        await cm.__aexit__(None, None, None)
