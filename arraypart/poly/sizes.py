"""Run-time sizes bounded by the arrays they index: ``bound_sizes(kernel) -> kernel``.

A size ``p`` that no ``LOOP_TRIPCOUNT`` or ``-D`` bounds may still only take values for
which every reference stays inside its array: C gives a reference outside its array no
meaning.  With ``Bad`` the set of size vectors for which some regular reference leaves
its array somewhere in its iteration domain, the open sizes are bounded one after the
other, inside a box that never meets ``Bad``: it starts as one point (each open size at
its least value, or for a fresh size without one, :mod:`arraypart.frontend.fresh`, at
the least value from 0 up outside ``Bad``), and each size in turn widens to

    high(p) = min { v > anchor : (.., p = v, ..) in Bad, the others in the box } - 1
    low(p)  = max { v < anchor : (.., p = v, ..) in Bad, the others in the box } + 1

(``low`` only where it is open), so the box stays clear of ``Bad`` at every step.
The calls outside ``Bad`` need not form a box (``buf[a + b]``), so the box is then
checked against all of them together (:mod:`.cover`): a call outside it whose accesses
in a pipelined or unrolled loop are not among those of its clamp into the box is a
located error, unless its cycles make the address tuples of cycles in the box, or,
once the array is banked, their banks (``Kernel.uncovered``, checked by
:func:`.cover.check_banked`).
A signed size's least value is open (the front end takes only an unsigned one from 0
up): where no value below the anchor is in ``Bad``, it is the least ``L`` at which
the on-chip accesses change from one value to the next, every smaller value making
the accesses ``L`` makes (:func:`_least_value`: ``for (i = 0; i < n - 1; i++)`` gives
1), and a located error where they change at ever smaller values.

A size that no array bounds may still settle: above some value ``H`` the on-chip
accesses no longer change with it (:func:`_settled_above`: ``if (s <= 15)`` around
``buf[s]`` keeps every access that reads s to s <= 15).  It is then unbounded, proven and
replayed from its least value to ``H + 1``, inside the guards and past them; or above
``H`` they repeat every ``P`` values (:func:`_settling`: ``buf[s & 15]`` beside that
``buf[s]``), replayed to ``H + P``.

A size that only ``if`` conditions use (``if (i < n)``) and nothing but its type bounds
is dropped instead: the conditions on it become data dependent (both branches may run), a safe
over-approximation for every value of it.
"""

from __future__ import annotations

import math
from dataclasses import replace

from .. import expr as E
from .. import ir
from ..errors import KernelError, warning_text
from . import isl_glue as G
from .build import outside_set
from .cover import check_covered, outside_recurrences
from .domains import Context, access_relations, walk_loops
from .probes import with_probes

DEFINE_PREFIX = "ARRAYPART_MAX_"  # the -D that bounds a size (frontend.interfaces)
FRESH_MARK = ir.SIZE_MARK  # in the name of a fresh size (frontend.fresh.NAME_MARK)
TYPE_SOURCE = "its type "  # a size bounded by its type (frontend.interfaces.type_bound)
# The longest period (:func:`_period_of`) of a size that is replayed over one period
# instead of bounded: the checker replays each value, so a ``& 0xffff`` asks for a bound.
PERIOD_LIMIT = 1024


def bound_sizes(kernel: ir.Kernel) -> ir.Kernel:
    """``kernel`` with every size bounded (itself when all are); a located error for a
    size that nothing bounds."""
    kernel = _without_guard_sizes(kernel)
    allowed = kernel.params
    open_sizes = [p for p in kernel.params if None in (p.low, p.high) or _weakly_bounded(p)]
    if not open_sizes:
        return _finished(kernel)
    names = tuple(p.name for p in kernel.params)
    bad = G.empty(names)
    witnesses: list[tuple[str, object, ir.Access]] = []  # (which extent, bad sizes, by)
    sizes_space = Context.top(kernel.params).domain
    for relation in access_relations(kernel):
        array = kernel.array(relation.access.array)
        if array.sampled_extent:
            continue  # its extent follows the sizes (_with_sampled_extents)
        domain = relation.domain
        for e, size in zip(relation.access.index, array.shape):
            if e is None:
                continue
            outside = domain.intersect(outside_set(e, size, domain.space))
            sizes = outside.project_out(G.SET, len(names), outside.dim(G.SET) - len(names))
            if sizes_space.subtract(sizes).is_empty():
                continue  # left for every size: build_model's located error says so
            if not sizes.is_empty():
                # without the type bounds every size shares, which would make each
                # extent's bad sizes seem to depend on every size (_depends_on)
                sizes = sizes.gist(sizes_space)
                witnesses.append((f"the extent of {array.name} at {relation.access.coord}",
                                  sizes, relation.access))
                bad = bad.union(sizes)
    box = {p.name: (p.low, p.high) for p in kernel.params}
    for p in open_sizes:
        if p.low is not None:
            box[p.name] = (p.low, p.low)
    open_sizes = [_reopened(p, bad, box) for p in open_sizes]
    box = _anchored([p for p in open_sizes if p.low is None], bad, box, witnesses)
    inside = _within(bad, box, ())
    if inside.is_empty():
        box = _with_next_values(open_sizes, bad, box)
    if not inside.is_empty():
        raise _left_at_least_values(witnesses, box, open_sizes)
    bounded, gaps, stated = {}, [], set()
    periods = {p.name: _period_of(kernel, p.name) for p in open_sizes}
    order = sorted(open_sizes, key=lambda p: p.lower_end)  # a start widens last
    for k, p in enumerate(order):
        values = G.project_onto(_within(bad, box, (p.name,)), p.name)
        _check_loop_keeps_iterations(p, values, box, witnesses)
        size = _bounded(p, values, box[p.name][0], witnesses, box, periods[p.name],
                        _around(kernel, bounded, box, order[k + 1:]))
        if size.unbounded and not size.lower_end:
            later = {q.name: (box[q.name][0], None) for q in order[k + 1:]}
            size, capped = _replayed_where_loops_run(size, kernel.body, {**box, **later})
            gaps += capped
        bounded[p.name] = size
        gap = _gap_warning(p, size, values)
        stated |= {p.name} if gap else set()
        gaps += gap
        box[p.name] = (size.low, size.high)
    signed = [p for p in open_sizes if p.low is None and not p.lower_end
              and periods[p.name] is None]
    bounded = _lowered(signed, bounded, bad, box, kernel)
    params = tuple(bounded.get(p.name, p) for p in kernel.params)
    periodic = {n for n, size in bounded.items()  # claimed for every value (_bounded)
                if size.unbounded and (periods[n] or PERIOD_LIMIT + 1) <= PERIOD_LIMIT}
    ranged = replace(kernel, params=params)
    uncovered = check_covered(ranged, allowed, bad, periodic, stated)
    recurrences = outside_recurrences(ranged, allowed, bad, periodic, stated)
    return _finished(replace(ranged, warnings=kernel.warnings + tuple(gaps),
                             uncovered=uncovered, outside_recurrences=recurrences))


def _lowered(signed: list[ir.Param], bounded: dict[str, ir.Param], bad, box: dict,
             kernel: ir.Kernel) -> dict[str, ir.Param]:
    """``bounded`` with the least value of each ``signed`` size (:func:`_least_value`)
    taken again with every other size in its final range, until none lowers: one
    bounded before another compared its accesses with the other's values from its
    anchor up only (``for (i = start; i < n; i++)`` reading ``buf[n + 7]``: n from 0
    while start was held from 0 up; start's range, from -8, runs n = -1, and buf[6])."""
    lowered = True
    while lowered:
        lowered = False
        for p in signed:
            size = bounded[p.name]
            values = G.project_onto(_within(bad, box, (p.name,)), p.name)
            others = {n: q for n, q in bounded.items() if n != p.name}
            around = _around(kernel, others, box, [])
            low = _least_value(p, values, size.low, _changes(around, p.name))[0]
            if low < size.low:
                bounded[p.name] = replace(size, low=low)
                box[p.name] = (low, box[p.name][1])
                lowered = True
    return bounded


def _around(kernel: ir.Kernel, bounded: dict[str, ir.Param], box: dict,
            later: list[ir.Param]) -> ir.Kernel:
    """``kernel`` with the sizes ``bounded`` so far in their ranges and those bounded
    ``later`` from their least values in ``box`` up: where the others may lie while
    one size's accesses are compared from value to value (:func:`_changes`)."""
    after = {q.name for q in later}
    return replace(kernel, params=tuple(
        bounded.get(q.name, replace(q, low=box[q.name][0], high=None, source=None,
                                    unbounded=False) if q.name in after else q)
        for q in kernel.params))


def _finished(kernel: ir.Kernel) -> ir.Kernel:
    """``kernel``, its sizes bounded, with the extents that follow them, a warning
    per size that nothing bounds, and the probes that run every pipelined loop."""
    return with_probes(_with_unbounded_warnings(_with_sampled_extents(kernel)))


def _with_sampled_extents(kernel: ir.Kernel) -> ir.Kernel:
    """``kernel`` with the extent of each pointer that follows the sizes
    (``Array.sampled_extent``) one past the largest index its accesses reach, every
    size in its range (those nothing bounds up to their samples): what the checker
    and the testbench replay."""
    if not any(a.sampled_extent for a in kernel.arrays):
        return kernel
    highs: dict[str, int] = {}
    for relation in access_relations(kernel):
        array = kernel.array(relation.access.array)
        first = relation.access.index[0] if relation.access.index else None
        if not array.sampled_extent or first is None:
            continue
        reached = G.value_range(G.pw_aff(first, relation.domain.space), relation.domain)
        if reached is not None:
            highs[array.name] = max(highs.get(array.name, 0), reached[1])
    return replace(kernel, arrays=tuple(
        replace(a, shape=(highs.get(a.name, 0) + 1,) + a.shape[1:]) if a.sampled_extent
        else a for a in kernel.arrays))


# The most iterations a loop makes at the value up to which a size that nothing bounds
# is replayed (:func:`_replayed_where_loops_run`): the checker steps each one in Python
# and the trace runs them all, so more would take minutes (``for (j < n)`` beside a loop
# that runs only from n = 2^20 on, ``i < (n >> 20)``).
REPLAY_TRIPS = 1 << 16


def _replayed_where_loops_run(p: ir.Param, body: tuple[ir.Node, ...], box: dict
                              ) -> tuple[ir.Param, list[str]]:
    """``p``, a size that nothing bounds, replayed up to where the loops run: its
    ``high`` raised to the least value at which each loop, in some run of it (the
    other sizes anywhere in ``box``), makes ``min(M, R)`` iterations, ``M`` the most it
    makes at any value and ``R`` those that show every cycle of it
    (:func:`_iterations_shown`); a loop that no value runs counts for nothing.  At a
    smaller sample a loop that ``p`` bounds may not run at all (``b < n / 32`` with n up
    to 16), its accesses, and the lanes unrolled inside it, missing from the model, the
    checker and the trace: the banking proven would not hold for larger values.  Not
    past the last value at which no loop makes more than :data:`REPLAY_TRIPS`
    iterations because of ``p`` (a warning says which loop is then not replayed
    fully, and why)."""
    names = tuple(box)
    top = G.universe(names)
    for name, (low, high) in box.items():
        top = top.intersect(G.range_set(top.space, name, low,
                                        None if name == p.name else high))
    high, wanted, cap, longest = p.high, None, None, None
    for loop, ctx, outer in walk_loops(body, Context(names, top)):
        if ctx.domain.is_empty():
            continue
        space = ctx.domain.space
        trips = G.trip_count(loop, space, loop.init, loop.bound).intersect_domain(ctx.domain)
        most = trips.max_val()
        target = _iterations_shown(loop, outer, None if most.is_infty() else most.to_python())
        values = G.project_onto(trips.ge_set(G.constant(space, max(target, 1))), p.name)
        if not values.is_empty() and G.first_point(values)[p.name] > high:
            high, wanted = G.first_point(values)[p.name], loop.name
        over = G.project_onto(trips.ge_set(G.constant(space, REPLAY_TRIPS + 1)), p.name)
        if not over.is_empty() and G.first_point(over)[p.name] > p.high and (
                cap is None or G.first_point(over)[p.name] - 1 < cap):
            cap, longest = G.first_point(over)[p.name] - 1, loop.name
    if cap is None or high <= cap:
        return replace(p, high=high), []
    return replace(p, high=cap), [warning_text(p.coord, (
        f"run-time size {ir.size_words(p.name)} is replayed up to {cap}, not up to {high}, the least "
        f"value at which loop {wanted} makes the iterations that show its cycles: past "
        f"{cap} loop {longest} makes more than {REPLAY_TRIPS} iterations, which the "
        f"checker and the trace would take minutes over; the banking of {wanted} is "
        f"proven for every value, but replayed up to {cap} only (bound {ir.size_words(p.name)} with "
        f"LOOP_TRIPCOUNT max= or -D {DEFINE_PREFIX}{p.name}= to choose the values "
        f"replayed)"))]


def _iterations_shown(loop: ir.Loop, outer: tuple[ir.Loop, ...], most: int | None) -> int:
    """The iterations of ``loop`` that show every cycle its accesses take, at most the
    ``most`` it makes (None: no most), where no on-chip access depends on how many it
    makes (each iteration is the same): one, where they run one after another; a block
    of lanes for a partial unroll; :data:`arraypart.ir.UNBOUNDED_SAMPLE` runs of its
    body for a pipelined loop, whose iterations overlap (iterations up to so many
    apart are seen in flight together); every one where they are lanes (a complete
    unroll, a loop inside a pipeline)."""
    if loop.unroll == 0 or any(o.pipeline_ii is not None for o in outer):
        return ir.UNBOUNDED_SAMPLE if most is None else most
    shown = (loop.unroll or 1) * (ir.UNBOUNDED_SAMPLE if loop.pipeline_ii is not None else 1)
    return shown if most is None else min(shown, most)


# How far past a size's inferred range :func:`_gap_warning` looks for values that keep
# every access inside its array.
GAP_REACH = 4096


def _gap_warning(p: ir.Param, bounded: ir.Param, values) -> list[str]:
    """A warning when ``bounded``'s range, the values from its least one up to the
    first that takes an access outside its array (``values``: those that do), stops
    short of larger values that take none (``for (i = 0; i < n; i += 2)`` reading
    ``A[n - 1 - i]``: odd n read A[-1], so n is [0, 0] though every even n is a valid
    call): the banking is proven, checked and tested over that range only.  None for
    the start of a loop counting up (``Param.lower_end``): held at its least value,
    its domain holds the domain of every larger start, which only shortens the loop
    (before, ``for (k = rowPtr[0]; ...)`` was said to leave its array at start 1)."""
    if bounded.unbounded or bounded.high is None or bounded.high == p.high or p.lower_end:
        return []
    reach = p.high if p.high is not None else bounded.high + GAP_REACH
    beyond = G.range_set(values.space, p.name, bounded.high + 2, reach).subtract(values)
    if beyond.is_empty():
        return []
    example = G.first_point(beyond)[p.name]
    return [warning_text(p.coord, (
        f"run-time size {ir.size_words(p.name)} is taken as [{bounded.low}, {bounded.high}] "
        f"({bounded.source}: the next value takes an access outside its array), yet "
        f"larger values such as {example} take none; the banking is proven, checked and "
        f"tested over [{bounded.low}, {bounded.high}] only: state the values the kernel "
        f"takes (an assert, LOOP_TRIPCOUNT, or -D {DEFINE_PREFIX}{p.name}=<largest>)"))]


def _reopened(p: ir.Param, bad, box: dict) -> ir.Param:
    """``p`` with its least value open again when the sizes at their least values are
    in ``Bad`` but a larger value of ``p`` (the others held) is not: ``child[n - 2]``
    gives ``n = 0`` and ``n = 1`` no meaning, so they are no values the program runs
    with, and the least value becomes the next one outside ``Bad`` (:func:`_bounded`)."""
    if FRESH_MARK in p.name or p.low is None or _within(bad, box, ()).is_empty():
        return p
    return p if _good_values(p, bad, box, p.low + 1).is_empty() else replace(p, low=None)


def _with_unbounded_warnings(kernel: ir.Kernel) -> ir.Kernel:
    """``kernel`` with a warning per size that nothing bounds (:data:`ir.UNBOUNDED_SAMPLE`)."""
    found = tuple(_unbounded_warning(kernel, p) for p in kernel.params if p.unbounded)
    return replace(kernel, warnings=kernel.warnings + found) if found else kernel


def _unbounded_warning(kernel: ir.Kernel, p: ir.Param) -> str:
    period = _period_of(kernel, p.name)
    settled, every = (None, 1) if period is not None else _settling(
        kernel, p.name, _changes(kernel, p.name))
    if _never_changes(settled, every, p.low):
        period = 1  # a guard of a stream's accesses reads it, no on-chip access does
    if period is None:
        how = (f"no on-chip access changes with it above {settled}" if every == 1 else
               f"above {settled} the on-chip accesses repeat every {every} values of it")
        return warning_text(p.coord, (
            f"run-time size {ir.size_words(p.name)}: nothing bounds it, but {how} (the conditions "
            f"around the accesses that depend on it), so the banking holds for every "
            f"value; the checker and the testbench replay it from {p.low} up to {p.high}"))
    if period > 1:
        return warning_text(p.coord, (
            f"run-time size {ir.size_words(p.name)}: nothing bounds it, but the on-chip accesses "
            f"repeat every {period} values of it, so the banking holds for every value; "
            f"the checker and the testbench replay it from {p.low} up to {p.high}"))
    if p.lower_end:
        return warning_text(p.coord, (
            f"loop start {ir.size_words(p.name)}: nothing bounds it, but no on-chip access depends "
            f"on it, so the banking holds for every value; the checker and the "
            f"testbench replay it at {p.low}"))
    return warning_text(p.coord, (
        f"run-time size {ir.size_words(p.name)}: nothing bounds it, but no on-chip access depends on "
        f"it, so the banking holds for every value from {p.low} up; the checker and the "
        f"testbench replay it up to {p.high} (add LOOP_TRIPCOUNT max= to bound it)"))


def _period_of(kernel: ir.Kernel, name: str) -> int | None:
    """The ``P`` by which the size ``name`` may grow with every on-chip access and
    every guard unchanged (:func:`arraypart.expr.period`): 1 when none depends on it
    (nor on the iterator of a loop whose bounds depend on it, transitively), then
    every value of it gives the same accesses per cycle; ``P > 1`` when it reaches them
    only through mods (``buf[(start + i) & 15]``), then the values ``v`` and
    ``v + P`` give the same ones; None otherwise."""
    on_chip = {a.name for a in kernel.arrays if a.memory}
    periods = [1]

    def exprs_keep(exprs, tainted: frozenset[str]) -> bool:
        for e in exprs:
            step = E.period(e, name)
            if step is None or E.variables(e) & (tainted - {name}):
                return False
            periods.append(step)
        return True

    def indices(accesses):
        return (e for a in accesses if a.array in on_chip for e in a.index if e is not None)

    def keep(nodes: tuple[ir.Node, ...], tainted: frozenset[str]) -> bool:
        for node in nodes:
            if isinstance(node, ir.Loop):
                ends = set().union(*(E.variables(e) for e in node.init + node.bound))
                inner = tainted | {node.var} if ends & tainted else tainted
                if not keep(node.body, inner):
                    return False
            elif isinstance(node, ir.If):
                guards = (c.expr for conj in node.cond or () for c in conj)
                if not (exprs_keep(guards, tainted)
                        and exprs_keep(indices(node.cond_accesses), tainted)
                        and keep(node.then + node.orelse, tainted)):
                    return False
            elif not exprs_keep(indices(node.accesses), tainted):
                return False
        return True

    return math.lcm(*periods) if keep(kernel.body, frozenset((name,))) else None


def _witness(witnesses, box, free: tuple[str, ...], at: tuple[str, int] | None = None
             ) -> str:
    """The first extent left by some size vector in ``box`` (``at``: with one size at
    one value)."""
    for text, sizes, _ in witnesses:
        inside = _within(sizes, box, free)
        if at is not None:
            inside = inside.intersect(G.range_set(inside.space, at[0], at[1], at[1]))
        if not inside.is_empty():
            return text
    return "an array's extent"


def _left_at_least_values(witnesses, box, open_sizes: list[ir.Param]) -> KernelError:
    """The error, at the access, when the open sizes at the least values they may take
    (each one's least, or least clear of the extents that depend on it alone) already
    send an access out of its array: no range of them keeps every access inside."""
    for _, sizes, access in witnesses:
        inside = _within(sizes, box, ())
        if inside.is_empty():
            continue
        point = G.first_point(inside)
        values = ", ".join(f"{p.name} = {point[p.name]}" for p in open_sizes
                           if FRESH_MARK not in p.name)
        return KernelError(access.coord, (
            f"this access may leave {access.array} with the run-time sizes that nothing bounds "
            f"at the least values they may take ({values}), so no range of them keeps it "
            f"inside: bound them (a LOOP_TRIPCOUNT max= or -D {DEFINE_PREFIX}<name>=) or "
            f"guard the access with a condition on them"))
    raise AssertionError("no extent is left inside the box")


def _check_loop_keeps_iterations(p: ir.Param, values, box, witnesses) -> None:
    """A located error when the arrays, with the other sizes anywhere in their ranges,
    leave a fresh size no value at which its loop runs: a loop the program runs would
    vanish from the model.  (Its values depend on theirs, ``len = min(B, size - i)``,
    which independent ranges cannot hold; here the ranges claimed for the others, a
    LOOP_TRIPCOUNT, allow more than the arrays do.)"""
    anchor = box[p.name][0]
    if FRESH_MARK not in p.name or p.lower_end or anchor > 0:
        return
    bad_at_one = values.intersect(G.range_set(values.space, p.name, anchor + 1, anchor + 1))
    if not bad_at_one.is_empty():
        raise KernelError(p.coord, (
            f"loop bound {ir.size_words(p.name)}: with the other sizes anywhere in their ranges "
            f"({_ranges_text(box, p.name)}), {_witness(witnesses, box, (p.name,))} "
            f"leaves its loop no iteration; bound them as the arrays allow (a "
            f"LOOP_TRIPCOUNT max= or -D {DEFINE_PREFIX}<name>=), or write the bound as "
            f"an affine expression"))


def _ranges_text(box, skip: str) -> str:
    return ", ".join(f"{n} in [{lo}, {hi}]" for n, (lo, hi) in box.items()
                     if n != skip and FRESH_MARK not in n)


def _with_next_values(open_sizes: list[ir.Param], bad, box: dict) -> dict:
    """``box`` with each open size's range taken from its least value to the next
    where the box stays clear of ``Bad``: at their least values (often 0) the loops
    the sizes bound may not run, and an inner loop that never runs lets no array
    bound the size of the loop around it (``y < rows``, ``x < cols``, ``A[y][x]``:
    with cols at 0, A says nothing of rows)."""
    for p in open_sizes:
        low = box[p.name][0]
        wider = {**box, p.name: (low, low + 1)}
        if (p.high is None or low + 1 <= p.high) and _within(bad, wider, ()).is_empty():
            box = wider
    return box


def _weakly_bounded(p: ir.Param) -> bool:
    """A size whose known range no one claimed (a fresh size's, a type's): the arrays
    may narrow it, where a LOOP_TRIPCOUNT or -D that they contradict is an error.  A
    trip count its loop's guard bounds is the most of any run of the loop: the arrays
    bound each run, not all of them, so they do not narrow it (an access under a
    data-dependent ``if`` past its array is then the located error it is elsewhere)."""
    source = p.source or ""
    return (FRESH_MARK in p.name and not source.startswith(ir.GUARD_SOURCE)) or \
        source.startswith(TYPE_SOURCE)


def _within(bad, box: dict[str, tuple[int | None, int | None]], free: tuple[str, ...]):
    """The points of ``bad`` inside ``box`` on every size but those ``free``."""
    for name, (low, high) in box.items():
        if name not in free:
            bad = bad.intersect(G.range_set(bad.space, name, low, high))
    return bad


def _anchored(unanchored: list[ir.Param], bad, box: dict, witnesses) -> dict:
    """``box`` with each size of ``unanchored`` held at its anchor (:func:`_anchor`),
    taken in turn, one that has none while others are open taken again once they are
    held; those that none of them lets have one alone are held together
    (:func:`_held_together`).  With two signed sizes, ``for (i = start; i < n; i++)``
    over ``buf[i]`` leaves buf for every n while start may be anything, and for none
    once start is held."""
    while unanchored:
        waiting = []
        for p in unanchored:
            try:
                box = {**box, p.name: _anchor(p, bad, box, witnesses)}
            except KernelError:
                waiting.append(p)
        if len(waiting) == len(unanchored):
            return _held_together(waiting, bad, box, witnesses)
        unanchored = waiting
    return box


def _held_together(waiting: list[ir.Param], bad, box: dict, witnesses) -> dict:
    """``box`` with the sizes ``waiting`` held at the least point, each from 0 up to its
    largest value, at which no access leaves its array, the others where ``box`` holds
    them (``buf[i + 8]`` for ``i`` from ``start`` to ``n`` and ``buf[n + 7]``: start =
    n = 0); the located error of the first when there is none."""
    names = {p.name: p for p in waiting}
    good = G.universe(G.dim_names(bad)).subtract(bad)
    for name, (low, high) in box.items():
        low = 0 if name in names else low
        good = good.intersect(G.range_set(good.space, name, low, high))
    if good.is_empty():
        _anchor(waiting[0], bad, box, witnesses)  # raises its located error
    point = G.first_point(good)
    return {**box, **{name: (point[name], point[name]) for name in names}}


def _anchor(p: ir.Param, bad, box, witnesses) -> tuple[int, int]:
    """A value of ``p`` (without a least value yet) at which no access leaves its
    array, the other sizes held where they are known: the least such one from 0 up,
    or for a size bounded below 0 (a signed one, ``i < n + 10`` run at most 5 times)
    the largest such one.  Only the extents whose bad sizes depend on ``p`` count: one
    that other sizes alone exceed (another loop nest's, its sizes not yet known) says
    nothing of p."""
    own = G.empty(G.dim_names(bad))
    for _, sizes, _ in witnesses:
        if _depends_on(sizes, p.name):
            own = own.union(sizes)
    negative = p.high is not None and p.high < 0
    good = _good_values(p, own, box, None if negative else 0)
    if good.is_empty():
        raise KernelError(p.coord, (
            f"loop start or bound {ir.size_words(p.name)}: {_witness(witnesses, _known(p, box), (p.name,))} "
            f"is exceeded for every value {f'up to {p.high}' if negative else 'from 0 up'}"))
    anchor = (G.last_point if negative else G.first_point)(good)[p.name]
    return anchor, anchor


def _depends_on(sizes, name: str) -> bool:
    """Whether the set of size vectors ``sizes`` constrains dimension ``name``."""
    at = sizes.space.find_dim_by_name(G.SET, name)
    return not sizes.eliminate(G.SET, at, 1).is_equal(sizes)


def _known(p: ir.Param, box: dict) -> dict:
    """The other sizes' ranges where both ends are known."""
    return {n: b for n, b in box.items() if n != p.name and None not in b}


def _good_values(p: ir.Param, bad, box: dict, low: int | None):
    """The values of ``p`` from ``low`` to its greatest at which no access leaves its
    array, the other sizes held where they are known (:func:`_known`)."""
    values = G.project_onto(_within(bad, _known(p, box), ()), p.name)
    return values.complement().intersect(G.range_set(values.space, p.name, low, p.high))


def _free_source(period: int) -> str:
    """What bounds a size that stays unbounded (``Param.source``)."""
    if period == 1:
        return "nothing (no on-chip access depends on it)"
    return f"nothing (the on-chip accesses repeat every {period} values of it)"


def _never_changes(settled: int | None, every: int, low: int | None) -> bool:
    """No on-chip access changes with a size from its least value ``low`` up: they
    settle (``every`` 1) below it (``settled`` is -1 where none depends on it at all,
    as in a kernel whose loops touch streams only, their guards reading the size).
    It is then replayed as a size no on-chip access depends on is, up to
    :data:`arraypart.ir.UNBOUNDED_SAMPLE` (it was replayed from 0 up to 0, and said
    to settle above -1)."""
    return settled is not None and every == 1 and low is not None and settled < low


def _settled_source(settled: int, every: int) -> str:
    """What bounds a size that settles above ``settled``, repeating ``every`` values
    there (``Param.source``)."""
    if every == 1:
        return f"nothing (no on-chip access changes with it above {settled})"
    return (f"nothing (above {settled} the on-chip accesses repeat every {every} values "
            f"of it)")


def _settling(kernel: ir.Kernel, name: str, changes: list) -> tuple[int | None, int]:
    """``(H, P)``: above ``H`` the on-chip accesses at ``v`` and ``v + P`` agree, so a
    banking proven from the least value up to ``H + P`` holds for every value (each
    larger one makes the accesses of one in ``[H + 1, H + P]``).  ``P`` is 1 where they
    settle (:func:`_settled_above` of ``changes``), else the period of the indices and
    guards that repeat with the size (:func:`_recurring_period`; ``if (s > 15)
    return;`` around ``buf[s]`` and ``buf[s & 15]`` after it: H = 15, P = 16); ``H``
    None where neither holds."""
    settled = _settled_above(changes, name)
    period = 1 if settled is not None else _recurring_period(kernel, name)
    if period == 1:
        return settled, 1
    return _settled_above(_changes(kernel, name, period), name), period


def _recurring_period(kernel: ir.Kernel, name: str) -> int:
    """The lcm of the periods (:func:`arraypart.expr.period`) with which the on-chip
    indices and the guards that repeat with the size ``name`` do (``buf[s & 15]``: 16),
    1 where none does or the lcm passes :data:`PERIOD_LIMIT`."""
    on_chip = {a.name for a in kernel.arrays if a.memory}
    exprs = [e for a in ir.accesses(kernel.body) if a.array in on_chip
             for e in a.index if e is not None] + list(_guard_exprs(kernel.body))
    periods = [E.period(e, name) for e in exprs if name in E.variables(e)]
    period = math.lcm(*(q for q in periods if q is not None))
    return period if period <= PERIOD_LIMIT else 1


def _guard_exprs(nodes: tuple[ir.Node, ...]):
    """The expressions of the conditions of every ``if`` under ``nodes``."""
    for node in nodes:
        if isinstance(node, ir.If):
            yield from (c.expr for conj in node.cond or () for c in conj)
            yield from _guard_exprs(node.then + node.orelse)
        elif isinstance(node, ir.Loop):
            yield from _guard_exprs(node.body)


def _settled_above(changes: list, name: str) -> int | None:
    """The least ``H`` above which the on-chip accesses no longer change with the size
    ``name`` (``changes``, :func:`_changes`'s): the largest value at which some on-chip
    access relation differs from one value of it to the next; None when they change at
    ever larger values.  Every value above ``H`` then makes the accesses ``H + 1`` makes,
    so a banking proven up to ``H + 1`` holds for every value: guards around the
    accesses that read it (``if (s >= 0 && s <= 15)`` around ``buf[s]``: H = 15) bound
    it where it is used, and nothing needs to bound it elsewhere."""
    lasts = [G.largest(changed, name) for changed in changes]
    return None if None in lasts else max(lasts, default=-1)


def _changes(kernel: ir.Kernel, name: str, step: int = 1) -> list:
    """Per on-chip access relation that changes with the size ``name`` (its range
    opened above), the values ``v`` at which it differs from that at ``v + step``, its
    iterations and addresses compared with the other sizes anywhere
    (:func:`.isl_glue.changes`)."""
    opened = tuple(replace(p, high=None, source=None, unbounded=False) if p.name == name
                   else p for p in kernel.params)
    found = []
    for relation in access_relations(replace(kernel, params=opened)):
        if kernel.array(relation.access.array).memory:
            changed = G.changes(relation.access_map, name, step)
            if not changed.is_empty():
                found.append(changed)
    return found


def _least_value(p: ir.Param, values, anchor: int,
                 changes: list) -> tuple[int, int | None]:
    """The least value of a signed size ``p`` that nothing bounds below, and the value
    below it that takes an access outside its array (None where it is not that one):
    one above the largest value below ``anchor`` that does (``values``), or, where
    larger, the least ``L`` at which an on-chip access relation changes from one value
    to the next (``changes``, :func:`_changes`'s; ``anchor`` when none does), every
    smaller value making the accesses ``L`` makes (``for (i = 0; i < n - 1; i++)``: 1,
    n = 0 and n = -5 run nothing either).  Before, 0 was assumed: ``buf[i] +
    buf[off + 8]`` was proven for off >= 0 only, and off = -4 reads the bank of buf[i].
    A located error where neither exists (the accesses change at ever smaller values,
    all inside their arrays)."""
    below = values.intersect(G.range_set(values.space, p.name, None, anchor - 1))
    last = None if below.is_empty() else G.last_point(below)[p.name]
    firsts = [G.smallest(changed, p.name) for changed in changes]
    settled = None if None in firsts else min(firsts, default=anchor)
    if last is None and settled is None:
        raise KernelError(p.coord, (
            f"run-time size {ir.size_words(p.name)} is signed and nothing bounds it below: the "
            f"on-chip accesses change with it at ever smaller values, each inside its "
            f"array; state its least value (assert({p.name} >= <least>)) or make it "
            f"unsigned"))
    if settled is not None and (last is None or settled > last):
        return settled, None
    return last + 1, last


def _bounded(p: ir.Param, values, anchor: int, witnesses, box, period: int | None,
             kernel: ir.Kernel) -> ir.Param:
    """``p`` with its open ends set: from ``anchor`` (a value for which no access
    leaves its array) up and down to the nearest ``values`` (those for which one
    does, the sizes bounded before held in their ranges).  A fresh start that no
    array bounds above keeps its least value: a larger one only shortens its loop.
    ``period`` (:func:`_period_of`): 1 when no on-chip access depends on ``p``, which
    may then stay unbounded (replayed up to :data:`arraypart.ir.UNBOUNDED_SAMPLE`, or
    further where the loops run: :func:`_replayed_where_loops_run`); up to
    :data:`PERIOD_LIMIT` when they repeat every ``period`` values of it, which may stay
    unbounded too, replayed over at least one period.  Else, where the on-chip
    accesses of ``kernel`` no longer change with ``p`` above some value
    (:func:`_settled_above`), or repeat every ``P`` values there (:func:`_settling`),
    it may stay unbounded too, replayed up to one past it (``P`` past it).
    A signed size's open least value: :func:`_least_value`."""
    low, high, source = p.low, p.high, p.source
    # a signed size open below only keeps the largest value claimed for it
    claimed = high is not None and not _weakly_bounded(p)
    above = values.intersect(G.range_set(values.space, p.name, anchor + 1, high))
    if not claimed and not above.is_empty():
        first = G.first_point(above)[p.name]
        high = first - 1  # for a size bounded already: a fresh one, the arrays say less
        source = _witness(witnesses, box, (p.name,), (p.name, first))
    elif high is None and period is not None and period <= PERIOD_LIMIT and \
            not p.lower_end:
        low = p.low or 0
        return replace(p, low=low, high=max(low + period - 1, ir.UNBOUNDED_SAMPLE),
                       unbounded=True, source=_free_source(period))
    elif high is None and not p.lower_end and (settling := _settling(
            kernel, p.name, changes := _changes(kernel, p.name)))[0] is not None:
        settled, every = settling
        low = p.low if p.low is not None else _least_value(p, values, anchor, changes)[0]
        if _never_changes(settled, every, low):  # as when no on-chip access depends on it
            return replace(p, low=low, high=max(low, ir.UNBOUNDED_SAMPLE), unbounded=True,
                           source=_free_source(1))
        return replace(p, low=low, high=max(low, settled + every), unbounded=True,
                       source=_settled_source(settled, every))
    elif high is None and not p.lower_end:
        define = f", or give -D {DEFINE_PREFIX}{p.name}=<largest value>" if (
            p.name.isidentifier()) else ""
        raise KernelError(p.coord, (
            f"run-time size {ir.size_words(p.name)} bounds loops or indices but nothing bounds "
            f"it: add '#pragma HLS LOOP_TRIPCOUNT max=<trips>' to a loop it "
            f"bounds{define}"))
    if low is None and not p.lower_end:
        low, last = _least_value(p, values, anchor, _changes(kernel, p.name))
        low = low if high is None else min(low, high)
        if last is not None:
            source = source or _witness(witnesses, box, (p.name,), (p.name, last))
    if low is None:
        below = values.intersect(G.range_set(values.space, p.name, None, anchor - 1))
        if below.is_empty() and period == 1:  # a start: any value runs the loop
            return replace(p, low=anchor, high=max(anchor, high or anchor), unbounded=True,
                           source=_free_source(period))
        if below.is_empty():
            raise KernelError(p.coord, (
                f"loop start {ir.size_words(p.name)} is not affine and nothing bounds it below (no "
                "array it indexes fixes its least value): write it as an affine "
                "expression"))
        last = G.last_point(below)[p.name]
        low = last + 1
        source = source or _witness(witnesses, box, (p.name,), (p.name, last))
    if high is None:
        high = low
        least = "its least value (a larger start only shortens the loop)"
        source = least if source is None else f"{least}, below which {source} is left"
    return replace(p, low=low, high=high, source=source)


def with_sizes_of(kernel: ir.Kernel, bounded: ir.Kernel) -> ir.Kernel:
    """``kernel`` (another reading of ``bounded``'s text, such as its emitted form) with
    ``bounded``'s sizes: the same ranges, the same sizes dropped, the same extents of
    the pointers that follow them."""
    kernel = _fresh_names_of(kernel, bounded)
    kept = {p.name for p in bounded.params}
    dropped = {p.name for p in kernel.params} - kept
    arrays = tuple(replace(a, shape=bounded.array(a.name).shape) if a.sampled_extent else a
                   for a in kernel.arrays)
    return replace(kernel, body=_forget(kernel.body, dropped), params=bounded.params,
                   arrays=arrays)


def _fresh_names_of(kernel: ir.Kernel, bounded: ir.Kernel) -> ir.Kernel:
    """``kernel`` with its fresh sizes (named by their place, which edits move) renamed
    to ``bounded``'s, which the same loops, in the same order, introduce."""
    ours = [p.name for p in kernel.params if FRESH_MARK in p.name]
    theirs = [p.name for p in bounded.params if FRESH_MARK in p.name]
    if ours == theirs:
        return kernel
    if len(ours) != len(theirs):
        raise ValueError("the two readings of the kernel have different fresh sizes")
    mapping = {a: E.var(b) for a, b in zip(ours, theirs)}
    names = dict(zip(ours, theirs))
    return replace(kernel, body=_renamed(kernel.body, mapping), params=tuple(
        replace(p, name=names.get(p.name, p.name)) for p in kernel.params))


def _renamed(nodes: tuple[ir.Node, ...], mapping) -> tuple[ir.Node, ...]:
    """``nodes`` with the variables of ``mapping`` replaced in bounds, guards, indices."""
    def sub(e):
        return None if e is None else E.substitute(e, mapping)

    def accesses(found):
        return tuple(replace(a, index=tuple(sub(e) for e in a.index)) for a in found)

    out: list[ir.Node] = []
    for node in nodes:
        if isinstance(node, ir.Loop):
            node = replace(node, init=tuple(sub(e) for e in node.init),
                           bound=tuple(sub(e) for e in node.bound),
                           body=_renamed(node.body, mapping))
        elif isinstance(node, ir.If):
            cond = None if node.cond is None else tuple(
                tuple(replace(c, expr=sub(c.expr)) for c in conj) for conj in node.cond)
            node = replace(node, cond=cond, then=_renamed(node.then, mapping),
                           orelse=_renamed(node.orelse, mapping),
                           cond_accesses=accesses(node.cond_accesses))
        else:
            node = replace(node, accesses=accesses(node.accesses))
        out.append(node)
    return tuple(out)


def _without_guard_sizes(kernel: ir.Kernel) -> ir.Kernel:
    """``kernel`` without the sizes that no loop bound or index uses and no one
    bounded but their type, their conditions made data dependent (module doc): a
    ``bool`` or ``unsigned char`` mode flag that guards a reference past its array at
    some other size is no size for the arrays to narrow (``if (left) v[i] +=
    A[x - 1]`` would leave ``left`` only 0, and the branch out of the model)."""
    used = _bound_or_index_variables(kernel.body)
    dropped = {p.name for p in kernel.params
               if (None in (p.low, p.high) or (p.source or "").startswith(TYPE_SOURCE))
               and p.name not in used}
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
