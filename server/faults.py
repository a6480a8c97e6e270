"""What a fault boundary logs about the exception it caught: one line, its type and where.

Every message a client sends is handled inside a boundary (``server.app``): an exception there
becomes that client's error answer or the close of that one connection, never the end of the
process. The line it logs must say enough to find the bug without a traceback per message: the
exception's type and text, and the innermost frame of our own code it came from.
"""

from __future__ import annotations

import traceback
from typing import Any


def leaf(exc: BaseException) -> BaseException:
    """The first exception inside (nested) exception groups; ``exc`` itself otherwise."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def where(exc: BaseException) -> str:
    """``file:line in function`` of the innermost frame of the traceback that is not in an
    installed package (the last frame at all if every frame is)."""
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return "?"
    ours = [f for f in frames if "site-packages" not in f.filename]
    f = (ours or frames)[-1]
    parts = f.filename.replace("\\", "/").split("/")
    return f"{'/'.join(parts[-2:])}:{f.lineno} in {f.name}"


def describe(exc: BaseException) -> dict[str, Any]:
    """The fields of a fault's log line: ``error`` (type and text, bounded) and ``where``."""
    inner = leaf(exc)
    text = str(inner)
    if len(text) > 200:
        text = text[:200] + "..."
    return {"error": f"{type(inner).__name__}: {text}", "where": where(inner)}


__all__ = ["describe", "leaf", "where"]
