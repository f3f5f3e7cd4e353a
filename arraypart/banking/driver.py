"""The banking pass's entry point: :func:`solve` banks every array of a model.

The arrays are banked one at a time, easiest first, each within its share of the time
limit (:mod:`.options`); an array that no search decides (a register port, an off-chip
or reshaped array, one no concurrent loop touches, ...) keeps a fixed banking, proven;
every other array gets the cheapest banking that :class:`.search.Search` finds and isl
proves conflict-free, or, when none reaches the targets, the one that misses them least.
Invariant: every :class:`.solution.ArraySolution` reported carries the proof of its
banking (isl's, or a count where the time limit left no other), never a claim unproven.
"""

from __future__ import annotations

from dataclasses import replace
from time import perf_counter
from typing import Callable, Mapping

from ..errors import warning_text
from ..poly.build import path_transfers
from ..poly.model import ArrayModel, PolyModel
from ..rtl.cost import estimate
from ..scheme import (Banking, DimPartition, fifo_scheme, none_scheme, per_dim_scheme,
                      registers_scheme, scheme_from_pragmas)
from . import dataflow
from .bounds import lower_bound_of
from .device import bram_budget
from .feasible import least_feasible_ii, relaxed
from .groups import GroupShape, analyze_group
from .missed import cheapest_at_reached_ii
from .notes import copies_evidence, ii_text, partition_notes, search_notes
from .options import SCHEME_CHOICES, Options, TimeUp, easiest_first, ignore, share_time
from .proof import Proof, ProofTimeout, counted_proof, prove
from .search import MAX_REGISTER_ELEMENTS, Search
from .solution import ArraySolution, Found, Solution
from .space import cost_of, phased_loops


def solve(model: PolyModel, *, max_banks: int | None = None, part: str | None = None,
          schemes: str = "all", time_limit: float = 30.0, replace_partitions: bool = False,
          progress: Callable[[int, int, str], None] | None = None,
          found: Callable[[Found], None] | None = None,
          best_found: Mapping[str, Found] | None = None) -> Solution:
    """Bank every array of ``model`` (DESIGN §3); see the module doc.  ``max_banks``
    caps banks x copies explicitly; by default the cap comes from ``part``'s BRAM
    (:mod:`.device`).  ``progress``, when given, is told ``(index, count, array
    name)`` before each array; ``found`` is told each banking the search proves
    that is the best of its array so far (the one kept if time ran out now).

    ``best_found``: by array, what an earlier run had found when the time limit ended
    it inside one call (the supervisor's resumed run): no search, each banking proven
    again (:func:`_resumed`), the solution time-limited."""
    if schemes not in SCHEME_CHOICES:
        raise ValueError(f"schemes must be one of {sorted(SCHEME_CHOICES)}")
    start = perf_counter()
    options = Options(max_banks, bram_budget(part), SCHEME_CHOICES[schemes],
                       start + time_limit, time_limit, replace_partitions,
                       found or ignore, _shared_loops(model))
    solved: dict[int, ArraySolution] = {}
    for done, index in enumerate(easiest_first(model.arrays)):
        am = model.arrays[index]
        if progress is not None:
            progress(done, len(model.arrays), am.array.name)
        share = share_time(options, len(model.arrays) - done)
        if best_found is not None:
            solved[index] = _resumed(am, best_found.get(am.array.name), share)
        else:
            ended = solved[index] = _processes_apart(am, _solve_within_time(am, share), share)
            options.found(Found(ended.banking, not ended.time_limited, ended.notes))
    if best_found is None:
        _solve_cut_short_again(model, solved, options)
    arrays = tuple(solved[k] for k in range(len(model.arrays)))
    warnings = tuple(note for a in arrays for note in a.notes)
    return Solution(arrays, warnings, perf_counter() - start, best_found is not None)


def _shared_loops(model: PolyModel) -> frozenset[str]:
    """The loops whose groups hold more than one array: another array may bound the
    II of such a loop whatever this one's banking (:func:`.missed._fewest_cycles`)."""
    arrays: dict[str, set[str]] = {}
    for am in model.arrays:
        for g in am.groups:
            arrays.setdefault(g.loop, set()).add(am.array.name)
    return frozenset(loop for loop, names in arrays.items() if len(names) > 1)


def _solve_cut_short_again(model: PolyModel, solved: dict[int, ArraySolution],
                           options: Options) -> None:
    """The arrays whose equal share of the time ended their search, banked again with
    an equal share of what the others left (the first in line of 600 loops' arrays
    had 1/602 of the limit, and the limit was said to be reached after 5 of 30 s)."""
    again = [k for k in easiest_first(model.arrays) if solved[k].time_limited]
    for done, index in enumerate(again):
        if perf_counter() >= options.deadline:
            return
        am = model.arrays[index]
        share = share_time(options, len(again) - done)
        ended = solved[index] = _processes_apart(am, _solve_within_time(am, share), share)
        options.found(Found(ended.banking, not ended.time_limited, ended.notes))


def cheaper_one_memory(model: PolyModel, chosen: ArraySolution, why: str, *,
                       deadline: float | None = None) -> ArraySolution | None:
    """``chosen``'s array as one memory when that costs less in the search's ranking
    (:class:`.space.Cost`: rule lanes, then BRAM18K, then LUTs), proven by isl like any
    banking (its ``achieved_ii``: per loop, the least II one bank allows), with the
    located note ``why`` in place of the notes that name ``chosen``'s scheme (and one
    that the time limit cut ``chosen``'s search short, if it did); None when the banks
    cost no more, or when the proof passes ``deadline`` (a ``perf_counter`` time)."""
    am = model.array(chosen.array.name)
    banking = Banking(am.array.name, none_scheme(am.array.shape))
    shapes = [analyze_group(g, len(am.array.shape)) for g in am.groups]
    if not cost_of(banking, am, shapes) < cost_of(chosen.banking, am, shapes):
        return None
    start = perf_counter()
    try:
        proof = prove(am, banking, deadline=deadline)
    except ProofTimeout:
        return None
    named = chosen.banking.scheme.describe()
    kept = tuple(note for note in chosen.notes if named not in note) + (
        warning_text(am.array.coord, why),)
    if chosen.time_limited:
        kept += (warning_text(am.array.coord, (
            f"solver time limit reached while looking for a banking of "
            f"{am.array.name} that lowers the II; a longer --time-limit may find one")),)
    return replace(_solution(am, banking, proof, chosen.lower_bound, start,
                             f"one memory, proven: {why}", kept),
                   time_limited=chosen.time_limited)


def _processes_apart(am: ArrayModel, solution: ArraySolution,
                     options: Options) -> ArraySolution:
    """``solution`` with the concurrent dataflow processes that read a multi-port ROM
    on copies of their own, each process's searched alone (:mod:`.dataflow`)."""
    alone = replace(options, found=ignore)
    placed = dataflow.side_by_side(am, solution, lambda part: _solve_within_time(part, alone))
    if placed is None:
        return solution
    return replace(solution, banking=placed.banking, lower_bound=placed.lower_bound,
                   max_concurrent=placed.max_concurrent,
                   bram18k=estimate(placed.banking, am).bram18k,
                   proof=f"{solution.proof}; dataflow processes run at once, each on copies "
                         f"of its own{copies_evidence(am, placed.banking)}")


def _solve_within_time(am: ArrayModel, options: Options) -> ArraySolution:
    """The search under the deadline.  A target II that address sharing makes
    impossible is recognised first (:mod:`.feasible`): the search then seeks the least
    II that is possible.  When the deadline passes, the array keeps one memory, whose
    II is proven by counting (DESIGN §4: exit 1 with the best banking so far)."""
    start = perf_counter()
    floors = least_feasible_ii(am)
    if floors and _registers_within_reach(am, options):
        return _registers(am, start)
    if floors and _kept_registers(am, options):
        floors = {}  # the floors bind memory banks: the user's registers take no port
    try:
        solution = _solve_array(relaxed(am, floors) if floors else am, options)
    except (ProofTimeout, TimeUp):
        return _time_limited(am, options, start)
    except MemoryError:
        solution = None  # out of the handler: its traceback holds the search's memory
    if solution is None:
        return _time_limited(am, options, start, out_of_memory=True)
    if not floors:
        return solution
    if solution.banking.scheme.registers:
        # registers take no port: the relaxed search's answer meets the real targets
        proof = prove(am, solution.banking)
        return replace(solution, conflict_free=proof.conflict_free,
                       achieved_ii=proof.achieved_ii)
    registers = (" (a complete partition, registers, would reach it)"
                 if am.array.partitionable else "")
    notes = tuple(dict.fromkeys(warning_text(am.array.coord, (  # one per path: once
        f"{why}: II {am.groups[k].target_ii} is impossible for memory banks, the least "
        f"is {ii}{registers}")) for k, (ii, why) in sorted(floors.items())))
    return replace(solution, conflict_free=False, notes=solution.notes + notes)


def _kept_registers(am: ArrayModel, options: Options) -> bool:
    """The array keeps the user's partition pragmas, and they make it registers."""
    return (_keeps_partitions(am.array, options)
            and scheme_from_pragmas(am.array).registers)


def _registers_within_reach(am: ArrayModel, options: Options) -> bool:
    """A small array may become registers (one bank per element, within the bank
    cap), which take no port: the one way to meet an II that sharing one address
    makes impossible for memory banks."""
    cap = min(MAX_REGISTER_ELEMENTS, options.max_banks or MAX_REGISTER_ELEMENTS)
    return am.array.partitionable and am.array.size <= cap


def _registers(am: ArrayModel, start: float) -> ArraySolution:
    """``am``'s array complete on every dimension, proven (registers fit any II)."""
    array = am.array
    banking = Banking(array.name, per_dim_scheme(array.shape, tuple(
        DimPartition("complete", n) for n in array.shape)))
    proof = prove(am, banking)
    shapes = [analyze_group(g, len(array.shape)) for g in am.groups]
    bound = lower_bound_of(am.ports, shapes, array)
    return _solution(am, banking, proof, bound, start, (
        f"registers: sharing one address rules out memory banks at the target II, "
        f"lower bound {bound}"))


def _resumed(am: ArrayModel, found: Found | None, options: Options) -> ArraySolution:
    """The banking an earlier run had found for ``am`` when the time limit ended it
    inside one call, proven again here (nothing unproven is reported): as its search
    left it, with its warnings, when that search had ended, else with a warning that
    it is the best found by then; one memory proven by counting when there is none or
    its proof passes the deadline."""
    start = perf_counter()
    if found is None:
        return _time_limited(am, options, start)
    banking, array = found.banking, am.array
    try:
        proof = prove(am, banking, deadline=options.deadline)
    except ProofTimeout:
        return _time_limited(am, options, start)
    shapes = [analyze_group(g, len(array.shape)) for g in am.groups]
    bound = lower_bound_of(am.ports, shapes, array, exhaustive=False) if shapes else 1
    notes = found.notes if found.complete else (warning_text(array.coord, (
        f"solver time limit of {options.time_limit:g} s reached inside one call that "
        f"cannot be interrupted while banking {array.name}: it keeps {banking.describe()}, "
        f"the best banking found when time ran out, proven again (achieved II "
        f"{ii_text(proof.achieved_ii)})")),)
    kept = (_keeps_partitions(array, options)
            and banking == Banking(array.name, scheme_from_pragmas(array)))
    solution = _solution(am, banking, proof, bound, start,
                         "found before the time limit ended the search; proven again", notes)
    return replace(solution, kept=kept, time_limited=not found.complete)


def _time_limited(am: ArrayModel, options: Options, start: float, *,
                  out_of_memory: bool = False) -> ArraySolution:
    """The user's pragmas when the array keeps them (reshaped, or
    :func:`_keeps_partitions`), else one memory; proven by counting, reported with the
    array's lower bound (which the search had, and the report states beside its
    concurrent accesses): the search ran out of time, or ``out_of_memory`` (past the
    run's memory limit)."""
    array = am.array
    as_written = _as_written(array, options)
    banking = Banking(array.name, scheme_from_pragmas(array) if as_written
                      else none_scheme(array.shape))
    proof = counted_proof(am, banking)
    limit = ("the memory limit (--memory-limit)" if out_of_memory
             else f"solver time limit of {options.time_limit:g} s")
    keeps = (f"its pragmas as written ({banking.describe()})" if as_written
             else "one memory")
    # counting is exact for one memory; for banks it counts lanes that may meet
    reached = (f"II at most {ii_text(proof.achieved_ii)}, proven by counting: the checker "
               "gives the II it reaches" if as_written
               else f"achieved II {ii_text(proof.achieved_ii)}, proven by counting")
    note = warning_text(array.coord, (
        f"{limit} reached while banking "
        f"{array.name}: no banking was proven within it, so it keeps {keeps} ({reached})"))
    shapes = [analyze_group(g, len(array.shape)) for g in am.groups]
    bound = lower_bound_of(am.ports, shapes, array, exhaustive=False) if shapes else 1
    solution = _solution(am, banking, proof, bound, start,
                         f"time limit reached; {keeps}, proven by counting", (note,))
    return replace(solution, time_limited=True, kept=_keeps_partitions(array, options))


def _without_concurrency(am: ArrayModel, options: Options, start: float) -> ArraySolution:
    """An array no concurrent loop touches: one memory serves it at every II, and the
    user's partition or reshape pragmas, when it keeps them, stay as written (they
    shape a top's ports), with a note that they buy no II."""
    array = am.array
    kept = _keeps_partitions(array, options)
    scheme = scheme_from_pragmas(array) if _as_written(array, options) \
        else none_scheme(array.shape)
    notes = ()
    if kept and scheme.banks > 1:
        notes = (warning_text(array.partitions[0].coord, (
            f"the array_partition pragmas of {array.name} ({scheme.describe()}) lower no "
            f"II: no pipelined or unrolled loop touches {array.name}, and one memory "
            "serves it; --replace-partitions uses one memory")),)
    solution = _solution(am, Banking(array.name, scheme), Proof(True, (), None, 0), 1,
                         start, "no concurrent accesses", notes)
    return replace(solution, kept=kept)


def _register_port(am: ArrayModel, start: float) -> ArraySolution:
    """A register port (``ir.Array.register``): a register, which takes no port, so
    every access pattern fits; a partition pragma of it is dropped, with a note."""
    array = am.array
    banking = Banking(array.name, registers_scheme(array.shape))
    where = f"a register port ({array.register})"
    notes = tuple(warning_text(p.coord, (
        f"array_partition of {array.name} is dropped: {array.name} is {where}"))
        for p in array.partitions)
    return _solution(am, banking, prove(am, banking), 1, start,
                     f"{where}: no memory", notes)


def _kept_banking(am: ArrayModel, shapes: list[GroupShape], start: float) -> ArraySolution:
    """An array whose banking its text's pragmas give (``ir.Array.kept_banking``: a
    local of a user header's function, a field of a struct partitioned whole):
    proven; a note, saying why it stays, where it misses a target."""
    array = am.array
    banking = Banking(array.name, scheme_from_pragmas(array))
    proof = prove(am, banking)
    notes = () if proof.conflict_free else (warning_text(array.coord, (
        f"{array.name} {array.kept_banking}; it keeps {banking.describe()} as its "
        f"text's pragmas give it, achieved II {ii_text(proof.achieved_ii)}: "
        f"{proof.counterexample}")),)
    bound = lower_bound_of(am.ports, shapes, array) if shapes else 1
    solution = _solution(am, banking, proof, bound, start,
                         "its text's own pragmas", notes)
    return replace(solution, kept=True)


def _keeps_partitions(array, options: Options) -> bool:
    """Whether the array keeps the user's array_partition pragmas as written."""
    return bool(array.partitions) and not options.replace_partitions


def _as_written(array, options: Options) -> bool:
    """Whether the array keeps its pragmas as written when no search decides: it is
    reshaped (a reshape is never replaced), or it keeps its partitions."""
    return bool(array.reshapes) or _keeps_partitions(array, options)


def _solve_array(am: ArrayModel, options: Options) -> ArraySolution:
    start = perf_counter()
    array = am.array
    shapes = [analyze_group(g, len(array.shape)) for g in am.groups]
    if array.register is not None:
        return _register_port(am, start)
    if array.kept_banking is not None:
        return _kept_banking(am, shapes, start)
    if not shapes:
        return _without_concurrency(am, options, start)
    bound = lower_bound_of(am.ports, shapes, am.array)
    if array.reshapes:
        return _reshaped(am, bound, start, options)
    if not array.partitionable:
        return _unpartitioned(am, bound, start, options)
    search = Search(am, shapes, bound, options)
    families = ("per_dim",) if array.pragma_only else options.families
    kept = _keeps_partitions(array, options)
    cut_short = False
    if kept:
        banking = Banking(array.name, scheme_from_pragmas(array))
        proof = search.prove(banking)
        options.found(Found(banking, complete=False))
        better = search.run(families)
        tried = better.tried
        notes = partition_notes(search, banking, proof, better)
    else:
        found = search.run(families, report=True)
        banking, proof, tried = found.banking, found.proof, found.tried
        cut_short = found.cut_short
        if not cut_short:
            banking, proof, cut_short = cheapest_at_reached_ii(am, search, banking, proof,
                                                               families, options)
        notes = search_notes(search, banking, proof, cut_short)
    evidence = (f"{tried} candidates pre-checked, {proof.isl_checks} isl checks, "
                f"lower bound {bound}" + copies_evidence(am, banking))
    return replace(_solution(am, banking, proof, bound, start, evidence, tuple(notes)),
                   kept=kept, time_limited=cut_short,
                   phased_loops=phased_loops(banking.scheme, shapes, array.pragma_only))


def _unpartitioned(am: ArrayModel, bound: int, start: float,
                   options: Options) -> ArraySolution:
    """An off-chip array (its m_axi bundle's port), an array_stencil's array or an
    on-chip pointer stays one memory, an array of streams one FIFO per stream; its
    accesses still count against its ports, proven like any banking."""
    array = am.array
    banking = Banking(array.name, none_scheme(array.shape) if array.fifo is None
                      else fifo_scheme(array.shape))
    proof = prove(am, banking, deadline=options.deadline)
    if array.bundle is not None:
        proof = _on_one_path(am, proof)
        where = f"off-chip (m_axi bundle {array.bundle})"
    elif array.fifo is not None:
        where = (f"a FIFO interface ({array.fifo})" if array.interface
                 else "a stream the kernel declares, a FIFO")
    elif array.stencil is not None:
        where = (f"read through the array_stencil window of loop {array.stencil}, which "
                 "Vitis drops on a partitioned array")
    else:
        where = "a pointer, which Vitis cannot partition (declare it as a sized array)"
    kept = ("one element per cycle" if array.fifo is not None
            else f"it keeps one memory with {am.ports.name} ports")
    notes = () if proof.conflict_free else (warning_text(array.coord, (
        f"{array.name} is {where}: {kept}, achieved II {ii_text(proof.achieved_ii)}: "
        f"{proof.counterexample}")),)
    notes += tuple(warning_text(p.coord, (
        f"array_partition of {array.name} is dropped: {array.name} is {where}"))
        for p in array.partitions)
    return _solution(am, banking, proof, bound, start, f"{where}: never partitioned", notes)


def _on_one_path(am: ArrayModel, proof: Proof) -> Proof:
    """``proof`` of an off-chip array (one memory, m_axi ports) with each group's II
    lowered to what one path through its data-dependent ``if``s needs
    (:func:`.build.path_transfers`): the proof counts every arm of every unrolled
    lane, but one lane's exclusive arms never run together (the bundle counts them
    so).  A group lowered to its target is conflict-free; one still above it is
    described by its counts."""
    least, counterexample = [], None
    for group, ii in zip(am.groups, proof.group_ii):
        reads, writes = path_transfers(group)
        lowered = max(group.target_ii, reads, writes)
        if lowered < ii:
            ii = lowered
            if ii > group.target_ii and counterexample is None:
                counterexample = (f"loop {group.loop}: one path through its data-dependent "
                                  f"ifs makes {reads} reads and {writes} writes of "
                                  f"{am.array.name} in one iteration")
        elif ii > group.target_ii and counterexample is None:
            counterexample = proof.counterexample
        least.append(ii)
    achieved: dict[str, int] = {}
    for group, ii in zip(am.groups, least):
        achieved[group.loop] = max(achieved.get(group.loop, 0), ii)
    free = all(ii <= g.target_ii for g, ii in zip(am.groups, least))
    return replace(proof, conflict_free=free, achieved_ii=tuple(sorted(achieved.items())),
                   counterexample=None if free else counterexample, group_ii=tuple(least))


def _reshaped(am: ArrayModel, bound: int, start: float,
              options: Options) -> ArraySolution:
    """A reshaped array keeps the user's pragmas as written: its array_reshape, and
    the array_partition of other dimensions if any (a partition arraypart added on top
    of a reshape would conflict); its words' accesses are proven like any banking."""
    array = am.array
    banking = Banking(array.name, scheme_from_pragmas(array))
    proof = prove(am, banking, deadline=options.deadline)
    notes = () if proof.conflict_free else (warning_text(array.reshapes[0].coord, (
        f"{array.name} is reshaped ({banking.describe()}, in words): arraypart keeps its "
        f"pragmas as written, achieved II {ii_text(proof.achieved_ii)}: "
        f"{proof.counterexample} (the subscripts number its words)")),)
    return _solution(am, banking, proof, bound, start, "reshaped: kept as written", notes)


def _solution(am: ArrayModel, banking: Banking, proof: Proof, bound: int, start: float,
              evidence: str, notes: tuple[str, ...] = ()) -> ArraySolution:
    banking = _aliases_read_alike(am, banking)
    return ArraySolution(
        array=am.array, ports=am.ports, banking=banking, lower_bound=bound,
        conflict_free=proof.conflict_free, achieved_ii=proof.achieved_ii,
        bram18k=0 if not am.array.memory else estimate(banking, am).bram18k,
        max_concurrent=am.max_concurrent, seconds=perf_counter() - start,
        proof=evidence + (f"; counterexample: {proof.counterexample}"
                          if proof.counterexample else ""),
        notes=notes)


def _aliases_read_alike(am: ArrayModel, banking: Banking) -> Banking:
    """``banking`` with each read merged into another of its element
    (``LaneAccess.aliases``) reading that one's copy: the model counted them as one."""
    copy = dict(banking.read_copy)
    extra = tuple((alias, copy[a.ref_id]) for g in am.groups for a in g.accesses
                  if a.ref_id in copy for alias in a.aliases if alias not in copy)
    return replace(banking, read_copy=banking.read_copy + tuple(dict(extra).items())) \
        if extra else banking
