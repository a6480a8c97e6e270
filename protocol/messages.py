"""Typed DAIDE messages: one frozen class per message and per press construct.

Fields hold engine values: powers and provinces as their tokens (``"ENG"``, ``"STP"``), locations
as the engine writes them (``"STP/NC"``), :class:`~engine.state.Unit`, :class:`~engine.state.Phase`
for a turn, the engine's order classes, :class:`~engine.orders.Note` and
:class:`~engine.orders.Result`.

A class serves every place its token is used with the same shape: :class:`Drw`, :class:`Slo`,
:class:`Not`, :class:`Yes`, :class:`Rej`, :class:`Huh` and :class:`Frm` are level-0 messages and
also press constructs; the grammar decides what may stand where, and ``protocol.levels`` what
each use costs in press level. Where a message has a bare "request" form (``MAP``, ``NOW``,
``HLO`` ...) the request is the instance with its optional fields left empty.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypeAlias

from diplomat.engine.map import GameMap
from diplomat.engine.orders import Note, Order, Result
from diplomat.engine.state import Dislodged, GameState, Phase, Unit, make_state
from diplomat.protocol.mdf import UNO, MapDefinition

Power: TypeAlias = str
Province: TypeAlias = str


@dataclass(frozen=True, slots=True)
class AnyUnit:
    """A unit of either type (DAIDE ``UNT``), as OCC allows: ``(ENG UNT BEL)``."""

    power: Power
    loc: str


@dataclass(frozen=True, slots=True)
class NoteResult:
    """An ORD result that is no engine :class:`Result`: ``RET`` alone (``note`` None) for a
    dislodged unit whose order has no outcome, or a THX note reported as the result in an
    AOA game."""

    note: Note | None
    retreat: bool = False


@dataclass(frozen=True, slots=True)
class Variant:
    """HLO variant options (spec §3.3). Rendered in the official order."""

    level: int = 0
    mtl: int | None = None
    rtl: int | None = None
    btl: int | None = None
    dsd: bool = False
    aoa: bool = False
    pda: bool = False
    npr: bool = False
    npb: bool = False
    ptl: int | None = None


@dataclass(frozen=True, slots=True)
class SmrEntry:
    power: Power
    name: str
    version: str
    centres: int
    eliminated: int | None = None  # year, present only when centres == 0


# -- level 0 ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Nme:
    name: str
    version: str


@dataclass(frozen=True, slots=True)
class Obs:
    pass


@dataclass(frozen=True, slots=True)
class Iam:
    power: Power
    passcode: int


@dataclass(frozen=True, slots=True)
class Map:
    name: str | None = None


@dataclass(frozen=True, slots=True)
class Mdf:
    definition: MapDefinition | None = None


@dataclass(frozen=True, slots=True)
class Hlo:
    power: Power | None = None  # "UNO" for observers
    passcode: int | None = None
    variant: Variant | None = None


@dataclass(frozen=True, slots=True)
class Now:
    """Position: ``units`` lists plain units and, before a retreat phase, dislodged ones with
    their retreat options (``attacker_from`` is not part of DAIDE and is always None here)."""

    turn: Phase | None = None
    units: tuple[Unit | Dislodged, ...] = ()

    @classmethod
    def from_state(cls, state: GameState) -> Now:
        order = {p: i for i, p in enumerate(state.map.powers)}
        units: list[Unit | Dislodged] = [*state.units.values()]
        units.extend(Dislodged(d.unit, None, d.retreats) for d in state.dislodged.values())
        units.sort(key=lambda u: _now_sort_key(u, order))
        return cls(state.phase, tuple(units))

    def to_state(self, gmap: GameMap, centres: Mapping[Province, Power]) -> GameState:
        if self.turn is None:
            raise ValueError("a NOW request carries no position")
        units = [u for u in self.units if isinstance(u, Unit)]
        dislodged = [u for u in self.units if isinstance(u, Dislodged)]
        return make_state(gmap, self.turn, units, centres, dislodged)


def _now_sort_key(u: Unit | Dislodged, order: Mapping[str, int]) -> tuple[int, str, int]:
    unit = u if isinstance(u, Unit) else u.unit
    return (order.get(unit.power, len(order)), unit.loc, isinstance(u, Dislodged))


@dataclass(frozen=True, slots=True)
class Sco:
    """Centre ownership as ``(owner, centres)`` groups; ``owner`` is a power or "UNO".
    No groups is the request ``SCO``."""

    owners: tuple[tuple[str, tuple[Province, ...]], ...] = ()

    @classmethod
    def from_centres(cls, centres: Mapping[Province, Power], gmap: GameMap) -> Sco:
        groups: list[tuple[str, tuple[Province, ...]]] = []
        provinces = list(gmap.provinces)
        for power in gmap.powers:
            groups.append((power, tuple(p for p in provinces if centres.get(p) == power)))
        unowned = tuple(p for p in provinces if p in gmap.supply_centres and p not in centres)
        if unowned:
            groups.append((UNO, unowned))
        return cls(tuple(groups))

    def centres(self) -> dict[Province, Power]:
        return {c: owner for owner, cs in self.owners if owner != UNO for c in cs}


@dataclass(frozen=True, slots=True)
class Hst:
    turn: Phase | None = None


@dataclass(frozen=True, slots=True)
class Sub:
    """Orders, optionally for a given turn. Inside ``NOT`` it may hold no order (``NOT (SUB)``)
    or one."""

    orders: tuple[Order, ...] = ()
    turn: Phase | None = None


@dataclass(frozen=True, slots=True)
class Thx:
    order: Order
    note: Note


@dataclass(frozen=True, slots=True)
class Mis:
    """Missing orders: units (movement), dislodged units (retreat), or ``count`` (adjustment:
    > 0 removals still owed, < 0 builds still possible). Neither: nothing is missing."""

    units: tuple[Unit | Dislodged, ...] = ()
    count: int | None = None


@dataclass(frozen=True, slots=True)
class Gof:
    pass


@dataclass(frozen=True, slots=True)
class Ord:
    """A result, or with no fields the request ``ORD``."""

    turn: Phase | None = None
    order: Order | None = None
    result: Result | NoteResult | None = None


@dataclass(frozen=True, slots=True)
class Tme:
    seconds: int | None = None


@dataclass(frozen=True, slots=True)
class Drw:
    """A draw: bare (DIAS) or among ``powers`` (partial draws, PDA). Also an arrangement."""

    powers: tuple[Power, ...] | None = None


@dataclass(frozen=True, slots=True)
class Slo:
    power: Power


@dataclass(frozen=True, slots=True)
class Smr:
    """The end-of-game summary; with no fields, a request for it again (Parlance)."""

    turn: Phase | None = None
    entries: tuple[SmrEntry, ...] = ()


@dataclass(frozen=True, slots=True)
class Off:
    pass


@dataclass(frozen=True, slots=True)
class Ccd:
    power: Power


@dataclass(frozen=True, slots=True)
class Not:
    """Negation: of a request (``NOT (GOF)``, ``NOT (SUB ...)``, ``NOT (CCD (power))`` ...), of
    an arrangement in press, or of a query in a reply (``THK (NOT (QRY ...))``)."""

    inner: Construct


@dataclass(frozen=True, slots=True)
class Huh:
    """A message echoed with ``ERR`` before the first offending token, as text words
    (``("NME", "(", "'bot'", ")", "ERR")``)."""

    tokens: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Prn:
    """A message with unbalanced brackets, echoed as text words."""

    tokens: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Adm:
    name: str
    text: str


@dataclass(frozen=True, slots=True)
class Out:
    power: Power


@dataclass(frozen=True, slots=True)
class Sve:
    name: str


@dataclass(frozen=True, slots=True)
class Lod:
    name: str


@dataclass(frozen=True, slots=True)
class Yes:
    inner: Message | Press


@dataclass(frozen=True, slots=True)
class Rej:
    inner: Message | Press


@dataclass(frozen=True, slots=True)
class Snd:
    recipients: tuple[Power, ...]
    press: Press
    turn: Phase | None = None


@dataclass(frozen=True, slots=True)
class Frm:
    """Press delivered from ``sender`` (server to client); also a press construct at level
    120, a report of a message."""

    sender: Power
    recipients: tuple[Power, ...]
    press: Press


# -- press messages and replies --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Prp:
    arrangement: Arrangement


@dataclass(frozen=True, slots=True)
class Ccl:
    press: Press


@dataclass(frozen=True, slots=True)
class Fct:
    """A fact: an arrangement, or in a reply ``QRY (...)`` / ``NOT (QRY ...)`` / ``NAR (QRY
    ...)``."""

    content: Arrangement | Qry | Not | Nar


@dataclass(frozen=True, slots=True)
class Try:
    """The press tokens a bot understands, as mnemonics."""

    tokens: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Ins:
    arrangement: Arrangement


@dataclass(frozen=True, slots=True)
class Qry:
    arrangement: Arrangement


@dataclass(frozen=True, slots=True)
class Sug:
    arrangement: Arrangement


@dataclass(frozen=True, slots=True)
class Thk:
    content: Arrangement | Qry | Not | Nar


@dataclass(frozen=True, slots=True)
class Idk:
    press: Press


@dataclass(frozen=True, slots=True)
class Wht:
    unit: Unit


@dataclass(frozen=True, slots=True)
class How:
    target: str  # a province or a power


@dataclass(frozen=True, slots=True)
class Exp:
    turn: Phase
    press: Press


@dataclass(frozen=True, slots=True)
class Sry:
    exp: Exp


@dataclass(frozen=True, slots=True)
class Iff:
    condition: Arrangement
    then: Press
    otherwise: Press | None = None


@dataclass(frozen=True, slots=True)
class Bwx:
    press: Press


@dataclass(frozen=True, slots=True)
class Why:
    press: Press


@dataclass(frozen=True, slots=True)
class Pob:
    why: Why


@dataclass(frozen=True, slots=True)
class Uhy:
    press: Press


@dataclass(frozen=True, slots=True)
class Hpy:
    press: Press


@dataclass(frozen=True, slots=True)
class Ang:
    press: Press


@dataclass(frozen=True, slots=True)
class FreeText:
    """Level 8000: a press message that is just text."""

    text: str


# -- arrangements ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Pce:
    powers: tuple[Power, ...]


@dataclass(frozen=True, slots=True)
class Aly:
    allies: tuple[Power, ...]
    versus: tuple[Power, ...]


@dataclass(frozen=True, slots=True)
class Nar:
    inner: Arrangement | Qry


@dataclass(frozen=True, slots=True)
class Xdo:
    order: Order


@dataclass(frozen=True, slots=True)
class Dmz:
    powers: tuple[Power, ...]
    provinces: tuple[Province, ...]


@dataclass(frozen=True, slots=True)
class And:
    arrangements: tuple[Arrangement, ...]


@dataclass(frozen=True, slots=True)
class Orr:
    arrangements: tuple[Arrangement, ...]


@dataclass(frozen=True, slots=True)
class Scd:
    allocations: tuple[tuple[Power, tuple[Province, ...]], ...]


@dataclass(frozen=True, slots=True)
class Occ:
    units: tuple[Unit | AnyUnit, ...]


@dataclass(frozen=True, slots=True)
class Cho:
    minimum: int
    maximum: int
    arrangements: tuple[Arrangement, ...]


@dataclass(frozen=True, slots=True)
class For:
    """An arrangement for a turn, or for the turns from ``turn`` to ``until``."""

    turn: Phase
    arrangement: Arrangement
    until: Phase | None = None


@dataclass(frozen=True, slots=True)
class Xoy:
    debtor: Power
    creditor: Power


@dataclass(frozen=True, slots=True)
class Ydo:
    power: Power
    units: tuple[Unit, ...]


@dataclass(frozen=True, slots=True)
class SndArrangement:
    """``SND (sender) (recipients) (press)``: an arrangement that ``sender`` sends this."""

    sender: Power
    recipients: tuple[Power, ...]
    press: Press


@dataclass(frozen=True, slots=True)
class Fwd:
    """``FWD (senders) (forwarder) (recipient)``: the forwarder passes on to the recipient
    everything it receives from the senders."""

    senders: tuple[Power, ...]
    forwarder: Power
    recipient: Power


@dataclass(frozen=True, slots=True)
class Bcc:
    """``BCC (sender) (recipients) (copy_to)``: the sender copies to ``copy_to`` everything it
    sends to the recipients."""

    sender: Power
    recipients: tuple[Power, ...]
    copy_to: Power


@dataclass(frozen=True, slots=True)
class Rof:
    pass


@dataclass(frozen=True, slots=True)
class Ulb:
    power: Power
    value: float


@dataclass(frozen=True, slots=True)
class Uub:
    power: Power
    value: float


Message: TypeAlias = (
    Nme
    | Obs
    | Iam
    | Map
    | Mdf
    | Hlo
    | Now
    | Sco
    | Hst
    | Sub
    | Thx
    | Mis
    | Gof
    | Ord
    | Tme
    | Drw
    | Slo
    | Smr
    | Off
    | Ccd
    | Not
    | Huh
    | Prn
    | Adm
    | Out
    | Sve
    | Lod
    | Yes
    | Rej
    | Snd
    | Frm
)
Press: TypeAlias = (
    Prp
    | Ccl
    | Fct
    | Try
    | Ins
    | Qry
    | Sug
    | Thk
    | Wht
    | How
    | Exp
    | Iff
    | Frm
    | FreeText
    | Yes
    | Rej
    | Bwx
    | Huh
    | Idk
    | Sry
    | Why
    | Pob
    | Uhy
    | Hpy
    | Ang
)
Arrangement: TypeAlias = (
    Pce
    | Aly
    | Drw
    | Slo
    | Not
    | Nar
    | Xdo
    | Dmz
    | And
    | Orr
    | Scd
    | Occ
    | Cho
    | For
    | Xoy
    | Ydo
    | SndArrangement
    | Fwd
    | Bcc
    | Rof
    | Ulb
    | Uub
)
# Anything the renderer writes, alone or nested in another: the codec's ``text``, ``payload``
# and ``words`` take one (a HUH echoes a refused press's words, not a whole message's).
Construct: TypeAlias = Message | Press | Arrangement
