"""The conditional, macro and include directives of a kernel's text.

:func:`scan_directives` finds them outside comments and literals, each with its
logical line (continuations and block comments that run past the line end joined);
the testbench repeats them above the original, and the front end reads include
guards and macro names from them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..sourcetext import KEEP_BYTES

if TYPE_CHECKING:
    from .clangtu import Unit


# The directives the testbench repeats above the original (frontend.kernel's preamble):
# comments and literals are consumed whole, as in _SCAN.
_PREAMBLE_SCAN = re.compile(rb"""
    //(?:[^\n]*\\\n)*[^\n]*                   # a line comment, spliced lines too
  | /\*.*?(?:\*/|\Z)
  | "(?:\\.|[^"\\\n])*"?
  | '(?:\\.|[^'\\\n])*'?
  | ^[ \t]*\#[ \t]*(?P<keyword>include|define|undef|ifdef|ifndef|if|elif|else|endif)\b
""", re.MULTILINE | re.DOTALL | re.VERBOSE)


@dataclass(frozen=True, slots=True)
class DirectiveLine:
    """A conditional, macro or include directive of the kernel file: ``keyword``
    (``ifdef``, ``define``, ...), its byte range (from its line's start to the end of
    its logical line) and its text with comments blanked."""

    keyword: str
    start: int
    end: int
    text: str


def directive_lines(unit: Unit) -> list[DirectiveLine]:
    """The kernel file's directives (:func:`scan_directives`)."""
    return scan_directives(unit.data)


def scan_directives(data: bytes) -> list[DirectiveLine]:
    """The conditional, macro and include directives of the text ``data`` in text
    order, outside comments and literals.  A block comment that starts on a
    directive's line and ends on a later one continues the directive to that line's
    end (the preprocessor reads the comment as one blank)."""
    comments, found = [], []
    for m in _PREAMBLE_SCAN.finditer(data):
        if m.group("keyword") is None:
            if m.group(0)[:2] in (b"//", b"/*"):
                comments.append((m.start(), m.end()))
        elif not (m.start() >= 2 and data[m.start() - 2:m.start()] == b"\\\n"):
            found.append((m.group("keyword").decode(errors=KEEP_BYTES), m.start(), m.end()))
    lines = []
    for keyword, start, after in found:
        end = logical_line_end(data, after)
        for lo, hi in comments:
            if lo < end < hi:
                end = logical_line_end(data, hi)
        text = bytearray(data[start:end])
        for lo, hi in comments:
            if start <= lo < end:
                text[lo - start:min(hi, end) - start] = b" " * (min(hi, end) - lo)
        lines.append(DirectiveLine(keyword, start, end, text.decode(errors="replace").rstrip()))
    return lines


def logical_line_end(data: bytes, offset: int) -> int:
    end = data.find(b"\n", offset)
    while end > 0 and data[end - 1:end] == b"\\":
        end = data.find(b"\n", end + 1)
    return len(data) if end < 0 else end


def in_directive(data: bytes, offset: int) -> bool:
    """Whether ``offset`` lies on a preprocessor directive line (a macro's body)."""
    start = data.rfind(b"\n", 0, offset) + 1
    while start > 1 and data[start - 2:start - 1] == b"\\":
        start = data.rfind(b"\n", 0, start - 2) + 1
    return data[start:offset].lstrip().startswith(b"#")
