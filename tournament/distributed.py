"""Tournament games as Ray tasks, for more than one machine (``diplomat tournament --ray``).

Each task plays one whole game on the worker it lands on: an in-process server with a database
of its own in a temporary folder, and its bots (bundled ones forked by a bot host that the
worker process starts once and keeps; external programs must exist on the workers). It returns
the game's record: every database row of the game, how each seat ended, the seats' logs and
the timings. The driver alone writes the tournament's database, so resuming, the progress bar,
the table, the JSON and the CSV work as for a local run, and a game played on Ray is stored
exactly as one played here (``diplomat show`` replays it).

A task whose worker dies is retried by Ray (``max_retries``) and, failing that, submitted again
by the driver: a dead worker loses only the games it was playing.

Ray is an optional extra: ``pip install 'diplomat[ray]'``.
"""

from __future__ import annotations

import contextlib
import socket
import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import Any, Protocol

import trio

from diplomat.bots.registry import BotHost, HostProcess
from diplomat.server.app import Server
from diplomat.server.logs import get_logger
from diplomat.server.settings import GameSettings
from diplomat.server.store import Store
from diplomat.tournament.game import (
    GameSpec,
    GameTiming,
    LineupError,
    package_seats_for,
    play_complete,
)
from diplomat.tournament.records import Records, SeatRecord, export_game


class RayTournament(Protocol):
    """What the driver needs of a tournament (:class:`tournament.runner.Tournament`)."""

    key: str
    ray: str | None
    folder: Path
    records: Records
    progress: Any
    stats: Any

    def game_spec(self, index: int) -> GameSpec: ...


LOG_LIMIT = 1 << 20  # bytes of each seat's log sent back to the driver (the end of it)
RESUBMIT = 3  # times the driver submits a game again after Ray's own retries failed

log = get_logger()
_host: HostProcess | None = None


def _bot_host() -> HostProcess:
    """This worker process's bot host, started on its first game and kept."""
    global _host
    if _host is None or not _host.alive():
        _host = HostProcess()
    return _host


def play_record(spec: GameSpec) -> dict[str, Any]:
    """Play one game here and return its record (runs in a Ray worker)."""
    process = _bot_host()  # in the worker's own thread, before trio starts
    return trio.run(_play_record, spec, process)


async def _play_record(spec: GameSpec, process: HostProcess) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="diplomat-game-") as tmp:
        folder = Path(tmp)
        store = Store(folder / "game.sqlite")
        settings = GameSettings.model_validate(spec.settings)
        server = Server(store, settings, port=0, open_games=False, resume=False)
        host = BotHost(process)
        try:
            async with trio.open_nursery() as nursery:
                await nursery.start(server.run)
                entries = [s.entry for s in spec.seats]
                package = await package_seats_for(nursery, server, entries)
                # A game that loses a player before it starts is played again here, on the
                # same worker, as a local run does (spec.replays).
                played = await play_complete(server, host, spec, folder / "logs", None, package)
                nursery.cancel_scope.cancel()
        finally:
            host.close()
        if not played.runner.status().finished:
            store.close()
            raise RuntimeError(f"game {spec.index} did not finish")
        logs = {}
        for seat in played.seats:
            if seat.log is not None:
                data = Path(seat.log).read_bytes()
                logs[seat.power] = data[-LOG_LIMIT:]
        record = {
            "index": spec.index,
            "game": export_game(store.path, played.runner.id),
            "seats": [asdict(s) for s in played.seats],
            "logs": logs,
            "timing": asdict(played.timing),
            "replays": played.replays,
            "node": _node_id(),
        }
        store.close()
        return record


def _node_id() -> str:
    """The Ray node this runs on (the host name outside Ray)."""
    try:
        import ray

        return str(ray.get_runtime_context().get_node_id())
    except Exception:
        return socket.gethostname()


def _connect(address: str) -> Any:
    import ray

    if ray.is_initialized():
        return ray
    kwargs: dict[str, Any] = {"log_to_driver": False, "configure_logging": False}
    if address == "local":
        ray.init(**kwargs)
    else:
        ray.init(address=address, **kwargs)
    return ray


async def run_on_ray(t: RayTournament, todo: list[int]) -> None:
    """Play the games ``todo`` of tournament ``t`` as Ray tasks; store each as it comes."""
    try:
        ray = _connect(t.ray or "local")  # in the main thread (Ray's signal handlers)
    except ImportError:
        raise LineupError(
            "--ray needs Ray: pip install 'diplomat[ray]' (or pip install 'ray>=2.60')"
        ) from None
    remote = ray.remote(num_cpus=1, max_retries=3)(play_record)
    cpus = int(ray.cluster_resources().get("CPU", 1))
    t.stats.slots = max(1, cpus)
    window = max(1, cpus) + 1  # one queued behind the running ones keeps every CPU busy
    queue = list(todo)
    pending: dict[Any, int] = {}
    tries: dict[int, int] = {}
    try:
        while queue or pending:
            while queue and len(pending) < window:
                index = queue.pop(0)
                pending[remote.remote(t.game_spec(index))] = index
            t.progress.running = len(pending)
            ready = await trio.to_thread.run_sync(_wait, ray, list(pending))
            for ref in ready:
                index = pending.pop(ref)
                try:
                    record = await trio.to_thread.run_sync(ray.get, ref)
                except ray.exceptions.RayError as exc:
                    tries[index] = tries.get(index, 0) + 1
                    if tries[index] > RESUBMIT:
                        raise
                    log.warning("game lost on Ray: played again", index=index, error=str(exc))
                    queue.insert(0, index)
                    continue
                store_record(t, record)
            t.progress.running = len(pending)
    finally:
        for ref in pending:
            with contextlib.suppress(Exception):
                ray.cancel(ref, force=True)


def _wait(ray: Any, refs: list[Any]) -> list[Any]:
    ready, _ = ray.wait(refs, num_returns=1, timeout=0.5)
    return list(ready)


def store_record(t: RayTournament, record: dict[str, Any]) -> None:
    """Write a game played elsewhere into the tournament's database, and its seats' logs
    under the tournament's folder."""
    index = record["index"]
    gid = t.records.import_game(record["game"], t.key)
    seats = []
    for data in record["seats"]:
        seat = SeatRecord(**data)
        text = record["logs"].get(seat.power)
        if text:
            path = t.folder / f"game{index:04d}" / f"seat{seat.seat}-{seat.power}.log"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(text)
            seat = SeatRecord(**{**data, "log": str(path)})
        seats.append(seat)
    t.records.set_seats(gid, seats)
    t.stats.timings.append(GameTiming(**record["timing"]))
    t.stats.nodes[record["node"]] += 1
    t.stats.replays += record.get("replays", 0)
    t.progress.done += 1
    t.progress.phases += max(0, len(record["game"].get("phases", [])) - 1)
