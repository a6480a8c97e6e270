"""Draw votes and free text between seats, read from what the server sends: a draw that every
survivor votes (the page's seat and real subprocess bots) ends the game, a vote taken back is
gone from the game's record, free text reaches its recipients and nobody else, and a bot's
``HUH`` to free text reads as "<Power> (a program) does not read free text"."""

from __future__ import annotations

import subprocess
import sys
from functools import partial
from typing import Any

import pytest
import trio

from diplomat.protocol import messages
from diplomat.web.hub import WebHub
from tests.server.daide_client import WireClient
from tests.server.test_shutdown import _processes
from tests.web.conftest import ROOT
from tests.web.test_web_protocol import Page, _press, open_page, web  # noqa: F401 (the fixture)

PATIENCE = 180  # an outer limit for a test's slowest wait, never a pace


async def _open_port(page: Page) -> int:
    view = await page.until(lambda v: bool((v.get("forming") or {}).get("port")))
    return int(view["forming"]["port"])


def _talkers(procs: list[subprocess.Popen[str]], port: int, count: int, *extra: str) -> None:
    """``count`` talkers (tests.web.talker, HoldBot's orders) taking the open seats over TCP."""
    argv = [sys.executable, "-m", "tests.web.talker", "--port", str(port), *extra]
    for _ in range(count):
        procs.append(
            subprocess.Popen(
                argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True
            )
        )


def _left(phase: str, v: dict[str, Any]) -> bool:
    return bool(v["phase"] != phase)


def _draw(v: dict[str, Any]) -> dict[str, Any]:
    draw: dict[str, Any] = v.get("draw") or {}
    return draw


async def test_a_draw_every_survivor_votes_ends_the_game_and_a_vote_taken_back_is_gone(
    web: WebHub,  # noqa: F811 (the fixture imported above)
) -> None:
    seat = web.create_game({"power": "FRA", "opponents": ["open"] * 6})
    page, cm = await open_page(web, seat.game_id, seat.token)
    try:
        port = await _open_port(page)
        # The bots vote for a draw at the start of every phase from 1902 on.
        with _processes() as procs:
            _talkers(procs, port, 6, "--draw-from", "1902")
            view = await page.until(lambda v: bool(_draw(v).get("open")), PATIENCE)
            assert view["phase"] == "S1901M" and _draw(view)["votes"] == []
            assert not _draw(view)["pda"]  # no partial draws in this game
            await page.send(t="draw", on=True, powers=["FRA", "GER"])
            await page.until(lambda v: bool(page.notices))
            assert "no partial draws" in page.notices[-1]["text"]
            # A vote: confirmed by the game, and in its record of the phase.
            await page.send(t="draw", on=True)
            view = await page.until(lambda v: len(_draw(v)["votes"]) == 1)
            assert _draw(view)["votes"][0]["powers"] is None
            assert ("FRA", "draw") in web.store.flags(seat.game_id, "S1901M")
            # Taken back: gone from the page and from the game's record.
            await page.send(t="draw", on=False)
            await page.until(lambda v: _draw(v)["votes"] == [])
            assert ("FRA", "draw") not in web.store.flags(seat.game_id, "S1901M")
            while page.view["phase"] != "S1902M":
                phase = page.view["phase"]
                assert page.view["stage"] == "playing"  # no draw before 1902: one vote missing
                await page.send(t="ready", on=True, phase=phase)
                await page.until(partial(_left, phase), PATIENCE)
            # The six bots vote in S1902M; the person's vote makes it every survivor's.
            await page.send(t="draw", on=True)
            view = await page.until(lambda v: v["stage"] == "finished", PATIENCE)
        assert view["end"]["kind"] == "draw"
        assert sorted(view["end"]["powers"]) == sorted(web.server.map.powers)
        row = web.store.game(seat.game_id)
        assert row.result is not None and row.result["reason"] == "agreed"
        assert row.result["phase"] == "S1902M"
    finally:
        await cm.__aexit__(None, None, None)


async def _seated(port: int, count: int) -> list[tuple[WireClient, str]]:
    """DAIDE clients taking the open seats: each with its power (from HLO, once the game
    starts)."""
    clients = []
    for _ in range(count):
        client = await WireClient.connect(port)
        await client.join("person")
        clients.append(client)
    return [(c, str((await c.expect(messages.Hlo, PATIENCE)).power)) for c in clients]


async def _free_texts(client: WireClient, until: str) -> list[messages.Frm]:
    """The free text the client receives up to (and with) the message saying ``until``."""
    got: list[messages.Frm] = []
    with trio.fail_after(PATIENCE):
        while True:
            frm = await client.expect(messages.Frm, PATIENCE)
            if isinstance(frm.press, messages.FreeText):
                got.append(frm)
                if frm.press.text == until:
                    return got


def _messages(v: dict[str, Any]) -> list[dict[str, Any]]:
    return [x for c in _press(v).get("conversations", []) for x in c["messages"]]


async def test_free_text_reaches_only_its_recipients_and_a_bot_says_it_cannot_read_it(
    web: WebHub,  # noqa: F811 (the fixture imported above)
) -> None:
    seat = web.create_game(
        {"power": "FRA", "level": 8000, "opponents": ["open", "open"] + ["holdbot"] * 4}
    )
    page, cm = await open_page(web, seat.game_id, seat.token)
    one = two = None
    try:
        port = await _open_port(page)
        (one, a), (two, b) = await _seated(port, 2)
        await page.until(lambda v: bool(_press(v).get("open")), PATIENCE)
        bots = [p for p in web.server.map.powers if p not in ("FRA", a, b)]
        # Level 8000 is checked by the server too: a message too long or to nobody is refused.
        await page.send(t="talk", to=[a], text="x" * 2001)
        await page.until(lambda v: bool(page.notices))
        assert "at most 2000 characters" in page.notices[-1]["text"]
        await page.send(t="talk", to=[], text="hello")
        await page.until(lambda v: len(page.notices) == 2)
        assert page.notices[-1]["text"] == "Choose whom to send it to."
        # To the first seat alone, then to both: the second sees only the second message.
        await page.send(t="talk", to=[a], text="Only for you")
        await page.send(t="talk", to=[a, b], text="For both of you")
        got_a = await _free_texts(one, "For both of you")
        got_b = await _free_texts(two, "For both of you")
        assert [f.press.text for f in got_a] == ["Only for you", "For both of you"]  # type: ignore[union-attr]
        assert [f.press.text for f in got_b] == ["For both of you"]  # type: ignore[union-attr]
        assert got_b[0].sender == "FRA" and set(got_b[0].recipients) == {a, b}
        # An answer from a seat shows in the page with who, to whom, phase and time.
        await one.send(messages.Snd(("FRA",), messages.FreeText("Agreed, 'Burgundy' stays empty")))
        view = await page.until(lambda v: any(x["from"] == a for x in _messages(v)), PATIENCE)
        said = next(x for x in _messages(view) if x["from"] == a)
        assert said["text"] == "“Agreed, 'Burgundy' stays empty”" and said["free"]
        assert said["to"] == ["FRA"] and said["phase"] == "S1901M" and said["sent"] > 0
        # A bot cannot read free text: it answers HUH, which the page puts in words.
        await page.send(t="talk", to=[bots[0]], text="Shall we?")
        view = await page.until(lambda v: any(x.get("program") for x in _messages(v)), PATIENCE)
        huh = next(x for x in _messages(view) if x.get("program"))
        name = web.server.map.power_info[bots[0]].name
        assert huh["text"] == f"{name} (a program) does not read free text"
        assert huh["from"] == bots[0] and not huh["protocol"]
        assert huh["daide"].startswith("HUH")
        # The second seat never heard any of that.
        await page.send(t="talk", to=[b], text="last")
        late = await _free_texts(two, "last")
        assert [f.press.text for f in late] == ["last"]  # type: ignore[union-attr]
    finally:
        for c in (one, two):
            if c is not None:
                await c.aclose()
        await cm.__aexit__(None, None, None)


async def test_a_partial_draw_is_voted_kept_over_a_new_session_and_taken_back(
    web: WebHub,  # noqa: F811 (the fixture imported above)
) -> None:
    with pytest.raises(ValueError, match="level"):
        web.create_game({"power": "FRA", "pda": True, "opponents": ["holdbot"] * 6})
    # No deadline: the phase waits for the person while they are away.
    spec = {"power": "FRA", "level": 10, "pda": True, "move_time": 0}
    seat = web.create_game(spec | {"opponents": ["holdbot"] * 6})
    page, cm = await open_page(web, seat.game_id, seat.token)
    try:
        view = await page.until(lambda v: bool(_draw(v).get("open")), PATIENCE)
        assert _draw(view)["pda"] and len(_draw(view)["alive"]) == 7
        await page.send(t="draw", on=True, powers=["FRA"])
        await page.until(lambda v: bool(page.notices))
        assert "at least two powers" in page.notices[-1]["text"]
        await page.send(t="draw", on=True, powers=["ger", "FRA"])
        view = await page.until(lambda v: len(_draw(v)["votes"]) == 1)
        vote = _draw(view)["votes"][0]
        assert vote == {"powers": ["FRA", "GER"], "text": "a draw of France and Germany"}
        assert ("FRA", "draw:FRA GER") in web.store.flags(seat.game_id, "S1901M")
        # The page goes and the seat leaves the game (after the hub's grace); a page that
        # comes back gets a new session, which shows the vote the game still holds.
        session = web.sessions[seat.token]
        await cm.__aexit__(None, None, None)
        with trio.fail_after(PATIENCE):
            await session.done.wait()
        page, cm = await open_page(web, seat.game_id, seat.token)
        view = await page.until(lambda v: bool(_draw(v).get("votes")), PATIENCE)
        assert view["phase"] == "S1901M"
        assert web.sessions[seat.token] is not session
        assert _draw(view)["votes"][0]["powers"] == ["FRA", "GER"]
        await page.send(t="draw", on=False, powers=["FRA", "GER"])
        await page.until(lambda v: _draw(v)["votes"] == [])
        assert ("FRA", "draw:FRA GER") not in web.store.flags(seat.game_id, "S1901M")
        assert page.view["stage"] == "playing"
    finally:
        await cm.__aexit__(None, None, None)
