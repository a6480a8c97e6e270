"""Press relay at level 10+, gunboat silence, and draws."""

from __future__ import annotations

from diplomat.protocol import messages
from diplomat.server.app import Server
from diplomat.server.settings import GameSettings

from .daide_client import MakeServer, WireClient


async def _seven(
    server: Server, text: bool = False
) -> tuple[list[WireClient], dict[str, WireClient], list[messages.Hlo]]:
    clients = [await WireClient.connect(server.address[1], text=text) for _ in range(7)]
    for i, c in enumerate(clients):
        await c.join(f"p{i}")
    hlos = [await c.expect(messages.Hlo) for c in clients]
    return clients, {h.power: c for h, c in zip(hlos, clients, strict=True)}, hlos


async def test_press_is_relayed_to_recipients_only(make_server: MakeServer) -> None:
    server = await make_server(GameSettings(level=20, max_year=1901, map="standard"))
    _, by_power, _ = await _seven(server)
    eng, fra, ger = by_power["ENG"], by_power["FRA"], by_power["GER"]
    await eng.send("SND (FRA GER) (PRP (PCE (ENG FRA GER)))")
    assert await eng.expect(messages.Yes) == messages.Yes(
        messages.Snd(("FRA", "GER"), messages.Prp(messages.Pce(("ENG", "FRA", "GER"))))
    )
    for c in (fra, ger):
        frm = await c.expect(messages.Frm)
        assert frm.sender == "ENG" and frm.recipients == ("FRA", "GER")
    # Above the game's level: HUH with ERR before the first construct it does not allow.
    await eng.send("SND (FRA) (PRP (AND (PCE (ENG FRA)) (DRW)))")
    huh = await eng.expect(messages.Huh)
    assert huh.tokens[huh.tokens.index("ERR") + 1] == "AND"
    # Sender among the recipients: REJ.
    await eng.send("SND (ENG FRA) (PRP (PCE (ENG FRA)))")
    assert isinstance(await eng.expect(messages.Rej), messages.Rej)
    # TRY is trimmed to the game's level before it is forwarded.
    await fra.send("SND (ENG) (TRY (PRP PCE XDO AND QRY))")
    await fra.expect(messages.Yes)
    frm = await eng.expect(messages.Frm)
    assert frm.press == messages.Try(("PRP", "PCE", "XDO"))
    rows = server.store.press(server.store.games()[0].id)
    assert [(r.sender, r.recipients) for r in rows] == [("ENG", ("FRA", "GER")), ("FRA", ("ENG",))]


async def test_press_to_a_power_in_civil_disorder_is_not_delivered(make_server: MakeServer) -> None:
    server = await make_server(GameSettings(level=10, max_year=1901, map="standard"))
    _, by_power, _ = await _seven(server)
    await by_power["TUR"].aclose()
    eng = by_power["ENG"]
    await eng.expect(messages.Ccd)
    await eng.send("SND (FRA TUR) (PRP (PCE (ENG FRA TUR)))")
    assert await eng.expect(messages.Ccd) == messages.Ccd("TUR")


async def test_gunboat_has_no_press_at_all(make_server: MakeServer) -> None:
    server = await make_server(GameSettings(level=0, max_year=1901, map="standard"))
    _, by_power, _ = await _seven(server, text=True)
    eng = by_power["ENG"]
    await eng.send("SND (FRA) (PRP (PCE (ENG FRA)))")
    huh = await eng.expect(messages.Huh)
    assert "ERR" in huh.tokens
    await eng.send("ADM ('me') ('hello')")
    assert isinstance(await eng.expect(messages.Rej), messages.Rej)


async def test_a_draw_needs_every_survivor(make_server: MakeServer) -> None:
    server = await make_server(GameSettings(max_year=1910, map="standard"))
    clients, by_power, _ = await _seven(server)
    for c in list(by_power.values())[:-1]:
        await c.send("DRW")
        assert await c.expect(messages.Yes) == messages.Yes(messages.Drw())
    last = list(by_power.values())[-1]
    await last.send("NOT (DRW)")
    assert isinstance(await last.expect(messages.Yes), messages.Yes)
    await last.send("DRW")
    for c in clients:
        assert await c.expect(messages.Drw) == messages.Drw()
        smr = await c.expect(messages.Smr)
        assert len(smr.entries) == 7
        await c.expect(messages.Off)
    result = server.store.games()[0].result
    assert result is not None and result["kind"] == "draw" and result["reason"] == "agreed"


async def test_partial_draw_with_pda(make_server: MakeServer) -> None:
    server = await make_server(GameSettings(level=10, pda=True, max_year=1910, map="standard"))
    clients, by_power, _ = await _seven(server)
    await by_power["ENG"].send("DRW (ENG FRA)")
    assert isinstance(await by_power["ENG"].expect(messages.Yes), messages.Yes)
    await by_power["FRA"].send("DRW (FRA ENG ENG)")  # the same power twice
    assert isinstance(await by_power["FRA"].expect(messages.Rej), messages.Rej)
    for c in by_power.values():
        await c.send("DRW (FRA ENG)")
    for c in clients:
        assert await c.expect(messages.Drw) == messages.Drw(("ENG", "FRA"))
    result = server.store.games()[0].result
    assert result is not None and result["powers"] == ["ENG", "FRA"]
    # Without PDA a list is refused.
    server2 = await make_server(GameSettings(level=10, max_year=1910, map="standard"))
    _, by_power2, _ = await _seven(server2)
    await by_power2["ENG"].send("DRW (ENG FRA)")
    assert isinstance(await by_power2["ENG"].expect(messages.Rej), messages.Rej)
