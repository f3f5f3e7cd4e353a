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

The clamp asks more than the claim needs: a window ``buf[off + i]``, ``buf[off + i + 1]``
read for ``i < n`` is bounded to ``off in 0..62``, ``n in 0..1``, and ``(off, n) = (0, 2)``
makes iteration ``i = 1``, which ``c(q) = (0, 1)`` does not; yet that cycle reads
``buf[1], buf[2]``, the cycle of ``(off, n) = (1, 1)``.  What a cycle needs of an array
depends on that array's accesses in it alone (DESIGN §2: the banking proof and the
port count that gives the II are per cycle and per array; each array is banked alone),
so the witness may be another point of ``B`` for each array and each cycle.  For a
pipelined loop and an array, with ``T`` the map from a cycle (the sizes, the outer
iterators, the loop's iterator) to the tuple of the array's addresses there (one
component per access and per lane of the fully unrolled loops inside; an off-chip
bundle's components carry no address, only their count), the array's cycles at every
``q`` of ``L`` are covered when

    T(L) ⊆ T(B)        (isl: the range of ``T`` over ``L`` in its range over ``B``)

Then every cycle at ``q`` issues, access for access and lane for lane, the addresses
of a cycle at a point of ``B``: the same banks, the same reads of one element merged,
so the same ports, which the proof over ``B`` found free of conflicts at the II;
a site the scheduling rule finds static over ``B`` (one bank over every cycle there)
keeps that bank at ``q`` (each component's values over ``L`` lie among those over
``B``).  A cycle with one on-chip access of the array needs no witness: it takes one
port of one bank, or one of each when its bank varies, which every port model serves.
The test is exact only where ``T`` is the cycle: every access of the array in the loop
runs in every lane of every iteration (its domain is the loop's times lanes of
constant count) and the loop is pipelined, not unrolled, or fully unrolled outside
pipelines (then its iterations are lanes, and the loops around it the time), its
text aliasing no arrays; elsewhere (a guard, lanes that a size moves, an unrolled
loop's blocks, the lanes of an ordered loop) the check stays access by access.

Where ``T(L)`` is not in ``T(B)`` for an on-chip array, the test waits for the banking
(:func:`check_banked`, after the search): a cycle needs of the banking only the bank
of each component and which components share an address (reads of one element
merged), so with ``b`` the bank function the cycles are covered when

    S(T(L)) ⊆ S(T(B)),   S(a_1, .., a_m) = (b(a_1), .., b(a_m), a_2 - a_1, .., a_m - a_1)

(the differences decide the equal pairs; ``out[2*i + k]``, ``k`` unrolled, under
cyclic 2 makes ``(0, 1, 1)`` at every ``i``, which the box's ``i = 0`` makes).

The checker's replay (:mod:`arraypart.check`) and ``check --trace`` (whose testbench
keeps each size in its range) drive points of ``B`` only; a covered ``q`` needs no
replay of its own, since the checker judges each cycle from its
tuples (banks and ports of each array's addresses), so its verdict on every cycle at
``q`` is its verdict on that cycle's witness in ``B``, where the proof holds.  Not
compared: orders across cycles.  The memory recurrences (:mod:`.recurrences`: a write
read back by the next iteration), which the report warns of and never folds into the
II, are found over ``L`` as well (:func:`outside_recurrences`): one that only calls
outside ``B`` make is a located warning at the call nearest the box.

Accesses outside pipelined and unrolled loops (a loop with ``pipeline off``, the body
of a loop around other loops, statements outside loops, a dataflow process's code
between its loops) share no cycle (DESIGN §2): no cycle group holds them, so no
banking proof, port count, lower bound or II rests on them, and the calls outside the
box ask nothing of them.  A dataflow region's processes run at once, but what the
model claims of them is their loops' (a ROM's copies add up each process's busiest
cycle, and each cycle at ``q`` is covered above by a cycle of ``B``).  What they do
feed is the program's order, whose warnings (:mod:`.order`: an undefined read, a
FIFO out of order) are given where a fault holds at every call of ``B`` that runs
the access, so their absence claims nothing, and the extents of pointers that
follow the sizes, off chip, whose transfers count whatever their addresses.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Mapping

import islpy as isl

from .. import expr as E
from .. import ir
from ..errors import KernelError
from ..frontend.fresh import NAME_MARK
from ..frontend.interfaces import MAX_DEFINE_PREFIX
from ..scheme import Banking, Scheme, index_var, none_scheme
from . import isl_glue as G
from .domains import Context, level_items
from .model import Recurrence
from .recurrences import MAX_PAIRS, met, next_iteration


def check_covered(kernel: ir.Kernel, allowed: tuple[ir.Param, ...], bad,
                  periodic: set[str], stated: set[str]) -> tuple[Uncovered, ...]:
    """Raise a located error when a call of ``L`` (module doc) makes an access that its
    clamp into the ranges of ``kernel.params`` does not make, unless the cycles of the
    access's array in its loop are covered as tuples (:func:`_cycle_tuples`), or may
    be once the array is banked: then the cycles whose tuples the box lacks are
    returned (:class:`Uncovered`, for :func:`check_banked`).  ``allowed``: the sizes
    as their types, bounds and guards allow them, ``bad``: the set ``Bad`` over them;
    ``periodic`` and ``stated`` as for :func:`_calls`."""
    box, meant, inside = _calls(kernel, bad, periodic, stated)
    on_chip = {a.name for a in kernel.arrays if a.memory}
    shared = list(_shared_cycles(kernel.body, Context.top(allowed)))
    groups: dict[tuple[int, str], list[_Shared]] = {}
    for s in shared:
        groups.setdefault((id(s.loop), s.access.array), []).append(s)
    covered: set[tuple[int, str]] = set()  # asked only of a group one access misses
    uncovered: list[Uncovered] = []
    for s in shared:
        key = (id(s.loop), s.access.array)
        if key in covered:
            continue
        error = _missed(kernel, s, key[1] in on_chip, box, meant)
        if error is None:
            continue
        tuples = _cycle_tuples(groups[key], key[1] in on_chip, meant, inside)
        if tuples is None:
            raise error
        if not tuples[0].is_subset(tuples[1]):
            if key[1] not in on_chip or kernel.array(key[1]).sampled_extent:
                raise error  # no address to bank, or one past the extent the box gives
            uncovered.append(Uncovered(key[1], tuples[0].subtract(tuples[1]).to_str(),
                                       tuples[1].to_str(), error))
        covered.add(key)
    return tuple(uncovered)


def _calls(kernel: ir.Kernel, bad, periodic: set[str], stated: set[str]):
    """``(box, L, B)``: the ranges of the sizes the clamp moves, the calls that have
    a meaning and the box's calls (module doc).  ``periodic``: the sizes whose claim
    covers every value (the on-chip accesses repeat every ``P`` values of them, or
    none depends on them), which are not clamped; ``stated``: the sizes whose range a
    warning already says stops short of larger values in ``L``
    (:func:`.sizes._gap_warning`), held to their ranges in ``L``."""
    names = tuple(p.name for p in kernel.params)
    box = {p.name: (p.low, None if p.unbounded else p.high) for p in kernel.params
           if p.name not in periodic}
    meant = G.universe(names).subtract(bad)
    for p in kernel.params:
        if p.name in stated:
            meant = meant.intersect(G.range_set(meant.space, p.name, p.low, p.high))
    inside = G.universe(names)
    for name, (low, high) in box.items():
        inside = inside.intersect(G.range_set(inside.space, name, low, high))
    return box, meant, inside


def outside_recurrences(kernel: ir.Kernel, allowed: tuple[ir.Param, ...], bad,
                        periodic: set[str], stated: set[str]) -> tuple[Recurrence, ...]:
    """The recurrences through memory (:mod:`.recurrences`: a pipelined loop's
    iteration reads an element the one before wrote) that calls of ``L`` make and no
    call of ``B`` makes, each at the call nearest the box: the model finds those of
    ``B`` only, and the II it reports holds at a call outside only without them.
    Per pipelined loop (not unrolled in time) and on-chip array with regular
    references, a reference is the union of its lanes, ``P -> element`` over the
    loop's body space, and a write ``W`` and read ``R`` meet at the calls

        { q : exists P in S(q), (next(P) -> e) in R, (P -> e) in W }

    minus where a write before ``R`` in the iteration wrote ``e`` again (the model's
    test, :func:`.recurrences.met`, over ``L`` instead of ``B``).  Arguments as for
    :func:`check_covered`."""
    box, meant, inside = _calls(kernel, bad, periodic, stated)
    if meant.is_subset(inside):
        return ()
    found: dict[tuple, Recurrence] = {}
    groups: dict[tuple[int, str], list[_Shared]] = {}
    for s in _shared_cycles(kernel.body, Context.top(allowed)):
        array = kernel.array(s.access.array)
        if s.loop.pipeline_ii is not None and s.loop.unroll is None and array.memory \
                and not (array.independent or array.stream):
            groups.setdefault((id(s.loop), array.name), []).append(s)
    for group in groups.values():
        for write, read, calls in _meetings(group, meant):
            if calls.intersect(inside).is_empty():
                key = (group[0].loop.name, read.coord, write.coord)
                found.setdefault(key, Recurrence(
                    group[0].loop.name, read.array, read.coord, write.coord,
                    outside=tuple(_nearest(calls, box).items())))
    return tuple(found.values())


def _meetings(group: list[_Shared], meant) -> Iterator[tuple[ir.Access, ir.Access, object]]:
    """(write, read, the calls of ``meant`` at which they meet) for each pair of
    regular references of ``group`` (one array in one pipelined loop, in evaluation
    order) that meet somewhere (:func:`outside_recurrences`)."""
    start = group[0].start
    n = start.domain.dim(G.SET)
    domain = start.domain.intersect(_lifted(meant, start))
    following = next_iteration(domain, group[0].loop.step < 0)
    maps = [(s.access, G.access_map(s.ctx.domain, s.access.index, s.access.array)
             .project_out(isl.dim_type.in_, n, s.ctx.domain.dim(G.SET) - n))
            for s in group if all(e is not None for e in s.access.index)]
    kinds = [a.kind for a, _ in maps]
    if kinds.count("read") * kinds.count("write") > MAX_PAIRS:
        return  # as the model leaves such a group (:data:`.recurrences.MAX_PAIRS`)
    for k, (read, read_map) in enumerate(maps):
        if read.kind != "read":
            continue
        before = [m for w, m in maps[:k] if w.kind == "write"]
        earlier = before[0] if before else None
        for m in before[1:]:
            earlier = earlier.union(m)
        for write, write_map in maps:
            if write.kind != "write":
                continue
            pairs = met(following, write_map, read_map, earlier)
            calls = pairs.domain().project_out(G.SET, meant.dim(G.SET),
                                               n - meant.dim(G.SET))
            if not calls.is_empty():
                yield write, read, calls


@dataclass(frozen=True)
class Uncovered:
    """Cycles of ``array`` in one loop that calls outside the box make and no call in
    it makes, as tuples of addresses: ``outside`` the tuples made only outside, ``T(L)
    \\ T(B)``, and ``inside`` those the box makes, ``T(B)`` (module doc), isl text of
    sets over one address per component (an access at a lane), its dimensions in
    order; ``error`` the located error at the access the clamp misses."""

    array: str
    outside: str
    inside: str
    error: KernelError


def check_banked(kernel: ir.Kernel, bankings: Mapping[str, Banking]) -> None:
    """Raise the located error of each of ``kernel.uncovered`` whose cycles the
    chosen banking does not cover: with ``b`` the bank function of ``bankings[array]``
    and, for a tuple ``t = (a_1, .., a_m)`` of addresses,

        S(t) = (b(a_1), .., b(a_m), a_2 - a_1, .., a_m - a_1)

    the cycles outside are covered when ``S(outside) ⊆ S(inside)``.  Then every such
    cycle makes, component by component, the banks of a cycle in the box, and the same
    pairs of equal addresses (the same reads merged), so it takes the same ports of
    the same banks as that cycle, which the proof over the box found free of
    conflicts at the II; a site of one bank over the box keeps it (each component's
    banks outside lie among those inside).  The checker judges a cycle by exactly
    these banks and equalities, so its verdict on the witness is its verdict there."""
    for u in kernel.uncovered:
        banking = bankings.get(u.array)  # none: one memory, as the checker takes it
        shape = kernel.array(u.array).shape
        scheme = none_scheme(shape) if banking is None else banking.scheme
        if scheme.shape != shape:
            raise u.error  # banked in a view of its own: no bank of these addresses
        outside, inside = (_signatures(isl.Set(text), scheme) for text in (u.outside, u.inside))
        if not outside.is_subset(inside):
            raise u.error


def _signatures(tuples, scheme: Scheme):
    """The set ``S(tuples)`` (:func:`check_banked`) for a set of address tuples of an
    array banked by ``scheme``."""
    dims = len(scheme.shape)
    names = [f"t{j}_{d}" for j in range(tuples.dim(G.SET) // dims) for d in range(dims)]
    space = G.set_space(names)
    tuples = tuples.reset_tuple_id()
    for k, name in enumerate(names):
        tuples = tuples.set_dim_name(G.SET, k, name)
    bank = scheme.bank_expr()
    parts = [E.substitute(bank, {index_var(d): E.var(f"t{j}_{d}") for d in range(dims)})
             for j in range(len(names) // dims)]
    parts += [E.add(E.var(f"t{j}_{d}"), E.scale(-1, E.var(f"t0_{d}")))
              for j in range(1, len(names) // dims) for d in range(dims)]
    signature = isl.Map.from_domain_and_range(isl.Set.universe(space), G.universe([]))
    for part in parts:
        signature = signature.flat_range_product(isl.Map.from_pw_aff(G.pw_aff(part, space)))
    return tuples.apply(signature)


def _missed(kernel: ir.Kernel, s: _Shared, on_chip: bool,
            box: dict[str, tuple[int | None, int | None]], meant) -> KernelError | None:
    """The located error at ``s.access`` when some call of ``meant`` (``L``) makes it
    where its clamp into ``box`` does not, ``R(q)`` not in ``R(c(q))``; else None."""
    names = tuple(p.name for p in kernel.params)
    index = s.access.index if on_chip else ()
    relation = G.access_map(s.ctx.domain, index, s.access.array)
    moved = {n: ends for n, ends in box.items() if G.depends_on(relation, n)}
    if not moved:
        return None  # R(q) = R(c(q)): c moves only sizes R does not read
    pulled = relation.preimage_domain_multi_pw_aff(
        G.clamped(relation.get_space().domain(), moved))
    missed = relation.subtract(pulled).domain()
    calls = missed.project_out(G.SET, len(names), missed.dim(G.SET) - len(names))
    calls = calls.intersect(meant)
    return None if calls.is_empty() else _uncovered(kernel, s.access, s.loop,
                                                    _nearest(calls, box))


#: The most lanes (access instances of one array in one cycle) :func:`_cycle_tuples`
#: compares as a tuple; an array with more keeps the check access by access.
LANE_LIMIT = 64


@dataclass(frozen=True, eq=False)
class _Shared:
    """An access inside a pipelined or unrolled loop: the context ``ctx`` it runs in,
    ``loop`` the outermost such loop around it, ``start`` the context of a cycle (that
    loop's body; the loop's own context where it is fully unrolled outside pipelines
    and its lanes run together) and ``lanes`` the loops between ``start`` and the
    access, outermost first."""

    access: ir.Access
    ctx: Context
    loop: ir.Loop
    start: Context
    lanes: tuple[ir.Loop, ...]


def _shared_cycles(body: tuple[ir.Node, ...], ctx: Context,
                   timed: tuple[ir.Loop, Context] | None = None,
                   lanes: tuple[ir.Loop, ...] = ()) -> Iterator[_Shared]:
    """The accesses of ``body`` inside a pipelined or unrolled loop (``timed``: the
    outermost such loop ``body`` is inside, with the context of its body; ``lanes``:
    the loops from there to ``body``)."""
    for item, item_ctx in level_items(body, ctx):
        if isinstance(item, ir.Access):
            if timed is not None:
                yield _Shared(item, item_ctx, timed[0], timed[1], lanes)
            continue
        inner = item_ctx.enter_loop(item)
        if timed is not None:
            yield from _shared_cycles(item.body, inner, timed, lanes + (item,))
        elif item.pipeline_ii is None and item.unroll == 0 and not item.ordered:
            # fully unrolled outside pipelines: its iterations are the lanes of a cycle
            yield from _shared_cycles(item.body, inner, (item, item_ctx), (item,))
        elif item.pipeline_ii is not None or item.unroll is not None:
            yield from _shared_cycles(item.body, inner, (item, inner))
        else:
            yield from _shared_cycles(item.body, inner)


def _cycle_tuples(group: list[_Shared], on_chip: bool, meant, inside):
    """The tuples of addresses ``(T(L), T(B))`` that the accesses ``group`` (all of one
    array in one loop) make in a cycle at the calls of ``meant`` (``L``) and of
    ``inside`` (``B``) (module doc): with the map

        T : (sizes, outer iterators, the loop's iterator) -> (A_1(x, l), .., A_m(x, l))

    one component per access and lane ``l`` (a point of the constant lanes of the
    loops inside), every cycle at ``L`` is covered when ``T(L) ⊆ T(B)``.  Only where
    ``T`` is exact: the loop is pipelined and not unrolled, or fully unrolled outside
    pipelines (its iterations lanes, the loops around it the time), shares no text with
    aliased arrays, and each access runs in every lane of every cycle (its domain is
    the cycle's times its lanes, which no outer value moves); None where that is not shown
    (the caller checks access by access).  A lone on-chip access a cycle needs no
    witness: it takes one port of one bank (of each, when its bank varies), which
    every port model serves; then, and where no access runs, two empty sets."""
    loop, start = group[0].loop, group[0].start
    if loop.call_aliases or not (loop.unroll is None and loop.pipeline_ii is not None
                                 or group[0].lanes[:1] == (loop,)):
        return None
    components = []
    for s in group:
        points = _lane_points(s)
        if points is None or len(components) + len(points) > LANE_LIMIT:
            return None
        index = s.access.index if on_chip else ()
        relation = G.access_map(s.ctx.domain, index, s.access.array)
        components += [_at_lane(relation, start.domain.dim(G.SET), p) for p in points]
    if not components or (on_chip and len(components) == 1):
        return G.empty([]), G.empty([])
    cycle = components[0]
    for component in components[1:]:
        cycle = cycle.flat_range_product(component)
    return tuple(cycle.intersect_domain(start.domain.intersect(_lifted(calls, start)))
                 .range() for calls in (meant, inside))


def _lane_points(s: _Shared) -> list[tuple[int, ...]] | None:
    """The values of the iterators of ``s.lanes`` at which ``s.access`` runs, the same
    in every iteration of ``s.loop`` (None where they are not: a guard or an outer
    value moves them, or they are unbounded)."""
    full = s.start
    for lane in s.lanes:
        full = full.enter_loop(lane)
    if not full.domain.is_equal(s.ctx.domain):
        return None
    n = s.start.domain.dim(G.SET)
    values = full.domain.project_out(G.SET, 0, n)
    if not (values.is_bounded() and s.start.domain.flat_product(values).is_equal(
            full.domain)):
        return None
    points: list[tuple[int, ...]] = []
    G.each_point(values, lambda p: points.append(tuple(
        p.get_coordinate_val(G.SET, k).to_python() for k in range(len(s.lanes)))))
    return sorted(points)


def _at_lane(relation, n: int, lane: tuple[int, ...]):
    """``relation`` (over the loop's body space, then the lanes) at the lane ``lane``:
    a map from the loop's body space alone."""
    for k, value in enumerate(lane):
        relation = relation.fix_val(isl.dim_type.in_, n + k,
                                    isl.Val.int_from_si(relation.get_ctx(), value))
    return relation.project_out(isl.dim_type.in_, n, len(lane))


def _lifted(calls, start: Context):
    """The set ``calls`` of the sizes as a set over ``start``'s space (the iterators
    free)."""
    sizes = calls.dim(G.SET)
    return calls.flat_product(G.universe(start.vars[sizes:]))


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
