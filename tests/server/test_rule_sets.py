"""A game's rule set (``GameSettings.rules``) on a real server: the same orders adjudicated by
DATC 3.0 and by the ``diplomacy`` package's rules (DATC 4.A.3's land fallback)."""

from __future__ import annotations

from typing import Any

import pytest
import trio
from pydantic import ValidationError

from diplomat.engine.orders import Hold, Move, Order, Result
from diplomat.engine.state import Unit
from diplomat.protocol import messages
from diplomat.server.settings import GameSettings

from .daide_client import MakeServer, WireClient
from .test_game_flow import play_holds

# England's orders (every other power holds): the fleet to the North Sea and the army to
# Yorkshire, then the army "via convoy" to the adjacent London through the North Sea, whose
# fleet does not convoy it.
SCRIPT: dict[tuple[str, str], tuple[Order, ...]] = {
    ("ENG", "S1901M"): (
        Move(Unit("ENG", "F", "LON"), "NTH"),
        Move(Unit("ENG", "A", "LVP"), "YOR"),
        Hold(Unit("ENG", "F", "EDI")),
    ),
    ("ENG", "F1901M"): (
        Move(Unit("ENG", "A", "YOR"), "LON", True, ("NTH",)),
        Hold(Unit("ENG", "F", "NTH")),
        Hold(Unit("ENG", "F", "EDI")),
    ),
}


@pytest.mark.parametrize(("rules", "army"), [("datc", "YOR"), ("package", "LON")])
async def test_a_via_convoy_move_with_no_convoy_by_the_game_rule_set(
    make_server: MakeServer, rules: str, army: str
) -> None:
    server = await make_server(GameSettings(map="standard", max_year=1901, rules=rules))
    clients = [await WireClient.connect(server.address[1]) for _ in range(7)]
    for i, c in enumerate(clients):
        await c.join(f"player{i}")
    logs: list[list[Any]] = [[] for _ in clients]
    async with trio.open_nursery() as n:
        for c, log in zip(clients, logs, strict=True):
            n.start_soon(play_holds, c, log, SCRIPT)
    (row,) = server.store.games()
    assert row.settings["rules"] == rules
    assert row.result is not None and row.result["reason"] == "year limit"
    # The last NOW every player saw: DATC 3.0 keeps the army in Yorkshire (no convoy route),
    # the package's rules move it over land to London.
    for log in logs:
        last = [e for e in log if isinstance(e, messages.Now)][-1]
        assert Unit("ENG", "A", army) in last.units
    ords = [
        o for o in logs[0] if isinstance(o, messages.Ord) and o.turn and o.turn.name == "F1901M"
    ]
    (cto,) = [o for o in ords if isinstance(o.order, Move) and o.order.unit.loc == "YOR"]
    assert isinstance(cto.result, Result)
    assert cto.result.outcome.value == ("BNC" if rules == "datc" else "SUC")


def test_a_game_stored_before_rule_sets_loads_with_datc() -> None:
    stored = GameSettings(map="standard").model_dump()
    del stored["rules"]
    assert GameSettings.model_validate(stored).rules == "datc"
    with pytest.raises(ValidationError, match="unknown rule set 'dpjudge'"):
        GameSettings(map="standard", rules="dpjudge")
