"""DumbBot: David Norman's classic baseline bot, written afresh from its published algorithm.

David Norman wrote it in 2002-2003, and John Newbury later updated it.

    python -m diplomat.bots.dumbbot [--host H --port P | --stdio] [--seed N] [--power POW]
                           [--keep-ties] [--neutral-constant]
                           [--weights SET] [--param NAME=VALUE ...]

Each phase it gives every *node* a value (a node is where one unit can stand: a province for an
army, a coast for a fleet, so Brest has an army node and a fleet node and St Petersburg an army
node and two fleet nodes), then orders each unit greedily towards valuable nodes, with some
randomness. The constants are the original's:

* power size ``x*x + 4*x + 16`` for ``x`` supply centres;
* attack/defence weights 700/300 in Spring, Summer and Winter, 600/400 in Fall and Autumn;
* ten proximity layers, each node's layer ``n`` being (the sum over its neighbouring provinces of
  the best neighbouring node's layer ``n-1``, plus its own layer ``n-1``) integer-divided by 5;
* layer weights 100, 1000, 30, 10, 6, 5, 4, 3, 2, 1 in Spring and Summer, and 1000, 100, 30, 10,
  6, 5, 4, 3, 2, 1 in Fall, Autumn and Winter;
* strength and competition weights 1000 (moves, retreats); defence weight 1000 in Winter;
* the "next best" rule: step from a candidate to the next with probability
  ``0.5 * (1 - chance/100)``, ``chance = (cur - next) * 500 / cur`` (integer, truncated).

Choices the description leaves open, and what this implementation does:

1. **Neutral centres** are valued as the size of the whole neutral pool (``x`` = the number of
   unowned centres, 208 at the start), as the C++ reference does; ``--neutral-constant`` uses
   the Parlance port's constant 16 instead.
2. **Equal values collapse** (the C++ keys its candidate containers by value, so of two
   candidates with the same value only the first inserted survives). Mimicked by default;
   ``--keep-ties`` keeps every candidate, ties broken by insertion order. Insertion order: the
   unit's own node first, then its neighbours in node order (map province order; army node
   before fleet nodes; coasts in the map's order).
3. **The 64-bit to ``int`` truncation** of the C++ comparator is not mimicked: values are
   compared exactly (real values stay far below 2**31 on the standard map anyway).
4. **Random draws**: units are shuffled with the seeded ``random.Random`` (a uniform
   permutation, which is what sorting by random keys gives); the two draws of the next-best rule
   are both always made.
5. **Deferral cycles**: a unit whose best target holds one of our units not yet ordered waits
   until that unit is ordered. A unit defers at most once; if, the second time round, its pick
   is again a province holding one of our unordered units, that candidate is discarded and it
   picks again. (Without this two units that each want the other's province would wait for
   each other forever; the rule also avoids ordering a swap, which always bounces.)
6. **"Discard and pick again"** restarts the next-best rule from the best remaining candidate.
7. **Wasted holds**: units are revisited in the order they were processed; among a unit's
   neighbouring nodes the first with the highest value (> 0) decides which support replaces
   its hold. A unit never supports a move into or a hold in its own province.
8. **Retreats** are valued on the board after the movement (dislodged units are not on it and
   count for neither strength nor competition); Summer uses the Spring weights and Autumn the
   Fall ones, as moves do. A unit disbands only when no retreat is left.
9. **Removals** walk the candidates upwards from the lowest value with the next-best rule
   applied literally: ``chance`` is computed from the current and the next (higher) value, so
   it is never positive and each step up is taken with probability 1/2. The candidates are
   rebuilt for each removal and each build (so a tie collapsed in one pick is back for the
   next); a build drops the province's other nodes, and builds not made are waived.
10. **Strength and competition** count, for each unit, every node adjacent to its node (so a
    fleet touching two coasts of one province counts twice there, the C++ quirk) plus its own
    province once. Defence of an own centre counts enemy units that could move into it.
11. DumbBot never convoys, never sends press, and never votes for a draw.

The constants above are the defaults of :class:`DumbParams`; ``--param NAME=VALUE`` changes
one (``--param fall_attack=800``), and ``--weights SET`` starts from one of the named sets of
:data:`WEIGHT_SETS` (other DumbBots, for a broad field to measure and tune against).
"""

from __future__ import annotations

import argparse
import random
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Generic, TypeVar

from mypy_extensions import mypyc_attr

from diplomat.bots import tunable
from diplomat.bots.base import Bot, View
from diplomat.bots.tunable import ranged
from diplomat.engine.map import GameMap, province_of
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
)
from diplomat.engine.orderset import build_sites
from diplomat.engine.state import GameState, Unit

# Power size: A*x*x + B*x + C for x supply centres.
SIZE_SQUARE = 1
SIZE_LINEAR = 4
SIZE_CONSTANT = 16
PROXIMITY_DEPTH = 10
PLAY_ALTERNATIVE = 50  # percent
ALTERNATIVE_DIFFERENCE_MODIFIER = 500

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Weights:
    attack: int
    defence: int
    proximity: tuple[int, ...]  # PROXIMITY_DEPTH weights, layer 0 first
    strength: int = 0  # moves and retreats
    competition: int = 0  # moves and retreats
    winter_defence: int = 0  # builds and removals

    @property
    def winter(self) -> bool:
        return self.winter_defence != 0


SPRING = Weights(700, 300, (100, 1000, 30, 10, 6, 5, 4, 3, 2, 1), strength=1000, competition=1000)
FALL = Weights(600, 400, (1000, 100, 30, 10, 6, 5, 4, 3, 2, 1), strength=1000, competition=1000)
BUILD = Weights(700, 300, (1000, 100, 30, 10, 6, 5, 4, 3, 2, 1), winter_defence=1000)
REMOVE = Weights(700, 300, (1000, 100, 30, 10, 6, 5, 4, 3, 2, 1), winter_defence=1000)


@dataclass(frozen=True)
class DumbParams:
    """DumbBot's constants; the defaults are the original's (see the module's docstring)."""

    spring_attack: int = ranged(SPRING.attack, 0, 10000, "attack weight, Spring and Summer")
    spring_defence: int = ranged(SPRING.defence, 0, 10000, "defence weight, Spring and Summer")
    fall_attack: int = ranged(FALL.attack, 0, 10000, "attack weight, Fall and Autumn")
    fall_defence: int = ranged(FALL.defence, 0, 10000, "defence weight, Fall and Autumn")
    winter_attack: int = ranged(BUILD.attack, 0, 10000, "attack weight, builds and removals")
    winter_defence_layer: int = ranged(
        BUILD.defence, 0, 10000, "defence weight, builds and removals"
    )
    spring_near: int = ranged(
        SPRING.proximity[0], 0, 100000, "proximity layer 0 weight, Spring and Summer"
    )
    spring_next: int = ranged(
        SPRING.proximity[1], 0, 100000, "proximity layer 1 weight, Spring and Summer"
    )
    fall_near: int = ranged(
        FALL.proximity[0], 0, 100000, "proximity layer 0 weight, Fall to Winter"
    )
    fall_next: int = ranged(
        FALL.proximity[1], 0, 100000, "proximity layer 1 weight, Fall to Winter"
    )
    far: float = ranged(1.0, 0.0, 100.0, "scale of the weights of layers 2 to 9 (30 ... 1)")
    strength: int = ranged(SPRING.strength, 0, 100000, "weight of our units next to a node (moves)")
    competition: int = ranged(
        SPRING.competition, 0, 100000, "weight of the strongest rival next to it"
    )
    winter_defence: int = ranged(
        BUILD.winter_defence, 0, 100000, "defence weight of a node (builds, removals)"
    )
    size_square: int = ranged(SIZE_SQUARE, 0, 100, "power size: A in A*x*x + B*x + C")
    size_linear: int = ranged(SIZE_LINEAR, 0, 100, "power size: B")
    size_constant: int = ranged(SIZE_CONSTANT, 0, 1000, "power size: C")
    play_alternative: int = ranged(
        PLAY_ALTERNATIVE, 0, 100, "percent chance to consider the next best"
    )
    alternative_modifier: int = ranged(
        ALTERNATIVE_DIFFERENCE_MODIFIER,
        0,
        10000,
        "how fast a value gap lowers the chance to take the next best",
    )

    def size(self, centres: int) -> int:
        return (
            self.size_square * centres * centres + self.size_linear * centres + (self.size_constant)
        )


STANDARD = DumbParams()
# Other DumbBots: weight sets for a field that is not the original. Bordeaux's opponent
# models use some of them (``bots.bordeaux.models``); measure it against the others too.
WEIGHT_SETS: dict[str, DumbParams] = {
    "standard": STANDARD,
    # All attack: centres are worth taking, own centres hardly worth guarding.
    "aggressive": replace(
        STANDARD,
        spring_attack=950,
        spring_defence=50,
        fall_attack=900,
        fall_defence=100,
        competition=500,
    ),
    # Guards its own centres and avoids contested nodes.
    "defensive": replace(
        STANDARD,
        spring_attack=350,
        spring_defence=650,
        fall_attack=300,
        fall_defence=700,
        competition=2500,
    ),
    # Looks far: the distant layers weigh as much as the near ones.
    "farsighted": replace(
        STANDARD, spring_near=300, spring_next=300, fall_near=300, fall_next=300, far=10.0
    ),
    # Always its best node: no next-best randomness.
    "greedy": replace(STANDARD, play_alternative=0),
    # Wanders: takes the next best much more often.
    "erratic": replace(STANDARD, play_alternative=90, alternative_modifier=100),
    # Masses units: its own strength next to a node counts three times as much.
    "massing": replace(STANDARD, strength=3000, competition=700),
    # Values every power alike (size flat): no bias to attack the big ones.
    "flat": replace(STANDARD, size_square=0, size_linear=1, size_constant=1),
}


def size(centres: int, params: DumbParams = STANDARD) -> int:
    return params.size(centres)


@lru_cache(maxsize=64)
def _weight_table(params: DumbParams) -> tuple[Weights, Weights, Weights, Weights]:
    """(Spring, Fall, build, removal) weights."""
    if params == STANDARD:
        return (SPRING, FALL, BUILD, REMOVE)
    tail = tuple(round(w * params.far) for w in SPRING.proximity[2:])
    spring = Weights(params.spring_attack, params.spring_defence,
                     (params.spring_near, params.spring_next, *tail),
                     strength=params.strength, competition=params.competition)  # fmt: skip
    fall = Weights(params.fall_attack, params.fall_defence,
                   (params.fall_near, params.fall_next, *tail),
                   strength=params.strength, competition=params.competition)  # fmt: skip
    winter = Weights(params.winter_attack, params.winter_defence_layer,
                     (params.fall_near, params.fall_next, *tail),
                     winter_defence=params.winter_defence)  # fmt: skip
    return (spring, fall, winter, winter)


def weights_for(state: GameState, power: str, params: DumbParams = STANDARD) -> Weights:
    spring, fall, build, remove = _weight_table(params)
    season = state.phase.season
    if season in ("SPR", "SUM"):
        return spring
    if season in ("FAL", "AUT"):
        return fall
    return remove if state.adjustments().get(power, 0) < 0 else build


# -- the node graph ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Graph:
    """The map as DumbBot sees it: nodes (unit type, location) and their adjacency."""

    nodes: tuple[tuple[str, str], ...]
    index: dict[tuple[str, str], int]
    province: tuple[str, ...]  # of each node
    adjacent: tuple[tuple[int, ...], ...]  # each node's neighbouring nodes, in node order
    groups: tuple[tuple[tuple[int, ...], ...], ...]  # the same, grouped by province
    nodes_of: dict[str, tuple[int, ...]]  # province -> its nodes


@lru_cache(maxsize=8)
def graph(gmap: GameMap) -> Graph:
    nodes: list[tuple[str, str]] = []
    for prov, info in gmap.provinces.items():
        if info.type != "sea":
            nodes.append(("A", prov))
        nodes.extend(("F", loc) for loc in gmap.fleet_coasts.get(prov, ()))
    index = {n: i for i, n in enumerate(nodes)}
    adjacent: list[tuple[int, ...]] = []
    groups: list[tuple[tuple[int, ...], ...]] = []
    for utype, loc in nodes:
        dests = gmap.army_adj[loc] if utype == "A" else gmap.fleet_adj[loc]
        near = tuple(sorted(index[(utype, d)] for d in dests))
        adjacent.append(near)
        by_prov: dict[str, list[int]] = {}
        for i in near:
            by_prov.setdefault(province_of(nodes[i][1]), []).append(i)
        groups.append(tuple(tuple(g) for g in by_prov.values()))
    nodes_of: dict[str, list[int]] = {}
    for i, (_, loc) in enumerate(nodes):
        nodes_of.setdefault(province_of(loc), []).append(i)
    return Graph(
        tuple(nodes),
        index,
        tuple(province_of(loc) for _, loc in nodes),
        tuple(adjacent),
        tuple(groups),
        {p: tuple(v) for p, v in nodes_of.items()},
    )


# -- the evaluation ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Evaluation:
    graph: Graph
    weights: Weights
    sizes: dict[str, int]  # per power, and "UNO" for the neutral centres
    attack: dict[str, int]  # per province
    defence: dict[str, int]
    proximity: tuple[tuple[int, ...], ...]  # [layer][node]
    strength: dict[str, int]
    competition: dict[str, int]
    values: tuple[int, ...]  # per node

    def value(self, unit_type: str, loc: str) -> int:
        return self.values[self.graph.index[(unit_type, loc)]]


def evaluate(
    state: GameState,
    power: str,
    weights: Weights,
    neutral_pool: bool = True,
    params: DumbParams = STANDARD,
    friends: frozenset[str] = frozenset(),
) -> Evaluation:
    """Every node's value for ``power`` with ``weights`` (steps A to E of the description);
    ``params`` gives the power sizes. ``friends`` (the negotiator's allies; none in the
    original) are neither attacked nor feared: their centres are no targets, their units
    neither threaten ours nor compete."""
    gmap = state.map
    g = graph(gmap)
    counts = state.centre_counts()
    sizes = {p: params.size(n) for p, n in counts.items()}
    neutral = len(gmap.supply_centres) - len(state.centres)
    sizes["UNO"] = params.size(neutral) if neutral_pool else params.size_constant
    attack, defence = _attack_and_defence(state, power, sizes, friends)
    layers = _proximity(g, weights, attack, defence)
    strength, competition = _strength_and_competition(state, g, power, friends)
    prov_of = g.province
    pw = weights.proximity
    values = []
    for c in range(len(prov_of)):
        v = sum(layers[n][c] * pw[n] for n in range(PROXIMITY_DEPTH))
        p = prov_of[c]
        if weights.winter:
            v += weights.winter_defence * defence.get(p, 0)
        else:
            v += weights.strength * strength.get(p, 0)
            v -= weights.competition * competition.get(p, 0)
        values.append(v)
    return Evaluation(
        g, weights, sizes, attack, defence, tuple(layers), strength, competition, tuple(values)
    )


def _attack_and_defence(
    state: GameState, power: str, sizes: dict[str, int], friends: frozenset[str]
) -> tuple[dict[str, int], dict[str, int]]:
    """Each centre's attack value (the size of its owner, if not ours or a friend's)
    and, for our centres, its defence value (the size of the strongest enemy that reaches
    it)."""
    gmap = state.map
    attack: dict[str, int] = {}
    defence: dict[str, int] = {}
    for sc in gmap.supply_centres:
        owner = state.centres.get(sc)
        if owner != power and owner not in friends:
            attack[sc] = sizes[owner if owner is not None else "UNO"]
    for u in state.units.values():
        if u.power == power or u.power in friends:
            continue
        for prov in gmap.reach(u.type, u.loc):
            if state.centres.get(prov) == power:
                defence[prov] = max(defence.get(prov, 0), sizes[u.power])
    return attack, defence


def _proximity(
    g: Graph, weights: Weights, attack: dict[str, int], defence: dict[str, int]
) -> list[tuple[int, ...]]:
    """The proximity layers, each node's value spread over its neighbours' a layer
    at a time."""
    layer = tuple(
        attack.get(p, 0) * weights.attack + defence.get(p, 0) * weights.defence for p in g.province
    )
    layers = [layer]
    groups = g.groups
    for _ in range(1, PROXIMITY_DEPTH):
        prev = layer
        layer = tuple(
            (
                sum(
                    prev[grp[0]] if len(grp) == 1 else max(prev[i] for i in grp)
                    for grp in groups[c]
                )
                + prev[c]
            )
            // 5
            for c in range(len(prev))
        )
        layers.append(layer)
    return layers


def _strength_and_competition(
    state: GameState, g: Graph, power: str, friends: frozenset[str]
) -> tuple[dict[str, int], dict[str, int]]:
    """Per province, how many of our units stand on or next to it, and the most of
    any one enemy power's."""
    prov_of = g.province
    count: dict[str, dict[str, int]] = {}
    for u in state.units.values():
        node = g.index[(u.type, u.loc)]
        for a in g.adjacent[node]:
            per = count.setdefault(prov_of[a], {})
            per[u.power] = per.get(u.power, 0) + 1
        per = count.setdefault(u.province, {})
        per[u.power] = per.get(u.power, 0) + 1
    strength = {p: c.get(power, 0) for p, c in count.items()}
    competition = {
        p: max((n for q, n in c.items() if q != power and q not in friends), default=0)
        for p, c in count.items()
    }
    return strength, competition


# -- the next-best rule --------------------------------------------------------------------------


def _cdiv(a: int, b: int) -> int:
    """Integer division truncating towards zero, as C++ divides."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


class Candidates(Generic[T]):
    """Values and what they are for, walked in order (descending unless ``ascending``)."""

    def __init__(
        self, collapse: bool, ascending: bool = False, params: DumbParams = STANDARD
    ) -> None:
        self.collapse = collapse
        self.ascending = ascending
        self.alternative = params.play_alternative
        self.modifier = params.alternative_modifier
        self._items: list[tuple[int, T]] = []
        self._seen: set[int] = set()
        self._sorted = True

    def add(self, value: int, item: T) -> None:
        if self.collapse:
            if value in self._seen:
                return
            self._seen.add(value)
        self._items.append((value, item))
        self._sorted = False

    def items(self) -> list[tuple[int, T]]:
        if not self._sorted:
            # Stable: equal values keep their insertion order.
            self._items.sort(key=lambda vi: vi[0], reverse=not self.ascending)
            self._sorted = True
        return self._items

    def __len__(self) -> int:
        return len(self._items)

    def pick(self, rng: random.Random) -> int:
        """The index chosen by the next-best rule."""
        items = self.items()
        i = 0
        while i + 1 < len(items):
            cur, nxt = items[i][0], items[i + 1][0]
            chance = 0 if cur == 0 else _cdiv((cur - nxt) * self.modifier, cur)
            step = rng.randrange(100) < self.alternative
            keep = rng.randrange(100) >= chance
            if not (step and keep):
                break
            i += 1
        return i

    def take(self, rng: random.Random) -> tuple[int, T]:
        """Pick one and remove it."""
        return self.items().pop(self.pick(rng))


# -- orders --------------------------------------------------------------------------------------


def movement_orders(
    state: GameState,
    power: str,
    ev: Evaluation,
    rng: random.Random,
    collapse: bool = True,
    params: DumbParams = STANDARD,
) -> list[Order]:
    """Step G: one order per unit."""
    mine = sorted((u for u in state.units.values() if u.power == power), key=lambda u: u.loc)
    rng.shuffle(mine)
    orders, moving_into = _first_orders(state, power, ev, rng, collapse, params, mine)
    _support_instead_of_holding(state, power, ev, mine, orders, moving_into)
    return [orders[u.province] for u in sorted(mine, key=lambda u: u.loc)]


def _first_orders(
    state: GameState,
    power: str,
    ev: Evaluation,
    rng: random.Random,
    collapse: bool,
    params: DumbParams,
    mine: list[Unit],
) -> tuple[dict[str, Order], dict[str, Unit]]:
    """Each unit in turn (``mine``, shuffled) picks a node by the next-best rule: it holds,
    moves, supports one of ours there, or waits once for ours there to be ordered first.
    The orders by province, and which of ours moves into each province."""
    g = ev.graph
    values = ev.values
    competition = ev.competition
    units = state.units
    queue = list(mine)
    orders: dict[str, Order] = {}
    moving_into: dict[str, Unit] = {}
    deferred: set[str] = set()
    while queue:
        unit = queue.pop(0)
        node = g.index[(unit.type, unit.loc)]
        cands: Candidates[int] = Candidates(collapse, params=params)
        cands.add(values[node] + 1, node)
        for a in g.adjacent[node]:
            cands.add(values[a], a)
        while True:
            _, target = cands.items()[cands.pick(rng)]
            if target == node:
                orders[unit.province] = Hold(unit)
                break
            prov = g.province[target]
            occupant = units.get(prov)
            ours = occupant if occupant is not None and occupant.power == power else None
            if ours is not None and prov not in orders:
                if unit.province not in deferred:
                    deferred.add(unit.province)
                    queue.insert(queue.index(ours) + 1, unit)
                    break
                _discard(cands, target)
                continue
            if ours is not None and not isinstance(orders[prov], Move):
                if competition.get(prov, 0) > 1:
                    orders[unit.province] = SupportHold(unit, ours)
                    break
                _discard(cands, target)
                continue
            if prov in moving_into:
                if competition.get(prov, 0) > 0:
                    orders[unit.province] = SupportMove(unit, moving_into[prov], prov)
                    break
                _discard(cands, target)
                continue
            orders[unit.province] = Move(unit, g.nodes[target][1])
            moving_into[prov] = unit
            break
    return orders, moving_into


def _support_instead_of_holding(
    state: GameState,
    power: str,
    ev: Evaluation,
    mine: list[Unit],
    orders: dict[str, Order],
    moving_into: dict[str, Unit],
) -> None:
    """A unit left holding supports instead, in ``orders``, the neighbour of most value
    where one of ours moves in against competition, or holds under threat."""
    g = ev.graph
    values = ev.values
    competition = ev.competition
    units = state.units
    for unit in mine:
        if not isinstance(orders[unit.province], Hold):
            continue
        node = g.index[(unit.type, unit.loc)]
        best: Order | None = None
        best_value = 0
        for a in g.adjacent[node]:
            prov = g.province[a]
            if values[a] <= best_value:
                continue
            choice: Order | None = None
            if prov in moving_into and competition.get(prov, 0) > 0:
                choice = SupportMove(unit, moving_into[prov], prov)
            else:
                occupant = units.get(prov)
                if (
                    occupant is not None
                    and occupant.power == power
                    and not isinstance(orders.get(prov), Move)
                    and competition.get(prov, 0) > 1
                ):
                    choice = SupportHold(unit, occupant)
            if choice is not None:
                best, best_value = choice, values[a]
        if best is not None:
            orders[unit.province] = best


def _discard(cands: Candidates[int], target: int) -> None:
    items = cands.items()
    for i, (_, t) in enumerate(items):
        if t == target:
            del items[i]
            return


def retreat_orders(
    state: GameState,
    power: str,
    ev: Evaluation,
    rng: random.Random,
    collapse: bool = True,
    params: DumbParams = STANDARD,
) -> list[Order]:
    """Step H: retreat each dislodged unit to a valuable free place, or disband."""
    g = ev.graph
    mine = sorted(
        (d for d in state.dislodged.values() if d.unit.power == power), key=lambda d: d.unit.loc
    )
    rng.shuffle(mine)
    taken: set[str] = set()
    out: list[Order] = []
    for d in mine:
        cands: Candidates[str] = Candidates(collapse, params=params)
        for loc in d.retreats:
            node = g.index.get((d.unit.type, loc))
            if node is not None:
                cands.add(ev.values[node], loc)
        order: Order = Disband(d.unit)
        while len(cands):
            _, loc = cands.take(rng)
            if province_of(loc) not in taken:
                taken.add(province_of(loc))
                order = Retreat(d.unit, loc)
                break
        out.append(order)
    return out


def build_orders(
    state: GameState,
    power: str,
    ev: Evaluation,
    rng: random.Random,
    collapse: bool = True,
    params: DumbParams = STANDARD,
) -> list[Order]:
    """Step I, builds: on the most valuable nodes of the free home centres; waive the rest."""
    g = ev.graph
    need = state.adjustments().get(power, 0)
    sites = build_sites(state, power)
    sites.sort(key=lambda p: g.nodes_of[p][0])
    out: list[Order] = []
    while need > 0 and sites:
        cands: Candidates[int] = Candidates(collapse, params=params)
        for site in sites:
            for node in g.nodes_of[site]:
                cands.add(ev.values[node], node)
        _, node = cands.take(rng)
        utype, loc = g.nodes[node]
        out.append(Build(Unit(power, utype, loc)))
        sites.remove(g.province[node])
        need -= 1
    out += [Waive(power)] * need
    return out


def removal_orders(
    state: GameState,
    power: str,
    ev: Evaluation,
    rng: random.Random,
    collapse: bool = True,
    params: DumbParams = STANDARD,
) -> list[Order]:
    """Step I, removals: the least valuable units, walking upwards with the next-best rule."""
    g = ev.graph
    need = -state.adjustments().get(power, 0)
    left = sorted(state.units_of(power), key=lambda u: g.index[(u.type, u.loc)])
    out: list[Order] = []
    while need > 0 and left:
        cands: Candidates[Unit] = Candidates(collapse, ascending=True, params=params)
        for u in left:
            cands.add(ev.value(u.type, u.loc), u)
        _, unit = cands.take(rng)
        out.append(Remove(unit))
        left.remove(unit)
        need -= 1
    return out


@mypyc_attr(allow_interpreted_subclasses=True)  # compiled (bots.compiled), and subclassed
class DumbBot(Bot):
    name = "DumbBot"
    version = "1.0"

    def __init__(
        self, collapse_ties: bool = True, neutral_pool: bool = True, params: DumbParams = STANDARD
    ) -> None:
        self.collapse = collapse_ties
        self.neutral_pool = neutral_pool
        self.params = params

    def evaluate(
        self, state: GameState, power: str, friends: frozenset[str] = frozenset()
    ) -> Evaluation:
        """Every node's value for ``power`` by this bot's constants (``friends``: see
        :func:`evaluate`)."""
        p = self.params
        return evaluate(
            state, power, weights_for(state, power, p), self.neutral_pool, p, friends=friends
        )

    def orders(self, view: View) -> list[Order]:
        return self.orders_for(
            view.state, view.power, self.evaluate(view.state, view.power), view.rng
        )

    def orders_for(
        self, state: GameState, power: str, ev: Evaluation, rng: random.Random
    ) -> list[Order]:
        """``power``'s orders for this phase by the evaluation ``ev`` (its own, or one its
        negotiating core changed)."""
        p = self.params
        if state.phase.kind == "movement":
            return movement_orders(state, power, ev, rng, self.collapse, p)
        if state.phase.kind == "retreat":
            return retreat_orders(state, power, ev, rng, self.collapse, p)
        if state.adjustments().get(power, 0) < 0:
            return removal_orders(state, power, ev, rng, self.collapse, p)
        return build_orders(state, power, ev, rng, self.collapse, p)

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        parser.formatter_class = argparse.RawDescriptionHelpFormatter
        parser.epilog = "parameters (--param NAME=VALUE), default [range]:\n" + "\n".join(
            "  " + line for line in tunable.describe(DumbParams).splitlines()
        )
        group = parser.add_argument_group("DumbBot")
        group.add_argument(
            "--weights",
            choices=sorted(WEIGHT_SETS),
            default="standard",
            help="start from a named set of constants (default: standard, the original's)",
        )
        group.add_argument(
            "--param",
            action="append",
            default=[],
            type=tunable.param_item(DumbParams),
            metavar="NAME=VALUE",
            help="set a constant (repeatable; the list is below), after --weights",
        )
        group.add_argument(
            "--keep-ties",
            action="store_true",
            help="keep candidates of equal value (the original keeps only the first)",
        )
        group.add_argument(
            "--neutral-constant",
            action="store_true",
            help="value neutral centres at 16, as the Parlance port, not at the neutral "
            "pool's size (208 at the start), as the original",
        )

    @classmethod
    def from_arguments(cls, args: argparse.Namespace) -> DumbBot:
        params = tunable.parse_overrides(DumbParams, args.param, WEIGHT_SETS[args.weights])
        return cls(
            collapse_ties=not args.keep_ties, neutral_pool=not args.neutral_constant, params=params
        )
