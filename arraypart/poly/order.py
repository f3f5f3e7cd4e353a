"""The order in which a kernel's accesses run, and two facts it decides.

Every access gets a *time* in the classic 2d+1 form: an access at depth ``d`` (inside
loops ``v1 .. vd``, outermost first) runs at

    time = [sizes..., p0, s1*v1, p1, s2*v2, p2, ..., sd*vd, pd, 0, ..., 0]

where ``p_k`` is its position among the items (accesses and loops, the two branches
of an ``if`` one after the other, a statement's accesses in evaluation order) of the
body at depth ``k``, ``s_k`` the sign of loop ``v_k``'s step, and zeros pad every time
to the deepest nest.  Lexicographic order on times is the program's order within one
valuation of the run-time sizes (they lead, and are never compared across values).
The sizes are also added in front of an element's index, so that an element of one
run is never taken for an element of another.

- :func:`fifo_order_warnings`: an ``ap_fifo`` or ``axis`` array argument moves its
  elements in order (UG1399, "FIFO Interfaces": accesses that are not sequential are an
  error, or an RTL simulation mismatch; "AXI4-Stream Interfaces": an ``axis`` argument
  is never both read and written).  Reads (writes) are in order iff the first one in
  each run is at flat index 0 and each next one at the flat index after its
  predecessor's; an access is warned about where it is out of order at every valuation
  of the sizes at which it runs (as for undefined reads).
- :func:`undefined_reads`: a read of an element of a local array that starts
  undefined, at a time when no write of that element came before
  (``{ (t, e) in Read : not exists t' <lex t, (t', e) in Write }``), at every
  valuation of the sizes at which the read runs (:func:`_unwritten`).

Both are warnings about the program, located at the access, and are skipped where
the model cannot see the order: an irregular reference, a read under a data-dependent
``if`` (it may never run), an isl call past :data:`ORDER_OPERATIONS`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import islpy as isl

from .. import expr as E
from .. import ir
from ..errors import Coord, warning_text
from ..frontend import cnodes as N
from . import isl_glue as G
from .domains import Context, level_items, reference_text

# isl's elementary operations one order question may take before it is left unasked
# (a warning the model can miss, never a claim): some ten milliseconds of isl.
ORDER_OPERATIONS = 2_000_000
AXIS = "axis"  # the INTERFACE mode of an AXI4-Stream port


@dataclass(frozen=True, eq=False)
class Timed:
    """An access and ``time_map``, ``{ x -> time : x in its domain }``."""

    access: ir.Access
    domain: isl.Set
    time_map: isl.Map


@dataclass(frozen=True, slots=True)
class OrderFindings:
    """What the order of the accesses tells: located ``warnings``, and ``undefined``,
    where a read may take an element before anything writes it."""

    warnings: tuple[str, ...] = ()
    undefined: tuple[Coord, ...] = ()


def order_findings(kernel: ir.Kernel, guarded: frozenset[int]) -> OrderFindings:
    """:func:`fifo_order_warnings` and :func:`undefined_reads` (``guarded``: ``id`` of
    each access under a data-dependent ``if``); times are built only for the accesses
    of the arrays they ask about."""
    undefined = undefined_at_start(kernel)
    fifos = frozenset(a.name for a in kernel.arrays if a.fifo is not None and not a.stream)
    if not undefined | fifos:
        return OrderFindings()
    timed = timed_accesses(kernel, undefined | fifos)
    found = undefined_reads(kernel, timed, guarded, undefined)
    return OrderFindings(fifo_order_warnings(kernel, timed) + tuple(w for _, w in found),
                         tuple(c for c, _ in found))


def timed_accesses(kernel: ir.Kernel, arrays: frozenset[str]) -> tuple[Timed, ...]:
    """Every access of ``kernel`` to one of ``arrays`` with its time (module doc), in
    program order."""
    sizes = tuple(p.name for p in kernel.params)
    placed = list(_placed(kernel.body, Context.top(kernel.params), (), ()))
    depth = max((len(steps) for _, _, _, steps in placed), default=0)
    return tuple(Timed(access, ctx.domain, _time_map(ctx, sizes, positions, steps, depth))
                 for access, ctx, positions, steps in placed if access.array in arrays)


def _placed(body: tuple[ir.Node, ...], ctx: Context, positions: tuple[int, ...],
            steps: tuple[int, ...]) -> Iterator[tuple[ir.Access, Context, tuple[int, ...],
                                                     tuple[int, ...]]]:
    """(access, context, positions p0..pd, step signs s1..sd) of every access of
    ``body``, in program order."""
    position = 0
    for item, item_ctx in level_items(body, ctx):
        if isinstance(item, ir.Access):
            yield item, item_ctx, positions + (position,), steps
        else:
            yield from _placed(item.body, item_ctx.enter_loop(item),
                               positions + (position,), steps + (1 if item.step > 0 else -1,))
        position += 1


def _time_map(ctx: Context, sizes: tuple[str, ...], positions: tuple[int, ...],
              steps: tuple[int, ...], depth: int) -> isl.Map:
    space = ctx.domain.space
    loop_vars = ctx.vars[len(sizes):]
    parts = [G.pw_aff(E.var(n), space) for n in sizes] + [G.constant(space, positions[0])]
    for var, sign, position in zip(loop_vars, steps, positions[1:]):
        value = G.pw_aff(E.var(var), space)
        parts += [value if sign > 0 else value.neg(), G.constant(space, position)]
    parts += [G.constant(space, 0)] * (2 * (depth - len(steps)))
    result = isl.Map.from_domain_and_range(isl.Set.universe(space), G.universe([]))
    for part in parts:
        result = result.flat_range_product(isl.Map.from_pw_aff(part))
    return result.intersect_domain(ctx.domain)


def _element_map(timed: Timed, sizes: tuple[str, ...], index) -> isl.Map:
    """``{ time -> A[sizes..., index] }`` of one access (``index``: its subscripts)."""
    element = G.access_map(timed.domain, tuple(E.var(n) for n in sizes) + tuple(index),
                           timed.access.array)
    return timed.time_map.reverse().apply_range(element)


def _flat(access: ir.Access, shape: tuple[int, ...]) -> E.Expr:
    """The row-major flat index of a regular access."""
    strides = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        strides[d] = strides[d + 1] * shape[d + 1]
    return E.add(*(E.scale(k, e) for k, e in zip(strides, access.index)))


def _same_sizes(space: isl.Space, sizes: int) -> isl.Map:
    """``{ t -> t' : t and t' agree on the leading ``sizes`` dimensions }``."""
    same = isl.Map.from_domain_and_range(isl.Set.universe(space), isl.Set.universe(space))
    for k in range(sizes):
        same = same.equate(isl.dim_type.in_, k, isl.dim_type.out, k)
    return same


def fifo_order_warnings(kernel: ir.Kernel, timed: tuple[Timed, ...]) -> tuple[str, ...]:
    """A located warning per ``ap_fifo`` / ``axis`` array argument (not a stream, all
    its references regular) that is both read and written, or whose reads or writes
    are not in order (module doc), at the first access out of order."""
    sizes = tuple(p.name for p in kernel.params)
    out: list[str] = []
    for array in kernel.arrays:
        mine = [t for t in timed if t.access.array == array.name]
        if (array.fifo is None or array.stream or not mine
                or not all(t.access.regular for t in mine)):
            continue
        if len({t.access.kind for t in mine}) > 1:  # ordered per direction? not told
            if array.fifo == AXIS:
                out.append(warning_text(array.coord, (
                    f"{array.name} is an axis port, which streams its elements one way, "
                    "but the kernel both reads and writes it (UG1399, \"AXI4-Stream "
                    "Interfaces\": not on an argument both read and written)")))
            continue
        found = _out_of_order(mine, sizes, array)
        if found is not None:
            t, what = found
            out.append(warning_text(t.access.coord, (
                f"{array.name} is an {array.fifo} port: its elements must be "
                f"{'read' if t.access.kind == 'read' else 'written'} in order, one after "
                f"another from {array.name}[0], but {what}: Vitis stops with an error "
                f"where it sees this, and the RTL does not match the C where it cannot")))
    return tuple(out)


def _out_of_order(mine: list[Timed], sizes: tuple[str, ...], array: ir.Array
                  ) -> tuple[Timed, str] | None:
    """The access of ``mine`` that runs first out of order and what is wrong, or None."""
    try:
        with G.operation_budget(ORDER_OPERATIONS):
            flats = [_element_map(t, sizes, (_flat(t.access, array.shape),)) for t in mine]
            every = _union(flats)
            times = every.domain()
            succ = times.lex_lt_set(times).lexmin().intersect(
                _same_sizes(times.space, len(sizes)))
            firsts = times.subtract(succ.range())
            previous = succ.reverse().apply_range(every)  # t' -> the element before it
            wrong = []
            for t, own in zip(mine, flats):
                first = own.intersect_domain(firsts)
                not_first = first.subtract(first.intersect_range(_at(own.range().space, 0)))
                # t' takes no element right after the one its predecessor took
                stepped = own.intersect_domain(succ.range())
                behind = stepped.subtract(_shifted(previous.intersect_domain(stepped.domain())))
                wrong.append((not_first.domain(), "is its first {kind} there"))
                wrong.append((behind.domain(),
                              "does not {kind} the element after the one the {kind} "
                              "before it took"))
            # at every valuation of the sizes where the access runs (:func:`_unwritten`)
            bad = [(n // 2, when, why) for n, (when, why) in enumerate(wrong)
                   if not when.is_empty() and _leading(flats[n // 2].domain(), len(sizes))
                   .is_subset(_leading(when, len(sizes)))]
            if not bad:
                return None
            earliest = _union([when for _, when, _ in bad]).lexmin()
            n, _, why = next(b for b in bad if not b[1].intersect(earliest).is_empty())
            t = mine[n]
            return t, f"{reference_text(t.access)} " + why.format(kind=t.access.kind)
    except isl.Error as error:
        if not G.out_of_operations(error):
            raise
    return None


def _shifted(m: isl.Map) -> isl.Map:
    """``m`` with the last dimension of its range one larger (the element after)."""
    space = m.range().space
    return m.apply_range(isl.Map.from_multi_aff(
        G.shifted(space, space.dim(isl.dim_type.set) - 1)))


def undefined_at_start(kernel: ir.Kernel) -> frozenset[str]:
    """The local arrays that start undefined: declared without an initializer, not
    ``static`` (C zero-fills those), of no struct whose default construction sets its
    fields, and never named whole (``memset(buf, 0, n)``: a call may fill it)."""
    if kernel.source is None:
        return frozenset()
    decls = kernel.source.local_decls
    whole = {n.name for f in (kernel.source.func, *kernel.source.callees)
             for n in N.whole_uses(f.body)}
    return frozenset(
        a.name for a in kernel.arrays
        if (decl := decls.get(a.name)) is not None and decl.init is None
        and not (a.static or decl.static or decl.ctype.element_initialized)
        and decl.name not in whole)


def undefined_reads(kernel: ir.Kernel, timed: tuple[Timed, ...], guarded: frozenset[int],
                    undefined: frozenset[str]) -> tuple[tuple[Coord, str], ...]:
    """Where, and a located warning, for each regular read (not under a data-dependent ``if``:
    ``id(access)`` in ``guarded``) of an array that starts undefined
    (``undefined``: :func:`undefined_at_start`) that may read an element before any write of it
    (module doc), with the first such element."""
    sizes = tuple(p.name for p in kernel.params)
    out: list[tuple[Coord, str]] = []
    for name in sorted(undefined, key=[a.name for a in kernel.arrays].index):
        mine = [t for t in timed if t.access.array == name]
        writes = [_element_map(t, sizes, t.access.index) for t in mine
                  if t.access.kind != "read"]
        for t in mine:
            if t.access.kind != "read" or not t.access.regular or id(t.access) in guarded:
                continue
            found = _unwritten(_element_map(t, sizes, t.access.index), writes, len(sizes))
            if found is not None:
                element = "".join(f"[{x}]" for x in found[len(sizes):])
                out.append((t.access.coord, warning_text(t.access.coord, (
                    f"{reference_text(t.access)} reads {name}{element} before anything "
                    f"writes it (the kernel declares {name} without an initializer): its "
                    "value is undefined, so the C simulation, the testbench's comparison "
                    "and the hardware may each see another value"))))
    return tuple(out)


def _unwritten(read: isl.Map, writes: list[isl.Map], sizes: int) -> list[int] | None:
    """The first element (sizes first) that ``read`` (``{ time -> element }``) takes
    before any of ``writes`` took it, at every valuation of the ``sizes`` (the
    leading dimensions) at which it reads at all; else None (also when isl gives up).
    A model's sizes are independent where the program ties them (each fresh loop
    bound ``chunk_size@60:29`` its own, ``size*size`` beside ``size``), so a read that
    is unwritten only at some valuations may be so only where the program never goes:
    the warning is kept for the reads unwritten wherever they run."""
    try:
        with G.operation_budget(ORDER_OPERATIONS):
            unwritten = read
            if writes:
                every = _union(writes)
                earlier = read.domain().lex_gt_set(every.domain())
                written = read.apply_range(every.reverse()).intersect(earlier).domain()
                unwritten = read.subtract_domain(written)
            if unwritten.is_empty() or not _leading(read.domain(), sizes).is_subset(
                    _leading(unwritten.domain(), sizes)):
                return None
            elements = unwritten.range()
            point = elements.lexmin().sample_point()
            n = elements.space.dim(isl.dim_type.set)
            return [point.get_coordinate_val(isl.dim_type.set, k).to_python()
                    for k in range(n)]
    except isl.Error as error:
        if not G.out_of_operations(error):
            raise
    return None


def _leading(times: isl.Set, count: int) -> isl.Set:
    """``times`` projected onto its first ``count`` dimensions."""
    n = times.dim(isl.dim_type.set)
    return times.project_out(isl.dim_type.set, count, n - count)


def _at(space: isl.Space, value: int) -> isl.Set:
    """The elements of ``space`` whose last dimension (the flat index) is ``value``."""
    last = space.dim(isl.dim_type.set) - 1
    return isl.Set.universe(space).fix_val(isl.dim_type.set, last,
                                           isl.Val.int_from_si(space.get_ctx(), value))


def _union(maps) -> isl.Map:
    maps = list(maps)
    result = maps[0]
    for m in maps[1:]:
        result = result.union(m)
    return result
