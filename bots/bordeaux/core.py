"""The Bordeaux search as a strategic core for the negotiator (``--negotiate``): alliances are
summed in its evaluator, a plan's constraints filter every power's candidate orders, and a
question gets a share of a decision's ``--think`` (or ``--nodes``)."""

from __future__ import annotations

from collections.abc import Sequence

from diplomat.bots.base import View
from diplomat.bots.bordeaux.bot import Bordeaux
from diplomat.bots.bordeaux.budget import Budget
from diplomat.bots.bordeaux.constraints import Constraints
from diplomat.bots.bordeaux.evaluate import Evaluator
from diplomat.bots.corekit import BoardCore, attacks
from diplomat.bots.negotiator.core import Answer, Plan
from diplomat.engine.orders import Order


def constraints_for(plan: Plan, view: View) -> Constraints:
    """A plan as the Bordeaux search's constraints (attacks on protected provinces become
    forbidden orders)."""
    power = view.power
    bound = plan.dmz_powers | {power} | plan.allies if plan.dmz else None
    return Constraints(
        allies=plan.allies - {power},
        dmz=plan.dmz,
        dmz_powers=frozenset(bound) if bound is not None else None,
        required=plan.required,
        forbidden=plan.forbidden | attacks(view, plan),
    )


class BordeauxCore(BoardCore):
    """Bordeaux, answering the negotiator's questions (:class:`bots.negotiator.core.Core`)."""

    name = "Bordeaux"

    def __init__(self, bot: Bordeaux) -> None:
        super().__init__()
        self.bot = bot

    def think(self) -> float:
        return self.bot.decision_seconds()

    def _budget(self, view: View, share: float) -> Budget:
        full = self.bot.budget(view)
        nodes = None if full.nodes is None else max(1, int(full.nodes * share))
        return Budget(full.seconds * share, nodes, full.hard * share)

    def value(self, view: View, groups: Sequence[frozenset[str]]) -> list[float]:
        ev = Evaluator(view.state, groups, self.bot.params)
        return ev.values(view.state.units, fall=False)

    def best(self, view: View, plan: Plan, share: float) -> Answer:
        view = self.common(view)
        c = constraints_for(plan, view)
        chosen, stats = self.bot.decide(view, c, self._budget(view, share))
        if stats is not None and stats.values:
            value = stats.values[0]
        else:
            groups = c.alliances(view.power, view.map.powers)
            value = self.value(view, groups)[0]
        return Answer(chosen, value)

    def silent(self, view: View) -> list[Order]:
        return self.bot.orders(view)


__all__ = ["BordeauxCore", "constraints_for"]
