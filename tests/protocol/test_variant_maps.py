"""Variant maps on the wire: each map's token table (its RM), its MDF both ways, the import of
DAIDE and Parlance files, and province names that collide with press tokens."""

from __future__ import annotations

import pytest

from diplomat.engine.map import bundled_maps, load_map
from diplomat.engine.state import initial_state
from diplomat.protocol import messages
from diplomat.protocol.codec import codec_for, parse_text
from diplomat.protocol.frames import rm_payload, table_from_rm
from diplomat.protocol.mapfiles import (
    VariantError,
    VariantFiles,
    credits_of,
    export_variant,
    import_variant,
    parse_cfg,
    table_from_rem,
)
from diplomat.protocol.mdf import MapDefinition, table_for_map
from diplomat.protocol.tokens import STANDARD, TableError, TokenTable, province_type

BASES = {"standard": load_map("standard"), "hundred3": load_map("hundred3")}


def test_standard_map_table_is_the_standard_table() -> None:
    assert table_for_map(load_map("standard")) is STANDARD


@pytest.mark.parametrize("name", bundled_maps())
def test_each_map_has_a_token_table_and_its_mdf_round_trips(name: str) -> None:
    gmap = load_map(name)
    table = table_for_map(gmap)
    assert [p for p, _ in table.powers] == list(gmap.powers)
    for prov, value in table.provinces:
        info = gmap.provinces[prov]
        assert province_type(value) == info.type
        assert bool(value >> 8 & 1) == info.supply_centre
    # The RM a binary client gets defines the same table.
    assert table_from_rm(rm_payload(table, full=True)).records() == table.records()
    codec = codec_for(table)
    mdf = messages.Mdf(MapDefinition.from_map(gmap))
    for back in (codec.parse_text(codec.text(mdf)), codec.parse_payload(codec.payload(mdf))):
        assert isinstance(back, messages.Mdf) and back.definition is not None
        rebuilt = back.definition.to_map(name, gmap)
        assert rebuilt.army_adj == gmap.army_adj and rebuilt.fleet_adj == gmap.fleet_adj
        assert rebuilt.homes_of == gmap.homes_of
        assert rebuilt.supply_centres == gmap.supply_centres


def test_province_names_may_shadow_press_tokens() -> None:
    """Hundred's Anglia is ANG (a DAIDE++ text-only token), Sail Ho's Nar is NAR (a press
    token): in the map's table the names are provinces, and the press token NAR keeps its
    value and its name for binary messages."""
    hundred = table_for_map(load_map("hundred3"))
    assert province_type(hundred.value_of["ANG"]) == "coast"
    sailho = table_for_map(load_map("sailho"))
    nar = STANDARD.value_of["NAR"]
    assert sailho.value_of["NAR"] != nar and sailho.name_of[nar] == "NAR"
    msg = parse_text("NOW (SPR 1901) (ENG AMY ANG)", hundred)
    assert isinstance(msg, messages.Now) and msg.units[0].loc == "ANG"  # type: ignore[union-attr]
    with pytest.raises(TableError, match="defined twice"):
        TokenTable((("AMY", 0x4100),), ())  # a unit type is never shadowed


def test_export_then_import_gives_the_same_map() -> None:
    for name in ("hundred3", "chaos", "micro", "world3"):
        gmap = load_map(name)
        data = import_variant(export_variant(gmap))
        assert data["adjacency"] == gmap.to_dict()["adjacency"]
        assert {p: set(v["homes"]) for p, v in data["powers"].items()} == {
            p: set(h) for p, h in gmap.homes.items()
        }
        again = initial_state(load_map(name))
        assert data["start"]["season"] == again.phase.season
        assert data["start"]["year"] == again.phase.year
        units = {f"{p} {u}" for p, us in data["start"]["units"].items() for u in us}
        assert units == {f"{u.power} {u.type} {u.loc}" for u in again.units.values()}


MINI_MDF = """MDF (ONE TWO)
(((ONE Aaa) (TWO Bbb) (UNO Ccc)) (Sea Ddd))
((Aaa (AMY Bbb Ccc Ddd) (FLT Sea))
 (Bbb (AMY Aaa Ccc Ddd) (FLT Sea))
 (Ccc (AMY Aaa Bbb Ddd))
 (Ddd (AMY Aaa Bbb Ccc))
 (Sea (FLT Aaa Bbb)))
"""
MINI_REM = "7\n4100:one\n4101:two\n5000:Ddd\n5101:Ccc\n5202:Sea\n5503:Aaa\n5504:Bbb\n"
MINI_NOW = "NOW (SPR 1901) (ONE FLT Aaa) (TWO AMY Bbb)"
MINI_SCO = "SCO (ONE Aaa) (TWO Bbb) (UNO Ccc)"
MINI_CFG = """# Mini Diplomacy variant
# Designed by Somebody Example in 2020-2021, after nobody
# https://example.org/mini

[variant]
name=mini
judge=standard
description=Mini
start=SPR 1500

[powers]
ONE=Onia,Onian
TWO=Twoland

[provinces]
AAA=Alpha
SEA=The Sea
"""


def test_import_a_small_variant_from_daide_files() -> None:
    files = VariantFiles("mini", MINI_MDF, MINI_NOW, MINI_SCO, MINI_REM, MINI_CFG)
    data = import_variant(files)
    assert data["designer"] == "Somebody Example"
    assert data["source"] == "https://example.org/mini"
    assert data["powers"]["ONE"] == {"name": "Onia", "adjective": "Onian", "homes": ["AAA"]}
    assert data["powers"]["TWO"]["adjective"] == "Twoland"
    assert data["provinces"]["SEA"] == {"name": "The Sea", "type": "sea", "supply_centre": False}
    assert data["provinces"]["CCC"]["name"] == "CCC"  # no long name given
    assert data["start"] == {
        "season": "SPR",
        "year": 1500,
        "units": {"ONE": ["F AAA"], "TWO": ["A BBB"]},
        "centres": {"ONE": ["AAA"], "TWO": ["BBB"]},
    }
    # Without the cfg: the NOW's turn, tokens as names; without a .rem the standard table
    # cannot read these provinces.
    bare = import_variant(VariantFiles("mini", MINI_MDF, MINI_NOW, MINI_SCO, MINI_REM))
    assert bare["start"]["year"] == 1901 and bare["powers"]["ONE"]["name"] == "ONE"
    with pytest.raises(VariantError, match=r"mini\.mdf"):
        import_variant(VariantFiles("mini", MINI_MDF, MINI_NOW, MINI_SCO))


def test_import_a_derived_variant_from_its_cfg() -> None:
    cfg = """# Designed by Someone in 1999
[variant]
name=tiny_chaos
judge=chaos
start=WIN 1900
base=standard

[ownership]
AUS=BUD,TRI,VIE,SER
ENG=EDI,LON,LVP
FRA=BRE,MAR,PAR
GER=BER,KIE,MUN
ITA=NAP,ROM,VEN
RUS=MOS,SEV,STP,WAR
TUR=ANK,CON,SMY

[positions]
AUS=AMY BUD
"""
    data = import_variant(VariantFiles("tiny_chaos", cfg=cfg), BASES)
    assert data["rules"] == {"builds": "owned"}
    assert data["start"]["season"] == "WIN" and data["start"]["units"]["AUS"] == ["A BUD"]
    assert data["start"]["units"]["ENG"] == []
    assert "SER" in data["start"]["centres"]["AUS"]
    assert data["powers"]["AUS"]["name"] == "Austria"  # the base map's names
    with pytest.raises(VariantError, match="base map 'nowhere'"):
        import_variant(VariantFiles("x", cfg=cfg.replace("base=standard", "base=nowhere")))


def test_import_a_map_from_cfg_borders() -> None:
    cfg = """[variant]
name=tri
[powers]
RED=Red
BLU=Blue
[homes]
RED=AAA
BLU=BBB
UNO=CCC
UNO=SPL
[positions]
RED=FLT AAA
BLU=AMY BBB
[borders]
AAA=AMY BBB SPL CCC, FLT WAT (SPL NCS)
BBB=AMY AAA SPL CCC, FLT WAT (SPL SCS)
CCC=AMY AAA BBB
SPL=AMY AAA BBB, (FLT NCS) AAA WAT, (FLT SCS) BBB WAT
WAT=FLT AAA BBB (SPL NCS) (SPL SCS)
"""
    data = import_variant(VariantFiles("tri", cfg=cfg))
    assert data["provinces"]["SPL"]["coasts"] == ["NC", "SC"]
    assert data["adjacency"]["F"]["AAA"] == ["WAT", "SPL/NC"]
    assert data["provinces"]["WAT"]["type"] == "sea"
    assert data["start"]["centres"] == {"RED": ["AAA"], "BLU": ["BBB"]}
    assert data["provinces"]["SPL"]["supply_centre"]
    assert not data["provinces"]["CCC"]["supply_centre"]
    for bad, why in [
        ("WAT=FLT AAA (SPL NCS", "bad coast"),
        ("WAT=FLT AAA (SPL XCS)", "unknown coast"),
        ("WAT=BOAT AAA", "AMY or FLT"),
    ]:
        with pytest.raises(VariantError, match=why):
            import_variant(VariantFiles("tri", cfg=cfg.replace(cfg.splitlines()[-1], bad)))


@pytest.mark.parametrize(
    ("files", "error"),
    [
        (VariantFiles("Bad Name", MINI_MDF), "variant name"),
        (VariantFiles("mini"), "no board"),
        (VariantFiles("mini", MINI_MDF, rem="2\n4100:one\nzz"), "HHHH:Name"),
        (VariantFiles("mini", MINI_MDF, rem=MINI_REM), "no starting units"),
        (VariantFiles("mini", "NOW (SPR 1901)", rem=MINI_REM), "expected a MDF"),
        (VariantFiles("mini", MINI_MDF, MINI_NOW, None, MINI_REM, "[variant]\njudge=x"), "judge"),
        (VariantFiles("mini", MINI_MDF, MINI_NOW, None, MINI_REM, "[variant]\nstart=X 1"), "start"),
        (VariantFiles("mini", MINI_MDF, MINI_NOW, None, MINI_REM, "orphan=1"), "section"),
    ],
)  # fmt: skip
def test_import_errors_are_specific(files: VariantFiles, error: str) -> None:
    with pytest.raises(VariantError, match=error):
        import_variant(files, BASES)


def test_cfg_and_rem_helpers() -> None:
    assert parse_cfg("[Powers]\nabc=Abc\n") == {"powers": {"ABC": "Abc"}}
    assert credits_of("# X\n# Designed by A and B in 1997-1998\n") == (
        "A and B",
        "Designed by A and B in 1997-1998",
        "",
    )
    assert credits_of("# Chaos\n# Possibly related to Anarchy\n# http://x.org/c\n") == (
        "",
        "Possibly related to Anarchy",
        "http://x.org/c",
    )
    assert [n for n, _ in table_from_rem(MINI_REM).powers] == ["ONE", "TWO"]
