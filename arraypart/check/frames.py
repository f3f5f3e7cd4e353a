"""Concrete iteration tables: the steps and lanes of a loop nest as numpy arrays.

A :class:`Frame` is the set of dynamic instances of one program point, laid out as a
table of *steps* (rows, in execution order) by *lanes* (columns: the unrolled copies
that run concurrently within a step).  Entering a loop with *block width* ``u``::

    ordinal n = b*u + k          (b: the block, a new step; k < u: a new lane)
    value     = start + n*step   executes iff n < count

where ``start`` and ``count`` are the loop's first value and trip count (ir.Loop):

    step > 0:  start = max(init), count = max(0, floor((min(bound) - start) / step) + 1)
    step < 0:  start = min(init), count = max(0, floor((start - max(bound)) / -step) + 1)

``u = 1`` is a sequential loop (one step per iteration, all lanes in lockstep: lane
``l`` runs its own ``b``-th iteration), ``u > 1`` a partially unrolled one, and a
fully unrolled loop has a single block as wide as its largest trip count.  Rows and
columns are expanded with ``np.repeat``; no Python loop runs per iteration.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import reduce
from itertools import product
from typing import Callable, Iterator, Mapping

import numpy as np

from .. import expr as E
from .. import ir


@dataclass(frozen=True, eq=False)
class Frame:
    """Steps x lanes at one program point.

    ``env[v]`` is iterator v's value, broadcastable to ``(rows, lanes)``; ``mask``
    ``(rows, lanes)`` is True where the lane executes; ``order`` are ``(rows,)``
    columns whose lexicographic order is execution order; ``point`` names each step's
    iteration vector: ``(iterator, (rows,) value of lane 0 at the block's start)``.
    """

    rows: int
    lanes: int
    env: Mapping[str, np.ndarray]
    mask: np.ndarray
    order: tuple[np.ndarray, ...] = ()
    point: tuple[tuple[str, np.ndarray], ...] = ()


def top_frame(params: tuple[ir.Param, ...] = ()) -> Frame:
    """The kernel's body before any loop: one step per point of the run-time sizes
    that the checker replays (:func:`checked_points`), in order."""
    points = checked_points(params)
    rows = len(points)
    columns = [points[:, k] for k in range(len(params))]
    env = {p.name: c[:, None] for p, c in zip(params, columns)}
    order = (np.arange(rows, dtype=np.int64),) if params else ()
    point = tuple((p.name, c) for p, c in zip(params, columns))
    return Frame(rows, 1, env, np.ones((rows, 1), dtype=bool), order, point)


def checked_points(params: tuple[ir.Param, ...]) -> np.ndarray:
    """The points of the run-time sizes the checker replays, one row each (a column
    per size) in lexicographic order: every combination of their
    :func:`checked_values`, and the probe points (the k-th probe of every size,
    ``Param.probes``), at which a pipelined loop runs that the testbench's usual calls
    miss.  For n sizes and k probes that is at most 3^n + k rows: a probe is a point
    where some loop runs, replayed as that point, not as k more values of each size
    combined with every value of the others ((3 + k)^n rows before)."""
    if not params:
        return np.empty((1, 0), np.int64)
    grid = np.array(list(product(*(checked_values(p) for p in params))), np.int64)
    probes = np.array(list(zip(*(p.probes for p in params))), np.int64)
    return np.unique(np.concatenate([grid, probes.reshape(-1, len(params))]), axis=0)


def checked_values(param: ir.Param) -> tuple[int, ...]:
    """The values of a run-time size the checker combines with the others': its least,
    middle and largest (a banking proven by isl holds for all of them; the replay is
    a second opinion at the extremes, where the domains differ most, and in
    between)."""
    return tuple(sorted({param.low, (param.low + param.high) // 2, param.high}))


def values(frame: Frame, e: E.Expr) -> np.ndarray:
    """``e`` evaluated on every cell, as a ``(rows, lanes)`` (broadcast) int64 array."""
    return np.broadcast_to(E.evaluate(e, frame.env), (frame.rows, frame.lanes))


def condition(frame: Frame, cond: tuple[ir.Conjunction, ...]) -> np.ndarray:
    """Where a DNF guard holds: OR of conjunctions of ``expr >= 0`` / ``expr == 0``."""
    holds = np.zeros((frame.rows, frame.lanes), dtype=bool)
    for conjunction in cond:
        part = np.ones((frame.rows, frame.lanes), dtype=bool)
        for c in conjunction:
            v = values(frame, c.expr)
            part &= (v >= 0) if c.op == ">=" else (v == 0)
        holds |= part
    return holds


def restrict(frame: Frame, where: np.ndarray) -> Frame:
    return replace(frame, mask=frame.mask & where)


def with_order(frame: Frame, column: int) -> Frame:
    """``frame`` with a constant order column appended (a program position)."""
    return replace(frame, order=frame.order + (np.full(frame.rows, column, np.int64),))


def trip(frame: Frame, loop: ir.Loop) -> tuple[np.ndarray, np.ndarray]:
    """``(start, count)`` of ``loop`` on every cell (formulas in the module doc)."""
    inits = [values(frame, e) for e in loop.init]
    bounds = [values(frame, e) for e in loop.bound]
    if loop.step > 0:
        start = reduce(np.maximum, inits)
        span = reduce(np.minimum, bounds) - start
    else:
        start = reduce(np.minimum, inits)
        span = start - reduce(np.maximum, bounds)
    count = np.maximum(span // abs(loop.step) + 1, 0)
    return np.broadcast_to(start, (frame.rows, frame.lanes)), count


def blocks_per_row(frame: Frame, count: np.ndarray, width: int) -> np.ndarray:
    """Steps each row expands into: the most blocks any of its live lanes needs."""
    return np.where(frame.mask, -(-count // width), 0).max(axis=1)


def full_width(frame: Frame, count: np.ndarray) -> int:
    """Lanes of a fully unrolled loop: its largest live trip count (at least 1)."""
    return max(1, int(count[frame.mask].max(initial=0)))


def enter(frame: Frame, loop: ir.Loop, width: int | None, *, keep_rows: bool,
          blocks_from: tuple[int, int] | None = None) -> Frame:
    """The frame of ``loop``'s body.

    ``width`` lanes per block (None: fully unrolled, one block).  A fully unrolled
    loop keeps every row when ``keep_rows`` (inside a concurrent loop the step exists
    even where the loop runs zero times); otherwise rows where nothing runs vanish.
    A blocked loop adds its block ordinal to ``order`` and its value to ``point``.
    ``blocks_from = (b0, b1)`` keeps only blocks ``b0 <= b < b1`` of every row (a
    piece of a long loop; see :func:`enter_pieces`).
    """
    start, count = trip(frame, loop)
    if width is None:
        width = full_width(frame, count)
        live = np.ones(frame.rows, bool) if keep_rows else frame.mask.any(axis=1)
        blocks = live.astype(np.int64)
        timed = False
    else:
        blocks = blocks_per_row(frame, count, width)
        timed = True
    first = 0
    if blocks_from is not None:
        first, last = blocks_from
        blocks = np.clip(blocks - first, 0, last - first)
    rows = np.repeat(np.arange(frame.rows), blocks)
    block = first + np.arange(rows.size) - np.repeat(np.cumsum(blocks) - blocks, blocks)
    lane = np.tile(np.arange(width, dtype=np.int64), frame.lanes)[None, :]
    ordinal = block[:, None] * width + lane
    count = _spread(_rows(count, rows), width)
    value = _spread(_rows(start, rows), width) + ordinal * loop.step
    env = {v: _spread(_rows(a, rows), width) for v, a in frame.env.items()}
    env[loop.var] = value
    mask = _spread(frame.mask[rows], width) & (ordinal < count)
    order = tuple(c[rows] for c in frame.order)
    point = tuple((v, c[rows]) for v, c in frame.point)
    if timed:
        order += (block,)
        point += ((loop.var, np.broadcast_to(value, mask.shape)[:, 0]),)
    return Frame(int(rows.size), frame.lanes * width, env, mask, order, point)


def enter_pieces(frame: Frame, loop: ir.Loop, width: int | None, *, keep_rows: bool,
                 budget: Callable[[], int]) -> Iterator[Frame]:
    """:func:`enter` in execution order, in pieces of about ``budget()`` rows each
    (asked before every piece, so the caller may shrink it as it learns the cost of a
    row): consecutive rows of ``frame`` whose blocks fit together, and a row with
    more blocks than that in ranges of its blocks.  So a loop of 4x10^8 iterations
    is never a table of 4x10^8 rows.  A fully unrolled loop adds no rows: one piece
    per ``budget()`` rows of ``frame``."""
    if width is None:
        lo = 0
        while lo < frame.rows:
            hi = min(frame.rows, lo + max(1, budget()))
            yield enter(take_rows(frame, lo, hi), loop, None, keep_rows=keep_rows)
            lo = hi
        return
    _, count = trip(frame, loop)
    blocks = blocks_per_row(frame, count, width)
    ends = np.cumsum(blocks)
    lo = 0
    while lo < frame.rows:
        size = max(1, budget())
        if blocks[lo] > size:
            first = 0
            while first < blocks[lo]:
                last = min(int(blocks[lo]), first + max(1, budget()))
                yield enter(take_rows(frame, lo, lo + 1), loop, width, keep_rows=keep_rows,
                            blocks_from=(first, last))
                first = last
            lo += 1
            continue
        base = int(ends[lo - 1]) if lo else 0
        hi = max(lo + 1, int(np.searchsorted(ends, base + size, side="right")))
        if ends[hi - 1] > base:
            yield enter(take_rows(frame, lo, hi), loop, width, keep_rows=keep_rows)
        lo = hi


def take_rows(frame: Frame, lo: int, hi: int) -> Frame:
    """Rows ``lo:hi`` of ``frame`` (a chunk of steps)."""
    env = {v: a if a.shape[0] == 1 else a[lo:hi] for v, a in frame.env.items()}
    return Frame(hi - lo, frame.lanes, env, frame.mask[lo:hi],
                 tuple(c[lo:hi] for c in frame.order),
                 tuple((v, c[lo:hi]) for v, c in frame.point))


def _rows(a: np.ndarray, rows: np.ndarray) -> np.ndarray:
    return a if a.shape[0] == 1 else a[rows]


def _spread(a: np.ndarray, width: int) -> np.ndarray:
    """Each lane column repeated ``width`` times (lane-invariant columns stay)."""
    return a if width == 1 or a.shape[1] == 1 else np.repeat(a, width, axis=1)
