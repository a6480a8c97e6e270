"""The plane graph of a map whose provinces have places on a picture (the map data's
``picture``, AiMapper's positions): what :mod:`mapdraw.embed` draws from instead of an
arbitrary planar embedding, so that a variant keeps its geography.

An embedding computed from the adjacencies alone is right up to mirror images and flips of
whole parts (Modern drawn that way put Britain south of France); only the places fix which.
So here the adjacencies are drawn as straight segments between the places, short ones first,
and each that would cross one already kept is left out (a world map's edges across the date
line are long and cross everything: they become its seam). The rotation at each province is
then the order of its segments' angles, the outer face is the rim, and the ring that frames the
drawing is placed round it in the same directions as the rim's provinces lie from the middle.
:mod:`mapdraw.embed` then draws that embedding (Tutte, relaxation) with every province pulled
towards its place.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import networkx as nx
import numpy as np

Point = tuple[float, float]
Edge = tuple[str, str]

# The places fill this share of the frame's half-axes (the ring lies on the frame).
INNER = 0.82
# The frame's width over its height follows the picture's, within these bounds.
ASPECTS = (0.7, 2.4)
# A segment passing closer than this (a share of the drawing's height) to a third province's
# place counts as crossing it.
NEAR = 1e-3


def normalised(points: dict[str, Point]) -> tuple[dict[str, Point], float]:
    """The places centred and scaled so that they fill INNER of a frame of half-height 1 and
    half-width ``aspect`` (returned with them); y keeps the picture's direction (down)."""
    xs = [p[0] for p in points.values()]
    ys = [p[1] for p in points.values()]
    cx, cy = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
    half_w = max((max(xs) - min(xs)) / 2, 1e-9)
    half_h = max((max(ys) - min(ys)) / 2, 1e-9)
    aspect = min(max(half_w / half_h, ASPECTS[0]), ASPECTS[1])
    scale = INNER * min(1 / half_h, aspect / half_w)
    return {v: ((x - cx) * scale, (y - cy) * scale) for v, (x, y) in points.items()}, aspect


def _orient(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Twice the signed area of each triangle (a, b, c): its sign says which side of a-b c is."""
    return (b[..., 0] - a[..., 0]) * (c[..., 1] - a[..., 1]) - (b[..., 1] - a[..., 1]) * (
        c[..., 0] - a[..., 0]
    )


def _crosses(p: np.ndarray, q: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> bool:
    """Whether segment p-q meets any of the segments (touching at a shared end aside)."""
    if not len(starts):
        return False
    shared = (
        np.all(starts == p, axis=1)
        | np.all(starts == q, axis=1)
        | np.all(ends == p, axis=1)
        | np.all(ends == q, axis=1)
    )
    d1, d2 = _orient(p, q, starts), _orient(p, q, ends)
    d3, d4 = _orient(starts, ends, p), _orient(starts, ends, q)
    return bool(np.any((d1 * d2 <= 0) & (d3 * d4 <= 0) & ~shared))


def _passes_through(p: Point, q: Point, others: np.ndarray) -> bool:
    """Whether segment p-q passes (almost) through one of the points ``others``."""
    a, b = np.array(p), np.array(q)
    ab = b - a
    t = np.clip(((others - a) @ ab) / max(float(ab @ ab), 1e-18), 0.0, 1.0)
    near = np.sqrt((((a + t[:, None] * ab) - others) ** 2).sum(axis=1))
    return bool(np.any((near < NEAR) & (t > 0) & (t < 1)))


def plane_graph(
    nodes: Sequence[str], edges: Sequence[Edge], at: dict[str, Point]
) -> tuple[nx.Graph, list[Edge]]:
    """The adjacencies drawn straight between the places, shortest first, each that would
    cross a kept one (or run through a third place) left out; then separate parts joined by
    the shortest segments that cross nothing. Returns the graph and the adjacencies left out."""
    graph = nx.Graph()
    graph.add_nodes_from(nodes)
    pts = np.array([at[v] for v in nodes], dtype=float)
    index = {v: k for k, v in enumerate(nodes)}
    # (A province neighbouring itself, as Modern's Ireland does by its coasts, is no edge.)
    order = sorted(
        (e for e in edges if e[0] != e[1]), key=lambda e: (math.dist(at[e[0]], at[e[1]]), e)
    )
    starts: list[np.ndarray] = []
    ends: list[np.ndarray] = []
    dropped: list[Edge] = []

    def fits(a: str, b: str) -> bool:
        others = np.delete(pts, [index[a], index[b]], axis=0)
        return not _passes_through(at[a], at[b], others) and not _crosses(
            pts[index[a]], pts[index[b]], np.array(starts), np.array(ends)
        )

    for a, b in order:
        if fits(a, b):
            graph.add_edge(a, b)
            starts.append(pts[index[a]])
            ends.append(pts[index[b]])
        else:
            dropped.append((a, b))
    parts = [sorted(c) for c in nx.connected_components(graph)]
    while len(parts) > 1:
        pairs = sorted(
            (math.dist(at[a], at[b]), a, b) for a in parts[0] for other in parts[1:] for b in other
        )
        link = next(((a, b) for _, a, b in pairs if fits(a, b)), pairs[0][1:])
        graph.add_edge(*link)
        starts.append(pts[index[link[0]]])
        ends.append(pts[index[link[1]]])
        parts = [sorted(c) for c in nx.connected_components(graph)]
    return graph, dropped


def embedding_of(graph: nx.Graph, at: dict[str, Point]) -> nx.PlanarEmbedding:
    """The rotation system the places give: each vertex's neighbours by angle."""
    emb = nx.PlanarEmbedding()
    emb.add_nodes_from(graph.nodes)
    data: dict[str, list[str]] = {}
    for v in graph.nodes:
        x, y = at[v]
        data[v] = sorted(graph[v], key=lambda w: (-math.atan2(at[w][1] - y, at[w][0] - x), w))
    emb.set_data(data)
    return emb


def faces(embedding: nx.PlanarEmbedding) -> list[list[str]]:
    """The faces of a planar embedding, each as its cycle of vertices, in a fixed order."""
    seen: set[tuple[str, str]] = set()
    out: list[list[str]] = []
    for v in sorted(embedding.nodes):
        for w in embedding.neighbors_cw_order(v):
            if (v, w) not in seen:
                out.append(list(embedding.traverse_face(v, w, mark_half_edges=seen)))
    return out


def _insert(emb: nx.PlanarEmbedding, face: list[str], a: str, b: str) -> None:
    """Split ``face`` by a new edge a-b, drawn inside it: at each end, the new half-edge goes
    just counter-clockwise of the edge the walk arrives by (the face's wedge there)."""
    ka, kb = face.index(a), face.index(b)
    emb.add_half_edge_ccw(a, b, face[ka - 1])
    emb.add_half_edge_ccw(b, a, face[kb - 1])


def plane_embedding(
    nodes: Sequence[str], edges: Sequence[Edge], at: dict[str, Point]
) -> tuple[nx.Graph, nx.PlanarEmbedding, list[str], list[Edge]]:
    """The plane graph of :func:`plane_graph` with its embedding, its outer face (the rim)
    and the adjacencies still left out: one whose segment crosses another is still kept when
    its two provinces lie on one inner face, routed through that face (the drawing then
    straightens it), so a planar map loses few or none."""
    graph, dropped = plane_graph(nodes, edges, at)
    emb = embedding_of(graph, at)
    faces_now = faces(emb)
    rim = max(faces_now, key=lambda f: (signed_area(f, at), sorted(f)))
    rim_edges = set(zip(rim, [*rim[1:], *rim[:1]], strict=True))
    left: list[Edge] = []
    for a, b in dropped:
        inner = [
            f
            for f in faces_now
            if a in f
            and b in f
            and f.count(a) == 1
            and f.count(b) == 1
            and not set(zip(f, [*f[1:], *f[:1]], strict=True)) & rim_edges
        ]
        if not inner or graph.has_edge(a, b):
            left.append((a, b))
            continue
        _insert(emb, inner[0], a, b)
        graph.add_edge(a, b)
        faces_now = faces(emb)
    return graph, emb, rim, left


def signed_area(cycle: Sequence[str], at: dict[str, Point]) -> float:
    """The shoelace area of a face walk (positive for the outer face of :func:`embedding_of`)."""
    total = 0.0
    for a, b in zip(cycle, [*cycle[1:], *cycle[:1]], strict=True):
        total += at[a][0] * at[b][1] - at[b][0] * at[a][1]
    return total / 2


def ring_points(rim: Sequence[str], at: dict[str, Point], aspect: float) -> list[Point]:
    """Where the ring vertex outside each rim edge (``rim[k]``, ``rim[k + 1]``) is pinned: on
    the frame (a rounded rectangle of half-axes ``aspect`` and 1), in the direction of the
    edge's middle from the centre. The directions are made to turn one way round, evenly
    enough that no two coincide, so the ring is convex and in the rim's order."""
    n = len(rim)
    raw = []
    for a, b in zip(rim, [*rim[1:], *rim[:1]], strict=True):
        mx, my = (at[a][0] + at[b][0]) / 2, (at[a][1] + at[b][1]) / 2
        raw.append(math.atan2(my, mx))
    # Unwrapped, the angles turn by about a full turn one way or the other.
    unwrapped = [raw[0]]
    for t in raw[1:]:
        step = (t - unwrapped[-1] + math.pi) % (2 * math.pi) - math.pi
        unwrapped.append(unwrapped[-1] + step)
    turn = 1.0 if unwrapped[-1] >= unwrapped[0] else -1.0
    phi = [turn * t for t in unwrapped]
    gap = math.pi / (2 * n)
    for k in range(1, n):
        phi[k] = max(phi[k], phi[k - 1] + gap)
    span = phi[-1] - phi[0]
    room = 2 * math.pi - 2 * math.pi / n
    if span > room:
        phi = [phi[0] + (p - phi[0]) * room / span for p in phi]
    return [_on_frame(turn * p, aspect) for p in phi]


def _on_frame(angle: float, aspect: float, roundness: float = 4.0) -> Point:
    """The point of the rounded rectangle |x/aspect|^r + |y|^r = 1 in direction ``angle``."""
    c, s = math.cos(angle), math.sin(angle)
    r = (abs(c / aspect) ** roundness + abs(s) ** roundness) ** (-1 / roundness)
    return (r * c, r * s)
