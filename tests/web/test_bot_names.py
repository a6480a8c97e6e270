"""The bundled bots are named in one place, ``bots.registry`` (``REGISTRY``, and ``BUNDLED``
and ``NEGOTIATORS`` drawn from it): the page is sent the names, and no other module, script
or page spells the list again (a bot added to the registry appears everywhere at once)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from diplomat.bots.registry import BUNDLED, DEFAULT_BOT, NEGOTIATORS, REGISTRY
from tests.web.test_web_limits import MakeHub, request
from tests.web.test_web_limits import make_hub as make_hub  # a fixture

ROOT = Path(__file__).resolve().parent.parent.parent
# Everything that is not the bots' own package (where the registry and the bots live).
SCANNED = ("cli", "web", "tournament", "server", "mapdraw", "engine", "protocol", "replay")
SUFFIXES = (".py", ".js", ".html")


def bot_lists(path: Path, names: tuple[str, ...]) -> list[str]:
    """``path:line`` for each place that lists bundled bots: a line of a page naming two or
    more of them, a line of Python naming three or more (prose, a help text: two are an
    example, ``dumbbot randombot:6``), or in Python a tuple, list or set of strings naming two
    or more."""
    text = path.read_text()
    words = re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")\b")
    most = 3 if path.suffix == ".py" else 2
    found = [
        f"{path.name}:{i}"
        for i, line in enumerate(text.splitlines(), 1)
        if len(set(words.findall(line))) >= most
    ]
    if path.suffix == ".py":
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Tuple | ast.List | ast.Set):
                named = {
                    e.value
                    for e in node.elts
                    if isinstance(e, ast.Constant) and isinstance(e.value, str)
                } & set(names)
                if len(named) >= 2 and f"{path.name}:{node.lineno}" not in found:
                    found.append(f"{path.name}:{node.lineno}")
    return found


def test_no_module_or_page_lists_the_bundled_bots_again() -> None:
    found = [
        f"{path.relative_to(ROOT)}: {where}"
        for package in SCANNED
        for path in sorted((ROOT / package).rglob("*"))
        if path.suffix in SUFFIXES
        for where in bot_lists(path, BUNDLED)
    ]
    assert not found, "read bots.registry instead of listing the bots:\n" + "\n".join(found)


def test_the_check_sees_a_list(tmp_path: Path) -> None:
    names = ("holdbot", "randombot", "dumbbot", "bordeaux")
    page = tmp_path / "app.js"
    page.write_text('const x = 1;\nhint("holdbot");\nhint("(bordeaux; dumbbot) answer");\n')
    code = tmp_path / "hub.py"
    code.write_text('NEG = ("bordeaux", "dumbbot")\nEXAMPLE = "dumbbot randombot:6"\n')
    assert bot_lists(page, names) == ["app.js:3"]
    assert bot_lists(code, names) == ["hub.py:1"]


def test_the_registry_is_the_list() -> None:
    assert tuple(REGISTRY) == BUNDLED
    assert set(NEGOTIATORS) <= set(BUNDLED) and NEGOTIATORS
    assert DEFAULT_BOT in BUNDLED


async def test_the_page_is_sent_the_registry_names(make_hub: MakeHub) -> None:
    hub = await make_hub()
    status, data = await request(hub.address[1], "GET", "/api/options")
    assert status == 200
    assert data["bots"] == [*BUNDLED, *(f"{name} --negotiate" for name in NEGOTIATORS)]
    assert data["defaults"]["opponents"] == [DEFAULT_BOT] * 6
