"""One game of a tournament: its seats, starting their bots (forked by the bot host, or external
programs in working folders of their own with per-seat logs, among them agents of the
``diplomacy`` package: :mod:`tournament.package_seats`), watching for crashed and hung bots,
and what is recorded of each seat. Shared by local runs (:mod:`tournament.runner`) and Ray
tasks (:mod:`tournament.distributed`).
"""

from __future__ import annotations

import contextlib
import math
import os
import shlex
import signal
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import trio

from diplomat.bots.registry import LIFELINE_ENV, BotHost, HostError
from diplomat.server.app import GameRunner, Server
from diplomat.server.changes import Changes
from diplomat.server.links import Link, binary_link, text_link
from diplomat.server.logs import get_logger
from diplomat.server.settings import GameSettings
from diplomat.server.status import MasterStatus
from diplomat.tournament.package_seats import SAMPLE_LOGIN, PackageLogin, PackageSeats
from diplomat.tournament.records import SeatRecord

JOIN_TIMEOUT = 30.0  # seconds for a bot to connect and accept the map, from its program's start
HUNG_AFTER = 3  # deadlines missed in a row before a bot counts as hung
REPLAYS = 2  # times a game that lost a player before its start is played again
OUTPUT_TAIL = 200  # characters of an absent seat's last output kept in its record

log = get_logger()


class LineupError(ValueError):
    """A line-up that cannot be played."""


@dataclass(frozen=True)
class Entry:
    """One seat of the line-up or pool."""

    label: str
    command: str  # a command template, or the bundled bot's name
    bundled: bool
    args: tuple[str, ...] = ()  # a bundled bot's extra arguments

    @property
    def tcp(self) -> bool:
        return not self.bundled and "{port}" in self.command

    @property
    def package(self) -> bool:
        """An agent of the ``diplomacy`` package: it connects to the tournament's port for
        the package's clients and joins its game there (:mod:`tournament.package_seats`)."""
        return not self.bundled and "{diplomacy_port}" in self.command

    def argv(
        self,
        *,
        host: str,
        port: int | None,
        seed: int,
        power: str,
        game: int,
        login: PackageLogin | None = None,
    ) -> list[str]:
        values: dict[str, object] = {
            "host": host,
            "port": port,
            "seed": seed,
            "power": power,
            "game": game,
        }
        if login is not None:
            values.update(login.values())
        try:
            text = self.command.format(**values)
        except (KeyError, IndexError, ValueError) as exc:
            raise LineupError(
                f"{self.label}: bad command template {self.command!r}: {exc}"
            ) from None
        return split_command(text, self.label)

    def sample_argv(self) -> list[str]:
        """The command filled in with sample values (to check it before any game)."""
        login = SAMPLE_LOGIN if self.package else None
        return self.argv(host="127.0.0.1", port=1, seed=0, power="AUS", game=0, login=login)

    @property
    def identity(self) -> Any:
        """What the tournament key knows of this seat."""
        if self.bundled:
            return (self.label, " ".join((self.command, *self.args)))
        return (self.label, self.command)


def split_command(text: str, seat: str) -> list[str]:
    """A seat's command in words, as a shell splits it; :class:`LineupError` naming the seat
    for one that does not split (an unclosed quote)."""
    try:
        return shlex.split(text)
    except ValueError as exc:
        raise LineupError(f"seat {seat!r}: the command {text!r} does not parse: {exc}") from None


async def package_seats_for(
    nursery: trio.Nursery, server: Server, entries: Sequence[Entry]
) -> PackageSeats | None:
    """The port for the package's clients, served in ``nursery`` beside ``server``, when a
    seat of ``entries`` is a package agent (None otherwise: no port is opened)."""
    if not any(e.package for e in entries):
        return None
    seats = PackageSeats(server)
    await nursery.start(seats.run)
    return seats


# -- one game ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class SeatSpec:
    seat: int  # 1-based place in the line-up or pool
    entry: Entry
    power: str
    seed: int


@dataclass(frozen=True)
class GameSpec:
    """Everything needed to play one game of a tournament (picklable: a Ray task gets it)."""

    key: str
    index: int
    settings: dict[str, Any]
    seats: tuple[SeatSpec, ...]
    join_timeout: float = JOIN_TIMEOUT
    exit_grace: float = 10.0
    hung_after: int = HUNG_AFTER
    replays: int = REPLAYS

    @property
    def name(self) -> str:
        return f"{self.key}#{self.index}"

    @property
    def folder(self) -> str:
        return f"game{self.index:04d}"


@dataclass(frozen=True)
class GameTiming:
    startup: float  # from creating the game to its first phase
    play: float  # from then to the game's end
    seat_latency: tuple[float, ...]  # per bundled seat: from asking for it to its NME


@dataclass
class _Seat:
    spec: SeatSpec
    log: Path | None
    status: str = "played"
    phase: str | None = None
    detail: str | None = None
    pid: int | None = None
    proc: trio.Process | None = None
    asked: float = 0.0
    joined: float | None = None
    gone: bool = False
    missed: int = 0
    first_missed: str | None = None
    lifeline: int | None = None  # our end of a TCP bot's lifeline (closed: the game is gone)

    def kill(self) -> None:
        if self.proc is not None:
            with contextlib.suppress(OSError):
                self.proc.kill()
        elif self.pid is not None and not self.gone:
            # A forked bot is the bot host's child, reaped by the kernel: once its link has
            # closed its pid may already belong to another process, so only while it is open.
            with contextlib.suppress(OSError):
                os.kill(self.pid, signal.SIGKILL)

    def record(self) -> SeatRecord:
        logged = self.log if self.log is not None and _nonempty(self.log) else None
        return SeatRecord(
            self.spec.power,
            self.spec.seat,
            self.spec.entry.label,
            self.status,
            self.phase,
            self.detail,
            str(logged) if logged else None,
        )


def _last_output(seat: _Seat) -> str:
    """The last line the seat's program wrote (its log's), to say why it never joined."""
    if seat.log is None:
        return "its output is not kept (no tournament folder)"
    try:
        with open(seat.log, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - 4096))
            tail = f.read().decode("utf-8", "replace")
    except OSError:
        tail = ""
    lines = [line.strip() for line in tail.splitlines() if line.strip()]
    if not lines:
        return "it wrote nothing"
    return f"its last output: {lines[-1][-OUTPUT_TAIL:]}"


def _nonempty(path: Path) -> bool:
    try:
        return path.stat().st_size > 0
    except OSError:
        return False


@dataclass
class PlayedGame:
    runner: GameRunner
    seats: list[SeatRecord]
    timing: GameTiming
    # It lost a player before it started (a seat absent, hung or crashed while joining):
    # abandoned when it is to be played again, else played out and left out of the scores.
    incomplete: bool = False
    replays: int = 0  # times it was played again before this game


async def play_complete(
    server: Server,
    host: BotHost,
    spec: GameSpec,
    folder: Path | None,
    on_runner: Callable[[GameRunner], None] | None = None,
    package: PackageSeats | None = None,
) -> PlayedGame:
    """Play the game; one that loses a player before it starts is abandoned and played again
    with the same seeds and seats, up to ``spec.replays`` times (the last try is played out,
    complete or not). ``package`` serves the package agents' seats, if there are any."""
    replays = 0
    while True:
        last = replays >= spec.replays
        play = GamePlay(server, host, spec, folder, package)
        played = await play.play(on_runner, abandon=not last)
        played.replays = replays
        if not played.incomplete or last:
            return played
        replays += 1
        log.warning(
            "game lost a player before it started: played again",
            tournament=spec.key,
            index=spec.index,
            replay=replays,
        )


class GamePlay:
    """Plays one game on ``server`` with bots from ``host``; logs and working folders under
    ``folder`` (None: no logs, external bots in the current folder)."""

    def __init__(
        self,
        server: Server,
        host: BotHost,
        spec: GameSpec,
        folder: Path | None,
        package: PackageSeats | None = None,
    ) -> None:
        self.server = server
        self.host = host
        self.spec = spec
        self.package = package
        self._logins: dict[str, PackageLogin] = {}  # a package agent's, by power token
        self.folder = folder / spec.folder if folder is not None else None
        self.seats = [_Seat(s, self._log_path(s)) for s in spec.seats]
        self.runner: GameRunner | None = None
        # The game's status before its last event, while a deadline ran: who owed orders
        # then and who had not given them all.
        self._before: MasterStatus | None = None
        self._changes = Changes()  # poked at every event of the game, and at a seat's end
        self.log = log.bind(tournament=spec.key, index=spec.index)

    def _log_path(self, s: SeatSpec) -> Path | None:
        if self.folder is None:
            return None
        return self.folder / f"seat{s.seat}-{s.power}.log"

    async def play(
        self, on_runner: Callable[[GameRunner], None] | None = None, abandon: bool = False
    ) -> PlayedGame:
        """Play the game to its end; with ``abandon``, end it before it starts if a player is
        missing then (it will be played again)."""
        spec = self.spec
        settings = GameSettings.model_validate(spec.settings)
        if self.folder is not None:
            self.folder.mkdir(parents=True, exist_ok=True)
        created = trio.current_time()
        runner = self.server.create_game(settings, name=spec.name, tournament=spec.key)
        self.runner = runner
        if on_runner is not None:
            on_runner(runner)
        started_at = created
        incomplete = False
        try:
            async with trio.open_nursery() as nursery:
                port: int | None = None
                if any(s.spec.entry.tcp for s in self.seats):
                    port = await nursery.start(self.server.listen_for_game, runner)
                runner.watch(self, self._look)
                self._open_package_seats(runner)
                await self._launch_bundled(nursery, runner)
                for seat in self.seats:
                    if not seat.spec.entry.bundled:
                        await self._launch(nursery, runner, seat, port)
                incomplete = await self._start_when_ready(runner, abandon)
                started_at = trio.current_time()
                await runner.done.wait()
        finally:
            for seat in self.seats:
                if seat.status != "played" or not runner.status().finished:
                    seat.kill()
                if seat.lifeline is not None:  # a TCP bot still trying to reconnect stops
                    os.close(seat.lifeline)
                    seat.lifeline = None
            if self._logins and self.package is not None:
                self.package.close_game(runner)
            self._tidy()
        ended = trio.current_time()
        latency = tuple(
            s.joined - s.asked for s in self.seats if s.spec.entry.bundled and s.joined is not None
        )
        timing = GameTiming(started_at - created, ended - started_at, latency)
        return PlayedGame(runner, [s.record() for s in self.seats], timing, incomplete)

    # -- starting the bots ---------------------------------------------------------------------

    async def _launch_bundled(self, nursery: trio.Nursery, runner: GameRunner) -> None:
        """Fork every bundled seat in one request to the bot host."""
        seats = [s for s in self.seats if s.spec.entry.bundled]
        if not seats:
            return
        asked = trio.current_time()
        for seat in seats:
            seat.asked = asked
        wanted = [
            (
                s.spec.entry.command,
                [*s.spec.entry.args, "--seed", str(s.spec.seed)],
                str(s.log) if s.log is not None else None,
            )
            for s in seats
        ]
        try:
            started = await self.host.start_many(wanted)
        except HostError as exc:
            for seat in seats:
                self._failed(seat, f"cannot start {seat.spec.entry.command}: {exc}")
            return
        for seat, (stream, pid) in zip(seats, started, strict=True):
            seat.pid = pid
            link = binary_link(stream, "host", f"pid {pid}", runner.table)
            nursery.start_soon(self._serve, runner, seat, link)

    def _open_package_seats(self, runner: GameRunner) -> None:
        """Have the package's service adopt the game for its package agents' seats."""
        seats = [
            (s.spec.seat, s.spec.power, s.spec.entry.label)
            for s in self.seats
            if s.spec.entry.package
        ]
        if seats and self.package is not None:
            self._logins = self.package.open_game(runner, seats)

    async def _launch(
        self, nursery: trio.Nursery, runner: GameRunner, seat: _Seat, port: int | None
    ) -> None:
        entry, power = seat.spec.entry, seat.spec.power
        seat.asked = trio.current_time()
        if entry.package and power not in self._logins:
            self._failed(seat, "no port for the diplomacy package's clients in this tournament")
            return
        argv = entry.argv(
            host=self.server.host,
            port=port,
            seed=seat.spec.seed,
            power=power,
            game=runner.id,
            login=self._logins.get(power),
        )
        cwd: Path | None = None
        if self.folder is not None:
            cwd = self.folder / f"seat{seat.spec.seat}-{power}"
            cwd.mkdir(parents=True, exist_ok=True)
        logfile: BinaryIO | int = subprocess.DEVNULL
        if seat.log is not None:
            logfile = open(seat.log, "wb")  # noqa: SIM115 (closed below)
        try:
            if entry.tcp:
                runner.reserved.append((power, entry.label))
            if entry.tcp or entry.package:
                await self._start_connecting(nursery, runner, seat, argv, cwd, logfile)
            else:
                seat.proc = await trio.lowlevel.open_process(
                    argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=logfile, cwd=cwd
                )
                assert seat.proc.stdin is not None and seat.proc.stdout is not None
                pipes = trio.StapledStream(seat.proc.stdin, seat.proc.stdout)
                link = text_link(pipes, "pipe", f"pid {seat.proc.pid}", runner.table)
                nursery.start_soon(self._serve, runner, seat, link)
                nursery.start_soon(self._watch_process, runner, seat)
        except OSError as exc:
            if entry.tcp:
                runner.reserved.remove((power, entry.label))
            self._failed(seat, f"cannot start {argv[0]!r}: {exc.strerror or exc}")
        finally:
            if not isinstance(logfile, int):
                logfile.close()

    async def _start_connecting(
        self,
        nursery: trio.Nursery,
        runner: GameRunner,
        seat: _Seat,
        argv: list[str],
        cwd: Path | None,
        logfile: BinaryIO | int,
    ) -> None:
        """A program that connects by itself: a TCP bot to the game's own port, a package
        agent to the tournament's port for the package's clients (which seats it in the game
        as an in-process DAIDE player). Either inherits a lifeline."""
        theirs, seat.lifeline = os.pipe()  # (neither end inherited by other children)
        try:
            seat.proc = await trio.lowlevel.open_process(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=logfile,
                stderr=logfile,
                cwd=cwd,
                env={**os.environ, LIFELINE_ENV: str(theirs)},
                pass_fds=(theirs,),
            )
        finally:
            os.close(theirs)
        nursery.start_soon(self._watch_process, runner, seat)
        await self._wait_joined(runner, seat)

    def _failed(self, seat: _Seat, why: str) -> None:
        self.log.warning(f"seat {seat.spec.seat}: {why}")
        seat.status, seat.phase, seat.detail, seat.gone = "crashed", "joining", why, True
        self._changes.poke()

    async def _serve(self, runner: GameRunner, seat: _Seat, link: Link) -> None:
        with trio.CancelScope() as scope:
            async with trio.open_nursery() as n:
                n.start_soon(_cancel_when, runner.done, scope, self.spec.exit_grace)
                await self.server.serve_link(link, (runner, seat.spec.power, seat.spec.entry.label))
                n.cancel_scope.cancel()
        if not seat.spec.entry.bundled:
            return  # its process watcher records how it ended
        if scope.cancelled_caught:
            seat.kill()  # still connected after its grace: alive, so its pid is its own
        self._gone(runner, seat, None)

    async def _watch_process(self, runner: GameRunner, seat: _Seat) -> None:
        proc = seat.proc
        assert proc is not None
        try:
            with trio.CancelScope() as scope:
                async with trio.open_nursery() as n:
                    n.start_soon(_cancel_when, runner.done, scope, self.spec.exit_grace)
                    await proc.wait()
                    n.cancel_scope.cancel()
        finally:
            if proc.returncode is None:
                proc.kill()
                with trio.CancelScope(shield=True):
                    await proc.wait()
        if seat.spec.entry.package and self.package is not None:
            # Its client's connection is not the game's: its in-process seat leaves for it.
            self.package.release(runner, seat.spec.power)
        self._gone(runner, seat, proc.returncode)

    def _gone(self, runner: GameRunner, seat: _Seat, code: int | None) -> None:
        seat.gone = True
        self._changes.poke()
        status = runner.status()
        if status.finished or seat.status != "played":
            return
        seat.status = "crashed"
        seat.phase = status.phase if status.started else "joining"
        seat.detail = f"exit status {code}" if code is not None else "closed its connection"
        self.log.warning(f"seat {seat.spec.seat} ({seat.spec.entry.label}) crashed", game=runner.id)

    async def _wait_joined(self, runner: GameRunner, seat: _Seat) -> None:
        until = trio.current_time() + self.spec.join_timeout
        while not runner.has_joiner_for(seat.spec.power) and trio.current_time() < until:
            if runner.status().started or runner.done.is_set() or seat.gone:
                return
            await self._changes.wait(until)

    async def _start_when_ready(self, runner: GameRunner, abandon: bool) -> bool:
        """Start once every seat has accepted the map, or is gone, or has had the join timeout
        since its program started; a seat missing then is recorded (``absent``: never joined,
        with its program's last output; ``hung``: joined and did not accept the map; a program
        that ended is ``crashed``). Then, with ``abandon``, the game is abandoned (to be
        played again), else it starts without them (their powers in civil disorder).
        Returns whether a player was missing (the game is incomplete)."""
        timeout = self.spec.join_timeout
        while not runner.status().started and not runner.done.is_set():
            ready = runner.joined()
            waiting = [s for s in self.seats if s.spec.power not in ready]
            now = trio.current_time()
            if all(s.gone or now > s.asked + timeout for s in waiting):
                self._missing(runner, waiting)
                if waiting and abandon:
                    runner.abandon()
                    await runner.done.wait()
                    return True
                runner.start_without([(s.spec.power, s.spec.entry.label) for s in waiting])
                # The game starts in its own task; wait until it has (or has ended).
                while not runner.status().started and not runner.done.is_set():
                    await self._changes.wait()
                return bool(waiting)
            # Woken by the game's events (a join, a map accepted), a bot's end, or the first
            # seat's join timeout.
            due = min((s.asked + timeout for s in waiting if not s.gone), default=math.inf)
            await self._changes.wait(due)
        return False

    def _missing(self, runner: GameRunner, waiting: list[_Seat]) -> None:
        """Record the seats missing at the start (see :meth:`_start_when_ready`)."""
        joined = runner.status().joined
        timeout = self.spec.join_timeout
        for s in waiting:
            if s.gone:
                continue  # recorded as crashed, with its exit status
            if s.spec.power in joined:
                s.status, s.phase = "hung", "joining"
                s.detail = f"joined but did not accept the map within {timeout:g} s of its start"
            else:
                s.status, s.phase = "absent", "joining"
                s.detail = f"never joined within {timeout:g} s of its start; {_last_output(s)}"
            s.kill()
        if waiting:
            self.log.warning(
                "players missing at the start",
                seats={s.spec.power: s.status for s in waiting},
            )

    # -- watching the game (in the game's task, after every event) ---------------------------

    def _look(self, status: MasterStatus, now: float) -> None:
        self._changes.poke()
        if not status.started:
            for seat in self.seats:
                if seat.joined is None and seat.spec.power in status.joined:
                    seat.joined = now
            return
        before = self._before
        if before is not None and status.processed > before.processed:
            self._count_missed(before, now)
        self._before = None if status.finished or status.deadline is None else status

    def _count_missed(self, before: MasterStatus, now: float) -> None:
        """The phase ``before`` was in has been processed: a seat whose power owed orders and
        had not given them all when its deadline came missed them; one that gave them is
        clear again."""
        at_deadline = before.deadline is not None and now >= before.deadline - 0.001
        owed, missing = before.owed, before.missing
        for seat in self.seats:
            power = seat.spec.power
            if power not in owed or seat.status != "played":
                continue
            if at_deadline and power in missing:
                seat.missed += 1
                seat.first_missed = seat.first_missed or before.phase
                if seat.missed >= self.spec.hung_after:
                    self._hung(seat)
            else:
                seat.missed, seat.first_missed = 0, None

    def _hung(self, seat: _Seat) -> None:
        seat.status, seat.phase = "hung", seat.first_missed
        seat.detail = f"missed its orders at {seat.missed} deadlines in a row"
        self.log.warning(
            f"seat {seat.spec.seat} ({seat.spec.entry.label}) hung at {seat.phase}: "
            "its power plays on in civil disorder"
        )
        seat.kill()  # its link closes: the server puts the power into civil disorder

    def _tidy(self) -> None:
        """Remove empty logs and working folders."""
        if self.folder is None:
            return
        for seat in self.seats:
            if seat.log is not None and not _nonempty(seat.log):
                with contextlib.suppress(OSError):
                    seat.log.unlink()
            cwd = self.folder / f"seat{seat.spec.seat}-{seat.spec.power}"
            with contextlib.suppress(OSError):
                cwd.rmdir()  # only if empty
        with contextlib.suppress(OSError):
            self.folder.rmdir()


async def _cancel_when(event: trio.Event, scope: trio.CancelScope, grace: float) -> None:
    """A bot gets ``grace`` seconds after its game ends to exit by itself."""
    await event.wait()
    await trio.sleep(grace)
    scope.cancel()
