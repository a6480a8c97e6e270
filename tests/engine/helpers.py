"""Small builders for engine tests."""

from __future__ import annotations

from tests.boards import GMAP, board

__all__ = ["GMAP", "board"]
