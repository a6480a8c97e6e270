"""A player's side of one DAIDE game, with no I/O: messages in, messages out.

:class:`Session` does what every DAIDE client must (spec §3.12): join with NME (a requested
power is written ``'POW:name'``, as David Norman's client writes it) or rejoin with IAM;
accept the map, asking for its MDF unless it is a map the engine bundles; track the game from
HLO, SCO, NOW, ORD, CCD and OUT; call the bot on each NOW that needs orders from us and submit
them with SUB (GOF is the default, so it is never sent); make good on a MIS; answer press it
cannot understand with HUH then TRY (spec §4.2); stop on OFF. Anything else is logged or ignored:
a client must survive whatever a server sends.

The transports (``bots.transport``) feed it the messages their connection parses and send back
what it returns; tests feed it messages directly.
"""

from __future__ import annotations

import logging
import random
import re
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from diplomat.bots.base import Bot, View, complete_orders, daide_orders, default_orders
from diplomat.bots.press import Incoming, level_of
from diplomat.engine.map import GameMap, MapError, load_map, province_of
from diplomat.engine.orders import Order, Remove, Waive
from diplomat.engine.orderset import owes_orders
from diplomat.engine.state import Dislodged, GameState, Phase, StateError, Unit, make_state
from diplomat.protocol import messages
from diplomat.protocol.atoms import Atoms
from diplomat.protocol.codec import Codec, codec_for
from diplomat.protocol.mdf import table_for_map
from diplomat.protocol.text import word_of
from diplomat.protocol.tokens import BRA, KET, TokenTable

log = logging.getLogger("bots")

_MAP_NAME = re.compile(r"[A-Za-z0-9_-]+")
READY_POLL = 0.05  # seconds between asking a talking bot whether it is ready to order
MAX_MIS_ANSWERS = 3  # per turn: a server that keeps saying MIS must not keep us busy forever
# Press we do not understand is answered HUH at most this many times per sender and phase, and
# TRY once per sender (what we understand does not change): a flood of press must not make
# every bot send as much again.
MAX_HUH_ANSWERS = 1

# Press that is itself an answer: answering it again could start an endless exchange.
_REPLIES = (
    messages.Huh,
    messages.Prn,
    messages.Try,
    messages.Yes,
    messages.Rej,
    messages.Bwx,
    messages.Idk,
    messages.Sry,
    messages.Why,
    messages.Pob,
)


class Session:
    """One bot in one game. Read :attr:`done` after each :meth:`handle`: when true, close."""

    def __init__(
        self,
        bot: Bot,
        *,
        name: str | None = None,
        version: str | None = None,
        power: str | None = None,
        passcode: int | None = None,
        seed: int | None = None,
        always_mdf: bool = False,
        table: TokenTable,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.bot = bot
        self.name = name or bot.name
        self.version = version or bot.version
        self.request = power.upper() if power else None
        self.rejoin_passcode = passcode
        self.rng = random.Random(seed)
        self.always_mdf = always_mdf
        self.codec: Codec = codec_for(table)
        # What the game has told us.
        self.map_name: str | None = None
        self.map: GameMap | None = None
        self.power: str | None = None
        self.passcode: int | None = None
        self.variant: messages.Variant | None = None
        self.centres: dict[str, str] = {}
        self.state: GameState | None = None
        self.results: list[messages.Ord] = []  # ORDs since the last NOW
        self.last_results: tuple[messages.Ord, ...] = ()
        self.last_movement: tuple[messages.Ord, ...] = ()  # the last movement phase's ORDs
        self.disorder: set[str] = set()
        self.eliminated: set[str] = set()
        self.summary: messages.Smr | None = None
        self.solo: str | None = None
        self.draw: messages.Drw | None = None
        # Where we are.
        self.joined = False  # YES to our NME or IAM
        self.rejoining = passcode is not None
        self.map_accepted = False
        self.started = False  # HLO seen
        self.game_over = False  # SLO, DRW or SMR seen
        self.done = False  # stop now (OFF, refused, connection lost)
        self.off = False  # OFF received
        self.refused: str | None = None
        self.pending_now: messages.Now | None = None
        self.ordered_turn: Phase | None = None
        self.accepted: dict[str, Order] = {}  # this turn's accepted orders, by unit province
        self.waives = 0
        self.mis_answers = 0
        self.bad_notes: list[messages.Thx] = []  # every refused order, for tests and logs
        self._bot_started = False
        # Press: the clock (seconds), when this phase's talk ends and the orders are due,
        # the view the bot last saw, and what the library kept from being sent.
        self.clock = clock
        self.orders_due: float | None = None
        self.view: View | None = None
        self.press_sent = 0
        self.press_dropped: list[messages.Snd] = []  # above the game's level, or no press allowed
        self.press_refused: list[
            messages.Rej | messages.Huh | messages.Prn
        ] = []  # the server's HUH or REJ to our SND
        self.puzzled: dict[str, int] = {}  # sender -> press not understood, this phase
        self.puzzled_turn: Phase | None = None
        self.told_try: set[str] = set()  # senders we have sent TRY

    # -- the outcome -----------------------------------------------------------------------

    @property
    def exit_status(self) -> int:
        """0 when the game ended or the server said OFF; 1 otherwise (refused, cut off)."""
        if self.refused is not None:
            return 1
        return 0 if self.game_over or self.off else 1

    # -- in and out ------------------------------------------------------------------------

    def set_table(self, table: TokenTable) -> None:
        """The token table the server's RM gave (binary connections)."""
        self.codec = codec_for(table)

    def start(self) -> list[messages.Message]:
        """The first message: NME, or IAM when rejoining with a passcode."""
        if self.rejoin_passcode is not None:
            if self.request is None:
                raise ValueError("rejoining (IAM) needs the power as well as the passcode")
            return [messages.Iam(self.request, self.rejoin_passcode)]
        name = f"{self.request}:{self.name}" if self.request else self.name
        return [messages.Nme(name, self.version)]

    @property
    def resumable(self) -> bool:
        """The connection was lost in the middle of a game we play: we may take our power
        back with IAM (power and passcode from the HLO) on a new connection."""
        return (
            self.done
            and not (self.game_over or self.off)
            and self.refused is None
            and self.started
            and self.power is not None
            and self.passcode is not None
        )

    def prepare_rejoin(self) -> None:
        """Before a new connection: its first message will be IAM with our passcode."""
        assert self.power is not None and self.passcode is not None
        self.request = self.power
        self.rejoin_passcode = self.passcode
        self.rejoining = True
        self.joined = False
        self.done = False
        # Orders sent just before the connection went may never have arrived: order again.
        self.ordered_turn = None

    def connection_closed(self, reason: str = "") -> None:
        if not self.done:
            if self.game_over or self.off:
                log.info("connection closed after the game")
            else:
                log.warning("connection closed before the game ended: %s", reason or "no reason")
        self.done = True

    def handle(self, msg: messages.Message, atoms: Atoms | None = None) -> list[messages.Message]:
        """React to one message from the server. ``atoms`` is the message as received
        (to echo press exactly); it is rendered again when not given."""
        handler = _HANDLERS.get(type(msg))
        if handler is None:
            log.debug("ignored %s", type(msg).__name__)
            return []
        try:
            return handler(self, msg, atoms)
        except Exception:
            # A message we cannot make sense of must not end our game.
            log.exception("could not handle %s", type(msg).__name__)
            return []

    # -- joining ---------------------------------------------------------------------------

    def _yes(self, msg: messages.Yes, atoms: Atoms | None) -> list[messages.Message]:
        inner = msg.inner
        if isinstance(inner, messages.Nme):
            self.joined = True
            log.info("joined as %r", inner.name)
        elif isinstance(inner, messages.Iam):
            self.joined = True
            self.power = inner.power
            self.passcode = inner.passcode
            log.info("rejoined as %s", inner.power)
            # No MAP or HLO follows an IAM: ask for everything again (spec §3.2, §3.9).
            return [messages.Map(), messages.Hlo(), messages.Sco(), messages.Now()]
        return []

    def _rej(self, msg: messages.Rej, atoms: Atoms | None) -> list[messages.Message]:
        inner = msg.inner
        if isinstance(inner, messages.Nme | messages.Iam) and not self.joined:
            self.refused = f"the server refused our {type(inner).__name__.upper()}"
            log.error("%s", self.refused)
            self.done = True
        elif isinstance(inner, messages.Sub):
            log.info("orders refused: %s", self.codec.text(msg))
        elif isinstance(inner, messages.Snd):
            log.info("press refused: %s", self.codec.text(msg))
            self.press_refused.append(msg)
        else:
            log.debug("REJ %s", type(inner).__name__)
        return []

    def _map(self, msg: messages.Map, atoms: Atoms | None) -> list[messages.Message]:
        if msg.name is None:
            return []
        self.map_name = msg.name
        if self.map is None and not self.always_mdf:
            self.map = _bundled_map(msg.name)
        if self.map is None:
            return [messages.Mdf()]
        return self._map_ready()

    def _mdf(self, msg: messages.Mdf, atoms: Atoms | None) -> list[messages.Message]:
        if msg.definition is None or self.map_name is None:
            return []
        if self.map is None:
            # An MDF has no names: a bundled map of that name lends its own, else tokens stand.
            names = _bundled_map(self.map_name)
            self.map = msg.definition.to_map(self.map_name.lower(), names)
            log.info("map %s built from its MDF", self.map_name)
        return self._map_ready()

    def _map_ready(self) -> list[messages.Message]:
        out: list[messages.Message] = []
        if self.map is not None and self.codec.table.is_standard:
            # The text form has no RM: the names of a bundled variant come from its map.
            self.codec = codec_for(table_for_map(self.map))
        if not self.rejoining and not self.map_accepted and self.map_name is not None:
            self.map_accepted = True
            out.append(messages.Yes(messages.Map(self.map_name)))
        if self.pending_now is not None:
            now, self.pending_now = self.pending_now, None
            out += self._now(now, None)
        return out

    def _hlo(self, msg: messages.Hlo, atoms: Atoms | None) -> list[messages.Message]:
        if msg.power is None:
            return []
        self.started = True
        self.power = msg.power if msg.power != "UNO" else None
        self.passcode = msg.passcode
        self.variant = msg.variant
        log.info("playing %s (passcode %s)", self.power, self.passcode)
        return []

    # -- the game --------------------------------------------------------------------------

    def _sco(self, msg: messages.Sco, atoms: Atoms | None) -> list[messages.Message]:
        if msg.owners:
            self.centres = msg.centres()
        return []

    def _ord(self, msg: messages.Ord, atoms: Atoms | None) -> list[messages.Message]:
        if msg.order is not None:
            self.results.append(msg)
        return []

    def _now(self, msg: messages.Now, atoms: Atoms | None) -> list[messages.Message]:
        if msg.turn is None:
            return []
        if self.map is None:
            self.pending_now = msg  # the map is on its way (MDF)
            return []
        try:
            state = msg.to_state(self.map, self.centres)
        except (StateError, MapError, ValueError) as exc:
            # Another server's rules may offer a retreat our engine would not: keep only the
            # retreats it accepts rather than stop playing (and stall an untimed game).
            try:
                state = _lenient_state(msg, self.map, self.centres)
            except (StateError, MapError, ValueError):
                log.error("cannot follow the position: %s", exc)
                return []
            log.warning("position accepted without some retreats: %s", exc)
        self.state = state
        self.last_results = tuple(self.results)
        if any(r.turn is not None and r.turn.kind == "movement" for r in self.results):
            self.last_movement = self.last_results
        self.results = []
        if self.game_over or self.power is None or state.phase == self.ordered_turn:
            return []
        self.ordered_turn = state.phase
        self.accepted = {}
        self.waives = 0
        self.mis_answers = 0
        self.orders_due = None
        view = self.view = self._view(state, self.power)
        out: list[messages.Message] = []
        talk = 0.0
        if self.press_level >= 10:
            out += self._send_press(self._bot_call(self.bot.phase_start, view) or ())
            talk = self._bot_call(self.bot.talk_time, view) or 0.0
        if not owes_orders(state, self.power):
            return out
        if talk > 0 and not self._bot_call(self.bot.ready, view):
            self.orders_due = self.clock() + talk
            return out
        return out + self._submit(self._orders_for(state, self.power))

    # -- press and the talk window ---------------------------------------------------------------

    @property
    def press_level(self) -> int:
        """The game's press level (HLO's LVL; 0 before the HLO)."""
        return self.variant.level if self.variant is not None else 0

    @property
    def wakeup(self) -> float | None:
        """When (on :attr:`clock`) :meth:`tick` must be called while a talk window is open:
        its end, or sooner to ask the bot whether it is :meth:`~bots.base.Bot.ready`."""
        if self.orders_due is None:
            return None
        return min(self.orders_due, self.clock() + READY_POLL)

    def tick(self) -> list[messages.Message]:
        """The talk window has ended (or the bot is ready): submit the orders."""
        if self.orders_due is None or self.state is None or self.power is None:
            return []
        if self.game_over or self.done:
            self.orders_due = None
            return []
        if self.clock() < self.orders_due and not (
            self.view is not None and self._bot_call(self.bot.ready, self.view)
        ):
            return []
        self.orders_due = None
        return self._submit(self._orders_for(self.state, self.power))

    def _bot_call(self, method: Callable[..., Any], *args: Any) -> Any:
        try:
            return method(*args)
        except Exception:
            log.exception("the bot failed in %s", getattr(method, "__name__", "a press hook"))
            return None

    def _may_revise(self, view: View | None) -> bool:
        """This phase's orders are sent and the phase is still the one being played."""
        return (
            view is not None
            and self.state is not None
            and view.state is self.state
            and self.ordered_turn == self.state.phase
            and not self.game_over
            and self.power is not None
            and owes_orders(self.state, self.power)
        )

    def _press_open(self) -> bool:
        """May press be sent in this phase (NPR: not in retreats; NPB: not in builds)?"""
        v, state = self.variant, self.state
        if v is None or state is None:
            return True
        kind = state.phase.kind
        return not ((v.npr and kind == "retreat") or (v.npb and kind == "adjustment"))

    def _send_press(self, wanted: Sequence[messages.Snd | messages.Drw]) -> list[messages.Message]:
        """The bot's press (and its draw votes: ``DRW``, partial only in PDA games), less
        anything the game does not allow: nothing above its press level (the server would
        answer HUH), nothing in a game without press."""
        out: list[messages.Message] = []
        for snd in wanted:
            if isinstance(snd, messages.Drw):
                pda = self.variant is not None and self.variant.pda
                if snd.powers is None or (pda and self.press_level >= 10):
                    out.append(snd)
                continue
            if not isinstance(snd, messages.Snd) or not snd.recipients:
                continue
            need = level_of(snd, self.codec.table)
            if self.press_level < 10 or need > self.press_level or not self._press_open():
                log.error(
                    "not sent (press level %d, game level %d): %s",
                    need,
                    self.press_level,
                    self.codec.text(snd),
                )
                self.press_dropped.append(snd)
                continue
            out.append(snd)
            self.press_sent += 1
        return out

    def _view(self, state: GameState, power: str) -> View:
        return View(
            state,
            power,
            self.rng,
            self.last_results,
            frozenset(self.disorder),
            self.variant,
            movement=self.last_movement,
        )

    def _orders_for(self, state: GameState, power: str) -> list[Order]:
        view = self.view if self.view is not None and self.view.state is state else None
        view = view or self._view(state, power)
        try:
            if not self._bot_started:
                self._bot_started = True
                self.bot.start(view)
            given = list(self.bot.orders(view))
        except Exception:
            log.exception("the bot failed in %s; using default orders", state.phase.name)
            given = default_orders(state, power)
        return daide_orders(state, complete_orders(state, power, given))

    def _submit(self, orders: Iterable[Order]) -> list[messages.Message]:
        orders = tuple(orders)
        if not orders:
            return []
        return [messages.Sub(orders, self.ordered_turn)]

    def _thx(self, msg: messages.Thx, atoms: Atoms | None) -> list[messages.Message]:
        order = msg.order
        if msg.note.accepted:
            if isinstance(order, Waive):
                self.waives += 1
            else:
                self.accepted[province_of(order.unit.loc)] = order
            return []
        self.bad_notes.append(msg)
        log.warning("order refused: %s", self.codec.text(msg))
        return []

    def _mis(self, msg: messages.Mis, atoms: Atoms | None) -> list[messages.Message]:
        """Orders still owed after our SUB: give the defaults for them (a few times a turn
        at most, in case the server will not take even those)."""
        state, power = self.state, self.power
        if state is None or power is None or self.ordered_turn != state.phase:
            return []
        if not msg.units and not msg.count:
            return []
        if self.mis_answers >= MAX_MIS_ANSWERS:
            return []
        self.mis_answers += 1
        log.info("server says orders are missing: %s", self.codec.text(msg))
        if msg.count is not None:
            if msg.count < 0:
                return self._submit([Waive(power)] * -msg.count)
            removed = {p for p, o in self.accepted.items() if isinstance(o, Remove)}
            fill = complete_orders(state, power, [o for o in self.accepted.values()])
            extra = [o for o in fill if isinstance(o, Remove) and o.unit.province not in removed]
            return self._submit(extra[: msg.count])
        units: list[Unit] = [u if isinstance(u, Unit) else u.unit for u in msg.units]
        missing = {u.province for u in units if u.power == power}
        defaults = default_orders(state, power)
        return self._submit(
            o for o in defaults if not isinstance(o, Waive) and o.unit.province in missing
        )

    def _ccd(self, msg: messages.Ccd, atoms: Atoms | None) -> list[messages.Message]:
        self.disorder.add(msg.power)
        return []

    def _not(self, msg: messages.Not, atoms: Atoms | None) -> list[messages.Message]:
        if isinstance(msg.inner, messages.Ccd):
            self.disorder.discard(msg.inner.power)
        return []

    def _out(self, msg: messages.Out, atoms: Atoms | None) -> list[messages.Message]:
        self.eliminated.add(msg.power)
        return []

    # -- the end -----------------------------------------------------------------------------

    def _slo(self, msg: messages.Slo, atoms: Atoms | None) -> list[messages.Message]:
        self.solo = msg.power
        self.game_over = True
        log.info("solo: %s", msg.power)
        return []

    def _drw(self, msg: messages.Drw, atoms: Atoms | None) -> list[messages.Message]:
        self.draw = msg
        self.game_over = True
        log.info("draw%s", f" among {' '.join(msg.powers)}" if msg.powers else "")
        return []

    def _smr(self, msg: messages.Smr, atoms: Atoms | None) -> list[messages.Message]:
        if msg.turn is None:
            return []
        self.summary = msg
        self.game_over = True
        log.info("game over: %s", self.codec.text(msg))
        self._bot_game_over()
        return []

    def _off(self, msg: messages.Off, atoms: Atoms | None) -> list[messages.Message]:
        self.off = True
        self.done = True
        log.info("OFF: leaving")
        if self.summary is None and self.game_over:
            self._bot_game_over()
        return []

    def _bot_game_over(self) -> None:
        try:
            self.bot.game_over(self.summary)
        except Exception:
            log.exception("the bot failed at the end of the game")

    # -- other messages ----------------------------------------------------------------------

    def _frm(self, msg: messages.Frm, atoms: Atoms | None) -> list[messages.Message]:
        """Press: the bot's :meth:`~bots.base.Bot.press` answers it; a bot that does not
        (it returns None) says it does not understand (HUH, ERR in front of the whole
        message), then lists what it does understand (nothing: TRY ()). A reply is never
        answered by the library."""
        if self.power is None or msg.sender == self.power:
            return []
        source = atoms if atoms is not None else self.codec.atoms(msg)
        press = _third_group(source)
        if press is None:
            press = self.codec.atoms(msg)[1:]  # cannot happen for a parsed FRM
        words = tuple(word_of(a, self.codec.table) for a in press)
        incoming = Incoming(msg.sender, tuple(msg.recipients), msg.press, words)
        view = self.view
        if view is None and self.state is not None:
            view = self.view = self._view(self.state, self.power)
        answer = None
        if view is not None:
            answer = self._bot_call(self.bot.press, view, incoming)
        if answer is not None:
            out = self._send_press(answer)
            if self.orders_due is not None and view is not None:
                out += self.tick()  # the bot may be ready to order now
            elif self._may_revise(view) and self._bot_call(self.bot.revise, view):
                assert self.state is not None and self.power is not None
                out += self._submit(self._orders_for(self.state, self.power))
            return out
        if isinstance(msg.press, _REPLIES):
            return []
        return self._not_understood(msg.sender, words)

    def _not_understood(self, sender: str, words: tuple[str, ...]) -> list[messages.Message]:
        """HUH to press we cannot answer (spec §4.2), then TRY () the first time a sender is
        told so; beyond :data:`MAX_HUH_ANSWERS` a phase, silence."""
        turn = self.state.phase if self.state is not None else None
        if turn != self.puzzled_turn:
            self.puzzled, self.puzzled_turn = {}, turn
        told = self.puzzled.get(sender, 0)
        self.puzzled[sender] = told + 1
        if told >= MAX_HUH_ANSWERS:
            return []
        out: list[messages.Message] = [messages.Snd((sender,), messages.Huh(("ERR", *words)))]
        if sender not in self.told_try:
            self.told_try.add(sender)
            out.append(messages.Snd((sender,), messages.Try(())))
        return out

    def _huh(self, msg: messages.Huh | messages.Prn, atoms: Atoms | None) -> list[messages.Message]:
        log.warning("the server did not understand us: %s", self.codec.text(msg))
        if "SND" in msg.tokens[:2]:
            self.press_refused.append(msg)
        return []

    def _sve(self, msg: messages.Sve, atoms: Atoms | None) -> list[messages.Message]:
        # All we would need to reload (power, passcode) is in memory; the rest is asked for.
        return [messages.Yes(msg)]

    def _lod(self, msg: messages.Lod, atoms: Atoms | None) -> list[messages.Message]:
        if self.power is None or self.passcode is None:
            return [messages.Rej(msg)]
        return [messages.Iam(self.power, self.passcode)]


# Each handler takes its own message class: the one type all of them accept is Any.
_HANDLERS: dict[type, Callable[[Session, Any, Atoms | None], list[messages.Message]]] = {
    messages.Yes: Session._yes,
    messages.Rej: Session._rej,
    messages.Map: Session._map,
    messages.Mdf: Session._mdf,
    messages.Hlo: Session._hlo,
    messages.Sco: Session._sco,
    messages.Ord: Session._ord,
    messages.Now: Session._now,
    messages.Thx: Session._thx,
    messages.Mis: Session._mis,
    messages.Ccd: Session._ccd,
    messages.Not: Session._not,
    messages.Out: Session._out,
    messages.Slo: Session._slo,
    messages.Drw: Session._drw,
    messages.Smr: Session._smr,
    messages.Off: Session._off,
    messages.Frm: Session._frm,
    messages.Huh: Session._huh,
    messages.Prn: Session._huh,
    messages.Sve: Session._sve,
    messages.Lod: Session._lod,
}


def _lenient_state(msg: messages.Now, gmap: GameMap, centres: dict[str, str]) -> GameState:
    assert msg.turn is not None
    units = [u for u in msg.units if isinstance(u, Unit)]
    occupied = {u.province for u in units}
    dislodged = []
    for d in msg.units:
        if isinstance(d, Dislodged):
            adj = gmap.army_adj if d.unit.type == "A" else gmap.fleet_adj
            near = adj.get(d.unit.loc, frozenset())
            ok = tuple(r for r in d.retreats if r in near and province_of(r) not in occupied)
            dislodged.append(Dislodged(d.unit, d.attacker_from, ok))
    return make_state(gmap, msg.turn, units, centres, dislodged)


def _bundled_map(name: str) -> GameMap | None:
    if not _MAP_NAME.fullmatch(name):
        return None  # a name, never a path: the server does not choose our files
    try:
        return load_map(name.lower())
    except MapError:
        return None


def _third_group(atoms: Atoms) -> Atoms | None:
    """The inside of the third bracketed group after the first token: the press of an
    ``FRM (sender) (recipients) (press)``."""
    depth = 0
    group = 0
    start = 0
    for i, a in enumerate(atoms[1:], 1):
        if a == BRA and type(a) is int:
            if depth == 0:
                group += 1
                start = i + 1
            depth += 1
        elif a == KET and type(a) is int:
            depth -= 1
            if depth == 0 and group == 3:
                return atoms[start:i]
    return None
