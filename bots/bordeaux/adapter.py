"""The one place the Bordeaux bot touches the rules engine.

The searches need two things: every unit's legal orders, and the adjudication of a full
movement order set (thousands of times a phase). Both come from the engine; nothing here
adjudicates on its own. When ``engine.search`` (a cached ``Position``) lands, only this module
changes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from engine.legal import legal_orders
from engine.movement import adjudicate_movement
from engine.orders import Order
from engine.state import GameState, Unit


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a movement order set leads to: the units standing, by province, and the units
    dislodged (including those with no retreat, which are destroyed)."""

    units: Mapping[str, Unit]
    dislodged: tuple[Unit, ...]


class Position:
    """A movement, retreat or adjustment position, with its legal orders cached per power."""

    def __init__(self, state: GameState) -> None:
        self.state = state
        self._legal: dict[str | None, dict[str, list[Order]]] = {}

    def legal(self, power: str | None = None) -> dict[str, list[Order]]:
        """Legal orders keyed by unit location (or build site, or ``"WAIVE"``)."""
        table = self._legal.get(power)
        if table is None:
            table = self._legal[power] = legal_orders(self.state, power)
        return table

    def adjudicate(self, orders: Mapping[str, Order]) -> Outcome:
        """Adjudicate a movement phase. ``orders`` maps a unit's province to one of its legal
        orders (as :meth:`legal` lists them); units without one hold."""
        out = adjudicate_movement(self.state, orders)
        gone = tuple(d.unit for d in out.dislodged) + tuple(out.destroyed)
        return Outcome(out.units, gone)
