"""The press API for bot authors: build press as objects, read what comes in, tie replies to
proposals.

Press is the typed messages of :mod:`protocol.messages` (frozen dataclasses, so two equal
arrangements compare equal and can key a dict). This module adds what a negotiating bot needs
around them:

* **builders**: :func:`peace`, :func:`alliance`, :func:`dmz`, :func:`xdo`, :func:`draw`,
  :func:`both` (``AND``), :func:`either` (``ORR``), :func:`propose`, :func:`to` (an ``SND``);
* **what came in**: :class:`Incoming` (a ``FRM`` with its sender, recipients, press and the
  words as received), with :meth:`Incoming.yes`, :meth:`~Incoming.rej`, :meth:`~Incoming.bwx`
  and :meth:`~Incoming.huh` to answer it;
* **bookkeeping**: :class:`Proposals` (the one proposal tracker, ``protocol.pressbook``'s, as a
  bot sees it) records what we proposed and to whom, and matches each
  ``YES``/``REJ``/``BWX``/``HUH`` that comes back to the proposal it answers; it says when
  every recipient has accepted (the arrangement is agreed) or any has refused;
* **levels**: :func:`level_of` (the lowest press level a message needs) and :func:`parts`
  (the arrangements of an ``AND``/``ORR``).

A bot talks by overriding :meth:`bots.base.Bot.press` (called for every press message that
arrives), :meth:`~bots.base.Bot.phase_start` (press to send when a phase begins) and
:meth:`~bots.base.Bot.talk_time` (how long to talk before the orders are asked for). The
library drops anything above the game's press level before it is sent.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from diplomat.engine.orders import Order
from diplomat.protocol import messages
from diplomat.protocol.levels import TOKEN_LEVEL, press_level
from diplomat.protocol.pressbook import PressItem, Proposal, Tracker
from diplomat.protocol.tokens import TokenTable

Arrangement = (
    messages.Pce
    | messages.Aly
    | messages.Drw
    | messages.Slo
    | messages.Not
    | messages.Nar
    | messages.Xdo
    | messages.Dmz
    | messages.And
    | messages.Orr
)

# The press tokens a negotiator of levels 10 to 30 handles (what it says in TRY).
LEVEL_30_TOKENS: tuple[str, ...] = tuple(t for t, lv in TOKEN_LEVEL.items() if lv <= 30)


# -- building --------------------------------------------------------------------------------


def peace(*powers: str) -> messages.Pce:
    """``PCE (powers)``: peace among them (continuous)."""
    return messages.Pce(tuple(sorted(set(powers))))


def alliance(allies: Iterable[str], against: Iterable[str]) -> messages.Aly:
    """``ALY (allies) VSS (against)``: an alliance (continuous)."""
    return messages.Aly(tuple(sorted(set(allies))), tuple(sorted(set(against))))


def dmz(powers: Iterable[str], provinces: Iterable[str]) -> messages.Dmz:
    """``DMZ (powers) (provinces)``: those powers keep out of those provinces (level 20)."""
    return messages.Dmz(tuple(sorted(set(powers))), tuple(sorted(set(provinces))))


def xdo(order: Order) -> messages.Xdo:
    """``XDO (order)``: someone gives this order in the next phase it is legal (level 20)."""
    return messages.Xdo(order)


def draw(powers: Iterable[str] | None = None) -> messages.Drw:
    """``DRW``, or ``DRW (powers)`` for a partial draw (PDA games)."""
    return messages.Drw(tuple(sorted(set(powers))) if powers is not None else None)


def both(*arrangements: Arrangement) -> Arrangement:
    """``AND`` of two or more arrangements (level 30); one arrangement is itself."""
    return arrangements[0] if len(arrangements) == 1 else messages.And(tuple(arrangements))


def either(*arrangements: Arrangement) -> Arrangement:
    """``ORR`` of two or more arrangements (level 30); one arrangement is itself."""
    return arrangements[0] if len(arrangements) == 1 else messages.Orr(tuple(arrangements))


def propose(arrangement: Arrangement) -> messages.Prp:
    return messages.Prp(arrangement)


def to(recipients: Iterable[str], press: messages.Press) -> messages.Snd:
    """``SND (recipients) (press)``."""
    return messages.Snd(tuple(recipients), press)


def parts(arrangement: Arrangement) -> tuple[Arrangement, ...]:
    """The arrangements an ``AND`` or ``ORR`` joins; any other arrangement alone."""
    if isinstance(arrangement, messages.And | messages.Orr):
        return tuple(arrangement.arrangements)  # type: ignore[arg-type]
    return (arrangement,)


def level_of(message: messages.Snd | messages.Press, table: TokenTable) -> int:
    """The lowest press level at which ``message`` (an SND, or press to put in one) is
    legal, in the game whose token table is ``table``."""
    # The recipient does not change the level; any power of the game will do to render it.
    snd = (
        message
        if isinstance(message, messages.Snd)
        else messages.Snd((table.powers[0][0],), message)
    )
    return press_level(snd, table)


# -- what comes in ---------------------------------------------------------------------------

REPLIES = (messages.Yes, messages.Rej, messages.Bwx, messages.Huh)


@dataclass(frozen=True)
class Incoming:
    """One press message delivered to us (a ``FRM``). ``words``: the press as received, in
    DAIDE text words (for an exact echo in HUH)."""

    sender: str
    recipients: tuple[str, ...]
    press: messages.Press
    words: tuple[str, ...] = ()

    @property
    def proposal(self) -> Arrangement | None:
        """The arrangement proposed (``PRP (arrangement)``), or None."""
        return self.press.arrangement if isinstance(self.press, messages.Prp) else None  # type: ignore[return-value]

    @property
    def is_reply(self) -> bool:
        """A reply (YES/REJ/BWX/HUH/TRY ...): never answered, or two bots could answer each
        other for ever."""
        return isinstance(
            self.press,
            (
                *REPLIES,
                messages.Try,
                messages.Prn,
                messages.Idk,
                messages.Sry,
                messages.Why,
                messages.Pob,
            ),
        )

    def _others(self, me: str) -> tuple[str, ...]:
        return tuple(p for p in (self.sender, *self.recipients) if p != me)

    def yes(self, me: str) -> messages.Snd:
        """Accept: YES goes to the proposer and every other recipient (spec §4.2)."""
        return to(self._others(me), messages.Yes(self.press))

    def rej(self) -> messages.Snd:
        return to((self.sender,), messages.Rej(self.press))

    def bwx(self) -> messages.Snd:
        """ "None of your business"."""
        return to((self.sender,), messages.Bwx(self.press))

    def huh(self, understood: Iterable[str] = LEVEL_30_TOKENS) -> messages.Snd:
        """ "Too complicated": the press echoed with ERR before the first press token not in
        ``understood`` (at the front when there is none)."""
        known = set(understood)
        words = list(self.words)
        at = next((i for i, w in enumerate(words) if w in TOKEN_LEVEL and w not in known), 0)
        return to((self.sender,), messages.Huh((*words[:at], "ERR", *words[at:])))

    def try_(self, understood: Sequence[str] = LEVEL_30_TOKENS) -> messages.Snd:
        """``TRY (tokens)``: what we understand, sent after a HUH."""
        return to((self.sender,), messages.Try(tuple(understood)))


# -- tying replies to proposals ----------------------------------------------------------------


class Proposals:
    """A bot's view of the one proposal tracker (:class:`protocol.pressbook.Tracker`): every
    press message it sends (:meth:`sent`) and receives (:meth:`heard`, or :meth:`reply` for
    the replies alone) goes in, and each call returns the proposal it made or changed, if any
    (``agreed`` once every recipient said yes, ``refused`` once any said anything else).

    ``me``: our power (set it when the game starts); ``table``: the game's token table (a HUH
    echoes a proposal as words, read back with it). A new phase (:meth:`expire`) lapses what is
    still unanswered, as the page's reading of the same press does."""

    def __init__(self, table: TokenTable, me: str = "") -> None:
        self.me = me
        self.tracker = Tracker(table)
        self.phase = ""
        self._seq = 0

    def _add(
        self, sender: str, recipients: Sequence[str], press: messages.Press, phase: str
    ) -> Proposal | None:
        self.phase = phase or self.phase
        self._seq += 1
        return self.tracker.add(PressItem(self._seq, self.phase, sender, tuple(recipients), press))

    def sent(self, snd: messages.Snd, phase: str = "", at: float = 0.0) -> Proposal | None:
        p = self._add(self.me, snd.recipients, snd.press, phase)
        if p is not None and isinstance(snd.press, messages.Prp):
            p.sent_at = at
        return p

    def heard(self, incoming: Incoming, phase: str = "") -> Proposal | None:
        """Any press message delivered to us (a proposal, an answer, a cancellation)."""
        # A message delivered to us names us among its recipients; before ``me`` is known a
        # reply to our proposal must still find it.
        recipients = incoming.recipients if self.me else (*incoming.recipients, "")
        return self._add(incoming.sender, recipients, incoming.press, phase)

    def reply(self, incoming: Incoming, phase: str = "") -> Proposal | None:
        """A YES/REJ/BWX/HUH to one of our proposals: the proposal it answers, or None."""
        if not isinstance(incoming.press, REPLIES):
            return None
        p = self.heard(incoming, phase)
        return p if p is not None and p.sender == self.me else None

    def waiting(self) -> Iterator[Proposal]:
        """Our proposals some recipient has not answered yet."""
        return iter(self.tracker.waiting(self.me))

    def expire(self, phase: str = "") -> None:
        """A new phase: what was not answered lapses."""
        self.phase = phase or self.phase
        self.tracker.lapse(phase or None)


__all__ = [
    "LEVEL_30_TOKENS",
    "Arrangement",
    "Incoming",
    "Proposal",
    "Proposals",
    "alliance",
    "both",
    "dmz",
    "draw",
    "either",
    "level_of",
    "parts",
    "peace",
    "propose",
    "to",
    "xdo",
]
