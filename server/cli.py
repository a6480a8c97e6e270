"""The ``diplomat`` command: one entry point, one subcommand per job.

Each subcommand's work lives in the layer it belongs to; this module only parses arguments and
reports errors (a message on stderr and a non-zero exit status, never a traceback).
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
    from server import cli_daide, cli_engine, cli_server, cli_tournament

    cli_server.register(sub)
    cli_tournament.register(sub)
    cli_engine.register(sub)
    cli_daide.register(sub)
    from server import cli_render

    cli_render.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler: Handler = args.handler
    try:
        return handler(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
