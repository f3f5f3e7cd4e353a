"""The lowering's loops: part of :class:`.lower._Lowering`.

Loops are normalized as :class:`arraypart.ir.Loop` documents: ``i < UB`` becomes the
inclusive bound ``UB - 1``, ``i > UB`` becomes ``UB + 1``, ``i != UB`` is ``<`` or ``>``
by the step's sign, and ``min``/``max`` bounds become tuples of terms; a start or bound
that is not affine is a fresh size (:mod:`.fresh`).  A loop arraypart cannot count is
modelled over a counter of its own, whose trip count is a fresh size.  Scalars that an
iteration steps by a constant are induction variables: bound to their value in each
iteration, and to their exit value after the loop.  The state these methods share is
:class:`.lower._Lowering`'s, documented there.
"""

from __future__ import annotations

import math
from contextlib import contextmanager
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import reduce
from typing import Mapping

from .. import expr as E
from ..errors import Coord, KernelError, warning_text
from ..ir import (GUARD_SOURCE, Access, Conjunction, Constraint, If, Loop, Node, Stmt,
                  accesses, loops)
from .cexpr import (COMPARISONS, FLIPPED, INCREMENT_STEPS, Bound, Scope, condition_superset,
                    fold, interval, min_max_terms, quasi_affine)
from . import cnodes as N
from . import fresh as F
from . import interfaces as I
from . import ordered
from . import scalars as S
from . import stencil
from .accesses import INCREMENTS
from .pipelining import INFERRED_II
from .pragmas import LOOP_DIRECTIVES

ESCAPES = ("break", "continue")
UNIT_STEPS = (1, -1)
# Following a loop's iteration to find its induction variables lowers its body once
# more, so a nest of k loops that change scalars lowers its innermost body 2^k times;
# past this depth (far beyond real kernels' nests) the scalars are left opaque.
MAX_FOLLOWED_LOOPS = 8
# A fully unrolled loop lowered once per lane (LoopLowering._lanes_body) has
# its body that many times in the IR; past this trip count it is lowered once.
MAX_PER_LANE_TRIPS = 32
# The most values a loop with a geometric step (m += m, span >>= 1) takes: each is a
# copy of its body; and the most copies of one body nested such loops make (the
# product of their value counts: a bitonic sort's stages and merges).
MAX_GEOMETRIC_VALUES = 64
# What Vitis reads anywhere in a loop body, as if it opened it.
LOOP_BODY_DIRECTIVES = LOOP_DIRECTIVES + ("loop_tripcount", stencil.DIRECTIVE)


class LoopLowering:
    """The loops of a :class:`.lower._Lowering` run."""

    def _loop(self, node: N.For, label: str | None) -> list[Node]:
        """``for (i = start; i <op> limit; i += step)`` as a normalized :class:`Loop`
        (after a statement of the reads of a start or bound that is a fresh size,
        :mod:`.fresh`: they run on entry, and again in every iteration).
        Further variables of the header (``for (int t = 0, i = 0; t < N; t++, i++)``)
        are scalars set before the loop and stepped at the end of each iteration.  A
        loop without a start (``while (i < N) { ...; i++; }``, ``for (; i < N; i++)``)
        counts from its counter's affine value before it; one without an increment
        steps the counter by a constant in its last statement."""
        coord = node.coord
        if node.cond is None:
            raise KernelError(coord, "a loop needs a condition that compares its iterator "
                                     "with a bound")
        for part in (node.init, node.cond, node.next):
            self._no_calls(part, "a loop header")
        items = N.body_items(node.stmt)
        items = self._directives_first(list(items or ()), LOOP_BODY_DIRECTIVES)
        header = 0
        while header < len(items) and isinstance(items[header], N.Pragma):
            header += 1
        split = self._condition_effects(node, label, items, header)
        if split is not None:
            return split
        if (node.post_test and header == 0 and not _escapes(items)
                and S.side_effect(node.cond) is None
                and quasi_affine(node.cond, self._scope()) == E.const(0)):
            # do { ... } while (0), a macro's statement: its body runs once, straight
            return list(self._statement(node.stmt))
        counted_down = _counted_down(node.cond) if node.next is None else None
        if node.post_test and counted_down is None:
            return self._counter_loop(node, label, items, header)
        try:
            if counted_down is None and S.side_effect(node.cond) is not None:
                # for (...; off++, j < n; ...): while (n--) counts down, counted
                raise _Uncountable(coord, "the condition changes a scalar")
            if counted_down is not None:
                var, start, declared = self._counted_down_start(node, *counted_down)
                body, step, tail = items[header:], -1, []
            else:
                if node.init is None:
                    var, start, declared = self._counter(node.cond, items[header:])
                else:
                    var, start, declared = self._loop_init(node.init, node.cond)
                    if S.side_effect(start) is not None:  # for (k = w++; k < w + 3; ...)
                        raise _Uncountable(coord, "the loop's start changes a scalar")
                body = items[header:-1] if node.next is None else items[header:]
                if node.next is None:
                    step, tail = self._last_step(items[header:], var, coord), []
                else:
                    step, tail = self._loop_step(node.next, var, body,
                                                 self._iterator_type(node.init, var))
            if any(S.assigns(n, var) for n in body):
                raise _Uncountable(coord, f"the body changes the iterator '{var}'")
            bound_names = N.identifiers(node.cond) - {var}
            bound_changes = any(S.written(n, self._scalars, self._callees) & bound_names
                                for n in body + tail)
        except _Uncountable:
            geometric = self._geometric(node, items, header)
            if geometric is not None:
                return [self._geometric_loop(node, label, items, header, geometric)]
            return self._counter_loop(node, label, items, header)
        if node.next is None and counted_down is None:
            items = items[:-1]
        if var in self._frame_vars and not declared:
            raise KernelError(start.coord if node.init is None else node.init.coord,
                              f"loop iterator '{var}' is already used by an enclosing loop")
        pipeline_ii, unroll, pipeline_off = self._loop_pragmas(items[:header], at=coord)
        header_reads: list[Access] = []
        guarded = False  # a data-dependent condition: a guard on each iteration
        try:
            if bound_changes:  # C tests the condition again after every iteration
                raise _Uncountable(coord, "the body changes a scalar of the condition")
            op, limit = (self._loop_cond(node.cond, var, step) if counted_down is None
                         else (">=", N.Constant(coord, -1, -1, counted_down[1])))
        except _Uncountable:  # a data-dependent condition: a fresh number of trips
            init = min_max_terms(start, "max" if step > 0 else "min", self._scope())
            if init is None or len(init) != 1:
                return self._counter_loop(node, label, items, header)
            trips = self._trips(node)
            bound = (E.add(init[0], E.scale(step, E.add(trips, E.const(-1)))),)
            limit = node.cond
            header_reads = self._accesses(start) + self._accesses(limit)
            guarded = not node.post_test
        else:
            own = self._iterator_type(node.init, var)
            init, bound = self._loop_bounds(op, start, limit, step, node.cond,
                                            items[header:] + tail, var,
                                            _tested_type(node.cond, var) or own)
            if any(E.variables(e) & set(self._fresh) for e in init + bound):
                # a fresh size: the reads of its expression count
                header_reads = self._accesses(start) + self._accesses(limit)
        self._bound_sizes(init, bound, step, items[:header])
        name = label or f"L{coord.line}"
        if len(self._calls) > 1:
            name = f"{self._calls[-1].name}/{name}"  # Vitis' location syntax
        # a callee's iterators, and one that C++ lets a header declaration shadow,
        # get a name no enclosing iterator has
        shadows = var in self._frame_vars
        ir_var = var if len(self._calls) == 1 and not shadows else self._fresh_iterator(var)
        self._blocks.append({})  # the header's declarations end with the loop
        try:
            self._header_scalars(node.init, var, declared)
            trip = S.trip_count(init, bound, step, self._ranges)
            if _escapes(items[header:]):
                trip = None  # the loop may stop early: no exit value
            if counted_down is None:  # that condition tests before the last step
                self._check_wraps(var, self._iterator_type(node.init, var), init, step,
                                  trip, node.cond)
            self._frame_vars.append(var)
            if ir_var != var:
                self._temporaries[var] = E.var(ir_var)  # the callee's name for it
            # Vitis unrolls every loop inside a pipelined one, whatever its pragma
            lanes = unroll == 0 or (self._pipelines > 0 and pipeline_ii is None)
            outer_lanes = self._lane_loops
            if pipeline_ii is not None:
                self._lane_loops = []
            elif lanes and self._pipelines > 0:
                self._lane_loops = outer_lanes + [(var, node)]
            foreign = self._foreign_lanes
            if any(E.variables(e) & foreign for e in init):
                # it starts at a lane's value in a text all lanes share: run-time there
                self._foreign_lanes = foreign | {ir_var}
            try:
                with self._loop_frame(ir_var, self._iterator_range(init, bound, step),
                                      (init, bound, step), pipeline_ii, unroll, coord):
                    guard = self._condition_guard(node) if guarded and not bound_changes \
                        else ((),)
                    body, in_order = self._loop_body(items[header:], tail, (var, ir_var),
                                                     init, step, trip, name, coord, lanes)
                    if header_reads:
                        body = (Stmt(tuple(self._accesses(limit)), node.cond.coord),) + body
                    if guarded:
                        extents = self._statement_extents(items[header:], body)
                        guard = tuple(conjunction + extents for conjunction in guard)
                        most = self._guarded_trips(guard, ir_var, init, step, self._ranges)
                        if most is None:
                            body, most = self._guarded_accesses(body, guard, ir_var, init,
                                                                step)
                        self._record_trips(node, trips.name, most)
                        if body and () not in guard:
                            body = (If(guard, body, (), coord),)
            finally:
                self._foreign_lanes = foreign
                self._lane_loops = outer_lanes
                self._frame_vars.pop()
                if ir_var != var:
                    self._temporaries.pop(var, None)
            if not declared:
                exit_value = None if trip is None else E.add(init[0], E.scale(step, trip))
                self._bind(var, exit_value, S.Opaque(
                    f"keeps the last value of the iterator of loop '{name}'", coord))
        finally:
            for scalar, (value, opaque) in self._blocks.pop().items():
                self._bind(scalar, value, opaque)
        loop = Loop(ir_var, init, bound, step, body, name, coord, pipeline_ii, unroll,
                    pipeline_off, call=self._call_id, call_aliases=self._call_aliases,
                    ordered=in_order)
        if pipeline_ii is not None:
            check_unrollable(loop, loop.body)
        loop = self._stencils(loop, items[:header], node)
        if header_reads:
            return [Stmt(tuple(header_reads), coord), loop]
        return [loop]

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
        written = set().union(*(S.written(e, self._scalars, self._callees)
                                for e in effects))
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

    def _counted_down_start(self, node: N.For, var: str, stop: int
                            ) -> tuple[str, N.Node, bool]:
        """``(iterator, its first value, declared in the header)`` of a loop that
        counts down in its condition (:func:`_counted_down`): the first iteration sees
        the start less one, or the start itself when the condition follows the body
        (``do { ... } while (--m)``: m = start, ..., stop).  C ends it only when the start
        is at least ``stop`` (else it counts down past zero), which must follow from the
        bounds."""
        if node.init is None:
            start, declared = N.Id(node.cond.coord, -1, -1, var), False
        else:
            chosen, start, declared = self._loop_init(node.init, node.cond)
            if chosen != var:
                raise _Uncountable(node.cond.coord, "the condition counts down another "
                                                    "variable than the header sets")
        value = quasi_affine(start, self._scope())
        low = None if value is None else interval(value, self._ranges)[0]
        if low is None or low < stop:
            raise _Uncountable(node.cond.coord, f"'{var}' may start below {stop}, where "
                                                "the loop would count down past zero")
        if node.post_test:
            return var, start, declared
        first = N.BinaryOp(start.coord, -1, -1, "-", start, N.Constant(start.coord, -1, -1, 1))
        return var, first, declared

    def _iterator_type(self, init: N.Node | None, var: str) -> N.IntType | None:
        """The integer type of the iterator: its header declaration's, else the one
        every declaration of the name has."""
        if isinstance(init, N.DeclList):
            for d in init.decls:
                if d.name == var and d.ctype is not None:
                    return d.ctype.integer
        return self._types.get(var)

    def _check_wraps(self, var: str, var_type: N.IntType | None, init: tuple[E.Expr, ...],
                     step: int, trip: E.Expr | None, cond: N.Node) -> None:
        """After its last iteration the iterator steps to ``init + step * trip``, the
        value that ends the loop; where its type cannot hold that value it wraps to a
        value the condition may accept, and in C the loop goes on (``for (uint8_t i =
        0; i < 300; i++)`` and ``for (unsigned i = 9; i >= 0; i--)`` never end): a
        located error rather than a trip count that C does not run.  An unsigned
        iterator wraps modulo 2^w (C11 6.2.5p9); where the condition fails at the
        wrapped value, the loop ends there after the iterations modelled
        (``for (size_t i = 15; i != (size_t)-1; --i)``: 0 - 1 is SIZE_MAX, 16 trips)."""
        if var_type is None or trip is None or len(init) != 1:
            return
        end = E.add(init[0], E.scale(step, trip))  # n - (n + 1) is -1 for every n
        if not isinstance(end, E.Const) or var_type.low <= end.value <= var_type.high:
            return
        if not var_type.signed and _holds_at(cond, var, end.value % (1 << var_type.width),
                                             self._scope()) is False:
            return
        kind = f"{'' if var_type.signed else 'un'}signed {var_type.width}-bit"
        raise KernelError(cond.coord, (
            f"loop iterator '{var}' ({kind}) cannot take the value that would end this "
            f"loop, {end.value} (outside {var_type.low}..{var_type.high}): it wraps around "
            f"instead, and in C the loop goes on (it may never end); give '{var}' a wider "
            "type or change the bound"))

    @contextmanager
    def _loop_frame(self, ir_var: str, values: Bound, ends, pipeline_ii: int | None,
                    unroll: int | None, coord: Coord):
        """Inside a loop over ``ir_var``: its range of ``values``, its (init, bound,
        step) ``ends``, and the counts of enclosing pipelines (the ``coord`` of a
        pipelined one), unrolled loops and loops, restored on the way out."""
        pipelined = pipeline_ii is not None
        self._iterators.append(ir_var)
        if pipelined:
            self._pipeline_coords.append(coord)
        self._ranges[ir_var] = values
        self._ends[ir_var] = ends
        self._pipelines += pipelined
        unrolled = unroll is not None and not self._pipelines
        if unrolled:
            self._unrolled.append(ir_var)
        self._loops += 1
        try:
            yield
        finally:
            self._iterators.pop()
            if pipelined:
                self._pipeline_coords.pop()
            del self._ranges[ir_var]
            del self._ends[ir_var]
            self._pipelines -= pipelined
            if unrolled:
                self._unrolled.pop()
            self._loops -= 1

    def _directives_first(self, items: list[N.Node], kinds: tuple[str, ...]
                          ) -> list[N.Node]:
        """A body's statements with its directives of ``kinds`` first, in their order:
        Vitis reads a loop's or a function's directives anywhere in its body."""
        def directive(n: N.Node) -> bool:
            pragma = self._pragmas.parse(n) if isinstance(n, N.Pragma) else None
            return pragma is not None and pragma.kind in kinds
        return [n for n in items if directive(n)] + [n for n in items if not directive(n)]

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

    def _record_trips(self, node: N.For, name: str, most: int | None) -> None:
        """The fresh trip count ``name`` of a data-dependent loop is one size for
        every run of the loop, while each run (in each iteration of the loops around
        it) takes a count of its own: bounded by the arrays it indexes it took the
        least of those (an insertion sort's inner loop 1 trip, not 15), and the model
        lost the iterations of the other runs.  Its range is the ``most`` trips in
        which any run may access an element (:meth:`_guarded_trips`,
        :meth:`_guarded_accesses`), over every lowering of its text; one lowering
        without a bound (None) gives the range back to the arrays, as before any
        guard."""
        if name not in self._condition_trips:  # the range and source before any guard
            self._condition_trips[name] = (0, self._ranges[name],
                                           self._size_sources.get(name))
        seen, (low, known), source = self._condition_trips[name]
        most = None if None in (most, seen) else max(most, seen)
        self._condition_trips[name] = (most, (low, known), source)
        if most is None:  # some run is unguarded: as before any guard
            self._ranges[name] = (low, known)
            if source is None:
                self._size_sources.pop(name, None)
            else:
                self._size_sources[name] = source
        elif (source or "").startswith("LOOP_TRIP"):
            self._ranges[name] = (low, min(most, known))
        else:
            self._ranges[name] = (low, most)
            self._size_sources[name] = (f"{GUARD_SOURCE}the loop's condition at "
                                        f"{node.cond.coord} and the elements its "
                                        "iterations access")

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

    def _trips(self, node: N.For) -> E.Expr:
        """A fresh size for the number of iterations of a loop whose condition
        depends on data (:mod:`.fresh`): LOOP_TRIPCOUNT bounds it, else it stays
        unbounded where no on-chip access depends on it (:mod:`arraypart.poly.sizes`).
        ``do { ... } while (0)`` makes one pass, which a ``break`` only cuts short."""
        kind = "do" if node.post_test else "loop"
        name = f"trips of {kind}{F.NAME_MARK}{node.coord.line}:{node.coord.col}"
        if name not in self._sizes:
            self._sizes[name] = node.coord
            if node.post_test and fold(node.cond, self._scope()) == 0:
                self._ranges[name] = (1, 1)
                self._size_sources[name] = "its condition, false after the first pass"
            else:
                self._ranges[name] = (1 if node.post_test else 0, None)
        return E.var(name)

    def _counter_loop(self, node: N.For, label: str | None, items: list[N.Node],
                      header: int) -> list[Node]:
        """A loop arraypart cannot count (a data-dependent ``while`` or ``do``
        condition, a step that is not a constant, an iterator that is no scalar) as
        a loop over a counter of its own, ``0 <= n < T`` with ``T`` a fresh size
        (:meth:`_trips`): a superset of the iterations it runs.  Every scalar it
        changes is opaque inside it and after it (no induction is assumed), so
        subscripts through them are irregular; the header's reads count on entry
        and in every iteration, its increment's at the end of each."""
        coord = node.coord
        pipeline_ii, unroll, pipeline_off = self._loop_pragmas(items[:header], at=coord)
        name = label or f"L{coord.line}"
        if len(self._calls) > 1:
            name = f"{self._calls[-1].name}/{name}"
        counter = self._fresh_iterator(f"{'do' if node.post_test else 'loop'}_n{coord.line}")
        while counter in self._scalars or counter in self._sizes:
            counter = self._fresh_iterator(counter + "_")
        trips = self._trips(node)
        init, bound = (E.const(0),), (E.add(trips, E.const(-1)),)
        self._bound_sizes(init, bound, 1, items[:header])
        self._blocks.append({})  # the header's declarations end with the loop
        try:
            entry: list[Node] = []
            if node.init is not None:
                entry = self._statement(node.init)
            why = S.Opaque(f"changes in loop '{name}', whose iterations arraypart cannot "
                           "count", coord)
            changed = set()
            for part in items[header:] + [node.cond, node.next, node.init]:
                if part is not None:
                    changed |= S.written(part, self._scalars, self._callees)
            for scalar in sorted(changed):
                self._bind(scalar, None, why)
            cond_reads = tuple(self._accesses(node.cond))
            if cond_reads and not node.post_test:
                entry.append(Stmt(cond_reads, node.cond.coord))
            with self._loop_frame(counter, (0, None), (init, bound, 1), pipeline_ii, unroll,
                                  coord):
                body = tuple(self._items(items[header:]))
                tail = tuple(self._statement(node.next)) if node.next is not None else ()
                for scalar in sorted(changed):
                    self._bind(scalar, None, why)
                if cond_reads:
                    tail += (Stmt(tuple(self._accesses(node.cond)), node.cond.coord),)
        finally:
            for scalar, (value, opaque) in self._blocks.pop().items():
                self._bind(scalar, value, opaque)
        for scalar in sorted(changed):
            self._bind(scalar, None, why)
        loop = Loop(counter, init, bound, 1, body + tail, name, coord, pipeline_ii, unroll,
                    pipeline_off, call=self._call_id, call_aliases=self._call_aliases)
        if pipeline_ii is not None:
            check_unrollable(loop, loop.body)
        return entry + [self._stencils(loop, items[:header], node)]

    def _geometric(self, node: N.For, items: list[N.Node], header: int
                   ) -> "_Geometric | None":
        """The iterator's values in a loop whose step multiplies or divides it by a
        constant (``m += m``, ``m *= 2``, ``span >>= 1``) from a constant start, while
        its condition holds: at most ``MAX_GEOMETRIC_VALUES`` of them, none twice.
        None for any other loop, for one that may stop early or is in a pipeline, for
        one inside others that would make more than ``MAX_GEOMETRIC_VALUES`` copies of
        its body with its own, and for one that runs no loop of its own: pipelined, its
        copies would be sites of one step that the emitted code, which has one, does
        not have.  Inside another, its start may be the other's iterator, a constant
        in each copy (``for (j = k >> 1; j > 0; j >>= 1)`` in ``k <<= 1``)."""
        body = items[header:]
        if (self._pipelines or node.init is None
                or node.next is None or node.post_test or _escapes(body)
                or self._loop_pragmas(items[:header], at=node.coord)[0] is not None
                or not any(isinstance(n, N.For) for item in body for n in N.walk(item))):
            return None
        try:
            var, start, declared = self._loop_init(node.init, node.cond)
        except _Uncountable:
            return None
        parts = _comma_parts(node.next)
        own = [p for p in parts if var in S.written(p, frozenset((var,)))]
        first = quasi_affine(start, self._scope())
        advance = _geometric_step(own[0], var, self._scope()) if len(own) == 1 else None
        if (advance is None or not isinstance(first, E.Const)
                or any(S.assigns(n, var) for n in body)):
            return None
        values, value = [], first.value
        saved = self._state()
        try:
            while len(values) <= MAX_GEOMETRIC_VALUES:
                self._bind(var, E.const(value), None)
                holds = quasi_affine(_tested(node.cond), self._scope())
                if not isinstance(holds, E.Const):
                    return None
                if not holds.value:
                    break
                if value in values:
                    return None
                values.append(value)
                value = advance(value)
        finally:
            self._restore(saved)
        if not values or len(values) * self._geometric_copies > MAX_GEOMETRIC_VALUES:
            return None
        return _Geometric(var, declared, tuple(values), value,
                          [p for p in parts if all(p is not o for o in own)])

    def _geometric_loop(self, node: N.For, label: str | None, items: list[N.Node],
                        header: int, geometric: "_Geometric") -> Loop:
        """A loop over the iterator's values ``v_0 .. v_{K-1}`` (:meth:`_geometric`)
        as a loop over their number ``0 <= k < K`` whose body is
        ``if (k == j) body[i := v_j]`` for each ``j``, lowered in order: each copy
        starts from the scalars the one before left, as the iterations run."""
        coord = node.coord
        pipeline_ii, unroll, pipeline_off = self._loop_pragmas(items[:header], at=coord)
        name = label or f"L{coord.line}"
        if len(self._calls) > 1:
            name = f"{self._calls[-1].name}/{name}"
        var, count = geometric.var, len(geometric.values)
        counter = self._fresh_iterator(f"{var}_k{coord.line}")
        init, bound = (E.const(0),), (E.const(count - 1),)
        copies: list[Node] = []
        self._blocks.append({})
        self._geometric_copies *= count
        try:
            self._header_scalars(node.init, var, geometric.declared)
            with self._loop_frame(counter, (0, count - 1), (init, bound, 1), pipeline_ii,
                                  unroll, coord):
                for k, value in enumerate(geometric.values):
                    self._bind(var, E.const(value), None)
                    body = tuple(self._items(items[header:]))
                    for part in geometric.others:
                        body += tuple(self._statement(part))
                    number = (Constraint(E.add(E.var(counter), E.const(-k)), "=="),)
                    copies.append(If((number,), body, (), coord))
        finally:
            self._geometric_copies //= count
            for scalar, (value, opaque) in self._blocks.pop().items():
                self._bind(scalar, value, opaque)
        if not geometric.declared:
            self._bind(var, E.const(geometric.exit_value), None)
        loop = Loop(counter, init, bound, 1, tuple(copies), name, coord, pipeline_ii, unroll,
                    pipeline_off, call=self._call_id, call_aliases=self._call_aliases)
        if pipeline_ii is not None:
            check_unrollable(loop, loop.body)
        return self._stencils(loop, items[:header], node)

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

    def _loop_body(self, items, tail, names, init, step, trip, name, coord, lanes
                   ) -> tuple[tuple[Node, ...], bool]:
        """The lowered body, with each scalar that the iteration steps by a constant
        bound to its induction value; after the loop they hold their exit values
        (when the trip count is known) and the other scalars the body changes are
        opaque.  ``names``: the iterator's C name and its IR name (a callee's may be
        renamed).  The body of a fully unrolled loop (``lanes``) may be lowered
        once per iterator value (:meth:`_lanes_body`), and is where its lanes run one
        after another (:meth:`_lanes_in_order`), which the second value says."""
        if isinstance(trip, E.Const) and trip.value <= 1 and len(init) == 1:
            return self._single_pass(items, tail, names, init[0], trip.value), False
        var, ir_var = names
        deltas = self._iteration_deltas(items, tail, var)
        number = S.iteration_number(ir_var, init, step)
        entry = self._state()
        varies = S.Opaque(f"changes by a non-constant amount in each iteration of loop "
                          f"'{name}'", coord)
        for scalar, delta in deltas.items():
            known = entry[0].get(scalar)
            if delta is None or number is None or known is None:
                self._bind(scalar, None, entry[1].get(scalar, varies).plain())
            else:
                self._bind(scalar, S.induction_value(known, delta, number), None)
        values = self._lane_values(init, trip, step) if lanes else None
        in_order = not tail and self._lanes_in_order(items, names, values, coord)
        body = (self._per_value(items, names, values, coord) if in_order
                else self._lanes_body(items, names, values, coord))
        for part in tail:  # the header's other increments end each iteration
            body += tuple(self._statement(part))
        self._restore(entry)
        changed = S.Opaque(f"is changed by loop '{name}'", coord)
        for scalar, delta in deltas.items():
            known = entry[0].get(scalar)
            if delta is None or trip is None or known is None:
                self._bind(scalar, None, entry[1].get(scalar, changed).plain())
            else:
                self._bind(scalar, E.add(known, E.scale(delta, trip)), None)
        return body, in_order

    def _single_pass(self, items, tail, names, start: E.Expr, trip: int
                     ) -> tuple[Node, ...]:
        """The body of a loop that runs once (``trip`` 1) or never (0), as straight
        code with the iterator at its ``start``: the scalars flow from the entry
        through the one iteration, exact where no induction value is (``gs >>= 1`` in
        ``for (j = 1; j <= i; j++)`` at i = 1, a bitonic sort's stage); when it never
        runs they keep their entry values (its accesses have an empty domain)."""
        var, ir_var = names
        entry = self._state()
        self._temporaries = {name: E.substitute(e, {ir_var: start})
                             for name, e in self._temporaries.items()}
        self._temporaries[var] = start
        body = tuple(self._items(items))
        for part in tail:
            body += tuple(self._statement(part))
        if trip == 0:
            self._restore(entry)
        else:
            self._temporaries.pop(var, None)
        return body

    def _lane_values(self, init: tuple[E.Expr, ...], trip: E.Expr | None,
                     step: int) -> range | None:
        """The iterator's values when a fully unrolled loop (explicitly, or inside a
        pipelined loop: its lanes are copies, each with its iterator a constant, as
        Vitis unrolls it) may be lowered once per value: from a constant start, with
        a constant trip count of at most ``MAX_PER_LANE_TRIPS``, and not inside a
        body lowered per value already (the copies would multiply); else None."""
        if (self._followed or self._per_lane or len(init) != 1
                or not isinstance(init[0], E.Const) or not isinstance(trip, E.Const)
                or not 2 <= trip.value <= MAX_PER_LANE_TRIPS):
            return None
        return range(init[0].value, init[0].value + step * trip.value, step)

    def _lanes_body(self, items, names, values: range | None, coord: Coord
                    ) -> tuple[Node, ...]:
        """The body lowered once over the iterator or, when ``values`` is given and
        that leaves it less exact (:func:`imprecision`: an index, a condition or a
        loop end the iterator reaches only through arithmetic that is not affine in
        it, as ``1 << stage``), once per value ``v`` under ``if (iterator == v)``:
        chosen when the copies' imprecision is below the general body's times the
        number of copies (the general body stands for every lane).  Outside a
        pipeline a body with a loop of its own that is not unrolled is lowered once:
        the lanes run its steps in lockstep, and copies would run one after another
        (when only copies lower, the general body's error stands: ``for (i = c * n;
        ...)`` under an unrolled ``c``).  Both are the same accesses in the same
        cycles, since every lane of a fully unrolled loop runs its body with the
        iterator a constant; the trials are lowered as followed iterations are
        (:meth:`_iteration_deltas`), without warnings or logs, and dropped."""
        if values is not None:
            general = self._trial(items, names, None, coord)
            if general is not None and self._in_lockstep(general):
                return tuple(self._items(items))
            if general is None or imprecision(general) > 0:
                lanes = self._trial(items, names, values, coord)
                if lanes is not None and not self._in_lockstep(lanes) and (
                        general is None
                        or imprecision(lanes) < len(values) * imprecision(general)):
                    return self._per_value(items, names, values, coord)
        return tuple(self._items(items))

    def _lanes_in_order(self, items, names, values: range | None, coord: Coord) -> bool:
        """Whether the lanes of the fully unrolled loop being lowered, outside any
        pipeline and any other unrolled loop, are calls that run one after another
        (:mod:`.ordered`), judged on its body lowered once per value (``values``) as a
        trial, when the HLS tool keeps the call a function of its own."""
        if values is None or self._pipelines or len(self._unrolled) != 1:
            return False
        callee = ordered.one_call(items, self._callees)
        if callee is None or not ordered.kept_call(callee, self._calls, self._pragmas):
            return False
        copies = self._trial(items, names, values, coord)
        return copies is not None and ordered.in_order(copies, self._call_id, self._arrays)

    def _in_lockstep(self, body: tuple[Node, ...]) -> bool:
        """Whether the lanes of an unrolled loop outside any pipeline share the steps
        of a loop in ``body`` that is not unrolled (DESIGN §2): a copy per lane
        would run them one after another."""
        return not self._pipelines and any(loop.unroll != 0 for loop in loops(body))

    def _trial(self, items, names, values: range | None, coord: Coord
               ) -> tuple[Node, ...] | None:
        """The body lowered as :meth:`_lanes_body` would, then forgotten; None when
        that lowering is a located error."""
        saved = self._state()
        self._followed += 1
        try:
            if values is None:
                return tuple(self._items(items))
            return self._per_value(items, names, values, coord)
        except KernelError:
            return None
        finally:
            self._followed -= 1
            self._restore(saved)

    def _per_value(self, items, names, values: range, coord: Coord) -> tuple[Node, ...]:
        """``if (i == v) body[i := v]`` for each value ``v`` of the iterator ``i``:
        the iterator's C name and every scalar's value over it become constants."""
        var, ir_var = names
        entry = self._state()
        nodes: list[Node] = []
        self._per_lane += 1
        try:
            for value in values:
                self._restore(entry)
                lane = {ir_var: E.const(value)}
                self._temporaries = {name: E.substitute(e, lane)
                                     for name, e in self._temporaries.items()}
                self._temporaries[var] = E.const(value)
                body = tuple(self._items(items))
                condition = (Constraint(E.add(E.var(ir_var), E.const(-value)), "=="),)
                nodes.append(If((condition,), body, (), coord))
        finally:
            self._per_lane -= 1
            self._restore(entry)
        return tuple(nodes)

    def _iteration_deltas(self, items, tail, var) -> dict[str, int | None]:
        """What one iteration adds to each scalar the loop may change: the body and
        the header's ``tail`` are followed (lowered, the result dropped) from
        symbolic start values; None where the change is not a constant.  Past a
        ``break`` no change is one constant; past a ``continue`` only the changes of
        the scalars that the body leaves alone are (the ``tail`` still runs: ``for
        (i = 0, j = 0; ...; i++, j += 2)``)."""
        changed = set()
        for node in list(items) + list(tail):
            changed |= S.written(node, self._scalars, self._callees)
        changed.discard(var)
        changed -= self._body_locals(items)
        skipping = _escapes(items)
        if (not changed or self._followed >= MAX_FOLLOWED_LOOPS or _escapes(items, ("break",))
                or not any(name in self._temporaries for name in changed)):
            # no entry value: a scalar the loop changes stays without one whatever its
            # step (:meth:`_loop_body`), so the body need not be followed
            return dict.fromkeys(sorted(changed))
        in_body = set().union(*(S.written(n, self._scalars, self._callees)
                                for n in items)) if skipping else set()
        saved = self._state()
        symbols = {name: S.entry_symbol(name, self._followed) for name in sorted(changed)}
        for name, symbol in symbols.items():
            self._bind(name, symbol, None)
        self._followed += 1
        try:
            if not skipping:
                self._items(items)
            for part in tail:
                self._apply_effects(part)
            end = dict(self._temporaries)
        finally:
            self._followed -= 1
            self._restore(saved)
        return {name: None if name in in_body else S.iteration_delta(end.get(name), symbol)
                for name, symbol in symbols.items()}

    def _body_locals(self, items) -> set[str]:
        """The scalars that only the body declares (in no block open here, not
        ``static``): each iteration starts them afresh, so an iteration carries none of
        them to the next (following them would lower every nested loop twice per
        level, 2^depth lowerings for a nest of loops with their own iterators)."""
        open_here = set().union(*self._blocks)
        statics = {d.name for item in items for d in N.walk(item)
                   if isinstance(d, N.Decl) and d.static}
        return {d.name for item in items for d in N.walk(item) if isinstance(d, N.Decl)
                } - open_here - statics

    def _bound_sizes(self, init: tuple[E.Expr, ...], bound: tuple[E.Expr, ...], step: int,
                     header: list[N.Node]) -> None:
        """A ``LOOP_TRIPCOUNT max=M`` bounds each size the loop's span depends on
        (:func:`.interfaces.tripcount_bound`), above or below: the user's word that
        the loop runs at most M times, taken alike where the span is affine in the
        size (``i < 20 - n``: n >= 12) and where it is a fresh size of its own (``i <
        m`` with ``m = n * n``: m <= M)."""
        found = I.tripcount(self._pragmas, header)
        if found is None or len(init) != 1 or len(bound) != 1:
            return
        trips, pragma = found
        span = E.add(bound[0], E.scale(-1, init[0]))
        if step < 0:
            span = E.scale(-1, span)
        for name in sorted(E.variables(span) & set(self._sizes)):
            others = {k: v for k, v in self._ranges.items() if k != name}
            claimed = I.tripcount_bound(span, name, step, trips, others)
            if claimed is None:
                continue
            known = self._ranges[name]
            narrowed = (I.extreme(max, claimed[0], known[0]),
                        I.extreme(min, claimed[1], known[1]))
            if narrowed != known:
                self._ranges[name] = narrowed
                self._size_sources[name] = (f"LOOP_TRIPCOUNT max={trips} at "
                                            f"{self._pragmas.coord(pragma)}")


    def _iterator_range(self, init: tuple[E.Expr, ...], bound: tuple[E.Expr, ...],
                        step: int, ranges: Mapping[str, Bound] | None = None) -> Bound:
        """An interval holding the iterator's values: counting up it is at least every
        start and at most every (inclusive) bound, counting down the reverse (the
        variables in ``ranges``, by default those known here)."""
        ranges = self._ranges if ranges is None else ranges
        starts = [interval(t, ranges) for t in init]
        limits = [interval(t, ranges) for t in bound]
        below, above = (starts, limits) if step > 0 else (limits, starts)
        lows = [b[0] for b in below if b[0] is not None]
        highs = [b[1] for b in above if b[1] is not None]
        return (max(lows) if lows else None, min(highs) if highs else None)

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
            steady = not any(S.written(n, self._scalars, self._callees) & read
                             for n in body + others)
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

    def _loop_bounds(self, op, start, limit, step, cond, body, var, var_type):
        """(init terms, inclusive bound terms): a max of starts and a min of limits
        when the loop counts up, a min of starts and a max of limits when it counts down;
        a start or limit that is none of these, a fresh size (:meth:`_fresh_size`).
        ``body``: the loop's statements and header steps.  An unsigned iterator
        (``var`` of ``var_type``) counting down under ``<`` or ``<=`` runs down to 0 and ends
        where it wraps around (:meth:`_wrapped_down`)."""
        increasing = step > 0
        different = op == "!="
        if different:
            if step not in UNIT_STEPS:
                raise KernelError(cond.coord, "a '!=' loop condition needs a step "
                                                    "of +1 or -1")
            op = "<" if increasing else ">"
        wraps = not increasing and op in ("<", "<=")
        if not wraps and op not in (("<", "<=") if increasing else (">", ">=")):
            raise KernelError(cond.coord, f"loop condition '{op}' does not match "
                                                f"the loop's step {step:+d}")
        scope = self._scope()
        init = min_max_terms(start, "max" if increasing else "min", scope)
        if wraps:
            if init is not None and not all(isinstance(e, E.Const) for e in init):
                init = min_max_terms(N.unconverted(start), "min", scope)  # S, not S mod 2^w
            self._wrapped_down(op, init, step, cond, var, var_type)
            return init, (E.const(var_type.low),)
        if init is None:
            init = self._fresh_size(start, "start", body, upper=not increasing)
        bound = min_max_terms(limit, "min" if increasing else "max", scope)
        if different and not increasing and bound is not None:
            bound = _below_zero(bound, var_type)
        if bound is None and increasing:
            bound = self._product_size(limit)
        if bound is None:
            bound = self._fresh_size(limit, "bound", body, upper=increasing)
        if step not in UNIT_STEPS and len(init) != 1:
            raise KernelError(start.coord, "a strided loop needs a single start")
        if different:
            _check_reaches(init, bound, increasing, cond)
        shift = {"<": -1, ">": 1}.get(op, 0)
        return init, tuple(E.add(b, E.const(shift)) for b in bound)

    def _wrapped_down(self, op: str, init: tuple[E.Expr, ...] | None, step: int,
                      cond: N.Node, var: str, var_type: N.IntType | None) -> None:
        """Accept ``for (unsigned i = S; i < B; i -= k)``, whose condition holds at
        every value from its start down to 0, where C ends it as the iterator wraps
        around (C11 6.2.5p9): the iterator unsigned, the condition true at the start
        ``S`` (a start that fails it runs no iteration) and false at ``S mod k - k``
        wrapped, the value the step after the last iteration leaves (``for (unsigned
        i = 15; i < 16; i--)``: i = 15 .. 0, then UINT_MAX fails it).  A start that is
        no constant steps by 1 and passes the test wherever it is at least 0, and fails
        it where it wraps (:func:`_start_refusal`): there the model from ``S < 0`` runs
        no iteration either.  The loop is then ``i >= 0`` stepping from S; any other is
        a located error."""
        scope = self._scope()
        first = init[0] if init is not None and len(init) == 1 else None
        if var_type is None or var_type.signed:
            why = "its iterator is not unsigned, so it does not wrap around"
        elif (refusal := _start_refusal(cond, var, first, step, var_type, scope)):
            why = refusal
        elif _holds_at(cond, var, (first.value % -step if isinstance(first, E.Const) else 0)
                       + step + (1 << var_type.width), scope) is not False:
            why = (f"the condition still holds where '{var}' wraps around below 0, so "
                   "in C the loop goes on (it may never end)")
        else:
            return
        raise KernelError(cond.coord, f"loop condition '{op}' does not match the "
                                      f"loop's step {step:+d}: {why}")

    def _stencils(self, loop: Loop, header: list[N.Pragma], node: N.For) -> Loop:
        """``loop`` with the reads of each array its ``array_stencil`` pragmas name
        marked as window reads where Vitis applies the pragma (:mod:`.stencil`); a
        located warning for each pragma it does not apply."""
        parsed = (self._pragmas.parse(n) for n in header)
        for pragma in (one for p in parsed if p is not None
                       for one in self._pragmas.each_variable(p)):
            if (pragma.kind != stencil.DIRECTIVE
                    or self._pragmas.off(pragma)):
                continue
            c_name = pragma.option("variable")
            why = self._stencil_refusal(loop, c_name, node)
            if why is None:
                array = self._visible[c_name].array
                loop = replace(loop, body=stencil.windowed(loop.body, array))
                if not self._followed:
                    self._windows[array] = loop.name
            elif not self._followed:
                self._warnings.append(warning_text(self._pragmas.coord(pragma, "variable"), (
                    f"array_stencil on {c_name or 'nothing'} is not modelled: {why}; Vitis "
                    "HLS applies it only to its canonical form (UG1399), so its reads "
                    "count as written")))
        return loop

    def _stencil_refusal(self, loop: Loop, c_name: str | None, node: N.For) -> str | None:
        """Why ``c_name``'s reads in ``loop`` are no window (:func:`.stencil.refusal`)."""
        binding = self._visible.get(c_name)
        if c_name is None:
            return "it names no variable= array"
        if len(self._calls) > 1:
            return "its loop is not in the top function"
        if binding is None or not self._arrays[binding.array].interface:
            return f"'{c_name}' is not an array argument of the top function"
        array = self._arrays[binding.array]
        if loop.pipeline_ii != 1:
            return f"loop {loop.name} is not pipelined at II 1"
        if array.partitions or array.reshapes:
            return f"{c_name} is partitioned or reshaped, and Vitis then ignores the stencil"
        if array.name in self._windows and self._windows[array.name] != loop.name:
            return f"{c_name} already has a window in loop {self._windows[array.name]}"
        if not stencil.perfect_nest(self._func.body, node):
            return "its loop nest is not perfect"
        if stencil.passed_to_a_call(node, c_name):
            return f"a function called in loop {loop.name} takes {c_name}"
        ends = [self._ends[v] for v in self._iterators]
        return stencil.refusal(loop, array.name, ends)

    def _loop_pragmas(self, header: list[N.Pragma], *, unroll: bool = True,
                      at: Coord | None = None) -> tuple[int | None, int | None, bool]:
        """``(pipeline II, unroll, pipeline off)`` from the pragmas that open a loop
        body (a function body, without ``unroll``: only ``pipeline``); the loop at
        ``at`` is not pipelined when it is one Vitis cannot pipeline
        (:class:`Unpipelinable`), and is pipelined at II 1 when Vitis pipelines it by
        itself for a short loop inside it (``_raised``, :mod:`.pipelining`)."""
        found: dict[str, int | None] = {}
        off = False
        for node in header:
            pragma = self._pragmas.parse(node)
            if pragma is None or pragma.kind not in LOOP_DIRECTIVES:
                continue
            if pragma.kind == "unroll" and not unroll:
                raise KernelError(self._pragmas.coord(pragma),
                                  "#pragma HLS unroll must open a loop body (be its "
                                  "first statement)")
            if pragma.kind in found:
                raise KernelError(self._pragmas.coord(pragma),
                                  f"duplicate #pragma HLS {pragma.kind} in one loop")
            read = self._pragmas.pipeline_ii if pragma.kind == "pipeline" else self._pragmas.unroll
            found[pragma.kind] = read(pragma)
            off = off or (pragma.kind == "pipeline" and self._pragmas.off(pragma))
        if at in self._unpipelined:
            found.pop("pipeline", None)
        elif at in self._raised and not found and not self._pipelines:
            found["pipeline"] = INFERRED_II
        return found.get("pipeline"), found.get("unroll"), off


class Unpipelinable(KernelError):
    """A pipelined loop (at ``pipelined``) holds a loop whose trip count is no constant:
    Vitis cannot unroll that loop, so it does not pipeline the outer one
    (:func:`.lower.lower_function` lowers the function again without that pipeline)."""

    def __init__(self, coord: Coord, message: str, pipelined: Coord, warning: str):
        super().__init__(coord, message)
        self.pipelined = pipelined
        self.warning = warning


def _implied_affine(e: E.Expr) -> tuple[dict[str, int], int] | None:
    """An affine ``a`` (integer coefficients) with ``e >= 0`` implying ``a >= 0``: an
    affine upper bound of ``e``, scaled to integers (``floor(x / q) <= x / q``,
    ``floor(x / q) >= (x - q + 1) / q``, ``0 <= x mod q <= q - 1``), so that
    ``i + floor(k / 2) <= n - 1`` bounds ``k``.  None where a term has no such
    bound."""
    bound = _upper_bound(e, Fraction(1))
    if bound is None:
        return None
    coeffs, const = bound
    scale = math.lcm(*(f.denominator for f in list(coeffs.values()) + [const]))
    return ({v: int(k * scale) for v, k in coeffs.items() if k},
            math.floor(const * scale))


def _upper_bound(e: E.Expr, factor: Fraction
                 ) -> tuple[dict[str, Fraction], Fraction] | None:
    """An affine upper bound of ``factor * e`` (rational coefficients)."""
    if isinstance(e, E.Const):
        return {}, factor * e.value
    if isinstance(e, E.Var):
        return {e.name: factor}, Fraction(0)
    if isinstance(e, E.Scale):
        return _upper_bound(e.arg, factor * e.factor)
    if isinstance(e, E.Add):
        coeffs: dict[str, Fraction] = {}
        const = Fraction(0)
        for term in e.terms:
            bound = _upper_bound(term, factor)
            if bound is None:
                return None
            for v, k in bound[0].items():
                coeffs[v] = coeffs.get(v, Fraction(0)) + k
            const += bound[1]
        return coeffs, const
    if isinstance(e, E.FloorDiv):
        bound = _upper_bound(e.arg, factor / e.divisor)
        if bound is None:
            return None
        slack = -factor * (e.divisor - 1) / e.divisor if factor < 0 else Fraction(0)
        return bound[0], bound[1] + slack
    if isinstance(e, E.Mod):
        return {}, factor * (e.modulus - 1) if factor > 0 else Fraction(0)
    return None


class _Unguarded(Exception):
    """An access that depends on a data-dependent loop's iterator in a way its
    extents do not bound (:meth:`_Lowering._guarded_accesses`)."""


class _Uncountable(KernelError):
    """A loop header arraypart cannot read as a counted loop: the loop is modelled
    over a counter of its own instead (:meth:`_Lowering._counter_loop`)."""


def _escapes(items, keywords: tuple[str, ...] = ("break", "continue")) -> bool:
    """Whether a ``break`` or ``continue`` (of ``keywords``) of this loop (not of a
    loop inside it) is among ``items``: then an iteration may skip the rest of its
    body."""
    return any(item is not None and N.leaves(item, keywords) for item in items)


def _check_reaches(init: tuple[E.Expr, ...], bound: tuple[E.Expr, ...], increasing: bool,
                   cond: N.Node) -> None:
    """A ``!=`` loop whose constant start lies past its constant bound in the direction
    of its step (``for (uint8_t j = 255; j != 0; j++)``) reaches the bound only when
    the iterator wraps around (or never): a located error, not the ``<`` loop of no
    trip it would be read as."""
    if len(init) != 1 or len(bound) != 1 or not all(
            isinstance(e, E.Const) for e in (init[0], bound[0])):
        return
    start, stop = init[0].value, bound[0].value
    if (start > stop) if increasing else (start < stop):
        raise KernelError(cond.coord, (
            f"this '!=' loop starts at {start}, past {stop} in the direction of its step: "
            "the iterator reaches it only by wrapping around its type (or never), which "
            "arraypart does not model; write the loop over the values it runs"))


def _below_zero(bound: tuple[E.Expr, ...], var_type: N.IntType | None
                ) -> tuple[E.Expr, ...]:
    """The limit of a ``!=`` loop that counts an unsigned iterator down: its type's
    largest value (``SIZE_MAX``, ``UINT_MAX``, ``~0u``) is where the step after 0
    leaves it, so it stands for -1 (``i > -1``: i runs down to 0); any other limit as
    it is.  :meth:`LoopLowering._check_wraps` checks that the condition fails there."""
    if var_type is None or var_type.signed or len(bound) != 1 or not isinstance(
            bound[0], E.Const) or bound[0].value != var_type.high:
        return bound
    return (E.const(-1),)


def _holds_at(cond: N.Node, var: str, value: int, scope: Scope) -> bool | None:
    """Whether the loop condition ``cond`` holds with its iterator ``var`` at
    ``value`` (a value of its type) for every value of the sizes: folded with C's
    conversions and comparisons, or, where it compares ``var`` with a limit that is
    no constant, at both ends of the limit's interval (:func:`_limit`); None where
    neither tells."""
    at = Scope(scope.iterators - {var}, scope.constants, scope.ranges,
               {**scope.temporaries, var: E.const(value)})
    folded = quasi_affine(cond, at)
    if isinstance(folded, E.Const):
        return bool(folded.value)
    found = _limit(cond, var, scope)
    if found is None:
        return None
    op, (low, high) = found[0], interval(found[1], scope.ranges)
    low, high = -math.inf if low is None else low, math.inf if high is None else high
    if op in ("==", "!="):
        if low == high == value:
            return op == "=="
        return op == "!=" if not low <= value <= high else None
    ends = {_compare(op, value, low), _compare(op, value, high)}
    return ends.pop() if len(ends) == 1 else None


# Why a count-down to the wrap whose start may fail its test is refused.
UNKNOWN_START = ("the condition is not known to hold at its start (a start that fails it "
                 "runs no iteration)")


def _start_refusal(cond: N.Node, var: str, start: E.Expr | None, step: int,
                   var_type: N.IntType, scope: Scope) -> str | None:
    """Why the model ``start`` down to 0 of the unsigned ``var`` (w bits) is not the
    loop C runs, or None when it is.  A constant start: the test holds there.  Else
    the step is -1, the test ``var < L`` (``<=``) and ``d = S - L`` at most -1 (0), so
    it holds at every start ``S >= 0``; a start ``S < 0`` begins C's loop at ``S mod
    2^w >= 0``, which fails the test where ``L <= 0`` (``L < 0``), as the model runs no
    iteration: so where ``S >= -1`` (-1 wraps to the type's largest value, which the
    wrap's own test judges) or ``d`` is at least -1 (0) everywhere (``uint8_t i = n -
    1; i < n``, compared in int: n <= 0 runs nothing).  A test that converts a signed
    ``L`` to an unsigned type (``unsigned i = n - 1; i < n`` with an int n) makes a
    negative ``L`` 2^w or more larger, which the wrapped start passes: C then runs
    from there past every array, a refusal that names the value."""
    if isinstance(start, E.Const):
        return None if _holds_at(cond, var, start.value, scope) else UNKNOWN_START
    found = _compared(cond, var)
    limit = None if found is None else quasi_affine(N.unconverted(found[1]), scope)
    if step != -1 or start is None or limit is None or found[0] not in ("<", "<="):
        return UNKNOWN_START
    strict = found[0] == "<"
    least, most = interval(E.add(start, E.scale(-1, limit)), scope.ranges)
    if most is None or most > (-1 if strict else 0):
        return UNKNOWN_START
    lowest = interval(start, scope.ranges)[0]
    if lowest is not None and lowest >= -1:
        return None
    converts = _converts_to_unsigned(found[1])
    if least is not None and least >= (-1 if strict else 0) and not converts:
        return None
    if not converts:
        return UNKNOWN_START
    return _negative_limit(found[1], limit, start, var, var_type, scope) or UNKNOWN_START


def _negative_limit(limit_node: N.Cast, limit: E.Expr, start: E.Expr, var: str,
                    var_type: N.IntType, scope: Scope) -> str | None:
    """The refusal of a test that converts ``limit`` to the unsigned type of
    ``limit_node`` where ``limit`` may be -1: at the size value that makes it -1, the
    wrapped start and the converted limit; None where ``limit`` is no size plus a
    constant, or its range keeps it from -1."""
    form = E.affine_form(limit)
    if form is None or len(form[0]) != 1 or list(form[0].values()) != [1]:
        return None
    (name,) = form[0]
    value = -1 - form[1]
    low, high = scope.ranges.get(name, (None, None))
    if (low is not None and value < low) or (high is not None and value > high):
        return None
    first = E.simplify(E.substitute(start, {name: E.const(value)}))
    if not isinstance(first, E.Const):
        return None
    width = limit_node.to.width
    return (f"at {name} = {value} '{var}' starts at {first.value % (1 << var_type.width)} "
            f"(the start wrapped to {var_type.width} bits) and the test compares it with "
            f"{(1 << width) - 1} ({name} converted to unsigned {width}-bit), which it "
            f"passes: C runs the loop from there down to 0, past every array; bound "
            f"'{name}' below (assert({name} >= 0), an if that returns, or an unsigned type)")


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


def _compare(op: str, a: int, b: int) -> bool:
    return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]


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


def check_unrollable(pipelined: Loop, nodes: tuple[Node, ...],
                     unrolled: frozenset[str] = frozenset()) -> None:
    """Every loop inside a pipelined loop is fully unrolled, so its trip count
    ``(bound - init) / step + 1`` must be a constant in each unrolled copy: one start,
    one bound, and ``bound - init`` a constant or a quasi-affine form of the iterators
    of the unrolled loops around it (``for (k = 0; k <= j; k++)``, or odd-even
    transposition's ``for (k = s % 2; ...)`` in an unrolled s)."""
    for node in nodes:
        if isinstance(node, Loop):
            span = E.add(node.bound[0], E.scale(-1, node.init[0]))
            if (len(node.init) != 1 or len(node.bound) != 1
                    or not E.variables(span) <= unrolled):
                raise Unpipelinable(node.coord, (
                    f"loop '{node.name}' inside pipelined loop '{pipelined.name}' is fully "
                    "unrolled, so its trip count must be a constant (Vitis cannot unroll "
                    f"it either, and leaves '{pipelined.name}' unpipelined): give it a "
                    "constant bound and test the variable one inside (for (k = 0; k < MAX; "
                    f"k++) if (k < n) ...), or pipeline '{node.name}' instead"),
                    pipelined.coord, warning_text(pipelined.coord, (
                        f"loop '{pipelined.name}' is not pipelined: it holds loop "
                        f"'{node.name}' ({node.coord.line}:{node.coord.col}), whose trip "
                        "count is not a constant, so Vitis cannot unroll it and ignores the "
                        "pipeline (give that loop a constant bound and test the variable "
                        "one inside, or pipeline it instead)")))
            check_unrollable(pipelined, node.body, unrolled | {node.var})
        elif isinstance(node, If):
            check_unrollable(pipelined, node.then + node.orelse, unrolled)


def imprecision(nodes: tuple[Node, ...]) -> int:
    """How far ``nodes`` fall short of exact: the irregular dimensions of their
    accesses, their data-dependent conditions and their loop ends that are fresh sizes
    (:mod:`.fresh`)."""
    return sum(e is None for a in accesses(nodes) for e in a.index) + _inexact_ends(nodes)


def _inexact_ends(nodes: tuple[Node, ...]) -> int:
    count = 0
    for node in nodes:
        if isinstance(node, If):
            count += (node.cond is None) + _inexact_ends(node.then + node.orelse)
        elif isinstance(node, Loop):
            ends = node.init + node.bound
            count += any(F.NAME_MARK in v for e in ends for v in E.variables(e))
            count += _inexact_ends(node.body)
    return count
