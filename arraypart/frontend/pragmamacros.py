"""Macros that expand to pragmas: ``#define PIPE _Pragma("HLS pipeline")`` and kin.

libclang records no pragma a macro use produces, so the kernel file's and its
headers' ``#define`` / ``#undef`` lines are read from their text (outside skipped
code), and each use of a macro whose body is a sequence of ``_Pragma("...")``,
``_Pragma(#x)`` and uses of other such macros is expanded, arguments substituted
as the preprocessor does, to the pragma texts it stands for.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import clang.cindex as ci

from ..sourcetext import KEEP_BYTES
from .clanglib import file_name, offset_of
from .directivetext import in_directive

if TYPE_CHECKING:
    from .clangtu import Unit


_MACRO = re.compile(rb"^[ \t]*#[ \t]*(?:define[ \t]+(\w+)(\([^)]*\))?[ \t]*((?:[^\n]*\\\n)*[^\n]*)"
                    rb"|undef[ \t]+(\w+))", re.MULTILINE)
_LITERAL_PRAGMA = re.compile(rb'_Pragma\s*\(\s*("(?:\\.|[^"\\])*")\s*\)')
_STRINGIZED_PRAGMA = re.compile(rb"_Pragma\s*\(\s*#\s*(\w+)\s*\)")
_MACRO_NAME = re.compile(rb"\s*(\w+)\s*")
_IDENTIFIER = re.compile(rb"[A-Za-z_]\w*")
MAX_PRAGMA_MACRO_DEPTH = 8


Definition = tuple[list[bytes] | None, bytes] | None  # (parameters, body); None: #undef


class _Macros:
    """The macro definitions of the kernel file and its headers, in text order: a use
    at byte ``at`` of the file sees the last ``#define`` or ``#undef`` of its name
    before it (a header's, which comes first, then the file's), as the preprocessor
    does; definitions in code that conditional compilation skips do not count."""

    def __init__(self, header: dict[bytes, Definition],
                 own: dict[bytes, list[tuple[int, Definition]]]):
        self.header, self.own = header, own

    def at(self, offset: int) -> dict[bytes, tuple[list[bytes] | None, bytes]]:
        """The definitions in force at byte ``offset`` of the kernel file."""
        found = dict(self.header)
        for name, definitions in self.own.items():
            before = [d for at, d in definitions if at < offset]
            if before:
                found[name] = before[-1]
        return {name: d for name, d in found.items() if d is not None}

    def names(self) -> set[bytes]:
        return set(self.header) | set(self.own)


def _definitions(data: bytes, skipped: list[tuple[int, int]] = ()
                 ) -> list[tuple[int, bytes, Definition]]:
    """``(offset, name, definition)`` of each ``#define`` and ``#undef`` of ``data``
    outside ``skipped`` ranges, in text order."""
    found = []
    for m in _MACRO.finditer(data):
        if any(lo <= m.start() < hi for lo, hi in skipped):
            continue
        if m.group(4) is not None:
            found.append((m.start(), m.group(4), None))
            continue
        params = None
        if m.group(2) is not None:
            params = [p.strip() for p in m.group(2)[1:-1].split(b",") if p.strip()]
        found.append((m.start(), m.group(1), (params, m.group(3).replace(b"\\\n", b" ").strip())))
    return found


def file_macros(unit: Unit, skipped: list[tuple[int, int]]) -> _Macros:
    """The kernel file's macros (:class:`_Macros`) and its headers'."""
    own: dict[bytes, list[tuple[int, Definition]]] = {}
    for at, name, definition in _definitions(unit.data, skipped):
        own.setdefault(name, []).append((at, definition))
    return _Macros(_header_macros(unit, set(_IDENTIFIER.findall(unit.data))), own)


def _header_macros(unit: Unit, used: set[bytes]) -> dict[bytes, Definition]:
    """The macros that included headers define (``#define PRAGMA_SUB(x) _Pragma(#x)``
    in a ``params.h``) and that the kernel's text reaches: those it names (``used``),
    and those their bodies name, and so on.  Each is read from its text in its header,
    the last one clang recorded (clang's record holds the definitions in force)."""
    last: dict[str, tuple[ci.Cursor, int]] = {}
    for c, handle in zip(unit.header_top, unit.header_files):
        if c.kind == ci.CursorKind.MACRO_DEFINITION and handle is not None:
            last[c.spelling] = (c, handle)  # (no file: a builtin or command-line macro)
    texts: dict[int, bytes] = {}
    found: dict[bytes, Definition] = {}
    todo = [name for name in used if name.decode(errors=KEEP_BYTES) in last]
    while todo:
        name = todo.pop()
        if name in found:
            continue
        c, handle = last[name.decode(errors=KEEP_BYTES)]
        if handle not in texts:
            try:
                with open(file_name(handle), "rb") as f:
                    texts[handle] = f.read()
            except OSError:
                texts[handle] = b""
        body = texts[handle][offset_of(c.extent.start):offset_of(c.extent.end)]
        for _, defined, definition in _definitions(b"#define " + body):
            found[defined] = definition
            todo.extend(n for n in _IDENTIFIER.findall(definition[1])
                        if n not in found and n.decode(errors=KEEP_BYTES) in last)
    return found


def _macro_pragmas(macros, name: bytes, args: list[bytes], depth: int = 0
                   ) -> list[bytes] | None:
    """The pragma texts a use of macro ``name`` expands to, in order, else None: its
    body is a sequence of ``_Pragma("...")``, ``_Pragma(#x)`` with its argument, and
    uses of other such macros (``_Pragma("HLS pipeline") _Pragma("HLS unroll
    factor=4")`` is two pragmas)."""
    if name not in macros or depth > MAX_PRAGMA_MACRO_DEPTH:
        return None
    params, body = macros[name]
    bound = dict(zip(params or [], args))
    if params and params[-1] == b"...":  # variadic: __VA_ARGS__ is the rest, commas kept
        bound[b"__VA_ARGS__"] = b", ".join(args[len(params) - 1:])
    texts, at = [], 0
    while body[at:].strip(b" \t;"):
        found = _pragma_item(macros, body, at, bound, depth)
        if found is None:
            return None
        more, at = found
        texts += more
    return texts or None


def _pragma_item(macros, body: bytes, at: int, bound: dict[bytes, bytes], depth: int
                 ) -> tuple[list[bytes], int] | None:
    """The pragma texts of the item of a macro ``body`` that starts at ``at`` (after
    blanks), and where the next begins; None when it is no pragma."""
    at += len(body[at:]) - len(body[at:].lstrip(b" \t;"))  # an empty statement between
    literal = _LITERAL_PRAGMA.match(body, at)
    if literal is not None:
        text = literal.group(1)[1:-1].replace(b'\\"', b'"').replace(b"\\\\", b"\\")
        return [text], literal.end()
    stringized = _STRINGIZED_PRAGMA.match(body, at)
    if stringized is not None:
        text = bound.get(stringized.group(1))
        return None if text is None else ([text], stringized.end())
    name = _MACRO_NAME.match(body, at)
    if name is None:
        return None
    stop, args = name.end(), []
    if body[stop:stop + 1] == b"(":
        close = _closing(body, stop)
        if close is None:
            return None
        args = [_substituted(a.strip(), bound) for a in _split_args(body[stop + 1:close])]
        stop = close + 1
    texts = _macro_pragmas(macros, name.group(1), args, depth + 1)
    return None if texts is None else (texts, stop)


def _closing(text: bytes, opening: int) -> int | None:
    """The offset of the parenthesis that closes the one at ``opening``."""
    depth = 0
    for k in range(opening, len(text)):
        depth += {ord("("): 1, ord(")"): -1}.get(text[k], 0)
        if depth == 0:
            return k
    return None


def _substituted(text: bytes, bound: dict[bytes, bytes]) -> bytes:
    """``text`` with each parameter of ``bound`` replaced by its argument, as the
    preprocessor does (``UNR(f) PRAGMA_HLS(HLS unroll factor=f)``)."""
    if not bound:
        return text
    names = re.compile(rb"\b(" + b"|".join(map(re.escape, bound)) + rb")\b")
    return names.sub(lambda m: bound[m.group(1)], text)


def _split_args(text: bytes) -> list[bytes]:
    args, depth, start = [], 0, 0
    for k, c in enumerate(text):
        if c in b"([{":
            depth += 1
        elif c in b")]}":
            depth -= 1
        elif c == ord(",") and depth == 0:
            args.append(text[start:k])
            start = k + 1
    args.append(text[start:])
    return args


def macro_uses(data: bytes, macros: _Macros, end: int) -> list[tuple[int, int, bytes]]:
    """``(start, end, pragma text)`` of the uses of pragma macros before ``end``, one
    per pragma a use expands to, under the definitions in force where it stands."""
    known = macros.names()
    found = []
    for m in re.finditer(rb"(?<![\w#])[A-Za-z_]\w*", data[:end]):
        if m.group(0) not in known or in_directive(data, m.start()):
            continue
        in_force = macros.at(m.start())
        if m.group(0) not in in_force:
            continue
        params, _ = in_force[m.group(0)]
        args, stop = [], m.end()
        if params is not None:
            rest = data[m.end():end]
            opened = rest.lstrip()
            if not opened.startswith(b"("):
                continue
            at = m.end() + len(rest) - len(opened)
            k = _closing(data[:end], at)
            if k is None:
                continue
            args, stop = [a.strip() for a in _split_args(data[at + 1:k])], k + 1
        for text in _macro_pragmas(in_force, m.group(0), args) or []:
            found.append((m.start(), stop, text))
    return found
