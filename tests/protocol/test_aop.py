"""AiMapper's .aop positions imported into a variant's map data (``picture``): matched to the
map's provinces and coasts, checked line by line, and inherited by a derived variant."""

from __future__ import annotations

import copy

import pytest

from diplomat.engine.map import GameMap, MapError, load_map
from diplomat.protocol.aop import AopError, picture_from_aop
from diplomat.protocol.mapfiles import VariantError, VariantFiles, import_variant
from tests.protocol.test_variant_maps import MINI_CFG, MINI_MDF, MINI_NOW, MINI_REM, MINI_SCO

# The mini map of test_variant_maps: AAA, BBB, CCC supply centres, DDD land, SEA a sea. Tokens
# in AiMapper's mixed case; the sea named by its long name under another token.
MINI_AOP = """10 20 Aaa SC Alpha
30 20 BBB SC BBB
20 35.5 ccc SC CCC
20 5 Ddd NO DDD

40 40 Oce NO The Sea
"""


def _files(aop: str | None) -> VariantFiles:
    return VariantFiles("mini", MINI_MDF, MINI_NOW, MINI_SCO, MINI_REM, MINI_CFG, aop)


def test_the_import_stores_each_province_place() -> None:
    data = import_variant(_files(MINI_AOP))
    assert data["picture"] == {
        "AAA": [10, 20],
        "BBB": [30, 20],
        "CCC": [20, 35.5],
        "DDD": [20, 5],
        "SEA": [40, 40],
    }
    assert GameMap.from_dict(data).picture["CCC"] == (20.0, 35.5)
    # Without an .aop the map has none, and the field is left out.
    assert "picture" not in import_variant(_files(None))


@pytest.mark.parametrize(
    ("aop", "error"),
    [
        (MINI_AOP.replace("20 5 Ddd NO DDD\n", ""), r"no position for province DDD"),
        (MINI_AOP + "1 1 Zzz NO Nowhere\n", r"line 7: 'Zzz' \(nowhere\) is not a province"),
        (
            MINI_AOP.replace("10 20 Aaa SC Alpha", "10 20 Aaa"),
            r"line 1: expected X Y TOKEN TYPE Name",
        ),
        (MINI_AOP.replace("30 20 BBB", "30 twenty BBB"), r"line 2: 'twenty' is not a pixel"),
        (MINI_AOP.replace("Ddd NO", "Ddd SC"), r"line 4: DDD is typed SC but is not a supply"),
        (MINI_AOP.replace("Aaa SC", "Aaa NO"), r"line 1: AAA is typed NO but is a supply"),
        (MINI_AOP.replace("Aaa SC", "Aaa XX"), r"line 1: type 'XX' is none of SC, NO"),
        (MINI_AOP + "5 5 Aaa CN Alpha (north coast)\n", r"line 7: AAA has no NC coast"),
        (MINI_AOP + "5 5 AAA SC Alpha\n", r"line 7: a second position for AAA \(first on line 1"),
    ],
)
def test_a_bad_aop_gives_a_clear_error(aop: str, error: str) -> None:
    with pytest.raises(VariantError, match=r"mini\.aop: " + error):
        import_variant(_files(aop))


def test_coasts_and_spellings() -> None:
    """Coast lines give the coast's own place; AiMapper's African Egypt (Eyg, Eygpt) is the
    map's EGY."""
    provinces = {
        "STP": {"name": "St Petersburg", "supply_centre": True, "coasts": ["NC", "SC"]},
        "EGY": {"name": "Egypt", "supply_centre": True},
    }
    text = "5 6 StP SC St Petersburg\n1 2 StP CN St Petersburg (north coast)\n7 8 Eyg SC Eygpt\n"
    assert picture_from_aop(text, provinces) == {"EGY": [7, 8], "STP": [5, 6], "STP/NC": [1, 2]}
    with pytest.raises(AopError, match=r"line 3: 'Egg' \(eggpt\) is not a province of the map"):
        picture_from_aop(text.replace("Eyg", "Egg"), provinces)


def test_a_derived_variant_takes_its_base_maps_places() -> None:
    cfg = "[variant]\nname=fleet\nbase=standard\n[positions]\nITA=FLT ROM\n"
    data = import_variant(VariantFiles("fleet", cfg=cfg), {"standard": load_map("standard")})
    assert data["picture"] == load_map("standard").to_dict()["picture"]


def test_the_map_checks_its_picture() -> None:
    data = copy.deepcopy(load_map("hundred3").to_dict())
    data["picture"]["XYZ"] = [1, 2]
    with pytest.raises(MapError, match="picture: 'XYZ' is not a province or coast"):
        GameMap.from_dict(data)
    data = copy.deepcopy(load_map("hundred3").to_dict())
    del data["picture"]["LON"]
    with pytest.raises(MapError, match="picture: no position for province LON"):
        GameMap.from_dict(data)
    data["picture"]["LON"] = [1, "north"]
    with pytest.raises(MapError, match=r"picture: LON: expected \[x, y\] numbers"):
        GameMap.from_dict(data)


def test_every_bundled_variant_with_an_aop_carries_its_picture() -> None:
    """The fifteen maps with an AiMapper file and the five derived from two of them."""
    with_picture = {
        "abstraction2", "african2", "americas4", "chromatic", "classical", "hundred3",
        "iberian2", "modern", "sailho", "south_america32", "south_america51",
        "south_east_asia3", "standard", "versailles3", "world3",
        "chaos", "fleet_rome", "shift_around", "hundred31", "hundred32",
    }  # fmt: skip
    for name in with_picture:
        gmap = load_map(name)
        assert set(gmap.provinces) <= set(gmap.picture), name
    assert not load_map("micro").picture and not load_map("snark").picture
