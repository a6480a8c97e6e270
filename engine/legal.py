"""Every legal order in the current phase, per unit (or build site), for one power or all.

The lists agree with ``engine.validate``: each order listed is accepted as it stands, and
every accepted order's normalised form is listed (``tests/engine/test_legal.py`` checks both
directions).

Search bots list thousands of positions, most of them alike, so the lists are assembled from
orders kept per map and keyed by small integers. A unit is a code (its type, location and
power); its hold, moves and supports depend only on the units on and next to the provinces
it reaches (and on the armies convoys bring there), so they are kept per unit code, keyed by
the codes standing on those provinces read off a board of codes in one C-level call. Order
objects are values, so orders built for one position serve every position where the same
units stand around the same provinces. Convoy routes come from the per-map tables of
``engine.convoy``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from operator import itemgetter
from typing import Any, TypeVar

from diplomat.engine.convoy import ConvoyTable
from diplomat.engine.map import GameMap
from diplomat.engine.orders import (
    WAIVE_KEY,
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
    order_power,
)
from diplomat.engine.state import GameState, Unit
from diplomat.engine.validate import BoardIndex

__all__ = ["WAIVE_KEY", "Listing", "Selection", "legal_orders", "listing", "select"]

Listing = dict[str, list[Order]]  # legal_orders: fresh lists the caller may change
Selection = dict[str, tuple[Order, ...]]  # select: the listing's own tuples, shared

# Unit orders kept per map, all codes together, before the memo is emptied. Search bots run
# for hours, and every order kept is one more object for each full garbage collection to
# walk, so the bound is a few positions' worth of successors, not a game's.
_MEMO_LIMIT = 30_000
_NOBODY = -1  # a board square with no unit
_RANK_SHIFT = 16  # a board square holds a unit's place among the units above its code


def legal_orders(
    state: GameState, power: str | None = None, index: BoardIndex | None = None
) -> Listing:
    """Legal orders keyed by the location they are for: a unit's location in movement and
    retreat phases, a build site or unit location in adjustments (plus ``WAIVE_KEY``).
    With ``power`` None, every power's. Pass the state's :class:`~engine.validate.BoardIndex`
    to share one listing between powers, validation and bots (the lists returned are fresh
    copies)."""
    return _select(listing(index or BoardIndex(state)), power, list)


def select(full: Mapping[str, tuple[Order, ...]], power: str | None) -> Selection:
    """``power``'s orders (every power's when None) out of a position's :func:`listing`:
    the listing's own tuples (immutable, so they are shared, not copied) in a new dict."""
    return _select(full, power, tuple)


S = TypeVar("S", list[Order], tuple[Order, ...])


def _select(
    full: Mapping[str, tuple[Order, ...]],
    power: str | None,
    make: Callable[[Iterable[Order]], S],
) -> dict[str, S]:
    """:func:`select` and :func:`legal_orders` in one pass over the listing, each block
    passed through ``make``: ``list`` for fresh lists, ``tuple`` to share the listing's
    tuples (``tuple()`` of a tuple is that tuple). One dict is built, not a dict of tuples
    and then one of lists (a microsecond a listing, which bench/adjudicate.py times)."""
    if power is None:  # every block, the waives last as the listing holds them
        return {key: make(orders) for key, orders in full.items()}
    out = {
        key: make(orders)
        for key, orders in full.items()
        if key != WAIVE_KEY and order_power(orders[0]) == power
    }
    waives = [w for w in full.get(WAIVE_KEY, ()) if order_power(w) == power]
    if waives:
        out[WAIVE_KEY] = make(waives)
    return out


def listing(index: BoardIndex) -> dict[str, tuple[Order, ...]]:
    """Every power's legal orders in ``index``'s state, computed once per index and shared
    (the mapping must not be changed)."""
    cached = index.listing
    if cached is None:
        state = index.state
        kind = state.phase.kind
        if kind == "movement":
            cached = _Movement(index).run()
        elif kind == "retreat":
            cached = _retreats(state)
        else:
            cached = _adjustments(state)
        index.listing = cached
    return cached


def _no_ring(board: list[int]) -> tuple[int, ...]:
    return ()


class Codes:
    """Per-map integer codes and the memos of order blocks built from them (a per-map memo,
    ``engine.memo``)."""

    def __init__(self, gmap: GameMap) -> None:
        keys = [("A", loc) for loc in sorted(gmap.army_locations)]
        keys += [("F", loc) for loc in sorted(gmap.fleet_locations)]
        npowers = len(gmap.powers)
        power_index = {p: i for i, p in enumerate(gmap.powers)}
        # (power, type, location) -> code; a code names a unit in any position.
        self.unit: dict[tuple[str, str, str], int] = {
            (p, t, loc): i * npowers + power_index[p]
            for i, (t, loc) in enumerate(keys)
            for p in gmap.powers
        }
        self.province_id: dict[str, int] = {p: i for i, p in enumerate(sorted(gmap.provinces))}
        # Per code: a function reading, from a board of codes indexed by province id, the
        # units a unit there could support (on the provinces it reaches and next to them).
        rings = {key: self._ring(gmap, *key) for key in keys}
        self.ring: list[Callable[[list[int]], tuple[int, ...]]] = [
            rings[key] for key in keys for _ in gmap.powers
        ]
        # Per code: the sea bit of a fleet at sea (it may convoy), and the seas next to an
        # army on a shore (it may be convoyed), so one pass over the units finds both.
        self.at_sea: list[int] = [
            gmap.sea_bit.get(loc, 0) if t == "F" else 0 for t, loc in keys for _ in gmap.powers
        ]
        self.near_seas: list[int] = [
            gmap.seas_mask_near[loc] if t == "A" and loc in gmap.shore_bit else 0
            for t, loc in keys
            for _ in gmap.powers
        ]
        # Per code: the unit's orders but convoys (hold, moves, supports) by its ring.
        self.orders: list[dict[tuple[Any, ...], tuple[Order, ...]]] = [{} for _ in self.ring]
        self.entries = 0  # in self.orders
        self.basic: dict[int, tuple[Order, ...]] = {}  # unit code -> hold and moves
        # Per code: how many of a unit's orders are its hold and moves, after which an
        # army's convoyed moves go (read for every convoyable army of every listing, so
        # kept rather than asked of the map each time).
        self.held_moves: list[int] = [
            1 + len(gmap.moves(t, loc)) for t, loc in keys for _ in gmap.powers
        ]
        self.builds: dict[tuple[str, str], tuple[Order, ...]] = {}  # (power, site) -> builds
        # An adjustment listing's removals and waives, built once per map as the other
        # blocks are (a named tuple costs 130 ns to build, a lookup 50).
        self.removes: dict[int, tuple[Order, ...]] = {}  # unit code -> (its removal,)
        self.waive: dict[str, Waive] = {p: Waive(p) for p in gmap.powers}

    def count_entry(self) -> None:
        """Count an entry about to be added to ``orders``, emptying them all when full."""
        self.entries += 1
        if self.entries > _MEMO_LIMIT:
            for memo in self.orders:
                memo.clear()
            self.entries = 1

    def _ring(self, gmap: GameMap, utype: str, loc: str) -> Callable[[list[int]], tuple[int, ...]]:
        ring = set(gmap.reach(utype, loc))
        for d in gmap.reach(utype, loc):
            ring.update(gmap.neighbours[d])
        ids = sorted(self.province_id[p] for p in ring)
        if not ids:  # an army that can go nowhere (Hundred's Pale) supports no one
            return _no_ring
        if len(ids) == 1:  # itemgetter of one index gives a value, not a tuple
            ids.append(ids[0])
        return itemgetter(*ids)


def _codes(gmap: GameMap) -> Codes:
    return gmap.memo.get(Codes, lambda: Codes(gmap))


class _Movement:
    """A movement phase's listing. A unit's orders but convoys depend only on the units on
    and next to the provinces it reaches (and on the armies convoys bring there), so they
    are kept per map by the unit's code and those units' codes. Supports for moves into a
    province are listed in the order the state stores the units, so the key holds each
    unit's place in that order too: a listing never depends on what was listed before."""

    def __init__(self, index: BoardIndex) -> None:
        self.index = index
        self.state = index.state
        self.map = index.map
        self.codes = _codes(self.map)
        self.code: dict[str, int] = {}  # province -> code of the unit there
        self.by_convoy: dict[str, list[tuple[str, int]]] = {}
        self.direct: dict[str, list[Unit]] | None = None

    def run(self) -> dict[str, tuple[Order, ...]]:
        units = self.state.units
        codes = self.codes
        unit_code, province_id, ring = codes.unit, codes.province_id, codes.ring
        code = self.code
        at_sea, near_seas = codes.at_sea, codes.near_seas
        # Per province id: the unit's code and its place among the units, as one int.
        board: list[Any] = [_NOBODY] * len(province_id)
        fleets = 0
        shore_armies: list[tuple[str, int]] = []
        for rank, (prov, u) in enumerate(units.items()):
            c = code[prov] = unit_code[(u.power, u.type, u.loc)]
            board[province_id[prov]] = rank << _RANK_SHIFT | c
            if at_sea[c]:
                fleets |= at_sea[c]
            elif near_seas[c]:
                shore_armies.append((prov, c))
        self.index.set_fleets(fleets)
        convoys = self._convoy_tables(fleets, shore_armies)
        self.by_convoy = by_convoy = self._convoyed_into(convoys)
        # A province where convoys bring armies also holds them in its square (with the
        # fleets every route needs), so the ring's key covers supports of convoyed moves.
        for d, armies in by_convoy.items():
            i = province_id[d]
            board[i] = (board[i], *[x for a, f in armies for x in (code[a], f)])
        memos, held_moves = codes.orders, codes.held_moves
        needing = _needing(convoys) if convoys else {}
        out: dict[str, tuple[Order, ...]] = {}
        for prov, u in units.items():
            c = code[prov]
            key = ring[c](board)
            memo = memos[c]
            orders = memo.get(key)
            if orders is None:
                codes.count_entry()
                orders = memo[key] = self._orders(prov, u)
            if convoys:
                if prov in convoys:
                    n = held_moves[c]
                    orders = orders[:n] + self._convoy_moves(u, c, convoys[prov]) + orders[n:]
                needed = needing.get(prov)
                if needed is not None:  # a fleet at sea that some army's route needs
                    orders += self._convoys(prov, u, needed)
            out[u.loc] = orders
        return out

    def _direct(self) -> dict[str, list[Unit]]:
        """Province -> the units that can move there over land or sea, in the state's order
        (built only when a block is missing)."""
        if self.direct is None:
            reach = self.map.reach_sorted
            direct: dict[str, list[Unit]] = {}
            for u in self.state.units.values():
                for d in reach(u.type, u.loc):
                    if d in direct:
                        direct[d].append(u)
                    else:
                        direct[d] = [u]
            self.direct = direct
        return self.direct

    def _basic(self, u: Unit, c: int) -> list[Order]:
        """The unit's hold and moves over land or sea (the same in every position)."""
        basic = self.codes.basic.get(c)
        if basic is None:
            moves = self.map.moves(u.type, u.loc)
            basic = self.codes.basic[c] = (Hold(u), *[Move(u, d) for d in moves])
        return list(basic)

    def _orders(self, prov: str, u: Unit) -> tuple[Order, ...]:
        """A unit's orders but convoys: hold, moves, then supports of holds, of moves over
        land or sea, and of moves by convoy when some route does not need the supporter (a
        fleet every route needs cannot also support the move, DATC 6.D.31)."""
        gmap = self.map
        units, by_convoy = self.state.units, self.by_convoy
        near = gmap.reach_sorted(u.type, u.loc)
        bit = gmap.sea_bit.get(prov, 0)
        direct = self._direct()
        orders = self._basic(u, self.code[prov])
        orders += [SupportHold(u, units[d]) for d in near if d in units]
        orders += [SupportMove(u, v, d) for d in near for v in direct.get(d, ()) if v is not u]
        if by_convoy:
            for d in near:
                for army, fleets in by_convoy.get(d, ()):
                    if army != prov and not fleets & bit:
                        orders.append(SupportMove(u, units[army], d))
        return tuple(orders)

    # -- convoys ------------------------------------------------------------------------

    def _convoy_tables(
        self, fleets: int, shore_armies: list[tuple[str, int]]
    ) -> dict[str, ConvoyTable]:
        """Convoy destinations of each army that has fleets at sea next to it."""
        out = {}
        if fleets:
            near_seas, convoy_table = self.codes.near_seas, self.index.convoy_table
            for prov, c in shore_armies:
                if near_seas[c] & fleets:
                    table = convoy_table(prov)
                    if table.dests:
                        out[prov] = table
        return out

    def _convoyed_into(self, convoys: dict[str, ConvoyTable]) -> dict[str, list[tuple[str, int]]]:
        """Province -> armies that reach it only by convoy, with the fleets every route
        needs."""
        army_adj = self.map.army_adj
        out: dict[str, list[tuple[str, int]]] = {}
        for prov, table in convoys.items():
            # A table is for one army's province, so what it adds is kept with it.
            into = table.into
            if into is None:
                adj = army_adj[prov]
                into = table.into = tuple(
                    (d, essential) for d, (_, essential) in table.dests.items() if d not in adj
                )
            for d, essential in into:
                if d in out:
                    out[d].append((prov, essential))
                else:
                    out[d] = [(prov, essential)]
        return out

    def _convoy_moves(self, u: Unit, c: int, table: ConvoyTable) -> tuple[Order, ...]:
        orders = table.moves.get(c)
        if orders is None:
            adj = self.map.army_adj[u.loc]
            listed: list[Move] = []
            for d in table.dests:
                if d not in adj:
                    listed.append(Move(u, d))
                listed.append(Move(u, d, True))
            orders = table.moves[c] = tuple(listed)
        return orders

    def _convoys(
        self, prov: str, u: Unit, armies: list[tuple[str, ConvoyTable]]
    ) -> tuple[Order, ...]:
        """The convoy orders of the fleet ``u`` in sea ``prov``, for the ``armies`` (with
        their tables) whose routes need it (:func:`_needing`)."""
        units, code = self.state.units, self.code
        out: tuple[Order, ...] = ()
        for army, table in armies:
            key = (code[prov], code[army])
            orders = table.convoys.get(key)
            if orders is None:
                target = units[army]
                dests = table.by_fleet[prov]
                orders = table.convoys[key] = tuple(Convoy(u, target, d) for d in dests)
            out += orders
        return out


def _needing(convoys: dict[str, ConvoyTable]) -> dict[str, list[tuple[str, ConvoyTable]]]:
    """Sea -> the armies (with their tables, in the order of ``convoys``) that some route
    needs a fleet there for: one pass over the tables, rather than one per fleet at sea."""
    out: dict[str, list[tuple[str, ConvoyTable]]] = {}
    for army, table in convoys.items():
        for sea in table.by_fleet:
            if sea in out:
                out[sea].append((army, table))
            else:
                out[sea] = [(army, table)]
    return out


def _retreats(state: GameState) -> dict[str, tuple[Order, ...]]:
    return {
        d.unit.loc: (*[Retreat(d.unit, r) for r in d.retreats], Disband(d.unit))
        for d in state.dislodged.values()
    }


def _adjustments(state: GameState) -> dict[str, tuple[Order, ...]]:
    codes = _codes(state.map)
    builds, removes, unit_code = codes.builds, codes.removes, codes.unit
    out: dict[str, tuple[Order, ...]] = {}
    waives: list[Order] = []
    units, centres = state.units, state.centres
    for p, need in state.adjustments().items():
        if need > 0:
            for site in state.map.build_centres[p]:
                if centres.get(site) == p and site not in units:
                    out[site] = builds.get((p, site)) or _builds(state.map, builds, p, site)
            waives.append(codes.waive[p])
        elif need < 0:
            for u in units.values():
                if u.power == p:
                    c = unit_code[(p, u.type, u.loc)]
                    removal = removes.get(c)
                    if removal is None:
                        removal = removes[c] = (Remove(u),)
                    out[u.loc] = removal
    if waives:
        out[WAIVE_KEY] = tuple(waives)
    return out


def _builds(
    gmap: GameMap, memo: dict[tuple[str, str], tuple[Order, ...]], power: str, site: str
) -> tuple[Order, ...]:
    """The builds of ``power`` in ``site``: an army, and a fleet on each coast."""
    orders: list[Order] = []
    if gmap.can_stand("A", site):
        orders.append(Build(Unit(power, "A", site)))
    orders += [Build(Unit(power, "F", loc)) for loc in gmap.fleet_coasts.get(site, ())]
    built = memo[(power, site)] = tuple(orders)
    return built
