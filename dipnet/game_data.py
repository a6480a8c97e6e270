"""The ``diplomacy`` package's game and phase structures built from this server's positions:
what its client is sent when it joins a game (``Game.to_dict``'s fields) and after every
phase (``GamePhaseData``). A power's client sees its own orders in the phase in progress; an
omniscient one (the administrator) every power's; an observer none."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from diplomat.dipnet.saved_game import Message, PlayedPhase, package_map_name, phase_dict
from diplomat.engine.orders import Order
from diplomat.engine.state import GameState
from diplomat.replay.package_notation import order_text, power_name, state_dict

OBSERVER = "observer_type"
OMNISCIENT = "omniscient_type"
# The package's order settings: what a power's ``order_is_set`` says.
ORDER_NOT_SET, ORDER_SET_EMPTY, ORDER_SET = 0, 1, 2


def unit_orders(gmap_state: GameState, orders: Sequence[Order]) -> dict[str, str]:
    """A power's orders as the package keeps them: unit -> the rest (``{"A PAR": "- BUR"}``);
    a waive under ``WAIVE``."""
    out: dict[str, str] = {}
    for order in orders:
        text = order_text(gmap_state.map, order)
        unit, _, rest = text.partition(" ")
        if text == "WAIVE":
            out[f"WAIVE {len(out)}"] = "WAIVE"
            continue
        where, _, rest = rest.partition(" ")
        out[f"{unit} {where}"] = rest
    return out


def game_dict(
    game_id: str,
    state: GameState,
    *,
    role: str,
    rules: Sequence[str],
    status: str,
    deadline: int,
    controllers: Mapping[str, str],
    visible_orders: Mapping[str, Sequence[Order]],
    messages: Sequence[Message],
    created: int,
) -> dict[str, Any]:
    """The game as its client is sent it (``role``: a power's name, ``observer_type`` or
    ``omniscient_type``)."""
    gmap = state.map
    data = state_dict(state)
    powers = {}
    for p in gmap.powers:
        name = power_name(gmap, p)
        orders = visible_orders.get(p, ())
        powers[name] = {
            "name": name,
            "role": name if role not in (OBSERVER, OMNISCIENT) else role,
            "units": data["units"][name],
            "centers": data["centers"][name],
            "homes": data["homes"][name],
            "retreats": data["retreats"][name],
            "influence": data["influence"][name],
            "orders": unit_orders(state, orders),
            "controller": {str(created): controllers.get(p, "dummy")},
            "vote": "neutral",
            "wait": True,
            "order_is_set": ORDER_SET if orders else ORDER_NOT_SET,
            "civil_disorder": 0,
        }
    return {
        "game_id": game_id,
        "map_name": package_map_name(gmap),
        "rules": list(rules),
        "role": role,
        "status": status,
        "phase": state.phase.name,
        "deadline": deadline,
        "n_controls": len(gmap.powers),
        "timestamp_created": created,
        "powers": powers,
        "messages": [msg.to_dict() for msg in messages],
        "observer_level": role if role in (OBSERVER, OMNISCIENT) else None,
        "controlled_powers": [] if role in (OBSERVER, OMNISCIENT) else [role],
    }


def phase_data(played: PlayedPhase) -> dict[str, Any]:
    """One phase as ``GamePhaseData`` (name, state, orders, results, messages)."""
    return phase_dict(played)
