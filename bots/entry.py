"""A bot as its command line runs it: the class that plays and, for a bot the negotiator can
talk over (``--negotiate``), the strategic core that wraps it.

Every bundled bot's module names its own as ``ENTRY``, importing its core like any other code
(``bots/dumbbot/__init__.py``: ``ENTRY = Entry(DumbBot, DumbCore)``); its ``__main__`` runs
``run(ENTRY)`` and the registry names the module. The core imports its bot, never the other
way round, so the entry sits beside both.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, TypeVar

from diplomat.bots.base import Bot

if TYPE_CHECKING:
    from diplomat.bots.negotiator.core import Core

B = TypeVar("B", bound=Bot)


@dataclass(frozen=True)
class Entry(Generic[B]):
    """``bot``: the class that plays; ``core``: what makes a strategic core of one of its
    instances for the negotiator (None: the bot cannot negotiate)."""

    bot: type[B]
    core: Callable[[B], Core] | None = None


__all__ = ["Entry"]
