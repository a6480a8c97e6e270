"""Stopping `diplomat serve` (SIGTERM, as docker stop sends; Ctrl-C is the same path): every
client gets OFF, binary clients then an FM, and the process exits 0."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import trio

from protocol import messages as m
from protocol.connection import Closed

from .daide_client import WireClient


async def test_sigterm_sends_off_and_fm(tmp_path: Path) -> None:
    argv = [sys.executable, "-m", "cli.main", "serve", "--port", "0", "--no-web"]
    argv += ["--db", str(tmp_path / "db.sqlite")]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert proc.stdout is not None
        line = await trio.to_thread.run_sync(proc.stdout.readline)
        port = int(line.split("127.0.0.1:")[1].split()[0])
        binary = await WireClient.connect(port)
        text = await WireClient.connect(port, text=True)
        for c in (binary, text):
            await c.send(m.Nme("stayer", "1"))
            await c.expect(m.Map)
        proc.send_signal(signal.SIGTERM)
        for c in (binary, text):
            assert await c.expect(m.Off) == m.Off()
            end = await c.event()
            assert isinstance(end, Closed)
        # The binary client was sent an FM (a clean close), not just a dropped socket.
        assert binary.closed is not None and binary.closed.reason == "FM received"
        assert await trio.to_thread.run_sync(proc.wait) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
