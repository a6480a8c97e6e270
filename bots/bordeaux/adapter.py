"""Where the Bordeaux bot lists legal orders and adjudicates: :class:`EngineView`.

The searches need two things of the rules: every unit's legal orders, and the outcome of a
full movement order set (thousands of times a phase). Both come from
``engine.search.SearchPosition``, which indexes a position once and then lists and adjudicates
from it; nothing here adjudicates on its own, and no other Bordeaux module lists or
adjudicates orders. The other modules still read the engine's values directly (orders, units
and the map from ``engine.orders``, ``engine.state`` and ``engine.map``), the search plans its
convoy routes with ``engine.convoy``, and the default orders come from ``bots.dumbbot``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from diplomat.engine import search
from diplomat.engine.orders import Order, order_power
from diplomat.engine.state import GameState, Unit


@dataclass(frozen=True, slots=True)
class AfterMovement:
    """What a movement order set leads to: the units standing, by province, and the units
    dislodged (including those with no retreat, which are destroyed)."""

    units: Mapping[str, Unit]
    dislodged: tuple[Unit, ...]


class EngineView:
    """A movement, retreat or adjustment position as Bordeaux's searches ask it: the engine's
    legal orders per power and the outcome of a movement order set keyed by province."""

    def __init__(self, state: GameState) -> None:
        self.state = state
        self._engine = search.SearchPosition(state)

    def legal(self, power: str | None = None) -> Mapping[str, tuple[Order, ...]]:
        """Legal orders keyed by unit location (or build site, or ``"WAIVE"``): the engine's
        own listing, shared and immutable."""
        return self._engine.legal(power)

    def adjudicate(self, orders: Mapping[str, Order]) -> AfterMovement:
        """Adjudicate a movement phase. ``orders`` maps a unit's province to one of its legal
        orders (as :meth:`legal` lists them); units without one hold."""
        by_power: dict[str, list[Order]] = {}
        for order in orders.values():
            by_power.setdefault(order_power(order), []).append(order)
        # The units standing after the movement: a following retreat phase keeps the
        # dislodged apart, and adjustments are not yet made.
        units, dislodged = self._engine.moves(by_power)
        return AfterMovement(units, dislodged)
