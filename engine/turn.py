"""Processing a phase: from a state and its orders to the results and the next state.

``process`` runs the right adjudication for the phase (movement, retreats, adjustments), then
moves on: supply centres change hands after the Fall (after its retreats, if any), and phases in
which nobody has anything to do are skipped (a retreat phase with no retreats to make, an
adjustment phase in which no power can build or must remove).

Missing orders get the defaults of ``engine.defaults.missing_orders`` (units hold, dislodged
units disband, unused builds are waived, missing removals follow civil disorder). The rule set
(``engine.rules``: DATC 3.0, or the ``diplomacy`` package's choices) is an argument, passed on
to movement and civil disorder.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from diplomat.engine.defaults import missing_orders, missing_unit_orders
from diplomat.engine.map import province_of
from diplomat.engine.movement import adjudicate_movement
from diplomat.engine.orders import (
    RESULTS,
    Build,
    Order,
    Outcome,
    Remove,
    Result,
    Retreat,
    UnitOrder,
    order_power,
)
from diplomat.engine.orderset import OrderSet, adjustment_owed
from diplomat.engine.rules import DATC, Rules
from diplomat.engine.state import FrozenDict, GameState, Phase, Unit


@dataclass(frozen=True, slots=True)
class PhaseResult:
    phase: Phase  # the phase that was processed
    results: list[tuple[Order, Result]]  # one per unit, retreat or adjustment
    state: GameState  # the next state needing orders (or the final state)
    centres_updated: bool  # supply-centre ownership was recomputed (DAIDE sends SCO)
    # The units this phase's moves dislodged, in the state's order of units (those with no
    # retreat included); none after retreats and adjustments.
    dislodged: tuple[Unit, ...] = ()


def process(
    state: GameState,
    orders: OrderSet | Mapping[str, Iterable[Order]],
    rules: Rules = DATC,
) -> PhaseResult:
    """Adjudicate ``state``'s phase under ``rules`` (``engine.rules``). ``orders`` is an
    :class:`OrderSet` (already judged) or orders per power, which are judged here; illegal
    orders are ignored."""
    if not isinstance(orders, OrderSet):
        book = OrderSet(state)
        book.submit_all(orders)
        orders = book
    if state.phase.kind == "adjustment":
        return _after_adjustments(state, orders, rules)
    return after_unit_orders(state, orders.view_by_unit(), rules)


def after_unit_orders(
    state: GameState, orders: Mapping[str, UnitOrder], rules: Rules = DATC
) -> PhaseResult:
    """:func:`process` for a movement or retreat phase whose ``orders`` are legal, normal and
    keyed by their unit's province (``OrderSet.by_unit``)."""
    if state.phase.kind == "movement":
        return after_movement(state, orders, rules)
    return after_retreats(state, orders)


def after_movement(
    state: GameState, orders: Mapping[str, UnitOrder], rules: Rules = DATC
) -> PhaseResult:
    """:func:`process` for a movement phase whose ``orders`` are legal, normal and keyed by
    their unit's province (``OrderSet.by_unit``)."""
    outcome = adjudicate_movement(state, orders, rules)
    results = outcome.results
    units = FrozenDict(outcome.units)
    retreats = state.phase.next()
    if outcome.dislodged:
        dislodged = FrozenDict({d.unit.province: d for d in outcome.dislodged})
        nxt = GameState(state.map, retreats, units, state.centres, dislodged)
        return PhaseResult(state.phase, results, nxt, False, outcome.dislodged_units)
    # Nobody to retreat: straight to the phase after the retreats.
    nxt = GameState(state.map, retreats.next(), units, state.centres)
    return _advance(state.phase, results, nxt, outcome.dislodged_units)


def after_retreats(state: GameState, orders: Mapping[str, UnitOrder]) -> PhaseResult:
    """:func:`process` for a retreat phase whose ``orders`` are legal, normal and keyed by
    their unit's province (``OrderSet.by_unit``)."""
    given = dict(orders)
    for order in missing_unit_orders(state, None, given.values()):
        given[order.unit.province] = order
    chosen = [given[prov] for prov in state.dislodged]
    targets: dict[str, int] = {}
    for order in chosen:
        if isinstance(order, Retreat):
            dest = province_of(order.dest)
            targets[dest] = targets.get(dest, 0) + 1
    units = dict(state.units)
    results: list[tuple[Order, Result]] = []
    for order in chosen:
        if isinstance(order, Retreat):
            if targets[province_of(order.dest)] > 1:
                results.append((order, RESULTS[Outcome.BNC, False]))
                continue
            moved = Unit(order.unit.power, order.unit.type, order.dest)
            units[moved.province] = moved
        results.append((order, RESULTS[Outcome.SUC, False]))
    after = state.replace(units=FrozenDict(units), dislodged=FrozenDict())
    return _advance(state.phase, results, after.replace(phase=state.phase.next()))


def _after_adjustments(state: GameState, book: OrderSet, rules: Rules) -> PhaseResult:
    units = dict(state.units)
    results: list[tuple[Order, Result]] = []
    done = RESULTS[Outcome.SUC, False]
    by_power = book.all_orders()
    given = [o for orders in by_power.values() for o in orders]
    for order in missing_orders(state, None, given, rules):
        by_power[order_power(order)].append(order)
    for order in [o for orders in by_power.values() for o in orders]:
        if isinstance(order, Build):
            units[order.unit.province] = order.unit
        elif isinstance(order, Remove):
            del units[order.unit.province]
        results.append((order, done))
    nxt = state.replace(phase=state.phase.next(), units=FrozenDict(units))
    return PhaseResult(state.phase, results, nxt, False)


def _advance(
    processed: Phase,
    results: list[tuple[Order, Result]],
    state: GameState,
    dislodged: tuple[Unit, ...] = (),
) -> PhaseResult:
    """``state`` is at the phase after a movement or retreat phase with nobody to retreat:
    update centres after the Fall and skip an empty adjustment phase."""
    updated = False
    if state.phase.season in ("SUM", "AUT"):  # no retreats to make
        state = state.replace(phase=state.phase.next())
    if state.phase.season == "WIN":
        state = update_centres(state)
        updated = True
        if not adjustments_needed(state):
            state = state.replace(phase=state.phase.next())
    return PhaseResult(processed, results, state, updated, dislodged)


def update_centres(state: GameState) -> GameState:
    """After the Fall: every supply centre with a unit on it belongs to that unit's power."""
    owners = state.centres
    supply_centres = state.map.supply_centres
    changed = {
        prov: unit.power
        for prov, unit in state.units.items()
        if prov in supply_centres and owners.get(prov) != unit.power
    }
    if not changed:  # most Falls in a long game: the same mapping serves
        return state
    return state.replace(centres=FrozenDict({**owners, **changed}))


def adjustments_needed(state: GameState) -> bool:
    """Does any power have a build it can make or a removal it must make (does anyone owe
    orders, ``engine.orderset.owes_orders``)?"""
    for power, need in state.adjustments().items():
        if need and adjustment_owed(state, power, need):
            return True
    return False
