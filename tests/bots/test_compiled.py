"""The compiled bot search (``bots.compiled``): the bots' tests pass on a real build, and it
decides exactly as the pure Python source does (the suite's other tests run pure Python)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from diplomat.bots.compiled import BOTS
from diplomat.engine import compiled

ROOT = Path(__file__).resolve().parent.parent.parent

# The tests of the compiled modules (in one process), and a live game of subprocess bots
# (they inherit the environment, so they run compiled too).
TESTS = (
    "tests/bots/test_bordeaux.py",
    "tests/bots/test_bordeaux_models.py",
    "tests/bots/test_dumbbot.py",
    "tests/bots/test_dumbbot_params.py",
    "tests/bots/test_negotiator.py",
    "tests/bots/test_simple_bots.py",
    "tests/bots/test_bordeaux_live.py",
)

# Bordeaux on a node budget and DumbBot, in positions of a game of DumbBots: every order.
DECISIONS = """
import hashlib, random
from diplomat.bots.base import View
from diplomat.bots.bordeaux.bot import Bordeaux
from diplomat.bots.compiled import BOTS
from diplomat.bots.dumbbot import DumbBot
from diplomat.engine import compiled
from diplomat.engine.map import load_map
from diplomat.engine.state import initial_state
from diplomat.engine.turn import process

rng = random.Random(5)
state = initial_state(load_map("standard"))
digest = hashlib.sha256()
while state.phase.year <= 1903:
    orders = {p: DumbBot().orders(View(state, p, rng)) for p in state.alive()}
    if state.phase.kind == "movement":
        for i, power in enumerate(state.alive()[:2]):
            bot = Bordeaux(nodes=300)
            view = View(state, power, random.Random(i))
            bot.start(view)
            digest.update(repr(sorted(map(str, bot.orders(view)))).encode())
    digest.update(repr({p: sorted(map(str, o)) for p, o in sorted(orders.items())}).encode())
    state = process(state, orders).state
print(compiled.describe(BOTS).split(": ")[1].split()[0], digest.hexdigest())
"""


def test_the_modules_exist_and_their_key_follows_the_source() -> None:
    for name in BOTS.modules:
        assert (ROOT / "bots" / f"{name.replace('.', '/')}.py").is_file()
    assert "bot" not in BOTS.modules and "base" not in BOTS.modules  # I/O stays Python
    assert compiled.source_key(group=BOTS) != compiled.source_key()


def _python(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], env={**os.environ, **env}, capture_output=True,
        text=True, timeout=300, cwd=ROOT,
    )  # fmt: skip


def test_diplomat_bots_chooses_for_the_bots_alone(tmp_path: Path) -> None:
    # An empty cache: nothing is compiled; DIPLOMAT_BOTS speaks for the bots, not the engine.
    env = {compiled.ENV_CACHE: str(tmp_path), compiled.ENV_MODE: "auto"}
    code = (
        "from diplomat.bots.compiled import BOTS; from diplomat.engine import compiled as c; "
        "print(c.describe()); print(c.describe(BOTS))"
    )
    done = _python(code, **env, DIPLOMAT_BOTS="pure")
    assert done.returncode == 0, done.stderr
    engine_line, bots_line = done.stdout.splitlines()
    assert bots_line == "bot search: pure Python (DIPLOMAT_BOTS=pure)"
    assert engine_line.startswith("engine: pure Python (") and "=pure" not in engine_line
    done = _python("import diplomat.bots", **env, DIPLOMAT_BOTS="fast")
    assert done.returncode != 0
    assert "DIPLOMAT_BOTS='fast': choose auto, pure or compiled" in done.stderr
    done = _python("import diplomat.bots", **env, DIPLOMAT_BOTS="compiled")
    assert done.returncode != 0
    assert "DIPLOMAT_BOTS=compiled, but there is no compiled bot search" in done.stderr
    assert "python -m diplomat.bots.compile" in done.stderr


def test_the_bots_tests_pass_compiled_and_decide_as_pure_python(
    compiled_builds: dict[str, str],
) -> None:
    env = compiled_builds
    status = subprocess.run(
        [sys.executable, "-m", "diplomat.bots.compile", "--status"], env=env, capture_output=True,
        text=True, timeout=300, cwd=ROOT,
    )  # fmt: skip
    assert status.stdout.startswith("bot search: compiled (mypyc)"), status.stdout + status.stderr
    assert not list((ROOT / "bots").rglob("*.so")), "the build wrote into the source tree"
    # A compiled module has no code for python -m to run: it runs the module's main().
    helped = subprocess.run(
        [sys.executable, "-m", "diplomat.bots.dumbbot", "--help"], env=env, capture_output=True,
        text=True, timeout=300, cwd=ROOT,
    )  # fmt: skip
    assert helped.returncode == 0 and "usage: python -m diplomat.bots.dumbbot" in helped.stdout, (
        helped.stdout + helped.stderr
    )
    tests = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-n", "0", *TESTS],
        env=env, capture_output=True, text=True, timeout=900, cwd=ROOT,
    )  # fmt: skip
    assert tests.returncode == 0, tests.stdout[-3000:] + tests.stderr[-3000:]
    assert "[100%]" in tests.stdout and "error" not in tests.stdout.lower()
    runs = {}
    for mode in ("compiled", "pure"):
        done = subprocess.run(
            [sys.executable, "-c", DECISIONS], env={**env, compiled.ENV_MODE: mode},
            capture_output=True, text=True, timeout=600, cwd=ROOT,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr[-3000:]
        path, digest = done.stdout.split()
        runs[path] = digest
    assert set(runs) == {"compiled", "pure"}
    assert runs["compiled"] == runs["pure"]
