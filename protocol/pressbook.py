"""What a power's press adds up to: the state of each proposal, the agreements in force, and
whether orders keep them.

DAIDE's agreement convention (spec §4.2), which the server does not enforce: a proposal
(``PRP``) is agreed when every recipient has answered ``YES`` to the proposer; ``REJ`` turns it
down, ``BWX`` declines to discuss it ("not now"), ``HUH`` did not understand it, and the proposer
may cancel it (``CCL``) until it is agreed. Continuous arrangements (peace, alliances,
demilitarised zones) hold until an agreed ``NAR`` ends them; an ``XDO`` holds for the first
phase, from the one it was proposed in, where its kind of order is given.

Everything here is pure: the press goes in as :class:`PressItem` (as a server's store or a
client's inbox holds it), the board as engine values.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.map import province_of
from engine.orders import (
    Build,
    Convoy,
    Disband,
    Hold,
    Move,
    Order,
    Remove,
    Retreat,
    SupportHold,
    SupportMove,
    Waive,
    order_power,
)
from engine.state import GameState, Phase
from protocol import messages as m
from protocol.codec import codec_for
from protocol.syntax import ParseError

WAITING = "waiting"
ACCEPTED = "accepted"
REJECTED = "rejected"
DECLINED = "declined"  # BWX: "not now", the recipient will not discuss it
NOT_UNDERSTOOD = "not understood"  # HUH
CANCELLED = "cancelled"
REPLIES: dict[type, str] = {m.Yes: "yes", m.Rej: "no", m.Bwx: "not now", m.Huh: "huh"}


@dataclass(frozen=True)
class PressItem:
    """One relayed press message."""

    seq: int
    phase: str
    sender: str
    recipients: tuple[str, ...]
    press: Any


@dataclass
class Proposal:
    item: PressItem
    replies: dict[str, str] = field(default_factory=dict)  # recipient -> yes/no/not now/huh
    cancelled: bool = False
    agreed_at: int | None = None  # the seq of the reply that made it an agreement

    @property
    def arrangement(self) -> Any:
        return self.item.press.arrangement

    @property
    def state(self) -> str:
        if self.agreed_at is not None:
            return ACCEPTED
        if self.cancelled:
            return CANCELLED
        said = set(self.replies.values())
        if "no" in said:
            return REJECTED
        if "not now" in said:
            return DECLINED
        if "huh" in said:
            return NOT_UNDERSTOOD
        return WAITING


@dataclass(frozen=True)
class Agreement:
    """An arrangement agreed by ``parties`` (the proposer and the recipients)."""

    arrangement: Any
    parties: tuple[str, ...]
    phase: str  # when it was proposed
    seq: int


def proposals(items: Iterable[PressItem]) -> dict[int, Proposal]:
    """Every proposal (``PRP``) by the seq of its message, with its replies and state."""
    found: dict[int, Proposal] = {}
    for item in items:
        press = item.press
        if isinstance(press, m.Prp):
            found[item.seq] = Proposal(item)
            continue
        if isinstance(press, m.Ccl) and isinstance(press.press, m.Prp):
            p = _latest(found, item.sender, None, press.press)
            if p is not None and p.agreed_at is None:
                p.cancelled = True
            continue
        word = REPLIES.get(type(press))
        if word is None:
            continue
        quoted = _quoted(press, item)
        if not isinstance(quoted, m.Prp):
            continue
        for proposer in item.recipients:
            p = _latest(found, proposer, item.sender, quoted)
            if p is None or p.cancelled or p.agreed_at is not None:
                continue
            p.replies[item.sender] = word
            if all(p.replies.get(r) == "yes" for r in p.item.recipients):
                p.agreed_at = item.seq
    return found


def _quoted(reply: Any, item: PressItem) -> Any:
    """The press message a reply answers. A HUH quotes it as words with ``ERR`` inside
    (a bot without press echoes the whole message): read back without the ``ERR``."""
    if isinstance(reply, m.Yes | m.Rej):
        return reply.inner
    if isinstance(reply, m.Huh):
        words = " ".join(w for w in reply.tokens if w != "ERR")
        try:
            snd = codec_for().parse_text(f"SND ( {item.recipients[0]} ) ( {words} )")
        except ParseError:
            return None
        return snd.press if isinstance(snd, m.Snd) else None
    return getattr(reply, "press", None)


def _latest(
    found: dict[int, Proposal], proposer: str, recipient: str | None, prp: m.Prp
) -> Proposal | None:
    for p in sorted(found.values(), key=lambda p: -p.item.seq):
        if (
            p.item.sender == proposer
            and (recipient is None or recipient in p.item.recipients)
            and p.item.press == prp
        ):
            return p
    return None


def agreements(items: Sequence[PressItem], phase: str) -> list[Agreement]:
    """The agreements in force in ``phase`` (an ``AND`` counts as its parts; an agreed
    ``NAR (x)`` ends ``x``; an ``XDO`` counts in its phase only; a draw or solo agreed is
    listed while it waits to be declared)."""
    now = Phase.parse(phase)
    out: list[Agreement] = []
    done = sorted(
        (p for p in proposals(items).values() if p.agreed_at is not None),
        key=lambda p: p.agreed_at or 0,
    )
    for p in done:
        parties = (p.item.sender, *p.item.recipients)
        parts = p.arrangement.arrangements if isinstance(p.arrangement, m.And) else (p.arrangement,)
        for arr in parts:
            if isinstance(arr, m.Nar):
                out = [a for a in out if not same(a.arrangement, arr.inner)]
                continue
            if isinstance(arr, m.Xdo) and xdo_phase(arr.order, Phase.parse(p.item.phase)) != now:
                continue
            if any(same(a.arrangement, arr) for a in out):
                continue  # agreed again (each side proposed it): once is enough
            out.append(Agreement(arr, parties, p.item.phase, p.item.seq))
    return out


def same(a: Any, b: Any) -> bool:
    """Whether two arrangements say the same, whatever order their powers and provinces
    are listed in (``PCE (FRA GER)`` is ``PCE (GER FRA)``)."""
    return _key(a) == _key(b)


def _key(a: Any) -> Any:
    if isinstance(a, m.Pce):
        return ("PCE", frozenset(a.powers))
    if isinstance(a, m.Aly):
        return ("ALY", frozenset(a.allies), frozenset(a.versus))
    if isinstance(a, m.Dmz):
        return ("DMZ", frozenset(a.powers), frozenset(a.provinces))
    if isinstance(a, m.Drw):
        return ("DRW", frozenset(a.powers) if a.powers else None)
    return a


def xdo_phase(order: Order, proposed: Phase) -> Phase:
    """The phase an ``XDO`` of ``order`` proposed in ``proposed`` is for: the first from
    there on where that kind of order is given."""
    kind = order_kind(order)
    phase = proposed
    while phase.kind != kind:
        phase = phase.next()
    return phase


def order_kind(order: Order) -> str:
    if isinstance(order, Retreat | Disband):
        return "retreat"
    if isinstance(order, Build | Remove | Waive):
        return "adjustment"
    return "movement"


# -- do orders keep the agreements? -------------------------------------------------------------


def _into(order: Order) -> str | None:
    """The province an order takes a unit into, or helps one into."""
    if isinstance(order, Move | Retreat | SupportMove | Convoy):
        return province_of(order.dest)
    if isinstance(order, Build):
        return province_of(order.unit.loc)
    return None


def _stays(order: Order) -> str | None:
    """The province a unit stays in with this order."""
    if isinstance(order, Hold | SupportHold | SupportMove | Convoy):
        return province_of(order.unit.loc)
    return None


def breaches(
    orders: Iterable[Order], agreements_: Iterable[Agreement], state: GameState, power: str
) -> dict[Order, list[Agreement]]:
    """Which of ``power``'s orders break which of its agreements: a move, support, convoy,
    retreat or build into a demilitarised zone (or a unit left in one); an attack on a
    province held by a power it agreed peace or an alliance with (a move there, or support
    for one); an order other than the one it agreed to give (``XDO``), or the one it agreed
    not to give."""
    orders = [o for o in orders if not isinstance(o, Waive)]
    out: dict[Order, list[Agreement]] = {}
    for a in agreements_:
        if power not in a.parties:
            continue
        for o in orders:
            if order_power(o) == power and _breaks(o, a.arrangement, state, power, orders):
                out.setdefault(o, []).append(a)
    return out


def _breaks(o: Order, arr: Any, state: GameState, power: str, orders: Sequence[Order]) -> bool:
    if isinstance(arr, m.Dmz):
        if power not in arr.powers:
            return False
        zone = set(arr.provinces)
        return _into(o) in zone or _stays(o) in zone
    if isinstance(arr, m.Pce | m.Aly):
        side = arr.powers if isinstance(arr, m.Pce) else arr.allies
        if power not in side:
            return False
        friends = set(side) - {power}
        if isinstance(o, Move | SupportMove):
            target = province_of(o.dest)
            unit = state.units.get(target)
            return unit is not None and unit.power in friends
        return False
    if isinstance(arr, m.Xdo):
        agreed = arr.order
        if order_power(agreed) != power or isinstance(o, Waive) or isinstance(agreed, Waive):
            return False
        same_unit = province_of(o.unit.loc) == province_of(agreed.unit.loc)
        return same_unit and o != agreed
    if isinstance(arr, m.Not) and isinstance(arr.inner, m.Xdo):
        return o == arr.inner.order
    return False


@dataclass(frozen=True)
class Outcome:
    """What became of an agreement in a processed phase."""

    agreement: Agreement
    kept: bool
    breakers: tuple[str, ...]  # the powers whose orders broke it


def outcomes(
    agreements_: Iterable[Agreement], state: GameState, given: Sequence[Order]
) -> list[Outcome]:
    """For each demilitarised zone and ``XDO`` in force in the phase played from ``state``,
    whether the orders ``given`` (everyone's, as the results list them) kept it."""
    out: list[Outcome] = []
    for a in agreements_:
        arr = a.arrangement
        if isinstance(arr, m.Dmz):
            zone = set(arr.provinces)
            breakers = tuple(
                sorted(
                    {
                        order_power(o)
                        for o in given
                        if not isinstance(o, Waive)
                        and order_power(o) in arr.powers
                        and (_into(o) in zone or _stays(o) in zone)
                    }
                )
            )
            out.append(Outcome(a, not breakers, breakers))
        elif isinstance(arr, m.Xdo):
            done = arr.order in given
            out.append(Outcome(a, done, () if done else (order_power(arr.order),)))
    return out


__all__ = [
    "ACCEPTED",
    "CANCELLED",
    "DECLINED",
    "NOT_UNDERSTOOD",
    "REJECTED",
    "WAITING",
    "Agreement",
    "Outcome",
    "PressItem",
    "Proposal",
    "agreements",
    "breaches",
    "order_kind",
    "outcomes",
    "proposals",
    "same",
    "xdo_phase",
]
