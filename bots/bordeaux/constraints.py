"""Alliances and constraints: what negotiation will later supply, given here as input.

* **Alliances**: our allies' values are summed with ours (every search maximises the
  alliance's value, and supports are made inside it); every other power is alone unless
  ``other_alliances`` groups them.
* **Demilitarised zones** (provinces): the powers in ``dmz_powers`` (default: our alliance)
  give no order that breaks the zone by the law of agreements
  (:func:`protocol.agreements.dmz_breaking`: no move, retreat, build, support or convoy into
  it, and no unit left in it); a unit inside keeps an order that stays only when it has no
  move out (a unit must be given some order).
* **Required orders**: the unit gets exactly that order (movement and retreats; a required
  build or removal is always made).
* **Forbidden orders**: never given, nor any order that does the same by the law
  (:func:`protocol.agreements.same_order`: another coast spelling, a convoy route); by any
  power's search: a forbidden order is an agreement, so the search does not expect the other
  side to break it either.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from diplomat.engine.map import province_of
from diplomat.engine.orders import (
    Disband,
    Hold,
    Order,
    Waive,
    order_key,
    order_power,
)
from diplomat.protocol.agreements import dmz_breaking, same_order


@dataclass(frozen=True)
class Constraints:
    allies: frozenset[str] = frozenset()
    other_alliances: tuple[frozenset[str], ...] = ()
    dmz: frozenset[str] = frozenset()
    dmz_powers: frozenset[str] | None = None  # None: our alliance
    required: tuple[Order, ...] = ()
    forbidden: frozenset[Order] = field(default_factory=frozenset)

    def alliances(self, power: str, powers: Iterable[str]) -> list[frozenset[str]]:
        """The partition of ``powers`` into alliances, ours first."""
        ours = frozenset({power, *self.allies})
        groups = [ours]
        placed = set(ours)
        for other in self.other_alliances:
            g = frozenset(other) - placed
            if g:
                groups.append(g)
                placed |= g
        groups += [frozenset({p}) for p in powers if p not in placed]
        return groups

    def bound(self, power: str) -> frozenset[str]:
        """The powers the demilitarised zones bind."""
        if self.dmz_powers is not None:
            return self.dmz_powers
        return frozenset({power, *self.allies})

    def _index(self) -> dict[tuple[str, str], list[Order]]:
        """The forbidden orders by power and unit (what the law compares orders by)."""
        out: dict[tuple[str, str], list[Order]] = {}
        for o in self.forbidden:
            out.setdefault((order_power(o), order_key(o)), []).append(o)
        return out

    def _allowed(
        self, order: Order, bound: frozenset[str], index: dict[tuple[str, str], list[Order]]
    ) -> bool:
        if order in self.forbidden or any(
            same_order(f, order) for f in index.get((order_power(order), order_key(order)), ())
        ):
            return False
        return not (self.dmz and order_power(order) in bound and dmz_breaking(order, self.dmz))

    def allowed(self, order: Order, bound: frozenset[str]) -> bool:
        """May this order be given at all? (A unit inside a zone may have no allowed order:
        :meth:`filter` then keeps what it must.)"""
        return self._allowed(order, bound, self._index())

    def filter(
        self, legal: Mapping[str, Sequence[Order]], bound: frozenset[str]
    ) -> dict[str, list[Order]]:
        """The legal orders (per unit or site) that the constraints leave. A unit with a
        required order keeps only that; a unit in a zone it must leave keeps its holds only
        when nothing else is left (a unit must be given some order)."""
        # One order per unit or site, by the engine's key (its province: a listing's key is a
        # location, so a fleet on a split coast and a build on one find it by province).
        required = {order_key(o): o for o in self.required if not isinstance(o, Waive)}
        index = self._index()
        out: dict[str, list[Order]] = {}
        for key, orders in legal.items():
            if not orders:
                out[key] = []
                continue
            want = required.get(province_of(key))
            if want is not None:
                # The listing's own spelling of the agreed order (a coast, a route) if the
                # law says it does the same.
                doing: list[Order] = (
                    [want] if want in orders else [o for o in orders if same_order(want, o)]
                )
                if doing:
                    out[key] = doing[:1]
                    continue
            kept = [o for o in orders if self._allowed(o, bound, index)]
            out[key] = kept or [_fallback(orders)]
        return out

    def required_for(self, power: str) -> list[Order]:
        return [o for o in self.required if order_power(o) == power]


def _fallback(orders: Sequence[Order]) -> Order:
    """What a unit does when the constraints forbid everything: hold, or disband."""
    for o in orders:
        if isinstance(o, Hold | Disband):
            return o
    return orders[0]
