"""Convoy routes over the fleets on the board, used by order legality and legal-order lists.

Only fleets in sea provinces convoy. A route is a chain of such fleets from the army's
province to the destination. For legality (DATC 4.E.1, 6.G.19) a fleet may convoy only if it
lies on a route that needs it: a chain with no shortcut, where each fleet touches only its
neighbours in the chain, the first alone touches the start and the last alone the end.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

from engine.map import GameMap, province_of
from engine.orders import Move, Order
from engine.state import GameState


def sea_fleets(gmap: GameMap, units: Iterable[tuple[str, str]]) -> frozenset[str]:
    """Provinces of the fleets that could convoy, from (unit type, location) pairs."""
    provinces = gmap.provinces
    return frozenset(
        loc for t, loc in units if t == "F" and loc in provinces and provinces[loc].type == "sea"
    )


def route_exists(
    gmap: GameMap, fleets: frozenset[str], src: str, dest: str, without: str | None = None
) -> bool:
    """Is there a chain of ``fleets`` (minus ``without``) from province ``src`` to ``dest``?"""
    if src == dest or not gmap.is_coastal(src) or not gmap.is_coastal(dest):
        return False
    adj = gmap.fleet_adj_provinces
    frontier = [f for f in gmap.seas_near[src] if f in fleets and f != without]
    seen = set(frontier)
    while frontier:
        f = frontier.pop()
        near = adj[f]
        if dest in near:
            return True
        for g in near:
            if g in fleets and g not in seen and g != without:
                seen.add(g)
                frontier.append(g)
    return False


def needed_fleets(gmap: GameMap, fleets: frozenset[str], src: str) -> dict[str, frozenset[str]]:
    """For an army in ``src``: each destination it can be convoyed to, with the fleets that
    some shortcut-free route to it needs."""
    result: dict[str, set[str]] = {}
    if not gmap.is_coastal(src):
        return {}
    adj = gmap.fleet_adj_provinces
    provinces = gmap.provinces

    def extend(path: list[str]) -> None:
        last = path[-1]
        earlier = path[:-1]
        near = sorted(adj[last])
        for d in near:
            if d != src and provinces[d].type == "coast" and not any(d in adj[f] for f in earlier):
                result.setdefault(d, set()).update(path)
        for nxt in near:
            if nxt not in fleets or nxt in path or src in adj[nxt]:
                continue
            if any(nxt in adj[f] for f in earlier):
                continue
            path.append(nxt)
            extend(path)
            path.pop()

    for f in gmap.seas_near[src]:
        if f in fleets:
            extend([f])
    return {d: frozenset(fs) for d, fs in result.items()}


def convoy_route(state: GameState, army_loc: str, dest: str) -> tuple[str, ...] | None:
    """The shortest chain of fleet-held seas an army at ``army_loc`` could be convoyed along
    to province ``dest``, in the order the army passes them; None if there is none."""
    gmap = state.map
    src = province_of(army_loc)
    if src == dest or not gmap.is_coastal(src) or not gmap.is_coastal(dest):
        return None
    seas = sea_fleets(gmap, ((u.type, u.loc) for u in state.units.values()))
    adj = gmap.fleet_adj_provinces
    start = [s for s in gmap.seas_near.get(src, ()) if s in seas]
    came_from: dict[str, str | None] = dict.fromkeys(start)
    queue = deque(start)
    while queue:
        sea = queue.popleft()
        if dest in adj[sea]:
            path = [sea]
            prev = came_from[sea]
            while prev is not None:
                path.append(prev)
                prev = came_from[prev]
            return tuple(reversed(path))
        for nxt in sorted(adj[sea]):
            if nxt in seas and nxt not in came_from:
                came_from[nxt] = sea
                queue.append(nxt)
    return None


def with_route(state: GameState, order: Order) -> Order | None:
    """``order`` with its convoy route written out when it is an army's move by convoy (said
    so, or to a province it cannot walk to) that names none, as DAIDE's ``CTO ... VIA (...)``
    needs; None when no route exists. Any other order comes back unchanged."""
    if not isinstance(order, Move) or order.via is not None or order.unit.type != "A":
        return order
    walk = province_of(order.dest) in state.map.army_adj.get(order.unit.loc, frozenset())
    if walk and not order.convoy:
        return order
    route = convoy_route(state, order.unit.loc, province_of(order.dest))
    if route is None:
        return None
    return Move(order.unit, order.dest, True, route)
