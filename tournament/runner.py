"""Tournaments: many games of bots on an in-process server, on this machine or on a Ray cluster.

A seat is a bundled bot by name (``dumbbot``), with its arguments (``'bordeaux --think
0.25'``, labelled by the whole text), ``NAME:K`` for K seats of it, or ``LABEL=COMMAND``
(``LABEL=COMMAND:K`` for K seats) for any program: a command with ``{port}`` (and usually
``{host}``) is a TCP bot, started when its game opens and given that game's own port; any
other command is a stdio bot speaking DAIDE text lines on stdin/stdout. ``{seed}``,
``{power}`` and ``{game}`` are filled in too. A command whose first word is a bundled bot's
name (``fast='bordeaux --think 0.5'``) is that bundled bot with those arguments. A label is
one word; a command is split as a shell splits it, and one that does not split (an unclosed
quote) is a :class:`LineupError` naming the seat.

A game that loses a player before it starts (a seat absent, hung or crashed while joining) is
incomplete: it is abandoned and played again with the same seeds and seats, up to
``replays`` times, and one that stays incomplete is played out, recorded as such, and left out
of the scores (:func:`tournament.scoring.scored`).

Bundled bots are forked by a bot host (``bots.host``) that has imported them once: each is
still a separate process on a link of its own (a Unix socket), playing within milliseconds.
External programs run in a working folder of their own with stdout and stderr in a per-seat log
under the tournament's folder.

A line-up of one seat per power of the map (seven on the standard map, three on Hundred,
seventeen on World) rotates over the powers; a pool of more (``pool=True``) is drawn from by
the balanced schedule of :mod:`tournament.schedule`. Results go into the server's database
under a tournament key derived from the seats and the settings: running the same tournament
again resumes it (finished games are kept, unfinished ones are played again from the start),
and a lock in the database lets one process at a time run it.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import shutil
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

from diplomat.bots.registry import BUNDLED, BotHost, HostError, HostProcess
from diplomat.engine.map import load_map
from diplomat.server.app import GameRunner, Server
from diplomat.server.logs import get_logger
from diplomat.server.settings import GameSettings
from diplomat.server.store import Store, centre_counts
from diplomat.tournament.distributed import run_on_ray
from diplomat.tournament.game import (
    HUNG_AFTER,
    JOIN_TIMEOUT,
    REPLAYS,
    Entry,
    GameSpec,
    GameTiming,
    LineupError,
    SeatSpec,
    package_seats_for,
    play_complete,
    split_command,
)
from diplomat.tournament.package_seats import PackageSeats, map_problem
from diplomat.tournament.records import BEAT_EVERY, Records
from diplomat.tournament.schedule import SEATS, balanced, rotation
from diplomat.tournament.scoring import GameResult, SeatResult

__all__ = [
    "Entry",
    "GameSpec",
    "LineupError",
    "Progress",
    "Tournament",
    "check_programs",
    "labels_of",
    "parse_lineup",
    "power_of_seat",
    "seat_seed",
    "tournament_results",
]


def parse_lineup(
    args: Sequence[str], *, pool: bool = False, count: int | None = None, powers: int = SEATS
) -> list[Entry]:
    """The seats from the command line's words: exactly ``count`` (default: one per power of
    the map, seven on the standard map; a field to tune against is one fewer), or, for a
    pool, at least ``powers``."""
    count = powers if count is None else count
    seats: list[Entry] = []
    for word in args:
        label, eq, command = word.partition("=")
        label = label.strip()
        if eq and label and not any(c.isspace() for c in label):
            command, k = _count(command.strip(), word)
            if not command:
                raise LineupError(f"{word!r}: write LABEL='command template'")
            if label in BUNDLED:
                raise LineupError(f"{label!r} is a bundled bot's name; pick another label")
            words = split_command(command, word)
            if words and words[0] in BUNDLED:
                entry = Entry(label, words[0], True, tuple(words[1:]))
            else:
                entry = Entry(label, command, False)
            if entry.tcp and entry.package:
                raise LineupError(
                    f"{word!r}: {{port}} (a DAIDE bot) and {{diplomacy_port}} (an agent of "
                    "the diplomacy package) in one command; a seat is one or the other"
                )
            seats.extend([entry] * k)
            continue
        seats.extend(_bundled(word))
    if pool and len(seats) < powers:
        raise LineupError(f"a pool needs at least {powers} seats; this one has {len(seats)}")
    if not pool and len(seats) != count:
        more = " (use --pool for more)" if count == powers else ""
        raise LineupError(f"a line-up needs exactly {count} seats; this one has {len(seats)}{more}")
    return seats


def _bundled(word: str) -> list[Entry]:
    """The seats of ``NAME``, ``NAME:K``, ``'NAME ARGS'`` or ``'NAME ARGS:K'`` (a bundled bot
    with arguments is labelled by its whole text: ``bordeaux --think 0.25``)."""
    command, k = _count(word.strip(), word)
    words = split_command(command, word)
    name = words[0].lower() if words else ""
    if name not in BUNDLED:
        if ":" in command and len(words) == 1:
            raise LineupError(f"{word!r}: the count after ':' must be a number")
        raise LineupError(
            f"unknown bot {name or word!r} in seat {word!r}: bundled bots are "
            f"{', '.join(BUNDLED)} (with arguments: 'bordeaux --think 0.25'); an external "
            "program is written LABEL='command'"
        )
    args = tuple(words[1:])
    label = " ".join((name, *args))
    return [Entry(label, name, True, args) for _ in range(k)]


def _count(command: str, word: str) -> tuple[str, int]:
    """``COMMAND:K`` -> (COMMAND, K); a command without a trailing ``:digits`` is one seat."""
    head, sep, tail = command.rpartition(":")
    if sep and tail.strip().isdigit() and head.strip():
        k = int(tail)
        if k < 1:
            raise LineupError(f"{word!r}: the count must be at least 1")
        return head.strip().strip("'\""), k
    return command, 1


def labels_of(seats: Sequence[Entry]) -> list[str]:
    return list(dict.fromkeys(e.label for e in seats))


def tournament_key(
    seats: Sequence[Entry], settings: GameSettings, games: int, seed: int, pool: bool = False
) -> str:
    described: dict[str, Any] = {
        "seats": [e.identity for e in seats],
        "settings": settings.model_dump(),
        "games": games,
        "seed": seed,
    }
    if pool:
        described["pool"] = True
    blob = json.dumps(described, sort_keys=True)
    return "t-" + hashlib.sha1(blob.encode()).hexdigest()[:12]


def power_of_seat(powers: Sequence[str], seat: int, game_index: int) -> str:
    return powers[rotation(game_index, len(powers))[seat]]


def seat_seed(secret: bytes, seed: int, game: int, seat: int) -> int:
    """The random seed of seat ``seat`` (1-based) in game ``game`` of the tournament with seed
    ``seed``: a keyed hash (HMAC-SHA256 with the database's secret), 63 bits. A bot knows its
    own seed only: without the secret no other seat's seed follows from it (as ``base + seat``
    did), and the same database always gives the same seeds."""
    message = f"seat-seed/{seed}/{game}/{seat}".encode()
    digest = hmac.new(secret, message, hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def check_programs(seats: Sequence[Entry]) -> list[str]:
    """One line per external seat whose program cannot be started, before any game."""
    problems = []
    for n, entry in enumerate(seats, 1):
        if entry.bundled:
            continue
        try:
            argv = entry.sample_argv()
        except LineupError as exc:
            problems.append(f"seat {n}: {exc}")
            continue
        if not argv:
            problems.append(f"seat {n}: empty command")
            continue
        why = _cannot_run(argv[0])
        if why:
            problems.append(f"seat {n}: cannot start {argv[0]!r}: {why}")
    return problems


def _cannot_run(program: str) -> str | None:
    if os.sep in program:
        path = Path(program)
        if not path.exists():
            return "no such file"
        if path.is_dir():
            return "is a folder"
        if not os.access(path, os.X_OK):
            return "not executable"
        return None
    return None if shutil.which(program) else "not found on PATH"


# -- the tournament ----------------------------------------------------------------------------


@dataclass
class Progress:
    total: int
    done: int = 0
    running: int = 0
    phases: int = 0


@dataclass
class Stats:
    """Where the time went (for ``bench/tournament.py``)."""

    wall: float = 0.0
    slots: int = 1  # games played at once (Ray: the cluster's CPUs)
    timings: list[GameTiming] = field(default_factory=list)
    nodes: Counter[str] = field(default_factory=Counter)  # games per Ray node
    replays: int = 0  # games played again for losing a player before the start (this run)


class Tournament:
    def __init__(
        self,
        store: Store,
        seats: Sequence[Entry],
        settings: GameSettings,
        *,
        games: int,
        parallel: int,
        seed: int = 0,
        pool: bool = False,
        folder: Path | None = None,
        on_progress: Callable[[Progress], None] | None = None,
        join_timeout: float = JOIN_TIMEOUT,
        exit_grace: float = 10.0,
        hung_after: int = HUNG_AFTER,
        ray: str | None = None,
        replays: int = REPLAYS,
    ) -> None:
        self.join_timeout = join_timeout  # seconds from a seat's program start to its joining
        self.replays = replays  # times a game that lost a player before its start is replayed
        self.exit_grace = exit_grace  # seconds a bot gets to exit after its game ends
        self.hung_after = hung_after
        self.store = store
        self.seats = list(seats)
        self.pool = pool or len(self.seats) != len(load_map(settings.map).powers)
        self.settings = settings
        self.games = games
        self.parallel = max(1, parallel)
        self.seed = seed
        self.key = tournament_key(seats, settings, games, seed, self.pool)
        default_folder = Path(store.path).resolve().parent / "tournaments" / self.key
        self.folder = folder if folder is not None else default_folder
        self.progress = Progress(games)
        self.on_progress = on_progress
        self.ray = ray  # a Ray address ("auto", "host:port"), "local", or None to run here
        self.log = get_logger(tournament=self.key)
        self.records = Records(store.path)
        self.stats = Stats()
        self.already_complete = False
        self._running: dict[int, GameRunner] = {}
        self._schedule: list[list[int]] | None = None
        self._secret: bytes | None = None

    # -- the schedule --------------------------------------------------------------------------

    def seating(self, index: int, powers: Sequence[str]) -> list[tuple[int, str]]:
        """(seat index, power) for the seats of game ``index``, one per power."""
        if not self.pool:
            return [(i, powers[p]) for i, p in enumerate(rotation(index, len(powers)))]
        if self._schedule is None:
            self._schedule = balanced(len(self.seats), self.games, self.seed, len(powers))
        return [(member, powers[p]) for p, member in enumerate(self._schedule[index])]

    def game_spec(self, index: int) -> GameSpec:
        powers = list(load_map(self.settings.map).powers)
        if self._secret is None:
            self._secret = self.records.secret()
        key = self._secret
        seats = tuple(
            SeatSpec(i + 1, self.seats[i], power, seat_seed(key, self.seed, index, i + 1))
            for i, power in sorted(self.seating(index, powers))
        )
        return GameSpec(
            self.key,
            index,
            self.settings.model_dump(),
            seats,
            self.join_timeout,
            self.exit_grace,
            self.hung_after,
            self.replays,
        )

    # -- which games remain --------------------------------------------------------------------

    def finished_indices(self) -> set[int]:
        done = set()
        for row in self.store.games(tournament=self.key):
            index = _index_of(row.name)
            if row.status == "finished" and index is not None:
                done.add(index)
            elif row.status in ("forming", "active"):
                # Interrupted: played again from the start, so its bots get a fair game.
                self.store.set_status(row.id, "abandoned")
        return done

    async def run(self) -> None:
        """Play every game not yet finished. Raises ``TournamentLocked`` if another process
        runs this tournament, :class:`LineupError` (before any game) for a bundled bot given
        arguments it does not take."""
        self.records.lock(self.key)
        # Started from this (the main) thread: the host dies with the thread that started it.
        process = HostProcess()
        host = BotHost(process)
        try:
            todo = [i for i in range(self.games) if i not in self.finished_indices()]
            self.already_complete = not todo
            self.progress.done = self.games - len(todo)
            if todo:
                await self.check_bundled(host)
                self.check_package_map()
            started = time.monotonic()
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._heartbeat)
                nursery.start_soon(self._report)
                if todo and self.ray is not None:
                    host.close()
                    await run_on_ray(self, todo)
                elif todo:
                    await self._run_here(host, todo)
                self._emit()
                nursery.cancel_scope.cancel()
            self.stats.wall += time.monotonic() - started
        finally:
            host.close()
            with trio.CancelScope(shield=True):
                await trio.to_thread.run_sync(process.close)
            self.records.unlock(self.key)
            with contextlib.suppress(OSError):
                self.folder.rmdir()  # nothing was logged

    async def _run_here(self, host: BotHost, todo: list[int]) -> None:
        server = Server(
            self.store, self.settings, port=0, open_games=False, seed=self.seed, resume=False
        )
        limiter = trio.Semaphore(self.parallel)
        self.stats.slots = self.parallel
        async with trio.open_nursery() as nursery:
            await nursery.start(server.run)
            package = await package_seats_for(nursery, server, self.seats)
            async with trio.open_nursery() as games:
                for index in todo:
                    await limiter.acquire()
                    games.start_soon(self._play_here, server, host, index, limiter, package)
            nursery.cancel_scope.cancel()

    async def check_bundled(self, host: BotHost) -> None:
        """Raise :class:`LineupError` for a bundled bot given arguments it does not take."""
        for n, entry in enumerate(self.seats, 1):
            if entry.bundled and entry.args:
                try:
                    await host.check(entry.command, list(entry.args))
                except HostError as exc:
                    raise LineupError(f"seat {n}: {exc}") from None

    def check_package_map(self) -> None:
        """Raise :class:`LineupError` for package agents on a map the package lacks."""
        why = map_problem(self.settings.map)
        if why is not None and any(e.package for e in self.seats):
            raise LineupError(why)

    async def _play_here(
        self,
        server: Server,
        host: BotHost,
        index: int,
        limiter: trio.Semaphore,
        package: PackageSeats | None,
    ) -> None:
        self.progress.running += 1
        spec = self.game_spec(index)
        runner: GameRunner | None = None

        def seen(r: GameRunner) -> None:  # (a game played again has a runner of its own)
            nonlocal runner
            if runner is not None:
                self._running.pop(runner.id, None)
            runner = r
            self._running[r.id] = r

        try:
            played = await play_complete(server, host, spec, self.folder, seen, package)
            self.stats.replays += played.replays
            if played.runner.status().finished:
                self.records.set_seats(played.runner.id, played.seats)
                self.stats.timings.append(played.timing)
        finally:
            limiter.release()
            self.progress.running -= 1
            if runner is not None:
                self._running.pop(runner.id, None)
                self.progress.phases += runner.status().processed
                if runner.status().finished:
                    self.progress.done += 1
            self._emit()

    async def _heartbeat(self) -> None:
        while True:
            await trio.sleep(BEAT_EVERY)
            self.records.beat(self.key)

    async def _report(self) -> None:
        while True:
            self._emit()
            await trio.sleep(0.5)

    def _emit(self) -> None:
        if self.on_progress is not None:
            live = sum(r.status().processed for r in self._running.values())
            snapshot = Progress(
                self.progress.total,
                self.progress.done,
                self.progress.running,
                self.progress.phases + live,
            )
            self.on_progress(snapshot)

    # -- results -------------------------------------------------------------------------------

    def results(self) -> list[GameResult]:
        return tournament_results(self.store, self.key, self.records)

    def close(self) -> None:
        self.records.close()


def _index_of(name: str) -> int | None:
    _, sep, tail = name.rpartition("#")
    return int(tail) if sep and tail.isdigit() else None


def tournament_results(store: Store, key: str, records: Records | None = None) -> list[GameResult]:
    """Every finished game of the tournament, from the database."""
    out = []
    for row in store.games(tournament=key):
        index = _index_of(row.name)
        if row.status != "finished" or row.result is None or index is None:
            continue
        counts = centre_counts(store.states(row.id)[-1][1])
        seats = records.seats(row.id) if records is not None else {}
        results = []
        for p in store.players(row.id):
            rec = seats.get(p.power)
            status = (
                rec.status
                if rec is not None
                else ("crashed" if p.status == "crashed" else "played")
            )
            results.append(
                SeatResult(
                    label=p.label or p.name,
                    power=p.power,
                    centres=counts.get(p.power, 0),
                    eliminated=p.eliminated,
                    crashed=status == "crashed",
                    hung=status == "hung",
                    absent=status == "absent",
                    stopped=rec.phase if rec is not None else None,
                    seat=rec.seat if rec is not None else None,
                    log=rec.log if rec is not None else None,
                    detail=rec.detail if rec is not None else None,
                )
            )
        winner = row.result["powers"][0] if row.result["kind"] == "solo" else None
        out.append(GameResult(row.id, index, tuple(results), winner, row.result.get("reason", "")))
    return sorted(out, key=lambda g: g.index)
