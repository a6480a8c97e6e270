"""Press levels: the lowest level at which a message is legal, and HUH for one above a game's.

The grammar accepts every level at once, so "above this game's level" is not a syntax error: the
server parses, then asks :func:`level_error` whether the message fits the game's ``LVL`` and, if
not, gets the HUH to send, with ERR before the first construct the level does not allow (spec
§4.1: the server, not the recipients, gates press by level).

Levels (spec §4.3): 10 peace and alliances, 20 order proposals, 30 one AND or ORR directly
under PRP, 40 centre sharing, 50 nested multipart and CHO, 60 queries and insistence, 70
suggestions, 80 accusations, 90 future, 100 conditionals, 110 favours, 120 forwarding, 130
explanations, 140-160 DAIDE++ (emotions, offer requests, utility bounds; text form only), 8000
free text. Level-0 messages are level 0, except ``DRW (powers)`` (10, partial draws) and press.
"""

from __future__ import annotations

from diplomat.protocol import messages
from diplomat.protocol.atoms import Atoms
from diplomat.protocol.press_levels import LEVELS, TOKEN_LEVEL
from diplomat.protocol.render import render_marked
from diplomat.protocol.text import word_of
from diplomat.protocol.tokens import TokenTable

__all__ = ["LEVELS", "TOKEN_LEVEL", "level_error", "press_level", "trim_try"]


def _effective(marks: list[tuple[int, int, bool]]) -> list[tuple[int, int]]:
    """(position, level needed) per construct, with the rule that level 30 allows only one
    AND or ORR in a message applied."""
    several = sum(1 for mark in marks if mark[2]) > 1
    return [(pos, max(needed, 50) if multi and several else needed) for pos, needed, multi in marks]


_PRESS_HOLDERS = (
    messages.Snd,
    messages.Frm,
    messages.Drw,
    messages.Yes,
    messages.Rej,
    messages.Not,
)


def press_level(message: messages.Message, table: TokenTable) -> int:
    """The lowest press level at which ``message`` is legal."""
    if not isinstance(message, _PRESS_HOLDERS):
        return 0  # nothing else can hold press
    _, marks = render_marked(message, table)
    return max((needed for _, needed in _effective(marks)), default=0)


def level_error(
    message: messages.Message, level: int, atoms: Atoms | None = None, *, table: TokenTable
) -> messages.Huh | None:
    """None if ``message`` is legal at press ``level``; else the HUH to answer, echoing
    ``atoms`` (the message as received, if given) with ERR before the first construct above
    the level."""
    if not isinstance(message, _PRESS_HOLDERS):
        return None
    rendered, marks = render_marked(message, table)
    pos = next((p for p, needed in _effective(marks) if needed > level), None)
    if pos is None:
        return None
    source = atoms if atoms is not None and len(atoms) == len(rendered) else rendered
    words = [word_of(a, table) for a in source]
    words.insert(pos, "ERR")
    return messages.Huh(tuple(words))


def trim_try(message: messages.Try, level: int) -> messages.Try:
    """TRY with the tokens above ``level`` removed, as the server forwards it (spec §4.1)."""
    return messages.Try(tuple(t for t in message.tokens if TOKEN_LEVEL.get(t, 0) <= level))
