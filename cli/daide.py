"""``diplomat daide check|encode|decode``: the protocol toolbox for bot authors."""

from __future__ import annotations

import argparse
import re
import sys
from typing import Any

_HEX = re.compile(rb"^[\s0-9A-Fa-f]*$")


def register(sub: Any) -> None:
    p = sub.add_parser(
        "daide",
        help="check, encode and decode DAIDE messages",
        description='Tools for DAIDE messages in their text form (e.g. "NOT ( GOF )", '
        "strings in single quotes) and as binary frames.",
    )
    tools = p.add_subparsers(dest="tool", metavar="TOOL")
    tools.required = True

    check = tools.add_parser(
        "check",
        help="parse a message; print its canonical form and press level, or the HUH reply",
        description="Parse TEXT. Prints the canonical text form and the lowest press level at "
        "which the message is legal; or the HUH (or PRN) a server would answer, with exit "
        "status 1.",
    )
    check.add_argument("text", metavar="TEXT")
    check.add_argument(
        "--level",
        type=int,
        help="also check against this game press level (HUH and exit 1 if above it)",
    )
    check.add_argument("--typed", action="store_true", help="also print the typed message")
    _ccl_nar_option(check)
    check.set_defaults(handler=_check)

    encode = tools.add_parser(
        "encode",
        help="print the DM frame of a message in hex",
        description="Parse TEXT and print the bytes of its DM frame in hex (exit 1 if it does "
        "not parse, or has no binary form).",
    )
    encode.add_argument("text", metavar="TEXT")
    encode.add_argument("--payload", action="store_true", help="print the payload only")
    _ccl_nar_option(encode)
    encode.set_defaults(handler=_encode)

    decode = tools.add_parser(
        "decode",
        help="print frames (hex, or a captured byte stream on stdin) as text",
        description="Decode DAIDE frames given as hex (spaces allowed), or read from stdin with "
        "'-' (hex text or raw bytes, e.g. a captured TCP stream). One line per frame: a DM as "
        "its text form, other frames in brackets. An RM changes the tokens of later DMs.",
    )
    decode.add_argument("data", metavar="HEX|-")
    decode.add_argument(
        "--payload", action="store_true", help="the input is one DM payload, no frame header"
    )
    _ccl_nar_option(decode)
    decode.set_defaults(handler=_decode)


def _ccl_nar_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--ccl-nar",
        choices=["diplomacy", "parlance"],
        default=None,
        help="numbering of CCL and NAR (default: diplomacy, NAR 0x4A25 / CCL 0x4A26)",
    )


def _table(args: argparse.Namespace) -> Any:
    from diplomat.protocol.numbering import DEFAULT_CCL_NAR, CclNar
    from diplomat.protocol.tokens import standard_table

    choice = DEFAULT_CCL_NAR if args.ccl_nar is None else CclNar[args.ccl_nar.upper()]
    return standard_table(choice)


def _parse(args: argparse.Namespace) -> Any:
    """(codec, atoms, message), printing the HUH/PRN reply and returning None on failure."""
    from diplomat.protocol.codec import codec_for
    from diplomat.protocol.syntax import ParseError

    codec = codec_for(_table(args))
    atoms = codec.text_atoms(args.text)
    try:
        message = codec.parse_atoms(atoms)
    except ParseError as exc:
        if exc.reply is not None:
            print(codec.text(exc.reply))
        print(f"error: {exc.reason}", file=sys.stderr)
        return None
    return codec, atoms, message


def _check(args: argparse.Namespace) -> int:
    parsed = _parse(args)
    if parsed is None:
        return 1
    codec, atoms, message = parsed
    print(codec.text(message))
    print(f"press level {codec.level(message)}")
    if args.typed:
        print(repr(message))
    if args.level is not None:
        huh = codec.level_error(message, args.level, atoms)
        if huh is not None:
            print(codec.text(huh))
            print(f"error: above press level {args.level}", file=sys.stderr)
            return 1
    return 0


def _encode(args: argparse.Namespace) -> int:
    from diplomat.protocol.atoms import EncodeError

    parsed = _parse(args)
    if parsed is None:
        return 1
    codec, _, message = parsed
    try:
        data = codec.payload(message) if args.payload else codec.dm(message)
    except EncodeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(data.hex(" ").upper())
    return 0


def _read_input(arg: str) -> bytes | None:
    raw = sys.stdin.buffer.read() if arg == "-" else arg.encode("ascii", "replace")
    if _HEX.match(raw):
        digits = re.sub(rb"\s+", b"", raw)
        if len(digits) % 2:
            return None
        return bytes.fromhex(digits.decode("ascii"))
    if arg != "-":
        return None
    return raw


def _dm_text(payload: bytes, codec: Any) -> str:
    import struct

    from diplomat.protocol.atoms import InvalidToken, atoms_from_payload

    try:
        return codec.atoms_text(atoms_from_payload(payload))
    except InvalidToken:
        # A reserved token: spell every token by number so that nothing is hidden.
        tokens = struct.unpack(f">{len(payload) // 2}H", payload[: len(payload) // 2 * 2])
        return " ".join(f"0x{t:04X}" for t in tokens)


def _decode(args: argparse.Namespace) -> int:
    import struct

    from diplomat.protocol.codec import Codec, codec_for
    from diplomat.protocol.frames import FrameReader, FrameType, describe_error, table_from_rm
    from diplomat.protocol.tokens import TableError

    data = _read_input(args.data)
    if data is None:
        print("error: expected hex digits (an even number of them) or '-'", file=sys.stderr)
        return 2
    table = _table(args)
    codec = codec_for(table)
    if args.payload:
        if len(data) % 2:
            print("error: a DM payload has an even number of bytes", file=sys.stderr)
            return 1
        print(_dm_text(data, codec))
        return 0
    reader = FrameReader()
    reader.feed(data)
    status = 0
    while (frame := reader.next_frame()) is not None:
        p = frame.payload
        if frame.type == FrameType.DM:
            if len(p) % 2 or not p:
                print(f"[DM of {len(p)} bytes: malformed]")
                status = 1
            else:
                print(_dm_text(p, codec))
        elif frame.type == FrameType.IM and len(p) == 4:
            version, magic = struct.unpack(">HH", p)
            print(f"[IM version {version} magic 0x{magic:04X}]")
        elif frame.type == FrameType.RM and len(p) % 6 == 0:
            try:
                table = table_from_rm(p, table.ccl_nar)
            except TableError as exc:
                print(f"[RM malformed: {exc}]")
                status = 1
                continue
            codec = codec_for(table) if not p else Codec(table)
            print("[RM standard map]" if not p else f"[RM {len(p) // 6} powers and provinces]")
        elif frame.type == FrameType.FM and not p:
            print("[FM]")
        elif frame.type == FrameType.EM and len(p) == 2:
            (code,) = struct.unpack(">H", p)
            print(f"[EM 0x{code:02X} {describe_error(code)}]")
        else:
            print(f"[frame type {frame.type}, {len(p)} bytes: {p.hex(' ').upper()}]")
            status = 1
    if reader.partial:
        print(f"error: incomplete frame at the end ({len(reader.rest())} bytes)", file=sys.stderr)
        status = 1
    return status
