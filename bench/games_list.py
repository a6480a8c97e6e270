"""What the server's games list costs: ``GET /api/list`` against a database of many games.

    python bench/games_list.py                  # 1000 finished games, 100 requests
    python bench/games_list.py --games 5000 --requests 50

A real server and web hub (in this process, ``--public``) over a database holding ``--games``
finished games on the standard map; each request goes over loopback HTTP like a browser's.
Printed: the rows sent (at most ``web.lobby.LIST_LIMIT``), the bytes, and the wall and CPU
milliseconds per request (the list is built from the store on every request).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import trio

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from diplomat.server.app import Server
from diplomat.server.settings import GameSettings
from diplomat.server.store import Store
from diplomat.web.hub import WebHub


def fill(store: Store, games: int) -> None:
    settings = GameSettings(map="standard", level=10, move_time=600).model_dump()
    for _ in range(games):
        gid = store.create_game(settings)
        store.finish(gid, {"kind": "draw", "powers": ["ENG", "FRA"], "reason": "year limit"})


async def get(port: int, path: str) -> bytes:
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    await stream.send_all(
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode()
    )
    raw = b""
    while chunk := await stream.receive_some(65536):
        raw += chunk
    return raw.partition(b"\r\n\r\n")[2]


async def measure(store: Store, requests: int) -> None:
    srv = Server(store, GameSettings(map="standard"), port=0, open_games=False, seed=1)
    async with trio.open_nursery() as nursery:
        await nursery.start(srv.run)
        hub = WebHub(srv, public=True)
        await nursery.start(hub.run, 0)
        port = hub.address[1]
        body = await get(port, "/api/list")  # (the map loaded once, as on a running server)
        wall, cpu = time.perf_counter(), time.process_time()
        for _ in range(requests):
            body = await get(port, "/api/list")
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        rows = body.count(b'"watch"')
        print(f"rows sent: {rows}, bytes: {len(body)}")
        print(
            f"per request: {1000 * wall / requests:.1f} ms wall, {1000 * cpu / requests:.1f} ms CPU"
        )
        nursery.cancel_scope.cancel()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--requests", type=int, default=100)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "bench.sqlite")
        fill(store, args.games)
        print(f"games in the database: {args.games}")
        trio.run(measure, store, args.requests)
        store.close()


if __name__ == "__main__":
    main()
