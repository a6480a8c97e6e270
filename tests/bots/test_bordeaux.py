"""The Bordeaux bot: complete legal orders in every phase, its budget, its constraints, the
obvious moves, its parameters, and the search's pieces."""

from __future__ import annotations

import math
import os
import random
import subprocess
import sys
import time
from functools import partial

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from diplomat.bots.base import View, complete_orders, daide_orders
from diplomat.bots.bordeaux import (
    PARAMS,
    Bordeaux,
    Constraints,
    ParamError,
    Params,
    parse_overrides,
)
from diplomat.bots.bordeaux.adapter import EngineView
from diplomat.bots.bordeaux.budget import Budget
from diplomat.bots.bordeaux.evaluate import Evaluator
from diplomat.bots.bordeaux.search import _regret_matching
from diplomat.bots.commandline import build_parser
from diplomat.engine.legal import legal_orders
from diplomat.engine.map import load_map, province_of
from diplomat.engine.orders import (
    Build,
    Convoy,
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
from diplomat.engine.orderset import OrderSet, owes_orders
from diplomat.engine.simulate import random_game, random_orders
from diplomat.engine.state import Dislodged, GameState, Unit, initial_state, make_state, parse_unit
from diplomat.engine.turn import process
from diplomat.protocol import messages
from tests.boards import HOMES, STANDARD_START
from tests.boards import board as shared_board

G = load_map("standard")


board = partial(shared_board, phase="F1901M", centres=HOMES)


def decide(
    state: GameState,
    power: str,
    *,
    seed: int = 1,
    nodes: int | None = 400,
    think: float | None = None,
    constraints: Constraints | None = None,
    params: Params | None = None,
    variant: messages.Variant | None = None,
) -> list[Order]:
    bot = Bordeaux(params, nodes=nodes, think=think, constraints=constraints)
    return bot.orders(View(state, power, random.Random(seed), variant=variant))


def texts(orders: list[Order]) -> set[str]:
    return {str(o) for o in orders}


# -- complete legal orders in every kind of phase --------------------------------------------------


def check_complete_and_legal(state: GameState, power: str, given: list[Order]) -> None:
    kind = state.phase.kind
    if kind == "movement":
        mine = sorted(u.province for u in state.units_of(power))
        assert sorted(order_key(o) for o in given) == mine
    elif kind == "retreat":
        mine = sorted(p for p, d in state.dislodged.items() if d.unit.power == power)
        assert sorted(order_key(o) for o in given) == mine
        assert all(isinstance(o, Retreat | Disband) for o in given)
    else:
        need = state.adjustments()[power]
        if need > 0:
            assert all(isinstance(o, Build | Waive) for o in given)
            assert len(given) == need
        else:
            assert all(isinstance(o, Remove) for o in given)
            assert len({order_key(o) for o in given}) == len(given) == -need
    book = OrderSet(state)
    for order in daide_orders(state, complete_orders(state, power, given)):
        assert book.submit(power, order).note.accepted, str(order)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10_000), st.integers(0, 40), st.sampled_from(sorted(G.powers)))
def test_complete_legal_orders_in_random_positions(seed: int, steps: int, power: str) -> None:
    state = initial_state(load_map("standard"))
    for i, step in enumerate(random_game(STANDARD_START, seed, max_year=1912)):
        state = step.result.state
        if i >= steps:
            break
    if not owes_orders(state, power) or state.winner() is not None:
        return
    given = decide(state, power, seed=seed, nodes=40)
    check_complete_and_legal(state, power, given)


def test_every_phase_kind_of_a_game() -> None:
    # Along a game of random play (which dislodges units often), every power that owes
    # orders asks Bordeaux: every phase kind comes up, and every order set is complete and
    # legal. Bordeaux plays Russia, so its own orders shape the game too.
    state = initial_state(load_map("standard"))
    rng = random.Random(3)
    kinds: set[str] = set()
    while state.phase.year <= 1903:
        orders = random_orders(state, rng)
        for power in G.powers:
            if owes_orders(state, power):
                given = decide(state, power, seed=7, nodes=60)
                check_complete_and_legal(state, power, given)
                kinds.add(state.phase.kind)
                if power == "RUS":
                    orders[power] = given
        state = process(state, orders).state
    assert kinds == {"movement", "retreat", "adjustment"}


# -- the budget ------------------------------------------------------------------------------------


def test_the_think_budget_is_respected() -> None:
    state = initial_state(load_map("standard"))
    for _ in range(6):  # a middle-game position, with many units and options
        state = process(state, {}).state
    start = time.perf_counter()
    decide(state, "RUS", nodes=None, think=0.2)
    elapsed = time.perf_counter() - start
    # Generous: the set-up before the search and a loaded machine's scheduling, never
    # anything like a second search.
    assert elapsed < 0.2 + 1.0


def test_the_budget_stays_inside_the_servers_deadline() -> None:
    bot = Bordeaux(think=10.0)
    variant = messages.Variant(mtl=4, rtl=2, btl=2)
    budget = bot.budget(
        View(initial_state(load_map("standard")), "FRA", random.Random(0), variant=variant)
    )
    assert budget.hard <= 4 * 0.5 and budget.seconds <= 4 - 1.0
    nodes = Bordeaux(nodes=10**9).budget(
        View(initial_state(load_map("standard")), "FRA", random.Random(0), (), frozenset(), variant)
    )
    assert nodes.hard <= 2.0


def test_a_node_budget_repeats_exactly() -> None:
    state = initial_state(load_map("standard"))
    runs = [texts(decide(state, "ITA", seed=5, nodes=300)) for _ in range(2)]
    assert runs[0] == runs[1]


REPEAT = """
import random
from diplomat.bots.base import View
from diplomat.bots.bordeaux import Bordeaux
from diplomat.engine.map import load_map
from diplomat.engine.simulate import random_game
from diplomat.engine.state import initial_state
for i, step in enumerate(random_game(initial_state(load_map("standard")), 5, max_year=1904)):
    state = step.result.state
    if i >= 12:
        break
power = next(p for p in sorted(state.map.powers) if state.units_of(p))
print(sorted(str(o) for o in Bordeaux(nodes=300).orders(View(state, power, random.Random(3)))))
"""


def test_a_node_budget_repeats_across_processes() -> None:
    # String hashing differs between processes; the search must not depend on it.
    outs = [
        subprocess.run(
            [sys.executable, "-c", REPEAT],
            env={**os.environ, "PYTHONHASHSEED": str(h)},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for h in (1, 2)
    ]
    assert outs[0] == outs[1] and outs[0].startswith("[")


# -- constraints -----------------------------------------------------------------------------------


def test_demilitarised_zone_required_and_forbidden_orders() -> None:
    state = initial_state(load_map("standard"))
    forbid = Move(parse_unit("FRA F BRE", G), "MAO")
    require = Move(parse_unit("FRA A PAR", G), "PIC")
    c = Constraints(
        dmz=frozenset({"BUR", "SPA"}), required=(require,), forbidden=frozenset({forbid})
    )
    for seed in range(4):
        given = decide(state, "FRA", seed=seed, nodes=200, constraints=c)
        assert require in given and forbid not in given
        for o in given:
            if isinstance(o, Move | SupportMove):
                assert province_of(o.dest) not in c.dmz
            if isinstance(o, SupportHold):
                assert o.target.province not in c.dmz


def test_required_orders_on_split_coasts_are_found_by_the_engines_key() -> None:
    # The listing keys a fleet by its location and a build by its site; a required order is
    # matched by the engine's order_key (the province), so coasts do not hide it.
    state = board("RUS F STP/SC", "RUS A MOS", phase="S1901M")
    fleet = Move(state.units["STP"], "GOB")
    kept = Constraints(required=(fleet,)).filter(legal_orders(state, "RUS"), frozenset({"RUS"}))
    assert kept["STP/SC"] == [fleet]
    win = board("RUS A MOS", phase="W1901A", centres={"MOS": "RUS", "STP": "RUS", "WAR": "RUS"})
    build = Build(parse_unit("RUS F STP/NC", G))
    kept = Constraints(required=(build,)).filter(legal_orders(win, "RUS"), frozenset({"RUS"}))
    assert kept["STP"] == [build]


def test_a_unit_in_a_demilitarised_zone_leaves() -> None:
    state = board("GER A MUN", "GER F KIE", phase="S1901M")
    given = decide(state, "GER", nodes=200, constraints=Constraints(dmz=frozenset({"MUN"})))
    (munich,) = [o for o in given if order_key(o) == "MUN"]
    assert isinstance(munich, Move)


def test_allies_are_not_attacked() -> None:
    # Munich is empty and German, and no German unit can reach it; a French army next to it
    # takes it when alone, and leaves it to its ally otherwise.
    state = board("FRA A BUR", "GER A PRU", "GER F DEN", centres=HOMES | {"BEL": "FRA"})
    alone = decide(state, "FRA", nodes=300)
    assert Move(parse_unit("FRA A BUR", G), "MUN") in alone
    allied = decide(state, "FRA", nodes=300, constraints=Constraints(allies=frozenset({"GER"})))
    assert Move(parse_unit("FRA A BUR", G), "MUN") not in allied


def test_values_remembered_save_adjudications_and_change_no_decision() -> None:
    # The opening has few distinct order sets, so the search meets many again. Remembering
    # their values must leave a node-budget search exactly as it was (repeats still count as
    # nodes), with far fewer adjudications than nodes.
    from diplomat.bots.bordeaux.search import RES
    from diplomat.bots.dumbbot import evaluate, movement_orders, weights_for

    state = initial_state(G)
    powers = sorted(G.powers)
    groups = [frozenset({p}) for p in ["FRA", *(p for p in powers if p != "FRA")]]
    dumb = {p: evaluate(state, p, weights_for(state, p)) for p in powers}
    draws = random.Random(7)
    defaults = {p: movement_orders(state, p, dumb[p], draws) for p in powers}
    scenarios = [{p: movement_orders(state, p, dumb[p], draws) for p in powers} for _ in range(3)]

    def search(remember: bool) -> tuple[list[Order], RES]:
        res = RES(
            EngineView(state),
            groups,
            Evaluator(state, groups, Params(), dumb),
            Params(),
            Constraints(),
            frozenset({"FRA"}),
            random.Random(11),
            defaults,
            scenarios,
            me="FRA",
            remember=remember,
        )
        return res.run(Budget(60.0, 3000)), res

    remembered, res = search(True)
    forgotten, again = search(False)
    assert remembered == forgotten and res.best == again.best
    # (a search inside a cycle may stop once all but the cycle's share is spent)
    assert res.stats.nodes == again.stats.nodes >= 3000 * (1 - Params().cycle_share)
    fewer, every = res.stats.adjudications, again.stats.adjudications
    assert every >= again.stats.nodes and fewer < every * 0.8


def test_an_allys_units_out_of_our_reach_keep_their_default_orders() -> None:
    # England and Turkey allied at the start: no Turkish unit can meet an English one, so the
    # search spends nothing on Turkey's orders (they stay as given); a French ally's fleet in
    # Brest shares the Channel with London's fleet and is searched, Marseille's army is not.
    from diplomat.bots.bordeaux.search import RES

    state = initial_state(G)
    holds = {p: [Hold(u) for u in state.units.values() if u.power == p] for p in sorted(G.powers)}

    def run(ally: str) -> RES:
        c = Constraints(allies=frozenset({ally}))
        groups = c.alliances("ENG", G.powers)
        ev = Evaluator(state, groups, Params())
        res = RES(
            EngineView(state),
            groups,
            ev,
            Params(),
            c,
            c.bound("ENG"),
            random.Random(3),
            holds,
            me="ENG",
        )
        res.run(Budget(60.0, 300))
        return res

    with_turkey = run("TUR")
    assert with_turkey.idle == {"ANK", "CON", "SMY"}
    assert all(isinstance(with_turkey.best[0][p], Hold) for p in ("ANK", "CON", "SMY"))
    assert not any(isinstance(with_turkey.best[0][p], Hold) for p in ("EDI", "LON", "LVP"))
    with_france = run("FRA")
    assert "BRE" not in with_france.idle and "MAR" in with_france.idle
    assert isinstance(with_france.best[0]["MAR"], Hold)
    # Without allies nothing is left out, whoever the decision is for.
    alone = RES(
        EngineView(state),
        [frozenset({p}) for p in sorted(G.powers)],
        Evaluator(state, [frozenset({p}) for p in sorted(G.powers)], Params()),
        Params(),
        Constraints(),
        frozenset({"ENG"}),
        random.Random(3),
        holds,
        me="ENG",
    )
    assert alone.idle == frozenset()


def test_alliances_partition_the_powers() -> None:
    c = Constraints(allies=frozenset({"GER"}), other_alliances=(frozenset({"RUS", "TUR"}),))
    groups = c.alliances("FRA", G.powers)
    assert groups[0] == frozenset({"FRA", "GER"})
    assert frozenset({"RUS", "TUR"}) in groups
    assert sorted(p for g in groups for p in g) == sorted(G.powers)


# -- the obvious -----------------------------------------------------------------------------------


def test_a_supported_attack_on_an_undefended_centre() -> None:
    # Fall: a lone German army holds Munich; two French armies next to it take it together
    # (everything else in reach is French already or held by a supported unit).
    state = board(
        "FRA A BUR",
        "FRA A TYR",
        "GER A MUN",
        "ITA A VEN",
        "ITA A APU",
        "AUS A VIE",
        "AUS A TRI",
        "AUS A BUD",
        centres=HOMES | {"BEL": "FRA"},
    )
    given = texts(decide(state, "FRA", nodes=600))
    assert given in (
        {"A BUR - MUN", "A TYR S A BUR - MUN"},
        {"A TYR - MUN", "A BUR S A TYR - MUN"},
    ), given


def test_an_army_is_convoyed_by_its_own_fleet_to_an_empty_centre() -> None:
    # Fall 1901: Norway is empty and only England's fleet in the North Sea reaches it. The
    # army in Yorkshire can have it only by convoy, which leaves the fleet free to hold the
    # sea; the orders go out as DAIDE wants them (CTO ... VIA) and the server accepts them.
    state = board("ENG A YOR", "ENG F NTH", "ENG F LON", "FRA A PAR", "GER A MUN", "RUS A MOS")
    for seed in (1, 2, 3):
        given = decide(state, "ENG", seed=seed, nodes=600)
        assert {"A YOR - NWY VIA", "F NTH C A YOR - NWY"} <= texts(given), texts(given)
        check_complete_and_legal(state, "ENG", given)
        (move,) = [o for o in given if isinstance(o, Move) and o.convoy]
        assert move.via == ("NTH",)


def test_no_convoy_through_another_powers_fleet_and_fleets_agree_with_their_armies() -> None:
    from diplomat.bots.bordeaux.search import RES

    # A French fleet in the North Sea is no route for England (the search plays only its
    # alliance's orders); England's own fleet in the Channel is one, to Belgium, Picardy and
    # Brest.
    state = board("ENG A LON", "ENG A YOR", "ENG F ECH", "FRA F NTH", "FRA A PAR")
    groups = [frozenset({"ENG"}), frozenset({"FRA"})]
    res = RES(
        EngineView(state),
        groups,
        Evaluator(state, groups, Params()),
        Params(),
        Constraints(),
        frozenset({"ENG"}),
        random.Random(1),
        {},
    )
    assert sorted(res.routes) == [("LON", "BEL"), ("LON", "BRE"), ("LON", "PIC")]
    assert all(route == ("ECH",) for route in res.routes.values())
    convoy = next(o for o in res.options["LON"] if isinstance(o, Move) and o.dest == "BEL")
    fleet_move = next(o for o in res.options["ECH"] if isinstance(o, Move) and o.dest == "NTH")
    hold_lon, hold_ech = Hold(state.units["LON"]), Hold(state.units["ECH"])
    # The army just ordered to convoy takes the fleet, which holds in the raw orders and
    # convoys in the final ones.
    raw: dict[str, Order] = {"LON": convoy, "YOR": Hold(state.units["YOR"]), "ECH": fleet_move}
    res._agree(raw, {"LON"})
    assert raw["ECH"] == hold_ech and raw["LON"] == convoy
    final = res._supports(raw, {}, {"LON"})
    assert final is not None and str(final["ECH"]) == "F ECH C A LON - BEL"
    # A fleet just given a move wins over the army's older convoy: the army holds.
    raw = {"LON": convoy, "YOR": Hold(state.units["YOR"]), "ECH": fleet_move}
    res._agree(raw, {"ECH"})
    assert raw["LON"] == hold_lon and raw["ECH"] == fleet_move
    # Searched through, every order set it adopts has each convoy's fleet convoying it.
    res.run(Budget(30.0, 400))
    for orders in res.best:
        for o in orders.values():
            if isinstance(o, Move) and o.convoy:
                (sea,) = res.routes[(o.unit.province, o.dest)]
                assert orders[sea] == Convoy(state.units[sea], o.unit, o.dest)
    # ``convoys=0``: no army is convoyed.
    off = Params(convoys=0)
    none = RES(
        EngineView(state),
        groups,
        Evaluator(state, groups, off),
        off,
        Constraints(),
        frozenset({"ENG"}),
        random.Random(1),
        {},
    )
    assert none.routes == {}
    assert not any(isinstance(o, Move) and o.convoy for o in none.options["LON"])


def test_a_build_in_an_open_home_centre() -> None:
    centres = HOMES | {"SPA": "FRA", "POR": "FRA"}
    state = board("FRA A SPA", "FRA F POR", "FRA A BUR", phase="W1901A", centres=centres)
    given = decide(state, "FRA", nodes=300)
    builds = [o for o in given if isinstance(o, Build)]
    assert len(builds) == 2 and not any(isinstance(o, Waive) for o in given)
    assert {b.unit.province for b in builds} <= {"PAR", "MAR", "BRE"}


def test_a_retreat_that_keeps_a_centre() -> None:
    # Summer: a German army dislodged from Bohemia can go home to Munich, which two French
    # armies threaten, or to Tyrolia, next to it but held by nobody worth attacking.
    unit = parse_unit("GER A BOH", G)
    state = board(
        "FRA A BUR",
        "FRA A RUH",
        "AUS A VIE",
        "AUS A TRI",
        "ITA A VEN",
        "ITA A PIE",
        phase="S1901R",
        dislodged=(Dislodged(unit, "SIL", ("MUN", "TYR")),),
    )
    assert decide(state, "GER", nodes=100) == [Retreat(unit, "MUN")]


def test_removals_stay_within_the_budget_in_the_worst_case() -> None:
    # 17 units and 9 centres: 24,310 ways to remove 8.
    units = [
        "RUS A MOS", "RUS A WAR", "RUS A UKR", "RUS A LVN", "RUS A FIN", "RUS A SIL",
        "RUS A PRU", "RUS A GAL", "RUS A RUM", "RUS A ARM", "RUS A SEV", "RUS F BAL",
        "RUS F GOB", "RUS F BLA", "RUS F BAR", "RUS F NWG", "RUS A STP",
    ]  # fmt: skip
    centres = {c: p for c, p in HOMES.items() if p != "RUS"}
    centres |= {c: "RUS" for c in ("MOS", "WAR", "SEV", "STP", "RUM", "SWE", "NWY", "DEN", "BER")}
    state = board(*units, phase="W1905A", centres=centres)
    assert state.adjustments()["RUS"] == -8
    given = decide(state, "RUS", nodes=3000)
    check_complete_and_legal(state, "RUS", given)


def test_no_waive_unless_it_is_best() -> None:
    state = board("ITA F ION", phase="W1901A", centres=HOMES | {"TUN": "ITA", "GRE": "ITA"})
    # Four builds allowed and three free home centres: three builds, and the one waive owed.
    given = decide(state, "ITA", nodes=300)
    assert sum(isinstance(o, Build) for o in given) == 3 and len(given) == 4


# -- parameters ------------------------------------------------------------------------------------


def test_parameters_are_enumerable_with_defaults_and_ranges() -> None:
    defaults = Params()
    assert len(PARAMS) >= 10
    for spec in PARAMS:
        assert getattr(defaults, spec.name) == spec.default
        assert spec.low <= spec.default <= spec.high and spec.doc


def test_parameter_overrides_and_their_errors() -> None:
    p = parse_overrides(["unit=0.5", "own_turns=3"])
    assert p.unit == 0.5 and p.own_turns == 3 and isinstance(p.own_turns, int)
    with pytest.raises(ParamError, match=r"unknown parameter 'unti'.*did you mean unit"):
        parse_overrides(["unti=1"])
    with pytest.raises(ParamError, match="not a number"):
        parse_overrides(["unit=lots"])
    with pytest.raises(ParamError, match="not an integer"):
        parse_overrides(["own_turns=1.5"])
    with pytest.raises(ParamError, match="outside its range"):
        parse_overrides(["scenario_weight=2"])
    with pytest.raises(ParamError, match="NAME=VALUE"):
        parse_overrides(["unit"])


def test_the_command_line_rejects_a_bad_parameter(capsys: pytest.CaptureFixture[str]) -> None:
    parser = build_parser(Bordeaux)
    args = parser.parse_args(["--param", "unit=0.7", "--nodes", "50", "--ally", "ger"])
    bot = Bordeaux.from_arguments(args)
    assert bot.params.unit == 0.7 and bot.nodes == 50
    assert bot.constraints.allies == frozenset({"GER"})
    with pytest.raises(SystemExit) as exc:
        parser.parse_args(["--param", "nope=1"])
    assert exc.value.code == 2
    assert "unknown parameter 'nope'" in capsys.readouterr().err


# -- the search's pieces ---------------------------------------------------------------------------


def test_a_search_without_pure_equilibrium_cycles_and_mixes() -> None:
    # Italy's fleet can cover Naples or Tunis, Turkey's can attack either: matching pennies.
    # The search cycles, notices it, and (when it ends inside the cycle) draws from a mix.
    state = board(
        "ITA F TYS", "TUR F ION", "ITA A VEN", "TUR A CON", centres=HOMES | {"TUN": "ITA"}
    )
    cycled, mixed = 0, 0
    for seed in range(10):
        bot = Bordeaux(Params(scenarios=0), nodes=400)
        bot.orders(View(state, "ITA", random.Random(seed)))
        stats = bot.decisions[-1].stats
        assert stats is not None
        cycled += stats.cycles > 0
        mixed += stats.mixed
    assert cycled == 10 and mixed >= 1


def test_regret_matching_mixes_when_there_is_no_pure_equilibrium() -> None:
    # Matching pennies between alliances 0 and 1: each side ends near one half.
    payoff: dict[tuple[int, ...], list[float]] = {
        (0, 0): [1.0, -1.0],
        (0, 1): [-1.0, 1.0],
        (1, 0): [-1.0, 1.0],
        (1, 1): [1.0, -1.0],
    }
    mix = _regret_matching([2, 2], [0, 1], payoff, 2000)
    assert abs(mix[0][0] - 0.5) < 0.1 and abs(mix[1][0] - 0.5) < 0.1


def test_the_evaluator_counts_centres_and_threats() -> None:
    groups = [frozenset({p}) for p in G.powers]
    state = board("FRA A BUR", "GER A MUN")
    ev = Evaluator(state, groups, Params())
    fra = G.powers.index("FRA")
    ger = G.powers.index("GER")
    taken = make_state(G, state.phase, [parse_unit("FRA A MUN", G)], HOMES).units
    held = state.units
    after_take = ev.values(taken, [parse_unit("GER A MUN", G)], fall=True)
    after_hold = ev.values(held, fall=True)
    assert after_take[fra] > after_hold[fra] + 0.5
    assert after_take[ger] < after_hold[ger] - 0.5


def test_alliances_tied_for_a_neutral_centre_share_its_chance() -> None:
    # Belgium is neutral; a French army in Picardy and a German one in the Ruhr each reach
    # it. Alone, either takes it at a reach margin of one; side by side, the margin is nought
    # and neither is the favourite: each gets half the chance, whichever is listed first.
    groups = [frozenset({p}) for p in G.powers]
    params = Params()
    ev = Evaluator(board("FRA A PIC", "GER A RUH", phase="S1901M"), groups, params)

    def take(margin: int) -> float:
        return 1.0 / (1.0 + math.exp(-params.threat_slope * (margin - params.take_bias)))

    tied = ev.values(board("FRA A PIC", "GER A RUH").units, fall=False)
    for power, unit in (("FRA", "FRA A PIC"), ("GER", "GER A RUH")):
        alone = ev.values(board(unit).units, fall=False)
        i = G.powers.index(power)
        assert alone[i] - tied[i] == pytest.approx(take(1) - take(0) / 2)


def test_a_home_centre_left_free_in_the_fall_is_worth_a_build() -> None:
    # Italy holds four centres with three units. If the fleet in the Ionian Sea sails home to
    # Naples, no home centre is free and the build is waived: ``build`` values the room.
    owners = {"ROM": "ITA", "NAP": "ITA", "VEN": "ITA", "TUN": "ITA"}
    rest = ("ITA A ROM", "ITA A VEN", "TUR A SMY")
    groups = [frozenset({p}) for p in G.powers]
    ita = G.powers.index("ITA")

    def gain(params: Params, phase: str) -> float:
        state = board("ITA F ION", *rest, phase=phase, centres=owners)
        ev = Evaluator(state, groups, params)
        fall = phase.startswith("F")
        out, home = (
            ev.values(board(f"ITA F {at}", *rest).units, fall=fall)[ita] for at in ("ION", "NAP")
        )
        return out - home

    plain = gain(Params(), "F1903M")
    assert gain(Params(build=0.6), "F1903M") == pytest.approx(plain + 0.6)
    # In the Spring no build is due yet, and with nothing to build there is no room to keep.
    assert gain(Params(build=0.6), "S1903M") == pytest.approx(gain(Params(), "S1903M"))
    owners["TUN"] = "TUR"
    assert gain(Params(build=0.6), "F1903M") == pytest.approx(gain(Params(), "F1903M"))


def test_rivalry_prefers_a_big_rivals_centre_as_the_share_does() -> None:
    # France (10 centres) can take Munich from Germany (8) or Venice from Italy (2). The
    # Sum-of-Squares share gains more from Munich (121/174 against 121/186), but the plain
    # evaluator prefers Venice for its proximity values; the rivalry term turns it round,
    # keeps the root's value and leaves the rivals' own values as they were.
    owners = {
        **dict.fromkeys(
            ("BRE", "PAR", "MAR", "SPA", "POR", "BEL", "HOL", "LON", "EDI", "LVP"), "FRA"
        ),
        **dict.fromkeys(("BER", "KIE", "MUN", "DEN", "SWE", "NWY", "WAR", "MOS"), "GER"),
        **dict.fromkeys(("ROM", "VEN"), "ITA"),
    }
    units = ["FRA A BUR", "FRA F MAO", "GER A BER", "GER F KIE", "ITA A ROM"]
    state = board("FRA A TYR", *units, phase="F1905M", centres=owners)
    groups = [frozenset({"FRA"}), frozenset({"GER"}), frozenset({"ITA"})]

    def after(dest: str) -> dict[str, Unit]:
        return board(f"FRA A {dest}", *units).units

    plain = Evaluator(state, groups, Params(), ours=0)
    rival = Evaluator(state, groups, Params(rivalry=1.0), ours=0)
    assert rival.values(state.units, fall=True) == pytest.approx(
        plain.values(state.units, fall=True)
    )
    mun, ven = (rival.values(after(d), fall=True) for d in ("MUN", "VEN"))
    plain_mun, plain_ven = (plain.values(after(d), fall=True) for d in ("MUN", "VEN"))
    assert plain_mun[0] < plain_ven[0]
    assert mun[0] > ven[0] + 0.5
    assert (mun[1:], ven[1:]) == (plain_mun[1:], plain_ven[1:])
    # Told no alliance is ours (the cheap search that models every power), it counts none.
    assert Evaluator(state, groups, Params(rivalry=1.0)).values(after("MUN"), fall=True) == (
        plain_mun
    )


def test_budget_shares() -> None:
    b = Budget(1.0, nodes=100, hard=5.0)
    assert b.spent() == 0.0 and not b.out()
    b.tick(50)
    assert b.spent() == 0.5
    b.tick(50)
    assert b.out()


def test_position_adjudicates_with_the_engine() -> None:
    state = board("FRA A BUR", "FRA A RUH", "GER A MUN")
    units = state.units
    orders: dict[str, Order] = {
        "BUR": Move(units["BUR"], "MUN"),
        "RUH": SupportMove(units["RUH"], units["BUR"], "MUN"),
        "MUN": Hold(units["MUN"]),
    }
    out = EngineView(state).adjudicate(orders)
    assert out.units["MUN"].power == "FRA"
    assert [u.province for u in out.dislodged] == ["MUN"]
