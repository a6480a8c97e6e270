"""Our agreements in force, as constraints for the core, and how the orders of a phase kept or
broke them, all by the law of agreements (:mod:`protocol.agreements`): what an arrangement
binds, from which phase, and which orders break it are decided there, for the page and every
bot alike. This module only keeps our side of it: which agreements we are party to, who our
friends and enemies are, and which breaches are attacks on us (betrayals).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from diplomat.bots.negotiator.core import Plan
from diplomat.engine.orders import Order
from diplomat.engine.state import GameState, Phase
from diplomat.protocol import agreements as law
from diplomat.protocol import messages
from diplomat.protocol.agreements import Agreement


class Ledger(law.Ledger):
    """Our agreements in force (``active``) and those that ended (``ended``)."""

    def __init__(self, me: str) -> None:
        super().__init__()
        self.me = me

    def add(
        self, arrangement: messages.Arrangement, parties: Iterable[str], phase: Phase, seq: int = 0
    ) -> None:
        """Record an agreed arrangement (we are party to it whoever proposed it)."""
        who = (self.me, *sorted(set(parties) - {self.me}))
        super().add(arrangement, who, phase, seq)

    # -- what is in force ------------------------------------------------------------------

    def allies(self) -> frozenset[str]:
        out: set[str] = set()
        for a in self.active:
            if isinstance(a.arrangement, messages.Aly) and self.me in a.arrangement.allies:
                out |= set(a.arrangement.allies)
        return frozenset(out - {self.me})

    def friends(self) -> frozenset[str]:
        """Allies and powers at peace with us."""
        out: set[str] = set(self.allies())
        for a in self.active:
            if isinstance(a.arrangement, messages.Pce) and self.me in a.arrangement.powers:
                out |= set(a.arrangement.powers)
        return frozenset(out - {self.me})

    def enemies(self) -> frozenset[str]:
        out: set[str] = set()
        for a in self.active:
            if isinstance(a.arrangement, messages.Aly) and self.me in a.arrangement.allies:
                out |= set(a.arrangement.versus)
        return frozenset(out - self.friends())

    def dmzs(self) -> list[messages.Dmz]:
        return [
            a.arrangement
            for a in self.active
            if isinstance(a.arrangement, messages.Dmz) and self.me in a.arrangement.powers
        ]

    def xdos(self, phase: Phase) -> list[Order]:
        """The orders agreed (by XDO) for ``phase``."""
        return [
            a.arrangement.order
            for a in self.in_force(phase)
            if isinstance(a.arrangement, messages.Xdo)
        ]

    def barred(self, phase: Phase) -> frozenset[Order]:
        """The orders agreed not to be given (``NOT (XDO ...)``) in ``phase``."""
        return frozenset(
            a.arrangement.inner.order
            for a in self.in_force(phase)
            if isinstance(a.arrangement, messages.Not)
            and isinstance(a.arrangement.inner, messages.Xdo)
        )

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
            forbidden=self.barred(phase),
            friends=self.friends() | {self.me},
        )

    def with_power(self, power: str) -> list[Agreement]:
        return [a for a in self.active if power in a.parties]

    def broken_by(self, orders: Sequence[Order], state: GameState) -> list[law.Breach]:
        """Our own breaches, were we to give ``orders`` in ``state``."""
        return [
            b
            for a in self.in_force(state.phase)
            for b in law.breaches(a.arrangement, state, orders)
            if b.power == self.me
        ]


# -- judging a phase's orders ----------------------------------------------------------------


@dataclass(frozen=True)
class Breach:
    """Another power's breach of one of our agreements; ``betrayal``: an attack on us by a
    friend (it ends everything with them)."""

    power: str
    agreement: Agreement
    betrayal: bool
    what: str


def breaches(
    me: str, agreements: Sequence[Agreement], before: GameState, orders: Sequence[Order]
) -> tuple[list[Breach], list[Agreement]]:
    """The breaches by others of ``agreements`` (those of them that bound the phase played
    from ``before``) in ``orders`` (every power's orders of that phase), and the agreements
    they kept. The law decides what breaks what; an attack of the law's on us is a betrayal."""
    out: list[Breach] = []
    kept: list[Agreement] = []
    for a in agreements:
        if not a.binds_in(before.phase) or not law.judged(a.arrangement):
            continue
        verdict = law.judge(a, before, orders)
        theirs = [b for b in verdict.breaches if b.power != me]
        out += [Breach(b.power, a, b.hostile and me in b.victims, b.why) for b in theirs]
        if not theirs:
            kept.append(a)
    return out, kept


__all__ = ["Agreement", "Breach", "Ledger", "breaches"]
