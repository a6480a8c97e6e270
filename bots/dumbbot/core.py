"""DumbBot's heuristic as a strategic core for the negotiator (``--negotiate``), with the
alliance tactics the original never needed: allies' centres are no targets and their units no
threat, zones agreed demilitarised are barred, agreed orders replace the greedy ones, and idle
allied units support each other's moves."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from diplomat.bots.base import View
from diplomat.bots.corekit import BoardCore, attacks
from diplomat.bots.dumbbot.bot import DumbBot, Evaluation
from diplomat.bots.negotiator.core import Answer, Plan, protected
from diplomat.engine.map import province_of
from diplomat.engine.orders import Hold, Move, Order, SupportMove, Waive, order_power
from diplomat.engine.state import GameState
from diplomat.protocol import agreements as law

UNIT_WORTH = 0.1  # a unit is worth a tenth of a centre (a tie-breaker)
BARRED = -(10**12)  # the value of a node our alliance has agreed to keep out of
THINK = 0.05  # seconds a decision takes, about (what talk windows are measured in)


class DumbCore(BoardCore):
    """DumbBot answering the negotiator's questions (:class:`bots.negotiator.core.Core`): a
    position's value is the centres each alliance holds after every power plays DumbBot's
    orders (one adjudication)."""

    name = "DumbBot"

    def __init__(self, bot: DumbBot) -> None:
        super().__init__()
        self.bot = bot

    def think(self) -> float:
        return THINK

    def _barred(self, ev: Evaluation, dmz: frozenset[str]) -> Evaluation:
        if not dmz:
            return ev
        prov = ev.graph.province
        values = tuple(BARRED if prov[i] in dmz else v for i, v in enumerate(ev.values))
        return replace(ev, values=values)

    def _alliance_orders(self, view: View, plan: Plan) -> dict[str, list[Order]]:
        """Every power's orders: our alliance's under the plan, the others' DumbBot's own."""
        state, me = view.state, view.power
        alliance = frozenset({me, *plan.allies})
        bound = plan.dmz_powers | alliance
        out: dict[str, list[Order]] = {}
        for p in state.map.powers:
            if not any(u.power == p for u in state.units.values()):
                continue
            ev = self.bot.evaluate(state, p, alliance - {p} if p in alliance else frozenset())
            if p in bound:
                ev = self._barred(ev, plan.dmz)
            if p in alliance:
                ev = self._barred(ev, protected(state, p, plan.friends | alliance))
            out[p] = self.bot.orders_for(state, p, ev, view.rng)
        _require(out, plan.required, state)
        _forbid(out, plan.forbidden | attacks(view, plan))
        _support_allies(view, out, alliance)
        return out

    def value(self, view: View, groups: Sequence[frozenset[str]]) -> list[float]:
        view = self.common(view)
        state = view.state
        if view.kind != "movement":
            return _held(state, state.units, groups)
        orders: dict[str, list[Order]] = {}
        for g in groups:
            for p in sorted(g):  # in a fixed order: the draws follow it
                if any(u.power == p for u in state.units.values()):
                    ev = self.bot.evaluate(state, p, g - {p})
                    orders[p] = self.bot.orders_for(state, p, ev, view.rng)
        after = view.position.adjudicate(orders).state
        return _held(state, after.units, groups)

    def best(self, view: View, plan: Plan, share: float) -> Answer:
        view = self.common(view)
        state, me = view.state, view.power
        alliance = frozenset({me, *plan.allies})
        groups = [alliance, *(frozenset({p}) for p in state.map.powers if p not in alliance)]
        if view.kind != "movement":
            barred = plan.dmz | protected(state, me, plan.friends | alliance)
            ev = self._barred(self.bot.evaluate(state, me, alliance - {me}), barred)
            mine = self.bot.orders_for(state, me, ev, view.rng)
            return Answer(mine, _held(state, state.units, groups)[0])
        orders = self._alliance_orders(view, plan)
        after = view.position.adjudicate(orders).state
        ours = [o for p in sorted(alliance) for o in orders.get(p, [])]
        return Answer(ours, _held(state, after.units, groups)[0])

    def silent(self, view: View) -> list[Order]:
        return self.bot.orders(view)


def _held(
    state: GameState, units: Mapping[str, object], groups: Sequence[frozenset[str]]
) -> list[float]:
    """Centres each group holds when ``units`` stand on the board (an occupant takes its
    centre), plus a little for each unit."""
    group_of = {p: i for i, g in enumerate(groups) for p in g}
    val = [0.0] * len(groups)
    for sc in state.map.supply_centres:
        u = units.get(sc)
        owner = getattr(u, "power", None) or state.centres.get(sc)
        i = group_of.get(owner) if owner is not None else None
        if i is not None:
            val[i] += 1.0
    for u in units.values():
        i = group_of.get(getattr(u, "power", ""))
        if i is not None:
            val[i] += UNIT_WORTH
    return val


def _require(out: dict[str, list[Order]], required: Sequence[Order], state: GameState) -> None:
    """The agreed orders in place of the greedy ones for the same units."""
    for order in required:
        p = order_power(order)
        if p not in out or isinstance(order, Waive):
            continue
        unit = order.unit
        if state.units.get(unit.province) != unit:
            continue
        out[p] = [o for o in out[p] if getattr(o, "unit", None) != unit] + [order]


def _forbid(out: dict[str, list[Order]], forbidden: frozenset[Order]) -> None:
    """A hold in place of each order agreed not to be given."""
    if not forbidden:
        return

    def barred(o: Order) -> bool:  # the order, or one the law says does the same
        return o in forbidden or any(law.same_order(f, o) for f in forbidden)

    for p, orders in out.items():
        out[p] = [Hold(o.unit) if not isinstance(o, Waive) and barred(o) else o for o in orders]


def _support_allies(view: View, out: dict[str, list[Order]], alliance: frozenset[str]) -> None:
    """An allied unit left holding supports a move of another member of the alliance into a
    province next to it, when that is a legal order."""
    if len(alliance) < 2:
        return
    moves = {
        (o.unit, province_of(o.dest)): o
        for p in alliance
        for o in out.get(p, [])
        if isinstance(o, Move)
    }
    if not moves:
        return
    taken: set[str] = set()
    for p in sorted(alliance):
        legal = view.position.legal(p)
        orders = out.get(p, [])
        for i, o in enumerate(orders):
            if not isinstance(o, Hold):
                continue
            for cand in legal.get(o.unit.loc, ()):
                if (
                    isinstance(cand, SupportMove)
                    and cand.target.power != p
                    and cand.target.power in alliance
                    and (cand.target, province_of(cand.dest)) in moves
                    and province_of(cand.dest) not in taken
                ):
                    orders[i] = cand
                    taken.add(province_of(cand.dest))
                    break


__all__ = ["DumbCore"]
