"""Nobody takes over a power by guessing its passcode, from however many addresses: the
address a power was played from is trusted for it (its player gets back in at once, even
during an attack), every other address shares one budget of guesses per power with a lockout
capped at 30 minutes (a day of guessing gets 60 checked guesses: 0.73 % of the passcodes), and
a wrong-guessing client on the player's own address delays the player by 5 minutes at most
once it stops. The game's clock is trio's, a MockClock that the tests move on by hours."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import trio
from trio.testing import MockClock

from diplomat.protocol import messages
from diplomat.server.app import Server
from diplomat.server.guard import PasscodeGuard, chance_to_find, most_checked, peer_key
from diplomat.server.seating import MAX_PASSCODE
from diplomat.server.settings import (
    IAM_FREE_GUESSES,
    IAM_LOCKOUT_CAP,
    IAM_TRUSTED_CAP,
    GameSettings,
)
from diplomat.server.store import Store

from .daide_client import MakeServer, WireClient

DAY = 24 * 3600.0


async def _game(port: int) -> tuple[list[WireClient], list[messages.Hlo]]:
    players = [await WireClient.connect(port) for _ in range(7)]
    for i, c in enumerate(players):
        await c.join(f"p{i}")
    return players, [await c.expect(messages.Hlo) for c in players]


async def _from(port: int, address: str) -> WireClient:
    """A binary client whose connection comes from ``address`` (any 127.x.y.z: Linux routes
    all of 127.0.0.0/8 to the loopback interface)."""
    return await WireClient.connect(port, local_address=address)


async def _guess(port: int, address: str, power: str, passcode: int) -> Any:
    """One IAM from a fresh connection from ``address``: the answer (YES or REJ)."""
    client = await _from(port, address)
    await client.send(messages.Iam(power, passcode))
    answer = await client.event()
    await client.aclose()
    return answer


def _addresses() -> Any:
    for b in range(10, 250):
        for c in range(1, 250):
            yield f"127.{b}.{c}.1"


async def test_passcodes_are_not_from_the_seed(make_server: MakeServer) -> None:
    """Two servers with the same seed deal the same powers but not the same passcodes."""
    codes = []
    for _ in range(2):
        server = await make_server()
        _, hlos = await _game(server.address[1])
        codes.append({h.power: h.passcode or 0 for h in hlos})
    assert codes[0] != codes[1]
    assert all(1 <= c <= MAX_PASSCODE for c in codes[0].values())


def test_a_day_of_guessing_finds_a_passcode_with_under_one_percent() -> None:
    """The bound, from the constants, and the guard held to it: an attacker with a fresh
    address for every guess, guessing at every moment the guard would check one, for 24
    hours."""
    assert most_checked(DAY) == 60
    assert chance_to_find(DAY) <= 0.01
    now = [0.0]
    guard = PasscodeGuard(clock=lambda: now[0])
    guard.trust(1, "FRA", "10.0.0.1:5000")  # where FRA was played from
    addresses = (f"11.{i // 65536}.{i // 256 % 256}.{i % 256}:4000" for i in range(10**7))
    checked = 0
    while now[0] <= DAY:
        for _ in range(50):  # many addresses at each moment: one guess is checked at most
            peer = next(addresses)
            if guard.may_try(1, "FRA", peer):
                checked += 1
                guard.failed([1], "FRA", peer)
        now[0] = max(now[0] + 1, guard.locked_until(1, "FRA"))
    assert checked == most_checked(DAY)
    assert guard.may_try(1, "FRA", "10.0.0.1:5001")  # its player's address: at once


def test_addresses_are_counted_by_host_and_ipv6_by_its_64() -> None:
    assert peer_key("10.1.2.3:4000") == "10.1.2.3"
    assert peer_key("2001:db8:1:2:3:4:5:6:80") == peer_key("2001:db8:1:2::9:81")
    assert peer_key("2001:db8:1:2:3:4:5:6:80") == "2001:db8:1:2::/64"
    assert peer_key("2001:db8:1:2::/64") == "2001:db8:1:2::/64"  # (as stored)
    assert peer_key("::ffff:10.1.2.3:4000") == "10.1.2.3"  # IPv4 on a dual-stack listener


async def test_guessing_from_many_addresses_for_a_day(
    make_server: MakeServer, mock_clock: MockClock
) -> None:
    """Hundreds of loopback addresses guess a disconnected power's passcode, one guess
    each, while the clock stands; then for a simulated day, at every moment the server would
    check a guess. Meanwhile its player, from the address it played from, gets back in at
    once."""
    server = await make_server()
    port = server.address[1]
    players, hlos = await _game(port)
    power, passcode = hlos[0].power or "", hlos[0].passcode or 0
    await players[0].aclose()  # its power is in civil disorder, waiting for its player
    await players[1].expect(messages.Ccd)
    game = next(r.id for r in server.games.values() if r.status().started)
    wrong = (g for g in range(1, MAX_PASSCODE + 1) if g != passcode)
    addresses = _addresses()
    before = server.guard.checked
    for _ in range(300):
        assert isinstance(await _guess(port, next(addresses), power, next(wrong)), messages.Rej)
    assert server.guard.checked - before == IAM_FREE_GUESSES  # the rest were not checked
    # Its player comes back from its own address during the attack: in at once.
    owner = await WireClient.connect(port)
    await owner.send(messages.Iam(power, passcode))
    assert await owner.event() == messages.Yes(messages.Iam(power, passcode))
    assert await players[1].expect(messages.Not) == messages.Not(messages.Ccd(power))
    await owner.aclose()
    await players[1].expect(messages.Ccd)
    # A day of guessing from fresh addresses, each time the lockout ends.
    start = trio.current_time()
    checked = IAM_FREE_GUESSES
    while True:
        unlocked = server.guard.locked_until(game, power)
        if unlocked > trio.current_time():
            mock_clock.jump(unlocked - trio.current_time())
        if trio.current_time() - start > DAY - 1:
            break
        first = server.guard.checked
        for _ in range(3):  # a few at that moment, from different addresses
            assert isinstance(await _guess(port, next(addresses), power, next(wrong)), messages.Rej)
        checked += server.guard.checked - first
        assert server.guard.checked - first == 1  # one of them was checked
    assert most_checked(DAY) - 2 <= checked <= most_checked(DAY)
    assert checked / MAX_PASSCODE <= 0.01
    # The lockout never runs longer than its cap.
    assert server.guard.locked_until(game, power) - trio.current_time() <= IAM_LOCKOUT_CAP
    owner = await WireClient.connect(port)
    await owner.send(messages.Iam(power, passcode))
    assert await owner.event() == messages.Yes(messages.Iam(power, passcode))


async def test_a_wrong_guesser_on_the_players_address_delays_it_minutes_at_most(
    make_server: MakeServer, mock_clock: MockClock
) -> None:
    """A client on the player's own address guesses wrong for six hours, every time the
    guard lets it; once it stops, its player is refused for IAM_TRUSTED_CAP seconds at most,
    not the years an uncapped doubling would cost, and then gets in."""
    server = await make_server()
    port = server.address[1]
    players, hlos = await _game(port)
    power, passcode = hlos[0].power or "", hlos[0].passcode or 0
    await players[0].aclose()
    await players[1].expect(messages.Ccd)
    game = next(r.id for r in server.games.values() if r.status().started)
    wrong = (g for g in range(1, MAX_PASSCODE + 1) if g != passcode)
    start = trio.current_time()
    guesses = 0
    while trio.current_time() - start < 6 * 3600:
        assert isinstance(await _guess(port, "127.0.0.1", power, next(wrong)), messages.Rej)
        guesses += 1
        mock_clock.jump(server.guard.locked_until(game, power, "127.0.0.1") - trio.current_time())
    assert guesses > 6 * 3600 / IAM_TRUSTED_CAP
    # Its last guess was checked and wrong: the lockout runs, and the player waits ...
    assert isinstance(await _guess(port, "127.0.0.1", power, next(wrong)), messages.Rej)
    assert isinstance(await _guess(port, "127.0.0.1", power, passcode), messages.Rej)
    mock_clock.jump(IAM_TRUSTED_CAP)  # ... IAM_TRUSTED_CAP at most: then it is in.
    owner = await WireClient.connect(port)
    await owner.send(messages.Iam(power, passcode))
    assert await owner.event() == messages.Yes(messages.Iam(power, passcode))


async def test_the_trusted_addresses_survive_a_restart(
    tmp_path: Path, mock_clock: MockClock
) -> None:
    """The server stops mid-game and starts again on its database: during an attack from
    many addresses, the players, from the address they played from, are back in at once."""
    store = Store(tmp_path / "game.sqlite")
    try:
        async with trio.open_nursery() as nursery:
            first = Server(store, GameSettings(max_year=1901, map="standard"), port=0, seed=7)
            await nursery.start(first.run)
            _, hlos = await _game(first.address[1])
            nursery.cancel_scope.cancel()
        async with trio.open_nursery() as nursery:
            second = Server(store, GameSettings(max_year=1901, map="standard"), port=0, seed=7)
            await nursery.start(second.run)
            port = second.address[1]
            power, passcode = hlos[0].power or "", hlos[0].passcode or 0
            addresses = _addresses()
            for guess in range(1, 301):
                if guess != passcode:
                    assert isinstance(
                        await _guess(port, next(addresses), power, guess), messages.Rej
                    )
            assert second.guard.locked_until(min(second.games), power) > trio.current_time()
            owner = await WireClient.connect(port)
            await owner.send(messages.Iam(power, passcode))
            assert await owner.event() == messages.Yes(messages.Iam(power, passcode))
            nursery.cancel_scope.cancel()
    finally:
        store.close()
