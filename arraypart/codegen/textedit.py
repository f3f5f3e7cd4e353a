"""Editing a source text by byte ranges: the emitted kernel is the user's own text.

An :class:`Edit` replaces ``text[start:end]`` (byte offsets, as clang reports them)
by new text; ``start == end`` inserts.  Edits must not overlap; insertions at one
offset keep the order they were given in.  Lines that an edit made longer than
``MAX_LINE`` are broken at a blank inside the edit's new text (C allows a line break
wherever it allows a blank), indented one level deeper than the line.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Callable

from ..errors import Coord, KernelError
from ..sourcetext import KEEP_BYTES

MAX_LINE = 100  # DESIGN §4: no emitted line over 100 characters
INDENT = "    "


@dataclass(frozen=True, slots=True)
class Edit:
    start: int
    end: int
    text: str
    breakable: bool = True  # the new text may be broken at its blanks

    def __post_init__(self):
        if not 0 <= self.start <= self.end:
            raise ValueError(f"edit range {self.start}..{self.end}")


def statement_end(data: bytes, end: int) -> int:
    """``end`` (where a statement's node ends), past the ``;`` that follows it after
    blanks (clang's extent of an expression statement stops before its ``;``)."""
    rest = data[end:]
    stripped = rest.lstrip(b" \t")
    return end + len(rest) - len(stripped) + 1 if stripped.startswith(b";") else end


def apply(text: str, edits: list[Edit], filename: str = "") -> str:
    """``text`` with ``edits`` applied (see the module doc)."""
    data = text.encode(errors=KEEP_BYTES)
    order = sorted(range(len(edits)), key=lambda k: (edits[k].start, edits[k].end, k))
    ordered = [edits[k] for k in order]
    for a, b in zip(ordered, ordered[1:]):
        if (a.start, a.end) == (b.start, b.end) and a.start < a.end:
            raise KernelError(coord_at(data, b.start, filename),
                              "arraypart cannot rewrite this code: its text stands for "
                              "two references (a macro that uses its argument twice, "
                              "SQ(buf[i])?): write the reference out of the macro, or "
                              "assign it to a variable first")
        if b.start < a.end:
            raise KernelError(coord_at(data, b.start, filename),
                              "arraypart cannot rewrite this code: two edits overlap "
                              "(an array reference inside a rewritten one?)")
    pieces: list[bytes] = []
    spans: list[tuple[int, int]] = []  # new texts' byte spans in the output
    pos = 0
    out_len = 0
    for e in ordered:
        chunk = data[pos:e.start]
        pieces.append(chunk)
        out_len += len(chunk)
        new = e.text.encode(errors=KEEP_BYTES)
        if e.breakable:
            spans.append((out_len, out_len + len(new)))
        pieces.append(new)
        out_len += len(new)
        pos = e.end
    pieces.append(data[pos:])
    return _break_long_lines(b"".join(pieces), spans).decode(errors=KEEP_BYTES)


def coord_at(data: bytes, offset: int, filename: str) -> Coord:
    """The coordinate of byte ``offset`` of ``data`` (column in bytes)."""
    line_start = data.rfind(b"\n", 0, offset) + 1
    return Coord(filename, data.count(b"\n", 0, offset) + 1, offset - line_start + 1)


def _break_long_lines(data: bytes, spans: list[tuple[int, int]]) -> bytes:
    """Break each line longer than MAX_LINE at the last blank, within a breakable
    new text, that leaves the first part short enough."""
    breaks: list[int] = []
    start = 0
    while start < len(data):
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end
        breaks += _line_breaks(data, start, end, spans)
        start = end + 1
    if not breaks:
        return data
    out, pos = [], 0
    for b in breaks:
        line_start = data.rfind(b"\n", 0, b) + 1
        line = data[line_start:b]
        indent = line[:len(line) - len(line.lstrip())]
        out += [data[pos:b], b"\n", indent, INDENT.encode(errors=KEEP_BYTES)]
        pos = b + 1
    out.append(data[pos:])
    return b"".join(out)


def _line_breaks(data: bytes, start: int, end: int, spans) -> list[int]:
    """Offsets of the blanks to break line ``data[start:end]`` at: the last blank
    inside a breakable new text that keeps the line within MAX_LINE, preferring the
    blanks least deep in brackets (in the second half of the line)."""
    found = []
    text = data[start:end]
    indent = len(text) - len(text.lstrip())
    depth, d = {}, 0
    for k in range(start, end):
        c = data[k:k + 1]
        if c in b"([{":
            d += 1
        elif c in b")]}":
            d -= 1
        depth[k] = d
    allowed = sorted({k for lo, hi in spans if lo < end and hi > start
                      for k in range(max(lo, start + indent + 1), min(hi, end))
                      if data[k:k + 1] == b" "})
    first, lead = start, 0  # where the current line starts, its added indentation
    while lead + _width(data[first:end]) > MAX_LINE:
        fits = [k for k in allowed if k > first + (indent if not lead else 0)
                and lead + _width(data[first:k]) < MAX_LINE]
        if not fits:
            break
        half = [k for k in fits if lead + _width(data[first:k]) >= MAX_LINE // 2] or fits
        shallow = min(depth[k] for k in half)
        k = max(k for k in half if depth[k] == shallow)
        found.append(k)
        first, lead = k + 1, indent + len(INDENT)
    return found


def _width(line: bytes) -> int:
    return len(line.decode(errors=KEEP_BYTES))


def origins(original: str, emitted: str) -> Callable[[int, int], tuple[int, int]]:
    """Where ``(line, col)`` of ``emitted``, an edited copy of ``original``, comes from
    in ``original`` (1-based): a line difflib finds unchanged keeps its column; a
    changed line maps to the original line of the replaced block that it resembles
    most (:func:`_likest`: a loop header written as blocks, ``for (int j_blk ...``, to
    the original ``for`` rather than to a pragma the block replaced too), its column
    through the characters the two lines share; a line arraypart inserted maps to the
    start of the original line before it."""
    old, new = original.splitlines(), emitted.splitlines()
    source: dict[int, tuple[int, bool | None]] = {}  # new line -> (old line, changed)
    replaced: dict[int, tuple[int, int]] = {}  # changed new line -> its replaced block
    opcodes = difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes()
    for tag, i1, i2, j1, j2 in opcodes:
        for j in range(j1, j2):
            if tag == "equal":
                source[j] = (i1 + j - j1, False)
            elif tag == "replace":
                source[j] = (min(i1 + j - j1, i2 - 1), True)
                replaced[j] = (i1, i2)
            else:
                source[j] = (max(i1 - 1, 0), None)

    def origin(line: int, col: int) -> tuple[int, int]:
        if line - 1 in replaced:  # the likest line, found when first asked for (most
            at = source[line - 1][0]  # lines of a crossbar never are)
            source[line - 1] = (_likest(new[line - 1], old, *replaced.pop(line - 1), at),
                                True)
        at, changed = source.get(line - 1, (max(len(old) - 1, 0), None))
        text = old[at] if at < len(old) else ""
        if changed is None:
            return at + 1, len(text) - len(text.lstrip()) + 1
        if changed:
            col = _shared_column(new[line - 1], text, col)
        return at + 1, col

    return origin


#: Replaced blocks up to this many original lines are searched for the likest line.
LIKEST_SEARCH = 64
#: The least similarity (difflib ratio) at which a line counts as rewritten from another.
LIKEST_RATIO = 0.6


def _likest(line: str, old: list[str], i1: int, i2: int, at: int) -> int:
    """The line of ``old[i1:i2]`` most like ``line``, where one is more than
    :data:`LIKEST_RATIO` alike (the first on ties), else ``at``."""
    if i2 - i1 > LIKEST_SEARCH:
        return at
    matcher = difflib.SequenceMatcher(None, autojunk=False)
    matcher.set_seq2(line.strip())
    best, best_ratio = at, LIKEST_RATIO
    for i in range(i1, i2):
        matcher.set_seq1(old[i].strip())
        if matcher.real_quick_ratio() > best_ratio and matcher.ratio() > best_ratio:
            best, best_ratio = i, matcher.ratio()
    return best


def _shared_column(new_line: str, old_line: str, col: int) -> int:
    """Column ``col`` of ``new_line`` in ``old_line``: through the matching block that
    holds it, else the next block's start in ``old_line``."""
    blocks = difflib.SequenceMatcher(None, new_line, old_line, autojunk=False)
    for a, b, size in blocks.get_matching_blocks():
        if col - 1 < a + size:
            return b + max(col - 1 - a, 0) + 1
    return len(old_line) + 1
