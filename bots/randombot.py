"""RandomBot: a uniformly random legal order for each unit, from a seeded random source.

Movement: one order drawn uniformly from every legal order of the unit (holds, moves, moves
by convoy with a route, supports, convoys). Retreats: uniformly among the retreats and the
disband. Builds: as many as allowed, each on a random free home centre with a random unit
type (and coast); removals: random units.

    python -m diplomat.bots.randombot [--host H --port P | --stdio] [--seed N] [--power POW]
"""

from __future__ import annotations

import sys

from diplomat.bots.base import WAIVE_KEY, Bot, View
from diplomat.bots.commandline import run
from diplomat.bots.entry import Entry
from diplomat.engine.orders import Order, Remove


class RandomBot(Bot):
    name = "RandomBot"
    version = "1.0"

    def orders(self, view: View) -> list[Order]:
        rng = view.rng
        legal = view.legal_orders()
        if view.kind != "adjustment":
            return [rng.choice(options) for _, options in sorted(legal.items()) if options]
        need = view.adjustment
        if need > 0:
            sites = sorted(k for k in legal if k != WAIVE_KEY)
            chosen = rng.sample(sites, min(need, len(sites)))
            return [rng.choice(legal[site]) for site in chosen]
        if need < 0:
            units = view.units
            return [Remove(u) for u in rng.sample(units, min(-need, len(units)))]
        return []


ENTRY = Entry(RandomBot)  # what ``python -m`` and the bot host run

if __name__ == "__main__":
    sys.exit(run(ENTRY))
