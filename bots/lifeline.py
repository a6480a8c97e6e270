"""A tournament's lifeline to the TCP bots it starts.

A bot that a tournament starts (a command template with ``{port}``) finds in the environment
variable :data:`LIFELINE_ENV` the number of a file descriptor it inherited: the read end of a
pipe whose other end only the tournament holds. It reads end-of-file there when the
tournament's game is gone (ended, or the tournament killed), and the bot then stops trying to
reconnect (:func:`bots.transport.play_tcp`). The tournament sets the variable
(``bots.registry`` names it for it); the bot reads it here.
"""

from __future__ import annotations

import logging
import os

import trio

log = logging.getLogger("bots")

LIFELINE_ENV = "DIPLOMAT_LIFELINE"


async def watch(fd: int, gone: trio.Event) -> None:
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


def from_environment() -> int | None:
    """The lifeline a tournament gave this bot (:data:`LIFELINE_ENV`), if any and if that file
    descriptor is open."""
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


__all__ = ["LIFELINE_ENV", "from_environment", "watch"]
