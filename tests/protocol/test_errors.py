"""Language errors: HUH with ERR at the first failing token, PRN for brackets (spec §3.8)."""

import pytest

from diplomat.protocol import messages
from diplomat.protocol.atoms import Unknown
from diplomat.protocol.codec import codec_for, parse_payload, parse_text, render_text
from diplomat.protocol.syntax import ParseError
from diplomat.protocol.text import atoms_from_text
from diplomat.protocol.tokens import STANDARD

C = codec_for(STANDARD)


def reply_to(text: str) -> str | None:
    with pytest.raises(ParseError) as info:
        parse_text(text, STANDARD)
    return None if info.value.reply is None else render_text(info.value.reply, STANDARD)


@pytest.mark.parametrize(
    ("text", "reply"),
    [
        # Parlance's validator doctests and test suite
        ("WHT(YES)", "HUH ( ERR WHT ( YES ) )"),
        ('NME ("name") (-3)', "HUH ( NME ( 'name' ) ( ERR -3 ) )"),
        ('NME ("name")', "HUH ( NME ( 'name' ) ERR )"),
        ("REJ", "HUH ( REJ ERR )"),
        # the AiServer: a press-only construct as a message
        ("PCE (ENG FRA)", "HUH ( ERR PCE ( ENG FRA ) )"),
        ("", "HUH ( ERR )"),
        ("SUB", "HUH ( SUB ERR )"),
        ("SUB ((ENG AMY LVP) HLD) ((ENG AMY LON) JMP)",
         "HUH ( SUB ( ( ENG AMY LVP ) HLD ) ( ( ENG AMY LON ) ERR JMP ) )"),
        ("SUB ((ENG AMY LVP) MTO (STP))", "HUH ( SUB ( ( ENG AMY LVP ) MTO ( STP ERR ) ) )"),
        ("SUB ((ENG FLT LON) SUP (ENG AMY LVP) MTO (STP NCS))",
         "HUH ( SUB ( ( ENG FLT LON ) SUP ( ENG AMY LVP ) MTO ERR ( STP NCS ) ) )"),
        ("NOW (SPR 1901) (XYZ AMY PAR)", "HUH ( NOW ( SPR 1901 ) ( ERR XYZ AMY PAR ) )"),
        ("TME (8192)", "HUH ( TME ( ERR 8192 ) )"),
        ("HLO (ENG) (1) ((MTL 5))", "HUH ( HLO ( ENG ) ( 1 ) ( ( MTL 5 ) ERR ) )"),
        ("GOF GOF", "HUH ( GOF ERR GOF )"),
        ("SND (FRA) (PRP (PCE (FRA ENG)) (DRW))",
         "HUH ( SND ( FRA ) ( PRP ( PCE ( FRA ENG ) ) ERR ( DRW ) ) )"),
        ("SND (FRA) (PRP (AND (PCE (FRA ENG))))",
         "HUH ( SND ( FRA ) ( PRP ( AND ( PCE ( FRA ENG ) ) ERR ) ) )"),
        ("SND (FRA) (PRP (CHO (2 1) (DRW)))",
         "HUH ( SND ( FRA ) ( PRP ( CHO ( 2 ERR 1 ) ( DRW ) ) ) )"),
        # value checks put ERR before the token
        ("SVE ('much_too_long')", "HUH ( SVE ( ERR 'much_too_long' ) )"),
        ("LOD ('a b')", "HUH ( LOD ( ERR 'a b' ) )"),
        ("MAP ('no spaces')", "HUH ( MAP ( ERR 'no spaces' ) )"),
        ("SND (FRA) (PRP (ULB (ENG 1e999)))",
         "HUH ( SND ( FRA ) ( PRP ( ULB ( ENG ERR inf ) ) ) )"),
        # brackets
        ("SUB ((ENG AMY LVP) HLD", "PRN ( SUB ( ( ENG AMY LVP ) HLD )"),
        ("NOT (GOF))", "PRN ( NOT ( GOF ) ) )"),
        (")(", "PRN ( ) ( )"),
        # HUH and PRN are never answered in kind
        ("HUH (ERR", None),
        ("HUH GOF", None),
        ("PRN GOF", None),
    ],
)  # fmt: skip
def test_reply(text: str, reply: str | None) -> None:
    assert reply_to(text) == reply


def test_error_position_is_reported() -> None:
    with pytest.raises(ParseError) as info:
        parse_text("NME ('a') (-3)", STANDARD)
    assert info.value.position == 5
    assert isinstance(info.value.reply, messages.Huh)


@pytest.mark.parametrize(
    ("text", "reply"),
    [
        ("NME ('a') FOO", "HUH ( NME ( 'a' ) ERR FOO )"),
        ("NME ('a') ('b') 12abc", "HUH ( NME ( 'a' ) ( 'b' ) ERR 12abc )"),
        ("NME ('a') 'b", "HUH ( NME ( 'a' ) ERR 'b )"),
        # an unterminated string runs to the end of the line, brackets and all
        ("NME ('a') ('b)", "PRN ( NME ( 'a' ) ( 'b) )"),
        ("IAM (ENG) (99999)", "HUH ( IAM ( ENG ) ( ERR 99999 ) )"),
        ("OBS #", "HUH ( OBS ERR # )"),
    ],
)
def test_words_that_are_no_tokens_get_err(text: str, reply: str) -> None:
    assert reply_to(text) == reply


def test_unknown_binary_token_is_huh_not_an_exception() -> None:
    # 0x4A0D (the removed IOU) is unassigned: HUH with ERR before it, spelled as a number.
    payload = bytes.fromhex("480D 4000 4A0D 4001")
    with pytest.raises(ParseError) as info:
        parse_payload(payload, STANDARD)
    assert info.value.reply is not None
    assert render_text(info.value.reply, STANDARD) == "HUH ( NOT ( ERR 0x4A0D ) )"
    # and the echo goes back on the wire with the same unknown token in it
    assert C.payload(info.value.reply) == bytes.fromhex("4806 4000 480D 4000 4902 4A0D 4001 4001")


def test_control_characters_in_strings_are_refused() -> None:
    payload = bytes.fromhex("480C 4000 4B61 4B0A 4B62 4001 4000 4B31 4001")
    with pytest.raises(ParseError) as info:
        parse_payload(payload, STANDARD)
    assert info.value.reply is not None
    # the echo cannot carry a newline in the text form, so it shows '?'
    assert render_text(info.value.reply, STANDARD) == "HUH ( NME ( ERR 'a?b' ) ( '1' ) )"


def test_undecodable_utf8_is_refused_not_raised() -> None:
    payload = bytes.fromhex("480C 4000 4BFF 4001 4000 4B31 4001")
    with pytest.raises(ParseError):
        parse_payload(payload, STANDARD)


class TestTextForm:
    @pytest.mark.parametrize(
        "text",
        [
            "not(gof)",
            "Not ( Gof )",
            "NOT BRA GOF KET",
            "  NOT(GOF)  ",
            "NOT\t(\nGOF)",
        ],
    )
    def test_tolerant_input(self, text: str) -> None:
        assert render_text(parse_text(text, STANDARD), STANDARD) == "NOT ( GOF )"

    def test_strings(self) -> None:
        assert parse_text("NME ('it''s') ('1')", STANDARD) == messages.Nme("it's", "1")
        assert parse_text('NME ("say ""hi""") ("\\"1\\"")', STANDARD) == messages.Nme(
            'say "hi"', '"1"'
        )
        assert render_text(messages.Nme("it's", "(x)"), STANDARD) == "NME ( 'it''s' ) ( '(x)' )"
        assert parse_text("NME('a b')('c')", STANDARD) == messages.Nme("a b", "c")

    def test_numbers(self) -> None:
        assert atoms_from_text("-8192 8191 0x4A25 1.5", STANDARD) == (0x2000, 0x1FFF, 0x4A25, 1.5)
        assert atoms_from_text("8192", STANDARD) == (Unknown("8192"),)

    def test_empty_string_is_no_tokens(self) -> None:
        # as on the wire, where an empty string cannot be told from nothing
        assert atoms_from_text("('')", STANDARD) == (0x4000, 0x4001)


def test_words_for_a_press_echo() -> None:
    frm = parse_text("FRM (ENG) (FRA) (PRP (PCE (ENG FRA)))", STANDARD)
    assert isinstance(frm, messages.Frm)
    huh = messages.Huh(("ERR", *C.words(frm.press)))
    assert render_text(messages.Snd(("ENG",), huh), STANDARD) == (
        "SND ( ENG ) ( HUH ( ERR PRP ( PCE ( ENG FRA ) ) ) )"
    )
