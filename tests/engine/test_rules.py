"""The rule sets of ``engine.rules``: each position on which the ``diplomacy`` package's rules
differ from DATC 3.0, adjudicated both ways (the package's outcomes as its 1.1.2 gives them)."""

from __future__ import annotations

import pytest

from diplomat.engine.notation import parse_order
from diplomat.engine.orders import Order, Outcome, order_power
from diplomat.engine.rules import DATC, PACKAGE, RULE_SETS, Rules, RulesError, rules_named
from diplomat.engine.state import GameState
from diplomat.engine.turn import PhaseResult, process
from tests.boards import GMAP, board


def _run(state: GameState, orders: list[str], rules: Rules) -> PhaseResult:
    by_power: dict[str, list[Order]] = {}
    board_units = state.units if state.phase.kind != "retreat" else {}
    for line in orders:
        power, text = line.split(" ", 1)
        order = parse_order(GMAP, text, power, state.phase.kind, board_units)
        by_power.setdefault(power, []).append(order)
    return process(state, by_power, rules)


def _units(result: PhaseResult) -> set[str]:
    return {u.describe() for u in result.state.units.values()}


def _outcome(result: PhaseResult, text: str) -> Outcome:
    (outcome,) = [r.outcome for o, r in result.results if f"{order_power(o)} {o}" == text]
    return outcome


def test_the_rule_sets_by_name() -> None:
    assert rules_named("datc") is DATC
    assert rules_named("package") is PACKAGE
    assert set(RULE_SETS) == {"datc", "package"}
    with pytest.raises(RulesError, match="unknown rule set 'dpjudge' \\(known: datc, package\\)"):
        rules_named("dpjudge")


def test_4a3_via_convoy_to_an_adjacent_province_with_no_convoy_6g8() -> None:
    # (The package refuses a "via convoy" order when no fleet could carry it: one is there.)
    state = board("FRA A BEL", "FRA F NTH", "GER A HOL")
    orders = ["FRA A BEL - HOL VIA", "GER A HOL - KIE"]
    assert "FRA A BEL" in _units(_run(state, orders, DATC))  # no route: the move fails
    assert "FRA A HOL" in _units(_run(state, orders, PACKAGE))  # over land instead


def test_4a3_own_fleet_convoy_disrupted_falls_back_to_land_6g6() -> None:
    state = board("TUR A ANK", "TUR F BLA", "RUS F SEV", "RUS F RUM")
    orders = [
        "TUR A ANK - ARM",
        "TUR F BLA C A ANK - ARM",
        "RUS F SEV - BLA",
        "RUS F RUM S F SEV - BLA",
    ]
    datc = _run(state, orders, DATC)
    package = _run(state, orders, PACKAGE)
    assert "TUR A ANK" in _units(datc)  # convoyed (its own fleet convoys), and the fleet is gone
    assert "TUR A ARM" in _units(package)
    # The army went over land: the dislodged fleet may retreat to the Ankara it left.
    assert package.state.dislodged["BLA"].retreats == ("ANK", "BUL/EC", "CON")


def test_4b4_a_support_naming_the_wrong_coast_6b9() -> None:
    state = board("FRA F POR", "FRA F MAO", "ITA F GOL", "ITA F WES")
    orders = [
        "FRA F POR S F MAO - SPA/NC",
        "FRA F MAO - SPA/SC",
        "ITA F GOL S F WES - SPA/SC",
        "ITA F WES - SPA/SC",
    ]
    assert "ITA F SPA/SC" in _units(_run(state, orders, DATC))  # France's support is void
    package = _run(state, orders, PACKAGE)
    assert {"FRA F MAO", "ITA F WES"} <= _units(package)  # 2 against 2: a standoff
    assert _outcome(package, "FRA F POR S F MAO - SPA/NC") is Outcome.SUC


def test_6g10_retreat_after_a_convoyed_dislodgement_into_a_standoff() -> None:
    state = board("ENG A NWY", "ENG F SKA", "ENG F DEN", "ENG F NTH", "RUS A SWE", "RUS F BAR")
    orders = [
        "ENG A NWY - SWE VIA",
        "ENG F SKA C A NWY - SWE",
        "ENG F DEN S A NWY - SWE",
        "ENG F NTH - NWY",
        "RUS F BAR - NWY",
    ]
    assert _run(state, orders, DATC).state.dislodged["SWE"].retreats == ("FIN",)
    package = _run(state, orders, PACKAGE)
    assert package.state.dislodged["SWE"].retreats == ("FIN", "NWY")
    after = _run(package.state, ["RUS A SWE R NWY"], PACKAGE)
    assert "RUS A NWY" in _units(after)


def test_4a2_the_1982_rule_a_convoyed_army_spares_a_support_for_its_fleet() -> None:
    state = board("ENG A YOR", "ENG F NTH", "RUS F DEN")
    orders = ["ENG A YOR - DEN VIA", "ENG F NTH C A YOR - DEN", "RUS F DEN S F NTH"]
    assert _outcome(_run(state, orders, DATC), "RUS F DEN S F NTH") is Outcome.CUT
    assert _outcome(_run(state, orders, PACKAGE), "RUS F DEN S F NTH") is Outcome.SUC


def test_4d8_civil_disorder_removes_by_distance_to_home_centres() -> None:
    # Italy owns Warsaw only (its homes are lost) and has two armies: DATC 3.0 counts the
    # distance to owned centres (Warsaw: Tuscany is the farther), the package the distance to
    # home centres (Tuscany is one of them: Warsaw is the farther).
    state = board("ITA A WAR", "ITA A TUS", phase="W1901A", centres={"WAR": "ITA"})
    assert "ITA A TUS" not in _units(_run(state, [], DATC))
    assert "ITA A WAR" not in _units(_run(state, [], PACKAGE))


def test_package_deviation_a_via_convoy_support_dislodges_its_own_unit_6d12() -> None:
    state = board("FRA A BEL", "GER F NTH", "ENG F YOR", "ENG F EDI")
    orders = [
        "FRA A BEL - YOR VIA",
        "GER F NTH C A BEL - YOR",
        "ENG F EDI S A BEL - YOR",
    ]
    assert "ENG F YOR" in _units(_run(state, orders, DATC))
    package = _run(state, orders, PACKAGE)
    assert "FRA A YOR" in _units(package)
    assert "YOR" in package.state.dislodged


def test_package_deviation_head_to_head_defence_without_the_attackers_power_6e3() -> None:
    state = board("RUS F SEV", "RUS A UKR", "TUR A RUM", "TUR F BUL/EC", "AUS A GAL")
    orders = [
        "RUS F SEV - RUM",
        "RUS A UKR S A RUM - SEV",
        "TUR A RUM - SEV",
        "TUR F BUL/EC S F SEV - RUM",
        "AUS A GAL S F SEV - RUM",
    ]
    # DATC: 2 (Austria's support) against 2 (Russia's support counts to defend): a standoff.
    assert {"RUS F SEV", "TUR A RUM"} <= _units(_run(state, orders, DATC))
    package = _run(state, orders, PACKAGE)
    assert "RUS F RUM" in _units(package)
    assert "RUM" in package.state.dislodged


def test_package_deviation_a_failed_attack_disrupts_a_convoy() -> None:
    # France attacks the convoying fleet with England's own support: the attack fails (it
    # would dislodge England's unit with England's help) but the package counts the convoy
    # disrupted all the same.
    state = board("ENG F ECH", "ENG A WAL", "ENG F LON", "FRA F PIC")
    orders = [
        "ENG F ECH C A WAL - BEL",
        "ENG A WAL - BEL VIA",
        "ENG F LON S F PIC - ECH",
        "FRA F PIC - ECH",
    ]
    datc = _run(state, orders, DATC)
    assert "ENG A BEL" in _units(datc)
    package = _run(state, orders, PACKAGE)
    assert {"ENG A WAL", "ENG F ECH", "FRA F PIC"} <= _units(package)


def test_process_adjudicates_by_datc_unless_told() -> None:
    state = board("FRA A BEL", "FRA F NTH", "GER A HOL")
    by_power: dict[str, list[Order]] = {
        p: [parse_order(GMAP, t, p, "movement", state.units)]
        for p, t in (("FRA", "A BEL - HOL VIA"), ("GER", "A HOL - KIE"))
    }
    assert _units(process(state, by_power)) == _units(_run(state, [], DATC)) - {"GER A HOL"} | {
        "GER A KIE"
    }
