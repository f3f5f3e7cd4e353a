"""Run-time sizes bounded by the arrays they index: ``bound_sizes(kernel) -> kernel``.

A size ``p`` that no ``LOOP_TRIPCOUNT`` or ``-D`` bounds may still only take values for
which every reference stays inside its array: C gives a reference outside its array no
meaning.  With ``Bad`` the set of size vectors for which some regular reference leaves
its array somewhere in its iteration domain, ``p`` is bounded by

    high(p) = min { v : (.., p = v, ..) in Bad } - 1

and the box ``low <= p <= high(p)`` (every open size at once) meets no point of ``Bad``:
each point of ``Bad`` has some ``p`` at or above its minimum.

A size that only ``if`` conditions use (``if (i < n)``) and nothing bounds is dropped
instead: the conditions on it become data dependent (both branches may run), a safe
over-approximation for every value of it.
"""

from __future__ import annotations

from dataclasses import replace

from .. import expr as E
from .. import ir
from ..errors import KernelError
from . import isl_glue as G
from .build import outside_set
from .domains import access_relations

DEFINE_PREFIX = "ARRAYPART_MAX_"  # the -D that bounds a size (frontend.interfaces)


def bound_sizes(kernel: ir.Kernel) -> ir.Kernel:
    """``kernel`` with every size bounded (itself when all are); a located error for a
    size that nothing bounds."""
    kernel = _without_guard_sizes(kernel)
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
        define = f", or give -D {DEFINE_PREFIX}{p.name}=<largest value>" if (
            p.name.isidentifier()) else ""
        raise KernelError(p.coord, (
            f"run-time size '{p.name}' bounds loops or indices but nothing bounds it: add "
            f"'#pragma HLS LOOP_TRIPCOUNT max=<trips>' to a loop it bounds{define}"))
    high = G.first_point(values)[p.name] - 1
    if high < p.low:
        raise KernelError(p.coord, (
            f"run-time size '{p.name}': {witness[p.name]} is exceeded for every value "
            f"from {p.low} up"))
    return replace(p, high=high, source=witness[p.name])


def with_sizes_of(kernel: ir.Kernel, bounded: ir.Kernel) -> ir.Kernel:
    """``kernel`` (another reading of ``bounded``'s text, such as its emitted form) with
    ``bounded``'s sizes: the same ranges, the same sizes dropped."""
    kept = {p.name for p in bounded.params}
    dropped = {p.name for p in kernel.params} - kept
    return replace(kernel, body=_forget(kernel.body, dropped), params=bounded.params)


def _without_guard_sizes(kernel: ir.Kernel) -> ir.Kernel:
    """``kernel`` without the unbounded sizes that no loop bound or index uses, their
    conditions made data dependent (module doc)."""
    used = _bound_or_index_variables(kernel.body)
    dropped = {p.name for p in kernel.params if p.high is None and p.name not in used}
    if not dropped:
        return kernel
    return replace(kernel, body=_forget(kernel.body, dropped),
                   params=tuple(p for p in kernel.params if p.name not in dropped))


def _bound_or_index_variables(nodes: tuple[ir.Node, ...]) -> set[str]:
    used: set[str] = set()
    for node in nodes:
        if isinstance(node, ir.Loop):
            used |= set().union(*(E.variables(e) for e in node.init + node.bound))
            used |= _bound_or_index_variables(node.body)
        elif isinstance(node, ir.If):
            used |= _bound_or_index_variables(node.then + node.orelse)
        else:
            used |= set().union(*(E.variables(e) for a in node.accesses
                                  for e in a.index if e is not None))
    return used


def _forget(nodes: tuple[ir.Node, ...], names: set[str]) -> tuple[ir.Node, ...]:
    """``nodes`` with every condition that mentions one of ``names`` data dependent."""
    out: list[ir.Node] = []
    for node in nodes:
        if isinstance(node, ir.Loop):
            node = replace(node, body=_forget(node.body, names))
        elif isinstance(node, ir.If):
            mentions = any(E.variables(c.expr) & names for conj in node.cond or ()
                           for c in conj)
            node = replace(node, cond=None if mentions else node.cond,
                           then=_forget(node.then, names), orelse=_forget(node.orelse, names))
        out.append(node)
    return tuple(out)
