"""Brace lists of number literals read from their text in one pass: big constant tables.

A table of 512x512 literals is 262,144 elements, and clang's tree holds two or three
cursors for each (the literal, a minus, the conversion to the element type); walking
them costs a dozen ctypes calls per cursor (measured: ``analyze`` of one 256x256
table, which it reads twice, took 4.9 s of CPU where clang parses the file in 0.3 s).
The list's text says the same when it holds nothing but braces, commas, number
literals and a minus before one: :func:`read` then gives each element's value, C's
type of its literal and its place, which the converter turns into the nodes the
cursor walk makes.  Any other token (a
name, a macro, a cast, a character literal, a directive), a line splice, a trigraph, a
line ended by a carriage return alone, or braces that do not follow the array's shape
gives None: the cursor walk reads it.

A literal's type is C's (C11 6.4.4.1, C++ [lex.icon]): the first of its suffix's list
that holds the value, for the LP64 targets clang parses for here (int 32 bits, long and
long long 64); a literal no type of the list holds gives None (clang's extensions).
"""

from __future__ import annotations

import functools
import gc
import re
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator

import clang.cindex as ci

from ..errors import Coord
from . import clanglib
from .clangtu import Unit

# (Coord, start, end): a place as the converter's spans give it (-1 outside the kernel file)
Span = tuple[Coord, int, int]

INT_BITS = 32  # C's int on the LP64 targets clang parses for (the host's)
LONG_BITS = 64  # long and long long there
#: A suffix's length modifier -> the widths its list goes through, in order.
_WIDTHS = {b"": (INT_BITS, LONG_BITS, LONG_BITS), b"l": (LONG_BITS, LONG_BITS),
           b"ll": (LONG_BITS,)}
# blanks and comments | a comma | a brace or minus | a number (a pp-number) | else
_TOKEN = re.compile(rb"(\s+|//[^\n]*|/\*.*?\*/)|(,)|([{}-])"
                    rb"|(\.?[0-9](?:[eEpP][+-]|[0-9A-Za-z_.])*)|(.)", re.S)
_SKIP, _COMMA, _OTHER = 1, 2, 5
_COMMA_TOKEN = (b",", None)
_LONE_CR = re.compile(rb"\r(?!\n)")
_INTEGER = re.compile(rb"(?:0[xX]([0-9a-fA-F]+)|0[bB]([01]+)|(0[0-7]*)|([1-9][0-9]*))"
                      rb"([uU](?:ll|LL|[lL])?|(?:ll|LL|[lL])[uU]?)?")
_FLOATING = re.compile(rb"(?:(?:[0-9]+\.[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
                       rb"|[0-9]+[eE][+-]?[0-9]+"
                       rb"|0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?[0-9]+)"
                       rb"[fFlL]?")
_BASES = (16, 2, 8, 10)  # of _INTEGER's digit groups
HEADER_LISTS = 16  # the header lists kept read: a kernel's tables (LegUp's sobel has 2)
TYPED_CACHE = 1 << 16  # distinct spellings kept: a table's values repeat (bytes: 256)


@dataclass(frozen=True, slots=True)
class Number:
    """One element: ``-`` (``negated``) and a literal.  ``value``: the literal's, None
    for a floating one; ``bits``/``signed``: C's type of the literal (None: floating)."""

    span: Span  # the element, its minus included
    literal: Span
    negated: bool
    value: int | None
    bits: int | None
    signed: bool


@dataclass(frozen=True, slots=True, eq=False)
class Braced:
    """``{ items }`` (equal to itself alone: the converter keeps the nodes of a
    header's list by the list read, :func:`read` gives the same one again)."""

    span: Span
    items: tuple[Braced | Number, ...]


@contextmanager
def uncollected() -> Iterator[None]:
    """Python's cycle collector paused for the block: a big table's nodes are millions
    of objects that form no cycle, and each collection their allocation sets off
    walks the whole heap again (measured: half the time of reading three 512x512
    tables)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def read(unit: Unit, cursor: ci.Cursor, rank: int) -> Braced | None:
    """The brace list ``cursor`` (an ``INIT_LIST_EXPR`` of an array of ``rank``
    dimensions) read from its text, else None (the text holds more than number
    literals, or is not written whole in one file)."""
    place = _written(unit, cursor.extent)
    if place is None:
        return None
    text, offset, first = place
    if offset < 0:
        return _header_list(text, first, rank)
    return _listed(_tokens(unit, text, offset, first), rank)


@functools.lru_cache(maxsize=HEADER_LISTS)
def _header_list(text: bytes, first: Coord, rank: int) -> Braced | None:
    """A header's list ``text`` starting at ``first``: the same in every reading of a
    kernel (``compile`` reads the emitted code, which includes the same header, again),
    so read once."""
    return _listed(_tokens(None, text, -1, first), rank)


def _listed(tokens: list[tuple[bytes, Span | None]] | None, rank: int) -> Braced | None:
    if tokens is None:
        return None
    found, at = _braced(tokens, 0, 1, rank)
    return found if at == len(tokens) else None


def _written(unit: Unit, extent: ci.SourceRange) -> tuple[bytes, int, Coord] | None:
    """(the bytes of ``extent``, their offset in the kernel text or -1 in a header,
    the coordinate of the first) when ``extent`` is written in one file outside any
    macro, else None."""
    handle, line, column, start = clanglib.expansion_point(extent.start)
    end_handle, _, _, end = clanglib.expansion_point(extent.end)
    if (handle is None or unit.main_file is None or end_handle != handle or end <= start
            or clanglib.written_at(extent.start) != (handle, start)
            or clanglib.written_at(extent.end) != (handle, end)):
        return None
    if handle == unit.main_file:
        return unit.data[start:end], start, unit.coord(start)
    text = clanglib.file_bytes(unit.tu, handle, start, end)
    if text is None:
        return None
    name = unit.file_names.get(handle)
    if name is None:
        name = unit.file_names[handle] = clanglib.file_name(handle)
    return text, -1, Coord(name, line, column)


def _tokens(unit: Unit | None, text: bytes, offset: int,
            first: Coord) -> list[tuple[bytes, Span | None]] | None:
    """The tokens of ``text`` (at ``offset`` of ``unit``'s kernel text, -1: in a header;
    its first byte at ``first``), each with its span (a comma's: None), when all are braces,
    commas, minus signs and numbers, else None."""
    if b"\\" in text or b"??" in text or _LONE_CR.search(text):
        return None  # a line splice, a trigraph, a line ended by CR alone: clang's
        # tokens or lines are not the bytes'
    # the kernel text's columns count characters: bytes do where the lines are ASCII
    counted = offset < 0 or (text.isascii() and unit.data[
        unit.line_starts[first.line - 1]:offset].isascii())
    shift = max(offset, 0)
    tokens: list[tuple[bytes, Span | None]] = []
    line, line_start = first.line, 1 - first.col
    for token in _TOKEN.finditer(text):
        kind = token.lastindex
        if kind == _SKIP:
            at, end = token.span()
            newlines = text.count(b"\n", at, end)
            if newlines:
                line, line_start = line + newlines, text.rindex(b"\n", at, end) + 1
        elif kind == _COMMA:
            tokens.append(_COMMA_TOKEN)
        elif kind == _OTHER:
            return None
        else:
            at, end = token.span()
            coord = (Coord(first.file, line, at - line_start + 1) if counted
                     else unit.coord(offset + at))
            tokens.append((token.group(), (coord, at + shift, end + shift) if offset >= 0
                           else (coord, -1, -1)))
    return tokens


def _braced(tokens: list[tuple[bytes, Span]], at: int, depth: int,
            rank: int) -> tuple[Braced | None, int]:
    """The list opening at ``tokens[at]`` (``depth`` braces deep in an array of ``rank``
    dimensions) and the index after it; None where its braces do not follow the
    array's dimensions (each list holds lists down to the last dimension, or numbers
    alone at the outermost list: brace elision) or it holds anything else."""
    if at >= len(tokens) or tokens[at][0] != b"{":
        return None, at
    opening = tokens[at][1]
    items: list[Braced | Number] = []
    at += 1
    while at < len(tokens) and tokens[at][0] != b"}":
        item, at = (_braced(tokens, at, depth + 1, rank) if tokens[at][0] == b"{"
                    else _number(tokens, at))
        if item is None or at >= len(tokens):
            return None, at
        items.append(item)
        if tokens[at][0] == b",":
            at += 1
        elif tokens[at][0] != b"}":
            return None, at
    if at >= len(tokens) or not items or not _shaped(items, depth, rank):
        return None, at
    closing = tokens[at][1]
    return Braced((opening[0], opening[1], closing[2]), tuple(items)), at + 1


def _shaped(items: list[Braced | Number], depth: int, rank: int) -> bool:
    if all(isinstance(item, Braced) for item in items):
        return depth < rank
    return all(isinstance(item, Number) for item in items) and (depth == rank or depth == 1)


def _number(tokens: list[tuple[bytes, Span]], at: int) -> tuple[Number | None, int]:
    """The element at ``tokens[at]``: ``-`` and a literal, or a literal."""
    negated = tokens[at][0] == b"-"
    first = tokens[at][1]
    at += negated
    if at >= len(tokens):
        return None, at
    spelling, literal = tokens[at]
    typed = _typed(spelling)
    if typed is None:
        return None, at
    value, bits, signed = typed
    span = (first[0], first[1], literal[2]) if negated else literal
    return Number(span, literal, negated, value, bits, signed), at + 1


@functools.lru_cache(maxsize=TYPED_CACHE)
def _typed(spelling: bytes) -> tuple[int | None, int | None, bool] | None:
    """(value, bits, signed) of a number literal (None, None, False for a floating
    one); None for no literal this module reads (a digit separator, a C++23 suffix)."""
    if _FLOATING.fullmatch(spelling):
        return None, None, False
    integer = _INTEGER.fullmatch(spelling)
    if integer is None:
        return None
    index = next(k for k in range(4) if integer.group(k + 1) is not None)
    value = int(integer.group(index + 1), _BASES[index])
    suffix = (integer.group(5) or b"").lower()
    unsigned = b"u" in suffix
    decimal = _BASES[index] == 10
    for bits in _WIDTHS[suffix.replace(b"u", b"")]:
        if not unsigned and value < 1 << (bits - 1):
            return value, bits, True
        if (unsigned or not decimal) and value < 1 << bits:
            return value, bits, False
    return None
