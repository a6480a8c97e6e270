"""Games of random legal orders: the engine's own workload for demos, property tests and
benchmarks. Randomness comes only from the caller: the ``random.Random`` it passes to
:func:`random_orders`, or the seed it gives :func:`random_game`."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

from diplomat.engine.legal import WAIVE_KEY, legal_orders
from diplomat.engine.orders import Order, Remove, order_power
from diplomat.engine.state import GameState
from diplomat.engine.turn import PhaseResult, process


def random_orders(state: GameState, rng: random.Random) -> dict[str, list[Order]]:
    """One uniformly random legal order per unit (movement, retreats); in adjustments, random
    builds on free sites up to the allowance and random removals as required."""
    out: dict[str, list[Order]] = {p: [] for p in state.map.powers}
    options = legal_orders(state)
    if state.phase.kind != "adjustment":
        for orders in options.values():
            o = rng.choice(orders)
            out[order_power(o)].append(o)
        return out
    for power, need in state.adjustments().items():
        if need > 0:
            sites = [v for k, v in options.items() if k != WAIVE_KEY and order_power(v[0]) == power]
            rng.shuffle(sites)
            out[power].extend(rng.choice(s) for s in sites[:need])
        elif need < 0:
            removable = [
                v[0]
                for v in options.values()
                if isinstance(v[0], Remove) and v[0].unit.power == power
            ]
            out[power].extend(rng.sample(removable, min(-need, len(removable))))
    return out


@dataclass(frozen=True, slots=True)
class Step:
    state: GameState  # the state the orders were given in
    orders: dict[str, list[Order]]
    result: PhaseResult


def random_game(state: GameState, seed: int, max_year: int) -> Iterator[Step]:
    """Play random legal orders from ``state`` until a power wins or ``max_year`` ends."""
    rng = random.Random(seed)
    while state.phase.year <= max_year and state.winner() is None:
        orders = random_orders(state, rng)
        result = process(state, orders)
        yield Step(state, orders, result)
        state = result.state
