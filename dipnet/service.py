"""The package's network protocol on a port of ``diplomat serve`` (``--diplomacy-port``): a
WebSocket of JSON requests, responses and notifications, as its client library
(``diplomacy.client.connection.connect``) speaks it. The games are the server's own games
(:class:`server.app.GameRunner`): a game created here takes DAIDE bots on its own DAIDE port
(the package's ``get_daide_port``), and the package's clients play in games alongside them."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import trio

from diplomat.dipnet.accounts import Account, Accounts
from diplomat.dipnet.game_data import OBSERVER, OMNISCIENT
from diplomat.dipnet.games import PackageGame, View
from diplomat.dipnet.link import GameLink
from diplomat.dipnet.records import GameRecord, Records
from diplomat.dipnet.requests import Handlers, RequestError, Session
from diplomat.dipnet.restore import RestoreError, rebuilt
from diplomat.dipnet.wire import accept
from diplomat.engine.map import load_map
from diplomat.protocol import messages
from diplomat.replay.games import PACKAGE_MAPS
from diplomat.replay.package_notation import power_name
from diplomat.server.app import GameRunner, Server
from diplomat.server.logs import get_logger
from diplomat.server.settings import GameSettings
from diplomat.server.status import MasterStatus
from diplomat.web.gate import ConnectionGate, serve_gated
from diplomat.web.http import WebSocket
from diplomat.web.payloads import PayloadError, read_json

PORT_WAIT = 10.0  # seconds a get_daide_port waits for a new game's DAIDE port to open
STORE_WAIT = 30.0  # seconds a request that acted in a game waits for the game to store it
# Requests whose effect on the game (through the power's seat) is stored before the answer.
SEAT_REQUESTS = ("set_orders", "clear_orders", "set_wait_flag", "vote", "send_game_message")
FREE_TEXT_LEVEL = 8000  # the press level of a game with press: the package's messages are text
REQUESTS = (
    "sign_in",
    "logout",
    "get_available_maps",
    "get_daide_port",
    "get_playable_powers",
    "list_games",
    "create_game",
    "join_game",
    "leave_game",
    "get_all_possible_orders",
    "get_phase_history",
    "set_orders",
    "clear_orders",
    "set_wait_flag",
    "vote",
    "send_game_message",
    "synchronize",
)


@dataclass(frozen=True)
class Reserved:
    """A power of an adopted game kept for one user, recorded in the game under ``label``."""

    user: str
    label: str


class DipnetService:
    """Accounts, the games the package's clients can see, and the port."""

    def __init__(self, server: Server, accounts: Accounts, records: Records | None = None) -> None:
        self.server = server
        self.accounts = accounts
        # Where the games are kept for a restart (None: in memory only).
        self.records = records
        self.games: dict[str, PackageGame] = {}
        # Which connection holds each signed-in token (a closed one while its client is
        # reconnecting): the package's client reconnects with its tokens, not a new sign-in.
        self.holders: dict[str, Session] = {}
        self.hashing = trio.CapacityLimiter(1)
        # Games taken in with adopt_game: the only powers package clients may take, and by whom.
        self.reserved: dict[str, dict[str, Reserved]] = {}
        self.handlers = Handlers(self)
        self.log = get_logger(dipnet=True)
        self.port = 0
        self._nursery: trio.Nursery | None = None

    async def run(
        self, port: int, task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED
    ) -> None:
        listeners = await trio.open_tcp_listeners(port, host=self.server.host)
        self.port = listeners[0].socket.getsockname()[1]
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            self.restore()
            nursery.start_soon(serve_gated, listeners, self._connection, ConnectionGate(), self.log)
            task_status.started(self.port)

    # -- games ---------------------------------------------------------------------------------

    def maps(self) -> dict[str, Any]:
        """The maps both sides know: the package's client loads a game's map from its own
        files, so our other variants (AiServer MDFs) are not offered here."""
        out = {}
        for theirs, ours in PACKAGE_MAPS.items():
            gmap = load_map(ours)
            out[theirs] = {
                "powers": [power_name(gmap, p) for p in gmap.powers],
                "supply_centers": sorted(gmap.supply_centres),
            }
        return out

    def create(self, map_name: str, rules: Sequence[str], deadline: int) -> PackageGame:
        if map_name not in PACKAGE_MAPS:
            raise RequestError(
                "MapIdException",
                f"no map {map_name!r} both here and in the package's clients: "
                f"{', '.join(sorted(PACKAGE_MAPS))}",
            )
        gmap = load_map(PACKAGE_MAPS[map_name])
        timed = deadline if deadline and "NO_DEADLINE" not in rules else None
        settings = GameSettings(
            map=gmap.name,
            level=0 if "NO_PRESS" in rules else FREE_TEXT_LEVEL,
            move_time=min(timed, 8191) if timed else None,
            retreat_time=min(timed, 8191) if timed else None,
            build_time=min(timed, 8191) if timed else None,
            # The package's games have no end year: the server's own (serve --max-year).
            max_year=self.server.settings.max_year,
            # The rule set for the package's games (serve --diplomacy-rules datc|package).
            rules=self.server.diplomacy_rules,
        )
        runner = self.server.create_game(settings, name=f"diplomacy {map_name}")
        game = PackageGame(runner, gmap, rules, deadline)
        if self.records is not None:
            kept = GameRecord(runner.id, gmap.name, game.rules, deadline, game.created)
            self.records.save_game(kept)
        self.games[game.game_id] = game
        self._start(game)
        return game

    def adopt_game(
        self, runner: GameRunner, rules: Sequence[str], reserved: Mapping[str, Reserved]
    ) -> PackageGame:
        """A game created by someone else (a tournament) as one the package's clients can
        join: only the powers of ``reserved`` (our tokens), each by its own user alone. It
        has no DAIDE port of its own (its creator seats the DAIDE players)."""
        deadline = runner.settings.move_time or 0
        game = PackageGame(runner, runner.map, rules, deadline)
        self.games[game.game_id] = game
        self.reserved[game.game_id] = dict(reserved)
        game.port_ready.set()  # get_daide_port answers at once that there is none
        assert self._nursery is not None
        self._nursery.start_soon(self._follow, game)
        return game

    def release(self, game_id: str, power: str) -> None:
        """``power``'s seat leaves its game, as a DAIDE client that disconnects does (its
        client's program has ended): the game plays on with the power in civil disorder."""
        game = self.games.get(game_id)
        seat = game.seats.get(power) if game is not None else None
        if seat is not None:
            seat.leave()

    def forget(self, game_id: str) -> None:
        """Drop a game (over, or abandoned): its in-process seats and observer leave it."""
        game = self.games.pop(game_id, None)
        self.reserved.pop(game_id, None)
        if game is None:
            return
        for seat in game.seats.values():
            seat.leave()
        game.follower.leave()

    def restore(self) -> None:
        """After a restart: every kept game the server resumed is followed again, its DAIDE
        port opened again (on the same port if it is free, for bots that reconnect), and
        each controlled power taken back by its seat with IAM and the power's passcode, as
        a DAIDE player takes it back; finished games are listed as completed."""
        for record in self.records.games() if self.records is not None else []:
            try:
                game = rebuilt(record, self.server)
            except RestoreError as exc:
                self.log.warning("diplomacy game not restored", game=record.game_id, why=str(exc))
                continue
            self.games[game.game_id] = game
            if game.runner is None:
                continue
            self._start(game, record.daide_port or 0)
            for power, user in game.controllers.items():
                passcode = game.runner.passcode(power) or 0
                self._take(game, power, user, messages.Iam(power, passcode))
            self.log.info("diplomacy game restored", game=game.game_id, phase=game.state.phase)

    def _start(self, game: PackageGame, port: int = 0) -> None:
        assert self._nursery is not None and game.runner is not None
        self._nursery.start_soon(self._follow, game)
        self._nursery.start_soon(self._daide_port, game, port)
        game.runner.watch(("dipnet press", game.game_id), self._press_watcher(game))

    def _press_watcher(self, game: PackageGame) -> Callable[[MasterStatus, float], None]:
        """After each of the game's events: press relayed since the last look (the store's
        rows after the last one read), for the views shown all press (:meth:`overheard`)."""
        # (A game restored after a restart: from the press stored before it.)
        stored = self.server.store.press(int(game.game_id))
        count, seq = 0, stored[-1].seq if stored else -1

        def look(status: MasterStatus, now: float) -> None:
            nonlocal count, seq
            if status.press == count:
                return
            count = status.press
            rows = self.server.store.press(int(game.game_id), after=seq)
            if rows:
                seq = rows[-1].seq
                game.overheard(rows)

        return look

    async def _follow(self, game: PackageGame) -> None:
        assert game.runner is not None
        game.follower.send(messages.Obs())
        await self.server.serve_link(game.follower, (game.runner, None, None))

    async def _daide_port(self, game: PackageGame, port: int) -> None:
        assert self._nursery is not None and game.runner is not None
        try:
            opened = await self._nursery.start(self.server.listen_for_game, game.runner, port)
        except OSError as exc:  # the old port is taken: its bots cannot come back there
            self.log.warning("diplomacy game's DAIDE port moved", old=port, why=str(exc))
            opened = await self._nursery.start(self.server.listen_for_game, game.runner, 0)
        game.daide_port = opened
        if self.records is not None and opened != port:
            self.records.set_daide_port(int(game.game_id), opened)
        game.port_ready.set()

    def join(
        self, game: PackageGame, account: Account, role: str, token: str, session: Session
    ) -> dict[str, Any]:
        """Join ``game`` as ``role`` (a power's name, or observer/omniscient): the game's data
        for that role. A power is taken by an in-process DAIDE seat, before the game starts."""
        if role == OMNISCIENT and not account.admin:
            raise RequestError("GameRoleException", "only the administrator is omniscient")
        if role not in (OBSERVER, OMNISCIENT):
            self._seat(game, account, role)
        if self.records is not None:
            self.records.save_view(token, int(game.game_id), role)
        return game.game_data(self._view(game, token, role, session))

    def _view(self, game: PackageGame, token: str, role: str, session: Session) -> View:
        view = View(token, role, session.send)
        game.views.append(view)
        session.views.append((game, view))
        return view

    def revive(
        self, token: str, game_id: object, role: object, session: Session
    ) -> tuple[PackageGame, View] | None:
        """The view ``token`` joined ``game_id`` with as ``role`` before a restart, made
        again on ``session`` (its client's library reconnected and synchronizes it); None
        if it joined no such view."""
        game = self.games.get(str(game_id))
        if game is None or not isinstance(role, str) or self.records is None:
            return None
        if not self.records.has_view(token, int(game.game_id), role):
            return None
        return game, self._view(game, token, role, session)

    def leave(self, game: PackageGame, view: View, session: Session) -> None:
        session.views.remove((game, view))
        game.views.remove(view)
        if self.records is not None:
            self.records.drop_views(view.token, int(game.game_id), view.role)

    def _seat(self, game: PackageGame, account: Account, role: str) -> None:
        power = game.powers.get(role.upper())
        if power is None or role != role.upper() or len(role) <= 3:
            raise RequestError("MapPowerException", f"no power {role!r} on {game.map.name}")
        self._reserved_for(game, power, role, account)
        holder = game.controllers.get(power)
        if holder is not None and holder != account.name:
            raise RequestError("GameJoinRoleException", f"{role} is played by {holder}")
        if holder == account.name:
            return  # another instance of the same seat
        assert game.runner is not None  # (a finished game is not forming)
        if game.status != "forming" or game.runner.has_joiner_for(power):
            raise RequestError("GameJoinRoleException", f"{role} is not free in this game")
        game.controllers[power] = account.name
        if self.records is not None:
            self.records.set_controller(int(game.game_id), power, account.name)
        self._take(game, power, account.name, messages.Nme(account.name, "diplomacy-package"))

    def _take(self, game: PackageGame, power: str, user: str, first: messages.Message) -> None:
        """An in-process seat of ``power`` for ``user``, joining with ``first`` (NME while
        the game forms, IAM to take the power back after a restart)."""
        seat = GameLink(
            f"diplomacy:{game.game_id}:{power_name(game.map, power)}",
            lambda msg: self._heard(game, power, msg),
        )
        game.seats[power] = seat
        seat.send(first)
        assert self._nursery is not None and game.runner is not None
        self._nursery.start_soon(
            self.server.serve_link, seat, (game.runner, power, self._label(game, power, user))
        )

    def _reserved_for(self, game: PackageGame, power: str, role: str, account: Account) -> None:
        """In an adopted game only the user ``power`` is reserved for may take it (a
        GameJoinRoleException for anyone else)."""
        reserved = self.reserved.get(game.game_id)
        if reserved is None:
            return
        mine = reserved.get(power)
        if mine is None or mine.user != account.name:
            raise RequestError("GameJoinRoleException", f"{role} is not yours in this game")

    def _label(self, game: PackageGame, power: str, user: str) -> str:
        """What the game records ``power``'s player as: an adopted game's own label for it."""
        mine = self.reserved.get(game.game_id, {}).get(power)
        return mine.label if mine is not None else f"diplomacy:{user}"

    def _heard(self, game: PackageGame, power: str, msg: Any) -> None:
        if isinstance(msg, messages.Frm):
            press = msg.press
            text = press.text if isinstance(press, messages.FreeText) else game.press.text_of(press)
            game.heard(power, msg, text)
        elif isinstance(msg, messages.Rej) and isinstance(msg.inner, messages.Iam):
            # The passcode is the server's own: the power is held by another connection.
            self.log.error("diplomacy seat not taken back", game=game.game_id, power=power)

    # -- tokens across connections ---------------------------------------------------------------

    def adopt(self, token: str, session: Session) -> None:
        """``token`` is used on ``session``'s connection (signed in there, or its client came
        back on a new connection): its views of games now notify this connection."""
        old = self.holders.get(token)
        self.holders[token] = session
        session.tokens.add(token)
        if old is None or old is session:
            return
        old.tokens.discard(token)
        for game, view in [gv for gv in old.views if gv[1].token == token]:
            old.views.remove((game, view))
            view.notify = session.send
            session.views.append((game, view))

    def drop(self, token: str) -> None:
        """``token`` is gone (signed out, or its client no longer knows it): so are its views."""
        if self.records is not None:
            self.records.drop_views(token)
        session = self.holders.pop(token, None)
        if session is None:
            return
        session.tokens.discard(token)
        for game, view in [gv for gv in session.views if gv[1].token == token]:
            session.views.remove((game, view))
            if view in game.views:
                game.views.remove(view)

    # -- connections ---------------------------------------------------------------------------

    async def _connection(self, stream: trio.SocketStream) -> None:
        ws = await accept(stream)
        if ws is None:
            return
        send, receive = trio.open_memory_channel[str](math.inf)
        session = Session(lambda data: send.send_nowait(json.dumps(data)))
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(_writer, ws, receive)
                while (text := await ws.receive()) is not None:
                    await self.respond(text, session, send.send_nowait)
                nursery.cancel_scope.cancel()
        finally:
            # The views stay, quiet, until the client comes back with its token (adopt).
            for _, view in session.views:
                view.notify = None

    async def answer(self, text: str, session: Session) -> str | None:
        """The response to one request (None for a message with no request id, which the
        client could not match to anything)."""
        out: list[str] = []
        await self.respond(text, session, out.append)
        return out[0] if out else None

    async def respond(self, text: str, session: Session, reply: Callable[[str], None]) -> None:
        """Answer one request through ``reply`` (nothing for a message with no request id,
        which the client could not match to anything); the notifications of what the request
        did go out after the response."""
        try:
            # The web page's bounds: size and depth before parsing, finite numbers only.
            req = read_json(text)
        except PayloadError as exc:  # no request id can be read: nothing to answer
            self.log.info("diplomacy request unreadable", reason=str(exc))
            return
        if not isinstance(req, dict) or not isinstance(req.get("request_id"), str):
            return
        rid, name = req["request_id"], req.get("name")
        self.log.debug("diplomacy request", request=name, game_role=req.get("game_role"))
        if name == "unknown_token":  # the client does not wait for an answer
            token = req.get("token")
            if isinstance(token, str) and token in session.tokens:
                self.drop(token)
            return
        game = self.games.get(str(req.get("game_id")))
        if name == "get_daide_port" and game is not None:
            with trio.move_on_after(PORT_WAIT):  # opened just after the game
                await game.port_ready.wait()
        try:
            if name not in REQUESTS:
                raise RequestError("RequestException", f"request {name!r} is not served here")
            handler = getattr(self.handlers, str(name))
            if name == "sign_in":
                # A sign-in hashes the password (scrypt, ~20 ms of CPU): in a worker thread,
                # one at a time, so a flood of sign-ins delays sign-ins, not the games. The
                # account and token are then made, and kept, here: the database connection
                # is the games' thread's.
                proof = await trio.to_thread.run_sync(
                    self.handlers.prove, req, limiter=self.hashing
                )
                kind, params = self.handlers.sign_in(req, session, proof)
            else:
                kind, params = handler(req, session)
        except RequestError as exc:
            kind, params = "error", {"error_type": exc.kind, "message": str(exc)}
        except Exception as exc:  # the boundary: this request fails, the connection stays
            self.log.error("diplomacy request failed", request=name, error=repr(exc))
            kind = "error"
            params = {"error_type": "ResponseException", "message": f"server error: {exc!r}"}
        try:
            if name in SEAT_REQUESTS and game is not None:
                session.held = []
                await self._stored(game, req.get("game_role"))
            reply(json.dumps({"name": kind, "request_id": rid, **params}))
        finally:
            session.release()

    async def _stored(self, game: PackageGame, role: object) -> None:
        """Wait until what the seat of ``role`` sent is handled, and stored, by the game."""
        seat = game.seats.get(game.powers.get(str(role), ""))
        if seat is None:
            return
        with trio.move_on_after(STORE_WAIT) as waited:
            await seat.flush().wait()
        if waited.cancelled_caught:
            self.log.warning("diplomacy request not stored in time", game=game.game_id)


async def _writer(ws: WebSocket, receive: trio.MemoryReceiveChannel[str]) -> None:
    async for text in receive:
        await ws.send(text)
