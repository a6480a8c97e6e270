"""``engine.search`` now against an earlier commit's, in one process (figures only).

    .venv/bin/python bench/search.py [--before bb2392a] [--games 2] [--per-position 40]
        [--repeat 5] [--max-year 1910] [--profile]

The earlier engine is taken from git (``git archive REV engine``) into a temporary folder as
the package ``engine_before`` (its imports renamed, its compiled-build finder left out, so it
always runs pure Python). Both engines get the same work, what a search bot such as Bordeaux
does in a movement phase: one :class:`SearchPosition` per position, its legal orders listed once,
then many candidate order sets (one listed order per unit, every power's) adjudicated from it,
handed over as Bordeaux's adapter hands them (orders per power). The same sets are also judged
into an ``OrderSet`` beforehand and given to ``engine.turn.process``, the adjudication that
``bench/adjudicate.py`` times per phase. The positions are those of random games played by
this engine (moved to the earlier one through ``GameState.to_json``); each candidate set is the
same choice of listed orders in both (matched by their text).

Timing: the two engines alternate position by position (which goes first alternates too);
each runs its ``--repeat`` passes over a position's candidate sets back to back, the best
pass kept, in wall time (``time.perf_counter``) and CPU time (``time.process_time``), with
the garbage collector paused. Building the positions, listing their orders and judging the
sets for ``process`` are not timed. Every candidate's next position, dislodged units and
order results are checked equal between the two engines, for both measures. ``--profile``
prints each engine's cProfile of ``engine.search`` over one more pass.

This engine is the one ``DIPLOMAT_ENGINE`` selects (``auto``: compiled if built); the
earlier one is always pure Python, so compare like with like: ``DIPLOMAT_ENGINE=pure``.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import importlib
import io
import pstats
import random
import re
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any

try:
    from diplomat import engine  # noqa: F401
except ImportError:  # run from a venv without the project installed
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from diplomat.engine.compiled import describe
from diplomat.engine.map import load_map
from diplomat.engine.orderset import OrderSet
from diplomat.engine.search import SearchPosition
from diplomat.engine.simulate import random_game
from diplomat.engine.state import GameState, initial_state
from diplomat.engine.turn import process

ROOT = Path(__file__).resolve().parent.parent
LABELS = {
    "search": "diplomat.engine.search.SearchPosition.adjudicate",
    "process": "engine.turn.process of a judged OrderSet",
}
BEFORE = "engine_before"
_IMPORT = re.compile(r"\b(from|import) engine\b")


def load_before(rev: str, folder: Path) -> ModuleType:
    """``engine.search`` as it was at ``rev``, imported as ``engine_before.search``."""
    data = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", rev, "engine"],
        check=True,
        capture_output=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(folder, filter="data")
    package = folder / BEFORE
    (folder / "engine").rename(package)
    for path in package.glob("*.py"):
        text = _IMPORT.sub(lambda m: f"{m.group(1)} {BEFORE}", path.read_text())
        path.write_text(text)
    # Always pure Python: no finder for a compiled build.
    (package / "__init__.py").write_text('"""The engine as it was, for bench/search.py."""\n')
    sys.path.insert(0, str(folder))
    return importlib.import_module(f"{BEFORE}.search")


@dataclass
class Side:
    """One engine's work, position by position, and its best time per position."""

    name: str
    work: list[list[Callable[[], Any]]]  # per position: one call per candidate set
    best: list[tuple[float, float]]

    def run(self, i: int) -> list[Any]:
        return [job() for job in self.work[i]]

    def time(self, i: int) -> tuple[float, float]:
        gc.disable()
        try:
            wall, cpu = time.perf_counter(), time.process_time()
            self.run(i)
            return time.perf_counter() - wall, time.process_time() - cpu
        finally:
            gc.enable()

    def record(self, i: int, spent: tuple[float, float]) -> None:
        old = self.best[i]
        self.best[i] = (min(old[0], spent[0]), min(old[1], spent[1]))


def movement_states(games: int, seed: int, max_year: int) -> list[GameState]:
    return [
        step.state
        for g in range(games)
        for step in random_game(initial_state(load_map("standard")), seed + g, max_year)
        if step.state.phase.kind == "movement"
    ]


def _search_class(before: ModuleType) -> Any:
    """The earlier engine's search class (``SearchPosition`` since it was renamed from
    ``Position``, which the default ``--before`` commit still calls it)."""
    found = getattr(before, "SearchPosition", None) or getattr(before, "Position", None)
    if found is None:
        raise SystemExit(f"{before.__name__} has neither SearchPosition nor Position")
    return found


def make_sides(
    states: list[GameState], before: ModuleType, per_position: int, seed: int
) -> dict[str, tuple[Side, Side]]:
    """Both engines' work for each measure, on the same random choices of listed orders:
    ``search``, ``engine.search.SearchPosition.adjudicate`` of each candidate set (orders per
    power, as Bordeaux's adapter gives them); ``process``, ``engine.turn.process`` of the
    same sets judged beforehand into an ``OrderSet`` (what ``bench/adjudicate.py`` times)."""
    rng = random.Random(seed)
    old_state = importlib.import_module(f"{BEFORE}.state").GameState
    old_map = importlib.import_module(f"{BEFORE}.map")
    old_book = importlib.import_module(f"{BEFORE}.orderset").OrderSet
    old_process = importlib.import_module(f"{BEFORE}.turn").process
    maps: dict[str, Any] = {}
    sides = {
        measure: (Side("now", [], []), Side("before", [], [])) for measure in ("search", "process")
    }
    for state in states:
        gmap = maps.get(state.map.name)
        if gmap is None:
            gmap = maps[state.map.name] = old_map.load_map(state.map.name)
        pos = SearchPosition(state)
        old = _search_class(before)(old_state.from_json(state.to_json(), gmap))
        new_legal = {p: pos.legal(p) for p in state.map.powers}
        old_legal = {  # the same orders, by their text (a listing's order may differ)
            p: {loc: {str(o): o for o in opts} for loc, opts in old.legal(p).items()}
            for p in state.map.powers
        }
        ours: list[dict[str, list[Any]]] = []
        theirs: list[dict[str, list[Any]]] = []
        for _ in range(per_position):
            a: dict[str, list[Any]] = {}
            b: dict[str, list[Any]] = {}
            for p, legal in new_legal.items():
                for loc, opts in legal.items():
                    order = rng.choice(opts)
                    a.setdefault(p, []).append(order)
                    b.setdefault(p, []).append(old_legal[p][loc][str(order)])
            ours.append(a)
            theirs.append(b)
        now, then = sides["search"]
        now.work.append([partial(pos.adjudicate, orders) for orders in ours])
        then.work.append([partial(old.adjudicate, orders) for orders in theirs])
        now, then = sides["process"]
        now.work.append([partial(process, state, _judged(OrderSet(state), o)) for o in ours])
        then.work.append(
            [partial(old_process, old.state, _judged(old_book(old.state), o)) for o in theirs]
        )
    for pair in sides.values():
        for side in pair:
            side.best = [(float("inf"), float("inf"))] * len(states)
    return sides


def _judged(book: Any, orders: dict[str, list[Any]]) -> Any:
    book.submit_all(orders)
    return book


def outcome(result: Any) -> tuple[object, ...]:
    """What a candidate led to (an ``Adjudication`` or a ``PhaseResult``), in text both
    engines write alike."""
    state = result.state
    return (
        str(state.phase),
        sorted(u.describe() for u in state.units.values()),
        sorted(o.unit.describe() for o, r in result.results if r.dislodged),
        sorted(f"{o} {r}" for o, r in result.results),
    )


def check_same(now: Side, then: Side) -> int:
    checked = 0
    for i in range(len(now.work)):
        for a, b in zip(now.run(i), then.run(i), strict=True):
            if outcome(a) != outcome(b):
                raise SystemExit(f"position {i}: the engines disagree\n{outcome(a)}\n{outcome(b)}")
            checked += 1
    return checked


def time_sides(now: Side, then: Side, repeat: int) -> None:
    for i in range(len(now.work)):
        if i % 25 == 0:
            gc.collect()
        for side in (now, then) if i % 2 == 0 else (then, now):
            for _ in range(repeat):
                side.record(i, side.time(i))


def profile(side: Side) -> str:
    """cProfile of one pass over every position of ``side``, by time spent in each function."""
    prof = cProfile.Profile()
    prof.enable()
    for i in range(len(side.work)):
        side.run(i)
    prof.disable()
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(18)
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--before", default="bb2392a", help="the earlier commit (default bb2392a)")
    p.add_argument("--games", type=int, default=2, help="random games (default 2)")
    p.add_argument("--seed", type=int, default=1, help="seed of the first game (default 1)")
    p.add_argument("--max-year", type=int, default=1910, help="last year played (default 1910)")
    p.add_argument(
        "--per-position", type=int, default=40, help="candidate sets per position (default 40)"
    )
    p.add_argument("--repeat", type=int, default=5, help="passes per position, best kept")
    p.add_argument("--profile", action="store_true", help="cProfile a pass of each")
    args = p.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        before = load_before(args.before, Path(tmp))
        states = movement_states(args.games, args.seed, args.max_year)
        sides = make_sides(states, before, args.per_position, args.seed)
        checked = sum(check_same(now, then) for now, then in sides.values())
        print(f"this engine: {describe()}; before: {args.before}, pure Python")
        print(
            f"{len(states)} movement positions x {args.per_position} candidate sets; "
            f"{checked} outcomes checked equal"
        )
        count = len(states) * args.per_position
        for measure, (now, then) in sides.items():
            time_sides(now, then, args.repeat)
            print(f"{LABELS[measure]}, per candidate set, best of {args.repeat} passes:")
            figures = {}
            for side in (then, now):
                wall = sum(w for w, _ in side.best) / count
                cpu = sum(c for _, c in side.best) / count
                figures[side.name] = (wall, cpu)
                print(f"  {side.name:7} {wall * 1e6:8.1f} us wall  {cpu * 1e6:8.1f} us CPU")
            (bw, bc), (nw, nc) = figures["before"], figures["now"]
            print(f"  now / before: wall {nw / bw:.3f}, CPU {nc / bc:.3f}")
        if args.profile:
            for side in sides["search"][::-1]:
                print(f"cProfile of engine.search, {side.name}:")
                print(profile(side))
    return 0


if __name__ == "__main__":
    sys.exit(main())
