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

This project's extension, per-order results: an order line may end with ``=> RESULT`` (before
any comment), and the runner then checks what became of that order as well as the positions.
Files without markers read as before. RESULT is one of::

    succeeds      the move moved, the support was given, the convoying fleet stayed, the hold,
                  retreat or adjustment was carried out (``holds`` is the same word)
    bounces       a move or retreat that failed (a bounced retreat destroys the unit)
    cut           a support that was not given (cut, or its supporter dislodged)
    disrupted     a convoy that did not carry (the fleet dislodged, or a paradox)
    void          a legal support or convoy that matches no order (DATC's "void")
    illegal [N]   refused when given (DATC 4.E.1: ignored, the unit holds); N, if written, is
                  the THX note it must get (FAR, CST, NSU, NYU, NMB, ESC ...)
    replaced      an order superseded by a later order for the same unit (DATC 4.D.1)

followed by ``, dislodged`` when the unit is dislodged (DAIDE's RET); ``dislodged`` alone is
``holds, dislodged``. They map one to one onto the engine's results (SUC, BNC, CUT, DSR, NSO,
RET) and THX notes. An order that cannot be read (malformed, an unknown province) fails its
case; so does an unmarked order refused for naming a unit or province that is not there (NSU,
NSP): a deliberate one is marked ``=> illegal NSU``; and so does an accepted order that names
a unit with the wrong type (the engine ignores the letter, DATC 4.C.2, so a typo would pass
unseen; no chapter-6 case relies on it).

A file with no marker at all is a standard DATC file (as jDip and godip write them, which
carry no results): its cases are judged on positions alone, and what the markers would check
(an order refused, with its THX note; a unit named with the wrong type) is reported as notes,
never as a failure. An order that cannot be read still fails its case.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from diplomat.engine.map import GameMap, province_of
from diplomat.engine.notation import NotationError, parse_location, parse_order
from diplomat.engine.orders import (
    Build,
    Convoy,
    Hold,
    Move,
    Note,
    Order,
    Outcome,
    Result,
    SupportHold,
    SupportMove,
    Waive,
)
from diplomat.engine.orderset import OrderSet
from diplomat.engine.state import Dislodged, GameState, Phase, Season, StateError, Unit, make_state
from diplomat.engine.turn import process

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
_SEASON: dict[tuple[str, str], Season] = {
    ("SPRING", "MOVEMENT"): "SPR",
    ("SPRING", "RETREAT"): "SUM",
    ("FALL", "MOVEMENT"): "FAL",
    ("FALL", "RETREAT"): "AUT",
    ("FALL", "ADJUSTMENT"): "WIN",
    ("WINTER", "ADJUSTMENT"): "WIN",
}


class CaseFileError(ValueError):
    """A case file that cannot be read."""


_OUTCOME_WORDS = {
    "succeeds": Outcome.SUC,
    "holds": Outcome.SUC,
    "bounces": Outcome.BNC,
    "cut": Outcome.CUT,
    "disrupted": Outcome.DSR,
    "void": Outcome.NSO,
}
_OUTCOME_NAMES = {o: w for w, o in _OUTCOME_WORDS.items() if w != "holds"}
# Refusals that mean the case file names something that is not on the board: a typo unless the
# case marks the order as deliberately illegal.
_TYPO_NOTES = frozenset({Note.NSU, Note.NSP})
_NOTE_SAYS: dict[Note | None, str] = {Note.NSU: ": no such unit", Note.NSP: ": no such province"}


@dataclass(frozen=True)
class OrderVerdict:
    """What became of one order: refused (``note``), superseded, or adjudicated."""

    outcome: Outcome | None = None
    dislodged: bool = False
    illegal: bool = False
    note: Note | None = None  # for an illegal order: the THX note (None: any refusal)
    replaced: bool = False
    # Written as "holds" (or "dislodged" alone), which only a hold order can earn.
    says_hold: bool = field(default=False, compare=False)

    def matches(self, actual: OrderVerdict) -> bool:
        """Does ``actual`` (what the engine did) satisfy this expectation?"""
        if self.illegal:
            return (
                actual.illegal
                and (self.note is None or self.note is actual.note)
                and self.dislodged == actual.dislodged
            )
        return self == actual

    def __str__(self) -> str:
        if self.illegal:
            word = f"illegal {self.note.value}" if self.note else "illegal"
        elif self.replaced:
            word = "replaced"
        elif self.says_hold:
            return "dislodged" if self.dislodged else "holds"
        else:
            assert self.outcome is not None
            word = _OUTCOME_NAMES[self.outcome]
        return f"{word}, dislodged" if self.dislodged else word


def parse_verdict(text: str) -> OrderVerdict:
    """Read a result marker (the text after ``=>``)."""
    parts = [p.strip().lower() for p in text.split(",")]
    dislodged = parts[-1] == "dislodged"
    if dislodged:
        parts = parts[:-1] or ["holds"]
    if len(parts) != 1:
        raise ValueError(f"cannot read result {text.strip()!r}")
    words = parts[0].split()
    if words == ["replaced"]:
        return OrderVerdict(replaced=True, dislodged=dislodged)
    if words and words[0] == "illegal" and len(words) <= 2:
        if len(words) == 1:
            return OrderVerdict(illegal=True, dislodged=dislodged)
        try:
            return OrderVerdict(illegal=True, note=Note(words[1].upper()), dislodged=dislodged)
        except ValueError:
            raise ValueError(f"unknown THX note {words[1]!r} in {text.strip()!r}") from None
    if len(words) == 1 and words[0] in _OUTCOME_WORDS:
        return OrderVerdict(_OUTCOME_WORDS[words[0]], dislodged, says_hold=words[0] == "holds")
    raise ValueError(f"cannot read result {text.strip()!r}")


def verdict_of(result: Result) -> OrderVerdict:
    return OrderVerdict(result.outcome, result.dislodged)


@dataclass(frozen=True)
class OrderLine:
    power: str
    text: str
    line: int
    expect: OrderVerdict | None  # None: the line has no result marker


@dataclass
class Case:
    name: str
    line: int
    phase: Phase = field(default_factory=lambda: Phase("SPR", 1901))
    owners: list[UnitLine] | None = None
    prestate: list[UnitLine] = field(default_factory=list)
    dislodged: list[UnitLine] = field(default_factory=list)
    results: list[tuple[bool, str, str]] = field(default_factory=list)
    orders: list[OrderLine] = field(default_factory=list)
    post: list[UnitLine] | None = None  # None: POSTSTATE_SAME
    post_dislodged: list[UnitLine] = field(default_factory=list)


@dataclass(frozen=True)
class CaseResult:
    case: Case
    passed: bool
    problems: list[str]
    notes: list[str] = field(default_factory=list)  # information (a file without markers)


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
            case.phase = Phase(_SEASON[key], int(m.group(2)))
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
            case.orders.append(_order_line(gmap, line, lineno, where))
        else:
            raise CaseFileError(f"{where}: unexpected {line!r}")
    if case is not None:
        raise CaseFileError(f"{source}: CASE {case.name} has no END")
    return cases


def _order_line(gmap: GameMap, line: str, lineno: int, where: str) -> OrderLine:
    body, arrow, mark = line.partition("=>")
    m = re.fullmatch(r"(\S+?):?\s+(.+?)", body.strip())
    if m is None:
        raise CaseFileError(f"{where}: cannot read order {line!r}")
    expect = None
    if arrow:
        try:
            expect = parse_verdict(mark)
        except ValueError as exc:
            raise CaseFileError(f"{where}: {exc}") from None
    return OrderLine(_power(gmap, m.group(1), where), m.group(2), lineno, expect)


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


def run_case(case: Case, gmap: GameMap, marked: bool = True) -> CaseResult:
    """Run one case. ``marked``: it comes from a file with result markers, where an unmarked
    refusal or a unit of the wrong type is a mistake; otherwise (a standard DATC file) they
    are notes and the case is judged on positions."""
    state = _setup(case, gmap)
    book = OrderSet(state)
    problems: list[str] = []
    notes: list[str] = []
    given = _submit(case, state, book, problems, problems if marked else notes)
    after = process(state, book)
    problems += _check_orders(given, book, after.results, notes=None if marked else notes)
    found = {(u.power, u.type, u.loc) for u in after.state.units.values()}
    found_disl = {(d.unit.power, d.unit.type, d.unit.loc) for d in after.state.dislodged.values()}
    expect = set(case.prestate if case.post is None else case.post)
    expect_disl = set(case.post_dislodged)
    for label, want, got in (("units", expect, found), ("dislodged", expect_disl, found_disl)):
        if want - got:
            problems.append(f"{label} missing: {_fmt(want - got)}")
        if got - want:
            problems.append(f"{label} unexpected: {_fmt(got - want)}")
    return CaseResult(case, not problems, problems, notes)


Given = tuple[OrderLine, Order, Note]  # the line, the order as judged, its THX note


def _submit(
    case: Case, state: GameState, book: OrderSet, problems: list[str], wrong: list[str]
) -> list[Given]:
    """Give every readable order; an unreadable one is a problem of the case, never a hold
    (one that names a unit with the wrong type goes to ``wrong``)."""
    board = (
        {p: d.unit for p, d in state.dislodged.items()}
        if state.phase.kind == "retreat"
        else dict(state.units)
    )
    given: list[Given] = []
    for ol in case.orders:
        try:
            order = parse_order(state.map, ol.text, ol.power, state.phase.kind, board)
        except NotationError as exc:
            problems.append(f"line {ol.line}: cannot read {ol.text!r}: {exc}")
            continue
        checked = book.submit(ol.power, order)
        given.append((ol, checked.order, checked.note))
        named = _wrong_type(order, board)
        if named and checked.note is Note.MBV:
            wrong.append(f"line {ol.line}: {ol.text!r} names {named}")
    return given


def _wrong_type(order: Order, board: Mapping[str, Unit]) -> str | None:
    """A unit the order names with another type than the one on the board: a typo in a case
    file (the engine would accept the order, DATC 4.C.2, and the case would test less)."""
    if isinstance(order, (Build, Waive)):
        return None
    named = [order.unit]
    if isinstance(order, (SupportHold, SupportMove, Convoy)):
        named.append(order.target)
    for unit in named:
        real = board.get(province_of(unit.loc))
        if real is not None and real.type != unit.type:
            return f"{unit}, but {real} stands there"
    return None


def _check_orders(
    given: list[Given],
    book: OrderSet,
    results: list[tuple[Order, Result]],
    notes: list[str] | None = None,
) -> list[str]:
    """The problems with the orders' results. ``notes`` given (a file without markers):
    every refused order is listed there instead, with its THX note."""
    outcome = dict(results)
    kept = {o for orders in book.all_orders().values() for o in orders}
    dislodged = {o.unit.province for o, r in results if r.dislodged and not isinstance(o, Waive)}
    problems = []
    for ol, order, note in given:
        actual = _actual(order, note, kept, outcome, dislodged)
        if actual is None:
            problems.append(f"line {ol.line}: no result for {order}")
        elif ol.expect is not None and ol.expect.says_hold and not isinstance(order, Hold):
            problems.append(f"line {ol.line}: {ol.text}: 'holds' is the result of a hold order")
        elif ol.expect is not None and not ol.expect.matches(actual):
            problems.append(
                f"line {ol.line}: {ol.text}: {describe(order, actual)}, expected {ol.expect}"
            )
        elif notes is not None and actual.illegal:
            notes.append(_refused(ol, actual.note))
        elif ol.expect is None and actual.note in _TYPO_NOTES:
            problems.append(
                f"{_refused(ol, actual.note)}; mark a deliberate one '=> illegal {actual.note}'"
            )
    return problems


def _refused(ol: OrderLine, note: Note | None) -> str:
    return f"line {ol.line}: {ol.text} refused ({note}{_NOTE_SAYS.get(note, '')})"


def _actual(
    order: Order,
    note: Note,
    kept: set[Order],
    outcome: dict[Order, Result],
    dislodged: set[str],
) -> OrderVerdict | None:
    """What became of one given order; ``dislodged`` holds the provinces of dislodged units
    (an illegal or replaced order's unit still holds, and may be dislodged)."""
    lost = not isinstance(order, Waive) and order.unit.province in dislodged
    if note is not Note.MBV:
        return OrderVerdict(illegal=True, note=note, dislodged=lost)
    if order not in kept and not isinstance(order, Waive):
        return OrderVerdict(replaced=True, dislodged=lost)
    result = outcome.get(order)
    return None if result is None else verdict_of(result)


def describe(order: Order, verdict: OrderVerdict) -> str:
    """The marker a case file would carry for this result (``holds`` for a hold)."""
    if isinstance(order, Hold) and verdict.outcome is Outcome.SUC and not verdict.illegal:
        return str(replace(verdict, says_hold=True))
    return str(verdict)


def _fmt(units: set[UnitLine]) -> str:
    return ", ".join(f"{p} {t} {loc}" for p, t, loc in sorted(units))


def run_file(path: str | Path, gmap: GameMap) -> list[CaseResult]:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise CaseFileError(f"{path}: {exc.strerror or exc}") from None
    cases = parse_cases(text, gmap, str(path))
    marked = has_markers(cases)
    return [run_case(c, gmap, marked) for c in cases]


def has_markers(cases: list[Case]) -> bool:
    """Whether any order of ``cases`` carries a result marker (else: a standard DATC file,
    judged on positions)."""
    return any(ol.expect is not None for c in cases for ol in c.orders)
