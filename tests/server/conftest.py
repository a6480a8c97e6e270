from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import trio

from diplomat.server.app import Server
from diplomat.server.settings import GameSettings
from diplomat.server.store import Store

from .daide_client import MakeServer


@pytest.fixture
async def make_server(tmp_path: Path) -> AsyncIterator[MakeServer]:
    """Start a real server on 127.0.0.1, port 0, with its own SQLite database."""
    stores: list[Store] = []
    # The servers stop before their databases close: a bot's last message may still be on its
    # way when a test ends.
    async with trio.open_nursery() as nursery:

        async def make(settings: GameSettings | None = None, **kwargs: Any) -> Server:
            store = Store(tmp_path / f"db{len(stores)}.sqlite")
            stores.append(store)
            server = Server(
                store,
                settings or GameSettings(max_year=1901, map="standard"),
                port=0,
                seed=7,
                **kwargs,
            )
            await nursery.start(server.run)
            return server

        yield make
        nursery.cancel_scope.cancel()
    for s in stores:
        s.close()
