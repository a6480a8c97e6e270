"""Every tunable constant of the Bordeaux bot, in one dataclass, with a sensible range each.

``PARAMS`` lists them (name, type, default, range, meaning) so that a tuner can enumerate
them; :func:`parse_overrides` reads ``NAME=VALUE`` strings (the ``--param`` option) with a clear
error for an unknown name, a value that is not a number, or one outside its range (the rules
are ``bots.tunable``'s, shared with DumbBot).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from diplomat.bots import tunable
from diplomat.bots.tunable import ParamError, ParamSpec, parse_value
from diplomat.bots.tunable import ranged as _p


@dataclass(frozen=True)
class Params:
    """The evaluator's weights and the searches' settings. Values of the position are in
    supply centres: one centre owned for sure is worth ``centre_now``."""

    # -- the evaluator ------------------------------------------------------------------
    centre_now: float = _p(
        1.0, 0.0, 5.0, "a centre owned after this phase (Fall), or expected this Fall (Spring)"
    )
    centre_next: float = _p(
        0.5, 0.0, 3.0, "a centre expected next Fall, given who can reach it (Fall phases)"
    )
    home_bonus: float = _p(0.25, 0.0, 2.0, "extra worth of a home centre to its owner")
    unit: float = _p(0.35, 0.0, 2.0, "each unit on the board")
    dislodged: float = _p(0.1, 0.0, 2.0, "each dislodged unit (it may retreat or disband)")
    build: float = _p(
        0.0, 0.0, 3.0, "each build the coming adjustments allow (Fall: free home centres)"
    )
    proximity: float = _p(
        0.3, 0.0, 3.0, "a unit on the best node of its power's DumbBot proximity map"
    )
    threat_slope: float = _p(
        1.5, 0.1, 10.0, "how sharply the chance to lose a centre falls with the defence margin"
    )
    threat_bias: float = _p(
        0.5, -3.0, 3.0, "a contested centre is lost half the time at defence margin -threat_bias"
    )
    occupant: float = _p(
        0.5, 0.0, 3.0, "extra defence a unit standing on a centre gives it (it need not move)"
    )
    take_bias: float = _p(
        0.5, -3.0, 3.0, "an empty neutral centre is taken half the time at reach margin take_bias"
    )
    rivalry: float = _p(
        0.0,
        0.0,
        3.0,
        "how our value counts rivals' centres as the Sum-of-Squares share does (1: first order)",
    )
    # -- movement search (RES) ----------------------------------------------------------
    own_turns: int = _p(
        2, 1, 100, "mutation turns of our alliance per round (each other alliance has one)"
    )
    mutation_bias: float = _p(
        2.0, 0.0, 20.0, "how much more likely a mutation moves to the best node than holds"
    )
    min_rate: float = _p(
        0.0, 0.0, 1.0, "mutation rate at the end of the search (the share of units mutated)"
    )
    improve_eps: float = _p(1e-6, 0.0, 0.5, "a value must rise by more than this to be adopted")
    convoys: int = _p(
        1, 0, 1, "1: armies may be convoyed by their alliance's fleets at sea; 0: never"
    )
    scenarios: int = _p(
        3, 0, 16, "predictions of the other powers' orders (opponent models) ours are valued on"
    )
    scenario_weight: float = _p(
        0.8, 0.0, 1.0, "share of our value taken from those draws (the rest: the search's others)"
    )
    opponent_models: int = _p(
        1, 0, 1, "1: scenarios from every opponent model by how it predicted; 0: DumbBot only"
    )
    model_draws: int = _p(
        3, 1, 16, "draws per power of each DumbBot and random opponent model, each phase"
    )
    model_nodes: int = _p(
        150, 0, 5000, "nodes of the cheap search that models opponents as Bordeaux (0: none)"
    )
    model_eta: float = _p(
        0.5, 0.0, 5.0, "temper of each opponent model's weight: its log-likelihood times this"
    )
    model_floor: float = _p(
        0.05, 0.0, 1.0, "share of the opponent models' weight spread evenly, whatever they did"
    )
    cycle_share: float = _p(
        0.1, 0.0, 0.5, "share of the budget kept, once the search cycles, to solve the cycle"
    )
    cycle_profiles: int = _p(64, 1, 1024, "most joint order sets solved when the search cycles")
    cycle_rounds: int = _p(300, 10, 10000, "regret-matching rounds over a cycle")
    # -- adjustments ----------------------------------------------------------------------
    adjust_options: int = _p(12, 1, 200, "options per power kept for the combined search")
    adjust_combos: int = _p(3000, 10, 30000, "most combinations valued per power (preliminary)")
    # -- time -------------------------------------------------------------------------------
    deadline_share: float = _p(
        0.5, 0.05, 0.95, "largest share of the server's deadline the bot may think for"
    )
    deadline_margin: float = _p(1.0, 0.0, 30.0, "seconds always left before the deadline")
    nodes_per_second: float = _p(
        2000.0, 10.0, 1e6, "assumed speed when a node budget needs a safety time limit"
    )


PARAMS: tuple[ParamSpec, ...] = tunable.specs(Params)


def parse_overrides(items: Iterable[str], base: Params | None = None) -> Params:
    """``base`` (default: the defaults) with every ``NAME=VALUE`` of ``items`` applied."""
    return tunable.parse_overrides(Params, items, base)


def names() -> str:
    return ", ".join(s.name for s in PARAMS)


def describe() -> str:
    """One line per parameter: name, default, range, meaning (for ``--help`` and docs)."""
    return tunable.describe(Params)


__all__ = [
    "PARAMS",
    "ParamError",
    "ParamSpec",
    "Params",
    "describe",
    "names",
    "parse_overrides",
    "parse_value",
]
