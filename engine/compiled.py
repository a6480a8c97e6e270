"""Which engine runs: the compiled one (mypyc) where a build for this very source exists, else
pure Python.

A build (``python -m engine.compile``, or started in the background the first time a
``diplomat`` command runs where a C compiler exists) lives in a cache folder named by a hash
of the engine's source and the Python version, ``~/.cache/diplomat/engine/<key>/``
(``$DIPLOMAT_ENGINE_CACHE`` moves it). :func:`install`, run when the ``engine`` package is
imported, puts a finder first on ``sys.meta_path`` that loads the compiled rules modules from
the folder of the current key, if there is one. A changed engine module changes the key, so a
stale build is never loaded: the engine runs pure Python until the new one is built.

``DIPLOMAT_ENGINE`` chooses: ``auto`` (the default: compiled if built), ``pure`` (never), or
``compiled`` (fail at import if there is no build: how the tests check the compiled path).
:func:`describe` gives the one line saying which path runs.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import shutil
import sys
import sysconfig
import time
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent
# The modules of rules logic that are compiled (the value types in ``state``, ``orders`` and
# ``map`` stay Python classes: compiled dataclasses compare and pickle differently).
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
# One shared library for the group, imported by each compiled module by this name.
GROUP = "engine.native"
GROUP_LIB = "native__mypyc"
ENV_MODE = "DIPLOMAT_ENGINE"
ENV_CACHE = "DIPLOMAT_ENGINE_CACHE"
BUILDING_FRESH = 15 * 60  # seconds a build's marker keeps another build from starting


class CompiledEngineMissing(ImportError):
    """``DIPLOMAT_ENGINE=compiled`` and no build for this source."""


def mode() -> str:
    value = os.environ.get(ENV_MODE, "auto").strip().lower() or "auto"
    if value not in ("auto", "pure", "compiled"):
        raise ValueError(f"{ENV_MODE}={value!r}: choose auto, pure or compiled")
    return value


def source_key(folder: Path = HERE) -> str:
    """A hash of every engine source file (in ``folder``) and of the Python that would load
    the build."""
    h = hashlib.sha256()
    h.update(f"{sys.implementation.cache_tag} {sysconfig.get_platform()}".encode())
    for path in sorted(folder.glob("*.py")):
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def cache_root() -> Path:
    given = os.environ.get(ENV_CACHE)
    if given:
        return Path(given).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "diplomat" / "engine"


def build_folder(key: str | None = None) -> Path:
    """Where the build of this source (or of ``key``) lives: ``<root>/<key>/engine/``."""
    return cache_root() / (key or source_key()) / "engine"


def _extension(folder: Path, name: str) -> Path | None:
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = folder / f"{name}{suffix}"
        if path.is_file():
            return path
    return None


def complete(folder: Path) -> bool:
    """Has ``folder`` every compiled module and the group's library?"""
    return all(_extension(folder, n) is not None for n in (*MODULES, GROUP_LIB))


class _Finder(importlib.abc.MetaPathFinder):
    """Finds ``engine.<module>`` and the group library in a build folder."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.names = {f"engine.{n}" for n in (*MODULES, GROUP_LIB)}

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in self.names:
            return None
        file = _extension(self.folder, fullname.rsplit(".", 1)[1])
        if file is None:
            return None
        loader = importlib.machinery.ExtensionFileLoader(fullname, str(file))
        return importlib.util.spec_from_file_location(fullname, file, loader=loader)


def install() -> None:
    """Load the compiled modules from this source's build, if there is one (and the mode
    allows it). Run once, by ``engine/__init__.py``."""
    chosen = mode()
    if chosen == "pure" or any(isinstance(f, _Finder) for f in sys.meta_path):
        return
    folder = build_folder()
    if complete(folder):
        sys.meta_path.insert(0, _Finder(folder))
    elif chosen == "compiled":
        raise CompiledEngineMissing(
            f"{ENV_MODE}=compiled, but there is no compiled engine for this source in "
            f"{folder}: build it with python -m engine.compile"
        )


def running() -> list[str]:
    """The engine modules imports get compiled (empty: pure Python)."""
    import importlib

    out = []
    for name in MODULES:
        module = importlib.import_module(f"engine.{name}")
        if not str(getattr(module, "__file__", "")).endswith(".py"):
            out.append(name)
    return out


def can_build() -> str | None:
    """Why a build cannot be made here (None: it can): a C compiler, mypyc and setuptools are
    needed."""
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None and shutil.which("cc") is None:
        return "no C compiler"
    for needed in ("mypyc", "setuptools"):
        if importlib.util.find_spec(needed) is None:
            return f"{needed} is not installed"
    return None


def building(folder: Path | None = None) -> bool:
    """Is a build of this source under way (its marker newer than ``BUILDING_FRESH``)?"""
    marker = _marker(folder or build_folder())
    try:
        return time.time() - marker.stat().st_mtime < BUILDING_FRESH
    except OSError:
        return False


def _marker(folder: Path) -> Path:
    return folder.parent / "building"


def describe() -> str:
    """One line: which engine runs, and if pure Python, why and what to do."""
    compiled = running()
    if compiled and len(compiled) == len(MODULES):
        return f"engine: compiled (mypyc), from {build_folder().parent}"
    if compiled:
        names = ", ".join(compiled)
        return f"engine: partly compiled ({names}): rebuild with python -m engine.compile"
    chosen = mode()
    if chosen == "pure":
        return f"engine: pure Python ({ENV_MODE}=pure)"
    folder = build_folder()
    if complete(folder):
        return "engine: pure Python (the build appeared after start: used from the next start)"
    if building(folder):
        return "engine: pure Python (the compiled engine is being built: used from the next start)"
    why = can_build()
    if why is not None:
        return f"engine: pure Python ({why}; the compiled engine is optional)"
    return "engine: pure Python (build the compiled one: python -m engine.compile)"
