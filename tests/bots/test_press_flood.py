"""A flood of press it does not understand makes a bot answer a bounded number of times: HUH
once per sender and phase, TRY once per sender: a bot never multiplies a flooder's traffic."""

from __future__ import annotations

from diplomat.bots.randombot import RandomBot
from diplomat.bots.session import MAX_HUH_ANSWERS

from .test_bot_session import OPENING_NOW, OPENING_SCO, joined


def test_a_press_flood_is_answered_a_bounded_number_of_times() -> None:
    link = joined(RandomBot(), power="ENG")
    link.feed(OPENING_SCO, OPENING_NOW)
    out = []
    for i in range(200):
        out += link.feed(f"FRM ( FRA ) ( ENG ) ( 'flood {i}' )")
    texts = [link.text(x) for x in out]
    assert texts[:2] == ["SND ( FRA ) ( HUH ( ERR 'flood 0' ) )", "SND ( FRA ) ( TRY ( ) )"]
    assert len(texts) == MAX_HUH_ANSWERS + 1  # one TRY, and HUH to the first only
    # Another sender is told too, once; so is the flooder again in the next phase.
    assert [link.text(x) for x in link.feed("FRM ( GER ) ( ENG ) ( 'hi' )")] == [
        "SND ( GER ) ( HUH ( ERR 'hi' ) )",
        "SND ( GER ) ( TRY ( ) )",
    ]
    link.feed(OPENING_NOW.replace("SPR 1901", "FAL 1901"))
    again = link.feed("FRM ( FRA ) ( ENG ) ( 'flood again' )", "FRM ( FRA ) ( ENG ) ( 'more' )")
    assert [link.text(x) for x in again] == ["SND ( FRA ) ( HUH ( ERR 'flood again' ) )"]
