"""One game's master: joining, orders, press, deadlines, adjudication and the end of the game.

The :class:`GameMaster` is the DAIDE game logic with no I/O: each method takes what a client
sent (as a typed message) and the current time, and returns the messages to send, each
addressed to a client id. The async shell (``server.app``) owns the sockets and the clock and
calls these methods from the game's one task, so a game's state is never shared.

Persistence happens here, through the store, at the moment each fact is decided: every
accepted order, flag and press message as it arrives, and each processed phase as one
transaction. :meth:`GameMaster.restore` rebuilds a game from the store after a restart.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from engine.convoy import with_route
from engine.map import GameMap, load_map
from engine.orders import Move, Note, Order, order_key, order_power
from engine.orderset import OrderSet
from engine.state import GameState, Phase, initial_state
from engine.turn import PhaseResult, process
from protocol import messages as m
from protocol.codec import Codec, codec_for
from protocol.levels import level_error, trim_try
from protocol.mdf import MapDefinition, table_for_map
from protocol.syntax import ParseError
from server.settings import JOIN_TIMEOUT, GameSettings
from server.store import Store

ClientId = int
Outgoing = list[tuple[ClientId, Any]]
POW_REQUEST_SEP = ":"


MAX_PASSCODE = 8191  # passcodes are 1..8191, as the AiServer's


def new_passcode() -> int:
    """A passcode nobody can predict (never from the game's seeded generator, which only
    deals the powers)."""
    return secrets.randbelow(MAX_PASSCODE) + 1


class JoinRefused(Exception):
    """A client cannot join this game (full, started, power taken)."""


@dataclass
class Seat:
    """A power and the player who plays it."""

    power: str
    name: str
    version: str
    passcode: int
    label: str | None = None
    client: ClientId | None = None
    ready_map: bool = False
    ever_connected: bool = True


@dataclass
class Joiner:
    """A client that sent NME and waits for the game to start (powers are dealt at start)."""

    client: ClientId
    name: str
    version: str
    request: str | None  # a power asked for with 'POW:name'
    label: str | None = None
    ready_map: bool = False
    joined_at: float = 0.0  # when it sent NME (the join timeout counts from there)


@dataclass(frozen=True)
class Drop:
    """Outgoing instruction to the shell: close this client's connection, for ``reason``."""

    reason: str


@dataclass
class PhaseClock:
    """The deadline of the phase in progress, in the shell's monotonic seconds."""

    deadline: float | None = None
    paused_remaining: float | None = None  # DSD: time left when the clock stopped
    notify: dict[ClientId, set[int]] = field(default_factory=dict)  # TME (s) requests
    notified: set[tuple[ClientId, int]] = field(default_factory=set)


class GameMaster:
    def __init__(
        self,
        game_id: int,
        settings: GameSettings,
        store: Store,
        rng: random.Random,
        name: str = "",
        gmap: GameMap | None = None,
    ) -> None:
        self.id = game_id
        self.name = name or f"game-{game_id}"
        self.settings = settings
        self.store = store
        self.rng = rng
        self.map = gmap or load_map(settings.map)
        self.codec: Codec = codec_for(table_for_map(self.map))
        self.state: GameState = initial_state(self.map)
        self.book = OrderSet(self.state)
        self.seats: dict[str, Seat] = {}
        self.joiners: list[Joiner] = []
        self.observers: set[ClientId] = set()
        self.clients: dict[ClientId, str | None] = {}  # client -> power (None: observer)
        self.started = False
        self.finished = False
        self.result: dict[str, Any] | None = None
        self.waiting: set[str] = set()  # powers that sent NOT (GOF)
        self.draws: dict[str, set[tuple[str, ...]]] = {}  # power -> draws it votes for
        # AOA: (power, order key) -> the illegal order accepted for it, and its note
        self.aoa_notes: dict[tuple[str, str], tuple[Order, Note]] = {}
        self.clock = PhaseClock()
        self.history: list[tuple[Phase, list[m.Ord], GameState]] = []  # processed phases
        self.unchanged_since: int = self.state.phase.year
        self.rejoin_until: float | None = None
        # Powers whose absence a phase without a deadline waits out (a person's seat on the
        # web page): set by whoever seats the player, not persisted.
        self.patient: set[str] = set()
        self.join_timeout = JOIN_TIMEOUT  # seconds a joiner has to accept the map

    @property
    def mdf(self) -> m.Mdf:
        """The map's MDF, built once per map (an MDF takes about a millisecond to build)."""
        return mdf_for(self.map)

    @classmethod
    def restore(
        cls, game_id: int, store: Store, rng: random.Random, now: float, grace: float
    ) -> GameMaster:
        """Rebuild an unfinished game from the store, at the phase it was in, with the orders,
        ready flags and draw votes given so far. Every player is away until it sends IAM;
        for ``grace`` seconds the game waits for them before it treats absent powers as in
        civil disorder."""
        row = store.game(game_id)
        settings = GameSettings.model_validate(row.settings)
        game = cls(game_id, settings, store, rng, row.name)
        states = store.states(game_id)
        if not states:
            raise ValueError(f"game {game_id} never started")
        codec = game.codec
        game.started = True
        for p in store.players(game_id):
            game.seats[p.power] = Seat(p.power, p.name, p.version, p.passcode, p.label, None)
        parsed = [GameState.from_json(js, game.map) for _, js in states]
        results: dict[str, list[m.Ord]] = {}
        for phase, _, text in store.results(game_id):
            msg = codec.parse_text(text)
            assert isinstance(msg, m.Ord)
            results.setdefault(phase, []).append(msg)
        for before, after in pairwise(parsed):
            game.history.append((before.phase, results.get(before.phase.name, []), after))
            if after.centres != before.centres:
                game.unchanged_since = before.phase.year
        game.state = parsed[-1]
        game.book = OrderSet(game.state)
        phase = game.state.phase.name
        for sub in store.submissions(game_id, phase):
            if sub.action == "clear":
                game.book.clear(sub.power)
                continue
            msg = codec.parse_text(sub.body)
            if sub.action == "sub" and isinstance(msg, m.Sub):
                for order in msg.orders:
                    game.book.submit(sub.power, order)
            elif sub.action == "not" and isinstance(msg, m.Not) and isinstance(msg.inner, m.Sub):
                for order in msg.inner.orders:
                    game.book.cancel(sub.power, order)
        for power, flag in store.flags(game_id, phase):
            if flag == "wait":
                game.waiting.add(power)
            elif flag == "draw":
                game._vote(power, tuple(sorted(game._alive())), True)
            elif flag.startswith("draw:"):
                game._vote(power, tuple(flag[5:].split()), True)
        game.rejoin_until = now + grace
        game._begin_phase(now)
        return game

    # -- who is who ----------------------------------------------------------------------

    @property
    def full(self) -> bool:
        return len(self.joiners) + len(self.seats) >= len(self.map.powers)

    def power_of(self, client: ClientId) -> str | None:
        return self.clients.get(client)

    def everyone(self) -> list[ClientId]:
        return list(self.clients)

    def _all(self, message: Any) -> Outgoing:
        return [(c, message) for c in self.clients]

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
    ) -> Outgoing:
        """NME: join (the power is dealt when the game starts). ``power`` reserves one (a
        tournament seat); otherwise ``'POW:name'`` asks for a power, as David Norman's client
        writes a power request."""
        if self.started:
            raise JoinRefused("the game has started")
        if self.full:
            raise JoinRefused("the game is full")
        request = power
        head, sep, _ = name.partition(POW_REQUEST_SEP)
        if request is None and sep and head.upper() in self.map.powers:
            request = head.upper()
        if request is not None:
            if any(j.request == request for j in self.joiners):
                raise JoinRefused(f"{request} is already taken")
            if request not in self.map.powers:
                raise JoinRefused(f"no power {request}")
        self.joiners.append(Joiner(client, name, version, request, label, joined_at=now))
        self.clients[client] = None
        return [(client, m.Yes(m.Nme(name, version))), (client, m.Map(self.map.name))]

    def add_observer(self, client: ClientId) -> Outgoing:
        self.observers.add(client)
        self.clients[client] = None
        out: Outgoing = [(client, m.Yes(m.Obs())), (client, m.Map(self.map.name))]
        if self.started:
            out += [(client, self._hlo(None)), (client, self._sco()), (client, self._now())]
        return out

    def accept_map(self, client: ClientId, now: float) -> Outgoing:
        for j in self.joiners:
            if j.client == client:
                j.ready_map = True
        if (
            not self.started
            and len(self.joiners) == len(self.map.powers)
            and all(j.ready_map for j in self.joiners)
        ):
            return self.start(now)
        return []

    def release_joiner(self, client: ClientId) -> Joiner | None:
        """Take a waiting player out of this forming game (to seat it in an earlier one)."""
        for j in self.joiners:
            if j.client == client:
                self.drop_joiner(client)
                return j
        return None

    def adopt_joiner(self, joiner: Joiner, now: float) -> Outgoing:
        """Seat a player moved here from a later forming game; it may complete this one."""
        if self.started or self.full or (
            joiner.request is not None and any(j.request == joiner.request for j in self.joiners)
        ):
            raise JoinRefused("no seat here any more")
        self.joiners.append(joiner)
        self.clients[joiner.client] = None
        return self.accept_map(joiner.client, now) if joiner.ready_map else []

    def _join_timeouts(self, now: float) -> Outgoing:
        """Drop the joiners that have not accepted the map within :attr:`join_timeout`."""
        out: Outgoing = []
        for j in list(self.joiners):
            if not j.ready_map and now >= j.joined_at + self.join_timeout:
                self.drop_joiner(j.client)
                why = f"the map was not accepted (YES (MAP)) within {self.join_timeout:g} s"
                out += [(j.client, m.Off()), (j.client, Drop(why))]
        return out

    def drop_joiner(self, client: ClientId) -> None:
        self.joiners = [j for j in self.joiners if j.client != client]
        self.clients.pop(client, None)
        self.observers.discard(client)

    def start(self, now: float, absent: Iterable[tuple[str, str | None]] = ()) -> Outgoing:
        """Deal the powers (requests first, then the rest in arrival order), send HLO, SCO,
        NOW and start the clock. ``absent`` (power, label) are seats whose player never came
        (a tournament bot that failed to start): those powers begin in civil disorder."""
        for power, label in absent:
            passcode = new_passcode()
            self.seats[power] = Seat(power, label or "absent", "-", passcode, label, None, False)
            self.store.set_player(self.id, power, label or "absent", "-", passcode, label)
            self.store.set_player_status(self.id, power, "crashed")
        taken = {j.request for j in self.joiners} | set(self.seats)
        free = [p for p in self.map.powers if p not in taken]
        for j in self.joiners:
            if not j.ready_map:  # joined but never accepted the map: treated as absent
                self.clients.pop(j.client, None)
                continue
            power = j.request or free.pop(0)
            passcode = new_passcode()
            self.seats[power] = Seat(power, j.name, j.version, passcode, j.label, j.client, True)
            self.clients[j.client] = power
            self.store.set_player(self.id, power, j.name, j.version, passcode, j.label)
        self.joiners = []
        self.started = True
        self.store.start(self.id, self.state.phase.name, self.state.to_json())
        out: Outgoing = []
        for client, who in self.clients.items():
            out.append((client, self._hlo(who)))
        out += self._all(self._sco())
        out += self._all(self._now())
        out += self._begin_phase(now)
        return out

    def _variant(self) -> m.Variant:
        s = self.settings
        return m.Variant(
            level=s.level,
            mtl=s.move_time,
            rtl=s.retreat_time,
            btl=s.build_time,
            dsd=s.dsd,
            aoa=s.aoa,
            pda=s.pda,
            npr=s.npr,
            npb=s.npb,
            ptl=s.press_time,
        )

    def _hlo(self, power: str | None) -> m.Hlo:
        if power is None:
            return m.Hlo("UNO", 0, self._variant())
        return m.Hlo(power, self.seats[power].passcode, self._variant())

    def _now(self) -> m.Now:
        return m.Now.from_state(self.state)

    def _sco(self) -> m.Sco:
        return m.Sco.from_centres(self.state.centres, self.map)

    # -- reconnecting ------------------------------------------------------------------------

    def awaits(self, power: str) -> bool:
        """Whether ``power`` has no player now and may be taken back with IAM."""
        seat = self.seats.get(power)
        return self.started and not self.finished and seat is not None and seat.client is None

    def can_rejoin(self, power: str, passcode: int) -> bool:
        seat = self.seats.get(power)
        return (
            self.started
            and not self.finished
            and seat is not None
            and seat.client is None
            and seat.passcode == passcode
        )

    def _grace_over(self) -> Outgoing:
        """The grace after a restart is over: the powers nobody took back are in civil
        disorder, in the database and on the wire."""
        out: Outgoing = []
        recorded = {p.power: p.status for p in self.store.players(self.id)}
        for power, seat in self.seats.items():
            if seat.client is None and power in self._alive():
                if recorded.get(power) == "playing":  # (a crashed bot stays crashed)
                    self.store.set_player_status(self.id, power, "disorder")
                out += self._all(m.Ccd(power))
        return out

    def rejoin(self, client: ClientId, power: str, now: float) -> Outgoing:
        """IAM accepted: the client plays ``power`` again."""
        seat = self.seats[power]
        seat.client = client
        self.clients[client] = power
        self.store.set_player_status(self.id, power, "playing")
        out: Outgoing = [(client, m.Yes(m.Iam(power, seat.passcode)))]
        out += self._all(m.Not(m.Ccd(power)))
        if self.settings.dsd:
            out += self._resume_clock(now)
        # Its orders may be all in already (given before it left): the game may go on.
        return out + self.maybe_process(now)

    def disconnect(self, client: ClientId, now: float) -> Outgoing:
        """A client left (closed, crashed, dropped for being too slow)."""
        power = self.clients.pop(client, None)
        self.observers.discard(client)
        self.clock.notify.pop(client, None)
        if not self.started:
            self.joiners = [j for j in self.joiners if j.client != client]
            return []
        if power is None or self.finished:
            return []
        seat = self.seats[power]
        seat.client = None
        self.store.set_player_status(self.id, power, "disorder")
        out = self._all(m.Ccd(power))
        if self.settings.dsd and self.book.needs_orders(power) and power in self._alive():
            out += self._pause_clock(now)
        out += self.maybe_process(now)
        return out

    # -- the clock -------------------------------------------------------------------------

    def _begin_phase(self, now: float) -> Outgoing:
        self.clock.notified.clear()
        limit = self.settings.deadline_for(self.state.phase.kind)
        self.clock.deadline = None if limit is None else now + limit
        self.clock.paused_remaining = None
        if limit is None:
            return []
        if self.settings.dsd and any(
            self._in_disorder(p) and self.book.needs_orders(p) for p in self._alive()
        ):
            return self._pause_clock(now)
        return self._all(m.Tme(limit))

    def _pause_clock(self, now: float) -> Outgoing:
        if self.clock.deadline is None:
            return []
        remaining = max(0.0, self.clock.deadline - now)
        self.clock.paused_remaining = remaining
        self.clock.deadline = None
        return self._all(m.Not(m.Tme(round(remaining))))

    def _resume_clock(self, now: float) -> Outgoing:
        if self.clock.paused_remaining is None:
            return []
        if any(self._in_disorder(p) and self.book.needs_orders(p) for p in self._alive()):
            return []
        remaining = self.clock.paused_remaining
        self.clock.paused_remaining = None
        self.clock.deadline = now + remaining
        return self._all(m.Tme(round(remaining)))

    def next_wakeup(self) -> float | None:
        """When :meth:`on_time` must next be called (a deadline, a TME notice, the end of
        the grace period after a restart)."""
        times = []
        if not self.started:
            times += [j.joined_at + self.join_timeout for j in self.joiners if not j.ready_map]
        if self.clock.deadline is not None:
            times.append(self.clock.deadline)
            for client, secs in self.clock.notify.items():
                for s in secs:
                    if (client, s) not in self.clock.notified:
                        times.append(self.clock.deadline - s)
        if self.rejoin_until is not None:
            times.append(self.rejoin_until)
        return min(times) if times else None

    def on_time(self, now: float) -> Outgoing:
        if not self.started:
            return self._join_timeouts(now)
        if self.finished:
            return []
        out: Outgoing = []
        if self.rejoin_until is not None and now >= self.rejoin_until:
            self.rejoin_until = None
            out += self._grace_over()
            out += self.maybe_process(now)
        deadline = self.clock.deadline
        if deadline is None:
            return out
        if now >= deadline:
            return out + self.process_phase(now)
        for client, secs in self.clock.notify.items():
            for s in sorted(secs, reverse=True):
                if now >= deadline - s and (client, s) not in self.clock.notified:
                    self.clock.notified.add((client, s))
                    out.append((client, m.Tme(s)))
        return out

    # -- messages from clients -------------------------------------------------------------

    def handle(self, client: ClientId, msg: Any, now: float) -> Outgoing:
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
            return [(client, _huh_for(self.codec, msg))]
        return player_handler(self, client, power, msg, now)

    # Requests anyone in the game may make; None means "not this form" (then HUH).

    def _map_request(self, client: ClientId, msg: m.Map, now: float) -> Outgoing | None:
        return [(client, m.Map(self.map.name))] if msg.name is None else None

    def _mdf_request(self, client: ClientId, msg: m.Mdf, now: float) -> Outgoing | None:
        return [(client, self.mdf)] if msg.definition is None else None

    def _map_accepted(self, client: ClientId, msg: m.Yes, now: float) -> Outgoing:
        return self.accept_map(client, now)

    def _map_refused(self, client: ClientId, msg: m.Rej, now: float) -> Outgoing:
        self.drop_joiner(client)
        return [(client, m.Off())]

    def _refuse(self, client: ClientId, msg: Any, now: float) -> Outgoing:
        return [(client, m.Rej(msg))]

    def _ignore(self, client: ClientId, msg: Any, now: float) -> Outgoing:
        return []  # never answer a HUH or PRN; YES/REJ answer SVE/LOD: nothing to do

    def _now_request(self, client: ClientId, msg: m.Now, now: float) -> Outgoing | None:
        return [(client, self._now())] if msg.turn is None else None

    def _sco_request(self, client: ClientId, msg: m.Sco, now: float) -> Outgoing | None:
        return [(client, self._sco())] if not msg.owners else None

    def _hst_request(self, client: ClientId, msg: m.Hst, now: float) -> Outgoing:
        return self._history(client, msg)

    def _ord_asked(self, client: ClientId, msg: m.Ord, now: float) -> Outgoing | None:
        return self._ord_request(client) if msg.order is None else None

    def _adm(self, client: ClientId, msg: m.Adm, now: float) -> Outgoing:
        if self.settings.level == 0:
            return [(client, m.Rej(msg))]  # gunboat: no talk at all, not even admin chat
        return self._all(msg)

    # Player-only messages.

    def _hlo_request(self, client: ClientId, power: str, msg: m.Hlo, now: float) -> Outgoing:
        if not self.started:
            return [(client, m.Rej(msg))]
        return [(client, self._hlo(power))]

    def _mis_asked(self, client: ClientId, power: str, msg: m.Mis, now: float) -> Outgoing:
        return self._mis_request(client, power)

    def _gof_on(self, client: ClientId, power: str, msg: Any, now: float) -> Outgoing:
        return self._gof(client, power, msg, True, now)

    def _gof_off(self, client: ClientId, power: str, msg: Any, now: float) -> Outgoing:
        return self._gof(client, power, msg, False, now)

    def _drw_on(self, client: ClientId, power: str, msg: Any, now: float) -> Outgoing:
        return self._drw(client, power, msg, True, now)

    def _drw_off(self, client: ClientId, power: str, msg: Any, now: float) -> Outgoing:
        return self._drw(client, power, msg, False, now)

    # -- orders ----------------------------------------------------------------------------

    def _sub(self, client: ClientId, power: str, msg: m.Sub, now: float) -> Outgoing:
        if not self.started or self.finished:
            return [(client, m.Rej(msg))]
        if msg.turn is not None and msg.turn != self.state.phase:
            return [(client, m.Rej(msg))]
        if power not in self._alive():
            return [(client, m.Rej(msg))]
        out: Outgoing = []
        phase = self.state.phase.name
        for order in msg.orders:
            checked = self.book.submit(power, order)
            note = checked.note
            if note is Note.MBV:
                daide = _daide_form(self.state, checked.order)
                self.store.add_submission(
                    self.id, phase, power, "sub", self.codec.text(m.Sub((daide,))), "MBV"
                )
                self.aoa_notes.pop(_unit_key(order), None)
            elif self.settings.aoa and note not in (Note.NRS, Note.NYU, Note.NSU):
                self.aoa_notes[_unit_key(order)] = (order, note)
                note = Note.MBV
            out.append((client, m.Thx(order, note)))
        mis = self._missing(power)
        if mis is not None:
            out.append((client, mis))
        return out + self.maybe_process(now)

    def _not_sub(self, client: ClientId, power: str, msg: m.Not, now: float) -> Outgoing:
        inner = msg.inner
        assert isinstance(inner, m.Sub)
        if not self.started or self.finished:
            return [(client, m.Rej(msg))]
        phase = self.state.phase.name
        if not inner.orders:
            self.book.clear(power)
            self.store.add_submission(self.id, phase, power, "clear", "", "MBV")
            return [(client, m.Yes(msg))]
        order = inner.orders[0]
        if len(inner.orders) == 1 and self.book.cancel(power, order):
            self.store.add_submission(self.id, phase, power, "not", self.codec.text(msg), "MBV")
            return [(client, m.Yes(msg))]
        return [(client, m.Rej(msg))]

    def _missing(self, power: str) -> m.Mis | None:
        """What the power still owes, or None when it owes nothing."""
        kind = self.state.phase.kind
        if power not in self._alive() or not self.book.needs_orders(power):
            return None
        if kind == "movement":
            units = tuple(self.book.missing_units(power))
            return m.Mis(units=units) if units else None
        if kind == "retreat":
            disl = tuple(self.book.missing_retreats(power))
            return m.Mis(units=disl) if disl else None
        n = self.book.missing_adjustments(power)
        return m.Mis(count=n) if n else None

    def _mis_request(self, client: ClientId, power: str) -> Outgoing:
        if not self.started or self.finished:
            return [(client, m.Rej(m.Mis()))]
        return [(client, self._missing(power) or m.Mis())]

    def _gof(self, client: ClientId, power: str, msg: Any, ready: bool, now: float) -> Outgoing:
        if not self.started or self.finished or (not ready and power not in self._alive()):
            return [(client, m.Rej(msg))]
        phase = self.state.phase.name
        if ready:
            self.waiting.discard(power)
        else:
            self.waiting.add(power)
        self.store.set_flag(self.id, phase, power, "wait", not ready)
        out: Outgoing = [(client, m.Yes(msg))]
        if ready:
            mis = self._missing(power)
            if mis is not None:
                out.append((client, mis))
            out += self.maybe_process(now)
        return out

    def _untimed(self) -> bool:
        """The phase in progress has no deadline (it waits for the players)."""
        return self.settings.deadline_for(self.state.phase.kind) is None

    def ready_to_process(self) -> bool:
        """Every power that owes orders has given them all and is ready (GOF). Powers in
        civil disorder are not waited for, except during the grace period after a restart,
        in DSD games, and in a phase without a deadline when the power is one the game waits
        for (:attr:`patient`) or when no surviving power has its player connected: a game
        without deadlines whose players are all away waits for them, however long."""
        if not self.started or self.finished:
            return False
        alive = self._alive()
        untimed = self._untimed()
        if untimed and all(self._in_disorder(p) for p in alive):
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

    def maybe_process(self, now: float) -> Outgoing:
        if self.ready_to_process():
            return self.process_phase(now)
        return []

    # -- adjudication ----------------------------------------------------------------------

    def process_phase(self, now: float) -> Outgoing:
        before = self.state
        alive_before = set(before.alive())
        result = process(before, self.book)
        ords = [self._ord(before, order, res) for order, res in result.results]
        after = result.state
        self.state = after
        out: Outgoing = []
        for o in ords:
            out += self._all(o)
        ended: dict[str, Any] | None = None
        if result.centres_updated:
            out += self._all(self._sco())
            if after.centres != before.centres:
                self.unchanged_since = before.phase.year
            winner = after.winner()
            if winner is not None:
                out += self._all(m.Slo(winner))
                ended = self._result("solo", [winner], "solo", before.phase.year)
        if ended is None:
            ended = self._end_rule(before, result)
            if ended is not None:
                out += self._all(m.Drw())
        # The end of the game is announced before the NOW, as SLO is (spec §7.15).
        out += self._all(self._now())
        eliminated = [(p, before.phase.year) for p in alive_before if p not in after.alive()]
        self.store.record_phase(
            self.id,
            before.phase.name,
            [(_ord_power(o), self.codec.text(o)) for o in ords],
            after.phase.name,
            after.to_json(),
            ended,
            eliminated,
        )
        self.history.append((before.phase, ords, after))
        self.book = OrderSet(after)
        self.waiting.clear()
        self.draws.clear()
        self.aoa_notes.clear()
        if ended is not None:
            return out + self._finish(ended)
        return out + self._begin_phase(now)

    def _ord(self, before: GameState, order: Order, res: Any) -> m.Ord:
        phase = before.phase
        key = _unit_key(order)
        if key in self.aoa_notes:
            given, note = self.aoa_notes[key]
            return m.Ord(phase, given, m.NoteResult(note, res.dislodged))
        return m.Ord(phase, _daide_form(before, order), res)

    def _end_rule(self, before: GameState, result: PhaseResult) -> dict[str, Any] | None:
        s = self.settings
        after = result.state
        if s.max_year is not None and after.phase.year > s.max_year:
            return self._result("draw", after.alive(), "year limit", before.phase.year)
        if (
            s.draw_unchanged_years is not None
            and result.centres_updated
            and before.phase.year - self.unchanged_since >= s.draw_unchanged_years
        ):
            return self._result("draw", after.alive(), "no centre changed hands", before.phase.year)
        return None

    def _result(
        self, kind: str, powers: Iterable[str], reason: str, year: int | None = None
    ) -> dict[str, Any]:
        return {
            "kind": kind,
            "powers": sorted(powers),
            "reason": reason,
            "year": self.state.phase.year if year is None else year,
            "phase": self.state.phase.name,
            "centres": self.state.centre_counts(),
        }

    def _finish(self, result: dict[str, Any]) -> Outgoing:
        self.finished = True
        self.result = result
        self.clock.deadline = None
        self.store.finish(self.id, result)
        return self._all(self._smr()) + self._all(m.Off())

    def _smr(self) -> m.Smr:
        counts = self.state.centre_counts()
        eliminated = {p.power: p.eliminated for p in self.store.players(self.id)}
        entries = []
        for power in self.map.powers:
            seat = self.seats.get(power)
            year = eliminated.get(power) if counts[power] == 0 else None
            entries.append(
                m.SmrEntry(
                    power,
                    seat.name if seat else "",
                    seat.version if seat else "",
                    counts[power],
                    year,
                )
            )
        return m.Smr(self.state.phase, tuple(entries))

    # -- history -----------------------------------------------------------------------------

    def _history(self, client: ClientId, msg: m.Hst) -> Outgoing:
        for phase, ords, after in self.history:
            if phase == msg.turn:
                out: Outgoing = [(client, o) for o in ords]
                out.append((client, m.Sco.from_centres(after.centres, self.map)))
                out.append((client, m.Now.from_state(after)))
                return out
        return [(client, m.Rej(msg))]

    def _ord_request(self, client: ClientId) -> Outgoing:
        """The last movement phase's results and any retreat or adjustment results since."""
        if not self.history:
            return [(client, m.Rej(m.Ord()))]
        start = max(
            (i for i, (phase, _, _) in enumerate(self.history) if phase.kind == "movement"),
            default=0,
        )
        return [(client, o) for _, ords, _ in self.history[start:] for o in ords]

    # -- deadlines asked for ---------------------------------------------------------------

    def _longest_limit(self) -> int | None:
        s = self.settings
        limits = [x for x in (s.move_time, s.retreat_time, s.build_time) if x is not None]
        return max(limits) if limits else None

    def _tme(self, client: ClientId, msg: m.Tme, now: float) -> Outgoing:
        if msg.seconds is None:
            if self.clock.deadline is None:
                if self.clock.paused_remaining is not None:
                    return [(client, m.Tme(round(self.clock.paused_remaining)))]
                return [(client, m.Rej(msg))]
            return [(client, m.Tme(max(0, round(self.clock.deadline - now))))]
        longest = self._longest_limit()
        if longest is None or msg.seconds < 0 or msg.seconds > longest:
            return [(client, m.Rej(msg))]
        self.clock.notify.setdefault(client, set()).add(msg.seconds)
        return [(client, m.Yes(msg))]

    def _not_tme(self, client: ClientId, msg: m.Not) -> Outgoing:
        inner = msg.inner
        assert isinstance(inner, m.Tme)
        wanted = self.clock.notify.get(client, set())
        if inner.seconds is None:
            self.clock.notify.pop(client, None)
            return [(client, m.Yes(msg))]
        if inner.seconds in wanted:
            wanted.discard(inner.seconds)
            return [(client, m.Yes(msg))]
        return [(client, m.Rej(msg))]

    # -- draws -----------------------------------------------------------------------------

    def _drw(self, client: ClientId, power: str, msg: Any, vote: bool, now: float) -> Outgoing:
        inner = msg if vote else msg.inner
        alive = self._alive()
        if not self.started or self.finished or power not in alive:
            return [(client, m.Rej(msg))]
        listed = inner.powers
        if listed is not None and (
            not self.settings.pda
            or len(set(listed)) != len(listed)
            or len(listed) < 2
            or any(p not in alive for p in listed)
        ):
            return [(client, m.Rej(msg))]
        # A bare DRW is a vote for a draw among all survivors (who cannot change within a
        # phase, and votes end with the phase).
        parties = tuple(sorted(inner.powers if inner.powers is not None else alive))
        flag = "draw" if inner.powers is None else "draw:" + " ".join(parties)
        self._vote(power, parties, vote)
        self.store.set_flag(self.id, self.state.phase.name, power, flag, vote)
        out: Outgoing = [(client, m.Yes(msg))]
        if vote:
            out += self._check_draw()
        return out

    def _vote(self, power: str, parties: tuple[str, ...], vote: bool) -> None:
        mine = self.draws.setdefault(power, set())
        if vote:
            mine.add(parties)
        else:
            mine.discard(parties)

    def _check_draw(self) -> Outgoing:
        alive = sorted(self._alive())
        agreed = set.intersection(*(self.draws.get(p, set()) for p in alive)) if alive else set()
        if not agreed:
            return []
        parties = max(agreed, key=len)
        result = self._result("draw", parties, "agreed")
        announce = m.Drw() if list(parties) == alive else m.Drw(parties)
        return self._all(announce) + self._finish(result)

    # -- press -----------------------------------------------------------------------------

    def _snd(self, client: ClientId, power: str, msg: m.Snd, now: float) -> Outgoing:
        s = self.settings
        huh = level_error(msg, s.level)
        if huh is not None:
            return [(client, huh)]
        kind = self.state.phase.kind
        if (
            not self.started
            or self.finished
            or power not in self._alive()
            or power in msg.recipients
            or (msg.turn is not None and msg.turn != self.state.phase)
            or (s.npr and kind == "retreat")
            or (s.npb and kind == "adjustment")
            or self._past_press_deadline(now)
        ):
            return [(client, m.Rej(msg))]
        alive = self._alive()
        for r in msg.recipients:
            if r not in alive:
                return [(client, m.Out(r))]
            if self._in_disorder(r):
                return [(client, m.Ccd(r))]
        press = msg.press
        if isinstance(press, m.Try):
            press = trim_try(press, s.level)
        self.store.add_press(
            self.id, self.state.phase.name, power, msg.recipients, self.codec.text(press)
        )
        frm = m.Frm(power, msg.recipients, press)
        out: Outgoing = [(client, m.Yes(msg))]
        for r in msg.recipients:
            seat = self.seats[r]
            if seat.client is not None:
                out.append((seat.client, frm))
        return out

    def _past_press_deadline(self, now: float) -> bool:
        s = self.settings
        if s.press_time is None or self.state.phase.kind != "movement":
            return False
        if self.clock.deadline is None:
            return False
        return self.clock.deadline - now < s.press_time


_MDFS: dict[str, tuple[GameMap, m.Mdf]] = {}


def mdf_for(gmap: GameMap) -> m.Mdf:
    """The MDF of ``gmap``, one message object per map: the shell caches what it encodes to,
    so answering a thousand MDF requests costs one rendering."""
    known = _MDFS.get(gmap.name)
    if known is None or known[0] is not gmap:
        known = _MDFS[gmap.name] = (gmap, m.Mdf(MapDefinition.from_map(gmap)))
    return known[1]


def _dispatch_key(msg: Any) -> Any:
    """NOT, YES and REJ are told apart by what they wrap."""
    if type(msg) in (m.Not, m.Yes, m.Rej):
        return (type(msg), type(msg.inner))
    return type(msg)


_FOR_ANYONE: dict[Any, Callable[[GameMaster, ClientId, Any, float], Outgoing | None]] = {
    m.Map: GameMaster._map_request,
    m.Mdf: GameMaster._mdf_request,
    (m.Yes, m.Map): GameMaster._map_accepted,
    (m.Rej, m.Map): GameMaster._map_refused,
    m.Nme: GameMaster._refuse,
    m.Obs: GameMaster._refuse,
    m.Iam: GameMaster._refuse,
    m.Now: GameMaster._now_request,
    m.Sco: GameMaster._sco_request,
    m.Hst: GameMaster._hst_request,
    m.Ord: GameMaster._ord_asked,
    m.Adm: GameMaster._adm,
    m.Tme: GameMaster._tme,
    (m.Not, m.Tme): lambda g, c, msg, now: g._not_tme(c, msg),
    m.Huh: GameMaster._ignore,
    m.Prn: GameMaster._ignore,
    m.Yes: GameMaster._ignore,
    m.Rej: GameMaster._ignore,
}

_FOR_PLAYERS: dict[Any, Callable[[GameMaster, ClientId, str, Any, float], Outgoing]] = {
    m.Hlo: GameMaster._hlo_request,
    m.Sub: GameMaster._sub,
    (m.Not, m.Sub): GameMaster._not_sub,
    m.Mis: GameMaster._mis_asked,
    m.Gof: GameMaster._gof_on,
    (m.Not, m.Gof): GameMaster._gof_off,
    m.Drw: GameMaster._drw_on,
    (m.Not, m.Drw): GameMaster._drw_off,
    m.Snd: GameMaster._snd,
}


def _daide_form(state: GameState, order: Order) -> Order:
    """DAIDE writes a move by convoy with its route (``CTO ... VIA (...)``); an order given in
    another notation ("A LON - BEL VIA", from the web page) gets the shortest route."""
    if isinstance(order, Move) and order.convoy and order.via is None:
        return with_route(state, order) or Move(order.unit, order.dest)
    return order


def _unit_key(order: Order) -> tuple[str, str]:
    """Game-wide, an order is for its power's unit or waive (the engine's key is per power)."""
    return order_power(order), order_key(order)


def _ord_power(o: m.Ord) -> str:
    assert o.order is not None
    return order_power(o.order)


def _huh_for(codec: Codec, msg: Any) -> m.Huh:
    """HUH for a message that is valid DAIDE but not allowed here: ERR before its first token,
    as the AiServer answers an observer's DRW."""
    try:
        words = codec.text(msg).split()
    except (ValueError, ParseError):
        words = []
    return m.Huh(("ERR", *words))
