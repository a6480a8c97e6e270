"""Benchmark of the rules engine on games of random legal orders (figures only, no assertions).

    .venv/bin/python bench/adjudicate.py [--games 4] [--seed 1] [--max-year 1930]

plays ``--games`` games with ``engine.simulate`` (fixed seeds), keeps every phase's position
and orders, then times, over all those phases:

- adjudication: ``engine.turn.process`` on orders already validated, per phase type;
- legal orders: ``engine.legal.legal_orders`` for all powers, per phase;
- validation: a fresh ``OrderSet`` and ``submit`` of every order of the phase, per phase;

and the peak memory (tracemalloc) of playing the games. Each timing is the best of
``--repeat`` passes over all phases.

With ``--vs-diplomacy`` the same positions and orders also go through the ``diplomacy``
package, if it is importable (it is not a dependency: run this script with a scratch
environment's python that has it, the project is found through this file's location):
its ``Game`` is set to each position (``set_state``, not timed), then ``set_orders`` for
every power is timed as validation, ``get_all_possible_orders`` as legal orders and
``process`` as adjudication, and the ratio package / engine is printed per metric.
"""

from __future__ import annotations

import argparse
import gc
import resource
import sys
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

try:
    import engine  # noqa: F401
except ImportError:  # run from a venv without the project installed
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.legal import legal_orders
from engine.map import province_of
from engine.orders import Order
from engine.orderset import OrderSet
from engine.simulate import random_game
from engine.state import GameState
from engine.turn import process

KINDS = ("movement", "retreat", "adjustment")


@dataclass(frozen=True, slots=True)
class Sample:
    state: GameState
    orders: dict[str, list[Order]]


def play(games: int, seed: int, max_year: int) -> list[Sample]:
    out: list[Sample] = []
    for g in range(games):
        for step in random_game(seed + g, max_year):
            out.append(Sample(step.state, step.orders))
    return out


def best_of(repeat: int, run: Callable[[], float]) -> float:
    """The fastest of ``repeat`` passes; the collector is paused so passes compare."""
    times = []
    for _ in range(repeat):
        gc.collect()
        gc.disable()
        try:
            times.append(run())
        finally:
            gc.enable()
    return min(times)


# -- this engine ----------------------------------------------------------------------------


def time_engine(samples: list[Sample], repeat: int) -> dict[str, float]:
    """Seconds per phase for each metric (``adjudicate:<kind>``, ``legal``, ``validate``)."""
    books = []
    for s in samples:
        book = OrderSet(s.state)
        book.submit_all(s.orders)
        books.append(book)
    out: dict[str, float] = {}
    for kind in KINDS:
        pairs = [
            (s.state, b) for s, b in zip(samples, books, strict=True) if s.state.phase.kind == kind
        ]
        if not pairs:
            continue

        def adjudicate(pairs: list[tuple[GameState, OrderSet]] = pairs) -> float:
            t = time.perf_counter()
            for state, book in pairs:
                process(state, book)
            return time.perf_counter() - t

        out[f"adjudicate:{kind}"] = best_of(repeat, adjudicate) / len(pairs)

    groups = {kind: [s for s in samples if s.state.phase.kind == kind] for kind in KINDS}
    groups["all"] = samples
    for kind, group in groups.items():
        if not group:
            continue

        def legal(group: list[Sample] = group) -> float:
            t = time.perf_counter()
            for s in group:
                legal_orders(s.state)
            return time.perf_counter() - t

        def validate(group: list[Sample] = group) -> float:
            t = time.perf_counter()
            for s in group:
                book = OrderSet(s.state)
                for power, orders in s.orders.items():
                    for order in orders:
                        book.submit(power, order)
            return time.perf_counter() - t

        out[f"legal:{kind}"] = best_of(repeat, legal) / len(group)
        out[f"validate:{kind}"] = best_of(repeat, validate) / len(group)
    return out


def engine_memory(games: int, seed: int, max_year: int) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        play(games, seed, max_year)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


# -- the diplomacy package ------------------------------------------------------------------


class Package:
    """The same positions and orders, in the ``diplomacy`` package's terms."""

    def __init__(self, game_class: Any, samples: list[Sample]) -> None:
        self.game_class = game_class
        gmap = samples[0].state.map
        # The package's ids for the three seas this map names otherwise.
        self.ids = {
            tok: alias for alias, tok in gmap.aliases.items() if alias in ("ENG", "BOT", "LYO")
        }
        self.names = {p: info.name.upper() for p, info in gmap.power_info.items()}
        self.states = [self.state(s.state) for s in samples]
        self.orders = [
            {self.names[p]: [self.text(str(o)) for o in os] for p, os in s.orders.items()}
            for s in samples
        ]
        self.kinds = [s.state.phase.kind for s in samples]

    def loc(self, loc: str) -> str:
        prov = province_of(loc)
        return self.ids.get(prov, prov) + loc[len(prov) :]

    def text(self, order: str) -> str:
        return " ".join(self.ids.get(w, w) for w in order.split())

    def state(self, state: GameState) -> dict[str, Any]:
        units: dict[str, list[str]] = {n: [] for n in self.names.values()}
        retreats: dict[str, dict[str, list[str]]] = {n: {} for n in self.names.values()}
        centres: dict[str, list[str]] = {n: [] for n in self.names.values()}
        for u in state.units.values():
            units[self.names[u.power]].append(f"{u.type} {self.loc(u.loc)}")
        for d in state.dislodged.values():
            unit = f"{d.unit.type} {self.loc(d.unit.loc)}"
            units[self.names[d.unit.power]].append("*" + unit)
            retreats[self.names[d.unit.power]][unit] = [self.loc(r) for r in d.retreats]
        for c, p in state.centres.items():
            centres[self.names[p]].append(self.loc(c))
        homes = {self.names[p]: [self.loc(h) for h in hs] for p, hs in state.map.homes.items()}
        return {
            "name": state.phase.name,
            "units": units,
            "retreats": retreats,
            "centers": centres,
            "homes": homes,
        }

    def game(self, i: int) -> Any:
        game = self.game_class()
        game.set_state(self.states[i])
        return game

    def set_orders(self, game: Any, i: int) -> None:
        for power, orders in self.orders[i].items():
            game.set_orders(power, orders)

    def timed(self, indices: list[int], repeat: int, what: str) -> float:
        """Best-of total seconds of ``what`` over the phases; setting each position up is
        not timed (a fresh game for ``process``, which changes it; one game per phase for
        the rest, its orders cleared between passes)."""
        games = {} if what == "adjudicate" else {i: self.game(i) for i in indices}
        best = float("inf")
        for _ in range(repeat):
            total = 0.0
            gc.collect()  # once a pass: a full collection costs far more than one phase
            for i in indices:
                if what == "adjudicate":
                    game = self.game(i)
                    self.set_orders(game, i)
                else:
                    game = games[i]
                    game.clear_orders()
                gc.disable()
                try:
                    t = time.perf_counter()
                    if what == "adjudicate":
                        game.process()
                    elif what == "legal":
                        game.get_all_possible_orders()
                    else:
                        self.set_orders(game, i)
                    total += time.perf_counter() - t
                finally:
                    gc.enable()
            best = min(best, total)
        return best

    def time_all(self, repeat: int) -> dict[str, float]:
        out: dict[str, float] = {}
        groups = {k: [i for i, kind in enumerate(self.kinds) if kind == k] for k in KINDS}
        groups["all"] = list(range(len(self.states)))
        for kind, idx in groups.items():
            if not idx:
                continue
            if kind != "all":
                out[f"adjudicate:{kind}"] = self.timed(idx, repeat, "adjudicate") / len(idx)
            out[f"legal:{kind}"] = self.timed(idx, repeat, "legal") / len(idx)
            out[f"validate:{kind}"] = self.timed(idx, repeat, "validate") / len(idx)
        return out

    def memory(self) -> int:
        gc.collect()
        tracemalloc.start()
        try:
            for i in range(len(self.states)):
                game = self.game(i)
                game.get_all_possible_orders()
                self.set_orders(game, i)
                game.process()
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()


# -- report -----------------------------------------------------------------------------------

LABELS = {
    "adjudicate:movement": "adjudicate a movement phase",
    "adjudicate:retreat": "adjudicate a retreat phase",
    "adjudicate:adjustment": "adjudicate an adjustment phase",
    "legal:movement": "legal orders (all powers), movement",
    "legal:retreat": "legal orders (all powers), retreat",
    "legal:adjustment": "legal orders (all powers), adjustment",
    "legal:all": "legal orders (all powers), any phase",
    "validate:movement": "validate all orders, movement",
    "validate:retreat": "validate all orders, retreat",
    "validate:adjustment": "validate all orders, adjustment",
    "validate:all": "validate all orders, any phase",
}
TARGETS = ("adjudicate:movement", "legal:all", "validate:all")


def report(
    samples: list[Sample], ours: dict[str, float], theirs: dict[str, float] | None
) -> list[str]:
    counts = {k: sum(1 for s in samples if s.state.phase.kind == k) for k in KINDS}
    lines = [
        f"{len(samples)} phases: "
        + ", ".join(f"{counts[k]} {k}" for k in KINDS)
        + f"; {sum(len(os) for s in samples for os in s.orders.values())} orders"
    ]
    head = f"{'metric':38} {'engine':>22}"
    if theirs is not None:
        head += f" {'diplomacy package':>22} {'package/engine':>15}"
    lines.append(head)
    for key, label in LABELS.items():
        if key not in ours:
            continue
        per = ours[key]
        cell = f"{per * 1e3:8.3f} ms {1 / per:8.0f}/s"
        row = f"{label:38} {cell:>22}"
        if theirs is not None and key in theirs:
            other = theirs[key]
            row += f" {f'{other * 1e3:8.3f} ms {1 / other:8.0f}/s':>22} {other / per:14.1f}x"
        lines.append(row)
    return lines


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--games", type=int, default=4, help="games of random orders (default 4)")
    p.add_argument("--seed", type=int, default=1, help="seed of the first game (default 1)")
    p.add_argument("--max-year", type=int, default=1930, help="last year played (default 1930)")
    p.add_argument("--repeat", type=int, default=5, help="passes per timing, best kept (default 5)")
    p.add_argument(
        "--vs-diplomacy",
        action="store_true",
        help="run the same workload through the diplomacy package",
    )
    args = p.parse_args(argv)

    t = time.perf_counter()
    samples = play(args.games, args.seed, args.max_year)
    played = time.perf_counter() - t
    print(
        f"played {args.games} games of random legal orders "
        f"(seeds {args.seed}..{args.seed + args.games - 1}) in {played:.2f} s"
    )
    ours = time_engine(samples, args.repeat)
    theirs = None
    package_memory = None
    if args.vs_diplomacy:
        try:
            from diplomacy import Game  # type: ignore[import-not-found]
        except ImportError:
            print("--vs-diplomacy: the diplomacy package is not importable here; skipped")
        else:
            pkg = Package(Game, samples)
            pkg.game(0)  # the first Game() loads the package's map caches
            theirs = pkg.time_all(max(1, min(args.repeat, 3)))
            package_memory = pkg.memory()
    for line in report(samples, ours, theirs):
        print(line)
    memory = engine_memory(args.games, args.seed, args.max_year)
    print(
        f"peak memory (tracemalloc), playing the games with this engine: {memory / 2**20:.1f} MiB"
    )
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"peak resident size of this whole run: {rss / 1024:.0f} MiB")
    if package_memory is not None:
        print(
            "peak memory (tracemalloc), the package's pass over the same phases: "
            f"{package_memory / 2**20:.1f} MiB"
        )
    if theirs is not None:
        for key in TARGETS:
            ratio = theirs[key] / ours[key]
            verdict = "meets" if ratio >= 10 else "MISSES"
            print(f"target 10x on {LABELS[key]}: {ratio:.1f}x, {verdict} it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
