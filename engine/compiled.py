"""Which engine runs: the compiled one (mypyc) where a build for this very source exists, else
pure Python. The same machinery serves any :class:`Group` of modules compiled together: the
searching bots' hot modules are another (``bots.compiled``).

A build (``python -m diplomat.engine.compile``, or started in the background the first time a
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
from dataclasses import dataclass
from pathlib import Path
from types import CodeType, ModuleType

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent  # where the top-level packages are


@dataclass(frozen=True)
class Group:
    """Modules of one package compiled together into one build."""

    package: str  # the package they belong to, by its import name (``diplomat.engine``)
    modules: tuple[str, ...]  # their dotted names below it
    sources: tuple[str, ...]  # the packages (folders) the build is made from (its key's input)
    title: str  # what the one line calls it
    compile_module: str  # ``python -m`` this builds it
    env: str | None = None  # a variable choosing for this group alone (else DIPLOMAT_ENGINE)

    @property
    def group_name(self) -> str:
        """mypyc's name for the group (it names the library ``<package>.GROUP_LIB``)."""
        return f"{self.package}.native"

    @property
    def lib(self) -> str:
        """The group's shared library, imported by each compiled module by this name."""
        return f"{self.package}.{GROUP_LIB}"

    def names(self) -> tuple[str, ...]:
        """The full names of the compiled modules and the library."""
        return (*(f"{self.package}.{m}" for m in self.modules), self.lib)


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
# One shared library per group, imported by each compiled module by this name.
GROUP_LIB = "native__mypyc"
ENGINE = Group("diplomat.engine", MODULES, ("engine",), "engine", "diplomat.engine.compile")
ENV_MODE = "DIPLOMAT_ENGINE"
ENV_CACHE = "DIPLOMAT_ENGINE_CACHE"
BUILDING_FRESH = 15 * 60  # seconds a build's marker keeps another build from starting


class CompiledEngineMissing(ImportError):
    """``DIPLOMAT_ENGINE=compiled`` and no build for this source."""


def mode(group: Group | None = None) -> str:
    """``auto``, ``pure`` or ``compiled``: the group's own variable if set, else
    ``DIPLOMAT_ENGINE``."""
    name = _mode_variable(group)
    value = os.environ.get(name, "auto").strip().lower() or "auto"
    if value not in ("auto", "pure", "compiled"):
        raise ValueError(f"{name}={value!r}: choose auto, pure or compiled")
    return value


def _mode_variable(group: Group | None) -> str:
    if group is not None and group.env and os.environ.get(group.env, "").strip():
        return group.env
    return ENV_MODE


def source_key(folder: Path | None = None, group: Group = ENGINE) -> str:
    """A hash of every source file of the group's source packages (or of ``folder`` instead)
    and of the Python that would load the build."""
    h = hashlib.sha256()
    h.update(f"{sys.implementation.cache_tag} {sysconfig.get_platform()}".encode())
    h.update(f" {group.package}: {' '.join(group.modules)}".encode())
    roots = [folder] if folder is not None else [ROOT / s for s in group.sources]
    for root in roots:
        for path in sorted(root.rglob("*.py")):
            name = path.relative_to(root).as_posix()
            h.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def cache_root() -> Path:
    given = os.environ.get(ENV_CACHE)
    if given:
        return Path(given).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "diplomat" / "engine"


def build_folder(key: str | None = None, group: Group = ENGINE) -> Path:
    """Where the build of this source (or of ``key``) lives: ``<root>/<key>/<package>/``."""
    return cache_root() / (key or source_key(group=group)) / group.package


def _extension(folder: Path, name: str, group: Group) -> Path | None:
    """The compiled file of the module ``name`` (its full name) in a build folder."""
    parts = name.removeprefix(group.package + ".").split(".")  # as the build lays them out
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = folder.joinpath(*parts[:-1], f"{parts[-1]}{suffix}")
        if path.is_file():
            return path
    return None


def complete(folder: Path, group: Group = ENGINE) -> bool:
    """Has ``folder`` every compiled module and the group's library?"""
    return all(_extension(folder, n, group) is not None for n in group.names())


class _Finder(importlib.abc.MetaPathFinder):
    """Finds a group's compiled modules and its library in a build folder."""

    def __init__(self, folder: Path, group: Group) -> None:
        self.folder = folder
        self.group = group
        self.names = set(group.names())

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in self.names:
            return None
        file = _extension(self.folder, fullname, self.group)
        if file is None:
            return None
        loader = _Loader(fullname, str(file))
        return importlib.util.spec_from_file_location(fullname, file, loader=loader)


class _Loader(importlib.machinery.ExtensionFileLoader):
    """Loads a compiled module. ``python -m`` runs a module's code, which a compiled module has
    none of: run so, it imports the module and returns its ``main()`` as the exit status."""

    def get_code(self, fullname: str) -> CodeType:  # type: ignore[override]
        script = f"import sys\nfrom {fullname} import main\nsys.exit(main())\n"
        return compile(script, f"<compiled {fullname}>", "exec")


def install(group: Group = ENGINE) -> None:
    """Load the group's compiled modules from this source's build, if there is one (and the
    mode allows it). Run once, by the package's ``__init__.py``."""
    chosen = mode(group)
    if chosen == "pure" or any(isinstance(f, _Finder) and f.group == group for f in sys.meta_path):
        return
    folder = build_folder(group=group)
    if complete(folder, group):
        sys.meta_path.insert(0, _Finder(folder, group))
    elif chosen == "compiled":
        raise CompiledEngineMissing(
            f"{_mode_variable(group)}=compiled, but there is no compiled {group.title} for "
            f"this source in {folder}: build it with python -m {group.compile_module}"
        )


def running(group: Group = ENGINE) -> list[str]:
    """The group's modules imports get compiled (empty: pure Python)."""
    import importlib

    out = []
    for name in group.modules:
        module = importlib.import_module(f"{group.package}.{name}")
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


def building(folder: Path | None = None, group: Group = ENGINE) -> bool:
    """Is a build of this source under way (its marker newer than ``BUILDING_FRESH``)?"""
    marker = _marker(folder or build_folder(group=group))
    try:
        return time.time() - marker.stat().st_mtime < BUILDING_FRESH
    except OSError:
        return False


def _marker(folder: Path) -> Path:
    return folder.parent / "building"


def describe(group: Group = ENGINE) -> str:
    """One line: which path the group runs, and if pure Python, why and what to do."""
    compiled = running(group)
    what, command = group.title, f"python -m {group.compile_module}"
    if compiled and len(compiled) == len(group.modules):
        return f"{what}: compiled (mypyc), from {build_folder(group=group).parent}"
    if compiled:
        names = ", ".join(compiled)
        return f"{what}: partly compiled ({names}): rebuild with {command}"
    chosen = mode(group)
    if chosen == "pure":
        return f"{what}: pure Python ({_mode_variable(group)}=pure)"
    folder = build_folder(group=group)
    if complete(folder, group):
        return f"{what}: pure Python (the build appeared after start: used from the next start)"
    if building(folder, group):
        return f"{what}: pure Python (the compiled {what} is being built: used from the next start)"
    why = can_build()
    if why is not None:
        return f"{what}: pure Python ({why}; the compiled {what} is optional)"
    return f"{what}: pure Python (build the compiled one: {command})"
