"""One game of the server as the package's clients see it: followed by an in-process DAIDE
observer (positions, results, the end), played through one in-process DAIDE seat per power a
package client controls, and shown to each joined client (a *view*: its channel token and
its role) through the package's notifications."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import trio

from diplomat.dipnet.game_data import OBSERVER, OMNISCIENT, game_dict
from diplomat.dipnet.link import GameLink
from diplomat.dipnet.press import PressWriter
from diplomat.dipnet.saved_game import (
    GLOBAL,
    Message,
    PlayedPhase,
    package_map_name,
    phase_dict,
)
from diplomat.engine.map import GameMap
from diplomat.engine.orders import Order, Result
from diplomat.engine.state import GameState, initial_state
from diplomat.protocol import messages
from diplomat.replay.package_notation import COMPLETED, order_text, power_name, power_tokens

if TYPE_CHECKING:
    from diplomat.server.app import GameRunner
    from diplomat.server.store import PressRow

Notify = Callable[[dict[str, Any]], None]  # queue one JSON notification on a connection


def now_micros() -> int:
    return int(time.time() * 1_000_000)


@dataclass
class View:
    """A client's instance of the game: its channel, role (a power's name, observer or
    omniscient), the messages it has seen this phase and in the phases before (by phase name).
    ``notify`` is None while its connection is gone: the client's library reconnects and
    asks to be brought up to date (:meth:`PackageGame.synchronize`)."""

    token: str
    role: str
    notify: Notify | None
    messages: list[Message] = field(default_factory=list)
    past: dict[str, list[Message]] = field(default_factory=dict)

    def send(self, game_id: str, name: str, **params: Any) -> None:
        if self.notify is None:
            return
        self.notify(
            {
                "name": name,
                "notification_id": str(uuid.uuid4()),
                "token": self.token,
                "game_id": game_id,
                "game_role": self.role,
                **params,
            }
        )


class PackageGame:
    """The package's picture of one server game (see the module's docstring)."""

    def __init__(
        self,
        runner: GameRunner | None,
        gmap: GameMap,
        rules: Sequence[str],
        deadline: int,
        *,
        game_id: int | None = None,
        created: int | None = None,
    ) -> None:
        # No runner: a finished game, rebuilt from the database after a restart (resume).
        self.runner = runner
        self.map = gmap
        self.game_id = str(runner.id if runner is not None else game_id)
        self.rules = list(rules)
        self.deadline = deadline
        self.created = created or now_micros()
        self.state: GameState = initial_state(gmap)
        self.status = "forming"
        self.history: list[PlayedPhase] = []
        # When each phase began (the package's state timestamp, which its client's
        # synchronization counts from): the phases of the history, then the current one.
        self.stamps: list[int] = []
        self.began = self.created
        self.views: list[View] = []
        self.seats: dict[str, GameLink] = {}  # our power token -> its seat
        self.controllers: dict[str, str] = {}  # our power token -> user name
        self.daide_port: int | None = None
        self.port_ready = trio.Event()
        self.powers = power_tokens(gmap)
        self.press = PressWriter(gmap)
        self._results: list[tuple[Order, Result | messages.NoteResult | None]] = []
        self._centres: dict[str, str] = dict(self.state.centres)
        self._last_sent = 0
        self.follower = GameLink(f"diplomacy:{self.game_id}:observer", self._followed)
        self._resuming = False  # the follower's first NOW is the phase in progress, not news

    def resume(
        self, played: Sequence[PlayedPhase], began: Sequence[float], ended: float | None
    ) -> None:
        """Take up the game's stored phases after a restart: ``played`` (the last one in
        progress, or the final position of a game that ``ended``, seconds since the epoch)
        and when each ``began`` (seconds). The press of past phases is not shown again: each
        client's view held the messages it saw."""
        stamps = [int(t * 1_000_000) for t in began]
        self.history = [PlayedPhase(p.state, p.orders) for p in played[:-1]]
        self.stamps = stamps[:-1]
        self.state = played[-1].state
        self.began = stamps[-1]
        self._centres = dict(self.state.centres)
        if ended is not None:  # as _ended left it: the final position, then COMPLETED
            self.history.append(PlayedPhase(self.state))
            self.stamps.append(self.began)
            self.began = int(ended * 1_000_000)
            self.status = "completed"
            self.port_ready.set()  # (it has none)
        else:
            self.status = "active"
            self._resuming = True

    # -- what a joining client is sent --------------------------------------------------------

    def visible_orders(self, view: View) -> dict[str, Sequence[Order]]:
        """The orders of the phase in progress ``view`` may see: a power's own, every power's
        for the omniscient view, none for an observer."""
        if self.runner is None:
            return {}
        if view.role == OMNISCIENT:
            return {p.power: p.orders for p in self.runner.status().powers}
        if view.role != OBSERVER:
            power = self.powers[view.role]
            return {power: self.runner.status().of(power).orders}
        return {}

    def game_data(self, view: View) -> dict[str, Any]:
        visible = self.visible_orders(view)
        return game_dict(
            self.game_id,
            self.state,
            role=view.role,
            rules=self.rules,
            status=self.status,
            deadline=self.deadline,
            controllers=self.controllers,
            visible_orders=visible,
            messages=view.messages,
            created=self.created,
        )

    def info(self, user: str, admin: bool) -> dict[str, Any]:
        """``DataGameInfo`` for ListGames."""
        mine = [power_name(self.map, p) for p, u in self.controllers.items() if u == user]
        return {
            "name": "data_game_info",  # (a response's fields: the package lists responses)
            "request_id": str(uuid.uuid4()),
            "game_id": self.game_id,
            "phase": self.state.phase.name if self.status != "completed" else COMPLETED,
            "timestamp": now_micros(),
            "timestamp_created": self.created,
            "map_name": package_map_name(self.map),
            "observer_level": OMNISCIENT if admin else OBSERVER,
            "controlled_powers": mine,
            "rules": self.rules,
            "status": self.status,
            "n_players": len(self.controllers),
            "n_controls": len(self.map.powers),
            "deadline": self.deadline,
            "registration_password": False,
        }

    # -- the game's messages, from the observer ------------------------------------------------

    def _followed(self, msg: Any) -> None:
        if isinstance(msg, messages.Sco) and msg.owners:
            self._centres = msg.centres()
        elif isinstance(msg, messages.Ord) and msg.order is not None:
            self._results.append((msg.order, msg.result))
        elif isinstance(msg, messages.Now) and msg.turn is not None:
            self._position(msg.to_state(self.map, self._centres))
        elif isinstance(msg, messages.Smr):
            self._ended()

    def _position(self, state: GameState) -> None:
        if self._resuming:  # the phase in progress, as the follower joins after a restart
            self._resuming = False
            self.state = state
            return
        if self.status == "forming":
            self.status = "active"
            self.state = state
            self.began = now_micros()
            for view in self.views:
                view.send(self.game_id, "game_status_update", status="active")
            return
        previous = self.state
        results, self._results = self._results, []
        self.state = state
        self._processed(previous, results, state)

    def _processed(
        self,
        previous: GameState,
        results: Sequence[tuple[Order, Result | messages.NoteResult | None]],
        state: GameState,
        name: str | None = None,
    ) -> None:
        self.history.append(PlayedPhase(previous, results))
        self.stamps.append(self.began)
        self.began = now_micros()
        current = self.phase_data(PlayedPhase(state), self.began, name)
        # A power's client sets the new phase's orders as its own: the new phase has none.
        current["orders"] = {}
        # The phase once for every view; each sees its own messages in it.
        before = self.phase_data(PlayedPhase(previous, results), self.stamps[-1])
        for view in self.views:
            view.past[previous.phase.name] = view.messages
            view.messages = []
            if view.notify is None:
                continue
            seen = [m.to_dict() for m in view.past[previous.phase.name]]
            view.send(
                self.game_id,
                "game_processed",
                previous_phase_data={**before, "messages": seen},
                current_phase_data=current,
            )

    def phase_data(
        self, played: PlayedPhase, began: int, name: str | None = None
    ) -> dict[str, Any]:
        """``GamePhaseData`` with the time the phase began (its state's timestamp)."""
        data = phase_dict(played, name)
        data["state"]["timestamp"] = began
        return data

    def past_phase(self, index: int, view: View) -> dict[str, Any]:
        """Phase ``index`` of the history with the messages ``view`` saw in it."""
        played = self.history[index]
        seen = view.past.get(played.state.phase.name, [])
        return self.phase_data(PlayedPhase(played.state, played.orders, seen), self.stamps[index])

    def synchronize(self, view: View, since: int) -> None:
        """Bring ``view``'s client up to date from its latest timestamp ``since`` (after a
        reconnection), as the package's server does: the phases processed since, then the
        phase in progress (or, when none was processed, the messages sent since), then the
        game's status."""
        missed = [k for k, stamp in enumerate(self.stamps) if stamp > since]
        for k in missed:
            update = self.past_phase(k, view)
            view.send(
                self.game_id,
                "game_phase_update",
                phase_data=update,
                phase_data_type="state_history",
            )
        if missed:
            name = COMPLETED if self.status == "completed" else None
            current = self.phase_data(PlayedPhase(self.state, (), view.messages), self.began, name)
            current["orders"] = {
                power_name(self.map, p): [order_text(self.map, o) for o in orders]
                for p, orders in self.visible_orders(view).items()
            }
            view.send(
                self.game_id, "game_phase_update", phase_data=current, phase_data_type="phase"
            )
        else:
            for message in view.messages:
                if message.time_sent > since:
                    view.send(self.game_id, "game_message_received", message=message.to_dict())
        view.send(self.game_id, "game_status_update", status=self.status)

    def _ended(self) -> None:
        if self.status == "completed":
            return
        self._processed(self.state, [], self.state, COMPLETED)
        self.status = "completed"
        for view in self.views:
            view.send(self.game_id, "game_status_update", status="completed")
        for seat in self.seats.values():
            seat.leave()
        self.follower.leave()

    # -- press -------------------------------------------------------------------------------

    def deliver(self, message: Message, to: Sequence[View]) -> None:
        for view in to:
            view.messages.append(message)
            view.send(self.game_id, "game_message_received", message=message.to_dict())

    def time_sent(self) -> int:
        """A message's ``time_sent``: now, in microseconds, and after every earlier one (the
        package's client keys a game's messages by it)."""
        self._last_sent = max(self._last_sent + 1, now_micros())
        return self._last_sent

    def overheard(self, rows: Sequence[PressRow]) -> None:
        """Press relayed between any powers (the store's rows), for the views not seated:
        the omniscient view is shown every message, an observer those sent to every other
        power (the package's ``GLOBAL``). The powers' own views have theirs from their seats."""
        shown = [v for v in self.views if v.role in (OBSERVER, OMNISCIENT)]
        if not shown:
            return
        omniscient = [v for v in shown if v.role == OMNISCIENT]
        for row in rows:
            sender = power_name(self.map, row.sender)
            text = self.press.text(row.sender, row.recipients, row.body)
            others = [p for p in self.map.powers if p != row.sender]
            if sorted(row.recipients) == sorted(others):
                message = Message(sender, GLOBAL, self.time_sent(), row.phase, text)
                self.deliver(message, shown)
                continue
            for r in row.recipients:
                to = power_name(self.map, r)
                self.deliver(Message(sender, to, self.time_sent(), row.phase, text), omniscient)

    def heard(self, power: str, frm: messages.Frm, text: str) -> None:
        """Press ``frm`` reached our seat of ``power``: its views get it as the package's
        message (to ``GLOBAL`` when it went to every other power)."""
        others = [p for p in self.map.powers if p != frm.sender]
        recipient = GLOBAL if sorted(frm.recipients) == sorted(others) else None
        message = Message(
            power_name(self.map, frm.sender),
            recipient or power_name(self.map, power),
            self.time_sent(),
            self.state.phase.name,
            text,
        )
        name = power_name(self.map, power)
        self.deliver(message, [v for v in self.views if v.role == name])
