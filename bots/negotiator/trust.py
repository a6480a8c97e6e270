"""The trust record: one number per power, from 0 (never believed) to 1, moved by what the
ORD results show, judged by the law of agreements (``protocol.agreements``, through
:func:`bots.negotiator.agreements.breaches`): kept agreements raise it a little; any other
breach (a zone entered, an agreed order not given, an attack on a third party to our peace)
lowers it; an attack on us by a friend drops it to nothing and is remembered. It recovers
each year by ``forgiveness`` towards where it started."""

from __future__ import annotations

from collections.abc import Iterable

from diplomat.bots.negotiator.agreements import Breach

KEPT = 0.05  # trust gained per agreement a power kept in a phase
BROKEN = 0.3  # trust lost per breach that is no attack on us
THRESHOLD = 0.5  # trusted at or above this


class Trust:
    def __init__(self, powers: Iterable[str], initial: float, forgiveness: float) -> None:
        self.initial = initial
        self.forgiveness = forgiveness
        self.level: dict[str, float] = {p: initial for p in powers}
        self.betrayals: dict[str, list[str]] = {}  # power -> phases it betrayed us in

    def trusted(self, power: str) -> bool:
        return self.level.get(power, self.initial) >= THRESHOLD

    def kept(self, power: str) -> None:
        self.level[power] = min(1.0, self.level.get(power, self.initial) + KEPT)

    def breach(self, b: Breach, phase: str) -> None:
        if b.betrayal:
            self.level[b.power] = 0.0
            self.betrayals.setdefault(b.power, []).append(phase)
        else:
            self.level[b.power] = max(0.0, self.level.get(b.power, self.initial) - BROKEN)

    def new_year(self) -> None:
        """Time heals, by ``forgiveness`` of the way back; a betrayer never recovers more
        than half of its start."""
        for p, v in self.level.items():
            ceiling = self.initial / 2 if p in self.betrayals else self.initial
            if v < ceiling:
                self.level[p] = min(ceiling, v + self.forgiveness * (self.initial - v))


__all__ = ["THRESHOLD", "Trust"]
