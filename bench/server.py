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
4. Attack (``--attack``, or alone with ``--only-attack``): bot games run while a probe on its
   own TCP connection asks for the MAP every 20 ms; then, for as long again, one client
   writes 60 KB of MDF requests at a time (and reads its answers) and ten more send MDF
   requests without ever reading. Prints the phase rate kept, the probe's worst and median
   reply times, and the process's memory before, during (peak) and after the attack.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio
import trio.testing

from diplomat.protocol.tokens import STANDARD

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from diplomat.bots.holdbot import HoldBot
from diplomat.bots.randombot import RandomBot
from diplomat.bots.session import Session
from diplomat.bots.transport import play
from diplomat.protocol import messages
from diplomat.protocol.connection import ClientConnection, Ready, Received
from diplomat.protocol.lines import TextConnection
from diplomat.server.app import GameRunner, Server
from diplomat.server.links import Link
from diplomat.server.logs import configure_logging
from diplomat.server.settings import GameSettings
from diplomat.server.store import Store

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
    link = Link(server_end, TextConnection(STANDARD), "memory", f"bot {power}")
    session = Session(bot, seed=seed, table=STANDARD)
    async with trio.open_nursery() as n:
        n.start_soon(server.serve_link, link, (runner, power, bot.name))
        await play(session, Stamped(client_end, log), TextConnection(STANDARD))


async def throughput(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as d:
        store = Store(Path(d) / "bench.sqlite")
        settings = GameSettings(max_year=args.max_year, map="standard")
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
                    for i, power in enumerate(runner.map.powers):
                        if args.subprocess:
                            cmd = [sys.executable, "-m", f"diplomat.bots.{args.bot}", "--stdio",
                                   "--seed", str(g * 7 + i)]  # fmt: skip
                            game.start_soon(server.run_pipe_bot, cmd, (runner, power, args.bot))
                        else:
                            bot = BOTS[args.bot]()
                            game.start_soon(
                                in_process_bot, server, runner, power, bot, g * 7 + i, logs[i]
                            )
                phases += runner.status().processed
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
    link = Link(server_end, TextConnection(STANDARD), "memory", f"light {power}")
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
        settings = GameSettings(max_year=args.max_year, map="standard")
        server = Server(store, settings, port=0, open_games=False, resume=False, seed=1)
        out: list[float] = []
        async with trio.open_nursery() as nursery:
            await nursery.start(server.run)
            for _ in range(args.games):
                runner = server.create_game(settings)
                logs: list[list[tuple[float, float]]] = [[] for _ in range(7)]
                async with trio.open_nursery() as game:
                    for i, power in enumerate(runner.map.powers):
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
            settings = GameSettings(
                max_year=1902, move_time=1, retreat_time=1, build_time=1, map="standard"
            )
            server = Server(store, settings, port=0, open_games=False, resume=False, seed=1)
            late: list[float] = []
            async with trio.open_nursery() as nursery:
                await nursery.start(server.run)
                async with trio.open_nursery() as games:
                    for _ in range(k):
                        runner = server.create_game(settings)
                        for power in runner.map.powers:
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


def _p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[int(0.99 * (len(ordered) - 1))] if ordered else float("nan")


def _rss_mb() -> float:
    """The resident memory of this process, in MB (Linux)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


async def _probe(port: int, replies: list[tuple[float, float]], stop: trio.Event) -> None:
    """Ask for the MAP every 20 ms on a binary connection of its own; note (when, seconds)."""
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    conn = ClientConnection()
    await stream.send_all(conn.start())
    ready = False
    while not ready:
        for ev in conn.receive_bytes(bytes(await stream.receive_some(65536))):
            ready = ready or isinstance(ev, Ready)
    request = conn.send(messages.Map())
    while not stop.is_set():
        sent = time.perf_counter()
        await stream.send_all(request)
        got = False
        while not got:
            data = await stream.receive_some(65536)
            if not data:
                return
            got = any(isinstance(ev, Received) for ev in conn.receive_bytes(bytes(data)))
        replies.append((sent, time.perf_counter() - sent))
        await trio.sleep(0.02)
    await stream.aclose()


async def _flooder(port: int, reads: bool, stop: trio.Event) -> None:
    """60 KB of MDF requests at a time; reads (and throws away) the answers, or never."""
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    conn = ClientConnection()
    await stream.send_all(conn.start())
    while True:
        evs = conn.receive_bytes(bytes(await stream.receive_some(65536)))
        if any(isinstance(ev, Ready) for ev in evs):
            break
    request = conn.send(messages.Mdf())
    chunk = request * (60 * 1024 // len(request))

    async def drain() -> None:
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            while await stream.receive_some(1 << 20):
                pass

    try:
        async with trio.open_nursery() as n:
            if reads:
                n.start_soon(drain)
            while not stop.is_set():
                await stream.send_all(chunk)
            n.cancel_scope.cancel()
    except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
        pass  # dropped by the server
    finally:
        await stream.aclose()


class _Lanes:
    """Games played one after another in each lane, for ever, by ``bot`` players in this
    process; counts the phases they have processed."""

    def __init__(self, server: Server, settings: GameSettings, bot: str) -> None:
        self.server, self.settings, self.bot = server, settings, bot
        self.done_phases = 0
        self.live: list[GameRunner] = []

    def phases(self) -> int:
        return self.done_phases + sum(r.status().processed for r in self.live)

    async def play(self, lane: int) -> None:
        g = 0
        while True:
            runner = self.server.create_game(self.settings)
            self.live.append(runner)
            logs: list[dict[str, Any]] = [{} for _ in range(7)]
            async with trio.open_nursery() as game:
                for i, power in enumerate(runner.map.powers):
                    if self.bot == "holder":  # costs next to nothing
                        answer = holder(power, [])
                        game.start_soon(line_client, self.server, runner, power, answer)
                        continue
                    game.start_soon(in_process_bot, self.server, runner, power, BOTS[self.bot](),
                                    lane * 100000 + g * 7 + i, logs[i])  # fmt: skip
            self.live.remove(runner)
            self.done_phases += runner.status().processed
            g += 1

    async def measure(
        self, seconds: float, replies: list[tuple[float, float]]
    ) -> tuple[float, float, float]:
        """(phases per second, worst probe reply s, peak MB) over the next ``seconds``."""
        start, before = time.perf_counter(), self.phases()
        first = len(replies)
        peak = _rss_mb()
        while time.perf_counter() - start < seconds:
            await trio.sleep(0.2)
            peak = max(peak, _rss_mb())
        rate = (self.phases() - before) / (time.perf_counter() - start)
        worst = max((r for _, r in replies[first:]), default=float("nan"))
        return rate, worst, peak


@dataclass
class _Attacked:
    """What the attack measured: before it, during it, and after."""

    base_rate: float = 0.0
    base_worst: float = 0.0
    base_replies: list[float] = field(default_factory=list)
    rate: float = 0.0
    worst: float = 0.0
    under: list[float] = field(default_factory=list)
    mem_before: float = 0.0
    peak: float = 0.0
    mem_after: float = 0.0


async def attack(args: argparse.Namespace) -> None:
    """Bot games with a probe's reply times, ``--attack-seconds`` without, then as long with
    one client flooding MDF requests (reading the answers) and ten that never read."""
    with tempfile.TemporaryDirectory() as d:
        store = Store(Path(d) / "bench.sqlite")
        settings = GameSettings(max_year=1915, map="standard")
        server = Server(store, settings, port=0, resume=False, seed=1)
        lanes = _Lanes(server, settings, args.attack_bot)
        async with trio.open_nursery() as nursery:
            await nursery.start(server.run)
            for lane in range(args.attack_games):
                nursery.start_soon(lanes.play, lane)
            figures = await _under_attack(lanes, server.address[1], args.attack_seconds)
            nursery.cancel_scope.cancel()
        store.close()
    _print_attack(args, figures)


async def _under_attack(lanes: _Lanes, port: int, window: float) -> _Attacked:
    f = _Attacked()
    replies: list[tuple[float, float]] = []
    stop_probe = trio.Event()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_probe, port, replies, stop_probe)
        await trio.sleep(2)  # warm up
        gc.collect()
        f.mem_before = _rss_mb()
        f.base_rate, f.base_worst, _ = await lanes.measure(window, replies)
        f.base_replies = [r for _, r in replies]
        stop = trio.Event()
        async with trio.open_nursery() as attackers:
            attackers.start_soon(_flooder, port, True, stop)
            for _ in range(10):
                attackers.start_soon(_flooder, port, False, stop)
            first = len(replies)
            f.rate, f.worst, f.peak = await lanes.measure(window, replies)
            f.under = [r for _, r in replies[first:]]
            stop.set()
            attackers.cancel_scope.cancel()
        await trio.sleep(3)  # the server lets go of what it held for the attackers
        gc.collect()
        f.mem_after = _rss_mb()
        stop_probe.set()
    return f


def _print_attack(args: argparse.Namespace, f: _Attacked) -> None:
    window = args.attack_seconds
    kept = f.rate / f.base_rate * 100 if f.base_rate else float("nan")
    print(f"attack: {args.attack_games} lanes of {args.attack_bot} games in process; a probe "
          f"asks for the MAP every 20 ms over TCP; {window:g} s without, then {window:g} s "
          "with, one client writing 60 KB of MDF requests at a time (reading) and ten that "
          "never read:")  # fmt: skip
    print(f"  phases/s: {f.base_rate:.1f} before, {f.rate:.1f} under attack ({kept:.0f} % kept)")
    print(f"  probe replies: before median {statistics.median(f.base_replies) * 1000:.1f} ms, "
          f"p99 {_p99(f.base_replies) * 1000:.1f} ms, worst {f.base_worst * 1000:.1f} ms; "
          f"under attack median {statistics.median(f.under) * 1000:.1f} ms, p99 "
          f"{_p99(f.under) * 1000:.1f} ms, worst {f.worst * 1000:.1f} ms "
          f"({len(f.under)} replies)")  # fmt: skip
    grown = (f.mem_after / f.mem_before - 1) * 100
    print(f"  memory: {f.mem_before:.0f} MB before, {f.peak:.0f} MB peak during, "
          f"{f.mem_after:.0f} MB after ({grown:+.0f} %)")  # fmt: skip


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--games", type=int, default=10)
    p.add_argument("--bot", choices=sorted(BOTS), default="randombot")
    p.add_argument("--max-year", type=int, default=1910)
    p.add_argument("--subprocess", action="store_true")
    p.add_argument("--concurrency", type=lambda s: [int(x) for x in s.split(",")],
                   default=[1, 10, 25, 50, 100, 200])  # fmt: skip
    p.add_argument("--skip-capacity", action="store_true")
    p.add_argument("--attack", action="store_true", help="measure the attack too")
    p.add_argument("--only-attack", action="store_true", help="measure only the attack")
    p.add_argument("--attack-seconds", type=float, default=10.0)
    p.add_argument("--attack-games", type=int, default=2, help="games running at once")
    p.add_argument("--attack-bot", choices=[*sorted(BOTS), "holder"], default="randombot",
                   help="the players of those games (holder: clients that only hold)")  # fmt: skip
    args = p.parse_args()
    configure_logging("error")
    if args.only_attack:
        trio.run(attack, args)
        return
    trio.run(throughput, args)
    if not args.subprocess:
        trio.run(latency, args)
    if not args.skip_capacity:
        trio.run(capacity, args)
    if args.attack:
        trio.run(attack, args)


if __name__ == "__main__":
    main()
