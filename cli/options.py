"""Options and helpers that several subcommands share: game settings, the database."""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from diplomat.engine.compiled import Group
from diplomat.engine.rules import RULE_SETS
from diplomat.server.settings import VARIANT_OPTIONS, GameSettings, default_db_path


def add_game_options(p: argparse.ArgumentParser) -> None:
    """The options that set how a game is played (shared with the tournament command)."""
    g = p.add_argument_group("game settings")
    g.add_argument(
        "--map",
        default="standard",
        metavar="NAME",
        help="a bundled map (diplomat map list), a map file PATH.json, or a variant's DAIDE "
        "PATH.mdf (imported; .now, .sco, .rem and .cfg beside it) (default: standard)",
    )
    g.add_argument(
        "--level", type=int, default=0, metavar="LEVEL", help="press level (0 = no press)"
    )
    g.add_argument(
        "--mtl",
        type=int,
        metavar="SECONDS",
        help="movement deadline (default: none; serve: 60 in a press game; 0: none)",
    )
    g.add_argument(
        "--rtl",
        type=int,
        metavar="SECONDS",
        help="retreat deadline (default: none; serve: 30 in a press game; 0: none)",
    )
    g.add_argument(
        "--btl",
        type=int,
        metavar="SECONDS",
        help="build deadline (default: none; serve: 30 in a press game; 0: none)",
    )
    g.add_argument(
        "--ptl",
        type=int,
        metavar="SECONDS",
        help="press stops this many seconds before the movement deadline",
    )
    g.add_argument(
        "--rules",
        choices=sorted(RULE_SETS),
        default="datc",
        help="the rule set adjudicating the games: datc (DATC 3.0's preferred options, the "
        "default) or package (the diplomacy Python package's choices; docs/engine.md)",
    )
    g.add_argument("--dsd", action="store_true", help="deadlines stop while a player is away")
    g.add_argument("--aoa", action="store_true", help="any orders accepted")
    g.add_argument(
        "--pda", action="store_true", help="partial draws allowed (press level 10 and up)"
    )
    g.add_argument("--npr", action="store_true", help="no press in retreat phases")
    g.add_argument("--npb", action="store_true", help="no press in build phases")
    g.add_argument(
        "--max-year", type=int, metavar="YEAR", help="end the game as a draw after this year"
    )
    g.add_argument(
        "--draw-after",
        type=int,
        metavar="YEARS",
        help="end as a draw when no centre changes hands for this many years",
    )


# A press game's deadlines when none are given (``diplomat serve``): time to talk and order.
PRESS_DEADLINES = {"mtl": 60, "rtl": 30, "btl": 30}


def press_deadlines(args: argparse.Namespace) -> None:
    """A press game (``--level`` 10 and up) with a deadline left out gets
    :data:`PRESS_DEADLINES`: without one a game moves on as soon as every order is in, and
    talk must then race the orders."""
    if args.level >= 10:
        for name, seconds in PRESS_DEADLINES.items():
            if getattr(args, name) is None:
                setattr(args, name, seconds)


def _deadline(seconds: int | None) -> int | None:
    """A deadline option's value for the settings: 0 asks for none (so that a press game made
    by ``serve`` can still wait for its players)."""
    return None if seconds == 0 else seconds


def game_settings(args: argparse.Namespace) -> GameSettings:
    """The settings the options of :func:`add_game_options` ask for (each variant option is
    named as DAIDE names it: ``--mtl``, ``--dsd`` ...)."""
    variant = {name: getattr(args, option) for option, name in VARIANT_OPTIONS.items()}
    for option in PRESS_DEADLINES:
        variant[VARIANT_OPTIONS[option]] = _deadline(variant[VARIANT_OPTIONS[option]])
    return GameSettings(
        map=args.map,
        max_year=args.max_year,
        draw_unchanged_years=args.draw_after,
        rules=args.rules,
        **variant,
    )


def add_db_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--db",
        type=Path,
        default=None,
        metavar="PATH",
        help=f"SQLite database (default: {default_db_path()})",
    )


def port_number(text: str) -> int:
    """An ``argparse`` type: a TCP port, 0 (any free port) to 65535."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a port (0 to 65535; 0 = any free port)")
    return port


def open_store(args: argparse.Namespace, must_exist: bool) -> Any:
    """The database of ``--db`` (or the default one), or None after printing why not. Only the
    default location has its folder created: a ``--db`` in a folder that does not exist is
    more likely a typing mistake than a wish for new folders."""
    from diplomat.server.store import Store, StoreError

    path = Path(args.db or default_db_path())
    if must_exist and not path.exists():
        print(f"error: no database at {path}", file=sys.stderr)
        return None
    if args.db is not None and not path.parent.is_dir():
        print(f"error: --db {path}: the folder {path.parent} does not exist", file=sys.stderr)
        return None
    try:
        return Store(path)
    except StoreError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return None


def open_game(args: argparse.Namespace) -> tuple[Any, Any] | None:
    """The store and the row of ``args.game``, or None after printing why not."""
    from diplomat.server.store import StoreError

    store = open_store(args, must_exist=True)
    if store is None:
        return None
    try:
        return store, store.game(args.game)
    except StoreError as exc:
        print(f"error: {exc}", file=sys.stderr)
        store.close()
        return None


def first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(x) for x in err.get("loc", ()))
    return f"{where}: {err['msg']}" if where else str(err["msg"])


def add_ray_option(p: argparse.ArgumentParser) -> None:
    """``--ray [ADDRESS]``: the games as Ray tasks (tournaments and tuning)."""
    p.add_argument(
        "--ray",
        nargs="?",
        const="local",
        metavar="ADDRESS",
        help="play the games as Ray tasks: on the cluster at ADDRESS ('auto' or host:port), "
        "or on a local one started for the run when no address is given "
        "(pip install 'diplomat[ray]')",
    )


def add_join_options(p: argparse.ArgumentParser) -> None:
    """How long a seat has to join, and what becomes of a game that loses a player before it
    starts (tournaments and tuning)."""
    from diplomat.tournament.game import JOIN_TIMEOUT, REPLAYS

    p.add_argument(
        "--join-timeout",
        type=float,
        default=JOIN_TIMEOUT,
        metavar="SECONDS",
        help="seconds a seat's program has, from its start, to join and accept the map; one "
        f"that has not is absent (or hung, if it joined) (default {JOIN_TIMEOUT:g})",
    )
    p.add_argument(
        "--replays",
        type=int,
        default=REPLAYS,
        metavar="N",
        help="times a game that lost a player before it started is played again, same "
        f"seeds and seats (default {REPLAYS})",
    )
    p.add_argument(
        "--keep-incomplete",
        action="store_true",
        help="count games that lost a player before they started in the scores and ratings "
        "(default: left out, counted on a line of their own)",
    )


def join_options_error(args: argparse.Namespace) -> str | None:
    """What is wrong with the options of :func:`add_join_options` (None: nothing)."""
    if not math.isfinite(args.join_timeout) or args.join_timeout <= 0:
        return "--join-timeout must be a positive number of seconds"
    if args.replays < 0:
        return "--replays must be 0 or more"
    return None


def engine_line() -> str:
    """Which engine and which bot search run (``engine.compiled``, ``bots.compiled``), a line
    each, after starting the build of either in the background if none exists and one can be
    made: what ``serve``, ``tournament`` and ``tune`` print on stderr once their arguments are
    good."""
    from diplomat.bots.compiled import BOTS
    from diplomat.engine.compiled import ENGINE

    return "\n".join(_compiled_line(group) for group in (ENGINE, BOTS))


def _compiled_line(group: Group) -> str:
    from diplomat.engine.compile import start_in_background
    from diplomat.engine.compiled import describe

    what = group.title
    try:
        started = start_in_background(group)
    except OSError as exc:  # a read-only cache: pure Python, said so
        return f"{what}: pure Python (cannot build the compiled {what}: {exc})"
    if started:
        return (
            f"{what}: pure Python (building the compiled {what} in the background: "
            "used from the next start)"
        )
    return describe(group)
