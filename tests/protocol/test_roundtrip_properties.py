"""Property tests: parse is the inverse of render in both wire forms, and no input of any kind
makes the protocol layer raise anything but its own documented errors."""

import contextlib
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from diplomat.protocol import messages
from diplomat.protocol.atoms import EncodeError, Unknown, atoms_from_payload
from diplomat.protocol.codec import (
    codec_for,
    parse_payload,
    parse_text,
    render_payload,
    render_text,
)
from diplomat.protocol.connection import (
    ClientConnection,
    Closed,
    Ready,
    Received,
    Send,
    ServerConnection,
    State,
    Unparsed,
)
from diplomat.protocol.frames import ErrorCode, em_frame
from diplomat.protocol.levels import level_error, press_level
from diplomat.protocol.lines import TextConnection
from diplomat.protocol.syntax import ParseError
from diplomat.protocol.tokens import BRA, KET, STANDARD
from tests.protocol.daide_strategies import any_message

C = codec_for(STANDARD)
PROPERTY = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
IM = bytes.fromhex("00 00 00 04 00 01 DA 10")


@PROPERTY
@given(any_message(daide_pp=True))
def test_text_round_trip(message: messages.Message) -> None:
    text = render_text(message, STANDARD)
    back = parse_text(text, STANDARD)
    assert back == message
    assert render_text(back, STANDARD) == text


@PROPERTY
@given(any_message())
def test_binary_round_trip(message: messages.Message) -> None:
    payload = render_payload(message, STANDARD)
    assert parse_payload(payload, STANDARD) == message
    # both forms spell the same tokens
    assert C.atoms_text(atoms_from_payload(payload)) == render_text(message, STANDARD)


@PROPERTY
@given(any_message(daide_pp=True))
def test_a_message_is_legal_at_its_level(message: messages.Message) -> None:
    level = press_level(message, STANDARD)
    assert level_error(message, level, table=STANDARD) is None


# -- fuzzing ------------------------------------------------------------------------------

valid_atoms = any_message().map(C.atoms)
any_int_atom = st.one_of(
    st.sampled_from(sorted(STANDARD.name_of)), st.integers(0, 0xFFFF), st.just(BRA), st.just(KET)
)
atom = st.one_of(
    any_int_atom,
    st.text(min_size=1, max_size=5),
    st.floats(),
    st.builds(Unknown, st.text(min_size=1, max_size=5)),
)


def check_parse(atoms: tuple[Any, ...]) -> None:
    try:
        message = C.parse_atoms(atoms)
    except ParseError as exc:
        if exc.reply is not None:
            C.text(exc.reply)  # the reply can always be rendered
        return
    assert C.text(message)


@PROPERTY
@given(st.lists(atom, max_size=30).map(tuple))
def test_random_atoms_never_raise(atoms: tuple[Any, ...]) -> None:
    check_parse(atoms)


@PROPERTY
@given(valid_atoms, st.data())
def test_mutated_messages_never_raise(atoms: tuple[Any, ...], data: st.DataObject) -> None:
    mutated = list(atoms)
    for _ in range(data.draw(st.integers(1, 3))):
        i = data.draw(st.integers(0, len(mutated)))
        action = data.draw(st.sampled_from(["insert", "delete", "replace"]))
        if action == "insert" or not mutated:
            mutated.insert(i, data.draw(atom))
        elif action == "delete":
            del mutated[min(i, len(mutated) - 1)]
        else:
            mutated[min(i, len(mutated) - 1)] = data.draw(atom)
    check_parse(tuple(mutated))


@PROPERTY
@given(valid_atoms, st.data())
def test_wrong_brackets_get_prn(atoms: tuple[Any, ...], data: st.DataObject) -> None:
    i = data.draw(st.integers(0, len(atoms)))
    extra = data.draw(st.sampled_from([BRA, KET]))
    broken = (*atoms[:i], extra, *atoms[i:])
    if broken[0] in (0x4806, 0x4813):  # HUH and PRN are never answered
        return
    with pytest.raises(ParseError) as info:
        C.parse_atoms(broken)
    assert isinstance(info.value.reply, messages.Prn)


@PROPERTY
@given(st.text(max_size=60))
def test_random_text_never_raises(text: str) -> None:
    with contextlib.suppress(ParseError):
        parse_text(text, STANDARD)


word_soup = st.lists(
    st.one_of(
        st.sampled_from(["(", ")", " ", "\t", "BRA", "ket", "sub", "0x4A25", "-3", "1.5e3"]),
        st.sampled_from(sorted(w for w in STANDARD.value_of if w.isalpha())),
        st.text(st.characters(exclude_characters="'\""), max_size=4),
    ),
    max_size=20,
).map("".join)


@PROPERTY
@given(word_soup)
def test_text_fast_path_reads_like_the_tokenizer(text: str) -> None:
    from diplomat.protocol.text import _read, atoms_from_text

    assert atoms_from_text(text, STANDARD) == _read(text, STANDARD)


@PROPERTY
@given(st.binary(max_size=80))
def test_random_payloads_never_raise(payload: bytes) -> None:
    from diplomat.protocol.atoms import InvalidToken

    payload = payload[: len(payload) // 2 * 2]
    with contextlib.suppress(ParseError, InvalidToken):
        parse_payload(payload, STANDARD)


def check_events(conn: ServerConnection | ClientConnection, events: list[Any]) -> None:
    for i, event in enumerate(events):
        assert isinstance(event, Send | Ready | Received | Unparsed | Closed)
        if isinstance(event, Closed):
            assert i == len(events) - 1
            assert conn.state is State.CLOSED
        if isinstance(event, Send) and i + 1 < len(events) and isinstance(events[i + 1], Closed):
            closed = events[i + 1]
            assert event.data == em_frame(int(closed.error))


@PROPERTY
@given(st.lists(st.binary(max_size=40), max_size=6), st.booleans())
def test_random_bytes_to_a_server(chunks: list[bytes], greet: bool) -> None:
    server = ServerConnection(STANDARD)
    events = server.receive_bytes(IM) if greet else []
    for chunk in chunks:
        events.extend(server.receive_bytes(chunk))
    check_events(server, events)
    events = server.timeout()
    if events:
        assert isinstance(events[-1], Closed)
        assert events[-1].error in (ErrorCode.IM_TIMEOUT, ErrorCode.SHORT_MESSAGE)


@PROPERTY
@given(st.lists(st.binary(max_size=40), max_size=6), st.booleans())
def test_random_bytes_to_a_client(chunks: list[bytes], ready: bool) -> None:
    client = ClientConnection()
    client.start()
    events = client.receive_bytes(bytes.fromhex("01 00 00 00")) if ready else []
    for chunk in chunks:
        events.extend(client.receive_bytes(chunk))
    check_events(client, events)


@PROPERTY
@given(any_message(), st.data())
def test_truncated_frames_wait_then_time_out(
    message: messages.Message, data: st.DataObject
) -> None:
    frame = C.dm(message)
    cut = data.draw(st.integers(1, len(frame) - 1))
    server = ServerConnection(STANDARD)
    server.receive_bytes(IM)
    assert server.receive_bytes(frame[:cut]) == []
    assert server.waiting
    events = server.timeout()
    assert events[0] == Send(em_frame(ErrorCode.SHORT_MESSAGE))
    # the whole frame, however split, gives back the message
    server = ServerConnection(STANDARD)
    server.receive_bytes(IM)
    events = server.receive_bytes(frame[:cut]) + server.receive_bytes(frame[cut:])
    assert events == [Received(message, C.atoms(message))]


@PROPERTY
@given(st.lists(st.binary(max_size=40), max_size=6))
def test_random_bytes_to_a_text_connection(chunks: list[bytes]) -> None:
    conn = TextConnection(STANDARD, max_line=64)
    for chunk in chunks:
        for event in conn.receive_bytes(chunk):
            assert isinstance(event, Received | Unparsed | Closed)
    conn.receive_eof()


def test_oversize_messages() -> None:
    # a string that cannot fit in one DM (65535 bytes) cannot be encoded ...
    huge = messages.Adm("x", "y" * 40000)
    with pytest.raises(EncodeError):
        render_payload(huge, STANDARD)
    # ... but the text form has no such limit, and the largest DM still parses
    assert parse_text(render_text(huge, STANDARD), STANDARD) == huge
    largest = messages.Adm("x", "y" * 32760)
    payload = render_payload(largest, STANDARD)
    assert len(payload) <= 65535
    server = ServerConnection(STANDARD)
    server.receive_bytes(IM)
    (event,) = server.receive_bytes(C.dm(largest))
    assert isinstance(event, Received) and event.message == largest
