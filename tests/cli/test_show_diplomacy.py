"""``diplomat show GAME --format diplomacy``: a game played on the server by bundled bots (with
press), written as the ``diplomacy`` package saves games, loads in the package's own loader
with our final position, and ``diplomat replay`` re-adjudicates it with no difference."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from diplomacy.utils.export import from_saved_game_format

from diplomat.cli.main import main
from diplomat.engine.map import load_map
from diplomat.engine.state import GameState
from diplomat.replay.package_notation import state_dict
from diplomat.server.store import Store
from tests.cli.test_commands import run


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One finished press game of bundled bots (subprocesses) on the tournament's server."""
    db = tmp_path_factory.mktemp("show") / "t.sqlite"
    code = main(
        [
            "tournament",
            "dumbbot --negotiate:3",
            "randombot:2",
            "holdbot:2",
            "--games",
            "1",
            "--max-year",
            "1902",
            "--level",
            "30",
            "--db",
            str(db),
            "--quiet",
        ]
    )
    assert code == 0
    return db


def _export(capsys: pytest.CaptureFixture[str], db: Path) -> dict[str, Any]:
    code, out, err = run(capsys, "show", "1", "--db", str(db), "--format", "diplomacy")
    assert (code, err) == (0, "")
    data: dict[str, Any] = json.loads(out)
    return data


def test_the_package_loads_the_export_with_our_final_position(
    capsys: pytest.CaptureFixture[str], played: Path
) -> None:
    data = _export(capsys, played)
    store = Store(played)
    try:
        states = store.states(1)
        assert store.game(1).result is not None
    finally:
        store.close()
    ours = GameState.from_json(states[-1][1], load_map("standard"))
    assert [p["name"] for p in data["phases"]] == [p for p, _ in states[:-1]] + ["COMPLETED"]
    game = from_saved_game_format(data)
    assert game.get_current_phase() == "COMPLETED"
    theirs = game.get_state()
    expected = state_dict(ours)
    assert {p: sorted(u) for p, u in theirs["units"].items()} == {
        p: sorted(u) for p, u in expected["units"].items()
    }
    assert {p: sorted(c) for p, c in theirs["centers"].items()} == {
        p: sorted(c) for p, c in expected["centers"].items()
    }
    # Every phase's orders are in the package's notation: its own game reads them back.
    first = data["phases"][0]
    assert first["orders"]["FRANCE"] and all(
        o.startswith(("A ", "F ")) for o in first["orders"]["FRANCE"]
    )
    assert game.get_phase_history()[0].orders == first["orders"]


def test_press_is_english_with_the_daide_beside_it(
    capsys: pytest.CaptureFixture[str], played: Path
) -> None:
    data = _export(capsys, played)
    messages = [msg for p in data["phases"] for msg in p["messages"]]
    assert messages, "the negotiating bots sent no press"
    proposals = [msg for msg in messages if "[DAIDE: PRP (" in msg["message"]]
    assert proposals and proposals[0]["message"].startswith("I propose ")
    assert all(msg["sender"] != msg["recipient"] for msg in messages)
    times = [msg["time_sent"] for msg in messages]
    assert len(set(times)) == len(times)  # the package keys messages by time_sent
    game = from_saved_game_format(data)
    loaded = [msg for phase in game.get_phase_history() for msg in phase.messages.values()]
    assert len(loaded) == len(messages)


def test_replay_reads_the_export_with_no_difference(
    capsys: pytest.CaptureFixture[str], played: Path, tmp_path: Path
) -> None:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(_export(capsys, played)))
    code, out, _ = run(capsys, "replay", str(path))
    assert code == 0
    found = re.search(r"^(\d+) phases agree, 0 differ", out, re.M)
    assert found is not None and int(found.group(1)) > 0, out


def test_a_missing_game_is_an_error(capsys: pytest.CaptureFixture[str], played: Path) -> None:
    code, out, err = run(capsys, "show", "9", "--db", str(played), "--format", "diplomacy")
    assert code != 0 and out == ""
    assert "no game 9" in err
