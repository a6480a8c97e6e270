"""Players written against the ``diplomacy`` package's own, unmodified client library, run in its
Tornado loop (a subprocess of the tests: the server is trio). ``python -m
tests.dipnet.package_client PORT`` (from the checkout) signs in, creates a game as FRANCE, has a
second user join as ENGLAND, an observer and the administrator (omniscient) join, starts bundled
DAIDE bots for the other five powers on the game's DAIDE port, then plays random possible orders
(the example agent's choice, examples/package_random_agent.py) with press both ways until the
game ends. It prints one JSON line of what each client saw."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections.abc import Generator
from typing import Any

from diplomacy.client.connection import connect
from diplomacy.communication import requests
from diplomacy.utils.exceptions import GamePhaseException, ResponseException
from tornado import gen, ioloop

from examples.package_random_agent import choose_orders

BOTS = ["dumbbot --negotiate", "randombot", "holdbot", "randombot", "dumbbot"]


@gen.coroutine
def play(game: Any, rng: random.Random, moves: list[str]) -> Generator[Any, Any, None]:
    """Random possible orders for each phase, then ready (no wait), until the game is done."""
    done: list[str] = []
    while not game.is_game_done:
        phase = game.get_current_phase()
        if phase not in done:
            done.append(phase)
            orders = choose_orders(game, rng)
            try:
                yield game.set_orders(orders=orders, wait=False)
            except GamePhaseException:  # the server is not there yet: again
                done.remove(phase)
            except ResponseException as exc:
                moves.append(f"{phase} refused: {exc}")
            else:
                moves.append(f"{phase} {len(orders)} orders")
        yield gen.sleep(0.05)


@gen.coroutine
def main(port: int) -> Generator[Any, Any, None]:
    conn = yield connect("127.0.0.1", port)
    alice = yield conn.authenticate("alice", "a-pw")
    maps = yield alice.get_available_maps()
    france = yield alice.create_game(
        map_name="standard", rules=["POWER_CHOICE", "REAL_TIME"], deadline=0, power_name="FRANCE"
    )
    bob = yield conn.authenticate("bob", "b-pw")
    england = yield bob.join_game(game_id=france.game_id, power_name="ENGLAND")
    carol = yield conn.authenticate("carol", "c-pw")
    observer = yield carol.join_game(game_id=france.game_id)
    root = yield conn.authenticate("root", "root-pw")
    omniscient = yield root.join_game(game_id=france.game_id)
    errors = {}
    for name, attempt in {
        "taken": lambda: carol.join_game(game_id=france.game_id, power_name="FRANCE"),
        "wrong_password": lambda: conn.authenticate("alice", "nope"),
        "no_game": lambda: carol.join_game(game_id="nope"),
        "observer_orders": lambda: observer.set_orders(orders=["A PAR - BUR"]),
    }.items():
        try:
            yield attempt()
            errors[name] = "accepted"
        except ResponseException as exc:
            errors[name] = f"{type(exc).__name__}: {exc}"
    daide_port = yield conn.get_daide_port(france.game_id)
    playable = yield carol.get_playable_powers(game_id=france.game_id)
    games = yield alice.list_games()
    seen: dict[str, list[str]] = {k: [] for k in ("france", "england", "observer")}
    seen.update(observer_press=[], omniscient_press=[])
    france.add_on_game_message_received(lambda g, n: seen["france"].append(n.message.message))
    england.add_on_game_message_received(lambda g, n: seen["england"].append(n.message.message))
    for name, game in {"observer_press": observer, "omniscient_press": omniscient}.items():
        game.add_on_game_message_received(
            lambda g, n, name=name: seen[name].append(
                f"{n.message.sender}>{n.message.recipient}: {n.message.message}"
            )
        )
    observer.add_on_game_processed(lambda g, n: seen["observer"].append(g.get_current_phase()))
    bots = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                f"diplomat.bots.{bot.split()[0]}",
                *bot.split()[1:],
                *("--port", str(daide_port), "--seed", str(k)),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for k, bot in enumerate(BOTS)
    ]
    while france.status != "active":
        yield gen.sleep(0.05)
    try:  # one unreadable order and one illegal one: named, and the legal one is given
        yield france.set_orders(orders=["A PAR - XYZ", "F BRE - MOS", "A MAR H"], wait=True)
        errors["bad_orders"] = "accepted"
    except ResponseException as exc:
        errors["bad_orders"] = f"{type(exc).__name__}: {exc}"
    yield france.send_game_message(
        message=france.new_global_message("Hello from France, everyone.")
    )
    yield france.send_game_message(message=france.new_power_message("ENGLAND", "Channel DMZ?"))
    # One generator each: the orders do not depend on which client's turn comes first.
    everyone = [france, england, observer, omniscient]
    rngs = {"france": random.Random(7), "england": random.Random(8)}
    moves: dict[str, list[str]] = {"france": [], "england": []}
    yield [
        play(france, rngs["france"], moves["france"]),
        play(england, rngs["england"], moves["england"]),
    ]
    # The last phase ("COMPLETED") comes first, then the status: wait for both, for all.
    while not all(g.is_game_done and g.status == "completed" for g in everyone):
        yield gen.sleep(0.05)
    for bot in bots:
        bot.wait(60)
    possible = yield conn.send(
        requests.GetAllPossibleOrders(
            token=alice.token, game_id=france.game_id, game_role="FRANCE", phase="COMPLETED"
        )
    )
    print(
        json.dumps(
            {
                "maps": sorted(maps),
                "playable": sorted(playable),
                "game_id": france.game_id,
                "games": [(g.game_id, g.status) for g in games],
                "errors": errors,
                "moves": moves,
                "seen": seen,
                "phases": [str(p) for p in france.state_history],
                "final": {
                    "france": france.get_state()["units"],
                    "observer": observer.get_state()["units"],
                    "omniscient": omniscient.get_state()["units"],
                    "centers": observer.get_state()["centers"],
                },
                "status": [france.status, observer.status, omniscient.status],
                "possible_after_end": possible.possible_orders,
                "bots": [b.returncode for b in bots],
            }
        )
    )


if __name__ == "__main__":
    ioloop.IOLoop.current().run_sync(lambda: main(int(sys.argv[1])), timeout=300)
