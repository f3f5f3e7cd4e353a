"""The kernel file's functions that one of its headers declares first (and those of
the files it includes where the testbench's copy does, :func:`redeclared`).

The testbench and the trace driver hold a copy of the original kernel in ``namespace
original``, after the kernel's headers at file scope
(:func:`arraypart.codegen.testbench.original_text`).  A function that a header
declares and the kernel file defines is two functions there: the header's global
``::f`` (the banked kernel's, or nothing in the trace driver) and the copy's
``original::f``.  A call in the copy finds ``original::f`` by ordinary lookup, but
argument-dependent lookup adds ``::f`` when an argument's class is global (an
``ap_int``, a header's struct), and g++ calls it ambiguous; a call before the
definition finds ``::f`` alone.  So the copy renames these functions, as it renames
the top, and declares each before the file's code as the header does (its default
arguments, its template head).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Iterator

import clang.cindex as ci

from ..errors import KernelError
from ..sourcetext import KEEP_BYTES
from . import clanglib, clangtu
from .shared_types import held_declaration
from .templates import specialized_template

K = ci.CursorKind
FUNCTION_KINDS = (K.FUNCTION_DECL, K.FUNCTION_TEMPLATE)
_DIRECTIVE_LINE = re.compile(r"^[ \t]*#", re.MULTILINE)
_IDENTIFIER_CHAR = re.compile(rb"\w")


@dataclass(frozen=True, slots=True)
class Redeclared:
    """A function or function template that the kernel file (or a file it includes in
    place, :func:`redeclared`) defines and a header declares first.  ``prototype``: that declaration's text and its ``;`` (the
    definition's head when the header's declares no parameters, C's ``void f();``),
    inside the namespaces it is declared in (``namespace util { int clip(int x, int
    hi = 100); }``: the copy's ``original::util::clip`` needs the header's default
    arguments too); ``renamed``: the copy may rename ``name``, because it is global
    and every file-scope declaration of that name in the translation unit is of a
    function the kernel file defines (no header's overload, type, variable or macro
    shares it); ``by_macro``: it is renamed so, but by a macro over the copy (``#define
    f arraypart_original_f``), not in the text: a file that the copy includes in place
    defines or names it (:func:`redeclared`)."""

    name: str
    prototype: str
    renamed: bool = False
    by_macro: bool = False
    namespaces: tuple[str, ...] = ()
    name_at: int | None = None  # where ``prototype`` spells ``name``: None, nowhere whole


def redeclared(unit: clangtu.Unit, user_end: int, top: str,
               in_place: frozenset[int] = frozenset()) -> tuple[Redeclared, ...]:
    """The functions of the module doc, in text order, but for those named ``top`` (the
    testbench renames the top itself) and those of an ``extern "C"`` block or a class
    of the kernel file; those of a namespace are declared in it, never renamed.
    ``in_place``: the files (:func:`clanglib.file_of` handles) that the copy includes
    where the kernel file does (an ``#include "key.c"`` that defines functions, the
    CHStone layout): their functions count as the file's when a header declares them
    first.  Their text cannot be edited, so one of their functions, or one of the
    file's that one of their texts names, is renamed ``by_macro``, but for a name
    that a text of the copy spells as a member or qualified (``s.f``, ``p->f``,
    ``std::f``: the macro would rename the header's name too), which stays as it is,
    unless an argument of a class or enum type would let the call find the header's
    ``::f`` too (g++: an ambiguous call; :func:`_check_told_apart`).  A function that
    one of them declares first is in the copy already."""
    copied = [(c, namespaces) for c, namespaces in _file_scope_functions(unit.own_top, ())
              if c.location.offset < user_end] + [
        (c, namespaces) for c, namespaces in _file_scope_functions(
            [c for c, f in zip(unit.header_top, unit.header_files) if f in in_place], ())]
    found, elsewhere, definitions = [], set(), {}
    for c, namespaces in copied:
        if (c.is_definition() and c.spelling != top
                and not unit.in_main(c.canonical.location)
                and clanglib.file_of(c.canonical.location) not in in_place):
            body = next((k for k in c.get_children() if k.kind == K.COMPOUND_STMT), None)
            if body is not None:  # not ``= delete``
                opened = "".join(f"namespace {n} {{ " for n in namespaces)
                head, name_at = _prototype(unit, c, body)
                prototype = opened + head + " }" * len(namespaces)
                found.append(Redeclared(c.spelling, prototype, namespaces=namespaces,
                                        name_at=None if name_at is None
                                        else len(opened) + name_at))
                definitions.setdefault(c.spelling, c)
                if not unit.in_main(c.location):
                    elsewhere.add(c.spelling)
    names = {r.name for r in found if not r.namespaces}
    kept = names - _shared_names(unit, names, user_end, in_place)
    texts = [unit.data[:user_end]] + _texts(in_place)
    outside = elsewhere | _spelt(texts[1:], names, rb"\b")  # not renamed in the text
    macro = (kept & outside) - _spelt(texts, names, rb"(?:\.|->|::)\s*")
    _check_told_apart(unit, [definitions[n] for n in sorted((names & outside) - macro)])
    return tuple(replace(r, renamed=r.name in kept - elsewhere - macro and not r.namespaces,
                         by_macro=r.name in macro) for r in found)


def _check_told_apart(unit: clangtu.Unit, functions: list[ci.Cursor]) -> None:
    """Raise for the first of ``functions`` (defined where the copy cannot rename it)
    that takes a parameter of a class or enum type (a pointer, reference or array of
    one too): a call in the copy with such an argument finds both the copy's
    ``original::f`` and, by argument-dependent lookup, the header's ``::f``."""
    for c in functions:
        for argument in c.get_arguments():
            if held_declaration(argument.type) is not None:
                raise KernelError(unit.location_coord(c.location), (
                    f"'{c.spelling}' is declared in a header and defined or called in a "
                    "file the kernel includes, which the testbench copies unchanged into "
                    "its namespace 'original'; its name is also a member's or a "
                    "qualified name's (s.f, p->f, ns::f) or a header's other "
                    "declaration's, so no macro may rename it there, "
                    f"and its parameter '{argument.spelling}' of type "
                    f"'{argument.type.spelling}' makes a call there find the header's "
                    f"'::{c.spelling}' (the banked kernel's) too, which g++ calls "
                    "ambiguous: rename the member (or the function), or declare the "
                    "function in the file that defines it instead of the header"))


def _texts(files: frozenset[int]) -> list[bytes]:
    """The bytes of each of ``files`` (clang's handles) that can be read."""
    out = []
    for handle in files:
        try:
            out.append(Path(clanglib.file_name(handle)).read_bytes())
        except OSError:
            continue
    return out


def _spelt(texts: list[bytes], names: set[str], before: bytes) -> set[str]:
    """Those of ``names`` that one of ``texts`` spells as a word after ``before`` (a
    regular expression)."""
    if not names:
        return set()
    word = re.compile(before + rb"\b(" + b"|".join(re.escape(n.encode()) for n in sorted(names))
                      + rb")\b")
    return {m.group(1).decode() for text in texts for m in word.finditer(text)}


def _file_scope_functions(cursors, namespaces: tuple[str, ...], linkage: bool = False):
    """(function, the namespaces around it) for each function (template) among
    ``cursors`` and in the named namespaces among them (and in their ``extern "C"``
    blocks: ``linkage``)."""
    for c in cursors:
        if c.kind in FUNCTION_KINDS:
            yield c, namespaces
        elif c.kind == K.NAMESPACE and c.spelling:
            yield from _file_scope_functions(c.get_children(), namespaces + (c.spelling,),
                                             linkage)
        elif c.kind == K.LINKAGE_SPEC and linkage:
            yield from _file_scope_functions(c.get_children(), namespaces, linkage)


def _shared_names(unit: clangtu.Unit, names: set[str], user_end: int,
                  in_place: frozenset[int]) -> set[str]:
    """Those of ``names`` that a file-scope declaration other than a function the
    kernel file (or one of the files ``in_place``) defines also has."""
    if not names:
        return set()  # (most kernels: the walk of thousands of header cursors finds none)
    shared = set()
    stack = list(unit.top)
    while stack:
        c = stack.pop()
        if c.kind == K.LINKAGE_SPEC:
            stack.extend(c.get_children())
        elif c.spelling in names and not _defined_in_the_file(unit, c, user_end, in_place):
            shared.add(c.spelling)
    return shared


def _defined_in_the_file(unit: clangtu.Unit, cursor: ci.Cursor, user_end: int,
                         in_place: frozenset[int]) -> bool:
    if cursor.kind not in FUNCTION_KINDS:
        return False
    definition = cursor.get_definition()
    if definition is None:
        return False
    if unit.in_main(definition.location):
        return definition.location.offset < user_end
    return clanglib.file_of(definition.location) in in_place


def _prototype(unit: clangtu.Unit, definition: ci.Cursor, body: ci.Cursor
               ) -> tuple[str, int | None]:
    """The first declaration (from a header) as :func:`declaration` writes it; the
    definition's head when it has no prototype or is not written in one file; and
    where in it the function's name is written (None: not there whole)."""
    first = definition.canonical
    extent = first.extent
    handle = clanglib.file_of(extent.start)
    if first.type.kind == ci.TypeKind.FUNCTIONNOPROTO or handle is None \
            or handle != clanglib.file_of(extent.end):
        named, data, errors = definition, _text_of(unit, definition), KEEP_BYTES
        start, end = (clanglib.offset_of(definition.extent.start),
                      clanglib.offset_of(body.extent.start))
    else:
        named, data, errors = first, Path(clanglib.file_name(handle)).read_bytes(), "replace"
        start, end = clanglib.offset_of(extent.start), clanglib.offset_of(extent.end)
    head = declaration(data[start:end].decode(errors=errors))
    name_at = len(data[start:clanglib.offset_of(named.location)].decode(errors=errors))
    spelt = head[name_at:name_at + len(first.spelling) + 1]
    return head, name_at if re.fullmatch(rf"{re.escape(first.spelling)}\W", spelt) else None


def _text_of(unit: clangtu.Unit, cursor: ci.Cursor) -> bytes:
    """The bytes of the file where ``cursor`` is (the kernel's, or an included one's)."""
    if unit.in_main(cursor.location):
        return unit.data
    return Path(clanglib.file_name(clanglib.file_of(cursor.location))).read_bytes()


def declaration(head: str) -> str:
    """A function's text up to its body (or its end) as a declaration: cut at the first
    preprocessor line in it (clang's extent starts at the signature the preprocessor
    kept, and ``#else`` / ``void f(int a[N])`` / ``#endif`` after it belong to a
    conditional group a prototype must not take: ``#else without #if``), its ``;``
    on a line of its own after a ``//`` comment."""
    found = _DIRECTIVE_LINE.search(head)
    head = (head if found is None else head[:found.start()]).rstrip()
    return head + ("\n;" if "//" in head.rsplit("\n", 1)[-1] else ";")


def renamed_sites(unit: clangtu.Unit, user_end: int, top: str, top_start: int,
                  found: tuple[Redeclared, ...], options: clangtu.Options) -> tuple[int, ...]:
    """The byte offsets in the kernel text of the names that the testbench's copy
    renames (:func:`arraypart.codegen.testbench.original_text`), as clang locates them:
    each declaration of the top (``top``, whose definition starts at byte
    ``top_start``) and of the ``renamed`` of ``found``, and each reference to one of
    them; qualified ones too (``ns::f``: the name's own token), never a namespace,
    type, member or file name spelt alike.  The text g++ compiles is C simulation's:
    where it holds code that the reading with ``__SYNTHESIS__`` skipped, which may
    name them, that reading's references count too."""
    names = {top} | {r.name for r in found if r.renamed}
    wanted = {_identity(c) for c, namespaces
              in _file_scope_functions(unit.own_top, (), linkage=True)
              if c.is_definition() and (
                  (not namespaces and c.spelling in names and c.spelling != top)
                  or (c.spelling == top and clanglib.offset_of(c.extent.start) == top_start))}
    sites = _sites(unit, user_end, wanted, names)
    if any(n.encode() in unit.data[lo:hi]
           for lo, hi in clanglib.skipped_ranges(unit) for n in names):
        simulated = clangtu.simulation_unit(unit, options, user_end)
        if simulated is not None:  # (else g++'s build of that reading says where)
            sites |= _sites(simulated, user_end, wanted, names)
    return tuple(sorted(sites))


def _identity(function: ci.Cursor) -> tuple[str | None, int]:
    """Where a function (the template an instantiation is of) is first declared, (file
    name, byte offset): one key for all its declarations and instantiations, in either
    reading of the text."""
    first = (specialized_template(function) or function).canonical
    handle = clanglib.file_of(first.location)
    return (None if handle is None else clanglib.file_name(handle),
            clanglib.offset_of(first.location))


def _sites(unit: clangtu.Unit, user_end: int, wanted: set[tuple[str | None, int]],
           names: set[str]) -> set[int]:
    """:func:`renamed_sites` in ``unit``: where each name that declares or refers to a
    function of ``wanted`` (named one of ``names``) is written in the kernel text."""
    macros = {clanglib.offset_of(c.extent.start): c.referenced for c in unit.own_top
              if c.kind == K.MACRO_INSTANTIATION and c.referenced is not None}
    # each macro definition's tokens after its own name, once for all its uses
    bodies = {m: list(m.get_tokens())[1:] for m in set(macros.values())}
    sites = set()
    for c in _naming_cursors(unit, user_end, names, bodies):
        if c.kind in FUNCTION_KINDS:
            targets = [c]
        elif c.kind == K.DECL_REF_EXPR and c.referenced is not None:
            targets = [c.referenced]
        elif c.kind == K.OVERLOADED_DECL_REF:
            targets = [ci.conf.lib.clang_getOverloadedDecl(c, k)
                       for k in range(ci.conf.lib.clang_getNumOverloadedDecls(c))]
        else:
            continue
        if c.spelling in names and any(t.kind in FUNCTION_KINDS and _identity(t) in wanted
                                       for t in targets):
            sites |= _name_sites(unit, c.location, c.spelling, user_end, macros, bodies)
    return sites


def _naming_cursors(unit: clangtu.Unit, user_end: int, names: set[str],
                    bodies: dict[ci.Cursor, list[ci.Token]]) -> Iterator[ci.Cursor]:
    """:meth:`clangtu.Unit.own_cursors`, but for the trees whose text holds none of
    ``names`` and no use of a macro (of ``bodies``: its tokens by its definition) whose
    body does: no name of theirs can be one of ``names`` (a large table's initializer
    is never walked)."""
    words = {n.encode() for n in names} | {
        m.spelling.encode() for m, tokens in bodies.items()
        if any(t.spelling in names for t in tokens)}
    stack = [c for c in unit.own_top if c.location.offset < user_end]
    while stack:
        cursor = stack.pop()
        text = unit.data[clanglib.offset_of(cursor.extent.start):
                         clanglib.offset_of(cursor.extent.end)]
        if any(w in text for w in words):
            stack.extend(cursor.get_children())
            yield cursor
def _name_sites(unit: clangtu.Unit, location: ci.SourceLocation, name: str,
                user_end: int, macros: dict[int, ci.Cursor],
                bodies: dict[ci.Cursor, list[ci.Token]]) -> set[int]:
    """The byte offsets in the kernel text where ``name`` at ``location`` is written:
    there or in a macro's argument; else, when ``location`` is in the body of a macro
    that the kernel file defines, each unqualifying token ``name`` of that body (clang
    tells no more of where a body's token is); none when it is not written in the
    file whole (a header's macro, ``a ## b``)."""
    spelt = name.encode()
    handle, offset = clanglib.written_at(location)
    if handle != unit.main_file or offset >= user_end:
        return set()
    if (unit.data[offset:offset + len(spelt)] == spelt
            and not _IDENTIFIER_CHAR.match(unit.data, offset + len(spelt))):
        return {offset}
    macro = macros.get(offset)
    if macro is None or not unit.in_main(macro.location) or macro.location.offset >= user_end:
        return set()
    tokens = bodies[macro]
    return {t.extent.start.offset for t, after in zip(tokens, tokens[1:] + [None])
            if t.kind == ci.TokenKind.IDENTIFIER and t.spelling == name
            and (after is None or after.spelling != "::")}
