"""A client of the ``diplomacy`` package (its own, unmodified library, in its Tornado loop: a
subprocess of tests/dipnet/test_restart.py) on either side of a server restart.

``python restart_client.py first PORT``: signs in as ``erin``, creates a game as FRANCE,
prints ``{"game_id", "daide_port"}`` (the test starts the DAIDE bots on that port), waits for
the game to start, gives its first orders holding the phase (``wait=True``: the phase cannot
be processed without it) and prints ``{"ordered"}``. It stays up while the server is killed
and started again: its library reconnects by itself with its token, is brought up to date
when the phase is processed, and it plays random possible orders to the end of the game,
then prints what it saw.

``python restart_client.py second PORT GAME_ID`` (after the restart): a wrong password is
refused, signs in as ``erin`` with her password on a new connection, lists the games, joins
GAME_ID as FRANCE again (a second instance of her seat), finds the orders given before the
restart and says ready for them; prints what it saw once the phase is processed."""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Generator
from typing import Any

from diplomacy.client.connection import connect
from diplomacy.utils.exceptions import PasswordException
from tornado import gen, ioloop

from tests.dipnet.reconnecting_client import play_on

FIRST_ORDERS = ["A PAR - BUR", "A MAR H", "F BRE - MAO"]


def say(data: dict[str, Any]) -> None:
    print(json.dumps(data), flush=True)


@gen.coroutine
def first(port: int) -> Generator[Any, Any, None]:
    conn = yield connect("127.0.0.1", port)
    erin = yield conn.authenticate("erin", "e-pw")
    france = yield erin.create_game(
        map_name="standard", rules=["POWER_CHOICE"], deadline=0, power_name="FRANCE"
    )
    daide_port = yield conn.get_daide_port(france.game_id)
    say({"game_id": france.game_id, "daide_port": daide_port})
    while france.status != "active":
        yield gen.sleep(0.05)
    yield france.set_orders(orders=FIRST_ORDERS, wait=True)
    say({"ordered": FIRST_ORDERS, "phase": france.get_current_phase()})
    while france.get_current_phase() == "S1901M":  # (across the restart)
        yield gen.sleep(0.05)
    log = yield play_on(france, random.Random(11))
    while france.status != "completed":  # (the status comes after the last phase)
        yield gen.sleep(0.05)
    say(
        {
            "log": log,
            "history": [str(p) for p in france.state_history],
            "status": france.status,
            "final": france.get_state()["units"],
        }
    )


@gen.coroutine
def second(port: int, game_id: str) -> Generator[Any, Any, None]:
    conn = yield connect("127.0.0.1", port)
    try:
        yield conn.authenticate("erin", "not her password")
        wrong = "accepted"
    except PasswordException as exc:
        wrong = f"PasswordException: {exc}"
    erin = yield conn.authenticate("erin", "e-pw")
    listed = yield erin.list_games()
    france = yield erin.join_game(game_id=game_id, power_name="FRANCE")
    rejoined = {
        "phase": france.get_current_phase(),
        "status": france.status,
        "orders": sorted(france.get_orders("FRANCE")),
    }
    yield france.no_wait()  # the orders given before the restart are the phase's
    while france.get_current_phase() == "S1901M":
        yield gen.sleep(0.05)
    say(
        {
            "wrong_password": wrong,
            "listed": [
                {"game_id": g.game_id, "status": g.status, "powers": g.controlled_powers}
                for g in listed
            ],
            "rejoined": rejoined,
            "next": france.get_current_phase(),
        }
    )


if __name__ == "__main__":
    mode, port = sys.argv[1], int(sys.argv[2])
    loop = ioloop.IOLoop.current()
    if mode == "first":
        loop.run_sync(lambda: first(port), timeout=300)
    else:
        loop.run_sync(lambda: second(port, sys.argv[3]), timeout=300)
