"""Nothing a client sends ends the server: the inputs that once did (an HTTP request closed
with a reset, press nested 400 deep, an observer's free text) are answered, and the server
goes on serving."""

from __future__ import annotations

import socket
import sqlite3
import struct

import trio

from diplomat.protocol import messages
from diplomat.protocol.atoms import payload_from_atoms
from diplomat.protocol.codec import codec_for
from diplomat.protocol.connection import Closed
from diplomat.protocol.frames import dm_frame
from diplomat.protocol.syntax import FROM_CLIENT
from diplomat.protocol.text import quote
from diplomat.protocol.tokens import STANDARD
from diplomat.server.app import GAME_FAULTS, GameRunner, Server
from diplomat.server.settings import GameSettings

from .daide_client import PATIENCE, MakeServer, WireClient

CODEC = codec_for(STANDARD)


async def _observer(port: int, text: bool) -> WireClient:
    client = await WireClient.connect(port, text=text)
    await client.send(messages.Obs())
    assert await client.expect(messages.Yes) == messages.Yes(messages.Obs())
    await client.expect(messages.Map)
    return client


async def _still_serving(port: int) -> None:
    """A new client is served (the server has lived through what the test sent)."""
    client = await _observer(port, text=False)
    await client.send(messages.Map())
    assert await client.expect(messages.Map) == messages.Map("standard")
    await client.aclose()


async def _reset(port: int, data: bytes) -> None:
    """Send ``data`` and close with a TCP reset (SO_LINGER 0), as an attacker would."""
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    await stream.send_all(data)
    stream.socket.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    await stream.aclose()


def _nested(depth: int) -> str:
    inner = "PCE (FRA ENG)"
    for _ in range(depth):
        inner = f"NOT ({inner})"
    return f"SND (FRA) (PRP ({inner}))"


async def test_an_http_request_closed_with_a_reset_ends_only_itself(
    make_server: MakeServer,
) -> None:
    server = await make_server()
    port = server.address[1]
    for _ in range(20):
        await _reset(port, b"GET / HTTP/1.0\r\n\r\n")
    # (the server answers the HTTP request into a reset connection; it must then still serve)
    await _still_serving(port)


async def test_an_observer_s_press_too_deep_or_free_text_is_answered(
    make_server: MakeServer,
) -> None:
    server = await make_server()
    port = server.address[1]
    for text in (True, False):
        client = await _observer(port, text)
        atoms = CODEC.text_atoms(_nested(400))
        wire = (_nested(400) + "\n").encode() if text else dm_frame(payload_from_atoms(atoms))
        await client.send_raw(wire)
        huh = await client.expect(messages.Huh)
        cut = huh.tokens.index("ERR")
        # The echo stops where the nesting went past the bound, with its brackets closed.
        before = huh.tokens[:cut]
        assert before.count("(") - before.count(")") == FROM_CLIENT.depth
        assert huh.tokens.count("(") == huh.tokens.count(")")
        # Free text (press an observer may not send) is echoed word for word, spaces kept.
        for words in ("hello", "hello again", "it's a fine day"):
            await client.send(messages.Snd(("FRA",), messages.FreeText(words)))
            huh = await client.expect(messages.Huh, PATIENCE)
            assert huh == messages.Huh(("ERR", "SND", "(", "FRA", ")", "(", quote(words), ")"))
        await client.aclose()
    await _still_serving(port)


async def test_connections_beyond_the_limit_in_all_are_turned_away(
    make_server: MakeServer,
) -> None:
    server = await make_server(max_connections=3)
    port = server.address[1]
    # From three addresses (the limit per address is not what turns them away).
    kept = [
        await WireClient.connect(port, text=True, local_address=f"127.0.0.{i}") for i in (2, 3, 4)
    ]
    for client in kept:
        await client.send(messages.Obs())
        await client.expect(messages.Map)
    for text in (True, False):
        extra = await WireClient.connect(port, text=text, local_address="127.0.0.5")
        await extra.send(messages.Obs())
        assert await extra.expect(messages.Off) == messages.Off()
        await extra.aclose()
    await kept.pop().aclose()
    with trio.fail_after(PATIENCE):  # its place is free again once the server has seen it go
        while server._open >= 3:
            await trio.sleep(0.01)
    await _still_serving(port)
    for client in kept:
        await client.aclose()


async def test_a_client_s_bytes_are_budgeted_as_well_as_its_messages(
    make_server: MakeServer,
) -> None:
    # 4 KB at once, then 1 byte a second: a second 3 KB message waits ~2000 s to be read.
    server = await make_server(byte_rate=1.0, byte_burst=4096)
    port = server.address[1]
    heavy = await _observer(port, text=True)
    big = "x" * 3000
    await heavy.send(messages.Snd(("FRA",), messages.FreeText(big)))
    assert (await heavy.expect(messages.Huh)).tokens[-2] == quote(big)
    await heavy.send(messages.Snd(("FRA",), messages.FreeText(big + "y")))
    record = next(c for c in server.clients.values() if c.received >= 2)
    with trio.fail_after(PATIENCE):  # the reader has charged the message, and waits
        while record.received < 3:
            await trio.sleep(0.01)
    assert record.byte_tokens < 0
    # Meanwhile another client is served as usual.
    light = await _observer(port, text=False)
    await light.send(messages.Map())
    assert await light.expect(messages.Map) == messages.Map("standard")
    assert record.received == 3 and record.byte_tokens < 0  # still waiting its turn
    await light.aclose()
    await heavy.aclose()


HOLDS = "SUB ((FRA AMY PAR) HLD) ((FRA AMY MAR) HLD) ((FRA FLT BRE) HLD)"


async def _france(server: Server) -> tuple[WireClient, GameRunner]:
    """A player of ours given France in the open game, started with the six others in civil
    disorder; after its first NOW."""
    player = await WireClient.connect(server.address[1], text=False)
    await player.join("steady")
    runner = server.open_game
    assert runner is not None
    with trio.fail_after(PATIENCE):
        while None not in runner.joined():
            await trio.sleep(0.01)
    runner.start_without([(p, None) for p in runner.map.powers if p != "FRA"])
    assert (await player.expect(messages.Hlo)).power == "FRA"
    await player.expect(messages.Now)
    return player, runner


def _lock(server: Server) -> sqlite3.Connection:
    """Another process's hold on the database's write lock: every write of the server fails
    (after SQLite's 5 s busy timeout), a real fault that is not the message's."""
    lock = sqlite3.connect(server.store.path, isolation_level=None)
    lock.execute("BEGIN IMMEDIATE")
    return lock


async def test_a_game_whose_event_fails_is_reloaded_and_plays_on(
    make_server: MakeServer,
) -> None:
    # France is answered REJ, the game is reloaded from the store with France still in its
    # seat, and once the lock is gone the same orders are taken and the phase is played.
    server = await make_server(GameSettings(max_year=1901, map="standard"))
    player, runner = await _france(server)

    def broken_watcher(status: object, now: float) -> None:
        raise ZeroDivisionError("a watcher's own bug")

    runner.watch("broken", broken_watcher)  # dropped at its first failure; the game goes on
    lock = _lock(server)
    try:
        await player.send(HOLDS)
        assert await player.expect(messages.Rej) == messages.Rej(CODEC.parse_text(HOLDS))
    finally:
        lock.execute("ROLLBACK")
        lock.close()
    await player.send(HOLDS)
    assert (await player.expect(messages.Thx)).note.value == "MBV"
    now = await player.expect(messages.Now)
    assert now.turn is not None and now.turn.name == "F1901M"
    await _still_serving(server.address[1])


async def test_a_game_that_keeps_failing_stops_alone(make_server: MakeServer) -> None:
    # Three failures in a row (GAME_FAULTS): the game's players are told OFF and closed; the
    # game stays in the database, active, for the next start; the server serves on.
    server = await make_server(GameSettings(max_year=1901, map="standard"))
    player, runner = await _france(server)
    lock = _lock(server)
    try:
        for _ in range(GAME_FAULTS):
            await player.send(HOLDS)
        assert await player.expect(messages.Off) == messages.Off()
        assert isinstance(await player.event(), Closed)
        await runner.done.wait()
    finally:
        lock.execute("ROLLBACK")
        lock.close()
    assert runner.id not in server.games
    assert [g.status for g in server.store.games() if g.id == runner.id] == ["active"]
    await _still_serving(server.address[1])
