"""Press relay at level 10+, gunboat silence, and draws."""

from __future__ import annotations

from protocol import messages as m
from server.app import Server
from server.settings import GameSettings

from .daide_client import MakeServer, WireClient


async def _seven(
    server: Server, text: bool = False
) -> tuple[list[WireClient], dict[str, WireClient], list[m.Hlo]]:
    clients = [await WireClient.connect(server.address[1], text=text) for _ in range(7)]
    for i, c in enumerate(clients):
        await c.join(f"p{i}")
    hlos = [await c.expect(m.Hlo) for c in clients]
    return clients, {h.power: c for h, c in zip(hlos, clients, strict=True)}, hlos


async def test_press_is_relayed_to_recipients_only(make_server: MakeServer) -> None:
    server = await make_server(GameSettings(level=20, max_year=1901, map="standard"))
    _, by_power, _ = await _seven(server)
    eng, fra, ger = by_power["ENG"], by_power["FRA"], by_power["GER"]
    await eng.send("SND (FRA GER) (PRP (PCE (ENG FRA GER)))")
    assert await eng.expect(m.Yes) == m.Yes(
        m.Snd(("FRA", "GER"), m.Prp(m.Pce(("ENG", "FRA", "GER"))))
    )
    for c in (fra, ger):
        frm = await c.expect(m.Frm)
        assert frm.sender == "ENG" and frm.recipients == ("FRA", "GER")
    # Above the game's level: HUH with ERR before the first construct it does not allow.
    await eng.send("SND (FRA) (PRP (AND (PCE (ENG FRA)) (DRW)))")
    huh = await eng.expect(m.Huh)
    assert huh.tokens[huh.tokens.index("ERR") + 1] == "AND"
    # Sender among the recipients: REJ.
    await eng.send("SND (ENG FRA) (PRP (PCE (ENG FRA)))")
    assert isinstance(await eng.expect(m.Rej), m.Rej)
    # TRY is trimmed to the game's level before it is forwarded.
    await fra.send("SND (ENG) (TRY (PRP PCE XDO AND QRY))")
    await fra.expect(m.Yes)
    frm = await eng.expect(m.Frm)
    assert frm.press == m.Try(("PRP", "PCE", "XDO"))
    rows = server.store.press(server.store.games()[0].id)
    assert [(r.sender, r.recipients) for r in rows] == [("ENG", ("FRA", "GER")), ("FRA", ("ENG",))]


async def test_press_to_a_power_in_civil_disorder_is_not_delivered(make_server: MakeServer) -> None:
    server = await make_server(GameSettings(level=10, max_year=1901, map="standard"))
    _, by_power, _ = await _seven(server)
    await by_power["TUR"].aclose()
    eng = by_power["ENG"]
    await eng.expect(m.Ccd)
    await eng.send("SND (FRA TUR) (PRP (PCE (ENG FRA TUR)))")
    assert await eng.expect(m.Ccd) == m.Ccd("TUR")


async def test_gunboat_has_no_press_at_all(make_server: MakeServer) -> None:
    server = await make_server(GameSettings(level=0, max_year=1901, map="standard"))
    _, by_power, _ = await _seven(server, text=True)
    eng = by_power["ENG"]
    await eng.send("SND (FRA) (PRP (PCE (ENG FRA)))")
    huh = await eng.expect(m.Huh)
    assert "ERR" in huh.tokens
    await eng.send("ADM ('me') ('hello')")
    assert isinstance(await eng.expect(m.Rej), m.Rej)


async def test_a_draw_needs_every_survivor(make_server: MakeServer) -> None:
    server = await make_server(GameSettings(max_year=1910, map="standard"))
    clients, by_power, _ = await _seven(server)
    for c in list(by_power.values())[:-1]:
        await c.send("DRW")
        assert await c.expect(m.Yes) == m.Yes(m.Drw())
    last = list(by_power.values())[-1]
    await last.send("NOT (DRW)")
    assert isinstance(await last.expect(m.Yes), m.Yes)
    await last.send("DRW")
    for c in clients:
        assert await c.expect(m.Drw) == m.Drw()
        smr = await c.expect(m.Smr)
        assert len(smr.entries) == 7
        await c.expect(m.Off)
    result = server.store.games()[0].result
    assert result is not None and result["kind"] == "draw" and result["reason"] == "agreed"


async def test_partial_draw_with_pda(make_server: MakeServer) -> None:
    server = await make_server(GameSettings(level=10, pda=True, max_year=1910, map="standard"))
    clients, by_power, _ = await _seven(server)
    await by_power["ENG"].send("DRW (ENG FRA)")
    assert isinstance(await by_power["ENG"].expect(m.Yes), m.Yes)
    await by_power["FRA"].send("DRW (FRA ENG ENG)")  # the same power twice
    assert isinstance(await by_power["FRA"].expect(m.Rej), m.Rej)
    for c in by_power.values():
        await c.send("DRW (FRA ENG)")
    for c in clients:
        assert await c.expect(m.Drw) == m.Drw(("ENG", "FRA"))
    result = server.store.games()[0].result
    assert result is not None and result["powers"] == ["ENG", "FRA"]
    # Without PDA a list is refused.
    server2 = await make_server(GameSettings(level=10, max_year=1910, map="standard"))
    _, by_power2, _ = await _seven(server2)
    await by_power2["ENG"].send("DRW (ENG FRA)")
    assert isinstance(await by_power2["ENG"].expect(m.Rej), m.Rej)
