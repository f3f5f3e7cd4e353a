"""Recognising a loop header: which variable counts, from where, by what step, to what.

``for (init; cond; next)`` names its iterator in ``init`` (or, without one, in the
condition), compares it with a limit in ``cond`` (``i < n``, ``n > i``, ``i--``, a
comma's last part) and steps it in ``next`` by a constant (``i += 2``) or
geometrically (``m *= 2``, ``span >>= 1``: :class:`_Geometric`).  Part of
:class:`.loops.LoopLowering`.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import expr as E
from ..errors import Coord, KernelError
from .cexpr import COMPARISONS, FLIPPED, Scope, fold, interval, quasi_affine
from . import cnodes as N
from . import scalars as S
from .accesses import INCREMENTS



class HeaderLowering:
    """A loop header's iterator, start, step and condition (a :class:`.loops.LoopLowering` part)."""


    def _counter(self, cond: N.Node, items: list[N.Node]) -> tuple[str, N.Node, bool]:
        """The counter of a loop without a start: the scalar its condition compares,
        else the one its last statement steps (``while (a[n]) { ...; n++; }``), which
        must have an affine value before the loop; returned as ``(counter, the
        counter's name, False)``, the name standing for that value."""
        compared = [n for n in map(N.unconverted, (cond.left, cond.right))
                    if isinstance(n, N.Id)] if (
            isinstance(cond, N.BinaryOp) and cond.op in COMPARISONS) else []
        for name_node in compared:
            if name_node.name in self._temporaries:
                return name_node.name, name_node, False
        last = items[-1] if items else None
        stepped = S.write_target(last) if last is not None else None
        if (not compared and stepped in self._temporaries
                and _step_of(last, stepped, Scope(constants=self._constants))):
            target = last.expr if isinstance(last, N.UnaryOp) else last.lvalue
            return stepped, target, False
        why = next((self._opaque[n.name].describe(n.name) for n in compared
                    if n.name in self._opaque), None)
        raise _Uncountable(cond.coord, (
            "arraypart cannot count the iterations of this loop without a start ('while' "
            "or 'for (;'): its condition must compare a counter that has an affine value "
            "before the loop with a bound (while (i < N) { ...; i++; }), or write it as a "
            "for loop with affine bounds" + (f"; {why}" if why else "")))

    def _last_step(self, items: list[N.Node], var: str, coord: Coord) -> int:
        """The constant step of the counter in a loop body's last statement."""
        step = (_step_of(items[-1], var, Scope(constants=self._constants)) if items
                else None)
        if not step:
            raise _Uncountable(items[-1].coord if items else coord, (
                f"a loop without an increment must step its counter '{var}' by a nonzero "
                f"constant in its last statement ({var}++, {var} += S)"))
        return step

    def _loop_init(self, init: N.Node, cond: N.Node) -> tuple[str, N.Node, bool]:
        """``(iterator, its start, declared in the header)``: with several variables
        in the header, the iterator is the one the condition tests."""
        starts: dict[str, N.Node] = {}
        if isinstance(init, N.DeclList):
            starts = {d.name: d.init for d in init.decls if d.init is not None}
            complete = len(starts) == len(init.decls)
        else:
            parts = _comma_parts(init)
            for part in parts:
                if (isinstance(part, N.Assignment) and part.op == "="
                        and isinstance(part.lvalue, N.Id)):
                    starts[part.lvalue.name] = part.rvalue
            complete = len(starts) == len(parts)
        tested = [n for n in starts if n in _compared_names(cond)]
        chosen = list(starts) if len(starts) == 1 else tested
        if not complete or len(chosen) != 1:
            raise _Uncountable(init.coord, "unsupported loop initialization (expected "
                                          "'int i = <start>' or 'i = <start>', with further "
                                          "variables only beside the one the condition "
                                          "tests)")
        return chosen[0], starts[chosen[0]], isinstance(init, N.DeclList)

    def _loop_step(self, nxt: N.Node, var: str, body: list[N.Node],
                   var_type: N.IntType | None) -> tuple[int, list[N.Node]]:
        """The iterator's constant step, and the header's other increments (``j++``
        in ``i++, j++``), which step scalars at the end of each iteration.  A step
        through a scalar (``i += span``) is constant when the scalar's value here is
        and neither the body nor those increments write it.  An unsigned iterator of
        ``w`` bits steps modulo 2^w (C11 6.2.5p9): its step is the one of least
        magnitude that is congruent (``i += 0xFFFFFFFFu`` is ``i--``)."""
        parts = _comma_parts(nxt)
        own = [p for p in parts if var in S.written(p, frozenset((var,)))]
        others = [p for p in parts if all(p is not o for o in own)]
        step = None
        if len(own) == 1:
            read = N.identifiers(own[0]) - {var}
            steady = not any(self._written(n) & read for n in body + others)
            step = _step_of(own[0], var, self._scope() if steady
                            else Scope(constants=self._constants))
        if step is not None and var_type is not None and not var_type.signed:
            step = (step + (1 << (var_type.width - 1))) % (1 << var_type.width) - (
                1 << (var_type.width - 1))
        if step is None:
            raise _Uncountable(nxt.coord, f"unsupported loop increment (expected "
                                               f"{var}++, {var}--, {var} += S, {var} -= S "
                                               f"or {var} = {var} + S with a constant S)")
        if step == 0:
            raise KernelError(nxt.coord, "loop step must not be zero")
        return step, others

    def _loop_cond(self, cond: N.Node, var: str, step: int) -> tuple[str, N.Node]:
        """``(op, limit)`` of ``var op limit``; counting down, the iterator may be
        converted to an unsigned type (:func:`_tested_type`)."""
        if isinstance(cond, N.BinaryOp) and cond.op in COMPARISONS and cond.op != "==":
            # compared as values: the iterator and its bound lie in the common type
            viewed = step < 0 and _tested_type(cond, var) is not None
            if _is_id(cond.left, var) or viewed and _unsigned_view(cond.left, var):
                return cond.op, N.unconverted(cond.right)
            if _is_id(cond.right, var) or viewed and _unsigned_view(cond.right, var):
                return FLIPPED[cond.op], N.unconverted(cond.left)
        raise _Uncountable(cond.coord, f"loop condition must compare the iterator "
                                            f"'{var}' with a bound (<, <=, >, >=, !=)")

    def _iterator_type(self, init: N.Node | None, var: str) -> N.IntType | None:
        """The integer type of the iterator: its header declaration's, else the one
        every declaration of the name has."""
        if isinstance(init, N.DeclList):
            for d in init.decls:
                if d.name == var and d.ctype is not None:
                    return d.ctype.integer
        return self._types.get(var)

    def _header_scalars(self, init: N.Node | None, var: str, declared: bool) -> None:
        """The header's other variables get their start values; the iterator is no
        scalar while the loop runs."""
        if isinstance(init, N.DeclList):
            for d in init.decls:
                if d.name != var:
                    self._declare_scalar(d)
        else:
            self._apply_effects(init)
        if declared:
            self._declare(var, None, None)
        else:
            self._bind(var, None, None)



def _compared(cond: N.Node, var: str) -> tuple[str, N.Node] | None:
    """``(op, L)`` of a condition ``var op L`` (or ``L op var``, flipped), ``L`` with
    its conversions; else None."""
    if not (isinstance(cond, N.BinaryOp) and cond.op in COMPARISONS):
        return None
    if _is_id(cond.left, var):
        return cond.op, cond.right
    if _is_id(cond.right, var):
        return FLIPPED[cond.op], cond.left
    return None


def _limit(cond: N.Node, var: str, scope: Scope) -> tuple[str, E.Expr] | None:
    """``(op, L)`` of a condition ``var op L`` (or ``L op var``, flipped) whose limit
    ``L`` is affine, and at least 0 where the test converts it to an unsigned type
    (so that it keeps its value there; unconverted, the test compares the values);
    else None."""
    found = _compared(cond, var)
    if found is None:
        return None
    op, other = found
    limit = quasi_affine(N.unconverted(other), scope)
    if limit is None:
        return None
    low = interval(limit, scope.ranges)[0]
    kept = not _converts_to_unsigned(other) or (low is not None and low >= 0)
    return (op, limit) if kept else None


def _converts_to_unsigned(limit: N.Node) -> bool:
    """Whether the limit of a test is a signed value converted to an unsigned type
    (``i < n`` with an unsigned i and an int n): a negative one becomes 2^w larger."""
    return isinstance(limit, N.Cast) and limit.to is not None and not limit.to.signed \
        and (limit.source is None or limit.source.signed)


def _comma_parts(node: N.Node) -> list[N.Node]:
    """``a, b, c`` -> [a, b, c]."""
    if isinstance(node, N.BinaryOp) and node.op == ",":
        return _comma_parts(node.left) + _comma_parts(node.right)
    return [node]


def _counted_down(cond: N.Node) -> tuple[str, int] | None:
    """``(i, 1)`` for a condition ``--i`` and ``(i, 0)`` for ``i--`` (in a loop
    without an increment): the body runs with i = start - 1 down to 1, or to 0, and
    the loop ends with i = 0, or -1 (``for (i = 8; --i;)``, ``while (n--)``).  C++
    tests the value converted to ``bool``: the same test, and so is ``i-- > 0`` or
    ``i-- != 0`` from a start of at least 0 (which :meth:`_counted_down_start`
    requires)."""
    cond = N.unconverted(cond)
    if isinstance(cond, N.BinaryOp) and cond.op in (">", "!=") and \
            fold(cond.right) == 0:
        cond = N.unconverted(cond.left)
    if isinstance(cond, N.UnaryOp) and cond.op in ("--", "p--") and isinstance(
            cond.expr, N.Id):
        return cond.expr.name, 1 if cond.op == "--" else 0
    return None


def _compared_names(cond: N.Node) -> set[str]:
    """The names a loop condition compares (``i < N``: i)."""
    if isinstance(cond, N.BinaryOp) and cond.op in COMPARISONS:
        return {n.name for n in map(N.unconverted, (cond.left, cond.right))
                if isinstance(n, N.Id)}
    return set()


def _unsigned_view(node: N.Node, var: str) -> N.IntType | None:
    """The type of ``(unsigned T)var``, a signed ``var`` converted to an unsigned type
    at least as wide: its values from 0 up as they are, -1 as the type's largest
    value; None for any other ``node``.  C++ writes ``(unsigned)i`` as an explicit
    conversion of clang's implicit one: each conversion of the chain is to the type."""
    inner = node
    while isinstance(inner, N.Cast) and inner.to == node.to and isinstance(inner.expr,
                                                                            N.Cast):
        inner = inner.expr
    if isinstance(inner, N.Cast) and inner.to == node.to and not node.to.signed and (
            inner.source is not None and inner.source.signed
            and node.to.width >= inner.source.width and _is_id(inner.expr, var)):
        return node.to
    return None


def _tested_type(cond: N.Node, var: str) -> N.IntType | None:
    """The unsigned type a loop's test converts its signed iterator to (``(unsigned)i
    < 16``), or None: counting down from 0 to -1, the iterator then passes the test as
    an unsigned one of that type wraps to its largest value, so the loop is counted as
    one (:meth:`LoopLowering._wrapped_down`)."""
    if not (isinstance(cond, N.BinaryOp) and cond.op in COMPARISONS):
        return None
    return _unsigned_view(cond.left, var) or _unsigned_view(cond.right, var)


def _is_id(node: N.Node, name: str) -> bool:
    """Whether ``node`` is ``name``, as read or as compared (``i < 10u`` converts i)."""
    node = N.unconverted(node)
    return isinstance(node, N.Id) and node.name == name


def _tested(cond: N.Node) -> N.Node:
    """A condition without C++'s conversion to bool (``for (; span; ...)``): its value
    is true where nonzero."""
    if isinstance(cond, N.Cast) and cond.to is not None and cond.to.boolean:
        return cond.expr
    return cond


@dataclass(frozen=True, slots=True)
class _Geometric:
    """A loop whose iterator ``var`` takes ``values`` (:meth:`LoopLowering._geometric`)
    and ``exit_value`` after it; ``others``: the header's other increments."""

    var: str
    declared: bool
    values: tuple[int, ...]
    exit_value: int
    others: list


def _geometric_step(nxt: N.Node, var: str, scope: Scope):
    """``v -> next v`` for ``i += i``, ``i *= c``, ``i <<= c``, ``i >>= c``, ``i /= c``
    and ``i = i + i``, ``i = i * c``, ``i = c * i``, ``i = i << c``, ``i = i >> c``,
    ``i = i / c`` (``c`` a constant that changes every positive ``i``); else None."""
    if not (isinstance(nxt, N.Assignment) and _is_id(nxt.lvalue, var)):
        return None
    if nxt.op == "=":
        rvalue = N.without_casts(nxt.rvalue)
        if not isinstance(rvalue, N.BinaryOp):
            return None
        op, left, right = rvalue.op, rvalue.left, rvalue.right
        if op in ("*", "+") and _is_id(right, var) and not _is_id(left, var):
            left, right = right, left
        if not _is_id(left, var):
            return None
    elif nxt.op.endswith("="):
        op, right = nxt.op[:-1], nxt.rvalue
    else:
        return None
    if op == "+":
        return (lambda v: 2 * v) if _is_id(right, var) else None
    folded = quasi_affine(right, scope)
    c = folded.value if isinstance(folded, E.Const) else None
    if c is None or not ({"*": c >= 2, "/": c >= 2}.get(op) or (
            op in ("<<", ">>") and 1 <= c < 63)):
        return None
    return {"*": lambda v: v * c, "<<": lambda v: v << c, ">>": lambda v: v >> c,
            "/": lambda v: abs(v) // c * (1 if v >= 0 else -1)}[op]


def _step_of(nxt: N.Node, var: str, scope: Scope) -> int | None:
    """The constant step of ``i++``, ``i--``, ``i += S``, ``i -= S``, or ``i = e`` with
    ``e - i`` a constant (``i = i + S``, ``i = S + i``, ``i = i - S``), ``S`` folded in
    ``scope``; else None."""
    if isinstance(nxt, N.UnaryOp) and _is_id(nxt.expr, var):
        return INCREMENTS.get(nxt.op)
    if not (isinstance(nxt, N.Assignment) and _is_id(nxt.lvalue, var)):
        return None
    if nxt.op in ("+=", "-="):
        k = quasi_affine(nxt.rvalue, scope)
        if not isinstance(k, E.Const):
            return None
        return k.value if nxt.op == "+=" else -k.value
    if nxt.op != "=":
        return None
    own = Scope(frozenset((var,)), scope.constants,
                temporaries={n: e for n, e in scope.temporaries.items() if n != var})
    # a narrow iterator's i = i + S converts back to its type (bit16 j = j + 4); the
    # loop's bounds keep it in range
    next_value = quasi_affine(N.without_casts(nxt.rvalue), own)
    if next_value is None:
        return None
    step = E.add(next_value, E.scale(-1, E.var(var)))
    return step.value if isinstance(step, E.Const) else None


class _Uncountable(KernelError):
    """A loop header arraypart cannot read as a counted loop: the loop is modelled
    over a counter of its own instead (:meth:`_Lowering._counter_loop`)."""
