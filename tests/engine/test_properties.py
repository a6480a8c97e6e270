"""Games of random legal orders played to the end never raise, and the invariants hold after
every phase."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.map import province_of
from engine.simulate import random_game
from engine.state import GameState

from .helpers import GMAP


def check_invariants(state: GameState, after_adjustment: bool) -> None:
    provinces = [u.province for u in state.units.values()]
    assert len(provinces) == len(set(provinces)), "two units in one province"
    for prov, unit in state.units.items():
        assert prov == province_of(unit.loc)
        assert GMAP.can_stand(unit.type, unit.loc), f"{unit} cannot stand there"
    assert set(state.centres) <= GMAP.supply_centres
    assert len(GMAP.supply_centres) == 34
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


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_random_games_keep_the_invariants(seed: int) -> None:
    last = None
    for step in random_game(seed, max_year=1912):
        after = step.result.state
        check_invariants(after, step.state.phase.kind == "adjustment")
        assert after.phase.index > step.state.phase.index
        last = after
    assert last is not None


def test_a_long_game_reaches_an_end() -> None:
    steps = list(random_game(7, max_year=1960))
    final = steps[-1].result.state
    assert final.winner() is not None or final.phase.year > 1960


def test_states_with_impossible_retreats_are_refused() -> None:
    import pytest

    from engine.state import Dislodged, Phase, StateError, Unit, make_state

    units = [Unit("ENG", "F", "NTH"), Unit("FRA", "A", "HOL")]
    for retreats in [("KIE", "NTH"), ("NTH",), ("PAR",)]:
        with pytest.raises(StateError):
            make_state(
                GMAP, Phase.parse("S1901R"), units, {},
                [Dislodged(Unit("GER", "A", "HOL"), "BEL", retreats)],
            )  # fmt: skip
