"""The search API agrees with engine.turn.process and engine.legal.legal_orders."""

from __future__ import annotations

import copy
import pickle
import random
from collections.abc import Mapping, Sequence

import pytest

from diplomat.engine.legal import legal_orders
from diplomat.engine.map import load_map
from diplomat.engine.notation import parse_order
from diplomat.engine.orders import (
    WAIVE_KEY,
    Build,
    Disband,
    Hold,
    Move,
    Order,
    Remove,
    SupportMove,
    Waive,
)
from diplomat.engine.search import SearchPosition
from diplomat.engine.simulate import random_game, random_orders
from diplomat.engine.state import GameState, Unit, initial_state
from diplomat.engine.turn import process
from tests.boards import STANDARD_START

from .helpers import GMAP, board


def _sample_states() -> list[GameState]:
    states = [initial_state(load_map("standard"))]
    for seed in (1, 2):  # games with retreat phases by 1908
        states += [step.state for step in random_game(STANDARD_START, seed, 1908)]
    return states


STATES = _sample_states()


def _as_lists(legal: Mapping[str, Sequence[Order]]) -> dict[str, list[Order]]:
    return {key: list(orders) for key, orders in legal.items()}


def test_listing_equals_legal_orders_for_every_power() -> None:
    for state in STATES:
        pos = SearchPosition(state)
        assert _as_lists(pos.legal()) == legal_orders(state)
        for power in GMAP.powers:
            assert _as_lists(pos.legal(power)) == legal_orders(state, power)
            assert pos.legal(power) is pos.legal(power)  # computed once per position


def test_a_caller_cannot_change_the_shared_listing() -> None:
    # SearchPosition.legal is computed once and handed to every caller (a bot's search, its
    # opponent models, the negotiator): a caller that changed what it got would change what
    # all the others see, and what a fresh position lists (the orders come from per-map
    # memos). Neither the mapping nor a unit's orders can be changed.
    state = board("FRA A PAR", "FRA F BRE", "GER A MUN")
    pos = SearchPosition(state)
    legal = pos.legal("FRA")
    before = _as_lists(legal)
    hold = legal["PAR"][0]
    with pytest.raises(TypeError):
        legal["PAR"] = (hold,)  # type: ignore[index]
    with pytest.raises(TypeError):
        del legal["BRE"]  # type: ignore[attr-defined]
    with pytest.raises(AttributeError):
        legal["PAR"].append(hold)  # type: ignore[attr-defined]
    with pytest.raises(TypeError):
        legal["PAR"][0] = legal["PAR"][1]  # type: ignore[index]
    # legal_orders hands out lists of the caller's own: changing them changes nothing shared.
    mine = legal_orders(state, "FRA")
    mine["PAR"].clear()
    mine.pop("BRE")
    assert _as_lists(pos.legal("FRA")) == before
    assert _as_lists(SearchPosition(state).legal("FRA")) == before
    assert legal_orders(state, "FRA") == before


def test_many_order_sets_from_one_position_equal_process() -> None:
    rng = random.Random(12)
    kinds = set()
    for state in STATES:
        pos = SearchPosition(state)
        pos.legal()  # listed orders are then taken without judging them again
        for _ in range(4):
            orders = random_orders(state, rng)
            expected = process(state, orders)
            out = pos.adjudicate(orders)
            assert out.state == expected.state
            assert out.state.phase == expected.state.phase
            assert out.results == expected.results
            dislodged = [
                o.unit for o, r in expected.results if r.dislodged and not isinstance(o, Waive)
            ]
            assert list(out.dislodged) == list(expected.dislodged) == dislodged
            # What a search reads, the standing and the dislodged, the same the short way.
            units, moved_out = pos.moves(orders)
            assert dict(units) == dict(out.state.units) and moved_out == out.dislodged
            kinds.add(state.phase.kind)
    assert kinds == {"movement", "retreat", "adjustment"}


def test_orders_not_from_the_listing_are_judged() -> None:
    state = board("FRA A PAR", "FRA A MAR", "GER A MUN", "GER A RUH")
    pos = SearchPosition(state)
    written: dict[str, list[Order]] = {
        "FRA": [
            parse_order(GMAP, "A PAR - BUR", "FRA", units=state.units),
            parse_order(GMAP, "A MAR S A PAR - BUR", "FRA", units=state.units),
            Move(Unit("FRA", "A", "MUN"), "BUR"),  # not France's unit: dropped
        ],
        "GER": [Move(Unit("GER", "A", "MUN"), "PIE")],  # not adjacent: dropped, holds
    }
    for _ in range(2):  # before and after listing
        out = pos.adjudicate(written)
        expected = process(state, written)
        assert out.results == expected.results
        assert out.state == expected.state
        assert ("A PAR - BUR", "SUC") in {(str(o), str(r)) for o, r in out.results}
        assert Hold(state.units["MUN"]) in [o for o, _ in out.results]
        pos.legal("FRA")


def test_a_listed_order_given_for_another_power_is_judged() -> None:
    state = board("FRA A PAR", "GER A MUN")
    pos = SearchPosition(state)
    par = pos.legal("FRA")["PAR"]
    out = pos.adjudicate({"GER": [o for o in par if isinstance(o, Move)][:1]})
    assert all(str(r) == "SUC" for _, r in out.results)
    assert {str(o) for o, _ in out.results} == {"A PAR H", "A MUN H"}


def test_dislodged_units_are_reported() -> None:
    state = board("ENG F NTH", "ENG F ECH", "FRA F BEL")
    pos = SearchPosition(state)
    legal = pos.legal("ENG")
    attack = next(o for o in legal["NTH"] if str(o) == "F NTH - BEL")
    support = next(o for o in legal["ECH"] if isinstance(o, SupportMove) and o.dest == "BEL")
    out = pos.adjudicate({"ENG": [attack, support]})
    assert out.dislodged == (state.units["BEL"],)
    assert out.state.phase.kind == "retreat"
    assert set(out.state.dislodged) == {"BEL"}


def test_adjustments_count_listed_builds() -> None:
    win = board("RUS A MOS", phase="W1901A", centres={"MOS": "RUS", "STP": "RUS", "WAR": "RUS"})
    pos = SearchPosition(win)
    legal = pos.legal("RUS")
    builds: list[Order] = [legal["STP"][0], legal["WAR"][0], *legal[WAIVE_KEY]]
    out = pos.adjudicate({"RUS": builds})
    expected = process(win, {"RUS": builds})
    assert out.results == expected.results
    assert [type(o) for o, _ in out.results].count(Waive) == 0  # two builds use the allowance
    assert len(out.state.units) == 3


def test_a_listed_order_cannot_be_changed_and_a_fresh_position_lists_the_same() -> None:
    # Listings share order objects between positions (per-map memos): before orders were
    # immutable, setting ``dest`` on one listed move changed what every later position listed.
    state = initial_state(load_map("standard"))
    first = SearchPosition(state).legal("FRA")
    move = next(o for o in first["PAR"] if isinstance(o, Move) and o.dest == "BUR")
    with pytest.raises(AttributeError):
        object.__setattr__(move, "dest", "MUN")  # not even past the class's own __setattr__
    fresh = SearchPosition(state).legal("FRA")
    assert fresh == first
    assert "A PAR - MUN" not in {str(o) for o in fresh["PAR"]}
    assert move.dest == "BUR"


def test_an_order_equal_to_a_listed_one_is_that_order() -> None:
    # Search relies on equality, not on which object was passed: a copy of a listed order
    # is taken as listed, and gives the results the listed object gives.
    state = board("ENG F NTH", "ENG F ECH", "FRA F BEL")
    pos = SearchPosition(state)
    listed = [o for o in pos.legal("ENG")["NTH"] if str(o) == "F NTH - BEL"]
    copy = Move(Unit("ENG", "F", "NTH"), "BEL")
    assert listed == [copy] and listed[0] is not copy
    assert pos.adjudicate({"ENG": [copy]}).results == pos.adjudicate({"ENG": listed}).results


def test_orders_are_equal_only_to_orders_of_their_kind() -> None:
    unit = Unit("FRA", "A", "PAR")
    kinds = [Hold(unit), Disband(unit), Build(unit), Remove(unit)]
    assert len(set(kinds)) == 4  # named tuples with equal fields, but different orders
    assert all(a != b for a in kinds for b in kinds if a is not b)
    assert Hold(unit) == Hold(Unit("FRA", "A", "PAR"))
    assert hash(Hold(unit)) == hash(Hold(Unit("FRA", "A", "PAR")))
    assert Hold(unit) != (unit,) and (unit,) != Hold(unit)
    assert Waive("FRA") != Waive("GER") and Waive("FRA") == Waive("FRA")


def test_units_are_values_equal_only_to_units() -> None:
    # Units are slot classes with their hash computed once (read in C, for the order lookups
    # of a search); a unit is not a tuple of its fields, nor an order of it, and it cannot
    # be changed (as a frozen dataclass cannot: its fields refuse assignment and deletion).
    unit = Unit("FRA", "A", "PAR")
    assert unit == Unit("FRA", "A", "PAR") and hash(unit) == hash(Unit("FRA", "A", "PAR"))
    fields = ("FRA", "A", "PAR")
    assert unit != fields and fields != unit  # whichever side asks
    assert unit != Unit("FRA", "F", "PAR") and unit != Hold(unit)
    assert len({unit, Unit("FRA", "A", "PAR"), fields}) == 2
    with pytest.raises(AttributeError):
        unit.loc = "BUR"
    with pytest.raises(AttributeError):
        del unit.power
    assert unit.province == "PAR" and str(unit) == "A PAR"
    # A copy or a pickle is rebuilt from the fields (the hash of a string differs from one
    # process to another, so a stored hash must not travel).
    assert unit.__reduce__() == (Unit, fields)
    assert pickle.loads(pickle.dumps(unit)) == unit and copy.deepcopy(unit) == unit
