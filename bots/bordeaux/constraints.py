"""Alliances and constraints: what negotiation will later supply, given here as input.

* **Alliances**: our allies' values are summed with ours (every search maximises the
  alliance's value, and supports are made inside it); every other power is alone unless
  ``other_alliances`` groups them.
* **Demilitarised zones** (provinces): the powers in ``dmz_powers`` (default: our alliance)
  neither move, retreat, build, nor support into them, and units already there do not
  stay (they hold only if they have no move out).
* **Required orders**: the unit gets exactly that order (movement and retreats; a required
  build or removal is always made).
* **Forbidden orders**: never given (by any power's search: a forbidden order is an
  agreement, so the search does not expect the other side to break it either).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from engine.map import province_of
from engine.orders import (
    Build,
    Convoy,
    Disband,
    Hold,
    Move,
    Order,
    Retreat,
    SupportHold,
    SupportMove,
    Waive,
    order_key,
    order_power,
)


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

    def allowed(self, order: Order, bound: frozenset[str]) -> bool:
        """May this order be given at all?"""
        if order in self.forbidden:
            return False
        if not self.dmz or order_power(order) not in bound:
            return True
        if isinstance(order, Move | Retreat):
            return province_of(order.dest) not in self.dmz
        if isinstance(order, SupportMove | Convoy):
            return province_of(order.dest) not in self.dmz
        if isinstance(order, SupportHold):
            return order.target.province not in self.dmz
        if isinstance(order, Build):
            return order.unit.province not in self.dmz
        return True

    def filter(
        self, legal: Mapping[str, Sequence[Order]], bound: frozenset[str]
    ) -> dict[str, list[Order]]:
        """The legal orders (per unit or site) that the constraints leave. A unit with a
        required order keeps only that; a unit in a zone it must leave keeps its holds only
        when nothing else is left (a unit must be given some order)."""
        # One order per unit or site, by the engine's key (its province: a listing's key is a
        # location, so a fleet on a split coast and a build on one find it by province).
        required = {order_key(o): o for o in self.required if not isinstance(o, Waive)}
        out: dict[str, list[Order]] = {}
        for key, orders in legal.items():
            if not orders:
                out[key] = []
                continue
            want = required.get(province_of(key))
            if want is not None and want in orders:
                out[key] = [want]
                continue
            kept = [o for o in orders if self.allowed(o, bound)]
            if self.dmz and isinstance(orders[0], Hold | Move | SupportHold | SupportMove):
                unit = orders[0].unit
                if unit.province in self.dmz and unit.power in bound:
                    leaving: list[Order] = [o for o in kept if isinstance(o, Move)]
                    kept = leaving or kept
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
