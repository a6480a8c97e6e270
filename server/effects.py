"""What the game master returns for each event: messages to send, connections to close and
records to store (:mod:`server.records`), in order.

The shell (:mod:`server.app`) carries them out: it commits the records of one event in one
transaction first, then queues the messages and closes, in the order given. So a player is
never told anything the database does not hold: after a ``kill -9`` the restarted game is the
one the players knew.
"""

from __future__ import annotations

from typing import NamedTuple

from diplomat.protocol import messages
from diplomat.server.records import Record

ClientId = int


class Tell(NamedTuple):
    """Send ``message`` (a typed DAIDE message) to ``client``."""

    client: ClientId
    message: messages.Message


class Close(NamedTuple):
    """Close ``client``'s connection (after what is queued for it), for ``reason``."""

    client: ClientId
    reason: str


Effect = Tell | Close | Record
Effects = list[Effect]


def split(effects: Effects) -> tuple[list[Record], list[Tell | Close]]:
    """The records to store and, in their order, the messages and closes."""
    records: list[Record] = []
    wire: list[Tell | Close] = []
    for e in effects:
        if isinstance(e, Tell | Close):
            wire.append(e)
        else:
            records.append(e)
    return records, wire
