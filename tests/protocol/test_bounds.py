"""Messages are bounded by depth and size before the parser or anything recursive sees them:
past the bounds they are answered HUH, with the echo cut where they went past (and its
brackets closed); a message built too deep in code is a RenderError, not a RecursionError."""

from __future__ import annotations

import pytest

from diplomat.protocol import messages
from diplomat.protocol.codec import codec_for
from diplomat.protocol.render import RENDER_DEPTH, RenderError
from diplomat.protocol.syntax import FROM_CLIENT, MAX_DEPTH, WIRE, Bounds, ParseError
from diplomat.protocol.tokens import STANDARD

CODEC = codec_for(STANDARD)


def _press(nots: int) -> str:
    """``SND (FRA) (PRP (NOT (... (PCE (FRA ENG)) ...)))``: 3 + ``nots`` brackets deep."""
    inner = "PCE (FRA ENG)"
    for _ in range(nots):
        inner = f"NOT ({inner})"
    return f"SND (FRA) (PRP ({inner}))"


def _refusal(text: str, bounds: Bounds) -> ParseError:
    with pytest.raises(ParseError) as caught:
        CODEC.parser.parse(CODEC.text_atoms(text), bounds)
    return caught.value


def test_depth_up_to_the_bound_parses_and_one_more_is_refused() -> None:
    limit = FROM_CLIENT.depth
    deepest = CODEC.parser.parse(CODEC.text_atoms(_press(limit - 3)), FROM_CLIENT)
    assert isinstance(deepest, messages.Snd)
    err = _refusal(_press(limit - 2), FROM_CLIENT)
    assert err.reason == f"nested deeper than {limit} brackets"
    assert isinstance(err.reply, messages.Huh)
    words = err.reply.tokens
    cut = words.index("ERR")
    assert words[:cut].count("(") - words[:cut].count(")") == limit
    assert words[cut + 1 :] == (")",) * limit  # what was open is closed again
    # The wire's own bound is a little deeper (room for the server's YES (SND ...)).
    assert isinstance(CODEC.parser.parse(CODEC.text_atoms(_press(limit - 2))), messages.Snd)
    assert WIRE.depth == MAX_DEPTH > limit


def test_too_many_tokens_are_refused_before_parsing() -> None:
    order = "((FRA AMY PAR) HLD) "
    text = "SUB " + order * (FROM_CLIENT.atoms // 7 + 1)  # 7 atoms an order
    err = _refusal(text, FROM_CLIENT)
    assert err.reason == f"longer than {FROM_CLIENT.atoms} tokens"
    assert isinstance(err.reply, messages.Huh) and err.reply.tokens[FROM_CLIENT.atoms] == "ERR"


def test_a_huh_or_prn_past_the_bounds_is_never_answered() -> None:
    assert _refusal("HUH (" + "(" * 100 + ")" * 100 + ")", FROM_CLIENT).reply is None
    assert _refusal("PRN (" + "(" * 100, FROM_CLIENT).reply is None


def test_unbalanced_brackets_still_get_prn() -> None:
    assert isinstance(_refusal("SND ((FRA) (PRP", FROM_CLIENT).reply, messages.Prn)


def test_a_message_built_too_deep_is_a_render_error() -> None:
    press: messages.Arrangement = messages.Pce(("FRA", "ENG"))
    for _ in range(RENDER_DEPTH + 1):
        press = messages.Not(press)
    with pytest.raises(RenderError, match="nested more than"):
        CODEC.text(messages.Snd(("FRA",), messages.Prp(press)))
