"""web.talk's pure parts: what a draw vote or a free-text message from the page becomes (the
DAIDE message, or why not), a seat's votes as the game confirms them and as the store restores
them, and a program's HUH to free text in words."""

from __future__ import annotations

from diplomat.engine.map import load_map
from diplomat.protocol import messages
from diplomat.protocol.english import Names
from diplomat.protocol.pressbook import PressItem
from diplomat.web.talk import DrawBallot, free_text, unread_by_program

STANDARD = load_map("standard")
ALIVE = list(STANDARD.powers)


def _ballot(pda: bool) -> DrawBallot:
    return DrawBallot("FRA", pda, Names.of_map(STANDARD))


def test_a_vote_becomes_drw_and_a_withdrawal_not_drw() -> None:
    b = _ballot(False)
    assert b.request({"on": True}, ALIVE) == messages.Drw()
    assert b.request({"on": False}, ALIVE) == messages.Not(messages.Drw())
    assert "no partial draws" in str(b.request({"powers": ["FRA", "GER"]}, ALIVE))
    assert "true or false" in str(b.request({"on": "yes"}, ALIVE))
    assert "still in the game" in str(b.request({}, ["GER", "ITA"]))


def test_a_partial_draw_names_two_survivors_or_more() -> None:
    b = _ballot(True)
    assert b.request({"powers": ["ger", "FRA", "GER"]}, ALIVE) == messages.Drw(("FRA", "GER"))
    assert "at least two" in str(b.request({"powers": ["FRA"]}, ALIVE))
    assert "at least two" in str(b.request({"powers": ["FRA", "XYZ"]}, ALIVE))
    assert "names its powers" in str(b.request({"powers": "FRA GER"}, ALIVE))


def test_votes_follow_the_games_yes_and_end_with_the_phase() -> None:
    b = _ballot(True)
    b.confirmed(messages.Drw())
    b.confirmed(messages.Drw(("FRA", "GER")))
    view = b.view(ALIVE, True)
    assert [v["powers"] for v in view["votes"]] == [None, ["FRA", "GER"]]
    assert view["votes"][0]["text"] == "a draw of every power still in the game"
    b.confirmed(messages.Not(messages.Drw(("FRA", "GER"))))
    assert [v["powers"] for v in b.view(ALIVE, True)["votes"]] == [None]
    b.new_phase()
    assert b.view(ALIVE, True)["votes"] == []
    assert not b.view(["GER", "ITA"], True)["open"]  # out of the game: no vote
    b.restore(["wait", "draw:ENG FRA"])
    assert b.view(ALIVE, True)["votes"][0]["text"] == "a draw of England and France"


def test_free_text_is_checked_before_it_is_sent() -> None:
    ok = free_text({"to": ["ger", "ITA"], "text": "Hello\nthere"}, "FRA", 8000, ["GER", "ITA"])
    assert ok == messages.Snd(("GER", "ITA"), messages.FreeText("Hello there"))
    assert "level 8000" in str(free_text({"to": ["GER"], "text": "x"}, "FRA", 30, ["GER"]))
    assert (
        free_text({"to": ["GER"], "text": "  "}, "FRA", 8000, ["GER"]) == "Write something first."
    )
    assert "at most 2000" in str(
        free_text({"to": ["GER"], "text": "x" * 2001}, "FRA", 8000, ["GER"])
    )
    assert "cannot receive" in str(free_text({"to": ["FRA"], "text": "x"}, "FRA", 8000, ["GER"]))
    assert "cannot receive" in str(free_text({"to": ["RUS"], "text": "x"}, "FRA", 8000, ["GER"]))


def test_a_programs_huh_to_free_text_is_put_in_words() -> None:
    names = Names.of_map(STANDARD)
    huh = messages.Huh(("ERR", "'Shall we?'"))
    assert unread_by_program(PressItem(3, "S1901M", "GER", ("FRA",), huh), names) == (
        "Germany (a program) does not read free text"
    )
    other = messages.Huh(("PRP", "(", "ERR", "PCE", "(", "FRA", "GER", ")", ")"))
    assert unread_by_program(PressItem(4, "S1901M", "GER", ("FRA",), other), names) is None
