"""Order validation: is an order legal in this position, and if not, why (a DAIDE THX note).

``check_order`` judges one order on its own against the board (DATC 4.E.1: an order is legal
when it could be valid without knowing any other order) and returns the order normalised to
the real unit and a definite destination coast. Counting rules that depend on the other orders
of the phase (builds, removals) live in ``engine.orderset``.

Choices, per DATC 3.0 (see ``engine/RULES.md``):
- the unit type and the coast written for the ordered unit are ignored (4.B.5, 4.C.2), and so
  are the type and power written for a supported or convoyed unit (4.C.5, 4.C.6);
- a fleet moving to a split-coast province without a coast goes to the one coast it can
  reach, and the order is refused (CST) when it can reach both (4.B.1, 4.B.2); a coast it
  cannot reach is refused (FAR, 4.B.3); a coast on an army's destination is ignored (4.B.6);
- an army move needs an adjacent destination or a possible convoy route over the fleets on
  the board; a convoy order needs a route that needs that fleet (6.G.19); a support for a
  convoyed move needs a route that does not need the supporter (6.D.31);
- DAIDE's ``CTO ... VIA (...)``: each listed sea must hold a fleet (NSF) and the list must
  chain from the army to the destination (FAR). The route is not binding on adjudication
  (4.A.6); the order is a move "via convoy" (4.A.3).
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import pairwise
from typing import TYPE_CHECKING, Any, NamedTuple

from diplomat.engine.convoy import ConvoyTable, convoy_table, fleet_mask
from diplomat.engine.map import coast_of, province_of
from diplomat.engine.orders import (
    ACCEPTED,
    PHASE_ORDERS,
    Build,
    Convoy,
    Disband,
    Hold,
    Move,
    Note,
    Order,
    Remove,
    Retreat,
    SupportHold,
    SupportMove,
    Waive,
)
from diplomat.engine.state import GameState, Unit


# A named tuple, as orders are: one is built per order judged, and a frozen dataclass costs
# three times as much to build.
class Checked(NamedTuple):
    note: Note
    order: Order  # normalised when accepted, as given otherwise


class BoardIndex:
    """One state's indexes that validation and legal-order listing ask for repeatedly (the
    fleets' mask, convoy tables per army's province, the listing), each built on first use."""

    def __init__(self, state: GameState) -> None:
        self.state = state
        self.map = state.map
        self._tables: dict[str, ConvoyTable] = {}
        self._fleets: int | None = None
        # engine.legal's listing of every power's orders, computed once per index.
        self.listing: dict[str, tuple[Order, ...]] | None = None
        self.kind = state.phase.kind

    @property
    def fleets(self) -> int:
        """The seas holding a fleet, as a mask over the map's seas."""
        fleets = self._fleets
        if fleets is None:
            fleets = self._fleets = fleet_mask(
                self.map, ((u.type, u.loc) for u in self.state.units.values())
            )
        return fleets

    def set_fleets(self, fleets: int) -> None:
        """Tell the index its fleet mask (``engine.legal`` finds it while reading the
        board, which saves a pass over the units)."""
        self._fleets = fleets

    def convoy_table(self, src: str) -> ConvoyTable:
        """Where an army in province ``src`` can be convoyed (see ``engine.convoy``)."""
        table = self._tables.get(src)
        if table is None:
            table = self._tables[src] = convoy_table(self.map, self.fleets, src)
        return table

    def convoy_possible(self, src: str, dest: str, without: str | None = None) -> bool:
        """Is there a route from ``src`` to ``dest`` over the fleets, not using the fleet in
        ``without``? (Some route avoids a fleet unless every route needs it.)"""
        entry = self.convoy_table(src).dests.get(dest)
        if entry is None:
            return False
        return without is None or not entry[1] & self.map.sea_bit.get(without, 0)

    def can_reach(self, unit: Unit, province: str, without: str | None = None) -> bool:
        """Could ``unit`` move to ``province`` (by land, sea, or a possible convoy)?"""
        if province in self.map.reach(unit.type, unit.loc):
            return True
        return unit.type == "A" and self.convoy_possible(unit.loc, province, without)


def normalise_dest(index: BoardIndex, unit: Unit, dest: str) -> tuple[Note, str]:
    """Resolve the destination location of a move or retreat for ``unit``."""
    gmap = index.map
    prov = province_of(dest)
    info = gmap.provinces.get(prov)
    if info is None:
        return Note.NSP, dest
    coast = coast_of(dest)
    if unit.type == "A":
        return ACCEPTED, prov
    if coast is not None and coast not in info.coasts:
        coast = None  # 4.B.6: a coast the province does not have is ignored
    if coast is not None:
        return (ACCEPTED, dest) if dest in gmap.fleet_adj.get(unit.loc, ()) else (Note.FAR, dest)
    options = gmap.fleet_destinations(unit.loc, prov)
    if len(options) == 1:
        return ACCEPTED, options[0]
    if len(options) > 1:
        return Note.CST, prov
    return Note.FAR, prov


def check_order(index: BoardIndex, power: str, order: Order) -> Checked:
    """Judge one order given by ``power`` on its own merits."""
    kind = index.kind
    if kind == "movement":
        check = _MOVEMENT_CHECKS.get(type(order))
        if check is None:  # a waive among them: no check is kept for its type
            return Checked(Note.NRS, order)
        # Two tests for the type checker only (they cost nothing when the engine runs): the
        # table holds no check for a waive, and ``type(...) is`` below is the cheap test (an
        # ``isinstance`` with an enum class goes through its metaclass, 45 ns against 10).
        if TYPE_CHECKING:
            assert not isinstance(order, Waive)
        unit = _own_unit(index, power, order.unit)
        if type(unit) is Note:
            return Checked(unit, order)
        if TYPE_CHECKING:
            assert isinstance(unit, Unit)
        return check(index, unit, order)
    if not isinstance(order, PHASE_ORDERS[kind]):
        return Checked(Note.NRS, order)
    if kind == "retreat":
        return _check_retreat(index, power, order)
    return _check_adjustment_site(index, power, order)


def _province(index: BoardIndex, loc: str) -> str | None:
    """The province of a written location; None if there is no such province (a coast the
    province lacks still names the province)."""
    prov = index.map.province_at.get(loc)
    if prov is None:
        prov = province_of(loc)
        if prov not in index.map.provinces:
            return None
    return prov


def _own_unit(index: BoardIndex, power: str, unit: Unit) -> Unit | Note:
    prov = _province(index, unit.loc)
    if prov is None:
        return Note.NSP
    actual = index.state.units.get(prov)
    if actual is None:
        return Note.NSU
    if actual.power != power:
        return Note.NYU
    return actual


def _check_hold(index: BoardIndex, unit: Unit, order: Hold) -> Checked:
    return Checked(ACCEPTED, order if order.unit is unit else Hold(unit))


def _check_move(index: BoardIndex, unit: Unit, order: Move) -> Checked:
    note, dest = normalise_dest(index, unit, order.dest)
    if note is not ACCEPTED:
        return Checked(note, order)
    prov_at = index.map.province_at
    src = prov_at[unit.loc]
    prov = prov_at[dest]
    if prov == src:
        return Checked(Note.FAR, order)
    if order.convoy or order.via is not None:
        if unit.type != "A":
            return Checked(Note.NSA, order)
        if order.via is not None:
            note = _check_route(index, src, prov, order.via)
            if note is not ACCEPTED:
                return Checked(note, order)
        elif not index.convoy_possible(src, prov):
            return Checked(Note.FAR, order)
        return Checked(ACCEPTED, Move(unit, dest, True, order.via))
    if not index.can_reach(unit, prov):
        return Checked(Note.FAR, order)
    if order.unit is unit and order.dest == dest:
        return Checked(ACCEPTED, order)
    return Checked(ACCEPTED, Move(unit, dest))


def _check_route(index: BoardIndex, src: str, dest: str, via: tuple[str, ...]) -> Note:
    gmap = index.map
    if not via:
        return Note.FAR
    units = index.state.units
    for sea in via:
        if sea not in gmap.provinces:
            return Note.NSP
        fleet = units.get(sea)
        if fleet is None or fleet.type != "F":
            return Note.NSF
        if not gmap.is_sea(sea):
            return Note.NAS
    adj = gmap.fleet_adj_provinces
    for a, b in pairwise((*via, dest)):
        if b not in adj[a]:
            return Note.FAR
    return ACCEPTED if src in adj[via[0]] else Note.FAR


def _target(index: BoardIndex, target: Unit) -> Unit | Note:
    prov = _province(index, target.loc)
    if prov is None:
        return Note.NSP
    actual = index.state.units.get(prov)
    return Note.NSU if actual is None else actual


def _check_support_hold(index: BoardIndex, unit: Unit, order: SupportHold) -> Checked:
    target = _target(index, order.target)
    if type(target) is Note:  # as in check_order
        return Checked(target, order)
    if TYPE_CHECKING:
        assert isinstance(target, Unit)
    prov_at = index.map.province_at
    tp = prov_at[target.loc]
    if tp == prov_at[unit.loc] or tp not in index.map.reach(unit.type, unit.loc):
        return Checked(Note.FAR, order)
    if order.unit is unit and order.target is target:
        return Checked(ACCEPTED, order)
    return Checked(ACCEPTED, SupportHold(unit, target))


def _check_support_move(index: BoardIndex, unit: Unit, order: SupportMove) -> Checked:
    target = _target(index, order.target)
    if type(target) is Note:
        return Checked(target, order)
    if TYPE_CHECKING:  # as in check_order
        assert isinstance(target, Unit)
    gmap = index.map
    written = order.dest
    prov = _province(index, written)
    if prov is None:
        return Checked(Note.NSP, order)
    prov_at = gmap.province_at
    here, there = prov_at[unit.loc], prov_at[target.loc]
    if here == there or prov in (here, there) or prov not in gmap.reach(unit.type, unit.loc):
        return Checked(Note.FAR, order)
    # A coast the province lacks is ignored (4.B.6); a coast it has must match (4.B.4).
    dest = written if written != prov and written in gmap.province_at else prov
    if target.type == "F":
        if dest != prov:
            ok = dest in gmap.fleet_adj[target.loc]
        else:
            ok = prov in gmap.reach("F", target.loc)
    else:
        ok = prov in gmap.army_adj[target.loc] or index.convoy_possible(there, prov, here)
    if not ok:
        return Checked(Note.FAR, order)
    if order.unit is unit and order.target is target and written == dest:
        return Checked(ACCEPTED, order)
    return Checked(ACCEPTED, SupportMove(unit, target, dest))


def _check_convoy(index: BoardIndex, unit: Unit, order: Convoy) -> Checked:
    gmap = index.map
    if unit.type != "F":
        return Checked(Note.NSF, order)
    here = gmap.province_at[unit.loc]
    if here not in gmap.sea_bit:
        return Checked(Note.NAS, order)
    target = _target(index, order.target)
    if type(target) is Note:
        return Checked(Note.NSA if target is Note.NSU else target, order)
    if TYPE_CHECKING:  # as in check_order
        assert isinstance(target, Unit)
    if target.type != "A":
        return Checked(Note.NSA, order)
    prov = _province(index, order.dest)
    if prov is None:
        return Checked(Note.NSP, order)
    entry = index.convoy_table(target.loc).dests.get(prov)
    if entry is None or not entry[0] & gmap.sea_bit[here]:
        return Checked(Note.FAR, order)
    if order.unit is unit and order.target is target and order.dest == prov:
        return Checked(ACCEPTED, order)
    return Checked(ACCEPTED, Convoy(unit, target, prov))


# The check of each kind of movement order, once the ordered unit is known to be the power's.
_MOVEMENT_CHECKS: dict[type, Callable[[BoardIndex, Unit, Any], Checked]] = {
    Hold: _check_hold,
    Move: _check_move,
    SupportHold: _check_support_hold,
    SupportMove: _check_support_move,
    Convoy: _check_convoy,
}


def _check_retreat(index: BoardIndex, power: str, order: Order) -> Checked:
    assert isinstance(order, (Retreat, Disband))
    state = index.state
    prov = province_of(order.unit.loc)
    if prov not in index.map.provinces:
        return Checked(Note.NSP, order)
    dislodged = state.dislodged.get(prov)
    if dislodged is None:
        return Checked(Note.NRN if prov in state.units else Note.NSU, order)
    unit = dislodged.unit
    if unit.power != power:
        return Checked(Note.NYU, order)
    if isinstance(order, Disband):
        return Checked(ACCEPTED, order if order.unit is unit else Disband(unit))
    dest_prov = province_of(order.dest)
    if dest_prov not in index.map.provinces:
        return Checked(Note.NSP, order)
    coast = coast_of(order.dest)
    options = [r for r in dislodged.retreats if province_of(r) == dest_prov]
    if coast is not None and unit.type == "F":
        info = index.map.provinces[dest_prov]
        if coast in info.coasts:
            options = [r for r in options if r == order.dest]
    if not options:
        return Checked(Note.NVR, order)
    if len(options) > 1:
        return Checked(Note.CST, order)
    if order.unit is unit and order.dest == options[0]:  # already normal: kept as given
        return Checked(ACCEPTED, order)
    return Checked(ACCEPTED, Retreat(unit, options[0]))


def _check_adjustment_site(index: BoardIndex, power: str, order: Order) -> Checked:
    """The parts of build/remove legality that do not depend on other orders."""
    state = index.state
    gmap = index.map
    if isinstance(order, Waive):
        if order.power != power:
            return Checked(Note.NYU, order)
        return Checked(ACCEPTED, order)
    if isinstance(order, Remove):
        unit = _own_unit(index, power, order.unit)
        if type(unit) is Note:  # as in check_order
            return Checked(unit, order)
        if TYPE_CHECKING:
            assert isinstance(unit, Unit)
        return Checked(ACCEPTED, order if order.unit is unit else Remove(unit))
    assert isinstance(order, Build)
    u = order.unit
    prov = province_of(u.loc)
    info = gmap.provinces.get(prov)
    if info is None:
        return Checked(Note.NSP, order)
    if u.power != power:
        return Checked(Note.NYU, order)
    if not info.supply_centre:
        return Checked(Note.NSC, order)
    if prov not in gmap.build_centres.get(power, ()):
        return Checked(Note.HSC, order)
    if state.centres.get(prov) != power:
        return Checked(Note.YSC, order)
    if prov in state.units:
        return Checked(Note.ESC, order)
    loc = u.loc
    if u.type == "A":
        loc = prov
    elif coast_of(loc) not in info.coasts:
        loc = prov  # 4.B.6: a coast the province lacks is ignored
    if not gmap.can_stand(u.type, loc):
        return Checked(Note.CST, order)
    if loc == u.loc:  # already normal (its power is the giver's, checked above): kept as given
        return Checked(ACCEPTED, order)
    return Checked(ACCEPTED, Build(Unit(power, u.type, loc)))
