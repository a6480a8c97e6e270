"""The compiled engine (``engine.compile``, ``engine.compiled``): which build is loaded, and
the engine tests run against a real build made into a temporary folder (``compiled_builds``;
the suite's other tests run the pure Python engine, so both paths are tested by the one test
command)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from diplomat.engine import compiled

ENGINE = Path(compiled.__file__).resolve().parent
ROOT = ENGINE.parent


def test_the_compiled_modules_exist_and_leave_the_value_types_alone() -> None:
    for name in compiled.MODULES:
        assert (ENGINE / f"{name}.py").is_file()
    # Compiled dataclasses compare and pickle differently: the values stay Python.
    assert not {"state", "orders", "map", "compile", "compiled"} & set(compiled.MODULES)


def test_a_changed_source_has_another_key(tmp_path: Path) -> None:
    copy = tmp_path / "engine"
    shutil.copytree(ENGINE, copy, ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    assert compiled.source_key(copy) == compiled.source_key()
    with open(copy / "movement.py", "a") as f:
        f.write("\n# changed\n")
    assert compiled.source_key(copy) != compiled.source_key()


def _python(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )


def test_a_build_of_another_source_is_never_loaded(tmp_path: Path) -> None:
    # A complete-looking build under another key (an older source) sits in the cache: the
    # engine stays pure Python, and "compiled" mode says there is no build for this source.
    old = tmp_path / "0123456789abcdef" / "engine"
    old.mkdir(parents=True)
    for name in (*compiled.MODULES, compiled.GROUP_LIB):
        (old / f"{name}.cpython-311-x86_64-linux-gnu.so").write_bytes(b"not a library")
    env = {compiled.ENV_CACHE: str(tmp_path), compiled.ENV_MODE: "auto"}
    done = _python("import diplomat.engine.compiled as c; print(c.describe())", **env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("engine: pure Python")
    done = _python("import diplomat.engine.movement", **{**env, compiled.ENV_MODE: "compiled"})
    assert done.returncode != 0 and "no compiled engine for this source" in done.stderr
    done = _python("import diplomat.engine", **{**env, compiled.ENV_MODE: "fast"})
    assert done.returncode != 0 and "choose auto, pure or compiled" in done.stderr


def test_the_engine_tests_pass_on_the_compiled_engine(compiled_builds: dict[str, str]) -> None:
    env = compiled_builds
    assert not list(ENGINE.glob("*.so")), "the build wrote into the source tree"
    status = subprocess.run(
        [sys.executable, "-m", "diplomat.engine.compile", "--status"], env=env, capture_output=True,
        text=True, timeout=300, cwd=ROOT,
    )  # fmt: skip
    assert status.stdout.startswith("engine: compiled (mypyc)"), status.stdout + status.stderr
    tests = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-n", "0",
         "tests/engine", "--deselect", "tests/engine/test_compile.py"],
        env=env, capture_output=True, text=True, timeout=900, cwd=ROOT,
    )  # fmt: skip
    assert tests.returncode == 0, tests.stdout[-3000:] + tests.stderr[-3000:]
    assert "[100%]" in tests.stdout and "error" not in tests.stdout.lower()


def test_without_a_compiler_the_engine_is_pure_python_and_says_so(tmp_path: Path) -> None:
    # No compiler on the PATH and an empty cache: nothing is built, and the line the heavy
    # commands print says why the engine is pure Python.
    code = "from diplomat.cli.options import engine_line; print(engine_line())"
    env = {compiled.ENV_CACHE: str(tmp_path), compiled.ENV_MODE: "auto", "PATH": str(tmp_path)}
    done = _python(code, **env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "engine: pure Python (no C compiler; the compiled engine is optional)",
        "bot search: pure Python (no C compiler; the compiled bot search is optional)",
    ]
    assert not any(tmp_path.iterdir())  # no build started
    done = _python(code, **{**env, compiled.ENV_MODE: "pure"})
    assert done.stdout.splitlines() == [
        "engine: pure Python (DIPLOMAT_ENGINE=pure)",
        "bot search: pure Python (DIPLOMAT_ENGINE=pure)",
    ]
