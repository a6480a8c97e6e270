"""The compiled engine: the rules modules compiled with mypyc, from the same source.

    python -m diplomat.engine.compile            # build it now (about a minute on two cores)
    python -m diplomat.engine.compile --status   # which path imports get, and why
    python -m diplomat.engine.compile --clean    # remove every build: back to pure Python

A user needs none of this: the first ``diplomat serve``, ``tournament`` or ``tune`` where a C
compiler exists starts the build in the background (:func:`start_in_background`), and every
start after it finishes runs the compiled engine. The build goes to a cache folder named by a
hash of the engine's source (``engine.compiled``), never into the source tree, so a changed
module can never run old compiled code: the engine is pure Python until the new build is
made. The pure Python modules stay the reference; the tests run both paths.

The build needs mypyc (it comes with mypy, a dependency), setuptools and a C compiler. Only
the modules of rules logic are compiled; the value types (``state``, ``orders``, ``map``)
stay Python classes.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.machinery
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from diplomat.engine.compiled import (
    ENGINE,
    HERE,
    ROOT,
    Group,
    _marker,
    build_folder,
    building,
    cache_root,
    can_build,
    complete,
    describe,
    mode,
)


def in_place() -> list[Path]:
    """Compiled files beside the sources (what earlier versions built): Python would load
    them whatever the source says, so :func:`clean` removes them."""
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    return sorted(p for p in HERE.iterdir() if p.name.endswith(suffixes))


def clean() -> list[Path]:
    """Remove every build (all keys) and any compiled file beside the sources."""
    removed = in_place()
    for path in removed:
        path.unlink()
    root = cache_root()
    if root.is_dir():
        removed.append(root)
        shutil.rmtree(root, ignore_errors=True)
    return removed


def build(folder: Path | None = None, group: Group = ENGINE) -> Path:
    """Compile the group's modules into ``folder`` (default: this source's build folder);
    the folder appears complete or not at all."""
    from mypyc.build import mypycify
    from setuptools import setup  # type: ignore[import-untyped, unused-ignore]

    folder = folder or build_folder(group=group)
    folder.parent.mkdir(parents=True, exist_ok=True)
    marker = _marker(folder)
    marker.touch()
    cwd = os.getcwd()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            src = Path(tmp) / "src"
            # A copy of the source packages (mypyc reads the types of what the compiled
            # modules import from them): nothing is written into the source tree.
            # They import each other through the one import name, so the copy is laid out
            # as installed: src/diplomat/<package>/.
            top = src / "diplomat"
            top.mkdir(parents=True)
            (top / "__init__.py").write_text("")
            for package in group.sources:
                for path in (ROOT / package).rglob("*.py"):
                    target = top / package / path.relative_to(ROOT / package)
                    target.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(path, target)
            below = group.package.replace(".", "/")
            os.chdir(src)
            try:
                setup(
                    name=f"{group.package.replace('.', '-')}-compiled",
                    ext_modules=mypycify(
                        [f"{below}/{m.replace('.', '/')}.py" for m in group.modules],
                        opt_level="3",
                        group_name=group.group_name,
                        target_dir=str(Path(tmp) / "c"),
                    ),
                    script_args=[
                        "-q",
                        "build_ext",
                        "--build-temp",
                        str(Path(tmp) / "o"),
                        "--build-lib",
                        str(Path(tmp) / "lib"),
                    ],
                )
            finally:
                os.chdir(cwd)
            staging = folder.parent / f"staging-{os.getpid()}"
            shutil.rmtree(staging, ignore_errors=True)
            shutil.copytree(Path(tmp) / "lib" / below, staging)
            shutil.rmtree(folder, ignore_errors=True)
            staging.rename(folder)
    finally:
        with contextlib.suppress(OSError):
            marker.unlink()
    return folder


def start_in_background(group: Group = ENGINE) -> bool:
    """Start a build of this source in a process of its own, if none exists, none is under
    way and one can be made here; True if started. Its output goes to ``build.log`` beside
    the build."""
    if mode(group) != "auto":
        return False
    folder = build_folder(group=group)
    if complete(folder, group) or building(folder, group) or can_build() is not None:
        return False
    folder.parent.mkdir(parents=True, exist_ok=True)
    _marker(folder).touch()  # at once: a second start does not build again
    log = open(folder.parent / "build.log", "w")  # noqa: SIM115 (the child keeps it)
    subprocess.Popen(
        [sys.executable, "-m", group.compile_module, "--quiet"],
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        cwd=str(folder.parent),
    )
    log.close()
    return True


def main(argv: list[str] | None = None, group: Group = ENGINE) -> int:
    p = argparse.ArgumentParser(
        prog=f"python -m {group.compile_module}",
        description=f"The compiled {group.title}: build it, say which path runs, or clean.",
    )
    p.add_argument("--clean", action="store_true", help="remove every build")
    p.add_argument("--status", action="store_true", help="say which path imports get")
    p.add_argument("--quiet", action="store_true", help="build without printing")
    args = p.parse_args(argv)
    if args.clean:
        removed = clean()
        print(f"removed {len(removed)} builds and files: everything runs pure Python")
        return 0
    if args.status:
        print(describe(group))
        return 0
    why = can_build()
    if why is not None:
        print(f"cannot build the compiled {group.title}: {why}", file=sys.stderr)
        return 1
    folder = build(group=group)
    if not args.quiet:
        print(f"compiled {group.title} (mypyc) built in {folder}: used from the next start")
    return 0


if __name__ == "__main__":
    sys.exit(main())
