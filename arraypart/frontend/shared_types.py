"""The kernel file's own types that the top function's signature names.

The testbench compiles the original kernel inside ``namespace original`` and links
against the banked one, whose top takes the global ``::px`` where the original's takes
``original::px``: the two signatures differ, and the banked top's declaration in the
testbench would name a function that does not exist.  The testbench therefore moves the
file-scope type definitions that the signature needs (and, transitively, the types
and constants those name) out of ``namespace original``, to where the banked kernel's
translation unit defines them too (:func:`arraypart.codegen.testbench.original_text`).

A definition moves only when it can: a class with members defined outside its body,
or a type naming a function or a variable that is not a constant, stays, and then
nothing moves (the testbench is as before).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Iterator

import clang.cindex as ci

from ..errors import Coord, warning_text
from . import clanglib, clangtu

TYPE_KINDS = frozenset((ci.CursorKind.STRUCT_DECL, ci.CursorKind.CLASS_DECL,
                        ci.CursorKind.UNION_DECL, ci.CursorKind.ENUM_DECL,
                        ci.CursorKind.TYPEDEF_DECL, ci.CursorKind.TYPE_ALIAS_DECL,
                        ci.CursorKind.CLASS_TEMPLATE,
                        ci.CursorKind.CLASS_TEMPLATE_PARTIAL_SPECIALIZATION,
                        ci.CursorKind.TYPE_ALIAS_TEMPLATE_DECL))
SCOPE_KINDS = frozenset((ci.CursorKind.TRANSLATION_UNIT, ci.CursorKind.NAMESPACE))
_WRAPPER_TYPES = frozenset((ci.TypeKind.POINTER, ci.TypeKind.LVALUEREFERENCE,
                            ci.TypeKind.RVALUEREFERENCE, ci.TypeKind.CONSTANTARRAY,
                            ci.TypeKind.INCOMPLETEARRAY, ci.TypeKind.VARIABLEARRAY,
                            ci.TypeKind.DEPENDENTSIZEDARRAY))


# What a prototype's text may name of the file's own (a type, a constant).
_REFERENCES = frozenset((ci.CursorKind.TYPE_REF, ci.CursorKind.TEMPLATE_REF,
                         ci.CursorKind.DECL_REF_EXPR))


class _Stays(Exception):
    """A definition the signature needs cannot leave ``namespace original``: the
    cursor where, and why."""

    def __init__(self, cursor: ci.Cursor, why: str):
        super().__init__(why)
        self.cursor, self.why = cursor, why


@dataclass(frozen=True, slots=True, order=True)
class SharedType:
    """A file-scope definition the testbench moves: bytes ``[start, end)`` of the
    kernel text (through its ``;``), inside ``namespaces`` (outermost first);
    ``inline_at``: the byte offset where ``inline`` makes it one there (a method
    defined again beside the banked kernel's own definition: :func:`header_methods`),
    None to leave it as written."""

    start: int
    end: int
    namespaces: tuple[str, ...]
    inline_at: int | None = None


def shared_types(unit: clangtu.Unit, top_start: int,
                 user_end: int) -> tuple[tuple[SharedType, ...], tuple[str, ...]]:
    """The definitions of the kernel file that the parameter and return types of the
    top (defined at byte ``top_start``) name, with the types and constants they name
    in turn, in text order; none when the signature names none of the file's records
    or enums (a top in a namespace: none of its declarations, as ``int a[N]``, which
    ``using namespace original`` does not reach there).  When one cannot move, none,
    and a located warning that the testbench will not link."""
    top = _definition_at(unit, top_start)
    if top is None:
        return (), ()
    typed = [d for d in (held_declaration(t) for t in _signature_types(top))
             if d is not None and _own(unit, d, user_end)]
    named = [d for d in _signature_names(top) if _own(unit, d, user_end)]
    namespaced = top.semantic_parent.kind == ci.CursorKind.NAMESPACE
    if not typed and not (namespaced and named):
        return (), ()
    wanted = typed + named
    try:
        found = _closure(unit, wanted, user_end)
        outermost = [d for d in found
                     if not any(o != d and _within(d, o) for o in found)]
        return tuple(sorted(_span(unit, d) for d in outermost)), ()
    except _Stays as stays:
        return (), (warning_text(unit.location_coord(stays.cursor.location), (
            f"{stays.why}: the testbench cannot declare the banked top's types apart "
            "from the original's, and will not link")),)


def types_copied(unit: clangtu.Unit, top_start: int, in_place: frozenset[int]
                 ) -> tuple[Coord, str] | tuple[()]:
    """Where and why the testbench cannot link (none: ``()``): a record or enum that
    the parameter and return types of the top (defined at byte ``top_start``) name is
    defined by one of the files ``in_place``, which the testbench includes inside
    ``namespace original``, so the original's ``original::pt`` and the banked kernel's
    ``::pt`` are two types, and the banked top's declaration in the testbench names
    no function that exists.  (The trace driver, which links no banked kernel, runs.)"""
    top = _definition_at(unit, top_start) if in_place else None
    for declared in (held_declaration(t) for t in _signature_types(top)) if top else ():
        if declared is not None and clanglib.file_of(declared.location) in in_place:
            return unit.location_coord(declared.location), (
                f"'{declared.spelling or declared.type.spelling}', which the top's "
                "signature names, is defined in a file that the testbench must include "
                "inside its namespace 'original' (the file defines a variable or a "
                "function, which the testbench and the banked kernel cannot both "
                "define, or names the kernel file's own declarations): the "
                "original's type would not be the banked kernel's, and the project "
                "would not link; move the type to a header that defines no variable "
                "or function (declare the variables 'extern' there and define them in "
                "the kernel file)")
    return ()


def external_functions(unit: clangtu.Unit, user_end: int,
                       own_header: Callable[[ci.SourceLocation], bool]
                       ) -> tuple[tuple[SharedType, ...], tuple[str, ...]]:
    """The file- or namespace-scope prototypes of the kernel text whose function no
    file arraypart reads defines (an RTL black box, a function of another file), and a
    located warning for each the kernel calls, or that one of the user's own headers
    (``own_header``) declares and the kernel calls.  Inside ``namespace original`` such a
    prototype would declare a function nothing defines; moved out (as a shared type
    is), the original's calls reach the user's definition, which the testbench and the
    trace link against.  A prototype whose types are the file's own stays (they would
    have to move too), as does one in an ``extern "C"`` block."""
    calls = list(_own_calls(unit, user_end))
    warnings = [_undefined_warning(unit.location_coord(call.location), decl.spelling)
                for decl, call in _header_prototypes_called(unit, calls, own_header)]
    external = []
    for decl in _file_scope_functions(unit, user_end):
        if decl.is_definition() or decl.get_definition() is not None or any(
                ref.kind in _REFERENCES and ref.referenced is not None
                and _own(unit, ref.referenced, user_end) for ref in decl.walk_preorder()):
            continue
        try:
            external.append((decl, _span(unit, decl)))
        except _Stays:
            continue
    if not external:
        return (), tuple(warnings)
    called = {c.referenced.get_usr() for c in calls}
    warnings += [_undefined_warning(unit.location_coord(decl.location), decl.spelling)
                 for decl, _ in external if decl.get_usr() in called]
    return tuple(span for _, span in external), tuple(warnings)


METHOD_KINDS = frozenset((ci.CursorKind.CXX_METHOD, ci.CursorKind.CONSTRUCTOR,
                          ci.CursorKind.DESTRUCTOR, ci.CursorKind.CONVERSION_FUNCTION))


def header_methods(unit: clangtu.Unit, user_end: int) -> tuple[SharedType, ...]:
    """The kernel file's out-of-line definitions of the methods of a class that a
    header declares (``int Acc::get() const { ... }``): C++ takes them only in a
    namespace around the class, never in ``namespace original``, so the testbench
    moves them out, ``inline`` (the banked kernel defines them too, and the trace
    driver, which links none, has this one): after ``template <>`` for an explicit
    specialization, not at all for one of a class template (``template <int N> int
    Acc<N>::get() const``), which every unit may define."""
    found = []
    for cursor in _file_scope_declarations(unit, user_end):
        if (cursor.kind in METHOD_KINDS and cursor.is_definition()
                and not unit.in_main(cursor.semantic_parent.location)):
            start, end = cursor.extent.start.offset, cursor.extent.end.offset
            found.append(SharedType(start, end, _lexical_namespaces(cursor)[0],
                                    _inline_at(unit.data, start)))
    return tuple(sorted(found))


_SPECIALIZATION = re.compile(rb"\s*template\s*<\s*>\s*")


def _inline_at(data: bytes, start: int) -> int | None:
    """Where ``inline`` goes into the definition at byte ``start``: before it, or
    after the ``template <>`` of an explicit specialization; None where it is one
    already, or a template's."""
    at = start
    specialized = _SPECIALIZATION.match(data, start)
    if specialized is not None:
        at = specialized.end()
    rest = data[at:].lstrip()
    return None if rest.startswith((b"inline", b"template")) else at


def _undefined_warning(coord, name: str) -> str:
    return warning_text(coord, (
        f"'{name}' is defined in no file arraypart reads: its effects are not "
        "modelled (a scalar it may change through a reference is irregular), and the "
        "testbench and check --trace link against your definition (add its file to the "
        "testbench's build)"))


def _own_calls(unit: clangtu.Unit, user_end: int) -> Iterator[ci.Cursor]:
    """The calls written in the kernel's text (those with a known callee)."""
    for top in unit.own_top:
        if top.location.offset < user_end:
            for c in top.walk_preorder():
                if c.kind == ci.CursorKind.CALL_EXPR and c.referenced is not None:
                    yield c


def _header_prototypes_called(unit: clangtu.Unit, calls: list[ci.Cursor],
                              own_header: Callable[[ci.SourceLocation], bool]
                              ) -> list[tuple[ci.Cursor, ci.Cursor]]:
    """(declaration, first call) of each function or method that the kernel's text
    calls (``calls``), that one of the user's own headers declares and that no file
    arraypart reads defines."""
    found: dict[str, tuple[ci.Cursor, ci.Cursor]] = {}
    for call in calls:
        decl = call.referenced
        if (decl.kind in (ci.CursorKind.FUNCTION_DECL, ci.CursorKind.CXX_METHOD)
                and not unit.in_main(decl.location)
                and own_header(decl.location) and not decl.is_definition()
                and decl.get_definition() is None and decl.get_usr() not in found):
            found[decl.get_usr()] = (decl, call)
    return list(found.values())


def _file_scope_functions(unit: clangtu.Unit, user_end: int) -> Iterator[ci.Cursor]:
    return (c for c in _file_scope_declarations(unit, user_end)
            if c.kind == ci.CursorKind.FUNCTION_DECL)


def _file_scope_declarations(unit: clangtu.Unit, user_end: int) -> Iterator[ci.Cursor]:
    """The kernel text's declarations at file scope and in its namespaces."""
    stack = list(unit.own_top)
    while stack:
        cursor = stack.pop()
        if not _own(unit, cursor, user_end):
            continue
        if cursor.kind == ci.CursorKind.NAMESPACE:
            stack.extend(cursor.get_children())
        else:
            yield cursor


def _definition_at(unit: clangtu.Unit, start: int) -> ci.Cursor | None:
    stack = list(unit.own_top)
    while stack:
        cursor = stack.pop()
        if not unit.in_main(cursor.location):
            continue
        if cursor.kind in (ci.CursorKind.NAMESPACE, ci.CursorKind.LINKAGE_SPEC):
            stack.extend(cursor.get_children())
        elif cursor.kind == ci.CursorKind.FUNCTION_DECL and cursor.extent.start.offset == start:
            return cursor
    return None


def _signature_types(top: ci.Cursor):
    yield top.result_type
    for param in top.get_arguments():
        yield param.type


def _signature_names(top: ci.Cursor):
    """The file- or namespace-scope declarations that the top's parameters name as
    written (``hls::stream<pkt>``, ``int a[N]``)."""
    for param in top.get_arguments():
        for cursor in param.walk_preorder():
            if cursor.kind in (ci.CursorKind.TYPE_REF, ci.CursorKind.TEMPLATE_REF,
                               ci.CursorKind.DECL_REF_EXPR) and cursor.referenced is not None:
                holder = _file_scope(cursor.referenced)
                if holder is not None:
                    yield holder


def held_declaration(kind: ci.Type) -> ci.Cursor | None:
    """The record or enum that ``kind`` holds (through pointers, references, arrays
    and typedefs), or None."""
    kind = kind.get_canonical()
    while kind.kind in _WRAPPER_TYPES:
        kind = (kind.get_pointee() if kind.kind in (ci.TypeKind.POINTER,
                                                    ci.TypeKind.LVALUEREFERENCE,
                                                    ci.TypeKind.RVALUEREFERENCE)
                else kind.element_type).get_canonical()
    if kind.kind not in (ci.TypeKind.RECORD, ci.TypeKind.ENUM):
        return None
    for k in range(max(0, kind.get_num_template_arguments())):  # hls::stream<pkt>
        argument = held_declaration(kind.get_template_argument_type(k))
        if argument is not None:
            return argument
    declaration = kind.get_declaration()
    template = ci.conf.lib.clang_getSpecializedCursorTemplate(declaration)
    return template if template is not None and not template.kind.is_invalid() else declaration


def _own(unit: clangtu.Unit, cursor: ci.Cursor, user_end: int) -> bool:
    return unit.in_main(cursor.location) and cursor.location.offset < user_end


def _file_scope(cursor: ci.Cursor) -> ci.Cursor | None:
    """The file- or namespace-scope declaration that holds ``cursor`` (a member, an
    enumerator, a template parameter), or None for a local one."""
    while cursor is not None and cursor.semantic_parent is not None:
        parent = cursor.semantic_parent
        if parent.kind in SCOPE_KINDS:
            return cursor
        if parent.kind in (ci.CursorKind.FUNCTION_DECL, ci.CursorKind.CXX_METHOD):
            return None
        cursor = parent
    return None


def _closure(unit: clangtu.Unit, wanted: list[ci.Cursor], user_end: int) -> list[ci.Cursor]:
    """``wanted`` and the kernel file's file-scope declarations they name, transitively;
    raises :class:`_Stays` at one that cannot move."""
    found: dict[tuple[int, int], ci.Cursor] = {}
    stack = list(wanted)
    while stack:
        decl = stack.pop()
        key = (decl.extent.start.offset, decl.extent.end.offset)
        if key in found:
            continue
        if not _movable(decl):
            raise _Stays(decl, f"the top's types name '{decl.spelling}', which is not a "
                               "type or a constant")
        found[key] = decl
        stack.extend(_naming_typedefs(decl))
        for inner in decl.walk_preorder():
            target = inner.referenced
            if target is None:
                continue
            holder = _file_scope(target)
            if holder is not None and _own(unit, holder, user_end) and not _within(holder, decl):
                stack.append(holder)
    _check_no_outside_members(unit, list(found.values()), user_end)
    return list(found.values())


def _movable(decl: ci.Cursor) -> bool:
    """A type, or a constant (its value known where the banked kernel defines it too)."""
    if decl.kind in TYPE_KINDS:
        return decl.is_definition() or decl.kind in (ci.CursorKind.TYPEDEF_DECL,
                                                     ci.CursorKind.TYPE_ALIAS_DECL,
                                                     ci.CursorKind.TYPE_ALIAS_TEMPLATE_DECL)
    return (decl.kind == ci.CursorKind.VAR_DECL and decl.type.is_const_qualified()
            and decl.storage_class != ci.StorageClass.EXTERN)


def _naming_typedefs(decl: ci.Cursor) -> list[ci.Cursor]:
    """The typedef whose text holds ``decl`` (``typedef struct {...} px;``): the two
    move together."""
    parent = decl.semantic_parent
    if parent is None or decl.kind in (ci.CursorKind.TYPEDEF_DECL, ci.CursorKind.VAR_DECL):
        return []
    return [c for c in parent.get_children()
            if c.kind == ci.CursorKind.TYPEDEF_DECL and _within(decl, c) and c != decl]


def _within(inner: ci.Cursor, outer: ci.Cursor) -> bool:
    return (outer.extent.start.offset <= inner.extent.start.offset
            and inner.extent.end.offset <= outer.extent.end.offset)


def _check_no_outside_members(unit: clangtu.Unit, found: list[ci.Cursor],
                              user_end: int) -> None:
    """A class whose methods or static members are defined outside its body stays: the
    definition, moved, would be defined twice at link time."""
    classes = {(d.extent.start.offset, d.extent.end.offset) for d in found
               if d.kind not in (ci.CursorKind.VAR_DECL, ci.CursorKind.ENUM_DECL)}
    stack = list(unit.own_top)
    while stack:
        cursor = stack.pop()
        if not _own(unit, cursor, user_end):
            continue
        if cursor.kind in (ci.CursorKind.NAMESPACE, ci.CursorKind.LINKAGE_SPEC):
            stack.extend(cursor.get_children())
            continue
        parent = cursor.semantic_parent
        if (parent is not None and parent != cursor.lexical_parent and _own(unit, parent, user_end)
                and (parent.extent.start.offset, parent.extent.end.offset) in classes):
            raise _Stays(cursor, f"'{parent.spelling}::{cursor.spelling}' is defined outside "
                                 f"its class (define it inside '{parent.spelling}')")


def _span(unit: clangtu.Unit, decl: ci.Cursor) -> SharedType:
    """The bytes of ``decl`` through its ``;``; raises :class:`_Stays` when something
    else follows it (``struct px {...} p;`` declares a variable too)."""
    start, end = decl.extent.start.offset, decl.extent.end.offset
    rest = unit.data[end:]
    stripped = rest.lstrip()
    if not stripped.startswith(b";"):
        raise _Stays(decl, f"'{decl.spelling}' is declared with a variable (declare the "
                           "variable apart)")
    namespaces, parent = _lexical_namespaces(decl)
    if parent is None or parent.kind != ci.CursorKind.TRANSLATION_UNIT:
        raise _Stays(decl, f"'{decl.spelling}' is defined in an extern \"C\" block")
    return SharedType(start, end + len(rest) - len(stripped) + 1, namespaces)


def _lexical_namespaces(decl: ci.Cursor) -> tuple[tuple[str, ...], ci.Cursor | None]:
    """The namespaces written around ``decl``, outermost first, and what is around
    them (an ``extern "C"`` block is a lexical parent only)."""
    namespaces = []
    parent = decl.lexical_parent
    while parent is not None and parent.kind == ci.CursorKind.NAMESPACE:
        namespaces.append(parent.spelling)
        parent = parent.lexical_parent
    return tuple(reversed(namespaces)), parent
