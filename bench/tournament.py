"""Tournament benchmark: games per minute of seven bundled bots, and where the time goes.

    python bench/tournament.py                          # 70 games of dumbbot:7 to 1910
    python bench/tournament.py --games 700 --bots randombot:7 --parallel 2
    python bench/tournament.py --games 14 --max-year 1905 --bots randombot:6 \
        "pkg=$PWD/.venv/bin/python $PWD/examples/package_random_agent.py --host {host}
        --port {diplomacy_port} --game {game_id} --power {power_name} --user {user}
        --password {password} --seed {seed}"    # an agent of the diplomacy package in a seat
    python bench/tournament.py --ray                    # on Ray: a 1-node, then a 2-node cluster
                                                        # on this machine (root; loopback only)

Every game's time is split into start-up (from creating the game until its first phase: the
bots are forked by the bot host, connect, join and accept the map) and play (from then to the
end). Waiting is what is left of the run's game slots (wall time x parallel games) outside any
game: the driver between games, and slots left idle at the end. The seat latency is the time
from asking the host for a bundled bot to its NME reaching the game. The load average is
printed with every figure: other work on the machine slows everything down.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import trio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from diplomat.server.logs import configure_logging
from diplomat.server.settings import GameSettings
from diplomat.server.store import Store
from diplomat.tournament.runner import Tournament, parse_lineup


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def run(args: argparse.Namespace, ray: str | None = None) -> dict[str, float]:
    configure_logging("error")
    with tempfile.TemporaryDirectory() as d:
        store = Store(Path(d) / "bench.sqlite")
        settings = GameSettings(max_year=args.max_year, map="standard")
        t = Tournament(
            store,
            parse_lineup(args.bots),
            settings,
            games=args.games,
            parallel=args.parallel,
            seed=args.seed,
            ray=ray,
        )
        cpu_file = Path(d) / "bots.cpu"
        os.environ["DIPLOMAT_HOST_CPU"] = str(cpu_file)  # each forked bot adds its CPU time
        before = load()
        cpu0 = time.process_time()
        trio.run(t.run)
        server_cpu = time.process_time() - cpu0
        after = load()
        bots_cpu = sum(float(x) for x in cpu_file.read_text().split()) if cpu_file.exists() else 0
        wall = t.stats.wall
        timings = t.stats.timings
        stats_slots = t.stats.slots
        t.close()
        store.close()
    startup = sum(x.startup for x in timings)
    play = sum(x.play for x in timings)
    slots = wall * stats_slots
    latency = sorted(v * 1000 for x in timings for v in x.seat_latency)
    out = {
        "games": len(timings),
        "wall": wall,
        "games_per_minute": len(timings) / wall * 60,
        "startup_share": startup / max(startup + play, 1e-9),
        "startup": startup,
        "play": play,
        "waiting": max(0.0, slots - startup - play),
        "latency_median_ms": statistics.median(latency) if latency else 0.0,
        "latency_p95_ms": latency[int(len(latency) * 0.95)] if latency else 0.0,
        "server_cpu_per_game": server_cpu / max(len(timings), 1),
        "bots_cpu_per_game": bots_cpu / max(len(timings), 1),
    }
    cpu_per_game = out["server_cpu_per_game"] + out["bots_cpu_per_game"]
    cores = os.cpu_count() or 1
    out["idle_machine_games_per_minute"] = 60 * cores / cpu_per_game if cpu_per_game else 0.0
    where = f"on Ray ({ray})" if ray else f"{args.parallel} at a time on {os.cpu_count()} cores"
    print(f"{out['games']} games of {' '.join(args.bots)} to {args.max_year}, {where}:")
    print(f"  {out['games_per_minute']:.1f} games/minute ({wall:.1f} s wall)")
    print(f"  before: {before}; after: {after}")
    if ray is None:
        print(
            f"  CPU per game: server {out['server_cpu_per_game']:.2f} s + bots "
            f"{out['bots_cpu_per_game']:.2f} s; all {cores} cores busy with nothing else would "
            f"give {out['idle_machine_games_per_minute']:.0f} games/minute"
        )
    total = startup + play + out["waiting"]
    for what in ("startup", "play", "waiting"):
        share = out[what] / max(total, 1e-9) * 100
        print(f"  {what:8s} {out[what]:8.1f} game-slot s  {share:5.1f} %")
    print(
        f"  start-up share of a game's time: {out['startup_share'] * 100:.1f} %; seat latency "
        f"median {out['latency_median_ms']:.1f} ms, 95th percentile {out['latency_p95_ms']:.1f} ms"
    )
    return out


def ray_bench(args: argparse.Namespace) -> None:
    """Start a 1-node, then a 2-node Ray cluster on this machine (in a network namespace with
    only loopback, as root) and run the benchmark on each."""
    from diplomat.tournament.local_ray import in_namespace, isolation_problem

    problem = isolation_problem()
    if problem:
        sys.exit(f"--ray needs {problem}")
    root = Path(__file__).resolve().parent.parent
    args_here = [a for a in sys.argv[1:] if a != "--ray"]
    for nodes in (1, 2):
        cmd = [sys.executable, "-m", "diplomat.tournament.local_ray", "--nodes", str(nodes),
               "--cpus", str(args.cpus), "--folder", "/tmp/diplomat-ray-bench", "--",
               sys.executable, str(root / "bench" / "tournament.py"), *args_here,
               "--address", "{address}"]  # fmt: skip
        print(f"--- Ray, {nodes} node(s) of {args.cpus} CPU(s) each", flush=True)
        subprocess.run(in_namespace(cmd), check=False, cwd=root)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--games", type=int, default=70)
    p.add_argument(
        "--bots", nargs="+", default=["dumbbot:7"], help="the line-up (default dumbbot:7)"
    )
    p.add_argument("--max-year", type=int, default=1910)
    p.add_argument("--parallel", type=int, default=os.cpu_count() or 1)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", type=Path, help="also write the figures as JSON")
    p.add_argument("--ray", action="store_true", help="on Ray: 1 node, then 2 nodes")
    p.add_argument("--cpus", type=int, default=1, help="CPUs per Ray node (default 1)")
    p.add_argument("--address", help=argparse.SUPPRESS)  # set by --ray, for each cluster
    args = p.parse_args()
    if args.ray:
        ray_bench(args)
        return
    out = run(args, ray=args.address)
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
