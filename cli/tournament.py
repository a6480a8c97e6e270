"""``diplomat tournament``: run games of a line-up of bots and score them."""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from diplomat.bots.registry import BUNDLED
from diplomat.cli.options import (
    add_db_option,
    add_game_options,
    add_join_options,
    add_ray_option,
    engine_line,
    first_error,
    open_store,
)
from diplomat.server.settings import GameSettings
from diplomat.tournament.scoring import SCORERS, SCORES, BotSummary, GameResult, scored, summarise

SCORE_TITLES = {"sos": "SoS", "dss": "DSS", "cdiplo": "C-Diplo", "pot": "Pot"}

DEFAULT_YEARS = 15  # a tournament game's default length: 1901-1915 on the standard map


def register(sub: Any) -> None:
    p = sub.add_parser(
        "tournament",
        help="play games of a line-up or pool of bots and score them",
        description=(
            "Run GAMES games of bots, one per power of the map (seven on the standard map), on "
            "an in-process server and print a table per bot. "
            f"A seat is a bundled bot ({', '.join(BUNDLED)}), with its "
            "arguments if any ('bordeaux --think 0.25', labelled by that text), NAME:K for K "
            "seats of it, "
            "or LABEL='command template' (LABEL='command template':K for K seats) for any "
            "program: {host} {port} make it a TCP bot, {diplomacy_port} an agent of the "
            "diplomacy package (with {game_id} {power_name} {user} {password}: "
            "docs/tournaments.md), otherwise it speaks DAIDE text on "
            "stdin/stdout; {seed} {power} {game} are filled in. A line-up of one seat per "
            "power rotates over the powers; --pool takes any number of seats and draws one "
            "per power for each game by a balanced schedule. Re-running the same command "
            "resumes the tournament. --map NAME plays a variant (diplomat map list). A game "
            "that loses a player before it starts (a seat absent, hung or crashed while "
            "joining) is incomplete: it is played again (--replays), and left out of the "
            "scores if it stays so (--keep-incomplete keeps it)."
        ),
        epilog="examples: diplomat tournament dumbbot randombot:6 --games 14 --max-year 1910; "
        "diplomat tournament dumbbot:3 --map hundred3 --games 3",
    )
    p.add_argument(
        "lineup", nargs="*", metavar="SEAT", help="one seat per power (seven on the standard map)"
    )
    p.add_argument(
        "--pool",
        nargs="+",
        metavar="SEAT",
        help="at least one seat per power; each game draws one per power (balanced schedule)",
    )
    p.add_argument("--games", type=int, default=7, help="number of games (default 7)")
    p.add_argument(
        "--parallel",
        type=int,
        default=os.cpu_count() or 1,
        help="games played at once on this machine (default: the number of cores)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed for the bots (default 0)")
    add_db_option(p)
    p.add_argument("--csv", type=Path, help="write per-game, per-seat results as CSV")
    p.add_argument("--json", type=Path, help="write the summary and every game as JSON")
    p.add_argument(
        "--dir",
        "--bot-logs",
        dest="folder",
        type=Path,
        metavar="DIR",
        help="the tournament's folder: per-seat logs and the external bots' working folders "
        "(default: tournaments/KEY beside the database)",
    )
    p.add_argument(
        "--hung-after",
        type=int,
        default=3,
        metavar="K",
        help="a bot that misses its orders at K deadlines in a row is hung (default 3)",
    )
    add_join_options(p)
    add_ray_option(p)
    p.add_argument("--wide", action="store_true", help="every column in the results table")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    add_game_options(p)
    # --max-year defaults to the map's fifteenth year (1915 on the standard map).
    p.set_defaults(handler=_tournament, mtl=30, rtl=15, btl=15, max_year=None)


class _Refused(Exception):
    """The command line asks for a tournament that cannot be run (the message says why)."""


def _tournament(args: argparse.Namespace) -> int:
    """Check the line-up and its programs, run (or resume) the games, print the scores."""
    from rich.console import Console

    from diplomat.server.logs import configure_logging
    from diplomat.tournament.runner import Tournament, check_programs

    console = Console(stderr=True)
    try:
        seats, settings, powers = _line_up(args)
    except _Refused as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    problems = check_programs(seats)
    if problems:
        for line in problems:
            print(line, file=sys.stderr)
        print("error: no game was played; fix the line-up and run again", file=sys.stderr)
        return 2
    if args.games % powers and not args.pool:
        console.print(
            f"[yellow]note:[/] {args.games} games is not a multiple of {powers}, so the bots "
            "will not play every power equally often"
        )
    configure_logging("warning", stream=sys.stderr)
    store = open_store(args, must_exist=False)
    if store is None:
        return 2
    print(engine_line(), file=sys.stderr)
    tournament = Tournament(
        store,
        seats,
        settings,
        games=args.games,
        parallel=args.parallel,
        seed=args.seed,
        pool=bool(args.pool),
        folder=args.folder,
        hung_after=args.hung_after,
        ray=args.ray,
        join_timeout=args.join_timeout,
        replays=args.replays,
    )
    try:
        stopped = _play(tournament, console, args.quiet)
        if stopped is not None:
            return stopped
        _report(args, tournament, seats, settings, console)
        return 0
    finally:
        tournament.close()
        store.close()


def _line_up(args: argparse.Namespace) -> tuple[list[Any], GameSettings, int]:
    """The seats, the game settings the command line asks for and the number of powers of
    the map; :class:`_Refused` if they make no tournament. (``--max-year`` left out is the
    map's fifteenth year.)"""
    from diplomat.cli.options import game_settings, join_options_error
    from diplomat.engine.map import MapError, load_map
    from diplomat.tournament.runner import LineupError, parse_lineup

    if args.ray and ("=" in args.ray or args.ray.partition(":")[0].lower() in BUNDLED):
        raise _Refused(
            f"--ray took the seat {args.ray!r} as its address: put --ray after the "
            "seats, or give the address (--ray auto, --ray HOST:PORT)"
        )
    if args.lineup and args.pool:
        raise _Refused("give either a line-up or --pool SEAT ..., not both")
    if args.games < 1:
        raise _Refused("--games must be at least 1")
    if args.hung_after < 1:
        raise _Refused("--hung-after must be at least 1")
    why = join_options_error(args)
    if why:
        raise _Refused(why)
    try:
        if args.max_year is None and args.map:
            args.max_year = load_map(args.map).start_year + DEFAULT_YEARS - 1
        settings = game_settings(args)
        powers = len(load_map(settings.map).powers)
        seats = parse_lineup(args.pool or args.lineup, pool=bool(args.pool), powers=powers)
        return seats, settings, powers
    except (MapError, LineupError) as exc:
        raise _Refused(str(exc)) from None
    except ValidationError as exc:
        raise _Refused(first_error(exc)) from None


def _play(tournament: Any, console: Any, quiet: bool) -> int | None:
    """Play the games still to play; the exit status if they could not all be played."""
    import trio

    from diplomat.tournament.records import TournamentLocked
    from diplomat.tournament.runner import LineupError

    try:
        try:
            _run_with_progress(tournament, console, quiet, trio)
        except BaseExceptionGroup as group:  # Ctrl-C arrives inside trio's nurseries
            if group.subgroup(KeyboardInterrupt) is not None:
                raise KeyboardInterrupt from None
            raise
    except KeyboardInterrupt:
        console.print("interrupted: run the same command again to resume")
        return 130
    except (TournamentLocked, LineupError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return None


def _report(
    args: argparse.Namespace,
    tournament: Any,
    seats: list[Any],
    settings: GameSettings,
    console: Any,
) -> None:
    """The scores table on stdout (80 columns unless --wide, or a wider terminal), and the
    CSV and JSON files asked for."""
    from rich.console import Console

    from diplomat.tournament.runner import labels_of

    out = Console(width=None if sys.stdout.isatty() else (160 if args.wide else 80))
    results = tournament.results()
    bots = summarise(scored(results, args.keep_incomplete), labels_of(seats))
    if tournament.already_complete:
        console.print(
            f"tournament {tournament.key} was already complete: these are its stored results. "
            "To play a fresh one, change --seed (or --games), or use another --db."
        )
    out.print(f"tournament {tournament.key}: {len(results)} games in {tournament.store.path}")
    _print_table(bots, out, args.wide)
    line = incomplete_line(results, tournament.stats.replays, args.keep_incomplete)
    if line:
        out.print(line)
    bad = [s for g in results for s in g.seats if s.status != "played"]
    if bad:
        counts = ", ".join(
            f"{sum(s.status == k for s in bad)} {k}" for k in ("absent", "hung", "crashed")
        )
        out.print(f"seats that did not play to the end: {counts}; logs under {tournament.folder}")
    if args.csv:
        _write_csv(args.csv, results)
    if args.json:
        run = {
            "join_timeout": args.join_timeout,
            "replays": args.replays,
            "keep_incomplete": args.keep_incomplete,
        }
        _write_json(args.json, tournament.key, settings, bots, results, str(tournament.folder), run)


def incomplete_line(results: list[GameResult], replays: int, keep: bool) -> str | None:
    """The table's line for games that lost a player before they started (None: none did)."""
    lost = sum(g.incomplete for g in results)
    if not lost and not replays:
        return None
    fate = "kept in the scores (--keep-incomplete)" if keep else "left out of the scores"
    again = f"; {replays} played again this run" if replays else ""
    return (
        f"incomplete (a player lost before the start): {lost} of {len(results)} games, "
        f"{fate}{again}"
    )


def _run_with_progress(tournament: Any, console: Any, quiet: bool, trio: Any) -> None:
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    if quiet:
        trio.run(tournament.run)
        return
    import time

    started = time.monotonic()
    with Progress(
        TextColumn("games"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[running]} running"),
        TextColumn("{task.fields[rate]:.0f} phases/s"),
        TimeRemainingColumn(),
        console=console,
        transient=False,
    ) as bar:
        task = bar.add_task("games", total=tournament.games, running=0, rate=0.0)

        def update(p: Any) -> None:
            elapsed = max(time.monotonic() - started, 1e-6)
            bar.update(task, completed=p.done, running=p.running, rate=p.phases / elapsed)

        tournament.on_progress = update
        trio.run(tournament.run)


def _print_table(bots: list[BotSummary], console: Any, wide: bool = False) -> None:
    """Per bot: games, solos, crashed and hung seats, mean centres, the Sum-of-Squares score
    and the rating; ``wide`` adds draws, survivals, eliminations and the other scores. No
    cell wraps: the default table fits 80 columns."""
    from rich import box
    from rich.table import Table

    table = Table(
        title="results per bot (mean ± 95% CI per seat played)",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        collapse_padding=True,
    )
    columns = ["bot", "games", "solos"]
    if wide:
        columns += ["draws", "survived", "eliminated"]
    columns += ["absent", "crashed", "hung", "centres"]
    scores = list(SCORES) if wide else ["sos"]
    for col in columns:
        table.add_column(col, justify="left" if col == "bot" else "right", no_wrap=True)
    for k in scores:
        table.add_column(SCORE_TITLES[k], justify="right", no_wrap=True)
    table.add_column("rating", justify="right", no_wrap=True)
    table.columns[0].overflow = "ellipsis"
    table.columns[0].max_width = 40 if wide else 18
    for b in sorted(bots, key=lambda b: -b.estimate("sos").mean):
        cells = [b.label, str(b.games), str(b.solos)]
        if wide:
            cells += [str(b.draws), str(b.survivals), str(b.eliminated)]
        cells += [str(b.absent), str(b.crashes), str(b.hung), f"{b.mean_centres:.1f}"]
        for k in scores:
            e = b.estimate(k)
            digits = 1 if k == "cdiplo" else 3
            ci = "∞" if e.ci95 == float("inf") else f"{e.ci95:.{digits}f}"
            cells.append(f"{e.mean:.{digits}f}±{ci}")
        cells.append(f"{b.mu:.1f}±{b.sigma:.1f}")
        table.add_row(*cells)
    console.print(table)


def _write_csv(path: Path, results: list[GameResult]) -> None:
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["game_id", "index", "power", "label", "seat", "centres", "eliminated",
                    "crashed", "hung", "stopped", "result", *SCORES, "log", "status",
                    "incomplete"])  # fmt: skip
        for g in results:
            scores = {k: fn(g) for k, fn in SCORERS.items()}
            kind = f"solo {g.winner}" if g.winner else "draw"
            for s in g.seats:
                w.writerow(
                    [g.game_id, g.index, s.power, s.label, s.seat or "", s.centres,
                     s.eliminated or "", int(s.crashed), int(s.hung), s.stopped or "", kind,
                     *(round(scores[k][s.power], 6) for k in SCORES), s.log or "", s.status,
                     int(g.incomplete)]
                )  # fmt: skip


def _write_json(
    path: Path,
    key: str,
    settings: GameSettings,
    bots: list[BotSummary],
    results: list[GameResult],
    folder: str,
    run: dict[str, Any],
) -> None:
    data = {
        "tournament": key,
        "folder": folder,
        # How the games were run beside how they were played: the join timeout, the
        # replays of incomplete games and whether those count.
        "settings": {**settings.model_dump(), **run},
        "incomplete": sum(g.incomplete for g in results),
        "bots": [
            {
                "label": b.label,
                "games": b.games,
                "solos": b.solos,
                "draws": b.draws,
                "survivals": b.survivals,
                "eliminated": b.eliminated,
                "crashes": b.crashes,
                "hung": b.hung,
                "absent": b.absent,
                "mean_centres": b.mean_centres,
                "scores": {
                    k: {"mean": b.estimate(k).mean, "ci95": _finite(b.estimate(k).ci95)}
                    for k in SCORES
                },
                "rating": {"mu": b.mu, "sigma": b.sigma},
            }
            for b in bots
        ],
        "games": [
            {
                "id": g.game_id,
                "index": g.index,
                "seats": {s.power: s.label for s in g.seats},
                "result": {
                    "kind": "solo" if g.winner else "draw",
                    "winner": g.winner,
                    "survivors": g.survivors,
                    "reason": g.reason,
                },
                "centres": {s.power: s.centres for s in g.seats},
                "crashed": [s.power for s in g.seats if s.crashed],
                "hung": [s.power for s in g.seats if s.hung],
                "absent": [s.power for s in g.seats if s.absent],
                "incomplete": g.incomplete,
                "players": [
                    {
                        "power": s.power,
                        "label": s.label,
                        "seat": s.seat,
                        "status": s.status,
                        "stopped": s.stopped,
                        "detail": s.detail,
                        "log": s.log,
                    }
                    for s in g.seats
                ],
            }
            for g in results
        ],
    }
    path.write_text(json.dumps(data, indent=1))


def _finite(x: float) -> float | None:
    return None if x == float("inf") else x
