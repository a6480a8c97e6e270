"""The work budget of one decision: a node count (reproducible) or seconds (anytime), and
always a hard time limit from the server's deadline."""

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

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def spent(self) -> float:
        """Share of the budget used, 0 to 1: what the mutation rate falls with. With a node
        budget it depends on nodes alone, so a seeded search repeats exactly."""
        if self.nodes is not None:
            return min(1.0, self.used / self.nodes) if self.nodes > 0 else 1.0
        return min(1.0, self.elapsed() / self.seconds) if self.seconds > 0 else 1.0

    def out(self) -> bool:
        if self.elapsed() >= self.hard:
            return True
        if self.nodes is not None:
            return self.used >= self.nodes
        return self.elapsed() >= self.seconds

    def tick(self, n: int = 1) -> None:
        self.used += n

    def part(self, share: float) -> Budget:
        """A budget for one stage: ``share`` of what is left, under the same hard limit."""
        sub = Budget(0.0)
        sub.start = time.perf_counter()
        left_time = max(0.0, self.seconds - self.elapsed())
        sub.seconds = left_time * share
        sub.hard = max(0.0, self.hard - self.elapsed())
        if self.nodes is not None:
            sub.nodes = max(1, int((self.nodes - self.used) * share))
        return sub
