"""Parsing atoms into typed messages with the Lark grammar in ``grammar/daide.lark``.

Lark's LALR parser runs over a lexer that hands it the atoms of a message as Lark tokens (no
text is re-lexed for binary input), and builds typed messages rule by rule as it reduces (an
inline transformer, so no parse tree is built). Token objects for named tokens are made once per
token table and shared between parses.

On failure the parser's position is known: the lexer records which atom it handed out last, so
the HUH reply puts ERR right before the token the parser could not take (spec §3.8); checks on a
token's value (a save-game name too long ...) put it before that token. A message with unbalanced
brackets is answered with PRN instead.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any, cast

from lark import Lark, Token, Transformer
from lark.exceptions import UnexpectedInput
from lark.lexer import Lexer

from diplomat.engine.orders import (
    Build,
    Convoy,
    Disband,
    Hold,
    Move,
    Note,
    Outcome,
    Remove,
    Result,
    Retreat,
    SupportHold,
    SupportMove,
    Waive,
)
from diplomat.engine.state import Dislodged, Phase, Unit
from diplomat.protocol import messages
from diplomat.protocol.atoms import Atoms, Unknown
from diplomat.protocol.mdf import AdjacencyEntry, CentreGroup, MapDefinition, ProvinceAdjacency
from diplomat.protocol.text import quote, word_of
from diplomat.protocol.tokens import BRA, COAST_NAME, KET, UNIT_TYPE, TokenTable, decode_int

HUH_TOKEN = 0x4806
PRN_TOKEN = 0x4813

# Bounds checked on the atoms before the parser or anything recursive sees them (a message nested
# a thousand deep would end the process with a RecursionError in whatever walks it next). The
# deepest message a bot composes is about a dozen brackets (a forwarded FRM holding a PRP of an
# AND of XDOs), at most a few more in nested multipart press (level 50 and up); 64 leaves ample
# slack, while every recursive walk (rendering, English, the negotiators) stays a few hundred
# frames deep. Any message fits the binary limit of 32767 tokens.
MAX_DEPTH = 64
MAX_ATOMS = 0x7FFF


@dataclass(frozen=True, slots=True)
class Bounds:
    """The most atoms and the deepest bracket nesting a parser takes in one message."""

    atoms: int = MAX_ATOMS
    depth: int = MAX_DEPTH


WIRE = Bounds()
# What a server takes from a client: a SUB of every unit or a PRP of twenty XDOs is a few hundred
# atoms; and a few levels fewer than WIRE, so that the server's answers wrapping the message
# (YES (SND ...), FRM) stay within every reader's WIRE bounds.
FROM_CLIENT = Bounds(atoms=4096, depth=MAX_DEPTH - 4)


class ParseError(Exception):
    """A message that is not DAIDE. ``reply`` is what to answer: ``HUH`` with ERR at
    ``position`` (an index into the atoms), ``PRN`` for unbalanced brackets, or None when the
    message was itself a HUH or PRN (those are never answered with HUH or PRN)."""

    def __init__(
        self, reason: str, position: int | None, reply: messages.Huh | messages.Prn | None
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.position = position
        self.reply = reply


class _Reject(Exception):
    """A token whose value a rule refuses."""

    def __init__(self, token: Token, reason: str) -> None:
        super().__init__(reason)
        self.token = token
        self.reason = reason


class _Feed:
    __slots__ = ("atoms", "pos", "tokens")

    def __init__(self, atoms: Atoms, tokens: dict[int, Token]) -> None:
        self.atoms = atoms
        self.tokens = tokens
        self.pos = 0


class _AtomLexer(Lexer):
    def __init__(self, lexer_conf: Any) -> None:
        pass

    def lex(self, feed: _Feed) -> Iterator[Token]:  # type: ignore[override]
        named = feed.tokens
        for i, atom in enumerate(feed.atoms):
            feed.pos = i
            if type(atom) is int:
                tok = named.get(atom)
                if tok is None:
                    if atom < 0x4000:
                        tok = Token("NUMBER", decode_int(atom), i)
                    else:
                        tok = Token("UNKNOWN", f"0x{atom:04X}", i)
            elif type(atom) is str:
                # Control characters have no place in DAIDE text (spec §2.3), and would break
                # the line transport if relayed.
                if atom.isprintable():
                    tok = Token("STRING", atom, i)
                else:
                    tok = Token("UNKNOWN", quote(atom), i)
            elif isinstance(atom, float):
                tok = Token("FLOAT", atom, i)
            else:
                assert isinstance(atom, Unknown)
                tok = Token("UNKNOWN", atom.text, i)
            yield tok
        feed.pos = len(feed.atoms)


def _v(tok: Token) -> str:
    value: str = tok.value
    return value


def _loc(loc: Any) -> str:
    return loc if type(loc) is str else loc.value


def _word(tok: Any) -> str:
    if type(tok) is str:
        return tok
    if tok.type == "STRING":
        return quote(tok.value)
    if tok.type in ("NUMBER", "FLOAT"):
        return repr(tok.value)
    value: str = tok.value
    return value


def _name_check(tok: Token, max_len: int | None, what: str) -> str:
    name: str = tok.value
    # "_" alone is a name too: replace, do not drop, the underscores before isalnum().
    if not name.replace("_", "a").isalnum() or not name.isascii():
        raise _Reject(tok, f"{what} must be letters, digits and underscores")
    if max_len is not None and len(name) > max_len:
        raise _Reject(tok, f"{what} is longer than {max_len} characters")
    return name


def _first(cls: Callable[[Any], Any]) -> Callable[[Any, list[Any]], Any]:
    return lambda self, c: cls(c[0])


def _powers(c: Sequence[Any]) -> tuple[str, ...]:
    return tuple(t.value for t in c)


class _Build(Transformer[Token, Any]):
    """One method per grammar rule (or alias): children in, typed value out."""

    # -- shared pieces
    def start(self, c: list[Any]) -> Any:
        return c[0]

    def turn(self, c: list[Any]) -> Phase:
        return Phase(c[0].value, c[1].value)

    def unit(self, c: list[Any]) -> Unit:
        return Unit(c[0].value, UNIT_TYPE[c[1].value], _loc(c[2]))

    def coast_location(self, c: list[Any]) -> str:
        return f"{c[0].value}/{COAST_NAME[c[1].value]}"

    def now_unit(self, c: list[Any]) -> Unit:
        unit: Unit = c[0]
        return unit

    def mrt_unit(self, c: list[Any]) -> Dislodged:
        return Dislodged(c[0], None, tuple(_loc(x) for x in c[1:]))

    def hold(self, c: list[Any]) -> Hold:
        return Hold(c[0])

    def move(self, c: list[Any]) -> Move:
        return Move(c[0], _loc(c[1]))

    def support_hold(self, c: list[Any]) -> SupportHold:
        return SupportHold(c[0], c[1])

    def support_move(self, c: list[Any]) -> SupportMove:
        return SupportMove(c[0], c[1], c[2].value)

    def convoy(self, c: list[Any]) -> Convoy:
        return Convoy(c[0], c[1], c[2].value)

    def convoy_move(self, c: list[Any]) -> Move:
        return Move(c[0], c[1].value, True, tuple(t.value for t in c[2:]))

    def retreat(self, c: list[Any]) -> Retreat:
        return Retreat(c[0], _loc(c[1]))

    def disband(self, c: list[Any]) -> Disband:
        return Disband(c[0])

    def build(self, c: list[Any]) -> Build:
        return Build(c[0])

    def remove(self, c: list[Any]) -> Remove:
        return Remove(c[0])

    def waive(self, c: list[Any]) -> Waive:
        return Waive(c[0].value)

    def note(self, c: list[Any]) -> Note:
        return Note(c[0].value)

    def outcome(self, c: list[Any]) -> Outcome:
        return Outcome(c[0].value)

    # -- joining a game
    def nme(self, c: list[Any]) -> messages.Nme:
        return messages.Nme(c[0].value, c[1].value)

    def obs(self, c: list[Any]) -> messages.Obs:
        return messages.Obs()

    def iam(self, c: list[Any]) -> messages.Iam:
        return messages.Iam(c[0].value, c[1].value)

    def map(self, c: list[Any]) -> messages.Map:
        return messages.Map(None if c[0] is None else _name_check(c[0], None, "a map name"))

    def mdf_request(self, c: list[Any]) -> messages.Mdf:
        return messages.Mdf()

    def mdf(self, c: list[Any]) -> messages.Mdf:
        powers: list[str] = []
        groups: list[CentreGroup] = []
        others: list[str] = []
        adjacencies: list[ProvinceAdjacency] = []
        for x in c:
            if isinstance(x, CentreGroup):
                groups.append(x)
            elif isinstance(x, ProvinceAdjacency):
                adjacencies.append(x)
            elif x.type == "POWER":
                powers.append(x.value)
            else:
                others.append(x.value)
        return messages.Mdf(
            MapDefinition(tuple(powers), tuple(groups), tuple(others), tuple(adjacencies))
        )

    def centre_group(self, c: list[Any]) -> CentreGroup:
        return CentreGroup(c[0], tuple(t.value for t in c[1:]))

    def centre_owner(self, c: list[Any]) -> tuple[str, ...]:
        return tuple(t.value for t in c if t.type not in ("LPAR", "RPAR"))

    def adjacency(self, c: list[Any]) -> ProvinceAdjacency:
        return ProvinceAdjacency(c[0].value, tuple(c[1:]))

    def adjacency_entry(self, c: list[Any]) -> AdjacencyEntry:
        return AdjacencyEntry(UNIT_TYPE[c[0].value], None, tuple(_loc(x) for x in c[1:]))

    def coast_adjacency_entry(self, c: list[Any]) -> AdjacencyEntry:
        return AdjacencyEntry(
            UNIT_TYPE[c[0].value], COAST_NAME[c[1].value], tuple(_loc(x) for x in c[2:])
        )

    def hlo_request(self, c: list[Any]) -> messages.Hlo:
        return messages.Hlo()

    def hlo(self, c: list[Any]) -> messages.Hlo:
        return messages.Hlo(c[0], c[1].value, c[2])

    def hlo_power(self, c: list[Any]) -> str:
        return _v(c[0])

    def variant(self, c: list[Any]) -> messages.Variant:
        return messages.Variant(**dict(c))

    def level_option(self, c: list[Any]) -> tuple[str, int]:
        return ("level", c[0].value)

    def mtl(self, c: list[Any]) -> tuple[str, int]:
        return ("mtl", c[0].value)

    def rtl(self, c: list[Any]) -> tuple[str, int]:
        return ("rtl", c[0].value)

    def btl(self, c: list[Any]) -> tuple[str, int]:
        return ("btl", c[0].value)

    def ptl(self, c: list[Any]) -> tuple[str, int]:
        return ("ptl", c[0].value)

    def dsd(self, c: list[Any]) -> tuple[str, bool]:
        return ("dsd", True)

    def aoa(self, c: list[Any]) -> tuple[str, bool]:
        return ("aoa", True)

    def pda(self, c: list[Any]) -> tuple[str, bool]:
        return ("pda", True)

    def npr(self, c: list[Any]) -> tuple[str, bool]:
        return ("npr", True)

    def npb(self, c: list[Any]) -> tuple[str, bool]:
        return ("npb", True)

    # -- position and history
    def now_request(self, c: list[Any]) -> messages.Now:
        return messages.Now()

    def now(self, c: list[Any]) -> messages.Now:
        return messages.Now(c[0], tuple(c[1:]))

    def sco(self, c: list[Any]) -> messages.Sco:
        return messages.Sco(tuple(c))

    def sco_group(self, c: list[Any]) -> tuple[str, tuple[str, ...]]:
        return (c[0], tuple(t.value for t in c[1:]))

    def sco_owner(self, c: list[Any]) -> str:
        return _v(c[0])

    def hst(self, c: list[Any]) -> messages.Hst:
        return messages.Hst(c[0])

    # -- orders
    def sub(self, c: list[Any]) -> messages.Sub:
        return messages.Sub(tuple(c[1:]), c[0])

    def thx(self, c: list[Any]) -> messages.Thx:
        return messages.Thx(c[0], c[1])

    def mis_none(self, c: list[Any]) -> messages.Mis:
        return messages.Mis()

    def mis_count(self, c: list[Any]) -> messages.Mis:
        return messages.Mis(count=c[0].value)

    def mis(self, c: list[Any]) -> messages.Mis:
        return messages.Mis(tuple(c))

    def gof(self, c: list[Any]) -> messages.Gof:
        return messages.Gof()

    def ord_request(self, c: list[Any]) -> messages.Ord:
        return messages.Ord()

    def ord(self, c: list[Any]) -> messages.Ord:
        return messages.Ord(c[0], c[1], c[2])

    def result(self, c: list[Any]) -> Result:
        return Result(c[0])

    def result_retreat(self, c: list[Any]) -> Result:
        return Result(c[0], True)

    def result_retreat_only(self, c: list[Any]) -> messages.NoteResult:
        return messages.NoteResult(None, True)

    def result_note(self, c: list[Any]) -> messages.NoteResult:
        return messages.NoteResult(c[0])

    # -- deadlines, control, end of game
    def tme(self, c: list[Any]) -> messages.Tme:
        return messages.Tme(None if c[0] is None else c[0].value)

    def drw(self, c: list[Any]) -> messages.Drw:
        return messages.Drw()

    def drw_powers(self, c: list[Any]) -> messages.Drw:
        return messages.Drw(_powers(c))

    def slo(self, c: list[Any]) -> messages.Slo:
        return messages.Slo(c[0].value)

    def smr_request(self, c: list[Any]) -> messages.Smr:
        return messages.Smr()

    def smr(self, c: list[Any]) -> messages.Smr:
        return messages.Smr(c[0], tuple(c[1:]))

    def smr_entry(self, c: list[Any]) -> messages.SmrEntry:
        return messages.SmrEntry(
            c[0].value, c[1].value, c[2].value, c[3].value, None if c[4] is None else c[4].value
        )

    def off(self, c: list[Any]) -> messages.Off:
        return messages.Off()

    def ccd(self, c: list[Any]) -> messages.Ccd:
        return messages.Ccd(c[0].value)

    def out(self, c: list[Any]) -> messages.Out:
        return messages.Out(c[0].value)

    def adm(self, c: list[Any]) -> messages.Adm:
        return messages.Adm(c[0].value, c[1].value)

    def sve(self, c: list[Any]) -> messages.Sve:
        return messages.Sve(_name_check(c[0], 8, "a saved-game name"))

    def lod(self, c: list[Any]) -> messages.Lod:
        return messages.Lod(_name_check(c[0], 8, "a saved-game name"))

    not_msg = _first(messages.Not)

    def sub_cancel(self, c: list[Any]) -> messages.Sub:
        return messages.Sub(() if c[0] is None else (c[0],))

    yes = _first(messages.Yes)
    rej = _first(messages.Rej)

    def huh(self, c: list[Any]) -> messages.Huh:
        return messages.Huh(tuple(w for words in c for w in words))

    def raw(self, c: list[Any]) -> list[str]:
        if len(c) == 1 and type(c[0]) is str:
            return c
        words: list[str] = []
        for x in c:
            if type(x) is list:
                words.extend(x)
            else:
                words.append(_word(x))
        return words

    def raw_word(self, c: list[Any]) -> str:
        return _word(c[0])

    def prn(self, c: list[Any]) -> messages.Prn:
        words: list[str] = c[0]
        words.reverse()
        return messages.Prn(tuple(words[:-1]))

    def prn_tail(self, c: list[Any]) -> list[str]:
        # Right recursion: built back to front, reversed once by prn().
        if not c:
            return [")"]
        words: list[str] = c[1]
        words.append(c[0])
        return words

    def prn_word(self, c: list[Any]) -> str:
        return _word(c[0])

    # -- press
    def snd(self, c: list[Any]) -> messages.Snd:
        return messages.Snd(_powers(c[1:-1]), c[-1], c[0])

    def frm(self, c: list[Any]) -> messages.Frm:
        return messages.Frm(c[0].value, _powers(c[1:-1]), c[-1])

    prp = _first(messages.Prp)
    ccl = _first(messages.Ccl)
    fct = _first(messages.Fct)
    thk = _first(messages.Thk)
    not_query = _first(messages.Not)
    nar_query = _first(messages.Nar)

    def try_pm(self, c: list[Any]) -> messages.Try:
        return messages.Try(tuple(c))

    def try_word(self, c: list[Any]) -> str:
        return _v(c[0])

    ins = _first(messages.Ins)
    qry = _first(messages.Qry)
    sug = _first(messages.Sug)
    wht = _first(messages.Wht)

    def how(self, c: list[Any]) -> messages.How:
        return messages.How(c[0].value)

    def exp(self, c: list[Any]) -> messages.Exp:
        return messages.Exp(c[0], c[1])

    def iff(self, c: list[Any]) -> messages.Iff:
        return messages.Iff(c[0], c[1], c[2])

    def free_text(self, c: list[Any]) -> messages.FreeText:
        return messages.FreeText(c[0].value)

    press_yes = _first(messages.Yes)
    press_rej = _first(messages.Rej)
    bwx = _first(messages.Bwx)
    idk = _first(messages.Idk)
    sry = _first(messages.Sry)
    why = _first(messages.Why)
    pob = _first(messages.Pob)
    uhy = _first(messages.Uhy)
    hpy = _first(messages.Hpy)
    ang = _first(messages.Ang)

    # -- arrangements
    def pce(self, c: list[Any]) -> messages.Pce:
        return messages.Pce(_powers(c))

    def aly(self, c: list[Any]) -> messages.Aly:
        return messages.Aly(_powers(c[:-1]), c[-1])

    def versus(self, c: list[Any]) -> tuple[str, ...]:
        return _powers(c)

    not_arrangement = _first(messages.Not)
    nar = _first(messages.Nar)
    xdo = _first(messages.Xdo)

    def dmz(self, c: list[Any]) -> messages.Dmz:
        return messages.Dmz(
            tuple(t.value for t in c if t.type == "POWER"),
            tuple(t.value for t in c if t.type == "PROVINCE"),
        )

    def and_arrangement(self, c: list[Any]) -> messages.And:
        return messages.And(tuple(c))

    def orr(self, c: list[Any]) -> messages.Orr:
        return messages.Orr(tuple(c))

    def scd(self, c: list[Any]) -> messages.Scd:
        return messages.Scd(tuple(c))

    def scd_group(self, c: list[Any]) -> tuple[str, tuple[str, ...]]:
        return (c[0].value, tuple(t.value for t in c[1:]))

    def occ(self, c: list[Any]) -> messages.Occ:
        return messages.Occ(tuple(c))

    def occ_unit(self, c: list[Any]) -> Unit:
        return self.unit(c)

    def any_unit(self, c: list[Any]) -> messages.AnyUnit:
        return messages.AnyUnit(c[0].value, _loc(c[1]))

    def cho(self, c: list[Any]) -> messages.Cho:
        low, high = c[0], c[1]
        if low.value < 0:
            raise _Reject(low, "CHO needs a minimum of 0 or more")
        if high.value < low.value:
            raise _Reject(high, "CHO maximum is below its minimum")
        return messages.Cho(low.value, high.value, tuple(c[2:]))

    def for_arrangement(self, c: list[Any]) -> messages.For:
        return messages.For(c[0], c[1])

    def for_period(self, c: list[Any]) -> messages.For:
        return messages.For(c[0], c[2], c[1])

    def xoy(self, c: list[Any]) -> messages.Xoy:
        return messages.Xoy(c[0].value, c[1].value)

    def ydo(self, c: list[Any]) -> messages.Ydo:
        return messages.Ydo(c[0].value, tuple(c[1:]))

    def snd_arrangement(self, c: list[Any]) -> messages.SndArrangement:
        return messages.SndArrangement(c[0].value, _powers(c[1:-1]), c[-1])

    def fwd(self, c: list[Any]) -> messages.Fwd:
        return messages.Fwd(_powers(c[:-2]), c[-2].value, c[-1].value)

    def bcc(self, c: list[Any]) -> messages.Bcc:
        return messages.Bcc(c[0].value, _powers(c[1:-1]), c[-1].value)

    def rof(self, c: list[Any]) -> messages.Rof:
        return messages.Rof()

    def ulb(self, c: list[Any]) -> messages.Ulb:
        return messages.Ulb(c[0].value, c[1])

    def uub(self, c: list[Any]) -> messages.Uub:
        return messages.Uub(c[0].value, c[1])

    def real(self, c: list[Any]) -> float:
        value = float(c[0].value)
        if not math.isfinite(value):
            raise _Reject(c[0], "not a finite number")
        return value


@lru_cache(maxsize=1)
def _lark() -> Lark:
    grammar = resources.files("diplomat.grammar").joinpath("daide.lark").read_text(encoding="utf-8")
    # cache=True keeps the built LALR tables in a temporary file: building them costs about
    # 0.25 s, paid by every bot process a tournament starts. Lark rebuilds if the file is bad.
    return Lark(grammar, parser="lalr", lexer=_AtomLexer, transformer=_Build(), cache=True)


def _balanced(atoms: Atoms) -> bool:
    depth = 0
    for atom in atoms:
        if type(atom) is int:
            if atom == BRA:
                depth += 1
            elif atom == KET:
                depth -= 1
                if depth < 0:
                    return False
    return depth == 0


def _beyond(atoms: Atoms, bounds: Bounds) -> tuple[int, int, str] | None:
    """Where ``atoms`` first go past ``bounds``: (position, brackets open there, reason), or
    None when they stay within them. One flat pass, before any recursive work; the part
    before the position is within both bounds (an echo of it is too)."""
    depth, limit = 0, bounds.depth
    for i, atom in enumerate(atoms[: bounds.atoms]):
        if type(atom) is int:
            if atom == BRA:
                depth += 1
                if depth > limit:
                    return i, depth - 1, f"nested deeper than {limit} brackets"
            elif atom == KET and depth:
                depth -= 1
    if len(atoms) > bounds.atoms:
        return bounds.atoms, depth, f"longer than {bounds.atoms} tokens"
    return None


class Parser:
    """Parses atoms against one token table (whose powers and provinces it knows)."""

    def __init__(self, table: TokenTable) -> None:
        self.table = table
        self._lark = _lark()
        self._tokens = {v: Token(t, table.name_of[v]) for v, t in table.terminal_of.items()}

    def parse(self, atoms: Atoms, bounds: Bounds = WIRE) -> messages.Message:
        """The typed message, or :class:`ParseError` with the reply to send. A message past
        ``bounds`` is refused before it is parsed."""
        over = _beyond(atoms, bounds)
        if over is not None:
            pos, depth, reason = over
            head = atoms[0] if atoms and type(atoms[0]) is int else None
            cut = self.cut(atoms, pos, depth) if head not in (HUH_TOKEN, PRN_TOKEN) else None
            raise ParseError(reason, pos, cut)
        feed = _Feed(atoms, self._tokens)
        try:
            # The tree transformer (_Build) makes the parse a typed message.
            message = cast(messages.Message, self._lark.parse(feed))
        except (_Reject, UnexpectedInput) as exc:
            # Only now look at the brackets: whatever parses is balanced (PRN aside).
            head = atoms[0] if atoms and type(atoms[0]) is int else None
            answerable = head not in (HUH_TOKEN, PRN_TOKEN)
            if head != PRN_TOKEN and not _balanced(atoms):
                reply = messages.Prn(self.words(atoms)) if answerable else None
                raise ParseError("brackets do not balance", None, reply) from None
            if isinstance(exc, _Reject):
                pos, reason = exc.token.start_pos or 0, exc.reason
            else:
                pos, reason = feed.pos, "syntax error"
            raise ParseError(reason, pos, self.huh(atoms, pos) if answerable else None) from None
        return message

    def words(self, atoms: Atoms) -> tuple[str, ...]:
        return tuple(word_of(a, self.table) for a in atoms)

    def cut(self, atoms: Atoms, pos: int, depth: int) -> messages.Huh:
        """``HUH`` for a message past its bounds: the message up to atom ``pos``, ERR, then
        the ``depth`` brackets still open closed (the echo stays within the bounds too)."""
        words = [*self.words(atoms[:pos]), "ERR", *(")",) * depth]
        return messages.Huh(tuple(words))

    def huh(self, atoms: Atoms, pos: int) -> messages.Huh:
        """``HUH`` echoing ``atoms`` with ERR before atom ``pos``."""
        words = list(self.words(atoms))
        words.insert(pos, "ERR")
        return messages.Huh(tuple(words))
