"""Parsing with clang (the libclang Python bindings): one translation unit per kernel.

The kernel's text is given to clang as an unsaved file in the kernel's own folder, so
``#include "x.h"`` finds local headers; ``-I`` folders, ``-D`` values and the Vitis
headers (the user's install, else arraypart's stand-ins in ``arraypart/include``) are
on the command line.  Every clang error becomes one :class:`KernelError` at clang's
location.  libclang leaves ``#pragma`` out of the tree, so pragmas are read from the
token stream (:func:`pragma_lines`), outside the ranges the preprocessor skipped.
"""

from __future__ import annotations

import ctypes
import glob
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

import clang.cindex as ci

from ..errors import Coord, KernelError

STANDARDS = ("c++14", "c++17", "c99")
DEFAULT_CXX_STANDARD = "c++14"
DEFAULT_C_STANDARD = "c99"
C_SUFFIXES = (".c",)
MAIN_STEM = "__arraypart_kernel"  # clang's name for the kernel (any user name works)
BUNDLED_INCLUDE = Path(__file__).resolve().parent.parent / "include"
XILINX_ENV = "XILINX_HLS"
# clang's own freestanding headers (stddef.h, stdbool.h, ...) are not in the libclang
# wheel; GCC's serve the same purpose where it is installed.
GCC_BUILTIN_HEADERS = "/usr/lib/gcc/*/*/include"
# Diagnostics clang reports as errors by default that a kernel may well contain.
ERROR_SEVERITY = ci.Diagnostic.Error
PARSE_OPTIONS = ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD


class _SourceRange(ctypes.Structure):
    _fields_ = [("ptr_data", ctypes.c_void_p * 2), ("begin_int_data", ctypes.c_uint),
                ("end_int_data", ctypes.c_uint)]


class _SourceRangeList(ctypes.Structure):
    _fields_ = [("count", ctypes.c_uint), ("ranges", ctypes.POINTER(ci.SourceRange))]


def _library():
    lib = ci.conf.lib
    if not getattr(lib, "_arraypart_ready", False):
        lib.clang_getCursorBinaryOperatorKind.argtypes = [ci.Cursor]
        lib.clang_getCursorBinaryOperatorKind.restype = ctypes.c_int
        lib.clang_getBinaryOperatorKindSpelling.argtypes = [ctypes.c_int]
        lib.clang_getBinaryOperatorKindSpelling.restype = ci._CXString
        lib.clang_getCursorUnaryOperatorKind.argtypes = [ci.Cursor]
        lib.clang_getCursorUnaryOperatorKind.restype = ctypes.c_int
        lib.clang_Cursor_Evaluate.argtypes = [ci.Cursor]
        lib.clang_Cursor_Evaluate.restype = ctypes.c_void_p
        lib.clang_EvalResult_getKind.argtypes = [ctypes.c_void_p]
        lib.clang_EvalResult_getKind.restype = ctypes.c_int
        lib.clang_EvalResult_isUnsignedInt.argtypes = [ctypes.c_void_p]
        lib.clang_EvalResult_isUnsignedInt.restype = ctypes.c_uint
        lib.clang_EvalResult_getAsUnsigned.argtypes = [ctypes.c_void_p]
        lib.clang_EvalResult_getAsUnsigned.restype = ctypes.c_ulonglong
        lib.clang_EvalResult_getAsLongLong.argtypes = [ctypes.c_void_p]
        lib.clang_EvalResult_getAsLongLong.restype = ctypes.c_longlong
        lib.clang_EvalResult_dispose.argtypes = [ctypes.c_void_p]
        lib.clang_getSkippedRanges.argtypes = [ci.TranslationUnit, ci.File]
        lib.clang_getSkippedRanges.restype = ctypes.POINTER(_SourceRangeList)
        lib.clang_disposeSourceRangeList.argtypes = [ctypes.POINTER(_SourceRangeList)]
        lib._arraypart_ready = True
    return lib


# Unary operator kinds of libclang (CXUnaryOperatorKind) -> arraypart's spelling
# (pycparser's: 'p++' is a post-increment).
UNARY_OPERATORS = {1: "p++", 2: "p--", 3: "++", 4: "--", 5: "&", 6: "*", 7: "+", 8: "-",
                   9: "~", 10: "!"}
EVAL_INT = 1  # CXEval_Int


def binary_operator(cursor: ci.Cursor) -> str:
    lib = _library()
    kind = lib.clang_getCursorBinaryOperatorKind(cursor)
    return ci._CXString.from_result(lib.clang_getBinaryOperatorKindSpelling(kind))


def unary_operator(cursor: ci.Cursor) -> str | None:
    return UNARY_OPERATORS.get(_library().clang_getCursorUnaryOperatorKind(cursor))


def integer_value(cursor: ci.Cursor) -> int | None:
    """clang's value of an integer constant expression (a literal), else None."""
    lib = _library()
    result = lib.clang_Cursor_Evaluate(cursor)
    if not result:
        return None
    try:
        if lib.clang_EvalResult_getKind(result) != EVAL_INT:
            return None
        if lib.clang_EvalResult_isUnsignedInt(result):
            return int(lib.clang_EvalResult_getAsUnsigned(result))
        return int(lib.clang_EvalResult_getAsLongLong(result))
    finally:
        lib.clang_EvalResult_dispose(result)


@dataclass(frozen=True, slots=True)
class Options:
    """How to read a kernel: ``-D`` overrides, ``-I`` folders, the language standard
    (None: C99 for ``.c`` files, else C++14) and the Vitis include folder."""

    defines: tuple[tuple[str, int], ...] = ()
    include_dirs: tuple[str, ...] = ()
    std: str | None = None
    hls_include: str | None = None


@dataclass(frozen=True, slots=True)
class Unit:
    """A parsed translation unit and what the front end needs beside the tree."""

    tu: ci.TranslationUnit
    main: str  # clang's path of the kernel text
    text: str  # the text clang parsed (the user's, -D overrides applied)
    filename: str  # the user's name for it (coordinates)
    is_cxx: bool
    line_starts: tuple[int, ...]  # byte offset of each line

    def coord(self, offset: int) -> Coord:
        """The coordinate of byte ``offset`` of the kernel text (column in characters)."""
        line = _bisect(self.line_starts, offset)
        start = self.line_starts[line - 1]
        raw = self.text.encode()[start:offset]
        return Coord(self.filename, line, len(raw.decode(errors="replace")) + 1)

    def in_main(self, location: ci.SourceLocation) -> bool:
        return location.file is not None and location.file.name == self.main

    def location_coord(self, location: ci.SourceLocation) -> Coord:
        if self.in_main(location):
            return self.coord(location.offset)
        if location.file is None:
            return Coord(self.filename, 1, 1)
        return Coord(location.file.name, location.line, location.column)


def _bisect(starts: tuple[int, ...], offset: int) -> int:
    lo, hi = 0, len(starts)
    while lo + 1 < hi:
        mid = (lo + hi) // 2
        if starts[mid] <= offset:
            lo = mid
        else:
            hi = mid
    return lo + 1


def standard_of(filename: str, std: str | None) -> str:
    if std is not None:
        if std not in STANDARDS:
            raise KernelError(Coord(filename), f"unknown --std '{std}' (expected "
                                               f"{', '.join(STANDARDS)})")
        return std
    return DEFAULT_C_STANDARD if filename.endswith(C_SUFFIXES) else DEFAULT_CXX_STANDARD


def hls_include_dir(option: str | None) -> str:
    """The Vitis headers' folder: ``--hls-include``, else ``$XILINX_HLS/include``, else
    arraypart's stand-ins."""
    if option:
        return option
    root = os.environ.get(XILINX_ENV)
    if root and os.path.isdir(os.path.join(root, "include")):
        return os.path.join(root, "include")
    return str(BUNDLED_INCLUDE)


def clang_arguments(filename: str, options: Options, kernel_dir: str | None) -> list[str]:
    std = standard_of(filename, options.std)
    is_cxx = std.startswith("c++")
    args = ["-x", "c++" if is_cxx else "c", f"-std={std}", "-fsyntax-only",
            "-Wno-unknown-pragmas", "-ferror-limit=1"]
    if kernel_dir is not None:
        args.append(f"-I{kernel_dir}")
    args += [f"-I{d}" for d in options.include_dirs]
    args.append(f"-I{hls_include_dir(options.hls_include)}")
    for builtin in sorted(glob.glob(GCC_BUILTIN_HEADERS))[-1:]:
        args += ["-isystem", builtin]
    args += [f"-D{name}={value}" for name, value in options.defines]
    return args


def parse(text: str, filename: str, options: Options) -> Unit:
    """Parse ``text`` (the kernel file ``filename``); raise on the first clang error."""
    folder = os.path.dirname(os.path.abspath(filename)) if "\n" not in filename else ""
    kernel_dir = folder if folder and os.path.isdir(folder) else None
    suffix = ".c" if standard_of(filename, options.std) == DEFAULT_C_STANDARD or (
        options.std is not None and not options.std.startswith("c++")) else ".cpp"
    main = os.path.join(kernel_dir or os.getcwd(), MAIN_STEM + suffix)
    args = clang_arguments(filename, options, kernel_dir)
    index = ci.Index.create()
    try:
        tu = index.parse(main, args=args, unsaved_files=[(main, text)],
                         options=PARSE_OPTIONS)
    except ci.TranslationUnitLoadError as exc:
        raise KernelError(Coord(filename, 1, 1), f"clang cannot read the kernel ({exc})")
    starts = [0]
    data = text.encode()
    pos = data.find(b"\n")
    while pos >= 0:
        starts.append(pos + 1)
        pos = data.find(b"\n", pos + 1)
    unit = Unit(tu, main, text, filename, "-x" in args and args[1] == "c++", tuple(starts))
    _raise_first_error(unit)
    return unit


def _raise_first_error(unit: Unit) -> None:
    for diag in unit.tu.diagnostics:
        if diag.severity < ERROR_SEVERITY:
            continue
        where = unit.location_coord(diag.location)
        raise KernelError(where, _wording(diag.spelling))


def _wording(message: str) -> str:
    return message


# ---------------------------------------------------------------- tokens and pragmas


@dataclass(frozen=True, slots=True)
class PragmaLine:
    """A ``#pragma`` line or a ``_Pragma("...")`` of the kernel file: its text after
    ``pragma`` (comments blanked, continuation lines joined), where it starts and ends
    (byte offsets), and the coordinate of its ``#`` (or of ``_Pragma``)."""

    text: str
    start: int
    end: int
    coord: Coord


_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)


def skipped_ranges(unit: Unit) -> list[tuple[int, int]]:
    """Byte ranges of the kernel text that conditional compilation left out."""
    lib = _library()
    file = unit.tu.get_file(unit.main)
    found = lib.clang_getSkippedRanges(unit.tu, file)
    if not found:
        return []
    try:
        ranges = found.contents
        return [(ranges.ranges[k].start.offset, ranges.ranges[k].end.offset)
                for k in range(ranges.count)]
    finally:
        lib.clang_disposeSourceRangeList(found)


def main_tokens(unit: Unit) -> list[ci.Token]:
    """Every token of the kernel text, as the lexer sees it (no macro expansion)."""
    file = unit.tu.get_file(unit.main)
    end = len(unit.text.encode())
    extent = ci.SourceRange.from_locations(
        ci.SourceLocation.from_offset(unit.tu, file, 0),
        ci.SourceLocation.from_offset(unit.tu, file, end))
    return list(unit.tu.get_tokens(extent=extent))


def pragma_lines(unit: Unit) -> list[PragmaLine]:
    """The kernel's pragmas in text order, outside skipped conditional code; also
    rejects ``#line`` directives (clang would report positions in another line)."""
    skipped = skipped_ranges(unit)
    data = unit.text.encode()
    tokens = main_tokens(unit)
    found = []
    for k, tok in enumerate(tokens):
        offset = tok.extent.start.offset
        if any(lo <= offset < hi for lo, hi in skipped):
            continue
        spelling = tok.spelling
        if spelling == "#" and _starts_line(data, offset) and k + 1 < len(tokens):
            nxt = tokens[k + 1]
            if nxt.spelling in ("line",) or nxt.spelling[:1].isdigit():
                raise KernelError(unit.coord(offset), "#line directives are not supported: "
                                                      "arraypart reports positions in "
                                                      "the kernel file itself")
            if nxt.spelling == "pragma":
                body_start = nxt.extent.end.offset
                end = _logical_line_end(data, body_start)
                text = data[body_start:end].decode(errors="replace")
                text = _COMMENT.sub(lambda m: " " * len(m.group()), text)
                text = text.replace("\\\n", "  ")
                found.append(PragmaLine(text.strip(), offset, end, unit.coord(offset)))
        elif spelling == "_Pragma" and not _in_directive(data, offset):
            pragma = _pragma_operator(unit, tokens, k)
            if pragma is not None:
                found.append(pragma)
    return found


def _starts_line(data: bytes, offset: int) -> bool:
    start = data.rfind(b"\n", 0, offset) + 1
    return not data[start:offset].strip()


def _logical_line_end(data: bytes, offset: int) -> int:
    end = data.find(b"\n", offset)
    while end > 0 and data[end - 1:end] == b"\\":
        end = data.find(b"\n", end + 1)
    return len(data) if end < 0 else end


def _in_directive(data: bytes, offset: int) -> bool:
    """Whether ``offset`` lies on a preprocessor directive line (a macro's body)."""
    start = data.rfind(b"\n", 0, offset) + 1
    while start > 1 and data[start - 2:start - 1] == b"\\":
        start = data.rfind(b"\n", 0, start - 2) + 1
    return data[start:offset].lstrip().startswith(b"#")


def _pragma_operator(unit: Unit, tokens: list[ci.Token], k: int) -> PragmaLine | None:
    """``_Pragma ( "string" )`` at token ``k``: C99 6.10.9 destringizes the string."""
    if k + 3 >= len(tokens) or tokens[k + 1].spelling != "(" or tokens[k + 3].spelling != ")":
        return None
    literal = tokens[k + 2].spelling
    if len(literal) < 2 or literal[0] != '"' or literal[-1] != '"':
        return None
    text = literal[1:-1].replace('\\"', '"').replace("\\\\", "\\")
    start = tokens[k].extent.start.offset
    return PragmaLine(text.strip(), start, tokens[k + 3].extent.end.offset,
                      unit.coord(start))


def cursors(cursor: ci.Cursor) -> Iterable[ci.Cursor]:
    return cursor.get_children()
