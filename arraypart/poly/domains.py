"""Iteration domains and access relations of a kernel's statements.

A statement nested in loops ``L1 .. Lk`` (outermost first) runs on the isl set over
``[p1, .., pm, v1, .., vk]`` (the run-time sizes ``p``, each in its range
``low <= p <= high``, then the iterators) that intersects each loop's constraints (see :mod:`.isl_glue`) with its
enclosing ``if`` guards: ``then`` adds the guard's DNF (a union of conjunctions),
``else`` subtracts it from the enclosing domain, and a non-affine guard (``cond=None``)
restricts neither branch (both may run).  A zero-trip loop gives an empty domain.
The sizes are set dimensions rather than isl parameters: a count, an extremum or an
emptiness proof over such a set covers every value of the sizes at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import islpy as isl

from .. import expr as E
from .. import ir
from . import isl_glue as G


@dataclass(frozen=True, eq=False)
class Context:
    """Where a node of the loop tree runs: the enclosing loops' iterators (outermost
    first) and the set of their values for which control reaches the node."""

    vars: tuple[str, ...]
    domain: isl.Set

    @staticmethod
    def top(params: tuple[ir.Param, ...] = ()) -> "Context":
        """The kernel's body: one dimension per run-time size, within its range (an
        unbounded size only above its least value)."""
        names = tuple(p.name for p in params)
        domain = G.universe(names)
        for p in params:
            domain = domain.intersect(G.range_set(domain.space, p.name, p.low, p.high))
        return Context(names, domain)

    def enter_loop(self, loop: ir.Loop) -> "Context":
        """The context of ``loop``'s body: one more dimension, the loop's constraints."""
        extended = G.add_dim(self.domain, loop.var)
        constraints = G.loop_set(loop, extended.space, loop.var, loop.init, loop.bound)
        return Context(self.vars + (loop.var,), extended.intersect(constraints))

    def branches(self, node: ir.If) -> tuple["Context", "Context"]:
        """The contexts of the ``then`` and ``else`` branches."""
        if node.cond is None:
            return self, self
        taken = self.domain.intersect(G.dnf_set(node.cond, self.domain.space))
        return (Context(self.vars, taken),
                Context(self.vars, self.domain.subtract(taken)))


@dataclass(frozen=True, eq=False)
class AccessRelation:
    """One array reference with its statement's iteration ``domain`` and its
    ``access_map`` ``{ [v1..vk] -> A[index] : [v1..vk] in domain }`` (an irregular
    dimension is unconstrained: any index of that dimension)."""

    access: ir.Access
    domain: isl.Set
    access_map: isl.Map


def reference_text(access: ir.Access) -> str:
    """``A[i + 1][j]`` (``[?]`` for an irregular dimension)."""
    return access.array + "".join(
        "[?]" if e is None else f"[{E.pretty(e)}]" for e in access.index)


def walk_accesses(body: tuple[ir.Node, ...],
                  ctx: Context) -> Iterator[tuple[ir.Access, Context]]:
    """Every access of ``body`` with the context it runs in, in source order (an
    ``if``'s condition reads before its branches)."""
    for item, item_ctx in level_items(body, ctx):
        if isinstance(item, ir.Access):
            yield item, item_ctx
        else:
            yield from walk_accesses(item.body, item_ctx.enter_loop(item))


def level_items(body: tuple[ir.Node, ...], ctx: Context
                ) -> Iterator[tuple[ir.Access | ir.Loop, Context]]:
    """The accesses and loops of one level of ``body`` in source order, each with the
    context it runs in (``if`` branches flattened, its condition's reads first)."""
    for node in body:
        if isinstance(node, ir.Stmt):
            yield from ((a, ctx) for a in node.accesses)
        elif isinstance(node, ir.If):
            yield from ((a, ctx) for a in node.cond_accesses)
            then_ctx, else_ctx = ctx.branches(node)
            yield from level_items(node.then, then_ctx)
            yield from level_items(node.orelse, else_ctx)
        else:
            yield node, ctx


def walk_loops(body: tuple[ir.Node, ...], ctx: Context, outer: tuple[ir.Loop, ...] = ()
               ) -> Iterator[tuple[ir.Loop, Context, tuple[ir.Loop, ...]]]:
    """Every loop of ``body`` with the context it starts in and the loops around it
    (``outer`` and those of ``body``, outermost first), outer loops first."""
    for node in body:
        if isinstance(node, ir.If):
            then_ctx, else_ctx = ctx.branches(node)
            yield from walk_loops(node.then, then_ctx, outer)
            yield from walk_loops(node.orelse, else_ctx, outer)
        elif isinstance(node, ir.Loop):
            yield node, ctx, outer
            yield from walk_loops(node.body, ctx.enter_loop(node), outer + (node,))


def access_relations(kernel: ir.Kernel) -> tuple[AccessRelation, ...]:
    """The access relation of every reference of ``kernel``, in source order."""
    return tuple(
        AccessRelation(access, ctx.domain,
                       G.access_map(ctx.domain, access.index, access.array))
        for access, ctx in walk_accesses(kernel.body, Context.top(kernel.params)))
