"""Every feature on every map (issue 29): on each bundled map, a short press game at level 30
between negotiating bots (a Bordeaux and a DumbBot that talk, DumbBots in the other seats),
played by ``diplomat tournament`` on its real server with real bot processes; the bots must
propose and answer, nobody may crash or hang, no bot may log an error (a ``RenderError`` on a
variant's power was how it failed), and ``diplomat show --press`` must read as English with the
map's own names.

The games are one game year (Chaos, which opens with builds, plays into its first movement
year) with small search budgets and short talk windows: the matrix is there to show that
press works on every map, not to measure the bots.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from diplomat.bots.corekit import NEAR_SOLO
from diplomat.cli.main import main
from diplomat.engine.map import GameMap, bundled_maps, load_map
from diplomat.server.store import Store
from tests.transcripts import english_lines

# The two negotiators: --pact proposes an alliance to every power in the first movement
# phase, so each game has proposals to answer; --talk 1 keeps each talk window to a second.
NEGOTIATORS = [
    "bx=bordeaux --negotiate --pact --talk 1 --nodes 60",
    "dx=dumbbot --negotiate --pact --talk 1",
]
REPLIES = ("YES", "REJ", "BWX", "HUH")


def last_year(gmap: GameMap) -> int:
    """One year of play: the first, or the first with movement for a map that opens with
    builds."""
    return gmap.start_year + (0 if gmap.start_season == "SPR" else 1)


def all_near_solo(gmap: GameMap) -> bool:
    """Does every power start so near a solo that a negotiator allies with nobody?"""
    need = len(gmap.supply_centres) // 2 + 1
    return all(len(cs) >= need - NEAR_SOLO for cs in gmap.start_centres.values())


def lineup(gmap: GameMap) -> list[str]:
    rest = len(gmap.powers) - len(NEGOTIATORS)
    return [*NEGOTIATORS, *([f"dumbbot:{rest}"] if rest else [])]


@pytest.mark.parametrize("name", bundled_maps())
def test_a_press_game_on_every_map(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gmap = load_map(name)
    db, js, logs = tmp_path / "t.sqlite", tmp_path / "t.json", tmp_path / "logs"
    argv = [*lineup(gmap), "--map", name, "--level", "30", "--games", "1",
            "--max-year", str(last_year(gmap)), "--db", str(db), "--json", str(js),
            "--dir", str(logs), "--quiet"]  # fmt: skip
    assert main(["tournament", *argv]) == 0, capsys.readouterr()
    capsys.readouterr()
    (game,) = json.loads(js.read_text())["games"]
    assert game["crashed"] == [] and game["hung"] == [], game
    assert {p["status"] for p in game["players"]} == {"played"}, game["players"]
    # What a bot logs beyond its normal chatter (the tournament keeps non-empty logs only).
    for log in logs.rglob("*.log") if logs.exists() else ():
        text = log.read_text(errors="replace")
        for bad in ("RenderError", "Traceback", "not a token of this game", "ERROR"):
            assert bad not in text, f"{log.name}: {text[-3000:]}"

    # The negotiators proposed and the other negotiator answered.
    talkers = {p: label for p, label in game["seats"].items() if label in ("bx", "dx")}
    store = Store(db)
    try:
        press = store.press(game["id"])
    finally:
        store.close()
    # Each negotiator's opening TRY reached the other: press flows both ways.
    for a, b in (tuple(talkers), tuple(talkers)[::-1]):
        assert any(p.sender == a and b in p.recipients for p in press), (a, b, press)
    if all_near_solo(gmap):
        return  # nobody to ally with: every power is a centre or two from a solo (Micro)
    proposals = [p for p in press if p.sender in talkers and p.body.startswith("PRP")]
    answered = [
        p
        for p in proposals
        if any(
            q.sender in p.recipients
            and q.sender in talkers
            and q.body.startswith(REPLIES)
            and f"( {p.body} )" in q.body
            for q in press
        )
    ]
    assert answered, [(p.sender, p.recipients, p.body) for p in press]

    # The transcript reads as English, with the map's names for the powers.
    assert main(["show", str(game["id"]), "--press", "--db", str(db)]) == 0
    lines = english_lines(capsys.readouterr().out, gmap)
    # One sentence per message, the machine handshake (TRY, HUH) aside: show leaves it out.
    assert len(lines) == sum(not p.body.startswith(("TRY", "HUH")) for p in press)
    assert any(" I propose " in line for line in lines)
