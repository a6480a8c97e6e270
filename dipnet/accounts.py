"""Accounts of the package's clients: created on first sign-in (as the package's server does)
unless told otherwise, passwords kept as salted scrypt hashes, one token per sign-in. The
administrator named on the command line gets the package's omniscient view of every game.
With :class:`dipnet.records.Records` the accounts are kept in the server's database and read
back on a restart, and so are the tokens (as digests: see that module)."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass, field

from diplomat.dipnet.records import AccountRow, Records


class AccountError(ValueError):
    """A sign-in refused; ``kind`` is the package's exception name for it."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


@dataclass
class Account:
    name: str
    salt: bytes
    digest: bytes
    admin: bool = False


def _digest(password: str, salt: bytes) -> bytes:
    return hashlib.scrypt(password.encode(), salt=salt, n=2**12, r=8, p=1)


def _matches(account: Account, password: str) -> bool:
    return hmac.compare_digest(account.digest, _digest(password, account.salt))


@dataclass(frozen=True)
class Proof:
    """A sign-in's password checked, or a new account's digest made (:meth:`Accounts.prove`)."""

    name: str
    account: Account | None  # the account to make; None: an existing one, its password right


@dataclass
class Accounts:
    """Who may sign in, and the tokens handed out."""

    create_on_sign_in: bool = True
    users: dict[str, Account] = field(default_factory=dict)
    tokens: dict[str, str] = field(default_factory=dict)  # token -> user name
    records: Records | None = None  # where accounts are kept (None: in memory only)

    def __post_init__(self) -> None:
        if self.records is not None:
            for row in self.records.accounts():
                self.users[row.name] = Account(row.name, row.salt, row.digest, row.admin)

    def add(self, name: str, password: str, admin: bool = False) -> None:
        """A new account, or a new password (and admin flag) for an existing one: its
        tokens, signed in with the old password, are no longer good."""
        salt = secrets.token_bytes(16)
        self._keep(Account(name, salt, _digest(password, salt), admin))

    def _keep(self, account: Account) -> None:
        if account.name in self.users:
            for token in [t for t, user in self.tokens.items() if user == account.name]:
                del self.tokens[token]
        if self.records is not None:  # kept before it is used: nothing signed in is lost
            row = AccountRow(account.name, account.salt, account.digest, account.admin)
            self.records.save_account(row)
        self.users[account.name] = account

    def add_admin(self, spec: str) -> None:
        """``NAME:PASSWORD`` from the command line (``--diplomacy-admin``): see :meth:`given`."""
        self.given(spec, admin=True)

    def given(self, spec: str, admin: bool = False) -> None:
        """An account named on the command line, ``NAME:PASSWORD``. On a restart, the same
        account with the same password is kept as it is (its tokens still good); another
        password or role replaces it. ValueError for another form."""
        name, sep, password = spec.partition(":")
        if not sep or not name or not password:
            raise ValueError("expected NAME:PASSWORD with both parts non-empty")
        account = self.users.get(name)
        if account is None or account.admin != admin or not _matches(account, password):
            self.add(name, password, admin=admin)

    def sign_in(self, name: str, password: str) -> str:
        """A new token for ``name``; :class:`AccountError` if the password is wrong or the
        user unknown (when accounts are not created on sign-in)."""
        return self.admit(self.prove(name, password))

    def prove(self, name: str, password: str) -> Proof:
        """The costly half of a sign-in (scrypt), which only reads the accounts: it may run
        in a worker thread. :class:`AccountError` if the sign-in is refused."""
        if not name or not password:
            raise AccountError("UserException", "a user name and a password are required")
        account = self.users.get(name)
        if account is None:
            if not self.create_on_sign_in:
                raise AccountError("UserException", f"unknown user {name!r}")
            salt = secrets.token_bytes(16)
            return Proof(name, Account(name, salt, _digest(password, salt)))
        if not _matches(account, password):
            raise AccountError("PasswordException", "wrong password")
        return Proof(name, None)

    def admit(self, proof: Proof) -> str:
        """The other half: a new token for a proven sign-in, the account made if it is new,
        both kept (in the thread that owns the database, the games')."""
        name = proof.name
        if proof.account is not None:
            if name in self.users:  # made meanwhile by another sign-in with that name
                raise AccountError("UserException", f"user {name!r} was just made: sign in again")
            self._keep(proof.account)
        token = secrets.token_hex(16)
        if self.records is not None:
            self.records.save_token(token, name)
        self.tokens[token] = name
        return token

    def user(self, token: str) -> Account:
        name = self.tokens.get(token)
        if name is None and self.records is not None:  # signed in before a restart
            name = self.records.token_user(token)
            if name is not None:
                self.tokens[token] = name
        account = self.users.get(name) if name is not None else None
        if account is None:  # (or its account was removed since)
            raise AccountError("TokenException", "unknown token: sign in first")
        return account

    def sign_out(self, token: str) -> None:
        self.tokens.pop(token, None)
        if self.records is not None:
            self.records.drop_token(token)

    def remove(self, name: str) -> None:
        """Delete ``name``'s account and its tokens: accounts kept in memory only (a
        tournament's, made for one game). A sign-in proven meanwhile (in a worker thread)
        gets a token that :meth:`user` refuses."""
        assert self.records is None, "kept accounts are not removed"
        self.users.pop(name, None)
        for token in [t for t, user in self.tokens.items() if user == name]:
            del self.tokens[token]
