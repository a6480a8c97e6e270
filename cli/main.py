"""The ``diplomat`` command: one entry point, one subcommand per job.

Each subcommand's work lives in the package it belongs to; the modules of ``cli/`` only parse
arguments, wire the packages together and report errors (a message on stderr and a non-zero
exit status, never a traceback).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

Handler = Callable[[argparse.Namespace], int]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="diplomat",
        description="Game-master server and tools for computer Diplomacy (DAIDE).",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    from diplomat.cli import daide, engine, games, maps, render, serve, tournament, tune

    serve.register(sub)
    games.register(sub)
    tournament.register(sub)
    tune.register(sub)
    engine.register(sub)
    daide.register(sub)
    render.register(sub)
    maps.register(sub)
    for command in sub.choices.values():
        command.set_defaults(command_parser=command)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        # Told by the subcommand, with its own usage (not the top-level one).
        args.command_parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    handler: Handler = args.handler
    if isinstance(getattr(args, "map", None), str):
        # --map FILE.mdf: the variant's DAIDE files, imported into the project's format.
        from diplomat.cli.maps import resolve_map_option
        from diplomat.engine.map import MapError
        from diplomat.protocol.mapfiles import VariantError

        try:
            args.map = resolve_map_option(args.map)
        except (OSError, VariantError, MapError) as exc:
            print(f"error: --map: {exc}", file=sys.stderr)
            return 2
    try:
        return handler(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
