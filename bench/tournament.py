"""Tournament benchmark: games per minute with 7 RandomBots (subprocesses over pipes, no
deadlines), and where the time goes.

    python bench/tournament.py                  # 14 games to 1910, parallel = cores
    python bench/tournament.py --games 7 --max-year 1905 --parallel 1

The bots run in their own processes, so their share is their CPU time (getrusage of the
children). In the server process, adjudication (engine.turn.process), the protocol (parsing
and rendering DAIDE) and persistence (the SQLite store) are timed by wrapping those functions
for the run; the rest of the server's CPU is the shell itself (trio, queues, game logic).
"""

from __future__ import annotations

import argparse
import functools
import os
import resource
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import trio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import protocol.codec as codec_module
import server.game as game_module
from server import store as store_module
from server.logs import configure_logging
from server.settings import GameSettings
from server.store import Store
from tournament.runner import Tournament, parse_lineup

SPENT: dict[str, float] = {"adjudication": 0.0, "protocol": 0.0, "persistence": 0.0}


def timed(bucket: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.process_time()
        try:
            return fn(*args, **kwargs)
        finally:
            SPENT[bucket] += time.process_time() - start

    return wrapper


def instrument() -> None:
    game_module.process = timed("adjudication", game_module.process)
    for name in ("parse_atoms", "parse_text", "parse_payload", "text", "payload", "dm"):
        setattr(codec_module.Codec, name, timed("protocol", getattr(codec_module.Codec, name)))
    for name in dir(store_module.Store):
        if not name.startswith("_") and callable(getattr(store_module.Store, name)):
            setattr(
                store_module.Store, name, timed("persistence", getattr(store_module.Store, name))
            )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--games", type=int, default=14)
    p.add_argument("--max-year", type=int, default=1910)
    p.add_argument("--parallel", type=int, default=os.cpu_count() or 1)
    args = p.parse_args()
    configure_logging("error")
    instrument()
    with tempfile.TemporaryDirectory() as d:
        store = Store(Path(d) / "bench.sqlite")
        settings = GameSettings(max_year=args.max_year)
        t = Tournament(
            store, parse_lineup(["randombot:7"]), settings, games=args.games, parallel=args.parallel
        )
        wall0, cpu0 = time.perf_counter(), time.process_time()
        kids0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        trio.run(t.run)
        wall = time.perf_counter() - wall0
        server_cpu = time.process_time() - cpu0
        kids1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        bots_cpu = (kids1.ru_utime - kids0.ru_utime) + (kids1.ru_stime - kids0.ru_stime)
        phases = sum(len(store.states(g.game_id)) - 1 for g in t.results())
        store.close()
    total = server_cpu + bots_cpu
    print(f"{args.games} games of 7 RandomBots to {args.max_year}, {args.parallel} at a time, "
          f"on {os.cpu_count()} cores:")  # fmt: skip
    print(f"  {args.games / wall * 60:.1f} games/minute, {phases / wall:.1f} phases/s, "
          f"{wall:.1f} s wall, {total:.1f} s CPU")  # fmt: skip
    shares = {
        "bots (7 processes per game)": bots_cpu,
        "adjudication": SPENT["adjudication"],
        "protocol": SPENT["protocol"],
        "persistence": SPENT["persistence"],
        "server shell (trio, queues, game logic)": server_cpu - sum(SPENT.values()),
    }
    for what, secs in shares.items():
        print(f"  {what:42s} {secs:7.2f} s CPU  {secs / total * 100:5.1f} %")


if __name__ == "__main__":
    main()
