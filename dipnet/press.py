"""Press between DAIDE players and the ``diplomacy`` package's clients: DAIDE press reaches
the package's clients as its English rendering with the DAIDE beside it; the package's
free-text messages reach DAIDE players as level-8000 free text."""

from __future__ import annotations

from collections.abc import Iterable

from diplomat.dipnet.saved_game import Message
from diplomat.engine.map import GameMap
from diplomat.protocol import messages
from diplomat.protocol.codec import codec_for
from diplomat.protocol.english import Names, describe
from diplomat.protocol.mdf import table_for_map
from diplomat.protocol.syntax import ParseError
from diplomat.replay.package_notation import power_name


class PressWriter:
    """DAIDE press of one map's game as the package's messages."""

    def __init__(self, gmap: GameMap) -> None:
        self.map = gmap
        self.codec = codec_for(table_for_map(gmap))
        self.names = Names.of_map(gmap)
        self._last_time = 0

    def text(self, sender: str, recipients: Iterable[str], body: str) -> str:
        """``I propose peace between England and France. [DAIDE: PRP ( PCE ( ENG FRA ) )]``"""
        to = " ".join(recipients)
        try:
            msg = self.codec.parse_text(f"FRM ( {sender} ) ( {to} ) ( {body} )")
        except ParseError:
            return f"[DAIDE: {body}]"
        if not isinstance(msg, messages.Frm):
            return f"[DAIDE: {body}]"
        return self.text_of(msg.press)

    def text_of(self, press: messages.Press) -> str:
        """A press message's English, with its DAIDE beside it; free text as it was written
        (the package's messages are free text)."""
        if isinstance(press, messages.FreeText):
            return press.text
        return f"{describe(press, self.names)}. [DAIDE: {self.codec.text(press)}]"

    def daide(
        self, sender: str, recipients: Iterable[str], body: str, phase: str, sent: float
    ) -> list[Message]:
        """One message per recipient (the package's messages have one), each with its own
        ``time_sent`` (the package keys messages by it), increasing."""
        recipients = list(recipients)
        text = self.text(sender, recipients, body)
        out = []
        for r in recipients:
            self._last_time = max(self._last_time + 1, int(sent * 1_000_000))
            out.append(
                Message(
                    power_name(self.map, sender),
                    power_name(self.map, r),
                    self._last_time,
                    phase,
                    text,
                )
            )
        return out
