"""The ``diplomacy`` package's clients on one server, beside the same games over DAIDE.

    python bench/dipnet.py                       # 2 games at once, to 1902
    python bench/dipnet.py --games 4 --max-year 1904

Starts ``diplomat serve --diplomacy-port 0`` (a subprocess) and plays GAMES games at once of
seven random-order agents written against the package's own client library (one Tornado
process holds them all: ``--agents``), then as many games at once of seven bundled RandomBots
over DAIDE (subprocesses, on the same server). For each run it prints the phases played, the
phases per second, and the server process's CPU seconds per phase (its user and system time
from /proc, so the agents' and bots' own CPU is not counted).
"""

from __future__ import annotations

import argparse
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Generator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
# The project's packages first: bench/server.py and bench/protocol.py would shadow them.
sys.path.insert(0, str(ROOT))
POWERS = ["AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY"]


def cpu_seconds(pid: int) -> float:
    """User and system CPU seconds of process ``pid`` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def agents(port: int, games: int) -> None:
    """Seven random agents per game, all in this process's Tornado loop; prints the phases."""
    from diplomacy.client.connection import connect
    from diplomacy.utils.exceptions import GamePhaseException, ResponseException
    from tornado import gen, ioloop

    @gen.coroutine
    def agent(game: Any, rng: random.Random) -> Generator[Any, Any, int]:
        played = 0
        seen = ""
        while not game.is_game_done:
            phase = game.get_current_phase()
            if game.status == "active" and phase != seen:
                seen = phase
                played += 1
                possible = game.get_all_possible_orders()
                locs = game.get_orderable_locations(game.role)
                orders = [rng.choice(possible[loc]) for loc in locs if possible.get(loc)]
                if phase.endswith("A"):
                    count = game.get_state()["builds"][game.role]["count"]
                    wanted = " B" if count > 0 else " D"
                    orders = [o for o in orders if o.endswith(wanted)][: abs(count)]
                    orders += ["WAIVE"] * (count - len(orders))
                try:
                    yield game.set_orders(orders=orders, wait=False)
                except GamePhaseException:  # the server is not there yet: again
                    seen = ""
                except ResponseException:  # orders the server refused, or the game ended
                    pass
            yield gen.sleep(0.01)
        return played

    @gen.coroutine
    def main() -> Generator[Any, Any, None]:
        conn = yield connect("127.0.0.1", port)
        seats = []
        for g in range(games):
            host = yield conn.authenticate(f"host{g}", "pw")
            first = yield host.create_game(
                map_name="standard", rules=["POWER_CHOICE"], deadline=0, power_name=POWERS[0]
            )
            seats.append(first)
            for k, power in enumerate(POWERS[1:], 1):
                user = yield conn.authenticate(f"u{g}-{k}", "pw")
                seats.append((yield user.join_game(game_id=first.game_id, power_name=power)))
        rng = random.Random(1)
        yield [agent(game, rng) for game in seats]
        print("phases", len({(g.game_id, p) for g in seats for p in g.state_history}))

    ioloop.IOLoop.current().run_sync(main, timeout=3600)


def serve(db: Path, max_year: int) -> tuple[subprocess.Popen[str], int, int]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "diplomat.cli.main", "serve", "--port", "0", "--no-web",
         "--diplomacy-port", "0", "--max-year", str(max_year), "--db", str(db),
         "--log-level", "warning"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=ROOT,
    )  # fmt: skip
    assert proc.stdout is not None
    daide = package = 0
    while not (daide and package):
        line = proc.stdout.readline()
        if not line:
            raise SystemExit("the server did not start")
        if found := re.search(r"serving DAIDE on [\d.]+:(\d+)", line):
            daide = int(found.group(1))
        if found := re.search(r"ws://[\d.]+:(\d+)", line):
            package = int(found.group(1))
    return proc, daide, package


def stored_phases(db: Path) -> int:
    from diplomat.server.store import Store

    store = Store(db)
    try:
        return sum(len(store.states(g.id)) - 1 for g in store.games() if g.status == "finished")
    finally:
        store.close()


def measure(label: str, proc: subprocess.Popen[str], run: Any) -> tuple[int, float, float]:
    cpu0, t0 = cpu_seconds(proc.pid), time.perf_counter()
    phases = run()
    wall, cpu = time.perf_counter() - t0, cpu_seconds(proc.pid) - cpu0
    print(
        f"{label}: {phases} phases in {wall:.1f} s: {phases / wall:.1f} phases/s, "
        f"server CPU {1000 * cpu / max(phases, 1):.1f} ms/phase"
    )
    return phases, wall, cpu


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=2)
    p.add_argument("--max-year", type=int, default=1902)
    p.add_argument("--agents", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.agents is not None:
        agents(args.agents, args.games)
        return
    print(f"load: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.sqlite"
        proc, daide, package = serve(db, args.max_year)
        try:

            def package_run() -> int:
                out = subprocess.run(
                    [sys.executable, __file__, "--agents", str(package),
                     "--games", str(args.games)],
                    capture_output=True, text=True, check=True, cwd=ROOT,
                )  # fmt: skip
                return int(out.stdout.split()[-1]) - args.games  # (each game's first phase)

            def daide_run() -> int:
                before = stored_phases(db)
                bots = [
                    subprocess.Popen(
                        [
                            sys.executable,
                            "-m",
                            "diplomat.bots.randombot",
                            "--port",
                            str(daide),
                            "--seed",
                            str(k),
                            "--reconnect",
                            "0",
                        ],
                        stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL,
                        cwd=ROOT,
                    )
                    for k in range(7 * args.games)
                ]
                for bot in bots:
                    bot.wait(3600)
                return stored_phases(db) - before

            measure(f"{args.games} package games (7 package agents each)", proc, package_run)
            measure(f"{args.games} DAIDE games (7 RandomBots each)", proc, daide_run)
        finally:
            proc.terminate()
            proc.wait(60)


if __name__ == "__main__":
    main()
