"""Nobody takes over a power by guessing its passcode: guesses are limited per power and per
peer address with a lockout that doubles, simulated here over ten minutes with an injected
clock, while the rightful player, who knows the passcode, gets back in at once."""

from __future__ import annotations

from typing import Any

import trio

from protocol import messages as m
from server.seating import MAX_PASSCODE

from .daide_client import WireClient


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def _game(port: int) -> tuple[list[WireClient], list[m.Hlo]]:
    players = [await WireClient.connect(port) for _ in range(7)]
    for i, c in enumerate(players):
        await c.join(f"p{i}")
    return players, [await c.expect(m.Hlo) for c in players]


async def test_passcodes_are_not_from_the_seed(make_server: Any) -> None:
    """Two servers with the same seed deal the same powers but not the same passcodes."""
    codes = []
    for _ in range(2):
        server = await make_server()
        _, hlos = await _game(server.address[1])
        codes.append({h.power: h.passcode or 0 for h in hlos})
    assert codes[0] != codes[1]
    assert all(1 <= c <= MAX_PASSCODE for c in codes[0].values())


async def test_brute_force_from_many_connections_fails_and_the_owner_gets_in(
    make_server: Any,
) -> None:
    clock = FakeClock()
    server = await make_server(clock=clock)
    port = server.address[1]
    players, hlos = await _game(port)
    power, passcode = hlos[0].power or "", hlos[0].passcode or 0
    await players[0].aclose()  # its power is in civil disorder, waiting for its player
    await players[1].expect(m.Ccd)
    # Ten simulated minutes of guessing, four guesses a (simulated) second, three per fresh
    # connection as an attacker would; the right passcode comes last of all.
    guesses = [g for g in range(1, MAX_PASSCODE + 1) if g != passcode]
    guesses.append(passcode)
    step = 0.25
    attempts = int(600 / step)
    found = False
    conn: WireClient | None = None
    for i in range(attempts):
        if i % 3 == 0:
            if conn is not None:
                await conn.aclose()
            conn = await WireClient.connect(port)
        assert conn is not None
        guess = guesses[i] if i < attempts - 1 else passcode
        await conn.send(m.Iam(power, guess))
        answer = await conn.event()
        if answer == m.Yes(m.Iam(power, guess)):
            found = True
            break
        assert isinstance(answer, m.Rej), answer
        clock.now += step
    assert not found
    # The guard compared only a handful of the 2,400 guesses with the passcode.
    assert server.guard.checked < 20
    # The rightful player, from an address with no wrong guess, gets back in at once.
    stream = await trio.open_tcp_stream("127.0.0.1", port, local_address="127.0.0.2")
    owner = WireClient(stream, text=False)
    await stream.send_all(owner.conn.start())  # type: ignore[union-attr]
    await owner.send(m.Iam(power, passcode))
    assert await owner.expect(m.Yes) == m.Yes(m.Iam(power, passcode))
    assert await players[1].expect(m.Not) == m.Not(m.Ccd(power))
