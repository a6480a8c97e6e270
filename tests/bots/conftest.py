from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest
import trio

from diplomat.server.app import Server
from diplomat.server.settings import GameSettings
from diplomat.server.store import Store

MakeServer = Callable[[GameSettings], Awaitable[Server]]


@pytest.fixture
async def make_server(tmp_path: Path) -> AsyncIterator[MakeServer]:
    """Start a real server on 127.0.0.1, port 0, with its own SQLite database."""
    stores: list[Store] = []
    # The servers stop before their databases close: a bot's last message may still be on its
    # way when a test ends.
    async with trio.open_nursery() as nursery:

        async def make(settings: GameSettings) -> Server:
            store = Store(tmp_path / f"db{len(stores)}.sqlite")
            stores.append(store)
            server = Server(store, settings, port=0, seed=3)
            await nursery.start(server.run)
            return server

        yield make
        nursery.cancel_scope.cancel()
    for s in stores:
        s.close()
