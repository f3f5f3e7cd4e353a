"""Run-time sizes bounded by the arrays they index: ``bound_sizes(kernel) -> kernel``.

A size ``p`` that no ``LOOP_TRIPCOUNT`` or ``-D`` bounds may still only take values for
which every reference stays inside its array: C gives a reference outside its array no
meaning.  With ``Bad`` the set of size vectors for which some regular reference leaves
its array somewhere in its iteration domain, ``p`` is bounded by

    high(p) = min { v : (.., p = v, ..) in Bad } - 1

and the box ``low <= p <= high(p)`` (every open size at once) meets no point of ``Bad``:
each point of ``Bad`` has some ``p`` at or above its minimum.
"""

from __future__ import annotations

from dataclasses import replace

from .. import ir
from ..errors import KernelError
from . import isl_glue as G
from .build import outside_set
from .domains import access_relations

DEFINE_PREFIX = "ARRAYPART_MAX_"  # the -D that bounds a size (frontend.interfaces)


def bound_sizes(kernel: ir.Kernel) -> ir.Kernel:
    """``kernel`` with every size bounded (itself when all are); a located error for a
    size that nothing bounds."""
    open_sizes = [p for p in kernel.params if p.high is None]
    if not open_sizes:
        return kernel
    names = tuple(p.name for p in kernel.params)
    bad = G.empty(names)
    witness: dict[str, str] = {}
    for relation in access_relations(kernel):
        array = kernel.array(relation.access.array)
        domain = relation.domain
        for e, size in zip(relation.access.index, array.shape):
            if e is None:
                continue
            outside = domain.intersect(outside_set(e, size, domain.space))
            sizes = outside.project_out(G.SET, len(names), outside.dim(G.SET) - len(names))
            for p in open_sizes:
                if not G.project_onto(sizes, p.name).is_empty():
                    witness.setdefault(p.name, f"the extent of {array.name} at "
                                               f"{relation.access.coord}")
            bad = bad.union(sizes)
    return replace(kernel, params=tuple(
        _bounded(p, bad, witness) if p.high is None else p for p in kernel.params))


def _bounded(p: ir.Param, bad, witness: dict[str, str]) -> ir.Param:
    values = G.project_onto(bad, p.name)
    if values.is_empty():
        raise KernelError(p.coord, (
            f"run-time size '{p.name}' bounds loops or indices but nothing bounds it: add "
            f"'#pragma HLS LOOP_TRIPCOUNT max=<trips>' to a loop it bounds, or give "
            f"-D {DEFINE_PREFIX}{p.name}=<largest value>"))
    high = G.first_point(values)[p.name] - 1
    if high < p.low:
        raise KernelError(p.coord, (
            f"run-time size '{p.name}': {witness[p.name]} is exceeded for every value "
            f"from {p.low} up"))
    return replace(p, high=high, source=witness[p.name])
