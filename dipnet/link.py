"""An in-process DAIDE client of one game: how the package's clients sit in the server's
games. It is a :class:`server.links.Link` without a byte stream (as the web page's seats
are): the server hands it the game's messages through :meth:`encode`, and it sends its own
(NME, OBS, SUB, GOF, SND, DRW) through :meth:`send`, which the server reads like any
client's. What to do with the game's messages is the owner's ``on_message``."""

from __future__ import annotations

import math
from collections.abc import AsyncIterator, Callable
from typing import Any

import trio

from diplomat.protocol import messages
from diplomat.protocol.connection import Closed, Event, Received
from diplomat.server.faults import describe
from diplomat.server.links import Link
from diplomat.server.logs import get_logger

_log = get_logger(dipnet=True)


class GameLink(Link):
    """One DAIDE seat (a power, or an observer) played by the package's side."""

    def __init__(self, peer: str, on_message: Callable[[Any], None]) -> None:
        # Not a byte stream: only the attributes the server reads are set (no super call).
        self.kind = "diplomacy"
        self.peer = peer
        self.timeout = math.inf
        self.closed = False
        self.on_message = on_message
        self._inbox_send, self._inbox = trio.open_memory_channel[Event](math.inf)
        self._left = False
        self._flushes: list[trio.Event] = []  # HLO asked by flush, answers awaited in order

    @property
    def wire_key(self) -> tuple[str, bytes]:
        return ("diplomacy", str(id(self)).encode())

    async def events(self) -> AsyncIterator[Event]:
        async for event in self._inbox:
            yield event
            if isinstance(event, Closed):
                return

    def encode(self, message: Any) -> bytes:
        if isinstance(message, messages.Map) and message.name is not None:
            self.send(messages.Yes(messages.Map(message.name)))
        if self._flushes and (
            isinstance(message, messages.Hlo)
            or (isinstance(message, messages.Rej) and isinstance(message.inner, messages.Hlo))
        ):
            self._flushes.pop(0).set()
        try:
            self.on_message(message)
        except Exception as exc:  # the package side's fault: the game goes on
            _log.error("diplomacy link failed", peer=self.peer, **describe(exc))
        return b""

    async def write(self, data: bytes) -> None:
        return None

    async def close(self, final: bool = True) -> None:
        self.closed = True
        self._release()

    def send(self, message: messages.Message) -> None:
        """To the game, through the server's reader like any client's message."""
        if not self.closed:
            self._inbox_send.send_nowait(Received(message, ()))

    def flush(self) -> trio.Event:
        """Set once the game has handled every message sent before this call, and so stored
        what they changed (the server stores before it answers): a package client is told
        its orders are in only when a ``kill -9`` would not lose them. (The game answers a
        player's HLO in turn, and sends none unasked once it has started.)"""
        event = trio.Event()
        if self.closed or self._left:  # nothing more of this seat's is stored
            event.set()
        else:
            self._flushes.append(event)
            self.send(messages.Hlo())
        return event

    def leave(self) -> None:
        """Leave the game as a client that disconnects does (it has ended: nothing more is
        waited for)."""
        self._left = True
        self._release()
        if not self.closed:
            self._inbox_send.send_nowait(Closed(None, by_peer=True, reason="left"))

    def _release(self) -> None:
        for event in self._flushes:
            event.set()
        self._flushes.clear()
