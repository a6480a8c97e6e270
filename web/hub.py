"""The web side of the server: the page, its JSON API, and the games people play from it.

The hub listens on its own port (HTTP and WebSocket, see ``web.http``), creates games
against bots (a person's seat, bundled bots launched as subprocesses over pipes, seats left
open for bots that connect over TCP), keeps one :class:`~web.session.WebSession` per
seat that pages attach to, and serves the history of a game from the store. Game logic stays in
the game's task: the hub only creates games, starts their bots and seats their players, as the
tournament runner does.
"""

from __future__ import annotations

import json
import math
import os
import random
import shlex
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

import trio
from pydantic import ValidationError

from diplomat.bots.registry import BUNDLED, DEFAULT_BOT, NEGOTIATORS, bundled_command
from diplomat.engine.map import GameMap, bundled_maps, load_map
from diplomat.engine.orders import Order
from diplomat.engine.state import GameState
from diplomat.mapdraw.svg import render_map
from diplomat.protocol import messages
from diplomat.protocol.codec import codec_for
from diplomat.protocol.mdf import table_for_map
from diplomat.server.changes import Changes
from diplomat.server.faults import describe
from diplomat.server.guard import peer_key
from diplomat.server.logs import get_logger
from diplomat.server.settings import GameSettings
from diplomat.server.store import StoreError
from diplomat.web.gate import Bucket, ConnectionGate, serve_gated
from diplomat.web.http import Request, Response, WebSocket, serve_http
from diplomat.web.lobby import PLAYED, Listing, is_listed, listed_games
from diplomat.web.payloads import PayloadError, first_problem, frame, game_request
from diplomat.web.people import (
    PERSON,
    Host,
    HostBook,
    Lineup,
    TokenGuard,
    people_of,
    read_lineup,
    seat_lineup,
    waiting_people,
)
from diplomat.web.press import PRESS_LEVELS
from diplomat.web.proxy import visitor
from diplomat.web.seats import SeatBook, SeatRow
from diplomat.web.session import WebSession
from diplomat.web.spectator import Reader, Spectator
from diplomat.web.views import notice, phase_title, result_lines

if TYPE_CHECKING:
    from diplomat.server.app import GameRunner, Server

OPEN = "open"  # a seat left for a bot that connects over TCP
GRACE = 20.0  # seconds a seat waits for a page to come back before it leaves the game
HELLO_TIMEOUT = 30.0
BOT_EXIT_GRACE = 10.0  # seconds a bot gets to exit by itself after its game ends
CREATE_BURST = 5  # games one address may create at once ...
CREATE_EVERY = 60.0  # ... and then one per this many seconds
FORMING_TIMEOUT = 120.0  # seconds a web game may wait for its person before it is abandoned
FRAME_BURST = 100  # requests a page may send at once ...
FRAME_EVERY = 0.05  # ... and then one per this many seconds (people click far slower)
GAMES_PER_ADDRESS = 2  # web games one address may have running at once
NEGOTIATE = "--negotiate"  # the one option the page may give a bundled bot: it talks
DEFAULTS: dict[str, Any] = {
    "power": "random",
    "level": 0,
    "opponents": [DEFAULT_BOT] * 6,
    "move_time": 600,
    "retreat_time": 120,
    "build_time": 120,
    "max_year": 1910,
}


def default_max_year(gmap: GameMap) -> int:
    """The year a game on ``gmap`` ends in by default: as many years in as 1910 is on the
    standard map."""
    return gmap.start_year + DEFAULTS["max_year"] - 1901


class SpecError(ValueError):
    """A game the page asked for that cannot be made."""


RANDOM = "RANDOM"  # the power of a spec that leaves it to chance


@dataclass(frozen=True)
class GameSpec:
    """A game the page (or ``diplomat serve --play``) asked for, checked."""

    power: str  # a power of the map, or RANDOM
    opponents: list[str]  # a bundled bot's name or OPEN, one per other power
    settings: GameSettings
    name: str | None
    gmap: GameMap
    lineup: Lineup | None = None  # a kind per power (``seats``): a game with people
    fill_bot: str | None = None  # gives a person's seat nobody took to this bot ...
    fill_after: int | None = None  # ... after this many seconds


def read_spec(spec: Any, gmap: GameMap) -> GameSpec:
    """Check a requested game (see ``DEFAULTS`` for the fields) before anything is made:
    raises :class:`SpecError` (or pydantic's ``ValidationError``, a ``ValueError`` too)."""
    if not isinstance(spec, Mapping):
        raise SpecError("expected a JSON object")
    spec = game_request(dict(spec))  # types and ranges; the names are checked below
    powers = list(gmap.powers)
    power = str(spec.get("power") or "random").upper()
    if power not in powers and power != RANDOM:
        raise SpecError(f"no power {power}: choose one of {', '.join(powers)} or random")
    opponents = spec.get("opponents", [DEFAULT_BOT] * (len(powers) - 1))
    if not isinstance(opponents, list) or len(opponents) != len(powers) - 1:
        raise SpecError(f"choose {len(powers) - 1} opponents")
    names = [" ".join(str(o).lower().split()) for o in opponents]
    for name in names:
        if name not in bot_choices() and name != OPEN:
            raise SpecError(f"unknown bot {name!r}: choose from {', '.join(bot_choices())} or open")
    level = _number(spec, "level") or 0
    if level not in PRESS_LEVELS:
        raise SpecError(
            f"press level {level}: choose {', '.join(map(str, PRESS_LEVELS))} (0 is gunboat)"
        )
    settings = GameSettings.model_validate(
        {
            "map": gmap.name,
            # Level 0 is gunboat: no press, and nobody is named until the end.
            "level": level,
            "pda": bool(spec.get("pda")),
            "move_time": _seconds(spec, "move_time"),
            "retreat_time": _seconds(spec, "retreat_time"),
            "build_time": _seconds(spec, "build_time"),
            "max_year": _number(spec, "max_year") if "max_year" in spec else default_max_year(gmap),
        }
    )
    title = str(spec.get("name") or "").strip()[:60] or None
    if "seats" in spec:
        return _with_people(spec, GameSpec(power, [], settings, title, gmap))
    return GameSpec(power, names, settings, title, gmap)


def _with_people(spec: Mapping[str, Any], plain: GameSpec) -> GameSpec:
    """A game whose ``seats`` name each power's kind (a person, a bot, open), and its
    creator's power (``power``, or the first person's); see :mod:`web.people`."""
    host = None if plain.power == RANDOM else plain.power
    lineup = read_lineup(spec["seats"], plain.gmap, host, bot_choices(), OPEN)
    fill_bot = spec.get("fill_bot")
    if fill_bot is not None and fill_bot not in bot_choices():
        choices = ", ".join(bot_choices())
        raise SpecError(f"fill_bot: unknown bot {fill_bot!r}: choose from {choices}")
    fill_after = _seconds(spec, "fill_after") if fill_bot is not None else None
    if fill_bot is not None and fill_after is None:
        raise SpecError("fill_after: say after how many seconds a bot takes an empty seat")
    return GameSpec(
        lineup.host,
        [],
        plain.settings,
        plain.name,
        plain.gmap,
        lineup,
        fill_bot if lineup.people else None,
        fill_after if lineup.people else None,
    )


def bot_choices() -> list[str]:
    """What the page offers as an opponent: every bundled bot, and the negotiating ones
    with ``--negotiate`` (silent in a gunboat game, talking at press levels 10 to 30)."""
    return [*BUNDLED, *(f"{b} {NEGOTIATE}" for b in NEGOTIATORS)]


def bot_argv(choice: str, seed: int) -> list[str]:
    """The command that starts an opponent the page chose (one of :func:`bot_choices`)."""
    name, *extra = choice.split()
    return shlex.split(bundled_command(name, extra).format(seed=seed))


def bundled_choice(choice: str) -> bool:
    return choice in bot_choices()


class Refused(Exception):
    """No game now: too many running, or too many created from this address (HTTP status
    and a message the page shows)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def default_max_games() -> int:
    """Web games (each with up to six bot processes) that may run at once: two per core."""
    return 2 * (os.cpu_count() or 1)


def default_max_bots() -> int:
    """Bot processes web games may hold at once: six per core (about 25 MB each), so that
    half the games a full line-up of bots each, or more with open seats and fewer bots."""
    return 6 * (os.cpu_count() or 1)


class WebHub:
    def __init__(
        self,
        server: Server,
        grace: float = GRACE,
        *,
        max_games: int | None = None,
        create_burst: int = CREATE_BURST,
        create_every: float = CREATE_EVERY,
        forming_timeout: float = FORMING_TIMEOUT,
        hosts: frozenset[str] = frozenset(),
        announce: Callable[[str], None] | None = None,
        games_per_address: int | None = None,
        max_bots: int | None = None,
        max_connections: int | None = None,
        connections_per_address: int | None = None,
        public: bool = False,
        public_url: str | None = None,
        proxies: frozenset[str] = frozenset(),
    ) -> None:
        self.server = server
        self.public = public  # every game is on the games page (serve --public)
        self.listing = Listing(server.store.path)  # the games their creators listed
        # Told each web game's open-seat address as its listener opens (``serve`` prints it:
        # whoever runs the bots that take those seats reads the terminal, not the page).
        self.announce = announce
        self.max_games = max_games if max_games is not None else default_max_games()
        self.games_per_address = (
            games_per_address if games_per_address is not None else GAMES_PER_ADDRESS
        )
        self.max_bots = max_bots if max_bots is not None else default_max_bots()
        self.gate = ConnectionGate(max_connections, connections_per_address)
        self.owners: dict[int, str] = {}  # live web game -> the address that created it
        self.bots: dict[int, int] = {}  # live web game -> bot processes its line-up starts
        self.create_burst = create_burst
        self.create_every = create_every
        self.forming_timeout = forming_timeout
        self.hosts = hosts  # names besides IP addresses and localhost the page answers to
        self.live: set[int] = set()  # web games whose bots are running
        self._creations: dict[str, Bucket] = {}  # address -> its creations
        self.store = server.store
        self.seats = SeatBook(server.store.path)
        self.creators = HostBook(server.store.path)  # games with people: the creator's seat
        self.guard = TokenGuard()  # wrong seat tokens, per address
        self.revoked: set[str] = set()  # seats given to a bot since the start (no longer links)
        self.public_url = public_url  # the address links carry (a reverse proxy's)
        self.proxies = proxies  # reverse proxies whose X-Forwarded-For names the visitor
        self.grace = grace
        self.sessions: dict[str, WebSession] = {}
        self.open_ports: dict[int, int] = {}  # game -> the port its open seats connect to
        self._listening: dict[int, trio.Event] = {}  # set once that port takes connections
        self.rng = random.Random(server.rng.random())
        self.maps: dict[str, GameMap] = {}
        self.listeners: list[trio.SocketListener] = []
        self.log = get_logger(web=True)
        self._history: OrderedDict[tuple[int, int, int], dict[str, Any]] = OrderedDict()
        self._nursery: trio.Nursery | None = None

    # -- running ---------------------------------------------------------------------------------

    async def run(
        self, port: int, task_status: trio.TaskStatus[WebHub] = trio.TASK_STATUS_IGNORED
    ) -> None:
        self.listeners = await trio.open_tcp_listeners(port, host=self.server.host)
        try:
            async with trio.open_nursery() as nursery:
                self._nursery = nursery
                self._resume()
                for listening in list(self._listening.values()):
                    await listening.wait()  # (resumed games' open seats announced first)
                nursery.start_soon(serve_gated, self.listeners, self._serve, self.gate, self.log)
                self.log.info("web page", url=self.url)
                task_status.started(self)
                await trio.sleep_forever()
        finally:
            self.seats.close()
            self.listing.close()
            self.creators.close()

    @property
    def address(self) -> tuple[str, int]:
        host, port = self.listeners[0].socket.getsockname()[:2]
        return host, port

    @property
    def url(self) -> str:
        host, port = self.address
        if host in ("0.0.0.0", "::"):
            host = "127.0.0.1"
        if ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{port}/"

    def url_for(self, seat: SeatRow) -> str:
        """A seat's private link, at the address people reach the page by (``public_url``,
        a reverse proxy's, if the hub was given one)."""
        return self.link_for(seat.game_id, seat.token)

    def link_for(self, game_id: int, token: str) -> str:
        base = (self.public_url or self.url).rstrip("/")
        return f"{base}/game/{game_id}?t={token}"

    def spawn(self, fn: Callable[..., Awaitable[Any]], *args: Any) -> None:
        """Run a task of the hub's (a session, a game's bots, a page's message) inside a
        boundary: what it raises is logged and ends that task alone."""
        assert self._nursery is not None
        self._nursery.start_soon(self._guarded, fn, *args)

    async def _guarded(self, fn: Callable[..., Awaitable[Any]], *args: Any) -> None:
        try:
            await fn(*args)
        except Exception as exc:
            self.log.error(
                "web task failed",
                task=getattr(fn, "__qualname__", repr(fn)),
                **describe(exc),
            )

    async def _serve(self, stream: trio.SocketStream) -> None:
        through = partial(visitor, proxies=self.proxies) if self.proxies else None
        await serve_http(stream, self.api, self.on_socket, hosts=self.hosts, through=through)

    def map_named(self, name: str) -> GameMap:
        if name not in self.maps:
            self.maps[name] = load_map(name)
        return self.maps[name]

    def map_names(self) -> list[str]:
        """The maps the page offers: the server's own (``--map``) first, then every bundled
        map."""
        default = self.server.settings.map
        return [default, *(n for n in bundled_maps() if n != default)]

    def spec_map(self, spec: Any) -> GameMap:
        """The map a requested game names (``map``, one of :meth:`map_names`), or the
        server's."""
        name = spec.get("map") if isinstance(spec, Mapping) else None
        if name is None or name == "":
            return self.map_named(self.server.settings.map)
        if not isinstance(name, str) or name not in self.map_names():
            raise SpecError(f"unknown map {name!r}: choose one of {', '.join(self.map_names())}")
        return self.map_named(name)

    def map_summary(self, name: str) -> dict[str, Any]:
        """What the lobby shows of a map: its powers, size, first year and designer."""
        gmap = self.map_named(name)
        return {
            "name": name,
            "title": gmap.title,
            "description": gmap.description,
            "designer": gmap.designer,
            "powers": [{"id": p, "name": gmap.power_info[p].name} for p in gmap.powers],
            "provinces": len(gmap.provinces),
            "centres": len(gmap.supply_centres),
            "first_year": gmap.start_year,
            "max_year": default_max_year(gmap),
        }

    # -- the JSON API ----------------------------------------------------------------------------

    async def api(self, req: Request) -> Response:
        if req.path == "/api/options" and req.method in ("GET", "HEAD"):
            gmap = self.map_named(self.server.settings.map)
            return Response.of_json(
                {
                    "powers": [{"id": p, "name": gmap.power_info[p].name} for p in gmap.powers],
                    "maps": [self.map_summary(n) for n in self.map_names()],
                    "bots": bot_choices(),
                    "levels": list(PRESS_LEVELS),
                    "public": self.public,
                    "defaults": {**DEFAULTS, "map": self.server.settings.map},
                }
            )
        if req.path == "/api/games":
            if req.method == "POST":
                try:
                    seat = self.create_game(req.json(), req.peer)
                except Refused as exc:
                    self.log.warning("web game refused", peer=req.peer, reason=str(exc))
                    return Response.error(exc.status, str(exc))
                except (SpecError, ValidationError, ValueError) as exc:  # PayloadError too
                    return Response.error(400, _message(exc))
                return Response.of_json(
                    {
                        "game": seat.game_id,
                        "power": seat.power,
                        "token": seat.token,
                        "url": self.url_for(seat),
                        "path": f"/game/{seat.game_id}?t={seat.token}",
                        # The other people's links, for the creator to share.
                        "people": [
                            {"power": s.power, "url": self.url_for(s)}
                            for s in self.people_seats(seat.game_id)
                        ],
                    },
                    201,
                )
            return Response.of_json(self.games())
        if req.path == "/api/list" and req.method in ("GET", "HEAD"):
            return Response.of_json(self.listed())
        return Response.error(404, "not found")

    def listed(self) -> list[dict[str, Any]]:
        """The games page's rows (:mod:`web.lobby`)."""
        return listed_games(
            self.store.games(),
            self.server.games,
            self.listing.ids(),
            self.public,
            self.map_named,
            trio.current_time(),
        )

    def games(self) -> list[dict[str, Any]]:
        """The web games on this server (no tokens: a seat is opened by its link only)."""
        out = []
        seen = set()
        for seat in self.seats.all():
            if seat.game_id in seen:
                continue
            seen.add(seat.game_id)
            row = self.store.game(seat.game_id)
            out.append({"id": row.id, "name": row.name, "status": row.status, "phase": row.phase})
        return out

    # -- creating games --------------------------------------------------------------------------

    def _may_create(self, address: str) -> None:
        """Per address: ``create_burst`` games at once, then one per ``create_every``
        seconds (a token bucket). Raises :class:`Refused` (429) beyond that."""
        now = trio.current_time()
        bucket = self._creations.setdefault(address, Bucket(self.create_burst, self.create_every))
        wait = bucket.take(now)
        if wait:
            raise Refused(
                429,
                f"Too many games created from your address: you can create another in "
                f"{wait:.0f} s.",
            )
        if len(self._creations) > 10_000:  # forget the addresses whose allowance is full
            for a in [a for a, b in self._creations.items() if b.full(now)]:
                del self._creations[a]

    def _may_run(self, bots: int) -> None:
        """Room for one more game with ``bots`` bot processes, in total (503 if not)."""
        if len(self.live) >= self.max_games:
            raise Refused(
                503,
                f"The server already runs {len(self.live)} games from this page, the most "
                "it allows at once: try again when one of them has ended.",
            )
        running = sum(self.bots.values())
        if running + bots > self.max_bots:
            raise Refused(
                503,
                f"The server already runs {running} bots for games from this page and "
                f"allows {self.max_bots}: this game's {bots} must wait until a game ends "
                "(or leave some seats open).",
            )

    def _may_hold(self, owner: str) -> None:
        """Room for one more running game from ``owner``'s address (429 if not)."""
        held = sum(1 for who in self.owners.values() if who == owner)
        if held >= self.games_per_address:
            raise Refused(
                429,
                f"Your address already has {held} games running here, the most it may: "
                "finish or leave one (a game nobody opens ends after "
                f"{self.forming_timeout:.0f} s).",
            )

    def create_game(self, spec: Mapping[str, Any], peer: str | None = None) -> SeatRow:
        """A gunboat game for one person against bots; see ``DEFAULTS`` for the fields.
        Once the request is found valid: :class:`Refused` (503) when ``max_games`` web
        games already run, or (429) when ``peer``'s address has created too many."""
        wanted = read_spec(spec, self.spec_map(spec))
        powers = list(wanted.gmap.powers)
        power = self.rng.choice(powers) if wanted.power == RANDOM else wanted.power
        if wanted.lineup is not None:  # each power's seat chosen (a game with people)
            lineup = dict(wanted.lineup.others)
        else:
            others = [p for p in powers if p != power]
            self.rng.shuffle(others)  # the page must not learn which bot plays which power
            lineup = dict(zip(others, wanted.opponents, strict=True))
        bots = sum(1 for bot in lineup.values() if bundled_choice(bot))
        if wanted.fill_bot is not None and wanted.lineup is not None:
            bots += len(wanted.lineup.people)  # room for the bots that may fill their seats
        self._may_run(bots)
        owner = peer_key(peer) if peer is not None else ""
        if peer is not None:
            self._may_hold(owner)
            self._may_create(owner)
        runner = self.server.create_game(wanted.settings, name=wanted.name)
        if spec.get("listed"):
            self.listing.add(runner.id)
        seat = self.seats.add(runner.id, power, lineup)
        if wanted.lineup is not None:
            self._add_people(seat, wanted)
        self.live.add(runner.id)
        self._expect_open_seats(seat)
        self.owners[runner.id] = owner
        self.bots[runner.id] = bots
        self._wait_for_person(runner, seat)
        self.spawn(self._supervise, runner, seat, False)
        self.log.info("web game created", game=runner.id, power=power)
        return seat

    def _add_people(self, seat: SeatRow, wanted: GameSpec) -> None:
        """The other people's seats of a game with people (each its own token), and its
        creator's (``seat``) with the choice of a bot for seats nobody takes."""
        assert wanted.lineup is not None
        for power in wanted.lineup.people:
            self.seats.add(seat.game_id, power, seat_lineup(wanted.lineup, power))
        self.creators.add(Host(seat.game_id, seat.token, wanted.fill_bot, wanted.fill_after))

    def people_seats(self, game_id: int) -> list[SeatRow]:
        """The seats of a game's people other than its creator (for the creator to share)."""
        host = self.creators.get(game_id)
        if host is None:
            return []
        return [s for s in self.seats.of_game(game_id) if not host.holds(s.token)]

    def _resume(self) -> None:
        """After a restart: the bots of web games still running come back with IAM."""
        for seat in self.seats.all():
            runner = self.server.games.get(seat.game_id)
            if runner is None or not self.creators.is_host(seat.game_id, seat.token):
                continue  # (a game with people is supervised from its creator's seat)
            status = runner.status()
            if status.started and not status.finished:
                self.live.add(runner.id)
                self._expect_open_seats(seat)
                self.bots[runner.id] = sum(1 for b in seat.lineup.values() if bundled_choice(b))
                self._wait_for_person(runner, seat)
                self.spawn(self._supervise, runner, seat, True)

    def _wait_for_person(self, runner: GameRunner, seat: SeatRow) -> None:
        """In phases without a deadline, the game waits for the person, however long they
        are away (their power shows as in civil disorder meanwhile); with deadlines it plays
        on at each deadline."""
        for power in people_of(seat.power, seat.lineup):
            runner.wait_for(power)

    async def _supervise(self, runner: GameRunner, seat: SeatRow, rejoin: bool) -> None:
        try:
            await self._supervised(runner, seat, rejoin)
        finally:
            self.live.discard(runner.id)
            self.owners.pop(runner.id, None)
            self.bots.pop(runner.id, None)
            listening = self._listening.pop(runner.id, None)
            if listening is not None:
                listening.set()  # (it never opened: nobody waits for it in vain)

    def _expect_open_seats(self, seat: SeatRow) -> None:
        if OPEN in seat.lineup.values():
            self._listening[seat.game_id] = trio.Event()

    async def open_seats_listening(self, seat: SeatRow) -> None:
        """Return once the game's open seats take connections (their address announced), or
        at once if it has none."""
        listening = self._listening.get(seat.game_id)
        if listening is not None:
            await listening.wait()

    async def _supervised(self, runner: GameRunner, seat: SeatRow, rejoin: bool) -> None:
        gone = _Gone()
        async with trio.open_nursery() as nursery:
            passcodes: dict[str, int] = {}
            if rejoin:
                passcodes = {p.power: p.passcode for p in self.store.players(runner.id)}
            open_powers = [p for p, bot in seat.lineup.items() if bot == OPEN]
            if open_powers:
                if not rejoin:
                    runner.reserved.extend((p, OPEN) for p in open_powers)
                await self._listen_for_open_seats(nursery, runner, len(open_powers))
            for power, bot in seat.lineup.items():
                if bundled_choice(bot) and (not rejoin or power in passcodes):
                    nursery.start_soon(
                        self._run_bot, runner, power, bot, passcodes.get(power), gone
                    )
            if not rejoin:
                await self._start_when_ready(runner, seat, gone, nursery)
        self.open_ports.pop(runner.id, None)

    async def _listen_for_open_seats(
        self, nursery: trio.Nursery, runner: GameRunner, seats: int
    ) -> None:
        """The game's own port for its open seats: after a restart the port it had, if it is
        still free, so that a bot that lost its connection comes back where it was (IAM), as
        bots of a plain game come back to the server's port."""
        wanted = self.seats.open_port(runner.id) or 0
        try:
            port = await nursery.start(self.server.listen_for_game, runner, wanted)
        except OSError as exc:  # taken meanwhile: another one (announced like the first)
            self.log.warning("open seats' port taken", game=runner.id, port=wanted, error=str(exc))
            port = await nursery.start(self.server.listen_for_game, runner, 0)
        self.seats.set_open_port(runner.id, port)
        self.open_ports[runner.id] = port
        self._announce_open(runner.id, seats, port)

    def _announce_open(self, game: int, seats: int, port: int) -> None:
        if self.announce is not None:
            host = self.server.address[0]
            where = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
            plural = "s" if seats > 1 else ""
            self.announce(f"game {game}: {seats} open seat{plural}, for bots connecting to {where}")
        listening = self._listening.get(game)
        if listening is not None:
            listening.set()

    async def _run_bot(
        self, runner: GameRunner, power: str, bot: str, passcode: int | None, gone: _Gone
    ) -> None:
        argv = bot_argv(bot, self.rng.randrange(1 << 30))
        seat: tuple[GameRunner, str | None, str | None] | None = (runner, power, bot)
        if passcode is not None:
            argv += ["--power", power, "--passcode", str(passcode)]
            seat = None  # it rejoins with IAM
        try:
            with trio.CancelScope() as scope:
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(_cancel_after, runner.done, scope, BOT_EXIT_GRACE)
                    await self.server.run_pipe_bot(argv, seat)
                    nursery.cancel_scope.cancel()
        except OSError as exc:
            self.log.warning("bot failed to start", bot=bot, error=str(exc))
        finally:
            gone.add(power)
        # (Not when cancelled or stopped: the server is shutting down, no one needs telling.)
        status = runner.status()
        if not status.finished and not status.halted:
            self.log.warning("bot left its game", game=runner.id, power=power)

    async def _start_when_ready(
        self, runner: GameRunner, seat: SeatRow, gone: _Gone, nursery: trio.Nursery
    ) -> None:
        """A game starts by itself when all its players have joined. A bot that dies first
        must not stall it: once the people and every bot still running are in, it starts
        with the missing powers in civil disorder. A person's seat nobody has taken after
        the creator's ``fill_after`` seconds goes to the creator's ``fill_bot``, if chosen.
        Woken by the game's events (its watcher) and by the bots' ends."""
        start = trio.current_time()
        give_up = start + self.forming_timeout
        people = people_of(seat.power, seat.lineup)
        host = self.creators.get(seat.game_id)
        fill_at = math.inf
        if host is not None and host.fill_bot is not None and host.fill_after is not None:
            fill_at = start + host.fill_after
        runner.watch(gone, gone.changes.poke)
        try:
            while not runner.status().started and not runner.done.is_set():
                ready = runner.joined()
                missing = set(runner.map.powers) - ready
                absent = [p for p in people if p not in ready]
                if not absent and missing and missing <= gone.powers:
                    self.start_now(seat)
                    return
                now = trio.current_time()
                if absent and now >= fill_at and host is not None and host.fill_bot:
                    self._fill_seats(nursery, runner, seat, absent, host.fill_bot, gone)
                    people = [p for p in people if p not in absent]
                    fill_at = math.inf
                    continue
                if len(absent) < len(people):  # someone is in: wait for the rest
                    await gone.changes.wait(fill_at)
                elif now >= give_up:
                    # Nobody came to play it: abandon it (its bots get OFF and exit).
                    self.log.info("web game abandoned: nobody came", game=runner.id)
                    runner.abandon()
                    return
                else:
                    await gone.changes.wait(min(give_up, fill_at))
        finally:
            runner.watch(gone, None)

    def _fill_seats(
        self,
        nursery: trio.Nursery,
        runner: GameRunner,
        seat: SeatRow,
        powers: list[str],
        bot: str,
        gone: _Gone,
    ) -> None:
        """Give people's seats nobody took to a bot: their links open nothing any more, and
        the creator's line-up names the bot (restarted with the game after a restart)."""
        for power in powers:
            for row in self.seats.of_game(runner.id):
                if row.power == power:
                    self.seats.remove(row.token)
                    self.revoked.add(row.token)
            seat.lineup[power] = bot
            runner.wait_for(power, False)
            nursery.start_soon(self._run_bot, runner, power, bot, None, gone)
        self.seats.set_lineup(seat.token, seat.lineup)
        self.log.info("web seats filled with a bot", game=runner.id, powers=powers, bot=bot)

    def start_now(self, seat: SeatRow) -> None:
        """Start without the seats still empty (the person asked): they begin in disorder."""
        runner = self.server.games.get(seat.game_id)
        if runner is None or runner.status().started:
            return
        if not self.creators.is_host(seat.game_id, seat.token):
            return  # (only a game's creator starts it early)
        ready = runner.joined()
        if seat.power not in ready:
            return
        missing = [p for p in runner.map.powers if p not in ready]
        runner.start_without([(p, seat.lineup.get(p)) for p in missing])

    def forming_view(self, seat: SeatRow, joined: int) -> dict[str, Any]:
        bots = sum(1 for b in seat.lineup.values() if b not in (OPEN, PERSON))
        creator = self.creators.is_host(seat.game_id, seat.token)
        view: dict[str, Any] = {
            "joined": joined,
            "seats": len(seat.lineup) + 1,
            "bots": bots,
            "open": sum(1 for b in seat.lineup.values() if b == OPEN),
            "host": self.server.address[0],
            "port": self.open_ports.get(seat.game_id),
            "creator": creator,
        }
        if PERSON in seat.lineup.values():
            view.update(self._people_view(seat, creator))
        return view

    def _people_view(self, seat: SeatRow, creator: bool) -> dict[str, Any]:
        """Who a game with people waits for; to its creator's pages alone, the other seats'
        links to share (a page is sent its own seat's view, never another's)."""
        runner = self.server.games.get(seat.game_id)
        joined = runner.joined() if runner is not None else set()
        tokens = {s.power: s.token for s in self.seats.of_game(seat.game_id)}
        others = [(p, tokens.get(p, "")) for p, k in seat.lineup.items() if k == PERSON]
        gid = seat.game_id
        link = (lambda token: self.link_for(gid, token)) if creator else None
        host = self.creators.get(gid)
        fill = None
        if host is not None and host.fill_bot is not None:
            fill = {"bot": host.fill_bot, "after": host.fill_after}
        gmap = runner.map if runner else self.map_named(self.store.game(gid).settings["map"])
        return {"people": waiting_people(others, gmap, joined, link), "fill": fill}

    # -- pages -----------------------------------------------------------------------------------

    async def on_socket(self, ws: WebSocket, req: Request) -> None:
        """A page's WebSocket: a hello naming the game and the seat's token, then requests,
        each checked (:func:`web.payloads.frame`) and handled inside a boundary: a request
        that fails gets a notice, and the page, its game and the server go on."""
        text = None
        with trio.move_on_after(HELLO_TIMEOUT):
            text = await ws.receive()
        try:
            first = frame(text or "")
        except PayloadError:
            first = None
        if first is not None and first["t"] == "watch":
            await self._spectate(ws, first["game"])
            return
        seat = self._hello(text or "", req.peer)
        if isinstance(seat, str):
            await ws.send(json.dumps({"t": "error", "text": seat}))
            return
        session = await self.session_for(seat)
        session.attach(ws)
        budget = Bucket(FRAME_BURST, FRAME_EVERY)
        slowed = False  # told to slow down, and nothing taken since
        try:
            while True:
                text = await ws.receive()
                if text is None:
                    return
                wait = budget.take(trio.current_time())
                if wait:  # a page that floods its seat: dropped, with one notice
                    if not slowed:
                        slowed = True
                        rate = f"about {1 / FRAME_EVERY:.0f} a second"
                        await ws.send(
                            notice(f"Too many requests from this page: slow down ({rate}).")
                        )
                    continue
                slowed = False
                if seat.token in self.revoked:
                    # The link is checked on every message: a seat given to a bot is gone.
                    await ws.send(
                        json.dumps({"t": "error", "text": "This seat is no longer yours."})
                    )
                    return
                await self._on_frame(session, ws, text)
        finally:
            session.detach(ws)

    def _watchable(self, game_id: int) -> GameMap | None:
        """The map of a game a spectator may watch (listed, not a tournament's), or None."""
        if not is_listed(game_id, self.public, self.listing.ids()):
            return None
        runner = self.server.games.get(game_id)
        if runner is not None:
            return runner.map
        try:
            row = self.store.game(game_id)
        except StoreError:
            return None
        if row.tournament is not None or row.status not in PLAYED:
            return None  # (a tournament's, or abandoned before it started)
        return self.map_named(row.settings["map"])

    async def _spectate(self, ws: WebSocket, game_id: int) -> None:
        """A spectator's page (:mod:`web.spectator`): an observer of the game, and the
        history of its stored phases on request."""
        gmap = self._watchable(game_id)
        if gmap is None:
            await ws.send(json.dumps({"t": "error", "text": f"No game {game_id} is listed here."}))
            return
        spectator = Spectator(self.server, self.store, game_id, gmap, self.stored_results)
        budget = Bucket(FRAME_BURST, FRAME_EVERY)
        slowed = False  # told to slow down, and nothing taken since
        async with trio.open_nursery() as nursery:
            nursery.start_soon(spectator.flush_to, ws)
            nursery.start_soon(spectator.watch, self.server.games.get(game_id))
            try:
                while (text := await ws.receive()) is not None:
                    if budget.take(trio.current_time()):  # a flood: dropped, with one notice
                        if not slowed:
                            await ws.send(notice("Too many requests from this page: slow down."))
                        slowed = True
                        continue
                    slowed = False
                    try:
                        data = frame(text)
                    except PayloadError as exc:
                        await ws.send(notice(f"Request refused: {exc}."))
                        continue
                    if data["t"] != "history":
                        await ws.send(notice("A spectator's page only looks: nothing done."))
                        continue
                    await ws.send(json.dumps(self.history_view(spectator, data.get("index"))))
            finally:
                nursery.cancel_scope.cancel()

    def _hello(self, text: str, peer: str) -> SeatRow | str:
        """The seat a page's hello opens, or why not. Every token is checked through the
        guard (:class:`web.people.TokenGuard`): an address that has sent too many wrong ones
        is refused, unread, until its lockout ends."""
        try:
            hello = frame(text)
        except PayloadError as exc:
            return f"This link opens no seat here ({exc})."
        if hello["t"] != "hello":
            return "This link opens no seat here (a page first says hello)."
        game = hello["game"]
        wait = self.guard.wait(game, peer)
        if wait:
            return f"Too many wrong links from your address: try again in {math.ceil(wait)} s."
        seat = self.seats.find(game, hello["token"])
        if seat is None:
            delay = self.guard.failed(game, peer)
            if delay:  # (the token itself is never logged)
                self.log.warning("wrong seat links", peer=peer_key(peer), game=game, lockout=delay)
            return "This link opens no seat here."
        self.guard.succeeded(game, peer)
        return seat

    async def _on_frame(self, session: WebSession, ws: WebSocket, text: str) -> None:
        try:
            data = frame(text)
        except PayloadError as exc:
            await ws.send(notice(f"Request refused: {exc}."))
            return
        if data["t"] == "hello":
            return  # a page that says hello twice: it has its seat already
        try:
            await session.request(ws, data)
        except Exception as exc:  # the boundary of one request from a page
            self.log.error(
                "web request failed",
                game=session.seat.game_id,
                power=session.power,
                request=data["t"],
                **describe(exc),
            )
            await ws.send(
                notice(
                    f"The server could not do that ({type(exc).__name__}); the game goes on.",
                )
            )

    async def session_for(self, seat: SeatRow) -> WebSession:
        old = self.sessions.get(seat.token)
        if old is not None and not old.done.is_set():
            if not old.ended or old.finished:
                return old
            with trio.move_on_after(5):  # it is leaving the game: let it go first
                await old.done.wait()
        runner = self.server.games.get(seat.game_id)
        if runner is not None:
            gmap = runner.map
        else:
            gmap = self.map_named(self.store.game(seat.game_id).settings["map"])
        session = WebSession(self, seat, runner, gmap)
        self.sessions[seat.token] = session
        self.spawn(self._run_session, session)
        return session

    async def _run_session(self, session: WebSession) -> None:
        try:
            await session.run()
        finally:
            session.done.set()
            if self.sessions.get(session.seat.token) is session:
                del self.sessions[session.seat.token]

    # -- history ---------------------------------------------------------------------------------

    def stored_results(self, game_id: int, phase: str, gmap: GameMap) -> list[tuple[Order, Any]]:
        out: list[tuple[Order, Any]] = []
        codec = codec_for(table_for_map(gmap))  # the game's map's names
        for _, _, text in self.store.results(game_id, phase):
            msg = codec.parse_text(text)
            if isinstance(msg, messages.Ord) and msg.order is not None:
                out.append((msg.order, msg.result))
        return out

    def history_view(self, session: Reader, index: Any) -> dict[str, Any]:
        """One stored phase: the position, the orders given and what became of them."""
        gid = session.seat.game_id
        states = self.store.states(gid)
        if not states:
            return {"t": "history", "count": 0}
        i = index if isinstance(index, int) and 0 <= index < len(states) else len(states) - 1
        # A view changes only when the game moves on (its count): a page asking for the same
        # phase again, however often, costs no new drawing.
        key = (gid, i, len(states))
        processed = i < len(states) - 1
        if key in self._history:
            self._history.move_to_end(key)
            return self._with_press(session, self._history[key])
        name, data = states[i]
        state = GameState.from_json(data, session.gmap)
        results = self.stored_results(gid, name, session.gmap) if processed else []
        view = {
            "t": "history",
            "index": i,
            "count": len(states),
            "phase": name,
            "title": phase_title(state),
            "svg": render_map(session.gmap, state, results=results, legend=False),
            "lines": result_lines(results, session.gmap),
            "centres": state.centre_counts(),
        }
        self._history[key] = view
        while len(self._history) > 64:
            self._history.popitem(last=False)
        return self._with_press(session, view)

    def _with_press(self, session: Reader, view: dict[str, Any]) -> dict[str, Any]:
        """The phase's press the seat may read (its own during the game, everyone's after)."""
        desk = session.desk
        if desk is None:
            return view
        items = [i for i in desk.items if i.phase == view["phase"]]
        shown = dict(view)
        shown["press"] = [desk.message_view(i, {}) for i in items]
        return shown


class _Gone:
    """The powers of a forming web game whose bots have ended (or never started), and a
    wake-up for whoever waits for the game to start (poked by the game's events too)."""

    def __init__(self) -> None:
        self.powers: set[str] = set()
        self.changes = Changes()

    def add(self, power: str) -> None:
        self.powers.add(power)
        self.changes.poke()


async def _cancel_after(event: trio.Event, scope: trio.CancelScope, grace: float) -> None:
    await event.wait()
    await trio.sleep(grace)
    scope.cancel()


def _number(spec: Mapping[str, Any], key: str) -> int | None:
    value = spec.get(key, DEFAULTS.get(key))
    if value in (None, "", 0):
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        raise SpecError(f"{key} must be a whole number") from None


def _seconds(spec: Mapping[str, Any], key: str) -> int | None:
    value = _number(spec, key)
    if value is not None and not 1 <= value <= 8191:
        raise SpecError(f"{key} must be between 1 and 8191 seconds (or empty for none)")
    return value


def _message(exc: Exception) -> str:
    return first_problem(exc) if isinstance(exc, ValidationError) else str(exc)


__all__ = [
    "DEFAULTS",
    "OPEN",
    "GameSpec",
    "Refused",
    "SpecError",
    "WebHub",
    "default_max_games",
    "read_spec",
]
