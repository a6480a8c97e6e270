"""Many adjudications from one position, for search bots.

A :class:`SearchPosition` is built once per state; its indexes (convoy tables, the legal-order
listing) serve every call, so a bot can list the legal orders once and adjudicate thousands
of candidate order sets without rebuilding anything::

    from diplomat.engine.search import SearchPosition

    pos = SearchPosition(state)
    options = pos.legal("FRA")                 # {"PAR": (A PAR H, A PAR - BUR, ...), ...}
    out = pos.adjudicate({"FRA": [options["PAR"][1]]})
    out.state                                  # the next state (as engine.turn.process)
    out.results                                # [(order, result), ...] for every unit
    out.dislodged                              # units dislodged this phase

Orders equal to one :meth:`SearchPosition.legal` lists are accepted without being judged again; any
other order is judged as ``engine.turn.process`` judges it (an illegal one is dropped and its unit
gets the default order, see ``engine.defaults.missing_orders``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from diplomat.engine.legal import listing, select
from diplomat.engine.movement import adjudicate_movement
from diplomat.engine.orders import WAIVE_KEY, Order, Result, order_key, order_power
from diplomat.engine.orderset import OrderSet, listed_by_key
from diplomat.engine.state import FrozenDict, GameState, Unit
from diplomat.engine.turn import after_unit_orders, process
from diplomat.engine.validate import BoardIndex

__all__ = ["Adjudication", "SearchPosition"]


@dataclass(frozen=True, slots=True)
class Adjudication:
    """What one set of orders does from a position."""

    state: GameState  # the next state needing orders: empty retreat and adjustment phases
    # are skipped, as engine.turn.process does (state.phase says which phase it is)
    results: list[tuple[Order, Result]]  # every order that took effect, defaults included
    dislodged: tuple[Unit, ...]  # units dislodged this phase (those with no retreat included)


class SearchPosition:
    """One state with its indexes, for listing and adjudicating many times."""

    def __init__(self, state: GameState) -> None:
        self.state = state
        self._index = BoardIndex(state)
        self._by_power: dict[str | None, FrozenDict[str, tuple[Order, ...]]] = {}
        self._listed: dict[str, dict[Order, str]] | None = None

    def legal(self, power: str | None = None) -> Mapping[str, tuple[Order, ...]]:
        """Every legal order of ``power`` (every power's when None) keyed by the unit's
        location, build site or ``WAIVE_KEY``, as ``engine.legal.legal_orders`` lists them.
        Computed once per position and shared by every caller, so it cannot be changed: a
        ``FrozenDict`` of tuples (``legal_orders`` gives lists of one's own)."""
        cached = self._by_power.get(power)
        if cached is None:
            cached = self._by_power[power] = FrozenDict(select(listing(self._index), power))
        return cached

    def adjudicate(self, orders: Mapping[str, Iterable[Order]]) -> Adjudication:
        """Adjudicate this phase with ``orders`` per power; missing orders take the rules'
        defaults. The position is not changed, so it can be called again with other
        orders."""
        state = self.state
        listed = self._listed_keys()
        kept = listed_by_key(orders, listed) if state.phase.kind != "adjustment" else None
        if kept is not None:  # a movement or retreat order set all from the listing
            phase = after_unit_orders(state, kept)
        else:
            book = OrderSet(state, self._index)
            book.submit_listed(orders, listed)
            phase = process(state, book)
        return Adjudication(phase.state, phase.results, phase.dislodged)

    def moves(
        self, orders: Mapping[str, Iterable[Order]]
    ) -> tuple[Mapping[str, Unit], tuple[Unit, ...]]:
        """What a search reads of :meth:`adjudicate` in a movement phase, the units standing
        (``state.units``) and the units dislodged, without building the next state and the
        results (about a quarter of an adjudication's time, saved thousands of times a
        phase)."""
        if self.state.phase.kind == "movement":
            kept = listed_by_key(orders, self._listed_keys())
            if kept is not None:
                out = adjudicate_movement(self.state, kept)
                return out.units, out.dislodged_units
        done = self.adjudicate(orders)
        return done.state.units, done.dislodged

    def _listed_keys(self) -> dict[str, dict[Order, str]]:
        """The listed orders per power, each with its order key, once the position has been
        listed (listing only to skip judging a few orders would cost more than judging
        them). Orders are values: an order equal to a listed one is that legal order,
        whichever object it is."""
        if self._listed is None:
            if not self._by_power:
                return {}
            listed: dict[str, dict[Order, str]] = {}
            for key, orders in listing(self._index).items():
                if key == WAIVE_KEY:
                    for w in orders:
                        listed.setdefault(order_power(w), {})[w] = key
                else:  # one unit's (or build site's) orders: one power, one order key
                    mine = listed.setdefault(order_power(orders[0]), {})
                    mine.update(dict.fromkeys(orders, order_key(orders[0])))
            self._listed = listed
        return self._listed
