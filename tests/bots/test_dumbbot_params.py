"""DumbBot's constants as parameters: --param NAME=VALUE, --weights SET, and what they change."""

from __future__ import annotations

import random

import pytest

from diplomat.bots.commandline import build_parser
from diplomat.bots.dumbbot import (
    FALL,
    SPRING,
    STANDARD,
    WEIGHT_SETS,
    DumbBot,
    DumbParams,
    evaluate,
    movement_orders,
    weights_for,
)
from diplomat.engine.map import load_map
from diplomat.engine.state import initial_state


def bot_from(*argv: str) -> DumbBot:
    args = build_parser(DumbBot).parse_args(["--stdio", *argv])
    bot = DumbBot.from_arguments(args)
    assert isinstance(bot, DumbBot)
    return bot


def test_the_defaults_are_the_originals() -> None:
    state = initial_state(load_map("standard"))
    assert bot_from().params == STANDARD == WEIGHT_SETS["standard"]
    assert weights_for(state, "FRA", DumbParams()) is SPRING  # the very constants
    assert STANDARD.size(3) == 3 * 3 + 4 * 3 + 16


def test_weights_and_params_set_the_constants() -> None:
    bot = bot_from("--weights", "aggressive", "--param", "fall_attack=800", "--param", "far=2")
    assert bot.params.spring_attack == WEIGHT_SETS["aggressive"].spring_attack == 950
    assert bot.params.fall_attack == 800 and bot.params.far == 2.0
    start = initial_state(load_map("standard"))
    fall = weights_for(start.__class__.from_json(
        {**start.to_json(), "phase": "F1901M"}), "FRA", bot.params)  # fmt: skip
    assert fall.attack == 800 and fall.proximity[2:] == tuple(2 * w for w in FALL.proximity[2:])


@pytest.mark.parametrize(
    ("argv", "why"),
    [
        (["--param", "nosuch=1"], "unknown parameter 'nosuch'"),
        (["--param", "play_alternative=101"], "outside its range 0 to 100"),
        (["--param", "fall_attack=lots"], "is not an integer"),
        (["--weights", "nosuch"], "invalid choice"),
    ],
)
def test_bad_parameters_are_refused(
    argv: list[str], why: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit:
        build_parser(DumbBot).parse_args(["--stdio", *argv])
    assert exit.value.code == 2 and why in capsys.readouterr().err


def test_another_weight_set_plays_otherwise() -> None:
    # Over a few seeds, the greedy set never takes a next best: the same orders every time,
    # where the standard set's randomness gives several.
    state = initial_state(load_map("standard"))
    for name, distinct in (("greedy", 1), ("standard", 2)):
        p = WEIGHT_SETS[name]
        ev = evaluate(state, "RUS", weights_for(state, "RUS", p), True, p)
        made = {
            tuple(map(str, movement_orders(state, "RUS", ev, random.Random(s), True, p)))
            for s in range(12)
        }
        assert (len(made) == 1) if distinct == 1 else (len(made) >= distinct), (name, made)
