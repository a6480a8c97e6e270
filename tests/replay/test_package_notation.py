"""The ``diplomacy`` package's notation both ways (replay.package_notation): every legal order
of many positions, on the standard map and a variant, written and read back; the start
position's orders written exactly as the package itself lists them."""

from __future__ import annotations

import random

import pytest
from diplomacy import Game

from diplomat.engine.legal import legal_orders
from diplomat.engine.map import load_map
from diplomat.engine.orders import order_power
from diplomat.engine.simulate import random_game
from diplomat.engine.state import GameState, Phase, initial_state
from diplomat.replay.package_notation import (
    COMPLETED,
    PackageFormatError,
    location_text,
    order_text,
    phase_text,
    power_name,
    power_tokens,
    read_location,
    read_order,
    read_phase,
    read_state,
    read_unit,
    state_dict,
    unit_text,
)


def _positions(map_name: str, seeds: range, years: int) -> list[GameState]:
    out: list[GameState] = []
    start = initial_state(load_map(map_name))
    for seed in seeds:
        out.extend(step.state for step in random_game(start, seed, start.phase.year + years))
    return out


@pytest.mark.parametrize(("map_name", "seeds"), [("standard", range(3)), ("modern", range(2))])
def test_every_legal_order_reads_back_as_written(map_name: str, seeds: range) -> None:
    positions = _positions(map_name, seeds, 5)
    kinds = {s.phase.kind for s in positions}
    assert kinds == {"movement", "retreat", "adjustment"}
    checked = 0
    for state in positions:
        for orders in legal_orders(state).values():
            for order in orders:
                power = order_power(order)
                text = order_text(state.map, order)
                assert read_order(state, power, text) == order, text
                checked += 1
    assert checked > 5000


def test_the_start_position_is_written_as_the_package_lists_it() -> None:
    state = initial_state(load_map("standard"))
    ours = {order_text(state.map, o) for os in legal_orders(state).values() for o in os}
    theirs = {o for os in Game().get_all_possible_orders().values() for o in os}
    assert ours == theirs


def test_the_package_spellings() -> None:
    gmap = load_map("standard")
    assert location_text(gmap, "ECH") == "ENG"
    assert location_text(gmap, "GOB") == "BOT"
    assert location_text(gmap, "GOL") == "LYO"
    assert location_text(gmap, "STP/SC") == "STP/SC"
    assert read_location(gmap, "LYO") == "GOL"
    assert power_name(gmap, "FRA") == "FRANCE"
    assert power_tokens(gmap)["FRANCE"] == "FRA"
    unit, dislodged = read_unit(gmap, "RUS", "*F STP/SC")
    assert (unit_text(gmap, unit), dislodged) == ("F STP/SC", True)
    assert phase_text(Phase("AUT", 1901)) == "F1901R"
    assert read_phase("W1901A") == Phase("WIN", 1901)
    assert read_phase(COMPLETED) is None and phase_text(None) == COMPLETED


def test_unreadable_text_is_a_clear_error() -> None:
    state = initial_state(load_map("standard"))
    gmap = state.map
    with pytest.raises(PackageFormatError, match="unknown province 'XYZ'"):
        read_order(state, "FRA", "A XYZ - BUR")
    with pytest.raises(PackageFormatError, match="not a unit"):
        read_unit(gmap, "FRA", "Q PAR")
    with pytest.raises(PackageFormatError, match="cannot stand"):
        read_unit(gmap, "FRA", "F PAR")
    with pytest.raises(PackageFormatError, match="not a phase name"):
        read_phase("SUMMER")


@pytest.mark.parametrize("map_name", ["standard", "modern"])
def test_positions_read_back_from_the_package_state(map_name: str) -> None:
    positions = _positions(map_name, range(1), 4)
    rng = random.Random(7)
    for state in rng.sample(positions, 12) + [p for p in positions if p.dislodged][:3]:
        gmap = state.map
        saved = state_dict(state)
        assert saved["name"] == state.phase.name
        back, problem = read_state(gmap, power_tokens(gmap), saved["name"], saved, {})
        assert problem is None and back is not None
        assert back.units == state.units and back.centres == state.centres
        assert {p: (d.unit, set(d.retreats)) for p, d in back.dislodged.items()} == {
            p: (d.unit, set(d.retreats)) for p, d in state.dislodged.items()
        }
