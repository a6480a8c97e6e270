"""DAIDE tokens: the 16-bit values, their mnemonics, and the table a connection uses.

A token is a 16-bit number: category in the high byte, index in the low byte (spec §2). The
fixed categories (brackets, unit types, orders, notes, results, coasts, seasons, commands,
parameters, press) are the same in every game; powers and provinces come from the map, so they
live in a :class:`TokenTable` that starts as the standard map and is replaced by an RM.

Integers are tokens too (categories 0x00-0x3F, 14-bit two's complement) and text is one token per
character (category 0x4B). DAIDE++ press tokens (levels 140-160) have no number anywhere; they get
private values in the reserved categories, which the binary codec refuses to send or accept, so
they exist in the text form only (spec §2.7, §5.5).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache

from diplomat.protocol.numbering import DEFAULT_CCL_NAR, FCT, FOR, FWD, CclNar

BRA = 0x4000
KET = 0x4001
ERR = 0x4902
TEXT_CATEGORY = 0x4B
POWER_CATEGORY = 0x41
PROVINCE_CATEGORIES = range(0x50, 0x58)
RESERVED_CATEGORIES = range(0x58, 0x60)
INT_MIN = -8192
INT_MAX = 8191

# Categories of fixed tokens a map's power or province names may shadow in the text form:
# press (0x4A) and the text-only DAIDE++ tokens of the reserved categories.
_SHADOWABLE_CATEGORIES = frozenset({0x4A, *RESERVED_CATEGORIES})

# Terrain and supply-centre bits of a province category (spec §2.5).
_TERRAIN = {0: "land", 1: "sea", 2: "coast", 3: "coast"}

_FIXED: dict[str, int] = {
    # unit types
    "AMY": 0x4200, "FLT": 0x4201,
    # orders
    "CTO": 0x4320, "CVY": 0x4321, "HLD": 0x4322, "MTO": 0x4323, "SUP": 0x4324, "VIA": 0x4325,
    "DSB": 0x4340, "RTO": 0x4341, "BLD": 0x4380, "REM": 0x4381, "WVE": 0x4382,
    # order notes
    "MBV": 0x4400, "BPR": 0x4401, "CST": 0x4402, "ESC": 0x4403, "FAR": 0x4404, "HSC": 0x4405,
    "NAS": 0x4406, "NMB": 0x4407, "NMR": 0x4408, "NRN": 0x4409, "NRS": 0x440A, "NSA": 0x440B,
    "NSC": 0x440C, "NSF": 0x440D, "NSP": 0x440E, "NST": 0x440F, "NSU": 0x4410, "NVR": 0x4411,
    "NYU": 0x4412, "YSC": 0x4413,
    # order results
    "SUC": 0x4500, "BNC": 0x4501, "CUT": 0x4502, "DSR": 0x4503, "FLD": 0x4504, "NSO": 0x4505,
    "RET": 0x4506,
    # coasts
    "NCS": 0x4600, "NEC": 0x4602, "ECS": 0x4604, "SEC": 0x4606, "SCS": 0x4608, "SWC": 0x460A,
    "WCS": 0x460C, "NWC": 0x460E,
    # seasons
    "SPR": 0x4700, "SUM": 0x4701, "FAL": 0x4702, "AUT": 0x4703, "WIN": 0x4704,
    # commands
    "CCD": 0x4800, "DRW": 0x4801, "FRM": 0x4802, "GOF": 0x4803, "HLO": 0x4804, "HST": 0x4805,
    "HUH": 0x4806, "IAM": 0x4807, "LOD": 0x4808, "MAP": 0x4809, "MDF": 0x480A, "MIS": 0x480B,
    "NME": 0x480C, "NOT": 0x480D, "NOW": 0x480E, "OBS": 0x480F, "OFF": 0x4810, "ORD": 0x4811,
    "OUT": 0x4812, "PRN": 0x4813, "REJ": 0x4814, "SCO": 0x4815, "SLO": 0x4816, "SND": 0x4817,
    "SUB": 0x4818, "SVE": 0x4819, "THX": 0x481A, "TME": 0x481B, "YES": 0x481C, "ADM": 0x481D,
    "SMR": 0x481E,
    # parameters
    "AOA": 0x4900, "BTL": 0x4901, "ERR": 0x4902, "LVL": 0x4903, "MRT": 0x4904, "MTL": 0x4905,
    "NPB": 0x4906, "NPR": 0x4907, "PDA": 0x4908, "PTL": 0x4909, "RTL": 0x490A, "UNO": 0x490B,
    "DSD": 0x490D,
    # press (FCT/FOR/FWD and CCL/NAR come from diplomat.protocol.numbering)
    "ALY": 0x4A00, "AND": 0x4A01, "BWX": 0x4A02, "DMZ": 0x4A03, "ELS": 0x4A04, "EXP": 0x4A05,
    "FCT": FCT, "FOR": FOR, "FWD": FWD,
    "HOW": 0x4A09, "IDK": 0x4A0A, "IFF": 0x4A0B, "INS": 0x4A0C, "OCC": 0x4A0E, "ORR": 0x4A0F,
    "PCE": 0x4A10, "POB": 0x4A11, "PRP": 0x4A13, "QRY": 0x4A14, "SCD": 0x4A15, "SRY": 0x4A16,
    "SUG": 0x4A17, "THK": 0x4A18, "THN": 0x4A19, "TRY": 0x4A1A, "VSS": 0x4A1C, "WHT": 0x4A1D,
    "WHY": 0x4A1E, "XDO": 0x4A1F, "XOY": 0x4A20, "YDO": 0x4A21, "CHO": 0x4A22, "BCC": 0x4A23,
    "UNT": 0x4A24,
    # DAIDE++ (text only): private values in a reserved category, never on the wire
    "UHY": 0x5F00, "HPY": 0x5F01, "ANG": 0x5F02, "ROF": 0x5F03, "ULB": 0x5F04, "UUB": 0x5F05,
}  # fmt: skip

STANDARD_POWERS: tuple[tuple[str, int], ...] = (
    ("AUS", 0x4100), ("ENG", 0x4101), ("FRA", 0x4102), ("GER", 0x4103), ("ITA", 0x4104),
    ("RUS", 0x4105), ("TUR", 0x4106),
)  # fmt: skip

# Category -> provinces, low bytes 0..74 in this order (spec §2.5).
_STANDARD_PROVINCES_BY_CATEGORY: tuple[tuple[int, str], ...] = (
    (0x50, "BOH BUR GAL RUH SIL TYR UKR"),
    (0x51, "BUD MOS MUN PAR SER VIE WAR"),
    (0x52, "ADR AEG BAL BAR BLA EAS ECH GOB GOL HEL ION IRI MAO NAO NTH NWG SKA TYS WES"),
    (0x54, "ALB APU ARM CLY FIN GAS LVN NAF PIC PIE PRU SYR TUS WAL YOR"),
    (0x55, "ANK BEL BER BRE CON DEN EDI GRE HOL KIE LON LVP MAR NAP NWY POR ROM RUM SEV SMY "
           "SWE TRI TUN VEN"),
    (0x57, "BUL SPA STP"),
)  # fmt: skip


def _standard_provinces() -> tuple[tuple[str, int], ...]:
    out: list[tuple[str, int]] = []
    for category, names in _STANDARD_PROVINCES_BY_CATEGORY:
        for name in names.split():
            out.append((name, category << 8 | len(out)))
    return tuple(out)


STANDARD_PROVINCES = _standard_provinces()

# Engine coast names <-> DAIDE coast tokens.
COAST_TOKEN = {
    "NC": "NCS", "NE": "NEC", "EC": "ECS", "SE": "SEC",
    "SC": "SCS", "SW": "SWC", "WC": "WCS", "NW": "NWC",
}  # fmt: skip
COAST_NAME = {v: k for k, v in COAST_TOKEN.items()}
UNIT_TOKEN = {"A": "AMY", "F": "FLT"}
UNIT_TYPE = {"AMY": "A", "FLT": "F"}

# Lexical classes the grammar names instead of individual mnemonics.
_CLASS_OF_CATEGORY = {
    POWER_CATEGORY: "POWER",
    0x42: "UNIT_TYPE",
    0x46: "COAST",
    0x47: "SEASON",
    **{c: "PROVINCE" for c in PROVINCE_CATEGORIES},
}


def encode_int(value: int) -> int:
    """The token for an integer in -8192..8191."""
    if not INT_MIN <= value <= INT_MAX:
        raise ValueError(f"integer {value} is outside DAIDE's range {INT_MIN}..{INT_MAX}")
    return value & 0x3FFF


def decode_int(token: int) -> int:
    value = token & 0x3FFF
    return value - 0x4000 if value & 0x2000 else value


def is_reserved(token: int) -> bool:
    """Reserved categories must never be sent (spec §2.1); receiving one is EM 0x0E."""
    return (token >> 8) in RESERVED_CATEGORIES


def province_type(token: int) -> str:
    """Engine province type (``land``/``sea``/``coast``) implied by a province token's category."""
    return _TERRAIN[(token >> 9) & 3]


class TableError(ValueError):
    """An RM (or a table built from it) is malformed."""


@dataclass(frozen=True, eq=False)
class TokenTable:
    """Every token a connection knows: the fixed ones plus one map's powers and provinces.

    Build the standard table with :meth:`standard`, a variant's from its RM with
    :meth:`from_records` (an RM's records). Tables are immutable.
    """

    powers: tuple[tuple[str, int], ...]
    provinces: tuple[tuple[str, int], ...]
    ccl_nar: CclNar = DEFAULT_CCL_NAR
    value_of: dict[str, int] = field(init=False, repr=False)
    name_of: dict[int, str] = field(init=False, repr=False)
    terminal_of: dict[int, str] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        value_of = dict(_FIXED)
        value_of["CCL"] = self.ccl_nar.ccl
        value_of["NAR"] = self.ccl_nar.nar
        # A variant may name a province or power like a press token (Sail Ho's Nar, the
        # Anglia of several maps): in the text form the map's name wins; the press token
        # keeps its value, so it still travels in binary and prints under its own name.
        shadowed: dict[str, int] = {}
        for name, value in (*self.powers, *self.provinces):
            old = value_of.get(name)
            if old is not None:
                if name in shadowed or (old >> 8) not in _SHADOWABLE_CATEGORIES:
                    raise TableError(f"token name {name} defined twice")
                shadowed[name] = old
            value_of[name] = value
        value_of["("] = BRA
        value_of[")"] = KET
        name_of: dict[int, str] = {}
        for name, value in value_of.items():
            if value in name_of:
                raise TableError(f"token 0x{value:04X} defined twice ({name_of[value]}, {name})")
            name_of[value] = name
        terminal_of = {
            v: _CLASS_OF_CATEGORY.get(v >> 8, n) for n, v in value_of.items() if v not in (BRA, KET)
        }
        for name, value in shadowed.items():
            name_of.setdefault(value, name)
            terminal_of[value] = name
        terminal_of[BRA] = "LPAR"
        terminal_of[KET] = "RPAR"
        object.__setattr__(self, "value_of", value_of)
        object.__setattr__(self, "name_of", name_of)
        object.__setattr__(self, "terminal_of", terminal_of)

    @classmethod
    def standard(cls, ccl_nar: CclNar = DEFAULT_CCL_NAR) -> TokenTable:
        return cls(STANDARD_POWERS, STANDARD_PROVINCES, ccl_nar)

    @property
    def is_standard(self) -> bool:
        return self.powers == STANDARD_POWERS and self.provinces == STANDARD_PROVINCES

    @classmethod
    def from_records(
        cls, records: Iterable[tuple[int, str]], ccl_nar: CclNar = DEFAULT_CCL_NAR
    ) -> TokenTable:
        """A table whose powers and provinces are exactly ``records`` (token, name), as an RM
        defines them; names are upper-cased (real RM files use lower case)."""
        powers: list[tuple[str, int]] = []
        provinces: list[tuple[str, int]] = []
        for value, raw_name in records:
            name = raw_name.upper()
            if len(name) != 3 or not name.isascii() or not name.isalnum():
                raise TableError(f"RM name {raw_name!r} is not three letters or digits")
            category = value >> 8
            if category == POWER_CATEGORY:
                powers.append((name, value))
            elif category in PROVINCE_CATEGORIES:
                provinces.append((name, value))
            else:
                raise TableError(f"RM token 0x{value:04X} is neither a power nor a province")
        return cls(tuple(powers), tuple(provinces), ccl_nar)

    def records(self) -> tuple[tuple[int, str], ...]:
        """The (token, name) records a full RM lists: powers, then provinces."""
        return tuple((v, n) for n, v in (*self.powers, *self.provinces))

    def word(self, token: int) -> str:
        """The text spelling of one token value (integers in decimal; unknown values as
        ``0xHHHH``, which the text lexer reads back)."""
        name = self.name_of.get(token)
        if name is not None:
            return name
        if token < 0x4000:
            return str(decode_int(token))
        return f"0x{token:04X}"


def standard_table(ccl_nar: CclNar = DEFAULT_CCL_NAR) -> TokenTable:
    """The shared standard table for a CCL/NAR choice."""
    return _standard_table(ccl_nar)


@cache
def _standard_table(ccl_nar: CclNar) -> TokenTable:
    return TokenTable.standard(ccl_nar)


STANDARD = standard_table()
