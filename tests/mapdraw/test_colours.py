"""The map's colours: every power's land clearly apart from the sea, from unowned land and
from every other power's land, for typical colour vision and the three common deficiencies."""

from __future__ import annotations

import itertools
import re

import pytest

from diplomat.engine.map import load_map
from diplomat.engine.state import initial_state
from diplomat.mapdraw.svg import POWER_COLOURS, render_map
from tests.mapdraw.colour_science import DEFICIENCIES, difference

GMAP = load_map("standard")


def drawn_fills() -> dict[str, str]:
    """The fills the drawing's own style sheet gives: sea, unowned land, each power's land."""
    svg = render_map(GMAP, initial_state(GMAP))
    style = svg[svg.index("<style>") : svg.index("</style>")]
    fills = {
        "sea": re.search(r"\.prov\.sea \{ fill: (#[0-9A-Fa-f]{6})", style),
        "land": re.search(r"\.prov\.land, \.dipmap \.prov\.coast \{ fill: (#\w{6})", style),
    }
    out = {k: m.group(1) for k, m in fills.items() if m}
    for power in GMAP.powers:
        m = re.search(rf"\.prov\.owner-{power} \{{ fill: (#[0-9A-Fa-f]{{6}})", style)
        assert m, power
        out[power] = m.group(1)
    assert set(out) == {"sea", "land", *GMAP.powers}
    return out


@pytest.mark.parametrize("vision", [None, *DEFICIENCIES])
def test_every_pair_of_areas_differs_by_ciede2000_10(vision: str | None) -> None:
    fills = drawn_fills()
    close = [
        (a, b, round(difference(fills[a], fills[b], vision), 1))
        for a, b in itertools.combinations(fills, 2)
        if difference(fills[a], fills[b], vision) < 10
    ]
    assert not close, (vision or "typical vision", close)


def test_units_keep_their_colours_and_stand_out_at_home() -> None:
    fills = drawn_fills()
    svg = render_map(GMAP, initial_state(GMAP))
    for power, colour in POWER_COLOURS.items():
        assert f'class="body" fill="{colour}"' in svg  # the unit colours are unchanged
        assert difference(fills[power], colour) >= 8, power
