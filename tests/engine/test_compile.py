"""The optional compiled engine (``engine.compile``): what it compiles. Building it takes
longer than a test should (a C compile of nine modules), so it is not built here: see the
README's "The compiled engine" for the manual check (build, run these tests, clean)."""

from __future__ import annotations

from pathlib import Path

from engine import compile as build

ENGINE = Path(build.__file__).parent


def test_the_compiled_modules_exist_and_leave_the_value_types_alone() -> None:
    for name in build.MODULES:
        assert (ENGINE / f"{name}.py").is_file()
    # Compiled dataclasses compare and pickle differently: the values stay Python.
    assert not {"state", "orders", "map", "compile"} & set(build.MODULES)


def test_compiled_reports_a_subset_of_the_modules() -> None:
    assert set(build.compiled()) <= set(build.MODULES)
    assert set(build.stale()) <= set(build.compiled())
