"""A structured fuzzer for the web port, against a real ``diplomat serve`` on loopback (ports
0) with real HoldBot processes: generated HTTP requests (every route and method, odd headers,
bodies deep, huge, non-finite and malformed, truncated or ended by a TCP reset) and WebSocket
sessions (every kind of request the page sends, with fields of every type, and garbage frames
of every opcode). Each input must be answered or its connection closed, the process must
live, and a game nobody fuzzed must still play its next phase afterwards.

``bench/fuzz_web.py`` sends a million such inputs; this keeps to a few hundred.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.web.conftest import LiveServer, start_server, stop_server
from tests.web.fuzzing import (
    METHODS,
    OPCODES,
    PAGE_KINDS,
    PRESS_OPS,
    ROUTES,
    RawSocket,
    exchange,
    http_json,
    masked_frame,
    page_game,
    play_a_phase,
    request_bytes,
    status_of,
)

FUZZ = settings(
    max_examples=200,
    deadline=None,
    derandomize=True,  # the same inputs on every run: a failure is reproducible
    suppress_health_check=list(HealthCheck),
)


class Served:
    def __init__(self, server: LiveServer) -> None:
        self.server = server
        self.port = int(server.url.rstrip("/").rsplit(":", 1)[1])
        self.fuzzed = page_game(self.port)  # the game whose page is fuzzed
        self.control = page_game(self.port, power="ENG")  # a game nobody fuzzes
        # Its person comes once (a game nobody opens is abandoned after two minutes).
        self.first = play_a_phase(self.port, self.control)
        self.statuses: dict[int, int] = {}

    def alive(self) -> None:
        assert self.server.proc.poll() is None, "the server exited"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    server = start_server(Path(tmp_path_factory.mktemp("fuzz")) / "fuzz.sqlite")
    try:
        yield Served(server)
    finally:
        stop_server(server)


# -- inputs ----------------------------------------------------------------------------------

NUMBERS = st.sampled_from(
    ["1e999", "-1e999", "NaN", "Infinity", "-Infinity", "-1", "0", "1" + "0" * 400, "1.5",
     "true", '"600"', '"x"', "null", "[]", "{}", "9223372036854775808", "1e308", "-0"]
)  # fmt: skip
scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=40)
)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5)
    ),
    max_leaves=25,
)
FIELDS = ["map", "power", "level", "opponents", "move_time", "retreat_time", "build_time",
          "max_year", "name"]  # fmt: skip


@st.composite
def deep(draw: st.DrawFn) -> str:
    n = draw(st.integers(1, 40_000))
    if draw(st.booleans()):
        return "[" * n + "]" * n
    return '{"a":' * n + "1" + "}" * n


@st.composite
def game_bodies(draw: st.DrawFn) -> str:
    """A game request's fields with odd values, the numbers spelt as JSON text."""
    keys = draw(st.lists(st.sampled_from(FIELDS), max_size=5, unique=True))
    parts = [f'"{k}": {draw(NUMBERS | json_values.map(json.dumps))}' for k in keys]
    return "{" + ", ".join(parts) + "}"


bodies = st.one_of(
    game_bodies(),
    json_values.map(json.dumps),
    deep(),
    st.binary(max_size=300).map(lambda b: b.decode("latin-1")),
    st.integers(60_000, 200_000).map(lambda n: '{"name": "' + "x" * n + '"}'),
)
header_sets = st.fixed_dictionaries(
    {},
    optional={
        "Content-Type": st.sampled_from(["text/plain", "", "application/json; x"]),
        "Origin": st.sampled_from(["http://evil.example", "null", "http://127.0.0.1"]),
        "Transfer-Encoding": st.sampled_from(["chunked", "gzip", "identity"]),
        "Upgrade": st.sampled_from(["websocket", "h2c"]),
        "Connection": st.sampled_from(["close", "keep-alive", "Upgrade"]),
        "X-Big": st.integers(1, 40_000).map(lambda n: "y" * n),
    },
)
odd_methods = st.sampled_from(METHODS) | st.from_regex(r"\A[A-Za-z!#$%&*+.^_|~-]{1,12}\Z")
odd_paths = st.text(alphabet=st.characters(min_codepoint=33, max_codepoint=126), max_size=300).map(
    lambda p: "/" + p
) | st.sampled_from(["/static/" + "a" * 5000, "/static/%00", "//[", "/api/games?" + "a=1&" * 99])


def mostly(usual: st.SearchStrategy[Any], odd: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """``usual`` three times in four, so that most inputs get past the first check and
    reach the handlers behind it."""
    return st.integers(0, 3).flatmap(lambda k: odd if k == 0 else usual)


@st.composite
def http_inputs(draw: st.DrawFn, port: int) -> tuple[bytes, str, bool]:
    """Request bytes, how the connection ends, and whether the request was sent whole."""
    method = draw(mostly(st.sampled_from(["GET", "POST"]), odd_methods))
    path = draw(mostly(st.sampled_from(ROUTES), odd_paths))
    body = draw(bodies).encode("utf-8", "surrogatepass") if method != "GET" else b""
    host = draw(mostly(st.none(), st.sampled_from(["", "evil.example", "[", "1.2.3.4:99"])))
    length = draw(mostly(st.none(), st.integers(0, 1 << 40)))
    headers = draw(mostly(st.just({}), header_sets))
    data = request_bytes(method, path, port, body, headers, host=host, length=length)
    whole = True
    if draw(st.integers(0, 4)) == 0:
        data = data[: draw(st.integers(0, len(data)))]
        whole = False
    close = draw(st.sampled_from(["half", "half", "half", "reset", "abrupt"]))
    return data, close, whole


@st.composite
def page_frames(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(PAGE_KINDS) | st.text(max_size=8) | json_values)
    msg: dict[str, Any] = {"t": kind}
    if kind == "press":
        msg["op"] = draw(st.sampled_from(PRESS_OPS) | json_values)
    names = ["loc", "id", "text", "on", "phase", "index", "game", "token", "power", "kind", "how",
             "seq", "answer", "to", "powers"]  # fmt: skip
    for name in draw(st.lists(st.sampled_from(names), max_size=4, unique=True)):
        msg[name] = draw(
            json_values
            | st.sampled_from(["PAR", "BUR", "par", "STP/SC", "ENG", "GER", "pce", "aly", "dmz",
                               "xdo", "and", "orr", "yes", "rej", "hold", "move", "cancel",
                               "S1901M", ["GER"], ["FRA", "GER"]])
        )  # fmt: skip
    return msg


@st.composite
def ws_frames(draw: st.DrawFn) -> tuple[str, bytes | str | dict[str, Any]]:
    """One thing to send on a page's WebSocket: ``json`` (a page request), ``text``,
    ``raw`` (bytes: a hand-made frame, or garbage)."""
    choice = draw(st.integers(0, 9))
    if choice <= 5:
        return "json", draw(page_frames())
    if choice == 6:
        return "text", draw(st.text(max_size=200) | deep() | NUMBERS)
    if choice == 7:
        return "text", "x" * draw(st.integers(60_000, 100_000))
    if choice == 8:
        opcode = draw(st.sampled_from(OPCODES))
        payload = draw(st.binary(max_size=200))
        return "raw", masked_frame(opcode, payload, draw(st.booleans()), draw(st.integers(0, 7)))
    return "raw", draw(st.binary(min_size=1, max_size=200))


# -- the tests -------------------------------------------------------------------------------


def test_http_inputs_are_answered_and_end_nothing(served: Served) -> None:
    port = served.port

    @FUZZ
    @given(http_inputs(port))
    def one(case: tuple[bytes, str, bool]) -> None:
        data, close, whole = case
        answer = exchange(port, data, close)  # type: ignore[arg-type]
        served.alive()
        if close == "half" and whole:
            status = status_of(answer)
            assert status is not None and 200 <= status < 600, answer[:300] if answer else answer
            served.statuses[status] = served.statuses.get(status, 0) + 1
            # A handler that fails is the boundary's to answer; none of these inputs should.
            assert status != 500, (data[:300], answer[:500] if answer else None)

    one()
    served.alive()
    assert http_json(port, "GET", "/api/options")[0] == 200
    assert len(served.statuses) > 3, served.statuses  # the inputs reach many answers
    before, after = play_a_phase(port, served.control)
    assert before == served.first[1] and after != before


def test_websocket_inputs_end_nothing(served: Served) -> None:
    port = served.port
    game = served.fuzzed

    @FUZZ
    @given(
        st.booleans(),
        st.lists(ws_frames(), min_size=1, max_size=8),
        st.sampled_from(["half", "reset", "abrupt"]),
    )
    def one(greet: bool, frames: list[tuple[str, Any]], close: str) -> None:
        ws = RawSocket(port)
        try:
            if greet:
                ws.send_json(t="hello", game=game["game"], token=game["token"])
            for kind, item in frames:
                if kind == "json":
                    ws.send_text(json.dumps(item))
                elif kind == "text":
                    ws.send_text(item)
                else:
                    ws.raw(item)
        except OSError:
            pass  # the server closed this socket (a bad frame): its right
        finally:
            ws.close(close)  # type: ignore[arg-type]
        served.alive()

    one()
    served.alive()
    # The fuzzed seat and the game nobody touched both still play.
    assert play_a_phase(port, game)[1] != ""
    assert http_json(port, "GET", "/api/options")[0] == 200
