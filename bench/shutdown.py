"""A stop in the middle of a phase, measured: `diplomat serve` (real process) with six DumbBots
and one TCP player who has ordered one unit of three, stopped by a signal and restarted on the
same database, ``--runs`` times.

    python bench/shutdown.py                 # 3 runs, SIGTERM
    python bench/shutdown.py --runs 5 --signal INT

Prints, per run and in all: the seconds from the signal to the process's exit, the phases the
stop processed (0 is right), the time left stored against what the player's TME showed just
before the signal (less the seconds in between), and the time left the restarted game's TME
shows against the stored time (less the seconds since the restart). TME answers in whole
seconds, so half a second either way is its rounding.
"""

from __future__ import annotations

import argparse
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import trio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from diplomat.engine.orders import Hold
from diplomat.engine.state import Unit
from diplomat.protocol import messages
from diplomat.protocol.tokens import STANDARD
from tests.server.daide_client import WireClient

MOVE_TIME = 900


def _server(db: Path) -> subprocess.Popen[str]:
    argv = [
        sys.executable,
        "-m",
        "diplomat.cli.main",
        "serve",
        "--port",
        "0",
        "--no-web",
        "--db",
        str(db),
    ]
    argv += ["--mtl", str(MOVE_TIME), "--rejoin-grace", "300", "--log-level", "warning"]
    return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)


async def _daide_port(proc: subprocess.Popen[str]) -> int:
    assert proc.stdout is not None
    line = await trio.to_thread.run_sync(proc.stdout.readline)
    return int(line.split("127.0.0.1:")[1].split()[0])


def _query(db: Path, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        return conn.execute(sql, args).fetchall()


def _others_ordered(db: Path, power: str) -> int:
    rows = _query(db, "SELECT COUNT(*) FROM submissions WHERE power != ?", power)
    return int(rows[0][0])


async def _left(client: WireClient) -> int:
    await client.send(messages.Tme())
    answer = await client.expect(messages.Tme)
    assert answer.seconds is not None
    return int(answer.seconds)


async def one_run(db: Path, signum: int) -> dict[str, float]:
    procs: list[subprocess.Popen[str]] = []
    try:
        server = _server(db)
        procs.append(server)
        port = await _daide_port(server)
        me = await WireClient.connect(port, text=True, table=STANDARD)
        await me.join("player")
        bots = [
            sys.executable,
            "-m",
            "diplomat.bots.dumbbot",
            "--port",
            str(port),
            "--reconnect",
            "0",
        ]
        procs += [subprocess.Popen(bots, stderr=subprocess.DEVNULL, text=True) for _ in range(6)]
        hlo = await me.expect(messages.Hlo)
        now = await me.expect(messages.Now)
        units = [u for u in now.units if isinstance(u, Unit)]
        await me.send(messages.Sub((Hold(next(u for u in units if u.power == hlo.power)),)))
        owed = len([u for u in units if u.power != hlo.power])
        with trio.fail_after(300):  # the bots' orders, all in the database
            while _others_ordered(db, hlo.power) < owed:
                await trio.sleep(0.05)
        left = await _left(me)
        asked = time.monotonic()
        server.send_signal(signum)
        signalled = time.monotonic()
        await trio.to_thread.run_sync(server.wait)
        exited = time.monotonic()
        processed = len(_query(db, "SELECT phase FROM phases")) - 1
        stored = float(_query(db, "SELECT remaining FROM clocks")[0][0])

        server = _server(db)
        procs.append(server)
        port = await _daide_port(server)
        restarted = time.monotonic()
        me = await WireClient.connect(port, text=True, table=STANDARD)
        await me.send(messages.Iam(hlo.power, hlo.passcode))
        await me.expect(messages.Yes)
        resumed = await _left(me)
        since = time.monotonic() - restarted
        server.send_signal(signal.SIGTERM)
        await trio.to_thread.run_sync(server.wait)
        return {
            "stop_s": exited - signalled,
            "processed": processed,
            "stored_error_s": stored - (left - (signalled - asked)),
            "resumed_error_s": resumed - (stored - since),
        }
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
            p.wait()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--signal", choices=["TERM", "INT"], default="TERM")
    args = parser.parse_args()
    signum = signal.SIGTERM if args.signal == "TERM" else signal.SIGINT
    print(f"load average {os.getloadavg()[0]:.1f}, SIG{args.signal}, {args.runs} runs")
    rows = []
    for i in range(args.runs):
        with tempfile.TemporaryDirectory() as tmp:
            row = await one_run(Path(tmp) / "db.sqlite", signum)
        rows.append(row)
        print(
            f"run {i + 1}: stop {row['stop_s']:.2f} s, phases processed by the stop "
            f"{row['processed']:.0f}, time left stored {row['stored_error_s']:+.2f} s "
            f"from the TME, after the restart {row['resumed_error_s']:+.2f} s from the stored"
        )
    print(
        f"in all: stop {max(r['stop_s'] for r in rows):.2f} s at most, "
        f"{sum(r['processed'] for r in rows):.0f} phases processed by the stops, time left "
        f"within {max(abs(r['stored_error_s']) for r in rows):.2f} s (stored) and "
        f"{max(abs(r['resumed_error_s']) for r in rows):.2f} s (restarted); "
        f"load average {os.getloadavg()[0]:.1f}"
    )


if __name__ == "__main__":
    trio.run(main)
