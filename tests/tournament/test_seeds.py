"""Seat seeds: keyed with the database's secret, so no seat's seed follows from another's."""

from __future__ import annotations

import itertools
from pathlib import Path

from diplomat.server.settings import GameSettings
from diplomat.server.store import Store
from diplomat.tournament.records import Records
from diplomat.tournament.runner import Tournament, parse_lineup, seat_seed


def _seeds(path: Path, seed: int, game: int) -> list[int]:
    store = Store(path)
    try:
        t = Tournament(store, parse_lineup(["dumbbot:7"]), GameSettings(map="standard"), games=7,
                       parallel=1, seed=seed)  # fmt: skip
        return [s.seed for s in t.game_spec(game).seats]
    finally:
        t.close()
        store.close()


def test_seat_seeds_are_keyed_and_repeat_on_the_same_database(tmp_path: Path) -> None:
    a = _seeds(tmp_path / "a.sqlite", seed=1, game=0)
    assert len(set(a)) == 7 and all(0 <= s < 2**63 for s in a)
    # No arithmetic between seats, as ``base + seat`` had.
    assert len({b - a for a, b in itertools.pairwise(a)}) > 1
    # The same database: the same seeds (a resumed or distributed run sees them again) ...
    assert _seeds(tmp_path / "a.sqlite", seed=1, game=0) == a
    # ... another game, another tournament seed, another database: all different.
    others = (
        _seeds(tmp_path / "a.sqlite", seed=1, game=1)
        + _seeds(tmp_path / "a.sqlite", seed=2, game=0)
        + _seeds(tmp_path / "b.sqlite", seed=1, game=0)
    )
    assert not set(a) & set(others) and len(set(others)) == len(others)


def test_a_seat_cannot_work_out_another_seats_seed(tmp_path: Path) -> None:
    records = Records(str(tmp_path / "r.sqlite"))
    try:
        secret = records.secret()
        assert records.secret() == secret and len(secret) == 32  # drawn once, kept
    finally:
        records.close()
    mine = seat_seed(secret, 5, 3, 2)
    theirs = seat_seed(secret, 5, 3, 4)
    # What a bot in seat 2 could try: every small tournament seed, game and seat, with any
    # key it can know (none, or the tournament seed itself): its own seed is never found,
    # so neither is seat 4's.
    guesses = {
        seat_seed(key, seed, game, seat)
        for seed in range(64)
        for key in (b"", str(seed).encode())
        for game in range(8)
        for seat in range(1, 8)
    }
    assert mine not in guesses and theirs not in guesses
    assert seat_seed(secret, 5, 3, 2) == mine  # a pure function of its inputs


def test_two_databases_with_one_secret_give_the_same_seeds(tmp_path: Path) -> None:
    for name in ("a", "b"):
        records = Records(str(tmp_path / f"{name}.sqlite"))
        records.adopt_secret(b"shared")
        records.close()
    assert _seeds(tmp_path / "a.sqlite", 3, 5) == _seeds(tmp_path / "b.sqlite", 3, 5)
