"""Issue 32's "Done when", in Chromium with three browser contexts: two people (France and
Germany, each on their own seat link) and five real subprocess bots play a level-8000 game for
two years, on the standard map and on a seven-power variant. Both people order by clicking,
write free text and a DAIDE proposal to each other and to a bot; a third context watches the
listed game and is sent no private press while it runs (read from its WebSocket frames, not
only its page), and sees all of it after the people end the game with a draw vote.

The five bots are ``tests.web.talker`` (HoldBot's orders, DAIDE over TCP in the open seats):
the bundled bots never vote for a draw, and a draw needs every survivor's vote. The talkers
vote ``DRW`` in every phase, so the people's two votes end the game."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from diplomat.engine.map import load_map

from .conftest import ROOT, start_server, stop_server
from .test_browser import WAIT_MS, Watch, _order_phase, _phase, _say_ready, _shot, _wait_view
from .test_press_browser import _add, _mine_count, _propose, _to, _wait_state

ME, FRIEND = "FRA", "GER"  # powers of the standard map and of Versailles alike
BOTS = 5
# Free text the spectator must not be sent before the end.
TO_FRIEND = "Shall we leave Burgundy empty?"
TO_ME = "Agreed, and Munich stays home."
TO_BOT = "Is anybody there?"


class Frames:
    """Every WebSocket frame a page receives, as text."""

    def __init__(self, page: Any) -> None:
        self.got: list[str] = []
        page.on("websocket", lambda ws: ws.on("framereceived", self._frame))

    def _frame(self, payload: str | bytes) -> None:
        self.got.append(payload if isinstance(payload, str) else payload.decode())

    def views(self) -> list[dict[str, Any]]:
        """The views among them, parsed."""
        parsed = [json.loads(x) for x in self.got]
        return [x for x in parsed if isinstance(x, dict) and x.get("t") == "view"]

    def text(self) -> str:
        return "\n".join(self.got)


def _context(browser: Any) -> tuple[Any, Any]:
    # The page forbids eval (CSP); Playwright's waits need it.
    context = browser.new_context(viewport={"width": 1280, "height": 1000}, bypass_csp=True)
    return context, context.new_page()


def _create(page: Any, gmap: str, last_year: int) -> tuple[int, str, int]:
    """The lobby's form: level 8000 on ``gmap``, France for me, Germany a person's seat, open
    seats for the rest, listed. Returns the game, Germany's link and the open seats' port."""
    page.wait_for_selector(f"#f-map option[value={gmap}]", state="attached")
    page.select_option("#f-map", gmap)
    page.wait_for_selector(f"#f-power option[value={ME}]", state="attached")
    page.select_option("#f-power", ME)
    page.select_option("#f-level", "8000")
    page.check("#f-with-people")
    for power in load_map(gmap).powers:
        if power not in (ME, FRIEND):
            page.select_option(f"#f-seats select[data-power={power}]", "open")
    page.select_option(f"#f-seats select[data-power={FRIEND}]", "person")
    for key in ("move_time", "retreat_time", "build_time"):
        page.fill(f"input[name={key}]", "900")  # far off: Ready moves the game on
    page.fill("input[name=max_year]", str(last_year))
    page.check("#f-listed")
    page.click("#create-button")
    page.wait_for_url("**/game/*")
    game = int(page.url.split("/game/")[1].split("?")[0])
    page.wait_for_selector(f"#people li[data-power={FRIEND}] input.seat-link")
    link = page.input_value(f"#people li[data-power={FRIEND}] input.seat-link")
    _wait_view(
        page,
        "/connecting over TCP to .*:\\d+/.test(document.querySelector('#forming').textContent)",
    )
    found = re.search(r"over TCP to [\d.]+:(\d+)", page.inner_text("#forming"))
    assert found is not None
    return game, str(link), int(found.group(1))


def _talkers(port: int, draw_from: int) -> list[subprocess.Popen[str]]:
    argv = [sys.executable, "-m", "tests.web.talker", "--port", str(port)]
    argv += ["--draw-from", str(draw_from)]
    return [
        subprocess.Popen(argv, cwd=ROOT, stderr=subprocess.DEVNULL, text=True) for _ in range(BOTS)
    ]


def _wait_conv(page: Any, key: str, text: str) -> None:
    page.click(f"#conv-tabs button[data-key={key}]")
    _wait_view(page, f"document.querySelector('#conv').textContent.includes({text!r})")


def _only(page: Any, to: str) -> None:
    """``to`` alone ticked under *To:*."""
    pressed = page.eval_on_selector_all(
        "#press-to button[aria-pressed=true]", "bs => bs.map(b => b.dataset.power)"
    )
    for power in pressed:
        if power != to:
            _to(page, power, False)
    _to(page, to, True)


def _write(page: Any, to: str, text: str) -> None:
    """Free text to one power."""
    _only(page, to)
    page.fill("#talk-input", text)
    page.click("#talk-send")
    _wait_view(page, "document.querySelector('#talk-input').value === ''")


def _propose_peace(page: Any, to: str) -> str:
    """Peace with ``to`` from the press menus; returns the proposal's seq."""
    _only(page, to)
    page.click(f"#conv-tabs button[data-key={to}]")
    before = _mine_count(page)
    _add(page, "pce")
    _wait_view(page, "document.querySelectorAll('#press-parts li').length === 1")
    return _propose(page, before)


def _talk(me: Any, friend: Any, bot: str) -> None:
    """Free text both ways between the people and to a bot; a proposal each way (the friend
    answers the person's, the bot the friend's)."""
    _write(me, FRIEND, TO_FRIEND)
    _wait_conv(friend, ME, TO_FRIEND)
    _write(friend, ME, TO_ME)
    _wait_conv(me, FRIEND, TO_ME)
    # A program cannot read free text: it says so, in words.
    _write(me, bot, TO_BOT)
    _wait_conv(me, bot, "(a program) does not read free text")
    # Peace proposed by one person, accepted by the other with one click.
    seq = _propose_peace(me, FRIEND)
    _wait_conv(friend, ME, "I propose peace")
    friend.click(f"#conv li[data-seq='{seq}'] button[data-answer=yes]")
    _wait_state(me, seq, "accepted")
    # Peace proposed to a bot: the talker accepts it.
    seq = _propose_peace(friend, bot)
    _wait_state(friend, seq, "accepted")


def _play_until(people: list[Any], phase: str) -> dict[str, list[int]]:
    """Each phase: both people order every unit by clicking, then both say Ready; until the
    game reaches ``phase``. Returns, for each phase played, how many orders each person
    clicked in it."""
    played: dict[str, list[int]] = {}
    deadline = time.monotonic() + 900  # an outer limit, never a pace
    while _phase(people[0]) != phase:
        assert time.monotonic() < deadline, f"stuck in {_phase(people[0])}"
        now = _phase(people[0])
        played[now] = []
        for page in people:
            _wait_view(page, f"document.querySelector('#map svg').dataset.phase === '{now}'")
            played[now].append(sum(_order_phase(page, {}).values()))
        for page in people:
            _say_ready(page, now)
        for page in people:
            _wait_view(page, f"document.querySelector('#map svg').dataset.phase !== '{now}'")
    return played


@pytest.mark.parametrize("gmap", ["standard", "versailles3"])
def test_two_people_five_bots_and_a_spectator(
    browser: Any, tmp_path: Path, artifacts: Path, gmap: str
) -> None:
    start = load_map(gmap).start_year
    server = start_server(tmp_path / "together.sqlite")
    contexts: list[Any] = []
    procs: list[subprocess.Popen[str]] = []
    try:
        (a_ctx, me), (b_ctx, friend), (c_ctx, viewer) = (_context(browser) for _ in range(3))
        contexts = [a_ctx, b_ctx, c_ctx]
        watches = [Watch(p) for p in (me, friend, viewer)]
        seen = Frames(viewer)
        friend_frames = Frames(friend)
        me.goto(server.url)
        game, link, port = _create(me, gmap, start + 3)
        friend.goto(link)
        procs = _talkers(port, start)
        for page in (me, friend):
            _wait_view(page, "document.body.dataset.stage === 'playing'")
            _wait_view(page, "!document.querySelector('#talk-text').hidden")
        # The spectator finds the game on the server's list and watches it.
        viewer.goto(server.url + "games")
        row = f"#games-list tr[data-game='{game}']"
        viewer.wait_for_selector(row, timeout=WAIT_MS)
        viewer.click(f"{row} a.watch")
        viewer.wait_for_url(f"**/watch/{game}")
        _wait_view(viewer, f"document.querySelector('#map svg')?.dataset.phase === 'S{start}M'")
        assert viewer.inner_text("#title").endswith("watching")
        bot = next(p for p in load_map(gmap).powers if p not in (ME, FRIEND))
        _talk(me, friend, bot)
        played = _play_until([me, friend], f"S{start + 2}M")
        # Two years, every movement phase ordered by both people's clicks.
        moves = [p for p in played if p.endswith("M")]
        assert moves == [f"{s}{y}M" for y in (start, start + 1) for s in "SF"], played
        assert all(played[p][0] > 0 and played[p][1] > 0 for p in moves), played
        _wait_view(viewer, f"document.querySelector('#map svg')?.dataset.phase === 'S{start + 2}M'")
        # While the game runs the spectator is sent none of it, and its page shows none.
        secrets = (TO_FRIEND, TO_ME, TO_BOT, "PRP", "PCE")
        assert f'"S{start + 1}M"' in seen.text()  # (the frames are read: the phases are there)
        for secret in secrets:
            assert secret not in seen.text(), secret
            assert secret not in viewer.content(), secret
        assert viewer.is_hidden("#press")
        # Nor is one person sent what the other wrote to a bot.
        assert TO_BOT not in friend_frames.text()
        # The draw: the talkers vote in every phase; the people's votes make it everyone's.
        me.click("#draw-acts button[data-act=vote]")
        _wait_view(me, "document.querySelector('#draw').textContent.includes('You vote for')")
        # Votes are secret: neither the friend nor the spectator is told of France's.
        drawn = [v["draw"] for v in friend_frames.views() if v.get("draw")]
        assert drawn and all(d["votes"] == [] for d in drawn), drawn
        assert '"votes"' not in seen.text()
        friend.click("#draw-acts button[data-act=vote]")
        for page in (me, friend, viewer):
            _wait_view(page, "document.body.dataset.stage === 'finished'")
        assert "draw" in me.inner_text("#end-text").lower()
        # Now the spectator sees everyone's press.
        _wait_view(viewer, "!!document.querySelector('#press-log:not([hidden])')")
        log = viewer.inner_text("#press-log")
        for text in (TO_FRIEND, TO_ME, TO_BOT, "peace"):
            assert text in log, (text, log)
        _shot(viewer, artifacts / f"web-together-{gmap}.png")
        # And the server's list says how it ended.
        viewer.goto(server.url + "games")
        _wait_view(
            viewer,
            f"document.querySelector(\"{row} td.stage\")?.textContent === 'finished (draw)'",
        )
        for w in watches:
            assert not w.errors, w.errors
            assert not w.foreign, w.foreign
    finally:
        for context in contexts:
            context.close()
        for p in procs:
            if p.poll() is None:
                p.kill()
            p.wait()
        stop_server(server)
