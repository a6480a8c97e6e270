"""Strength of Bordeaux against a broad field, seats rotated so each bot plays every power
equally often, every seat's crashes, hangs and missed orders counted.

    python bench/strength.py                                  # every Bordeaux line-up, 14 games
    python bench/strength.py --lineups bx-variants --games 140 --think 0.5 --json out.jsonl
    python bench/strength.py --lineups pool --games 161 --think 0.5   # the mixed pool
    python bench/strength.py --lineups dumb-random,dumb-hold  # DumbBot's own check

Line-ups (one Bordeaux, ``bx``, against six of the field, unless said otherwise):

* ``bx-dumbbot``: six standard DumbBots (the bot its scenarios were first made for);
* ``bx-variants``: six DumbBots with weight sets Bordeaux's opponent models do not use
  (``farsighted``, ``erratic``, ``massing``, ``flat``, ``greedy`` and one set by ``--param``);
* ``bx-random``: six RandomBots;
* ``bx-noscen``: six Bordeaux with the scenarios off (``--param scenarios=0``);
* ``bx-params``: six Bordeaux with other parameters and think times;
* ``bx-self``: seven Bordeaux (how games end, the draw pattern);
* ``pool``: a mixed pool of eight drawn seven a game by the balanced schedule: ``bx``, a
  standard DumbBot, three DumbBot variants, two Bordeaux with the scenarios off (one with
  other parameters) and a RandomBot;
* ``dumb-random``, ``dumb-hold``: one DumbBot against six RandomBots, six HoldBots.

For each it prints every label's games, mean Sum-of-Squares share with its 95 % interval
(an equal bot gets 1/7), solos (95 % Wilson interval), crashes, hangs and missed orders (phases
where the seat owed orders and had none accepted), Bordeaux's thinking time and nodes per
movement phase from its logs, and the machine's load. ``--json PATH`` appends one line per
line-up with the command that reproduces it and every game's raw result, seat by seat.
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
from typing import Any

import trio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from diplomat.bots.compiled import BOTS
from diplomat.engine.compiled import describe as engine_path
from diplomat.engine.orderset import OrderSet
from diplomat.engine.state import GameState
from diplomat.server.logs import configure_logging
from diplomat.server.settings import GameSettings
from diplomat.server.store import Store
from diplomat.tournament.runner import Tournament, parse_lineup
from diplomat.tournament.scoring import GameResult, scored, sum_of_squares, summarise

DECISION = re.compile(r"\w\d{4}(\w): (\d+) nodes in ([0-9.]+) s")
LINEUPS = (
    "bx-dumbbot",
    "bx-variants",
    "bx-random",
    "bx-noscen",
    "bx-params",
    "bx-self",
    "pool",
    "dumb-random",
    "dumb-hold",
)
DEFAULT_LINEUPS = ("bx-dumbbot", "bx-variants", "bx-random", "bx-noscen", "pool")
# DumbBot weight sets outside Bordeaux's models (bots.bordeaux.models.MODELLED_WEIGHT_SETS),
# and one more made with --param.
VARIANTS = (
    "dfar=dumbbot --weights farsighted",
    "derr=dumbbot --weights erratic",
    "dmass=dumbbot --weights massing",
    "dflat=dumbbot --weights flat",
    "dgreedy=dumbbot --weights greedy",
    "dmix=dumbbot --param spring_attack=500 --param spring_defence=500 --param far=3",
)


def wilson(k: int, n: int) -> tuple[float, float]:
    """95 % Wilson interval of a proportion."""
    if n == 0:
        return (0.0, 1.0)
    z = 1.96
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def budget_words(args: argparse.Namespace, think: float | None = None) -> str:
    if args.nodes and think is None:
        return f"--nodes {args.nodes}"
    return f"--think {think if think is not None else args.think}"


def bordeaux_seat(args: argparse.Namespace) -> str:
    extra = " ".join(f"--param {shlex.quote(p)}" for p in args.param)
    # The bundled bot, forked by the bot host, under a label of its own (a line-up may not
    # reuse a bundled name as a label); -v logs each decision's nodes and time.
    return f"bx=bordeaux -v {budget_words(args)} {extra}".strip()


def seats_for(lineup: str, args: argparse.Namespace) -> tuple[list[str], str]:
    """The line-up's seat words and the label of the bot measured."""
    bx = bordeaux_seat(args)
    field = budget_words(args, args.field_think)
    noscen = f"bxoff=bordeaux {field} --param scenarios=0"
    other = (
        f"bxprox=bordeaux {field} --param scenarios=0 --param proximity=0.6 --param centre_next=0.8"
    )
    params = [
        f"bxslow=bordeaux --think {2 * (args.field_think or args.think):g}:2",
        f"bxfast=bordeaux --think {0.4 * (args.field_think or args.think):g}:2",
        f"bxcentre=bordeaux {field} --param centre_now=1.5 --param unit=0.2:2",
    ]
    return {
        "bx-dumbbot": ([bx, "dumbbot:6"], "bx"),
        "bx-variants": ([bx, *VARIANTS], "bx"),
        "bx-random": ([bx, "randombot:6"], "bx"),
        "bx-noscen": ([bx, f"{noscen}:6"], "bx"),
        "bx-params": ([bx, *params], "bx"),
        "bx-self": ([bx] * 7, "bx"),
        "pool": ([bx, "dumbbot", *VARIANTS[:3], noscen, other, "randombot"], "bx"),
        "dumb-random": (["dumbbot", "randombot:6"], "dumbbot"),
        "dumb-hold": (["dumbbot", "holdbot:6"], "dumbbot"),
    }[lineup]


def think_times(logs: Path, limit: float | None) -> tuple[float, float, float, int, int]:
    """Mean and longest seconds, mean nodes per movement decision, how many, and how many took
    longer than ``limit`` (its --think; None: none counted), from the measured Bordeaux's logs
    (the only seat started with -v)."""
    seconds: list[float] = []
    nodes: list[int] = []
    for path in logs.rglob("*.log"):
        for kind, n, s in DECISION.findall(path.read_text(errors="replace")):
            if kind == "M":
                seconds.append(float(s))
                nodes.append(int(n))
    if not seconds:
        return (0.0, 0.0, 0.0, 0, 0)
    n = len(seconds)
    over = 0 if limit is None else sum(1 for x in seconds if x > limit)
    return (sum(seconds) / n, max(seconds), sum(nodes) / n, n, over)


def missed_orders(store: Store, game: GameResult) -> dict[str, int]:
    """Per power: the phases in which it owed orders and had none accepted (it played them
    in civil disorder, or its orders came too late)."""
    missed: Counter[str] = Counter()
    states = store.states(game.game_id)
    for phase, data in states[:-1]:  # the last state is the end: nothing was ordered there
        state = GameState.from_json(data)
        book = OrderSet(state)
        ordered = {s.power for s in store.submissions(game.game_id, phase) if s.action == "sub"}
        for power in state.map.powers:
            if book.needs_orders(power) and power not in ordered:
                missed[power] += 1
    return {s.power: missed[s.power] for s in game.seats}


def raw_games(results: list[GameResult], missed: dict[int, dict[str, int]]) -> list[Any]:
    out = []
    for g in results:
        sos = sum_of_squares(g)
        out.append(
            {
                "index": g.index,
                "winner": g.winner,
                "reason": g.reason,
                "seats": [
                    {
                        "label": s.label,
                        "power": s.power,
                        "centres": s.centres,
                        "sos": sos[s.power],
                        "crashed": s.crashed,
                        "hung": s.hung,
                        "missed": missed[g.game_id].get(s.power, 0),
                    }
                    for s in g.seats
                ],
            }
        )
    return out


def run_lineup(lineup: str, args: argparse.Namespace) -> None:
    words, label = seats_for(lineup, args)
    pool = lineup == "pool"
    seats = parse_lineup(words, pool=pool)
    settings = GameSettings(max_year=args.max_year, move_time=args.mtl, retreat_time=args.rtl,
                            build_time=args.rtl, map="standard")  # fmt: skip
    load_before = os.getloadavg()
    # The bot hosts import the same builds (or none).
    engine = f"{engine_path()}; {engine_path(BOTS)}"
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as d:
        # A database of one's own (--db) keeps its seed secret: two runs there with one
        # --seed play the same seat seeds (a paired comparison); a new one draws new ones.
        store = Store(args.db or Path(d) / "strength.sqlite")
        logs = Path(d) / "tournament"  # per-seat logs, each game in a folder of its own
        t = Tournament(store, seats, settings, games=args.games, parallel=args.parallel,
                       seed=args.seed, pool=pool, folder=logs)  # fmt: skip
        trio.run(t.run)
        everything = t.results()
        # A game that lost a player before it started (played again up to the replay limit
        # and still short) says nothing of that seat's bot: left out of every figure.
        results = scored(everything)
        missed = {g.game_id: missed_orders(store, g) for g in results}
        store.close()
        limit = None if args.nodes else args.think
        mean_s, max_s, mean_nodes, decisions, over = think_times(logs, limit)
    minutes = (time.perf_counter() - start) / 60
    load_after = os.getloadavg()
    labels = list(dict.fromkeys(s.label for s in seats))
    summaries = summarise(results, labels)
    missed_by_label: Counter[str] = Counter()
    for g in results:
        for s in g.seats:
            missed_by_label[s.label] += missed[g.game_id].get(s.power, 0)
    print(f"{lineup}: {len(results)} games to {args.max_year} in {minutes:.1f} min, "
          f"load {load_before[0]:.1f} -> {load_after[0]:.1f} (15-min {load_after[2]:.1f}) "
          f"on {os.cpu_count()} cores")  # fmt: skip
    print(f"  seats: {' '.join(shlex.quote(w) for w in words)}")
    print(f"  incomplete games left out: {len(everything) - len(results)} "
          f"({t.stats.replays} played again)")  # fmt: skip
    print(f"  {engine}")
    if lineup == "bx-self":
        solos = sum(1 for g in results if g.winner is not None)
        sizes = Counter(
            sum(1 for s in g.seats if s.centres > 0) for g in results if g.winner is None
        )
        pattern = ", ".join(f"{n}-way {k}" for n, k in sorted(sizes.items()))
        print(f"  solos {solos}/{len(results)}; draws by size: {pattern or 'none'}")
    for b in sorted(summaries, key=lambda b: -b.estimate("sos").mean):
        sos = b.estimate("sos")
        lo, hi = wilson(b.solos, b.games)
        mark = " <-" if b.label == label else ""
        print(f"  {b.label:>9}: {b.games:4d} seats, Sum-of-Squares {sos.mean:.3f} ± "
              f"{sos.ci95:.3f}, solos {b.solos} ({lo:.0%}-{hi:.0%}), crashes {b.crashes}, "
              f"hangs {b.hung}, missed orders {missed_by_label[b.label]}{mark}")  # fmt: skip
    bot = next(b for b in summaries if b.label == label)
    sos = bot.estimate("sos")
    verdict = "excludes" if sos.mean - sos.ci95 > 1 / 7 else "does NOT exclude"
    print(f"  {label}: the interval {verdict} 1/7 = {1 / 7:.3f}", end="")
    others = [b for b in summaries if b.label != label]
    if others and lineup == "pool":
        top = max(others, key=lambda b: b.estimate("sos").mean + b.estimate("sos").ci95)
        e = top.estimate("sos")
        above = sos.mean - sos.ci95 > e.mean + e.ci95
        print(f"; {'above' if above else 'NOT above'} every other bot's interval "
              f"(highest: {top.label} up to {e.mean + e.ci95:.3f})", end="")  # fmt: skip
    print()
    if decisions:
        beyond = f"; {over} over the {limit:g} s" if limit is not None else ""
        print(f"  {label} thinking per movement phase: {mean_s:.3f} s (longest {max_s:.3f} s"
              f"{beyond}), {mean_nodes:.0f} nodes (mean of {decisions})")  # fmt: skip
    if args.json:
        record = {
            "command": "python " + " ".join(shlex.quote(a) for a in sys.argv),
            "lineup": lineup,
            "seats": words,
            "label": label,
            "seed": args.seed,
            "engine": engine,
            "games_played": len(results),
            "incomplete": len(everything) - len(results),
            "minutes": round(minutes, 2),
            "load": {"before": load_before, "after": load_after, "cores": os.cpu_count()},
            "think": {
                "mean": mean_s,
                "max": max_s,
                "nodes": mean_nodes,
                "decisions": decisions,
                "over": over,
            },
            "summary": {
                b.label: {
                    "seats": b.games,
                    "sos": b.estimate("sos").mean,
                    "ci95": b.estimate("sos").ci95,
                    "solos": b.solos,
                    "crashes": b.crashes,
                    "hangs": b.hung,
                    "missed": missed_by_label[b.label],
                }
                for b in summaries
            },
            "games": raw_games(results, missed),
        }
        with open(args.json, "a") as out:
            out.write(json.dumps(record) + "\n")
    sys.stdout.flush()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--games", type=int, default=14, help="games per line-up (a multiple of 7)")
    p.add_argument("--lineups", default=",".join(DEFAULT_LINEUPS),
                   help=f"comma-separated, from {', '.join(LINEUPS)} "
                   f"(default: {', '.join(DEFAULT_LINEUPS)})")  # fmt: skip
    p.add_argument("--max-year", type=int, default=1910)
    p.add_argument("--parallel", type=int, default=os.cpu_count() or 1)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--think", type=float, default=1.0, help="Bordeaux's seconds per phase")
    p.add_argument("--field-think", type=float, default=None,
                   help="the Bordeaux opponents' seconds per phase (default: --think)")  # fmt: skip
    p.add_argument("--nodes", type=int, default=None, help="Bordeaux's node budget instead")
    p.add_argument("--param", action="append", default=[], help="NAME=VALUE for Bordeaux")
    p.add_argument("--json", default=None,
                   help="append one line per line-up here: the command, the summary and "
                   "every game's raw result")  # fmt: skip
    p.add_argument("--db", type=Path, default=None,
                   help="play in this database (default: a temporary one); runs sharing it and "
                   "--seed play the same seat seeds")  # fmt: skip
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
