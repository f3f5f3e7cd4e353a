"""The testbench's values of the top's integer scalars that run-time sizes read.

A run-time size may stand for an expression over the top's scalars: a product ``H*W``
(named by it) or a fresh size ``(n - 1) / 2 + 1@4:23`` (:mod:`..frontend.fresh`).  The
model holds the size's values ``low <= s <= high`` (:class:`..ir.Param`), and the
extents of pointers, hence the testbench's buffers, follow that range; so in every call
the scalars must give each such expression, evaluated with C's semantics, a value in
``[low, high]``.  Call ``c`` drives a scalar with ``SCALAR_INT + c - 1`` and a size
with the end of its range that runs the loops it bounds longest, then the other end,
then midway (:func:`_size_in_call`: a loop's start, whose larger values only shorten
its loops, its ``low`` first, any other size its ``high`` first), then at each of its
probes, values at which a pipelined loop runs that those miss; where an
expression leaves its range, the scalars and sizes it reads are lowered together to
the largest common value under which it fits (a size not below its ``low``, a scalar
down to 0): ``H, W <= 32`` with ``H*W <= 256`` run at 16 x 16 first.  A scalar that an
``assert`` among the top's statements bounds stays in the asserted range
(:func:`_stepped`): the testbench never breaks what the kernel asserts of its inputs
where arraypart can read the assert.  A scalar the
top writes is free only where a fresh size reads it after straight-line writes that
compute its value from the arguments (:func:`_reaching`: ``n = n * 2 + 1;`` or
``int m = n * n;`` at the top of the body, before the loop): the expression is then
evaluated at the value the loop reads, so the arguments are lowered until that value
lies in the size's range; yet a scalar that a loop reads as its end after other writes
(``if (hi > 63) hi = 63;``) is stepped ``calls`` above the others, so that a loop
between two such scalars runs (:func:`_loop_ends`).
A stepped scalar that the origin of a scalar modelled by cases reads (``int S = flag ?
2 : 1``, :mod:`..frontend.cases`), or that a subscript's ``?:`` tests (``in[i + (m ? 4
: 0)]``), takes in turn the constants those compare it with and one that is none of
them (``switch (mode)`` with ``case 16`` and ``case 32``: 0, 16, 32; the testbench
makes that many calls at least), both sides of a relational test's boundary (3 and 4
of ``mode < 4``), each value lifted to one of the scalar where the test reads an
expression of it (``switch (mode & 0x30)``: 0, 16, 32), else counts from 0
(:func:`case_values`): 0, 1, 2 give a flag both truths, so the calls run every case
of the model.
An expression that reads anything else (a local written in a branch or a loop, a
callee's parameter) is left as is.  :class:`Driven` gives the value of each size whose
expression is known in each call, so the trace can tell one outside its range.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Mapping

from .. import ir
from ..errors import KernelError
from ..frontend import cnodes as N
from ..frontend import fresh as F
from ..frontend import interfaces as I
from ..frontend import scalars as S
from ..frontend.cexpr import INCREMENT_STEPS, Scope, fold
from ..frontend.switches import switch_arms
from ..ir import Kernel, Param
from ..sourcetext import KEEP_BYTES

Evaluate = Callable[[Mapping[str, int]], "int | None"]


@dataclass(frozen=True, slots=True)
class _SizeExpression:
    """A size's expression: the scalars it reads and its value given theirs."""

    param: Param
    names: frozenset[str]
    evaluate: Evaluate

    def fits(self, values: Mapping[str, int]) -> bool:
        value = _value(self, values)
        return value is not None and self.param.holds(value)


@dataclass(frozen=True, slots=True)
class _Top:
    """What the size expressions read of the top, made once per kernel: its
    parameters' names, the integer type of each scalar it declares (its parameters
    included), every identifier of its body, and the file's functions by name."""

    parameters: frozenset[str]
    types: Mapping[str, N.IntType]
    names: frozenset[str]
    callees: Mapping[str, N.FuncDef]


def _top(kernel: Kernel) -> _Top:
    func = kernel.source.func
    return _Top(frozenset(p.name for p in func.params if p.name),
                {d.name: t for d in func.params + tuple(
                    n for n in N.walk(func.body) if isinstance(n, N.Decl))
                 if (t := (d.ctype.referent or d.ctype).integer if d.ctype else None)
                 is not None},
                frozenset(N.identifiers(func.body)),
                {f.name: f for f in kernel.source.callees})


@dataclass(frozen=True, slots=True)
class Driven:
    """The testbench's values by call: ``scalars``, for each of the top's scalars that
    a size's expression would otherwise take out of its range, its value in calls
    1..``calls``; ``sizes``, per call, the value of each run-time size that is no
    argument of the top and whose expression reads only arguments (a value outside
    the size's range is one the testbench could not avoid)."""

    scalars: dict[str, tuple[int, ...]]
    sizes: tuple[dict[str, int], ...]


def driven_values(kernel: Kernel, stepped: frozenset[str], calls: int,
                  first: int) -> Driven:
    """The values of the scalars of ``stepped`` (driven ``first + c - 1`` by default)
    and of the run-time sizes among the top's parameters (driven at
    :func:`_size_in_call`'s values, never below their ``low``) that differ from those
    defaults, lowered where a size's expression leaves its range; the others keep
    their default.  And the sizes' values at them."""
    top = _top(kernel)
    runs, changed, expressions = _driven(kernel, top, stepped, calls, first)
    return Driven({name: tuple(values[name] for values in runs) for name in changed},
                  tuple({e.param.name: value for e in expressions
                         if e.param.name not in top.parameters
                         if (value := _value(e, values)) is not None} for values in runs))


def _value(expression: _SizeExpression, values: Mapping[str, int]) -> int | None:
    try:
        return expression.evaluate(values)
    except KernelError:  # a division by zero
        return None


def _driven(kernel: Kernel, top: _Top, stepped: frozenset[str], calls: int, first: int
            ) -> tuple[list[dict[str, int]], set[str], list[_SizeExpression]]:
    """Per call, the values of the adjustable scalars (:func:`driven_values`); the
    names whose values differ from their defaults; the size expressions fitted."""
    sizes = {p.name: p for p in kernel.params
             if p.name in top.parameters and p.high is not None}
    starts = ir.starts(kernel)
    adjustable = frozenset(stepped | set(sizes))
    asserted = {name: (low, high) for name, (low, high, _) in I.assert_bounds(
        kernel.source.func.body, dict(kernel.defines), sorted(stepped)).items()}
    # a size's floor is its least value (a signed one's may be negative), a scalar's 0
    floors = {name: sizes[name].low if name in sizes and sizes[name].low is not None
              else max(0, asserted.get(name, (0, None))[0] or 0) for name in adjustable}
    written = S.written(kernel.source.func.body, adjustable, top.callees)
    expressions = [e for p in kernel.params
                   if (e := _expression(kernel, top, p, set(adjustable) | set(sizes),
                                        written)) is not None and e.names & adjustable]
    ends = _loop_ends(kernel, stepped, starts)
    cases = {name: _asserted(values, *asserted.get(name, (None, None)))
             for name, values in case_values(kernel, top).items() if name in stepped}
    runs: list[dict[str, int]] = []
    changed: set[str] = set(ends)
    for call in range(1, calls + 1):
        default = {name: cases[name][(call - 1) % len(cases[name])] if cases.get(name)
                   else _stepped(0 if name in cases else first, call, calls,
                                 *asserted.get(name, (None, None)))
                   for name in stepped} | {
            name: _size_in_call(p, call, calls, name in starts)
            for name, p in sizes.items()} | {
            name: min(first + call - 1 + calls, high) for name, high in ends.items()}
        values = dict(default)
        for expression in expressions:
            _fit(expression, values, expression.names & adjustable, floors)
        runs.append(values)
        for name in adjustable | set(ends):
            if values[name] != (first + call - 1 if name in stepped else sizes[name].high):
                changed.add(name)
    return runs, changed, expressions


def _stepped(first: int, call: int, calls: int, low: int | None, high: int | None) -> int:
    """A stepped scalar's value in call ``call``: ``first + call - 1``, moved into the
    range ``[low, high]`` that the top's own ``assert`` statements give it (a kernel's
    assert is a constraint on its inputs, as a guard is): from ``low`` up where
    ``first`` is below it, wrapping round the range where it is narrower than the
    calls (``0 < scale && scale < 4``: 3, 1, 2)."""
    start = first if low is None else max(first, low)
    if high is None or (low is not None and low > high):  # nothing runs such a kernel
        return start + call - 1
    least = low if low is not None else min(start, high - calls + 1)
    return least + (start - least + call - 1) % (high - least + 1)


def _asserted(values: tuple[int, ...], low: int | None, high: int | None
              ) -> tuple[int, ...]:
    """The ``values`` in the range ``[low, high]`` that the top's asserts give."""
    return tuple(v for v in values if (low is None or v >= low) and (high is None or v <= high))


def _loop_ends(kernel: Kernel, stepped: frozenset[str], starts: frozenset[str]
               ) -> dict[str, int]:
    """The ``stepped`` scalars that the top writes before a loop reads them as its end
    (``if (hi > 63) hi = 63; for (i = lo; i < hi; ..)``: a fresh size that is the
    scalar as written, :func:`..ir.starts` tells which end) and as no start -> the least
    ``high`` of those sizes.  Driven as their starts, ``lo = hi``, such a loop would
    never run: an end is driven ``calls`` above the stepped value (at most that
    ``high``), so that each call runs it."""
    ends: dict[str, int] = {}
    begins: set[str] = set()
    for param in kernel.params:
        node = _fresh_node(kernel, param.name) if F.NAME_MARK in param.name else None
        node = None if node is None else N.without_casts(node)
        if not isinstance(node, N.Id) or node.name not in stepped:
            continue
        if param.name in starts or param.high is None:
            begins.add(node.name)
        else:
            ends[node.name] = min(ends.get(node.name, param.high), param.high)
    return {name: high for name, high in ends.items() if name not in begins}


def _size_in_call(size: Param, call: int, calls: int, start: bool) -> int:
    """A run-time size's value in call ``call`` of ``calls``: its usual one
    (:meth:`..ir.Param.usual`), the last calls its probes (``Param.probes``, in order:
    the sizes' k-th probes together run a pipelined loop that the usual values miss)."""
    usual = calls - len(size.probes)
    return size.probes[call - usual - 1] if call > usual else size.usual(call, start)


def _fit(expression: _SizeExpression, values: dict[str, int], free: set[str],
         floors: Mapping[str, int]) -> None:
    """Lower the ``free`` scalars of ``values`` to the largest common value ``v`` (each
    keeps ``min(its value, v)``, not below its floor) under which ``expression``
    fits; unchanged when none does."""
    if expression.fits(values):
        return
    for v in range(max(values[name] for name in free) - 1, -1, -1):
        tried = values | {name: max(floors[name], min(values[name], v)) for name in free}
        if expression.fits(tried):
            values.update(tried)
            return


def _expression(kernel: Kernel, top: _Top, param: Param, known: set[str],
                written: set[str]) -> _SizeExpression | None:
    """``param``'s expression when it reads only names of ``known`` and constants: a
    fresh size's at the values that the writes before its loop give the names it
    reads (:func:`_reaching`), a product's when the top writes none of its names."""
    if F.NAME_MARK in param.name:
        node = _fresh_node(kernel, param.name)
        reaching = None if node is None else _reaching(kernel, top, node)
        if reaching is None or not reaching[0] <= known:
            return None
        return _SizeExpression(param, *reaching)
    words = param.name.split("*")
    if len(words) < 2:
        return None
    names = frozenset(w for w in words if not w.isdigit())
    if not names <= known or names & written:
        return None
    return _SizeExpression(param, names, lambda values: math.prod(
        int(w) if w.isdigit() else values[w] for w in words))


def _reaching(kernel: Kernel, top: _Top, node: N.Node
              ) -> tuple[frozenset[str], Evaluate] | None:
    """The top's arguments that ``node``'s value depends on, and that value given
    theirs, where it follows from the statements before the top-level statement that
    holds ``node``: each a write of its own of an integer scalar (``x = e``, ``x op=
    e``, ``x++``, ``int x = e``; ``e`` without side effects), C's arithmetic folding
    each value in turn.  None where it reads a scalar that another statement before it
    (a branch, a loop, a call) or the statement holding it may write, or any other
    name; a value that leaves its scalar's type gives None."""
    reads: dict[str, frozenset[str] | None] = {p.name: frozenset((p.name,))
                                                for p in kernel.source.func.params}
    steps: list[tuple[str, N.Node]] = []
    for item in kernel.source.func.body.items:
        holds = any(n is node for n in N.walk(item))
        plain = [] if holds else _plain_writes(item)
        for name in S.written(item, top.names, top.callees) - {name for name, _ in plain}:
            reads[name] = None
        if holds:
            break
        for name, write in plain:
            sources = [reads.get(n) for n in _read_by(write, name)]
            known = name in top.types and None not in sources
            reads[name] = frozenset().union(*sources) if known else None
            if known:
                steps.append((name, write))
    sources = [reads.get(n) for n in N.identifiers(node)]
    if None in sources:
        return None

    def evaluate(values: Mapping[str, int]) -> int | None:
        scope = dict(values)
        for name, write in steps:
            value = _written_value(write, name, scope)
            if value is None or not top.types[name].low <= value <= top.types[name].high:
                scope.pop(name, None)  # unknown: a read of it folds to None
            else:
                scope[name] = value
        return fold(node, Scope(constants=scope))
    return frozenset().union(*sources), evaluate


def _plain_writes(item: N.Node) -> list[tuple[str, N.Node]]:
    """The writes a top-level statement is, when it is only plain writes of integer
    scalars (:func:`_reaching`): (name, the assignment, step or declaration)."""
    if isinstance(item, N.DeclList):
        decls = [d for d in item.decls if not (d.is_array or d.static)]
        if len(decls) == len(item.decls) and all(
                d.init is None or S.side_effect(d.init) is None for d in decls):
            return [(d.name, d) for d in decls if d.init is not None]
        return []
    name = S.write_target(item)
    value = item.rvalue if isinstance(item, N.Assignment) else None
    if name is None or (value is not None and S.side_effect(value) is not None):
        return []
    return [(name, item)]


def _read_by(write: N.Node, name: str) -> set[str]:
    """The names whose values ``write`` (:func:`_plain_writes`) of ``name`` reads."""
    if isinstance(write, N.Decl):
        return N.identifiers(write.init)
    if isinstance(write, N.UnaryOp):
        return {name}
    return N.identifiers(write.rvalue) | ({name} if write.op != "=" else set())


def _written_value(write: N.Node, name: str, scope: Mapping[str, int]) -> int | None:
    """``name``'s value after ``write`` (:func:`_plain_writes`), ``scope`` giving the
    values before it."""
    if isinstance(write, N.Decl):
        return fold(write.init, Scope(constants=scope))
    if isinstance(write, N.UnaryOp):
        return scope[name] + INCREMENT_STEPS[write.op] if name in scope else None
    if write.op == "=":
        return fold(write.rvalue, Scope(constants=scope))
    return fold(N.BinaryOp(write.coord, write.start, write.end, op=write.op[:-1],
                           left=write.lvalue, right=write.rvalue), Scope(constants=scope))


def _fresh_node(kernel: Kernel, name: str) -> N.Node | None:
    """The expression in the top's body that the fresh size ``name`` stands for."""
    data = kernel.source.text.encode(errors=KEEP_BYTES)
    return next((n for n in N.walk(kernel.source.func.body)
                 if F.size_name(n, data) == name), None)


def case_values(kernel: Kernel, top: _Top | None = None) -> dict[str, tuple[int, ...]]:
    """The top's parameters that the writes giving a scalar its cases read (the
    statements at the places that the case keys of the model's ``if`` chains name,
    :attr:`arraypart.ir.If.lane_key` ``("case", name, place, ...)``), or that the
    condition of a ``?:`` in a subscript reads (``in[i + (m ? 4 : 0)]``, lowered once
    per arm), or that the condition of a data-dependent ``if`` or ``switch`` of the
    top's text in a pipelined or unrolled loop (:func:`_looped_branches`) compares with
    a constant (``if (mode < 8)``, both of whose branches the model counts; a clamp
    before a loop, ``if (hi > 63) hi = 63``, is driven as a loop end, and a plain flag
    there, ``if (left % 2)``, as any scalar); each with the values the testbench gives
    it in turn, ascending, so that every case and branch runs (:func:`_tests`): each value at which a test of it takes a side
    it takes at no other (the labels of a ``switch``, ``c`` in ``p == c``; ``c - 1``
    and ``c`` in ``p < c``, both sides of the boundary), lifted to a value of the
    parameter where the test reads an expression of it (``switch (mode & 7)``'s
    ``case 5``: the least ``mode`` from 0 with ``mode & 7 == 5``), and the least
    value from 0 at which every equality test fails (a ``default``, an ``else``);
    () where it is compared with no constant (stepped from 0: 0, 1, 2 give a flag
    both truths).  Values outside the parameter's type are left out."""
    top = top or _top(kernel)
    places = {node.lane_key[2] for node in _ifs(kernel.body)
              if node.lane_key is not None and node.lane_key[0] == "case"}
    branches = set(_looped_branches(kernel.body))
    body = kernel.source.func.body
    nodes = [n for n in N.walk(body) if n.coord in places] + [
        choice.cond for ref in N.walk(body) if isinstance(ref, N.ArrayRef)
        for choice in N.walk(ref.subscript) if isinstance(choice, N.TernaryOp)]
    found: dict[str, set[int]] = {n.name: set() for node in nodes for n in N.walk(node)
                                  if isinstance(n, N.Id) and n.name in top.parameters}
    nodes += [tested for n in N.walk(body)
              if (tested := _data_dependent(n, branches)) is not None]
    equalities: dict[str, list[_Test]] = {}
    scope = Scope(constants=dict(kernel.defines))
    scalars = frozenset(top.parameters & set(top.types))
    for node in nodes:
        for n in N.walk(node):
            for test in _tests(n, scope, scalars):
                values = (_lifted(test, v, top, scope) for v in test.sides)
                found.setdefault(test.name, set()).update(v for v in values if v is not None)
                if test.equality:
                    equalities.setdefault(test.name, []).append(test)
    for name, tests in equalities.items():
        default = next((x for x in _lift_range(top.types.get(name)) if all(
            _subject_value(t, x, scope) not in t.sides for t in tests)), None)
        found[name].update(() if default is None else (default,))
    return {name: tuple(sorted(values)) for name, values in found.items()}


# The values from 0 up that a subject is tried at (:func:`_lifted`).
LIFT_LIMIT = 1024


@dataclass(frozen=True, slots=True)
class _Test:
    """A test of a top parameter ``name`` against constants: ``subject``, the
    expression of ``name`` it reads (``mode``, ``mode & 7``); ``sides``, the subject's
    values that together take every side of it (a switch's labels, ``c`` of ``==``;
    ``c - 1`` and ``c`` of ``<``); ``equality``: it tells those values from the others
    (a default value takes its remaining side)."""

    name: str
    subject: N.Node
    sides: tuple[int, ...]
    equality: bool


# A relational test ``subject op c`` -> the offsets from ``c`` of the subject values on
# either side of its boundary.
BOUNDARY_OFFSETS = {"<": (-1, 0), ">=": (-1, 0), "<=": (0, 1), ">": (0, 1)}
REVERSED = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "==": "==", "!=": "!="}


def _tests(node: N.Node, scope: Scope, names: frozenset[str]):
    """The :class:`_Test` ``node`` is, of a subject that reads one of ``names`` and
    nothing else: ``switch (subject)`` (its labels), ``subject == c``, ``subject !=
    c``, ``subject < c`` (and ``<=``, ``>``, ``>=``), or one of those reversed."""
    if isinstance(node, N.Switch):
        labels = tuple(value for arm in switch_arms(node) for label in arm.values
                       if (value := fold(label, scope)) is not None)
        name = _subject_name(node.cond, names)
        if name is not None and labels:
            yield _Test(name, node.cond, labels, True)
    elif isinstance(node, N.BinaryOp) and node.op in REVERSED:
        for one, other, op in ((node.left, node.right, node.op),
                               (node.right, node.left, REVERSED[node.op])):
            name = _subject_name(one, names)
            if name is not None and (value := fold(other, scope)) is not None:
                offsets = BOUNDARY_OFFSETS.get(op, (0,))
                yield _Test(name, one, tuple(value + k for k in offsets),
                            op in ("==", "!="))


def _subject_name(node: N.Node, names: frozenset[str]) -> str | None:
    """The one name of ``names`` that ``node`` reads, when it reads no other name."""
    read = N.identifiers(node)
    return next(iter(read)) if len(read) == 1 and read <= names else None


def _subject_value(test: _Test, value: int, scope: Scope) -> int | None:
    """``test``'s subject where its parameter is ``value`` (None: C leaves it
    undefined, or it is no constant)."""
    try:
        return fold(test.subject, Scope(constants={**scope.constants, test.name: value}))
    except KernelError:  # a division by zero, a shift out of range
        return None


def _lift_range(ctype: N.IntType | None) -> range:
    """The values from 0 up that a parameter of type ``ctype`` is tried at."""
    high = LIFT_LIMIT if ctype is None else min(LIFT_LIMIT, ctype.high + 1)
    return range(0, high)


def _lifted(test: _Test, side: int, top: _Top, scope: Scope) -> int | None:
    """A value of ``test``'s parameter (within its type) at which its subject is
    ``side``: ``side`` itself where it is, else the least from 0 (up to
    :data:`LIFT_LIMIT`); None where none is."""
    ctype = top.types.get(test.name)
    if (ctype is None or ctype.low <= side <= ctype.high) and \
            _subject_value(test, side, scope) == side:
        return side
    return next((x for x in _lift_range(ctype) if _subject_value(test, x, scope) == side),
                None)


def _data_dependent(node: N.Node, branches: set) -> N.Node | None:
    """The condition of ``node`` where it is an ``if`` whose ``ir.If`` is at one of the
    places ``branches``, ``node`` itself where it is a ``switch`` one of whose arms'
    ``ir.If`` is; else None."""
    if isinstance(node, N.If) and node.coord in branches:
        return node.cond
    if isinstance(node, N.Switch) and any(arm.label.coord in branches
                                          for arm in switch_arms(node)):
        return node
    return None


def _looped_branches(nodes: tuple[ir.Node, ...], looped: bool = False):
    """The places of the data-dependent ``if``s (no case chain's) in a pipelined or
    unrolled loop among ``nodes`` (``looped``: they are in one)."""
    for node in nodes:
        if isinstance(node, ir.If):
            if looped and node.cond is None and (
                    node.lane_key is None or node.lane_key[0] != "case"):
                yield node.coord
            yield from _looped_branches(node.then + node.orelse, looped)
        elif isinstance(node, ir.Loop):
            yield from _looped_branches(node.body, looped or node.pipeline_ii is not None
                                        or node.unroll is not None)


def _ifs(nodes: tuple[ir.Node, ...]):
    for node in nodes:
        if isinstance(node, ir.If):
            yield node
            yield from _ifs(node.then + node.orelse)
        elif isinstance(node, ir.Loop):
            yield from _ifs(node.body)

