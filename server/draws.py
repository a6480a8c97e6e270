"""Draw votes (DRW, and partial draws with PDA) of the phase in progress."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field


@dataclass
class DrawVotes:
    votes: dict[str, set[tuple[str, ...]]] = field(default_factory=dict)  # power -> draws

    def vote(self, power: str, parties: tuple[str, ...], on: bool) -> None:
        mine = self.votes.setdefault(power, set())
        if on:
            mine.add(parties)
        else:
            mine.discard(parties)

    def agreed(self, alive: Sequence[str]) -> tuple[str, ...] | None:
        """The largest draw every surviving power votes for, if any."""
        if not alive:
            return None
        common = set.intersection(*(self.votes.get(p, set()) for p in alive))
        return max(common, key=len) if common else None

    def clear(self) -> None:
        self.votes.clear()
