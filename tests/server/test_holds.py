"""No client holds a socket for nothing: a connection that joins no game is sent OFF and closed
after the lobby timeout, the connections from one address are capped (one more is turned away
with OFF, logged once), and a client's bad input is logged once with a count."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from typing import Any

import pytest
import structlog
import trio
from trio.testing import MockClock

from diplomat.protocol import messages
from diplomat.protocol.connection import Closed
from diplomat.server.logs import configure_logging

from .daide_client import PATIENCE, MakeServer, WireClient


@pytest.fixture
def log() -> Iterator[io.StringIO]:
    """The server's log lines (JSON) while the test runs."""
    out = io.StringIO()
    configure_logging("info", json=True, stream=out)
    try:
        yield out
    finally:
        structlog.reset_defaults()  # (not bound to this test's captured stderr)


def _events(log: io.StringIO, event: str) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in log.getvalue().splitlines() if line.startswith("{")]
    return [line for line in lines if line.get("event") == event]


async def _wait_for(log: io.StringIO, event: str, count: int = 1) -> list[dict[str, Any]]:
    with trio.fail_after(PATIENCE):
        while len(_events(log, event)) < count:
            await trio.sleep(0.02)
    return _events(log, event)


async def test_a_connection_that_joins_no_game_is_closed(
    make_server: MakeServer, mock_clock: MockClock, log: io.StringIO
) -> None:
    """Two clients send their first message (an IM; a MAP request in text) and then nothing
    that joins a game; an observer joins. When the lobby timeout has passed, the two get
    OFF and are closed (one log line each); the observer stays."""
    server = await make_server(lobby_timeout=600.0)
    port = server.address[1]
    idle = await WireClient.connect(port)
    asking = await WireClient.connect(port, text=True)
    await asking.send(messages.Map())
    assert await asking.event() == messages.Map("standard")
    watching = await WireClient.connect(port)
    await watching.send(messages.Obs())
    assert await watching.expect(messages.Yes) == messages.Yes(messages.Obs())
    await _wait_for(log, "connected", 3)
    mock_clock.jump(600.0)
    for client in (idle, asking):
        assert await client.event() == messages.Off()
        assert isinstance(await client.event(), Closed)
    closing = await _wait_for(log, "closing idle", 2)
    assert all("joined no game within 600 s" in line["reason"] for line in closing)
    await watching.send(messages.Now())
    assert isinstance(await watching.expect(messages.Now), messages.Now)


async def test_connections_from_one_address_are_capped(
    make_server: MakeServer, log: io.StringIO
) -> None:
    """Four connections at once from 127.0.0.1 are served; the fifth and later ones are
    turned away in their own wire form (binary: RM, OFF, FM; text: an OFF line), with one log
    line for all of them; another address is served; once one of the four closes, a new one
    is served again."""
    server = await make_server(per_address=4)
    port = server.address[1]
    held = [await WireClient.connect(port) for _ in range(4)]
    for c in held:
        await c.send(messages.Map())
        assert await c.event() == messages.Map("standard")
    for text in (False, True, False, True, False):
        extra = await WireClient.connect(port, text=text)
        await extra.send(messages.Map())
        assert await extra.event() == messages.Off()
        assert isinstance(await extra.event(), Closed)
    (refused,) = _events(log, "connections refused")
    assert refused["address"] == "127.0.0.1" and refused["limit"] == 4
    other = await WireClient.connect(port, local_address="127.0.0.2")
    await other.send(messages.Map())
    assert await other.event() == messages.Map("standard")
    await held[0].aclose()
    with trio.fail_after(PATIENCE):  # the server lets go of it
        while server._connections.get("127.0.0.1", 0) >= 4:
            await trio.sleep(0.02)
    again = await WireClient.connect(port)
    await again.send(messages.Map())
    assert await again.event() == messages.Map("standard")
    assert len(_events(log, "connections refused")) == 1


async def test_bad_input_is_logged_once_with_a_count(
    make_server: MakeServer, log: io.StringIO
) -> None:
    """Two hundred lines that are not DAIDE: each gets its answer (PRN: unbalanced
    brackets), one log line says what the first was, and the connection's "disconnected"
    line gives the count."""
    server = await make_server()
    c = await WireClient.connect(server.address[1], text=True)
    for i in range(200):
        await c.send_raw(f"NOT DAIDE {i} (((\n".encode())
    for _ in range(200):
        assert isinstance(await c.event(), messages.Prn)
    await c.aclose()
    (gone,) = await _wait_for(log, "disconnected")
    assert gone["unparsed"] == 200 and gone["received"] == 200
    assert len(_events(log, "unparsed")) == 1


async def test_a_client_that_refuses_the_map_is_sent_off_and_closed(
    make_server: MakeServer,
) -> None:
    """REJ (MAP): OFF, and the connection is closed (it cannot stay on without a game)."""
    server = await make_server()
    c = await WireClient.connect(server.address[1])
    await c.send(messages.Nme("picky", "1"))
    await c.send(messages.Rej(await c.expect(messages.Map)))
    assert await c.expect(messages.Off) == messages.Off()
    assert isinstance(await c.event(), Closed)
