"""Atoms: the token sequence both wire forms decode to, and the binary DM payload codec.

One message is a tuple of atoms, each one of:

* ``int`` — a 16-bit token value (brackets, mnemonics, powers, provinces, and integers in their
  14-bit encoding, exactly as on the wire);
* ``str`` — a whole run of text tokens (a string), so the parser sees one STRING per string
  instead of one token per character;
* ``float`` — a DAIDE++ real literal (ULB/UUB), text form only;
* :class:`Unknown` — a text word that is no token (unknown mnemonic, out-of-range number,
  unterminated string); kept so that the HUH reply can echo it with ERR in front.

The binary payload and the text form (``protocol.text``) are both exact spellings of atoms.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import TypeAlias

from diplomat.protocol.tokens import TEXT_CATEGORY, is_reserved


@dataclass(frozen=True, slots=True)
class Unknown:
    text: str


Atom: TypeAlias = int | str | float | Unknown
Atoms: TypeAlias = tuple[Atom, ...]

MAX_PAYLOAD = 0xFFFF


class EncodeError(ValueError):
    """A message cannot be put on the binary wire (text-only token, float, oversize)."""


class InvalidToken(ValueError):
    """A DM holds a token that may never be sent (reserved category): EM 0x0E."""

    def __init__(self, token: int) -> None:
        super().__init__(f"invalid token 0x{token:04X}")
        self.token = token


def atoms_from_payload(payload: bytes) -> Atoms:
    """Decode a DM payload (even length) into atoms, joining text tokens into strings.

    Text is UTF-8 (Parlance's rule for non-ASCII); undecodable bytes survive as surrogates
    so that nothing is lost, and the parser refuses such strings as not printable.
    """
    count = len(payload) // 2
    tokens = struct.unpack(f">{count}H", payload[: count * 2])
    out: list[Atom] = []
    text: bytearray | None = None
    for tok in tokens:
        if tok >> 8 == TEXT_CATEGORY:
            if text is None:
                text = bytearray()
            text.append(tok & 0xFF)
            continue
        if text is not None:
            out.append(text.decode("utf-8", "surrogateescape"))
            text = None
        if 0x5800 <= tok < 0x6000:  # reserved categories (tokens.is_reserved), inlined
            raise InvalidToken(tok)
        out.append(tok)
    if text is not None:
        out.append(text.decode("utf-8", "surrogateescape"))
    return tuple(out)


def tokens_from_atoms(atoms: Atoms) -> list[int]:
    """The 16-bit tokens of a message (strings expanded to one token per byte)."""
    out: list[int] = []
    append = out.append
    for atom in atoms:
        if type(atom) is int:
            if is_reserved(atom):
                raise EncodeError(f"token 0x{atom:04X} exists in the text form only")
            append(atom)
        elif type(atom) is str:
            out.extend(0x4B00 | b for b in atom.encode("utf-8", "surrogateescape"))
        elif isinstance(atom, float):
            raise EncodeError(f"the real number {atom!r} has no binary encoding (DAIDE++ only)")
        else:
            raise EncodeError(f"{atom!r} is not a token")
    return out


def payload_from_atoms(atoms: Atoms) -> bytes:
    tokens = tokens_from_atoms(atoms)
    if len(tokens) * 2 > MAX_PAYLOAD:
        raise EncodeError(f"message of {len(tokens)} tokens exceeds the 65535-byte DM limit")
    return struct.pack(f">{len(tokens)}H", *tokens)
