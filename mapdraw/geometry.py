"""The shapes of a map's provinces, computed from the engine's display positions.

Each province is grown from seed points: its display position plus, for the maps we tuned, a
few shaping points from :mod:`mapdraw.layout`. The plane is split by a Voronoi diagram of all
seeds (clipped to the frame), each province is the union of its seeds' cells, and the borders
between provinces are smoothed into curves. Nothing here is copied map art: shapes come from the
positions alone, so a variant map with positions gets a drawing too.

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

from engine.map import GameMap, province_of
from mapdraw.layout import LAYOUTS, Layout

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
    the index of the seed across the edge starting there (or FRAME)."""
    x0, y0, x1, y1 = box
    cells = []
    for i, p in enumerate(seeds):
        cell: list[tuple[Point, int]] = [
            ((x0, y0), FRAME),
            ((x0, y1), FRAME),
            ((x1, y1), FRAME),
            ((x1, y0), FRAME),
        ]
        others = sorted(
            (((q[0] - p[0]) ** 2 + (q[1] - p[1]) ** 2, j) for j, q in enumerate(seeds) if j != i)
        )
        for d2, j in others:
            # A bisector farther than every vertex cannot cut the cell, nor can any later one.
            reach = max((v[0] - p[0]) ** 2 + (v[1] - p[1]) ** 2 for v, _ in cell)
            if d2 / 4 > reach:
                break
            cell = _clip(cell, p, seeds[j], j)
            if not cell:
                break
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


@cache
def geometry(gmap: GameMap) -> Geometry:
    layout = LAYOUTS.get(gmap.name, Layout())
    proj = Projection(lenses=layout.lenses)
    positions = gmap.positions
    missing = [p for p in gmap.provinces if p not in positions]
    if missing:
        raise ValueError(f"map {gmap.name} has no display position for {', '.join(missing)}")

    # Seeds in projected (unscaled) coordinates.
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
        add(prov, [positions[prov], *layout.shape.get(prov, ())])
    for name, (_, filler_seeds) in layout.fillers.items():
        add(name, filler_seeds)

    # The frame: the layout's (the extremes of its edges), or the seeds' extent with a margin.
    if layout.frame is not None:
        south, west, north, east = layout.frame
        steps = [k / 20 for k in range(21)]
        fx0 = min(proj(south + t * (north - south), west)[0] for t in steps)
        fx1 = max(proj(south + t * (north - south), east)[0] for t in steps)
        fy0 = min(proj(north, west + t * (east - west))[1] for t in steps)
        fy1 = max(proj(south, west + t * (east - west))[1] for t in steps)
    else:
        xs = [p[0] for p in seed_pts]
        ys = [p[1] for p in seed_pts]
        mx = (max(xs) - min(xs)) * 0.06
        my = (max(ys) - min(ys)) * 0.06
        fx0, fx1, fy0, fy1 = min(xs) - mx, max(xs) + mx, min(ys) - my, max(ys) + my
    scale = WIDTH / (fx1 - fx0)
    height = round((fy1 - fy0) * scale, 1)

    def to_svg(p: Point) -> Point:
        return ((p[0] - fx0) * scale, (p[1] - fy0) * scale)

    seeds = [to_svg(p) for p in seed_pts]
    cells = voronoi(seeds, (0.0, 0.0, WIDTH, height))

    verts = _Vertices()
    # Directed border edges (u, v) per region, and the region on the other side of each.
    region_edges: dict[str, dict[int, list[int]]] = {}
    undirected: dict[tuple[int, int], tuple[str, str | None]] = {}
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
            region_edges.setdefault(region, {}).setdefault(u, []).append(v)
            key = (min(u, v), max(u, v))
            undirected.setdefault(key, (region, other))

    # Junctions: vertices where more than two border edges meet, or on the frame. Border
    # chains run between junctions and are smoothed once, so neighbours share the same curve.
    degree: dict[int, int] = {}
    for u, v in undirected:
        degree[u] = degree.get(u, 0) + 1
        degree[v] = degree.get(v, 0) + 1
    pts = verts.points

    def on_frame(k: int) -> bool:
        x, y = pts[k]
        return min(abs(x), abs(y), abs(x - WIDTH), abs(y - height)) < 1e-6

    junction = {k for k, d in degree.items() if d != 2 or on_frame(k)}
    adjacency: dict[int, list[int]] = {}
    for u, v in undirected:
        adjacency.setdefault(u, []).append(v)
        adjacency.setdefault(v, []).append(u)

    # Each chain under its first directed edge: the vertex ids it runs through and its points.
    chains: dict[tuple[int, int], tuple[list[int], list[Point]]] = {}
    borders: list[Border] = []
    touching: set[frozenset[str]] = set()

    def trace(start: int, nxt: int) -> list[int]:
        path = [start, nxt]
        while path[-1] not in junction:
            a, b = path[-2], path[-1]
            path.append(next(x for x in adjacency[b] if x != a))
        return path

    def build_chain(path: list[int]) -> None:
        a, b = undirected[(min(path[0], path[1]), max(path[0], path[1]))]
        kind = _border_kind(gmap, a, b)
        raw = [pts[k] for k in path]
        if kind != "frame":
            if kind == "coast":
                raw = _wiggle(_wiggle(raw, 7.0, 1), 3.5, 2)
            raw = _simplify(_chaikin(raw, 3), 0.3)
        chains[(path[0], path[1])] = (path, raw)
        chains[(path[-1], path[-2])] = (path[::-1], raw[::-1])
        borders.append(Border(a, b, kind, tuple(raw)))
        if b is not None:
            touching.add(frozenset((a, b)))

    covered: set[tuple[int, int]] = set()

    def build_from(j: int, n: int) -> None:
        path = trace(j, n)
        covered.update((min(a, b), max(a, b)) for a, b in itertools.pairwise(path))
        build_chain(path)

    for j in sorted(junction):
        for n in sorted(adjacency.get(j, ())):
            if (min(j, n), max(j, n)) not in covered:
                build_from(j, n)
    # Loops with no junction at all (a region wholly inside another).
    for u, v in sorted(undirected):
        if (u, v) not in covered:
            junction.add(u)
            build_from(u, v)

    outlines: dict[str, list[list[Point]]] = {}
    for region, edges in region_edges.items():
        loops: list[list[Point]] = []
        unused = {u: list(vs) for u, vs in edges.items()}

        def take(u: int, v: int, unused: dict[int, list[int]] = unused) -> None:
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
        outlines[region] = loops

    given = {
        loc: to_svg(proj(*positions[loc]))
        for loc in positions
        if province_of(loc) in gmap.provinces
    }
    anchors, labels, centres, asides = _place(gmap, layout, outlines, borders, given, height)
    fillers = {name: title for name, (title, _) in layout.fillers.items()}
    for name, (_title, fpts) in layout.fillers.items():
        if fpts:
            labels[name] = to_svg(proj(*fpts[0]))
    return Geometry(
        WIDTH,
        height,
        outlines,
        borders,
        anchors,
        labels,
        centres,
        fillers,
        touching,
        list(zip(seed_region, seeds, strict=True)),
        asides,
    )


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
)
UNIT_HALF = 15.0


def _label_box(name: str, at: Point) -> Box:
    half = len(name) * 4.6 + 2
    return (at[0] - half, at[1] - 8, at[0] + half, at[1] + 8)


def _unit_box(at: Point) -> Box:
    return (at[0] - UNIT_HALF, at[1] - UNIT_HALF, at[0] + UNIT_HALF, at[1] + UNIT_HALF - 2)


def _dot_box(at: Point) -> Box:
    return (at[0] - 6, at[1] - 6, at[0] + 6, at[1] + 6)


class _Obstacles:
    """What has been placed so far, so later names and units keep clear of it."""

    def __init__(self) -> None:
        self.boxes: list[Box] = []

    def near(self, p: Point, radius: float) -> list[Box]:
        return [
            b
            for b in self.boxes
            if b[0] - radius < p[0] < b[2] + radius and b[1] - radius < p[1] < b[3] + radius
        ]

    @staticmethod
    def cost(box: Box, nearby: list[Box]) -> float:
        """The area ``box`` shares with ``nearby`` boxes, scaled to score points. (Inlined:
        placement asks this about a hundred thousand times.)"""
        x0, y0, x1, y1 = box
        total = 0.0
        for b0, b1, b2, b3 in nearby:
            if b0 < x1 and x0 < b2 and b1 < y1 and y0 < b3:
                total += (min(x1, b2) - max(x0, b0)) * (min(y1, b3) - max(y0, b1))
        return total / 40.0


def _first(
    f: Callable[[Point, tuple[float, float, float]], tuple[float, Point, Point | None]],
    place: tuple[float, float, float],
    p: Point,
) -> float:
    return f(p, place)[0]


def _place(
    gmap: GameMap,
    layout: Layout,
    outlines: dict[str, list[list[Point]]],
    borders: list[Border],
    given: dict[str, Point],
    height: float,
) -> tuple[dict[str, Point], dict[str, Point], dict[str, Point], dict[str, Point]]:
    """Units, names and centre markers inside their provinces. The map's positions say
    roughly where; each is then moved, not far, to where the unit, its name and its centre
    marker have room inside the province and clear of what is already placed, so that a
    position near a border does not draw a unit across it. Small provinces choose first."""
    anchors: dict[str, Point] = {}
    labels: dict[str, Point] = {}
    centres: dict[str, Point] = {}
    raster = _Raster(outlines, WIDTH, height, 4.0)
    area = {r: 0 for r in outlines}
    for k in raster.label:
        if k >= 0:
            area[raster.names[k]] += 1
    placed = _Obstacles()
    order = sorted(gmap.provinces, key=lambda p: (area.get(p, 0), p))
    for prov in order:
        info = gmap.provinces[prov]
        region = _Region(raster, prov)
        pos = given[prov]
        sc_dx = len(prov) * 4.8 + 7 if info.supply_centre else 0.0
        radius = 120.0 if info.type == "sea" else 70.0
        nearby = placed.near(pos, radius + 60)

        def arrangement(
            p: Point,
            place: tuple[float, float, float],
            region: _Region = region,
            pos: Point = pos,
            sc_dx: float = sc_dx,
            nearby: list[Box] = nearby,
            prov: str = prov,
        ) -> tuple[float, Point, Point | None]:
            """How good it is to stand the unit at ``p`` with the name at ``place``, and where
            the name and the centre marker then go."""
            cu = region.clearance(p)
            if cu < 6:
                return (-1e9, p, None)
            dx, dy, bonus = place
            lp = (p[0] + dx, p[1] + dy)
            cl = region.clearance(lp)
            if cl < 4:
                return (-1e6 + cl, lp, None)  # the name must be inside its province
            value = min(cu, 17.0) + min(cl, 13.0) - 0.08 * math.dist(p, pos) + bonus
            value -= placed.cost(_unit_box(p), nearby) + placed.cost(_label_box(prov, lp), nearby)
            sc = None
            if sc_dx:
                # The marker goes on whichever side of the name has room; on the side away
                # from the unit when the name is beside it.
                sides = [1.0, -1.0] if dx >= 0 else [-1.0, 1.0]
                best_side = -1e9
                for k, side in enumerate(sides):
                    q = (lp[0] + side * sc_dx, lp[1])
                    room = min(region.clearance(q), 7.0) - placed.cost(_dot_box(q), nearby)
                    room -= 0.5 * k
                    if abs(dx) > 0 and side * dx < 0:
                        room -= 20  # not between the name and its unit
                    if room > best_side:
                        best_side, sc = room, q
                value += 0.5 * best_side
            return (value, lp, sc)

        if prov in layout.anchor:
            at = given[prov]
            dy_fixed = layout.anchor[prov]
            _, lp, sc = arrangement(at, (0.0, dy_fixed, 0.0))
        else:
            best: tuple[float, Point, Point, Point | None] | None = None
            for place in LABEL_PLACES:
                p = _best(pos, radius, functools.partial(_first, arrangement, place), radius / 7)
                value, lp, sc = arrangement(p, place)
                if best is None or value > best[0]:
                    best = (value, p, lp, sc)
            assert best is not None
            _, at, lp, sc = best
        if prov in layout.label:
            dx, dy = layout.label[prov]
            lp = (at[0] + dx, at[1] + dy)
        if info.supply_centre:
            if prov in layout.centre:
                sx, sy = layout.centre[prov]
                sc = (lp[0] + sx, lp[1] + sy)
            centres[prov] = sc if sc is not None else (lp[0] + sc_dx, lp[1])
            placed.boxes.append(_dot_box(centres[prov]))
        anchors[prov] = at
        labels[prov] = lp
        placed.boxes += [_unit_box(at), _label_box(prov, lp)]

    # Coasts: a spot inside the province, next to the seas that coast reaches.
    for loc, pos in given.items():
        prov = province_of(loc)
        if loc == prov:
            continue
        region = _Region(raster, prov)
        seas = {province_of(d) for d in gmap.fleet_adj.get(loc, ()) if gmap.is_sea(province_of(d))}
        shore = [
            q
            for b in borders
            if b.a in seas | {prov} and b.b in seas | {prov} and prov in (b.a, b.b)
            for q in b.points
        ]
        target = min(shore, key=lambda q: math.dist(q, pos)) if shore else pos
        main = anchors[prov]
        nearby = placed.near(target, 110)

        def coast_score(
            p: Point,
            region: _Region = region,
            target: Point = target,
            main: Point = main,
            nearby: list[Box] = nearby,
        ) -> float:
            c = region.clearance(p)
            if c < 4:
                return -1e9
            crowd = max(0.0, 36 - math.dist(p, main)) + placed.cost(_unit_box(p), nearby)
            return min(c, 13.0) - 0.25 * math.dist(p, target) - crowd

        at = given[loc] if loc in layout.anchor else _best(target, 50.0, coast_score)
        anchors[loc] = at
        placed.boxes.append(_unit_box(at))

    # A dislodged unit steps aside from the unit that took its place, staying in its province
    # where there is room, and clear of names, markers and other units.
    names = placed.boxes
    asides: dict[str, Point] = {}
    for loc, at in anchors.items():
        region = _Region(raster, province_of(loc))
        nearby = [b for b in names if abs(b[0] - at[0]) < 90 and abs(b[1] - at[1]) < 90]
        best_value, best_at = -1e9, (at[0] + 20.0, at[1] + 15.0)
        for k in range(12):
            angle = math.radians(35 + 30 * k)  # starting below right, the usual place
            q = (at[0] + 25 * math.cos(angle), at[1] + 25 * math.sin(angle))
            box = (q[0] - 12, q[1] - 12, q[0] + 12, q[1] + 12)
            own = _unit_box(at)
            value = min(region.clearance(q), 12.0) - 0.15 * k
            value -= placed.cost(box, [b for b in nearby if b != own])
            if value > best_value:
                best_value, best_at = value, q
        asides[loc] = best_at
    return anchors, labels, centres, asides


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
