"""``diplomat serve``: the game-master server, and the web page beside it."""

from __future__ import annotations

import argparse
import random
import signal
import sys
from typing import Any

from pydantic import ValidationError

from diplomat.bots.argtypes import count, positive
from diplomat.cli.diplomacy_options import add_diplomacy_options, start_diplomacy
from diplomat.cli.options import (
    add_db_option,
    add_game_options,
    engine_line,
    first_error,
    game_settings,
    open_store,
    port_number,
    press_deadlines,
)
from diplomat.cli.web_options import add_web_options, game_spec
from diplomat.engine.rules import RULE_SETS
from diplomat.server.settings import (
    BYTE_RATE,
    DEFAULT_PORT,
    LOBBY_TIMEOUT,
    MAX_CONNECTIONS,
    PER_ADDRESS,
    REJOIN_GRACE,
    GameSettings,
)
from diplomat.server.store import Store


def register(sub: Any) -> None:
    p = sub.add_parser(
        "serve",
        help="run the game-master server",
        description="Host DAIDE games: clients connect over TCP (DAIDE binary, or DAIDE text "
        "lines for nc); a game is always open for the next seven players to send NME.",
    )
    p.add_argument(
        "--host",
        default="127.0.0.1",
        metavar="ADDRESS",
        help="address to listen on (default 127.0.0.1)",
    )
    p.add_argument(
        "--port",
        type=port_number,
        default=DEFAULT_PORT,
        help=f"TCP port (default {DEFAULT_PORT}; 0 = any free port)",
    )
    add_db_option(p)
    p.add_argument(
        "--rejoin-grace",
        type=float,
        default=REJOIN_GRACE,
        metavar="SECONDS",
        help="after a restart, seconds to wait for players to come back with IAM "
        f"(default {REJOIN_GRACE:g})",
    )
    p.add_argument(
        "--lobby-timeout",
        type=float,
        default=LOBBY_TIMEOUT,
        metavar="SECONDS",
        help="a connection that has joined no game (NME, OBS or IAM) this long after its "
        f"first message is sent OFF and closed (default {LOBBY_TIMEOUT:g})",
    )
    p.add_argument(
        "--per-address",
        type=int,
        default=PER_ADDRESS,
        metavar="N",
        help="connections at once from one address (IPv6: one /64); more are turned away "
        f"with OFF (default {PER_ADDRESS})",
    )
    p.add_argument(
        "--max-connections",
        type=count,
        default=MAX_CONNECTIONS,
        metavar="N",
        help="DAIDE connections at once from all addresses; more are turned away with OFF "
        f"(default {MAX_CONNECTIONS})",
    )
    p.add_argument(
        "--byte-rate",
        type=positive,
        default=BYTE_RATE,
        metavar="BYTES",
        help="bytes a second one DAIDE connection may send after its burst; a faster one is "
        f"read more slowly (default {BYTE_RATE:g})",
    )
    p.add_argument(
        "--seed", type=int, metavar="N", help="random seed (power assignment; never passcodes)"
    )
    p.add_argument(
        "--log-level",
        default="info",
        choices=["debug", "info", "warning", "error"],
        metavar="LEVEL",
        help="debug, info, warning or error (default info)",
    )
    p.add_argument("--log-json", action="store_true", help="log JSON even on a terminal")
    add_game_options(p)
    _add_diplomacy_rules(p)
    add_web_options(p)
    add_diplomacy_options(p)
    p.set_defaults(handler=_serve)


def _add_diplomacy_rules(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--diplomacy-rules",
        choices=sorted(RULE_SETS),
        default="datc",
        help="the rule set of games created by the diplomacy Python package's clients: datc "
        "(the default) or package (the package's own adjudication; docs/engine.md)",
    )


class _Refused(Exception):
    """The command line asks for something the server cannot do (the message says why)."""


def _serve(args: argparse.Namespace) -> int:
    """Check the options, then serve until Ctrl-C or SIGTERM."""
    import trio

    from diplomat.server.logs import configure_logging

    press_deadlines(args)
    try:
        settings, play = _checked(args)
    except _Refused as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    configure_logging(args.log_level, True if args.log_json else None)
    store = open_store(args, must_exist=False)
    if store is None:
        return 2
    try:
        return trio.run(_host, args, store, settings, play)
    except KeyboardInterrupt:
        print("stopped", file=sys.stderr)
        return 0
    except (OSError, ExceptionGroup) as exc:
        # A port in use surfaces from inside the server's nurseries, wrapped in groups.
        error = _os_error(exc)
        if error is None:
            raise
        ports = f"port {args.port}" + ("" if args.no_web else f", web port {args.web_port}")
        print(f"error: cannot listen on {args.host} ({ports}): {error.strerror}", file=sys.stderr)
        return 1
    finally:
        store.close()


def _checked(args: argparse.Namespace) -> tuple[GameSettings, dict[str, Any] | None]:
    """The game settings, and the game --play asks for (checked before the server starts, so
    that a mistake leaves no game behind); :class:`_Refused` for a bad option."""
    from diplomat.engine.map import load_map
    from diplomat.web.hub import read_spec

    try:
        settings = game_settings(args)
    except ValidationError as exc:
        raise _Refused(first_error(exc)) from None
    if args.web_max_games is not None and args.web_max_games < 1:
        raise _Refused("--web-max-games must be at least 1")
    if args.per_address < 1 or not args.lobby_timeout > 0:
        raise _Refused("--per-address and --lobby-timeout must be positive")
    if args.play is None:
        return settings, None
    if args.no_web:
        raise _Refused("--play needs the web page (drop --no-web)")
    gmap = load_map(settings.map)
    try:
        play = game_spec(args, list(gmap.powers), random.Random())
    except ValueError as exc:
        raise _Refused(str(exc) if str(exc).startswith("--") else f"--against: {exc}") from None
    try:
        read_spec(play, gmap)
    except ValueError as exc:
        why = first_error(exc) if isinstance(exc, ValidationError) else str(exc)
        raise _Refused(f"--play: {why}") from None
    return settings, play


async def _host(
    args: argparse.Namespace, store: Store, settings: GameSettings, play: dict[str, Any] | None
) -> int:
    """Run the server (and the web page beside it) until a signal; the exit status."""
    import trio

    from diplomat.server.app import Server

    server = Server(
        store,
        settings,
        host=args.host,
        port=args.port,
        seed=args.seed,
        rejoin_grace=args.rejoin_grace,
        lobby_timeout=args.lobby_timeout,
        per_address=args.per_address,
        max_connections=args.max_connections,
        byte_rate=args.byte_rate,
        diplomacy_rules=args.diplomacy_rules,
    )
    async with trio.open_nursery() as nursery:
        await nursery.start(server.run)
        host, port = server.address
        print(f"diplomat serving DAIDE on {host}:{port} (database {store.path})", flush=True)
        print(engine_line(), file=sys.stderr, flush=True)
        await start_diplomacy(nursery, server, args)
        if not args.no_web:
            try:
                await _start_web(nursery, server, args, play)
            except _Refused as exc:
                print(f"error: {exc}", file=sys.stderr)
                nursery.cancel_scope.cancel()
                return 2
        await _until_signalled(server)
        nursery.cancel_scope.cancel()
    return 0


async def _start_web(
    nursery: Any, server: Any, args: argparse.Namespace, play: dict[str, Any] | None
) -> None:
    """The page attaches to the running server through its public API; --play's game is
    created on it."""
    from diplomat.web.hub import WebHub

    hub = WebHub(
        server,
        max_games=args.web_max_games,
        games_per_address=args.web_games_per_address,
        max_bots=args.web_max_bots,
        hosts=frozenset(h.lower() for h in args.web_host) | _public_host(args.public_url),
        announce=lambda line: print(line, flush=True),
        public=args.public,
        public_url=args.public_url,
        proxies=frozenset(args.web_proxy),
    )
    await nursery.start(hub.run, args.web_port)
    print(f"web page: {hub.url}", flush=True)
    if play is not None:
        try:
            seat = hub.create_game(play)
        except ValueError as exc:
            raise _Refused(f"--play: {exc}") from None
        await hub.open_seats_listening(seat)  # (its open seats' address printed first)
        # Each person's private link (--play once per person): the creator shares them.
        for each in [seat, *hub.people_seats(seat.game_id)]:
            print(f"your game ({each.power}): {hub.url_for(each)}", flush=True)


def _public_host(url: str | None) -> frozenset[str]:
    """The name in --public-url, which the page then answers to (as a --web-host)."""
    from urllib.parse import urlsplit

    name = urlsplit(url).hostname if url else None
    return frozenset([name.lower()]) if name else frozenset()


async def _until_signalled(server: Any) -> None:
    """Ctrl-C and SIGTERM (docker stop) end the server the same clean way: every game's
    clock stops first (no phase is played because its players were disconnected), then OFF
    and FM to every client; the games' state is saved with the time each phase had left."""
    import trio

    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async for signum in signals:
            print(f"stopping ({signal.Signals(signum).name})", file=sys.stderr)
            await server.stop()
            return


def _os_error(exc: BaseException) -> OSError | None:
    if isinstance(exc, OSError):
        return exc
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            found = _os_error(inner)
            if found is not None:
                return found
    return None
