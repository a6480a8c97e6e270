"""Full games on a real server over TCP: the DAIDE flow of spec §3.12, binary and text."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import trio

from diplomat.engine.orders import Disband, Hold, Order, Remove, Waive
from diplomat.engine.state import Unit
from diplomat.protocol import messages
from diplomat.protocol.connection import Closed
from diplomat.server.settings import GameSettings

from .daide_client import PATIENCE, MakeServer, WireClient


async def play_holds(
    client: WireClient,
    log: list[Any],
    script: Mapping[tuple[str, str], tuple[Order, ...]] | None = None,
) -> None:
    """A HoldBot: hold, disband, waive or remove the first units; record everything. In the
    phases ``script`` names for its power, its orders are the script's instead."""
    power = None
    centres: dict[str, str] = {}
    while True:
        ev = await client.event()
        log.append(ev)
        if isinstance(ev, Closed):
            return
        if isinstance(ev, messages.Hlo):
            power = ev.power
        elif isinstance(ev, messages.Sco) and ev.owners:
            centres = ev.centres()
        elif isinstance(ev, messages.Now) and ev.turn is not None:
            mine = [
                u for u in ev.units if (u.power if isinstance(u, Unit) else u.unit.power) == power
            ]
            kind = ev.turn.kind
            if kind == "movement":
                orders: tuple[Any, ...] = tuple(Hold(u) for u in mine if isinstance(u, Unit))
            elif kind == "retreat":
                orders = tuple(Disband(d.unit) for d in mine if not isinstance(d, Unit))
            else:
                units = [u for u in mine if isinstance(u, Unit)]
                n = sum(1 for p in centres.values() if p == power) - len(units)
                orders = (
                    tuple(Remove(u) for u in units[:-n])
                    if n < 0
                    else tuple(Waive(power) for _ in range(n) if power is not None)
                )
            if script and power is not None and (power, ev.turn.name) in script:
                orders = script[power, ev.turn.name]
            if orders:
                await client.send(messages.Sub(orders))


async def test_seven_clients_play_to_the_year_limit(make_server: MakeServer) -> None:
    server = await make_server(GameSettings(max_year=1902, map="standard"))
    port = server.address[1]
    clients = [await WireClient.connect(port, text=(i % 2 == 1)) for i in range(7)]
    for i, c in enumerate(clients):
        await c.join(f"bot{i}")
    logs: list[list[Any]] = [[] for _ in clients]
    async with trio.open_nursery() as n:
        for c, log in zip(clients, logs, strict=True):
            n.start_soon(play_holds, c, log)
    for log in logs:
        kinds = [type(e).__name__ for e in log]
        assert kinds[0] == "Hlo"
        assert kinds[1:3] == ["Sco", "Now"]
        # Year limit: a draw, then the summary, OFF and the end of the connection.
        assert kinds[-5:] == ["Drw", "Now", "Smr", "Off", "Closed"]
        smr = log[-3]
        assert {e.power for e in smr.entries} == {"AUS", "ENG", "FRA", "GER", "ITA", "RUS", "TUR"}
        assert all(e.name.startswith("bot") for e in smr.entries)
        ords = [e for e in log if isinstance(e, messages.Ord)]
        # every unit, to everyone
        assert len([o for o in ords if o.turn is not None and o.turn.name == "S1901M"]) == 22
    rows = server.store.games()
    assert rows[0].status == "finished"
    assert rows[0].result is not None and rows[0].result["reason"] == "year limit"
    assert [p for p, _ in server.store.states(rows[0].id)] == [
        "S1901M",
        "F1901M",
        "S1902M",
        "F1902M",
        "S1903M",
    ]


async def test_handshake_and_requests_before_joining(make_server: MakeServer) -> None:
    server = await make_server()
    c = await WireClient.connect(server.address[1])
    await c.send(messages.Map())
    assert await c.event() == messages.Map("standard")
    await c.send(messages.Mdf())
    mdf = await c.event()
    assert isinstance(mdf, messages.Mdf) and mdf.definition is not None
    await c.send("HLO")
    assert await c.event() == messages.Rej(messages.Hlo())
    await c.send("SUB ((ENG FLT LON) HLD)")
    assert isinstance(await c.event(), messages.Rej)
    await c.send(messages.Nme("late", "1"))
    assert await c.event() == messages.Yes(messages.Nme("late", "1"))
    assert await c.event() == messages.Map("standard")


async def test_text_form_session_like_nc(make_server: MakeServer) -> None:
    """A person typing DAIDE text: tolerant input, canonical output, HUH with ERR."""
    server = await make_server()
    stream = await trio.open_tcp_stream("127.0.0.1", server.address[1])
    buf = bytearray()

    async def line() -> bytes:
        """The server's next line (waiting for it as long as a loaded machine may need)."""
        with trio.fail_after(PATIENCE):
            while b"\n" not in buf:
                chunk = await stream.receive_some(4096)
                assert chunk, f"closed; unfinished: {bytes(buf)!r}"
                buf.extend(chunk)
        end = buf.index(b"\n") + 1
        got = bytes(buf[:end])
        del buf[:end]
        return got.rstrip(b"\r\n")

    await stream.send_all(b"nme('me')('v1')\n")
    assert [await line(), await line()] == [
        b"YES ( NME ( 'me' ) ( 'v1' ) )",
        b"MAP ( 'standard' )",
    ]
    await stream.send_all(b"NME ( 'x'\n")
    got = await line()
    assert got.startswith(b"PRN") or got.startswith(b"HUH")
    await stream.send_all(b"FOO BAR\n")
    assert b"ERR" in await line()
    await stream.aclose()
