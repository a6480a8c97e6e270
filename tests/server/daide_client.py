"""A minimal test client speaking DAIDE to a real server over TCP, binary or text form."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias

import trio

from diplomat.protocol import messages
from diplomat.protocol.codec import parse_text
from diplomat.protocol.connection import ClientConnection, Closed, Received, Send, Unparsed
from diplomat.protocol.lines import TextConnection
from diplomat.protocol.tokens import STANDARD, TokenTable

if TYPE_CHECKING:
    from diplomat.server.app import Server
    from diplomat.server.settings import GameSettings


class MakeServer(Protocol):
    """The ``make_server`` fixture: start a real server (127.0.0.1, port 0, its own
    database) with these settings and :class:`~server.app.Server` keywords."""

    async def __call__(self, settings: GameSettings | None = None, **kwargs: Any) -> Server: ...


# How long a test waits for the event it needs before it fails: an outer limit for a machine
# under heavy load, never the time the event is expected to take (it is usually milliseconds).
PATIENCE = 120.0

# What the server may say next: a message, a line it sent that we cannot parse, or its close.
Event: TypeAlias = messages.Message | Unparsed | Closed


class WireClient:
    """Send typed messages, receive typed messages (or raw events)."""

    def __init__(self, stream: trio.SocketStream, text: bool, table: TokenTable = STANDARD) -> None:
        self.stream = stream
        self.text = text
        # A text client knows the map's names itself (there is no RM in the text form).
        self.conn: ClientConnection | TextConnection = (
            TextConnection(table) if text else ClientConnection()
        )
        self.pending: list[Event] = []
        self.closed: Closed | None = None

    @classmethod
    async def connect(
        cls,
        port: int,
        text: bool = False,
        host: str = "127.0.0.1",
        table: TokenTable = STANDARD,
        local_address: str | None = None,
    ) -> WireClient:
        """A client connected to ``port`` (binary: its IM sent), from ``local_address`` if
        given (any 127.x.y.z: Linux routes all of 127.0.0.0/8 to the loopback interface)."""
        stream = await trio.open_tcp_stream(host, port, local_address=local_address)
        client = cls(stream, text, table)
        if not text:
            assert isinstance(client.conn, ClientConnection)
            await stream.send_all(client.conn.start())
        return client

    async def send(self, msg: messages.Message | str) -> None:
        """Send a message (a no-op once the server has closed the connection: like any
        client, we may still be answering what it sent before closing)."""
        if isinstance(msg, str):
            msg = parse_text(msg, self.conn.codec.table)
        if self.closed is not None or self.conn.state.value == "closed":
            return
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
            await self.stream.send_all(self.conn.send(msg))

    async def send_raw(self, data: bytes) -> None:
        await self.stream.send_all(data)

    async def event(self, timeout: float = PATIENCE) -> Event:
        """The next event: a message, Unparsed, or Closed (failing after ``timeout``
        seconds without one)."""
        with trio.fail_after(timeout):
            while not self.pending:
                if self.closed is not None:
                    return self.closed
                try:
                    data = await self.stream.receive_some(65536)
                except (trio.BrokenResourceError, trio.ClosedResourceError):
                    data = b""
                if not data:
                    if isinstance(self.conn, TextConnection):
                        evs = self.conn.receive_eof()
                    else:
                        evs = [Closed(None, True, "eof")]
                else:
                    evs = self.conn.receive_bytes(data)
                for ev in evs:
                    if isinstance(ev, Received):
                        self.pending.append(ev.message)
                    elif isinstance(ev, Unparsed):
                        self.pending.append(ev)
                    elif isinstance(ev, Closed):
                        self.pending.append(ev)
                        self.closed = ev
                    elif isinstance(ev, Send):
                        pass
            return self.pending.pop(0)

    async def expect(self, kind: type, timeout: float = PATIENCE) -> Any:
        """Skip messages until one of ``kind`` arrives (failing after ``timeout`` seconds in
        all)."""
        # Any, not the kind asked for: the server's HLO and NOW always carry the power,
        # passcode and turn that their request forms leave None, and typed as the class,
        # every test reading one would have to prove it first.
        with trio.fail_after(timeout):
            while True:
                ev = await self.event(timeout)
                if isinstance(ev, kind):
                    return ev
                if isinstance(ev, Closed):
                    raise AssertionError(f"closed while waiting for {kind.__name__}: {ev}")

    async def join(self, name: str = "tester") -> None:
        await self.send(messages.Nme(name, "1.0"))
        assert await self.expect(messages.Yes) == messages.Yes(messages.Nme(name, "1.0"))
        got = await self.expect(messages.Map)
        await self.send(messages.Yes(got))

    async def aclose(self) -> None:
        await self.stream.aclose()
