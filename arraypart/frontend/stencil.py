"""``#pragma HLS array_stencil variable=X``: reads served by a window buffer.

In a pipelined loop whose body holds the pragma, Vitis HLS reads X through a window
buffer (line buffers and registers): each iteration reads ONE new element of X, in the
loop's order, and the window's reads come from registers (UG1399, "pragma HLS
array_stencil").  Vitis applies it only to its canonical form; arraypart models the
window exactly where all of these hold, and otherwise warns at the pragma and counts
the reads as written:

- the loop is in the top function and pipelined at II 1; X is an array argument of the
  top function, with no ``array_partition`` or ``array_reshape`` (Vitis ignores the
  stencil of a partitioned or reshaped array);
- the loop and the loops around it form a perfect nest with constant bounds, and the
  loop steps by 1 (up or down);
- the loop's own text reads X and never writes it (no call in it takes X);
- every read is affine, with one linear part over the nest's iterators (a fixed window:
  reads differ only in constants and in the iterators of the unrolled loops inside),
  in which the loop's iterator has coefficient +-1 in the last dimension and 0 in the
  others (continuous accesses).

The window reads are then marked ``ir.Access.window``: in one iteration they are one
read of X (the buffer's feed), and X is never partitioned (``ir.Array.stencil``).
"""

from __future__ import annotations

from dataclasses import replace

from .. import expr as E
from ..ir import Access, If, Loop, Node, Stmt
from ..ir import accesses as ir_accesses
from ..ir import loops as ir_loops
from . import cnodes as N

DIRECTIVE = "array_stencil"
UNIT_STEPS = (1, -1)


def refusal(loop: Loop, name: str, ends: list[tuple]) -> str | None:
    """Why the reads of array ``name`` in ``loop`` (pipelined at II 1, of the top
    function, whose text alone touches the array) are not a window, or None when they
    are (module doc); ``ends``: the (init, bound, step) of the loops around it."""
    if any(not _constant(init, bound) for init, bound, _ in ends + [(loop.init, loop.bound, 1)]):
        return "a loop of its nest has bounds that are not constants"
    if loop.step not in UNIT_STEPS:
        return f"loop {loop.name} steps by {loop.step}, not by 1"
    mine = [a for a in ir_accesses(loop.body) if a.array == name]
    if not mine:
        return f"loop {loop.name} does not read {name}"
    if any(a.kind == "write" for a in mine):
        return f"loop {loop.name} writes {name}"
    return _pattern_refusal(loop, mine)


def _pattern_refusal(loop: Loop, reads: list[Access]) -> str | None:
    """The fixed, continuous window rule of the module doc on affine ``reads``."""
    lanes = {inner.var for inner in ir_loops(loop.body)}
    window = None
    for a in reads:
        forms = [None if e is None else E.affine_form(e) for e in a.index]
        if any(f is None for f in forms):
            return f"the read at {a.coord} is not affine"
        linear = tuple(tuple(sorted((v, c) for v, c in coeffs.items() if v not in lanes))
                       for coeffs, _ in forms)
        if window is None:
            window = linear
        elif linear != window:
            return f"the read at {a.coord} is not in one window with the read at {reads[0].coord}"
    steps = [dict(dim).get(loop.var, 0) for dim in window]
    if steps[-1] not in UNIT_STEPS or any(steps[:-1]):
        return (f"its reads are not continuous: the iterator of loop {loop.name} does not "
                "step the last dimension by 1 alone")
    return None


def _constant(init: tuple[E.Expr, ...], bound: tuple[E.Expr, ...]) -> bool:
    return all(isinstance(e, E.Const) for e in init + bound)


def windowed(nodes: tuple[Node, ...], name: str) -> tuple[Node, ...]:
    """``nodes`` with every read of array ``name`` marked a window read."""
    return tuple(_windowed(n, name) for n in nodes)


def _windowed(node: Node, name: str) -> Node:
    if isinstance(node, Stmt):
        return replace(node, accesses=_marked(node.accesses, name))
    if isinstance(node, If):
        return replace(node, then=windowed(node.then, name), orelse=windowed(node.orelse, name),
                       cond_accesses=_marked(node.cond_accesses, name))
    return replace(node, body=windowed(node.body, name))


def _marked(accesses: tuple[Access, ...], name: str) -> tuple[Access, ...]:
    return tuple(replace(a, window=True) if a.array == name else a for a in accesses)


def passed_to_a_call(loop: N.For, c_name: str) -> bool:
    """Whether a call in ``loop``'s text names the array ``c_name`` in an argument."""
    return any(isinstance(n, N.FuncCall) and any(
        isinstance(m, N.Id) and m.name == c_name for arg in n.args for m in N.walk(arg))
        for n in N.walk(loop.stmt))


def perfect_nest(body: N.Compound, loop: N.For) -> bool:
    """Whether the loops of ``body`` around ``loop`` (a loop of it) each hold nothing
    but the next one (pragmas aside)."""
    around = [n for n in N.walk(body) if isinstance(n, N.For) and n is not loop
              and n.start <= loop.start and loop.end <= n.end]
    around.sort(key=lambda n: n.start)
    for outer, inner in zip(around, around[1:] + [loop]):
        items = N.body_items(outer.stmt)
        kept = [n for n in items if not isinstance(n, (N.Pragma, N.Empty))]
        if kept != [inner]:
            return False
    return True
