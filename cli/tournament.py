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

from cli.options import add_db_option, add_game_options, first_error, open_store
from server.settings import GameSettings
from tournament.scoring import SCORERS, SCORES, BotSummary, GameResult, summarise

SCORE_TITLES = {"sos": "SoS", "dss": "DSS", "cdiplo": "C-Diplo", "pot": "Pot"}


def register(sub: Any) -> None:
    p = sub.add_parser(
        "tournament",
        help="play games of a line-up of bots and score them",
        description=(
            "Run GAMES games of seven subprocess bots on an in-process server and print a "
            "table per bot. A seat is a bundled bot (holdbot, randombot, dumbbot), NAME:K for "
            "K seats of it, or LABEL='command template' for any program: {host} {port} make "
            "it a TCP bot, otherwise it speaks DAIDE text on stdin/stdout; {seed} {power} "
            "{game} are filled in. Seats rotate over the powers. Re-running the same command "
            "resumes the tournament."
        ),
        epilog="example: diplomat tournament dumbbot randombot:6 --games 14 --max-year 1910",
    )
    p.add_argument("lineup", nargs="+", metavar="SEAT", help="seven seats in all")
    p.add_argument("--games", type=int, default=7, help="number of games (default 7)")
    p.add_argument(
        "--parallel",
        type=int,
        default=os.cpu_count() or 1,
        help="games played at once (default: the number of cores)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed for the bots (default 0)")
    add_db_option(p)
    p.add_argument("--csv", type=Path, help="write per-game, per-seat results as CSV")
    p.add_argument("--json", type=Path, help="write the summary and every game as JSON")
    p.add_argument("--bot-logs", type=Path, help="keep each bot's stderr in this folder")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    add_game_options(p)
    p.set_defaults(handler=_tournament, mtl=30, rtl=15, btl=15, max_year=1915)


def _tournament(args: argparse.Namespace) -> int:
    import trio
    from rich.console import Console

    from cli.options import game_settings
    from server.logs import configure_logging
    from tournament.runner import LineupError, Tournament, labels_of, parse_lineup

    console = Console(stderr=True)
    # The results table goes to stdout, wide enough to read in a log file too.
    out = Console(width=None if sys.stdout.isatty() else 150)
    try:
        seats = parse_lineup(args.lineup)
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
    if args.games % 7:
        console.print(
            f"[yellow]note:[/] {args.games} games is not a multiple of 7, so the bots will not "
            "play every power equally often"
        )
    configure_logging("warning", stream=sys.stderr)
    store = open_store(args, must_exist=False)
    if store is None:
        return 2
    tournament = Tournament(
        store,
        seats,
        settings,
        games=args.games,
        parallel=args.parallel,
        seed=args.seed,
        bot_logs=args.bot_logs,
    )
    try:
        _run_with_progress(tournament, console, args.quiet, trio)
    except KeyboardInterrupt:
        console.print("interrupted: run the same command again to resume")
        store.close()
        return 130
    results = tournament.results()
    labels = labels_of(seats)
    bots = summarise(results, labels)
    out.print(f"tournament {tournament.key}: {len(results)} games in {store.path}")
    _print_table(bots, out)
    if args.csv:
        _write_csv(args.csv, results)
    if args.json:
        _write_json(args.json, tournament.key, settings, bots, results)
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


def _print_table(bots: list[BotSummary], console: Any) -> None:
    from rich.table import Table

    table = Table(title="results per bot (mean ± 95% CI per seat played)")
    for col in ("bot", "games", "solos", "draws", "survived", "eliminated", "centres"):
        table.add_column(col, justify="left" if col == "bot" else "right")
    for k in SCORES:
        table.add_column(SCORE_TITLES[k], justify="right")
    table.add_column("rating mu±sigma", justify="right")
    for b in sorted(bots, key=lambda b: -b.estimate("sos").mean):
        cells = [
            b.label,
            str(b.games),
            str(b.solos),
            str(b.draws),
            str(b.survivals),
            str(b.eliminated),
            f"{b.mean_centres:.1f}",
        ]
        for k in SCORES:
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
        w.writerow(["game_id", "index", "power", "label", "centres", "eliminated", "crashed",
                    "result", *SCORES])  # fmt: skip
        for g in results:
            scores = {k: fn(g) for k, fn in SCORERS.items()}
            kind = f"solo {g.winner}" if g.winner else "draw"
            for s in g.seats:
                w.writerow(
                    [g.game_id, g.index, s.power, s.label, s.centres, s.eliminated or "",
                     int(s.crashed), kind, *(round(scores[k][s.power], 6) for k in SCORES)]
                )  # fmt: skip


def _write_json(
    path: Path,
    key: str,
    settings: GameSettings,
    bots: list[BotSummary],
    results: list[GameResult],
) -> None:
    data = {
        "tournament": key,
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
            }
            for g in results
        ],
    }
    path.write_text(json.dumps(data, indent=1))


def _finite(x: float) -> float | None:
    return None if x == float("inf") else x
