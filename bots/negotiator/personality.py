"""A negotiator's personality: the options that make different diplomats of one program."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from diplomat.bots.argtypes import non_negative, seconds, share


@dataclass(frozen=True)
class Personality:
    honesty: float = 1.0  # chance of keeping an agreement the core would rather break
    trust: float = 0.6  # how far others are believed at the start (trusted from 0.5)
    forgiveness: float = 0.1  # share of lost trust won back each year
    initiative: float = 0.5  # chance a phase of proposing an alliance when without one
    talk: float | None = None  # longest talk window of a movement phase (s); None: from think
    generosity: float = 0.35  # value (centres) it gives up for an agreement asked of it
    pact: bool = False  # propose an alliance to every power at once (allies from the start)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--negotiate`` and the personality options (for every bot the negotiator drives)."""
    g = parser.add_argument_group("negotiation (press levels 10-30)")
    g.add_argument(
        "--negotiate",
        action="store_true",
        help="talk: form alliances, agree DMZs and coordinated moves, keep a trust record "
        "(games with press; at level 0 the orders are the core's own)",
    )
    g.add_argument(
        "--honesty",
        type=share,
        default=1.0,
        metavar="P",
        help="chance of keeping an agreement the core says is worth breaking (default 1)",
    )
    g.add_argument(
        "--trust",
        type=share,
        default=0.6,
        metavar="P",
        help="how far others are believed at first; 0.5 and up is trusted (default 0.6)",
    )
    g.add_argument(
        "--forgiveness",
        type=share,
        default=0.1,
        metavar="P",
        help="share of lost trust won back each year (default 0.1)",
    )
    g.add_argument(
        "--initiative",
        type=share,
        default=0.5,
        metavar="P",
        help="chance each movement phase of proposing an alliance when without one (default 0.5)",
    )
    g.add_argument(
        "--generosity",
        type=non_negative,
        default=0.35,
        metavar="CENTRES",
        help="value, in supply centres, it gives up for a DMZ or XDO asked of it, as its "
        "core measures it (default 0.35)",
    )
    g.add_argument(
        "--pact",
        action="store_true",
        help="in the first movement phase propose an alliance to every power: whoever "
        "negotiates is an ally from the start (the ceiling of what talk can arrange)",
    )
    g.add_argument(
        "--talk",
        type=seconds,
        default=None,
        metavar="SECONDS",
        help="longest talk window of a movement phase (default: from the thinking time; "
        "always within the deadline)",
    )


def from_arguments(args: argparse.Namespace) -> Personality:
    return Personality(
        args.honesty,
        args.trust,
        args.forgiveness,
        args.initiative,
        args.talk,
        args.generosity,
        args.pact,
    )


__all__ = ["Personality", "add_arguments", "from_arguments"]
