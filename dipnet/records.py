"""What the ``diplomacy`` package's port keeps in the server's database, so that a restarted
``diplomat serve`` (``kill -9`` too) still knows it: the accounts (salted scrypt digests, never
a password) and each game a package client created (its server game, rules, deadline, created
time, DAIDE port, and which user controls which power). The games themselves (positions,
orders, results, press, passcodes) are the server's own records (:mod:`server.store`).

Sign-in tokens are not kept: a token names a connection's views of games, which a restart
loses with the connections, and a token on disk would be a password in clear; the client
signs in again with its password."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field

from diplomat.server.store import Store, transaction

_SCHEMA = """
CREATE TABLE IF NOT EXISTS dipnet_accounts (
    name TEXT PRIMARY KEY,
    salt BLOB NOT NULL,
    digest BLOB NOT NULL,              -- scrypt of the password with the salt
    admin INTEGER NOT NULL             -- 1: the omniscient view of every game
);
CREATE TABLE IF NOT EXISTS dipnet_games (
    game_id INTEGER PRIMARY KEY REFERENCES games(id),
    map TEXT NOT NULL,                 -- our map's name
    rules TEXT NOT NULL,               -- the package's rules, a JSON list
    deadline INTEGER NOT NULL,         -- seconds, 0 for none
    created INTEGER NOT NULL,          -- microseconds since the epoch (the package's unit)
    daide_port INTEGER                 -- the game's own DAIDE port, opened again on a restart
);
CREATE TABLE IF NOT EXISTS dipnet_controllers (
    game_id INTEGER NOT NULL REFERENCES dipnet_games(game_id),
    power TEXT NOT NULL,               -- our power token
    user TEXT NOT NULL REFERENCES dipnet_accounts(name),
    PRIMARY KEY (game_id, power)
);
"""


@dataclass(frozen=True, slots=True)
class AccountRow:
    name: str
    salt: bytes
    digest: bytes
    admin: bool


@dataclass(slots=True)
class GameRecord:
    """One package game as kept: enough to rebuild its :class:`dipnet.games.PackageGame`."""

    game_id: int
    map: str
    rules: list[str]
    deadline: int
    created: int
    daide_port: int | None = None
    controllers: dict[str, str] = field(default_factory=dict)  # our power token -> user


class Records:
    """The package port's tables in the server's store (:meth:`server.store.Store.extension`)."""

    def __init__(self, store: Store) -> None:
        self._db: sqlite3.Connection = store.extension(_SCHEMA)

    # -- accounts ---------------------------------------------------------------------------

    def save_account(self, row: AccountRow) -> None:
        """Kept, replacing an account of the same name (a new admin password, say)."""
        with transaction(self._db) as db:
            db.execute(
                "INSERT OR REPLACE INTO dipnet_accounts VALUES (?, ?, ?, ?)",
                (row.name, row.salt, row.digest, int(row.admin)),
            )

    def accounts(self) -> list[AccountRow]:
        rows = self._db.execute(
            "SELECT name, salt, digest, admin FROM dipnet_accounts ORDER BY name"
        ).fetchall()
        return [AccountRow(n, bytes(s), bytes(d), bool(a)) for n, s, d, a in rows]

    # -- games ------------------------------------------------------------------------------

    def save_game(self, game: GameRecord) -> None:
        with transaction(self._db) as db:
            db.execute(
                "INSERT OR REPLACE INTO dipnet_games VALUES (?, ?, ?, ?, ?, ?)",
                (
                    game.game_id,
                    game.map,
                    json.dumps(game.rules),
                    game.deadline,
                    game.created,
                    game.daide_port,
                ),
            )

    def set_daide_port(self, game_id: int, port: int) -> None:
        with transaction(self._db) as db:
            db.execute("UPDATE dipnet_games SET daide_port=? WHERE game_id=?", (port, game_id))

    def set_controller(self, game_id: int, power: str, user: str) -> None:
        with transaction(self._db) as db:
            db.execute(
                "INSERT OR REPLACE INTO dipnet_controllers VALUES (?, ?, ?)",
                (game_id, power, user),
            )

    def games(self) -> list[GameRecord]:
        """Every package game kept, oldest first, with its controllers."""
        out = {
            gid: GameRecord(gid, m, json.loads(r), d, c, p)
            for gid, m, r, d, c, p in self._db.execute(
                "SELECT game_id, map, rules, deadline, created, daide_port FROM dipnet_games "
                "ORDER BY game_id"
            )
        }
        for gid, power, user in self._db.execute(
            "SELECT game_id, power, user FROM dipnet_controllers"
        ):
            out[gid].controllers[power] = user
        return list(out.values())
