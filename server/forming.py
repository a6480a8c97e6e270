"""Forming open games: who moves where, so that seven players who have accepted the map start a
game at once, whoever else is waiting.

Clients that send NME fill the open games in arrival order, before anyone knows which of them
will accept the map. A client that never does (a stalled or hostile one) would hold its seat
until the join timeout: seven willing players arriving next would split 6 + 1 over two forming
games, and nothing would start; one that reconnects and stalls again would do it again. So
the players are re-packed after every event of a forming game: the earliest game is filled
first, ready players (who accepted the map) move forward into free seats, and a ready player
in a later game trades places with a player in an earlier one who has not accepted the map.
Ready players only ever move forward and the others only back, so this ends, and the
earliest game starts as soon as seven ready players exist anywhere.

This module only decides (a pure function of the games' joiners); ``server.app`` carries the
moves out, each in the game tasks concerned. Requested powers (``'FRA:name'``) are respected:
nobody moves into a game where someone else asked for the same power.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Waiting:
    """A player waiting in a forming game."""

    client: int
    ready: bool  # has accepted the map
    request: str | None  # the power it asked for


@dataclass(frozen=True)
class Reseat:
    """``client`` moves from game ``source`` to game ``target`` (indices, earliest first);
    with ``back`` set, that client of ``target`` moves to ``source`` in exchange."""

    client: int
    source: int
    target: int
    back: int | None = None


def plan(games: Sequence[tuple[int, Sequence[Waiting]]]) -> list[Reseat]:
    """The moves for the open forming games, earliest first, each given as (free seats,
    the players waiting in it)."""
    free = [f for f, _ in games]
    players = [list(ws) for _, ws in games]
    moves: list[Reseat] = []
    for i in range(len(players)):
        for j in reversed(range(i + 1, len(players))):
            for r in [w for w in players[j] if w.ready]:
                move = _place(r, i, j, free, players)
                if move is not None:
                    moves.append(move)
    return moves


def _place(
    r: Waiting, i: int, j: int, free: list[int], players: list[list[Waiting]]
) -> Reseat | None:
    """Bring ready player ``r`` from game ``j`` into the earlier game ``i``, into a free seat or
    in exchange for a player there who has not accepted the map."""
    taken = {w.request for w in players[i]}
    if free[i] > 0 and (r.request is None or r.request not in taken):
        players[j].remove(r)
        players[i].append(r)
        free[i] -= 1
        free[j] += 1
        return Reseat(r.client, j, i)
    there = {w.request for w in players[j] if w is not r}
    for u in players[i]:
        if u.ready:
            continue
        fits_i = r.request is None or r.request not in taken - {u.request}
        fits_j = u.request is None or u.request not in there
        if fits_i and fits_j:
            players[i][players[i].index(u)] = r
            players[j][players[j].index(r)] = u
            return Reseat(r.client, j, i, back=u.client)
    return None


__all__ = ["Reseat", "Waiting", "plan"]
