"""A structured fuzzer against a real server's DAIDE port (binary and text): deep, huge,
non-finite, malformed and valid-but-hostile input, several connections at once, some cut off
with a TCP reset part-way. Every connection is answered (the sentinel request after its input
is answered, or the server closes it: EM, OFF, a line too long), the server lives, and a player
in a started game goes on playing throughout."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .daide_client import PATIENCE
from .daide_fuzz import ServerThread, exchange, fuzz_input


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    db = Path(tmp_path_factory.mktemp("fuzz")) / "db.sqlite"
    # A short IM timeout: a frame left unfinished on purpose is closed with its EM sooner.
    with ServerThread(db, im_timeout=0.5) as server:
        assert server.wait_for_phases(1, PATIENCE)
        yield server


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.lists(st.randoms(use_true_random=False), min_size=1, max_size=6))
def test_fuzzed_input_is_answered_and_the_server_lives(
    served: ServerThread, rngs: list[random.Random]
) -> None:
    inputs = [fuzz_input(rng) for rng in rngs]
    outcomes = exchange(served.port, inputs, PATIENCE)
    assert served.alive, served.error
    for inp, out in zip(inputs, outcomes, strict=True):
        assert out.answered, (inp.kinds, inp.binary, inp.data[:200], out)


def test_the_game_plays_on_after_the_fuzz(served: ServerThread) -> None:
    assert served.wait_for_phases(2, PATIENCE)
    assert served.alive, served.error
