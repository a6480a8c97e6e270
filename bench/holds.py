"""Attacks on seats and sockets, on loopback (Linux routes all of 127.0.0.0/8 to ``lo``, so one
machine can connect from thousands of addresses):

    python bench/holds.py                          # all three, about a minute
    python bench/holds.py --guess-seconds 30 --idle 2000

1. Guessing a passcode from many addresses: a game of seven text clients starts, one leaves
   (its power awaits its player), and an attacker guesses its passcode as fast as it can for
   ``--guess-seconds``, every guess from a fresh connection from a fresh address
   (127.10.x.y), ``--concurrency`` at a time. The guesses leave out the passcode (what is
   measured is how many the server checks at all: each checked guess is a 1-in-8191 chance
   for a real attacker). Prints the guesses made, how many the server checked, the bound for
   a day (from the guard's constants), and how long the rightful player, from its own
   address, waits to get back in during the attack.
2. Idle connections: ``--idle`` connections from ``--idle-addresses`` addresses send the IM
   and then nothing. Prints how many the server accepted and turned away (per-address cap),
   its open file descriptors before, at the peak and after the lobby timeout (shortened to
   ``--lobby`` seconds here), and how long after the timeout the last was closed.
3. Forming with stallers: three clients send NME and never accept the map, then seven that
   do: the time from the seventh's YES (MAP) to its HLO (before: the seven split over two
   forming games and nothing started until the 60 s join timeout).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TypeVar

import trio

# The project first: bench/protocol.py would otherwise shadow the protocol package.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from diplomat.protocol import messages
from diplomat.protocol.codec import parse_text
from diplomat.protocol.connection import ClientConnection, Closed, Received
from diplomat.protocol.lines import TextConnection
from diplomat.protocol.tokens import STANDARD
from diplomat.server.app import Server
from diplomat.server.guard import chance_to_find, most_checked
from diplomat.server.logs import configure_logging
from diplomat.server.settings import GameSettings
from diplomat.server.store import Store

_M = TypeVar("_M", bound=messages.Message)


class Client:
    """A DAIDE client over TCP (binary or text) that waits for messages of a kind."""

    def __init__(self, stream: trio.SocketStream, text: bool) -> None:
        self.stream = stream
        self.conn: ClientConnection | TextConnection = (
            TextConnection(STANDARD) if text else ClientConnection()
        )
        self.pending: list[messages.Message | None] = []  # None: the server closed the connection

    @classmethod
    async def open(cls, port: int, local: str | None = None, text: bool = False) -> Client:
        stream = await trio.open_tcp_stream("127.0.0.1", port, local_address=local)
        client = cls(stream, text)
        if isinstance(client.conn, ClientConnection):
            await stream.send_all(client.conn.start())
        return client

    async def send(self, msg: messages.Message | str) -> None:
        await self.stream.send_all(
            self.conn.send(parse_text(msg, STANDARD) if isinstance(msg, str) else msg)
        )

    async def next(self) -> messages.Message | None:
        """The next message, or None once the server has closed the connection."""
        while not self.pending:
            try:
                data = await self.stream.receive_some(65536)
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                data = b""
            if not data:
                return None
            for ev in self.conn.receive_bytes(bytes(data)):
                if isinstance(ev, Received):
                    self.pending.append(ev.message)
                elif isinstance(ev, Closed):
                    self.pending.append(None)
        return self.pending.pop(0)

    async def expect(self, kind: type[_M]) -> _M:
        """Skip messages until one of ``kind``; the server closing first is a failed run."""
        while True:
            msg = await self.next()
            if msg is None:
                raise ConnectionError(f"the server closed while we waited for {kind.__name__}")
            if isinstance(msg, kind):
                return msg

    async def aclose(self) -> None:
        await self.stream.aclose()


def addresses() -> Iterator[str]:
    for b in range(10, 255):
        for c in range(256):
            for d in range(1, 255):
                yield f"127.{b}.{c}.{d}"


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


async def _game(server: Server) -> tuple[list[Client], list[messages.Hlo]]:
    port = server.address[1]
    players = [await Client.open(port, text=True) for _ in range(7)]
    for i, c in enumerate(players):
        await c.send(messages.Nme(f"p{i}", "1"))
        await c.send(messages.Yes(await c.expect(messages.Map)))
    return players, [await c.expect(messages.Hlo) for c in players]


async def guessing(args: argparse.Namespace, server: Server) -> None:
    port = server.address[1]
    players, hlos = await _game(server)
    power, passcode = hlos[0].power or "", hlos[0].passcode or 0
    await players[0].aclose()
    await players[1].expect(messages.Ccd)
    checked_before = server.guard.checked
    source = addresses()
    wrong = iter([g for g in range(1, 8192) if g != passcode] * 100)
    made = found = 0
    start = time.perf_counter()
    owner_wait: list[float] = []

    async def attacker() -> None:
        nonlocal made, found
        while time.perf_counter() - start < args.guess_seconds:
            c = await Client.open(port, next(source))
            await c.send(messages.Iam(power, next(wrong)))
            answer = await c.next()
            made += 1
            found += isinstance(answer, messages.Yes)
            await c.aclose()

    async def owner() -> None:
        await trio.sleep(args.guess_seconds / 2)  # mid-attack, from the address it played from
        sent = time.perf_counter()
        c = await Client.open(port)
        await c.send(messages.Iam(power, passcode))
        answer = await c.next()
        owner_wait.append(time.perf_counter() - sent if isinstance(answer, messages.Yes) else -1.0)
        await c.aclose()  # (it leaves again: the attack goes on)

    async with trio.open_nursery() as n:
        for _ in range(args.concurrency):
            n.start_soon(attacker)
        n.start_soon(owner)
    took = time.perf_counter() - start
    checked = server.guard.checked - checked_before - 1  # (less the owner's)
    print(f"guessing: {made} guesses in {took:.1f} s ({made / took:.0f}/s) from {made} "
          f"addresses, {args.concurrency} at a time: {checked} checked, {found} found the "
          "passcode")  # fmt: skip
    wait = owner_wait[0] if owner_wait else float("nan")
    print(f"  the rightful player, from its own address mid-attack: "
          f"{'refused' if wait < 0 else f'back in {wait * 1000:.1f} ms'}")  # fmt: skip
    print(
        f"  bound: {most_checked(24 * 3600)} checked guesses a day whatever the addresses: "
        f"{chance_to_find(24 * 3600) * 100:.2f} % chance to find a passcode (1-8191)"
    )
    for c in players[1:]:
        await c.aclose()


async def idle(args: argparse.Namespace, server: Server) -> None:
    port = server.address[1]
    before = open_fds()
    source = addresses()
    per = max(1, args.idle // args.idle_addresses)
    held: list[tuple[Client, float]] = []
    start = time.perf_counter()
    for _ in range(args.idle_addresses):
        address = next(source)
        for _ in range(per):
            held.append((await Client.open(port, address), time.perf_counter()))
    opened = time.perf_counter() - start
    turned: set[int] = set()

    async def outcome(i: int, c: Client) -> None:
        with trio.move_on_after(min(2.0, args.lobby / 4)):  # turned away at once, or served
            msg = await c.next()
            if msg is None or isinstance(msg, messages.Off):
                turned.add(i)

    async with trio.open_nursery() as n:
        for i, (c, _) in enumerate(held):
            n.start_soon(outcome, i, c)
    peak = open_fds()
    lateness: list[float] = []

    async def until_closed(i: int, c: Client, at: float) -> None:
        while await c.next() is not None:
            pass
        if i not in turned:
            lateness.append(time.perf_counter() - at - args.lobby)

    async with trio.open_nursery() as n:
        for i, (c, at) in enumerate(held):
            n.start_soon(until_closed, i, c, at)
    for c, _ in held:
        await c.aclose()
    await trio.sleep(0.5)
    after = open_fds()
    print(f"idle: {len(held)} connections from {args.idle_addresses} addresses ({per} each; cap "
          f"{server.per_address}) opened in {opened:.1f} s, each sending the IM and then "
          f"nothing: {len(held) - len(turned)} served, {len(turned)} turned away at once "
          "(RM, OFF, FM)")  # fmt: skip
    print(f"  open descriptors (server and clients in this process): {before} before, {peak} "
          f"at the peak, {after} after the {args.lobby:g} s lobby timeout; served ones were "
          f"closed (OFF, FM) {min(lateness):+.2f} to {max(lateness):+.2f} s after their "
          "timeout")  # fmt: skip


async def forming(server: Server) -> None:
    port = server.address[1]
    stallers = [await Client.open(port, text=True) for _ in range(3)]
    for i, c in enumerate(stallers):
        await c.send(messages.Nme(f"stall{i}", "1"))
        await c.expect(messages.Map)
    players = [await Client.open(port) for _ in range(7)]
    for i, c in enumerate(players):
        await c.send(messages.Nme(f"p{i}", "1"))
        await c.expect(messages.Map)
    for c in players[:6]:
        await c.send(messages.Yes(messages.Map("standard")))
    sent = time.perf_counter()
    await players[6].send(messages.Yes(messages.Map("standard")))
    await players[6].expect(messages.Hlo)
    took = time.perf_counter() - sent
    print(
        f"forming: 3 stallers then 7 willing clients: the game starts {took * 1000:.1f} ms "
        "after the seventh accepts the map (the join timeout is 60 s)"
    )
    for c in stallers + players:
        await c.aclose()


async def main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as d:
        store = Store(Path(d) / "bench.sqlite")
        server = Server(store, GameSettings(map="standard", max_year=1901), port=0,
                        resume=False, seed=1, lobby_timeout=args.lobby)  # fmt: skip
        async with trio.open_nursery() as nursery:
            await nursery.start(server.run)
            if "guess" in args.only:
                await guessing(args, server)
            if "idle" in args.only:
                await idle(args, server)
            if "forming" in args.only:
                await forming(server)
            nursery.cancel_scope.cancel()
        store.close()


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--guess-seconds", type=float, default=20.0)
    p.add_argument("--concurrency", type=int, default=20)
    p.add_argument("--idle", type=int, default=1000, help="idle connections")
    p.add_argument("--idle-addresses", type=int, default=20)
    p.add_argument("--lobby", type=float, default=10.0, help="lobby timeout for this run (s)")
    p.add_argument("--only", nargs="+", default=["guess", "idle", "forming"],
                   choices=["guess", "idle", "forming"])  # fmt: skip
    configure_logging("error")
    trio.run(main, p.parse_args())
