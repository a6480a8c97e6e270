"""Re-adjudicating games saved by the ``diplomacy`` Python package, phase by phase.

The package saves a game as JSON (``to_saved_game_format``): ``phases`` is a list, each with
``name`` (``S1901M``, ``F1901R``, ``W1901A`` or ``COMPLETED``), ``state`` (``units`` per power,
a leading ``*`` marking a dislodged unit, ``retreats`` with each dislodged unit's options,
``centers``, ``homes``) and ``orders`` per power (``A PAR - BUR``, ``A YOR - NWY VIA``,
``F TRI R ALB``, ``A KIE B``, ``A PAR D``, ``WAIVE``). Powers are English names in capitals and
provinces are DAIDE tokens except ``ENG``, ``BOT``, ``LYO`` (the map's aliases).

Every phase that has a successor is replayed on its own: its recorded state and orders go
through :func:`engine.turn.process`, and our next state is compared with the package's (units,
dislodged units with their retreats, centre owners, the next phase's name), and so is each
unit's result with the package's result codes (``results``, per unit), on what both define:

- movement: a unit is dislodged (``dislodged``; our RET); a move succeeds (no code) or fails
  (``bounce``, ``no convoy``, ``void``); a support is cut (``cut``; our CUT) or void
  (``void``; our NSO); a convoy is void (``void``; our NSO);
- retreats: a retreat succeeds (no code) or not (``disband``), and bounces (``bounce``; our
  BNC); an ordered disband is not compared (the package marks it ``disband`` or nothing);
- adjustments: a build or removal carried out here is not ``void`` there (the package's
  ``''`` is no proof that it was carried out: it also marks builds beyond the allowance).

Not compared: what one side alone defines (our DSR; the package's ``no convoy`` on a fleet
whose army was not carried, where our result says whether the fleet stayed; the result of an
order this engine refused, whose unit holds here: only its dislodgement is compared), and the
package's ``void`` (or ``no convoy``) for orders the DATC calls given: supports and convoys of
an army whose convoy failed, and supports of a move against a unit of the supporter's own
power (which do not count, 6.D.12, 6.E.3, but are not void).

Every phase is adjudicated under a rule set (``engine.rules``): ``DATC`` by default, or
``PACKAGE``, the package's own rules, under which its games replay with no difference. The
package adjudicates some cases by DATC 2.x choices (and some by deviations of its own, which
only ``PACKAGE`` reproduces). Under another rule set, a phase whose difference disappears when
the phase is re-run with the package's choice (a flag of ``engine.rules.Rules``) is reported as
a rule choice, not an error; the alternatives (:data:`CHOICES`) are tried alone and together:

- 4.A.3 (6.G.8): a "via convoy" move to an adjacent province whose convoy orders form no route
  goes over land in the package; DATC 3.0 has no such fallback.
- 4.B.4 (6.B.9): the package ignores the coast named in a support; DATC 3.0 makes a support for
  the wrong coast void.
- 6.G.10: a unit dislodged by a convoyed army may, in the package, retreat to any adjacent
  location (even occupied or contested ones); DATC 3.0 bars occupied and standoff provinces.
- 4.A.2 (6.F.14-6.F.24): the package follows the 1982 paradox rule, under which a convoyed
  army does not cut a support for or against a fleet convoying it; DATC 3.0 prefers the
  Szykman rule, under which it does unless the convoy is in a paradox.
- 4.D.8 (6.J): civil-disorder removals in the package count distance to home centres, fleets by
  sea only, ties by the package's province ids; DATC 3.0 (2023) counts distance to owned
  centres over land and sea, ties by English names.

The package may also keep phases in which nobody can do anything (rule ``DONT_SKIP_PHASES``, or
a retreat phase whose units have nowhere to go) where this engine skips them; such a kept phase
is replayed like any other, and our next state is compared with the package's phase of the same
name (or, when the record ends on kept phases, with its last phase).
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from itertools import combinations
from pathlib import Path
from typing import Any, Literal

from diplomat.engine.map import GameMap, MapError, load_map, province_of
from diplomat.engine.notation import NotationError
from diplomat.engine.orders import (
    Build,
    Convoy,
    Disband,
    Move,
    Order,
    Outcome,
    Remove,
    Result,
    Retreat,
    SupportHold,
    SupportMove,
    Waive,
)
from diplomat.engine.orderset import OrderSet
from diplomat.engine.rules import DATC, Rules
from diplomat.engine.state import (
    GameState,
    Phase,
    StateError,
    Unit,
)
from diplomat.engine.turn import process
from diplomat.replay.package_notation import (
    COMPLETED,
    PackageFormatError,
    power_token,
    power_tokens,
    read_orders,
    read_state,
)

__all__ = ["read_orders"]  # moved to replay.package_notation; kept importable from here

# Rules of the package that change adjudication in a way this engine does not offer.
UNSUPPORTED_RULES = {"BUILD_ANY": "builds on any owned centre"}

Status = Literal["agree", "differ", "choice"]


class ReplayError(PackageFormatError):
    """A saved game that cannot be read (not JSON, not the package's format, another map)."""


# -- reading --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SavedPhase:
    """One phase of a saved game, in this engine's terms."""

    index: int
    name: str  # as saved: S1901M ... or COMPLETED
    state: GameState | None  # None when the saved position cannot exist (see ``problem``)
    problem: str | None
    orders: dict[str, list[str]]  # our power token -> order texts as saved
    spelling: dict[str, str]  # our location -> the package's spelling of it
    results: dict[str, tuple[str, ...]] = field(default_factory=dict)  # unit as saved -> codes

    @property
    def completed(self) -> bool:
        return self.name == COMPLETED


@dataclass(frozen=True, slots=True)
class SavedGame:
    game_id: str
    map: GameMap
    rules: tuple[str, ...]
    phases: list[SavedPhase]


def load_saved_games(path: str | Path, map_name: str | None = None) -> list[SavedGame]:
    """Read a file of saved games: one JSON document, or JSON lines with one game per line (as
    the package's ``to_saved_game_format(game, output_path)`` appends them and as published
    corpora ship them), gzipped when its name ends in ``.gz``. :class:`ReplayError` if it
    cannot be read."""
    try:
        data = Path(path).read_bytes()
        if str(path).endswith(".gz"):
            data = gzip.decompress(data)
        text = data.decode("utf-8")
    except OSError as exc:  # gzip.BadGzipFile is one
        raise ReplayError(f"cannot read {path}: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, EOFError):
        raise ReplayError(f"{path} is not a UTF-8 text file (nor gzipped one)") from None
    if not text.strip():
        raise ReplayError(f"{path} is empty")
    try:
        docs: list[Any] = [json.loads(text)]
    except json.JSONDecodeError as whole:
        docs = []
        for n, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                docs.append(json.loads(line))
            except json.JSONDecodeError as exc:
                if not docs:  # not JSON lines either: the whole file's error says more
                    raise ReplayError(f"{path} is not valid JSON: {whole}") from None
                raise ReplayError(f"{path}, line {n}, is not valid JSON: {exc}") from None
    if len(docs) == 1 and isinstance(docs[0], list):
        docs = docs[0]
    games = []
    for n, doc in enumerate(docs, 1):
        try:
            games.append(read_saved_game(doc, map_name))
        except ReplayError as exc:
            raise ReplayError(
                f"{path}: game {n}: {exc}" if len(docs) > 1 else f"{path}: {exc}"
            ) from None
    if not games:
        raise ReplayError(f"{path} holds no game")
    return games


# The package's maps that are bundled here too, under this project's names.
PACKAGE_MAPS = {"standard": "standard", "standard_fleet_rome": "fleet_rome"}


def read_saved_game(data: Any, map_name: str | None = None) -> SavedGame:
    """Read the package's saved-game structure (already decoded from JSON). The map is the
    game's own when the package's map is one of :data:`PACKAGE_MAPS`, else ``map_name`` (a
    bundled map or a map file with the same province names)."""
    if not isinstance(data, dict):
        raise ReplayError("not a saved game: the top level must be a JSON object")
    theirs = data.get("map", "standard")
    if map_name is None:
        if theirs not in PACKAGE_MAPS:
            known = ", ".join(f"{k} (ours: {v})" for k, v in PACKAGE_MAPS.items())
            raise ReplayError(f"map {theirs!r} is not supported ({known}; --map names another)")
        map_name = PACKAGE_MAPS[theirs]
    rules = data.get("rules") or []
    if not isinstance(rules, list) or not all(isinstance(r, str) for r in rules):
        raise ReplayError("'rules' must be a list of strings")
    for rule in rules:
        if rule in UNSUPPORTED_RULES:
            raise ReplayError(f"rule {rule} ({UNSUPPORTED_RULES[rule]}) is not supported")
    phases = data.get("phases")
    if not isinstance(phases, list) or not phases:
        raise ReplayError("not a saved game: 'phases' must be a non-empty list")
    try:
        gmap = load_map(map_name)
    except MapError as exc:
        raise ReplayError(str(exc)) from None
    powers = power_tokens(gmap)
    try:
        read = [_read_phase(gmap, powers, i, raw) for i, raw in enumerate(phases)]
    except ReplayError:
        raise
    except PackageFormatError as exc:  # the notation's own errors, as this module's
        raise ReplayError(str(exc)) from None
    return SavedGame(str(data.get("id", "")), gmap, tuple(rules), read)


def _read_phase(gmap: GameMap, powers: dict[str, str], i: int, raw: Any) -> SavedPhase:
    where = f"phase {i + 1}"
    if not isinstance(raw, dict):
        raise ReplayError(f"{where}: must be an object")
    name = raw.get("name")
    if not isinstance(name, str):
        raise ReplayError(f"{where}: no phase name")
    where = f"phase {i + 1} ({name})"
    if name != COMPLETED:
        try:
            Phase.parse(name)
        except StateError:
            raise ReplayError(f"{where}: not a phase name (expected e.g. S1901M)") from None
    state = raw.get("state")
    if not isinstance(state, dict):
        raise ReplayError(f"{where}: no 'state' object")
    orders = _read_orders(powers, raw.get("orders") or {}, where)
    results = _read_results(raw.get("results") or {}, where)
    spelling: dict[str, str] = {}
    try:
        gstate, problem = read_state(gmap, powers, name, state, spelling)
    except ReplayError:
        raise
    except PackageFormatError as exc:
        raise ReplayError(f"{where}: {exc}") from None
    except (NotationError, StateError, TypeError, AttributeError, ValueError) as exc:
        raise ReplayError(f"{where}: bad state: {exc}") from None
    return SavedPhase(i, name, gstate, problem, orders, spelling, results)


def _read_orders(powers: dict[str, str], raw: Any, where: str) -> dict[str, list[str]]:
    if not isinstance(raw, dict):
        raise ReplayError(f"{where}: 'orders' must be an object")
    out: dict[str, list[str]] = {}
    for name, texts in raw.items():
        power = power_token(powers, name, where)
        if texts is None:  # the package writes null for a power that had nothing to order
            continue
        if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
            raise ReplayError(f"{where}: orders of {name} must be a list of strings")
        out[power] = list(texts)
    return out


def _read_results(raw: Any, where: str) -> dict[str, tuple[str, ...]]:
    if not isinstance(raw, dict):
        raise ReplayError(f"{where}: 'results' must be an object")
    out: dict[str, tuple[str, ...]] = {}
    for unit, codes in raw.items():
        if not isinstance(codes, list) or not all(isinstance(c, str) for c in codes):
            raise ReplayError(f"{where}: results of {unit} must be a list of strings")
        out[str(unit).upper()] = tuple(c for c in codes if c)
    return out


# -- orders -------------------------------------------------------------------------------


# -- comparing ------------------------------------------------------------------------------


def compare(ours: GameState, theirs: GameState, phase_name: str | None) -> list[str]:
    """Differences between two positions, one line each; ``phase_name`` is the package's next
    phase (None when it saved ``COMPLETED``, which ends the game)."""
    out: list[str] = []
    if phase_name is not None and ours.phase.name != phase_name:
        out.append(f"next phase: ours {ours.phase.name}, package {phase_name}")
    a = {u.describe() for u in ours.units.values()}
    b = {u.describe() for u in theirs.units.values()}
    if a != b:
        out.append(f"units only in ours: {_units(a - b)}; only in package: {_units(b - a)}")
    da = {d.unit.describe(): set(d.retreats) for d in ours.dislodged.values()}
    db = {d.unit.describe(): set(d.retreats) for d in theirs.dislodged.values()}
    for u in sorted(da.keys() | db.keys()):
        if u not in db:
            out.append(f"dislodged only in ours: {u} (retreats {_list(da[u])})")
        elif u not in da:
            out.append(f"dislodged only in package: {u} (retreats {_list(db[u])})")
        elif da[u] != db[u]:
            out.append(f"retreats of {u}: ours {_list(da[u])}, package {_list(db[u])}")
    if out and out[0].startswith("next phase"):
        # Centres change hands at a different time in each sequence; the phase line says it.
        return out
    for c in sorted(ours.centres.keys() | theirs.centres.keys()):
        oa, ob = ours.centres.get(c), theirs.centres.get(c)
        if oa != ob:
            out.append(f"centre {c}: ours {oa or 'unowned'}, package {ob or 'unowned'}")
    return out


Facts = dict[str, bool]
# Package codes that mean a move did not happen.
_MOVE_FAILED = frozenset({"bounce", "no convoy", "void", "dislodged", "disrupted"})


def compare_results(saved: SavedPhase, results: list[tuple[Order, Result]]) -> list[str]:
    """Differences between our order results and the package's result codes for ``saved``'s
    phase, one line each, on the facts both define (see the module's docstring)."""
    if not saved.results or saved.state is None:
        return []  # a record without results (older saves): nothing to compare
    if saved.state.phase.kind == "adjustment":
        return _compare_adjustments(saved, results)
    out: list[str] = []
    for order, result in results:
        if isinstance(order, Waive):
            continue
        codes = saved.results.get(_saved_unit(saved, order.unit))
        if codes is None:
            continue
        ours = _our_facts(order, result)
        theirs = _package_facts(order, codes, saved)
        differing = sorted(f for f in ours.keys() & theirs.keys() if ours[f] != theirs[f])
        if differing:
            out.append(
                f"result of {order}: ours {result}, package {' '.join(codes) or 'ok'} "
                f"({', '.join(differing)})"
            )
    return out


def _saved_unit(saved: SavedPhase, unit: Unit) -> str:
    """The unit as the package names it in its results (``F ENG``, ``F STP/SC``)."""
    return f"{unit.type} {saved.spelling.get(unit.loc, unit.loc)}"


def _our_facts(order: Order, result: Result) -> Facts:
    outcome = result.outcome
    if isinstance(order, Retreat):
        return {"kept": outcome is Outcome.SUC, "bounced": outcome is Outcome.BNC}
    if isinstance(order, Disband):
        return {}  # the package marks an ordered disband 'disband' or nothing, either way
    facts = {"dislodged": result.dislodged}
    if isinstance(order, Move):
        facts["moved"] = outcome is Outcome.SUC
    elif isinstance(order, (SupportHold, SupportMove)):
        facts["cut"] = outcome is Outcome.CUT
        facts["void"] = outcome is Outcome.NSO
    elif isinstance(order, Convoy):
        facts["void"] = outcome is Outcome.NSO
    return facts


def _package_facts(order: Order, codes: tuple[str, ...], saved: SavedPhase) -> Facts:
    """The same facts read from the package's codes for the unit of ``order`` (our order: a
    hold where we refused the package's order, so only its dislodgement is compared)."""
    got = set(codes)
    if isinstance(order, Retreat):
        return {"kept": "disband" not in got, "bounced": "bounce" in got}
    if isinstance(order, Disband):
        return {}
    facts = {"dislodged": "dislodged" in got}
    if isinstance(order, Move):
        facts["moved"] = not got & _MOVE_FAILED
    elif isinstance(order, (SupportHold, SupportMove)):
        if not _helps_failed_convoy(order, saved) and not _helps_dislodge_own(order, saved):
            facts["cut"] = "cut" in got
            facts["void"] = "void" in got
    elif isinstance(order, Convoy) and not _helps_failed_convoy(order, saved):
        facts["void"] = "void" in got
    return facts


def _helps_failed_convoy(order: SupportHold | SupportMove | Convoy, saved: SavedPhase) -> bool:
    """An order for an army whose convoy failed (``no convoy``): the package marks its
    supports and convoys void or ``no convoy``; the DATC calls them given, to a move that
    fails."""
    if isinstance(order, SupportHold) or order.target.type != "A":
        return False
    return "no convoy" in saved.results.get(_saved_unit(saved, order.target), ())


def _helps_dislodge_own(order: SupportHold | SupportMove, saved: SavedPhase) -> bool:
    """A support for a move against a unit of the supporter's own power: void in the package,
    given but not counted in the DATC (6.D.12, 6.E.3)."""
    if not isinstance(order, SupportMove) or saved.state is None:
        return False
    defender = saved.state.units.get(province_of(order.dest))
    return defender is not None and defender.power == order.unit.power


def _compare_adjustments(saved: SavedPhase, results: list[tuple[Order, Result]]) -> list[str]:
    # Only ``void`` is compared: the package also gives ``''`` to a build it did not make (one
    # beyond the power's allowance), and a unit's missing result says nothing.
    out = []
    for o, r in results:
        if not isinstance(o, (Build, Remove)) or r.outcome is not Outcome.SUC:
            continue
        if "void" in saved.results.get(_saved_unit(saved, o.unit), ()):
            out.append(f"result of {o}: carried out here, void in the package")
    return out


def _list(items: Iterable[str]) -> str:
    return " ".join(sorted(items)) or "-"


def _units(units: Iterable[str]) -> str:
    """Units (``ENG F YOR``) are several words each: commas between them."""
    return ", ".join(sorted(units)) or "-"


# -- the package's rule choices ---------------------------------------------------------------

OrderMap = dict[str, list[Order]]


@dataclass(frozen=True, slots=True)
class Choice:
    """A documented rule on which the package differs: the :class:`engine.rules.Rules` flag
    under which this engine adjudicates as the package does."""

    key: str
    label: str
    kind: str  # the phase kind it applies to
    flag: str  # the field of engine.rules.Rules


# The package's deviation that no DATC option describes (``package_own_unit_supports``) is not
# a choice: under DATC it stays a difference, and only ``--rules package`` replays it.
CHOICES: tuple[Choice, ...] = (
    Choice(
        "4.A.3",
        "DATC 3.0 4.A.3 convoy to an adjacent province, no land fallback: 6.G.6, 6.G.8",
        "movement",
        "land_fallback",
    ),
    Choice(
        "4.B.4",
        "DATC 3.0 4.B.4 coast in a support order, 6.B.9",
        "movement",
        "coastless_supports",
    ),
    Choice(
        "6.G.10",
        "DATC 6.G.10 retreats after a convoyed dislodgement",
        "movement",
        "convoyed_retreats_anywhere",
    ),
    Choice(
        "4.A.2",
        "DATC 3.0 4.A.2 convoy paradox rule (the package: 1982, a convoyed army does not cut "
        "a support for or against its convoying fleet)",
        "movement",
        "paradox_1982",
    ),
    Choice(
        "4.D.8",
        "DATC 3.0 4.D.8 civil-disorder removal",
        "adjustment",
        "home_distance_removals",
    ),
)


# -- replaying ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PhaseVerdict:
    phase: str  # the phase replayed
    target: str  # the package's phase our next state was compared with
    status: Status
    differences: tuple[str, ...]  # what differs under DATC 3.0
    choices: tuple[str, ...] = ()  # labels of the rule choices that explain the difference
    refused: tuple[str, ...] = ()  # orders of the phase this engine did not accept


@dataclass
class ReplayReport:
    game_id: str
    verdicts: list[PhaseVerdict] = field(default_factory=list)

    def count(self, status: Status) -> int:
        return sum(1 for v in self.verdicts if v.status == status)

    @property
    def agree(self) -> int:
        return self.count("agree")

    @property
    def differ(self) -> int:
        return self.count("differ")

    @property
    def by_choice(self) -> int:
        return self.count("choice")


def replay_game(game: SavedGame, rules: Rules = DATC) -> ReplayReport:
    """Replay every phase that has a successor in the record under ``rules``. A difference is
    explained by the package's rule choices only under rules that are not the package's
    (``engine.rules.PACKAGE`` already makes every one of them)."""
    report = ReplayReport(game.game_id)
    phases = game.phases
    for i, saved in enumerate(phases[:-1]):
        if saved.completed:
            break
        report.verdicts.append(_replay_phase(phases, i, rules))
    return report


def _replay_phase(phases: list[SavedPhase], i: int, rules: Rules) -> PhaseVerdict:
    saved = phases[i]
    if saved.state is None:
        return PhaseVerdict(
            saved.name, "-", "differ", (f"the package's position cannot exist: {saved.problem}",)
        )
    state = saved.state
    book, refused = read_orders(state, saved.orders)
    given = book.all_orders()
    result = process(state, book, rules)
    target = _target(phases, i, result.state)
    if target.state is None:
        return PhaseVerdict(
            saved.name,
            target.name,
            "differ",
            (f"the package's next position cannot exist: {target.problem}",),
            refused=tuple(refused),
        )
    theirs = target.state
    kept_idle = target.name != result.state.phase.name and target is phases[-1] and _idle(target)
    target_name = None if target.completed or kept_idle else target.name
    diffs = compare(result.state, theirs, target_name) + compare_results(saved, result.results)
    if not diffs:
        return PhaseVerdict(saved.name, target.name, "agree", (), refused=tuple(refused))
    explained = _explain(state, given, saved, theirs, target_name, rules)
    return PhaseVerdict(
        saved.name,
        target.name,
        "choice" if explained else "differ",
        tuple(diffs),
        tuple(c.label for c in explained or ()),
        tuple(refused),
    )


def _target(phases: list[SavedPhase], i: int, ours: GameState) -> SavedPhase:
    """The saved phase to compare our next state with: the next one, or, when the package
    kept phases in which nothing could happen, the later one of our next phase's name."""
    nxt = phases[i + 1]
    j = i + 1
    while (
        j < len(phases)
        and phases[j].name != ours.phase.name
        and not phases[j].completed
        and phases[j].state is not None
        and _idle(phases[j])
        and Phase.parse(phases[j].name) < ours.phase
    ):
        j += 1
    if j < len(phases) and (phases[j].name == ours.phase.name or phases[j].completed):
        return phases[j]
    if j == len(phases):
        # The record ends on phases the package kept with nothing to do: the last of them
        # holds the position our next phase starts from.
        return phases[-1]
    return nxt


def _idle(saved: SavedPhase) -> bool:
    """A phase in which no power can do anything (this engine would have skipped it)."""
    state = saved.state
    assert state is not None
    kind = state.phase.kind
    if kind == "movement":
        return False
    if kind == "retreat" and not any(d.retreats for d in state.dislodged.values()):
        return True  # the package keeps a retreat phase for units with nowhere to go
    book = OrderSet(state)
    return not any(book.needs_orders(p) for p in state.map.powers)


def _explain(
    state: GameState,
    given: OrderMap,
    saved: SavedPhase,
    theirs: GameState,
    target_name: str | None,
    rules: Rules,
) -> tuple[Choice, ...] | None:
    """The smallest set of the package's rule choices, added to ``rules``, under which our
    result equals its (a larger set is tried only when no smaller one explains it, so every
    choice in the set found matters)."""
    kind = state.phase.kind
    usable = [c for c in CHOICES if c.kind == kind and not getattr(rules, c.flag)]
    for size in range(1, len(usable) + 1):
        for combo in combinations(usable, size):
            alt = replace(rules, name="choices", **{c.flag: True for c in combo})
            result = process(state, given, alt)
            if not compare(result.state, theirs, target_name) and not compare_results(
                saved, result.results
            ):
                return combo
    return None


# -- output ---------------------------------------------------------------------------------


def format_report(
    report: ReplayReport, every_diff: bool = False, verbose: bool = False
) -> list[str]:
    """The lines ``diplomat replay`` prints: the first real difference in full (every one with
    ``every_diff``), a line per phase explained by a rule choice, and the totals last."""
    lines: list[str] = []
    shown = False
    for v in report.verdicts:
        if v.status == "agree":
            if verbose:
                lines.append(f"{v.phase} agrees")
            continue
        if v.status == "choice":
            lines.append(
                f"{v.phase} differs by rule choice ({'; '.join(v.choices)}): "
                + "; ".join(v.differences)
            )
            continue
        if shown and not every_diff:
            lines.append(f"{v.phase} differs ({len(v.differences)} differences)")
            continue
        shown = True
        lines.append(f"{v.phase} differs (compared with the package's {v.target}):")
        lines.extend(f"  {d}" for d in v.differences)
        lines.extend(f"  order not accepted here: {r}" for r in v.refused)
    tail = f"{report.agree} phases agree, {report.differ} differ"
    if report.by_choice:
        tail += f" ({report.by_choice} more differ only by rule choice)"
    lines.append(tail)
    return lines


def replay_file(
    path: str | Path,
    every_diff: bool = False,
    verbose: bool = False,
    map_name: str | None = None,
    rules: Rules = DATC,
) -> tuple[int, list[str]]:
    """Replay every game of a saved-game file under ``rules``: (exit status, lines to print).
    Status 0 when every phase agrees or differs only by a rule choice, 1 when some phase
    differs, 2 when the file cannot be read (the only line is then the reason)."""
    try:
        games = load_saved_games(path, map_name)
    except ReplayError as exc:
        return 2, [f"error: {exc}"]
    if len(games) == 1:
        report = replay_game(games[0], rules)
        return (1 if report.differ else 0), format_report(report, every_diff, verbose)
    lines: list[str] = []
    total = ReplayReport("")
    for n, game in enumerate(games, 1):
        report = replay_game(game, rules)
        total.verdicts.extend(report.verdicts)
        body = format_report(report, every_diff, verbose)
        lines.append(f"game {n} ({game.game_id or 'no id'}): {body[-1]}")
        lines.extend(f"  {line}" for line in body[:-1])
    lines.append(format_report(total)[-1])
    return (1 if total.differ else 0), lines
