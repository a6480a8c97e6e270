"""A phase owed only by powers in civil disorder is played at once in a game without deadlines
(the rules: a power in civil disorder is given the default orders), not when some player next
happens to send a message."""

from __future__ import annotations

import math

from diplomat.protocol import messages
from diplomat.protocol.codec import codec_for
from diplomat.protocol.mdf import table_for_map
from diplomat.server.effects import Effects, Tell
from diplomat.server.game import GameMaster
from diplomat.server.settings import GameSettings


def _hlo_power(effects: Effects, client: int) -> str:
    hlo = next(
        e.message
        for e in effects
        if isinstance(e, Tell) and e.client == client
        if isinstance(e.message, messages.Hlo)
    )
    assert hlo.power is not None
    return hlo.power


def test_a_retreat_owed_only_by_an_absent_power_is_played_at_once() -> None:
    settings = GameSettings(max_year=1902, map="standard")  # no deadlines
    master = GameMaster(1, settings)
    codec = codec_for(table_for_map(master.map))
    effects: Effects = []
    for client in range(1, 8):
        effects += master.add_player(client, f"p{client}", "1", now=0.0)
    for client in range(1, 8):
        effects += master.accept_map(client, now=0.0)
    clients = {_hlo_power(effects, c): c for c in range(1, 8)}
    austria = clients["AUS"]
    for power, client in clients.items():
        if power != "AUS":
            master.disconnect(client, 1.0)  # civil disorder: their units hold

    def say(text: str, now: float) -> None:
        master.handle(austria, codec.parse_text(text), now)

    say("SUB ((AUS AMY VIE) MTO TYR) ((AUS AMY BUD) HLD) ((AUS FLT TRI) HLD)", 2.0)
    assert master.state.phase.name == "F1901M"
    say(
        "SUB ((AUS FLT TRI) MTO VEN) ((AUS AMY TYR) SUP (AUS FLT TRI) MTO VEN) ((AUS AMY BUD) HLD)",
        3.0,
    )
    # Italy's army in Venice is dislodged: the retreat is Italy's alone, and Italy is away.
    assert master.state.phase.name == "F1901R"
    assert master.status().owed == frozenset({"ITA"})
    assert master.next_wakeup() == -math.inf
    master.on_time(4.0)
    assert master.state.phase.name == "W1901A"  # Austria builds in its free home centre
    assert master.status().owed == frozenset({"AUS"})
    assert master.next_wakeup() is None  # now the game waits for Austria's build, however long
