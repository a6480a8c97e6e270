"""White-box access to a running game's master, for tests that set up a position the wire
cannot reach (a retreat phase on demand) or check what only the master knows (its clock, its
lobby, who sits in which seat). Everything else reads a game through the runner's public face
(``GameRunner.status()``, ``.map``, ``.table``); this is the one module outside ``server/``
that may read the runner's master (``tests/test_layout.py`` checks it)."""

from __future__ import annotations

from diplomat.server.app import GameRunner
from diplomat.server.game import GameMaster


def master_of(runner: GameRunner) -> GameMaster:
    """``runner``'s game master (touch it only between the game's events, from a test)."""
    return runner._master


__all__ = ["master_of"]
