"""The deadline of a game's phase in progress, and the TME notices players asked for.

Times are the shell's monotonic seconds, passed in by the caller: the clock never reads one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from diplomat.server.effects import ClientId


@dataclass
class PhaseClock:
    deadline: float | None = None
    paused_remaining: float | None = None  # DSD: time left when the clock stopped
    notify: dict[ClientId, set[int]] = field(default_factory=dict)  # TME (s) requests
    notified: set[tuple[ClientId, int]] = field(default_factory=set)

    def begin(self, limit: float | None, now: float) -> None:
        """A new phase: ``limit`` seconds from ``now`` (None: no deadline)."""
        self.notified.clear()
        self.deadline = None if limit is None else now + limit
        self.paused_remaining = None

    def stop(self) -> None:
        self.deadline = None

    def pause(self, now: float) -> float | None:
        """Stop the clock (DSD); the seconds that were left, or None if it was not running."""
        if self.deadline is None:
            return None
        remaining = max(0.0, self.deadline - now)
        self.paused_remaining = remaining
        self.deadline = None
        return remaining

    def resume(self, now: float) -> float | None:
        """Start a paused clock again; the seconds left, or None if it was not paused."""
        remaining = self.paused_remaining
        if remaining is None:
            return None
        self.paused_remaining = None
        self.deadline = now + remaining
        return remaining

    def halt(self, now: float) -> float | None:
        """Stop the clock for good (the server is stopping); the seconds that were left,
        running or paused, or None without a deadline."""
        if self.deadline is not None:
            self.pause(now)
        remaining, self.paused_remaining = self.paused_remaining, None
        return remaining

    def left(self, now: float) -> int | None:
        """Whole seconds left (also while paused), or None without a deadline."""
        if self.deadline is not None:
            return max(0, round(self.deadline - now))
        if self.paused_remaining is not None:
            return round(self.paused_remaining)
        return None

    def ask(self, client: ClientId, seconds: int) -> None:
        """TME (seconds): tell ``client`` when that much time is left."""
        self.notify.setdefault(client, set()).add(seconds)

    def cancel(self, client: ClientId, seconds: int | None) -> bool:
        """NOT (TME ...): forget one notice (or all of the client's, for None); whether there
        was one to forget."""
        if seconds is None:
            self.notify.pop(client, None)
            return True
        wanted = self.notify.get(client, set())
        if seconds in wanted:
            wanted.discard(seconds)
            return True
        return False

    def forget(self, client: ClientId) -> None:
        self.notify.pop(client, None)

    def wakeups(self) -> list[float]:
        """The deadline and the times of the notices still to give."""
        if self.deadline is None:
            return []
        times = [self.deadline]
        for client, secs in self.notify.items():
            times += [self.deadline - s for s in secs if (client, s) not in self.notified]
        return times

    def due(self, now: float) -> list[tuple[ClientId, int]]:
        """The notices due at ``now`` (each given once), largest first for each client."""
        deadline = self.deadline
        if deadline is None:
            return []
        out = []
        for client, secs in self.notify.items():
            for s in sorted(secs, reverse=True):
                if now >= deadline - s and (client, s) not in self.notified:
                    self.notified.add((client, s))
                    out.append((client, s))
        return out
