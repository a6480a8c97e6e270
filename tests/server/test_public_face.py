"""What others see of a running game (``GameRunner``'s public face, see ``server/status.py``):
its status, map and token table, and watchers, called after every event and once more when the
game's task ends, so that whoever waits on one (``server.changes.Changes``) wakes for the end
too and never needs to poll."""

from __future__ import annotations

from collections.abc import Callable

import trio
import trio.testing

from diplomat.protocol import messages
from diplomat.server.app import GameRunner
from diplomat.server.changes import Changes
from diplomat.server.status import MasterStatus
from tests.server.daide_client import PATIENCE, MakeServer, WireClient


def _recorder(
    runner: GameRunner, seen: list[tuple[bool, bool]], changes: Changes | None = None
) -> Callable[[MasterStatus, float], None]:
    """A watcher that notes (started, the game's task ended) at each call, and wakes
    ``changes``'s waiters."""

    def look(status: MasterStatus, now: float) -> None:
        seen.append((status.started, runner.done.is_set()))
        if changes is not None:
            changes.poke()

    return look


async def test_the_runner_shows_its_game_without_its_master(make_server: MakeServer) -> None:
    server = await make_server()
    runner = server.create_game()
    assert runner.map.name == "standard" and len(runner.map.powers) == 7
    assert runner.table is not None and runner.name == f"game-{runner.id}"
    status = runner.status()
    assert not status.started and not status.finished and not status.halted
    assert status.processed == 0 and runner.passcode("FRA") is None


async def test_a_watcher_wakes_a_waiter_at_an_event_and_at_the_end(
    make_server: MakeServer,
) -> None:
    server = await make_server()
    runner = server.open_game
    assert runner is not None
    changes = Changes()
    seen: list[tuple[bool, bool]] = []
    runner.watch(changes, _recorder(runner, seen, changes))
    with trio.fail_after(PATIENCE):
        while not seen:  # the watcher's first call: the status when it was added
            await changes.wait()
        client = await WireClient.connect(server.address[1])
        await client.send(messages.Nme("joiner", "v1"))
        while not runner.status().joined:  # woken by the join, not by a timer
            await changes.wait()
        assert runner.status().joined == (None,)
    await client.aclose()


async def test_a_watcher_gets_a_last_call_even_when_it_came_too_late(
    make_server: MakeServer,
) -> None:
    server = await make_server()
    runner = server.create_game()
    early: list[tuple[bool, bool]] = []
    late: list[tuple[bool, bool]] = []
    runner.watch("early", _recorder(runner, early))
    runner.abandon()
    runner.watch("late", _recorder(runner, late))
    with trio.fail_after(PATIENCE):
        await runner.done.wait()
    # The early one saw the game forming, then its end; the late one (posted behind the
    # abandon, never handled by the game's task) only the end.
    assert early[0] == (False, False) and early[-1] == (False, True)
    assert late == [(False, True)]
    assert not runner.watchers


async def test_changes_wake_at_a_poke_or_at_the_time(
    autojump_clock: trio.testing.MockClock,
) -> None:
    changes = Changes()
    changes.poke()  # nobody waits: no loss, the waiter looks before it waits
    woken = trio.Event()

    async def waiter() -> None:
        await changes.wait()
        woken.set()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(waiter)
        await trio.testing.wait_all_tasks_blocked()
        assert not woken.is_set()
        changes.poke()
        with trio.fail_after(PATIENCE):
            await woken.wait()
    start = trio.current_time()
    await changes.wait(start + 5)
    assert trio.current_time() - start == 5
