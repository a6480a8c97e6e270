"""The compiled bot search (``bots.compiled``) against the pure Python source: the same
decisions, and how much more a second of thought searches.

    .venv/bin/python bench/bots_compiled.py [--games 3] [--think 0.25] [--nodes 1500]
        [--repeat 3]

Both need the builds (``python -m diplomat.engine.compile``, ``python -m
diplomat.bots.compile``); the engine is compiled in both runs, so the difference is the
bots' own modules. A module cannot be loaded twice in one process under one name, so each
run is a process of its own
(``DIPLOMAT_BOTS=pure`` on the pure side keeps the bots' modules pure Python, the engine
compiled). The two alternate, which goes first alternating too, ``--repeat`` times, on the
same positions: the movement phases from 1902 to 1906 of ``--games`` games of seven DumbBots
(seeds 1, 2, ...), Bordeaux deciding for one power in each (the powers in turn).

Each run prints, per decision on average: with a node budget (``--nodes``: the same work on
both sides), wall and CPU time and microseconds per node; at ``--think`` seconds (as a bot
plays), the nodes searched and the time taken before the search starts (the opponent models,
DumbBot's evaluations). The orders chosen on the node budget must be the same on both sides
(a digest of them is compared); the figures are the best of the repeats.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import hashlib, json, random, sys, time
from diplomat.bots.base import View
from diplomat.bots.bordeaux import search as S
from diplomat.bots.bordeaux.bot import Bordeaux
from diplomat.bots.compiled import BOTS
from diplomat.bots.dumbbot import DumbBot
from diplomat.engine import compiled
from diplomat.engine.map import load_map
from diplomat.engine.state import initial_state
from diplomat.engine.turn import process

games, think, nodes = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
positions = []
for seed in range(1, games + 1):
    rng = random.Random(seed)
    state = initial_state(load_map("standard"))
    while state.phase.year <= 1906 and state.winner() is None:
        if state.phase.kind == "movement" and state.phase.year >= 1902:
            positions.append(state)
        orders = {p: DumbBot().orders(View(state, p, rng)) for p in state.alive()}
        state = process(state, orders).state

started = []
run = S.RES.run
def timed_run(self, budget):
    started.append(time.perf_counter())
    return run(self, budget)
S.RES.run = timed_run

def decide(i, state, bot):
    power = state.alive()[i % len(state.alive())]
    view = View(state, power, random.Random(i))
    bot.start(view)
    t0, c0 = time.perf_counter(), time.process_time()
    orders = bot.orders(view)
    t1, c1 = time.perf_counter(), time.process_time()
    return orders, t1 - t0, c1 - c0, started[-1] - t0, bot.decisions[-1].nodes

digest = hashlib.sha256()
wall = cpu = 0.0
counted = 0
for i, state in enumerate(positions):
    orders, w, c, _, n = decide(i, state, Bordeaux(nodes=nodes))
    digest.update(repr(sorted(map(str, orders))).encode())
    wall, cpu, counted = wall + w, cpu + c, counted + n
timed = [decide(i, s, Bordeaux(think=think)) for i, s in enumerate(positions)]
k = len(positions)
print(json.dumps({
    "path": compiled.describe(BOTS).split(": ")[1].split()[0],
    "decisions": k,
    "digest": digest.hexdigest()[:16],
    "budget_wall_ms": 1000 * wall / k,
    "budget_cpu_ms": 1000 * cpu / k,
    "us_per_node": 1e6 * cpu / counted,
    "think_nodes": sum(t[4] for t in timed) / k,
    "think_setup_ms": 1000 * sum(t[3] for t in timed) / k,
    "think_wall_ms": 1000 * sum(t[1] for t in timed) / k,
}))
"""


def _env(path: str) -> dict[str, str]:
    """The engine compiled on both sides; the bots' modules compiled on one."""
    env = {**os.environ, "DIPLOMAT_ENGINE": "compiled", "PYTHONPATH": str(ROOT)}
    if path == "pure":
        env["DIPLOMAT_BOTS"] = "pure"
    return env


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--games", type=int, default=3)
    p.add_argument("--think", type=float, default=0.25)
    p.add_argument("--nodes", type=int, default=1500)
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args()
    best: dict[str, dict[str, float]] = {}
    digests: dict[str, set[str]] = {"pure": set(), "compiled": set()}
    for r in range(args.repeat):
        order = ("pure", "compiled") if r % 2 == 0 else ("compiled", "pure")
        for path in order:
            done = subprocess.run(
                [sys.executable, "-c", CHILD, str(args.games), str(args.think), str(args.nodes)],
                env=_env(path),
                capture_output=True,
                text=True,
                cwd=ROOT,
            )
            if done.returncode != 0:
                print(f"the {path} run failed:\n{done.stderr[-3000:]}", file=sys.stderr)
                return 1
            got = json.loads(done.stdout)
            if got["path"] != path:
                print(f"asked for {path}, ran {got['path']}: build both first", file=sys.stderr)
                return 1
            digests[path].add(got["digest"])
            mine = best.setdefault(path, dict(got))
            for key in ("budget_wall_ms", "budget_cpu_ms", "us_per_node", "think_setup_ms"):
                mine[key] = min(mine[key], got[key])
            mine["think_nodes"] = max(mine["think_nodes"], got["think_nodes"])
    same = digests["pure"] == digests["compiled"] and len(digests["pure"]) == 1
    load = os.getloadavg()[0]
    print(f"{best['pure']['decisions']} decisions, best of {args.repeat}, load {load:.1f}")
    print(f"same orders on {args.nodes} nodes: {'yes' if same else 'NO'} {sorted(digests['pure'])}")
    print(f"{'':10} {'ms/decision':>12} {'CPU ms':>8} {'us/node':>8} "
          f"{'nodes at ' + str(args.think) + ' s':>16} {'set-up ms':>10}")  # fmt: skip
    for path in ("pure", "compiled"):
        b = best[path]
        print(
            f"{path:10} {b['budget_wall_ms']:12.1f} {b['budget_cpu_ms']:8.1f} "
            f"{b['us_per_node']:8.1f} {b['think_nodes']:16.0f} {b['think_setup_ms']:10.1f}"
        )
    ratio = best["pure"]["budget_cpu_ms"] / best["compiled"]["budget_cpu_ms"]
    more = best["compiled"]["think_nodes"] / best["pure"]["think_nodes"]
    print(f"compiled: {ratio:.2f}x the CPU speed on a node budget, {more:.2f}x the nodes at "
          f"{args.think} s")  # fmt: skip
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
