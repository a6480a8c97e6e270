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
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from engine.map import GameMap, province_of
from engine.orders import (
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
from engine.state import PhaseKind, Unit


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


def parse_order(
    gmap: GameMap,
    text: str,
    power: str,
    phase: PhaseKind = "movement",
    units: Mapping[str, Unit] | None = None,
) -> Order:
    """Read one order given by ``power``. ``units`` (the board, by province) fills in the
    power and type of supported and convoyed units when the text leaves them out."""
    words = _tokens(gmap, text)
    if not words:
        raise NotationError("empty order")
    board = units or {}
    up = [w.upper() for w in words]
    kw = [_WORDS.get(w) for w in up]

    if kw[0] == "WAIVE" and len(words) == 1:
        return Waive(power)
    if kw[0] in ("B", "REMOVE"):  # "Build A BER", "Remove [A] PAR"
        rest = words[1:]
        utype, loc, rest = _unit_words(gmap, rest, board)
        if rest:
            raise NotationError(f"unexpected {' '.join(rest)!r} in {text!r}")
        if kw[0] == "B":
            if utype is None:
                raise NotationError(f"a build needs a unit type: {text!r}")
            return Build(Unit(power, utype, loc))
        return Remove(_unit(power, utype, loc, board))

    utype, loc, rest = _unit_words(gmap, words, board)
    unit = _unit(power, utype, loc, board)
    if not rest:
        raise NotationError(f"no order for {unit}: {text!r}")
    verb = _WORDS.get(rest[0].upper())
    args = rest[1:]
    if verb == "H" and not args:
        return Hold(unit)
    if verb == "-" or verb == "R":
        if not args:
            raise NotationError(f"no destination: {text!r}")
        dest = parse_location(gmap, args[0])
        tail = [a.upper() for a in args[1:]]
        if phase == "retreat" or verb == "R":
            if tail:
                raise NotationError(f"unexpected {' '.join(args[1:])!r} in {text!r}")
            return Retreat(unit, dest)
        if tail in ([],):
            return Move(unit, dest)
        if tail[0] == "VIA" and tail[1:] in ([], ["CONVOY"]):
            return Move(unit, dest, convoy=True)
        raise NotationError(f"unexpected {' '.join(args[1:])!r} in {text!r}")
    if verb == "D" and not args:
        return Remove(unit) if phase == "adjustment" else Disband(unit)
    if verb == "B" and not args:
        if utype is None:
            raise NotationError(f"a build needs a unit type: {text!r}")
        return Build(Unit(power, utype, loc))
    if verb in ("S", "C"):
        ttype, tloc, trest = _unit_words(gmap, args, board)
        target = _unit(power, ttype, tloc, board)
        if verb == "S" and (not trest or [w.upper() for w in trest] == ["H"]):
            return SupportHold(unit, target)
        if len(trest) == 2 and trest[0] == "-":
            dest = parse_location(gmap, trest[1])
            if verb == "S":
                return SupportMove(unit, target, dest)
            return Convoy(unit, target, province_of(dest))
        raise NotationError(f"cannot read {text!r}")
    raise NotationError(f"cannot read {text!r}")


def _unit_words(
    gmap: GameMap, words: list[str], board: Mapping[str, Unit]
) -> tuple[str | None, str, list[str]]:
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
        return Unit(actual.power, utype or actual.type, loc if "/" in loc else actual.loc)
    return Unit(power, utype or "A", loc)
