"""Games with several people, read off the wire: each seat's page is sent its own orders and
press only (what the server sends, not what a page shows), a second device on one link sees
the same orders, the creator alone is shown the other seats' links, a seat nobody takes goes
to a bot when the creator asked, and guessing seat tokens is refused per address while the
rightful holders get in. A real server and hub on loopback, real subprocess bots."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
import trio
import trio_websocket

from diplomat.web.hub import WebHub
from diplomat.web.people import TokenGuard
from tests.web import test_web_protocol as _protocol
from tests.web.test_web_protocol import Page, given, http

# The same real server and hub as the protocol tests (a fixture of that module).
web = _protocol.web


class WirePage(Page):
    """A page that keeps every frame the server sent it, as sent."""

    def __init__(self, ws: trio_websocket.WebSocketConnection) -> None:
        super().__init__(ws)
        self.raw: list[str] = []

    async def until(
        self, pred: Callable[[dict[str, Any]], bool], timeout: float = 120
    ) -> dict[str, Any]:
        real = self.ws.get_message

        async def keep() -> str:
            text = str(await real())
            self.raw.append(text)
            return text

        self.ws.get_message = keep  # type: ignore[method-assign]
        try:
            return await super().until(pred, timeout)
        finally:
            self.ws.get_message = real  # type: ignore[method-assign]


async def open_wire(
    nursery: trio.Nursery,
    web: WebHub,
    game: int,
    token: str,
    source: str = "127.0.0.1",
    forwarded: str | None = None,
) -> WirePage:
    """A page's WebSocket from the loopback address ``source`` (127.0.0.2 is another
    address of the same machine: another visitor, as far as the guard can tell), with an
    ``X-Forwarded-For`` if ``forwarded``."""
    stream = await trio.open_tcp_stream("127.0.0.1", web.address[1], local_address=source)
    extra = [(b"X-Forwarded-For", forwarded.encode())] if forwarded else None
    ws = await trio_websocket.wrap_client_stream(
        nursery, stream, "127.0.0.1", "/ws", extra_headers=extra
    )
    page = WirePage(ws)
    await page.send(t="hello", game=game, token=token)
    return page


def _state(view: dict[str, Any], power: str) -> str:
    return next(p["state"] for p in view["powers"] if p["power"] == power)


def _daide(view: dict[str, Any]) -> list[str]:
    press = view.get("press") or {}
    return [m["daide"] for c in press.get("conversations", []) for m in c["messages"]]


@pytest.mark.parametrize(
    ("gmap", "one", "two", "third", "order_one", "order_two"),
    [
        ("standard", "FRA", "GER", "ITA", "A PAR - BUR", "A MUN H"),
        ("hundred3", "ENG", "FRA", "BUR", "A NMD - BRT", "A PAR H"),
    ],
)
async def test_two_people_each_receive_only_their_own(
    web: WebHub, gmap: str, one: str, two: str, third: str, order_one: str, order_two: str
) -> None:
    powers = list(web.map_named(gmap).powers)
    seats = {p: "holdbot" for p in powers} | {one: "person", two: "person"}
    seat = web.create_game({"map": gmap, "power": one, "level": 10, "seats": seats})
    (other,) = web.people_seats(seat.game_id)
    assert other.power == two and other.token != seat.token and len(other.token) >= 24
    async with trio.open_nursery() as nursery:
        first = await open_wire(nursery, web, seat.game_id, seat.token)
        # The creator's page, while the game waits: who has joined, and the other link.
        view = await first.until(lambda v: bool(v.get("forming", {}).get("people")))
        (waiting,) = view["forming"]["people"]
        assert waiting["power"] == two and not waiting["joined"]
        assert waiting["link"].endswith(f"/game/{seat.game_id}?t={other.token}")
        assert view["forming"]["creator"]
        second = await open_wire(nursery, web, seat.game_id, other.token)
        again = await open_wire(nursery, web, seat.game_id, seat.token)  # a second device
        for page in (first, second, again):
            await page.until(lambda v: v["stage"] == "playing" and "orders" in v)
        assert not any(seat.token in text for text in second.raw)  # never the creator's link
        await first.send(t="order", text=order_one)
        await second.send(t="order", text=order_two)
        await again.until(lambda v: given(v) == [order_one])  # the same orders, elsewhere
        # Press: the first writes to the second and to a bot; the second must see the one
        # message to it and never the other.
        await first.send(t="press", op="to", power=two)
        await first.until(lambda v: bool((v.get("press") or {}).get("kinds")))
        await first.send(t="press", op="add", kind="pce")
        await first.send(t="press", op="send", how="orr")
        await second.until(lambda v: any("PCE" in d for d in _daide(v)))
        await first.send(t="press", op="to", power=two)  # (the draft keeps its recipients)
        await first.send(t="press", op="to", power=third)
        await first.until(lambda v: bool((v.get("press") or {}).get("kinds")))
        await first.send(t="press", op="add", kind="aly")
        await first.send(t="press", op="pick", power=two)
        await first.send(t="press", op="done")
        await first.send(t="press", op="send", how="orr")
        # The bot answers the message it got (HUH): it has surely been relayed by then.
        await first.until(lambda v: any(d.startswith("HUH") for d in _daide(v)))
        await first.send(t="ready", on=True)  # its orders complete: waiting for the second
        view = await second.until(lambda v: _state(v, one) == "ordered")
        seen = "".join(second.raw)
        assert order_one not in seen and "VSS" not in seen  # (the alliance against it)
        assert order_two not in "".join(first.raw)
        assert given(view) == [order_two]
        # Once the phase is over the orders are everyone's.
        await second.send(t="ready", on=True)
        view = await second.until(lambda v: len(v["history"]) > 1 and bool(v.get("results")))
        lines = {(r["power"], r["text"]) for r in view["results"][0]["lines"]}
        assert (one, order_one) in lines
        nursery.cancel_scope.cancel()


async def test_a_seat_nobody_takes_goes_to_a_bot(web: WebHub) -> None:
    seats = {p: "holdbot" for p in web.map_named("standard").powers}
    seats |= {"AUS": "person", "TUR": "person", "RUS": "person"}
    seat = web.create_game(
        {"power": "TUR", "seats": seats, "fill_bot": "holdbot", "fill_after": 1, "max_year": 1901}
    )
    others = {s.power: s for s in web.people_seats(seat.game_id)}
    assert set(others) == {"AUS", "RUS"}
    async with trio.open_nursery() as nursery:
        russia = await open_wire(nursery, web, seat.game_id, others["RUS"].token)
        view = await russia.until(lambda v: bool(v.get("forming", {}).get("people")))
        # Not the creator: who plays, not their links.
        assert not view["forming"]["creator"]
        assert all("link" not in p for p in view["forming"]["people"])
        assert others["AUS"].token not in "".join(russia.raw)
        await russia.send(t="start")  # only the creator may start early: nothing happens
        host = await open_wire(nursery, web, seat.game_id, seat.token)
        await host.until(lambda v: bool(v.get("forming")) and v["forming"]["fill"] is not None)
        # A second later Austria, whom nobody took, is a bot's, and the game plays.
        await host.until(lambda v: v["stage"] == "playing")
        gone = await open_wire(nursery, web, seat.game_id, others["AUS"].token)
        msg = await gone.until(lambda v: v.get("t") == "error")
        assert "no seat" in msg["text"]
        await russia.until(lambda v: v["stage"] == "playing")
        nursery.cancel_scope.cancel()


async def test_guessing_seat_tokens_is_refused_and_the_holder_gets_in(web: WebHub) -> None:
    seat = web.create_game({"power": "ENG", "opponents": ["holdbot"] * 6})
    answers = []
    async with trio.open_nursery() as nursery:
        for i in range(8):  # a guesser at another address
            page = await open_wire(nursery, web, seat.game_id, f"guess{i:020d}", "127.0.0.2")
            answers.append((await page.until(lambda v: v.get("t") == "error"))["text"])
            await page.ws.aclose()
        assert answers[0] == "This link opens no seat here."
        assert "Too many wrong links" in answers[-1]
        checked = web.guard.checked
        # Locked out, the guesser's next hello is not even looked up: the right token too.
        page = await open_wire(nursery, web, seat.game_id, seat.token, "127.0.0.2")
        assert "Too many" in (await page.until(lambda v: v.get("t") == "error"))["text"]
        assert web.guard.checked == checked
        # The rightful holder, at their own address, plays.
        holder = await open_wire(nursery, web, seat.game_id, seat.token)
        await holder.until(lambda v: v.get("power") == "ENG")
        nursery.cancel_scope.cancel()


def test_the_guard_counts_as_the_passcode_guard() -> None:
    now = [0.0]
    guard = TokenGuard(free=3, lockout=1.0, cap=60.0, trusted_cap=5.0, clock=lambda: now[0])
    delays = [guard.failed(7, "10.0.0.1:5000") for _ in range(6)]
    assert delays == [0.0, 0.0, 1.0, 2.0, 4.0, 8.0]
    assert guard.wait(7, "10.0.0.1:6000") == 8.0  # the address, whatever its port
    assert guard.wait(7, "10.0.0.2:5000") == 0.0  # another address is not held up
    guard.succeeded(7, "10.0.0.3:1")  # a player's address: a record of its own in game 7
    assert [guard.failed(7, "10.0.0.3:1") for _ in range(8)][-1] == 5.0  # its own cap
    now[0] = 8.0
    assert guard.wait(7, "10.0.0.1:1") == 0.0


async def test_bad_seats_are_refused_with_the_reason(web: WebHub) -> None:
    port = web.address[1]
    full = {p: "holdbot" for p in web.map_named("standard").powers} | {"FRA": "person"}
    for bad, why in (
        ({"seats": {"FRA": "person"}}, "say who plays"),
        ({"seats": full | {"XYZ": "person"}}, "no power XYZ"),
        ({"seats": full | {"GER": "nobot"}}, "GER is 'nobot'"),
        ({"seats": {p: "holdbot" for p in full}}, "at least one power"),
        ({"power": "GER", "seats": full}, "your power GER"),
        ({"seats": full | {"GER": "person"}, "fill_bot": "nobot", "fill_after": 5}, "nobot"),
        ({"seats": full | {"GER": "person"}, "fill_bot": "holdbot"}, "fill_after"),
        ({"seats": "FRA"}, "seats"),
    ):
        status, _, body = await http(port, "POST", "/api/games", bad)
        assert status == 400 and why in json.loads(body)["error"], (bad, body)
    status, _, body = await http(
        port, "POST", "/api/games", {"seats": full | {"GER": "person", "ITA": "open"}}
    )
    made = json.loads(body)
    assert status == 201 and made["power"] == "FRA"
    assert [p["power"] for p in made["people"]] == ["GER"]
    assert f"/game/{made['game']}?t=" in made["people"][0]["url"]


async def test_started_without_a_person_who_then_comes(web: WebHub) -> None:
    seats = {p: "holdbot" for p in web.map_named("standard").powers}
    seat = web.create_game({"power": "ENG", "seats": seats | {"ENG": "person", "RUS": "person"}})
    (russia,) = web.people_seats(seat.game_id)
    async with trio.open_nursery() as nursery:
        host = await open_wire(nursery, web, seat.game_id, seat.token)
        await host.until(lambda v: bool(v.get("forming", {}).get("people")))
        await host.send(t="start")  # the creator starts without Russia: in civil disorder
        view = await host.until(lambda v: v["stage"] == "playing")
        late = await open_wire(nursery, web, seat.game_id, russia.token)
        view = await late.until(lambda v: v["stage"] == "playing" and "orders" in v)
        assert view["power"] == "RUS"
        await host.until(lambda v: _state(v, "RUS") != "disorder")
        nursery.cancel_scope.cancel()


async def test_behind_a_trusted_proxy_each_visitor_counts_alone(web: WebHub) -> None:
    """Through a proxy the server trusts, the guard counts the address X-Forwarded-For names
    last (a client's own earlier entries are not believed); from anyone else the header is
    ignored."""
    seat = web.create_game({"power": "ENG", "opponents": ["holdbot"] * 6})
    web.proxies = frozenset({"127.0.0.1"})  # (what serve --web-proxy 127.0.0.1 gives)
    async with trio.open_nursery() as nursery:
        for i in range(6):  # a guesser behind the proxy, forging an address before its own
            page = await open_wire(
                nursery, web, seat.game_id, f"guess{i:020d}", forwarded="198.51.100.7, 203.0.113.9"
            )
            text = (await page.until(lambda v: v.get("t") == "error"))["text"]
            await page.ws.aclose()
        assert "Too many wrong links" in text
        # Another visitor through the same proxy is not held up, nor is the forged address.
        for who in ("198.51.100.7", "203.0.113.10"):
            page = await open_wire(nursery, web, seat.game_id, seat.token, forwarded=who)
            await page.until(lambda v: v.get("power") == "ENG")
            await page.ws.aclose()
        # Not through the proxy: the header counts for nothing (127.0.0.2 itself is guessing).
        for i in range(6):
            page = await open_wire(
                nursery, web, seat.game_id, f"again{i:020d}", "127.0.0.2", forwarded=f"10.0.0.{i}"
            )
            text = (await page.until(lambda v: v.get("t") == "error"))["text"]
            await page.ws.aclose()
        assert "Too many wrong links" in text
        nursery.cancel_scope.cancel()
