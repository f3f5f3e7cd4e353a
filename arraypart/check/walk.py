"""Concurrent loops found in the IR, and their statements' instances as frames.

A *concurrent loop* (DESIGN §2) is an outermost loop that is pipelined, or unrolled
outside any pipeline.  The loops around it are sequential: one step per iteration.
Inside it, a loop is

- fully unrolled (lanes only) when it is inside a pipelined loop or unrolled without
  a factor;
- blocked by its factor ``u`` (steps of ``u`` lanes) when it is the concurrent loop
  itself, a pipelined loop, or partially unrolled;
- sequential (steps, lanes in lockstep) otherwise (inside an unrolled loop only).

Statements between two timed inner loops form a *run*: one step per row of their
frame.  Runs and timed loops are keyed by their pre-order position in the concurrent
loop, so the order columns ``(..., position, block, ..., run position)`` sort every
step of every run in execution order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import numpy as np

from .. import ir
from . import frames as F

# The lanes of an unrolled loop outside any pipeline issue together in one cycle.
UNROLL_II = 1


@dataclass(frozen=True, eq=False)
class Region:
    """A concurrent loop and the frame of the step that enters it."""

    loop: ir.Loop
    entry: F.Frame

    @property
    def target_ii(self) -> int:
        return self.loop.pipeline_ii or UNROLL_II


@dataclass(frozen=True, eq=False)
class Emitted:
    """The accesses of one statement (or guard) and the frame they execute in."""

    run: int
    frame: F.Frame
    accesses: tuple[ir.Access, ...]


def is_concurrent(loop: ir.Loop) -> bool:
    return loop.pipeline_ii is not None or loop.unroll is not None


def _contains_concurrent(nodes: tuple[ir.Node, ...]) -> bool:
    for n in nodes:
        if isinstance(n, ir.Loop) and (is_concurrent(n) or _contains_concurrent(n.body)):
            return True
        if isinstance(n, ir.If) and _contains_concurrent(n.then + n.orelse):
            return True
    return False


def regions(kernel: ir.Kernel) -> Iterator[Region]:
    """Every concurrent loop in program order, with its entry frame."""
    yield from _regions(kernel.body, F.top_frame(kernel.params))


def _regions(nodes: tuple[ir.Node, ...], frame: F.Frame) -> Iterator[Region]:
    for n in nodes:
        if isinstance(n, ir.Loop) and is_concurrent(n):
            yield Region(n, frame)
        elif isinstance(n, ir.Loop) and _contains_concurrent(n.body):
            yield from _regions(n.body, F.enter(frame, n, 1, keep_rows=False))
        elif isinstance(n, ir.If) and _contains_concurrent(n.then + n.orelse):
            then, orelse = _branches(frame, n)
            yield from _regions(n.then, then)
            yield from _regions(n.orelse, orelse)


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


def root_blocks(region: Region) -> np.ndarray:
    """Steps of the concurrent loop per row of its entry frame."""
    _, count = F.trip(region.entry, region.loop)
    width = root_width(region.loop)
    if width is None:
        return region.entry.mask.any(axis=1).astype(np.int64)
    return F.blocks_per_row(region.entry, count, width)


class _Walk:
    """One walk of a concurrent loop's body: pre-order positions, the current run, and
    what each statement emits (state local to one walk)."""

    def __init__(self) -> None:
        self.position = 0
        self.run: int | None = None
        self.emitted: list[Emitted] = []

    def nodes(self, nodes: tuple[ir.Node, ...], frame: F.Frame, pipelined: bool) -> None:
        for n in nodes:
            self.position += 1
            if isinstance(n, ir.Stmt):
                self.emit(frame, n.accesses)
            elif isinstance(n, ir.If):
                self.emit(frame, n.cond_accesses)
                then, orelse = _branches(frame, n)
                self.nodes(n.then, then, pipelined)
                self.nodes(n.orelse, orelse, pipelined)
            else:
                self.loop(n, frame, pipelined)

    def emit(self, frame: F.Frame, accesses: tuple[ir.Access, ...]) -> None:
        if self.run is None:
            self.run = self.position
        self.emitted.append(Emitted(self.run, frame, accesses))

    def loop(self, loop: ir.Loop, frame: F.Frame, pipelined: bool) -> None:
        if pipelined or loop.unroll == 0:
            inner = F.enter(frame, loop, None, keep_rows=True)
            self.nodes(loop.body, inner, pipelined or loop.pipeline_ii is not None)
            return
        width = loop.unroll or 1
        inner = F.enter(F.with_order(frame, self.position), loop, width, keep_rows=True)
        self.run = None
        self.nodes(loop.body, inner, loop.pipeline_ii is not None)
        self.run = None


def walk(region: Region, entry: F.Frame) -> tuple[F.Frame, list[Emitted]]:
    """The concurrent loop's own frame (one row per step it takes) entered from
    ``entry`` (a chunk of the region's entry frame), and every statement's emission."""
    loop = region.loop
    inner = F.enter(entry, loop, root_width(loop), keep_rows=False)
    w = _Walk()
    w.nodes(loop.body, inner, loop.pipeline_ii is not None)
    return inner, w.emitted
