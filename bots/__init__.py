"""DAIDE bots and the client library they share. A bot is a :class:`Bot` subclass with an
``orders(view)`` method; ``bots.commandline.run`` is its ``main``. See README.md here.

Importing this package (as ``bots.registry`` does for the tournament and the web page) loads
neither the transports nor the negotiator nor any bot."""

from diplomat.bots.compiled import BOTS as _BOTS
from diplomat.engine.compiled import install as _install

_install(_BOTS)  # before any of the compiled modules is imported

from diplomat.bots.base import Bot, View  # noqa: E402
from diplomat.bots.session import Session  # noqa: E402

__all__ = ["Bot", "Session", "View"]
