"""The game master on its own: events in, effects out, no socket, clock or database.

What it returns is carried out by the shell (these tests write its records to a real store, as
the shell does); a game rebuilt from those records is the game the players were told about."""

from __future__ import annotations

import ast
from pathlib import Path

from diplomat.engine.orders import Convoy, Move, Note, Order, SupportMove
from diplomat.engine.orderset import OrderSet
from diplomat.protocol import messages
from diplomat.protocol.codec import codec_for
from diplomat.protocol.tokens import STANDARD
from diplomat.server.effects import Effects, Tell, split
from diplomat.server.game import GameMaster
from diplomat.server.records import GameStarted, OrderGiven, PhaseProcessed, PlayerSeated
from diplomat.server.settings import GameSettings
from diplomat.server.status import MasterStatus
from diplomat.server.store import Store
from tests.boards import board

CODEC = codec_for(STANDARD)
ROOT = Path(__file__).resolve().parents[2]
# The game master and the modules it is made of; what none of them may import, even inside a
# function: a clock, sockets, the database, the async shell.
MASTER = (
    *("game", "clock", "draws", "seating", "status", "history", "ending", "press"),
    *("effects", "records"),
)
DOES_IO = {"asyncio", "socket", "sqlite3", "subprocess", "time", "trio", "structlog"}
DOES_IO |= {
    "diplomat.server.app",
    "diplomat.server.links",
    "diplomat.server.logs",
    "diplomat.server.store",
    "diplomat.server.guard",
}


def _sent(effects: Effects, client: int) -> list[object]:
    return [e.message for e in effects if isinstance(e, Tell) and e.client == client]


def _started(store: Store, settings: GameSettings) -> tuple[GameMaster, dict[str, int]]:
    """Seven players join and accept the map; the records go to ``store``."""
    gid = store.create_game(settings.model_dump())
    master = GameMaster(gid, settings)
    effects: Effects = []
    for client in range(1, 8):
        effects += master.add_player(client, f"p{client}", "1", now=0.0)
    for client in range(1, 8):
        effects += master.accept_map(client, now=0.0)
    records, _ = split(effects)
    store.write(gid, records)
    assert sum(isinstance(r, PlayerSeated) for r in records) == 7
    assert any(isinstance(r, GameStarted) for r in records)
    powers: dict[str, int] = {}
    for client in range(1, 8):
        hlo = next(msg for msg in _sent(effects, client) if isinstance(msg, messages.Hlo))
        assert hlo.power is not None
        powers[hlo.power] = client
    return master, powers


def _say(master: GameMaster, store: Store, client: int, text: str, now: float = 1.0) -> Effects:
    effects = master.handle(client, CODEC.parse_text(text), now)
    records, _ = split(effects)
    store.write(master.id, records)
    return effects


def test_an_order_is_a_record_before_its_thx(tmp_path: Path) -> None:
    store = Store(tmp_path / "db.sqlite")
    master, powers = _started(store, GameSettings(max_year=1901, map="standard"))
    effects = _say(master, store, powers["FRA"], "SUB ((FRA AMY PAR) MTO BUR)")
    kinds = [type(e).__name__ for e in effects]
    assert kinds.index("OrderGiven") < kinds.index("Tell")
    record = next(e for e in effects if isinstance(e, OrderGiven))
    assert (record.power, record.action) == ("FRA", "sub")
    assert CODEC.parse_text(record.body) == CODEC.parse_text("SUB ((FRA AMY PAR) MTO BUR)")
    thx = _sent(effects, powers["FRA"])[0]
    assert isinstance(thx, messages.Thx) and thx.note.value == "MBV"
    store.close()


def test_orders_from_another_notation_are_recorded_as_daide_writes_them(tmp_path: Path) -> None:
    """In-process seats (the package's clients, the web page) hand the master engine orders,
    which may say what DAIDE cannot: a support to a coast, a convoy with no route. The master
    records them in the form DAIDE writes; before, the record could not be written, the order
    was lost and a game with no deadline waited for it for ever."""
    store = Store(tmp_path / "db.sqlite")
    master, powers = _started(store, GameSettings(max_year=1901, move_time=60, map="standard"))
    master.state = board("RUS F GOB", "RUS A FIN", "ENG F NTH", "ENG A LON", phase="S1901M")
    master.book = OrderSet(master.state)
    gob, fin = master.state.units["GOB"], master.state.units["FIN"]
    nth, lon = master.state.units["NTH"], master.state.units["LON"]
    orders: dict[str, tuple[Order, ...]] = {
        "RUS": (SupportMove(fin, gob, "STP/SC"), Move(gob, "STP/SC")),
        "ENG": (Convoy(nth, lon, "BEL"), Move(lon, "BEL", True)),
    }
    bodies = []
    for power, given in orders.items():
        effects = master.handle(powers[power], messages.Sub(given), 1.0)
        store.write(master.id, split(effects)[0])
        notes = [m.note for m in _sent(effects, powers[power]) if isinstance(m, messages.Thx)]
        assert notes == [Note.MBV, Note.MBV]
        bodies += [e.body for e in effects if isinstance(e, OrderGiven)]
    written = [CODEC.parse_text(body) for body in bodies]
    assert CODEC.parse_text("SUB ((RUS AMY FIN) SUP (RUS FLT GOB) MTO STP)") in written
    assert CODEC.parse_text("SUB ((ENG AMY LON) CTO BEL VIA (NTH))") in written
    store.close()


def test_the_status_says_who_owes_orders_and_who_is_ready(tmp_path: Path) -> None:
    store = Store(tmp_path / "db.sqlite")
    master, powers = _started(store, GameSettings(max_year=1901, move_time=60, map="standard"))
    status = master.status()
    assert status.started and status.phase == "S1901M" and status.deadline == 60.0
    assert status.owed == frozenset(powers) == status.missing
    _say(master, store, powers["ENG"], "NOT (GOF)")
    for order in ("(ENG FLT LON) HLD", "(ENG FLT EDI) HLD", "(ENG AMY LVP) HLD"):
        _say(master, store, powers["ENG"], f"SUB ({order})")
    eng = master.status().of("ENG")
    assert eng.owes and eng.complete and eng.waiting and eng.missing
    assert len(eng.orders) == 3
    assert master.status().state_of("ENG") == "ordered"
    _say(master, store, powers["ENG"], "GOF")
    status = master.status()
    assert status.state_of("ENG") == "ready" and "ENG" not in status.missing
    master.disconnect(powers["ITA"], 2.0)
    assert master.status().of("ITA").away
    assert master.status().state_of("ITA") == "disorder"
    store.close()


def test_the_phase_is_recorded_first_and_a_restart_restores_the_same_game(
    tmp_path: Path,
) -> None:
    store = Store(tmp_path / "db.sqlite")
    master, powers = _started(store, GameSettings(max_year=1902, move_time=60, map="standard"))
    _say(master, store, powers["FRA"], "SUB ((FRA AMY PAR) MTO BUR)")
    assert master.next_wakeup() == 60.0
    last = master.on_time(60.0)  # the deadline: units without orders hold
    store.write(master.id, split(last)[0])
    first_record = next(i for i, e in enumerate(last) if isinstance(e, PhaseProcessed))
    first_ord = next(
        i for i, e in enumerate(last) if isinstance(e, Tell) and isinstance(e.message, messages.Ord)
    )
    assert first_record < first_ord
    assert master.status().phase == "F1901M" and master.status().processed == 1
    _say(master, store, powers["FRA"], "SUB ((FRA AMY BUR) MTO MUN)")
    _say(master, store, powers["GER"], "NOT (GOF)")

    again = GameMaster.restore(store.saved(master.id), now=5.0, grace=30.0)
    assert _comparable(again.status()) == _comparable(master.status())
    assert again.passcode("FRA") == master.passcode("FRA")
    assert [p.phase for p in again.history] == [p.phase for p in master.history]
    store.close()


def _comparable(status: MasterStatus) -> tuple[object, ...]:
    """The status without what a restart changes on purpose: every player is away, and the
    deadline starts again."""
    powers = tuple((p.power, p.owes, p.complete, p.waiting, p.orders) for p in status.powers)
    return (status.phase, status.processed, powers)


def test_the_game_master_imports_nothing_that_does_io() -> None:
    for name in MASTER:
        tree = ast.parse((ROOT / "server" / f"{name}.py").read_text())
        for node in _runtime_nodes(tree):
            if isinstance(node, ast.Import):
                found = {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module is not None:
                found = {node.module}
            else:
                continue
            bad = {f for f in found if f in DOES_IO or f.split(".")[0] in DOES_IO}
            assert not bad, f"server/{name}.py imports {bad}"


def _runtime_nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node but those under ``if TYPE_CHECKING:`` (imports for annotations only)."""
    out: list[ast.AST] = []
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            stack.extend(node.orelse)
            continue
        out.append(node)
        stack.extend(ast.iter_child_nodes(node))
    return out
