"""Rendering typed messages to atoms: the exact inverse of the grammar.

The renderer can also note, for each press construct it writes, the atom where it starts and
the press level it needs (its "marks"); ``protocol.levels`` turns those into a message's level
and the position of ERR when a message is above a game's level. Keeping that here means the one
walk over a message that knows its shape is this one.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from diplomat.engine.orders import (
    Build,
    Convoy,
    Disband,
    Hold,
    Move,
    Order,
    Remove,
    Result,
    Retreat,
    SupportHold,
    SupportMove,
    Waive,
)
from diplomat.engine.state import Dislodged, Phase, Unit
from diplomat.protocol import messages
from diplomat.protocol.atoms import Atom, Atoms
from diplomat.protocol.mdf import MapDefinition
from diplomat.protocol.press_levels import FREE_TEXT, PRESS, TOKEN_LEVEL
from diplomat.protocol.text import atoms_from_text
from diplomat.protocol.tokens import BRA, COAST_TOKEN, KET, UNIT_TOKEN, TokenTable, encode_int


class RenderError(ValueError):
    """A typed value that has no DAIDE spelling (an unknown token, a CTO without VIA ...)."""


# How deep messages may nest inside one another when rendered: deeper than anything parsed can be
# (protocol.syntax.MAX_DEPTH brackets) with the wrapping of replies, and far short of Python's
# recursion limit (each level is a few frames). A message built deeper in code is a RenderError,
# not a RecursionError in whoever renders it.
RENDER_DEPTH = 100

# A mark: (atom index where a construct starts, press level it needs, is it AND/ORR).
Mark = tuple[int, int, bool]


class Renderer:
    __slots__ = ("_v", "depth", "marks", "out", "press", "table")

    def __init__(self, table: TokenTable, marks: list[Mark] | None = None) -> None:
        self.table = table
        self._v = table.value_of
        self.out: list[Atom] = []
        self.marks = marks
        self.press = False  # inside SND/FRM: constructs shared with level 0 cost press levels
        self.depth = 0  # messages open around the one being written

    # -- primitives
    def tok(self, name: str) -> None:
        try:
            self.out.append(self._v[name])
        except KeyError:
            raise RenderError(f"{name!r} is not a token of this game") from None

    def mark(self, level: int, multipart: bool = False) -> None:
        if self.marks is not None:
            self.marks.append((len(self.out), level, multipart))

    def construct(self, name: str) -> None:
        """A press construct led by token ``name``, at the level the table gives it."""
        self.mark(TOKEN_LEVEL[name])
        self.tok(name)

    def number(self, n: int) -> None:
        try:
            self.out.append(encode_int(n))
        except ValueError as exc:
            raise RenderError(str(exc)) from None

    def string(self, s: str) -> None:
        # An empty string is no tokens at all, and control characters are not DAIDE text.
        if not s or not s.isprintable():
            raise RenderError(f"{s!r} cannot be sent: strings must be printable and non-empty")
        self.out.append(s)

    def bracketed_string(self, s: str) -> None:
        self.out.append(BRA)
        self.string(s)
        self.out.append(KET)

    def names(self, names: tuple[str, ...], may_be_empty: bool = False) -> None:
        if not names and not may_be_empty:
            raise RenderError("a list of tokens here needs at least one")
        out, v = self.out, self._v
        out.append(BRA)
        try:
            out.extend(v[n] for n in names)
        except KeyError as exc:
            raise RenderError(f"{exc.args[0]!r} is not a token of this game") from None
        out.append(KET)

    def loc(self, loc: str) -> None:
        slash = loc.find("/")
        if slash < 0:
            self.tok(loc)
            return
        self.out.append(BRA)
        self.tok(loc[:slash])
        coast = COAST_TOKEN.get(loc[slash + 1 :])
        if coast is None:
            raise RenderError(f"unknown coast in {loc!r}")
        self.tok(coast)
        self.out.append(KET)

    def unit(self, u: Unit | messages.AnyUnit) -> None:
        self.out.append(BRA)
        self.unit_body(u)
        self.out.append(KET)

    def unit_body(self, u: Unit | messages.AnyUnit) -> None:
        self.tok(u.power)
        if isinstance(u, messages.AnyUnit):
            self.tok("UNT")
        else:
            utype = UNIT_TOKEN.get(u.type)
            if utype is None:
                raise RenderError(f"unit type {u.type!r} is neither A nor F")
            self.tok(utype)
        self.loc(u.loc)

    def turn(self, t: Phase) -> None:
        self.out.append(BRA)
        self.tok(t.season)
        self.number(t.year)
        self.out.append(KET)

    def now_unit(self, u: Unit | Dislodged) -> None:
        if isinstance(u, Unit):
            self.unit(u)
            return
        # A dislodged unit shares its bracket with its retreats: (ENG FLT LON MRT (...)).
        self.out.append(BRA)
        self.unit_body(u.unit)
        self.tok("MRT")
        self.out.append(BRA)
        for loc in u.retreats:
            self.loc(loc)
        self.out.extend((KET, KET))

    def order(self, o: Order) -> None:
        out = self.out
        if isinstance(o, Waive):
            out.append(BRA)
            self.tok(o.power)
            self.tok("WVE")
            out.append(KET)
            return
        out.append(BRA)
        self.unit(o.unit)
        if isinstance(o, Hold):
            self.tok("HLD")
        elif isinstance(o, Move):
            if o.convoy:
                if o.via is None:
                    raise RenderError("a convoyed move (CTO) needs its VIA route")
                self.tok("CTO")
                self.tok(o.dest)
                self.tok("VIA")
                self.names(o.via)
            else:
                if o.via is not None:
                    raise RenderError("a VIA route is only for a convoyed move")
                self.tok("MTO")
                self.loc(o.dest)
        elif isinstance(o, SupportHold):
            self.tok("SUP")
            self.unit(o.target)
        elif isinstance(o, SupportMove):
            self.tok("SUP")
            self.unit(o.target)
            self.tok("MTO")
            self.tok(o.dest)
        elif isinstance(o, Convoy):
            self.tok("CVY")
            self.unit(o.target)
            self.tok("CTO")
            self.tok(o.dest)
        elif isinstance(o, Retreat):
            self.tok("RTO")
            self.loc(o.dest)
        elif isinstance(o, Disband):
            self.tok("DSB")
        elif isinstance(o, Build):
            self.tok("BLD")
        elif isinstance(o, Remove):
            self.tok("REM")
        else:
            raise RenderError(f"not an order: {o!r}")
        out.append(KET)

    def result(self, r: Result | messages.NoteResult) -> None:
        self.out.append(BRA)
        if isinstance(r, Result):
            self.tok(r.outcome.value)
            if r.dislodged:
                self.tok("RET")
        elif r.note is None:
            if not r.retreat:
                raise RenderError("an ORD result needs an outcome, a note or RET")
            self.tok("RET")
        else:
            if r.retreat:
                raise RenderError("a note result cannot carry RET")
            self.tok(r.note.value)
        self.out.append(KET)

    def message(self, msg: messages.Construct) -> None:
        handler = _HANDLERS.get(type(msg))
        if handler is None:
            raise RenderError(f"not a DAIDE message: {msg!r}")
        handler(self, msg)

    def inner(self, msg: messages.Construct) -> None:
        if self.depth >= RENDER_DEPTH:
            raise RenderError(f"a message nested more than {RENDER_DEPTH} deep")
        self.depth += 1
        self.out.append(BRA)
        self.message(msg)
        self.out.append(KET)
        self.depth -= 1


# -- one function per class --------------------------------------------------------------------

Handler = Callable[[Renderer, Any], None]
_HANDLERS: dict[type, Handler] = {}


def _handles(*classes: type) -> Callable[[Handler], Handler]:
    def register(fn: Handler) -> Handler:
        for cls in classes:
            _HANDLERS[cls] = fn
        return fn

    return register


def _simple(name: str, level: int | None = None) -> Handler:
    def handler(r: Renderer, msg: messages.Construct) -> None:
        if level is not None:
            r.mark(level)
        r.tok(name)

    return handler


def _wrapping(name: str, field: str) -> Handler:
    """``NAME ( inner )`` for a construct whose one field is another construct."""

    def handler(r: Renderer, msg: messages.Construct) -> None:
        r.construct(name)
        r.inner(getattr(msg, field))

    return handler


_HANDLERS[messages.Obs] = _simple("OBS")
_HANDLERS[messages.Gof] = _simple("GOF")
_HANDLERS[messages.Off] = _simple("OFF")
_HANDLERS[messages.Rof] = _simple("ROF", TOKEN_LEVEL["ROF"])


@_handles(messages.Nme)
def _nme(r: Renderer, msg: messages.Nme) -> None:
    r.tok("NME")
    r.bracketed_string(msg.name)
    r.bracketed_string(msg.version)


@_handles(messages.Adm)
def _adm(r: Renderer, msg: messages.Adm) -> None:
    r.tok("ADM")
    r.bracketed_string(msg.name)
    r.bracketed_string(msg.text)


@_handles(messages.Iam)
def _iam(r: Renderer, msg: messages.Iam) -> None:
    r.tok("IAM")
    r.names((msg.power,))
    r.out.append(BRA)
    r.number(msg.passcode)
    r.out.append(KET)


@_handles(messages.Map, messages.Sve, messages.Lod)
def _named(r: Renderer, msg: messages.Map | messages.Sve | messages.Lod) -> None:
    r.tok(type(msg).__name__.upper())
    if msg.name is not None:
        r.bracketed_string(msg.name)


@_handles(messages.Mdf)
def _mdf(r: Renderer, msg: messages.Mdf) -> None:
    r.tok("MDF")
    if msg.definition is not None:
        _map_definition(r, msg.definition)


def _map_definition(r: Renderer, d: MapDefinition) -> None:
    if not d.centres or not d.adjacencies:
        raise RenderError("an MDF needs centre groups and adjacencies")
    out = r.out
    r.names(d.powers)
    out.extend((BRA, BRA))
    for group in d.centres:
        out.append(BRA)
        if len(group.owners) == 1:
            r.tok(group.owners[0])
        else:
            r.names(group.owners)
        for c in group.centres:
            r.tok(c)
        out.append(KET)
    out.append(KET)
    r.names(d.non_centres, may_be_empty=True)
    out.extend((KET, BRA))
    for adjacency in d.adjacencies:
        if not adjacency.entries:
            raise RenderError(f"{adjacency.province} has no adjacency entry")
        out.append(BRA)
        r.tok(adjacency.province)
        for entry in adjacency.entries:
            out.append(BRA)
            utype = UNIT_TOKEN[entry.unit_type]
            if entry.coast is None:
                r.tok(utype)
            else:
                out.append(BRA)
                r.tok(utype)
                r.tok(COAST_TOKEN[entry.coast])
                out.append(KET)
            for dest in entry.dests:
                r.loc(dest)
            out.append(KET)
        out.append(KET)
    out.append(KET)


_VARIANT_NUMBERS = (("MTL", "mtl"), ("RTL", "rtl"), ("BTL", "btl"))
_VARIANT_FLAGS = (("DSD", "dsd"), ("AOA", "aoa"), ("PDA", "pda"), ("NPR", "npr"), ("NPB", "npb"))


@_handles(messages.Hlo)
def _hlo(r: Renderer, msg: messages.Hlo) -> None:
    r.tok("HLO")
    if msg.power is None and msg.passcode is None and msg.variant is None:
        return
    if msg.power is None or msg.passcode is None or msg.variant is None:
        raise RenderError("HLO needs a power, a passcode and a variant (or none of them)")
    out = r.out
    r.names((msg.power,))
    out.append(BRA)
    r.number(msg.passcode)
    out.extend((KET, BRA, BRA))
    v = msg.variant
    r.tok("LVL")
    r.number(v.level)
    out.append(KET)
    for name, field in _VARIANT_NUMBERS:
        value = getattr(v, field)
        if value is not None:
            out.append(BRA)
            r.tok(name)
            r.number(value)
            out.append(KET)
    for name, field in _VARIANT_FLAGS:
        if getattr(v, field):
            out.append(BRA)
            r.tok(name)
            out.append(KET)
    if v.ptl is not None:
        out.append(BRA)
        r.tok("PTL")
        r.number(v.ptl)
        out.append(KET)
    out.append(KET)


@_handles(messages.Now)
def _now(r: Renderer, msg: messages.Now) -> None:
    r.tok("NOW")
    if msg.turn is None:
        if msg.units:
            raise RenderError("a NOW with units needs its turn")
        return
    r.turn(msg.turn)
    for u in msg.units:
        r.now_unit(u)


@_handles(messages.Sco)
def _sco(r: Renderer, msg: messages.Sco) -> None:
    r.tok("SCO")
    for owner, centres in msg.owners:
        r.names((owner, *centres))


@_handles(messages.Hst)
def _hst(r: Renderer, msg: messages.Hst) -> None:
    r.tok("HST")
    if msg.turn is not None:
        r.turn(msg.turn)


@_handles(messages.Sub)
def _sub(r: Renderer, msg: messages.Sub) -> None:
    r.tok("SUB")
    if not msg.orders:
        raise RenderError("SUB needs at least one order")
    if msg.turn is not None:
        r.turn(msg.turn)
    for o in msg.orders:
        r.order(o)


@_handles(messages.Thx)
def _thx(r: Renderer, msg: messages.Thx) -> None:
    r.tok("THX")
    r.order(msg.order)
    r.names((msg.note.value,))


@_handles(messages.Mis)
def _mis(r: Renderer, msg: messages.Mis) -> None:
    r.tok("MIS")
    if msg.count is not None:
        if msg.units:
            raise RenderError("MIS lists units or a count, not both")
        r.out.append(BRA)
        r.number(msg.count)
        r.out.append(KET)
    for u in msg.units:
        r.now_unit(u)


@_handles(messages.Ord)
def _ord(r: Renderer, msg: messages.Ord) -> None:
    r.tok("ORD")
    if msg.turn is None and msg.order is None and msg.result is None:
        return
    if msg.turn is None or msg.order is None or msg.result is None:
        raise RenderError("ORD needs a turn, an order and a result (or none of them)")
    r.turn(msg.turn)
    r.order(msg.order)
    r.result(msg.result)


@_handles(messages.Tme)
def _tme(r: Renderer, msg: messages.Tme) -> None:
    r.tok("TME")
    if msg.seconds is not None:
        r.out.append(BRA)
        r.number(msg.seconds)
        r.out.append(KET)


@_handles(messages.Drw)
def _drw(r: Renderer, msg: messages.Drw) -> None:
    if r.press or msg.powers is not None:  # a partial draw is press (level 10)
        r.mark(TOKEN_LEVEL["DRW"])
    r.tok("DRW")
    if msg.powers is not None:
        r.names(msg.powers)


@_handles(messages.Slo, messages.Ccd, messages.Out)
def _power_message(r: Renderer, msg: messages.Slo | messages.Ccd | messages.Out) -> None:
    if r.press:  # a level-0 message written inside press
        r.mark(PRESS)
    r.tok(type(msg).__name__.upper())
    r.names((msg.power,))


@_handles(messages.Smr)
def _smr(r: Renderer, msg: messages.Smr) -> None:
    out = r.out
    r.tok("SMR")
    if msg.turn is None:
        if msg.entries:
            raise RenderError("SMR entries need the turn")
        return
    if not msg.entries:
        raise RenderError("SMR needs one entry per power")
    r.turn(msg.turn)
    for e in msg.entries:
        out.append(BRA)
        r.tok(e.power)
        r.bracketed_string(e.name)
        r.bracketed_string(e.version)
        r.number(e.centres)
        if e.eliminated is not None:
            r.number(e.eliminated)
        out.append(KET)


@_handles(messages.Not, messages.Yes, messages.Rej, messages.Nar)
def _negation(r: Renderer, msg: messages.Not | messages.Yes | messages.Rej | messages.Nar) -> None:
    if r.press:  # a level-0 message written inside press
        r.mark(PRESS)
    r.tok(type(msg).__name__.upper())
    if isinstance(msg, messages.Not) and isinstance(msg.inner, messages.Sub) and not r.press:
        # NOT (SUB) and NOT (SUB (order)): a SUB that may be empty, never with a turn.
        r.out.append(BRA)
        r.tok("SUB")
        if len(msg.inner.orders) > 1 or msg.inner.turn is not None:
            raise RenderError("NOT (SUB ...) cancels all orders or one order")
        for o in msg.inner.orders:
            r.order(o)
        r.out.append(KET)
        return
    r.inner(msg.inner)


@_handles(messages.Huh, messages.Prn)
def _echo(r: Renderer, msg: messages.Huh | messages.Prn) -> None:
    if r.press:  # a level-0 message written inside press
        r.mark(PRESS)
    r.tok(type(msg).__name__.upper())
    r.out.append(BRA)
    v = r._v
    for word in msg.tokens:
        value = v.get(word)
        if value is not None:
            r.out.append(value)
        else:
            r.out.extend(atoms_from_text(word, r.table))
    r.out.append(KET)


@_handles(messages.Snd)
def _snd(r: Renderer, msg: messages.Snd) -> None:
    r.mark(PRESS)  # the message; SND inside press is forwarding (_snd_arrangement)
    r.tok("SND")
    if msg.turn is not None:
        r.turn(msg.turn)
    r.names(msg.recipients)
    _press_in(r, msg.press)


@_handles(messages.Frm)
def _frm(r: Renderer, msg: messages.Frm) -> None:
    # A message at level 10; inside press, forwarding (level 120).
    r.mark(TOKEN_LEVEL["FRM"] if r.press else PRESS)
    r.tok("FRM")
    r.names((msg.sender,))
    r.names(msg.recipients)
    _press_in(r, msg.press)


def _press_in(r: Renderer, press: messages.Press) -> None:
    was = r.press
    r.press = True
    r.inner(press)
    r.press = was


@_handles(messages.Prp)
def _prp(r: Renderer, msg: messages.Prp) -> None:
    r.construct("PRP")
    a = msg.arrangement
    if isinstance(a, messages.And | messages.Orr):
        r.out.append(BRA)
        _multipart(r, a, under_prp=True)
        r.out.append(KET)
    else:
        r.inner(a)


def _multipart(r: Renderer, msg: messages.And | messages.Orr, under_prp: bool) -> None:
    if len(msg.arrangements) < 2:
        raise RenderError(f"{type(msg).__name__.upper()} needs two arrangements or more")
    # Level 30 allows one AND or ORR straight under PRP; anything more is level 50 (CHO's).
    name = type(msg).__name__.upper()
    r.mark(TOKEN_LEVEL[name] if under_prp else TOKEN_LEVEL["CHO"], multipart=True)
    r.tok(name)
    for a in msg.arrangements:
        r.inner(a)


@_handles(messages.And, messages.Orr)
def _and_orr(r: Renderer, msg: messages.And | messages.Orr) -> None:
    _multipart(r, msg, under_prp=False)


_HANDLERS[messages.Ccl] = _wrapping("CCL", "press")
_HANDLERS[messages.Fct] = _wrapping("FCT", "content")
_HANDLERS[messages.Bwx] = _wrapping("BWX", "press")
_HANDLERS[messages.Ins] = _wrapping("INS", "arrangement")
_HANDLERS[messages.Qry] = _wrapping("QRY", "arrangement")
_HANDLERS[messages.Sug] = _wrapping("SUG", "arrangement")
_HANDLERS[messages.Thk] = _wrapping("THK", "content")
_HANDLERS[messages.Sry] = _wrapping("SRY", "exp")
_HANDLERS[messages.Why] = _wrapping("WHY", "press")
_HANDLERS[messages.Pob] = _wrapping("POB", "why")
_HANDLERS[messages.Uhy] = _wrapping("UHY", "press")
_HANDLERS[messages.Hpy] = _wrapping("HPY", "press")
_HANDLERS[messages.Ang] = _wrapping("ANG", "press")


@_handles(messages.Wht)
def _wht(r: Renderer, msg: messages.Wht) -> None:
    r.construct("WHT")
    r.unit(msg.unit)


@_handles(messages.Idk)
def _idk(r: Renderer, msg: messages.Idk) -> None:
    # IDK of a query is level 60; of a proposal, insistence or suggestion, level 130 (WHY's).
    explains = isinstance(msg.press, messages.Prp | messages.Ins | messages.Sug)
    r.mark(TOKEN_LEVEL["WHY"] if explains else TOKEN_LEVEL["IDK"])
    r.tok("IDK")
    r.inner(msg.press)


@_handles(messages.Try)
def _try(r: Renderer, msg: messages.Try) -> None:
    r.construct("TRY")
    r.names(msg.tokens, may_be_empty=True)


@_handles(messages.How)
def _how(r: Renderer, msg: messages.How) -> None:
    r.construct("HOW")
    r.names((msg.target,))


@_handles(messages.Exp)
def _exp(r: Renderer, msg: messages.Exp) -> None:
    r.construct("EXP")
    r.turn(msg.turn)
    r.inner(msg.press)


@_handles(messages.Iff)
def _iff(r: Renderer, msg: messages.Iff) -> None:
    r.construct("IFF")
    r.inner(msg.condition)
    r.tok("THN")
    r.inner(msg.then)
    if msg.otherwise is not None:
        r.tok("ELS")
        r.inner(msg.otherwise)


@_handles(messages.FreeText)
def _free_text(r: Renderer, msg: messages.FreeText) -> None:
    r.mark(FREE_TEXT)
    if not msg.text:
        raise RenderError("free text cannot be empty")
    r.out.append(msg.text)


@_handles(messages.Pce)
def _pce(r: Renderer, msg: messages.Pce) -> None:
    r.construct("PCE")
    r.names(msg.powers)


@_handles(messages.Aly)
def _aly(r: Renderer, msg: messages.Aly) -> None:
    r.construct("ALY")
    r.names(msg.allies)
    r.tok("VSS")
    r.names(msg.versus)


@_handles(messages.Xdo)
def _xdo(r: Renderer, msg: messages.Xdo) -> None:
    r.construct("XDO")
    r.order(msg.order)


@_handles(messages.Dmz)
def _dmz(r: Renderer, msg: messages.Dmz) -> None:
    r.construct("DMZ")
    r.names(msg.powers)
    r.names(msg.provinces)


@_handles(messages.Scd)
def _scd(r: Renderer, msg: messages.Scd) -> None:
    r.construct("SCD")
    if not msg.allocations:
        raise RenderError("SCD needs at least one power")
    for power, centres in msg.allocations:
        r.names((power, *centres))


@_handles(messages.Occ)
def _occ(r: Renderer, msg: messages.Occ) -> None:
    r.construct("OCC")
    if not msg.units:
        raise RenderError("OCC needs at least one unit")
    for u in msg.units:
        r.unit(u)


@_handles(messages.Cho)
def _cho(r: Renderer, msg: messages.Cho) -> None:
    r.construct("CHO")
    r.out.append(BRA)
    r.number(msg.minimum)
    r.number(msg.maximum)
    r.out.append(KET)
    if not msg.arrangements:
        raise RenderError("CHO needs at least one arrangement")
    for a in msg.arrangements:
        r.inner(a)


@_handles(messages.For)
def _for(r: Renderer, msg: messages.For) -> None:
    r.construct("FOR")
    if msg.until is None:
        r.turn(msg.turn)
    else:
        r.out.append(BRA)
        r.turn(msg.turn)
        r.turn(msg.until)
        r.out.append(KET)
    r.inner(msg.arrangement)


@_handles(messages.Xoy)
def _xoy(r: Renderer, msg: messages.Xoy) -> None:
    r.construct("XOY")
    r.names((msg.debtor,))
    r.names((msg.creditor,))


@_handles(messages.Ydo)
def _ydo(r: Renderer, msg: messages.Ydo) -> None:
    r.construct("YDO")
    r.names((msg.power,))
    if not msg.units:
        raise RenderError("YDO needs at least one unit")
    for u in msg.units:
        r.unit(u)


@_handles(messages.SndArrangement)
def _snd_arrangement(r: Renderer, msg: messages.SndArrangement) -> None:
    r.construct("SND")
    r.names((msg.sender,))
    r.names(msg.recipients)
    r.inner(msg.press)


@_handles(messages.Fwd)
def _fwd(r: Renderer, msg: messages.Fwd) -> None:
    r.construct("FWD")
    r.names(msg.senders)
    r.names((msg.forwarder,))
    r.names((msg.recipient,))


@_handles(messages.Bcc)
def _bcc(r: Renderer, msg: messages.Bcc) -> None:
    r.construct("BCC")
    r.names((msg.sender,))
    r.names(msg.recipients)
    r.names((msg.copy_to,))


@_handles(messages.Ulb, messages.Uub)
def _bound(r: Renderer, msg: messages.Ulb | messages.Uub) -> None:
    r.construct(type(msg).__name__.upper())
    if not math.isfinite(msg.value):
        raise RenderError(f"{msg.value!r} is not a finite number")
    r.out.append(BRA)
    r.tok(msg.power)
    r.out.append(float(msg.value))
    r.out.append(KET)


def render_atoms(message: messages.Construct, table: TokenTable) -> Atoms:
    r = Renderer(table)
    r.message(message)
    return tuple(r.out)


def render_marked(message: messages.Construct, table: TokenTable) -> tuple[Atoms, list[Mark]]:
    marks: list[Mark] = []
    r = Renderer(table, marks)
    r.message(message)
    return tuple(r.out), marks
