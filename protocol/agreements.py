"""The law of agreements: what each agreed arrangement binds, whom, from which phase, and which
orders break it.

DAIDE says how a proposal becomes an agreement (every recipient answers ``YES``; spec §4.2) but
not what an agreement obliges anyone to do, and the server enforces nothing. This module is the
one place that decides it; the page's "kept/broken" (through :mod:`protocol.pressbook`), the
negotiator's trust, Bordeaux's constraints and the press bench all ask it, so a person and a
bot never disagree about whether an agreement held. ``docs/agreements.md`` gives
the same rules as a table.

The rules, and why:

* **Peace** ``PCE (powers)`` binds every power listed, from the phase it is agreed in until an
  agreed ``NAR``/``NOT`` ends it. A party breaks it by a move or a retreat into a province that
  another party holds a unit in or owns as a supply centre at the start of the phase, or by
  supporting or convoying a unit of someone who is not a party there. An owned centre counts
  even when it is empty: peace that lets the other take one's centres is no peace (the bots
  always read it so; the page used to see no breach). A province whose friendly unit is
  ordered away is not protected by that unit (the two may be swapping or following), only by
  ownership.
* **Alliance** ``ALY (allies) VSS (enemies)`` binds the allies to one another exactly as peace
  does. It obliges no attack on the enemies: whom to fight, and when, is strategy, and no
  order could be said to break it.
* **Demilitarised zone** ``DMZ (powers) (provinces)`` binds the powers listed (not every party:
  a power may agree to a zone it is not kept out of). A bound power breaks it by a move,
  retreat or build into the zone, by supporting a move into it or a unit in it, by convoying
  into it, and by leaving a unit in it (a hold, or a support or convoy given from inside): the
  zone is empty of its units, and helping someone else's unit into it or keep it there is the
  same as entering. Leaving the zone (a move out, a disband) is keeping it.
* **An order** ``XDO (order)`` binds the power whose unit it is, for one phase: the first, from
  the phase it is agreed in, that takes that kind of order (a build agreed in the Spring is
  for the Winter). It is kept when that power gives an order that does the same: the same unit
  (by province), the same kind, the same destination; a destination's coast counts when both
  name one (a fleet to St Petersburg's south coast is not the move to its north coast), a
  bare province matches any coast, and a move's convoy route and "via convoy" do not count
  (the route is not binding in adjudication either, DATC 4.A.6). It binds only when the order
  can be given: a unit that is gone, or a build with no build to make, cannot break it.
* ``NOT (XDO (order))``: the power does not give that order (or one that does the same) in the
  phase an ``XDO`` of it would be for.
* ``NAR (x)`` and ``NOT (x)`` of a continuous arrangement end ``x``: a party may withdraw from
  peace, an alliance or a zone only by agreement.
* ``AND`` binds each of its parts; ``ORR`` is kept while at least one of its options is kept
  (a promise of one of several), so it is broken only when every option is.
* A draw ``DRW`` or a solo ``SLO`` binds no order: it is a vote the server counts, not a
  promise about the board.

Pure and synchronous: the press as typed messages, the board as engine values. Nothing here
needs a map beyond the game state it is handed (the state carries its own map).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from diplomat.engine.map import province_of
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
    order_key,
    order_power,
)
from diplomat.engine.state import GameState, Phase, Unit
from diplomat.protocol import messages

# -- agreements and when they bind ------------------------------------------------------------


@dataclass(frozen=True)
class Agreement:
    """An arrangement agreed by ``parties`` (the proposer first) in ``phase``."""

    arrangement: messages.Arrangement
    parties: tuple[str, ...]
    phase: Phase  # the phase of the answer that made it an agreement
    seq: int = 0  # the press message that made it one (0 when not known)

    def binds_in(self, phase: Phase) -> bool:
        return binds_in(self.arrangement, self.phase, phase)


def terms(arrangement: messages.Arrangement) -> tuple[messages.Arrangement, ...]:
    """What an agreement is stored as: an ``AND``'s parts (nested ``AND``s flattened), any
    other arrangement alone."""
    if isinstance(arrangement, messages.And):
        return tuple(t for part in arrangement.arrangements for t in terms(part))
    return (arrangement,)


def ends(arrangement: messages.Arrangement) -> messages.Construct | None:
    """The arrangement an agreed ``NAR (x)`` or ``NOT (x)`` ends (``x``), or None. ``NOT
    (XDO ...)`` ends nothing: it is a promise of its own."""
    if isinstance(arrangement, messages.Nar):
        return arrangement.inner
    if isinstance(arrangement, messages.Not) and not isinstance(arrangement.inner, messages.Xdo):
        return arrangement.inner
    return None


def same(a: messages.Construct, b: messages.Construct) -> bool:
    """Whether two arrangements say the same, whatever order their powers and provinces are
    listed in (``PCE (FRA GER)`` is ``PCE (GER FRA)``)."""
    return _key(a) == _key(b)


def _key(a: messages.Construct) -> object:
    if isinstance(a, messages.Pce):
        return ("PCE", frozenset(a.powers))
    if isinstance(a, messages.Aly):
        return ("ALY", frozenset(a.allies), frozenset(a.versus))
    if isinstance(a, messages.Dmz):
        return ("DMZ", frozenset(a.powers), frozenset(a.provinces))
    if isinstance(a, messages.Drw):
        return ("DRW", frozenset(a.powers) if a.powers else None)
    if isinstance(a, messages.And | messages.Orr):
        return (type(a).__name__, frozenset(_key(x) for x in a.arrangements))
    return a


def bound(arrangement: messages.Arrangement) -> frozenset[str]:
    """The powers whose orders an arrangement binds."""
    a = arrangement
    if isinstance(a, messages.Pce):
        return frozenset(a.powers)
    if isinstance(a, messages.Aly):
        return frozenset(a.allies)
    if isinstance(a, messages.Dmz):
        return frozenset(a.powers)
    if isinstance(a, messages.Xdo):
        return frozenset({order_power(a.order)})
    if isinstance(a, messages.Not) and isinstance(a.inner, messages.Xdo):
        return frozenset({order_power(a.inner.order)})
    if isinstance(a, messages.And | messages.Orr):
        return frozenset(p for x in a.arrangements for p in bound(x))
    return frozenset()


def one_phase(arrangement: messages.Arrangement) -> Order | None:
    """The order of a one-phase arrangement (``XDO``, ``NOT (XDO)``), or None."""
    if isinstance(arrangement, messages.Xdo):
        return arrangement.order
    if isinstance(arrangement, messages.Not) and isinstance(arrangement.inner, messages.Xdo):
        return arrangement.inner.order
    return None


def binds_in(arrangement: messages.Arrangement, agreed: Phase, phase: Phase) -> bool:
    """Whether an arrangement agreed in ``agreed`` binds the orders of ``phase`` (before any
    ``NAR`` ends it): a one-phase arrangement its phase only, anything else from then on."""
    order = one_phase(arrangement)
    if order is not None:
        return xdo_phase(order, agreed) == phase
    if isinstance(arrangement, messages.Orr):
        return any(binds_in(x, agreed, phase) for x in arrangement.arrangements)
    return not phase < agreed


def over(arrangement: messages.Arrangement, agreed: Phase, phase: Phase) -> bool:
    """Whether a one-phase arrangement's phase is behind ``phase`` (it can bind no more)."""
    order = one_phase(arrangement)
    if order is not None:
        return xdo_phase(order, agreed) < phase
    if isinstance(arrangement, messages.Orr):
        return all(over(x, agreed, phase) for x in arrangement.arrangements)
    return False


def order_kind(order: Order) -> str:
    if isinstance(order, Retreat | Disband):
        return "retreat"
    if isinstance(order, Build | Remove | Waive):
        return "adjustment"
    return "movement"


def xdo_phase(order: Order, agreed: Phase) -> Phase:
    """The phase an ``XDO`` of ``order`` agreed in ``agreed`` is for: the first from there on
    where that kind of order is given."""
    kind = order_kind(order)
    phase = agreed
    while phase.kind != kind:
        phase = phase.next()
    return phase


class Ledger:
    """Agreements as they are made: an arrangement agreed again replaces itself, an agreed
    ``NAR``/``NOT`` ends what it names. ``active``: in force; ``ended``: ended by agreement,
    by their phase passing, or by :meth:`end_with`."""

    def __init__(self) -> None:
        self.active: list[Agreement] = []
        self.ended: list[Agreement] = []

    def add(
        self, arrangement: messages.Arrangement, parties: Sequence[str], phase: Phase, seq: int = 0
    ) -> None:
        for part in terms(arrangement):
            gone = ends(part)
            if gone is not None:
                self._end(_saying(gone))
                continue
            self._end(_saying(part), record=False)
            self.active.append(Agreement(part, tuple(parties), phase, seq))

    def end_with(self, power: str) -> list[Agreement]:
        """End every agreement ``power`` is party to (it betrayed us, or it is out of the game);
        returns them."""
        return self._end(lambda a: power in a.parties)

    def lapse(self, phase: Phase) -> None:
        """End the one-phase agreements whose phase is behind ``phase``."""
        self._end(lambda a: over(a.arrangement, a.phase, phase))

    def in_force(self, phase: Phase) -> list[Agreement]:
        """The agreements that bind the orders of ``phase``."""
        return [a for a in self.active if a.binds_in(phase)]

    def _end(self, which: Callable[[Agreement], bool], record: bool = True) -> list[Agreement]:
        gone = [a for a in self.active if which(a)]
        self.active = [a for a in self.active if not which(a)]
        if record:
            self.ended += gone
        return gone


def _saying(arrangement: messages.Construct) -> Callable[[Agreement], bool]:
    """Which agreements say the same as ``arrangement`` (see :func:`same`)."""
    return lambda a: same(a.arrangement, arrangement)


# -- what breaks them ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Breach:
    """One power's breach of an arrangement: the order that broke it (None: an agreed order
    not given), why in words, and whether it was an attack on a friend (``hostile``, with the
    powers attacked as ``victims``)."""

    power: str
    arrangement: messages.Arrangement
    order: Order | None
    why: str
    hostile: bool = False
    victims: frozenset[str] = frozenset()


def dmz_breaking(order: Order, zone: Iterable[str]) -> bool:
    """Does ``order`` take a unit into a demilitarised province, help one into or keep one in
    it, or leave its own unit there?"""
    zone = zone if isinstance(zone, frozenset | set) else frozenset(zone)
    if isinstance(order, Move | Retreat):
        return province_of(order.dest) in zone
    if isinstance(order, SupportMove | Convoy):
        return province_of(order.dest) in zone or province_of(order.unit.loc) in zone
    if isinstance(order, SupportHold):
        return province_of(order.target.loc) in zone or province_of(order.unit.loc) in zone
    if isinstance(order, Hold | Build):
        return province_of(order.unit.loc) in zone
    return False


def protected(
    state: GameState, power: str, friends: Iterable[str], leaving: Iterable[str] = ()
) -> dict[str, frozenset[str]]:
    """The provinces ``power`` may not attack, each with the friends it would attack there:
    those with a friend's unit (unless that unit is ordered away: ``leaving``, provinces) and
    the centres a friend owns. A province ``power`` itself stands in is not an attack."""
    others = frozenset(friends) - {power}
    if not others:
        return {}
    away = frozenset(leaving)
    out: dict[str, set[str]] = {}
    for prov, u in state.units.items():
        if u.power in others and prov not in away:
            out.setdefault(prov, set()).add(u.power)
    for c, owner in state.centres.items():
        if owner in others:
            out.setdefault(c, set()).add(owner)
    own = {prov for prov, u in state.units.items() if u.power == power}
    return {p: frozenset(v) for p, v in out.items() if p not in own}


def attack(order: Order, protect: dict[str, frozenset[str]], friends: Iterable[str]) -> bool:
    """Does ``order`` attack a protected province: a move or retreat into it, or support or a
    convoy for a unit of someone not among ``friends`` into it?"""
    if isinstance(order, Move | Retreat):
        return province_of(order.dest) in protect
    if isinstance(order, SupportMove | Convoy):
        return province_of(order.dest) in protect and order.target.power not in set(friends)
    return False


def same_order(agreed: Order, given: Order) -> bool:
    """Does ``given`` do what the agreed order says (see the module's rules on coasts and
    convoy routes)?"""
    if type(agreed) is not type(given):
        return False
    if isinstance(agreed, Waive) or isinstance(given, Waive):
        return order_power(agreed) == order_power(given)
    if order_power(agreed) != order_power(given) or agreed.unit.type != given.unit.type:
        return False
    if isinstance(agreed, Build) and isinstance(given, Build):
        return _same_loc(agreed.unit.loc, given.unit.loc)
    if order_key(agreed) != order_key(given):
        return False
    if isinstance(agreed, Move | Retreat) and isinstance(given, Move | Retreat):
        return _same_loc(agreed.dest, given.dest)
    if isinstance(agreed, SupportMove | Convoy) and isinstance(given, SupportMove | Convoy):
        return province_of(agreed.target.loc) == province_of(given.target.loc) and province_of(
            agreed.dest
        ) == province_of(given.dest)
    if isinstance(agreed, SupportHold) and isinstance(given, SupportHold):
        return province_of(agreed.target.loc) == province_of(given.target.loc)
    return True  # hold, disband, remove: the same unit is all there is


def _same_loc(a: str, b: str) -> bool:
    if province_of(a) != province_of(b):
        return False
    return a == b or "/" not in a or "/" not in b


def due(order: Order, state: GameState) -> bool:
    """Can ``order``'s power give it in ``state`` (its unit is there, or it has a build or a
    removal to make)? An agreed order that cannot be given binds nobody."""
    power = order_power(order)
    if order_kind(order) != state.phase.kind:
        return False
    if isinstance(order, Build | Waive):
        if state.adjustments().get(power, 0) <= 0:
            return False
        return isinstance(order, Waive) or province_of(order.unit.loc) not in state.units
    if isinstance(order, Retreat | Disband):
        d = state.dislodged.get(order_key(order))
        return d is not None and _same_unit(d.unit, order)
    u = state.units.get(order_key(order))
    if u is None or not _same_unit(u, order):
        return False
    return not isinstance(order, Remove) or state.adjustments().get(power, 0) < 0


def _same_unit(u: Unit, order: Order) -> bool:
    return not isinstance(order, Waive) and (u.power, u.type) == (
        order.unit.power,
        order.unit.type,
    )


def breaches(
    arrangement: messages.Arrangement, before: GameState, orders: Sequence[Order]
) -> list[Breach]:
    """The breaches of ``arrangement`` (in force in the phase played from ``before``) by
    ``orders``: every power's orders of that phase, as the results list them. Given only some
    powers' orders (a person checking their own before sending them), it judges those."""
    a = arrangement
    by_power: dict[str, list[Order]] = {}
    for o in orders:
        by_power.setdefault(order_power(o), []).append(o)
    if isinstance(a, messages.And):
        return [b for x in a.arrangements for b in breaches(x, before, orders)]
    if isinstance(a, messages.Orr):
        found = [breaches(x, before, orders) for x in a.arrangements]
        return [b for f in found for b in f] if all(found) else []
    if isinstance(a, messages.Pce | messages.Aly):
        return _peace(a, before, by_power)
    if isinstance(a, messages.Dmz):
        zone = frozenset(a.provinces)
        return [
            Breach(p, a, o, f"{o} in the demilitarised zone")
            for p in a.powers
            for o in by_power.get(p, [])
            if dmz_breaking(o, zone)
        ]
    if isinstance(a, messages.Xdo):
        agreed = a.order
        p = order_power(agreed)
        if not due(agreed, before):
            return []
        given = by_power.get(p, [])
        if any(same_order(agreed, o) for o in given):
            return []
        key = order_key(agreed)
        instead = [o for o in given if not isinstance(o, Waive) and order_key(o) == key]
        why = f"{instead[0]} instead of {agreed}" if instead else f"{agreed} not ordered"
        return [Breach(p, a, instead[0] if instead else None, why)]
    forbidden = one_phase(a)
    if forbidden is not None:
        p = order_power(forbidden)
        return [
            Breach(p, a, o, f"{o} was agreed not to be ordered")
            for o in by_power.get(p, [])
            if same_order(forbidden, o)
        ]
    return []


def _peace(
    a: messages.Pce | messages.Aly, before: GameState, by_power: dict[str, list[Order]]
) -> list[Breach]:
    side = frozenset(a.powers if isinstance(a, messages.Pce) else a.allies)
    leaving = {
        province_of(o.unit.loc) for p in side for o in by_power.get(p, []) if isinstance(o, Move)
    }
    out: list[Breach] = []
    for p in sorted(side):
        friends = side - {p}
        protect = protected(before, p, friends, leaving)
        for o in by_power.get(p, []):
            if attack(o, protect, friends):
                victims = protect[province_of(o.dest)]  # type: ignore[union-attr]
                why = f"{o} attacks {', '.join(sorted(victims))}"
                out.append(Breach(p, a, o, why, True, victims))
    return out


@dataclass(frozen=True)
class Verdict:
    """What a processed phase did to an agreement."""

    agreement: Agreement
    kept: bool
    breakers: tuple[str, ...]  # the powers whose orders broke it, in alphabetical order
    breaches: tuple[Breach, ...]


def judge(agreement: Agreement, before: GameState, orders: Sequence[Order]) -> Verdict:
    """Kept or broken, and by whom, by the phase played from ``before`` with ``orders``."""
    found = tuple(breaches(agreement.arrangement, before, orders))
    who = tuple(sorted({b.power for b in found}))
    return Verdict(agreement, not found, who, found)


def judged(arrangement: messages.Arrangement) -> bool:
    """Whether any order could break an arrangement (a draw or a solo binds none)."""
    return bool(bound(arrangement))


__all__ = [
    "Agreement",
    "Breach",
    "Ledger",
    "Verdict",
    "attack",
    "binds_in",
    "bound",
    "breaches",
    "dmz_breaking",
    "due",
    "ends",
    "judge",
    "judged",
    "one_phase",
    "order_kind",
    "over",
    "protected",
    "same",
    "same_order",
    "terms",
    "xdo_phase",
]
