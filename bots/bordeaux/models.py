"""Opponent models: what the other powers may order, and which model has predicted each best.

Bordeaux's movement search values its own orders partly against *scenarios*, order sets the
other powers might play. A scenario drawn from one model of the opponents (DumbBot) makes it a
best answer to DumbBot, and nothing more. Here the scenarios come from several *blueprints*:

* ``dumbbot:SET``: DumbBot's orders with a named weight set (``bots.dumbbot.WEIGHT_SETS``);
  the standard, an aggressive and a defensive one;
* ``search``: a cheap run of Bordeaux's own search (``model_nodes`` nodes, every power alone),
  which predicts every power at once;
* ``random``: a uniformly random legal order per unit (RandomBot);
* ``hold``: every unit holds (HoldBot, and a player who forgot).

Each movement phase every blueprint makes a *forecast* (a few draws of every power's orders).
The :class:`Estimator` keeps the forecasts of the last movement phase and, when the results of
that phase arrive, scores each blueprint per opponent by the likelihood it gave the orders that
power actually played (per unit: the share of the blueprint's draws with that order, with a
tenth of the odds spread over the unit's legal orders; exactly one in their number for
``random``). A blueprint's weight for a power is
a tempered Bayesian posterior over the game so far, ``exp(model_eta * log-likelihood)``
normalised, mixed with a floor (``model_floor``) so that no blueprint is ever ruled out. With
no history every weight is equal: the search leans on no one model.

The search weighs the blueprints by these weights: in each scenario, each opponent's orders
come from a blueprint drawn with its weight for that power; its starting orders come from the
blueprint it weighs most (the standard DumbBot while the weights are equal).
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from diplomat.bots.bordeaux.adapter import EngineView
from diplomat.bots.bordeaux.budget import Budget
from diplomat.bots.bordeaux.constraints import Constraints
from diplomat.bots.bordeaux.evaluate import Evaluator
from diplomat.bots.bordeaux.params import Params
from diplomat.bots.dumbbot import (
    STANDARD,
    WEIGHT_SETS,
    DumbParams,
    Evaluation,
    evaluate,
    movement_orders,
    weights_for,
)
from diplomat.engine.map import province_of
from diplomat.engine.orders import Hold, Order
from diplomat.engine.state import GameState

Forecast = dict[str, list[list[Order]]]  # power -> draws, each that power's list of orders

# A blueprint's odds for a unit's order: this share spread evenly over the unit's legal
# orders, the rest by the share of its draws that made the order (so a miss is not
# impossible, and costs more than it would under uniformly random play).
SPREAD = 0.1
MODEL_SHARE = 0.2  # most of a phase's seconds the cheap search of the ``search`` model takes
FORECAST_SHARE = 0.25  # no blueprint beyond the first ALWAYS starts after this share


@dataclass(frozen=True)
class Blueprint:
    """One model of a player: ``kind`` is ``dumbbot`` (with ``dumb`` its weights), ``search``,
    ``random`` or ``hold``."""

    name: str
    kind: str
    dumb: DumbParams | None = None

    def forecast(
        self,
        state: GameState,
        powers: Sequence[str],
        draws: int,
        rng: random.Random,
        position: EngineView,
        params: Params,
        budget: Budget | None = None,
        standard: Mapping[str, Evaluation] | None = None,
    ) -> Forecast:
        """``draws`` order sets for each of ``powers`` (one for ``hold`` and ``search``);
        ``standard``: the standard DumbBot's evaluations, if already made."""
        units = state.units
        if self.kind == "dumbbot":
            p = self.dumb or STANDARD
            out: Forecast = {}
            for power in powers:
                ev = (standard or {}).get(power) if p == STANDARD else None
                if ev is None:
                    ev = evaluate(state, power, weights_for(state, power, p), True, p)
                out[power] = [movement_orders(state, power, ev, rng, True, p) for _ in range(draws)]
            return out
        if self.kind == "hold":
            return {
                power: [[Hold(u) for _, u in sorted(units.items()) if u.power == power]]
                for power in powers
            }
        if self.kind == "random":
            out = {}
            for power in powers:
                legal = sorted(position.legal(power).items())
                out[power] = [[rng.choice(opts) for _, opts in legal if opts] for _ in range(draws)]
            return out
        if self.kind == "search":
            return _search_forecast(state, powers, rng, position, params, budget, standard)
        raise ValueError(f"unknown blueprint kind {self.kind!r}")


# Cheapest first: when time is short (a loaded machine, a small budget) the forecasts stop
# after FORECAST_SHARE of the phase's seconds, and the blueprints not reached sit this phase
# out (they neither predict nor are scored).
BLUEPRINTS: tuple[Blueprint, ...] = (
    Blueprint("dumbbot:standard", "dumbbot", WEIGHT_SETS["standard"]),
    Blueprint("random", "random"),
    Blueprint("hold", "hold"),
    Blueprint("dumbbot:aggressive", "dumbbot", WEIGHT_SETS["aggressive"]),
    Blueprint("dumbbot:defensive", "dumbbot", WEIGHT_SETS["defensive"]),
    Blueprint("search", "search"),
)
ALWAYS = 3  # the first blueprints are always forecast (they cost next to nothing)
# The DumbBot weight sets the models use: a field measured "against opponents Bordeaux does
# not model" uses the other sets.
MODELLED_WEIGHT_SETS = tuple(b.name.split(":")[1] for b in BLUEPRINTS if b.kind == "dumbbot")


def _search_forecast(
    state: GameState,
    powers: Sequence[str],
    rng: random.Random,
    position: EngineView,
    params: Params,
    budget: Budget | None,
    standard: Mapping[str, Evaluation] | None = None,
) -> Forecast:
    """A cheap run of Bordeaux's own search with every power alone and no scenarios: each
    power's best orders when it ends."""
    from diplomat.bots.bordeaux.search import RES  # the search imports nothing of the models

    nodes = int(params.model_nodes)
    alive = [p for p in state.map.powers if any(u.power == p for u in state.units.values())]
    if nodes <= 0 or not alive:
        return {}
    groups = [frozenset({p}) for p in alive]
    dumb = dict(standard or {})
    for p in state.map.powers:
        if p not in dumb:
            dumb[p] = evaluate(state, p, weights_for(state, p))
    evaluator = Evaluator(state, groups, params, dumb)
    defaults = {p: movement_orders(state, p, dumb[p], rng) for p in alive}
    search = RES(position, groups, evaluator, params, Constraints(), frozenset(), rng, defaults)
    # At most a fifth of the phase's time: the search for our own orders comes first.
    hard = math.inf
    if budget is not None:
        hard = max(0.0, min(budget.hard - budget.elapsed(), MODEL_SHARE * budget.seconds))
    search.run(Budget(hard, nodes, hard))
    by_power = {next(iter(g)): best for g, best in zip(groups, search.best, strict=True)}
    return {p: [[o for _, o in sorted(by_power[p].items())]] for p in powers if p in by_power}


def forecasts(
    state: GameState,
    powers: Sequence[str],
    rng: random.Random,
    position: EngineView,
    params: Params,
    budget: Budget | None = None,
    blueprints: Sequence[Blueprint] = BLUEPRINTS,
    standard: Mapping[str, Evaluation] | None = None,
) -> dict[str, Forecast]:
    """Every blueprint's forecast of ``powers`` this phase, by blueprint name (``standard``:
    the standard DumbBot's evaluations, if already made)."""
    draws = max(1, int(params.model_draws))
    out: dict[str, Forecast] = {}
    for i, b in enumerate(blueprints):
        if (
            i >= ALWAYS
            and budget is not None
            and (budget.elapsed() > FORECAST_SHARE * budget.seconds or budget.late())
        ):
            break
        out[b.name] = b.forecast(state, powers, draws, rng, position, params, budget, standard)
    return out


def _by_unit(orders: Sequence[Order]) -> dict[str, str]:
    """Unit province -> the order's text (how orders are compared)."""
    return {province_of(o.unit.loc): str(o) for o in orders}  # type: ignore[union-attr]


@dataclass
class _Expected:
    """What was forecast in one phase, kept until its results arrive."""

    phase: str
    forecasts: dict[str, Forecast]
    legal: dict[str, int]  # unit province -> number of its legal orders
    uniform: frozenset[str]  # blueprints whose odds are exactly uniform (random)


@dataclass
class Estimator:
    """Per opponent, which blueprint has predicted its orders best so far in this game."""

    names: tuple[str, ...] = tuple(b.name for b in BLUEPRINTS)
    eta: float = 0.5  # temper of the posterior: log-likelihoods are scaled by this
    floor: float = 0.05  # share of the weight spread evenly, whatever the record
    loglik: dict[str, dict[str, float]] = field(default_factory=dict)  # power -> name -> sum
    units_seen: dict[str, int] = field(default_factory=dict)  # power -> units scored
    _expected: _Expected | None = None

    def expect(
        self,
        phase: str,
        forecasts: Mapping[str, Forecast],
        legal: Mapping[str, int],
        uniform: frozenset[str] = frozenset({"random"}),
    ) -> None:
        """Keep this phase's forecasts (and each unit's number of legal orders) to score
        them when its results arrive."""
        self._expected = _Expected(phase, dict(forecasts), dict(legal), uniform)

    def observe(self, phase: str, played: Mapping[str, Sequence[Order]]) -> bool:
        """Score the forecasts of ``phase`` against the orders each power ``played`` there;
        False (and nothing learnt) if no forecast of that phase is kept."""
        exp = self._expected
        if exp is None or exp.phase != phase:
            return False
        self._expected = None
        for power, orders in played.items():
            actual = _by_unit(orders)
            if not actual:
                continue
            totals = self.loglik.setdefault(power, dict.fromkeys(self.names, 0.0))
            for name in self.names:
                # A blueprint not forecast this phase (no time) is scored as uniformly random
                # play would be: neither credit nor blame beyond that baseline.
                uniform = name in exp.uniform or name not in exp.forecasts
                draws = (
                    []
                    if uniform
                    else [_by_unit(d) for d in exp.forecasts.get(name, {}).get(power) or ()]
                )
                totals[name] += sum(
                    math.log(_odds(draws, prov, text, exp.legal.get(prov, 1), uniform))
                    for prov, text in actual.items()
                )
            self.units_seen[power] = self.units_seen.get(power, 0) + len(actual)
        return True

    def weights(self, power: str) -> dict[str, float]:
        """Each blueprint's weight for ``power`` (they sum to 1; equal with no history)."""
        n = len(self.names)
        totals = self.loglik.get(power)
        if not totals:
            return dict.fromkeys(self.names, 1.0 / n)
        top = max(totals.values())
        raw = {k: math.exp(self.eta * (v - top)) for k, v in totals.items()}
        s = sum(raw.values())
        return {k: (1.0 - self.floor) * raw[k] / s + self.floor / n for k in self.names}

    def best(self, power: str) -> str:
        """The blueprint weighed most for ``power`` (the first listed on a tie)."""
        w = self.weights(power)
        return max(self.names, key=lambda k: (w[k], -self.names.index(k)))


def _odds(
    draws: Sequence[Mapping[str, str]], prov: str, text: str, legal: int, uniform: bool
) -> float:
    """The odds a blueprint gave a unit's order ``text``; ``draws``: its draws of the unit's
    power, each by unit province (:func:`_by_unit`)."""
    legal = max(1, legal)
    if uniform:
        return 1.0 / legal
    made = [d.get(prov) for d in draws]
    if not made:
        return 1.0 / legal
    hits = sum(1 for t in made if t == text)
    return (1.0 - SPREAD) * hits / len(made) + SPREAD / legal


def scenarios(
    estimator: Estimator,
    forecast: Mapping[str, Forecast],
    others: Sequence[str],
    count: int,
    rng: random.Random,
) -> list[dict[str, list[Order]]]:
    """``count`` scenarios: each power of ``others`` plays, in each, the orders of a blueprint
    drawn with its weight for that power (the draws of a blueprint are used in turn)."""
    used: Counter[tuple[str, str]] = Counter()
    out: list[dict[str, list[Order]]] = []
    for _ in range(count):
        scenario: dict[str, list[Order]] = {}
        for power in others:
            w = estimator.weights(power)
            names = [k for k in estimator.names if forecast.get(k, {}).get(power)]
            if not names:
                continue
            name = rng.choices(names, [w[k] for k in names])[0]
            draws = forecast[name][power]
            scenario[power] = list(draws[used[(name, power)] % len(draws)])
            used[(name, power)] += 1
        out.append(scenario)
    return out


def starting_orders(
    estimator: Estimator, forecast: Mapping[str, Forecast], power: str
) -> list[Order] | None:
    """``power``'s orders from the blueprint weighed most for it (its first draw)."""
    w = estimator.weights(power)
    for name in sorted(estimator.names, key=lambda k: (-w[k], estimator.names.index(k))):
        draws = forecast.get(name, {}).get(power)
        if draws:
            return list(draws[0])
    return None
