"""Scoring finished games and summarising bots: Sum-of-Squares, draw-size, C-Diplo, DAIDE pot,
confidence intervals, and an OpenSkill rating.

A game result is the final centre count per power, who (if anyone) soloed, and the year each
eliminated power went out. A game that ends without a solo (by vote, year limit or no change)
is a draw among the survivors.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from openskill.models import PlackettLuce, PlackettLuceRating

SCORES = ("sos", "dss", "cdiplo", "pot")


@dataclass(frozen=True)
class SeatResult:
    label: str  # the line-up label of the bot in this seat
    power: str
    centres: int
    eliminated: int | None  # year of elimination
    crashed: bool = False
    hung: bool = False  # missed its orders at K deadlines in a row, or joined and never ready
    stopped: str | None = None  # the phase where a crashed or hung bot stopped ("joining")
    seat: int | None = None  # its place in the line-up or pool (1-based)
    log: str | None = None  # its log file, if it wrote anything
    detail: str | None = None  # how it ended, e.g. "exit status 3"
    absent: bool = False  # its program never joined the game

    @property
    def status(self) -> str:
        """played, absent, hung or crashed."""
        if self.absent:
            return "absent"
        return "hung" if self.hung else "crashed" if self.crashed else "played"

    @property
    def lost_before_start(self) -> bool:
        """The game started without this seat's player."""
        return self.absent or (self.stopped == "joining" and (self.hung or self.crashed))


@dataclass(frozen=True)
class GameResult:
    game_id: int
    index: int  # the game's number in its tournament
    seats: tuple[SeatResult, ...]
    winner: str | None  # the power that soloed
    reason: str

    @property
    def survivors(self) -> list[str]:
        return [s.power for s in self.seats if s.centres > 0]

    @property
    def incomplete(self) -> bool:
        """It lost a player before it started: its result says nothing of that player's
        bot, and flatters the others."""
        return any(s.lost_before_start for s in self.seats)


def scored(games: Iterable[GameResult], keep_incomplete: bool = False) -> list[GameResult]:
    """The games that count in scores, ratings and intervals: the complete ones (all, with
    ``keep_incomplete``)."""
    return [g for g in games if keep_incomplete or not g.incomplete]


def sum_of_squares(game: GameResult) -> dict[str, float]:
    if game.winner is not None:
        return {s.power: float(s.power == game.winner) for s in game.seats}
    total = sum(s.centres**2 for s in game.seats) or 1
    return {s.power: s.centres**2 / total for s in game.seats}


def draw_size(game: GameResult) -> dict[str, float]:
    if game.winner is not None:
        return {s.power: float(s.power == game.winner) for s in game.seats}
    alive = game.survivors
    return {s.power: (1 / len(alive) if s.power in alive else 0.0) for s in game.seats}


def c_diplo(game: GameResult) -> dict[str, float]:
    """C-Diplo (out of 100): a solo takes 100; otherwise 1 for playing, 1 per centre, and
    38/14/7 for the first, second and third by centres, ties sharing the bonuses they span."""
    if game.winner is not None:
        return {s.power: 100.0 * (s.power == game.winner) for s in game.seats}
    bonus = [38.0, 14.0, 7.0] + [0.0] * (len(game.seats) - 3)
    ranked = sorted(game.seats, key=lambda s: -s.centres)
    out = {s.power: 1.0 + s.centres for s in game.seats}
    i = 0
    while i < len(ranked):
        j = i
        while j < len(ranked) and ranked[j].centres == ranked[i].centres:
            j += 1
        share = sum(bonus[i:j]) / (j - i)
        for s in ranked[i:j]:
            out[s.power] += share
        i = j
    return out


def daide_pot(game: GameResult) -> dict[str, float]:
    """DAIDE standard scoring: everyone stakes 1; a soloist takes M-1, each of N drawers M/N-1,
    the rest -1 (M = number of powers)."""
    m = len(game.seats)
    if game.winner is not None:
        return {s.power: (m - 1.0 if s.power == game.winner else -1.0) for s in game.seats}
    alive = game.survivors
    return {s.power: (m / len(alive) - 1.0 if s.power in alive else -1.0) for s in game.seats}


SCORERS = {"sos": sum_of_squares, "dss": draw_size, "cdiplo": c_diplo, "pot": daide_pot}


@dataclass(frozen=True)
class Estimate:
    mean: float
    ci95: float  # half-width of the 95% confidence interval (normal approximation)

    @classmethod
    def of(cls, values: Sequence[float]) -> Estimate:
        n = len(values)
        if n == 0:
            return cls(0.0, 0.0)
        mean = sum(values) / n
        if n < 2:
            return cls(mean, math.inf)
        var = sum((v - mean) ** 2 for v in values) / (n - 1)
        return cls(mean, 1.96 * math.sqrt(var / n))


@dataclass
class BotSummary:
    label: str
    games: int = 0
    solos: int = 0
    draws: int = 0
    survivals: int = 0
    eliminated: int = 0
    crashes: int = 0
    hung: int = 0
    absent: int = 0
    centres: list[int] = field(default_factory=list)
    scores: dict[str, list[float]] = field(default_factory=lambda: {k: [] for k in SCORES})
    mu: float = 25.0
    sigma: float = 25.0 / 3

    @property
    def mean_centres(self) -> float:
        return sum(self.centres) / len(self.centres) if self.centres else 0.0

    def estimate(self, score: str) -> Estimate:
        return Estimate.of(self.scores[score])


def summarise(games: Iterable[GameResult], labels: Sequence[str]) -> list[BotSummary]:
    """Per line-up label (one entry per seat played): counts, scores and an OpenSkill
    (Plackett-Luce) rating fitted over the games in order."""
    bots = {label: BotSummary(label) for label in labels}
    model = PlackettLuce()
    ratings = {label: model.rating(name=label) for label in labels}
    for game in sorted(games, key=lambda g: g.index):
        per_score = {k: f(game) for k, f in SCORERS.items()}
        for seat in game.seats:
            b = bots.setdefault(seat.label, BotSummary(seat.label))
            b.games += 1
            b.centres.append(seat.centres)
            if game.winner == seat.power:
                b.solos += 1
            elif game.winner is None and seat.centres > 0:
                b.draws += 1
            if seat.centres > 0 and game.winner != seat.power:
                b.survivals += 1
            if seat.centres == 0:
                b.eliminated += 1
            if seat.crashed:
                b.crashes += 1
            if seat.hung:
                b.hung += 1
            if seat.absent:
                b.absent += 1
            for k in SCORES:
                b.scores[k].append(per_score[k][seat.power])
        _rate(model, ratings, game)
    for label, r in ratings.items():
        if label in bots:
            bots[label].mu, bots[label].sigma = r.mu, r.sigma
    return list(bots.values())


def _rank(game: GameResult) -> list[float]:
    """Finishing order per seat (lower is better): by centres, then the eliminated by how long
    they lasted."""
    keys = []
    for s in game.seats:
        if game.winner is not None:
            keys.append((0 if s.power == game.winner else 1, -s.centres, -(s.eliminated or 9999)))
        else:
            keys.append((0, -s.centres, -(s.eliminated or 9999)))
    order = sorted(set(keys))
    return [float(order.index(k)) for k in keys]


def _rate(model: PlackettLuce, ratings: Mapping[str, PlackettLuceRating], game: GameResult) -> None:
    """One rating update. A label holding several seats plays each with its current rating;
    its new rating is the mean of the seats' updated ratings."""
    teams = [
        [model.rating(mu=ratings[s.label].mu, sigma=ratings[s.label].sigma)] for s in game.seats
    ]
    updated = model.rate(teams, ranks=_rank(game))
    by_label: dict[str, list[tuple[float, float]]] = {}
    for seat, team in zip(game.seats, updated, strict=True):
        by_label.setdefault(seat.label, []).append((team[0].mu, team[0].sigma))
    for label, values in by_label.items():
        r = ratings[label]
        r.mu = sum(v[0] for v in values) / len(values)
        r.sigma = sum(v[1] for v in values) / len(values)
