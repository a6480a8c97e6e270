"""The Bordeaux bot: Refined Evolutionary Search over a cheap evaluator (see ``bot``), and its
strategic core for the negotiator (``core``)."""

from bots.bordeaux.bot import Bordeaux, Decision
from bots.bordeaux.constraints import Constraints
from bots.bordeaux.core import BordeauxCore
from bots.bordeaux.params import PARAMS, ParamError, Params, ParamSpec, parse_overrides
from bots.entry import Entry

ENTRY = Entry(Bordeaux, BordeauxCore)  # what ``python -m bots.bordeaux`` and the bot host run

__all__ = [
    "ENTRY",
    "PARAMS",
    "Bordeaux",
    "BordeauxCore",
    "Constraints",
    "Decision",
    "ParamError",
    "ParamSpec",
    "Params",
    "parse_overrides",
]
