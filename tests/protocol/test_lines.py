"""The text-line transport and telling binary from text on a shared port."""

import pytest

from diplomat.protocol import messages
from diplomat.protocol.connection import Closed, Received, Unparsed
from diplomat.protocol.lines import TextConnection, classify_first_bytes
from diplomat.protocol.tokens import STANDARD


def test_lines_in_and_out() -> None:
    conn = TextConnection(STANDARD)
    events = conn.receive_bytes(b"NME ('Bot') ('1')\nOBS\r\n\n  \nnot(g")
    assert [type(e) for e in events] == [Received, Received]
    assert isinstance(events[0], Received) and events[0].message == messages.Nme("Bot", "1")
    (event,) = conn.receive_bytes(b"of)\n")
    assert isinstance(event, Received) and event.message == messages.Not(messages.Gof())
    assert conn.send(messages.Yes(messages.Obs())) == b"YES ( OBS )\n"


def test_errors_are_huh_lines() -> None:
    conn = TextConnection(STANDARD)
    (event,) = conn.receive_bytes(b"REJ\n")
    assert isinstance(event, Unparsed) and event.reply is not None
    assert conn.send(event.reply) == b"HUH ( REJ ERR )\n"
    (event,) = conn.receive_bytes(b"HLO (FOO)\n")
    assert isinstance(event, Unparsed) and event.reply is not None
    assert conn.send(event.reply) == b"HUH ( HLO ( ERR FOO ) )\n"


def test_dpp_greeting_sets_the_line_ending() -> None:
    conn = TextConnection(STANDARD)
    (event,) = conn.receive_bytes(b"DPP/0.17\r\nOBS\r\n")
    assert isinstance(event, Received)
    assert conn.send(messages.Yes(messages.Obs())) == b"YES ( OBS )\r\n"


def test_utf8_and_bad_bytes() -> None:
    conn = TextConnection(STANDARD)
    (event,) = conn.receive_bytes("ADM ('Zoë') ('ça va')\n".encode())
    assert isinstance(event, Received) and event.message == messages.Adm("Zoë", "ça va")
    (event,) = conn.receive_bytes(b"ADM ('\xff') ('x')\n")
    assert isinstance(event, Unparsed)


def test_overlong_line_closes() -> None:
    conn = TextConnection(STANDARD, max_line=100)
    (event,) = conn.receive_bytes(b"X" * 200)
    assert isinstance(event, Closed) and event.reason == "line too long"
    assert conn.receive_bytes(b"OBS\n") == []


def test_eof_flushes_the_last_line() -> None:
    conn = TextConnection(STANDARD)
    assert conn.receive_bytes(b"OBS") == []
    received, closed = conn.receive_eof()
    assert isinstance(received, Received) and isinstance(closed, Closed) and closed.by_peer


@pytest.mark.parametrize(
    ("data", "kind"),
    [
        (b"", None),
        (b"\x00", "binary"),
        (bytes.fromhex("00 00 00 04 00 01 DA 10"), "binary"),
        (bytes.fromhex("00 EC 00 04"), "binary"),
        (b"NME ('x') ('y')\n", "text"),
        (b"OBS\n", "text"),
        (b"DPP/0.17\r\n", "text"),
        (b"GET / HTTP/1.1\r\n", "http"),
        (b"GE", None),
        (b"GEM", "text"),
    ],
)
def test_classify_first_bytes(data: bytes, kind: str | None) -> None:
    assert classify_first_bytes(data) == kind
