"""The map as a standalone SVG document: provinces, supply centres, units, and orders with
their results.

This is the one drawing of the board. ``diplomat render`` writes it to a file, and the web page
shows it as the server renders it, attaching its click handlers to the element ids and classes
documented in ``mapdraw/README.md`` (``prov-PAR``, ``loc-STP-NC``, ``unit-PAR`` ...).
Those ids and classes are a contract: change them only together with the page.

The drawing scales to any width (a ``viewBox`` and no pixel sizes); its styles are scoped to the
root's ``dipmap`` class, so the document can be inlined in a page.
"""

from __future__ import annotations

import colorsys
import itertools
import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol
from xml.sax.saxutils import escape, quoteattr

from diplomat.engine.convoy import find_route, fleet_mask
from diplomat.engine.map import GameMap, province_of
from diplomat.engine.notation import phase_title
from diplomat.engine.orders import (
    Build,
    Convoy,
    Disband,
    Hold,
    Move,
    Note,
    Order,
    Outcome,
    Remove,
    Result,
    Retreat,
    SupportHold,
    SupportMove,
    Waive,
)
from diplomat.engine.state import GameState, Unit
from diplomat.mapdraw.geometry import Geometry, Point, geometry

# Okabe-Ito colours (distinguishable with the common colour-vision deficiencies), given to the
# powers the way printed boards colour them; orange is left out, being too near vermillion.
POWER_COLOURS: dict[str, str] = {
    "AUS": "#D55E00",  # vermillion (red)
    "ENG": "#0072B2",  # blue
    "FRA": "#56B4E9",  # sky blue
    "GER": "#4A4A4A",  # near black
    "ITA": "#009E73",  # bluish green
    "RUS": "#CC79A7",  # reddish purple
    "TUR": "#F0E442",  # yellow
}
_SPARE_COLOURS = ("#E69F00", "#8C564B", "#7F7F7F", "#17BECF", "#BCBD22")
# Powers named after a colour (Chromatic's) are drawn in it.
NAMED_COLOURS: dict[str, str] = {
    "red": "#D55E00",
    "blue": "#0072B2",
    "yellow": "#F0E442",
    "green": "#009E73",
    "dark": "#4A4A4A",
    "light": "#F4F4F4",
    "orange": "#E69F00",
    "purple": "#CC79A7",
}
LAND = "#EFE6CF"
SEA = "#B9D5EA"
# The land a power owns. Each keeps its units' hue, and every pair of these, the sea and
# unowned land differs by at least 10 in CIEDE2000 for typical vision and with protanopia,
# deuteranopia or tritanopia (tests/mapdraw/test_colours.py computes it); each is also apart
# from its own units' colour, so a unit at home stands out. Chosen by a search under those
# constraints, lightness kept at 60 or more so that names stay readable.
LAND_COLOURS: dict[str, str] = {
    "AUS": "#F7AD8C",  # salmon
    "ENG": "#7094BA",  # steel blue
    "FRA": "#82B7FD",  # light blue
    "GER": "#BABABA",  # grey
    "ITA": "#33B64A",  # green
    "RUS": "#BC818E",  # dusty rose
    "TUR": "#CDEA42",  # yellow-green
}
# Other maps' powers: their unit colour mixed into unowned land, by this much.
LAND_TINT = 0.32

UNIT_R = 13.0  # a unit's drawn radius, for where arrows start and stop
UNIT_SCALE = 1.2  # the icons are drawn for a radius of 11
# Phases as players name them: DAIDE's SUM and AUT are the Spring and Fall retreats.
OUTCOME_TEXT = {
    Outcome.SUC: "succeeded",
    Outcome.BNC: "bounced",
    Outcome.CUT: "cut",
    Outcome.DSR: "disrupted",
    Outcome.NSO: "no such order",
}


class NotedResult(Protocol):
    """A result that is no engine :class:`Result` (the protocol's ORD ``NoteResult``): a
    refused order's note, or ``RET`` alone for a dislodged unit with no outcome."""

    @property
    def note(self) -> Note | None: ...

    @property
    def retreat(self) -> bool: ...


AnyResult = Result | NotedResult


def power_colours(gmap: GameMap) -> dict[str, str]:
    """A colour per power, all different: the standard ones by token; a power named after a
    colour (Chromatic's Red, Blue, ...) in that colour; the others from the standard colours
    not taken, then the spares, then as many more hues as a map needs (Chaos has 34 powers)."""
    out = {p: POWER_COLOURS[p] for p in gmap.powers if p in POWER_COLOURS}
    used = set(out.values())
    palette = itertools.chain(POWER_COLOURS.values(), _SPARE_COLOURS, _more_colours())
    for p in gmap.powers:
        if p in out:
            continue
        colour = NAMED_COLOURS.get(gmap.power_info[p].name.lower())
        if colour is None or colour in used:
            colour = next(c for c in palette if c not in used)
        out[p] = colour
        used.add(colour)
    return out


def _more_colours() -> Iterator[str]:
    """Endless distinct colours: hues a golden angle apart, at three lightnesses in turn."""
    k = 0
    while True:
        hue = (0.1 + k * 0.381966) % 1.0
        light = (0.45, 0.32, 0.6)[k % 3]
        r, g, b = colorsys.hls_to_rgb(hue, light, 0.75)
        yield f"#{round(r * 255):02X}{round(g * 255):02X}{round(b * 255):02X}"
        k += 1


def land_colour(power: str, unit_colour: str) -> str:
    """The fill of land ``power`` owns."""
    return LAND_COLOURS.get(power) or _mix(unit_colour, LAND, LAND_TINT)


def dom_id(loc: str) -> str:
    """A location as it appears in element ids: ``STP/NC`` -> ``STP-NC``."""
    return loc.replace("/", "-")


def _mix(colour: str, base: str, t: float) -> str:
    a = [int(colour[i : i + 2], 16) for i in (1, 3, 5)]
    b = [int(base[i : i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(x * t + y * (1 - t)):02X}" for x, y in zip(a, b, strict=True))


def _f(x: float) -> str:
    return f"{x:.1f}".rstrip("0").rstrip(".")


def _pt(p: Point) -> str:
    return f"{_f(p[0])},{_f(p[1])}"


def _attrs(**kw: object) -> str:
    parts = []
    for k, v in kw.items():
        if v is None or v is False:
            continue
        name = k.rstrip("_").replace("_", "-")
        parts.append(f"{name}={quoteattr(str(v))}")
    return " ".join(parts)


def _rel(points: Sequence[Point]) -> str:
    """A polyline in relative coordinates, rounded to a tenth: a third the size of absolute
    ones. Rounding is carried forward so the error never accumulates."""
    x0, y0 = round(points[0][0], 1), round(points[0][1], 1)
    out = [f"M{_f(x0)},{_f(y0)}l"]
    steps = []
    for x, y in points[1:]:
        rx, ry = round(x, 1), round(y, 1)
        dx, dy = round(rx - x0, 1), round(ry - y0, 1)
        if dx or dy:
            steps.append(f"{_f(dx)},{_f(dy)}")
        x0, y0 = rx, ry
    out.append(" ".join(steps))
    return "".join(out)


def _loops_d(loops: Iterable[list[Point]]) -> str:
    return "".join(_rel(loop) + "z" for loop in loops if loop)


def _line_d(points: Sequence[Point]) -> str:
    return _rel(points)


# -- styles -------------------------------------------------------------------------------

_STYLE = """
.dipmap { font-family: "DejaVu Sans", Verdana, "Segoe UI", Arial, sans-serif; }
.dipmap .bg { fill: %(sea)s; }
.dipmap .prov { stroke: none; }
.dipmap .prov.sea { fill: %(sea)s; }
.dipmap .prov.land, .dipmap .prov.coast { fill: %(land)s; }
.dipmap .filler { fill: #CFCBC2; }
.dipmap .filler-hatch { fill: url(#hatch); pointer-events: none; }
.dipmap .border { fill: none; stroke-linejoin: round; stroke-linecap: round; pointer-events: none; }
.dipmap .border.coast { stroke: #2F4858; stroke-width: 1.6; }
.dipmap .border.land { stroke: #8A7F6A; stroke-width: 1; }
.dipmap .border.sea { stroke: #8DB6D6; stroke-width: 1; }
.dipmap .border.frame { stroke: none; }
.dipmap .frame { fill: none; stroke: #2F4858; stroke-width: 2; pointer-events: none; }
.dipmap .labels, .dipmap .orders, .dipmap .centres, .dipmap .overlay { pointer-events: none; }
.dipmap .label { font-size: 13px; font-weight: bold; fill: #3B3428; text-anchor: middle;
  dominant-baseline: central; paint-order: stroke; stroke: %(land)s; stroke-width: 3px;
  stroke-linejoin: round; letter-spacing: 0.04em; }
.dipmap .label.sea { fill: #2D5F86; font-style: italic; font-weight: normal; stroke: %(sea)s; }
.dipmap .label.filler { font-size: 9px; font-weight: normal; fill: #6B665C; stroke: none; }
.dipmap .sc { stroke: #2B2B2B; stroke-width: 1.4; }
.dipmap .sc.home { stroke-width: 2.4; }
.dipmap .sc.neutral { fill: #FFFFFF; }
.dipmap .coast-target { fill: #FFFFFF; fill-opacity: 0.55; stroke: #2F4858; stroke-width: 1;
  stroke-dasharray: 2 2; }
.dipmap .coast-label { font-size: 12px; font-weight: bold; fill: #2F4858; text-anchor: middle;
  dominant-baseline: central; pointer-events: none; paint-order: stroke; stroke: #FFFFFF;
  stroke-width: 3px; stroke-linejoin: round; }
.dipmap .unit .body { stroke: #1E1E1E; stroke-width: 1.6; stroke-linejoin: round; }
.dipmap .dislodged-ring { fill: #FFFFFF; fill-opacity: 0.7; stroke: #B00020; stroke-width: 2.4;
  stroke-dasharray: 4 2.5; }
.dipmap .unit.selected .body { stroke: #000; stroke-width: 2.6; }
.dipmap .highlights { pointer-events: none; }
.dipmap .outline { fill: none; stroke-linejoin: round; }
.dipmap .outline.selected { stroke: #000; stroke-width: 3.5; }
.dipmap .outline.target { stroke: #000; stroke-width: 2.2; stroke-dasharray: 6 4; }
.dipmap .coast-target.target { stroke-width: 2; stroke-dasharray: none; fill-opacity: 0.8; }
.dipmap .casing { fill: none; stroke: #FFFFFF; stroke-opacity: 0.85; stroke-linecap: round;
  stroke-linejoin: round; }
.dipmap .shaft { fill: none; stroke-linecap: round; stroke-linejoin: round; }
.dipmap .tip { stroke: #1E1E1E; stroke-width: 1; stroke-linejoin: round; }
.dipmap .move .shaft, .dipmap .retreat .shaft { stroke-width: 4; }
.dipmap .move .casing, .dipmap .retreat .casing { stroke-width: 7; stroke: #1E1E1E;
  stroke-opacity: 0.75; }
.dipmap .retreat .shaft { stroke-dasharray: 9 4; stroke-linecap: butt; }
.dipmap .support .shaft { stroke-width: 2.6; stroke-dasharray: 7 4; stroke-linecap: butt; }
.dipmap .support .casing, .dipmap .convoy .casing { stroke-width: 4.6; stroke: #1E1E1E;
  stroke-opacity: 0.6; }
.dipmap .convoy .shaft { stroke-width: 2.6; stroke-dasharray: 1 5; }
.dipmap .hold .ring { fill: none; stroke-width: 3.2; }
.dipmap .hold .ring-casing { fill: none; stroke: #1E1E1E; stroke-width: 5.5;
  stroke-opacity: 0.75; }
.dipmap .end { stroke: #1E1E1E; stroke-width: 1; }
.dipmap .failed .shaft, .dipmap .failed .end, .dipmap .void .shaft { opacity: 0.55; }
.dipmap .failed .casing, .dipmap .void .casing { stroke-opacity: 0.35; }
.dipmap .cross { stroke: #B00020; stroke-width: 3.2; stroke-linecap: round; }
.dipmap .cross-casing { stroke: #FFFFFF; stroke-width: 6; stroke-linecap: round; }
.dipmap .pending { opacity: 0.7; }
.dipmap .pending .shaft { stroke-dasharray: 8 3; stroke-linecap: butt; }
.dipmap .pending.support .shaft { stroke-dasharray: 4 3; }
.dipmap .pending.convoy .shaft { stroke-dasharray: 1 4; stroke-linecap: round; }
.dipmap .badge { fill: #FFFFFF; stroke: #1E1E1E; stroke-width: 1.4; }
.dipmap .badge-mark { stroke: #1E1E1E; stroke-width: 2.2; stroke-linecap: round; }
.dipmap .build-ring { fill: #FFFFFF; fill-opacity: 0.6; stroke: #1E1E1E; stroke-width: 2;
  stroke-dasharray: 4 3; }
.dipmap .title { font-size: 22px; font-weight: bold; fill: #16324A; }
.dipmap .subtitle { font-size: 14px; fill: #16324A; }
.dipmap .legend-box { fill: #FFFFFF; fill-opacity: 0.85; stroke: #2F4858; stroke-width: 1; }
.dipmap .legend text { font-size: 12px; fill: #222; dominant-baseline: central; }
.dipmap .legend .num { text-anchor: end; }
.dipmap .legend .legend-head { font-weight: bold; stroke: none; }
@media (max-width: 640px) {
  .dipmap .label { font-size: 15px; stroke-width: 3.5px; letter-spacing: 0; }
  .dipmap .label.sea { font-size: 14px; }
  .dipmap .label.filler { display: none; }
  .dipmap .coast-label { font-size: 13px; }
}
"""


# -- units --------------------------------------------------------------------------------


def _army_shape(colour: str) -> str:
    # A cannon: barrel and carriage over a wheel, read as "army" at a glance.
    return (
        f'<path class="body" fill="{colour}" d="M-12,-2.5 L6,-10 L8.5,-5.5 L-9,3.5 Z"/>'
        f'<path class="body" fill="{colour}" d="M-11,7 L11,7 L11,10.5 L-11,10.5 Z"/>'
        f'<circle class="body" fill="{colour}" cx="-2" cy="4" r="6"/>'
        '<circle cx="-2" cy="4" r="1.8" fill="#1E1E1E"/>'
    )


def _fleet_shape(colour: str) -> str:
    # A sailing ship: hull and two sails.
    return (
        f'<path class="body" fill="{colour}" d="M-14,1.5 L14,1.5 L9,9.5 L-9.5,9.5 Z"/>'
        f'<path class="body" fill="{colour}" d="M0,-12 L0,-0.5 L10,-0.5 Z"/>'
        f'<path class="body" fill="{colour}" d="M-1.8,-9 L-1.8,-0.5 L-9,-0.5 Z"/>'
    )


def _unit_svg(
    unit: Unit,
    at: Point,
    colour: str,
    power_name: str,
    *,
    id_: str,
    extra: str = "",
    scale: float = UNIT_SCALE,
) -> str:
    kind = "army" if unit.type == "A" else "fleet"
    shape = _army_shape(colour) if unit.type == "A" else _fleet_shape(colour)
    transform = f"translate({_pt(at)})" + (f" scale({scale})" if scale != 1 else "")
    # A transparent disc makes the whole icon one click target.
    hit = f'<circle r="{_f(UNIT_R / scale + 2)}" fill="#000" fill-opacity="0"/>'
    title = f"<title>{escape(power_name)} {kind} in {escape(unit.loc)}</title>"
    attrs = _attrs(
        id=id_,
        class_=f"unit {kind} power-{unit.power}{extra}",
        transform=transform,
        data_loc=unit.loc,
        data_prov=unit.province,
        data_power=unit.power,
        data_type=unit.type,
    )
    return f"<g {attrs}>{title}{hit}{shape}</g>"


# -- orders -------------------------------------------------------------------------------


class _Curve:
    """A path as a polyline, sampled finely enough to look smooth, that can be measured and
    cut by length (where a bounced move stops, where a support points)."""

    def __init__(self, points: list[Point]) -> None:
        self.points = points
        self.lengths = [0.0]
        for a, b in itertools.pairwise(points):
            self.lengths.append(self.lengths[-1] + math.dist(a, b))

    @property
    def length(self) -> float:
        return self.lengths[-1]

    @property
    def start(self) -> Point:
        return self.points[0]

    @property
    def end(self) -> Point:
        return self.points[-1]

    def at(self, t: float) -> Point:
        """The point a fraction ``t`` of the way along."""
        target = max(0.0, min(1.0, t)) * self.length
        for k in range(1, len(self.points)):
            if self.lengths[k] >= target:
                seg = self.lengths[k] - self.lengths[k - 1] or 1.0
                u = (target - self.lengths[k - 1]) / seg
                (ax, ay), (bx, by) = self.points[k - 1], self.points[k]
                return (ax + u * (bx - ax), ay + u * (by - ay))
        return self.end

    def between(self, d0: float, d1: float) -> _Curve:
        """The part from ``d0`` to ``d1`` units along."""
        d0, d1 = max(0.0, d0), min(self.length, d1)
        pts = [self.at(d0 / (self.length or 1.0))]
        pts += [p for p, s in zip(self.points, self.lengths, strict=True) if d0 < s < d1]
        pts.append(self.at(d1 / (self.length or 1.0)))
        return _Curve(pts)

    def trimmed(self, start: float, end: float) -> _Curve:
        """Shortened at both ends (to meet units at their edges), never below 40% of its
        length."""
        start = min(start, self.length * 0.3)
        end = min(end, self.length * 0.3)
        return self.between(start, self.length - end)

    def direction_at_end(self) -> Point:
        a = self.at(1 - min(0.5, 6.0 / (self.length or 1.0)))
        dx, dy = self.end[0] - a[0], self.end[1] - a[1]
        n = math.hypot(dx, dy) or 1.0
        return (dx / n, dy / n)

    def d(self) -> str:
        return "M" + "L".join(_pt(p) for p in self.points)


def _quad(p: Point, q: Point, bend: float) -> _Curve:
    """A gently curved path from ``p`` to ``q``, always bending the same way, so A->B and B->A
    are drawn apart."""
    dx, dy = q[0] - p[0], q[1] - p[1]
    c = ((p[0] + q[0]) / 2 - dy * bend, (p[1] + q[1]) / 2 + dx * bend)
    pts = []
    for k in range(13):
        t = k / 12
        u = 1 - t
        pts.append(
            (
                u * u * p[0] + 2 * u * t * c[0] + t * t * q[0],
                u * u * p[1] + 2 * u * t * c[1] + t * t * q[1],
            )
        )
    return _Curve(pts)


def _through(points: list[Point]) -> _Curve:
    """A smooth path through every point (Catmull-Rom), for a convoy's route."""
    if len(points) < 3:
        return _quad(points[0], points[-1], 0.12)
    ext = [points[0], *points, points[-1]]
    out = [points[0]]
    for i in range(1, len(ext) - 2):
        p0, p1, p2, p3 = ext[i - 1], ext[i], ext[i + 1], ext[i + 2]
        for k in range(1, 9):
            t = k / 8
            t2, t3 = t * t, t * t * t
            x, y = (
                0.5
                * (
                    2 * p1[j]
                    + (-p0[j] + p2[j]) * t
                    + (2 * p0[j] - 5 * p1[j] + 4 * p2[j] - p3[j]) * t2
                    + (-p0[j] + 3 * p1[j] - 3 * p2[j] + p3[j]) * t3
                )
                for j in (0, 1)
            )
            out.append((x, y))
    return _Curve(out)


def _arrow(p: Point, q: Point, trim_start: float, trim_end: float, bend: float = 0.12) -> _Curve:
    """A curved arrow from ``p`` to ``q``, trimmed so it meets units at their edges."""
    return _quad(p, q, bend).trimmed(trim_start, trim_end)


def _arrowhead(tip: Point, direction: Point, length: float = 13.0, half: float = 7.0) -> str:
    ux, uy = direction
    bx, by = tip[0] - ux * length, tip[1] - uy * length
    left = (bx - uy * half, by + ux * half)
    right = (bx + uy * half, by - ux * half)
    return f"M{_pt(tip)}L{_pt(left)}L{_pt(right)}Z"


def _cross(at: Point, size: float = 6.5) -> str:
    x, y = at
    d = (
        f"M{_f(x - size)},{_f(y - size)}L{_f(x + size)},{_f(y + size)}"
        f"M{_f(x - size)},{_f(y + size)}L{_f(x + size)},{_f(y - size)}"
    )
    return f'<path class="cross-casing" d="{d}"/><path class="cross" d="{d}"/>'


@dataclass(frozen=True, slots=True)
class _Outcome:
    outcome: Outcome | None
    dislodged: bool
    note: str | None

    @classmethod
    def of(cls, r: AnyResult | None) -> _Outcome | None:
        if r is None:
            return None
        if isinstance(r, Result):
            return cls(r.outcome, r.dislodged, None)
        return cls(None, r.retreat, r.note.value if r.note is not None else None)


def _failed(order: Order, res: _Outcome | None) -> bool:
    """Whether to draw the order as not carried out: a rejected order, or a move, retreat,
    support or convoy that did not succeed. (Holds, builds and removals have no failure to
    show; a dislodged unit is marked on the unit.)"""
    if res is None:
        return False
    if res.note is not None:
        return True
    moving = Move | Retreat | SupportHold | SupportMove | Convoy
    return isinstance(order, moving) and res.outcome not in (None, Outcome.SUC)


class _Drawing:
    def __init__(
        self,
        gmap: GameMap,
        state: GameState | None,
        geo: Geometry,
        colours: dict[str, str],
        dislodged: set[Unit],
    ) -> None:
        self.gmap = gmap
        self.state = state
        self.geo = geo
        self.colours = colours
        # Units drawn aside: dislodged in the drawn results, or waiting to retreat.
        self.dislodged = set(dislodged)
        if state is not None:
            self.dislodged.update(d.unit for d in state.dislodged.values())

    def occupied(self, prov: str) -> bool:
        return self.state is not None and prov in self.state.units

    def unit_at(self, unit: Unit) -> Point:
        """Where a unit is drawn: a dislodged unit steps aside for the one that dislodged
        it."""
        if unit in self.dislodged:
            return self.geo.aside(unit.loc)
        return self.geo.anchor(unit.loc)

    def order_svg(
        self, order: Order, res: AnyResult | None, pending: bool, all_orders: dict[str, Order]
    ) -> str:
        if isinstance(order, Waive):
            return ""
        unit = order.unit
        colour = self.colours.get(unit.power, "#888888")
        outcome = _Outcome.of(res)
        kind = _order_kind(order)
        classes = ["order", kind, f"power-{unit.power}"]
        if isinstance(order, SupportHold | SupportMove):
            classes.append("support-hold" if isinstance(order, SupportHold) else "support-move")
        if isinstance(order, Move) and order.convoy:
            classes.append("via")
        if outcome is not None:
            if outcome.outcome is not None:
                classes.append(f"result-{outcome.outcome.value}")
            if outcome.note is not None:
                classes.append(f"note-{outcome.note}")
            if outcome.dislodged:
                classes.append("dislodged")
            failed = _failed(order, outcome)
            if failed and outcome.outcome is Outcome.NSO:
                classes.append("void")
            elif failed:
                classes.append("failed")
        else:
            failed = False
        if pending:
            classes.append("pending")
        describe = f"{self.power_name(unit.power)}: {order}"
        if outcome is not None and outcome.outcome is not None:
            describe += f" ({OUTCOME_TEXT[outcome.outcome]}"
            describe += ", dislodged)" if outcome.dislodged else ")"
        elif outcome is not None and outcome.note is not None:
            describe += f" (rejected: {outcome.note})"
        id_ = ("pending-" if pending else "order-") + dom_id(unit.province)
        body = self._order_body(order, colour, failed, all_orders)
        attrs = _attrs(
            id=id_,
            class_=" ".join(classes),
            data_unit=unit.loc,
            data_power=unit.power,
            data_order=str(order),
            data_result=outcome.outcome.value if outcome and outcome.outcome else None,
        )
        return f"<g {attrs}><title>{escape(describe)}</title>{body}</g>"

    def power_name(self, power: str) -> str:
        info = self.gmap.power_info.get(power)
        return info.name if info else power

    def _order_body(
        self, order: Order, colour: str, failed: bool, all_orders: dict[str, Order]
    ) -> str:
        if isinstance(order, Waive):
            return ""
        unit = order.unit
        start = self.unit_at(unit)
        if isinstance(order, Hold):
            ring = f'<circle cx="{_f(start[0])}" cy="{_f(start[1])}" r="{_f(UNIT_R + 5)}"'
            return f'{ring} class="ring-casing"/>{ring} class="ring" stroke="{colour}"/>'
        if isinstance(order, Move | Retreat):
            arrow = self._move_arrow(unit, order.dest, all_orders, order)
            return self._shaft_with_head(arrow, colour, failed)
        if isinstance(order, SupportHold):
            target = self.unit_at(order.target)
            arrow = _arrow(start, target, UNIT_R + 1, UNIT_R + 5, bend=0.08)
            return self._shaft_with_end(arrow, colour, failed)
        if isinstance(order, SupportMove):
            supported = self._move_arrow(order.target, order.dest, all_orders)
            mid = supported.at(0.5)
            arrow = _arrow(start, mid, UNIT_R + 1, 3.0, bend=0.08)
            return self._shaft_with_end(arrow, colour, failed)
        if isinstance(order, Convoy):
            moving = all_orders.get(order.target.province)
            if (
                isinstance(moving, Move)
                and moving.convoy
                and province_of(moving.dest) == province_of(order.dest)
            ):
                # The army's arrow runs through this fleet; a dotted ring says it carries it.
                ring = f'<circle cx="{_f(start[0])}" cy="{_f(start[1])}" r="{_f(UNIT_R + 5)}"'
                out = f'{ring} class="casing"/>{ring} class="shaft" stroke="{colour}"/>'
                return out + (_cross((start[0], start[1] - UNIT_R - 5)) if failed else "")
            # Otherwise the route it offers: from the army, through this fleet, to the end.
            army = self.unit_at(order.target)
            dest = self.geo.anchor(order.dest)
            route = _through([army, start, dest]).trimmed(UNIT_R + 2, 4.0)
            return self._shaft_with_end(route, colour, failed)
        if isinstance(order, Build):
            at = self.geo.anchor(unit.loc)
            ring = (
                f'<circle class="build-ring" cx="{_f(at[0])}" cy="{_f(at[1])}" '
                f'r="{_f(UNIT_R + 5)}"/>'
            )
            ghost = _unit_svg(
                unit,
                at,
                colour,
                self.power_name(unit.power),
                id_=f"built-{dom_id(unit.province)}",
                extra=" built",
            )
            bx, by = at[0] + UNIT_R + 3, at[1] + UNIT_R - 1
            badge = (
                f'<circle class="badge" cx="{_f(bx)}" cy="{_f(by)}" r="7"/>'
                f'<path class="badge-mark" d="M{_f(bx - 4)},{_f(by)}h8M{_f(bx)},{_f(by - 4)}v8"/>'
            )
            return ring + ghost + badge
        if isinstance(order, Disband | Remove):
            return _cross(start, 8.0)
        return ""

    def _move_arrow(
        self,
        unit: Unit,
        dest: str,
        all_orders: dict[str, Order],
        order: Order | None = None,
    ) -> _Curve:
        """The arrow of ``unit`` moving to ``dest`` as it is (or would be) drawn; supports
        point at its middle. The unit's own order gives the coast and the convoy route."""
        own = order or all_orders.get(unit.province)
        loc = dest
        if isinstance(own, Move | Retreat) and province_of(own.dest) == province_of(dest):
            loc = own.dest
        start = self.unit_at(unit)
        end = self.geo.anchor(loc)
        trim_end = UNIT_R + 2 if self.occupied(province_of(loc)) else 3.0
        if isinstance(own, Move) and own.convoy and province_of(own.dest) == province_of(dest):
            stops = [self._fleet_at(p) for p in self._route(own, all_orders)]
            if stops:
                return _through([start, *stops, end]).trimmed(UNIT_R + 1, trim_end)
        return _arrow(start, end, UNIT_R + 1, trim_end)

    def _fleet_at(self, prov: str) -> Point:
        if self.state is not None and prov in self.state.units:
            return self.unit_at(self.state.units[prov])
        return self.geo.anchor(prov)

    def _route(self, move: Move, all_orders: dict[str, Order]) -> list[str]:
        """The seas a convoyed army crosses: its own VIA route, or else the chain of fleets
        ordered to convoy it, from its province to its destination."""
        if move.via:
            return list(move.via)
        fleets = fleet_mask(
            self.gmap,
            (
                ("F", o.unit.province)
                for o in all_orders.values()
                if isinstance(o, Convoy)
                and o.target.province == move.unit.province
                and province_of(o.dest) == province_of(move.dest)
            ),
        )
        # The engine's route search, over the fleets ordered to convoy this army.
        route = find_route(self.gmap, fleets, move.unit.province, province_of(move.dest))
        return list(route or ())

    def _shaft_with_head(self, arrow: _Curve, colour: str, failed: bool) -> str:
        if failed:
            # A bounced move stops short of its target with a cross where it was stopped.
            stop = arrow.between(0, arrow.length * 0.78)
            d = stop.d()
            return (
                f'<path class="casing" d="{d}"/><path class="shaft" stroke="{colour}" d="{d}"/>'
                + _cross(stop.end)
            )
        shaft = arrow.between(0, arrow.length - 8.0)
        d = shaft.d()
        head = _arrowhead(arrow.end, arrow.direction_at_end())
        return (
            f'<path class="casing" d="{d}"/><path class="shaft" stroke="{colour}" d="{d}"/>'
            f'<path class="tip" fill="{colour}" d="{head}"/>'
        )

    def _shaft_with_end(self, arrow: _Curve, colour: str, failed: bool) -> str:
        d = arrow.d()
        out = f'<path class="casing" d="{d}"/><path class="shaft" stroke="{colour}" d="{d}"/>'
        end = arrow.end
        out += f'<circle class="end" cx="{_f(end[0])}" cy="{_f(end[1])}" r="3.6" fill="{colour}"/>'
        if failed:
            out += _cross(arrow.at(0.5))
        return out


def _order_kind(order: Order) -> str:
    if isinstance(order, Hold):
        return "hold"
    if isinstance(order, Move):
        return "move"
    if isinstance(order, SupportHold | SupportMove):
        return "support"
    if isinstance(order, Convoy):
        return "convoy"
    if isinstance(order, Retreat):
        return "retreat"
    if isinstance(order, Disband):
        return "disband"
    if isinstance(order, Build):
        return "build"
    if isinstance(order, Remove):
        return "remove"
    return "waive"


def _as_list(x: str | Iterable[str] | None) -> list[str]:
    if x is None:
        return []
    if isinstance(x, str):
        return [x]
    return list(x)


def _phase_title(state: GameState) -> str:
    return phase_title(state.phase)


# -- the document -------------------------------------------------------------------------


# Sizes in the drawing's units.
SC_RADIUS = 5.5
COAST_LABEL_GAP = 9.0  # below a coast's circle
DISLODGED_SCALE = 0.9  # a dislodged unit is drawn smaller, beside the one that took its place
TITLE_AT = (16, 34)
SUBTITLE_AT = (16, 56)


@dataclass
class _Scene:
    """What one drawing shows, from :func:`render_map`'s arguments."""

    gmap: GameMap
    state: GameState | None
    geo: Geometry
    colours: dict[str, str]
    results: dict[Order, AnyResult]
    given: list[Order]  # adjudicated or given orders, with their results if any
    pending: list[Order]  # orders not yet adjudicated
    selected: list[str]
    targets: list[str]
    heading: str
    drawing: _Drawing

    @property
    def owners(self) -> Mapping[str, str]:
        return self.state.centres if self.state is not None else {}

    @property
    def selected_provs(self) -> set[str]:
        return {province_of(s) for s in self.selected}

    @property
    def target_provs(self) -> set[str]:
        return {province_of(t) for t in self.targets}


def render_map(
    gmap: GameMap,
    state: GameState | None = None,
    *,
    orders: Iterable[Order] | None = None,
    results: Mapping[Order, AnyResult] | Iterable[tuple[Order, AnyResult]] | None = None,
    pending: Iterable[Order] | None = None,
    selected: str | Iterable[str] | None = None,
    highlight: str | Iterable[str] | None = None,
    title: str | None = None,
    legend: bool = True,
) -> str:
    """The map as a complete SVG document.

    ``state`` gives units, dislodged units and centre owners (none: an empty board).
    ``orders`` are drawn as given; ``results`` (order -> engine Result, or a protocol
    ``NoteResult``) draws their outcomes, and its orders are drawn too. ``pending`` orders are
    drawn in a lighter style (not yet adjudicated). ``selected`` marks locations (the unit being
    ordered); ``highlight`` marks provinces or coasts a click may choose. ``title`` replaces the
    phase name in the heading; ``legend`` adds the table of centres and units per power.
    """
    scene = _scene(gmap, state, orders, results, pending, selected, highlight, title)
    parts = [
        *_head(scene, _legend_below(gmap, state) if legend else 0.0),
        *_provinces(scene),
        *_borders(scene),
        *_centres(scene),
        *_coasts(scene),
        *_highlights(scene),
        *_units(scene),
        *_orders(scene),
        # Names over the orders: an arrow, ring or cross never hides one.
        *_labels(scene),
        *_overlay(scene, title is not None, legend),
        "</svg>",
    ]
    return "\n".join(parts) + "\n"


def _scene(
    gmap: GameMap,
    state: GameState | None,
    orders: Iterable[Order] | None,
    results: Mapping[Order, AnyResult] | Iterable[tuple[Order, AnyResult]] | None,
    pending: Iterable[Order] | None,
    selected: str | Iterable[str] | None,
    highlight: str | Iterable[str] | None,
    title: str | None,
) -> _Scene:
    """The arguments in one form: results by order, every order to draw, and the units that
    the results dislodge (drawn aside)."""
    geo = geometry(gmap)
    colours = power_colours(gmap)
    result_map: dict[Order, AnyResult] = {}
    if results is not None:
        items = results.items() if isinstance(results, Mapping) else results
        for o, r in items:
            result_map[o] = r
    given: list[Order] = list(orders) if orders is not None else []
    for o in result_map:
        if o not in given:
            given.append(o)
    drawing = _Drawing(gmap, state, geo, colours, set())
    for o, r in result_map.items():
        out = _Outcome.of(r)
        if out is not None and out.dislodged and not isinstance(o, Waive):
            drawing.dislodged.add(o.unit)
    heading = title if title is not None else (_phase_title(state) if state else gmap.title)
    return _Scene(
        gmap=gmap,
        state=state,
        geo=geo,
        colours=colours,
        results=result_map,
        given=given,
        pending=list(pending) if pending is not None else [],
        selected=_as_list(selected),
        targets=_as_list(highlight),
        heading=heading,
        drawing=drawing,
    )


def _head(scene: _Scene, below: float = 0.0) -> list[str]:
    """The root element, its title, the styles (with a fill per power), the hatch pattern of
    impassable regions and the sea behind everything (``below``: room under the map for a
    long legend)."""
    gmap, state, w, h = scene.gmap, scene.state, scene.geo.width, scene.geo.height + below
    heading = scene.heading
    style = _STYLE % {"sea": SEA, "land": LAND}
    power_css = "".join(
        f".dipmap .prov.owner-{p} {{ fill: {land_colour(p, c)}; }}\n"
        f".dipmap .sc.owner-{p} {{ fill: {c}; }}\n"
        for p, c in scene.colours.items()
    )
    return [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="dipmap" viewBox="0 0 {_f(w)} {_f(h)}" '
        f'role="img" aria-label={quoteattr(heading)} data-map={quoteattr(gmap.name)}'
        + (f" data-phase={quoteattr(state.phase.name)}" if state else "")
        + ">",
        f"<title>{escape(heading)}</title>",
        f"<style>{style}{power_css}</style>",
        '<defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" '
        'patternTransform="rotate(45)"><path d="M0,0 L0,6" stroke="#A8A396" '
        'stroke-width="1.5"/></pattern></defs>',
        f'<rect class="bg" x="0" y="0" width="{_f(w)}" height="{_f(h)}"/>',
    ]


def _provinces(scene: _Scene) -> list[str]:
    """The provinces, the click targets, then the impassable fillers."""
    gmap, geo, owners = scene.gmap, scene.geo, scene.owners
    selected_provs, target_provs = scene.selected_provs, scene.target_provs
    parts = ['<g class="provinces">']
    for prov, info in gmap.provinces.items():
        cls = ["prov", info.type]
        owner = owners.get(prov)
        if info.supply_centre:
            cls.append("has-sc")
        if owner is not None:
            cls.append(f"owner-{owner}")
        home = gmap.home_of.get(prov)
        if home is not None:
            cls.append(f"home-{home}")
        if prov in selected_provs:
            cls.append("selected")
        if prov in target_provs:
            cls.append("target")
        attrs = _attrs(
            id=f"prov-{prov}",
            class_=" ".join(cls),
            d=_loops_d(geo.outlines.get(prov, [])),
            data_prov=prov,
            data_name=info.name,
            data_type=info.type,
            data_owner=owner,
            data_coasts=" ".join(info.coasts) if info.coasts else None,
        )
        parts.append(f"<path {attrs}><title>{escape(info.name)} ({prov})</title></path>")
    for name, full in geo.fillers.items():
        d = _loops_d(geo.outlines.get(name, []))
        parts.append(
            f"<path {_attrs(id=f'filler-{name}', class_='filler', d=d)}>"
            f"<title>{escape(full)} (impassable)</title></path>"
        )
        parts.append(f'<path class="filler-hatch" d="{d}"/>')
    parts.append("</g>")
    return parts


def _borders(scene: _Scene) -> list[str]:
    """Border lines by kind, and the frame."""
    geo = scene.geo
    parts = ['<g class="borders">']
    for kind in ("sea", "land", "coast"):
        ds = "".join(_line_d(b.points) for b in geo.borders if b.kind == kind)
        parts.append(f'<path class="border {kind}" d="{ds}"/>')
    parts.append("</g>")
    parts.append(
        f'<rect class="frame" x="1" y="1" width="{_f(geo.width - 2)}" '
        f'height="{_f(geo.height - 2)}"/>'
    )
    return parts


def _labels(scene: _Scene) -> list[str]:
    """Province abbreviations, and the fillers' names."""
    gmap, geo = scene.gmap, scene.geo
    parts = ['<g class="labels">']
    for prov, info in gmap.provinces.items():
        x, y = geo.labels[prov]
        kind = "sea" if info.type == "sea" else "land"
        parts.append(
            f"<text {_attrs(id=f'label-{prov}', class_=f'label {kind}', x=_f(x), y=_f(y))}>"
            f"{prov}</text>"
        )
    for name, full in geo.fillers.items():
        if name in geo.labels:
            x, y = geo.labels[name]
            parts.append(
                f'<text class="label filler" x="{_f(x)}" y="{_f(y)}">{escape(full)}</text>'
            )
    parts.append("</g>")
    return parts


def _centres(scene: _Scene) -> list[str]:
    """Supply-centre markers, filled with the owner's colour."""
    gmap, geo, owners = scene.gmap, scene.geo, scene.owners
    parts = ['<g class="centres">']
    for prov in sorted(gmap.supply_centres):
        x, y = geo.centres[prov]
        owner = owners.get(prov)
        cls = ["sc", f"owner-{owner}" if owner else "neutral"]
        if prov in gmap.home_of:
            cls.append("home")
        circle = _attrs(id=f"sc-{prov}", class_=" ".join(cls), cx=_f(x), cy=_f(y), r=SC_RADIUS)
        parts.append(f"<circle {circle}{' ' + _attrs(data_owner=owner) if owner else ''}/>")
    parts.append("</g>")
    return parts


def _coasts(scene: _Scene) -> list[str]:
    """The coasts of split-coast provinces as their own click targets, labelled."""
    gmap, geo, targets = scene.gmap, scene.geo, scene.targets
    parts = ['<g class="coasts">']
    for prov, info in gmap.provinces.items():
        for coast in info.coasts:
            loc = f"{prov}/{coast}"
            if loc not in geo.anchors:
                continue
            x, y = geo.anchors[loc]
            attrs = _attrs(
                id=f"loc-{dom_id(loc)}",
                class_="coast-target" + (" target" if loc in targets else ""),
                cx=_f(x),
                cy=_f(y),
                r=UNIT_R + 2,
                data_loc=loc,
                data_prov=prov,
                data_coast=coast,
            )
            parts.append(f"<circle {attrs}><title>{escape(info.name)} ({coast})</title></circle>")
            parts.append(
                f'<text class="coast-label" x="{_f(x)}" y="{_f(y + UNIT_R + COAST_LABEL_GAP)}">'
                f"{coast.lower()}</text>"
            )
    parts.append("</g>")
    return parts


def _highlights(scene: _Scene) -> list[str]:
    """Outlines of the selected province and of those a click may choose."""
    geo = scene.geo
    selected_provs, target_provs = scene.selected_provs, scene.target_provs
    parts = ['<g class="highlights">']
    for prov in sorted(selected_provs | target_provs):
        if prov in geo.outlines:
            kind = "selected" if prov in selected_provs else "target"
            parts.append(
                f'<path class="outline {kind}" data-prov="{prov}" '
                f'd="{_loops_d(geo.outlines[prov])}"/>'
            )
    parts.append("</g>")
    return parts


def _units(scene: _Scene) -> list[str]:
    """Units; a dislodged unit beside the unit that took its place, ringed."""
    state, drawing = scene.state, scene.drawing
    selected, targets = scene.selected, scene.targets
    parts = ['<g class="units">']
    if state is None:
        return [*parts, "</g>"]
    drawn = [(f"unit-{dom_id(p)}", u) for p, u in sorted(state.units.items())]
    drawn += [(f"dislodged-{dom_id(p)}", d.unit) for p, d in sorted(state.dislodged.items())]
    for id_, u in drawn:
        aside = u in drawing.dislodged
        extra = " dislodged" if aside else ""
        # In a retreat phase the unit to order in a province is the dislodged one.
        ordering = id_.startswith("dislodged") or u.province not in state.dislodged
        if ordering and (u.loc in selected or u.province in selected):
            extra += " selected"
        if u.loc in targets or u.province in targets:
            extra += " target"
        at = drawing.unit_at(u)
        if aside:
            parts.append(
                f'<circle class="dislodged-ring" cx="{_f(at[0])}" cy="{_f(at[1])}" '
                f'r="{_f(UNIT_R * 0.9 + 4)}"/>'
            )
        parts.append(
            _unit_svg(
                u,
                at,
                scene.colours[u.power],
                drawing.power_name(u.power),
                id_=id_,
                extra=extra,
                scale=UNIT_SCALE * (DISLODGED_SCALE if aside else 1.0),
            )
        )
    parts.append("</g>")
    return parts


def _orders(scene: _Scene) -> list[str]:
    """Orders on top, so arrows stay visible over units: adjudicated or given ones, then
    pending ones."""
    by_unit: dict[str, Order] = {}
    for o in [*scene.given, *scene.pending]:
        if not isinstance(o, Waive):
            by_unit.setdefault(o.unit.province, o)
    drawing = scene.drawing
    parts = ['<g class="orders">']
    for o in _drawing_order(scene.given):
        parts.append(drawing.order_svg(o, scene.results.get(o), False, by_unit))
    for o in _drawing_order(scene.pending):
        parts.append(drawing.order_svg(o, None, True, by_unit))
    parts.append("</g>")
    return parts


def _overlay(scene: _Scene, titled: bool, legend: bool) -> list[str]:
    """The heading (and the phase under a given title) and the legend."""
    state = scene.state
    parts = ['<g class="overlay">']
    parts.append(
        f'<text class="title" x="{TITLE_AT[0]}" y="{TITLE_AT[1]}">{escape(scene.heading)}</text>'
    )
    if titled and state is not None:
        x, y = SUBTITLE_AT
        parts.append(f'<text class="subtitle" x="{x}" y="{y}">{escape(_phase_title(state))}</text>')
    if legend and state is not None:
        parts.append(_legend(scene.gmap, state, scene.colours, scene.geo.height))
    parts.append("</g>")
    return parts


def _drawing_order(orders: list[Order]) -> list[Order]:
    """Supports and convoys first, moves last, so arrows lie over the lines that point at
    them."""
    rank = {"support": 0, "convoy": 0, "hold": 1, "disband": 2, "remove": 2, "build": 2}
    return sorted(orders, key=lambda o: rank.get(_order_kind(o), 3))


# A legend of more powers than this goes under the map, in columns of LEGEND_COLUMN rows.
LEGEND_OVER_MAP = 8
LEGEND_COLUMN = 9
LEGEND_ROW = 17.0
LEGEND_GAP = 10.0
LEGEND_CHAR = 7.2  # the width of a character of a power's name, about


def _legend_rows(gmap: GameMap, state: GameState) -> list[str]:
    centres = state.centre_counts()
    units = state.unit_counts()
    return [p for p in gmap.powers if centres.get(p) or units.get(p)]


def _legend_below(gmap: GameMap, state: GameState | None) -> float:
    """The height the legend needs under the map (0: it fits over the map's corner)."""
    if state is None or len(rows := _legend_rows(gmap, state)) <= LEGEND_OVER_MAP:
        return 0.0
    return (min(len(rows), LEGEND_COLUMN) + 1) * LEGEND_ROW + 10 + 2 * LEGEND_GAP


def _legend(gmap: GameMap, state: GameState, colours: dict[str, str], height: float) -> str:
    rows = _legend_rows(gmap, state)
    if len(rows) <= LEGEND_OVER_MAP:
        top = height - 14 - (len(rows) + 1) * LEGEND_ROW - 10
        return _legend_box(gmap, state, colours, rows, 12.0, top)[0]
    columns = [rows[k : k + LEGEND_COLUMN] for k in range(0, len(rows), LEGEND_COLUMN)]
    out, left = [], 12.0
    for col in columns:
        box, width = _legend_box(gmap, state, colours, col, left, height + LEGEND_GAP)
        out.append(box)
        left += width + LEGEND_GAP
    return "".join(out)


def _legend_box(
    gmap: GameMap,
    state: GameState,
    colours: dict[str, str],
    rows: list[str],
    left: float,
    top: float,
) -> tuple[str, float]:
    """One table of powers at (left, top), and its width."""
    centres = state.centre_counts()
    units = state.unit_counts()
    adjust = state.adjustments() if state.phase.kind == "adjustment" else {}
    row_h = LEGEND_ROW
    # Columns after the names: as far right as the longest name needs (the standard
    # powers' names fit the first 97 units).
    extra = max(0.0, LEGEND_CHAR * max(len(gmap.power_info[p].name) for p in rows) - 97.0)
    sc_x, units_x, adjust_x = 122.0 + extra, 160.0 + extra, 192.0 + extra
    width = (200.0 if adjust else 168.0) + extra
    out = [f'<g class="legend" transform="translate({_f(left)},{_f(top)})">']
    out.append(
        f'<rect class="legend-box" x="0" y="0" width="{_f(width)}" '
        f'height="{_f((len(rows) + 1) * row_h + 10)}" rx="4"/>'
    )
    y = 5 + row_h / 2
    out.append(f'<text class="legend-head" x="8" y="{_f(y)}">Power</text>')
    out.append(f'<text class="legend-head num" x="{_f(sc_x)}" y="{_f(y)}">SCs</text>')
    out.append(f'<text class="legend-head num" x="{_f(units_x)}" y="{_f(y)}">Units</text>')
    for p in rows:
        y += row_h
        info = gmap.power_info[p]
        out.append(
            f"<g {_attrs(class_=f'legend-row power-{p}', data_power=p)}>"
            f'<rect x="8" y="{_f(y - 5.5)}" width="11" height="11" fill="{colours[p]}" '
            f'stroke="#1E1E1E" stroke-width="1"/>'
            f'<text x="25" y="{_f(y)}">{escape(info.name)}</text>'
            f'<text class="num" x="{_f(sc_x)}" y="{_f(y)}">{centres.get(p, 0)}</text>'
            f'<text class="num" x="{_f(units_x)}" y="{_f(y)}">{units.get(p, 0)}</text>'
        )
        if adjust:
            n = adjust.get(p, 0)
            text = f"+{n}" if n > 0 else (str(n).replace("-", "\u2212") if n < 0 else "")
            out.append(f'<text class="num" x="{_f(adjust_x)}" y="{_f(y)}">{text}</text>')
        out.append("</g>")
    out.append("</g>")
    return "".join(out), width
