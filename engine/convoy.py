"""Convoy routes over the fleets on the board, used by order legality and legal-order lists.

Only fleets in sea provinces convoy. A route is a chain of such fleets from the army's
province to the destination. For legality (DATC 4.E.1, 6.G.19) a fleet may convoy only if it
lies on a route that needs it: a chain with no shortcut, where each fleet touches only its
neighbours in the chain, the first alone touches the start and the last alone the end.
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.map import GameMap


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
