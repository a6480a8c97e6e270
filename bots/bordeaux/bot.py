"""Bordeaux: a searching DAIDE bot after the Bordeaux Diplomat (Loeb, 1992-1995).

    python -m diplomat.bots.bordeaux [--host H --port P | --stdio] [--seed N] [--power POW]
                            [--think SECONDS | --nodes N] [--param NAME=VALUE ...]
                            [--ally POW ...] [--dmz PROV ...]

Movement phases: Refined Evolutionary Search (``bots.bordeaux.search``) over every alliance's
orders, valued by a cheap evaluator (``bots.bordeaux.evaluate``). Retreats: a complete search
per component (``retreats``). Adjustments: a preliminary search per power, then a combined
search to an equilibrium (``adjustments``). Every constant is a parameter
(``bots.bordeaux.params``); alliances and constraints are an input (``constraints``).
"""

from __future__ import annotations

import argparse
import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass

from diplomat.bots.argtypes import count, seconds
from diplomat.bots.base import Bot, View
from diplomat.bots.bordeaux.adapter import EngineView
from diplomat.bots.bordeaux.adjustments import adjustment_orders
from diplomat.bots.bordeaux.budget import Budget
from diplomat.bots.bordeaux.constraints import Constraints
from diplomat.bots.bordeaux.evaluate import Evaluator
from diplomat.bots.bordeaux.models import Estimator, forecasts, scenarios, starting_orders
from diplomat.bots.bordeaux.params import Params, describe, parse_overrides
from diplomat.bots.bordeaux.retreats import retreat_orders
from diplomat.bots.bordeaux.search import RES, SearchStats
from diplomat.bots.dumbbot import Evaluation, evaluate, movement_orders, weights_for
from diplomat.bots.tunable import param_item
from diplomat.engine.map import province_of
from diplomat.engine.orders import Order, Waive, order_power

log = logging.getLogger("bots")

DEFAULT_THINK = 1.0
# Of each decision's seconds, this much is kept back from the search (a share and a fixed
# part). What follows the search takes half a millisecond on a quiet machine; a pause of the
# process is kept in hand by the budget itself (Budget.gap). At --think 0.25 a 50 ms + 5 %
# reserve left a quarter of the time unused (decisions took 187 ms of 250).
RESERVE_SECONDS = 0.02
RESERVE_SHARE = 0.03


@dataclass
class Decision:
    """What the last decision cost (for logs, tests and benchmarks)."""

    phase: str
    kind: str
    seconds: float
    nodes: int
    stats: SearchStats | None = None


class Bordeaux(Bot):
    name = "Bordeaux"
    version = "1.0"

    def __init__(
        self,
        params: Params | None = None,
        *,
        think: float | None = None,
        nodes: int | None = None,
        constraints: Constraints | None = None,
    ) -> None:
        """``think``: seconds per phase (default 1 s; with ``nodes`` given, only a cap).
        ``nodes``: a node budget (adjudications and valuations) instead of time."""
        self.params = params or Params()
        self.think = think
        self.nodes = nodes
        self.constraints = constraints or Constraints()
        self.decisions: list[Decision] = []
        self.estimator = self._new_estimator()

    def _new_estimator(self) -> Estimator:
        return Estimator(eta=self.params.model_eta, floor=self.params.model_floor)

    def start(self, view: View) -> None:
        self.estimator = self._new_estimator()  # what it learns about opponents is per game

    # -- the clock ----------------------------------------------------------------------------

    def budget(self, view: View) -> Budget:
        """This phase's budget: ``think`` seconds (or ``nodes``), and never more than a share
        of the server's deadline, less a margin."""
        p = self.params
        cap = math.inf
        deadline = _deadline(view)
        if deadline is not None:
            cap = max(0.0, min(deadline * p.deadline_share, deadline - p.deadline_margin))
        if self.nodes is not None:
            hard = min(cap, self.think if self.think is not None else math.inf)
            if math.isinf(hard):
                # Untimed game and no --think: bound anyway, at a generous guess of the speed.
                hard = max(10.0, 20 * self.nodes / p.nodes_per_second)
            return Budget(_usable(hard), self.nodes, _usable(hard))
        think = DEFAULT_THINK if self.think is None else self.think
        seconds = _usable(min(think, cap))
        return Budget(seconds, None, seconds)

    def decision_seconds(self) -> float:
        """Seconds a whole decision takes with no deadline: ``think``, else what ``nodes``
        take at the expected speed (at most 10 s), else the default."""
        if self.think is not None:
            return self.think
        if self.nodes is not None:
            return min(10.0, self.nodes / self.params.nodes_per_second)
        return DEFAULT_THINK

    # -- orders -------------------------------------------------------------------------------

    def orders(self, view: View) -> list[Order]:
        chosen, _ = self.decide(view, self.constraints, self.budget(view))
        return [o for o in chosen if isinstance(o, Waive) or o.unit.power == view.power]

    def decide(
        self, view: View, c: Constraints, budget: Budget
    ) -> tuple[list[Order], SearchStats | None]:
        """One decision under constraints ``c`` within ``budget``: the orders of our whole
        alliance (ours and our allies' units, as the search found them best for the
        alliance) and, in a movement phase, the search's statistics (``values[0]``: our
        alliance's value). The negotiator asks this with the constraints agreed in press."""
        state, power = view.state, view.power
        groups = c.alliances(power, state.map.powers)
        bound = c.bound(power)
        position = EngineView(state)
        stats: SearchStats | None = None
        if view.kind == "movement":
            dumb = {p: evaluate(state, p, weights_for(state, p)) for p in state.map.powers}
            evaluator = Evaluator(state, groups, self.params, dumb, ours=0)
            defaults = {
                p: movement_orders(state, p, dumb[p], view.rng)
                for p in state.map.powers
                if any(u.power == p for u in state.units.values())
            }
            drawn: list[dict[str, list[Order]]] = []
            if int(self.params.scenarios) > 0:
                drawn = self._scenarios(view, position, defaults, groups[0], budget, dumb)
            search = RES(
                position, groups, evaluator, self.params, c, bound, view.rng, defaults, drawn, power
            )
            budget.resume()  # the set-up above was work, not a pause to keep in hand
            chosen = search.run(budget)
            stats = search.stats
        elif view.kind == "retreat":
            evaluator = Evaluator(state, groups, self.params, ours=0)
            chosen = retreat_orders(position, power, evaluator, c, bound, budget)
        else:
            evaluator = Evaluator(state, groups, self.params, ours=0)
            chosen = adjustment_orders(position, power, evaluator, self.params, c, bound, budget)
        decision = Decision(state.phase.name, view.kind, budget.elapsed(), budget.used, stats)
        self.decisions.append(decision)
        log.info(
            "%s: %d nodes in %.3f s%s",
            decision.phase,
            decision.nodes,
            decision.seconds,
            f", {stats.adoptions} adopted, {stats.cycles} cycles"
            f"{' (mixed)' if stats.mixed else ''}, value {stats.values[0]:.2f}"
            if stats is not None and stats.values
            else "",
        )
        return chosen, stats

    def _scenarios(
        self,
        view: View,
        position: EngineView,
        defaults: dict[str, list[Order]],
        ours: frozenset[str],
        budget: Budget,
        dumb: dict[str, Evaluation],
    ) -> list[dict[str, list[Order]]]:
        """Learn from the last movement phase's results which opponent model predicted each
        power best, forecast this phase with every model, and draw the scenarios from them by
        those weights (``bots.bordeaux.models``). Sets the opponents' starting orders in
        ``defaults`` to their best model's. With ``opponent_models=0``: draws of the standard
        DumbBot's orders only (``dumb``: its evaluations), as before the models."""
        state = view.state
        count = int(self.params.scenarios)
        if not self.params.opponent_models:
            return [
                {p: movement_orders(state, p, dumb[p], view.rng) for p in defaults}
                for _ in range(count)
            ]
        played: dict[str, list[Order]] = {}
        for r in view.movement:
            if r.order is not None and r.turn is not None:
                played.setdefault(order_power(r.order), []).append(r.order)
        turn = next((r.turn for r in view.movement if r.turn is not None), None)
        if turn is not None:
            self.estimator.observe(turn.name, played)
        others = [p for p in defaults if p not in ours]
        forecast = forecasts(state, others, view.rng, position, self.params, budget, standard=dumb)
        legal = {province_of(loc): len(opts) for loc, opts in position.legal().items()}
        self.estimator.expect(state.phase.name, forecast, legal)
        for p in others:
            start = starting_orders(self.estimator, forecast, p)
            if start is not None:
                defaults[p] = start
        return scenarios(self.estimator, forecast, others, count, view.rng)

    # -- the command line ---------------------------------------------------------------------

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        parser.formatter_class = argparse.RawDescriptionHelpFormatter
        parser.epilog = "parameters (--param NAME=VALUE), default [range]:\n" + "\n".join(
            "  " + line for line in describe().splitlines()
        )
        group = parser.add_argument_group("Bordeaux")
        group.add_argument(
            "--think",
            type=seconds,
            default=None,
            help=f"seconds of thought per phase, never exceeded (default {DEFAULT_THINK:g}; "
            "always less than the server's deadline)",
        )
        group.add_argument(
            "--nodes",
            type=count,
            default=None,
            help="a budget of N nodes per phase instead of time: with --seed, games repeat "
            "exactly (--think, if given, still caps the time)",
        )
        group.add_argument(
            "--param",
            action="append",
            default=[],
            type=param_item(Params),
            metavar="NAME=VALUE",
            help="set a parameter (repeatable; the list is below)",
        )
        group.add_argument(
            "--ally",
            action="append",
            default=[],
            type=str.upper,
            metavar="POW",
            help="a power whose value is summed with ours (repeatable)",
        )
        group.add_argument(
            "--dmz",
            action="append",
            default=[],
            type=str.upper,
            metavar="PROV",
            help="a demilitarised province our alliance keeps out of (repeatable)",
        )

    @classmethod
    def from_arguments(cls, args: argparse.Namespace) -> Bordeaux:
        params = parse_overrides(args.param)
        constraints = Constraints(allies=frozenset(args.ally), dmz=frozenset(args.dmz))
        return cls(params, think=args.think, nodes=args.nodes, constraints=constraints)


def _usable(seconds: float) -> float:
    """The seconds the search may take of ``seconds``: what follows it (the last node, a
    cycle's small game, writing the orders) and a loaded machine's scheduling must fit in the
    rest, so the whole decision stays within the limit."""
    return max(seconds * 0.5, seconds - (RESERVE_SECONDS + RESERVE_SHARE * seconds))


def _deadline(view: View) -> float | None:
    v = view.variant
    if v is None:
        return None
    limit = {"movement": v.mtl, "retreat": v.rtl, "adjustment": v.btl}[view.kind]
    return float(limit) if limit else None


__all__: Sequence[str] = ("Bordeaux", "Decision")
