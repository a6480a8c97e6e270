"""Bad input of every kind gets the right EM/HUH/REJ and never disturbs the server or another
game; slow clients are dropped; players leave and come back."""

from __future__ import annotations

import contextlib
import random
import struct

import trio

from diplomat.engine.map import load_map
from diplomat.protocol import messages
from diplomat.protocol.frames import ErrorCode
from diplomat.server.settings import GameSettings

from .daide_client import PATIENCE, MakeServer, WireClient

IM = bytes.fromhex("000000040001DA10")
RM = bytes.fromhex("01000000")  # the server's answer to an IM (the standard map's: empty)


async def _raw(port: int, data: bytes) -> bytes:
    """Send raw bytes and collect everything the server says until it closes the connection
    (failing if it has not closed it within a loaded machine's patience)."""
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    await stream.send_all(data)
    out = b""
    with trio.fail_after(PATIENCE):
        while True:
            try:
                chunk = await stream.receive_some(65536)
            except trio.BrokenResourceError:
                break
            if not chunk:
                break
            out += chunk
    await stream.aclose()
    return out


def _em(code: int) -> bytes:
    return struct.pack(">BBHH", 4, 0, 2, code)


async def test_protocol_errors_get_the_right_em(make_server: MakeServer) -> None:
    # Errors seen in the bytes themselves, on a server with the spec's IM timeout (30 s): a
    # loaded machine may be slow to read them, but never that slow.
    server = await make_server()
    port = server.address[1]
    rm = RM
    cases = [
        (bytes.fromhex("000000040001DA11"), _em(ErrorCode.BAD_MAGIC)),
        (bytes.fromhex("00000004000110DA"), _em(ErrorCode.WRONG_ENDIAN)),
        (bytes.fromhex("000000040002DA10"), _em(ErrorCode.VERSION_MISMATCH)),
        (bytes.fromhex("000000020001"), _em(ErrorCode.SHORT_MESSAGE)),
        (bytes.fromhex("02000002480C"), _em(ErrorCode.IM_NOT_FIRST)),
        (IM + IM, rm + _em(ErrorCode.DUPLICATE_IM)),
        (IM + bytes.fromhex("09000000"), rm + _em(ErrorCode.UNKNOWN_TYPE)),
        (IM + bytes.fromhex("020000034800FF"), rm + _em(ErrorCode.SHORT_MESSAGE)),
        (IM + bytes.fromhex("01000000"), rm + _em(ErrorCode.RM_FROM_CLIENT)),
        (IM + bytes.fromhex("020000025800"), rm + _em(ErrorCode.INVALID_TOKEN)),
    ]
    for data, expected in cases:
        assert await _raw(port, data) == expected, data.hex()
    # An FM closes silently.
    assert await _raw(port, IM + bytes.fromhex("03000000")) == rm
    # Errors that only the IM timeout reveals (short here: it is what is tested; the test waits
    # for its consequence, the EM and the close, as long as need be).
    timed = await make_server(im_timeout=1.0)
    port = timed.address[1]
    # A header cut short, then silence (however late the byte arrives: if it comes after the
    # timer has run out, the answer is the same).
    assert await _raw(port, b"\x00") == _em(ErrorCode.IM_TIMEOUT)
    # A message cut short after the handshake: sent only once the RM shows that the IM was
    # read, so the timer that runs out is the one for the unfinished message.
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    await stream.send_all(IM)
    out = b""
    with trio.fail_after(PATIENCE):
        while len(out) < len(rm):
            chunk = await stream.receive_some(65536)
            assert chunk, out
            out += chunk
    assert out == rm
    await stream.send_all(bytes.fromhex("0200"))
    out = b""
    with trio.fail_after(PATIENCE):
        while chunk := await stream.receive_some(65536):
            out += chunk
    await stream.aclose()
    assert out == _em(ErrorCode.SHORT_MESSAGE)


async def test_language_errors_get_huh_and_the_connection_stays(make_server: MakeServer) -> None:
    server = await make_server()
    c = await WireClient.connect(server.address[1])
    await c.send_raw(bytes.fromhex("0200000448034000"))  # "GOF (": unbalanced
    ev = await c.event()
    assert isinstance(ev, messages.Prn)
    await c.send_raw(bytes.fromhex("0200000248 1C".replace(" ", "")))  # bare YES
    ev = await c.event()
    assert isinstance(ev, messages.Huh) and ev.tokens[-1] == "ERR"
    await c.send(messages.Obs())
    assert await c.event() == messages.Yes(messages.Obs())
    assert await c.event() == messages.Map("standard")
    await c.send("DRW")  # observers may not vote
    ev = await c.event()
    assert isinstance(ev, messages.Huh) and ev.tokens[0] == "ERR"


async def test_orders_for_another_power_are_refused(make_server: MakeServer) -> None:
    server = await make_server()
    port = server.address[1]
    clients = [await WireClient.connect(port) for _ in range(7)]
    for i, c in enumerate(clients):
        await c.join(f"p{i}")
    hlos = [await c.expect(messages.Hlo) for c in clients]
    eng = clients[[h.power for h in hlos].index("ENG")]
    await eng.send("SUB ((FRA AMY PAR) MTO BUR) ((ENG FLT LON) MTO NTH) ((ENG AMY LVP) MTO BUR)")
    thx = [await eng.expect(messages.Thx) for _ in range(3)]
    assert [t.note.value for t in thx] == ["NYU", "MBV", "FAR"]
    mis = await eng.expect(messages.Mis)
    assert {str(u) for u in mis.units} == {"F EDI", "A LVP"}
    # Wrong passcodes: refused, and after three guesses even the right one is.
    passcode = hlos[0].passcode
    other = await WireClient.connect(port)
    for guess in (1, 2, 3):
        await other.send(messages.Iam(hlos[0].power, passcode + guess))
        assert isinstance(await other.event(), messages.Rej)
    await other.send(messages.Iam(hlos[0].power, passcode))
    assert isinstance(await other.event(), messages.Rej)  # the power is still connected anyway


async def test_leaving_and_coming_back(make_server: MakeServer) -> None:
    server = await make_server(GameSettings(max_year=1901, move_time=600, map="standard"))
    port = server.address[1]
    clients = [await WireClient.connect(port, text=True) for _ in range(7)]
    for i, c in enumerate(clients):
        await c.join(f"p{i}")
    hlos = [await c.expect(messages.Hlo) for c in clients]
    for c in clients:
        assert await c.expect(messages.Tme) == messages.Tme(600)
    gone, hlo = clients[2], hlos[2]
    await gone.aclose()
    for c in clients[3:5]:
        assert await c.expect(messages.Ccd) == messages.Ccd(hlo.power)
    back = await WireClient.connect(port)
    await back.send(messages.Iam(hlo.power, hlo.passcode))
    assert await back.event() == messages.Yes(messages.Iam(hlo.power, hlo.passcode))
    assert await clients[3].expect(messages.Not) == messages.Not(messages.Ccd(hlo.power))
    await back.send("TME")
    tme = await back.expect(messages.Tme)
    assert 0 < (tme.seconds or 0) <= 600
    # The game goes on: everybody holds, and the phase is processed.
    for c, h in [(back, hlo)] + [
        (c, h) for c, h in zip(clients, hlos, strict=True) if c is not gone
    ]:
        await c.send(f"SUB {' '.join(f'(({h.power} {u}) HLD)' for u in _units(h.power))}")
    now = await back.expect(messages.Now)
    while now.turn.name != "F1901M":
        now = await back.expect(messages.Now)


def _units(power: str) -> list[str]:
    from diplomat.engine.state import Unit, initial_state

    def loc(u: Unit) -> str:
        return u.loc if "/" not in u.loc else "(" + u.loc.replace("/", " ") + "S)"

    return [
        f"{'AMY' if u.type == 'A' else 'FLT'} {loc(u)}"
        for u in initial_state(load_map("standard")).units_of(power)
    ]


async def test_slow_reader_is_dropped_and_the_game_goes_on(make_server: MakeServer) -> None:
    # Its requests are no longer read while its replies back up; after the drain timeout
    # (the IM timeout, short here) it is dropped.
    server = await make_server(send_queue=16, im_timeout=1.0)
    port = server.address[1]
    slow = await WireClient.connect(port)
    await slow.join("slow")
    # Ask for the map definition again and again without reading a byte.
    mdf = slow.conn.send(messages.Mdf())
    with trio.fail_after(PATIENCE):
        try:
            for _ in range(20000):
                await slow.send_raw(mdf)
        except trio.BrokenResourceError:
            pass  # the server closed the connection on us
    # The server dropped the client that does not read (it says so to no one: the test looks
    # at its list of clients until it is empty).
    with trio.fail_after(PATIENCE):
        while server.clients:
            await trio.sleep(0.05)
    # Another client is served normally.
    other = await WireClient.connect(port)
    await other.send(messages.Map())
    assert await other.event() == messages.Map("standard")


FUZZ_INPUTS = 600


async def test_fuzzed_input_never_hurts_the_server(make_server: MakeServer) -> None:
    """Hundreds of random byte strings, after a valid IM (binary) or as text lines, sent by
    concurrent clients while a game is forming: the server answers or closes each, and keeps
    serving everyone else. Inputs are seeded: a failure names the seed and input."""
    server = await make_server(im_timeout=0.3)
    port = server.address[1]
    rng = random.Random(20261122)
    watcher = await WireClient.connect(port)
    await watcher.join("watcher")

    inputs = []
    for _ in range(FUZZ_INPUTS):
        size = rng.choice([1, 2, 4, 7, 16, 64, 300])
        junk = rng.randbytes(size)
        if rng.random() < 0.3:  # well-framed DMs of random tokens get past the framing
            junk = struct.pack(">BBH", 2, 0, size * 2) + rng.randbytes(size * 2)
        inputs.append(IM + junk if rng.random() < 0.6 else junk)

    async def one(data: bytes) -> None:
        """Send ``data`` and wait, as long as need be, for the server's verdict: an answer
        (more than the RM the IM gets), or the connection closed (an EM, an unfinished frame
        or line timed out)."""
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        handshake = len(RM) if data.startswith(IM) else 0
        out = b""
        with trio.move_on_after(PATIENCE) as waited:
            with contextlib.suppress(trio.BrokenResourceError):
                await stream.send_all(data)
                while len(out) <= handshake:
                    chunk = await stream.receive_some(65536)
                    if not chunk:
                        break
                    out += chunk
        await stream.aclose()
        assert not waited.cancelled_caught, f"no answer, no close: seed 20261122, {data.hex()}"

    for start in range(0, FUZZ_INPUTS, 50):
        async with trio.open_nursery() as n:
            for data in inputs[start : start + 50]:
                n.start_soon(one, data)
    c = await WireClient.connect(port)
    await c.send(messages.Map())
    assert await c.event() == messages.Map("standard")
    await watcher.send(messages.Map())
    assert await watcher.expect(messages.Map) == messages.Map("standard")
