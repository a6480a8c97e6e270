"""``diplomat serve``'s options for the package's clients: bad values are refused with the
option's name before anything starts."""

from __future__ import annotations

import pytest

from diplomat.dipnet.accounts import AccountError, Accounts
from tests.cli.test_commands import run


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--diplomacy-port", "70000"], "argument --diplomacy-port: 70000 is not a port"),
        (["--diplomacy-admin", "root"], "argument --diplomacy-admin: expected NAME:PASSWORD"),
        (["--diplomacy-admin", ":pw"], "argument --diplomacy-admin: expected NAME:PASSWORD"),
    ],
)
def test_bad_values_are_refused(
    capsys: pytest.CaptureFixture[str], argv: list[str], said: str
) -> None:
    code, _, err = run(capsys, "serve", *argv)
    assert code == 2 and said in err


def test_accounts_are_made_on_first_sign_in_and_keep_their_password() -> None:
    accounts = Accounts()
    accounts.add_admin("root:secret")
    token = accounts.sign_in("alice", "one")
    assert accounts.user(token).name == "alice" and not accounts.user(token).admin
    assert accounts.user(accounts.sign_in("root", "secret")).admin
    with pytest.raises(AccountError, match="wrong password"):
        accounts.sign_in("alice", "two")
    closed = Accounts(create_on_sign_in=False)
    with pytest.raises(AccountError, match="unknown user 'bob'"):
        closed.sign_in("bob", "pw")
    accounts.sign_out(token)
    with pytest.raises(AccountError, match="sign in first"):
        accounts.user(token)


def test_closed_accounts_sign_in_only_the_accounts_given() -> None:
    from diplomat.cli.diplomacy_options import make_accounts
    from diplomat.cli.main import build_parser

    argv = ["serve", "--diplomacy-port", "0", "--diplomacy-accounts", "closed"]
    argv += ["--diplomacy-user", "bob:b-pw", "--diplomacy-user", "cy:c-pw"]
    argv += ["--diplomacy-admin", "root:r-pw"]
    accounts = make_accounts(build_parser().parse_args(argv), None)
    assert not accounts.user(accounts.sign_in("bob", "b-pw")).admin
    assert accounts.user(accounts.sign_in("root", "r-pw")).admin
    with pytest.raises(AccountError, match="unknown user 'dan'"):
        accounts.sign_in("dan", "pw")
    with pytest.raises(AccountError, match="wrong password"):
        accounts.sign_in("cy", "b-pw")
    opened = make_accounts(build_parser().parse_args(["serve", "--diplomacy-port", "0"]), None)
    assert opened.user(opened.sign_in("dan", "pw")).name == "dan"
