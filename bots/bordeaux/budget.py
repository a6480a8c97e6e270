"""The work budget of one decision: a node count (reproducible) or seconds (anytime), and
always a hard time limit (``--think``, the server's deadline)."""

from __future__ import annotations

import time


class Budget:
    """``nodes``: adjudications allowed (None: limited by ``seconds`` instead). ``hard``:
    seconds never to exceed, whatever the node budget says."""

    def __init__(self, seconds: float, nodes: int | None = None, hard: float | None = None):
        self.start = time.perf_counter()
        self.seconds = max(0.0, seconds)
        self.nodes = nodes
        self.hard = self.seconds if hard is None else max(0.0, hard)
        self.used = 0
        self._last = self.start
        self.gap = 0.0  # the longest time between two checks so far

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def spent(self) -> float:
        """Share of the budget used, 0 to 1: what the mutation rate falls with. With a node
        budget it depends on nodes alone, so a seeded search repeats exactly."""
        if self.nodes is not None:
            return min(1.0, self.used / self.nodes) if self.nodes > 0 else 1.0
        return min(1.0, self.elapsed() / self.seconds) if self.seconds > 0 else 1.0

    def out(self) -> bool:
        """Is the budget spent? On a loaded machine the process can be descheduled between
        two checks; the longest such gap seen is kept in hand, so that a pause as long after
        the last check still ends within the limit."""
        now = time.perf_counter()
        self.gap = max(self.gap, now - self._last)
        self._last = now
        elapsed = now - self.start
        if elapsed + self.gap >= self.hard:
            return True
        if self.nodes is not None:
            return self.used >= self.nodes
        return elapsed + self.gap >= self.seconds

    def resume(self) -> None:
        """Say that the work since the last check (the set-up before a search: forecasting
        the opponents) was work, not a pause: it is not kept in hand as one."""
        self._last = time.perf_counter()

    def late(self) -> bool:
        """Has the hard limit come (whatever the node count says)?"""
        return self.elapsed() + self.gap >= self.hard

    def tick(self, n: int = 1) -> None:
        self.used += n
