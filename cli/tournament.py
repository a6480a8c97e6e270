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

from cli.options import (
    add_db_option,
    add_game_options,
    add_ray_option,
    engine_line,
    first_error,
    open_store,
)
from server.settings import GameSettings
from tournament.scoring import SCORERS, SCORES, BotSummary, GameResult, summarise

SCORE_TITLES = {"sos": "SoS", "dss": "DSS", "cdiplo": "C-Diplo", "pot": "Pot"}


def register(sub: Any) -> None:
    p = sub.add_parser(
        "tournament",
        help="play games of a line-up or pool of bots and score them",
        description=(
            "Run GAMES games of seven bots on an in-process server and print a table per bot. "
            "A seat is a bundled bot (holdbot, randombot, dumbbot, bordeaux), NAME:K for K "
            "seats of it, "
            "or LABEL='command template' (LABEL='command template':K for K seats) for any "
            "program: {host} {port} make it a TCP bot, otherwise it speaks DAIDE text on "
            "stdin/stdout; {seed} {power} {game} are filled in. Seven seats rotate over the "
            "powers; --pool takes any number of seats and draws seven per game by a balanced "
            "schedule. Re-running the same command resumes the tournament."
        ),
        epilog="example: diplomat tournament dumbbot randombot:6 --games 14 --max-year 1910",
    )
    p.add_argument("lineup", nargs="*", metavar="SEAT", help="seven seats in all")
    p.add_argument(
        "--pool",
        nargs="+",
        metavar="SEAT",
        help="seven or more seats; each game draws seven of them (balanced schedule)",
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
    add_ray_option(p)
    p.add_argument("--wide", action="store_true", help="every column in the results table")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    add_game_options(p)
    p.set_defaults(handler=_tournament, mtl=30, rtl=15, btl=15, max_year=1915)


def _tournament(args: argparse.Namespace) -> int:
    import trio
    from rich.console import Console

    from bots.registry import BUNDLED
    from cli.options import game_settings
    from server.logs import configure_logging
    from tournament.records import TournamentLocked
    from tournament.runner import LineupError, Tournament, check_programs, labels_of, parse_lineup

    console = Console(stderr=True)
    # The results table goes to stdout: 80 columns unless --wide (or a wider terminal).
    wide = args.wide
    width = None if sys.stdout.isatty() else (160 if wide else 80)
    out = Console(width=width)
    if args.ray and ("=" in args.ray or args.ray.partition(":")[0].lower() in BUNDLED):
        print(
            f"error: --ray took the seat {args.ray!r} as its address: put --ray after the "
            "seats, or give the address (--ray auto, --ray HOST:PORT)",
            file=sys.stderr,
        )
        return 2
    if args.lineup and args.pool:
        print("error: give either seven seats or --pool SEAT ..., not both", file=sys.stderr)
        return 2
    try:
        seats = parse_lineup(args.pool or args.lineup, pool=bool(args.pool))
        settings = game_settings(args)
    except LineupError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except ValidationError as exc:
        print(f"error: {first_error(exc)}", file=sys.stderr)
        return 2
    if args.games < 1:
        print("error: --games must be at least 1", file=sys.stderr)
        return 2
    if args.hung_after < 1:
        print("error: --hung-after must be at least 1", file=sys.stderr)
        return 2
    problems = check_programs(seats)
    if problems:
        for line in problems:
            print(line, file=sys.stderr)
        print("error: no game was played; fix the line-up and run again", file=sys.stderr)
        return 2
    if args.games % 7 and not args.pool:
        console.print(
            f"[yellow]note:[/] {args.games} games is not a multiple of 7, so the bots will not "
            "play every power equally often"
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
    )
    try:
        try:
            _run_with_progress(tournament, console, args.quiet, trio)
        except BaseExceptionGroup as group:  # Ctrl-C arrives inside trio's nurseries
            if group.subgroup(KeyboardInterrupt) is not None:
                raise KeyboardInterrupt from None
            raise
    except KeyboardInterrupt:
        console.print("interrupted: run the same command again to resume")
        tournament.close()
        store.close()
        return 130
    except (TournamentLocked, LineupError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        tournament.close()
        store.close()
        return 2
    results = tournament.results()
    labels = labels_of(seats)
    bots = summarise(results, labels)
    if tournament.already_complete:
        console.print(
            f"tournament {tournament.key} was already complete: these are its stored results. "
            "To play a fresh one, change --seed (or --games), or use another --db."
        )
    out.print(f"tournament {tournament.key}: {len(results)} games in {store.path}")
    _print_table(bots, out, wide)
    bad = [s for g in results for s in g.seats if s.crashed or s.hung]
    if bad:
        out.print(
            f"{sum(s.crashed for s in bad)} crashed and {sum(s.hung for s in bad)} hung seats; "
            f"logs under {tournament.folder}"
        )
    if args.csv:
        _write_csv(args.csv, results)
    if args.json:
        _write_json(args.json, tournament.key, settings, bots, results, str(tournament.folder))
    tournament.close()
    store.close()
    return 0


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
    columns += ["crashed", "hung", "centres"]
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
        cells += [str(b.crashes), str(b.hung), f"{b.mean_centres:.1f}"]
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
                    "crashed", "hung", "stopped", "result", *SCORES, "log"])  # fmt: skip
        for g in results:
            scores = {k: fn(g) for k, fn in SCORERS.items()}
            kind = f"solo {g.winner}" if g.winner else "draw"
            for s in g.seats:
                w.writerow(
                    [g.game_id, g.index, s.power, s.label, s.seat or "", s.centres,
                     s.eliminated or "", int(s.crashed), int(s.hung), s.stopped or "", kind,
                     *(round(scores[k][s.power], 6) for k in SCORES), s.log or ""]
                )  # fmt: skip


def _write_json(
    path: Path,
    key: str,
    settings: GameSettings,
    bots: list[BotSummary],
    results: list[GameResult],
    folder: str,
) -> None:
    data = {
        "tournament": key,
        "folder": folder,
        "settings": settings.model_dump(),
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
                "players": [
                    {
                        "power": s.power,
                        "label": s.label,
                        "seat": s.seat,
                        "status": "hung" if s.hung else "crashed" if s.crashed else "played",
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
