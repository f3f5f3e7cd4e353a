"""The testbench's values of the top's integer scalars that run-time sizes read.

A run-time size may stand for an expression over the top's scalars: a product ``H*W``
(named by it) or a fresh size ``(n - 1) / 2 + 1@4:23`` (:mod:`..frontend.fresh`).  The
model holds the size's values ``low <= s <= high`` (:class:`..ir.Param`), and the
extents of pointers, hence the testbench's buffers, follow that range; so in every call
the scalars must give each such expression, evaluated with C's semantics, a value in
``[low, high]``.  Call ``c`` drives a scalar with ``SCALAR_INT + c - 1`` and a size
with the end of its range that runs the loops it bounds longest, then the other end,
then midway (:func:`_size_in_call`: a loop's start, whose larger values only shorten
its loops, its ``low`` first, any other size its ``high`` first); where an
expression leaves its range, the scalars and sizes it reads are lowered together to
the largest common value under which it fits (a size not below its ``low``, a scalar
down to 0): ``H, W <= 32`` with ``H*W <= 256`` run at 16 x 16 first.  A scalar that an
``assert`` among the top's statements bounds stays in the asserted range
(:func:`_stepped`): the testbench never breaks what the kernel asserts of its inputs
where arraypart can read the assert.  A scalar the
top writes anywhere is not free: the value the loop reads is not the one passed; yet
one that a loop reads as its end (``if (hi > 63) hi = 63;``) is stepped ``calls`` above
the others, so that a loop between two such scalars runs (:func:`_loop_ends`).
An expression that reads anything else (a local, a callee's parameter) is left as is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Mapping

from .. import expr as E
from .. import ir
from ..errors import KernelError
from ..frontend import cnodes as N
from ..frontend import fresh as F
from ..frontend import interfaces as I
from ..frontend import scalars as S
from ..frontend.cexpr import Scope, fold
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
        try:
            value = self.evaluate(values)
        except KernelError:  # a division by zero
            return False
        low, high = self.param.low, self.param.high
        return value is not None and (low is None or value >= low) and (
            high is None or value <= high)


def driven_values(kernel: Kernel, stepped: frozenset[str], calls: int,
                  first: int) -> dict[str, tuple[int, ...]]:
    """Scalar name -> its value in calls 1..``calls``, for the scalars a size's
    expression would otherwise take out of its range: those of ``stepped`` (driven
    ``first + c - 1`` by default) and the run-time sizes among the top's parameters
    (driven at :func:`_size_in_call`'s values, never below their ``low``); the others
    keep their default."""
    sizes = {p.name: p for p in kernel.params
             if p.name in _parameter_names(kernel) and p.high is not None}
    starts = _starts(kernel)
    adjustable = frozenset(stepped | set(sizes))
    adjustable -= _written(kernel, adjustable)
    asserted = {name: (low, high) for name, (low, high, _) in I.assert_bounds(
        kernel.source.func.body, dict(kernel.defines), sorted(stepped)).items()}
    floors = {name: max(0, (sizes[name].low if name in sizes
                            else asserted.get(name, (0, None))[0]) or 0)
              for name in adjustable}
    expressions = [e for p in kernel.params
                   if (e := _expression(kernel, p, set(adjustable) | set(sizes))) is not None
                   and e.names & adjustable]
    ends = _loop_ends(kernel, stepped, starts)
    driven: dict[str, list[int]] = {}
    changed: set[str] = set(ends)
    for call in range(1, calls + 1):
        default = {name: _stepped(first, call, calls, *asserted.get(name, (None, None)))
                   for name in stepped} | {
            name: _size_in_call(p, floors[name] if name in floors else 0, call,
                                name in starts)
            for name, p in sizes.items()} | {
            name: min(first + call - 1 + calls, high) for name, high in ends.items()}
        values = dict(default)
        for expression in expressions:
            _fit(expression, values, expression.names & adjustable, floors)
        for name in adjustable | set(ends) | set(asserted):
            driven.setdefault(name, []).append(values[name])
            if values[name] != (first + call - 1 if name in stepped else sizes[name].high):
                changed.add(name)
    return {name: tuple(driven[name]) for name in changed}


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


def _loop_ends(kernel: Kernel, stepped: frozenset[str], starts: frozenset[str]
               ) -> dict[str, int]:
    """The ``stepped`` scalars that the top writes before a loop reads them as its end
    (``if (hi > 63) hi = 63; for (i = lo; i < hi; ..)``: a fresh size that is the
    scalar as written, :func:`_starts` tells which end) and as no start -> the least
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


def _size_in_call(size: Param, floor: int, call: int, start: bool) -> int:
    """A run-time size's value in call ``call``: first the end of its range where the
    loops it bounds run longest, its ``high`` (its least value for a ``start``), then
    the other end, then midway; a size without a ``low`` keeps ``high``."""
    if size.low is None:
        return size.high
    low = max(size.low, floor)
    ends = (low, size.high) if start else (size.high, low)
    return (*ends, (low + size.high) // 2)[(call - 1) % 3]


def _starts(kernel: Kernel) -> frozenset[str]:
    """The run-time sizes whose larger values shorten some loop and lengthen none: a
    fresh start (``Param.lower_end``), or one that ``init`` (a loop counting up) or
    ``bound`` (counting down) grows with, or the other one shrinks with: a loop runs
    ``(bound - init) / step + 1`` times (``ir.Loop``)."""
    shortens: set[str] = set()
    lengthens: set[str] = set()
    names = [p.name for p in kernel.params]
    for loop in ir.loops(kernel.body):
        sign = 1 if loop.step > 0 else -1
        for ends, towards in ((loop.init, -sign), (loop.bound, sign)):
            for e in ends:
                for name in names:
                    move = E.difference(e, name, 1)
                    if move:
                        (lengthens if move * towards > 0 else shortens).add(name)
    return frozenset(p.name for p in kernel.params
                     if p.lower_end or (p.name in shortens and p.name not in lengthens))


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


def _expression(kernel: Kernel, param: Param, known: set[str]) -> _SizeExpression | None:
    """``param``'s expression when it reads only names of ``known`` and constants."""
    if F.NAME_MARK in param.name:
        node = _fresh_node(kernel, param.name)
        if node is None or not N.identifiers(node) <= known:
            return None
        return _SizeExpression(param, frozenset(N.identifiers(node)),
                               lambda values: fold(node, Scope(constants=values)))
    words = param.name.split("*")
    if len(words) < 2:
        return None
    names = frozenset(w for w in words if not w.isdigit())
    if not names <= known:
        return None
    return _SizeExpression(param, names, lambda values: math.prod(
        int(w) if w.isdigit() else values[w] for w in words))


def _fresh_node(kernel: Kernel, name: str) -> N.Node | None:
    """The expression in the top's body that the fresh size ``name`` stands for."""
    data = kernel.source.text.encode(errors=KEEP_BYTES)
    return next((n for n in N.walk(kernel.source.func.body)
                 if F.size_name(n, data) == name), None)


def _parameter_names(kernel: Kernel) -> set[str]:
    return {p.name for p in kernel.source.func.params if p.name}


def _written(kernel: Kernel, names: frozenset[str]) -> set[str]:
    callees = {f.name: f for f in kernel.source.callees}
    return S.written(kernel.source.func.body, names, callees)
