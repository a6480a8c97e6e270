"""The two strategic cores the negotiator plugs into: the Bordeaux search and DumbBot's
heuristic. Each answers the questions of :class:`bots.negotiator.core.Core`."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import replace

from bots.base import View
from bots.bordeaux.bot import Bordeaux
from bots.bordeaux.budget import Budget
from bots.bordeaux.constraints import Constraints
from bots.bordeaux.evaluate import Evaluator
from bots.dumbbot import (
    DumbBot,
    Evaluation,
    build_orders,
    evaluate,
    movement_orders,
    removal_orders,
    retreat_orders,
    weights_for,
)
from bots.negotiator.core import Answer, Plan, protected
from engine.map import province_of
from engine.orders import (
    Hold,
    Move,
    Order,
    SupportMove,
    Waive,
    order_power,
)
from engine.state import GameState
from protocol import agreements as law

UNIT_WORTH = 0.1  # DumbCore: a unit is worth a tenth of a centre (tie-breaker)
BARRED = -(10**12)  # DumbCore: the value of a node our alliance has agreed to keep out of


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


def attacks(view: View, plan: Plan) -> frozenset[Order]:
    """The alliance's legal orders that attack another friend by the law of agreements
    (:func:`protocol.agreements.attack`: a move into, or support or a convoy of a stranger
    into, a province with a friend's unit or a centre a friend owns)."""
    if view.kind == "adjustment" or len(plan.friends) < 2:
        return frozenset()  # a build attacks nobody; a move or a retreat may
    out: set[Order] = set()
    for q in plan.allies | {view.power}:
        protect = law.protected(view.state, q, plan.friends)
        if not protect:
            continue
        for orders in view.position.legal(q).values():
            out |= {o for o in orders if law.attack(o, protect, plan.friends - {q})}
    return frozenset(out)


class _Common:
    """Common random numbers: every question of a phase draws from a source seeded the same
    way (once a phase, from the game's seeded source), so that the difference between two
    answers is the constraints', not the dice's."""

    def __init__(self) -> None:
        self._phase = ""
        self._seed = 0

    def _view(self, view: View) -> View:
        if view.phase.name != self._phase:
            self._phase = view.phase.name
            self._seed = view.rng.getrandbits(64)
        return replace(view, rng=random.Random(self._seed))


class BordeauxCore(_Common):
    """The Bordeaux search: alliances are summed in its evaluator, constraints filter every
    power's candidate orders, and a question gets a share of ``--think`` (or ``--nodes``)."""

    name = "Bordeaux"

    def __init__(self, bot: Bordeaux) -> None:
        super().__init__()
        self.bot = bot

    def think(self) -> float:
        b = self.bot
        if b.think is not None:
            return b.think
        if b.nodes is not None:
            return min(10.0, b.nodes / b.params.nodes_per_second)
        return 1.0

    def _budget(self, view: View, share: float) -> Budget:
        full = self.bot.budget(view)
        nodes = None if full.nodes is None else max(1, int(full.nodes * share))
        return Budget(full.seconds * share, nodes, full.hard * share)

    def value(self, view: View, groups: Sequence[frozenset[str]]) -> list[float]:
        ev = Evaluator(view.state, groups, self.bot.params)
        return ev.values(view.state.units, fall=False)

    def best(self, view: View, plan: Plan, share: float) -> Answer:
        view = self._view(view)
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

    def tension(self, view: View, a: str, b: str) -> float:
        return tension(view.state, a, b)


class DumbCore(_Common):
    """DumbBot's heuristic as a core: allies' centres are no targets and their units no
    threat (``evaluate``'s ``friends``), zones agreed demilitarised are valued so low that no
    unit of ours goes or stays there, required orders replace the greedy ones, idle allied
    units support each other's moves; a position's value is the centres each alliance holds
    after every power plays DumbBot's orders (one adjudication)."""

    name = "DumbBot"

    def __init__(self, bot: DumbBot) -> None:
        super().__init__()
        self.bot = bot

    def think(self) -> float:
        return 0.05

    def _eval(self, state: GameState, power: str, friends: frozenset[str]) -> Evaluation:
        p = self.bot.params  # its weight set (--weights, --param)
        return evaluate(
            state, power, weights_for(state, power, p), self.bot.neutral_pool, p, friends=friends
        )

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
            friends = alliance - {p} if p in alliance else frozenset()
            ev = self._eval(state, p, friends)
            if p in bound:
                ev = self._barred(ev, plan.dmz)
            if p in alliance:
                ev = self._barred(ev, protected(state, p, plan.friends | alliance))
            out[p] = movement_orders(state, p, ev, view.rng, self.bot.collapse, self.bot.params)
        _require(out, plan.required, state)
        _forbid(out, plan.forbidden | attacks(view, plan))
        _support_allies(view, out, alliance)
        return out

    def value(self, view: View, groups: Sequence[frozenset[str]]) -> list[float]:
        view = self._view(view)
        state = view.state
        if view.kind != "movement":
            return _held(state, state.units, groups)
        orders: dict[str, list[Order]] = {}
        for g in groups:
            for p in g:
                if any(u.power == p for u in state.units.values()):
                    ev = self._eval(state, p, g - {p})
                    orders[p] = movement_orders(
                        state, p, ev, view.rng, self.bot.collapse, self.bot.params
                    )
        after = view.position.adjudicate(orders).state
        return _held(state, after.units, groups)

    def best(self, view: View, plan: Plan, share: float) -> Answer:
        view = self._view(view)
        state, me = view.state, view.power
        alliance = frozenset({me, *plan.allies})
        groups = [alliance, *(frozenset({p}) for p in state.map.powers if p not in alliance)]
        if view.kind != "movement":
            barred = plan.dmz | protected(state, me, plan.friends | alliance)
            ev = self._barred(self._eval(state, me, alliance - {me}), barred)
            rng, keep = view.rng, self.bot.collapse
            if view.kind == "retreat":
                mine = retreat_orders(state, me, ev, rng, keep, self.bot.params)
            elif view.adjustment < 0:
                mine = removal_orders(state, me, ev, rng, keep, self.bot.params)
            else:
                mine = build_orders(state, me, ev, rng, keep, self.bot.params)
            return Answer(mine, _held(state, state.units, groups)[0])
        orders = self._alliance_orders(view, plan)
        after = view.position.adjudicate(orders).state
        ours = [o for p in sorted(alliance) for o in orders.get(p, [])]
        return Answer(ours, _held(state, after.units, groups)[0])

    def silent(self, view: View) -> list[Order]:
        return self.bot.orders(view)

    def tension(self, view: View, a: str, b: str) -> float:
        return tension(view.state, a, b)


def tension(state: GameState, a: str, b: str) -> float:
    """How much ``a`` and ``b`` threaten each other: the centres of each (owned, or home
    centres not yet owned by anyone) that the other's units can reach within two moves."""
    gmap = state.map

    def near(power: str) -> set[str]:
        out: set[str] = set()
        for u in state.units.values():
            if u.power != power:
                continue
            for loc in (u.loc, *gmap.moves(u.type, u.loc)):
                out |= set(gmap.reach(u.type, loc))
        return out

    def centres(power: str) -> set[str]:
        owned = {c for c, p in state.centres.items() if p == power}
        return owned | {h for h in gmap.homes.get(power, ()) if h not in state.centres}

    return float(len(near(a) & centres(b)) + len(near(b) & centres(a)))


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
    for order in required:
        p = order_power(order)
        if p not in out or isinstance(order, Waive):
            continue
        unit = order.unit
        if state.units.get(unit.province) != unit:
            continue
        out[p] = [o for o in out[p] if getattr(o, "unit", None) != unit] + [order]


def _forbid(out: dict[str, list[Order]], forbidden: frozenset[Order]) -> None:
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


__all__ = ["BordeauxCore", "DumbCore", "attacks", "constraints_for", "tension"]
