"""Legal-order lists and validation agree in both directions."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from diplomat.engine.legal import legal_orders
from diplomat.engine.map import load_map, province_of
from diplomat.engine.orders import (
    Build,
    Convoy,
    Move,
    Note,
    Order,
    Remove,
    Retreat,
    SupportHold,
    SupportMove,
    Waive,
)
from diplomat.engine.orderset import OrderSet
from diplomat.engine.simulate import random_game
from diplomat.engine.state import GameState, Unit, initial_state
from diplomat.engine.validate import BoardIndex, check_order
from tests.boards import STANDARD_START

from .helpers import GMAP, board


def _sample_states() -> list[GameState]:
    states = [initial_state(load_map("standard"))]
    for seed in (3, 11):
        for i, step in enumerate(random_game(STANDARD_START, seed, 1906)):
            if i % 2 == 0 or step.state.phase.kind != "movement":
                states.append(step.state)
    return states


STATES = _sample_states()


def test_every_listed_order_is_accepted_as_it_stands() -> None:
    for state in STATES:
        position = BoardIndex(state)
        for orders in legal_orders(state).values():
            for order in orders:
                power = order.power if isinstance(order, Waive) else order.unit.power
                checked = check_order(position, power, order)
                assert checked.note is Note.MBV, (state.phase, order, checked.note)
                assert checked.order == order


def test_opening_position_lists() -> None:
    state = initial_state(load_map("standard"))
    legal = legal_orders(state, "ENG")
    assert set(legal) == {"EDI", "LON", "LVP"}
    lon = {str(o) for o in legal["LON"]}
    assert {"F LON H", "F LON - NTH", "F LON - ECH", "F LON - WAL", "F LON - YOR"} <= lon
    assert "F LON S F EDI - NTH" in lon
    assert "F LON S A LVP - WAL" in lon
    assert "F LON S A LVP - YOR" in lon
    # No fleet at sea yet, so no convoys anywhere.
    assert not any(isinstance(o, Convoy) for v in legal_orders(state).values() for o in v)


def test_convoy_orders_need_the_fleet() -> None:
    # DATC 6.G.19: F WES is needed by no route from MAR to SPA while F GOL is there.
    state = board("FRA A MAR", "FRA F WES", "ITA F GOL", "ITA A SPA")
    wes = {str(o) for o in legal_orders(state, "FRA")["WES"]}
    assert "F WES C A MAR - SPA" not in wes
    assert "F WES C A MAR - NAF" in wes  # MAR-GOL-WES-NAF does need it
    gol = {str(o) for o in legal_orders(state, "ITA")["GOL"]}
    assert "F GOL C A MAR - SPA" in gol


def test_support_of_a_convoy_needing_the_supporter_is_not_listed() -> None:
    # DATC 6.D.31: F BLA cannot both convoy A RUM to ARM and support that move.
    state = board("AUS A RUM", "TUR F BLA")
    assert "A RUM - ARM" in {str(o) for o in legal_orders(state, "AUS")["RUM"]}
    bla = {str(o) for o in legal_orders(state, "TUR")["BLA"]}
    assert "F BLA S A RUM - ARM" not in bla
    assert "F BLA S A RUM - SEV" in bla


def test_retreat_and_adjustment_lists() -> None:
    from diplomat.engine.turn import process

    state = board("ENG F NTH", "ENG F ECH", "FRA F BEL")
    after = process(
        state,
        {
            "ENG": [
                Move(Unit("ENG", "F", "NTH"), "BEL"),
                SupportMove(Unit("ENG", "F", "ECH"), Unit("ENG", "F", "NTH"), "BEL"),
            ]
        },
    ).state
    assert after.phase.kind == "retreat"
    legal = legal_orders(after, "FRA")
    assert {str(o) for o in legal["BEL"]} == {"F BEL R HOL", "F BEL R PIC", "F BEL D"}
    win = board("RUS A MOS", phase="W1901A", centres={"MOS": "RUS", "STP": "RUS", "SEV": "ENG"})
    legal = legal_orders(win, "RUS")
    assert {str(o) for o in legal["STP"]} == {"A STP B", "F STP/NC B", "F STP/SC B"}
    assert legal["WAIVE"] == [Waive("RUS")]
    assert "MOS" not in legal and "SEV" not in legal


# -- the other direction: whatever validation accepts is listed ---------------------------

LOCS = [*sorted(GMAP.locations), "XYZ", "SPA/EC", "PAR/NC"]


@st.composite
def candidate_orders(draw: st.DrawFn) -> tuple[GameState, str, Order]:
    state = draw(st.sampled_from(STATES))
    kind = state.phase.kind
    power = draw(st.sampled_from(GMAP.powers))
    if kind == "movement":
        unit = draw(st.sampled_from(list(state.units.values())))
        other = draw(st.sampled_from(list(state.units.values())))
        dest = draw(st.sampled_from(LOCS))
        choices: list[Order] = [
            Move(unit, dest),
            Move(unit, dest, convoy=True),
            SupportHold(unit, other),
            SupportMove(unit, other, dest),
            Convoy(unit, other, province_of(dest)),
        ]
        order = draw(st.sampled_from(choices))
        return state, unit.power, order
    if kind == "retreat":
        d = draw(st.sampled_from(list(state.dislodged.values())))
        return state, d.unit.power, Retreat(d.unit, draw(st.sampled_from(LOCS)))
    loc = draw(st.sampled_from(LOCS))
    utype = draw(st.sampled_from("AF"))
    choice = draw(st.sampled_from(["build", "remove", "waive"]))
    if choice == "build":
        return state, power, Build(Unit(power, utype, loc))
    if choice == "remove":
        return state, power, Remove(Unit(power, utype, loc))
    return state, power, Waive(power)


@settings(max_examples=400, deadline=None)
@given(candidate_orders())
def test_accepted_orders_are_listed(case: tuple[GameState, str, Order]) -> None:
    state, power, order = case
    book = OrderSet(state)
    checked = book.submit(power, order)
    if checked.note is not Note.MBV:
        return
    listed = [o for v in legal_orders(state, power).values() for o in v]
    assert checked.order in listed


def test_random_orders_are_legal() -> None:
    from diplomat.engine.simulate import random_orders

    rng = random.Random(5)
    for state in STATES:
        book = OrderSet(state)
        for power, orders in random_orders(state, rng).items():
            for o in orders:
                assert book.submit(power, o).note is Note.MBV
