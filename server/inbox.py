"""What a game's task takes from its inbox: one frozen dataclass per kind of event.

A client's message, its joining (NME, OBS, IAM) or leaving, and the commands of whoever seats
the players (start, patience, abandon, watch) are posted to a game's
:class:`~server.app.GameRunner`, which handles each with ``match``. The four that carry one
of a client's messages (:data:`~server.app.FromClient`) are each answered and counted as
handled, whatever becomes of them (see ``Server.handled``).

The commands are generic in the client (``C``): the shell's client holds its game's runner,
so naming it here would make the shell and its inbox import each other.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

import trio

from diplomat.protocol import messages
from diplomat.server.seating import Joiner
from diplomat.server.status import MasterStatus

C = TypeVar("C")


@dataclass(frozen=True, slots=True)
class Said(Generic[C]):
    """A message from a client already in the game."""

    client: C
    msg: messages.Message


@dataclass(frozen=True, slots=True)
class Join(Generic[C]):
    """A client's NME, for ``power`` and tournament ``label`` when it was seated for one."""

    client: C
    msg: messages.Nme
    power: str | None
    label: str | None


@dataclass(frozen=True, slots=True)
class Observe(Generic[C]):
    client: C
    msg: messages.Obs


@dataclass(frozen=True, slots=True)
class Rejoin(Generic[C]):
    """A client's IAM, its passcode already checked against the server's guard."""

    client: C
    msg: messages.Iam


@dataclass(frozen=True, slots=True)
class Leave(Generic[C]):
    client: C


@dataclass(frozen=True, slots=True)
class Adopt(Generic[C]):
    """A forming player moved here from another forming game (``joiner``: its place there)."""

    client: C
    joiner: Joiner


@dataclass(frozen=True, slots=True)
class Start:
    """Start now; the ``(power, label)`` seats in ``missing`` begin in civil disorder."""

    missing: tuple[tuple[str, str | None], ...]


@dataclass(frozen=True, slots=True)
class Patient:
    """Wait (``on``) or stop waiting for ``power`` while its player is away."""

    power: str
    on: bool


@dataclass(frozen=True, slots=True)
class Abandon:
    """End the game if it has not started."""


@dataclass(frozen=True, slots=True)
class Watch:
    """Call ``look(status, now)`` after every event, under ``key`` (None: stop)."""

    key: object
    look: Callable[[MasterStatus, float], None] | None


@dataclass(frozen=True, slots=True)
class Settle:
    """Set ``done`` once everything posted before this has been handled (an IAM asks a game
    this before it checks whether the power awaits its player: the old connection's
    :class:`Leave` may still be in the inbox)."""

    done: trio.Event


FROM_CLIENT = (Said, Join, Observe, Rejoin)  # (for isinstance: what carries a message)
