"""Tournaments on variant maps: line-ups of one seat per power of the map, rotation and pools
over that many powers, scores for that many powers."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
import trio

from diplomat.cli.main import main
from diplomat.engine.map import load_map
from diplomat.server.settings import GameSettings
from diplomat.server.store import Store
from diplomat.tournament.runner import LineupError, Tournament, parse_lineup
from tests.tournament.test_tournament import PY


def test_cli_tournament_on_a_three_power_variant(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db, js = tmp_path / "db.sqlite", tmp_path / "r.json"
    code = main(["tournament", "dumbbot", "randombot:2", "--map", "hundred3", "--games", "3",
                 "--max-year", "1428", "--db", str(db), "--json", str(js), "--quiet"])  # fmt: skip
    assert code == 0
    data = json.loads(js.read_text())
    assert len(data["games"]) == 3
    hundred = load_map("hundred3")
    played: Counter[tuple[int, str]] = Counter()
    for game in data["games"]:
        assert len(game["seats"]) == 3
        assert set(game["centres"]) == set(hundred.powers)
        assert sum(game["centres"].values()) <= len(hundred.supply_centres)
        for player in game["players"]:
            played[(player["seat"], player["power"])] += 1
    # Three games of a three-seat line-up: every seat played every power once.
    assert len(played) == 9 and set(played.values()) == {1}
    assert {b["label"]: b["games"] for b in data["bots"]} == {"dumbbot": 3, "randombot": 6}
    capsys.readouterr()
    # The stored game reads back with the map's names.
    assert main(["show", str(data["games"][0]["id"]), "--db", str(db)]) == 0
    shown = capsys.readouterr().out
    assert "Spring 1425 Movement (S1425M)" in shown and "A DIJ" in shown
    # A line-up that does not fit the map is refused with the map's count.
    assert main(["tournament", "randombot:7", "--map", "hundred3", "--db", str(db)]) == 2
    assert "exactly 3 seats" in capsys.readouterr().err
    assert main(["tournament", "randombot:3", "--map", "nowhere", "--db", str(db)]) == 2
    assert "unknown map" in capsys.readouterr().err


def test_lineups_and_pools_count_the_maps_powers() -> None:
    assert len(parse_lineup(["holdbot:4"], powers=4)) == 4
    with pytest.raises(LineupError, match="exactly 4"):
        parse_lineup(["holdbot:7"], powers=4)
    with pytest.raises(LineupError, match="at least 17"):
        parse_lineup(["holdbot:10"], pool=True, powers=17)


async def test_a_pool_on_a_four_power_variant(tmp_path: Path) -> None:
    store = Store(tmp_path / "t.sqlite")
    # One seat a pipe bot speaking DAIDE text: it learns Sail Ho's names from the map.
    pipe = f"pipe={PY} -m diplomat.bots.randombot --stdio --seed {{seed}}"
    seats = parse_lineup(["holdbot:3", "randombot:2", pipe], pool=True, powers=4)
    settings = GameSettings(map="sailho", max_year=1902, move_time=20, retreat_time=10,
                            build_time=10)  # fmt: skip
    t = Tournament(store, seats, settings, games=3, parallel=2, seed=1, pool=True)
    with trio.fail_after(300):
        await t.run()
    results = t.results()
    assert len(results) == 3
    for g in results:
        assert sorted(s.power for s in g.seats) == sorted(load_map("sailho").powers)
        assert not [s for s in g.seats if s.crashed or s.hung]
    per_seat = Counter(s.seat for g in results for s in g.seats)
    assert sum(per_seat.values()) == 12 and max(per_seat.values()) - min(per_seat.values()) <= 1
    t.close()
    store.close()
