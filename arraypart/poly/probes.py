"""Size values at which every pipelined loop runs: ``with_probes(kernel) -> kernel``.

The testbench drives each run-time size at its least, middle and largest values, in
three calls (the *usual points*, :meth:`..ir.Param.usual`), and the checker replays
each of them.  A loop that a guard keeps to a window of values (``if (s > 1000 &&
s < 1064)`` with ``s`` in ``-1..1064``) runs at none of them, so neither checks it.  For each
pipelined loop, its parameter set

    P(loop) = { sizes : some iteration of the loop runs at them, each size in its range }

(the loop's isl domain projected onto the sizes) is tested against the usual points
and the probes chosen so far; where it holds none, one of its points is added, a
middle one (:func:`_middle`).  The k-th probe of every size together make the k-th
point (``Param.probes``): one more testbench call, and one more point the checker
replays (:func:`..check.frames.checked_points`), each.
A loop whose ``P`` is empty runs at no value in the ranges: a located warning says it
is dead code there, never run.  (Where it runs at other values that the sizes' types,
bounds and guards allow, each reference inside its array, :mod:`.cover` has made that
a located error already: the ranges miss where it runs.)
"""

from __future__ import annotations

from dataclasses import replace

from .. import ir
from ..errors import warning_text
from . import isl_glue as G
from .domains import Context, walk_loops


def with_probes(kernel: ir.Kernel) -> ir.Kernel:
    """``kernel`` with the probes (module doc) of its sizes, and a warning per dead
    pipelined loop."""
    if not kernel.params:
        return kernel
    names = tuple(p.name for p in kernel.params)
    points = _usual_points(kernel)
    probes: list[tuple[int, ...]] = []
    dead: list[str] = []
    for loop, ctx, _ in walk_loops(kernel.body, Context.top(kernel.params)):
        if loop.pipeline_ii is None:
            continue
        domain = ctx.enter_loop(loop).domain
        sizes = domain.project_out(G.SET, len(names), domain.dim(G.SET) - len(names))
        if sizes.is_empty():
            dead.append(warning_text(loop.coord, (
                f"loop {loop.name} runs at no value of the run-time sizes in their "
                f"ranges ({_ranges(kernel.params)}): it is dead code there, and neither "
                "the testbench nor the checker runs it (its II is the isl proof's)")))
            continue
        if any(not G.fixed(sizes, point).is_empty() for point in points + probes):
            continue
        probe = _middle(sizes, names)
        if probe is not None:
            probes.append(probe)
    params = tuple(replace(p, probes=tuple(probe[k] for probe in probes))
                   for k, p in enumerate(kernel.params))
    return replace(kernel, params=params, warnings=kernel.warnings + tuple(dead))


def _usual_points(kernel: ir.Kernel) -> list[tuple[int, ...]]:
    """The sizes' values in each of the testbench's usual calls (``Param.usual``),
    which the checker replays too."""
    starts = ir.starts(kernel)
    return [tuple(p.usual(call, p.name in starts) for p in kernel.params)
            for call in (1, 2, 3)]


def _middle(sizes, names: tuple[str, ...]) -> tuple[int, ...] | None:
    """A point of the non-empty set ``sizes``, size by size ``(min + max) // 2`` of
    the values left with the sizes before it fixed (where that value is a hole of the
    set, the least one left); None where a size has no least or largest value."""
    chosen: list[int] = []
    for name in names:
        low, high = G.smallest(sizes, name), G.largest(sizes, name)
        if low is None or high is None:
            return None
        value = (low + high) // 2
        if G.fixed(sizes, chosen + [value]).is_empty():
            value = G.first_point(sizes)[name]
        chosen.append(value)
        sizes = G.fixed(sizes, chosen)
    return tuple(chosen)


def _ranges(params: tuple[ir.Param, ...]) -> str:
    return ", ".join(f"{p.name} in {p.low}..{p.high}" for p in params)
