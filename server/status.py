"""What a game master reports of its game in one frozen value: whether it has started, finished
or halted, who owes orders, who has given them, who is ready, who is away, the deadline. The
web page, the tournament and the benchmarks read this (``GameRunner.status()``, or a watcher's
argument), never the master's own fields (:meth:`server.game.GameMaster.status`); what never
changes in a game (its map, token table, name) is on the runner."""

from __future__ import annotations

from dataclasses import dataclass

from diplomat.engine.orders import Order


@dataclass(frozen=True, slots=True)
class PowerStatus:
    power: str
    alive: bool  # has units or centres (every power, before the start)
    away: bool  # nobody plays it now (civil disorder, or never came)
    owes: bool  # has orders to give in the phase in progress
    complete: bool  # has given every order it owes
    waiting: bool  # asked the game to wait for it (NOT GOF)
    orders: tuple[Order, ...]  # the orders it has given in the phase in progress

    @property
    def missing(self) -> bool:
        """Owes orders and would be caught short by the deadline (orders missing, or not
        ready)."""
        return self.owes and (self.waiting or not self.complete)


@dataclass(frozen=True, slots=True)
class MasterStatus:
    started: bool
    finished: bool
    halted: bool  # the server is stopping: the clock stopped, no more phases processed here
    phase: str  # the phase in progress (the last one, once finished)
    processed: int  # phases adjudicated so far
    deadline: float | None  # the shell's monotonic seconds; None: none, or stopped
    paused: float | None  # seconds left while the clock is stopped (DSD)
    joined: tuple[str | None, ...]  # before the start: each joiner's requested power (or None)
    accepted: tuple[str | None, ...]  # the same, for the joiners who accepted the map
    powers: tuple[PowerStatus, ...]  # in the map's order
    # Press messages relayed since the game was loaded (a change says "read the store's
    # press": what a watcher shown all press, the package's omniscient view, follows).
    press: int = 0

    def of(self, power: str) -> PowerStatus:
        for p in self.powers:
            if p.power == power:
                return p
        raise KeyError(power)

    @property
    def owed(self) -> frozenset[str]:
        """The powers that owe orders."""
        return frozenset(p.power for p in self.powers if p.owes)

    @property
    def missing(self) -> frozenset[str]:
        """The powers that owe orders and have not given them all, or asked to wait."""
        return frozenset(p.power for p in self.powers if p.missing)

    def state_of(self, power: str) -> str:
        """One word for a power's standing: idle (nothing to do, or not started), out,
        disorder (away), ordering (orders still missing), ordered (all given, but waiting),
        ready."""
        p = self.of(power)
        if not self.started:
            return "idle"
        if not p.alive:
            return "out"
        if p.away:
            return "disorder"
        if not p.owes:
            return "idle"
        if not p.complete:
            return "ordering"
        return "ordered" if p.waiting else "ready"
