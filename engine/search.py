"""Many adjudications from one position, for search bots.

A :class:`Position` is built once per state; its indexes (convoy tables, the legal-order
listing) serve every call, so a bot can list the legal orders once and adjudicate thousands
of candidate order sets without rebuilding anything::

    from engine.search import Position

    pos = Position(state)
    options = pos.legal("FRA")                 # {"PAR": [A PAR H, A PAR - BUR, ...], ...}
    out = pos.adjudicate({"FRA": [options["PAR"][1]]})
    out.state                                  # the next state (as engine.turn.process)
    out.results                                # [(order, result), ...] for every unit
    out.dislodged                              # units dislodged this phase

Orders taken from :meth:`Position.legal` are accepted without being judged again; any other
order is judged as ``engine.turn.process`` judges it (an illegal one is dropped and its unit
gets the default order, see ``engine.defaults.missing_orders``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from engine.legal import Listing, listing, select
from engine.orders import Note, Order, Result, Waive, order_key, order_power
from engine.orderset import OrderSet
from engine.state import GameState, Unit
from engine.turn import PhaseResult, after_movement, after_retreats, process
from engine.validate import Position as _Tables
from engine.validate import check_order

__all__ = ["Adjudication", "Position"]


@dataclass(frozen=True, slots=True)
class Adjudication:
    """What one set of orders does from a position."""

    state: GameState  # the next state needing orders: empty retreat and adjustment phases
    # are skipped, as engine.turn.process does (state.phase says which phase it is)
    results: list[tuple[Order, Result]]  # every order that took effect, defaults included
    dislodged: list[Unit]  # units dislodged this phase (those with no retreat included)


class Position:
    """One state with its indexes, for listing and adjudicating many times."""

    def __init__(self, state: GameState) -> None:
        self.state = state
        self._tables = _Tables(state)
        self._by_power: dict[str | None, Listing] = {}
        self._listed: dict[int, tuple[str, str]] | None = None

    def legal(self, power: str | None = None) -> Listing:
        """Every legal order of ``power`` (every power's when None) keyed by the unit's
        location, build site or ``WAIVE_KEY``, as ``engine.legal.legal_orders`` lists them.
        Computed once per position: the mapping is shared, do not change it."""
        cached = self._by_power.get(power)
        if cached is None:
            cached = self._by_power[power] = select(listing(self._tables), power)
        return cached

    def adjudicate(self, orders: Mapping[str, Iterable[Order]]) -> Adjudication:
        """Adjudicate this phase with ``orders`` per power; missing orders take the rules'
        defaults. The position is not changed, so it can be called again with other
        orders."""
        state = self.state
        listed = self._listed_keys()
        if state.phase.kind == "adjustment":
            book = OrderSet(state, self._tables)
            for power, batch in orders.items():
                for order in batch:
                    mark = listed.get(id(order))
                    if mark is not None and mark[1] == power:
                        book.submit_legal(power, order)
                    else:
                        book.submit(power, order)
            phase = process(state, book)
        else:
            phase = self._unit_phase(orders, listed)
        dislodged = [o.unit for o, r in phase.results if r.dislodged and not isinstance(o, Waive)]
        return Adjudication(phase.state, phase.results, dislodged)

    def _unit_phase(
        self, orders: Mapping[str, Iterable[Order]], listed: dict[int, tuple[str, str]]
    ) -> PhaseResult:
        """A movement or retreat phase: one order per unit, the later replacing the earlier
        (DATC 4.D.1); listed orders go straight in, others are judged."""
        by_unit: dict[str, Order] = {}
        for power, batch in orders.items():
            for order in batch:
                mark = listed.get(id(order))
                if mark is not None and mark[1] == power:
                    by_unit[mark[0]] = order
                    continue
                checked = check_order(self._tables, power, order)
                if checked.note is Note.MBV:
                    by_unit[order_key(checked.order)] = checked.order
        if self.state.phase.kind == "movement":
            return after_movement(self.state, by_unit)
        return after_retreats(self.state, by_unit)

    def _listed_keys(self) -> dict[int, tuple[str, str]]:
        """The listed orders by identity, with each one's key and power, once the position
        has been listed (listing only to skip judging a few orders would cost more than
        judging them). The listing keeps the objects alive, so an identity found here is
        one of them."""
        if self._listed is None:
            if not self._by_power:
                return {}
            full = listing(self._tables)
            self._listed = {
                id(o): (order_key(o), order_power(o)) for orders in full.values() for o in orders
            }
        return self._listed
