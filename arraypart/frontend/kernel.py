"""The front end's driver: a kernel file (or text) -> :class:`arraypart.ir.Kernel`.

clang parses the text (:mod:`.clangtu`), :mod:`.cnodes` turns the top function into a
small syntax tree with the pragmas in place, :mod:`.lower` builds the IR.  ``-D``
overrides win over the file: the file's own ``#define`` of an overridden name is
rewritten to the command line's value in the text clang reads (and code generation
edits), so the emitted kernel keeps the value it was banked for.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Mapping

import clang.cindex as ci

from .. import interrupts
from ..errors import Coord, KernelError, warning_text
from ..ir import Kernel, SourceUnit
from ..sourcetext import KEEP_BYTES
from . import clanglib, clangtu, directivetext
from . import cnodes as N
from .calls import definitions
from .carried import carried_warnings
from .cexpr import fold
from .convert import Converter
from .cursors import definition_site, member_function_name, static_method_name
from .declarations import holds_arrays
from .directives import Directive, anchored
from .interfaces import MAX_DEFINE_PREFIX
from .lower import lower_function
from .pipelining import PIPELINE_LOOPS, auto_pipeline, raised_pipelines
from .redeclared import redeclared, renamed_sites
from .shared_types import external_functions, header_methods, shared_types, types_copied
from .templates import specialized_template
from .top import choose_top
from .unaliased import mark_unaliased

BYTE_ORDER_MARK = "\ufeff"
# Kernels, tables included, are tens of kilobytes; a megabyte bounds one parse.
MAX_SOURCE_BYTES = 2 ** 20
BLANK_BREAKS = str.maketrans("\v\f", "  ")  # blanks in C, line breaks to Python
FOREIGN_BREAKS = re.compile("[\x1c\x1d\x1e\x85\u2028\u2029]")  # line breaks to Python
PROBE_PREFIX = "__arraypart_probe_"
PROBE = "\nstatic const long long " + PROBE_PREFIX + "{name} = ({name});"
DEFINE_LINE = re.compile(r"^[ \t]*#[ \t]*(define|undef)[ \t]+([A-Za-z_]\w*)(\(?)"
                         r"(?:[^\n]*\\\n)*[^\n]*", re.MULTILINE)
MACRO_TOKEN = re.compile(r"[A-Za-z_]\w*|\S")
PRAGMA_LINE = re.compile(r"^[ \t]*#[ \t]*pragma[ \t]+HLS\b[^\n]*", re.MULTILINE | re.IGNORECASE)
PRAGMA_OPTION = re.compile(r"(\w+)\s*=\s*([^\s=]+)")
IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
INTEGER_KEYS = frozenset({"factor", "dim", "ii", "min", "max", "avg", "depth", "latency"})
# A kernel's macros expand to a few hundred tokens; the preprocessor would take
# minutes over an exponential family (each doubling its predecessor).
MAX_EXPANDED_TOKENS = 20_000
MAX_MACRO_DEPTH = 256
MAX_PROBED_TOKENS = 64  # integer macros worth asking clang for: short expressions
MAX_PROBED_DEPTH = 16  # of macros defined through other macros
MAX_PROBES = 256
FUNCTION_SCOPES = (ci.CursorKind.NAMESPACE, ci.CursorKind.LINKAGE_SPEC,
                   ci.CursorKind.UNEXPOSED_DECL)
TOP_LEVEL_KINDS = FUNCTION_SCOPES + (ci.CursorKind.FUNCTION_DECL, ci.CursorKind.VAR_DECL,
                                     ci.CursorKind.CXX_METHOD)
CLASS_KINDS = (ci.CursorKind.STRUCT_DECL, ci.CursorKind.CLASS_DECL)
# Words C++ (to C++20) reserves that C does not: a C kernel's output is C++, so a C name
# spelled like one of these would make output that does not compile.
CPP_ONLY_KEYWORDS = frozenset("""
    alignas alignof and and_eq asm bitand bitor catch char8_t char16_t char32_t class
    compl concept consteval constexpr constinit const_cast co_await co_return co_yield
    bool decltype delete dynamic_cast explicit export false friend mutable namespace new
    noexcept not not_eq nullptr operator or or_eq private protected public
    reinterpret_cast requires static_assert static_cast template this thread_local
    throw true try typeid typename using virtual wchar_t xor xor_eq""".split())
CPP_ONLY_WORD = re.compile(r"\b(?:" + "|".join(sorted(CPP_ONLY_KEYWORDS)) + r")\b")
# C99 words C++ lacks, with what to write instead; C_ONLY finds them, qualifiers or
# static in brackets, and array designators, in a kernel's text.
C_ONLY_WORDS = {"restrict": "write __restrict, which C and C++ compilers read alike",
                "_Bool": "write bool, with #include <stdbool.h>"}
BRACKET_WORDS = frozenset({"static", "const", "volatile", "restrict", "__restrict",
                           "__restrict__"})
# <stdbool.h>'s macros: C's spelling of the C++ keywords of the same meaning
STDBOOL_WORDS = frozenset({"bool", "true", "false"})
C_ONLY = re.compile(r"\brestrict\b|\b_Bool\b|\[\s*(?:static|const|volatile|__restrict(?:__)?)\b"
                    r"|[{,]\s*\[")
# The testbench defines ``main``; C++ requires ``int main``, never a kernel.
RESERVED_FUNCTIONS = frozenset({"main"})
TESTBENCH_NAMESPACE = "original"  # templates/testbench.cpp.j2, trace_driver.cpp.j2


def parse_kernel(path: str | Path, *, defines: Mapping[str, int] | None = None,
                 top: str | None = None, include_dirs: tuple[str, ...] = (),
                 std: str | None = None, hls_include: str | None = None,
                 directives: tuple[Directive, ...] = (),
                 pipeline_loops: int = PIPELINE_LOOPS) -> Kernel:
    """Read the kernel file at ``path`` and build its IR (kernel name: the file's stem).

    ``defines`` are ``-D NAME=VALUE`` overrides; they win over the file's ``#define``.
    ``directives`` (from a ``--directives`` Tcl file) act as the pragmas they stand for.
    ``pipeline_loops``: Vitis's ``config_compile -pipeline_loops`` threshold, under
    which loops are pipelined as Vitis does by default (:mod:`.pipelining`; 0, as
    ``--no-auto-pipeline`` gives, pipelines none).
    """
    return parse_source(read_source(path), str(path), defines=defines, top=top,
                        include_dirs=include_dirs, std=std, hls_include=hls_include,
                        directives=directives, pipeline_loops=pipeline_loops)


def read_source(path: str | Path) -> str:
    """The text of a C source file; a missing, binary or oversized file (or an endless
    one, such as a device) is an error.  Bytes that are not UTF-8 (a GBK comment) are
    kept as they are (:mod:`arraypart.sourcetext`): clang accepts them in comments and
    literals, and locates them where it does not."""
    name = str(path)
    try:
        with open(path, "rb") as stream:
            data = stream.read(MAX_SOURCE_BYTES + 1)
    except OSError as exc:
        raise KernelError(Coord(name), f"cannot read the kernel: {exc.strerror or exc}")
    if len(data) > MAX_SOURCE_BYTES:
        raise _too_large(name)
    nul = data.find(b"\0")
    if nul >= 0:
        raise KernelError(_byte_coord(name, data, nul),
                          "binary file (NUL byte): expected C source text")
    return data.decode(errors=KEEP_BYTES)


def _too_large(name: str) -> KernelError:
    return KernelError(Coord(name, 1, 1), f"larger than {MAX_SOURCE_BYTES} bytes: "
                                          "expected a C kernel")


def _normalize_lines(text: str, filename: str) -> str:
    """``text`` with the line ends C compilers accept (``\\r\\n``, ``\\r``) made ``\\n``
    and form feeds and vertical tabs (blanks in C) made spaces, so that every tool
    counts lines alike; other characters that Python takes for line breaks are no C
    and are rejected where they stand."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = text.translate(BLANK_BREAKS)
    found = FOREIGN_BREAKS.search(text)
    if found is not None:
        stray = found.start()
        line_start = text.rfind("\n", 0, stray) + 1
        raise KernelError(Coord(filename, text.count("\n", 0, stray) + 1,
                                stray - line_start + 1),
                          f"illegal character U+{ord(text[stray]):04X} in C source")
    return text


def _byte_coord(name: str, data: bytes, offset: int) -> Coord:
    line_start = data.rfind(b"\n", 0, offset) + 1
    return Coord(name, data.count(b"\n", 0, offset) + 1, offset - line_start + 1)


def parse_source(text: str, filename: str, **options) -> Kernel:
    """Build the IR of the kernel ``text``, read from ``filename`` (for coordinates,
    the language and the kernel's name, the file's stem); ``options`` as for
    :func:`parse_kernel`.

    Interruptions are held back until the IR is built: libclang walks the tree through
    ctypes callbacks, and a KeyboardInterrupt raised inside one is swallowed there and
    ends the walk early, which would turn Ctrl-C into a wrong tree (a false error)."""
    with interrupts.deferred():
        return _parse_source(text, filename, **options)


def _parse_source(text: str, filename: str, *, defines: Mapping[str, int] | None = None,
                  top: str | None = None, include_dirs: tuple[str, ...] = (),
                  std: str | None = None, hls_include: str | None = None,
                  directives: tuple[Directive, ...] = (),
                  pipeline_loops: int = PIPELINE_LOOPS) -> Kernel:
    if len(text) > MAX_SOURCE_BYTES:
        raise _too_large(filename)
    text = text.removeprefix(BYTE_ORDER_MARK)
    nul = text.find("\0")
    if nul >= 0:
        data = text[:nul].encode(errors=KEEP_BYTES)
        raise KernelError(_byte_coord(filename, data, len(data)),
                          "binary file (NUL byte): expected C source text")
    if not text.strip():
        raise KernelError(Coord(filename, 1, 1), "empty file: expected a C kernel")
    text = _normalize_lines(text, filename)
    overrides = dict(defines or {})
    text, extra = _apply_overrides(text, overrides)
    names = (_probed_macros(text, filename) | set(overrides)
             | _pragma_value_names(PRAGMA_LINE.findall(text), directives))
    options = clangtu.Options(tuple(sorted(overrides.items())), tuple(include_dirs), std,
                              hls_include)
    unit = _parse_probed(text, filename, options, names)
    through_macros = _pragma_value_names([p.text for p in unit.pragmas], ()) - names
    if through_macros:  # a pragma macro of a header names them: ask clang again
        unit = _parse_probed(text, filename, options, names | through_macros)
    user_end = len(text.encode(errors=KEEP_BYTES))
    placed, misplaced = anchored(unit, directives, user_end)
    pragmas = list(unit.pragmas) + placed
    own_headers = _OwnHeaders(set(IDENTIFIER.findall(text)),
                              os.path.abspath(clangtu.hls_include_dir(hls_include)))
    converter = Converter(unit, pragmas, own_headers.own)
    if not unit.is_cxx:
        _check_cpp_keywords(unit, user_end)
    funcs, methods, globals_, probe_decls, header_arrays = _top_level(
        unit, converter, user_end, own_headers)
    func = choose_top(unit, funcs, filename, top)
    if not unit.is_cxx and _linked_as_c_in_cxx(unit, func.start):
        func = replace(func, extern_c=True)
    _check_reserved_functions([func])
    _check_testbench_namespace(unit, func)
    values = _define_values(probe_decls)
    lines = text.split("\n")
    instances = converter.instances()
    globals_ += _named_header_arrays(header_arrays, own_headers.used, instances,
                                     converter)
    callees = definitions(funcs + methods + instances, func)
    unsynthesized = tuple((lo, hi) for lo, hi in clanglib.skipped_ranges(unit)
                          if lo < user_end)
    lowered = lower_function(func, globals_, filename, lines, values, callees,
                             unsynthesized=unsynthesized)
    body, capped = lowered.body, ()
    if pipeline_loops:
        raised, capped = raised_pipelines(lowered.body, pipeline_loops)
        if raised:  # their inner loops become lanes: lowered anew as in a pipeline
            lowered = lower_function(func, globals_, filename, lines, values, callees,
                                     raised, unsynthesized)
        body = auto_pipeline(lowered.body, raised)
    arrays = mark_unaliased(lowered.arrays, unit, func, own_headers.own)
    for candidate in funcs + methods + instances:
        N.release_types(candidate, globals_)
    shared, unshared = shared_types(unit, func.start, user_end)
    if func.extern_c:
        # the testbench declares a C-linkage top with the original's types: the
        # link matches names, not types, so types that stay behind link anyway
        unshared = ()
    external, undefined = external_functions(unit, user_end, own_headers.own)
    shared = tuple(sorted(shared + external + header_methods(unit, user_end)))
    searched = (os.path.dirname(os.path.abspath(filename)),) + tuple(
        os.path.abspath(d) for d in include_dirs)
    preamble, nested, hoisted, replayed, in_place = _preamble(unit)
    found_redeclared = redeclared(unit, user_end, func.name, in_place)
    preamble_top = _macros_at(unit, func.start)
    source = SourceUnit(text, func, globals_, preamble,
                        tuple(sorted(extra.items())), unit.is_cxx, directives,
                        tuple(dict.fromkeys(searched)), lowered.callees,
                        lowered.local_decls, _own_main(unit, funcs, unsynthesized),
                        own_headers.macros(unit, user_end),
                        shared, unsynthesized, nested, hoisted, preamble_top,
                        replayed, found_redeclared,
                        tuple(sorted(converter.header_definitions)),
                        renamed_sites(unit, user_end, func.name, func.start, found_redeclared,
                                      options),
                        # (C linkage: the link matches names, not types)
                        () if func.extern_c else types_copied(unit, func.start, in_place))
    overridden = _overridden_in_headers(unit, overrides)
    return Kernel(Path(filename).stem, func.name, filename, arrays, body,
                  func.coord, tuple(sorted(values.items())), lowered.params, source,
                  tuple(misplaced) + lowered.warnings + capped + unshared + undefined
                  + _unseen_loops(unit, user_end, own_headers, converter.header_definitions)
                  + _unmodelled_containers(unit, user_end)
                  + carried_warnings(unit, user_end, body)
                  + _unused_bounds(filename, overrides, lowered.params) + overridden,
                  lowered.returns_early, overridden)


def _overridden_in_headers(unit: clangtu.Unit, defines: Mapping[str, int]
                           ) -> tuple[str, ...]:
    """A warning at each ``#define`` of a ``-D`` name that an included header makes
    unguarded (probe 42 F4): the kernel file's own are set to the ``-D`` value
    (:func:`_apply_overrides`), but a header is not rewritten, so its definition
    replaces the command line's for the code after it, as in the C preprocessor, both
    for the analysis and in the emitted kernel and testbench (which include the header
    after their ``-D`` lines).  clang records no definition that an ``#ifndef`` skips."""
    found = []
    for c, handle in zip(unit.header_top, unit.header_files):
        if (c.kind == ci.CursorKind.MACRO_DEFINITION and handle is not None
                and c.spelling in defines):
            written = " ".join(t.spelling for t in c.get_tokens())
            name, value = c.spelling, defines[c.spelling]
            found.append(warning_text(unit.location_coord(c.location), (
                f"#define {written} overrides -D {name}={value} for the code after it, as "
                "in the C preprocessor: the analysis and the emitted kernel and "
                "testbench (which include this header after their -D lines) use the "
                f"header's {name}; to have -D set it, write the definition as "
                f"#ifndef {name} ... #endif")))
    return tuple(found)


def _unused_bounds(filename: str, defines: Mapping[str, int],
                   params: tuple) -> tuple[str, ...]:
    """A warning per ``-D ARRAYPART_MAX_<name>=V`` that bounds no run-time size of
    the kernel (a misspelt or absent name changed nothing without a word)."""
    sizes = [p.name for p in params]
    return tuple(warning_text(Coord(filename), (
        f"-D {name}={value} bounds no run-time size of the kernel ("
        + (f"its sizes: {', '.join(sizes)}" if sizes else "it has none")
        + "): it changes nothing"))
        for name, value in sorted(defines.items())
        if name.startswith(MAX_DEFINE_PREFIX)
        and name[len(MAX_DEFINE_PREFIX):] not in sizes)


_LOOP_KINDS = (ci.CursorKind.FOR_STMT, ci.CursorKind.WHILE_STMT, ci.CursorKind.DO_STMT)


def _unseen_loops(unit: clangtu.Unit, user_end: int, own_headers: "_OwnHeaders",
                  analysed: set[tuple[str, int]]) -> tuple[str, ...]:
    """A located warning at the first call of each function defined in a header of the
    kernel's own whose body has a loop and that the analysis did not read (its site
    is not in ``analysed``: a constructor, a call through a pointer): that loop's
    pipeline and the arrays it reads are not analysed (an array passed to such a
    function is an error where the call is lowered); and at the first call of each
    such function that keeps a ``static`` variable: the testbench's original and
    banked kernels both call the header's one function, so they share its state."""
    calls = [c for c in unit.own_cursors(user_end)
             if c.kind == ci.CursorKind.CALL_EXPR and c.referenced is not None]
    warned: dict[str, list[str]] = {}
    for call in sorted(calls, key=lambda c: c.extent.start.offset):
        callee = specialized_template(call.referenced) or call.referenced
        callee = callee.get_definition() or callee
        if (callee.spelling in warned or unit.in_main(callee.location)
                or not own_headers.own(callee.location)):
            continue
        body = list(callee.walk_preorder())
        where = callee.location
        defined = (f"'{callee.spelling}' is defined in {os.path.basename(where.file.name)}:"
                   f"{where.line}, outside the kernel file")
        said = []
        if (any(c.kind in _LOOP_KINDS for c in body)
                and definition_site(callee) not in analysed):
            said.append(f"{defined}: arraypart does not see its loops, their pipelines "
                        "and the arrays they access (define it in the kernel file to have "
                        "them analysed)")
        if any(c.kind == ci.CursorKind.VAR_DECL
               and c.storage_class == ci.StorageClass.STATIC for c in body):
            said.append(f"{defined}, and keeps a static variable: the testbench's original "
                        "and banked kernels both call that one function and share its "
                        "state, so they may differ where the banking changes nothing "
                        "(define it in the kernel file to give each its own)")
        if said:
            warned[callee.spelling] = [warning_text(unit.coord(call.extent.start.offset),
                                                    text) for text in said]
    return tuple(text for texts in warned.values() for text in texts)


_STD_ARRAY = re.compile(r"(const )?std::(__1::)?array<")
_DECLARATION_KINDS = (ci.CursorKind.VAR_DECL, ci.CursorKind.PARM_DECL, ci.CursorKind.FIELD_DECL)


def _unmodelled_containers(unit: clangtu.Unit, user_end: int) -> tuple[str, ...]:
    """A located warning at each declaration of the kernel file whose type holds a
    ``std::array``, or a class with an array member whose ``operator[]`` the kernel file
    calls (``struct arr_t { int a[16]; int &operator[](int i) { return a[i]; } }``):
    that operator is a call, not a subscript, so the accesses, their ports and the II
    of the loops that make them are not modelled."""
    found: list[ci.Cursor] = []
    subscripted: set[str] = set()
    for cursor in unit.own_cursors(user_end):
        if not unit.in_main(cursor.location):
            continue
        if cursor.kind == ci.CursorKind.CALL_EXPR and cursor.spelling == "operator[]":
            target = next(cursor.get_children(), None)
            if target is not None:
                subscripted.add(_held_type(target.type).get_canonical().spelling)
        elif cursor.kind in _DECLARATION_KINDS:
            found.append(cursor)
    said = []
    for c in sorted(found, key=lambda c: c.location.offset):
        held = _held_type(c.type).get_canonical()
        if _STD_ARRAY.match(held.spelling):
            said.append(warning_text(unit.coord(c.location.offset), (
                f"'{c.spelling}' is a std::array: arraypart does not model its accesses "
                "(their ports, the banks they need and the II of the loops that make them); "
                "declare it as a C array to have it analysed and banked")))
        elif held.spelling in subscripted and (member := _array_member(held)):
            said.append(warning_text(unit.coord(c.location.offset), (
                f"'{c.spelling}' (a {held.spelling}) holds the array '{member}' and the "
                "kernel calls its operator[]: arraypart does not model accesses "
                "through that call (their ports, the banks they need and the II of the "
                f"loops that make them); subscript '{member}' itself to have it analysed")))
    return tuple(said)


def _array_member(record: ci.Type) -> str | None:
    """The first member of ``record`` that is a C array, if any."""
    return next((f.spelling for f in record.get_fields() if f.type.get_canonical().kind
                 in (ci.TypeKind.CONSTANTARRAY, ci.TypeKind.INCOMPLETEARRAY)), None)


def _held_type(kind: ci.Type) -> ci.Type:
    """``kind`` through references, pointers and C arrays."""
    while kind.kind in (ci.TypeKind.LVALUEREFERENCE, ci.TypeKind.RVALUEREFERENCE,
                        ci.TypeKind.POINTER, ci.TypeKind.CONSTANTARRAY,
                        ci.TypeKind.INCOMPLETEARRAY):
        kind = (kind.element_type if kind.kind in (ci.TypeKind.CONSTANTARRAY,
                                                   ci.TypeKind.INCOMPLETEARRAY)
                else kind.get_pointee())
    return kind


def _apply_overrides(text: str, overrides: Mapping[str, int]) -> tuple[str, dict[str, int]]:
    """The text with each ``#define`` of an overridden name set to its value (and each
    ``#undef`` of one blanked), and the overrides the file never defines."""
    seen = set()

    def edit(m: re.Match) -> str:
        kind, name = m.group(1), m.group(2)
        if name not in overrides:
            return m.group(0)
        seen.add(name)
        breaks = "\n" * m.group(0).count("\n")
        if kind == "undef":
            return breaks
        return f"#define {name} {overrides[name]}{breaks}"

    edited = DEFINE_LINE.sub(edit, text)
    return edited, {n: v for n, v in overrides.items() if n not in seen}


def _top_level(unit: clangtu.Unit, converter: Converter, user_end: int,
               own_headers: "_OwnHeaders"):
    """The kernel file's function definitions, its classes' methods (static ones called
    as functions, ``filler::fill(d, buf)``; the others on an object, ``w.shift(v)``,
    in the class or out of it), file-scope variables, probes and the cursors of the
    file-scope arrays of its own headers (see :func:`_named_header_arrays`)."""
    funcs, methods, globals_, probes, header_arrays = [], [], [], [], []
    stack = [(c, (), False) for c in unit.top
             if c.kind in TOP_LEVEL_KINDS + CLASS_KINDS]
    while stack:
        c, spaces, extern_c = stack.pop(0)
        if not unit.in_main(c.location):
            if own_headers.array(c):
                defined = c.get_definition() if c.kind == ci.CursorKind.VAR_DECL else None
                if defined is None or not unit.in_main(defined.location):
                    header_arrays.append(c)  # not one the file defines (extern int t[8];)
            continue
        if c.kind in FUNCTION_SCOPES:
            inner = spaces + ((c.spelling,) if c.kind == ci.CursorKind.NAMESPACE else ())
            linkage = extern_c or c.kind != ci.CursorKind.NAMESPACE
            stack[:0] = [(k, inner, linkage) for k in c.get_children()
                         if k.kind in TOP_LEVEL_KINDS + CLASS_KINDS]
        elif c.kind in CLASS_KINDS:
            stack[:0] = [(k, spaces, extern_c) for k in c.get_children()
                         if k.kind in CLASS_KINDS + (ci.CursorKind.CXX_METHOD,)]
        elif c.kind == ci.CursorKind.CXX_METHOD:
            name = static_method_name(c) or member_function_name(c)
            if name is not None and c.is_definition():
                methods.append(replace(converter.function(c, spaces, extern_c), name=name))
        elif c.kind == ci.CursorKind.FUNCTION_DECL and c.is_definition():
            funcs.append(converter.function(c, spaces, extern_c))
        elif c.kind == ci.CursorKind.VAR_DECL:
            if c.spelling.startswith(PROBE_PREFIX) and c.location.offset >= user_end:
                probes.append(converter.probe(c))
            elif c.location.offset < user_end:
                globals_.append(converter.decl(c, stmt=c))
    return funcs, methods, tuple(globals_), probes, tuple(header_arrays)


def _named_header_arrays(header_arrays: tuple[ci.Cursor, ...], used: set[str],
                         instances: list[N.FuncDef],
                         converter: Converter) -> tuple[N.Decl, ...]:
    """The file-scope arrays of the kernel's own headers that the kernel's text or a
    function of its own headers that it calls names (``wcoe[k]`` in a header's
    ``n_stage``): every function the kernel reaches sees them, as g++ does."""
    named = used | {n.name for f in instances for n in f.nodes if isinstance(n, N.Id)}
    return tuple(converter.decl(c, stmt=c) for c in header_arrays if c.spelling in named)


@dataclass(frozen=True, slots=True)
class _OwnHeaders:
    """What tells the kernel's own headers' arrays from the others: ``used``, the
    identifiers of the kernel's text; ``vitis``, the folder of the Vitis headers."""

    used: set[str]
    vitis: str

    def own(self, location: ci.SourceLocation) -> bool:
        """``location`` lies in the kernel's text or in a header of its own."""
        return (location.file is not None and not location.is_in_system_header
                and not os.path.abspath(location.file.name).startswith(self.vitis + os.sep))

    def macros(self, unit: clangtu.Unit, user_end: int) -> tuple[str, ...]:
        """The names of the macros that the kernel's text and its own headers define."""
        names = {c.spelling for c in unit.own_top
                 if c.kind == ci.CursorKind.MACRO_DEFINITION and c.location.offset < user_end}
        own_file: dict[int, bool] = {}  # (a header is one of the kernel's own or not)
        for c, handle in zip(unit.header_top, unit.header_files):
            if c.kind == ci.CursorKind.MACRO_DEFINITION and handle is not None:
                if handle not in own_file:
                    own_file[handle] = self.own(c.location)
                if own_file[handle]:
                    names.add(c.spelling)
        return tuple(sorted(names))

    def array(self, cursor: ci.Cursor) -> bool:
        """``cursor`` declares a file-scope array of fixed size, or a struct variable
        with array fields (each a memory, ``g.buf``), in a header of the kernel's own
        (not a system or Vitis header)."""
        return (cursor.kind == ci.CursorKind.VAR_DECL
                and (cursor.type.kind == ci.TypeKind.CONSTANTARRAY
                     or holds_arrays(cursor.type))
                and self.own(cursor.location))


def _check_cpp_keywords(unit: clangtu.Unit, user_end: int) -> None:
    """What a C kernel writes that C++ reads otherwise is an error at its first use:
    the emitted kernel is C++ and would not compile.  That is an identifier that C++
    reserves (``class``, ``new``), and C99's ``restrict``, ``_Bool``, qualifiers or
    ``static`` in an array parameter's brackets and array designators
    (``{[3] = 7}``).  A pragma's words are no code
    (``#pragma HLS dependence variable=h inter false``)."""
    if CPP_ONLY_WORD.search(unit.text) is None and C_ONLY.search(unit.text) is None:
        return  # the common case, without asking clang for every token
    pragmas = [(p.start, p.end) for p in unit.pragmas if not p.directive]
    # those a header (<stdbool.h>, or one that includes it) defines: fine as they are
    stdbool = {c.spelling for c in unit.header_top
               if c.kind == ci.CursorKind.MACRO_DEFINITION and c.spelling in STDBOOL_WORDS}
    previous = None
    for token in unit.tu.get_tokens(extent=unit.tu.cursor.extent):
        at = token.location.offset
        if (at < user_end and unit.in_main(token.location) and token.spelling not in stdbool
                and not any(start <= at < end for start, end in pragmas)):
            why = _not_cpp(token, previous)
            if why is not None:
                raise KernelError(unit.coord(at), why + ": the emitted C++ would not "
                                                      "compile")
        previous = token


def _not_cpp(token: ci.Token, previous: ci.Token | None) -> str | None:
    """Why ``token`` (after ``previous``) of a C kernel is no C++, or None."""
    word = token.spelling
    if token.kind == ci.TokenKind.IDENTIFIER and word in STDBOOL_WORDS:
        return (f"'{word}' is a C++ keyword (C++ has bool, true and false: define none of "
                "them, #include <stdbool.h> gives C the same)")
    if token.kind == ci.TokenKind.IDENTIFIER and word in CPP_ONLY_KEYWORDS:
        return f"'{word}' is a C++ keyword (rename it)"
    before = previous.spelling if previous is not None else ""
    if word in BRACKET_WORDS and before == "[":
        instead = ("a restrict pointer: T *__restrict a" if "restrict" in word
                   else "the size alone: [N]")
        return f"'{word}' in an array parameter's brackets is C only (write {instead})"
    if word in C_ONLY_WORDS:
        return f"'{word}' is C only ({C_ONLY_WORDS[word]})"
    if word == "[" and before in ("{", ","):
        return ("an array designator ([k] = v, GNU's [a ... b] = v) is C only (write every "
                "element in order)")
    return None


def _check_reserved_functions(funcs: list[N.FuncDef]) -> None:
    for f in funcs:
        if f.name in RESERVED_FUNCTIONS and not f.namespaces:
            raise KernelError(f.coord, f"'{f.name}' names the testbench's own function: "
                                       "the emitted C++ would not compile (rename it)")


def _check_testbench_namespace(unit: clangtu.Unit, top: N.FuncDef) -> None:
    """The testbench and the trace driver hold the original kernel's text in
    ``namespace original``, beside the banked top's prototype and the kernel's headers
    at file scope: a top named ``original``, a namespace or a macro of that name, or
    a header's file-scope declaration of it would clash with it (located errors); a
    name of the kernel file's own text is inside the namespace and does not."""
    clash = None
    if top.name == TESTBENCH_NAMESPACE and not top.namespaces:
        clash = top.coord
    for c in unit.top:
        if clash is not None:
            break
        if c.spelling != TESTBENCH_NAMESPACE or c.location.file is None:
            continue
        if (c.kind in (ci.CursorKind.NAMESPACE, ci.CursorKind.NAMESPACE_ALIAS,
                       ci.CursorKind.MACRO_DEFINITION, ci.CursorKind.MACRO_INSTANTIATION)
                or not unit.in_main(c.location)):
            clash = (unit.coord(c.location.offset) if unit.in_main(c.location) else
                     Coord(c.location.file.name, c.location.line, c.location.column))
    if clash is not None:
        raise KernelError(clash, (
            f"'{TESTBENCH_NAMESPACE}' names the namespace in which the testbench runs "
            "the original kernel: the emitted C++ would not compile (rename it)"))


def _own_main(unit: clangtu.Unit, funcs: list[N.FuncDef],
              unsynthesized: tuple[tuple[int, int], ...]) -> int | None:
    """Where the file defines its own ``main`` (a test beside the kernel): the byte
    offset of that definition, which the emitted kernel makes weak so that the
    testbench's ``main`` links beside it.  A ``main`` in text that conditional
    compilation leaves out (``#ifndef __SYNTHESIS__``) counts too: the testbench's
    build compiles it."""
    visible = next((f.start for f in funcs if f.name == "main" and not f.namespaces
                    and f.start >= 0), None)
    if visible is not None:
        return visible
    bodies = [(f.body.start, f.body.end) for f in funcs if f.body is not None]
    return next((at for lo, hi in unsynthesized
                 if not any(start <= lo < end for start, end in bodies)
                 for at in [_hidden_main(unit, lo, hi)] if at is not None), None)


def _hidden_main(unit: clangtu.Unit, lo: int, hi: int) -> int | None:
    """The offset of the first token of a definition of ``main`` at the outer level
    of the skipped text ``[lo, hi)`` (a file-scope range): ``main (...) {`` after a
    return type; directive lines are no code."""
    file = unit.tu.get_file(unit.main)
    extent = ci.SourceRange.from_locations(ci.SourceLocation.from_offset(unit.tu, file, lo),
                                           ci.SourceLocation.from_offset(unit.tu, file, hi))
    tokens, directive_line = [], None
    for t in unit.tu.get_tokens(extent=extent):
        if t.spelling == "#" and (not tokens or tokens[-1].location.line < t.location.line):
            directive_line = t.location.line
        if t.location.line != directive_line:
            tokens.append(t)
    depth, first = 0, 0
    for k, t in enumerate(tokens):
        word = t.spelling
        if (word, depth) in ((";", 0), ("}", 1)):
            first = k + 1
        depth += (word in "({[") - (word in ")}]")
        if (depth == 0 and word == "main" and 0 < k and first < k
                and tokens[k - 1].kind in (ci.TokenKind.KEYWORD, ci.TokenKind.IDENTIFIER)
                and _opens_body(tokens, k + 1)):
            return tokens[first].location.offset
    return None


def _opens_body(tokens: list[ci.Token], k: int) -> bool:
    """Whether ``tokens[k:]`` begin with a parenthesized list and then ``{``."""
    if k >= len(tokens) or tokens[k].spelling != "(":
        return False
    depth = 0
    for n in range(k, len(tokens)):
        depth += (tokens[n].spelling == "(") - (tokens[n].spelling == ")")
        if depth == 0:
            return n + 1 < len(tokens) and tokens[n + 1].spelling == "{"
    return False


def _define_values(probes: list[tuple[str, N.Node | None]]) -> dict[str, int]:
    """The integer value of every probed macro whose expansion is an integer constant
    expression (others, such as strings or empty macros, are left out)."""
    values = {}
    for name, init in probes:
        try:
            value = fold(init) if init is not None else None
        except KernelError:
            continue  # an error in a macro is reported where the macro is used
        if value is not None:
            values[name[len(PROBE_PREFIX):]] = value
    return values


def _preamble(unit: clangtu.Unit) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...],
                                           tuple[int, ...], frozenset[int]]:
    """(preamble, nested, hoisted, ran, in_place): the kernel file's directives that
    the testbench repeats above ``namespace original``; verbatim, the ``#include`` lines inside a
    declaration (``const int t[] = {`` / ``#include "t.inc"`` / ``};``, a function
    body) or in a namespace block that declares names of its own (``namespace app {``
    / ``#include "types.h"`` / ``const int N = 32;`` / ``}``: the header's names are
    ``app::`` ones beside the block's), which stay where they are; and the namespace
    blocks that hold only directives (:func:`_directive_blocks`), which the preamble
    repeats whole, so that the header's names are ``lib::`` ones at global scope, as
    the banked kernel sees them, and the original leaves out; and the ``#define`` and
    ``#undef`` lines (their positions among the file's directive lines) that the
    preamble runs before its last include, which the original leaves out too: run
    again after the headers, ``#define N 64`` would undo a header's ``#undef N`` /
    ``#define N 32``, which the kernel sees.

    The preamble is, in order, every ``#include``, ``#define`` and ``#undef`` outside
    a declaration (in a namespace or an ``extern "C"`` block too) and every
    conditional group (``#if`` ... ``#endif``, whole) opened outside one, so that each
    header is read under the conditions and macros it is read under in the kernel
    (``#ifdef X`` / ``#include "x.h"``; ``#define N 8`` / ``#include "uses_n.h"``);
    (macros defined after the last include are left out, no header reads them).
    The original's text then starts from the macros the preamble leaves, which its
    own later directives, replayed, keep (``#ifndef N`` / ``#define N 8`` after a header's
    ``N``; ``#define assert(x)`` under ``__SYNTHESIS__``); only include guards, the kernel
    file's own and a header's pasted into it, are undefined (:func:`_include_guards`),
    or their text would be skipped.
    A file named through a macro that clang opened is named as clang opened it.
    ``in_place``: the files (:func:`clanglib.file_of` handles) whose text the nested
    includes put in ``namespace original``, those they include too."""
    scope = _FileScope.of(unit)
    opened = [c for c in scope.main if c.kind == ci.CursorKind.INCLUSION_DIRECTIVE]
    inside = _declaration_extents(unit)
    skipped = clanglib.skipped_ranges(unit)
    blocks = _directive_blocks(unit)
    kept_lines, nested, groups, opened_in_place = [], [], [], []
    for d in directivetext.directive_lines(unit):
        block = next(((lo, hi) for lo, hi in blocks if lo < d.start < hi), None)
        if block is not None:
            if not kept_lines or kept_lines[-1].start != block[0]:
                kept_lines.append(directivetext.DirectiveLine(
                    "namespace", *block,
                    unit.data[block[0]:block[1]].decode(errors=KEEP_BYTES)))
            continue
        declared = any(lo < d.start < hi for lo, hi in inside) or (
            d.keyword == "include" and (_within_braces(unit.data, skipped, d.start)
                                        or _stays_in_place(unit, scope, d)))
        if d.keyword.startswith("if"):
            groups.append(not declared)
            kept = groups[-1]
        elif d.keyword in ("elif", "else"):
            kept = bool(groups) and groups[-1]
        elif d.keyword == "endif":
            kept = bool(groups) and groups.pop()
        else:
            kept = not declared
        if d.keyword == "include" and not kept:
            written = unit.data[d.start:d.end].decode(errors=KEEP_BYTES)
            nested.append(written.split("\n")[0].strip())
            opened_in_place.append(scope.included_file(d))
            if not any(lo < d.start < hi for lo, hi in inside):
                # read inside namespace original, its system headers would be too
                kept_lines += [directivetext.DirectiveLine("include", d.start, d.start, line)
                               for line in _system_includes(scope.included(d))]
        elif kept:
            kept_lines.append(d)
    last = max((k for k, d in enumerate(kept_lines) if d.keyword in ("include", "namespace")),
               default=-1)
    kept_lines = [d for k, d in enumerate(kept_lines)
                  if k < last or d.keyword not in ("define", "undef")]
    guards = _include_guards(kept_lines)
    hoisted = tuple(d.text for d in kept_lines if d.keyword == "namespace")
    order = {d.start: k for k, d in enumerate(directivetext.directive_lines(unit))}
    ran = tuple(order[d.start] for d in kept_lines
                if d.keyword in ("define", "undef") and _macro_name(d) not in guards)
    return (tuple(_as_opened(d, opened) for d in kept_lines)
            + tuple(f"#undef {guard}" for guard in guards), tuple(nested), hoisted, ran,
            _with_included(scope, opened_in_place))


def _with_included(scope: "_FileScope", handles: list[int | None]) -> frozenset[int]:
    """``handles`` (files) and every file that one of them includes, at any depth, but
    through an ``#include <...>`` (:func:`_system_includes`: the preamble reads it
    before, so its text is not in ``namespace original``)."""
    found: set[int] = set()
    stack = [h for h in handles if h is not None]
    while stack:
        handle = stack.pop()
        if handle not in found:
            found.add(handle)
            stack += [clanglib.handle_of(c.get_included_file())
                      for c in scope.by_file.get(handle, ())
                      if c.kind == ci.CursorKind.INCLUSION_DIRECTIVE and not _angled(c)
                      and c.get_included_file() is not None]
    return frozenset(found)


@dataclass(frozen=True)
class _FileScope:
    """The translation unit's file-scope declarations, read once: per file name those
    of each file, and the kernel file's own (``main``)."""

    by_file: dict[int, list[ci.Cursor]]  # by clanglib.file_of's number
    main: list[ci.Cursor]

    @staticmethod
    def of(unit: clangtu.Unit) -> "_FileScope":
        by_file: dict[int, list[ci.Cursor]] = {}
        for c, handle in zip(unit.header_top, unit.header_files):
            if handle is not None:
                by_file.setdefault(handle, []).append(c)
        return _FileScope(by_file, list(unit.own_top))

    def included(self, directive: directivetext.DirectiveLine) -> list[ci.Cursor]:
        """The file-scope declarations of the file ``directive`` (an include) opens."""
        handle = self.included_file(directive)
        return self.by_file.get(handle, []) if handle is not None else []

    def included_file(self, directive: directivetext.DirectiveLine) -> int | None:
        """The handle of the file ``directive`` (an include) opens (None: none)."""
        found = next((c for c in self.main if c.kind == ci.CursorKind.INCLUSION_DIRECTIVE
                      and directive.start <= c.location.offset < directive.end), None)
        included = found.get_included_file() if found is not None else None
        return clanglib.handle_of(included) if included is not None else None


def _stays_in_place(unit: clangtu.Unit, scope: _FileScope,
                    directive: directivetext.DirectiveLine) -> bool:
    """An ``#include`` that the testbench cannot repeat above ``namespace original``:
    in a namespace block of the file, or opening a file that defines objects or reads
    the file's earlier names (:func:`_defines_objects`, :func:`_reads_earlier_names`)."""
    return (any(c.kind == ci.CursorKind.NAMESPACE
                and c.extent.start.offset < directive.start < c.extent.end.offset
                for c in scope.main)
            or _defines_objects(scope.included(directive), unit.is_cxx)
            or _reads_earlier_names(unit, scope, directive))


def _reads_earlier_names(unit: clangtu.Unit, scope: _FileScope,
                         directive: directivetext.DirectiveLine) -> bool:
    """The file an ``#include`` opens names something the kernel file declares before
    it (``typedef int data_t;`` / ``#include "proc.h"`` with ``data_t scale(data_t)``):
    repeated above ``namespace original``, without the declaration, it would not build;
    it stays in place.  Only a file whose text spells one of those names is walked."""
    earlier = {c.spelling for c in scope.main
               if c.spelling and c.location.offset < directive.start}
    cursors = scope.included(directive)
    if not earlier or not cursors:
        return False
    try:
        text = Path(cursors[0].location.file.name).read_text(errors="replace")
    except OSError:
        return False
    if not re.search(r"\b(?:" + "|".join(map(re.escape, sorted(earlier))) + r")\b", text):
        return False
    for top in cursors:
        for c in top.walk_preorder():
            target = c.referenced if c.kind.is_reference() or c.kind.is_expression() else None
            if (target is not None and target.location.file is not None
                    and unit.in_main(target.location)
                    and target.location.offset < directive.start):
                return True
    return False


def _system_includes(cursors: list[ci.Cursor]) -> list[str]:
    """The ``#include <...>`` lines among the declarations ``cursors`` of an included
    file: the preamble reads them before the file, which stays in place, so that in
    ``namespace original`` their guards make them empty (``<cmath>`` expanded there
    does not build)."""
    return [f"#include <{c.spelling}>" for c in cursors
            if c.kind == ci.CursorKind.INCLUSION_DIRECTIVE and _angled(c)]


def _angled(inclusion: ci.Cursor) -> bool:
    """Whether an ``#include`` cursor names its file in angle brackets."""
    return [t.spelling for t in inclusion.get_tokens()][2:3] == ["<"]


def _defines_objects(cursors: list[ci.Cursor], is_cxx: bool) -> bool:
    """The file an ``#include`` opens (its declarations ``cursors``) defines a variable
    or function of external linkage (``int hist[16];`` in an ``.inc``): repeated above
    ``namespace original`` it would be defined in the testbench and in the banked
    kernel, which do not link, and the original would share the banked kernel's state;
    it stays in place.  In C (not ``is_cxx``) a variable declared without ``extern``
    counts: ``int g[64];`` is a tentative definition there, no definition to clang,
    and one in the C++ that both files are compiled as."""
    for c in cursors:
        if c.kind in (ci.CursorKind.VAR_DECL, ci.CursorKind.FUNCTION_DECL) and (
                (c.is_definition() or not is_cxx and _tentative(c))
                and c.linkage == ci.LinkageKind.EXTERNAL
                and not (c.kind == ci.CursorKind.FUNCTION_DECL
                         and clangtu.says_before_name(c, "inline"))):
            return True
    return False


def _tentative(c: ci.Cursor) -> bool:
    """Whether the C declaration ``c`` is a variable's without ``extern``."""
    return c.kind == ci.CursorKind.VAR_DECL and c.storage_class != ci.StorageClass.EXTERN


def _macros_at(unit: clangtu.Unit, at: int) -> tuple[str, ...]:
    """The ``#define`` lines that give the macros the file undefines or defines again
    after offset ``at`` (the top function) the values they have at it (``#undef N``
    at the file's end): the testbench declares the banked top after the original's
    text, with the top's signature as written, which may use them."""
    lines = directivetext.directive_lines(unit)
    later = {_macro_name(d) for d in lines
             if d.start > at and d.keyword in ("define", "undef")} - {None}
    found: dict[str, str] = {}
    for c in unit.own_top:
        if (c.kind == ci.CursorKind.MACRO_DEFINITION and c.spelling in later
                and c.location.offset < at):
            line = next((d for d in lines if d.start <= c.location.offset < d.end), None)
            if line is not None:
                found[c.spelling] = line.text.strip()
    return tuple(f"#undef {name}\n{text}" for name, text in found.items())


def _macro_name(directive: directivetext.DirectiveLine) -> str | None:
    """The name a ``#define`` or ``#undef`` line names (None when it names none)."""
    match = re.match(r"\s*#\s*(?:define|undef)\s+(\w+)", directive.text)
    return match.group(1) if match else None


def _directive_blocks(unit: clangtu.Unit) -> list[tuple[int, int]]:
    """The byte ranges of the kernel file's namespace blocks at file scope that declare
    nothing in the file itself: their text is directives (``namespace lib {`` /
    ``#include "ns.h"`` / ``}``), whatever the headers declare in them."""
    return [(c.extent.start.offset, c.extent.end.offset)
            for c in unit.own_top
            if c.kind == ci.CursorKind.NAMESPACE
            and not any(unit.in_main(k.location) for k in c.get_children())]


_GUARD_OPEN = re.compile(r"#\s*(?:ifndef\s+(\w+)|if\s+!\s*defined\s*\(?\s*(\w+)\s*\)?)\s*$")
_GUARD_DEFINE = re.compile(r"#\s*define\s+(\w+)\b")


def _include_guards(lines: list[directivetext.DirectiveLine]) -> tuple[str, ...]:
    """The include guards among the preamble's lines: a conditional group opened by
    ``#ifndef G`` (or ``#if !defined(G)``) whose next line is ``#define G``, closed
    by its own ``#endif``.  The preamble defines G, so the original's text in
    ``namespace original``, whose macros take up where the preamble left them, would
    skip the guarded code without an ``#undef G``: the kernel file's own guard
    (around all of it, ``#define G`` with a value or not), and a header's pasted into
    the file among other code (``#define G`` alone: a valued ``#ifndef N`` /
    ``#define N 64`` gives a default, which a header may have set first)."""
    found = []
    for k in range(len(lines) - 1):
        opened = _GUARD_OPEN.match(lines[k].text.strip())
        defined = _GUARD_DEFINE.match(lines[k + 1].text.strip())
        name = opened and (opened.group(1) or opened.group(2))
        if not name or not defined or defined.group(1) != name:
            continue
        end = _group_end(lines, k)
        whole = k == 0 and end == len(lines) - 1
        if end is not None and (whole or not lines[k + 1].text.strip()[
                defined.end():].strip()):
            found.append(name)
    return tuple(dict.fromkeys(found))


def _group_end(lines: list[directivetext.DirectiveLine], start: int) -> int | None:
    """The position of the ``#endif`` that closes the group opened at ``start``."""
    depth = 0
    for k in range(start, len(lines)):
        depth += lines[k].keyword.startswith("if") - (lines[k].keyword == "endif")
        if depth == 0:
            return k
    return None


_EXTERN_C_OPEN = re.compile(rb'extern\s*"C"\s*\{')


def _linked_as_c_in_cxx(unit: clangtu.Unit, at: int) -> bool:
    """A C kernel's definition at ``at`` lies in ``#ifdef __cplusplus`` / ``extern "C"
    {`` / ``#endif``, not yet closed by a ``}`` in another such group: read as C++ (the
    emitted kernel, the testbench) it has C linkage, which the testbench's prototype of
    it must say too, or the two do not link."""
    lines = directivetext.directive_lines(unit)
    blocks = 0
    for d, after in zip(lines, lines[1:]):
        if d.start > at:
            break
        if d.keyword in ("if", "ifdef") and "__cplusplus" in d.text:
            body = unit.data[d.end:after.start]
            if _EXTERN_C_OPEN.search(body):
                blocks += 1
            elif body.strip() == b"}":
                blocks -= 1
    return blocks > 0


def _within_braces(data: bytes, skipped: list[tuple[int, int]], at: int) -> bool:
    """``at`` lies in text conditional compilation leaves out (which has no
    declarations to go by) after more ``{`` than ``}`` of that text: an include in a
    table's initializer under ``#ifndef __SYNTHESIS__``, which stays where it is."""
    return any(lo <= at < hi and data.count(b"{", lo, at) > data.count(b"}", lo, at)
               for lo, hi in skipped)


def _as_opened(directive: directivetext.DirectiveLine, opened: list[ci.Cursor]) -> str:
    """A directive's text; an ``#include`` of a name a macro gives (``#include HDR``)
    that clang opened as the file it opened, quoted."""
    line = directive.text.strip()
    if directive.keyword != "include":
        return line
    target = line.split("include", 1)[1].lstrip()
    found = next((c for c in opened if directive.start <= c.location.offset < directive.end),
                 None)
    if found is not None and not target.startswith(('"', "<")):
        return f'#include "{found.spelling}"'
    return line


def _declaration_extents(unit: clangtu.Unit) -> list[tuple[int, int]]:
    """The byte ranges of the kernel file's declarations (in namespaces and
    ``extern "C"`` blocks too, not those blocks themselves)."""
    extents, stack = [], list(unit.own_top)
    while stack:
        c = stack.pop()
        if not unit.in_main(c.location) or c.kind == ci.CursorKind.INCLUSION_DIRECTIVE:
            continue
        if c.kind in (ci.CursorKind.NAMESPACE, ci.CursorKind.LINKAGE_SPEC):
            stack.extend(c.get_children())
        elif c.extent.start.file is not None:
            extents.append((c.extent.start.offset, c.extent.end.offset))
    return extents


def _parse_probed(text: str, filename: str, options: clangtu.Options,
                  names: set[str]) -> clangtu.Unit:
    """The kernel text parsed with a probe of each of ``names`` after it (:data:`PROBE`:
    clang gives their values)."""
    probes = "".join(PROBE.format(name=n) for n in sorted(names))
    return clangtu.parse(text + "\n" + probes, filename, options,
                         user_end=len(text.encode(errors=KEEP_BYTES)))


def _pragma_value_names(pragmas: list[str], directives: tuple[Directive, ...]) -> set[str]:
    """Names given as integer values of the ``pragmas`` (their texts) and directives
    (``factor=L_VECTOR_SIZE``): clang is asked for their value as for macros, so a
    constant from a header serves as Vitis lets it (a name that is no constant is left
    unresolved)."""
    values = [m.group(2) for line in pragmas
              for m in PRAGMA_OPTION.finditer(line) if m.group(1).lower() in INTEGER_KEYS]
    values += [v for d in directives for k, v in d.options if k.lower() in INTEGER_KEYS]
    return {v for v in values if IDENTIFIER.fullmatch(v)}


def _probed_macros(text: str, filename: str) -> set[str]:
    """The object-like macros of the file whose value the front end asks clang for:
    those that expand to few tokens.  A macro that expands to more than
    MAX_EXPANDED_TOKENS (``#define B (A + A)``, ``#define C (B + B)``, ...) is an error
    at its definition, before clang spends minutes expanding it."""
    bodies: dict[str, tuple[list[str], int]] = {}
    for m in DEFINE_LINE.finditer(text):
        if m.group(1) != "define":
            continue
        body = m.group(0)[m.end(3) - m.start(0):]
        words = MACRO_TOKEN.findall(body.replace("\\\n", " "))
        if m.group(3):  # function-like: the parameter list is not part of the body
            close = words.index(")") if ")" in words else len(words) - 1
            words = words[close + 1:]
        bodies[m.group(2)] = (words, m.start())
    sizes: dict[str, int] = {}
    depths: dict[str, int] = {}

    def size(name: str, depth: int) -> int:
        if name in sizes:
            return sizes[name]
        if depth > MAX_MACRO_DEPTH:
            return MAX_EXPANDED_TOKENS + 1
        sizes[name], depths[name] = 1, 0  # a macro is not expanded inside itself
        words, _ = bodies[name]
        total = sum(size(w, depth + 1) if w in bodies else 1 for w in words)
        sizes[name] = min(total, MAX_EXPANDED_TOKENS + 1)
        depths[name] = 1 + max((depths[w] for w in words if w in bodies), default=0)
        return sizes[name]

    probed = set()
    for name, (words, at) in bodies.items():
        if size(name, 0) > MAX_EXPANDED_TOKENS:
            line = text.count("\n", 0, at) + 1
            raise KernelError(Coord(filename, line, 1), f"macro '{name}' expands to more "
                                                        f"than {MAX_EXPANDED_TOKENS} tokens "
                                                        "(exponential macros?)")
        if (sizes[name] <= MAX_PROBED_TOKENS and depths[name] <= MAX_PROBED_DEPTH
                and len(probed) < MAX_PROBES and not DEFINE_LINE.match(text, at).group(3)):
            probed.add(name)
    return probed
