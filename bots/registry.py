"""The bundled bots: the name a user types (in a tournament line-up, ``diplomat serve
--against``, the web page's opponent list) and how to start that bot as a subprocess.

Every bundled bot is a DAIDE client of its own (``python -m bots.NAME``); the tournament and the
web page read this table and nothing else of ``bots``.
"""

from __future__ import annotations

import shlex
import sys

BUNDLED: tuple[str, ...] = ("holdbot", "randombot", "dumbbot")


def bundled_command(name: str) -> str:
    """The command template (``{seed}`` to fill in) that starts bundled bot ``name`` as a pipe
    bot speaking DAIDE text lines on stdin/stdout."""
    if name not in BUNDLED:
        raise KeyError(name)
    return f"{shlex.quote(sys.executable)} -m bots.{name} --stdio --seed {{seed}}"
