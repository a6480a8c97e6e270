"""Tournaments of real subprocess bots over pipes and TCP, scored and stored."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest
import trio

from cli.main import main
from server.settings import GameSettings
from server.store import Store
from tournament.runner import LineupError, Tournament, parse_lineup, power_of_seat
from tournament.scoring import GameResult, SeatResult, c_diplo, daide_pot, draw_size, sum_of_squares

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
    tcp = f"tcpbot={PY} -m bots.randombot --host {{host}} --port {{port}} --seed {{seed}}"
    seats = parse_lineup(["holdbot:3", "randombot:3", tcp])
    settings = GameSettings(max_year=1902, move_time=20, retreat_time=10, build_time=10)
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
    seats = parse_lineup(["holdbot:5", crash, hang])
    settings = GameSettings(max_year=1901, move_time=5, retreat_time=5, build_time=5)
    # The holdbots are forked by the bot host and join in milliseconds; the hanger never
    # joins, so the game waits the whole join timeout for it (generous, for loaded machines).
    t = Tournament(store, seats, settings, games=1, parallel=1, join_timeout=10, exit_grace=1)
    with trio.fail_after(180):
        await t.run()
    (game,) = t.results()
    # Neither ever joined: the game started without them, their powers in civil disorder.
    assert [s.label for s in game.seats if s.crashed] == ["crasher"]
    assert [(s.label, s.stopped) for s in game.seats if s.hung] == [("hanger", "joining")]
    assert len([s for s in game.seats if not s.crashed and not s.hung]) == 5
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
    assert "randombot" in capsys.readouterr().out
    assert main(["tournament", "randombot:6", "--db", str(db)]) == 2
    assert main(["tournament", "randombot:7", "--games", "0", "--db", str(db)]) == 2
