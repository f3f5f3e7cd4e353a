"""Guards and early exits of a loop: conditions whose effects are the loop's.

A condition with side effects, ``break`` and ``continue`` (:func:`_escapes`), and the
guards an access sits under, which bound the iterations where it happens (its
extents and guarded trip counts).  Part of :class:`.loops.LoopLowering`.
"""

from __future__ import annotations

from dataclasses import replace
from functools import reduce
from typing import Mapping

from .. import expr as E
from ..errors import Coord
from ..ir import Access, Conjunction, Constraint, If, Node, Stmt
from .cexpr import INCREMENT_STEPS, Bound, condition_superset, interval
from . import cnodes as N
from . import scalars as S
from .loopheaders import _comma_parts
from .looptrips import _implied_affine



class GuardLowering:
    """A loop's guards and condition effects (a :class:`.loops.LoopLowering` part)."""


    def _condition_effects(self, node: N.For, label: str | None, items: list[N.Node],
                           header: int) -> list[Node] | None:
        """``for (init; e1, ..., test; next) body`` whose leading parts change scalars
        that ``test`` and ``next`` do not read, and touch no array, as C runs it: the
        parts at the start of every iteration, then once more as ``test`` ends the
        loop (``off++, j < n`` leaves ``off`` n + 1 higher).  None for any other
        loop, and for a body that may leave early (the last test would not run):
        a condition that changes a scalar then makes the loop one arraypart cannot
        count."""
        parts = _comma_parts(node.cond)
        if len(parts) < 2 or node.post_test or _escapes(items[header:]):
            return None
        if self._pipelines or self._loop_pragmas(items[:header], at=node.coord)[1]:
            return None  # lanes: the emission writes their blocks' headers anew
        effects, test = parts[:-1], parts[-1]
        read = set().union(*(N.identifiers(part) for part in (test, node.next)
                             if part is not None))
        written = set().union(*(self._written(e) for e in effects))
        if written & read or not all(map(self._plain_effect, effects)):
            return None
        body = N.Compound(node.stmt.coord, node.stmt.start, node.stmt.end,
                          tuple(items[:header]) + tuple(effects) + tuple(items[header:]))
        loop = self._loop(replace(node, cond=test, stmt=body), label)
        return loop + [n for e in effects for n in self._statement(e)]

    def _plain_effect(self, part: N.Node) -> bool:
        """``part`` steps or assigns integer scalars by name from names and constants
        (``off++``, ``c += 2``): no pointer, reference, member, array or call, so
        that what it writes is what it names."""
        for n in N.walk(part):
            if isinstance(n, N.Assignment) and not (
                    isinstance(n.lvalue, N.Id) and n.lvalue.name in self._scalars):
                return False
            if isinstance(n, N.UnaryOp) and (
                    n.op not in ("-", "+", "~", "!", *INCREMENT_STEPS)
                    or n.op in INCREMENT_STEPS and not (
                        isinstance(n.expr, N.Id) and n.expr.name in self._scalars)):
                return False
            if not isinstance(n, (N.Id, N.Constant, N.BinaryOp, N.UnaryOp, N.Assignment)):
                return False
        return True

    def _condition_guard(self, node: N.For) -> tuple[Conjunction, ...]:
        """The affine part of a data-dependent loop condition
        (:func:`.cexpr.condition_superset`: ``j >= 0`` of ``j >= 0 && buf[j] > key``)
        and the extents of the elements every check reads (:meth:`_extents`), which
        hold at the start of every iteration (in the scope there: the body must not
        change the condition's scalars)."""
        extents = self._extents(self._accesses(ref) for ref in _unconditional_refs(node.cond))
        return tuple(conjunction + extents
                     for conjunction in condition_superset(node.cond, self._scope()))

    def _statement_extents(self, items: list[N.Node], body: tuple[Node, ...]
                           ) -> tuple[Constraint, ...]:
        """The extents (:meth:`_extents`) of the elements every iteration accesses: the
        target of each assignment at the top of the body and what it reads outside the
        operands of ``&&``, ``||`` and ``?:``, and a declaration's initializer's, as
        the lowered ``body`` indexes them (exact in every iteration); none when an
        iteration may end early (``break``, ``continue``, ``return``, ``goto``)."""
        if _escapes(items) or any(
                isinstance(n, N.Return) or (isinstance(n, N.Unsupported) and n.keyword == "goto")
                for item in items for n in N.walk(item)):
            return ()
        places = {(ref.coord.line, ref.coord.col) for item in items
                  for ref in _statement_refs(item)}
        return self._extents([a for a in node.accesses
                              if (a.coord.line, a.coord.col) in places]
                             for node in body if isinstance(node, Stmt))

    def _extents(self, groups) -> tuple[Constraint, ...]:
        """``0 <= e <= n - 1`` for each regular subscript ``e`` (of a dimension of
        ``n``) of the accesses of ``groups``, which the program makes: C gives an
        access outside its array no meaning (``floor(x / q)`` gives ``0 <= x < q*n``,
        which bounds an iterator).  A pointer's first dimension, which its accesses
        decide, gives none."""
        found: list[Constraint] = []
        for access in (a for group in groups for a in group):
            array = self._arrays.get(access.array)
            if array is None:
                continue
            for d, (e, n) in enumerate(zip(access.index, array.shape)):
                if e is None or not E.variables(e) or (
                        d == 0 and access.array in self._reached):
                    continue
                if isinstance(e, E.FloorDiv):  # 0 <= floor(x / q) < n: 0 <= x < q * n
                    e, n = e.arg, e.divisor * n
                found += [Constraint(e, ">="),
                          Constraint(E.add(E.const(n - 1), E.scale(-1, e)), ">=")]
        return tuple(found)

    def _guarded_accesses(self, body: tuple[Node, ...], guard: tuple[Conjunction, ...],
                          var: str, init: tuple[E.Expr, ...], step: int
                          ) -> tuple[tuple[Node, ...], int | None]:
        """When no ``guard`` of whole iterations bounds ``var``: ``body`` with each
        access ``a`` under its own extents ``X_a`` (an access that runs is inside its
        array), and the most trips in which a run may make one,
        ``max_a trips(guard and X_a)`` (:meth:`_guarded_trips`) over the accesses
        that depend on ``var`` (or on an inner iterator whose ends do).  A later
        iteration makes only the accesses that every iteration makes alike, so no
        cycle's accesses are lost.  ``(body, None)`` when no access depends on
        ``var`` (nothing bounds it: :mod:`arraypart.poly.sizes` says so) or the
        extents of one that does do not bound it."""
        ranges = dict(self._ranges)
        trips: list[int] = []  # per access that depends on var

        def guarded(access: Access, coord: Coord, tainted: frozenset[str]) -> list[Node]:
            if not any(E.variables(e) & tainted for e in access.index if e is not None):
                return [Stmt((access,), coord)]
            extents = self._extents([(access,)])
            most = self._guarded_trips(tuple(c + extents for c in guard), var, init,
                                       step, ranges)
            if most is None:
                raise _Unguarded
            trips.append(most)
            return [If((extents,), (Stmt((access,), coord),), (), coord)]

        def nodes(items: tuple[Node, ...], tainted: frozenset[str]) -> tuple[Node, ...]:
            out: list[Node] = []
            for n in items:
                if isinstance(n, Stmt):
                    out += [g for a in n.accesses for g in guarded(a, n.coord, tainted)]
                elif isinstance(n, If):
                    out += [g for a in n.cond_accesses for g in guarded(a, n.coord, tainted)]
                    out.append(replace(n, then=nodes(n.then, tainted),
                                       orelse=nodes(n.orelse, tainted), cond_accesses=()))
                else:
                    ends = n.init + n.bound
                    if any(E.variables(e) & tainted for e in ends):
                        tainted |= {n.var}
                    ranges[n.var] = reduce(S.hull, [interval(e, ranges) for e in ends])
                    out.append(replace(n, body=nodes(n.body, tainted)))
            return tuple(out)

        try:
            guarded_body = nodes(body, frozenset((var,)))
        except _Unguarded:
            return body, None
        return (guarded_body, max(trips + [1])) if trips else (body, None)

    def _guarded_trips(self, guard: tuple[Conjunction, ...], var: str,
                       init: tuple[E.Expr, ...], step: int, ranges: Mapping[str, Bound]
                       ) -> int | None:
        """The most iterations a run of the loop may make while ``guard`` holds (None:
        unbounded): counting up from ``s``, a constraint ``r - c*var >= 0`` (c > 0)
        gives var <= max(r) / c, so at most (var_max - min(s)) / step + 1 trips;
        counting down, ``c*var + r >= 0`` gives var >= -max(r) / c.  The ranges of
        ``r`` are those of the loops around (``ranges``), over all their iterations."""
        start = interval(init[0], ranges)
        most = None
        for conjunction in guard:
            limits = []
            for constraint in conjunction:
                form = E.affine_form(constraint.expr)
                if form is None and constraint.op == ">=":
                    form = _implied_affine(constraint.expr)
                if form is None:
                    continue
                coeffs, const = form
                c = coeffs.get(var, 0)
                sides = [1, -1] if constraint.op == "==" else [1]
                for sign in sides:
                    k = sign * c
                    if k == 0 or (k < 0) != (step > 0):
                        continue
                    rest = E.affine({v: sign * a for v, a in coeffs.items() if v != var},
                                    sign * const)
                    high = interval(rest, ranges)[1]
                    if high is None:
                        continue
                    limits.append(high // -k if step > 0 else -(high // k))
            if not limits:
                return None
            if step > 0:
                if start[0] is None:
                    return None
                trips = (min(limits) - start[0]) // step + 1
            else:
                if start[1] is None:
                    return None
                trips = (start[1] - max(limits)) // -step + 1
            most = max(most or 0, trips, 0)
        return most



class _Unguarded(Exception):
    """An access that depends on a data-dependent loop's iterator in a way its
    extents do not bound (:meth:`_Lowering._guarded_accesses`)."""


def _escapes(items, keywords: tuple[str, ...] = ("break", "continue")) -> bool:
    """Whether a ``break`` or ``continue`` (of ``keywords``) of this loop (not of a
    loop inside it) is among ``items``: then an iteration may skip the rest of its
    body."""
    return any(item is not None and N.leaves(item, keywords) for item in items)


def _statement_refs(item: N.Node):
    """The element accesses a statement at the top of a loop body makes whenever it
    runs: an assignment's target and the reads of :func:`_unconditional_refs` on its
    value, a declaration's initializer's."""
    if isinstance(item, N.Assignment):
        target = N.without_casts(item.lvalue)
        if isinstance(target, N.ArrayRef):
            yield target
        yield from _unconditional_refs(item.rvalue)
    elif isinstance(item, N.Decl) and item.init is not None:
        yield from _unconditional_refs(item.init)


def _unconditional_refs(node: N.Node | None):
    """The outermost element reads of a condition that every evaluation of it makes:
    not in the right operand of ``&&`` or ``||``, nor in a branch of ``?:``."""
    if isinstance(node, N.BinaryOp):
        yield from _unconditional_refs(node.left)
        if node.op not in ("&&", "||"):
            yield from _unconditional_refs(node.right)
    elif isinstance(node, N.TernaryOp):
        yield from _unconditional_refs(node.cond)
    elif isinstance(node, N.UnaryOp) and node.op != "sizeof":
        yield from _unconditional_refs(node.expr)
    elif isinstance(node, N.Cast):
        yield from _unconditional_refs(node.expr)
    elif isinstance(node, N.ArrayRef):
        yield node
