"""The game options of the command line and the HLO variant are one table
(``server.settings.VARIANT_OPTIONS``): every variant option has its command-line option and
its setting, and each comes through to the HLO a player is sent."""

from __future__ import annotations

import argparse
from dataclasses import fields

from diplomat.cli.options import add_game_options, game_settings
from diplomat.protocol import messages
from diplomat.server.settings import VARIANT_OPTIONS, GameSettings


def test_every_variant_option_has_a_setting_and_a_command_line_option() -> None:
    assert set(VARIANT_OPTIONS) == {f.name for f in fields(messages.Variant)}
    assert set(VARIANT_OPTIONS.values()) <= set(GameSettings.model_fields)
    parser = argparse.ArgumentParser()
    add_game_options(parser)
    known = {a.dest for a in parser._actions}
    assert set(VARIANT_OPTIONS) <= known


def test_the_command_line_options_reach_the_hlo_variant() -> None:
    parser = argparse.ArgumentParser()
    add_game_options(parser)
    words = "--level 10 --mtl 60 --rtl 20 --btl 30 --ptl 10 --dsd --aoa --pda --npr --npb"
    settings = game_settings(parser.parse_args(words.split()))
    variant = settings.variant()
    assert variant == messages.Variant(
        level=10, mtl=60, rtl=20, btl=30, dsd=True, aoa=True, pda=True, npr=True, npb=True, ptl=10
    )
    assert (settings.move_time, settings.press_time, settings.retreat_time) == (60, 10, 20)


def test_the_rule_set_options() -> None:
    from diplomat.cli.main import build_parser

    parser = argparse.ArgumentParser()
    add_game_options(parser)
    assert game_settings(parser.parse_args([])).rules == "datc"
    assert game_settings(parser.parse_args(["--rules", "package"])).rules == "package"
    serve = build_parser().parse_args(["serve", "--diplomacy-rules", "package"])
    assert (serve.diplomacy_rules, serve.rules) == ("package", "datc")
    assert build_parser().parse_args(["serve"]).diplomacy_rules == "datc"
