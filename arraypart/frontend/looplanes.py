"""A loop body lowered once, or once per lane of a fully unrolled loop.

A loop's body is lowered once over its iterator; a fully unrolled loop of few trips
(at most :data:`.loops.MAX_PER_LANE_TRIPS`) whose lanes differ is lowered once per
value, and the scalars an iteration steps by a constant are found by lowering one
more iteration (:meth:`LaneLowering._iteration_deltas`).  Part of
:class:`.loops.LoopLowering`.
"""

from __future__ import annotations


from .. import expr as E
from ..errors import Coord, KernelError
from ..ir import Constraint, If, Node, loops
from . import cnodes as N
from . import ordered
from . import scalars as S
from .loopguards import _escapes
from .cexpr import COMPARISONS
from .looppragmas import imprecision


# Following a loop's iteration to find its induction variables lowers its body once
# more, so a nest of k loops that change scalars lowers its innermost body 2^k times;
# past this depth (far beyond real kernels' nests) the scalars are left opaque.
MAX_FOLLOWED_LOOPS = 8
# A fully unrolled loop lowered once per lane (LoopLowering._lanes_body) has
# its body that many times in the IR; past this trip count it is lowered once.
MAX_PER_LANE_TRIPS = 32



class LaneLowering:
    """A loop body, once or per lane (a :class:`.loops.LoopLowering` part)."""


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
            if general is None or (imprecision(general) > 0
                                   and not self._lanes_alike(items, names)):
                lanes = self._trial(items, names, values, coord)
                if lanes is not None and not self._in_lockstep(lanes) and (
                        general is None
                        or imprecision(lanes) < len(values) * imprecision(general)):
                    return self._per_value(items, names, values, coord)
        return tuple(self._items(items))

    def _lanes_alike(self, items, names) -> bool:
        """Whether each copy of :meth:`_per_value` is exactly as imprecise as the body
        lowered once, so that the copies cannot win (n copies of the general body's
        imprecision g make n * g, never below it) and need no trial.  The copies differ
        from the general body only in the values of the lane names: the iterator and
        the scalars whose value on entry is over it (none of which the body writes).
        It holds when the body calls nothing, takes no address, and reads lane names
        only (:func:`_lane_reads_alike`) in an array subscript or in a comparison that
        is an atom of an ``if``'s condition, through ``+``, ``-``, a product with a
        literal and integer conversions other than to ``bool``: each of those is affine
        exactly where its other operands are (:func:`.cexpr.quasi_affine`), and a
        condition is affine exactly where every atom is (:func:`.cexpr.condition_dnf`
        does not short-circuit), so no index, condition or loop end becomes exact or
        inexact in a lane (a constant ``if`` keeps both branches); nothing else (a
        scalar's value, a loop header, a call) sees a lane name.  The loop must be
        among the lane or unrolled loops already, so that the general body, like the
        copies, starts no case origins (:meth:`.cases.CaseLowering._origin`)."""
        var, ir_var = names
        if (len(self._calls) > 1 or ir_var in self._foreign_lanes
                or not (self._lane_loops or self._unrolled)):
            return False
        lane_names = frozenset({var} | {name for name, value in self._temporaries.items()
                                        if ir_var in E.variables(value)})
        return not any(S.written(item, lane_names, self._callees) for item in items) and all(
            _lane_reads_alike(item, lane_names, FREE) for item in items)

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
            changed |= self._written(node)
        changed.discard(var)
        changed -= self._body_locals(items)
        skipping = _escapes(items)
        if (not changed or self._followed >= MAX_FOLLOWED_LOOPS or _escapes(items, ("break",))
                or not any(name in self._temporaries for name in changed)):
            # no entry value: a scalar the loop changes stays without one whatever its
            # step (:meth:`_loop_body`), so the body need not be followed
            return dict.fromkeys(sorted(changed))
        in_body = set().union(*(self._written(n) for n in items)) if skipping else set()
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
        declared = [self._declarations_in(item) for item in items]
        statics = set().union(*(static for _, static in declared))
        return set().union(*(names for names, _ in declared)) - open_here - statics

    def _declarations_in(self, item: N.Node) -> tuple[frozenset[str], frozenset[str]]:
        """The names ``item`` declares, and those of them declared ``static``: walked
        once per statement (each trial and followed iteration asks again).  The entry
        keeps ``item``, so its id stays its own."""
        if id(item) not in self._declared_by_node:
            decls = [d for d in N.walk(item) if isinstance(d, N.Decl)]
            names = frozenset(d.name for d in decls)
            statics = frozenset(d.name for d in decls if d.static)
            self._declared_by_node[id(item)] = (item, (names, statics))
        return self._declared_by_node[id(item)][1]


# Where a name is read, for :func:`_lane_reads_alike`: anywhere, in an array subscript,
# in a comparison of an ``if``'s condition, in that condition through ``&& || !``.
FREE, SUBSCRIPT, ATOM, CONDITION = "free", "subscript", "atom", "condition"
# Operators through which an expression is affine exactly where its operands are.
AFFINE_OPS = ("+", "-")
LOGICAL_OPS = ("&&", "||")


def _lane_reads_alike(node: N.Node | None, lane_names: frozenset[str], where: str) -> bool:
    """Whether ``node`` (read in context ``where``) calls nothing, takes no address, and
    reads ``lane_names`` only in a subscript or a comparison of an ``if``'s condition
    through affine operators (:meth:`LaneLowering._lanes_alike`)."""
    if node is None:
        return True
    if isinstance(node, N.Id):
        return node.name not in lane_names or where in (SUBSCRIPT, ATOM)
    if isinstance(node, N.FuncCall) or (isinstance(node, N.Other)
                                        and node.what.startswith("call of")) or (
            isinstance(node, N.UnaryOp) and node.op == "&"):
        return False
    return all(_lane_reads_alike(child, lane_names, inner)
               for child, inner in _read_contexts(node, where))


def _read_contexts(node: N.Node, where: str) -> list[tuple[N.Node | None, str]]:
    """``node``'s children, each with the context it is read in."""
    if isinstance(node, N.If):
        return [(node.cond, CONDITION), (node.iftrue, FREE), (node.iffalse, FREE)]
    if isinstance(node, N.ArrayRef):
        return [(node.name, FREE), (node.subscript, SUBSCRIPT)]
    if where == CONDITION:
        if (isinstance(node, N.BinaryOp) and node.op in LOGICAL_OPS) or (
                isinstance(node, N.UnaryOp) and node.op == "!"):
            return [(child, CONDITION) for child in node.children()]
        if isinstance(node, N.BinaryOp) and node.op in COMPARISONS and node.wide is None:
            return [(node.left, ATOM), (node.right, ATOM)]
    if where in (SUBSCRIPT, ATOM):
        if (isinstance(node, N.BinaryOp) and node.op in AFFINE_OPS) or (
                isinstance(node, N.UnaryOp) and node.op in AFFINE_OPS) or (
                isinstance(node, N.Cast) and node.to is not None and not node.to.boolean):
            return [(child, where) for child in node.children()]
        if isinstance(node, N.BinaryOp) and node.op == "*" and any(
                isinstance(side, N.Constant) and side.value is not None
                for side in (node.left, node.right)):
            return [(child, where) for child in node.children()]
    return [(child, FREE) for child in node.children()]
