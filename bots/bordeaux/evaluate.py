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
* **units**: ``unit`` each, ``dislodged`` for each unit dislodged by this phase;
* **proximity**: ``proximity`` times the unit's node value on its own power's DumbBot
  proximity map (attack and defence values of centres spread over ten layers), scaled to 0..1
  per power, so units drift towards centres worth taking and centres needing defence.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache

from bots.bordeaux.params import Params
from bots.dumbbot import PROXIMITY_DEPTH, Evaluation, evaluate, weights_for
from engine.map import GameMap
from engine.state import GameState, Unit

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
    ) -> None:
        gmap = state.map
        self.params = params
        self.groups = tuple(groups)
        self.group_of: dict[str, int] = {p: i for i, g in enumerate(groups) for p in g}
        self.centres = state.centres
        self.supply_centres = tuple(sorted(gmap.supply_centres))
        self.reach = centres_reached(gmap)
        self.worth: dict[str, list[float]] = {
            s: [
                1.0 + (params.home_bonus if any(p in g for p in gmap.homes_of.get(s, ())) else 0.0)
                for g in self.groups
            ]
            for s in self.supply_centres
        }
        dumb = dumb or {}
        self.prox = {p: proximity_map(state, p, dumb.get(p)) for p in self.group_of}
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
        p = self.params
        owners = self.centres if centres is None else centres
        group_of = self.group_of
        n = len(self.groups)
        val = [0.0] * n
        counts: dict[str, dict[int, int]] = {}
        reach = self.reach
        unit_w, prox_w = p.unit, p.proximity
        prox = self.prox
        for u in units.values():
            g = group_of.get(u.power)
            if g is None:
                continue
            node = (u.type, u.loc)
            val[g] += unit_w + prox_w * prox[u.power].get(node, 0.0)
            for s in reach[node]:
                c = counts.get(s)
                if c is None:
                    counts[s] = {g: 1}
                else:
                    c[g] = c.get(g, 0) + 1
        for u in dislodged:
            g = group_of.get(u.power)
            if g is not None:
                val[g] += p.dislodged
        now_w = p.centre_now
        next_w = p.centre_next if fall else p.centre_now
        lose, take = self.lose, self.take
        worth = self.worth
        for s in self.supply_centres:
            w = worth[s]
            occ = units.get(s)
            if occ is not None:
                hg = group_of.get(occ.power)
            else:
                owner = owners.get(s)
                hg = group_of.get(owner) if owner is not None else None
            if fall and hg is not None:
                val[hg] += now_w * w[hg]
            c = counts.get(s)
            if not c:
                if hg is not None:
                    val[hg] += next_w * w[hg]
                continue
            if hg is None:
                g1, a1, a2 = _two_strongest(c)
                chance = take[min(MARGINS, a1 - a2) + MARGINS]
                val[g1] += chance * next_w * w[g1]
                continue
            defence = c.get(hg, 0) * STEPS + (self.occupant if occ is not None else 0)
            g1, a1 = -1, 0
            for g, k in c.items():
                if g != hg and k > a1:
                    g1, a1 = g, k
            if a1 == 0:
                val[hg] += next_w * w[hg]
                continue
            span = MARGINS * STEPS
            chance = lose[max(-span, min(span, defence - a1 * STEPS)) + span]
            val[hg] += (1.0 - chance) * next_w * w[hg]
            val[g1] += chance * next_w * w[g1]
        return val


def _two_strongest(counts: dict[int, int]) -> tuple[int, int, int]:
    """The alliance with the most reach, its reach, and the runner-up's reach."""
    g1, a1, a2 = -1, 0, 0
    for g, k in counts.items():
        if k > a1:
            g1, a1, a2 = g, k, a1
        elif k > a2:
            a2 = k
    return g1, a1, a2
