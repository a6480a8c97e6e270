"""No client can stall another or hold a game: a flood of requests is served in turn with
everyone else's, a client that never accepts the map is dropped and its seat goes to others,
a text line left unfinished times out, and a client the server drops is logged once."""

from __future__ import annotations

import contextlib
import io
import struct

import structlog
import trio
from trio.testing import MockClock

from diplomat.protocol import messages
from diplomat.protocol.atoms import payload_from_atoms
from diplomat.protocol.codec import codec_for
from diplomat.protocol.connection import Closed
from diplomat.protocol.frames import dm_frame, im_frame
from diplomat.protocol.tokens import STANDARD
from diplomat.server.logs import configure_logging
from tests.server.masters import master_of

from .daide_client import PATIENCE, MakeServer, WireClient


async def _mdf_stream(port: int) -> tuple[trio.SocketStream, bytes, int]:
    """A raw binary connection that has asked for one MDF: (stream, the MDF request's bytes,
    the size of one answer in bytes)."""
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    request = dm_frame(payload_from_atoms(STANDARD_CODEC.atoms(messages.Mdf())))
    await stream.send_all(im_frame() + request)
    buf = b""
    with trio.fail_after(PATIENCE):
        while len(buf) < 8:
            buf += await stream.receive_some(65536)
        assert buf[:4] == bytes.fromhex("01000000")  # the RM
        size = 4 + struct.unpack(">H", buf[6:8])[0]
        while len(buf) < 4 + size:
            buf += await stream.receive_some(65536)
    assert len(buf) == 4 + size
    return stream, request, size


async def test_a_flood_of_mdf_requests_is_served_in_turn(make_server: MakeServer) -> None:
    """60 KB of MDF requests in one write (10,000 requests): another connection is answered
    while the flood is being served, and the flooder, which reads, gets every answer and is
    not dropped. (The budget is raised here so that the test is short: at the default
    100 messages a second the flood would take 100 s to serve.)"""
    server = await make_server(message_rate=5000.0)
    port = server.address[1]
    flooder, request, one = await _mdf_stream(port)
    count = 60 * 1024 // len(request)
    await flooder.send_all(request * count)
    probe = await WireClient.connect(port)
    received = 0
    answered_during_flood = False

    async def read_flood() -> None:
        nonlocal received
        with trio.fail_after(300):
            while received < count * one:
                data = await flooder.receive_some(1 << 20)
                assert data, "the flooder was dropped"
                received += len(data)

    async with trio.open_nursery() as n:
        n.start_soon(read_flood)
        await probe.send(messages.Map())
        assert await probe.event() == messages.Map("standard")
        answered_during_flood = received < count * one
    assert answered_during_flood
    assert received == count * one


async def test_a_client_that_never_accepts_the_map_is_dropped(
    make_server: MakeServer, mock_clock: MockClock
) -> None:
    """The join timeout is long, and the game's clock (trio's: a MockClock at the real rate)
    is moved past it for the staller: the seven who join next, on a loaded machine, are never
    dropped for being slow to accept the map themselves."""
    mock_clock.rate = 1.0
    server = await make_server(join_timeout=600.0)
    port = server.address[1]
    stalling = await WireClient.connect(port, text=True)
    await stalling.send(messages.Nme("staller", "1"))
    assert await stalling.expect(messages.Yes) == messages.Yes(messages.Nme("staller", "1"))
    await stalling.expect(messages.Map)
    mock_clock.jump(600.0)
    # It never says YES (MAP): after the join timeout it gets OFF and is disconnected.
    assert await stalling.expect(messages.Off) == messages.Off()
    assert isinstance(await stalling.event(), Closed)
    # Its seat is free: seven willing players make a game.
    players = [await WireClient.connect(port) for _ in range(7)]
    for i, c in enumerate(players):
        await c.join(f"p{i}")
    for c in players:
        await c.expect(messages.Hlo)


async def test_seven_willing_players_start_at_once_whoever_else_waits(
    make_server: MakeServer, mock_clock: MockClock
) -> None:
    """Three clients join and never accept the map; seven that do start a game at once (the
    clock stands still: no join timeout frees a seat), and again when the three come back
    and stall once more. (Before, the seven split 4 + 3 over two forming games and nothing
    started until the join timeout.)"""
    server = await make_server()
    port = server.address[1]
    for round in range(2):
        stalling = [await WireClient.connect(port, text=True) for _ in range(3)]
        for i, c in enumerate(stalling):
            await c.send(messages.Nme(f"stall{round}{i}", "1"))
            await c.expect(messages.Map)
        players = [await WireClient.connect(port) for _ in range(7)]
        for i, c in enumerate(players):
            await c.join(f"p{round}{i}")
        hlos = [await c.expect(messages.Hlo) for c in players]
        assert sorted(h.power for h in hlos) == sorted(STANDARD_POWERS)
        # The stallers wait in a forming game, without any of the seven.
        waiting = {j.name for r in server.forming_open_games() for j in master_of(r).lobby.joiners}
        assert {f"stall{round}{i}" for i in range(3)} <= waiting
        assert not any(name.startswith("p") for name in waiting)
        for c in stalling:  # they leave, and come back in the next round to stall again
            await c.aclose()


STANDARD_CODEC = codec_for(STANDARD)
STANDARD_POWERS = ["AUS", "ENG", "FRA", "GER", "ITA", "RUS", "TUR"]


async def test_an_unfinished_text_line_times_out(make_server: MakeServer) -> None:
    server = await make_server(im_timeout=2.0)
    c = await WireClient.connect(server.address[1], text=True)
    await c.send_raw(b"NME ('x') ('1')")  # no newline, ever
    ev = await c.event()
    assert isinstance(ev, Closed)
    other = await WireClient.connect(server.address[1], text=True)
    await other.send(messages.Map())
    assert await other.event() == messages.Map("standard")


async def test_a_dropped_client_is_logged_once(make_server: MakeServer) -> None:
    """A client that floods requests and reads nothing is throttled, then dropped when its
    replies do not drain; however many messages it was still owed, one line says so."""
    log = io.StringIO()
    configure_logging("info", json=True, stream=log)
    try:
        server = await make_server(im_timeout=1.0)
        deaf, request, _ = await _mdf_stream(server.address[1])
        with contextlib.suppress(trio.BrokenResourceError):
            with trio.move_on_after(PATIENCE):
                for _ in range(20):
                    await deaf.send_all(request * 10000)
        with trio.fail_after(PATIENCE):
            while '"event": "disconnected"' not in log.getvalue():
                await trio.sleep(0.05)
    finally:
        structlog.reset_defaults()  # (not bound to this test's captured stderr)
    lines = [line for line in log.getvalue().splitlines() if "dropped" in line]
    assert len(lines) == 1, lines
    assert '"undelivered"' in lines[0] and "did not drain" in lines[0]
