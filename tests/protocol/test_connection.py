"""Binary frames (spec §1) and the connection state machines of both sides."""

import pytest

from diplomat.protocol import messages
from diplomat.protocol.codec import encode_dm, parse_payload, render_payload
from diplomat.protocol.connection import (
    ClientConnection,
    Closed,
    ConnectionClosedError,
    Event,
    Ready,
    Received,
    Send,
    ServerConnection,
    State,
    Unparsed,
)
from diplomat.protocol.frames import (
    ErrorCode,
    FrameReader,
    em_frame,
    fm_frame,
    im_frame,
    rm_frame,
    table_from_rm,
)
from diplomat.protocol.numbering import CclNar
from diplomat.protocol.tokens import STANDARD, TokenTable

IM = bytes.fromhex("00 00 00 04 00 01 DA 10")
EMPTY_RM = bytes.fromhex("01 00 00 00")
NME_DM = bytes.fromhex("02 00 00 12 48 0C 40 00 4B 42 4B 6F 4B 74 40 01 40 00 4B 31 40 01")
NOT_GOF = bytes.fromhex("48 0D 40 00 48 03 40 01")
HLO = bytes.fromhex("48 04 40 00 41 01 40 01 40 00 04 D2 40 01 40 00 40 00 49 03 00 00 40 01 40 01")
FM = bytes.fromhex("03 00 00 00")
EM_TIMER = bytes.fromhex("04 00 00 02 00 01")


class TestWorkedExamples:
    """The byte strings of spec §1.10."""

    def test_frames(self) -> None:
        assert im_frame() == IM
        assert rm_frame(STANDARD) == EMPTY_RM
        assert fm_frame() == FM
        assert em_frame(ErrorCode.IM_TIMEOUT) == EM_TIMER

    def test_nme(self) -> None:
        assert encode_dm(messages.Nme("Bot", "1"), STANDARD) == NME_DM
        assert parse_payload(NME_DM[4:], STANDARD) == messages.Nme("Bot", "1")

    def test_not_gof(self) -> None:
        assert render_payload(messages.Not(messages.Gof()), STANDARD) == NOT_GOF
        assert parse_payload(NOT_GOF, STANDARD) == messages.Not(messages.Gof())

    def test_hlo(self) -> None:
        hlo = messages.Hlo("ENG", 1234, messages.Variant(level=0))
        assert render_payload(hlo, STANDARD) == HLO
        assert parse_payload(HLO, STANDARD) == hlo

    def test_turn(self) -> None:
        assert bytes.fromhex("47 00 07 6D") in render_payload(
            messages.Hst(messages.Phase("SPR", 1901)), STANDARD
        )


def test_full_rm_round_trip() -> None:
    payload = rm_frame(STANDARD, full=True)[4:]
    assert len(payload) == 6 * (7 + 75)
    assert payload[:6] == bytes.fromhex("41 00 41 55 53 00")  # Austria, as in spec §1.4
    table = table_from_rm(payload)
    assert table.records() == STANDARD.records()
    assert table.is_standard


def test_frame_reader_joins_split_input() -> None:
    reader = FrameReader()
    stream = IM + EMPTY_RM + NME_DM
    frames = []
    for b in stream:
        reader.feed(bytes([b]))
        while (f := reader.next_frame()) is not None:
            frames.append(f)
    assert [f.type for f in frames] == [0, 1, 2]
    assert not reader.partial


def events_of(conn: ServerConnection | ClientConnection, *chunks: bytes) -> list[Event]:
    out: list[Event] = []
    for chunk in chunks:
        out.extend(conn.receive_bytes(chunk))
    return out


def open_server(strict_tokens: bool = False) -> ServerConnection:
    server = ServerConnection(STANDARD, strict_tokens=strict_tokens)
    assert events_of(server, IM) == [Send(EMPTY_RM), Ready(STANDARD)]
    return server


class TestServer:
    def test_handshake_and_a_message(self) -> None:
        server = ServerConnection(STANDARD)
        assert server.waiting  # the 30-second IM timer runs
        events = events_of(server, IM + NME_DM)
        assert events[:2] == [Send(EMPTY_RM), Ready(STANDARD)]
        assert isinstance(events[2], Received)
        assert events[2].message == messages.Nme("Bot", "1")
        assert server.state is State.OPEN and not server.waiting
        assert server.send(messages.Yes(messages.Nme("Bot", "1")))[:4] == bytes.fromhex(
            "02 00 00 18"
        )

    def test_byte_at_a_time_and_garbage_pad(self) -> None:
        server = ServerConnection(STANDARD)
        stream = bytes.fromhex("00 EC 00 04 00 01 DA 10") + NME_DM[:1] + b"\x4d" + NME_DM[2:]
        events: list[Event] = []
        for b in stream:
            events.extend(server.receive_bytes(bytes([b])))
        assert [type(e) for e in events] == [Send, Ready, Received]

    def test_full_rm_on_request(self) -> None:
        server = ServerConnection(STANDARD, full_rm=True)
        send = server.receive_bytes(IM)[0]
        assert isinstance(send, Send) and len(send.data) == 4 + 6 * 82

    def test_variant_table_rm(self) -> None:
        table = TokenTable.from_records([(0x4100, "ONE"), (0x4101, "TWO"), (0x5000, "AAA")])
        server = ServerConnection(table)
        send = server.receive_bytes(IM)[0]
        assert isinstance(send, Send)
        assert send.data == bytes.fromhex("01 00 00 12 4100 4F4E4500 4101 54574F00 5000 41414100")

    @pytest.mark.parametrize(
        ("first", "code"),
        [
            (bytes.fromhex("00 00 00 04 01 00 10 DA"), ErrorCode.WRONG_ENDIAN),
            (bytes.fromhex("00 00 04 00 00 01 DA 10"), ErrorCode.WRONG_ENDIAN),
            (bytes.fromhex("00 00 00 04 00 01 BE EF"), ErrorCode.BAD_MAGIC),
            (bytes.fromhex("00 00 00 04 00 02 DA 10"), ErrorCode.VERSION_MISMATCH),
            (bytes.fromhex("00 00 00 02 00 01"), ErrorCode.SHORT_MESSAGE),
            (NME_DM, ErrorCode.IM_NOT_FIRST),
            (EMPTY_RM, ErrorCode.IM_NOT_FIRST),
            (bytes.fromhex("07 00 00 00"), ErrorCode.UNKNOWN_TYPE),
            (b"GET / HTTP/1.1\r\n", ErrorCode.UNKNOWN_TYPE),
        ],
    )
    def test_bad_start(self, first: bytes, code: ErrorCode) -> None:
        server = ServerConnection(STANDARD)
        send, closed = server.receive_bytes(first)
        assert send == Send(em_frame(code))
        assert isinstance(closed, Closed) and closed.error == code and not closed.by_peer
        assert server.state is State.CLOSED
        assert server.receive_bytes(IM) == []

    @pytest.mark.parametrize(
        ("data", "code"),
        [
            (IM, ErrorCode.DUPLICATE_IM),
            (EMPTY_RM, ErrorCode.RM_FROM_CLIENT),
            (bytes.fromhex("09 00 00 00"), ErrorCode.UNKNOWN_TYPE),
            (bytes.fromhex("02 00 00 00"), ErrorCode.SHORT_MESSAGE),
            (bytes.fromhex("02 00 00 03 48 03 00"), ErrorCode.SHORT_MESSAGE),
            (bytes.fromhex("04 00 00 01 00"), ErrorCode.SHORT_MESSAGE),
            (bytes.fromhex("02 00 00 04 48 0D 5F FF"), ErrorCode.INVALID_TOKEN),
            (bytes.fromhex("02 00 00 02 58 00"), ErrorCode.INVALID_TOKEN),
        ],
    )
    def test_protocol_errors_when_open(self, data: bytes, code: ErrorCode) -> None:
        server = open_server()
        events = server.receive_bytes(data)
        assert events[0] == Send(em_frame(code))
        assert isinstance(events[1], Closed) and events[1].error == code
        with pytest.raises(ConnectionClosedError):
            server.send(messages.Off())

    def test_unknown_token_is_a_language_error_by_default(self) -> None:
        server = open_server()
        (event,) = server.receive_bytes(bytes.fromhex("02 00 00 04 48 03 4A 0D"))
        assert isinstance(event, Unparsed)
        assert event.reply == messages.Huh(("GOF", "ERR", "0x4A0D"))
        strict = open_server(strict_tokens=True)
        events = strict.receive_bytes(bytes.fromhex("02 00 00 04 48 03 4A 0D"))
        assert events[0] == Send(em_frame(ErrorCode.INVALID_TOKEN))

    def test_syntax_error_gets_huh_and_stays_open(self) -> None:
        server = open_server()
        (event,) = server.receive_bytes(bytes.fromhex("02 00 00 02 48 14"))  # bare REJ
        assert isinstance(event, Unparsed)
        assert event.reply == messages.Huh(("REJ", "ERR"))
        assert server.state is State.OPEN
        assert server.send(event.reply) == bytes.fromhex(
            "02 00 00 0A 48 06 40 00 48 14 49 02 40 01"
        )

    def test_unbalanced_gets_prn(self) -> None:
        server = open_server()
        (event,) = server.receive_bytes(bytes.fromhex("02 00 00 06 48 0D 40 00 48 03"))
        assert isinstance(event, Unparsed)
        assert event.reply == messages.Prn(("NOT", "(", "GOF"))

    def test_peer_close(self) -> None:
        server = open_server()
        assert server.receive_bytes(FM + NME_DM) == [
            Closed(None, by_peer=True, reason="FM received")
        ]
        server = open_server()
        assert server.receive_bytes(em_frame(0x0E)) == [
            Closed(ErrorCode.INVALID_TOKEN, by_peer=True, reason="EM received")
        ]

    def test_close_sends_fm_once(self) -> None:
        server = open_server()
        assert server.close() == FM
        assert server.close() == b""

    def test_timeouts(self) -> None:
        server = ServerConnection(STANDARD)
        assert server.timeout() == [
            Send(EM_TIMER),
            Closed(ErrorCode.IM_TIMEOUT, by_peer=False, reason="no IM within 30 s"),
        ]
        server = open_server()
        assert not server.waiting and server.timeout() == []
        server.receive_bytes(NME_DM[:7])
        assert server.waiting
        events = server.timeout()
        assert events[0] == Send(em_frame(ErrorCode.SHORT_MESSAGE))

    def test_no_dm_before_handshake(self) -> None:
        with pytest.raises(ConnectionClosedError):
            ServerConnection(STANDARD).send(messages.Off())


class TestClient:
    def test_handshake(self) -> None:
        client = ClientConnection()
        assert client.start() == IM
        # a client may send NME before the RM arrives, as real bots do
        assert client.send(messages.Nme("Bot", "1")) == NME_DM
        assert client.receive_bytes(EMPTY_RM) == [Ready(STANDARD)]
        (event,) = client.receive_bytes(NME_DM)
        assert isinstance(event, Received)

    def test_full_rm_defines_the_tokens(self) -> None:
        client = ClientConnection()
        rm = rm_frame(TokenTable.from_records([(0x4100, "ONE"), (0x5000, "AAA")]))
        (ready,) = client.receive_bytes(rm)
        assert isinstance(ready, Ready) and ready.table.value_of["ONE"] == 0x4100
        (event,) = client.receive_bytes(
            encode_dm(messages.Ccd("ENG"), STANDARD)
        )  # ENG no longer exists
        assert isinstance(event, Unparsed)
        (event,) = client.receive_bytes(bytes.fromhex("02 00 00 08 48 00 40 00 41 00 40 01"))
        assert isinstance(event, Received) and event.message == messages.Ccd("ONE")

    def test_parlance_numbering(self) -> None:
        client = ClientConnection(ccl_nar=CclNar.PARLANCE)
        client.receive_bytes(EMPTY_RM)
        snd = messages.Snd(("FRA",), messages.Ccl(messages.Prp(messages.Drw())))
        assert bytes.fromhex("4A 25") in client.send(snd)

    @pytest.mark.parametrize(
        ("data", "code"),
        [
            (IM, ErrorCode.IM_FROM_SERVER),
            (NME_DM, ErrorCode.DM_BEFORE_RM),
            (bytes.fromhex("01 00 00 05 41 00 41 55 53"), ErrorCode.SHORT_MESSAGE),
            (bytes.fromhex("01 00 00 06 42 00 41 55 53 00"), ErrorCode.INVALID_TOKEN),
            (bytes.fromhex("05 00 00 00"), ErrorCode.UNKNOWN_TYPE),
        ],
    )
    def test_bad_start(self, data: bytes, code: ErrorCode) -> None:
        client = ClientConnection()
        client.start()
        events = client.receive_bytes(data)
        assert events[0] == Send(em_frame(code))
        assert isinstance(events[1], Closed)

    def test_second_rm(self) -> None:
        client = ClientConnection()
        client.receive_bytes(EMPTY_RM)
        assert client.receive_bytes(EMPTY_RM)[0] == Send(em_frame(ErrorCode.DUPLICATE_RM))
