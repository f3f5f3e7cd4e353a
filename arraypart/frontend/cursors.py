"""Questions the converter (:mod:`.convert`) asks of libclang's cursors: what a call
is (a conversion, an operator, a method and its name), which implicit nodes to see
through, a constant's value, a ``for`` header's punctuation, the macro uses of the text.
"""

from __future__ import annotations

import clang.cindex as ci

from . import clangtu
from .clangtu import Unit
from .clangtypes import int_type, mutable_reference, wide_unsigned
from .cnodes import ARRAY_TYPE_KINDS, INTEGER_TYPE_KINDS, POINTER_TYPE_KINDS, IntType

K = ci.CursorKind
TRANSPARENT = (K.UNEXPOSED_EXPR, K.PAREN_EXPR)
SHIFTS = ("<<", ">>")  # computed in the left operand's promoted type alone


def definition_site(definition: ci.Cursor) -> tuple[str, int]:
    """Where a header's ``definition`` is written: its file's name and byte offset."""
    return definition.location.file.name, definition.location.offset


def writes_nothing(variable: ci.Cursor, child: ci.Cursor, init_at: int | None) -> bool:
    """``child`` is the implicit default construction of ``W w;`` with no initializer
    written, ``W`` a plain struct (no constructor, no default member initializer:
    clang's POD): C++ leaves its fields unset, so it writes no element of them (probe
    38b F4: every element of ``w.buf`` was written there)."""
    return (init_at is None and child.kind == K.CALL_EXPR
            and child.referenced is not None and child.referenced.kind == K.CONSTRUCTOR
            and not [k for k in child.get_children() if k.kind.is_expression()]
            and variable.type.get_canonical().is_pod())


def captures_by_reference(lambda_expr: ci.Cursor) -> bool:
    """Whether a lambda's capture list (``[&]``, ``[&k]``, ``[=, &k]``) holds a ``&``."""
    for token in lambda_expr.get_tokens():
        if token.spelling == "]":
            return False
        if token.spelling in ("&", "&&"):
            return True
    return False


def names_an_array_inside(cursor: ci.Cursor) -> bool:
    """Whether an expression names an array or a pointer anywhere inside it."""
    return any(c.kind == K.DECL_REF_EXPR and c.type.get_canonical().kind in
               ARRAY_TYPE_KINDS + POINTER_TYPE_KINDS for c in cursor.walk_preorder())


def constant_value(decl: ci.Cursor | None) -> int | None:
    """clang's value of an enumerator, of a const integer variable with a constant
    initializer declared outside a function (``Traits<4>::value``, a namespace's
    ``constexpr int N``), or of a local ``constexpr`` one (``constexpr long n =
    factorial(N - 1);``, whose call the lowering cannot fold); other locals stay names
    (the lowering folds them in scope)."""
    if decl is None:
        return None
    if decl.kind == K.ENUM_CONSTANT_DECL:
        return decl.enum_value
    if decl.kind != K.VAR_DECL or not decl.type.is_const_qualified():
        return None
    if decl.type.get_canonical().kind not in INTEGER_TYPE_KINDS:
        return None
    parent = decl.semantic_parent
    if parent is not None and parent.kind in (K.FUNCTION_DECL, K.CXX_METHOD,
                                              K.FUNCTION_TEMPLATE) and not clangtu.says_before_name(decl, "constexpr"):
        return None
    value = clangtu.integer_value(decl)
    if value is None and decl.canonical != decl:  # const unsigned cfg::n; after the class
        value = clangtu.integer_value(decl.canonical)
    return value


def operation_wide(op: str, operands: list[ci.Cursor]) -> IntType | None:
    """:func:`wide_unsigned` of a built-in operator ``op``'s operands (a shift's
    type is its left operand's alone)."""
    return wide_unsigned(k.type for k in operands[:1 if op in SHIFTS else 2])


def narrowing(cursor: ci.Cursor, operand: ci.Cursor) -> IntType | None:
    """The type of clang's implicit conversion ``cursor`` of ``operand`` when both are
    integer types and the new one does not hold every value of the old, else None."""
    if cursor.kind != K.UNEXPOSED_EXPR or not operand.kind.is_expression():
        return None
    to, source = int_type(cursor.type), int_type(operand.type)
    if to is None or source is None or to.holds(source):
        return None
    return to


def written_body(method: ci.Cursor) -> bool:
    """Whether ``method``'s definition has a body written in the text: not one ``=
    default``, nor a member the compiler declares (a struct's own ``=``, whose body it
    makes where it is used, at the class's own place)."""
    definition = method.get_definition()
    parent = method.semantic_parent
    return (definition is not None
            and any(c.kind == K.COMPOUND_STMT for c in definition.get_children())
            and not (parent is not None and definition.location == parent.location))


def is_operator_call(kids: list[ci.Cursor]) -> bool:
    """An overloaded operator written as an operator (``a < b``): libclang lists the
    operator's own reference among the operands."""
    return any((callee_name(k) or "").startswith("operator") for k in kids[1:])


def is_conversion(cursor: ci.Cursor, kids: list[ci.Cursor]) -> bool:
    """A one-operand constructor call (``T(e)``, ``T v = e``) or a conversion
    operator's call (``e.operator int()``, implicit)."""
    referenced = cursor.referenced
    if referenced is None or referenced.kind == K.CONSTRUCTOR:
        return len(kids) == 1 and (referenced is not None or not cursor.spelling)
    head = plain(kids[0])
    return (referenced.kind == K.CONVERSION_FUNCTION and len(kids) == 1
            and head.kind == K.MEMBER_REF_EXPR)


def conversion_operand(cursor: ci.Cursor, kids: list[ci.Cursor]) -> ci.Cursor:
    """The converted expression: the constructor's argument, or the object whose
    conversion operator is called."""
    if cursor.referenced is None or cursor.referenced.kind == K.CONSTRUCTOR:
        return kids[0]
    inner = [k for k in plain(kids[0]).get_children() if k.kind.is_expression()]
    return inner[0] if inner else kids[0]


def plain(cursor: ci.Cursor) -> ci.Cursor:
    while cursor.kind in TRANSPARENT:
        kids = list(cursor.get_children())
        if len(kids) != 1:
            break
        cursor = kids[0]
    return cursor


def writes_right(operator: ci.Cursor | None) -> bool:
    """An overloaded binary operator whose right operand binds to a reference to
    non-const: a member's first parameter, a free function's second."""
    flags = by_reference(operator)
    right = 0 if operator is not None and operator.kind == K.CXX_METHOD else 1
    return len(flags) > right and flags[right]


def by_reference(function: ci.Cursor | None) -> tuple[bool, ...]:
    """Per parameter of ``function``: a reference to non-const (``T &``, ``T &&``)."""
    if function is None:
        return ()
    return tuple(mutable_reference(p.type) for p in function.get_arguments())


def static_method_name(cursor: ci.Cursor | None) -> str | None:
    """``Class::name`` of a static method (called as ``filler::fill(d, b)``, a function
    of the file under that name, apart from any method ``obj.fill()``), else None;
    the class named with the namespaces and classes around it (:func:`_scoped_name`)."""
    if (cursor is None or cursor.kind != K.CXX_METHOD or not cursor.is_static_method()
            or cursor.semantic_parent is None):
        return None
    return f"{_scoped_name(cursor.semantic_parent)}::{cursor.spelling}"


def member_function_name(cursor: ci.Cursor | None) -> str | None:
    """``Class::name`` of a non-static method (of a class, not of a class template's
    text: an instantiation is keyed by :func:`.templates.instance_key`), else None;
    the class named as in :func:`static_method_name`."""
    if (cursor is None or cursor.kind != K.CXX_METHOD or cursor.is_static_method()
            or cursor.semantic_parent is None
            or cursor.semantic_parent.kind not in (K.STRUCT_DECL, K.CLASS_DECL)):
        return None
    return f"{_scoped_name(cursor.semantic_parent)}::{cursor.spelling}"


def free_function_name(cursor: ci.Cursor | None) -> str | None:
    """``A::init`` of a free function of the named namespace ``A`` (declared in it, and
    defined there or out of line as ``void A::init(...)``), else None (one at global
    scope keeps its name alone): the ``init`` of two namespaces are two functions, not
    overloads of one (probe 42 F3); named as in :func:`static_method_name`."""
    if cursor is None or cursor.kind != K.FUNCTION_DECL:
        return None
    scoped = _scoped_name(cursor)
    return scoped if scoped != cursor.spelling else None


def _scoped_name(decl: ci.Cursor) -> str:
    """``decl``'s name within the named namespaces and classes around it (its
    semantic parents: ``n1::A``, ``Outer::Inner``): two classes ``A`` of two
    namespaces have methods of their own, not overloads of one."""
    names = [decl.spelling]
    parent = decl.semantic_parent
    while parent is not None and parent.kind in (K.NAMESPACE, K.STRUCT_DECL, K.CLASS_DECL):
        if parent.spelling:  # an anonymous namespace adds nothing to the name
            names.append(parent.spelling)
        parent = parent.semantic_parent
    return "::".join(reversed(names))


def implicit_object(method: ci.Cursor | None, head: ci.Cursor) -> bool:
    """``head`` calls the non-static method ``method`` on the implicit ``this`` (a
    method's body calling another method of its class, ``shift(v)``)."""
    return (method is not None and method.kind == K.CXX_METHOD
            and not method.is_static_method() and head.kind == K.MEMBER_REF_EXPR)


def callee_name(cursor: ci.Cursor) -> str | None:
    while cursor.kind in TRANSPARENT:
        kids = list(cursor.get_children())
        if len(kids) != 1:
            return None
        cursor = kids[0]
    if cursor.kind == K.MEMBER_REF_EXPR:
        return clangtu.member_name(cursor)
    if cursor.kind in (K.DECL_REF_EXPR, K.OVERLOADED_DECL_REF):
        return cursor.spelling
    return None


def kind_words(kind: ci.CursorKind) -> str:
    return kind.name.lower().replace("_", " ")


def for_header(cursor: ci.Cursor) -> tuple[int | None, list[int], int | None]:
    """Offsets of the opening ``(`` of a for header, of its two ``;`` and of its
    closing ``)``."""
    depth, semis, opening = 0, [], None
    for tok in cursor.get_tokens():
        s = tok.spelling
        if s in ("(", "[", "{"):
            if opening is None and s == "(":
                opening = tok.extent.start.offset
            depth += 1
        elif s in (")", "]", "}"):
            depth -= 1
            if depth == 0 and s == ")":
                return opening, semis, tok.extent.start.offset
        elif s == ";" and depth == 1:
            semis.append(tok.extent.start.offset)
    return opening, semis or [0], None


def macro_ranges(unit: Unit) -> list[tuple[int, int]]:
    """Byte ranges of the macro uses in the kernel text (a reference starting inside
    one is spelled in the macro, not in the text)."""
    found = []
    for c in unit.own_top:
        if c.kind == K.MACRO_INSTANTIATION:
            found.append((c.extent.start.offset, c.extent.end.offset))
    return found
