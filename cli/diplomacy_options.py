"""``diplomat serve``'s options for the ``diplomacy`` package's clients: the port of its
network protocol and the administrator account (:mod:`dipnet`)."""

from __future__ import annotations

import argparse
from typing import Any

from diplomat.cli.options import port_number


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
        "every game (other users are created when they first sign in; on a restart, this "
        "replaces that account's password)",
    )


async def start_diplomacy(nursery: Any, server: Any, args: argparse.Namespace) -> None:
    """Start the package's port when ``--diplomacy-port`` is given and print its address."""
    if args.diplomacy_port is None:
        if args.diplomacy_admin is not None:
            print("note: --diplomacy-admin has no effect without --diplomacy-port", flush=True)
        return
    from diplomat.dipnet.accounts import Accounts
    from diplomat.dipnet.records import Records
    from diplomat.dipnet.service import DipnetService

    # Accounts and games kept in the server's database: a restart (kill -9 too) keeps them.
    records = Records(server.store)
    accounts = Accounts(records=records)
    if args.diplomacy_admin is not None:  # (on a restart: that account's new password)
        accounts.add_admin(args.diplomacy_admin)
    service = DipnetService(server, accounts, records)
    port = await nursery.start(service.run, args.diplomacy_port)
    print(f"diplomacy package clients: ws://{server.address[0]}:{port}", flush=True)
