"""DAIDE press in English: one sentence per press message, at every level.

``sentence("ENG", ("FRA",), Prp(Pce(("ENG", "FRA"))), names)`` is
``England to France: I propose peace between England and France.``; :func:`describe` gives the
part after the colon, for a page that shows the sender and the recipients by themselves. The
levels the bots and the web page speak (10 to 30: ``PRP``, the replies, ``CCL``, ``PCE``, ``ALY
... VSS``, ``DRW``, ``SLO``, ``NOT``, ``NAR``, ``XDO``, ``DMZ``, ``AND``, ``ORR``) read as
players write; the higher levels get a plain rendering of what they say, and anything else
(a construct this module does not know) its DAIDE text, so no press ever fails to render.

The machine handshake (:func:`handshake`: ``TRY``, the list of press a bot discusses, and
``HUH``, "I did not understand") reads as a sentence too, but is not for people by default: the
page and ``diplomat show --press`` hide it unless asked, since every negotiating bot opens a
game with a ``TRY`` to every power and a ``HUH`` to a proposal is already shown as the
proposal's state ("not understood").

Pure: names come from a :class:`Names` (a map's power and province names and its token table,
or none, in which case the tokens stand and DAIDE is not rendered).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from diplomat.engine.map import GameMap
from diplomat.engine.notation import SEASON_NAMES
from diplomat.engine.orders import Order, order_power
from diplomat.engine.state import Phase, Unit
from diplomat.protocol import messages
from diplomat.protocol.codec import codec_for
from diplomat.protocol.mdf import table_for_map
from diplomat.protocol.syntax import ParseError
from diplomat.protocol.tokens import TokenTable


@dataclass(frozen=True)
class Names:
    """The names to write for power and province tokens (a token without one stands as is)."""

    powers: Mapping[str, str] = field(default_factory=dict)
    provinces: Mapping[str, str] = field(default_factory=dict)
    table: TokenTable | None = None  # the game's tokens: to read a HUH's echo, to show DAIDE

    @classmethod
    def of_map(cls, gmap: GameMap) -> Names:
        return cls(
            {p: info.name for p, info in gmap.power_info.items()},
            {p: prov.name for p, prov in gmap.provinces.items()},
            table_for_map(gmap),
        )

    def power(self, token: str) -> str:
        return self.powers.get(token, token)

    def province(self, loc: str) -> str:
        prov, _, coast = loc.partition("/")
        name = self.provinces.get(prov, prov)
        return f"{name} ({coast.lower()})" if coast else name


def join(words: Sequence[str], last: str = "and") -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    words = list(words)
    if not words:
        return "nobody"
    if len(words) == 1:
        return words[0]
    return f"{', '.join(words[:-1])} {last} {words[-1]}"


def sentence(
    sender: str, recipients: Sequence[str], press: messages.Press, names: Names | None = None
) -> str:
    """``England to France and Germany: I propose ...`` (a full stop at the end)."""
    n = names or Names()
    to = join([n.power(p) for p in recipients])
    return f"{n.power(sender)} to {to}: {_stop(describe(press, n))}"


def describe(press: messages.Press, names: Names | None = None) -> str:
    """What a press message (or a reply) says, in the first person, without the full stop:
    ``I propose peace between England and France``."""
    n = names or Names()
    try:
        return _English(n).press(press)
    except (AttributeError, KeyError, TypeError, ValueError):
        return f"(in DAIDE) {_daide(press, n.table)}"


def arrangement(arr: messages.Arrangement, names: Names | None = None) -> str:
    """An arrangement alone: ``peace between England and France``."""
    n = names or Names()
    try:
        return _English(n).arr(arr)
    except (AttributeError, KeyError, TypeError, ValueError):
        return _daide(arr, n.table)


def turn_name(turn: Phase) -> str:
    return f"{SEASON_NAMES.get(turn.season, turn.season)} {turn.year}"


def _stop(text: str) -> str:
    return text if text.endswith((".", "?", "!")) else text + "."


def _daide(obj: messages.Construct, table: TokenTable | None) -> str:
    if table is None:
        return repr(obj)  # no map, no tokens to spell it with
    try:
        return codec_for(table).text(obj)
    except (AttributeError, KeyError, TypeError, ValueError):
        return repr(obj)


class _English:
    def __init__(self, names: Names) -> None:
        self.n = names

    # -- pieces --------------------------------------------------------------------------------

    def powers(self, powers: Sequence[str]) -> str:
        return join([self.n.power(p) for p in powers])

    def places(self, provinces: Sequence[str], last: str = "and") -> str:
        return join([self.n.province(p) for p in provinces], last)

    def unit(self, u: Unit | messages.AnyUnit) -> str:
        kind = "unit" if isinstance(u, messages.AnyUnit) else ("army" if u.type == "A" else "fleet")
        return f"{self.n.power(u.power)}'s {kind} in {self.n.province(u.loc)}"

    def order(self, order: Order) -> str:
        return f"{self.n.power(order_power(order))} orders {order}"

    # -- press messages ------------------------------------------------------------------------

    def press(self, pm: messages.Construct) -> str:
        handler = _PRESS.get(type(pm))
        if handler is None:
            return f"(in DAIDE) {_daide(pm, self.n.table)}"
        return handler(self, pm)

    def quoted(self, pm: messages.Construct) -> str:
        """A press message as the object of a reply: ``your proposal of peace ...``."""
        if isinstance(pm, messages.Prp):
            return f"the proposal of {self.arr(pm.arrangement)}"
        if isinstance(pm, messages.Ins):
            return f"the demand for {self.arr(pm.arrangement)}"
        if isinstance(pm, messages.Sug):
            return f"the suggestion of {self.arr(pm.arrangement)}"
        if isinstance(pm, messages.Qry):
            return f"the question whether {self.clause(pm.arrangement)}"
        if isinstance(pm, messages.Ccl):
            return f"the cancellation of {self.quoted(pm.press)}"
        return f"“{self.press(pm)}”"

    def clause(self, arr: messages.Construct) -> str:
        """An arrangement as a statement: ``there is peace between ...``."""
        if isinstance(arr, messages.Xdo):
            return self.order(arr.order)
        return f"there is {self.arr(arr)}"

    # -- arrangements --------------------------------------------------------------------------

    def arr(self, a: messages.Construct) -> str:
        handler = _ARR.get(type(a))
        if handler is None:
            return f"(in DAIDE) {_daide(a, self.n.table)}"
        return handler(self, a)


def _press_handlers() -> dict[type, Callable[[_English, Any], str]]:
    return {
        messages.Prp: lambda s, pm: f"I propose {s.arr(pm.arrangement)}",
        messages.Yes: lambda s, pm: (
            f"I agree to {s.arr(pm.inner.arrangement)}"
            if isinstance(pm.inner, messages.Prp)
            else f"Yes to {s.quoted(pm.inner)}"
        ),
        messages.Rej: lambda s, pm: (
            f"I reject {s.arr(pm.inner.arrangement)}"
            if isinstance(pm.inner, messages.Prp)
            else f"No to {s.quoted(pm.inner)}"
        ),
        messages.Bwx: lambda s, pm: f"Not now: I will not discuss {s.quoted(pm.press)}",
        messages.Huh: _huh,
        messages.Ccl: lambda s, pm: (
            f"I cancel my proposal of {s.arr(pm.press.arrangement)}"
            if isinstance(pm.press, messages.Prp)
            else f"I take back {s.quoted(pm.press)}"
        ),
        messages.Fct: lambda s, pm: f"It is a fact that {_fact(s, pm.content)}",
        messages.Try: lambda s, pm: (
            f"I can discuss only {join(_topics(pm.tokens))}"
            if pm.tokens
            else "I understand no press at all"
        ),
        messages.Ins: lambda s, pm: f"I insist on {s.arr(pm.arrangement)}",
        messages.Qry: lambda s, pm: f"Is it true that {s.clause(pm.arrangement)}?",
        messages.Sug: lambda s, pm: f"I suggest {s.arr(pm.arrangement)}",
        messages.Thk: lambda s, pm: f"I think that {_fact(s, pm.content)}",
        messages.Idk: lambda s, pm: f"I don't know about {s.quoted(pm.press)}",
        messages.Wht: lambda s, pm: f"What do you propose for {s.unit(pm.unit)}?",
        messages.How: lambda s, pm: (
            f"How shall we attack {s.n.power(pm.target)}?"
            if pm.target in s.n.powers
            else f"How shall we take {s.n.province(pm.target)}?"
        ),
        messages.Exp: lambda s, pm: (
            f"Explain what you said in {turn_name(pm.turn)}: “{s.press(pm.press)}”"
        ),
        messages.Sry: lambda s, pm: f"I am sorry about what I said in {turn_name(pm.exp.turn)}",
        messages.Iff: lambda s, pm: (
            f"If {s.arr(pm.condition)}, then: {s.press(pm.then)}"
            + (f"; otherwise: {s.press(pm.otherwise)}" if pm.otherwise is not None else "")
        ),
        messages.Frm: lambda s, pm: (
            f"{s.n.power(pm.sender)} told {s.powers(pm.recipients)}: “{s.press(pm.press)}”"
        ),
        messages.FreeText: lambda s, pm: f"“{pm.text}”",
        messages.Why: lambda s, pm: f"Why {s.quoted(pm.press)}?",
        messages.Pob: lambda s, pm: "Because of the position on the board",
        messages.Uhy: lambda s, pm: f"I am unhappy about {s.quoted(pm.press)}",
        messages.Hpy: lambda s, pm: f"I am happy about {s.quoted(pm.press)}",
        messages.Ang: lambda s, pm: f"I am angry about {s.quoted(pm.press)}",
    }


# What each press token lets a player talk about, for TRY and HUH (tokens that only complete
# another, like VSS after ALY, say nothing of their own).
TOPICS: dict[str, str] = {
    "PRP": "proposals",
    "YES": "answers",
    "REJ": "answers",
    "BWX": "answers",
    "HUH": "answers",
    "CCL": "cancelling proposals",
    "FCT": "facts",
    "TRY": "what we discuss",
    "PCE": "peace",
    "ALY": "alliances",
    "DRW": "draws",
    "SLO": "solo wins",
    "NOT": "negations",
    "NAR": "ending agreements",
    "XDO": "orders",
    "DMZ": "demilitarised zones",
    "AND": "combined proposals",
    "ORR": "alternatives",
    "SCD": "sharing supply centres",
    "OCC": "placing units",
    "INS": "demands",
    "QRY": "questions",
    "THK": "opinions",
    "IDK": "not knowing",
    "SUG": "suggestions",
    "WHT": "asking for orders",
    "HOW": "plans of attack",
    "EXP": "explanations",
    "SRY": "apologies",
    "FOR": "future phases",
    "IFF": "conditions",
    "XOY": "favours",
    "YDO": "giving orders for another",
    "FRM": "passing messages on",
    "FWD": "forwarding",
    "BCC": "copies",
    "WHY": "reasons",
    "POB": "reasons",
    "UHY": "feelings",
    "HPY": "feelings",
    "ANG": "feelings",
    "ROF": "requests for offers",
    "ULB": "value bounds",
    "UUB": "value bounds",
    "CHO": "choices",
}


def handshake(press: messages.Press) -> bool:
    """Whether a press message is the machine handshake, not words for people: ``TRY`` (what
    a bot discusses) and ``HUH`` (a message it could not read; a person sees that as the
    proposal's state)."""
    return isinstance(press, messages.Try | messages.Huh)


def _topics(tokens: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(TOPICS.get(t, t) for t in tokens if t != "VSS"))


def _huh(s: _English, pm: messages.Huh) -> str:
    """``HUH (... ERR ...)``: what was not understood, read back from the echo, and the
    token the reader stumbled on."""
    words = list(pm.tokens)
    at = words.index("ERR") if "ERR" in words else 0
    echo = [w for w in words if w != "ERR"]
    after = echo[at] if at < len(echo) else None
    where = ""
    if at > 0 and after is not None:
        where = f" (I cannot discuss {TOPICS.get(after, after)})"
    quoted = _echoed(s, echo)
    if quoted is None:
        return f"I did not understand a message of yours{where}"
    what = s.quoted(quoted)
    what = "your " + what[4:] if what.startswith("the ") else what
    return f"I did not understand {what}{where}"


def _echoed(s: _English, echo: Sequence[str]) -> messages.Press | None:
    """The press message a HUH echoes, or None when it cannot be read back."""
    if s.n.table is None or not echo:
        return None
    try:
        anyone = s.n.table.powers[0][0]  # an SND needs a recipient; any power will do
        msg = codec_for(s.n.table).parse_text(f"SND ( {anyone} ) ( {' '.join(echo)} )")
    except (ParseError, IndexError, KeyError, ValueError):
        return None
    return msg.press if isinstance(msg, messages.Snd) else None


def _fact(s: _English, content: messages.Construct) -> str:
    if isinstance(content, messages.Qry):
        return s.clause(content.arrangement)
    if isinstance(content, messages.Not) and isinstance(content.inner, messages.Qry):
        return f"it is not so that {s.clause(content.inner.arrangement)}"
    return s.clause(content)


def _not(s: _English, a: messages.Not) -> str:
    inner = a.inner
    if isinstance(inner, messages.Xdo):
        return f"{s.n.power(order_power(inner.order))} not ordering {inner.order}"
    if isinstance(inner, messages.Pce):
        return f"no peace between {s.powers(inner.powers)}"
    if isinstance(inner, messages.Drw):
        return "no draw"
    return f"not {s.arr(inner)}"


def _arr_handlers() -> dict[type, Callable[[_English, Any], str]]:
    return {
        messages.Pce: lambda s, a: f"peace between {s.powers(a.powers)}",
        messages.Aly: lambda s, a: (
            f"an alliance of {s.powers(a.allies)} against {s.powers(a.versus)}"
        ),
        messages.Drw: lambda s, a: f"a draw between {s.powers(a.powers)}" if a.powers else "a draw",
        messages.Slo: lambda s, a: f"a solo win for {s.n.power(a.power)}",
        messages.Not: _not,
        messages.Nar: lambda s, a: f"no agreement on {s.arr(a.inner)}",
        messages.Xdo: lambda s, a: f"{s.n.power(order_power(a.order))} ordering {a.order}",
        messages.Dmz: lambda s, a: (
            f"a demilitarised zone in {s.places(a.provinces)} (no unit of "
            f"{join([s.n.power(p) for p in a.powers], 'or')} there)"
        ),
        messages.And: lambda s, a: ", and ".join(s.arr(x) for x in a.arrangements),
        messages.Orr: lambda s, a: "either " + ", or ".join(s.arr(x) for x in a.arrangements),
        messages.Scd: lambda s, a: (
            "supply centres shared out: "
            + "; ".join(
                f"{s.n.power(p)} gets {s.places(cs) if cs else 'none'}" for p, cs in a.allocations
            )
        ),
        messages.Occ: lambda s, a: "the units placed: " + join([s.unit(u) for u in a.units]),
        messages.Cho: lambda s, a: (
            f"between {a.minimum} and {a.maximum} of: "
            + join([s.arr(x) for x in a.arrangements], "and")
        ),
        messages.For: lambda s, a: (
            f"{s.arr(a.arrangement)} in {turn_name(a.turn)}"
            if a.until is None
            else f"{s.arr(a.arrangement)} from {turn_name(a.turn)} to {turn_name(a.until)}"
        ),
        messages.Xoy: lambda s, a: f"{s.n.power(a.debtor)} owing {s.n.power(a.creditor)} a favour",
        messages.Ydo: lambda s, a: (
            f"{s.n.power(a.power)} deciding the orders of " + join([s.unit(u) for u in a.units])
        ),
        messages.SndArrangement: lambda s, a: (
            f"{s.n.power(a.sender)} telling {s.powers(a.recipients)}: “{s.press(a.press)}”"
        ),
        messages.Fwd: lambda s, a: (
            f"{s.n.power(a.forwarder)} passing on to {s.n.power(a.recipient)} every message "
            f"from {s.powers(a.senders)}"
        ),
        messages.Bcc: lambda s, a: (
            f"{s.n.power(a.sender)} copying to {s.n.power(a.copy_to)} every message it sends "
            f"to {s.powers(a.recipients)}"
        ),
        messages.Rof: lambda s, a: "a request for offers",
        messages.Ulb: lambda s, a: f"a value of at least {a.value:g} for {s.n.power(a.power)}",
        messages.Uub: lambda s, a: f"a value of at most {a.value:g} for {s.n.power(a.power)}",
    }


_PRESS = _press_handlers()
_ARR = _arr_handlers()

__all__ = [
    "TOPICS",
    "Names",
    "arrangement",
    "describe",
    "handshake",
    "join",
    "sentence",
    "turn_name",
]
