"""The lowering's loops: part of :class:`.lower._Lowering`.

Loops are normalized as :class:`arraypart.ir.Loop` documents: ``i < UB`` becomes the
inclusive bound ``UB - 1``, ``i > UB`` becomes ``UB + 1``, ``i != UB`` is ``<`` or ``>``
by the step's sign, and ``min``/``max`` bounds become tuples of terms; a start or bound
that is not affine is a fresh size (:mod:`.fresh`).  A loop arraypart cannot count is
modelled over a counter of its own, whose trip count is a fresh size.  Scalars that an
iteration steps by a constant are induction variables: bound to their value in each
iteration, and to their exit value after the loop.  The state these methods share is
:class:`.lower._Lowering`'s, documented there.

This module lowers a ``for`` (counted, geometric or uncountable) from its parts:
recognising its header (:mod:`.loopheaders`), its bounds and trip count
(:mod:`.looptrips`), its guards and early exits (:mod:`.loopguards`), its body once or
per lane (:mod:`.looplanes`), and its pragmas (:mod:`.looppragmas`).
"""

from __future__ import annotations

from contextlib import contextmanager

from .. import expr as E
from ..errors import Coord, KernelError
from ..ir import Access, Constraint, If, Loop, Node, Stmt
from .cexpr import Bound, min_max_terms, quasi_affine
from . import cnodes as N
from . import scalars as S
from . import stencil
from .pragmas import LOOP_DIRECTIVES
from .loopguards import GuardLowering, _escapes
from .loopheaders import (HeaderLowering, _comma_parts, _counted_down, _Geometric,
                          _geometric_step, _tested, _tested_type, _Uncountable)
from .looplanes import LaneLowering
from .looppragmas import LoopPragmaLowering, check_unrollable
from .looptrips import TripLowering

ESCAPES = ("break", "continue")
# The most values a loop with a geometric step (m += m, span >>= 1) takes: each is a
# copy of its body; and the most copies of one body nested such loops make (the
# product of their value counts: a bitonic sort's stages and merges).
MAX_GEOMETRIC_VALUES = 64
# What Vitis reads anywhere in a loop body, as if it opened it.
LOOP_BODY_DIRECTIVES = LOOP_DIRECTIVES + ("loop_tripcount", stencil.DIRECTIVE)


class LoopLowering(HeaderLowering, TripLowering, GuardLowering, LaneLowering, LoopPragmaLowering):
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
            bound_changes = any(self._written(n) & bound_names for n in body + tail)
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
                    changed |= self._written(part)
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
