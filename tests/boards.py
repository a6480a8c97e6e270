"""Positions for tests, written as players write them: ``board("ENG F NTH", "FRA A BEL")``."""

from __future__ import annotations

from collections.abc import Mapping

from diplomat.engine.map import load_map
from diplomat.engine.state import Dislodged, GameState, Phase, initial_state, make_state, parse_unit

GMAP = load_map("standard")
STANDARD_START = initial_state(GMAP)  # the standard map's opening position
HOMES = {c: p for p, cs in GMAP.start_centres.items() for c in cs}  # centre -> its home power


def board(
    *units: str,
    phase: str = "S1901M",
    centres: Mapping[str, str] | None = None,
    dislodged: tuple[Dislodged, ...] = (),
) -> GameState:
    """A position on the standard map with those units only, in ``phase``; ``centres`` maps
    each owned centre to its owner (None: nobody owns any)."""
    return make_state(
        GMAP,
        Phase.parse(phase),
        [parse_unit(u, GMAP) for u in units],
        dict(centres) if centres is not None else {},
        dislodged,
    )
