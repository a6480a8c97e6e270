"""``diplomat serve``, ``diplomat games`` and ``diplomat show``."""

from __future__ import annotations

import argparse
import json
import signal
import sys
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from server.settings import DEFAULT_PORT, GameSettings, default_db_path


def add_game_options(p: argparse.ArgumentParser) -> None:
    """The options that set how a game is played (shared with the tournament command)."""
    g = p.add_argument_group("game settings")
    g.add_argument("--map", default="standard", help="map name (default: standard)")
    g.add_argument("--level", type=int, default=0, help="press level LVL (0 = no press)")
    g.add_argument("--mtl", type=int, help="movement deadline in seconds (default: none)")
    g.add_argument("--rtl", type=int, help="retreat deadline in seconds")
    g.add_argument("--btl", type=int, help="build deadline in seconds")
    g.add_argument("--ptl", type=int, help="press stops this many seconds before MTL")
    g.add_argument("--dsd", action="store_true", help="deadlines stop while a player is away")
    g.add_argument("--aoa", action="store_true", help="any orders accepted")
    g.add_argument("--pda", action="store_true", help="partial draws allowed (LVL >= 10)")
    g.add_argument("--npr", action="store_true", help="no press in retreat phases")
    g.add_argument("--npb", action="store_true", help="no press in build phases")
    g.add_argument("--max-year", type=int, help="end the game as a draw after this year")
    g.add_argument(
        "--draw-after",
        type=int,
        metavar="YEARS",
        help="end as a draw when no centre changes hands for this many years",
    )


def game_settings(args: argparse.Namespace) -> GameSettings:
    return GameSettings(
        map=args.map,
        level=args.level,
        move_time=args.mtl,
        retreat_time=args.rtl,
        build_time=args.btl,
        press_time=args.ptl,
        dsd=args.dsd,
        aoa=args.aoa,
        pda=args.pda,
        npr=args.npr,
        npb=args.npb,
        max_year=args.max_year,
        draw_unchanged_years=args.draw_after,
    )


def add_db_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--db",
        type=Path,
        default=None,
        help=f"SQLite database (default: {default_db_path()})",
    )


def register(sub: Any) -> None:
    p = sub.add_parser(
        "serve",
        help="run the game-master server",
        description="Host DAIDE games: clients connect over TCP (DAIDE binary, or DAIDE text "
        "lines for nc); a game is always open for the next seven players to send NME.",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"TCP port (default {DEFAULT_PORT}; 0 = any)"
    )
    add_db_option(p)
    p.add_argument(
        "--rejoin-grace",
        type=float,
        default=60.0,
        help="after a restart, seconds to wait for players to come back with IAM (default 60)",
    )
    p.add_argument("--seed", type=int, help="random seed (passcodes, power assignment)")
    p.add_argument("--log-level", default="info", help="debug, info, warning (default info)")
    p.add_argument("--log-json", action="store_true", help="log JSON even on a terminal")
    add_game_options(p)
    from server.web.cli_web import add_web_options

    add_web_options(p)
    p.set_defaults(handler=_serve)

    p = sub.add_parser("games", help="list stored games", description="List the stored games.")
    add_db_option(p)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=_games)

    p = sub.add_parser(
        "show",
        help="print a stored game's history",
        description="Print a stored game: players, and per phase the orders with their "
        "results and the supply centres.",
    )
    p.add_argument("game", type=int, help="game id (see diplomat games)")
    add_db_option(p)
    p.add_argument("--json", action="store_true", help="print JSON for tools")
    p.set_defaults(handler=_show)


def _open_store(args: argparse.Namespace, must_exist: bool) -> Any:
    from server.store import Store, StoreError

    path = args.db or default_db_path()
    if must_exist and not Path(path).exists():
        print(f"error: no database at {path}", file=sys.stderr)
        return None
    try:
        return Store(path)
    except StoreError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return None


def open_game(args: argparse.Namespace) -> tuple[Any, Any] | None:
    """The store and the row of ``args.game``, or None after printing why not."""
    from server.store import StoreError

    store = _open_store(args, must_exist=True)
    if store is None:
        return None
    try:
        return store, store.game(args.game)
    except StoreError as exc:
        print(f"error: {exc}", file=sys.stderr)
        store.close()
        return None


def _serve(args: argparse.Namespace) -> int:
    import trio

    from server.app import Server
    from server.logs import configure_logging

    try:
        settings = game_settings(args)
    except ValidationError as exc:
        print(f"error: {_first_error(exc)}", file=sys.stderr)
        return 2
    play = None
    if args.play is not None:
        from server.web.cli_web import game_spec

        if args.no_web:
            print("error: --play needs the web page (drop --no-web)", file=sys.stderr)
            return 2
        try:
            play = game_spec(args)
        except ValueError as exc:
            print(f"error: --against: {exc}", file=sys.stderr)
            return 2
    configure_logging(args.log_level, True if args.log_json else None)
    store = _open_store(args, must_exist=False)
    if store is None:
        return 2

    failed: list[int] = []

    async def main() -> None:
        server = Server(
            store,
            settings,
            host=args.host,
            port=args.port,
            seed=args.seed,
            rejoin_grace=args.rejoin_grace,
            web_port=None if args.no_web else args.web_port,
        )
        async with trio.open_nursery() as nursery:
            await nursery.start(server.run)
            host, port = server.address
            print(f"diplomat serving DAIDE on {host}:{port} (database {store.path})", flush=True)
            if server.web is not None:
                print(f"web page: {server.web.url}", flush=True)
                if play is not None:
                    try:
                        seat = server.web.create_game(play)
                    except ValueError as exc:
                        print(f"error: --play: {exc}", file=sys.stderr)
                        failed.append(2)
                        nursery.cancel_scope.cancel()
                        return
                    print(f"your game ({seat.power}): {server.web.url_for(seat)}", flush=True)
            # Ctrl-C and SIGTERM (docker stop) end the server the same clean way: OFF and FM
            # to every client; the games' state is already saved.
            with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
                async for signum in signals:
                    print(f"stopping ({signal.Signals(signum).name})", file=sys.stderr)
                    await server.stop()
                    nursery.cancel_scope.cancel()
                    break

    try:
        trio.run(main)
    except KeyboardInterrupt:
        print("stopped", file=sys.stderr)
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
    return failed[0] if failed else 0


def _os_error(exc: BaseException) -> OSError | None:
    if isinstance(exc, OSError):
        return exc
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            found = _os_error(inner)
            if found is not None:
                return found
    return None


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(x) for x in err.get("loc", ()))
    return f"{where}: {err['msg']}" if where else str(err["msg"])


def _games(args: argparse.Namespace) -> int:
    store = _open_store(args, must_exist=True)
    if store is None:
        return 2
    rows = store.games()
    if args.json:
        print(json.dumps([_game_json(store, r) for r in rows], indent=1))
        return 0
    if not rows:
        print("no games")
        return 0
    print(f"{'id':>5}  {'status':9} {'phase':7} {'result':30} name")
    for r in rows:
        print(f"{r.id:>5}  {r.status:9} {r.phase or '-':7} {_result_text(r.result):30} {r.name}")
    return 0


def _result_text(result: dict[str, Any] | None) -> str:
    if not result:
        return "-"
    if result["kind"] == "solo":
        return f"solo {result['powers'][0]} {result['year']}"
    return f"draw {' '.join(result['powers'])}"[:30]


def _game_json(store: Any, row: Any) -> dict[str, Any]:
    return {
        "id": row.id,
        "name": row.name,
        "status": row.status,
        "phase": row.phase,
        "tournament": row.tournament,
        "settings": row.settings,
        "result": row.result,
        "players": [
            {
                "power": p.power,
                "name": p.name,
                "version": p.version,
                "label": p.label,
                "status": p.status,
                "eliminated": p.eliminated,
            }
            for p in store.players(row.id)
        ],
    }


def _show(args: argparse.Namespace) -> int:
    opened = open_game(args)
    if opened is None:
        return 2
    store, row = opened
    states = store.states(row.id)
    results = store.results(row.id)
    by_phase: dict[str, list[tuple[str, str]]] = {}
    for phase, power, text in results:
        by_phase.setdefault(phase, []).append((power, text))
    press = store.press(row.id)
    if args.json:
        data = _game_json(store, row)
        data["phases"] = [
            {
                "phase": phase,
                "state": state,
                "results": [{"power": p, "ord": t} for p, t in by_phase.get(phase, [])],
            }
            for phase, state in states
        ]
        data["press"] = [
            {
                "phase": p.phase,
                "from": p.sender,
                "to": list(p.recipients),
                "message": p.body,
            }
            for p in press
        ]
        print(json.dumps(data, indent=1))
        return 0
    print(f"game {row.id} ({row.name}): {row.status}, {_result_text(row.result)}")
    settings = ", ".join(f"{k}={v}" for k, v in row.settings.items() if v not in (None, False))
    print(f"settings: {settings}")
    for p in store.players(row.id):
        label = f" [{p.label}]" if p.label else ""
        out = f", eliminated {p.eliminated}" if p.eliminated else ""
        print(f"  {p.power}: {p.name} {p.version}{label} ({p.status}{out})")
    for phase, state in states:
        centres = " ".join(f"{pw}:{len(cs)}" for pw, cs in state["centres"].items() if cs)
        print(f"\n{phase}  centres {centres}")
        for _power, text in by_phase.get(phase, []):
            print(f"  {text}")
        for p in press:
            if p.phase == phase:
                print(f"  press {p.sender} -> {' '.join(p.recipients)}: {p.body}")
    return 0
