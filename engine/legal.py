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
from engine.orderset import build_sites
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
    reach = gmap.reach_sorted
    moves = gmap.moves
    army_adj = gmap.army_adj
    is_coastal = gmap.is_coastal
    # Who could move into each province: directly, or only by convoy (with the fleets some
    # route needs, since a needed fleet cannot also support the move).
    direct: dict[str, list[Unit]] = {}
    by_convoy: dict[str, list[tuple[Unit, str, frozenset[str]]]] = {}
    convoy_dests: dict[str, dict[str, frozenset[str]]] = {}
    for prov, u in units.items():
        for d in reach(u.type, u.loc):
            if d in direct:
                direct[d].append(u)
            else:
                direct[d] = [u]
        if u.type == "A" and position.fleets and is_coastal(prov):
            table = position.convoy_table(prov)
            if table:
                convoy_dests[prov] = table
                adj = army_adj[u.loc]
                for d, needed in table.items():
                    if d not in adj:
                        by_convoy.setdefault(d, []).append((u, prov, needed))
    out: dict[str, list[Order]] = {}
    get_unit = units.get
    memo = gmap.unit_orders_memo
    get_direct = direct.get
    get_convoy = by_convoy.get
    fleets = position.fleets
    for prov, u in units.items():
        if power is not None and u.power != power:
            continue
        key = (u.power, u.type, u.loc)
        static = memo.get(key)
        if static is None:
            static = memo[key] = (Hold(u), *[Move(u, d) for d in moves(u.type, u.loc)])
        orders: list[Order] = list(static)  # type: ignore[arg-type]
        if prov in convoy_dests:
            adj = army_adj[u.loc]
            for d in convoy_dests[prov]:
                if d not in adj:
                    orders.append(Move(u, d))
                orders.append(Move(u, d, True))
        near = reach(u.type, u.loc)
        orders += [SupportHold(u, o) for d in near if (o := get_unit(d)) is not None]
        orders += [SupportMove(u, v, d) for d in near for v in get_direct(d, ()) if v is not u]
        if by_convoy:
            for d in near:
                for v, vprov, needed in get_convoy(d, ()):
                    if vprov == prov or (
                        prov in needed and not position.convoy_possible(vprov, d, without=prov)
                    ):
                        continue
                    orders.append(SupportMove(u, v, d))
        if prov in fleets:
            for army_prov, table in convoy_dests.items():
                army = units[army_prov]
                orders += [Convoy(u, army, d) for d, needed in table.items() if prov in needed]
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
    out: dict[str, list[Order]] = {}
    for p, need in state.adjustments().items():
        if power is not None and p != power:
            continue
        if need > 0:
            for site in build_sites(state, p):
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
