"""Each map owns its memos (``engine.memo``): several maps in one process never share or cross
them, and no result depends on what a memo holds."""

from __future__ import annotations

import pytest

from diplomat.engine.legal import Codes, legal_orders
from diplomat.engine.map import Distances, load_map
from diplomat.engine.simulate import random_game
from diplomat.engine.state import initial_state
from diplomat.engine.turn import process
from tests.boards import STANDARD_START

VARIANT = "sailho"  # four powers, its own provinces


def test_each_map_keeps_its_own_memos() -> None:
    standard, variant = load_map("standard"), load_map(VARIANT)
    assert standard.memo is not variant.memo
    standard.memo.clear()
    variant.memo.clear()
    for _ in random_game(STANDARD_START, 1, 1903):  # the standard map only
        pass
    assert Codes in standard.memo.kinds()
    assert variant.memo.kinds() == ()
    start = initial_state(variant)
    for _ in random_game(start, 1, start.phase.year + 2):
        pass
    assert Codes in variant.memo.kinds()
    standard.memo.clear()
    assert standard.memo.kinds() == ()
    assert Codes in variant.memo.kinds()  # clearing one map's memos leaves the other's


def test_no_result_depends_on_what_the_memos_hold() -> None:
    # The two maps' phases in turn, each judged with every memo warm (from both maps), then
    # again with its map's memos emptied: the same listing, results and next state.
    games = []
    for name in ("standard", VARIANT):
        start = initial_state(load_map(name))
        games.append(list(random_game(start, 7, start.phase.year + 3)))
    for steps in zip(*games, strict=False):
        for step in steps:
            state = step.state
            warm = (legal_orders(state), process(state, step.orders))
            state.map.memo.clear()
            assert (legal_orders(state), process(state, step.orders)) == warm
            assert warm[1] == step.result


def test_a_shared_distance_table_cannot_be_changed() -> None:
    gmap = load_map("standard")
    targets = frozenset({"PAR"})
    dist = gmap.distances_to(targets)
    assert dist["PAR"] == 0 and dist["BUR"] == 1
    assert Distances in gmap.memo.kinds()
    with pytest.raises(TypeError):
        dist["BUR"] = 5  # type: ignore[index]
    assert gmap.distances_to(targets)["BUR"] == 1
