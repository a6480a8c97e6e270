"""A person plays a whole gunboat game in Chromium: creates it on the page against six bundled
bots, orders every unit by clicking, presses Ready, reloads, plays to the year limit, and steps
through the history. Screenshots go to test-artifacts/ (start, middle, end, a phone)."""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from .conftest import LiveServer, start_server, stop_server

LOCAL = {"127.0.0.1", "localhost"}


class Watch:
    """Console errors, page errors, and every request the page makes."""

    def __init__(self, page: Any) -> None:
        self.errors: list[str] = []
        self.foreign: list[str] = []
        page.on("console", self._console)
        page.on("pageerror", lambda exc: self.errors.append(f"page error: {exc}"))
        page.on("request", lambda req: self._url(req.url))
        page.on("websocket", lambda ws: self._url(ws.url))

    def _console(self, msg: Any) -> None:
        if msg.type == "error":
            self.errors.append(msg.text)

    def _url(self, url: str) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("data", "about", "blob") and parts.hostname not in LOCAL:
            self.foreign.append(url)


def _phase(page: Any) -> str:
    return page.eval_on_selector("#map svg", "s => s.dataset.phase") or ""


# Outer limits for waits on a busy machine: generous, since each wait ends at its event.
WAIT_MS = 90_000


def _wait_view(page: Any, js: str, timeout: float = WAIT_MS) -> None:
    page.wait_for_function(js, timeout=timeout)


def _click_loc(page: Any, prov: str) -> None:
    """A real mouse click inside a province: on its unit if it has one, else on its name
    (names let clicks through to the province beneath)."""
    for selector in (f"#map #dislodged-{prov}", f"#map #unit-{prov}", f"#map #label-{prov}"):
        if page.query_selector(selector) is not None:
            break
    # A new view may replace the drawing at any moment (between finding the element and
    # measuring it, too): wait until it is there and measurable.
    locator = page.locator(selector)
    # A click elsewhere (a button low in the panel) may have scrolled the map out of sight,
    # or under the header: bring it back, as a person scrolls up before clicking.
    locator.evaluate(
        "e => { const r = e.getBoundingClientRect();"
        " const top = document.querySelector('#top').getBoundingClientRect().bottom;"
        " if (r.top < top || r.bottom > innerHeight) e.scrollIntoView({block: 'center'}); }"
    )
    deadline = time.monotonic() + WAIT_MS / 1000
    box = None
    while box is None:
        assert time.monotonic() < deadline, f"{prov} never became clickable"
        locator.wait_for(state="visible", timeout=WAIT_MS)
        box = locator.bounding_box(timeout=WAIT_MS)
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def _shot(page: Any, path: Path) -> None:
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(path))


def _boxes_overlap(page: Any, a: str, b: str) -> bool:
    return bool(
        page.evaluate(
            """([a, b]) => {
                const r = document.querySelector(a).getBoundingClientRect();
                const s = document.querySelector(b).getBoundingClientRect();
                return r.left < s.right && s.left < r.right && r.top < s.bottom && s.top < r.bottom;
            }""",
            [a, b],
        )
    )


def _check_results_panel(page: Any) -> None:
    """Every results list shows all its lines (nothing cut off), each power's orders under
    its name once, and no line names its power twice ("AUS AUS waives a build")."""
    cut = page.eval_on_selector_all(
        "#results ul.results", "ls => ls.filter(l => l.scrollHeight > l.clientHeight + 1).length"
    )
    assert cut == 0
    lines = page.eval_on_selector_all(
        "#results ul.results li[data-power]",
        "ls => ls.map(l => [l.dataset.power, l.querySelector('b').textContent, l.textContent])",
    )
    seen: list[str] = []
    for power, shown, text in lines:
        assert shown in ("", power)
        if shown:
            seen.append(power)
        # The line's own words, after the power's name where the line shows it, never name
        # the power again.
        assert not text.strip().removeprefix(shown).strip().startswith(f"{power} "), text
    assert (
        len(seen) == len(set(seen))
        or page.eval_on_selector_all("#results .result-group", "gs => gs.length") > 1
    )


def _ready_and_wait(page: Any, phase: str) -> None:
    """Say Ready if the page offers it and it is not said yet, then wait until the game has
    moved on from ``phase`` (or finished)."""
    _say_ready(page, phase)
    _wait_view(
        page,
        "document.body.dataset.stage === 'finished' || "
        f"document.querySelector('#map svg').dataset.phase !== '{phase}'",
    )


def _say_ready(page: Any, phase: str) -> None:
    """Say Ready if the page still shows ``phase``, offers Ready and it is not said yet."""
    # Checked and clicked in one step of the page's script, so that no new phase can render
    # in between: a Ready meant for ``phase`` must not end the next one before it is ordered.
    page.evaluate(
        """(phase) => {
            const ready = document.querySelector('#ready');
            if (document.querySelector('#map svg').dataset.phase === phase && ready
                && ready.getClientRects().length && ready.dataset.ready === 'no') ready.click();
        }""",
        phase,
    )


def _order_count(page: Any) -> int:
    return int(page.eval_on_selector_all("#orders li.given", "els => els.length"))


def _order_phase(page: Any, plan: dict[str, str]) -> dict[str, int]:
    """Give every unit an order by clicking: the planned destination when it is offered,
    else the first choice the page highlights. Returns how many orders were clicked, by the
    phase the page showed when each was given. Stops when the game moves on (a bot's Ready
    or a deadline can end a phase while the page is being clicked)."""
    clicked: dict[str, int] = {}
    if page.is_hidden("#ordering"):
        return clicked
    for _ in range(12):
        # The phase and its orders list read at once: one render of the page shows both.
        phase, missing, highlighted = page.evaluate(
            "() => [document.querySelector('#map svg').dataset.phase,"
            " [...document.querySelectorAll('#orders li.missing')].map(e => e.dataset.loc),"
            " [...document.querySelectorAll('#map .outline.target')].map(e => e.dataset.prov)]"
        )
        moved_on = f"document.querySelector('#map svg').dataset.phase !== '{phase}'"
        kind = phase[-1:]
        before = _order_count(page)
        if kind == "A":
            if not highlighted:
                break
            _click_loc(page, highlighted[0])  # a build site or a unit to remove
            # Either the menu asks army or fleet, or the order is given at once.
            _wait_view(
                page,
                "document.querySelector(\"#menu button[data-id^='build:']\") !== null || "
                f"document.querySelectorAll('#orders li.given').length > {before} || {moved_on}",
            )
            if page.query_selector("#menu button[data-id^='build:']"):
                page.click("#menu button[data-id^='build:']")
        else:
            if not missing:
                break
            loc = missing[0]
            prov = loc.split("/")[0]
            _click_loc(page, prov)
            _wait_view(
                page,
                f"document.querySelector('#prompt').textContent.includes('{prov}') || {moved_on}",
            )
            if _phase(page) != phase:
                break
            targets = page.eval_on_selector_all(
                "#map .outline.target", "els => els.map(e => e.dataset.prov)"
            )
            want = plan.get(prov)
            dest = want if want in targets else (targets[0] if targets else None)
            if dest is None:
                page.click("#menu button[data-id='disband'], #menu button[data-id='hold']")
            else:
                _click_loc(page, dest)
                coast = page.query_selector("#map .coast-target.target")
                if coast is not None and "coast" in page.inner_text("#prompt"):
                    coast.click()
        _wait_view(
            page, f"document.querySelectorAll('#orders li.given').length > {before} || {moved_on}"
        )
        if _phase(page) != phase:
            break
        clicked[phase] = clicked.get(phase, 0) + 1
    return clicked


def test_play_a_game_in_the_browser(browser: Any, tmp_path: Path, artifacts: Path) -> None:
    server = start_server(tmp_path / "web.sqlite")
    try:
        _play(browser, server, artifacts)
    finally:
        stop_server(server)


def _play(browser: Any, server: LiveServer, artifacts: Path) -> None:
    # The page forbids eval (CSP); Playwright's waits need it.
    context = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True)
    page = context.new_page()
    watch = Watch(page)
    page.goto(server.url)
    _create_game(page, artifacts)
    _check_the_first_view(page, artifacts)
    _order_spring_1901(page)
    _reload_and_move_on(page, artifacts)
    _play_to_the_year_limit(page, artifacts)
    _check_the_end(page, artifacts)
    _step_through_the_history(page, artifacts)
    assert not watch.errors, watch.errors
    assert not watch.foreign, watch.foreign
    context.close()


def _create_game(page: Any, artifacts: Path) -> None:
    """The lobby: France against six bots, deadlines far off, two years; the game starts."""
    page.wait_for_selector("#f-power option[value=FRA]", state="attached")
    _shot(page, artifacts / "web-lobby.png")
    page.select_option("#f-power", "FRA")
    assert page.eval_on_selector_all("#f-opponents select", "s => s.length") == 6
    page.fill("input[name=move_time]", "900")  # deadlines far off: Ready moves the game on
    page.fill("input[name=retreat_time]", "900")
    page.fill("input[name=build_time]", "900")
    page.fill("input[name=max_year]", "1902")
    page.click("#create-button")
    page.wait_for_url("**/game/*")
    _wait_view(page, "document.body.dataset.stage === 'playing'")
    assert page.inner_text("#title").endswith("you are France")
    assert _phase(page) == "S1901M"
    assert page.inner_text("#phase") == "Spring 1901 Movement"


def _check_the_first_view(page: Any, artifacts: Path) -> None:
    """The key to the symbols, names over the orders, readable coast names, and no
    opponent named (gunboat)."""
    key = page.eval_on_selector_all("#key li", "ls => ls.map(l => l.textContent)")
    assert {"move", "support", "convoy", "hold", "failed", "dislodged", "build"} <= set(key)
    assert page.is_visible("#key")
    # Names are drawn over the orders (no arrow hides one); coast names are readable.
    assert page.evaluate(
        "document.querySelector('#map .orders').compareDocumentPosition("
        "document.querySelector('#map .labels')) & Node.DOCUMENT_POSITION_FOLLOWING"
    )
    # (Measured once the drawing is laid out: a busy browser may not have done it yet.)
    _wait_view(
        page,
        "[...document.querySelectorAll('#map .coast-label')]"
        ".every(l => l.getBoundingClientRect().height > 0)",
    )
    sizes = page.eval_on_selector_all(
        "#map .coast-label", "ls => ls.map(l => l.getBoundingClientRect().height)"
    )
    assert len(sizes) == 6 and min(sizes) >= 9
    # Gunboat: nothing on the page names who plays the other powers.
    text = page.inner_text("body").lower()
    assert "dumbbot" not in text and "randombot" not in text
    _shot(page, artifacts / "web-start.png")


def _order_spring_1901(page: Any) -> None:
    """Order each unit by clicking, with a support and the map drawing them, and one
    order typed."""
    _click_loc(page, "PAR")
    _wait_view(page, "document.querySelector('#map .unit.selected') !== null")
    menu = page.eval_on_selector_all("#menu button", "bs => bs.map(b => b.dataset.id)")
    assert {"hold", "move", "support", "cancel"} <= set(menu)
    _click_loc(page, "BUR")
    _wait_view(page, "document.querySelector('#map #pending-PAR') !== null")
    _click_loc(page, "MAR")
    # The menu is MAR's once the prompt names it (before that it may be the last one's).
    _wait_view(page, "document.querySelector('#prompt').textContent.includes('MAR')")
    page.click("#menu button[data-id=support]")
    _wait_view(page, "document.querySelector('#prompt').textContent.includes('click the unit')")
    _click_loc(page, "PAR")
    _wait_view(page, "document.querySelector('#prompt').textContent.includes('Support the')")
    _click_loc(page, "BUR")
    _wait_view(page, "document.querySelector('#map #pending-MAR.support') !== null")
    page.fill("#typed-text", "F BRE - MAO")
    page.press("#typed-text", "Enter")
    _wait_view(page, "document.querySelectorAll('#orders li.given').length === 3")
    given = page.eval_on_selector_all("#orders .order", "els => els.map(e => e.textContent)")
    assert sorted(given) == ["A MAR S A PAR - BUR", "A PAR - BUR", "F BRE - MAO"]


def _reload_and_move_on(page: Any, artifacts: Path) -> None:
    """Reload: the same power, the same orders; Ready moves the game on, and the results
    show in the panel and on the map."""
    page.reload()
    _wait_view(page, "document.body.dataset.stage === 'playing'")
    _wait_view(page, "document.querySelectorAll('#orders li.given').length === 3")
    assert page.inner_text("#title").endswith("you are France")
    assert page.is_visible("#clock")  # the deadline counts down
    _shot(page, artifacts / "web-orders.png")
    page.click("#ready")
    _wait_view(page, "document.querySelector('#map svg').dataset.phase === 'F1901M'")
    assert "Results of Spring 1901 Movement" in page.inner_text("#results")
    _check_results_panel(page)
    # Sea names are spelt out on hover.
    mao = page.get_attribute("#results li[title*='BRE - MAO'], #results li[title*='MAO:']", "title")
    assert mao is not None and "MAO: Mid-Atlantic Ocean" in mao
    if page.is_visible("#toast"):  # the notice never covers the panel's tables
        assert not _boxes_overlap(page, "#toast", "#powers")
        assert not _boxes_overlap(page, "#toast", "#results")
    page.click("#results-show")  # the results drawn: arrows, bounces
    _wait_view(page, "document.querySelector('#map svg').dataset.history === 'S1901M'")
    assert page.query_selector("#map #order-PAR.move.result-SUC, #map #order-PAR.move")
    page.click("#banner button")  # back to now
    _wait_view(page, "document.body.dataset.history === 'no'")
    assert page.is_visible("#map #unit-BUR")


def _play_to_the_year_limit(page: Any, artifacts: Path) -> None:
    """Every phase to the year limit: units ordered by clicking to a plan, builds, the
    results panel checked, Ready pressed."""
    plans = {"BUR": "BEL", "MAO": "POR", "SPA": "SPA", "BEL": "HOL"}
    phases = ["S1901M"]
    mid_shot = False
    clicked: Counter[str] = Counter()  # phase -> orders given by clicking there
    deadline = time.monotonic() + 900  # an outer limit for the whole game, never reached
    while page.evaluate("document.body.dataset.stage") != "finished":
        assert time.monotonic() < deadline, f"stuck in {_phase(page)}"
        phase = _phase(page)
        if phase not in phases:
            phases.append(phase)
        if phase.endswith("M"):
            # A phase's first view can come before the game's status has caught up with it,
            # without the ordering panel yet: wait for the panel (France orders in every
            # movement phase), or for the game to have moved on without France.
            _wait_view(
                page,
                "!document.querySelector('#ordering').hidden || "
                "document.body.dataset.stage === 'finished' || "
                f"document.querySelector('#map svg').dataset.phase !== '{phase}'",
            )
        clicked.update(_order_phase(page, plans))
        if phase[-1] == "A" and "builds are chosen" in page.inner_text("#prompt"):
            assert page.query_selector("#menu button[data-id=waive]") is None
            _shot(page, artifacts / "web-builds.png")
        if page.is_visible("#results"):
            _check_results_panel(page)
        if phase[-1] in "MR" and page.is_visible("#ordering"):
            # Every unit has its order, by clicking (once the page shows the last one), unless
            # a deadline moved the game on first.
            _wait_view(
                page,
                "document.querySelector('#orders li.missing') === null || "
                f"document.querySelector('#map svg').dataset.phase !== '{phase}'",
            )
        if phase.startswith("W1901") and not mid_shot:
            _shot(page, artifacts / "web-middle.png")
            mid_shot = True
        _ready_and_wait(page, phase)
    assert phases[0:2] == ["S1901M", "F1901M"] and any(p.startswith("W1901") for p in phases)
    assert "S1902M" in phases and "F1902M" in phases
    # Each later movement phase was ordered by clicking (how many units France has then, and
    # whether it builds, depend on how the bots played, so the count per phase is not fixed).
    assert all(clicked[p] >= 2 for p in ("F1901M", "S1902M", "F1902M")), clicked


def _check_the_end(page: Any, artifacts: Path) -> None:
    """The end: the summary names every player now."""
    page.wait_for_selector("#end table tr[data-power]")
    assert "year limit" in page.inner_text("#end-text")
    rows = page.eval_on_selector_all("#summary tr[data-power]", "rs => rs.map(r => r.innerText)")
    assert len(rows) == 7
    assert (
        any("Human" in r for r in rows)
        and sum("DumbBot" in r or "dumbbot" in r.lower() for r in rows) == 6
    )
    _shot(page, artifacts / "web-end.png")


def _step_through_the_history(page: Any, artifacts: Path) -> None:
    """History: back to the first phase, forward one, back to now."""
    page.click("#steps [data-step=first]")
    _wait_view(page, "document.querySelector('#map svg').dataset.history === 'S1901M'")
    assert "Orders of Spring 1901" in page.inner_text("#history-results")
    assert page.query_selector("#map #order-PAR.move") is not None
    _shot(page, artifacts / "web-history.png")
    page.click("#steps [data-step=next]")
    _wait_view(page, "document.querySelector('#map svg').dataset.history === 'F1901M'")
    page.click("#steps [data-step=last]")
    _wait_view(page, "document.body.dataset.history === 'no'")


def test_a_phone_joins_a_game_made_on_the_command_line(
    browser: Any, tmp_path: Path, artifacts: Path
) -> None:
    server = start_server(tmp_path / "phone.sqlite", "--play", "TUR", "--against", "holdbot:6")
    try:
        link = next(x for x in server.lines if "your game (TUR)" in x).split(": ", 1)[1]
        context = browser.new_context(
            viewport={"width": 390, "height": 844}, bypass_csp=True, has_touch=True
        )
        page = context.new_page()
        watch = Watch(page)
        page.goto(link)
        _wait_view(page, "document.body.dataset.stage === 'playing'")
        assert page.inner_text("#title").endswith("you are Turkey")
        # A phone starts zoomed in on the player's own units, inside the map's box; the
        # page itself never scrolls sideways.
        assert page.get_attribute("#zoom", "aria-pressed") == "true"
        _wait_view(page, "document.querySelector('#map svg').getBoundingClientRect().width > 700")
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        shown = page.evaluate(
            """() => {
                const box = document.querySelector('#map').getBoundingClientRect();
                return [...document.querySelectorAll('#map .unit[data-power=TUR]')].every(u => {
                    const r = u.getBoundingClientRect();
                    return r.left >= box.left && r.right <= box.right &&
                        r.top >= box.top && r.bottom <= box.bottom;
                });
            }"""
        )
        assert shown
        _shot(page, artifacts / "web-phone-start.png")
        page.tap("#zoom")  # the whole map, as wide as the screen
        width = page.eval_on_selector("#map svg", "s => s.getBoundingClientRect().width")
        assert 360 <= width <= 390
        page.tap("#zoom")
        page.eval_on_selector("#map", "m => { m.scrollLeft = m.scrollWidth; m.scrollTop = 300; }")
        unit = page.query_selector("#map #unit-SMY")
        assert unit is not None
        unit.tap()
        _wait_view(page, "document.querySelector('#menu button[data-id=hold]') !== null")
        page.tap("#menu button[data-id=hold]")
        _wait_view(page, "document.querySelectorAll('#orders li.given').length === 1")
        _shot(page, artifacts / "web-phone.png")
        page.screenshot(path=str(artifacts / "web-phone-full.png"), full_page=True)
        assert not watch.errors, watch.errors
        assert not watch.foreign, watch.foreign
        context.close()
    finally:
        stop_server(server)
