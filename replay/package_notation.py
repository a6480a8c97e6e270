"""The ``diplomacy`` Python package's notation, both ways: engine values to the package's
strings and back.

- Powers are English names in capitals (``FRANCE``); ours are the map's tokens (``FRA``).
- Locations are DAIDE tokens except the package's three aliases ``ENG``, ``BOT``, ``LYO`` (our
  ``ECH``, ``GOB``, ``GOL``) where the map has them; coasts as ``STP/SC``.
- Units ``A PAR``, ``F STP/SC``; a dislodged unit in a saved state has a leading ``*``.
- Orders ``A PAR H``, ``A PAR - BUR``, ``A YOR - NWY VIA``, ``A BUR S A PAR`` (a support to
  hold has no ``H``), ``A BUR S A PAR - MAR``, ``F NTH C A LON - NWY``, ``F TRI R ALB``,
  ``A PAR D`` (a disband in retreats, a removal in adjustments), ``A KIE B``, ``WAIVE``.
- Phases ``S1901M``, ``F1901R``, ``W1901A`` (:attr:`engine.state.Phase.name`), and
  ``COMPLETED`` for a finished game.

The reading direction is the one ``diplomat replay`` uses on saved games; the writing
direction is what ``diplomat show --format diplomacy`` and the package's network protocol
(``dipnet``) write. Every function takes the game's map: no default.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from diplomat.engine.map import GameMap, province_of
from diplomat.engine.notation import NotationError, parse_location, parse_order
from diplomat.engine.orders import (
    NOTE_TEXT,
    Build,
    Convoy,
    Disband,
    Hold,
    Move,
    Note,
    Order,
    Remove,
    Retreat,
    SupportHold,
    SupportMove,
    Waive,
)
from diplomat.engine.orderset import OrderSet
from diplomat.engine.state import Dislodged, GameState, Phase, StateError, Unit, make_state

COMPLETED = "COMPLETED"
# The package's own spellings of three standard-map sea provinces (its map calls them so).
PACKAGE_ALIASES = ("ENG", "BOT", "LYO")


class PackageFormatError(ValueError):
    """Text or a structure that is not the package's notation (or not of this map)."""


# -- powers ---------------------------------------------------------------------------------


def power_tokens(gmap: GameMap) -> dict[str, str]:
    """The package's power names (and our tokens) -> our power tokens."""
    names = {info.name.upper(): p for p, info in gmap.power_info.items()}
    names.update({p: p for p in gmap.powers})
    return names


def power_token(powers: Mapping[str, str], name: object, where: str) -> str:
    """Our token for the package's power ``name``; ``where`` starts the error's message."""
    if not isinstance(name, str) or name.upper() not in powers:
        raise PackageFormatError(f"{where}: unknown power {name!r}")
    return powers[name.upper()]


def power_name(gmap: GameMap, power: str) -> str:
    """``FRA`` -> ``FRANCE``: the power as the package names it."""
    return gmap.power_info[power].name.upper()


# -- locations, units, phases ----------------------------------------------------------------


def location_text(gmap: GameMap, loc: str) -> str:
    """``ECH`` -> ``ENG``, ``STP/SC`` -> ``STP/SC``: a location as the package writes it."""
    prov, slash, coast = loc.partition("/")
    for alias in PACKAGE_ALIASES:
        if gmap.aliases.get(alias) == prov:
            prov = alias
            break
    return f"{prov}{slash}{coast}"


def read_location(gmap: GameMap, text: str) -> str:
    """The package's location -> ours (``ENG`` -> ``ECH``)."""
    try:
        return parse_location(gmap, text)
    except NotationError as exc:
        raise PackageFormatError(str(exc)) from None


def unit_text(gmap: GameMap, unit: Unit) -> str:
    """``A PAR``, ``F STP/SC``, ``F ENG``."""
    return f"{unit.type} {location_text(gmap, unit.loc)}"


def read_unit(
    gmap: GameMap, power: str, text: object, spelling: dict[str, str] | None = None
) -> tuple[Unit, bool]:
    """``A PAR`` or ``*F BRE`` (dislodged) of ``power`` -> (the unit, whether dislodged).
    ``spelling``, if given, records how the text spelled the unit's location."""
    if not isinstance(text, str):
        raise PackageFormatError(f"not a unit: {text!r}")
    t = text.strip()
    is_dislodged = t.startswith("*")
    parts = t.lstrip("*").split()
    if len(parts) != 2 or parts[0].upper() not in ("A", "F"):
        raise PackageFormatError(f"not a unit: {text!r} (expected e.g. 'A PAR' or '*F BRE')")
    utype = parts[0].upper()
    loc = read_location(gmap, parts[1])
    if utype == "A":
        loc = province_of(loc)
    if not gmap.can_stand(utype, loc):
        raise PackageFormatError(f"unit {text!r}: a {utype} cannot stand at {loc}")
    if spelling is not None:
        spelling[loc] = parts[1].upper()
    return Unit(power, utype, loc), is_dislodged


def phase_text(phase: Phase | None) -> str:
    """``S1901M``; ``COMPLETED`` for None (a finished game)."""
    return COMPLETED if phase is None else phase.name


def read_phase(text: str) -> Phase | None:
    """``S1901M`` -> the phase; ``COMPLETED`` -> None."""
    if text == COMPLETED:
        return None
    try:
        return Phase.parse(text)
    except StateError:
        raise PackageFormatError(f"not a phase name: {text!r} (expected e.g. S1901M)") from None


# -- orders ---------------------------------------------------------------------------------


def order_text(gmap: GameMap, order: Order) -> str:
    """An engine order in the package's notation."""
    if isinstance(order, Waive):
        return "WAIVE"
    unit = unit_text(gmap, order.unit)
    if isinstance(order, Hold):
        return f"{unit} H"
    if isinstance(order, Move):
        via = " VIA" if order.convoy else ""
        return f"{unit} - {location_text(gmap, order.dest)}{via}"
    if isinstance(order, SupportHold):
        return f"{unit} S {unit_text(gmap, order.target)}"
    if isinstance(order, (SupportMove, Convoy)):
        verb = "S" if isinstance(order, SupportMove) else "C"
        target = unit_text(gmap, order.target)
        return f"{unit} {verb} {target} - {location_text(gmap, order.dest)}"
    if isinstance(order, Retreat):
        return f"{unit} R {location_text(gmap, order.dest)}"
    if isinstance(order, Build):
        return f"{unit} B"
    if isinstance(order, (Disband, Remove)):
        return f"{unit} D"
    raise TypeError(f"not an order: {order!r}")


def read_order(state: GameState, power: str, text: str) -> Order:
    """One order of ``power`` in ``state``'s phase, as the package writes it. The board fills
    in the power and type of supported and convoyed units (in a retreat phase, the dislodged
    units)."""
    try:
        return parse_order(state.map, text, power, state.phase.kind, _board(state))
    except NotationError as exc:
        raise PackageFormatError(f"{text!r}: {exc}") from None


def _board(state: GameState) -> Mapping[str, Unit]:
    # In a retreat phase an order names the dislodged unit, which may share its province with
    # the unit that dislodged it.
    if state.phase.kind == "retreat":
        return {p: d.unit for p, d in state.dislodged.items()}
    return state.units


def read_orders(state: GameState, texts: Mapping[str, Iterable[str]]) -> tuple[OrderSet, list[str]]:
    """Parse and submit a phase's orders (our power token -> the package's order texts).
    Returns the order set and, for each order that is not accepted, its text with the reason
    (unreadable text, or the DAIDE note)."""
    board = _board(state)
    book = OrderSet(state)
    refused: list[str] = []
    for power, batch in texts.items():
        for text in batch:
            try:
                order = parse_order(state.map, text, power, state.phase.kind, board)
            except NotationError as exc:
                refused.append(f"{power} {text!r} (unreadable: {exc})")
                continue
            checked = book.submit(power, order)
            if checked.note is not Note.MBV:
                note = checked.note
                refused.append(f"{power} {text!r} ({note.value}: {NOTE_TEXT[note]})")
    return book, refused


# -- positions --------------------------------------------------------------------------------


def state_dict(state: GameState, phase_name: str | None = None) -> dict[str, Any]:
    """A position as the package's ``Game.get_state()`` holds it (per power: ``units`` with
    dislodged ones starred, ``retreats``, ``centers``, ``homes``, ``influence``,
    ``civil_disorder``, ``builds``). ``phase_name`` overrides the name (``COMPLETED``)."""
    gmap = state.map
    names = {p: power_name(gmap, p) for p in gmap.powers}
    units: dict[str, list[str]] = {n: [] for n in names.values()}
    retreats: dict[str, dict[str, list[str]]] = {n: {} for n in names.values()}
    for u in sorted(state.units.values(), key=lambda u: u.loc):
        units[names[u.power]].append(unit_text(gmap, u))
    for d in sorted(state.dislodged.values(), key=lambda d: d.unit.loc):
        text = unit_text(gmap, d.unit)
        units[names[d.unit.power]].append(f"*{text}")
        retreats[names[d.unit.power]][text] = [location_text(gmap, r) for r in d.retreats]
    centers: dict[str, list[str]] = {n: [] for n in names.values()}
    for prov, owner in sorted(state.centres.items()):
        centers[names[owner]].append(location_text(gmap, prov))
    needs = state.adjustments() if state.phase.kind == "adjustment" else {}
    builds = {
        names[p]: {"count": needs.get(p, 0), "homes": _build_sites(state, p, needs.get(p, 0))}
        for p in gmap.powers
    }
    return {
        "name": phase_name or state.phase.name,
        "units": units,
        "retreats": retreats,
        "centers": centers,
        "homes": {names[p]: [location_text(gmap, h) for h in gmap.homes[p]] for p in gmap.powers},
        # Influence: where a power's units stand and the centres it owns (the package keeps
        # the last owner of each province; owned centres and occupied provinces are that).
        "influence": _influence(state, names),
        "civil_disorder": {n: 0 for n in names.values()},
        "builds": builds,
    }


def _build_sites(state: GameState, power: str, count: int) -> list[str]:
    if count <= 0:
        return []
    gmap = state.map
    return [
        location_text(gmap, h)
        for h in gmap.homes[power]
        if state.centres.get(h) == power and h not in state.units
    ]


def _influence(state: GameState, names: Mapping[str, str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {n: [] for n in names.values()}
    seen: set[str] = set()
    for u in sorted(state.units.values(), key=lambda u: u.loc):
        out[names[u.power]].append(location_text(state.map, u.province))
        seen.add(u.province)
    for prov, owner in sorted(state.centres.items()):
        if prov not in seen:
            out[names[owner]].append(location_text(state.map, prov))
    return out


def read_state(
    gmap: GameMap,
    powers: Mapping[str, str],
    name: str,
    raw: Mapping[str, Any],
    spelling: dict[str, str],
) -> tuple[GameState | None, str | None]:
    """A position as the package saves it (``units``, ``retreats``, ``centers``, ``homes``)
    -> (our state, None), or (None, why) for a position the package allowed but that cannot
    exist here (two units in one province). Raises :class:`PackageFormatError` or
    ``ValueError`` for one that is not the package's notation."""
    raw_units = raw.get("units")
    if not isinstance(raw_units, dict):
        raise PackageFormatError("no 'units' object")
    units: list[Unit] = []
    dislodged_units: list[Unit] = []
    for pname, texts in raw_units.items():
        power = power_token(powers, pname, "units")
        for text in texts or ():
            unit, is_dislodged = read_unit(gmap, power, text, spelling)
            (dislodged_units if is_dislodged else units).append(unit)
    retreats = _read_retreats(gmap, powers, raw.get("retreats") or {}, spelling)
    centres: dict[str, str] = {}
    for pname, provs in (raw.get("centers") or {}).items():
        power = power_token(powers, pname, "centers")
        for text in provs or ():
            prov = read_location(gmap, text)
            if prov in centres and centres[prov] != power:
                raise PackageFormatError(f"centre {text} owned by two powers")
            centres[prov] = power
    _check_homes(gmap, powers, raw.get("homes"))
    # The package may list occupied locations (6.G.10) but refuses a retreat to them; this
    # engine trusts a state's retreat list, so occupied ones are dropped here.
    occupied = {u.province for u in units}
    dislodged = [
        Dislodged(
            u,
            None,
            tuple(
                sorted(
                    r
                    for r in retreats.get((u.power, u.province), ())
                    if province_of(r) not in occupied
                )
            ),
        )
        for u in dislodged_units
    ]
    phase = Phase("SPR", gmap.start_year) if name == COMPLETED else Phase.parse(name)
    try:
        state = make_state(gmap, phase, units, centres, dislodged)
    except StateError as exc:
        # The package can stack two units in a province (a retreat it allowed into an
        # occupied one); such a position cannot be replayed but the rest of the game can.
        return None, str(exc)
    return state, None


def _read_retreats(
    gmap: GameMap, powers: Mapping[str, str], raw: Mapping[str, Any], spelling: dict[str, str]
) -> dict[tuple[str, str], tuple[str, ...]]:
    retreats: dict[tuple[str, str], tuple[str, ...]] = {}
    for pname, table in raw.items():
        power = power_token(powers, pname, "retreats")
        for text, options in (table or {}).items():
            unit, _ = read_unit(gmap, power, text, spelling)
            locs = tuple(read_location(gmap, o) for o in options)
            adj = gmap.army_adj if unit.type == "A" else gmap.fleet_adj
            for loc in locs:
                if loc not in adj[unit.loc]:
                    raise PackageFormatError(f"{text} cannot retreat to {loc}")
            retreats[(power, unit.province)] = locs
    return retreats


def _check_homes(gmap: GameMap, powers: Mapping[str, str], homes: object) -> None:
    if not isinstance(homes, dict):
        return
    for pname, provs in homes.items():
        power = power_token(powers, pname, "homes")
        got = {read_location(gmap, h) for h in provs or ()}
        # A power eliminated from the game is saved with no homes.
        if got and got != set(gmap.homes[power]):
            raise PackageFormatError(f"home centres of {pname} are not the {gmap.name} map's")
