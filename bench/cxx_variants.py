"""The classic C++ DumbBot (a real DAIDE client that learns any map from the MDF) on variants.

    DIPLOMAT_CXX_DUMBBOT=/path/to/dumbbot python bench/cxx_variants.py
    DIPLOMAT_CXX_DUMBBOT=... python bench/cxx_variants.py --maps hundred3 sailho world3 --games 2

The binary is not part of the project: build it from the public ``diplomacy/daide-client``
repository (``cmake .. && make dumbbot``; set ``m_size_square_coefficient`` to +1 in
``bots/dumbbot/dumbbot.h``, the published DumbBot's value, to undo a 2019 sign error; the
project ships neither that code nor a binary).

For each map a tournament of ``--games`` games runs on an in-process server: the C++ DumbBot
in every other seat (TCP, binary DAIDE: it gets the RM, asks for the MDF and plays the
variant unchanged) and the bundled DumbBot in the rest, seats rotated. Per map it prints the
games, how each ended (solo or draw, the year), the C++ seats' mean centres, crashes and hangs,
and the wall time, with the load average before and after.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import trio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from diplomat.engine.map import load_map
from diplomat.server.logs import configure_logging
from diplomat.server.settings import GameSettings
from diplomat.server.store import Store
from diplomat.tournament.runner import Tournament, parse_lineup
from diplomat.tournament.scoring import scored

ENV = "DIPLOMAT_CXX_DUMBBOT"
DEFAULT_MAPS = ("hundred3", "sailho", "chromatic", "african2", "standard", "americas4", "world3")


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def lineup(binary: str, powers: int) -> list[str]:
    """Every other seat the C++ bot, the others the bundled DumbBot."""
    cxx = (powers + 1) // 2
    words = [f"cxx={binary} -i{{host}} -p{{port}}:{cxx}"]
    if powers - cxx:
        words.append(f"dumbbot:{powers - cxx}")
    return words


def play(binary: str, name: str, games: int, years: int, parallel: int) -> str:
    gmap = load_map(name)
    settings = GameSettings(
        map=name, move_time=30, retreat_time=15, build_time=15,
        max_year=gmap.start_year + years - 1,
    )  # fmt: skip
    with tempfile.TemporaryDirectory() as d:
        store = Store(Path(d) / "bench.sqlite")
        t = Tournament(
            store,
            parse_lineup(lineup(binary, len(gmap.powers)), powers=len(gmap.powers)),
            settings,
            games=games,
            parallel=parallel,
            folder=Path(d) / "logs",
        )
        start = time.perf_counter()
        trio.run(t.run)
        wall = time.perf_counter() - start
        everything = t.results()
        results = scored(everything)  # a game that lost a player before it started says nothing
        ends = []
        for row in store.games(tournament=t.key):
            if row.result is not None:
                kind = row.result["kind"]
                who = f" {row.result['powers'][0]}" if kind == "solo" else ""
                ends.append(f"{kind}{who} {row.result.get('year', '?')}")
            else:
                ends.append(f"{row.status} at {row.phase}")
        cxx = [s for g in results for s in g.seats if s.label == "cxx"]
        crashed = sum(s.crashed for s in cxx)
        hung = sum(s.hung for s in cxx)
        centres = sum(s.centres for s in cxx) / max(len(cxx), 1)
        solos = sum(1 for g in results for s in g.seats if s.power == g.winner and s.label == "cxx")
        t.close()
        store.close()
    return (
        f"{name:17} {len(gmap.powers):2} powers: {len(results)}/{games} games finished "
        f"(incomplete, left out: {len(everything) - len(results)}) "
        f"({'; '.join(ends)}); C++ seats {len(cxx)}, mean centres {centres:.1f}, "
        f"solos {solos}, crashed {crashed}, hung {hung}; {wall:.1f} s"
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--maps", nargs="+", default=list(DEFAULT_MAPS))
    p.add_argument("--games", type=int, default=1, help="games per map (default 1)")
    p.add_argument("--years", type=int, default=15, help="years per game (default 15)")
    p.add_argument("--parallel", type=int, default=1)
    args = p.parse_args()
    binary = os.environ.get(ENV)
    if not binary or not Path(binary).is_file():
        sys.exit(f"set {ENV} to the C++ DumbBot binary (see this script's docstring)")
    configure_logging("error")
    print(f"C++ DumbBot {binary} on {len(args.maps)} maps; before: {load()}")
    for name in args.maps:
        print(play(binary, name, args.games, args.years, args.parallel), flush=True)
    print(f"after: {load()}")


if __name__ == "__main__":
    main()
