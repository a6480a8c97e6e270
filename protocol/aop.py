"""AiMapper's ``.aop`` files: where each province lies on a variant's picture.

AiMapper (the DAIDE10 archive's map viewer) ships, per variant, one line per province and per
split coast: ``X Y TOKEN TYPE Long name``, in the picture's pixels (y down). TYPE is ``SC`` (a
supply centre) or ``NO`` for a province, ``CN``/``CS``/``CE``/``CW`` for its north, south, east
or west coast; the token's case varies. :func:`picture_from_aop` matches each line to the map
and returns the map data's ``picture`` field.

A token is matched to the map's tokens ignoring case; a token the map does not have is matched
by its long name instead (AiMapper's Americas, Iberian, South America and World files use other
tokens than the variants' RM for a few provinces, with the same names). Only AiMapper's African
file misspells a province in both (``Eyg``, ``Eygpt``): :data:`SPELLINGS` holds that one.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

# Coast types of an .aop line -> the map's coast names.
COASTS = {"CN": "NC", "CS": "SC", "CE": "EC", "CW": "WC"}
PROVINCE_TYPES = ("SC", "NO")
# AiMapper tokens matching neither a token nor a name of their map: the map's token.
SPELLINGS = {"EYG": "EGY"}


class AopError(ValueError):
    """An .aop file does not fit its map: a bad line, an unknown or repeated location, or a
    province with no position."""


def _number(word: str, lineno: int) -> float:
    try:
        value = float(word)
    except ValueError:
        raise AopError(f"line {lineno}: {word!r} is not a pixel coordinate") from None
    if not math.isfinite(value):
        raise AopError(f"line {lineno}: {word!r} is not a pixel coordinate")
    return value


def _province(token: str, name: str, provinces: Mapping[str, Any], lineno: int) -> str:
    """The map's province a line names: by token (any case), else by long name, else by a
    known misspelling."""
    if token.upper() in provinces:
        return token.upper()
    by_name = [p for p, info in provinces.items() if str(info.get("name", "")).lower() == name]
    if len(by_name) == 1:
        return by_name[0]
    if SPELLINGS.get(token.upper()) in provinces:
        return SPELLINGS[token.upper()]
    raise AopError(f"line {lineno}: {token!r} ({name or 'no name'}) is not a province of the map")


def _location(words: list[str], provinces: Mapping[str, Any], lineno: int) -> str:
    """The location (province or ``PROV/COAST``) of one line's TOKEN, TYPE and name."""
    token, kind = words[2], words[3].upper()
    name = words[4].strip().lower() if len(words) > 4 else ""
    if kind in COASTS:
        name = name.rsplit(" (", 1)[0]
    elif kind not in PROVINCE_TYPES:
        raise AopError(f"line {lineno}: type {words[3]!r} is none of SC, NO, CN, CS, CE, CW")
    prov = _province(token, name, provinces, lineno)
    info = provinces[prov]
    if kind in COASTS:
        coast = COASTS[kind]
        if coast not in info.get("coasts", ()):
            raise AopError(f"line {lineno}: {prov} has no {coast} coast on the map")
        return f"{prov}/{coast}"
    if (kind == "SC") != bool(info["supply_centre"]):
        what = "is not" if kind == "SC" else "is"
        raise AopError(f"line {lineno}: {prov} is typed {kind} but {what} a supply centre")
    return prov


def picture_from_aop(text: str, provinces: Mapping[str, Any]) -> dict[str, list[float]]:
    """The ``picture`` field of a map's data from an .aop's text: location -> [x, y].
    ``provinces`` is the map data's (token -> ``name``, ``supply_centre``, ``coasts``).
    Raises AopError naming the line or the provinces at fault."""
    out: dict[str, list[float]] = {}
    where: dict[str, int] = {}
    for lineno, raw in enumerate(text.splitlines(), 1):
        words = raw.split(None, 4)
        if not words:
            continue
        if len(words) < 4:
            raise AopError(f"line {lineno}: expected X Y TOKEN TYPE Name, got {raw.strip()!r}")
        x, y = _number(words[0], lineno), _number(words[1], lineno)
        loc = _location(words, provinces, lineno)
        if loc in where:
            raise AopError(
                f"line {lineno}: a second position for {loc} (first on line {where[loc]})"
            )
        where[loc] = lineno
        out[loc] = [int(x) if x.is_integer() else x, int(y) if y.is_integer() else y]
    missing = sorted(p for p in provinces if p not in out)
    if missing:
        raise AopError(f"no position for province {', '.join(missing)}")
    return dict(sorted(out.items()))
