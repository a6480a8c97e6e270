"""How well a drawing shows its map: whether provinces touch exactly when they are neighbours,
whether names, units and coast targets overlap, and whether each lies in its province.

``bench/mapdraw.py`` prints these figures for every bundled map and
``tests/mapdraw/test_variants.py`` holds each map to the goals below.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from diplomat.engine.map import GameMap, province_of
from diplomat.mapdraw.geometry import (
    Box,
    Point,
    coast_box,
    dot_box,
    drawing_source,
    geometry,
    label_box,
    point_in,
    unit_box,
)

# The goals: at least this share of neighbouring provinces drawn touching, at most this share
# of the others, and no overlaps.
ADJACENT_GOAL = 0.90
NON_ADJACENT_GOAL = 0.05


@dataclass(frozen=True, slots=True)
class Quality:
    map: str
    provinces: int
    adjacent: int  # pairs of neighbouring provinces
    adjacent_touching: int  # ... whose drawn shapes share a border
    non_adjacent: int  # pairs of provinces that are not neighbours
    non_adjacent_touching: int  # ... whose drawn shapes share a border all the same
    label_overlaps: int  # a name over another name, another province's unit or centre marker
    coast_overlaps: int  # coast targets over one another, or over a name
    outside: int  # names, units, centre markers or coasts drawn outside their province
    computed: bool  # laid out from the adjacencies (no display positions)

    @property
    def adjacent_share(self) -> float:
        return self.adjacent_touching / self.adjacent if self.adjacent else 1.0

    @property
    def non_adjacent_share(self) -> float:
        return self.non_adjacent_touching / self.non_adjacent if self.non_adjacent else 0.0

    def meets_goals(self) -> bool:
        return (
            self.adjacent_share >= ADJACENT_GOAL
            and self.non_adjacent_share <= NON_ADJACENT_GOAL
            and self.label_overlaps == 0
            and self.coast_overlaps == 0
            and self.outside == 0
        )


def _overlap(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def measure(gmap: GameMap) -> Quality:
    """The figures of ``gmap``'s drawing."""
    geo = geometry(gmap)
    provinces = sorted(gmap.provinces)
    neighbours = {frozenset((a, b)) for a, ns in gmap.neighbours.items() for b in ns if a != b}
    touching = {t for t in geo.touching if all(p in gmap.provinces for p in t) and len(t) == 2}
    pairs = len(provinces) * (len(provinces) - 1) // 2

    # Every box with its owner province: names, units (a province's own spot), centre markers.
    names = {p: label_box(p, geo.labels[p]) for p in provinces}
    marks: list[tuple[str, Box]] = [(p, unit_box(geo.anchors[p])) for p in provinces]
    marks += [(p, dot_box(geo.centres[p])) for p in sorted(gmap.supply_centres)]
    label_overlaps = sum(_overlap(names[a], names[b]) for a, b in itertools.combinations(names, 2))
    label_overlaps += sum(
        _overlap(names[p], box) for p in provinces for owner, box in marks if owner != p
    )
    coasts = {
        loc: coast_box(geo.anchors[loc])
        for p in provinces
        for loc in (f"{p}/{c}" for c in gmap.provinces[p].coasts)
        if loc in geo.anchors
    }
    coast_overlaps = sum(
        _overlap(coasts[a], coasts[b]) for a, b in itertools.combinations(coasts, 2)
    )
    coast_overlaps += sum(_overlap(box, name) for box in coasts.values() for name in names.values())

    spots: list[tuple[str, Point]] = [(p, geo.labels[p]) for p in provinces]
    spots += [(province_of(loc), at) for loc, at in geo.anchors.items()]
    spots += [(p, geo.centres[p]) for p in sorted(gmap.supply_centres)]
    outside = sum(not point_in(geo.outlines.get(p, []), at) for p, at in spots)
    return Quality(
        map=gmap.name,
        provinces=len(provinces),
        adjacent=len(neighbours),
        adjacent_touching=len(neighbours & touching),
        non_adjacent=pairs - len(neighbours),
        non_adjacent_touching=len(touching - neighbours),
        label_overlaps=label_overlaps,
        coast_overlaps=coast_overlaps,
        outside=outside,
        computed=drawing_source(gmap) is None,
    )
