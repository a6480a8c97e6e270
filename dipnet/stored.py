"""A stored game (``server.store``) as the ``diplomacy`` package saves games: what
``diplomat show GAME --format diplomacy`` prints."""

from __future__ import annotations

from typing import Any

from diplomat.dipnet.press import PressWriter
from diplomat.dipnet.saved_game import Message, PlayedPhase, saved_game
from diplomat.engine.map import GameMap, MapError, load_map
from diplomat.engine.orders import Order, Result
from diplomat.engine.state import GameState, StateError
from diplomat.protocol import messages
from diplomat.protocol.codec import codec_for
from diplomat.protocol.mdf import table_for_map
from diplomat.protocol.syntax import ParseError
from diplomat.server.store import Store


class ExportError(ValueError):
    """A stored game that cannot be written in the package's format (its map is gone, a
    record is unreadable)."""


def stored_saved_game(store: Store, game_id: int, map_name: str) -> dict[str, Any]:
    """Game ``game_id`` of ``store``, played on ``map_name``, in the package's saved-game
    format; the phase in progress, if any, last (with no orders), or ``COMPLETED`` for a
    finished game."""
    row = store.game(game_id)
    try:
        gmap = load_map(map_name)
    except MapError as exc:
        raise ExportError(f"game {game_id}: {exc}") from None
    played = stored_phases(store, game_id, gmap)
    if not played:
        raise ExportError(f"game {game_id} has not started: no phase to write")
    rules = ["POWER_CHOICE"] + ([] if row.settings.get("level") else ["NO_PRESS"])
    return saved_game(str(game_id), gmap, rules, played, completed=row.result is not None)


def stored_phases(store: Store, game_id: int, gmap: GameMap) -> list[PlayedPhase]:
    """Every phase of game ``game_id`` stored so far, first to last, each with its orders'
    results and the press sent in it (the phase in progress last, with no orders)."""
    codec = codec_for(table_for_map(gmap))
    by_phase: dict[str, list[tuple[Order, Result | messages.NoteResult | None]]] = {}
    for phase, _power, text in store.results(game_id):
        try:
            msg = codec.parse_text(text)
        except ParseError as exc:
            why = f"game {game_id}, {phase}: unreadable result {text!r}: {exc}"
            raise ExportError(why) from None
        if isinstance(msg, messages.Ord) and msg.order is not None:
            by_phase.setdefault(phase, []).append((msg.order, msg.result))
    writer = PressWriter(gmap)
    press_by_phase: dict[str, list[Message]] = {}
    for p in store.press(game_id):
        for message in writer.daide(p.sender, p.recipients, p.body, p.phase, p.sent):
            press_by_phase.setdefault(p.phase, []).append(message)
    return [
        PlayedPhase(
            _state(gmap, game_id, phase, data),
            by_phase.get(phase, ()),
            press_by_phase.get(phase, ()),
        )
        for phase, data in store.states(game_id)
    ]


def _state(gmap: GameMap, game_id: int, phase: str, data: dict[str, Any]) -> GameState:
    try:
        return GameState.from_json(data, gmap)
    except StateError as exc:
        raise ExportError(f"game {game_id}, {phase}: unreadable position: {exc}") from None
