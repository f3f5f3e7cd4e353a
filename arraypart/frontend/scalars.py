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
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import clang.cindex as ci

from .. import expr as E
from ..errors import Coord
from . import cnodes as N
from .cexpr import Bound, Scope, interval, quasi_affine

ENTRY_MARK = "@"  # cannot occur in a C name: an iteration's entry symbols never clash
STEP_OPS = {"+=": 1, "-=": -1}
INCREMENT_STEPS = {"p++": 1, "++": 1, "p--": -1, "--": -1}
# Calls that take their arguments by value whatever the language (min/max macros and
# functions of the kernels' own idiom).
VALUE_CALLS = ("min", "max", "MIN", "MAX", "abs")
REFERENCE_KINDS = (ci.TypeKind.LVALUEREFERENCE, ci.TypeKind.RVALUEREFERENCE)


@dataclass(frozen=True, slots=True)
class Opaque:
    """Why a scalar has no affine value here, and where that happened."""

    reason: str
    coord: Coord

    def describe(self, name: str) -> str:
        return f"'{name}' {self.reason} at {self.coord}"


Values = dict[str, E.Expr]
Opaques = dict[str, Opaque]


def integer_scalars(body: N.Compound) -> frozenset[str]:
    """The names of the C integer scalars a function body declares (typedefs
    included; not ``ap_[u]int``, whose values wrap at their width)."""
    return frozenset(d.name for d in N.walk(body) if isinstance(d, N.Decl)
                     and not d.is_array and d.ctype is not None
                     and d.ctype.canonical_kind in N.INTEGER_TYPE_KINDS)


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
        found |= _escaped(n, names, callees)
    return found


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


def _escaped(node: N.Node, names: frozenset[str],
             callees: Mapping[str, N.FuncDef | None]) -> set[str]:
    """Scalars whose address ``node`` takes, or that it passes to a callee that may
    take them by reference (a function of ``callees`` only where its parameter is a
    reference)."""
    if isinstance(node, N.UnaryOp) and node.op == "&" and isinstance(node.expr, N.Id):
        return {node.expr.name} & names
    if isinstance(node, N.FuncCall) and node.name not in VALUE_CALLS:
        callee = callees.get(node.key)
        args = node.args if callee is None else [
            a for a, p in zip(node.args, callee.params)
            if p.ctype is None or p.ctype.kind in REFERENCE_KINDS]
        return {a.name for a in args if isinstance(a, N.Id)} & names
    if isinstance(node, N.Other) and node.what.startswith("call of"):
        return {a.name for a in node.parts if isinstance(a, N.Id)} & names
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
        target = write_target(n)
        if target in names:
            for inner in N.walk(n.rvalue if isinstance(n, N.Assignment) else n.expr):
                _nested(inner)
            if _steps(n) and target not in values:
                return  # stepping an opaque scalar keeps it opaque, for the same reason
            here = Scope(scope.iterators, scope.constants, scope.ranges, dict(values))
            value = _new_value(n, here)
            record(target, value if value is not None else Opaque(
                "is assigned a value that is not affine", n.coord))
            return
        _nested(n)

    def _nested(n: N.Node) -> None:
        for inner in N.walk(n):
            target = write_target(inner)
            if target in names:
                record(target, Opaque("is written inside an expression", inner.coord))
            for name in sorted(_escaped(inner, names, callees)):
                record(name, Opaque("may be changed through its address or a reference",
                                    inner.coord))

    visit(node)
    return out


def _steps(node: N.Node) -> bool:
    """Whether a write derives the new value from the old (``x++``, ``x += e``)."""
    return isinstance(node, N.UnaryOp) or node.op != "="


def _new_value(node: N.Node, scope: Scope) -> E.Expr | None:
    """The value an assignment or increment gives its scalar target, or None."""
    if isinstance(node, N.UnaryOp):
        old = scope.temporaries.get(node.expr.name)
        return None if old is None else E.add(old, E.const(INCREMENT_STEPS[node.op]))
    value = quasi_affine(node.rvalue, scope)
    if value is None or node.op == "=":
        return value
    old = scope.temporaries.get(node.lvalue.name)
    if old is None or node.op not in STEP_OPS:
        return None
    return E.add(old, E.scale(STEP_OPS[node.op], value))


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

