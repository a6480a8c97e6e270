"""The press API: press built as objects goes out as the DAIDE a server reads, comes back as the
same objects, and each reply is tied to the proposal it answers."""

from __future__ import annotations

from diplomat.bots.press import (
    Incoming,
    Proposals,
    alliance,
    both,
    dmz,
    draw,
    either,
    level_of,
    parts,
    peace,
    propose,
    to,
    xdo,
)
from diplomat.engine.orders import SupportMove
from diplomat.engine.state import Unit
from diplomat.protocol import messages
from diplomat.protocol.codec import Codec
from diplomat.protocol.tokens import STANDARD

CODEC = Codec(STANDARD)
SUPPORT = SupportMove(Unit("GER", "A", "MUN"), Unit("FRA", "A", "PAR"), "BUR")


def test_built_press_is_the_daide_a_server_reads_and_back() -> None:
    cases = {
        propose(peace("GER", "FRA")): ("PRP ( PCE ( FRA GER ) )", 10),
        propose(alliance(["FRA", "GER"], ["ENG"])): ("PRP ( ALY ( FRA GER ) VSS ( ENG ) )", 10),
        propose(draw()): ("PRP ( DRW )", 10),
        propose(dmz(["GER", "FRA"], ["BUR"])): ("PRP ( DMZ ( FRA GER ) ( BUR ) )", 20),
        propose(xdo(SUPPORT)): ("PRP ( XDO ( ( GER AMY MUN ) SUP ( FRA AMY PAR ) MTO BUR ) )", 20),
        propose(both(peace("FRA", "GER"), dmz(["FRA", "GER"], ["BUR"]))): (
            "PRP ( AND ( PCE ( FRA GER ) ) ( DMZ ( FRA GER ) ( BUR ) ) )",
            30,
        ),
        propose(either(peace("FRA", "GER"), draw())): (
            "PRP ( ORR ( PCE ( FRA GER ) ) ( DRW ) )",
            30,
        ),
    }
    for press, (text, level) in cases.items():
        snd = to(["GER"], press)
        wire = CODEC.text(snd)
        assert wire == f"SND ( GER ) ( {text} )"
        assert CODEC.parse_text(wire) == snd
        assert level_of(snd, STANDARD) == level == level_of(press, STANDARD)
    assert parts(both(peace("FRA", "GER"), draw())) == (peace("FRA", "GER"), draw())
    assert both(draw()) == draw()


def test_replies_are_tied_to_the_proposals_they_answer() -> None:
    book = Proposals(STANDARD, "FRA")
    deal = both(peace("FRA", "GER", "ITA"), dmz(["FRA", "GER"], ["BUR"]))
    sent = to(["GER", "ITA"], propose(deal))
    proposal = book.sent(sent, "S1901M")
    assert proposal is not None and list(book.waiting()) == [proposal]
    # The replies come back through the wire, as the recipients' FRMs.
    frm = CODEC.parse_text(f"FRM ( GER ) ( FRA ) ( YES ( {CODEC.text(sent.press)} ) )")
    assert isinstance(frm, messages.Frm)
    assert book.reply(Incoming(frm.sender, frm.recipients, frm.press)) is proposal
    assert not proposal.agreed and list(book.waiting()) == [proposal]
    # Something that answers nothing of ours is not taken for an answer.
    other = messages.Yes(propose(peace("ENG", "ITA")))
    assert book.reply(Incoming("ITA", ("FRA",), other)) is None
    assert book.reply(Incoming("ITA", ("FRA",), messages.Yes(sent.press))) is proposal
    assert proposal.agreed and proposal.replies == {"GER": "yes", "ITA": "yes"}
    assert list(book.waiting()) == []
    # A refusal.
    refused = book.sent(to(["ENG"], propose(peace("ENG", "FRA"))), "S1901M")
    assert (
        book.reply(Incoming("ENG", ("FRA",), messages.Rej(propose(peace("ENG", "FRA")))), "S1901M")
        is refused
    )
    assert refused is not None and refused.refused and not refused.agreed
    # A new phase lapses what is unanswered; a late YES then agrees nothing.
    late = book.sent(to(["ITA"], propose(peace("FRA", "ITA"))), "S1901M")
    book.expire("F1901M")
    assert late is not None and late.lapsed and list(book.waiting()) == []
    assert book.reply(Incoming("ITA", ("FRA",), messages.Yes(propose(peace("FRA", "ITA"))))) is None


def test_answering_what_came_in() -> None:
    prp = propose(peace("FRA", "GER", "ITA"))
    incoming = Incoming("GER", ("FRA", "ITA"), prp, tuple(CODEC.words(prp)))
    assert incoming.proposal == peace("FRA", "GER", "ITA")
    assert not incoming.is_reply
    # YES goes to the proposer and the other recipients; REJ and BWX to the proposer.
    assert incoming.yes("FRA") == messages.Snd(("GER", "ITA"), messages.Yes(prp))
    assert incoming.rej() == messages.Snd(("GER",), messages.Rej(prp))
    assert incoming.bwx() == messages.Snd(("GER",), messages.Bwx(prp))
    # HUH puts ERR before the first press token it does not understand.
    ins = messages.Ins(peace("FRA", "GER"))
    asked = Incoming("GER", ("FRA",), ins, tuple(CODEC.words(ins)))
    assert CODEC.text(asked.huh()) == "SND ( GER ) ( HUH ( ERR INS ( PCE ( FRA GER ) ) ) )"
    assert CODEC.text(asked.try_(["PRP", "PCE"])) == "SND ( GER ) ( TRY ( PRP PCE ) )"
    assert Incoming("GER", ("FRA",), messages.Yes(prp)).is_reply
