"""Variant maps: every bundled map plays, and what differs from the standard game is ruled as
the variant says (Chaos's builds, fewer and more powers, two-coast provinces, shared homes,
the victory count, a Winter start)."""

from __future__ import annotations

import copy
import random
from pathlib import Path

import pytest

from diplomat.engine.datc import run_file
from diplomat.engine.legal import WAIVE_KEY, legal_orders
from diplomat.engine.map import GameMap, MapError, bundled_maps, load_map
from diplomat.engine.orders import Build, Move, Note, Waive
from diplomat.engine.orderset import OrderSet
from diplomat.engine.simulate import random_orders
from diplomat.engine.state import Phase, Unit, initial_state, make_state
from diplomat.engine.turn import process
from diplomat.engine.validate import BoardIndex, check_order

VARIANTS = [n for n in bundled_maps() if n != "standard"]
DATC_VARIANTS = Path(__file__).parent.parent / "datc" / "variants"


def test_every_aiserver_variant_is_bundled() -> None:
    assert set(bundled_maps()) >= {
        "standard", "abstraction2", "african2", "americas4", "chaos", "chromatic", "classical",
        "fleet_rome", "hundred3", "hundred31", "hundred32", "iberian2", "micro", "modern",
        "sailho", "shift_around", "snark", "south_america32", "south_america51",
        "south_east_asia3", "versailles3", "world3",
    }  # fmt: skip
    assert bundled_maps()[0] == "standard"


@pytest.mark.parametrize("name", VARIANTS)
def test_variant_metadata(name: str) -> None:
    gmap = load_map(name)
    assert gmap.title and (gmap.designer or gmap.credit)
    assert gmap.victory_centres == len(gmap.supply_centres) // 2 + 1
    assert set(gmap.start_units) <= set(gmap.powers)
    owned = [c for cs in gmap.start_centres.values() for c in cs]
    assert len(owned) == len(set(owned))


@pytest.mark.parametrize("name", VARIANTS)
def test_random_game_on_variant(name: str) -> None:
    """Random legal orders for ten years: every order listed is accepted as it stands, every
    random choice is accepted by a fresh order book, and the game ends (a solo or the year
    limit) with every centre owned by a power of the map."""
    gmap = load_map(name)
    rng = random.Random(7)
    state = initial_state(gmap)
    last_year = gmap.start_year + 9
    phases = 0
    while state.phase.year <= last_year and state.winner() is None:
        if phases % 3 == 0:
            position = BoardIndex(state)
            for orders in legal_orders(state).values():
                for order in orders:
                    power = order.power if isinstance(order, Waive) else order.unit.power
                    checked = check_order(position, power, order)
                    assert checked.note is Note.MBV, (name, state.phase, order, checked.note)
        chosen = random_orders(state, rng)
        book = OrderSet(state)
        for power, orders in chosen.items():
            for o in orders:
                assert book.submit(power, o).note is Note.MBV, (name, state.phase, o)
        state = process(state, chosen).state
        phases += 1
    assert state.winner() is not None or state.phase.year == last_year + 1
    assert set(state.centres.values()) <= set(gmap.powers)


def _variant_data(name: str, **changes: object) -> GameMap:
    data = copy.deepcopy(load_map(name).to_dict())
    data.update(changes)
    return GameMap.from_dict(data)


def test_chaos_opens_with_a_build_for_each_of_34_powers() -> None:
    chaos = load_map("chaos")
    state = initial_state(chaos)
    assert len(chaos.powers) == 34
    assert state.phase == Phase("WIN", 1900) and not state.units
    assert all(n == 1 for n in state.adjustments().values())
    builds = legal_orders(state, "PRS")
    assert set(builds) - {WAIVE_KEY} == {"PAR"}
    orders = {
        p: [legal_orders(state, p)[c][0]] for p, cs in chaos.start_centres.items() for c in cs
    }
    after = process(state, orders).state
    assert after.phase == Phase("SPR", 1901)
    assert len(after.units) == 34


def test_chaos_builds_in_any_owned_centre_the_standard_rule_does_not() -> None:
    """Paris's power has taken Munich: under Chaos it may build there; the same position on
    a map with the standard rule (Chaos's powers, homes being their own centre) is HSC."""
    chaos = load_map("chaos")
    assert chaos.build_rule == "owned"
    centres = {"PAR": "PRS", "MUN": "PRS"}
    state = make_state(chaos, Phase("WIN", 1901), [], centres)
    book = OrderSet(state)
    assert book.submit("PRS", Build(Unit("PRS", "A", "MUN"))).note is Note.MBV

    data = copy.deepcopy(chaos.to_dict())
    data["rules"] = {"builds": "homes"}
    for power, info in data["powers"].items():
        info["homes"] = list(data["start"]["centres"][power])
    strict = GameMap.from_dict(data)
    state = make_state(strict, Phase("WIN", 1901), [], centres)
    assert OrderSet(state).submit("PRS", Build(Unit("PRS", "A", "MUN"))).note is Note.HSC
    assert OrderSet(state).submit("PRS", Build(Unit("PRS", "A", "PAR"))).note is Note.MBV


def test_three_powers_and_a_majority_of_17_centres() -> None:
    hundred = load_map("hundred3")
    assert hundred.powers == ("BUR", "ENG", "FRA")
    assert len(hundred.supply_centres) == 17 and hundred.victory_centres == 9
    state = initial_state(hundred)
    assert state.phase == Phase("SPR", 1425)
    eight = dict.fromkeys(sorted(hundred.supply_centres)[:8], "ENG")
    assert make_state(hundred, Phase("SPR", 1430), [], eight).winner() is None
    nine = dict.fromkeys(sorted(hundred.supply_centres)[:9], "ENG")
    assert make_state(hundred, Phase("SPR", 1430), [], nine).winner() == "ENG"


def test_a_variant_sets_its_own_victory_count() -> None:
    ten = _variant_data("hundred3", rules={"victory_centres": 10})
    nine = dict.fromkeys(sorted(ten.supply_centres)[:9], "ENG")
    assert make_state(ten, Phase("SPR", 1430), [], nine).winner() is None
    assert make_state(ten, Phase("SPR", 1430), [], {**nine, "TOU": "ENG"}).winner() == "ENG"
    with pytest.raises(MapError, match="victory_centres"):
        _variant_data("hundred3", rules={"victory_centres": 18})
    with pytest.raises(MapError, match="builds"):
        _variant_data("hundred3", rules={"builds": "anywhere"})


def test_seventeen_powers_on_world() -> None:
    world = load_map("world3")
    assert len(world.powers) == 17
    state = initial_state(world)
    assert {u.power for u in state.units.values()} == set(world.powers)
    assert len(legal_orders(state)) == len(state.units)


def test_hundred_shared_homes_let_any_power_build_in_any_owned_centre() -> None:
    """Hundred's 17 centres are home to all three powers: Burgundy builds in English Calais."""
    hundred = load_map("hundred3")
    assert hundred.homes_of["CAL"] == ("BUR", "ENG", "FRA")
    assert "CAL" not in hundred.home_of  # home to more than one power
    state = make_state(hundred, Phase("WIN", 1426), [], {"CAL": "BUR", "DIJ": "BUR"})
    book = OrderSet(state)
    assert book.submit("BUR", Build(Unit("BUR", "F", "CAL"))).note is Note.MBV


def test_two_coast_province_of_a_variant() -> None:
    """Hundred's Aragon has a north and a south coast: Castile's fleet reaches both, Biscay's
    the north only, the Mediterranean's the south only."""
    hundred = load_map("hundred3")
    assert hundred.provinces["ARA"].coasts == ("NC", "SC")
    assert hundred.fleet_destinations("CAS", "ARA") == ("ARA/NC", "ARA/SC")
    assert hundred.fleet_destinations("BIS", "ARA") == ("ARA/NC",)
    assert hundred.fleet_destinations("MED", "ARA") == ("ARA/SC",)
    units = [Unit("ENG", "F", "CAS"), Unit("FRA", "F", "MED")]
    state = make_state(hundred, Phase("SPR", 1426), units, {})
    moves = {str(o) for o in legal_orders(state)["CAS"] if isinstance(o, Move)}
    assert {"F CAS - ARA/NC", "F CAS - ARA/SC"} <= moves
    result = process(
        state,
        {
            "ENG": [Move(Unit("ENG", "F", "CAS"), "ARA/NC")],
            "FRA": [Move(Unit("FRA", "F", "MED"), "ARA/SC")],
        },
    )
    assert {u.loc for u in result.state.units.values()} == {"CAS", "MED"}  # bounce in ARA


def test_micro_centres_are_home_to_two_powers_each() -> None:
    micro = load_map("micro")
    assert micro.homes_of == {
        "CYA": ("BLU", "GRE"), "MAG": ("BLU", "RED"), "YEL": ("GRE", "RED"),
    }  # fmt: skip
    assert micro.victory_centres == 2
    state = initial_state(micro)
    assert state.centres == {"YEL": "BLU", "MAG": "GRE", "CYA": "RED"}


@pytest.mark.parametrize("name", ["hundred3", "chaos"])
def test_variant_rules_cases(name: str) -> None:
    """tests/datc/variants: DATC-style cases on a variant's own board."""
    results = run_file(DATC_VARIANTS / f"{name}.txt", load_map(name))
    assert results and all(r.passed for r in results), [r.problems for r in results]


def test_start_season_and_centres_are_checked() -> None:
    with pytest.raises(MapError, match="season"):
        _variant_data("hundred3", start={"season": "FAL", "year": 1425})
    data = copy.deepcopy(load_map("hundred3").to_dict())
    data["start"]["centres"]["FRA"].append("CAL")  # England's too
    with pytest.raises(MapError, match="CAL"):
        GameMap.from_dict(data)
