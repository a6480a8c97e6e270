"""How far a drawing keeps a map's geography: the drawn provinces' centres against their places
on the map's picture (the map data's ``picture``), as Kendall's rank correlation along each
axis, computed exactly over every pair of provinces.

A tau of 1 along x means that of any two provinces, the one further right on the picture is
drawn further right; 0 means the drawing says nothing of it. ``bench/map_likeness.py`` prints
the figures per map and ``tests/mapdraw/test_picture.py`` holds the bundled maps to a floor.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

from diplomat.engine.map import GameMap
from diplomat.mapdraw.geometry import Geometry, Point


def region_centre(loops: Sequence[Sequence[Point]]) -> Point:
    """The centre of area of a region drawn as closed loops (a hole's loop turns the other way
    and takes its area off)."""
    area = cx = cy = 0.0
    for loop in loops:
        for (x0, y0), (x1, y1) in zip(loop, [*loop[1:], *loop[:1]], strict=True):
            cross = x0 * y1 - x1 * y0
            area += cross
            cx += (x0 + x1) * cross
            cy += (y0 + y1) * cross
    if abs(area) < 1e-12:
        raise ValueError("a region with no area has no centre")
    return (cx / (3 * area), cy / (3 * area))


def kendall_tau(a: Sequence[float], b: Sequence[float]) -> float:
    """Kendall's tau-b of two paired sequences, from every pair (ties in either count as
    neither agreeing nor disagreeing, and shrink the scale as tau-b does)."""
    if len(a) != len(b):
        raise ValueError("kendall_tau needs sequences of one length")
    concordant = discordant = ties_a = ties_b = 0
    for i, j in itertools.combinations(range(len(a)), 2):
        da, db = a[i] - a[j], b[i] - b[j]
        if da == 0 and db == 0:
            continue
        if da == 0:
            ties_a += 1
        elif db == 0:
            ties_b += 1
        elif (da > 0) == (db > 0):
            concordant += 1
        else:
            discordant += 1
    scale = math.sqrt((concordant + discordant + ties_a) * (concordant + discordant + ties_b))
    return (concordant - discordant) / scale if scale else 0.0


def drawn_centres(gmap: GameMap, geo: Geometry) -> dict[str, Point]:
    """Each province's centre of area as drawn."""
    return {p: region_centre(geo.outlines[p]) for p in sorted(gmap.provinces)}


def picture_order(gmap: GameMap, geo: Geometry) -> tuple[float, float]:
    """Kendall's tau between the picture's places and the drawn centres of ``gmap``'s
    provinces, along x and along y (both pointing the same way: right, down)."""
    if not gmap.picture:
        raise ValueError(f"map {gmap.name} has no picture to compare the drawing with")
    centres = drawn_centres(gmap, geo)
    provs = sorted(centres)
    tau_x = kendall_tau([gmap.picture[p][0] for p in provs], [centres[p][0] for p in provs])
    tau_y = kendall_tau([gmap.picture[p][1] for p in provs], [centres[p][1] for p in provs])
    return tau_x, tau_y
