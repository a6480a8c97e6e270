"""A variant played on a real server over TCP: as many players as the map has powers, the RM
of the variant's tokens, MAP and MDF of the variant, its starting turn and its year limit."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
import trio

from diplomat.engine.map import load_map
from diplomat.engine.state import Unit
from diplomat.protocol import messages
from diplomat.protocol.connection import ClientConnection
from diplomat.protocol.mdf import MapDefinition, table_for_map
from diplomat.server.app import Server
from diplomat.server.logs import configure_logging
from diplomat.server.settings import GameSettings
from diplomat.server.store import Store

from .daide_client import MakeServer, WireClient
from .test_game_flow import play_holds


async def test_three_players_play_hundred_to_the_year_limit(make_server: MakeServer) -> None:
    hundred = load_map("hundred3")
    table = table_for_map(hundred)
    server = await make_server(GameSettings(map="hundred3", max_year=1426))
    port = server.address[1]
    # Two binary clients (they learn the names from the RM) and one text client (it knows
    # the map's names itself).
    clients = [await WireClient.connect(port, text=(i == 2), table=table) for i in range(3)]
    await clients[0].send(messages.Mdf())
    mdf = await clients[0].expect(messages.Mdf)
    assert mdf.definition == MapDefinition.from_map(hundred)
    assert isinstance(clients[0].conn, ClientConnection)
    assert clients[0].conn.table.records() == table.records()
    for i, c in enumerate(clients):
        await c.send(messages.Nme(f"bot{i}", "1.0"))
        assert await c.expect(messages.Yes) == messages.Yes(messages.Nme(f"bot{i}", "1.0"))
        assert await c.expect(messages.Map) == messages.Map("hundred3")
        await c.send(messages.Yes(messages.Map("hundred3")))
    logs: list[list[Any]] = [[] for _ in clients]
    async with trio.open_nursery() as n:
        for c, log in zip(clients, logs, strict=True):
            n.start_soon(play_holds, c, log)
    powers = set()
    for log in logs:
        hlo = log[0]
        assert isinstance(hlo, messages.Hlo)
        powers.add(hlo.power)
        now = next(e for e in log if isinstance(e, messages.Now))
        assert now.turn is not None and now.turn.name == "S1425M"
        start = {loc for us in hundred.start_units.values() for _, loc in us}
        assert {u.loc for u in now.units if isinstance(u, Unit)} == start
        smr = next(e for e in log if isinstance(e, messages.Smr))
        assert {e.power for e in smr.entries} == set(hundred.powers)
    assert powers == set(hundred.powers)
    (row,) = server.store.games()
    assert row.status == "finished" and row.result is not None
    assert row.result["reason"] == "year limit"
    assert [p for p, _ in server.store.states(row.id)][:2] == ["S1425M", "F1425M"]


async def test_a_fourth_player_is_refused_on_a_three_power_map(make_server: MakeServer) -> None:
    server = await make_server(GameSettings(map="hundred3", max_year=1425))
    port = server.address[1]
    clients = [await WireClient.connect(port) for _ in range(3)]
    for i, c in enumerate(clients):
        await c.join(f"bot{i}")
    for c in clients:
        assert (await c.expect(messages.Hlo)).power in ("BUR", "ENG", "FRA")
    # The game is full: a late player goes to the next open game, which waits for three.
    late = await WireClient.connect(port)
    await late.join("late")
    assert len(server.games) == 2


def test_settings_refuse_an_unknown_map_and_a_year_before_the_start() -> None:
    with pytest.raises(ValueError, match="unknown map 'atlantis'"):
        GameSettings(map="atlantis")
    with pytest.raises(ValueError, match="first year"):
        GameSettings(map="classical", max_year=1049)
    assert GameSettings(map="classical", max_year=1050).max_year == 1050


async def test_a_game_whose_map_file_is_gone_is_abandoned_not_fatal(tmp_path: Path) -> None:
    store = Store(tmp_path / "db.sqlite")
    settings = GameSettings(map="standard").model_dump() | {"map": str(tmp_path / "gone.json")}
    gid = store.create_game(settings, "g", None)
    store.set_status(gid, "active")
    log = io.StringIO()
    configure_logging("info", json=True, stream=log)
    # The server starts; the game it cannot resume (its map file is gone) is set aside.
    server = Server(store, GameSettings(map="standard"), port=0)
    async with trio.open_nursery() as nursery:
        await nursery.start(server.run)
        assert store.game(gid).status == "abandoned"
        nursery.cancel_scope.cancel()
    store.close()
    assert "cannot resume game" in log.getvalue() and "gone.json" in log.getvalue()
