"""The position evaluator: what a board is worth to each alliance, in supply centres.

The search calls it for every candidate order set, so it is one pass over the units and one
over the map's centres, and it values every alliance at once (an alliance's value is the sum of
its members', so it is computed on alliances directly). For an alliance ``g``:

* **centres now**: in a Fall phase, every centre ``g`` owns once this phase's occupations are
  counted, worth ``centre_now`` each (plus ``home_bonus`` for a member's home centre);
* **centres next Fall** (in Spring: this Fall), weighted ``centre_next`` after a Fall and
  ``centre_now`` in Spring: each centre goes to its holder (the occupant, else the owner) or
  to the strongest other alliance, by the *support each side can bring*: the number of units
  of each alliance that stand on or next to it. With a defence margin ``m`` (holder's reach
  minus the strongest attacker's) the holder loses it with chance
  ``1 / (1 + exp(threat_slope * (m + threat_bias)))``, an occupant adding ``occupant`` to
  its side's reach; an empty neutral centre goes to the
  alliance with the most reach with chance ``1 / (1 + exp(-threat_slope * (m - take_bias)))``;
  alliances tied for the most reach share the chance equally;
* **units**: ``unit`` each, ``dislodged`` for each unit dislodged by this phase;
* **builds** (a Fall phase): ``build`` for each build the coming adjustments will allow a
  power, the centres it holds beyond its units but no more than its home centres that it
  owns and no unit stands on (a unit left at home in the Fall costs a build: the power
  waives it);
* **proximity**: ``proximity`` times the unit's node value on its own power's DumbBot
  proximity map (attack and defence values of centres spread over ten layers), scaled to 0..1
  per power, so units drift towards centres worth taking and centres needing defence.

**Rivalry** (``rivalry``, for our alliance only, when the evaluator is told which it is): the
score of a game cut by a year limit is its Sum-of-Squares share ``c0² / Σ c²``, so a centre
taken from a big rival is worth more than one taken from a small one or from nobody, and a
rival's growth costs us even when it takes nothing of ours. To first order, with ``c`` the
centres at the root and ``R = Σ_{h≠0} c_h²``, the share moves with
``dc0 - c0 / (2R) · dR``. Our value therefore loses ``rivalry · v0 / (2R) · (Σ r_h² - R)``,
where ``r_h`` is rival ``h``'s value rescaled to centres (``c_h`` times its value over its value at
the root) and ``v0`` our value at the root; at ``rivalry = 1`` a centre moved between powers
changes our value exactly as it changes the share, and the root keeps its value.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache

from diplomat.bots.bordeaux.params import Params
from diplomat.bots.dumbbot import PROXIMITY_DEPTH, Evaluation, evaluate, weights_for
from diplomat.engine.map import GameMap
from diplomat.engine.state import GameState, Unit

MARGINS = 40  # reach margins beyond this many units all count as this many
STEPS = 4  # margins are looked up in quarter units (the occupant's bonus is fractional)


@lru_cache(maxsize=4)
def centres_reached(gmap: GameMap) -> dict[tuple[str, str], tuple[str, ...]]:
    """For each (unit type, location): the supply centres it stands on or could move to."""
    out: dict[tuple[str, str], tuple[str, ...]] = {}
    sc = gmap.supply_centres
    for utype, locs in (("A", gmap.army_locations), ("F", gmap.fleet_locations)):
        for loc in locs:
            here = gmap.province_at[loc]
            near = [p for p in gmap.reach_sorted(utype, loc) if p in sc]
            if here in sc:
                near.insert(0, here)
            out[(utype, loc)] = tuple(near)
    return out


def proximity_map(
    state: GameState, power: str, ev: Evaluation | None = None
) -> dict[tuple[str, str], float]:
    """DumbBot's proximity value of every node for ``power``, scaled so the best is 1
    (``ev``: DumbBot's evaluation for this power, if already made)."""
    if ev is None:
        ev = evaluate(state, power, weights_for(state, power))
    pw = ev.weights.proximity
    raw = [
        sum(ev.proximity[n][c] * pw[n] for n in range(PROXIMITY_DEPTH))
        for c in range(len(ev.graph.nodes))
    ]
    top = max(raw, default=0) or 1
    return {node: raw[c] / top for c, node in enumerate(ev.graph.nodes)}


class Evaluator:
    """Values of positions reached from ``state`` for the alliances ``groups`` (a partition
    of the powers that matter; powers in no group are valued as nobody's)."""

    def __init__(
        self,
        state: GameState,
        groups: Sequence[frozenset[str]],
        params: Params,
        dumb: Mapping[str, Evaluation] | None = None,
        ours: int | None = None,
    ) -> None:
        """``ours``: the index in ``groups`` of the alliance whose value counts its rivals
        (the ``rivalry`` term); None: every alliance is valued alone."""
        gmap = state.map
        self.params = params
        self.groups = tuple(groups)
        self.group_of: dict[str, int] = {p: i for i, g in enumerate(groups) for p in g}
        self.centres = state.centres
        self.supply_centres = tuple(sorted(gmap.supply_centres))
        self.homes: dict[str, tuple[str, ...]] = {
            p: tuple(sorted(s for s in self.supply_centres if p in gmap.homes_of.get(s, ())))
            for p in self.group_of
        }
        index = {s: i for i, s in enumerate(self.supply_centres)}
        # Per unit type, each location's reachable centres by index, and per power and unit
        # type, what a unit there is worth (``unit`` plus its proximity): looked up by two
        # strings, not by a (type, location) tuple built for every unit of every node.
        self.reach: dict[str, dict[str, tuple[int, ...]]] = {"A": {}, "F": {}}
        for (utype, loc), near in centres_reached(gmap).items():
            self.reach[utype][loc] = tuple(index[c] for c in near)
        self.worth: list[list[float]] = [
            [
                1.0 + (params.home_bonus if any(p in g for p in gmap.homes_of.get(s, ())) else 0.0)
                for g in self.groups
            ]
            for s in self.supply_centres
        ]
        dumb = dumb or {}
        self.prox = {p: proximity_map(state, p, dumb.get(p)) for p in self.group_of}
        self.unit_worth: dict[str, dict[str, dict[str, float]]] = {}
        for power, prox in self.prox.items():
            tables: dict[str, dict[str, float]] = {"A": {}, "F": {}}
            for (utype, loc), v in prox.items():
                tables[utype][loc] = params.unit + params.proximity * v
            self.unit_worth[power] = tables
        slope = params.threat_slope
        self.lose = [
            1.0 / (1.0 + math.exp(min(60.0, slope * (m / STEPS + params.threat_bias))))
            for m in range(-MARGINS * STEPS, MARGINS * STEPS + 1)
        ]
        self.occupant = round(params.occupant * STEPS)
        self.take = [
            1.0 / (1.0 + math.exp(min(60.0, -slope * (m - params.take_bias))))
            for m in range(-MARGINS, MARGINS + 1)
        ]
        self.ours = ours if ours is not None and params.rivalry > 0 else None
        self._root_units = state.units
        self._rivals: dict[bool, tuple[float, float, list[float]] | None] = {}

    def values(
        self,
        units: Mapping[str, Unit],
        dislodged: Iterable[Unit] = (),
        *,
        fall: bool,
        centres: Mapping[str, str] | None = None,
    ) -> list[float]:
        """Each alliance's value of the board ``units`` (by province) reached by a phase.
        ``fall``: occupied centres change hands now (after Fall moves or Autumn retreats).
        ``centres``: the owners before that (default: the root position's)."""
        val = self._values(units, dislodged, fall, centres)
        if self.ours is None:
            return val
        if fall not in self._rivals:
            self._rivals[fall] = self._rival_scales(fall)
        rivals = self._rivals[fall]
        if rivals is not None:
            coef, base, scale = rivals
            spread = sum((v * k) ** 2 for v, k in zip(val, scale, strict=True))
            val[self.ours] -= coef * (spread - base)
        return val

    def _rival_scales(self, fall: bool) -> tuple[float, float, list[float]] | None:
        """The rivalry term's coefficient, the rivals' spread ``R`` at the root, and each
        alliance's value-to-centres scale (0 for ours and for an alliance with no value);
        None when no rival holds a centre."""
        assert self.ours is not None
        root = self._values(self._root_units, (), fall, None)
        held = [0] * len(self.groups)
        for owner in self.centres.values():
            g = self.group_of.get(owner)
            if g is not None:
                held[g] += 1
        scale = [
            held[g] / root[g] if g != self.ours and root[g] > 0 else 0.0
            for g in range(len(self.groups))
        ]
        spread = sum(held[g] ** 2 for g in range(len(self.groups)) if scale[g])
        if spread <= 0:
            return None
        coef = self.params.rivalry * max(0.0, root[self.ours]) / (2 * spread)
        return coef, float(spread), scale

    def _values(
        self,
        units: Mapping[str, Unit],
        dislodged: Iterable[Unit],
        fall: bool,
        centres: Mapping[str, str] | None,
    ) -> list[float]:
        p = self.params
        owners = self.centres if centres is None else centres
        group_of = self.group_of
        n = len(self.groups)
        val = [0.0] * n
        # Reach per centre and alliance, flat (centre index * n + alliance): a list of
        # zeros is cheaper to make than a dictionary per centre reached.
        counts = [0] * (len(self.supply_centres) * n)
        reach = self.reach
        unit_worth = self.unit_worth
        unit_w = p.unit
        builds = fall and p.build > 0
        held: dict[str, int] = {}
        for u in units.values():
            g = group_of.get(u.power)
            if g is None:
                continue
            if builds:
                held[u.power] = held.get(u.power, 0) - 1
            val[g] += unit_worth[u.power][u.type].get(u.loc, unit_w)
            for i in reach[u.type][u.loc]:
                counts[i * n + g] += 1
        for u in dislodged:
            g = group_of.get(u.power)
            if g is not None:
                val[g] += p.dislodged
        now_w = p.centre_now
        next_w = p.centre_next if fall else p.centre_now
        lose, take, worth = self.lose, self.take, self.worth
        span = MARGINS * STEPS
        for i, s in enumerate(self.supply_centres):
            w = worth[i]
            occ = units.get(s)
            if occ is not None:
                hg = group_of.get(occ.power)
            else:
                owner = owners.get(s)
                hg = group_of.get(owner) if owner is not None else None
            if fall and hg is not None:
                val[hg] += now_w * w[hg]
                if builds:
                    holder = occ.power if occ is not None else owners[s]
                    held[holder] = held.get(holder, 0) + 1
            row = i * n
            if hg is None:
                _take_neutral(val, counts, row, take, next_w, w)
                continue
            g1, a1, ties = -1, 0, 0
            for g in range(n):
                k = counts[row + g]
                if g == hg or k == 0:
                    continue
                if k > a1:
                    g1, a1, ties = g, k, 1
                elif k == a1:
                    ties += 1
            if a1 == 0:
                val[hg] += next_w * w[hg]
                continue
            defence = counts[row + hg] * STEPS + (self.occupant if occ is not None else 0)
            chance = lose[max(-span, min(span, defence - a1 * STEPS)) + span]
            val[hg] += (1.0 - chance) * next_w * w[hg]
            _award(val, counts, row, a1, ties, g1, hg, chance * next_w, w)
        if builds:
            self._add_builds(val, held, units, owners)
        return val

    def _add_builds(
        self,
        val: list[float],
        held: Mapping[str, int],
        units: Mapping[str, Unit],
        owners: Mapping[str, str],
    ) -> None:
        """``build`` for each build a power is due (``held``: its centres beyond its units), as
        many as its own home centres that are free to build in."""
        build = self.params.build
        group_of = self.group_of
        for power, due in held.items():
            if due > 0:
                free = sum(
                    1 for h in self.homes[power] if h not in units and owners.get(h) == power
                )
                val[group_of[power]] += build * min(due, free)


def _take_neutral(
    val: list[float], counts: list[int], row: int, take: list[float], weight: float, w: list[float]
) -> None:
    """An empty neutral (or nobody's) centre: the alliance with the most reach may take it, by
    its margin over the runner-up (``weight``: what a centre next Fall is worth)."""
    g1, a1, a2, ties = -1, 0, 0, 0
    for g in range(len(val)):
        k = counts[row + g]
        if k > a1:
            g1, a1, a2, ties = g, k, a1, 1
        elif k == a1 and k > 0:
            a2, ties = k, ties + 1
        elif k > a2:
            a2 = k
    if a1 > 0:
        chance = take[min(MARGINS, a1 - a2) + MARGINS] * weight
        _award(val, counts, row, a1, ties, g1, -1, chance, w)


def _award(
    val: list[float],
    counts: list[int],
    row: int,
    reach: int,
    ties: int,
    first: int,
    holder: int,
    chance: float,
    worth: list[float],
) -> None:
    """Give a centre's ``chance`` (already weighted) to the strongest alliance other than
    ``holder``, ``first``; when ``ties`` alliances share that ``reach``, each gets an equal
    part (which one takes the centre is a coin toss, not the first in the list's)."""
    if ties == 1:
        val[first] += chance * worth[first]
        return
    part = chance / ties
    for g in range(len(val)):
        if g != holder and counts[row + g] == reach:
            val[g] += part * worth[g]
