"""Source coordinates and the one error type arraypart raises on bad input.

Every diagnostic prints as ``file:line:col: error: message`` (like a C compiler), so
editors and CI logs can jump to it.  Inner passes raise :class:`KernelError`; only the
command-line layer turns it into an exit code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Control characters in a file name would break the one-line diagnostic format.
UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f\x85\u2028\u2029]")


@dataclass(frozen=True, slots=True)
class Coord:
    """A position in a source file; ``line`` and ``col`` count from 1 (0 = unknown).
    It prints as compilers print it: ``file:line:col``, ``file`` alone when the line is
    unknown (an error about a whole file or folder)."""

    file: str
    line: int = 0
    col: int = 0

    def __str__(self) -> str:
        shown = UNPRINTABLE.sub(lambda m: m.group().encode("unicode_escape").decode(),
                                self.file)
        if self.line == 0:
            return shown
        return f"{shown}:{self.line}:{self.col}"


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
