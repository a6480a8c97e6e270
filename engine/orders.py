"""Orders, the notes validation gives them, and the results adjudication gives them.

Orders are immutable values: named tuples, equal only to orders of the same kind with equal
fields. An order listed once is shared by every position that lists it, so it must not
change; a tuple is the cheapest immutable object to build and to hash (a frozen dataclass
costs three times as much to build). Each unit order names the unit it is for as the player
wrote it (power, type and location); validation (``engine.validate``) checks that
against the board and returns the order rewritten with the real unit. A :class:`Waive` is the
one order that is not a unit's: it names a power. The notes and results are DAIDE's (THX
notes, ORD results), so the protocol layer maps them one to one.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Final, NamedTuple

from diplomat.engine.map import province_of
from diplomat.engine.state import Unit, equal_by_kind


class Hold(NamedTuple):
    unit: Unit

    def __str__(self) -> str:
        return f"{self.unit} H"


class Move(NamedTuple):
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


class SupportHold(NamedTuple):
    unit: Unit
    target: Unit

    def __str__(self) -> str:
        return f"{self.unit} S {self.target}"


class SupportMove(NamedTuple):
    """Support for ``target`` moving to ``dest`` (a province; a coast, if given, must match
    the supported move's coast)."""

    unit: Unit
    target: Unit
    dest: str

    def __str__(self) -> str:
        return f"{self.unit} S {self.target} - {self.dest}"


class Convoy(NamedTuple):
    unit: Unit
    target: Unit
    dest: str

    def __str__(self) -> str:
        return f"{self.unit} C {self.target} - {self.dest}"


class Retreat(NamedTuple):
    unit: Unit
    dest: str

    def __str__(self) -> str:
        return f"{self.unit} R {self.dest}"


class Disband(NamedTuple):
    unit: Unit

    def __str__(self) -> str:
        return f"{self.unit} D"


class Build(NamedTuple):
    unit: Unit

    def __str__(self) -> str:
        return f"{self.unit} B"


class Remove(NamedTuple):
    unit: Unit

    def __str__(self) -> str:
        return f"{self.unit} D"


class Waive(NamedTuple):
    """A power's choice not to use a build. Not a unit order: it has a power, no unit."""

    power: str

    def __str__(self) -> str:
        return "WAIVE"


# Orders for one unit each; every one has ``unit``. A phase's orders are these and waives.
MovementOrder = Hold | Move | SupportHold | SupportMove | Convoy
UnitOrder = MovementOrder | Retreat | Disband | Build | Remove
Order = UnitOrder | Waive


# Two orders are equal when they are of the same kind with equal fields, and hash as their
# tuples do (``engine.state.equal_by_kind``).
ORDER_KINDS: tuple[type[Order], ...] = (
    Hold,
    Move,
    SupportHold,
    SupportMove,
    Convoy,
    Retreat,
    Disband,
    Build,
    Remove,
    Waive,
)
for _kind in ORDER_KINDS:
    equal_by_kind(_kind)

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


# The note of an accepted order, for the checks every order goes through. Python 3.11's enum
# metaclass defines ``__getattr__``, which puts every read of ``Note.MBV`` through a Python
# attribute hook (about 45 ns); a module global reads in 5 ns, and validation reads the note
# two or three times an order.
ACCEPTED: Final = Note.MBV

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


@dataclass(frozen=True, slots=True)
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
