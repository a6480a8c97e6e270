"""Sans-I/O DAIDE connections over the binary protocol, one class for each side.

A connection takes bytes as they arrive and returns events; the transport acts on them::

    conn = ServerConnection(table_for_map(gmap))   # the game's token table: its RM
    for event in conn.receive_bytes(data):
        match event:
            case Send(data):              socket.send(data)      # RM, or an EM before closing
            case Received(message):       ...                    # a typed message
            case Unparsed(reply=reply):   socket.send(conn.send(reply)) if reply else None
            case Closed():                socket.close()
    socket.send(conn.send(some_message))

Protocol errors (spec §1.7) are handled here: the connection emits the EM to send, then
:class:`Closed`. Language errors never close a connection; they come out as :class:`Unparsed`
carrying the HUH or PRN to answer. The transport owns the clock: it calls either side's
:meth:`~ServerConnection.timeout` when its :attr:`~ServerConnection.waiting` has been true for 30
seconds (no IM yet, or a frame cut off part-way).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from enum import Enum
from typing import TypeAlias

from diplomat.protocol import messages
from diplomat.protocol.atoms import Atoms, InvalidToken, atoms_from_payload
from diplomat.protocol.codec import Codec, codec_for
from diplomat.protocol.frames import (
    IM_TIMEOUT,
    MAGIC,
    VERSION,
    ErrorCode,
    Frame,
    FrameReader,
    FrameType,
    em_frame,
    fm_frame,
    im_frame,
    rm_frame,
    table_from_rm,
)
from diplomat.protocol.numbering import DEFAULT_CCL_NAR, CclNar
from diplomat.protocol.syntax import WIRE, Bounds, ParseError
from diplomat.protocol.tokens import TableError, TokenTable


@dataclass(frozen=True, slots=True)
class Send:
    """Bytes the connection itself needs sent (the RM, an EM)."""

    data: bytes


@dataclass(frozen=True, slots=True)
class Ready:
    """The handshake is done: the server accepted the IM (its RM is in the preceding
    :class:`Send`), or the client received the RM; ``table`` is the game's token table."""

    table: TokenTable


@dataclass(frozen=True, slots=True)
class Received:
    message: messages.Message
    atoms: Atoms = field(compare=False)


@dataclass(frozen=True, slots=True)
class Unparsed:
    """A DM that is not DAIDE. Send ``reply`` (HUH with ERR, or PRN) unless it is None (the
    message was itself a HUH or PRN, which are never answered in kind)."""

    atoms: Atoms
    reply: messages.Huh | messages.Prn | None
    reason: str


@dataclass(frozen=True, slots=True)
class Closed:
    """Close the transport now. ``error`` is the EM code (sent by us unless ``by_peer``);
    None for an FM or a clean close."""

    error: ErrorCode | int | None
    by_peer: bool
    reason: str = ""


Event: TypeAlias = Send | Ready | Received | Unparsed | Closed


class State(Enum):
    HANDSHAKE = "handshake"  # server: waiting for the IM; client: waiting for the RM
    OPEN = "open"
    CLOSED = "closed"


class ConnectionClosedError(RuntimeError):
    """Sending on a connection that has closed."""


class _Connection:
    _role = ""

    def __init__(self, codec: Codec, strict_tokens: bool) -> None:
        self.codec = codec
        self.state = State.HANDSHAKE
        self.strict_tokens = strict_tokens
        self._reader = FrameReader()
        # The most a message may hold (atoms, bracket depth); a server tightens it for its
        # clients (protocol.syntax.FROM_CLIENT).
        self.bounds: Bounds = WIRE

    @property
    def table(self) -> TokenTable:
        return self.codec.table

    @property
    def waiting(self) -> bool:
        """True while a 30-second timer should run: the handshake is pending (server side)
        or a frame has arrived in part."""
        return self.state is not State.CLOSED and self._reader.partial

    @property
    def closed(self) -> bool:
        """Has the connection closed (read anew each time: handling a frame may close it)?"""
        return self.state is State.CLOSED

    # -- sending
    def send(self, message: messages.Message) -> bytes:
        """The DM frame for ``message`` (raises ``EncodeError`` for text-only press)."""
        self._check_open()
        return self.codec.dm(message)

    def close(self) -> bytes:
        """The FM that ends the connection (nothing if it has already closed)."""
        if self.state is State.CLOSED:
            return b""
        self.state = State.CLOSED
        return fm_frame()

    def _check_open(self) -> None:
        if self.state is State.CLOSED:
            raise ConnectionClosedError("the connection has closed")

    # -- receiving
    def receive_bytes(self, data: bytes) -> list[Event]:
        if self.state is State.CLOSED:
            return []
        self._reader.feed(data)
        events: list[Event] = []
        while not self.closed:
            head = self._reader.header()
            if head is None:
                break
            early = self._check_header(*head)
            if early is not None:
                events.extend(early)
                break
            frame = self._reader.next_frame()
            if frame is None:
                break
            events.extend(self._on_frame(frame))
        return events

    def timeout(self) -> list[Event]:
        """Call when :attr:`waiting` has lasted 30 seconds."""
        if self.state is State.CLOSED:
            return []
        if self._reader.partial:
            return self._error(ErrorCode.SHORT_MESSAGE, "frame incomplete after 30 s")
        return []

    def _error(self, code: ErrorCode, reason: str) -> list[Event]:
        self.state = State.CLOSED
        return [Send(em_frame(code)), Closed(code, by_peer=False, reason=reason)]

    def _check_header(self, ftype: int, length: int) -> list[Event] | None:
        """Errors visible from the header alone, reported before the payload arrives."""
        if ftype > FrameType.EM:
            return self._error(ErrorCode.UNKNOWN_TYPE, f"unknown message type {ftype}")
        if ftype == FrameType.DM and (length == 0 or length % 2):
            return self._error(ErrorCode.SHORT_MESSAGE, f"DM length {length}")
        if ftype == FrameType.EM and length < 2:
            return self._error(ErrorCode.SHORT_MESSAGE, f"EM length {length}")
        return None

    def _on_frame(self, frame: Frame) -> list[Event]:
        if frame.type == FrameType.FM:
            self.state = State.CLOSED
            return [Closed(None, by_peer=True, reason="FM received")]
        if frame.type == FrameType.EM:
            self.state = State.CLOSED
            (raw,) = struct.unpack_from(">H", frame.payload)
            code = ErrorCode(raw) if raw in ErrorCode._value2member_map_ else raw
            return [Closed(code, by_peer=True, reason="EM received")]
        return self._on_protocol_frame(frame)

    def _on_protocol_frame(self, frame: Frame) -> list[Event]:
        raise NotImplementedError

    def _on_dm(self, payload: bytes) -> list[Event]:
        try:
            atoms = atoms_from_payload(payload)
        except InvalidToken as exc:
            return self._error(ErrorCode.INVALID_TOKEN, str(exc))
        if self.strict_tokens:
            known = self.table.name_of
            unknown = next(
                (a for a in atoms if type(a) is int and a >= 0x4000 and a not in known), None
            )
            if unknown is not None:
                return self._error(ErrorCode.INVALID_TOKEN, f"unknown token 0x{unknown:04X}")
        try:
            message = self.codec.parser.parse(atoms, self.bounds)
        except ParseError as exc:
            return [Unparsed(atoms, exc.reply, exc.reason)]
        return [Received(message, atoms)]


class ServerConnection(_Connection):
    """The server's side of one client connection.

    ``table`` is the game's token table: its RM is sent when the IM arrives (empty for the
    standard map unless ``full_rm``). ``strict_tokens`` answers any token the table does not
    know with EM 0x0E; by default only reserved tokens get that, and other unknown tokens a
    HUH, as Parlance recommends (spec §7.5).
    """

    def __init__(
        self,
        table: TokenTable,
        *,
        full_rm: bool = False,
        strict_tokens: bool = False,
    ) -> None:
        super().__init__(codec_for(table), strict_tokens)
        self.full_rm = full_rm

    @property
    def waiting(self) -> bool:
        return self.state is State.HANDSHAKE or super().waiting

    def timeout(self) -> list[Event]:
        if self.state is State.HANDSHAKE:
            return self._error(ErrorCode.IM_TIMEOUT, f"no IM within {IM_TIMEOUT:g} s")
        return super().timeout()

    def send(self, message: messages.Message) -> bytes:
        if self.state is State.HANDSHAKE:
            raise ConnectionClosedError("no DM may go out before the RM (wait for Ready)")
        return super().send(message)

    def _check_header(self, ftype: int, length: int) -> list[Event] | None:
        if self.state is State.HANDSHAKE and ftype == FrameType.IM and length != 4:
            if length == 0x0400:  # a little-endian 4
                return self._error(ErrorCode.WRONG_ENDIAN, "IM length is byte-swapped")
            return self._error(ErrorCode.SHORT_MESSAGE, f"IM length {length}")
        if self.state is State.HANDSHAKE and ftype in (FrameType.RM, FrameType.DM):
            return self._error(ErrorCode.IM_NOT_FIRST, "a message came before the IM")
        if self.state is State.OPEN and ftype == FrameType.IM:
            return self._error(ErrorCode.DUPLICATE_IM, "second IM")
        if ftype == FrameType.RM:
            return self._error(ErrorCode.RM_FROM_CLIENT, "RM from a client")
        return super()._check_header(ftype, length)

    def _on_protocol_frame(self, frame: Frame) -> list[Event]:
        if frame.type == FrameType.IM:
            version, magic = struct.unpack(">HH", frame.payload)
            if magic == 0x10DA:
                return self._error(ErrorCode.WRONG_ENDIAN, "IM magic is byte-swapped")
            if magic != MAGIC:
                return self._error(ErrorCode.BAD_MAGIC, f"IM magic 0x{magic:04X}")
            if version != VERSION:
                return self._error(ErrorCode.VERSION_MISMATCH, f"IM version {version}")
            self.state = State.OPEN
            return [Send(rm_frame(self.table, self.full_rm)), Ready(self.table)]
        return self._on_dm(frame.payload)


class ClientConnection(_Connection):
    """A client's side: :meth:`start` gives the IM; the RM sets the token table.

    Clients may send (NME, OBS, IAM) before the RM arrives, as real bots do; those use the
    standard table.
    """

    def __init__(self, *, ccl_nar: CclNar = DEFAULT_CCL_NAR, strict_tokens: bool = False) -> None:
        super().__init__(codec_for(table_from_rm(b"", ccl_nar)), strict_tokens)
        self.ccl_nar = ccl_nar

    def start(self) -> bytes:
        """The IM to send first."""
        self._check_open()
        return im_frame()

    def _check_header(self, ftype: int, length: int) -> list[Event] | None:
        if ftype == FrameType.IM:
            return self._error(ErrorCode.IM_FROM_SERVER, "IM from the server")
        if self.state is State.HANDSHAKE and ftype == FrameType.DM:
            return self._error(ErrorCode.DM_BEFORE_RM, "DM before the RM")
        if self.state is State.OPEN and ftype == FrameType.RM:
            return self._error(ErrorCode.DUPLICATE_RM, "second RM")
        if ftype == FrameType.RM and length % 6:
            return self._error(ErrorCode.SHORT_MESSAGE, f"RM length {length}")
        return super()._check_header(ftype, length)

    def _on_protocol_frame(self, frame: Frame) -> list[Event]:
        if frame.type == FrameType.RM:
            try:
                table = table_from_rm(frame.payload, self.ccl_nar)
            except TableError as exc:
                return self._error(ErrorCode.INVALID_TOKEN, f"bad RM: {exc}")
            self.codec = codec_for(table) if not frame.payload else Codec(table)
            self.state = State.OPEN
            return [Ready(table)]
        return self._on_dm(frame.payload)
