"""Ordering by clicking: which unit is being ordered, what the next click means, and what the
page may offer.

The page only reports clicks ("PAR", "STP/NC") and menu choices ("support"); everything it
shows next (the outlined choices, the menu, the prompt) comes from here, and every choice comes
from :func:`engine.legal.legal_orders`, so the page never offers an order the engine would
refuse and no rule is written twice. A finished order is handed back to be sent to the game as
``SUB``; the game's answer (THX) and the book it keeps stay the truth.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, get_args

from diplomat.engine.legal import WAIVE_KEY, legal_orders
from diplomat.engine.map import coast_of, province_of
from diplomat.engine.orders import (
    Build,
    Convoy,
    Disband,
    Hold,
    Move,
    Order,
    Remove,
    Retreat,
    SupportHold,
    SupportMove,
    Waive,
)
from diplomat.engine.state import GameState, Unit

Mode = Literal["move", "via", "support", "convoy"]
_MODES: dict[str, Mode] = {mode: mode for mode in get_args(Mode)}  # menu item -> mode
Action = tuple[Literal["sub", "not"], Order]

COAST_NAMES = {"NC": "north coast", "SC": "south coast", "EC": "east coast", "WC": "west coast"}


@dataclass(frozen=True)
class MenuItem:
    id: str
    label: str


@dataclass
class Offer:
    """What the page shows for the order being built."""

    selected: list[str] = field(default_factory=list)  # locations outlined as "being ordered"
    highlight: list[str] = field(default_factory=list)  # what a click may choose
    menu: list[MenuItem] = field(default_factory=list)
    prompt: str = ""


def describe_unit(unit: Unit) -> str:
    return f"{'army' if unit.type == 'A' else 'fleet'} in {unit.loc}"


class OrderBuilder:
    """The click-by-click state of one power's ordering in one phase."""

    def __init__(self, state: GameState, power: str) -> None:
        self.state = state
        self.power = power
        self.kind = state.phase.kind
        self.legal: dict[str, list[Order]] = legal_orders(state, power)
        # A click names a province (or a coast); the legal lists are keyed by location.
        self.keys: dict[str, str] = {province_of(k): k for k in self.legal if k != WAIVE_KEY}
        self.key: str | None = None  # the location being ordered
        self.mode: Mode = "move"
        self.target: Unit | None = None  # the unit supported or convoyed
        self.coasts: list[Order] = []  # the same click allows several coasts: pick one

    # -- input -------------------------------------------------------------------------------

    def reset(self) -> None:
        self.key = None
        self.mode = "move"
        self.target = None
        self.coasts = []

    def select(self, loc: str) -> None:
        """Start ordering the unit (or build site) at ``loc``, whatever was under way."""
        self._select(province_of(loc.upper()))

    def click(self, loc: str, mine: Mapping[str, Order]) -> Action | None:
        """A click on a province, coast or unit. Returns an order to give or withdraw, or
        None when the click only moved the selection along."""
        loc = loc.upper()
        prov = province_of(loc)
        if self.coasts:
            picked = [o for o in self.coasts if _dest(o) == loc]
            self.coasts = []
            if picked:
                return self._done(("sub", picked[0]))
        if self.kind == "adjustment":
            return self._click_adjustment(loc, prov, mine)
        if self.key is None:
            return self._select(prov)
        if self.kind == "retreat":
            return self._click_retreat(loc, prov)
        return self._click_movement(loc, prov)

    def choose(self, item: str, mine: Mapping[str, Order]) -> Action | None:
        """A menu choice (ids as in :meth:`offer`)."""
        if item == "cancel":
            self.reset()
            return None
        if item == "waive":
            waives = self.legal.get(WAIVE_KEY, [])
            return self._done(("sub", waives[0])) if waives else None
        if self.key is None:
            return None
        orders = self.legal.get(self.key, [])
        prov = province_of(self.key)
        if item == "clear":
            given = mine.get(prov)
            return self._done(("not", given)) if given is not None else None
        if item == "hold":
            return self._first(orders, Hold)
        if item == "disband":
            return self._first(orders, Disband)
        if item.startswith("build:"):
            index = int(item.partition(":")[2]) if item[6:].isdigit() else -1
            builds = [o for o in orders if isinstance(o, Build)]
            return self._done(("sub", builds[index])) if 0 <= index < len(builds) else None
        mode = _MODES.get(item)
        if mode is not None:
            self.mode = mode
            self.target = None
            self.coasts = []
        return None

    # -- what to show --------------------------------------------------------------------------

    def offer(self, mine: Mapping[str, Order], waives: int = 0) -> Offer:
        if self.kind == "adjustment":
            return self._offer_adjustment(mine, waives)
        if self.coasts:
            return Offer(
                selected=[self.key] if self.key else [],
                highlight=[_dest(o) for o in self.coasts],
                menu=[MenuItem("cancel", "Cancel")],
                prompt="Which coast? Click one of the circled coasts.",
            )
        if self.key is None:
            todo = [k for p, k in self.keys.items() if p not in mine]
            if not self.keys:
                return Offer(prompt="You have nothing to order in this phase.")
            verb = "retreat" if self.kind == "retreat" else "order"
            if todo:
                prompt = f"Click one of your units to {verb} it."
            else:
                prompt = "Every unit has an order. Press Ready, or click a unit to change it."
            return Offer(highlight=todo, prompt=prompt)
        unit = self._unit()
        orders = self.legal[self.key]
        menu: list[MenuItem] = []
        name = describe_unit(unit)
        if self.kind == "retreat":
            menu.append(MenuItem("disband", "Disband"))
            if province_of(self.key) in mine:
                menu.append(MenuItem("clear", "Remove order"))
            menu.append(MenuItem("cancel", "Cancel"))
            dests = [o.dest for o in orders if isinstance(o, Retreat)]
            prompt = (
                f"Retreat the {name}: click where it goes, or disband it."
                if dests
                else f"The {name} has nowhere to go: it must disband."
            )
            return Offer([self.key], dests, menu, prompt)
        menu.append(MenuItem("hold", "Hold"))
        menu.append(MenuItem("move", "Move"))
        if any(isinstance(o, Move) and o.convoy for o in orders):
            menu.append(MenuItem("via", "Move by convoy"))
        if any(isinstance(o, SupportHold | SupportMove) for o in orders):
            menu.append(MenuItem("support", "Support"))
        if any(isinstance(o, Convoy) for o in orders):
            menu.append(MenuItem("convoy", "Convoy"))
        if province_of(self.key) in mine:
            menu.append(MenuItem("clear", "Remove order"))
        menu.append(MenuItem("cancel", "Cancel"))
        if self.mode in ("move", "via"):
            dests = [o.dest for o in self._moves()]
            how = " by convoy" if self.mode == "via" else ""
            prompt = f"Move the {name}{how}: click its destination (click the unit to hold)."
            return Offer([self.key], dests, menu, prompt)
        if self.target is None:
            units = self._helpable()
            what = "support" if self.mode == "support" else "convoy"
            return Offer(
                [self.key],
                [u.loc for u in units],
                menu,
                f"The {name} will {what}: click the unit it {what}s.",
            )
        dests = self._helped_dests()
        if self.mode == "support":
            prompt = (
                f"Support the {describe_unit(self.target)}: click where it moves, "
                "or click it to support it holding."
            )
        else:
            prompt = f"Convoy the {describe_unit(self.target)}: click where it goes."
        return Offer([self.key, self.target.loc], dests, menu, prompt)

    # -- movement ------------------------------------------------------------------------------

    def _select(self, prov: str) -> Action | None:
        key = self.keys.get(prov)
        self.reset()
        if key is not None:
            self.key = key
        return None

    def _unit(self) -> Unit:
        assert self.key is not None
        order = self.legal[self.key][0]
        assert not isinstance(order, Waive)
        return order.unit

    def _moves(self) -> list[Move]:
        assert self.key is not None
        via = self.mode == "via"
        return [o for o in self.legal[self.key] if isinstance(o, Move) and o.convoy == via]

    def _click_movement(self, loc: str, prov: str) -> Action | None:
        assert self.key is not None
        orders = self.legal[self.key]
        here = province_of(self.key)
        if self.mode in ("move", "via"):
            if prov == here:
                return self._first(orders, Hold)
            found = self._pick([o for o in self._moves()], loc, prov)
            if found is not None:
                return found
            if self.coasts:
                return None
            return self._select(prov)
        if self.target is None:
            for u in self._helpable():
                if u.province == prov:
                    self.target = u
                    return None
            return self._select(prov)
        target = self.target
        if prov == target.province and self.mode == "support":
            for o in orders:
                if isinstance(o, SupportHold) and o.target == target:
                    return self._done(("sub", o))
        helps = [o for o in orders if isinstance(o, SupportMove | Convoy) and o.target == target]
        found = self._pick(helps, loc, prov)
        if found is not None or self.coasts:
            return found
        for u in self._helpable():  # another unit to help instead
            if u.province == prov:
                self.target = u
                return None
        return self._select(prov)

    def _helpable(self) -> list[Unit]:
        assert self.key is not None
        support = self.mode == "support"
        seen: dict[str, Unit] = {}
        for o in self.legal[self.key]:
            if (support and isinstance(o, SupportHold | SupportMove)) or (
                not support and isinstance(o, Convoy)
            ):
                seen.setdefault(o.target.province, o.target)
        return list(seen.values())

    def _helped_dests(self) -> list[str]:
        assert self.key is not None and self.target is not None
        out: list[str] = []
        for o in self.legal[self.key]:
            if isinstance(o, SupportHold) and o.target == self.target:
                out.append(self.target.loc)
            elif isinstance(o, SupportMove | Convoy) and o.target == self.target:
                out.append(o.dest)
        return list(dict.fromkeys(out))

    def _pick(self, options: Sequence[Order], loc: str, prov: str) -> Action | None:
        """The option a click on ``loc`` means; several coasts: ask which."""
        hits = [o for o in options if province_of(_dest(o)) == prov]
        if "/" in loc:
            exact = [o for o in hits if _dest(o) == loc]
            hits = exact or hits
        if not hits:
            return None
        dests = list(dict.fromkeys(_dest(o) for o in hits))
        if len(dests) > 1:
            self.coasts = [next(o for o in hits if _dest(o) == d) for d in dests]
            return None
        return self._done(("sub", hits[0]))

    # -- retreats ------------------------------------------------------------------------------

    def _click_retreat(self, loc: str, prov: str) -> Action | None:
        assert self.key is not None
        retreats = [o for o in self.legal[self.key] if isinstance(o, Retreat)]
        found = self._pick(retreats, loc, prov)
        if found is not None or self.coasts:
            return found
        return self._select(prov)

    # -- adjustments ---------------------------------------------------------------------------

    def _click_adjustment(self, loc: str, prov: str, mine: Mapping[str, Order]) -> Action | None:
        key = self.keys.get(prov)
        if key is None:
            self.reset()
            return None
        orders = self.legal[key]
        given = mine.get(prov)
        if isinstance(orders[0], Remove):
            if given is not None:
                return self._done(("not", given))
            return self._done(("sub", orders[0]))
        builds = [o for o in orders if isinstance(o, Build)]
        if given is not None or (len(builds) > 1 and "/" not in loc):
            self.reset()
            self.key = key
            return None
        if "/" in loc:
            builds = [o for o in builds if o.unit.loc == loc] or builds
        if len(builds) == 1 or "/" in loc:
            return self._done(("sub", builds[0]))
        return None

    def _offer_adjustment(self, mine: Mapping[str, Order], waives: int) -> Offer:
        need = self.state.adjustments().get(self.power, 0)
        given = sum(1 for o in mine.values() if isinstance(o, Build)) + waives
        left = need - given
        menu: list[MenuItem] = []
        if left > 0 and WAIVE_KEY in self.legal:  # only while a build is still to choose
            menu.append(MenuItem("waive", "Waive a build"))
        if self.key is not None:
            orders = self.legal[self.key]
            prov = province_of(self.key)
            items: list[MenuItem] = []
            if prov in mine:
                items.append(MenuItem("clear", "Cancel this build"))
            else:
                for i, o in enumerate(orders):
                    if isinstance(o, Build):
                        items.append(MenuItem(f"build:{i}", _build_label(o)))
            items.append(MenuItem("cancel", "Cancel"))
            coasts = [o.unit.loc for o in orders if isinstance(o, Build) and "/" in o.unit.loc]
            return Offer(
                [self.key], coasts, items + menu, f"Build in {prov}: choose what to build."
            )
        if need > 0:
            sites = [k for p, k in self.keys.items() if p not in mine]
            if left <= 0 or not sites:
                prompt = "Your builds are chosen. Press Ready, or click a build to change it."
                return Offer([], [], menu, prompt)
            plural = "s" if left > 1 else ""
            return Offer(
                [], sites, menu, f"You may build {left} unit{plural}: click a home centre to build."
            )
        if need < 0:
            left = -need - sum(1 for o in mine.values() if isinstance(o, Remove))
            units = [k for p, k in self.keys.items() if p not in mine]
            if left <= 0:
                return Offer([], [], menu, "Your removals are chosen. Press Ready.")
            plural = "s" if left > 1 else ""
            return Offer([], units, menu, f"Remove {left} unit{plural}: click the unit to remove.")
        return Offer(prompt="You have nothing to build or remove this winter.")

    # -- helpers -------------------------------------------------------------------------------

    def _first(self, orders: Sequence[Order], kind: type) -> Action | None:
        for o in orders:
            if isinstance(o, kind):
                return self._done(("sub", o))
        return None

    def _done(self, action: Action) -> Action:
        self.reset()
        return action


def _dest(order: Order) -> str:
    if isinstance(order, Move | Retreat | SupportMove | Convoy):
        return order.dest
    if isinstance(order, Build):
        return order.unit.loc
    if isinstance(order, Waive):
        return ""
    return order.unit.loc


def _build_label(order: Build) -> str:
    if order.unit.type == "A":
        return "Build an army"
    coast = coast_of(order.unit.loc)
    return f"Build a fleet ({COAST_NAMES.get(coast, coast)})" if coast else "Build a fleet"


__all__ = ["Action", "MenuItem", "Offer", "OrderBuilder", "describe_unit"]
