"""Bordeaux's opponent models: the estimator learns which model predicts a scripted opponent,
and the scenarios weigh the models by it (none at all with no history)."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable

import pytest

from diplomat.bots.base import View
from diplomat.bots.bordeaux import Bordeaux, Params
from diplomat.bots.bordeaux.adapter import EngineView
from diplomat.bots.bordeaux.models import (
    BLUEPRINTS,
    Estimator,
    forecasts,
    scenarios,
    starting_orders,
)
from diplomat.bots.dumbbot import WEIGHT_SETS, evaluate, movement_orders, weights_for
from diplomat.engine.map import load_map, province_of
from diplomat.engine.orders import Hold, Order
from diplomat.engine.simulate import random_orders
from diplomat.engine.state import GameState, initial_state
from diplomat.engine.turn import process
from diplomat.protocol import messages

NAMES = tuple(b.name for b in BLUEPRINTS)
Policy = Callable[[GameState, str, random.Random], list[Order]]


def holds(state: GameState, power: str, rng: random.Random) -> list[Order]:
    return [Hold(u) for u in state.units_of(power)]


def randomly(state: GameState, power: str, rng: random.Random) -> list[Order]:
    return random_orders(state, rng).get(power, [])


def dumbbot(weights: str) -> Policy:
    def play(state: GameState, power: str, rng: random.Random) -> list[Order]:
        p = WEIGHT_SETS[weights]
        ev = evaluate(state, power, weights_for(state, power, p), True, p)
        return movement_orders(state, power, ev, rng, True, p)

    return play


def learn(
    policy: Policy, phases: int = 6, power: str = "AUS", params: Params | None = None
) -> Estimator:
    """The estimator after watching ``power`` play ``policy`` for ``phases`` movement phases
    (everyone else holds; adjustments skipped)."""
    params = params or Params(model_nodes=60)
    est = Estimator()
    state = initial_state(load_map("standard"))
    rng = random.Random(4)
    seen = 0
    while seen < phases:
        if state.phase.kind != "movement":
            state = process(state, {}).state
            continue
        position = EngineView(state)
        fc = forecasts(state, list(state.map.powers), rng, position, params)
        legal = {province_of(loc): len(o) for loc, o in position.legal().items()}
        est.expect(state.phase.name, fc, legal)
        played = policy(state, power, random.Random(seen))
        assert est.observe(state.phase.name, {power: played})
        state = process(state, {power: played}).state
        seen += 1
    return est


def test_with_no_history_every_model_weighs_the_same() -> None:
    est = Estimator()
    w = est.weights("FRA")
    assert set(w) == set(NAMES) and max(w.values()) - min(w.values()) < 1e-12
    assert abs(sum(w.values()) - 1) < 1e-12
    # A forecast of a phase never expected teaches nothing.
    assert not est.observe(
        "S1901M", {"FRA": holds(initial_state(load_map("standard")), "FRA", random.Random(0))}
    )
    assert est.weights("FRA") == w


def test_it_learns_that_an_opponent_holds() -> None:
    w = learn(holds).weights("AUS")
    assert max(w, key=w.__getitem__) == "hold" and w["hold"] > 0.8


def test_it_learns_that_an_opponent_plays_at_random() -> None:
    w = learn(randomly).weights("AUS")
    assert max(w, key=w.__getitem__) == "random" and w["random"] > 0.8


def test_it_learns_that_an_opponent_plays_like_dumbbot() -> None:
    est = learn(dumbbot("standard"))
    w = est.weights("AUS")
    assert est.best("AUS").startswith("dumbbot:")
    assert sum(v for k, v in w.items() if k.startswith("dumbbot:")) > 0.8
    assert w["random"] < 0.05 and w["hold"] < 0.05
    # Only the power watched has a record; the others still weigh every model the same.
    assert len(set(est.weights("FRA").values())) == 1


@pytest.mark.parametrize("weights", ["aggressive", "defensive"])
def test_it_tells_the_dumbbot_weight_sets_apart(weights: str) -> None:
    # The weight sets often agree on a unit's order, so only the share of a blueprint's draws
    # that made each order tells them apart: with the default draws the set that played
    # weighs most of the three, each time.
    est = learn(dumbbot(weights), phases=8, power="RUS")
    w = est.weights("RUS")
    assert est.best("RUS") == f"dumbbot:{weights}"
    assert w[f"dumbbot:{weights}"] > 0.5


def test_the_floor_keeps_every_model_in_play() -> None:
    est = learn(holds)
    est.floor = 0.3
    w = est.weights("AUS")
    assert min(w.values()) >= 0.3 / len(NAMES) - 1e-12


def forecast_now() -> tuple[GameState, dict[str, dict[str, list[list[Order]]]]]:
    state = initial_state(load_map("standard"))
    fc = forecasts(state, list(state.map.powers), random.Random(1), EngineView(state), Params())
    return state, fc


def model_of(
    orders: list[Order], fc: dict[str, dict[str, list[list[Order]]]], power: str
) -> set[str]:
    return {name for name, f in fc.items() if any(d == orders for d in f.get(power, []))}


def test_scenarios_draw_every_model_with_no_history() -> None:
    _, fc = forecast_now()
    drawn = scenarios(Estimator(), fc, ["AUS"], 300, random.Random(2))
    used: Counter[str] = Counter()
    for sc in drawn:
        used.update(model_of(sc["AUS"], fc, "AUS"))
    # Each of the six models is drawn about 50 times in 300; none is left out.
    assert set(used) == set(NAMES)
    assert all(used[n] >= 20 for n in NAMES)


def test_scenarios_follow_the_weights() -> None:
    state, fc = forecast_now()
    est = learn(holds)
    drawn = scenarios(est, fc, ["AUS", "FRA"], 200, random.Random(2))
    hold = [Hold(u) for u in sorted(state.units_of("AUS"), key=lambda u: u.province)]
    aus_holds = sum(1 for sc in drawn if sorted(map(str, sc["AUS"])) == sorted(map(str, hold)))
    fra_holds = sum(1 for sc in drawn if all(isinstance(o, Hold) for o in sc["FRA"]))
    assert aus_holds > 0.8 * 200  # AUS has held: its scenarios mostly hold
    assert fra_holds < 0.5 * 200  # FRA has no record: every model
    start = starting_orders(est, fc, "AUS")
    assert start is not None and all(isinstance(o, Hold) for o in start)
    # With no record the start is the standard DumbBot's first draw, as before the models.
    assert starting_orders(Estimator(), fc, "FRA") == fc["dumbbot:standard"]["FRA"][0]


def test_bordeaux_learns_from_the_movement_results_it_is_shown() -> None:
    bot = Bordeaux(Params(model_nodes=40), nodes=80)
    state = initial_state(load_map("standard"))
    rng = random.Random(6)
    for _ in range(3):
        results: tuple[messages.Ord, ...] = ()
        while state.phase.kind != "movement":
            state = process(state, {}).state
        bot.orders(View(state, "FRA", rng, movement=results))
        played = {"AUS": holds(state, "AUS", rng), "TUR": randomly(state, "TUR", rng)}
        after = process(state, played)
        results = tuple(messages.Ord(state.phase, o, None) for os in played.values() for o in os)
        state = after.state
        while state.phase.kind != "movement":
            state = process(state, {}).state
        bot.orders(View(state, "FRA", rng, movement=results))
    assert bot.estimator.best("AUS") == "hold"
    assert bot.estimator.best("TUR") == "random"


def test_short_of_time_only_the_cheap_models_forecast_and_the_rest_score_as_random() -> None:
    from diplomat.bots.bordeaux.budget import Budget
    from diplomat.bots.bordeaux.models import ALWAYS

    state = initial_state(load_map("standard"))
    position = EngineView(state)
    spent = Budget(0.0)  # no time at all: only the blueprints that cost next to nothing
    fc = forecasts(state, ["AUS"], random.Random(1), position, Params(), spent)
    assert list(fc) == list(NAMES[:ALWAYS])
    est = Estimator()
    legal = {province_of(loc): len(o) for loc, o in position.legal().items()}
    est.expect(state.phase.name, fc, legal)
    assert est.observe(state.phase.name, {"AUS": holds(state, "AUS", random.Random(0))})
    w = est.weights("AUS")
    # The models not forecast score exactly as random play: no credit for sitting out.
    assert w["hold"] > w["random"]
    assert all(abs(w[n] - w["random"]) < 1e-12 for n in NAMES[ALWAYS:])
