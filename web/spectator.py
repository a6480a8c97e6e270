"""A spectator's page: the DAIDE observer's view of one listed game, and nothing more.

A :class:`Spectator` is a :class:`~server.links.MessageLink` that joins its game with ``OBS``,
so the game master itself decides what it is sent: the position (``NOW``, ``SCO``), each
phase's orders once adjudicated (``ORD``), the end (``DRW``, ``SLO``, ``SMR``), never a player's
press (``FRM`` goes to its recipients only) nor anyone's orders before the phase is processed.
The press of the game is read from the store once the game has ended, and only then; in a
gunboat game nobody's name is known before the summary names the players at the end.
The watcher of the runner adds what DAIDE has no message for: who is ready, the deadline.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import trio

from diplomat.engine.map import GameMap
from diplomat.engine.orders import Order
from diplomat.engine.state import GameState
from diplomat.mapdraw.svg import render_map
from diplomat.protocol import messages
from diplomat.protocol.codec import codec_for
from diplomat.protocol.connection import Event, Received
from diplomat.protocol.mdf import table_for_map
from diplomat.server.changes import Changes
from diplomat.server.status import MasterStatus
from diplomat.web.press import PressDesk, stored_items
from diplomat.web.views import end_table, end_view, phase_title, power_rows, result_lines

if TYPE_CHECKING:
    from diplomat.server.app import GameRunner, Server
    from diplomat.server.store import Store
    from diplomat.web.http import WebSocket

StoredResults = Callable[[int, str, GameMap], list[tuple[Order, Any]]]
RESULTS_KEPT = 4  # phases whose results the live view lists, newest first
NOBODY = ""  # the power a spectator's press desk reads for: none


class HasGame(Protocol):
    @property
    def game_id(self) -> int: ...


class Reader(Protocol):
    """Whoever asks the hub for a stored phase: a seat's session or a spectator."""

    @property
    def seat(self) -> HasGame: ...

    @property
    def gmap(self) -> GameMap: ...

    @property
    def desk(self) -> PressDesk | None: ...


@dataclass(frozen=True)
class Watched:
    game_id: int


class Spectator:
    """One page watching one game; see the module's docstring."""

    def __init__(
        self,
        server: Server,
        store: Store,
        game_id: int,
        gmap: GameMap,
        stored_results: StoredResults,
    ) -> None:
        self.server = server
        self.store = store
        self._stored_results = stored_results  # a stored phase's orders and results
        self.seat = Watched(game_id)
        self.gmap = gmap
        self.kind = "watch"
        self.peer = f"watch:{game_id}"
        self.closed = False
        self.codec = codec_for(table_for_map(gmap))
        self._changes = Changes()  # poked when anything the view shows changed
        self._serial = 0  # counts the pokes: a change during a send is not lost
        self.name = ""
        self.centres: dict[str, str] = {}
        self.state: GameState | None = None
        self.status: MasterStatus | None = None
        self.history: list[str] = []
        self.results: list[tuple[GameState, list[tuple[Order, Any]]]] = []  # oldest first
        self._incoming: list[tuple[Order, Any]] = []
        self.end: dict[str, Any] | None = None
        self.finished = False
        self.stopped = False  # no longer played here, and not over (the server stopped it)
        self.desk: PressDesk | None = None  # set once the game is over, for its press
        self._svg_key: Any = None
        self._svg = ""

    # -- the MessageLink interface --------------------------------------------------------------

    async def events(self) -> AsyncIterator[Event]:
        """OBS, and then nothing: a spectator only listens (it leaves when its page closes,
        which cancels its task, or when the game closes it)."""
        yield Received(messages.Obs(), ())
        await trio.sleep_forever()

    def take(self, message: messages.Message) -> None:
        match message:
            case messages.Sco():
                self.centres = message.centres()
            case messages.Now() if message.turn is not None:
                self._on_now(message.to_state(self.gmap, self.centres))
            case messages.Ord() if message.order is not None:
                self._incoming.append((message.order, message.result))
            case messages.Drw():
                self.end = {"kind": "draw", "powers": list(message.powers or ())}
            case messages.Slo():
                self.end = {"kind": "solo", "powers": [message.power]}
            case messages.Smr():
                self.finished = True
        self.wake()

    async def close(self, final: bool = True) -> None:
        self.closed = True
        self.wake()

    # -- following the game ---------------------------------------------------------------------

    def _on_now(self, state: GameState) -> None:
        if self.state is not None and state.phase != self.state.phase and self._incoming:
            self.results = [*self.results, (self.state, self._incoming)][-RESULTS_KEPT:]
            self._incoming = []
        if state.phase.name not in self.history:
            self.history.append(state.phase.name)
        self.state = state

    def _look(self, status: MasterStatus, now: float) -> None:
        self.status = status
        self.wake()

    def wake(self) -> None:
        self._serial += 1
        self._changes.poke()

    async def watch(self, runner: GameRunner | None) -> None:
        """Follow the game to its end (as an observer of its runner), then show it from the
        store; returns when the game is over or the server lets the observer go."""
        if runner is not None and not runner.done.is_set():
            self.name = runner.name
            self.history = [name for name, _ in self.store.states(self.seat.game_id)]
            self._load_results()
            runner.watch(self, self._look)
            try:
                await self.server.serve_link(self, (runner, None, None))
            finally:
                runner.watch(self, None)
            if not runner.status().finished:
                return  # the server is stopping: the page reconnects to what comes next
        self.load_finished()
        self.wake()

    def _load_results(self) -> None:
        """The last phases played before the page came, from the store."""
        states = self.store.states(self.seat.game_id)
        for name, data in states[-RESULTS_KEPT - 1 : -1]:
            state = GameState.from_json(data, self.gmap)
            self.results.append((state, self._stored_results(self.seat.game_id, name, self.gmap)))

    def load_finished(self) -> None:
        """The game as the store has it, over: its last position, its end, every player's
        name and the whole of its press."""
        row = self.store.game(self.seat.game_id)
        self.name = row.name
        states = self.store.states(row.id)
        self.history = [name for name, _ in states]
        if states:
            self.state = GameState.from_json(states[-1][1], self.gmap)
        if not self.results:
            self._load_results()
        self.finished = row.status == "finished"
        if not self.finished:
            self.stopped = True
            return
        result = row.result or {}
        counts = self.state.centre_counts() if self.state else {}
        self.end = {
            "kind": result.get("kind", "draw"),
            "powers": list(result.get("powers", [])),
            "reason": result.get("reason", ""),
            "table": end_table(self.store.players(row.id), counts),
        }
        level = int(row.settings.get("level") or 0)
        if level > 0:
            self.desk = PressDesk(NOBODY, self.gmap, level, bool(row.settings.get("pda")))
            self.desk.items = stored_items(self.store.press(row.id), self.codec)

    # -- what the page is sent ------------------------------------------------------------------

    async def flush_to(self, ws: WebSocket) -> None:
        """Send the page a view whenever the game changes (the map only when it changed)."""
        sent = None
        while True:
            seen = self._serial
            view = self.view()
            if view["svg"] == sent:
                view["svg"] = None
            else:
                sent = view["svg"]
            await ws.send(json.dumps(view))
            if seen == self._serial:
                await self._changes.wait()

    def view(self) -> dict[str, Any]:
        st = self.status
        stage = "finished" if self.finished else ("playing" if st and st.started else "forming")
        if self.stopped:
            stage = "stopped"
        view: dict[str, Any] = {
            "t": "view",
            "spectator": True,
            "game": self.seat.game_id,
            "name": self.name,
            "power": None,
            "stage": stage,
            "phase": self.state.phase.name if self.state else None,
            "phase_title": self._title(stage),
            "history": self.history,
            "powers": self._powers(),
            "results": [self._group(s, r) for s, r in reversed(self.results)],
        }
        if stage == "forming":
            joined = len(st.accepted) if st is not None else 0
            view["forming"] = {"joined": joined, "seats": len(self.gmap.powers)}
        if stage == "playing" and st is not None:
            if st.deadline is not None:
                view["deadline"] = max(0.0, st.deadline - trio.current_time())
            elif st.paused is not None:
                view["deadline"], view["paused"] = st.paused, True
        if self.finished and self.end is not None:
            view["end"] = end_view(self.gmap, self.end)
        if self.desk is not None:  # (the game is over: everyone's press)
            view["press_log"] = [self.desk.message_view(i, {}) for i in self.desk.items]
        view["svg"] = self._map()
        return view

    def _title(self, stage: str) -> str:
        if self.state is None:
            return "Waiting for the players" if stage == "forming" else "No position"
        title = phase_title(self.state)
        return f"Game over: {title}" if stage == "finished" else title

    def _map(self) -> str:
        if self.state is None:
            return ""
        key = (self.state, self.finished)
        if key != self._svg_key:
            title = "Game over" if self.finished else None
            self._svg = render_map(self.gmap, self.state, title=title, legend=False)
            self._svg_key = key
        return self._svg

    def _group(self, state: GameState, results: list[tuple[Order, Any]]) -> dict[str, Any]:
        name = state.phase.name
        return {
            "phase": name,
            "title": phase_title(state),
            "index": self.history.index(name) if name in self.history else None,
            "lines": result_lines(results, self.gmap),
            "away": False,
        }

    def _powers(self) -> list[dict[str, Any]]:
        st = self.status
        live = st is not None and st.started and not self.finished
        states = {p.power: st.state_of(p.power) for p in st.powers} if live and st else {}
        return power_rows(self.gmap, self.state, states, None)


__all__ = ["HasGame", "Reader", "Spectator", "Watched"]
