"""Draws and free text in Chromium: a level-8000 game made by ``serve --play``, six talkers
(``tests.web.talker``, real DAIDE clients over TCP) in its open seats voting for a draw, and a
person who writes free text to two of them, reads that a program does not read it, with the
phase and time of each message and the unread counts kept over a reload, and ends the game by
voting for the draw."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from .conftest import ROOT, start_server, stop_server, your_game
from .test_browser import Watch, _shot, _wait_view
from .test_open_seats import _open_port


def _talkers(port: int) -> list[subprocess.Popen[str]]:
    argv = [sys.executable, "-m", "tests.web.talker", "--port", str(port), "--draw-from", "1901"]
    return [
        subprocess.Popen(argv, cwd=ROOT, stderr=subprocess.DEVNULL, text=True) for _ in range(6)
    ]


def test_free_text_and_a_draw_vote_in_the_browser(
    browser: Any, tmp_path: Path, artifacts: Path
) -> None:
    args = ["--play", "FRA", "--level", "8000", "--against", "open:6"]
    server = start_server(tmp_path / "talk.sqlite", *args, "--mtl", "900", "--rtl", "900")
    procs: list[subprocess.Popen[str]] = []
    try:
        game, token = your_game(server, "FRA")
        context = browser.new_context(viewport={"width": 1280, "height": 1000}, bypass_csp=True)
        page = context.new_page()
        watch = Watch(page)
        page.goto(f"{server.url}game/{game}?t={token}")
        procs = _talkers(_open_port(server, game))
        _wait_view(page, "document.body.dataset.stage === 'playing'")
        _wait_view(page, "!document.querySelector('#talk-text').hidden")
        assert not page.is_hidden("#draw")
        assert "Votes are secret" in page.inner_text("#draw")
        # Free text to Germany and Italy at once.
        for power in ("GER", "ITA"):
            page.click(f"#press-to button[data-power={power}]")
            _wait_view(
                page,
                f"document.querySelector('#press-to button[data-power={power}]')"
                ".getAttribute('aria-pressed') === 'true'",
            )
        assert "Germany, Italy" in page.inner_text("#talk-to")
        page.fill("#talk-input", "Shall we leave Burgundy empty?")
        page.click("#talk-send")
        # Sent to two: in the conversation of several powers, with its phase and time.
        page.click("#conv-tabs button[data-key=group]")
        _wait_view(page, "[...document.querySelectorAll('#conv li.mine')].length > 0")
        mine = page.inner_text("#conv li.mine")
        assert "France → Germany and Italy: “Shall we leave Burgundy empty?”" in mine, mine
        assert "S1901M · " in page.inner_text("#conv li.mine .when")
        _wait_view(page, "document.querySelector('#talk-input').value === ''")
        # Each talker answers HUH: in its own conversation, in words.
        page.click("#conv-tabs button[data-key=GER]")
        _wait_view(page, "document.querySelector('#conv li.program') !== null")
        assert "Germany (a program) does not read free text" in page.inner_text("#conv li.program")
        # Unread counts are kept per conversation on this device: Italy's answer is still
        # unread after a reload, Germany's (opened) is not.
        _wait_view(page, "document.querySelector('#conv-tabs button[data-key=ITA].unread')")
        page.reload()
        _wait_view(page, "document.body.dataset.stage === 'playing'")
        _wait_view(page, "document.querySelector('#conv-tabs button[data-key=ITA].unread')")
        assert page.inner_text("#conv-tabs button[data-key=ITA]") == "Italy (1)"
        assert page.get_attribute("#conv-tabs button[data-key=GER]", "class") == ""
        # The draw: the talkers have voted for it; the person's vote ends the game.
        page.click("#draw-acts button[data-act=vote]")
        _wait_view(page, "document.body.dataset.stage === 'finished'")
        assert "draw" in page.inner_text("#end-text").lower()
        assert page.is_hidden("#draw")
        _shot(page, artifacts / "web-talk.png")
        assert not watch.errors, watch.errors
        context.close()
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
            p.wait()
        stop_server(server)
