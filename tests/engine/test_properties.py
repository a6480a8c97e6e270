"""Games of random legal orders played to the end never raise, and the invariants hold after
every phase."""

from __future__ import annotations

import json
from itertools import pairwise

from hypothesis import given, settings
from hypothesis import strategies as st

from diplomat.engine.map import province_of
from diplomat.engine.orderset import owes_orders
from diplomat.engine.simulate import random_game
from diplomat.engine.state import GameState
from tests.boards import STANDARD_START

from .helpers import GMAP


def check_invariants(state: GameState, after_adjustment: bool) -> None:
    """What holds of every state a phase leaves."""
    provinces = [u.province for u in state.units.values()]
    assert len(provinces) == len(set(provinces)), "two units in one province"
    for prov, unit in state.units.items():
        assert prov == province_of(unit.loc)
        assert GMAP.can_stand(unit.type, unit.loc), f"{unit} cannot stand there"
    assert set(state.centres) <= GMAP.supply_centres
    assert set(state.centres.values()) <= set(GMAP.powers)
    for d in state.dislodged.values():
        assert d.retreats, "a dislodged unit without retreats must have been destroyed"
        for r in d.retreats:
            assert province_of(r) not in state.units
    if state.phase.kind != "retreat":
        assert not state.dislodged
    if after_adjustment:
        centres = state.centre_counts()
        units = state.unit_counts()
        for p in GMAP.powers:
            # After adjustments no power has more units than centres, and a power with builds
            # left over had no free home centre to use.
            assert units[p] <= centres[p]
    # The serialised form round-trips.
    assert GameState.from_json(json.loads(json.dumps(state.to_json()))) == state


def check_step(before: GameState, after: GameState, centres_updated: bool) -> None:
    """What holds of one processed phase: centres change hands only after the Fall, and
    then every centre with a unit on it belongs to that unit's power; a phase is skipped
    only when nobody owes orders in it."""
    fall_ended = before.phase.season in ("FAL", "AUT") and after.phase.index > before.phase.index
    if fall_ended and centres_updated:
        for prov, unit in after.units.items():
            if prov in GMAP.supply_centres:
                assert after.centres[prov] == unit.power, f"{prov} not taken by {unit}"
        assert {c: p for c, p in after.centres.items() if c not in after.units} == {
            c: p for c, p in before.centres.items() if c not in after.units
        }, "an empty centre changed hands"
    else:
        assert after.centres == before.centres, f"centres changed in {before.phase}"
    phase = before.phase.next()
    while phase.index < after.phase.index:  # each phase skipped in between
        assert phase.kind != "movement", f"{phase} skipped"
        phase = phase.next()
    if after.winner() is None:
        assert after.phase.kind == "movement" or any(owes_orders(after, p) for p in GMAP.powers), (
            f"{after.phase} needs no orders but was not skipped"
        )


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_random_games_keep_the_invariants(seed: int) -> None:
    last = None
    for step in random_game(STANDARD_START, seed, max_year=1912):
        after = step.result.state
        check_invariants(after, step.state.phase.kind == "adjustment")
        check_step(step.state, after, step.result.centres_updated)
        assert after.phase.index > step.state.phase.index
        last = after
    assert last is not None


def test_a_long_game_plays_on_from_where_each_phase_left_it_to_its_end() -> None:
    steps = list(random_game(STANDARD_START, 7, max_year=1960))
    for a, b in pairwise(steps):
        assert b.state == a.result.state
    final = steps[-1].result.state
    winner = final.winner()
    if winner is None:  # no solo: the game played every year up to the last
        assert steps[-1].state.phase.year == 1960 and final.phase.year == 1961
    else:  # a solo: more than half of the centres, and nobody else also has them
        assert final.centre_counts()[winner] > len(GMAP.supply_centres) // 2
        assert all(s.result.state.winner() is None for s in steps[:-1])


def test_states_with_impossible_retreats_are_refused() -> None:
    import pytest

    from diplomat.engine.state import Dislodged, Phase, StateError, Unit, make_state

    units = [Unit("ENG", "F", "NTH"), Unit("FRA", "A", "HOL")]
    for retreats in [("KIE", "NTH"), ("NTH",), ("PAR",)]:
        with pytest.raises(StateError):
            make_state(
                GMAP, Phase.parse("S1901R"), units, {},
                [Dislodged(Unit("GER", "A", "HOL"), "BEL", retreats)],
            )  # fmt: skip
