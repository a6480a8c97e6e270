"""``diplomat serve``'s web options: errors are one line on stderr and an exit status."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

from tests.web.conftest import ROOT, start_server


def _serve(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "diplomat.cli.main", "serve", "--port", "0", "--db",
         str(tmp_path / "cli.sqlite"), "--log-level", "warning", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )  # fmt: skip


def test_web_port_in_use(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = _serve(tmp_path, "--web-port", str(port))
    assert done.returncode == 1
    assert f"web port {port}): Address already in use" in done.stderr
    assert "Traceback" not in done.stderr


def test_play_options_checked(tmp_path: Path) -> None:
    done = _serve(tmp_path, "--play", "FRA", "--no-web")
    assert done.returncode == 2 and "--play needs the web page" in done.stderr
    done = _serve(tmp_path, "--web-port", "0", "--play", "FRA", "--against", "dumbbot:x")
    assert done.returncode == 2 and "count after ':'" in done.stderr
    done = _serve(tmp_path, "--web-port", "0", "--play", "XYZ")
    assert done.returncode == 2 and "no power XYZ" in done.stderr
    done = _serve(tmp_path, "--web-port", "0", "--play", "FRA", "--against", "dumbbot:5")
    assert done.returncode == 2 and "choose 6 opponents" in done.stderr


def test_against_gives_negotiating_bots_and_level_sets_the_press() -> None:
    from diplomat.cli.web_options import parse_against

    assert parse_against("bordeaux --negotiate:2 dumbbot:3,open") == [
        "bordeaux --negotiate",
        "bordeaux --negotiate",
        "dumbbot",
        "dumbbot",
        "dumbbot",
        "open",
    ]
    assert parse_against("dumbbot --negotiate holdbot:5")[0] == "dumbbot --negotiate"


def test_play_at_a_press_level_the_page_does_not_offer_is_refused(tmp_path: Path) -> None:
    done = _serve(tmp_path, "--web-port", "0", "--play", "FRA", "--level", "40")
    assert done.returncode == 2 and "press level 40" in done.stderr
    done = _serve(tmp_path, "--web-port", "0", "--play", "FRA", "--against=--negotiate")
    assert done.returncode == 2 and "must follow a bot's name" in done.stderr


def test_play_errors_are_found_before_the_server_starts(tmp_path: Path) -> None:
    for args in (
        ["--play", "XYZ"],
        ["--play", "FRA", "--against", "dumbbot:5"],
        ["--play", "FRA", "--against", "nobot:6"],
        ["--play", "FRA", "--mtl", "99999"],
    ):
        done = _serve(tmp_path, "--web-port", "0", *args)
        assert done.returncode == 2 and done.stderr.startswith("error: "), done.stderr
        assert "diplomat serving" not in done.stdout
    # No server ran, so no game (not even the always-open one) was left behind.
    assert not (tmp_path / "cli.sqlite").exists()


def test_limits_are_set_on_the_command_line(tmp_path: Path) -> None:
    """``--max-connections`` caps the DAIDE port (one more is told OFF), ``--web-max-bots``
    the bot processes of web games (a game that would pass it is refused, naming the cap);
    values that are no count are one line and exit 2."""
    done = _serve(tmp_path, "--max-connections", "0")
    assert done.returncode == 2 and "'0': must be at least 1" in done.stderr
    done = _serve(tmp_path, "--byte-rate", "1e999")
    assert done.returncode == 2 and "must be a finite number" in done.stderr
    server = start_server(
        tmp_path / "limits.sqlite", "--max-connections", "1", "--web-max-bots", "3"
    )
    try:
        with socket.create_connection(("127.0.0.1", server.daide_port), timeout=60) as first:
            first.sendall(b"OBS\n")  # holds the one connection allowed
            with socket.create_connection(("127.0.0.1", server.daide_port), timeout=60) as more:
                more.sendall(b"NME ('x') ('1')\n")
                answer = b""
                while b"\n" not in answer:  # the refusal is one line, then the close
                    chunk = more.recv(4096)
                    if not chunk:
                        break
                    answer += chunk
                assert answer.startswith(b"OFF"), answer
        body = json.dumps({"power": "FRA", "opponents": ["holdbot"] * 6}).encode()
        request = urllib.request.Request(
            server.url + "api/games",
            data=body,
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        try:
            urllib.request.urlopen(request, timeout=60)
            raise AssertionError("a game of six bots was created past --web-max-bots 3")
        except urllib.error.HTTPError as refused:
            assert refused.code == 503
            assert "allows 3" in json.loads(refused.read())["error"]
    finally:
        server.proc.terminate()
        server.proc.wait(timeout=60)
