"""The kernel file's functions that one of its headers declares first.

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

import clang.cindex as ci

from ..sourcetext import KEEP_BYTES
from . import clangtu

K = ci.CursorKind
FUNCTION_KINDS = (K.FUNCTION_DECL, K.FUNCTION_TEMPLATE)
_DIRECTIVE_LINE = re.compile(r"^[ \t]*#", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class Redeclared:
    """A function or function template that the kernel file defines and a header
    declares first.  ``prototype``: that declaration's text and its ``;`` (the
    definition's head when the header's declares no parameters, C's ``void f();``),
    inside the namespaces it is declared in (``namespace util { int clip(int x, int
    hi = 100); }``: the copy's ``original::util::clip`` needs the header's default
    arguments too); ``renamed``: the copy may rename ``name``, because it is global
    and every file-scope declaration of that name in the translation unit is of a
    function the kernel file defines (no header's overload, type, variable or macro
    shares it)."""

    name: str
    prototype: str
    renamed: bool = False
    namespaces: tuple[str, ...] = ()


def redeclared(unit: clangtu.Unit, user_end: int, top: str) -> tuple[Redeclared, ...]:
    """The functions of the module doc, in text order, but for those named ``top`` (the
    testbench renames the top itself) and those of an ``extern "C"`` block or a class
    of the kernel file; those of a namespace are declared in it, never renamed."""
    found = []
    for c, namespaces in _file_scope_functions(unit.own_top, ()):
        if (c.is_definition() and c.spelling != top and c.location.offset < user_end
                and not unit.in_main(c.canonical.location)):
            body = next((k for k in c.get_children() if k.kind == K.COMPOUND_STMT), None)
            if body is not None:  # not ``= delete``
                opened = "".join(f"namespace {n} {{ " for n in namespaces)
                prototype = opened + _prototype(unit, c, body) + " }" * len(namespaces)
                found.append(Redeclared(c.spelling, prototype, namespaces=namespaces))
    names = {r.name for r in found if not r.namespaces}
    kept = names - _shared_names(unit, names, user_end)
    return tuple(replace(r, renamed=r.name in kept and not r.namespaces) for r in found)


def _file_scope_functions(cursors, namespaces: tuple[str, ...]):
    """(function, the namespaces around it) for each function (template) among
    ``cursors`` and in the named namespaces among them."""
    for c in cursors:
        if c.kind in FUNCTION_KINDS:
            yield c, namespaces
        elif c.kind == K.NAMESPACE and c.spelling:
            yield from _file_scope_functions(c.get_children(), namespaces + (c.spelling,))


def _shared_names(unit: clangtu.Unit, names: set[str], user_end: int) -> set[str]:
    """Those of ``names`` that a file-scope declaration other than a function the
    kernel file defines also has."""
    if not names:
        return set()  # (most kernels: the walk of thousands of header cursors finds none)
    shared = set()
    stack = list(unit.top)
    while stack:
        c = stack.pop()
        if c.kind == K.LINKAGE_SPEC:
            stack.extend(c.get_children())
        elif c.spelling in names and not _defined_in_the_file(unit, c, user_end):
            shared.add(c.spelling)
    return shared


def _defined_in_the_file(unit: clangtu.Unit, cursor: ci.Cursor, user_end: int) -> bool:
    if cursor.kind not in FUNCTION_KINDS:
        return False
    definition = cursor.get_definition()
    return (definition is not None and unit.in_main(definition.location)
            and definition.location.offset < user_end)


def _prototype(unit: clangtu.Unit, definition: ci.Cursor, body: ci.Cursor) -> str:
    """The first declaration (from a header) as :func:`declaration` writes it; the
    definition's head when it has no prototype or is not written in one file."""
    first = definition.canonical
    extent = first.extent
    handle = clangtu.file_of(extent.start)
    if first.type.kind == ci.TypeKind.FUNCTIONNOPROTO or handle is None \
            or handle != clangtu.file_of(extent.end):
        start = clangtu.offset_of(definition.extent.start)
        text = unit.data[start:clangtu.offset_of(body.extent.start)].decode(errors=KEEP_BYTES)
    else:
        data = Path(clangtu.file_name(handle)).read_bytes()
        text = data[clangtu.offset_of(extent.start):clangtu.offset_of(extent.end)].decode(
            errors="replace")
    return declaration(text)


def declaration(head: str) -> str:
    """A function's text up to its body (or its end) as a declaration: cut at the first
    preprocessor line in it (clang's extent starts at the signature the preprocessor
    kept, and ``#else`` / ``void f(int a[N])`` / ``#endif`` after it belong to a
    conditional group a prototype must not take: ``#else without #if``), its ``;``
    on a line of its own after a ``//`` comment."""
    found = _DIRECTIVE_LINE.search(head)
    head = (head if found is None else head[:found.start()]).rstrip()
    return head + ("\n;" if "//" in head.rsplit("\n", 1)[-1] else ";")
