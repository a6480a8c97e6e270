"""The suite runs the pure Python engine and bots whatever is built on this machine; the
compiled ones are tested on their own (``compiled_builds`` builds both into a temporary folder
once a run: ``tests/engine/test_compile.py`` runs the engine tests against them,
``tests/bots/test_compiled.py`` the bots' tests)."""

import fcntl
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import structlog

os.environ.setdefault("DIPLOMAT_ENGINE", "pure")

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _logging_as_the_run_started() -> Iterator[None]:
    """Each test leaves structlog's configuration as it found it. An in-process ``main(...)``
    (or a test) configures the logs onto the stream of the moment, capsys's or a file the test
    closes, and a server in a later test would log into that closed stream and fail (seen:
    tests/server/test_passcodes.py after tests/tournament/test_tournament.py)."""
    saved = structlog.get_config()
    yield
    structlog.configure(**saved)


@pytest.fixture(scope="session")
def compiled_builds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment of a process that runs the compiled engine and bot search, built for
    this source into a temporary cache (about two minutes on two cores); skipped, saying why,
    where no build can be made. One build a run: under pytest-xdist the workers share it (the
    run's temporary root is theirs in common; the first to take the lock builds)."""
    from diplomat.engine import compiled

    why = compiled.can_build()
    if why is not None:
        pytest.skip(f"no compiled build can be made here: {why}")
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent  # the run's root, above each worker's own
    cache = shared / "compiled"
    env = {
        **os.environ,
        compiled.ENV_CACHE: str(cache),
        compiled.ENV_MODE: "auto",  # the builds run on whatever is there (nothing yet)
    }
    with (shared / "compiled.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not (cache / "built").exists():
            _build_compiled(env)
            (cache / "built").touch()
    env[compiled.ENV_MODE] = "compiled"  # fail at import rather than fall back
    return env


def _build_compiled(env: dict[str, str]) -> None:
    for module in ("diplomat.engine.compile", "diplomat.bots.compile"):
        built = subprocess.run(
            [sys.executable, "-m", module],
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
            cwd=ROOT,
        )
        assert built.returncode == 0, built.stdout + built.stderr
