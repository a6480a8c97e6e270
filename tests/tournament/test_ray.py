"""Tournaments on a real two-node Ray cluster on this machine (a head and a worker node on
127.0.0.1), in a network namespace with only loopback (see ``tournament/local_ray.py``; needs
root)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from diplomat.tournament.local_ray import in_namespace, isolation_problem
from tests.tournament.raycluster import ROOT

problem = isolation_problem()
pytestmark = pytest.mark.skipif(problem is not None, reason=f"a Ray cluster needs {problem}")


def scenario(name: str, folder: Path) -> dict[str, Any]:
    cmd = [sys.executable, "-m", "tests.tournament.raycluster", name, str(folder), "--nodes", "2"]
    done = subprocess.run(in_namespace(cmd), cwd=ROOT, capture_output=True, text=True, timeout=900)
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    assert done.returncode == 0 and lines, f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    result: dict[str, Any] = json.loads(lines[-1].removeprefix("RESULT "))
    return result


def test_a_two_node_ray_tournament_matches_a_local_run(tmp_path: Path) -> None:
    result = scenario("match", tmp_path)
    ray, local = result["ray"], result["local"]
    assert [g["index"] for g in ray["games"]] == [0, 1, 2, 3]
    assert ray["games"] == local["games"]  # same seeds, same games, seat by seat
    assert len(ray["nodes"]) == 2, ray["nodes"]  # both nodes played games
    assert sum(ray["nodes"].values()) == 4 and local["nodes"] == {}


def test_a_ray_tournament_resumes_after_kill_9_of_its_driver_and_of_a_worker(
    tmp_path: Path,
) -> None:
    result = scenario("resume", tmp_path)
    assert result["stored_before_kill"] >= 1
    assert result["killed_worker"] is not None  # a worker died in the middle of a game
    assert result["second_run"] == 0, result["stderr"]
    names = result["finished"]
    assert len(names) == 6 and len(set(names)) == 6  # every game once, none twice


def test_a_ray_game_that_lost_a_player_before_its_start_is_replayed_and_marked(
    tmp_path: Path,
) -> None:
    result = scenario("incomplete", tmp_path)
    assert result["replays"] == 1  # played again on the worker, then played out
    assert result["incomplete"] and result["played"] == 6
    ((label, detail),) = result["absent"]
    assert label == "never" and "never joined within 5 s of its start" in detail
    assert "its last output: waiting for a licence server" in detail
