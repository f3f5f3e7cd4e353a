"""The kernel's pragmas, read from its text (libclang leaves ``#pragma`` out of the tree).

:func:`pragma_lines` lists the ``#pragma`` lines, ``_Pragma("...")`` operators and uses
of pragma macros (:mod:`.pragmamacros`) of the kernel file outside comments, literals
and skipped conditional code; :func:`header_pragma_lines` those of one of its headers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

import clang.cindex as ci

from ..errors import Coord, KernelError
from ..sourcetext import KEEP_BYTES
from .clanglib import skipped_ranges
from .directivetext import in_directive, logical_line_end
from .pragmamacros import file_macros, macro_uses

if TYPE_CHECKING:
    from .clangtu import Unit


@dataclass(frozen=True, slots=True)
class PragmaLine:
    """A ``#pragma`` line or a ``_Pragma("...")`` of the kernel file: its text after
    ``pragma`` (comments blanked, continuation lines joined), where it starts and ends
    (byte offsets), and the coordinate of its ``#`` (or of ``_Pragma``).  A line made
    from a ``--directives`` command (``directive``) has no text of its own: it starts
    and ends where it applies, and its coordinate is the command's."""

    text: str
    start: int
    end: int
    coord: Coord
    directive: bool = False


_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)


# One pass over the text: comments and literals are consumed whole, so that a
# directive or _Pragma inside them is never matched.
_SCAN = re.compile(rb"""
    //[^\n]*                                      # line comment
  | /\*.*?(?:\*/|\Z)                             # block comment
  | "(?:\\.|[^"\\\n])*"?                          # string literal
  | '(?:\\.|[^'\\\n])*'?                          # character literal
  | ^[ \t]*\#[ \t]*(?P<directive>pragma|line\b|[0-9])  # a directive we look at
  | (?<![\w])_Pragma[ \t]*\([ \t]*(?P<operand>"(?:\\.|[^"\\\n])*")[ \t]*\)
""", re.MULTILINE | re.DOTALL | re.VERBOSE)


def pragma_lines(unit: Unit, user_end: int | None = None) -> list[PragmaLine]:
    """The kernel's pragmas in text order, outside comments and skipped conditional
    code: ``#pragma`` lines, ``_Pragma("...")`` and the uses of macros that expand to
    one (``_Pragma(#x)`` with the argument's text).  Also rejects ``#line`` directives
    (clang would report positions in another line)."""
    skipped = skipped_ranges(unit)
    data = unit.data
    end_of_user = len(data) if user_end is None else user_end
    found = []
    hidden: list[tuple[int, int]] = []  # comments and literals: no macro use there
    for directive, start, end, text in _scanned_pragmas(data, skipped, end_of_user, hidden):
        if directive not in (b"pragma", None):  # #line, or a line marker (# 12 "f.c")
            raise KernelError(unit.coord(start), "#line directives are not supported: "
                                                 "arraypart reports positions in the "
                                                 "kernel file itself")
        found.append(PragmaLine(text, start, end, unit.coord(start)))
    for start, stop, text in macro_uses(data, file_macros(unit, skipped), end_of_user):
        if not any(lo <= start < hi for lo, hi in skipped + hidden):
            found.append(PragmaLine(text.decode(errors="replace").strip(), start, stop,
                                    unit.coord(start)))
    return sorted(found, key=lambda p: p.start)


def header_pragma_lines(unit: Unit, file: ci.File) -> list[tuple[int, PragmaLine]]:
    """The ``#pragma`` lines and ``_Pragma("...")`` of the header ``file`` (one of the
    kernel's own, whose functions are analysed), outside comments and skipped
    conditional code, each with its byte offset in the header: the lines have no text
    in the kernel file (``start`` and ``end`` -1), so nothing ever edits them, and
    their coordinates are the header's.  Macros that expand to a pragma are not
    followed there."""
    data = Path(file.name).read_bytes()
    found = []
    for directive, at, _, text in _scanned_pragmas(data, skipped_ranges(unit, file), len(data)):
        if directive not in (b"pragma", None):
            continue
        line = data.count(b"\n", 0, at) + 1
        column = len(data[data.rfind(b"\n", 0, at) + 1:at].decode(errors=KEEP_BYTES)) + 1
        found.append((at, PragmaLine(text, -1, -1, Coord(file.name, line, column))))
    return found


def _scanned_pragmas(data: bytes, skipped: list[tuple[int, int]], stop: int,
                     hidden: list[tuple[int, int]] | None = None
                     ) -> Iterator[tuple[bytes | None, int, int, str]]:
    """The ``#pragma`` and ``#line`` directives (and line markers) and ``_Pragma("...")``
    operators of ``data[:stop]`` outside comments, literals and the ``skipped`` ranges,
    as (directive, start, end, text): the directive ``b"pragma"``, ``b"line"``, a
    marker's first digit, or None for ``_Pragma``; ``start`` the ``#`` or ``_Pragma``; ``text`` without comments
    and line continuations.  The comments and literals passed go to ``hidden``."""
    for m in _SCAN.finditer(data, 0, stop):
        if m.group("directive") is None and m.group("operand") is None:
            if hidden is not None:
                hidden.append((m.start(), m.end()))
            continue
        offset = m.start()
        if any(lo <= offset < hi for lo, hi in skipped):
            continue
        if m.group("directive") is not None:
            if offset >= 2 and data[offset - 2:offset] == b"\\\n":
                continue  # continues the line before: not a directive
            end = logical_line_end(data, m.end())
            text = data[m.end():end].decode(errors="replace")
            text = _COMMENT.sub(lambda c: " " * len(c.group()), text).replace("\\\n", "  ")
            yield m.group("directive"), data.index(b"#", offset), end, text.strip()
        elif not in_directive(data, offset):
            literal = m.group("operand").decode(errors="replace")[1:-1]
            text = literal.replace('\\"', '"').replace("\\\\", "\\")
            yield None, offset + m.group(0).index(b"_Pragma"), m.end(), text.strip()


def _starts_line(data: bytes, offset: int) -> bool:
    start = data.rfind(b"\n", 0, offset) + 1
    return not data[start:offset].strip()
