"""What the rules make of a missing order: units hold, dislodged units disband, unused builds
are waived, and a power that removes too few loses the units civil disorder picks (2023
rulebook, DATC 4.D.8). Adjudication (and so the server), the bots' order completion and the
web page's Ready all ask :func:`missing_orders`, so the defaults are written once."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

from diplomat.engine.map import GameMap, province_of
from diplomat.engine.orders import Build, Disband, Hold, Order, Remove, UnitOrder, Waive
from diplomat.engine.rules import DATC, PACKAGE_NAMES, Rules
from diplomat.engine.state import GameState, Unit


def missing_orders(
    state: GameState, power: str | None, given: Iterable[Order], rules: Rules = DATC
) -> list[Order]:
    """The orders ``rules`` give ``power`` (every power when None) for what ``given`` leaves
    out in ``state``'s phase, in province order (removals in civil-disorder order)."""
    given = list(given)
    kind = state.phase.kind
    if kind != "adjustment":
        return list(missing_unit_orders(state, power, given))
    needs = state.adjustments()
    out: list[Order] = []
    for p, need in needs.items():
        if need and (power is None or p == power):
            out += _missing_adjustments(state, p, need, given, rules)
    return out


def missing_unit_orders(
    state: GameState, power: str | None, given: Iterable[Order]
) -> list[UnitOrder]:
    """:func:`missing_orders` of a movement or retreat phase: a hold for every unit without
    an order, a disband for every dislodged unit without one."""
    ordered = {o.unit.province for o in given if not isinstance(o, Waive)}
    if state.phase.kind == "movement":
        return [
            Hold(u)
            for p, u in sorted(state.units.items())
            if p not in ordered and (power is None or u.power == power)
        ]
    return [
        Disband(d.unit)
        for p, d in sorted(state.dislodged.items())
        if p not in ordered and (power is None or d.unit.power == power)
    ]


def _missing_adjustments(
    state: GameState, power: str, need: int, given: list[Order], rules: Rules
) -> list[Order]:
    if need > 0:
        made = sum(
            1
            for o in given
            if (isinstance(o, Waive) and o.power == power)
            or (isinstance(o, Build) and o.unit.power == power)
        )
        return [Waive(power) for _ in range(need - made)]
    if need < 0:
        removed = {
            o.unit.province for o in given if isinstance(o, Remove) and o.unit.power == power
        }
        owed = -need - len(removed)
        if owed > 0:
            order = (
                package_removal_order(state, power)
                if rules.home_distance_removals
                else removal_order(state, power)
            )
            left = [u for u in order if u.province not in removed]
            return [Remove(u) for u in left[:owed]]
    return []


def removal_order(state: GameState, power: str) -> list[Unit]:
    """The power's units in the order civil disorder removes them (2023 rulebook, DATC
    4.D.8): farthest from its nearest owned centre first, counting moves over land and sea for
    both unit types; fleets before armies on a tie, then by the English province name."""
    gmap = state.map
    owned = frozenset(c for c, p in state.centres.items() if p == power)
    dist = gmap.distances_to(owned)
    far = len(gmap.provinces) + 1
    return sorted(
        state.units_of(power),
        key=lambda u: (-dist.get(u.province, far), u.type != "F", gmap.provinces[u.province].name),
    )


def package_removal_order(state: GameState, power: str) -> list[Unit]:
    """Civil disorder as the ``diplomacy`` package makes it (``engine.rules.PACKAGE``, in
    place of DATC 4.D.8): farthest from the power's home centres first, armies counting steps
    over any province, fleets their own moves; fleets before armies on a tie, then in the
    alphabetical order of the package's location names."""
    gmap = state.map
    homes = frozenset(gmap.homes[power])
    return sorted(
        state.units_of(power),
        key=lambda u: (
            -_home_distance(gmap, u, homes),
            u.type != "F",
            PACKAGE_NAMES.get(u.province, u.province) + u.loc[len(u.province) :],
        ),
    )


def _home_distance(gmap: GameMap, unit: Unit, homes: frozenset[str]) -> int:
    if unit.type == "A":
        start, step = unit.province, gmap.neighbours
    else:
        start, step = unit.loc, gmap.fleet_adj
    seen = {start}
    queue = deque([(start, 0)])
    while queue:
        loc, d = queue.popleft()
        if province_of(loc) in homes:
            return d
        for n in step[loc]:
            if n not in seen:
                seen.add(n)
                queue.append((n, d + 1))
    return 1 << 20  # no home reachable: farthest of all
