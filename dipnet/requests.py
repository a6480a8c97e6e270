"""The package's requests, answered: each handler takes the request's JSON fields and returns
the response's name and fields, or raises :class:`RequestError` (the package's error response,
named by the exception class its client raises)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from diplomat.dipnet.accounts import Account, AccountError, Accounts, Proof
from diplomat.dipnet.game_data import OBSERVER, OMNISCIENT
from diplomat.dipnet.games import PackageGame, View
from diplomat.dipnet.saved_game import GLOBAL, Message, package_map_name
from diplomat.engine.defaults import missing_orders
from diplomat.engine.legal import WAIVE_KEY, legal_orders
from diplomat.engine.orders import Order, order_power
from diplomat.protocol import messages
from diplomat.replay.package_notation import location_text, order_text, power_name, read_orders


class Service(Protocol):
    """What the handlers ask of the service (:class:`dipnet.service.DipnetService`)."""

    accounts: Accounts
    games: dict[str, PackageGame]

    def maps(self) -> dict[str, Any]: ...

    def create(self, map_name: str, rules: Sequence[str], deadline: int) -> PackageGame: ...

    def join(
        self, game: PackageGame, account: Account, role: str, token: str, session: Session
    ) -> dict[str, Any]: ...

    def adopt(self, token: str, session: Session) -> None: ...

    def revive(
        self, token: str, game_id: object, role: object, session: Session
    ) -> tuple[PackageGame, View] | None: ...

    def leave(self, game: PackageGame, view: View, session: Session) -> None: ...

    def drop(self, token: str) -> None: ...


Reply = tuple[str, dict[str, Any]]


class RequestError(Exception):
    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


@dataclass
class Session:
    """What one connection holds: its channels (tokens) and its views of games."""

    notify: Callable[[dict[str, Any]], None]
    tokens: set[str] = field(default_factory=set)
    views: list[tuple[PackageGame, View]] = field(default_factory=list)
    # Notifications held back while a request's effect is being stored: its response goes
    # first, as the package's server answers before the phase it completed is processed.
    held: list[dict[str, Any]] | None = None

    def send(self, data: dict[str, Any]) -> None:
        """A notification to this connection (its views' ``notify``)."""
        if self.held is not None:
            self.held.append(data)
        else:
            self.notify(data)

    def release(self) -> None:
        """The held notifications go out, in order."""
        held, self.held = self.held or [], None
        for data in held:
            self.notify(data)


def field_of(req: dict[str, Any], name: str, kind: type, optional: bool = False) -> Any:
    value = req.get(name)
    if value is None and optional:
        return None
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise RequestError("RequestException", f"field {name!r} must be a {kind.__name__}")
    return value


class Handlers:
    """The requests of the priority slice; see the package's ``communication/requests.py``."""

    def __init__(self, service: Service) -> None:
        self.service = service

    def user(self, req: dict[str, Any], session: Session) -> Account:
        token = field_of(req, "token", str)
        try:
            account = self.service.accounts.user(token)
        except AccountError as exc:
            raise RequestError(exc.kind, str(exc)) from None
        if token not in session.tokens:  # its client reconnected: the token moves here
            self.service.adopt(token, session)
        return account

    def game(self, game_id: object) -> PackageGame:
        game = self.service.games.get(str(game_id))
        if game is None:
            raise RequestError("GameIdException", f"no game {game_id!r}")
        return game

    def view(self, req: dict[str, Any], session: Session) -> tuple[PackageGame, View]:
        self.user(req, session)
        game_id, role = req.get("game_id"), req.get("game_role")
        for game, view in session.views:
            if game.game_id == game_id and view.role == role and view.token == req["token"]:
                return game, view
        revived = self.service.revive(req["token"], game_id, role, session)  # (a restart)
        if revived is not None:
            return revived
        raise RequestError("GameTokenException", f"not joined to game {game_id!r} as {role!r}")

    # -- channel requests ----------------------------------------------------------------------

    def prove(self, req: dict[str, Any]) -> Proof:
        """A sign-in's password checked (scrypt): what may run in a worker thread."""
        name, password = field_of(req, "username", str), field_of(req, "password", str)
        try:
            return self.service.accounts.prove(name, password)
        except AccountError as exc:
            raise RequestError(exc.kind, str(exc)) from None

    def sign_in(self, req: dict[str, Any], session: Session, proof: Proof | None = None) -> Reply:
        """The token for a sign-in whose password ``proof`` checked (here if not given)."""
        try:
            token = self.service.accounts.admit(proof or self.prove(req))
        except AccountError as exc:
            raise RequestError(exc.kind, str(exc)) from None
        self.service.adopt(token, session)
        return "data_token", {"data": token}

    def logout(self, req: dict[str, Any], session: Session) -> Reply:
        self.user(req, session)
        self.service.drop(req["token"])
        self.service.accounts.sign_out(req["token"])
        return "ok", {}

    def get_available_maps(self, req: dict[str, Any], session: Session) -> Reply:
        self.user(req, session)
        return "data_maps", {"data": self.service.maps()}

    def get_playable_powers(self, req: dict[str, Any], session: Session) -> Reply:
        """The powers a user may still join as (the package's "dummy" powers): while the
        game forms, those neither a package user nor a DAIDE player has taken."""
        self.user(req, session)
        game = self.game(field_of(req, "game_id", str))
        free: list[str] = []
        if game.status == "forming" and game.runner is not None:
            runner = game.runner
            free = [
                power_name(game.map, p)
                for p in game.map.powers
                if p not in game.controllers and not runner.has_joiner_for(p)
            ]
        return "data_power_names", {"data": free}

    def get_daide_port(self, req: dict[str, Any], session: Session) -> Reply:
        game = self.game(field_of(req, "game_id", str))
        if game.daide_port is None:
            raise RequestError("DaidePortException", f"game {game.game_id} has no DAIDE port")
        return "data_port", {"data": game.daide_port}

    def list_games(self, req: dict[str, Any], session: Session) -> Reply:
        account = self.user(req, session)
        wanted = req.get("game_id")
        out = []
        for game in self.service.games.values():
            if wanted and wanted not in game.game_id:
                continue
            if req.get("status") and req["status"] != game.status:
                continue
            if req.get("map_name") and req["map_name"] != package_map_name(game.map):
                continue
            out.append(game.info(account.name, account.admin))
        return "data_games", {"data": out}

    def create_game(self, req: dict[str, Any], session: Session) -> Reply:
        account = self.user(req, session)
        if req.get("state"):
            raise RequestError("GameCreationException", "games start from the map's opening")
        if req.get("registration_password"):
            raise RequestError("GameCreationException", "registration passwords are not kept")
        deadline = req.get("deadline", 300)
        if not isinstance(deadline, int) or isinstance(deadline, bool) or deadline < 0:
            raise RequestError("NaturalIntegerException", "deadline must be a natural integer")
        map_name = field_of(req, "map_name", str)  # the client always names it
        rules = [r for r in req.get("rules") or [] if isinstance(r, str)]
        game = self.service.create(map_name, rules, deadline)
        power = req.get("power_name")
        role = power if power else (OMNISCIENT if account.admin else OBSERVER)
        return "data_game", {"data": self.service.join(game, account, role, req["token"], session)}

    def join_game(self, req: dict[str, Any], session: Session) -> Reply:
        account = self.user(req, session)
        game = self.game(field_of(req, "game_id", str))
        power = field_of(req, "power_name", str, optional=True)
        role = power if power else (OMNISCIENT if account.admin else OBSERVER)
        return "data_game", {"data": self.service.join(game, account, role, req["token"], session)}

    # -- game requests -------------------------------------------------------------------------

    def leave_game(self, req: dict[str, Any], session: Session) -> Reply:
        game, view = self.view(req, session)
        self.service.leave(game, view, session)
        return "ok", {}

    def get_all_possible_orders(self, req: dict[str, Any], session: Session) -> Reply:
        game, _ = self.view(req, session)
        state = game.state
        gmap = state.map
        possible: dict[str, list[str]] = {}
        orderable: dict[str, list[str]] = {power_name(gmap, p): [] for p in gmap.powers}
        if game.status != "completed":
            for key, orders in legal_orders(state).items():
                if key == WAIVE_KEY:
                    continue
                loc = location_text(gmap, key)
                possible[loc] = [order_text(gmap, o) for o in orders]
                orderable[power_name(gmap, order_power(orders[0]))].append(loc)
        return "data_possible_orders", {
            "possible_orders": possible,
            "orderable_locations": orderable,
        }

    def get_phase_history(self, req: dict[str, Any], session: Session) -> Reply:
        game, view = self.view(req, session)
        phases = [game.past_phase(k, view) for k in range(len(game.history))]
        return "data_game_phases", {"data": phases}

    def synchronize(self, req: dict[str, Any], session: Session) -> Reply:
        """After a reconnection: the notifications the client missed, then the game's info."""
        game, view = self.view(req, session)
        game.synchronize(view, field_of(req, "timestamp", int))
        account = self.user(req, session)
        info = game.info(account.name, account.admin)
        del info["name"], info["request_id"]
        return "data_game_info", {**info, "timestamp": game.began}

    def set_orders(self, req: dict[str, Any], session: Session) -> Reply:
        """The power's orders replaced by these. Those the game would refuse are left out
        and named in an error response (the others are given). Not waiting (``wait`` False)
        gives the rules' orders for what is left out (holds, disbands, waives), as the
        package's server plays a power that is not waiting, and says the power is ready."""
        game, view = self.view(req, session)
        power = self.controlled(game, view, req)
        orders, wrong = self.checked_orders(game, power, field_of(req, "orders", list))
        seat = game.seats[power]
        wait = req.get("wait")
        if wait is True:  # first: the last order must not let the phase be processed
            self._wait(game, power, True, orders)
        seat.send(messages.Not(messages.Sub()))
        if orders:
            seat.send(messages.Sub(tuple(orders)))
        if wait is False:
            self._wait(game, power, False, orders)
        if wrong:
            given = f"the other {len(orders)} given" if orders else "none given"
            # (The package has no exception of its own for refused orders, its server drops
            # them unsaid: its client raises the generic one, with this message.)
            raise RequestError("ResponseException", f"{'; '.join(wrong)} ({given})")
        return "ok", {}

    def clear_orders(self, req: dict[str, Any], session: Session) -> Reply:
        """The power's orders of the phase in progress taken back (its client sends this
        when it is brought up to date after a reconnection, too)."""
        game, view = self.view(req, session)
        power = self.controlled(game, view, req)
        game.seats[power].send(messages.Not(messages.Sub()))
        return "ok", {}

    def set_wait_flag(self, req: dict[str, Any], session: Session) -> Reply:
        game, view = self.view(req, session)
        power = self.controlled(game, view, req)
        wait = field_of(req, "wait", bool)
        assert game.runner is not None  # (controlled: the game is playing)
        self._wait(game, power, wait, game.runner.status().of(power).orders)
        return "ok", {}

    def _wait(self, game: PackageGame, power: str, wait: bool, given: Sequence[Order]) -> None:
        seat = game.seats[power]
        if wait:
            seat.send(messages.Not(messages.Gof()))
            return
        rest = missing_orders(game.state, power, given)
        if rest:
            seat.send(messages.Sub(tuple(rest)))
        seat.send(messages.Gof())

    def vote(self, req: dict[str, Any], session: Session) -> Reply:
        game, view = self.view(req, session)
        power = self.controlled(game, view, req)
        vote = req.get("vote")
        if vote not in ("yes", "no", "neutral"):
            raise RequestError("RequestException", "vote must be yes, no or neutral")
        game.seats[power].send(messages.Drw() if vote == "yes" else messages.Not(messages.Drw()))
        return "ok", {}

    def send_game_message(self, req: dict[str, Any], session: Session) -> Reply:
        game, view = self.view(req, session)
        power = self.controlled(game, view, req)
        raw = field_of(req, "message", dict)
        text = raw.get("message")
        recipient = raw.get("recipient")
        if not isinstance(text, str) or not text:
            raise RequestError("RequestException", "a message needs its text")
        if "NO_PRESS" in game.rules:
            raise RequestError("GameRoleException", "this game has no press (NO_PRESS)")
        gmap = game.map
        if recipient == GLOBAL:
            to = tuple(p for p in gmap.powers if p != power)
        else:
            target = game.powers.get(str(recipient).upper())
            if target is None or target == power:
                raise RequestError("MapPowerException", f"cannot send to {recipient!r}")
            to = (target,)
        game.seats[power].send(messages.Snd(to, messages.FreeText(text)))
        sent = game.time_sent()
        message = Message(view.role, str(recipient), sent, game.state.phase.name, text)
        game.deliver(message, [view])
        return "data_time_stamp", {"data": sent}

    def controlled(self, game: PackageGame, view: View, req: dict[str, Any]) -> str:
        if view.role in (OBSERVER, OMNISCIENT):
            raise RequestError("GameRoleException", "observers give no orders and send nothing")
        if game.status == "completed":
            raise RequestError("GameFinishedException", f"game {game.game_id} is over")
        if game.status != "active":
            raise RequestError("GameNotPlayingException", f"game {game.game_id} has not started")
        phase = req.get("phase")
        if isinstance(phase, str) and phase != game.state.phase.name:
            raise RequestError(
                "GamePhaseException", f"the game is in {game.state.phase.name}, not {phase}"
            )
        wanted = req.get("power_name")
        if wanted and wanted != view.role:
            raise RequestError("GameRoleException", f"{view.role} cannot act for {wanted}")
        return game.powers[view.role]

    def checked_orders(
        self, game: PackageGame, power: str, texts: list[Any]
    ) -> tuple[list[Order], list[str]]:
        """Each order read and checked as the game will check it (as a replay of the
        package's games reads them): the accepted ones, and for each other its text and why."""
        if not all(isinstance(text, str) for text in texts):
            raise RequestError("RequestException", "orders must be strings")
        book, refused = read_orders(game.state, {power: texts})
        return book.orders_of(power), [r.removeprefix(f"{power} ") for r in refused]
