"""Who plays what in one game: the players waiting for the start (the lobby), seats and
passcodes."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field

from diplomat.server.effects import ClientId
from diplomat.server.settings import JOIN_TIMEOUT

POW_REQUEST_SEP = ":"  # NME ('FRA:name', ...) asks for a power, as David Norman's client does
MAX_PASSCODE = 8191  # passcodes are 1..8191, as the AiServer's


def new_passcode() -> int:
    """A passcode nobody can predict (never from a seeded generator)."""
    return secrets.randbelow(MAX_PASSCODE) + 1


class JoinRefused(Exception):
    """A client cannot join this game (full, started, power taken)."""


@dataclass
class Seat:
    """A power and the player who plays it (``client`` None: away, in civil disorder)."""

    power: str
    name: str
    version: str
    passcode: int
    label: str | None = None
    client: ClientId | None = None
    status: str = "playing"  # as stored: playing, disorder, crashed, eliminated
    eliminated: int | None = None  # the year it lost its last centre


@dataclass
class Joiner:
    """A client that sent NME and waits for the game to start (powers are dealt at start)."""

    client: ClientId
    name: str
    version: str
    request: str | None  # a power asked for with 'POW:name'
    label: str | None = None
    ready_map: bool = False
    joined_at: float = 0.0  # when it sent NME (the join timeout counts from there)


@dataclass
class Lobby:
    """The players who have joined a game that has not started yet, in the order they came."""

    powers: tuple[str, ...]
    join_timeout: float = JOIN_TIMEOUT  # seconds a joiner has to accept the map
    joiners: list[Joiner] = field(default_factory=list)

    @property
    def full(self) -> bool:
        return len(self.joiners) >= len(self.powers)

    def request(self, name: str, power: str | None) -> str | None:
        """The power a joiner asks for: ``power`` (a seat reserved by whoever launched it) or
        the ``POW`` of a name written ``'POW:name'``, as David Norman's client writes it."""
        head, sep, _ = name.partition(POW_REQUEST_SEP)
        if power is None and sep and head.upper() in self.powers:
            return head.upper()
        return power

    def admit(self, joiner: Joiner) -> None:
        """Take ``joiner`` in, or raise :class:`JoinRefused` (full, its power taken)."""
        if self.full:
            raise JoinRefused("the game is full")
        wanted = joiner.request
        if wanted is not None:
            if any(j.request == wanted for j in self.joiners):
                raise JoinRefused(f"{wanted} is already taken")
            if wanted not in self.powers:
                raise JoinRefused(f"no power {wanted}")
        self.joiners.append(joiner)

    def accept_map(self, client: ClientId) -> bool:
        """The client accepted the map; whether every power now has a player who has."""
        for j in self.joiners:
            if j.client == client:
                j.ready_map = True
        return self.full and all(j.ready_map for j in self.joiners)

    def remove(self, client: ClientId) -> Joiner | None:
        for j in self.joiners:
            if j.client == client:
                self.joiners.remove(j)
                return j
        return None

    def overdue(self, now: float) -> list[Joiner]:
        """Take out and return the joiners that have not accepted the map in time."""
        late = [j for j in self.joiners if not j.ready_map and now >= self.deadline(j)]
        for j in late:
            self.joiners.remove(j)
        return late

    def deadline(self, joiner: Joiner) -> float:
        return joiner.joined_at + self.join_timeout

    def wakeups(self) -> list[float]:
        return [self.deadline(j) for j in self.joiners if not j.ready_map]

    def deal(self, taken: set[str]) -> list[tuple[Joiner, str]]:
        """The powers for the joiners who accepted the map: what each asked for, then the
        powers left in the map's order, in the order they came. The lobby is empty after."""
        requested = {j.request for j in self.joiners} | taken
        free = [p for p in self.powers if p not in requested]
        dealt = [(j, j.request or free.pop(0)) for j in self.joiners if j.ready_map]
        self.joiners = []
        return dealt
