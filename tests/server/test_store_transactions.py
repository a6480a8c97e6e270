"""A write transaction never leaves the database locked for other connections, even when
Ctrl-C lands between taking the lock and starting the block (a tournament stopped by Ctrl-C
then could not release its own lock: "database is locked")."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from diplomat.server.store import transaction


class _InterruptedAfterBegin(sqlite3.Connection):
    """A connection on which the KeyboardInterrupt arrives right after BEGIN returns."""

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
        cur = super().execute(sql, *args)
        if sql.startswith("BEGIN"):
            raise KeyboardInterrupt
        return cur


def _connect(path: Path, **kw: Any) -> sqlite3.Connection:
    return sqlite3.connect(path, isolation_level=None, timeout=0.1, **kw)


def test_an_interrupt_right_after_begin_releases_the_lock(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite"
    _connect(path).execute("CREATE TABLE t (x INTEGER)")
    interrupted = _connect(path, factory=_InterruptedAfterBegin)
    with pytest.raises(KeyboardInterrupt), transaction(interrupted):
        pytest.fail("the block must not run")
    assert not interrupted.in_transaction
    other = _connect(path)
    other.execute("INSERT INTO t VALUES (1)")  # would raise "database is locked"
    assert other.execute("SELECT x FROM t").fetchall() == [(1,)]


def test_an_error_in_the_block_rolls_back_and_a_clean_block_commits(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite"
    db = _connect(path)
    db.execute("CREATE TABLE t (x INTEGER)")
    with pytest.raises(ValueError), transaction(db):
        db.execute("INSERT INTO t VALUES (1)")
        raise ValueError
    with transaction(db):
        db.execute("INSERT INTO t VALUES (2)")
    assert _connect(path).execute("SELECT x FROM t").fetchall() == [(2,)]
