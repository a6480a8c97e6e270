"""Faults stay where they start, on the web port (issue 29): bad JSON, numbers out of range or
not finite, a request whose handler fails, too many connections, running out of
descriptors, and visitors who would hold the machine's bots. Real servers on loopback, real
bot processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import structlog
import structlog.testing
import trio

from diplomat.web.hub import WebHub
from tests.web.conftest import ROOT
from tests.web.test_web_limits import GAME, JSON, MakeHub, request
from tests.web.test_web_limits import make_hub as make_hub  # a fixture
from tests.web.test_web_protocol import open_page
from tests.web.test_web_protocol import web as web  # a fixture


async def test_numbers_from_json_are_checked(make_hub: MakeHub) -> None:
    """The issue's reproduction (``"move_time": 1e999`` ended the server), and its kin: each
    is a 400 that says what was wrong, and the server goes on."""
    hub = await make_hub()
    port = hub.address[1]
    cases = [
        (b'{"move_time": 1e999}', "not a finite number"),
        (b'{"move_time": -1e999}', "not a finite number"),
        (b'{"move_time": NaN}', "NaN is not a number"),
        (b'{"retreat_time": Infinity}', "Infinity is not a number"),
        (b'{"move_time": -1}', "move_time: Input should be greater than or equal to 1"),
        (b'{"build_time": 99999999}', "build_time: Input should be less than or equal to 8191"),
        (b'{"max_year": 1' + b"0" * 5000 + b"}", "digits is out of range"),
        (b'{"level": 1e308}', "level: Unable to parse input string as an integer"),
        (b'{"level": 90000}', "level: Input should be less than or equal to 8000"),
        (b'{"move_time": 1.5}', "move_time: Input should be a valid integer"),
        (b'{"move_time": true}', "not true or false"),
        (b'{"opponents": "dumbbot"}', "opponents: Input should be a valid list"),
        (b'{"power": ["FRA"]}', "power: Input should be a valid string"),
        (b'{"colour": "red"}', "colour: Extra inputs are not permitted"),
        (b"[" * 5000 + b"]" * 5000, "nests 5000 deep"),
        (b'{"name": ' + b"[" * 9 + b"]" * 9 + b"}", "nests 10 deep"),
        (b"\xff\xfe", "not UTF-8"),
        (b'{"power": "FRA"', "not JSON"),
    ]
    for body, words in cases:
        status, data = await request(port, "POST", "/api/games", body, JSON)
        assert status == 400, (body[:40], status, data)
        assert words in data["error"], (body[:40], data)
    status, data = await request(
        port, "POST", "/api/games", b'{"name": "' + b"x" * 70_000 + b'"}', JSON
    )
    assert status == 413 and "larger than" in data["error"]
    # Still serving, and a sound request still makes a game.
    status, data = await request(port, "POST", "/api/games", GAME, JSON)
    assert status == 201 and data["power"] == "FRA"
    assert [g["id"] for g in hub.games()] == [data["game"]]


async def test_a_page_request_that_fails_is_a_notice(web: WebHub) -> None:
    """The issue's second reproduction: on the African map, Ethiopia proposes peace to the
    Ivory Coast at press level 10. Whatever the press code makes of it (until the standard
    map's table is gone from the level check, a RenderError inside the handler), that page
    gets an answer, and the game and the server go on: the person's next Ready plays the
    phase."""
    seat = web.create_game(
        {"map": "african2", "power": "ETH", "level": 10, "opponents": ["holdbot"] * 5}
    )
    page, cm = await open_page(web, seat.game_id, seat.token)
    try:
        view = await page.until(lambda v: v.get("stage") == "playing" and "press" in v)
        first = view["phase"]
        await page.until(lambda v: any(p["can"] for p in v["press"]["powers"]))
        await page.send(t="press", op="to", power="IVC")
        await page.until(lambda v: any(p["to"] for p in v["press"]["powers"]))
        await page.send(t="press", op="add", kind="pce")
        await page.until(lambda v: bool(v["press"]["parts"]))
        await page.send(t="press", op="send", how="and")
        await page.until(
            lambda v: (
                any("could not do that" in n["text"] for n in page.notices)
                or v["press"]["count"] > 0
            )
        )
        await page.send(t="ready", on=True, phase=first)
        await page.until(lambda v: v.get("phase") != first)
    finally:
        await cm.__aexit__(None, None, None)


async def test_a_handler_that_fails_is_one_notice_and_one_log_line(web: WebHub) -> None:
    """A real fault inside a page's request, whatever the press code does: the seats'
    database connection is gone when the person says Ready (its handler writes the ready
    phase there, after the GOF). The page gets a notice naming the failure, the server logs
    one line, and the game goes on to the next phase."""
    seat = web.create_game({"power": "FRA", "opponents": ["holdbot"] * 6})
    page, cm = await open_page(web, seat.game_id, seat.token)
    try:
        view = await page.until(lambda v: v.get("stage") == "playing" and "orders" in v)
        web.seats.close()
        with structlog.testing.capture_logs() as logs:
            await page.send(t="ready", on=True, phase=view["phase"])
            await page.until(lambda v: any("could not do that" in n["text"] for n in page.notices))
            await page.until(lambda v: v.get("phase") == "F1901M")
        failed = [e for e in logs if e["event"] == "web request failed"]
        assert len(failed) == 1 and failed[0]["request"] == "ready", logs
        assert "ProgrammingError" in failed[0]["error"]
        assert "ProgrammingError" in page.notices[-1]["text"]
    finally:
        await cm.__aexit__(None, None, None)


async def test_bad_frames_get_notices_and_the_seat_plays_on(web: WebHub) -> None:
    seat = web.create_game({"power": "FRA", "opponents": ["holdbot"] * 6})
    # A hello whose game number is not finite opens nothing (it ended the server once:
    # int(1e999) is an OverflowError).
    stray, stray_cm = await open_page(web, seat.game_id, seat.token)
    await stray.ws.send_message('{"t": "hello", "game": 1e999, "token": "x"}')
    await stray_cm.__aexit__(None, None, None)
    port = web.address[1]
    page, cm = await open_page(web, seat.game_id, seat.token)
    try:
        view = await page.until(lambda v: v.get("stage") == "playing" and "orders" in v)
        bad = [
            ('{"t": "click", "loc": 5}', "click: loc: Input should be a valid string"),
            ('{"t": "history", "index": 1e999}', "not a finite number"),
            (
                '{"t": "order", "text": "' + "A" * 5000 + '"}',
                "order: text: String should have at most",
            ),
            ('{"t": "nonsense"}', "unknown request 'nonsense'"),
            ('{"t": ' + "[" * 50 + "]" * 50 + "}", "nests 51 deep"),
            ("[1, 2]", "a request is a JSON object"),
            ('{"t": "press", "op": "explode"}', "press: op: Input should be"),
        ]
        for text, words in bad:
            page.notices.clear()
            await page.ws.send_message(text)
            await page.until(lambda v: bool(page.notices))
            assert words in page.notices[-1]["text"], (text[:40], page.notices)
            assert page.notices[-1]["level"] == "error"
        await page.send(t="ready", on=True, phase=view["phase"])
        await page.until(lambda v: v.get("phase") == "F1901M")
    finally:
        await cm.__aexit__(None, None, None)
    assert (await request(port, "GET", "/api/options"))[0] == 200


async def test_a_page_that_floods_its_seat_is_told_to_slow_down(web: WebHub) -> None:
    """A page's requests beyond its budget (100 at once, then 20 a second) are dropped, with
    a notice; the seat plays on from a page that keeps to it."""
    seat = web.create_game({"power": "FRA", "opponents": ["holdbot"] * 6})
    page, cm = await open_page(web, seat.game_id, seat.token)
    try:
        await page.until(lambda v: v.get("stage") == "playing" and "orders" in v)
        page.notices.clear()
        for _ in range(1000):
            await page.ws.send_message('{"t": "select", "loc": "PAR"}')
        await page.until(lambda v: any("Too many requests" in n["text"] for n in page.notices))
    finally:
        await cm.__aexit__(None, None, None)
    page, cm = await open_page(web, seat.game_id, seat.token)
    try:
        view = await page.until(lambda v: v.get("stage") == "playing" and "orders" in v)
        await page.send(t="ready", on=True, phase=view["phase"])
        await page.until(lambda v: v.get("phase") == "F1901M")
    finally:
        await cm.__aexit__(None, None, None)


async def _hold(port: int, n: int) -> list[trio.SocketStream]:
    return [await trio.open_tcp_stream("127.0.0.1", port) for _ in range(n)]


async def test_connections_are_capped_in_total_and_per_address(make_hub: MakeHub) -> None:
    hub = await make_hub(max_connections=50, connections_per_address=3)
    port = hub.address[1]
    held = await _hold(port, 3)
    with trio.fail_after(30):
        while hub.gate.open < 3:  # until the server has counted them
            await trio.sleep(0.01)
    status, data = await request(port, "GET", "/api/options")
    assert status == 429 and "Your address has 3 connections open" in data["error"]
    for s in held:
        await s.aclose()
    with trio.fail_after(30):
        while hub.gate.open:
            await trio.sleep(0.01)
    assert (await request(port, "GET", "/api/options"))[0] == 200
    # In total: another hub whose total is reached by one address refuses with a 503.
    hub2 = await make_hub(max_connections=2, connections_per_address=10)
    port2 = hub2.address[1]
    held = await _hold(port2, 2)
    with trio.fail_after(30):
        while hub2.gate.open < 2:
            await trio.sleep(0.01)
    status, data = await request(port2, "GET", "/api/options")
    assert status == 503 and "the most it allows" in data["error"]
    for s in held:
        await s.aclose()


async def test_web_games_and_bots_are_capped_per_address_and_in_total(make_hub: MakeHub) -> None:
    hub = await make_hub(games_per_address=1, max_bots=8, create_burst=100)
    port = hub.address[1]
    open_seats = json.dumps({"power": "FRA", "opponents": ["holdbot"] * 2 + ["open"] * 4})
    status, _ = await request(port, "POST", "/api/games", GAME, JSON)
    assert status == 201
    status, data = await request(port, "POST", "/api/games", open_seats.encode(), JSON)
    assert status == 429 and "already has 1 games running here" in data["error"]
    # The bots in total: six are running, a game with six more would pass the eight allowed.
    hub.games_per_address = 10
    status, data = await request(port, "POST", "/api/games", GAME, JSON)
    assert status == 503 and "runs 6 bots" in data["error"] and "allows 8" in data["error"]
    status, _ = await request(port, "POST", "/api/games", open_seats.encode(), JSON)
    assert status == 201  # two more bots fit
    assert sum(hub.bots.values()) == 8


EMFILE_SERVER = """
import resource, sys, trio, structlog
from diplomat.server.app import Server
from diplomat.server.settings import GameSettings
from diplomat.server.store import Store
from diplomat.web.hub import WebHub

async def main():
    srv = Server(Store(sys.argv[1]), GameSettings(map="standard"), port=0, open_games=False, seed=3)
    async with trio.open_nursery() as n:
        await n.start(srv.run)
        hub = WebHub(srv, max_connections=10_000, connections_per_address=10_000)
        await n.start(hub.run, 0)
        # Few descriptors from now on: the web port runs out of them before its caps.
        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        resource.setrlimit(resource.RLIMIT_NOFILE, (64, hard))
        print("port", hub.address[1], flush=True)

structlog.configure(logger_factory=structlog.PrintLoggerFactory(sys.stdout))
trio.run(main)
"""


def test_running_out_of_descriptors_is_one_log_line(tmp_path: Path) -> None:
    """At the process's descriptor limit, accept fails with EMFILE: one log line, accept
    retried later (not a busy loop, not a line per attempt), and once descriptors are free
    again the clients that waited are served."""
    import socket

    proc = subprocess.Popen(
        [sys.executable, "-c", EMFILE_SERVER, str(tmp_path / "e.sqlite")],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.stdout is not None
    try:
        lines: list[str] = []
        while not (line := proc.stdout.readline()).startswith("port "):
            assert line, lines  # (the server exited)
            lines.append(line)
        port = int(line.split()[1])
        socks = []
        for _ in range(200):  # more than the 64 descriptors: the backlog holds the rest
            s = socket.create_connection(("127.0.0.1", port), timeout=60)
            socks.append(s)
        give_up = time.monotonic() + 120
        while not any("cannot accept" in x for x in lines):
            assert time.monotonic() < give_up, lines
            lines.append(proc.stdout.readline())
        for s in socks[:-1]:
            s.close()
        last = socks[-1]  # it waited in the backlog: now it is served
        last.sendall(b"GET /api/options HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        answer = last.recv(100)
        assert answer.startswith(b"HTTP/1.1 200"), answer
        while not any("accepting again" in x for x in lines):
            assert time.monotonic() < give_up, lines
            lines.append(proc.stdout.readline())
        assert sum("cannot accept" in x for x in lines) == 1, lines
        last.close()
        assert proc.poll() is None
    finally:
        proc.kill()
        proc.wait()
