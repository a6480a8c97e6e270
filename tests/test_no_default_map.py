"""No default map below the command line: every function under ``cli/`` takes its game's token
table, map or power list, so a variant can never fall back to the standard map's by accident
(issue 29: ``level_error`` rendered an African proposal with the standard table and the server
died).

Read from the source (every module of every package below ``cli/``), two rules:

* no parameter, and no field of a class (a dataclass or pydantic field, ``Field(default=...)``
  included), defaults to the standard map: its name ``"standard"``, the standard token table
  (``protocol.tokens.STANDARD``, ``standard_table()``, ``TokenTable.standard()``), its powers or
  provinces, or a map loaded by default (``load_map()``, ``load_map("standard")``);
* no function body falls back to one: ``x or STANDARD``, ``x if ... else load_map("standard")``,
  ``settings.get("map", "standard")``. The one exception is named below with its reason.

The command line may choose ``standard`` as an option's default: it is the user's choice, made
once, and passed down. (DumbBot's ``params: DumbParams = STANDARD`` is a weight set, not a map:
its ``STANDARD`` is bots.dumbbot's own, which the name resolution tells apart.)
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from tests.test_layout import ALLOWED, modules

# The packages below cli/ (tests and bench may name the standard map: they are its users).
BELOW_CLI = set(ALLOWED)

# What names the standard map, by where it is defined.
STANDARD_NAMES = {
    "protocol.tokens.STANDARD",
    "protocol.tokens.STANDARD_POWERS",
    "protocol.tokens.STANDARD_PROVINCES",
    "protocol.STANDARD",
    "mapdraw.layout.STANDARD",
}
STANDARD_CALLS = {"protocol.tokens.standard_table", "protocol.standard_table"}
MAP_LOADERS = {"engine.map.load_map", "engine.load_map"}

# Fallbacks a file format itself defines, by (module, function).
ALLOWED_FALLBACKS = {
    # A variant's .mdf without a .rem is written in the standard map's names (the files'
    # convention, as an empty RM means the standard table on the wire); a .rem or a base map
    # replaces it.
    ("protocol.mapfiles", "import_variant"),
    # A cfg's ``judge=`` names the adjudication rules, not a map: without one, the standard
    # judge's (builds in home centres only; "chaos" is the other).
    ("protocol.mapfiles", "_variant_json"),
    # The ``diplomacy`` package's saved game without a "map" key is a game of its default
    # map, "standard" (its Game's default): the file's meaning, read as that package writes it.
    ("replay.games", "read_saved_game"),
}


class _Resolver:
    """Dotted names of what a module's names stand for (its imports and its own globals)."""

    def __init__(self, module: str, tree: ast.Module) -> None:
        self.names: dict[str, str] = {}
        for node in tree.body:
            if isinstance(node, ast.Assign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    if isinstance(t, ast.Name):
                        self.names[t.id] = f"{module}.{t.id}"
            elif isinstance(node, ast.FunctionDef | ast.ClassDef):
                self.names[node.name] = f"{module}.{node.name}"
        for imp in ast.walk(tree):
            if isinstance(imp, ast.ImportFrom) and imp.module and not imp.level:
                module = imp.module.removeprefix("diplomat.")  # names as the folders give them
                for alias in imp.names:
                    self.names[alias.asname or alias.name] = f"{module}.{alias.name}"
            elif isinstance(imp, ast.Import):
                for alias in imp.names:
                    local = alias.asname or alias.name.split(".")[0]
                    self.names[local] = alias.name if alias.asname else local

    def dotted(self, node: ast.expr) -> str | None:
        if isinstance(node, ast.Name):
            return self.names.get(node.id, node.id)
        if isinstance(node, ast.Attribute):
            base = self.dotted(node.value)
            return f"{base}.{node.attr}" if base else None
        return None

    def is_standard(self, node: ast.expr | None) -> bool:
        """Does ``node`` name the standard map, its table, powers or provinces?"""
        if node is None:
            return False
        if isinstance(node, ast.Constant):
            return isinstance(node.value, str) and node.value.lower() == "standard"
        if isinstance(node, ast.Name | ast.Attribute):
            return self.dotted(node) in STANDARD_NAMES
        if isinstance(node, ast.Call):
            called = self.dotted(node.func) or ""
            if called in STANDARD_CALLS or called.endswith("TokenTable.standard"):
                return True
            if called in MAP_LOADERS:
                return not node.args or self.is_standard(node.args[0])
            # Field(default=...), field(default=...): a field's default.
            if called.split(".")[-1] in ("Field", "field"):
                given = [k.value for k in node.keywords if k.arg == "default"]
                return any(self.is_standard(v) for v in [*node.args[:1], *given])
        return False


def default_map_parameters(module: str, source: str) -> Iterator[str]:
    """``module.function(parameter)`` (or ``module.Class.field``) for each default that is
    the standard map."""
    tree = ast.parse(source)
    r = _Resolver(module, tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            a = node.args
            positional = [*a.posonlyargs, *a.args]
            with_default = positional[len(positional) - len(a.defaults) :]
            pairs = list(zip(with_default, a.defaults, strict=True))
            keywords = zip(a.kwonlyargs, a.kw_defaults, strict=True)
            pairs += [(arg, d) for arg, d in keywords if d is not None]
            name = getattr(node, "name", "<lambda>")
            for arg, default in pairs:
                if r.is_standard(default):
                    yield f"{module}.{name}({arg.arg}) line {default.lineno}"
        elif isinstance(node, ast.ClassDef):
            for stmt in node.body:
                if (
                    isinstance(stmt, ast.AnnAssign)
                    and isinstance(stmt.target, ast.Name)
                    and r.is_standard(stmt.value)
                ):
                    yield f"{module}.{node.name}.{stmt.target.id} line {stmt.lineno}"


def standard_fallbacks(
    module: str, source: str, allowed: set[tuple[str, str]] = ALLOWED_FALLBACKS
) -> Iterator[str]:
    """``module.function line N`` for each fallback to the standard map in a function body
    (but those ``allowed``)."""
    tree = ast.parse(source)
    r = _Resolver(module, tree)
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        if (module, fn.name) in allowed:
            continue
        for node in ast.walk(fn):
            if not isinstance(node, ast.expr):
                continue
            found = False
            if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):
                found = any(r.is_standard(v) for v in node.values[1:])
            elif isinstance(node, ast.IfExp):
                found = r.is_standard(node.body) or r.is_standard(node.orelse)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                found = node.func.attr in ("get", "setdefault", "pop") and any(
                    r.is_standard(a) for a in node.args[1:2]
                )
            if found:
                yield f"{module}.{fn.name} line {node.lineno}"


def _below_cli() -> Iterator[tuple[str, str]]:
    for name, path in modules().items():
        if name.split(".")[0] in BELOW_CLI:
            yield name, Path(path).read_text(encoding="utf-8")


def test_no_parameter_below_the_cli_defaults_to_the_standard_map() -> None:
    found = [hit for name, src in _below_cli() for hit in default_map_parameters(name, src)]
    assert not found, "defaults to the standard map below cli/ (take the game's):\n" + "\n".join(
        found
    )


def test_no_function_below_the_cli_falls_back_to_the_standard_map() -> None:
    found = [hit for name, src in _below_cli() for hit in standard_fallbacks(name, src)]
    assert not found, "fallbacks to the standard map below cli/ (use the game's):\n" + "\n".join(
        found
    )


def test_the_checker_sees_every_kind_of_default_map() -> None:
    source = """
from diplomat.engine.map import load_map
from diplomat.protocol.tokens import STANDARD, STANDARD_POWERS, TokenTable, standard_table
from diplomat.protocol import tokens
from diplomat.bots.dumbbot import STANDARD as WEIGHTS
from pydantic import BaseModel, Field

def a(table=STANDARD): ...
def b(x, *, powers=STANDARD_POWERS): ...
def c(gmap=load_map("standard")): ...
def d(name: str = "standard"): ...
def e(table=tokens.STANDARD): ...
def f(table=standard_table()): ...
def g(table=TokenTable.standard()): ...
def fine(params=WEIGHTS, table=None, level=30, name="modern"): ...
class S(BaseModel):
    map: str = "standard"
    other: str = Field(default="standard")
    fine: str = Field(description="the map")
def h(gmap=None):
    gmap = gmap or load_map("standard")
    table = STANDARD if gmap is None else None
    name = settings.get("map", "standard")
    ok = settings.get("map") or fail()
"""
    params = [hit.split(" line")[0] for hit in default_map_parameters("m", source)]
    assert params == [
        "m.a(table)",
        "m.b(powers)",
        "m.c(gmap)",
        "m.d(name)",
        "m.e(table)",
        "m.f(table)",
        "m.g(table)",
        "m.S.map",
        "m.S.other",
    ]
    assert [hit.split(" line")[1] for hit in standard_fallbacks("m", source)] == [
        " 21",
        " 22",
        " 23",
    ]
    # The allowed fallbacks are still there (else an exception is stale: remove it).
    sources = dict(_below_cli())
    for module, function in ALLOWED_FALLBACKS:
        hits = standard_fallbacks(module, sources[module], allowed=set())
        assert any(hit.startswith(f"{module}.{function} ") for hit in hits), (module, function)
