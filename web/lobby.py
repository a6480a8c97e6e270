"""The server's games, as the list page shows them: which games are listed, and one row per
listed game built from its runner's public status (forming, in progress) or from the store
(finished).

A game is listed when the server runs with ``--public`` (every game but a tournament's), or
when whoever created it on the page asked for it (the lobby's "listed" choice, kept in the
server's database so that it outlives a restart). A row names no player: in a gunboat game
nobody may learn who plays whom before the end, and in a press game the names are the
players' business; who is ready is a state per power, as the seat's own Powers table shows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from diplomat.engine.map import GameMap
from diplomat.engine.notation import phase_title
from diplomat.engine.state import Phase
from diplomat.server.status import MasterStatus
from diplomat.web.seats import open_tables

if TYPE_CHECKING:
    from diplomat.server.app import GameRunner
    from diplomat.server.store import GameRow

_SCHEMA = """
CREATE TABLE IF NOT EXISTS web_listed (
    game_id INTEGER PRIMARY KEY        -- a game its creator chose to list on the games page
);
"""
PLAYED = ("active", "finished")  # a stored game's status once it started (else abandoned)
LIST_LIMIT = 200  # rows the list sends at most, newest first


class Listing:
    """The games their creators chose to list, in the server's database (own table)."""

    def __init__(self, path: str) -> None:
        self._db = open_tables(path, _SCHEMA)

    def close(self) -> None:
        self._db.close()

    def add(self, game_id: int) -> None:
        self._db.execute("INSERT OR IGNORE INTO web_listed VALUES (?)", (game_id,))

    def ids(self) -> set[int]:
        return {int(r[0]) for r in self._db.execute("SELECT game_id FROM web_listed")}


def is_listed(game_id: int, public: bool, chosen: set[int]) -> bool:
    return public or game_id in chosen


def _title(phase: str | None) -> str:
    if not phase:
        return ""
    try:
        return phase_title(Phase.parse(phase))
    except ValueError:
        return phase


def _deadlines(settings: Mapping[str, Any]) -> dict[str, int | None]:
    return {k: settings.get(f"{k}_time") for k in ("move", "retreat", "build")}


def _clock(status: MasterStatus, now: float) -> tuple[float | None, bool]:
    """Seconds left in the phase (None: no deadline), and whether the clock is stopped."""
    if not status.started or status.finished:
        return None, False
    if status.deadline is not None:
        return max(0.0, status.deadline - now), False
    if status.paused is not None:
        return status.paused, True
    return None, False


def live_row(runner: GameRunner, now: float) -> dict[str, Any]:
    """A game a runner plays now: its settings and its public status."""
    status = runner.status()
    gmap = runner.map
    settings = runner.settings.model_dump()
    stage = "finished" if status.finished else ("playing" if status.started else "forming")
    left, paused = _clock(status, now)
    return {
        **_common(runner.id, runner.name, gmap, settings),
        "stage": stage,
        "phase": status.phase if status.started else None,
        "phase_title": _title(status.phase) if status.started else "",
        "free_seats": 0 if status.started else len(gmap.powers) - len(status.accepted),
        "deadline": left,
        "paused": paused,
        "powers": [
            {
                "power": p.power,
                "name": gmap.power_info[p.power].name,
                "state": status.state_of(p.power),
            }
            for p in status.powers
        ],
    }


def stored_row(row: GameRow, gmap: GameMap) -> dict[str, Any]:
    """A game no runner plays (finished, or stopped before its end): from the store."""
    result = row.result or {}
    return {
        **_common(row.id, row.name, gmap, row.settings),
        "stage": "finished" if row.status == "finished" else "stopped",
        "phase": row.phase,
        "phase_title": _title(row.phase),
        "free_seats": 0,
        "deadline": None,
        "paused": False,
        "powers": [
            {"power": p, "name": gmap.power_info[p].name, "state": "idle"} for p in gmap.powers
        ],
        "result": {"kind": result.get("kind"), "powers": list(result.get("powers", []))},
    }


def _common(game_id: int, name: str, gmap: GameMap, settings: Mapping[str, Any]) -> dict[str, Any]:
    level = int(settings.get("level") or 0)
    return {
        "id": game_id,
        "name": name,
        "map": gmap.name,
        "level": level,
        "press": "gunboat (no press)" if level == 0 else f"level {level}",
        "deadlines": _deadlines(settings),
        "max_year": settings.get("max_year"),
        "watch": f"/watch/{game_id}",
    }


def listed_games(
    rows: Iterable[GameRow],
    runners: Mapping[int, GameRunner],
    listed: set[int],
    public: bool,
    map_named: Callable[[str], GameMap],
    now: float,
) -> list[dict[str, Any]]:
    """The rows of the list page, newest first: every listed game of the store that is not a
    tournament's, live from its runner while one plays it."""
    out: list[dict[str, Any]] = []
    for row in sorted(rows, key=lambda r: r.id, reverse=True):
        if row.tournament is not None or not is_listed(row.id, public, listed):
            continue
        runner = runners.get(row.id)
        if runner is not None:
            out.append(live_row(runner, now))
        elif row.status in PLAYED:
            out.append(stored_row(row, map_named(row.settings["map"])))
        if len(out) >= LIST_LIMIT:
            break
    return out


__all__ = ["LIST_LIMIT", "PLAYED", "Listing", "is_listed", "listed_games", "live_row", "stored_row"]
