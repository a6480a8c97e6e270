"""``argparse`` types for the bots' command lines: numbers checked with a clear message."""

from __future__ import annotations

import argparse
import math


def _number(text: str, what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None
    if math.isnan(value) or math.isinf(value):
        raise argparse.ArgumentTypeError(f"{text!r}: must be a finite number")
    return value


def count(text: str) -> int:
    """A whole number, 1 or more."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: must be at least 1")
    return value


def positive(text: str) -> float:
    """A finite number above 0."""
    value = _number(text, "a number")
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text!r}: must be above 0")
    return value


def seconds(text: str) -> float:
    """A positive number of seconds."""
    value = _number(text, "a number of seconds")
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text!r}: must be a positive number of seconds")
    return value


def share(text: str) -> float:
    """A number from 0 to 1 (a chance, a share)."""
    value = _number(text, "a number")
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"{text!r}: must be between 0 and 1")
    return value


def non_negative(text: str) -> float:
    """A number, 0 or more."""
    value = _number(text, "a number")
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r}: must be 0 or more")
    return value


__all__ = ["count", "non_negative", "positive", "seconds", "share"]
