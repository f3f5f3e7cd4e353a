"""The arrays whose banking no search decides, and the solution of a proven banking.

A register port, an array whose text's pragmas give its banking, one no concurrent
loop touches, a reshaped one, one Vitis cannot partition (off-chip, a stream, an
array_stencil's, a pointer), a small array that only registers serve, and any array
whose search the time or memory limit ended: each keeps a banking fixed by what it
is, proven, with a located note where it misses a target or drops a pragma.

Invariants: every solution here is built by :func:`solution_of` from a proof of its
banking (isl's, or a count where the time limit left no other: exact for one memory,
an upper bound for banks, and said so); the user's partition pragmas are kept as
written exactly when :func:`keeps_partitions` says so, a reshape always.
"""

from __future__ import annotations

from dataclasses import replace
from time import perf_counter

from ..errors import warning_text
from ..poly.build import path_transfers
from ..poly.model import ArrayModel
from ..rtl.cost import estimate
from ..scheme import (Banking, DimPartition, fifo_scheme, none_scheme, per_dim_scheme,
                      registers_scheme, scheme_from_pragmas)
from .bounds import lower_bound_of
from .groups import GroupShape, analyze_group
from .notes import ii_text
from .options import Options
from .proof import Proof, counted_proof, prove
from .solution import ArraySolution


def register_port(am: ArrayModel, start: float) -> ArraySolution:
    """A register port (``ir.Array.register``): a register, which takes no port, so
    every access pattern fits; a partition pragma of it is dropped, with a note."""
    array = am.array
    banking = Banking(array.name, registers_scheme(array.shape))
    where = f"a register port ({array.register})"
    notes = tuple(warning_text(p.coord, (
        f"array_partition of {array.name} is dropped: {array.name} is {where}"))
        for p in array.partitions)
    return solution_of(am, banking, prove(am, banking), 1, start,
                       f"{where}: no memory", notes)


def text_banking(am: ArrayModel, shapes: list[GroupShape], start: float) -> ArraySolution:
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
    solution = solution_of(am, banking, proof, bound, start,
                           "its text's own pragmas", notes)
    return replace(solution, kept=True)


def without_concurrency(am: ArrayModel, options: Options, start: float) -> ArraySolution:
    """An array no concurrent loop touches: one memory serves it at every II, and the
    user's partition or reshape pragmas, when it keeps them, stay as written (they
    shape a top's ports), with a note that they buy no II."""
    array = am.array
    kept = keeps_partitions(array, options)
    scheme = scheme_from_pragmas(array) if _as_written(array, options) \
        else none_scheme(array.shape)
    notes = ()
    if kept and scheme.banks > 1:
        notes = (warning_text(array.partitions[0].coord, (
            f"the array_partition pragmas of {array.name} ({scheme.describe()}) lower no "
            f"II: no pipelined or unrolled loop touches {array.name}, and one memory "
            "serves it; --replace-partitions uses one memory")),)
    solution = solution_of(am, Banking(array.name, scheme), Proof(True, (), None, 0), 1,
                           start, "no concurrent accesses", notes)
    return replace(solution, kept=kept)


def reshaped(am: ArrayModel, bound: int, start: float,
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
    return solution_of(am, banking, proof, bound, start, "reshaped: kept as written", notes)


def unpartitioned(am: ArrayModel, bound: int, start: float,
                  options: Options) -> ArraySolution:
    """An off-chip array (its m_axi bundle's port), an array_stencil's array or an
    on-chip pointer stays one memory, an array of streams one FIFO per stream; its
    accesses still count against its ports, proven like any banking."""
    array = am.array
    banking = Banking(array.name, none_scheme(array.shape) if array.fifo is None
                      else fifo_scheme(array))
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
    return solution_of(am, banking, proof, bound, start, f"{where}: never partitioned",
                       notes)


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


def as_registers(am: ArrayModel, start: float) -> ArraySolution:
    """``am``'s array complete on every dimension, proven (registers fit any II)."""
    array = am.array
    banking = Banking(array.name, per_dim_scheme(array.shape, tuple(
        DimPartition("complete", n) for n in array.shape)))
    proof = prove(am, banking)
    shapes = [analyze_group(g, len(array.shape)) for g in am.groups]
    bound = lower_bound_of(am.ports, shapes, array)
    return solution_of(am, banking, proof, bound, start, (
        f"registers: sharing one address rules out memory banks at the target II, "
        f"lower bound {bound}"))


def time_limited(am: ArrayModel, options: Options, start: float, *,
                 out_of_memory: bool = False) -> ArraySolution:
    """The user's pragmas when the array keeps them (reshaped, or
    :func:`keeps_partitions`), else one memory; proven by counting, reported with the
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
    solution = solution_of(am, banking, proof, bound, start,
                           f"time limit reached; {keeps}, proven by counting", (note,))
    return replace(solution, time_limited=True, kept=keeps_partitions(array, options))


def keeps_partitions(array, options: Options) -> bool:
    """Whether the array keeps the user's array_partition pragmas as written."""
    return bool(array.partitions) and not options.replace_partitions


def _as_written(array, options: Options) -> bool:
    """Whether the array keeps its pragmas as written when no search decides: it is
    reshaped (a reshape is never replaced), or it keeps its partitions."""
    return bool(array.reshapes) or keeps_partitions(array, options)


def solution_of(am: ArrayModel, banking: Banking, proof: Proof, bound: int, start: float,
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
