"""What people say to each other beyond the DAIDE menus: draw votes and free text.

Draws: a seat votes for a draw (``DRW``; in a game with partial draws, ``DRW (powers)``) and
takes the vote back (``NOT (DRW)``). The game master counts the votes (``server.draws``) and
ends the game when every survivor votes for the same draw in one phase; DAIDE tells nobody who
has voted, so the page shows the seat's own votes, as the game confirmed them (``YES``), and
says that the others' are secret. Votes end with the phase, as DAIDE has it.

Free text (press level 8000): ``SND (powers) ('text')``, to one or more powers, relayed by the
game as any press. A program that cannot read it answers ``HUH``, which the page shows as
"Germany (a program) does not read free text" rather than as a machine's echo.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from diplomat.protocol import messages
from diplomat.protocol.english import Names, join
from diplomat.protocol.press_levels import FREE_TEXT
from diplomat.protocol.pressbook import PressItem
from diplomat.web.gate import FREE_TEXT_MOST


@dataclass
class DrawBallot:
    """One seat's draw votes in the phase in progress, as the game confirmed them."""

    power: str
    pda: bool  # partial draws allowed: a vote may name the draw's powers
    names: Names
    votes: set[tuple[str, ...]] = field(default_factory=set)  # () stands for all survivors

    def new_phase(self) -> None:
        self.votes.clear()

    def request(
        self, data: Mapping[str, Any], alive: Sequence[str]
    ) -> messages.Drw | messages.Not | str:
        """A page's ``{"t": "draw", "on": bool, "powers": [...]}``: the message to send the
        game, or why not (for the page)."""
        if self.power not in alive:
            return "Only a power still in the game votes on a draw."
        on = data.get("on", True)
        if not isinstance(on, bool):
            return 'A draw vote says "on": true or false.'
        listed = data.get("powers")
        if listed is None:
            drw = messages.Drw()
        else:
            if not self.pda:
                return "This game has no partial draws: a draw includes every survivor."
            if not isinstance(listed, list) or not all(isinstance(p, str) for p in listed):
                return "A partial draw names its powers."
            powers = tuple(sorted({p.upper() for p in listed}))
            if len(powers) < 2 or any(p not in alive for p in powers):
                return "A partial draw names at least two powers still in the game."
            drw = messages.Drw(powers)
        return drw if on else messages.Not(drw)

    def confirmed(self, msg: messages.Drw | messages.Not) -> None:
        """The game said YES to a vote (``DRW``) or to taking it back (``NOT (DRW)``)."""
        drw = msg if isinstance(msg, messages.Drw) else msg.inner
        if not isinstance(drw, messages.Drw):
            return
        key = tuple(drw.powers) if drw.powers is not None else ()
        if isinstance(msg, messages.Drw):
            self.votes.add(key)
        else:
            self.votes.discard(key)

    def restore(self, flags: Sequence[str]) -> None:
        """The votes the store holds for this seat (its flags ``draw``, ``draw:POW POW``), after
        the page's session was made anew."""
        for flag in flags:
            if flag == "draw":
                self.votes.add(())
            elif flag.startswith("draw:"):
                self.votes.add(tuple(flag[5:].split()))

    def view(self, alive: Sequence[str], playing: bool) -> dict[str, Any]:
        names = self.names

        def label(key: tuple[str, ...]) -> str:
            if not key:
                return "a draw of every power still in the game"
            return "a draw of " + join([names.power(p) for p in key])

        return {
            "open": playing and self.power in alive,
            "pda": self.pda,
            "votes": [{"powers": list(k) or None, "text": label(k)} for k in sorted(self.votes)],
            "alive": [{"power": p, "name": names.power(p)} for p in alive],
        }


def free_text(
    data: Mapping[str, Any], me: str, level: int, reachable: Sequence[str]
) -> messages.Snd | str:
    """A page's ``{"t": "talk", "to": [...], "text": "..."}``: the SND, or why not."""
    if level < FREE_TEXT:
        return f"Free text needs press level {FREE_TEXT}; this game's is {level}."
    text = data.get("text")
    to = data.get("to")
    if not isinstance(text, str) or not text.strip():
        return "Write something first."
    if len(text) > FREE_TEXT_MOST:
        return f"A message holds at most {FREE_TEXT_MOST} characters ({len(text)} written)."
    if not isinstance(to, list) or not to or not all(isinstance(p, str) for p in to):
        return "Choose whom to send it to."
    powers = tuple(dict.fromkeys(p.upper() for p in to))
    for p in powers:
        if p == me or p not in reachable:
            return f"{p} cannot receive press now."
    # Text tokens hold any character but a line break reads better as a space on the wire.
    return messages.Snd(powers, messages.FreeText(" ".join(text.split())))


def unread_by_program(item: PressItem, names: Names) -> str | None:
    """The page's words for a ``HUH`` that echoes free text: the sender is a program that
    cannot read it (a person's page never sends HUH)."""
    press = item.press
    if not isinstance(press, messages.Huh) or not any(w.startswith("'") for w in press.tokens):
        return None
    return f"{names.power(item.sender)} (a program) does not read free text"


__all__ = ["DrawBallot", "free_text", "unread_by_program"]
