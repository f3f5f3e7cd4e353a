"""Scalars that hold one of a few constants, modelled by cases (:class:`.scalars.Cases`).

``int S = flag ? 2 : 1;`` leaves S one of (1, 2) wherever it is live: ``buf[S*oh +
kh]`` is not affine, but it is ``oh + kh`` where S is 1 and ``2*oh + kh`` where S is
2.  A statement whose subscripts read such a scalar is lowered once per case, as a
chain of data-dependent ``if``s (``if S == 1 then case 1 else case 2``) whose
``lane_key`` names the case: in one pipeline iteration S has one value, so every copy
takes the branch of that value (:func:`arraypart.ir.branch_paths` models the
iteration path by path; its II is the worst case's), and each case's subscripts are
exact, so the banking is proved conflict-free in each.  So is an ``if``, ``switch``
or (inside a pipelined loop, where it is unrolled) a loop whose header reads one
(``if (S == 1 || kh < 2)``, ``for (kh = 0; kh < S; kh++)``): its test and trip count
are affine in each case (:meth:`CaseLowering._split_by_cases`).  A callee's parameter
passed such a value keeps its cases (:meth:`CaseLowering._argument_cases`).

A ``?:`` in a subscript whose arms are affine (``in[i + (m ? 4 : 0)]``) splits its
statement the same way, once per arm, under an ``if`` on its condition
(:meth:`CaseLowering._choices`).

A case *origin* is set where nothing gives concurrent lanes copies of their own: in
the top function (a callee's text may run once per lane of its caller's unrolled loop),
outside unrolled loops.  Any other write to it leaves it opaque without cases
(:meth:`.scalars.Opaque.plain`).
"""

from __future__ import annotations

import math
from contextlib import contextmanager

from .. import expr as E
from ..errors import Coord
from ..ir import If, Node
from . import calls
from . import cnodes as N
from . import scalars as S
from .cexpr import condition_dnf, constant_values, quasi_affine

# What a condition that is one value in every lane may hold
# (:meth:`.lower._Lowering._lane_key`): no array read, call, member or pointer access,
# assignment or increment.
LANE_FREE_NODES = (N.Id, N.Constant, N.UnaryOp, N.BinaryOp, N.Cast, N.TernaryOp)
LANE_FREE_UNARY = frozenset(("-", "+", "!", "~"))


class CaseLowering:
    """The lowering's part that follows scalars by cases; mixed into
    :class:`.lower._Lowering`, whose state it reads (``_opaque``, ``_temporaries``)."""

    def _origin(self, name: str, constants: tuple[int, ...] | None,
                coord: Coord) -> S.Cases | None:
        """``name`` as a case origin holding one of ``constants`` from here on, when
        there are 2 to :data:`.scalars.MAX_CASES` of them and this write runs once
        per pipeline iteration (see the module doc); else None."""
        if constants is None or not 2 <= len(constants) <= S.MAX_CASES or (
                self._lane_loops or self._unrolled or self._per_lane
                or len(self._calls) > 1):
            return None
        self._case_origins += 1
        return S.Cases((name, coord, self._case_origins), constants,
                       tuple(E.const(c) for c in constants))

    def _initial_cases(self, name: str, init: N.Node, coord: Coord) -> S.Cases | None:
        """The cases of a scalar declared from ``init``: an origin when ``init`` is
        one of a few constants, else the cases of the one origin ``init`` reads, when
        it is affine in each (over the enclosing iterators and sizes, which keep their
        values while the declaration lives); None otherwise."""
        cases = self._origin(name, constant_values(init, self._scope()), coord)
        return cases if cases is not None else self._derived_cases(init)

    def _derived_cases(self, node: N.Node) -> S.Cases | None:
        """The cases of the value of ``node`` when it reads one origin's and is affine
        in each (over the enclosing iterators and sizes, which keep their values while
        what takes it lives); None otherwise."""
        keys = self._case_keys(node)
        if len(keys) != 1:
            return None
        (key, origin), = keys.items()
        known = set(self._iterators) | set(self._sizes)
        values = []
        for k in range(len(origin.constants)):
            with self._in_case({key: k}):
                value = quasi_affine(node, self._scope())
            if value is None or not E.variables(value) <= known:
                return None
            values.append(value)
        return S.Cases(key, origin.constants, tuple(values))

    def _argument_cases(self, call: N.FuncCall, callee: N.FuncDef,
                        bound: S.Values) -> S.Opaques:
        """The callee's integer parameters taken by value, or by a reference it only
        reads (:func:`.scalars.read_only_reference`: ``const int &S``), whose argument
        has cases (``window(in, oh, S)``, ``f(S*oh)``): each opaque with the
        argument's cases, keyed by the caller's origin, so its subscripts are lowered
        per case of that origin as the caller's are (the origin has one value in every
        lane and copy of the callee's text that one iteration runs, and the call
        writes none of it).  A pointer or another reference given an opaque scalar
        (``&S``: through it the callee may write S, which is then opaque at the call,
        its cases dropped) is opaque for the same reason, which a subscript that reads
        it names.  Read in the caller's scope; ``bound``: the parameters with an
        affine value already."""
        found: S.Opaques = {}
        scalars = S.integer_scalars(callee.params)
        for param, arg in zip(callee.params, calls.call_arguments(call, callee)):
            if param.name in bound or param.ctype is None:
                continue
            if S.read_only_reference(callee, param) or (
                    param.name in scalars and param.ctype.kind not in N.POINTER_TYPE_KINDS):
                cases = self._derived_cases(arg)
                if cases is not None:
                    found[param.name] = S.Opaque("is passed a value with cases",
                                                 call.coord, cases=cases)
            elif param.ctype.kind in N.POINTER_TYPE_KINDS and (
                    target := _named_object(arg)) in self._opaque:
                why = self._opaque[target]
                found[param.name] = S.Opaque(
                    f"points at '{target}' (arraypart follows a scalar into a call by "
                    f"value or by a const reference the callee only reads), which "
                    f"{why.reason}", why.coord)
        return found

    def _assigned_cases(self, node: N.Node, name: str) -> S.Cases | None:
        """The cases ``node`` gives ``name`` when it is ``name = e`` with ``e`` one of
        a few constants (read before the assignment's effects)."""
        if not (isinstance(node, N.Assignment) and node.op == "="
                and S.write_target(node) == name):
            return None
        return self._origin(name, constant_values(node.rvalue, self._scope()), node.coord)

    def _merged_cases(self, ends: list[tuple[S.Values, S.Opaques]], name: str,
                      coord: Coord) -> S.Cases | None:
        """An origin for ``name`` after a branching construct whose every path
        (``ends``) leaves it one of a few constants (``if (f) S = 2; else S = 1;``)."""
        found: set[int] = set()
        for values, opaque in ends:
            value, why = values.get(name), opaque.get(name)
            if isinstance(value, E.Const):
                found.add(value.value)
            elif why is not None and why.cases is not None and all(
                    isinstance(v, E.Const) for v in why.cases.values):
                found.update(v.value for v in why.cases.values)
            else:
                return None
        return self._origin(name, tuple(sorted(found)), coord)

    def _case_keys(self, node: N.Node) -> dict[tuple, S.Cases]:
        """The origins (by key) of the scalars with cases that ``node`` reads."""
        found: dict[tuple, S.Cases] = {}
        for n in N.walk(node):
            why = self._opaque.get(n.name) if isinstance(n, N.Id) else None
            if why is not None and why.cases is not None:
                found.setdefault(why.cases.key, why.cases)
        return found

    @contextmanager
    def _in_case(self, setting: dict[tuple, int], ends: list | None = None):
        """Every scalar with cases of an origin in ``setting`` (key -> case number)
        has its affine value in that case while the block runs; the state it leaves
        is appended to ``ends``, when given, with each such scalar it did not write
        given back its cases."""
        before = self._state()
        given: dict[str, tuple[E.Expr, S.Opaque]] = {}
        for name, why in before[1].items():
            if why.cases is not None and why.cases.key in setting:
                given[name] = why.cases.values[setting[why.cases.key]], why
                self._temporaries[name] = given[name][0]
                del self._opaque[name]
        try:
            yield
            if ends is not None:
                values, opaque = self._state()
                for name, (value, why) in given.items():
                    if values.get(name) is value:
                        del values[name]
                        opaque[name] = why
                ends.append((values, opaque))
        finally:
            self._restore(before)

    def _split_by_cases(self, node: N.Node, header: tuple[N.Node | None, ...], lower
                        ) -> list[Node] | None:
        """The compound statement ``node`` (an ``if``, ``switch`` or loop) lowered by
        ``lower`` once per case of the origins its ``header`` reads (``if (S == 1 ||
        kh < 2)``, ``for (kh = 0; kh < S; kh++)``, affine in each case), as a chain
        of ``if``s keyed by case; the scalars after it merged over the cases' ends as
        after a branch.  None (lower it as it is) when it reads none, when its cases
        number more than :data:`.scalars.MAX_CASES`, or when it is or holds a loop
        outside a pipelined one (whose own loops are all unrolled into its lanes):
        such a loop keeps one schedule of its own."""
        keys = {}
        for part in header:
            if part is not None:
                keys.update(self._case_keys(part))
        if not keys or math.prod(len(c.constants) for c in keys.values()) > S.MAX_CASES \
                or (not self._pipelines and any(isinstance(n, N.For) for n in N.walk(node))):
            return None
        before, ends = self._state(), []

        def chain(keys: list[tuple[tuple, S.Cases]], setting: dict[tuple, int]):
            if not keys:
                self._restore(before)
                with self._in_case(setting, ends):
                    return tuple(lower())
            (key, origin), rest = keys[0], keys[1:]
            return _keyed(key, origin, [chain(rest, {**setting, key: k})
                                        for k in range(len(origin.constants))], node.coord)

        nodes = chain(list(keys.items()), {})
        self._restore(before)
        self._merge_paths(ends, node.coord, "case split")
        return list(nodes)

    def _by_cases(self, node: N.Node, coord: Coord) -> list[Node]:
        """``node``'s accesses as statements (``_guarded_statements``), once per case
        of the origins its subscripts read, as a chain of ``if``s keyed by case (see
        the module doc), and in each case once per arm of each ``?:`` in a subscript
        that is not affine (:meth:`_choices`); at most :data:`.scalars.MAX_CASES`
        copies, else as they are (irregular)."""
        keys = {}
        for ref in N.walk(node):
            if isinstance(ref, N.ArrayRef):
                keys.update(self._case_keys(ref.subscript))
        copies = math.prod(len(c.constants) for c in keys.values())
        if copies > S.MAX_CASES:
            return self._guarded_statements(node, coord)
        return self._case_chain(node, coord, list(keys.items()), {}, S.MAX_CASES // copies)

    def _case_chain(self, node: N.Node, coord: Coord, keys: list[tuple[tuple, S.Cases]],
                    setting: dict[tuple, int], budget: int) -> list[Node]:
        if not keys:
            with self._in_case(setting):
                return self._choices(node, coord, budget)
        (key, origin), rest = keys[0], keys[1:]
        return list(_keyed(key, origin, [
            tuple(self._case_chain(node, coord, rest, {**setting, key: k}, budget))
            for k in range(len(origin.constants))], coord))

    def _choices(self, node: N.Node, coord: Coord, budget: int) -> list[Node]:
        """``node``'s accesses as statements, with each ``c ? a : b`` in a subscript
        that is not affine here but whose arms are (``in[i + (m ? 4 : 0)]``) lowered
        once per arm: ``if (c)`` the statement reading ``a``, else reading ``b``.
        Where ``c`` is affine in the iterators the ``if`` is on it; else it is data
        dependent, keyed like a written one (:meth:`.lower._Lowering._lane_key`).
        Only a ``c`` that reads no array, calls nothing, writes nothing and reads
        nothing ``node`` writes is split (so it has one value wherever the statement
        reads it), at most ``budget`` copies."""
        scope = self._scope()
        written = self._written(node)
        choice = next((t for ref in N.walk(node) if isinstance(ref, N.ArrayRef)
                       for t in N.walk(ref.subscript) if isinstance(t, N.TernaryOp)
                       and id(t) not in self._chosen and quasi_affine(t, scope) is None
                       and None not in (quasi_affine(t.iftrue, scope),
                                        quasi_affine(t.iffalse, scope))
                       and _plain_condition(t.cond, written)), None)
        if choice is None or budget < 2:
            return self._guarded_statements(node, coord)
        arms = []
        for held in (True, False):
            self._chosen[id(choice)] = held
            try:
                arms.append(tuple(self._choices(node, coord, budget // 2)))
            finally:
                del self._chosen[id(choice)]
        cond = condition_dnf(choice.cond, scope)
        names = set() if cond is None else {v for conjunction in cond for c in conjunction
                                            for v in E.variables(c.expr)}
        lane_key = self._lane_key(choice.cond)
        if names & self._foreign_lanes or (
                not names <= set(self._iterators) and (lane_key or not self._lane_loops)):
            # a lane's value in a text all lanes share, or a size (m in m ? 4 : 0),
            # which the model does not hold fixed between two accesses: one value in
            # every lane of an iteration, a data-dependent choice
            cond = None
        return [If(cond, arms[0], arms[1], coord,
                   lane_key=lane_key if cond is None else None)]


def _keyed(key: tuple, origin: S.Cases, branches: list[tuple[Node, ...]],
           coord: Coord) -> tuple[Node, ...]:
    """The chain ``if (case 0) branches[0] else if (case 1) ... else branches[-1]`` of
    the cases of ``origin``, each ``if`` keyed by its case (``ir.If.lane_key``)."""
    chain = branches[-1]
    for k in reversed(range(len(branches) - 1)):
        chain = (If(None, branches[k], chain, coord,
                    lane_key=("case",) + key + (origin.constants[k],)),)
    return chain


def _named_object(arg: N.Node) -> str | None:
    """The variable that an argument ``x`` or ``&x`` names."""
    arg = N.without_casts(arg)
    if isinstance(arg, N.UnaryOp) and arg.op == "&":
        arg = N.without_casts(arg.expr)
    return arg.name if isinstance(arg, N.Id) else None


def _plain_condition(cond: N.Node, written: frozenset[str]) -> bool:
    """``cond`` reads no array, calls nothing, writes nothing and reads none of the
    scalars in ``written``."""
    return not any(not isinstance(n, LANE_FREE_NODES) or (
        isinstance(n, N.UnaryOp) and n.op not in LANE_FREE_UNARY)
        or (isinstance(n, N.Id) and n.name in written) for n in N.walk(cond))
