"""A random agent written against the ``diplomacy`` package (1.1.2), as a seat of
``diplomat tournament``: it signs in with the package's own client library, joins the given
game as the given power and plays random possible orders until the game ends. Copy it and
replace :func:`choose_orders` with your agent's choice (docs/tournaments.md, "Agents of the
diplomacy package")::

    diplomat tournament randombot:6 \\
        "pkg=$PWD/.venv/bin/python $PWD/examples/package_random_agent.py --host {host}
         --port {diplomacy_port} --game {game_id} --power {power_name} --user {user}
         --password {password} --seed {seed}" --games 7

(each seat runs in a working folder of its own: name the script by its absolute path).

Needs ``pip install diplomacy==1.1.2`` (in the test extra). Exit status 0 when the game has
ended, 2 when it cannot sign in or join (the reason on standard error).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from collections.abc import Generator
from typing import Any

from diplomacy.client.connection import connect
from diplomacy.utils.exceptions import DiplomacyException, GamePhaseException
from tornado import gen, ioloop

POLL = 0.05  # seconds between looks at the game (its notifications update it meanwhile)


def choose_orders(game: Any, rng: random.Random) -> list[str]:
    """This power's orders for the game's current phase: a random possible order for each
    unit; in an adjustment phase as many builds (or removals) as the power is owed, each at
    a location of its own, and a WAIVE for each build it has no place for."""
    power = game.role
    possible = game.get_all_possible_orders()
    locations = [loc for loc in game.get_orderable_locations(power) if possible.get(loc)]
    if not game.get_current_phase().endswith("A"):
        return [rng.choice(possible[loc]) for loc in locations]
    owed = game.get_state()["builds"][power]["count"]
    suffix = " B" if owed > 0 else " D"
    options = [[o for o in possible[loc] if o.endswith(suffix)] for loc in locations]
    options = [choices for choices in options if choices]
    picked = [rng.choice(choices) for choices in rng.sample(options, min(abs(owed), len(options)))]
    return picked + ["WAIVE"] * max(0, owed - len(picked))


@gen.coroutine
def play(args: argparse.Namespace) -> Generator[Any, Any, int]:
    """Sign in, join, and give orders once per phase until the game is over."""
    rng = random.Random(args.seed)
    try:
        connection = yield connect(args.host, args.port)
        channel = yield connection.authenticate(args.user, args.password)
        game = yield channel.join_game(game_id=args.game, power_name=args.power)
    except (DiplomacyException, OSError) as exc:
        print(f"cannot join game {args.game} as {args.power}: {exc}", file=sys.stderr)
        return 2
    print(f"joined game {args.game} as {args.power}", flush=True)
    ordered = None  # the last phase this agent gave its orders for
    while not game.is_game_done:
        phase = game.get_current_phase()
        if game.is_game_active and phase != ordered:
            orders = choose_orders(game, rng)
            try:
                yield game.set_orders(orders=orders, wait=False)
                print(f"{phase}: {' ; '.join(orders) or 'no orders'}", flush=True)
                ordered = phase
            except GamePhaseException:
                pass  # the game has moved on: orders for its new phase once this client has it
            except DiplomacyException as exc:  # orders refused: the others stand
                print(f"{phase}: refused: {exc}", flush=True)
                ordered = phase
        yield gen.sleep(POLL)
    print(f"game over; {args.power} has {len(game.get_centers(args.power))} centres", flush=True)
    return 0


def watch_lifeline() -> None:
    """Exit when the tournament is gone: ``DIPLOMAT_LIFELINE`` names a pipe that reads
    end-of-file once it is (the package's client would otherwise try to reconnect)."""
    fd = os.environ.get("DIPLOMAT_LIFELINE")
    if fd is None or not fd.isdigit():
        return

    def gone(fd: int, events: int) -> None:
        if not os.read(fd, 1):
            print("the tournament is gone", file=sys.stderr, flush=True)
            os._exit(1)

    ioloop.IOLoop.current().add_handler(int(fd), gone, ioloop.IOLoop.READ)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, required=True, help="the diplomacy package's port")
    p.add_argument("--game", required=True, help="the game's id")
    p.add_argument("--power", required=True, help="the power, in the package's names: FRANCE")
    p.add_argument("--user", required=True)
    p.add_argument("--password", required=True)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    watch_lifeline()
    code: int = ioloop.IOLoop.current().run_sync(lambda: play(args))
    return code


if __name__ == "__main__":
    sys.exit(main())
