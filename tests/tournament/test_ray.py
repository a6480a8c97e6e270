"""Tournaments on a real two-node Ray cluster on this machine (a head and a worker node on
127.0.0.1), in a network namespace with only loopback (see ``tournament/local_ray.py``; needs
root). The scenarios share one cluster, started once for the module."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from diplomat.tournament.local_ray import in_namespace, isolation_problem
from tests.tournament.raycluster import ROOT

SCENARIOS = ("match", "incomplete", "resume")  # the most disruptive last
problem = isolation_problem()
pytestmark = pytest.mark.skipif(problem is not None, reason=f"a Ray cluster needs {problem}")


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """Every scenario's result, from one cluster (one ``ray start`` for the module): the
    cluster is most of each scenario's time."""
    folder = tmp_path_factory.mktemp("ray")
    cmd = [sys.executable, "-m", "tests.tournament.raycluster", str(folder), *SCENARIOS,
           "--nodes", "2"]  # fmt: skip
    done = subprocess.run(in_namespace(cmd), cwd=ROOT, capture_output=True, text=True, timeout=1800)
    out: dict[str, dict[str, Any]] = {}
    for line in done.stdout.splitlines():
        if line.startswith("RESULT "):
            name, result = line.removeprefix("RESULT ").split(" ", 1)
            out[name] = json.loads(result)
    out["run"] = {"returncode": done.returncode, "output": f"{done.stdout[-3000:]}\n"
                  f"{done.stderr[-3000:]}"}  # fmt: skip
    return out


def scenario(results: dict[str, dict[str, Any]], name: str) -> dict[str, Any]:
    """One scenario's result; fails with the run's output if it has none or raised."""
    run = results["run"]
    result = results.get(name)
    assert run["returncode"] == 0 and result is not None, run["output"]
    assert "error" not in result, result["error"]
    return result


def test_a_two_node_ray_tournament_matches_a_local_run(
    results: dict[str, dict[str, Any]],
) -> None:
    result = scenario(results, "match")
    ray, local = result["ray"], result["local"]
    assert [g["index"] for g in ray["games"]] == [0, 1, 2, 3]
    assert ray["games"] == local["games"]  # same seeds, same games, seat by seat
    assert len(ray["nodes"]) == 2, ray["nodes"]  # both nodes played games
    assert sum(ray["nodes"].values()) == 4 and local["nodes"] == {}


def test_a_ray_tournament_resumes_after_kill_9_of_its_driver_and_of_a_worker(
    results: dict[str, dict[str, Any]],
) -> None:
    result = scenario(results, "resume")
    assert result["stored_before_kill"] >= 1
    assert result["killed_worker"] is not None  # a worker died in the middle of a game
    assert result["second_run"] == 0, result["stderr"]
    names = result["finished"]
    assert len(names) == 6 and len(set(names)) == 6  # every game once, none twice


def test_a_ray_game_that_lost_a_player_before_its_start_is_replayed_and_marked(
    results: dict[str, dict[str, Any]],
) -> None:
    result = scenario(results, "incomplete")
    assert result["replays"] == 1  # played again on the worker, then played out
    assert result["incomplete"] and result["played"] == 6
    ((label, detail),) = result["absent"]
    assert label == "never" and "never joined within 5 s of its start" in detail
    assert "its last output: waiting for a licence server" in detail
