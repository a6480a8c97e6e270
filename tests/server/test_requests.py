"""Requests a client may make during a game: HST, ORD, MIS, NOT (SUB), TME, and DSD."""

from __future__ import annotations

import trio
from trio.testing import MockClock

from diplomat.protocol import messages
from diplomat.server.app import Server
from diplomat.server.settings import GameSettings
from tests.server.masters import master_of

from .daide_client import MakeServer, WireClient
from .test_reliability import _units

Players = dict[str, tuple[WireClient, messages.Hlo]]


async def _seven(server: Server, text: bool = True) -> Players:
    clients = [await WireClient.connect(server.address[1], text=text) for _ in range(7)]
    for i, c in enumerate(clients):
        await c.join(f"p{i}")
    hlos = [await c.expect(messages.Hlo) for c in clients]
    return {str(h.power): (c, h) for h, c in zip(hlos, clients, strict=True)}


async def _hold_all(players: Players) -> None:
    for power, (c, _) in players.items():
        await c.send(f"SUB {' '.join(f'(({power} {u}) HLD)' for u in _units(power))}")


async def test_history_and_orders_requests(make_server: MakeServer) -> None:
    server = await make_server(GameSettings(max_year=1902, map="standard"))
    players = await _seven(server)
    eng = players["ENG"][0]
    await eng.send("ORD")
    assert await eng.expect(messages.Rej) == messages.Rej(messages.Ord())  # nothing processed yet
    await eng.send("HST (SPR 1901)")
    assert isinstance(await eng.expect(messages.Rej), messages.Rej)
    await _hold_all(players)
    while (await eng.expect(messages.Now)).turn.name != "F1901M":
        pass
    await eng.send("HST (SPR 1901)")
    ords = [await eng.expect(messages.Ord) for _ in range(22)]
    assert {o.turn.name for o in ords} == {"S1901M"}
    assert isinstance(await eng.event(), messages.Sco)
    now = await eng.event()
    assert isinstance(now, messages.Now) and now.turn is not None and now.turn.name == "F1901M"
    await eng.send("ORD")
    assert len([await eng.expect(messages.Ord) for _ in range(22)]) == 22


async def test_withdrawing_orders_and_missing(make_server: MakeServer) -> None:
    server = await make_server(GameSettings(max_year=1901, map="standard"))
    players = await _seven(server)
    fra = players["FRA"][0]
    await fra.send("SUB ((FRA AMY PAR) MTO BUR) ((FRA AMY MAR) HLD)")
    await fra.expect(messages.Thx)
    await fra.expect(messages.Thx)
    assert {str(u) for u in (await fra.expect(messages.Mis)).units} == {"F BRE"}
    await fra.send("NOT (SUB ((FRA AMY PAR) MTO BUR))")
    assert isinstance(await fra.expect(messages.Yes), messages.Yes)
    await fra.send("MIS")
    assert {str(u) for u in (await fra.expect(messages.Mis)).units} == {"F BRE", "A PAR"}
    await fra.send("NOT (SUB ((FRA AMY PAR) MTO PIC))")  # not an order it gave
    assert isinstance(await fra.expect(messages.Rej), messages.Rej)
    await fra.send("NOT (SUB)")
    assert await fra.expect(messages.Yes) == messages.Yes(messages.Not(messages.Sub()))
    await fra.send("MIS")
    assert len((await fra.expect(messages.Mis)).units) == 3
    await fra.send("SUB (FAL 1901) ((FRA AMY PAR) HLD)")  # the wrong turn
    assert isinstance(await fra.expect(messages.Rej), messages.Rej)


async def test_time_notices_and_dsd(make_server: MakeServer, mock_clock: MockClock) -> None:
    """TME notices and DSD. The game's clock is trio's: a MockClock running at the real rate,
    which the test moves on to each moment it checks (2 s before the deadline, far past it),
    so the deadline can be long and a loaded machine never reaches it before the test is
    ready, and a stopped clock is shown stopped without waiting for anything."""
    mock_clock.rate = 1.0
    server = await make_server(GameSettings(max_year=1901, move_time=600, dsd=True, map="standard"))
    players = await _seven(server)
    (runner,) = [r for r in server.games.values() if r.status().started]
    clock = master_of(runner).clock
    eng = players["ENG"][0]
    assert await eng.expect(messages.Tme) == messages.Tme(600)
    await eng.send("TME (300)")
    assert await eng.expect(messages.Yes) == messages.Yes(messages.Tme(300))
    await eng.send("TME (8000)")  # longer than any deadline
    assert isinstance(await eng.expect(messages.Rej), messages.Rej)
    await eng.send("TME")  # the time left: no notice came before it
    assert ((await eng.expect(messages.Tme)).seconds or 0) > 300
    assert clock.deadline is not None
    mock_clock.jump(clock.deadline - 300 - trio.current_time())
    assert await eng.expect(messages.Tme) == messages.Tme(300)  # the notice at 300 s left
    # DSD: a player who owes orders leaves, and the clock stops.
    gone, hlo = players["TUR"]
    await gone.aclose()
    assert await eng.expect(messages.Ccd) == messages.Ccd("TUR")
    stopped = await eng.expect(messages.Not)
    assert isinstance(stopped.inner, messages.Tme)
    assert clock.deadline is None and master_of(runner).next_wakeup() is None
    mock_clock.jump(3600)  # an hour past the deadline: nothing is processed
    await eng.send("NOW")  # (the game handles this after anything the jump made due)
    assert (await eng.expect(messages.Now)).turn.name == "S1901M"
    assert server.store.states(server.store.games()[0].id)[-1][0] == "S1901M"
    back = await WireClient.connect(server.address[1], text=True)
    await back.send(messages.Iam("TUR", hlo.passcode))
    await back.expect(messages.Yes)
    assert await eng.expect(messages.Not) == messages.Not(messages.Ccd("TUR"))
    resumed = await eng.expect(messages.Tme)  # the clock runs again, from where it stopped
    assert 0 < (resumed.seconds or 0) <= 300
    assert clock.deadline is not None
    mock_clock.jump(clock.deadline - trio.current_time())  # the deadline: processed
    now = await eng.expect(messages.Now)
    assert now.turn.name == "F1901M"


async def test_player_only_messages_from_a_non_player_get_huh(make_server: MakeServer) -> None:
    """SUB, GOF, MIS, DRW ... from a client that plays no power in a game under way (one
    waiting in a forming game, an observer) get HUH with ERR in front, as the AiServer
    answers; from a client in no game at all, REJ."""
    server = await make_server()
    joiner = await WireClient.connect(server.address[1], text=True)
    await joiner.join("waiting")
    for text in ("SUB ((FRA AMY PAR) HLD)", "GOF", "MIS", "DRW", "NOT (GOF)"):
        await joiner.send(text)
        huh = await joiner.expect(messages.Huh)
        assert huh.tokens[0] == "ERR", text
    nobody = await WireClient.connect(server.address[1], text=True)
    await nobody.send("GOF")
    assert await nobody.expect(messages.Rej) == messages.Rej(messages.Gof())
