"""A real ``diplomat serve`` on loopback, and Debian's Chromium driven by Playwright.

No browser is ever downloaded: the tests use /usr/bin/chromium, which the README's test
command installs. If it is missing the browser tests fail (they are never skipped in silence).
"""

from __future__ import annotations

import contextlib
import os
import queue
import re
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def chromium_path() -> str:
    path = os.environ.get("DIPLOMAT_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(path).exists():
        pytest.fail(
            "Chromium is not installed: the README's test command installs Debian's chromium "
            "(apt-get install chromium)",
            pytrace=False,
        )
    return path


@dataclass
class LiveServer:
    proc: subprocess.Popen[str]
    url: str  # the web page
    daide_port: int
    db: Path
    lines: list[str]


def start_server(db: Path, *extra: str, session: bool = False) -> LiveServer:
    """``diplomat serve`` on free ports; returns once it has printed the page's URL.
    ``session``: in a session (and process group) of its own, as in a terminal, where Ctrl-C
    signals the whole group."""
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "diplomat.cli.main",
            "serve",
            "--port",
            "0",
            "--web-port",
            "0",
            "--db",
            str(db),
            "--log-level",
            "warning",
            *extra,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=ROOT,
        start_new_session=session,
    )
    assert proc.stdout is not None
    lines: list[str] = []
    got: queue.Queue[str] = queue.Queue()
    stdout = proc.stdout

    def read() -> None:  # keeps draining stdout so the server never blocks on it
        for line in stdout:
            got.put(line)

    threading.Thread(target=read, daemon=True).start()
    give_up = time.monotonic() + 120  # an outer limit: the loop ends at the printed URL
    url = None
    port = 0
    want_games = extra.count("--play")  # a link printed for each person
    while time.monotonic() < give_up:
        try:
            line = got.get(timeout=0.5)
        except queue.Empty:
            if proc.poll() is not None:
                break
            continue
        lines.append(line.strip())
        if m := re.search(r"serving DAIDE on [\d.]+:(\d+)", line):
            port = int(m.group(1))
        if m := re.search(r"web page: (\S+)", line):
            url = m.group(1)
        if url and sum("your game" in x for x in lines) >= want_games:
            return LiveServer(proc, url, port, db, lines)
    proc.kill()
    raise AssertionError(f"the server did not start: {lines}")


def your_game(server: LiveServer, power: str) -> tuple[int, str]:
    """The game and the seat's token in the link ``serve --play POWER`` printed."""
    line = next(x for x in server.lines if f"your game ({power})" in x)
    found = re.search(r"/game/(\d+)\?t=(\S+)", line)
    assert found is not None, line
    return int(found.group(1)), found.group(2)


def web_port(server: LiveServer) -> int:
    found = re.search(r":(\d+)/", server.url)
    assert found is not None, server.url
    return int(found.group(1))


def stop_server(server: LiveServer) -> None:
    server.proc.terminate()
    try:
        server.proc.wait(60)
    except subprocess.TimeoutExpired:
        server.proc.kill()
        server.proc.wait()


@pytest.fixture
def live_server(tmp_path: Path) -> Iterator[LiveServer]:
    server = start_server(tmp_path / "web.sqlite")
    yield server
    stop_server(server)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    path = chromium_path()
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            with contextlib.suppress(Exception):
                b.close()


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
