"""``diplomat render``: the map of a stored game's phase, or of the starting position, as SVG."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from diplomat.cli.options import add_db_option, open_game


def register(sub: Any) -> None:
    p = sub.add_parser(
        "render",
        help="draw the map of a stored game's phase as SVG",
        description="Write the map as a standalone SVG: a stored game's phase with its orders "
        "and results drawn (moves, supports, convoys, bounces, dislodgements, retreats, "
        "builds), or, with no GAME, a map's starting position (--map, default standard).",
    )
    p.add_argument(
        "game",
        nargs="?",
        type=int,
        help="game id (see diplomat games); omitted: the starting position of --map",
    )
    p.add_argument(
        "--phase",
        help="the phase to draw, e.g. S1901M, F1902R, W1902A or 'SPR 1901' (default: the last)",
    )
    add_db_option(p)
    p.add_argument(
        "-o",
        "--output",
        default="-",
        metavar="FILE.svg",
        help="where to write the SVG ('-', the default: standard output)",
    )
    p.add_argument("--no-legend", action="store_true", help="leave out the table of centres")
    p.add_argument(
        "--map",
        default="standard",
        metavar="NAME",
        help="with no GAME: the map whose starting position is drawn (default: standard); "
        "a stored game is drawn on its own map",
    )
    p.set_defaults(handler=_render)


def _render(args: argparse.Namespace) -> int:
    from diplomat.engine.map import MapError, load_map
    from diplomat.engine.state import initial_state
    from diplomat.mapdraw.svg import render_map

    if args.game is None:
        if args.phase is not None:
            print("error: --phase needs a GAME", file=sys.stderr)
            return 2
        try:
            gmap = load_map(args.map)
            svg = render_map(gmap, initial_state(gmap), legend=not args.no_legend)
        except (MapError, ValueError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    else:
        svg_or_status = _render_game(args)
        if isinstance(svg_or_status, int):
            return svg_or_status
        svg = svg_or_status
    return _write(svg, args.output)


def _render_game(args: argparse.Namespace) -> str | int:
    from diplomat.engine.map import MapError, load_map
    from diplomat.engine.orders import Order
    from diplomat.engine.state import GameState, Phase, StateError
    from diplomat.mapdraw.svg import AnyResult, render_map
    from diplomat.protocol import messages
    from diplomat.protocol.codec import parse_text
    from diplomat.protocol.mdf import table_for_map

    opened = open_game(args)
    if opened is None:
        return 2
    store, row = opened
    try:
        states = store.states(row.id)
        if not states:
            print(f"error: game {row.id} has not started: no phase to draw", file=sys.stderr)
            return 2
        names = [name for name, _ in states]
        if args.phase is None:
            index = len(states) - 1
        else:
            try:
                wanted = Phase.parse(args.phase).name
            except StateError as exc:
                print(f"error: {exc}", file=sys.stderr)
                return 2
            if wanted not in names:
                print(
                    f"error: game {row.id} has no phase {wanted} "
                    f"(its phases run from {names[0]} to {names[-1]})",
                    file=sys.stderr,
                )
                return 2
            index = names.index(wanted)
        phase_name, state_json = states[index]
        try:
            gmap = load_map(row.settings.get("map", "standard"))
            state = GameState.from_json(state_json, gmap)
        except MapError as exc:
            print(f"error: the game's map cannot be loaded: {exc}", file=sys.stderr)
            return 2
        except StateError as exc:
            print(f"error: the stored state of {phase_name} is unreadable: {exc}", file=sys.stderr)
            return 2
        results: list[tuple[Order, AnyResult]] = []
        for _, _power, text in store.results(row.id, phase_name):
            try:
                msg = parse_text(text, table_for_map(gmap))
            except Exception as exc:  # a damaged row should not stop the drawing
                print(f"warning: skipping unreadable result {text!r}: {exc}", file=sys.stderr)
                continue
            if isinstance(msg, messages.Ord) and msg.order is not None and msg.result is not None:
                results.append((msg.order, msg.result))
    finally:
        store.close()
    title = f"Game {row.id}: {row.name}"
    return render_map(state.map, state, results=results, title=title, legend=not args.no_legend)


def _write(svg: str, output: str) -> int:
    if output == "-":
        sys.stdout.write(svg)
        sys.stdout.flush()
        return 0
    try:
        Path(output).write_text(svg, encoding="utf-8")
    except OSError as exc:
        print(f"error: cannot write {output}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    return 0
