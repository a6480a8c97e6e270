"""Movement adjudication by Lucas Kruijswijk's partial-information algorithm.

Each move, support and convoy order has one yes/no decision (does the move succeed, is the
support given, does the convoying fleet stay). ``_resolve`` settles a decision on demand from
the decisions it depends on, guessing when it meets a decision already under evaluation. When
both guesses of a dependency cycle are consistent (or neither is), the backup rule decides:
a cycle through a convoy is a convoy paradox, settled by the Szykman rule (the convoying fleets
in the cycle act as if they held, DATC 4.A.2); any other cycle is circular movement, and the
moves in it succeed.

The strengths follow DATC section 5 (hold, attack, defend, prevent). Orders reaching this module
are legal and normalised (``engine.validate``); units without orders get the defaults of
``engine.defaults.missing_orders`` (they hold). Before the resolver runs, one pass settles
the decisions that depend on nothing (see ``_settle_uncontested``), so the resolver only
sees contested provinces.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, NamedTuple

from diplomat.engine.convoy import army_goes_by_convoy, find_route
from diplomat.engine.defaults import missing_unit_orders
from diplomat.engine.map import GameMap, province_of
from diplomat.engine.orders import (
    RESULTS,
    Convoy,
    Hold,
    Move,
    Order,
    Outcome,
    Result,
    SupportHold,
    SupportMove,
    UnitOrder,
)
from diplomat.engine.rules import DATC, Rules
from diplomat.engine.state import Dislodged, GameState, Unit

_UNRESOLVED, _GUESSING, _RESOLVED = 0, 1, 2
_NEVER = 1 << 60


class MovementOutcome(NamedTuple):
    """What the moves did (a named tuple: built once per adjudication, and a frozen
    dataclass costs twice as much to build)."""

    results: list[tuple[Order, Result]]  # every unit's order, in the state's order of units
    units: dict[str, Unit]  # units standing after the moves (not the dislodged), by province
    dislodged: list[Dislodged]  # dislodged units with at least one retreat
    destroyed: list[Unit]  # dislodged units with nowhere to go
    contested: frozenset[str]  # provinces left empty by a standoff (found only when a
    # unit was dislodged: they matter only to retreats)
    dislodged_units: tuple[Unit, ...]  # every dislodged unit, in the state's order of units


class _Adjudicator:
    __slots__ = (
        "active",
        "clock",
        "convoy_mask",
        "convoyed",
        "convoys_for",
        "deps",
        "land_backup",
        "lowest",
        "map",
        "move_dest",
        "moves_into",
        "orders",
        "result",
        "rules",
        "stamp",
        "state",
        "status",
        "supports",
        "units",
        "void",
    )

    def __init__(self, state: GameState, orders: Mapping[str, UnitOrder], rules: Rules) -> None:
        self.state = state
        self.rules = rules
        self.map = state.map
        self.units = state.units
        # The caller's mapping is read, never changed: copied only to add missing orders.
        self.orders: Mapping[str, UnitOrder] = orders
        if len(orders) < len(self.units):
            complete = dict(orders)
            for order in missing_unit_orders(state, None, orders.values()):
                complete[order.unit.province] = order
            self.orders = complete
        self.move_dest: dict[str, str] = {}  # src province -> dest province
        self.moves_into: dict[str, list[str]] = {}
        self.supports: dict[str, list[str]] = {}  # supported province -> supporter provinces
        self.void: set[str] = set()
        self.active: list[tuple[str, type]] = []  # orders but holds: (province, order type)
        self.convoyed: set[str] = set()
        # Armies convoyed to an adjacent province that take the land route if the convoy
        # fails (the package's 4.A.3, engine.rules.Rules.land_fallback).
        self.land_backup: set[str] = set()
        self.convoys_for: dict[str, list[str]] = {}  # army province -> convoying fleets
        self.convoy_mask: dict[str, int] = {}  # the same, as a mask over the map's seas
        self.status: dict[str, int] = {}
        self.result: dict[str, bool] = {}
        self.deps: list[str] = []  # decisions holding a guess or resting on one
        self.stamp: dict[str, int] = {}
        self.clock = 0
        self.lowest = _NEVER
        self._index()

    def _index(self) -> None:
        orders, units = self.orders, self.units
        gmap = self.map
        prov_at = gmap.province_at
        move_dest, moves_into, void = self.move_dest, self.moves_into, self.void
        convoys: list[tuple[str, Convoy]] = []
        supports: list[tuple[str, SupportHold | SupportMove, type]] = []
        active, convoyed = self.active, self.convoyed
        # The kind is tested on ``t``, one call per order; the type-checking asserts tell
        # mypy what each test found (at run time they cost nothing).
        for p, o in orders.items():
            t = type(o)
            if t is Hold:
                continue
            active.append((p, t))
            if t is Move:
                if TYPE_CHECKING:
                    assert isinstance(o, Move)
                unit, dest, said, _ = o
                d = move_dest[p] = prov_at[dest]
                if d in moves_into:
                    moves_into[d].append(p)
                else:
                    moves_into[d] = [p]
                # Whether it goes by convoy; a convoy by its own power's fleet is added below.
                if unit.type == "A" and army_goes_by_convoy(gmap, unit.loc, d, said):
                    convoyed.add(p)
            elif t is Convoy:
                if TYPE_CHECKING:
                    assert isinstance(o, Convoy)
                convoys.append((p, o))
            else:  # a unit phase's orders that reach here are supports
                if TYPE_CHECKING:
                    assert isinstance(o, SupportHold | SupportMove)
                supports.append((p, o, t))
        convoys_for = self.convoys_for
        for p, c in convoys:
            a = prov_at[c.target.loc]
            if move_dest.get(a) == prov_at[c.dest]:
                convoys_for.setdefault(a, []).append(p)
                self.convoy_mask[a] = self.convoy_mask.get(a, 0) | gmap.sea_bit[p]
            else:
                void.add(p)
        for p, fleets in list(convoys_for.items()):
            power = units[p].power  # an army: a convoy's target is one
            if p not in convoyed and any(units[f].power == power for f in fleets):
                convoyed.add(p)
            if p not in convoyed:
                void.update(fleets)
                del convoys_for[p]
                del self.convoy_mask[p]
        if self.rules.land_fallback:
            self._fall_back_to_land()
        supported = self.supports
        for p, sup, t in supports:
            tp = prov_at[sup.target.loc]
            # The target moves there (to that coast, if named, unless the rules ignore the
            # coast: DATC 4.B.4's option).
            if t is SupportMove:
                if TYPE_CHECKING:
                    assert isinstance(sup, SupportMove)
                dest = sup.dest
                dprov = prov_at[dest]
                matches = move_dest.get(tp) == dprov and (
                    dest == dprov or self.rules.coastless_supports or _moves_to(orders[tp], dest)
                )
            else:  # the target has an order and it is not a move
                matches = tp in orders and tp not in move_dest
            if not matches:
                void.add(p)
            elif tp in supported:
                supported[tp].append(p)
            else:
                supported[tp] = [p]

    def _fall_back_to_land(self) -> None:
        """DATC 4.A.3's option (6.G.6, 6.G.8), as the package has it: an army convoyed to an
        adjacent province whose convoy orders form no route at all moves over land, and those
        convoy orders are void; one whose order does not say "via convoy" (a fleet of its own
        power convoys it) goes over land if the convoy fails."""
        gmap, units = self.map, self.units
        for p in [a for a in self.convoyed if self.move_dest[a] in gmap.army_adj[units[a].loc]]:
            mask = self.convoy_mask.get(p, 0)
            if mask and find_route(gmap, mask, p, self.move_dest[p]) is not None:
                order = self.orders[p]
                if TYPE_CHECKING:
                    assert isinstance(order, Move)
                if not order.convoy:
                    self.land_backup.add(p)
                continue
            self.convoyed.discard(p)
            self.void.update(self.convoys_for.pop(p, ()))
            self.convoy_mask.pop(p, None)

    # -- Kruijswijk's resolver ------------------------------------------------------------

    def _resolve(self, p: str) -> bool:
        """Settle decision ``p``. While a decision is being settled it holds a guess; every
        read of a guess records the guess's stamp in ``self.lowest``, so a decision knows
        whether its answer rests on its own guess (a cycle through it), on a guess made
        further out (then it stays provisional), or on none (then it is final)."""
        status = self.status.get(p, _UNRESOLVED)
        if status == _RESOLVED:
            return self.result[p]
        if status == _GUESSING:
            stamp = self.stamp[p]
            if stamp < self.lowest:
                self.lowest = stamp
            return self.result[p]
        saved = self.lowest
        n = len(self.deps)
        self.deps.append(p)
        self.clock += 1
        mine = self.stamp[p] = self.clock
        self.status[p] = _GUESSING
        self.result[p] = False
        self.lowest = _NEVER
        first = self._adjudicate(p)
        low = self.lowest
        if low > mine:  # no guess was read: final
            self._settle(n, p, first)
            self.lowest = saved
            return first
        if low < mine:  # rests on a guess made further out: provisional
            self.result[p] = first
            self.lowest = min(saved, low)
            return first
        # The answer rests on p's own guess: try the other guess.
        self._forget(n + 1)
        self.result[p] = True
        self.lowest = _NEVER
        second = self._adjudicate(p)
        low = self.lowest
        if low < mine:
            self.result[p] = second
            self.lowest = min(saved, low)
            return second
        if first == second:
            self._settle(n, p, first)
            self.lowest = saved
            return first
        self._backup_rule(self.deps[n:])
        del self.deps[n:]
        self.lowest = saved
        return self._resolve(p)

    def _settle(self, n: int, p: str, value: bool) -> None:
        deps = self.deps
        if len(deps) > n + 1:
            self._forget(n + 1)
        del deps[n:]
        self.status[p] = _RESOLVED
        self.result[p] = value

    def _forget(self, n: int) -> None:
        for q in self.deps[n:]:
            self.status[q] = _UNRESOLVED
        del self.deps[n:]

    def _backup_rule(self, cycle: list[str]) -> None:
        paradox = any(type(self.orders[q]) is Convoy for q in cycle)
        for q in cycle:
            t = type(self.orders[q])
            if paradox and t is Convoy:
                self.status[q] = _RESOLVED
                self.result[q] = False
            elif not paradox and t is Move:
                self.status[q] = _RESOLVED
                self.result[q] = True
            else:
                self.status[q] = _UNRESOLVED

    def _adjudicate(self, p: str) -> bool:
        t = type(self.orders[p])
        if t is Move:
            return self._move_succeeds(p)
        if t is Convoy:
            attackers = self.moves_into.get(p, ())
            if self.rules.package_own_unit_supports:
                return not any(self._resolve(q) or self._outguns(q, p) for q in attackers)
            return not any(self._resolve(q) for q in attackers)
        return self._support_given(p)

    # -- the rules of each decision ---------------------------------------------------------

    def _no_route(self, p: str) -> bool:
        """Does ``p`` go by convoy with no route of convoying fleets left (DATC 4.A.1: a
        convoy is disrupted only when every route is)?"""
        if p not in self.convoyed:
            return False
        fleets = self.convoy_mask.get(p, 0)
        if not fleets:
            return True
        route = find_route(self.map, fleets, p, self.move_dest[p], self._resolve)
        return route is None and p not in self.land_backup

    def _by_convoy(self, p: str) -> bool:
        """Does the move from ``p`` go by convoy (an army with a land backup only while a
        route of its convoy stands)?"""
        if p not in self.convoyed:
            return False
        if p not in self.land_backup:
            return True
        fleets = self.convoy_mask[p]
        return find_route(self.map, fleets, p, self.move_dest[p], self._resolve) is not None

    def _head_to_head(self, p: str, dest: str) -> bool:
        return (
            self.move_dest.get(dest) == p and not self._by_convoy(p) and not self._by_convoy(dest)
        )

    def _support_count(self, p: str, exclude_power: str | None = None) -> int:
        n = 0
        for s in self.supports.get(p, ()):
            if exclude_power is not None and self.units[s].power == exclude_power:
                continue
            if self._resolve(s):
                n += 1
        return n

    def _attack(self, p: str) -> int:
        dest = self.move_dest[p]
        occupant = self.units.get(dest)
        if occupant is None:
            return 1 + self._support_count(p)
        if dest in self.move_dest and not self._head_to_head(p, dest) and self._resolve(dest):
            return 1 + self._support_count(p)
        if occupant.power == self.units[p].power:
            return 0
        if self.rules.package_own_unit_supports and p in self.convoyed:
            order = self.orders[p]
            if TYPE_CHECKING:
                assert isinstance(order, Move)
            if order.convoy:  # the package's deviation: see engine.rules
                return 1 + self._support_count(p)
        return 1 + self._support_count(p, occupant.power)

    def _hold_strength(self, dest: str) -> int:
        if dest not in self.units:
            return 0
        if dest in self.move_dest:
            return 0 if self._resolve(dest) else 1
        return 1 + self._support_count(dest)

    def _prevents(self, q: str) -> bool:
        """Does the move from ``q`` keep others out of its destination? Not when it has no
        route, nor when it lost a head-to-head battle (DATC 4.A.7)."""
        if self._no_route(q):
            return False
        dest = self.move_dest[q]
        return not (self._head_to_head(q, dest) and self._resolve(dest))

    def _prevent(self, q: str) -> int:
        return 1 + self._support_count(q) if self._prevents(q) else 0

    def _move_succeeds(self, p: str) -> bool:
        if self._no_route(p):
            return False
        dest = self.move_dest[p]
        attack = self._attack(p)
        if attack == 0:
            return False
        if self._head_to_head(p, dest):
            # The package's deviation: the defender's supports from the attacker's power do
            # not count either (DATC 6.E.3 counts them, to defend).
            if self.rules.package_own_unit_supports:
                # (and equal numbers of supports, counted all, bounce both)
                if self._support_count(p) == self._support_count(dest):
                    return False
                defend = 1 + self._support_count(dest, self.units[p].power)
            else:
                defend = 1 + self._support_count(dest)
            if attack <= defend:
                return False
        elif attack <= self._hold_strength(dest):
            return False
        return all(attack > self._prevent(q) for q in self.moves_into[dest] if q != p)

    def _outguns(self, q: str, fleet: str) -> bool:
        """The package's deviation: a foreign move ``q`` against a convoying ``fleet`` disrupts
        the convoy when it would dislodge it counting every support, those of the fleet's own
        power included (DATC: only a fleet actually dislodged fails, 4.A.1)."""
        if self.units[q].power == self.units[fleet].power or self._no_route(q):
            return False
        attack = 1 + self._support_count(q)
        return attack > self._hold_strength(fleet) and all(
            attack > self._prevent(r) for r in self.moves_into[fleet] if r != q
        )

    def _support_given(self, s: str) -> bool:
        if s in self.void:
            return False
        order = self.orders[s]
        power = self.units[s].power
        aimed = self.map.province_at[order.dest] if type(order) is SupportMove else None
        attackers = self.moves_into.get(s, ())
        # DATC 4.A.2's 1982 option: an army does not cut a support for or against a fleet
        # ordered to convoy it.
        fleet = ""
        if self.rules.paradox_1982:
            if TYPE_CHECKING:
                assert isinstance(order, SupportHold | SupportMove)
            fleet = aimed or self.map.province_at[order.target.loc]
        for q in attackers:
            if q == aimed or self.units[q].power == power:
                continue
            if fleet and q in self.convoyed and fleet in self.convoys_for.get(q, ()):
                continue
            if self._no_route(q):
                continue
            return False
        return not any(self._resolve(q) for q in attackers)

    # -- outcome ----------------------------------------------------------------------------

    def run(self) -> MovementOutcome:
        for p in self._settle_uncontested():
            self._resolve(p)
        return self._outcome()

    def _settle_uncontested(self) -> list[str]:
        """Decide in one pass what needs no resolver: a support or convoy nobody moves
        against stands (a void support is not given), a move over land or sea into an
        empty province nobody else enters succeeds (strength 1 or more against 0), and an
        unsupported move against a unit that stays fails. Returns the rest."""
        status, result, attacked = self.status, self.result, self.moves_into
        units, convoyed, void = self.units, self.convoyed, self.void
        supported, move_dest = self.supports, self.move_dest
        needed: list[str] = []  # what the resolver must settle
        for p, t in self.active:
            if t is Move:
                d = move_dest[p]
                if d not in units:
                    if len(attacked[d]) == 1 and p not in convoyed:
                        status[p] = _RESOLVED
                        result[p] = True
                        continue
                elif p not in supported and d not in move_dest:
                    # Strength 1 at most against a unit that stays: it holds.
                    status[p] = _RESOLVED
                    result[p] = False
                    continue
                needed.append(p)
            elif p in attacked:
                needed.append(p)
            else:
                status[p] = _RESOLVED
                result[p] = t is Convoy or p not in void
        return needed

    def _outcome(self) -> MovementOutcome:
        result, void, orders, move_dest = self.result, self.void, self.orders, self.move_dest
        moved = {d: p for p, d in move_dest.items() if result[p]}  # dest -> src
        results: list[tuple[Order, Result]] = []
        append = results.append
        standing: dict[str, Unit] = {}
        dislodged_units: list[Unit] = []
        attackers: list[str] = []  # the province each dislodged unit's attacker came from
        unit_at = _unit_memo(self.map)
        for p, unit in self.units.items():
            order = orders[p]
            t = type(order)
            if t is Move:
                if result[p]:
                    if TYPE_CHECKING:
                        assert isinstance(order, Move)
                    append((order, _SUCCEEDED))
                    key = (unit.power, unit.type, order.dest)
                    standing[move_dest[p]] = unit_at.get(key) or _new_unit(unit_at, key)
                    continue
                outcome = _BOUNCED
            elif t is Hold or (result[p] and p not in void):
                outcome = _SUCCEEDED
            elif p in void:
                outcome = _VOID
            else:
                outcome = _DISRUPTED if t is Convoy else _CUT
            attacker = moved.get(p)
            if attacker is None:
                append((order, outcome))
                standing[p] = unit
            else:
                append((order, _DISLODGED[outcome]))
                dislodged_units.append(unit)
                attackers.append(attacker)
        if not dislodged_units:
            return MovementOutcome(results, standing, [], [], _NONE, ())
        occupied = set(standing)
        # Standoffs matter only to where dislodged units may retreat.
        contested = self._standoffs(occupied)
        dislodged: list[Dislodged] = []
        destroyed: list[Unit] = []
        anywhere = self.rules.convoyed_retreats_anywhere
        for unit, attacker in zip(dislodged_units, attackers, strict=True):
            by_convoy = self._by_convoy(attacker)
            if by_convoy and anywhere:  # the package's 6.G.10: only occupied ones are barred
                barred = occupied
            elif by_convoy:
                barred = occupied | contested
            else:
                barred = occupied | contested | {attacker}
            adj = self.map.army_adj if unit.type == "A" else self.map.fleet_adj
            retreats = tuple(sorted(d for d in adj[unit.loc] if province_of(d) not in barred))
            if retreats:
                dislodged.append(Dislodged(unit, None if by_convoy else attacker, retreats))
            else:
                destroyed.append(unit)
        return MovementOutcome(
            results,
            standing,
            dislodged,
            destroyed,
            frozenset(contested),
            tuple(dislodged_units),
        )

    def _standoffs(self, occupied: set[str]) -> set[str]:
        """Empty provinces that a failed move kept others out of."""
        result = self.result
        return {
            dest
            for dest, srcs in self.moves_into.items()
            if dest not in occupied and any(not result[q] and self._prevents(q) for q in srcs)
        }


# The results an outcome hands out, looked up once (an enum in a key hashes in Python).
_SUCCEEDED = RESULTS[Outcome.SUC, False]
_BOUNCED = RESULTS[Outcome.BNC, False]
_VOID = RESULTS[Outcome.NSO, False]
_DISRUPTED = RESULTS[Outcome.DSR, False]
_CUT = RESULTS[Outcome.CUT, False]
_DISLODGED = {r: RESULTS[r.outcome, True] for r in (_SUCCEEDED, _BOUNCED, _VOID, _DISRUPTED, _CUT)}
_NONE: frozenset[str] = frozenset()
# Units per map by (power, type, location): units are values, and building a frozen one
# costs several times a lookup.
_UNIT_MEMO_LIMIT = 100_000


class UnitMemo(dict[tuple[str, str, str], Unit]):
    """The per-map memo of units by (power, type, location) (``engine.memo``)."""

    __slots__ = ()


def _unit_memo(gmap: GameMap) -> UnitMemo:
    memo = gmap.memo.get(UnitMemo, UnitMemo)
    if len(memo) > _UNIT_MEMO_LIMIT:
        memo.clear()
    return memo


def _new_unit(memo: dict[tuple[str, str, str], Unit], key: tuple[str, str, str]) -> Unit:
    unit = memo[key] = Unit(*key)
    return unit


def _moves_to(order: UnitOrder, dest: str) -> bool:
    """Is ``order`` a move to location ``dest`` (that coast, when ``dest`` names one)?"""
    return type(order) is Move and order.dest == dest


def adjudicate_movement(
    state: GameState, orders: Mapping[str, UnitOrder], rules: Rules = DATC
) -> MovementOutcome:
    """Resolve a movement phase under ``rules``. ``orders`` maps a unit's province to its
    (legal, normalised) order; units without one hold."""
    return _Adjudicator(state, orders, rules).run()
