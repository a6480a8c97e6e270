"""A map of the user's own, served from its file: subprocess bots that have never seen it learn
it from the RM and the MDF, and play it to the end."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path

import trio

from diplomat.engine.map import load_map
from diplomat.server.app import Server
from diplomat.server.settings import GameSettings

from .test_bots_live import GAME_PATIENCE, bot_command

MakeServer = Callable[[GameSettings], Awaitable[Server]]


async def test_bundled_bots_play_a_map_file_they_do_not_have(
    make_server: MakeServer, tmp_path: Path
) -> None:
    data = dict(load_map("hundred3").to_dict(), name="myhundred", title="My Hundred")
    path = tmp_path / "myhundred.json"
    path.write_text(json.dumps(data))
    server = await make_server(GameSettings(map=str(path), max_year=1427))
    port = str(server.address[1])
    lineup = [
        ["dumbbot", "--seed", "1"],
        ["randombot", "--seed", "2"],
        ["bordeaux", "--seed", "3", "--nodes", "200"],
    ]
    logs = [tmp_path / f"bot{i}.log" for i in range(len(lineup))]
    codes: dict[int, int] = {}

    async def bot(i: int, argv: list[str]) -> None:
        with logs[i].open("w") as err:
            proc = await trio.run_process(argv, check=False, stderr=err)
        codes[i] = proc.returncode

    with trio.fail_after(GAME_PATIENCE):
        async with trio.open_nursery() as nursery:
            for i, (name, *extra) in enumerate(lineup):
                nursery.start_soon(bot, i, bot_command(name, "--port", port, *extra))
    for i, log in enumerate(logs):
        text = log.read_text()
        assert codes[i] == 0, text
        assert "map myhundred built from its MDF" in text, text
        assert "game over: SMR" in text and "Traceback" not in text, text
    (row,) = server.store.games()
    assert row.status == "finished" and row.result is not None
    assert server.store.states(row.id)[0][0] == "S1425M"
    assert {p.power for p in server.store.players(row.id)} == {"BUR", "ENG", "FRA"}
