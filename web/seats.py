"""The seats people hold in web games: a secret token per seat, and the game's line-up.

Kept in the server's database (its own tables, its own connection) so that after a restart a
page comes back to the same power with the same link, the server can start the game's bots
again, and a bot in an open seat finds the game's port where it was. The token is the only
key to the seat: it is in the link the page opens.
"""

from __future__ import annotations

import hmac
import json
import secrets
import sqlite3
import time
from dataclasses import dataclass

_SCHEMA = """
CREATE TABLE IF NOT EXISTS web_seats (
    token TEXT PRIMARY KEY,
    game_id INTEGER NOT NULL,
    power TEXT NOT NULL,
    lineup TEXT NOT NULL,              -- JSON: power -> bundled bot name, or "open"
    ready_phase TEXT,                  -- the phase in which the person last said "ready"
    created REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS web_seats_game ON web_seats (game_id);
CREATE TABLE IF NOT EXISTS web_open_ports (
    game_id INTEGER PRIMARY KEY,
    port INTEGER NOT NULL              -- where bots connect to take the game's open seats
);
"""


@dataclass
class SeatRow:
    token: str
    game_id: int
    power: str
    lineup: dict[str, str]
    ready_phase: str | None
    created: float


def open_tables(path: str, schema: str) -> sqlite3.Connection:
    """A connection of the web side's own to the server's database, with ``schema``'s tables
    made if missing."""
    db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    db.execute("PRAGMA busy_timeout=5000")
    db.executescript(schema)
    return db


class SeatBook:
    def __init__(self, path: str) -> None:
        self._db = open_tables(path, _SCHEMA)

    def close(self) -> None:
        self._db.close()

    def add(self, game_id: int, power: str, lineup: dict[str, str]) -> SeatRow:
        row = SeatRow(secrets.token_urlsafe(18), game_id, power, dict(lineup), None, time.time())
        self._db.execute(
            "INSERT INTO web_seats VALUES (?, ?, ?, ?, NULL, ?)",
            (row.token, game_id, power, json.dumps(lineup), row.created),
        )
        return row

    def find(self, game_id: int, token: str) -> SeatRow | None:
        """The seat the token opens in that game (compared in constant time)."""
        for row in self.of_game(game_id):
            if hmac.compare_digest(row.token.encode(), token.encode()):
                return row
        return None

    def of_game(self, game_id: int) -> list[SeatRow]:
        rows = self._db.execute(
            "SELECT token, game_id, power, lineup, ready_phase, created FROM web_seats "
            "WHERE game_id=? ORDER BY created",
            (game_id,),
        ).fetchall()
        return [_row(r) for r in rows]

    def all(self) -> list[SeatRow]:
        rows = self._db.execute(
            "SELECT token, game_id, power, lineup, ready_phase, created FROM web_seats "
            "ORDER BY game_id"
        ).fetchall()
        return [_row(r) for r in rows]

    def set_lineup(self, token: str, lineup: dict[str, str]) -> None:
        self._db.execute("UPDATE web_seats SET lineup=? WHERE token=?", (json.dumps(lineup), token))

    def remove(self, token: str) -> None:
        """The seat is no longer a person's (a bot took it): its link opens nothing."""
        self._db.execute("DELETE FROM web_seats WHERE token=?", (token,))

    def set_ready(self, token: str, phase: str | None) -> None:
        self._db.execute("UPDATE web_seats SET ready_phase=? WHERE token=?", (phase, token))

    def set_open_port(self, game_id: int, port: int) -> None:
        self._db.execute("INSERT OR REPLACE INTO web_open_ports VALUES (?, ?)", (game_id, port))

    def open_port(self, game_id: int) -> int | None:
        """The port the game's open seats last took connections on."""
        row = self._db.execute(
            "SELECT port FROM web_open_ports WHERE game_id=?", (game_id,)
        ).fetchone()
        return None if row is None else int(row[0])


def _row(r: tuple[str, int, str, str, str | None, float]) -> SeatRow:
    return SeatRow(r[0], r[1], r[2], json.loads(r[3]), r[4], r[5])


__all__ = ["SeatBook", "SeatRow", "open_tables"]
