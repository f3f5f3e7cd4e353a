"""Which array fields of a struct variable the emission may store apart from the struct
(:attr:`arraypart.ir.Array.member_routed`).

Vitis disaggregates a local struct (UG1399, "Structs"), so each array field is a memory
of its own.  arraypart may bank one with any scheme when the emitted kernel can hold it
as a local array: bank arrays declared beside the variable, every reference
``w.buf[e0][e1]`` rewritten to them (or routed bank-centric) as a plain local's, the
struct's own field left unused.  That computes what the original does when nothing but
those references reaches the field:

- the variable is a local of the top, declared in the kernel file without
  initializer, neither const nor volatile, and no other declaration of the top
  reuses its name (references are rewritten by name);
- its struct, and each struct on the path to the field (``in`` of ``w.in.buf``), is
  defined in the kernel file as an aggregate: no constructor, destructor, method or
  base, which could reach the field through ``this``, and no default member
  initializer on the path, which would fill the unused field instead of the banks;
- the field's elements are numbers (scalars, ``ap_`` types), not structs;
- the top's text names the variable only through member chains, never whole (a
  copy, an assignment, a call's argument, a reference or a pointer: ``v = w``,
  ``f(w)``, ``&w``), nor a struct on the path whole (``f(w.in)``), and the field only
  with all its subscripts (not ``w.buf[i]``, ``memcpy(w.buf, ...)``, ``*w.buf``); the
  text that conditional compilation leaves out of the top's body
  (``#ifndef __SYNTHESIS__``, which the testbench's g++ build compiles) does not name
  the variable.
"""

from __future__ import annotations

import re
from typing import Mapping, NamedTuple

import clang.cindex as ci

from . import clanglib, clangtu
from . import cnodes as N
from .calls import MEMBER
from .declarations import AP_TYPES

# What a struct may declare besides its fields and nested types and still be an
# aggregate that only its variable's member accesses reach.
_CODE_KINDS = (ci.CursorKind.CONSTRUCTOR, ci.CursorKind.DESTRUCTOR,
               ci.CursorKind.CXX_METHOD, ci.CursorKind.CONVERSION_FUNCTION,
               ci.CursorKind.FUNCTION_TEMPLATE, ci.CursorKind.CXX_BASE_SPECIFIER)
# The tokens that start a default member initializer (``= {}``, ``{}``).
_INITIALIZER_TOKENS = ("=", "{")


def routed_fields(func: N.FuncDef, decl: N.Decl, fields: Mapping[str, ci.Type],
                  hidden: bytes) -> frozenset[str]:
    """The paths among ``fields`` (array field path -> its type) of the struct variable
    ``decl``, a local of the top ``func``, that the emission may store apart from the
    struct (module doc); ``hidden``: the text of the top's body that conditional
    compilation leaves out."""
    if not _plain_local(decl) or re.search(rb"\b%s\b" % re.escape(decl.name.encode()),
                                           hidden):
        return frozenset()
    uses = _uses(func, decl.name)
    if uses is None:
        return frozenset()
    record = decl.ctype.clang.get_canonical()
    return frozenset(path for path, t in fields.items()
                     if _aggregate_path(record, path.split(".")) and _numbers(t)
                     and all(_routable(use, path, _rank(t)) for use in uses))


def _plain_local(decl: N.Decl) -> bool:
    """Declared in the kernel file's text, without initializer, neither const nor
    volatile."""
    t = decl.ctype.clang if decl.ctype is not None else None
    return (t is not None and _no_initializer(decl) and decl.start >= 0
            and decl.stmt_start >= 0 and decl.stmt_end >= 0
            and not any(x.is_const_qualified() or x.is_volatile_qualified()
                        for x in (t, t.get_canonical())))


def _no_initializer(decl: N.Decl) -> bool:
    """No initializer is written: none, or the implicit construction that clang gives
    ``W w;`` when a field has a constructor (``ap_uint``), spanning the name alone,
    which default-initializes the field's elements as their banks' are (the struct
    declares no constructor of its own: :func:`_aggregate_path`)."""
    init = decl.init
    return init is None or (isinstance(init, N.Other) and not init.parts
                            and (init.start, init.end) == (decl.name_at,
                                                           decl.name_at + len(decl.name)))


class _Use(NamedTuple):
    """A use of the variable: the member path it names (``buf`` of ``w.buf[i][j]``,
    ``""`` of ``w`` itself), how many subscripts follow, and whether the emission may
    rewrite it (a field's element): spelled in the kernel file's text, subscripts
    after the member chain (not in a macro's body), and no pointer or reference bound
    to it (``&w.buf[i][j]``, ``float &r = w.buf[i][j]``: the front end refuses those
    into a rewritten array)."""

    path: str
    subscripts: int
    rewritable: bool


def _uses(func: N.FuncDef, name: str) -> list[_Use] | None:
    """Every use of the local variable ``name`` in the body of ``func``; None when the
    function declares ``name`` more than once (a parameter too): a use could be
    another's."""
    declared = [n for n in (*func.params, *N.walk(func.body))
                if isinstance(n, N.Decl) and n.name == name]
    if len(declared) != 1:
        return None
    found = []
    stack: list[tuple[N.Node, bool]] = [(func.body, False)]  # (node, bound to)
    while stack:
        node, bound = stack.pop()
        base, subscripts = (N.ref_base_and_subscripts(node) if isinstance(node, N.ArrayRef)
                            else (node, []))
        path = _member_path(base, name)
        if path is None:
            binder = _binds(node)
            # a binding reaches through the casts around what it binds
            stack.extend((c, c is binder or (bound and isinstance(node, N.Cast)))
                         for c in node.children() if c is not None)
        else:
            found.append(_Use(path, len(subscripts), not bound and not node.in_macro
                              and 0 <= node.start <= base.start < base.end <= node.end)
                         if isinstance(node, N.ArrayRef) else _Use(path, 0, False))
            stack.extend((s, False) for s in subscripts)
    return found


def _binds(node: N.Node) -> N.Node | None:
    """The child of ``node`` that a pointer or a reference is bound to: the operand of
    ``&``, the initializer of a reference, else None."""
    if isinstance(node, N.UnaryOp) and node.op == "&":
        return node.expr
    if (isinstance(node, N.Decl) and node.ctype is not None
            and node.ctype.kind in N.REFERENCE_TYPE_KINDS):
        return node.init
    return None


def _member_path(node: N.Node, name: str) -> str | None:
    """``in.buf`` when ``node`` is the member chain ``name.in.buf`` (``""``: ``name``
    itself), else None."""
    root, path = chain_root(node)
    return path if isinstance(root, N.Id) and root.name == name else None


def chain_root(node: N.Node) -> tuple[N.Node, str]:
    """The node at the root of the member chain ``node`` and the path of fields it
    names: (``w``, ``in.buf``) of ``w.in.buf``; (``node``, ``""``) for a node that is
    no member access."""
    fields: list[str] = []
    while isinstance(node, N.Other) and node.what == MEMBER and len(node.parts) == 1:
        fields.insert(0, node.name)
        node = node.parts[0]
    return node, ".".join(fields)


def _routable(use: _Use, path: str, rank: int) -> bool:
    """``use`` leaves the field ``path`` (of ``rank`` dimensions) to the banks: it
    names the field with every subscript, spelled where the emission rewrites it, or
    another field, but no struct on the way to it whole."""
    if use.path == path:
        return use.subscripts == rank and use.rewritable
    return not (use.path == "" or path.startswith(use.path + "."))


def _aggregate_path(record: ci.Type, names: list[str]) -> bool:
    """Each struct on the path ``names`` from ``record`` is an aggregate of the kernel
    file, and no field on it has a default member initializer."""
    for name in names:
        declaration = record.get_declaration()
        members = clangtu.record_members(record)
        if not clanglib.in_main_file(declaration.location) or any(
                m.kind in _CODE_KINDS for m in members):
            return False
        field = next((m for m in members
                      if m.kind == ci.CursorKind.FIELD_DECL and m.spelling == name), None)
        if field is None or any(t.spelling in _INITIALIZER_TOKENS
                                for t in field.get_tokens()):
            return False
        record = field.type.get_canonical()
    return True


def _numbers(t: ci.Type) -> bool:
    """The elements of the array type ``t`` are numbers, not structs."""
    element = _dimensions(t)[1]
    return (element.kind != ci.TypeKind.RECORD
            or element.get_declaration().spelling in AP_TYPES)


def _rank(t: ci.Type) -> int:
    return _dimensions(t)[0]


def _dimensions(t: ci.Type) -> tuple[int, ci.Type]:
    """How many dimensions the array type ``t`` has, and its element type (canonical)."""
    rank, t = 0, t.get_canonical()
    while t.kind == ci.TypeKind.CONSTANTARRAY:
        rank, t = rank + 1, t.element_type.get_canonical()
    return rank, t
