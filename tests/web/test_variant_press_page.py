"""Every feature on every map (issue 29), the person's side: on each bundled map, a person's
page at press level 30 composes every kind of proposal the page offers (peace, an alliance
against someone, a draw, a demilitarised zone picked on the map, an order for someone to give
picked on the map, and several at once joined by AND and by ORR), as the page does it over its
WebSocket; the server relays each to a negotiating bot (a real subprocess), which answers each;
and ``diplomat show --press`` reads the game's press as English with the map's names.

The other seats are open seats the person starts without (they begin in civil disorder), so a
map of 34 powers costs one bot process. Plus the issue's own steps: African, Ethiopia, press
level 10, peace proposed to Ivory Coast (the server used to exit on it).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from diplomat.cli.main import main
from diplomat.engine.map import bundled_maps, load_map, province_of
from diplomat.web.hub import WebHub
from tests.server.masters import master_of
from tests.transcripts import english_lines

from .test_web_protocol import Page, _press, open_page, web  # noqa: F401 (the fixture)

TALKER = "dumbbot --negotiate"


def mine(view: dict[str, Any], to: str) -> list[dict[str, Any]]:
    """The messages this page sent to ``to`` that the server relayed."""
    for c in _press(view).get("conversations", []):
        if c["key"] == to:
            return [msg for msg in c["messages"] if msg["mine"]]
    return []


async def propose(page: Page, to: str, count: int, **send: Any) -> None:
    """Send the draft (with ``send``'s options) and wait until the server has relayed it."""
    await page.send(t="press", op="send", **send)
    await page.until(lambda v: len(mine(v, to)) == count or _refused(page))
    assert not _refused(page), page.notices


def _refused(page: Page) -> bool:
    return any(n["level"] == "error" for n in page.notices)


async def add(page: Page, kind: str, parts: int) -> None:
    await page.send(t="press", op="add", kind=kind)
    if kind in ("pce", "drw"):
        await page.until(lambda v: len(_press(v).get("parts", [])) == parts or _refused(page))
        assert not _refused(page), page.notices


async def wait_parts(page: Page, parts: int) -> None:
    await page.until(lambda v: len(_press(v).get("parts", [])) == parts or _refused(page))
    assert not _refused(page), page.notices


@pytest.mark.parametrize("name", bundled_maps())
async def test_every_proposal_the_page_offers_on_every_map(
    name: str,
    web: WebHub,  # noqa: F811 (the fixture imported above)
    capsys: pytest.CaptureFixture[str],
) -> None:
    gmap = load_map(name)
    me = gmap.powers[0]
    opponents = [TALKER, *["open"] * (len(gmap.powers) - 2)]
    seat = web.create_game({"map": name, "power": me, "level": 30, "opponents": opponents})
    bot = next(p for p, b in seat.lineup.items() if b == TALKER)
    third = next(p for p in gmap.powers if p not in (me, bot))
    page, cm = await open_page(web, seat.game_id, seat.token)
    try:
        await page.until(lambda v: v["stage"] == "forming" and v["forming"]["joined"] == 2)
        await page.send(t="start")
        view = await page.until(lambda v: v["stage"] == "playing" and "orders" in v)
        if not view["phase"].endswith("M"):  # Chaos opens with builds: to its first moves
            await page.send(t="ready", on=True)
            view = await page.until(lambda v: v["phase"].endswith("M") and "orders" in v)
        await page.until(lambda v: bool(_press(v).get("open")))
        await page.send(t="press", op="to", power=bot)
        view = await page.until(lambda v: bool(_press(v)["kinds"]))
        assert [k["id"] for k in _press(view)["kinds"]] == ["pce", "aly", "drw", "dmz", "xdo"]
        state = master_of(web.server.games[seat.game_id]).state
        unit = next(u for u in state.units.values() if u.power == bot)
        zone = sorted(gmap.provinces)[0]
        sent = 0

        async def send(**how: Any) -> None:
            nonlocal sent
            sent += 1
            await propose(page, bot, sent, **how)

        await add(page, "pce", 1)  # peace
        await send()
        await page.send(t="press", op="add", kind="aly")  # an alliance against a third power
        await page.send(t="press", op="pick", power=third)
        await page.send(t="press", op="done")
        await wait_parts(page, 1)
        await send()
        await add(page, "drw", 1)  # a draw
        await send()
        await page.send(t="press", op="add", kind="dmz")  # a zone picked on the map
        await page.send(t="click", loc=zone)
        await page.send(t="press", op="done")
        await wait_parts(page, 1)
        await send()
        await page.send(t="press", op="add", kind="xdo")  # the bot's unit to hold
        await page.send(t="click", loc=unit.loc)
        await page.send(t="choose", id="hold")
        await wait_parts(page, 1)
        await send()
        await add(page, "pce", 1)  # level 30: AND ...
        await add(page, "drw", 2)
        await send(how="and")
        await add(page, "pce", 1)  # ... and ORR
        await add(page, "drw", 2)
        await send(how="orr")

        daide = [msg["daide"] for msg in mine(page.view, bot)]
        heads = ["PRP ( PCE", "PRP ( ALY", "PRP ( DRW", "PRP ( DMZ", "PRP ( XDO", "PRP ( AND",
                 "PRP ( ORR"]  # fmt: skip
        assert [d[: len(h)] for d, h in zip(daide, heads, strict=True)] == heads, daide
        assert (
            f"VSS ( {third} )" in daide[1]
            and zone in daide[3]
            and province_of(unit.loc) in daide[4]
        )
        # The negotiating bot read every one of them (in this map's tokens) and answered.
        await page.until(
            lambda v: all(msg.get("state") not in (None, "waiting") for msg in mine(v, bot))
        )
        assert not _refused(page), page.notices
    finally:
        await cm.__aexit__(None, None, None)

    # The transcript, with the map's names.
    db = Path(web.store.path)
    assert main(["show", str(seat.game_id), "--press", "--db", str(db)]) == 0
    lines = english_lines(capsys.readouterr().out, gmap)
    ours = [line for line in lines if line.startswith(f"  {gmap.power_info[me].name} to ")]
    assert len([line for line in ours if " I propose " in line]) == len(heads)


async def test_peace_to_ivory_coast_from_ethiopia(web: WebHub) -> None:  # noqa: F811
    """The issue's steps: map African, power Ethiopia, press level 10, any opponents; in the
    press card Ivory Coast, Peace, Propose. The server relays it (it used to exit with
    ``RenderError: 'IVC' is not a token of this game``), the bot answers, the game goes on."""
    seat = web.create_game(
        {"map": "african2", "power": "ETH", "level": 10, "opponents": ["holdbot"] * 5}
    )
    page, cm = await open_page(web, seat.game_id, seat.token)
    try:
        await page.until(lambda v: v["stage"] == "playing" and bool(_press(v).get("open")))
        await page.send(t="press", op="to", power="IVC")
        await page.until(lambda v: bool(_press(v)["kinds"]))
        await add(page, "pce", 1)
        view = await page.until(lambda v: bool(_press(v).get("preview")))
        assert _press(view)["preview"] == "I propose peace between Ethiopia and Ivory Coast"
        await propose(page, "IVC", 1)
        view = await page.until(lambda v: mine(v, "IVC")[0].get("state") == "not understood")
        assert mine(view, "IVC")[0]["daide"] == "PRP ( PCE ( ETH IVC ) )"
        await page.send(t="ready", on=True)  # and the game goes on
        await page.until(lambda v: v["phase"] == "F2001M")
    finally:
        await cm.__aexit__(None, None, None)
