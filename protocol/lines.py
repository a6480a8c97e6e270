"""Sans-I/O DAIDE over lines of text: the pipe transport for subprocess bots, and ``nc`` users.

One message per line in the DAIDE text form, UTF-8, ``\\n`` terminated (``\\r\\n`` accepted;
spec §5.5). There is no IM, RM, FM or EM: the table is the one the connection is made with. A
first line starting ``DPP/`` (Parlance's greeting, spec §5.3) is accepted and answered in the
line ending it used. The events are those of ``protocol.connection``.

A server can serve both forms on one port: :func:`classify_first_bytes` tells them apart from
the first bytes a client sends.
"""

from __future__ import annotations

from typing import Literal

from diplomat.protocol import messages
from diplomat.protocol.codec import Codec, codec_for
from diplomat.protocol.connection import (
    Closed,
    ConnectionClosedError,
    Event,
    Received,
    State,
    Unparsed,
)
from diplomat.protocol.syntax import WIRE, Bounds, ParseError
from diplomat.protocol.tokens import TokenTable

MAX_LINE = 1 << 16  # bytes; a DM cannot be longer either

_HTTP_METHODS = (b"GET ", b"POST ", b"HEAD ", b"PUT ", b"OPTIONS ", b"DELETE ", b"PATCH ")


def classify_first_bytes(data: bytes) -> Literal["binary", "text", "http"] | None:
    """What a client speaks, from the first bytes it sent: ``"binary"`` (an IM: its type byte
    is 0, and text never holds a NUL), ``"http"`` (a request line, e.g. a WebSocket upgrade),
    ``"text"`` (DAIDE text lines), or None when more bytes are needed to tell."""
    if not data:
        return None
    if data[0] == 0 or b"\x00" in data[:4]:
        return "binary"
    if any(data.startswith(method) for method in _HTTP_METHODS):
        return "http"
    if len(data) < 8 and any(method.startswith(data) for method in _HTTP_METHODS):
        return None
    return "text"


class TextConnection:
    """Either side of a text-line connection (the two sides behave alike)."""

    def __init__(self, table: TokenTable, *, max_line: int = MAX_LINE) -> None:
        self.codec: Codec = codec_for(table)
        self.max_line = max_line
        self.newline = b"\n"
        self.state = State.OPEN
        self._buf = bytearray()
        self._first = True
        self.bounds: Bounds = WIRE  # (as in protocol.connection)

    @property
    def waiting(self) -> bool:
        """A line has begun and not ended (a server times out a client that leaves it so)."""
        return self.state is not State.CLOSED and bool(self._buf)

    @property
    def closed(self) -> bool:
        """Has the connection closed (read anew each time: handling a line may close it)?"""
        return self.state is State.CLOSED

    def send(self, message: messages.Message) -> bytes:
        """The line for ``message``."""
        if self.state is State.CLOSED:
            raise ConnectionClosedError("the connection has closed")
        return self.codec.text(message).encode("utf-8", "surrogateescape") + self.newline

    def close(self) -> bytes:
        self.state = State.CLOSED
        return b""

    def receive_bytes(self, data: bytes) -> list[Event]:
        if self.state is State.CLOSED:
            return []
        self._buf += data
        events: list[Event] = []
        while not self.closed:
            end = self._buf.find(b"\n")
            if end < 0:
                if len(self._buf) > self.max_line:
                    self.state = State.CLOSED
                    events.append(Closed(None, by_peer=False, reason="line too long"))
                break
            raw = bytes(self._buf[:end])
            del self._buf[: end + 1]
            events.extend(self._line(raw))
        return events

    def receive_eof(self) -> list[Event]:
        """The peer closed its side; a last unterminated line still counts."""
        if self.state is State.CLOSED:
            return []
        events = self._line(bytes(self._buf)) if self._buf.strip() else []
        self._buf.clear()
        self.state = State.CLOSED
        events.append(Closed(None, by_peer=True, reason="end of input"))
        return events

    def _line(self, raw: bytes) -> list[Event]:
        if len(raw) > self.max_line:
            self.state = State.CLOSED
            return [Closed(None, by_peer=False, reason="line too long")]
        crlf = raw.endswith(b"\r")
        line = raw.decode("utf-8", "surrogateescape").strip()
        if self._first and line:
            self._first = False
            if line.startswith("DPP/"):
                self.newline = b"\r\n" if crlf else b"\n"
                return []
        if not line:
            return []
        atoms = self.codec.text_atoms(line)
        try:
            message = self.codec.parser.parse(atoms, self.bounds)
        except ParseError as exc:
            return [Unparsed(atoms, exc.reply, exc.reason)]
        return [Received(message, atoms)]
