"""Strength check: one DumbBot against six RandomBots, and against six HoldBots, seats rotated
so DumbBot plays every power equally often.

    python bench/strength.py                    # 14 games of each line-up, to 1910
    python bench/strength.py --games 28 --max-year 1915

Prints DumbBot's solo rate and its mean Sum-of-Squares share with a 95 % confidence interval,
against the 1/7 an equal bot would get, and says whether the interval excludes 1/7.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile
from pathlib import Path

import trio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from server.logs import configure_logging
from server.settings import GameSettings
from server.store import Store
from tournament.runner import Tournament, parse_lineup
from tournament.scoring import summarise


def wilson(k: int, n: int) -> tuple[float, float]:
    """95 % Wilson interval of a proportion."""
    if n == 0:
        return (0.0, 1.0)
    z = 1.96
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--games", type=int, default=14, help="games per line-up (a multiple of 7)")
    p.add_argument("--max-year", type=int, default=1910)
    p.add_argument("--parallel", type=int, default=os.cpu_count() or 1)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    configure_logging("error")
    baseline = 1 / 7
    for opponent in ("randombot", "holdbot"):
        with tempfile.TemporaryDirectory() as d:
            store = Store(Path(d) / "strength.sqlite")
            seats = parse_lineup(["dumbbot", f"{opponent}:6"])
            settings = GameSettings(max_year=args.max_year, move_time=30, retreat_time=15,
                                    build_time=15)  # fmt: skip
            t = Tournament(store, seats, settings, games=args.games, parallel=args.parallel,
                           seed=args.seed)  # fmt: skip
            trio.run(t.run)
            results = t.results()
            store.close()
        dumb = next(b for b in summarise(results, ["dumbbot", opponent]) if b.label == "dumbbot")
        lo, hi = wilson(dumb.solos, dumb.games)
        sos = dumb.estimate("sos")
        verdict = "excludes" if sos.mean - sos.ci95 > baseline else "does NOT exclude"
        print(f"1 DumbBot vs 6 {opponent}s, {dumb.games} games to {args.max_year}:")
        print(f"  solos {dumb.solos}/{dumb.games} = {dumb.solos / max(dumb.games, 1):.0%} "
              f"(95% CI {lo:.0%}-{hi:.0%}); mean centres {dumb.mean_centres:.1f}")  # fmt: skip
        print(f"  Sum-of-Squares share {sos.mean:.3f} ± {sos.ci95:.3f}: the interval {verdict} "
              f"1/7 = {baseline:.3f}")  # fmt: skip


if __name__ == "__main__":
    main()
