"""Tournaments of real subprocess bots over pipes and TCP, scored and stored."""

from __future__ import annotations

import json
import shlex
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
import trio

from diplomat.cli.main import main
from diplomat.server.settings import GameSettings
from diplomat.server.store import Store
from diplomat.tournament.records import Records, TournamentLocked
from diplomat.tournament.runner import LineupError, Tournament, parse_lineup, power_of_seat
from diplomat.tournament.schedule import balanced
from diplomat.tournament.scoring import (
    GameResult,
    SeatResult,
    c_diplo,
    daide_pot,
    draw_size,
    sum_of_squares,
)

PY = shlex.quote(sys.executable)


def test_lineups() -> None:
    seats = parse_lineup(["dumbbot", "randombot:4", "holdbot", "x=prog --port {port}"])
    assert [s.label for s in seats] == ["dumbbot"] + ["randombot"] * 4 + ["holdbot", "x"]
    assert seats[-1].tcp and not seats[0].tcp
    for bad, why in [
        (["dumbbot"], "exactly 7"),
        (["nobot:7"], "unknown bot"),
        (["holdbot:x", "randombot:6"], "number"),
        (["holdbot=cmd", "randombot:6"], "bundled"),
    ]:
        with pytest.raises(LineupError, match=why):
            parse_lineup(bad)


def test_seats_rotate_over_the_powers() -> None:
    powers = ["AUS", "ENG", "FRA", "GER", "ITA", "RUS", "TUR"]
    played = {seat: {power_of_seat(powers, seat, g) for g in range(7)} for seat in range(7)}
    assert all(p == set(powers) for p in played.values())


def test_scores() -> None:
    counts = {"AUS": 10, "ENG": 5, "FRA": 5, "GER": 4, "ITA": 4, "RUS": 6, "TUR": 0}
    seats = tuple(SeatResult("b", p, c, 1905 if c == 0 else None) for p, c in counts.items())
    draw = GameResult(1, 0, seats, None, "year limit")
    sos = sum_of_squares(draw)
    assert sos["AUS"] == pytest.approx(100 / 218) and sos["TUR"] == 0
    assert draw_size(draw)["AUS"] == pytest.approx(1 / 6) and draw_size(draw)["TUR"] == 0
    cd = c_diplo(draw)
    assert cd["AUS"] == 1 + 10 + 38 and cd["RUS"] == 1 + 6 + 14
    assert cd["ENG"] == cd["FRA"] == 1 + 5 + 3.5  # sharing third place
    assert sum(cd.values()) == pytest.approx(100) and cd["TUR"] == 1  # 1 for playing
    assert daide_pot(draw)["AUS"] == pytest.approx(7 / 6 - 1) and daide_pot(draw)["TUR"] == -1
    solo = GameResult(2, 1, seats, "AUS", "solo")
    assert sum_of_squares(solo)["AUS"] == 1 and c_diplo(solo)["AUS"] == 100
    assert daide_pot(solo) == {p: (6.0 if p == "AUS" else -1.0) for p in counts}


async def test_pipe_and_tcp_bots_play_a_tournament(tmp_path: Path) -> None:
    store = Store(tmp_path / "t.sqlite")
    tcp = f"tcpbot={PY} -m diplomat.bots.randombot --host {{host}} --port {{port}} --seed {{seed}}"
    seats = parse_lineup(["holdbot:3", "randombot:3", tcp])
    settings = GameSettings(
        max_year=1902, move_time=20, retreat_time=10, build_time=10, map="standard"
    )
    t = Tournament(store, seats, settings, games=2, parallel=2, seed=3)
    await t.run()
    results = t.results()
    assert [g.index for g in results] == [0, 1]
    for g in results:
        final = store.states(g.game_id)[-1][1]
        assert {s.power: s.centres for s in g.seats} == {
            p: len(c) for p, c in final["centres"].items()
        }
        labels = {s.power: s.label for s in g.seats}
        assert sorted(labels.values()) == sorted(["holdbot"] * 3 + ["randombot"] * 3 + ["tcpbot"])
        assert not [s for s in g.seats if s.crashed]
    # Seat 6 (the TCP bot) plays TUR in game 0 and AUS in game 1.
    assert {s.power for s in results[0].seats if s.label == "tcpbot"} == {"TUR"}
    assert {s.power for s in results[1].seats if s.label == "tcpbot"} == {"AUS"}
    # Running it again resumes: nothing left to play.
    again = Tournament(store, seats, settings, games=2, parallel=2, seed=3)
    await again.run()
    assert [g.game_id for g in again.results()] == [g.game_id for g in results]
    store.close()


async def test_a_crashing_bot_is_recorded_and_the_game_finishes(tmp_path: Path) -> None:
    store = Store(tmp_path / "t.sqlite")
    crash = f'crasher={PY} -c "import sys; sys.exit(3)"'
    hang = f'hanger={PY} -c "import time; time.sleep(600)"'
    # Joins (NME) and never accepts the map.
    staller = tmp_path / "staller.py"
    staller.write_text("import time\nprint(\"NME ('s') ('v1')\", flush=True)\ntime.sleep(600)\n")
    stall = f"staller={PY} {staller}"
    seats = parse_lineup(["holdbot:4", crash, hang, stall])
    settings = GameSettings(
        max_year=1901, move_time=5, retreat_time=5, build_time=5, map="standard"
    )
    # The holdbots are forked by the bot host and join in milliseconds; the hanger never
    # joins, so the game waits the whole join timeout for it (ample for a loaded machine, and
    # the test's wall time). No replay: the game is played out without them.
    t = Tournament(
        store, seats, settings, games=1, parallel=1, join_timeout=10, exit_grace=1, replays=0
    )
    with trio.fail_after(180):
        await t.run()
    (game,) = t.results()
    # The game started without them, their powers in civil disorder, and it is incomplete
    # (left out of scores): one crashed, one never joined (absent), one joined and never
    # accepted the map (hung).
    assert [(s.label, s.stopped) for s in game.seats if s.crashed] == [("crasher", "joining")]
    assert [s.label for s in game.seats if s.absent] == ["hanger"]
    (hanger,) = [s for s in game.seats if s.absent]
    assert hanger.detail is not None and "never joined within 10 s of its start" in hanger.detail
    assert [(s.label, s.stopped) for s in game.seats if s.hung] == [("staller", "joining")]
    assert len([s for s in game.seats if s.status == "played"]) == 4
    assert game.incomplete
    rows = store.games()
    assert rows[0].status == "finished"
    store.close()


def test_cli_runs_and_exports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db, js, cs = tmp_path / "db.sqlite", tmp_path / "r.json", tmp_path / "r.csv"
    code = main(["tournament", "randombot:7", "--games", "1", "--max-year", "1901", "--db", str(db),
                 "--json", str(js), "--csv", str(cs), "--quiet", "--seed", "5"])  # fmt: skip
    assert code == 0
    data = json.loads(js.read_text())
    (bot,) = data["bots"]
    assert bot["label"] == "randombot" and bot["games"] == 7
    assert set(bot["scores"]) == {"sos", "dss", "cdiplo", "pot"}
    assert set(bot["scores"]["sos"]) == {"mean", "ci95"} and set(bot["rating"]) == {"mu", "sigma"}
    (game,) = data["games"]
    assert sum(game["centres"].values()) <= 34 and len(game["seats"]) == 7
    assert len(cs.read_text().splitlines()) == 8
    out = capsys.readouterr().out
    assert "randombot" in out
    assert max(len(line) for line in out.splitlines()) <= 80  # reads well at 80 columns
    # Running it again says so, instead of silently reprinting.
    again = ["tournament", "randombot:7", "--games", "1", "--max-year", "1901", "--db", str(db),
             "--quiet", "--seed", "5"]  # fmt: skip
    assert main(again) == 0
    captured = capsys.readouterr()
    assert "already complete" in captured.err and "--seed" in captured.err
    assert main([*again, "--wide"]) == 0
    wide = capsys.readouterr().out
    assert "C-Diplo" in wide and "C-Diplo" not in out
    assert main(["tournament", "randombot:6", "--db", str(db)]) == 2
    assert main(["tournament", "randombot:7", "--games", "0", "--db", str(db)]) == 2


# -- at scale: pools, bad bots, logs, locks, resuming --------------------------------------------

MUTE_BOT = """\
import pathlib, sys
pathlib.Path("badlog.txt").write_text("written in my own working folder\\n")
print("hello from a mute bot", file=sys.stderr, flush=True)
print("NME ('mute') ('v1')", flush=True)
for line in sys.stdin:  # accepts the map, then never orders, until the server closes
    if line.startswith("MAP"):
        print("YES (MAP ('standard'))", flush=True)
"""


def test_a_pool_of_nine_is_balanced() -> None:
    schedule = balanced(9, 63, seed=4)
    games = Counter(member for game in schedule for member in game)
    assert set(games.values()) == {49}  # 63 games x 7 seats / 9 members
    per_power = Counter((member, power) for game in schedule for power, member in enumerate(game))
    assert set(per_power.values()) == {7} and len(per_power) == 63
    assert all(len(set(game)) == 7 for game in schedule)
    # Any length: games per member differ by at most one, power counts by at most two.
    schedule = balanced(11, 40, seed=1)
    games = Counter(member for game in schedule for member in game)
    assert max(games.values()) - min(games.values()) <= 1
    per_power = Counter((member, power) for game in schedule for power, member in enumerate(game))
    for member in range(11):
        counts = [per_power[(member, p)] for p in range(7)]
        assert max(counts) - min(counts) <= 2
    assert balanced(9, 63, seed=4) == schedule_again(9, 63, 4)  # from the seed alone


def schedule_again(members: int, games: int, seed: int) -> list[list[int]]:
    return balanced(members, games, seed)


def test_a_pool_of_nine_plays_a_tournament(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    js = tmp_path / "r.json"
    code = main(["tournament", "--pool", "holdbot:4", "randombot:3", "dumbbot:2", "--games", "9",
                 "--max-year", "1901", "--db", str(tmp_path / "db.sqlite"), "--json", str(js),
                 "--quiet"])  # fmt: skip
    assert code == 0
    data = json.loads(js.read_text())
    assert {b["label"]: b["games"] for b in data["bots"]} == {
        "holdbot": 28, "randombot": 21, "dumbbot": 14  # 7 games for each of the 9 seats
    }  # fmt: skip
    seats = Counter(p["seat"] for g in data["games"] for p in g["players"])
    assert seats == {n: 7 for n in range(1, 10)}
    for b in data["bots"]:
        assert set(b["rating"]) == {"mu", "sigma"} and b["scores"]["sos"]["ci95"] is not None
    assert main(["tournament", "--pool", "holdbot:6", "--db", str(tmp_path / "db.sqlite")]) == 2
    assert "at least 7 seats" in capsys.readouterr().err


def test_a_hung_bot_is_recorded_with_its_phase_and_each_seat_has_its_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "mute.py"
    script.write_text(MUTE_BOT)
    folder, js, cs = tmp_path / "run", tmp_path / "r.json", tmp_path / "r.csv"
    code = main(["tournament", "holdbot:5", f"mute={PY} {script}:2", "--games", "1",
                 "--max-year", "1902", "--mtl", "3", "--rtl", "3", "--btl", "3",
                 "--hung-after", "2", "--db", str(tmp_path / "db.sqlite"), "--dir", str(folder),
                 "--json", str(js), "--csv", str(cs), "--quiet"])  # fmt: skip
    assert code == 0
    out = capsys.readouterr().out
    (game,) = json.loads(js.read_text())["games"]
    mutes = [p for p in game["players"] if p["label"] == "mute"]
    assert len(mutes) == 2 and sorted(game["hung"]) == sorted(p["power"] for p in mutes)
    for p in mutes:
        # Missed S1901M and F1901M: hung since S1901M; the game went on without it.
        assert p["status"] == "hung" and p["stopped"] == "S1901M"
        log = Path(p["log"])
        assert log.parent.parent == folder and "hello from a mute bot" in log.read_text()
        workdir = folder / "game0000" / f"seat{p['seat']}-{p['power']}"
        assert (workdir / "badlog.txt").exists()  # its own folder: no clobbering
    assert all(p["status"] == "played" and p["log"] is None
               for p in game["players"] if p["label"] == "holdbot")  # fmt: skip
    assert game["result"]["reason"] == "year limit"
    (mute,) = [b for b in json.loads(js.read_text())["bots"] if b["label"] == "mute"]
    assert mute["hung"] == 2 and mute["crashes"] == 0
    rows = cs.read_text().splitlines()
    assert rows[0].split(",")[8:10] == ["hung", "stopped"]
    assert sum(",1,S1901M," in r for r in rows) == 2
    assert "seats that did not play to the end: 0 absent, 2 hung, 0 crashed" in out
    assert "incomplete" not in out  # they joined: the game lost nobody before its start


def test_a_missing_program_is_one_clear_line_and_leaves_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "db.sqlite"
    code = main(["tournament", "dumbbot", "randombot:5", "x=/nonexistent/bot", "--db", str(db)])
    assert code == 2
    err = capsys.readouterr().err
    assert "seat 7: cannot start '/nonexistent/bot': no such file" in err.splitlines()
    assert "Traceback" not in err and len(err.splitlines()) <= 3
    assert not db.exists() or not Store(db).games()
    code = main(["tournament", "holdbot:6", "bad=holdbot --bogus", "--db", str(db), "--quiet"])
    assert code == 2
    err = capsys.readouterr().err
    assert "seat 7" in err and "--bogus" in err and "Traceback" not in err
    assert not Store(db).games()


def test_the_lock_names_its_holder_and_a_dead_holder_is_taken_over(tmp_path: Path) -> None:
    store = Store(tmp_path / "db.sqlite")
    records = Records(store.path)
    holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    try:
        now = time.time()
        records.db.execute(
            "INSERT INTO tournament_locks VALUES ('t-x', ?, ?, ?, ?)",
            (socket.gethostname(), holder.pid, now, now),
        )
        with pytest.raises(TournamentLocked, match=f"pid {holder.pid}"):
            records.lock("t-x")
    finally:
        holder.kill()
        holder.wait()
    records.lock("t-x")  # its holder is dead: taken over
    records.unlock("t-x")
    records.close()
    store.close()


def _descendants(pid: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    out: set[int] = set()
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.add(child)
            todo.append(child)
    return out


def _alive(pid: int) -> bool:
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _finished(db: Path) -> list[str]:
    if not db.exists():
        return []
    return [g.name for g in Store(db).games() if g.status == "finished"]


def test_kill_9_then_resume_and_a_second_run_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite"
    # One game at a time, so that games remain to be played when the second run starts.
    args = ["tournament", "dumbbot:7", "--games", "6", "--parallel", "1", "--max-year", "1912",
            "--seed", "2", "--db", str(db), "--quiet"]  # fmt: skip
    first = subprocess.Popen(
        [sys.executable, "-m", "diplomat.cli.main", *args], stderr=subprocess.PIPE
    )
    try:
        deadline = time.monotonic() + 300
        while not _finished(db) and time.monotonic() < deadline:
            assert first.poll() is None, first.stderr.read() if first.stderr else ""
            time.sleep(0.1)
        assert _finished(db), "no game finished in 300 s"
        # A second run of the same tournament is refused while the first runs.
        second = subprocess.run([sys.executable, "-m", "diplomat.cli.main", *args],
                                capture_output=True, text=True, timeout=120)  # fmt: skip
        assert second.returncode == 2 and "already running" in second.stderr
        assert f"pid {first.pid}" in second.stderr
        bots = _descendants(first.pid)
        assert bots, "the tournament has a bot host and bots"
    finally:
        first.kill()
        first.wait()
    # Its bot host and bots notice at once (the host's parent died; the bots' links closed).
    deadline = time.monotonic() + 60
    while any(_alive(p) for p in bots) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [p for p in bots if _alive(p)]
    # Run again: the dead run's lock is taken over; every game is played exactly once.
    assert main(args) == 0
    names = _finished(db)
    assert sorted(names) == sorted(set(names)) and len(names) == 6


def test_ctrl_c_stops_cleanly_and_says_how_to_resume(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite"
    args = ["tournament", "dumbbot:7", "--games", "7", "--parallel", "1", "--max-year", "1912",
            "--db", str(db), "--quiet"]  # fmt: skip
    run = subprocess.Popen(
        [sys.executable, "-m", "diplomat.cli.main", *args],
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 300
    while not _finished(db) and time.monotonic() < deadline and run.poll() is None:
        time.sleep(0.1)
    bots = _descendants(run.pid)
    run.send_signal(signal.SIGINT)
    _, err = run.communicate(timeout=120)
    assert run.returncode == 130, err
    assert "run the same command again to resume" in err and "Traceback" not in err
    deadline = time.monotonic() + 60
    while any(_alive(p) for p in bots) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [p for p in bots if _alive(p)]


def _ordered(db: Path) -> bool:
    """Whether an order has been given in the first game of the database."""
    store = Store(db)
    try:
        games = store.games()
        return bool(games) and bool(store.submissions(games[0].id, "S1901M"))
    finally:
        store.close()


def test_a_tcp_bot_stops_reconnecting_as_soon_as_its_tournament_is_killed(tmp_path: Path) -> None:
    """A TCP bot from a template (a bundled bot told to keep reconnecting for an hour) is
    playing when its tournament is killed with SIGKILL: its lifeline (DIPLOMAT_LIFELINE)
    reads end-of-file, and it exits at once instead of reconnecting for the hour."""
    script = tmp_path / "mute.py"
    script.write_text(MUTE_BOT)
    db, folder, err = tmp_path / "db.sqlite", tmp_path / "run", tmp_path / "stderr.txt"
    tcp = f"tcp={PY} -m diplomat.bots.holdbot --host {{host}} --port {{port}} --reconnect 3600"
    args = ["tournament", tcp, f"mute={PY} {script}:6", "--games", "1", "--mtl", "600",
            "--db", str(db), "--dir", str(folder), "--quiet"]  # fmt: skip
    with err.open("wb") as stderr:
        first = subprocess.Popen([sys.executable, "-m", "diplomat.cli.main", *args], stderr=stderr)
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:  # until the TCP bot has ordered (it has its HLO)
            assert first.poll() is None, err.read_text()
            if db.exists() and _ordered(db):
                break
            time.sleep(0.1)
        else:
            raise AssertionError("the TCP bot never ordered")
        (bot,) = [p for p in _descendants(first.pid)
                  if b"diplomat.bots.holdbot" in Path(f"/proc/{p}/cmdline").read_bytes()
                  ]  # fmt: skip
    finally:
        first.kill()
        first.wait()
    deadline = time.monotonic() + 120
    while _alive(bot) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(bot), "still reconnecting"
    (log,) = [p for p in folder.glob("game*/seat*.log") if "tournament is gone" in p.read_text()]
    assert "holdbot" in log.read_text() or "HoldBot" in log.read_text()


# A TCP program that connects only on its second start (a licence server it waits for, say): on
# other starts it says so (in its log) and never connects.
FLAKY_BOT = """\
import os, pathlib, sys, time
counter = pathlib.Path(sys.argv[1])
n = int(counter.read_text()) + 1 if counter.exists() else 1
counter.write_text(str(n))
if n == 2:
    os.execv(sys.executable, [sys.executable, "-m", "diplomat.bots.holdbot", *sys.argv[2:]])
print(f"start {n}: waiting for a licence server", flush=True)
time.sleep(600)
"""


def test_a_game_that_lost_a_player_before_its_start_is_replayed_and_left_out_of_scores(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script, counter = tmp_path / "flaky.py", tmp_path / "starts"
    script.write_text(FLAKY_BOT)
    db, folder, js = tmp_path / "db.sqlite", tmp_path / "run", tmp_path / "r.json"
    # Game 0: absent on the first start, played again, complete. Game 1: absent on both of
    # its starts (one replay allowed): played out without it, incomplete. Each absent start
    # costs the join timeout; its one start that plays joins in well under a second.
    flaky = f"flaky={PY} {script} {counter} --host {{host}} --port {{port}}"
    args = ["tournament", "holdbot:6", flaky, "--games", "2",
            "--parallel", "1", "--max-year", "1901", "--mtl", "5", "--rtl", "5", "--btl", "5",
            "--join-timeout", "5", "--replays", "1", "--db", str(db), "--dir", str(folder),
            "--json", str(js), "--quiet"]  # fmt: skip
    assert main(args) == 0
    assert counter.read_text() == "4"
    out = " ".join(capsys.readouterr().out.split())  # (the table's console wraps at 80)
    assert (
        "incomplete (a player lost before the start): 1 of 2 games, left out of the scores; "
        "2 played again this run" in out
    )
    data = json.loads(js.read_text())
    assert data["settings"]["join_timeout"] == 5 and data["settings"]["replays"] == 1
    assert data["settings"]["keep_incomplete"] is False and data["incomplete"] == 1
    complete, incomplete = sorted(data["games"], key=lambda g: g["incomplete"])
    assert not complete["incomplete"] and incomplete["incomplete"]
    (absent,) = [p for p in incomplete["players"] if p["label"] == "flaky"]
    assert absent["status"] == "absent" and absent["stopped"] == "joining"
    assert incomplete["absent"] == [absent["power"]] and not incomplete["hung"]
    assert "never joined within 5 s of its start" in absent["detail"]
    assert "start 4: waiting for a licence server" in absent["detail"]  # its last output
    (played,) = [p for p in complete["players"] if p["label"] == "flaky"]
    assert played["status"] == "played"
    # The scores come from the complete game alone: one game of seven seats.
    bots = {b["label"]: b for b in data["bots"]}
    assert bots["holdbot"]["games"] == 6 and bots["flaky"]["games"] == 1
    assert bots["flaky"]["absent"] == 0
    # --keep-incomplete counts it (the stored results, nothing played again).
    assert main([*args, "--keep-incomplete"]) == 0
    data = json.loads(js.read_text())
    bots = {b["label"]: b for b in data["bots"]}
    assert bots["holdbot"]["games"] == 12 and bots["flaky"]["games"] == 2
    assert bots["flaky"]["absent"] == 1
    out = " ".join(capsys.readouterr().out.split())
    assert "1 of 2 games, kept in the scores (--keep-incomplete)" in out


def test_seats_with_arguments_and_commands_that_do_not_parse(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The documented form (docs/tournaments.md): a bundled bot followed by its arguments,
    # labelled or not.
    seats = parse_lineup(["talk=bordeaux --negotiate --think 0.25:2", "bordeaux --think 0.25:5"])
    assert [s.label for s in seats] == ["talk"] * 2 + ["bordeaux --think 0.25"] * 5
    assert all(s.bundled and s.command == "bordeaux" for s in seats)
    assert seats[0].args == ("--negotiate", "--think", "0.25")
    assert seats[2].args == ("--think", "0.25")
    # A label is one word: an '=' inside a bundled bot's arguments is an argument.
    (seat,) = parse_lineup(["bordeaux --think=0.25"], count=1)
    assert seat.label == "bordeaux --think=0.25" and seat.args == ("--think=0.25",)
    for bad in ["slow=bash -c 'sleep 1:2", "bordeaux --name 'x:6", 'x="prog --port {port}']:
        with pytest.raises(LineupError, match="does not parse"):
            parse_lineup([bad, "holdbot:6"])
    db = tmp_path / "db.sqlite"
    code = main(["tournament", "holdbot:5", "slow=bash -c 'sleep 1:2", "--db", str(db)])
    assert code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert "slow=bash -c 'sleep 1:2" in err and "No closing quotation" in err
