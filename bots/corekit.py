"""What the bundled strategic cores share (:mod:`bots.bordeaux.core`, :mod:`bots.dumbbot.core`):
the board questions of :class:`bots.negotiator.core.Core` answered from the map (tension,
border, near a solo), common random numbers, and the law of agreements' attacks as orders the
alliance must not give. A new core may take these from :class:`BoardCore` or answer them its
own way; the negotiator only ever asks.
"""

from __future__ import annotations

import random
from dataclasses import replace

from diplomat.bots.base import View
from diplomat.bots.negotiator.core import Plan
from diplomat.engine.orders import Order
from diplomat.protocol import agreements as law

NEAR_SOLO = 4  # within this many centres of a solo, a power is helped by nobody
LEADS_BY = 3  # nor is a leader this many centres ahead of the next, and bigger than us


class BoardCore:
    """The board questions answered from the map, and common random numbers: every
    question of a phase draws from a source seeded the same way (once a phase, from the
    game's seeded source), so that the difference between two answers is the constraints',
    not the dice's."""

    def __init__(self) -> None:
        self._phase = ""
        self._seed = 0

    def common(self, view: View) -> View:
        """``view`` with this phase's common random source."""
        if view.phase.name != self._phase:
            self._phase = view.phase.name
            self._seed = view.rng.getrandbits(64)
        return replace(view, rng=random.Random(self._seed))

    def tension(self, view: View, a: str, b: str) -> float:
        """The centres of each (owned, or home centres not yet owned by anyone) that the
        other's units can reach within two moves."""
        state = view.state
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

    def border(self, view: View, a: str, b: str) -> list[str]:
        """Empty provinces, not supply centres, that units of both sides can reach, in
        name order."""
        state, gmap = view.state, view.map
        reach: dict[str, set[str]] = {a: set(), b: set()}
        for u in state.units.values():
            if u.power in reach:
                reach[u.power] |= set(gmap.reach(u.type, u.loc))
        shared = reach[a] & reach[b]
        return sorted(
            p for p in shared if p not in gmap.supply_centres and state.units.get(p) is None
        )

    def near_solo(self, view: View, power: str) -> bool:
        """Within :data:`NEAR_SOLO` centres of a solo, or leading the next power by
        :data:`LEADS_BY` and bigger than us."""
        counts = view.state.centre_counts()
        need = len(view.map.supply_centres) // 2 + 1
        n = counts.get(power, 0)
        others = sorted((c for q, c in counts.items() if q != power), reverse=True)
        leader_by = n - (others[0] if others else 0)
        return n >= need - NEAR_SOLO or (leader_by >= LEADS_BY and n > counts.get(view.power, 0))


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


__all__ = ["LEADS_BY", "NEAR_SOLO", "BoardCore", "attacks"]
