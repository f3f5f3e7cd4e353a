"""Parsing with clang (the libclang Python bindings): one translation unit per kernel.

The kernel's text is given to clang as an unsaved file in the kernel's own folder, so
``#include "x.h"`` finds local headers; ``-I`` folders, ``-D`` values and the Vitis
headers (the user's install, else arraypart's stand-ins in ``arraypart/include``) are
on the command line.  Every clang error becomes one :class:`KernelError` at clang's
location.  libclang leaves ``#pragma`` out of the tree, so pragmas are read from the
text (:func:`.pragmatext.pragma_lines`), outside the ranges the preprocessor skipped.
Where things are in files is :mod:`.clanglib`'s.
"""

from __future__ import annotations

import glob
import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Iterable, Iterator, Mapping

import clang.cindex as ci

from ..errors import Coord, KernelError
from ..sourcetext import KEEP_BYTES, clang_view
from .clanglib import (expansion_point, file_name, file_of, in_main_file, library, offset_of,
                       path_handle, skipped_ranges, written_at)
from .pragmatext import PragmaLine, pragma_lines

# Kinds of clang's Index.h that the Python bindings of libclang 18 leave out: reading one
# (``cursor.kind``, ``type.kind``, a template argument's kind) raised a ValueError, an
# internal error (_Float16 is hls_half.h's half; a variadic template's argument is a
# pack; cursor kinds: C++20's parenthesized aggregate initializer, OpenMP directives,
# Objective-C attributes).  Every other value below each enumeration's bound, which a
# newer libclang could return, gets the placeholder name UNKNOWN_<value>: the front end
# reports its construct as unsupported, at its place, as any kind it does not handle.
MISSING_KINDS = {
    ci.TypeKind: {32: "FLOAT16", 33: "SHORTACCUM", 34: "ACCUM", 35: "LONGACCUM",
                  36: "USHORTACCUM", 37: "UACCUM", 38: "ULONGACCUM", 39: "BFLOAT16",
                  178: "BTF_TAG_ATTRIBUTED"},
    ci.TemplateArgumentKind: {5: "TEMPLATE", 6: "TEMPLATE_EXPANSION", 7: "EXPRESSION",
                              8: "PACK", 9: "INVALID"},
}
# Above every value Index.h gives each enumeration (cursor kinds end at 700, type kinds
# at 181, template argument kinds at 9).
KIND_BOUNDS = {ci.TypeKind: 512, ci.TemplateArgumentKind: 16, ci.CursorKind: 1024}


def _register_missing_kinds() -> None:
    for enum, bound in KIND_BOUNDS.items():
        named = MISSING_KINDS.get(enum, {})
        for value in range(bound):
            if value >= len(enum._kinds) or enum._kinds[value] is None:
                setattr(enum, named.get(value, f"UNKNOWN_{value}"), enum(value))


_register_missing_kinds()

STANDARDS = ("c++14", "c++17", "c99")
DEFAULT_CXX_STANDARD = "c++14"
DEFAULT_C_STANDARD = "c99"
C_SUFFIXES = (".c",)
MAIN_STEM = "__arraypart_kernel"  # clang's name for the kernel (any user name works)
BUNDLED_INCLUDE = Path(__file__).resolve().parent.parent / "include"
XILINX_ENV = "XILINX_HLS"
# Vitis defines it while synthesizing: code under #ifndef __SYNTHESIS__ (file output,
# printf) is C-simulation only, and arraypart reads what Vitis synthesizes.
SYNTHESIS_DEFINE = "-D__SYNTHESIS__"
# clang's own freestanding headers (stddef.h, stdbool.h, ...) are not in the libclang
# wheel; GCC's serve the same purpose where it is installed.
GCC_BUILTIN_HEADERS = "/usr/lib/gcc/*/*/include"
# GCC 11's headers there (omp.h) name a deallocator in ``__attribute__((__malloc__(f)))``,
# an error to clang: the macro drops the arguments (``__malloc__`` alone is left as is).
GCC_ATTRIBUTE_DEFINES = ("-D__malloc__(...)=__malloc__",)
ERROR_SEVERITY = ci.Diagnostic.Error
# Errors of recent clang that the clang of Vitis HLS (and gcc) only warn about:
# ``min(a, b)`` without a declaration is common in kernels.
LENIENT = ("-Wno-error=implicit-function-declaration", "-Wno-error=implicit-int")
PARSE_OPTIONS = ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD




# Unary operator kinds of libclang (CXUnaryOperatorKind) -> arraypart's spelling
# (pycparser's: 'p++' is a post-increment).
UNARY_OPERATORS = {1: "p++", 2: "p--", 3: "++", 4: "--", 5: "&", 6: "*", 7: "+", 8: "-",
                   9: "~", 10: "!"}
EVAL_INT = 1  # CXEval_Int
# The preprocessing record's cursors (most of a unit's top level: ap_int.h brings
# thousands of macro uses); they hold no code.
PREPROCESSING_KINDS = frozenset((ci.CursorKind.MACRO_DEFINITION,
                                 ci.CursorKind.MACRO_INSTANTIATION,
                                 ci.CursorKind.INCLUSION_DIRECTIVE))


def record_members(record: ci.Type) -> list[ci.Cursor]:
    """The members the struct type ``record`` declares; of an implicit instantiation
    of a class template (whose own cursor lists none), its template's."""
    declaration = record.get_declaration()
    members = list(declaration.get_children())
    if not members:
        template = library().clang_getSpecializedCursorTemplate(declaration)
        members = [] if template is None or template.kind.is_invalid() else list(
            template.get_children())
    return members



def binary_operator(cursor: ci.Cursor) -> str:
    lib = library()
    kind = lib.clang_getCursorBinaryOperatorKind(cursor)
    return ci._CXString.from_result(lib.clang_getBinaryOperatorKindSpelling(kind))


def says_before_name(declaration: ci.Cursor, word: str) -> bool:
    """Whether a declaration spells ``word`` (``constexpr``, ``inline``) before its
    name."""
    for token in declaration.get_tokens():
        if token.spelling == declaration.spelling:
            return False
        if token.spelling == word:
            return True
    return False


def member_name(cursor: ci.Cursor) -> str:
    """The name a ``MEMBER_REF_EXPR`` names: its spelling, or in a template where the
    object's type depends on a template parameter (``buf[j].range(W - 1, 0)``), which
    clang leaves unnamed, the expression's last token."""
    if cursor.spelling:
        return cursor.spelling
    tokens = [t.spelling for t in cursor.get_tokens()]
    return tokens[-1] if tokens and tokens[-1].isidentifier() else ""


def unary_operator(cursor: ci.Cursor) -> str | None:
    return UNARY_OPERATORS.get(library().clang_getCursorUnaryOperatorKind(cursor))


# Written conversions a member access's object may go through (:func:`member_object`).
_CASTS = (ci.CursorKind.CSTYLE_CAST_EXPR, ci.CursorKind.CXX_STATIC_CAST_EXPR,
          ci.CursorKind.CXX_FUNCTIONAL_CAST_EXPR, ci.CursorKind.CXX_CONST_CAST_EXPR)


def member_object(cursor: ci.Cursor) -> ci.Cursor:
    """The object a member access ``X.f`` / ``X->f`` names, spelled plainly: the one
    ``(&w)->f``, ``(*&w).f``, ``static_cast<W &>(w).f`` and ``((W *)&w)->f`` name is
    ``w``, that of ``(*p).f`` is ``p`` (as of ``p->f``; the front end and the trace
    see no ``.`` or ``->``, only the object), that of ``(*this).f`` is ``this``.
    Goes through parentheses, implicit conversions, ``&``, a ``*`` of a name or of
    an address, and written casts that keep the struct type (``(V *)&w`` stays)."""
    node = cursor
    while True:
        kids = [k for k in node.get_children() if k.kind.is_expression()]
        operator = unary_operator(node) if node.kind == ci.CursorKind.UNARY_OPERATOR else None
        if len(kids) != 1:
            return node
        inner = kids[0]
        if node.kind in (ci.CursorKind.PAREN_EXPR, ci.CursorKind.UNEXPOSED_EXPR) or (
                operator == "&") or (operator == "*" and _named_or_address(inner)) or (
                node.kind in _CASTS and _struct_shape(node.type) is not None
                and _struct_shape(node.type) == _struct_shape(inner.type)):
            node = inner
        else:
            return node


def _named_or_address(cursor: ci.Cursor) -> bool:
    """A name, ``this`` or an address ``&X`` (through parentheses): what ``*`` of it
    spells as the object of a member access names plainly."""
    while cursor.kind in (ci.CursorKind.PAREN_EXPR, ci.CursorKind.UNEXPOSED_EXPR):
        kids = list(cursor.get_children())
        if len(kids) != 1:
            return False
        cursor = kids[0]
    return cursor.kind in (ci.CursorKind.DECL_REF_EXPR, ci.CursorKind.MEMBER_REF_EXPR,
                           ci.CursorKind.CXX_THIS_EXPR) or (
        cursor.kind == ci.CursorKind.UNARY_OPERATOR and unary_operator(cursor) == "&")


def referred(t: ci.Type) -> ci.Type:
    """``t``'s canonical type, or that of what it refers to where it is a reference
    (``T &``, ``T &&``)."""
    t = t.get_canonical()
    if t.kind in (ci.TypeKind.LVALUEREFERENCE, ci.TypeKind.RVALUEREFERENCE):
        return t.get_pointee().get_canonical()
    return t


def _struct_shape(t: ci.Type) -> tuple[int, str] | None:
    """(pointer levels, the struct's declaration) of a struct type, a reference or
    pointer to one (qualifiers aside); None for any other type."""
    t = referred(t)
    levels = 0
    while t.kind == ci.TypeKind.POINTER:
        t, levels = t.get_pointee().get_canonical(), levels + 1
    if t.kind != ci.TypeKind.RECORD:
        return None
    return levels, t.get_declaration().get_usr()


def integer_value(cursor: ci.Cursor) -> int | None:
    """clang's value of an integer constant expression (a literal), else None."""
    lib = library()
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
    (None: C99 for ``.c`` files, else C++14), the Vitis include folder and whether
    ``__SYNTHESIS__`` is defined."""

    defines: tuple[tuple[str, int], ...] = ()
    include_dirs: tuple[str, ...] = ()
    std: str | None = None
    hls_include: str | None = None
    synthesis: bool = True  # define __SYNTHESIS__ (False: C simulation's view)


@dataclass(frozen=True, slots=True)
class Unit:
    """A parsed translation unit and what the front end needs beside the tree."""

    tu: ci.TranslationUnit
    main: str  # clang's path of the kernel text
    text: str  # the text clang parsed (the user's, -D overrides applied)
    filename: str  # the user's name for it (coordinates)
    is_cxx: bool
    line_starts: tuple[int, ...]  # byte offset of each line
    tu_args: tuple[str, ...] = ()
    pragmas: tuple["PragmaLine", ...] = ()
    data: bytes = b""  # the text, encoded (offsets are into it)
    main_file: int | None = None  # clang's handle of ``main`` (:func:`file_of`)
    top: tuple[ci.Cursor, ...] = ()  # the tree's top-level cursors, headers' too
    own_top: tuple[ci.Cursor, ...] = ()  # those of ``top`` in the kernel file
    header_top: tuple[ci.Cursor, ...] = ()  # the others: the headers' (in_main is false)
    header_files: tuple[int | None, ...] = ()  # :func:`file_of` of each of ``header_top``
    # those of ``top`` whose trees may hold the kernel file's code: ``own_top`` and a
    # namespace a header opens and the file closes (``#include "ns.h"`` ... ``}``)
    own_trees: tuple[ci.Cursor, ...] = ()
    # :func:`file_name` of each file that holds a cursor of ``top``, made with them (a
    # header table's initializer asks for its coordinates once per element)
    file_names: Mapping[int, str] = field(default_factory=dict)
    # :meth:`own_cursors` by ``user_end``, listed on first use (not copied by replace)
    own_cursor_lists: dict[int, tuple[ci.Cursor, ...]] = field(
        default_factory=dict, init=False, repr=False, compare=False)

    def coord(self, offset: int) -> Coord:
        """The coordinate of byte ``offset`` of the kernel text (column in characters)."""
        line = _bisect(self.line_starts, offset)
        start = self.line_starts[line - 1]
        raw = self.data[start:offset]
        if raw.isascii():
            return Coord(self.filename, line, len(raw) + 1)
        return Coord(self.filename, line, len(raw.decode(errors=KEEP_BYTES)) + 1)

    def in_main(self, location: ci.SourceLocation) -> bool:
        """Whether ``location`` (where a macro use expands, for macro text) is in the
        kernel file."""
        if in_main_file(location):
            return True  # the fast answer for text written in the file
        return self.main_file is not None and file_of(location) == self.main_file

    def own_cursors(self, user_end: int) -> tuple[ci.Cursor, ...]:
        """Every cursor under the kernel file's own top-level declarations before byte
        ``user_end`` (the user's text, not what arraypart appends), depth first; listed
        once (each cursor's children are a ctypes walk, and several passes read them)."""
        if user_end not in self.own_cursor_lists:
            found, stack = [], [c for c in self.own_top if c.location.offset < user_end]
            while stack:
                cursor = stack.pop()
                stack.extend(cursor.get_children())
                found.append(cursor)
            self.own_cursor_lists[user_end] = tuple(found)
        return self.own_cursor_lists[user_end]

    def argument_span(self, extent: ci.SourceRange) -> tuple[int, int] | None:
        """The bytes of the kernel text where an expression with ``extent``, inside a
        macro's argument (``assert(buf[i] >= 0)``), is written; None when it is not
        written whole in one argument."""
        (first, start), (last, end) = written_at(extent.start), written_at(extent.end)
        if (first != self.main_file or last != self.main_file or end <= start
                or start == offset_of(extent.start) or end == offset_of(extent.end)):
            return None  # a macro's body: written where the macro is used
        return start, end

    def location_coord(self, location: ci.SourceLocation) -> Coord:
        handle, line, column, offset = expansion_point(location)
        if in_main_file(location) or (handle is not None and handle == self.main_file):
            return self.coord(offset)
        if handle is None:
            return Coord(self.filename, 1, 1)
        name = self.file_names[handle] if handle in self.file_names else file_name(handle)
        return Coord(name, line, column)


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


#: A compiler's message that a Vitis type has no such member (clang: "no member named 'm'
#: in 'ap_uint<32>'"; g++: "'class ap_uint<32>' has no member named 'm'", in a UTF-8
#: locale with typographic quotes).
_MISSING_MEMBER = re.compile(
    r"no member named \S+ in ['\u2018](?:const )?(?:hls::|ap_)"
    r"|['\u2018](?:const )?(?:class |struct )?(?:hls::|ap_)[^'\u2019]*['\u2019] has no member named")


def standin_hint(message: str, headers: str) -> str:
    """A clause to add to a compiler's ``message`` when it says a Vitis type lacks a
    member and ``headers`` (the Vitis headers' folder in use) are arraypart's stand-ins,
    which declare only part of Vitis' API: how to use the real headers; else ''."""
    if headers != str(BUNDLED_INCLUDE) or not _MISSING_MEMBER.search(message):
        return ""
    return (f" (arraypart's stand-in Vitis headers in {BUNDLED_INCLUDE} do not have it: pass "
            f"--hls-include with your Vitis install's include folder, or set ${XILINX_ENV})")


def clang_arguments(filename: str, options: Options, kernel_dir: str | None) -> list[str]:
    std = standard_of(filename, options.std)
    is_cxx = std.startswith("c++")
    args = ["-x", "c++" if is_cxx else "c", f"-std={std}", "-fsyntax-only",
            "-Wno-unknown-pragmas", *LENIENT]
    if kernel_dir is not None:
        args.append(f"-I{kernel_dir}")
    args += [f"-I{d}" for d in options.include_dirs]
    args.append(f"-I{hls_include_dir(options.hls_include)}")
    for builtin in sorted(glob.glob(GCC_BUILTIN_HEADERS))[-1:]:
        args += ["-isystem", builtin, *GCC_ATTRIBUTE_DEFINES]
    if options.synthesis:
        args.append(SYNTHESIS_DEFINE)
    args += [f"-D{name}={value}" for name, value in options.defines]
    return args


def parse(text: str, filename: str, options: Options, user_end: int | None = None) -> Unit:
    """Parse ``text`` (the kernel file ``filename``); raise on the first clang error
    (before byte ``user_end``: the front end's own probes follow the user's text)."""
    folder = os.path.dirname(os.path.abspath(filename)) if "\n" not in filename else ""
    kernel_dir = folder if folder and os.path.isdir(folder) else None
    suffix = ".c" if standard_of(filename, options.std) == DEFAULT_C_STANDARD or (
        options.std is not None and not options.std.startswith("c++")) else ".cpp"
    main = os.path.join(kernel_dir or os.getcwd(), MAIN_STEM + suffix)
    args = clang_arguments(filename, options, kernel_dir)
    index = ci.Index.create()
    data = text.encode(errors=KEEP_BYTES)
    unsaved = [(main, clang_view(data))]
    try:
        tu = index.parse(main, args=args, unsaved_files=unsaved, options=PARSE_OPTIONS)
        headers = _header_views(tu, [kernel_dir or os.getcwd(), *options.include_dirs])
        if headers:
            tu = index.parse(main, args=args, unsaved_files=unsaved + headers,
                             options=PARSE_OPTIONS)
    except ci.TranslationUnitLoadError as exc:
        raise KernelError(Coord(filename, 1, 1), f"clang cannot read the kernel ({exc})")
    starts = [0]
    pos = data.find(b"\n")
    while pos >= 0:
        starts.append(pos + 1)
        pos = data.find(b"\n", pos + 1)
    unit = Unit(tu, main, text, filename, args[1] == "c++", tuple(starts), tuple(args),
                data=data, main_file=path_handle(tu, main))
    # listed once: every pass walks them, thousands for a file that includes ap_int.h
    top = tuple(tu.cursor.get_children())
    files = [file_of(c.location) for c in top]
    own = [f == unit.main_file if unit.main_file is not None else unit.in_main(c.location)
           for c, f in zip(top, files)]
    unit = replace(unit, top=top, own_top=tuple(c for c, o in zip(top, own) if o),
                   header_top=tuple(c for c, o in zip(top, own) if not o),
                   header_files=tuple(f for f, o in zip(files, own) if not o),
                   own_trees=tuple(c for c, o in zip(top, own) if o or (
                       c.kind not in PREPROCESSING_KINDS
                       and file_of(c.extent.end) == unit.main_file)),
                   file_names={f: file_name(f) for f in set(files) if f is not None})
    end = len(data) if user_end is None else user_end
    unit = replace(unit, pragmas=tuple(pragma_lines(unit, end)))
    _raise_first_error(unit, end)
    return unit


def _header_views(tu: ci.TranslationUnit, folders: list[str]) -> list[tuple[str, bytes]]:
    """The headers of the user's folders that ``tu`` includes and that hold bytes that
    are not UTF-8, each with its :func:`..sourcetext.clang_view` (their functions'
    tokens are read too)."""
    roots = tuple(os.path.join(os.path.abspath(f), "") for f in folders)
    out = []
    for name in dict.fromkeys(i.include.name for i in tu.get_includes()):
        if not os.path.abspath(name).startswith(roots):
            continue
        try:
            data = Path(name).read_bytes()
        except OSError:
            continue
        if clang_view(data) != data:
            out.append((name, clang_view(data)))
    return out


def _raise_first_error(unit: Unit, user_end: int) -> None:
    """Raise clang's first error in the user's text.  An error after ``user_end`` (in
    the probes) may come from a non-integer macro, or from the user's text left open
    (a missing ``}``): the user's text alone is then parsed again to tell."""
    for diag in unit.tu.diagnostics:
        if diag.severity < ERROR_SEVERITY:
            continue
        if unit.in_main(diag.location) and diag.location.offset >= user_end:
            if user_end < len(unit.data):
                alone = unit.tu.index.parse(
                    unit.main, args=list(unit.tu_args),
                    unsaved_files=[(unit.main, clang_view(unit.data[:user_end]))],
                    options=PARSE_OPTIONS)
                _raise_first_error(replace(unit, tu=alone, top=(), own_top=(), header_top=(),
                                           header_files=(), own_trees=(), file_names={},
                                           text=unit.data[:user_end].decode(errors=KEEP_BYTES),
                                           data=unit.data[:user_end]), user_end)
            return
        where = unit.location_coord(diag.location)
        headers = str(BUNDLED_INCLUDE) if f"-I{BUNDLED_INCLUDE}" in unit.tu_args else ""
        message = diag.spelling + standin_hint(diag.spelling, headers)
        if unit.in_main(diag.location) and _ERROR_DIRECTIVE.match(
                unit.data, diag.location.offset):
            message = f"#error {message}"
        if unit.in_main(diag.location) and _not_utf8_at(unit.data, diag.location.offset):
            message = ("source file is not valid UTF-8 here: a byte of another encoding "
                       f"outside a comment or string literal (clang: {message})")
        included = None if unit.in_main(diag.location) else _included_at(unit, diag.location)
        if included is not None:
            hint = ("; the Vitis headers are C++: name the kernel .cpp or pass --std c++14"
                    if not unit.is_cxx and _VITIS_HEADER.search(where.file) else "")
            where, message = included, f"in {where} (included here): {message}{hint}"
        raise KernelError(where, message)


def _not_utf8_at(data: bytes, offset: int) -> bool:
    """The byte at ``offset`` is one that is not UTF-8, which clang read as ``?``
    (:func:`..sourcetext.clang_view`)."""
    return 0 <= offset < len(data) and clang_view(data)[offset] != data[offset]


def _included_at(unit: Unit, location: ci.SourceLocation) -> Coord | None:
    """Where the kernel file includes (directly or through other headers) the header
    holding ``location``; None when no include of the kernel's leads there.  An error in
    a header is reported at that line, as clang's "In file included from" does."""
    offset = included_offset(unit, location)
    return None if offset is None else unit.coord(offset)


def included_offset(unit: Unit, location: ci.SourceLocation) -> int | None:
    """The offset in the kernel text of the ``#include`` (its file name) that brings in,
    directly or through other headers, the header holding ``location``; None when no
    include of the kernel's leads there."""
    if location.file is None:
        return None
    included_from: dict[str, ci.SourceLocation] = {}
    for inc in unit.tu.get_includes():  # the first inclusion is the one read (guards)
        if inc.include is not None:
            included_from.setdefault(inc.include.name, inc.location)
    name, seen = location.file.name, set()
    while name in included_from and name not in seen:
        seen.add(name)
        at = included_from[name]
        name = at.file.name if at.file is not None else None
        if name == unit.main:  # (clang_Location_isFromMainFile crashes on these)
            return at.offset
    return None


_ERROR_DIRECTIVE = re.compile(rb"error\b")
_VITIS_HEADER = re.compile(r"(^|/)(ap_\w+|hls_\w+|etc/\w+)\.h$")


def synthesis_only_ranges(unit: Unit, options: Options) -> list[tuple[int, int]]:
    """Byte ranges of ``unit``'s text (read with ``__SYNTHESIS__``) that C simulation
    leaves out (``#ifdef __SYNTHESIS__``, the ``#else`` of ``#ifndef``): the text
    read again without it, its skipped ranges that ``unit`` compiles; none when
    clang rejects that reading (g++'s build of it then says where)."""
    simulated = simulation_unit(unit, options)
    if simulated is None:
        return []
    synthesized = set(skipped_ranges(unit))
    return [r for r in skipped_ranges(simulated) if r not in synthesized]


def simulation_unit(unit: Unit, options: Options, user_end: int | None = None
                    ) -> Unit | None:
    """``unit``'s text read as C simulation reads it, without ``__SYNTHESIS__``; None
    where the text does not name that macro (the reading is ``unit``'s) or clang
    rejects the reading (before byte ``user_end``: :func:`parse`)."""
    if b"__SYNTHESIS__" not in unit.data:
        return None
    try:
        return parse(unit.text, unit.filename, replace(options, synthesis=False), user_end)
    except KernelError:
        return None


def own_cursors(unit: Unit) -> Iterator[ci.Cursor]:
    """Every cursor of the trees that may hold the kernel file's code
    (``Unit.own_trees``), in pre-order: the headers' own declarations, thousands for
    ap_int.h, are not walked."""
    for top in unit.own_trees:
        yield from top.walk_preorder()


def cursors(cursor: ci.Cursor) -> Iterable[ci.Cursor]:
    return cursor.get_children()
