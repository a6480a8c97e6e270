"""Tuning a bot's parameters against a fixed field by stochastic hill climbing.

A *candidate* is one setting of the parameters being tuned. It is scored by a tournament: the
bot, started with ``--param NAME=VALUE`` for each parameter, takes one seat against the field's
six, seats rotate over the powers, and its score is the mean Sum-of-Squares share of its seat.
Every candidate plays the same games with the same seeds (the tournament seed is common), so
two candidates differ by their parameters, not by luck, and their difference is measured game
by game (a paired comparison, whose interval is much narrower than either score's).

The climb: from the start point (the bot's defaults, or the middle of the ranges), each step
moves every parameter by a normal step of ``step`` times its range, clipped to the range (integer
parameters stay integers), and keeps the move when it scores better. After ``iterations``
steps, a restart begins again from a random point of the ranges; the best candidate over all
restarts is reported with its interval and its gain over the start point.

With ``neighbours`` the climb is the founding study's instead (a tournament of Colonel Blotto
strategies): each step scores every neighbour at Manhattan distance 1 (one parameter moved by
``step`` times its range, up or down; an integer one by at least 1) and moves to the best of
them if it beats the current point, stopping when none does. A Gaussian step moves every
parameter at once, so with a few noisy candidates it rarely tells which change helped; the
neighbours cost two candidates per parameter per step, but each difference is one
parameter's.

The candidate that wins is chosen on the games it was scored on, so its score there is
biased upwards (the best of many noisy draws). :meth:`Tuner.confirm` plays it and the start
point again on fresh games (another seed, and a fresh field) and measures the gain there.

Candidates are tournaments in the database like any other, keyed by their command, so a
repeated candidate is not played again and an interrupted run resumes where it stopped.
"""

from __future__ import annotations

import math
import random
import shlex
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field

from diplomat.bots.registry import BUNDLED
from diplomat.tournament.game import split_command
from diplomat.tournament.runner import Entry, LineupError, labels_of
from diplomat.tournament.scoring import Estimate, GameResult, sum_of_squares

TUNED = "tuned"  # the line-up label of the bot being tuned


class TuneError(ValueError):
    """A tuning request that cannot be run (bad range, bad line-up)."""


@dataclass(frozen=True)
class ParamRange:
    name: str
    low: float
    high: float
    integer: bool  # both bounds written as integers: the parameter takes whole values

    @classmethod
    def parse(cls, text: str) -> ParamRange:
        """``NAME=LOW..HIGH`` (``aggression=0..1``, ``depth=1..4``)."""
        name, sep, span = text.partition("=")
        low_text, dots, high_text = span.partition("..")
        name = name.strip()
        if not sep or not dots or not name:
            raise TuneError(f"{text!r}: write NAME=LOW..HIGH, e.g. aggression=0..1")
        try:
            low, high = float(low_text), float(high_text)
        except ValueError:
            raise TuneError(f"{text!r}: LOW and HIGH must be numbers") from None
        if not (math.isfinite(low) and math.isfinite(high)) or low >= high:
            raise TuneError(f"{text!r}: LOW must be below HIGH")
        integer = _is_int(low_text) and _is_int(high_text)
        return cls(name, low, high, integer)

    def clip(self, value: float) -> float:
        value = min(self.high, max(self.low, value))
        return float(round(value)) if self.integer else value

    def middle(self) -> float:
        return self.clip((self.low + self.high) / 2)

    def random(self, rng: random.Random) -> float:
        return self.clip(rng.uniform(self.low, self.high))

    def text(self, value: float) -> str:
        return str(int(value)) if self.integer else f"{value:.4g}"


def _is_int(text: str) -> bool:
    try:
        int(text.strip())
    except ValueError:
        return False
    return True


Point = tuple[float, ...]


@dataclass
class Candidate:
    values: Point
    command: str
    scores: dict[int, float]  # game index -> the tuned seat's Sum-of-Squares share

    @property
    def estimate(self) -> Estimate:
        return Estimate.of([self.scores[i] for i in sorted(self.scores)])


@dataclass
class TuneReport:
    params: tuple[ParamRange, ...]
    start: Candidate
    best: Candidate
    tried: list[Candidate] = field(default_factory=list)

    def setting(self, candidate: Candidate) -> dict[str, str]:
        return {p.name: p.text(v) for p, v in zip(self.params, candidate.values, strict=True)}

    def gain(self) -> Estimate:
        """The best candidate's score minus the start point's, paired game by game."""
        common = sorted(set(self.best.scores) & set(self.start.scores))
        return Estimate.of([self.best.scores[i] - self.start.scores[i] for i in common])


# Plays a line-up (seven entries) for ``games`` games with seed ``seed`` and returns the
# finished games. The CLI passes a function that runs a Tournament (locally or on Ray).
PlayLineup = Callable[[Sequence[Entry], int], Awaitable[list[GameResult]]]


@dataclass
class Tuner:
    bot: str  # the bot being tuned: a bundled bot's name, or a command template (pipe or TCP)
    params: tuple[ParamRange, ...]
    field_seats: tuple[Entry, ...]  # the six opponents
    play: PlayLineup
    games: int
    iterations: int = 10
    restarts: int = 1
    step: float = 0.25  # a step's standard deviation, as a share of each range
    seed: int = 0
    start: Mapping[str, float] | None = None  # start point; default: the middle of each range
    on_candidate: Callable[[Candidate, Candidate], None] | None = None  # (tried, best so far)
    neighbours: bool = False  # Manhattan-distance-1 steps instead of Gaussian ones
    _cache: dict[Point, Candidate] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if len(self.field_seats) != 6:
            raise TuneError(f"the field needs 6 seats; it has {len(self.field_seats)}")
        if TUNED in labels_of(self.field_seats):
            raise TuneError(f"{TUNED!r} is the tuned bot's label; name the field's bots otherwise")
        if not self.params:
            raise TuneError("name at least one --param NAME=LOW..HIGH")
        names = [p.name for p in self.params]
        if len(set(names)) != len(names):
            raise TuneError("a parameter is named twice")
        try:
            split_command(self.bot, self.bot)
        except LineupError as exc:
            raise TuneError(str(exc)) from None
        if self.games < 1 or self.iterations < 0 or self.restarts < 1 or self.step <= 0:
            raise TuneError("games and restarts must be at least 1, iterations at least 0")

    def entry_for(self, values: Point) -> Entry:
        """The tuned bot's seat: a bundled bot (``bordeaux``, or with fixed arguments
        ``bordeaux --nodes 800``) is forked by the bot host with the parameters as extra
        arguments; any other program gets them on its command line."""
        args = [
            a
            for p, v in zip(self.params, values, strict=True)
            for a in ("--param", f"{p.name}={p.text(v)}")
        ]
        words = split_command(self.bot, self.bot)
        if words and words[0] in BUNDLED:
            return Entry(TUNED, words[0], True, (*words[1:], *args))
        return Entry(TUNED, " ".join([self.bot, *map(shlex.quote, args)]), False)

    async def evaluate(
        self, values: Point, field_seats: Sequence[Entry] | None = None, seed: int | None = None
    ) -> Candidate:
        """The candidate at ``values``, scored against the field (default: the tuning one)
        with the seed (default: the tuning one); the tuning games are played once."""
        values = tuple(p.clip(v) for p, v in zip(self.params, values, strict=True))
        tuning = field_seats is None and seed is None
        cached = self._cache.get(values)
        if tuning and cached is not None:
            return cached
        entry = self.entry_for(values)
        command = " ".join((entry.command, *entry.args))
        lineup = [entry, *(self.field_seats if field_seats is None else field_seats)]
        try:
            results = await self.play(lineup, self.seed if seed is None else seed)
        except LineupError as exc:
            raise TuneError(str(exc)) from None
        scores = {}
        for game in results:
            shares = sum_of_squares(game)
            seat = next(s for s in game.seats if s.label == TUNED)
            scores[game.index] = shares[seat.power]
        candidate = Candidate(values, command, scores)
        if tuning:
            self._cache[values] = candidate
        return candidate

    def _start_point(self) -> Point:
        given = dict(self.start or {})
        unknown = set(given) - {p.name for p in self.params}
        if unknown:
            raise TuneError(f"start values for parameters not tuned: {', '.join(sorted(unknown))}")
        return tuple(p.clip(given[p.name]) if p.name in given else p.middle() for p in self.params)

    def neighbours_of(self, values: Point) -> list[Point]:
        """The points at Manhattan distance 1: one parameter moved by ``step`` times its range
        (an integer one by at least 1), down then up; those the range clips away are left
        out."""
        out: list[Point] = []
        for i, p in enumerate(self.params):
            delta = self.step * (p.high - p.low)
            if p.integer:
                delta = max(1.0, float(round(delta)))
            for sign in (-1.0, 1.0):
                moved = p.clip(round(values[i] + sign * delta, 9))  # 0.2 + 0.2 is 0.4
                if moved != values[i]:
                    out.append((*values[:i], moved, *values[i + 1 :]))
        return out

    def _neighbour(self, values: Point, rng: random.Random) -> Point:
        while True:
            moved = tuple(
                p.clip(v + rng.gauss(0.0, self.step * (p.high - p.low)))
                for p, v in zip(self.params, values, strict=True)
            )
            if moved != values:
                return moved

    async def run(self) -> TuneReport:
        rng = random.Random(self.seed)
        start = await self.evaluate(self._start_point())
        report = TuneReport(self.params, start, start, [start])
        self._tell(start, report)
        for restart in range(self.restarts):
            point = start.values if restart == 0 else tuple(p.random(rng) for p in self.params)
            current = await self.evaluate(point)
            if current not in report.tried:
                report.tried.append(current)
                report.best = _better(current, report.best)
                self._tell(current, report)
            if self.neighbours:
                current = await self._climb_neighbours(current, report)
                continue
            for _ in range(self.iterations):
                candidate = await self.evaluate(self._neighbour(current.values, rng))
                current = _better(candidate, current)
                report.best = _better(current, report.best)
                if candidate not in report.tried:  # a setting met again was told already
                    report.tried.append(candidate)
                    self._tell(candidate, report)
        return report

    async def _climb_neighbours(self, current: Candidate, report: TuneReport) -> Candidate:
        """Steepest ascent over the Manhattan-distance-1 neighbours."""
        for _ in range(self.iterations):
            best_here = current
            for point in self.neighbours_of(current.values):
                candidate = await self.evaluate(point)
                if candidate not in report.tried:
                    report.tried.append(candidate)
                best_here = _better(candidate, best_here)
                report.best = _better(candidate, report.best)
                self._tell(candidate, report)
            if best_here is current:
                break
            current = best_here
        return current

    async def confirm(
        self, report: TuneReport, field_seats: Sequence[Entry], seed: int
    ) -> tuple[Candidate, Candidate, Estimate]:
        """The start point and the best candidate played again on fresh games (``seed``,
        against ``field_seats``): both scores and the gain, paired game by game."""
        if len(field_seats) != 6:
            raise TuneError(f"the fresh field needs 6 seats; it has {len(field_seats)}")
        start = await self.evaluate(report.start.values, field_seats, seed)
        best = await self.evaluate(report.best.values, field_seats, seed)
        common = sorted(set(best.scores) & set(start.scores))
        return start, best, Estimate.of([best.scores[i] - start.scores[i] for i in common])

    def _tell(self, candidate: Candidate, report: TuneReport) -> None:
        if self.on_candidate is not None:
            self.on_candidate(candidate, report.best)


def _better(challenger: Candidate, holder: Candidate) -> Candidate:
    """The challenger wins when it scores more on the games both played (common seeds make
    this a paired comparison); a tie keeps the holder."""
    common = [i for i in challenger.scores if i in holder.scores]
    if not common:
        return holder
    diff = sum(challenger.scores[i] - holder.scores[i] for i in common)
    return challenger if diff > 0 else holder
