"""The shapes of a map's provinces, computed from display positions: the engine's, or those
:mod:`mapdraw.embed` computes from the adjacencies of a map that has none.

Each province is grown from seed points: its display position plus, for the maps we tuned, a
few shaping points from :mod:`mapdraw.layout` (or, for a computed drawing, the embedding's own
seeds). The plane is split by a Voronoi diagram of all seeds (clipped to the frame), each
province is the union of its seeds' cells, and the borders between provinces are smoothed into
curves. Nothing here is copied map art: shapes come from positions alone, so every map gets a
drawing.

All coordinates are SVG user units in a frame ``width`` x ``height``. Computing a map's geometry
takes a few tens of milliseconds; it is cached per map.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache

from diplomat.engine.map import GameMap, bundled_maps, load_map, province_of
from diplomat.mapdraw.embed import embed
from diplomat.mapdraw.layout import LAYOUTS, Layout

Point = tuple[float, float]
WIDTH = 1000.0
# Cell edges that lie on the frame carry this label instead of a seed index.
FRAME = -1


@dataclass(frozen=True, slots=True)
class Border:
    """One border line between two regions (a region is a province or a filler such as
    Switzerland), or between a region and the frame."""

    a: str
    b: str | None  # None: the frame
    kind: str  # "coast" (land|sea), "land", "sea", "frame"
    points: tuple[Point, ...]


@dataclass(slots=True)
class Geometry:
    width: float
    height: float
    outlines: dict[str, list[list[Point]]]  # region -> closed loops (counter-clockwise)
    borders: list[Border]
    anchors: dict[str, Point]  # location (province or coast) -> where its unit stands
    labels: dict[str, Point]  # province -> where its name is written
    centres: dict[str, Point]  # supply-centre province -> where its marker is
    fillers: dict[str, str]  # non-province region -> its display name
    touching: set[frozenset[str]] = field(default_factory=set)  # regions sharing a border
    seeds: list[tuple[str, Point]] = field(default_factory=list)  # for tuning the layout
    # Where a dislodged unit is drawn, beside the unit that took its place.
    asides: dict[str, Point] = field(default_factory=dict)

    def anchor(self, loc: str) -> Point:
        """Where a unit at ``loc`` is drawn (a coast's own spot if it has one)."""
        return self.anchors.get(loc) or self.anchors[province_of(loc)]

    def aside(self, loc: str) -> Point:
        """Where a dislodged unit at ``loc`` is drawn."""
        if loc in self.asides:
            return self.asides[loc]
        x, y = self.anchor(loc)
        return (x + 20.0, y + 15.0)


class Projection:
    """Lambert conformal conic (Europe keeps the shape players know: Scandinavia leaning east,
    Russia wide), then a fish-eye around central Europe. The board's small provinces crowd the
    middle and the oceans and Russia are large and empty, so the middle is enlarged and the rim
    compressed, as printed boards do."""

    def __init__(
        self,
        lat1: float = 40.0,
        lat2: float = 64.0,
        centre: tuple[float, float] = (48.0, 14.0),
        radius: float = 0.35,
        lenses: Sequence[tuple[float, float, float, float]] = (),
    ) -> None:
        p1, p2 = math.radians(lat1), math.radians(lat2)
        self.n = math.log(math.cos(p1) / math.cos(p2)) / math.log(
            math.tan(math.pi / 4 + p2 / 2) / math.tan(math.pi / 4 + p1 / 2)
        )
        self.f = math.cos(p1) * math.tan(math.pi / 4 + p1 / 2) ** self.n / self.n
        self.lon0 = centre[1]
        self.rho0 = self._rho(centre[0])
        self.radius = radius
        # Each lens: centre, radius (both projected) and magnification at the centre.
        self.lenses: list[tuple[Point, float, float]] = []
        for lat, lon, deg, power in lenses:
            c = self._fisheye(*self.conic(lat, lon))
            edge = self._fisheye(*self.conic(lat + deg, lon))
            self.lenses.append((c, math.dist(c, edge), power))

    def _rho(self, lat: float) -> float:
        return self.f / math.tan(math.pi / 4 + math.radians(lat) / 2) ** self.n

    def conic(self, lat: float, lon: float) -> Point:
        rho = self._rho(lat)
        theta = self.n * math.radians(lon - self.lon0)
        return (rho * math.sin(theta), -(self.rho0 - rho * math.cos(theta)))

    def _fisheye(self, x: float, y: float) -> Point:
        k = 1 / (1 + math.hypot(x, y) / self.radius) if self.radius > 0 else 1.0
        return (x * k, y * k)

    def __call__(self, lat: float, lon: float) -> Point:
        x, y = self._fisheye(*self.conic(lat, lon))
        for (cx, cy), r, power in self.lenses:
            d = math.hypot(x - cx, y - cy)
            if 0 < d < r:
                # Magnify near the centre, fading to nothing at the rim (monotonic for
                # power < 3, so the lens never folds the plane).
                k = 1 + (power - 1) * (1 - d / r) ** 2
                x, y = cx + (x - cx) * k, cy + (y - cy) * k
        return (x, y)


# -- Voronoi cells by half-plane clipping -------------------------------------------------


def _clip(poly: list[tuple[Point, int]], p: Point, q: Point, label: int) -> list[tuple[Point, int]]:
    """Keep the part of convex ``poly`` nearer to ``p`` than to ``q``. Each vertex carries the
    label of the edge that starts at it, so cells know their neighbour across every edge."""
    nx, ny = q[0] - p[0], q[1] - p[1]
    c = (q[0] ** 2 + q[1] ** 2 - p[0] ** 2 - p[1] ** 2) / 2
    out: list[tuple[Point, int]] = []
    n = len(poly)
    for k in range(n):
        (a, lab) = poly[k]
        b = poly[(k + 1) % n][0]
        da = nx * a[0] + ny * a[1] - c
        db = nx * b[0] + ny * b[1] - c
        if da <= 0:
            out.append((a, lab))
            if db > 0:
                t = da / (da - db)
                out.append(((a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])), label))
        elif db <= 0:
            t = da / (da - db)
            out.append(((a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])), lab))
    return out


def voronoi(
    seeds: Sequence[Point], box: tuple[float, float, float, float]
) -> list[list[tuple[Point, int]]]:
    """The Voronoi cell of each seed within ``box`` (x0, y0, x1, y1), as vertices labelled with
    the index of the seed across the edge starting there (or FRAME).

    Each cell starts as the box and is cut by the bisectors with other seeds, nearest first.
    The seeds are bucketed in a grid, so the search visits rings of buckets outwards and stops
    when no seed in the next ring can reach the cell: a computed map has thousands of seeds."""
    x0, y0, x1, y1 = box
    n = len(seeds)
    size = max(math.sqrt((x1 - x0) * (y1 - y0) / max(n, 1)), 1e-9)
    buckets: dict[tuple[int, int], list[int]] = {}
    for j, q in enumerate(seeds):
        buckets.setdefault((math.floor(q[0] / size), math.floor(q[1] / size)), []).append(j)
    spread = (
        max((max(abs(gx), abs(gy)) for gx, gy in buckets), default=0)
        + max(math.ceil(max(abs(x0), abs(x1), abs(y0), abs(y1)) / size), 0)
        + 2
    )
    cells = []
    for i, p in enumerate(seeds):
        cell: list[tuple[Point, int]] = [
            ((x0, y0), FRAME),
            ((x0, y1), FRAME),
            ((x1, y1), FRAME),
            ((x1, y0), FRAME),
        ]
        cx, cy = math.floor(p[0] / size), math.floor(p[1] / size)
        ring = 0
        while cell and ring <= 2 * spread:
            # Seeds in this ring are at least (ring - 1) buckets away.
            reach = max((v[0] - p[0]) ** 2 + (v[1] - p[1]) ** 2 for v, _ in cell)
            if ring > 1 and ((ring - 1) * size) ** 2 / 4 > reach:
                break
            found = []
            for gx in range(cx - ring, cx + ring + 1):
                for gy in range(cy - ring, cy + ring + 1):
                    if max(abs(gx - cx), abs(gy - cy)) != ring:
                        continue
                    for j in buckets.get((gx, gy), ()):
                        if j != i:
                            q = seeds[j]
                            found.append(((q[0] - p[0]) ** 2 + (q[1] - p[1]) ** 2, j))
            found.sort()
            for d2, j in found:
                # A bisector farther than every vertex cannot cut the cell, nor can any
                # later one of this ring.
                if d2 / 4 > reach:
                    break
                cell = _clip(cell, p, seeds[j], j)
                if not cell:
                    break
                reach = max((v[0] - p[0]) ** 2 + (v[1] - p[1]) ** 2 for v, _ in cell)
            ring += 1
        cells.append(cell)
    return cells


# -- from cells to province outlines and borders ------------------------------------------


class _Vertices:
    """Snaps nearly equal points (the same Voronoi vertex computed from different cells) to
    one id."""

    def __init__(self, tol: float = 1e-6) -> None:
        self.tol = tol
        self.points: list[Point] = []
        self._grid: dict[tuple[int, int], list[int]] = {}

    def id(self, p: Point) -> int:
        gx, gy = round(p[0] / self.tol / 1000), round(p[1] / self.tol / 1000)
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                for k in self._grid.get((gx + dx, gy + dy), ()):
                    q = self.points[k]
                    if abs(q[0] - p[0]) < self.tol * 1000 and abs(q[1] - p[1]) < self.tol * 1000:
                        return k
        self.points.append(p)
        self._grid.setdefault((gx, gy), []).append(len(self.points) - 1)
        return len(self.points) - 1


def _chaikin(points: list[Point], rounds: int) -> list[Point]:
    """Corner cutting with fixed ends: polyline borders become gentle curves."""
    for _ in range(rounds):
        if len(points) < 3:
            return points
        out = [points[0]]
        for a, b in itertools.pairwise(points):
            out.append((0.75 * a[0] + 0.25 * b[0], 0.75 * a[1] + 0.25 * b[1]))
            out.append((0.25 * a[0] + 0.75 * b[0], 0.25 * a[1] + 0.75 * b[1]))
        out[1] = points[0]
        out[-1] = points[-1]
        points = _dedupe(out)
    return points


def _dedupe(points: list[Point]) -> list[Point]:
    out = [points[0]]
    for p in points[1:]:
        if abs(p[0] - out[-1][0]) > 1e-9 or abs(p[1] - out[-1][1]) > 1e-9:
            out.append(p)
    return out


def _seg_dist(p: Point, a: Point, b: Point) -> float:
    dx, dy = b[0] - a[0], b[1] - a[1]
    n = dx * dx + dy * dy
    t = 0.0 if n == 0 else max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / n))
    return math.hypot(p[0] - a[0] - t * dx, p[1] - a[1] - t * dy)


def _simplify(points: list[Point], tol: float) -> list[Point]:
    """Douglas-Peucker: drop points the curve does not need at drawing scale (the SVG is
    sent again on every change of orders, so its size matters)."""
    if len(points) < 3:
        return points
    keep = [False] * len(points)
    keep[0] = keep[-1] = True
    stack = [(0, len(points) - 1)]
    while stack:
        i, j = stack.pop()
        a, b = points[i], points[j]
        far, at = 0.0, -1
        for k in range(i + 1, j):
            d = _seg_dist(points[k], a, b)
            if d > far:
                far, at = d, k
        if far > tol:
            keep[at] = True
            stack += [(i, at), (at, j)]
    return [p for p, k in zip(points, keep, strict=True) if k]


def _wiggle(points: list[Point], amount: float, salt: int) -> list[Point]:
    """Midpoint displacement along a coastline, seeded by its ends: coasts look drawn by hand
    rather than ruled, and the same coast comes out the same every time."""
    out = [points[0]]
    for k, (a, b) in enumerate(itertools.pairwise(points)):
        length = math.dist(a, b)
        if length > 6:
            h = math.sin((a[0] * 12.9898 + a[1] * 78.233 + salt + k) * 43758.5453)
            off = (h - math.floor(h) - 0.5) * amount * min(length, 40) / 40
            mx, my = (a[0] + b[0]) / 2, (a[1] + b[1]) / 2
            nx, ny = -(b[1] - a[1]) / length, (b[0] - a[0]) / length
            out.append((mx + nx * off, my + ny * off))
        out.append(b)
    return out


def _region_kind(gmap: GameMap, region: str) -> str:
    p = gmap.provinces.get(region)
    if p is None:
        return "filler"
    return "sea" if p.type == "sea" else "land"


def _border_kind(gmap: GameMap, a: str, b: str | None) -> str:
    if b is None:
        return "frame"
    ka, kb = _region_kind(gmap, a), _region_kind(gmap, b)
    if ka == kb == "sea":
        return "sea"
    if "sea" in (ka, kb):
        return "coast"
    return "land"


# Smoothing of border lines: coasts get a hand-drawn wobble (two passes of midpoint
# displacement, each (amount, salt)), then every non-frame border is rounded by corner cutting
# and thinned to what shows at drawing scale.
COAST_WIGGLES: tuple[tuple[float, int], ...] = ((7.0, 1), (3.5, 2))
SMOOTHING_ROUNDS = 3
SIMPLIFY_TOLERANCE = 0.3
# Without a layout frame, the frame is the seeds' extent plus this share of it on every side.
FRAME_MARGIN = 0.06
# A layout frame's edges are curves once projected: sampled at this many steps.
FRAME_SAMPLES = 20


@dataclass(frozen=True, slots=True)
class _Plan:
    """What the drawing grows from, in plane coordinates before scaling to the frame: the seeds
    and the region each grows, where each location's unit would ideally stand, the fillers
    (name -> title, and where a filler's name goes), the layout hints and the frame."""

    seed_pts: list[Point]
    seed_region: list[str]
    given: dict[str, Point]
    fillers: dict[str, tuple[str, Point | None]]
    layout: Layout
    frame: tuple[float, float, float, float]  # x0, x1, y0, y1
    width: float = WIDTH  # the drawing's width in SVG units (names and units keep their size)


# A computed drawing up to this many provinces is WIDTH wide; a larger one wider, in
# proportion to the square root of its number of provinces.
PROVINCES_PER_WIDTH = 90
# A computed drawing's regions that are no province are called this in their tooltip.
VOID_TITLE = "No province"


@cache
def geometry(gmap: GameMap) -> Geometry:
    """The drawing's shapes for ``gmap``: seeds, their Voronoi cells, the borders between
    regions smoothed once and shared by both sides, the outlines they close, and where units,
    names and centre markers go. A map with display positions for all its provinces is drawn
    from them (projected, with the hints of :mod:`mapdraw.layout`); any other map from the
    positions :mod:`mapdraw.embed` computes (from its picture, or its adjacencies)."""
    source = drawing_source(gmap)
    plan = _projected_plan(gmap, source) if source is not None else _computed_plan(gmap)
    fx0, fx1, fy0, fy1 = plan.frame
    width = plan.width
    scale = width / (fx1 - fx0)
    height = round((fy1 - fy0) * scale, 1)

    def to_svg(p: Point) -> Point:
        return ((p[0] - fx0) * scale, (p[1] - fy0) * scale)

    seeds = [to_svg(p) for p in plan.seed_pts]
    cells = voronoi(seeds, (0.0, 0.0, width, height))
    edges = _cell_edges(cells, plan.seed_region)
    net = _BorderNet(gmap, edges, width, height)
    outlines = {
        region: _outline_loops(out_edges, net.chains, net.junction)
        for region, out_edges in edges.by_region.items()
    }
    given = {loc: to_svg(p) for loc, p in plan.given.items()}
    anchors, labels, centres, asides = _place(
        gmap, plan.layout, outlines, net.borders, given, width, height
    )
    fillers = {name: title for name, (title, _) in plan.fillers.items()}
    for name, (_title, at) in plan.fillers.items():
        if at is not None:
            labels[name] = to_svg(at)
    return Geometry(
        width,
        height,
        outlines,
        net.borders,
        anchors,
        labels,
        centres,
        fillers,
        net.touching,
        list(zip(plan.seed_region, seeds, strict=True)),
        asides,
    )


def drawing_source(gmap: GameMap) -> GameMap | None:
    """The map whose display positions draw ``gmap``: ``gmap`` itself when it has a position
    for every province, else the map it is based on (Chaos is the standard board with other
    powers) when that one has them and the same provinces and neighbours; None when the
    drawing must be computed."""
    if gmap.provinces and all(p in gmap.positions for p in gmap.provinces):
        return gmap
    base = gmap.to_dict().get("base")
    if not isinstance(base, str) or base == gmap.name or base not in bundled_maps():
        return None
    other = load_map(base)
    same = other.neighbours == gmap.neighbours and all(
        other.provinces[p].coasts == info.coasts for p, info in gmap.provinces.items()
    )
    return drawing_source(other) if same else None


def _projected_plan(gmap: GameMap, source: GameMap) -> _Plan:
    """A map with display positions (its own or its base map's): they and the layout's hints,
    projected."""
    layout = LAYOUTS.get(source.name, Layout())
    proj = Projection(lenses=layout.lenses)
    seed_pts, seed_region = _seeds(source, layout, proj)
    given = {
        loc: proj(*pos)
        for loc, pos in source.positions.items()
        if province_of(loc) in gmap.provinces
    }
    fillers: dict[str, tuple[str, Point | None]] = {
        name: (title, proj(*fpts[0]) if fpts else None)
        for name, (title, fpts) in layout.fillers.items()
    }
    return _Plan(seed_pts, seed_region, given, fillers, layout, _frame(layout, proj, seed_pts))


def _computed_plan(gmap: GameMap) -> _Plan:
    """A map without display positions: the drawing :mod:`mapdraw.embed` computes (from its
    places on a picture when it has them, else from its adjacencies)."""
    emb = embed(gmap)
    seed_pts: list[Point] = []
    seed_region: list[str] = []
    seen: set[Point] = set()
    for region, p in emb.seeds:
        if p not in seen:  # two seeds at one point would have no bisector between them
            seen.add(p)
            seed_pts.append(p)
            seed_region.append(region)
    fillers: dict[str, tuple[str, Point | None]] = {
        name: (VOID_TITLE, None) for name in emb.fillers
    }
    layout = Layout()
    # A larger map is drawn wider, so that its provinces keep room for a unit and a name.
    width = WIDTH * max(1.0, math.sqrt(len(gmap.provinces) / PROVINCES_PER_WIDTH))
    frame = _frame(layout, None, seed_pts)
    return _Plan(seed_pts, seed_region, dict(emb.positions), fillers, layout, frame, width)


def _seeds(gmap: GameMap, layout: Layout, proj: Projection) -> tuple[list[Point], list[str]]:
    """Seed points in projected (unscaled) coordinates, and the region each one grows: every
    province's display position and shaping points, then the fillers' seeds."""
    seed_pts: list[Point] = []
    seed_region: list[str] = []
    seen: set[tuple[float, float]] = set()

    def add(region: str, latlons: Iterable[tuple[float, float]]) -> None:
        for lat, lon in latlons:
            # Two seeds at one point would have no bisector between them.
            if (lat, lon) in seen:
                continue
            seen.add((lat, lon))
            seed_pts.append(proj(lat, lon))
            seed_region.append(region)

    for prov in gmap.provinces:
        add(prov, [gmap.positions[prov], *layout.shape.get(prov, ())])
    for name, (_, filler_seeds) in layout.fillers.items():
        add(name, filler_seeds)
    return seed_pts, seed_region


def _frame(
    layout: Layout, proj: Projection | None, seed_pts: list[Point]
) -> tuple[float, float, float, float]:
    """The frame (x0, x1, y0, y1) in projected coordinates: the extremes of the layout's
    frame edges, or the seeds' extent with a margin."""
    if layout.frame is not None and proj is not None:
        south, west, north, east = layout.frame
        steps = [k / FRAME_SAMPLES for k in range(FRAME_SAMPLES + 1)]
        fx0 = min(proj(south + t * (north - south), west)[0] for t in steps)
        fx1 = max(proj(south + t * (north - south), east)[0] for t in steps)
        fy0 = min(proj(north, west + t * (east - west))[1] for t in steps)
        fy1 = max(proj(south, west + t * (east - west))[1] for t in steps)
        return fx0, fx1, fy0, fy1
    xs = [p[0] for p in seed_pts]
    ys = [p[1] for p in seed_pts]
    mx = (max(xs) - min(xs)) * FRAME_MARGIN
    my = (max(ys) - min(ys)) * FRAME_MARGIN
    return min(xs) - mx, max(xs) + mx, min(ys) - my, max(ys) + my


@dataclass
class _CellEdges:
    """The cells' edges between different regions, with snapped vertex ids."""

    points: list[Point]  # vertex id -> point
    by_region: dict[str, dict[int, list[int]]]  # region -> directed edges u -> [v, ...]
    sides: dict[tuple[int, int], tuple[str, str | None]]  # undirected edge -> its two regions


def _cell_edges(cells: list[list[tuple[Point, int]]], seed_region: list[str]) -> _CellEdges:
    verts = _Vertices()
    by_region: dict[str, dict[int, list[int]]] = {}
    sides: dict[tuple[int, int], tuple[str, str | None]] = {}
    for i, cell in enumerate(cells):
        region = seed_region[i]
        n = len(cell)
        for k in range(n):
            (a, lab) = cell[k]
            b = cell[(k + 1) % n][0]
            other = None if lab == FRAME else seed_region[lab]
            if other == region:
                continue
            u, v = verts.id(a), verts.id(b)
            if u == v:
                continue
            # (A vertex can start two edges of one region, where the region pinches.)
            by_region.setdefault(region, {}).setdefault(u, []).append(v)
            key = (min(u, v), max(u, v))
            sides.setdefault(key, (region, other))
    return _CellEdges(verts.points, by_region, sides)


class _BorderNet:
    """The border lines: chains of cell edges between junctions (vertices where more than two
    border edges meet, or on the frame), each smoothed once so neighbours share one curve."""

    def __init__(self, gmap: GameMap, edges: _CellEdges, width: float, height: float) -> None:
        self.gmap = gmap
        self.width = width
        self.pts = edges.points
        self.sides = edges.sides
        self.height = height
        # Each chain under its first directed edge: the vertex ids it runs through and its
        # points.
        self.chains: dict[tuple[int, int], tuple[list[int], list[Point]]] = {}
        self.borders: list[Border] = []
        self.touching: set[frozenset[str]] = set()
        self.adjacency: dict[int, list[int]] = {}
        degree: dict[int, int] = {}
        for u, v in self.sides:
            degree[u] = degree.get(u, 0) + 1
            degree[v] = degree.get(v, 0) + 1
        self.junction = {k for k, d in degree.items() if d != 2 or self._on_frame(k)}
        for u, v in self.sides:
            self.adjacency.setdefault(u, []).append(v)
            self.adjacency.setdefault(v, []).append(u)
        self.covered: set[tuple[int, int]] = set()
        for j in sorted(self.junction):
            for n in sorted(self.adjacency.get(j, ())):
                if (min(j, n), max(j, n)) not in self.covered:
                    self._build_from(j, n)
        # Loops with no junction at all (a region wholly inside another).
        for u, v in sorted(self.sides):
            if (u, v) not in self.covered:
                self.junction.add(u)
                self._build_from(u, v)

    def _on_frame(self, k: int) -> bool:
        x, y = self.pts[k]
        return min(abs(x), abs(y), abs(x - self.width), abs(y - self.height)) < 1e-6

    def _trace(self, start: int, nxt: int) -> list[int]:
        path = [start, nxt]
        while path[-1] not in self.junction:
            a, b = path[-2], path[-1]
            path.append(next(x for x in self.adjacency[b] if x != a))
        return path

    def _build_from(self, j: int, n: int) -> None:
        path = self._trace(j, n)
        self.covered.update((min(a, b), max(a, b)) for a, b in itertools.pairwise(path))
        self._build_chain(path)

    def _build_chain(self, path: list[int]) -> None:
        a, b = self.sides[(min(path[0], path[1]), max(path[0], path[1]))]
        kind = _border_kind(self.gmap, a, b)
        raw = [self.pts[k] for k in path]
        if kind != "frame":
            raw = _smooth_border(raw, kind == "coast")
        self.chains[(path[0], path[1])] = (path, raw)
        self.chains[(path[-1], path[-2])] = (path[::-1], raw[::-1])
        self.borders.append(Border(a, b, kind, tuple(raw)))
        if b is not None:
            self.touching.add(frozenset((a, b)))


def _smooth_border(raw: list[Point], coast: bool) -> list[Point]:
    if coast:
        for amount, salt in COAST_WIGGLES:
            raw = _wiggle(raw, amount, salt)
    return _simplify(_chaikin(raw, SMOOTHING_ROUNDS), SIMPLIFY_TOLERANCE)


def _outline_loops(
    edges: dict[int, list[int]],
    chains: dict[tuple[int, int], tuple[list[int], list[Point]]],
    junction: set[int],
) -> list[list[Point]]:
    """A region's closed loops, walked along the shared smoothed chains of its edges."""
    loops: list[list[Point]] = []
    unused = {u: list(vs) for u, vs in edges.items()}

    def take(u: int, v: int) -> None:
        unused[u].remove(v)
        if not unused[u]:
            del unused[u]

    while unused:
        start = next((k for k in unused if k in junction), next(iter(unused)))
        loop: list[Point] = []
        cur = start
        while cur in unused:
            v = unused[cur][0]
            ids, cpts = chains[(cur, v)]
            for e0, e1 in itertools.pairwise(ids):
                take(e0, e1)
            loop.extend(cpts[:-1])
            cur = ids[-1]
            if cur == start:
                break
        loops.append(loop)
    return loops


# -- where units, names and centre markers go ---------------------------------------------


class _Raster:
    """The map on a grid: which region each cell is in, and how far each cell is from a
    different region (a chamfer distance transform). Placing units asks "is there room here"
    thousands of times; with this, each question is a lookup."""

    def __init__(
        self, outlines: dict[str, list[list[Point]]], width: float, height: float, step: float
    ) -> None:
        self.step = step
        self.nx, self.ny = int(width / step) + 1, int(height / step) + 1
        nx, ny = self.nx, self.ny
        self.index = {region: k for k, region in enumerate(outlines)}
        self.names = list(outlines)
        label = [-1] * (nx * ny)
        for region, loops in outlines.items():
            k = self.index[region]
            rows: dict[int, list[float]] = {}
            for loop in loops:
                for a, b in zip(loop, loop[1:] + loop[:1], strict=True):
                    lo, hi = (a, b) if a[1] <= b[1] else (b, a)
                    # Rows whose centre line this edge crosses (half-open, so a vertex on a
                    # row counts once).
                    j0 = max(0, math.ceil(lo[1] / step - 0.5))
                    j1 = min(ny - 1, math.ceil(hi[1] / step - 0.5) - 1)
                    for j in range(j0, j1 + 1):
                        y = (j + 0.5) * step
                        t = (y - lo[1]) / (hi[1] - lo[1])
                        rows.setdefault(j, []).append(lo[0] + t * (hi[0] - lo[0]))
            for j, xs in rows.items():
                xs.sort()
                for x0, x1 in zip(xs[::2], xs[1::2], strict=False):
                    i0 = max(0, math.ceil(x0 / step - 0.5))
                    i1 = min(nx - 1, math.ceil(x1 / step - 0.5) - 1)
                    for i in range(i0, i1 + 1):
                        label[j * nx + i] = k
        self.label = label
        inf = float(nx + ny)
        dist = [inf] * (nx * ny)
        for j in range(ny):
            for i in range(nx):
                c = j * nx + i
                lab = label[c]
                if (
                    i == 0
                    or j == 0
                    or i == nx - 1
                    or j == ny - 1
                    or label[c - 1] != lab
                    or label[c + 1] != lab
                    or label[c - nx] != lab
                    or label[c + nx] != lab
                ):
                    dist[c] = 0.5
        d2 = math.sqrt(2)
        for j in range(1, ny):
            for i in range(1, nx - 1):
                c = j * nx + i
                dist[c] = min(
                    dist[c],
                    dist[c - 1] + 1,
                    dist[c - nx] + 1,
                    dist[c - nx - 1] + d2,
                    dist[c - nx + 1] + d2,
                )
        for j in range(ny - 2, -1, -1):
            for i in range(nx - 2, 0, -1):
                c = j * nx + i
                dist[c] = min(
                    dist[c],
                    dist[c + 1] + 1,
                    dist[c + nx] + 1,
                    dist[c + nx + 1] + d2,
                    dist[c + nx - 1] + d2,
                )
        self.dist = dist

    def clearance(self, region: str, p: Point) -> float:
        """Distance from ``p`` to the border of ``region`` (0 outside it)."""
        i, j = int(p[0] / self.step), int(p[1] / self.step)
        if not (0 <= i < self.nx and 0 <= j < self.ny):
            return 0.0
        c = j * self.nx + i
        if self.label[c] != self.index.get(region):
            return 0.0
        return self.dist[c] * self.step


class _Region:
    def __init__(self, raster: _Raster, name: str) -> None:
        self.raster = raster
        self.name = name

    def clearance(self, p: Point) -> float:
        return self.raster.clearance(self.name, p)


def _best(
    around: Point, radius: float, score: Callable[[Point], float], step: float = 10.0
) -> Point:
    """The point near ``around`` with the highest score: a coarse grid, then a finer one
    around the best point found."""
    best, best_score = around, score(around)
    n = int(radius / step)
    for i in range(-n, n + 1):
        for j in range(-n, n + 1):
            if i * i + j * j > n * n:
                continue
            p = (around[0] + i * step, around[1] + j * step)
            sc = score(p)
            if sc > best_score:
                best, best_score = p, sc
    centre = best
    for i in range(-3, 4):
        for j in range(-3, 4):
            p = (centre[0] + i * step / 3.5, centre[1] + j * step / 3.5)
            sc = score(p)
            if sc > best_score:
                best, best_score = p, sc
    return best


Box = tuple[float, float, float, float]
# Where a name may go relative to its unit, and how much each place is preferred: above the
# unit reads best; beside it is for tight provinces.
LABEL_PLACES: tuple[tuple[float, float, float], ...] = (
    (0.0, -23.0, 1.0),
    (0.0, 25.0, 0.0),
    (35.0, 0.0, -2.0),
    (-35.0, 0.0, -2.0),
    (30.0, -20.0, -3.0),
    (-30.0, -20.0, -3.0),
    (30.0, 22.0, -3.5),
    (-30.0, 22.0, -3.5),
)
UNIT_HALF = 15.0


def label_box(name: str, at: Point) -> Box:
    half = len(name) * 4.6 + 2
    return (at[0] - half, at[1] - 8, at[0] + half, at[1] + 8)


def unit_box(at: Point) -> Box:
    return (at[0] - UNIT_HALF, at[1] - UNIT_HALF, at[0] + UNIT_HALF, at[1] + UNIT_HALF - 2)


def dot_box(at: Point) -> Box:
    return (at[0] - 6, at[1] - 6, at[0] + 6, at[1] + 6)


# A split coast's click target: a circle this wide around its spot.
COAST_HALF = 15.0


def coast_box(at: Point) -> Box:
    return (at[0] - COAST_HALF, at[1] - COAST_HALF, at[0] + COAST_HALF, at[1] + COAST_HALF)


# An overlap of this many square units costs one point of an arrangement's score; covering
# a name costs this many times more.
OVERLAP_AREA = 10.0
NAME_WEIGHT = 4.0
# Any overlap the drawing's measure counts (a name over anything, a coast target over a name
# or another coast target) costs this much besides its area: a slight overlap is as bad to a
# reader as a large one.
OVERLAP_FIXED = 12.0


class _Obstacles:
    """What has been placed so far, so later names and units keep clear of it."""

    def __init__(self) -> None:
        self.boxes: list[Box] = []
        self.weight: dict[Box, float] = {}  # boxes that cost more to cover (names)
        self.hard: set[Box] = set()  # names and coast targets: any overlap costs OVERLAP_FIXED

    def near(self, p: Point, radius: float) -> list[Box]:
        return [
            b
            for b in self.boxes
            if b[0] - radius < p[0] < b[2] + radius and b[1] - radius < p[1] < b[3] + radius
        ]

    def cost(self, box: Box, nearby: list[Box], hard: bool = False) -> float:
        """The area ``box`` shares with ``nearby`` boxes (a name's counting NAME_WEIGHT
        times), scaled to score points, and OVERLAP_FIXED for each overlap with a name or a
        coast target (with any box when ``box`` is itself a name: ``hard``). (Inlined:
        placement asks this about a hundred thousand times.)"""
        x0, y0, x1, y1 = box
        total = 0.0
        fixed = 0.0
        for b in nearby:
            b0, b1, b2, b3 = b
            if b0 < x1 and x0 < b2 and b1 < y1 and y0 < b3:
                area = (min(x1, b2) - max(x0, b0)) * (min(y1, b3) - max(y0, b1))
                total += area * self.weight.get(b, 1.0)
                if hard or b in self.hard:
                    fixed += OVERLAP_FIXED
        return total / OVERLAP_AREA + fixed


def _first(
    f: Callable[[Point, tuple[float, float, float]], tuple[float, Point, Point | None]],
    place: tuple[float, float, float],
    p: Point,
) -> float:
    return f(p, place)[0]


# Rounds of placing again the names and coasts that something placed later overlaps.
REPAIR_ROUNDS = 2
# Placement works on a raster of the map with cells this many units wide.
RASTER_STEP = 4.0
# How far a unit may move from the map's position for it (seas are larger and emptier).
SEARCH_RADIUS_SEA = 120.0
SEARCH_RADIUS_LAND = 70.0
# Boxes placed within the search radius plus this margin are the ones that can be in the way.
NEARBY_MARGIN = 60.0
# Below these clearances (distance to the province's border) a unit or a name does not fit.
MIN_UNIT_ROOM = 6.0
MIN_LABEL_ROOM = 4.0
# Room beyond these clearances earns nothing more.
UNIT_ROOM_CAP = 17.0
LABEL_ROOM_CAP = 13.0
MARKER_ROOM_CAP = 7.0
# Score lost per unit of distance from the map's position.
DRIFT_PENALTY = 0.08
# A centre marker stands this far from the name's middle: half the name and a gap.
MARKER_GAP_PER_CHAR = 4.8
MARKER_GAP = 7.0
# The marker's score: its preferred side first, never between a side name and its unit, and
# half of it counts towards the arrangement.
MARKER_SECOND_SIDE_PENALTY = 0.5
MARKER_BETWEEN_PENALTY = 20.0
MARKER_ABOVE = 15.0
MIN_MARKER_ROOM = 2.0
MARKER_OUTSIDE_PENALTY = 15.0
MARKER_WEIGHT = 0.5
# Scores that rule an arrangement out.
NO_ROOM = -1e9
NAME_OUTSIDE = -1e6
# Coasts: a spot within this distance of the shore, clear of the province's main unit.
COAST_SEARCH_RADIUS = 50.0
COAST_NEARBY = 110.0
MIN_COAST_ROOM = 4.0
COAST_ROOM_CAP = 13.0
COAST_DRIFT_PENALTY = 0.25
COAST_CROWD_DISTANCE = 36.0
# A dislodged unit: one of ASIDE_STEPS spots on a circle around the unit, starting below
# right and turning clockwise, each later spot slightly less preferred.
ASIDE_DISTANCE = 25.0
ASIDE_STEPS = 12
ASIDE_FIRST_ANGLE = 35.0
ASIDE_ANGLE_STEP = 30.0
ASIDE_TURN_PENALTY = 0.15
ASIDE_HALF = 12.0
ASIDE_ROOM_CAP = 12.0
ASIDE_NEARBY = 90.0
ASIDE_DEFAULT = (20.0, 15.0)


class _Placer:
    """Units, names and centre markers inside their provinces. The map's positions say
    roughly where; each is then moved, not far, to where the unit, its name and its centre
    marker have room inside the province and clear of what is already placed, so that a
    position near a border does not draw a unit across it. Small provinces choose first."""

    def __init__(
        self,
        gmap: GameMap,
        layout: Layout,
        outlines: dict[str, list[list[Point]]],
        given: dict[str, Point],
        width: float,
        height: float,
    ) -> None:
        self.gmap = gmap
        self.layout = layout
        self.given = given
        self.raster = _Raster(outlines, width, height, RASTER_STEP)
        self.placed = _Obstacles()
        self.anchors: dict[str, Point] = {}
        self.labels: dict[str, Point] = {}
        self.centres: dict[str, Point] = {}
        self.asides: dict[str, Point] = {}
        self.own: dict[str, list[Box]] = {}  # location -> the boxes placed for it

    def smallest_first(self) -> list[str]:
        area = {r: 0 for r in self.raster.names}
        for k in self.raster.label:
            if k >= 0:
                area[self.raster.names[k]] += 1
        return sorted(self.gmap.provinces, key=lambda p: (area.get(p, 0), p))

    def province(self, prov: str) -> None:
        """Place a province's unit, name and centre marker."""
        info = self.gmap.provinces[prov]
        region = _Region(self.raster, prov)
        pos = self.given[prov]
        sc_dx = len(prov) * MARKER_GAP_PER_CHAR + MARKER_GAP if info.supply_centre else 0.0
        radius = SEARCH_RADIUS_SEA if info.type == "sea" else SEARCH_RADIUS_LAND
        nearby = self.placed.near(pos, radius + NEARBY_MARGIN)
        arrangement = functools.partial(self._arrangement, prov, region, pos, sc_dx, nearby)
        if prov in self.layout.anchor:
            at = pos
            _, lp, sc = arrangement(at, (0.0, self.layout.anchor[prov], 0.0))
        else:
            best: tuple[float, Point, Point, Point | None] | None = None
            for place in LABEL_PLACES:
                p = _best(pos, radius, functools.partial(_first, arrangement, place), radius / 7)
                value, lp, sc = arrangement(p, place)
                if best is None or value > best[0]:
                    best = (value, p, lp, sc)
            assert best is not None
            _, at, lp, sc = best
        if prov in self.layout.label:
            dx, dy = self.layout.label[prov]
            lp = (at[0] + dx, at[1] + dy)
        own = [unit_box(at), label_box(prov, lp)]
        if info.supply_centre:
            if prov in self.layout.centre:
                sx, sy = self.layout.centre[prov]
                sc = (lp[0] + sx, lp[1] + sy)
            self.centres[prov] = sc if sc is not None else (lp[0] + sc_dx, lp[1])
            own.append(dot_box(self.centres[prov]))
        self.anchors[prov] = at
        self.labels[prov] = lp
        self.own[prov] = own
        self.placed.boxes += own
        self.placed.weight[own[1]] = NAME_WEIGHT
        self.placed.hard.add(own[1])

    def _arrangement(
        self,
        prov: str,
        region: _Region,
        pos: Point,
        sc_dx: float,
        nearby: list[Box],
        p: Point,
        place: tuple[float, float, float],
    ) -> tuple[float, Point, Point | None]:
        """How good it is to stand the unit at ``p`` with the name at ``place``, and where
        the name and the centre marker then go."""
        cu = region.clearance(p)
        if cu < MIN_UNIT_ROOM:
            return (NO_ROOM, p, None)
        dx, dy, bonus = place
        lp = (p[0] + dx, p[1] + dy)
        cl = region.clearance(lp)
        if cl < MIN_LABEL_ROOM:
            return (NAME_OUTSIDE + cl, lp, None)  # the name must be inside its province
        value = (
            min(cu, UNIT_ROOM_CAP)
            + min(cl, LABEL_ROOM_CAP)
            - DRIFT_PENALTY * math.dist(p, pos)
            + bonus
        )
        placed = self.placed
        value -= placed.cost(unit_box(p), nearby) + placed.cost(
            label_box(prov, lp), nearby, hard=True
        )
        sc = None
        if sc_dx:
            best_side, sc = self._marker_side(region, lp, dx, sc_dx, nearby)
            value += MARKER_WEIGHT * best_side
        return (value, lp, sc)

    def _marker_side(
        self, region: _Region, lp: Point, dx: float, sc_dx: float, nearby: list[Box]
    ) -> tuple[float, Point | None]:
        """The marker goes on whichever side of the name has room; on the side away from the
        unit when the name is beside it."""
        sides = [1.0, -1.0] if dx >= 0 else [-1.0, 1.0]
        best_side, sc = NO_ROOM, None
        spots = [(lp[0] + side * sc_dx, lp[1]) for side in sides]
        spots.append((lp[0], lp[1] - MARKER_ABOVE))  # above the name, where no side has room
        spots.append((lp[0], lp[1] + MARKER_ABOVE))  # or below it
        for k, q in enumerate(spots):
            clear = region.clearance(q)
            room = min(clear, MARKER_ROOM_CAP) - self.placed.cost(dot_box(q), nearby)
            room -= MARKER_SECOND_SIDE_PENALTY * k
            if clear < MIN_MARKER_ROOM:
                room -= MARKER_OUTSIDE_PENALTY  # a marker belongs inside its province
            if k < 2 and abs(dx) > 0 and sides[k] * dx < 0:
                room -= MARKER_BETWEEN_PENALTY  # not between the name and its unit
            if room > best_side:
                best_side, sc = room, q
        return best_side, sc

    def coast(self, loc: str, pos: Point, borders: list[Border]) -> None:
        """A coast's spot: inside the province, next to the seas that coast reaches."""
        gmap = self.gmap
        prov = province_of(loc)
        region = _Region(self.raster, prov)
        seas = {province_of(d) for d in gmap.fleet_adj.get(loc, ()) if gmap.is_sea(province_of(d))}
        shore = [
            q
            for b in borders
            if b.a in seas | {prov} and b.b in seas | {prov} and prov in (b.a, b.b)
            for q in b.points
        ]
        target = min(shore, key=lambda q: math.dist(q, pos)) if shore else pos
        main = self.anchors[prov]
        nearby = self.placed.near(target, COAST_NEARBY)
        placed = self.placed

        def coast_score(p: Point) -> float:
            c = region.clearance(p)
            if c < MIN_COAST_ROOM:
                return NO_ROOM
            crowd = max(0.0, COAST_CROWD_DISTANCE - math.dist(p, main)) + placed.cost(
                coast_box(p), nearby
            )
            return min(c, COAST_ROOM_CAP) - COAST_DRIFT_PENALTY * math.dist(p, target) - crowd

        at = pos if loc in self.layout.anchor else _best(target, COAST_SEARCH_RADIUS, coast_score)
        self.anchors[loc] = at
        self.own[loc] = [coast_box(at)]
        self.placed.boxes.append(coast_box(at))
        self.placed.hard.add(coast_box(at))

    def crowded(self) -> list[str]:
        """Provinces whose name, and coasts whose target, overlap something placed for
        another location, and the locations of what is in the way."""
        owner = {box: loc for loc, boxes in self.own.items() for box in boxes}
        out: dict[str, None] = {}
        for loc, boxes in self.own.items():
            mine = boxes[1] if loc in self.labels else boxes[0]  # the name, or the coast
            for b in self.placed.near(((mine[0] + mine[2]) / 2, mine[1]), 60.0):
                if b not in boxes and self.placed.cost(mine, [b]) > 0:
                    # Both: the one overlapped, and the one in its way (placed later).
                    out[loc] = None
                    out[owner.get(b, loc)] = None
        return list(out)

    def replace(self, loc: str, borders: list[Border]) -> None:
        """Place ``loc`` again, with everything else placed around it."""
        for box in self.own.pop(loc):
            self.placed.boxes.remove(box)
            self.placed.hard.discard(box)
        if loc in self.labels:
            self.province(loc)
        else:
            self.coast(loc, self.given[loc], borders)

    def aside(self, loc: str, at: Point) -> Point:
        """Where a dislodged unit steps aside from the unit that took its place, staying in
        its province where there is room, and clear of names, markers and other units."""
        region = _Region(self.raster, province_of(loc))
        boxes = self.placed.boxes
        nearby = [
            b
            for b in boxes
            if abs(b[0] - at[0]) < ASIDE_NEARBY and abs(b[1] - at[1]) < ASIDE_NEARBY
        ]
        best_value, best_at = NO_ROOM, (at[0] + ASIDE_DEFAULT[0], at[1] + ASIDE_DEFAULT[1])
        own = unit_box(at)
        for k in range(ASIDE_STEPS):
            angle = math.radians(ASIDE_FIRST_ANGLE + ASIDE_ANGLE_STEP * k)
            q = (at[0] + ASIDE_DISTANCE * math.cos(angle), at[1] + ASIDE_DISTANCE * math.sin(angle))
            box = (q[0] - ASIDE_HALF, q[1] - ASIDE_HALF, q[0] + ASIDE_HALF, q[1] + ASIDE_HALF)
            value = min(region.clearance(q), ASIDE_ROOM_CAP) - ASIDE_TURN_PENALTY * k
            value -= self.placed.cost(box, [b for b in nearby if b != own])
            if value > best_value:
                best_value, best_at = value, q
        return best_at


def _place(
    gmap: GameMap,
    layout: Layout,
    outlines: dict[str, list[list[Point]]],
    borders: list[Border],
    given: dict[str, Point],
    width: float,
    height: float,
) -> tuple[dict[str, Point], dict[str, Point], dict[str, Point], dict[str, Point]]:
    """Anchors, labels, centre markers and asides (see :class:`_Placer`): provinces smallest
    first, then coasts, then where each unit steps aside when dislodged."""
    placer = _Placer(gmap, layout, outlines, given, width, height)
    for prov in placer.smallest_first():
        placer.province(prov)
    for loc, pos in given.items():
        if loc != province_of(loc):
            placer.coast(loc, pos, borders)
    for _ in range(REPAIR_ROUNDS):
        for loc in placer.crowded():
            placer.replace(loc, borders)
    asides = {loc: placer.aside(loc, at) for loc, at in placer.anchors.items()}
    return placer.anchors, placer.labels, placer.centres, asides


def point_in(loops: Sequence[Sequence[Point]], p: Point) -> bool:
    """Even-odd test over all loops of a region."""
    inside = False
    x, y = p
    for loop in loops:
        n = len(loop)
        for k in range(n):
            (ax, ay), (bx, by) = loop[k], loop[(k + 1) % n]
            if (ay > y) != (by > y) and x < ax + (y - ay) * (bx - ax) / (by - ay):
                inside = not inside
    return inside
