"""The re-packing of forming games (pure): ready players move forward, into free seats or in
exchange for players who have not accepted the map; requested powers are respected."""

from __future__ import annotations

from diplomat.server.forming import Reseat, Waiting, plan


def _w(client: int, ready: bool = True, request: str | None = None) -> Waiting:
    return Waiting(client, ready, request)


def test_a_staller_trades_places_with_a_ready_player_of_a_later_game() -> None:
    first = [_w(0, ready=False), *(_w(i) for i in range(1, 7))]
    assert plan([(0, first), (6, [_w(7)])]) == [Reseat(7, 1, 0, back=0)]


def test_ready_players_fill_free_seats_first() -> None:
    assert plan([(2, [_w(1)] * 5), (5, [_w(8), _w(9, ready=False)])]) == [Reseat(8, 1, 0)]


def test_nothing_moves_between_games_of_ready_players_or_backwards() -> None:
    assert plan([(0, [_w(i) for i in range(7)]), (6, [_w(7)])]) == []
    assert plan([(6, [_w(1, ready=False)]), (6, [_w(2, ready=False)])]) == []


def test_requested_powers_are_respected() -> None:
    first = [_w(0, ready=False), _w(1, request="FRA"), *(_w(i) for i in range(2, 7))]
    # FRA is taken in the first game: the ready FRA player of the second stays ...
    assert plan([(0, first), (5, [_w(7, request="FRA"), _w(8)])]) == [Reseat(8, 1, 0, back=0)]
    # ... unless the one it would replace is the one who asked for FRA.
    first = [_w(0, ready=False, request="FRA"), *(_w(i) for i in range(1, 7))]
    assert plan([(0, first), (6, [_w(7, request="FRA")])]) == [Reseat(7, 1, 0, back=0)]
