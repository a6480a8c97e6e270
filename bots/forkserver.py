"""The bot host's side (``python -m diplomat.bots.forkserver``): import every bundled bot
once, then fork one child per seat asked for. See :mod:`bots.host` for the asker's side and
the protocol."""

from __future__ import annotations

import argparse
import contextlib
import gc
import io
import json
import os
import resource
import signal
import socket
import sys
import traceback
from typing import Any

import trio

from diplomat.bots.commandline import build_parser, start_session
from diplomat.bots.entry import Entry
from diplomat.bots.host import MAX_FDS, MAX_PACKET, HostError, die_with_parent
from diplomat.bots.registry import REGISTRY
from diplomat.bots.transport import play
from diplomat.protocol.connection import ClientConnection

_PARSERS: dict[str, argparse.ArgumentParser] = {}  # built before forking (~2 ms each)


def _parser(name: str, entry: Entry[Any]) -> argparse.ArgumentParser:
    if name not in _PARSERS:
        _PARSERS[name] = build_parser(entry)
    return _PARSERS[name]


def _parse(name: str, argv: list[str]) -> tuple[Entry[Any], argparse.Namespace]:
    """The bot (with its core) and its parsed command line; HostError for a bad one."""
    spec = REGISTRY.get(name)
    if spec is None:
        raise HostError(f"no bundled bot {name!r}")
    entry = spec.entry()
    said = io.StringIO()
    try:
        with contextlib.redirect_stderr(said), contextlib.redirect_stdout(said):
            args = _parser(name, entry).parse_args([*spec.args, *argv])
    except SystemExit:
        lines = said.getvalue().strip().splitlines()
        raise HostError(
            f"{name} {' '.join(argv)}: {lines[-1] if lines else 'bad arguments'}"
        ) from None
    return entry, args


def _play(entry: Entry[Any], args: argparse.Namespace, fd: int) -> int:
    session = start_session(entry, args)
    sock = socket.socket(fileno=fd)

    async def main() -> int:
        stream = trio.SocketStream(trio.socket.from_stdlib_socket(sock))
        return await play(session, stream, ClientConnection())

    return trio.run(main)


def _child(ctl: socket.socket, request: dict[str, Any], fd: int) -> None:
    """In the forked child: play the game, then leave without running the host's cleanup."""
    code = 1
    try:
        ctl.close()
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        die_with_parent()
        log = request.get("log")
        try:
            out = os.open(log or os.devnull, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        except OSError:  # its folder is gone (the tournament is stopping): no log
            out = os.open(os.devnull, os.O_WRONLY)
        os.dup2(out, 1)
        os.dup2(out, 2)
        os.close(out)
        entry, args = _parse(request["bot"], request["argv"])
        code = _play(entry, args, fd)
    except BaseException:
        with contextlib.suppress(Exception):
            traceback.print_exc()
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
            _account()
        os._exit(code)


def _account() -> None:
    """With DIPLOMAT_HOST_CPU=FILE (for benchmarks), append this child's CPU seconds there
    (the kernel reaps the children, so nobody else can see what they used)."""
    path = os.environ.get("DIPLOMAT_HOST_CPU")
    if path:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        with open(path, "a") as f:
            f.write(f"{usage.ru_utime + usage.ru_stime:.6f}\n")


def serve(ctl: socket.socket) -> None:
    """Answer requests until the asker closes the socket."""
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the kernel
    while True:
        try:
            data, fds, _, _ = socket.recv_fds(ctl, MAX_PACKET, MAX_FDS)
        except OSError:
            return
        if not data:
            return
        reply: dict[str, Any]
        try:
            request = json.loads(data)
            if request.get("op") == "check":
                _parse(request["bot"], request["argv"])
                reply = {"ok": True}
            elif len(fds) != len(request["bots"]):
                reply = {"error": "a start request carries one socket per bot"}
            else:
                pids = []
                for one, fd in zip(request["bots"], fds, strict=True):
                    pid = os.fork()
                    if pid == 0:
                        for other in fds:  # a sibling's socket kept open would hide its end
                            if other != fd:
                                os.close(other)
                        _child(ctl, one, fd)
                    pids.append(pid)
                reply = {"pids": pids}
        except HostError as exc:
            reply = {"error": str(exc)}
        except Exception as exc:
            reply = {"error": f"{type(exc).__name__}: {exc}"}
        finally:
            for fd in fds:
                os.close(fd)
        try:
            ctl.send(json.dumps(reply).encode())
        except OSError:
            return


def warm_up() -> None:
    """Import every bundled bot and build what they share, so that children inherit it."""
    from diplomat.engine.map import load_map
    from diplomat.protocol.codec import codec_for
    from diplomat.protocol.tokens import STANDARD

    for name, spec in REGISTRY.items():
        _parser(name, spec.entry())
    load_map("standard")
    codec_for(STANDARD)  # builds the DAIDE parser (~0.1 s)
    trio.run(trio.sleep, 0)  # trio's first run sets up what later runs reuse
    gc.collect()
    gc.freeze()  # the children's first collection does not touch (and copy) these pages


def main() -> None:
    die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the asker's to handle
    ctl = socket.socket(fileno=os.dup(0))
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    warm_up()
    serve(ctl)


if __name__ == "__main__":
    main()
