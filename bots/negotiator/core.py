"""What the negotiator may ask a strategic core: a few concrete questions, nothing else.

The negotiator knows neither the map nor the rules (the founding documents' "upper brain"). It
asks a :class:`Core`:

* :meth:`Core.value`: what the position is worth to each alliance of a partition of the powers
  (in supply centres, on the core's own scale);
* :meth:`Core.best`: the best orders for an alliance (ours and our allies' units) under a
  :class:`Plan` of constraints (allies, demilitarised zones, required and forbidden orders),
  and what the alliance's position is worth after them;
* :meth:`Core.silent`: the orders the core plays on its own (level 0: exactly those);
* :meth:`Core.tension`: how much two powers threaten each other's centres (what peace
  between them would free);
* :meth:`Core.border`: the provinces a demilitarised zone between two powers would cover;
* :meth:`Core.near_solo`: whether a power is too close to a solo for anyone to help it;
* :meth:`Core.think`: how long a whole decision takes (what talk windows are measured in).

The cores that ship with the bots live next to them (``bots.bordeaux.core``,
``bots.dumbbot.core``); a new one implements this protocol, and ``bots.corekit`` answers the
board questions from the map for any core that wants them. ``docs/negotiation.md``, "Writing a
core", says what each question means.

What a DMZ or an XDO costs is a question built on :meth:`Core.best`: :func:`cost` is the value
of the best orders without it less the value with it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

from diplomat.bots.base import View
from diplomat.engine.orders import Order, Waive, order_power
from diplomat.engine.state import GameState
from diplomat.protocol import agreements as law


@dataclass(frozen=True)
class Plan:
    """Constraints for the core. ``dmz_powers``: whom the zones bind (besides us);
    ``friends``: powers at peace or allied with us, whose units and centres no member of the
    alliance attacks (:func:`protected`)."""

    allies: frozenset[str] = frozenset()
    friends: frozenset[str] = frozenset()
    dmz: frozenset[str] = frozenset()
    dmz_powers: frozenset[str] = frozenset()
    required: tuple[Order, ...] = ()
    forbidden: frozenset[Order] = field(default_factory=frozenset)

    def plus(
        self,
        *,
        dmz: frozenset[str] = frozenset(),
        dmz_powers: frozenset[str] = frozenset(),
        required: Sequence[Order] = (),
        allies: frozenset[str] = frozenset(),
    ) -> Plan:
        """This plan with more constraints (a required order replaces one for the same
        unit)."""
        units = {o.unit for o in required if not isinstance(o, Waive)}
        kept = tuple(o for o in self.required if getattr(o, "unit", None) not in units)
        return replace(
            self,
            allies=self.allies | allies,
            dmz=self.dmz | dmz,
            dmz_powers=self.dmz_powers | dmz_powers,
            required=kept + tuple(required),
        )


@dataclass
class Answer:
    """The core's best orders for an alliance and the alliance's value after them."""

    orders: list[Order]
    value: float

    def of(self, power: str) -> list[Order]:
        return [o for o in self.orders if order_power(o) == power]


class Core(Protocol):
    """A strategic core. ``share``: the fraction of the core's thinking budget a question may
    take (1: a whole decision's worth)."""

    name: str

    def value(self, view: View, groups: Sequence[frozenset[str]]) -> list[float]: ...

    def best(self, view: View, plan: Plan, share: float) -> Answer: ...

    def silent(self, view: View) -> list[Order]: ...

    def tension(self, view: View, a: str, b: str) -> float:
        """How much ``a`` and ``b`` threaten each other (centres within reach)."""
        ...

    def border(self, view: View, a: str, b: str) -> list[str]:
        """The provinces a DMZ between ``a`` and ``b`` would cover, best first: empty ones,
        no supply centres, that both sides' units can reach (the negotiator offers the
        first few)."""
        ...

    def near_solo(self, view: View, power: str) -> bool:
        """Is ``power`` so close to a solo (or so far ahead of the rest, and of
        ``view.power``) that nobody should ally with it, or agree anything with it?"""
        ...

    def think(self) -> float:
        """Seconds a whole decision takes (what talk windows are measured in)."""
        ...


def protected(state: GameState, power: str, friends: frozenset[str]) -> frozenset[str]:
    """The provinces ``power`` must not attack by the law of agreements
    (:func:`protocol.agreements.protected`): another friend's unit or centre."""
    return frozenset(law.protected(state, power, friends))


def cost(core: Core, view: View, base: Plan, extra: Plan, share: float) -> float:
    """What adding ``extra`` to ``base`` costs our alliance (value lost; negative: a gain)."""
    without = core.best(view, base, share).value
    with_it = core.best(
        view,
        base.plus(
            dmz=extra.dmz,
            dmz_powers=extra.dmz_powers,
            required=extra.required,
            allies=extra.allies,
        ),
        share,
    ).value
    return without - with_it


__all__ = ["Answer", "Core", "Plan", "cost", "protected"]
