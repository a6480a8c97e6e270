"""Convoy routes: the one route search, the routes a fleet is needed on, and when an army goes
by convoy.

Only fleets in sea provinces convoy. A route is a chain of such fleets from the army's
province to the destination. For legality (DATC 4.E.1, 6.G.19) a fleet may convoy only if it
lies on a route that needs it: a chain with no shortcut, where each fleet touches only its
neighbours in the chain, the first alone touches the start and the last alone the end.

Sets of seas are bit masks over the map's seas (``GameMap.sea_bit``), so the searches are a
few integer operations per fleet. Tables of convoy destinations depend only on the army's
province and the fleets that chain to it, so they are kept per map and shared by every
position with the same fleets.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from diplomat.engine.map import GameMap, province_of
from diplomat.engine.orders import Convoy, Move, Order
from diplomat.engine.state import GameState


class ConvoyTable:
    """Where an army can be convoyed over a set of fleets. ``dests`` maps each destination
    province to (every fleet some shortcut-free route to it needs, the fleets every route to
    it needs), both masks over the map's seas; ``by_fleet`` maps each fleet's sea to the
    destinations it is needed for. Tables are shared between positions, so they keep what
    ``engine.legal`` derives from one: where it takes the army by convoy only (``into``),
    the army's convoyed moves by unit code (``moves``) and the convoy orders by the codes of
    fleet and army (``convoys``); all immutable values."""

    __slots__ = ("by_fleet", "convoys", "dests", "into", "moves")

    def __init__(self, dests: dict[str, tuple[int, int]], seas: tuple[str, ...]) -> None:
        self.dests = dests
        by_fleet: dict[str, list[str]] = {}
        for d, (needed, _) in dests.items():
            while needed:
                low = needed & -needed
                needed ^= low
                by_fleet.setdefault(seas[low.bit_length() - 1], []).append(d)
        self.by_fleet: dict[str, tuple[str, ...]] = {s: tuple(v) for s, v in by_fleet.items()}
        self.into: tuple[tuple[str, int], ...] | None = None
        self.moves: dict[int, tuple[Move, ...]] = {}
        self.convoys: dict[tuple[int, int], tuple[Convoy, ...]] = {}


class ConvoyTables(dict[tuple[str, int], ConvoyTable]):
    """The per-map memo of convoy tables (``engine.memo``), keyed by the army's province and
    the fleets (see :func:`convoy_table`)."""

    __slots__ = ()


NO_ROUTES = ConvoyTable({}, ())
_NOWHERE: frozenset[str] = frozenset()

# Tables kept per map before the memo is emptied (a few hundred bytes each).
_TABLE_MEMO_LIMIT = 20_000


def fleet_mask(gmap: GameMap, units: Iterable[tuple[str, str]]) -> int:
    """The seas holding a fleet, from (unit type, location) pairs, as a mask over the map's
    seas (only fleets at sea convoy)."""
    bits = gmap.sea_bit
    mask = 0
    for t, loc in units:
        if t == "F":
            mask |= bits.get(loc, 0)
    return mask


def find_route(
    gmap: GameMap,
    fleets: int,
    src: str,
    dest: str,
    usable: Callable[[str], bool] | None = None,
) -> tuple[str, ...] | None:
    """The shortest chain of ``fleets`` (a sea mask) from province ``src`` to ``dest``, in the
    order an army passes them (ties broken alphabetically); None if there is none. A fleet
    for which ``usable`` says False is left out (adjudication asks whether it was
    dislodged). This is the only route search: legality, adjudication and the DAIDE route
    written into orders all come here."""
    if src == dest or src not in gmap.shore_bit or dest not in gmap.shore_bit:
        return None
    seas, sea_adj = gmap.seas, gmap.sea_mask_adj
    landing = gmap.seas_mask_near[dest]
    came_from: dict[int, int] = {}
    frontier = gmap.seas_mask_near[src] & fleets
    seen = frontier
    while frontier:
        following = 0
        while frontier:
            low = frontier & -frontier
            frontier ^= low
            i = low.bit_length() - 1
            if usable is not None and not usable(seas[i]):
                continue
            if low & landing:
                return _trace(seas, came_from, i)
            new = sea_adj[i] & fleets & ~seen
            seen |= new
            following |= new
            while new:
                nlow = new & -new
                new ^= nlow
                came_from[nlow.bit_length() - 1] = i
        frontier = following
    return None


def _trace(seas: tuple[str, ...], came_from: dict[int, int], last: int) -> tuple[str, ...]:
    path = [seas[last]]
    while last in came_from:
        last = came_from[last]
        path.append(seas[last])
    return tuple(reversed(path))


def route_exists(
    gmap: GameMap, fleets: frozenset[str], src: str, dest: str, without: str | None = None
) -> bool:
    """Is there a chain of ``fleets`` (minus ``without``) from province ``src`` to ``dest``?"""
    mask = 0
    bits = gmap.sea_bit
    for f in fleets:
        if f != without:
            mask |= bits.get(f, 0)
    return find_route(gmap, mask, src, dest) is not None


def convoy_table(gmap: GameMap, fleets: int, src: str) -> ConvoyTable:
    """For an army in ``src`` with fleets on the seas of ``fleets``: each destination it can be
    convoyed to, with the fleets some shortcut-free route to it needs and the fleets all
    routes to it need. Shared per map (the caller must not change it)."""
    near = gmap.seas_mask_near.get(src, 0)
    if not near & fleets or src not in gmap.shore_bit:
        return NO_ROUTES
    memo = gmap.memo.get(ConvoyTables, ConvoyTables)
    # Keyed first by every fleet at sea, which skips the chain search when the same fleets
    # come back (a search bot's successors mostly keep the fleets), then by the fleets that
    # chain to the army, which shares tables between positions that differ elsewhere.
    whole = (src, -1 - fleets)  # negative: never equal to a chained key
    table = memo.get(whole)
    if table is None:
        if len(memo) >= _TABLE_MEMO_LIMIT:
            memo.clear()
        chained = _chained(gmap, fleets, near & fleets)
        key = (src, chained)
        table = memo.get(key)
        if table is None:
            table = memo[key] = _shortcut_free_routes(gmap, chained, src)
        memo[whole] = table
    return table


def _chained(gmap: GameMap, fleets: int, start: int) -> int:
    """The fleets of ``fleets`` that chain to the seas of ``start``."""
    sea_adj = gmap.sea_mask_adj
    reached = frontier = start
    while frontier:
        following = 0
        while frontier:
            low = frontier & -frontier
            frontier ^= low
            following |= sea_adj[low.bit_length() - 1]
        frontier = following & fleets & ~reached
        reached |= frontier
    return reached


def _shortcut_free_routes(gmap: GameMap, fleets: int, src: str) -> ConvoyTable:
    sea_adj, sea_shores = gmap.sea_mask_adj, gmap.sea_mask_shores
    shores = gmap.shores
    near_src = gmap.seas_mask_near[src]
    src_bit = gmap.shore_bit[src]
    needed: dict[int, int] = {}
    essential: dict[int, int] = {}

    def extend(last: int, path: int, earlier_seas: int, earlier_shores: int) -> None:
        # The destinations the chain ends at without a shortcut, then the fleets that extend
        # it without one (touching none of the chain but its last fleet, nor the start).
        landings = sea_shores[last] & ~earlier_shores & ~src_bit
        while landings:
            low = landings & -landings
            landings ^= low
            d = low.bit_length() - 1
            if d in needed:
                needed[d] |= path
                essential[d] &= path
            else:
                needed[d] = essential[d] = path
        nxt = sea_adj[last] & fleets & ~path & ~near_src & ~earlier_seas
        if nxt:
            seas_then = earlier_seas | sea_adj[last]
            shores_then = earlier_shores | sea_shores[last]
            while nxt:
                low = nxt & -nxt
                nxt ^= low
                extend(low.bit_length() - 1, path | low, seas_then, shores_then)

    first = near_src & fleets
    while first:
        low = first & -first
        first ^= low
        extend(low.bit_length() - 1, low, 0, 0)
    # In the order the search meets them: the order of listings that bots choose from.
    dests = {shores[d]: (needed[d], essential[d]) for d in needed}
    return ConvoyTable(dests, gmap.seas)


def goes_by_convoy(gmap: GameMap, order: Move, own_fleet_convoys: bool = False) -> bool:
    """DATC 4.A.3: an army's move goes by convoy when the order says so, when the destination
    is not next to it, or when a fleet of its own power is ordered to convoy it (adjudication
    knows that; an order on its own does not). There is no fallback to the land route."""
    unit = order.unit
    if unit.type != "A":
        return False
    prov = gmap.province_at.get(order.dest) or province_of(order.dest)
    return army_goes_by_convoy(gmap, unit.loc, prov, order.convoy or own_fleet_convoys)


def army_goes_by_convoy(gmap: GameMap, loc: str, dest: str, said: bool) -> bool:
    """:func:`goes_by_convoy` for an army at ``loc`` moving to province ``dest``, ``said``
    when the order says so or a fleet of its own power convoys it (for the adjudicator,
    which has read the order's fields already)."""
    return said or dest not in gmap.army_adj.get(loc, _NOWHERE)


def convoy_route(state: GameState, army_loc: str, dest: str) -> tuple[str, ...] | None:
    """The shortest chain of fleet-held seas an army at ``army_loc`` could be convoyed along
    to province ``dest``, in the order the army passes them; None if there is none."""
    gmap = state.map
    fleets = fleet_mask(gmap, ((u.type, u.loc) for u in state.units.values()))
    return find_route(gmap, fleets, province_of(army_loc), dest)


def with_route(state: GameState, order: Order) -> Order | None:
    """``order`` with its convoy route written out when it is an army's move by convoy (said
    so, or to a province it cannot walk to) that names none, as DAIDE's ``CTO ... VIA (...)``
    needs; None when no route exists. Any other order comes back unchanged."""
    if not isinstance(order, Move) or order.via is not None:
        return order
    if not goes_by_convoy(state.map, order):
        return order
    route = convoy_route(state, order.unit.loc, province_of(order.dest))
    if route is None:
        return None
    return Move(order.unit, order.dest, True, route)
