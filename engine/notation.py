"""Orders written as text, the way judges, jDip/godip case files, the ``diplomacy`` package and
people write them.

Accepted (case-insensitive; spaces around ``-`` optional)::

    A PAR H            A PAR HOLD          A PAR-BUR         A LON - BEL VIA [CONVOY]
    F NTH S A YOR-NWY  F NTH SUPPORTS YOR  F NTH C A LON-BEL A PAR S A BUR [H]
    F TRI R ALB        F TRI-ALB (in a retreat phase)        A PAR D / DISBAND
    BUILD A BER        A BER B             REMOVE PAR        A PAR D (in an adjustment phase)
    WAIVE

Locations are DAIDE tokens or the map's aliases (godip's ``nat``, ``mid``, ``nrg``, ``eng``,
``bot``, ``lyo``), or English names; coasts as ``STP/NC``, ``stp/nc``, ``STP(NC)`` or ``STP NCS``.
The DAIDE message form (``(ENG AMY LVP) HLD``) is the protocol layer's business.

Phases as players name them (``Spring 1903 Retreats`` for DAIDE's ``SUM 1903``) are here too:
:func:`phase_title`, which the map drawing, the web page and the CLI all use.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from diplomat.engine.map import GameMap, province_of
from diplomat.engine.orders import (
    Build,
    Convoy,
    Disband,
    Hold,
    Move,
    Order,
    Remove,
    Retreat,
    SupportHold,
    SupportMove,
    Waive,
)
from diplomat.engine.state import Phase, PhaseKind, Unit


class NotationError(ValueError):
    """Text that is not an order."""


_COASTS = {
    "NC": "NC", "NCS": "NC", "SC": "SC", "SCS": "SC", "EC": "EC", "ECS": "EC",
    "WC": "WC", "WCS": "WC", "NE": "NE", "NEC": "NE", "SE": "SE", "SEC": "SE",
    "SW": "SW", "SWC": "SW", "NW": "NW", "NWC": "NW",
}  # fmt: skip
_WORDS = {
    "H": "H", "HOLD": "H", "HOLDS": "H",
    "S": "S", "SUPPORT": "S", "SUPPORTS": "S",
    "C": "C", "CONVOY": "C", "CONVOYS": "C",
    "-": "-", "MOVE": "-", "MOVES": "-", "TO": "-", "R": "R", "RETREAT": "R", "RETREATS": "R",
    "D": "D", "DISBAND": "D", "DISBANDS": "D", "B": "B", "BUILD": "B", "BUILDS": "B",
    "REMOVE": "REMOVE", "REMOVES": "REMOVE", "WAIVE": "WAIVE", "WAIVES": "WAIVE",
    "VIA": "VIA",
}  # fmt: skip
_TYPES = {"A": "A", "ARMY": "A", "AMY": "A", "F": "F", "FLEET": "F", "FLT": "F"}
_SPLIT = re.compile(r"\s*-\s*|\s+")


# Seasons and phase kinds as players name them: DAIDE's summer and autumn are the retreats of
# the spring and the fall.
SEASON_NAMES = {"SPR": "Spring", "SUM": "Spring", "FAL": "Fall", "AUT": "Fall", "WIN": "Winter"}
KIND_NAMES = {"movement": "Movement", "retreat": "Retreats", "adjustment": "Adjustments"}


def phase_title(phase: Phase) -> str:
    """A phase as players name it: ``Spring 1903 Retreats`` (DAIDE's ``SUM 1903``)."""
    season = SEASON_NAMES.get(phase.season, phase.season)
    return f"{season} {phase.year} {KIND_NAMES.get(phase.kind, phase.kind)}"


def parse_location(gmap: GameMap, text: str) -> str:
    """Normalise a written location to the engine's form (``"STP/NC"``, ``"PAR"``)."""
    t = text.strip().upper().replace("(", "/").replace(")", "")
    prov, _, coast = t.partition("/")
    prov = prov.strip()
    if prov not in gmap.provinces:
        prov = gmap.aliases.get(prov) or gmap.by_name.get(prov.lower(), "")
        if not prov:
            raise NotationError(f"unknown province {text.strip()!r}")
    if coast:
        c = _COASTS.get(coast.strip())
        if c is None:
            raise NotationError(f"unknown coast {coast.strip()!r} in {text.strip()!r}")
        return f"{prov}/{c}"
    return prov


def _tokens(gmap: GameMap, text: str) -> list[str]:
    """Split into words, keeping ``-`` as a word and coasts glued to their province."""
    t = text.strip().replace("(", "/").replace(")", " ")
    t = re.sub(r"\s*/\s*", "/", t)
    t = re.sub(r"\s*-\s*", " - ", t)
    words = t.split()
    out: list[str] = []
    for w in words:
        up = w.upper()
        # "STP NCS": a bare coast word after a province joins it.
        if out and up in _COASTS and len(up) == 3 and "/" not in out[-1]:
            out[-1] = f"{out[-1]}/{up}"
            continue
        out.append(w)
    return out


# A reading of an order's text that does not depend on the board or on who gives it: the
# verb, then the ordered unit's written type and location, then the rest (see _read).
_Reading = tuple[Any, ...]


class Readings(dict[tuple[str, str], _Reading]):
    """The per-map memo of order readings by (text, phase kind) (``engine.memo``)."""

    __slots__ = ()


# Readings kept per map before the memo is emptied.
_MEMO_LIMIT = 100_000


def parse_order(
    gmap: GameMap,
    text: str,
    power: str,
    phase: PhaseKind = "movement",
    units: Mapping[str, Unit] | None = None,
) -> Order:
    """Read one order given by ``power``. ``units`` (the board, by province) fills in the
    power and type of supported and convoyed units when the text leaves them out."""
    memo = gmap.memo.get(Readings, Readings)
    if len(memo) > _MEMO_LIMIT:
        memo.clear()
    key = (text, phase)
    reading = memo.get(key)
    if reading is None:
        try:
            reading = _read(gmap, text, phase)
        except NotationError as exc:
            reading = ("ERROR", str(exc))
        memo[key] = reading
    return _build(reading, power, units or {}, text)


def _build(reading: _Reading, power: str, board: Mapping[str, Unit], text: str) -> Order:
    verb = reading[0]
    if verb == "ERROR":
        raise NotationError(reading[1])
    if verb == "WAIVE":
        return Waive(power)
    if verb == "BUILD":
        return Build(Unit(power, reading[1], reading[2]))
    unit = _unit(power, reading[1], reading[2], board)
    if verb == "NONE":
        raise NotationError(f"no order for {unit}: {text!r}")
    if verb == "HOLD":
        return Hold(unit)
    if verb == "MOVE":
        return Move(unit, reading[3], reading[4])
    if verb == "RETREAT":
        return Retreat(unit, reading[3])
    if verb == "DISBAND":
        return Disband(unit)
    if verb == "REMOVE":
        return Remove(unit)
    target = _unit(power, reading[3], reading[4], board)
    if verb == "SH":
        return SupportHold(unit, target)
    if verb == "SM":
        return SupportMove(unit, target, reading[5])
    return Convoy(unit, target, reading[5])


def _read(gmap: GameMap, text: str, phase: PhaseKind) -> _Reading:
    """The board-free reading of an order's text; raises NotationError."""
    words = _tokens(gmap, text)
    if not words:
        raise NotationError("empty order")
    kw = [_WORDS.get(w.upper()) for w in words]
    if kw[0] == "WAIVE" and len(words) == 1:
        return ("WAIVE",)
    if kw[0] in ("B", "REMOVE"):  # "Build A BER", "Remove [A] PAR"
        utype, loc, rest = _unit_words(gmap, words[1:])
        if rest:
            raise NotationError(f"unexpected {' '.join(rest)!r} in {text!r}")
        if kw[0] == "B":
            if utype is None:
                raise NotationError(f"a build needs a unit type: {text!r}")
            return ("BUILD", utype, loc)
        return ("REMOVE", utype, loc)
    utype, loc, rest = _unit_words(gmap, words)
    if not rest:
        return ("NONE", utype, loc)
    verb = _WORDS.get(rest[0].upper())
    args = rest[1:]
    if verb == "H" and not args:
        return ("HOLD", utype, loc)
    if verb == "-" or verb == "R":
        if not args:
            raise NotationError(f"no destination: {text!r}")
        dest = parse_location(gmap, args[0])
        tail = [a.upper() for a in args[1:]]
        if phase == "retreat" or verb == "R":
            if tail:
                raise NotationError(f"unexpected {' '.join(args[1:])!r} in {text!r}")
            return ("RETREAT", utype, loc, dest)
        if not tail:
            return ("MOVE", utype, loc, dest, False)
        if tail[0] == "VIA" and tail[1:] in ([], ["CONVOY"]):
            return ("MOVE", utype, loc, dest, True)
        raise NotationError(f"unexpected {' '.join(args[1:])!r} in {text!r}")
    if verb == "D" and not args:
        return ("REMOVE" if phase == "adjustment" else "DISBAND", utype, loc)
    if verb == "B" and not args:
        if utype is None:
            raise NotationError(f"a build needs a unit type: {text!r}")
        return ("BUILD", utype, loc)
    if verb in ("S", "C"):
        ttype, tloc, trest = _unit_words(gmap, args)
        if verb == "S" and (not trest or [w.upper() for w in trest] == ["H"]):
            return ("SH", utype, loc, ttype, tloc)
        if len(trest) == 2 and trest[0] == "-":
            dest = parse_location(gmap, trest[1])
            if verb == "S":
                return ("SM", utype, loc, ttype, tloc, dest)
            return ("C", utype, loc, ttype, tloc, province_of(dest))
        raise NotationError(f"cannot read {text!r}")
    raise NotationError(f"cannot read {text!r}")


def _unit_words(gmap: GameMap, words: list[str]) -> tuple[str | None, str, list[str]]:
    """``[A] PAR ...`` -> (type or None, location, the words after)."""
    if not words:
        raise NotationError("a unit is missing")
    utype = _TYPES.get(words[0].upper())
    if utype is not None and len(words) > 1:
        words = words[1:]
    else:
        utype = None
    return utype, parse_location(gmap, words[0]), words[1:]


def _unit(power: str, utype: str | None, loc: str, board: Mapping[str, Unit]) -> Unit:
    actual = board.get(province_of(loc))
    if actual is not None:
        # Written type and coast of an existing unit are kept for the ordered unit (validation
        # judges them); a missing type is filled in from the board.
        if (utype is None or utype == actual.type) and ("/" not in loc or loc == actual.loc):
            return actual
        return Unit(actual.power, utype or actual.type, loc if "/" in loc else actual.loc)
    return Unit(power, utype or "A", loc)
