"""What the ``diplomacy`` package's port keeps in the server's database, so that a restarted
``diplomat serve`` (``kill -9`` too) still knows it: the accounts (salted scrypt digests, never
a password) and each game a package client created (its server game, rules, deadline, created
time, DAIDE port, and which user controls which power). The games themselves (positions,
orders, results, press, passcodes) are the server's own records (:mod:`server.store`).

Sign-in tokens are kept too, as SHA-256 digests (a copy of the database gives no working
token; a token is 128 random bits, so no salt or slow hash is needed), with the games each
token joined and as what: the package's client library reconnects by itself and carries on
with its token, so a client that stays up while the server restarts plays on."""

from __future__ import annotations

import hashlib
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
CREATE TABLE IF NOT EXISTS dipnet_tokens (
    digest TEXT PRIMARY KEY,           -- SHA-256 of the token, hex
    user TEXT NOT NULL REFERENCES dipnet_accounts(name)
);
CREATE TABLE IF NOT EXISTS dipnet_views (
    digest TEXT NOT NULL REFERENCES dipnet_tokens(digest),
    game_id INTEGER NOT NULL REFERENCES dipnet_games(game_id),
    role TEXT NOT NULL,                -- a power's name, observer or omniscient
    PRIMARY KEY (digest, game_id, role)
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
        """Kept, replacing an account of the same name (a new admin password, say), whose
        tokens (signed in with the old password) and their views are gone."""
        with transaction(self._db) as db:
            tokens = "SELECT digest FROM dipnet_tokens WHERE user=?"
            db.execute(f"DELETE FROM dipnet_views WHERE digest IN ({tokens})", (row.name,))
            db.execute("DELETE FROM dipnet_tokens WHERE user=?", (row.name,))
            db.execute(
                "INSERT INTO dipnet_accounts VALUES (?, ?, ?, ?) ON CONFLICT (name) DO UPDATE "
                "SET salt=excluded.salt, digest=excluded.digest, admin=excluded.admin",
                (row.name, row.salt, row.digest, int(row.admin)),
            )

    def accounts(self) -> list[AccountRow]:
        rows = self._db.execute(
            "SELECT name, salt, digest, admin FROM dipnet_accounts ORDER BY name"
        ).fetchall()
        return [AccountRow(n, bytes(s), bytes(d), bool(a)) for n, s, d, a in rows]

    # -- tokens and the games they joined ----------------------------------------------------

    def save_token(self, token: str, user: str) -> None:
        with transaction(self._db) as db:
            db.execute("INSERT INTO dipnet_tokens VALUES (?, ?)", (_digest(token), user))

    def token_user(self, token: str) -> str | None:
        row = self._db.execute(
            "SELECT user FROM dipnet_tokens WHERE digest=?", (_digest(token),)
        ).fetchone()
        return None if row is None else str(row[0])

    def drop_token(self, token: str) -> None:
        """The token signed out: it and its views are gone."""
        with transaction(self._db) as db:
            db.execute("DELETE FROM dipnet_views WHERE digest=?", (_digest(token),))
            db.execute("DELETE FROM dipnet_tokens WHERE digest=?", (_digest(token),))

    def save_view(self, token: str, game_id: int, role: str) -> None:
        with transaction(self._db) as db:
            db.execute(
                "INSERT OR IGNORE INTO dipnet_views VALUES (?, ?, ?)",
                (_digest(token), game_id, role),
            )

    def has_view(self, token: str, game_id: int, role: str) -> bool:
        row = self._db.execute(
            "SELECT 1 FROM dipnet_views WHERE digest=? AND game_id=? AND role=?",
            (_digest(token), game_id, role),
        ).fetchone()
        return row is not None

    def drop_views(self, token: str, game_id: int | None = None, role: str | None = None) -> None:
        """The token's views: all of them, or the one of ``game_id`` as ``role`` (left)."""
        sql = "DELETE FROM dipnet_views WHERE digest=?"
        args: tuple[str | int | None, ...] = (_digest(token),)
        if game_id is not None:
            sql, args = sql + " AND game_id=? AND role=?", (*args, game_id, role)
        with transaction(self._db) as db:
            db.execute(sql, args)

    # -- games ------------------------------------------------------------------------------

    def save_game(self, game: GameRecord) -> None:
        with transaction(self._db) as db:
            db.execute(
                "INSERT INTO dipnet_games VALUES (?, ?, ?, ?, ?, ?)",
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


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()
