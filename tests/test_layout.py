"""The house rules of the layout: each package imports only the packages below it, and no two
modules import each other in a circle (directly or through others).

Every import counts: at the top of a module, inside a function, or under ``TYPE_CHECKING``.
The table is the README's "Layout" section; change both together.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
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
    "tournament": {"server", "engine", "bots.registry"},
    "web": {"server", "mapdraw", "engine", "protocol", "bots.registry"},
}
UNRESTRICTED = {"cli", "tests", "bench"}
PACKAGES = set(ALLOWED) | UNRESTRICTED


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
                sub = f"{module}.{alias.name}"
                if sub in known:
                    yield sub
                    continue
                yield from _ours(module, known)


def _ours(module: str, known: set[str]) -> Iterator[str]:
    parts = module.split(".")
    if parts[0] not in PACKAGES:
        return
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


def test_every_package_imports_only_downwards() -> None:
    wrong = []
    for name, deps in graph().items():
        package = name.split(".")[0]
        if package in UNRESTRICTED:
            continue
        for dep in deps:
            target = dep.split(".")[0]
            if target == package:
                continue
            allowed = ALLOWED[package]
            if target in allowed or any(dep == a or dep.startswith(a + ".") for a in allowed):
                continue
            wrong.append(f"{name} imports {dep}")
    assert not wrong, "imports against the layout:\n" + "\n".join(sorted(wrong))


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
