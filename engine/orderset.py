"""The orders given in one phase: submission with THX notes, replacement, cancellation, and
what each power still owes (DAIDE's MIS).

One order per unit (a later order for a unit replaces the earlier one, DATC 4.D.1). In
adjustment phases builds and removals are counted against what the power is allowed: the
first legal ones count and later ones are refused (NMB/NMR, DATC 4.D.4-4.D.6); a second build in
a province already built in is refused (ESC, 4.D.5).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING

from diplomat.engine.map import province_of
from diplomat.engine.orders import ACCEPTED, Build, Note, Order, Remove, UnitOrder, Waive, order_key
from diplomat.engine.state import Dislodged, GameState, Unit
from diplomat.engine.validate import BoardIndex, Checked, check_order

_NO_ADJUSTMENTS: Mapping[str, int] = MappingProxyType({})
_NONE_LISTED: Mapping[Order, str] = MappingProxyType({})


class OrderSet:
    """Accepted orders for one phase, per power."""

    def __init__(self, state: GameState, index: BoardIndex | None = None) -> None:
        """``index``: the state's :class:`~engine.validate.BoardIndex`, to share its tables
        (convoy routes, the legal-order listing) with other users of the same state."""
        gmap = state.map
        self.state = state
        self.index = index if index is not None else BoardIndex(state)
        # Every power's orders but waives, by order_key (an accepted order is always for one
        # of its power's own units, so the keys of two powers never meet).
        self._all: dict[str, UnitOrder] = {}
        self._waives: dict[str, int] = dict.fromkeys(gmap.powers, 0)
        self._province_at = gmap.province_at
        self._adjusting = adjusting = state.phase.kind == "adjustment"
        # Read only: in other phases one shared empty mapping serves.
        self._adjust: Mapping[str, int] = state.adjustments() if adjusting else _NO_ADJUSTMENTS

    # -- giving orders -------------------------------------------------------------------

    def submit(self, power: str, order: Order) -> Checked:
        """Judge ``order`` from ``power``; keep it if accepted. Returns the note and the
        (normalised) order."""
        if power not in self._waives:
            return Checked(Note.NYU, order)
        checked = check_order(self.index, power, order)
        if checked.note is not ACCEPTED:
            return checked
        order = checked.order
        if self._adjusting:
            note = self._count(power, order)
            if note is not ACCEPTED:
                return Checked(note, order)
        self._keep(power, order)
        return checked

    def submit_listed(
        self, orders: Mapping[str, Iterable[Order]], listed: Mapping[str, Mapping[Order, str]]
    ) -> None:
        """Give every power's ``orders`` at once, for a search that adjudicates many order
        sets from one position. ``listed`` is the position's legal-order listing: per power,
        its listed orders, each with its :func:`~engine.orders.order_key`. An order listed
        for the power giving it is legal and normal as it stands, so it is kept without
        being judged again (builds and removals are still counted, one beyond the allowance
        dropped); any other order is judged as :meth:`submit` judges it. Notes are not
        returned."""
        if not self._adjusting:
            kept = listed_by_key(orders, listed)
            if kept is not None:  # every order listed: nothing to judge
                self._all.update(kept)
                return
        for power, batch in orders.items():
            mine = listed.get(power, _NONE_LISTED)
            for order in batch:
                if order not in mine:
                    self.submit(power, order)
                elif not self._adjusting or self._count(power, order) is ACCEPTED:
                    self._keep(power, order)

    def _keep(self, power: str, order: Order) -> None:
        """Record an accepted order; a later order for the same unit replaces it (DATC
        4.D.1): orders but waives are kept by :func:`~engine.orders.order_key`. Every path
        that keeps an order comes here, or to :func:`listed_by_key`, which does the same
        for a batch of listed orders with the keys the listing holds."""
        if isinstance(order, Waive):
            self._waives[power] += 1
        else:  # order_key: a kept order's unit stands on the board, so the map knows its loc
            self._all[self._province_at[order.unit.loc]] = order

    def submit_all(self, orders: Mapping[str, Iterable[Order]]) -> list[tuple[str, Checked]]:
        out = []
        for power, batch in orders.items():
            for order in batch:
                out.append((power, self.submit(power, order)))
        return out

    def _count(self, power: str, order: Order) -> Note:
        allowed = self._adjust.get(power, 0)
        mine = self._mine(power)
        builds = sum(1 for o in mine.values() if isinstance(o, Build))
        removes = sum(1 for o in mine.values() if isinstance(o, Remove))
        if isinstance(order, Build):
            if province_of(order.unit.loc) in mine:
                return Note.ESC
            if builds + self._waives[power] >= allowed:
                return Note.NMB
        elif isinstance(order, Waive):
            if builds + self._waives[power] >= allowed:
                return Note.NMB
        elif isinstance(order, Remove) and order_key(order) not in mine and removes >= -allowed:
            return Note.NMR
        return ACCEPTED

    def cancel(self, power: str, order: Order) -> bool:
        """Withdraw one accepted order (DAIDE ``NOT (SUB (order))``)."""
        if power not in self._waives:
            return False
        if isinstance(order, Waive):
            if self._waives[power] > 0:
                self._waives[power] -= 1
                return True
            return False
        checked = check_order(self.index, power, order)
        key = order_key(checked.order)
        if checked.note is not ACCEPTED or self._all.get(key) != checked.order:
            return False
        del self._all[key]
        return True

    def clear(self, power: str) -> None:
        """Withdraw all of a power's orders (DAIDE ``NOT (SUB)``)."""
        if power in self._waives:
            for key in self._mine(power):
                del self._all[key]
            self._waives[power] = 0

    # -- reading them back ---------------------------------------------------------------

    def _mine(self, power: str) -> dict[str, UnitOrder]:
        """``power``'s orders but waives, by order_key."""
        return {k: o for k, o in self._all.items() if o.unit.power == power}

    def orders_of(self, power: str) -> list[Order]:
        out: list[Order] = list(self._mine(power).values())
        out.extend(Waive(power) for _ in range(self._waives.get(power, 0)))
        return out

    def all_orders(self) -> dict[str, list[Order]]:
        """Every power's orders (waives last), in one pass."""
        out: dict[str, list[Order]] = {p: [] for p in self._waives}
        for o in self._all.values():
            out[o.unit.power].append(o)
        for p, n in self._waives.items():
            out[p].extend(Waive(p) for _ in range(n))
        return out

    def by_unit(self) -> dict[str, UnitOrder]:
        """Movement and retreat orders keyed by the province of their unit."""
        return dict(self._all)

    def view_by_unit(self) -> Mapping[str, UnitOrder]:
        """:meth:`by_unit` without the copy, for a reader that does not keep it (the
        mapping changes as orders are given)."""
        return self._all

    def waives(self, power: str) -> int:
        return self._waives.get(power, 0)

    def missing_units(self, power: str) -> list[Unit]:
        """Movement: the power's units without an order."""
        mine = self._all
        return [u for p, u in self.state.units.items() if u.power == power and p not in mine]

    def missing_retreats(self, power: str) -> list[Dislodged]:
        mine = self._all
        return [
            d for p, d in self.state.dislodged.items() if d.unit.power == power and p not in mine
        ]

    def missing_adjustments(self, power: str) -> int:
        """Adjustment: > 0 removals still required, < 0 builds still possible, 0 done."""
        allowed = self._adjust.get(power, 0)
        mine = self._mine(power)
        if allowed < 0:
            removes = sum(1 for o in mine.values() if isinstance(o, Remove))
            return -allowed - removes
        if allowed > 0:
            sites = len(self.build_sites(power))
            builds = sum(1 for o in mine.values() if isinstance(o, Build))
            usable = min(allowed, sites + builds) - builds - self._waives[power]
            return -max(usable, 0)
        return 0

    def build_sites(self, power: str) -> list[str]:
        """Vacant owned home centres not yet built in."""
        mine = self._all
        return [h for h in build_sites(self.state, power) if h not in mine]

    def needs_orders(self, power: str) -> bool:
        """Does the power have anything to order in this phase at all (:func:`owes_orders`,
        whatever it has given already)?"""
        return owes_orders(self.state, power)

    def complete(self, power: str) -> bool:
        kind = self.state.phase.kind
        if kind == "movement":
            return not self.missing_units(power)
        if kind == "retreat":
            return not self.missing_retreats(power)
        return self.missing_adjustments(power) == 0


def listed_by_key(
    orders: Mapping[str, Iterable[Order]], listed: Mapping[str, Mapping[Order, str]]
) -> dict[str, UnitOrder] | None:
    """A movement or retreat phase's ``orders`` (per power) by order key, when every one of
    them is in ``listed`` for the power giving it (a search's candidate set, taken from the
    position's listing, ``OrderSet.submit_listed``): one order per unit, the later replacing
    the earlier (DATC 4.D.1, as ``OrderSet._keep`` keeps them). None as soon as one is not
    listed for its power: it must be judged, in an :class:`OrderSet`."""
    kept: dict[str, UnitOrder] = {}
    for power, batch in orders.items():
        mine = listed.get(power)
        if mine is None:
            return None
        for order in batch:
            key = mine.get(order)
            if key is None:
                return None
            # A movement or retreat listing holds no waive (a check for the type checker
            # only: it costs nothing when the engine runs).
            if TYPE_CHECKING:
                assert not isinstance(order, Waive)
            kept[key] = order
    return kept


def owes_orders(state: GameState, power: str) -> bool:
    """Does ``power`` have anything to order in ``state``'s phase: a unit to move, a
    dislodged unit to retreat, a removal to make, or a build it can make (a build allowed and
    a site to build in)? The server, the bots and the web page all ask this one function."""
    kind = state.phase.kind
    if kind == "movement":
        return any(u.power == power for u in state.units.values())
    if kind == "retreat":
        return any(d.unit.power == power for d in state.dislodged.values())
    return adjustment_owed(state, power, state.adjustments().get(power, 0))


def adjustment_owed(state: GameState, power: str, need: int) -> bool:
    """:func:`owes_orders` in an adjustment phase, for a power whose centres minus units
    are ``need`` (``state.adjustments()``, for a caller that asks of every power)."""
    return need < 0 or (need > 0 and bool(build_sites(state, power)))


def build_sites(state: GameState, power: str) -> list[str]:
    """The power's vacant build centres (its homes, or under a variant's "owned" rule every
    centre) that it owns: where it may build."""
    return [
        h
        for h in state.map.build_centres.get(power, ())
        if state.centres.get(h) == power and h not in state.units
    ]
