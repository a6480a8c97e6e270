"""Who owes orders: one function, engine.orderset.owes_orders, which OrderSet, the bots and the
server all ask."""

from __future__ import annotations

from diplomat.engine.defaults import missing_orders
from diplomat.engine.notation import parse_order
from diplomat.engine.orders import Waive
from diplomat.engine.orderset import OrderSet, owes_orders
from diplomat.engine.simulate import random_game
from diplomat.engine.state import Dislodged
from tests.boards import STANDARD_START

from .helpers import GMAP, board


def test_movement_owes_for_every_unit_and_nothing_without_one() -> None:
    state = board("FRA A PAR", "GER A MUN")
    assert owes_orders(state, "FRA") and owes_orders(state, "GER")
    assert not owes_orders(state, "ITA")


def test_retreats_owe_only_for_dislodged_units() -> None:
    state = board("FRA A PAR", "GER A MUN", phase="S1901R")
    dislodged = Dislodged(state.units["PAR"], "BUR", ("GAS",))
    state = state.replace(dislodged=type(state.dislodged)({"PAR": dislodged}))
    assert owes_orders(state, "FRA")
    assert not owes_orders(state, "GER")


def test_adjustments_owe_removals_and_builds_with_a_site_only() -> None:
    centres = {"PAR": "FRA", "MAR": "FRA", "BRE": "FRA", "MUN": "GER", "BER": "GER"}
    # France: three centres, one unit, but every home centre is occupied: no site to build in.
    full = board("FRA A PAR", "FRA A MAR", "ITA F BRE", phase="W1901A", centres=centres)
    assert full.adjustments()["FRA"] > 0 and not owes_orders(full, "FRA")
    # Germany: two centres, three units: one removal.
    removals = board("GER A MUN", "GER A BER", "GER A KIE", phase="W1901A", centres=centres)
    assert owes_orders(removals, "GER")
    # France with a free home centre owes a build (or a waive), and still does once given.
    builds = board("FRA A PAR", phase="W1901A", centres=centres)
    assert owes_orders(builds, "FRA")
    book = OrderSet(builds)
    for text in ("Build A MAR", "Build F BRE"):
        assert book.submit("FRA", parse_order(GMAP, text, "FRA", "adjustment")).note.accepted
    assert book.needs_orders("FRA") == owes_orders(builds, "FRA") is True
    assert owes_orders(builds, "GER")  # two home centres of its own, no unit
    # Germany owning Holland alone: a build allowed, but no home centre of its own to use.
    abroad = board(phase="W1901A", centres={"HOL": "GER"})
    assert abroad.adjustments()["GER"] == 1 and not owes_orders(abroad, "GER")


def test_who_owes_orders_and_what_the_defaults_fill_agree() -> None:
    # Two rules that cannot be one table: who owes orders (owes_orders) and what a power's
    # missing orders become (defaults.missing_orders). A power that owes orders gets defaults
    # for them, and one that owes none gets none but waives of builds it has no site for;
    # once the defaults are given, the order set has them all.
    seen = set()
    for seed in (3, 4):
        for step in random_game(STANDARD_START, seed, max_year=1910):
            state = step.state
            for power in GMAP.powers:
                fill = missing_orders(state, power, [])
                if owes_orders(state, power):
                    assert fill, (state.phase, power)
                    book = OrderSet(state)
                    for order in fill:
                        assert book.submit(power, order).note.accepted, (state.phase, order)
                    assert book.complete(power), (state.phase, power)
                    seen.add(state.phase.kind)
                else:
                    assert all(isinstance(o, Waive) for o in fill), (state.phase, power, fill)
    assert seen == {"movement", "retreat", "adjustment"}
