"""Small builders for engine tests."""

from __future__ import annotations

from engine.map import load_map
from engine.state import GameState, Phase, make_state, parse_unit

GMAP = load_map("standard")


def board(
    *units: str,
    phase: str = "S1901M",
    centres: dict[str, str] | None = None,
) -> GameState:
    """``board("ENG F NTH", "FRA A BEL")``: a position with those units only."""
    return make_state(
        GMAP,
        Phase.parse(phase),
        [parse_unit(u, GMAP) for u in units],
        centres if centres is not None else {},
    )
