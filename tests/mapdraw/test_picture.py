"""A variant with places on its picture (AiMapper's, in the map data) is drawn like its
geography: the drawing starts from the places and keeps their order; a map without them is
still drawn from its adjacencies alone."""

from __future__ import annotations

import math

import pytest

from diplomat.engine.map import GameMap, bundled_maps, load_map
from diplomat.mapdraw.embed import embed
from diplomat.mapdraw.geometry import drawing_source, geometry
from diplomat.mapdraw.likeness import drawn_centres, kendall_tau, picture_order, region_centre
from diplomat.mapdraw.quality import measure

# The floor for Kendall's tau between the places and the drawn centres, along each axis: of
# any two provinces, the one further right (further down) on the picture is drawn so in at
# least (1 + tau) / 2 of the pairs, 90 %. The bundled maps measure 0.86 to 0.96
# (bench/map_likeness.py); drawn from their adjacencies alone, -0.87 to 0.90.
TAU_FLOOR = 0.8
WITH_PICTURE = [n for n in bundled_maps() if load_map(n).picture]


def _mean(points: list[tuple[float, float]]) -> tuple[float, float]:
    return (
        sum(p[0] for p in points) / len(points),
        sum(p[1] for p in points) / len(points),
    )


def test_modern_puts_britain_north_of_france_and_egypt_south_east() -> None:
    gmap = load_map("modern")
    geo = geometry(gmap)
    centres = drawn_centres(gmap, geo)
    assert gmap.power_info["BRT"].name == "Britain" and gmap.power_info["FRN"].name == "France"
    britain = _mean([centres[p] for p in ("EDI", "LIV", "LON")])
    # (Modern has no Brest: France's west coast centre is Bordeaux.)
    france = _mean([centres[p] for p in ("PAR", "MAR", "BOR")])
    assert britain[1] < france[1]  # y runs down the page
    egypt = _mean([centres[p] for p in gmap.power_info["EGY"].homes])
    assert egypt[0] > geo.width / 2 and egypt[1] > geo.height / 2


@pytest.mark.parametrize("name", WITH_PICTURE)
def test_the_drawing_keeps_the_pictures_order(name: str) -> None:
    gmap = load_map(name)
    tau_x, tau_y = picture_order(gmap, geometry(gmap))
    assert tau_x >= TAU_FLOOR and tau_y >= TAU_FLOOR, (tau_x, tau_y)


def test_every_variant_with_a_picture_is_drawn_from_it() -> None:
    """Maps off the standard board start from their picture; the standard board keeps its
    own latitude and longitude positions."""
    assert len(WITH_PICTURE) == 20
    for name in WITH_PICTURE:
        gmap = load_map(name)
        source = drawing_source(gmap)
        if source is None:
            assert embed(gmap).positions.keys() >= gmap.provinces.keys(), name
        else:
            assert source.name == "standard" and source.positions, name


def test_a_map_without_a_picture_is_drawn_from_its_adjacencies() -> None:
    data = {k: v for k, v in load_map("hundred3").to_dict().items() if k != "picture"}
    bare = GameMap.from_dict({**data, "name": "hundred3_bare"})
    assert not bare.picture and drawing_source(bare) is None
    geo = geometry(bare)
    for prov in bare.provinces:
        loops = geo.outlines[prov]
        assert loops and region_centre(loops), prov
    assert measure(bare).meets_goals()
    # The same map's drawing from its picture is another drawing.
    assert embed(bare).positions != embed(load_map("hundred3")).positions


def test_kendall_tau_counts_every_pair() -> None:
    assert kendall_tau([1, 2, 3, 4], [10, 20, 30, 40]) == 1.0
    assert kendall_tau([1, 2, 3, 4], [4, 3, 2, 1]) == -1.0
    assert kendall_tau([1, 2, 3], [1, 3, 2]) == pytest.approx(1 / 3)
    # tau-b with a tie in the first: 2 concordant pairs, 1 tied in a only.
    assert kendall_tau([1, 1, 2], [1, 2, 3]) == pytest.approx(2 / math.sqrt(3 * 2))
    with pytest.raises(ValueError, match="one length"):
        kendall_tau([1, 2], [1])


def test_region_centre_is_the_centre_of_area() -> None:
    square = [(0.0, 0.0), (4.0, 0.0), (4.0, 4.0), (0.0, 4.0)]
    assert region_centre([square]) == pytest.approx((2.0, 2.0))
    # A hole (the other way round) in the right half moves the centre left.
    hole = [(3.0, 1.0), (3.0, 3.0), (4.0, 3.0), (4.0, 1.0)]
    x, y = region_centre([square, hole])
    assert x < 2.0 and y == pytest.approx(2.0)
