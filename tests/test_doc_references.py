"""Every name a docstring or a doc page points at exists.

A docstring's Sphinx roles (``:func:`x```, ``:class:`x```, ``:mod:`x```, ``:meth:``,
``:attr:``, ``:data:``, ``:exc:``) and its double-backquoted dotted names that start with one
of the project's packages (````engine.search.SearchPosition````) are resolved by importing:
a renamed class or a removed function leaves a broken pointer that reads as true. Doc pages
(``docs/*.md`` and the READMEs) are held to the same for their backquoted dotted names. Names
without a package are resolved where Sphinx would look: the enclosing class, then the module.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
# The packages whose docstrings are checked, and the ones a dotted name may start with.
CHECKED = ("engine", "protocol", "server", "replay", "mapdraw", "grammar")
PACKAGES = (*CHECKED, "bots", "web", "tournament", "cli")
_ANY_PACKAGE = "|".join(PACKAGES)
ROLE = re.compile(r":(?:func|class|mod|meth|data|attr|exc|obj):`~?\.?([\w.]+)`")
DOTTED = re.compile(rf"``~?((?:{_ANY_PACKAGE})(?:\.\w+)+)(?:\([^`]*\))?``")
IN_PAGE = re.compile(r"`([^`\n]+)`")
PAGE_DOTTED = re.compile(rf"\b((?:{_ANY_PACKAGE})(?:\.[A-Za-z_]\w*)+)")
FILE_SUFFIXES = (".py", ".md", ".json", ".jsonl", ".lark", ".toml")


def _modules() -> list[str]:
    names = []
    for pkg in CHECKED:
        names.append(pkg)
        path = ROOT / pkg
        names += [f"{pkg}.{info.name}" for info in pkgutil.iter_modules([str(path)])]
    return names


def _source(modname: str) -> str:
    # From the file, not inspect: a compiled engine module has no source to inspect.
    base = ROOT.joinpath(*modname.split("."))
    return (base / "__init__.py" if base.is_dir() else base.with_suffix(".py")).read_text()


def _resolves(name: str) -> bool:
    """Does ``package.module.attr...`` name a real object? (Docs name modules by their
    folders, ``engine.map``; installed, they are ``diplomat.engine.map``.)"""
    parts = ["diplomat", *name.split(".")]
    for i in range(len(parts), 1, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for part in parts[i:]:
            if not hasattr(obj, part):
                return isinstance(obj, type) and part in _instance_attributes(obj)
            obj = getattr(obj, part)
        return True
    return False


def _instance_attributes(cls: type) -> set[str]:
    """The names a class's methods (or its bases' in this project) assign on ``self``, and its
    annotated fields: attributes no class object carries."""
    names: set[str] = set()
    for klass in cls.__mro__:
        modname = klass.__module__.removeprefix("diplomat.")
        if modname.split(".")[0] not in PACKAGES:
            continue
        names |= set(getattr(klass, "__annotations__", {}))
        for node in ast.walk(ast.parse(_source(modname))):
            if isinstance(node, ast.ClassDef) and node.name == klass.__name__:
                names |= {
                    t.attr
                    for t in ast.walk(node)
                    if isinstance(t, ast.Attribute)
                    and isinstance(t.ctx, ast.Store)
                    and isinstance(t.value, ast.Name)
                    and t.value.id == "self"
                }
    return names


def _resolves_in(name: str, module: ModuleType, cls: type | None) -> bool:
    if name.split(".")[0] in PACKAGES:
        return _resolves(name)
    head, *rest = name.split(".")
    for scope in (cls, module):
        if scope is None or not hasattr(scope, head):
            continue
        obj = getattr(scope, head)
        for part in rest:
            if not hasattr(obj, part):
                return isinstance(obj, type) and part in _instance_attributes(obj)
            obj = getattr(obj, part)
        return True
    return cls is not None and not rest and head in _instance_attributes(cls)


def _docstrings(modname: str) -> list[tuple[str, type | None, str]]:
    """(where, enclosing class, docstring) of the module and of every class and function in it."""
    module = importlib.import_module(modname)
    found: list[tuple[str, type | None, str]] = []

    def visit(node: ast.AST, cls: type | None, where: str) -> None:
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                found.append((where, cls, doc))
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                inner = getattr(cls or module, child.name, None)
                visit(child, inner if isinstance(inner, type) else None, f"{where}.{child.name}")
            elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                visit(child, cls, f"{where}.{child.name}")

    visit(ast.parse(_source(modname)), None, modname)
    return found


@pytest.mark.parametrize("modname", _modules())
def test_every_reference_in_a_docstring_resolves(modname: str) -> None:
    module = importlib.import_module(modname)
    broken = []
    for where, cls, doc in _docstrings(modname):
        for name in ROLE.findall(doc):
            if not _resolves_in(name, module, cls):
                broken.append(f"{where}: {name}")
        for name in DOTTED.findall(doc):
            if not name.endswith(FILE_SUFFIXES) and not _resolves(name):
                broken.append(f"{where}: {name}")
    assert not broken, "docstrings point at names that do not exist:\n" + "\n".join(broken)


def _pages() -> list[Path]:
    return [
        *sorted(ROOT.glob("docs/*.md")),
        ROOT / "README.md",
        *sorted(ROOT.glob("*/README.md")),
        ROOT / "engine" / "RULES.md",
    ]


@pytest.mark.parametrize("page", _pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_dotted_name_in_a_doc_page_resolves(page: Path) -> None:
    broken = []
    for number, line in enumerate(page.read_text().splitlines(), 1):
        for code in IN_PAGE.findall(line):
            for name in PAGE_DOTTED.findall(code):
                # A placeholder (bots.NAME) or a file name is no object to import.
                if name.endswith(FILE_SUFFIXES) or "NAME" in name.split("."):
                    continue
                if not _resolves(name):
                    broken.append(f"line {number}: {name}")
    assert not broken, f"{page.name} names what does not exist:\n" + "\n".join(broken)


def test_a_broken_reference_is_found() -> None:
    # The checker itself: a name that was renamed away does not resolve, its new name does.
    assert not _resolves("engine.search.Position")
    assert _resolves("engine.search.SearchPosition.adjudicate")
    assert _resolves("server.game.GameMaster.patient")  # set in __init__, not on the class
    assert not _resolves("server.game.GameMaster.no_such_thing")
