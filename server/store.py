"""Persistence: games, players, every phase's state, orders with notes and results, and press.

SQLite by default (one file, WAL journal). Every phase transition is one transaction, and every
accepted order and relayed press message is written as it happens, so a server killed at any
moment restarts into the same games with nothing lost. Orders and press are stored in the DAIDE
text form; states as the engine's JSON.

The interface is small and synchronous on purpose: a game task owns its writes, each a few
statements, and PostgreSQL could sit behind the same methods later. A game's own facts come as
:mod:`server.records` values, which :meth:`Store.write` commits, an event's all in one
transaction; :meth:`Store.saved` reads back what a restarted game needs.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from diplomat.server.records import (
    ClockStopped,
    FlagSet,
    GameFinished,
    GameStarted,
    OrderGiven,
    PhaseProcessed,
    PlayerSeated,
    PlayerStatus,
    PressRelayed,
    Record,
)

SCHEMA_VERSION = 1
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    created REAL NOT NULL,
    status TEXT NOT NULL,              -- forming, active, finished
    settings TEXT NOT NULL,            -- GameSettings JSON
    tournament TEXT,                   -- tournament key, if the game belongs to one
    result TEXT,                       -- JSON: kind (solo, draw), powers, centres
    finished REAL
);
CREATE TABLE IF NOT EXISTS players (
    game_id INTEGER NOT NULL REFERENCES games(id),
    power TEXT NOT NULL,
    name TEXT NOT NULL,
    version TEXT NOT NULL,
    passcode INTEGER NOT NULL,
    label TEXT,                        -- the line-up label in a tournament
    status TEXT NOT NULL,              -- playing, disorder, crashed, eliminated
    eliminated INTEGER,                -- year of elimination
    PRIMARY KEY (game_id, power)
);
CREATE TABLE IF NOT EXISTS phases (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    phase TEXT NOT NULL,               -- S1901M ...
    state TEXT NOT NULL,               -- engine GameState JSON at the start of the phase
    created REAL NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS results (
    game_id INTEGER NOT NULL REFERENCES games(id),
    phase TEXT NOT NULL,
    seq INTEGER NOT NULL,
    power TEXT NOT NULL,
    ord TEXT NOT NULL,                 -- the DAIDE ORD message of the order
    PRIMARY KEY (game_id, phase, seq)
);
CREATE TABLE IF NOT EXISTS submissions (
    game_id INTEGER NOT NULL REFERENCES games(id),
    phase TEXT NOT NULL,
    seq INTEGER NOT NULL,
    power TEXT NOT NULL,
    action TEXT NOT NULL,              -- sub (an order), not (withdraw one), clear (all)
    body TEXT NOT NULL,                -- the order in DAIDE text, or ''
    note TEXT NOT NULL,
    PRIMARY KEY (game_id, phase, seq)
);
CREATE TABLE IF NOT EXISTS press (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    phase TEXT NOT NULL,
    sender TEXT NOT NULL,
    recipients TEXT NOT NULL,          -- space-separated powers
    body TEXT NOT NULL,                -- the press message in DAIDE text
    sent REAL NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS addresses (
    game_id INTEGER NOT NULL REFERENCES games(id),
    power TEXT NOT NULL,
    address TEXT NOT NULL,             -- where the power was played from (IPv6: its /64)
    seen REAL NOT NULL,
    PRIMARY KEY (game_id, power, address)
);
CREATE TABLE IF NOT EXISTS flags (
    game_id INTEGER NOT NULL REFERENCES games(id),
    phase TEXT NOT NULL,
    power TEXT NOT NULL,
    name TEXT NOT NULL,                -- wait (NOT GOF), draw, draw:POW POW
    PRIMARY KEY (game_id, phase, power, name)
);
CREATE TABLE IF NOT EXISTS clocks (
    game_id INTEGER PRIMARY KEY REFERENCES games(id),
    phase TEXT NOT NULL,               -- the phase in progress when the server stopped
    remaining REAL NOT NULL            -- seconds left on its deadline then
);
"""


@contextmanager
def transaction(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction on an autocommit connection: committed if the block ends,
    rolled back if anything (Ctrl-C included) escapes it.

    A KeyboardInterrupt can land just after ``BEGIN IMMEDIATE`` took the write lock but before
    the block starts; the lock is released then too, or every other connection to the file
    would find the database locked until this one closes."""
    try:
        db.execute("BEGIN IMMEDIATE")
        yield db
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


class StoreError(RuntimeError):
    """The database cannot be used (wrong file, newer schema, missing game)."""


@dataclass(frozen=True, slots=True)
class GameRow:
    id: int
    name: str
    created: float
    status: str
    settings: dict[str, Any]
    tournament: str | None
    result: dict[str, Any] | None
    finished: float | None
    phase: str | None  # latest phase name


@dataclass(frozen=True, slots=True)
class PlayerRow:
    power: str
    name: str
    version: str
    passcode: int
    label: str | None
    status: str
    eliminated: int | None


@dataclass(frozen=True, slots=True)
class Submission:
    power: str
    action: str
    body: str
    note: str


@dataclass(frozen=True, slots=True)
class PressRow:
    seq: int
    phase: str
    sender: str
    recipients: tuple[str, ...]
    body: str
    sent: float


@dataclass(frozen=True, slots=True)
class SavedGame:
    """What the store holds of one game: enough to rebuild it after a restart (the phase in
    progress, with the orders, flags given so far)."""

    row: GameRow
    players: list[PlayerRow]
    states: list[tuple[str, dict[str, Any]]]  # (phase, state JSON), first to last
    results: list[tuple[str, str, str]]  # (phase, power, ORD text)
    submissions: list[Submission]  # of the phase in progress
    flags: list[tuple[str, str]]  # (power, name) of the phase in progress
    remaining: float | None = None  # seconds its deadline had left when the server stopped


class Store:
    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.execute("PRAGMA busy_timeout=5000")
            self._db.executescript(_SCHEMA)  # (executescript commits by itself)
            with self._tx():
                row = self._db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
                if row is None:
                    self._db.execute(
                        "INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),)
                    )
                elif int(row[0]) > SCHEMA_VERSION:
                    raise StoreError(
                        f"{self.path} was written by a newer diplomat (schema {row[0]})"
                    )
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"cannot use {self.path} as a diplomat database: {exc}") from None

    def close(self) -> None:
        self._db.close()

    def _tx(self) -> AbstractContextManager[sqlite3.Connection]:
        return transaction(self._db)

    def extension(self, schema: str) -> sqlite3.Connection:
        """The database for a part of diplomat with tables of its own (the ``diplomacy``
        package's port keeps its accounts and games so): ``schema`` (``CREATE TABLE IF NOT EXISTS``
        statements) is created, and the connection returned, for that part's own tables only,
        written with :func:`transaction`. One file and one connection, so that a game and
        that part's record of it are in the same database, in memory as on disk."""
        try:
            self._db.executescript(schema)  # (executescript commits by itself)
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"cannot add tables to {self.path}: {exc}") from None
        return self._db

    # -- games ---------------------------------------------------------------------------

    def create_game(
        self, settings: dict[str, Any], name: str | None = None, tournament: str | None = None
    ) -> int:
        with self._tx() as db:
            cur = db.execute(
                "INSERT INTO games (name, created, status, settings, tournament) "
                "VALUES ('', ?, 'forming', ?, ?)",
                (time.time(), json.dumps(settings), tournament),
            )
            game_id = int(cur.lastrowid or 0)
            db.execute("UPDATE games SET name=? WHERE id=?", (name or f"game-{game_id}", game_id))
        return game_id

    def set_status(self, game_id: int, status: str) -> None:
        with self._tx() as db:
            db.execute("UPDATE games SET status=? WHERE id=?", (status, game_id))

    def games(self, tournament: str | None = None) -> list[GameRow]:
        sql = (
            "SELECT g.id, g.name, g.created, g.status, g.settings, g.tournament, g.result, "
            "g.finished, (SELECT phase FROM phases p WHERE p.game_id=g.id "
            "ORDER BY seq DESC LIMIT 1) FROM games g"
        )
        args: tuple[Any, ...] = ()
        if tournament is not None:
            sql += " WHERE g.tournament=?"
            args = (tournament,)
        rows = self._db.execute(sql + " ORDER BY g.id", args).fetchall()
        return [_game_row(r) for r in rows]

    def game(self, game_id: int) -> GameRow:
        for row in self._db.execute(
            "SELECT g.id, g.name, g.created, g.status, g.settings, g.tournament, g.result, "
            "g.finished, (SELECT phase FROM phases p WHERE p.game_id=g.id "
            "ORDER BY seq DESC LIMIT 1) FROM games g WHERE g.id=?",
            (game_id,),
        ):
            return _game_row(row)
        raise StoreError(f"no game {game_id} in {self.path}")

    # -- players ---------------------------------------------------------------------------

    def set_player(
        self,
        game_id: int,
        power: str,
        name: str,
        version: str,
        passcode: int,
        label: str | None = None,
    ) -> None:
        self.write(game_id, [PlayerSeated(power, name, version, passcode, label)])

    def set_player_status(
        self, game_id: int, power: str, status: str, eliminated: int | None = None
    ) -> None:
        with self._tx() as db:
            _set_status(db, game_id, power, status, eliminated)

    def add_address(self, game_id: int, power: str, address: str) -> None:
        """``power`` was played from ``address`` (trusted for its IAM: ``server.guard``)."""
        with self._tx() as db:
            db.execute(
                "INSERT OR REPLACE INTO addresses VALUES (?, ?, ?, ?)",
                (game_id, power, address, time.time()),
            )

    def addresses(self, game_id: int) -> list[tuple[str, str]]:
        """(power, address) the game's powers were played from, oldest first."""
        rows = self._db.execute(
            "SELECT power, address FROM addresses WHERE game_id=? ORDER BY seen", (game_id,)
        ).fetchall()
        return [(str(p), str(a)) for p, a in rows]

    def players(self, game_id: int) -> list[PlayerRow]:
        rows = self._db.execute(
            "SELECT power, name, version, passcode, label, status, eliminated FROM players "
            "WHERE game_id=? ORDER BY power",
            (game_id,),
        ).fetchall()
        return [PlayerRow(*r) for r in rows]

    # -- phases ----------------------------------------------------------------------------

    def start(self, game_id: int, phase: str, state: dict[str, Any]) -> None:
        """The game begins at ``state``."""
        self.write(game_id, [GameStarted(phase, state)])

    def record_phase(
        self,
        game_id: int,
        phase: str,
        ords: Sequence[tuple[str, str]],
        next_phase: str,
        next_state: dict[str, Any],
        result: dict[str, Any] | None = None,
        eliminated: Sequence[tuple[str, int]] = (),
    ) -> None:
        """One transaction: the processed phase's results (power, ORD text), the next state,
        eliminations, and the end of the game if ``result`` is given."""
        record = PhaseProcessed(
            phase, tuple(ords), next_phase, next_state, result, tuple(eliminated)
        )
        self.write(game_id, [record])

    def finish(self, game_id: int, result: dict[str, Any]) -> None:
        self.write(game_id, [GameFinished(result)])

    def states(self, game_id: int) -> list[tuple[str, dict[str, Any]]]:
        rows = self._db.execute(
            "SELECT phase, state FROM phases WHERE game_id=? ORDER BY seq", (game_id,)
        ).fetchall()
        return [(p, json.loads(s)) for p, s in rows]

    def state_times(self, game_id: int) -> list[float]:
        """When each of :meth:`states` was stored (seconds since the epoch), first to last."""
        rows = self._db.execute(
            "SELECT created FROM phases WHERE game_id=? ORDER BY seq", (game_id,)
        ).fetchall()
        return [float(t) for (t,) in rows]

    def results(self, game_id: int, phase: str | None = None) -> list[tuple[str, str, str]]:
        """(phase, power, ORD text) in adjudication order."""
        sql = "SELECT phase, power, ord FROM results WHERE game_id=?"
        args: tuple[Any, ...] = (game_id,)
        if phase is not None:
            sql += " AND phase=?"
            args += (phase,)
        return [(ph, p, o) for ph, p, o in self._db.execute(sql + " ORDER BY rowid", args)]

    # -- orders and flags of the phase in progress -----------------------------------------

    def add_submission(
        self, game_id: int, phase: str, power: str, action: str, body: str, note: str
    ) -> None:
        self.write(game_id, [OrderGiven(phase, power, action, body, note)])

    def submissions(self, game_id: int, phase: str) -> list[Submission]:
        rows = self._db.execute(
            "SELECT power, action, body, note FROM submissions WHERE game_id=? AND phase=? "
            "ORDER BY seq",
            (game_id, phase),
        ).fetchall()
        return [Submission(*r) for r in rows]

    def set_flag(self, game_id: int, phase: str, power: str, name: str, on: bool) -> None:
        self.write(game_id, [FlagSet(phase, power, name, on)])

    def flags(self, game_id: int, phase: str) -> list[tuple[str, str]]:
        rows = self._db.execute(
            "SELECT power, name FROM flags WHERE game_id=? AND phase=?", (game_id, phase)
        ).fetchall()
        return [(p, n) for p, n in rows]

    # -- press -----------------------------------------------------------------------------

    def add_press(
        self, game_id: int, phase: str, sender: str, recipients: Sequence[str], body: str
    ) -> None:
        self.write(game_id, [PressRelayed(phase, sender, tuple(recipients), body)])

    def press(self, game_id: int, after: int = -1) -> list[PressRow]:
        """The game's press in the order relayed (those with ``seq`` above ``after``: all, by
        default; the first is 0)."""
        rows = self._db.execute(
            "SELECT seq, phase, sender, recipients, body, sent FROM press WHERE game_id=? "
            "AND seq>? ORDER BY seq",
            (game_id, after),
        ).fetchall()
        return [PressRow(s, ph, snd, tuple(r.split()), b, t) for s, ph, snd, r, b, t in rows]

    # -- a game's own records, and what a restart reads back --------------------------------

    def write(self, game_id: int, records: Sequence[Record]) -> None:
        """Commit ``records`` of game ``game_id``, in order, in one transaction."""
        if not records:
            return
        with self._tx() as db:
            for record in records:
                _write(db, game_id, record, time.time())

    def saved(self, game_id: int) -> SavedGame:
        """Everything a restarted server needs to rebuild game ``game_id``."""
        row = self.game(game_id)
        states = self.states(game_id)
        phase = states[-1][0] if states else ""
        return SavedGame(
            row,
            self.players(game_id),
            states,
            self.results(game_id),
            self.submissions(game_id, phase),
            self.flags(game_id, phase),
            self.time_left(game_id, phase),
        )

    def time_left(self, game_id: int, phase: str) -> float | None:
        """The seconds ``phase`` had left on its deadline when the server last stopped in it
        (None: it did not stop in this phase, or the phase has no deadline)."""
        row = self._db.execute(
            "SELECT remaining FROM clocks WHERE game_id=? AND phase=?", (game_id, phase)
        ).fetchone()
        return None if row is None else float(row[0])


def _write(db: sqlite3.Connection, game_id: int, record: Record, now: float) -> None:
    """The statements that store one record."""
    match record:
        case PlayerSeated(power, name, version, passcode, label):
            db.execute(
                "INSERT INTO players VALUES (?, ?, ?, ?, ?, ?, 'playing', NULL) "
                "ON CONFLICT (game_id, power) DO UPDATE SET name=excluded.name, "
                "version=excluded.version, passcode=excluded.passcode, label=excluded.label, "
                "status='playing'",
                (game_id, power, name, version, passcode, label),
            )
        case PlayerStatus(power, status):
            _set_status(db, game_id, power, status, None)
        case GameStarted(phase, state):
            db.execute(
                "INSERT INTO phases VALUES (?, 0, ?, ?, ?)",
                (game_id, phase, json.dumps(state), now),
            )
            db.execute("UPDATE games SET status='active' WHERE id=?", (game_id,))
        case PhaseProcessed(phase, ords, next_phase, next_state, result, eliminated):
            db.executemany(
                "INSERT INTO results VALUES (?, ?, ?, ?, ?)",
                [(game_id, phase, i, p, text) for i, (p, text) in enumerate(ords)],
            )
            seq = db.execute(
                "SELECT COALESCE(MAX(seq), -1) + 1 FROM phases WHERE game_id=?", (game_id,)
            ).fetchone()[0]
            db.execute(
                "INSERT INTO phases VALUES (?, ?, ?, ?, ?)",
                (game_id, seq, next_phase, json.dumps(next_state), now),
            )
            for power, year in eliminated:
                _set_status(db, game_id, power, "eliminated", year)
            if result is not None:
                _finish(db, game_id, result, now)
        case GameFinished(result):
            _finish(db, game_id, result, now)
        case OrderGiven(phase, power, action, body, note):
            db.execute(
                "INSERT INTO submissions SELECT ?, ?, COALESCE(MAX(seq), -1) + 1, ?, ?, ?, ? "
                "FROM submissions WHERE game_id=? AND phase=?",
                (game_id, phase, power, action, body, note, game_id, phase),
            )
        case FlagSet(phase, power, name, on):
            if on:
                db.execute(
                    "INSERT OR IGNORE INTO flags VALUES (?, ?, ?, ?)", (game_id, phase, power, name)
                )
            else:
                db.execute(
                    "DELETE FROM flags WHERE game_id=? AND phase=? AND power=? AND name=?",
                    (game_id, phase, power, name),
                )
        case PressRelayed(phase, sender, recipients, body):
            db.execute(
                "INSERT INTO press SELECT ?, COALESCE(MAX(seq), -1) + 1, ?, ?, ?, ?, ? "
                "FROM press WHERE game_id=?",
                (game_id, phase, sender, " ".join(recipients), body, now, game_id),
            )
        case ClockStopped(phase, remaining):
            db.execute(
                "INSERT OR REPLACE INTO clocks VALUES (?, ?, ?)", (game_id, phase, remaining)
            )


def _set_status(
    db: sqlite3.Connection, game_id: int, power: str, status: str, eliminated: int | None
) -> None:
    db.execute(
        "UPDATE players SET status=?, eliminated=COALESCE(?, eliminated) "
        "WHERE game_id=? AND power=?",
        (status, eliminated, game_id, power),
    )


def _finish(db: sqlite3.Connection, game_id: int, result: dict[str, Any], now: float) -> None:
    db.execute(
        "UPDATE games SET status='finished', result=?, finished=? WHERE id=?",
        (json.dumps(result), now, game_id),
    )


def centre_counts(state: Mapping[str, Any]) -> dict[str, int]:
    """How many supply centres each power holds in a state as stored (the engine's JSON),
    powers that hold none included."""
    return {power: len(centres) for power, centres in state["centres"].items()}


def _game_row(r: Sequence[Any]) -> GameRow:
    return GameRow(
        id=r[0],
        name=r[1],
        created=r[2],
        status=r[3],
        settings=json.loads(r[4]),
        tournament=r[5],
        result=json.loads(r[6]) if r[6] else None,
        finished=r[7],
        phase=r[8],
    )
