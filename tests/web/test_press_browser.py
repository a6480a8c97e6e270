"""Press in Chromium: a level-30 game made on the page, a talking DAIDE client in an open seat
(``tests.web.talker``, a real connection over TCP), and a person who reads, answers, proposes
peace, a demilitarised zone picked on the map and an order picked with the same clicks as their
own, sees the agreements beside the orders and an order that breaks one flagged, what the phase
did to them, and the whole press in the history and in ``diplomat show --press`` afterwards.
A gunboat game offers no press at all."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from .conftest import ROOT, LiveServer, start_server, stop_server
from .test_browser import (
    WAIT_MS,
    Watch,
    _click_loc,
    _phase,
    _ready_and_wait,
    _shot,
    _wait_view,
)


def _create(
    page: Any, server: LiveServer, level: int, opponents: list[str], max_year: int = 1901
) -> None:
    page.goto(server.url)
    page.wait_for_selector("#f-power option[value=FRA]", state="attached")
    page.select_option("#f-power", "FRA")
    page.select_option("#f-level", str(level))
    for i, name in enumerate(opponents):
        page.select_option(f"#f-opponents select >> nth={i}", name)
    for key in ("move_time", "retreat_time", "build_time"):
        page.fill(f"input[name={key}]", "900")
    page.fill("input[name=max_year]", str(max_year))
    page.click("#create-button")
    page.wait_for_url("**/game/*")


def _state(page: Any, seq: str) -> str:
    return str(page.get_attribute(f"#conv li[data-seq='{seq}']", "data-state"))


def _last_mine(page: Any) -> str:
    """The seq of the newest message this seat sent in the conversation shown."""
    return str(page.eval_on_selector_all("#conv li.mine", "ls => ls.at(-1).dataset.seq"))


def _propose(page: Any, before: int, how: str = "and") -> str:
    """Send the draft, all of its parts (``and``) or any one (``orr``); returns the seq of the
    message once it shows in the conversation."""
    page.click(f"#press-send button[data-send={how}]")
    _wait_view(page, f"document.querySelectorAll('#conv li.mine').length > {before}")
    return _last_mine(page)


def _mine_count(page: Any) -> int:
    return int(page.eval_on_selector_all("#conv li.mine", "ls => ls.length"))


def _wait_state(page: Any, seq: str, state: str) -> None:
    li = f"document.querySelector(\"#conv li[data-seq='{seq}']\")"
    _wait_view(page, f"{li}?.dataset.state === '{state}'")


def _to(page: Any, power: str, on: bool) -> None:
    sel = f"#press-to button[data-power={power}]"
    if (page.get_attribute(sel, "aria-pressed") == "true") != on:
        page.click(sel)
        _wait_view(
            page,
            f"document.querySelector('{sel}').getAttribute('aria-pressed') === "
            f"'{'true' if on else 'false'}'",
        )


def _add(page: Any, kind: str) -> None:
    page.click(f"#press-kinds button[data-kind={kind}]")


def _parts(page: Any) -> int:
    return int(page.eval_on_selector_all("#press-parts li", "ls => ls.length"))


def test_negotiating_in_the_browser_at_level_30(
    browser: Any, tmp_path: Path, artifacts: Path
) -> None:
    server = start_server(tmp_path / "press.sqlite")
    talker = None
    try:
        context = browser.new_context(viewport={"width": 1280, "height": 1000}, bypass_csp=True)
        page = context.new_page()
        watch = Watch(page)
        _create(page, server, 30, ["holdbot"] * 5 + ["open"])
        # The open seat waits for a bot over TCP: the talker takes it.
        page.wait_for_selector("#forming p >> text=connecting over TCP")
        found = re.search(r":(\d+)\.", page.inner_text("#forming"))
        assert found, page.inner_text("#forming")
        talker = subprocess.Popen(
            [sys.executable, "-m", "tests.web.talker", "--port", found.group(1),
             "--propose-to", "FRA"],
            cwd=ROOT,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        _wait_view(page, "document.body.dataset.stage === 'playing'")
        game_id = page.url.split("/game/")[1].split("?")[0]
        assert page.is_visible("#press")

        # The talker's proposal arrives: announced in its conversation and in the tab's title.
        _wait_view(page, "document.querySelector('#conv-tabs button.unread') !== null")
        assert re.match(r"\(1\) France", page.title())
        other = str(page.get_attribute("#conv-tabs button.unread", "data-key"))
        page.click(f"#conv-tabs button[data-key={other}]")
        _wait_view(page, "document.querySelector('#conv-tabs button.unread') === null")
        assert not page.title().startswith("(")
        name = page.inner_text(f"#press-to button[data-power={other}]")
        first = page.query_selector("#conv li.theirs")
        assert first is not None
        text = first.inner_text()
        assert f"{name} → France: I propose peace between France and {name}." in text
        assert first.get_attribute("title") == f"PRP ( PCE ( FRA {other} ) )"  # DAIDE on hover
        seq = str(first.get_attribute("data-seq"))
        assert _state(page, seq) == "waiting"
        # One click answers it, and the agreement shows beside the orders.
        page.click(f"#conv li[data-seq='{seq}'] button[data-answer=yes]")
        _wait_state(page, seq, "accepted")
        _wait_view(page, "document.querySelector('#agreements li') !== null")
        assert f"Peace between France and {name}" in page.inner_text("#agreements")

        # Proposing peace to the talker: it answers within seconds.
        _to(page, other, True)
        kinds = page.eval_on_selector_all(
            "#press-kinds button", "bs => bs.map(b => b.dataset.kind)"
        )
        assert kinds == ["pce", "aly", "drw", "dmz", "xdo"]
        _add(page, "pce")
        _wait_view(page, "document.querySelectorAll('#press-parts li').length === 1")
        # (The page names powers in the map's order.)
        pair = f"France and {name}" if other > "FRA" else f"{name} and France"
        assert page.inner_text("#press-preview") == f"I propose peace between {pair}."
        peace = _propose(page, _mine_count(page))
        _wait_state(page, peace, "accepted")

        # A demilitarised zone picked on the map and an order picked with the same clicks as
        # one's own, proposed together (AND, level 30).
        _add(page, "dmz")
        _wait_view(page, "document.querySelector('#menu button[data-id=done]') !== null")
        _click_loc(page, "BUR")
        _wait_view(page, "document.querySelector('#prompt').textContent.includes('Burgundy')")
        _click_loc(page, "PIC")
        _wait_view(page, "document.querySelector('#prompt').textContent.includes('Picardy')")
        page.click("#menu button[data-id=done]")
        _wait_view(page, "document.querySelectorAll('#press-parts li').length === 1")
        _add(page, "xdo")
        _wait_view(page, "document.querySelector('#prompt').textContent.includes('click a unit')")
        unit = page.eval_on_selector(
            f"#map .unit[data-power={other}]", "u => u.id.replace('unit-', '')"
        )
        _click_loc(page, unit)
        _wait_view(page, "document.querySelector('#menu button[data-id=hold]') !== null")
        page.click("#menu button[data-id=hold]")
        _wait_view(page, "document.querySelectorAll('#press-parts li').length === 2")
        parts = page.inner_text("#press-parts")
        assert "A demilitarised zone in Burgundy and Picardy" in parts
        assert f"{name} ordering " in parts
        assert page.is_visible("#press-send button[data-send=orr]")  # level 30: any one of them
        _shot(page, artifacts / "web-press-compose.png")
        both = _propose(page, _mine_count(page))
        _wait_state(page, both, "accepted")
        said = page.inner_text(f"#conv li[data-seq='{both}']")
        assert "I propose a demilitarised zone in Burgundy and Picardy" in said
        assert f", and {name} ordering " in said
        agreed = page.inner_text("#agreements")
        assert "A demilitarised zone in Burgundy and Picardy" in agreed and "ordering" in agreed

        # An alliance is declined ("not now"); an offer of either of two things waits, and
        # its proposer may cancel it.
        _add(page, "aly")
        enemy = "GER" if other != "GER" else "ITA"
        page.click(f"#press-pick button[data-power={enemy}]")
        _wait_view(page, f"document.querySelector('#press-pick button[data-power={enemy}]')"
                   ".getAttribute('aria-pressed') === 'true'")  # fmt: skip
        page.click("#press-pick button[data-pick=done]")
        _wait_view(page, "document.querySelectorAll('#press-parts li').length === 1")
        alliance = _propose(page, _mine_count(page))
        _wait_state(page, alliance, "declined")
        assert "not now" in page.inner_text(f"#conv li[data-seq='{alliance}']")
        _add(page, "pce")
        _wait_view(page, "document.querySelectorAll('#press-parts li').length === 1")
        _add(page, "drw")
        _wait_view(page, "document.querySelectorAll('#press-parts li').length === 2")
        either = _propose(page, _mine_count(page), "orr")
        assert "I propose either peace between" in page.inner_text(f"#conv li[data-seq='{either}']")
        cancel = f"#conv li[data-seq='{either}'] button[data-act=cancel]"
        _wait_view(page, f'document.querySelector("{cancel}") !== null')
        page.click(cancel)
        _wait_state(page, either, "cancelled")

        # A silent bot does not understand press.
        _to(page, other, False)
        silent = next(p for p in ("AUS", "ENG", "GER", "ITA", "RUS", "TUR") if p != other)
        _to(page, silent, True)
        _add(page, "pce")
        _wait_view(page, "document.querySelectorAll('#press-parts li').length === 1")
        page.click("#press-send button[data-send=and]")
        _wait_view(page, f"document.querySelector('#conv-tabs button[data-key={silent}]') !== null")
        page.click(f"#conv-tabs button[data-key={silent}]")
        _wait_view(
            page, "document.querySelector(\"#conv li.mine[data-state='not understood']\") !== null"
        )

        # An order into the zone is flagged before the phase is played.
        _click_loc(page, "PAR")
        _wait_view(page, "document.querySelector('#map .unit.selected') !== null")
        _click_loc(page, "BUR")
        _wait_view(page, "document.querySelector('#orders li.breaks') !== null")
        warn = page.get_attribute("#orders li.breaks .warn", "title") or ""
        assert "breaks a demilitarised zone in Burgundy and Picardy" in warn
        assert f"agreed with {name}" in warn
        assert "⚠ A PAR - BUR breaks" in page.inner_text("#todo")
        _shot(page, artifacts / "web-press.png")

        # After the phase: what became of the agreements.
        page.click("#ready")
        _wait_view(page, "document.querySelector('#map svg').dataset.phase === 'F1901M'")
        kept = page.inner_text("#results .agreed")
        assert "A demilitarised zone in Burgundy and Picardy" in kept
        assert "broken by France." in kept
        assert re.search(rf"{name} ordering [AF] [A-Z]{{3}}( ?/?[A-Z]*)? H: done\.", kept), kept
        _shot(page, artifacts / "web-press-results.png")

        # Play to the end (the year limit), then read the press again with the history.
        for _ in range(6):
            if page.evaluate("document.body.dataset.stage") == "finished":
                break
            _ready_and_wait(page, _phase(page))
        _wait_view(page, "document.body.dataset.stage === 'finished'")
        page.click("#steps [data-step=first]")
        _wait_view(page, "document.querySelector('#map svg').dataset.history === 'S1901M'")
        history = page.inner_text("#history-press")
        assert f"I propose peace between France and {name}." in history
        assert "I propose a demilitarised zone in Burgundy and Picardy" in history
        assert not watch.errors, watch.errors
        assert not watch.foreign, watch.foreign
        context.close()
    finally:
        stop_server(server)
        if talker is not None:
            talker.wait(60)
    # The same press, as a transcript.
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "diplomat.cli.main",
            "show",
            game_id,
            "--db",
            str(server.db),
            "--press",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "Spring 1901 Movement (S1901M)" in out
    pair = f"France and {name}" if other > "FRA" else f"{name} and France"
    assert f"France to {name}: I propose peace between {pair}." in out
    assert f"{name} to France: I agree to peace between {pair}." in out
    assert f"France to {name}: I agree to peace between France and {name}." in out


def test_a_gunboat_game_offers_no_press(browser: Any, tmp_path: Path) -> None:
    server = start_server(tmp_path / "gunboat.sqlite")
    try:
        context = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True)
        page = context.new_page()
        watch = Watch(page)
        page.goto(server.url)
        page.wait_for_selector("#f-power option[value=FRA]", state="attached")
        assert page.eval_on_selector("#f-level", "s => s.value") == "0"  # gunboat by default
        _create(page, server, 0, ["holdbot"] * 6)
        _wait_view(page, "document.body.dataset.stage === 'playing'", WAIT_MS)
        assert page.is_hidden("#press") and page.is_hidden("#agreements-box")
        assert page.query_selector("#conv-tabs button") is None
        assert page.query_selector("#press-to button") is None
        assert "press" not in page.inner_text("#panel").lower()
        assert not watch.errors, watch.errors
        context.close()
    finally:
        stop_server(server)


def _answered(page: Any, seq: str) -> str:
    """Waits until a proposal of this seat is no longer waiting; returns its state."""
    li = f"document.querySelector(\"#conv li[data-seq='{seq}']\")"
    _wait_view(page, f"{li} && {li}.dataset.state !== 'waiting'")
    return str(page.get_attribute(f"#conv li[data-seq='{seq}']", "data-state"))


def test_negotiating_with_the_bundled_negotiators(
    browser: Any, tmp_path: Path, artifacts: Path
) -> None:
    """Against six ``dumbbot --negotiate`` at level 30: peace, a demilitarised zone and an order
    picked on the map, each proposed to a bot, get its answer within the phase; a choice of
    peace or a zone gets a proposal of its own, answered in one click."""
    server = start_server(tmp_path / "negotiators.sqlite")
    try:
        context = browser.new_context(viewport={"width": 1280, "height": 1000}, bypass_csp=True)
        page = context.new_page()
        watch = Watch(page)
        page.goto(server.url)
        page.wait_for_selector("#f-power option[value=FRA]", state="attached")
        offered = page.eval_on_selector_all(
            "#f-opponents select >> nth=0 >> option", "os => os.map(o => [o.value, o.text])"
        )
        assert ["bordeaux --negotiate", "bordeaux, negotiating"] in offered
        assert ["dumbbot --negotiate", "dumbbot, negotiating"] in offered
        _create(page, server, 30, ["dumbbot --negotiate"] * 6, max_year=1902)
        _wait_view(page, "document.body.dataset.stage === 'playing'")
        assert page.is_visible("#press")

        # Each bot's opening TRY (to every power) is protocol: hidden until asked for.
        handshake = (
            "[...document.querySelectorAll('#conv li')]"
            ".filter((li) => li.textContent.includes('I can discuss only')).length"
        )
        assert page.is_visible("#press-protocol") and not page.is_checked("#press-protocol")
        page.check("#press-protocol")
        group = "#conv-tabs button[data-key=group]"
        _wait_view(page, f"document.querySelector('{group}') !== null")
        page.click(group)
        _wait_view(page, f"{handshake} >= 6")
        page.uncheck("#press-protocol")
        _wait_view(page, f"{handshake} === 0")

        # Peace proposed to Germany: the negotiator answers (yes, no or not now).
        page.click("#press")  # the person looks at the press
        _to(page, "GER", True)
        _add(page, "pce")
        _wait_view(page, "document.querySelectorAll('#press-parts li').length === 1")
        page.click("#conv-tabs button[data-key=GER]")
        peace = _propose(page, _mine_count(page))
        assert _answered(page, peace) in ("accepted", "rejected", "declined")
        reply = page.query_selector("#conv li.theirs[title*='PRP ( PCE']")
        assert reply is not None
        assert re.match(r"Germany → France: (I agree to|I reject|Not now)", reply.inner_text())

        # A demilitarised zone in Burgundy, and an order for a German unit picked on the map.
        _add(page, "dmz")
        _wait_view(page, "document.querySelector('#menu button[data-id=done]') !== null")
        _click_loc(page, "BUR")
        _wait_view(page, "document.querySelector('#prompt').textContent.includes('Burgundy')")
        page.click("#menu button[data-id=done]")
        _wait_view(page, "document.querySelectorAll('#press-parts li').length === 1")
        dmz = _propose(page, _mine_count(page))
        assert _answered(page, dmz) in ("accepted", "rejected", "declined")
        _add(page, "xdo")
        _wait_view(page, "document.querySelector('#prompt').textContent.includes('click a unit')")
        _click_loc(page, "MUN")
        _wait_view(page, "document.querySelector('#menu button[data-id=move]') !== null")
        _click_loc(page, "RUH")  # A MUN - RUH, with the clicks of one's own orders
        _wait_view(page, "document.querySelectorAll('#press-parts li').length === 1")
        assert "Germany ordering A MUN - RUH" in page.inner_text("#press-parts")
        xdo = _propose(page, _mine_count(page))
        assert _answered(page, xdo) in ("accepted", "rejected", "declined")

        # Their own proposals, answered in one click: offered any one of peace or a zone, a
        # negotiator rejects the choice and proposes the option it accepts (peace: France has
        # broken nothing).
        _add(page, "pce")
        _add(page, "dmz")
        _wait_view(page, "document.querySelector('#menu button[data-id=done]') !== null")
        _click_loc(page, "PIC")
        _wait_view(page, "document.querySelector('#prompt').textContent.includes('Picardy')")
        page.click("#menu button[data-id=done]")
        _wait_view(page, "document.querySelectorAll('#press-parts li').length === 2")
        choice = _propose(page, _mine_count(page), "orr")
        assert "either" in page.inner_text(f"#conv li[data-seq='{choice}'] .text")
        _wait_state(page, choice, "rejected")
        counter = "#conv li.theirs[title='PRP ( PCE ( FRA GER ) )']:has(button[data-answer])"
        _wait_view(page, f'document.querySelector("{counter}") !== null')
        item = page.query_selector(counter)
        assert item is not None
        assert item.inner_text().startswith("Germany → France: I propose peace")
        seq = str(item.get_attribute("data-seq"))
        before = _mine_count(page)
        page.click(f"#conv li[data-seq='{seq}'] button[data-answer=yes]")
        _wait_view(page, f"document.querySelectorAll('#conv li.mine').length > {before}")
        assert "I agree to" in page.inner_text("#conv li.mine >> nth=-1")
        _wait_view(page, f"document.querySelector(\"#conv li[data-seq='{seq}'] button\") === null")
        _shot(page, artifacts / "web-press-negotiators.png")
        assert not watch.errors, watch.errors
        context.close()
    finally:
        stop_server(server)
