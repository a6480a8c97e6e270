"""The package's games after a restart: each kept game (:mod:`dipnet.records`) rebuilt from
the server's database, around the server game the server resumed (or, for a finished game,
from the database alone). The service then follows it and seats its controllers again
(:meth:`dipnet.service.DipnetService.restore`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from diplomat.dipnet.games import PackageGame
from diplomat.dipnet.records import GameRecord
from diplomat.dipnet.stored import ExportError, stored_phases
from diplomat.engine.map import MapError, load_map
from diplomat.server.store import StoreError

if TYPE_CHECKING:
    from diplomat.server.app import Server


class RestoreError(ValueError):
    """A kept package game that cannot be taken up again (why, for the log)."""


def rebuilt(record: GameRecord, server: Server) -> PackageGame:
    """The package's picture of ``record``'s game: ``active`` around the server's resumed
    runner, or ``completed`` with its whole history for a finished game.
    :class:`RestoreError` for a game the server did not resume (it was still forming, or
    could not be resumed) or whose records cannot be read."""
    runner = server.games.get(record.game_id)
    try:
        row = server.store.game(record.game_id)
        gmap = load_map(record.map)
        played = stored_phases(server.store, record.game_id, gmap)
    except (StoreError, MapError, ExportError) as exc:
        raise RestoreError(str(exc)) from None
    finished = row.status == "finished"
    began = server.store.state_times(record.game_id)
    if not played or (runner is None and not finished):
        raise RestoreError(f"game {record.game_id} was not resumed (it is {row.status})")
    game = PackageGame(
        None if finished else runner,
        gmap,
        record.rules,
        record.deadline,
        game_id=record.game_id,
        created=record.created,
    )
    game.controllers = dict(record.controllers)
    game.resume(played, began, (row.finished or row.created) if finished else None)
    return game
