"""The polyhedral pass: ``build_model(kernel, *, ports) -> PolyModel``.

It checks every regular reference against its array's bounds on the exact iteration
domain, warns about irregular references, and gathers the concurrent accesses of each
pipelined (or unrolled) loop into cycle groups (:mod:`.lanes`).
"""

from __future__ import annotations

import functools
from collections import Counter
from dataclasses import replace
from typing import Callable, Iterable, Iterator, Mapping

import islpy as isl

from .. import expr as E
from .. import ir
from ..errors import KernelError, warning_text
from ..limits import Deadline
from . import isl_glue as G
from .domains import AccessRelation, access_relations, reference_text
from .aliasing import Writes
from .forwarding import forwarding_arrays, forwarding_loop, free_accesses
from .lanes import Collector, Found, collect
from .model import ArrayModel, CycleGroup, LaneAccess, LoopInfo, PolyModel, most_on_one_path
from .order import order_findings
from .recurrences import recurrences

# Refining a group's domain by which address classes are live at once may split every
# cell at every distinct live-domain (exponential); past this many splits (a cell cut
# by a domain: two small isl operations, about 10 us each on the interval domains of
# lanes), max_concurrent counts every class (a safe upper bound).  Domains that are
# nested or ordered keep the cells few: 4 copies x 64 lanes of a pipelined loop in an
# unrolled one (112 distinct domains) take 11,305 splits, 0.1 s.
MAX_REFINING_SPLITS = 1 << 14
#: The name of this stage in a time-limit message.
STAGE = "building the polyhedral model"


def build_model(kernel: ir.Kernel, *, ports: int = 2,
                deadline: Deadline | None = None) -> PolyModel:
    """The kernel's polyhedral model (see :mod:`.model`).

    Raises :class:`KernelError` for a reference that leaves its array on some iteration
    and for a loop that must be fully unrolled but has no constant trip count, and
    :class:`arraypart.limits.TimeLimit` when ``deadline`` passes (asked per reference,
    per lane access and per group).
    """
    if any(None in (p.low, p.high) for p in kernel.params):
        raise ValueError("build_model needs bounded sizes (poly.bound_sizes)")
    tick = (lambda: None) if deadline is None else (lambda: deadline.check(STAGE))
    relations = access_relations(kernel)
    by_name = {a.name: a for a in kernel.arrays}  # Kernel.array is a linear search
    guards = data_guards(kernel.body)
    for relation in relations:
        tick()
        check_in_int64(relation)
        check_bounds(relation, by_name[relation.access.array], guards.get(id(relation.access)))
        check_writable(relation.access, by_name[relation.access.array])
    found = with_epochs(counted_addresses(collect(kernel, tick=tick), by_name), by_name)
    free = free_lanes(found, by_name, kernel)
    groups = _groups(found, by_name, frozenset(p.name for p in kernel.params), tick, free)
    touched = {r.access.array for r in relations}
    written = {r.access.array for r in relations if r.access.kind == "write"}
    arrays = tuple(_array_model(a, ports, groups, a.name in touched, a.name not in written)
                   for a in kernel.arrays)
    loops = _loop_infos(found, kernel, free)
    order = order_findings(kernel, _maybe_skipped(kernel.body, guards))
    return PolyModel(arrays, loops, kernel.warnings + _warnings(relations, by_name)
                     + order.warnings + _bundle_warnings(loops) + _instance_warnings(loops),
                     recurrences(arrays, tick) + kernel.outside_recurrences,
                     order.undefined)


def _maybe_skipped(body: tuple[ir.Node, ...], guards: Mapping[int, ir.If]) -> frozenset[int]:
    """``id`` of each access that may not run where its domain says: under a
    data-dependent ``if`` (``guards``) or an operand of ``?:``, ``&&``, ``||`` whose
    condition reads data (``Access.conditional``)."""
    return frozenset(guards) | {id(a) for a in ir.accesses(body) if a.conditional}


def check_writable(access: ir.Access, array: ir.Array) -> None:
    """Raise a located error for a write to an array bound to a ROM (no banking can
    give a ROM a write port)."""
    if access.kind == "write" and array.storage in ir.PORT_MODELS and not (
            ir.PORT_MODELS[array.storage].writable):
        raise KernelError(access.coord, (
            f"{reference_text(access)} writes {array.name}, which bind_storage makes "
            f"a ROM ({array.storage}): a ROM has no write port (bind it to a ram_* type)"))


def data_guards(body: tuple[ir.Node, ...], guard: ir.If | None = None) -> dict[int, ir.If]:
    """id(access) -> the innermost data-dependent ``if`` whose branch holds it."""
    out: dict[int, ir.If] = {}
    for node in body:
        if isinstance(node, ir.Stmt) and guard is not None:
            out.update((id(a), guard) for a in node.accesses)
        elif isinstance(node, ir.If):
            if guard is not None:  # its condition's reads run where its branch may
                out.update((id(a), guard) for a in node.cond_accesses)
            inner = node if node.cond is None else guard
            out.update(data_guards(node.then + node.orelse, inner))
        elif isinstance(node, ir.Loop):
            out.update(data_guards(node.body, guard))
    return out


INT64 = (-(2 ** 63), 2 ** 63 - 1)  # numpy's int64: the maps and the checker's values


def check_in_int64(relation: AccessRelation) -> None:
    """Raise a located error when a constant, sum or product inside a subscript takes a
    value outside int64 somewhere in its domain (``(i + 2**63 - 1) % 10``): the bank
    maps and the checker compute every subscript in numpy int64, which would wrap.
    Only subscripts with a constant beyond 32 bits are examined (iterators are far
    smaller, so nothing else can come near 2**63)."""
    access, domain = relation.access, relation.domain
    if domain.is_empty():
        return
    for e in access.index:
        if e is None or all(abs(k) < 2 ** 31 for k in E.constants(e)):
            continue
        for part in _compound_parts(e):
            f = G.pw_aff(part, domain.space).intersect_domain(domain)
            low, high = f.min_val(), f.max_val()
            if low.is_int() and high.is_int() and (
                    INT64[0] <= low.to_python() and high.to_python() <= INT64[1]):
                continue
            reach = (f"reaches {high.to_python()}" if high.is_int() and high.to_python()
                     > INT64[1] else f"reaches {low}" if low.is_int() else "is unbounded")
            raise KernelError(access.coord, (
                f"{reference_text(access)}: {E.pretty(part)} {reach}, a constant out of "
                "the range arraypart models (64-bit signed integers); reduce the "
                "constant (e.g. modulo the array size)"))


def _compound_parts(e: E.Expr) -> Iterator[E.Expr]:
    """Every constant, sum and product in ``e`` (floor and mod only shrink values)."""
    if isinstance(e, (E.Const, E.Add, E.Scale)):
        yield e
    for sub in (e.terms if isinstance(e, E.Add) else () if isinstance(e, (E.Const, E.Var))
                else (e.arg,)):
        yield from _compound_parts(sub)


def check_bounds(relation: AccessRelation, array: ir.Array, guard: ir.If | None = None) -> None:
    """Raise a located error when a regular dimension of the reference leaves
    ``[0, size)`` for some point of its domain; the example is the lexicographically
    first such iteration.  ``guard``: the data-dependent ``if`` that holds the
    reference (its branch counts as taken wherever it may be), which the error names
    with the way out."""
    access, domain = relation.access, relation.domain
    if domain.is_empty():
        return
    for dim, (e, size) in enumerate(zip(access.index, array.shape)):
        if e is None:
            continue
        bad = domain.intersect(outside_set(e, size, domain.space))
        if not bad.is_empty():
            point = G.first_point(bad)
            value = int(E.evaluate(e, point))
            where = ", ".join(f"{v} = {x}" for v, x in point.items())
            at = f"at {where} " if where else ""
            hint = "" if guard is None else _guard_hint(guard)
            raise KernelError(access.coord, f"{reference_text(access)} leaves {array.name} "
                              f"(dimension {dim} has size {size}): {at}the index is "
                              f"{value}{hint}")


def _guard_hint(guard: ir.If) -> str:
    """What an out-of-bounds error says of the data-dependent ``if`` around the
    reference: its condition counts as possibly true at every iteration, why, and the
    way out."""
    if guard.reads:
        return (f"; it is under the if at {guard.coord}, whose condition reads "
                f"{guard.reads}, so arraypart takes it as possibly true at every "
                "iteration (a scalar stands for the test it holds only when its "
                "declaration sets it to an affine test and nothing else writes it): "
                "write the test inline (an affine test first, then '&&')")
    return (f"; it is under the if at {guard.coord}, whose condition arraypart cannot "
            "model (it reads data, or is not affine in the iterators: C's % of a "
            "negative value is not) and takes as possibly true at every iteration: "
            "state the bound in the condition (an affine test first, then '&&')")


def outside_set(e: E.Expr, size: int, space) -> isl.Set:
    """The points of ``space`` where the index ``e`` leaves ``[0, size)``."""
    f = G.pw_aff(e, space)
    return f.lt_set(G.constant(space, 0)).union(f.ge_set(G.constant(space, size)))


def _warnings(relations: Iterable[AccessRelation],
              arrays: Mapping[str, ir.Array]) -> tuple[str, ...]:
    """One warning per irregular reference (a compound assignment's read and write
    are one reference) of an array that is no FIFO (whose port serves any element)."""
    warned: set[int] = set()
    out: list[str] = []
    for relation in relations:
        access = relation.access
        if access.regular or access.ref_id in warned or arrays[access.array].fifo:
            continue
        warned.add(access.ref_id)
        dims = [str(d) for d, e in enumerate(access.index) if e is None]
        plural = "dimensions" if len(dims) > 1 else "dimension"
        out.append(warning_text(access.coord, (
            f"{reference_text(access)}: the index in {plural} {', '.join(dims)} of "
            f"{access.array} is not affine; assuming it may be any index there")))
    return tuple(out)


def counted_addresses(found: Collector, arrays: Mapping[str, ir.Array]) -> Collector:
    """``found`` with each lane access addressing what the ports see
    (``ir.Array.counted_index``): the window reads of an ``array_stencil`` one element,
    so they are one read of the buffer's feed however many lanes make them; a reshaped
    array's accesses its words, so the lanes of one word are one access."""
    return replace(found, found=[
        replace(f, access=replace(f.access, index=arrays[f.access.array].counted_index(
            f.access.index, f.access.window)))
        if f.access.window or arrays[f.access.array].reshapes else f
        for f in found.found])


def with_epochs(found: Collector, arrays: Mapping[str, ir.Array]) -> Collector:
    """``found`` with each read's ``epoch`` (``LaneAccess.epoch``): which writes of
    its array in its concurrent loop, on any path through the loop's data-dependent
    ``if``s, come before it (``Found.order``) and may alias it
    (:mod:`.aliasing`), numbered per loop and array (0: none).  The HLS tool (LLVM)
    merges a load with an earlier load of the same address only when no store that
    may alias lies between (``x = X[lo]; X[hi] = i; y = X[lo];`` is load, store,
    load: probe 36 F1), so reads of one element count once only within one epoch;
    ``X[i + 1] = v`` between two reads of ``X[i]`` separates nothing.  An epoch
    names the *set* of such writes, not their number: two reads of one address
    with equal sets have no write between them that may alias the later one (equal
    numbers might hide one behind a write that aliases only the earlier).  A read
    whose last write before it that may alias it is a write *of the same element*
    is forwarded and takes no port (:mod:`.forwarding`).  Writes keep epoch 0 (only
    reads merge)."""
    writes: dict[tuple[int, str], dict[tuple[int, ...], Found]] = {}
    for f in found.found:
        if f.access.kind == "write":
            writes.setdefault((id(f.frame.root), f.access.array), {})[f.order] = f
    before = {key: Writes([w for _, w in sorted(mine.items())], arrays[key[1]].shape)
              for key, mine in writes.items()}
    numbers: dict[tuple, dict[int, int]] = {}
    sets: dict[int, int] = {}
    for f in found.found:
        key = (id(f.frame.root), f.access.array)
        if f.access.kind == "read" and key in before:
            sets[id(f)] = before[key].before(f.order) & before[key].aliasing(f)
            numbers.setdefault(key, {})[sets[id(f)]] = 0
    for known in numbers.values():  # the empty set (no write) is epoch 0
        known.update((s, n) for n, s in enumerate(sorted(known)))
    return replace(found, found=[
        replace(f, access=replace(f.access, epoch=numbers[
            id(f.frame.root), f.access.array][sets[id(f)]]))
        if id(f) in sets else f for f in found.found])


def _groups(found: Collector, arrays: Mapping[str, ir.Array], sizes: frozenset[str],
            tick: Callable[[], None], free: frozenset[int]) -> tuple[CycleGroup, ...]:
    """One group per (concurrent loop, chain of sequential inner loops, path through
    the loop's data-dependent ifs, copy of a called function's own array
    (``LaneAccess.copy_of``), array, member view of a disaggregated struct
    array), in the order the walk first meets them; ``sizes``: the kernel's run-time
    sizes (those of its time variables are the group's ``sizes``); ``free``: the lane
    accesses (by id) that take no port (:func:`free_lanes`), the groups' ``free``."""
    drafts: dict[tuple, list[Found]] = {}
    for f in found.found:
        key = (id(f.frame.root), f.frame.chain, f.path, f.access.copy_of, f.access.array)
        drafts.setdefault(key, []).append(f)
    found_of = dict(drafts)
    drafts = {key: one_read_per_element([f for f in members if id(f) not in free])
              for key, members in drafts.items()}
    info = {id(c.loop): c for c in found.loops}
    instance = {id(c.loop): n for n, c in enumerate(found.loops)}
    unrouted = _unrouted(found)
    # a loop the IR holds more than once (a geometric loop's copies, a function's loop
    # in each call) has one text, which the emission keeps as written
    repeated = _repeated(found)
    # references whose subscript changes state (w++): no phase switch serves them
    stepped = {a.ref_id for c in found.loops for a in ir.accesses(c.loop.body)
               if a.changes_state}
    counts: dict[tuple, int] = {}
    groups = []
    for key, members in drafts.items():
        frame = members[0].frame
        tick()
        if key[:2] not in counts:
            counts[key[:2]] = G.count(frame.domain)
        loop = info[id(frame.root)]
        freed = [f for f in found_of[key] if id(f) in free]
        for view in ir.member_views(arrays[key[-1]], members + freed,
                                    lambda f: f.access.field):
            groups.append(CycleGroup(
                frame.root.name, frame.root.coord, loop.target_ii, frame.time_vars,
                frame.domain, tuple(m.access for m in view if id(m) not in free),
                loop.trip_count,
                counts[key[:2]], keeps_direct_references(frame.root)
                or (id(frame.root), key[-1]) in unrouted or frame.root.coord in repeated,
                frame.root.unroll is None and not any(m.access.ref_id in stepped
                                                      for m in view),
                members[0].path, instance[id(frame.root)], frame.descending,
                frozenset(frame.time_vars) & sizes, frame.root.text or (),
                frame.root.process, tuple(m.access for m in view if id(m) in free)))
    return site_instances(groups, found.loops, arrays)


def free_lanes(found: Collector, arrays: Mapping[str, ir.Array], kernel: ir.Kernel
               ) -> frozenset[int]:
    """The lane accesses of ``found`` (by id) that take no port (:mod:`.forwarding`:
    forwarded reads, dead stores), found per concurrent loop and array over every
    path of the loop together; none in a loop whose coordinate the IR holds more than
    once (one text for copies whose subscripts may differ: ``buf[i + m - 1]`` is
    ``buf[i]`` in one copy only)."""
    repeated = _repeated(found)
    by_root: dict[int, list[Found]] = {}
    for f in found.found:
        by_root.setdefault(id(f.frame.root), []).append(f)
    free: set[int] = set()
    for members in by_root.values():
        loop = members[0].frame.root
        if loop.coord in repeated or not forwarding_loop(loop):
            continue
        for name in forwarding_arrays(arrays, loop, kernel):
            mine = [f for f in members if f.access.array == name]
            orders = free_accesses(mine, arrays[name].shape)
            free.update(id(f) for f in mine if f.order in orders)
    return frozenset(free)


def _repeated(found: Collector) -> set:
    """The coordinates of the loops the IR holds more than once (a geometric loop's
    copies, a function's loop in each call): one text to the HLS tool."""
    return {coord for coord, n in Counter(c.loop.coord for c in found.loops).items()
            if n > 1}


def site_instances(groups: list[CycleGroup], loops: list,
                   arrays: Mapping[str, ir.Array]) -> tuple[CycleGroup, ...]:
    """``groups`` with each lane access's ``instances``: where its site's subscript is
    not one expression in every instance of its loop's text (:func:`ir.text_variants`
    over the concurrent ``loops`` of one coordinate and text, ``CycleGroup.text``),
    an index of None in those dimensions.  The HLS tool has one piece of code for all
    the instances, so a bank constant in each but not the same in all is no
    compile-time value there.  A lane access finds its site through its reference
    (``ref_id``, kind, member) in its own instance's IR."""
    by_text: dict[tuple, list] = {}
    for c in loops:
        by_text.setdefault(ir.text_key(c.loop), []).append(c.loop)
    varying: dict[tuple, dict[tuple, frozenset[int]]] = {}  # text -> site -> dims
    variants: dict[int, dict[tuple, frozenset[int]]] = {}  # instance -> ref -> dims
    for n, c in enumerate(loops):
        text = ir.text_key(c.loop)
        mine = by_text[text]
        if len(mine) < 2 and not any(a.foreign for a in ir.accesses(c.loop.body)):
            continue
        if text not in varying:
            varying[text] = ir.text_variants(mine, lambda a: arrays[a.array].counted_index(
                a.index, a.window))
        names = ir.site_names(c.loop)
        refs: dict[tuple, frozenset[int]] = {}
        for a in ir.accesses(c.loop.body):
            key = (a.ref_id, a.kind, a.field)
            refs[key] = refs.get(key, frozenset()) | varying[text].get(names[id(a)],
                                                                       frozenset())
        variants[n] = refs
    return tuple(replace(g, accesses=tuple(
        _with_instances(a, variants.get(g.instance, {}).get((a.ref_id, a.kind, a.field)))
        for a in g.accesses)) for g in groups)


def one_read_per_element(members: list[Found]) -> list[Found]:
    """``members`` with the reads of one element in one lane (one
    ``ir.Access.same_value``, the same lane, branches and epoch: ``X[lo]`` twice, ``lo``
    unchanged, no write of ``X`` between) as one lane access, live where any of them is, the others its
    ``aliases``: the HLS tool reads the element once (DESIGN §2: identical reads count
    once), and the banking gives them one copy."""
    first: dict[tuple, int] = {}
    out: list[Found] = []
    for f in members:
        a = f.access
        key = None if a.same_value is None else (a.read_key(a.same_value), a.lane,
                                                  a.branches)
        if key not in first:
            if key is not None:
                first[key] = len(out)
            out.append(f)
            continue
        kept = out[first[key]]
        out[first[key]] = replace(kept, access=replace(
            kept.access, domain=kept.access.domain.union(a.domain).coalesce(),
            aliases=kept.access.aliases + (a.ref_id,)))
    return out


def _with_instances(access: LaneAccess, dims: frozenset[int] | None) -> LaneAccess:
    if not dims:
        return access
    return replace(access, instances=(tuple(None if d in dims else e
                                            for d, e in enumerate(access.index)),))


def _unrouted(found: Collector) -> set[tuple[int, str]]:
    """(concurrent loop, array) pairs whose references the emitted code keeps as
    written: an access of the array under a data-dependent ``if`` inside the loop
    (:mod:`arraypart.codegen.bankcentric` routes lanes under affine guards only), or
    a write that a ``break``, ``continue`` or ``return`` may skip (routed writes go to
    the end of the body: :func:`ir.skippable_writes`), so under the scheduling rule its
    lanes that change bank take a port of every bank."""
    guarded: dict[int, set[int]] = {}
    for c in found.loops:
        under = data_guards(c.loop.body)
        guarded[id(c.loop)] = {a.ref_id for a in ir.accesses(c.loop.body) if id(a) in under}
    skippable = {id(c.loop): ir.skippable_writes(c.loop) for c in found.loops}
    return {(id(f.frame.root), f.access.array) for f in found.found
            if f.access.ref_id in guarded.get(id(f.frame.root), ())
            or f.access.ref_id in skippable.get(id(f.frame.root), ())}


def keeps_direct_references(loop: ir.Loop) -> bool:
    """Whether the emitted code keeps a pipelined loop's references as written: code
    generation rewrites a loop with an unroll factor of its own as blocks (whose lanes
    it can route bank by bank) only when its bounds are constants and no ``break`` of
    its own may end it (in the lane loop it would end the block only)."""
    if loop.pipeline_ii is None or loop.unroll is None:
        return False
    constant = (len(loop.init) == 1 and len(loop.bound) == 1
                and all(isinstance(e, E.Const) for e in (loop.init[0], loop.bound[0])))
    return not (constant and loop.unroll > 1 and not loop.breaks)


def _loop_infos(found: Collector, kernel: ir.Kernel, free: frozenset[int]
                ) -> tuple[LoopInfo, ...]:
    """Each concurrent loop's LoopInfo.  Its bundle II counts the lane accesses that
    take a port (not those of ``free``, :func:`free_lanes`) of each path and chain
    (``lanes.Frame.chain``: the statements on either side of a timed loop never share
    a cycle; the checker's runs), with the reads of one element in one lane as one,
    per array as :func:`_groups` takes them (:func:`one_read_per_element`), where
    ``ir.bundle_reads_merge`` lets them: an m_axi port, like a bank, reads the element
    once, and the checker counts so too (``check.driver._run_cells``)."""
    infos = []
    for c in found.loops:
        drafts: dict[tuple, list[Found]] = {}
        for f in found.found:
            if f.frame.root is c.loop and id(f) not in free:
                drafts.setdefault((f.path, f.frame.chain, f.access.array), []).append(f)
        paths: dict[tuple, list[LaneAccess]] = {}
        for (path, chain, name), members in drafts.items():
            if ir.bundle_reads_merge(c.loop, kernel.array(name)):
                members = one_read_per_element(members)
            paths.setdefault((path, chain), []).extend(f.access for f in members)
        used = {a.array for mine in paths.values() for a in mine}
        arrays = tuple(a.name for a in kernel.arrays if a.name in used)
        bundle_ii = max((_bundle_ii(mine, kernel) for mine in paths.values()), default=1)
        infos.append(LoopInfo(c.loop.name, c.loop.coord, c.target_ii, c.trip_count, arrays,
                              c.loop.pipeline_inferred, bundle_ii,
                              _instances(f for f in found.found if f.frame.root is c.loop)))
    return tuple(infos)


def _instances(found: Iterable[Found]) -> tuple[tuple[ir.SharedInstances, int], ...]:
    """``LoopInfo.instances``: per limit, the most copies of its function's calls
    (``LaneAccess.instance``) that one path and chain of the loop's iteration hold."""
    copies: dict[tuple, set] = {}
    for f in found:
        if f.access.instance:
            shared, copy = f.access.instance
            copies.setdefault((shared, f.path, f.frame.chain), set()).add(copy)
    most: dict[ir.SharedInstances, int] = {}
    for (shared, _, _), mine in copies.items():
        most[shared] = max(most.get(shared, 0), len(mine))
    return tuple(sorted(most.items(), key=lambda item: (item[0].function, item[0].scope)))


def _instance_warnings(loops: tuple[LoopInfo, ...]) -> tuple[str, ...]:
    """A note at each ``allocation`` limit that bounds a loop's II above its target."""
    return tuple(warning_text(shared.coord, (
        f"loop {loop.name}: one iteration makes {k} calls of '{shared.function}', which "
        f"allocation limits to {shared.instances} instance(s): they wait for an "
        f"instance, so the loop's II is at least {shared.cycles(k)}, above its "
        f"target {loop.target_ii}, whatever the banking"))
        for loop in loops for shared, k in loop.instances
        if shared.cycles(k) > loop.target_ii)


def _bundle_warnings(loops: tuple[LoopInfo, ...]) -> tuple[str, ...]:
    return tuple(warning_text(loop.coord, (
        f"loop {loop.name}: its off-chip (m_axi) accesses need II {loop.bundle_ii}, above "
        f"its target {loop.target_ii}: a bundle serves one read and one write per cycle "
        "(give the arrays bundles of their own, or copy them to local arrays)"))
        for loop in loops if loop.bundle_ii > loop.target_ii)


def _bundle_ii(accesses: list[LaneAccess], kernel: ir.Kernel) -> int:
    """The least II one pipeline iteration's off-chip accesses allow (LoopInfo): per
    bundle and kind, the most transfers at one time vector (:func:`_most_transfers`),
    so accesses under exclusive conditions (``if (c == 0) out[k] = 0; else out[k] =
    v;``, or a data-dependent ``if`` in each unrolled lane) share one."""
    demand: dict[tuple[str, str], list[tuple[int, LaneAccess]]] = {}
    for position, access in enumerate(accesses):
        bundle = kernel.array(access.array).bundle
        if bundle is not None:
            demand.setdefault((bundle, access.kind), []).append((position, access))
    return max((_most_transfers(items, {p: (a.array, _transfer_key(a, p))
                                        for p, a in items})
                for items in demand.values()), default=1)


def path_transfers(group: CycleGroup) -> tuple[int, int]:
    """The most reads and the most writes one pipeline iteration of ``group`` makes at
    one time vector, each the fewer of what the array's own proof counts on one
    memory (distinct read addresses of each epoch; writes, those that are one write
    counted once: ``CycleGroup.merged_writes``) and of the most that one path through the
    data-dependent ``if``s runs (:func:`_most_transfers`).  An off-chip array is one
    memory whose m_axi port serves one read and one write per cycle, so this is its
    need, as its bundle's (:func:`_bundle_ii`); the checker counts alike
    (``check.driver._runs``)."""
    merged = group.merged_writes
    counts = []
    for kind in ("read", "write"):
        items = [(p, a) for p, a in enumerate(group.accesses) if a.kind == kind]
        key = ({p: _transfer_key(a, p) for p, a in items} if kind == "read"
               else {p: merged.get(p, p) for p, _ in items})
        counts.append(_most_transfers(items, key) if items else 0)
    return counts[0], counts[1]


def _most_transfers(items: list[tuple[int, LaneAccess]], address: dict[int, object]) -> int:
    """The most transfers ``items`` (position, access of one kind on one bundle or
    array) make at one time vector: of the accesses live there, the fewer of their
    distinct ``address`` keys and of the most that one path through the
    data-dependent ``if``s of their loops runs (:func:`.model.most_on_one_path`: the
    arms of one ``if`` instance never run together; both bound what one iteration
    issues).  All the accesses count as live together when their domains lie in
    different spaces (different chains of inner loops, never compared)."""
    marks = {p: a.scope_branches for p, a in items}

    def transfers(live: list[int]) -> int:
        return min(len({address[p] for p in live}),
                   most_on_one_path([marks[p] for p in live]))

    space = items[0][1].domain.get_space()
    if any(not a.domain.get_space().is_equal(space) for _, a in items):
        return transfers([p for p, _ in items])
    live = {p: a.domain for p, a in items}
    return _heaviest_cell(functools.reduce(isl.Set.union, live.values()), live, transfers)


def _live(pairs: Iterable[tuple[tuple, isl.Set]]) -> dict[tuple, isl.Set]:
    """Address class -> the union of the domains it is live on."""
    live: dict[tuple, isl.Set] = {}
    for key, domain in pairs:
        live[key] = live[key].union(domain) if key in live else domain
    return live


def _array_model(array: ir.Array, ports: int, groups: tuple[CycleGroup, ...],
                 touched: bool, read_only: bool) -> ArrayModel:
    mine = tuple(g for g in groups if g.accesses[0].array == array.name)
    if mine:
        concurrent = max(group_concurrency(g) for g in mine)
    else:
        concurrent = 1 if touched else 0
    return ArrayModel(array, ir.port_model(array, ports), mine, concurrent, read_only)


def _address_key(access: LaneAccess, position: int) -> tuple:
    """Lane accesses with one (simplified) regular index tuple share an address; an
    irregular one is its own address."""
    return ("index", access.index) if access.regular else ("irregular", position)


def _transfer_key(access: LaneAccess, position: int) -> tuple:
    """What one transfer of ``access``'s kind serves: its address, for a read in its
    epoch (``LaneAccess.read_key``: a write of the array between two reads of one
    element makes them two loads)."""
    address = _address_key(access, position)
    return access.read_key(address) if access.kind == "read" else address


def group_concurrency(group: CycleGroup) -> int:
    """The largest number of distinct addresses live at one time vector of ``group``:
    each address class is live on the union of its lane accesses' domains
    (:func:`_heaviest_cell`).  An element read in two epochs (``LaneAccess.epoch``)
    is one address here: no banking separates it from itself, so the lower bound on
    banks (DESIGN §2) counts it once; the port counts take each epoch's read."""
    return _heaviest_cell(group.domain, _live(
        (_address_key(access, position), access.domain)
        for position, access in enumerate(group.accesses)))


def _equal_sets_together(live: dict) -> list[tuple[isl.Set, list]]:
    """The classes of ``live`` (class -> set) grouped by equal sets, in first-seen
    order.  Equal sets without parameters have one lexmin and one lexmax point, so
    only sets with the same ends are compared (a stencil's 225 reads, each live on
    its own box, were 25,000 ``is_equal`` calls); sets with parameters are all
    compared."""
    together: list[tuple[isl.Set, list]] = []
    buckets: dict[object, list[int]] = {}
    for key, where in live.items():
        ends = (None if where.dim(isl.dim_type.param)
                else (str(where.lexmin()), str(where.lexmax())))
        bucket = buckets.setdefault(ends, [])
        for n in bucket:
            if together[n][0].is_equal(where):
                together[n][1].append(key)
                break
        else:
            bucket.append(len(together))
            together.append((where, [key]))
    return together


def _heaviest_cell(domain: isl.Set, live: dict, weight: Callable[[list], int] = len) -> int:
    """The largest ``weight`` of the classes of ``live`` (class -> where it is live)
    whose sets share a point of ``domain`` (by default their number); ``weight`` is
    monotone (a superset weighs no less), so where every set shares a point of
    ``domain`` the answer is the weight of every class.  Otherwise classes with equal
    sets are taken together, ``domain`` is refined into cells by each set, and the
    answer is the heaviest cell (the weight of every class, an upper bound, when that
    takes more than ``MAX_REFINING_SPLITS`` splits)."""
    everywhere = functools.reduce(isl.Set.intersect, live.values(), domain)
    if not everywhere.is_empty():
        return weight(list(live))  # the heaviest cell holds every class
    together = _equal_sets_together(live)
    cells: list[tuple[isl.Set, list]] = [(domain, [])]
    splits = 0
    for where, keys in together:
        splits += len(cells)
        if splits > MAX_REFINING_SPLITS:
            return weight(list(live))
        refined = []
        for cell, held in cells:
            refined += [(cell.intersect(where), held + keys), (cell.subtract(where), held)]
        cells = [(c, held) for c, held in refined if not c.is_empty()]
    return max((weight(held) for _, held in cells), default=0)
