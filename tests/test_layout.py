"""The house rules of the layout: each package imports only the packages below it, no two
modules import each other in a circle (directly or through others), the table of what may
import what is itself a layering (no package above itself), and every top-level package is in
the table (a new one fails here until it is given its place).

Every import counts: at the top of a module, inside a function, or under ``TYPE_CHECKING``.
The table is the README's "Layout" section; change both together.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# package -> the packages it may import (besides itself). "bots.registry" is the one module of
# bots that the tournament and the web page may read.
ALLOWED: dict[str, set[str]] = {
    "engine": set(),
    "grammar": set(),
    "protocol": {"engine", "grammar"},
    "replay": {"engine"},
    "bots": {"engine", "protocol"},
    "server": {"engine", "protocol"},
    "mapdraw": {"engine"},
    # A tournament's agents of the diplomacy package join its games through the package's
    # protocol (tournament/package_seats.py serves a dipnet.service.DipnetService), signed
    # in with the package's names of the powers (replay.package_notation).
    "tournament": {"server", "engine", "bots.registry", "dipnet", "replay"},
    "web": {"server", "mapdraw", "engine", "protocol", "bots.registry"},
    # The diplomacy package's saved games and network protocol, on the web page's floor.
    # Its WebSocket and connection gate are the web page's (web.http, web.gate).
    "dipnet": {
        "server",
        "engine",
        "protocol",
        "replay",
        "bots.registry",
        "web.http",
        "web.gate",
        "web.payloads",
    },
    # Scripts for users to copy (not installed): each stands alone, importing nothing of ours.
    "examples": set(),
}
UNRESTRICTED = {"cli", "tests", "bench"}
PACKAGES = set(ALLOWED) | UNRESTRICTED
# The one import name: links to the packages above, what ``pip install`` installs.
LINKS = {"diplomat"}

# The negotiator asks its strategic core every question about the board: besides its own
# package it imports only these modules of bots (no bot, no core), and no map: neither the
# engine's maps (``engine.map``, which loads the map data) nor the protocol's tables and map
# files made from them. Nor does it read a map off the game (``view.map``, ``state.map``).
NEGOTIATOR = "bots.negotiator"
NEGOTIATOR_MAY = {"bots.base", "bots.press", "bots.argtypes"}
MAPS = {"engine.map", "protocol.mdf", "protocol.mapfiles"}
MAP_ATTRIBUTES = {"map", "supply_centres", "homes"}


def modules() -> dict[str, Path]:
    """Every module of ours, by dotted name."""
    out: dict[str, Path] = {}
    for package in sorted(PACKAGES):
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


def imports_of(name: str, path: Path, known: set[str]) -> Iterator[str]:
    """The modules of ours that ``name`` imports (for ``from package import module``, the
    module; otherwise the package)."""
    package_parts = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield from _ours(alias.name, known)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package_parts[: len(package_parts) - node.level + 1]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            for alias in node.names:
                sub = ours(f"{module}.{alias.name}")
                if sub in known:
                    yield sub
                    continue
                yield from _ours(module, known)


def ours(module: str) -> str | None:
    """``module`` by the folder that holds it (``diplomat.engine.map`` -> ``engine.map``), or
    None if it is not ours. The code imports our modules through the one import name
    ``diplomat``; a bare ``engine.map`` is ours too, and :func:`bare_imports` refuses it."""
    if module == "diplomat" or module.startswith("diplomat."):
        module = module.removeprefix("diplomat").removeprefix(".")
        return module or None
    return module if module.split(".")[0] in PACKAGES else None


def _ours(module: str, known: set[str]) -> Iterator[str]:
    mine = ours(module)
    if mine is None:
        return
    parts = mine.split(".")
    # The longest prefix that is one of our modules.
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in known:
            yield candidate
            return


def graph() -> dict[str, set[str]]:
    mods = modules()
    known = set(mods)
    return {
        name: {dep for dep in imports_of(name, path, known) if dep != name}
        for name, path in mods.items()
    }


def top_level_packages(root: Path) -> set[str]:
    """Every directory at ``root`` that holds Python code (hidden ones and the venv aside)."""
    return {
        d.name
        for d in root.iterdir()
        if d.is_dir() and not d.name.startswith(".") and any(d.glob("*.py"))
    } | {p.stem for p in root.glob("*.py")}


def wrong_imports(
    deps: Mapping[str, set[str]], allowed: Mapping[str, set[str]], unrestricted: set[str]
) -> list[str]:
    """``module imports dep`` for every import of another package that the table does not
    allow."""
    wrong = []
    for name, imported in deps.items():
        package = name.split(".")[0]
        if package in unrestricted:
            continue
        for dep in imported:
            target = dep.split(".")[0]
            if target == package:
                continue
            may = allowed[package]
            if target in may or any(dep == a or dep.startswith(a + ".") for a in may):
                continue
            wrong.append(f"{name} imports {dep}")
    return sorted(wrong)


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def negotiator_imports(deps: Mapping[str, set[str]]) -> list[str]:
    """``module imports dep`` for every import of the negotiator's of a bot, a core or a
    map."""
    wrong = []
    for name, imported in deps.items():
        if not _within(name, NEGOTIATOR):
            continue
        for dep in imported:
            other_bots = _within(dep, "bots") and not _within(dep, NEGOTIATOR)
            if (other_bots and dep not in NEGOTIATOR_MAY) or any(_within(dep, m) for m in MAPS):
                wrong.append(f"{name} imports {dep}")
    return sorted(wrong)


def map_reads(path: Path) -> list[str]:
    """``path:line .name`` for every read of a map's attribute (``x.map``,
    ``x.supply_centres``, ``x.homes``) in ``path``."""
    return [
        f"{path}:{node.lineno} .{node.attr}"
        for node in ast.walk(ast.parse(path.read_text(), str(path)))
        if isinstance(node, ast.Attribute) and node.attr in MAP_ATTRIBUTES
    ]


def package_graph(allowed: Mapping[str, set[str]]) -> dict[str, set[str]]:
    """The table as a graph of packages ("bots.registry" counts as bots)."""
    return {p: {a.split(".")[0] for a in may} - {p} for p, may in allowed.items()}


def test_every_package_imports_only_downwards() -> None:
    wrong = wrong_imports(graph(), ALLOWED, UNRESTRICTED)
    assert not wrong, "imports against the layout:\n" + "\n".join(wrong)


def test_the_negotiator_imports_no_bot_and_no_map() -> None:
    deps = graph()
    wrong = negotiator_imports(deps)
    assert not wrong, "the negotiator must ask its core, not import:\n" + "\n".join(wrong)
    package = ROOT / "bots" / "negotiator"
    reads = [found for path in sorted(package.rglob("*.py")) for found in map_reads(path)]
    assert not reads, "the negotiator must ask its core, not read the map:\n" + "\n".join(reads)
    # Each bot names its core by import (no "module:Class" string), so the graph sees the link.
    assert "bots.dumbbot.core" in deps["bots.dumbbot"]
    assert "bots.bordeaux.core" in deps["bots.bordeaux"]


def test_the_checker_sees_a_negotiator_that_imports_a_bot_or_reads_the_map(
    tmp_path: Path,
) -> None:
    fake = {
        "bots.negotiator.negotiator": {"bots.negotiator.core", "bots.press", "bots.dumbbot"},
        "bots.negotiator.core": {"bots.base", "engine.map", "engine.orders"},
        "bots.negotiator.agreements": {"protocol.agreements", "bots.bordeaux.core"},
        "bots.negotiator.trust": {"protocol.mdf"},
        "bots.dumbbot.core": {"bots.negotiator.core", "engine.map", "bots.dumbbot.bot"},
    }
    assert negotiator_imports(fake) == [
        "bots.negotiator.agreements imports bots.bordeaux.core",
        "bots.negotiator.core imports engine.map",
        "bots.negotiator.negotiator imports bots.dumbbot",
        "bots.negotiator.trust imports protocol.mdf",
    ]
    source = tmp_path / "policy.py"
    source.write_text("def f(view):\n    n = len(view.powers)\n    return view.map.homes\n")
    assert sorted(map_reads(source)) == [f"{source}:3 .homes", f"{source}:3 .map"]


def test_importing_the_registry_loads_no_bot_no_transport_and_no_negotiator() -> None:
    # A fresh interpreter: what importing the registry (the tournament's and the web page's
    # one module of bots) loads by itself.
    code = "import sys, diplomat.bots.registry\nprint(*sorted(sys.modules))"
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    loaded = {m for m in map(ours, done.stdout.split()) if m}
    assert {"bots.registry", "bots.host"} <= loaded
    from diplomat.bots.registry import REGISTRY

    heavy = [
        "bots.transport",
        "bots.commandline",
        "bots.forkserver",
        "bots.corekit",
        NEGOTIATOR,
        *(ours(b.module) or b.module for b in REGISTRY.values()),
    ]
    assert [m for m in sorted(loaded) if any(_within(m, h) for h in heavy)] == []


def test_every_top_level_package_has_its_place_in_the_table() -> None:
    unknown = top_level_packages(ROOT) - PACKAGES - LINKS
    assert not unknown, f"packages the layout does not know (add them to ALLOWED): {unknown}"


def test_the_table_is_a_layering() -> None:
    # No package may import, through the table, a package that may import it: the packages
    # form layers, whatever the modules happen to import today.
    circles = _cycles(package_graph(ALLOWED))
    assert not circles, "the table lets packages import each other: " + str(circles)
    assert all(a.split(".")[0] in ALLOWED for may in ALLOWED.values() for a in may)


def test_no_import_circles() -> None:
    deps = graph()
    # Package __init__ modules are imported on the way to any module inside them; a circle
    # through one is still a circle, so they stay in the graph.
    circles = _cycles(deps)
    assert not circles, "modules importing each other in a circle:\n" + "\n".join(
        " -> ".join(c) for c in circles
    )


def _cycles(deps: dict[str, set[str]]) -> list[list[str]]:
    """One cycle per strongly connected component of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(deps.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(deps):
        if v not in index:
            visit(v)
    return found


def test_the_checker_sees_a_circle_and_a_wrong_import() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []
    deps = graph()
    assert "engine.state" in deps["engine.turn"]  # the graph does see real imports
    assert "server.app" in deps["web.hub"]
    # The engine importing the protocol, the server importing a bot, and a bot importing the
    # registry's package through a module other than the registry are all caught; what the
    # table allows is not.
    fake = {
        "engine.turn": {"engine.state", "protocol.codec"},
        "server.game": {"engine.turn", "bots.dumbbot"},
        "web.hub": {"bots.registry", "server.app"},
        "tournament.game": {"bots.dumbbot"},
        "cli.main": {"web.hub", "bots.dumbbot"},
    }
    assert wrong_imports(fake, ALLOWED, UNRESTRICTED) == [
        "engine.turn imports protocol.codec",
        "server.game imports bots.dumbbot",
        "tournament.game imports bots.dumbbot",
    ]


def test_the_checker_sees_an_unknown_package_and_a_table_that_is_no_layering(
    tmp_path: Path,
) -> None:
    (tmp_path / "engine").mkdir()
    (tmp_path / "engine" / "__init__.py").write_text("")
    (tmp_path / "newthing").mkdir()
    (tmp_path / "newthing" / "core.py").write_text("")
    (tmp_path / ".venv").mkdir()
    (tmp_path / ".venv" / "x.py").write_text("")
    (tmp_path / "docs").mkdir()
    (tmp_path / "script.py").write_text("")
    assert top_level_packages(tmp_path) == {"engine", "newthing", "script"}
    assert top_level_packages(tmp_path) - PACKAGES == {"newthing", "script"}
    # A table where the engine may import the protocol, which may import the engine.
    looping = {**ALLOWED, "engine": {"protocol"}}
    assert _cycles(package_graph(looping)) == [["engine", "protocol"]]
    assert _cycles(package_graph(ALLOWED)) == []


MAX_FUNCTION_LINES = 80
CODE = sorted(PACKAGES - {"tests", "bench"})  # (tests and benchmarks may run long)


def long_functions(path: Path, limit: int) -> list[str]:
    """``path:line name (n lines)`` for each function or method of ``path`` longer than
    ``limit`` lines, from its ``def`` (or first decorator) to its last line."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            length = (node.end_lineno or node.lineno) - first + 1
            if length > limit:
                out.append(f"{path}:{first} {node.name} ({length} lines)")
    return out


def test_no_function_is_longer_than_80_lines() -> None:
    long = [
        found
        for package in CODE
        for path in sorted((ROOT / package).rglob("*.py"))
        for found in long_functions(path, MAX_FUNCTION_LINES)
    ]
    assert not long, "functions to split into named pieces:\n" + "\n".join(long)


def test_the_length_check_sees_a_long_function(tmp_path: Path) -> None:
    body = "\n".join(f"        x{i} = {i}" for i in range(80))
    source = tmp_path / "long.py"
    source.write_text(
        f"def short():\n    pass\n\n\nclass A:\n    @staticmethod\n    def long():\n{body}\n"
    )
    assert long_functions(source, 80) == [f"{source}:6 long (82 lines)"]
    assert long_functions(source, 82) == []


# -- the server's public face ----------------------------------------------------------------

# A game's master belongs to its game task: outside server/, a game is read through its
# runner's public face (status(), map, table, watchers), never the master. Only this module,
# for white-box tests, may reach it; only the server's own tests may import it.
MASTER_ATTRIBUTES = {"master", "_master"}
MASTER_READER = "tests.server.masters"


def master_readers(mods: Mapping[str, Path]) -> list[str]:
    """``module:line reads .master`` for each module outside ``server`` (and
    :data:`MASTER_READER`) that reads a runner's master, and ``module imports server.game``
    for each outside ``server`` and ``tests.server`` that imports the game master's module."""
    found = []
    for name, path in sorted(mods.items()):
        if name == "server" or name.startswith("server."):
            continue
        tree = ast.parse(path.read_text(), str(path))
        if name != MASTER_READER:
            found += [
                f"{name}:{node.lineno} reads .{node.attr}"
                for node in ast.walk(tree)
                if isinstance(node, ast.Attribute) and node.attr in MASTER_ATTRIBUTES
            ]
        if not name.startswith("tests.server") and "server.game" in imports_of(
            name, path, set(mods)
        ):
            found.append(f"{name} imports server.game")
    return found


def test_no_module_outside_the_server_reads_the_game_master() -> None:
    found = master_readers(modules())
    assert not found, "read the game through GameRunner's public face:\n" + "\n".join(found)


def test_the_master_check_sees_a_reader(tmp_path: Path) -> None:
    files = {
        "server.app": "class GameRunner:\n    def map(self):\n        return self._master.map\n",
        "server.game": "class GameMaster: ...\n",
        "web.hub": "def f(runner):\n    return runner.status().started\n",
        "web.peek": "def f(runner):\n    x = 1\n    return runner.master.started\n",
        "tournament.game": "def f(r):\n    return getattr(r, 'x') or r._master\n",
        "tournament.made": "from server.game import GameMaster\n",
        "tests.server.masters": "def master_of(runner):\n    return runner._master\n",
        "tests.server.test_x": "from server.game import GameMaster\n",
        "tests.web.test_y": "from server import game\n",
    }
    mods = {}
    for name, text in files.items():
        path = tmp_path / f"{name}.py"
        path.write_text(text)
        mods[name] = path
    mods["server"] = tmp_path / "server.py"  # (the package itself: imports_of must know it)
    mods["server"].write_text("")
    assert master_readers(mods) == [
        "tests.web.test_y imports server.game",
        "tournament.game:2 reads ._master",
        "tournament.made imports server.game",
        "web.peek:3 reads .master",
    ]


# Folders of the checkout that are not installed under ``diplomat``: imported by their own
# name (the test clients and the bench share the example agent's choice of orders).
NOT_INSTALLED = {"tests", "bench", "examples"}


def bare_imports(path: Path) -> list[str]:
    """``line: import`` for each import in ``path`` of one of our packages by its folder's
    name (``from engine.map import ...``) instead of through ``diplomat``: installed, only
    ``diplomat`` exists, so such an import works in the checkout and fails for a user."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names = [node.module]
        else:
            continue
        out += [f"{node.lineno}: {n}" for n in names if n.split(".")[0] in PACKAGES - NOT_INSTALLED]
    return out


def test_every_import_goes_through_the_one_import_name() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{hit}"
        for path in modules().values()
        for hit in bare_imports(path)
    ]
    assert not found, "imports by folder name (import diplomat.<package> instead):\n" + "\n".join(
        found
    )


def test_the_bare_import_check_sees_one(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        "import trio\nfrom diplomat.engine.map import load_map\nfrom engine.state import X\n"
        "import server.app\nfrom . import sibling\n"
    )
    assert bare_imports(module) == ["3: engine.state", "4: server.app"]
    assert ours("diplomat.engine.map") == "engine.map" and ours("trio") is None


def bare_module_runs(text: str) -> list[str]:
    """Each ``-m PACKAGE.x`` in ``text`` (code or docs) that names one of our packages by its
    folder (``-m bots.dumbbot``, or in an argument list ``"-m", f"bots.{name}"``) instead of
    ``diplomat.bots.dumbbot``: that runs only from a checkout, and imports the code a second
    time under the folder's name."""
    ours_ = "|".join(sorted(PACKAGES - NOT_INSTALLED))
    pattern = rf"""-m["']?,?\s*f?["']?\b(?<!diplomat\.)(({ours_})\.[\w{{}}.]+)"""
    return [found.group(1) for found in re.finditer(pattern, text)]


def test_every_module_run_goes_through_the_one_import_name() -> None:
    texts = [*ROOT.glob("*.md"), *(ROOT / "docs").glob("*.md"), ROOT / "Dockerfile"]
    texts += [p for p in ROOT.rglob("*.py") if not ({".venv", "build"} & set(p.parts))]
    texts.remove(Path(__file__).resolve())  # (its own check's examples)
    found = [
        f"{path.relative_to(ROOT)}: -m {hit}"
        for path in texts
        for hit in bare_module_runs(path.read_text())
    ]
    assert not found, "runs by folder name (-m diplomat.<package>... instead):\n" + "\n".join(found)


def test_the_module_run_check_sees_one() -> None:
    text = (
        'python -m bots.dumbbot --port 1\n[sys.executable, "-m", f"bots.{name}"]\n'
        'python -m diplomat.bots.holdbot\n"-m", "diplomat.cli.main"\n'
    )
    assert bare_module_runs(text) == ["bots.dumbbot", "bots.{name}"]
