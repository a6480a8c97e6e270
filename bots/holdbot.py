"""HoldBot: every unit holds, every dislodged unit disbands, builds are waived and removals
are made in location order (as David Norman's HoldBot does).

    python -m diplomat.bots.holdbot [--host H --port P | --stdio] [--power POW] [--name NAME]
"""

from __future__ import annotations

import sys

from diplomat.bots.base import Bot, View
from diplomat.bots.commandline import run
from diplomat.bots.entry import Entry
from diplomat.engine.orders import Disband, Hold, Order, Remove, Waive


class HoldBot(Bot):
    name = "HoldBot"
    version = "1.0"

    def orders(self, view: View) -> list[Order]:
        if view.kind == "movement":
            return [Hold(u) for u in view.units]
        if view.kind == "retreat":
            return [Disband(d.unit) for d in view.dislodged]
        need = view.adjustment
        if need < 0:
            return [Remove(u) for u in view.units[:-need]]
        return [Waive(view.power)] * need


ENTRY = Entry(HoldBot)  # what ``python -m`` and the bot host run

if __name__ == "__main__":
    sys.exit(run(ENTRY))
