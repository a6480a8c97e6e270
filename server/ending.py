"""How a game ends: a solo, the year limit, years without a centre changing hands, an agreed
draw; the result as stored, and the summary (SMR) sent at the end."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from diplomat.engine.state import GameState
from diplomat.engine.turn import PhaseResult
from diplomat.protocol import messages
from diplomat.server.seating import Seat
from diplomat.server.settings import GameSettings

Result = dict[str, Any]  # kind (solo, draw), powers, reason, year, phase, centres (JSON)


def result(kind: str, powers: Iterable[str], reason: str, state: GameState, year: int) -> Result:
    return {
        "kind": kind,
        "powers": sorted(powers),
        "reason": reason,
        "year": year,
        "phase": state.phase.name,
        "centres": state.centre_counts(),
    }


def after_phase(
    settings: GameSettings, before: GameState, processed: PhaseResult, unchanged_years: int
) -> Result | None:
    """Whether the phase just processed ended the game: a solo, else the year limit, else
    ``settings.draw_unchanged_years`` without a centre changing hands."""
    after, year = processed.state, before.phase.year
    if processed.centres_updated:
        winner = after.winner()
        if winner is not None:
            return result("solo", [winner], "solo", after, year)
    if settings.max_year is not None and after.phase.year > settings.max_year:
        return result("draw", after.alive(), "year limit", after, year)
    if (
        settings.draw_unchanged_years is not None
        and processed.centres_updated
        and unchanged_years >= settings.draw_unchanged_years
    ):
        return result("draw", after.alive(), "no centre changed hands", after, year)
    return None


def announcement(ended: Result) -> messages.Slo | messages.Drw:
    """SLO for a solo, DRW for a draw that ended the game by rule (all survivors)."""
    return messages.Slo(ended["powers"][0]) if ended["kind"] == "solo" else messages.Drw()


def summary(state: GameState, seats: Mapping[str, Seat]) -> messages.Smr:
    """SMR: each power's player, centres and (if out) the year it was eliminated."""
    counts = state.centre_counts()
    entries = []
    for power in state.map.powers:
        seat = seats.get(power)
        year = seat.eliminated if seat is not None and counts[power] == 0 else None
        name, version = (seat.name, seat.version) if seat is not None else ("", "")
        entries.append(messages.SmrEntry(power, name, version, counts[power], year))
    return messages.Smr(state.phase, tuple(entries))
