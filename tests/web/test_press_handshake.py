"""People read people's words: the negotiating bots' handshake (their opening ``TRY`` to every
power, ``HUH``) reaches the page flagged as protocol, so the page hides it unless asked, while
every other message is an English sentence; ``diplomat show --press`` leaves it out of the same
game's transcript and ``--daide`` shows it, as sentences. A real server on loopback, six real
negotiating DumbBots as subprocesses, the page's WebSocket."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import trio

from diplomat.web.hub import WebHub
from tests.web.test_web_protocol import _press, open_page, web  # noqa: F401 (the fixture)

ROOT = Path(__file__).resolve().parents[2]


def _messages(view: dict[str, object]) -> list[dict[str, object]]:
    convs = _press(view)["conversations"]
    return [msg for c in convs for msg in c["messages"]]


def _show(db: Path, game: int, *extra: str) -> str:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "diplomat.cli.main",
            "show",
            str(game),
            "--db",
            str(db),
            "--press",
            *extra,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


async def test_the_handshake_is_flagged_on_the_page_and_left_out_of_the_transcript(
    web: WebHub,  # noqa: F811 (the fixture imported above)
    tmp_path: Path,
) -> None:
    seat = web.create_game({"power": "FRA", "level": 10, "opponents": ["dumbbot --negotiate"] * 6})
    page, cm = await open_page(web, seat.game_id, seat.token)
    try:
        # Every negotiator opens with a TRY to every other power, us included.
        view = await page.until(
            lambda v: (
                bool(v.get("press"))
                and sum(str(x["daide"]).startswith("TRY") for x in _messages(v)) >= 6
            )
        )
    finally:
        await cm.__aexit__(None, None, None)
    messages = _messages(view)
    tries = [x for x in messages if str(x["daide"]).startswith("TRY")]
    assert {x["from"] for x in tries} == {"AUS", "ENG", "GER", "ITA", "RUS", "TUR"}
    for x in messages:
        handshake = str(x["daide"]).startswith(("TRY", "HUH"))
        assert x["protocol"] is handshake, x
        assert str(x["text"])[:1].isupper() and "(in DAIDE)" not in str(x["text"]), x
    assert all(str(x["text"]).startswith("I can discuss only proposals, peace") for x in tries)
    # They all went to several powers: that tab is where they would have piled up.
    group = next(c for c in _press(view)["conversations"] if c["key"] == "group")
    assert {x["seq"] for x in group["messages"]} >= {x["seq"] for x in tries}

    # The transcript of the same game: no handshake unless asked for with --daide.
    db = tmp_path / "web.sqlite"
    out = await trio.to_thread.run_sync(_show, db, seat.game_id)
    assert "TRY (" not in out and "I can discuss" not in out
    assert "protocol messages between bots left out" in out
    daide = await trio.to_thread.run_sync(_show, db, seat.game_id, "--daide")
    assert re.search(r"^  Austria to [A-Za-z, ]+: I can discuss only proposals, peace", daide, re.M)
    assert "    FRM ( AUS ) ( " in daide and " ( TRY ( PRP PCE " in daide
