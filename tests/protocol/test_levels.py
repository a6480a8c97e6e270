"""Press levels (spec §4.3): the lowest legal level, and HUH for a message above a game's."""

import pytest
from hypothesis import HealthCheck, given, settings

from diplomat.protocol import messages
from diplomat.protocol.codec import codec_for, parse_text, render_text
from diplomat.protocol.levels import LEVELS, TOKEN_LEVEL, level_error, press_level, trim_try
from diplomat.protocol.press_levels import FREE_TEXT, PRESS
from diplomat.protocol.render import render_marked
from diplomat.protocol.text import word_of
from diplomat.protocol.tokens import STANDARD
from tests.protocol.daide_strategies import power_lists, press_messages

C = codec_for(STANDARD)


@pytest.mark.parametrize(
    ("text", "level"),
    [
        ("NME ('a') ('b')", 0),
        ("DRW", 0),
        ("NOT (DRW)", 0),
        ("YES (NOT (GOF))", 0),
        ("DRW (ENG FRA)", 10),
        ("SND (FRA) (PRP (PCE (FRA ENG)))", 10),
        ("FRM (ENG) (FRA) (PRP (PCE (FRA ENG)))", 10),
        ("SND (FRA) (YES (PRP (ALY (FRA ENG) VSS (GER))))", 10),
        ("SND (FRA) (CCL (PRP (DRW)))", 10),
        ("SND (FRA) (PRP (NOT (SLO (FRA))))", 10),
        ("SND (FRA) (PRP (NAR (DRW (FRA ENG))))", 10),
        ("SND (FRA) (FCT (PCE (FRA ENG)))", 10),
        ("SND (FRA) (HUH (ERR PRP (XDO ((FRA AMY PAR) HLD))))", 10),
        ("SND (FRA) (TRY (XDO CHO WHY))", 10),
        ("SND (FRA) (PRP (XDO ((FRA AMY PAR) HLD)))", 20),
        ("SND (FRA) (PRP (DMZ (FRA) (BUR)))", 20),
        ("SND (FRA) (PRP (AND (DRW) (PCE (FRA ENG))))", 30),
        ("SND (FRA) (PRP (ORR (DRW) (PCE (FRA ENG))))", 30),
        # AND/ORR: nested, under anything but PRP, or two in one message -> level 50
        ("SND (FRA) (PRP (AND (ORR (DRW) (SLO (FRA))) (DRW)))", 50),
        ("SND (FRA) (PRP (NOT (AND (DRW) (PCE (FRA ENG)))))", 50),
        ("SND (FRA) (FCT (AND (DRW) (PCE (FRA ENG))))", 50),
        ("SND (FRA) (IFF (AND (DRW) (DRW)) THN (PRP (AND (DRW) (DRW))))", 100),
        ("SND (FRA) (PRP (SCD (FRA PAR)))", 40),
        ("SND (FRA) (PRP (OCC (FRA UNT PAR)))", 40),
        ("SND (FRA) (PRP (CHO (0 1) (DRW)))", 50),
        ("SND (FRA) (INS (DRW))", 60),
        ("SND (FRA) (QRY (DRW))", 60),
        ("SND (FRA) (FCT (QRY (DRW)))", 60),
        ("SND (FRA) (IDK (QRY (DRW)))", 60),
        ("SND (FRA) (WHT (ENG FLT LON))", 70),
        ("SND (FRA) (HOW (ENG))", 70),
        ("SND (FRA) (EXP (SPR 1901) (PRP (DRW)))", 80),
        ("SND (FRA) (PRP (FOR (SPR 1902) (DRW)))", 90),
        ("SND (FRA) (IFF (DRW) THN (PRP (DRW)))", 100),
        ("SND (FRA) (PRP (XOY (FRA) (ENG)))", 110),
        ("SND (FRA) (PRP (YDO (FRA) (ENG FLT LON)))", 110),
        ("SND (FRA) (FRM (ENG) (FRA) (PRP (DRW)))", 120),
        ("SND (FRA) (PRP (FWD (ENG) (FRA) (GER)))", 120),
        ("SND (FRA) (PRP (BCC (ENG) (FRA) (GER)))", 120),
        ("SND (FRA) (PRP (SND (ENG) (GER) (PRP (DRW))))", 120),
        ("SND (FRA) (WHY (PRP (DRW)))", 130),
        ("SND (FRA) (IDK (PRP (DRW)))", 130),
        ("SND (FRA) (POB (WHY (THK (DRW))))", 130),
        ("SND (FRA) (UHY (PRP (DRW)))", 140),
        ("SND (FRA) (PRP (ROF))", 150),
        ("SND (FRA) (PRP (ULB (FRA 0.25)))", 160),
        ("SND (FRA) ('free text')", 8000),
    ],
)
def test_press_level(text: str, level: int) -> None:
    message = parse_text(text, STANDARD)
    assert press_level(message, STANDARD) == level
    assert level in LEVELS
    assert level_error(message, level, table=STANDARD) is None
    if level > 0:
        below = max(x for x in LEVELS if x < level)
        assert level_error(message, below, table=STANDARD) is not None


@pytest.mark.parametrize(
    ("text", "level", "reply"),
    [
        ("SND (FRA) (PRP (XDO ((FRA AMY PAR) HLD)))", 10,
         "HUH ( SND ( FRA ) ( PRP ( ERR XDO ( ( FRA AMY PAR ) HLD ) ) ) )"),
        ("SND (FRA) (PRP (PCE (FRA ENG)))", 0,
         "HUH ( ERR SND ( FRA ) ( PRP ( PCE ( FRA ENG ) ) ) )"),
        ("DRW (FRA ENG)", 0, "HUH ( ERR DRW ( FRA ENG ) )"),
        ("SND (FRA) (PRP (AND (DRW) (PCE (FRA ENG))))", 20,
         "HUH ( SND ( FRA ) ( PRP ( ERR AND ( DRW ) ( PCE ( FRA ENG ) ) ) ) )"),
        ("SND (FRA) (PRP (AND (ORR (DRW) (DRW)) (DRW)))", 30,
         "HUH ( SND ( FRA ) ( PRP ( ERR AND ( ORR ( DRW ) ( DRW ) ) ( DRW ) ) ) )"),
        ("SND (FRA) (IDK (PRP (DRW)))", 60, "HUH ( SND ( FRA ) ( ERR IDK ( PRP ( DRW ) ) ) )"),
        ("SND (FRA) ('hello')", 130, "HUH ( SND ( FRA ) ( ERR 'hello' ) )"),
    ],
)  # fmt: skip
def test_above_level_is_huh_with_err_at_the_first_construct(
    text: str, level: int, reply: str
) -> None:
    atoms = C.text_atoms(text)
    message = C.parse_atoms(atoms)  # a valid message: not a syntax error
    huh = level_error(message, level, atoms, table=STANDARD)
    assert huh is not None
    assert render_text(huh, STANDARD) == reply


def test_try_trimming() -> None:
    message = messages.Try(("PRP", "XDO", "AND", "WHY", "PCE"))
    assert trim_try(message, 20) == messages.Try(("PRP", "XDO", "PCE"))
    assert trim_try(message, 0) == messages.Try(())


def test_every_try_token_parses_and_has_a_level() -> None:
    text = "SND (FRA) (TRY (" + " ".join(TOKEN_LEVEL) + "))"
    message = parse_text(text, STANDARD)
    assert isinstance(message, messages.Snd) and isinstance(message.press, messages.Try)
    assert message.press.tokens == tuple(TOKEN_LEVEL)


# Where a construct's level is not its leading token's in the table, and why (see
# protocol.press_levels): SND and FRM as messages are level 10, and a level-0 token written
# inside press (DRW, NOT, YES, HUH ...) costs level 10. Everywhere else, a construct costs at
# least what the table gives its token, so TRY (trimmed by the table) and the level check
# (rendering's marks) cannot disagree.
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(press_messages(daide_pp=True)[0], power_lists())
def test_every_press_construct_costs_at_least_its_tokens_level(
    press: messages.Press, recipients: tuple[str, ...]
) -> None:
    atoms, marks = render_marked(messages.Snd(recipients, press), STANDARD)
    for pos, needed, _ in marks:
        assert needed in LEVELS
        if pos >= len(atoms) or not isinstance(atoms[pos], int):
            assert needed == FREE_TEXT  # free text is a string, not a token
            continue
        token = word_of(atoms[pos], STANDARD)
        if pos == 0 and token in ("SND", "FRM"):
            assert needed == PRESS
        else:
            assert needed >= TOKEN_LEVEL.get(token, PRESS), (token, needed)


def test_the_levels_are_the_tables() -> None:
    assert set(LEVELS) == {0, FREE_TEXT, *TOKEN_LEVEL.values()}
    assert (
        press_level(parse_text("SND (FRA) (PRP (XDO ((FRA AMY PAR) HLD)))", STANDARD), STANDARD)
        == TOKEN_LEVEL["XDO"]
    )
