"""One game's master: joining, orders, press, deadlines, adjudication and the end of the game.

The :class:`GameMaster` is the DAIDE game logic as a state machine without I/O, as h11 is for
HTTP. It takes events, each with the current time from the shell:

- a message from a client (:meth:`~GameMaster.handle`), a client joining
  (:meth:`~GameMaster.add_player`, :meth:`~GameMaster.add_observer`,
  :meth:`~GameMaster.rejoin`) or leaving (:meth:`~GameMaster.disconnect`);
- the time passing (:meth:`~GameMaster.on_time`, when :meth:`~GameMaster.next_wakeup` says);
- what those who seat players decide (:meth:`~GameMaster.start`,
  :meth:`~GameMaster.wait_for`, moving a forming player between games);
- a restart (:meth:`~GameMaster.restore`, from what the store saved);

and returns :mod:`server.effects`: messages to send, connections to close and
:mod:`server.records` to store, which the async shell (``server.app``) carries out, the records
first. It reads no clock, socket or database. :meth:`~GameMaster.status` answers what the web
page and the tournament need to know (who owes orders, who is ready or away, the deadline).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from itertools import pairwise
from typing import TYPE_CHECKING, Any, TypeAlias

from diplomat.engine.convoy import with_route
from diplomat.engine.map import GameMap, load_map, province_of
from diplomat.engine.orders import (
    Move,
    Note,
    Order,
    Result,
    SupportMove,
    order_key,
    order_power,
)
from diplomat.engine.orderset import OrderSet
from diplomat.engine.rules import rules_named
from diplomat.engine.state import GameState, initial_state
from diplomat.engine.turn import process
from diplomat.protocol import messages
from diplomat.protocol.codec import Codec, codec_for
from diplomat.protocol.mdf import MapDefinition, table_for_map
from diplomat.protocol.syntax import ParseError
from diplomat.server import ending, press
from diplomat.server.clock import PhaseClock
from diplomat.server.draws import DrawVotes
from diplomat.server.effects import ClientId, Close, Effects, Tell
from diplomat.server.history import History
from diplomat.server.records import (
    ClockStopped,
    FlagSet,
    GameFinished,
    GameStarted,
    OrderGiven,
    PhaseProcessed,
    PlayerSeated,
    PlayerStatus,
    PressRelayed,
)
from diplomat.server.seating import Joiner, JoinRefused, Lobby, Seat, new_passcode
from diplomat.server.settings import JOIN_TIMEOUT, GameSettings
from diplomat.server.status import MasterStatus, PowerStatus

if TYPE_CHECKING:
    from diplomat.server.store import SavedGame  # what a restart reads back (the shell reads it)


class GameMaster:
    def __init__(
        self,
        game_id: int,
        settings: GameSettings,
        name: str = "",
        gmap: GameMap | None = None,
        join_timeout: float = JOIN_TIMEOUT,
    ) -> None:
        self.id = game_id
        self.name = name or f"game-{game_id}"
        self.settings = settings
        self.map = gmap or load_map(settings.map)
        self.rules = rules_named(settings.rules)  # checked by GameSettings
        self.codec: Codec = codec_for(table_for_map(self.map))
        self.state: GameState = initial_state(self.map)
        self.book = OrderSet(self.state)
        self.seats: dict[str, Seat] = {}
        self.lobby = Lobby(self.map.powers, join_timeout)  # the players waiting for the start
        self.clients: dict[ClientId, str | None] = {}  # client -> power (None: observer)
        self.started = False
        self.finished = False
        self.result: ending.Result | None = None
        self.waiting: set[str] = set()  # powers that sent NOT (GOF)
        self.draws = DrawVotes()
        # AOA: (power, order key) -> the illegal order accepted for it, and its note
        self.aoa_notes: dict[tuple[str, str], tuple[Order, Note]] = {}
        self.clock = PhaseClock()
        self.history = History(unchanged_since=self.state.phase.year)
        self.rejoin_until: float | None = None
        # Powers whose absence a phase without a deadline waits out (a person's seat on the
        # web page): set by whoever seats the player (:meth:`wait_for`), not persisted.
        self.patient: set[str] = set()
        # The server is stopping (:meth:`halt`): nothing is processed any more.
        self.halted = False
        self.press_relayed = 0  # press messages passed on since this master was made

    @property
    def mdf(self) -> messages.Mdf:
        """The map's MDF, built once per map (an MDF takes about a millisecond to build)."""
        return mdf_for(self.map)

    @classmethod
    def restore(cls, saved: SavedGame, now: float, grace: float) -> GameMaster:
        """Rebuild an unfinished game from what the store saved, at the phase it was in, with
        the orders, ready flags and draw votes given so far. Every player is away until it
        sends IAM; for ``grace`` seconds the game waits for them before it treats absent
        powers as in civil disorder."""
        row = saved.row
        game = cls(row.id, GameSettings.model_validate(row.settings), row.name)
        if not saved.states:
            raise ValueError(f"game {row.id} never started")
        game.started = True
        for p in saved.players:
            game.seats[p.power] = Seat(
                p.power, p.name, p.version, p.passcode, p.label, None, p.status, p.eliminated
            )
        game._restore_history(saved)
        game._restore_phase(saved)
        game.rejoin_until = now + grace
        game._begin_phase(now, saved.remaining)
        return game

    def _restore_history(self, saved: SavedGame) -> None:
        parsed = [GameState.from_json(js, self.map) for _, js in saved.states]
        results: dict[str, list[messages.Ord]] = {}
        for phase, _, text in saved.results:
            msg = self.codec.parse_text(text)
            assert isinstance(msg, messages.Ord)
            results.setdefault(phase, []).append(msg)
        for before, after in pairwise(parsed):
            self.history.add(before, results.get(before.phase.name, []), after)
        self.state = parsed[-1]
        self.book = OrderSet(self.state)

    def _restore_phase(self, saved: SavedGame) -> None:
        """The orders and flags given in the phase in progress, replayed in their order."""
        for sub in saved.submissions:
            if sub.action == "clear":
                self.book.clear(sub.power)
                continue
            msg = self.codec.parse_text(sub.body)
            if sub.action == "sub" and isinstance(msg, messages.Sub):
                for order in msg.orders:
                    self.book.submit(sub.power, order)
            elif (
                sub.action == "not"
                and isinstance(msg, messages.Not)
                and isinstance(msg.inner, messages.Sub)
            ):
                for order in msg.inner.orders:
                    self.book.cancel(sub.power, order)
        for power, flag in saved.flags:
            if flag == "wait":
                self.waiting.add(power)
            elif flag == "draw":
                self.draws.vote(power, tuple(sorted(self._alive())), True)
            elif flag.startswith("draw:"):
                self.draws.vote(power, tuple(flag[5:].split()), True)

    # -- what the game looks like ----------------------------------------------------------

    def status(self) -> MasterStatus:
        """Who owes orders, who has given them, who is ready, who is away, the deadline."""
        started = self.started
        alive = set(self._alive()) if started else set(self.map.powers)
        powers = []
        for p in self.map.powers:
            owes = started and p in alive and self.book.needs_orders(p)
            powers.append(
                PowerStatus(
                    power=p,
                    alive=p in alive,
                    away=self._in_disorder(p),
                    owes=owes,
                    complete=not owes or self.book.complete(p),
                    waiting=p in self.waiting,
                    orders=tuple(self.book.orders_of(p)) if started else (),
                )
            )
        return MasterStatus(
            started=started,
            finished=self.finished,
            halted=self.halted,
            phase=self.state.phase.name,
            processed=len(self.history),
            deadline=self.clock.deadline,
            paused=self.clock.paused_remaining,
            joined=tuple(j.request for j in self.lobby.joiners),
            accepted=tuple(j.request for j in self.lobby.joiners if j.ready_map),
            powers=tuple(powers),
            press=self.press_relayed,
        )

    def passcode(self, power: str) -> int | None:
        """The passcode of ``power``'s seat (for whoever seats its player again with IAM)."""
        seat = self.seats.get(power)
        return seat.passcode if seat is not None else None

    def power_of(self, client: ClientId) -> str | None:
        return self.clients.get(client)

    def _all(self, message: messages.Message) -> Effects:
        return [Tell(c, message) for c in self.clients]

    def _alive(self) -> list[str]:
        return self.state.alive()

    def _in_disorder(self, power: str) -> bool:
        seat = self.seats.get(power)
        return seat is None or seat.client is None

    # -- joining ---------------------------------------------------------------------------

    def add_player(
        self,
        client: ClientId,
        name: str,
        version: str,
        label: str | None = None,
        power: str | None = None,
        now: float = 0.0,
    ) -> Effects:
        """NME: join (the power is dealt when the game starts). ``power`` reserves one (a
        tournament seat); otherwise ``'POW:name'`` asks for a power."""
        if self.started:
            raise JoinRefused("the game has started")
        request = self.lobby.request(name, power)
        self.lobby.admit(Joiner(client, name, version, request, label, joined_at=now))
        self.clients[client] = None
        return [
            Tell(client, messages.Yes(messages.Nme(name, version))),
            Tell(client, messages.Map(self.map.name)),
        ]

    def add_observer(self, client: ClientId) -> Effects:
        self.clients[client] = None
        out: Effects = [
            Tell(client, messages.Yes(messages.Obs())),
            Tell(client, messages.Map(self.map.name)),
        ]
        if self.started:
            out += [Tell(client, self._hlo(None)), Tell(client, self._sco())]
            out.append(Tell(client, self._now()))
        return out

    def accept_map(self, client: ClientId, now: float) -> Effects:
        """YES (MAP): the game starts once every power's player has accepted the map."""
        if self.lobby.accept_map(client) and not self.started:
            return self.start(now)
        return []

    def release_joiner(self, client: ClientId) -> Joiner | None:
        """Take a waiting player out of this forming game (to seat it in an earlier one)."""
        joiner = self.lobby.remove(client)
        if joiner is not None:
            self.clients.pop(client, None)
        return joiner

    def adopt_joiner(self, joiner: Joiner, now: float) -> Effects:
        """Seat a player moved here from a later forming game; it may complete this one."""
        if self.started:
            raise JoinRefused("no seat here any more")
        try:
            self.lobby.admit(joiner)
        except JoinRefused:
            raise JoinRefused("no seat here any more") from None
        self.clients[joiner.client] = None
        return self.accept_map(joiner.client, now) if joiner.ready_map else []

    def start(self, now: float, absent: Iterable[tuple[str, str | None]] = ()) -> Effects:
        """Deal the powers (requests first, then the rest in arrival order), send HLO, SCO,
        NOW and start the clock. ``absent`` (power, label) are seats whose player never came
        (a tournament bot that failed to start): those powers begin in civil disorder. A
        player that joined but never accepted the map is left out, as absent."""
        if self.halted:  # the players are leaving because the server stops
            return []
        out: Effects = []
        for power, label in absent:
            seat = Seat(power, label or "absent", "-", new_passcode(), label, None, "crashed")
            self.seats[power] = seat
            out.append(PlayerSeated(power, seat.name, seat.version, seat.passcode, label))
            out.append(PlayerStatus(power, "crashed"))
        for j in self.lobby.joiners:
            if not j.ready_map:  # joined but never accepted the map: treated as absent
                self.clients.pop(j.client, None)
        for j, power in self.lobby.deal(set(self.seats)):
            seat = Seat(power, j.name, j.version, new_passcode(), j.label, j.client)
            self.seats[power] = seat
            self.clients[j.client] = power
            out.append(PlayerSeated(power, j.name, j.version, seat.passcode, j.label))
        self.started = True
        out.append(GameStarted(self.state.phase.name, self.state.to_json()))
        for client, who in self.clients.items():
            out.append(Tell(client, self._hlo(who)))
        out += self._all(self._sco())
        out += self._all(self._now())
        out += self._begin_phase(now)
        return out

    def _hlo(self, power: str | None) -> messages.Hlo:
        variant = self.settings.variant()
        if power is None:
            return messages.Hlo("UNO", 0, variant)
        return messages.Hlo(power, self.seats[power].passcode, variant)

    def _now(self) -> messages.Now:
        return messages.Now.from_state(self.state)

    def _sco(self) -> messages.Sco:
        return messages.Sco.from_centres(self.state.centres, self.map)

    def _join_timeouts(self, now: float) -> Effects:
        """Drop the joiners that have not accepted the map in time."""
        out: Effects = []
        for j in self.lobby.overdue(now):
            self.clients.pop(j.client, None)
            why = f"the map was not accepted (YES (MAP)) within {self.lobby.join_timeout:g} s"
            out += [Tell(j.client, messages.Off()), Close(j.client, why)]
        return out

    # -- reconnecting ------------------------------------------------------------------------

    def awaits(self, power: str) -> bool:
        """Whether ``power`` has no player now and may be taken back with IAM."""
        seat = self.seats.get(power)
        return self.started and not self.finished and seat is not None and seat.client is None

    def can_rejoin(self, power: str, passcode: int) -> bool:
        seat = self.seats.get(power)
        return self.awaits(power) and seat is not None and seat.passcode == passcode

    def _set_status(self, seat: Seat, status: str) -> PlayerStatus:
        seat.status = status
        return PlayerStatus(seat.power, status)

    def _grace_over(self) -> Effects:
        """The grace after a restart is over: the powers nobody took back are in civil
        disorder, in the database and on the wire."""
        out: Effects = []
        for power, seat in self.seats.items():
            if seat.client is None and power in self._alive():
                if seat.status == "playing":  # (a crashed bot stays crashed)
                    out.append(self._set_status(seat, "disorder"))
                out += self._all(messages.Ccd(power))
        return out

    def rejoin(self, client: ClientId, power: str, now: float) -> Effects:
        """IAM accepted: the client plays ``power`` again."""
        seat = self.seats[power]
        seat.client = client
        self.clients[client] = power
        out: Effects = [self._set_status(seat, "playing")]
        out.append(Tell(client, messages.Yes(messages.Iam(power, seat.passcode))))
        out += self._all(messages.Not(messages.Ccd(power)))
        if self.settings.dsd:
            out += self._resume_clock(now)
        # Its orders may be all in already (given before it left): the game may go on.
        return out + self.maybe_process(now)

    def disconnect(self, client: ClientId, now: float) -> Effects:
        """A client left (closed, crashed, dropped for being too slow)."""
        power = self.clients.pop(client, None)
        self.clock.forget(client)
        if not self.started:
            self.lobby.remove(client)
            return []
        if power is None or self.finished:
            return []
        seat = self.seats[power]
        seat.client = None
        if self.halted:
            # Gone because the server stops, not by its own doing: it is not away (the
            # store keeps it playing), and it takes its power back with IAM after the restart.
            return []
        out: Effects = [self._set_status(seat, "disorder")]
        out += self._all(messages.Ccd(power))
        if self.settings.dsd and self.book.needs_orders(power) and power in self._alive():
            out += self._pause_clock(now)
        out += self.maybe_process(now)
        return out

    def wait_for(self, power: str, on: bool, now: float) -> Effects:
        """In phases without a deadline, wait for ``power`` while its player is away, however
        long (on), or play on without it again (off)."""
        if on:
            self.patient.add(power)
            return []
        self.patient.discard(power)
        return self.maybe_process(now)

    # -- the clock -------------------------------------------------------------------------

    def _owed_by_absent(self) -> bool:
        return any(self._in_disorder(p) and self.book.needs_orders(p) for p in self._alive())

    def _begin_phase(self, now: float, left: float | None = None) -> Effects:
        """Start the phase's clock: its full period, or ``left`` seconds (what it had left
        when the server stopped)."""
        limit = self.settings.deadline_for(self.state.phase.kind)
        period = None if limit is None else float(limit)
        if period is not None and left is not None:
            period = min(period, max(0.0, left))
        self.clock.begin(period, now)
        if period is None:
            return []
        if self.settings.dsd and self._owed_by_absent():
            return self._pause_clock(now)
        return self._all(messages.Tme(round(period)))

    def halt(self, now: float) -> Effects:
        """The server is stopping: the clock stops before any player is disconnected, and
        from now on no phase is processed, no game starts and nobody goes into civil disorder
        for leaving (the shutdown disconnects them, not their own doing). The time left is
        stored, for the restart to give the phase the same time."""
        if self.halted:
            return []
        self.halted = True
        remaining = self.clock.halt(now)
        if not self.started or self.finished or remaining is None:
            return []
        return [ClockStopped(self.state.phase.name, remaining)]

    def _pause_clock(self, now: float) -> Effects:
        remaining = self.clock.pause(now)
        if remaining is None:
            return []
        return self._all(messages.Not(messages.Tme(round(remaining))))

    def _resume_clock(self, now: float) -> Effects:
        if self.clock.paused_remaining is None or self._owed_by_absent():
            return []
        remaining = self.clock.resume(now)
        assert remaining is not None
        return self._all(messages.Tme(round(remaining)))

    def next_wakeup(self) -> float | None:
        """When :meth:`on_time` must next be called (a deadline, a TME notice, a join
        timeout, the end of the grace period after a restart; at once when the phase may be
        processed already: a new phase owed only by powers in civil disorder is played at
        once, not when some player next happens to send a message). Never, once halted."""
        if self.halted:
            return None
        if self.ready_to_process():
            return -math.inf
        times = self.clock.wakeups()
        if not self.started:
            times += self.lobby.wakeups()
        if self.rejoin_until is not None:
            times.append(self.rejoin_until)
        return min(times) if times else None

    def on_time(self, now: float) -> Effects:
        if self.halted:
            return []
        if not self.started:
            return self._join_timeouts(now)
        if self.finished:
            return []
        out: Effects = []
        if self.rejoin_until is not None and now >= self.rejoin_until:
            self.rejoin_until = None
            out += self._grace_over()
            out += self.maybe_process(now)
        deadline = self.clock.deadline
        if deadline is not None and now >= deadline:
            return out + self.process_phase(now)
        if deadline is not None:
            out += [Tell(client, messages.Tme(s)) for client, s in self.clock.due(now)]
        return out + self.maybe_process(now)

    # -- messages from clients -------------------------------------------------------------

    def handle(self, client: ClientId, msg: messages.Message, now: float) -> Effects:
        """A message from a client of this game (a player or an observer): dispatched by its
        type (and, for NOT, YES and REJ, the type of what it wraps) through ``_FOR_ANYONE``,
        then, for players only, ``_FOR_PLAYERS``. A player-only message from a client that
        plays no power, and anything no table takes, gets HUH with ERR (as the AiServer)."""
        key = _dispatch_key(msg)
        handler = _FOR_ANYONE.get(key) or _FOR_ANYONE.get(type(msg))
        if handler is not None:
            out = handler(self, client, msg, now)
            if out is not None:
                return out
        power = self.power_of(client)
        player_handler = _FOR_PLAYERS.get(key) or _FOR_PLAYERS.get(type(msg))
        if power is None or player_handler is None:
            return [Tell(client, _huh_for(self.codec, msg))]
        return player_handler(self, client, power, msg, now)

    # Requests anyone in the game may make; None means "not this form" (then HUH).

    def _map_request(self, client: ClientId, msg: messages.Map, now: float) -> Effects | None:
        return [Tell(client, messages.Map(self.map.name))] if msg.name is None else None

    def _mdf_request(self, client: ClientId, msg: messages.Mdf, now: float) -> Effects | None:
        return [Tell(client, self.mdf)] if msg.definition is None else None

    def _map_accepted(self, client: ClientId, msg: messages.Yes, now: float) -> Effects:
        return self.accept_map(client, now)

    def _map_refused(self, client: ClientId, msg: messages.Rej, now: float) -> Effects:
        self.release_joiner(client)
        return [Tell(client, messages.Off()), Close(client, "it refused the map")]

    def _refuse(self, client: ClientId, msg: messages.Message, now: float) -> Effects:
        return [Tell(client, messages.Rej(msg))]

    def _ignore(self, client: ClientId, msg: messages.Message, now: float) -> Effects:
        return []  # never answer a HUH or PRN; YES/REJ answer SVE/LOD: nothing to do

    def _now_request(self, client: ClientId, msg: messages.Now, now: float) -> Effects | None:
        return [Tell(client, self._now())] if msg.turn is None else None

    def _sco_request(self, client: ClientId, msg: messages.Sco, now: float) -> Effects | None:
        return [Tell(client, self._sco())] if not msg.owners else None

    def _hst_request(self, client: ClientId, msg: messages.Hst, now: float) -> Effects:
        turn = self.history.turn(msg.turn) if msg.turn is not None else None
        if turn is None:
            return [Tell(client, messages.Rej(msg))]
        return [Tell(client, reply) for reply in turn]

    def _ord_asked(self, client: ClientId, msg: messages.Ord, now: float) -> Effects | None:
        if msg.order is not None:
            return None
        ords = self.history.last_orders()
        if ords is None:
            return [Tell(client, messages.Rej(messages.Ord()))]
        return [Tell(client, o) for o in ords]

    def _adm(self, client: ClientId, msg: messages.Adm, now: float) -> Effects:
        if self.settings.level == 0:
            return [Tell(client, messages.Rej(msg))]  # gunboat: no talk at all, not even admin chat
        return self._all(msg)

    def _tme(self, client: ClientId, msg: messages.Tme, now: float) -> Effects:
        if msg.seconds is None:
            left = self.clock.left(now)
            return [Tell(client, messages.Rej(msg) if left is None else messages.Tme(left))]
        longest = self.settings.longest_limit()
        if longest is None or msg.seconds < 0 or msg.seconds > longest:
            return [Tell(client, messages.Rej(msg))]
        self.clock.ask(client, msg.seconds)
        return [Tell(client, messages.Yes(msg))]

    def _not_tme(self, client: ClientId, msg: messages.Not, now: float) -> Effects:
        inner = msg.inner
        assert isinstance(inner, messages.Tme)
        forgotten = self.clock.cancel(client, inner.seconds)
        return [Tell(client, messages.Yes(msg) if forgotten else messages.Rej(msg))]

    # Player-only messages.

    def _hlo_request(self, client: ClientId, power: str, msg: messages.Hlo, now: float) -> Effects:
        if not self.started:
            return [Tell(client, messages.Rej(msg))]
        return [Tell(client, self._hlo(power))]

    def _mis_asked(self, client: ClientId, power: str, msg: messages.Mis, now: float) -> Effects:
        if not self.started or self.finished:
            return [Tell(client, messages.Rej(messages.Mis()))]
        return [Tell(client, self._missing(power) or messages.Mis())]

    def _gof_on(self, client: ClientId, power: str, msg: messages.Gof, now: float) -> Effects:
        return self._gof(client, power, msg, True, now)

    def _gof_off(self, client: ClientId, power: str, msg: messages.Not, now: float) -> Effects:
        return self._gof(client, power, msg, False, now)

    def _drw_on(self, client: ClientId, power: str, msg: messages.Drw, now: float) -> Effects:
        return self._drw(client, power, msg, True)

    def _drw_off(self, client: ClientId, power: str, msg: messages.Not, now: float) -> Effects:
        return self._drw(client, power, msg, False)

    # -- orders ----------------------------------------------------------------------------

    def _sub(self, client: ClientId, power: str, msg: messages.Sub, now: float) -> Effects:
        if not self.started or self.finished:
            return [Tell(client, messages.Rej(msg))]
        if msg.turn is not None and msg.turn != self.state.phase:
            return [Tell(client, messages.Rej(msg))]
        if power not in self._alive():
            return [Tell(client, messages.Rej(msg))]
        out: Effects = []
        phase = self.state.phase.name
        for order in msg.orders:
            checked = self.book.submit(power, order)
            note = checked.note
            if note is Note.MBV:
                daide = _daide_form(self.state, checked.order)
                body = self.codec.text(messages.Sub((daide,)))
                out.append(OrderGiven(phase, power, "sub", body))
                self.aoa_notes.pop(_unit_key(order), None)
            elif self.settings.aoa and note not in (Note.NRS, Note.NYU, Note.NSU):
                self.aoa_notes[_unit_key(order)] = (order, note)
                note = Note.MBV
            out.append(Tell(client, messages.Thx(order, note)))
        mis = self._missing(power)
        if mis is not None:
            out.append(Tell(client, mis))
        return out + self.maybe_process(now)

    def _not_sub(self, client: ClientId, power: str, msg: messages.Not, now: float) -> Effects:
        inner = msg.inner
        assert isinstance(inner, messages.Sub)
        if not self.started or self.finished:
            return [Tell(client, messages.Rej(msg))]
        phase = self.state.phase.name
        if not inner.orders:
            self.book.clear(power)
            return [OrderGiven(phase, power, "clear", ""), Tell(client, messages.Yes(msg))]
        order = inner.orders[0]
        if len(inner.orders) == 1 and self.book.cancel(power, order):
            body = self.codec.text(msg)
            return [OrderGiven(phase, power, "not", body), Tell(client, messages.Yes(msg))]
        return [Tell(client, messages.Rej(msg))]

    def _missing(self, power: str) -> messages.Mis | None:
        """What the power still owes, or None when it owes nothing."""
        kind = self.state.phase.kind
        if power not in self._alive() or not self.book.needs_orders(power):
            return None
        if kind == "movement":
            units = tuple(self.book.missing_units(power))
            return messages.Mis(units=units) if units else None
        if kind == "retreat":
            disl = tuple(self.book.missing_retreats(power))
            return messages.Mis(units=disl) if disl else None
        n = self.book.missing_adjustments(power)
        return messages.Mis(count=n) if n else None

    def _gof(
        self,
        client: ClientId,
        power: str,
        msg: messages.Gof | messages.Not,
        ready: bool,
        now: float,
    ) -> Effects:
        if not self.started or self.finished or (not ready and power not in self._alive()):
            return [Tell(client, messages.Rej(msg))]
        if ready:
            self.waiting.discard(power)
        else:
            self.waiting.add(power)
        out: Effects = [FlagSet(self.state.phase.name, power, "wait", not ready)]
        out.append(Tell(client, messages.Yes(msg)))
        if ready:
            mis = self._missing(power)
            if mis is not None:
                out.append(Tell(client, mis))
            out += self.maybe_process(now)
        return out

    def ready_to_process(self) -> bool:
        """Every power that owes orders has given them all and is ready (GOF). Powers in
        civil disorder are not waited for, except during the grace period after a restart,
        in DSD games, in a phase without a deadline when the power is one the game waits for
        (:attr:`patient`), and when no surviving power has its player connected: a game whose
        players are all away is not played out phase after phase with everyone holding; it
        waits for its deadline, or, without deadlines, for its players, however long."""
        if not self.started or self.finished or self.halted:  # (halted: the server stops)
            return False
        alive = self._alive()
        untimed = self.settings.deadline_for(self.state.phase.kind) is None
        if all(self._in_disorder(p) for p in alive):
            return False
        for power in alive:
            if not self.book.needs_orders(power):
                continue
            if self._in_disorder(power):
                if self.rejoin_until is not None or self.settings.dsd:
                    return False
                if untimed and power in self.patient:
                    return False
                continue
            if power in self.waiting or not self.book.complete(power):
                return False
        return True

    def maybe_process(self, now: float) -> Effects:
        if self.ready_to_process():
            return self.process_phase(now)
        return []

    # -- adjudication ----------------------------------------------------------------------

    def process_phase(self, now: float) -> Effects:
        """Adjudicate the phase in progress. The effects begin with the record of the phase
        (stored before any result goes out), then ORDs, SCO, the end if it came (SLO or DRW)
        and NOW, to every client."""
        before = self.state
        processed = process(before, self.book, self.rules)
        ords = [self._ord(before, order, res) for order, res in processed.results]
        after = self.state = processed.state
        self.history.add(before, ords, after)
        unchanged = self.history.unchanged_years(before)
        ended = ending.after_phase(self.settings, before, processed, unchanged)
        record = PhaseProcessed(
            before.phase.name,
            tuple((_ord_power(o), self.codec.text(o)) for o in ords),
            after.phase.name,
            after.to_json(),
            ended,
            tuple(self._eliminate(before, after)),
        )
        out: Effects = [record]
        for o in ords:
            out += self._all(o)
        if processed.centres_updated:
            out += self._all(self._sco())
        if ended is not None:
            out += self._all(ending.announcement(ended))
        # The end of the game is announced before the NOW, as SLO is (spec §7.15).
        out += self._all(self._now())
        self.book = OrderSet(after)
        self.waiting.clear()
        self.draws.clear()
        self.aoa_notes.clear()
        if ended is not None:
            return out + self._finish(ended, recorded=True)
        return out + self._begin_phase(now)

    def _eliminate(self, before: GameState, after: GameState) -> list[tuple[str, int]]:
        """The powers the phase eliminated, with the year (their seats note it)."""
        alive = set(after.alive())
        gone = [(p, before.phase.year) for p in before.alive() if p not in alive]
        for power, year in gone:
            seat = self.seats.get(power)
            if seat is not None:
                seat.status, seat.eliminated = "eliminated", year
        return gone

    def _ord(self, before: GameState, order: Order, res: Result) -> messages.Ord:
        phase = before.phase
        key = _unit_key(order)
        if key in self.aoa_notes:
            given, note = self.aoa_notes[key]
            return messages.Ord(phase, given, messages.NoteResult(note, res.dislodged))
        return messages.Ord(phase, _daide_form(before, order), res)

    def _finish(self, result: ending.Result, recorded: bool = False) -> Effects:
        """The game is over: SMR and OFF to everyone (``recorded``: the phase's record holds
        the result already)."""
        self.finished = True
        self.result = result
        self.clock.stop()
        out: Effects = [] if recorded else [GameFinished(result)]
        return out + self._all(ending.summary(self.state, self.seats)) + self._all(messages.Off())

    # -- draws -----------------------------------------------------------------------------

    def _drw(
        self, client: ClientId, power: str, msg: messages.Drw | messages.Not, vote: bool
    ) -> Effects:
        inner = msg if isinstance(msg, messages.Drw) else msg.inner
        assert isinstance(inner, messages.Drw)  # (the dispatch table routes NOT (DRW) here)
        alive = self._alive()
        if not self.started or self.finished or power not in alive:
            return [Tell(client, messages.Rej(msg))]
        listed = inner.powers
        if listed is not None and (
            not self.settings.pda
            or len(set(listed)) != len(listed)
            or len(listed) < 2
            or any(p not in alive for p in listed)
        ):
            return [Tell(client, messages.Rej(msg))]
        # A bare DRW is a vote for a draw among all survivors (who cannot change within a
        # phase, and votes end with the phase).
        parties = tuple(sorted(inner.powers if inner.powers is not None else alive))
        flag = "draw" if inner.powers is None else "draw:" + " ".join(parties)
        self.draws.vote(power, parties, vote)
        out: Effects = [FlagSet(self.state.phase.name, power, flag, vote)]
        out.append(Tell(client, messages.Yes(msg)))
        if vote:
            out += self._check_draw()
        return out

    def _check_draw(self) -> Effects:
        alive = sorted(self._alive())
        parties = self.draws.agreed(alive)
        if parties is None:
            return []
        result = ending.result("draw", parties, "agreed", self.state, self.state.phase.year)
        announce = messages.Drw() if list(parties) == alive else messages.Drw(parties)
        return self._all(announce) + self._finish(result)

    # -- press -----------------------------------------------------------------------------

    def _snd(self, client: ClientId, power: str, msg: messages.Snd, now: float) -> Effects:
        s = self.settings
        playing = self.started and not self.finished
        deadline = self.clock.deadline
        reply = press.refusal(s, self.state, playing, power, msg, self._in_disorder, deadline, now)
        if reply is not None:
            return [Tell(client, reply)]
        relayed = press.relayed(msg, s.level)
        body = self.codec.text(relayed)
        out: Effects = [PressRelayed(self.state.phase.name, power, tuple(msg.recipients), body)]
        self.press_relayed += 1
        out.append(Tell(client, messages.Yes(msg)))
        frm = messages.Frm(power, msg.recipients, relayed)
        for r in msg.recipients:
            seat = self.seats[r]
            if seat.client is not None:
                out.append(Tell(seat.client, frm))
        return out


_MDFS: dict[str, tuple[GameMap, messages.Mdf]] = {}


def mdf_for(gmap: GameMap) -> messages.Mdf:
    """The MDF of ``gmap``, one message object per map: the shell caches what it encodes to,
    so answering a thousand MDF requests costs one rendering."""
    known = _MDFS.get(gmap.name)
    if known is None or known[0] is not gmap:
        known = _MDFS[gmap.name] = (gmap, messages.Mdf(MapDefinition.from_map(gmap)))
    return known[1]


# A message's type, or for NOT, YES and REJ its type and the type of what it wraps.
_Key: TypeAlias = type | tuple[type, type]


def _dispatch_key(msg: messages.Message) -> _Key:
    """NOT, YES and REJ are told apart by what they wrap."""
    match msg:
        case messages.Not(inner) | messages.Yes(inner) | messages.Rej(inner):
            return (type(msg), type(inner))
    return type(msg)


_FOR_ANYONE: dict[_Key, Callable[[GameMaster, ClientId, Any, float], Effects | None]] = {
    messages.Map: GameMaster._map_request,
    messages.Mdf: GameMaster._mdf_request,
    (messages.Yes, messages.Map): GameMaster._map_accepted,
    (messages.Rej, messages.Map): GameMaster._map_refused,
    messages.Nme: GameMaster._refuse,
    messages.Obs: GameMaster._refuse,
    messages.Iam: GameMaster._refuse,
    messages.Now: GameMaster._now_request,
    messages.Sco: GameMaster._sco_request,
    messages.Hst: GameMaster._hst_request,
    messages.Ord: GameMaster._ord_asked,
    messages.Adm: GameMaster._adm,
    messages.Tme: GameMaster._tme,
    (messages.Not, messages.Tme): GameMaster._not_tme,
    messages.Huh: GameMaster._ignore,
    messages.Prn: GameMaster._ignore,
    messages.Yes: GameMaster._ignore,
    messages.Rej: GameMaster._ignore,
}

_FOR_PLAYERS: dict[_Key, Callable[[GameMaster, ClientId, str, Any, float], Effects]] = {
    messages.Hlo: GameMaster._hlo_request,
    messages.Sub: GameMaster._sub,
    (messages.Not, messages.Sub): GameMaster._not_sub,
    messages.Mis: GameMaster._mis_asked,
    messages.Gof: GameMaster._gof_on,
    (messages.Not, messages.Gof): GameMaster._gof_off,
    messages.Drw: GameMaster._drw_on,
    (messages.Not, messages.Drw): GameMaster._drw_off,
    messages.Snd: GameMaster._snd,
}


def _daide_form(state: GameState, order: Order) -> Order:
    """The order as DAIDE can write it. A move by convoy has its route (``CTO ... VIA (...)``):
    one given in another notation ("A LON - BEL VIA", from the web page or the package's
    clients) gets the shortest route. A support names a province (``SUP ... MTO STP``): the
    package's clients may name a coast ("F FIN S F BOT - STP/SC"), which the book has checked
    and DAIDE has no way to say."""
    if isinstance(order, Move) and order.convoy and order.via is None:
        return with_route(state, order) or Move(order.unit, order.dest)
    if isinstance(order, SupportMove) and "/" in order.dest:
        return order._replace(dest=province_of(order.dest))
    return order


def _unit_key(order: Order) -> tuple[str, str]:
    """Game-wide, an order is for its power's unit or waive (the engine's key is per power)."""
    return order_power(order), order_key(order)


def _ord_power(o: messages.Ord) -> str:
    assert o.order is not None
    return order_power(o.order)


def _huh_for(codec: Codec, msg: messages.Message) -> messages.Huh:
    """HUH for a message that is valid DAIDE but not allowed here: ERR before its first token,
    as the AiServer answers an observer's DRW."""
    try:
        words = codec.words(msg)  # token by token: a string with spaces in it stays one word
    except (ValueError, ParseError):
        words = ()
    return messages.Huh(("ERR", *words))
