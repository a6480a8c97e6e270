"""Reading and running DATC case files in the jDip text format.

The format (as jDip and godip write it)::

    CASE 6.A.1
    PRESTATE_SETPHASE Spring 1901, Movement
    PRESTATE_SUPPLYCENTER_OWNERS   (adjustment cases: the complete ownership table)
    PRESTATE                       (every unit not dislodged; the board is otherwise empty)
    PRESTATE_DISLODGED             (retreat cases: units waiting to retreat)
    PRESTATE_RESULTS               (retreat cases: the last movement's orders, SUCCESS/FAILURE)
    ORDERS                         (Power: order, the power being the one who gives it)
    POSTSTATE / POSTSTATE_SAME     (units after the phase)
    POSTSTATE_DISLODGED            (dislodged units that still have a retreat)
    END

Province names may be DAIDE tokens or jDip/godip ids (``nat``, ``mid``, ``stp/nc`` ...).
A retreat case's restrictions come from PRESTATE_RESULTS: a successful move X-Y (not by convoy)
bars the unit dislodged in Y from X; a failed move X-Y (not by convoy) makes Y a standoff, unless
the unit moving from X lost a head-to-head battle with the unit that left Y.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from engine.map import GameMap, load_map, province_of
from engine.notation import NotationError, parse_location, parse_order
from engine.orders import Move
from engine.orderset import OrderSet
from engine.state import Dislodged, GameState, Phase, StateError, Unit, make_state
from engine.turn import process

UnitLine = tuple[str, str, str]  # power, type, location
_KEYWORDS = {
    "PRESTATE_SUPPLYCENTER_OWNERS",
    "PRESTATE",
    "PRESTATE_DISLODGED",
    "PRESTATE_RESULTS",
    "ORDERS",
    "POSTSTATE",
    "POSTSTATE_SAME",
    "POSTSTATE_DISLODGED",
    "END",
}
_SEASON = {
    ("SPRING", "MOVEMENT"): "SPR",
    ("SPRING", "RETREAT"): "SUM",
    ("FALL", "MOVEMENT"): "FAL",
    ("FALL", "RETREAT"): "AUT",
    ("FALL", "ADJUSTMENT"): "WIN",
    ("WINTER", "ADJUSTMENT"): "WIN",
}


class CaseFileError(ValueError):
    """A case file that cannot be read."""


@dataclass
class Case:
    name: str
    line: int
    phase: Phase = field(default_factory=lambda: Phase("SPR", 1901))
    owners: list[UnitLine] | None = None
    prestate: list[UnitLine] = field(default_factory=list)
    dislodged: list[UnitLine] = field(default_factory=list)
    results: list[tuple[bool, str, str]] = field(default_factory=list)
    orders: list[tuple[str, str, int]] = field(default_factory=list)  # power, text, line
    post: list[UnitLine] | None = None  # None: POSTSTATE_SAME
    post_dislodged: list[UnitLine] = field(default_factory=list)


@dataclass(frozen=True)
class CaseResult:
    case: Case
    passed: bool
    problems: list[str]


def _power(gmap: GameMap, word: str, where: str) -> str:
    w = word.rstrip(":").strip()
    up = w.upper()
    if up in gmap.power_info:
        return up
    for tok, info in gmap.power_info.items():
        if info.name.upper() == up or info.adjective.upper() == up:
            return tok
    raise CaseFileError(f"{where}: unknown power {w!r}")


def parse_cases(text: str, gmap: GameMap, source: str = "<text>") -> list[Case]:
    cases: list[Case] = []
    case: Case | None = None
    section = ""
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        where = f"{source}:{lineno}"
        word = line.split()[0]
        if word == "VARIANT_ALL":
            continue
        if word == "CASE":
            if case is not None:
                raise CaseFileError(f"{where}: CASE {case.name} has no END")
            case = Case(line[4:].strip(), lineno)
            section = ""
            continue
        if case is None:
            raise CaseFileError(f"{where}: {line!r} outside a CASE")
        if word == "PRESTATE_SETPHASE":
            m = re.fullmatch(r"PRESTATE_SETPHASE\s+(\w+)\s+(\d+),?\s+(\w+)", line)
            key = (m.group(1).upper(), m.group(3).upper()) if m else None
            if m is None or key not in _SEASON:
                raise CaseFileError(f"{where}: cannot read {line!r}")
            case.phase = Phase(_SEASON[key], int(m.group(2)))  # type: ignore[arg-type]
            continue
        if word in _KEYWORDS and len(line.split()) == 1:
            section = word
            if word == "PRESTATE_SUPPLYCENTER_OWNERS":
                case.owners = []
            elif word == "POSTSTATE":
                case.post = []
            elif word == "POSTSTATE_SAME":
                case.post = None
            elif word == "END":
                cases.append(case)
                case = None
            continue
        if section in ("PRESTATE", "PRESTATE_DISLODGED", "POSTSTATE", "POSTSTATE_DISLODGED",
                       "PRESTATE_SUPPLYCENTER_OWNERS"):  # fmt: skip
            target = {
                "PRESTATE": case.prestate,
                "PRESTATE_DISLODGED": case.dislodged,
                "POSTSTATE": case.post,
                "POSTSTATE_DISLODGED": case.post_dislodged,
                "PRESTATE_SUPPLYCENTER_OWNERS": case.owners,
            }[section]
            assert target is not None
            target.append(_unit_line(gmap, line, where))
        elif section == "PRESTATE_RESULTS":
            m = re.fullmatch(r"(SUCCESS|FAILURE)\s*:\s*(\S+?):?\s+(.+)", line, re.IGNORECASE)
            if m is None:
                raise CaseFileError(f"{where}: cannot read result {line!r}")
            power = _power(gmap, m.group(2), where)
            case.results.append((m.group(1).upper() == "SUCCESS", power, m.group(3)))
        elif section == "ORDERS":
            m = re.fullmatch(r"(\S+?):?\s+(.+)", line)
            if m is None:
                raise CaseFileError(f"{where}: cannot read order {line!r}")
            case.orders.append((_power(gmap, m.group(1), where), m.group(2), lineno))
        else:
            raise CaseFileError(f"{where}: unexpected {line!r}")
    if case is not None:
        raise CaseFileError(f"{source}: CASE {case.name} has no END")
    return cases


def _unit_line(gmap: GameMap, line: str, where: str) -> UnitLine:
    m = re.fullmatch(r"(\S+?):?\s+([AaFf])\s+(\S+)", line)
    if m is None:
        raise CaseFileError(f"{where}: cannot read unit {line!r}")
    try:
        loc = parse_location(gmap, m.group(3))
    except NotationError as exc:
        raise CaseFileError(f"{where}: {exc}") from None
    return _power(gmap, m.group(1), where), m.group(2).upper(), loc


def _setup(case: Case, gmap: GameMap) -> GameState:
    units = [Unit(*u) for u in case.prestate]
    centres = {province_of(loc): p for p, _, loc in case.owners or ()}
    dislodged: list[Dislodged] = []
    if case.dislodged:
        barred_from: dict[str, str] = {}
        bounced: set[str] = set()
        moves = []
        for ok, power, text in case.results:
            try:
                order = parse_order(gmap, text, power, "movement")
            except NotationError as exc:
                raise CaseFileError(f"case {case.name}: {exc}") from None
            if isinstance(order, Move) and not order.convoy:
                moves.append((ok, order.unit.province, province_of(order.dest)))
        won = {(src, dst) for ok, src, dst in moves if ok}
        for ok, src, dst in moves:
            if ok:
                barred_from[dst] = src
            elif (dst, src) not in won:
                bounced.add(dst)
        occupied = {province_of(u.loc) for u in units}
        for p, t, loc in case.dislodged:
            prov = province_of(loc)
            adj = gmap.army_adj if t == "A" else gmap.fleet_adj
            retreats = tuple(
                sorted(
                    d
                    for d in adj.get(loc, ())
                    if province_of(d) not in occupied
                    and province_of(d) not in bounced
                    and province_of(d) != barred_from.get(prov)
                )
            )
            if retreats:
                dislodged.append(Dislodged(Unit(p, t, loc), barred_from.get(prov), retreats))
    try:
        return make_state(gmap, case.phase, units, centres, dislodged)
    except StateError as exc:
        raise CaseFileError(f"case {case.name}: {exc}") from None


def run_case(case: Case, gmap: GameMap) -> CaseResult:
    state = _setup(case, gmap)
    book = OrderSet(state)
    board = (
        {p: d.unit for p, d in state.dislodged.items()}
        if state.phase.kind == "retreat"
        else dict(state.units)
    )
    for power, text, _ in case.orders:
        try:
            order = parse_order(gmap, text, power, state.phase.kind, board)
        except NotationError:
            continue  # an order that cannot be read is illegal, and ignored
        book.submit(power, order)
    after = process(state, book).state
    found = {(u.power, u.type, u.loc) for u in after.units.values()}
    found_disl = {(d.unit.power, d.unit.type, d.unit.loc) for d in after.dislodged.values()}
    expect = set(case.prestate if case.post is None else case.post)
    expect_disl = set(case.post_dislodged)
    problems = []
    for label, want, got in (("units", expect, found), ("dislodged", expect_disl, found_disl)):
        if want - got:
            problems.append(f"{label} missing: {_fmt(want - got)}")
        if got - want:
            problems.append(f"{label} unexpected: {_fmt(got - want)}")
    return CaseResult(case, not problems, problems)


def _fmt(units: set[UnitLine]) -> str:
    return ", ".join(f"{p} {t} {loc}" for p, t, loc in sorted(units))


def run_file(path: str | Path, gmap: GameMap | None = None) -> list[CaseResult]:
    gmap = gmap or load_map("standard")
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise CaseFileError(f"{path}: {exc.strerror or exc}") from None
    return [run_case(c, gmap) for c in parse_cases(text, gmap, str(path))]
