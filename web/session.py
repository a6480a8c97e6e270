"""A person's seat in a game, played from web pages: one more kind of connection.

A :class:`WebSession` is a :class:`~server.links.MessageLink` the server serves like any bot's: it
sends the game typed DAIDE messages (``NME`` or ``IAM``, ``SUB``, ``NOT (SUB ...)``, ``GOF``,
``NOT (GOF)``) and reads the game's (``HLO``, ``NOW``, ``SCO``, ``THX``, ``ORD``, ``DRW``,
``SLO``, ``SMR``, ``OFF``), so deadlines, civil disorder, persistence and the end of the game
work exactly as they do for bots. What DAIDE has no message for (which powers have ordered, the
deadline, the orders this power has given) the game task reports through a watcher.

The session outlives a page: pages attach and detach (a reload, a lost connection, two tabs);
only when no page has been attached for ``grace`` seconds does the session leave the game,
and the power goes into civil disorder as any player's would. The session keeps what it knows
of the game, sends the pages its views (built by :mod:`web.views`: the map as SVG, what may be
clicked, the orders, the status), and turns the pages' requests ("PAR was clicked", "ready")
into DAIDE.
"""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

import trio

from diplomat.engine.defaults import missing_orders
from diplomat.engine.map import GameMap, province_of
from diplomat.engine.notation import NotationError, parse_order
from diplomat.engine.orders import (
    NOTE_TEXT,
    Order,
    Waive,
    order_key,
)
from diplomat.engine.orderset import OrderSet
from diplomat.engine.state import GameState, Unit
from diplomat.mapdraw.geometry import geometry
from diplomat.protocol import messages
from diplomat.protocol.codec import Codec, codec_for
from diplomat.protocol.connection import Closed, Event, Received
from diplomat.protocol.english import Names
from diplomat.protocol.mdf import table_for_map
from diplomat.protocol.syntax import ParseError
from diplomat.server.changes import Changes
from diplomat.server.faults import describe
from diplomat.server.logs import get_logger
from diplomat.web.builder import Action, OrderBuilder
from diplomat.web.press import PressDesk, stored_items
from diplomat.web.talk import DrawBallot, free_text
from diplomat.web.views import GameStatus, ResultGroup, SeatViews, end_table, game_status, notice

if TYPE_CHECKING:
    from diplomat.server.app import GameRunner, Server
    from diplomat.server.status import MasterStatus
    from diplomat.server.store import Store
    from diplomat.web.http import WebSocket
    from diplomat.web.seats import SeatBook, SeatRow


class SeatHost(Protocol):
    """What a session needs of the hub that made it (the hub imports this module, so the
    session names the hub by this interface, not by its class)."""

    server: Server
    store: Store
    seats: SeatBook
    grace: float

    def spawn(self, fn: Callable[..., Awaitable[Any]], *args: Any) -> None: ...

    def stored_results(
        self, game_id: int, phase: str, gmap: GameMap
    ) -> list[tuple[Order, Any]]: ...

    def history_view(self, session: WebSession, index: Any) -> dict[str, Any]: ...

    def start_now(self, seat: SeatRow) -> None: ...

    def forming_view(self, seat: SeatRow, joined: int) -> dict[str, Any]: ...


_log = get_logger(web=True)
RECENT_LIMIT = 12  # result groups kept for "every phase since your last orders"
HUMAN_NAME = "Human"
HUMAN_VERSION = "diplomat-web"


class WebSession:
    """A seat (game, power) played from web pages; see the module's docstring. To the server
    it is a :class:`~server.links.MessageLink`: it says DAIDE messages (``events``) and is
    handed the game's (``take``)."""

    def __init__(
        self, hub: SeatHost, seat: SeatRow, runner: GameRunner | None, gmap: GameMap
    ) -> None:
        self.hub = hub
        self.seat = seat
        self.runner = runner
        self.gmap = gmap
        self.power = seat.power
        self.kind = "web"
        self.peer = f"web:{seat.game_id}:{seat.power}"
        self.closed = False
        self.codec: Codec = codec_for(table_for_map(gmap))
        self._inbox_send, self._inbox = trio.open_memory_channel[Event](math.inf)
        self._wake_send, self._wake = trio.open_memory_channel[None](1)
        self.sockets: set[WebSocket] = set()
        self._alone_since = trio.current_time()
        self._pages = Changes()  # poked when a page attaches or detaches
        self.ended = False  # no longer connected to the game
        self.done = trio.Event()  # set by the hub when run() has returned
        self.joined = False
        # What the session knows of the game, from the game's messages and the watcher.
        self.game_name = ""
        self.centres: dict[str, str] = {}
        self.state: GameState | None = None
        self.status: GameStatus | None = None
        self.builder: OrderBuilder | None = None
        # Every phase processed since this seat last gave orders, oldest first.
        self.recent: list[ResultGroup] = []
        self._ordered: set[str] = set()  # phases in which this seat gave orders
        self._incoming: list[tuple[Order, Any]] = []
        self.history: list[str] = []
        self.finished = False
        self.end: dict[str, Any] | None = None
        self.refused: str | None = None  # why the game would not take this seat
        self._gof_phase: str | None = None
        self.views = SeatViews()
        self._sent: dict[WebSocket, int] = {}  # the drawing each page has
        # Press (levels 10 and up; None in a gunboat game): what this seat said and heard.
        settings = hub.store.game(seat.game_id).settings
        level = int(settings.get("level", 0))
        self.desk: PressDesk | None = (
            PressDesk(self.power, gmap, level, bool(settings.get("pda"))) if level > 0 else None
        )
        self.ballot = DrawBallot(self.power, bool(settings.get("pda")), Names.of_map(gmap))
        self._snd_waiting = 0  # SNDs sent that the game has not answered yet
        self._failing = False  # a fault was reported and nothing has succeeded since

    # -- the MessageLink interface (the server's side) ----------------------------------------

    async def events(self) -> AsyncIterator[Event]:
        async for event in self._inbox:
            yield event
            if isinstance(event, Closed):
                return

    def take(self, message: messages.Message) -> None:
        """A message from the game: update what the session knows; the view is sent by the
        session's own task (so rendering never holds up the server's)."""
        try:
            self._on_message(message)
        except Exception as exc:  # the page's fault, not the game's: the game goes on
            self._failed("a message from the game", exc)
        self._wake_up()

    def _failed(self, what: str, exc: Exception) -> None:
        """One log line, and a notice to the pages, for something the session could not do
        (once until it succeeds again, so that a fault repeated on every event floods
        neither)."""
        if self._failing:
            return
        self._failing = True
        name = type(exc).__name__
        _log.error("web session failed", peer=self.peer, on=what, **describe(exc))
        self.notice(f"The page could not follow {what} ({name}); the game goes on.", "error")

    async def close(self, final: bool = True) -> None:
        self.closed = True
        self._wake_up()

    # -- running ---------------------------------------------------------------------------------

    def send(self, message: messages.Message) -> None:
        """To the game, through the server's reader like any client's message."""
        if not self.closed:
            self._inbox_send.send_nowait(Received(message, ()))

    async def run(self) -> None:
        """Play the seat until the game ends or no page has been attached for a while; a
        finished game's session lingers while pages still look at it."""
        # The map's drawing is computed once per map (seconds for a large variant): in a
        # worker thread, so that the server goes on serving every other game meanwhile.
        await trio.to_thread.run_sync(geometry, self.gmap)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._flusher)
            if self.runner is not None and not self.runner.done.is_set():
                nursery.start_soon(self._watchdog)
                await self._play(self.runner)
            else:
                self.load_finished()
            self.ended = True
            self._wake_up()
            if not self.finished:
                await self._let_pages_go()
            if self.finished:
                await self._until_alone()
            nursery.cancel_scope.cancel()

    async def _play(self, runner: GameRunner) -> None:
        self.game_name = runner.name
        server = self.hub.server
        seat: tuple[GameRunner, str | None, str | None] | None = None
        if runner.status().started:
            passcode = runner.passcode(self.power) or 0
            self.send(messages.Iam(self.power, passcode))
        else:
            seat = (runner, self.power, "human")
            self.send(messages.Nme(HUMAN_NAME, HUMAN_VERSION))
        self.history = [name for name, _ in self.hub.store.states(self.seat.game_id)]
        self.load_press()
        runner.watch(self, self._look)
        try:
            await server.serve_link(self, seat)
        finally:
            runner.watch(self, None)
        if runner.status().finished:
            self.finished = True
            if self.end is None:
                self.load_finished()
            self.load_press()

    async def _let_pages_go(self) -> None:
        """The seat left the game while pages were open (the server is stopping, or the
        game refused it): close them, so that they come back to a new session."""
        for ws in list(self.sockets):
            if self.refused:
                await ws.send(json.dumps({"t": "error", "text": self.refused}))
            await ws.close(1012)

    async def _watchdog(self) -> None:
        await self._until_alone()
        if not self.finished:
            self._inbox_send.send_nowait(Closed(None, by_peer=True, reason="no page attached"))

    async def _until_alone(self) -> None:
        """Return once no page has been attached for the hub's grace (woken when pages come
        and go)."""
        while True:
            if self.sockets:
                await self._pages.wait()
                continue
            alone_until = self._alone_since + self.hub.grace
            if trio.current_time() >= alone_until:
                return
            await self._pages.wait(alone_until)

    def attach(self, ws: WebSocket) -> None:
        self.sockets.add(ws)
        self._pages.poke()
        self._wake_up()

    def detach(self, ws: WebSocket) -> None:
        self.sockets.discard(ws)
        self._sent.pop(ws, None)
        if not self.sockets:
            self._alone_since = trio.current_time()
        self._pages.poke()

    def _wake_up(self) -> None:
        with contextlib.suppress(trio.WouldBlock):  # a view is due already
            self._wake_send.send_nowait(None)

    async def _flusher(self) -> None:
        async for _ in self._wake:
            if not self.sockets:
                continue
            try:
                view = self.view()
            except Exception as exc:
                self._failed("the game's new state", exc)
                continue
            self._failing = False
            full = json.dumps(view)
            # The map is most of a view's bytes: a page that has this drawing gets it once.
            view["svg"] = None
            lean = json.dumps(view)
            for ws in list(self.sockets):
                fresh = self._sent.get(ws) != self.views.svg_serial
                self._sent[ws] = self.views.svg_serial
                await ws.send(full if fresh else lean)

    # -- what the game tells --------------------------------------------------------------------

    def _look(self, reported: MasterStatus, now: float) -> None:
        status = game_status(reported, self.power)
        if status != self.status:
            self.status = status
            self._wake_up()

    def _on_message(self, msg: messages.Message) -> None:
        match msg:
            case messages.Yes(inner=messages.Nme() | messages.Iam() as joined):
                self.joined = True
                if isinstance(joined, messages.Iam):
                    # After IAM nothing is sent unasked (spec §3.2): ask for the position.
                    self.send(messages.Hlo())
                    self.send(messages.Sco())
                    self.send(messages.Now())
            case messages.Yes(inner=messages.Snd()):
                self._snd_answered()
                self.load_press()
            case messages.Frm():
                self.load_press()
            case messages.Yes(inner=messages.Drw() | messages.Not(inner=messages.Drw()) as voted):
                self.ballot.confirmed(voted)
            case messages.Rej(inner=messages.Drw() | messages.Not(inner=messages.Drw())):
                self.notice("The game did not take the draw vote: it is not playing now.", "error")
            case messages.Huh() | messages.Ccd() | messages.Out():
                self._not_sent(msg)
            case messages.Rej(inner=messages.Snd()):
                self._snd_answered()
                self.notice("Not sent: press is not allowed now.", "error")
            case messages.Rej(inner=messages.Nme() | messages.Iam()):
                self.refused = "The game would not take this seat (it has started without it)."
                self._inbox_send.send_nowait(Closed(None, by_peer=False, reason="refused"))
            case messages.Map(name=str(name)):
                self.send(messages.Yes(messages.Map(name)))
            case messages.Sco():
                self.centres = msg.centres()
            case messages.Now():
                self._on_now(msg)
            case messages.Ord() if msg.order is not None:
                self._incoming.append((msg.order, msg.result))
            case messages.Thx() if msg.note.value != "MBV":
                text = NOTE_TEXT.get(msg.note, msg.note.value)
                self.notice(f"{msg.order}: refused, {text}.", "error")
            case messages.Drw():
                self.end = {"kind": "draw", "powers": list(msg.powers or ())}
            case messages.Slo():
                self.end = {"kind": "solo", "powers": [msg.power]}
            case messages.Smr():
                self._on_smr(msg)
        # OFF is no sign of the end: it also comes when the server shuts down. The game's
        # end is its SMR (and the game's own flag, once the link is closed).

    def _not_sent(self, msg: messages.Huh | messages.Ccd | messages.Out) -> None:
        """HUH, or a power in disorder or out, just after this seat sent press: the press
        was not sent (CCD and OUT otherwise are no answer to anything)."""
        if not self._snd_waiting:
            return
        self._snd_answered()
        if isinstance(msg, messages.Huh):
            text = "the server did not understand it"
        else:
            why = "is in civil disorder" if isinstance(msg, messages.Ccd) else "is out of the game"
            info = self.gmap.power_info.get(msg.power)
            text = f"{info.name if info is not None else ''} {why}"
        self.notice(f"Not sent: {text}.", "error")

    def _on_now(self, msg: messages.Now) -> None:
        if msg.turn is None:
            return
        state = msg.to_state(self.gmap, self.centres)
        new_phase = self.state is None or state.phase != self.state.phase
        if self._incoming and self.state is not None:
            played = self.state.phase.name
            self._add_recent(ResultGroup(self.state, self._incoming, played in self._ordered))
            self._incoming = []
        if self.state is None and self._ordered_in(state.phase.name):
            # (Re)joined in a phase it gave orders in before (a restart of the server): the
            # phase's results must not say it was away.
            self._ordered.add(state.phase.name)
        if new_phase:
            self.builder = OrderBuilder(state, self.power)
            self.ballot.new_phase()
            if self.state is None:  # (re)joined: the votes the game holds for this seat
                flags = self.hub.store.flags(self.seat.game_id, state.phase.name)
                self.ballot.restore([f for p, f in flags if p == self.power])
            if self.desk is not None:
                self.desk.new_phase()
            name = state.phase.name
            if name not in self.history:
                self.history.append(name)
            if not self.recent and len(self.history) > 1:
                self._load_recent_results()
            if self._gof_phase != name and self.seat.ready_phase != name:
                # DAIDE assumes every player is ready; a person is not, until they say so.
                self._gof_phase = name
                if self.power in state.alive():
                    self.send(messages.Not(messages.Gof()))
        self.state = state

    def _add_recent(self, group: ResultGroup) -> None:
        """A phase was processed: the list restarts at a phase this seat gave orders in, so
        that it holds every phase since the last orders (and an empty retreat or build phase
        never hides the movement results before it)."""
        if group.ordered:
            self.recent = []
        self.recent = [*self.recent, group][-RECENT_LIMIT:]

    def _load_recent_results(self) -> None:
        """After a (re)join, from the store: the phases back to the last one this seat gave
        orders in (or the game's first)."""
        store = self.hub.store
        gid = self.seat.game_id
        states = store.states(gid)
        groups: list[ResultGroup] = []
        for name, data in reversed(states[:-1]):
            ordered = self._ordered_in(name)
            if ordered:
                self._ordered.add(name)
            state = GameState.from_json(data, self.gmap)
            results = self.hub.stored_results(gid, name, self.gmap)
            groups.append(ResultGroup(state, results, ordered))
            if ordered or len(groups) >= RECENT_LIMIT:
                break
        self.recent = groups[::-1]

    def _ordered_in(self, phase: str) -> bool:
        """Whether the store holds an order this seat gave in ``phase``."""
        submissions = self.hub.store.submissions(self.seat.game_id, phase)
        return any(s.power == self.power and s.action == "sub" for s in submissions)

    def _on_smr(self, msg: messages.Smr) -> None:
        end = self.end or {"kind": "draw", "powers": []}
        end["table"] = [
            {
                "power": e.power,
                "name": e.name,
                "version": e.version,
                "centres": e.centres,
                "eliminated": e.eliminated,
            }
            for e in msg.entries
        ]
        row = self.hub.store.game(self.seat.game_id)
        if row.result:
            end["reason"] = row.result.get("reason", "")
            end["kind"] = row.result.get("kind", end["kind"])
            end["powers"] = row.result.get("powers", end["powers"])
        self.end = end
        self.finished = True

    def load_finished(self) -> None:
        """A game that is over (or no longer running): its end, from the store."""
        store = self.hub.store
        row = store.game(self.seat.game_id)
        self.game_name = row.name
        states = store.states(row.id)
        self.history = [name for name, _ in states]
        if states:
            self.state = GameState.from_json(states[-1][1], self.gmap)
            self.centres = dict(self.state.centres)
            if len(states) > 1:
                self._load_recent_results()
        self.finished = row.status == "finished"
        counts = self.state.centre_counts() if self.state else {}
        players = store.players(row.id)
        self.end = {
            "kind": (row.result or {}).get("kind", "draw" if self.finished else row.status),
            "powers": (row.result or {}).get("powers", []),
            "reason": (row.result or {}).get("reason", row.status),
            "table": end_table(players, counts),
        }
        self.finished = True
        self.load_press()

    def load_press(self) -> None:
        """The seat's press from the store (where the game wrote every message it relayed):
        its own conversations during the game, everyone's once it is over."""
        if self.desk is None:
            return
        rows = self.hub.store.press(self.seat.game_id)
        if not self.finished:
            rows = [r for r in rows if self.power == r.sender or self.power in r.recipients]
        self.desk.items = stored_items(rows, self.codec)
        self.desk.sent = {r.seq: r.sent for r in rows}

    def _snd_answered(self) -> None:
        self._snd_waiting = max(0, self._snd_waiting - 1)

    def reachable(self) -> list[str]:
        """The powers press may go to now: alive, played by someone, not this seat's."""
        if not self.playing() or self.status is None:
            return []
        states = dict(self.status.states)
        return [
            p
            for p in self.gmap.powers
            if p != self.power and states.get(p) not in ("out", "disorder")
        ]

    # -- what the pages ask ----------------------------------------------------------------------

    def notice(self, text: str, level: str = "info", ws: WebSocket | None = None) -> None:
        data = notice(text, level)
        for target in [ws] if ws is not None else list(self.sockets):
            self.hub.spawn(target.send, data)

    def mine(self) -> tuple[dict[str, Order], int]:
        """This power's orders by province, and its waived builds."""
        orders: dict[str, Order] = {}
        waives = 0
        for o in self.status.mine if self.status else ():
            if isinstance(o, Waive):
                waives += 1
            else:
                orders[order_key(o)] = o
        return orders, waives

    def forming(self, joined: int) -> dict[str, Any]:
        """What the page shows of the game while it forms (``joined`` players in)."""
        return self.hub.forming_view(self.seat, joined)

    def view(self) -> dict[str, Any]:
        return self.views.view(self)

    def playing(self) -> bool:
        return (
            self.joined
            and not self.finished
            and self.state is not None
            and self.status is not None
            and self.status.started
            and self.status.phase == self.state.phase.name
        )

    async def request(self, ws: WebSocket, data: Mapping[str, Any]) -> None:
        kind = data.get("t")
        if kind == "history":
            await ws.send(json.dumps(self.hub.history_view(self, data.get("index"))))
            return
        if kind == "start":
            self.hub.start_now(self.seat)
            return
        if not self.playing():
            if kind in ("draw", "talk"):  # a vote or words that would otherwise vanish
                self.notice("Not now: the game is not being played at the moment.", "error", ws)
            return
        assert self.builder is not None and self.state is not None
        action: Action | None = None
        mine, _ = self.mine()
        desk = self.desk
        if kind in ("draw", "talk"):
            self._talk(kind, data, ws)
        elif kind == "press" and desk is not None and self.power in self.state.alive():
            answer = desk.request(data, self.state, self.reachable())
            if isinstance(answer, str):
                self.notice(answer, "error", ws)
            elif answer is not None:
                self._snd_waiting += 1
                self.send(answer)
        elif desk is not None and desk.picking() and kind in ("click", "choose"):
            if kind == "click" and isinstance(data.get("loc"), str):
                desk.click(data["loc"], self.state)
            elif kind == "choose" and isinstance(data.get("id"), str):
                desk.choose(data["id"])
        elif kind == "click" and isinstance(data.get("loc"), str):
            action = self.builder.click(data["loc"], mine)
        elif kind == "choose" and isinstance(data.get("id"), str):
            action = self.builder.choose(data["id"], mine)
        elif kind == "select" and isinstance(data.get("loc"), str):
            self.builder.select(data["loc"])
        elif kind == "clear" and isinstance(data.get("loc"), str):
            given = mine.get(province_of(data["loc"].upper()))
            if given is not None:
                action = ("not", given)
        elif kind == "order" and isinstance(data.get("text"), str):
            self._typed(data["text"], ws)
        elif kind == "ready":
            self._ready(bool(data.get("on", True)), ws, data.get("phase"))
        if action is not None:
            verb, order = action
            self._gave_orders()
            self.send(
                messages.Sub((order,)) if verb == "sub" else messages.Not(messages.Sub((order,)))
            )
        self._wake_up()

    def _talk(self, kind: str, data: Mapping[str, Any], ws: WebSocket) -> None:
        """A draw vote (any game), or free text (press level 8000): to the game, or a notice
        saying why not."""
        assert self.state is not None
        if kind == "draw":
            said: messages.Message | str = self.ballot.request(data, self.state.alive())
        elif self.desk is None:
            said = "This game has no press."
        elif self.power not in self.state.alive():
            said = "A power out of the game sends no press."
        else:
            said = free_text(data, self.power, self.desk.level, self.reachable())
        if isinstance(said, str):
            self.notice(said, "error", ws)
            return
        if isinstance(said, messages.Snd):
            self._snd_waiting += 1
        self.send(said)

    def _typed(self, text: str, ws: WebSocket) -> None:
        """Orders typed in the text box: ``A PAR - BUR`` (one per line), or DAIDE's form."""
        assert self.state is not None
        state = self.state
        board: dict[str, Unit] = dict(state.units)
        if state.phase.kind == "retreat":
            board.update({p: d.unit for p, d in state.dislodged.items()})
        orders: list[Order] = []
        for line in text.replace(";", "\n").splitlines():
            line = line.strip()
            if not line:
                continue
            try:
                daide = line if line.upper().startswith("SUB") else f"SUB ({line})"
                if line.startswith("(") or line.upper().startswith("SUB"):
                    msg = self.codec.parse_text(daide)
                    if not isinstance(msg, messages.Sub):
                        raise NotationError("not an order")
                    orders.extend(msg.orders)
                else:
                    orders.append(parse_order(self.gmap, line, self.power, state.phase.kind, board))
            except (NotationError, ParseError, ValueError) as exc:
                self.notice(f"Cannot read {line!r}: {exc}", "error", ws)
                return
        if orders:
            self._gave_orders()
            self.send(messages.Sub(tuple(orders)))

    def _gave_orders(self) -> None:
        if self.state is not None:
            self._ordered.add(self.state.phase.name)

    def local_book(self) -> OrderSet | None:
        """This power's orders replayed on the engine: what is still missing."""
        if self.state is None:
            return None
        book = OrderSet(self.state)
        for o in self.status.mine if self.status else ():
            book.submit(self.power, o)
        return book

    def _ready(self, on: bool, ws: WebSocket, meant: object = None) -> None:
        """Ready (or not) for this phase. ``meant``: the phase the page showed when the person
        clicked; a click made just before the game moved on must not end the new phase
        unordered, so it is refused with a notice."""
        assert self.state is not None
        phase = self.state.phase.name
        if meant is not None and not isinstance(meant, str):
            self.notice('A Ready names its phase as text, e.g. "S1901M".', "error", ws)
            return
        if meant is not None and meant != phase:
            # What the page sent is not echoed: only the phase the game is in.
            self.notice(
                f"That was for another phase; the game is now in {phase}: nothing said.",
                "error",
                ws,
            )
            return
        if not on:
            self.send(messages.Not(messages.Gof()))
            self.hub.seats.set_ready(self.seat.token, None)
            self.seat.ready_phase = None
            return
        book = self.local_book()
        assert book is not None
        if self.state.phase.kind == "adjustment" and book.needs_orders(self.power):
            # A person chooses their removals: Ready never lets civil disorder pick them.
            owed = book.missing_adjustments(self.power)
            if owed > 0:
                self.notice(f"Choose {owed} more unit(s) to remove first.", "error", ws)
                return
        # What Ready leaves out gets the rules' defaults: holds, disbands, waived builds.
        fill = missing_orders(self.state, self.power, book.orders_of(self.power))
        if fill:
            self.send(messages.Sub(tuple(fill)))
        if fill or book.needs_orders(self.power):
            self._gave_orders()
        self.send(messages.Gof())
        self.hub.seats.set_ready(self.seat.token, phase)
        self.seat.ready_phase = phase


__all__ = ["SeatHost", "WebSession"]
