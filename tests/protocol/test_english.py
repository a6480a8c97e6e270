"""Press in English: every construct of levels 10 to 30 as a sentence, the higher levels in
plain words, and anything at all rendered without an exception."""

from __future__ import annotations

import pytest

from diplomat.engine.map import load_map
from diplomat.protocol import messages
from diplomat.protocol.codec import codec_for
from diplomat.protocol.english import Names, describe, sentence
from diplomat.protocol.tokens import STANDARD

NAMES = Names.of_map(load_map("standard"))
CODEC = codec_for(STANDARD)


def english(press_text: str, sender: str = "ENG", to: str = "FRA") -> str:
    msg = CODEC.parse_text(f"FRM ( {sender} ) ( {to} ) ( {press_text} )")
    assert isinstance(msg, messages.Frm)
    return sentence(msg.sender, msg.recipients, msg.press, NAMES)


@pytest.mark.parametrize(
    ("daide", "text"),
    [
        ("PRP (PCE (ENG FRA))", "England to France: I propose peace between England and France."),
        (
            "PRP (ALY (ENG FRA) VSS (GER ITA))",
            "England to France: I propose an alliance of England and France against Germany "
            "and Italy.",
        ),
        ("PRP (DRW)", "England to France: I propose a draw."),
        (
            "PRP (DRW (ENG FRA TUR))",
            "England to France: I propose a draw between England, France and Turkey.",
        ),
        ("PRP (SLO (ENG))", "England to France: I propose a solo win for England."),
        (
            "PRP (NOT (PCE (ENG FRA)))",
            "England to France: I propose no peace between England and France.",
        ),
        (
            "PRP (NAR (ALY (ENG FRA) VSS (GER)))",
            "England to France: I propose no agreement on an alliance of England and France "
            "against Germany.",
        ),
        (
            "YES (PRP (PCE (ENG FRA)))",
            "England to France: I agree to peace between England and France.",
        ),
        (
            "REJ (PRP (PCE (ENG FRA)))",
            "England to France: I reject peace between England and France.",
        ),
        (
            "BWX (PRP (PCE (ENG FRA)))",
            "England to France: Not now: I will not discuss the proposal of peace between "
            "England and France.",
        ),
        (
            "CCL (PRP (PCE (ENG FRA)))",
            "England to France: I cancel my proposal of peace between England and France.",
        ),
        (
            "HUH (ERR PRP (PCE (ENG FRA)))",
            "England to France: I did not understand your proposal of peace between England and "
            "France.",
        ),
        (
            "TRY (PRP PCE ALY VSS)",
            "England to France: I can discuss only proposals, peace and alliances.",
        ),
        (
            "HUH (PRP (ERR FOR (SPR 1901) (PCE (ENG FRA))))",
            "England to France: I did not understand your proposal of peace between England and "
            "France in Spring 1901 (I cannot discuss future phases).",
        ),
        (
            "HUH (ERR INS (PCE (ENG FRA)))",
            "England to France: I did not understand your demand for peace between England and "
            "France.",
        ),
        ("TRY ()", "England to France: I understand no press at all."),
        (
            "FCT (PCE (ENG GER))",
            "England to France: It is a fact that there is peace between England and Germany.",
        ),
        (
            "PRP (XDO ((FRA AMY PAR) MTO BUR))",
            "England to France: I propose France ordering A PAR - BUR.",
        ),
        (
            "PRP (XDO ((ENG FLT NTH) SUP (FRA AMY BEL) MTO HOL))",
            "England to France: I propose England ordering F NTH S A BEL - HOL.",
        ),
        (
            "PRP (DMZ (ENG FRA) (ECH))",
            "England to France: I propose a demilitarised zone in English Channel (no unit of "
            "England or France there).",
        ),
        (
            "PRP (AND (PCE (ENG FRA)) (ALY (ENG FRA) VSS (GER)))",
            "England to France: I propose peace between England and France, and an alliance "
            "of England and France against Germany.",
        ),
        (
            "PRP (ORR (DRW) (DMZ (ENG FRA) (BEL HOL)))",
            "England to France: I propose either a draw, or a demilitarised zone in Belgium "
            "and Holland (no unit of England or France there).",
        ),
        (
            "YES (PRP (AND (PCE (ENG FRA)) (XDO ((FRA AMY PAR) HLD))))",
            "England to France: I agree to peace between England and France, and France "
            "ordering A PAR H.",
        ),
    ],
)
def test_levels_10_to_30_read_as_sentences(daide: str, text: str) -> None:
    assert english(daide) == text


def test_several_recipients_and_the_sender_are_named() -> None:
    said = english("PRP (PCE (ENG FRA GER))", "ENG", "FRA GER")
    assert said.startswith("England to France and Germany: I propose peace between England, ")


@pytest.mark.parametrize(
    ("daide", "words"),
    [
        ("INS (PCE (ENG FRA))", "I insist on peace"),
        ("QRY (PCE (ENG FRA))", "Is it true that there is peace"),
        ("SUG (DRW)", "I suggest a draw"),
        ("THK (PCE (ENG FRA))", "I think that there is peace"),
        ("IDK (PRP (DRW))", "I don't know about the proposal of a draw"),
        ("WHT (ENG FLT NTH)", "What do you propose for England's fleet in North Sea?"),
        ("HOW (GER)", "How shall we attack Germany?"),
        ("HOW (MUN)", "How shall we take Munich?"),
        (
            "PRP (SCD (ENG LON LVP) (FRA PAR))",
            "England gets London and Liverpool; France gets Paris",
        ),
        ("PRP (OCC (ENG UNT BEL))", "England's unit in Belgium"),
        ("PRP (CHO (1 2) (DRW) (PCE (ENG FRA)))", "between 1 and 2 of: a draw and peace"),
        ("PRP (FOR (SPR 1902) (PCE (ENG FRA)))", "peace between England and France in Spring 1902"),
        ("PRP (XOY (ENG) (FRA))", "England owing France a favour"),
        ("PRP (YDO (ENG) (FRA AMY PAR))", "England deciding the orders of France's army in Paris"),
        (
            "IFF (PCE (ENG FRA)) THN (PRP (DRW)) ELS (PRP (SLO (ENG)))",
            "otherwise: I propose a solo",
        ),
        ("EXP (SPR 1901) (PRP (DRW))", "Explain what you said in Spring 1901"),
        ("'let us talk'", "“let us talk”"),
        ("FRM (GER) (ENG) (PRP (DRW))", "Germany told England: “I propose a draw”"),
        ("PRP (FWD (GER) (ENG) (FRA))", "England passing on to France every message from Germany"),
        ("PRP (BCC (ENG) (GER) (FRA))", "England copying to France every message it sends"),
        ("PRP (SND (ENG) (GER) (PRP (DRW)))", "England telling Germany: “I propose a draw”"),
    ],
)
def test_higher_levels_say_what_they_mean(daide: str, words: str) -> None:
    assert words in english(daide)


def test_without_names_the_tokens_stand() -> None:
    assert (
        describe(messages.Prp(messages.Pce(("ENG", "FRA"))))
        == "I propose peace between ENG and FRA"
    )


def test_anything_unknown_is_given_in_daide_never_an_exception() -> None:
    # A construct this renderer has no words for (a new class, a malformed value) shows as
    # DAIDE or as itself: a transcript never fails on one message.
    class Strange:
        pass

    assert describe(Strange()).startswith("(in DAIDE)")  # type: ignore[arg-type]
    assert describe(messages.Prp(Strange())).startswith("I propose (in DAIDE)")  # type: ignore[arg-type]
    assert describe(messages.Prp(messages.Pce(None))).startswith("(in DAIDE)")  # type: ignore[arg-type]


def test_every_press_kind_and_arrangement_of_the_grammar_has_words() -> None:
    # Every press message and arrangement the messages (and so the grammar) allow is read
    # as English by a handler of its own, never by the "(in DAIDE)" fallback.
    import typing

    from diplomat.protocol import english

    press = set(typing.get_args(messages.Press))
    arrangements = set(typing.get_args(messages.Arrangement))
    assert press and arrangements
    assert press <= set(english._PRESS), press - set(english._PRESS)
    assert arrangements <= set(english._ARR), arrangements - set(english._ARR)


def test_the_handshake_is_told_apart_and_reads_as_sentences() -> None:
    from diplomat.protocol.english import handshake

    assert handshake(messages.Try(("PRP", "PCE"))) and handshake(messages.Huh(("ERR", "PRP")))
    assert not handshake(messages.Prp(messages.Pce(("ENG", "FRA"))))
    assert not handshake(messages.Yes(messages.Prp(messages.Pce(("ENG", "FRA")))))
    # A HUH whose echo cannot be read back still says what happened, in words.
    assert english("HUH (ERR PRP (PCE (ENG FRA)))").startswith("England to France: I did not")
    assert (
        describe(messages.Huh(("ERR", "XYZ")), NAMES) == "I did not understand a message of yours"
    )
