"""The registry's own facts about each bundled bot agree with the bot's module."""

from __future__ import annotations

from diplomat.bots.registry import REGISTRY


def test_a_bot_negotiates_exactly_when_its_entry_names_a_core() -> None:
    # ``negotiates`` lets the page and the CLI offer --negotiate without importing every bot;
    # the bot's ENTRY is the truth it must agree with.
    for name, bundled in REGISTRY.items():
        assert bundled.negotiates == (bundled.entry().core is not None), name
