"""Structured logs (structlog): events bound to game, phase and peer; JSON when the output is
not a terminal, readable lines when it is."""

from __future__ import annotations

import logging
import sys
from typing import Any, TextIO

import structlog


def configure_logging(
    level: str = "info", json: bool | None = None, stream: TextIO | None = None
) -> None:
    stream = stream or sys.stderr
    if json is None:
        json = not stream.isatty()
    renderer: Any = (
        structlog.processors.JSONRenderer()
        if json
        else structlog.dev.ConsoleRenderer(colors=stream.isatty())
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(
            logging.getLevelNamesMapping().get(level.upper(), logging.INFO)
        ),
        logger_factory=structlog.PrintLoggerFactory(stream),
        cache_logger_on_first_use=False,
    )


def get_logger(**bound: Any) -> Any:
    return structlog.get_logger("diplomat").bind(**bound)
