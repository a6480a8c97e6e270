"""The server's games and a spectator in Chromium, and knowing when it is your turn: a person
lists a game from the lobby's form, a second browser finds it on /games (map, press,
deadlines, phase, who is ready, the time left counting down) and watches it; with the page in
the background, a processed phase marks the title and the favicon."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from .conftest import start_server, stop_server, your_game
from .test_browser import WAIT_MS, Watch, _shot, _wait_view

HIDE = """() => {
    for (const [k, v] of [["hidden", true], ["visibilityState", "hidden"]]) {
        Object.defineProperty(document, k, { value: v, configurable: true });
    }
    document.dispatchEvent(new Event("visibilitychange"));
}"""
SHOW = """() => {
    delete document.hidden;
    delete document.visibilityState;
    document.dispatchEvent(new Event("visibilitychange"));
}"""
ICON = "document.querySelector('link[rel=icon]').getAttribute('href')"


def _context(browser: Any) -> Any:
    # The page forbids eval (CSP); Playwright's waits need it.
    return browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True)


def _create_listed(page: Any) -> None:
    """The lobby's form: France against six HoldBots, listed on the games page."""
    page.wait_for_selector("#f-power option[value=FRA]", state="attached")
    page.select_option("#f-power", "FRA")
    for sel in page.query_selector_all("#f-opponents select"):
        sel.select_option("holdbot")
    page.fill("input[name=move_time]", "900")
    page.fill("input[name=max_year]", "1902")
    assert not page.is_checked("#f-listed")  # not listed unless asked (or --public)
    page.check("#f-listed")
    page.click("#create-button")
    page.wait_for_url("**/game/*")
    _wait_view(page, "document.body.dataset.stage === 'playing'")


def test_the_games_list_and_a_spectator(browser: Any, tmp_path: Path, artifacts: Path) -> None:
    server = start_server(tmp_path / "list.sqlite")
    try:
        player_ctx, viewer_ctx = _context(browser), _context(browser)
        player = player_ctx.new_page()
        viewer = viewer_ctx.new_page()
        watches = [Watch(player), Watch(viewer)]
        player.goto(server.url)
        assert player.get_attribute("#games-link", "href") == "/games"
        _create_listed(player)
        game = int(player.url.split("/game/")[1].split("?")[0])
        # The list: the game with its map, press, deadlines, phase, who is ready.
        viewer.goto(server.url + "games")
        row = f"#games-list tr[data-game='{game}']"
        viewer.wait_for_selector(row, timeout=WAIT_MS)
        cells = viewer.eval_on_selector_all(f"{row} td", "ts => ts.map(t => t.textContent)")
        assert cells[1:6] == [
            "standard",
            "gunboat (no press)",
            "moves 15:00, retreats 2:00, builds 2:00",
            "in progress",
            "Spring 1901 Movement",
        ]
        _wait_view(
            viewer, f"document.querySelector(\"{row} td.who\").textContent === '6 of 7 ready'"
        )
        clock = viewer.inner_text(f"{row} td.countdown")
        assert re.fullmatch(r"1[45]:\d\d", clock), clock
        _wait_view(
            viewer, f"document.querySelector(\"{row} td.countdown\").textContent !== '{clock}'"
        )
        _shot(viewer, artifacts / "web-games-list.png")
        # Watching: the map, the clock, no order, no Ready.
        viewer.click(f"{row} a.watch")
        viewer.wait_for_url(f"**/watch/{game}")
        _wait_view(viewer, "document.querySelector('#map svg')?.dataset.phase === 'S1901M'")
        assert viewer.inner_text("#title").endswith("watching")
        assert viewer.is_hidden("#ready") and viewer.is_hidden("#ordering")
        assert viewer.is_hidden("#press")
        _wait_view(viewer, "!document.querySelector('#clock').hidden")
        # The person moves the game on: the spectator sees the results as they come.
        player.click("#ready")
        _wait_view(viewer, "document.querySelector('#map svg')?.dataset.phase === 'F1901M'")
        _wait_view(viewer, "!document.querySelector('#results').hidden")
        lines = viewer.inner_text("#results-groups")
        assert "A PAR H" in lines and viewer.inner_text("#results-title") == "Latest results"
        # And the history, phase by phase.
        viewer.click("#steps [data-step=prev]")
        _wait_view(viewer, "document.querySelector('#map svg')?.dataset.history === 'S1901M'")
        assert "A PAR H" in viewer.inner_text("#history-lines")
        _shot(viewer, artifacts / "web-spectator.png")
        # A gunboat game: the spectator's page names no player before the end.
        assert "HoldBot" not in viewer.content() and "Human" not in viewer.content()
        for w in watches:
            assert not w.errors, w.errors
            assert not w.foreign, w.foreign
        player_ctx.close()
        viewer_ctx.close()
    finally:
        stop_server(server)


def test_the_title_and_favicon_mark_a_phase_processed_in_the_background(
    browser: Any, tmp_path: Path
) -> None:
    server = start_server(
        tmp_path / "hidden.sqlite", "--public", "--play", "FRA", "--against", "holdbot:6"
    )
    try:
        game, token = your_game(server, "FRA")
        player_ctx = _context(browser)
        # The spectator's browser allows notifications: the page raises real ones.
        viewer_ctx = browser.new_context(
            viewport={"width": 1280, "height": 900}, bypass_csp=True, permissions=["notifications"]
        )
        player = player_ctx.new_page()
        viewer = viewer_ctx.new_page()
        watches = [Watch(player), Watch(viewer)]
        player.goto(f"{server.url}game/{game}?t={token}")
        viewer.goto(f"{server.url}watch/{game}")
        for page in (player, viewer):
            _wait_view(page, "document.querySelector('#map svg')?.dataset.phase === 'S1901M'")
            assert not page.title().startswith("●") and page.evaluate(ICON) == "/static/icon.svg"
        # The player's browser has not been asked about notifications: the page offers to.
        assert player.is_visible("#notify")
        assert viewer.evaluate("Notification.permission") == "granted"
        assert viewer.query_selector("#notify") is None
        # Both pages go to the background; the person's Ready (sent as it goes) ends the phase.
        viewer.evaluate(HIDE)
        player.evaluate(HIDE)
        player.evaluate("document.querySelector('#ready').click()")
        for page in (player, viewer):
            _wait_view(page, "document.title.startsWith('● 1 · ')")
            assert "Fall 1901 Movement" in page.title()
            assert page.evaluate(ICON) == "/static/icon-alert.svg"
        # Back in front: the mark goes.
        for page in (player, viewer):
            page.evaluate(SHOW)
            _wait_view(page, "!document.title.startsWith('●')")
            assert page.evaluate(ICON) == "/static/icon.svg"
        # A phase processed while the page is in front leaves the title alone.
        player.click("#ready")
        _wait_view(viewer, "document.querySelector('#map svg')?.dataset.phase !== 'F1901M'")
        assert not viewer.title().startswith("●")
        for w in watches:
            assert not w.errors, w.errors
        player_ctx.close()
        viewer_ctx.close()
    finally:
        stop_server(server)
