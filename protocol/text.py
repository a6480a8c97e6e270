"""The DAIDE text form: reading words into atoms and printing atoms as canonical text.

Canonical output (spec §5.1, §5.5) is every token as its upper-case mnemonic, each bracket its
own word, integers in signed decimal, strings in single quotes with an apostrophe doubled, all
separated by single spaces: ``NME ( 'it''s' ) ( '1.0' )``.

Input is tolerant: any case; brackets with or without spaces (also ``BRA``/``KET``); strings in
single quotes (``''`` escape) or, as Parlance writes them, double quotes (``""`` or ``\\"``
escape). Two extensions make every binary message printable and re-readable: a real number
(DAIDE++ ULB/UUB) is written as Python prints a float, and a token value the table does not
know is written ``0xHHHH``.
"""

from __future__ import annotations

import re

from diplomat.protocol.atoms import Atom, Atoms, Unknown
from diplomat.protocol.tokens import BRA, INT_MAX, INT_MIN, KET, TokenTable

_WORD = re.compile(
    r"""
      (?P<space>\s+)
    | (?P<bra>\()
    | (?P<ket>\))
    | '(?P<sq>(?:[^']|'')*)'
    | "(?P<dq>(?:[^"\\]|""|\\.)*)"
    | (?P<hex>0[xX][0-9A-Fa-f]{4})(?![\w.])
    | (?P<real>[-+]?(?:\d*\.\d+|\d+\.)(?:[eE][-+]?\d+)?|[-+]?\d+[eE][-+]?\d+)(?![\w.])
    | (?P<int>[-+]?\d+)(?![\w.])
    | (?P<name>[A-Za-z][A-Za-z0-9_]*)
    | (?P<junk>['"].*|\S[^\s()'"]*)
    """,
    re.VERBOSE | re.DOTALL,
)

_SYNONYMS = {"BRA": BRA, "KET": KET}
_BACKSLASH = re.compile(r"\\(.)", re.DOTALL)
_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f]")


def atoms_from_text(text: str, table: TokenTable) -> Atoms:
    """Read one message in text form. Never raises: what is no token becomes
    :class:`Unknown`, and the parser reports it with ERR in front of it."""
    if "'" not in text and '"' not in text:
        # Without strings, words are what lies between spaces and brackets: a split and one
        # dict lookup per word, instead of the full tokenizer (most messages are like this).
        value_of = table.value_of
        fast: list[Atom] = []
        for word in text.replace("(", " ( ").replace(")", " ) ").split():
            value = value_of.get(word)
            if value is None:
                value = value_of.get(word.upper())
                if value is None:
                    fast.extend(_read(word, table))
                    continue
            fast.append(value)
        return tuple(fast)
    return _read(text, table)


def _read(text: str, table: TokenTable) -> Atoms:
    out: list[Atom] = []
    append = out.append
    value_of = table.value_of
    for m in _WORD.finditer(text):
        kind = m.lastgroup or "junk"
        if kind == "space":
            continue
        if kind == "name":
            word = m.group(kind).upper()
            value = value_of.get(word)
            if value is None:
                value = _SYNONYMS.get(word)
            append(Unknown(m.group(kind)) if value is None else value)
        elif kind == "bra":
            append(BRA)
        elif kind == "ket":
            append(KET)
        elif kind == "int":
            number = int(m.group(kind))
            if INT_MIN <= number <= INT_MAX:
                append(number & 0x3FFF)
            else:
                append(Unknown(m.group(kind)))
        elif kind == "sq":
            s = m.group(kind).replace("''", "'")
            if s:  # an empty string is no tokens at all, as on the wire
                append(s)
        elif kind == "dq":
            s = _BACKSLASH.sub(r"\1", m.group(kind).replace('""', '"'))
            if s:
                append(s)
        elif kind == "hex":
            append(int(m.group(kind), 16))
        elif kind == "real":
            append(float(m.group(kind)))
        else:
            append(Unknown(m.group(kind)))
    return tuple(out)


def quote(s: str) -> str:
    """A string in canonical text form. Control characters cannot be spelled in DAIDE text
    (and would break the line transport), so they print as ``?``; the parser never accepts
    such strings, so this only affects echoes in HUH/PRN and decoded captures."""
    if _UNPRINTABLE.search(s):
        s = _UNPRINTABLE.sub("?", s)
    return "'" + s.replace("'", "''") + "'"


def word_of(atom: Atom, table: TokenTable) -> str:
    if type(atom) is int:
        return table.word(atom)
    if type(atom) is str:
        return quote(atom)
    if isinstance(atom, float):
        return repr(atom)
    assert isinstance(atom, Unknown)
    return atom.text


def text_from_atoms(atoms: Atoms, table: TokenTable) -> str:
    name_of = table.name_of
    words: list[str] = []
    append = words.append
    for atom in atoms:
        if type(atom) is int:
            name = name_of.get(atom)
            append(name if name is not None else table.word(atom))
        else:
            append(word_of(atom, table))
    return " ".join(words)
