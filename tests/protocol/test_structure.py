"""The grammar, the typed-value builder and the renderer cover each other."""

import dataclasses

from diplomat.protocol import messages
from diplomat.protocol.render import _HANDLERS
from diplomat.protocol.syntax import _Build, _lark


def test_every_grammar_rule_builds_a_typed_value() -> None:
    missing = set()
    for rule in _lark().rules:
        name = rule.alias or rule.origin.name
        if name.startswith("_") or (rule.options.expand1 and not rule.alias):
            continue  # Lark's own helper rules, and ?rules that pass their child up
        if not hasattr(_Build, name):
            missing.add(name)
    assert not missing


def test_every_message_class_renders() -> None:
    classes = {
        obj
        for obj in vars(messages).values()
        if isinstance(obj, type)
        and dataclasses.is_dataclass(obj)
        and obj.__module__ == messages.__name__
        and obj not in (messages.AnyUnit, messages.NoteResult, messages.Variant, messages.SmrEntry)
    }
    assert classes - set(_HANDLERS) == set()
