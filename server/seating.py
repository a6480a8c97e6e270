"""Who plays what in one game: players waiting for the start, seats, passcodes."""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from server.effects import ClientId

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
