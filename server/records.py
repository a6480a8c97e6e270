"""What a game asks the store to keep: one frozen value per fact the game master decides.

The game master (:mod:`server.game`) never touches the database; it returns these values among
its effects, and the shell (:mod:`server.app`) hands them to :meth:`server.store.Store.write`,
which commits one event's records in one transaction before any message of that event is sent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class PlayerSeated:
    """A player takes ``power`` (at the start of the game); its passcode for IAM."""

    power: str
    name: str
    version: str
    passcode: int
    label: str | None = None


@dataclass(frozen=True, slots=True)
class PlayerStatus:
    """A player's standing: playing, disorder (away), crashed (never came) or eliminated."""

    power: str
    status: str


@dataclass(frozen=True, slots=True)
class GameStarted:
    """The game begins at ``state`` (the engine's JSON of the first phase)."""

    phase: str
    state: dict[str, Any]


@dataclass(frozen=True, slots=True)
class PhaseProcessed:
    """A phase adjudicated: its results as (power, ORD text), the next phase's state, the
    powers eliminated (power, year) and, if the game ended with it, the result."""

    phase: str
    ords: tuple[tuple[str, str], ...]
    next_phase: str
    next_state: dict[str, Any]
    result: dict[str, Any] | None = None
    eliminated: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True, slots=True)
class GameFinished:
    """The game ended between two phases (an agreed draw)."""

    result: dict[str, Any]


@dataclass(frozen=True, slots=True)
class OrderGiven:
    """An order accepted (``sub``), withdrawn (``not``) or all of a power's cleared
    (``clear``, with an empty body) in the phase in progress; orders in DAIDE text."""

    phase: str
    power: str
    action: str
    body: str
    note: str = "MBV"


@dataclass(frozen=True, slots=True)
class FlagSet:
    """A power's flag in the phase in progress: ``wait`` (NOT GOF), ``draw``, ``draw:POW POW``
    (a partial draw), set or cleared."""

    phase: str
    power: str
    name: str
    on: bool


@dataclass(frozen=True, slots=True)
class ClockStopped:
    """The server stopped during ``phase`` with ``remaining`` seconds left on its deadline:
    a restart gives the phase that much time, not a new full period."""

    phase: str
    remaining: float


@dataclass(frozen=True, slots=True)
class PressRelayed:
    """A press message passed on to its recipients (the press in DAIDE text)."""

    phase: str
    sender: str
    recipients: tuple[str, ...]
    body: str


Record = (
    PlayerSeated
    | PlayerStatus
    | GameStarted
    | PhaseProcessed
    | GameFinished
    | OrderGiven
    | FlagSet
    | PressRelayed
    | ClockStopped
)
