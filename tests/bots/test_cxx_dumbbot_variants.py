"""The classic C++ DumbBot, a real DAIDE client, plays variants unchanged: it gets the RM of
the variant's tokens, asks for the MDF, and plays whole games on maps of 3, 4 and 17 powers.

Skipped unless ``DIPLOMAT_CXX_DUMBBOT`` names the binary (build it from the public
``diplomacy/daide-client`` repository; the project ships neither its code nor a binary)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import trio

from diplomat.engine.map import load_map
from diplomat.server.settings import GameSettings
from diplomat.server.store import Store
from diplomat.tournament.runner import Tournament, parse_lineup

BINARY = os.environ.get("DIPLOMAT_CXX_DUMBBOT", "")

pytestmark = pytest.mark.skipif(
    not (BINARY and Path(BINARY).is_file()),
    reason="set DIPLOMAT_CXX_DUMBBOT to the C++ DumbBot binary to run",
)


@pytest.mark.parametrize(("name", "years"), [("hundred3", 10), ("sailho", 10), ("world3", 4)])
async def test_cxx_dumbbot_plays_a_whole_variant_game(
    tmp_path: Path, name: str, years: int
) -> None:
    gmap = load_map(name)
    n = len(gmap.powers)
    cxx = (n + 1) // 2
    words = [f"cxx={BINARY} -i{{host}} -p{{port}}:{cxx}", f"dumbbot:{n - cxx}"]
    settings = GameSettings(
        map=name, max_year=gmap.start_year + years - 1, move_time=30, retreat_time=15,
        build_time=15,
    )  # fmt: skip
    store = Store(tmp_path / "t.sqlite")
    t = Tournament(store, parse_lineup(words, powers=n), settings, games=1, parallel=1,
                   folder=tmp_path / "logs")  # fmt: skip
    with trio.fail_after(600):
        await t.run()
    (game,) = t.results()
    (row,) = store.games(tournament=t.key)
    assert row.status == "finished" and row.result is not None
    if row.result["kind"] != "solo":  # otherwise a solo ended it early
        assert row.result["year"] == gmap.start_year + years - 1
    cxx_seats = [s for s in game.seats if s.label == "cxx"]
    assert len(cxx_seats) == cxx
    assert not [s for s in cxx_seats if s.crashed or s.hung], cxx_seats
    # The C++ bot ordered its units (it did not just sit in civil disorder): its powers
    # changed position from the start.
    first = store.states(row.id)[0][1]
    last = store.states(row.id)[-1][1]
    moved = [
        s.power for s in cxx_seats if first["units"].get(s.power) != last["units"].get(s.power)
    ]
    assert moved
    t.close()
    store.close()
