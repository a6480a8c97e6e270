"""The map definition an MDF message carries, and its conversion to and from the engine's map.

:class:`MapDefinition` mirrors the MDF's three parts (powers; supply centres by home power and
the other provinces; adjacencies) so that it renders back exactly. :meth:`MapDefinition.to_map`
builds an engine :class:`~engine.map.GameMap` (terrain follows from the adjacency entries, as the
syntax document says: only AMY is inland, only FLT is sea, both is coastal, one FLT entry per
coast is a split coast); :meth:`MapDefinition.from_map` goes the other way, in the order of the
map's data, which for the bundled standard map is the order of the standard MDF.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from diplomat.engine.map import GameMap, Province
from diplomat.protocol.tokens import POWER_CATEGORY, TableError, TokenTable, standard_table

UNO = "UNO"


@dataclass(frozen=True, slots=True)
class CentreGroup:
    """Supply centres sharing a home: ``owners`` is ``("UNO",)`` for neutral centres, one
    power, or several powers for centres that are home to all of them."""

    owners: tuple[str, ...]
    centres: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class AdjacencyEntry:
    """Where a unit of ``unit_type`` ("A"/"F") standing in the province (on ``coast``, for a
    fleet on a split coast) may move: ``dests`` are engine locations (``"STP/NC"``)."""

    unit_type: str
    coast: str | None
    dests: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ProvinceAdjacency:
    province: str
    entries: tuple[AdjacencyEntry, ...]


@dataclass(frozen=True, slots=True)
class MapDefinition:
    powers: tuple[str, ...]
    centres: tuple[CentreGroup, ...]
    non_centres: tuple[str, ...]
    adjacencies: tuple[ProvinceAdjacency, ...]

    @classmethod
    def from_map(cls, gmap: GameMap) -> MapDefinition:
        data = gmap.to_dict()
        powers = tuple(data["powers"])
        province_order = list(data["provinces"])
        homes_of: dict[str, list[str]] = {}
        for power, info in data["powers"].items():
            for centre in info["homes"]:
                homes_of.setdefault(centre, []).append(power)
        groups = [
            CentreGroup(
                (power,),
                tuple(c for c in data["powers"][power]["homes"] if homes_of[c] == [power]),
            )
            for power in powers
        ]
        shared: dict[tuple[str, ...], list[str]] = {}
        for prov in province_order:
            owners = homes_of.get(prov, [])
            if len(owners) > 1:
                shared.setdefault(tuple(owners), []).append(prov)
        groups.extend(CentreGroup(owners, tuple(cs)) for owners, cs in shared.items())
        neutral = tuple(
            p for p in province_order if data["provinces"][p]["supply_centre"] and p not in homes_of
        )
        groups.append(CentreGroup((UNO,), neutral))
        non_centres = tuple(p for p in province_order if not data["provinces"][p]["supply_centre"])

        army = data["adjacency"]["A"]
        fleet = data["adjacency"]["F"]
        adjacencies = []
        for prov in province_order:
            info = data["provinces"][prov]
            entries: list[AdjacencyEntry] = []
            if info["type"] != "sea":
                entries.append(AdjacencyEntry("A", None, tuple(army.get(prov, ()))))
            if info["type"] != "land":
                coasts = info.get("coasts") or ()
                if coasts:
                    entries.extend(
                        AdjacencyEntry("F", c, tuple(fleet.get(f"{prov}/{c}", ()))) for c in coasts
                    )
                else:
                    entries.append(AdjacencyEntry("F", None, tuple(fleet.get(prov, ()))))
            adjacencies.append(ProvinceAdjacency(prov, tuple(entries)))
        return cls(powers, tuple(groups), non_centres, tuple(adjacencies))

    def to_map_dict(self, name: str, names_from: GameMap | None = None) -> dict[str, Any]:
        """The engine's map data (schema of ``engine/maps/*.json``) for this definition.

        An MDF carries no names; those of ``names_from`` are used where its tokens match,
        and the tokens themselves elsewhere. No starting position: it comes from NOW and SCO.
        """
        known = names_from.to_dict() if names_from is not None else {"powers": {}, "provinces": {}}
        homes: dict[str, list[str]] = {p: [] for p in self.powers}
        centres: set[str] = set()
        for group in self.centres:
            centres.update(group.centres)
            for owner in group.owners:
                if owner != UNO:
                    homes.setdefault(owner, []).extend(group.centres)
        powers: dict[str, Any] = {}
        for power, power_homes in homes.items():
            info = known["powers"].get(power, {})
            powers[power] = {
                "name": info.get("name", power),
                "adjective": info.get("adjective", info.get("name", power)),
                "homes": power_homes,
            }
        # Provinces in adjacency order (the MDF's own), then any listed only in part two.
        listed = [a.province for a in self.adjacencies]
        listed += [c for g in self.centres for c in g.centres]
        listed += self.non_centres
        order = list(dict.fromkeys(listed))
        entries_of = {a.province: a.entries for a in self.adjacencies}
        provinces: dict[str, Any] = {}
        army: dict[str, list[str]] = {}
        fleet: dict[str, list[str]] = {}
        for prov in order:
            entries = entries_of.get(prov, ())
            has_army = any(e.unit_type == "A" for e in entries)
            has_fleet = any(e.unit_type == "F" for e in entries)
            coasts = [e.coast for e in entries if e.unit_type == "F" and e.coast]
            ptype = "coast" if has_army and has_fleet else "sea" if has_fleet else "land"
            info = {
                "name": known["provinces"].get(prov, {}).get("name", prov),
                "type": ptype,
                "supply_centre": prov in centres,
            }
            if coasts:
                info["coasts"] = coasts
            provinces[prov] = info
            for e in entries:
                if e.unit_type == "A":
                    if e.dests:
                        army[prov] = list(e.dests)
                else:
                    fleet[f"{prov}/{e.coast}" if e.coast else prov] = list(e.dests)
        return {
            "name": name,
            "powers": powers,
            "provinces": provinces,
            "adjacency": {"A": army, "F": fleet},
        }

    def to_map(self, name: str, names_from: GameMap | None = None) -> GameMap:
        return GameMap.from_dict(self.to_map_dict(name, names_from))


def table_for_map(gmap: GameMap) -> TokenTable:
    """The token table of a map, as its RM gives it: powers ``0x4100`` up in the map's order,
    provinces numbered up from 0 in the order of their categories (terrain and supply-centre
    bits, spec §2.5) and names. The standard map's is the standard table itself."""
    return _table_for_map(gmap)


@cache
def _table_for_map(gmap: GameMap) -> TokenTable:
    powers = tuple((p, POWER_CATEGORY << 8 | i) for i, p in enumerate(gmap.powers))
    keyed = sorted((_category(info), tok) for tok, info in gmap.provinces.items())
    provinces = tuple((tok, category << 8 | i) for i, (category, tok) in enumerate(keyed))
    if len(powers) > 256 or len(provinces) > 256:
        raise TableError(f"map {gmap.name}: more than 256 powers or provinces")
    standard = standard_table()
    if powers == standard.powers and provinces == standard.provinces:
        return standard
    return TokenTable(powers, provinces)


def _category(info: Province) -> int:
    terrain = {"land": 0, "sea": 1, "coast": 2}[info.type] + (1 if info.coasts else 0)
    return 0x50 | terrain << 1 | int(info.supply_centre)
