"""``diplomat serve --diplomacy-port``: the ``diplomacy`` package's unmodified client library
(tests/dipnet/package_client.py, in its Tornado loop in a subprocess) plays a whole game on a
real server: two package users as powers, an observer and the administrator (omniscient),
with five bundled DAIDE bots (subprocesses) on the game's DAIDE port, press both ways."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing

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

# Run as modules from the checkout (they share the example agent's choice of orders).
CLIENT = "tests.dipnet.package_client"
RECONNECTING = "tests.dipnet.reconnecting_client"


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


def run_client(module: str, port: int) -> dict[str, Any]:
    """Run one of the package's client scripts against the server; what it printed."""
    done = subprocess.run(
        [sys.executable, "-m", module, str(port)],
        capture_output=True,
        text=True,
        timeout=600,  # an outer limit: the client ends with the game
        cwd=Path(__file__).parents[2],
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def final_units(server: LiveServer, game_id: str, map_name: str) -> dict[str, list[str]]:
    """The stored game's last position, as the package writes units."""
    store = Store(server.db)
    try:
        states = store.states(int(game_id))
    finally:
        store.close()
    last = GameState.from_json(states[-1][1], load_map(map_name))
    return {p: sorted(u) for p, u in state_dict(last)["units"].items()}


@pytest.fixture(scope="module")
def played(served: tuple[LiveServer, int]) -> dict[str, Any]:
    return run_client(CLIENT, served[1])


def test_a_whole_game_with_package_clients_and_daide_bots(
    played: dict[str, Any], served: tuple[LiveServer, int]
) -> None:
    assert "standard" in played["maps"]
    # Before the DAIDE bots came: every power but the two the package's users took.
    assert played["playable"] == ["AUSTRIA", "GERMANY", "ITALY", "RUSSIA", "TURKEY"]
    assert (played["game_id"], "forming") in [tuple(g) for g in played["games"]]
    # Every phase reached each client; the game ended for all of them.
    assert played["status"] == ["completed"] * 3
    assert played["seen"]["observer"][-1] == "COMPLETED"
    # (A retreat phase comes between when a unit was dislodged: the bots' orders vary.)
    assert played["phases"][:2] == ["S1901M", "F1901M"]
    assert played["phases"][2] in ("F1901R", "W1901A")
    assert played["moves"]["france"][0] == "S1901M 3 orders"
    assert played["moves"]["england"][0] == "S1901M 3 orders"
    # Every view holds the same final position, and it is the server's.
    final = played["final"]
    assert final["france"] == final["observer"] == final["omniscient"]
    server, _ = served
    store = Store(server.db)
    try:
        press = store.press(int(played["game_id"]))
        players = {p.power: p.name for p in store.players(int(played["game_id"]))}
    finally:
        store.close()
    ours = final_units(server, played["game_id"], "standard")
    assert {p: sorted(u) for p, u in final["observer"].items()} == ours
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
    # The omniscient administrator is shown every message, an observer those to everyone.
    omniscient, observer = played["seen"]["omniscient_press"], played["seen"]["observer_press"]
    assert "FRANCE>ENGLAND: Channel DMZ?" in omniscient
    assert "FRANCE>GLOBAL: Hello from France, everyone." in observer
    assert "FRANCE>GLOBAL: Hello from France, everyone." in omniscient
    assert not [m for m in observer if ">GLOBAL: " not in m]
    between_bots = [m for m in omniscient if not m.startswith(("FRANCE", "ENGLAND"))]
    assert between_bots and all("[DAIDE: " in m for m in between_bots), omniscient[:5]
    # After the end, nothing is left to order.
    assert played["possible_after_end"] == {}


def test_errors_are_the_packages_error_responses(played: dict[str, Any]) -> None:
    errors = played["errors"]
    assert errors["taken"] == "GameJoinRoleException: FRANCE is played by alice"
    assert errors["wrong_password"] == "PasswordException: wrong password"
    assert errors["no_game"] == "GameIdException: no game 'nope'"
    assert errors["observer_orders"].startswith("GameRoleException: observers give no orders")
    # The package has no exception for refused orders: the generic one, naming each.
    bad = errors["bad_orders"]
    assert bad.startswith("ResponseException: 'A PAR - XYZ' (unreadable: "), bad
    assert "'F BRE - MOS' (FAR: " in bad and bad.endswith("(the other 1 given)"), bad


def test_a_client_whose_network_drops_is_brought_up_to_date_on_a_variant(
    served: tuple[LiveServer, int],
) -> None:
    """tests/dipnet/reconnecting_client.py: ITALY on ``standard_fleet_rome`` through a proxy
    that cuts the connection while ITALY waits; a second instance of the seat says ready, so
    the phase is processed while the first is away; the first's library reconnects with its
    token, is synchronized, and plays on to the end."""
    server, port = served
    seen = run_client(RECONNECTING, port)
    assert seen["map"] == "standard_fleet_rome" and "F ROM" in seen["opening"]
    # The first connection, then the reconnection (more when the library's attempt timed
    # out, 5 s, while the proxy held it: a loaded machine).
    assert seen["proxied_connections"] >= 2
    # The phase processed while it was away reached it through the synchronization.
    assert seen["processed_away"] == seen["synced"] == "F1901M"
    # (Orders for a phase that owed none may meet the game's end: "game N is over".)
    refused = [x for x in seen["log"] if "refused" in x and "is over" not in x]
    assert seen["log"][0] == "F1901M" and not refused
    assert seen["status"] == "completed" and seen["bots"] == [0] * 6
    final = {p: sorted(u) for p, u in seen["final"].items()}
    assert final == {p: sorted(u) for p, u in seen["second_final"].items()}
    assert final == final_units(server, seen["game_id"], "fleet_rome")


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
            # A request the client does not wait for, with a token that is no string.
            odd = '{"request_id": "0", "name": "unknown_token", "token": [1]}'
            assert await service.answer(odd, session) is None
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


async def test_maps_tokens_and_synchronization_without_a_client(tmp_path: Path) -> None:
    """The service alone: only maps the package's clients can load are offered; a token is
    the user's on any connection (a reconnection), until the client says it no longer knows
    it; a synchronization with nothing missed sends the status only."""
    store = Store(tmp_path / "m.sqlite")
    server = Server(store, GameSettings(map="standard"), port=0)
    first: list[dict[str, Any]] = []
    second: list[dict[str, Any]] = []
    old, new = Session(first.append), Session(second.append)

    async def ask(session: Session, **req: Any) -> dict[str, Any]:
        reply = await service.answer(json.dumps({"request_id": "r", **req}), session)
        result: dict[str, Any] = json.loads(reply or "null")
        return result

    try:
        async with trio.open_nursery() as nursery:
            await nursery.start(server.run)
            service = DipnetService(server, Accounts())
            await nursery.start(service.run, 0)
            token = (await ask(old, name="sign_in", username="ann", password="pw"))["data"]
            maps = await ask(old, name="get_available_maps", token=token)
            assert sorted(maps["data"]) == ["standard", "standard_fleet_rome"]
            refused = await ask(old, name="create_game", token=token, map_name="hundred3")
            assert refused["error_type"] == "MapIdException", refused
            assert "standard_fleet_rome" in refused["message"]
            made = await ask(
                old, name="create_game", token=token, map_name="standard_fleet_rome", deadline=0
            )
            game_id = made["data"]["game_id"]
            assert made["data"]["map_name"] == "standard_fleet_rome"
            # The same token on another connection: the view moves there.
            info = await ask(
                new,
                name="synchronize",
                token=token,
                game_id=game_id,
                game_role="observer_type",
                timestamp=made["data"]["timestamp_created"],
            )
            assert info["name"] == "data_game_info" and info["game_id"] == game_id
            assert [n["name"] for n in second] == ["game_status_update"]
            assert service.holders[token] is new and not old.views and new.views
            # The client forgot the token: its views go, and nothing is answered.
            assert (
                await service.answer(
                    json.dumps({"request_id": "u", "name": "unknown_token", "token": token}), new
                )
                is None
            )
            assert not new.views and not service.games[game_id].views
            nursery.cancel_scope.cancel()
    finally:
        store.close()


async def test_sign_ins_hash_passwords_beside_the_games_not_in_their_way(tmp_path: Path) -> None:
    """A sign-in's scrypt runs in a worker thread: while a burst of sign-ins hashes, other
    requests are answered at once."""
    store = Store(tmp_path / "s.sqlite")
    server = Server(store, GameSettings(map="standard"), port=0)
    session = Session(lambda note: None)
    done: list[str] = []

    async def ask(tag: str, **req: Any) -> dict[str, Any]:
        reply = await service.answer(json.dumps({"request_id": tag, **req}), session)
        done.append(tag)
        result: dict[str, Any] = json.loads(reply or "null")
        return result

    async def sign_in(tag: str, user: str) -> None:
        await ask(tag, name="sign_in", username=user, password="p")

    try:
        async with trio.open_nursery() as nursery:
            await nursery.start(server.run)
            service = DipnetService(server, Accounts())
            await nursery.start(service.run, 0)
            token = (await ask("first", name="sign_in", username="u", password="pw"))["data"]
            async with trio.open_nursery() as burst:
                for k in range(6):
                    burst.start_soon(sign_in, f"sign{k}", f"u{k}")
                await trio.testing.wait_all_tasks_blocked()
                listed = await ask("list", name="list_games", token=token)
                assert listed["name"] == "data_games"
            assert done.index("list") < max(done.index(f"sign{k}") for k in range(6))
            nursery.cancel_scope.cancel()
    finally:
        store.close()


@pytest.mark.parametrize("rules", ["datc", "package"])
async def test_games_the_package_creates_take_the_servers_rule_set(
    tmp_path: Path, rules: str
) -> None:
    """``serve --diplomacy-rules``: the rule set of every game a package client creates."""
    store = Store(tmp_path / "r.sqlite")
    server = Server(store, GameSettings(map="standard"), port=0, diplomacy_rules=rules)
    session = Session(lambda note: None)
    try:
        async with trio.open_nursery() as nursery:
            await nursery.start(server.run)
            service = DipnetService(server, Accounts())
            await nursery.start(service.run, 0)
            signed = await service.answer(
                '{"request_id": "1", "name": "sign_in", "username": "u", "password": "p"}',
                session,
            )
            token = json.loads(signed or "{}")["data"]
            made = json.loads(
                await service.answer(
                    json.dumps(
                        {"request_id": "2", "name": "create_game", "token": token,
                         "map_name": "standard", "deadline": 0}
                    ),
                    session,
                )
                or "{}"
            )  # fmt: skip
            runner = service.games[made["data"]["game_id"]].runner
            assert runner is not None and runner.settings.rules == rules
            nursery.cancel_scope.cancel()
    finally:
        store.close()


async def test_no_request_of_any_shape_escapes_the_service(tmp_path: Path) -> None:
    """Every request name, with each field given values of every JSON kind (the right
    token and game among them, so handlers are reached, not only refused): each is answered
    with a clear error or ignored, none raises past its handler, and the service answers a
    plain request afterwards."""
    from diplomat.dipnet.service import REQUESTS

    store = Store(tmp_path / "f.sqlite")
    server = Server(store, GameSettings(map="standard"), port=0)
    session = Session(lambda note: None)
    rng = random.Random(33)
    try:
        async with trio.open_nursery() as nursery:
            await nursery.start(server.run)
            service = DipnetService(server, Accounts())
            await nursery.start(service.run, 0)

            async def ask(**req: Any) -> dict[str, Any]:
                reply = await service.answer(json.dumps({"request_id": "r", **req}), session)
                result: dict[str, Any] = json.loads(reply or "null")
                return result

            token = (await ask(name="sign_in", username="fuzz", password="pw"))["data"]
            made = await ask(
                name="create_game", token=token, map_name="standard", power_name="FRANCE"
            )
            game_id = made["data"]["game_id"]
            # The other six powers taken too: the game starts, and the game requests are
            # handled in a game under way.
            others = ["AUSTRIA", "ENGLAND", "GERMANY", "ITALY", "RUSSIA", "TURKEY"]
            for k, power in enumerate(others):
                other = (await ask(name="sign_in", username=f"u{k}", password="pw"))["data"]
                await ask(name="join_game", token=other, game_id=game_id, power_name=power)
            with trio.fail_after(60):
                while service.games[game_id].status != "active":
                    await trio.sleep(0.01)
            values: list[Any] = [token, game_id, "FRANCE", "observer_type", "S1901M", "GLOBAL"]
            values += [None, True, 0, -1, 10**40, 1.5, "", "x" * 300, [], [1, [2]], {}]
            values += [{"message": "hi", "recipient": "ENGLAND"}, ["A PAR - BUR", 3]]
            fields = ["token", "game_id", "game_role", "power_name", "phase", "orders"]
            fields += ["wait", "vote", "message", "timestamp", "map_name", "rules", "deadline"]
            fields += ["username", "password", "status", "registration_password", "state"]
            names: list[Any] = [*REQUESTS, "unknown_token", "fly", 5, None, [1], {"a": 1}]
            # Mostly the right token, game and role, so that most requests reach their work.
            right = {"token": token, "game_id": game_id, "game_role": "FRANCE"}
            seen: set[str] = set()
            for _ in range(1500):
                req = {f: rng.choice(values) for f in rng.sample(fields, rng.randint(0, 8))}
                req["name"] = rng.choice(names)
                if req["name"] in ("logout", "unknown_token", "leave_game"):  # (not the rest's)
                    req["token"] = "t"
                else:
                    req |= {f: v for f, v in right.items() if rng.random() < 0.8}
                text = json.dumps({"request_id": str(rng.random()), **req})
                reply = await service.answer(text, session)
                # Answered with a clear error, never the boundary's "server error".
                assert reply is None or "server error" not in reply, (text, reply)
                seen.add(json.loads(reply)["name"] if reply else "none")
            assert {"ok", "error", "data_possible_orders", "none"} <= seen
            listed = await ask(name="list_games", token=token)
            assert listed["name"] == "data_games" and listed["data"]
            nursery.cancel_scope.cancel()
    finally:
        store.close()
