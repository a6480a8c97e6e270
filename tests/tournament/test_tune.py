"""``diplomat tune``: ranges, the climb, and a real tuning run that repairs a bad parameter."""

from __future__ import annotations

import json
import random
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from diplomat.cli.main import main
from diplomat.tournament.runner import Entry, parse_lineup
from diplomat.tournament.scoring import GameResult, SeatResult
from diplomat.tournament.tune import ParamRange, TuneError, Tuner

GRAB_BOT = Path(__file__).with_name("grab_bot.py")


def test_param_ranges() -> None:
    r = ParamRange.parse("grab=0..1")
    assert (r.name, r.low, r.high, r.integer) == ("grab", 0.0, 1.0, True)
    f = ParamRange.parse("weight=0.5..4")
    assert not f.integer and f.clip(9) == 4 and f.clip(-1) == 0.5 and f.middle() == 2.25
    assert ParamRange.parse("depth=1..4").clip(2.6) == 3.0
    for bad, why in [
        ("grab", "NAME=LOW..HIGH"),
        ("grab=0-1", "NAME=LOW..HIGH"),
        ("grab=a..1", "numbers"),
        ("grab=1..1", "below"),
        ("=0..1", "NAME=LOW..HIGH"),
    ]:
        with pytest.raises(TuneError, match=why):
            ParamRange.parse(bad)


async def test_the_climb_keeps_what_scores_better_on_common_games() -> None:
    """A fake field where the score is a known function of the parameter: the climb must move
    towards the optimum, keep only improvements, and never play a setting twice."""
    played: list[str] = []

    async def play(lineup: Sequence[Entry], seed: int) -> list[GameResult]:
        command = lineup[0].command
        played.append(command)
        x = float(command.rsplit("=", 1)[1])
        rng = random.Random(seed)
        games = []
        for i in range(7):
            noise = rng.uniform(-0.01, 0.01)  # the same for every candidate: common seeds
            share = max(0.01, min(0.99, 0.9 - (x - 0.8) ** 2 + noise))
            games.append(GameResult(i, i, _seats_for(share), None, ""))
        return games

    field = tuple(parse_lineup(["holdbot:6"], count=6))
    tuner = Tuner(
        "bot --stdio",
        (ParamRange.parse("x=0.0..1.0"),),
        field,
        play,
        games=7,
        iterations=12,
        seed=3,
        start={"x": 0.0},
    )
    report = await tuner.run()
    assert report.start.values == (0.0,)
    assert abs(report.best.values[0] - 0.8) < abs(0.0 - 0.8)
    assert report.best.estimate.mean > report.start.estimate.mean
    assert report.gain().mean > 0
    assert len(played) == len(set(played))  # a setting is never played twice


def _seats_for(share: float) -> tuple[SeatResult, ...]:
    """Centres whose Sum-of-Squares share for AUS is ``share`` (to two decimals): AUS with a
    centres, the rest split so that a^2 / (a^2 + b^2) ~ share."""
    a = 100
    b = round(a * ((1 - share) / share) ** 0.5)
    return (SeatResult("tuned", "AUS", a, None), SeatResult("f", "ENG", b, None))


def test_bad_requests_are_refused_before_anything_runs(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tune", "holdbot", "--against", "holdbot:6", "--param", "grab"]) == 2
    assert "NAME=LOW..HIGH" in capsys.readouterr().err
    assert main(["tune", "holdbot", "--against", "holdbot:5"]) == 2
    assert "exactly 6" in capsys.readouterr().err
    assert main(["tune", "holdbot", "--against", "holdbot:6"]) == 2
    assert "--param" in capsys.readouterr().err
    args = ["tune", "holdbot", "--against", "holdbot:6", "--param", "g=0..1", "--start", "g=x"]
    assert main(args) == 2
    assert "NAME=VALUE" in capsys.readouterr().err


def test_a_small_tune_run_repairs_a_bad_parameter(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """GrabBot with grab=0 only holds; tuned against HoldBots it must learn to grab centres.
    (An integer range 0..1: the one step from 0 is 1, so the run is short and its outcome
    does not hang on a lucky step.)"""
    out = tmp_path / "tune.json"
    code = main(_grab_tune(tmp_path, out))
    assert code == 0, capsys.readouterr().err
    report = json.loads(out.read_text())
    assert report["start"]["params"] == {"grab": "0"}
    assert report["start"]["sos"]["games"] == 7
    assert report["best"]["params"] == {"grab": "1"}
    assert report["best"]["sos"]["mean"] > report["start"]["sos"]["mean"]
    assert report["gain"]["mean"] > 0
    printed = capsys.readouterr().out
    assert "best:  grab=" in printed and "gain:  +" in printed


def _grab_tune(tmp_path: Path, out: Path) -> list[str]:
    """``diplomat tune`` of GrabBot's grab from 0, against HoldBots, in 7 short games."""
    bot = f"{shlex.quote(sys.executable)} {shlex.quote(str(GRAB_BOT))} --stdio --seed {{seed}}"
    return [
        "tune",
        bot,
        "--param",
        "grab=0..1",
        "--start",
        "grab=0",
        "--against",
        "holdbot:6",
        "--games",
        "7",
        "--iterations",
        "1",
        "--max-year",
        "1902",
        "--db",
        str(tmp_path / "tune.sqlite"),
        "--json",
        str(out),
    ]


def test_the_command_confirms_on_its_own_number_of_fresh_games(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--confirm-against plays the start and the best again, --confirm-games games each (not
    the climb's --games), and prints and records what they scored."""
    out = tmp_path / "tune.json"
    confirm = ["--confirm-against", "holdbot:6", "--confirm-games", "3", "--confirm-seed", "5"]
    assert main([*_grab_tune(tmp_path, out), *confirm]) == 0, capsys.readouterr().err
    report = json.loads(out.read_text())
    assert report["start"]["sos"]["games"] == 7
    confirmed = report["confirmed"]
    assert confirmed["gain"]["games"] == 3
    assert confirmed["start"]["params"] == {"grab": "0"}
    assert confirmed["best"]["params"] == {"grab": "1"}
    assert len(confirmed["best"]["scores"]) == 3
    assert "fresh games (3, another seed and field)" in capsys.readouterr().out


def test_neighbours_are_one_parameter_at_a_time() -> None:
    tuner = Tuner(
        "bordeaux --nodes 100",
        (ParamRange.parse("a=0.0..1.0"), ParamRange.parse("k=1..9")),
        tuple(parse_lineup(["holdbot:6"], count=6)),
        _never,
        games=7,
        step=0.1,
    )

    def near(point: tuple[float, float]) -> list[tuple[float, float]]:
        return [(round(a, 9), k) for a, k in tuner.neighbours_of(point)]

    assert near((0.5, 5.0)) == [(0.4, 5.0), (0.6, 5.0), (0.5, 4.0), (0.5, 6.0)]
    # Clipped away at the edge of a range; an integer parameter moves by at least 1.
    assert near((0.0, 9.0)) == [(0.1, 9.0), (0.0, 8.0)]
    # A bundled bot with fixed arguments keeps them, the parameters after.
    entry = tuner.entry_for((0.5, 5.0))
    assert entry.bundled and entry.command == "bordeaux"
    assert entry.args == ("--nodes", "100", "--param", "a=0.5", "--param", "k=5")


async def _never(lineup: Sequence[Entry], seed: int) -> list[GameResult]:
    raise AssertionError("nothing is played")


async def test_the_neighbour_climb_and_its_confirmation_on_fresh_games() -> None:
    """Score = a known function of two parameters plus per-game noise common to every
    candidate of one seed: the climb walks one parameter at a time to the optimum, then the
    start and the best are played on a fresh seed and field, and the gain holds there."""
    played: list[tuple[str, int, str]] = []

    async def play(lineup: Sequence[Entry], seed: int) -> list[GameResult]:
        args = dict(a.split("=") for a in lineup[0].args if "=" in a)
        played.append((" ".join(lineup[0].args), seed, lineup[1].label))
        x, y = float(args["x"]), float(args["y"])
        rng = random.Random(seed)
        games = []
        for i in range(7):
            noise = rng.uniform(-0.01, 0.01)
            share = max(0.01, min(0.99, 0.8 - (x - 0.6) ** 2 - (y - 0.2) ** 2 + noise))
            games.append(GameResult(i, i, _seats_for(share), None, ""))
        return games

    tuner = Tuner(
        "holdbot",
        (ParamRange.parse("x=0.0..1.0"), ParamRange.parse("y=0.0..1.0")),
        tuple(parse_lineup(["holdbot:6"], count=6)),
        play,
        games=7,
        iterations=10,
        step=0.2,
        seed=3,
        start={"x": 0.2, "y": 0.6},
        neighbours=True,
    )
    report = await tuner.run()
    assert report.best.values == pytest.approx((0.6, 0.2))
    # Every point tried differs from the one it came from in one parameter only.
    assert len(played) == len({p[0] for p in played})  # and none was played twice
    assert all(seed == 3 for _, seed, _ in played)
    fresh = tuple(parse_lineup(["randombot:6"], count=6))
    start, best, gain = await tuner.confirm(report, fresh, seed=99)
    assert played[-1][1:] == (99, "randombot") and played[-2][1:] == (99, "randombot")
    assert best.estimate.mean > start.estimate.mean and gain.mean > 0.1
    assert gain.mean - gain.ci95 > 0
