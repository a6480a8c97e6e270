"""What a bot author sees: the :class:`View` of the game and the :class:`Bot` base class.

A bot is a class with one method, :meth:`Bot.orders`, that turns a view (the position, the
bot's power, the map, a seeded random source) into orders. Everything else (connecting,
the handshake, tracking the game, submitting, answering press) is the library's job
(``bots.session``, ``bots.transport`` and ``bots.commandline``).

Orders a bot leaves out are filled in before submission (:func:`complete_orders`): units hold,
dislodged units disband, unused builds are waived and missing removals are made. DAIDE servers
wait for complete orders when there is no deadline, so a bot that forgets a unit must not
stall its game.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from diplomat.bots.press import Incoming
from diplomat.engine.convoy import convoy_route, with_route
from diplomat.engine.defaults import missing_orders
from diplomat.engine.legal import WAIVE_KEY
from diplomat.engine.map import GameMap
from diplomat.engine.orders import (
    Order,
    Waive,
)
from diplomat.engine.orderset import build_sites
from diplomat.engine.search import SearchPosition
from diplomat.engine.state import Dislodged, GameState, Phase, PhaseKind, Unit
from diplomat.protocol import messages
from diplomat.protocol.mdf import table_for_map
from diplomat.protocol.tokens import TokenTable


@dataclass(frozen=True)
class View:
    """One phase of the game as a bot sees it."""

    state: GameState
    power: str
    rng: random.Random
    results: tuple[
        messages.Ord, ...
    ] = ()  # the results of the phase just processed (every power's)
    disorder: frozenset[str] = frozenset()  # powers whose player has left (CCD)
    variant: messages.Variant | None = None
    # The results of the last movement phase processed (every power's), kept through the
    # retreat and adjustment phases a bot may not be asked about: what opponents ordered.
    movement: tuple[messages.Ord, ...] = ()
    _legal: dict[str, list[Order]] | None = field(default=None, compare=False, repr=False)
    _position: SearchPosition | None = field(default=None, compare=False, repr=False)

    @property
    def map(self) -> GameMap:
        return self.state.map

    @property
    def powers(self) -> tuple[str, ...]:
        """The game's powers, in the map's order."""
        return tuple(self.state.map.powers)

    @property
    def table(self) -> TokenTable:
        """The game's token table (the one its RM gave): what press is written in."""
        return table_for_map(self.state.map)

    @property
    def phase(self) -> Phase:
        return self.state.phase

    @property
    def kind(self) -> PhaseKind:
        """``"movement"``, ``"retreat"`` or ``"adjustment"``."""
        return self.state.phase.kind

    @property
    def units(self) -> list[Unit]:
        """Our units, in location order."""
        return sorted(self.state.units_of(self.power), key=lambda u: u.loc)

    @property
    def dislodged(self) -> list[Dislodged]:
        """Our dislodged units (retreat phases), in location order."""
        own = [d for d in self.state.dislodged.values() if d.unit.power == self.power]
        return sorted(own, key=lambda d: d.unit.loc)

    @property
    def adjustment(self) -> int:
        """Centres minus units: > 0 builds allowed, < 0 removals owed."""
        return self.state.adjustments().get(self.power, 0)

    @property
    def build_sites(self) -> list[str]:
        """Our vacant home centres that we own, in map order."""
        return build_sites(self.state, self.power)

    @property
    def position(self) -> SearchPosition:
        """The state as an ``engine.search.SearchPosition``: its legal-order listing is computed
        once and shared, and it adjudicates candidate order sets quickly."""
        if self._position is None:
            object.__setattr__(self, "_position", SearchPosition(self.state))
        assert self._position is not None
        return self._position

    def legal_orders(self) -> dict[str, list[Order]]:
        """Every legal order of ours, keyed by the unit's location (or build site, or
        ``"WAIVE"``), each written as any DAIDE server takes it: a move by convoy is a
        ``CTO`` with its ``VIA`` route."""
        if self._legal is None:
            raw = self.position.legal(self.power)
            table = {k: daide_orders(self.state, v) for k, v in raw.items()}
            object.__setattr__(self, "_legal", table)
        assert self._legal is not None
        return self._legal


class Bot:
    """Subclass and implement :meth:`orders`. ``name`` and ``version`` go into the NME."""

    name: ClassVar[str] = "Bot"
    version: ClassVar[str] = "1.0"

    def orders(self, view: View) -> Iterable[Order]:
        """The orders for this phase (those left out get the defaults above)."""
        raise NotImplementedError

    def start(self, view: View) -> None:
        """Called once, with the first position, before the first :meth:`orders`."""

    # -- press (see ``bots.press``); a bot that overrides none of these never talks ----------

    def talk_time(self, view: View) -> float:
        """Seconds to talk in this phase before :meth:`orders` is called (0: order at once).
        The library bounds it by the deadline; the orders come sooner when :meth:`ready`."""
        return 0.0

    def phase_start(self, view: View) -> Sequence[messages.Snd]:
        """Press to send as the phase begins (only in games with press)."""
        return ()

    def press(self, view: View, incoming: Incoming) -> Sequence[messages.Snd | messages.Drw] | None:
        """Answer one press message (a ``FRM``): the messages to send (press, or a ``DRW``
        vote to the server), or None for the library's answer (HUH then TRY to anything that
        is not itself a reply)."""
        return None

    def revise(self, view: View) -> bool:
        """Asked after press that came once this phase's orders were sent: True to be asked
        for them again (a late agreement changed them); the new orders replace the old."""
        return False

    def ready(self, view: View) -> bool:
        """Talk is over for this phase: ask for the orders now rather than at the end of
        :meth:`talk_time`."""
        return False

    def game_over(self, summary: messages.Smr | None) -> None:
        """Called when the game ends (``summary`` is the SMR when it came)."""

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        """Add the bot's own command-line options."""

    @classmethod
    def from_arguments(cls, args: argparse.Namespace) -> Bot:
        """Build the bot from the parsed command line."""
        return cls()


# -- orders as DAIDE takes them ----------------------------------------------------------------


def daide_orders(state: GameState, orders: Sequence[Order]) -> list[Order]:
    """``orders`` with every move by convoy written as DAIDE wants it (``CTO dest VIA
    (seas)``; a plain ``MTO`` to a province the army cannot walk to is refused by other
    servers), duplicates removed (but not waives), order kept."""
    out: dict[Order, None] = {}
    waives: list[Order] = []
    for o in orders:
        if isinstance(o, Waive):
            waives.append(o)  # each waives one build: never a duplicate
            continue
        routed = with_route(state, o)
        if routed is None:
            continue  # a move by convoy with no route: not an order anyone would accept
        out[routed] = None
    return [*out, *waives]


def default_orders(state: GameState, power: str) -> list[Order]:
    """What a power that says nothing would do: hold, disband, waive, and remove the units
    farthest from its centres (the civil-disorder rule, by fewest moves)."""
    return complete_orders(state, power, [])


def complete_orders(state: GameState, power: str, orders: Iterable[Order]) -> list[Order]:
    """``orders`` plus the defaults for whatever they leave out (the engine's
    :func:`engine.defaults.missing_orders`). Orders for other powers' units, or for the wrong
    kind of phase, are passed through: the server answers them."""
    given = list(orders)
    return given + missing_orders(state, power, given)


__all__ = [
    "WAIVE_KEY",
    "Bot",
    "View",
    "complete_orders",
    "convoy_route",
    "daide_orders",
    "default_orders",
]
