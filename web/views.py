"""What the pages of a seat are sent: JSON views built from what the seat's session knows of
its game (the position, the game's status, the results of past phases, the press), and the
pieces of them the history pages share. Pure: no game, no socket, no clock but the deadline's.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import trio

from diplomat.engine.map import GameMap
from diplomat.engine.notation import SEASON_NAMES
from diplomat.engine.notation import phase_title as name_of_phase
from diplomat.engine.orders import NOTE_TEXT, Order, Outcome, Result, Waive, order_power
from diplomat.engine.orderset import OrderSet
from diplomat.engine.state import GameState
from diplomat.mapdraw.svg import power_colours, render_map
from diplomat.protocol import messages
from diplomat.web.builder import Offer, OrderBuilder
from diplomat.web.press import PressDesk
from diplomat.web.talk import DrawBallot

if TYPE_CHECKING:
    from diplomat.server.status import MasterStatus
    from diplomat.web.seats import SeatRow

OUTCOMES = {
    Outcome.SUC: "",
    Outcome.BNC: "bounced",
    Outcome.CUT: "cut",
    Outcome.DSR: "disrupted",
    Outcome.NSO: "void",
}


@dataclass(frozen=True)
class GameStatus:
    """What the game task reports after each event (for the seat's own power only, its
    orders; for the others, only whether they have ordered: never who they are)."""

    started: bool
    finished: bool
    phase: str
    deadline: float | None  # trio clock
    paused: float | None  # seconds left while the clock is stopped (DSD)
    joined: int  # players who have joined, before the start
    states: tuple[tuple[str, str], ...]  # (power, out/idle/ordering/ordered/ready/disorder)
    mine: tuple[Order, ...]
    ready: bool


def game_status(status: MasterStatus, power: str) -> GameStatus:
    """The seat's view of the master's status."""
    return GameStatus(
        started=status.started,
        finished=status.finished,
        phase=status.phase,
        deadline=status.deadline,
        paused=status.paused,
        joined=len(status.accepted),
        states=tuple((p.power, status.state_of(p.power)) for p in status.powers),
        mine=status.of(power).orders,
        ready=status.started and not status.of(power).waiting,
    )


def notice(text: str, level: str = "error") -> str:
    """A notice for a page, as the page reads it (JSON)."""
    return json.dumps({"t": "notice", "level": level, "text": text})


def phase_title(state: GameState) -> str:
    """The phase as players name it: ``Spring 1903 Retreats``."""
    return name_of_phase(state.phase)


def place_names(gmap: GameMap, text: str) -> str:
    """The provinces an order names, spelt out (for the sea abbreviations nobody knows):
    ``NAO: North Atlantic Ocean, MAO: Mid-Atlantic Ocean``."""
    seen: list[str] = []
    for word in text.replace("/", " ").split():
        if word in gmap.provinces and word not in seen:
            seen.append(word)
    return ", ".join(f"{p}: {gmap.provinces[p].name}" for p in seen)


@dataclass(frozen=True)
class ResultGroup:
    """One processed phase: the position it was played in, and its orders with results."""

    state: GameState
    results: list[tuple[Order, Any]]
    ordered: bool  # whether this seat gave orders in it


def result_lines(
    ords: list[tuple[Order, Any]], gmap: GameMap | None = None
) -> list[dict[str, Any]]:
    """The results of a phase as the page lists them, grouped by power in the map's order
    (a build or a waive under its own power), each with the names of the places it names."""
    out = []
    rank = {p: k for k, p in enumerate(gmap.powers)} if gmap is not None else {}
    powered = [(order_power(order), order, res)
               for order, res in ords]  # fmt: skip
    powered.sort(key=lambda x: rank.get(x[0], len(rank)))
    for power, order, res in powered:
        outcome = ""
        dislodged = False
        if isinstance(res, Result):
            outcome = OUTCOMES.get(res.outcome, res.outcome.value)
            dislodged = res.dislodged
        elif isinstance(res, messages.NoteResult):
            outcome = NOTE_TEXT.get(res.note, "") if res.note is not None else ""
            dislodged = res.retreat
        out.append(
            {
                "power": power,
                "text": str(order) if not isinstance(order, Waive) else "waives a build",
                "names": place_names(gmap, str(order)) if gmap is not None else "",
                "outcome": outcome,
                "dislodged": dislodged,
            }
        )
    return out


class Seat(Protocol):
    """What a seat's view is built from: what its session knows of the game."""

    gmap: GameMap
    power: str
    seat: SeatRow
    game_name: str
    state: GameState | None
    status: GameStatus | None
    history: list[str]  # the names of the phases played so far
    recent: list[ResultGroup]  # every phase processed since this seat last gave orders
    builder: OrderBuilder | None
    desk: PressDesk | None  # None in a gunboat game
    ballot: DrawBallot  # this seat's draw votes (web.talk)
    refused: str | None
    finished: bool
    end: dict[str, Any] | None

    def mine(self) -> tuple[dict[str, Order], int]: ...

    def playing(self) -> bool: ...

    def reachable(self) -> list[str]: ...

    def local_book(self) -> OrderSet | None: ...

    def forming(self, joined: int) -> dict[str, Any]: ...


class SeatViews:
    """Builds a seat's views, keeping the map's drawing from one view to the next (drawn
    again only when what it shows changed; ``svg_serial`` counts the drawings)."""

    def __init__(self) -> None:
        self._svg_key: Any = None
        self._svg = ""
        self._svg_serial = 0

    @property
    def svg_serial(self) -> int:
        return self._svg_serial

    def view(self, s: Seat) -> dict[str, Any]:
        """The page's whole view of the seat ``s`` now."""
        gmap = s.gmap
        st = s.status
        state = s.state
        stage = "finished" if s.finished else ("playing" if st and st.started else "forming")
        view: dict[str, Any] = {
            "t": "view",
            "game": s.seat.game_id,
            "name": s.game_name,
            "power": s.power,
            "power_name": gmap.power_info[s.power].name,
            "stage": stage,
            "phase": state.phase.name if state else None,
            "phase_title": self._title(s, stage),
            "history": s.history,
            "powers": self._powers(s),
            "refused": s.refused,
        }
        if stage == "forming":
            view["forming"] = s.forming(st.joined if st else 0)
        mine, waives = s.mine()
        offer = None
        desk = s.desk
        if s.playing() and s.builder is not None:
            offer = (desk.offer() if desk is not None else None) or s.builder.offer(mine, waives)
            view["prompt"] = offer.prompt
            view["menu"] = [{"id": i.id, "label": i.label} for i in offer.menu]
            view["orders"] = self._orders_view(s, mine, waives)
            view.update(self._ready_view(s, st))
        if st is not None and st.started and not st.finished:
            if st.deadline is not None:
                view["deadline"] = max(0.0, st.deadline - trio.current_time())
            elif st.paused is not None:
                view["deadline"] = st.paused
                view["paused"] = True
        if desk is not None:
            view["press"] = desk.view(state, s.reachable(), s.playing(), s.finished)
        if state is not None and not s.finished:
            view["draw"] = s.ballot.view(state.alive(), s.playing())
        if s.recent:
            view["results"] = [self._group_view(s, g) for g in reversed(s.recent)]
        if s.finished and s.end is not None:
            view["end"] = self._end_view(s)
        view["svg"] = self._map_svg(s, offer, mine) if state is not None else ""
        view["svg_serial"] = self._svg_serial
        return view

    def _group_view(self, s: Seat, group: ResultGroup) -> dict[str, Any]:
        """A processed phase for the results panel; ``away`` when this seat owed orders in
        it and gave none (it was away: the defaults stood, or civil disorder)."""
        lines = result_lines(group.results, s.gmap)
        owed = any(line["power"] == s.power for line in lines)
        name = group.state.phase.name
        return {
            "phase": name,
            "title": phase_title(group.state),
            "index": s.history.index(name) if name in s.history else None,
            "lines": lines,
            "away": owed and not group.ordered,
            "agreements": (
                s.desk.outcomes_view(group.state, [o for o, _ in group.results])
                if s.desk is not None
                else []
            ),
        }

    def _title(self, s: Seat, stage: str) -> str:
        state = s.state
        if state is None:
            return "Waiting for the players" if stage == "forming" else "No position"
        if stage == "finished":
            ph = state.phase
            return f"Game over: the board in {SEASON_NAMES.get(ph.season, ph.season)} {ph.year}"
        return phase_title(state)

    def _map_svg(self, s: Seat, offer: Offer | None, mine: dict[str, Order]) -> str:
        assert s.state is not None
        pending = list(mine.values()) if s.playing() else []
        if s.desk is not None and s.playing():
            pending += s.desk.draft_orders()
        selected = offer.selected if offer else []
        highlight = offer.highlight if offer else []
        key = (s.state, tuple(pending), tuple(selected), tuple(highlight), s.finished)
        if key != self._svg_key:
            self._svg = render_map(
                s.gmap,
                s.state,
                pending=pending,
                selected=selected,
                highlight=highlight,
                title="Game over" if s.finished else None,
                legend=False,
            )
            self._svg_key = key
            self._svg_serial += 1
        return self._svg

    def _powers(self, s: Seat) -> list[dict[str, Any]]:
        states = dict(s.status.states) if s.status else {}
        return power_rows(s.gmap, s.state, states, s.power)

    def _orders_view(self, s: Seat, mine: dict[str, Order], waives: int) -> list[dict[str, Any]]:
        assert s.builder is not None and s.state is not None
        rows: list[dict[str, Any]] = []
        broken = s.desk.breaches(mine.values(), s.state) if s.desk is not None else {}
        for prov, key in s.builder.keys.items():
            order = mine.get(prov)
            if s.builder.kind == "adjustment" and order is None:
                continue
            legal = s.builder.legal[key]
            unit = legal[0].unit if legal and not isinstance(legal[0], Waive) else None
            text = str(order) if order is not None else None
            rows.append(
                {
                    "loc": key,
                    "unit": str(unit) if unit and s.builder.kind != "adjustment" else prov,
                    "order": text,
                    "names": place_names(s.gmap, text or key),
                }
            )
            if order is not None and order in broken:
                rows[-1]["breaks"] = broken[order]
        rows.extend(
            {"loc": None, "unit": "", "order": "Waive a build", "names": ""} for _ in range(waives)
        )
        return rows

    def _ready_view(self, s: Seat, st: GameStatus | None) -> dict[str, Any]:
        book = s.local_book()
        assert book is not None and s.state is not None
        kind = s.state.phase.kind
        needs = book.needs_orders(s.power) and s.power in s.state.alive()
        todo = ""
        can = needs
        if kind == "movement":
            n = len(book.missing_units(s.power))
            todo = f"{n} unit{'s' if n != 1 else ''} without orders will hold." if n else ""
        elif kind == "retreat":
            n = len(book.missing_retreats(s.power))
            todo = f"{n} unit{'s' if n != 1 else ''} without orders will disband." if n else ""
        elif needs:
            owed = book.missing_adjustments(s.power)
            if owed > 0:
                can = False
                todo = f"Choose {owed} more unit{'s' if owed != 1 else ''} to remove."
            elif owed < 0:
                todo = f"{-owed} build{'s' if owed != -1 else ''} not chosen will be waived."
        # Until the game has the NOT (GOF) sent at the start of a phase, its flag still
        # says "ready": what counts is that the person said so in this phase.
        ready = bool(st and st.ready) and s.seat.ready_phase == s.state.phase.name
        return {"ready": ready, "can_ready": can, "todo": todo}

    def _end_view(self, s: Seat) -> dict[str, Any]:
        assert s.end is not None
        return end_view(s.gmap, s.end)


def end_view(gmap: GameMap, end: dict[str, Any]) -> dict[str, Any]:
    """The end of a game as pages show it: ``end`` (kind, powers, reason, table) with its
    sentence in ``text``."""
    end = dict(end)
    names = [gmap.power_info[p].name for p in end.get("powers", [])]
    if end.get("kind") == "solo" and names:
        end["text"] = f"{names[0]} wins outright."
    elif names:
        reason = end.get("reason") or ""
        end["text"] = f"Draw between {', '.join(names)}" + (f" ({reason})." if reason else ".")
    else:
        end["text"] = "The game is over."
    return end


def end_table(players: Iterable[Any], counts: Mapping[str, int]) -> list[dict[str, Any]]:
    """The players of a finished game (the store's rows) with their centres (``counts``)."""
    return [
        {
            "power": p.power,
            "name": p.name,
            "version": p.version,
            "centres": counts.get(p.power, 0),
            "eliminated": p.eliminated,
        }
        for p in players
    ]


def power_rows(
    gmap: GameMap, state: GameState | None, states: dict[str, str], you: str | None
) -> list[dict[str, Any]]:
    """The Powers table: each power's centres, units and state (``states``; idle when
    absent), never who plays it."""
    colours = power_colours(gmap)
    centres = state.centre_counts() if state else {}
    units = state.unit_counts() if state else {}
    return [
        {
            "power": p,
            "name": gmap.power_info[p].name,
            "colour": colours[p],
            "centres": centres.get(p, 0),
            "units": units.get(p, 0),
            "state": states.get(p, "idle"),
            "you": p == you,
        }
        for p in gmap.powers
    ]


__all__ = [
    "GameStatus",
    "ResultGroup",
    "Seat",
    "SeatViews",
    "end_table",
    "end_view",
    "game_status",
    "notice",
    "phase_title",
    "place_names",
    "power_rows",
    "result_lines",
]
