"""DAIDE and Parlance variant files turned into the engine's map data (``engine/maps/*.json``).

A variant in the DAIDE world is a set of files named after it: ``NAME.mdf`` (the MDF message:
powers, supply centres by home power, adjacencies), ``NAME.now`` and ``NAME.sco`` (the starting
NOW and SCO messages), ``NAME.rem`` (the RM's token table, ``HHHH:Name`` lines after a count)
and, from Parlance, ``NAME.cfg`` (an ini file: ``[variant]`` with ``name``, ``judge``, ``start``
and ``base``; ``[powers]`` and ``[provinces]`` with long names; ``[homes]``, ``[ownership]``,
``[positions]`` and ``[borders]``; comments naming the designer). :func:`import_variant` reads
whatever of them there is:

- the board from the MDF, else from the cfg's ``[borders]`` (Micro and Snark have nothing
  else), else from the ``base`` map the cfg names (Chaos, Fleet Rome, Shift Around, Hundred
  3.1 and 3.2 change only who starts where);
- the starting units from the NOW, else the cfg's ``[positions]``, else the base map's;
- the starting owners from the SCO, else the cfg's ``[ownership]``, else the base map's, else
  the centres the starting units stand on;
- the starting turn from the cfg's ``start`` (the designer's year), else the NOW's;
- home centres from the MDF, replaced by the cfg's ``[homes]`` where it has them;
- ``judge=chaos`` as the rule that a power builds in any centre it owns;
- long names of powers and provinces from the cfg (the tokens themselves where none is given);
- where each province lies on the map's picture from AiMapper's ``NAME.aop``, else the base
  map's (:mod:`protocol.aop`).

This module is pure: it takes the files' texts and returns the map's data; the command line
reads the files and writes the JSON.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from diplomat.engine.map import GameMap, MapError
from diplomat.engine.state import initial_state
from diplomat.protocol import messages
from diplomat.protocol.aop import AopError, picture_from_aop
from diplomat.protocol.codec import parse_text, render_text
from diplomat.protocol.mdf import (
    AdjacencyEntry,
    CentreGroup,
    MapDefinition,
    ProvinceAdjacency,
    table_for_map,
)
from diplomat.protocol.syntax import ParseError
from diplomat.protocol.tokens import COAST_NAME, STANDARD, TableError, TokenTable

UNO = "UNO"
_SEASONS = ("SPR", "WIN")
_NAME = re.compile(r"[a-z0-9_]{1,40}")
_URL = re.compile(r"^\s*#\s*(https?://\S+)\s*$", re.MULTILINE)


class VariantError(ValueError):
    """The variant files are missing something or contradict each other."""


@dataclass(frozen=True)
class VariantFiles:
    """The texts of one variant's files (None where the file is absent)."""

    name: str
    mdf: str | None = None
    now: str | None = None
    sco: str | None = None
    rem: str | None = None
    cfg: str | None = None
    aop: str | None = None


# -- the Parlance cfg --------------------------------------------------------------------------


def parse_cfg(text: str) -> dict[str, dict[str, str]]:
    """The sections of an ini-style cfg, keys upper-cased except in ``[variant]``; comment
    lines are skipped (read them with :func:`credits_of`)."""
    sections: dict[str, dict[str, str]] = {}
    current: dict[str, str] | None = None
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1].strip().lower(), {})
            continue
        key, sep, value = line.partition("=")
        if not sep or current is None:
            raise VariantError(f"cfg line {lineno}: expected KEY=VALUE in a [section]: {raw!r}")
        current[key.strip()] = value.strip()
    for name, section in sections.items():
        if name != "variant":
            sections[name] = {k.upper(): v for k, v in section.items()}
    return sections


def credits_of(cfg_text: str) -> tuple[str, str, str]:
    """From a cfg's header comments: the designer's name, the credit line as written (the
    ``Designed by`` line, else the first line after the title) and the first web address;
    empty strings where there are none."""
    comments = [
        line.strip().lstrip("#").strip()
        for line in cfg_text.splitlines()
        if line.strip().startswith("#")
    ]
    credit = next((c for c in comments if c.startswith("Designed by ")), "")
    designer = ""
    if credit:
        designer = re.split(r"\s+in \d{4}|,\s*and\s", credit.removeprefix("Designed by "))[0]
        designer = designer.rstrip(", ")
    elif len(comments) > 1 and comments[1] and not comments[1].startswith("http"):
        credit = comments[1]
    url = _URL.search(cfg_text)
    return designer, credit, url.group(1) if url else ""


def _units_of(spec: str, where: str) -> list[str]:
    """``"AMY DIJ,FLT STP SCS"`` -> ``["A DIJ", "F STP/SC"]``."""
    out: list[str] = []
    for part in spec.split(","):
        words = part.split()
        if not words:
            continue
        if words[0] not in ("AMY", "FLT") or len(words) not in (2, 3):
            raise VariantError(f"{where}: not a unit: {part.strip()!r}")
        loc = words[1].upper()
        if len(words) == 3:
            coast = COAST_NAME.get(words[2].upper())
            if coast is None:
                raise VariantError(f"{where}: unknown coast {words[2]!r}")
            loc = f"{loc}/{coast}"
        out.append(f"{words[0][0]} {loc}")
    return out


def _list(spec: str) -> list[str]:
    return [w.strip().upper() for w in spec.split(",") if w.strip()]


def _border_entries(prov: str, spec: str) -> tuple[AdjacencyEntry, ...]:
    """One ``[borders]`` line: ``AMY A B, (FLT NCS) C (D SCS), FLT E``."""
    entries: list[AdjacencyEntry] = []
    for part in spec.split(","):
        words = part.replace("(", " ( ").replace(")", " ) ").split()
        if not words:
            continue
        coast: str | None = None
        if words[0] == "(":
            if len(words) < 4 or words[1] != "FLT" or words[3] != ")":
                raise VariantError(f"borders of {prov}: bad coast entry {part.strip()!r}")
            coast = COAST_NAME.get(words[2])
            if coast is None:
                raise VariantError(f"borders of {prov}: unknown coast {words[2]!r}")
            unit, rest = "F", words[4:]
        elif words[0] in ("AMY", "FLT"):
            unit, rest = words[0][0], words[1:]
        else:
            raise VariantError(f"borders of {prov}: entry must start with AMY or FLT: {part!r}")
        dests: list[str] = []
        i = 0
        while i < len(rest):
            if rest[i] == "(":
                if i + 3 >= len(rest) or rest[i + 3] != ")":
                    raise VariantError(f"borders of {prov}: bad coast in {part.strip()!r}")
                c = COAST_NAME.get(rest[i + 2])
                if c is None:
                    raise VariantError(f"borders of {prov}: unknown coast {rest[i + 2]!r}")
                dests.append(f"{rest[i + 1]}/{c}")
                i += 4
            else:
                dests.append(rest[i])
                i += 1
        entries.append(AdjacencyEntry(unit, coast, tuple(dests)))
    return tuple(entries)


def _definition_from_cfg(cfg: dict[str, dict[str, str]]) -> MapDefinition:
    """A map definition from a cfg's ``[powers]``, ``[homes]``, ``[ownership]`` and
    ``[borders]`` (supply centres: every home and every owned centre, neutral ones included)."""
    powers = tuple(cfg.get("powers", {}))
    if not powers:
        raise VariantError("the cfg has [borders] but no [powers]")
    homes_of: dict[str, list[str]] = {}
    for power, spec in cfg.get("homes", {}).items():
        for c in _list(spec):
            homes_of.setdefault(c, []).append(power)
    for spec in cfg.get("ownership", {}).values():
        for c in _list(spec):
            homes_of.setdefault(c, [])
    groups: dict[tuple[str, ...], list[str]] = {}
    for centre, owners in homes_of.items():
        real = tuple(p for p in owners if p != UNO) or (UNO,)
        groups.setdefault(real, []).append(centre)
    borders = cfg["borders"]
    adjacencies = tuple(
        ProvinceAdjacency(prov, _border_entries(prov, spec)) for prov, spec in borders.items()
    )
    non_centres = tuple(p for p in borders if p not in homes_of)
    return MapDefinition(
        powers,
        tuple(CentreGroup(o, tuple(cs)) for o, cs in groups.items()),
        non_centres,
        adjacencies,
    )


# -- the DAIDE messages ------------------------------------------------------------------------


def table_from_rem(text: str) -> TokenTable:
    """The token table of a ``.rem`` file (a count, then ``HHHH:Name`` per power/province)."""
    records: list[tuple[int, str]] = []
    words = text.split()
    for word in words[1:] if words and ":" not in words[0] else words:
        value, sep, name = word.partition(":")
        try:
            records.append((int(value, 16), name))
        except ValueError:
            raise VariantError(f"rem: not a HHHH:Name record: {word!r}") from None
        if not sep:
            raise VariantError(f"rem: not a HHHH:Name record: {word!r}")
    try:
        return TokenTable.from_records(records)
    except TableError as exc:
        raise VariantError(f"rem: {exc}") from None


_M = TypeVar("_M", messages.Mdf, messages.Now, messages.Sco)


def _message(text: str, table: TokenTable, kind: type[_M], label: str) -> _M:
    try:
        msg = parse_text(" ".join(text.split()), table)
    except (ValueError, ParseError) as exc:
        raise VariantError(f"{label}: {exc} (does the .rem name every token?)") from None
    if not isinstance(msg, kind):
        raise VariantError(f"{label}: expected a {kind.__name__.upper()} message")
    return msg


def export_variant(gmap: GameMap) -> VariantFiles:
    """A map as DAIDE files: its MDF, starting NOW and SCO, and its RM as a ``.rem`` (what
    another DAIDE server or a test of a client needs). No cfg: names and credits stay in the
    project's JSON."""
    table = table_for_map(gmap)
    state = initial_state(gmap)
    records = table.records()
    rem = "\n".join([str(len(records)), *(f"{v:04X}:{n}" for v, n in records)]) + "\n"
    return VariantFiles(
        gmap.name,
        mdf=render_text(messages.Mdf(MapDefinition.from_map(gmap)), table) + "\n",
        now=render_text(messages.Now.from_state(state), table) + "\n",
        sco=render_text(messages.Sco.from_centres(state.centres, gmap), table) + "\n",
        rem=rem,
    )


# -- the whole variant -------------------------------------------------------------------------


def import_variant(
    files: VariantFiles, bases: Mapping[str, GameMap] | None = None
) -> dict[str, Any]:
    """The engine's map data for a variant's files (checked by building a :class:`GameMap`).
    ``bases`` holds the maps a cfg's ``base=`` may name (the bundled ones)."""
    if not _NAME.fullmatch(files.name):
        raise VariantError(f"variant name {files.name!r}: use lower-case letters, digits and _")
    cfg = parse_cfg(files.cfg) if files.cfg else {}
    variant = cfg.get("variant", {})
    table = table_from_rem(files.rem) if files.rem else STANDARD
    base = _base_of(variant.get("base"), bases)
    if base is not None and files.rem is None:
        table = table_for_map(base)
    data = _board(files, cfg, table, base)
    _powers(data, cfg, base)
    units, turn = _start_units(files, cfg, table, base, data)
    centres = _start_centres(files, cfg, table, base, data, units)
    season, year = _start_turn(variant.get("start", ""), turn)
    data["start"] = {"season": season, "year": year, "units": units, "centres": centres}
    out = _variant_json(files, variant, base, data)
    picture = _picture(files, base, data)
    if picture:
        out["picture"] = picture
    try:
        GameMap.from_dict(out)
    except MapError as exc:
        raise VariantError(f"the imported map is inconsistent: {exc}") from None
    return out


def _picture(
    files: VariantFiles, base: GameMap | None, data: dict[str, Any]
) -> dict[str, list[float]]:
    """The provinces' places on the map's picture: the ``.aop``'s, else the base map's when
    the variant is drawn on the base's board (its provinces), else none."""
    if files.aop is not None:
        try:
            return picture_from_aop(files.aop, data["provinces"])
        except AopError as exc:
            raise VariantError(f"{files.name}.aop: {exc}") from None
    if base is not None and base.picture and set(base.provinces) == set(data["provinces"]):
        return {loc: [x, y] for loc, (x, y) in base.to_dict()["picture"].items()}
    return {}


def _base_of(name: str | None, bases: Mapping[str, GameMap] | None) -> GameMap | None:
    """The map a cfg's ``base=`` names (None when it names none)."""
    if not name:
        return None
    base = (bases or {}).get(name)
    if base is None:
        raise VariantError(f"the cfg's base map {name!r} is not available")
    return base


def _board(
    files: VariantFiles, cfg: dict[str, dict[str, str]], table: TokenTable, base: GameMap | None
) -> dict[str, Any]:
    """The powers, provinces and adjacencies: from the MDF, else the cfg's borders, else the
    base map."""
    if files.mdf is not None:
        mdf = _message(files.mdf, table, messages.Mdf, f"{files.name}.mdf")
        if mdf.definition is None:
            raise VariantError(f"{files.name}.mdf: an MDF request, not a map")
        data: dict[str, Any] = mdf.definition.to_map_dict(files.name)
        return data
    if "borders" in cfg:
        return _definition_from_cfg(cfg).to_map_dict(files.name)
    if base is not None:
        return _base_data(base, files.name)
    raise VariantError("no board: give an .mdf, a cfg with [borders], or a cfg with base=")


def _powers(data: dict[str, Any], cfg: dict[str, dict[str, str]], base: GameMap | None) -> None:
    """The cfg's powers (in a derived variant), long names and home centres, into ``data``."""
    if base is not None and "powers" in cfg and set(cfg["powers"]) != set(data["powers"]):
        # A derived variant with powers of its own (Chaos): the base's are replaced.
        data["powers"] = {p: {"name": p, "adjective": p, "homes": []} for p in cfg["powers"]}
    _names(data, cfg, base)
    if "homes" in cfg:
        for power, spec in cfg["homes"].items():
            if power in data["powers"]:
                data["powers"][power]["homes"] = _list(spec)


def _start_turn(start: str, turn: tuple[str, int]) -> tuple[str, int]:
    """The cfg's ``start`` (SPR YEAR or WIN YEAR), else ``turn`` (the NOW's or the base's)."""
    if not start:
        return turn
    words = start.split()
    if len(words) != 2 or words[0].upper() not in _SEASONS:
        raise VariantError(f"cfg start={start!r}: expected SPR YEAR or WIN YEAR")
    try:
        return words[0].upper(), int(words[1])
    except ValueError:
        raise VariantError(f"cfg start={start!r}: the year is not a number") from None


def _variant_json(
    files: VariantFiles, variant: dict[str, str], base: GameMap | None, data: dict[str, Any]
) -> dict[str, Any]:
    """The map's JSON: the board and start of ``data``, with the cfg's titles, credits and
    judge rules, and the base map's name and aliases."""
    rules: dict[str, Any] = {}
    judge = variant.get("judge", "standard")
    if judge == "chaos":
        rules["builds"] = "owned"
    elif judge != "standard":
        raise VariantError(f"cfg judge={judge!r}: only standard and chaos are known")
    designer, credit, source = credits_of(files.cfg) if files.cfg else ("", "", "")
    base_name = variant.get("base")
    out: dict[str, Any] = {
        "name": files.name,
        "title": variant.get("description", files.name),
        "description": variant.get("description", ""),
        "designer": designer,
        "credit": credit,
        "source": source,
        **({"base": base_name} if base_name else {}),
        **({"rules": rules} if rules else {}),
        "powers": data["powers"],
        "provinces": data["provinces"],
        "adjacency": data["adjacency"],
        "start": data["start"],
    }
    if base is not None and "aliases" in base.to_dict():
        out["aliases"] = base.to_dict()["aliases"]
    return out


def _base_data(base: GameMap, name: str) -> dict[str, Any]:
    src = base.to_dict()
    return {
        "name": name,
        "powers": {p: dict(v) for p, v in src["powers"].items()},
        "provinces": src["provinces"],
        "adjacency": src["adjacency"],
    }


def _names(data: dict[str, Any], cfg: dict[str, dict[str, str]], base: GameMap | None) -> None:
    """Long names: the cfg's, else the base map's (same tokens), else the token."""
    known = base.to_dict() if base is not None else {"powers": {}, "provinces": {}}
    for power, info in data["powers"].items():
        spec = cfg.get("powers", {}).get(power)
        if spec:
            parts = [s.strip() for s in spec.split(",")]
            info["name"] = parts[0]
            info["adjective"] = parts[1] if len(parts) > 1 else parts[0]
        elif power in known["powers"]:
            info["name"] = known["powers"][power]["name"]
            info["adjective"] = known["powers"][power]["adjective"]
    for prov, info in data["provinces"].items():
        name = cfg.get("provinces", {}).get(prov)
        if name:
            info["name"] = name
        elif prov in known["provinces"]:
            info["name"] = known["provinces"][prov]["name"]


def _start_units(
    files: VariantFiles,
    cfg: dict[str, dict[str, str]],
    table: TokenTable,
    base: GameMap | None,
    data: dict[str, Any],
) -> tuple[dict[str, list[str]], tuple[str, int]]:
    if files.now is not None:
        now = _message(files.now, table, messages.Now, f"{files.name}.now")
        if now.turn is None:
            raise VariantError(f"{files.name}.now: a NOW request, not a position")
        units: dict[str, list[str]] = {p: [] for p in data["powers"]}
        for u in now.units:
            if not isinstance(u, messages.Unit) or u.power not in units:
                raise VariantError(f"{files.name}.now: unit {u} is not a starting unit")
            units[u.power].append(f"{u.type} {u.loc}")
        return units, (now.turn.season, now.turn.year)
    if "positions" in cfg:
        units = {p: [] for p in data["powers"]}
        for power, spec in cfg["positions"].items():
            if power not in units:
                raise VariantError(f"cfg [positions]: unknown power {power}")
            units[power] = _units_of(spec, f"cfg [positions] {power}")
        return units, ("SPR", 1901)
    if base is not None:
        return (
            {p: [f"{t} {loc}" for t, loc in us] for p, us in base.start_units.items()},
            (base.start_season, base.start_year),
        )
    raise VariantError("no starting units: give a .now or a cfg with [positions]")


def _start_centres(
    files: VariantFiles,
    cfg: dict[str, dict[str, str]],
    table: TokenTable,
    base: GameMap | None,
    data: dict[str, Any],
    units: dict[str, list[str]],
) -> dict[str, list[str]]:
    centres: dict[str, list[str]] = {p: [] for p in data["powers"]}
    if files.sco is not None:
        sco = _message(files.sco, table, messages.Sco, f"{files.name}.sco")
        for owner, cs in sco.owners:
            if owner != UNO:
                if owner not in centres:
                    raise VariantError(f"{files.name}.sco: unknown power {owner}")
                centres[owner].extend(cs)
        return centres
    if "ownership" in cfg:
        for owner, spec in cfg["ownership"].items():
            if owner != UNO:
                if owner not in centres:
                    raise VariantError(f"cfg [ownership]: unknown power {owner}")
                centres[owner] = _list(spec)
        return centres
    if base is not None and set(base.powers) == set(centres):
        return {p: list(cs) for p, cs in base.start_centres.items()}
    supply = {p for p, i in data["provinces"].items() if i["supply_centre"]}
    for power, us in units.items():
        centres[power] = [loc.split()[1].split("/")[0] for loc in us]
        centres[power] = [c for c in centres[power] if c in supply]
    return centres
