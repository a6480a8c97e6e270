"""Every legal order in the current phase, per unit (or build site), for one power or all.

The lists agree with ``engine.validate``: each order listed is accepted as it stands, and
every accepted order's normalised form is listed (``tests/engine/test_legal.py`` checks both
directions). Bots and the web UI use these lists, so they are built from per-position tables
(who can reach each province, which fleets each convoy needs) computed once.
"""

from __future__ import annotations

from engine.orders import (
    Build,
    Convoy,
    Disband,
    Hold,
    Move,
    Order,
    Remove,
    Retreat,
    SupportHold,
    SupportMove,
    Waive,
)
from engine.orderset import OrderSet
from engine.state import GameState, Unit
from engine.validate import Position

WAIVE_KEY = "WAIVE"


def legal_orders(
    state: GameState, power: str | None = None, position: Position | None = None
) -> dict[str, list[Order]]:
    """Legal orders keyed by the location they are for: a unit's location in movement and
    retreat phases, a build site or unit location in adjustments (plus ``"WAIVE"``).
    With ``power`` None, every power's."""
    kind = state.phase.kind
    if kind == "movement":
        return _movement(position or Position(state), power)
    if kind == "retreat":
        return _retreats(state, power)
    return _adjustments(state, power)


def _movement(position: Position, power: str | None) -> dict[str, list[Order]]:
    state = position.state
    gmap = state.map
    units = state.units
    reach = gmap.reach
    army_adj = gmap.army_adj
    # Who could move into each province, and with which order (support needs that).
    movers: dict[str, list[Unit]] = {}
    convoy_dests: dict[str, dict[str, frozenset[str]]] = {}
    for u in units.values():
        for d in reach(u.type, u.loc):
            movers.setdefault(d, []).append(u)
        if u.type == "A" and gmap.is_coastal(u.province) and position.fleets:
            table = position.convoy_table(u.province)
            if table:
                convoy_dests[u.province] = table
                adj = army_adj[u.loc]
                for d in table:
                    if d not in adj:
                        movers.setdefault(d, []).append(u)
    out: dict[str, list[Order]] = {}
    for prov, u in units.items():
        if power is not None and u.power != power:
            continue
        orders: list[Order] = [Hold(u)]
        if u.type == "A":
            adj = army_adj[u.loc]
            orders.extend(Move(u, d) for d in adj)
            table = convoy_dests.get(prov, {})
            for d in table:
                if d not in adj:
                    orders.append(Move(u, d))
                orders.append(Move(u, d, convoy=True))
        else:
            orders.extend(Move(u, d) for d in gmap.fleet_adj[u.loc])
        my_reach = reach(u.type, u.loc)
        for d in my_reach:
            other = units.get(d)
            if other is not None:
                orders.append(SupportHold(u, other))
            for v in movers.get(d, ()):
                if v is u or v.province == d:
                    continue
                # A convoyed move: the supporter must not be a fleet the route needs.
                if (
                    v.type == "A"
                    and d not in army_adj[v.loc]
                    and not position.convoy_possible(v.province, d, without=prov)
                ):
                    continue
                orders.append(SupportMove(u, v, d))
        if u.type == "F" and gmap.is_sea(prov):
            for army_prov, table in convoy_dests.items():
                army = units[army_prov]
                for d, fleets in table.items():
                    if prov in fleets:
                        orders.append(Convoy(u, army, d))
        out[u.loc] = orders
    return out


def _retreats(state: GameState, power: str | None) -> dict[str, list[Order]]:
    out: dict[str, list[Order]] = {}
    for d in state.dislodged.values():
        if power is not None and d.unit.power != power:
            continue
        orders: list[Order] = [Retreat(d.unit, r) for r in d.retreats]
        orders.append(Disband(d.unit))
        out[d.unit.loc] = orders
    return out


def _adjustments(state: GameState, power: str | None) -> dict[str, list[Order]]:
    gmap = state.map
    book = OrderSet(state)
    out: dict[str, list[Order]] = {}
    for p, need in state.adjustments().items():
        if power is not None and p != power:
            continue
        if need > 0:
            sites = book.build_sites(p)
            for site in sites:
                orders: list[Order] = []
                if gmap.can_stand("A", site):
                    orders.append(Build(Unit(p, "A", site)))
                orders.extend(Build(Unit(p, "F", loc)) for loc in gmap.fleet_coasts.get(site, ()))
                out[site] = orders
            out.setdefault(WAIVE_KEY, []).append(Waive(p))
        elif need < 0:
            for u in state.units_of(p):
                out[u.loc] = [Remove(u)]
    return out


def possible_orders_count(state: GameState) -> int:
    """How many legal orders there are in all (for benchmarks and statistics)."""
    return sum(len(v) for v in legal_orders(state).values())
