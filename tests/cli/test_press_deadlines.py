"""``diplomat serve``: a press game given no deadlines gets time to talk."""

from __future__ import annotations

import argparse

from diplomat.cli.options import PRESS_DEADLINES, add_game_options, game_settings, press_deadlines


def _args(*argv: str) -> argparse.Namespace:
    p = argparse.ArgumentParser()
    add_game_options(p)
    return p.parse_args(list(argv))


def test_a_press_game_gets_deadlines_unless_given() -> None:
    args = _args("--level", "30", "--rtl", "5")
    press_deadlines(args)
    s = game_settings(args)
    assert (s.level, s.move_time, s.retreat_time, s.build_time) == (
        30,
        PRESS_DEADLINES["mtl"],
        5,
        PRESS_DEADLINES["btl"],
    )


def test_a_gunboat_game_stays_untimed() -> None:
    args = _args()
    press_deadlines(args)
    s = game_settings(args)
    assert (s.move_time, s.retreat_time, s.build_time) == (None, None, None)
