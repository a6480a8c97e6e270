"""Games in the ``diplomacy`` package's saved-game JSON (its ``to_saved_game_format``), which
its loader (``diplomacy.utils.export.from_saved_game_format``), its web viewer and
``diplomat replay`` read.

A saved game is ``{id, map, rules, phases}``; each phase is ``{name, state, orders, results,
messages}`` with the state as :func:`replay.package_notation.state_dict` writes it, the orders
per power in the package's notation, the results per unit as the package's codes, and the
messages ``{sender, recipient, time_sent, phase, message}`` (one per recipient, the package
having one recipient a message). A finished game's last phase is named ``COMPLETED``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from diplomat.engine.map import GameMap
from diplomat.engine.orders import (
    Disband,
    Order,
    Outcome,
    Result,
    Retreat,
    Waive,
)
from diplomat.engine.state import GameState
from diplomat.protocol.messages import NoteResult
from diplomat.replay.package_notation import (
    COMPLETED,
    order_text,
    power_name,
    state_dict,
    unit_text,
)

# Our maps that the package has too, by the package's name for them (replay reads the same).
OUR_MAPS = {"standard": "standard", "fleet_rome": "standard_fleet_rome"}
GLOBAL = "GLOBAL"  # the package's recipient of a message to everybody

# Our outcomes as the package's result codes (a dislodged unit has ``dislodged`` besides).
_CODES = {
    Outcome.SUC: (),
    Outcome.BNC: ("bounce",),
    Outcome.CUT: ("cut",),
    Outcome.DSR: ("disrupted",),
    Outcome.NSO: ("void",),
}


@dataclass(frozen=True, slots=True)
class Message:
    """A message as the package keeps it: powers by the package's names (or ``GLOBAL``),
    ``time_sent`` in microseconds (the package keys a game's messages by it)."""

    sender: str
    recipient: str
    time_sent: int
    phase: str
    message: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "sender": self.sender,
            "recipient": self.recipient,
            "time_sent": self.time_sent,
            "phase": self.phase,
            "message": self.message,
        }


@dataclass(frozen=True, slots=True)
class PlayedPhase:
    """One phase: its position, the orders given with their results (none yet for the
    phase in progress), and its messages."""

    state: GameState
    orders: Sequence[tuple[Order, Result | NoteResult | None]] = ()
    messages: Sequence[Message] = field(default_factory=tuple)


def package_map_name(gmap: GameMap) -> str:
    """The package's name for our map (``standard_fleet_rome``); our own name for a map it
    does not have."""
    return OUR_MAPS.get(gmap.name, gmap.name)


def result_codes(order: Order, result: Result | NoteResult | None) -> list[str]:
    """An order's result as the package's codes: ``[]`` (it worked), ``bounce``, ``cut``,
    ``void``, ``dislodged``; a retreat that fails or a disband: ``disband``."""
    if result is None:
        return []
    if isinstance(result, NoteResult):
        return ["dislodged"] if result.retreat else []
    if isinstance(order, Retreat):
        return [] if result.outcome is Outcome.SUC else [*_CODES[result.outcome], "disband"]
    if isinstance(order, Disband):
        return ["disband"]
    codes = list(_CODES[result.outcome])
    if result.dislodged:
        codes.append("dislodged")
    return codes


def phase_dict(played: PlayedPhase, name: str | None = None) -> dict[str, Any]:
    """One phase of a saved game (``name`` overrides the phase's, for ``COMPLETED``)."""
    state = played.state
    gmap = state.map
    orders: dict[str, list[str]] = {power_name(gmap, p): [] for p in gmap.powers}
    results: dict[str, list[str]] = {unit_text(gmap, u): [] for u in state.units.values()}
    if state.phase.kind == "retreat":
        results = {unit_text(gmap, d.unit): [] for d in state.dislodged.values()}
    for order, result in played.orders:
        power = order.power if isinstance(order, Waive) else order.unit.power
        orders[power_name(gmap, power)].append(order_text(gmap, order))
        if not isinstance(order, Waive):
            results[unit_text(gmap, order.unit)] = result_codes(order, result)
    phase_name = name or state.phase.name
    return {
        "name": phase_name,
        "state": state_dict(state, phase_name),
        "orders": orders,
        "results": results,
        "messages": [msg.to_dict() for msg in played.messages],
    }


def saved_game(
    game_id: str,
    gmap: GameMap,
    rules: Iterable[str],
    phases: Sequence[PlayedPhase],
    completed: bool,
) -> dict[str, Any]:
    """The whole game; ``completed`` names its last phase ``COMPLETED``."""
    rules = list(rules)
    out = []
    for k, played in enumerate(phases):
        last = k == len(phases) - 1
        data = phase_dict(played, COMPLETED if last and completed else None)
        data["state"].update(game_id=game_id, map=package_map_name(gmap), rules=rules)
        out.append(data)
    return {"id": game_id, "map": package_map_name(gmap), "rules": rules, "phases": out}
