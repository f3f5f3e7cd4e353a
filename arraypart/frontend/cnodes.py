"""A small C/C++ syntax tree for lowering and codegen: its frozen nodes and the queries
that walk them.

libclang's cursors are mutable handles into a translation unit with implicit nodes
(conversions, parentheses) in between; lowering wants the syntax a user wrote.  The
converter (:mod:`.convert`) keeps what arraypart models (loops, ifs, assignments,
subscripts, integer arithmetic, declarations) as frozen nodes named like pycparser's, each
with its coordinate and its byte range ``start..end`` in the kernel text (-1 when it is
not in the kernel file, e.g. inside a header); everything else becomes :class:`Other`,
whose children are still walked for array references.  ``#pragma`` lines are placed in
the compound statement that holds them, in text order, as :class:`Pragma` items.  A
declaration's type is a :class:`.clangtypes.TypeInfo`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import clang.cindex as ci

from ..errors import Coord
from .pragmatext import PragmaLine

#: ``Other.what`` of an argument a call leaves to its parameter's default (clang's
#: CXXDefaultArgExpr, unexposed and without text).
DEFAULT_ARGUMENT = "default argument"
#: ``Other.what`` of ``this`` (written, or the implicit object of a member's name).
THIS = "cxx this expr"
INTEGER_TYPE_KINDS = frozenset((
    ci.TypeKind.BOOL, ci.TypeKind.CHAR_U, ci.TypeKind.UCHAR, ci.TypeKind.USHORT,
    ci.TypeKind.UINT, ci.TypeKind.ULONG, ci.TypeKind.ULONGLONG, ci.TypeKind.CHAR_S,
    ci.TypeKind.SCHAR, ci.TypeKind.SHORT, ci.TypeKind.INT, ci.TypeKind.LONG,
    ci.TypeKind.LONGLONG))


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
    more that an operand has (:func:`.clangtypes.wide_unsigned`)."""

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


@dataclass(frozen=True, slots=True, eq=False)
class Decl(Node):
    """A declared variable (local, global or parameter).  ``ctype`` is its
    :class:`.clangtypes.TypeInfo`;
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
    # a free function's name within its named namespaces (``A::init``), None for one at
    # global scope: what its calls name (cursors.free_function_name)
    qualified: str | None = None

    @property
    def key(self) -> str:
        """What calls of it name: its instantiation, else its qualified name, else its
        name."""
        return self.instance or self.qualified or self.name


def passed(call: FuncCall) -> tuple[Node, ...]:
    """The arguments ``call`` binds to its callee's parameters: all but the object of
    a method's call (``a.f(b)`` passes ``b``)."""
    return call.args[1:] if call.method else call.args


def release_types(func: FuncDef, globals_) -> None:
    """Drop the clang types of every declaration (see :class:`.clangtypes.TypeInfo`)."""
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


def whole_uses(body: Node) -> list[Id]:
    """The names in ``body`` used other than as the base of a subscript
    (``memcpy(buf, ...)``, ``sizeof buf``, ``p = buf``), in text order."""
    bases = {id(ref_base_and_subscripts(r)[0]) for r in outer_array_refs(body)}
    return [n for n in walk(body, operands=True)
            if isinstance(n, Id) and id(n) not in bases]
