"""Concurrent loops found in the IR, and their statements' instances as frames.

A *concurrent loop* (DESIGN §2) is an outermost loop that is pipelined, or unrolled
outside any pipeline.  The loops around it are sequential: one step per iteration.
Inside it, a loop is

- fully unrolled (lanes only) when it is inside a pipelined loop or unrolled without
  a factor;
- blocked by its factor ``u`` (steps of ``u`` lanes) when it is the concurrent loop
  itself, a pipelined loop, or partially unrolled;
- sequential (steps, lanes in lockstep) otherwise (inside an unrolled loop only).

A sequential loop around it whose iterator nothing below reads (the path's later
headers, the loop and its body) runs the same steps in each iteration: the walk
enters only its first one and keeps its trip count in the env column
``TRIPS + str(k)`` (k: the loop's order column), so each row stands for as many
entries as the product of those columns (:func:`weights`).

Statements between two timed inner loops form a *run*: one step per row of their
frame.  Runs and timed loops are keyed by their pre-order position in the concurrent
loop, so the order columns ``(..., position, block, ..., run position)`` sort every
step of every run in execution order.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Iterator

import numpy as np

from .. import ir
from . import frames as F

# The lanes of an unrolled loop outside any pipeline issue together in one cycle.
UNROLL_II = 1
#: Env columns of collapsed loops' trip counts (no C identifier starts with '#').
TRIPS = "#trips@"


@dataclass(frozen=True, eq=False)
class Region:
    """A concurrent loop and the path to it: the sequential loops around it and the
    ``if`` branches it lies in, outermost first (``(node, True)`` for a loop or a then
    branch, ``(node, False)`` for an else branch); ``params``: the kernel's run-time
    sizes (the top frame replays their checked values)."""

    loop: ir.Loop
    path: tuple[tuple[ir.Node, bool], ...] = ()
    params: tuple[ir.Param, ...] = ()

    @property
    def target_ii(self) -> int:
        return self.loop.pipeline_ii or UNROLL_II

    @property
    def entry(self) -> F.Frame:
        """The whole frame of the step that enters the loop (one row per entry; for
        small kernels: :func:`entries` streams it)."""
        frames = list(entries(self, lambda: 1 << 62))
        return frames[0] if len(frames) == 1 else _concatenate(frames)

    def depth(self) -> int:
        return len(self.path)


@dataclass(frozen=True, eq=False)
class Emitted:
    """The accesses of one statement (or guard) and the frame they execute in.

    ``scope`` numbers the loop entry whose lanes the frame's columns are (0: the
    concurrent loop's own); ``marks``: the branches ``(id(if), side)`` of the
    data-dependent ``if``s entered since then, outermost first (an affine ``if`` only
    narrows the mask).  Two emissions of one scope lie in different branches of one
    ``if`` instance in a cell (row, lane) when their marks name one ``if`` with two
    sides.  ``at``: the statement's place in the iteration's program order, body
    positions from the concurrent loop down, with a :class:`Digit` after each loop
    unrolled in ``unrolled`` (the frame's columns are their lanes, outermost loop
    most significant, ``widths`` lanes each after the concurrent loop's own
    ``widths[0]``); ``plain``: inside no ``if`` of the concurrent loop
    (:mod:`.forwarding`); ``root``: the concurrent loop, whose lane ``l`` of a step
    runs its iteration ``v + l * step`` (``v`` the step's first)."""

    run: int
    frame: F.Frame
    accesses: tuple[ir.Access, ...]
    scope: int = 0
    marks: tuple[tuple[int, str], ...] = ()
    at: tuple = ()
    unrolled: tuple[ir.Loop, ...] = ()
    widths: tuple[int, ...] = (1,)
    plain: bool = False
    root: ir.Loop | None = None


@dataclass(frozen=True, slots=True)
class Digit:
    """In :attr:`Emitted.at`, a column's lane ordinal in ``Emitted.unrolled[loop]``."""

    loop: int


def _contains_concurrent(nodes: tuple[ir.Node, ...]) -> bool:
    for n in nodes:
        if isinstance(n, ir.Loop) and (ir.concurrent(n) or _contains_concurrent(n.body)):
            return True
        if isinstance(n, ir.If) and _contains_concurrent(n.then + n.orelse):
            return True
    return False


def regions(kernel: ir.Kernel) -> Iterator[Region]:
    """Every concurrent loop in program order, with the path to it and the run-time
    sizes it reads (a size that neither the path nor the loop reads gives every one of
    its values the same steps: replaying them all would repeat one run)."""
    for region in _regions(kernel.body, ()):
        read = ir.variables((region.loop,)).union(
            *(ir.header_variables(node) for node, _ in region.path))
        yield replace(region, params=tuple(p for p in kernel.params if p.name in read))


def _regions(nodes: tuple[ir.Node, ...], path: tuple) -> Iterator[Region]:
    for n in nodes:
        if isinstance(n, ir.Loop) and ir.concurrent(n):
            yield Region(n, path)
        elif isinstance(n, ir.Loop) and _contains_concurrent(n.body):
            yield from _regions(n.body, path + ((n, True),))
        elif isinstance(n, ir.If) and _contains_concurrent(n.then + n.orelse):
            yield from _regions(n.then, path + ((n, True),))
            yield from _regions(n.orelse, path + ((n, False),))


def entries(region: Region, budget: Callable[[], int]) -> Iterator[F.Frame]:
    """The frame of the step that enters ``region``'s loop, in execution order, in
    pieces of about ``budget()`` rows (:func:`.frames.enter_pieces`); the loops of
    :func:`collapsed` at their first iteration (module doc)."""
    yield from _entries(F.top_frame(region.params), region.path, budget,
                        collapsed(region))


def collapsed(region: Region) -> tuple[bool, ...]:
    """Per node of the path: a loop whose iterator nothing after it reads."""
    read = ir.variables((region.loop,))
    out = []
    for node, _ in reversed(region.path):
        out.append(isinstance(node, ir.Loop) and node.var not in read)
        read = read | ir.header_variables(node)
    return tuple(reversed(out))


def weights(frame: F.Frame) -> np.ndarray | None:
    """Per row, the entries it stands for (the product of its collapsed loops' trip
    counts); None when no loop was collapsed."""
    columns = [np.broadcast_to(a[:, 0], (frame.rows,))  # a column may be one row
               for name, a in frame.env.items() if name.startswith(TRIPS)]
    if not columns:
        return None
    return np.prod(columns, axis=0)


def _entries(frame: F.Frame, path: tuple, budget: Callable[[], int],
             collapse: tuple[bool, ...]) -> Iterator[F.Frame]:
    if not path:
        if frame.rows:
            yield frame
        return
    (node, branch), rest = path[0], path[1:]
    if isinstance(node, ir.Loop) and collapse[0]:
        yield from _entries(_first_iteration(frame, node), rest, budget, collapse[1:])
    elif isinstance(node, ir.Loop):
        for piece in F.enter_pieces(frame, node, 1, keep_rows=False, budget=budget):
            yield from _entries(piece, rest, budget, collapse[1:])
    else:
        then, orelse = _branches(frame, node)
        yield from _entries(then if branch else orelse, rest, budget, collapse[1:])


def _first_iteration(frame: F.Frame, loop: ir.Loop) -> F.Frame:
    """``loop``'s first iteration from each row where it runs, its trip count kept."""
    _, count = F.trip(frame, loop)
    live = np.where(frame.mask, count, 0).max(axis=1)
    first = F.enter(frame, loop, 1, keep_rows=False, blocks_from=(0, 1))
    column = f"{TRIPS}{len(first.order) - 1}"
    return replace(first, env={**first.env, column: live[live > 0][:, None]})


def _concatenate(frames: list[F.Frame]) -> F.Frame:
    """Pieces of an entry frame (one lane: only sequential loops lead to it), stacked
    row-wise."""
    if not frames:
        return F.Frame(0, 1, {}, np.ones((0, 1), dtype=bool))

    def stack(arrays):
        return np.concatenate([np.broadcast_to(a, (f.rows, f.lanes))
                               for a, f in zip(arrays, frames)])

    first = frames[0]
    return F.Frame(sum(f.rows for f in frames), first.lanes,
                   {v: stack([f.env[v] for f in frames]) for v in first.env},
                   stack([f.mask for f in frames]),
                   tuple(np.concatenate(c) for c in zip(*(f.order for f in frames))),
                   tuple((v, np.concatenate([dict(f.point)[v] for f in frames]))
                         for v, _ in first.point))


def _branches(frame: F.Frame, node: ir.If) -> tuple[F.Frame, F.Frame]:
    if node.cond is None:
        return frame, frame
    holds = F.condition(frame, node.cond)
    return F.restrict(frame, holds), F.restrict(frame, ~holds)


def root_width(loop: ir.Loop) -> int | None:
    """Lanes per step of the concurrent loop itself (None: all its iterations)."""
    if loop.unroll == 0:
        return None
    return loop.unroll or 1


def root_blocks(region: Region, entry: F.Frame) -> np.ndarray:
    """Steps of the concurrent loop per row of ``entry`` (a piece of its entry frame)."""
    _, count = F.trip(entry, region.loop)
    width = root_width(region.loop)
    if width is None:
        return entry.mask.any(axis=1).astype(np.int64)
    return F.blocks_per_row(entry, count, width)


def root_pieces(region: Region, entry: F.Frame, budget: Callable[[], int]
                ) -> Iterator[F.Frame]:
    """The concurrent loop's own frame (one row per step) entered from ``entry``, in
    pieces of about ``budget()`` steps, in execution order."""
    yield from F.enter_pieces(entry, region.loop, root_width(region.loop),
                              keep_rows=False, budget=budget)


class _Walk:
    """One walk of a concurrent loop's body: pre-order positions, the current run, and
    what each statement emits (state local to one walk)."""

    def __init__(self) -> None:
        self.position = 0
        self.run: int | None = None
        self.emitted: list[Emitted] = []
        self.cells = 0  # table cells of every frame entered (a chunk's memory)
        self.scopes = 0  # loop entries so far
        self.scope = 0
        self.marks: tuple[tuple[int, str], ...] = ()
        # the program-order place (Emitted.at, unrolled, widths, plain)
        self.at: tuple = ()
        self.unrolled: tuple[ir.Loop, ...] = ()
        self.widths: tuple[int, ...] = (1,)
        self.plain = True
        self.root: ir.Loop | None = None

    def nodes(self, nodes: tuple[ir.Node, ...], frame: F.Frame, pipelined: bool) -> None:
        outer = (self.at, self.plain)
        for k, n in enumerate(nodes):
            self.position += 1
            self.at = outer[0] + (k,)
            if isinstance(n, ir.Stmt):
                self.emit(frame, n.accesses)
            elif isinstance(n, ir.If):
                self.plain = False
                self.emit(frame, n.cond_accesses)
                then, orelse = _branches(frame, n)
                self.branch(n, "then", then, pipelined)
                self.branch(n, "else", orelse, pipelined)
            else:
                self.loop(n, frame, pipelined)
            self.at, self.plain = outer

    def branch(self, node: ir.If, side: str, frame: F.Frame, pipelined: bool) -> None:
        outer = self.marks, self.at
        if node.cond is None:
            self.marks = outer[0] + ((id(node), side),)
        self.at = outer[1] + (0 if side == "then" else 1,)
        self.nodes(node.then if side == "then" else node.orelse, frame, pipelined)
        self.marks, self.at = outer

    def emit(self, frame: F.Frame, accesses: tuple[ir.Access, ...]) -> None:
        self.cells += frame.rows * frame.lanes * len(accesses)
        if self.run is None:
            self.run = self.position
        self.emitted.append(Emitted(self.run, frame, accesses, self.scope, self.marks,
                                    self.at, self.unrolled, self.widths, self.plain,
                                    self.root))

    def loop(self, loop: ir.Loop, frame: F.Frame, pipelined: bool) -> None:
        outer = (self.scope, self.marks)
        self.scopes += 1
        self.scope, self.marks = self.scopes, ()
        if pipelined or loop.unroll == 0:
            inner = F.enter(frame, loop, None, keep_rows=True)
            self.cells += inner.rows * inner.lanes * (len(inner.env) + 1)
            around = (self.at, self.unrolled, self.widths)
            self.at += (Digit(len(self.unrolled)),)
            self.unrolled += (loop,)
            self.widths += (inner.lanes // max(1, frame.lanes),)
            self.nodes(loop.body, inner, pipelined or loop.pipeline_ii is not None)
            self.at, self.unrolled, self.widths = around
        else:
            width = loop.unroll or 1
            inner = F.enter(F.with_order(frame, self.position), loop, width,
                            keep_rows=True)
            self.cells += inner.rows * inner.lanes * (len(inner.env) + 1)
            self.run = None
            plain, self.plain = self.plain, False
            self.nodes(loop.body, inner, loop.pipeline_ii is not None)
            self.run, self.plain = None, plain
        self.scope, self.marks = outer


def walk(region: Region, entry: F.Frame) -> tuple[F.Frame, list[Emitted]]:
    """The concurrent loop's own frame (one row per step it takes) entered from
    ``entry`` (a chunk of the region's entry frame), and every statement's emission."""
    loop = region.loop
    inner = F.enter(entry, loop, root_width(loop), keep_rows=False)
    return inner, walk_steps(region, inner)[0]


def walk_steps(region: Region, steps: F.Frame) -> tuple[list[Emitted], int]:
    """Every statement's emission in the concurrent loop's steps ``steps`` (a piece
    of its own frame, :func:`root_pieces`), and the table cells the walk built (the
    frames of the loops it entered and the access instances it emitted)."""
    w = _Walk()
    w.widths, w.root = (steps.lanes,), region.loop
    w.nodes(region.loop.body, steps, region.loop.pipeline_ii is not None)
    return w.emitted, w.cells
