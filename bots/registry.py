"""The bundled bots: the name a user types (in a tournament line-up, ``diplomat serve
--against``, the web page's opponent list), the class that plays it, and how to start it.

Every bundled bot is a DAIDE client of its own. It can be started two ways:

* as a subprocess, ``python -m diplomat.bots.NAME --stdio`` (:func:`bundled_command`), which
  pays the Python start-up and import cost (~0.4 s of CPU) for every seat;
* by a bot host (:class:`~bots.host.BotHost`, re-exported here): one process that has imported
  every bundled bot once and forks one child per seat, each child a separate process on its
  own socket, playing within milliseconds of being asked.

The tournament and the web page read this module and nothing else of ``bots``; importing it
loads no bot, no transport and no negotiator (``tests/test_layout.py`` checks it). To add a
bot, give its module an ``ENTRY`` (:class:`~bots.entry.Entry`: the bot's class and, if it
negotiates, its core) and a ``python -m`` that runs it, and add a :class:`BundledBot` naming
the module to :data:`REGISTRY`; its fixed extra arguments (say ``--think 1``) go in ``args``,
and a line-up can give more (``fast='bordeaux --think 0.5'``).
"""

from __future__ import annotations

import importlib
import shlex
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from diplomat.bots.host import BotHost, HostError, HostProcess
from diplomat.bots.lifeline import LIFELINE_ENV

if TYPE_CHECKING:
    from diplomat.bots.base import Bot
    from diplomat.bots.entry import Entry


@dataclass(frozen=True)
class BundledBot:
    name: str  # what users type
    module: str  # the module whose ``python -m`` runs it, and whose ``ENTRY`` is the bot
    args: tuple[str, ...] = ()  # command-line arguments it is always given
    negotiates: bool = False  # takes --negotiate: talks (press levels 10 to 30)

    def entry(self) -> Entry[Any]:
        """The bot and its core, from its module (imported now: the registry itself imports
        no bot)."""
        entry: Entry[Any] = importlib.import_module(self.module).ENTRY
        return entry

    def bot_class(self) -> type[Bot]:
        return self.entry().bot


REGISTRY: dict[str, BundledBot] = {
    b.name: b
    for b in (
        BundledBot("holdbot", "diplomat.bots.holdbot"),
        BundledBot("randombot", "diplomat.bots.randombot"),
        BundledBot("dumbbot", "diplomat.bots.dumbbot", negotiates=True),
        BundledBot("bordeaux", "diplomat.bots.bordeaux", negotiates=True),
    )
}
BUNDLED: tuple[str, ...] = tuple(REGISTRY)
NEGOTIATORS: tuple[str, ...] = tuple(b.name for b in REGISTRY.values() if b.negotiates)
DEFAULT_BOT = "dumbbot"  # the opponent a web game's seat gets when none is named

# LIFELINE_ENV: the environment variable a tournament gives the TCP bots it starts, naming
# their lifeline (``bots.lifeline``).


def bundled_command(name: str, extra: Sequence[str] = ()) -> str:
    """The command template (``{seed}`` to fill in) that starts bundled bot ``name`` as a pipe
    bot speaking DAIDE text lines on stdin/stdout."""
    bot = REGISTRY[name]
    words = [sys.executable, "-m", bot.module, "--stdio", *bot.args, *extra]
    return " ".join(shlex.quote(w) for w in words) + " --seed {seed}"


__all__ = [
    "BUNDLED",
    "DEFAULT_BOT",
    "LIFELINE_ENV",
    "NEGOTIATORS",
    "REGISTRY",
    "BotHost",
    "BundledBot",
    "HostError",
    "HostProcess",
    "bundled_command",
]
