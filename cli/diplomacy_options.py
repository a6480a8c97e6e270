"""``diplomat serve``'s options for the ``diplomacy`` package's clients: the port of its
network protocol and the administrator account (:mod:`dipnet`)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from diplomat.cli.options import port_number

if TYPE_CHECKING:  # (the package's side is imported only when its port is asked for)
    from diplomat.dipnet.accounts import Accounts
    from diplomat.dipnet.records import Records


def admin_spec(text: str) -> str:
    """An ``argparse`` type: ``NAME:PASSWORD``, both parts non-empty."""
    name, sep, password = text.partition(":")
    if not sep or not name or not password:
        raise argparse.ArgumentTypeError("expected NAME:PASSWORD with both parts non-empty")
    return text


def add_diplomacy_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("the diplomacy Python package's clients")
    g.add_argument(
        "--diplomacy-port",
        type=port_number,
        metavar="PORT",
        default=None,
        help="serve the diplomacy package's network protocol (its client's connect(host, "
        "PORT)) on this port (default: off; 0 = any free port)",
    )
    g.add_argument(
        "--diplomacy-admin",
        type=admin_spec,
        metavar="NAME:PASSWORD",
        default=None,
        help="an administrator account for the package's clients: the omniscient view of "
        "every game (on a restart, another password replaces the account's)",
    )
    g.add_argument(
        "--diplomacy-user",
        type=admin_spec,
        action="append",
        default=[],
        metavar="NAME:PASSWORD",
        help="an account for the package's clients (repeatable; on a restart, another "
        "password replaces the account's)",
    )
    g.add_argument(
        "--diplomacy-accounts",
        choices=["open", "closed"],
        default="open",
        help="open: a user unknown to the server is made on first sign-in, as the package's "
        "server does; closed: only the accounts given (--diplomacy-user, --diplomacy-admin) "
        "or kept in the database sign in (default: open)",
    )


def make_accounts(args: argparse.Namespace, records: Records | None) -> Accounts:
    """The accounts of ``--diplomacy-accounts``, ``--diplomacy-user`` and
    ``--diplomacy-admin``, beside those kept in ``records``."""
    from diplomat.dipnet.accounts import Accounts

    accounts = Accounts(create_on_sign_in=args.diplomacy_accounts == "open", records=records)
    for spec in args.diplomacy_user:
        accounts.given(spec)
    if args.diplomacy_admin is not None:
        accounts.add_admin(args.diplomacy_admin)
    return accounts


async def start_diplomacy(nursery: Any, server: Any, args: argparse.Namespace) -> None:
    """Start the package's port when ``--diplomacy-port`` is given and print its address."""
    if args.diplomacy_port is None:
        if args.diplomacy_admin is not None or args.diplomacy_user:
            print("note: diplomacy accounts have no effect without --diplomacy-port", flush=True)
        return
    from diplomat.dipnet.records import Records
    from diplomat.dipnet.service import DipnetService

    # Accounts and games kept in the server's database: a restart (kill -9 too) keeps them.
    records = Records(server.store)
    accounts = make_accounts(args, records)
    service = DipnetService(server, accounts, records)
    port = await nursery.start(service.run, args.diplomacy_port)
    print(f"diplomacy package clients: ws://{server.address[0]}:{port}", flush=True)
