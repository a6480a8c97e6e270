"""The phases a game has processed, with their results: what HST and ORD answer, and how long
the centres have stayed unchanged (for the draw rule)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from diplomat.engine.state import GameState, Phase
from diplomat.protocol import messages


@dataclass(frozen=True, slots=True)
class Processed:
    phase: Phase  # the phase processed
    ords: list[messages.Ord]  # its results, in adjudication order
    after: GameState  # the position it led to


@dataclass
class History:
    phases: list[Processed] = field(default_factory=list)
    unchanged_since: int = 1901  # the year of the last phase that changed a centre's owner

    def __len__(self) -> int:
        return len(self.phases)

    def __iter__(self) -> Iterator[Processed]:
        return iter(self.phases)

    def since(self, count: int) -> list[Processed]:
        """The phases processed after the first ``count``."""
        return self.phases[count:]

    def add(self, before: GameState, ords: list[messages.Ord], after: GameState) -> None:
        self.phases.append(Processed(before.phase, ords, after))
        if after.centres != before.centres:
            self.unchanged_since = before.phase.year

    def unchanged_years(self, before: GameState) -> int:
        """Years without a centre changing hands, as of the phase ``before`` was in."""
        return before.phase.year - self.unchanged_since

    def turn(self, phase: Phase) -> list[messages.Ord | messages.Sco | messages.Now] | None:
        """HST: that phase's results and the SCO and NOW after it (None: never processed)."""
        for p in self.phases:
            if p.phase == phase:
                return [
                    *p.ords,
                    messages.Sco.from_centres(p.after.centres, p.after.map),
                    messages.Now.from_state(p.after),
                ]
        return None

    def last_orders(self) -> list[messages.Ord] | None:
        """ORD: the last movement phase's results and any retreat or adjustment results since
        (None before the first phase is processed)."""
        if not self.phases:
            return None
        start = max((i for i, p in enumerate(self.phases) if p.phase.kind == "movement"), default=0)
        return [o for p in self.phases[start:] for o in p.ords]
