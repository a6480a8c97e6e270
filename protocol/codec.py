"""Parse and render messages in either wire form, for one token table.

    >>> from diplomat.protocol.codec import parse_text, render_text
    >>> from diplomat.protocol.tokens import STANDARD
    >>> render_text(parse_text("not(gof)", STANDARD), STANDARD)
    'NOT ( GOF )'

A :class:`Codec` ties a token table (the game's: standard, a variant's, or from an RM) to its
parser. Every function here takes the table: a default map would be wrong for every variant.
"""

from __future__ import annotations

from functools import lru_cache

from diplomat.protocol import messages
from diplomat.protocol.atoms import Atoms, atoms_from_payload, payload_from_atoms
from diplomat.protocol.frames import dm_frame
from diplomat.protocol.levels import level_error, press_level
from diplomat.protocol.render import render_atoms
from diplomat.protocol.syntax import Parser
from diplomat.protocol.text import atoms_from_text, text_from_atoms, word_of
from diplomat.protocol.tokens import TokenTable


class Codec:
    def __init__(self, table: TokenTable) -> None:
        self.table = table
        self.parser = Parser(table)

    # -- in
    def parse_atoms(self, atoms: Atoms) -> messages.Message:
        """Raises :class:`~protocol.syntax.ParseError` (with the HUH/PRN reply)."""
        return self.parser.parse(atoms)

    def parse_text(self, text: str) -> messages.Message:
        return self.parser.parse(atoms_from_text(text, self.table))

    def parse_payload(self, payload: bytes) -> messages.Message:
        """A DM payload. Raises :class:`~protocol.atoms.InvalidToken` for a reserved token
        (EM 0x0E) and :class:`~protocol.syntax.ParseError` for a language error."""
        return self.parser.parse(atoms_from_payload(payload))

    def text_atoms(self, text: str) -> Atoms:
        return atoms_from_text(text, self.table)

    # -- out
    def atoms(self, message: messages.Construct) -> Atoms:
        return render_atoms(message, self.table)

    def text(self, message: messages.Construct) -> str:
        return text_from_atoms(render_atoms(message, self.table), self.table)

    def payload(self, message: messages.Construct) -> bytes:
        """Raises :class:`~protocol.atoms.EncodeError` for text-only content."""
        return payload_from_atoms(render_atoms(message, self.table))

    def dm(self, message: messages.Construct) -> bytes:
        return dm_frame(self.payload(message))

    def atoms_text(self, atoms: Atoms) -> str:
        return text_from_atoms(atoms, self.table)

    def words(self, message: messages.Construct) -> tuple[str, ...]:
        """A message (or press) as the text words a HUH echoes, e.g. to refuse press:
        ``Huh(("ERR", *codec.words(frm.press)))``."""
        return tuple(word_of(a, self.table) for a in render_atoms(message, self.table))

    # -- levels
    def level(self, message: messages.Message) -> int:
        return press_level(message, self.table)

    def level_error(
        self, message: messages.Message, level: int, atoms: Atoms | None = None
    ) -> messages.Huh | None:
        return level_error(message, level, atoms, table=self.table)


def codec_for(table: TokenTable) -> Codec:
    """The shared codec of ``table`` (a parser is costly to build)."""
    return _codec(table)


# Behind a typed function: mypy does not check the arguments of a cached one.
@lru_cache(maxsize=16)
def _codec(table: TokenTable) -> Codec:
    return Codec(table)


def parse_text(text: str, table: TokenTable) -> messages.Message:
    return codec_for(table).parse_text(text)


def render_text(message: messages.Construct, table: TokenTable) -> str:
    return codec_for(table).text(message)


def parse_payload(payload: bytes, table: TokenTable) -> messages.Message:
    return codec_for(table).parse_payload(payload)


def render_payload(message: messages.Construct, table: TokenTable) -> bytes:
    return codec_for(table).payload(message)


def encode_dm(message: messages.Construct, table: TokenTable) -> bytes:
    return codec_for(table).dm(message)
