"""The transports a bot plays over: DAIDE's binary form over TCP (reconnecting after a lost
connection, until the tournament's lifeline says the game is gone) and text lines over
stdin/stdout (how the server's pipe transport runs a bot).

The transports are thin: bytes go to the protocol's sans-I/O connection, its messages to
:class:`~bots.session.Session`, and the messages that returns back out. Logs go to stderr,
never stdout, which may be the wire. The command line that builds the session is
:mod:`bots.commandline`.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import sys
from collections.abc import Sequence
from typing import Any

import trio

from diplomat.bots.lifeline import watch as watch_lifeline
from diplomat.bots.session import Session
from diplomat.protocol.connection import (
    ClientConnection,
    Closed,
    ConnectionClosedError,
    Ready,
    Received,
    Send,
    Unparsed,
)
from diplomat.protocol.frames import DEFAULT_PORT
from diplomat.protocol.lines import TextConnection

log = logging.getLogger("bots")

DEFAULT_HOST = "127.0.0.1"
READ_SIZE = 65536
RECONNECT_FOR = 120.0  # seconds to keep trying after losing the connection mid-game
RECONNECT_FIRST = 0.25  # first delay before reconnecting; it doubles up to the next
RECONNECT_MAX_DELAY = 8.0

Connection = ClientConnection | TextConnection


class _Wire:
    """A stream and the connection that frames it; sending after the peer has gone is a
    quiet no-op (the session learns of it from the reader)."""

    def __init__(self, stream: trio.abc.Stream, conn: Connection) -> None:
        self.stream = stream
        self.conn = conn
        self.broken = False

    async def write(self, data: bytes) -> None:
        if not data or self.broken:
            return
        try:
            await self.stream.send_all(data)
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            self.broken = True

    async def send(self, messages: Sequence[Any]) -> None:
        for msg in messages:
            if self.broken:
                return
            try:
                data = self.conn.send(msg)
            except ConnectionClosedError:
                self.broken = True  # the server closed first (its FM came in the same read)
                return
            except Exception:
                log.exception("cannot encode %s", type(msg).__name__)
                continue
            await self.write(data)

    async def close(self) -> None:
        await self.write(self.conn.close())
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            await self.stream.aclose()


async def play(session: Session, stream: trio.abc.Stream, conn: Connection) -> int:
    """Play one game over ``stream`` and return the exit status."""
    wire = _Wire(stream, conn)
    if isinstance(conn, ClientConnection):
        await wire.write(conn.start())  # NME waits for the RM (Ready)
    else:
        await wire.send(session.start())
    try:
        while not session.done:
            wakeup = session.wakeup
            if wakeup is not None and session.clock() >= wakeup:
                await wire.send(session.tick())  # a talk window has ended: the orders
                continue
            data = None
            with trio.move_on_after(
                max(0.0, wakeup - session.clock()) if wakeup is not None else math.inf
            ):
                try:
                    data = await stream.receive_some(READ_SIZE)
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                    data = b""
            if data is None:
                await wire.send(session.tick())  # woken up: the orders, if talk is over
                continue
            if data:
                events = conn.receive_bytes(bytes(data))
            elif isinstance(conn, TextConnection):
                events = conn.receive_eof()
            else:
                events = [Closed(None, by_peer=True, reason="connection closed")]
            for event in events:
                if isinstance(event, Received):
                    await wire.send(session.handle(event.message, event.atoms))
                    if isinstance(conn, TextConnection):
                        conn.codec = session.codec  # a variant's names, once the map is known
                elif isinstance(event, Send):
                    await wire.write(event.data)
                elif isinstance(event, Ready):
                    session.set_table(event.table)
                    await wire.send(session.start())
                elif isinstance(event, Unparsed):
                    log.warning("unparsed message from the server: %s", event.reason)
                elif isinstance(event, Closed):
                    why = event.reason
                    if event.error is not None:
                        why = f"{why} (error {event.error!r})"
                    session.connection_closed(why)
                if session.done:
                    break
            # A write that failed (the server closed first) ends nothing by itself: what the
            # server sent before closing (the SMR, OFF) is still to be read.
    finally:
        with trio.CancelScope(shield=True):
            await wire.close()
    return session.exit_status


async def play_tcp(
    session: Session,
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    reconnect: float = RECONNECT_FOR,
    lifeline: int | None = None,
) -> int:
    """Play over TCP in DAIDE's binary form. A connection lost in the middle of the game
    (the server restarted, say) is made again, with backoff, for up to ``reconnect`` seconds,
    and the power taken back with IAM and the passcode of the HLO. ``lifeline``: a file
    descriptor that reads end-of-file when whoever started the bot (a tournament) is gone;
    from then on a lost connection is not made again."""
    try:
        stream = await trio.open_tcp_stream(host, port)
    except OSError as exc:
        log.error("cannot connect to %s:%s: %s", host, port, exc)
        return 1
    gone = trio.Event()
    async with trio.open_nursery() as nursery:
        if lifeline is not None:
            nursery.start_soon(watch_lifeline, lifeline, gone)
        while True:
            status = await play(session, stream, ClientConnection())
            if reconnect <= 0 or not session.resumable:
                break
            if gone.is_set():
                log.warning("connection lost, and the tournament is gone: not reconnecting")
                break
            log.warning("connection lost: reconnecting to %s:%s as %s", host, port, session.power)
            found = await _reconnect(host, port, reconnect, gone)
            if found is None:
                if gone.is_set():
                    log.warning("the tournament is gone: no more reconnecting")
                else:
                    log.error("could not reconnect within %g s", reconnect)
                break
            stream = found
            session.prepare_rejoin()
        nursery.cancel_scope.cancel()
    return status


async def _reconnect(
    host: str, port: int, within: float, gone: trio.Event
) -> trio.SocketStream | None:
    """A new connection, tried with backoff for ``within`` seconds; None after that, or as
    soon as ``gone`` is set."""
    delay = RECONNECT_FIRST
    with trio.move_on_after(within):
        while True:
            with trio.move_on_after(delay):
                await gone.wait()
            if gone.is_set():
                return None
            try:
                return await trio.open_tcp_stream(host, port)
            except OSError as exc:
                log.info("reconnect failed (%s); next try in %g s", exc, delay)
                delay = min(delay * 2, RECONNECT_MAX_DELAY)
    return None


async def play_stdio(session: Session) -> int:
    """Play over stdin/stdout, one message per line in DAIDE text form."""
    # Duplicates, so that closing our streams leaves the process's own descriptors alone.
    reader = trio.lowlevel.FdStream(os.dup(sys.stdin.fileno()))
    writer = trio.lowlevel.FdStream(os.dup(sys.stdout.fileno()))
    stream = trio.StapledStream(writer, reader)
    return await play(session, stream, TextConnection(session.codec.table))


__all__ = ["DEFAULT_HOST", "RECONNECT_FOR", "Connection", "play", "play_stdio", "play_tcp"]
