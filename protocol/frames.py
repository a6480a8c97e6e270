"""DAIDE binary framing (spec §1): the IM, RM, DM, FM and EM frames and their error codes.

Every frame is a 4-byte header (type, a pad byte that receivers ignore, a big-endian payload
length) and a payload. :class:`FrameReader` cuts a byte stream into frames as it arrives; the
``*_frame`` functions build them.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from dataclasses import dataclass
from enum import IntEnum

from diplomat.protocol.numbering import DEFAULT_CCL_NAR, CclNar
from diplomat.protocol.tokens import TokenTable, standard_table

VERSION = 1
MAGIC = 0xDA10
DEFAULT_PORT = 16713  # the port DAIDE servers listen on by convention
IM_TIMEOUT = 30.0  # seconds a server waits for the IM (spec §1.8)
HEADER = struct.Struct(">BxH")


class FrameType(IntEnum):
    IM = 0
    RM = 1
    DM = 2
    FM = 3
    EM = 4


class ErrorCode(IntEnum):
    IM_TIMEOUT = 0x01
    IM_NOT_FIRST = 0x02
    WRONG_ENDIAN = 0x03
    BAD_MAGIC = 0x04
    VERSION_MISMATCH = 0x05
    DUPLICATE_IM = 0x06
    IM_FROM_SERVER = 0x07
    UNKNOWN_TYPE = 0x08
    SHORT_MESSAGE = 0x09
    DM_BEFORE_RM = 0x0A
    RM_NOT_FIRST = 0x0B
    DUPLICATE_RM = 0x0C
    RM_FROM_CLIENT = 0x0D
    INVALID_TOKEN = 0x0E

    @property
    def description(self) -> str:
        return _DESCRIPTIONS[self]


_DESCRIPTIONS = {
    ErrorCode.IM_TIMEOUT: "IM timer popped",
    ErrorCode.IM_NOT_FIRST: "IM was not the first message sent by the client",
    ErrorCode.WRONG_ENDIAN: "IM indicated the wrong endian",
    ErrorCode.BAD_MAGIC: "IM had an incorrect magic number",
    ErrorCode.VERSION_MISMATCH: "version incompatibility",
    ErrorCode.DUPLICATE_IM: "more than one IM sent",
    ErrorCode.IM_FROM_SERVER: "IM sent by the server",
    ErrorCode.UNKNOWN_TYPE: "unknown message type received",
    ErrorCode.SHORT_MESSAGE: "message shorter than expected",
    ErrorCode.DM_BEFORE_RM: "DM sent before RM",
    ErrorCode.RM_NOT_FIRST: "RM was not the first message sent by the server",
    ErrorCode.DUPLICATE_RM: "more than one RM sent",
    ErrorCode.RM_FROM_CLIENT: "RM sent by the client",
    ErrorCode.INVALID_TOKEN: "invalid token in DM",
}


def describe_error(code: int) -> str:
    try:
        return ErrorCode(code).description
    except ValueError:
        return "unknown error code"


@dataclass(frozen=True, slots=True)
class Frame:
    type: int
    payload: bytes


def frame(ftype: int, payload: bytes = b"") -> bytes:
    return HEADER.pack(ftype, len(payload)) + payload


def im_frame(version: int = VERSION, magic: int = MAGIC) -> bytes:
    return frame(FrameType.IM, struct.pack(">HH", version, magic))


def rm_payload(table: TokenTable, full: bool = False) -> bytes:
    """Empty for the standard map (what the AiServer and diplomacy send) unless ``full``;
    otherwise one 6-byte record per power and province."""
    if table.is_standard and not full:
        return b""
    return b"".join(struct.pack(">H3sx", v, n.encode("ascii")) for v, n in table.records())


def rm_frame(table: TokenTable, full: bool = False) -> bytes:
    return frame(FrameType.RM, rm_payload(table, full))


def dm_frame(payload: bytes) -> bytes:
    return frame(FrameType.DM, payload)


def fm_frame() -> bytes:
    return frame(FrameType.FM)


def em_frame(code: int) -> bytes:
    return frame(FrameType.EM, struct.pack(">H", code))


def table_from_rm(payload: bytes, ccl_nar: CclNar = DEFAULT_CCL_NAR) -> TokenTable:
    """The token table an RM payload defines (raises ``TableError`` if malformed)."""
    if not payload:
        return standard_table(ccl_nar)
    records: Iterable[tuple[int, bytes]] = struct.iter_unpack(">H3sx", payload)
    return TokenTable.from_records(((v, n.decode("ascii", "replace")) for v, n in records), ccl_nar)


class FrameReader:
    """Accumulates bytes and hands out whole frames. It does not judge them: whoever reads
    the frames decides which types and lengths are acceptable."""

    def __init__(self) -> None:
        self._buf = bytearray()

    def feed(self, data: bytes) -> None:
        self._buf += data

    def header(self) -> tuple[int, int] | None:
        """(type, payload length) of the next frame once its header is in."""
        if len(self._buf) < 4:
            return None
        ftype, length = HEADER.unpack_from(self._buf)
        return ftype, length

    def next_frame(self) -> Frame | None:
        head = self.header()
        if head is None or len(self._buf) < 4 + head[1]:
            return None
        payload = bytes(self._buf[4 : 4 + head[1]])
        del self._buf[: 4 + head[1]]
        return Frame(head[0], payload)

    @property
    def partial(self) -> bool:
        """Part of a frame has arrived and the rest has not."""
        return bool(self._buf)

    def rest(self) -> bytes:
        return bytes(self._buf)
