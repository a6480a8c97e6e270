"""What a power's press adds up to: the state of each proposal, the agreements in force, and
whether orders keep them.

DAIDE's agreement convention (spec §4.2), which the server does not enforce: a proposal
(``PRP``) is agreed when every recipient has answered ``YES`` to the proposer; ``REJ`` turns it
down, ``BWX`` declines to discuss it ("not now"), ``HUH`` did not understand it, and the proposer
may cancel it (``CCL``) until it is agreed. :class:`Tracker` applies it, one message at a time;
it is the only proposal tracker (the bots' ``bots.press.Proposals`` is one). What an agreement
binds and what breaks it is the law's (:mod:`protocol.agreements`); this module only asks it.

Everything here is pure: the press goes in as :class:`PressItem` (as a server's store or a
client's inbox holds it), the board as engine values, the game's token table explicitly.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from diplomat.engine.orders import Order, Waive, order_power
from diplomat.engine.state import GameState, Phase
from diplomat.protocol import agreements as law
from diplomat.protocol import messages
from diplomat.protocol.agreements import Agreement, Ledger, Verdict
from diplomat.protocol.codec import codec_for
from diplomat.protocol.syntax import ParseError
from diplomat.protocol.tokens import TokenTable

WAITING = "waiting"
ACCEPTED = "accepted"
REJECTED = "rejected"
DECLINED = "declined"  # BWX: "not now", the recipient will not discuss it
NOT_UNDERSTOOD = "not understood"  # HUH
CANCELLED = "cancelled"
LAPSED = "lapsed"  # its phase ended unanswered
REPLIES: dict[type, str] = {
    messages.Yes: "yes",
    messages.Rej: "no",
    messages.Bwx: "not now",
    messages.Huh: "huh",
}


@dataclass(frozen=True)
class PressItem:
    """One relayed press message."""

    seq: int
    phase: str
    sender: str
    recipients: tuple[str, ...]
    press: messages.Press


@dataclass
class Proposal:
    """One proposal and what has become of it."""

    item: PressItem
    replies: dict[str, str] = field(default_factory=dict)  # recipient -> yes/no/not now/huh
    cancelled: bool = False
    lapsed: bool = False  # its phase ended before every recipient said yes
    agreed_at: int | None = None  # the seq of the reply that made it an agreement
    agreed_in: str | None = None  # the phase of that reply
    agreed_by: str | None = None  # the power whose reply made it one
    sent_at: float = 0.0  # a client's clock when it was sent (bots time their talk by it)

    @property
    def arrangement(self) -> messages.Arrangement:
        press = self.item.press
        if not isinstance(press, messages.Prp):  # PressBook.add makes a proposal of a PRP only
            raise TypeError(f"a proposal's press is a PRP, not {press!r}")
        return press.arrangement

    @property
    def sender(self) -> str:
        return self.item.sender

    @property
    def recipients(self) -> tuple[str, ...]:
        return self.item.recipients

    @property
    def phase(self) -> str:
        return self.item.phase

    @property
    def parties(self) -> tuple[str, ...]:
        return (self.item.sender, *self.item.recipients)

    @property
    def agreed(self) -> bool:
        return self.agreed_at is not None

    @property
    def refused(self) -> bool:
        """Some recipient said anything but yes."""
        return any(v != "yes" for v in self.replies.values())

    @property
    def answered(self) -> bool:
        return all(r in self.replies for r in self.item.recipients)

    @property
    def open(self) -> bool:
        """Still waiting for an answer that could make it an agreement."""
        return not (self.agreed or self.cancelled or self.lapsed or self.refused)

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
        if self.lapsed:
            return LAPSED
        return WAITING


class Tracker:
    """The proposals of a conversation, fed one press message at a time (:meth:`add`), as a
    server's store holds them or a client sends and receives them. The one tracker: the page
    reads the store through it and every bot keeps one (``bots.press.Proposals``).

    The convention it applies: a proposal is agreed when every recipient has answered ``YES``
    (a reply goes to the proposer, so a reply answers the latest equal proposal of a power it
    is sent to); ``REJ``, ``BWX`` or ``HUH`` from any recipient turns it down; the proposer may
    cancel it (``CCL``) until it is agreed; and it lapses when its phase ends unagreed (a reply
    in a later phase answers nothing), because the bots forget their open proposals when a new
    phase begins and an agreement only one side remembers is no agreement.

    ``table``: the game's token table, to read back the words a ``HUH`` echoes."""

    def __init__(self, table: TokenTable) -> None:
        self.codec = codec_for(table)
        self.proposals: dict[int, Proposal] = {}
        self._open: list[Proposal] = []  # proposals that may still be answered, oldest first

    def add(self, item: PressItem) -> Proposal | None:
        """Record one press message; returns the proposal it made or changed, if any."""
        press = item.press
        self.lapse(item.phase)
        if isinstance(press, messages.Prp):
            p = Proposal(item)
            self.proposals[item.seq] = p
            self._open.append(p)
            return p
        if isinstance(press, messages.Ccl) and isinstance(press.press, messages.Prp):
            cancelled = self._latest(item.sender, None, press.press)
            if cancelled is not None:
                cancelled.cancelled = True
                self._close(cancelled)
            return cancelled
        word = REPLIES.get(type(press))
        if word is None:
            return None
        quoted = self._quoted(press, item)
        if not isinstance(quoted, messages.Prp):
            return None
        for proposer in item.recipients:
            answered = self._latest(proposer, item.sender, quoted)
            if answered is None or item.sender in answered.replies:
                continue
            p = answered
            p.replies[item.sender] = word
            if all(p.replies.get(r) == "yes" for r in p.item.recipients):
                p.agreed_at, p.agreed_in, p.agreed_by = item.seq, item.phase, item.sender
            if not p.open:
                self._close(p)
            return p
        return None

    def lapse(self, phase: str | None) -> list[Proposal]:
        """End the proposals still open from phases before ``phase`` (None: every one still
        open); returns them."""
        gone = [p for p in self._open if phase is None or p.item.phase != phase]
        for p in gone:
            p.lapsed = True
            self._close(p)
        return gone

    def waiting(self, proposer: str | None = None) -> list[Proposal]:
        """The open proposals (of ``proposer``), oldest first."""
        return [p for p in self._open if proposer is None or p.item.sender == proposer]

    def agreed(self) -> list[Proposal]:
        """The agreed proposals, in the order they were agreed."""
        done = [p for p in self.proposals.values() if p.agreed_at is not None]
        return sorted(done, key=lambda p: p.agreed_at or 0)

    def _close(self, p: Proposal) -> None:
        self._open = [q for q in self._open if q is not p]

    def _quoted(self, reply: messages.Press, item: PressItem) -> messages.Construct | None:
        """The press message a reply answers. A HUH quotes it as words with ``ERR`` inside
        (a bot without press echoes the whole message): read back without the ``ERR``."""
        if isinstance(reply, messages.Yes | messages.Rej):
            return reply.inner
        if isinstance(reply, messages.Huh):
            words = " ".join(w for w in reply.tokens if w != "ERR")
            try:
                snd = self.codec.parse_text(f"SND ( {item.recipients[0]} ) ( {words} )")
            except ParseError:
                return None
            return snd.press if isinstance(snd, messages.Snd) else None
        return getattr(reply, "press", None)

    def _latest(self, proposer: str, recipient: str | None, prp: messages.Prp) -> Proposal | None:
        for p in reversed(self._open):
            if (
                p.item.sender == proposer
                and (recipient is None or recipient in p.item.recipients)
                and p.item.press == prp
            ):
                return p
        return None


def proposals(
    items: Iterable[PressItem], table: TokenTable, now: str | None = None
) -> dict[int, Proposal]:
    """Every proposal (``PRP``) by the seq of its message, with its replies and state; those
    still open from before phase ``now`` have lapsed."""
    tracker = Tracker(table)
    for item in items:
        tracker.add(item)
    if now is not None:
        tracker.lapse(now)
    return tracker.proposals


def agreements(items: Sequence[PressItem], phase: str, table: TokenTable) -> list[Agreement]:
    """The agreements that bind the orders of ``phase`` (the law's :class:`Ledger` over the
    agreed proposals: an ``AND`` counts as its parts, an agreed ``NAR (x)`` ends ``x``, an
    ``XDO`` binds its phase only)."""
    tracker = Tracker(table)
    for item in items:
        tracker.add(item)
    ledger = Ledger()
    for p in tracker.agreed():
        ledger.add(p.arrangement, p.parties, Phase.parse(p.agreed_in or p.phase), p.agreed_at or 0)
    return ledger.in_force(Phase.parse(phase))


def breaches(
    orders: Iterable[Order], agreements_: Iterable[Agreement], state: GameState, power: str
) -> dict[Order, list[Agreement]]:
    """Which of ``power``'s orders (before they are sent) break which of its agreements, by
    the law (:func:`protocol.agreements.breaches` over ``power``'s orders alone)."""
    mine = [o for o in orders if not isinstance(o, Waive) and order_power(o) == power]
    out: dict[Order, list[Agreement]] = {}
    for a in agreements_:
        if power not in a.parties:
            continue
        for b in law.breaches(a.arrangement, state, mine):
            if b.power == power and b.order is not None:
                out.setdefault(b.order, []).append(a)
    return out


def outcomes(
    agreements_: Iterable[Agreement], state: GameState, given: Sequence[Order]
) -> list[Verdict]:
    """For each agreement that binds orders, in force in the phase played from ``state``,
    whether the orders ``given`` (everyone's, as the results list them) kept it."""
    return [law.judge(a, state, given) for a in agreements_ if law.judged(a.arrangement)]


__all__ = [
    "ACCEPTED",
    "CANCELLED",
    "DECLINED",
    "LAPSED",
    "NOT_UNDERSTOOD",
    "REJECTED",
    "WAITING",
    "PressItem",
    "Proposal",
    "Tracker",
    "agreements",
    "breaches",
    "outcomes",
    "proposals",
]
