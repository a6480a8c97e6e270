"""Where to draw the provinces of a map that has no display positions: a plane drawing of its
adjacency graph.

Only the standard map comes with positions (latitude and longitude). For any other map the
drawing is computed, deterministically. A map with places on its picture (the map data's
``picture``: every bundled variant) takes its plane graph, embedding and rim from them
(:mod:`mapdraw.anchored`), pins the ring in the directions the rim lies in, and from step 3 on
pulls every province towards its place. Otherwise, from the adjacencies alone:

1. The province graph (two provinces are joined when a unit of either type can move between
   them) is made planar: if it is not, seeded greedy passes add the adjacencies, the local ones
   (most common neighbours) first, leaving out each that would break planarity; the pass that
   leaves out fewest wins. Regions in the plane touch as a planar graph's vertices do, so a
   drawing can show every kept adjacency.
2. A planar embedding gives the faces; the largest becomes the rim. A map with no fair rim (a
   world map: every face small) is first cut open along a seam, a dual path between two far
   faces that crosses seas where it can, as a world map is cut along a meridian. A hidden ring
   of vertices outside the rim is pinned to the frame (a rounded rectangle), and every inner
   face with more than three sides gets a hidden vertex joined to its corners, so that every
   face is a triangle.
3. Tutte's barycentric drawing (each free vertex at the weighted mean of its neighbours, a
   linear system) places everything without crossings, but crowds the middle. A relaxation
   then pushes every inner triangle towards one area (more for provinces with split coasts)
   and every edge towards one length; a step that would make a triangle too thin or flip it is
   halved, then dropped, so the drawing stays plane.
4. Seeds for :mod:`mapdraw.geometry`: each province's point and points along the first part of
   each of its edges, so that the Voronoi cells of two neighbours meet at the middle of their
   edge; a face of five sides or more holds a region that is no province (hatched, as
   Switzerland is on the standard board) grown along spokes to its corners, so that provinces
   around it that are not neighbours do not touch.

Coordinates are in an abstract plane (the ring's half-axes are ``ASPECT`` and 1);
:mod:`mapdraw.geometry` scales them to the frame.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache

import networkx as nx
import numpy as np

from diplomat.engine.map import GameMap, province_of
from diplomat.mapdraw.anchored import faces, normalised, plane_embedding, ring_points

Point = tuple[float, float]
Edge = tuple[str, str]

# The rim's ellipse: half-width over half-height (the page is wider than tall).
ASPECT = 1.3
# Reweighting rounds of the barycentric drawing, and how strongly a long edge pulls (weight =
# length ** REWEIGHT_POWER).
REWEIGHT_ROUNDS = 4
REWEIGHT_POWER = 1.0
# Passes of the greedy planar subgraph (a map that is not planar): at least PLANAR_PASSES,
# more for small maps (up to PLANAR_BUDGET / edges, at most PLANAR_MAX_PASSES); and how much
# the later passes shake the order (in common neighbours).
PLANAR_PASSES = 4
PLANAR_MAX_PASSES = 24
PLANAR_BUDGET = 1500
PLANAR_SHAKE = 2.5
# The rim's superellipse exponent (2: an ellipse; higher: nearer a rectangle).
RIM_ROUNDNESS = 4.0
# Spreading the drawing: rounds, the largest step (share of the ideal edge length, falling to
# nothing), how strongly vertices repel, and the thinnest triangle allowed (share of an ideal
# triangle's area).
RELAX_ROUNDS = 1000
RELAX_STEP = 0.5
AREA_WEIGHT = 1.0
FILL = 0.95
# A province's weight in the area it gets: 1, and this much more per split coast.
COAST_WEIGHT = 0.6
SPRING = 0.5
# How strongly a province with a place on the map's picture is pulled towards it, against the
# areas' and edges' evening out (a share of the springs' pull per unit of distance).
ANCHOR = 0.6
MIN_TRIANGLE = 0.08
# Where along an edge (as a share of its length, from the province's end) its shaping seeds go.
EDGE_SEEDS: tuple[float, ...] = (0.25, 0.44)
# A split coast's point: this share of the way from its province's point to the middle of
# the provinces that coast reaches.
COAST_PULL = 0.35
# A map whose largest face has fewer than this many times the square root of its number of
# provinces is cut open along a seam; crossing costs by how many of the two sides are seas.
RIM_SHARE = 0.6
SEAM_COST = (9.0, 3.0, 1.0)
# A face with at least this many sides holds a region that is no province.
FILLER_FACE = 5
# Where along each spoke of a filler (from its middle to a corner) its seeds go.
FILLER_SEEDS: tuple[float, ...] = (0.25, 0.45)
# Hidden vertices are named this and a number (lower case: never a province token).
HIDDEN = "void"


@dataclass(frozen=True, slots=True)
class Embedding:
    """A computed drawing of a map's provinces."""

    positions: dict[str, Point]  # location (province or coast) -> point
    seeds: tuple[tuple[str, Point], ...]  # (region, point): provinces' and fillers' seeds
    fillers: dict[str, Point]  # region that is no province -> where its name would go
    dropped: frozenset[frozenset[str]]  # adjacencies the plane drawing leaves out


def province_edges(gmap: GameMap) -> list[Edge]:
    """Every pair of neighbouring provinces, each once, sorted."""
    return sorted({(a, b) if a < b else (b, a) for a, ns in gmap.neighbours.items() for b in ns})


def planar_subgraph(nodes: Sequence[str], edges: Sequence[Edge]) -> tuple[nx.Graph, list[Edge]]:
    """A planar graph on ``nodes`` keeping as many of ``edges`` as greedy passes can: edges are
    added in an order (the local ones first: most common neighbours), each that would make the
    graph non-planar left out. The first pass takes that order as it is, the others shake it
    a little (seeded: the result is always the same); the pass leaving out fewest wins.
    Returns the graph and the edges left out."""
    graph = nx.Graph()
    graph.add_nodes_from(nodes)
    graph.add_edges_from(edges)
    if nx.check_planarity(graph)[0]:
        return graph, []
    common = {e: len(set(graph[e[0]]) & set(graph[e[1]])) for e in edges}
    best: tuple[nx.Graph, list[Edge]] | None = None
    passes = max(PLANAR_PASSES, min(PLANAR_MAX_PASSES, PLANAR_BUDGET // max(len(edges), 1)))
    for k in range(passes):
        jitter = random.Random(k)
        shake = {e: jitter.uniform(0, PLANAR_SHAKE) if k else 0.0 for e in edges}
        order = sorted(edges, key=lambda e: (-common[e] + shake[e], e))
        kept, dropped = _greedy_planar(nodes, order)
        if best is None or len(dropped) < len(best[1]):
            best = (kept, dropped)
    assert best is not None
    return best


def _greedy_planar(nodes: Sequence[str], order: Sequence[Edge]) -> tuple[nx.Graph, list[Edge]]:
    """Edges added in ``order``, each that would make the graph non-planar left out (found
    by binary search over what is left, so a pass costs a few planarity tests per edge left
    out)."""
    kept = nx.Graph()
    kept.add_nodes_from(nodes)
    dropped: list[Edge] = []
    start = 0
    while start < len(order):
        # The longest prefix of what is left that keeps the graph planar.
        lo, hi = start, len(order)
        while lo < hi:
            mid = (lo + hi + 1) // 2
            kept.add_edges_from(order[lo:mid])
            if nx.check_planarity(kept)[0]:
                lo = mid
            else:
                kept.remove_edges_from(order[lo:mid])
                hi = mid - 1
        if lo < len(order):
            dropped.append(order[lo])
        start = lo + 1
    return kept, dropped


def _connect_components(graph: nx.Graph) -> None:
    """Join separate parts of the graph (islands nothing reaches) by one edge each, so that
    the drawing has one rim."""
    parts = sorted((sorted(c) for c in nx.connected_components(graph)), key=lambda c: c[0])
    for a, b in itertools.pairwise(parts):
        graph.add_edge(a[0], b[0])


def open_up(graph: nx.Graph, seas: frozenset[str]) -> list[Edge]:
    """Cut a map that closes on itself (a world map: every face small, no natural rim) along
    a seam, as a world map is cut along a meridian: the dual path between two faces as far
    apart as the map allows, choosing the cheapest crossings (between two seas, then a sea and
    a coast), and remove the adjacencies it crosses. Returns them (none when the largest face
    is already a fair rim)."""
    ok, embedding = nx.check_planarity(graph)
    assert ok
    face_of: dict[tuple[str, str], int] = {}
    sizes: list[int] = []
    for v in sorted(embedding.nodes):
        for w in embedding.neighbors_cw_order(v):
            if (v, w) not in face_of:
                walk = list(embedding.traverse_face(v, w))
                for a, b in zip(walk, walk[1:] + walk[:1], strict=True):
                    face_of[(a, b)] = len(sizes)
                sizes.append(len(set(walk)))
    n = graph.number_of_nodes()
    if not sizes or max(sizes) >= RIM_SHARE * math.sqrt(n):
        return []
    dual = nx.Graph()
    for a, b in sorted(tuple(sorted(e)) for e in graph.edges):
        f, g = face_of[(a, b)], face_of[(b, a)]
        cost = SEAM_COST[(a in seas) + (b in seas)]
        if f != g and (not dual.has_edge(f, g) or dual[f][g]["cost"] > cost):
            dual.add_edge(f, g, cost=cost, edge=(a, b))
    if dual.number_of_nodes() < 2:
        return []

    def farthest(f: int) -> int:
        hops = nx.single_source_shortest_path_length(dual, f)
        return max(sorted(hops), key=lambda k: hops[k])

    start = farthest(max(range(len(sizes)), key=lambda k: (sizes[k], -k)))
    end = farthest(start)
    path = nx.dijkstra_path(dual, start, end, weight="cost")
    cut = [dual[f][g]["edge"] for f, g in itertools.pairwise(path)]
    graph.remove_edges_from(cut)
    return cut


def _distinct(cycle: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(cycle))


def _face_key(face: list[str]) -> tuple[int, list[str]]:
    return (len(set(face)), sorted(face))


@dataclass
class _Triangulated:
    graph: nx.Graph  # the planar graph plus hidden vertices
    rim: list[str]  # the hidden ring outside the rim, in order
    hidden: dict[str, list[str]]  # hidden vertex -> the face it sits in
    triangles: list[tuple[str, str, str]]  # the inner faces, all triangles now
    rim_face: list[str]  # the provinces round the rim, in order (ring[k] is outside k, k+1)


def _half_edges(walk: list[str]) -> frozenset[tuple[str, str]]:
    return frozenset(zip(walk, walk[1:] + walk[:1], strict=True))


def _triangulate(
    graph: nx.Graph, given: tuple[nx.PlanarEmbedding, list[str]] | None = None
) -> _Triangulated:
    """The rim and a hidden vertex in every other face that is not a triangle. Without
    ``given`` the embedding is any planar one and the rim its largest face; else the given
    embedding and the face that walks the given rim (the ones a map's picture gives)."""
    if given is None:
        ok, embedding = nx.check_planarity(graph)
        assert ok
    else:
        embedding = given[0]
    all_faces = faces(embedding)
    if not all_faces:  # a single province, or none
        return _Triangulated(graph.copy(), sorted(graph.nodes), {}, [], sorted(graph.nodes))
    if given is None:
        rim_face = max(all_faces, key=_face_key)
    else:
        rim_face = next(f for f in all_faces if _half_edges(f) == _half_edges(given[1]))
    out = graph.copy()
    # A ring of hidden vertices outside the rim, one per rim edge: the ring is pinned to the
    # frame and the rim provinces stay free (pinning them would squash a rim province whose
    # two rim neighbours are neighbours too into a sliver).
    ring = [f"{HIDDEN}r{k}" for k in range(len(rim_face))]
    triangles: list[tuple[str, str, str]] = []
    for k, (a, b) in enumerate(zip(rim_face, rim_face[1:] + rim_face[:1], strict=True)):
        here, after = ring[k], ring[(k + 1) % len(ring)]
        out.add_edges_from(((here, a), (here, b), (here, after)))
        triangles += [(here, a, b), (here, after, b)]
    hidden: dict[str, list[str]] = {}
    for face in all_faces:
        if face is rim_face:
            continue
        corners = _distinct(face)
        if len(corners) > 3:
            name = f"{HIDDEN}{len(hidden)}"
            hidden[name] = corners
            out.add_edges_from((name, c) for c in corners)
            triangles += [(name, a, b) for a, b in zip(face, face[1:] + face[:1], strict=True)]
        elif len(corners) == 3:
            triangles.append((corners[0], corners[1], corners[2]))
    return _Triangulated(out, ring, hidden, triangles, rim_face)


def _rim_points(rim: list[str]) -> dict[str, Point]:
    """The rim's vertices evenly spaced along a superellipse (a rounded rectangle: the rim
    provinces line the frame, the corners are not left to a few of them)."""
    samples = 720
    curve = []
    for k in range(samples + 1):
        t = 2 * math.pi * k / samples + math.pi / 2
        c, s = math.cos(t), math.sin(t)
        curve.append(
            (
                ASPECT * math.copysign(abs(c) ** (2 / RIM_ROUNDNESS), c),
                -math.copysign(abs(s) ** (2 / RIM_ROUNDNESS), s),
            )
        )
    run = [0.0]
    for a, b in itertools.pairwise(curve):
        run.append(run[-1] + math.dist(a, b))
    out: dict[str, Point] = {}
    k = 0
    for i, v in enumerate(rim):
        target = run[-1] * i / len(rim)
        while run[k + 1] < target:
            k += 1
        out[v] = curve[k]
    return out


def relax(
    graph: nx.Graph,
    pos: dict[str, Point],
    fixed: Iterable[str],
    triangles: Sequence[tuple[str, str, str]],
    weight: dict[str, float] | None = None,
    rounds: int = RELAX_ROUNDS,
    anchors: dict[str, Point] | None = None,
) -> dict[str, Point]:
    """Even out a plane drawing: every triangle is pushed towards the same area (small ones
    grow, large ones shrink) and every edge towards the same length, by gradient steps; a
    step that would make a triangle too thin (or flip it) is halved until it does not, so the
    drawing stays plane. Tutte's drawing crowds the middle; this spreads it. ``anchors`` pull
    their vertices towards those points (a map's places on its picture) all the while."""
    nodes = sorted(graph.nodes)
    index = {v: k for k, v in enumerate(nodes)}
    p = np.array([pos[v] for v in nodes], dtype=float)
    if len(nodes) < 4 or not triangles:
        return dict(pos)
    movable = np.ones(len(nodes), dtype=bool)
    for v in fixed:
        movable[index[v]] = False
    edges = np.array(sorted((index[a], index[b]) for a, b in graph.edges), dtype=int)
    tri = np.array([(index[a], index[b], index[c]) for a, b, c in triangles], dtype=int)
    ta, tb, tc = tri[:, 0], tri[:, 1], tri[:, 2]

    def areas(q: np.ndarray) -> np.ndarray:
        a, b, c = q[ta], q[tb], q[tc]
        return 0.5 * (
            (b[:, 0] - a[:, 0]) * (c[:, 1] - a[:, 1]) - (b[:, 1] - a[:, 1]) * (c[:, 0] - a[:, 0])
        )

    start = areas(p)
    sign = np.sign(start)
    sign[sign == 0] = 1.0
    total = float(np.abs(start).sum())
    # Triangles with a pinned corner (the hidden ring's) only keep from flipping; the others
    # share the board (less a strip along the frame for the rim provinces) evenly.
    inner = movable[ta] & movable[tb] & movable[tc]
    # Each triangle's share: the mean of its corners' weights (a province with split coasts
    # needs room for their targets).
    w = np.array([(weight or {}).get(v, 1.0) for v in nodes])
    share = (w[ta] + w[tb] + w[tc]) / 3
    goal_area = total * FILL / max(float((share * inner).sum()), 1e-9)
    ideal = math.sqrt(4 * goal_area / math.sqrt(3))
    # The thinnest each triangle may become: a share of an ideal triangle, or (for one that
    # starts thinner) half its start; never flipped.
    floor = np.minimum(MIN_TRIANGLE * goal_area, 0.5 * start * sign)
    pinned = [index[v] for v in sorted(anchors or {})]
    target = np.array([(anchors or {})[v] for v in sorted(anchors or {})], dtype=float)
    for it in range(rounds):
        temp = ideal * RELAX_STEP * (1 - it / rounds) + ideal * 0.01
        # Area: the gradient of sum((A / goal - 1)^2) for each corner of each triangle.
        goal = goal_area * share
        err = (areas(p) * sign / goal - 1) * sign / goal * inner
        a, b, c = p[ta], p[tb], p[tc]
        force = np.zeros_like(p)
        for corner, u, v in ((ta, b, c), (tb, c, a), (tc, a, b)):
            grad = 0.5 * np.stack([u[:, 1] - v[:, 1], v[:, 0] - u[:, 0]], axis=1)
            np.subtract.at(force, corner, grad * err[:, None] * AREA_WEIGHT)
        ev = p[edges[:, 1]] - p[edges[:, 0]]
        el = np.sqrt((ev**2).sum(axis=1)) + 1e-12
        pull = ev * ((el - ideal) / el / ideal)[:, None]
        np.add.at(force, edges[:, 0], pull * SPRING)
        np.subtract.at(force, edges[:, 1], pull * SPRING)
        if pinned:
            force[pinned] += (target - p[pinned]) * (ANCHOR / ideal)
        force *= ideal
        length = np.sqrt((force**2).sum(axis=1)) + 1e-12
        step = force * (np.minimum(length, temp) / length)[:, None]
        step[~movable] = 0.0
        for attempt in range(len(p) + 12):
            bad = (areas(p + step) * sign) < floor
            if not bad.any():
                break
            # The vertices of every triangle that went too thin: their steps halved a few
            # times, then dropped (the old positions were valid, so this ends).
            step[np.unique(tri[bad].ravel())] *= 0.5 if attempt < 12 else 0.0
        p = p + step
    return {v: (float(p[k, 0]), float(p[k, 1])) for v, k in index.items()}


def tutte(
    graph: nx.Graph, fixed: dict[str, Point], rounds: int = REWEIGHT_ROUNDS
) -> dict[str, Point]:
    """Tutte's barycentric drawing with ``fixed`` vertices pinned, then ``rounds`` of
    reweighting each edge by its length (which evens out edge lengths)."""
    nodes = sorted(graph.nodes)
    free = [v for v in nodes if v not in fixed]
    index = {v: k for k, v in enumerate(free)}
    edges = sorted(tuple(sorted(e)) for e in graph.edges)
    weight = {e: 1.0 for e in edges}
    pos = dict(fixed)
    for _ in range(rounds + 1):
        n = len(free)
        lap = np.zeros((n, n))
        rhs = np.zeros((n, 2))
        for (a, b), w in weight.items():
            for u, v in ((a, b), (b, a)):
                if u not in index:
                    continue
                i = index[u]
                lap[i, i] += w
                if v in index:
                    lap[i, index[v]] -= w
                else:
                    rhs[i] += w * np.array(fixed[v])
        sol = np.linalg.solve(lap, rhs) if n else np.zeros((0, 2))
        for v, k in index.items():
            pos[v] = (float(sol[k, 0]), float(sol[k, 1]))
        lengths = {e: math.dist(pos[e[0]], pos[e[1]]) for e in edges}
        mean = sum(lengths.values()) / len(lengths) if lengths else 1.0
        weight = {e: max(lengths[e] / mean, 0.05) ** REWEIGHT_POWER for e in edges}
    return pos


@dataclass(frozen=True, slots=True)
class MapShape:
    """What a computed drawing depends on: the provinces, which are neighbours, and which
    provinces each split coast reaches. Maps with the same shape (a variant and the map it
    is based on) share one drawing."""

    provinces: tuple[str, ...]
    edges: tuple[Edge, ...]
    coasts: tuple[tuple[str, tuple[str, ...]], ...]  # coast location -> provinces it reaches
    seas: frozenset[str]
    # Province -> its place on the map's picture (x, y down); empty when the map has none.
    picture: tuple[tuple[str, Point], ...] = ()


def shape_of(gmap: GameMap) -> MapShape:
    coasts = tuple(
        (loc, tuple(sorted({province_of(d) for d in gmap.fleet_adj.get(loc, ())})))
        for prov, info in sorted(gmap.provinces.items())
        for loc in (f"{prov}/{c}" for c in info.coasts)
    )
    seas = frozenset(p for p, info in gmap.provinces.items() if info.type == "sea")
    picture = tuple((p, gmap.picture[p]) for p in sorted(gmap.provinces) if gmap.picture)
    return MapShape(
        tuple(sorted(gmap.provinces)), tuple(province_edges(gmap)), coasts, seas, picture
    )


def _coast_points(shape: MapShape, pos: dict[str, Point]) -> dict[str, Point]:
    """A split coast's point: from its province's point towards the provinces that coast
    reaches."""
    out: dict[str, Point] = {}
    for loc, reach in shape.coasts:
        px, py = pos[province_of(loc)]
        if reach:
            sx = sum(pos[r][0] for r in reach) / len(reach)
            sy = sum(pos[r][1] for r in reach) / len(reach)
            out[loc] = (px + COAST_PULL * (sx - px), py + COAST_PULL * (sy - py))
        else:
            out[loc] = (px, py)
    return out


def embed(gmap: GameMap) -> Embedding:
    """The computed drawing of ``gmap`` (cached per shape of map)."""
    return embed_shape(shape_of(gmap))


@cache
def embed_shape(shape: MapShape) -> Embedding:
    """The computed drawing of a map's shape."""
    nodes = list(shape.provinces)
    weight = {v: 1.0 for v in nodes}
    for loc, _ in shape.coasts:
        weight[province_of(loc)] += COAST_WEIGHT
    if shape.picture:
        places, aspect = normalised(dict(shape.picture))
        graph, embedding, rim, dropped = plane_embedding(nodes, shape.edges, places)
        tri = _triangulate(graph, (embedding, rim))
        ring = dict(zip(tri.rim, ring_points(tri.rim_face, places, aspect), strict=True))
        start = tutte(tri.graph, ring)
        pos = relax(tri.graph, start, ring, tri.triangles, weight, anchors=places)
    else:
        graph, dropped = planar_subgraph(nodes, shape.edges)
        _connect_components(graph)
        dropped += open_up(graph, shape.seas)
        tri = _triangulate(graph)
        ring = _rim_points(tri.rim)
        pos = relax(tri.graph, tutte(tri.graph, ring), ring, tri.triangles, weight)
    seeds: list[tuple[str, Point]] = [(v, pos[v]) for v in nodes]
    for a, b in sorted(tuple(sorted(e)) for e in graph.edges):
        pa, pb = pos[a], pos[b]
        for t in EDGE_SEEDS:
            seeds.append((a, (pa[0] + t * (pb[0] - pa[0]), pa[1] + t * (pb[1] - pa[1]))))
            seeds.append((b, (pb[0] + t * (pa[0] - pb[0]), pb[1] + t * (pa[1] - pb[1]))))
    fillers: dict[str, Point] = {}
    for name, corners in tri.hidden.items():
        if len(corners) >= FILLER_FACE:
            # A star reaching towards each corner, so that corners that are not neighbours
            # are kept apart across the face.
            fillers[name] = pos[name]
            seeds.append((name, pos[name]))
            px, py = pos[name]
            for c in corners:
                cx, cy = pos[c]
                for t in FILLER_SEEDS:
                    seeds.append((name, (px + t * (cx - px), py + t * (cy - py))))
    positions = {v: pos[v] for v in nodes}
    positions.update(_coast_points(shape, pos))
    return Embedding(
        positions,
        tuple(seeds),
        fillers,
        frozenset(frozenset(e) for e in dropped),
    )
