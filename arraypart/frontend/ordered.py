"""Unrolled loops of calls whose lanes run one after another (``ir.Loop.ordered``).

A fully unrolled loop outside pipelines makes a copy of its body per lane, and the
lanes issue together: the pipelined loops inside them run in lockstep (DESIGN §2).
Where each lane is one call of a function of the kernel, and each lane's call
accesses memory that the previous lane's call writes (``stage(temp[s - 1],
temp[s])``: lane s reads the row that lane s - 1 writes), the HLS tool does not run
the calls at once: it issues a call after the calls whose memory it depends on, and
under ``dataflow`` each call is a process that starts once its producer has
completed its channel (UG1399, "Specifying Arrays as PIPOs or FIFOs").  The lanes are
then iterations in time, each its own copy of the body with the iterator a constant
(a call's argument row is a constant in each call).

Lane k + 1 depends on lane k when a write of one and an access of the other may name
one element: one array (one member, where both name one), and in every dimension
either subscript irregular (``in[f1]``, from the data: nothing tells it apart) or both
one affine form (the lanes' copies are lowered in one context, so the call's own
iterators are one name in each).  Every pair of consecutive lanes must depend so,
which orders all of them.  Lanes stay concurrent (the model's superset) when they do
not, as ``pe(buf[j], out[j])`` on rows of their own, and also where a lane is more
than its call (an access or loop of the unrolled loop's own text, a second call, an
``if`` around the call), the lanes are not a constant run of 2 to
``MAX_PER_LANE_TRIPS``, or an array the lanes access is one no lane writes (a table
that every call reads, which dataflow processes read at once).  Only an on-chip
memory orders them: lanes joined by a stream run at once under ``dataflow``, and an
off-chip bundle is no memory of the banking.

Only a call the HLS tool keeps a function of its own orders its lanes: one it inlines
(``#pragma HLS inline`` in the callee, ``inline recursive`` in a caller, and by itself a
small function without loops, UG1399 "Function Inlining") leaves its operations in the
unrolled loop's body, scheduled as the lanes' copies of that text, at once
(:func:`kept_call`).  Where arraypart cannot tell, the lanes stay concurrent.
"""

from __future__ import annotations

import re
from typing import Iterable, Mapping, Sequence

from .. import expr as E
from .. import ir
from . import calls
from . import cnodes as N
from .pragmas import HlsPragma, PragmaReader

# The flags of ``#pragma HLS inline`` in a caller that inline its callees too.
INLINES_CALLEES = {"recursive", "region"}
INLINE_WORD = re.compile(r"\binline\b", re.IGNORECASE)


def one_call(items: Iterable[N.Node], callees: Mapping[str, N.FuncDef | None]
             ) -> N.FuncDef | None:
    """The callee of the one call of the file's own functions (``callees``) that a loop
    body's text (``items``) makes, a statement of its own: no ``if`` around it, no
    second call in its arguments; None when it makes no such call."""
    items = list(items)
    found = [c for item in items for c in calls.known_calls(item, callees)]
    if len(found) != 1 or not any(N.without_casts(item) is found[0] for item in items):
        return None
    return callees[found[0].key]


def kept_call(callee: N.FuncDef, callers: Sequence[N.FuncDef],
              pragmas: PragmaReader) -> bool:
    """Whether the HLS tool keeps ``callee`` a function of its own where the last of
    ``callers`` (the chain of calls from the top) calls it: no ``#pragma HLS inline``
    opens it, no caller's ``inline recursive`` reaches it, and either ``inline off``
    keeps it or it holds a loop that is not unrolled (Vitis inlines small loop-free
    functions by itself).  A conditional ``inline`` arraypart cannot decide is a
    doubt: not kept."""
    own = pragmas.of_function(callee)
    above = [p for caller in callers for p in pragmas.of_function(caller)]
    if any(_inlines(p, pragmas) for p in own) or any(
            _inlines(p, pragmas) and (p.kind == "if" or set(p.flags) & INLINES_CALLEES)
            for p in above):
        return False
    return any(p.kind == "inline" for p in own) or _holds_a_loop(callee, own, pragmas)


def _inlines(pragma: HlsPragma, pragmas: PragmaReader) -> bool:
    """Whether ``pragma`` is an ``inline`` that is not off, or may be one: a
    conditional pragma whose condition arraypart cannot decide, of ``inline``."""
    if pragma.kind == "if":
        return INLINE_WORD.search(pragma.node.line.text) is not None
    return pragma.kind == "inline" and not pragmas.off(pragma)


def _holds_a_loop(func: N.FuncDef, own: list[HlsPragma], pragmas: PragmaReader) -> bool:
    """Whether ``func`` (``own``: its pragmas) keeps a loop of its own text: one not
    fully unrolled, in a function that is not pipelined (which unrolls them all)."""
    if any(p.kind == "pipeline" and pragmas.pipeline_ii(p) is not None for p in own):
        return False
    return any(isinstance(n, N.For) and not _fully_unrolled(n, pragmas)
               for n in func.nodes)


def _fully_unrolled(loop: N.For, pragmas: PragmaReader) -> bool:
    """Whether a pragma that opens ``loop``'s body unrolls it fully."""
    for item in N.body_items(loop.stmt):
        if not isinstance(item, N.Pragma):
            return False
        pragma = pragmas.parse(item)
        if pragma is not None and pragma.kind == "unroll" and pragmas.unroll(pragma) == 0:
            return True
    return False


def in_order(copies: tuple[ir.Node, ...], call: int, arrays: Mapping[str, ir.Array]
             ) -> bool:
    """Whether the lanes of a fully unrolled loop whose text is :func:`one_call` and
    is held by ``call`` (``ir.Access.call``) run one after another (module doc);
    ``copies``: its body lowered once per lane, ``if (iterator == v)`` around each;
    ``arrays``: the kernel's, by name."""
    lanes = [n.then for n in copies if isinstance(n, ir.If)]
    if len(lanes) < 2 or len(lanes) != len(copies):
        return False
    found = [list(ir.accesses(lane)) for lane in lanes]
    every = [a for lane in found for a in lane]
    written = {a.array for a in every if a.kind == "write"}
    if any(a.call == call or a.array not in written for a in every) or any(
            lp.call == call for lane in lanes for lp in ir.loops(lane)):
        return False
    memories = {name for name in written if arrays[name].memory}
    return all(_depends(first, second, memories) or _depends(second, first, memories)
               for first, second in zip(found, found[1:]))


def _depends(first: list[ir.Access], second: list[ir.Access],
             memories: set[str]) -> bool:
    """Whether a write of ``first`` and an access of ``second`` may name one element
    of one of the on-chip ``memories``."""
    return any(_may_meet(x, y) for x in first if x.kind == "write" and x.array in memories
               for y in second if x.array == y.array)


def _may_meet(x: ir.Access, y: ir.Access) -> bool:
    """Whether ``x`` and ``y``, of one array, may name one element: one member, where
    both name one, and each dimension irregular in either or one form in both."""
    if None not in (x.field, y.field) and x.field != y.field:
        return False
    return all(p is None or q is None or E.form_key(p) == E.form_key(q)
               for p, q in zip(x.index, y.index))
