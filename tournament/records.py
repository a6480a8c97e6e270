"""The tournament's own records in the server's database: how each seat ended (played, crashed,
hung, and where its log is), the lock that lets one process at a time run a tournament, the
database's secret that seat seeds are keyed with, and copying a whole game between databases
(a Ray worker plays a game into a database of its own and the driver copies it into the
tournament's).

These use their own SQLite connection to the same file, beside the server's
:class:`~server.store.Store`; the tables are created on first use.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import socket
import sqlite3
import time
from dataclasses import dataclass
from typing import Any

from diplomat.server.store import transaction

_SCHEMA = """
CREATE TABLE IF NOT EXISTS tournament_seats (
    game_id INTEGER NOT NULL,
    power TEXT NOT NULL,
    seat INTEGER NOT NULL,             -- 1-based seat of the line-up or pool
    label TEXT NOT NULL,
    status TEXT NOT NULL,              -- played, crashed, hung
    phase TEXT,                        -- where a crashed or hung bot stopped
    detail TEXT,                       -- e.g. the exit status, or why it could not start
    log TEXT,                          -- the seat's log file, if it wrote anything
    PRIMARY KEY (game_id, power)
);
CREATE TABLE IF NOT EXISTS tournament_secret (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    key BLOB NOT NULL                  -- drawn once: seat seeds are keyed with it
);
CREATE TABLE IF NOT EXISTS tournament_locks (
    tournament TEXT PRIMARY KEY,
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    started REAL NOT NULL,
    beat REAL NOT NULL                 -- refreshed every few seconds while it runs
);
"""

STALE_AFTER = 60.0  # seconds without a heartbeat after which a lock is taken over
BEAT_EVERY = 10.0

# Tables holding a game's rows, in an order that respects their references.
GAME_TABLES = ("players", "phases", "results", "submissions", "press", "flags")


@dataclass(frozen=True)
class SeatRecord:
    power: str
    seat: int
    label: str
    status: str  # played, crashed, hung
    phase: str | None = None
    detail: str | None = None
    log: str | None = None


class TournamentLocked(RuntimeError):
    """Another process runs this tournament."""


class Records:
    def __init__(self, path: str) -> None:
        self.path = path
        self.db = sqlite3.connect(path, isolation_level=None, timeout=30, check_same_thread=False)
        self.db.execute("PRAGMA busy_timeout=30000")
        self.db.executescript(_SCHEMA)

    def close(self) -> None:
        self.db.close()

    def _tx(self) -> contextlib.AbstractContextManager[sqlite3.Connection]:
        return transaction(self.db)

    # -- seats -----------------------------------------------------------------------------

    def set_seats(self, game_id: int, seats: list[SeatRecord]) -> None:
        with self._tx() as db:
            db.executemany(
                "INSERT OR REPLACE INTO tournament_seats VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (game_id, s.power, s.seat, s.label, s.status, s.phase, s.detail, s.log)
                    for s in seats
                ],
            )

    def seats(self, game_id: int) -> dict[str, SeatRecord]:
        rows = self.db.execute(
            "SELECT power, seat, label, status, phase, detail, log FROM tournament_seats "
            "WHERE game_id=?",
            (game_id,),
        ).fetchall()
        return {r[0]: SeatRecord(*r) for r in rows}

    # -- the seed key ----------------------------------------------------------------------

    def secret(self) -> bytes:
        """This database's secret (32 random bytes, drawn on first use and kept): seat seeds
        are keyed with it, so a bot cannot compute another seat's seed from its own, while a
        tournament resumed (or played on Ray) from this database sees the same seeds."""
        with self._tx() as db:
            row = db.execute("SELECT key FROM tournament_secret WHERE id=1").fetchone()
            if row is None:
                key = secrets.token_bytes(32)
                db.execute("INSERT INTO tournament_secret VALUES (1, ?)", (key,))
                return key
            return bytes(row[0])

    def adopt_secret(self, key: bytes) -> None:
        """Use another database's secret: its tournaments' seeds are then this one's too
        (to play the same games in two databases, as the Ray tests compare runs)."""
        self.db.execute("INSERT OR REPLACE INTO tournament_secret VALUES (1, ?)", (key,))

    # -- the lock --------------------------------------------------------------------------

    def lock(self, key: str) -> None:
        """Take the tournament's lock, or raise :class:`TournamentLocked` naming the holder.
        A lock whose holder is a dead process on this machine, or that has had no heartbeat
        for a minute (a holder on another machine that died), is taken over."""
        host, pid, now = socket.gethostname(), os.getpid(), time.time()
        with self._tx() as db:
            row = db.execute(
                "SELECT host, pid, started, beat FROM tournament_locks WHERE tournament=?", (key,)
            ).fetchone()
            holder = None if row is None else (row[0], int(row[1]))
            if (
                row is not None
                and holder != (host, pid)
                and not _stale(row[0], int(row[1]), float(row[3]), now)
            ):
                when = time.strftime("%H:%M:%S", time.localtime(float(row[2])))
                raise TournamentLocked(
                    f"tournament {key} is already running (pid {row[1]} on {row[0]}, "
                    f"since {when}); wait for it to finish or stop it first"
                )
            db.execute(
                "INSERT OR REPLACE INTO tournament_locks VALUES (?, ?, ?, ?, ?)",
                (key, host, pid, now, now),
            )

    def beat(self, key: str) -> None:
        self.db.execute(
            "UPDATE tournament_locks SET beat=? WHERE tournament=? AND host=? AND pid=?",
            (time.time(), key, socket.gethostname(), os.getpid()),
        )

    def unlock(self, key: str) -> None:
        self.db.execute(
            "DELETE FROM tournament_locks WHERE tournament=? AND host=? AND pid=?",
            (key, socket.gethostname(), os.getpid()),
        )

    # -- copying games ---------------------------------------------------------------------

    def import_game(self, record: dict[str, Any], tournament: str) -> int:
        """Insert a game exported by :func:`export_game` (from another database) under a new
        id, in one transaction. Returns the new id."""
        game = dict(record["games"][0])
        game.pop("id")
        game["tournament"] = tournament
        with self._tx() as db:
            cols = list(game)
            cur = db.execute(
                f"INSERT INTO games ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
                [game[c] for c in cols],
            )
            gid = int(cur.lastrowid or 0)
            for table in GAME_TABLES:
                for row in record.get(table, []):
                    row = {**row, "game_id": gid}
                    cols = list(row)
                    db.execute(
                        f"INSERT INTO {table} ({', '.join(cols)}) "
                        f"VALUES ({', '.join('?' * len(cols))})",
                        [row[c] for c in cols],
                    )
        return gid


def export_game(path: str, game_id: int) -> dict[str, Any]:
    """Every row of one game, table by table, as plain dicts (picklable, JSON-able)."""
    db = sqlite3.connect(path)
    db.row_factory = sqlite3.Row
    try:
        out: dict[str, Any] = {
            "games": [dict(r) for r in db.execute("SELECT * FROM games WHERE id=?", (game_id,))]
        }
        for table in GAME_TABLES:
            out[table] = [
                dict(r) for r in db.execute(f"SELECT * FROM {table} WHERE game_id=?", (game_id,))
            ]
        return out
    finally:
        db.close()


def _stale(host: str, pid: int, beat: float, now: float) -> bool:
    if now - beat > STALE_AFTER:
        return True
    if host == socket.gethostname():
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        except PermissionError:
            return False
    return False
