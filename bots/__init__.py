"""DAIDE bots and the client library they share. A bot is a :class:`Bot` subclass with an
``orders(view)`` method; :func:`run` is its ``main``. See README.md here."""

from bots.base import Bot, View
from bots.client import play, play_stdio, play_tcp, run
from bots.session import Session

__all__ = ["Bot", "Session", "View", "play", "play_stdio", "play_tcp", "run"]
