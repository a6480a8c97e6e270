"""Server benchmark: what the game-master costs, without the network or the bots' own thinking.

    python bench/server.py                    # all three measurements
    python bench/server.py --games 20 --bot randombot --max-year 1910
    python bench/server.py --subprocess       # the throughput part with subprocess bots (pipes)

1. Throughput: full games, one after another, of 7 bots on a real server (in-process bots on
   memory streams speaking DAIDE text, the same code path as pipe bots; or subprocess bots with
   --subprocess), no deadlines. Prints games per minute and phases per second.
2. Latency: per phase, from the last order reaching the server to the last NOW leaving it
   (client-side timestamps on the memory streams; median, 95th percentile and worst).
3. Capacity: K games at once with 1-second deadlines, where every player waits for the deadline
   (NOT GOF), for growing K: how late the server processes phases past their deadline. The
   largest K with every phase processed within 0.5 s of its deadline is reported.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import trio
import trio.testing

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bots.client import play
from bots.holdbot import HoldBot
from bots.randombot import RandomBot
from bots.session import Session
from protocol.lines import TextConnection
from server.app import GameRunner, Server
from server.links import Link
from server.logs import configure_logging
from server.settings import GameSettings
from server.store import Store

BOTS = {"holdbot": HoldBot, "randombot": RandomBot}


class Stamped(trio.abc.Stream):
    """A client's end of a memory stream that notes when SUB lines leave and NOW lines
    arrive (the latency measurement)."""

    def __init__(self, inner: trio.abc.Stream, log: dict[str, Any]) -> None:
        self.inner = inner
        self.log = log

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        if bytes(data).startswith(b"SUB"):
            self.log["sub"] = time.perf_counter()
        await self.inner.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.inner.wait_send_all_might_not_block()

    async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray:
        data = await self.inner.receive_some(max_bytes)
        if b"NOW (" in bytes(data):
            self.log.setdefault("now", []).append((time.perf_counter(), self.log.get("sub")))
        return data

    async def aclose(self) -> None:
        await self.inner.aclose()


async def in_process_bot(
    server: Server, runner: GameRunner, power: str, bot: Any, seed: int, log: dict[str, Any]
) -> None:
    client_end, server_end = trio.testing.memory_stream_pair()
    link = Link(server_end, TextConnection(), "memory", f"bot {power}")
    session = Session(bot, seed=seed)
    async with trio.open_nursery() as n:
        n.start_soon(server.serve_link, link, (runner, power, bot.name))
        await play(session, Stamped(client_end, log), TextConnection())


async def throughput(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as d:
        store = Store(Path(d) / "bench.sqlite")
        settings = GameSettings(max_year=args.max_year)
        server = Server(store, settings, port=0, open_games=False, resume=False, seed=1)
        latencies: list[float] = []
        phases = 0
        async with trio.open_nursery() as nursery:
            await nursery.start(server.run)
            start = time.perf_counter()
            for g in range(args.games):
                runner = server.create_game(settings)
                logs: list[dict[str, Any]] = [{} for _ in range(7)]
                async with trio.open_nursery() as game:
                    for i, power in enumerate(runner.master.map.powers):
                        if args.subprocess:
                            cmd = [sys.executable, "-m", f"bots.{args.bot}", "--stdio",
                                   "--seed", str(g * 7 + i)]  # fmt: skip
                            game.start_soon(server.run_pipe_bot, cmd, (runner, power, args.bot))
                        else:
                            bot = BOTS[args.bot]()
                            game.start_soon(
                                in_process_bot, server, runner, power, bot, g * 7 + i, logs[i]
                            )
                phases += len(runner.master.history)
                if not args.subprocess:
                    latencies += _latencies(logs)
            elapsed = time.perf_counter() - start
            nursery.cancel_scope.cancel()
        store.close()
    kind = "subprocess (pipes)" if args.subprocess else "in-process (memory streams)"
    print(f"throughput, {args.games} games of 7 {args.bot}s, {kind}, to {args.max_year}:")
    print(f"  {args.games / elapsed * 60:.1f} games/minute, {phases / elapsed:.0f} phases/s, "
          f"{elapsed / phases * 1000:.2f} ms per phase including the bots")  # fmt: skip
    if latencies:
        _print_latencies("with those bots in the same process", latencies)


def _print_latencies(what: str, latencies: list[float]) -> None:
    latencies.sort()
    p95 = latencies[int(0.95 * (len(latencies) - 1))]
    print(f"  latency, last order in to last NOW out ({what}), {len(latencies)} phases: "
          f"median {statistics.median(latencies) * 1000:.2f} ms, "
          f"p95 {p95 * 1000:.2f} ms, worst {latencies[-1] * 1000:.2f} ms")  # fmt: skip


UNIT = re.compile(rb"\( (\w{3}) (AMY|FLT) (\w{3}|\( \w{3} \w{3} \)) \)")


async def line_client(
    server: Server,
    runner: GameRunner,
    power: str,
    answer: Callable[[bytes], bytes | None],
) -> None:
    """A client that costs next to nothing: DAIDE text lines on a memory stream. It joins,
    accepts the map, and sends whatever ``answer`` returns for each line, until OFF."""
    client_end, server_end = trio.testing.memory_stream_pair()
    link = Link(server_end, TextConnection(), "memory", f"light {power}")
    async with trio.open_nursery() as n:
        n.start_soon(server.serve_link, link, (runner, power, "light"))
        await client_end.send_all(b"NME ( 'light' ) ( '1' )\n")
        buf = b""
        while True:
            data = await client_end.receive_some(65536)
            if not data:
                break
            buf += data
            *lines, buf = buf.split(b"\n")
            ending = any(x.startswith(b"OFF") for x in lines)
            for line in lines:
                if line.startswith(b"OFF"):
                    n.cancel_scope.cancel()
                    return
                reply = b"YES ( " + line + b" )" if line.startswith(b"MAP") else answer(line)
                if reply is not None and not ending:
                    await client_end.send_all(reply + b"\n")


def holder(power: str, log: list[tuple[float, float]]) -> Callable[[bytes], bytes | None]:
    """Holds every unit, reading its units off the NOW text, and notes when its orders left
    and when the next NOW came (the server's latency, not a bot's)."""
    sent: list[float] = []

    def answer(line: bytes) -> bytes | None:
        if not line.startswith(b"NOW"):
            return None
        if sent:
            log.append((time.perf_counter(), sent[-1]))
        mine = [u for u in UNIT.findall(line) if u[0] == power.encode()]
        sent.append(time.perf_counter())
        return b"SUB " + b" ".join(b"( ( %s %s %s ) HLD )" % u for u in mine)

    return answer


async def latency(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as d:
        store = Store(Path(d) / "bench.sqlite")
        settings = GameSettings(max_year=args.max_year)
        server = Server(store, settings, port=0, open_games=False, resume=False, seed=1)
        out: list[float] = []
        async with trio.open_nursery() as nursery:
            await nursery.start(server.run)
            for _ in range(args.games):
                runner = server.create_game(settings)
                logs: list[list[tuple[float, float]]] = [[] for _ in range(7)]
                async with trio.open_nursery() as game:
                    for i, power in enumerate(runner.master.map.powers):
                        game.start_soon(line_client, server, runner, power, holder(power, logs[i]))
                for k in range(min(len(x) for x in logs)):
                    out.append(max(x[k][0] for x in logs) - max(x[k][1] for x in logs))
            nursery.cancel_scope.cancel()
        store.close()
    _print_latencies("7 clients that only hold", out)


def _latencies(logs: list[dict[str, Any]]) -> list[float]:
    """Per phase: latest NOW arrival minus the latest SUB sent before it."""
    per_phase: list[list[tuple[float, float | None]]] = [log.get("now", []) for log in logs]
    out = []
    for k in range(1, min(len(p) for p in per_phase)):
        subs = [s for p in per_phase if (s := p[k][1]) is not None and s > p[k - 1][0]]
        if len(subs) < 7:
            continue  # a power with nothing to order (no SUB) this phase
        out.append(max(p[k][0] for p in per_phase) - max(subs))
    return out


def waiter(late: list[float]) -> Callable[[bytes], bytes | None]:
    """NOT (GOF) after every NOW, so every phase runs to its deadline; notes how long after
    the deadline (NOW time + TME seconds) the next NOW comes."""
    due: list[float] = []

    def answer(line: bytes) -> bytes | None:
        if line.startswith(b"TME"):
            due[:] = [time.perf_counter() + int(line.split()[2])]
        elif line.startswith(b"NOW"):
            if due:
                late.append(time.perf_counter() - due.pop())
            return b"NOT ( GOF )"
        return None

    return answer


async def capacity(args: argparse.Namespace) -> None:
    print("capacity: games at once with 1 s deadlines, every player waiting for them")
    best = 0
    for k in args.concurrency:
        with tempfile.TemporaryDirectory() as d:
            store = Store(Path(d) / "bench.sqlite")
            settings = GameSettings(max_year=1902, move_time=1, retreat_time=1, build_time=1)
            server = Server(store, settings, port=0, open_games=False, resume=False, seed=1)
            late: list[float] = []
            async with trio.open_nursery() as nursery:
                await nursery.start(server.run)
                async with trio.open_nursery() as games:
                    for _ in range(k):
                        runner = server.create_game(settings)
                        for power in runner.master.map.powers:
                            games.start_soon(line_client, server, runner, power, waiter(late))
                nursery.cancel_scope.cancel()
            store.close()
        worst = max(late) if late else float("nan")
        ok = worst < 0.5
        best = k if ok else best
        print(f"  {k:4d} games: {len(late)} deadlines, median late "
              f"{statistics.median(late) * 1000:.0f} ms, worst {worst * 1000:.0f} ms"
              f"{'' if ok else '  <- over 0.5 s'}")  # fmt: skip
        if not ok:
            break
    print(f"  carried {best} games at once with every phase within 0.5 s of its deadline")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--games", type=int, default=10)
    p.add_argument("--bot", choices=sorted(BOTS), default="randombot")
    p.add_argument("--max-year", type=int, default=1910)
    p.add_argument("--subprocess", action="store_true")
    p.add_argument("--concurrency", type=lambda s: [int(x) for x in s.split(",")],
                   default=[1, 10, 25, 50, 100, 200])  # fmt: skip
    p.add_argument("--skip-capacity", action="store_true")
    args = p.parse_args()
    configure_logging("error")
    trio.run(throughput, args)
    if not args.subprocess:
        trio.run(latency, args)
    if not args.skip_capacity:
        trio.run(capacity, args)


if __name__ == "__main__":
    main()
