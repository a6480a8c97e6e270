"""Ordering by clicking: each click sequence gives the order the engine lists, and only what
the engine allows is offered."""

from __future__ import annotations

from diplomat.engine.map import load_map
from diplomat.engine.orders import Order
from diplomat.engine.state import Dislodged, Phase, Unit, initial_state, make_state
from diplomat.web.builder import OrderBuilder
from tests.boards import board

GMAP = load_map("standard")


def clicks(b: OrderBuilder, *locs: str, mine: dict[str, Order] | None = None) -> str | None:
    """Click each location in turn; the order the last click gives, as text."""
    action = None
    for loc in locs:
        action = b.click(loc, mine or {})
    return None if action is None else f"{action[0]} {action[1]}"


def test_move_hold_and_reselect() -> None:
    b = OrderBuilder(initial_state(GMAP), "FRA")
    offer = b.offer({})
    assert set(offer.highlight) == {"BRE", "MAR", "PAR"}
    assert clicks(b, "PAR") is None
    offer = b.offer({})
    assert offer.selected == ["PAR"]
    assert set(offer.highlight) == {"BRE", "BUR", "GAS", "PIC"}
    assert [i.id for i in offer.menu] == ["hold", "move", "support", "cancel"]
    assert clicks(b, "BUR") == "sub A PAR - BUR"
    assert b.key is None
    assert clicks(b, "MAR", "MAR") == "sub A MAR H"
    # A click on another of one's units that is no destination selects it instead.
    assert clicks(b, "BRE", "PAR") is None and b.key == "PAR"
    # A click on nothing useful deselects.
    assert clicks(b, "MOS") is None and b.key is None


def test_only_legal_destinations_are_offered() -> None:
    b = OrderBuilder(initial_state(GMAP), "ENG")
    b.click("EDI", {})
    assert set(b.offer({}).highlight) == {"CLY", "NTH", "NWG", "YOR"}
    assert clicks(b, "LON") is None  # not a destination, but another unit: selected
    assert b.key == "LON"
    assert clicks(b, "WAL") == "sub F LON - WAL"


def test_support_move_and_hold() -> None:
    b = OrderBuilder(initial_state(GMAP), "FRA")
    b.click("MAR", {})
    assert b.choose("support", {}) is None
    offer = b.offer({})
    assert "PAR" in offer.highlight and "click the unit" in offer.prompt
    b.click("PAR", {})
    offer = b.offer({})
    assert set(offer.highlight) == {"BUR", "GAS"}  # not PAR: MAR cannot reach it
    assert clicks(b, "BUR") == "sub A MAR S A PAR - BUR"
    b.click("PAR", {})
    b.choose("support", {})
    assert clicks(b, "BRE", "BRE") == "sub A PAR S F BRE"


def test_fleet_to_a_split_coast_asks_which_coast() -> None:
    b = OrderBuilder(board("FRA F MAO", phase="S1901M"), "FRA")
    b.click("MAO", {})
    assert clicks(b, "SPA") is None
    offer = b.offer({})
    assert set(offer.highlight) == {"SPA/NC", "SPA/SC"}
    assert "coast" in offer.prompt
    assert clicks(b, "SPA/SC") == "sub F MAO - SPA/SC"
    # A click on the coast itself needs no question.
    b.click("MAO", {})
    assert clicks(b, "SPA/NC") == "sub F MAO - SPA/NC"


def test_convoy_both_ends() -> None:
    state = board("ENG F NTH", "ENG A YOR", "GER A HOL")
    fleet = OrderBuilder(state, "ENG")
    fleet.click("NTH", {})
    assert "convoy" in [i.id for i in fleet.offer({}).menu]
    fleet.choose("convoy", {})
    assert set(fleet.offer({}).highlight) == {"YOR", "HOL"}  # any power's army
    assert clicks(fleet, "YOR", "NWY") == "sub F NTH C A YOR - NWY"
    army = OrderBuilder(state, "ENG")
    army.click("YOR", {})
    assert "via" in [i.id for i in army.offer({}).menu]
    army.choose("via", {})
    assert "NWY" in army.offer({}).highlight
    assert clicks(army, "NWY") == "sub A YOR - NWY VIA"
    # A plain move to a place only a convoy reaches is still offered, and given as a move.
    army.click("YOR", {})
    assert clicks(army, "NWY") == "sub A YOR - NWY"


def test_retreat_or_disband() -> None:
    unit = Unit("AUS", "A", "SER")
    state = make_state(
        GMAP,
        Phase.parse("S1901R"),
        [Unit("TUR", "A", "SER")],
        {},
        [Dislodged(unit, "BUL", ("ALB", "BUD"))],
    )
    b = OrderBuilder(state, "AUS")
    assert b.offer({}).highlight == ["SER"]
    b.click("SER", {})
    offer = b.offer({})
    assert offer.highlight == ["ALB", "BUD"] and offer.menu[0].id == "disband"
    assert clicks(b, "GRE") is None  # not a retreat: deselects
    assert clicks(b, "SER", "BUD") == "sub A SER R BUD"
    b.click("SER", {})
    assert b.choose("disband", {}) is not None


def test_builds_removals_and_waive() -> None:
    centres = {"LON": "ENG", "EDI": "ENG", "LVP": "ENG", "NWY": "ENG", "STP": "RUS"}
    state = board("ENG F NWY", "RUS A MOS", phase="W1901A", centres=centres)
    b = OrderBuilder(state, "ENG")
    offer = b.offer({})
    assert set(offer.highlight) == {"LON", "EDI", "LVP"} and "waive" in [i.id for i in offer.menu]
    assert clicks(b, "LON") is None  # army or fleet: a menu
    labels = [i.label for i in b.offer({}).menu]
    assert "Build an army" in labels and "Build a fleet" in labels
    action = b.choose("build:1", {})
    assert action is not None and str(action[1]) == "F LON B"
    assert b.choose("waive", {}) == ("sub", b.legal["WAIVE"][0])
    # One centre and two units: one to remove.
    r = OrderBuilder(board("RUS A MOS", "RUS A WAR", phase="W1901A", centres={"STP": "RUS"}), "RUS")
    assert set(r.offer({}).highlight) == {"MOS", "WAR"}
    remove = r.click("WAR", {})
    assert remove is not None and remove[0] == "sub" and str(remove[1]) == "A WAR D"
    assert r.click("WAR", {"WAR": remove[1]}) == ("not", remove[1])  # a second click undoes


def test_waive_is_offered_only_while_a_build_is_left() -> None:
    centres = {"LON": "ENG", "EDI": "ENG"}
    b = OrderBuilder(board("ENG F NTH", phase="W1901A", centres=centres), "ENG")
    assert "waive" in [i.id for i in b.offer({}).menu]
    build = clicks(b, "LON")
    assert build is None
    action = b.choose("build:0", {})
    assert action is not None
    chosen = {"LON": action[1]}
    offer = b.offer(chosen)
    assert "waive" not in [i.id for i in offer.menu] and offer.prompt.startswith("Your builds")
    assert "waive" not in [i.id for i in b.offer({}, waives=1).menu]


def test_stp_south_coast_fleet_is_selected_by_province() -> None:
    b = OrderBuilder(initial_state(GMAP), "RUS")
    b.click("STP", {})
    assert b.key == "STP/SC"
    assert clicks(b, "GOB") == "sub F STP/SC - GOB"
