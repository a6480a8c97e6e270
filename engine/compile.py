"""The optional compiled engine: the rules modules compiled with mypyc, from the same source.

    python -m engine.compile            # build: engine/*.so next to the .py files
    python -m engine.compile --clean    # remove them: back to pure Python
    python -m engine.compile --status   # which path imports get

Python imports an extension module in preference to the ``.py`` file beside it, so once
built, ``import engine.movement`` runs the compiled code; nothing else changes. The pure
Python modules stay the reference: they are what a plain install runs and what CI tests. The
build needs mypy (it brings mypyc; ``pip install -e '.[test]'`` installs it), setuptools and
a C compiler. Rebuild after changing any engine module (a stale build runs old code), or
clean.

Only the modules of rules logic are compiled. The value types (``state``, ``orders``,
``map``) stay Python classes: compiled dataclasses compare and pickle differently, and the
rest of the project relies on both.
"""

from __future__ import annotations

import argparse
import importlib.machinery
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
MODULES = (
    "convoy",
    "defaults",
    "legal",
    "movement",
    "notation",
    "orderset",
    "search",
    "turn",
    "validate",
)
# One shared library for the group: its C helpers, in the package so that it is found
# however the project is installed.
GROUP = "engine.native"


def built() -> list[Path]:
    """The compiled files present in the package (extension modules and the shared
    library)."""
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    return sorted(p for p in HERE.iterdir() if p.name.endswith(suffixes))


def compiled() -> list[str]:
    """The engine modules that imports get compiled, by name (empty: pure Python)."""
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    names = {p.name.split(".")[0] for p in HERE.iterdir() if p.name.endswith(suffixes)}
    return [m for m in MODULES if m in names]


def stale() -> list[str]:
    """The compiled modules whose source changed after the build (they run old code)."""
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    built_at = {
        p.name.split(".")[0]: p.stat().st_mtime for p in HERE.iterdir() if p.name.endswith(suffixes)
    }
    return [m for m in compiled() if (HERE / f"{m}.py").stat().st_mtime > built_at[m]]


def clean() -> list[Path]:
    removed = built()
    for path in removed:
        path.unlink()
    return removed


def build() -> None:
    """Compile :data:`MODULES` in place (replacing any earlier build)."""
    from mypyc.build import mypycify
    from setuptools import setup  # type: ignore[import-untyped, unused-ignore]

    clean()
    root = HERE.parent
    cwd = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(root)
        try:
            setup(
                name="diplomat-engine-compiled",
                ext_modules=mypycify(
                    [f"engine/{m}.py" for m in MODULES],
                    opt_level="3",
                    group_name=GROUP,
                    target_dir=str(Path(tmp) / "c"),
                ),
                script_args=[
                    "-q",
                    "build_ext",
                    "--inplace",
                    "--build-temp",
                    str(Path(tmp) / "o"),
                    "--build-lib",
                    str(Path(tmp) / "lib"),
                ],
            )
        finally:
            os.chdir(cwd)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--clean", action="store_true", help="remove the compiled modules")
    p.add_argument("--status", action="store_true", help="say which path imports get")
    args = p.parse_args(argv)
    if args.clean:
        removed = clean()
        print(f"removed {len(removed)} compiled files: the engine is pure Python")
        return 0
    if not args.status:
        build()
    names = compiled()
    if names:
        print(f"compiled engine (mypyc): {', '.join(names)}")
        old = stale()
        if old:
            print(f"stale: {', '.join(old)} changed since the build; rebuild or --clean")
    else:
        print("pure Python engine (build the compiled one with: python -m engine.compile)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
