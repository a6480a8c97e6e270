"""``kill -9`` a ``diplomat serve --diplomacy-port`` in the middle of a package client's game,
start it again on the same database and ports: the user signs in with her password on a new
connection, finds her game listed, joins it again as her power, the orders she gave before
are still there; the DAIDE bots come back (IAM on the game's own DAIDE port, opened again);
the client that stayed up through the restart reconnects by itself with its token and plays
on to the end of the game, with the same final position in the store and in the client.
Then the account table alone: kept across a restart, a wrong password still refused, the
admin flag kept, ``--diplomacy-admin``'s password replacing the old one, tokens kept until
signed out."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import trio

from diplomat.dipnet.accounts import AccountError, Accounts
from diplomat.dipnet.games import PackageGame
from diplomat.dipnet.records import GameRecord, Records
from diplomat.dipnet.service import DipnetService
from diplomat.engine.map import GameMap, load_map
from diplomat.protocol import messages
from diplomat.protocol.codec import codec_for
from diplomat.protocol.mdf import table_for_map
from diplomat.replay.package_notation import order_text
from diplomat.server.app import Server
from diplomat.server.settings import GameSettings
from diplomat.server.store import Store
from tests.dipnet.test_package_protocol import final_units
from tests.web.conftest import ROOT, LiveServer, start_server, stop_server

OTHERS = 6  # DAIDE bots for the powers other than FRANCE


def diplomacy_port(server: LiveServer) -> int:
    line = next(x for x in server.lines if "diplomacy package clients: ws://" in x)
    return int(line.rsplit(":", 1)[1])


def web_port(server: LiveServer) -> int:
    return int(server.url.split(":")[2].split("/")[0])


def stored_orders(results: list[tuple[str, str, str]], power: str, gmap: GameMap) -> list[str]:
    """``power``'s orders among stored results (phase, power, ORD text), as the package
    writes them."""
    codec = codec_for(table_for_map(gmap))
    out = []
    for _, who, text in results:
        msg = codec.parse_text(text)
        if who == power and isinstance(msg, messages.Ord) and msg.order is not None:
            out.append(order_text(gmap, msg.order))
    return sorted(out)


def client(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.dipnet.restart_client", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )


def said(proc: subprocess.Popen[str]) -> dict[str, Any]:
    """The client's next JSON line (it ends its phase of the test by printing one)."""
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line, proc.stderr.read() if proc.stderr else "no output"
    result: dict[str, Any] = json.loads(line)
    return result


def test_a_package_game_survives_kill_9(tmp_path: Path) -> None:
    db = tmp_path / "d.sqlite"
    # The grace outlasts anything here: the bots' reconnection is waited for, not timed.
    common = ("--diplomacy-admin", "root:root-pw", "--max-year", "1902", "--rejoin-grace", "300")
    server = start_server(db, "--diplomacy-port", "0", *common)
    bots: list[subprocess.Popen[bytes]] = []
    port = diplomacy_port(server)
    first = client("first", str(port))
    try:
        made = said(first)
        bots = [
            subprocess.Popen(
                [
                    *(sys.executable, "-m", "diplomat.bots.randombot", "--seed", str(k)),
                    *("--port", str(made["daide_port"]), "--reconnect", "300"),
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                cwd=ROOT,
            )
            for k in range(OTHERS)
        ]
        ordered = said(first)
        assert ordered["phase"] == "S1901M"
    finally:
        server.proc.kill()  # SIGKILL: nothing more is saved (the first client stays up)
        server.proc.wait()
    # The same database and ports: the bots reconnect where they were.
    # (Given after start_server's own --port 0 --web-port 0, these win.)
    ports = ("--port", str(server.daide_port), "--web-port", str(web_port(server)))
    again = start_server(db, *ports, "--diplomacy-port", str(port), *common)
    try:
        second = client("second", str(port), made["game_id"])
        seen = said(second)
        assert second.wait(120) == 0
        played = said(first)  # the first client played the game to its end
        assert first.wait(120) == 0
        for bot in bots:
            assert bot.wait(120) == 0
    finally:
        stop_server(again)
        procs: list[subprocess.Popen[Any]] = [first, *bots]
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    assert seen["wrong_password"] == "PasswordException: wrong password"
    listed = {g["game_id"]: g for g in seen["listed"]}
    assert listed[made["game_id"]]["status"] == "active"
    assert listed[made["game_id"]]["powers"] == ["FRANCE"]
    # The seat was taken back (IAM), with the orders given before the kill.
    assert seen["rejoined"] == {
        "phase": "S1901M",
        "status": "active",
        "orders": sorted(ordered["ordered"]),
    }
    assert seen["next"] == "F1901M"
    # Back before the phase was processed, the client saw it processed (its history starts
    # at S1901M); back after, it was brought up to date and keeps the phases since the one
    # it had (from F1901M): which comes first depends on when its library reconnects.
    assert played["status"] == "completed" and played["history"][0] in ("S1901M", "F1901M")
    refused = [x for x in played["log"] if "refused" in x and "is over" not in x]
    assert played["log"][0] == "F1901M" and not refused
    game_id = int(made["game_id"])
    store = Store(db)
    try:
        results = store.results(game_id, "S1901M")
        players = {p.power: (p.name, p.status) for p in store.players(game_id)}
        row = store.game(game_id)
        phases = [phase for phase, _ in store.states(game_id)]
    finally:
        store.close()
    france = stored_orders(results, "FRA", load_map("standard"))
    assert france == sorted(ordered["ordered"])  # the orders given before the kill
    # The same seat, not a new player: the package's user, and nobody in civil disorder.
    assert players["FRA"][0] == "erin"
    assert all(status in ("playing", "eliminated") for _, status in players.values()), players
    assert row.status == "finished"
    final = {p: sorted(u) for p, u in played["final"].items()}
    assert final == final_units(again, made["game_id"], "standard")
    # Started once more, the finished game is listed as completed, with its history.
    games = trio.run(package_games, db)
    done = games[made["game_id"]]
    assert done.status == "completed" and done.runner is None
    assert [p.state.phase.name for p in done.history] == phases
    assert phases[1:] == played["history"]
    assert done.controllers == {"FRA": "erin"}


def test_accounts_are_kept_in_the_store(tmp_path: Path) -> None:
    db = tmp_path / "a.sqlite"
    store = Store(db)
    try:
        records = Records(store)
        accounts = Accounts(records=records)
        before = accounts.sign_in("erin", "e-pw")  # made on first sign-in
        accounts.add_admin("root:old-pw")
        admin_token = accounts.sign_in("root", "old-pw")
        # root plays a power and has joined a game: rows that name the account.
        game_id = store.create_game(GameSettings(map="standard").model_dump())
        records.save_game(GameRecord(game_id, "standard", ["POWER_CHOICE"], 0, 1))
        records.set_controller(game_id, "ENG", "root")
        records.save_view(admin_token, game_id, "ENGLAND")
    finally:
        store.close()
    store = Store(db)  # a restart: a new process would read the same file
    try:
        records = Records(store)
        kept = Accounts(records=records)
        assert sorted(kept.users) == ["erin", "root"]
        assert kept.users["root"].admin and not kept.users["erin"].admin
        token = kept.sign_in("erin", "e-pw")
        assert kept.user(token).name == "erin"
        with pytest.raises(AccountError) as wrong:
            kept.sign_in("erin", "not hers")
        assert wrong.value.kind == "PasswordException"
        assert kept.user(before).name == "erin"  # a token of before the restart
        kept.sign_out(before)
        with pytest.raises(AccountError) as gone:
            kept.user(before)
        assert gone.value.kind == "TokenException"
        # --diplomacy-admin with the same password keeps the account as it is ...
        kept.add_admin("root:old-pw")
        assert kept.user(admin_token).name == "root"
        assert records.has_view(admin_token, game_id, "ENGLAND")
        # ... and with another replaces its password: the old one and its tokens are gone.
        kept.add_admin("root:new-pw")
        with pytest.raises(AccountError):
            kept.sign_in("root", "old-pw")
        with pytest.raises(AccountError):
            kept.user(admin_token)
        assert not records.has_view(admin_token, game_id, "ENGLAND")
        assert records.games()[0].controllers == {"ENG": "root"}  # still its power
    finally:
        store.close()
    store = Store(db)
    try:
        last = Accounts(records=Records(store), create_on_sign_in=False)
        assert last.users["root"].admin
        with pytest.raises(AccountError):  # signed out before this restart
            last.user(before)
        assert last.user(last.sign_in("root", "new-pw")).admin
        with pytest.raises(AccountError):
            last.sign_in("root", "old-pw")
    finally:
        store.close()


async def package_games(db: Path) -> dict[str, PackageGame]:
    """The package's games a service started on ``db`` restores (in-process)."""
    store = Store(db)
    try:
        records = Records(store)
        server = Server(store, GameSettings(map="standard"), port=0, open_games=False)
        async with trio.open_nursery() as nursery:
            await nursery.start(server.run)
            service = DipnetService(server, Accounts(records=records), records)
            await nursery.start(service.run, 0)
            nursery.cancel_scope.cancel()
        return service.games
    finally:
        store.close()


async def test_a_game_still_forming_at_the_kill_is_not_restored(tmp_path: Path) -> None:
    """A kept package game whose server game was still forming (the server abandons it on
    start) is left out, with a log line; the service starts all the same."""
    db = tmp_path / "g.sqlite"
    store = Store(db)
    try:
        forming = store.create_game(GameSettings(map="standard").model_dump())
        records = Records(store)
        records.save_game(GameRecord(forming, "standard", ["POWER_CHOICE"], 0, 1))
        Accounts(records=records).add("erin", "e-pw")  # (a controller is a kept account)
        records.set_controller(forming, "FRA", "erin")
        assert records.games() == [
            GameRecord(forming, "standard", ["POWER_CHOICE"], 0, 1, None, {"FRA": "erin"})
        ]
    finally:
        store.close()
    assert await package_games(db) == {}
    store = Store(db)
    try:
        assert store.game(forming).status == "abandoned"
    finally:
        store.close()
