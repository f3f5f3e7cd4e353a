"""A small C/C++ syntax tree built from clang's cursors, for lowering and codegen.

libclang's cursors are mutable handles into a translation unit with implicit nodes
(conversions, parentheses) in between; lowering wants the syntax a user wrote.  The
converter keeps what arraypart models (loops, ifs, assignments, subscripts, integer
arithmetic, declarations) as frozen nodes named like pycparser's, each with its
coordinate and its byte range ``start..end`` in the kernel text (-1 when it is not in
the kernel file, e.g. inside a header); everything else becomes :class:`Other`, whose
children are still walked for array references.  ``#pragma`` lines are placed in the
compound statement that holds them, in text order, as :class:`Pragma` items.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field, replace
from typing import Any, Callable

import clang.cindex as ci

from ..errors import Coord, KernelError
from . import clanglib, clangtu, literal_lists, pragmatext, templates
from .clangtu import Unit
from .pragmatext import PragmaLine

K = ci.CursorKind
# Nesting the lowering recursion stays far from Python's frame limit with (C99
# 5.2.4.1: 127 nested blocks, 63 nested parentheses fit below it).
MAX_TREE_DEPTH = 150
# The levels an element of a brace list adds below it: its conversion, a minus, the literal.
ELEMENT_DEPTH = 3
LITERAL_TYPES = 64  # (literal type, element type) pairs kept: a few dozen exist
TRANSPARENT = (K.UNEXPOSED_EXPR, K.PAREN_EXPR)
#: ``Other.what`` of an argument a call leaves to its parameter's default (clang's
#: CXXDefaultArgExpr, unexposed and without text).
DEFAULT_ARGUMENT = "default argument"
#: ``Other.what`` of ``this`` (written, or the implicit object of a member's name).
THIS = "cxx this expr"
COMPOUND_OPERATORS = tuple(f"operator{op}=" for op in ("+", "-", "*", "/", "%", "&", "|",
                                                       "^", "<<", ">>"))
CASTS = (K.CSTYLE_CAST_EXPR, K.CXX_FUNCTIONAL_CAST_EXPR, K.CXX_STATIC_CAST_EXPR,
         K.CXX_CONST_CAST_EXPR, K.CXX_REINTERPRET_CAST_EXPR)
# Operators that ap_int overloads, read as the built-in ones on its values.
OVERLOADED_BINARY = ("+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "<", "<=", ">",
                     ">=", "==", "!=", "&&", "||")
OVERLOADED_UNARY = ("+", "-", "~", "!")
INTEGER_TYPE_KINDS = frozenset((
    ci.TypeKind.BOOL, ci.TypeKind.CHAR_U, ci.TypeKind.UCHAR, ci.TypeKind.USHORT,
    ci.TypeKind.UINT, ci.TypeKind.ULONG, ci.TypeKind.ULONGLONG, ci.TypeKind.CHAR_S,
    ci.TypeKind.SCHAR, ci.TypeKind.SHORT, ci.TypeKind.INT, ci.TypeKind.LONG,
    ci.TypeKind.LONGLONG))
# Floating types whose values the front end leaves unknown, as their literals'.
PLAIN_FLOATING_KINDS = frozenset((ci.TypeKind.FLOAT, ci.TypeKind.DOUBLE,
                                  ci.TypeKind.LONGDOUBLE))
UNSUPPORTED_STATEMENTS = {
    K.GOTO_STMT: "goto",
    K.BREAK_STMT: "break", K.CONTINUE_STMT: "continue", K.CXX_FOR_RANGE_STMT: "range-for",
    K.CXX_TRY_STMT: "try", K.INDIRECT_GOTO_STMT: "goto",
}
IGNORED_DECLARATIONS = (K.TYPEDEF_DECL, K.STRUCT_DECL, K.UNION_DECL, K.ENUM_DECL,
                        K.TYPE_ALIAS_DECL, K.USING_DIRECTIVE, K.USING_DECLARATION,
                        K.STATIC_ASSERT, K.CLASS_DECL, K.NAMESPACE_ALIAS)


@dataclass(frozen=True, slots=True, eq=False)
class Node:
    coord: Coord
    start: int
    end: int

    def children(self) -> tuple["Node", ...]:
        return ()


# ---------------------------------------------------------------- expressions


@dataclass(frozen=True, slots=True, eq=False)
class Id(Node):
    name: str = ""


@dataclass(frozen=True, slots=True, eq=False)
class Constant(Node):
    """A literal; ``value`` is its integer value (None: not an integer literal)."""

    value: int | None = None


@dataclass(frozen=True, slots=True, eq=False)
class UnaryOp(Node):
    """``op expr``; ``wraps``: for ``-`` and ``~``, the unsigned or ``ap_[u]int`` type
    whose arithmetic computes it (as :class:`BinaryOp`'s); ``size``: for ``sizeof``,
    the bytes clang gives it, for ``*`` those of the object it reaches (``8`` for
    ``*(long long *)&A[k]``); None where it depends on a template's parameter."""

    op: str = ""
    expr: Node | None = None
    wraps: IntType | None = None
    size: int | None = None

    def children(self):
        return (self.expr,) if self.op != "sizeof" and self.expr is not None else ()


@dataclass(frozen=True, slots=True, eq=False)
class BinaryOp(Node):
    """``left op right``; ``wraps``: the type whose arithmetic computes it, modulo
    2^width: an unsigned C type's (``+ - * <<``; signed overflow is undefined: no
    wrap), or the ``ap_[u]int`` type an overloaded operator returns (Vitis widens
    ``+ - * /`` so that they never wrap, but ``<<`` and ``~`` keep the left operand's
    width: ``ap_uint<4>(5) << 2`` is 4).  ``wide``: the unsigned type of 64 bits or
    more that an operand has (:func:`wide_unsigned`)."""

    op: str = ""
    left: Node | None = None
    right: Node | None = None
    wraps: IntType | None = None
    writes_right: bool = False  # an overloaded operator that takes ``right`` by mutable
    # reference and may write it: ``in >> k`` on a stream
    wide: IntType | None = None

    def children(self):
        return (self.left, self.right)


@dataclass(frozen=True, slots=True, eq=False)
class Assignment(Node):
    """``lvalue op rvalue``; ``pointer``: the target is a pointer (``p = &A[k]``);
    ``wide``: as :class:`BinaryOp`'s, for a compound ``op``."""

    op: str = "="
    lvalue: Node | None = None
    rvalue: Node | None = None
    pointer: bool = False
    wide: IntType | None = None

    def children(self):
        return (self.lvalue, self.rvalue)


@dataclass(frozen=True, slots=True, eq=False)
class TernaryOp(Node):
    cond: Node | None = None
    iftrue: Node | None = None
    iffalse: Node | None = None

    def children(self):
        return (self.cond, self.iftrue, self.iffalse)


@dataclass(frozen=True, slots=True)
class IntType:
    """An integer type: C's (``bool`` apart: ``boolean``) or ``ap_[u]int<W>``, as its
    width in bits and signedness; its values are ``low..high``."""

    width: int
    signed: bool
    boolean: bool = False

    @property
    def low(self) -> int:
        return -(1 << (self.width - 1)) if self.signed else 0

    @property
    def high(self) -> int:
        return (1 << (self.width - 1)) - 1 if self.signed else (1 << self.width) - 1

    def holds(self, other: IntType) -> bool:
        """Whether every value of ``other`` is one of this type's."""
        return self.low <= other.low and other.high <= self.high

    def keeps(self, low: int | None, high: int | None) -> bool:
        """Whether converting to this type keeps every value in ``low..high`` (None:
        unknown): it holds them, or the interval is unknown and the type 32 bits or
        wider, where a value and its conversion differ only at 2^31 or more in
        magnitude, which indexes out of every array."""
        if low is None or high is None:
            return self.width >= 32
        return self.low <= low and high <= self.high

    def converted(self, low: int | None, high: int | None) -> tuple[int | None, int | None]:
        """An interval holding the conversion to this type of every value in
        ``low..high``: the interval itself where it :meth:`keeps` it, else the type's."""
        return (low, high) if self.keeps(low, high) else (self.low, self.high)


@dataclass(frozen=True, slots=True, eq=False)
class Cast(Node):
    """A conversion of ``expr``: ``(T)e``, ``T(e)``, ``static_cast<T>(e)``, or
    (``implicit``) one clang inserts where a value changes type and the new type does
    not hold every value of the old (``uint8_t w = i + 250``, ``i % 4u``).  ``to``:
    T when it is an integer type, else None; ``source``: ``expr``'s integer type, when
    it has one; ``points_to``: when T is a pointer, the bytes of what it points to
    (None: no pointer, or a template's parameter decides)."""

    to: IntType | None = None
    expr: Node | None = None
    source: IntType | None = None
    implicit: bool = False
    points_to: int | None = None

    def children(self):
        return (self.expr,)


def _names_an_array(t: ci.Type) -> bool:
    """Whether ``t``, through its arrays and pointers, reaches a type name (a typedef,
    ``using``) that stands for an array type (``img_t`` for ``int[4][8]``)."""
    while True:
        if t.kind in ARRAY_TYPE_KINDS:
            t = t.element_type
        elif t.kind == ci.TypeKind.POINTER:
            t = t.get_pointee()
        else:
            canonical = t.get_canonical()
            return canonical.kind != t.kind and canonical.kind in ARRAY_TYPE_KINDS


def unconverted(node: Node) -> Node:
    """``node`` without the conversions around it that a loop header may read
    through: clang's implicit ones (``i < 10u`` converts i, which the loop's bounds
    keep in both types' ranges) and written ones to a type that holds the operand's
    (``(int)i`` of an ``unsigned char``, which keep every value)."""
    while isinstance(node, Cast) and (node.implicit or (
            node.to is not None and node.source is not None and node.to.holds(node.source))):
        node = node.expr
    return node


def without_casts(node: Node) -> Node:
    """``node`` with every conversion around it taken off, written or implicit."""
    while isinstance(node, Cast):
        node = node.expr
    return node


@dataclass(frozen=True, slots=True, eq=False)
class FuncCall(Node):
    """``name(args)``; ``instance``: the instantiation called when ``name`` is a function
    template of the kernel file (:mod:`.templates`); ``method``: a member function
    called on ``args[0]`` (``a.f(b)`` is ``f`` with args ``(a, b)``, ``a(b)`` of a class
    of the kernel's own with an ``operator()`` too); ``by_reference``:
    per argument of a function call (none for a method), whether its parameter is a
    reference to non-const, through which the callee may write (``std::swap``)."""

    name: str | None = None
    args: tuple[Node, ...] = ()
    instance: str | None = None
    method: bool = False
    by_reference: tuple[bool, ...] = ()
    # a non-static method of a class the kernel file or one of its own headers
    # declares: one the lowering does not inline may write its object unseen
    own_method: bool = False

    @property
    def key(self) -> str | None:
        """The definition it calls: its instantiation, else its name."""
        return self.instance or self.name

    def children(self):
        return self.args


@dataclass(frozen=True, slots=True, eq=False)
class ArrayRef(Node):
    """``name[subscript]``; ``in_macro``: the reference is spelled inside a macro."""

    name: Node | None = None
    subscript: Node | None = None
    in_macro: bool = False

    def children(self):
        return (self.name, self.subscript)


@dataclass(frozen=True, slots=True, eq=False)
class InitList(Node):
    exprs: tuple[Node, ...] = ()

    def children(self):
        return self.exprs


@dataclass(frozen=True, slots=True, eq=False)
class Other(Node):
    """Any other expression (member access, a C++ construct): ``what`` names it;
    ``name`` is the member a member access names; ``by_reference``, for a constructor
    call, per argument whether its parameter is a reference to non-const (empty:
    unknown, every argument may be bound to one)."""

    what: str = ""
    parts: tuple[Node, ...] = ()
    name: str = ""
    by_reference: tuple[bool, ...] = ()

    def children(self):
        return self.parts


# ---------------------------------------------------------------- statements


@dataclass(frozen=True, slots=True, eq=False)
class Pragma(Node):
    line: PragmaLine | None = None


@dataclass(frozen=True, slots=True, eq=False)
class Compound(Node):
    """``{ items }``; not ``braced``: a loop body written without braces, its leading
    pragmas and its one statement (from the first pragma to the statement's end)."""

    items: tuple[Node, ...] = ()
    braced: bool = True

    def children(self):
        return self.items


class TypeInfo:
    """A declared type as plain data (kinds and spellings), plus clang's ``Type`` in
    ``clang`` for the lowering only: :meth:`release` drops it once the IR is built, so
    that no kept tree holds the translation unit (and its memory) alive.  ``referent``
    is the referenced type of a reference (None for any other type); ``ap_number``: the
    type is an ``ap_[u]int`` or ``ap_[u]fixed``; ``const``: it is const-qualified;
    ``integer``: the :class:`IntType` it is, if any; ``array_typedef``: through
    arrays and pointers it reaches a name that stands for an array type;
    ``element_struct``: its elements (through arrays, pointers and references) are
    structs other than those, whose direct fields ``element_fields`` lists as
    ``(name, by_value)``: integers, enums and bit-fields compare by value, anything else
    (floating point, arrays, structs) bit for bit; padding is no field (its bytes are
    indeterminate after a copy); ``array_fields``: some direct field is an array;
    ``stream_fields``: for an ``hls::stream`` of such structs (:func:`_streamed_record`),
    their fields;
    ``element_ap_fields`` and ``stream_ap_fields``: the ``ap_`` number and ``bool``
    fields of those structs (:func:`_ap_fields`), which random bytes would fill past
    their width;
    ``element_initialized``: such a struct sets fields of its own when default
    constructed (a default member initializer, or a default constructor the user wrote);
    ``enumerators``: for an enum, the values of its enumerators, in order."""

    __slots__ = ("clang", "kind", "canonical_kind", "spelling", "canonical_spelling",
                 "element_struct", "element_fields", "element_spelling", "referent",
                 "ap_number", "const", "integer", "array_typedef", "array_fields",
                 "stream_fields", "element_ap_fields", "stream_ap_fields",
                 "element_initialized", "enumerators")

    def __init__(self, t: ci.Type):
        canonical = t.get_canonical()
        self.clang = t
        self.kind = t.kind
        self.canonical_kind = canonical.kind
        self.spelling = t.spelling
        self.canonical_spelling = canonical.spelling
        element = canonical
        while element.kind in ARRAY_TYPE_KINDS + POINTER_TYPE_KINDS:
            element = (element.element_type if element.kind in ARRAY_TYPE_KINDS
                       else element.get_pointee()).get_canonical()
        ap_record = (element.kind == ci.TypeKind.RECORD
                     and element.get_declaration().spelling in AP_TYPE_NAMES)
        self.element_struct = element.kind == ci.TypeKind.RECORD and not ap_record
        self.element_fields = _fields(element) if self.element_struct else ()
        self.element_ap_fields = _ap_fields(element) if self.element_struct else ()
        self.array_fields = self.element_struct and any(
            f.type.get_canonical().kind in ARRAY_TYPE_KINDS for f in element.get_fields())
        self.element_initialized = self.element_struct and _initializes_itself(element)
        self.element_spelling = element.spelling
        self.ap_number = ap_record and element == canonical
        self.const = t.is_const_qualified()
        self.referent = (TypeInfo(t.get_pointee()) if t.kind in REFERENCE_TYPE_KINDS
                         else None)
        self.integer = int_type(t)
        self.array_typedef = _names_an_array(t)
        streamed = _streamed_record(element)
        self.stream_fields = _fields(streamed) if streamed is not None else ()
        self.stream_ap_fields = _ap_fields(streamed) if streamed is not None else ()
        self.enumerators = tuple(
            c.enum_value for c in canonical.get_declaration().get_children()
            if c.kind == K.ENUM_CONSTANT_DECL) if canonical.kind == ci.TypeKind.ENUM else ()

    def release(self) -> None:
        self.clang = None
        if self.referent is not None:
            self.referent.release()


AP_TYPE_NAMES = ("ap_int", "ap_uint", "ap_fixed", "ap_ufixed")


def _initializes_itself(record: ci.Type) -> bool:
    """Whether default construction of the struct ``record`` sets some field: one has
    a default member initializer (``int sum = 0;``), or the user wrote its default
    constructor (not ``= default``)."""
    if any(any(c.kind.is_expression() for c in f.get_children())
           for f in record.get_fields()):
        return True
    return any(c.kind == K.CONSTRUCTOR and c.is_default_constructor()
               and not c.is_default_method() and not c.is_deleted_method()
               for c in record.get_declaration().get_children())


def _streamed_record(element: ci.Type) -> ci.Type | None:
    """The struct an ``hls::stream`` type ``element`` carries, if it carries one (not a
    number or an ``ap_`` type)."""
    if (element.kind != ci.TypeKind.RECORD or not element.spelling.startswith("hls::stream<")
            or element.get_num_template_arguments() < 1):
        return None
    value = element.get_template_argument_type(0).get_canonical()
    if value.kind != ci.TypeKind.RECORD or value.get_declaration().spelling in AP_TYPE_NAMES:
        return None
    return value


#: How deep :func:`_ap_fields` looks into structs within structs.
MAX_FIELD_DEPTH = 4


_PUBLIC = (ci.AccessSpecifier.PUBLIC, ci.AccessSpecifier.INVALID)


def _ap_fields(record: ci.Type, prefix: str = "", dims: tuple[int, ...] = (),
               depth: int = 0) -> tuple[tuple[str, str, tuple[int, ...]], ...]:
    """``(element, type, dims)`` of the ``ap_`` number and ``bool`` fields of the struct
    ``record``, public and not const, also in its public base classes and struct fields:
    ``element`` names one element, indexed by ``k0``, ``k1``, ... (``parts[k0].idx``,
    ``data[k0]``), ``dims`` the ranges of those indices, ``type`` the element type
    (``ap_uint<8>``).  The testbench sets them to values of their width (0 or 1 for a
    ``bool``) after filling the struct's bytes."""
    found = []
    for base in record.get_declaration().get_children():
        if (base.kind == K.CXX_BASE_SPECIFIER and base.access_specifier in _PUBLIC
                and depth < MAX_FIELD_DEPTH):
            found.extend(_ap_fields(base.type.get_canonical(), prefix, dims, depth + 1))
    for f in record.get_fields():
        if not f.spelling or f.access_specifier not in _PUBLIC:
            continue
        t, own = f.type.get_canonical(), []
        while t.kind == ci.TypeKind.CONSTANTARRAY:
            own.append(t.element_count)
            t = t.element_type.get_canonical()
        if t.kind not in (ci.TypeKind.RECORD, ci.TypeKind.BOOL) or t.is_const_qualified():
            continue
        element = prefix + f.spelling + "".join(f"[k{len(dims) + d}]" for d in range(len(own)))
        if t.kind == ci.TypeKind.BOOL:  # a byte other than 0 or 1 is no bool
            found.append((element, "bool", dims + tuple(own)))
        elif t.get_declaration().spelling in AP_TYPE_NAMES:
            found.append((element, t.spelling, dims + tuple(own)))
        elif depth < MAX_FIELD_DEPTH:
            found.extend(_ap_fields(t, element + ".", dims + tuple(own), depth + 1))
    return tuple(found)


def _fields(record: ci.Type) -> tuple[tuple[str, bool], ...]:
    """``(name, by_value)`` of a struct's direct fields (:class:`TypeInfo`); none for a
    class with a field that is not public (``hls::vector``: code outside cannot name
    it)."""
    fields = list(record.get_fields())
    if any(f.access_specifier not in _PUBLIC for f in fields):
        return ()
    by_value_kinds = INTEGER_TYPE_KINDS | {ci.TypeKind.ENUM}
    return tuple((f.spelling, f.is_bitfield()
                  or f.type.get_canonical().kind in by_value_kinds) for f in fields)


@dataclass(frozen=True, slots=True, eq=False)
class Decl(Node):
    """A declared variable (local, global or parameter).  ``ctype`` is its
    :class:`TypeInfo`;
    ``dims`` the size expressions written (outermost first); ``stmt_start..stmt_end``
    the whole declaration statement (of one in a header that a function body includes,
    that ``#include`` line), ``shared``: it declares other names too;
    ``name_at`` the offset of the declared name."""

    name: str = ""
    ctype: Any = field(default=None, repr=False)
    init: Node | None = None
    dims: tuple[Node | None, ...] = ()
    static: bool = False
    stmt_start: int = -1
    stmt_end: int = -1
    shared: bool = False
    type_text: str = ""
    name_at: int = -1

    def children(self):
        return (self.init,) if self.init is not None else ()

    @property
    def is_array(self) -> bool:
        return self.ctype is not None and self.ctype.kind in ARRAY_TYPE_KINDS


REFERENCE_TYPE_KINDS = (ci.TypeKind.LVALUEREFERENCE, ci.TypeKind.RVALUEREFERENCE)
POINTER_TYPE_KINDS = (ci.TypeKind.POINTER,) + REFERENCE_TYPE_KINDS
ARRAY_TYPE_KINDS = (ci.TypeKind.CONSTANTARRAY, ci.TypeKind.INCOMPLETEARRAY,
                    ci.TypeKind.VARIABLEARRAY, ci.TypeKind.DEPENDENTSIZEDARRAY)


def points_at_elements(ctype: "TypeInfo") -> bool:
    """``ctype`` is a pointer (not a reference) to something other than an array: its
    subscript indexes one dimension."""
    canonical = ctype.clang.get_canonical()
    return (canonical.kind == ci.TypeKind.POINTER
            and canonical.get_pointee().kind not in ARRAY_TYPE_KINDS)


@dataclass(frozen=True, slots=True, eq=False)
class DeclList(Node):
    decls: tuple[Decl, ...] = ()

    def children(self):
        return self.decls


@dataclass(frozen=True, slots=True, eq=False)
class For(Node):
    """``for (init; cond; next) stmt``; ``header`` is the byte range inside the
    parentheses (-1, -1 when unknown); ``post_test``: a ``do stmt while (cond);``."""

    init: Node | None = None
    cond: Node | None = None
    next: Node | None = None
    stmt: Node | None = None
    header: tuple[int, int] = (-1, -1)
    post_test: bool = False

    def children(self):
        return tuple(n for n in (self.init, self.cond, self.next, self.stmt) if n is not None)


@dataclass(frozen=True, slots=True, eq=False)
class If(Node):
    cond: Node | None = None
    iftrue: Node | None = None
    iffalse: Node | None = None

    def children(self):
        return tuple(n for n in (self.cond, self.iftrue, self.iffalse) if n is not None)


@dataclass(frozen=True, slots=True, eq=False)
class Switch(Node):
    """``switch (cond) body``; ``body`` holds its :class:`Case` labels (lowered by
    :mod:`.switches`)."""

    cond: Node | None = None
    body: Node | None = None

    def children(self):
        return (self.cond, self.body)


@dataclass(frozen=True, slots=True, eq=False)
class Case(Node):
    """``case value: stmt`` (``value`` None: ``default: stmt``); ``stmt`` is the one
    statement clang attaches to the label, the next ones are its block's items."""

    value: Node | None = None
    stmt: Node | None = None

    def children(self):
        return tuple(n for n in (self.value, self.stmt) if n is not None)


@dataclass(frozen=True, slots=True, eq=False)
class Label(Node):
    name: str = ""
    stmt: Node | None = None

    def children(self):
        return (self.stmt,)


@dataclass(frozen=True, slots=True, eq=False)
class Return(Node):
    expr: Node | None = None

    def children(self):
        return (self.expr,) if self.expr is not None else ()


@dataclass(frozen=True, slots=True, eq=False)
class Unsupported(Node):
    keyword: str = ""


@dataclass(frozen=True, slots=True, eq=False)
class Empty(Node):
    pass


@dataclass(frozen=True, slots=True, eq=False)
class FuncDef(Node):
    """A function definition: its parameters, body and return type (as written);
    ``instance``: for an instantiation of a function template, its key (the text is the
    template's, its parameters bound, :mod:`.templates`); ``nodes``: ``walk(body)`` and
    ``array_refs``: ``outer_array_refs(body)``, listed once (the lowering reads a
    callee's whole text at each of its calls); ``method``: a non-static member function,
    whose calls pass their object first (:func:`passed`)."""

    name: str = ""
    params: tuple[Decl, ...] = ()
    body: Compound | None = None
    return_type: str = "void"
    cursor: Any = field(default=None, repr=False)
    namespaces: tuple[str, ...] = ()  # the enclosing namespaces, outermost first
    extern_c: bool = False  # declared inside extern "C"
    instance: str | None = None
    # an instantiation's template parameters by name -> value (templates.bound_constants)
    template_constants: tuple[tuple[str, int], ...] = ()
    nodes: tuple[Node, ...] = field(default=(), repr=False)
    array_refs: tuple["ArrayRef", ...] = field(default=(), repr=False)
    method: bool = False  # a non-static member function: its calls pass the object first

    @property
    def key(self) -> str:
        """What calls of it name: its instantiation, else its name."""
        return self.instance or self.name


def passed(call: FuncCall) -> tuple[Node, ...]:
    """The arguments ``call`` binds to its callee's parameters: all but the object of
    a method's call (``a.f(b)`` passes ``b``)."""
    return call.args[1:] if call.method else call.args


def release_types(func: FuncDef, globals_) -> None:
    """Drop the clang types of every declaration (see :class:`TypeInfo`)."""
    for node in list(func.params) + list(globals_) + list(func.nodes):
        if isinstance(node, Decl) and node.ctype is not None:
            node.ctype.release()


def identifiers(node: Node) -> set[str]:
    """The names of the identifiers in ``node`` (:func:`walk`)."""
    return {n.name for n in walk(node) if isinstance(n, Id)}


def loop_body(stmt: Node) -> Node:
    """The node that holds a loop body's statements: ``stmt``, or the innermost of
    blocks each of which is the only statement of the one around it (``for (...) {
    { #pragma HLS pipeline ... } }``, as SDx-era kernels wrote it)."""
    while (isinstance(stmt, Compound) and stmt.braced and len(stmt.items) == 1
           and isinstance(stmt.items[0], Compound) and stmt.items[0].braced):
        stmt = stmt.items[0]
    return stmt


def body_items(stmt: Node) -> tuple[Node, ...]:
    """The statements of a loop body (:func:`loop_body`); one statement without braces
    alone."""
    body = loop_body(stmt)
    return body.items if isinstance(body, Compound) else (body,)


def walk(node: Node, *, operands: bool = False):
    """Every node below ``node`` (itself included), pre-order; with ``operands`` also
    the unevaluated operands of ``sizeof``."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        kids = n.children()
        if operands and isinstance(n, UnaryOp) and n.op == "sizeof" and n.expr is not None:
            kids = (n.expr,)
        stack.extend(reversed([c for c in kids if c is not None]))


def leaves(node: Node, keywords: tuple[str, ...] = ("break", "continue")) -> bool:
    """Whether a ``break`` or ``continue`` (of ``keywords``) that leaves ``node`` is in
    it: not one of a loop inside it, nor a ``break`` of a ``switch`` inside it."""
    stack = [(node, False, False)]  # (node, inside a loop, inside a switch)
    while stack:
        n, in_loop, in_switch = stack.pop()
        if isinstance(n, Unsupported) and n.keyword in keywords and (
                (n.keyword == "continue" and not in_loop)
                or (n.keyword == "break" and not (in_loop or in_switch))):
            return True
        if isinstance(n, For):
            stack += [(c, c is n.stmt, False) for c in n.children()]
            continue
        in_switch = in_switch or isinstance(n, Switch)
        stack += [(c, in_loop, in_switch) for c in n.children() if c is not None]
    return False


def outer_array_refs(node: Node) -> list[ArrayRef]:
    """Every outermost ``ArrayRef`` below ``node`` in pre-order: ``A[i][j]`` is one
    reference (its inner ``A[i]`` is not listed); references inside subscripts are.
    The position in this list is an access's ``ref_id``."""
    found: list[ArrayRef] = []
    stack: list[tuple[Node, bool]] = [(node, False)]
    while stack:
        n, is_name = stack.pop()
        if isinstance(n, ArrayRef) and not is_name:
            found.append(n)
        kids = [c for c in n.children() if c is not None]
        for child in reversed(kids):
            stack.append((child, isinstance(n, ArrayRef) and child is n.name))
    return found


def ref_base_and_subscripts(ref: ArrayRef) -> tuple[Node, list[Node]]:
    """``A[e0][e1]`` -> (``A``, [e0, e1])."""
    subscripts = []
    node: Node = ref
    while isinstance(node, ArrayRef):
        subscripts.append(node.subscript)
        node = node.name
    return node, subscripts[::-1]


def ref_name(ref: ArrayRef) -> str | None:
    base, _ = ref_base_and_subscripts(ref)
    return base.name if isinstance(base, Id) else None


# ---------------------------------------------------------------- conversion


def definition_site(definition: ci.Cursor) -> tuple[str, int]:
    """Where a header's ``definition`` is written: its file's name and byte offset."""
    return definition.location.file.name, definition.location.offset


class Converter:
    """clang cursors of one translation unit -> nodes."""

    def __init__(self, unit: Unit, pragmas: list[PragmaLine],
                 own_header: Callable[[ci.SourceLocation], bool] = lambda location: False):
        self.unit = unit
        self._pragmas = pragmas
        self._written = tuple(pragmas)
        self._own_header = own_header
        self._instances: dict[str, ci.Cursor] = {}  # instantiations called, by key
        # a header's functions and methods called, by definition_site: (key, definition)
        self._header_functions: dict[tuple[str, int], tuple[str, ci.Cursor]] = {}
        self._header_pragmas: dict[str, list[tuple[int, PragmaLine]]] = {}  # by file
        #: the :func:`definition_site` of each definition of an own header analysed
        self.header_definitions: set[tuple[str, int]] = set()
        self._macro_ranges = _macro_ranges(unit)
        self._depth = 0

    # ------------------------------------------------------------ helpers

    def _span(self, cursor: ci.Cursor) -> tuple[Coord, int, int]:
        extent = cursor.extent
        first = extent.start
        if self.unit.in_main(first):
            start = clanglib.offset_of(first)
            last = extent.end
            end = clanglib.offset_of(last) if self.unit.in_main(last) else start
            return self.unit.coord(start), start, end
        return self.unit.location_coord(cursor.location), -1, -1

    def _in_macro(self, start: int) -> bool:
        return any(lo <= start < hi for lo, hi in self._macro_ranges)

    def _enter(self, cursor: ci.Cursor) -> None:
        self._depth += 1
        if self._depth > MAX_TREE_DEPTH:
            raise KernelError(self._span(cursor)[0],
                              f"nested more than {MAX_TREE_DEPTH} levels deep (a chain of "
                              "binary operators counts one level per operator): split it "
                              "with temporaries")

    # ------------------------------------------------------------ functions

    def _parameters(self, cursor: ci.Cursor) -> tuple[Decl, ...]:
        """A definition's parameters; one without a default takes the default its first
        declaration gives (C++ writes a default once, often in the prototype)."""
        params = [self.decl(p, param=True) for p in cursor.get_arguments()]
        first = cursor.canonical
        if first != cursor:
            for k, p in enumerate(first.get_arguments()):
                if k < len(params) and params[k].init is None:
                    params[k] = replace(params[k], init=self.decl(p, param=True).init)
        return tuple(params)

    def function(self, cursor: ci.Cursor, namespaces: tuple[str, ...] = (),
                 extern_c: bool = False) -> FuncDef:
        coord, start, end = self._span(cursor)
        params = self._parameters(cursor)
        body_cursor = next((c for c in cursor.get_children()
                            if c.kind == K.COMPOUND_STMT), None)
        body = self.statement(body_cursor) if body_cursor is not None else None
        if not isinstance(body, Compound):
            body = Compound(coord, start, end, ())
        return FuncDef(self.unit.location_coord(cursor.location), start, end, cursor.spelling,
                       params, body, cursor.result_type.spelling, None, namespaces,
                       extern_c, nodes=tuple(walk(body)),
                       array_refs=tuple(outer_array_refs(body)),
                       method=cursor.kind == K.CXX_METHOD and not cursor.is_static_method())

    def instances(self) -> list[FuncDef]:
        """The instantiations of the function and class templates of the file and
        of its own headers that the converted functions call, the functions and
        methods of its own headers they call (a method named ``Class::name``, as the
        file's own), and those that these call in turn, each converted once with the
        pragmas its (template's) text holds."""
        done: list[FuncDef] = []
        sites: set[tuple[str, int]] = set()
        converted: set[str] = set()
        while (len(sites) < len(self._header_functions)
               or len(converted) < len(self._instances)):
            site = next((k for k in self._header_functions if k not in sites), None)
            if site is not None:
                sites.add(site)
                key, definition = self._header_functions[site]
                done.append(replace(self.function(definition), name=key))
                continue
            key = next(k for k in self._instances if k not in converted)
            converted.add(key)
            function = self._instances[key]
            template = templates.instantiated_template(function)
            _, start, end = self._span(template)
            self._pragmas.extend(p for p in self._written if start <= p.start < end
                                 and p not in self._pragmas)
            done.append(replace(self.function(function), instance=key,
                                template_constants=templates.bound_constants(function)))
        return done

    def decl(self, cursor: ci.Cursor, *, param: bool = False, stmt: ci.Cursor | None = None,
             shared: bool = False) -> Decl:
        coord = self.unit.location_coord(cursor.location)
        _, start, end = self._span(cursor)
        init_at = self._init_offset(cursor)
        dims: list[Node | None] = []
        init = None
        scalar = cursor.type.kind not in ARRAY_TYPE_KINDS
        for child in cursor.get_children():
            if _writes_nothing(cursor, child, init_at):
                continue
            if child.kind.is_expression() or child.kind == K.INIT_LIST_EXPR:
                node = self.expression(child)
                # in a header the node has no offset in the kernel text: clang's
                at = node.start if node.start >= 0 else child.extent.start.offset
                # a class's constructor call (``bit16 i = 0``) spans the name too; a
                # scalar has no dimensions (and a macro's tokens place no ``=``)
                if scalar or (init_at is not None and at >= init_at):
                    init = node
                elif init_at is None and not param and child.kind == K.INIT_LIST_EXPR:
                    init = node
                else:
                    dims.append(node)
        dims.sort(key=lambda n: n.start)
        if scalar and init is not None and clangtu.says_before_name(cursor, "constexpr"):
            # compile-time: its value, not its initializer's calls, is what runs
            value = clangtu.integer_value(cursor)
            if value is not None:
                init = Constant(init.coord, init.start, init.end, value)
        stmt_span = self._span(stmt) if stmt is not None else (coord, start, end)
        if stmt is not None and stmt.kind == K.DECL_STMT and stmt_span[1] < 0:
            stmt_span = self._inclusion_line(stmt) or stmt_span
        return Decl(coord, start, end, cursor.spelling, TypeInfo(cursor.type), init,
                    tuple(dims),
                    cursor.storage_class == ci.StorageClass.STATIC, stmt_span[1],
                    stmt_span[2], shared, cursor.type.spelling,
                    cursor.location.offset if self.unit.in_main(cursor.location) else -1)

    def _inclusion_line(self, cursor: ci.Cursor) -> tuple[Coord, int, int] | None:
        """The ``#include`` line of the kernel text that brings in the header holding
        ``cursor`` (a declaration a function body includes): where its declarations
        stand in the kernel's text."""
        at = clangtu.included_offset(self.unit, cursor.location)
        if at is None:
            return None
        data = self.unit.data
        line = data.rfind(b"\n", 0, at) + 1
        start = line + len(data[line:at]) - len(data[line:at].lstrip())
        end = data.find(b"\n", at)
        end = len(data) if end < 0 else end
        return self.unit.coord(start), start, end

    def probe(self, cursor: ci.Cursor) -> tuple[str, Node | None]:
        """``(name, initializer)`` of one of the front end's macro probes."""
        kids = [c for c in cursor.get_children() if c.kind.is_expression()]
        return cursor.spelling, self.expression(kids[-1]) if kids else None

    def _init_offset(self, cursor: ci.Cursor) -> int | None:
        """Offset of the ``=`` (or C++11 ``{``) that starts the initializer, if any."""
        name_at = cursor.location.offset if self.unit.in_main(cursor.location) else None
        depth = 0
        for tok in cursor.get_tokens():
            at = tok.extent.start.offset
            if name_at is not None and at <= name_at:
                continue
            s = tok.spelling
            if s in ("[", "("):
                depth += 1
            elif s in ("]", ")"):
                depth -= 1
            elif depth == 0 and s in ("=", "{"):
                return at
        return None

    # ------------------------------------------------------------ statements

    def statement(self, cursor: ci.Cursor) -> Node:
        self._enter(cursor)
        try:
            return self._statement(cursor)
        finally:
            self._depth -= 1

    def _statement(self, cursor: ci.Cursor) -> Node:
        kind = cursor.kind
        coord, start, end = self._span(cursor)
        if kind == K.COMPOUND_STMT:
            return self._compound(cursor, coord, start, end)
        if kind == K.FOR_STMT:
            return self._for(cursor, coord, start, end)
        if kind == K.WHILE_STMT:
            return self._while(cursor, coord, start, end)
        if kind == K.DO_STMT:
            return self._do(cursor, coord, start, end)
        if kind == K.IF_STMT:
            parts = list(cursor.get_children())
            nodes = [self.expression(parts[0])] + [self.statement(p) for p in parts[1:]]
            return If(coord, start, end, nodes[0], nodes[1] if len(nodes) > 1 else None,
                      nodes[2] if len(nodes) > 2 else None)
        if kind in UNSUPPORTED_STATEMENTS:
            return Unsupported(coord, start, end, UNSUPPORTED_STATEMENTS[kind])
        if kind == K.LABEL_STMT:
            inner = next(iter(cursor.get_children()), None)
            stmt = self.statement(inner) if inner is not None else Empty(coord, start, end)
            return Label(coord, start, end, cursor.spelling, stmt)
        if kind == K.DECL_STMT:
            return self._decl_stmt(cursor, coord, start, end)
        if kind == K.RETURN_STMT:
            value = next(iter(cursor.get_children()), None)
            return Return(coord, start, end,
                          self.expression(value) if value is not None else None)
        if kind in (K.NULL_STMT,):
            return Empty(coord, start, end)
        if kind == K.SWITCH_STMT:
            return self._switch(cursor, coord, start, end)
        if kind in (K.CASE_STMT, K.DEFAULT_STMT):
            return self._case(cursor, coord, start, end)
        if kind.is_expression():
            return self.expression(cursor)
        return Unsupported(coord, start, end, _kind_words(kind))

    def _compound(self, cursor, coord, start, end) -> Compound:
        if start < 0 and self._in_own_header(cursor):
            return self._header_compound(cursor, coord)
        items = [self.statement(c) for c in cursor.get_children()]
        taken = [(n.start, n.end) for n in items if n.start >= 0]
        pragmas = [Pragma(p.coord, p.start, p.end, p) for p in self._pragmas
                   if start < p.start < end
                   and not any(lo <= p.start < hi for lo, hi in taken)]
        if pragmas:
            items = sorted(items + pragmas, key=lambda n: n.start)
            for p in pragmas:
                self._pragmas.remove(p.line)
        return Compound(coord, start, end, tuple(items))

    def _in_own_header(self, cursor: ci.Cursor) -> bool:
        """``cursor`` is written in one of the kernel's own headers (not in a macro's
        expansion, whose pragmas the kernel file's scan finds)."""
        first = cursor.extent.start
        return (first.file is not None and not self.unit.in_main(first)
                and self._own_header(first) and cursor.location.file is not None
                and cursor.location.file.name == first.file.name)

    def _header_compound(self, cursor, coord) -> Compound:
        """A compound statement of a header's function: its pragmas (without text in
        the kernel file) placed among its statements by their offsets in the header."""
        file = cursor.extent.start.file
        if file.name not in self._header_pragmas:
            self._header_pragmas[file.name] = pragmatext.header_pragma_lines(self.unit, file)
        lo, hi = cursor.extent.start.offset, cursor.extent.end.offset
        children = list(cursor.get_children())
        spans = [(c.extent.start.offset, c.extent.end.offset) for c in children]
        placed = [(at, Pragma(line.coord, -1, -1, line))
                  for at, line in self._header_pragmas[file.name]
                  if lo < at < hi and not any(a <= at < b for a, b in spans)]
        items = [(a, self.statement(c)) for (a, _), c in zip(spans, children)]
        ordered = sorted(items + placed, key=lambda item: item[0])
        return Compound(coord, -1, -1, tuple(node for _, node in ordered))

    def _decl_stmt(self, cursor, coord, start, end) -> Node:
        decls = [c for c in cursor.get_children() if c.kind == K.VAR_DECL]
        if not decls:
            return Empty(coord, start, end)
        nodes = tuple(self.decl(d, stmt=cursor, shared=len(decls) > 1) for d in decls)
        return DeclList(coord, start, end, nodes)

    def _for(self, cursor, coord, start, end) -> For:
        """Which child is which follows from the header's ``;`` and ``)``: libclang
        leaves absent parts out.  A header a macro writes (``FOR_EACH(i, N) {...}``)
        shows no ``;``: there the four parts must all be present, in order."""
        opening, semis, close = _for_header(cursor)
        parts: dict[str, Node | None] = {"init": None, "cond": None, "next": None}
        body = None
        children = list(cursor.get_children())
        first = next(cursor.get_tokens(), None)
        if first is not None and first.extent.start.offset != cursor.extent.start.offset:
            # the tokens are the macro's definition: the header is in its expansion
            if len(children) != 4:
                return Unsupported(coord, start, end, "for header written by a macro "
                                                      "without all of its three parts")
            init, cond, step, inner = children
            body = self._leading_pragmas(self.statement(inner), start)
            return For(coord, start, end, self.statement(init), self.expression(cond),
                       self.expression(step), body)
        for child in children:
            at = child.extent.start.offset
            if close is None or at > close:
                body = self.statement(child)
            elif at < semis[0]:
                parts["init"] = self.statement(child)
            elif len(semis) > 1 and at < semis[1]:
                parts["cond"] = self.expression(child)
            else:
                parts["next"] = self.expression(child)
        if body is None:
            body = Empty(coord, end, end)
        else:
            body = self._leading_pragmas(body, close or start)
        header = (opening + 1, close) if opening is not None and close is not None else (-1, -1)
        return For(coord, start, end, parts["init"], parts["cond"], parts["next"], body,
                   header)

    def _while(self, cursor, coord, start, end) -> Node:
        """``while (cond) stmt`` as the ``for (; cond; ) stmt`` it is; a condition
        that declares a variable stays unsupported."""
        parts = list(cursor.get_children())
        if len(parts) != 2 or not parts[0].kind.is_expression():
            return Unsupported(coord, start, end, "while")
        cond = self.expression(parts[0])
        body = self._leading_pragmas(self.statement(parts[1]), cond.end)
        return For(coord, start, end, None, cond, None, body)

    def _do(self, cursor, coord, start, end) -> Node:
        """``do stmt while (cond);``: a loop that tests after each iteration."""
        parts = list(cursor.get_children())
        if len(parts) != 2 or not parts[1].kind.is_expression():
            return Unsupported(coord, start, end, "do")
        body = self.statement(parts[0])
        cond = self.expression(parts[1])
        return For(coord, start, end, None, cond, None, body, post_test=True)

    def _switch(self, cursor, coord, start, end) -> Node:
        """``switch (cond) body``; one that declares a variable in its header
        (``switch (int v = f())``, ``switch (init; cond)``) stays unsupported."""
        parts = list(cursor.get_children())
        if len(parts) != 2 or not parts[0].kind.is_expression():
            return Unsupported(coord, start, end, "switch")
        return Switch(coord, start, end, self.expression(parts[0]),
                      self.statement(parts[1]))

    def _case(self, cursor, coord, start, end) -> Node:
        """``case value: stmt`` or ``default: stmt``; GNU's ``case lo ... hi:`` stays
        unsupported."""
        parts = list(cursor.get_children())
        if cursor.kind == K.DEFAULT_STMT and len(parts) == 1:
            return Case(coord, start, end, None, self.statement(parts[0]))
        if cursor.kind == K.CASE_STMT and len(parts) == 2:
            return Case(coord, start, end, self.expression(parts[0]),
                        self.statement(parts[1]))
        return Unsupported(coord, start, end, "case range")

    def _leading_pragmas(self, body: Node, after: int) -> Node:
        """A loop body without braces, with the pragmas written between the header
        and it (after byte ``after``) as its first items."""
        if isinstance(body, Compound):
            return body
        lead = [Pragma(p.coord, p.start, p.end, p) for p in self._pragmas
                if after < p.start < body.start or p.directive and p.start == body.start]
        for p in lead:
            self._pragmas.remove(p.line)
        if not lead:
            return body
        return Compound(body.coord, lead[0].start, body.end, tuple(lead) + (body,),
                        braced=False)

    # ------------------------------------------------------------ expressions

    def _call(self, cursor, kids, coord, start, end) -> Node:
        """A call: ``f(args)``; in C++ also an overloaded operator (the object first),
        a conversion or a constructor.  libclang shows no operand of an implicit
        conversion (``operator int`` of an ap_int element), so one applied to an array
        element is refused rather than read as no access."""
        if not kids and cursor.spelling.startswith("operator") and any(
                t.spelling == "[" for t in cursor.get_tokens()):
            raise KernelError(coord, "arraypart cannot see the array element behind "
                                     f"this implicit '{cursor.spelling}' conversion: "
                                     "convert it explicitly (A[i].to_int(), "
                                     "A[i].to_uint()) or give the element a C type")
        to = int_type(cursor.type)
        if kids and _is_conversion(cursor, kids) and to is not None:
            # ap_uint<16>(e), the implicit ``operator int`` of an ap_int value
            operand = _conversion_operand(cursor, kids)
            return Cast(coord, start, end, to, self.expression(operand),
                        int_type(operand.type))
        if cursor.referenced is not None and cursor.referenced.kind == K.CONSTRUCTOR:
            # ``Rc w(s);``: every child is an argument (a constructor may bind one it
            # takes by reference to a reference member), none names the callee; a
            # template's ``S()`` has no child at all in the instantiation
            return Other(coord, start, end, f"call of {cursor.spelling}",
                         tuple(self.expression(k) for k in kids), "",
                         _by_reference(cursor.referenced))
        if not kids:
            return FuncCall(coord, start, end, cursor.spelling or None, ())
        callee = _callee_name(kids[0])
        if callee is not None and not _is_operator_call(kids):
            head = _plain(kids[0])
            # a.f(): a is evaluated too (the member's first child: an explicit template
            # argument, a.get<0>(), is a child after it)
            objects = [self.expression(k) for k in head.get_children()
                       if k.kind.is_expression()][:1] if (
                head.kind == K.MEMBER_REF_EXPR) else []
            if not objects and _implicit_object(cursor.referenced, head):
                objects = [Other(coord, -1, -1, THIS, ())]  # f() in a method: this->f()
            instance = self._instance(cursor.referenced, coord)
            callee = self._callee_key(cursor.referenced, callee, instance)
            return FuncCall(coord, start, end, callee,
                            tuple(objects) + tuple(self.expression(k) for k in kids[1:]),
                            instance, bool(objects),
                            () if objects else _by_reference(cursor.referenced),
                            bool(objects) and self._own_method(cursor.referenced))
        operand_kids = [k for k in kids if _callee_name(k) is None
                        or not _callee_name(k).startswith("operator")]
        operands = tuple(self.expression(k) for k in operand_kids)
        wide = wide_unsigned(k.type for k in operand_kids)
        name = cursor.spelling or None
        if (name is not None and name.startswith("operator") and operands
                and self._own_method(cursor.referenced) and written_body(cursor.referenced)):
            # an operator the kernel's own class defines (q[k](i, v), q[k] += v) is a
            # method call on its first operand, inlined as one
            instance = self._instance(cursor.referenced, coord)
            return FuncCall(coord, start, end,
                            self._callee_key(cursor.referenced, name, instance), operands,
                            instance, True, (), True)
        if name == "operator=" and len(operands) == 2:
            return Assignment(coord, start, end, "=", operands[0], operands[1])
        if name in COMPOUND_OPERATORS and len(operands) == 2:
            return Assignment(coord, start, end, name[len("operator"):], operands[0],
                              operands[1], wide=wide)
        op = name[len("operator"):] if name and name.startswith("operator") else None
        result = ap_type(cursor.type) if op in AP_ARITHMETIC else None
        if op in OVERLOADED_BINARY and len(operands) == 2:
            return BinaryOp(coord, start, end, op, operands[0], operands[1], result,
                            _writes_right(cursor.referenced), wide)
        if op in ("++", "--") and operands:  # the postfix form has a dummy int operand
            return UnaryOp(coord, start, end, op if len(operands) == 1 else "p" + op,
                           operands[0])
        if op in OVERLOADED_UNARY and len(operands) == 1:
            return UnaryOp(coord, start, end, op, operands[0], result)
        return Other(coord, start, end, f"call of {name}", operands)

    def _readable(self, location: ci.SourceLocation) -> bool:
        """``location`` lies in the kernel file or in a header of its own, whose
        definitions are analysed like the file's (DESIGN §1: every function reachable
        from the top), though only the kernel file is ever edited."""
        return self.unit.in_main(location) or self._own_header(location)

    def _own_method(self, method: ci.Cursor | None) -> bool:
        """``method`` is a non-static method of a class that the kernel file or one of
        its own headers declares (:attr:`FuncCall.own_method`)."""
        return (method is not None and method.kind == K.CXX_METHOD
                and not method.is_static_method() and method.semantic_parent is not None
                and self._readable(method.semantic_parent.location))

    def _callee_key(self, function: ci.Cursor | None, name: str,
                    instance: str | None) -> str:
        """What a call of ``function``, spelt ``name``, names among the definitions
        (:attr:`FuncCall.key` when ``instance`` is None): ``Class::name`` for a static
        method, and for a non-static one that the kernel file declares or that the
        file or one of its own headers defines (in the class or out of it); else
        ``name``.  A definition in one of those headers, a function's or a method's,
        is noted for :meth:`instances` under that key (two overloads called are two
        definitions of one key: :func:`.calls.definitions` refuses it, as the file's)."""
        if function is None:
            return name
        definition = function.get_definition()
        readable = definition is not None and self._readable(definition.location)
        key = static_method_name(function) or (
            member_function_name(function)
            if readable or self.unit.in_main(function.location) else None) or name
        if (instance is None and readable and not self.unit.in_main(definition.location)
                and function.kind in (K.FUNCTION_DECL, K.CXX_METHOD)):
            self._header_functions.setdefault(definition_site(definition), (key, definition))
            self.header_definitions.add(definition_site(definition))
        return key

    def _instance(self, function: ci.Cursor | None, coord: Coord) -> str | None:
        """The key of the instantiation ``function`` of a template defined in the
        kernel file or in one of its own headers (noted for :meth:`instances`), or
        None."""
        template = templates.instantiated_template(function)
        if template is None or not self._readable(template.location) or not any(
                c.kind == K.COMPOUND_STMT for c in function.get_children()):
            return None
        key = templates.instance_key(function, coord)
        self._instances.setdefault(key, function)
        if not self.unit.in_main(template.location):
            # the method's own site where a class template's text holds it
            self.header_definitions.add(definition_site(function))
        return key

    def expression(self, cursor: ci.Cursor) -> Node:
        self._enter(cursor)
        try:
            return self._expression(cursor)
        finally:
            self._depth -= 1

    def _expression(self, cursor: ci.Cursor) -> Node:
        kind = cursor.kind
        while kind in TRANSPARENT:
            kids = list(cursor.get_children())
            if len(kids) != 1:
                break
            narrowed = _narrowing(cursor, kids[0])
            if narrowed is not None:
                coord, start, end = self._span(cursor)
                return Cast(coord, start, end, narrowed, self.expression(kids[0]),
                            int_type(kids[0].type), implicit=True)
            cursor, kind = kids[0], kids[0].kind
        if kind == K.INIT_LIST_EXPR:
            listed = self._literal_list(cursor)
            if listed is not None:
                return listed
        coord, start, end = self._span(cursor)
        kids = list(cursor.get_children())
        if kind == K.UNEXPOSED_EXPR and not kids and next(cursor.get_tokens(), None) is None:
            return Other(coord, start, end, DEFAULT_ARGUMENT)
        if kind == K.DECL_REF_EXPR and not cursor.spelling and len(kids) == 1:
            return self.expression(kids[0])  # a template parameter, bound to its argument
        if kind == K.DECL_REF_EXPR:
            value = _constant_value(cursor.referenced)
            if value is not None:  # an enumerator, a constexpr or static const member
                return Constant(coord, start, end, value)
            return Id(coord, start, end, cursor.spelling)
        if kind in (K.INTEGER_LITERAL, K.CHARACTER_LITERAL, K.SIZE_OF_PACK_EXPR):
            return Constant(coord, start, end, clangtu.integer_value(cursor))
        if kind == K.CXX_BOOL_LITERAL_EXPR:
            return Constant(coord, start, end, clangtu.integer_value(cursor))
        if kind in (K.FLOATING_LITERAL, K.STRING_LITERAL):
            return Constant(coord, start, end, None)
        if kind == K.BINARY_OPERATOR and len(kids) == 2:
            op = clangtu.binary_operator(cursor)
            left, right = self.expression(kids[0]), self.expression(kids[1])
            if op == "=":
                pointer = cursor.type.get_canonical().kind == ci.TypeKind.POINTER
                return Assignment(coord, start, end, op, left, right, pointer)
            result = int_type(cursor.type) if op in WRAPPING_OPERATORS else None
            return BinaryOp(coord, start, end, op, left, right,
                            result if result is not None and not result.signed else None,
                            wide=_operation_wide(op, kids))
        if kind == K.COMPOUND_ASSIGNMENT_OPERATOR and len(kids) == 2:
            op = clangtu.binary_operator(cursor)
            return Assignment(coord, start, end, op, self.expression(kids[0]),
                              self.expression(kids[1]), wide=_operation_wide(op[:-1], kids))
        if kind == K.UNARY_OPERATOR and len(kids) == 1:
            op = clangtu.unary_operator(cursor)
            if op is not None:
                result = int_type(cursor.type) if op in ("-", "~") else None
                return UnaryOp(coord, start, end, op, self.expression(kids[0]),
                               result if result is not None and not result.signed else None,
                               size=_bytes(cursor.type) if op == "*" else None)
        if kind == K.CXX_UNARY_EXPR:
            operand = next((k for k in kids if k.kind.is_expression()), None)
            return UnaryOp(coord, start, end, "sizeof",
                           self.expression(operand) if operand is not None else None,
                           size=clangtu.integer_value(cursor))
        if kind == K.CONDITIONAL_OPERATOR and len(kids) == 3:
            a, b, c = (self.expression(k) for k in kids)
            return TernaryOp(coord, start, end, a, b, c)
        if kind in CASTS and kids:
            pointer = cursor.type.get_canonical()
            return Cast(coord, start, end, int_type(cursor.type), self.expression(kids[-1]),
                        int_type(kids[-1].type), points_to=_bytes(pointer.get_pointee())
                        if pointer.kind == ci.TypeKind.POINTER else None)
        if kind == K.CALL_EXPR:
            return self._call(cursor, kids, coord, start, end)
        if kind == K.ARRAY_SUBSCRIPT_EXPR and len(kids) == 2:
            base, index = self.expression(kids[0]), self.expression(kids[1])
            in_macro = start < 0 or self._in_macro(start)
            written = self.unit.argument_span(cursor.extent) if in_macro else None
            if written is not None:  # in a macro's argument: rewritten where written
                start, end, in_macro = written[0], written[1], False
                coord = self.unit.coord(start)
            return ArrayRef(coord, start, end, base, index, in_macro)
        if kind == K.INIT_LIST_EXPR:
            return InitList(coord, start, end, tuple(self.expression(k) for k in kids))
        if kind == K.LAMBDA_EXPR and _captures_by_reference(cursor):
            raise KernelError(coord, "a lambda that captures by reference may change the "
                                     "kernel's variables where arraypart cannot follow: "
                                     "capture by value, or write a function that takes "
                                     "them by reference")
        if kind == K.LAMBDA_EXPR and _names_an_array_inside(cursor):
            raise KernelError(coord, "a lambda that uses an array hides its accesses from "
                                     "arraypart: write a function that takes the array")
        if kind == K.MEMBER_REF_EXPR:  # (&w)->f is w.f, (*p).f is p->f
            kids = [clangtu.member_object(k) if n == 0 else k for n, k in enumerate(kids)]
        parts = tuple(self.expression(k) for k in kids if k.kind.is_expression()
                      or k.kind == K.INIT_LIST_EXPR)
        return Other(coord, start, end, _kind_words(kind), parts,
                     cursor.spelling if kind == K.MEMBER_REF_EXPR else "")

    def _literal_list(self, cursor: ci.Cursor) -> InitList | None:
        """The brace list ``cursor`` of an array of numbers, read from its text where
        that holds number literals alone (:mod:`.literal_lists`): the nodes the cursor
        walk makes, without a cursor per element; else None."""
        t = cursor.type.get_canonical()
        rank = 0
        while t.kind == ci.TypeKind.CONSTANTARRAY:
            t, rank = t.element_type.get_canonical(), rank + 1
        numbers = t.kind in INTEGER_TYPE_KINDS or t.kind in PLAIN_FLOATING_KINDS
        if rank == 0 or not numbers or self._depth + rank + ELEMENT_DEPTH > MAX_TREE_DEPTH:
            return None  # (deeper: the cursor walk says where it is too deep)
        with literal_lists.uncollected():
            listed = literal_lists.read(self.unit, cursor, rank)
            # clang converts a C++ list's elements in its semantic form alone, which
            # libclang does not show: the cursor walk meets no conversion there
            to = None if self.unit.is_cxx else int_type(t)
            if listed is None:
                return None
            return _header_nodes(listed, to) if listed.span[1] < 0 else _listed(listed, to)


@functools.lru_cache(maxsize=literal_lists.HEADER_LISTS)
def _header_nodes(listed: literal_lists.Braced, to: IntType | None) -> InitList:
    """:func:`_listed` of a header's list, kept: :func:`.literal_lists.read` gives the
    same list again in the next reading, which is converted once (the nodes are
    frozen and hold no offset of the kernel text)."""
    return _listed(listed, to)


def _listed(item: literal_lists.Braced | literal_lists.Number, to: IntType | None) -> Node:
    """The nodes of a list :func:`.literal_lists.read` read, its elements converted to
    the array's element type ``to`` (None: floating, or no conversion shown) as
    :meth:`Converter._expression` converts them: ``Cast`` where ``to`` does not hold
    every value of the literal's type, ``UnaryOp`` for a minus, which computes in the
    literal's type."""
    if isinstance(item, literal_lists.Braced):
        return InitList(*item.span, tuple(_listed(k, to) for k in item.items))
    source, narrowed = _literal_type(item.bits, item.signed, to)
    node: Node = Constant(*item.literal, item.value)
    if item.negated:
        node = UnaryOp(*item.span, "-", node,
                       source if source is not None and not source.signed else None)
    return node if narrowed is None else Cast(*item.span, narrowed, node, source,
                                              implicit=True)


@functools.lru_cache(maxsize=LITERAL_TYPES)
def _literal_type(bits: int | None, signed: bool,
                  to: IntType | None) -> tuple[IntType | None, IntType | None]:
    """(a literal's type, ``to`` where converting the literal to it narrows, else None)."""
    source = IntType(bits, signed) if bits is not None else None
    narrows = to is not None and source is not None and not to.holds(source)
    return source, to if narrows else None


def _writes_nothing(variable: ci.Cursor, child: ci.Cursor, init_at: int | None) -> bool:
    """``child`` is the implicit default construction of ``W w;`` with no initializer
    written, ``W`` a plain struct (no constructor, no default member initializer:
    clang's POD): C++ leaves its fields unset, so it writes no element of them (probe
    38b F4: every element of ``w.buf`` was written there)."""
    return (init_at is None and child.kind == K.CALL_EXPR
            and child.referenced is not None and child.referenced.kind == K.CONSTRUCTOR
            and not [k for k in child.get_children() if k.kind.is_expression()]
            and variable.type.get_canonical().is_pod())


def _captures_by_reference(lambda_expr: ci.Cursor) -> bool:
    """Whether a lambda's capture list (``[&]``, ``[&k]``, ``[=, &k]``) holds a ``&``."""
    for token in lambda_expr.get_tokens():
        if token.spelling == "]":
            return False
        if token.spelling in ("&", "&&"):
            return True
    return False


def _names_an_array_inside(cursor: ci.Cursor) -> bool:
    """Whether an expression names an array or a pointer anywhere inside it."""
    return any(c.kind == K.DECL_REF_EXPR and c.type.get_canonical().kind in
               ARRAY_TYPE_KINDS + POINTER_TYPE_KINDS for c in cursor.walk_preorder())


def _constant_value(decl: ci.Cursor | None) -> int | None:
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


WRAPPING_OPERATORS = ("+", "-", "*", "<<")
SHIFTS = ("<<", ">>")  # computed in the left operand's promoted type alone
WIDE_UNSIGNED = 64  # C's unsigned long long, size_t, uint64_t; ap_uint<64> and wider
SIGNED_KINDS = frozenset((ci.TypeKind.CHAR_S, ci.TypeKind.SCHAR, ci.TypeKind.SHORT,
                          ci.TypeKind.INT, ci.TypeKind.LONG, ci.TypeKind.LONGLONG))
_QUALIFIERS = r"(?:(?:const|volatile)\s+)*"  # an operand's type: const ap_int_base<8, true>
_AP_WIDTH = re.compile(_QUALIFIERS + r"ap_(u?)int<\s*(\d+)\s*>")
# The result type of ap_[u]int arithmetic, as the stand-in and Vitis's headers name it.
_AP_BASE = re.compile(_QUALIFIERS + r"ap_int_base<\s*(\d+)\s*,\s*(true|false)\s*>")
# Overloaded operators whose ap_[u]int result is reduced to the type it returns.
AP_ARITHMETIC = ("+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "~")


def _bytes(t: ci.Type) -> int | None:
    """``sizeof`` a type; None where clang cannot tell (a template's parameter)."""
    size = t.get_canonical().get_size()
    return size if size > 0 else None


def int_type(t: ci.Type) -> IntType | None:
    """The integer type ``t`` is (typedefs and ``ap_[u]int<W>`` seen through), or None."""
    canonical = t.get_canonical()
    if canonical.kind == ci.TypeKind.BOOL:
        return IntType(1, False, boolean=True)
    if canonical.kind in INTEGER_TYPE_KINDS:
        return IntType(8 * canonical.get_size(), canonical.kind in SIGNED_KINDS)
    return ap_type(t)


def wide_unsigned(types) -> IntType | None:
    """The widest unsigned integer type of ``WIDE_UNSIGNED`` bits or more among the
    operand types ``types`` (as C converts them: both operands of a built-in operator
    have the usual arithmetic conversions' common type), else None.  The front end
    keeps such a type's values unreduced (:func:`.cexpr.converted`), so a negative
    value there stands for itself + 2^w."""
    wide = [t for t in map(int_type, types)
            if t is not None and not t.signed and t.width >= WIDE_UNSIGNED]
    return max(wide, key=lambda t: t.width, default=None)


def _operation_wide(op: str, operands: list[ci.Cursor]) -> IntType | None:
    """:func:`wide_unsigned` of a built-in operator ``op``'s operands (a shift's
    type is its left operand's alone)."""
    return wide_unsigned(k.type for k in operands[:1 if op in SHIFTS else 2])


def ap_type(t: ci.Type) -> IntType | None:
    """The integer type of an ``ap_int<W>``, ``ap_uint<W>`` or ``ap_int_base<W, S>``
    (typedefs seen through), or None for any other type."""
    spelling = t.get_canonical().spelling
    ap = _AP_WIDTH.fullmatch(spelling)
    if ap is not None:
        return IntType(int(ap.group(2)), not ap.group(1))
    base = _AP_BASE.fullmatch(spelling)
    return None if base is None else IntType(int(base.group(1)), base.group(2) == "true")


def _narrowing(cursor: ci.Cursor, operand: ci.Cursor) -> IntType | None:
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


def _is_operator_call(kids: list[ci.Cursor]) -> bool:
    """An overloaded operator written as an operator (``a < b``): libclang lists the
    operator's own reference among the operands."""
    return any((_callee_name(k) or "").startswith("operator") for k in kids[1:])


def _is_conversion(cursor: ci.Cursor, kids: list[ci.Cursor]) -> bool:
    """A one-operand constructor call (``T(e)``, ``T v = e``) or a conversion
    operator's call (``e.operator int()``, implicit)."""
    referenced = cursor.referenced
    if referenced is None or referenced.kind == K.CONSTRUCTOR:
        return len(kids) == 1 and (referenced is not None or not cursor.spelling)
    head = _plain(kids[0])
    return (referenced.kind == K.CONVERSION_FUNCTION and len(kids) == 1
            and head.kind == K.MEMBER_REF_EXPR)


def _conversion_operand(cursor: ci.Cursor, kids: list[ci.Cursor]) -> ci.Cursor:
    """The converted expression: the constructor's argument, or the object whose
    conversion operator is called."""
    if cursor.referenced is None or cursor.referenced.kind == K.CONSTRUCTOR:
        return kids[0]
    inner = [k for k in _plain(kids[0]).get_children() if k.kind.is_expression()]
    return inner[0] if inner else kids[0]


def _plain(cursor: ci.Cursor) -> ci.Cursor:
    while cursor.kind in TRANSPARENT:
        kids = list(cursor.get_children())
        if len(kids) != 1:
            break
        cursor = kids[0]
    return cursor


def _writes_right(operator: ci.Cursor | None) -> bool:
    """An overloaded binary operator whose right operand binds to a reference to
    non-const: a member's first parameter, a free function's second."""
    flags = _by_reference(operator)
    right = 0 if operator is not None and operator.kind == K.CXX_METHOD else 1
    return len(flags) > right and flags[right]


def _by_reference(function: ci.Cursor | None) -> tuple[bool, ...]:
    """Per parameter of ``function``: a reference to non-const (``T &``, ``T &&``)."""
    if function is None:
        return ()
    return tuple(mutable_reference(p.type) for p in function.get_arguments())


def mutable_reference(t: ci.Type) -> bool:
    """``T &`` with T not const, or ``T &&``: the callee may write what it names."""
    return t.kind == ci.TypeKind.RVALUEREFERENCE or (
        t.kind == ci.TypeKind.LVALUEREFERENCE and not t.get_pointee().is_const_qualified())


def static_method_name(cursor: ci.Cursor | None) -> str | None:
    """``Class::name`` of a static method (called as ``filler::fill(d, b)``, a function
    of the file under that name, apart from any method ``obj.fill()``), else None;
    the class named with the namespaces and classes around it (:func:`_class_path`)."""
    if (cursor is None or cursor.kind != K.CXX_METHOD or not cursor.is_static_method()
            or cursor.semantic_parent is None):
        return None
    return f"{_class_path(cursor.semantic_parent)}::{cursor.spelling}"


def member_function_name(cursor: ci.Cursor | None) -> str | None:
    """``Class::name`` of a non-static method (of a class, not of a class template's
    text: an instantiation is keyed by :func:`.templates.instance_key`), else None;
    the class named as in :func:`static_method_name`."""
    if (cursor is None or cursor.kind != K.CXX_METHOD or cursor.is_static_method()
            or cursor.semantic_parent is None
            or cursor.semantic_parent.kind not in (K.STRUCT_DECL, K.CLASS_DECL)):
        return None
    return f"{_class_path(cursor.semantic_parent)}::{cursor.spelling}"


def _class_path(cls: ci.Cursor) -> str:
    """``cls``'s name within the named namespaces and classes around it
    (``n1::A``, ``Outer::Inner``): two classes ``A`` of two namespaces have methods of
    their own, not overloads of one."""
    names = [cls.spelling]
    parent = cls.semantic_parent
    while parent is not None and parent.kind in (K.NAMESPACE, K.STRUCT_DECL, K.CLASS_DECL):
        if parent.spelling:  # an anonymous namespace adds nothing to the name
            names.append(parent.spelling)
        parent = parent.semantic_parent
    return "::".join(reversed(names))


def _implicit_object(method: ci.Cursor | None, head: ci.Cursor) -> bool:
    """``head`` calls the non-static method ``method`` on the implicit ``this`` (a
    method's body calling another method of its class, ``shift(v)``)."""
    return (method is not None and method.kind == K.CXX_METHOD
            and not method.is_static_method() and head.kind == K.MEMBER_REF_EXPR)


def _callee_name(cursor: ci.Cursor) -> str | None:
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


def _kind_words(kind: ci.CursorKind) -> str:
    return kind.name.lower().replace("_", " ")


def _for_header(cursor: ci.Cursor) -> tuple[int | None, list[int], int | None]:
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


def _macro_ranges(unit: Unit) -> list[tuple[int, int]]:
    """Byte ranges of the macro uses in the kernel text (a reference starting inside
    one is spelled in the macro, not in the text)."""
    found = []
    for c in unit.own_top:
        if c.kind == K.MACRO_INSTANTIATION:
            found.append((c.extent.start.offset, c.extent.end.offset))
    return found


def whole_uses(body: Node) -> list[Id]:
    """The names in ``body`` used other than as the base of a subscript
    (``memcpy(buf, ...)``, ``sizeof buf``, ``p = buf``), in text order."""
    bases = {id(ref_base_and_subscripts(r)[0]) for r in outer_array_refs(body)}
    return [n for n in walk(body, operands=True)
            if isinstance(n, Id) and id(n) not in bases]
