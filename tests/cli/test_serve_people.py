"""``serve --play`` once per person, and ``--public-url``: checked before the server starts
(one line on stderr, exit status 2), and the links printed with the public address."""

from __future__ import annotations

import argparse
import random
from pathlib import Path

import pytest

from diplomat.cli.web_options import game_spec, proxy_address, public_url
from tests.cli.test_serve_web import _serve
from tests.web.conftest import start_server, stop_server

POWERS = ["AUS", "ENG", "FRA", "GER", "ITA", "RUS", "TUR"]


def _args(*plays: str, against: str | None = None) -> argparse.Namespace:
    return argparse.Namespace(
        play=list(plays),
        against=against,
        level=0,
        mtl=None,
        rtl=None,
        btl=None,
        max_year=None,
        pda=False,
    )


def test_several_plays_make_a_person_seat_each() -> None:
    spec = game_spec(_args("fra", "random", against="holdbot:5"), POWERS, random.Random(1))
    seats = spec["seats"]
    people = [p for p, kind in seats.items() if kind == "person"]
    assert spec["power"] == "FRA" and len(people) == 2 and "FRA" in people
    assert (
        sorted(seats) == POWERS
        and sorted(k for k in seats.values() if k != "person") == ["holdbot"] * 5
    )
    assert "opponents" not in spec
    one = game_spec(_args("FRA"), POWERS, random.Random(1))  # one person: as before
    assert one["opponents"] == ["dumbbot"] * 6 and "seats" not in one


@pytest.mark.parametrize(
    ("plays", "against", "why"),
    [
        (("FRA", "FRA"), None, "names a power twice"),
        (("FRA", "GER"), "dumbbot:6", "give 5 players, not 6"),
        (("random",) * 8, None, "8 people for 7 powers"),
    ],
)
def test_bad_plays_are_refused(plays: tuple[str, ...], against: str | None, why: str) -> None:
    with pytest.raises(ValueError, match=why):
        game_spec(_args(*plays, against=against), POWERS, random.Random(1))


def test_public_url_is_checked() -> None:
    assert public_url("https://dip.example.org") == "https://dip.example.org/"
    for bad in ("dip.example.org", "ftp://x/", "https://", "http://x/?a=1"):
        with pytest.raises(argparse.ArgumentTypeError):
            public_url(bad)


def test_serve_refuses_a_power_twice_before_starting(tmp_path: Path) -> None:
    done = _serve(tmp_path, "--web-port", "0", "--play", "FRA", "--play", "fra")
    assert done.returncode == 2 and "--play names a power twice" in done.stderr
    assert "Traceback" not in done.stderr
    done = _serve(tmp_path, "--web-port", "0", "--public-url", "nowhere")
    assert done.returncode == 2 and "--public-url" in done.stderr
    done = _serve(tmp_path, "--web-port", "0", "--web-proxy", "proxy.local")
    assert done.returncode == 2 and "'proxy.local' is not an IP address" in done.stderr
    assert proxy_address("[2001:db8::1]") == "2001:db8::/64"  # (keyed as the limits key it)


def test_links_carry_the_public_url(tmp_path: Path) -> None:
    server = start_server(
        tmp_path / "public.sqlite",
        "--play", "ENG", "--play", "TUR", "--against", "holdbot:5",
        "--public-url", "https://dip.example.org/",
    )  # fmt: skip
    try:
        links = [x for x in server.lines if "your game" in x]
        assert len(links) == 2
        assert all("https://dip.example.org/game/" in x for x in links), links
    finally:
        stop_server(server)
