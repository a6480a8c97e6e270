"""One connection, one order: a client that sends its whole join in one write (NME, MDF,
YES (MAP), even its first orders), as DAIDE allows, has every message handled after the ones
before it and the replies in that order, however busy the machine; the same for OBS and IAM.

A real server on 127.0.0.1 (port 0) and real TCP clients in the text form; the hundred rounds
share one server, and run again beside processes that burn the CPU."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import trio

from diplomat.engine.map import load_map
from diplomat.protocol import messages
from diplomat.protocol.codec import parse_text
from diplomat.protocol.mdf import table_for_map
from diplomat.server.app import GameRunner, Server
from diplomat.server.logs import configure_logging
from diplomat.server.settings import GameSettings
from tests.server.masters import master_of

from .daide_client import PATIENCE, MakeServer, WireClient

ROUNDS = 100
TABLE = table_for_map(load_map("standard"))
# What each client writes at once: the join, and an order it cannot know is too early.
JOIN = ("NME ('p') ('v1')", "MDF", "YES (MAP ('standard'))", "SUB ((FRA AMY PAR) HLD)")


@contextmanager
def cpu_burners(n: int) -> Iterator[None]:
    """``n`` processes that spin on the CPU for as long as the block runs."""
    procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]
    try:
        yield
    finally:
        for p in procs:
            p.kill()
            p.wait()


@pytest.fixture(autouse=True)
def _logs_to_this_tests_stderr() -> None:
    """Warnings go to this test's stderr: a command-line test run before it in the same
    process may have left the logs on a stream that is closed now."""
    configure_logging("warning", stream=sys.stderr)


async def _pipelined(port: int, lines: tuple[str, ...]) -> WireClient:
    client = await WireClient.connect(port, text=True, table=TABLE)
    data = b"".join(client.conn.send(client_message(line)) for line in lines)
    await client.send_raw(data)
    return client


def client_message(line: str) -> Any:
    return parse_text(line, TABLE)


async def _replies_until(client: WireClient, kind: type) -> list[Any]:
    """Every message up to and including the first of ``kind``."""
    got: list[Any] = []
    with trio.fail_after(PATIENCE):
        while not got or not isinstance(got[-1], kind):
            event = await client.event()
            assert not isinstance(event, messages.Off), f"sent OFF after {got}"
            got.append(event)
    return got


async def _round(server: Server) -> None:
    """Seven clients pipeline their joins at once: all are answered in order and seated,
    and their game starts."""
    port = server.address[1]
    clients: list[WireClient] = []
    async with trio.open_nursery() as nursery:

        async def one() -> None:
            clients.append(await _pipelined(port, JOIN))

        for _ in range(7):
            nursery.start_soon(one)
    try:
        powers = set()
        for client in clients:
            got = await _replies_until(client, messages.Hlo)
            # Each reply in the order of what it answers: the NME, then the MDF.
            assert got[0] == messages.Yes(messages.Nme("p", "v1")), got
            assert isinstance(got[1], messages.Map), got
            assert isinstance(got[2], messages.Mdf), got
            assert not any(isinstance(r, messages.Rej) for r in got), got
            powers.add(got[-1].power)
        assert len(powers) == 7
    finally:
        for client in clients:
            await client.aclose()


async def _rounds(make_server: MakeServer) -> None:
    server = await make_server(GameSettings(max_year=1901, map="standard"))
    for _ in range(ROUNDS):
        await _round(server)


async def test_seven_pipelined_joins_start_a_game_a_hundred_times(
    make_server: MakeServer,
) -> None:
    await _rounds(make_server)


async def test_seven_pipelined_joins_under_load(make_server: MakeServer) -> None:
    with cpu_burners(2):
        await _rounds(make_server)


async def test_pipelined_observer_is_answered_in_order(make_server: MakeServer) -> None:
    server = await make_server(GameSettings(max_year=1901, map="standard"))
    port = server.address[1]
    with cpu_burners(1):
        for _ in range(20):
            client = await _pipelined(port, ("OBS", "MDF", "NOW"))
            try:
                got = await _replies_until(client, messages.Mdf)
                # YES (OBS) first (then the MAP it is given), then the MDF it asked for.
                assert got[0] == messages.Yes(messages.Obs()), got
                assert not any(isinstance(r, messages.Rej) for r in got), got
            finally:
                await client.aclose()


async def _wait_away(runner: GameRunner, power: str) -> None:
    """Until the game has seen ``power``'s player go (its seat awaits an IAM)."""
    with trio.fail_after(PATIENCE):
        while not master_of(runner).awaits(power):
            await trio.sleep(0.01)


async def test_pipelined_iam_is_answered_in_order(make_server: MakeServer) -> None:
    server = await make_server(GameSettings(max_year=1901, map="standard"), rejoin_grace=3600)
    port = server.address[1]
    clients = [await WireClient.connect(port, text=True, table=TABLE) for _ in range(7)]
    for i, c in enumerate(clients):
        await c.join(f"p{i}")
    hlos = [await c.expect(messages.Hlo) for c in clients]
    seat = hlos[0]
    runner = next(iter(server.games.values()))
    await clients[0].aclose()
    with cpu_burners(1):
        for _ in range(20):
            await _wait_away(runner, seat.power)
            iam = f"IAM ({seat.power}) ({seat.passcode})"
            client = await _pipelined(port, (iam, "NOW"))
            try:
                got = await _replies_until(client, messages.Now)
                assert got[0] == messages.Yes(messages.Iam(seat.power, seat.passcode)), got
                assert not any(isinstance(r, messages.Rej) for r in got), got
            finally:
                await client.aclose()
    for c in clients[1:]:
        await c.aclose()
