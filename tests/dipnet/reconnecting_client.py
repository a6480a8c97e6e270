"""A client of the ``diplomacy`` package (its own, unmodified library, in its Tornado loop: a
subprocess of the tests) whose network drops in the middle of a game on a variant
(``standard_fleet_rome``: Italy opens with a fleet in Rome). ``python -m
tests.dipnet.reconnecting_client PORT`` (from the checkout) plays ITALY through a proxy it
controls, with bundled DAIDE bots for the other six powers, and:

1. gives its first orders and keeps waiting (the phase cannot end without it);
2. cuts the proxy's connections and holds new ones, so its library starts reconnecting;
3. on a second, direct connection (the same user, a second instance of the seat) says ready:
   the phase is processed while the first client is away;
4. lets the proxy through again: the library reconnects with its token and synchronizes,
   and the first client plays on to the end of the game.

It prints one JSON line of what the first client saw."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections.abc import Generator
from typing import Any

from diplomacy.client.connection import connect
from diplomacy.utils.exceptions import GamePhaseException, ResponseException
from tornado import gen, ioloop, locks
from tornado.iostream import IOStream, StreamClosedError
from tornado.tcpclient import TCPClient
from tornado.tcpserver import TCPServer
from tornado.testing import bind_unused_port

from examples.package_random_agent import choose_orders

OTHERS = ["AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "RUSSIA", "TURKEY"]


class Proxy(TCPServer):
    """Forwards loopback connections to the server; can cut them all and hold new ones."""

    def __init__(self, target: int) -> None:
        super().__init__()
        self.target = target
        self.open = locks.Event()
        self.open.set()
        self.streams: list[IOStream] = []
        self.connections = 0

    @gen.coroutine
    def handle_stream(self, stream: IOStream, address: Any) -> Generator[Any, Any, None]:
        yield self.open.wait()
        self.connections += 1
        upstream = yield TCPClient().connect("127.0.0.1", self.target)
        self.streams += [stream, upstream]
        ioloop.IOLoop.current().add_callback(pipe, stream, upstream)
        ioloop.IOLoop.current().add_callback(pipe, upstream, stream)

    def cut(self) -> None:
        self.open.clear()
        for stream in self.streams:
            stream.close()
        self.streams.clear()


@gen.coroutine
def pipe(source: IOStream, sink: IOStream) -> Generator[Any, Any, None]:
    try:
        while True:
            data = yield source.read_bytes(65536, partial=True)
            yield sink.write(data)
    except StreamClosedError:
        source.close()
        sink.close()


@gen.coroutine
def play_on(game: Any, rng: random.Random) -> Generator[Any, Any, list[str]]:
    """Random possible orders, ready at once, each phase until the game is done."""
    log: list[str] = []
    done: set[str] = set()
    while not game.is_game_done:
        phase = game.get_current_phase()
        if phase not in done:
            done.add(phase)
            try:
                yield game.set_orders(orders=choose_orders(game, rng), wait=False)
                log.append(phase)
            except GamePhaseException:  # the client is behind the server: once more
                done.discard(phase)
            except ResponseException as exc:
                log.append(f"{phase} refused: {exc}")
        yield gen.sleep(0.05)
    return log


@gen.coroutine
def main(port: int) -> Generator[Any, Any, None]:
    sock, proxy_port = bind_unused_port()
    proxy = Proxy(port)
    proxy.add_sockets([sock])
    conn = yield connect("127.0.0.1", proxy_port)
    dora = yield conn.authenticate("dora", "d-pw")
    italy = yield dora.create_game(
        map_name="standard_fleet_rome", rules=["POWER_CHOICE"], deadline=0, power_name="ITALY"
    )
    daide_port = yield conn.get_daide_port(italy.game_id)
    bots = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "diplomat.bots.randombot",
                *("--port", str(daide_port)),
                "--seed",
                str(k),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for k in range(len(OTHERS))
    ]
    while italy.status != "active":
        yield gen.sleep(0.05)
    opening = italy.get_state()["units"]["ITALY"]
    rng = random.Random(3)
    yield italy.set_orders(orders=choose_orders(italy, rng), wait=True)

    proxy.cut()  # the network drops; the library starts reconnecting through the proxy
    direct = yield connect("127.0.0.1", port)
    again = yield direct.authenticate("dora", "d-pw")
    second = yield again.join_game(game_id=italy.game_id, power_name="ITALY")
    yield second.no_wait()
    while second.get_current_phase() == "S1901M":
        yield gen.sleep(0.05)
    processed_away = second.get_current_phase()
    proxy.open.set()  # the network is back

    while italy.get_current_phase() == "S1901M":  # brought up to date by the synchronization
        yield gen.sleep(0.05)
    synced = italy.get_current_phase()
    log = yield play_on(italy, rng)
    # The last phase ("COMPLETED") comes first, then the status: wait for the status here
    # (bot.wait below blocks the loop, which would leave the notification unread).
    while italy.status != "completed" or second.status != "completed":
        yield gen.sleep(0.05)
    for bot in bots:
        bot.wait(60)
    print(
        json.dumps(
            {
                "game_id": italy.game_id,
                "map": italy.map_name,
                "opening": opening,
                "processed_away": processed_away,
                "synced": synced,
                "history": [str(p) for p in italy.state_history],
                "proxied_connections": proxy.connections,
                "log": log,
                "status": italy.status,
                "final": italy.get_state()["units"],
                "second_final": second.get_state()["units"],
                "bots": [b.returncode for b in bots],
            }
        )
    )


if __name__ == "__main__":
    ioloop.IOLoop.current().run_sync(lambda: main(int(sys.argv[1])), timeout=300)
