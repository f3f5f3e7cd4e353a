"""Integer scalars in subscripts: affine temporaries and induction variables.

The lowering follows every local integer scalar through the top function in program
order and keeps, at each statement, its value as a quasi-affine expression over the
enclosing loops' iterators when it has one (``i_col = i * 64`` gives ``64*i``), so a
subscript through it is regular.  This module holds the rules, as pure functions:

- an assignment ``x = e`` (``+=``, ``-=``, ``++``, ``--``) at the top of a statement sets
  ``x`` to ``e`` (or ``x ± e``) when ``e`` is quasi-affine; any other write to ``x``
  (inside an expression, through ``&x``, as an argument a C++ callee may take by
  reference) leaves it *opaque*;
- after an ``if`` a scalar keeps its value only when both branches leave it equal;
- a loop iteration that takes ``x`` from its value at the iteration's start ``x0`` to
  ``x0 + d`` (``d`` a constant) makes ``x`` an induction variable: at iteration ``n``
  (``n = (v - v0) / s`` for the loop's iterator ``v`` from ``v0`` in steps of ``s``)
  ``x = x0 + d*n``, and after ``T`` iterations ``x0 + d*T``; any other change leaves it
  opaque in the loop and after it.

An opaque scalar used in a subscript makes that subscript irregular, and the warning
says why (where the scalar stopped being affine).

A scalar that holds one of a few constants wherever it is live (``int S = flag ? 2 :
1;``, or an ``if`` or ``switch`` that sets it to a constant on each path) is opaque
with *cases* (:class:`Cases`): each statement whose subscripts read it is lowered
once per constant, as a data-dependent ``if`` chain that every pipeline iteration
takes one way (:attr:`arraypart.ir.If.lane_key`), so ``S*oh + kh`` is ``oh + kh``
in one case and ``2*oh + kh`` in the other.  A scalar declared from one (``int i =
S*oh + kh``) has its value by the same cases.

An opaque scalar still has a *value range*: the hull of every value any write of it in
its function can give (:func:`solve_ranges`, flow-insensitive, so it holds at every
read).  A data-dependent condition over it then bounds the iterators where a branch may
run (:func:`relax`): ``if (r - 1 > pos)`` with ``pos`` in [0, 1000] runs only where
``r >= 2``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Iterable, Mapping

import clang.cindex as ci

from .. import expr as E
from ..errors import Coord
from . import cnodes as N
from ..ir import Conjunction, Constraint
from .cexpr import (AP_READERS, COMPARISONS, INCREMENT_STEPS, Bound, Scope, Truth, interval,
                    quasi_affine)

ENTRY_MARK = "@"  # cannot occur in a C name: an iteration's entry symbols never clash
RANGE_MARK = "#"  # cannot occur in a C name either: the symbol of a scalar's value range
STEP_OPS = {"+=": 1, "-=": -1}
#: Compound assignments whose result lies within the target's type whatever it
#: holds (``>>=``, ``/=``, ``%=``, ``&=``): their new value is the plain operation's.
SHRINKING_OPS = frozenset({">>=", "/=", "%=", "&="})
# Calls that take their arguments by value whatever the language (min/max macros and
# functions of the kernels' own idiom).
VALUE_CALLS = ("min", "max", "MIN", "MAX", "abs")
# Integer types of at most 32 bits, by their ranges: the scalars whose value ranges are
# tracked.  C computes + - * in a type at least as wide (int, unsigned, or wider),
# wrapping modulo 2^k (k >= 32) or overflowing (undefined); either way the result is
# congruent to the mathematical value modulo 2^32, and the conversion to the target
# keeps it modulo its width, so where the mathematical value fits the target's range it
# is the value (an unsigned 0 - 1 leaves [0, 255] and so the range: unbounded).
TRACKED_RANGES = {
    ci.TypeKind.SCHAR: (-2 ** 7, 2 ** 7 - 1), ci.TypeKind.CHAR_S: (-2 ** 7, 2 ** 7 - 1),
    ci.TypeKind.SHORT: (-2 ** 15, 2 ** 15 - 1), ci.TypeKind.INT: (-2 ** 31, 2 ** 31 - 1),
    ci.TypeKind.UCHAR: (0, 2 ** 8 - 1), ci.TypeKind.CHAR_U: (0, 2 ** 8 - 1),
    ci.TypeKind.USHORT: (0, 2 ** 16 - 1), ci.TypeKind.UINT: (0, 2 ** 32 - 1)}
UNBOUNDED: Bound = (None, None)
# Rounds in which a scalar's range may grow before it is taken as unbounded (a widening:
# ``x++`` in a loop grows it every round).
RANGE_ROUNDS = 8
# The most constants a scalar modelled by cases may hold: each is one more copy of the
# statements that read it (a stride or mode flag holds two or three).
MAX_CASES = 8


@dataclass(frozen=True, slots=True)
class Cases:
    """A scalar's value by the cases of an *origin*, a scalar that holds one of the
    ``constants`` wherever it is live: where the origin is ``constants[k]`` the scalar
    is the affine ``values[k]`` (the origin itself: ``constants[k]``; ``int i = S*oh +
    kh`` from S in (1, 2): ``oh + kh``, ``2*oh + kh``).  ``key``: the origin's binding
    (its name, place and number), one per write, so one key has one value in a
    pipeline iteration."""

    key: tuple
    constants: tuple[int, ...]
    values: tuple[E.Expr, ...]

    def __post_init__(self):
        if len(self.values) != len(self.constants):
            raise ValueError("a value per case")


@dataclass(frozen=True, slots=True)
class Opaque:
    """Why a scalar has no affine value here, and where that happened; ``truth``: the
    condition it holds as 0 or 1, for a scalar that only its declaration writes
    (:func:`condition_holders`), else None; ``cases``: its values by cases
    (:class:`Cases`), else None."""

    reason: str
    coord: Coord
    truth: Truth | None = None
    cases: Cases | None = None

    def describe(self, name: str) -> str:
        return f"'{name}' {self.reason} at {self.coord}"

    def plain(self) -> "Opaque":
        """The scalar without its cases: what an entry binding of a loop that writes
        it, or a path that may not have set it, knows."""
        return self if self.cases is None else replace(self, cases=None)


Values = dict[str, E.Expr]
Opaques = dict[str, Opaque]


def integer_scalars(nodes: Iterable[N.Node]) -> frozenset[str]:
    """The names of the integer scalars declared among a function body's ``nodes``: C's
    integer types (typedefs included) and ``ap_[u]int<W>``, whose values wrap at their
    width as a narrow C type's do (:func:`narrow`).  An ``ap_[u]int`` written through a
    member (``x.range(3, 0) = v``, ``x[2] = 1``) passes itself to a call, which makes
    its value opaque (:func:`written`).  A ``bool`` is one only when a constant
    initializes it and nothing assigns or steps it after: C converts what a bool is
    given to 0 or 1 (``b++`` and ``b += 1`` leave 1), which no affine step models."""
    nodes = list(nodes)
    assigned = {write_target(n) for n in nodes} - {None}
    return frozenset(d.name for d in nodes if isinstance(d, N.Decl)
                     and not d.is_array and d.ctype is not None
                     and (d.ctype.canonical_kind in N.INTEGER_TYPE_KINDS
                          or d.ctype.integer is not None)
                     and (not boolean(d) or (isinstance(d.init, N.Constant)
                                               and d.name not in assigned)))


def condition_holders(body: N.Node, nodes: Iterable[N.Node],
                      callees: Mapping[str, N.FuncDef | None] = {}) -> frozenset[str]:
    """The names of the local integer and ``bool`` scalars of a function (``body``,
    ``nodes`` its nodes) that nothing writes but their declarations' initializers
    (:func:`written`: no assignment, step, address, reference or argument a callee
    may write; ``static`` ones keep the last call's value).  Each declaration of one
    runs before every read in its scope, so where it is initialized with an affine
    condition it holds that condition, as its declaration computed it, at every read
    (:class:`.cexpr.Truth`).  A name that also declares anything else (an array, a
    reference, a ``static``) is left out, and so is one that the function names
    anywhere but as an operand whose value is read (:func:`_beyond_reads`): a write
    through a cast, a ``?:`` or a comma would escape :func:`written`."""
    decls = [d for d in nodes if isinstance(d, N.Decl)]
    plain = {d.name for d in decls if plain_integer(d)}
    declared = frozenset(plain - {d.name for d in decls if not plain_integer(d)})
    return declared - written(body, declared, callees) - _beyond_reads(body, declared)


def _beyond_reads(body: N.Node, names: frozenset[str]) -> set[str]:
    """The scalars of ``names`` that ``body`` names anywhere but where only their value
    is read: the condition of an ``if``, ``for`` or ``?:``, an operand of ``!``, unary
    ``-``, ``+``, ``~`` or of a binary operator other than the comma, an implicit value
    conversion, a subscript, the value assigned or the initializer of a plain integer.
    Any other place (a call's argument, a cast written out, a ``?:`` branch, a comma, a
    brace list, a ``return``) may make it an lvalue that something writes."""
    found = set()
    for parent in N.walk(body):
        for child in parent.children():
            if (isinstance(child, N.Id) and child.name in names
                    and not _reads_value(parent, child)):
                found.add(child.name)
    return found


def _reads_value(parent: N.Node, child: N.Node) -> bool:
    """Whether ``parent`` only reads the value of its operand ``child``."""
    if isinstance(parent, (N.If, N.TernaryOp, N.For)):
        return child is parent.cond
    if isinstance(parent, N.UnaryOp):
        return parent.op in ("!", "-", "+", "~")
    if isinstance(parent, N.BinaryOp):
        return parent.op != ","
    if isinstance(parent, N.Cast):
        return parent.implicit
    if isinstance(parent, N.ArrayRef):
        return child is parent.subscript
    if isinstance(parent, N.Assignment):
        return child is parent.rvalue
    if isinstance(parent, N.Decl):
        return child is parent.init and plain_integer(parent)
    return False


def plain_integer(decl: N.Decl) -> bool:
    """An integer or ``bool`` scalar that is no reference and not ``static``."""
    return (not decl.is_array and not decl.static and decl.ctype is not None
            and decl.ctype.kind not in N.REFERENCE_TYPE_KINDS
            and (decl.ctype.canonical_kind in N.INTEGER_TYPE_KINDS
                 or decl.ctype.integer is not None))


def boolean(decl: N.Decl) -> bool:
    return decl.ctype.canonical_kind == ci.TypeKind.BOOL or (
        decl.ctype.integer is not None and decl.ctype.integer.boolean)


def integer_types(nodes: Iterable[N.Node]) -> dict[str, N.IntType]:
    """The integer scalars declared among ``nodes`` with one integer type in every
    declaration (``bool`` aside), by name."""
    types: dict[str, set] = {}
    for d in nodes:
        if isinstance(d, N.Decl) and not d.is_array and d.ctype is not None:
            types.setdefault(d.name, set()).add(d.ctype.integer)
    return {name: t for name, (t, *others) in types.items()
            if not others and t is not None and not t.boolean}


def narrow(types: Mapping[str, N.IntType]) -> dict[str, N.IntType]:
    """Of ``types``, those whose values C reduces modulo 2^w where the written value
    leaves the type: the types narrower than ``int`` (``uint8_t``, ``short``,
    ``ap_uint<4>``), ``unsigned int`` (``k -= 3`` from 0 holds 2^32 - 3, and ``k % 16``
    reads 13) and the ``ap_[u]int`` widths between 32 and 64 bits.  A signed scalar of
    32 bits is taken never to wrap (C's overflow is undefined, an ``ap_int<32>`` takes
    2^31 steps); a 64-bit one would need 2^64 - |e|, beyond the front end's 64-bit
    values, and any index it forms without a reduction is out of bounds either way."""
    return {name: t for name, t in types.items()
            if t.width < 64 and (t.width != 32 or not t.signed)}


def entry_symbol(name: str, depth: int) -> E.Expr:
    """The symbol for ``name``'s value when an iteration of the ``depth``-th loop being
    followed starts."""
    return E.var(f"{name}{ENTRY_MARK}{depth}")


def written(node: N.Node, names: frozenset[str],
            callees: Mapping[str, N.FuncDef | None] = {}) -> set[str]:
    """The scalars in ``names`` that ``node`` may write (assignments, increments, ``&x``,
    call arguments; of the calls of ``callees``, the file's own functions, only those
    passed by reference)."""
    found = set()
    for n in N.walk(node):
        target = write_target(n)
        if target is not None and target in names:
            found.add(target)
        found |= _escaped(n, names, callees) | _lvalue_names(n, names)
    return found


def _lvalue_names(node: N.Node, names: frozenset[str]) -> set[str]:
    """The scalars of ``names`` that an assignment or step whose target is no plain
    name may write: those named in the target outside subscripts
    (``static_cast<int&>(s) += 2``, ``(c ? s : t) = 1``, ``++s += 1``)."""
    if isinstance(node, N.Assignment):
        target = node.lvalue
    elif isinstance(node, N.UnaryOp) and node.op in INCREMENT_STEPS:
        target = node.expr
    else:
        return set()
    if target is None or isinstance(target, N.Id):
        return set()
    found, stack = set(), [target]
    while stack:
        n = stack.pop()
        if isinstance(n, N.Id):
            found.add(n.name)
        elif isinstance(n, N.ArrayRef):
            stack.append(n.name)  # the element is written, not its subscript's scalars
        else:
            stack.extend(c for c in n.children() if c is not None)
    return found & names


def assigns(node: N.Node, name: str) -> bool:
    """Whether ``node`` assigns or increments ``name`` itself (not through calls; not
    in a loop whose header declares another ``name``)."""
    stack = [node]
    while stack:
        n = stack.pop()
        if write_target(n) == name:
            return True
        if isinstance(n, N.For) and isinstance(n.init, N.DeclList) and any(
                d.name == name for d in n.init.decls):
            continue
        stack.extend(c for c in n.children() if c is not None)
    return False


def write_target(node: N.Node) -> str | None:
    if isinstance(node, N.Assignment) and isinstance(node.lvalue, N.Id):
        return node.lvalue.name
    if isinstance(node, N.UnaryOp) and node.op in INCREMENT_STEPS and isinstance(
            node.expr, N.Id):
        return node.expr.name
    return None


def never_written(body: N.Node, name: str,
                  callees: Mapping[str, N.FuncDef | None] = {}) -> bool:
    """Whether ``body`` only reads what ``name`` (a reference parameter) names: no
    assignment, step or ``&`` of an expression that mentions it, no reference to
    non-const bound to one, no call that may take one by reference (a file's own
    function only where the parameter is a reference; a method unless it only reads
    its ap_[u]int object; any other call).  Conservative: ``a[x] = 1`` counts."""
    def mentions(n: N.Node | None) -> bool:
        return n is not None and any(isinstance(m, N.Id) and m.name == name
                                     for m in N.walk(n))

    for n in N.walk(body):
        if isinstance(n, N.Assignment) and mentions(n.lvalue):
            return False
        if (isinstance(n, N.UnaryOp) and (n.op in INCREMENT_STEPS or n.op == "&")
                and mentions(n.expr)):
            return False
        if (isinstance(n, N.Decl) and n.ctype is not None
                and n.ctype.kind in N.REFERENCE_TYPE_KINDS
                and not n.ctype.referent.const and mentions(n.init)):
            return False
        if isinstance(n, N.BinaryOp) and n.writes_right and mentions(n.right):
            return False
        if isinstance(n, N.FuncCall) and not _value_call(n, callees):
            callee = callees.get(n.key)
            if n.method and not (n.name in AP_READERS) and mentions(n.args[0]):
                return False
            args = n.args[1:] if n.method else n.args
            if callee is not None:
                args = [a for a, p in zip(N.passed(n), callee.params)
                        if p.ctype is None or p.ctype.kind in N.REFERENCE_TYPE_KINDS]
            if any(mentions(a) for a in args):
                return False
        if isinstance(n, N.Other) and n.what.startswith("call of") and any(
                mentions(a) for a in n.parts):
            return False
    return True


def escaped(node: N.Node, names: frozenset[str]) -> set[str]:
    """The scalars of ``names`` that something under ``node`` may write other than by
    name (:func:`_escaped`; every call's argument counts)."""
    return set().union(*(_escaped(n, names, {}) for n in N.walk(node)))


def _escaped(node: N.Node, names: frozenset[str],
             callees: Mapping[str, N.FuncDef | None]) -> set[str]:
    """Scalars whose address ``node`` takes, that it binds to a reference through
    which they may be written (``int &r = k;``), or that it passes to a callee that may
    take them by reference (a function of ``callees`` only where its parameter is a
    reference)."""
    if isinstance(node, N.UnaryOp) and node.op == "&" and isinstance(node.expr, N.Id):
        return {node.expr.name} & names
    if isinstance(node, N.Decl):
        return set(reference_bound(node)) & names
    if isinstance(node, N.BinaryOp) and node.writes_right:
        return _lvalue_roots(node.right) & names
    if isinstance(node, N.FuncCall) and not _value_call(node, callees):
        callee = callees.get(node.key)
        args = node.args if callee is None else [
            a for a, p in zip(N.passed(node), callee.params)
            if p.ctype is None or (p.ctype.kind in N.REFERENCE_TYPE_KINDS
                                   and not read_only_reference(callee, p))]
        return set().union(*map(_lvalue_roots, args)) & names
    if isinstance(node, N.Other) and node.what.startswith("call of"):
        flags = node.by_reference or (True,) * len(node.parts)
        flags += (True,) * (len(node.parts) - len(flags))  # past the parameters
        return set().union(*(_lvalue_roots(a) for a, ref in zip(node.parts, flags)
                             if ref)) & names
    return set()


def read_only_reference(callee: N.FuncDef, param: N.Decl) -> bool:
    """``param`` of ``callee`` is a reference to a ``const`` integer that the callee's
    text names only where its value is read (:func:`_beyond_reads`: no write, cast,
    address or call argument): through it the callee reads its argument and writes
    nothing, as through a parameter taken by value."""
    referent = param.ctype.referent if param.ctype is not None else None
    return (param.ctype.kind in N.REFERENCE_TYPE_KINDS and referent is not None
            and referent.const and referent.integer is not None
            and not _beyond_reads(callee.body, frozenset((param.name,))))


def reference_bound(decl: N.Decl) -> frozenset[str]:
    """The names that ``decl`` binds to a reference through which they may be written
    (``int &r = k;``; a struct's braced initializer, which may bind a reference member,
    ``struct R { int &r; }``); empty for any other declaration."""
    if decl.init is None or decl.ctype is None or not (
            (decl.ctype.canonical_kind in N.REFERENCE_TYPE_KINDS
             and not (decl.ctype.referent is not None and decl.ctype.referent.const))
            or (decl.ctype.element_struct and isinstance(decl.init, N.InitList))):
        return frozenset()
    return frozenset(N.identifiers(decl.init))


def _lvalue_roots(arg: N.Node) -> set[str]:
    """The scalars an argument may pass as an lvalue: a name, and the names that a cast
    written out, a ``?:`` branch, a comma's right operand or a brace list may pass on
    (``set(static_cast<int&>(k))``, ``set(c ? k : j)``, ``set(R{k})``)."""
    if isinstance(arg, N.Id):
        return {arg.name}
    if isinstance(arg, N.Cast) and not arg.implicit:
        return _lvalue_roots(arg.expr)
    if isinstance(arg, N.TernaryOp):
        return _lvalue_roots(arg.iftrue) | _lvalue_roots(arg.iffalse)
    if isinstance(arg, N.BinaryOp) and arg.op == ",":
        return _lvalue_roots(arg.right)
    if isinstance(arg, (N.InitList, N.FuncCall)):
        return set().union(*map(_lvalue_roots, arg.children()))
    return set()


def statement_effects(node: N.Node, names: frozenset[str], scope: Scope,
                      callees: Mapping[str, N.FuncDef | None] = {}
                      ) -> list[tuple[str, E.Expr | Opaque]]:
    """The writes of the expression statement ``node`` to the scalars in ``names``, in
    order: ``(name, new value)``, the value an :class:`Opaque` when it is not affine.
    The values are computed one after another (``a = 1, b = a``), so later ones see
    earlier ones.  ``callees``: as for :func:`written`."""
    values = dict(scope.temporaries)
    out: list[tuple[str, E.Expr | Opaque]] = []

    def record(name: str, value: E.Expr | Opaque) -> None:
        out.append((name, value))
        if isinstance(value, Opaque):
            values.pop(name, None)
        else:
            values[name] = value

    def visit(n: N.Node) -> None:
        if isinstance(n, N.BinaryOp) and n.op == ",":
            visit(n.left)
            visit(n.right)
            return
        stepped = sequenced_increments(n, names)
        target = write_target(n)
        if target in names:
            # the value is read before the nested writes land: only the sequenced
            # steps keep their names readable (w++ is w's value before its step)
            here = replace(scope, temporaries={
                k: v for k, v in values.items()
                if k in stepped or k not in written(n, names, callees) - {target}},
                increments=stepped)
            value = None if _steps(n) and target not in values else _new_value(n, here)
            _nested(n.rvalue if isinstance(n, N.Assignment) else n.expr, stepped)
            if _steps(n) and target not in values:
                return  # stepping an opaque scalar keeps it opaque, for the same reason
            record(target, value if value is not None else Opaque(
                "is assigned a value that is not affine", n.coord))
            return
        _nested(n, stepped)

    def _nested(n: N.Node, stepped: frozenset[str]) -> None:
        for inner in N.walk(n):
            target = write_target(inner)
            if target in stepped and target in values:
                record(target, E.add(values[target], E.const(INCREMENT_STEPS[inner.op])))
            elif target in names:
                record(target, Opaque("is written inside an expression", inner.coord))
            for name in sorted(_escaped(inner, names, callees)):
                record(name, Opaque("may be changed through its address or a reference",
                                    inner.coord))
            for name in sorted(_lvalue_names(inner, names)):
                record(name, Opaque("is written through an expression", inner.coord))

    visit(node)
    return out


def side_effect(node: N.Node) -> N.Node | None:
    """The first part of ``node`` that may change state: an assignment, ++/--, or a
    call other than ``min``, ``max`` and ``abs``, which are read as values, and the
    ``ap_[u]int`` members that read (``x.range(5, 3)``, ``x.to_uint()``)."""
    for n in N.walk(node):
        if isinstance(n, N.Assignment) or (isinstance(n, N.FuncCall) and not _pure(n)):
            return n
        if isinstance(n, N.UnaryOp) and n.op in INCREMENT_STEPS:
            return n
    return None


def effect_text(node: N.Node) -> str:
    """What the part :func:`side_effect` found does, for a message."""
    if isinstance(node, N.FuncCall):
        return f"calls '{node.name}', which may have side effects"
    return "has side effects"


def _value_call(call: N.FuncCall, callees: Mapping[str, N.FuncDef | None]) -> bool:
    """A library ``min``/``max``/``abs`` (:data:`VALUE_CALLS`), which takes its
    arguments by value: not one the kernel defines, whose parameters may be
    references it writes (``void MIN(int &a, int b)``)."""
    return call.name in VALUE_CALLS and call.key not in callees


def _pure(call: N.FuncCall) -> bool:
    """A call that only reads: one read as a value, or an ap_[u]int member that reads
    its object."""
    return call.name in VALUE_CALLS or (call.method and call.name in AP_READERS)


def sequenced_increments(node: N.Node, names: frozenset[str]) -> frozenset[str]:
    """The scalars of ``names`` that the expression ``node`` steps by one ``++``/``--``
    nested in it (``buf[w++] = x``), where that step is the name's only occurrence in
    ``node`` and runs whenever ``node`` does (not under ``?:``, ``&&`` or ``||``): its
    value there is the name's value before (``w++``) or after (``++w``) the step, and
    ``node`` leaves it stepped by 1.  Any other read of the name in ``node`` would be
    unsequenced with the step, or ordered by rules of C++17 that are not modelled
    (``a[w] = b[w++]``), so those names are left out (their writes stay opaque)."""
    occurrences: dict[str, int] = {}
    steps: set[str] = set()

    def visit(n: N.Node, conditional: bool, top: bool) -> None:
        if isinstance(n, N.Id) and n.name in names:
            occurrences[n.name] = occurrences.get(n.name, 0) + 1
        if (isinstance(n, N.UnaryOp) and n.op in INCREMENT_STEPS
                and isinstance(n.expr, N.Id) and not conditional and not top):
            steps.add(n.expr.name)
        branches = (isinstance(n, N.TernaryOp)
                    or isinstance(n, N.BinaryOp) and n.op in ("&&", "||"))
        for k, child in enumerate(c for c in n.children() if c is not None):
            visit(child, conditional or (branches and k > 0), False)

    visit(node, False, True)
    return frozenset(name for name in steps if occurrences.get(name) == 1)


def _steps(node: N.Node) -> bool:
    """Whether a write derives the new value from the old (``x++``, ``x += e``)."""
    return isinstance(node, N.UnaryOp) or node.op != "="


def _new_value(node: N.Node, scope: Scope) -> E.Expr | None:
    """The value an assignment or increment gives its scalar target, or None.  A
    narrow target's value is kept unreduced (see :class:`.cexpr.Scope`), so
    ``k = k + 3`` on a ``uint8_t`` reads its own ``k`` unreduced too, where only
    ``+ - *`` lie between that read and the conversion back to k's type: the sum is
    then congruent to C's modulo 2^8, and the read reduces it."""
    if isinstance(node, N.UnaryOp):
        old = scope.temporaries.get(node.expr.name)
        return None if old is None else E.add(old, E.const(INCREMENT_STEPS[node.op]))
    name, rvalue = node.lvalue.name, node.rvalue
    if node.op in SHRINKING_OPS and name in scope.temporaries:
        # a op= b is a = a op b; these never leave the target's range, so no
        # conversion back to its type is lost (a narrow a reads reduced)
        return quasi_affine(N.BinaryOp(node.coord, node.start, node.end, node.op[:-1],
                                       node.lvalue, rvalue, wide=node.wide), scope)
    narrow = scope.narrow.get(name)
    if (narrow is not None and isinstance(rvalue, N.Cast) and rvalue.implicit
            and rvalue.to == narrow and _ring_of(rvalue.expr, name)):
        rvalue = rvalue.expr
        scope = replace(scope, narrow={n: t for n, t in scope.narrow.items() if n != name})
    value = quasi_affine(rvalue, scope)
    if value is None or node.op == "=":
        return value
    old = scope.temporaries.get(node.lvalue.name)
    if old is None or node.op not in STEP_OPS:
        return None
    return E.add(old, E.scale(STEP_OPS[node.op], value))


def _ring_of(node: N.Node, name: str) -> bool:
    """Whether every read of ``name`` in ``node`` reaches its root through ``+``, ``-``
    and ``*`` only (the operations that commute with a reduction modulo 2^w)."""
    if isinstance(node, N.Id):
        return True
    if isinstance(node, N.BinaryOp) and node.op in ("+", "-", "*"):
        return _ring_of(node.left, name) and _ring_of(node.right, name)
    if isinstance(node, N.UnaryOp) and node.op in ("+", "-"):
        return _ring_of(node.expr, name)
    return not any(isinstance(n, N.Id) and n.name == name for n in N.walk(node))


def merge(then: Values, orelse: Values) -> tuple[Values, set[str]]:
    """Values after an ``if``: those both branches leave equal; and the names whose
    values the branches leave different (or only one branch knows)."""
    kept = {n: v for n, v in then.items() if orelse.get(n) == v}
    differ = (set(then) | set(orelse)) - set(kept)
    return kept, differ


def iteration_delta(end: E.Expr | None, start: E.Expr) -> int | None:
    """The constant ``end - start`` one iteration adds, or None."""
    if end is None:
        return None
    step = E.add(end, E.scale(-1, start))
    return step.value if isinstance(step, E.Const) else None


def iteration_number(var: str, init: tuple[E.Expr, ...],
                     step: int) -> tuple[E.Expr, int] | None:
    """``n = (var - v0) / step``, the number of iterations before this one, as
    ``(var - v0, step)`` (exact: ``var - v0`` is a multiple of ``step``), for a loop with
    one start ``v0``; None for a ``max``/``min`` of starts."""
    if len(init) != 1:
        return None
    return E.add(E.var(var), E.scale(-1, init[0])), step


def induction_value(entry: E.Expr, delta: int, number: tuple[E.Expr, int]) -> E.Expr:
    """``entry + delta * n`` with ``n = span / step`` (``span`` a multiple of step)."""
    span, step = number
    if delta % step == 0:
        return E.add(entry, E.scale(delta // step, span))
    sign = 1 if step > 0 else -1
    return E.add(entry, E.floordiv(E.scale(delta * sign, span), abs(step)))


def trip_count(init: tuple[E.Expr, ...], bound: tuple[E.Expr, ...], step: int,
               ranges: Mapping[str, Bound]) -> E.Expr | None:
    """The number of iterations of a loop with one start and one (inclusive) bound:
    ``floor((bound - v0) / step) + 1`` where interval arithmetic proves the loop runs
    at least once, 0 where it proves it never runs; else None."""
    if len(init) != 1 or len(bound) != 1:
        return None
    span = E.add(bound[0], E.scale(-1, init[0]))
    if step < 0:
        span = E.scale(-1, span)
    low, high = interval(span, ranges)
    if high is not None and high < 0:
        return E.const(0)
    if low is None or low < 0:
        return None
    return E.add(E.floordiv(span, abs(step)), E.const(1))



# ---------------------------------------------------------------- value ranges


def tracked_scalars(nodes: Iterable[N.Node], excluded: frozenset[str]) -> dict[str, Bound]:
    """The scalars declared among a function body's ``nodes`` whose value ranges are
    followed, each with the range of its type (the values every type holds, where blocks
    declare the name more than once): every declaration of the name is an integer of
    :data:`TRACKED_RANGES`, and it is none of ``excluded`` (the function's parameters and
    the file's variables, whose first value no write of the body gives)."""
    ranges: dict[str, Bound] = {}
    other: set[str] = set(excluded)
    for d in nodes:
        if not isinstance(d, N.Decl):
            continue
        kept = None if d.is_array or d.ctype is None else TRACKED_RANGES.get(
            d.ctype.canonical_kind)
        if kept is None:
            other.add(d.name)
        else:
            low, high = ranges.get(d.name, kept)
            ranges[d.name] = (max(low, kept[0]), min(high, kept[1]))
    return {name: bound for name, bound in ranges.items() if name not in other}


def write_sites(nodes: Iterable[N.Node], names: frozenset[str],
                callees: Mapping[str, N.FuncDef | None] = {}
                ) -> dict[str, list[N.Node | None]]:
    """Every place among a function body's ``nodes`` that may give each scalar of
    ``names`` a value: a declaration with an initializer (a ``static`` one without: 0), an
    assignment or an increment; None where it may change in a way no expression states
    (``&x``, a reference argument). A declaration without a value is no site: reading the
    scalar before a write is undefined (C11 6.3.2.1p2, C++ [basic.indet])."""
    sites: dict[str, list[N.Node | None]] = {name: [] for name in names}
    for n in nodes:
        if isinstance(n, N.Decl) and n.name in names and (n.init is not None or n.static):
            sites[n.name].append(n)
        target = write_target(n)
        if target in names:
            sites[target].append(n)
        for name in _escaped(n, names, callees):
            sites[name].append(None)
    return sites


def site_interval(site: N.Node, scope: Scope, known: Mapping[str, Bound | None]
                  ) -> Bound | None:
    """An interval holding the value the write ``site`` gives its scalar, when every
    tracked scalar lies in its ``known`` range (None there: no value yet, and then
    None here too); :data:`UNBOUNDED` where the write is not followed."""
    if isinstance(site, N.Decl):
        return (0, 0) if site.init is None else value_interval(site.init, scope, known)
    if isinstance(site, N.UnaryOp):
        step = INCREMENT_STEPS[site.op]
        return _arith("+", value_interval(site.expr, scope, known), (step, step))
    value = value_interval(site.rvalue, scope, known)
    if site.op == "=":
        return value
    if site.op in ("+=", "-=", "*="):
        return _arith(site.op[0], value_interval(site.lvalue, scope, known), value)
    return UNBOUNDED


def value_interval(node: N.Node, scope: Scope, known: Mapping[str, Bound | None]
                   ) -> Bound | None:
    """Interval arithmetic over the C expression ``node``: literals, iterators (their
    loops' ranges), scalars with an affine value here, tracked scalars (``known``),
    ``+ - *``, ``& % >>`` by a literal, unary minus, ``?:`` (the hull of its arms),
    comparisons and logic ([0, 1]), a conversion to an integer type (the operand's
    interval where the type keeps it, :meth:`.cnodes.IntType.keeps`, else the
    type's: ``char k = 0`` converts 0);
    :data:`UNBOUNDED` for anything else (a division, a call)."""
    if isinstance(node, N.Constant) and node.value is not None:
        return node.value, node.value
    if isinstance(node, N.Cast):
        inner = value_interval(node.expr, scope, known)
        if node.to is None or inner is None:
            return None if inner is None else UNBOUNDED
        return node.to.converted(*inner)
    if isinstance(node, N.Id):
        return _name_interval(node.name, scope, known)
    if isinstance(node, N.UnaryOp) and node.op in ("-", "+") and node.expr is not None:
        inner = value_interval(node.expr, scope, known)
        return inner if node.op == "+" else _arith("-", (0, 0), inner)
    if isinstance(node, N.UnaryOp) and node.op == "!":
        return 0, 1
    if isinstance(node, N.BinaryOp) and (node.op in COMPARISONS or node.op in ("&&", "||")):
        return 0, 1
    if isinstance(node, N.BinaryOp) and node.op in ("+", "-", "*"):
        return _arith(node.op, value_interval(node.left, scope, known),
                      value_interval(node.right, scope, known))
    if isinstance(node, N.BinaryOp) and node.op in ("&", "%", ">>"):
        return _by_literal(node.op, value_interval(node.left, scope, known),
                           node.right.value if isinstance(node.right, N.Constant) else None)
    if isinstance(node, N.TernaryOp):
        return hull(value_interval(node.iftrue, scope, known),
                    value_interval(node.iffalse, scope, known))
    return UNBOUNDED


def _by_literal(op: str, left: Bound | None, k: int | None) -> Bound | None:
    """``x & k`` (k >= 0: [0, k] in two's complement), ``x % k`` (C truncates: the
    sign of x, magnitude below |k|), ``x >> k`` (0 <= k < 32, floor division by 2^k as
    g++ and clang shift signed values); :data:`UNBOUNDED` for another right side."""
    if left is None or k is None:
        return None if left is None else UNBOUNDED
    if op == "&" and k >= 0:
        return 0, k
    if op == "%" and k != 0:
        top = abs(k) - 1
        return (0 if left[0] is not None and left[0] >= 0 else -top,
                0 if left[1] is not None and left[1] <= 0 else top)
    if op == ">>" and 0 <= k < 32 and None not in left:
        return left[0] >> k, left[1] >> k
    return UNBOUNDED


def _name_interval(name: str, scope: Scope, known: Mapping[str, Bound | None]
                   ) -> Bound | None:
    if name in scope.temporaries:
        return interval(scope.temporaries[name], scope.ranges)
    if name in scope.iterators:
        return scope.ranges.get(name, UNBOUNDED)
    if name in known:
        return known[name]
    value = scope.constant(name)
    return UNBOUNDED if value is None else (value, value)


def _arith(op: str, left: Bound | None, right: Bound | None) -> Bound | None:
    if left is None or right is None:
        return None
    if op == "-":
        right = (None if right[1] is None else -right[1],
                 None if right[0] is None else -right[0])
    if op in ("+", "-"):
        return (None if None in (left[0], right[0]) else left[0] + right[0],
                None if None in (left[1], right[1]) else left[1] + right[1])
    if None in left or None in right:
        return UNBOUNDED
    products = [a * b for a in left for b in right]
    return min(products), max(products)


def hull(a: Bound | None, b: Bound | None) -> Bound | None:
    """The smallest interval holding both (None: empty)."""
    if a is None or b is None:
        return b if a is None else a
    return (None if None in (a[0], b[0]) else min(a[0], b[0]),
            None if None in (a[1], b[1]) else max(a[1], b[1]))


def solve_ranges(sites: Mapping[str, list[tuple[N.Node, list[Scope]] | None]],
                 types: Mapping[str, Bound]) -> dict[str, Bound]:
    """Each scalar's value range: the least fixpoint of ``range(x) = hull over the
    writes w of x, over the scopes w ran in, of site_interval(w)`` from empty ranges,
    where a range that leaves the type's (``types``), or still grows after
    :data:`RANGE_ROUNDS` rounds, is :data:`UNBOUNDED`.  ``sites[x]``: its writes with
    the scopes they ran in; a write that is None or never ran leaves x unbounded, as
    does having no write at all."""
    known: dict[str, Bound | None] = {
        name: None if writes and all(w is not None and w[1] for w in writes) else UNBOUNDED
        for name, writes in sites.items()}
    growth = dict.fromkeys(known, 0)
    changed = True
    while changed:
        changed = False
        for name in sorted(known):
            if known[name] == UNBOUNDED:
                continue
            value = None
            for site, scopes in sites[name]:
                for scope in scopes:
                    value = hull(value, site_interval(site, scope, known))
            if value is not None and not _within(value, types[name]):
                value = UNBOUNDED
            if value != known[name]:
                growth[name] += 1
                known[name] = UNBOUNDED if growth[name] > RANGE_ROUNDS else value
                changed = True
    return {name: UNBOUNDED if value is None else value for name, value in known.items()}


def _within(value: Bound, limits: Bound) -> bool:
    return None not in value and limits[0] <= value[0] and value[1] <= limits[1]


def relax(dnf: tuple[Conjunction, ...], ranges: Mapping[str, Bound]
          ) -> tuple[Conjunction, ...]:
    """``dnf`` with the range symbols of ``ranges`` eliminated: a condition over the
    other variables that holds wherever some values of the symbols within their ranges
    satisfy ``dnf`` (a superset; each constraint relaxed on its own: ``e + a*s >= 0``
    becomes ``e + max(a*s) >= 0``, ``e + a*s == 0`` becomes ``min <= -e <= max``; a
    constraint where a symbol is not a plain term, or unbounded, is dropped)."""
    relaxed = []
    for conj in dnf:
        kept: list[Constraint] = []
        for c in conj:
            kept += _relax_constraint(c, ranges)
        relaxed.append(tuple(kept))
    return tuple(relaxed)


def _relax_constraint(c: Constraint, ranges: Mapping[str, Bound]) -> list[Constraint]:
    if not E.variables(c.expr) & ranges.keys():
        return [c]
    expr = E.simplify(c.expr)
    terms = expr.terms if isinstance(expr, E.Add) else (expr,)
    rest: list[E.Expr] = []
    span: Bound = (0, 0)
    for term in terms:
        factor, name = (term.factor, term.arg) if isinstance(term, E.Scale) else (1, term)
        if isinstance(name, E.Var) and name.name in ranges:
            span = _arith("+", span, _arith("*", (factor, factor), ranges[name.name]))
        elif E.variables(term) & ranges.keys():
            return []
        else:
            rest.append(term)
    if None in span:
        return []
    low, high = span
    rest_expr = E.add(*rest) if rest else E.const(0)
    bounds = [E.simplify(E.add(rest_expr, E.const(high)))]
    if c.op == "==":
        bounds.append(E.simplify(E.scale(-1, E.add(rest_expr, E.const(low)))))
    return [Constraint(e, ">=") for e in bounds
            if not (isinstance(e, E.Const) and e.value >= 0)]
