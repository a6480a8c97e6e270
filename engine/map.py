"""A Diplomacy map as data: provinces, coasts, supply centres, homes and adjacencies.

A map is read from a JSON file under ``engine/maps/`` (``standard.json`` is the standard
board). Loading it precomputes everything adjudication asks for repeatedly (adjacency sets per
unit type and location, which coasts a fleet may reach in a province, distances for civil
disorder), so the rules code never walks raw data.

Locations are strings: a province token (``"PAR"``) or, for a fleet on a split coast, the
province and the coast joined by a slash (``"STP/NC"``). Provinces and powers use the DAIDE
tokens of the map.
"""

from __future__ import annotations

import json
import math
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

from diplomat.engine.memo import MapMemo

MAPS_DIR = Path(__file__).parent / "maps"

ProvinceType = Literal["land", "sea", "coast"]
UnitType = Literal["A", "F"]
COAST_NAMES = ("NC", "NE", "EC", "SE", "SC", "SW", "WC", "NW")
BuildRule = Literal["homes", "owned"]
StartSeason = Literal["SPR", "WIN"]  # a game opens with moves, or with builds (Chaos)
BUILD_RULES: tuple[BuildRule, ...] = ("homes", "owned")


class MapError(ValueError):
    """A map file is malformed or inconsistent."""


@dataclass(frozen=True, slots=True)
class Province:
    token: str
    name: str
    type: ProvinceType
    supply_centre: bool
    coasts: tuple[str, ...]  # coast names ("NC", "SC") for a split-coast province, else ()


def province_of(loc: str) -> str:
    """The province part of a location (``"STP/NC"`` -> ``"STP"``)."""
    slash = loc.find("/")
    return loc if slash < 0 else loc[:slash]


def coast_of(loc: str) -> str | None:
    slash = loc.find("/")
    return None if slash < 0 else loc[slash + 1 :]


@dataclass(frozen=True, slots=True)
class PowerInfo:
    token: str
    name: str
    adjective: str
    homes: tuple[str, ...]


def _mask(bits: dict[str, int], members: Iterable[str]) -> int:
    mask = 0
    for m in members:
        mask |= bits.get(m, 0)
    return mask


class Distances(dict[frozenset[str], Mapping[str, int]]):
    """The per-map memo of :meth:`GameMap.distances_to` by target provinces
    (``engine.memo``)."""

    __slots__ = ()


# Distance tables kept per map before the memo is emptied (a few kilobytes each).
_DISTANCES_LIMIT = 4096


class GameMap:
    """An immutable map with precomputed adjacency. Build with :func:`load_map` or
    :meth:`from_dict`."""

    def __init__(self, data: dict[str, Any]) -> None:
        try:
            self._build(data)
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, MapError):
                raise
            raise MapError(f"malformed map data: {exc!r}") from exc
        self._data = data

    def _build(self, data: dict[str, Any]) -> None:
        self._read_powers(data)
        self._read_provinces(data)
        self._read_homes()
        self._read_rules(data)
        self._unit_locations()
        self._read_adjacency(data["adjacency"])
        self._reach_tables()
        self._province_graph_tables()
        self._sea_graph()
        self._read_start(data.get("start", {}))
        self._read_names(data)
        # What the rules code caches for this map (engine.memo: why the map holds it).
        self.memo = MapMemo()

    def _read_powers(self, data: dict[str, Any]) -> None:
        self.name: str = data["name"]
        self.title: str = data.get("title", self.name)
        self.powers: tuple[str, ...] = tuple(data["powers"])
        self.power_info: dict[str, PowerInfo] = {
            p: PowerInfo(p, v["name"], v.get("adjective", v["name"]), tuple(v["homes"]))
            for p, v in data["powers"].items()
        }

    def _read_provinces(self, data: dict[str, Any]) -> None:
        self.provinces: dict[str, Province] = {}
        for tok, v in data["provinces"].items():
            ptype = v["type"]
            if ptype not in ("land", "sea", "coast"):
                raise MapError(f"province {tok}: unknown type {ptype!r}")
            coasts = tuple(v.get("coasts", ()))
            for c in coasts:
                if c not in COAST_NAMES:
                    raise MapError(f"province {tok}: unknown coast {c!r}")
            self.provinces[tok] = Province(tok, v["name"], ptype, bool(v["supply_centre"]), coasts)
        self.supply_centres: frozenset[str] = frozenset(
            p for p, info in self.provinces.items() if info.supply_centre
        )

    def _read_homes(self) -> None:
        self.homes: dict[str, tuple[str, ...]] = {p: i.homes for p, i in self.power_info.items()}
        # Every power a centre is home to (variants share homes: Hundred's are home to all).
        self.homes_of: dict[str, tuple[str, ...]] = {}
        for power, homes in self.homes.items():
            for h in homes:
                if h not in self.supply_centres:
                    raise MapError(f"home centre {h} of {power} is not a supply centre")
                self.homes_of[h] = (*self.homes_of.get(h, ()), power)
        # The one power a centre is home to, for centres that are home to exactly one.
        self.home_of: dict[str, str] = {h: ps[0] for h, ps in self.homes_of.items() if len(ps) == 1}

    def _read_rules(self, data: dict[str, Any]) -> None:
        """The rule options a variant sets: where a power builds (``"homes"``, the standard
        rule, or ``"owned"``: any supply centre it owns, as Chaos plays) and how many centres
        win (default: more than half)."""
        rules = data.get("rules", {})
        builds = rules.get("builds", "homes")
        if builds not in BUILD_RULES:
            raise MapError(f"rules.builds must be one of {', '.join(BUILD_RULES)}, not {builds!r}")
        self.build_rule: BuildRule = builds
        everywhere = tuple(sorted(self.supply_centres))
        # Per power, the centres it may build in (when it owns them and they are vacant).
        self.build_centres: dict[str, tuple[str, ...]] = {
            p: everywhere if builds == "owned" else homes for p, homes in self.homes.items()
        }
        n = len(self.supply_centres)
        self.victory_centres: int = int(rules.get("victory_centres", n // 2 + 1))
        if not 1 <= self.victory_centres <= n:
            raise MapError(f"rules.victory_centres must be 1..{n}, not {self.victory_centres}")

    def _unit_locations(self) -> None:
        """Where each unit type may stand, and which province each location is in."""
        self.army_locations: frozenset[str] = frozenset(
            p for p, i in self.provinces.items() if i.type != "sea"
        )
        # Every location a province offers fleets: ("STP/NC", "STP/SC") or ("BRE",).
        self.fleet_coasts: dict[str, tuple[str, ...]] = {
            p: (tuple(f"{p}/{c}" for c in i.coasts) if i.coasts else (p,))
            for p, i in self.provinces.items()
            if i.type != "land"
        }
        self.fleet_locations: frozenset[str] = frozenset(
            loc for locs in self.fleet_coasts.values() for loc in locs
        )
        self.locations: tuple[str, ...] = tuple(sorted(self.army_locations | self.fleet_locations))
        # Location -> province, for hot paths (a dict lookup beats parsing the string).
        self.province_at: dict[str, str] = {p: p for p in self.provinces}
        self.province_at.update({loc: province_of(loc) for loc in self.locations})

    def _read_adjacency(self, adj: dict[str, dict[str, list[str]]]) -> None:
        self.army_adj = self._adjacency_of(adj["A"], self.army_locations, "army")
        self.fleet_adj = self._adjacency_of(adj["F"], self.fleet_locations, "fleet")
        self._check_symmetry()

    def _adjacency_of(
        self, table: dict[str, list[str]], allowed: frozenset[str], kind: str
    ) -> dict[str, frozenset[str]]:
        out: dict[str, frozenset[str]] = {}
        for src, dests in table.items():
            self._check_loc(src, allowed, f"{kind} adjacency")
            for d in dests:
                self._check_loc(d, allowed, f"{kind} adjacency of {src}")
            out[src] = frozenset(dests)
        for loc in allowed:
            out.setdefault(loc, frozenset())
        return out

    def _reach_tables(self) -> None:
        """Per unit type and location: the provinces it may move to (supports name provinces,
        so a fleet's coasts are dropped) and the locations it may move to (coasts kept). The
        sorted forms are for code that iterates: sets iterate in an order that changes with
        the process's string hashing, which would make seeded games differ."""
        self.fleet_adj_provinces: dict[str, frozenset[str]] = {
            loc: frozenset(province_of(d) for d in dests) for loc, dests in self.fleet_adj.items()
        }
        self._reach: dict[tuple[str, str], frozenset[str]] = {}
        self._moves: dict[tuple[str, str], tuple[str, ...]] = {}
        self._reach_sorted: dict[tuple[str, str], tuple[str, ...]] = {}
        for loc, dests in self.army_adj.items():
            self._reach[("A", loc)] = dests
            self._moves[("A", loc)] = self._reach_sorted[("A", loc)] = tuple(sorted(dests))
        for loc, dests in self.fleet_adj.items():
            provs = self.fleet_adj_provinces[loc]
            self._reach[("F", loc)] = provs
            self._moves[("F", loc)] = tuple(sorted(dests))
            self._reach_sorted[("F", loc)] = tuple(sorted(provs))

    def _province_graph_tables(self) -> None:
        """Provinces next to each other for either unit type (civil-disorder distances), and
        the seas touching each province, sorted (where convoys start and end)."""
        graph: dict[str, set[str]] = {p: set() for p in self.provinces}
        for src, dests in self.army_adj.items():
            graph[src].update(dests)
        for src, dests in self.fleet_adj.items():
            graph[province_of(src)].update(province_of(d) for d in dests)
        self.neighbours: dict[str, frozenset[str]] = {p: frozenset(n) for p, n in graph.items()}
        self.seas_near: dict[str, tuple[str, ...]] = {
            p: tuple(sorted(n for n in ns if self.provinces[n].type == "sea"))
            for p, ns in self.neighbours.items()
        }

    def _sea_graph(self) -> None:
        """The convoy graph as bit masks: bit i stands for the i-th sea in alphabetical order,
        so a set of fleet-held seas is one int and "which of these seas touch that one" is
        one ``&`` (``engine.convoy`` searches routes over these)."""
        self.seas: tuple[str, ...] = tuple(
            sorted(p for p, i in self.provinces.items() if i.type == "sea")
        )
        self.sea_bit: dict[str, int] = {s: 1 << i for i, s in enumerate(self.seas)}
        self.sea_mask_adj: tuple[int, ...] = tuple(
            _mask(self.sea_bit, self.fleet_adj_provinces[s]) for s in self.seas
        )
        # Coastal provinces (where convoys land) also get a bit each.
        self.shores: tuple[str, ...] = tuple(
            sorted(p for p, i in self.provinces.items() if i.type == "coast")
        )
        self.shore_bit: dict[str, int] = {p: 1 << i for i, p in enumerate(self.shores)}
        self.sea_mask_shores: tuple[int, ...] = tuple(
            _mask(self.shore_bit, self.fleet_adj_provinces[s]) for s in self.seas
        )
        self.seas_mask_near: dict[str, int] = {
            p: _mask(self.sea_bit, self.seas_near[p]) for p in self.provinces
        }

    def _read_start(self, start: dict[str, Any]) -> None:
        self.start_year: int = int(start.get("year", 1901))
        season = start.get("season", "SPR")
        if season not in ("SPR", "WIN"):
            raise MapError(f"start.season must be SPR or WIN, not {season!r}")
        self.start_season: StartSeason = season
        self.start_units: dict[str, tuple[tuple[UnitType, str], ...]] = {}
        for power, units in start.get("units", {}).items():
            parsed: list[tuple[UnitType, str]] = []
            for text in units:
                utype, loc = text.split()
                if utype not in ("A", "F"):
                    raise MapError(f"start unit {text!r}: unknown type")
                self._check_loc(
                    loc, self.army_locations if utype == "A" else self.fleet_locations, "start"
                )
                parsed.append((utype, loc))
            self.start_units[power] = tuple(parsed)
        # Default: each power owns the home centres that are its alone.
        own_homes = {p: [h for h in hs if self.home_of.get(h) == p] for p, hs in self.homes.items()}
        self.start_centres: dict[str, tuple[str, ...]] = {
            p: tuple(c) for p, c in start.get("centres", own_homes).items()
        }
        owned: set[str] = set()
        for power, centres in self.start_centres.items():
            if power not in self.power_info:
                raise MapError(f"start centres of unknown power {power}")
            for c in centres:
                if c not in self.supply_centres or c in owned:
                    raise MapError(f"start centre {c} of {power} is not a free supply centre")
                owned.add(c)
        for power in self.start_units:
            if power not in self.power_info:
                raise MapError(f"start units of unknown power {power}")

    def _read_names(self, data: dict[str, Any]) -> None:
        """The variant's description and credits, other spellings of province tokens
        (judges' and other engines' ids, upper case), English names, and display positions."""
        self.description: str = data.get("description", "")
        self.designer: str = data.get("designer", "")
        self.credit: str = data.get("credit", "")
        self.source: str = data.get("source", "")
        self.aliases: dict[str, str] = {}
        for alias, tok in data.get("aliases", {}).items():
            if tok not in self.provinces:
                raise MapError(f"alias {alias} names unknown province {tok}")
            self.aliases[alias.upper()] = tok
        self.by_name: dict[str, str] = {i.name.lower(): t for t, i in self.provinces.items()}
        self.positions: dict[str, tuple[float, float]] = {
            loc: (float(v[0]), float(v[1])) for loc, v in data.get("positions", {}).items()
        }
        self.picture: dict[str, tuple[float, float]] = self._read_picture(data.get("picture"))

    def _read_picture(self, raw: Any) -> dict[str, tuple[float, float]]:
        """Where each province (and split coast) lies on a picture of the map: x, y in its
        pixels, y down (AiMapper's label positions, imported with the variant). Optional; when
        given, every province is there exactly once and nothing else is."""
        if raw is None:
            return {}
        if not isinstance(raw, dict):
            raise MapError("picture: expected an object of location -> [x, y]")
        out: dict[str, tuple[float, float]] = {}
        for loc, xy in raw.items():
            prov, coast = province_of(loc), coast_of(loc)
            info = self.provinces.get(prov)
            if info is None or (coast is not None and coast not in info.coasts):
                raise MapError(f"picture: {loc!r} is not a province or coast of this map")
            if (
                not isinstance(xy, list)
                or len(xy) != 2
                or not all(isinstance(v, int | float) and math.isfinite(v) for v in xy)
            ):
                raise MapError(f"picture: {loc}: expected [x, y] numbers, got {xy!r}")
            out[loc] = (float(xy[0]), float(xy[1]))
        missing = sorted(p for p in self.provinces if p not in out)
        if missing:
            raise MapError(f"picture: no position for province {', '.join(missing)}")
        return out

    def _check_loc(self, loc: str, allowed: frozenset[str], where: str) -> None:
        if loc not in allowed:
            raise MapError(f"{where}: {loc!r} is not a valid location here")

    def _check_symmetry(self) -> None:
        for table, kind in ((self.army_adj, "army"), (self.fleet_adj, "fleet")):
            for src, dests in table.items():
                for d in dests:
                    if src not in table.get(d, ()):
                        raise MapError(f"{kind} adjacency {src}->{d} is not symmetric")

    # -- queries ---------------------------------------------------------------------------

    def reach(self, unit_type: str, loc: str) -> frozenset[str]:
        """Provinces a unit of this type at ``loc`` may move to (ignoring convoys)."""
        return self._reach.get((unit_type, loc), frozenset())

    def reach_sorted(self, unit_type: str, loc: str) -> tuple[str, ...]:
        """:meth:`reach` in alphabetical order."""
        return self._reach_sorted.get((unit_type, loc), ())

    def moves(self, unit_type: str, loc: str) -> tuple[str, ...]:
        """Locations a unit of this type at ``loc`` may move to, coasts included, sorted."""
        return self._moves.get((unit_type, loc), ())

    def can_stand(self, unit_type: str, loc: str) -> bool:
        return loc in (self.army_locations if unit_type == "A" else self.fleet_locations)

    def is_sea(self, province: str) -> bool:
        p = self.provinces.get(province)
        return p is not None and p.type == "sea"

    def fleet_destinations(self, loc: str, province: str) -> tuple[str, ...]:
        """The locations of ``province`` a fleet at ``loc`` can move to (0, 1 or 2 coasts)."""
        dests = self.fleet_adj.get(loc, frozenset())
        return tuple(c for c in self.fleet_coasts.get(province, ()) if c in dests)

    def distances_to(self, targets: frozenset[str]) -> Mapping[str, int]:
        """Fewest moves from each province to the nearest of ``targets``, crossing land and
        sea alike (the 2023 civil-disorder rule). Kept per map (:class:`Distances`), so the
        mapping is shared and read-only."""
        memo = self.memo.get(Distances, Distances)
        cached = memo.get(targets)
        if cached is not None:
            return cached
        dist: dict[str, int] = {t: 0 for t in targets if t in self.provinces}
        queue = deque(dist)
        while queue:
            p = queue.popleft()
            for n in self.neighbours[p]:
                if n not in dist:
                    dist[n] = dist[p] + 1
                    queue.append(n)
        if len(memo) >= _DISTANCES_LIMIT:
            memo.clear()
        shared = memo[targets] = MappingProxyType(dist)
        return shared

    def to_dict(self) -> dict[str, Any]:
        """The map's data, as it was loaded (for rendering an MDF or the web UI)."""
        return self._data

    def __repr__(self) -> str:
        return f"GameMap({self.name!r}, {len(self.provinces)} provinces)"

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameMap:
        return cls(data)


def bundled_maps() -> tuple[str, ...]:
    """The names of the maps shipped in ``engine/maps/``: the standard map first, then the
    variants in alphabetical order."""
    names = sorted(p.stem for p in MAPS_DIR.glob("*.json"))
    return tuple(sorted(names, key=lambda n: (n != "standard", n)))


def load_map(name: str) -> GameMap:
    """Load a bundled map by name (``engine/maps/NAME.json``) or from a path to a JSON file.
    Maps are immutable, so one instance per name is shared."""
    return _load_map(name)


# Behind a typed function: mypy does not check the arguments of a cached one, and every
# caller must name its game's map.
@cache
def _load_map(name: str) -> GameMap:
    path = Path(name)
    if path.suffix != ".json":
        path = MAPS_DIR / f"{name}.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        known = ", ".join(bundled_maps())
        raise MapError(f"unknown map {name!r} (bundled maps: {known})") from None
    except json.JSONDecodeError as exc:
        raise MapError(f"map file {path} is not valid JSON: {exc}") from None
    return GameMap(data)
