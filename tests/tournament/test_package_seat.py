"""A tournament seat played by an agent of the ``diplomacy`` package (examples/
package_random_agent.py, its unmodified client library in a subprocess) against bundled DAIDE
bots: joined through the tournament's own port for the package's clients, rotated, scored and
recorded like any seat; one whose program exits at once is recorded as crashed."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest
import trio

from diplomat.cli.main import main
from diplomat.dipnet.requests import Session
from diplomat.server.app import Server
from diplomat.server.settings import GameSettings
from diplomat.server.store import Store, centre_counts
from diplomat.tournament.package_seats import PackageSeats
from diplomat.tournament.runner import (
    LineupError,
    Tournament,
    labels_of,
    parse_lineup,
    power_of_seat,
)
from diplomat.tournament.scoring import SCORES, summarise

pytest.importorskip("diplomacy")

PY = shlex.quote(sys.executable)
AGENT = Path(__file__).resolve().parents[2] / "examples" / "package_random_agent.py"
PACKAGE_SEAT = (
    f"pkg={PY} {shlex.quote(str(AGENT))} --host {{host}} --port {{diplomacy_port}} "
    "--game {game_id} --power {power_name} --user {user} --password {password} --seed {seed}"
)
POWERS = ["AUS", "ENG", "FRA", "GER", "ITA", "RUS", "TUR"]
NAMES = ["AUSTRIA", "ENGLAND", "FRANCE", "GERMANY", "ITALY", "RUSSIA", "TURKEY"]
SHORT = GameSettings(max_year=1902, move_time=20, retreat_time=10, build_time=10, map="standard")
# Without deadlines the games wait for every seat's orders: a slow agent (a loaded machine)
# is waited for, not played past, so what it ordered is in every phase.
UNTIMED = GameSettings(max_year=1902, map="standard")


async def test_a_package_agent_plays_two_rotated_games_against_daide_bots(
    tmp_path: Path,
) -> None:
    store = Store(tmp_path / "t.sqlite")
    seats = parse_lineup([PACKAGE_SEAT, "randombot:3", "holdbot:3"])
    assert seats[0].package and not seats[0].tcp
    folder = tmp_path / "run"
    t = Tournament(store, seats, UNTIMED, games=2, parallel=2, seed=4, folder=folder, replays=0)
    with trio.fail_after(240):
        await t.run()
    results = t.results()
    assert [g.index for g in results] == [0, 1]
    for g in results:
        (mine,) = [s for s in g.seats if s.label == "pkg"]
        # Seat 1 plays the game's rotated power, and played it to the end.
        assert mine.power == power_of_seat(POWERS, 0, g.index)
        log = Path(mine.log).read_text() if mine.log is not None else "(no log)"
        assert (mine.crashed, mine.hung, mine.absent) == (False, False, False), (mine, log)
        assert not g.incomplete and g.reason == "year limit"
        final = centre_counts(store.states(g.game_id)[-1][1])
        assert mine.centres == final.get(mine.power, 0)
        # Its orders came from the agent: its log names every movement phase it ordered in,
        # and the game has its orders in each (no civil disorder).
        name = NAMES[POWERS.index(mine.power)]
        assert f"joined game {g.game_id} as {name}" in log
        for phase in ("S1901M", "F1901M", "S1902M", "F1902M"):
            assert f"\n{phase}: " in log, log
        assert "game over" in log, log
        for phase in ("S1901M", "F1902M"):
            given = store.submissions(g.game_id, phase)
            assert any(s.power == mine.power and s.action == "sub" for s in given), given
    assert len({s.power for g in results for s in g.seats if s.label == "pkg"}) == 2
    (pkg,) = [b for b in summarise(results, labels_of(seats)) if b.label == "pkg"]
    assert pkg.games == 2 and pkg.crashes == 0
    assert all(len(pkg.scores[k]) == 2 for k in SCORES)
    store.close()


async def test_a_package_agent_that_exits_at_once_is_recorded_and_the_game_ends(
    tmp_path: Path,
) -> None:
    store = Store(tmp_path / "t.sqlite")
    quitter = f"quitter={PY} -c 'raise SystemExit(3)' {{diplomacy_port}} {{password}}"
    # Starts and never connects.
    sleeper = f"sleeper={PY} -c 'import time; time.sleep(600)' {{diplomacy_port}}"
    seats = parse_lineup(["holdbot:5", sleeper, quitter])
    settings = SHORT.model_copy(update={"max_year": 1901})
    # The holdbots join in milliseconds; the sleeper is waited for the whole join timeout.
    t = Tournament(
        store, seats, settings, games=1, parallel=1, join_timeout=5, exit_grace=1, replays=0
    )
    with trio.fail_after(120):
        await t.run()
    (game,) = t.results()
    (quit,) = [s for s in game.seats if s.label == "quitter"]
    assert quit.power == "TUR" and quit.crashed and quit.stopped == "joining"
    assert quit.detail == "exit status 3"
    (sleep,) = [s for s in game.seats if s.label == "sleeper"]
    assert sleep.power == "RUS" and sleep.absent and sleep.stopped == "joining"
    assert sleep.detail is not None and "never joined within 5 s" in sleep.detail
    assert game.incomplete and game.reason == "year limit"
    assert store.games()[0].status == "finished"
    store.close()


MUTE_AGENT = """\
import sys
from diplomacy.client.connection import connect
from tornado import gen, ioloop

port, game_id, power, user, password = sys.argv[1:]


@gen.coroutine
def main():
    connection = yield connect("127.0.0.1", int(port))
    channel = yield connection.authenticate(user, password)
    yield channel.join_game(game_id=game_id, power_name=power)
    print("joined; no orders from here", flush=True)
    yield gen.sleep(600)


ioloop.IOLoop.current().run_sync(main)
"""


def test_a_package_agent_that_gives_no_orders_is_hung(tmp_path: Path) -> None:
    script = tmp_path / "mute.py"
    script.write_text(MUTE_AGENT)
    mute = f"mute={PY} {script} {{diplomacy_port}} {{game_id}} {{power_name}} {{user}} {{password}}"
    js = tmp_path / "r.json"
    code = main(["tournament", mute, "holdbot:6", "--games", "1", "--max-year", "1901",
                 "--mtl", "2", "--rtl", "2", "--btl", "2", "--hung-after", "2",
                 "--db", str(tmp_path / "db.sqlite"), "--dir", str(tmp_path / "run"),
                 "--json", str(js), "--quiet"])  # fmt: skip
    assert code == 0
    (game,) = json.loads(js.read_text())["games"]
    (p,) = [p for p in game["players"] if p["label"] == "mute"]
    # Missed S1901M and F1901M: hung since S1901M, killed; the game went on without it.
    assert (p["power"], p["status"], p["stopped"]) == ("AUS", "hung", "S1901M"), p
    assert "joined; no orders from here" in Path(p["log"]).read_text()
    assert game["result"]["reason"] == "year limit"


def test_a_seat_is_a_daide_bot_or_a_package_agent_not_both() -> None:
    both = "x=prog --port {port} --dipnet {diplomacy_port}"
    with pytest.raises(LineupError, match="one or the other"):
        parse_lineup(["holdbot:6", both])
    daide = parse_lineup(["holdbot:6", "x=prog --user {user}"])[-1]
    with pytest.raises(LineupError, match="bad command template"):
        daide.sample_argv()  # {user} is a package agent's alone


async def test_package_agents_play_only_on_the_packages_maps(tmp_path: Path) -> None:
    store = Store(tmp_path / "t.sqlite")
    seats = parse_lineup([PACKAGE_SEAT, "holdbot:2"], powers=3)
    settings = SHORT.model_copy(update={"map": "hundred3", "max_year": 1426})
    t = Tournament(store, seats, settings, games=1, parallel=1)
    with pytest.raises(LineupError, match=r"only on the maps it has .*not 'hundred3'"):
        await t.run()
    assert not store.games()  # refused before any game
    store.close()


async def test_only_the_seats_own_user_joins_its_power(tmp_path: Path) -> None:
    """The port for the package's clients, asked as its client asks (JSON requests): no
    account is made on sign-in, and a seat's user takes its own power and no other."""
    store = Store(tmp_path / "t.sqlite")
    server = Server(store, SHORT, port=0, open_games=False, resume=False)
    async with trio.open_nursery() as nursery:
        await nursery.start(server.run)
        seats = PackageSeats(server)
        await nursery.start(seats.run)
        runner = server.create_game(SHORT, name="t#0", tournament="t")
        logins = seats.open_game(runner, [(1, "FRA", "pkg"), (2, "ENG", "other")])
        fra = logins["FRA"]
        assert (fra.power_name, fra.game_id, fra.port) == (
            "FRANCE",
            str(runner.id),
            seats.service.port,
        )
        session = Session(lambda data: None)

        async def ask(name: str, **fields: object) -> dict[str, Any]:
            request = {"name": name, "request_id": "r1", **fields}
            reply = await seats.service.answer(json.dumps(request), session)
            assert reply is not None
            answer: dict[str, Any] = json.loads(reply)
            return answer

        stranger = await ask("sign_in", username="mallory", password="x")
        assert stranger["error_type"] == "UserException"
        wrong = await ask("sign_in", username=fra.user, password="not it")
        assert wrong["error_type"] == "PasswordException"
        # A password goes on a command line: never one that reads as an option ("-x...").
        assert int(fra.password, 16) and len(fra.password) == 32
        token = (await ask("sign_in", username=fra.user, password=fra.password))["data"]
        join = {"token": token, "game_id": fra.game_id}
        other = await ask("join_game", **join, power_name="ENGLAND")
        assert other["error_type"] == "GameJoinRoleException"
        mine = await ask("join_game", **join, power_name="FRANCE")
        assert mine["name"] == "data_game" and mine["data"]["role"] == "FRANCE"
        with trio.fail_after(30):
            while not runner.has_joiner_for("FRA"):
                await runner.settled()
        seats.close_game(runner)
        gone = await ask("sign_in", username=fra.user, password=fra.password)
        assert gone["error_type"] == "UserException"
        # Its token went with its account (the game is forgotten too).
        assert (await ask("list_games", token=token))["error_type"] == "TokenException"
        runner.abandon()
        await runner.done.wait()
        nursery.cancel_scope.cancel()
    store.close()
