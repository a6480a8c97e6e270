"""A Ray cluster on this machine, to try ``diplomat tournament --ray`` without a real one; the
Ray tests and ``bench/tournament.py --ray`` run theirs with it.

Ray addresses the machine's own network interface even when told 127.0.0.1, so the cluster and
whatever uses it run in namespaces of their own (as root): a network namespace with only
loopback (no byte leaves the machine), and a PID namespace, so that stopping the cluster stops
only its own processes and nothing survives the run::

    unshare --net --pid --fork --mount-proc \\
        python -m diplomat.tournament.local_ray --nodes 2 -- \\
            diplomat tournament dumbbot:7 --ray {address}

starts a head node and ``--nodes - 1`` worker nodes on 127.0.0.1 (with token authentication,
as Ray 2.60 wants for ``ray start --head``), runs the command with ``{address}`` replaced by
the head's address, and stops the cluster.
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RAY = str(Path(sys.executable).parent / "ray")
PORT = 6390


def isolation_problem() -> str | None:
    """Why a cluster cannot be started here (None: it can)."""
    if os.geteuid() != 0:
        return "root (for unshare --net)"
    if not shutil.which("unshare") or not shutil.which("ip"):
        return "unshare and ip (util-linux, iproute2)"
    try:
        import ray  # noqa: F401
    except ImportError:
        return "Ray: pip install 'diplomat[ray]'"
    return None


def in_namespace(argv: list[str]) -> list[str]:
    """``argv`` run in network and PID namespaces of its own (as root)."""
    return ["unshare", "--net", "--pid", "--fork", "--mount-proc", *argv]


class Cluster:
    """A head node and ``nodes - 1`` worker nodes of ``cpus`` CPUs each, on 127.0.0.1 (to be
    started inside :func:`in_namespace`)."""

    def __init__(self, nodes: int, cpus: int, folder: Path) -> None:
        self.nodes = nodes
        self.cpus = cpus
        self.folder = folder
        self.address = f"127.0.0.1:{PORT}"
        # Ray's Unix socket paths must stay under 108 bytes: a short folder of its own.
        self.temp = tempfile.mkdtemp(prefix="ray-", dir="/tmp")

    def start(self) -> None:
        subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
        os.environ["RAY_AUTH_MODE"] = "token"
        os.environ["RAY_AUTH_TOKEN"] = secrets.token_hex(16)
        os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
        self.folder.mkdir(parents=True, exist_ok=True)
        common = ["--node-ip-address", "127.0.0.1", "--num-cpus", str(self.cpus)]
        common += ["--disable-usage-stats"]
        t0 = time.monotonic()
        self._ray(
            "start", "--head", "--port", str(PORT), "--include-dashboard=false",
            "--temp-dir", self.temp, *common,
        )  # fmt: skip
        for _ in range(self.nodes - 1):
            self._ray("start", "--address", self.address, *common)
        print(f"cluster of {self.nodes} node(s) up in {time.monotonic() - t0:.1f} s", flush=True)

    def stop(self) -> None:
        # Only this PID namespace's Ray processes are visible: the machine's others are safe.
        subprocess.run([RAY, "stop", "--force"], capture_output=True, check=False)
        shutil.rmtree(self.temp, ignore_errors=True)

    def _ray(self, *args: str) -> None:
        out = subprocess.run([RAY, *args], capture_output=True, text=True, check=False)
        if out.returncode != 0:
            raise RuntimeError(f"ray {' '.join(args)} failed:\n{out.stdout}\n{out.stderr}")


def main() -> int:
    p = argparse.ArgumentParser(description="Run a command with a Ray cluster on this machine.")
    p.add_argument("--nodes", type=int, default=2, help="nodes, the head included (default 2)")
    p.add_argument("--cpus", type=int, default=1, help="CPUs of each node (default 1)")
    p.add_argument("--folder", type=Path, default=Path("/tmp/diplomat-ray"), help="its files")
    p.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND ... ({address})")
    args = p.parse_args()
    command = [a for a in args.command if a != "--"]
    if not command:
        p.error("give the command to run after --")
    cluster = Cluster(args.nodes, args.cpus, args.folder / "cluster")
    try:
        cluster.start()
        argv = [a.replace("{address}", cluster.address) for a in command]
        return subprocess.run(argv, check=False).returncode
    finally:
        cluster.stop()


if __name__ == "__main__":
    sys.exit(main())
