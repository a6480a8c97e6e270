"""A bot with one tunable parameter, for testing ``diplomat tune``: each unit moves onto an
adjacent supply centre it does not own with probability ``grab`` (``--param grab=P``), else
holds. With ``grab=0`` it is a HoldBot; the more it grabs, the better it does against HoldBots.
"""

from __future__ import annotations

import argparse
import sys

from diplomat.bots import Bot, View
from diplomat.bots.commandline import run
from diplomat.engine.map import province_of
from diplomat.engine.orders import Hold, Move, Order


class GrabBot(Bot):
    name = "GrabBot"

    def __init__(self, grab: float) -> None:
        self.grab = grab

    def orders(self, view: View) -> list[Order]:
        if view.kind != "movement":
            return []
        orders: list[Order] = []
        for unit in view.units:
            targets = [
                o
                for o in view.legal_orders()[unit.loc]
                if isinstance(o, Move)
                and (p := province_of(o.dest)) in view.map.supply_centres
                and view.state.centres.get(p) != view.power
            ]
            if targets and view.rng.random() < self.grab:
                orders.append(view.rng.choice(targets))
            else:
                orders.append(Hold(unit))
        return orders

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--param", action="append", default=[], metavar="NAME=VALUE")

    @classmethod
    def from_arguments(cls, args: argparse.Namespace) -> GrabBot:
        grab = 0.5
        for text in args.param:
            name, _, value = text.partition("=")
            if name != "grab":
                raise SystemExit(f"unknown parameter {name!r}: GrabBot has only 'grab'")
            grab = float(value)
        return cls(grab)


if __name__ == "__main__":
    sys.exit(run(GrabBot))
