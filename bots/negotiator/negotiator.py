"""The negotiator: the "upper brain" that talks, over a strategic core it only questions.

Each movement phase of a game with press (level 10 and up):

1. it reads the last phase's ORD results against the agreements then in force
   (:func:`~bots.negotiator.agreements.breaches`): kept ones raise the partner's trust, a DMZ
   entered or an XDO not ordered lowers it, a friend's attack on our units or centres is a
   betrayal (trust to 0, every agreement with them ended, remembered);
2. in its first movement phase it tells every power what it discusses (``TRY (tokens)``):
   silent bots say nothing to that, a talker's TRY in return gets an alliance proposal at
   once from whichever of the two comes first in the map's order; and without an ally, with
   chance ``initiative`` (and, with ``pact``, to every power in its first movement phase),
   it proposes ``ALY (us them) VSS (...)`` to the
   trusted power whose alliance the core values most (the value of the partition with the
   alliance less the two powers' values apart), never to a power near a solo and against the
   strongest others (balance of power);
3. with allies (level 20 and up) it asks the core for the alliance's best orders and proposes
   them as XDOs (the ally's supports for our units, ours for theirs), plus a DMZ of the empty
   provinces both sides border, once per alliance; at level 30 the parts go in one ``AND``;
4. it answers every proposal at once: ``BWX`` to what is not its business, ``YES``/``REJ`` by
   trust and by what the core says the constraints cost (``REJ`` plus a counter-proposal of
   the acceptable parts of an ``AND``, or the acceptable option of an ``ORR``), ``HUH`` then
   ``TRY`` to anything above level 30;
5. when the talk window ends (or every proposal is answered) it orders: the core's best orders
   under the agreements in force (allies summed, DMZs kept out of, XDOs required); with
   chance ``1 - honesty`` it asks the core for its orders free of every agreement and plays
   them if they break one.

At level 0 it is the core, untouched: the same orders with the same seed.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Sequence
from typing import Any

from diplomat.bots.base import Bot, View
from diplomat.bots.negotiator.agreements import Ledger, breaches
from diplomat.bots.negotiator.core import Core, Plan, cost
from diplomat.bots.negotiator.personality import Personality
from diplomat.bots.negotiator.trust import Trust
from diplomat.bots.press import (
    LEVEL_30_TOKENS,
    Arrangement,
    Incoming,
    Proposals,
    alliance,
    both,
    dmz,
    parts,
    propose,
    to,
    xdo,
)
from diplomat.engine.orders import Order, SupportHold, SupportMove, order_power
from diplomat.engine.state import GameState, Phase
from diplomat.protocol import messages
from diplomat.protocol.levels import TOKEN_LEVEL
from diplomat.protocol.pressbook import Proposal

log = logging.getLogger("bots")

PLAN_SHARE = 0.5  # of a decision's thinking, for the alliance's plan at the phase's start
QUESTION_SHARE = 0.2  # for each "what does it cost" question
MAX_ALLIES = 2
MAX_XDO = 2  # XDOs a phase in each direction
DMZ_SIZE = 2
STALLED = 2  # years without a centre changing hands in our alliance before we offer a draw
TENSION_WORTH = 0.5  # value of a centre within a neighbour's reach, freed by peace


class Negotiator(Bot):
    """A talking diplomat: ``core`` plays, the negotiator talks and sets its constraints."""

    name = "Negotiator"
    version = "1.0"

    def __init__(
        self,
        core: Core,
        personality: Personality | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.core = core
        self.personality = personality or Personality()
        self.clock = clock
        self.me: str | None = None
        self.ledger: Ledger | None = None
        self.trust: Trust | None = None
        self.proposals: Proposals | None = None  # the game's tracker, made at the start
        self.votes: list[messages.Drw] = []  # draws agreed by our own YES, to vote for
        # Agreements our own reply completed (by the tracker's seq): the others may have
        # ordered before it reached them (see _judge).
        self.completed: set[int] = set()
        self.silent: set[str] = set()  # answered HUH or TRY (): no press
        self.talkers: set[str] = set()  # have talked to us
        self.dmz_offered: set[str] = set()
        self.phase_began = 0.0
        self.ordered: Phase | None = None  # the phase whose orders are made
        self.stale = False  # an agreement came after the orders: order again
        self.opened = False  # the first movement phase has begun
        self.history: list[int] = []  # our alliance's centres each Spring
        self.last_movement: GameState | None = None
        self.judged: Phase | None = None
        self.year: int | None = None
        self.stats: dict[str, Any] = {
            "proposals_sent": 0,
            "proposals_agreed": 0,
            "proposals_received": 0,
            "accepted": 0,
            "rejected": 0,
            "huh_sent": 0,
            "agreements_checked": 0,
            "agreements_kept": 0,
            "broken_by_us": 0,
            "betrayals": {},
            "talk_seconds": 0.0,
            "messages": 0,
        }

    # -- set-up and bookkeeping ------------------------------------------------------------

    def _setup(self, view: View) -> tuple[str, Ledger, Trust]:
        if self.me is None or self.ledger is None or self.trust is None:
            self.me = view.power
            self.ledger = Ledger(view.power)
            others = [p for p in view.powers if p != view.power]
            self.trust = Trust(others, self.personality.trust, self.personality.forgiveness)
            self.proposals = Proposals(view.table, view.power)
        return self.me, self.ledger, self.trust

    def _book(self, view: View) -> Proposals:
        self._setup(view)
        assert self.proposals is not None
        return self.proposals

    @staticmethod
    def _level(view: View) -> int:
        return view.variant.level if view.variant is not None else 0

    def _alive(self, view: View) -> list[str]:
        return [p for p in view.state.alive() if p != view.power]

    def _send(self, view: View, out: list[messages.Snd]) -> list[messages.Snd]:
        book = self._book(view)
        for snd in out:
            p = book.sent(snd, view.phase.name, self.clock())
            if isinstance(snd.press, messages.Prp):
                self.stats["proposals_sent"] += 1
            elif p is not None:
                self.votes += self._settled(view, p)  # our YES may complete it
        self.stats["messages"] += len(out)
        return out

    def _settled(self, view: View, p: Proposal) -> list[messages.Drw]:
        """A proposal the tracker just saw agreed (it returns a proposal only while it is
        open) goes into the ledger; a draw agreed by everyone: we vote for it."""
        me, ledger, _ = self._setup(view)
        if not p.agreed or me not in p.parties:
            return []
        ledger.add(p.arrangement, p.parties, view.phase, p.agreed_at or 0)
        if p.agreed_by == me:
            self.completed.add(p.agreed_at or 0)
        if isinstance(p.arrangement, Arrangement):  # others may agree to what we never say
            self._late(view, p.arrangement)
        if p.sender == me:
            self.stats["proposals_agreed"] += 1
            log.info("agreed with %s: %s", ",".join(p.recipients), type(p.arrangement).__name__)
        return [p.arrangement] if isinstance(p.arrangement, messages.Drw) else []

    # -- the phase -------------------------------------------------------------------------

    def phase_start(self, view: View) -> Sequence[messages.Snd]:
        me, ledger, trust = self._setup(view)
        self.phase_began = self.clock()
        self._judge(view)
        if self.year is not None and view.phase.year > self.year:
            trust.new_year()
        self.year = view.phase.year
        self._book(view).expire(view.phase.name)
        ledger.lapse(view.phase)
        for gone in set(view.powers) - set(view.state.alive()):
            ledger.end_with(gone)
        if view.kind != "movement" or me not in view.state.alive():
            return []  # an eliminated power may not send press (the server refuses it)
        self.last_movement = view.state
        level = self._level(view)
        out: list[messages.Snd] = []
        allies = ledger.allies()
        first = not self.opened
        self.opened = True
        if first and self._alive(view):
            # Say what we can discuss to everyone at once: a talker learns of us without a
            # round of proposals to silent bots (they answer nothing to a TRY), and whoever
            # comes first in the map's order proposes the alliance on hearing it (_heard).
            out.append(to(self._alive(view), messages.Try(tuple(self._vocabulary(view)))))
        personality = self.personality
        pact, initiative = personality.pact, personality.initiative
        if not allies and ((first and pact) or view.rng.random() < initiative):
            ranked = self._candidates(view)
            tries = 1 if self.talkers else 1 + round(2 * initiative)
            if first and pact:
                tries = len(ranked)  # whoever answers is our ally
            for partner in ranked[:tries]:
                offer = self._offer(view, partner)
                if offer is not None:
                    out.append(offer)
        if allies and level >= 20:
            out += self._coordinate(view, allies, level)
        out += self._draw(view)
        return self._send(view, out)

    def _draw(self, view: View) -> list[messages.Snd]:
        """A draw proposed to every survivor when our alliance's centres have not changed for
        STALLED years and every survivor talks (a draw needs them all)."""
        me, ledger, _ = self._setup(view)
        if view.phase.season != "SPR":
            return []
        counts = view.state.centre_counts()
        ours = sum(counts.get(p, 0) for p in ledger.allies() | {me})
        self.history.append(ours)
        others = self._alive(view)
        stalled = len(self.history) > STALLED and len(set(self.history[-STALLED - 1 :])) == 1
        if not stalled or not others or not set(others) <= self.talkers - self.silent:
            return []
        return [to(others, propose(messages.Drw()))]

    def _candidates(self, view: View) -> list[str]:
        """Powers we would ally with, best first: alive, talking (or not yet known silent),
        trusted, not near a solo; ranked by what the core says the alliance adds."""
        me, ledger, trust = self._setup(view)
        cands = [
            p
            for p in self._alive(view)
            if p not in self.silent
            and trust.trusted(p)
            and not self.core.near_solo(view, p)
            and p not in ledger.enemies()
        ]
        if not cands:
            return []
        powers = view.powers
        alone = [frozenset({p}) for p in powers]
        apart = dict(zip(powers, self.core.value(view, alone), strict=True))
        gain: dict[str, float] = {}
        for p in cands:
            groups = [frozenset({me, p}), *(frozenset({q}) for q in powers if q not in (me, p))]
            together = self.core.value(view, groups)[0]
            synergy = together - apart[me] - apart[p]
            freed = self.core.tension(view, me, p)
            gain[p] = synergy + TENSION_WORTH * freed + (0.5 if p in self.talkers else 0.0)
        return sorted(cands, key=lambda p: (-gain[p], p))

    def _offer(self, view: View, partner: str) -> messages.Snd | None:
        """``ALY (us partner) VSS (...)`` to ``partner``, if there is anyone to be against."""
        me = self._setup(view)[0]
        versus = self._versus(view, {me, partner})
        if not versus:
            return None
        return to((partner,), propose(alliance((me, partner), versus)))

    def _heard(self, view: View, sender: str, tokens: Sequence[str]) -> list[messages.Snd]:
        """A TRY listing what ``sender`` discusses: it talks. Without an ally, and with no
        alliance proposal of ours waiting on another talker, we propose one at once if we
        would ally with it and come first of the two in the map's order (the other waits for
        our proposal rather than crossing it)."""
        me, ledger, _ = self._setup(view)
        self.talkers.add(sender)
        self.silent.discard(sender)
        powers = list(view.powers)
        if (
            "ALY" not in tokens
            or sender not in powers
            or view.kind != "movement"
            or ledger.allies()
            or powers.index(me) > powers.index(sender)
            or any(
                isinstance(p.arrangement, messages.Aly) and set(p.recipients) & self.talkers
                for p in self._book(view).waiting()
            )
            or sender not in self._candidates(view)
        ):
            return []
        offer = self._offer(view, sender)
        return [] if offer is None else [offer]

    def _vocabulary(self, view: View) -> list[str]:
        """The press tokens we discuss at this game's level."""
        level = self._level(view)
        return [t for t in LEVEL_30_TOKENS if TOKEN_LEVEL[t] <= level]

    def _versus(self, view: View, alliance_: set[str]) -> list[str]:
        """Whom an alliance is against: the strongest two others (the leader first)."""
        counts = view.state.centre_counts()
        others = [p for p in self._alive(view) if p not in alliance_]
        others.sort(key=lambda p: (-counts.get(p, 0), p))
        return others[:2]

    def _coordinate(self, view: View, allies: frozenset[str], level: int) -> list[messages.Snd]:
        """The alliance's plan as proposals: XDOs for supports both ways, a border DMZ."""
        me, ledger, _ = self._setup(view)
        answer = self.core.best(view, ledger.plan(view.state), PLAN_SHARE)
        out: list[messages.Snd] = []
        for ally in sorted(allies):
            if ally in self.silent:
                continue
            arrs: list[Arrangement] = []
            if ally not in self.dmz_offered:
                zone = self.core.border(view, me, ally)[:DMZ_SIZE]
                if zone:
                    arrs.append(dmz((me, ally), zone))
                self.dmz_offered.add(ally)
            theirs = [
                o
                for o in answer.of(ally)
                if isinstance(o, SupportMove | SupportHold) and o.target.power == me
            ]
            ours = [
                o
                for o in answer.of(me)
                if isinstance(o, SupportMove | SupportHold) and o.target.power == ally
            ]
            arrs += [xdo(o) for o in theirs[:MAX_XDO]] + [xdo(o) for o in ours[:MAX_XDO]]
            if not arrs:
                continue
            if level >= 30:
                out.append(to((ally,), propose(both(*arrs))))
            else:
                out += [to((ally,), propose(a)) for a in arrs]
        return out

    def talk_time(self, view: View) -> float:
        if view.kind != "movement" or self._level(view) < 10:
            return 0.0
        talk = self.personality.talk
        window = talk if talk is not None else min(4.0, 0.5 + 2.0 * self.core.think())
        v = view.variant
        if v is not None and v.mtl:
            room = v.mtl * 0.25
            if v.ptl:
                room = min(room, v.mtl - v.ptl - 1.0)
            window = min(window, max(0.0, room))
        return window

    def ready(self, view: View) -> bool:
        """Every proposal we made is answered, and the others have had time to make theirs."""
        if any(True for _ in self._book(view).waiting()):
            return False
        if not self.talkers - self.silent:
            return True
        settle = 0.2 + 1.5 * PLAN_SHARE * self.core.think()
        return self.clock() - self.phase_began >= settle

    def _late(self, view: View, arr: Arrangement) -> None:
        """An agreement made after this phase's orders: order again if it binds them."""
        if self.ordered == view.phase and any(
            isinstance(a, messages.Dmz | messages.Xdo | messages.Aly | messages.Pce)
            for a in parts(arr)
        ):
            self.stale = True

    def revise(self, view: View) -> bool:
        stale, self.stale = self.stale, False
        return stale

    # -- orders ----------------------------------------------------------------------------

    def orders(self, view: View) -> list[Order]:
        if self._level(view) < 10:
            return self.core.silent(view)
        me, ledger, _ = self._setup(view)
        if view.kind == "movement":
            self.stats["talk_seconds"] += self.clock() - self.phase_began
        self.ordered = view.phase
        plan = ledger.plan(view.state)
        mine = self.core.best(view, plan, 1.0).of(me)
        honesty = self.personality.honesty
        if honesty < 1.0 and ledger.active and view.rng.random() >= honesty:
            free = self.core.best(view, Plan(), 1.0).of(me)
            if self._breaks(view, free, plan):
                self.stats["broken_by_us"] += 1
                log.info("%s: breaking our agreements", view.phase.name)
                mine = free
        return mine

    def _breaks(self, view: View, orders: Sequence[Order], plan: Plan) -> bool:
        """Would our ``orders`` break an agreement in force, by the law?"""
        return bool(self._setup(view)[1].broken_by(orders, view.state))

    # -- judging the last phase ------------------------------------------------------------

    def _judge(self, view: View) -> None:
        me, ledger, trust = self._setup(view)
        before = self.last_movement
        if before is None or self.judged == before.phase or not view.results:
            return
        if view.results[0].turn != before.phase:
            return
        self.judged = before.phase
        orders = [r.order for r in view.results if r.order is not None]
        found, kept = breaches(me, ledger.active, before, orders)
        # A reply of ours that completed an agreement late in a phase may have reached the
        # others after they ordered, or after the phase ended (the server then stamps it with
        # the next phase, and by the law the proposal had lapsed): not held against them in
        # that phase.
        found = [
            b
            for b in found
            if not (b.agreement.seq in self.completed and b.agreement.phase == before.phase)
        ]
        self.stats["agreements_checked"] += len(found) + len(kept)
        self.stats["agreements_kept"] += len(kept)
        for a in kept:
            for p in set(a.parties) - {me}:
                trust.kept(p)
        for b in found:
            trust.breach(b, before.phase.name)
            log.info("%s broke %s: %s", b.power, type(b.agreement.arrangement).__name__, b.what)
            if b.betrayal or not trust.trusted(b.power):
                ledger.end_with(b.power)
                if b.betrayal:
                    self.stats["betrayals"].setdefault(b.power, []).append(before.phase.name)

    # -- press -----------------------------------------------------------------------------

    def press(self, view: View, incoming: Incoming) -> Sequence[messages.Snd | messages.Drw] | None:
        me, _ledger, _ = self._setup(view)
        sender, press = incoming.sender, incoming.press
        if me not in view.state.alive():
            return []  # out of the game: nothing we say would be delivered
        # Every message goes through the one tracker: proposals, answers (ours to others'
        # proposals too), cancellations; an agreement it completes goes into the ledger.
        changed = self._book(view).heard(incoming, view.phase.name)
        if isinstance(press, messages.Try):
            if not press.tokens:
                self.silent.add(sender)
                return []
            return self._send(view, self._heard(view, sender, press.tokens))
        if isinstance(press, messages.Huh):
            self.silent.add(sender)
            return []
        if isinstance(press, messages.Yes | messages.Rej | messages.Bwx):
            self.talkers.add(sender)
            self.silent.discard(sender)
            return self._settled(view, changed) if changed is not None else []
        if incoming.is_reply:
            return []
        self.talkers.add(sender)
        self.silent.discard(sender)
        if isinstance(press, messages.Prp):
            out: list[messages.Snd | messages.Drw] = [
                *self._send(view, self._answer(view, incoming))
            ]
            out += self.votes  # a draw our YES completed
            self.votes = []
            return out
        if isinstance(press, messages.Ccl | messages.Fct):
            return []  # a cancellation (the tracker has it) or information: nothing to answer
        self.stats["huh_sent"] += 1
        return self._send(view, self._huh(view, incoming))

    def _huh(self, view: View, incoming: Incoming) -> list[messages.Snd]:
        return [incoming.huh(LEVEL_30_TOKENS), incoming.try_(self._vocabulary(view))]

    def _answer(self, view: View, incoming: Incoming) -> list[messages.Snd]:
        me, _ledger, _ = self._setup(view)
        arr = incoming.proposal
        assert arr is not None
        self.stats["proposals_received"] += 1
        verdict, counter = self._verdict(view, incoming.sender, arr)
        if verdict == "YES":
            self.stats["accepted"] += 1
            return [incoming.yes(me)]  # agreed (in _send) once every recipient says yes
        if verdict == "BWX":
            return [incoming.bwx()]
        self.stats["rejected"] += 1
        out = [incoming.rej()]
        if counter is not None:
            out.append(to((incoming.sender,), propose(counter)))
        return out

    def _verdict(self, view: View, sender: str, arr: Arrangement) -> tuple[str, Arrangement | None]:
        """YES, REJ (with a counter-proposal, if any) or BWX."""
        if isinstance(arr, messages.Orr):
            for part in parts(arr):
                if self._verdict(view, sender, part)[0] == "YES":
                    return "REJ", part
            return "REJ", None
        items = parts(arr)
        verdicts = [self._part(view, sender, a) for a in items]
        if len(items) == 1 and verdicts[0] == "BWX":
            return "BWX", None
        ok = [a for a, v in zip(items, verdicts, strict=True) if v in ("YES", "COST")]
        if len(ok) == len(items) and self._affordable(view, ok):
            return "YES", None
        acceptable = [a for a, v in zip(items, verdicts, strict=True) if v == "YES"]
        if acceptable and len(acceptable) < len(items):
            return "REJ", both(*acceptable)
        return "REJ", None

    def _part(self, view: View, sender: str, arr: Arrangement) -> str:
        """One arrangement: YES, REJ, BWX, or COST (acceptable if the core says it is
        cheap)."""
        me, ledger, _trust = self._setup(view)
        if isinstance(arr, messages.Pce):
            if me not in arr.powers:
                return "BWX"
            others = set(arr.powers) - {me}
            return "YES" if self._friendly(view, others) else "REJ"
        if isinstance(arr, messages.Aly):
            if me not in arr.allies:
                return "REJ" if me in arr.versus else "BWX"
            others = set(arr.allies) - {me}
            if set(arr.versus) & ledger.friends() or len(others | ledger.allies()) > MAX_ALLIES:
                return "REJ"
            return "YES" if self._friendly(view, others) else "REJ"
        if isinstance(arr, messages.Drw):
            if arr.powers is not None and me not in arr.powers:
                return "BWX"
            counts = view.state.centre_counts()
            best_other = max((c for p, c in counts.items() if p != me), default=0)
            return "YES" if counts.get(me, 0) <= best_other else "REJ"
        if isinstance(arr, messages.Slo):
            return "YES" if arr.power == me else "REJ"
        if isinstance(arr, messages.Not | messages.Nar):
            return "YES"
        if isinstance(arr, messages.Xdo):
            owner = order_power(arr.order)
            if owner == sender:
                return "YES"  # a promise of theirs
            if owner != me:
                return "BWX"
            return "COST" if self._friendly(view, {sender}) else "REJ"
        if isinstance(arr, messages.Dmz):
            if me not in arr.powers:
                return "BWX"
            return "COST" if self._friendly(view, set(arr.powers) - {me}) else "REJ"
        return "REJ"

    def _friendly(self, view: View, powers: set[str]) -> bool:
        _, ledger, trust = self._setup(view)
        return all(
            trust.trusted(p) and not self.core.near_solo(view, p) and p not in ledger.enemies()
            for p in powers
        )

    def _affordable(self, view: View, arrs: Sequence[Arrangement]) -> bool:
        """What the constraints among ``arrs`` would cost us is within our tolerance."""
        me, ledger, _ = self._setup(view)
        zone: set[str] = set()
        bound: set[str] = set()
        required: list[Order] = []
        for a in arrs:
            if isinstance(a, messages.Dmz):
                zone |= set(a.provinces)
                bound |= set(a.powers)
            elif isinstance(a, messages.Xdo) and order_power(a.order) == me:
                required.append(a.order)
        if not zone and not required:
            return True
        extra = Plan(dmz=frozenset(zone), dmz_powers=frozenset(bound), required=tuple(required))
        price = cost(self.core, view, ledger.plan(view.state), extra, QUESTION_SHARE)
        return price <= self.personality.generosity

    # -- the end ---------------------------------------------------------------------------

    def game_over(self, summary: messages.Smr | None) -> None:
        trust = self.trust
        self.stats["trust"] = {p: round(v, 2) for p, v in (trust.level if trust else {}).items()}
        self.stats["talk_seconds"] = round(self.stats["talk_seconds"], 2)
        log.info("negotiation summary %s", json.dumps(self.stats, sort_keys=True))


__all__ = ["Negotiator"]
