"""``diplomat tune``: hill-climb a bot's parameters against a fixed field of bots."""

from __future__ import annotations

import argparse
import json
import math
import os
import shlex
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from diplomat.cli.options import (
    add_db_option,
    add_game_options,
    add_join_options,
    add_ray_option,
    engine_line,
    first_error,
    game_settings,
    join_options_error,
    open_store,
)

if TYPE_CHECKING:  # (the command imports the tournament only when it runs)
    from diplomat.server.settings import GameSettings
    from diplomat.server.store import Store
    from diplomat.tournament.game import Entry
    from diplomat.tournament.tune import ParamRange


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
            "the start. With --neighbours each step tries every neighbour at Manhattan "
            "distance 1 (one parameter moved by --step of its range) and moves to the best. "
            "With --confirm-against the start and the best play again on fresh games (a fresh "
            "field, --confirm-seed) and the gain there is what counts. Any bot that takes "
            "--param NAME=VALUE can be tuned."
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
    _add_climb_options(p)
    _add_confirm_options(p)
    add_ray_option(p)
    p.add_argument(
        "--json", type=Path, metavar="PATH", help="write every candidate and the best as JSON"
    )
    add_db_option(p)
    add_join_options(p)
    add_game_options(p)
    p.set_defaults(handler=_tune, mtl=30, rtl=15, btl=15, max_year=1915)


def _add_climb_options(p: argparse.ArgumentParser) -> None:
    """What is tuned, from where, against whom, and how the climb steps."""
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


def _add_confirm_options(p: argparse.ArgumentParser) -> None:
    """Steepest ascent, and the fresh games that confirm the gain."""
    p.add_argument(
        "--neighbours",
        action="store_true",
        help="steepest ascent over the neighbours at Manhattan distance 1 (each parameter "
        "moved by --step of its range, up and down) instead of Gaussian steps",
    )
    p.add_argument(
        "--confirm-against",
        metavar="SEATS",
        help="a fresh field of six: the start and the best play again against it",
    )
    p.add_argument(
        "--confirm-seed",
        type=int,
        default=None,
        metavar="N",
        help="seed of the confirming games (default: --seed + 1000)",
    )
    p.add_argument(
        "--confirm-games",
        type=int,
        default=None,
        metavar="N",
        help="confirming games (default: --games)",
    )
    p.add_argument(
        "--parallel",
        type=int,
        default=os.cpu_count() or 1,
        metavar="N",
        help="games played at once (default: the number of cores)",
    )


@dataclass(frozen=True)
class _Setup:
    """What the command line asks for, checked."""

    params: tuple[ParamRange, ...]
    start: dict[str, float]
    field: tuple[Entry, ...]
    fresh: tuple[Entry, ...] | None  # the confirming field
    settings: GameSettings


def _setup(args: argparse.Namespace) -> _Setup:
    """The parameters, start point, fields and game settings of the command line (raises
    TuneError, LineupError or ValidationError)."""
    from diplomat.tournament.runner import parse_lineup
    from diplomat.tournament.tune import ParamRange

    fresh = (
        tuple(parse_lineup(_seat_words(args.confirm_against, "--confirm-against"), count=6))
        if args.confirm_against
        else None
    )
    return _Setup(
        params=tuple(ParamRange.parse(text) for text in args.param),
        start=dict(_start_value(text) for text in args.start),
        field=tuple(parse_lineup(_seat_words(args.against, "--against"), count=6)),
        fresh=fresh,
        settings=game_settings(args),
    )


class _Play:
    """Plays a candidate's line-up as a tournament, ``games`` games long (the confirming
    games may be fewer or more than the climb's)."""

    def __init__(self, args: argparse.Namespace, store: Store, settings: GameSettings) -> None:
        self.args, self.store, self.settings = args, store, settings
        self.games: int = args.games

    async def __call__(self, lineup: Sequence[Any], seed: int) -> list[Any]:
        from diplomat.tournament.runner import Tournament
        from diplomat.tournament.scoring import scored

        args = self.args
        tournament = Tournament(
            self.store,
            lineup,
            self.settings,
            games=self.games,
            parallel=args.parallel,
            seed=seed,
            ray=args.ray,
            join_timeout=args.join_timeout,
            replays=args.replays,
        )
        await tournament.run()
        # A candidate is scored on complete games only (a game that lost a player before
        # it started says nothing of it), unless --keep-incomplete.
        return scored(tournament.results(), args.keep_incomplete)


def _tune(args: argparse.Namespace) -> int:
    from diplomat.server.logs import configure_logging
    from diplomat.tournament.runner import LineupError
    from diplomat.tournament.tune import TuneError

    why = join_options_error(args)
    if why:
        print(f"error: {why}", file=sys.stderr)
        return 2
    try:
        setup = _setup(args)
    except (TuneError, LineupError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except ValidationError as exc:
        print(f"error: {first_error(exc)}", file=sys.stderr)
        return 2
    configure_logging("warning", stream=sys.stderr)
    print(engine_line(), file=sys.stderr)
    store = open_store(args, must_exist=False)
    if store is None:
        return 2
    try:
        report, confirmed = _climb(args, setup, store)
    except TuneError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted: run the same command again to resume", file=sys.stderr)
        return 130
    finally:
        store.close()
    out = _print_report(args, setup.params, report)
    out["settings"] = {
        **setup.settings.model_dump(),
        "join_timeout": args.join_timeout,
        "replays": args.replays,
        "keep_incomplete": args.keep_incomplete,
    }
    if confirmed is not None:
        out["confirmed"] = _print_confirmed(report, confirmed)
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))
    return 0


def _climb(args: argparse.Namespace, setup: _Setup, store: Store) -> tuple[Any, Any]:
    """Climb, then (with --confirm-against) play the start and the best on fresh games."""
    import trio

    from diplomat.tournament.tune import Candidate, Tuner

    params = setup.params

    def told(candidate: Candidate, best: Candidate) -> None:
        e = candidate.estimate
        mark = "  best so far" if candidate is best else ""
        print(f"{_setting(params, candidate)}: SoS {e.mean:.3f} ± {e.ci95:.3f}{mark}", flush=True)

    play = _Play(args, store, setup.settings)
    tuner = Tuner(
        args.bot,
        params,
        setup.field,
        play,
        args.games,
        iterations=args.iterations,
        restarts=args.restarts,
        step=args.step,
        seed=args.seed,
        start=setup.start,
        on_candidate=told,
        neighbours=args.neighbours,
    )
    report = trio.run(tuner.run)
    if setup.fresh is None:
        return report, None
    play.games = args.confirm_games or args.games
    seed = args.confirm_seed if args.confirm_seed is not None else args.seed + 1000
    return report, trio.run(tuner.confirm, report, setup.fresh, seed)


def _print_report(args: argparse.Namespace, params: Sequence[Any], report: Any) -> dict[str, Any]:
    """Print the start, the best and the gain; the report as JSON."""
    best, first, gain = report.best.estimate, report.start.estimate, report.gain()
    print(f"start: {_setting(params, report.start)}  SoS {first.mean:.3f} ± {first.ci95:.3f}")
    print(f"best:  {_setting(params, report.best)}  SoS {best.mean:.3f} ± {best.ci95:.3f}")
    print(f"gain:  {gain.mean:+.3f} ± {gain.ci95:.3f} (paired over {args.games} games)")
    return _report_json(report)


def _print_confirmed(report: Any, confirmed: Any) -> dict[str, Any]:
    """Print the start and the best on the fresh games; those figures as JSON."""
    c_start, c_best, c_gain = confirmed
    games = len(c_best.scores)
    print(f"fresh games ({games}, another seed and field): start SoS "
          f"{c_start.estimate.mean:.3f} ± {c_start.estimate.ci95:.3f}, best "
          f"{c_best.estimate.mean:.3f} ± {c_best.estimate.ci95:.3f}, gain "
          f"{c_gain.mean:+.3f} ± {c_gain.ci95:.3f}")  # fmt: skip
    return {
        "start": _candidate_json(report, c_start),
        "best": _candidate_json(report, c_best),
        "gain": {"mean": c_gain.mean, "ci95": c_gain.ci95, "games": games},
    }


def _seat_words(text: str, option: str) -> list[str]:
    """The seats of a field option (words, or commas between them)."""
    from diplomat.tournament.runner import LineupError

    try:
        return shlex.split(text.replace(",", " "))
    except ValueError as exc:
        raise LineupError(f"{option} {text!r} does not parse: {exc}") from None


def _start_value(text: str) -> tuple[str, float]:
    from diplomat.tournament.tune import TuneError

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


def _candidate_json(report: Any, c: Any) -> dict[str, Any]:
    e = c.estimate
    return {
        "params": report.setting(c),
        "command": c.command,
        "sos": {"mean": e.mean, "ci95": e.ci95, "games": len(c.scores)},
        "scores": [c.scores[i] for i in sorted(c.scores)],
    }


def _report_json(report: Any) -> dict[str, Any]:
    def one(c: Any) -> dict[str, Any]:
        return _candidate_json(report, c)

    gain = report.gain()
    return {
        "start": one(report.start),
        "best": one(report.best),
        "gain": {"mean": gain.mean, "ci95": gain.ci95},
        "candidates": [one(c) for c in report.tried],
    }
