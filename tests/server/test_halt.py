"""The game master when the server stops (``GameMaster.halt``): the clock stops first, and the
disconnections that follow play no phase and put nobody in civil disorder; the time left is a
record, and a game restored from the store gets that time, not a new full period."""

from __future__ import annotations

from pathlib import Path

from diplomat.engine.orders import Hold
from diplomat.protocol import messages
from diplomat.server.effects import Effects, Tell, split
from diplomat.server.game import GameMaster
from diplomat.server.records import ClockStopped, PhaseProcessed, PlayerStatus
from diplomat.server.settings import GameSettings
from diplomat.server.store import Store

from .test_master import _started


def _orders(master: GameMaster, power: str) -> messages.Sub:
    return messages.Sub(tuple(Hold(u) for u in master.state.units_of(power)))


def _kept(store: Store, master: GameMaster, effects: Effects) -> Effects:
    records, _ = split(effects)
    store.write(master.id, records)
    return effects


def test_after_the_halt_nothing_is_processed_and_nobody_is_away(tmp_path: Path) -> None:
    store = Store(tmp_path / "db.sqlite")
    master, powers = _started(store, GameSettings(max_year=1901, move_time=900, map="standard"))
    assert master.clock.deadline == 900.0
    # Everyone but France has ordered; France has ordered one unit.
    for power, client in powers.items():
        if power != "FRA":
            _kept(store, master, master.handle(client, _orders(master, power), 10.0))
    army = next(u for u in master.state.units_of("FRA") if u.loc == "PAR")
    _kept(store, master, master.handle(powers["FRA"], messages.Sub((Hold(army),)), 20.0))

    halted = _kept(store, master, master.halt(100.0))
    assert halted == [ClockStopped("S1901M", 800.0)]
    assert master.halt(101.0) == []  # once
    assert master.next_wakeup() is None
    # Everyone is disconnected by the stop: the phase France has not finished is not
    # processed with its units holding, and nobody is in civil disorder for it.
    for client in powers.values():
        effects = master.disconnect(client, 102.0)
        assert not any(isinstance(e, PhaseProcessed | PlayerStatus | Tell) for e in effects)
    assert master.on_time(10_000.0) == []
    assert len(master.history) == 0
    assert {p.status for p in store.players(master.id)} == {"playing"}

    saved = store.saved(master.id)
    assert saved.remaining == 800.0
    again = GameMaster.restore(saved, now=5000.0, grace=30.0)
    assert again.state.phase.name == "S1901M"
    assert again.clock.deadline == 5800.0  # the time left, from the restart
    assert [o for o in again.book.orders_of("FRA")] == [Hold(army)]
    store.close()


def test_the_time_left_belongs_to_its_phase(tmp_path: Path) -> None:
    """A game stopped in one phase and processed after the restart: the next phase gets its
    full period (the stored time left was for the phase it was stored in)."""
    store = Store(tmp_path / "db.sqlite")
    master, _ = _started(store, GameSettings(max_year=1902, move_time=900, map="standard"))
    _kept(store, master, master.halt(300.0))
    again = GameMaster.restore(store.saved(master.id), now=1000.0, grace=0.0)
    assert again.clock.deadline == 1600.0
    _kept(store, again, again.on_time(1600.0))  # the deadline: S1901M is processed
    assert again.state.phase.name == "F1901M"
    later = GameMaster.restore(store.saved(master.id), now=2000.0, grace=0.0)
    assert later.state.phase.name == "F1901M" and later.clock.deadline == 2900.0
    store.close()


def test_a_clock_paused_for_an_absent_player_keeps_its_time(tmp_path: Path) -> None:
    """DSD: the clock was already paused when the server stopped; its time left is stored."""
    store = Store(tmp_path / "db.sqlite")
    master, powers = _started(
        store, GameSettings(max_year=1901, move_time=900, dsd=True, map="standard")
    )
    _kept(store, master, master.disconnect(powers["ENG"], 50.0))  # paused with 850 s left
    assert master.clock.paused_remaining == 850.0
    assert _kept(store, master, master.halt(400.0)) == [ClockStopped("S1901M", 850.0)]
    again = GameMaster.restore(store.saved(master.id), now=1000.0, grace=30.0)
    # Everyone is away after a restart: in a DSD game the clock waits, with 850 s.
    assert again.clock.deadline is None and again.clock.paused_remaining == 850.0
    store.close()
