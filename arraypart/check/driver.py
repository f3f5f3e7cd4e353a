"""``check_kernel``: simulate every concurrent loop step by step against the bankings.

A second opinion on the banking pass that shares none of its isl reasoning: concrete
iterations are enumerated from the IR (:mod:`.walk`, :mod:`.frames`), addresses are
mapped to banks with the schemes' numpy rendering and ports are counted per step
(:mod:`.ports`).  For a loop with target II ``t``::

    achieved_ii  = max(t, max over steps of the step's need)
    cycles       = steps * achieved_ii,   stall_cycles = steps * (achieved_ii - t)

and the first conflict is the first step, in execution order, whose need exceeds t.
Steps are processed in chunks of about :data:`CHUNK_CELLS` access instances, so
memory does not grow with the trip counts or the unroll factors.

Two port models: the *ideal* one (``rule=False``: an access takes a port of the bank
its address lies in, what the banking pass proves) and the HLS *scheduling rule*
(``rule=True``, :mod:`.rule`: a site whose bank varies takes a port of every bank),
which is what a scheduler reading the source gets.  Under the rule a site is static
only if its bank is one value over the whole run of every instance of its loop (a
function's loop in each call, a geometric loop's copies: one piece of code to the HLS
tool), so each region is walked twice: once to find the static sites, once to count.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Iterator, Mapping

import numpy as np

from .. import expr as E
from .. import ir
from ..errors import KernelError, warning_text
from ..limits import Deadline
from ..scheme import (COMPLETE_THRESHOLD, Banking, auto_partitioned, none_scheme,
                      registers_scheme, scheme_from_pragmas)
from . import frames as F
from .epochs import read_epochs
from .forwarding import forwarded_arrays, without_free
from .maps import check_map
from .ports import (Cells, bank_sizes, cells, first_overfull_bank, min_iis, read_either,
                    row_accesses, row_needs, transfer_counts)
from .report import CheckReport, Conflict, DynamicSite, LoopCheck
from .rule import (BankSpan, RuleSites, moves_with_sizes, overfull_bank, rule_needs,
                   site_cells, sites_summary)
from .walk import (TRIPS, Emitted, Region, collapsed, entries, regions,
                   root_blocks, root_pieces, walk_steps, weights)
from .writes import Marks, most_per_cell, one_write, subscript_key

# Access instances (steps x lanes x accesses) simulated at once: each is a few int64
# table cells (bank, address, need), so a chunk takes some tens of MB whatever the
# trip counts and unroll factors, while numpy calls stay large.
CHUNK_CELLS = 1 << 20
# Columns an entry frame gains per sequential loop: the iterator's values, its order
# column and its point column.
ENTRY_COLUMNS = 3


def as_written_bankings(kernel: ir.Kernel, *, complete_threshold: int = COMPLETE_THRESHOLD
                        ) -> dict[str, Banking]:
    """The banking Vitis builds from each array's own pragmas: what its
    ``array_partition`` pragmas describe, or registers where Vitis partitions it
    completely on its own (:func:`auto_partitioned`; ``complete_threshold`` 0: never)."""
    return {a.name: Banking(a.name, registers_scheme(a.shape)
                            if auto_partitioned(a, complete_threshold)
                            else scheme_from_pragmas(a))
            for a in kernel.arrays}


def auto_partition_notes(kernel: ir.Kernel, complete_threshold: int) -> dict[str, str]:
    """Per array that Vitis partitions completely on its own, what ``check
    --as-written`` says of it."""
    return {a.name: (f"Vitis partitions this array completely ({a.size} elements < "
                     f"config_array_partition -complete_threshold {complete_threshold})")
            for a in kernel.arrays if auto_partitioned(a, complete_threshold)}


def check_kernel(kernel: ir.Kernel, bankings: Mapping[str, Banking], *,
                 ports: int = 2, rule: bool = False,
                 storage: Mapping[str, ir.PortModel] | None = None,
                 deadline: Deadline | None = None) -> CheckReport:
    """Simulate ``kernel`` with ``bankings`` (arrays missing from it are one memory)
    on banks with ``ir.port_model(array, ports)`` (``storage``: port models that
    replace the kernel's, as the emitted code sets them), under the ideal port model or the
    scheduling ``rule``; map-check every array in ``bankings``.  Raises KernelError
    for a write to read-only storage, and :class:`arraypart.limits.TimeLimit` when
    ``deadline`` passes (it is asked before every chunk)."""
    full = _complete(kernel, bankings)
    models = {a.name: (storage or {}).get(a.name) or ir.port_model(a, ports)
              for a in kernel.arrays}
    _check_writable(kernel.body, models)
    forwarded = forwarded_arrays(kernel)
    kernel = _without_registers(kernel, {n for n, b in full.items() if b.scheme.registers})
    irregular = {a.array for a in ir.accesses(kernel.body) if not a.regular}
    memories = {a.name: _Memory(full[a.name], models[a.name],
                                bank_sizes(full[a.name]) if a.name in irregular else None,
                                a, position)
                for position, a in enumerate(kernel.arrays)}
    totals = _Totals()
    found = tuple(regions(kernel))
    sites = _rule_sites(found, kernel, memories, deadline) if rule else {}
    loops = tuple(_check_region(r, kernel, memories, totals, sites.get(ir.text_key(r.loop)),
                                deadline, forwarded.get(r.loop.coord, frozenset()))
                  for r in found)
    loops = one_ii_per_text(found, loops)
    maps = tuple(check_map(a, full[a.name]) for a in kernel.arrays if a.name in bankings)
    return CheckReport(loops, maps, totals.accesses, totals.out_of_bounds_notes())


def one_ii_per_text(found: tuple[Region, ...], loops: tuple[LoopCheck, ...]
                    ) -> tuple[LoopCheck, ...]:
    """``loops`` with every instance of one loop text (:func:`ir.text_key`: a
    geometric loop's copies, a function's loop in each call) at the II of the worst:
    the HLS tool schedules that text once, whatever each call would need alone, so
    ``II = max over the instances``, ``cycles = iterations * II``."""
    texts: dict[tuple, list[int]] = {}
    for n, region in enumerate(found):
        texts.setdefault(ir.text_key(region.loop), []).append(n)
    out = list(loops)
    for members in texts.values():
        worst = max(members, key=lambda n: loops[n].achieved_ii)
        w = loops[worst]
        memory_ii = max(loops[n].memory_ii for n in members)
        for n in members:
            loop = out[n] = replace(loops[n], memory_ii=memory_ii)
            if loop.achieved_ii < w.achieved_ii:
                out[n] = replace(
                    loop, achieved_ii=w.achieved_ii, cycles=loop.iterations * w.achieved_ii,
                    stall_cycles=loop.iterations * (w.achieved_ii - loop.target_ii),
                    first_conflict=w.first_conflict, dynamic_sites=w.dynamic_sites,
                    text_call=(members.index(worst) + 1, len(members)))
    return tuple(out)


def _complete(kernel: ir.Kernel, bankings: Mapping[str, Banking]) -> dict[str, Banking]:
    names = {a.name for a in kernel.arrays}
    unknown = sorted(set(bankings) - names)
    if unknown:
        raise ValueError(f"bankings for arrays not in the kernel: {unknown}")
    full = {}
    for a in kernel.arrays:
        banking = bankings.get(a.name) or Banking(a.name, none_scheme(a.shape))
        if banking.scheme.shape != a.shape:
            raise ValueError(f"banking of {a.name} has shape {banking.scheme.shape}, "
                             f"the array {a.shape}")
        full[a.name] = banking
    return full


def _without_registers(kernel: ir.Kernel, registers: set[str]) -> ir.Kernel:
    """The kernel without its accesses to register arrays (every bank one element),
    which take no port, and without the statements, ifs and loops left with no access (selects
    between registers unroll into thousands of lanes that need no simulation); but
    for the accesses that start a call of a function whose instances an ``allocation``
    pragma limits (``ir.PerCall.shared``): they count the calls (:func:`_limited_calls`),
    not ports."""
    return replace(kernel, body=_prune(kernel.body, registers))


def _kept(access: ir.Access, registers: set[str]) -> bool:
    return access.array not in registers or (access.per_call is not None
                                             and access.per_call.shared is not None)


def _prune(nodes: tuple[ir.Node, ...], registers: set[str], inside: bool = False
           ) -> tuple[ir.Node, ...]:
    """``nodes`` without register accesses; ``inside`` a concurrent loop, a loop left
    empty goes too (it has no step to report, and its lanes would still be built)."""
    out: list[ir.Node] = []
    for n in nodes:
        if isinstance(n, ir.Stmt):
            kept = tuple(a for a in n.accesses if _kept(a, registers))
            if kept:
                out.append(replace(n, accesses=kept))
        elif isinstance(n, ir.If):
            cond = tuple(a for a in n.cond_accesses if _kept(a, registers))
            then = _prune(n.then, registers, inside)
            orelse = _prune(n.orelse, registers, inside)
            if cond or then or orelse:
                out.append(replace(n, cond_accesses=cond, then=then, orelse=orelse))
        else:
            body = _prune(n.body, registers, inside or ir.concurrent(n))
            if body or (ir.concurrent(n) and not inside):
                out.append(replace(n, body=body))
    return tuple(out)


def _check_writable(body: tuple[ir.Node, ...], models: Mapping[str, ir.PortModel]) -> None:
    for a in ir.accesses(body):
        model = models[a.array]
        if a.kind == "write" and not model.writable:
            raise KernelError(a.coord, f"write to '{a.array}', whose storage "
                                       f"{model.name} is read-only")


@dataclass(frozen=True, eq=False)
class _Memory:
    """One array's banking, its banks' ports and (when it has irregular accesses) the
    elements each bank holds (looked up by name: a kernel may have thousands)."""

    banking: Banking
    model: ir.PortModel
    sizes: np.ndarray | None
    array: ir.Array
    position: int  # in kernel.arrays: the order arrays are reported in
    # id(access) -> the access addressing what the ports see; one object per access,
    # so that a site keeps one identity (rule.SiteKey) over the check
    counted_accesses: dict[int, ir.Access] = field(default_factory=dict)

    def counted(self, access: ir.Access) -> ir.Access:
        """``access`` addressing what the ports see (``ir.Array.counted_index``: a
        window read the buffer's one feed read, a reshaped array's access its word);
        any other as it is."""
        if not (access.window or self.array.reshapes):
            return access
        if id(access) not in self.counted_accesses:
            self.counted_accesses[id(access)] = replace(access, index=self.array.counted_index(
                access.index, access.window))
        return self.counted_accesses[id(access)]


@dataclass
class _Totals:
    """Counters of one check_kernel call; ``ranges`` maps (access, dimension) to the
    range of its executed indices (over every chunk: one entry per access)."""

    accesses: int = 0
    ranges: dict[tuple[ir.Access, ir.Array, int], tuple[int, int]] = field(
        default_factory=dict)

    def out_of_bounds_notes(self) -> tuple[str, ...]:
        return tuple(warning_text(a.coord, f"index {d} of '{array.name}' takes values "
                                           f"{lo}..{hi} outside 0..{array.shape[d] - 1}")
                     for (a, array, d), (lo, hi) in self.ranges.items()
                     if lo < 0 or hi >= array.shape[d])


@dataclass(frozen=True, eq=False)
class _BundleUse:
    """The off-chip arrays of one m_axi bundle in one run: their cells (ideal, writes
    that are one write merged) and, per step, their reads and writes together."""

    cells: dict[str, list[Cells]]
    reads: np.ndarray
    writes: np.ndarray

    @property
    def need(self) -> np.ndarray:
        return min_iis(ir.M_AXI_PORTS, self.reads, self.writes)


@dataclass(frozen=True, eq=False)
class _Run:
    """One run of a chunk: its steps' order keys, each array's cells as the ports
    count them (writes that are one write merged, :func:`.writes.one_write`), the
    bundles that several of its arrays share, each off-chip array's own transfers
    (``alone``, :func:`_off_chip_needs`), the calls of allocation-limited functions
    each step starts (:func:`_limited_calls`), and per-step need, with the calls and
    without (``memory_need``: the memories' and bundles' alone)."""

    frame: F.Frame
    order: tuple[np.ndarray, ...]
    cells: dict[str, list[Cells]]
    needs: dict[str, np.ndarray]
    bundles: dict[str, _BundleUse]
    need: np.ndarray
    alone: dict[str, _BundleUse]
    calls: dict[ir.SharedInstances, np.ndarray]
    memory_need: np.ndarray


class _Budget:
    """Steps per chunk: one step until a chunk shows what a step costs (the table
    cells of its walk: the frames of the loops in it and the access instances of
    every statement it emits, :func:`.walk.walk_steps`), then as many as
    fit :data:`CHUNK_CELLS`; never grown back, so the costliest step seen rules."""

    def __init__(self) -> None:
        self.cells_per_step: int | None = None

    def steps(self) -> int:
        if self.cells_per_step is None:
            return 1
        return max(1, CHUNK_CELLS // self.cells_per_step)

    def learn(self, steps: int, cells: int) -> None:
        per_step = max(1, -(-cells // max(1, steps)))
        self.cells_per_step = max(self.cells_per_step or 1, per_step)


def _chunks(region: Region, deadline: Deadline | None
            ) -> Iterator[tuple[F.Frame, list[Emitted], int]]:
    """The region's steps in execution order, in chunks of about CHUNK_CELLS access
    instances: ``(steps, emitted, trip)`` where ``trip`` is the most steps one entry
    of the loop takes in the entry piece the chunk comes from.  ``deadline`` is
    asked before each chunk."""
    budget = _Budget()
    entry_rows = _entry_rows(region.depth())
    for entry in entries(region, lambda: entry_rows):
        trip = int(root_blocks(region, entry).max(initial=0))
        for steps in root_pieces(region, entry, budget.steps):
            if deadline is not None:
                deadline.check("checker")
            emitted, cells = walk_steps(region, steps)
            budget.learn(steps.rows, cells)
            yield steps, emitted, trip


def _entry_rows(depth: int) -> int:
    """Rows of each piece of the entry frame behind ``depth`` sequential loops.  Every
    level of the nest holds one piece at a time, and a piece at level k has about
    :data:`ENTRY_COLUMNS` * k columns, so pieces of CHUNK_CELLS / (ENTRY_COLUMNS *
    (depth + 1)^2) rows keep all of them within CHUNK_CELLS (50 nested loops held
    600 MB with pieces of CHUNK_CELLS / depth rows)."""
    return max(1, CHUNK_CELLS // (ENTRY_COLUMNS * (depth + 1) ** 2))


def _check_region(region: Region, kernel: ir.Kernel, memories: dict[str, _Memory],
                  totals: _Totals, static: RuleSites | None,
                  deadline: Deadline | None, forwarded: frozenset[str]) -> LoopCheck:
    """The region checked once per path through its loop's data-dependent ifs
    (:func:`ir.branch_paths`: two branches never issue together); each iteration
    needs what its worst path needs.  ``static``: under the scheduling rule, what
    :func:`_rule_sites` found of its loop's sites (None: the ideal port model);
    ``forwarded``: the arrays whose elements the loop forwards
    (:func:`.forwarding.forwarded_arrays`)."""
    apart = frozenset(name for name, memory in memories.items()
                      if not ir.bundle_reads_merge(region.loop, memory.array))
    checks = [_check_path(replace(region, loop=variant), kernel, memories, totals, static,
                          deadline, region.loop, forwarded, apart)
              for variant in ir.branch_paths(region.loop)]
    worst = max(checks, key=lambda c: c.achieved_ii)
    dynamic: dict[tuple, DynamicSite] = {}
    for site in (s for c in checks for s in c.dynamic_sites):
        key = (site.array, site.kind, site.coord)
        if key not in dynamic or dynamic[key].lanes < site.lanes:
            dynamic[key] = site
    return replace(worst, memory_ii=max(c.memory_ii for c in checks),
                   dynamic_sites=tuple(dynamic.values()))


def _check_path(region: Region, kernel: ir.Kernel, memories: dict[str, _Memory],
                totals: _Totals, static: RuleSites | None,
                deadline: Deadline | None, whole: ir.Loop,
                forwarded: frozenset[str], apart: frozenset[str]) -> LoopCheck:
    """One path of the region (``region.loop``, a path of ``whole``: the loop with
    every branch), without the accesses of the arrays ``forwarded`` that take no port
    (:mod:`.forwarding`), each access in its epoch over every path (:mod:`.epochs`);
    ``apart``: the off-chip arrays whose reads of one element count apart
    (``ir.bundle_reads_merge``, decided on the whole loop as the model decides it)."""
    target = region.target_ii
    steps, need, memory, conflict, key, trip = 0, target, target, None, None, 0
    dynamic: dict[ir.Access, int] = {}
    elements: dict = {}  # without_free's cache over the chunks
    known_epochs: dict = {}  # read_epochs' cache over the chunks
    arrays = {a.name: a for a in kernel.arrays}
    kinds: dict[str, set[str]] = {}
    for a in ir.accesses(whole.body):
        kinds.setdefault(a.array, set()).add(a.kind)
    # a step needs every path's emissions only when some array is read and written
    every_path = forwarded or any(len(k) == 2 for k in kinds.values())
    for root, emitted, entry_trip in _chunks(region, deadline):
        trip = max(trip, entry_trip)
        iteration = emitted if region.loop is whole or not every_path else walk_steps(
            replace(region, loop=whole), root)[0]
        epochs = read_epochs(iteration, arrays, known_epochs)
        if forwarded:
            emitted = without_free(emitted, iteration, forwarded, arrays, elements)
        runs = _runs(emitted, kernel, memories, totals, static, deadline, apart, epochs)
        for run in runs:
            need = max(need, int(run.need.max(initial=1)))
            memory = max(memory, int(run.memory_need.max(initial=1)))
            if static is not None:
                _count_dynamic(run, static, dynamic)
        if conflict is None:
            conflict, key = _first_conflict(runs, memories, target, steps, static)
        steps += sum(_steps(r.frame) for r in runs) if runs else _steps(root)
    if conflict is not None and any(collapsed(region)):
        before = _steps_before(region, key, deadline)
        conflict = replace(conflict, iteration=before, cycle=before * target)
    sites = tuple(DynamicSite(a.array, a.kind, a.coord, lanes)
                  for a, lanes in dynamic.items())
    return LoopCheck(region.loop.name, region.loop.coord, target, need, memory, trip, steps,
                     steps * need, steps * (need - target), conflict, sites)


def _rule_sites(found: tuple[Region, ...], kernel: ir.Kernel, memories: dict[str, _Memory],
                deadline: Deadline | None) -> dict:
    """Per concurrent loop text (:func:`ir.text_key`), :func:`_static_sites` over all
    its instances together: a loop with a geometric step lowered once per value, a
    function's loop inlined once per call.  The HLS tool has one piece of code for
    them, so a bank constant in each instance but not the same in all moves at run
    time (``buf[m][i]`` under ``for (m = 1; m < 8; m += m)``)."""
    sizes = frozenset(p.name for p in kernel.params)
    instances: dict = {}
    for region in found:
        instances.setdefault(ir.text_key(region.loop), []).append(region)
    return {text: _static_sites(mine, memories, sizes, deadline)
            for text, mine in instances.items()}


def _static_sites(instances: list[Region], memories: dict[str, _Memory],
                  sizes: frozenset[str], deadline: Deadline | None) -> RuleSites:
    """The sites (access, lane) whose bank is one value over the whole run of every
    instance of one loop and does not move with a run-time size (``S[sy + 4*i + j]``:
    one value in this run, but no compile-time value for the scheduler;
    :func:`moves_with_sizes`), and per array the digits its other sites keep
    (:meth:`BankSpan.fixed`).  An access is one site in every instance
    (:func:`ir.site_names`), and a site whose subscript differs between instances in a
    dimension the bank reads is no static one (``Scheme.same_subscript``)."""
    span = BankSpan()
    moving = set()
    members: dict = {}  # site name -> ids of its (counted) accesses
    named = [(region, ir.site_names(region.loop)) for region in instances]
    for region, names in named:
        for _, emitted, _ in _chunks(region, deadline):
            for e in emitted:
                for a in e.accesses:
                    memory = memories[a.array]
                    counted = memory.counted(a)
                    name = names.get(id(a), id(a))
                    members.setdefault(name, set()).add(id(counted))
                    span.add(site_cells(counted, e.frame, memory.banking), memory.banking,
                             name)
                    if moves_with_sizes(counted, memory.banking, sizes):
                        moving.add(name)
    # one text, two subscripts (buf[v] at v = 0 and 2), or a reference some
    # instance's IR lacks: the bank is a run-time value of that text even where the
    # instances' banks coincide
    variants = ir.text_variants((r.loop for r in instances),
                                lambda a: memories[a.array].counted(a).index)
    for region, names in named:
        moving.update(names[id(a)] for a in ir.accesses(region.loop.body)
                      if variants.get(names[id(a)], frozenset())
                      & memories[a.array].banking.scheme.bank_dims())
    static = frozenset(key for key in span.static() if key[0] not in moving)
    bankings = {name: m.banking for name, m in memories.items()}
    return RuleSites(frozenset((access, lane) for name, lane in static
                               for access in members[name]),
                     span.fixed(static, bankings, moving))


def _count_dynamic(run: _Run, sites: RuleSites, dynamic: dict[ir.Access, int]) -> None:
    """Add the run's dynamic lanes per access."""
    for name, cs in run.cells.items():
        for access, (_, lanes) in sites_summary(cs, sites.static).items():
            if lanes:
                dynamic[access] = max(dynamic.get(access, 0), lanes)


def _runs(emitted: list[Emitted], kernel: ir.Kernel, memories: dict[str, _Memory],
          totals: _Totals, static: RuleSites | None,
          deadline: Deadline | None, apart: frozenset[str],
          epochs: dict[int, np.ndarray]) -> list[_Run]:
    """``epochs``: :func:`.epochs.read_epochs` of the step's emissions."""
    runs = []
    for run, parts in _by_run(emitted).items():
        frame = parts[0].frame
        per_array, off_chip, classes, places = _run_cells(parts, memories,
                                                          static is not None, apart,
                                                          epochs)
        order = _run_order(frame, run)
        arrays = sorted((name for name in per_array
                         if not memories[name].banking.scheme.registers),
                        key=lambda name: memories[name].position)
        weight = weights(frame)
        for name in arrays:
            _tally(per_array[name], memories[name].array, totals, weight)
        counted = {name: one_write(per_array[name], *classes[name]) for name in arrays}
        needs = {name: _needs(counted[name], memories[name], frame.rows, static, deadline)
                 for name in arrays}
        ideal = {name: (counted[name] if static is None else one_write(cs, *classes[name]))
                 for name, cs in off_chip.items()}
        placed = {name: list(zip(cs, places[name])) for name, cs in off_chip.items()}
        transfers = {name: transfer_counts(cs, memories[name].banking, frame.rows,
                                           memories[name].sizes) for name, cs in ideal.items()}
        alone = {name: _bundle_use([name], ideal, transfers, placed, frame.rows)
                 for name in ideal}
        needs.update({name: np.minimum(needs[name], use.need) for name, use in alone.items()})
        bundles = _shared_bundles(ideal, transfers, placed, memories, frame.rows)
        memory_need = np.ones(frame.rows, np.int64)
        for array_need in [*needs.values(), *(b.need for b in bundles.values())]:
            memory_need = np.maximum(memory_need, array_need)
        calls = _limited_calls(parts, memories, frame.rows)
        need = memory_need
        for shared, k in calls.items():
            need = np.maximum(need, shared.cycles(k))
        runs.append(_Run(frame, order, counted, needs, bundles, need, alone, calls,
                         memory_need))
    return runs


def _run_cells(parts: list[Emitted], memories: dict[str, _Memory], rule: bool,
               apart: frozenset[str], epochs: dict[int, np.ndarray]
               ) -> tuple[dict[str, list], dict[str, list], dict[str, tuple[list, list]],
                          dict[str, list[tuple[int, Marks]]]]:
    """One run's cells per array (the rule's site cells under the ``rule``), each in
    its epochs (``epochs``, per access: :mod:`.epochs`), the ideal
    cells of its off-chip arrays, per array the subscript keys and marks of the
    cells (:func:`.writes.one_write`), and per off-chip array each ideal cell's scope
    and marks.  Reads of one element in one scope, branch and epoch
    (``ir.Access.same_value``, one copy) are one cell, run where either runs, but for
    the arrays ``apart``."""
    per_array: dict[str, list] = {}
    off_chip: dict[str, list] = {}
    classes: dict[str, tuple[list, list]] = {}
    places: dict[str, list[tuple[int, Marks]]] = {}
    alike: dict[tuple, int] = {}  # a read's element key -> its cell's position
    for e, a, cell, ideal in _owned_cells(parts, memories, rule, epochs):
        off = memories[a.array].array.bundle is not None
        mine = per_array.setdefault(a.array, [])
        key = (None if a.same_value is None or a.array in apart
               else (a.same_value, e.scope, e.marks, cell.owner,
                     tuple(np.atleast_1d(cell.epoch).tolist())))
        if key in alike and (merged := read_either(mine[alike[key]], cell)) is not None:
            mine[alike[key]] = merged
            if off:
                off_chip[a.array][alike[key]] = read_either(off_chip[a.array][alike[key]],
                                                            ideal)
            continue
        if key is not None:
            alike[key] = len(mine)
        keys, marks = classes.setdefault(a.array, ([], []))
        written = subscript_key(a, e.scope, e.marks)
        keys.append(None if written is None else (written, cell.owner))
        marks.append(e.marks)
        mine.append(cell)
        if off:
            off_chip.setdefault(a.array, []).append(ideal)
            places.setdefault(a.array, []).append((e.scope, e.marks))
    return per_array, off_chip, classes, places


def _owned_cells(parts: list[Emitted], memories: dict[str, _Memory], rule: bool,
                 epochs: dict[int, np.ndarray]) -> Iterator[tuple]:
    """Per access of the run's emissions: the emission, the access, its cells (the
    rule's site cells under the ``rule``) in its epochs and its ideal cells, once per
    copy of a called function whose own array it accesses (``Cells.owner``)."""
    for e in parts:
        for a in e.accesses:
            memory = memories[a.array]
            counted = memory.counted(a)
            epoch = epochs.get(id(a), 0)
            cell = replace((site_cells if rule else cells)(counted, e.frame, memory.banking),
                           epoch=epoch)
            ideal = (replace(cells(counted, e.frame, memory.banking), epoch=epoch)
                     if memory.array.bundle is not None and rule else cell)
            for owner, lanes in _owners(a, e.frame):
                yield (e, a) + tuple(c if owner == () else replace(
                    c if lanes is None else c.masked(c.mask & lanes), owner=owner)
                    for c in (cell, ideal))


def _owners(access: ir.Access, frame: F.Frame) -> list[tuple[tuple, np.ndarray | None]]:
    """The copies of the called function whose own array ``access`` accesses, and
    the lanes of ``frame`` each runs (None: all): its call (``ir.PerCall.call``) and
    the lanes whose values of the call's iterators lie at one offset from the first
    lane's (within a step, one value) run one copy; the calls that share instances
    (``ir.PerCall.shared``) run one, their scope's.  ``((), None)`` alone for an
    array no called function declares."""
    per_call = access.per_call
    if per_call is None:
        return [((), None)]
    if per_call.shared is not None:
        return [((per_call.shared.scope,), None)]
    return _copies(per_call, frame)


def _copies(per_call: ir.PerCall, frame: F.Frame) -> list[tuple[tuple, np.ndarray | None]]:
    """The copies of ``per_call``'s call that the lanes of ``frame`` run, each with
    its lanes (None: all): lanes whose values of the call's iterators lie at one
    offset from the first lane's run one copy."""
    offsets = {v: x - x[:, :1] for v in per_call.iterators if v in frame.env
               for x in [F.values(frame, E.var(v))]}
    offsets = {v: x for v, x in offsets.items() if x.any()}
    if not offsets:
        return [((per_call.call,), None)]
    stacked = np.stack(list(offsets.values()), axis=-1)
    return [((per_call.call,) + tuple(zip(offsets, map(int, row))),
             np.all(stacked == row, axis=-1))
            for row in np.unique(stacked.reshape(-1, len(offsets)), axis=0)]


def _limited_calls(parts: list[Emitted], memories: dict[str, _Memory], rows: int
                   ) -> dict[ir.SharedInstances, np.ndarray]:
    """Per function whose instances an ``allocation`` pragma limits
    (``ir.PerCall.shared``), per step the calls k of it that the step starts: the
    copies (:func:`_copies`) of its calls that access its own arrays in some lane of
    the step.  Calls beyond the N instances wait for one: the step needs
    ``SharedInstances.cycles(k) = ceil(k / N)`` cycles (UG1399, "pragma HLS
    allocation")."""
    started: dict[ir.SharedInstances, dict[tuple, np.ndarray]] = {}
    for e in parts:
        for a in e.accesses:
            per_call = a.per_call
            if per_call is None or per_call.shared is None:
                continue
            memory = memories[a.array]
            mask = cells(memory.counted(a), e.frame, memory.banking).mask
            mine = started.setdefault(per_call.shared, {})
            for copy, lanes in _copies(per_call, e.frame):
                live = mask if lanes is None else mask & lanes
                live = np.broadcast_to(live, (rows, live.shape[-1])).any(axis=1)
                mine[copy] = mine.get(copy, np.zeros(rows, bool)) | live
    return {shared: sum(copies.values()) for shared, copies in started.items()}


def _shared_bundles(off_chip: dict[str, list[Cells]],
                    transfers: dict[str, tuple[np.ndarray, np.ndarray]],
                    placed: dict[str, list[tuple[Cells, tuple[int, Marks]]]],
                    memories: dict[str, _Memory], rows: int) -> dict[str, _BundleUse]:
    """The bundles that several arrays of ``off_chip`` share: a bundle's adapter
    serves one read and one write per cycle for all of them (DESIGN §2), so a step
    needs ``max(reads, writes)`` cycles of it, each the fewer of the arrays' summed
    counts and of the most instances one path through the data-dependent ``if``s
    runs (:func:`_one_path`, from ``placed``: each cell with its scope and marks)."""
    names_of: dict[str, list[str]] = {}
    for name in sorted(off_chip, key=lambda n: memories[n].position):
        names_of.setdefault(memories[name].array.bundle, []).append(name)
    return {bundle: _bundle_use(names, off_chip, transfers, placed, rows)
            for bundle, names in names_of.items() if len(names) > 1}


def _bundle_use(names: list[str], off_chip: dict[str, list[Cells]],
                transfers: dict[str, tuple[np.ndarray, np.ndarray]],
                placed: dict[str, list[tuple[Cells, tuple[int, Marks]]]],
                rows: int) -> _BundleUse:
    """What the off-chip arrays ``names`` transfer per step (:func:`_shared_bundles`):
    per kind the fewer of their summed counts (``transfers``, each array's
    :func:`.ports.transfer_counts`) and of the most one path runs.  One
    array alone bounds its own need on its m_axi port (:func:`_runs`: the per-array
    count takes every arm of every lane, but one lane's exclusive arms never run
    together; ``poly.build.path_transfers``)."""
    counts = [transfers[n] for n in names]
    mine = [item for n in names for item in placed[n]]
    return _BundleUse({n: off_chip[n] for n in names},
                      np.minimum(sum(r for r, _ in counts), _one_path(mine, "read", rows)),
                      np.minimum(sum(w for _, w in counts), _one_path(mine, "write", rows)))


def _one_path(placed: list[tuple[Cells, tuple[int, Marks]]], kind: str,
              rows: int) -> np.ndarray:
    """Per step, the most ``kind`` instances of ``placed`` (cells, their scope and
    marks) that one path through the data-dependent ``if``s runs: the arms of one
    ``if`` instance, one per scope and cell (row, lane), never run together
    (:func:`.writes.most_per_cell`); scopes and lanes add."""
    by_scope: dict[int, list[tuple[np.ndarray, Marks]]] = {}
    for c, (scope, marks) in placed:
        if c.access.kind == kind:
            by_scope.setdefault(scope, []).append((c.mask, marks))
    total = np.zeros(rows, np.int64)
    for items in by_scope.values():
        total += most_per_cell(items).reshape(rows, -1).sum(axis=1)
    return total


def _by_run(emitted: list[Emitted]) -> dict[int, list[Emitted]]:
    """The emissions of each run, by run (a run's steps are its first part's rows)."""
    by_run: dict[int, list[Emitted]] = {}
    for e in emitted:
        by_run.setdefault(e.run, []).append(e)
    return by_run


def _run_order(frame: F.Frame, run: int) -> tuple[np.ndarray, ...]:
    """The order key columns of a run's steps: its frame's, then the run's position."""
    return tuple(frame.order) + (np.full(frame.rows, run, np.int64),)


def _needs(cs: list, memory: _Memory, rows: int, static: RuleSites | None,
           deadline: Deadline | None) -> np.ndarray:
    """Per step, the least II at which every member view of the array
    (``ir.member_views``: a disaggregated struct array is one memory per member)
    serves its cells."""
    need = np.ones(rows, np.int64)
    for view in _views(cs, memory):
        if static is None:
            view_need = row_needs(view, memory.banking, memory.model, rows, memory.sizes)
        else:
            view_need = rule_needs(view, memory.banking, memory.model, rows, static.static,
                                   static.kept_by(memory.array.name),
                                   checkpoint=None if deadline is None else
                                   lambda: deadline.check("checker"))
        need = np.maximum(need, view_need)
    return need


def _views(cs: list, memory: _Memory) -> list[list]:
    """The cells of each memory: per member view (``ir.member_views``), per copy of a
    called function whose own array it is (``Cells.owner``)."""
    owners: dict[tuple, list] = {}
    for c in cs:
        owners.setdefault(c.owner, []).append(c)
    return [view for mine in owners.values()
            for view in ir.member_views(memory.array, mine, lambda c: c.access.field)]


def _steps(frame: F.Frame) -> int:
    """The steps that ``frame``'s rows stand for (:func:`.walk.weights`)."""
    weight = weights(frame)
    return frame.rows if weight is None else int(weight.sum())


def _tally(cs: list[Cells], array: ir.Array, totals: _Totals,
           weight: np.ndarray | None) -> None:
    """Count the instances checked (each row as many times as ``weight`` says) and
    note indices outside the array."""
    for c in cs:
        if weight is None:
            totals.accesses += c.count
        else:
            live = np.broadcast_to(c.mask, (weight.size, c.mask.shape[1])).sum(axis=1)
            totals.accesses += int((live * weight).sum())
        for d, n in enumerate(array.shape):
            seen = c.ranges[d]
            if seen is not None:
                lo, hi = totals.ranges.get((c.access, array, d), seen)
                totals.ranges[c.access, array, d] = (min(lo, seen[0]), max(hi, seen[1]))


def _first_conflict(runs: list[_Run], memories: dict[str, _Memory], target: int,
                    steps_before: int, static: RuleSites | None
                    ) -> tuple[Conflict | None, tuple[int, ...] | None]:
    """The earliest step (by order key) over all runs whose need exceeds ``target``,
    and its order key."""
    candidates = []
    for run in runs:
        late = np.flatnonzero(run.need > target)
        if late.size:
            row = int(late[0])
            candidates.append((tuple(int(c[row]) for c in run.order), row, run))
    if not candidates:
        return None, None
    key, row, run = min(candidates, key=lambda t: t[0])
    ordinal = steps_before + sum(_weighted_before(r.frame, r.order, key) for r in runs)
    for name, cs in run.cells.items():
        if run.needs[name][row] > target:
            m = memories[name]
            uses = (first_overfull_bank(view, m.banking, m.model, row, target, m.sizes)
                    if static is None
                    else overfull_bank(view, m.banking, m.model, row, target, static.static,
                                       static.kept_by(name))
                    for view in _views(cs, m))
            use = next((u for u in uses if u is not None), None)
            assert use is not None, "a step's need and its banks disagree"
            point = tuple((v, int(x[row])) for v, x in run.frame.point)
            reads, writes = use.reads, use.writes
            if name in run.alone:
                reads = min(reads, int(run.alone[name].reads[row]))
                writes = min(writes, int(run.alone[name].writes[row]))
            return Conflict(ordinal, ordinal * target, point, name, use.copy, use.bank,
                            use.accesses, reads, writes, m.model.name,
                            bool(m.array.reshapes),
                            on_one_path=(reads, writes) != (use.reads, use.writes)), key
    for bundle, use in run.bundles.items():
        if use.need[row] > target:
            point = tuple((v, int(x[row])) for v, x in run.frame.point)
            accesses = tuple(replace(a, array=name) for name, cs in use.cells.items()
                             for a in row_accesses(cs, row))
            return Conflict(ordinal, ordinal * target, point, f"bundle {bundle}", 0, 0,
                            accesses, int(use.reads[row]), int(use.writes[row]),
                            ir.M_AXI_PORTS.name, shared=True), key
    for shared, k in run.calls.items():
        if shared.cycles(int(k[row])) > target:
            point = tuple((v, int(x[row])) for v, x in run.frame.point)
            return Conflict(ordinal, ordinal * target, point, shared.function, 0, 0, (), 0, 0,
                            "", calls=int(k[row]), limit=shared.instances), key
    raise AssertionError("a late step without a late array, bundle or allocation")


def _steps_before(region: Region, key: tuple[int, ...], deadline: Deadline | None) -> int:
    """The steps the whole run takes before the step of order ``key``, when some loops
    were collapsed (:func:`.walk.collapsed`).  That step's first occurrence is in the
    first iteration of each collapsed loop, so an earlier row stands for the product
    of the trip counts of the collapsed loops below the first order column where it
    differs from ``key`` (those above run it only after the step, in later
    iterations); a second walk, made only when there is a conflict to place."""
    before = 0
    for _, emitted, _ in _chunks(region, deadline):
        for run, parts in _by_run(emitted).items():
            frame = parts[0].frame
            before += _weighted_before(frame, _run_order(frame, run), key)
    return before


def _weighted_before(frame: F.Frame, order: tuple[np.ndarray, ...],
                     key: tuple[int, ...]) -> int:
    """The rows whose order columns are lexicographically less than ``key`` (a shorter
    equal prefix sorts first), each weighted as :func:`_steps_before` says (1 where no
    loop was collapsed)."""
    rows = frame.rows
    trips = {int(name[len(TRIPS):]): a[:, 0] for name, a in frame.env.items()
             if name.startswith(TRIPS)}
    weight = np.ones(rows, np.int64)
    less = np.zeros(rows, bool)
    equal = np.ones(rows, bool)
    for column, (values, k) in enumerate(zip(order, key)):
        differs_here = equal & (values < k)
        # rows first differing at this column run once per iteration of the collapsed
        # loops below it
        below = np.ones(rows, np.int64)
        for at, count in trips.items():
            if at > column:
                below = below * np.broadcast_to(count, (rows,))
        weight = np.where(differs_here, below, weight)
        less |= differs_here
        equal &= values == k
    if len(order) < len(key):
        less |= equal
    return int(weight[less].sum())


