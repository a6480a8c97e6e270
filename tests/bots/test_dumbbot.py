"""DumbBot's evaluation and choices, on engine positions, against the published description."""

from __future__ import annotations

import random
from collections.abc import Iterator
from functools import partial

import pytest

from diplomat.bots.base import View, complete_orders, daide_orders
from diplomat.bots.dumbbot import (
    BUILD,
    FALL,
    REMOVE,
    SPRING,
    Candidates,
    DumbBot,
    build_orders,
    evaluate,
    graph,
    movement_orders,
    removal_orders,
    retreat_orders,
    size,
    weights_for,
)
from diplomat.engine.map import load_map, province_of
from diplomat.engine.orders import (
    Build,
    Disband,
    Hold,
    Move,
    Order,
    Remove,
    Retreat,
    SupportHold,
    SupportMove,
    Waive,
    order_key,
)
from diplomat.engine.orderset import OrderSet
from diplomat.engine.simulate import random_game
from diplomat.engine.state import Dislodged, GameState, Phase, initial_state, make_state, parse_unit
from tests.boards import HOMES, STANDARD_START
from tests.boards import board as shared_board

G = load_map("standard")
START = initial_state(load_map("standard"))


class Best(random.Random):
    """Never takes the next-best step: every choice is the best candidate."""

    def randrange(self, *args: object, **kwargs: object) -> int:
        return 99


class Scripted(random.Random):
    """``randrange`` returns the given numbers in turn."""

    def __init__(self, draws: list[int]) -> None:
        super().__init__(0)
        self.draws = iter(draws)

    def randrange(self, *args: object, **kwargs: object) -> int:
        return next(self.draws)


board = partial(shared_board, phase="F1901M", centres=HOMES)


# -- step A: sizes -----------------------------------------------------------------------------


def test_power_sizes() -> None:
    assert [size(x) for x in (0, 3, 4, 12)] == [16, 37, 48, 208]
    ev = evaluate(START, "FRA", SPRING)
    assert ev.sizes == {
        "AUS": 37,
        "ENG": 37,
        "FRA": 37,
        "GER": 37,
        "ITA": 37,
        "RUS": 48,
        "TUR": 37,
        "UNO": 208,
    }
    assert evaluate(START, "FRA", SPRING, neutral_pool=False).sizes["UNO"] == 16


# -- steps B and C: attack, defence, proximity ------------------------------------------------


def test_quick_test_vectors_of_the_description() -> None:
    ev = evaluate(START, "FRA", SPRING)
    i = ev.graph.index
    assert ev.proximity[0][i[("A", "SPA")]] == 208 * 700 == 145_600
    assert ev.proximity[0][i[("F", "SPA/NC")]] == 145_600
    assert ev.proximity[0][i[("A", "MUN")]] == 37 * 700 == 25_900
    assert ev.proximity[0][i[("A", "PAR")]] == 0  # ours, no enemy next to it
    assert ev.proximity[0][i[("A", "BUR")]] == 0  # not a supply centre
    # Our home centre with an enemy unit of a 3-centre power next to it.
    ev = evaluate(board("FRA A PAR", "GER A BUR", phase="S1901M"), "FRA", SPRING)
    assert ev.defence == {"PAR": 37, "MAR": 37}
    assert ev.proximity[0][ev.graph.index[("A", "PAR")]] == 37 * 300 == 11_100
    assert ev.attack["MUN"] == 37 and "PAR" not in ev.attack


def test_defence_needs_an_enemy_that_can_move_in() -> None:
    # A fleet in the Gulf of Lyon touches Marseilles; a fleet in the Mid-Atlantic does not
    # touch Paris, and an army in Burgundy cannot reach Brest.
    ev = evaluate(board("ITA F GOL", "ENG F MAO", "GER A BUR"), "FRA", FALL)
    assert ev.defence["MAR"] == 37  # the larger of ITA and GER, both 37
    assert ev.defence["BRE"] == 37  # ENG's fleet
    assert ev.defence["PAR"] == 37  # GER's army
    ev = evaluate(board("ENG F NAO"), "FRA", FALL)
    assert ev.defence == {}
    # The biggest neighbour counts: Russia (4 centres, 48) beats Austria (37).
    ev = evaluate(board("RUS A SIL", "AUS A BOH"), "GER", FALL)
    assert ev.defence == {"BER": 48, "MUN": 48}


def test_proximity_layers_by_hand() -> None:
    ev = evaluate(START, "FRA", SPRING)
    i = ev.graph.index
    p0 = ev.proximity[0]
    # Ruhr (army): Belgium and Holland are neutral, Kiel and Munich German, Burgundy nothing.
    expected = (145_600 + 145_600 + 25_900 + 25_900 + 0 + 0) // 5
    assert ev.proximity[1][i[("A", "RUH")]] == expected == 68_600
    # Mid-Atlantic (fleet) touches both coasts of Spain: only the larger counts, once.
    mao = i[("F", "MAO")]
    neighbours = {"BRE": ("F", "BRE"), "GAS": ("F", "GAS"), "ECH": ("F", "ECH"),
                  "IRI": ("F", "IRI"), "NAF": ("F", "NAF"), "NAO": ("F", "NAO"),
                  "POR": ("F", "POR"), "WES": ("F", "WES")}  # fmt: skip
    total = sum(p0[i[n]] for n in neighbours.values())
    total += max(p0[i[("F", "SPA/NC")]], p0[i[("F", "SPA/SC")]]) + p0[mao]
    assert ev.proximity[1][mao] == total // 5
    # Every layer follows the same rule.
    g = graph(G)
    for n in range(1, 10):
        prev = ev.proximity[n - 1]
        for c in range(len(g.nodes)):
            s = sum(max(prev[j] for j in grp) for grp in g.groups[c]) + prev[c]
            assert ev.proximity[n][c] == s // 5


# -- steps D and E: strength, competition, values ---------------------------------------------


def test_strength_and_competition() -> None:
    ev = evaluate(board("FRA A BUR", "FRA A PIC", "GER A HOL", "GER A RUH"), "FRA", FALL)
    assert ev.strength["BEL"] == 2 and ev.competition["BEL"] == 2
    assert ev.strength["BUR"] == 2  # its own army, and Picardy's
    assert ev.competition["BUR"] == 1  # Ruhr
    assert ev.strength.get("KIE", 0) == 0 and ev.competition["KIE"] == 2
    # The quirk: a fleet touching both coasts of Spain counts twice there.
    ev = evaluate(board("FRA F MAO"), "FRA", FALL)
    assert ev.strength["SPA"] == 2 and ev.strength["MAO"] == 1


def test_values_weigh_layers_strength_and_competition() -> None:
    state = board("FRA A BUR", "FRA A PIC", "GER A HOL", "GER A RUH")
    for weights in (SPRING, FALL):
        ev = evaluate(state, "FRA", weights)
        for c, (_, loc) in enumerate(ev.graph.nodes):
            prov = province_of(loc)
            expected = sum(ev.proximity[n][c] * weights.proximity[n] for n in range(10))
            expected += 1000 * ev.strength.get(prov, 0) - 1000 * ev.competition.get(prov, 0)
            assert ev.values[c] == expected
    ev = evaluate(state, "FRA", BUILD)
    for c, (_, loc) in enumerate(ev.graph.nodes):
        expected = sum(ev.proximity[n][c] * BUILD.proximity[n] for n in range(10))
        assert ev.values[c] == expected + 1000 * ev.defence.get(province_of(loc), 0)


def test_weights_by_phase() -> None:
    assert weights_for(board(phase="S1901M"), "FRA") is SPRING
    assert weights_for(board(phase="S1901R"), "FRA") is SPRING
    assert weights_for(board(phase="F1901M"), "FRA") is FALL
    assert weights_for(board(phase="F1901R"), "FRA") is FALL
    assert weights_for(board("FRA A PAR", phase="W1901A"), "FRA") is BUILD
    many = ("FRA A PAR", "FRA A BUR", "FRA A PIC", "FRA A GAS")
    assert weights_for(board(*many, phase="W1901A"), "FRA") is REMOVE
    assert SPRING.proximity == (100, 1000, 30, 10, 6, 5, 4, 3, 2, 1)
    assert FALL.proximity == BUILD.proximity == (1000, 100, 30, 10, 6, 5, 4, 3, 2, 1)
    assert (SPRING.attack, SPRING.defence, FALL.attack, FALL.defence) == (700, 300, 600, 400)


# -- step F: the next-best rule ---------------------------------------------------------------


def cands(*values: int, collapse: bool = False) -> Candidates[int]:
    c: Candidates[int] = Candidates(collapse)
    for i, v in enumerate(values):
        c.add(v, i)
    return c


def test_next_best_rule() -> None:
    # 100 then 90: chance = 10 * 500 / 100 = 50. Step when the first draw < 50 and the second
    # >= 50.
    assert cands(100, 90).pick(Scripted([10, 60])) == 1
    assert cands(100, 90).pick(Scripted([10, 49])) == 0
    assert cands(100, 90).pick(Scripted([50, 99])) == 0
    # 20 % worse or more: never.
    assert cands(100, 80).pick(Scripted([0, 99])) == 0
    # Several steps in a row; the last candidate ends the walk.
    assert cands(100, 99, 98).pick(Scripted([0, 99, 0, 99])) == 2
    # A zero value: chance 0, so only the first draw counts.
    assert cands(0, -5).pick(Scripted([0, 0])) == 1
    # Negative values: truncation toward zero, as C++ divides. (-100 - -150)*500/-100 = -250.
    assert cands(-100, -150).pick(Scripted([0, 0])) == 1


def test_next_best_statistics() -> None:
    rng = random.Random(5)
    picks = [cands(1000, 1000, 1000).pick(rng) for _ in range(4000)]
    assert 0.45 < picks.count(0) / 4000 < 0.55  # equal values: a fair coin at each step
    assert 0.20 < picks.count(1) / 4000 < 0.30
    assert 0.20 < picks.count(2) / 4000 < 0.30
    assert {cands(1000, 799).pick(rng) for _ in range(200)} == {0}  # 20 % worse: never


def test_equal_values_collapse() -> None:
    c = cands(5, 7, 5, 7, collapse=True)
    assert c.items() == [(7, 1), (5, 0)]
    assert cands(5, 7, 5, 7).items() == [(7, 1), (7, 3), (5, 0), (5, 2)]


# -- step G: moves -----------------------------------------------------------------------------


def all_owned() -> dict[str, str]:
    """Every centre owned (the neutral ones by Turkey), so no neutral pool dwarfs the rest."""
    centres = dict(HOMES)
    for sc in G.supply_centres:
        centres.setdefault(sc, "TUR")
    return centres


def test_a_unit_next_to_an_undefended_enemy_centre_takes_it() -> None:
    centres = all_owned() | {"BEL": "FRA"}
    state = board("FRA A BUR", centres=centres)
    ev = evaluate(state, "FRA", FALL)
    assert (
        max(ev.graph.adjacent[ev.graph.index[("A", "BUR")]], key=lambda c: ev.values[c])
        == (ev.graph.index[("A", "MUN")])
    )
    assert movement_orders(state, "FRA", ev, Best(1)) == [Move(parse_unit("FRA A BUR", G), "MUN")]


def test_spring_opening_heads_for_the_neutral_centres() -> None:
    # With the best candidate always taken, the openings do not depend on the unit order.
    expected = {
        "AUS": {"A BUD - SER", "A VIE - BUD", "F TRI - ALB"},
        "FRA": {"A MAR - SPA", "A PAR - BUR", "F BRE - MAO"},
        "GER": {"A BER - KIE", "A MUN - RUH", "F KIE - DEN"},
        "RUS": {"A MOS - UKR", "A WAR - GAL", "F SEV - RUM", "F STP/SC - GOB"},
        "TUR": {"A CON - BUL", "A SMY - CON", "F ANK - BLA"},
    }
    for power, moves in expected.items():
        ev = evaluate(START, power, SPRING)
        for seed in range(4):
            assert {str(o) for o in movement_orders(START, power, ev, Best(seed))} == moves


def test_a_second_unit_supports_the_first_when_there_is_competition() -> None:
    state = board("FRA A BUR", "FRA A PIC", "GER A HOL")
    ev = evaluate(state, "FRA", FALL)
    assert ev.competition["BEL"] == 1
    seen = set()
    for seed in range(8):
        orders = movement_orders(state, "FRA", ev, Best(seed))
        moves = [o for o in orders if isinstance(o, Move)]
        supports = [o for o in orders if isinstance(o, SupportMove)]
        assert len(moves) == 1 and moves[0].dest == "BEL"
        assert len(supports) == 1 and supports[0].target == moves[0].unit
        assert supports[0].dest == "BEL"
        seen.add(moves[0].unit.loc)
    assert seen == {"BUR", "PIC"}  # the shuffle decides who goes first


def test_no_support_without_competition_the_second_unit_picks_again() -> None:
    state = board("FRA A BUR", "FRA A PIC")
    ev = evaluate(state, "FRA", FALL)
    assert ev.competition.get("BEL", 0) == 0
    for seed in range(8):
        orders = movement_orders(state, "FRA", ev, Best(seed))
        assert not any(isinstance(o, SupportMove | SupportHold) for o in orders)
        assert [province_of(o.dest) for o in orders if isinstance(o, Move)].count("BEL") == 1


def test_hold_wins_ties() -> None:
    # No centre is worth anything (all ours, no enemy anywhere): every node is worth only its
    # strength, 1000 around our army; holding gets 1 more.
    centres = dict.fromkeys(G.supply_centres, "FRA")
    state = board("FRA A BOH", centres=centres)
    ev = evaluate(state, "FRA", FALL)
    assert {ev.value("A", p) for p in G.army_adj["BOH"]} == {1000}
    assert ev.value("A", "BOH") == 1000
    assert movement_orders(state, "FRA", ev, Best(0)) == [Hold(parse_unit("FRA A BOH", G))]
    # The tie collapses: holding (1001) and one 1000 remain, so the walk never goes further.
    c: Candidates[str] = Candidates(True)
    c.add(1001, "BOH")
    for p in sorted(G.army_adj["BOH"]):
        c.add(1000, p)
    assert len(c) == 2


def test_move_into_a_province_our_unit_leaves() -> None:
    # Munich is the prize next to Burgundy, and Burgundy the best place next to Paris. Whoever
    # is ordered first, Paris's army follows into Burgundy: it waits for Burgundy's army to be
    # ordered (deferral), and a province our unit is leaving counts as free.
    centres = all_owned() | {"BEL": "FRA", "SPA": "FRA", "POR": "FRA"}
    state = board("FRA A BUR", "FRA A PAR", centres=centres)
    ev = evaluate(state, "FRA", FALL)
    assert max(G.army_adj["PAR"], key=lambda p: ev.value("A", p)) == "BUR"
    for seed in range(6):
        assert [str(o) for o in movement_orders(state, "FRA", ev, Best(seed))] == [
            "A BUR - MUN",
            "A PAR - BUR",
        ]


def test_a_wasted_hold_becomes_a_support() -> None:
    # Belgium's army holds its prize (a neutral centre); Picardy's cannot usefully support it
    # (no enemy next to Belgium) and goes to Burgundy instead, where Germany's Munich army
    # competes: Belgium's hold is turned into support for that move.
    centres = HOMES | {"HOL": "FRA"}
    state = board("FRA A BEL", "FRA A PIC", "GER A MUN", centres=centres)
    ev = evaluate(state, "FRA", FALL)
    assert ev.competition["BUR"] == 1 and ev.competition.get("BEL", 0) == 0
    for seed in range(4):
        orders = [str(o) for o in movement_orders(state, "FRA", ev, Best(seed))]
        assert orders == ["A BEL S A PIC - BUR", "A PIC - BUR"]
    # Without competition in Burgundy, nothing to support: the hold stays.
    state = board("FRA A BEL", "FRA A PIC", centres=centres)
    ev = evaluate(state, "FRA", FALL)
    assert movement_orders(state, "FRA", ev, Best(0))[0] == Hold(parse_unit("FRA A BEL", G))


def own_orders_are_consistent(state: GameState, power: str, given: list[Order]) -> None:
    orders = [o for o in given if not isinstance(o, Waive)]
    assert len(orders) == len(given)
    units = {u.province: u for u in state.units_of(power)}
    assert sorted(o.unit.province for o in orders) == sorted(units)
    by_prov = {o.unit.province: o for o in orders}
    targets = [province_of(o.dest) for o in orders if isinstance(o, Move)]
    assert len(targets) == len(set(targets)), "two of our units move into one province"
    moves = {o.unit.province: province_of(o.dest) for o in orders if isinstance(o, Move)}
    assert not any(moves.get(dest) == src for src, dest in moves.items()), "a swap"
    for o in orders:
        assert not isinstance(o, Move) or not o.convoy, "DumbBot never convoys"
        if isinstance(o, Move):
            other = by_prov.get(province_of(o.dest))
            assert other is None or isinstance(other, Move), "moves onto our own standing unit"
        if isinstance(o, SupportMove):
            supported = by_prov[o.target.province]
            assert isinstance(supported, Move) and supported == Move(o.target, supported.dest)
            assert province_of(supported.dest) == o.dest
        if isinstance(o, SupportHold):
            assert not isinstance(by_prov[o.target.province], Move)


def game_states(seed: int, years: int) -> Iterator[GameState]:
    for step in random_game(STANDARD_START, seed, max_year=1900 + years):
        yield step.state


@pytest.mark.parametrize("seed", [1, 2])
def test_orders_are_legal_complete_and_consistent_all_game(seed: int) -> None:
    bot = DumbBot()
    rng = random.Random(seed)
    kinds = set()
    for state in game_states(seed, 8):
        kinds.add(state.phase.kind)
        for power in G.powers:
            orders = list(bot.orders(View(state, power, rng)))
            book = OrderSet(state)
            for o in daide_orders(state, complete_orders(state, power, orders)):
                assert book.submit(power, o).note.accepted, (state.phase.name, power, str(o))
            if state.phase.kind == "movement":
                own_orders_are_consistent(state, power, orders)
            elif state.phase.kind == "retreat":
                dests = [province_of(o.dest) for o in orders if isinstance(o, Retreat)]
                assert len(dests) == len(set(dests))
            else:
                need = state.adjustments()[power]
                if need < 0:
                    assert len(orders) == -need and all(isinstance(o, Remove) for o in orders)
                elif need > 0:
                    assert len(orders) == need
                    assert all(isinstance(o, Build | Waive) for o in orders)
            assert book.complete(power) or state.phase.kind == "adjustment"
    assert kinds == {"movement", "retreat", "adjustment"}


# -- steps H and I: retreats, builds, removals -------------------------------------------------


def test_retreat_to_the_best_place_and_never_two_to_one() -> None:
    # Germany took Burgundy and Holland; both French armies would like Belgium best (Turkey's,
    # the biggest power); only one gets it, the other takes its next choice.
    a = parse_unit("FRA A BUR", G)
    b = parse_unit("FRA A HOL", G)
    state = make_state(
        G,
        Phase.parse("F1901R"),
        [parse_unit("GER A BUR", G), parse_unit("GER A HOL", G)],
        all_owned() | {"SPA": "FRA"},
        [Dislodged(a, "MUN", ("BEL", "PIC", "PAR")), Dislodged(b, "KIE", ("BEL", "RUH"))],
    )
    ev = evaluate(state, "FRA", FALL)
    assert ev.value("A", "BEL") > max(ev.value("A", p) for p in ("PIC", "PAR", "RUH"))
    firsts = set()
    for seed in range(8):
        orders = retreat_orders(state, "FRA", ev, Best(seed))
        dest = {o.unit.loc: o.dest for o in orders if isinstance(o, Retreat)}
        assert len(dest) == 2 and "BEL" in dest.values()
        assert dest["BUR"] != dest["HOL"]
        firsts.add("BUR" if dest["BUR"] == "BEL" else "HOL")
        assert dest["HOL"] in ("BEL", "RUH")
    assert firsts == {"BUR", "HOL"}  # the shuffle decides who retreats first
    # No place to go: disband.
    lone = make_state(G, Phase.parse("F1901R"), [], HOMES, [Dislodged(a, "MUN", ())])
    assert retreat_orders(lone, "FRA", evaluate(lone, "FRA", FALL), Best(0)) == [Disband(a)]


def test_build_in_the_most_valuable_home_centre() -> None:
    # France may build one unit; Italy's army in Piedmont threatens Marseilles.
    state = board("FRA A GAS", "FRA F NAO", "ITA A PIE", phase="W1901A")
    ev = evaluate(state, "FRA", BUILD)
    assert ev.defence == {"MAR": 37}
    assert ev.value("A", "MAR") == max(
        ev.value(t, loc) for t, loc in ev.graph.nodes if province_of(loc) in ("BRE", "MAR", "PAR")
    )
    assert build_orders(state, "FRA", ev, Best(0)) == [Build(parse_unit("FRA A MAR", G))]
    # Three builds, two sites: each site once (its other node dropped), the third waived.
    state = board("FRA A PAR", phase="W1901A", centres=HOMES | {"SPA": "FRA", "POR": "FRA"})
    assert state.adjustments()["FRA"] == 4
    orders = build_orders(state, "FRA", evaluate(state, "FRA", BUILD), random.Random(2))
    built = [o for o in orders if isinstance(o, Build)]
    assert sorted(o.unit.province for o in built) == ["BRE", "MAR"]
    assert orders.count(Waive("FRA")) == 2


def test_remove_the_least_valuable_unit() -> None:
    centres = HOMES | {"PAR": "GER", "BRE": "GER"}
    state = board("FRA A PAR", "FRA F BRE", "FRA A MAR", "FRA A PIE", "GER A BUR",
                  phase="W1901A", centres=centres)  # fmt: skip
    assert state.adjustments()["FRA"] == -3
    ev = evaluate(state, "FRA", REMOVE)
    by_value = sorted(state.units_of("FRA"), key=lambda u: ev.value(u.type, u.loc))
    assert [u.loc for u in by_value] == ["PIE", "MAR", "PAR", "BRE"]
    orders = removal_orders(state, "FRA", ev, Best(0))
    assert orders == [Remove(u) for u in by_value[:3]]
    # Walking upwards, each step is a coin flip (the rule's chance is never positive there).
    rng = random.Random(11)
    first = [order_key(removal_orders(state, "FRA", ev, rng)[0]) for _ in range(2000)]
    assert 0.44 < first.count("PIE") / 2000 < 0.56
    assert 0.19 < first.count("MAR") / 2000 < 0.31
