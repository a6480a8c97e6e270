"""Two people in one game, in two browser contexts (two devices, as far as the page can
tell): the first creates it on the lobby's form with a person's seat for Germany, copies
Germany's link from the waiting view, the second opens it; both order by clicking, say Ready,
and see the phase's results. Then ``serve --play FRA --play GER`` prints a link per person,
and each works."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from .conftest import start_server, stop_server
from .test_browser import Watch, _click_loc, _phase, _wait_view


def _context(browser: Any) -> tuple[Any, Any, Watch]:
    # The page forbids eval (CSP); Playwright's waits need it.
    context = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True)
    page = context.new_page()
    return context, page, Watch(page)


def _order_by_clicking(page: Any, unit: str, dest: str, text: str) -> None:
    _click_loc(page, unit)
    _wait_view(page, f"document.querySelector('#prompt').textContent.includes('{unit}')")
    _click_loc(page, dest)
    _wait_view(
        page,
        "[...document.querySelectorAll('#orders li')]"
        f".some(li => li.textContent.includes('{text}'))",
    )


def _create_with_a_friend(page: Any) -> str:
    """The lobby's form: France for me, Germany a person's seat, the rest holdbots; returns
    Germany's link, read from the creator's waiting view."""
    page.wait_for_selector("#f-power option[value=FRA]", state="attached")
    page.select_option("#f-power", "FRA")
    page.check("#f-with-people")
    assert page.is_hidden("#f-opponents")
    assert page.eval_on_selector("#f-seats select[data-power=FRA]", "s => s.disabled")
    for power in ("AUS", "ENG", "ITA", "RUS", "TUR"):
        page.select_option(f"#f-seats select[data-power={power}]", "holdbot")
    page.select_option("#f-seats select[data-power=GER]", "person")
    page.fill("input[name=move_time]", "900")  # deadlines far off: Ready moves the game on
    page.click("#create-button")
    page.wait_for_url("**/game/*")
    page.wait_for_selector("#people li[data-power=GER] input.seat-link")
    assert "not yet" in page.inner_text("#people li[data-power=GER]")
    page.click("#people li[data-power=GER] button")  # copy (the page says so)
    page.wait_for_selector("#people li[data-power=GER] button:text('Copied')")
    link = page.input_value("#people li[data-power=GER] input.seat-link")
    assert re.search(r"/game/\d+\?t=[\w-]{24,}$", link), link
    return str(link)


def test_two_people_in_two_browsers(browser: Any, tmp_path: Path) -> None:
    server = start_server(tmp_path / "people.sqlite")
    contexts = []
    try:
        a_ctx, france, a_watch = _context(browser)
        b_ctx, germany, b_watch = _context(browser)
        contexts = [a_ctx, b_ctx]
        france.goto(server.url)
        link = _create_with_a_friend(france)
        germany.goto(link)
        for page, name in ((france, "France"), (germany, "Germany")):
            _wait_view(page, "document.body.dataset.stage === 'playing'")
            assert page.inner_text("#title").endswith(f"you are {name}")
        _order_by_clicking(france, "PAR", "BUR", "A PAR - BUR")
        _order_by_clicking(germany, "MUN", "RUH", "A MUN - RUH")
        assert "PAR - BUR" not in germany.inner_text("#orders")
        for page in (france, germany):
            page.click("#ready")
        for page in (france, germany):
            _wait_view(page, "document.querySelector('#map svg').dataset.phase !== 'S1901M'")
            _wait_view(page, "document.querySelector('#results').textContent.includes('PAR - BUR')")
            assert "MUN - RUH" in page.inner_text("#results")
        assert _phase(germany) == _phase(france)
        assert not a_watch.errors and not b_watch.errors, (a_watch.errors, b_watch.errors)
    finally:
        for context in contexts:
            context.close()
        stop_server(server)


def test_play_given_twice_prints_a_link_each(browser: Any, tmp_path: Path) -> None:
    server = start_server(
        tmp_path / "play.sqlite", "--play", "FRA", "--play", "GER", "--against", "holdbot:5"
    )
    contexts = []
    try:
        links = {}
        for line in server.lines:
            if found := re.search(r"your game \((\w+)\): (\S+)", line):
                links[found.group(1)] = found.group(2)
        assert set(links) == {"FRA", "GER"} and links["FRA"] != links["GER"]
        pages = {}
        for power in ("FRA", "GER"):  # (the game waits for both)
            context, pages[power], _ = _context(browser)
            contexts.append(context)
            pages[power].goto(links[power])
        for power, unit in (("FRA", "PAR"), ("GER", "BER")):
            page = pages[power]
            _wait_view(page, "document.body.dataset.stage === 'playing'")
            _click_loc(page, unit)
            _wait_view(page, f"document.querySelector('#prompt').textContent.includes('{unit}')")
    finally:
        for context in contexts:
            context.close()
        stop_server(server)
