"""The async shell: listeners, client connections, one task per game, subprocess bots.

Structured concurrency (trio): the server's nursery holds the listener, one task per game and
two tasks per client (a reader that parses and forwards, a writer that drains the client's
bounded queue). A game's :class:`~server.game.GameMaster` is touched only by its own task
(and by the :class:`Server` in this module), which takes client messages from an inbox, so no
state is shared and nothing needs a lock. Everyone else (the web page, the tournament, the
commands and benchmarks) reads a game through its :class:`GameRunner`'s public face: its
status, its map and token table, and watchers called after every event.
A client whose queue fills up (it reads too slowly) is dropped, and its power goes into civil
disorder: one slow client never holds up a game.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import random
import shlex
import subprocess
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TypeAlias

import trio

from diplomat.engine.map import GameMap, load_map
from diplomat.engine.rules import rules_named
from diplomat.protocol import messages
from diplomat.protocol.connection import Closed, ConnectionClosedError, Received, Send, Unparsed
from diplomat.protocol.lines import TextConnection
from diplomat.protocol.mdf import table_for_map
from diplomat.protocol.text import word_of
from diplomat.protocol.tokens import TokenTable
from diplomat.server.effects import ClientId, Close, Effects, Tell, split
from diplomat.server.faults import describe
from diplomat.server.forming import Waiting, plan
from diplomat.server.game import GameMaster, mdf_for
from diplomat.server.guard import PasscodeGuard, peer_key
from diplomat.server.inbox import (
    FROM_CLIENT,
    Abandon,
    Adopt,
    Join,
    Leave,
    Observe,
    Patient,
    Rejoin,
    Said,
    Settle,
    Start,
    Watch,
)
from diplomat.server.links import Link, MessageLink, accept_link, answer_http, refuse
from diplomat.server.logs import get_logger
from diplomat.server.seating import Joiner, JoinRefused
from diplomat.server.settings import (
    BYTE_BURST,
    BYTE_RATE,
    DEFAULT_PORT,
    IAM_FREE_GUESSES,
    IM_TIMEOUT,
    JOIN_TIMEOUT,
    LOBBY_TIMEOUT,
    MAX_CONNECTIONS,
    MAX_REFUSING,
    MESSAGE_BURST,
    MESSAGE_RATE,
    PER_ADDRESS,
    QUEUE_BYTES,
    REJOIN_GRACE,
    SEND_QUEUE,
    GameSettings,
)
from diplomat.server.status import MasterStatus
from diplomat.server.store import Store

INFLIGHT = 64  # messages a client may have waiting for its game
GAME_FAULTS = 3  # failures in a row after which a game's task stops (the server goes on)
REFUSE_WAIT = 5.0  # seconds a client turned away has to send its IM (to be answered in kind)
_CLOSE = object()  # queue item: send FM and close
# Messages kept in the game's memory and sent again on request (the map's MDF, the ORDs of
# past phases for HST and ORD): their encodings are kept too, the most recent LASTING_CACHE.
_LASTING = (messages.Mdf, messages.Ord)
LASTING_CACHE = 4096


@dataclass(eq=False)
class Client:
    id: ClientId
    link: Link | MessageLink
    send: trio.MemorySendChannel[Any]
    receive: trio.MemoryReceiveChannel[Any]
    scope: trio.CancelScope = field(default_factory=trio.CancelScope)
    game: GameRunner | None = None
    seat: tuple[GameRunner, str | None, str | None] | None = None  # reserved game, power, label
    iam_misses: int = 0
    inflight: trio.Semaphore = field(default_factory=lambda: trio.Semaphore(INFLIGHT))
    queued_bytes: int = 0  # encoded replies waiting for the writer
    drained: trio.Event | None = None  # set by the writer when the backlog falls
    tokens: float = MESSAGE_BURST  # the message budget (a token bucket)
    byte_tokens: float = BYTE_BURST  # the byte budget (another)
    tokens_at: float = 0.0
    bytes_charged: int = 0  # of the link's bytes_in
    dropped: str | None = None  # why the server is dropping it
    undelivered: int = 0  # messages it was owed when dropped
    received: int = 0
    joined: trio.Event = field(default_factory=trio.Event)  # set when a game takes it
    # Its messages still waiting in a game's inbox, and where they went: the next goes to
    # another place only when these are handled (one connection, one order; see _route).
    posted: int = 0
    posted_to: GameRunner | None = None
    settled: trio.Event = field(default_factory=trio.Event)  # set when ``posted`` falls to 0
    unparsed: int = 0  # messages that were not DAIDE (the first is logged, the rest counted)
    refused: int = 0  # NMEs a game refused (likewise)
    faults: int = 0  # messages whose handling failed in the server (likewise)
    unsendable: int = 0  # messages to it that its wire form cannot carry (likewise)


# What a game's task takes from its inbox (:mod:`server.inbox`), the four that carry one of a
# client's messages first.
FromClient: TypeAlias = Said[Client] | Join[Client] | Observe[Client] | Rejoin[Client]
Command: TypeAlias = (
    FromClient | Leave[Client] | Adopt[Client] | Start | Patient | Abandon | Watch | Settle
)


class GameRunner:
    """The task that owns one game: it hands the game's :class:`GameMaster` each event (a
    client's message, its joining or leaving, the time, a command from whoever seats the
    players) and carries out the effects the master returns: the records first, committed in
    one transaction, then the messages, queued in order."""

    def __init__(self, server: Server, master: GameMaster) -> None:
        self.server = server
        self._master = master
        self.inbox_send, self.inbox = trio.open_memory_channel[Command](math.inf)
        self.pending_joins = 0  # NMEs (and moved players) posted to this game, not yet handled
        self.reaped = False  # ended before it started (abandoned)
        self.open = False  # takes any client's NME (else only clients seated for it)
        # Powers (and tournament labels) for the next clients that join through this game's
        # own listener, in the order they send NME.
        self.reserved: list[tuple[str | None, str | None]] = []
        self.done = trio.Event()
        self.log = get_logger(game=master.id)
        # Web pages show what DAIDE has no message for (who has ordered, the deadline, the
        # page's own orders), and whoever seats players waits for joins and the start: each
        # watcher is given the master's status after every event, and once more at the end.
        self.watchers: dict[object, Callable[[MasterStatus, float], None]] = {}

    # -- what others may read of the game (its master is the game task's alone) --------------

    @property
    def id(self) -> int:
        return self._master.id

    @property
    def map(self) -> GameMap:
        """The map the game is played on (fixed for its life)."""
        return self._master.map

    @property
    def table(self) -> TokenTable:
        """The game's token table (its map's RM): what its clients' links are built with."""
        return self._master.codec.table

    @property
    def name(self) -> str:
        return self._master.name

    @property
    def settings(self) -> GameSettings:
        """The game's settings (map, press level, deadlines; fixed for its life)."""
        return self._master.settings

    def status(self) -> MasterStatus:
        """The game as it stands now (see :mod:`server.status`)."""
        return self._master.status()

    def passcode(self, power: str) -> int | None:
        """The passcode ``power``'s player rejoins with (IAM), for whoever seats that player
        (a web page's person, a bot it restarts); None before the start."""
        return self._master.passcode(power)

    def post(self, command: Command) -> None:
        self.inbox_send.send_nowait(command)

    # -- the public API for those who seat players (tournaments, the web page) ---------------

    def joined(self) -> set[str | None]:
        """The powers asked for by players who have joined and accepted the map (None for a
        player who asked for none)."""
        return set(self._master.status().accepted)

    def has_joiner_for(self, power: str) -> bool:
        """Whether a player asking for ``power`` has sent NME (accepted the map or not)."""
        return power in self._master.status().joined

    def start_without(self, missing: Sequence[tuple[str, str | None]]) -> None:
        """Start now; the ``(power, label)`` seats still empty begin in civil disorder."""
        self.post(Start(tuple(missing)))

    def free_seats(self) -> int:
        """Places left for players who have not been routed here yet (0 once started)."""
        master = self._master
        if master.started or master.finished or self.reaped:
            return 0
        return len(master.map.powers) - len(master.lobby.joiners) - self.pending_joins

    def wait_for(self, power: str, on: bool = True) -> None:
        """In phases without a deadline, wait for ``power`` while its player is away, however
        long, instead of playing on with it in civil disorder (a person's seat)."""
        self.post(Patient(power, on))

    def abandon(self) -> None:
        """End a game that has not started (its forming players are sent OFF)."""
        self.post(Abandon())

    def halt(self) -> None:
        """Stop the game's clock and all processing at once, the server being about to stop
        (:meth:`GameMaster.halt`). Called from the stopping task, not posted: the master is
        synchronous and trio runs one task at a time, so this is one step between two of the
        game's events; posted, it would wait behind events already queued (a deadline due,
        a player leaving) that would then be handled with the clock running."""
        self._carry_out(self._master.halt(trio.current_time()))

    def watch(self, key: object, look: Callable[[MasterStatus, float], None] | None) -> None:
        """Call ``look(status, now)`` in the game's task after every event (None: stop)."""
        self.post(Watch(key, look))

    async def settled(self) -> None:
        """Return once the game has handled everything posted to it before this call (or has
        ended)."""
        done = trio.Event()
        self.post(Settle(done))
        async with trio.open_nursery() as nursery:

            async def first(event: trio.Event) -> None:
                await event.wait()
                nursery.cancel_scope.cancel()

            nursery.start_soon(first, done)
            nursery.start_soon(first, self.done)

    async def run(self) -> None:
        try:
            # (each event has a boundary of its own, in _loop; this one is for the end)
            with _boundary(self.log, "game task failed"):
                await self._loop()
                await self._end()
        finally:
            self.done.set()
            self.server.game_over(self)
            self._settle_inbox()
            self._watch_end()

    def _settle_inbox(self) -> None:
        """What clients posted here and the game never handled (it ended first): a message
        for a client moved elsewhere is passed on, a join is refused, and each counts as
        handled, so the client's next message is not held back waiting for it. A watcher
        that came too late is kept for the last call (so that it learns the game is over)."""
        while True:
            try:
                item = self.inbox.receive_nowait()
            except (trio.WouldBlock, trio.EndOfChannel, trio.ClosedResourceError):
                return
            match item:
                case Said(client) if client.game is not None and client.game is not self:
                    client.game.post(item)
                case Said(client):
                    self.server.handled(client)
                case Join(client, msg) | Observe(client, msg) | Rejoin(client, msg):
                    self.server.deliver(client.id, messages.Rej(msg))
                    self.server.handled(client)
                case Watch(key, look) if look is not None:
                    self.watchers[key] = look  # (it still gets the last call, at the end)
                case Settle(done):
                    done.set()

    async def _loop(self) -> None:
        faults = 0  # in a row: a fault that recurs however often the game is reloaded
        while not self._master.finished and not self.reaped:
            item = None
            try:
                wake = self._master.next_wakeup()
                with trio.move_on_at(wake if wake is not None else math.inf):
                    item = await self.inbox.receive()
                self._step(item)
                faults = 0
            except Exception as exc:
                faults += 1
                if not self._recover(item, exc, faults):
                    return
            await trio.lowlevel.checkpoint()  # (a phase after a phase: others get a turn)

    async def _end(self) -> None:
        master = self._master
        if self.reaped:
            self.log.info("forming game abandoned", players=len(master.lobby.joiners))
            self.server.store.set_status(self.id, "abandoned")
            self.server.deliver_many([Tell(cid, messages.Off()) for cid in master.clients])
        elif master.finished:
            self.log.info("game over", result=master.result)
        await self._close_clients()

    def _step(self, item: Command | None) -> None:
        """One event: a posted item, or the time (None)."""
        master = self._master
        now = trio.current_time()
        done = len(master.history)
        forming = not master.started
        self._carry_out(master.on_time(now) if item is None else self._handle(item, now))
        if forming and master.started:
            self._started()
        self._watch(now)
        for p in master.history.since(done):
            self.log.info("phase processed", phase=p.phase.name, next=p.after.phase.name)
        if self.open and not master.started:
            self.server.refill(now)

    def _recover(self, item: Command | None, exc: Exception, faults: int) -> bool:
        """Handling one event failed: one log line; a client whose message it was is answered
        (:func:`fault_answer`); a game under way is reloaded from the store (its last
        committed state: what failed half-way is forgotten), its connected players kept in
        their seats. False when the game must stop: the same failure came back
        :data:`GAME_FAULTS` times in a row (the game stays in the store, and the next start
        of the server resumes it)."""
        kind = type(item).__name__ if item is not None else "time"
        self.log.error("game event failed", during=kind, faults=faults, **describe(exc))
        if isinstance(item, FROM_CLIENT):
            self.server.answer_fault(item.client, item.msg, None)
        if faults >= GAME_FAULTS:
            self.log.error("game stopped", reason=f"{faults} faults in a row")
            self.server.deliver_many([Tell(cid, messages.Off()) for cid in self._master.clients])
            return False
        if self._master.started and not self._master.finished:
            try:
                self._master = self.server.reload(self._master)
            except Exception as again:
                self.log.error("game reload failed", **describe(again))
                return faults + 1 < GAME_FAULTS
            self.log.info("game reloaded", phase=self._master.state.phase.name)
        return True

    def _watch(self, now: float) -> None:
        if not self.watchers:
            return
        status = self._master.status()
        for key, look in list(self.watchers.items()):
            self._look(key, look, status, now)

    def _watch_end(self) -> None:
        """The watchers' last call: the game's task has ended (``done`` is set), so whoever
        waits on a watcher wakes and sees it."""
        try:
            self._watch(trio.current_time())
        except Exception as exc:  # (the master that failed may fail again here)
            self.log.error("watchers' last call failed", **describe(exc))
        self.watchers.clear()

    def _look(
        self, key: object, look: Callable[[MasterStatus, float], None], st: MasterStatus, now: float
    ) -> None:
        try:
            look(st, now)
        except Exception as exc:  # the watcher's fault: it is dropped, the game goes on
            self.watchers.pop(key, None)
            self.log.error("watcher failed", **describe(exc))

    def _handle(self, item: Command, now: float) -> Effects:
        master = self._master
        match item:
            case Watch(key, look):
                self._rewatch(key, look, now)
            case Patient(power, on):
                return master.wait_for(power, on, now)
            case Abandon():
                if not master.started:
                    self.reaped = True
            case Start(missing):
                if not master.started:
                    return master.start(now, missing)
            case Leave(client):
                return master.disconnect(client.id, now)
            case Settle(done):
                done.set()
            case Adopt(client, joiner):
                return self._adopt(client, joiner, now)
            case Said(client) if client.game is not None and client.game is not self:
                client.game.post(item)  # it was moved to another forming game meanwhile
            case Said() | Join() | Observe() | Rejoin():
                try:
                    return self._from_client(item, now)
                finally:
                    self.server.handled(item.client)
        return []

    def _rewatch(
        self, key: object, look: Callable[[MasterStatus, float], None] | None, now: float
    ) -> None:
        if look is None:
            self.watchers.pop(key, None)
        else:
            self.watchers[key] = look
            self._look(key, look, self._master.status(), now)

    def _from_client(self, item: FromClient, now: float) -> Effects:
        """A client's message, or its join (a join the game refuses is answered REJ)."""
        master, client = self._master, item.client
        try:
            match item:
                case Said(_, msg):
                    return master.handle(client.id, msg, now)
                case Join(_, nme, power, label):
                    self.pending_joins -= 1
                    out = master.add_player(client.id, nme.name, nme.version, label, power, now)
                    self._enter(client)
                    return out
                case Observe():
                    self._enter(client)
                    return master.add_observer(client.id)
                case Rejoin(_, iam):
                    if master.can_rejoin(iam.power, iam.passcode):
                        self._enter(client)
                        return master.rejoin(client.id, iam.power, now)
                    return [Tell(client.id, messages.Rej(iam))]
        except JoinRefused as exc:
            self._refused(client, exc)
            return [Tell(client.id, messages.Rej(item.msg))]
        return []

    def _adopt(self, client: Client, joiner: Joiner, now: float) -> Effects:
        """A forming player moved here from a later game."""
        self.pending_joins -= 1
        if client.id not in self.server.clients:
            return []
        self._enter(client)
        try:
            return self._master.adopt_joiner(joiner, now)
        except JoinRefused as exc:  # its seat was taken meanwhile (cannot happen: seats count)
            self._refused(client, exc)
            return [Tell(client.id, messages.Off()), Close(client.id, f"could not be moved: {exc}")]

    def _refused(self, client: Client, exc: JoinRefused) -> None:
        client.refused += 1
        if client.refused == 1:  # (later ones are counted, in its "disconnected" line)
            self.log.info("join refused", peer=client.link.peer, reason=str(exc))

    def _started(self) -> None:
        """The game has just started: each power is played from its client's address."""
        for power, seat in self._master.seats.items():
            client = self.server.clients.get(seat.client) if seat.client is not None else None
            if client is not None:
                self.server.played_from(self.id, power, client.link.peer)

    def _enter(self, client: Client) -> None:
        """The client is in this game now (a player, a joiner or an observer)."""
        client.game = self
        client.joined.set()

    def _carry_out(self, effects: Effects) -> None:
        """Store the records, then send: nothing a player is told is missing from the database
        after a crash."""
        records, wire = split(effects)
        self.server.store.write(self.id, records)
        self.server.deliver_many(wire)

    async def _close_clients(self) -> None:
        for cid in list(self._master.clients):
            client = self.server.clients.get(cid)
            if client is not None:
                try:
                    client.send.send_nowait(_CLOSE)
                except (trio.WouldBlock, trio.ClosedResourceError, trio.BrokenResourceError):
                    client.scope.cancel()


class Server:
    """Hosts games for DAIDE clients on one TCP port (binary or text form) and for
    subprocess bots over pipes."""

    def __init__(
        self,
        store: Store,
        settings: GameSettings,
        *,
        host: str = "127.0.0.1",
        port: int = DEFAULT_PORT,
        seed: int | None = None,
        rejoin_grace: float = REJOIN_GRACE,
        open_games: bool = True,
        im_timeout: float = IM_TIMEOUT,
        send_queue: int = SEND_QUEUE,
        resume: bool = True,
        clock: Callable[[], float] | None = None,
        join_timeout: float = JOIN_TIMEOUT,
        message_rate: float = MESSAGE_RATE,
        message_burst: int = MESSAGE_BURST,
        byte_rate: float = BYTE_RATE,
        byte_burst: int = BYTE_BURST,
        max_connections: int = MAX_CONNECTIONS,
        lobby_timeout: float = LOBBY_TIMEOUT,
        per_address: int = PER_ADDRESS,
        diplomacy_rules: str = "datc",
    ) -> None:
        # The rule set (engine.rules) of games the diplomacy package's clients create.
        self.diplomacy_rules = rules_named(diplomacy_rules).name
        self.lobby_timeout = lobby_timeout  # seconds a connection may stay in no game
        self.per_address = per_address  # connections at once from one address (our port)
        self._connections: dict[str, int] = {}  # address -> connections open
        self._refusals: dict[str, tuple[int, float]] = {}  # address -> (refused, logged at)
        self.message_rate = message_rate  # each connection's budget (see _reader)
        self.message_burst = message_burst
        self.byte_rate = byte_rate
        self.byte_burst = byte_burst
        self.max_connections = max_connections  # connections at once on our port, in all
        self._open = 0  # connections on our port now (refused ones included)
        self._refusing = 0  # of which being turned away
        self.join_timeout = join_timeout  # seconds a joined client has to accept the map
        self.resume = resume  # pick up the database's unfinished games at start
        self.im_timeout = im_timeout  # spec: 30 s; shorter in tests
        self.send_queue = send_queue
        self.store = store
        self.settings = settings
        # The map's token table: every connection's RM and text names. One server, one map.
        self.map = load_map(settings.map)
        self.table = table_for_map(self.map)
        self.host = host
        self.port = port
        self.rng = random.Random(seed)
        self.rejoin_grace = rejoin_grace
        self.open_games = open_games  # keep a game open for any client that sends NME
        self.clients: dict[ClientId, Client] = {}
        self._lasting: OrderedDict[tuple[int, tuple[str, bytes]], tuple[Any, bytes]] = OrderedDict()
        self.games: dict[int, GameRunner] = {}
        self.open_game: GameRunner | None = None
        self._ids = itertools.count(1)
        self._nursery: trio.Nursery | None = None
        self.listeners: list[trio.SocketListener] = []
        self.log = get_logger()
        self.ready = trio.Event()
        # ``clock`` (seconds) times passcode lockouts: trio's clock unless given (a test's
        # MockClock simulates a day of guessing).
        self.guard = PasscodeGuard(clock=clock or trio.current_time, log=self.log)

    @property
    def address(self) -> tuple[str, int]:
        sock = self.listeners[0].socket
        host, port = sock.getsockname()[:2]
        return host, port

    # -- running -----------------------------------------------------------------------------

    async def run(self, task_status: trio.TaskStatus[Server] = trio.TASK_STATUS_IGNORED) -> None:
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            self.listeners = await trio.open_tcp_listeners(self.port, host=self.host)
            if self.resume:
                self._resume_games()
            if self.open_games:
                self._new_open_game()
            nursery.start_soon(trio.serve_listeners, self._serve_tcp, self.listeners)
            self.log.info("listening", host=self.address[0], port=self.address[1])
            self.ready.set()
            task_status.started(self)
            try:
                await trio.sleep_forever()
            finally:
                with trio.CancelScope(shield=True):
                    await self._shutdown()

    async def stop(self) -> None:
        """Stop every game's clock (nothing is processed from then on, and nobody is in civil
        disorder for being disconnected by the stop), then say OFF to every client and close
        each connection (FM for binary ones), while the writers still run; returns when all
        are closed or after 3 seconds. The games' state is saved, with the time each phase
        had left. Cancel the server's nursery afterwards."""
        self.log.info("stopping", clients=len(self.clients))
        self._halt_games()
        for client in list(self.clients.values()):
            try:
                client.send.send_nowait(messages.Off())
                client.send.send_nowait(_CLOSE)
            except (trio.WouldBlock, trio.ClosedResourceError, trio.BrokenResourceError):
                client.scope.cancel()
        with trio.move_on_after(3):
            while self.clients:
                await trio.sleep(0.02)

    async def _shutdown(self) -> None:
        """Last resort when cancelled without :meth:`stop`: OFF then FM to whoever is left."""
        self.log.info("shutting down", clients=len(self.clients))
        self._halt_games()
        with trio.move_on_after(3):
            for client in list(self.clients.values()):
                link = client.link
                with contextlib.suppress(Exception):
                    if isinstance(link, Link):
                        await link.write(link.encode(messages.Off()))
                    else:
                        link.take(messages.Off())
                await link.close()

    def _halt_games(self) -> None:
        for runner in list(self.games.values()):
            try:
                runner.halt()
            except Exception as exc:  # (a database gone): the other games still stop cleanly
                self.log.error("cannot save the clock", game=runner.id, error=repr(exc))

    def _resume_games(self) -> None:
        now = trio.current_time()
        for row in self.store.games():
            if row.status == "forming":
                self.store.set_status(row.id, "abandoned")
            elif row.status == "active":
                try:
                    master = GameMaster.restore(self.store.saved(row.id), now, self.rejoin_grace)
                except ValueError as exc:  # e.g. its map file is gone: the others still resume
                    self.log.error("cannot resume game", game=row.id, error=str(exc))
                    self.store.set_status(row.id, "abandoned")
                    continue
                for power, address in self.store.addresses(row.id):
                    self.guard.trust(row.id, power, address)
                self._start_game(master)
                left = master.clock.left(now)
                self.log.info(
                    "resumed game", game=row.id, phase=master.state.phase.name, time_left=left
                )

    def _start_game(self, master: GameMaster) -> GameRunner:
        runner = GameRunner(self, master)
        self.games[master.id] = runner
        assert self._nursery is not None
        self._nursery.start_soon(runner.run)
        return runner

    def create_game(
        self,
        settings: GameSettings | None = None,
        *,
        name: str | None = None,
        tournament: str | None = None,
    ) -> GameRunner:
        settings = settings or self.settings
        gid = self.store.create_game(settings.model_dump(), name, tournament)
        master = GameMaster(gid, settings, name or "", join_timeout=self.join_timeout)
        runner = self._start_game(master)
        self.log.info("game created", game=gid, settings=settings.model_dump(exclude_none=True))
        return runner

    def _new_open_game(self) -> GameRunner:
        runner = self.create_game()
        runner.open = True
        self.open_game = runner
        return runner

    def game_over(self, runner: GameRunner) -> None:
        self.games.pop(runner.id, None)
        self.guard.forget_game(runner.id)
        if self.open_game is runner:
            self.open_game = None

    def forming_open_games(self) -> list[GameRunner]:
        """The open games still forming, earliest first."""
        return sorted(
            (r for r in self.games.values() if r.open and not r._master.started and not r.reaped),
            key=lambda r: r.id,
        )

    def refill(self, now: float) -> None:
        """Re-pack the open forming games (see :mod:`server.forming`): players who have
        accepted the map move into the earliest game, into free seats or in exchange for
        players there who have not, so that seven willing players always make a game at
        once. Empty later games are abandoned. (Runs in one game's task; trio runs one task
        at a time, and each move is posted to the receiving game's own task, where a
        message already on its way to the game a client left is passed on.)"""
        forming = self.forming_open_games()
        games = [
            (
                r.free_seats(),
                [Waiting(j.client, j.ready_map, j.request) for j in r._master.lobby.joiners],
            )
            for r in forming
        ]
        for move in plan(games):
            source, target = forming[move.source], forming[move.target]
            pairs = [(self.clients.get(move.client), source, target)]
            if move.back is not None:
                pairs.append((self.clients.get(move.back), target, source))
            if any(c is None or c.game is not frm for c, frm, _ in pairs):
                continue  # gone, or moved already (its move is on its way)
            for client, frm, to in pairs:
                assert client is not None
                joiner = frm._master.release_joiner(client.id)
                assert joiner is not None
                client.game = to
                to.pending_joins += 1
                to.post(Adopt(client, joiner))
                self.log.info("player moved", client=client.id, frm=frm.id, to=to.id)
        for runner in forming[1:]:
            if not runner._master.lobby.joiners and runner.pending_joins == 0:
                runner.reaped = True
                runner.post(Abandon())

    # -- clients -----------------------------------------------------------------------------

    async def _serve_tcp(self, stream: trio.SocketStream) -> None:
        """A client of the server's port: at most :attr:`per_address` at once from one
        address (IPv6: one /64); one more is turned away in its own wire form (OFF). Whatever
        goes wrong with one connection ends that connection alone (:func:`_boundary`)."""
        try:
            peer = "{}:{}".format(*stream.socket.getpeername()[:2])
        except OSError:
            peer = "?"
        with _boundary(self.log.bind(peer=peer), "connection failed"):
            await self._serve_address(stream, peer_key(peer) if peer != "?" else "?")
        await _aclose(stream)

    async def _serve_address(self, stream: trio.SocketStream, address: str) -> None:
        count = self._connections.get(address, 0)
        self._connections[address] = count + 1
        self._open += 1
        try:
            if count >= self.per_address:
                await self._refuse(stream, address, self.per_address, "from this address")
            elif self._open > self.max_connections:
                await self._refuse(stream, "*", self.max_connections, "in all")
            else:
                await self._serve_accepted(stream)
        finally:
            self._open -= 1
            left = self._connections[address] - 1
            if left:
                self._connections[address] = left
            else:
                del self._connections[address]

    async def _refuse(self, stream: trio.SocketStream, key: str, limit: int, what: str) -> None:
        """Turn a connection away (OFF in its own wire form, after its IM); at most
        MAX_REFUSING at once wait for their IM, the rest are closed at once."""
        self._refused(key, limit, what)
        if self._refusing >= MAX_REFUSING:
            return
        self._refusing += 1
        try:
            link = await accept_link(stream, min(self.im_timeout, REFUSE_WAIT), table=self.table)
            if link is not None:
                await refuse(link, REFUSE_WAIT)
        finally:
            self._refusing -= 1

    def _refused(self, address: str, limit: int, what: str) -> None:
        """Count a connection turned away; log it once an hour per address (``"*"``: for the
        limit in all) at most (how many were turned away since)."""
        now = trio.current_time()
        refused, logged = self._refusals.get(address, (0, -math.inf))
        refused += 1
        if now - logged >= 3600:
            self.log.warning(
                "connections refused",
                address=address,
                limit=limit,
                refused=refused,
                note=f"too many at once {what}; counted, logged hourly",
            )
            refused, logged = 0, now
        self._refusals[address] = (refused, logged)
        if len(self._refusals) > 10_000:
            self._refusals = {a: v for a, v in self._refusals.items() if now - v[1] < 3600}

    async def _serve_accepted(self, stream: trio.SocketStream) -> None:
        link = await accept_link(stream, self.im_timeout, table=self.table)
        if link is None:
            return
        if link.kind == "http":
            why = "This port speaks DAIDE (binary, or text lines), not HTTP."
            await answer_http(link, "400 Bad Request", why)
            return
        await self.serve_link(link)

    async def serve_link(
        self,
        link: Link | MessageLink,
        seat: tuple[GameRunner, str | None, str | None] | None = None,
    ) -> None:
        """Run one client until it leaves. ``seat`` sends its NME to that game, for that
        power and tournament label."""
        send, receive = trio.open_memory_channel[Any](self.send_queue)
        client = Client(next(self._ids), link, send, receive, seat=seat)
        self.clients[client.id] = client
        log = self.log.bind(client=client.id, peer=link.peer, kind=link.kind)
        log.info("connected")
        try:
            with client.scope, _boundary(log, "connection failed"):
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(self._writer, client, nursery.cancel_scope)
                    nursery.start_soon(self._lobby, client, log)
                    await self._reader(client, log)
                    # Let the writer flush what is queued (OFF, FM) before closing.
                    with trio.move_on_after(5):
                        await client.send.send(_CLOSE)
                        await trio.sleep_forever()
        finally:
            self.clients.pop(client.id, None)
            if client.game is not None:
                client.game.post(Leave(client))
            with trio.CancelScope(shield=True):
                await link.close()
            if client.dropped is not None:
                # One line per dropped client, however much it was still owed.
                log.warning(
                    "dropped",
                    reason=client.dropped,
                    undelivered=client.undelivered,
                    queued_bytes=client.queued_bytes,
                    received=client.received,
                )
            log.info(
                "disconnected",
                received=client.received,
                unparsed=client.unparsed,
                joins_refused=client.refused,
                faults=client.faults,
                unsendable=client.unsendable,
            )

    async def _lobby(self, client: Client, log: Any) -> None:
        """A client that is in no game :attr:`lobby_timeout` seconds after its first message
        (no NME, OBS or IAM accepted) is sent OFF and closed: a silent connection costs a
        socket, and a few thousand would exhaust the server."""
        with trio.move_on_after(self.lobby_timeout):
            await client.joined.wait()
            return
        if client.dropped is None and not client.link.closed:
            log.info("closing idle", reason=f"joined no game within {self.lobby_timeout:g} s")
            self._queue(client, messages.Off())
            self._queue(client, _CLOSE)

    async def _writer(self, client: Client, scope: trio.CancelScope) -> None:
        """Drain the client's queue. What has piled up goes out in one write: a phase's
        results are dozens of messages, and one system call beats dozens."""
        link = client.link
        if not isinstance(link, Link):
            await self._hand_over(client, link)
            scope.cancel()
            return
        try:
            async for item in client.receive:
                batch: list[bytes] = []
                closing = False
                while True:
                    if item is _CLOSE:
                        closing = True
                        break
                    batch.append(item if isinstance(item, bytes) else link.encode(item))
                    if len(batch) >= 256:
                        break
                    try:
                        item = client.receive.receive_nowait()
                    except trio.WouldBlock:
                        break
                data = b"".join(batch)
                await link.write(data)
                client.queued_bytes -= len(data)
                if client.drained is not None and not self._backlogged(client):
                    client.drained.set()
                if closing:
                    await link.close()
                    break
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            pass
        except Exception as exc:
            self.log.warning("send failed", client=client.id, error=repr(exc))
        scope.cancel()

    async def _hand_over(self, client: Client, link: MessageLink) -> None:
        """The writer of a link that takes typed messages: they are handed over when queued
        (:meth:`_queue`), so only the close comes this way."""
        try:
            async for item in client.receive:
                if item is _CLOSE:
                    await link.close()
                    return
                link.take(item)
        except Exception as exc:
            self.log.warning("send failed", client=client.id, error=repr(exc))

    def _backlogged(self, client: Client) -> bool:
        """Too much waits to go out to this client to read more of its requests."""
        stats = client.send.statistics()
        return client.queued_bytes > QUEUE_BYTES or stats.current_buffer_used > self.send_queue // 2

    async def _reader(self, client: Client, log: Any) -> None:
        """Read the client's messages one at a time, yielding to every other task between
        two of them (a bounded amount of work per connection before the others get a turn),
        within its budget: ``message_rate`` a second after a burst of ``message_burst``, and
        ``byte_rate`` bytes a second after a burst of ``byte_burst``,
        and no new request read while its replies back up (it is throttled; it is dropped
        only if its replies do not drain for the IM timeout)."""
        client.tokens, client.tokens_at = float(self.message_burst), trio.current_time()
        client.byte_tokens = float(self.byte_burst)
        async for event in client.link.events():
            if isinstance(event, Send):
                self._queue(client, event.data)
            elif isinstance(event, Received):
                client.received += 1
                await self._budget(client, _cost(event.message))
                try:
                    await self._route(client, event.message, log)
                except Exception as exc:
                    self._fault(client, event.message, event.atoms, exc, log)
            elif isinstance(event, Unparsed):
                client.received += 1
                client.unparsed += 1
                await self._budget(client)
                if event.reply is not None:
                    self._queue(client, event.reply)
                if client.unparsed == 1:  # the rest are counted, in its "disconnected" line
                    log.info("unparsed", reason=event.reason)
            elif isinstance(event, Closed):
                log.info("closing", reason=event.reason, error=event.error, by_peer=event.by_peer)
                return
            await trio.lowlevel.checkpoint()

    async def _budget(self, client: Client, cost: int = 1) -> None:
        """Wait until the client may send one more message: both its buckets are charged
        (``cost`` messages; the bytes read from it since the last charge), and when either is
        in debt its reading waits until that is paid off."""
        now = trio.current_time()
        elapsed = now - client.tokens_at
        client.tokens_at = now
        # (a link that is no byte stream, a web page's seat, has no bytes to charge here)
        read = getattr(client.link, "bytes_in", 0)
        spent, client.bytes_charged = read - client.bytes_charged, read
        rate, byte_rate = self.message_rate, self.byte_rate
        client.tokens = min(float(self.message_burst), client.tokens + elapsed * rate) - cost
        client.byte_tokens = (
            min(float(self.byte_burst), client.byte_tokens + elapsed * byte_rate) - spent
        )
        wait = max(-client.tokens / rate, -client.byte_tokens / byte_rate)
        if wait > 0:
            await trio.sleep(wait)
            client.tokens = max(client.tokens, 0.0)
            client.byte_tokens = max(client.byte_tokens, 0.0)
            client.tokens_at = trio.current_time()
        while self._backlogged(client):
            client.drained = trio.Event()
            with trio.move_on_after(self.im_timeout) as waited:
                await client.drained.wait()
            client.drained = None
            if waited.cancelled_caught:
                self._drop(client, f"its replies did not drain for {self.im_timeout:g} s")
                await trio.sleep_forever()  # (cancelled by the drop)

    def _fault(
        self, client: Client, msg: messages.Message, atoms: Any, exc: Exception, log: Any
    ) -> None:
        """Handling ``msg`` failed in the server: the client is answered (see
        :func:`fault_answer`); the first such fault of a connection is logged, the rest counted
        (in its "disconnected" line)."""
        if client.faults == 0:
            log.error("message failed", message=type(msg).__name__, **describe(exc))
        self.answer_fault(client, msg, atoms)

    def answer_fault(self, client: Client, msg: messages.Message, atoms: Any) -> None:
        """Answer a message the server failed to handle (:func:`fault_answer`; the connection
        is closed when nothing can answer it), and count the fault."""
        client.faults += 1
        if not isinstance(client.link, Link):
            self._queue(client, messages.Rej(msg))  # (typed: no wire form to fail to carry it)
            return
        answer = fault_answer(client.link, msg, atoms)
        self._queue(client, _CLOSE if answer is None else answer)

    def reload(self, master: GameMaster) -> GameMaster:
        """A fresh master for a game under way, from the store (what was last committed), with
        the clients connected to ``master`` back in their seats and its watchers kept."""
        now = trio.current_time()
        fresh = GameMaster.restore(self.store.saved(master.id), now, self.rejoin_grace)
        fresh.patient = set(master.patient)
        fresh.rejoin_until = master.rejoin_until
        for cid, power in master.clients.items():
            fresh.clients[cid] = power
            if power is not None and power in fresh.seats:
                fresh.seats[power].client = cid
                fresh.seats[power].status = master.seats[power].status
        return fresh

    def _drop(self, client: Client, reason: str) -> None:
        if client.dropped is None:
            client.dropped = reason
            client.scope.cancel()

    def _queue(self, client: Client, item: Any) -> None:
        if client.dropped is not None:
            client.undelivered += 1
            return
        if not isinstance(client.link, Link) and item is not _CLOSE:
            # Handed over at once, in the sender's task (the game's): a web seat then knows a
            # game's messages before the watchers, called after the event, report its status.
            client.link.take(item)
            return
        if item is not _CLOSE and not isinstance(item, bytes) and isinstance(client.link, Link):
            try:
                item = client.link.encode(item)
            except Exception as exc:  # a message this wire form cannot carry
                self._unsendable(client, exc)
                return
        try:
            client.send.send_nowait(item)
        except trio.WouldBlock:
            client.undelivered += 1
            self._drop(client, f"not reading: {self.send_queue} messages waiting")
            return
        except (trio.ClosedResourceError, trio.BrokenResourceError):
            return
        if isinstance(item, bytes):
            client.queued_bytes += len(item)

    def _unsendable(self, client: Client, exc: Exception) -> None:
        """A message its wire form cannot carry: the first of a connection is logged, the rest
        counted (in its "disconnected" line). A connection closed meanwhile is no fault."""
        if isinstance(exc, ConnectionClosedError):
            client.undelivered += 1
            return
        client.unsendable += 1
        if client.unsendable == 1:
            self.log.warning("cannot send", client=client.id, **describe(exc))

    def deliver(self, cid: ClientId, message: messages.Message) -> None:
        self.deliver_many([Tell(cid, message)])

    def deliver_many(self, out: Sequence[Tell | Close]) -> None:
        """Queue each message for its client, encoded once per wire form (broadcasts go to
        every client of a game; an MDF or a stored ORD is encoded once for good)."""
        encoded: dict[tuple[int, tuple[str, bytes]], bytes] = {}
        for effect in out:
            cid = effect.client
            client = self.clients.get(cid)
            if client is None or client.link.closed:
                continue
            if isinstance(effect, Close):
                self.log.info("closing a client", client=cid, reason=effect.reason)
                self._queue(client, _CLOSE)
                continue
            msg = effect.message
            if not isinstance(client.link, Link):
                self._queue(client, msg)  # handed over as it is
                continue
            key = (id(msg), client.link.wire_key)
            data = encoded.get(key)
            lasting = type(msg) in _LASTING
            if data is None and lasting:
                kept = self._lasting.get(key)
                if kept is not None and kept[0] is msg:
                    data = encoded[key] = kept[1]
                    self._lasting.move_to_end(key)
            if data is None:
                try:
                    data = encoded[key] = client.link.encode(msg)
                except Exception as exc:  # a message this wire form cannot carry
                    self._unsendable(client, exc)
                    continue
                if lasting:
                    self._lasting[key] = (msg, data)
                    while len(self._lasting) > LASTING_CACHE:
                        self._lasting.popitem(last=False)
            self._queue(client, data)

    async def _post(self, runner: GameRunner, item: FromClient) -> None:
        """Hand one of the client's messages to ``runner``'s task, after those before it."""
        client = item.client
        await client.inflight.acquire()
        if client.posted == 0:
            client.settled = trio.Event()
        client.posted += 1
        client.posted_to = runner
        runner.post(item)

    def handled(self, client: Client) -> None:
        """A game's task has handled one of the client's messages (its replies are queued)."""
        client.inflight.release()
        client.posted -= 1
        if client.posted == 0:
            client.settled.set()

    async def _in_order(self, client: Client) -> None:
        """Wait until the client's next message can go where it must without overtaking
        one still waiting in a game's inbox: a join (NME, OBS, IAM) decides where the messages
        after it go, and a player moved to another forming game has the ones already posted
        passed on by the game it left. A client that pipelines its join (NME, MDF, YES (MAP)
        in one write, as DAIDE allows) has each handled, and answered, in the order it sent
        them. Messages to the same game need no wait: its inbox keeps their order."""
        while client.posted and (client.game is None or client.game is not client.posted_to):
            await client.settled.wait()

    async def _route(self, client: Client, msg: messages.Message, log: Any) -> None:
        """Send a message to the client's game, or handle joining (see :meth:`_in_order`)."""
        await self._in_order(client)
        if client.game is not None:
            await self._post(client.game, Said(client, msg))
            return
        match msg:
            case messages.Nme():
                runner, power, label = self._seat_for(client)
                if runner is None:
                    self._queue(client, messages.Rej(msg))
                    return
                await self._post(runner, Join(client, msg, power, label))
            case messages.Obs() if client.seat is not None:
                # A client launched for one game (a spectator's page) observes that game.
                await self._post(client.seat[0], Observe(client, msg))
            case messages.Obs():
                runner = self.open_game
                if (runner is None or runner._master.finished) and self.open_games:
                    runner = self._new_open_game()
                if runner is None or runner._master.finished:
                    self._queue(client, messages.Rej(msg))
                    return
                await self._post(runner, Observe(client, msg))
            case messages.Iam():
                await self._iam(client, msg)
            case messages.Map(None):
                self._queue(
                    client, messages.Map(self.map.name)
                )  # the map's name, not a file's path
            case messages.Mdf(None):
                master = self.open_game._master if self.open_game else None
                if master is not None:
                    self.deliver(client.id, mdf_for(master.map))
                else:
                    self._queue(client, messages.Rej(msg))
            case messages.Huh() | messages.Prn():
                pass
            case _:
                # Not joined yet: nothing else is answered but with REJ.
                self._queue(client, messages.Rej(msg))

    async def _iam(self, client: Client, msg: messages.Iam) -> None:
        """IAM from a client in no game: find the game whose ``power`` awaits its player and
        check the passcode, within the guard's limits (per connection, power and address)."""
        if client.iam_misses >= IAM_FREE_GUESSES:  # and three guesses per connection
            self._queue(client, messages.Rej(msg))
            return
        peer = client.link.peer
        # The power's old connection may have just closed, its Leave still in the game's
        # inbox: each game that has the power settles first, so a player who reconnects at
        # once is not refused for being still connected.
        for runner in list(self.games.values()):
            if runner._master.started and msg.power in runner.map.powers:
                await runner.settled()
        candidates = [
            runner
            for runner in list(self.games.values())
            if runner._master.awaits(msg.power) and self.guard.may_try(runner.id, msg.power, peer)
        ]
        for runner in candidates:
            if runner._master.can_rejoin(msg.power, msg.passcode):
                self.guard.succeeded(runner.id, msg.power, peer)
                self.played_from(runner.id, msg.power, peer)
                await self._post(runner, Rejoin(client, msg))
                return
        if candidates:  # one wrong guess (for the power in each of those games)
            client.iam_misses += 1
            self.guard.failed([r.id for r in candidates], msg.power, peer)
        self._queue(client, messages.Rej(msg))

    def played_from(self, game: int, power: str, peer: str) -> None:
        """``power`` of ``game`` is played from ``peer`` (at the start, or back with IAM): its
        address is trusted for the power's IAM (:mod:`server.guard`), kept in the database
        for a restart."""
        self.guard.trust(game, power, peer)
        self.store.add_address(game, power, peer_key(peer))

    def _seat_for(self, client: Client) -> tuple[GameRunner | None, str | None, str | None]:
        """The game (and reserved power and label) a client's NME goes to: its own seat if it
        was launched for one, else the oldest forming game with a free place."""
        if client.seat is not None:
            runner, power, label = client.seat
            if power is None and runner.reserved:
                power, label = runner.reserved.pop(0)
            runner.pending_joins += 1
            return runner, power, label
        if not self.open_games:
            return None, None, None
        for runner in self.forming_open_games():
            if runner.free_seats() > 0:
                break
        else:
            runner = self._new_open_game()
        runner.pending_joins += 1
        return runner, None, None

    async def listen_for_game(
        self,
        runner: GameRunner,
        port: int = 0,
        task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED,
    ) -> None:
        """A listener of the game's own (``port``, or a free one for 0): every client that
        connects to it joins that game, taking the next of ``runner.reserved``. Closes when
        the game ends."""
        listeners = await trio.open_tcp_listeners(port, host=self.host)
        port = listeners[0].socket.getsockname()[1]
        # The game's own map's tokens (its RM), whatever map the server's main port plays.
        table = runner.table

        async def handler(stream: trio.SocketStream) -> None:
            with _boundary(self.log.bind(game=runner.id), "connection failed"):
                link = await accept_link(stream, self.im_timeout, table=table)
                if link is not None:
                    await self.serve_link(link, (runner, None, None))
            await _aclose(stream)

        # Only the accepting stops when the game ends: its clients' connections end as any
        # client's do, once the game's SMR and OFF are sent (cancelled, they would be cut
        # off before those messages went out, and their bots would try to reconnect).
        async with trio.open_nursery() as connections, trio.open_nursery() as accepting:
            accepting.start_soon(
                partial(trio.serve_listeners, handler, listeners, handler_nursery=connections)
            )
            task_status.started(port)
            await runner.done.wait()
            accepting.cancel_scope.cancel()

    # -- subprocess bots -------------------------------------------------------------------

    async def run_pipe_bot(
        self,
        command: Sequence[str] | str,
        seat: tuple[GameRunner, str | None, str | None] | None = None,
        stderr: Any = subprocess.DEVNULL,
        task_status: trio.TaskStatus[trio.Process] = trio.TASK_STATUS_IGNORED,
    ) -> int | None:
        """Launch a bot that speaks DAIDE text lines on stdin/stdout and serve it until it
        exits. Returns its exit status."""
        argv = shlex.split(command) if isinstance(command, str) else list(command)
        # A session of its own: Ctrl-C in the server's terminal signals the whole process
        # group, and a bot killed by it before the server has stopped its games would leave
        # its game as a player does, in civil disorder. The server ends its bots itself.
        proc = await trio.lowlevel.open_process(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            start_new_session=True,
        )
        assert proc.stdin is not None and proc.stdout is not None
        stream = trio.StapledStream(proc.stdin, proc.stdout)
        # A bot for a known game speaks that game's map; otherwise the server's.
        table = seat[0].table if seat is not None else self.table
        link = Link(stream, TextConnection(table), "pipe", f"pid {proc.pid}")
        task_status.started(proc)
        try:
            await self.serve_link(link, seat)
        finally:
            with trio.CancelScope(shield=True):
                with trio.move_on_after(5):
                    await proc.wait()
                if proc.returncode is None:
                    proc.kill()
                    await proc.wait()
        return proc.returncode


@contextlib.contextmanager
def _boundary(log: Any, event: str) -> Iterator[None]:
    """Whatever fails inside ends here, with one log line (the exception's type and where),
    never the server (cancellation passes through: it is no fault)."""
    try:
        yield
    except Exception as exc:
        log.error(event, **describe(exc))


async def _aclose(stream: trio.abc.AsyncResource) -> None:
    """Close a client's stream whatever state it is in (a boundary's last step)."""
    with trio.CancelScope(shield=True), contextlib.suppress(Exception):
        await stream.aclose()


def _cost(msg: messages.Message) -> int:
    """What a message costs its sender's budget: one, and press one per recipient (the server
    relays it that many times; a flood to six powers costs six times a flood to one)."""
    if type(msg) is messages.Snd:
        return max(1, len(msg.recipients))
    return 1


def fault_answer(link: Link, msg: messages.Message, atoms: Any) -> bytes | None:
    """The bytes that answer a message the server failed to handle: ``REJ (message)`` (it was
    DAIDE; the request is refused), else ``HUH (ERR message)`` from the words as received when
    the message cannot be written back, else None (close the connection)."""
    for reply in (lambda: messages.Rej(msg), lambda: messages.Huh(("ERR", *_words(link, atoms)))):
        try:
            return link.encode(reply())
        except Exception:
            continue
    return None


def _words(link: Link, atoms: Any) -> tuple[str, ...]:
    table = link.conn.codec.table
    return tuple(word_of(a, table) for a in atoms)


__all__ = ["_CLOSE", "Client", "GameRunner", "Server", "fault_answer"]
