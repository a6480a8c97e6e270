"""A wake-up for a task that waits for "something changed" (a game's event, a bot's end, a
page attached) and then looks again at what it waits for: no polling on a timer."""

from __future__ import annotations

import math

import trio


class Changes:
    """Poked by any number of sources, awaited by tasks that look again once woken. A poke
    while nobody waits is no loss: a waiter looks at the state itself before it waits (and
    nothing runs between its look and its wait, trio switching tasks only at an await)."""

    def __init__(self) -> None:
        self._event = trio.Event()

    def poke(self, *_: object) -> None:
        """Wake every waiter (any arguments are ignored: it is also a game's watcher)."""
        if self._event.statistics().tasks_waiting:
            self._event.set()
            self._event = trio.Event()

    async def wait(self, until: float = math.inf) -> None:
        """Return at the next poke, or at ``until`` (trio's clock), whichever comes first."""
        with trio.move_on_at(until):
            await self._event.wait()


__all__ = ["Changes"]
