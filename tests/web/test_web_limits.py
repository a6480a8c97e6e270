"""The page's protections, against a real server on loopback: other sites cannot create games
or open seats (Origin, content type), other names cannot reach it (Host: DNS rebinding), and
nobody can start unlimited bot processes (a cap on web games, a limit per address, forming
games nobody comes to are abandoned)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import structlog
import trio

from diplomat.protocol import messages
from diplomat.server.app import Server
from diplomat.server.settings import GameSettings
from diplomat.server.store import Store
from diplomat.web.hub import WebHub
from tests.server.daide_client import WireClient
from tests.server.test_reliability import _units

MakeHub = Callable[..., Awaitable[WebHub]]


@pytest.fixture
async def make_hub(tmp_path: Path) -> AsyncIterator[MakeHub]:
    # An earlier test may have pointed the logs at its own captured (now closed) stderr, by
    # running a command in process: log the default way.
    structlog.reset_defaults()
    stores: list[Store] = []
    async with trio.open_nursery() as nursery:

        async def make(**options: Any) -> WebHub:
            store = Store(tmp_path / f"web{len(stores)}.sqlite")
            stores.append(store)
            srv = Server(store, GameSettings(max_year=1901, map="standard"), port=0, seed=3)
            await nursery.start(srv.run)
            hub = WebHub(srv, grace=0.5, **options)
            await nursery.start(hub.run, 0)
            return hub

        yield make
        nursery.cancel_scope.cancel()  # (before the databases close)
    for s in stores:
        s.close()


async def request(
    port: int,
    method: str,
    path: str,
    body: bytes = b"",
    headers: dict[str, str] | None = None,
) -> tuple[int, dict[str, Any]]:
    """One HTTP request with exactly these headers (Host defaults to the address used)."""
    head = {"Host": f"127.0.0.1:{port}", "Connection": "close", **(headers or {})}
    if method == "POST":
        head["Content-Length"] = str(len(body))
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    lines = "".join(f"{k}: {v}\r\n" for k, v in head.items())
    await stream.send_all(f"{method} {path} HTTP/1.1\r\n{lines}\r\n".encode() + body)
    raw = b""
    with trio.fail_after(30):
        while chunk := await stream.receive_some(65536):
            raw += chunk
    first, _, payload = raw.partition(b"\r\n\r\n")
    status = int(first.split()[1])
    try:
        data = json.loads(payload) if payload else {}
    except ValueError:
        data = {}
    return status, data if isinstance(data, dict) else {"list": data}


GAME = json.dumps({"power": "FRA", "opponents": ["holdbot"] * 6}).encode()
JSON = {"Content-Type": "application/json"}


async def test_a_cross_site_simple_post_is_refused(make_hub: MakeHub) -> None:
    hub = await make_hub()
    port = hub.address[1]
    # The reproduction: text/plain from another origin, which a browser sends unasked.
    status, data = await request(
        port, "POST", "/api/games", GAME,
        {"Content-Type": "text/plain", "Origin": "http://evil.example"},
    )  # fmt: skip
    assert status == 403 and "evil.example" in data["error"]
    # Even as JSON, another origin is refused.
    status, _ = await request(
        port, "POST", "/api/games", GAME, {**JSON, "Origin": "http://evil.example"}
    )
    assert status == 403
    assert hub.live == set() and hub.games() == []


async def test_a_post_must_be_json(make_hub: MakeHub) -> None:
    hub = await make_hub()
    port = hub.address[1]
    own = {"Origin": f"http://127.0.0.1:{port}"}
    status, data = await request(
        port, "POST", "/api/games", GAME, {"Content-Type": "text/plain", **own}
    )
    assert status == 415 and "application/json" in data["error"]
    status, data = await request(port, "POST", "/api/games", GAME, {**JSON, **own})
    assert status == 201 and data["power"] == "FRA"


async def test_the_host_must_be_this_server(make_hub: MakeHub) -> None:
    hub = await make_hub(hosts=frozenset({"diplomat.lan"}))
    port = hub.address[1]
    for host in ("evil.example", f"evil.example:{port}", "127.0.0.1.evil.example"):
        status, data = await request(port, "GET", "/api/options", headers={"Host": host})
        assert status == 403, host
        assert "does not answer" in data["error"]
        status, _ = await request(port, "POST", "/api/games", GAME, {**JSON, "Host": host})
        assert status == 403
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", "[::1]", f"diplomat.lan:{port}"):
        status, _ = await request(port, "GET", "/api/options", headers={"Host": host})
        assert status == 200, host
    assert hub.games() == []


async def _upgrade(port: int, origin: str | None, host: str | None = None) -> bytes:
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    extra = f"Origin: {origin}\r\n" if origin else ""
    await stream.send_all(
        f"GET /ws HTTP/1.1\r\nHost: {host or f'127.0.0.1:{port}'}\r\nUpgrade: websocket\r\n"
        "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        f"Sec-WebSocket-Version: 13\r\n{extra}\r\n".encode()
    )
    raw = b""
    with trio.fail_after(30):
        while b"\r\n\r\n" not in raw:
            chunk = await stream.receive_some(65536)
            if not chunk:
                break
            raw += chunk
    await stream.aclose()
    return raw.split(b"\r\n", 1)[0]


async def test_a_websocket_from_another_origin_is_refused(make_hub: MakeHub) -> None:
    hub = await make_hub()
    port = hub.address[1]
    assert b" 403 " in await _upgrade(port, "http://evil.example")
    assert b" 403 " in await _upgrade(port, None, host="evil.example")
    assert b" 101 " in await _upgrade(port, f"http://127.0.0.1:{port}")
    assert b" 101 " in await _upgrade(port, None)  # not a browser: no Origin


async def test_a_burst_of_creations_stays_within_the_cap(make_hub: MakeHub) -> None:
    """50 creations at once: two games (the cap) are made, the rest refused with a message;
    at most twelve bot processes run, and a game already under way keeps playing."""
    hub = await make_hub(max_games=2, create_burst=100)
    port = hub.address[1]
    daide = hub.server.address[1]
    players = [await WireClient.connect(daide) for _ in range(7)]
    for i, c in enumerate(players):
        await c.join(f"p{i}")
    hlos = [await c.expect(messages.Hlo) for c in players]
    statuses: list[int] = []
    refusals: list[str] = []

    async def create() -> None:
        status, data = await request(port, "POST", "/api/games", GAME, JSON)
        statuses.append(status)
        if status != 201:
            refusals.append(data["error"])

    async with trio.open_nursery() as n:
        for _ in range(50):
            n.start_soon(create)
    assert sorted(statuses) == [201] * 2 + [503] * 48
    assert all("the most it allows" in text for text in refusals)
    pipes = [c for c in hub.server.clients.values() if c.link.kind == "pipe"]
    assert len(pipes) <= 12 and len(hub.live) == 2
    # The DAIDE game goes on.
    for c, h in zip(players, hlos, strict=True):
        await c.send(f"SUB {' '.join(f'(({h.power} {u}) HLD)' for u in _units(h.power or ''))}")
    now = await players[0].expect(messages.Now, timeout=60)
    while now.turn.name != "F1901M":
        now = await players[0].expect(messages.Now, timeout=60)


async def test_creations_are_limited_per_address(make_hub: MakeHub) -> None:
    hub = await make_hub(create_burst=2, create_every=3600, games_per_address=10, max_bots=99)
    port = hub.address[1]
    for _ in range(2):
        status, _ = await request(port, "POST", "/api/games", GAME, JSON)
        assert status == 201
    status, data = await request(port, "POST", "/api/games", GAME, JSON)
    assert status == 429 and "Too many games" in data["error"]


async def test_a_web_game_nobody_comes_to_is_abandoned(make_hub: MakeHub) -> None:
    hub = await make_hub(forming_timeout=1.0)
    port = hub.address[1]
    status, data = await request(port, "POST", "/api/games", GAME, JSON)
    assert status == 201
    with trio.fail_after(60):
        while hub.live or any(c.link.kind == "pipe" for c in hub.server.clients.values()):
            await trio.sleep(0.05)
    assert hub.store.game(data["game"]).status == "abandoned"
