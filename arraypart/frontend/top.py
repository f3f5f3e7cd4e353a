"""Choosing the top function among the kernel file's function definitions, and the
errors that say why a file has none to offer: its functions are member functions or
function templates, or the named one is defined in a file it includes."""

from __future__ import annotations

import os
from pathlib import Path

import clang.cindex as ci

from ..errors import Coord, KernelError
from . import clangtu
from . import cnodes as N

# The most names an error lists.
MAX_LISTED = 5


def choose_top(unit: clangtu.Unit, funcs: list[N.FuncDef], filename: str,
               top: str | None) -> N.FuncDef:
    """The top function: ``top`` if given, else the only function definition, else
    the one named like the file's stem."""
    if not funcs:
        raise _no_function(unit, filename, top)
    names = ", ".join(f.name for f in funcs)
    if top is not None:
        chosen = [f for f in funcs if f.name == top]
        if not chosen:
            raise (_top_elsewhere(unit, filename, top)
                   or KernelError(funcs[0].coord,
                                  f"unknown top function '{top}' (candidates: {names})"))
        return chosen[0]
    if len(funcs) == 1:
        return funcs[0]
    stem = Path(filename).stem
    chosen = [f for f in funcs if f.name == stem]
    if not chosen:
        roots = _uncalled(funcs)
        hint = (f" ({roots[0]} is the only one no other function calls)"
                if len(roots) == 1 else "")
        raise KernelError(funcs[0].coord,
                          f"ambiguous top function: none is named '{stem}' "
                          f"(candidates: {names}); name one with --top{hint}")
    return chosen[0]


def _uncalled(funcs: list[N.FuncDef]) -> list[str]:
    """The functions of ``funcs`` that no other one calls, ``main`` (a testbench's,
    never a top) left out as caller and callee: the roots of the kernel's call graph."""
    called = {n.name for f in funcs if f.name != "main" for n in f.nodes
              if isinstance(n, N.FuncCall) and n.name != f.name}
    return [f.name for f in funcs if f.name not in called and f.name != "main"]


def _no_function(unit: clangtu.Unit, filename: str, top: str | None) -> KernelError:
    """The error for a file that defines no function arraypart can take for the top: it
    may define member functions only (a class's .cc file) or function templates only,
    neither of which is ever a top, or only include the file that defines ``top`` (a
    'unity' file, probe 42 F9)."""
    templates = _own_definitions(unit, (ci.CursorKind.FUNCTION_TEMPLATE,))
    if templates:
        return _template_error(unit, filename, templates, "the file defines function "
                                                          "templates only")
    methods = _own_definitions(unit, (ci.CursorKind.CXX_METHOD, ci.CursorKind.CONSTRUCTOR))
    if not methods:
        return ((top is not None and _top_elsewhere(unit, filename, top))
                or KernelError(Coord(filename, 1, 1), "no function definition in the file"))
    names = ", ".join(dict.fromkeys(f"{m.semantic_parent.spelling}::{m.spelling}"
                                    for m in methods[:MAX_LISTED]))
    line, col = methods[0].location.line, methods[0].location.column
    return KernelError(Coord(filename, line, col),
                       f"the file defines member functions only ({names}"
                       f"{', ...' if len(methods) > MAX_LISTED else ''}): a top function is "
                       "a free function; compile the file that defines it")


def _own_definitions(unit: clangtu.Unit, kinds: tuple[ci.CursorKind, ...]) -> list[ci.Cursor]:
    """The definitions of the kernel file's own text whose cursor kind is one of
    ``kinds``, in order."""
    return [c for c in clangtu.own_cursors(unit)
            if c.kind in kinds and c.is_definition() and unit.in_main(c.location)]


def _template_error(unit: clangtu.Unit, filename: str, templates: list[ci.Cursor],
                    what: str) -> KernelError:
    """The error for function templates offered as the top, located at the first: Vitis
    takes no template for the top either, but a plain function that calls an instance
    of it is one."""
    names = ", ".join(dict.fromkeys(t.spelling for t in templates[:MAX_LISTED]))
    first = templates[0]
    where = unit.location_coord(first.location)
    return KernelError(Coord(filename, where.line, where.col),
                       f"{what} ({names}{', ...' if len(templates) > MAX_LISTED else ''}): "
                       "a top must be a plain function; write one that calls an instance "
                       f"(void top(...) {{ {first.spelling}<...>(...); }}) and name it "
                       "with --top")


def _top_elsewhere(unit: clangtu.Unit, filename: str, top: str) -> KernelError | None:
    """Why ``top`` is not among the file's function definitions when the file still
    defines it: as a function template, or in a file it ``#include``s (CHStone's
    main files include the others' .c).  arraypart banks the functions of the file it
    is given (it rewrites that file only), so the error names the file to compile."""
    templates = [t for t in _own_definitions(unit, (ci.CursorKind.FUNCTION_TEMPLATE,))
                 if t.spelling == top]
    if templates:
        return _template_error(unit, filename, templates, f"'{top}' is a function template")
    for cursor in unit.header_top:
        if (cursor.kind == ci.CursorKind.FUNCTION_DECL and cursor.spelling == top
                and cursor.is_definition()):
            offset = clangtu.included_offset(unit, cursor.location)
            if offset is None:
                return None
            path = _shown(cursor.location.file.name)
            return KernelError(unit.coord(offset),
                               f"top function '{top}' is defined in {path}:"
                               f"{cursor.location.line}, which this #include brings in; "
                               "arraypart banks only the functions of the file it is "
                               f"given: compile {path} (with what it includes), or move "
                               "the top into this file")
    return None


def _shown(path: str) -> str:
    """``path`` as the user would type it: relative to the working folder when it is
    under it."""
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else relative
