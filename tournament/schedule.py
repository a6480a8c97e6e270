"""Who plays which power in each game of a tournament.

A line-up of exactly seven seats rotates: in game ``g`` seat ``i`` plays power ``(i + g) mod 7``,
so over a multiple of 7 games every seat plays every power equally often.

A pool of any number of seats (``--pool``) is drawn from by a balanced schedule, computed game
by game from the seed alone (so a resumed or distributed run sees the same schedule):

1. the seven seats that have played the fewest games so far take part (ties broken by a
   seeded shuffle), so games per seat never differ by more than one;
2. they get the powers by a minimum-cost assignment (Hungarian method) whose cost is how often
   each seat has already played each power, so every seat's power counts stay level
   (ties again broken by the seeded shuffle).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

SEATS = 7


def rotation(game_index: int, powers: int = SEATS) -> list[int]:
    """For a line-up of seven: the power index of each seat in game ``game_index``."""
    return [(seat + game_index) % powers for seat in range(powers)]


def balanced(members: int, games: int, seed: int, powers: int = SEATS) -> list[list[int]]:
    """For a pool of ``members`` seats: per game, the member playing each power (index by
    power)."""
    if members < powers:
        raise ValueError(f"a pool needs at least {powers} seats")
    rng = random.Random(f"pool:{seed}:{members}")
    played = [0] * members
    by_power = [[0] * powers for _ in range(members)]
    out: list[list[int]] = []
    for _ in range(games):
        jitter = [rng.random() for _ in range(members)]
        chosen = sorted(range(members), key=lambda i: (played[i], jitter[i]))[:powers]
        # Costs: past plays of that power, plus a tiny seeded jitter to break ties.
        cost = [[by_power[m][p] + rng.random() * 1e-3 for p in range(powers)] for m in chosen]
        assignment = hungarian(cost)  # row (chosen member) -> column (power)
        seating = [0] * powers
        for row, power in enumerate(assignment):
            member = chosen[row]
            seating[power] = member
            played[member] += 1
            by_power[member][power] += 1
        out.append(seating)
    return out


def hungarian(cost: Sequence[Sequence[float]]) -> list[int]:
    """The minimum-cost assignment of a square matrix: the column of each row."""
    n = len(cost)
    inf = float("inf")
    u = [0.0] * (n + 1)
    v = [0.0] * (n + 1)
    way = [0] * (n + 1)
    match = [0] * (n + 1)  # column -> row (1-based, 0 = free)
    for row in range(1, n + 1):
        match[0] = row
        col0 = 0
        minv = [inf] * (n + 1)
        used = [False] * (n + 1)
        while True:
            used[col0] = True
            r0 = match[col0]
            delta = inf
            col1 = 0
            for col in range(1, n + 1):
                if not used[col]:
                    cur = cost[r0 - 1][col - 1] - u[r0] - v[col]
                    if cur < minv[col]:
                        minv[col] = cur
                        way[col] = col0
                    if minv[col] < delta:
                        delta = minv[col]
                        col1 = col
            for col in range(n + 1):
                if used[col]:
                    u[match[col]] += delta
                    v[col] -= delta
                else:
                    minv[col] -= delta
            col0 = col1
            if match[col0] == 0:
                break
        while True:
            col1 = way[col0]
            match[col0] = match[col1]
            col0 = col1
            if col0 == 0:
                break
    out = [0] * n
    for col in range(1, n + 1):
        out[match[col] - 1] = col - 1
    return out
