"""Scenarios for the Ray tests, run one after another on one Ray cluster on this machine
(:mod:`tournament.local_ray`), in namespaces of its own (as root)::

    unshare --net --pid --fork --mount-proc \\
        python -m tests.tournament.raycluster DIR SCENARIO [SCENARIO ...]

* ``match``: a tournament on the cluster and the same tournament (same seeds) run locally;
  prints both results as JSON;
* ``incomplete``: a tournament on the cluster with a TCP program that never connects: the
  worker plays the game again, then out; prints how the game and the seat were recorded;
* ``resume``: ``kill -9`` of a ``diplomat tournament --ray`` driver after its first stored
  game, then the same command again; prints what the database holds.

Each scenario prints one ``RESULT NAME JSON`` line (``{"error": ...}`` if it raised, so that
the others still run). One cluster serves them all: starting one takes longer than most
scenarios, and each scenario keeps its own database under DIR.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
import traceback
from pathlib import Path
from typing import Any

from diplomat.tournament.local_ray import Cluster

ROOT = Path(__file__).resolve().parent.parent.parent


def diplomat(*args: str) -> list[str]:
    return [sys.executable, "-m", "diplomat.cli.main", "tournament", *args]


def finished_games(db: Path) -> int:
    if not db.exists():
        return 0
    con = sqlite3.connect(db, timeout=30)
    try:
        return int(con.execute("SELECT count(*) FROM games WHERE status='finished'").fetchone()[0])
    except sqlite3.OperationalError:
        return 0
    finally:
        con.close()


def match(folder: Path, cluster: Cluster) -> dict[str, Any]:
    """The same tournament on the cluster and here: each game's seats and outcome."""
    import trio

    from diplomat.server.logs import configure_logging
    from diplomat.server.settings import GameSettings
    from diplomat.server.store import Store
    from diplomat.tournament.records import Records
    from diplomat.tournament.runner import Tournament, parse_lineup

    configure_logging("error")
    out: dict[str, Any] = {}
    secret = b"the same seat seeds in both databases"
    for where, ray in (("ray", cluster.address), ("local", None)):
        store = Store(folder / f"{where}.sqlite")
        records = Records(str(store.path))
        records.adopt_secret(secret)
        records.close()
        t = Tournament(
            store,
            parse_lineup(["dumbbot:2", "randombot:3", "holdbot:2"]),
            GameSettings(max_year=1903, map="standard"),
            games=4,
            parallel=2,
            seed=11,
            ray=ray,
        )
        trio.run(t.run)
        out[where] = {
            "games": [
                {
                    "index": g.index,
                    "winner": g.winner,
                    "seats": sorted((s.power, s.label, s.centres, s.crashed) for s in g.seats),
                }
                for g in t.results()
            ],
            "nodes": dict(t.stats.nodes),
        }
        t.close()
        store.close()
    return out


def resume(folder: Path, cluster: Cluster) -> dict[str, Any]:
    db = folder / "resume.sqlite"
    cmd = diplomat("randombot:7", "--games", "6", "--max-year", "1903", "--seed", "5", "--quiet",
                   "--db", str(db), "--ray", cluster.address)  # fmt: skip
    first = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    while finished_games(db) < 1 and time.monotonic() < deadline and first.poll() is None:
        time.sleep(0.2)
    stored_before = finished_games(db)
    first.send_signal(signal.SIGKILL)
    first.wait()
    # Run again, and kill a Ray worker in the middle of a game: only that game is lost, and
    # Ray plays it again.
    second = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)  # fmt: skip
    killed = None
    deadline = time.monotonic() + 300
    while killed is None and second.poll() is None and time.monotonic() < deadline:
        killed = _kill_a_game_worker()
        time.sleep(0.2)
    _, err = second.communicate(timeout=600)
    con = sqlite3.connect(db)
    names = [r[0] for r in con.execute("SELECT name FROM games WHERE status='finished'")]
    con.close()
    return {"stored_before_kill": stored_before, "second_run": second.returncode,
            "killed_worker": killed, "stderr": err[-2000:], "finished": sorted(names)}  # fmt: skip


def incomplete(folder: Path, cluster: Cluster) -> dict[str, Any]:
    import trio

    from diplomat.server.logs import configure_logging
    from diplomat.server.settings import GameSettings
    from diplomat.server.store import Store
    from diplomat.tournament.runner import Tournament, parse_lineup

    configure_logging("error")
    store = Store(folder / "incomplete.sqlite")
    code = "import time; print('waiting for a licence server', flush=True); time.sleep(600)"
    never = f'never={sys.executable} -c "{code}" {{port}}'
    settings = GameSettings(
        max_year=1901, move_time=5, retreat_time=5, build_time=5, map="standard"
    )
    t = Tournament(store, parse_lineup(["holdbot:6", never]), settings, games=1, parallel=1,
                   seed=3, ray=cluster.address, join_timeout=5, replays=1)  # fmt: skip
    trio.run(t.run)
    (game,) = t.results()
    out = {
        "incomplete": game.incomplete,
        "absent": [(s.label, s.detail) for s in game.seats if s.absent],
        "played": sum(s.status == "played" for s in game.seats),
        "replays": t.stats.replays,
    }
    t.close()
    store.close()
    return out


def _kill_a_game_worker() -> int | None:
    """SIGKILL one Ray worker process that is playing a game; its pid (None: none found)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            title = (entry / "cmdline").read_bytes().split(b"\0")[0]
        except OSError:
            continue
        if title.startswith(b"ray::play_record"):
            os.kill(int(entry.name), signal.SIGKILL)
            return int(entry.name)
    return None


SCENARIOS = {"match": match, "incomplete": incomplete, "resume": resume}


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("folder", type=Path)
    p.add_argument("scenarios", nargs="+", choices=list(SCENARIOS))
    p.add_argument("--nodes", type=int, default=2)
    p.add_argument("--cpus", type=int, default=1)
    args = p.parse_args()
    cluster = Cluster(args.nodes, args.cpus, args.folder / "cluster")
    try:
        cluster.start()
        for name in args.scenarios:
            folder = args.folder / name
            folder.mkdir(parents=True, exist_ok=True)
            try:
                result = SCENARIOS[name](folder, cluster)
            except Exception:  # reported in its own test; the next scenarios still run
                result = {"error": traceback.format_exc()}
            print(f"RESULT {name} " + json.dumps(result), flush=True)
    finally:
        cluster.stop()


if __name__ == "__main__":
    main()
