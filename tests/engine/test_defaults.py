"""engine.defaults.missing_orders: what the rules make of the orders a power leaves out."""

from __future__ import annotations

from diplomat.engine.defaults import missing_orders, removal_order
from diplomat.engine.orders import Build, Disband, Hold, Move, Remove, Retreat, Waive
from diplomat.engine.state import Dislodged, Unit

from .helpers import board


def test_units_without_orders_hold_in_province_order() -> None:
    state = board("FRA A PAR", "FRA F BRE", "GER A MUN")
    given = [Move(state.units["PAR"], "BUR")]
    assert missing_orders(state, "FRA", given) == [Hold(state.units["BRE"])]
    assert missing_orders(state, None, given) == [
        Hold(state.units["BRE"]),
        Hold(state.units["MUN"]),
    ]


def test_dislodged_units_without_orders_disband() -> None:
    state = board("ENG F NTH", phase="S1901R")
    bel = Unit("FRA", "A", "BEL")
    hol = Unit("FRA", "A", "HOL")
    state = state.replace(
        dislodged=type(state.dislodged)(
            {"BEL": Dislodged(bel, "BUR", ("PIC",)), "HOL": Dislodged(hol, "RUH", ("KIE",))}
        )
    )
    assert missing_orders(state, "FRA", [Retreat(bel, "PIC")]) == [Disband(hol)]
    assert missing_orders(state, "ENG", []) == []


def test_unused_builds_are_waived() -> None:
    win = board("RUS A MOS", phase="W1901A", centres={"MOS": "RUS", "STP": "RUS", "WAR": "RUS"})
    build = Build(Unit("RUS", "A", "WAR"))
    assert missing_orders(win, "RUS", [build]) == [Waive("RUS")]
    assert missing_orders(win, "RUS", [build, Waive("RUS")]) == []


def test_missing_removals_follow_civil_disorder() -> None:
    win = board("TUR A CON", "TUR F BLA", "TUR A ARM", phase="W1901A", centres={"CON": "TUR"})
    order = removal_order(win, "TUR")
    assert [u.province for u in order] == ["ARM", "BLA", "CON"]  # farthest from CON first
    assert missing_orders(win, "TUR", []) == [Remove(order[0]), Remove(order[1])]
    chosen = Remove(order[1])
    assert missing_orders(win, "TUR", [chosen]) == [Remove(order[0])]
