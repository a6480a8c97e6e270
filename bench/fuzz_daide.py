"""A million fuzzed inputs against a real server's DAIDE port: does anything end it?

    python bench/fuzz_daide.py                       # 1,000,000 inputs
    python bench/fuzz_daide.py --inputs 20000 --concurrency 32 --seed 3

The server (``tests/server/daide_fuzz.py``'s :class:`ServerThread`: a real
:class:`~server.app.Server` on 127.0.0.1 port 0 with its default limits, the IM timeout
shortened to 2 s so that frames left unfinished on purpose end sooner) runs in a child
process, with a player in a started game of its own playing phase after phase. This process
keeps ``--concurrency`` connections busy, from 127.0.0.2 onwards (a few per address), each
sending a way in (nothing, OBS or NME) and 1 to ``--per-connection`` fuzzed messages (deep,
huge, non-finite, malformed and valid-but-hostile DAIDE, binary or text), then a MAP request
as a sentinel; one connection in five is cut off part-way and closed with a TCP reset.

Printed: inputs (messages sent), connections, abortive closes, answers by kind (the first
token of each message the server sent, EM codes, connections it closed), inputs a second,
the server's CPU time (user + system) beside the wall time, the load average, and at the end
whether the server is alive, answers a new client, and the player's game is still playing
(phases played during the run and after it).
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import json
import multiprocessing as mp
import os
import random
import resource
import selectors
import socket
import struct
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from diplomat.protocol.codec import codec_for
from diplomat.protocol.tokens import STANDARD
from diplomat.server.logs import configure_logging
from tests.server.daide_fuzz import (
    SENTINEL_ANSWER,
    Input,
    ServerThread,
    fuzz_input,
    sentinel,
)

CODEC = codec_for(STANDARD)
ANSWER_TEXT = CODEC.text(SENTINEL_ANSWER).encode()
ANSWER_DM = CODEC.payload(SENTINEL_ANSWER)
# The bench's mix, by weight: mostly messages that are parsed and handled (hostile, malformed),
# fewer of the costly ones (deep, huge), whose bytes the server's budget throttles.
BENCH_MIX = {"deep": 3, "huge": 1, "non-finite": 10, "malformed": 20, "hostile": 60}
PATIENCE = 120.0  # seconds a connection may go unanswered before it counts as unanswered


# -- the server, in a process of its own ----------------------------------------------------


def _serve(conn: Any, db: str, log: str) -> None:
    with open(log, "w") as out:
        configure_logging("warning", json=True, stream=out)
        _serve_logged(conn, db)


def _serve_logged(conn: Any, db: str) -> None:
    with ServerThread(Path(db), im_timeout=2.0) as server:
        conn.send(("port", server.port))
        while True:
            request = conn.recv()
            usage = resource.getrusage(resource.RUSAGE_SELF)
            conn.send(
                {
                    "alive": server.alive,
                    "phases": server.phases,
                    "cpu": usage.ru_utime + usage.ru_stime,
                    "rss_mb": usage.ru_maxrss / 1024,
                }
            )
            if request == "stop":
                break


# -- the client side --------------------------------------------------------------------------


@dataclass
class _Conn:
    sock: socket.socket
    inp: Input
    out: bytes
    started: float
    binary: bool
    buf: bytearray = field(default_factory=bytearray)
    done: bool = False


@dataclass
class Tally:
    """What was sent and how the server answered, counted as the run goes."""

    inputs: int = 0  # messages sent (a connection's way in included; sentinels not)
    connections: int = 0
    abortive: int = 0  # of them cut off part-way and reset
    sentinel: int = 0  # of them answered in full: the sentinel's answer came
    closed_by_server: int = 0  # of them closed by the server first (EM, OFF, too long)
    unanswered: int = 0  # of them with neither within PATIENCE
    answers: collections.Counter[str] = field(default_factory=collections.Counter)


def _count_text(c: _Conn, tally: Tally) -> None:
    while True:
        end = c.buf.find(b"\n")
        if end < 0:
            return
        line = bytes(c.buf[:end]).rstrip(b"\r")
        del c.buf[: end + 1]
        tally.answers[line.split(b" ", 1)[0].decode("latin-1") or "(empty)"] += 1
        if line == ANSWER_TEXT:
            c.done = True
            tally.sentinel += 1


def _count_binary(c: _Conn, tally: Tally) -> None:
    while len(c.buf) >= 4:
        ftype, length = struct.unpack_from(">BxH", c.buf)
        if len(c.buf) < 4 + length:
            return
        payload = bytes(c.buf[4 : 4 + length])
        del c.buf[: 4 + length]
        if ftype == 2 and payload:
            (first,) = struct.unpack_from(">H", payload)
            tally.answers[STANDARD.name_of.get(first, f"0x{first:04X}")] += 1
            if payload == ANSWER_DM:
                c.done = True
                tally.sentinel += 1
        elif ftype == 4 and length >= 2:
            tally.answers[f"EM 0x{struct.unpack_from('>H', payload)[0]:02X}"] += 1
        else:
            tally.answers[{0: "IM", 1: "RM", 3: "FM"}.get(ftype, f"frame {ftype}")] += 1


def _open(port: int, rng: random.Random, n: int, per_connection: int) -> _Conn:
    inp = fuzz_input(rng, (1, per_connection), BENCH_MIX)
    source = f"127.0.0.{2 + n % 200}"
    sock = socket.create_connection(("127.0.0.1", port), source_address=(source, 0))
    sock.setblocking(False)
    tail = b"" if inp.abortive else sentinel(inp.binary)
    return _Conn(sock, inp, inp.data + tail, time.monotonic(), inp.binary)


def _reset(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


def fuzz(port: int, total: int, concurrency: int, per_connection: int, seed: int) -> Tally:
    rng = random.Random(seed)
    tally = Tally()
    sel = selectors.DefaultSelector()
    opened = 0
    last = time.monotonic()
    start = last

    def finish(c: _Conn) -> None:
        sel.unregister(c.sock)
        if c.inp.abortive:
            tally.abortive += 1
            _reset(c.sock)
        else:
            c.sock.close()

    while tally.inputs < total or sel.get_map():
        while tally.inputs < total and len(sel.get_map()) < concurrency:
            c = _open(port, rng, opened, per_connection)
            opened += 1
            tally.connections += 1
            tally.inputs += c.inp.messages
            sel.register(c.sock, selectors.EVENT_READ | selectors.EVENT_WRITE, c)
        for key, events in sel.select(timeout=0.2):
            c = key.data
            if events & selectors.EVENT_WRITE and c.out:
                try:
                    sent = c.sock.send(c.out[:65536])
                    c.out = c.out[sent:]
                except BlockingIOError:
                    pass
                except OSError:
                    c.out = b""
                if not c.out:
                    if c.inp.abortive:
                        finish(c)
                        continue
                    sel.modify(c.sock, selectors.EVENT_READ, c)
            if events & selectors.EVENT_READ:
                try:
                    data = c.sock.recv(65536)
                except BlockingIOError:
                    continue
                except OSError:
                    data = b""
                if not data:
                    if not c.inp.abortive:
                        tally.closed_by_server += 1
                    finish(c)
                    continue
                if c.inp.abortive:
                    continue  # (it is being cut off: its answers do not count)
                c.buf += data
                (_count_binary if c.binary else _count_text)(c, tally)
                if c.done:
                    finish(c)
        now = time.monotonic()
        for key in list(sel.get_map().values()):
            c = key.data
            if now - c.started > PATIENCE:
                tally.unanswered += 1
                finish(c)
        if now - last > 10:
            last = now
            rate = tally.inputs / (now - start)
            print(f"  {tally.inputs:,} inputs, {tally.connections:,} connections, {rate:,.0f}/s")
    sel.close()
    return tally


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--inputs", type=int, default=1_000_000)
    p.add_argument("--concurrency", type=int, default=32)
    p.add_argument("--per-connection", type=int, default=40, help="most messages a connection")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    ctx = mp.get_context("spawn")
    parent, child = ctx.Pipe()
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "server.log")
        proc = ctx.Process(target=_serve, args=(child, os.path.join(tmp, "db.sqlite"), log))
        proc.start()
        _, port = parent.recv()
        parent.send("report")
        before = parent.recv()
        load0 = os.getloadavg()
        t0, c0 = time.monotonic(), time.process_time()
        tally = fuzz(port, args.inputs, args.concurrency, args.per_connection, args.seed)
        wall, client_cpu = time.monotonic() - t0, time.process_time() - c0
        parent.send("report")
        during = parent.recv()
        load1 = os.getloadavg()
        # After the run: a new client is answered, and the game plays on.
        answered = _probe(port)
        time.sleep(2)
        parent.send("stop")
        after = parent.recv()
        proc.join(30)
        with open(log) as lines:
            logged = [json.loads(line) for line in lines if line.startswith("{")]
        events = collections.Counter(f"{e.get('level')} {e.get('event')}" for e in logged)
    print(f"inputs            {tally.inputs:,} (messages sent)")
    print(f"connections       {tally.connections:,} ({args.concurrency} at once)")
    print(f"abortive closes   {tally.abortive:,} (cut off part-way, closed with a TCP reset)")
    print(f"answered in full  {tally.sentinel:,} (the sentinel request after the input answered)")
    print(f"closed by server  {tally.closed_by_server:,}")
    print(f"unanswered        {tally.unanswered:,} (nothing within {PATIENCE:g} s)")
    print("answers by kind   " + ", ".join(f"{k} {v:,}" for k, v in tally.answers.most_common()))
    print(f"wall              {wall:.1f} s: {tally.inputs / wall:,.0f} inputs/s")
    server_cpu = during["cpu"] - before["cpu"]
    print(f"server CPU        {server_cpu:.1f} s ({100 * server_cpu / wall:.0f} % of one core)")
    print(f"client CPU        {client_cpu:.1f} s")
    print(f"server memory     {during['rss_mb']:.0f} MB peak")
    print(f"load average      {load0[0]:.1f} before, {load1[0]:.1f} after (2 cores)")
    print(f"server alive      {after['alive']}; a new client answered: {answered}")
    print("server log        " + ", ".join(f"{k}: {v:,}" for k, v in events.most_common()))
    played, since = during["phases"] - before["phases"], after["phases"] - during["phases"]
    print(f"steady game       {played} phases played during the run, {since} in the 2 s after")


def _probe(port: int) -> bool:
    sock = socket.create_connection(("127.0.0.1", port), timeout=PATIENCE)
    try:
        sock.sendall(sentinel(False))
        buf = b""
        while b"\n" not in buf:
            chunk = sock.recv(4096)
            if not chunk:
                return False
            buf += chunk
        return buf.split(b"\n")[0] == ANSWER_TEXT
    finally:
        sock.close()


if __name__ == "__main__":
    main()
