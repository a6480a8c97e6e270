"""The agreement convention over a conversation: proposal states, agreements in force, orders
that break them, and what a processed phase did to them."""

from __future__ import annotations

from diplomat.engine.map import load_map
from diplomat.engine.notation import parse_order
from diplomat.engine.orders import Order
from diplomat.engine.state import Unit, initial_state, make_state
from diplomat.protocol import messages
from diplomat.protocol.codec import codec_for
from diplomat.protocol.pressbook import (
    ACCEPTED,
    CANCELLED,
    DECLINED,
    LAPSED,
    NOT_UNDERSTOOD,
    REJECTED,
    WAITING,
    PressItem,
    agreements,
    breaches,
    outcomes,
    proposals,
)
from diplomat.protocol.tokens import STANDARD

TABLE = STANDARD
CODEC = codec_for(TABLE)
GMAP = load_map("standard")
STATE = initial_state(GMAP)


def items(*lines: str, phase: str = "S1901M") -> list[PressItem]:
    """``ENG > FRA GER: PRP (...)`` per line."""
    out = []
    for seq, line in enumerate(lines):
        head, _, body = line.partition(":")
        sender, _, to = head.partition(">")
        out.append(PressItem(seq, phase, sender.strip(), tuple(to.split()), _press(body)))
    return out


def _press(body: str) -> messages.Press:
    msg = CODEC.parse_text(f"FRM ( ENG ) ( FRA ) ( {body.strip()} )")
    assert isinstance(msg, messages.Frm)
    return msg.press


def order(text: str, power: str) -> Order:
    return parse_order(GMAP, text, power, "movement", dict(STATE.units))


def test_a_proposal_is_agreed_when_every_recipient_says_yes() -> None:
    log = items(
        "ENG > FRA GER: PRP (PCE (ENG FRA GER))",
        "FRA > ENG: YES (PRP (PCE (ENG FRA GER)))",
    )
    assert proposals(log, TABLE)[0].state == WAITING
    log += items("GER > ENG FRA: YES (PRP (PCE (ENG FRA GER)))")[0:1]
    log[-1] = PressItem(2, "S1901M", "GER", ("ENG", "FRA"), log[-1].press)
    p = proposals(log, TABLE)[0]
    assert p.state == ACCEPTED and p.replies == {"FRA": "yes", "GER": "yes"}
    assert [a.arrangement for a in agreements(log, "S1901M", TABLE)] == [
        messages.Pce(("ENG", "FRA", "GER"))
    ]


def test_no_not_now_and_cancel() -> None:
    log = items(
        "ENG > FRA: PRP (PCE (ENG FRA))",
        "FRA > ENG: REJ (PRP (PCE (ENG FRA)))",
        "ENG > GER: PRP (DRW)",
        "GER > ENG: BWX (PRP (DRW))",
        "ENG > RUS: PRP (DRW)",
        "ENG > RUS: CCL (PRP (DRW))",
        "RUS > ENG: YES (PRP (DRW))",  # too late: cancelled first
    )
    states = {k: p.state for k, p in proposals(log, TABLE).items()}
    assert states == {0: REJECTED, 2: DECLINED, 4: CANCELLED}
    assert agreements(log, "S1901M", TABLE) == []


def test_a_bot_without_press_did_not_understand() -> None:
    # What a silent bundled bot answers: HUH with ERR before the whole message, then TRY ().
    log = items(
        "ENG > FRA: PRP (PCE (ENG FRA))",
        "FRA > ENG: HUH (ERR PRP (PCE (ENG FRA)))",
        "FRA > ENG: TRY ()",
    )
    p = proposals(log, TABLE)[0]
    assert p.state == NOT_UNDERSTOOD and p.replies == {"FRA": "huh"}


def test_a_proposal_lapses_when_its_phase_ends() -> None:
    # The bots forget what is unanswered when a phase ends: a late YES makes no agreement.
    log = items("ENG > FRA: PRP (PCE (ENG FRA))")
    log += items("FRA > ENG: YES (PRP (PCE (ENG FRA)))", phase="F1901M")
    log[-1] = PressItem(1, "F1901M", "FRA", ("ENG",), log[-1].press)
    assert proposals(log, TABLE)[0].state == LAPSED
    assert proposals(log[:1], TABLE, now="S1901M")[0].state == WAITING
    assert proposals(log[:1], TABLE, now="F1901M")[0].state == LAPSED
    assert agreements(log, "F1901M", TABLE) == []


def test_a_cancel_after_the_agreement_changes_nothing() -> None:
    log = items(
        "ENG > FRA: PRP (DMZ (ENG FRA) (ECH))",
        "FRA > ENG: YES (PRP (DMZ (ENG FRA) (ECH)))",
        "ENG > FRA: CCL (PRP (DMZ (ENG FRA) (ECH)))",
    )
    assert proposals(log, TABLE)[0].state == ACCEPTED
    assert len(agreements(log, "F1901M", TABLE)) == 1  # a DMZ lasts


def test_and_counts_as_its_parts_and_nar_ends_an_agreement() -> None:
    log = items(
        "ENG > FRA: PRP (AND (PCE (ENG FRA)) (DMZ (ENG FRA) (ECH)))",
        "FRA > ENG: YES (PRP (AND (PCE (ENG FRA)) (DMZ (ENG FRA) (ECH))))",
        "FRA > ENG: PRP (NAR (DMZ (ENG FRA) (ECH)))",
        "ENG > FRA: YES (PRP (NAR (DMZ (ENG FRA) (ECH))))",
    )
    assert [type(a.arrangement) for a in agreements(log[:2], "S1901M", TABLE)] == [
        messages.Pce,
        messages.Dmz,
    ]
    assert [type(a.arrangement) for a in agreements(log, "S1901M", TABLE)] == [messages.Pce]


def test_an_agreement_made_twice_counts_once() -> None:
    log = items(
        "ENG > FRA: PRP (PCE (ENG FRA))",
        "FRA > ENG: YES (PRP (PCE (ENG FRA)))",
        "FRA > ENG: PRP (PCE (FRA ENG))",
        "ENG > FRA: YES (PRP (PCE (FRA ENG)))",
    )
    assert len(agreements(log, "S1901M", TABLE)) == 1


def test_an_xdo_holds_for_its_phase_only() -> None:
    log = items(
        "ENG > FRA: PRP (XDO ((FRA AMY PAR) MTO BUR))",
        "FRA > ENG: YES (PRP (XDO ((FRA AMY PAR) MTO BUR)))",
    )
    assert len(agreements(log, "S1901M", TABLE)) == 1
    assert agreements(log, "F1901M", TABLE) == []
    winter = items(
        "ENG > FRA: PRP (XDO ((FRA AMY PAR) MTO BUR))",
        "FRA > ENG: YES (PRP (XDO ((FRA AMY PAR) MTO BUR)))",
        phase="W1901A",
    )
    assert (
        agreements(winter, "W1901A", TABLE) == [] and len(agreements(winter, "S1902M", TABLE)) == 1
    )


def test_orders_that_break_an_agreement_are_found() -> None:
    log = items(
        "ENG > FRA: PRP (AND (PCE (ENG FRA)) (DMZ (ENG FRA) (ECH)) (XDO ((ENG FLT LON) MTO NTH)))",
        "FRA > ENG: YES (PRP (AND (PCE (ENG FRA)) (DMZ (ENG FRA) (ECH)) "
        "(XDO ((ENG FLT LON) MTO NTH))))",
    )
    agreed = agreements(log, "S1901M", TABLE)
    into_channel = order("F LON - ENG", "ENG")
    keeps = order("F EDI - NWG", "ENG")
    found = breaches([into_channel, keeps], agreed, STATE, "ENG")
    kinds = sorted(type(a.arrangement).__name__ for a in found[into_channel])
    assert kinds == ["Dmz", "Xdo"] and keeps not in found
    # Peace: attacking France's units breaks it (France has none next to England's yet).
    units = [u for u in STATE.units.values() if u.loc != "BRE"] + [Unit("FRA", "F", "ECH")]
    state = make_state(GMAP, STATE.phase, units, dict(STATE.centres))
    attack = parse_order(GMAP, "F LON - ENG", "ENG", "movement", dict(state.units))
    found = breaches([attack], agreed, state, "ENG")
    attacked = {type(a.arrangement).__name__ for a in found[attack]}
    assert "Pce" in attacked
    # Another power's agreements are not this power's business.
    assert breaches([into_channel], agreed, STATE, "GER") == {}


def test_what_a_phase_did_to_the_agreements() -> None:
    log = items(
        "ENG > FRA: PRP (AND (DMZ (ENG FRA) (ECH)) (XDO ((FRA FLT BRE) MTO MAO)))",
        "FRA > ENG: YES (PRP (AND (DMZ (ENG FRA) (ECH)) (XDO ((FRA FLT BRE) MTO MAO))))",
    )
    agreed = agreements(log, "S1901M", TABLE)
    kept = outcomes(agreed, STATE, [order("F BRE - MAO", "FRA"), order("F LON - NTH", "ENG")])
    assert [(o.kept, o.breakers) for o in kept] == [(True, ()), (True, ())]
    broken = outcomes(agreed, STATE, [order("F BRE - ENG", "FRA")])
    assert [(o.kept, o.breakers) for o in broken] == [(False, ("FRA",)), (False, ("FRA",))]
