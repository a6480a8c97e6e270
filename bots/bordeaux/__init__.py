"""The Bordeaux bot: Refined Evolutionary Search over a cheap evaluator (see ``bot``), and its
strategic core for the negotiator (``core``)."""

from diplomat.bots.bordeaux.bot import Bordeaux, Decision
from diplomat.bots.bordeaux.constraints import Constraints
from diplomat.bots.bordeaux.core import BordeauxCore
from diplomat.bots.bordeaux.params import PARAMS, ParamError, Params, ParamSpec, parse_overrides
from diplomat.bots.entry import Entry

ENTRY = Entry(
    Bordeaux, BordeauxCore
)  # what ``python -m diplomat.bots.bordeaux`` and the bot host run

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
