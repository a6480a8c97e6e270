"""Sans-I/O DAIDE: tokens, the binary frame codec, the text form, the Lark grammar, typed
messages, press levels, and a connection state machine for each side. See README.md here.

The names most callers need are re-exported::

    from diplomat.protocol import ServerConnection, Received, parse_text, render_text
    from diplomat.protocol import messages
"""

from diplomat.protocol.codec import (
    Codec,
    codec_for,
    encode_dm,
    parse_payload,
    parse_text,
    render_payload,
    render_text,
)
from diplomat.protocol.connection import (
    ClientConnection,
    Closed,
    ConnectionClosedError,
    Event,
    Ready,
    Received,
    Send,
    ServerConnection,
    State,
    Unparsed,
)
from diplomat.protocol.frames import ErrorCode, FrameType
from diplomat.protocol.levels import level_error, press_level, trim_try
from diplomat.protocol.lines import TextConnection, classify_first_bytes
from diplomat.protocol.mdf import MapDefinition
from diplomat.protocol.numbering import DEFAULT_CCL_NAR, CclNar
from diplomat.protocol.syntax import ParseError
from diplomat.protocol.tokens import STANDARD, TokenTable, standard_table

__all__ = [
    "DEFAULT_CCL_NAR",
    "STANDARD",
    "CclNar",
    "ClientConnection",
    "Closed",
    "Codec",
    "ConnectionClosedError",
    "ErrorCode",
    "Event",
    "FrameType",
    "MapDefinition",
    "ParseError",
    "Ready",
    "Received",
    "Send",
    "ServerConnection",
    "State",
    "TextConnection",
    "TokenTable",
    "Unparsed",
    "classify_first_bytes",
    "codec_for",
    "encode_dm",
    "level_error",
    "parse_payload",
    "parse_text",
    "press_level",
    "render_payload",
    "render_text",
    "standard_table",
    "trim_try",
]
