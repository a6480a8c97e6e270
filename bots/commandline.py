"""The command line every bot shares: the parser (connection, game, the bot's own options, and
``--negotiate`` with the personality options for a bot that names a core), the bot it makes,
and ``run``, the ``main`` of a bot module.

    python -m diplomat.bots.dumbbot                      # TCP to 127.0.0.1:16713
    python -m diplomat.bots.dumbbot --host h --port p --power FRA --seed 7
    python -m diplomat.bots.dumbbot --stdio              # how the server's pipe transport runs it
    python -m diplomat.bots.dumbbot --negotiate --pact   # the negotiator over DumbBot's core

A new bot's module ends with ``sys.exit(run(MyBot))``; a bot with a strategic core passes its
:class:`~bots.entry.Entry` instead (``run(ENTRY)``). The transports are :mod:`bots.transport`.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from typing import Any

import trio

from diplomat.bots.base import Bot
from diplomat.bots.entry import Entry
from diplomat.bots.lifeline import from_environment as lifeline_from_environment
from diplomat.bots.negotiator import personality as negotiation
from diplomat.bots.negotiator.negotiator import Negotiator
from diplomat.bots.session import Session
from diplomat.bots.transport import DEFAULT_HOST, RECONNECT_FOR, play_stdio, play_tcp
from diplomat.protocol.frames import DEFAULT_PORT
from diplomat.protocol.tokens import STANDARD

Runnable = type[Bot] | Entry[Any]  # a bot class, or a bot with its strategic core


def entry_of(bot: Runnable) -> Entry[Any]:
    """``bot`` as an entry (a bare class: one that cannot negotiate)."""
    return bot if isinstance(bot, Entry) else Entry(bot)


def _prog(bot: type[Bot]) -> str | None:
    """``python -m NAME`` for the usage line: the module run as ``__main__`` when it is the
    bot's own (``bots.dumbbot`` for ``bots.dumbbot.bot``), else the bot's module."""
    spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    if spec is not None and spec.name:
        name = spec.name.removesuffix(".__main__")
        if bot.__module__ in ("__main__", name) or bot.__module__.startswith(name + "."):
            return f"python -m {name}"
    spec = getattr(sys.modules[bot.__module__], "__spec__", None)
    return f"python -m {spec.name}" if spec is not None else None


def build_parser(runnable: Runnable) -> argparse.ArgumentParser:
    """The bot's command line: connection and game options, the bot's own, and for a bot with
    a strategic core ``--negotiate`` and the personality options."""
    entry = entry_of(runnable)
    bot = entry.bot
    # The docstring's first paragraph, whole (its first line alone may stop mid-sentence).
    first = (sys.modules[bot.__module__].__doc__ or "").strip().split("\n\n")[0]
    parser = argparse.ArgumentParser(
        prog=_prog(bot),
        description=" ".join(first.split()) or f"The {bot.name} DAIDE bot.",
    )
    where = parser.add_argument_group("connection")
    where.add_argument("--host", default=DEFAULT_HOST, help="server host (default %(default)s)")
    where.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help="server port (default %(default)s)"
    )
    where.add_argument(
        "--stdio",
        action="store_true",
        help="speak DAIDE text lines on stdin/stdout instead of TCP (for pipe launchers)",
    )
    game = parser.add_argument_group("game")
    game.add_argument("--name", default=None, help=f"name sent in NME (default {bot.name})")
    game.add_argument("--power", default=None, help="ask for this power (NME 'POW:name'), e.g. FRA")
    game.add_argument(
        "--passcode",
        type=int,
        default=None,
        help="rejoin a started game as --power with this passcode (IAM)",
    )
    where.add_argument(
        "--reconnect",
        type=float,
        default=RECONNECT_FOR,
        metavar="SECONDS",
        help="after losing a TCP connection mid-game, keep trying to reconnect and rejoin "
        "(IAM) for this long (default %(default)s; 0: exit at once)",
    )
    game.add_argument("--seed", type=int, default=None, help="random seed (default: random)")
    game.add_argument("--mdf", action="store_true", help="always ask for the map definition (MDF)")
    parser.add_argument(
        "-v", "--verbose", action="count", default=0, help="log more (-v info, -vv debug)"
    )
    bot.add_arguments(parser)
    if entry.core is not None:
        negotiation.add_arguments(parser)
    return parser


def make_bot(runnable: Runnable, args: argparse.Namespace) -> Bot:
    """The bot of a parsed command line: the bot itself, or with ``--negotiate`` a
    :class:`~bots.negotiator.negotiator.Negotiator` talking over it through its entry's
    strategic core."""
    entry = entry_of(runnable)
    made = entry.bot.from_arguments(args)
    if not getattr(args, "negotiate", False) or entry.core is None:
        return made
    return Negotiator(entry.core(made), negotiation.from_arguments(args))


def start_session(runnable: Runnable, args: argparse.Namespace) -> Session:
    """Logging to stderr at the verbosity asked for, and the bot's session, from its parsed
    command line (:func:`build_parser`): how every bot starts, from its own process or forked
    by the bot host."""
    name = entry_of(runnable).bot.name
    level = (logging.WARNING, logging.INFO, logging.DEBUG)[min(args.verbose, 2)]
    logging.basicConfig(
        level=level, stream=sys.stderr, format=f"%(asctime)s {name} %(levelname)s %(message)s"
    )
    return Session(
        make_bot(runnable, args),
        name=args.name,
        power=args.power,
        passcode=args.passcode,
        seed=args.seed,
        always_mdf=args.mdf,
        # DAIDE's table until the game says otherwise (its RM, or the MAP on a text line).
        table=STANDARD,
    )


def run(runnable: Runnable, argv: Sequence[str] | None = None) -> int:
    """The ``main`` of a bot module: parse the command line, play one game, return the exit
    status (0 when the game ended normally)."""
    parser = build_parser(runnable)
    args = parser.parse_args(argv)
    if args.passcode is not None and args.power is None:
        parser.error("--passcode needs --power")
    session = start_session(runnable, args)
    try:
        if args.stdio:
            return trio.run(play_stdio, session)
        lifeline = lifeline_from_environment()
        return trio.run(play_tcp, session, args.host, args.port, args.reconnect, lifeline)
    except KeyboardInterrupt:
        return 130


__all__ = ["Runnable", "build_parser", "entry_of", "make_bot", "run", "start_session"]
