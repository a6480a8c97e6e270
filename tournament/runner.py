"""Tournaments: many games of a line-up of subprocess bots on an in-process server.

A line-up is seven seats. A seat is a bundled bot by name (``dumbbot``), ``NAME:K`` for K seats
of it, or ``LABEL=COMMAND`` for any program: a command with ``{port}`` (and usually
``{host}``) is a TCP bot, started when its game opens and given that game's own port; any other
command is a stdio bot speaking DAIDE text lines on stdin/stdout. ``{seed}``, ``{power}`` and
``{game}`` are filled in too.

Seats rotate: in game ``g`` seat ``i`` plays power ``(i + g) mod 7``, so over a multiple of 7
games every bot plays every power equally often. Results go into the server's database under a
tournament key derived from the line-up and the settings: running the same command again
resumes (finished games are kept, unfinished ones are played again from the start).
"""

from __future__ import annotations

import hashlib
import json
import shlex
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio

from bots.registry import BUNDLED, bundled_command
from server.app import GameRunner, Server
from server.logs import get_logger
from server.settings import GameSettings
from server.store import Store
from tournament.scoring import GameResult, SeatResult

SEATS = 7
JOIN_TIMEOUT = 30.0  # seconds for a bot to connect and send NME


class LineupError(ValueError):
    """A line-up that cannot be played."""


@dataclass(frozen=True)
class Entry:
    """One seat of the line-up."""

    label: str
    command: str  # a template
    bundled: bool

    @property
    def tcp(self) -> bool:
        return "{port}" in self.command

    def argv(self, *, host: str, port: int | None, seed: int, power: str, game: int) -> list[str]:
        values = {"host": host, "port": port, "seed": seed, "power": power, "game": game}
        try:
            text = self.command.format(**values)
        except (KeyError, IndexError, ValueError) as exc:
            raise LineupError(
                f"{self.label}: bad command template {self.command!r}: {exc}"
            ) from None
        return shlex.split(text)


def parse_lineup(args: Sequence[str], count: int = SEATS) -> list[Entry]:
    """``count`` seats (a line-up's seven, or a field of six) from the command line's words."""
    seats: list[Entry] = []
    for word in args:
        if "=" in word:
            label, _, command = word.partition("=")
            label = label.strip()
            if not label or not command.strip():
                raise LineupError(f"{word!r}: write LABEL='command template'")
            if label in BUNDLED:
                raise LineupError(f"{label!r} is a bundled bot's name; pick another label")
            seats.append(Entry(label, command.strip(), False))
            continue
        name, _, times = word.partition(":")
        name = name.strip().lower()
        if name not in BUNDLED:
            raise LineupError(
                f"unknown bot {name!r}: bundled bots are {', '.join(BUNDLED)}; "
                "an external program is written LABEL='command'"
            )
        try:
            k = int(times) if times else 1
        except ValueError:
            raise LineupError(f"{word!r}: the count after ':' must be a number") from None
        if k < 1:
            raise LineupError(f"{word!r}: the count must be at least 1")
        seats.extend(Entry(name, bundled_command(name), True) for _ in range(k))
    if len(seats) != count:
        raise LineupError(f"a line-up needs exactly {count} seats; this one has {len(seats)}")
    return seats


def labels_of(seats: Sequence[Entry]) -> list[str]:
    return list(dict.fromkeys(e.label for e in seats))


def tournament_key(seats: Sequence[Entry], settings: GameSettings, games: int, seed: int) -> str:
    blob = json.dumps(
        {
            "seats": [(e.label, e.command if not e.bundled else e.label) for e in seats],
            "settings": settings.model_dump(),
            "games": games,
            "seed": seed,
        },
        sort_keys=True,
    )
    return "t-" + hashlib.sha1(blob.encode()).hexdigest()[:12]


def power_of_seat(powers: Sequence[str], seat: int, game_index: int) -> str:
    return powers[(seat + game_index) % len(powers)]


@dataclass
class Progress:
    total: int
    done: int = 0
    running: int = 0
    phases: int = 0


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
        bot_logs: Path | None = None,
        on_progress: Callable[[Progress], None] | None = None,
        join_timeout: float = JOIN_TIMEOUT,
        exit_grace: float = 10.0,
    ) -> None:
        self.join_timeout = join_timeout
        self.exit_grace = exit_grace  # seconds a bot gets to exit after its game ends
        self.store = store
        self.seats = list(seats)
        self.settings = settings
        self.games = games
        self.parallel = max(1, parallel)
        self.seed = seed
        self.bot_logs = bot_logs
        self.key = tournament_key(seats, settings, games, seed)
        self.progress = Progress(games)
        self.on_progress = on_progress
        self.log = get_logger(tournament=self.key)
        self._server: Server | None = None
        self._running: dict[int, GameRunner] = {}
        self._gone: dict[int, set[str]] = {}  # game -> powers whose bot has exited

    # -- which games remain ------------------------------------------------------------------

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
        todo = [i for i in range(self.games) if i not in self.finished_indices()]
        self.progress.done = self.games - len(todo)
        server = Server(
            self.store, self.settings, port=0, open_games=False, seed=self.seed, resume=False
        )
        self._server = server
        limiter = trio.Semaphore(self.parallel)
        async with trio.open_nursery() as nursery:
            await nursery.start(server.run)
            nursery.start_soon(self._report)
            async with trio.open_nursery() as games:
                for index in todo:
                    await limiter.acquire()
                    games.start_soon(self._play_guarded, index, limiter)
            self._emit()
            nursery.cancel_scope.cancel()

    async def _play_guarded(self, index: int, limiter: trio.Semaphore) -> None:
        try:
            await self.play(index)
        finally:
            limiter.release()

    async def play(self, index: int) -> None:
        """Play game ``index`` of the tournament to its end."""
        server = self._server
        assert server is not None
        runner = server.create_game(self.settings, name=f"{self.key}#{index}", tournament=self.key)
        self._running[runner.id] = runner
        self.progress.running += 1
        powers = list(runner.master.map.powers)
        seed = self.seed * 1000003 + index
        try:
            async with trio.open_nursery() as nursery:
                port: int | None = None
                labels = {}
                self._gone[runner.id] = set()
                if any(e.tcp for e in self.seats):
                    port = await nursery.start(server.listen_for_game, runner)
                for i, entry in enumerate(self.seats):
                    power = power_of_seat(powers, i, index)
                    labels[power] = entry.label
                    argv = entry.argv(
                        host=server.host, port=port, seed=seed + i, power=power, game=runner.id
                    )
                    if entry.tcp:
                        runner.reserved.append((power, entry.label))
                        nursery.start_soon(self._run_tcp_bot, runner, argv, power, entry.label)
                        await self._wait_joined(runner, power)
                    else:
                        nursery.start_soon(self._run_pipe_bot, runner, argv, power, entry.label)
                await self._start_without_absentees(runner, labels)
                await runner.done.wait()
        finally:
            self._running.pop(runner.id, None)
            self.progress.running -= 1
            self.progress.phases += len(runner.master.history)
            if runner.master.finished:
                self.progress.done += 1
            self._emit()

    async def _start_without_absentees(self, runner: GameRunner, labels: dict[str, str]) -> None:
        """A bot that dies before it joins, or never joins, must not stall its game: once
        every other seat is ready, or the join timeout has passed, the game starts with the
        missing powers in civil disorder."""
        master = runner.master
        give_up = trio.current_time() + self.join_timeout
        while not master.started and not runner.done.is_set():
            ready = runner.joined()
            gone = self._gone[runner.id]
            missing = set(labels) - ready
            if (gone and missing <= gone) or trio.current_time() > give_up:
                self.log.warning("starting without", game=runner.id, powers=sorted(missing))
                runner.start_without([(p, labels[p]) for p in sorted(missing)])
                return
            await trio.sleep(0.05)

    async def _wait_joined(self, runner: GameRunner, power: str) -> None:
        with trio.move_on_after(self.join_timeout):
            while not runner.has_joiner_for(power):
                if runner.master.started or runner.done.is_set():
                    return
                await trio.sleep(0.02)
            return
        self.log.warning("bot did not join", game=runner.id, power=power)

    def _stderr(self, runner: GameRunner, power: str) -> Any:
        if self.bot_logs is None:
            return subprocess.DEVNULL
        self.bot_logs.mkdir(parents=True, exist_ok=True)
        return open(self.bot_logs / f"game{runner.id}-{power}.log", "ab")

    async def _run_pipe_bot(
        self, runner: GameRunner, argv: list[str], power: str, label: str
    ) -> None:
        server = self._server
        assert server is not None
        stderr = self._stderr(runner, power)
        code: int | None = None
        try:
            with trio.CancelScope() as scope:
                async with trio.open_nursery() as n:
                    n.start_soon(_cancel_when, runner.done, scope, self.exit_grace)
                    code = await server.run_pipe_bot(argv, (runner, power, label), stderr=stderr)
                    n.cancel_scope.cancel()
        except OSError as exc:
            self.log.warning("bot failed to start", argv=argv, error=str(exc))
            code = -1
        finally:
            if stderr is not subprocess.DEVNULL:
                stderr.close()
        self._bot_exited(runner, power, code)

    async def _run_tcp_bot(
        self, runner: GameRunner, argv: list[str], power: str, label: str
    ) -> None:
        stderr = self._stderr(runner, power)
        try:
            proc = await trio.lowlevel.open_process(
                argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr
            )
        except OSError as exc:
            self.log.warning("bot failed to start", argv=argv, error=str(exc))
            self._bot_exited(runner, power, -1)
            return
        try:
            with trio.CancelScope() as scope:
                async with trio.open_nursery() as n:
                    n.start_soon(_cancel_when, runner.done, scope, self.exit_grace)
                    await proc.wait()
                    n.cancel_scope.cancel()
        finally:
            if proc.returncode is None:
                proc.kill()
                with trio.CancelScope(shield=True):
                    await proc.wait()
            if stderr is not subprocess.DEVNULL:
                stderr.close()
        self._bot_exited(runner, power, proc.returncode)

    def _bot_exited(self, runner: GameRunner, power: str, code: int | None) -> None:
        self._gone.setdefault(runner.id, set()).add(power)
        if not runner.master.finished:
            self.log.warning("bot exited during its game", game=runner.id, power=power, code=code)
            if runner.master.started:
                self.store.set_player_status(runner.id, power, "crashed")

    async def _report(self) -> None:
        while True:
            self._emit()
            await trio.sleep(0.5)

    def _emit(self) -> None:
        if self.on_progress is not None:
            live = sum(len(r.master.history) for r in self._running.values())
            snapshot = Progress(
                self.progress.total,
                self.progress.done,
                self.progress.running,
                self.progress.phases + live,
            )
            self.on_progress(snapshot)

    # -- results -----------------------------------------------------------------------------

    def results(self) -> list[GameResult]:
        return tournament_results(self.store, self.key)


async def _cancel_when(event: trio.Event, scope: trio.CancelScope, grace: float) -> None:
    """A bot gets ``grace`` seconds after its game ends to exit by itself."""
    await event.wait()
    await trio.sleep(grace)
    scope.cancel()


def _index_of(name: str) -> int | None:
    _, sep, tail = name.rpartition("#")
    return int(tail) if sep and tail.isdigit() else None


def tournament_results(store: Store, key: str) -> list[GameResult]:
    """Every finished game of the tournament, from the database."""
    out = []
    for row in store.games(tournament=key):
        index = _index_of(row.name)
        if row.status != "finished" or row.result is None or index is None:
            continue
        final = store.states(row.id)[-1][1]
        counts = {p: len(cs) for p, cs in final["centres"].items()}
        seats = tuple(
            SeatResult(
                label=p.label or p.name,
                power=p.power,
                centres=counts.get(p.power, 0),
                eliminated=p.eliminated,
                crashed=p.status == "crashed",
            )
            for p in store.players(row.id)
        )
        winner = row.result["powers"][0] if row.result["kind"] == "solo" else None
        out.append(GameResult(row.id, index, seats, winner, row.result.get("reason", "")))
    return sorted(out, key=lambda g: g.index)
