"""Phases as players name them: one function, engine.notation.phase_title, for the map
drawing, the web page and the CLI."""

from __future__ import annotations

import pytest

from diplomat.engine.notation import phase_title
from diplomat.engine.state import Phase


@pytest.mark.parametrize(
    ("short", "title"),
    [
        ("S1901M", "Spring 1901 Movement"),
        ("S1903R", "Spring 1903 Retreats"),  # DAIDE's SUM 1903
        ("F1902M", "Fall 1902 Movement"),
        ("F1902R", "Fall 1902 Retreats"),  # DAIDE's AUT 1902
        ("W1904A", "Winter 1904 Adjustments"),
    ],
)
def test_phases_are_named_as_players_name_them(short: str, title: str) -> None:
    assert phase_title(Phase.parse(short)) == title
