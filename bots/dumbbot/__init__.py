"""DumbBot (``bot``: David Norman's baseline, written afresh from its published algorithm) and
its strategic core for the negotiator (``core``). ``python -m diplomat.bots.dumbbot --help``."""

from diplomat.bots.dumbbot.bot import (
    BUILD,
    FALL,
    PROXIMITY_DEPTH,
    REMOVE,
    SPRING,
    STANDARD,
    WEIGHT_SETS,
    Candidates,
    DumbBot,
    DumbParams,
    Evaluation,
    Graph,
    Weights,
    build_orders,
    evaluate,
    graph,
    movement_orders,
    removal_orders,
    retreat_orders,
    size,
    weights_for,
)
from diplomat.bots.dumbbot.core import DumbCore
from diplomat.bots.entry import Entry

ENTRY = Entry(DumbBot, DumbCore)  # what ``python -m diplomat.bots.dumbbot`` and the bot host run

__all__ = [
    "BUILD",
    "ENTRY",
    "FALL",
    "PROXIMITY_DEPTH",
    "REMOVE",
    "SPRING",
    "STANDARD",
    "WEIGHT_SETS",
    "Candidates",
    "DumbBot",
    "DumbCore",
    "DumbParams",
    "Evaluation",
    "Graph",
    "Weights",
    "build_orders",
    "evaluate",
    "graph",
    "movement_orders",
    "removal_orders",
    "retreat_orders",
    "size",
    "weights_for",
]
