"""Retreats: a complete search, component by component.

A power's dislodged units that could retreat to a common province interact (two retreats
there bounce and both units are lost); the others do not. Each group of interacting units (a
component) has every combination of its retreats and disbands valued by the evaluator, with
the other components at their choice so far. Other powers' retreats are searched first the
same way, each power alone; ours are then chosen against theirs, since their retreats can
bounce ours.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import product

from diplomat.bots.bordeaux.adapter import EngineView
from diplomat.bots.bordeaux.budget import Budget
from diplomat.bots.bordeaux.constraints import Constraints
from diplomat.bots.bordeaux.evaluate import Evaluator
from diplomat.engine.map import province_of
from diplomat.engine.orders import Disband, Order, Retreat, order_power
from diplomat.engine.state import Unit

MAX_COMBINATIONS = 4096  # per component; beyond it, units are chosen one at a time


def retreat_orders(
    position: EngineView,
    power: str,
    evaluator: Evaluator,
    constraints: Constraints,
    bound: frozenset[str],
    budget: Budget,
) -> list[Order]:
    """Our retreats (and disbands), one per dislodged unit of ``power``."""
    state = position.state
    legal = constraints.filter(position.legal(), bound)
    by_power: dict[str, dict[str, list[Order]]] = {}
    for loc, orders in legal.items():
        if orders:
            by_power.setdefault(order_power(orders[0]), {})[loc] = orders
    fall = state.phase.season == "AUT"
    chosen: dict[str, Order] = {}
    for other in sorted(p for p in by_power if p != power):
        chosen.update(_best_for(state.units, other, by_power[other], {}, evaluator, fall, budget))
    mine = by_power.get(power, {})
    return list(_best_for(state.units, power, mine, chosen, evaluator, fall, budget).values())


def _best_for(
    units: Mapping[str, Unit],
    power: str,
    legal: Mapping[str, Sequence[Order]],
    others: Mapping[str, Order],
    evaluator: Evaluator,
    fall: bool,
    budget: Budget,
) -> dict[str, Order]:
    group = evaluator.group_of.get(power)
    pick: dict[str, Order] = {loc: _disband(opts) for loc, opts in legal.items()}
    if group is None:
        return pick
    for comp in _components(legal):
        options = [legal[loc] for loc in comp]
        size = 1
        for o in options:
            size *= len(o)
        combos = (
            list(product(*options))
            if size <= MAX_COMBINATIONS
            else None  # too many: one unit at a time below
        )
        if combos is None:
            for loc in comp:
                best_v, best_o = float("-inf"), pick[loc]
                for choice in legal[loc]:
                    v = _value(units, {**others, **pick, loc: choice}, evaluator, fall)[group]
                    budget.tick()
                    if v > best_v:
                        best_v, best_o = v, choice
                pick[loc] = best_o
            continue
        best_v, best_c = float("-inf"), None
        for combo in combos:
            trial = {**others, **pick, **dict(zip(comp, combo, strict=True))}
            v = _value(units, trial, evaluator, fall)[group]
            budget.tick()
            if v > best_v:
                best_v, best_c = v, combo
            if budget.late():
                break
        if best_c is not None:
            pick.update(zip(comp, best_c, strict=True))
    return pick


def _value(
    units: Mapping[str, Unit], orders: Mapping[str, Order], evaluator: Evaluator, fall: bool
) -> list[float]:
    """The evaluator's values after these retreats (two retreats to one province both fail)."""
    count: dict[str, int] = {}
    for o in orders.values():
        if isinstance(o, Retreat):
            p = province_of(o.dest)
            count[p] = count.get(p, 0) + 1
    after = dict(units)
    for o in orders.values():
        if isinstance(o, Retreat) and count[province_of(o.dest)] == 1:
            after[province_of(o.dest)] = Unit(o.unit.power, o.unit.type, o.dest)
    return evaluator.values(after, fall=fall)


def _disband(options: Sequence[Order]) -> Order:
    for o in options:
        if isinstance(o, Disband):
            return o
    return options[0]


def _components(legal: Mapping[str, Sequence[Order]]) -> list[list[str]]:
    """Units grouped by shared retreat destinations (union-find over provinces)."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for loc, opts in legal.items():
        for o in opts:
            if isinstance(o, Retreat):
                parent[find("@" + province_of(o.dest))] = find(loc)
        find(loc)
    comps: dict[str, list[str]] = {}
    for loc in sorted(legal):
        comps.setdefault(find(loc), []).append(loc)
    return list(comps.values())
