"""Concurrent loops unrolled into lanes (DESIGN §2; the vocabulary is in :mod:`.model`).

A *frame* describes the body of a concurrent loop at some point of the walk: the time
variables ``P`` and the *lanes*, each a substitution of the unrolled iterators by
quasi-affine expressions over ``P`` plus the sub-domain of ``P`` where the lane runs.

- Entering a loop *in time* with block factor ``u`` (the concurrent loop itself, or in
  an unrolled loop outside pipelines a sequential, pipelined or partially unrolled
  inner loop, whose lanes then run in lockstep):
  its iterator ``v`` joins ``P`` and walks with stride ``u*step``; lane ``l < u`` maps
  ``v -> v + l*step`` and runs where ``v + l*step`` still meets the loop's end bound.
- Unrolling a loop *fully* (every loop inside a pipeline, ``unroll`` without factor):
  on a lane's domain ``D`` its trip count ``n`` must be constant; lane ``k < n`` maps
  the iterator to ``start + k*step`` where ``start`` is one of its ``init``
  expressions (the one that is the maximum, resp. minimum, everywhere on ``D``).
- ``if`` guards restrict each lane's domain (``else``: the complement in the lane's).

A lane records the value of each fully unrolled iterator that is one constant in it
(``LaneAccess.lane``): a compile-time value in the emitted code, which a read copy may
depend on.  An iterator whose value depends on ``P`` (a varying start, or a loop
unrolled in time) is not recorded there; a lane of a loop unrolled in time records its
number ``l`` instead, as ``v'`` (``LaneAccess.in_time``): no name in the emitted code,
which keeps that loop as written, but a multi-port ROM spreads its reads over copies
by it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, Mapping

import islpy as isl

from .. import expr as E
from .. import ir
from ..errors import KernelError
from ..scheme import lane_number
from . import isl_glue as G
from .domains import Context
from .model import LaneAccess

# The lanes of an unrolled loop outside any pipeline issue together in one cycle.
UNROLL_II = 1


@dataclass(frozen=True, eq=False)
class Lane:
    env: Mapping[str, E.Expr]
    values: tuple[tuple[str, int], ...]
    domain: isl.Set
    in_time: tuple[tuple[str, int], ...] = ()
    place: tuple[int, ...] = ()  # the lane's ordinal in each loop it unrolls


@dataclass(frozen=True, eq=False)
class Frame:
    """``root`` is the concurrent loop; ``chain`` the sequential loops inside it (for
    an unrolled root) whose iterators are time variables, and ``("after", id)`` where
    the frame's statements follow timed loop ``id`` at that level (or one inside an
    ``if`` or a fully unrolled loop there): one group per chain.  Statements on either
    side of a timed loop never issue in one cycle, since it takes steps of its own
    between them (the checker's runs, :mod:`..check.walk`).
    ``domain`` is the set of time vectors of the chain (before any guard);
    ``descending``: the last time variable falls from one step to the next (its loop
    counts down)."""

    root: ir.Loop
    pipelined: bool
    time_vars: tuple[str, ...]
    chain: tuple[int, ...]
    lanes: tuple[Lane, ...]
    domain: isl.Set
    descending: bool = False


@dataclass(frozen=True, eq=False)
class Found:
    """A lane access, the frame that issued it, and the path through the loop's
    data-dependent ifs it was found on (:func:`ir.branch_paths`).  ``order``: its
    place in the program order of one iteration (lanes of an unrolled loop in turn,
    a statement's reads before its writes; tuples compare as the order does);
    ``whole``: a reference to one whole element (:func:`plain_reference`), perhaps
    in an ``if``; ``plain``: also no ``if`` (affine or not) or condition around it
    inside the concurrent loop, so it runs wherever its lane does
    (:mod:`.forwarding`)."""

    frame: Frame
    access: LaneAccess
    path: int = 0
    order: tuple[int, ...] = ()
    plain: bool = False
    whole: bool = False


@dataclass(frozen=True, slots=True)
class _Slot:
    """In an order prefix, the lane's ordinal in the loop it unrolls at ``depth``
    (``Lane.place[depth]``)."""

    depth: int


@dataclass(frozen=True, eq=False)
class ConcurrentLoop:
    loop: ir.Loop
    target_ii: int
    trip_count: int


@dataclass(eq=False)
class Collector:
    """What one walk of the kernel finds, in source order (local to one build)."""

    loops: list[ConcurrentLoop] = field(default_factory=list)
    found: list[Found] = field(default_factory=list)
    tick: Callable[[], None] = lambda: None  # asked per lane access (a deadline)


def collect(kernel: ir.Kernel, *, tick: Callable[[], None] = lambda: None) -> Collector:
    """Walk ``kernel`` and collect its concurrent loops and their lane accesses;
    ``tick()`` is called before each lane access is recorded (it may raise to stop the
    walk: a deadline)."""
    out = Collector(tick=tick)
    _walk_sequential(kernel.body, Context.top(kernel.params), out)
    return out


def _walk_sequential(body: tuple[ir.Node, ...], ctx: Context, out: Collector) -> None:
    for node in body:
        if isinstance(node, ir.If):
            then_ctx, else_ctx = ctx.branches(node)
            _walk_sequential(node.then, then_ctx, out)
            _walk_sequential(node.orelse, else_ctx, out)
        elif isinstance(node, ir.Loop):
            if ir.concurrent(node):
                _start(node, ctx, out)
            else:
                _walk_sequential(node.body, ctx.enter_loop(node), out)


def _start(loop: ir.Loop, ctx: Context, out: Collector) -> None:
    """Open a frame for the concurrent ``loop`` reached in context ``ctx``."""
    pipelined = loop.pipeline_ii is not None
    frame = Frame(loop, pipelined, ctx.vars, (), (Lane({}, (), ctx.domain),), ctx.domain)
    blocks = G.trip_count(loop, ctx.domain.space, loop.init, loop.bound)
    longest = (G.value_range(blocks, ctx.domain) or (0, 0))[1]
    if loop.unroll == 0 and not pipelined:
        frame = _unroll_fully(frame, loop)
        trip = 1 if longest else 0
    else:
        factor = loop.unroll or 1
        if loop.unroll == 0:
            factor = max(1, longest)
        frame = _enter_in_time(frame, loop, factor, chained=False)
        trip = -(-longest // factor)
    target_ii = loop.pipeline_ii if pipelined else UNROLL_II
    out.loops.append(ConcurrentLoop(loop, target_ii, trip))
    for path, variant in enumerate(ir.branch_paths(loop)):
        _walk_lanes(variant.body, frame, ctx.enter_loop(loop), out, path)


# A data-dependent ``if`` around an access: the ``if`` node's id, the branch, and the
# variables its lanes are told apart by where it stands (:func:`_record`).
Branch = tuple[int, str, frozenset[str]]


@dataclass(frozen=True)
class _Place:
    """Where the walk stands in the concurrent loop's iteration: ``at``, the order
    prefix (body positions, and a :class:`_Slot` after each unrolled loop);
    ``plain``: inside no ``if``."""

    at: tuple = (_Slot(0),)
    plain: bool = True

    def nested(self, *steps, plain: bool = True) -> "_Place":
        return _Place(self.at + steps, self.plain and plain)


def _walk_lanes(body: tuple[ir.Node, ...], frame: Frame, ctx: Context,
                out: Collector, path: int, branches: tuple[Branch, ...] = (),
                scope: int = 0, scope_from: int = 0, place: _Place = _Place()) -> tuple:
    """``scope``: the innermost loop entered inside the concurrent loop (its id; 0
    for the concurrent loop itself), which the accesses' ``subscript`` names;
    ``branches[scope_from:]``: the ``if``s entered inside it; ``place``: where the
    walk stands (:class:`_Place`).  Returns the chain of the statements that follow
    ``body``: after a timed loop walked in it (also in a branch, or in a fully
    unrolled loop), a run of their own (``Frame.chain``), in walk order as the
    checker's runs start."""
    level = frame.chain
    for n, node in enumerate(body):
        if isinstance(node, ir.Stmt):
            _record(node.accesses, frame, out, path, branches, scope, scope_from,
                    place.nested(n))
        elif isinstance(node, ir.If):
            _record(node.cond_accesses, frame, out, path, branches, scope, scope_from,
                    place.nested(n, plain=False))
            then_frame, else_frame = _branches(frame, node)
            then_ctx, else_ctx = ctx.branches(node)
            known = frozenset(frame.lanes[0].env) if frame.lanes else frozenset()
            then_marks, else_marks = (((id(node), "then", known),),
                                      ((id(node), "else", known),)) if node.cond is None \
                else ((), ())
            chain = _walk_lanes(node.then, then_frame, then_ctx, out, path,
                                branches + then_marks, scope, scope_from,
                                place.nested(n, 0, plain=False))
            chain = _walk_lanes(node.orelse, replace(else_frame, chain=chain), else_ctx, out,
                                path, branches + else_marks, scope, scope_from,
                                place.nested(n, 1, plain=False))
            frame = replace(frame, chain=chain)
        elif frame.pipelined or node.unroll == 0:
            depth = len(frame.lanes[0].place) if frame.lanes else 0
            frame = replace(frame, chain=_walk_lanes(
                node.body, _unroll_fully(frame, node), ctx.enter_loop(node), out, path,
                branches, id(node), len(branches), place.nested(n, _Slot(depth))))
        else:
            # A pipelined loop inside an unrolled one runs in lockstep in every lane
            # of it (DESIGN §2: the lanes are concurrent); its inner loops unroll fully.
            inner = _enter_in_time(frame, node, node.unroll or 1, chained=True)
            if node.pipeline_ii is not None:
                inner = replace(inner, pipelined=True)
            _walk_lanes(node.body, inner, ctx.enter_loop(node), out, path, branches,
                        id(node), len(branches), place.nested(n, plain=False))
            frame = replace(frame, chain=level + (("after", id(node)),))
    return frame.chain


def _record(accesses: tuple[ir.Access, ...], frame: Frame, out: Collector,
            path: int, branches: tuple[Branch, ...] = (), scope: int = 0,
            scope_from: int = 0, place: _Place = _Place(plain=False)) -> None:
    """Each access at each lane.  Its ``branches`` name each ``if``'s instance by the
    ``if`` and the lane's values of the variables known where it stands (a lane of
    an unrolled loop inside the branch shares its instance; lanes around it do not);
    its ``subscript`` is ``scope`` and its index as written, and ``scope_from``
    where the ``if``s inside ``scope`` start among its ``branches``; ``place``:
    the statement's (:class:`_Place`), each access's ``order`` that with the lane's
    ordinals, then 0 for a read and 1 for a write (C reads a statement's operands
    before it stores), then its position in the statement."""
    for k, access in enumerate(accesses):
        kind = 0 if access.kind == "read" else 1
        whole = plain_reference(access)
        for lane in frame.lanes:
            out.tick()
            if lane.domain.is_empty():
                continue
            index = tuple(None if e is None else E.simplify(E.substitute(e, lane.env))
                          for e in access.index)
            marks = tuple(((node, frozenset((v, lane.env[v]) for v in known)), side)
                          for node, side, known in branches)
            out.found.append(Found(frame, LaneAccess(
                access.array, access.kind, index, access.ref_id, access.coord,
                lane.values, lane.domain, access.field, access.window, marks,
                (scope, access.index), same_value=_in_lane(access.same_value, lane),
                in_time=lane.in_time, scope_from=scope_from,
                copy_of=_copy_of(access.per_call, lane),
                instance=_instance(access.per_call, lane)), path,
                tuple(lane.place[s.depth] if isinstance(s, _Slot) else s for s in place.at)
                + (kind, k), place.plain and whole, whole))


def plain_reference(access: ir.Access) -> bool:
    """A reference the tool sees as one load or store of its whole element that runs
    wherever its statement does: not bound to a reference parameter, not a window
    read, no subscript that changes state or comes from a call's parameter (a call's
    text may stay a call), no struct member (``Access.field`` names the first level
    only: ``c[i].v.lo`` and ``c[i].v.hi`` look alike), not in an operand of ``?:``,
    ``&&`` or ``||`` that the data decides (``Access.conditional``), no subscript
    through a narrow integer (``Access.narrowed``: the tool cannot name its element),
    not part of an element (``Access.partial``)."""
    return not (access.by_reference or access.window or access.changes_state
                or access.foreign or access.arguments or access.field is not None
                or access.conditional or access.narrowed or access.partial)


def _copy_of(per_call: ir.PerCall | None, lane: Lane) -> tuple:
    """``LaneAccess.copy_of``: the call and the lane's values of its iterators, or
    the scope whose calls share the function's instances."""
    if per_call is None:
        return ()
    if per_call.shared is not None:
        return (per_call.shared.scope,)
    return per_call.call, tuple((v, E.simplify(E.substitute(E.var(v), lane.env)))
                                for v in per_call.iterators)


def _instance(per_call: ir.PerCall | None, lane: Lane) -> tuple:
    """``LaneAccess.instance``: the limit and the call's own copy (its ``copy_of``
    without the limit)."""
    if per_call is None or per_call.shared is None:
        return ()
    return per_call.shared, _copy_of(replace(per_call, shared=None), lane)


def _in_lane(same_value: tuple | None, lane: Lane) -> tuple | None:
    """``ir.Access.same_value`` of one lane: the key and the lane's values of the
    unrolled iterators (two lanes read one text's subscript at other values)."""
    if same_value is None:
        return None
    return same_value, tuple(sorted((name, E.pretty(e)) for name, e in lane.env.items()))


def _substituted(exprs: tuple[E.Expr, ...], env: Mapping[str, E.Expr]) -> tuple[E.Expr, ...]:
    return tuple(E.substitute(e, env) for e in exprs)


def _branches(frame: Frame, node: ir.If) -> tuple[Frame, Frame]:
    if node.cond is None:
        return frame, frame
    then_lanes, else_lanes = [], []
    for lane in frame.lanes:
        cond = tuple(tuple(ir.Constraint(E.substitute(c.expr, lane.env), c.op) for c in conj)
                     for conj in node.cond)
        taken = lane.domain.intersect(G.dnf_set(cond, lane.domain.space))
        then_lanes.append(replace(lane, domain=taken))
        else_lanes.append(replace(lane, domain=lane.domain.subtract(taken)))
    return replace(frame, lanes=tuple(then_lanes)), replace(frame, lanes=tuple(else_lanes))


def _enter_in_time(frame: Frame, loop: ir.Loop, factor: int, *, chained: bool) -> Frame:
    """``loop``'s iterator becomes a time variable walking blocks of ``factor``.

    The lanes run in lockstep (DESIGN §2): at step n every lane runs its own n-th
    iteration, ``start_l + n*step``.  The time variable ``v`` is lane 0's value
    ``start_0 + n*step``, so lane l's iterator is ``v + (start_l - start_0)``
    (:func:`_lockstep_shifts`) and it runs where that value meets its own bounds."""
    lanes: list[Lane] = []
    domain = G.empty(frame.time_vars + (loop.var,))
    for lane, shift in zip(frame.lanes, _lockstep_shifts(frame, loop)):
        extended = G.add_dim(lane.domain, loop.var)
        space = extended.space
        back = E.scale(-1, shift)
        bounds = tuple(E.add(e, back) for e in _substituted(loop.bound, lane.env))
        inits = tuple(E.add(e, back) for e in _substituted(loop.init, lane.env))
        blocks = extended.intersect(G.loop_set(loop, space, loop.var, inits, bounds, factor))
        domain = domain.union(blocks)
        for k in range(factor):
            offset = k * loop.step
            env = {**lane.env, loop.var: E.add(E.var(loop.var), shift, E.const(offset))}
            numbered = lane.in_time + ((lane_number(loop.var), k),) if factor > 1 \
                else lane.in_time
            lanes.append(Lane(env, lane.values, blocks if factor == 1 else blocks.intersect(
                G.lane_set(loop, space, loop.var, bounds, offset)), numbered,
                lane.place + (k,)))
    chain = frame.chain + ((id(loop),) if chained else ())
    return Frame(frame.root, frame.pipelined, frame.time_vars + (loop.var,), chain,
                 tuple(lanes), domain, loop.step < 0)


def _lockstep_shifts(frame: Frame, loop: ir.Loop) -> list[E.Expr]:
    """Per lane of ``frame``, ``start_l - start_0``: how far its first value of
    ``loop`` lies from lane 0's (0 where the lanes share one start expression, or
    where some lane's start is a varying min/max of its ``init`` expressions, which
    no expression gives: then the lanes are aligned by value, not by step)."""
    starts = []
    for lane in frame.lanes:
        inits = _substituted(loop.init, lane.env)
        if len(inits) == 1:
            starts.append(inits[0])
            continue
        start = G.loop_start(loop, lane.domain.space, inits)
        starts.append(next((e for e in inits
                            if lane.domain.is_subset(G.equal_set(e, start))), None))
    if None in starts:
        return [E.const(0)] * len(starts)
    return [E.add(s, E.scale(-1, starts[0])) for s in starts]


def _unroll_fully(frame: Frame, loop: ir.Loop) -> Frame:
    """Every iteration of ``loop`` becomes a lane (its trip count must be constant)."""
    lanes: list[Lane] = []
    for lane in frame.lanes:
        inits = _substituted(loop.init, lane.env)
        space = lane.domain.space
        trips = G.value_range(G.trip_count(loop, space, inits,
                                           _substituted(loop.bound, lane.env)),
                              lane.domain)
        if trips is None:
            continue
        if trips[0] != trips[1]:
            raise _not_constant(loop, frame, f"between {trips[0]} and {trips[1]}")
        start = _start_expr(loop, frame, inits, lane.domain)
        for k in range(trips[0]):
            value = E.add(start, E.const(k * loop.step))
            known = ((loop.var, value.value),) if isinstance(value, E.Const) else ()
            lanes.append(Lane({**lane.env, loop.var: value}, lane.values + known,
                              lane.domain, lane.in_time, lane.place + (k,)))
    return replace(frame, lanes=tuple(lanes))


def _start_expr(loop: ir.Loop, frame: Frame, inits: tuple[E.Expr, ...],
                domain: isl.Set) -> E.Expr:
    """The init expression that is the loop's first value everywhere on ``domain``."""
    start = G.loop_start(loop, domain.space, inits)
    for e in inits:
        if domain.is_subset(G.equal_set(e, start)):
            return e
    raise _not_constant(loop, frame, "its first value is a varying min/max")


def _not_constant(loop: ir.Loop, frame: Frame, detail: str) -> KernelError:
    if frame.root.pipeline_ii is not None:
        why = f"inside pipelined loop {frame.root.name} it is fully unrolled"
    elif frame.pipelined:
        why = "it is inside a pipelined loop, so it is fully unrolled"
    else:
        why = "it is fully unrolled (#pragma HLS unroll)"
    return KernelError(loop.coord, f"loop {loop.name} has no constant trip count "
                       f"({detail}), but {why}")
