"""Whether the ranges found for the run-time sizes cover every call:
``check_covered(kernel, allowed, bad, periodic, stated)``, a located error where they
do not.

:mod:`.sizes` bounds the open sizes by the arrays they index, one size at a time, to a
box ``B`` of ranges.  The calls that have a meaning are

    L = A \\ Bad

(``A``: the box the sizes' types, bounds and guards allow; ``Bad``: the size vectors
at which some reference leaves its array).  ``B`` lies in ``L``, but ``L`` need not be
a box (``buf[a + b]``: ``a + b <= 15``, a triangle), and the banking proof, the checker
and the testbench cover ``B`` only.  With ``c`` the clamp into ``B`` (each size moved
to the nearest value of its range; one that nothing bounds, whose claim covers every
value from its least up, moved up to that least only; one whose accesses repeat every
``P`` values of it, whose claim covers every value, not moved), a call ``q`` of ``L`` is
covered when, for each access ``R`` inside a pipelined or unrolled loop (those that
share cycles),

    R(q) ⊆ R(c(q))     (R(q): the iterations that make the access at q, each with its
                        address where the array is on chip; an off-chip bundle, a FIFO
                        or a register port counts transfers, whatever their address)

Then every two accesses made in one cycle at ``q`` are made in one cycle, at the same
addresses, at ``c(q)``, a point of ``B``: a banking proven free of conflicts over ``B``
is free of them at ``q``, and an II that holds there holds at ``q``.  Inside ``B``,
``c(q) = q``.  Outside, the clamp takes the arguments the sizes pass already made
along one size: a size whose accesses settle above ``H`` (replayed to ``H + 1``), a
signed size below the least value at which its accesses change, a loop start held at
its least value (a larger one only drops iterations).  What it adds is the joint
check: each size was widened with the others held in the box, which misses the calls
where several leave it together.  (Where a warning says a size's range stops short of
larger values that keep every reference inside, :func:`.sizes._gap_warning`, ``L``
keeps that size in its range: the warning has said so.)

The set ``{ q in L : R(q) not in R(c(q)) }`` is ``R`` minus ``R`` pulled back by ``c``
(isl), projected onto the sizes; where it holds a point for some access, the ranges
miss calls whose accesses differ: a located error at that access, naming the point
and what to add (an assert, ``-D ARRAYPART_MAX_<size>=``, a guard that returns).
"""

from __future__ import annotations

from typing import Iterator

from .. import ir
from ..errors import KernelError
from ..frontend.fresh import NAME_MARK
from ..frontend.interfaces import MAX_DEFINE_PREFIX
from . import isl_glue as G
from .domains import Context, level_items


def check_covered(kernel: ir.Kernel, allowed: tuple[ir.Param, ...], bad,
                  periodic: set[str], stated: set[str]) -> None:
    """Raise a located error when a call of ``L`` (module doc) makes an access that its
    clamp into the ranges of ``kernel.params`` does not make; ``allowed``: the sizes
    as their types, bounds and guards allow them, ``bad``: the set ``Bad`` over them;
    ``periodic``: the sizes whose claim covers every value (the on-chip accesses repeat
    every ``P`` values of them, or none depends on them), which are not clamped;
    ``stated``: the sizes whose range a warning already says stops short of larger
    values in ``L`` (:func:`.sizes._gap_warning`), held to their ranges in ``L``."""
    names = tuple(p.name for p in kernel.params)
    box = {p.name: (p.low, None if p.unbounded else p.high) for p in kernel.params
           if p.name not in periodic}
    meant = G.universe(names).subtract(bad)
    for p in kernel.params:
        if p.name in stated:
            meant = meant.intersect(G.range_set(meant.space, p.name, p.low, p.high))
    on_chip = {a.name for a in kernel.arrays if a.memory}
    for access, ctx, loop in _shared_cycles(kernel.body, Context.top(allowed)):
        index = access.index if access.array in on_chip else ()
        relation = G.access_map(ctx.domain, index, access.array)
        moved = {n: ends for n, ends in box.items() if G.depends_on(relation, n)}
        if not moved:
            continue  # R(q) = R(c(q)): c moves only sizes R does not read
        pulled = relation.preimage_domain_multi_pw_aff(
            G.clamped(relation.get_space().domain(), moved))
        missed = relation.subtract(pulled).domain()
        calls = missed.project_out(G.SET, len(names), missed.dim(G.SET) - len(names))
        calls = calls.intersect(meant)
        if not calls.is_empty():
            raise _uncovered(kernel, access, loop, _nearest(calls, box))


def _shared_cycles(body: tuple[ir.Node, ...], ctx: Context, timed: ir.Loop | None = None
                   ) -> Iterator[tuple[ir.Access, Context, ir.Loop]]:
    """The accesses of ``body`` inside a pipelined or unrolled loop, each with the
    context it runs in and the outermost such loop (``timed``: the one ``body`` is
    inside)."""
    for item, item_ctx in level_items(body, ctx):
        if isinstance(item, ir.Access):
            if timed is not None:
                yield item, item_ctx, timed
        else:
            starts = item.pipeline_ii is not None or item.unroll is not None
            yield from _shared_cycles(item.body, item_ctx.enter_loop(item),
                                      timed or (item if starts else None))


def _nearest(calls, box: dict[str, tuple[int | None, int | None]]) -> dict[str, int]:
    """A point of the non-empty set ``calls`` near ``box``, a witness the user
    recognises: size by size, the value nearest its range (the least one in it, else
    the largest one below or the least one above, the nearer) with the sizes before
    it fixed; any value of it where it has none of those (no end)."""
    point: dict[str, int] = {}
    for name in G.dim_names(calls):
        low, high = box.get(name, (None, None))
        values = G.project_onto(calls, name)
        near = [v for part, pick in (((low, high), G.smallest), ((None, low), G.largest),
                                     ((high, None), G.smallest))
                if not (found := values.intersect(G.range_set(values.space, name, *part))
                        ).is_empty() and (v := pick(found, name)) is not None]
        point[name] = min(near, key=lambda v: (_distance(v, low, high), v)) if near \
            else values.sample_point().get_coordinate_val(G.SET, 0).to_python()
        calls = calls.intersect(G.range_set(calls.space, name, point[name], point[name]))
    return point


def _distance(v: int, low: int | None, high: int | None) -> int:
    """How far ``v`` lies out of ``[low, high]`` (an open end: none that side)."""
    return max(0 if low is None else low - v, 0 if high is None else v - high, 0)


def _uncovered(kernel: ir.Kernel, access: ir.Access, loop: ir.Loop,
               point: dict[str, int]) -> KernelError:
    """The located error at ``access`` (in ``loop``), made at ``point`` and not at its
    clamp into the sizes' ranges; an assert that would hold such calls out, one
    comparison per size out of its range (a fresh size, which the source does not
    name, left out of the text)."""
    named = [p for p in kernel.params if NAME_MARK not in p.name] or list(kernel.params)
    at = ", ".join(f"{p.name} = {point[p.name]}" for p in named)
    ranges = ", ".join(f"{p.name} from {p.low} up" if p.unbounded else
                       f"{p.name} in {p.low}..{p.high}" for p in named)
    out = [f"{p.name} >= <least>" if point[p.name] < p.low else f"{p.name} <= <largest>"
           for p in named
           if _distance(point[p.name], p.low, None if p.unbounded else p.high) > 0]
    return KernelError(access.coord, (
        f"at {at}, a call in which every reference stays inside its array, loop "
        f"{loop.name} makes this access to {access.array}, which no call in the ranges "
        f"arraypart found for the run-time sizes one at a time ({ranges}) makes, so its "
        f"banking would be neither proved nor checked there: state the range of each "
        f"size the kernel takes (an assert such as assert({' && '.join(out)}), "
        f"-D {MAX_DEFINE_PREFIX}<size>=, or a guard that returns)"))
