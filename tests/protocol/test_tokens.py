"""Token values (spec §2), integer encoding, the CCL/NAR choice, and tables from an RM."""

import re

import pytest

from diplomat.protocol.numbering import DEFAULT_CCL_NAR, CclNar
from diplomat.protocol.tokens import (
    STANDARD,
    STANDARD_PROVINCES,
    TableError,
    TokenTable,
    decode_int,
    encode_int,
    is_reserved,
    province_type,
    standard_table,
)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("AUS", 0x4100), ("TUR", 0x4106), ("AMY", 0x4200), ("FLT", 0x4201),
        ("CTO", 0x4320), ("VIA", 0x4325), ("DSB", 0x4340), ("RTO", 0x4341), ("WVE", 0x4382),
        ("MBV", 0x4400), ("YSC", 0x4413), ("SUC", 0x4500), ("RET", 0x4506),
        ("NCS", 0x4600), ("NWC", 0x460E), ("SPR", 0x4700), ("WIN", 0x4704),
        ("CCD", 0x4800), ("NME", 0x480C), ("YES", 0x481C), ("SMR", 0x481E),
        ("AOA", 0x4900), ("ERR", 0x4902), ("UNO", 0x490B), ("DSD", 0x490D),
        ("ALY", 0x4A00), ("FCT", 0x4A06), ("FOR", 0x4A07), ("FWD", 0x4A08), ("CHO", 0x4A22),
        ("BCC", 0x4A23), ("UNT", 0x4A24),
        ("BOH", 0x5000), ("BUD", 0x5107), ("ADR", 0x520E), ("WES", 0x5220), ("ALB", 0x5421),
        ("YOR", 0x542F), ("ANK", 0x5530), ("VEN", 0x5547), ("BUL", 0x5748), ("STP", 0x574A),
        ("(", 0x4000), (")", 0x4001),
    ],
)  # fmt: skip
def test_standard_token_values(name: str, value: int) -> None:
    assert STANDARD.value_of[name] == value
    assert STANDARD.name_of[value] == name


def test_seventy_five_provinces_indexed_from_zero() -> None:
    assert len(STANDARD_PROVINCES) == 75
    assert sorted(v & 0xFF for _, v in STANDARD_PROVINCES) == list(range(75))
    assert province_type(STANDARD.value_of["PAR"]) == "land"
    assert province_type(STANDARD.value_of["NTH"]) == "sea"
    assert province_type(STANDARD.value_of["STP"]) == "coast"


@pytest.mark.parametrize(
    ("number", "token"),
    [(0, 0x0000), (1, 0x0001), (300, 0x012C), (1901, 0x076D), (4883, 0x1313),
     (8191, 0x1FFF), (-1, 0x3FFF), (-8192, 0x2000)],
)  # fmt: skip
def test_integers_are_14_bit_twos_complement(number: int, token: int) -> None:
    assert encode_int(number) == token
    assert decode_int(token) == number


@pytest.mark.parametrize("number", [8192, -8193, 100000])
def test_integers_out_of_range_have_no_token(number: int) -> None:
    with pytest.raises(ValueError):
        encode_int(number)


def test_ccl_nar_is_a_setting_defaulting_to_diplomacy_numbering() -> None:
    assert DEFAULT_CCL_NAR is CclNar.DIPLOMACY
    assert STANDARD.value_of["NAR"] == 0x4A25
    assert STANDARD.value_of["CCL"] == 0x4A26
    parlance = standard_table(CclNar.PARLANCE)
    assert parlance.value_of["CCL"] == 0x4A25
    assert parlance.value_of["NAR"] == 0x4A26
    assert standard_table(CclNar.PARLANCE) is parlance


def test_reserved_categories() -> None:
    assert is_reserved(0x5800) and is_reserved(0x5FFF)
    assert not is_reserved(0x5700) and not is_reserved(0x6000)
    # DAIDE++ tokens live there, so they can never go on the wire.
    assert is_reserved(STANDARD.value_of["UHY"])


def test_table_from_rm_records_replaces_powers_and_provinces() -> None:
    table = TokenTable.from_records([(0x4100, "nth"), (0x5000, "Ahi"), (0x5109, "Are")])
    assert table.powers == (("NTH", 0x4100),)
    assert table.provinces == (("AHI", 0x5000), ("ARE", 0x5109))
    assert "ENG" not in table.value_of
    assert table.value_of["HLO"] == 0x4804
    assert not table.is_standard
    assert table.records() == ((0x4100, "NTH"), (0x5000, "AHI"), (0x5109, "ARE"))


@pytest.mark.parametrize(
    "records",
    [
        [(0x4200, "ABC")],  # not a power or province category
        [(0x4100, "AB")],  # name not three characters
        [(0x4100, "ABC"), (0x4101, "ABC")],  # name twice
        [(0x4100, "ABC"), (0x4100, "DEF")],  # token twice
        [(0x4100, "HLO")],  # clashes with a command
    ],
)
def test_bad_rm_records(records: list[tuple[int, str]]) -> None:
    with pytest.raises(TableError):
        TokenTable.from_records(records)


def test_unknown_token_words() -> None:
    assert STANDARD.word(0x4A99) == "0x4A99"
    assert STANDARD.word(0x3FFF) == "-1"


def test_the_grammar_and_the_token_table_name_the_same_words() -> None:
    """Every mnemonic the grammar spells is a token of the table, and every token of the table
    is either spelled by the grammar or reaches it through its lexical class (coasts, seasons,
    unit types): a token added to one and not the other fails here."""
    from pathlib import Path

    grammar = (Path(__file__).resolve().parents[2] / "grammar" / "daide.lark").read_text()
    spelled = set(re.findall(r'"([A-Z]{3})"', grammar))
    table = standard_table()
    named = {n for n in table.value_of if not n.startswith(("(", ")"))}
    powers_and_provinces = {n for n, _ in STANDARD_PROVINCES} | {
        n for n, v in table.value_of.items() if v >> 8 == 0x41
    }
    mnemonics = named - powers_and_provinces
    assert spelled <= mnemonics, f"grammar words with no token: {sorted(spelled - mnemonics)}"
    by_class = {
        n
        for n in mnemonics
        if table.terminal_of[table.value_of[n]] in ("COAST", "SEASON", "UNIT_TYPE")
    }
    unspelled = mnemonics - spelled - by_class
    assert not unspelled, f"tokens the grammar never reads: {sorted(unspelled)}"
    assert by_class == {"AMY", "FLT", "SPR", "SUM", "FAL", "AUT", "WIN"} | {
        "NCS",
        "NEC",
        "ECS",
        "SEC",
        "SCS",
        "SWC",
        "WCS",
        "NWC",
    }
