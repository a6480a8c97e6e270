"""The client library's game tracking: real message sequences, as a server writes them, through
a real text connection on each side, into a :class:`bots.session.Session`."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

import pytest

from diplomat.bots.base import Bot, View
from diplomat.bots.dumbbot import DumbBot
from diplomat.bots.holdbot import HoldBot
from diplomat.engine.map import load_map
from diplomat.engine.orders import Build, Disband, Hold, Move, Note, Order, Remove, Retreat, Waive
from diplomat.engine.state import Unit, initial_state
from diplomat.protocol import messages
from diplomat.protocol.connection import Received, Unparsed
from diplomat.protocol.lines import TextConnection
from diplomat.protocol.mdf import MapDefinition
from diplomat.protocol.tokens import STANDARD

STANDARD_MAP = load_map("standard")

OPENING_SCO = (
    "SCO ( AUS BUD TRI VIE ) ( ENG EDI LON LVP ) ( FRA BRE MAR PAR ) ( GER BER KIE MUN ) "
    "( ITA NAP ROM VEN ) ( RUS MOS SEV STP WAR ) ( TUR ANK CON SMY ) "
    "( UNO BEL BUL DEN GRE HOL NWY POR RUM SER SPA SWE TUN )"
)
OPENING_NOW = (
    "NOW ( SPR 1901 ) ( AUS AMY BUD ) ( AUS AMY VIE ) ( AUS FLT TRI ) ( ENG FLT EDI ) "
    "( ENG FLT LON ) ( ENG AMY LVP ) ( FRA FLT BRE ) ( FRA AMY MAR ) ( FRA AMY PAR ) "
    "( GER FLT KIE ) ( GER AMY BER ) ( GER AMY MUN ) ( ITA FLT NAP ) ( ITA AMY ROM ) "
    "( ITA AMY VEN ) ( RUS AMY WAR ) ( RUS AMY MOS ) ( RUS FLT SEV ) ( RUS FLT ( STP SCS ) ) "
    "( TUR FLT ANK ) ( TUR AMY CON ) ( TUR AMY SMY )"
)


class Link:
    """A server's text connection wired to a session's: lines in, the session's replies out
    (parsed back by the server's side, as a server would read them)."""

    def __init__(self, session: Any) -> None:
        self.session = session
        self.server = TextConnection(STANDARD)
        self.client = TextConnection(STANDARD)
        self.sent: list[Any] = []  # everything the session sent, as the server parsed it
        self.unparsed: list[Unparsed] = []
        self._take(session.start())

    def _take(self, outgoing: Iterable[Any]) -> None:
        for msg in outgoing:
            for ev in self.server.receive_bytes(self.client.send(msg)):
                assert isinstance(ev, Received), ev
                self.sent.append(ev.message)

    def feed(self, *lines: str) -> list[Any]:
        """Send server lines; returns what the session answered to them."""
        before = len(self.sent)
        data = b"".join(line.encode() + b"\n" for line in lines)
        for ev in self.client.receive_bytes(data):
            if isinstance(ev, Received):
                self._take(self.session.handle(ev.message, ev.atoms))
            elif isinstance(ev, Unparsed):
                self.unparsed.append(ev)
        return self.sent[before:]

    def text(self, msg: messages.Construct) -> str:
        return self.client.codec.text(msg)


def joined(bot: Bot | None = None, power: str = "FRA", **kwargs: Any) -> Link:
    """A session that has joined, accepted the standard map and been given ``power``."""
    from diplomat.bots.session import Session

    link = Link(Session(bot or HoldBot(), seed=1, table=STANDARD, **kwargs))
    link.feed("YES ( NME ( 'HoldBot' ) ( '1.0' ) )")
    assert link.feed("MAP ( 'STANDARD' )") == [messages.Yes(messages.Map("STANDARD"))]
    assert link.feed(f"HLO ( {power} ) ( 1234 ) ( ( LVL 0 ) )") == []
    return link


def test_handshake_asks_for_the_power_with_the_name() -> None:
    from diplomat.bots.session import Session

    link = Link(Session(DumbBot(), power="fra", name="Dumb", version="7", table=STANDARD))
    assert link.sent == [messages.Nme("FRA:Dumb", "7")]
    assert link.feed("YES ( NME ( 'FRA:Dumb' ) ( '7' ) )") == []
    # The standard map is bundled: accepted without asking for its MDF.
    assert link.feed("MAP ( 'standard' )") == [messages.Yes(messages.Map("standard"))]


def test_a_plain_nme_without_power_request() -> None:
    from diplomat.bots.session import Session

    assert Link(Session(HoldBot(), table=STANDARD)).sent == [messages.Nme("HoldBot", "1.0")]


def test_a_game_from_start_to_end() -> None:
    link = joined(DumbBot(), "FRA")
    session = link.session
    assert session.power == "FRA" and session.passcode == 1234
    assert link.feed(OPENING_SCO) == []
    (sub,) = link.feed(OPENING_NOW)
    assert isinstance(sub, messages.Sub)
    assert sub.turn is not None and sub.turn.name == "S1901M"
    assert sorted(o.unit.loc for o in sub.orders if not isinstance(o, Waive)) == [
        "BRE",
        "MAR",
        "PAR",
    ]
    assert session.state == initial_state(load_map("standard"))
    assert link.feed(*(link.text(messages.Thx(o, Note.MBV)) for o in sub.orders)) == []
    assert session.bad_notes == []
    # Results, then the next position: the bot is asked again, for the new turn.
    out = link.feed(
        "ORD ( SPR 1901 ) ( ( FRA AMY PAR ) MTO BUR ) ( SUC )",
        "ORD ( SPR 1901 ) ( ( FRA AMY MAR ) MTO SPA ) ( SUC )",
        "ORD ( SPR 1901 ) ( ( FRA FLT BRE ) MTO MAO ) ( SUC )",
        "NOW ( FAL 1901 ) ( FRA AMY BUR ) ( FRA AMY SPA ) ( FRA FLT MAO ) ( GER AMY MUN )",
    )
    assert len(out) == 1 and out[0].turn.name == "F1901M"
    assert len(session.last_results) == 3
    assert session.state.units["SPA"] == Unit("FRA", "A", "SPA")
    # The same NOW again (a client asked for it) is not a new turn.
    assert link.feed("NOW ( FAL 1901 ) ( FRA AMY BUR ) ( FRA AMY SPA ) ( FRA FLT MAO )") == []
    # SCO updates the centres the next position is built with.
    link.feed(
        "SCO ( AUS BUD TRI VIE ) ( ENG EDI LON LVP ) ( FRA BRE MAR PAR SPA BEL ) "
        "( GER BER KIE MUN ) ( ITA NAP ROM VEN ) ( RUS MOS SEV STP WAR ) ( TUR ANK CON SMY ) "
        "( UNO BUL DEN GRE HOL NWY POR RUM SER SWE TUN )"
    )
    (build,) = link.feed("NOW ( WIN 1901 ) ( FRA AMY BUR ) ( FRA AMY SPA ) ( FRA FLT BEL )")
    assert session.state.centres["SPA"] == "FRA"
    # Three vacant homes and two builds: DumbBot builds twice, on two different homes.
    built = [o for o in build.orders if isinstance(o, Build)]
    assert len(built) == 2 and len({o.unit.province for o in built}) == 2
    assert {o.unit.province for o in built} <= {"BRE", "MAR", "PAR"}
    # The end: a draw, the summary, OFF.
    assert link.feed("DRW", "SMR ( SPR 1902 ) ( FRA ( 'DumbBot' ) ( '1.0' ) 5 )", "OFF") == []
    assert session.game_over and session.done and session.exit_status == 0
    assert session.summary is not None and session.summary.entries[0].centres == 5


def test_other_powers_messages_and_noise_are_ignored() -> None:
    link = joined()
    link.feed(OPENING_SCO)
    link.feed(OPENING_NOW)
    assert link.feed("TME ( 60 )", "ADM ( 'server' ) ( 'hello' )", "HST ( SPR 1901 )") == []
    assert link.feed("CCD ( ENG )", "CCD ( GER )", "NOT ( CCD ( GER ) )", "OUT ( ITA )") == []
    assert link.session.disorder == {"ENG"}
    assert link.session.eliminated == {"ITA"}
    # A line that is no DAIDE at all: the connection reports it; the session never sees it.
    assert link.feed("XYZZY ( 1 2") == []
    assert link.unparsed
    assert not link.session.done


def test_refused_orders_are_logged_and_missing_ones_are_made_good(
    caplog: pytest.LogCaptureFixture,
) -> None:
    link = joined(HoldBot(), "FRA")
    link.feed(OPENING_SCO)
    link.feed(OPENING_NOW)
    with caplog.at_level(logging.WARNING, logger="bots"):
        assert link.feed("THX ( ( FRA AMY PAR ) HLD ) ( NSU )") == []
    assert "NSU" in caplog.text
    assert len(link.session.bad_notes) == 1
    # MIS: the units the server still waits for get the default order (hold).
    (sub,) = link.feed("MIS ( FRA AMY PAR )")
    assert sub.orders == (Hold(Unit("FRA", "A", "PAR")),)
    # A bare MIS means nothing is missing.
    assert link.feed("MIS") == []


def test_missing_adjustments_are_waived_or_removed() -> None:
    link = joined(HoldBot(), "FRA")
    link.feed("SCO ( FRA BRE MAR PAR ) ( UNO SPA )")
    (sub,) = link.feed("NOW ( WIN 1901 ) ( FRA AMY PAR )")
    assert sub.orders == (Waive("FRA"), Waive("FRA"))
    (sub,) = link.feed("MIS ( -1 )")
    assert sub.orders == (Waive("FRA"),)
    link.feed("SCO ( FRA PAR ) ( UNO BRE MAR SPA )")
    (sub,) = link.feed("NOW ( WIN 1902 ) ( FRA AMY PAR ) ( FRA AMY GAS ) ( FRA FLT MAO )")
    assert len(sub.orders) == 2 and all(isinstance(o, Remove) for o in sub.orders)


class Quiet(Bot):
    """Gives no orders at all: the library fills in the defaults."""

    def orders(self, view: View) -> list[Order]:
        return []


class Broken(Bot):
    def orders(self, view: View) -> list[Order]:
        raise RuntimeError("bug in the bot")


@pytest.mark.parametrize("bot", [Quiet(), Broken()])
def test_defaults_fill_in_for_a_silent_or_failing_bot(bot: Bot) -> None:
    link = joined(bot, "RUS")
    link.feed(OPENING_SCO)
    (sub,) = link.feed(OPENING_NOW)
    assert {type(o) for o in sub.orders} == {Hold}
    assert len(sub.orders) == 4


def test_retreats_from_the_mrt_lists() -> None:
    link = joined(DumbBot(), "TUR")
    link.feed(OPENING_SCO)
    (sub,) = link.feed(
        "NOW ( SUM 1901 ) ( TUR FLT CON MRT ( BLA SMY ( BUL ECS ) ) ) ( TUR AMY ANK MRT ( ) ) "
        "( RUS AMY CON ) ( RUS FLT ANK )"
    )
    orders = {o.unit.loc: o for o in sub.orders}
    assert orders["ANK"] == Disband(Unit("TUR", "A", "ANK"))
    assert isinstance(orders["CON"], Retreat)
    assert orders["CON"].dest in ("BLA", "SMY", "BUL/EC")
    assert link.session.state.dislodged["CON"].retreats == ("BLA", "SMY", "BUL/EC")


def test_a_position_with_retreats_our_engine_refuses_is_still_played(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # Another server offers CON a retreat to Bulgaria, which a Russian army holds: the engine
    # would refuse the position; the session drops that option and plays on.
    link = joined(DumbBot(), "TUR")
    link.feed(OPENING_SCO)
    with caplog.at_level(logging.WARNING, logger="bots"):
        (sub,) = link.feed(
            "NOW ( SUM 1901 ) ( TUR FLT CON MRT ( BLA ( BUL ECS ) ) ) ( RUS AMY CON ) "
            "( RUS AMY BUL )"
        )
    assert "without some retreats" in caplog.text
    assert link.session.state.dislodged["CON"].retreats == ("BLA",)
    assert sub.orders == (Retreat(Unit("TUR", "F", "CON"), "BLA"),)


def test_an_unknown_map_is_asked_for_and_built_from_its_mdf() -> None:
    from diplomat.bots.session import Session

    link = Link(Session(HoldBot(), table=STANDARD))
    link.feed("YES ( NME ( 'HoldBot' ) ( '1.0' ) )")
    assert link.feed("MAP ( 'mymap' )") == [messages.Mdf()]
    mdf = link.text(messages.Mdf(MapDefinition.from_map(STANDARD_MAP)))
    assert link.feed(mdf) == [messages.Yes(messages.Map("mymap"))]
    gmap = link.session.map
    assert gmap is not None and gmap.name == "mymap"
    assert gmap.army_adj == STANDARD_MAP.army_adj and gmap.fleet_adj == STANDARD_MAP.fleet_adj
    assert link.feed("HLO ( ENG ) ( 1 ) ( ( LVL 0 ) )", OPENING_SCO) == []
    (sub,) = link.feed(OPENING_NOW)
    assert len(sub.orders) == 3


def test_always_mdf_and_a_position_before_the_map() -> None:
    from diplomat.bots.session import Session

    link = Link(Session(HoldBot(), always_mdf=True, table=STANDARD))
    link.feed("YES ( NME ( 'HoldBot' ) ( '1.0' ) )")
    assert link.feed("MAP ( 'standard' )") == [messages.Mdf()]
    # A position that arrives before the map is kept until the map is known.
    assert link.feed("HLO ( ENG ) ( 1 ) ( ( LVL 0 ) )", OPENING_SCO, OPENING_NOW) == []
    out = link.feed(link.text(messages.Mdf(MapDefinition.from_map(STANDARD_MAP))))
    assert out[0] == messages.Yes(messages.Map("standard"))
    assert isinstance(out[1], messages.Sub) and len(out[1].orders) == 3


def test_rejoining_with_a_passcode() -> None:
    from diplomat.bots.session import Session

    link = Link(Session(HoldBot(), power="GER", passcode=4321, table=STANDARD))
    assert link.sent == [messages.Iam("GER", 4321)]
    # No MAP or HLO follows an IAM: the session asks for all it needs.
    assert link.feed("YES ( IAM ( GER ) ( 4321 ) )") == [
        messages.Map(),
        messages.Hlo(),
        messages.Sco(),
        messages.Now(),
    ]
    assert link.feed("MAP ( 'standard' )") == []  # no YES (MAP): the game is under way
    link.feed("HLO ( GER ) ( 4321 ) ( ( LVL 0 ) )", OPENING_SCO)
    (sub,) = link.feed(OPENING_NOW)
    assert {o.unit.loc for o in sub.orders} == {"BER", "KIE", "MUN"}


def test_a_refused_join_ends_with_failure() -> None:
    from diplomat.bots.session import Session

    link = Link(Session(HoldBot(), power="GER", passcode=1, table=STANDARD))
    link.feed("REJ ( IAM ( GER ) ( 1 ) )")
    assert link.session.done and link.session.exit_status == 1
    link = Link(Session(HoldBot(), table=STANDARD))
    link.feed("REJ ( NME ( 'HoldBot' ) ( '1.0' ) )")
    assert link.session.done and link.session.exit_status == 1


def test_a_connection_lost_mid_game_is_a_failure_and_off_is_not() -> None:
    link = joined()
    link.feed(OPENING_SCO, OPENING_NOW)
    link.session.connection_closed("gone")
    assert link.session.exit_status == 1
    link = joined()
    link.feed("OFF")
    assert link.session.done and link.session.exit_status == 0


def test_press_is_answered_with_huh_then_try() -> None:
    link = joined(power="ENG")
    out = link.feed("FRM ( FRA ) ( ENG ) ( PRP ( PCE ( ENG FRA ) ) )")
    assert [link.text(x) for x in out] == [
        "SND ( FRA ) ( HUH ( ERR PRP ( PCE ( ENG FRA ) ) ) )",
        "SND ( FRA ) ( TRY ( ) )",
    ]
    out = link.feed("FRM ( GER ) ( ENG FRA ) ( 'hello, world' )")
    assert link.text(out[0]) == "SND ( GER ) ( HUH ( ERR 'hello, world' ) )"
    # Answers are never answered: that could go on for ever between two bots.
    assert link.feed("FRM ( FRA ) ( ENG ) ( HUH ( ERR PRP ( PCE ( ENG FRA ) ) ) )") == []
    assert link.feed("FRM ( FRA ) ( ENG ) ( TRY ( ) )") == []
    assert link.feed("FRM ( FRA ) ( ENG ) ( YES ( PRP ( PCE ( ENG FRA ) ) ) )") == []


def test_save_and_load() -> None:
    link = joined(power="AUS")
    assert link.feed("SVE ( 'g1' )") == [messages.Yes(messages.Sve("g1"))]
    assert link.feed("LOD ( 'g1' )") == [messages.Iam("AUS", 1234)]


def test_view_helpers() -> None:
    state = initial_state(load_map("standard"))
    import random

    view = View(state, "RUS", random.Random(0))
    assert [u.loc for u in view.units] == ["MOS", "SEV", "STP/SC", "WAR"]
    assert view.kind == "movement" and view.adjustment == 0 and view.build_sites == []
    legal = view.legal_orders()
    assert set(legal) == {"MOS", "SEV", "STP/SC", "WAR"}
    assert Move(Unit("RUS", "A", "WAR"), "GAL") in legal["WAR"]
