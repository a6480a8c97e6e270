"""``diplomat serve --diplomacy-port``: the ``diplomacy`` package's unmodified client library
(tests/dipnet/package_client.py, in its Tornado loop in a subprocess) plays a whole game on a
real server: two package users as powers, an observer and the administrator (omniscient),
with five bundled DAIDE bots (subprocesses) on the game's DAIDE port, press both ways."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trio

from diplomat.dipnet.accounts import Accounts
from diplomat.dipnet.requests import Session
from diplomat.dipnet.service import DipnetService
from diplomat.engine.map import load_map
from diplomat.engine.state import GameState
from diplomat.replay.package_notation import state_dict
from diplomat.server.app import Server
from diplomat.server.settings import GameSettings
from diplomat.server.store import Store
from tests.web.conftest import LiveServer, start_server, stop_server

CLIENT = Path(__file__).with_name("package_client.py")


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, int]]:
    db = tmp_path_factory.mktemp("dipnet") / "d.sqlite"
    server = start_server(
        db,
        "--diplomacy-port",
        "0",
        "--diplomacy-admin",
        "root:root-pw",
        "--max-year",
        "1902",
    )
    try:
        line = next(x for x in server.lines if "diplomacy package clients: ws://" in x)
        yield server, int(line.rsplit(":", 1)[1])
    finally:
        stop_server(server)


@pytest.fixture(scope="module")
def played(served: tuple[LiveServer, int]) -> dict[str, Any]:
    _, port = served
    done = subprocess.run(
        [sys.executable, str(CLIENT), str(port)],
        capture_output=True,
        text=True,
        timeout=600,  # an outer limit: the client ends with the game
        cwd=Path(__file__).parents[2],
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_a_whole_game_with_package_clients_and_daide_bots(
    played: dict[str, Any], served: tuple[LiveServer, int]
) -> None:
    assert "standard" in played["maps"]
    assert (played["game_id"], "forming") in [tuple(g) for g in played["games"]]
    # Every phase reached each client; the game ended for all of them.
    assert played["status"] == ["completed"] * 3
    assert played["seen"]["observer"][-1] == "COMPLETED"
    assert played["phases"][:3] == ["S1901M", "F1901M", "W1901A"]
    assert played["moves"]["france"][0] == "S1901M 3 orders"
    assert played["moves"]["england"][0] == "S1901M 3 orders"
    # Every view holds the same final position, and it is the server's.
    final = played["final"]
    assert final["france"] == final["observer"] == final["omniscient"]
    server, _ = served
    store = Store(server.db)
    try:
        states = store.states(int(played["game_id"]))
        press = store.press(int(played["game_id"]))
        players = {p.power: p.name for p in store.players(int(played["game_id"]))}
    finally:
        store.close()
    ours = state_dict(GameState.from_json(states[-1][1], load_map("standard")))["units"]
    assert {p: sorted(u) for p, u in final["observer"].items()} == {
        p: sorted(u) for p, u in ours.items()
    }
    assert players["FRA"] == "alice" and players["ENG"] == "bob"
    assert played["bots"] == [0] * 5
    # Press both ways: the package's text reached the DAIDE players as level-8000 free text;
    # DAIDE press reached the package's clients as English with the DAIDE beside it.
    assert any(
        p.sender == "FRA" and p.body == "'Hello from France, everyone.'" and len(p.recipients) == 6
        for p in press
    )
    assert any(p.sender == "FRA" and p.recipients == ("ENG",) for p in press)
    assert "Channel DMZ?" in played["seen"]["england"]
    assert "Hello from France, everyone." in played["seen"]["england"]
    daide = [t for t in played["seen"]["france"] if "[DAIDE: " in t]
    assert daide and all(not t.startswith("[DAIDE") for t in daide)
    # After the end, nothing is left to order.
    assert played["possible_after_end"] == {}


def test_errors_are_the_packages_error_responses(played: dict[str, Any]) -> None:
    errors = played["errors"]
    assert errors["taken"] == "GameJoinRoleException: FRANCE is played by alice"
    assert errors["wrong_password"] == "PasswordException: wrong password"
    assert errors["no_game"] == "GameIdException: no game 'nope'"
    assert errors["observer_orders"].startswith("GameRoleException: observers give no orders")


async def test_malformed_requests_get_error_responses_on_the_same_socket(tmp_path: Path) -> None:
    store = Store(tmp_path / "e.sqlite")
    server = Server(store, GameSettings(map="standard"), port=0)
    notes: list[dict[str, Any]] = []
    session = Session(notes.append)
    try:
        async with trio.open_nursery() as nursery:
            await nursery.start(server.run)
            service = DipnetService(server, Accounts(create_on_sign_in=False))
            await nursery.start(service.run, 0)
            assert await service.answer("not json", session) is None
            assert await service.answer('{"name": "sign_in"}', session) is None  # no id
            # Unreadable within the bounds (nesting, numbers JSON cannot hold): no id to
            # answer, and the service goes on.
            deep = '{"request_id": "0", "x": ' + "[" * 5000 + "]" * 5000 + "}"
            assert await service.answer(deep, session) is None
            assert await service.answer('{"request_id": "0", "x": 1e999}', session) is None
            cases = {
                '{"request_id": "1", "name": "fly"}': "RequestException",
                '{"request_id": "2", "name": "sign_in", "username": "x", "password": "y"}': (
                    "UserException"
                ),
                '{"request_id": "3", "name": "list_games", "token": "t"}': "TokenException",
                '{"request_id": "4", "name": "sign_in", "username": 5}': "RequestException",
            }
            for text, kind in cases.items():
                reply = json.loads(await service.answer(text, session) or "{}")
                assert reply["name"] == "error" and reply["error_type"] == kind, reply
                assert reply["request_id"] == json.loads(text)["request_id"]
            nursery.cancel_scope.cancel()
    finally:
        store.close()
