"""Running a bot: the transports (DAIDE binary over TCP, text lines over stdin/stdout) and the
command line every bundled bot shares.

    python -m bots.dumbbot                      # TCP to 127.0.0.1:16713
    python -m bots.dumbbot --host h --port p --power FRA --seed 7
    python -m bots.dumbbot --stdio              # how the server's pipe transport runs it

A new bot's module ends with ``sys.exit(run(MyBot))``. The transports are thin: bytes go to
the protocol's sans-I/O connection, its messages to :class:`~bots.session.Session`, and the
messages that returns back out. Logs go to stderr, never stdout, which may be the wire.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import logging
import math
import os
import sys
from collections.abc import Sequence
from typing import Any

import trio

from bots.base import Bot
from bots.negotiator import personality as negotiation
from bots.negotiator.negotiator import Negotiator
from bots.registry import LIFELINE_ENV
from bots.session import Session
from protocol.connection import (
    ClientConnection,
    Closed,
    ConnectionClosedError,
    Ready,
    Received,
    Send,
    Unparsed,
)
from protocol.frames import DEFAULT_PORT
from protocol.lines import TextConnection
from protocol.tokens import STANDARD

log = logging.getLogger("bots")

DEFAULT_HOST = "127.0.0.1"
READ_SIZE = 65536
RECONNECT_FOR = 120.0  # seconds to keep trying after losing the connection mid-game
RECONNECT_FIRST = 0.25  # first delay before reconnecting; it doubles up to the next
RECONNECT_MAX_DELAY = 8.0

Connection = ClientConnection | TextConnection


class _Wire:
    """A stream and the connection that frames it; sending after the peer has gone is a
    quiet no-op (the session learns of it from the reader)."""

    def __init__(self, stream: trio.abc.Stream, conn: Connection) -> None:
        self.stream = stream
        self.conn = conn
        self.broken = False

    async def write(self, data: bytes) -> None:
        if not data or self.broken:
            return
        try:
            await self.stream.send_all(data)
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            self.broken = True

    async def send(self, messages: Sequence[Any]) -> None:
        for msg in messages:
            if self.broken:
                return
            try:
                data = self.conn.send(msg)
            except ConnectionClosedError:
                self.broken = True  # the server closed first (its FM came in the same read)
                return
            except Exception:
                log.exception("cannot encode %s", type(msg).__name__)
                continue
            await self.write(data)

    async def close(self) -> None:
        await self.write(self.conn.close())
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            await self.stream.aclose()


async def play(session: Session, stream: trio.abc.Stream, conn: Connection) -> int:
    """Play one game over ``stream`` and return the exit status."""
    wire = _Wire(stream, conn)
    if isinstance(conn, ClientConnection):
        await wire.write(conn.start())  # NME waits for the RM (Ready)
    else:
        await wire.send(session.start())
    try:
        while not session.done:
            wakeup = session.wakeup
            if wakeup is not None and session.clock() >= wakeup:
                await wire.send(session.tick())  # a talk window has ended: the orders
                continue
            data = None
            with trio.move_on_after(
                max(0.0, wakeup - session.clock()) if wakeup is not None else math.inf
            ):
                try:
                    data = await stream.receive_some(READ_SIZE)
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                    data = b""
            if data is None:
                await wire.send(session.tick())  # woken up: the orders, if talk is over
                continue
            if data:
                events = conn.receive_bytes(bytes(data))
            elif isinstance(conn, TextConnection):
                events = conn.receive_eof()
            else:
                events = [Closed(None, by_peer=True, reason="connection closed")]
            for event in events:
                if isinstance(event, Received):
                    await wire.send(session.handle(event.message, event.atoms))
                    if isinstance(conn, TextConnection):
                        conn.codec = session.codec  # a variant's names, once the map is known
                elif isinstance(event, Send):
                    await wire.write(event.data)
                elif isinstance(event, Ready):
                    session.set_table(event.table)
                    await wire.send(session.start())
                elif isinstance(event, Unparsed):
                    log.warning("unparsed message from the server: %s", event.reason)
                elif isinstance(event, Closed):
                    why = event.reason
                    if event.error is not None:
                        why = f"{why} (error {event.error!r})"
                    session.connection_closed(why)
                if session.done:
                    break
            # A write that failed (the server closed first) ends nothing by itself: what the
            # server sent before closing (the SMR, OFF) is still to be read.
    finally:
        with trio.CancelScope(shield=True):
            await wire.close()
    return session.exit_status


async def play_tcp(
    session: Session,
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    reconnect: float = RECONNECT_FOR,
    lifeline: int | None = None,
) -> int:
    """Play over TCP in DAIDE's binary form. A connection lost in the middle of the game
    (the server restarted, say) is made again, with backoff, for up to ``reconnect`` seconds,
    and the power taken back with IAM and the passcode of the HLO. ``lifeline``: a file
    descriptor that reads end-of-file when whoever started the bot (a tournament) is gone;
    from then on a lost connection is not made again."""
    try:
        stream = await trio.open_tcp_stream(host, port)
    except OSError as exc:
        log.error("cannot connect to %s:%s: %s", host, port, exc)
        return 1
    gone = trio.Event()
    async with trio.open_nursery() as nursery:
        if lifeline is not None:
            nursery.start_soon(_watch_lifeline, lifeline, gone)
        while True:
            status = await play(session, stream, ClientConnection())
            if reconnect <= 0 or not session.resumable:
                break
            if gone.is_set():
                log.warning("connection lost, and the tournament is gone: not reconnecting")
                break
            log.warning("connection lost: reconnecting to %s:%s as %s", host, port, session.power)
            found = await _reconnect(host, port, reconnect, gone)
            if found is None:
                if gone.is_set():
                    log.warning("the tournament is gone: no more reconnecting")
                else:
                    log.error("could not reconnect within %g s", reconnect)
                break
            stream = found
            session.prepare_rejoin()
        nursery.cancel_scope.cancel()
    return status


async def _reconnect(
    host: str, port: int, within: float, gone: trio.Event
) -> trio.SocketStream | None:
    """A new connection, tried with backoff for ``within`` seconds; None after that, or as
    soon as ``gone`` is set."""
    delay = RECONNECT_FIRST
    with trio.move_on_after(within):
        while True:
            with trio.move_on_after(delay):
                await gone.wait()
            if gone.is_set():
                return None
            try:
                return await trio.open_tcp_stream(host, port)
            except OSError as exc:
                log.info("reconnect failed (%s); next try in %g s", exc, delay)
                delay = min(delay * 2, RECONNECT_MAX_DELAY)
    return None


async def _watch_lifeline(fd: int, gone: trio.Event) -> None:
    """Set ``gone`` when ``fd`` reads end-of-file (nothing is ever written to it)."""
    stream = trio.lowlevel.FdStream(os.dup(fd))
    try:
        while True:
            try:
                if not await stream.receive_some(4096):
                    break
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                break
    finally:
        with trio.CancelScope(shield=True):
            await stream.aclose()
    gone.set()


def lifeline_from_environment() -> int | None:
    """The lifeline a tournament gave this bot (:data:`bots.registry.LIFELINE_ENV`), if any
    and if that file descriptor is open."""
    value = os.environ.get(LIFELINE_ENV)
    if value is None:
        return None
    try:
        fd = int(value)
        os.fstat(fd)
    except (ValueError, OSError):
        log.warning("%s=%r names no open file descriptor: ignored", LIFELINE_ENV, value)
        return None
    return fd


async def play_stdio(session: Session) -> int:
    """Play over stdin/stdout, one message per line in DAIDE text form."""
    # Duplicates, so that closing our streams leaves the process's own descriptors alone.
    reader = trio.lowlevel.FdStream(os.dup(sys.stdin.fileno()))
    writer = trio.lowlevel.FdStream(os.dup(sys.stdout.fileno()))
    stream = trio.StapledStream(writer, reader)
    return await play(session, stream, TextConnection(session.codec.table))


# -- the command line --------------------------------------------------------------------------


def build_parser(bot: type[Bot]) -> argparse.ArgumentParser:
    module = sys.modules[bot.__module__]
    # The docstring's first paragraph, whole (its first line alone may stop mid-sentence).
    first = (module.__doc__ or "").strip().split("\n\n")[0]
    spec = getattr(module, "__spec__", None)  # set under ``python -m``, even for __main__
    parser = argparse.ArgumentParser(
        prog=f"python -m {spec.name}" if spec is not None else None,
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
    if bot.core_adapter is not None:
        negotiation.add_arguments(parser)
    return parser


def make_bot(bot: type[Bot], args: argparse.Namespace) -> Bot:
    """The bot of a parsed command line: ``bot`` itself, or with ``--negotiate`` a
    :class:`~bots.negotiator.negotiator.Negotiator` talking over it as its strategic core
    (the adapter named by ``bot.core_adapter``, loaded by name as the registry loads bots)."""
    made = bot.from_arguments(args)
    if not getattr(args, "negotiate", False) or bot.core_adapter is None:
        return made
    module, _, name = bot.core_adapter.partition(":")
    adapter = getattr(importlib.import_module(module), name)
    return Negotiator(adapter(made), negotiation.from_arguments(args))


def start_session(bot: type[Bot], args: argparse.Namespace) -> Session:
    """Logging to stderr at the verbosity asked for, and the bot's session, from its parsed
    command line (:func:`build_parser`): how every bot starts, from its own process or forked
    by the bot host."""
    level = (logging.WARNING, logging.INFO, logging.DEBUG)[min(args.verbose, 2)]
    logging.basicConfig(
        level=level, stream=sys.stderr, format=f"%(asctime)s {bot.name} %(levelname)s %(message)s"
    )
    return Session(
        make_bot(bot, args),
        name=args.name,
        power=args.power,
        passcode=args.passcode,
        seed=args.seed,
        always_mdf=args.mdf,
        # DAIDE's table until the game says otherwise (its RM, or the MAP on a text line).
        table=STANDARD,
    )


def run(bot: type[Bot], argv: Sequence[str] | None = None) -> int:
    """The ``main`` of a bot module: parse the command line, play one game, return the exit
    status (0 when the game ended normally)."""
    parser = build_parser(bot)
    args = parser.parse_args(argv)
    if args.passcode is not None and args.power is None:
        parser.error("--passcode needs --power")
    session = start_session(bot, args)
    try:
        if args.stdio:
            return trio.run(play_stdio, session)
        lifeline = lifeline_from_environment()
        return trio.run(play_tcp, session, args.host, args.port, args.reconnect, lifeline)
    except KeyboardInterrupt:
        return 130
