"""Strength of the bundled bots, seats rotated so each bot plays every power equally often.

    python bench/strength.py                                  # every line-up, 14 games each
    python bench/strength.py --games 280 --think 1.0          # the full Bordeaux measurement
    python bench/strength.py --lineups bx-dumbbot --games 28 --nodes 2000
    python bench/strength.py --lineups dumb-random,dumb-hold  # DumbBot's own check

Line-ups: ``bx-dumbbot`` (one Bordeaux against six DumbBots), ``bx-random`` (against six
RandomBots), ``bx-self`` (seven Bordeaux: how games end, the draw pattern), ``dumb-random`` and
``dumb-hold`` (one DumbBot against six RandomBots, six HoldBots). For the one-against-six
line-ups it prints the solo rate (95 % Wilson interval) and the mean Sum-of-Squares share with
its 95 % interval, against the 1/7 an equal bot gets; for Bordeaux also its mean thinking time
per movement phase and the nodes it searched (from its logs), and the machine's load.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shlex
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import trio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from server.logs import configure_logging
from server.settings import GameSettings
from server.store import Store
from tournament.runner import Tournament, parse_lineup
from tournament.scoring import summarise

DECISION = re.compile(r"\w\d{4}(\w): (\d+) nodes in ([0-9.]+) s")
LINEUPS = ("bx-dumbbot", "bx-random", "bx-self", "dumb-random", "dumb-hold")


def wilson(k: int, n: int) -> tuple[float, float]:
    """95 % Wilson interval of a proportion."""
    if n == 0:
        return (0.0, 1.0)
    z = 1.96
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def bordeaux_seat(args: argparse.Namespace) -> str:
    budget = f"--nodes {args.nodes}" if args.nodes else f"--think {args.think}"
    extra = " ".join(f"--param {shlex.quote(p)}" for p in args.param)
    # The bundled bot, forked by the bot host, under a label of its own (a line-up may not
    # reuse a bundled name as a label); -v logs each decision's nodes and time.
    return f"bx=bordeaux -v {budget} {extra}".strip()


def seats_for(lineup: str, args: argparse.Namespace) -> tuple[list[str], str]:
    """The line-up's seat words and the label of the bot measured."""
    bx = bordeaux_seat(args)
    return {
        "bx-dumbbot": ([bx, "dumbbot:6"], "bx"),
        "bx-random": ([bx, "randombot:6"], "bx"),
        "bx-self": ([bx] * 7, "bx"),
        "dumb-random": (["dumbbot", "randombot:6"], "dumbbot"),
        "dumb-hold": (["dumbbot", "holdbot:6"], "dumbbot"),
    }[lineup]


def think_times(logs: Path) -> tuple[float, float, float, int]:
    """Mean and longest seconds, mean nodes per movement decision, and how many, from
    Bordeaux's logs."""
    seconds: list[float] = []
    nodes: list[int] = []
    for path in logs.rglob("*.log"):
        for kind, n, s in DECISION.findall(path.read_text(errors="replace")):
            if kind == "M":
                seconds.append(float(s))
                nodes.append(int(n))
    if not seconds:
        return (0.0, 0.0, 0.0, 0)
    n = len(seconds)
    return (sum(seconds) / n, max(seconds), sum(nodes) / n, n)


def run_lineup(lineup: str, args: argparse.Namespace) -> None:
    words, label = seats_for(lineup, args)
    seats = parse_lineup(words)
    settings = GameSettings(max_year=args.max_year, move_time=args.mtl, retreat_time=args.rtl,
                            build_time=args.rtl)  # fmt: skip
    load_before = os.getloadavg()[0]
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as d:
        store = Store(Path(d) / "strength.sqlite")
        logs = Path(d) / "tournament"  # per-seat logs, each game in a folder of its own
        t = Tournament(store, seats, settings, games=args.games, parallel=args.parallel,
                       seed=args.seed, folder=logs)  # fmt: skip
        trio.run(t.run)
        results = t.results()
        store.close()
        mean_s, max_s, mean_nodes, decisions = think_times(logs)
    minutes = (time.perf_counter() - start) / 60
    load_after = os.getloadavg()[0]
    labels = sorted({s.label for s in seats})
    bot = next(b for b in summarise(results, labels) if b.label == label)
    if args.json:
        with open(args.json, "a") as out:
            out.write(json.dumps({"lineup": lineup, "label": label, "seed": args.seed,
                                  "sos": bot.scores["sos"], "centres": bot.centres,
                                  "solos": bot.solos, "games": bot.games}) + "\n")  # fmt: skip
    print(f"{lineup}: {len(results)} games to {args.max_year} in {minutes:.1f} min, "
          f"load {load_before:.1f} -> {load_after:.1f} on {os.cpu_count()} cores")  # fmt: skip
    if lineup == "bx-self":
        solos = sum(1 for g in results if g.winner is not None)
        sizes = Counter(
            sum(1 for s in g.seats if s.centres > 0) for g in results if g.winner is None
        )
        pattern = ", ".join(f"{n}-way {k}" for n, k in sorted(sizes.items()))
        print(f"  solos {solos}/{len(results)}; draws by size: {pattern or 'none'}")
    else:
        lo, hi = wilson(bot.solos, bot.games)
        sos = bot.estimate("sos")
        verdict = "excludes" if sos.mean - sos.ci95 > 1 / 7 else "does NOT exclude"
        print(f"  {label}: solos {bot.solos}/{bot.games} = {bot.solos / max(bot.games, 1):.0%} "
              f"(95% CI {lo:.0%}-{hi:.0%}); mean centres {bot.mean_centres:.1f}; "
              f"crashes {bot.crashes}")  # fmt: skip
        print(f"  Sum-of-Squares share {sos.mean:.3f} ± {sos.ci95:.3f}: the interval {verdict} "
              f"1/7 = {1 / 7:.3f}")  # fmt: skip
    if label == "bx" and decisions:
        print(f"  thinking per movement phase: {mean_s:.3f} s (longest {max_s:.3f} s), "
              f"{mean_nodes:.0f} nodes (mean of {decisions})")  # fmt: skip
    sys.stdout.flush()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--games", type=int, default=14, help="games per line-up (a multiple of 7)")
    p.add_argument("--lineups", default=",".join(LINEUPS[:3]),
                   help=f"comma-separated, from {', '.join(LINEUPS)} "
                   "(default: the Bordeaux ones)")  # fmt: skip
    p.add_argument("--max-year", type=int, default=1910)
    p.add_argument("--parallel", type=int, default=os.cpu_count() or 1)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--think", type=float, default=1.0, help="Bordeaux's seconds per phase")
    p.add_argument("--nodes", type=int, default=None, help="Bordeaux's node budget instead")
    p.add_argument("--param", action="append", default=[], help="NAME=VALUE for Bordeaux")
    p.add_argument("--json", default=None, help="append each line-up's per-seat scores here")
    p.add_argument("--mtl", type=int, default=30, help="movement deadline (s)")
    p.add_argument("--rtl", type=int, default=15, help="retreat and build deadlines (s)")
    args = p.parse_args()
    lineups = [x.strip() for x in args.lineups.split(",") if x.strip()]
    unknown = [x for x in lineups if x not in LINEUPS]
    if unknown:
        p.error(f"unknown line-up {', '.join(unknown)}; choose from {', '.join(LINEUPS)}")
    configure_logging("error")
    for lineup in lineups:
        run_lineup(lineup, args)


if __name__ == "__main__":
    main()
