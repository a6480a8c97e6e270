"""Benchmark of the rules engine on games of random legal orders (figures only, no assertions).

    .venv/bin/python bench/adjudicate.py [--games 4] [--seed 1] [--max-year 1930] [--repeat 3]
    .venv/bin/python bench/adjudicate.py --vs-diplomacy      # with the diplomacy package

plays ``--games`` games with ``engine.simulate`` (fixed seeds) and keeps every phase's
position and orders, written as text. Over those phases it times, each the best of
``--repeat`` passes per phase, in wall time (``time.perf_counter``) and CPU time
(``time.process_time``):

- adjudication: ``engine.turn.process`` on a phase's validated orders, per phase type (the
  next state included: centres after the Fall, empty phases skipped, as the package's
  ``process`` does);
- validation: a fresh ``OrderSet``, then every order's text parsed and submitted;
- legal orders: ``engine.legal.legal_orders`` for all powers, from a fresh position.

Then whole games: random games played to ``--max-year``, phases per CPU-second (choosing the
orders from the legal ones included); candidate order sets per CPU-second adjudicated by
``engine.search.SearchPosition`` from one position; and the peak memory of playing the games. It
says whether the engine it ran is the pure Python one or the compiled one
(``python -m diplomat.engine.compile``).

``--vs-diplomacy`` runs the same workload through the ``diplomacy`` package (not a dependency:
``pip install diplomacy`` into the venv). Fairness: the two engines alternate phase by phase
(which one goes first alternates too), with the same passes; both get the orders as text where
the package does (its ``set_orders`` parses, so our validation parses too); each side's per-map
memos are warmed by an untimed pass first; setting a position up is never timed. Each side
runs its passes of a phase back to back, so each is timed in its own steady state: a call made
right after the other engine finds the processor's caches full of the other engine's data, a
fixed cost of tens of microseconds that weighs on the shorter call only. Those first passes are
reported too, as a second table and line. For every phase the package's next position and
order results are checked against ours with ``replay``'s comparison, and a difference counts
as explained only when re-running the phase under one of the package's documented DATC 2.x
rule choices gives the package's result. The last line is ``speed vs diplomacy VERSION:
movement Nx, retreat Nx, adjustment Nx, validate Nx, legal Nx``, each the lower of the
wall-time and the CPU-time ratio (package / engine).
"""

from __future__ import annotations

import argparse
import gc
import random
import resource
import sys
import time
import tracemalloc
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

try:
    from diplomat import engine  # noqa: F401
except ImportError:  # run from a venv without the project installed
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from diplomat.engine.compiled import describe
from diplomat.engine.legal import legal_orders
from diplomat.engine.map import load_map, province_of
from diplomat.engine.notation import parse_order
from diplomat.engine.orderset import OrderSet
from diplomat.engine.search import SearchPosition
from diplomat.engine.simulate import random_game
from diplomat.engine.state import GameState, initial_state
from diplomat.engine.turn import process
from diplomat.replay.games import read_saved_game, replay_game

KINDS = ("movement", "retreat", "adjustment")
METRICS = ("adjudicate", "validate", "legal")


@dataclass(frozen=True, slots=True)
class Sample:
    state: GameState
    orders: dict[str, list[str]]  # power -> order texts


def play(games: int, seed: int, max_year: int) -> list[Sample]:
    return [
        Sample(step.state, {p: [str(o) for o in os] for p, os in step.orders.items()})
        for g in range(games)
        for step in random_game(initial_state(load_map("standard")), seed + g, max_year)
    ]


@dataclass
class Clock:
    """Best wall and CPU seconds per phase, summed per (metric, phase kind)."""

    best: dict[tuple[str, int], tuple[float, float]] = field(default_factory=dict)

    def record(self, metric: str, i: int, wall: float, cpu: float) -> None:
        old = self.best.get((metric, i))
        self.best[(metric, i)] = (
            (wall, cpu) if old is None else (min(old[0], wall), min(old[1], cpu))
        )

    def per_phase(self, metric: str, indices: list[int]) -> tuple[float, float]:
        walls = [self.best[(metric, i)][0] for i in indices]
        cpus = [self.best[(metric, i)][1] for i in indices]
        return sum(walls) / len(indices), sum(cpus) / len(indices)


def timed(run: Callable[[], object]) -> tuple[float, float]:
    """Wall and CPU seconds of one call, with the collector paused (it runs between calls)."""
    gc.disable()
    try:
        wall, cpu = time.perf_counter(), time.process_time()
        run()
        return time.perf_counter() - wall, time.process_time() - cpu
    finally:
        gc.enable()


# -- this engine ----------------------------------------------------------------------------


def validate_texts(sample: Sample) -> OrderSet:
    state = sample.state
    kind = state.phase.kind
    board = {p: d.unit for p, d in state.dislodged.items()} if kind == "retreat" else state.units
    book = OrderSet(state)
    for power, texts in sample.orders.items():
        for text in texts:
            book.submit(power, parse_order(state.map, text, power, kind, board))
    return book


class Ours:
    name = "engine"

    def __init__(self, samples: list[Sample]) -> None:
        self.samples = samples
        self.books = [validate_texts(s) for s in samples]

    def measure(self, metric: str, i: int) -> tuple[float, float]:
        sample = self.samples[i]
        if metric == "adjudicate":
            book = self.books[i]
            return timed(lambda: process(sample.state, book))
        if metric == "validate":
            return timed(lambda: validate_texts(sample))
        return timed(lambda: legal_orders(sample.state))


# -- the diplomacy package ------------------------------------------------------------------


class Package:
    """The same positions and orders, in the ``diplomacy`` package's terms."""

    name = "package"

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
            {self.names[p]: [self.text(o) for o in os] for p, os in s.orders.items()}
            for s in samples
        ]
        self.processed: dict[int, Any] = {}  # phase -> the game after its first timed process

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

    def measure(self, metric: str, i: int) -> tuple[float, float]:
        game = self.game(i)  # a fresh game each time: process changes it, and nothing is reused
        if metric == "adjudicate":
            self.set_orders(game, i)
            spent = timed(game.process)
            self.processed.setdefault(i, game)
            return spent
        if metric == "validate":
            return timed(lambda: self.set_orders(game, i))
        return timed(game.get_all_possible_orders)

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


def check_agreement(pkg: Package, export: Callable[[Any], Any]) -> tuple[Counter[str], list[str]]:
    """Replay each phase the package processed against ours, as ``diplomat replay`` does a
    saved game: counts of 'agree', 'differ' and each set of rule choices that explains a
    difference, and the first difference of each phase that differs."""
    verdicts: Counter[str] = Counter()
    unexplained: list[str] = []
    for i in sorted(pkg.processed):
        saved = read_saved_game(export(pkg.processed[i]))
        for v in replay_game(saved).verdicts[:1]:
            key = v.status if v.status != "choice" else "explained by " + "; ".join(v.choices)
            verdicts[key] += 1
            if v.status == "differ":
                unexplained.append(f"{v.phase} (phase {i}): {v.differences[0]}")
    return verdicts, unexplained


# -- timing both, phase by phase ------------------------------------------------------------

Side = Ours | Package


def time_sides(
    sides: list[Side], samples: list[Sample], repeat: int
) -> tuple[dict[str, Clock], dict[str, Clock]]:
    """Every metric on every phase for each side in turn: the side that goes first alternates
    from phase to phase, and each side runs its ``repeat`` passes of a metric on a phase back
    to back, so that both are timed in their own steady state (best pass kept). Also returns
    each side's first pass of each phase, which runs with the caches full of what ran before
    (mostly the other engine), a cost that is the same few tens of microseconds for any
    call and so weighs on a short call far more than on a long one."""
    clocks = {side.name: Clock() for side in sides}
    firsts = {side.name: Clock() for side in sides}
    warm = [next(i for i, s in enumerate(samples) if s.state.phase.kind == k) for k in KINDS
            if any(s.state.phase.kind == k for s in samples)]  # fmt: skip
    for side in sides:  # untimed: fills each side's per-map memos
        for i in warm:
            for metric in METRICS:
                side.measure(metric, i)
    for i in range(len(samples)):
        if i % 50 == 0:
            gc.collect()
        for side in sides if i % 2 == 0 else sides[::-1]:
            for metric in METRICS:
                for rep in range(repeat):
                    spent = side.measure(metric, i)
                    clocks[side.name].record(metric, i, *spent)
                    if rep == 0:
                        firsts[side.name].record(metric, i, *spent)
    return clocks, firsts


def groups(samples: list[Sample]) -> dict[str, list[int]]:
    out = {k: [i for i, s in enumerate(samples) if s.state.phase.kind == k] for k in KINDS}
    out["all"] = list(range(len(samples)))
    return {k: v for k, v in out.items() if v}


ROWS = (
    ("movement", "adjudicate", "movement", "adjudicate a movement phase"),
    ("retreat", "adjudicate", "retreat", "adjudicate a retreat phase"),
    ("adjustment", "adjudicate", "adjustment", "adjudicate an adjustment phase"),
    ("validate", "validate", "all", "validate all orders (text), any phase"),
    ("legal", "legal", "all", "legal orders (all powers), any phase"),
)


def report(samples: list[Sample], clocks: dict[str, Clock]) -> tuple[list[str], dict[str, float]]:
    """The table, and per row the lower of the wall and CPU ratios (package / engine)."""
    idx = groups(samples)
    counts = {k: len(idx.get(k, ())) for k in KINDS}
    lines = [
        f"{len(samples)} phases: "
        + ", ".join(f"{counts[k]} {k}" for k in KINDS)
        + f"; {sum(len(os) for s in samples for os in s.orders.values())} orders"
    ]
    head = f"{'per phase':40} {'engine wall / CPU':>22}"
    if "package" in clocks:
        head += f" {'package wall / CPU':>22} {'ratio wall / CPU':>18}"
    lines.append(head)
    ratios: dict[str, float] = {}
    for key, metric, kind, label in ROWS:
        if kind not in idx:
            continue
        wall, cpu = clocks["engine"].per_phase(metric, idx[kind])
        row = f"{label:40} {f'{wall * 1e3:8.3f} / {cpu * 1e3:.3f} ms':>22}"
        if "package" in clocks:
            pwall, pcpu = clocks["package"].per_phase(metric, idx[kind])
            rw, rc = pwall / wall, pcpu / cpu if cpu else float("inf")
            ratios[key] = min(rw, rc)
            cell = f"{pwall * 1e3:8.3f} / {pcpu * 1e3:.3f} ms"
            row += f" {cell:>22} {f'{rw:6.1f}x / {rc:.1f}x':>18}"
        lines.append(row)
    return lines, ratios


# -- whole games ----------------------------------------------------------------------------


def our_game(seed: int, max_year: int) -> int:
    return sum(1 for _ in random_game(initial_state(load_map("standard")), seed, max_year))


def package_game(game_class: Any, seed: int, max_year: int) -> int:
    """Random games in the package: each orderable location picks one of its possible
    orders, as ``engine.simulate`` does with ours."""
    rng = random.Random(seed)
    game = game_class()
    phases = 0
    while not game.is_game_done and int(game.get_current_phase()[1:5]) <= max_year:
        possible = game.get_all_possible_orders()
        for power, locs in game.get_orderable_locations().items():
            orders = [rng.choice(sorted(possible[loc])) for loc in sorted(locs) if possible[loc]]
            game.set_orders(power, orders)
        game.process()
        phases += 1
    return phases


def games_per_cpu(players: dict[str, Callable[[int], int]], seeds: range) -> dict[str, float]:
    """Phases per CPU-second of whole random games, the players taking turns game by game."""
    phases = dict.fromkeys(players, 0)
    cpu = dict.fromkeys(players, 0.0)
    for n, seed in enumerate(seeds):
        order = list(players) if n % 2 == 0 else list(players)[::-1]
        for name in order:
            start = time.process_time()
            phases[name] += players[name](seed)
            cpu[name] += time.process_time() - start
    return {name: phases[name] / cpu[name] for name in players}


def search_rate(samples: list[Sample], per_position: int = 20, seed: int = 1) -> str:
    """Candidate order sets adjudicated per CPU-second by ``engine.search.SearchPosition`` from one
    position: for each movement phase, ``per_position`` order sets drawn at random from the
    position's listing (one order per unit), each adjudicated from the same ``SearchPosition``
    (building it and listing its orders are not timed: a bot does that once)."""
    rng = random.Random(seed)
    spent = 0.0
    count = 0
    for sample in samples:
        if sample.state.phase.kind != "movement":
            continue
        pos = SearchPosition(sample.state)
        by_power = {p: pos.legal(p) for p in sample.state.map.powers}
        candidates = [
            {p: [rng.choice(opts) for opts in legal.values()] for p, legal in by_power.items()}
            for _ in range(per_position)
        ]
        gc.disable()
        try:
            start = time.process_time()
            for orders in candidates:
                pos.adjudicate(orders)
            spent += time.process_time() - start
        finally:
            gc.enable()
        count += len(candidates)
    return (
        f"engine.search.SearchPosition.adjudicate: {count / spent:,.0f} candidate order sets per "
        f"CPU-second ({per_position} random legal sets from each movement position)"
    )


def engine_path() -> str:
    return describe()


def engine_memory(games: int, seed: int, max_year: int) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        play(games, seed, max_year)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def load_package() -> tuple[Any, Callable[[Any], Any], str] | None:
    try:
        from diplomacy import Game
        from diplomacy.utils.export import to_saved_game_format
    except ImportError:
        return None
    from importlib.metadata import version

    return Game, to_saved_game_format, version("diplomacy")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--games", type=int, default=4, help="games of random orders (default 4)")
    p.add_argument("--seed", type=int, default=1, help="seed of the first game (default 1)")
    p.add_argument("--max-year", type=int, default=1930, help="last year played (default 1930)")
    p.add_argument("--repeat", type=int, default=3, help="passes per timing, best kept (default 3)")
    p.add_argument(
        "--vs-diplomacy", action="store_true", help="run the same workload through the package"
    )
    args = p.parse_args(argv)

    t = time.perf_counter()
    samples = play(args.games, args.seed, args.max_year)
    print(
        f"played {args.games} games of random legal orders (seeds {args.seed}.."
        f"{args.seed + args.games - 1}) in {time.perf_counter() - t:.2f} s"
    )
    package = load_package() if args.vs_diplomacy else None
    if args.vs_diplomacy and package is None:
        print("--vs-diplomacy: the diplomacy package is not importable here; skipped")
    sides: list[Side] = [Ours(samples)]
    pkg = None
    if package is not None:
        pkg = Package(package[0], samples)
        sides.append(pkg)
    print(f"engine path: {engine_path()}")
    clocks, firsts = time_sides(sides, samples, args.repeat)
    lines, ratios = report(samples, clocks)
    print(f"best of {args.repeat} passes in a row per phase (steady state):")
    print("\n".join(lines))
    first_lines, first_ratios = report(samples, firsts)
    print("first pass of each phase only (caches full of what ran before, memos cold):")
    print("\n".join(first_lines[1:]))

    seeds = range(args.seed, args.seed + args.games)
    players: dict[str, Callable[[int], int]] = {
        "engine": lambda seed: our_game(seed, args.max_year)
    }
    if package is not None:
        game_class = package[0]
        players["package"] = lambda seed: package_game(game_class, seed, args.max_year)
    rates = games_per_cpu(players, seeds)
    print(
        f"whole random games to {args.max_year}: "
        + ", ".join(f"{name} {rate:,.0f} phases per CPU-second" for name, rate in rates.items())
    )
    print(search_rate(samples))

    memory = engine_memory(args.games, args.seed, args.max_year)
    print(
        f"peak memory (tracemalloc), playing the games with this engine: {memory / 2**20:.1f} MiB"
    )
    if pkg is not None and package is not None:
        print(
            "peak memory (tracemalloc), the package's pass over the same phases: "
            f"{pkg.memory() / 2**20:.1f} MiB"
        )
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"peak resident size of this whole run: {rss / 1024:.0f} MiB")
    if pkg is not None and package is not None:
        verdicts, unexplained = check_agreement(pkg, package[1])
        print(f"next positions and order results checked on {sum(verdicts.values())} phases:")
        for key, n in sorted(verdicts.items()):
            print(f"  {n:5} {key}")
        for line in unexplained:
            print(f"    differs: {line}")
        print(
            f"first passes only, vs diplomacy {package[2]}: "
            + ", ".join(f"{k} {first_ratios[k]:.1f}x" for k, *_ in ROWS if k in first_ratios)
        )
        print(
            f"speed vs diplomacy {package[2]}: "
            + ", ".join(f"{key} {ratios[key]:.1f}x" for key, *_ in ROWS if key in ratios)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
