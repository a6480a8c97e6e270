"""Refined Evolutionary Search (RES) for a movement phase.

Every alliance starts from default orders (DumbBot's greedy orders, the supports turned back
into the moves they stand for). Then, alliance after alliance in turn, the search mutates the
alliance's last *raw* best orders (moves and holds only): ``n`` of its units, chosen at random,
get a random move or hold, with ``n`` falling from all its units to one as the budget is spent
(the "refined" part: big jumps early, fine changes late). An army next to a chain of its
alliance's fleets at sea may also be convoyed along it to a province it cannot walk to: the
fleets on the route then convoy it (a fleet just given another order wins over an army that
wanted it; otherwise the newest order wins). Supports are then made inside the
alliance (two units moving to one province: one supports the other; a unit moving where an
ally stays: a support to hold), swaps between allies are dropped unadjudicated, and the
orders are adjudicated by the engine against every other alliance's current best. When the
alliance's value rises, it adopts them, and every alliance's current value is updated (the
others now answer a changed opponent).

When nobody can improve the search stands at a pure equilibrium; when there is none it
cycles. Each adopted joint order set is hashed; a repeat means a cycle, and if the search is
still inside it at the end, the order sets in the cycle form a small game (every combination
adjudicated) solved by regret matching, and our orders are sampled from our averaged mixed
strategy instead of taken at whatever point the cycle was stopped.
"""

from __future__ import annotations

import logging
import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import product

from diplomat.bots.bordeaux.adapter import EngineView
from diplomat.bots.bordeaux.budget import Budget
from diplomat.bots.bordeaux.constraints import Constraints
from diplomat.bots.bordeaux.evaluate import Evaluator
from diplomat.bots.bordeaux.params import Params
from diplomat.engine.convoy import find_route, fleet_mask
from diplomat.engine.map import province_of
from diplomat.engine.orders import (
    Convoy,
    Hold,
    Move,
    Order,
    SupportHold,
    SupportMove,
    Waive,
    order_key,
)
from diplomat.engine.state import Unit

log = logging.getLogger("bots")

Orders = dict[str, Order]  # unit province -> order
Routes = dict[tuple[str, str], tuple[str, ...]]  # (army's province, destination) -> fleets' seas
MAX_IDLE = 2000  # mutations in a row that cost no adjudication: the search has nothing to try


@dataclass
class SearchStats:
    nodes: int = 0
    adjudications: int = 0  # nodes not answered from the values remembered
    adoptions: int = 0
    cycles: int = 0
    mixed: bool = False
    values: list[float] = field(default_factory=list)


class RES:
    """One movement decision. ``defaults`` gives each power's starting orders."""

    def __init__(
        self,
        position: EngineView,
        groups: Sequence[frozenset[str]],
        evaluator: Evaluator,
        params: Params,
        constraints: Constraints,
        bound: frozenset[str],
        rng: random.Random,
        defaults: Mapping[str, Sequence[Order]],
        scenarios: Sequence[Mapping[str, Sequence[Order]]] = (),
        me: str | None = None,
        remember: bool = True,
    ) -> None:
        """``scenarios``: more order sets the other powers might play (e.g. other draws of
        their default orders); our alliance's value is then partly (``scenario_weight``) the
        mean over them, so its orders are good against more than one prediction. ``me``: the
        power the decision is for; our allies' units out of its units' reach keep their
        default orders (:meth:`_out_of_contact`). ``remember``: keep the values computed, to
        answer a candidate seen again without adjudicating it (off: only to measure that)."""
        self.position = position
        self.state = position.state
        self.groups = list(groups)
        self.evaluator = evaluator
        self.params = params
        self.rng = rng
        self.fall = self.state.phase.season == "FAL"
        self.stats = SearchStats()
        self.budget: Budget | None = None
        self.group_of = {p: i for i, g in enumerate(self.groups) for p in g}
        self.options, self.allowed, self.fixed = self._choices(constraints, bound)
        self.routes = self._convoy_routes()
        self.weights = self._mutation_weights()
        self.units_of = self._units_by_group()
        self.idle = self._out_of_contact(me)
        self.raw, self.best = self._starting_points(defaults)
        # Values already computed, by the hash of the order set valued (as cycles are found
        # below): a search revisits many candidates (most of them in the first years, when
        # units have few options), and a repeat costs a lookup instead of an adjudication.
        # A repeat still counts as a node, so that a node budget plays exactly as without.
        self.remember = remember
        self._known: dict[int, list[float]] = {}
        self._known_scenario: dict[int, float] = {}
        self.values = self._evaluate(self._joint())
        ours = set(self.units_of[0])
        self.scenarios: list[Orders] = [
            {p: o for p, o in _by_unit(sc).items() if p not in ours} for sc in scenarios
        ]
        self.weight = self.params.scenario_weight if self.scenarios else 0.0
        self.scenario_value = self._scenario_value(self.best[0])

    def _choices(
        self, constraints: Constraints, bound: frozenset[str]
    ) -> tuple[dict[str, list[Order]], dict[str, set[Order]], set[str]]:
        """Per unit's province: its mutation choices (holds and moves without convoy), every
        order the constraints leave it (to check the supports made), and the provinces whose
        one order is required."""
        units = self.state.units
        legal = constraints.filter(self.position.legal(), bound)
        required = {o.unit.province for o in constraints.required if not isinstance(o, Waive)}
        options: dict[str, list[Order]] = {}
        allowed: dict[str, set[Order]] = {}
        fixed: set[str] = set()
        for loc, orders in legal.items():
            prov = province_of(loc)
            allowed[prov] = set(orders)
            unit = units[prov]
            reach = self.state.map.reach(unit.type, unit.loc)
            opts: list[Order] = [
                o
                for o in orders
                if isinstance(o, Hold)
                or (isinstance(o, Move) and not o.convoy and province_of(o.dest) in reach)
            ]
            if len(orders) == 1 and prov in required:
                fixed.add(prov)
                opts = list(orders)
            options[prov] = opts or [orders[0]]
        return options, allowed, fixed

    def _convoy_routes(self) -> Routes:
        """Adds to the armies' choices the moves by convoy along a chain of their alliance's
        own fleets (the search plays only its alliances' orders, so another power's fleet
        is no route), to provinces the army cannot walk to; returns each such move's route.
        A route through a fleet whose order is fixed, or whose convoy order the constraints
        forbid, is none. With ``convoys=0``, no army is convoyed."""
        if not self.params.convoys:
            return {}
        units, gmap = self.state.units, self.state.map
        fleets = [
            fleet_mask(gmap, ((u.type, u.loc) for u in units.values() if u.power in g))
            for g in self.groups
        ]
        group_of = self.group_of
        routes: Routes = {}
        for prov in sorted(self.options):
            army = units[prov]
            g = group_of.get(army.power)
            if army.type != "A" or g is None or not fleets[g] or prov in self.fixed:
                continue
            walk = gmap.reach("A", army.loc)
            for o in sorted(self.allowed[prov], key=str):
                if not isinstance(o, Move) or not o.convoy or o.dest in walk:
                    continue
                route = find_route(gmap, fleets[g], prov, province_of(o.dest))
                if route is None or not all(
                    sea not in self.fixed
                    and Convoy(units[sea], army, o.dest) in self.allowed.get(sea, ())
                    for sea in route
                ):
                    continue
                routes[(prov, o.dest)] = route
                self.options[prov].append(o)
        return routes

    def _mutation_weights(self) -> dict[str, list[float]]:
        """Mutation odds: a move weighs more the better its destination is on the unit's
        power's proximity map, so that the few nodes go to plausible orders first."""
        units, bias = self.state.units, self.params.mutation_bias
        weights: dict[str, list[float]] = {}
        for prov, opts in self.options.items():
            unit = units[prov]
            prox = self.evaluator.prox.get(unit.power, {})
            weights[prov] = [
                1.0 + bias * prox.get((unit.type, o.dest), 0.0) if isinstance(o, Move) else 1.0
                for o in opts
            ]
        return weights

    def _units_by_group(self) -> list[list[str]]:
        """Per group, the provinces of its units that have choices, sorted."""
        units = self.state.units
        group_of = self.group_of
        units_of: list[list[str]] = [[] for _ in self.groups]
        for prov in sorted(units):
            g = group_of.get(units[prov].power)
            if g is not None and prov in self.options:
                units_of[g].append(prov)
        return units_of

    def _starting_points(
        self, defaults: Mapping[str, Sequence[Order]]
    ) -> tuple[list[Orders], list[Orders]]:
        """Per group, its raw starting orders (the defaults, within the choices) and those
        with supports made; all holds when the defaults cannot be made consistent."""
        raws: list[Orders] = []
        bests: list[Orders] = []
        given = _by_unit(defaults)
        for g in range(len(self.groups)):
            raw = {p: self._raw_of(p, given.get(p)) for p in self.units_of[g]}
            self._agree(raw, set())
            prev = {p: o for p in self.units_of[g] if (o := given.get(p)) is not None}
            final = self._supports(raw, prev, set())
            if final is None:
                raw = {p: self._hold(p) for p in self.units_of[g]}
                final = dict(raw)
            raws.append(raw)
            bests.append(final)
        return raws, bests

    def _out_of_contact(self, me: str | None) -> frozenset[str]:
        """Our allies' units (by province) that no unit of ``me`` can meet: neither can reach
        a province the other can, nor stands where the other can reach. Only our alliance's
        choices decide the orders we play, so mutating a far ally's units would spend our
        nodes on orders that change nothing of ours (the ally plays its own search's); they
        keep their default orders, and the nodes go to our units and the allies' beside them.
        """
        if me is None or len(self.groups[0]) < 2:
            return frozenset()
        units, gmap = self.state.units, self.state.map
        ours: set[str] = set()
        for p in self.units_of[0]:
            u = units[p]
            if u.power == me:
                ours |= gmap.reach(u.type, u.loc) | {p}
        return frozenset(
            p
            for p in self.units_of[0]
            if units[p].power != me and not (gmap.reach(units[p].type, units[p].loc) | {p}) & ours
        )

    # -- the search ---------------------------------------------------------------------

    def run(self, budget: Budget) -> list[Order]:
        """Search until the budget is spent; return the first alliance's orders (ours)."""
        self.budget = budget
        active = [g for g in range(len(self.groups)) if self._mutable(g)]
        schedule: list[int] = []
        if 0 in active:
            schedule += [0] * int(self.params.own_turns)
        schedule += [g for g in active if g != 0]
        hashes = [_hash(b) for b in self.best]
        seen: dict[tuple[int, ...], int] = {tuple(hashes): 0}
        history: list[tuple[tuple[int, ...], tuple[Orders, ...]]] = [
            (tuple(hashes), tuple(self.best))
        ]
        cycle: list[tuple[tuple[int, ...], tuple[Orders, ...]]] | None = None
        cycle_keys: set[tuple[int, ...]] = set()
        idle = 0
        i = 0
        keep = self.params.cycle_share  # of the budget, to solve a cycle's game at the end
        while schedule and not budget.out() and idle < MAX_IDLE:
            if cycle is not None and budget.spent() >= 1.0 - keep and tuple(hashes) in cycle_keys:
                break
            g = schedule[i % len(schedule)]
            i += 1
            adopted = self._mutate(g, budget)
            if adopted is None:
                idle += 1
                continue
            idle = 0
            if not adopted:
                continue
            hashes[g] = _hash(self.best[g])
            key = tuple(hashes)
            if key in seen:
                cycle = history[seen[key] :]
                cycle_keys = {k for k, _ in cycle}
                self.stats.cycles += 1
            seen[key] = len(history)
            history.append((key, tuple(self.best)))
        self.stats.nodes = budget.used
        self.stats.values = list(self.values)
        ours = self.best[0]
        if cycle is not None and tuple(hashes) in cycle_keys:
            mixed = self._mixed(cycle, budget)
            if mixed is not None:
                self.stats.mixed = True
                ours = mixed
        return [self._routed(ours[p]) for p in sorted(ours)]

    def _routed(self, order: Order) -> Order:
        """A move by convoy with the route our fleets convoy it on (what DAIDE's VIA says;
        another power's fleets may offer a shorter one that ours do not take)."""
        if type(order) is Move and order.convoy:
            route = self.routes.get((order.unit.province, order.dest))
            if route is not None:
                return Move(order.unit, order.dest, True, route)
        return order

    def _mutable(self, g: int) -> bool:
        return any(
            p not in self.fixed and p not in self.idle and len(self.options[p]) > 1
            for p in self.units_of[g]
        )

    def _mutate(self, g: int, budget: Budget) -> bool | None:
        """One mutation of alliance ``g``: True adopted, False not, None not adjudicated."""
        free = [p for p in self.units_of[g] if p not in self.fixed and p not in self.idle]
        rate = max(self.params.min_rate, 1.0 - budget.spent())
        n = max(1, min(len(free), math.ceil(len(free) * rate)))
        picked = self.rng.sample(free, n)
        raw = dict(self.raw[g])
        for p in picked:
            raw[p] = self.rng.choices(self.options[p], self.weights[p])[0]
        if self.routes:
            self._agree(raw, set(picked))
        if raw == self.raw[g]:
            return None
        final = self._supports(raw, self.best[g], set(picked))
        if final is None or final == self.best[g]:
            return None
        joint = self._joint()
        joint.update(final)
        values = self._evaluate(joint)
        budget.tick()
        scenario = 0.0
        if g == 0 and self.weight:
            scenario = self._scenario_value(final)
            budget.tick(len(self.scenarios))
        if self._score(g, values, scenario) > self._score(g, self.values, self.scenario_value) + (
            self.params.improve_eps
        ):
            self.raw[g] = raw
            self.best[g] = final
            self.values = values
            if g == 0:
                self.scenario_value = scenario
            self.stats.adoptions += 1
            return True
        return False

    def _score(self, g: int, values: list[float], scenario: float) -> float:
        if g != 0 or not self.weight:
            return values[g]
        return (1.0 - self.weight) * values[g] + self.weight * scenario

    def _scenario_value(self, ours: Orders) -> float:
        """Our alliance's mean value over the scenarios, with ``ours`` as its orders."""
        if not self.scenarios:
            return 0.0
        key = _hash(ours)
        known = self._known_scenario.get(key)
        if known is not None:
            return known
        total = 0.0
        for others in self.scenarios:
            joint = dict(others)
            joint.update(ours)
            total += self._value(joint)[0]
        value = total / len(self.scenarios)
        if self.remember:
            self._known_scenario[key] = value
        return value

    def _joint(self) -> Orders:
        joint: Orders = {}
        for b in self.best:
            joint.update(b)
        return joint

    def _evaluate(self, joint: Orders) -> list[float]:
        key = _hash(joint)
        known = self._known.get(key)
        if known is None:
            known = self._value(joint)
            if self.remember:
                self._known[key] = known
        return known

    def _value(self, joint: Orders) -> list[float]:
        self.stats.adjudications += 1
        out = self.position.adjudicate(joint)
        return self.evaluator.values(out.units, out.dislodged, fall=self.fall)

    # -- raw orders and supports ---------------------------------------------------------------

    def _hold(self, prov: str) -> Order:
        hold = Hold(self.state.units[prov])
        return hold if hold in self.allowed[prov] else self.options[prov][0]

    def _raw_of(self, prov: str, order: Order | None) -> Order:
        """The move or hold a default order stands for (a support: the move it helps)."""
        if prov in self.fixed:
            return self.options[prov][0]
        unit = self.state.units[prov]
        if isinstance(order, SupportHold):
            order = self._move_to(unit, order.target.province)
        elif isinstance(order, SupportMove):
            order = self._move_to(unit, province_of(order.dest))
        if order is not None and order in self.options[prov]:
            return order
        return self._hold(prov)

    def _move_to(self, unit: Unit, dest: str) -> Order | None:
        for o in self.options[unit.province]:
            if isinstance(o, Move) and province_of(o.dest) == dest:
                return o
        return None

    def _convoyed(self, raw: Orders) -> list[tuple[str, Move, tuple[str, ...]]]:
        """The raw moves by convoy: (army's province, move, route)."""
        routes = self.routes
        out: list[tuple[str, Move, tuple[str, ...]]] = []
        for p, o in raw.items():
            if type(o) is Move and o.convoy:
                route = routes.get((p, o.dest))
                if route is not None:
                    out.append((p, o, route))
        return out

    def _agree(self, raw: Orders, picked: set[str]) -> None:
        """Make the raw moves by convoy and their fleets agree, in place: a fleet on a
        route holds in the raw orders (the supports step turns it into the convoy). An order
        just given wins: an army whose route needs a fleet just given a move, or a fleet
        another army's route already took, holds instead; a fleet given a move earlier is
        taken by an army just ordered to convoy. The armies are settled newest first."""
        if not self.routes:
            return
        taken: set[str] = set()
        for p, _, route in sorted(self._convoyed(raw), key=lambda c: (c[0] not in picked, c[0])):
            lost = any(
                sea in taken or (sea in picked and p not in picked and type(raw[sea]) is Move)
                for sea in route
            )
            if lost or not all(sea in raw for sea in route):
                raw[p] = self._hold(p)
                continue
            for sea in route:
                taken.add(sea)
                if type(raw[sea]) is not Hold:
                    raw[sea] = self._hold(sea)

    def _supports(self, raw: Orders, prev: Orders, mutated: set[str]) -> Orders | None:
        """The alliance's orders from its raw moves and holds: convoys given, supports made,
        swaps refused (None)."""
        units = self.state.units
        for p, o in raw.items():
            if isinstance(o, Move):
                back = raw.get(province_of(o.dest))
                if isinstance(back, Move) and province_of(back.dest) == p:
                    return None
        final = dict(raw)
        convoyed = self._convoyed(raw) if self.routes else []
        for _, o, route in convoyed:
            for sea in route:
                final[sea] = Convoy(units[sea], o.unit, o.dest)
        for _ in range(3):  # a unit turned into a supporter stays put: look again
            changed = False
            movers: dict[str, list[str]] = {}
            for p, o in final.items():
                if isinstance(o, Move):
                    movers.setdefault(province_of(o.dest), []).append(p)
            for dest, who in movers.items():
                stays = final.get(dest)
                if stays is not None and not isinstance(stays, Move):
                    for q in who:
                        if q in self.fixed:
                            continue
                        final[q] = self._or_hold(q, SupportHold(units[q], units[dest]))
                        changed = True
                    continue
                if len(who) < 2:
                    continue
                mover = _choose_mover(who, dest, prev, mutated, self.fixed)
                target = final[mover]
                assert isinstance(target, Move)
                for q in who:
                    if q != mover and q not in self.fixed:
                        final[q] = self._or_hold(q, SupportMove(units[q], target.unit, dest))
                        changed = True
            if not changed:
                break
        for p, o, route in convoyed:
            if final[p] != o:  # the army was made a supporter (or holds): no convoy
                for sea in route:
                    final[sea] = raw[sea]
        return final

    def _or_hold(self, prov: str, order: Order) -> Order:
        return order if order in self.allowed[prov] else self._hold(prov)

    # -- cycles --------------------------------------------------------------------------------

    def _mixed(
        self, cycle: list[tuple[tuple[int, ...], tuple[Orders, ...]]], budget: Budget
    ) -> Orders | None:
        """Our orders sampled from the regret-matching solution of the game the cycle's order
        sets form; None if we do not vary in it or there is no time to solve it."""
        n = len(self.groups)
        choices: list[list[Orders]] = []
        for g in range(n):
            distinct: dict[int, Orders] = {}
            for _, bests in cycle:
                distinct.setdefault(_hash(bests[g]), bests[g])
            choices.append(list(distinct.values()))
        if len(choices[0]) < 2:
            return None
        limit = max(1, int(self.params.cycle_profiles))
        while math.prod(len(c) for c in choices) > limit:
            big = max(range(n), key=lambda g: len(choices[g]))
            if len(choices[big]) <= 1:
                break
            choices[big] = choices[big][1:]  # keep the latest
        varying = [g for g in range(n) if len(choices[g]) > 1]
        if 0 not in varying:
            return None
        payoff: dict[tuple[int, ...], list[float]] = {}
        for prof in product(*(range(len(choices[g])) for g in varying)):
            if budget.out():
                return None
            joint: Orders = {}
            for g in range(n):
                joint.update(choices[g][prof[varying.index(g)]] if g in varying else choices[g][0])
            payoff[prof] = self._evaluate(joint)
            budget.tick()
        strategy = _regret_matching(
            [len(choices[g]) for g in varying],
            varying,
            payoff,
            int(self.params.cycle_rounds),
            budget.late,
        )
        mix = strategy[varying.index(0)]
        pick = self.rng.choices(range(len(mix)), weights=mix)[0]
        return choices[0][pick]


def _choose_mover(
    who: list[str], dest: str, prev: Orders, mutated: set[str], fixed: set[str]
) -> str:
    """Of several allied units ordered into one province, the one that moves (the others
    support it): a fixed order, else the unit already moving there, else one not just
    mutated, else the first."""
    for q in who:
        if q in fixed:
            return q
    for q in who:
        o = prev.get(q)
        if isinstance(o, Move) and province_of(o.dest) == dest:
            return q
    for q in who:
        if q not in mutated:
            return q
    return who[0]


def _hash(orders: Orders) -> int:
    return hash(frozenset(orders.items()))


def _regret_matching(
    sizes: list[int],
    players: list[int],
    payoff: dict[tuple[int, ...], list[float]],
    rounds: int,
    stop: Callable[[], bool] = lambda: False,
) -> list[list[float]]:
    """Average strategies of regret matching, every player at once, over a payoff table
    indexed by pure-strategy profiles (``players[k]`` is the alliance of position k)."""
    k = len(sizes)
    regret = [[0.0] * s for s in sizes]
    total = [[0.0] * s for s in sizes]
    profiles = list(payoff)
    for n in range(max(1, rounds)):
        if n % 4 == 3 and stop():
            break  # the averages so far are the answer
        sigma = []
        for r in regret:
            pos = [max(0.0, x) for x in r]
            s = sum(pos)
            sigma.append([x / s for x in pos] if s > 0 else [1.0 / len(r)] * len(r))
        for i in range(k):
            util = [0.0] * sizes[i]
            for prof in profiles:
                w = 1.0
                for j in range(k):
                    if j != i:
                        w *= sigma[j][prof[j]]
                if w:
                    util[prof[i]] += w * payoff[prof][players[i]]
            expected = sum(sigma[i][a] * util[a] for a in range(sizes[i]))
            for a in range(sizes[i]):
                regret[i][a] += util[a] - expected
                total[i][a] += sigma[i][a]
    return [[x / sum(t) for x in t] if sum(t) > 0 else [1.0 / len(t)] * len(t) for t in total]


def _by_unit(orders: Mapping[str, Sequence[Order]]) -> dict[str, Order]:
    """Every power's orders by the engine's key (the unit's province)."""
    return {order_key(o): o for os in orders.values() for o in os}
