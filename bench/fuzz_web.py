"""Fuzz the web port of a real ``diplomat serve`` with a large number of inputs and print the
figure: inputs sent, answers by HTTP status and WebSocket message, abortive closes, inputs a
second, CPU time of the server and of the fuzzer, and whether the server is alive at the end
(it answers, and a game nobody fuzzed still plays its next phase).

Inputs: HTTP requests (every route and method, headers odd or missing, bodies deep, huge,
non-finite, malformed or random, Content-Length lies, truncated requests, several pipelined
on one connection), each connection ended normally, abruptly or by a TCP reset; WebSocket
sessions on a real seat (every kind of request the page sends with fields of every type,
garbage text, oversized messages, frames of every opcode and reserved bit, random bytes), each
frame one input. Random with a seed: the same seed sends the same inputs.

    python bench/fuzz_web.py                      # a million inputs
    python bench/fuzz_web.py --inputs 20000 --seed 7
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import socket
import struct
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import trio
import wsproto
import wsproto.events as wse

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import contextlib

from tests.web.conftest import ROOT
from tests.web.fuzzing import (
    METHODS,
    OPCODES,
    PAGE_KINDS,
    PRESS_OPS,
    ROUTES,
    http_json,
    masked_frame,
    page_game,
    play_a_phase,
    request_bytes,
)

WEIRD = ["1e999", "-1e999", "NaN", "Infinity", "-Infinity", "-1", "0", "1" + "0" * 400, "1.5",
         "true", "false", '"600"', '"x"', "null", "[]", "{}", "9223372036854775808", "1e308",
         "-0", "600", "10", '"FRA"', '"dumbbot"']  # fmt: skip
FIELDS = ["map", "power", "level", "opponents", "move_time", "retreat_time", "build_time",
          "max_year", "name"]  # fmt: skip
FRAME_FIELDS = ["loc", "id", "text", "on", "phase", "index", "game", "token", "power", "kind",
                "how", "seq", "answer", "op"]  # fmt: skip
WORDS = ["PAR", "BUR", "par", "STP/SC", "ENG", "GER", "pce", "aly", "dmz", "xdo", "and", "orr",
         "yes", "rej", "hold", "move", "support", "cancel", "done", "S1901M", "A PAR - BUR",
         "(FRA AMY PAR) MTO BUR", "SUB ((FRA AMY PAR) HLD)", "F BRE - MAO\nA MAR H"]  # fmt: skip
BROKEN = (trio.BrokenResourceError, trio.ClosedResourceError)
STATUS = re.compile(rb"HTTP/1\.1 (\d{3}) ")


@dataclass
class Tally:
    """What was sent and what came back, over the whole run."""

    answers: Counter[str] = field(default_factory=Counter)  # by status or message kind
    inputs: int = 0
    http: int = 0
    ws: int = 0
    abortive: int = 0
    lost: int = 0  # connections that ended in an error of ours (refused, reset before answer)


def json_text(rng: random.Random, depth: int = 0) -> str:
    """A random JSON-ish value as text (numbers from WEIRD: spelt, not computed)."""
    k = rng.randrange(10)
    if depth > 3 or k < 5:
        return rng.choice(WEIRD) if k < 3 else json.dumps(rng.choice(WORDS))
    if k < 7:
        return "[" + ", ".join(json_text(rng, depth + 1) for _ in range(rng.randrange(4))) + "]"
    items = [f"{json.dumps(rng.choice(FIELDS + FRAME_FIELDS))}: {json_text(rng, depth + 1)}"
             for _ in range(rng.randrange(4))]  # fmt: skip
    return "{" + ", ".join(items) + "}"


def deep(rng: random.Random) -> str:
    n = rng.choice([9, 50, 1000, 20_000, 60_000])
    return "[" * n + "]" * n if rng.random() < 0.5 else '{"a":' * n + "1" + "}" * n


def body(rng: random.Random) -> bytes:
    k = rng.randrange(10)
    if k < 5:  # a game request with odd values
        keys = rng.sample(FIELDS, rng.randrange(1, 5))
        text = "{" + ", ".join(f'"{key}": {json_text(rng, 2)}' for key in keys) + "}"
    elif k < 7:
        text = json_text(rng)
    elif k == 7:
        text = deep(rng)
    elif k == 8:
        return rng.randbytes(rng.randrange(1, 400))
    else:
        text = '{"name": "' + "x" * rng.choice([100, 70_000, 300_000]) + '"}'
    return text.encode()


def mutate(rng: random.Random, data: bytes) -> bytes:
    """Flip, drop or repeat a few bytes."""
    buf = bytearray(data)
    for _ in range(rng.randrange(1, 4)):
        if not buf:
            break
        i = rng.randrange(len(buf))
        op = rng.randrange(3)
        if op == 0:
            buf[i] = rng.randrange(256)
        elif op == 1:
            del buf[i : i + rng.randrange(1, 20)]
        else:
            buf[i:i] = buf[i : i + rng.randrange(1, 20)] * rng.randrange(2, 50)
    return bytes(buf)


def http_request(rng: random.Random, port: int, last: bool) -> bytes:
    method = rng.choice(["GET", "POST", "POST", *METHODS]) if rng.random() < 0.9 else "X" * 9
    path = rng.choice(ROUTES) if rng.random() < 0.8 else rng.choice(
        ["/static/" + "a" * 5000, "/static/%00", "//[", "/api/games?" + "a=1&" * 99,
         "/" + rng.randbytes(30).decode("latin-1"), "/game/" + "9" * 40]
    )  # fmt: skip
    headers: dict[str, str] = {}
    if rng.random() < 0.2:
        headers[rng.choice(["Origin", "Content-Type", "Transfer-Encoding", "Upgrade", "X-Big"])] = (
            rng.choice(["http://evil.example", "text/plain", "chunked", "websocket", "y" * 20_000])
        )
    host = None if rng.random() < 0.85 else rng.choice(["", "evil.example", "[", "1.2.3.4:9"])
    length = None if rng.random() < 0.9 else rng.choice([0, 1, 10**6, 1 << 40])
    headers["Connection"] = "close" if last else "keep-alive"
    data = body(rng) if method != "GET" else b""
    raw = request_bytes(method, path, port, data, headers, host=host, length=length)
    if rng.random() < 0.1:
        raw = mutate(rng, raw)
    return raw


def page_frame(rng: random.Random, game: dict[str, object]) -> str:
    kind = rng.choice(PAGE_KINDS) if rng.random() < 0.9 else rng.choice(["", "x", "hello2"])
    parts = [f'"t": {json.dumps(kind)}']
    if kind == "press":
        parts.append(f'"op": {json.dumps(rng.choice(PRESS_OPS))}')
    if kind == "hello":
        parts += [f'"game": {game["game"]}', f'"token": {json.dumps(game["token"])}']
    for name in rng.sample(FRAME_FIELDS, rng.randrange(4)):
        value = json.dumps(rng.choice(WORDS)) if rng.random() < 0.6 else json_text(rng, 2)
        parts.append(f'"{name}": {value}')
    return "{" + ", ".join(parts) + "}"


def ws_input(rng: random.Random, game: dict[str, object], conn: wsproto.WSConnection) -> bytes:
    """One frame for a page's WebSocket that leaves the connection open (if it is handled
    as it should be)."""
    k = rng.randrange(100)
    if k < 85:
        return conn.send(wse.Message(data=page_frame(rng, game)))
    if k < 93:
        text = rng.choice([deep(rng)[:60_000], rng.choice(WEIRD), "{", "", "\u0000" * 10])
        return conn.send(wse.Message(data=text))
    if k < 97:
        return conn.send(wse.Message(data=rng.randbytes(rng.randrange(50))))  # binary
    return conn.send(wse.Ping(rng.randbytes(rng.randrange(20))))


def ws_last(rng: random.Random, conn: wsproto.WSConnection) -> bytes:
    """A frame after which the server must close the connection: over the size limit, an
    opcode or reserved bit the protocol forbids, or bytes that are no frame at all."""
    k = rng.randrange(3)
    if k == 0:
        return conn.send(wse.Message(data="x" * 70_000))
    if k == 1:
        payload = rng.randbytes(rng.randrange(40))
        return masked_frame(rng.choice(OPCODES), payload, rng.random() < 0.7, rng.randrange(1, 8))
    return rng.randbytes(rng.randrange(1, 100))


def abort(stream: trio.SocketStream) -> None:
    stream.socket.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))


async def read_all(stream: trio.SocketStream, limit: float = 60.0) -> bytes:
    got = bytearray()
    with trio.move_on_after(limit):
        try:
            while chunk := await stream.receive_some(65536):
                got += chunk
        except trio.BrokenResourceError:
            pass
    return bytes(got)


async def http_session(rng: random.Random, port: int, t: Tally) -> None:
    n = 1 if rng.random() < 0.7 else rng.randrange(2, 8)  # some pipelined on one connection
    data = b"".join(http_request(rng, port, i == n - 1) for i in range(n))
    if rng.random() < 0.05:
        data = data[: rng.randrange(len(data) + 1)]  # truncated
    t.inputs += n
    t.http += n
    try:
        stream = await trio.open_tcp_stream("127.0.0.1", port)
    except OSError:
        t.lost += 1
        return
    try:
        with contextlib.suppress(trio.BrokenResourceError):
            await stream.send_all(data)
        end = rng.randrange(10)
        if end == 0:
            abort(stream)
            t.abortive += 1
            return
        if end == 1:
            return
        with contextlib.suppress(trio.BrokenResourceError, OSError):
            await stream.send_eof()
        answer = await read_all(stream)
        codes = STATUS.findall(answer)
        for code in codes:
            t.answers[f"http {code.decode()}"] += 1
        if not codes:
            t.answers["http closed without answer"] += 1
    finally:
        await trio.aclose_forcefully(stream)


async def ws_session(rng: random.Random, port: int, game: dict[str, object], t: Tally) -> None:
    conn = wsproto.WSConnection(wsproto.ConnectionType.CLIENT)
    try:
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        await stream.send_all(conn.send(wse.Request(host=f"127.0.0.1:{port}", target="/ws")))
    except (OSError, trio.BrokenResourceError):
        t.lost += 1
        return
    try:
        accepted = False
        with trio.move_on_after(60):
            while not accepted:
                data = await stream.receive_some(65536)
                if not data:
                    break
                conn.receive_data(data)
                for event in conn.events():
                    if isinstance(event, wse.AcceptConnection):
                        accepted = True
                    elif isinstance(event, wse.RejectConnection):
                        t.answers[f"ws refused {event.status_code}"] += 1
                        return
        if not accepted:
            t.lost += 1
            return
        frames = []
        if rng.random() < 0.9:  # most sessions open the seat; the others talk to no seat
            hello = {"t": "hello", "game": game["game"], "token": game["token"]}
            frames.append(conn.send(wse.Message(data=json.dumps(hello))))
        # (Within a page's budget of 100 at once, mostly: the frames are to be handled.)
        for _ in range(rng.randrange(10, 100)):
            frames.append(ws_input(rng, game, conn))
        if rng.random() < 0.3:
            frames.append(ws_last(rng, conn))
        t.inputs += len(frames)
        t.ws += len(frames)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_count_ws, stream, conn, t)
            with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
                await stream.send_all(b"".join(frames))
            end = rng.randrange(4)
            if end == 0:
                abort(stream)
                t.abortive += 1
                nursery.cancel_scope.cancel()
                return
            try:
                await stream.send_all(conn.send(wse.CloseConnection(code=1000)))
            except (*BROKEN, wsproto.utilities.LocalProtocolError):
                pass
    finally:
        await trio.aclose_forcefully(stream)


NOTICES = {
    "Request refused": "refused",
    "could not do that": "handler failed",
    "Too many requests": "slow down",
}


def notice_kind(msg: dict[str, object]) -> str:
    """What a notice says, in a word: a request refused by its checks, one whose handler
    failed, a page told to slow down, or the game's own news."""
    if msg.get("t") != "notice":
        return ""
    text = str(msg.get("text", ""))
    return next((f" ({v})" for k, v in NOTICES.items() if k in text), " (game)")


async def _count_ws(stream: trio.SocketStream, conn: wsproto.WSConnection, t: Tally) -> None:
    parts: list[str] = []  # of a message that came in fragments
    with trio.move_on_after(60):
        while True:
            try:
                data = await stream.receive_some(1 << 20)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                t.answers["ws reset"] += 1
                return
            if not data:
                return
            try:
                conn.receive_data(data)
                events = list(conn.events())
            except wsproto.utilities.RemoteProtocolError:
                return
            for event in events:
                if isinstance(event, wse.TextMessage):
                    parts.append(event.data)
                    if not event.message_finished:
                        continue
                    try:
                        msg = json.loads("".join(parts))
                    except ValueError:
                        msg = {"t": "(not JSON)"}
                    parts = []
                    t.answers[f"ws {msg.get('t', '?')}{notice_kind(msg)}"] += 1
                elif isinstance(event, wse.CloseConnection):
                    t.answers[f"ws close {event.code}"] += 1
                    return


async def fuzz(port: int, game: dict[str, object], total: int, seed: int, workers: int) -> Tally:
    t = Tally()
    last = time.monotonic()

    async def worker(k: int) -> None:
        nonlocal last
        rng = random.Random(seed * 1000 + k)
        while t.inputs < total:
            if rng.random() < 0.5:
                await http_session(rng, port, t)
            else:
                await ws_session(rng, port, game, t)
            if time.monotonic() - last > 30:
                last = time.monotonic()
                print(f"  ... {t.inputs:,} inputs", flush=True)

    async with trio.open_nursery() as nursery:
        for k in range(workers):
            nursery.start_soon(worker, k)
    return t


def cpu_of(pid: int) -> float:
    """CPU seconds (user + system) of a process."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


@dataclass
class Serve:
    proc: subprocess.Popen[bytes]
    port: int
    log: Path


def serve(tmp: Path) -> Serve:
    """``diplomat serve`` on free ports, its log (warnings and errors, JSON) in a file."""
    log = tmp / "serve.log"
    out = tmp / "serve.out"
    with log.open("wb") as err, out.open("wb") as stdout:
        proc = subprocess.Popen(
            [sys.executable, "-m", "diplomat.cli.main", "serve", "--port", "0", "--web-port", "0",
             "--db", str(tmp / "fuzz.sqlite"), "--log-level", "warning", "--log-json"],
            stdout=stdout, stderr=err, cwd=ROOT,
        )  # fmt: skip
    give_up = time.monotonic() + 120
    while time.monotonic() < give_up and proc.poll() is None:
        if m := re.search(r"web page: http://[^:]+:(\d+)/", out.read_text()):
            return Serve(proc, int(m.group(1)), log)
        time.sleep(0.2)
    proc.kill()
    raise SystemExit(f"the server did not start: {out.read_text()} {log.read_text()}")


def logged_errors(log: Path) -> Counter[str]:
    """The error lines the server logged, by event: each is a boundary that caught a fault."""
    found: Counter[str] = Counter()
    for line in log.read_text(errors="replace").splitlines():
        try:
            entry = json.loads(line)
        except ValueError:  # what the server prints at its start (the engine's build)
            continue
        if entry.get("level") == "error":
            found[f"{entry.get('event')}: {str(entry.get('error', ''))[:90]}"] += 1
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inputs", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=12, help="connections at once")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        server = serve(Path(tmp))
        port = server.port
        try:
            game = page_game(port)  # the seat whose page is fuzzed
            control = page_game(port, power="ENG")  # a game nobody fuzzes
            # Its person comes once (a game nobody opens is abandoned after two minutes).
            play_a_phase(port, control)
            load0 = os.getloadavg()
            cpu0 = cpu_of(server.proc.pid)
            mine0 = resource.getrusage(resource.RUSAGE_SELF)
            start = time.monotonic()
            t = trio.run(fuzz, port, game, args.inputs, args.seed, args.workers)
            wall = time.monotonic() - start
            cpu = cpu_of(server.proc.pid) - cpu0
            mine1 = resource.getrusage(resource.RUSAGE_SELF)
            load1 = os.getloadavg()
            alive = server.proc.poll() is None
            answers = alive and http_json(port, "GET", "/api/options")[0] == 200
            phases = None
            if answers:
                try:
                    phases = play_a_phase(port, control)
                except (AssertionError, OSError) as exc:
                    print(f"the game nobody fuzzed did not play: {exc!r}")
            errors = logged_errors(server.log)
        finally:
            server.proc.terminate()
            try:
                server.proc.wait(60)
            except subprocess.TimeoutExpired:
                server.proc.kill()
    mine = (mine1.ru_utime + mine1.ru_stime) - (mine0.ru_utime + mine0.ru_stime)
    print(f"inputs: {t.inputs:,} ({t.http:,} HTTP requests, {t.ws:,} WebSocket frames)")
    print(f"abortive closes (TCP reset): {t.abortive:,}; connections refused or lost: {t.lost:,}")
    print("answers:")
    for key, n in sorted(t.answers.items()):
        print(f"  {key:32} {n:>10,}")
    print(f"wall {wall:.1f} s: {t.inputs / wall:,.0f} inputs/s")
    print(f"CPU: server {cpu:.1f} s ({cpu / wall:.0%} of one core), fuzzer {mine:.1f} s")
    print(
        f"load average: {load0[0]:.1f} at the start, {load1[0]:.1f} at the end "
        f"({os.cpu_count()} cores)"
    )
    print(f"errors the boundaries logged: {sum(errors.values()):,}")
    for key, n in errors.most_common(20):
        print(f"  {n:>8,}  {key}")
    played = " -> ".join(phases) if phases else "NOTHING"
    print(
        f"alive at the end: process {'yes' if alive else 'NO'}, "
        f"answers {'yes' if answers else 'NO'}, a game nobody fuzzed played {played}"
    )
    return 0 if alive and answers and phases else 1


if __name__ == "__main__":
    sys.exit(main())
