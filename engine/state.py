"""Game state as immutable values: the phase, units, dislodged units and centre owners.

A :class:`GameState` is a frozen value. Its mappings are :class:`FrozenDict` (a ``dict`` that
refuses mutation), so reads run at C speed, copies are one ``dict(...)`` call, and two states are
equal when their contents are equal. Every rule that changes a state lives elsewhere and builds a
new one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, NoReturn, TypeVar

from diplomat.engine.map import GameMap, MapError, load_map, province_of

K = TypeVar("K")
V = TypeVar("V")
T = TypeVar("T")

Season = Literal["SPR", "SUM", "FAL", "AUT", "WIN"]
PhaseKind = Literal["movement", "retreat", "adjustment"]
SEASONS: tuple[Season, ...] = ("SPR", "SUM", "FAL", "AUT", "WIN")
_SEASON_INDEX = {s: i for i, s in enumerate(SEASONS)}
_KIND: dict[str, PhaseKind] = {
    "SPR": "movement",
    "SUM": "retreat",
    "FAL": "movement",
    "AUT": "retreat",
    "WIN": "adjustment",
}
# Short names as the diplomacy package and most judges write them: S1901M, F1901R, W1901A.
_SHORT = {"SPR": "S", "SUM": "S", "FAL": "F", "AUT": "F", "WIN": "W"}
_KIND_LETTER = {"movement": "M", "retreat": "R", "adjustment": "A"}
_FROM_SHORT: dict[tuple[str, str], Season] = {
    ("S", "M"): "SPR",
    ("S", "R"): "SUM",
    ("F", "M"): "FAL",
    ("F", "R"): "AUT",
    ("W", "A"): "WIN",
}


class StateError(ValueError):
    """A state description (JSON, unit text, phase name) is malformed."""


class FrozenDict(dict[K, V]):
    """A dict that cannot change after construction, hashable by content."""

    __slots__ = ()

    def _immutable(self, *args: object, **kwargs: object) -> NoReturn:
        raise TypeError("FrozenDict is immutable")

    __setitem__ = _immutable
    __delitem__ = _immutable
    clear = _immutable
    pop = _immutable
    popitem = _immutable
    setdefault = _immutable
    update = _immutable
    __ior__ = _immutable

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(frozenset(self.items()))

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenDict, (dict(self),))

    def __copy__(self) -> FrozenDict[K, V]:
        return self

    def __deepcopy__(self, memo: object) -> FrozenDict[K, V]:
        return self

    def __repr__(self) -> str:
        return f"FrozenDict({dict.__repr__(self)})"


EMPTY: FrozenDict[Any, Any] = FrozenDict()


@dataclass(frozen=True, slots=True, order=False)
class Phase:
    season: Season
    year: int

    @property
    def kind(self) -> PhaseKind:
        return _KIND[self.season]

    @property
    def name(self) -> str:
        """Short name: ``S1901M``, ``S1901R``, ``F1901M``, ``F1901R``, ``W1901A``."""
        return f"{_SHORT[self.season]}{self.year}{_KIND_LETTER[self.kind]}"

    @property
    def index(self) -> int:
        """A number that increases with every phase of the game."""
        return self.year * 5 + _SEASON_INDEX[self.season]

    def next(self) -> Phase:
        # Phases are values and every processed phase asks for one or two: kept, not rebuilt.
        key = (self.season, self.year)
        following = _NEXT.get(key)
        if following is None:
            i = _SEASON_INDEX[self.season]
            following = Phase("SPR", self.year + 1) if i == 4 else Phase(SEASONS[i + 1], self.year)
            if len(_NEXT) > 10_000:
                _NEXT.clear()
            _NEXT[key] = following
        return following

    def __lt__(self, other: Phase) -> bool:
        return self.index < other.index

    def __str__(self) -> str:
        return f"{self.season} {self.year}"

    @classmethod
    def parse(cls, text: str) -> Phase:
        """Read ``S1901M`` / ``W1901A`` or DAIDE's ``SPR 1901``."""
        t = text.strip().upper()
        parts = t.split()
        if len(parts) == 2 and parts[0] in _SEASON_INDEX and parts[1].lstrip("-").isdigit():
            return cls(parts[0], int(parts[1]))
        if len(t) >= 3 and t[1:-1].isdigit() and (t[0], t[-1]) in _FROM_SHORT:
            return cls(_FROM_SHORT[(t[0], t[-1])], int(t[1:-1]))
        raise StateError(f"not a phase: {text!r} (expected e.g. S1901M or 'SPR 1901')")


_NEXT: dict[tuple[str, int], Phase] = {}  # (season, year) -> the phase after it


def _same_kind(self: tuple[object, ...], other: object) -> bool:
    return type(self) is type(other) and tuple.__eq__(self, other)


def _other_kind(self: tuple[object, ...], other: object) -> bool:
    return type(self) is not type(other) or tuple.__ne__(self, other)


def equal_by_kind(kind: type[T]) -> type[T]:
    """Make the named-tuple class ``kind`` equal only to values of its own class with equal
    fields (a plain tuple's ``==`` would make a hold equal to a removal of the same unit);
    equal values hash as their tuples do, in C. A NamedTuple's body cannot assign these
    methods, so every such value type (the orders of ``engine.orders``) is passed through
    this one function."""
    kind.__eq__ = _same_kind  # type: ignore[assignment,method-assign]
    kind.__ne__ = _other_kind  # type: ignore[assignment,method-assign]
    kind.__hash__ = tuple.__hash__  # type: ignore[assignment,method-assign]
    return kind


class Unit:
    """A unit: its power, type (``"A"`` army or ``"F"`` fleet) and location.

    An immutable value, equal only to another unit with equal fields. Its fields are slots:
    adjudication reads hundreds of them per phase, and a slot reads in half the time of a
    named tuple's field. Units are hashed as parts of every order a search looks up, so the
    hash is computed once, when the unit is built, and read without running Python code:
    ``__hash__`` is a slot holding the bound C method ``int.__index__`` of the hash, which
    ``hash()`` finds through the slot and calls."""

    __slots__ = ("__hash__", "loc", "power", "type")

    power: str
    type: str
    loc: str

    def __init__(self, power: str, type: str, loc: str) -> None:
        _SET_POWER(self, power)
        _SET_TYPE(self, type)
        _SET_LOC(self, loc)
        _SET_HASH(self, hash((power, type, loc)).__index__)

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise AttributeError(f"a unit does not change: cannot set {name}")

    def __delattr__(self, name: str) -> NoReturn:
        raise AttributeError(f"a unit does not change: cannot delete {name}")

    def __eq__(self, other: object) -> bool:
        return self is other or (
            type(other) is Unit
            and self.loc == other.loc
            and self.power == other.power
            and self.type == other.type
        )

    def __reduce__(self) -> tuple[Any, ...]:
        # Rebuilt from its fields: a string's hash differs from one process to another.
        return (Unit, (self.power, self.type, self.loc))

    def __repr__(self) -> str:
        return f"Unit(power={self.power!r}, type={self.type!r}, loc={self.loc!r})"

    @property
    def province(self) -> str:
        return province_of(self.loc)

    def __str__(self) -> str:
        return f"{self.type} {self.loc}"

    def describe(self) -> str:
        return f"{self.power} {self.type} {self.loc}"


# A unit's slots are set while it is built (its own __setattr__ refuses) through the slots'
# own descriptors: a third faster than object.__setattr__, which looks each one up first, and
# units are built for every order parsed.
_SET_POWER = Unit.__dict__["power"].__set__
_SET_TYPE = Unit.__dict__["type"].__set__
_SET_LOC = Unit.__dict__["loc"].__set__
_SET_HASH = Unit.__dict__["__hash__"].__set__


@dataclass(frozen=True, slots=True)
class Dislodged:
    """A unit dislodged in the last movement phase, with where it may retreat."""

    unit: Unit
    attacker_from: str | None  # province the dislodger came from; None if it came by convoy
    retreats: tuple[str, ...]  # locations it may retreat to


@dataclass(frozen=True, slots=True)
class GameState:
    map: GameMap = field(compare=False, hash=False, repr=False)
    phase: Phase
    units: FrozenDict[str, Unit]  # province -> unit
    centres: FrozenDict[str, str]  # supply-centre province -> owning power
    dislodged: FrozenDict[str, Dislodged] = EMPTY  # province dislodged from -> unit

    @property
    def map_name(self) -> str:
        return self.map.name

    def units_of(self, power: str) -> list[Unit]:
        return [u for u in self.units.values() if u.power == power]

    def centre_counts(self) -> dict[str, int]:
        counts = dict.fromkeys(self.map.powers, 0)
        for owner in self.centres.values():
            counts[owner] = counts.get(owner, 0) + 1
        return counts

    def unit_counts(self) -> dict[str, int]:
        counts = dict.fromkeys(self.map.powers, 0)
        for u in self.units.values():
            counts[u.power] = counts.get(u.power, 0) + 1
        return counts

    def adjustments(self) -> dict[str, int]:
        """Per power, centres minus units: > 0 builds allowed, < 0 removals required."""
        counts = dict.fromkeys(self.map.powers, 0)
        for owner in self.centres.values():
            counts[owner] += 1
        for u in self.units.values():
            counts[u.power] -= 1
        return counts

    def alive(self) -> list[str]:
        """Powers that still have a unit or a centre."""
        centres = self.centre_counts()
        units = self.unit_counts()
        return [p for p in self.map.powers if centres[p] or units[p]]

    def winner(self) -> str | None:
        """The power holding the map's victory count of centres (more than half, unless the
        variant says otherwise), if any."""
        need = self.map.victory_centres
        for power, n in self.centre_counts().items():
            if n >= need:
                return power
        return None

    def replace(
        self,
        *,
        phase: Phase | None = None,
        units: FrozenDict[str, Unit] | None = None,
        centres: FrozenDict[str, str] | None = None,
        dislodged: FrozenDict[str, Dislodged] | None = None,
    ) -> GameState:
        """A copy with some fields changed (the others are shared: they are immutable)."""
        return GameState(
            self.map,
            self.phase if phase is None else phase,
            self.units if units is None else units,
            self.centres if centres is None else centres,
            self.dislodged if dislodged is None else dislodged,
        )

    # -- serialisation ---------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        units: dict[str, list[str]] = {p: [] for p in self.map.powers}
        for u in self.units.values():
            units.setdefault(u.power, []).append(str(u))
        centres: dict[str, list[str]] = {p: [] for p in self.map.powers}
        for prov, owner in self.centres.items():
            centres.setdefault(owner, []).append(prov)
        for lst in (*units.values(), *centres.values()):
            lst.sort()
        return {
            "map": self.map.name,
            "phase": self.phase.name,
            "units": units,
            "centres": centres,
            "dislodged": [
                {
                    "unit": d.unit.describe(),
                    "from": d.attacker_from,
                    "retreats": list(d.retreats),
                }
                for d in self.dislodged.values()
            ],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any], gmap: GameMap | None = None) -> GameState:
        try:
            if gmap is None:
                gmap = load_map(data["map"])
            phase = Phase.parse(data["phase"])
            units: list[Unit] = []
            for power, texts in data["units"].items():
                units.extend(parse_unit(f"{power} {t}", gmap) for t in texts)
            centres = {c: p for p, cs in data["centres"].items() for c in cs}
            dislodged = {}
            for d in data.get("dislodged", ()):
                u = parse_unit(d["unit"], gmap)
                dislodged[u.province] = Dislodged(u, d.get("from"), tuple(d["retreats"]))
        except (KeyError, TypeError, AttributeError) as exc:
            raise StateError(f"malformed state JSON: {exc!r}") from None
        except MapError as exc:
            raise StateError(str(exc)) from None
        return make_state(gmap, phase, units, centres, dislodged.values())


def parse_unit(text: str, gmap: GameMap) -> Unit:
    """Read ``"ENG F STP/SC"`` into a unit, checking it against the map."""
    parts = text.split()
    if len(parts) != 3:
        raise StateError(f"not a unit: {text!r} (expected e.g. 'ENG F LON')")
    power, utype, loc = parts[0].upper(), parts[1].upper(), parts[2].upper()
    if power not in gmap.power_info:
        raise StateError(f"unit {text!r}: unknown power {power}")
    if utype not in ("A", "F"):
        raise StateError(f"unit {text!r}: unit type must be A or F")
    if not gmap.can_stand(utype, loc):
        raise StateError(f"unit {text!r}: a {utype} cannot stand at {loc}")
    return Unit(power, utype, loc)


def make_state(
    gmap: GameMap,
    phase: Phase,
    units: Iterable[Unit],
    centres: Mapping[str, str],
    dislodged: Iterable[Dislodged] = (),
) -> GameState:
    """Build a state, checking it: one unit per province, units where their type may stand,
    centres that exist and powers that exist."""
    by_prov: dict[str, Unit] = {}
    for u in units:
        if not gmap.can_stand(u.type, u.loc):
            raise StateError(f"a {u.type} cannot stand at {u.loc}")
        if u.power not in gmap.power_info:
            raise StateError(f"unknown power {u.power}")
        if u.province in by_prov:
            raise StateError(f"two units in {u.province}")
        by_prov[u.province] = u
    for c, p in centres.items():
        if c not in gmap.supply_centres:
            raise StateError(f"{c} is not a supply centre")
        if p not in gmap.power_info:
            raise StateError(f"unknown power {p}")
    disl = {}
    for d in dislodged:
        if d.unit.province in disl:
            raise StateError(f"two dislodged units in {d.unit.province}")
        if not gmap.can_stand(d.unit.type, d.unit.loc):
            raise StateError(f"a {d.unit.type} cannot stand at {d.unit.loc}")
        adj = gmap.army_adj if d.unit.type == "A" else gmap.fleet_adj
        for r in d.retreats:
            if r not in adj.get(d.unit.loc, ()):
                raise StateError(f"{d.unit}: cannot retreat to {r}")
            if province_of(r) in by_prov:
                raise StateError(f"{d.unit}: retreat to {r}, which is occupied")
        disl[d.unit.province] = d
    return GameState(gmap, phase, FrozenDict(by_prov), FrozenDict(centres), FrozenDict(disl))


def initial_state(gmap: GameMap) -> GameState:
    """The map's starting position (its first phase: Spring, or Winter for a variant that
    opens with builds, as Chaos does)."""
    units = [Unit(p, t, loc) for p, us in gmap.start_units.items() for t, loc in us]
    centres = {c: p for p, cs in gmap.start_centres.items() for c in cs}
    return make_state(gmap, Phase(gmap.start_season, gmap.start_year), units, centres)
