"""The README's commands work: every shell command in README.md, docs/*.md and bots/README.md
that runs ``diplomat`` is run, briefly, as a reader would type it, so a command that no longer
parses (or no longer runs) fails the suite.

Briefly: options appended after the reader's override theirs (argparse keeps an option's last
value), so a tournament plays one game to the map's first year (``--games 1 --max-year
YEAR``), a tuning run scores its start point only (``--iterations 0``), each in a database of
its own, and a server listens on free ports (``--port 0 --web-port 0``, and
``--diplomacy-port 0`` when it serves the diplomacy package's clients) and is stopped with
SIGTERM once it says where it listens. Commands that cannot run here (a Ray cluster, a program
the reader supplies, a file of theirs) are listed in :data:`CANNOT_RUN` with the reason, and
are parsed by the real argument parser, their line-up checked as the tournament checks it."""

from __future__ import annotations

import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from diplomat.cli.main import build_parser
from diplomat.engine.map import load_map

ROOT = Path(__file__).resolve().parents[2]
DIPLOMAT = str(Path(sys.executable).parent / "diplomat")
PATIENCE = 900  # seconds: an outer limit for a loaded machine, not what a command takes

# A command that cannot run in a test, by a piece of its text, and why.
CANNOT_RUN = {
    "--ray": "needs a Ray cluster (tests/tournament/test_ray.py starts one where it can)",
    "albert=/path/to/albert": "an external program of the reader's (the path is a placeholder)",
    "mine=python mybot.py": "the reader's own bot (mybot.py)",
    "c='./dumbbot": "the classic C++ DumbBot, built by the reader",
    "GAME.json": "a game file of the reader's",
    "render 12": "game 12 of the reader's database",
    "show 12": "game 12 of the reader's database",
    "game12.json": "game 12 of the reader's database, saved to a file of theirs",
}


def _commands() -> list[tuple[str, list[str]]]:
    """(where, the words after ``diplomat``) for each command in the documents' shell
    blocks."""
    docs = [ROOT / "README.md", ROOT / "bots" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    found: list[tuple[str, list[str]]] = []
    for doc in docs:
        for line in _shell_lines(doc.read_text()):
            for command in _segments(shlex.split(line, comments=True)):
                if Path(command[0]).name == "diplomat":
                    found.append((doc.relative_to(ROOT).as_posix(), command[1:]))
    return found


def _shell_lines(text: str) -> list[str]:
    """The lines of the text's shell blocks (```sh, ```bash, ```shell, ```console, or a fence
    without a language), a line continued with a backslash joined to the next."""
    out: list[str] = []
    fence: str | None = None  # the open block's language
    for line in text.replace("\\\n", " ").splitlines():
        stripped = line.strip()
        if stripped.startswith("```"):
            fence = None if fence is not None else stripped[3:].strip()
            continue
        if fence in ("sh", "bash", "shell", "console", ""):
            out.append(line)
    return out


def _segments(words: list[str]) -> list[list[str]]:
    """The commands of a line: split at ``&&``, ``;`` and ``|``; a command run by another
    (``unshare ... -- diplomat ...``) starts after its ``--``."""
    out: list[list[str]] = []
    current: list[str] = []
    for word in [*words, "&&"]:
        if word in ("&&", ";", "|", "||"):
            if "--" in current and Path(current[0]).name != "diplomat":
                current = current[current.index("--") + 1 :]
            if current:
                out.append(current)
            current = []
        else:
            current.append(word)
    return out


COMMANDS = _commands()


def _why_not(argv: list[str]) -> str | None:
    text = " ".join(argv)
    return next((why for key, why in CANNOT_RUN.items() if key in text), None)


def _first_year(argv: list[str]) -> int:
    name = argv[argv.index("--map") + 1] if "--map" in argv else "standard"
    return load_map(name).start_year


def _brief(argv: list[str], tmp: Path) -> list[str]:
    """The options that make the command brief (appended: they override the reader's)."""
    db = ["--db", str(tmp / "db.sqlite")]
    year = str(_first_year(argv))
    command = argv[0]
    if command == "tournament":
        return ["--games", "1", "--max-year", year, "--parallel", "1", "--quiet", *db]
    if command == "tune":
        confirm = ["--confirm-games", "1"] if "--confirm-against" in argv else []
        return ["--games", "1", "--iterations", "0", "--restarts", "1", "--max-year", year,
                "--parallel", "1", *confirm, *db]  # fmt: skip
    if command == "demo":
        return ["--max-year", year]
    if command == "serve":
        package = ["--diplomacy-port", "0"] if "--diplomacy-port" in argv else []
        # Loopback only, whatever address the reader's command listens on.
        return ["--host", "127.0.0.1", "--port", "0", "--web-port", "0", *package, *db]
    return []


def _in_repo(argv: list[str]) -> list[str]:
    """A path of the repository (``tests/datc/...``) made absolute: commands run elsewhere.
    ``$PWD`` is the reader's checkout (a tournament seat's program runs in a folder of its
    own, so a document names it from there)."""
    argv = [w.replace("$PWD", str(ROOT)) for w in argv]
    return [str(ROOT / w) if "/" in w and (ROOT / w).exists() else w for w in argv]


def test_the_documents_have_diplomat_commands() -> None:
    commands = [" ".join(argv) for _, argv in COMMANDS]
    assert len(commands) >= 20, commands
    # The one issue 29 found broken, among them.
    assert any("talk=bordeaux --negotiate --think 0.25:2" in c for c in commands)
    assert all(any(key in c for c in commands) for key in CANNOT_RUN)  # none stale


@pytest.mark.parametrize(
    "argv", [argv for _, argv in COMMANDS], ids=[f"{w}: {' '.join(a)}" for w, a in COMMANDS]
)
def test_a_documented_command_runs(argv: list[str], tmp_path: Path) -> None:
    why = _why_not(argv)
    if why is not None:
        _parse_only(argv)
        return
    full = [DIPLOMAT, *_in_repo(argv), *_brief(argv, tmp_path)]
    if argv[0] == "serve":
        _serve_briefly(full, tmp_path)
        return
    done = subprocess.run(
        full, cwd=tmp_path, capture_output=True, text=True, timeout=PATIENCE, check=False
    )
    assert done.returncode == 0, f"{shlex.join(full)}\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    assert "Traceback" not in done.stderr, done.stderr[-3000:]


def _parse_only(argv: list[str]) -> None:
    """What a command that cannot run gets: the real parser, and a tournament's line-up
    checked as the tournament checks it before any game."""
    args, unknown = build_parser().parse_known_args(argv)
    assert not unknown, unknown
    if argv[0] == "tournament":
        from diplomat.cli.tournament import _line_up

        _line_up(args)


def _serve_briefly(full: list[str], tmp_path: Path) -> None:
    """Start the server, wait until it says where it listens and has its SIGTERM handler,
    stop it with SIGTERM: it exits cleanly."""
    log = tmp_path / "serve.log"
    with log.open("w") as err:
        proc = subprocess.Popen(full, cwd=tmp_path, stdout=subprocess.PIPE, stderr=err, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert "diplomat serving DAIDE on 127.0.0.1:" in line, (line, log.read_text()[-3000:])
        _wait_until_it_catches(proc, signal.SIGTERM)
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=PATIENCE)
        text = log.read_text()
        assert proc.returncode == 0, text[-3000:]
        assert "Traceback" not in text, text[-3000:]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _wait_until_it_catches(proc: subprocess.Popen[str], signum: int) -> None:
    """Until the process has a handler for ``signum`` (its ``SigCgt`` mask in /proc says so):
    the server installs it once it is serving, a moment after it prints its address."""
    deadline = time.monotonic() + PATIENCE
    status = Path(f"/proc/{proc.pid}/status")
    while time.monotonic() < deadline and proc.poll() is None:
        caught = next(
            int(line.split()[1], 16) for line in status.read_text().splitlines()
            if line.startswith("SigCgt:")
        )  # fmt: skip
        if caught >> (signum - 1) & 1:
            return
        time.sleep(0.02)  # (a poll of the event, with the outer limit above)
    raise AssertionError(f"the server never caught signal {signum}")
