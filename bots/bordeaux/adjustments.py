"""Adjustments: a preliminary search per power, then a combined search to an equilibrium.

1. *Preliminary*: for each power alone (the others as if they skipped their adjustments),
   value its build or removal combinations with the evaluator and keep the best
   ``adjust_options``. Builds: every choice of sites and unit types, fewer builds than
   allowed (waives) included, so a waive is played only when it values best. Removals:
   ``C(n, k)`` choices (24,310 at worst), walked from the combination of the individually
   least valuable units outwards and cut at ``adjust_combos`` or the budget.
2. *Combined*: round-robin, each power tries its next untried option against the others'
   current choices and adopts it if its alliance's value rises; when one power changes its
   mind, every other power gets its rejected options back. A visited set keeps any joint
   choice from being valued twice, so it ends, at the latest when every joint choice has
   been seen; when every list is exhausted, each power's choice is a best answer to the
   others' (an equilibrium among the options kept).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from itertools import combinations, product

from diplomat.bots.bordeaux.adapter import EngineView
from diplomat.bots.bordeaux.budget import Budget
from diplomat.bots.bordeaux.constraints import Constraints
from diplomat.bots.bordeaux.evaluate import Evaluator
from diplomat.bots.bordeaux.params import Params
from diplomat.engine.legal import WAIVE_KEY
from diplomat.engine.orders import Build, Order, Remove, Waive
from diplomat.engine.state import Unit

Option = tuple[Order, ...]


def adjustment_orders(
    position: EngineView,
    power: str,
    evaluator: Evaluator,
    params: Params,
    constraints: Constraints,
    bound: frozenset[str],
    budget: Budget,
) -> list[Order]:
    state = position.state
    units = state.units
    adjust = state.adjustments()
    legal = constraints.filter(position.legal(), bound)
    powers = [p for p, n in sorted(adjust.items()) if n != 0 and p in evaluator.group_of]
    if power not in powers:
        return []
    # Our own options first, so that a tight budget still gives us a good choice.
    powers.sort(key=lambda p: p != power)
    options: dict[str, list[Option]] = {}
    for p in powers:
        group = evaluator.group_of[p]
        scored: list[tuple[float, int, Option]] = []
        choices = _options(units, p, adjust[p], legal, constraints, params, evaluator)
        for i, opt in enumerate(choices):
            v = evaluator.values(_apply(units, opt), fall=False)[group]
            budget.tick()
            scored.append((v, i, opt))
            if budget.out() and scored and p != power:
                break
            if budget.late():
                break
        scored.sort(key=lambda t: (-t[0], t[1]))
        options[p] = [opt for _, _, opt in scored[: max(1, int(params.adjust_options))]]
        if budget.late():
            break
    options = {p: o for p, o in options.items() if o}
    if power not in options:
        return []
    choice = {p: 0 for p in options}
    values = _joint_values(units, options, choice, evaluator)
    untried = {p: deque(range(1, len(o))) for p, o in options.items()}
    visited = {tuple(sorted(choice.items()))}
    order = sorted(options)
    while any(untried.values()) and not budget.out():
        for p in order:
            if not untried[p] or budget.out():
                continue
            trial = dict(choice)
            trial[p] = untried[p].popleft()
            key = tuple(sorted(trial.items()))
            if key in visited:
                continue
            visited.add(key)
            new = _joint_values(units, options, trial, evaluator)
            budget.tick()
            group = evaluator.group_of[p]
            if new[group] > values[group] + params.improve_eps:
                choice, values = trial, new
                for q in order:
                    if q != p:
                        untried[q] = deque(i for i in range(len(options[q])) if i != choice[q])
    return list(options[power][choice[power]])


def _joint_values(
    units: Mapping[str, Unit],
    options: Mapping[str, Sequence[Option]],
    choice: Mapping[str, int],
    evaluator: Evaluator,
) -> list[float]:
    every: list[Order] = []
    for p, i in choice.items():
        every.extend(options[p][i])
    return evaluator.values(_apply(units, every), fall=False)


def _apply(units: Mapping[str, Unit], orders: Sequence[Order]) -> dict[str, Unit]:
    after = dict(units)
    for o in orders:
        if isinstance(o, Build):
            after[o.unit.province] = o.unit
        elif isinstance(o, Remove):
            after.pop(o.unit.province, None)
    return after


def _options(
    units: Mapping[str, Unit],
    power: str,
    need: int,
    legal: Mapping[str, Sequence[Order]],
    constraints: Constraints,
    params: Params,
    evaluator: Evaluator,
) -> Iterator[Option]:
    """Every adjustment ``power`` may make, up to ``adjust_combos`` of them."""
    required = constraints.required_for(power)
    limit = int(params.adjust_combos)
    if need > 0:
        sites = {
            k: [o for o in v if isinstance(o, Build)]
            for k, v in legal.items()
            if k != WAIVE_KEY and v and isinstance(v[0], Build) and v[0].unit.power == power
        }
        sites = {k: v for k, v in sites.items() if v}
        forced = [o for o in required if isinstance(o, Build) and o.unit.loc in _locs(sites)]
        forced_sites = {o.unit.province for o in forced}
        free = sorted(k for k in sites if k not in forced_sites)
        room = min(need, len(sites)) - len(forced)
        made = 0
        for k in range(max(0, room), -1, -1):  # most builds first; waives after
            for chosen in combinations(free, k):
                for builds in product(*(sites[s] for s in chosen)):
                    waives = (Waive(power),) * (need - len(forced) - k)
                    yield (*forced, *builds, *waives)
                    made += 1
                    if made >= limit:
                        return
        return
    mine = [u for u in units.values() if u.power == power]
    k = -need
    forced_units = [o.unit for o in required if isinstance(o, Remove) and o.unit in mine][:k]
    allowed = {
        o.unit for v in legal.values() for o in v if isinstance(o, Remove) and o.unit.power == power
    }
    rest = [u for u in mine if u not in forced_units and u in allowed]
    rest += [u for u in mine if u not in forced_units and u not in allowed]  # if need be
    # Units least missed first: the first combinations are the most promising ones.
    group = evaluator.group_of[power]
    missed = {u: -evaluator.values(_apply(units, [Remove(u)]), fall=False)[group] for u in rest}
    rest.sort(key=lambda u: (missed[u], u.loc))
    for made, combo in enumerate(combinations(rest, k - len(forced_units)), 1):
        yield tuple(Remove(u) for u in (*forced_units, *combo))
        if made >= limit:
            return


def _locs(sites: Mapping[str, Sequence[Order]]) -> set[str]:
    return {o.unit.loc for v in sites.values() for o in v if isinstance(o, Build)}
