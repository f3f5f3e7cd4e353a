"""The arrays that no name but their own may reach in a call of the top
(``ir.Array.unaliased``), for store forwarding (:mod:`arraypart.poly.forwarding`).

C and LLVM guarantee it for:

- an argument declared ``T *__restrict a`` (or ``__restrict__``): an object that is
  modified and accessed through a restrict pointer is accessed through no lvalue not
  based on it while the function runs (C11 6.7.3.1; clang makes the parameter
  ``noalias``, which LLVM's GVN and dead-store elimination use);
- a ``static`` array of the top, or a file-scope array of the kernel file with internal
  linkage (``static``, an anonymous namespace), whose every reference is a plain
  subscript in the top's own text: nothing outside the top names it and no address of
  it or of an element leaves the top, so no pointer or reference a caller passes may
  point into it (LLVM's GlobalsAA: an internal global whose address is not taken
  aliases no argument).

A plain subscript names the array once per dimension, and the element is not under
``&``, not bound to a reference (a reference variable or cast, a reference parameter or
the ``this`` of a function the kernel's text or own headers define, a brace list of a
struct), not returned by reference, not in a lambda.  A call into a library (the Vitis
headers' ``ap_int`` operators, the standard library) keeps no address of what it is
given.  An array that arraypart cannot match to its declaration is not unaliased.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable, Iterator

import clang.cindex as ci

from ..ir import Array
from . import clangtu
from . import cnodes as N

K = ci.CursorKind
# The declarations a file-scope array may sit in.
SCOPE_KINDS = (K.NAMESPACE, K.LINKAGE_SPEC, K.UNEXPOSED_DECL)
# Where a reference would be another function's text.
FUNCTION_KINDS = (K.LAMBDA_EXPR, K.FUNCTION_DECL, K.CXX_METHOD, K.FUNCTION_TEMPLATE,
                  K.CONSTRUCTOR, K.DESTRUCTOR, K.CLASS_DECL, K.STRUCT_DECL, K.UNION_DECL)
CAST_KINDS = (K.CSTYLE_CAST_EXPR, K.CXX_STATIC_CAST_EXPR, K.CXX_CONST_CAST_EXPR,
              K.CXX_REINTERPRET_CAST_EXPR, K.CXX_FUNCTIONAL_CAST_EXPR)


def mark_unaliased(arrays: tuple[Array, ...], unit: clangtu.Unit, func: N.FuncDef,
                   own: Callable[[ci.SourceLocation], bool]) -> tuple[Array, ...]:
    """``arrays`` (the top ``func``'s) with ``unaliased`` set where the module doc
    says; ``own``: whether a location is the kernel's text or one of its own headers
    (a library's function keeps no address)."""
    marked = {a.name for a in arrays if _restrict(a, func)}
    top = next((c for c in _scoped(unit) if c.kind == K.FUNCTION_DECL
                and c.is_definition() and unit.location_coord(c.location) == func.coord),
               None)
    declared = _static_declarations(arrays, unit, top) if top is not None else {}
    if declared:
        marked |= {name for _, name in declared.values()} - _escaped(
            declared, unit, top, own)
    return tuple(replace(a, unaliased=True) if a.name in marked else a for a in arrays)


def _restrict(array: Array, func: N.FuncDef) -> bool:
    """``array`` is a parameter of ``func`` declared as a restrict pointer (a typedef's
    qualifier seen through)."""
    if not array.interface:
        return False
    param = next((p for p in func.params if p.name == array.name), None)
    t = param.ctype.clang if param is not None and param.ctype is not None else None
    return t is not None and t.get_canonical().kind == ci.TypeKind.POINTER and (
        t.is_restrict_qualified() or t.get_canonical().is_restrict_qualified())


def _static_declarations(arrays: tuple[Array, ...], unit: clangtu.Unit,
                         top: ci.Cursor) -> dict[int, tuple[ci.Cursor, str]]:
    """Per hash of its canonical declaration cursor, that cursor and the IR name of
    each candidate: a ``static`` array of the top's text, a file-scope array of the
    kernel file with internal linkage; neither a header's nor a constant table."""
    by_coord = {a.coord: a.name for a in arrays
                if not (a.interface or a.header or a.const) and (a.static or a.file_scope)}
    found: dict[int, tuple[ci.Cursor, str]] = {}
    for cursor in (*_scoped(unit), *top.walk_preorder()):
        if cursor.kind != K.VAR_DECL or not unit.in_main(cursor.location) or not (
                cursor.linkage == ci.LinkageKind.INTERNAL
                or (cursor.linkage == ci.LinkageKind.NO_LINKAGE
                    and cursor.storage_class == ci.StorageClass.STATIC)):
            continue
        name = by_coord.get(unit.location_coord(cursor.location))
        if name is not None:
            found[cursor.canonical.hash] = cursor.canonical, name
    return found


def _scoped(unit: clangtu.Unit) -> Iterator[ci.Cursor]:
    """The declarations of the kernel file's scopes (file, namespaces)."""
    stack = list(unit.own_trees)
    while stack:
        cursor = stack.pop()
        yield cursor
        if cursor.kind in SCOPE_KINDS:
            stack.extend(cursor.get_children())


def _escaped(declared: dict[int, tuple[ci.Cursor, str]], unit: clangtu.Unit,
             top: ci.Cursor, own: Callable[[ci.SourceLocation], bool]) -> set[str]:
    """The candidates of ``declared`` that some reference, in the kernel's text or its
    own headers, names other than by a plain subscript in the top's text."""
    escaped: set[str] = set()
    trees = list(unit.own_trees) + [c for c in unit.header_top if own(c.location)]
    returns = top.result_type.get_canonical().kind in N.REFERENCE_TYPE_KINDS
    for path in _reference_paths(trees, declared):
        _, name = declared[path[-1].referenced.canonical.hash]
        if name not in escaped and not (_in_top(path, top) and _plain_subscript(
                path, _rank(path[-1]), own, returns)):
            escaped.add(name)
    return escaped


def _reference_paths(trees: list[ci.Cursor], declared: dict[int, tuple[ci.Cursor, str]]
                     ) -> Iterator[tuple[ci.Cursor, ...]]:
    """The path from its tree's root to each reference of a ``declared`` variable."""
    stack: list[tuple[ci.Cursor, tuple[ci.Cursor, ...]]] = [(t, ()) for t in trees]
    while stack:
        cursor, above = stack.pop()
        path = above + (cursor,)
        if cursor.kind == K.DECL_REF_EXPR:
            referenced = cursor.referenced
            found = declared.get(referenced.canonical.hash) if referenced else None
            if found is not None and referenced.canonical == found[0]:
                yield path
        stack.extend((c, path) for c in cursor.get_children()
                     if c.kind not in clangtu.PREPROCESSING_KINDS)


def _rank(reference: ci.Cursor) -> int:
    """The number of dimensions of the array ``reference`` names."""
    rank, t = 0, reference.type.get_canonical()
    while t.kind in N.ARRAY_TYPE_KINDS:
        rank, t = rank + 1, t.element_type.get_canonical()
    return rank


def _in_top(path: tuple[ci.Cursor, ...], top: ci.Cursor) -> bool:
    """The reference at the end of ``path`` is in the top's body, in no lambda or class
    of it."""
    for k, cursor in enumerate(path):
        if cursor.kind in FUNCTION_KINDS:
            return (cursor == top
                    and not any(c.kind in FUNCTION_KINDS for c in path[k + 1:]))
    return False


def _plain_subscript(path: tuple[ci.Cursor, ...], rank: int,
                     own: Callable[[ci.SourceLocation], bool], returns: bool) -> bool:
    """The reference at the end of ``path`` is subscripted ``rank`` times, and the
    element is used where no address of it outlives the call (``returns``: the top
    returns a reference)."""
    at = len(path) - 1
    for _ in range(rank):
        at = _through(path, at, (K.PAREN_EXPR, K.UNEXPOSED_EXPR))
        if at == 0 or path[at - 1].kind != K.ARRAY_SUBSCRIPT_EXPR or not _first_child(
                path[at - 1], path[at]):
            return False
        at -= 1
    while at > 0:
        parent, child = path[at - 1], path[at]
        verdict = _context(parent, child, own, returns)
        if verdict is not None:
            return verdict
        at -= 1
    return True


def _through(path: tuple[ci.Cursor, ...], at: int, kinds: tuple) -> int:
    while at > 0 and path[at - 1].kind in kinds:
        at -= 1
    return at


def _first_child(parent: ci.Cursor, child: ci.Cursor) -> bool:
    return next(parent.get_children(), None) == child


def _context(parent: ci.Cursor, child: ci.Cursor,
             own: Callable[[ci.SourceLocation], bool], returns: bool) -> bool | None:
    """Whether an lvalue ``child`` (the element, or what still names it) is safe in
    ``parent``: True (a value is taken), False (its address may outlive the call), or
    None (``parent`` still names the element: look further up)."""
    kind = parent.kind
    if kind in (K.PAREN_EXPR, K.UNEXPOSED_EXPR, K.MEMBER_REF_EXPR):
        return None
    if kind in (K.ARRAY_SUBSCRIPT_EXPR, K.COMPOUND_ASSIGNMENT_OPERATOR):
        return None if _first_child(parent, child) else True
    if kind == K.CONDITIONAL_OPERATOR:
        return True if _first_child(parent, child) else None
    if kind == K.BINARY_OPERATOR:
        op = clangtu.binary_operator(parent)
        lvalue = (op == "=" and _first_child(parent, child)) or (
            op == "," and not _first_child(parent, child))
        return None if lvalue else True
    if kind == K.UNARY_OPERATOR:
        op = clangtu.unary_operator(parent)
        return False if op == "&" else (None if op in ("++", "--") else True)
    if kind in CAST_KINDS:
        return None if parent.type.get_canonical().kind in N.REFERENCE_TYPE_KINDS else True
    if kind == K.VAR_DECL:
        return parent.type.get_canonical().kind not in N.REFERENCE_TYPE_KINDS
    if kind == K.INIT_LIST_EXPR:
        return parent.type.get_canonical().kind != ci.TypeKind.RECORD
    if kind == K.RETURN_STMT:
        return not returns
    if kind == K.CALL_EXPR:
        return _call_keeps_nothing(parent, child, own)
    if kind == K.LAMBDA_EXPR:
        return False
    return True


def _call_keeps_nothing(call: ci.Cursor, child: ci.Cursor,
                        own: Callable[[ci.SourceLocation], bool]) -> bool:
    """A call given the element ``child`` keeps no address of it: a library's
    function, or one of the kernel's own that takes it by value."""
    callee = call.referenced
    if callee is None:
        return False
    if not own(callee.location):
        return True
    arguments = list(call.get_arguments())
    params = list(callee.get_arguments())
    k = next((n for n, a in enumerate(arguments) if a == child), None)
    if k is not None and callee.kind == K.CXX_METHOD and len(arguments) > len(params):
        k -= 1  # a member operator's object comes first: its ``this``
    return k is not None and 0 <= k < len(params) and (
        params[k].type.get_canonical().kind not in N.REFERENCE_TYPE_KINDS)
