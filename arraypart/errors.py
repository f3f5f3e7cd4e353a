"""Source coordinates and the one error type arraypart raises on bad input.

Every diagnostic prints as ``file:line:col: error: message`` (like a C compiler), so
editors and CI logs can jump to it.  Inner passes raise :class:`KernelError`; only the
command-line layer turns it into an exit code.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Coord:
    """A position in a source file; ``line`` and ``col`` count from 1 (0 = unknown)."""

    file: str
    line: int = 0
    col: int = 0

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


class KernelError(Exception):
    """Bad input: a kernel arraypart cannot accept, located at ``coord``.

    ``context`` is an optional extra line (the offending source line, an example
    iteration, ...) printed after the message.
    """

    def __init__(self, coord: Coord, message: str, context: str = ""):
        super().__init__(message)
        self.coord = coord
        self.message = message
        self.context = context

    def __str__(self) -> str:
        text = f"{self.coord}: error: {self.message}"
        return f"{text}\n{self.context}" if self.context else text


def warning_text(coord: Coord, message: str) -> str:
    """The one format of a located warning: ``file:line:col: warning: message``."""
    return f"{coord}: warning: {message}"
