"""Orders, the notes validation gives them, and the results adjudication gives them.

Orders are frozen values. Each names the unit it is for as the player wrote it (power, type
and location); validation (``engine.validate``) checks that against the board and returns the
order rewritten with the real unit. The notes and results are DAIDE's (THX notes, ORD results),
so the protocol layer maps them one to one.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from engine.map import province_of
from engine.state import Unit


@dataclass(slots=True, unsafe_hash=True)
class Hold:
    unit: Unit

    def __str__(self) -> str:
        return f"{self.unit} H"


@dataclass(slots=True, unsafe_hash=True)
class Move:
    """A move. ``convoy`` is set for a move written "via convoy" (DAIDE ``CTO``); ``via`` is
    the route DAIDE's ``CTO ... VIA (...)`` lists, checked when the order is given but not
    binding on adjudication (DATC 4.A.6)."""

    unit: Unit
    dest: str
    convoy: bool = False
    via: tuple[str, ...] | None = None

    def __str__(self) -> str:
        tail = " VIA" if self.convoy else ""
        return f"{self.unit} - {self.dest}{tail}"


@dataclass(slots=True, unsafe_hash=True)
class SupportHold:
    unit: Unit
    target: Unit

    def __str__(self) -> str:
        return f"{self.unit} S {self.target}"


@dataclass(slots=True, unsafe_hash=True)
class SupportMove:
    """Support for ``target`` moving to ``dest`` (a province; a coast, if given, must match
    the supported move's coast)."""

    unit: Unit
    target: Unit
    dest: str

    def __str__(self) -> str:
        return f"{self.unit} S {self.target} - {self.dest}"


@dataclass(slots=True, unsafe_hash=True)
class Convoy:
    unit: Unit
    target: Unit
    dest: str

    def __str__(self) -> str:
        return f"{self.unit} C {self.target} - {self.dest}"


@dataclass(slots=True, unsafe_hash=True)
class Retreat:
    unit: Unit
    dest: str

    def __str__(self) -> str:
        return f"{self.unit} R {self.dest}"


@dataclass(slots=True, unsafe_hash=True)
class Disband:
    unit: Unit

    def __str__(self) -> str:
        return f"{self.unit} D"


@dataclass(slots=True, unsafe_hash=True)
class Build:
    unit: Unit

    def __str__(self) -> str:
        return f"{self.unit} B"


@dataclass(slots=True, unsafe_hash=True)
class Remove:
    unit: Unit

    def __str__(self) -> str:
        return f"{self.unit} D"


@dataclass(slots=True, unsafe_hash=True)
class Waive:
    power: str

    def __str__(self) -> str:
        return "WAIVE"


Order = (
    Hold | Move | SupportHold | SupportMove | Convoy | Retreat | Disband | Build | Remove | Waive
)
# The kinds of order each kind of phase takes (another kind is refused with NRS).
PHASE_ORDERS: dict[str, tuple[type, ...]] = {
    "movement": (Hold, Move, SupportHold, SupportMove, Convoy),
    "retreat": (Retreat, Disband),
    "adjustment": (Build, Remove, Waive),
}

# The key a waive goes under wherever orders are keyed by what they are for.
WAIVE_KEY = "WAIVE"


def order_power(order: Order) -> str:
    """The power an order claims to be for."""
    return order.power if isinstance(order, Waive) else order.unit.power


def order_key(order: Order) -> str:
    """What an order is for: its unit's province (one order per unit, DATC 4.D.1), or
    :data:`WAIVE_KEY`. Keys are per power: two powers' waives share the key."""
    return WAIVE_KEY if isinstance(order, Waive) else province_of(order.unit.loc)


class Note(StrEnum):
    """Why an order was or was not accepted (DAIDE's THX notes)."""

    MBV = "MBV"  # accepted
    FAR = "FAR"  # not adjacent / unreachable / no possible route
    NSP = "NSP"  # no such province
    NSU = "NSU"  # no such unit
    NAS = "NAS"  # convoying fleet not at sea
    NSF = "NSF"  # no such fleet (convoyer, or a sea of a VIA route without a fleet)
    NSA = "NSA"  # no such army (unit to be convoyed, or a CTO by a fleet)
    NYU = "NYU"  # not your unit
    NRN = "NRN"  # no retreat needed for this unit
    NVR = "NVR"  # not a valid retreat
    CST = "CST"  # no coast specified, or a unit type that cannot stand there
    ESC = "ESC"  # build site not empty
    HSC = "HSC"  # build site not a home centre
    NSC = "NSC"  # build site not a supply centre
    YSC = "YSC"  # build site not your supply centre
    NMB = "NMB"  # no more builds allowed
    NMR = "NMR"  # no more removals allowed
    NRS = "NRS"  # order for another kind of phase

    @property
    def accepted(self) -> bool:
        return self is Note.MBV


NOTE_TEXT: dict[Note, str] = {
    Note.MBV: "accepted",
    Note.FAR: "the destination cannot be reached",
    Note.NSP: "no such province",
    Note.NSU: "no such unit",
    Note.NAS: "a convoying fleet must be at sea",
    Note.NSF: "no fleet there to convoy",
    Note.NSA: "only an army can be convoyed",
    Note.NYU: "not your unit",
    Note.NRN: "this unit has no retreat to make",
    Note.NVR: "not a valid retreat",
    Note.CST: "coast missing, or that unit type cannot stand there",
    Note.ESC: "build site is occupied",
    Note.HSC: "build site is not a home centre",
    Note.NSC: "build site is not a supply centre",
    Note.YSC: "build site is not your supply centre",
    Note.NMB: "no more builds allowed",
    Note.NMR: "no more removals allowed",
    Note.NRS: "that kind of order is not for this phase",
}


class Outcome(StrEnum):
    """What happened to an order (DAIDE's ORD results)."""

    SUC = "SUC"  # succeeded
    BNC = "BNC"  # move or retreat bounced (a bounced retreat destroys the unit)
    CUT = "CUT"  # support cut
    DSR = "DSR"  # convoy disrupted
    NSO = "NSO"  # the supported or convoyed order does not exist


@dataclass(slots=True, unsafe_hash=True)
class Result:
    outcome: Outcome
    dislodged: bool = False  # DAIDE's RET: the unit was dislodged and must retreat

    def __str__(self) -> str:
        return f"{self.outcome.value}{' RET' if self.dislodged else ''}"


# Results are values; adjudication hands out these shared instances rather than building
# one per order.
RESULTS: dict[tuple[Outcome, bool], Result] = {
    (o, d): Result(o, d) for o in Outcome for d in (False, True)
}
