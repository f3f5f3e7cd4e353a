"""Bank-centric code for pipelined loops whose banks rotate with the iteration.

An HLS scheduler gives an access site a single bank only when the bank index is a
compile-time value in every iteration (DESIGN §2, the scheduling rule); a site whose
bank varies reads every bank and multiplexes.  So where a banked array's lanes change
bank from one iteration of a pipelined loop ``L`` to the next, the body of ``L`` is
rewritten around the banks instead of the lanes.  With ``R`` read lanes, ``W`` write
lanes, ``N`` banks (``C`` copies) and ``S`` access sites per bank:

    per lane l:    b[l] = bank(x_l),  o[l] = offset(x_l)          (each formula once)
    read ranks:    p[l] = #{ m < first(l) : b[m] = b[l], first(m) = m }
                   (first(l): the earliest lane reading the same word; reads of one
                   word share a port, DESIGN §2's broadcast)
    per bank k, port s < S (k, s constants after unrolling):
                   q[k][s] = A_bank[k][o[l]]  for the lane l with b[l] = k, p[l] = s
    read values:   v[l] = q[b[l]][p[l]]       (selects between registers)
    writes, at the end of the body, per bank k and port s:
                   if (some lane l with b[l] = k, rank s) A_bank[k][o[l]] = w[l]

A conflict-free banking (at most ``S`` distinct words per bank and iteration) makes
this exact: every lane finds its word at its port.  Each ``A_bank[k]`` then has at
most ``S`` read sites and ``S`` write sites, each with the constant bank ``k``.

Reads move to the top of the body and writes to its end, so a loop qualifies only
when that keeps C's order: no ``break``, ``continue`` or ``return`` may skip a write
(:func:`arraypart.ir.skippable_writes`), in program order no read of the array follows
one of its writes, no unrolled inner loop holds both, the references are plain (a read,
or the left side of ``=``), affine, under affine guards, and inner loop bounds are
constants or affine in the unrolled iterators around them (a triangular nest is routed
over its bounding box, :func:`boxed`).  Other loops keep their direct references (and the
scheduler's serialization, which the report states).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from math import prod
from typing import Iterator

from dataclasses import replace

import numpy as np

from .. import expr as E
from ..banking.solution import ArraySolution, Solution
from ..ir import (Access, Array, Conjunction, Constraint, If, Kernel, Loop, Node, Stmt,
                  member_arrays, skippable_writes)
from ..scheme import Banking, index_var
from . import ranges


#: Iterations x lanes enumerated to measure how many sites a bank needs.
MEASURE_CELLS = 1 << 22
#: Pairs of (write, access) instances compared to keep C's order; above, no rewrite.
MAX_ORDER_PAIRS = 1 << 16
#: Iterator points at which the pairs of one loop are compared when no constant tells
#: two subscripts apart.
MEET_POINTS = 1 << 20


@dataclass(frozen=True, slots=True)
class Site:
    """One reference inside ``L``: its access, the unrolled loops around it inside
    ``L`` (outermost first), its first lane number, its guard's C text and the lanes
    whose guard fails whatever the iteration (``dead``, see :func:`_live`)."""

    access: Access
    loops: tuple[Loop, ...]
    first: int
    guard: str | None = None
    dead: frozenset[int] = frozenset()

    @property
    def lanes(self) -> int:
        return prod(_trip(lp) for lp in self.loops)


@dataclass(frozen=True, slots=True)
class Group:
    """The bank-centric rewrite of one array in one pipelined loop."""

    loop: Loop
    array: Array
    banking: Banking
    reads: tuple[Site, ...]
    writes: tuple[Site, ...]
    read_sites: int
    write_sites: int

    @property
    def read_lanes(self) -> int:
        return sum(s.lanes for s in self.reads)

    @property
    def write_lanes(self) -> int:
        return sum(s.lanes for s in self.writes)


Guard = tuple[tuple[Conjunction, ...] | None, bool]  # an if's condition, branch taken


@dataclass(frozen=True, slots=True)
class _Found:
    """An access inside a pipelined loop: the unrolled loops and the ifs around it
    (innermost last) and its rank in program order."""

    access: Access
    loops: tuple[Loop, ...]
    guards: tuple[Guard, ...]
    order: int

    @property
    def lanes(self) -> int:
        return prod(_trip(lp) for lp in self.loops)


@dataclass(frozen=True, slots=True)
class Unrolled:
    """A pipelined loop ``for (T v = a; ...; v += c)`` with its own ``unroll factor=U``
    and a constant trip count ``n`` that ``U`` divides, written as blocks:

        for (T b = 0; b < n/U; b++) {            // pipelined, one block per iteration
          for (T u = 0; u < U; u++) {            // unrolled
            const T v = a + c*(U*b + u);  ...body...

    so that a lane's bank is visibly a function of the constant ``u`` (``(U*b + u) mod
    U = u``).  ``view`` is the rewritten loop's IR."""

    loop: Loop
    block_var: str
    lane_var: str
    view: Loop

    @property
    def factor(self) -> int:
        return self.loop.unroll

    @property
    def blocks(self) -> int:
        return -(-_trip(self.loop) // self.loop.unroll)

    @property
    def remainder(self) -> bool:
        """The last block is partial: its lanes past the end are guarded."""
        return _trip(self.loop) % self.loop.unroll != 0


@dataclass(frozen=True, slots=True)
class Plan:
    """The bank-centric groups, the loops rewritten as blocks, and the references'
    contexts in the rewritten kernel (what the emitted C computes)."""

    groups: tuple[Group, ...]
    unrolled: tuple[Unrolled, ...]
    contexts: dict


def plan(kernel: Kernel, solution: Solution, taken: set[str], declared: set,
         local: set[str], header_refs: frozenset[int]) -> Plan:
    """Every (pipelined loop, array) pair that gets bank-centric code (module doc);
    ``declared``: the coordinates of loops that declare their iterator (only those can
    be written as blocks); ``local``: the arrays declared in the function (only those
    can become bank arrays); ``header_refs``: the references in loop headers (an array
    with one in a loop keeps its references there); new names are added to
    ``taken``."""
    body = boxed(kernel.body)
    contexts = ranges.ref_contexts(body)
    solved = {s.array.name: s for s in solution.arrays}
    # a loop the IR holds more than once (inside a loop with a geometric step) has one
    # text for all its copies: it keeps its references
    seen = Counter(loop.coord for loop in pipelined_loops(body))
    declared = {coord for coord in declared if seen[coord] <= 1}
    unrolled = {}
    for loop in pipelined_loops(body):
        found = list(found_accesses(loop.body, (), (), iter(range(1 << 62))))
        if not (loop.coord in declared and _blockable(loop)):
            continue
        if any(needs_routing(loop, found, name, solved, contexts)
               for name in {f.access.array for f in found}):
            unrolled[id(loop)] = _as_blocks(loop, taken)
    body = _replace_loops(body, {k: u.view for k, u in unrolled.items()})
    contexts = ranges.ref_contexts(body)
    groups = []
    for loop in pipelined_loops(body):
        if seen[loop.coord] > 1:
            continue
        found = list(found_accesses(loop.body, (), (), iter(range(1 << 62))))
        for name in dict.fromkeys(f.access.array for f in found):
            mine = [f for f in found if f.access.array == name]
            if needs_routing(loop, found, name, solved, contexts):
                group = (_group(loop, solved[name], mine, contexts)
                         if name in local and not any(f.access.ref_id in header_refs
                                                      for f in mine) else None)
                if group is not None:
                    groups.append(group)
    return Plan(tuple(groups), tuple(unrolled.values()), contexts)


def needs_routing(loop: Loop, found: list[_Found], name: str, solved, contexts) -> bool:
    """Some lane of ``name`` changes bank, and not every lane may take every bank."""
    sol = solved.get(name)
    mine = [f for f in found if f.access.array == name]
    return (sol is not None and not _direct_fits(loop, mine, sol)
            and _rotates(mine, sol.banking, contexts))


def _blockable(loop: Loop) -> bool:
    """A pipelined loop unrolled by a factor that the emission may write as blocks of
    lanes: constant bounds, and no ``break`` of its own (in the lane loop it would end
    the block only)."""
    return (loop.unroll is not None and loop.unroll > 1 and constant_loop(loop)
            and _trip(loop) > 0 and not loop.breaks)


def fresh(base: str, taken: set[str]) -> str:
    """``base``, or ``base1``, ``base2``... : the first name not in ``taken`` (added)."""
    name, n = base, 1
    while name in taken:
        name, n = f"{base}{n}", n + 1
    taken.add(name)
    return name


def _as_blocks(loop: Loop, taken: set[str]) -> Unrolled:
    block, lane = fresh(f"{loop.var}_blk", taken), fresh(f"{loop.var}_u", taken)
    factor = loop.unroll
    value = E.add(E.const(loop.init[0].value),
                  E.scale(loop.step, E.add(E.scale(factor, E.var(block)), E.var(lane))))
    body = substitute_nodes(loop.body, {loop.var: value})
    if _trip(loop) % factor:
        last = loop.bound[0]
        left = E.add(last, E.scale(-1, value)) if loop.step > 0 else E.add(
            value, E.scale(-1, last))
        body = (If(((Constraint(E.simplify(left), ">="),),), body, (), loop.coord),)
    inner = Loop(lane, (E.const(0),), (E.const(factor - 1),), 1, body, loop.name,
                 loop.coord, None, 0, early_exit=loop.early_exit, skips=loop.skips,
                 breaks=loop.breaks)
    blocks = -(-_trip(loop) // factor)
    view = Loop(block, (E.const(0),), (E.const(blocks - 1),), 1, (inner,),
                loop.name, loop.coord, loop.pipeline_ii, None)
    return Unrolled(loop, block, lane, view)


def substitute_nodes(nodes: tuple[Node, ...], mapping) -> tuple[Node, ...]:
    """``nodes`` with iterators replaced by expressions in every index, bound and
    condition."""
    def sub(e):
        return None if e is None else E.simplify(E.substitute(e, mapping))

    def access(a: Access) -> Access:
        return replace(a, index=tuple(sub(e) for e in a.index))

    out = []
    for n in nodes:
        if isinstance(n, Stmt):
            out.append(replace(n, accesses=tuple(access(a) for a in n.accesses)))
        elif isinstance(n, If):
            cond = None if n.cond is None else tuple(
                tuple(replace(c, expr=sub(c.expr)) for c in conj) for conj in n.cond)
            out.append(replace(n, cond=cond, then=substitute_nodes(n.then, mapping),
                               orelse=substitute_nodes(n.orelse, mapping),
                               cond_accesses=tuple(access(a) for a in n.cond_accesses)))
        else:
            out.append(replace(n, init=tuple(sub(e) for e in n.init),
                               bound=tuple(sub(e) for e in n.bound),
                               body=substitute_nodes(n.body, mapping)))
    return tuple(out)


def boxed(nodes: tuple[Node, ...], within: dict[str, ranges.Interval | None] | None = None
          ) -> tuple[Node, ...]:
    """``nodes`` with each unrolled loop inside a pipelined loop whose bounds depend on
    the iterators of unrolled loops around it (a triangular nest, which Vitis unrolls
    copy by copy) written over its bounding box, its own bounds as a guard::

        for (k = a(j); k <= b(j); k++) S   ->   for (k = lo; k <= hi; k++)
                                                  if (k - a(j) >= 0 && b(j) - k >= 0) S

    with [lo, hi] the interval of k over those of the iterators (:mod:`.ranges`;
    mirrored for a negative step).  Every instance keeps its iterator values, so a
    site's lanes are those of the box, the ones outside the triangle never active.
    Only a step of +-1 or a constant start keeps the values on the box's grid; other
    loops, and bounds over other variables (the pipelined iterator among them), are
    left as they are.  ``within``: the intervals of the unrolled iterators around
    ``nodes`` inside the pipelined loop (None: outside any pipelined loop)."""
    out = []
    for n in nodes:
        if isinstance(n, If):
            out.append(replace(n, then=boxed(n.then, within), orelse=boxed(n.orelse, within)))
        elif isinstance(n, Loop):
            inner = ({} if n.pipeline_ii is not None else None if within is None
                     else {**within, n.var: ranges.loop_interval(n, within)})
            body = boxed(n.body, inner)
            box = _box(n, within) if within is not None else None
            if box is None:
                out.append(replace(n, body=body))
            else:
                (start, end), guard = box
                out.append(replace(n, init=(E.const(start),), bound=(E.const(end),),
                                   body=(If((guard,), body, (), n.coord),)))
        else:
            out.append(n)
    return tuple(out)


def _box(loop: Loop, within: dict[str, ranges.Interval | None]
         ) -> tuple[tuple[int, int], Conjunction] | None:
    """((start, end), guard) of :func:`boxed`'s box for ``loop``; None when ``loop`` is
    constant or cannot be boxed."""
    bounds = loop.init + loop.bound
    if constant_loop(loop) or not all(E.variables(e) <= within.keys() for e in bounds):
        return None
    constant_start = len(loop.init) == 1 and isinstance(loop.init[0], E.Const)
    if abs(loop.step) != 1 and not constant_start:
        return None
    span = ranges.loop_interval(loop, within)
    if span is None or any(within[v] is None for e in bounds for v in E.variables(e)):
        return None
    var, sign = E.var(loop.var), 1 if loop.step > 0 else -1
    guard = tuple(Constraint(E.simplify(E.scale(sign, E.add(var, E.scale(-1, e)))), ">=")
                  for e in loop.init if not isinstance(e, E.Const))
    guard += tuple(Constraint(E.simplify(E.scale(sign, E.add(e, E.scale(-1, var)))), ">=")
                   for e in loop.bound if not isinstance(e, E.Const))
    start, end = span if loop.step > 0 else span[::-1]
    return (loop.init[0].value if constant_start else start, end), guard


def _replace_loops(nodes: tuple[Node, ...], table: dict[int, Loop]) -> tuple[Node, ...]:
    out = []
    for n in nodes:
        if isinstance(n, Loop):
            out.append(table[id(n)] if id(n) in table
                       else replace(n, body=_replace_loops(n.body, table)))
        elif isinstance(n, If):
            out.append(replace(n, then=_replace_loops(n.then, table),
                               orelse=_replace_loops(n.orelse, table)))
        else:
            out.append(n)
    return tuple(out)


def pipelined_loops(nodes: tuple[Node, ...]) -> Iterator[Loop]:
    """Pipelined loops that are not inside another concurrent loop."""
    return (loop for loop, _ in pipelined_loops_around(nodes, ()))


def pipelined_loops_around(nodes: tuple[Node, ...], around: tuple[Loop, ...]
                           ) -> Iterator[tuple[Loop, tuple[Loop, ...]]]:
    """(loop, the sequential loops around it, outermost first) for each of
    :func:`pipelined_loops`."""
    for n in nodes:
        if isinstance(n, Loop):
            if n.pipeline_ii is not None:
                yield n, around
            elif n.unroll is None:
                yield from pipelined_loops_around(n.body, around + (n,))
        elif isinstance(n, If):
            yield from pipelined_loops_around(n.then + n.orelse, around)


def found_accesses(nodes: tuple[Node, ...], loops: tuple[Loop, ...], guards: tuple[Guard, ...],
           counter: Iterator[int]) -> Iterator[_Found]:
    for n in nodes:
        if isinstance(n, Stmt):
            for a in n.accesses:
                yield _Found(a, loops, guards, next(counter))
        elif isinstance(n, If):
            for a in n.cond_accesses:
                yield _Found(a, loops, guards, next(counter))
            yield from found_accesses(n.then, loops, guards + ((n.cond, True),), counter)
            yield from found_accesses(n.orelse, loops, guards + ((n.cond, False),), counter)
        else:
            yield from found_accesses(n.body, loops + (n,), guards, counter)


def _trip(loop: Loop) -> int:
    start, end = loop.init[0].value, loop.bound[0].value
    return max(0, (end - start) // loop.step + 1)


def constant_loop(loop: Loop) -> bool:
    return (len(loop.init) == 1 and len(loop.bound) == 1
            and isinstance(loop.init[0], E.Const) and isinstance(loop.bound[0], E.Const))


def lane_env(site_loops: tuple[Loop, ...], lane: int) -> dict[str, E.Expr]:
    """The unrolled iterators' values in lane ``lane`` of a site (row-major)."""
    env = {}
    for lp in reversed(site_loops):
        trip = _trip(lp)
        env[lp.var] = E.const(lp.init[0].value + (lane % trip) * lp.step)
        lane //= trip
    return env


def _direct_fits(loop: Loop, found: list[_Found], sol: ArraySolution) -> bool:
    """Even if every lane took a port of every bank, the banks would keep up."""
    lanes = {"read": 0, "write": 0}
    for f in found:
        lanes[f.access.kind] += prod(_trip(lp) for lp in f.loops) if all(
            constant_loop(lp) for lp in f.loops) else 1 << 30
    own = loop.unroll or 1 if loop.unroll != 0 else 1 << 30
    return sol.ports.fits(lanes["read"] * own, lanes["write"] * own, sol.worst_ii)


def _rotates(found: list[_Found], banking: Banking, contexts) -> bool:
    """Some lane's bank, as the emitted reference computes it, is not a constant."""
    bank = banking.scheme.bank_expr()
    for f in found:
        if not f.access.regular or not all(constant_loop(lp) for lp in f.loops):
            return True
        context = contexts[f.access.ref_id]
        mapping = {index_var(d): e for d, e in enumerate(f.access.index)}
        at_ref = E.substitute(bank, mapping)
        for lane in range(prod(_trip(lp) for lp in f.loops)):
            value = context.reduce(E.substitute(at_ref, lane_env(f.loops, lane)))
            if not isinstance(value, E.Const):
                return True
    return False


def _group(loop: Loop, sol: ArraySolution, found: list[_Found], contexts) -> Group | None:
    """The group, or None when the loop does not qualify (module doc).  A struct
    array whose accesses name two or more members is one memory per member
    (:func:`arraypart.ir.member_views`), each banked and counted apart; a site routes
    whole elements, every member of its word, so the sites a bank needs would be those
    of all members at once, each taking a port of every member's memory: such loops
    keep their references, as do those passing an element by reference (a register
    would take the callee's writes) and those writing a member of an element (its
    write register would hold that member only, and the store would write the whole
    element)."""
    if (sol.array.pragma_only or loop.unroll is not None or sol.banking.copies > 1
            or sol.kept or member_arrays(sol.array, [f.access.field for f in found])
            or any(f.access.by_reference for f in found)
            or any(f.access.kind == "write" and f.access.field is not None for f in found)
            or any(not f.access.regular for f in found)
            or not skippable_writes(loop).isdisjoint(f.access.ref_id for f in found)
            or not all(constant_loop(lp) for f in found for lp in f.loops)):
        return None
    guards = [_guard_c(f.guards) for f in found]
    if any(g is False for g in guards):
        return None  # a data-dependent condition
    by_ref: dict[int, list[str]] = {}
    for f in found:
        by_ref.setdefault(f.access.ref_id, []).append(f.access.kind)
    if any(kinds not in (["read"], ["write"], ["read", "write"]) for kinds in by_ref.values()):
        return None
    if not _order_kept(found, contexts):
        return None
    reads, writes = [], []
    for f, guard in zip(found, guards):
        sites = reads if f.access.kind == "read" else writes
        first = sum(s.lanes for s in sites)
        dead = frozenset(lane for lane in range(f.lanes) if not _live(f, lane))
        sites.append(Site(f.access, f.loops, first, guard, dead))
    sites = (min(sum(s.lanes for s in reads), _sites_per_bank(sol, "read")),
             min(sum(s.lanes for s in writes), _sites_per_bank(sol, "write")))
    measured = _measured_sites(sol.banking, reads, writes, contexts)
    if measured is not None:
        sites = (min(sites[0], measured[0]), min(sites[1], measured[1]))
    return Group(loop, sol.array, sol.banking, tuple(reads), tuple(writes), *sites)


def _measured_sites(banking: Banking, reads: list[Site], writes: list[Site],
                    contexts) -> tuple[int, int] | None:
    """(most distinct reads, most writes) any bank gets in one iteration, over the box
    of the intervals of the iterators the subscripts use (a superset of the
    iterations, so never below the real need); None when the box is too large to
    enumerate."""
    names = sorted({v for site in reads + writes for e in site.access.index
                    for v in E.variables(e)} -
                   {lp.var for site in reads + writes for lp in site.loops})
    env_all = contexts[(reads + writes)[0].access.ref_id].env()
    boxes = [env_all.get(v) for v in names]
    lanes = sum(s.lanes for s in reads + writes)
    if any(b is None for b in boxes):
        return None
    points = prod(hi - lo + 1 for lo, hi in boxes)
    if points * lanes > MEASURE_CELLS:
        return None
    grid = np.meshgrid(*[np.arange(lo, hi + 1) for lo, hi in boxes], indexing="ij")
    env = {v: g.ravel() for v, g in zip(names, grid)}
    scheme = banking.scheme
    strides = [prod(scheme.shape[d + 1:]) for d in range(len(scheme.shape))]
    counts = []
    for sites in (reads, writes):
        keys = []
        for site in sites:
            for lane in sorted(set(range(site.lanes)) - site.dead):
                fixed = lane_env(site.loops, lane)
                index = [E.evaluate(E.substitute(e, fixed), env) for e in site.access.index]
                bank = E.evaluate(scheme.bank_expr(),
                                  {index_var(d): x for d, x in enumerate(index)})
                address = sum(np.int64(k) * x for k, x in zip(strides, index))
                keys.append(np.broadcast_to(bank * scheme.size + address, (points,)))
        if not keys:
            counts.append(0)
            continue
        table = np.sort(np.stack(keys, axis=1), axis=1)
        if sites is reads:
            fresh = np.ones(table.shape, bool)
            fresh[:, 1:] = table[:, 1:] != table[:, :-1]
            table = np.where(fresh, table, -1)
        bank_of = np.where(table >= 0, table // scheme.size, -1)
        most = 0
        for b in range(scheme.banks):
            most = max(most, int((bank_of == b).sum(axis=1).max(initial=0)))
        counts.append(most)
    return counts[0], counts[1]


def _order_kept(found: list[_Found], contexts) -> bool:
    """Reads may move to the top of the body and writes to its end: no write instance
    comes, in program order, before a read or write instance of the same element.
    Instances are ordered by the iterations of the unrolled loops they share (outermost
    first), then by text; two are apart when some subscript differs by a non-zero
    constant, or when their subscripts differ at every point of the box of their
    iterators' intervals (:func:`_never_meet`: ``(4*i + 1) % 64`` and ``4*i``)."""
    writes = [(f, lane) for f in found if f.access.kind == "write"
              for lane in range(f.lanes) if _live(f, lane)]
    others = [(f, lane) for f in found for lane in range(f.lanes) if _live(f, lane)]
    if len(writes) * len(others) > MAX_ORDER_PAIRS:
        return False
    budget = [MEET_POINTS]
    for w in writes:
        for o in others:
            if o != w and _before(w, o) and not _apart(w, o, contexts, budget):
                return False
    return True


def _live(f: _Found, lane: int) -> bool:
    """Lane ``lane`` of ``f`` may run: no guard around it is decided against it by the
    unrolled iterators' values alone (a lane of :func:`boxed`'s box outside the
    triangle is not)."""
    env = lane_env(f.loops, lane)
    return all(_decided(cond, env) is not (not taken) for cond, taken in f.guards)


def _decided(cond: tuple[Conjunction, ...] | None, env: dict[str, E.Expr]) -> bool | None:
    """The value of the condition ``cond`` under ``env``, None when it depends on
    other variables."""
    if cond is None:
        return None
    values = [[_holds(c, env) for c in conj] for conj in cond]
    if any(all(v is True for v in conj) for conj in values):
        return True
    if all(any(v is False for v in conj) for conj in values):
        return False
    return None


def _holds(c: Constraint, env: dict[str, E.Expr]) -> bool | None:
    value = E.simplify(E.substitute(c.expr, env))
    if not isinstance(value, E.Const):
        return None
    return value.value >= 0 if c.op == ">=" else value.value == 0


def _lane_indices(f: _Found, lane: int) -> list[int]:
    out = []
    for lp in reversed(f.loops):
        out.append(lane % _trip(lp))
        lane //= _trip(lp)
    return out[::-1]


def _before(a: tuple[_Found, int], b: tuple[_Found, int]) -> bool:
    (fa, la), (fb, lb) = a, b
    shared = 0
    while (shared < min(len(fa.loops), len(fb.loops))
           and fa.loops[shared] is fb.loops[shared]):
        shared += 1
    ia, ib = _lane_indices(fa, la)[:shared], _lane_indices(fb, lb)[:shared]
    return ia < ib or (ia == ib and fa.order < fb.order)


def _apart(a: tuple[_Found, int], b: tuple[_Found, int], contexts, budget: list[int]
           ) -> bool:
    (fa, la), (fb, lb) = a, b
    env_a, env_b = lane_env(fa.loops, la), lane_env(fb.loops, lb)
    index_a = [E.substitute(e, env_a) for e in fa.access.index]
    index_b = [E.substitute(e, env_b) for e in fb.access.index]
    if _differ(index_a, index_b):
        return True
    intervals = {**contexts[fa.access.ref_id].env(), **contexts[fb.access.ref_id].env()}
    return _never_meet(index_a, index_b, intervals, budget)


def _never_meet(index_a, index_b, intervals, budget: list[int]) -> bool:
    """At every point of the box of the intervals of the variables in the two
    subscripts, some dimension differs (a box is a superset of the iterations, so the
    answer is safe).  ``budget[0]``: the points left to evaluate, shared by every pair
    of one loop (:data:`MEET_POINTS`); past it, False."""
    names = sorted({v for e in index_a + index_b for v in E.variables(e)})
    boxes = [intervals.get(v) for v in names]
    if any(b is None for b in boxes):
        return False
    budget[0] -= prod(hi - lo + 1 for lo, hi in boxes)
    if budget[0] < 0:
        return False
    grid = np.meshgrid(*[np.arange(lo, hi + 1) for lo, hi in boxes], indexing="ij")
    env = {v: g.ravel() for v, g in zip(names, grid)}
    meet = np.ones(prod(hi - lo + 1 for lo, hi in boxes), bool)
    for x, y in zip(index_a, index_b):
        meet &= np.asarray(E.evaluate(x, env) == E.evaluate(y, env))
    return not meet.any()


def _guard_c(guards: tuple[Guard, ...]) -> str | None | bool:
    """C text of the conjunction of ``guards`` (None: no guard; False: a condition
    is not affine, so it cannot be evaluated ahead of the body)."""
    parts = []
    for cond, taken in guards:
        if cond is None:
            return False
        if any(_constraint_c(c) is None for conj in cond for c in conj):
            return False
        text = " || ".join("(" + (" && ".join(_constraint_c(c) for c in conj) or "1")
                           + ")" for conj in cond) or "0"
        parts.append(f"({text})" if taken else f"!({text})")
    return " && ".join(parts) if parts else None


def _constraint_c(c: Constraint) -> str | None:
    form = E.affine_form(c.expr)
    if form is None:
        return None
    coeffs, constant = form
    # signed 64-bit terms: with an unsigned iterator, i - 1 >= 0 would always hold
    terms = [(f"(long long){v}" if k == 1 else f"-(long long){v}" if k == -1
              else f"{k}*(long long){v}") for v, k in sorted(coeffs.items()) if k]
    text = " + ".join(terms) or "0"
    if constant:
        text += f" + {constant}" if constant > 0 else f" - {-constant}"
    return f"{text.replace('+ -', '- ')} {c.op} 0"


def _sites_per_bank(sol: ArraySolution, kind: str) -> int:
    """Accesses of ``kind`` one bank serves per iteration at the loop's II: the ports
    that serve that kind x II (a ram_1wnr or ram_s2p bank takes one write a cycle)."""
    ports = sol.ports
    dedicated = ports.write_only if kind == "write" else ports.read_only
    ii = sol.worst_ii
    return (1 << 30) if dedicated is None else (ports.read_write + dedicated) * ii


# ---------------------------------------------------------------- rendering


@dataclass(frozen=True, slots=True)
class Names:
    """The C names one group uses: ``bank`` the explicit bank array, registers
    ``<prefix>_<suffix>``, and the unrolled loops' counters (``counters``: bank,
    lane, other lane, port)."""

    bank: str
    prefix: str
    counters: tuple[str, str, str, str] = ("k", "l", "m", "s")

    def of(self, suffix: str) -> str:
        return f"{self.prefix}_{suffix}"


def lane_index(site: Site) -> str:
    """C text of the lane number of ``site``'s current instance."""
    text, stride = [], 1
    for lp in reversed(site.loops):
        start, step = lp.init[0].value, lp.step
        term = lp.var
        if start:
            term = f"({term} - {start})" if step > 0 else f"({start} - {term})"
        elif step < 0:
            term = f"(-{term})"
        if abs(step) != 1:
            term = f"{term} / {abs(step)}"
        text.append(term if stride == 1 else f"{stride}*{term}")
        stride *= _trip(lp)
    parts = ([str(site.first)] if site.first or not text else []) + text[::-1]
    return " + ".join(parts)


def reference(group: Group, site: Site, names: Names) -> str:
    """What replaces the site's reference: its lane's value register."""
    register = names.of("rv" if site.access.kind == "read" else "wv")
    return f"{register}[{lane_index(site)}]"


def prologue(group: Group, names: Names, contexts) -> list[str]:
    """Lines at the top of the loop body: lane formulas, bank reads, read values."""

    lines = [f"// arraypart: {group.array.name}: {group.read_lanes} read and "
             f"{group.write_lanes} write lane(s) routed to {group.banking.scheme.banks} "
             f"bank(s), {group.read_sites}+{group.write_sites} site(s) per bank"]
    if group.reads:
        lines += _lane_formulas(group, group.reads, names, "r", contexts)
        if group.read_sites > 1:
            lines += _read_ranks(group, names)
        lines += _bank_reads(group, names)
    if group.writes:
        lines += _lane_formulas(group, group.writes, names, "w", contexts)
        elem = group.array.elem_type
        lines += _registers(elem, names.of("wv"), group.write_lanes)
        if group.write_sites > 1:
            lines += _write_ranks(group, names)
    return lines


def epilogue(group: Group, names: Names) -> list[str]:
    """Lines at the end of the loop body: the writes, one site per bank and port."""
    if not group.writes:
        return []
    n, lanes = group.banking.scheme.banks, group.write_lanes
    k, l, _, s = names.counters
    wb, wo, wp, wv = (names.of(x) for x in ("wb", "wo", "wp", "wv"))
    match = (f"{wb}[{l}] == {k}" + _active(group.writes, names, "w", l)
             + (f" && {wp}[{l}] == {s}" if group.write_sites > 1 else ""))
    body = ["unsigned on = 0, at = 0;",
            f"{group.array.elem_type} data = {wv}[0];",
            *_unrolled(l, lanes, [f"if ({match}) {{",
                                  "  on = 1;", f"  at = {wo}[{l}];", f"  data = {wv}[{l}];",
                                    "}"]),
            f"if (on) {names.bank}[{k}][at] = data;"]
    if group.write_sites > 1:
        body = _unrolled(s, group.write_sites, body)
    return _unrolled(k, n, body)


def _active(sites: tuple[Site, ...], names: Names, kind: str, lane: str) -> str:
    """`` && <kind>a[lane]`` when some lane of ``sites`` is guarded, else nothing."""
    return f" && {names.of(kind + 'a')}[{lane}]" if any(s.guard for s in sites) else ""


def _unrolled(var: str, count: int, body: list[str], start: str = "0") -> list[str]:
    return ([f"for (unsigned {var} = {start}; {var} < {count}u; {var}++) {{",
             "#pragma HLS unroll"] + ["  " + line for line in body] + ["}"])


def _registers(elem: str, name: str, count: int, dims: tuple[int, ...] = ()) -> list[str]:
    shape = "".join(f"[{d}]" for d in (count,) + dims)
    return [f"{elem} {name}{shape};",
            f"#pragma HLS array_partition variable={name} type=complete dim=0"]


def _lane_formulas(group: Group, sites: tuple[Site, ...], names: Names, kind: str,
                   contexts) -> list[str]:
    """``b[l]`` and ``o[l]`` of every lane, one statement per site inside copies of the
    site's unrolled loops."""
    bank_name, offset_name = names.of(kind + "b"), names.of(kind + "o")
    active = names.of(kind + "a")
    guarded = any(site.guard for site in sites)
    lanes = sum(s.lanes for s in sites)
    lines = (_registers("unsigned", bank_name, lanes)
             + _registers("unsigned", offset_name, lanes))
    if guarded:
        lines += _registers("unsigned", active, lanes)
    scheme = group.banking.scheme
    for site in sites:
        mapping = {index_var(d): e for d, e in enumerate(site.access.index)}
        context = contexts[site.access.ref_id]
        bank = context.reduce(E.substitute(scheme.bank_expr(), mapping))
        offset = context.reduce(E.substitute(scheme.offset_expr(), mapping))
        at = lane_index(site)
        if guarded:
            # a lane whose guard fails drives nothing and reads bank 0, word 0
            on = f"{active}[{at}]"
            body = [f"{on} = {site.guard or 1};",
                    f"{bank_name}[{at}] = {on} ? {_c(bank, context)} : 0u;",
                    f"{offset_name}[{at}] = {on} ? {_c(offset, context)} : 0u;"]
        else:
            body = [f"{bank_name}[{at}] = {_c(bank, context)};",
                    f"{offset_name}[{at}] = {_c(offset, context)};"]
        for lp in reversed(site.loops):
            body = _site_loop(lp, body)
        lines += body
    return lines


def _c(e: E.Expr, context: ranges.RefContext) -> str:
    text = E.to_c(e, str, interval=context.interval)
    return text[1:-1] if text.startswith("(") and text.endswith(")") and _balanced(
        text[1:-1]) else text


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0


def _site_loop(lp: Loop, body: list[str]) -> list[str]:
    """A copy of the user's unrolled loop header around ``body``."""
    start, end, step = lp.init[0].value, lp.bound[0].value, lp.step
    compare = "<=" if step > 0 else ">="
    advance = (f"{lp.var}++" if step == 1 else f"{lp.var}--" if step == -1
               else f"{lp.var} += {step}")
    return ([f"for (int {lp.var} = {start}; {lp.var} {compare} {end}; {advance}) {{",
             "#pragma HLS unroll"] + ["  " + line for line in body] + ["}"])


def _read_ranks(group: Group, names: Names) -> list[str]:
    """p[l] (module doc) and f[l]: lane l is the first to read its word.  When no two
    read lanes can ever read one word, every lane is first: p[l] counts the earlier
    lanes on its bank."""
    _, l, m, _ = names.counters
    if _distinct_words(group.reads):
        return _counted_ranks(group.reads, names, "r")
    rb, ro, rp, rf = (names.of(x) for x in ("rb", "ro", "rp", "rf"))
    on_m, on_l = _active(group.reads, names, "r", m), _active(group.reads, names, "r", l)
    lanes = group.read_lanes
    inner = [f"if ({m} < {l}{on_m} && fresh && {rb}[{m}] == {rb}[{l}]) {{",
             f"  if ({ro}[{m}] == {ro}[{l}]) fresh = 0;",
             f"  else if ({rf}[{m}]) rank++;",
             "}"]
    body = (["unsigned rank = 0, fresh = 1;"]
            + _unrolled(m, lanes, inner)
            + [f"{rf}[{l}] = fresh;",
               f"{rp}[{l}] = " + (f"{names.of('ra')}[{l}] ? rank : 0;" if on_l else "rank;")])
    return (_registers("unsigned", rp, lanes) + _registers("unsigned", rf, lanes)
            + _unrolled(l, lanes, body))


def _distinct_words(sites: tuple[Site, ...]) -> bool:
    """Every two lanes of ``sites`` differ by a non-zero constant in some subscript."""
    lanes = [(site, lane) for site in sites for lane in range(site.lanes)
             if lane not in site.dead]
    if len(lanes) ** 2 > MAX_ORDER_PAIRS:
        return False
    indices = [[E.substitute(e, lane_env(site.loops, lane)) for e in site.access.index]
               for site, lane in lanes]
    return all(_differ(indices[a], indices[b])
               for a in range(len(indices)) for b in range(a))


def _differ(index_a, index_b) -> bool:
    """Some subscript of the two differs by a non-zero constant (they never meet)."""
    return any(isinstance(d, E.Const) and d.value != 0
               for d in (E.simplify(E.add(x, E.scale(-1, y)))
                         for x, y in zip(index_a, index_b)))


def _write_ranks(group: Group, names: Names) -> list[str]:
    """A write's port: the earlier write lanes to its bank (every write counts)."""
    return _counted_ranks(group.writes, names, "w")


def _counted_ranks(sites: tuple[Site, ...], names: Names, kind: str) -> list[str]:
    """``<kind>p[l]``: the earlier active lanes of ``sites`` on lane l's bank."""
    _, l, m, _ = names.counters
    bank, port = names.of(kind + "b"), names.of(kind + "p")
    lanes = sum(s.lanes for s in sites)
    on_m = _active(sites, names, kind, m)
    body = (["unsigned rank = 0;"]
            + _unrolled(m, lanes,
                        [f"if ({m} < {l}{on_m} && {bank}[{m}] == {bank}[{l}]) rank++;"])
            + [f"{port}[{l}] = rank;"])
    return _registers("unsigned", port, lanes) + _unrolled(l, lanes, body)


def _bank_reads(group: Group, names: Names) -> list[str]:
    """One read site per bank and port, then each lane's value selected back."""
    n, sites, lanes = group.banking.scheme.banks, group.read_sites, group.read_lanes
    k, l, _, s = names.counters
    rb, ro, rp, rv, q = (names.of(x) for x in ("rb", "ro", "rp", "rv", "q"))
    elem = group.array.elem_type
    rank = f" && {rp}[{l}] == {s}" if sites > 1 else ""
    port = f"[{s}]" if sites > 1 else ""
    on = _active(group.reads, names, "r", l)
    select = [f"if ({rb}[{l}] == {k}{on}{rank}) at = {ro}[{l}];"]
    body = ["unsigned at = 0;", *_unrolled(l, lanes, select),
            f"{q}[{k}]{port} = {names.bank}[{k}][at];"]
    if sites > 1:
        body = _unrolled(s, sites, body)
    lines = _registers(elem, q, n, (sites,) if sites > 1 else ())
    lines += _unrolled(k, n, body)
    lines += _registers(elem, rv, lanes)
    for site in group.reads:
        at = lane_index(site)
        body = [f"{rv}[{at}] = {q}[{rb}[{at}]]" + (f"[{rp}[{at}]]" if sites > 1 else "") + ";"]
        for lp in reversed(site.loops):
            body = _site_loop(lp, body)
        lines += body
    return lines
