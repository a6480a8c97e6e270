"""The ``diplomacy`` package's clients on one server, beside the same games over DAIDE.

    python bench/dipnet.py                       # 2 games at once, to 1902, 2 rounds
    python bench/dipnet.py --games 4 --max-year 1904 --rounds 3

Starts ``diplomat serve --diplomacy-port 0`` (a subprocess) and plays GAMES games at once of
seven random-order agents written against the package's own client library (one Tornado
process holds them all: ``--agents``), then as many games at once of seven bundled RandomBots
over DAIDE (subprocesses, on the same server), alternating for ROUNDS rounds. Each side's
games must all end. For each side it prints the phases played, the phases per second, and the
server process's CPU seconds per phase (its user and system time from /proc, so the agents'
and bots' own CPU is not counted). The package side is timed from when its agents have
signed in: a sign-in hashes the password (scrypt, about 20 ms of the server's CPU each).
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

    from examples.package_random_agent import choose_orders

    @gen.coroutine
    def agent(game: Any, rng: random.Random) -> Generator[Any, Any, int]:
        played = 0
        seen = ""
        while not game.is_game_done:
            phase = game.get_current_phase()
            if game.status == "active" and phase != seen:
                seen = phase
                played += 1
                try:
                    yield game.set_orders(orders=choose_orders(game, rng), wait=False)
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
        print("joined", flush=True)  # the sign-ins (scrypt) are done: the bench's mark
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


def stored(db: Path) -> tuple[int, int]:
    """Finished games in the store, and the phases they played."""
    from diplomat.server.store import Store

    store = Store(db)
    try:
        done = [g for g in store.games() if g.status == "finished"]
        return len(done), sum(len(store.states(g.id)) - 1 for g in done)
    finally:
        store.close()


class Run:
    """One side's games: the phases played, the wall and server CPU seconds, from a mark
    (after the package's sign-ins, which hash passwords) to the games' end."""

    def __init__(self, label: str, proc: subprocess.Popen[str], db: Path, games: int) -> None:
        self.label, self.proc, self.db, self.games = label, proc, db, games
        self.phases = 0
        self.wall = self.cpu = 0.0

    def mark(self) -> tuple[float, float]:
        return cpu_seconds(self.proc.pid), time.perf_counter()

    def add(self, start: tuple[float, float], before: tuple[int, int]) -> None:
        cpu0, t0 = start
        self.wall += time.perf_counter() - t0
        self.cpu += cpu_seconds(self.proc.pid) - cpu0
        finished, phases = stored(self.db)
        if finished - before[0] != self.games:  # both sides must play every game to its end
            raise SystemExit(f"{self.label}: {finished - before[0]} of {self.games} games ended")
        self.phases += phases - before[1]

    def report(self) -> None:
        print(
            f"{self.label}: {self.phases} phases in {self.wall:.1f} s: "
            f"{self.phases / self.wall:.1f} phases/s, server CPU "
            f"{1000 * self.cpu / max(self.phases, 1):.1f} ms/phase"
        )


def package_round(run: Run, package: int) -> None:
    before = stored(run.db)
    agents = subprocess.Popen(
        [sys.executable, __file__, "--agents", str(package), "--games", str(run.games)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=ROOT,
    )  # fmt: skip
    assert agents.stdout is not None
    while (line := agents.stdout.readline()) and line.strip() != "joined":
        pass
    start = run.mark()
    agents.communicate(timeout=3600)
    if agents.returncode:
        raise SystemExit(f"the package's agents failed ({agents.returncode})")
    run.add(start, before)


def daide_round(run: Run, daide: int) -> None:
    before = stored(run.db)
    start = run.mark()
    command = [sys.executable, "-m", "diplomat.bots.randombot", "--port", str(daide)]
    bots = [
        subprocess.Popen(
            [*command, "--seed", str(k), "--reconnect", "0"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd=ROOT,
        )
        for k in range(7 * run.games)
    ]
    for bot in bots:
        bot.wait(3600)
    run.add(start, before)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=2)
    p.add_argument("--max-year", type=int, default=1902)
    p.add_argument("--rounds", type=int, default=2, help="rounds of each side, alternating")
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
            ours = Run(f"{args.games} package games (7 package agents each)", proc, db, args.games)
            theirs = Run(f"{args.games} DAIDE games (7 RandomBots each)", proc, db, args.games)
            for _ in range(args.rounds):
                package_round(ours, package)
                daide_round(theirs, daide)
            ours.report()
            theirs.report()
        finally:
            proc.terminate()
            proc.wait(60)
        print(f"load: {os.getloadavg()[0]:.2f} after")


if __name__ == "__main__":
    main()
