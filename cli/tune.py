"""``diplomat tune``: hill-climb a bot's parameters against a fixed field of bots."""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from cli.options import (
    add_db_option,
    add_game_options,
    add_ray_option,
    first_error,
    game_settings,
    open_store,
)


def register(sub: Any) -> None:
    p = sub.add_parser(
        "tune",
        help="tune a bot's parameters against a field of bots (stochastic hill climbing)",
        description=(
            "Each candidate setting of the parameters plays a tournament of N games (--games): the "
            "bot, started with --param NAME=VALUE for each parameter, in one seat against the "
            "six of --against, seats rotated over the powers, the same seeds for every "
            "candidate. Its score is its seat's mean Sum-of-Squares share. A step moves the "
            "parameters at random and is kept when it scores better; --restarts start again "
            "from random points. Prints the best setting with its interval and its gain over "
            "the start. Any bot that takes --param NAME=VALUE can be tuned."
        ),
        epilog=(
            "example: diplomat tune bordeaux --param centre_weight=0.5..4 "
            "--against dumbbot:6 --games 28"
        ),
    )
    p.add_argument(
        "bot",
        metavar="BOT",
        help="a bundled bot's name, or a command template for any program (as a tournament "
        "seat's command: {seed} {power} {game}, and {host} {port} for a TCP bot)",
    )
    p.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="NAME=LOW..HIGH",
        help="a parameter to tune and its range (integers if both bounds are); repeatable",
    )
    p.add_argument(
        "--start",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="the start point (default: the middle of each range); repeatable",
    )
    p.add_argument(
        "--against", required=True, metavar="SEATS", help="the six opponents, e.g. 'dumbbot:6'"
    )
    p.add_argument(
        "--games", type=int, default=14, metavar="N", help="games per candidate (default 14)"
    )
    p.add_argument(
        "--iterations", type=int, default=10, metavar="K", help="steps per climb (default 10)"
    )
    p.add_argument("--restarts", type=int, default=1, metavar="R", help="climbs in all (default 1)")
    p.add_argument(
        "--step",
        type=float,
        default=0.25,
        metavar="SHARE",
        help="step size as a share of each range (0.25)",
    )
    p.add_argument(
        "--seed", type=int, default=0, metavar="N", help="seed of the games and the climb"
    )
    p.add_argument(
        "--parallel",
        type=int,
        default=os.cpu_count() or 1,
        metavar="N",
        help="games played at once (default: the number of cores)",
    )
    add_ray_option(p)
    p.add_argument(
        "--json", type=Path, metavar="PATH", help="write every candidate and the best as JSON"
    )
    add_db_option(p)
    add_game_options(p)
    p.set_defaults(handler=_tune, mtl=30, rtl=15, btl=15, max_year=1915)


def _tune(args: argparse.Namespace) -> int:
    import trio

    from server.logs import configure_logging
    from tournament.runner import LineupError, Tournament, parse_lineup
    from tournament.tune import Candidate, ParamRange, TuneError, Tuner

    try:
        params = tuple(ParamRange.parse(text) for text in args.param)
        start = dict(_start_value(text) for text in args.start)
        field = tuple(parse_lineup(args.against.replace(",", " ").split(), count=6))
        settings = game_settings(args)
    except (TuneError, LineupError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except ValidationError as exc:
        print(f"error: {first_error(exc)}", file=sys.stderr)
        return 2
    bot = args.bot
    configure_logging("warning", stream=sys.stderr)
    store = open_store(args, must_exist=False)
    if store is None:
        return 2

    async def play(lineup: Sequence[Any], seed: int) -> list[Any]:
        tournament = Tournament(
            store,
            lineup,
            settings,
            games=args.games,
            parallel=args.parallel,
            seed=seed,
            ray=args.ray,
        )
        await tournament.run()
        return tournament.results()

    def told(candidate: Candidate, best: Candidate) -> None:
        e = candidate.estimate
        mark = "  best so far" if candidate is best else ""
        print(f"{_setting(params, candidate)}: SoS {e.mean:.3f} ± {e.ci95:.3f}{mark}", flush=True)

    try:
        tuner = Tuner(
            bot,
            params,
            field,
            play,
            args.games,
            iterations=args.iterations,
            restarts=args.restarts,
            step=args.step,
            seed=args.seed,
            start=start,
            on_candidate=told,
        )
        report = trio.run(tuner.run)
    except TuneError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted: run the same command again to resume", file=sys.stderr)
        return 130
    finally:
        store.close()
    best, first, gain = report.best.estimate, report.start.estimate, report.gain()
    print(f"start: {_setting(params, report.start)}  SoS {first.mean:.3f} ± {first.ci95:.3f}")
    print(f"best:  {_setting(params, report.best)}  SoS {best.mean:.3f} ± {best.ci95:.3f}")
    print(f"gain:  {gain.mean:+.3f} ± {gain.ci95:.3f} (paired over {args.games} games)")
    if args.json:
        args.json.write_text(json.dumps(_report_json(report), indent=1))
    return 0


def _start_value(text: str) -> tuple[str, float]:
    from tournament.tune import TuneError

    name, sep, value = text.partition("=")
    try:
        number = float(value)
    except ValueError:
        number = math.nan
    if not sep or not name.strip() or not math.isfinite(number):
        raise TuneError(f"--start {text!r}: write NAME=VALUE with a number")
    return name.strip(), number


def _setting(params: Sequence[Any], candidate: Any) -> str:
    return " ".join(f"{p.name}={p.text(v)}" for p, v in zip(params, candidate.values, strict=True))


def _report_json(report: Any) -> dict[str, Any]:
    def one(c: Any) -> dict[str, Any]:
        e = c.estimate
        return {
            "params": report.setting(c),
            "command": c.command,
            "sos": {"mean": e.mean, "ci95": e.ci95, "games": len(c.scores)},
        }

    gain = report.gain()
    return {
        "start": one(report.start),
        "best": one(report.best),
        "gain": {"mean": gain.mean, "ci95": gain.ci95},
        "candidates": [one(c) for c in report.tried],
    }
