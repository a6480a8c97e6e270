"""Transports: what the server serves as one client (:class:`ClientLink`), and the byte link,
a trio byte stream plus the protocol's sans-I/O connection for its wire form.

A client link brings the server the connection's events (typed messages, its end) and is
closed by it; messages go out one of two ways. A :class:`Link` is given bytes: the server
encodes each message once per wire form and writes them. A :class:`MessageLink` (a seat
played from web pages) is handed each typed message at once, in order, and makes of it what it
will.

A :class:`Link` reads bytes, feeds them to the connection and yields its events; it writes the
bytes the connection produces. DAIDE binary (TCP), DAIDE text lines (TCP, for ``nc`` users,
and the pipes of subprocess bots) share this one class; they differ only in the connection
object. The text form over TCP is told from binary by the first bytes (an IM starts with a
NUL byte; text never holds one).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterable, Iterator
from typing import Protocol

import trio

from diplomat.protocol import messages
from diplomat.protocol.connection import Closed, Event, Ready, Send, ServerConnection
from diplomat.protocol.frames import ErrorCode, em_frame
from diplomat.protocol.lines import TextConnection, classify_first_bytes
from diplomat.protocol.syntax import FROM_CLIENT
from diplomat.protocol.tokens import TokenTable
from diplomat.server.settings import IM_TIMEOUT

# What a peer that has gone raises on a write (a reset, a closed pipe): the end of that
# connection, not a fault.
_GONE = (trio.BrokenResourceError, trio.ClosedResourceError, OSError)
READ_SIZE = 65536
SLICE = 512  # bytes parsed at a time (a 17-order SUB is about 300)


class ClientLink(Protocol):
    """What the server needs of any client's connection, whatever carries its messages."""

    kind: str  # "tcp", "text", "pipe", "host", "web"...: for the logs
    peer: str  # who it is, for the logs

    @property
    def closed(self) -> bool: ...

    def events(self) -> AsyncIterator[Event]:
        """What the client says (``Received``, ``Unparsed``...) until it goes (``Closed``)."""
        ...

    async def close(self, final: bool = True) -> None: ...


class MessageLink(ClientLink, Protocol):
    """A client link that is handed typed messages, not bytes."""

    def take(self, message: messages.Message) -> None:
        """One message from the game, in the order the game sent them (called in the
        sender's task, the game's, at once: it must not block)."""
        ...


class Link:
    """A client link over a byte stream (TCP, a pipe, a bot host's socket)."""

    def __init__(
        self,
        stream: trio.abc.Stream,
        conn: ServerConnection | TextConnection,
        kind: str,
        peer: str,
        first: bytes = b"",
        timeout: float = IM_TIMEOUT,
    ) -> None:
        self.timeout = timeout
        self.stream = stream
        self.conn = conn
        conn.bounds = FROM_CLIENT  # every link is the server's side of a client
        self.kind = kind  # "tcp", "text", "pipe"
        self.peer = peer
        self._first = first
        self.closed = False
        self.bytes_in = 0  # read from the client so far (its byte budget is charged for them)
        self._sending = trio.Lock()  # the writer, and OFF/FM at shutdown, take turns

    def encode(self, message: messages.Message) -> bytes:
        return self.conn.send(message)

    @property
    def wire_key(self) -> tuple[str, bytes]:
        """Links with the same key encode a message to the same bytes (a broadcast is
        rendered once per key, not once per client)."""
        if isinstance(self.conn, TextConnection):
            return ("text", self.conn.newline)
        return ("dm", b"")

    async def events(self) -> AsyncIterator[Event]:
        """Every event until the connection closes. ``Send`` events are written here.

        What one read brings is fed to the connection a slice at a time, and the events of
        each slice are yielded before the next is parsed: 64 KB of tiny requests is thousands
        of messages, and no client may keep the server busy that long before the others get
        their turn (the caller yields between events). A frame or a line left unfinished for
        the timeout closes the connection (binary: the EM the connection gives; text: no EM
        exists, the connection is closed)."""
        if self._first:
            first, self._first = self._first, b""
            self.bytes_in += len(first)
            for ev in self._feed(first):
                yield ev
                if isinstance(ev, Closed):
                    return
        while True:
            data: bytes | bytearray | None = None
            with trio.move_on_after(self.timeout if self.conn.waiting else float("inf")):
                try:
                    data = await self.stream.receive_some(READ_SIZE)
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                    data = b""
            evs: Iterable[Event]
            if data is None:  # the timer ran out with a message half sent
                if isinstance(self.conn, ServerConnection):
                    evs = self.conn.timeout()
                else:
                    self.conn.close()
                    reason = f"a line left unfinished for {self.timeout:g} s"
                    evs = [Closed(None, by_peer=False, reason=reason)]
            elif not data:
                if isinstance(self.conn, TextConnection):
                    evs = self.conn.receive_eof()
                else:
                    evs = [Closed(None, by_peer=True, reason="connection closed")]
            else:
                self.bytes_in += len(data)
                evs = self._feed(bytes(data))
            for ev in evs:
                yield ev
                if isinstance(ev, Closed):
                    return

    def _feed(self, data: bytes) -> Iterator[Event]:
        for i in range(0, len(data), SLICE):
            yield from self.conn.receive_bytes(data[i : i + SLICE])

    async def write(self, data: bytes) -> None:
        if data and not self.closed:
            async with self._sending:
                await self.stream.send_all(data)

    async def close(self, final: bool = True) -> None:
        """End the connection: an FM first (binary) when ``final``."""
        if self.closed:
            return
        tail = self.conn.close() if final else b""
        self.closed = True
        with trio.move_on_after(2):
            try:
                if tail:
                    async with self._sending:
                        await self.stream.send_all(tail)
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                pass
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            await self.stream.aclose()


def binary_link(stream: trio.abc.Stream, kind: str, peer: str, table: TokenTable) -> Link:
    """A link for a client that speaks DAIDE binary on ``stream`` (e.g. a bot forked by a bot
    host, on a Unix socket); ``table`` is the map's token table (its RM)."""
    return Link(stream, ServerConnection(table), kind, peer)


def text_link(stream: trio.abc.Stream, kind: str, peer: str, table: TokenTable) -> Link:
    """A link for a client that speaks DAIDE text lines on ``stream`` (e.g. a pipe bot)."""
    return Link(stream, TextConnection(table), kind, peer)


async def accept_link(
    stream: trio.SocketStream, timeout: float = IM_TIMEOUT, *, table: TokenTable
) -> Link | None:
    """Read the first bytes of a TCP client and choose its wire form. None if it sent
    nothing within the IM timeout or closed. ``table`` is the map's token table: the RM a
    binary client gets, the names a text client's lines use."""
    try:
        peer = "{}:{}".format(*stream.socket.getpeername()[:2])
    except OSError:
        peer = "?"
    buf = b""
    with trio.move_on_after(timeout):
        while True:
            try:
                chunk = await stream.receive_some(READ_SIZE)
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                return None
            if not chunk:
                return None
            buf += chunk
            kind = classify_first_bytes(buf)
            if kind is not None:
                break
    if not buf:  # silent for 30 s: EM 0x01 (IM timer popped), then close
        with trio.move_on_after(2):
            try:
                await stream.send_all(em_frame(ErrorCode.IM_TIMEOUT))
                await stream.aclose()
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                pass
        return None
    kind = classify_first_bytes(buf) or "text"
    if kind == "binary":
        return Link(stream, ServerConnection(table), "tcp", peer, buf, timeout)
    if kind == "http":
        return Link(stream, TextConnection(table), "http", peer, buf, timeout)
    return Link(stream, TextConnection(table), "text", peer, buf, timeout)


async def answer_http(link: Link, status: str, text: str) -> None:
    """Answer an HTTP request on the DAIDE port with ``status`` and a line of text, and close."""
    head = f"HTTP/1.0 {status}\r\nContent-Type: text/plain\r\n\r\n{text}\r\n"
    with contextlib.suppress(*_GONE):  # (the client may have gone, e.g. with a reset)
        await link.write(head.encode())
    await link.close(final=False)


async def refuse(link: Link, wait: float) -> None:
    """Turn a client away in its own wire form: binary, the RM its IM asks for, then OFF and
    FM; text, an OFF line; HTTP, a 503. Waits ``wait`` seconds at most for the IM."""
    if link.kind == "http":
        why = "Too many connections from your address."
        await answer_http(link, "503 Service Unavailable", why)
        return
    if isinstance(link.conn, ServerConnection):
        with trio.move_on_after(wait), contextlib.suppress(*_GONE):
            async for ev in link.events():
                if isinstance(ev, Send):
                    await link.write(ev.data)
                if isinstance(ev, (Ready, Closed)):
                    break
    with contextlib.suppress(Exception):  # (a binary client that never finished its IM)
        await link.write(link.encode(messages.Off()))
    await link.close()


__all__ = [
    "IM_TIMEOUT",
    "ClientLink",
    "Link",
    "MessageLink",
    "Send",
    "accept_link",
    "answer_http",
    "binary_link",
    "refuse",
    "text_link",
]
