"""The Bordeaux bot: Refined Evolutionary Search over a cheap evaluator (see ``bot``)."""

from bots.bordeaux.bot import Bordeaux, Decision
from bots.bordeaux.constraints import Constraints
from bots.bordeaux.params import PARAMS, ParamError, Params, ParamSpec, parse_overrides

__all__ = [
    "PARAMS",
    "Bordeaux",
    "Constraints",
    "Decision",
    "ParamError",
    "ParamSpec",
    "Params",
    "parse_overrides",
]
