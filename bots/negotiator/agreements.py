"""Agreements in force, and how the orders of a phase kept or broke them.

An agreement is one arrangement (an ``AND`` is stored as its parts) with the powers party to it.
``PCE`` and ``ALY`` last until cancelled (``NOT``/``NAR``) or broken; a ``DMZ`` lasts until
cancelled; an ``XDO`` is for the next phase in which its order is legal (spec §4.3) and lapses
after it. :meth:`Ledger.plan` turns what is in force into constraints for the core;
:func:`breaches` reads a phase's ORD results against what was in force then.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from bots.negotiator.core import Plan
from bots.press import Arrangement, parts
from engine.map import province_of
from engine.orders import (
    PHASE_ORDERS,
    Build,
    Convoy,
    Hold,
    Move,
    Order,
    Retreat,
    SupportHold,
    SupportMove,
    order_power,
)
from engine.state import GameState, Phase
from protocol import messages as m


@dataclass(frozen=True)
class Agreement:
    arrangement: Arrangement
    parties: frozenset[str]  # every power party to it, us included
    phase: Phase  # when it was agreed


class Ledger:
    """Our agreements in force (``active``) and those that ended (``ended``)."""

    def __init__(self, me: str) -> None:
        self.me = me
        self.active: list[Agreement] = []
        self.ended: list[Agreement] = []

    def add(self, arrangement: Arrangement, parties: Iterable[str], phase: Phase) -> None:
        """Record an agreed arrangement (an AND as its parts); a later agreement overrides an
        equal earlier one."""
        who = frozenset(parties) | {self.me}
        for part in parts(arrangement):
            if isinstance(part, m.Not | m.Nar):
                self.cancel(part.inner)  # type: ignore[arg-type]
                continue
            self.active = [a for a in self.active if a.arrangement != part]
            self.active.append(Agreement(part, who, phase))

    def cancel(self, arrangement: Arrangement) -> None:
        keep: list[Agreement] = []
        for a in self.active:
            (self.ended if a.arrangement == arrangement else keep).append(a)
        self.active = keep

    def end_with(self, power: str) -> list[Agreement]:
        """End every agreement ``power`` is party to; returns them."""
        gone = [a for a in self.active if power in a.parties]
        self.active = [a for a in self.active if power not in a.parties]
        self.ended += gone
        return gone

    def lapse(self, phase: Phase) -> None:
        """XDOs agreed before ``phase`` for an earlier phase are over."""
        keep = []
        for a in self.active:
            if isinstance(a.arrangement, m.Xdo) and a.phase < phase and not _pending_xdo(a, phase):
                self.ended.append(a)
            else:
                keep.append(a)
        self.active = keep

    # -- what is in force ------------------------------------------------------------------

    def allies(self) -> frozenset[str]:
        out: set[str] = set()
        for a in self.active:
            if isinstance(a.arrangement, m.Aly) and self.me in a.arrangement.allies:
                out |= set(a.arrangement.allies)
        return frozenset(out - {self.me})

    def friends(self) -> frozenset[str]:
        """Allies and powers at peace with us."""
        out: set[str] = set(self.allies())
        for a in self.active:
            if isinstance(a.arrangement, m.Pce) and self.me in a.arrangement.powers:
                out |= set(a.arrangement.powers)
        return frozenset(out - {self.me})

    def enemies(self) -> frozenset[str]:
        out: set[str] = set()
        for a in self.active:
            if isinstance(a.arrangement, m.Aly) and self.me in a.arrangement.allies:
                out |= set(a.arrangement.versus)
        return frozenset(out - self.friends())

    def dmzs(self) -> list[m.Dmz]:
        return [
            a.arrangement
            for a in self.active
            if isinstance(a.arrangement, m.Dmz) and self.me in a.arrangement.powers
        ]

    def xdos(self, phase: Phase) -> list[Order]:
        """The orders agreed (by XDO) for ``phase``."""
        kinds = PHASE_ORDERS[phase.kind]
        return [
            a.arrangement.order
            for a in self.active
            if isinstance(a.arrangement, m.Xdo) and isinstance(a.arrangement.order, kinds)
        ]

    def plan(self, state: GameState) -> Plan:
        """What is in force in ``state`` as constraints for the core: allies, zones, agreed
        orders, and the friends' units and centres we do not attack."""
        phase = state.phase
        dmz: set[str] = set()
        bound: set[str] = set()
        for d in self.dmzs():
            dmz |= set(d.provinces)
            bound |= set(d.powers)
        return Plan(
            allies=self.allies(),
            dmz=frozenset(dmz),
            dmz_powers=frozenset(bound),
            required=tuple(self.xdos(phase)),
            friends=self.friends() | {self.me},
        )

    def with_power(self, power: str) -> list[Agreement]:
        return [a for a in self.active if power in a.parties]


def _pending_xdo(a: Agreement, phase: Phase) -> bool:
    """An XDO agreed in an earlier phase is still waiting if its order was not for the phase
    it was agreed in (a build agreed in the Fall is for the Winter) and a year has not gone."""
    assert isinstance(a.arrangement, m.Xdo)
    own_phase = isinstance(a.arrangement.order, PHASE_ORDERS[a.phase.kind])
    return not own_phase and phase.index - a.phase.index < 5


# -- judging a phase's orders ----------------------------------------------------------------


@dataclass(frozen=True)
class Breach:
    power: str
    agreement: Agreement
    betrayal: bool  # an attack on us by a friend (ends everything with them)
    what: str


def dmz_breaking(order: Order, dmz: frozenset[str]) -> bool:
    """Does ``order`` go into, support or convoy into, or stay in a demilitarised province?"""
    if isinstance(order, Move | Retreat):
        return province_of(order.dest) in dmz
    if isinstance(order, SupportMove | Convoy):
        return province_of(order.dest) in dmz or order.unit.province in dmz
    if isinstance(order, SupportHold):
        return order.target.province in dmz or order.unit.province in dmz
    if isinstance(order, Build | Hold):
        return order.unit.province in dmz
    return False


def _same(a: Order, b: Order) -> bool:
    """The same order, whatever the convoy route or coast spelling says."""
    if type(a) is not type(b):
        return False
    if isinstance(a, Move) and isinstance(b, Move):
        return a.unit == b.unit and province_of(a.dest) == province_of(b.dest)
    return str(a) == str(b)


def breaches(
    me: str, agreements: Sequence[Agreement], before: GameState, orders: Sequence[Order]
) -> tuple[list[Breach], list[Agreement]]:
    """The agreements ``orders`` (every power's orders in the phase played from ``before``)
    broke, and those kept. A friend (peace or alliance) moving into, or supporting a
    move into, a province with one of our units or one of our centres betrays us; a DMZ
    entered or an agreed XDO not ordered is broken."""
    by_power: dict[str, list[Order]] = {}
    for o in orders:
        by_power.setdefault(order_power(o), []).append(o)
    leaving = {o.unit.province for o in by_power.get(me, []) if isinstance(o, Move)}
    ours = {u.province for u in before.units.values() if u.power == me} - leaving
    ours |= {c for c, p in before.centres.items() if p == me}
    out: list[Breach] = []
    kept: list[Agreement] = []
    kinds = PHASE_ORDERS[before.phase.kind]
    for a in agreements:
        arr = a.arrangement
        others = [p for p in a.parties if p != me]
        broke = False
        if isinstance(arr, m.Dmz):
            zone = frozenset(arr.provinces)
            for p in arr.powers:
                if p == me:
                    continue
                for o in by_power.get(p, []):
                    if dmz_breaking(o, zone):
                        out.append(Breach(p, a, False, f"{o} in a DMZ"))
                        broke = True
        elif isinstance(arr, m.Xdo):
            o = arr.order
            p = order_power(o)
            due = p != me and isinstance(o, kinds) and before.units.get(_province(o)) is not None
            if due and not any(_same(o, x) for x in by_power.get(p, [])):
                out.append(Breach(p, a, False, f"XDO {o} not ordered"))
                broke = True
        elif isinstance(arr, m.Pce | m.Aly):
            for p in others:
                for o in by_power.get(p, []):
                    hit = _attack_on(o, ours, before, me)
                    if hit:
                        out.append(Breach(p, a, True, f"{o} attacks us"))
                        broke = True
        if not broke:
            kept.append(a)
    return out, kept


def _province(o: Order) -> str:
    return o.unit.province  # type: ignore[union-attr]


def _attack_on(o: Order, ours: set[str], before: GameState, me: str) -> bool:
    if isinstance(o, Move):
        return province_of(o.dest) in ours
    if isinstance(o, SupportMove):
        return province_of(o.dest) in ours and o.target.power != me
    return False


__all__ = ["Agreement", "Breach", "Ledger", "breaches", "dmz_breaking"]
