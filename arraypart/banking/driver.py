"""The banking pass: for every array, the cheapest banking isl proves conflict-free.

Search (per array): tiers of physical banks t = banks x copies, from the lower bound
up to the search ceiling (:func:`search_ceiling`; only the ceiling when the bound
exceeds it: then the least II is sought).  A tier is a set of :class:`.space.Family`
values (per_dim partitions of N banks, flat ``floor(alpha·x/B) mod N`` for each B, at
each copy count and read assignment), visited in the order of their cost floors.
Before a family is pre-checked, the candidates already pre-checked that cost less
than its floor are proved in cost order; the first that :func:`.prove` confirms wins,
since nothing in the families still to come can cost less.  So a per_dim banking at
the bound that no flat scheme can beat (storage, crossbar) is accepted before any
flat candidate is looked at.  Pre-checks are exact residue counts on uniform groups
(:mod:`.precheck`); non-uniform groups are refuted on samples, then judged by isl.
When no tier succeeds, the candidate with the least (pre-checked) II wins and the
report says so.
"""

from __future__ import annotations

import heapq
import itertools
from dataclasses import dataclass, field, replace
from math import prod
from time import perf_counter
from typing import Callable, Iterable, Iterator, Mapping

import numpy as np

from .. import expr as E
from ..errors import warning_text
from ..poly.build import path_transfers
from ..poly.model import ArrayModel, LaneAccess, PolyModel
from ..rtl.closed import lane_table
from ..rtl.cost import estimate, flat_floors, scheme_floors
from ..scheme import (Banking, DimPartition, by_lane_number, fifo_scheme, flat_scheme,
                      lane_copy, none_scheme, per_dim_scheme, registers_scheme,
                      scheme_from_pragmas)
from . import dataflow
from .bounds import bram18k, counting_bound, lower_bound_of
from .device import DEFAULT_SEARCH_BANKS, bram_budget
from .feasible import least_feasible_ii, relaxed
from .groups import GroupShape, analyze_group, read_refs
from .precheck import LaneSet, flat_fits_at_zero, flat_ii, lane_set, per_dim_ii
from .proof import (Proof, ProofTimeout, at_raised_targets, counted_proof, prove,
                    prove_group)
from .sampling import (refuted, routed_ii, sampled_rule_ii, sample_group,
                       shared_banks_overloaded, with_point)
from .solution import ArraySolution, Found, Solution
from .space import (FLAT_BLOCKS, Cost, Family, alpha_rows, copy_assignments, copy_key,
                    as_written_ii, direct_flat_rule_ii, rule_ii, phased, phased_loops,
                    cost_floor, cost_of, crossbar_lanes, flat_block_floors, flat_crossbar,
                    interface_ports, per_dim_partitions, rule_lanes, rule_overloaded,
                    static_box, static_factors)

FAMILIES = ("per_dim", "flat")
SCHEME_CHOICES = {"all": FAMILIES, "vitis": ("per_dim",)}
# Alpha candidates handed to the pre-check at once (it splits them further to stay
# within its memory budget); keeps a batch's bankings cheap to build lazily.
ALPHA_BATCH = 4096
# Candidates that the search behind a pragma-only array's flat-scheme note pre-checks
# at most: the note only informs (the array keeps its per_dim banking), and on large
# arrays that search cost most of a compile (Rosetta 3d-rendering: 25 of 38 s, no note
# found).  A count, not a time, so the output stays deterministic.
NOTE_CANDIDATES = ALPHA_BATCH
# ... and of those, the note's search proves at most this many (each costs its model
# price, routing and samples: 2,130 took 8 s on a 16-lane depthwise convolution, and
# no note came of them; the notes found in the suite took one).
NOTE_PROOFS = 64
# A user's array_partition is called wasteful when it needs more BRAM18K than
# arraypart's conflict-free banking, or more than this many times its LUTs or banks x
# copies (smaller differences are within the fitted model's error, ~6%, and a user's
# reasons).
WASTE_RATIO = 2


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
    options = _Options(max_banks, bram_budget(part), SCHEME_CHOICES[schemes],
                       start + time_limit, time_limit, replace_partitions,
                       found or _ignore, _shared_loops(model))
    solved: dict[int, ArraySolution] = {}
    for done, index in enumerate(_easiest_first(model.arrays)):
        am = model.arrays[index]
        if progress is not None:
            progress(done, len(model.arrays), am.array.name)
        share = _share(options, len(model.arrays) - done)
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
    II of such a loop whatever this one's banking (:func:`_fewest_cycles`)."""
    arrays: dict[str, set[str]] = {}
    for am in model.arrays:
        for g in am.groups:
            arrays.setdefault(g.loop, set()).add(am.array.name)
    return frozenset(loop for loop, names in arrays.items() if len(names) > 1)


def _solve_cut_short_again(model: PolyModel, solved: dict[int, ArraySolution],
                           options: _Options) -> None:
    """The arrays whose equal share of the time ended their search, banked again with
    an equal share of what the others left (the first in line of 600 loops' arrays
    had 1/602 of the limit, and the limit was said to be reached after 5 of 30 s)."""
    again = [k for k in _easiest_first(model.arrays) if solved[k].time_limited]
    for done, index in enumerate(again):
        if perf_counter() >= options.deadline:
            return
        am = model.arrays[index]
        share = _share(options, len(again) - done)
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
                     options: _Options) -> ArraySolution:
    """``solution`` with the concurrent dataflow processes that read a multi-port ROM
    on copies of their own, each process's searched alone (:mod:`.dataflow`)."""
    alone = replace(options, found=_ignore)
    placed = dataflow.side_by_side(am, solution, lambda part: _solve_within_time(part, alone))
    if placed is None:
        return solution
    return replace(solution, banking=placed.banking, lower_bound=placed.lower_bound,
                   max_concurrent=placed.max_concurrent,
                   bram18k=estimate(placed.banking, am).bram18k,
                   proof=f"{solution.proof}; dataflow processes run at once, each on copies "
                         f"of its own{_copies_evidence(am, placed.banking)}")


def may_be_multi_port_rom(am: ArrayModel) -> bool:
    """A pragma-only array keeps the text that uses it, so its read copies can only be
    a multi-port ROM (``bind_storage type=rom_np``: the scheduler gives every read a
    port; the copies its lanes read stand for what that costs): an on-chip array
    that no reference writes, with no storage of the user's."""
    array = am.array
    return (am.read_only and array.partitionable and not array.interface
            and array.storage is None)


def _easiest_first(arrays: tuple[ArrayModel, ...]) -> list[int]:
    """The arrays' indices, fewest accesses per cycle first: an array that needs no
    search is banked before a hard one can spend the time limit."""
    return sorted(range(len(arrays)), key=lambda k: (arrays[k].max_concurrent, k))


def _share(options: _Options, left: int) -> _Options:
    """The options of the next of ``left`` arrays still to bank: an equal share of
    the time that remains (what an array leaves unused goes to those after it)."""
    now = perf_counter()
    return replace(options, deadline=min(options.deadline,
                                         now + max(0.0, options.deadline - now) / left))


def _ignore(found: Found) -> None:
    """The ``found`` hook of a caller that keeps nothing."""


@dataclass(frozen=True, slots=True)
class _Options:
    max_banks: int | None
    bram_budget: int
    families: tuple[str, ...]
    deadline: float
    time_limit: float
    replace_partitions: bool
    found: Callable[[Found], None] = _ignore
    shared_loops: frozenset[str] = frozenset()  # loops of more than one array


@dataclass(frozen=True, slots=True)
class _Found:
    """A search's answer: the banking, its proof, its cost, candidates pre-checked."""

    banking: Banking
    proof: Proof
    cost: Cost
    tried: int
    cut_short: bool = False  # the deadline ended the search for a cheaper one


# Arrays up to this many elements may become registers when sharing one address
# rules out memory banks at the target II, a fallback taken without comparing costs
# (the selects of a larger register file cost more than an II).
MAX_REGISTER_ELEMENTS = 16
# Arrays up to this many elements and bits (not the top's: their registers would be
# ports of the IP) are searched as registers too where lanes that rotate in references
# kept as written overload every memory banking under the scheduling rule; the search
# ranks them with those bankings, by the lanes that rotate first, then by their fitted
# cost (a callee's 32-word table: II 3 in any memory).
MAX_ROTATING_REGISTER_ELEMENTS = 64
MAX_ROTATING_REGISTER_BITS = 64 * 32


class _TimeUp(Exception):
    """The solver's deadline passed during the search."""


def _model_floors(bankings: list[Banking], am: ArrayModel, shapes: list[GroupShape],
                  bram: np.ndarray, lut: np.ndarray, ff: np.ndarray) -> list[Cost]:
    """:func:`.space.cost_floor` of each banking with the model's BRAM18K and LUT and
    FF floors filled in."""
    return [replace(cost_floor(b, am, shapes), bram18k=int(bram[k]), lut=int(lut[k]),
                    ff=int(ff[k])) for k, b in enumerate(bankings)]


@dataclass(frozen=True, order=True)
class _Pending:
    """A pre-checked candidate waiting for its proof: ``cost`` exact, or a floor of it
    when not ``exact``; ``order`` keeps equal costs in the order they were found."""

    cost: Cost
    copy_key: tuple
    order: int
    exact: bool = field(compare=False)
    banking: Banking = field(compare=False)


@dataclass(frozen=True, order=True)
class _Fallback:
    """The best candidate that misses the target: least excess II (summed over the
    groups), then least cost without the model (rule lanes, banks x copies, padding:
    fallbacks are many and rarely chosen)."""

    excess_ii: int
    cost: Cost
    copy_key: tuple
    banking: Banking = field(compare=False)


def search_ceiling(options_max: int | None, bram_budget: int, bound: int,
                   shapes: list[GroupShape], shape: tuple[int, ...]) -> int:
    """The most banks x copies the search tries.  An explicit ``--max-banks`` is kept.
    Otherwise the device's BRAM18K count caps it, and below that cap the search stops
    at the larger of :data:`.device.DEFAULT_SEARCH_BANKS` and the largest bounding box
    of a uniform group's offsets (per-dimension cyclic banking over that box separates
    every lane, so the subscripts never ask for more); never beyond the elements."""
    if options_max is not None:
        return options_max
    box = max([bound] + [_box(s, shape) for s in shapes if s.uniform])
    return max(1, min(bram_budget, prod(shape), max(DEFAULT_SEARCH_BANKS, box)))


def _box(s: GroupShape, shape: tuple[int, ...]) -> int:
    if not len(s.offsets):
        return 1
    spans = s.offsets.max(0) - s.offsets.min(0) + 1
    return prod(min(int(w), n) for w, n in zip(spans, shape))


def _solve_within_time(am: ArrayModel, options: _Options) -> ArraySolution:
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
    except (ProofTimeout, _TimeUp):
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


def _kept_registers(am: ArrayModel, options: _Options) -> bool:
    """The array keeps the user's partition pragmas, and they make it registers."""
    return (_keeps_partitions(am.array, options)
            and scheme_from_pragmas(am.array).registers)


def _registers_within_reach(am: ArrayModel, options: _Options) -> bool:
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


def _resumed(am: ArrayModel, found: Found | None, options: _Options) -> ArraySolution:
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
        f"{_ii_text(proof.achieved_ii)})")),)
    kept = (_keeps_partitions(array, options)
            and banking == Banking(array.name, scheme_from_pragmas(array)))
    solution = _solution(am, banking, proof, bound, start,
                         "found before the time limit ended the search; proven again", notes)
    return replace(solution, kept=kept, time_limited=not found.complete)


def _time_limited(am: ArrayModel, options: _Options, start: float, *,
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
    reached = (f"II at most {_ii_text(proof.achieved_ii)}, proven by counting: the checker "
               "gives the II it reaches" if as_written
               else f"achieved II {_ii_text(proof.achieved_ii)}, proven by counting")
    note = warning_text(array.coord, (
        f"{limit} reached while banking "
        f"{array.name}: no banking was proven within it, so it keeps {keeps} ({reached})"))
    shapes = [analyze_group(g, len(array.shape)) for g in am.groups]
    bound = lower_bound_of(am.ports, shapes, array, exhaustive=False) if shapes else 1
    solution = _solution(am, banking, proof, bound, start,
                         f"time limit reached; {keeps}, proven by counting", (note,))
    return replace(solution, time_limited=True, kept=_keeps_partitions(array, options))


def _without_concurrency(am: ArrayModel, options: _Options, start: float) -> ArraySolution:
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
        f"text's pragmas give it, achieved II {_ii_text(proof.achieved_ii)}: "
        f"{proof.counterexample}")),)
    bound = lower_bound_of(am.ports, shapes, array) if shapes else 1
    solution = _solution(am, banking, proof, bound, start,
                         "its text's own pragmas", notes)
    return replace(solution, kept=True)


def _keeps_partitions(array, options: _Options) -> bool:
    """Whether the array keeps the user's array_partition pragmas as written."""
    return bool(array.partitions) and not options.replace_partitions


def _as_written(array, options: _Options) -> bool:
    """Whether the array keeps its pragmas as written when no search decides: it is
    reshaped (a reshape is never replaced), or it keeps its partitions."""
    return bool(array.reshapes) or _keeps_partitions(array, options)


def _solve_array(am: ArrayModel, options: _Options) -> ArraySolution:
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
    search = _Search(am, shapes, bound, options)
    notes: list[str] = []
    families = ("per_dim",) if array.pragma_only else options.families
    kept = _keeps_partitions(array, options)
    cut_short = False
    if kept:
        banking = Banking(array.name, scheme_from_pragmas(array))
        proof = search.prove(banking)
        options.found(Found(banking, complete=False))
        better = search.run(families)
        tried = better.tried
        if not proof.conflict_free:
            notes.append(warning_text(array.partitions[0].coord, (
                f"the array_partition pragmas of {array.name} ({banking.scheme.describe()}) "
                f"conflict: {proof.counterexample}{_suggestion(search, proof, better)}")))
        elif _wasteful(search.cost(banking), better) and not search.rule_risky(
                better.banking):
            notes.append(_waste_note(array, search.cost(banking), better, bound))
        notes += _rule_note(am, search, banking, proof, better)
    else:
        found = search.run(families, report=True)
        banking, proof, tried = found.banking, found.proof, found.tried
        cut_short = found.cut_short
        if not cut_short:
            banking, proof, cut_short = _cheapest_at_reached_ii(am, search, banking, proof,
                                                                families, options)
        if array.pragma_only and "flat" in options.families:
            notes += _flat_note(am, search, banking, proof, options)
        if cut_short:
            notes.append(warning_text(array.coord, (
                f"solver time limit of {options.time_limit:g} s reached while looking "
                f"for a cheaper banking of {array.name} than {banking.describe()}, which "
                f"is proven and kept")))
        if not proof.conflict_free:
            notes.append(warning_text(array.coord, (
                f"no banking of {array.name} within {search.ceiling} banks "
                f"{_what_fails(am)}{search.copies_note()}; using {banking.describe()}, "
                f"achieved II {_ii_text(search.reached(banking, proof).items())}: {proof.counterexample}")))
    evidence = (f"{tried} candidates pre-checked, {proof.isl_checks} isl checks, "
                f"lower bound {bound}" + _copies_evidence(am, banking))
    return replace(_solution(am, banking, proof, bound, start, evidence, tuple(notes)),
                   kept=kept, time_limited=cut_short,
                   phased_loops=phased_loops(banking.scheme, shapes, array.pragma_only))


# Candidates set aside for their routed groups' sites (:meth:`_Search._routed_ok`)
# after which a search stops pricing the sites.
MAX_ROUTED_REFUTED = 2048

# Tiers searched past the first one at each new lowest BRAM18K floor
# (:meth:`_Search._refine_tiers`).
LEVEL_TIERS = 8


def _cheapest_at_reached_ii(am: ArrayModel, search: _Search, banking: Banking,
                            proof: Proof, families: tuple[str, ...], options: _Options
                            ) -> tuple[Banking, Proof, bool]:
    """A search that misses a target, in the proof or under the scheduling rule
    (:meth:`_Search.reached`), keeps the candidate with the least excess II in the
    tiers it searched for the target, not the cheapest one at the II it reaches (flat
    N=5 with 400% padding in block RAM, where cyclic 4 in LUT RAM reaches the same II
    2), nor the one reaching the least II where the excess of groups that isl judges
    is only known as missed or met (one memory at II 4 where cyclic 4 reaches II 2),
    nor one that meets the targets on paper only (a cyclic 1502 whose rotating lanes
    take a port of every bank: II 1348, where cyclic 512 keeps every lane on its bank
    at II 3).  Search again with each missed group's target raised by 1, 2, 4, ...
    below the gap to the II it reaches, then by the gap, until a banking reaches the
    raised targets (a 17-tap window unrolled by 2 whose cyclic 18 rotates to II 18 is
    met by cyclic 2, static, at the raised target 9); then bisect between the last
    raise missed and the first met (a 3x3 window unrolled by 4 whose cyclic 2 reaches
    II 9 at the raise to 9, where cyclic 4 reaches II 6, met at the raise to 7 but
    not at 5).  Of the bankings that, proven against the real targets, reach no
    larger II in any loop, the one with the least total II, then the least cost, is
    kept.  The time limit ends the search (the third value says so: the best so far
    is kept).  Last, a banking that keeps one group's lanes static may take fewer
    cycles (:func:`_fewest_cycles`)."""
    reached = search.reached(banking, proof)
    missed = {k: g for k, g in enumerate(am.groups) if reached[g.loop] > g.target_ii}
    if not missed:
        return banking, proof, False
    best = [(sum(reached.values()), search.cost(banking), banking, proof)]
    gap = max(reached[g.loop] - g.target_ii for g in missed.values())

    def met_at(raise_by: int) -> bool | None:
        """Search at the targets raised by ``raise_by``, keep what it finds in
        ``best`` if it is no worse anywhere; whether it meets the raised targets
        (None: the time limit cut the search)."""
        floors = {k: (min(reached[g.loop], g.target_ii + raise_by), "")
                  for k, g in missed.items()}
        try:
            found = _banked_at(am, search, floors, families, options)
        except (ProofTimeout, _TimeUp):
            return None
        if found is None:
            return False
        again, checked, cut_short = found
        theirs = search.reached(again, checked)
        if all(theirs[loop] <= ii for loop, ii in reached.items()):
            best[0] = min(best[0], (sum(theirs.values()), search.cost(again), again,
                                    checked), key=lambda entry: entry[:2])
        if cut_short:
            return None
        return all(theirs[am.groups[k].loop] <= ii for k, (ii, _) in floors.items())

    low, high = 0, None
    for raise_by in sorted({1 << k for k in range(gap.bit_length())} | {gap}):
        met = met_at(raise_by)
        if met is None:
            return best[0][2], best[0][3], True
        if met:
            high = raise_by
            break
        low = raise_by
    while high is not None and high - low > 1:
        middle = (low + high) // 2
        met = met_at(middle)
        if met is None:
            return best[0][2], best[0][3], True
        low, high = (low, middle) if met else (middle, high)
    return (*_fewest_cycles(am, search, best[0][2], best[0][3]), False)


def _fewest_cycles(am: ArrayModel, search: _Search, banking: Banking,
                   proof: Proof) -> tuple[Banking, Proof]:
    """Of ``banking`` and the per_dim bankings that keep one group's lanes each on one
    bank (:func:`.space.static_factors`: cyclic by the gcd of their moves), the one
    whose loops take the fewest cycles, sum over loops of iterations x II
    (:meth:`_Search.reached`); ``banking`` on a tie.  A banking whose lanes rotate
    in one loop (II 16 over 1,024 iterations) may be worse than one that rotates in
    another (II 20 over 16), which the II-by-II comparison never trades.  Only loops
    of this array alone may change II: in a loop another array shares, that one may
    hold the II (stencil3d's boundary loops, bound by orig), and the trade buys
    nothing for what it costs elsewhere."""
    iterations: dict[str, int] = {}
    for g in am.groups:
        iterations[g.loop] = max(iterations.get(g.loop, 0), g.total_iterations)

    def cycles(reached: dict[str, int]) -> int:
        return sum(ii * iterations.get(loop, 1) for loop, ii in reached.items())

    ours = search.reached(banking, proof)
    best = (cycles(ours), banking, proof)
    for shape in search.shapes:
        factors = static_factors(shape, am.array.shape)
        if factors is None or not 1 < prod(factors) <= search.ceiling:
            continue
        other = Banking(am.array.name, per_dim_scheme(am.array.shape, tuple(
            DimPartition("cyclic", f) if f > 1 else DimPartition("none", 1)
            for f in factors)))
        if other == banking:
            continue
        checked = search.prove(other)
        theirs = search.reached(other, checked)
        if any(theirs[loop] != ii for loop, ii in ours.items()
               if loop in search.options.shared_loops):
            continue  # another array there may bound the II: the trade is not this one's
        best = min(best, (cycles(theirs), other, checked), key=lambda e: e[0])
    return best[1], best[2]


def _banked_at(am: ArrayModel, search: _Search, floors: dict, families: tuple[str, ...],
               options: _Options) -> tuple[Banking, Proof, bool] | None:
    """The cheapest banking conflict-free with the groups' targets raised to
    ``floors`` (:func:`.feasible.relaxed`) and its proof against the real targets;
    None when there is none; and whether the time limit ended the search for a
    cheaper one.  Raises :class:`_TimeUp` (or ``ProofTimeout``) when it ends the
    search before one is found."""
    raised = relaxed(am, floors)
    shapes = [analyze_group(g, len(am.array.shape)) for g in raised.groups]
    again = _Search(raised, shapes, lower_bound_of(am.ports, shapes, am.array),
                    options, base=search).run(families)
    if not again.proof.conflict_free:
        return None
    return again.banking, search.prove(again.banking), again.cut_short


def _unpartitioned(am: ArrayModel, bound: int, start: float,
                   options: _Options) -> ArraySolution:
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
        f"{array.name} is {where}: {kept}, achieved II {_ii_text(proof.achieved_ii)}: "
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
              options: _Options) -> ArraySolution:
    """A reshaped array keeps the user's pragmas as written: its array_reshape, and
    the array_partition of other dimensions if any (a partition arraypart added on top
    of a reshape would conflict); its words' accesses are proven like any banking."""
    array = am.array
    banking = Banking(array.name, scheme_from_pragmas(array))
    proof = prove(am, banking, deadline=options.deadline)
    notes = () if proof.conflict_free else (warning_text(array.reshapes[0].coord, (
        f"{array.name} is reshaped ({banking.describe()}, in words): arraypart keeps its "
        f"pragmas as written, achieved II {_ii_text(proof.achieved_ii)}: "
        f"{proof.counterexample} (the subscripts number its words)")),)
    return _solution(am, banking, proof, bound, start, "reshaped: kept as written", notes)


def _suggestion(search: "_Search", kept: Proof, better: _Found) -> str:
    """What the note on conflicting pragmas advises: the search's banking when it
    does better than the pragmas (proven conflict-free, or a smaller II summed over
    the loops) and keeps that II with every reference as written under the
    scheduling rule (:meth:`_Search.rule_risky`); else where to look."""
    total = [sum(ii for _, ii in p.achieved_ii) for p in (kept, better.proof)]
    if not better.proof.conflict_free and total[1] >= total[0]:
        return "; no banking arraypart tried does better"
    if search.rule_risky(better.banking):
        return ("; arraypart's own banking (--replace-partitions) is chosen under the "
                "scheduling rule for the code it emits")
    if rule_overloaded(better.banking.scheme, search.uniform, True, search.am.ports):
        return (f"; --replace-partitions uses a better banking, "
                f"{better.banking.describe()}, and routes the lanes whose banks change "
                "(as a pragma alone it would not reach that II)")
    return f"; a better banking is {better.banking.describe()}"


def _rule_note(am: ArrayModel, search: "_Search", kept: Banking, proof: Proof,
               better: _Found) -> list[str]:
    """The note on conflict-free pragmas of an array that is not pragma-only, whose
    references the emission keeps as written (neither routed nor phased) and whose
    banks change with the iteration, so that the scheduling rule leaves a loop above
    its target."""
    if am.array.pragma_only:
        return []  # its phase switches may serve some lanes: the loop table says
    reached = search.reached(kept, proof, as_written=True)
    missed = {g.loop: reached[g.loop] for g in am.groups if reached[g.loop] > g.target_ii}
    if not proof.conflict_free or not missed:
        return []
    loops = ", ".join(f"{loop} at II {ii}" for loop, ii in sorted(missed.items()))
    routed = search.reached(better.banking, better.proof)
    helps = (not any(routed[loop] > ii for loop, ii in missed.items())
             and any(routed[loop] < ii for loop, ii in missed.items()))
    fix = (f"; --replace-partitions banks it as {better.banking.describe()}, routing "
           "those lanes" if better.proof.conflict_free and helps else "")
    return [warning_text(am.array.partitions[0].coord, (
        f"the array_partition pragmas of {am.array.name} are conflict-free, but its "
        "references stay as written and the banks of some change with the iteration: "
        f"under the scheduling rule Vitis schedules {loops}{fix}"))]


def _wasteful(kept: Cost, better: _Found) -> bool:
    """A proven conflict-free banking costs clearly less than the user's: it ranks
    before it (:class:`.space.Cost`) with fewer BRAM18K or a WASTE_RATIO-th of the
    LUTs, or whatever its BRAM18K it needs a WASTE_RATIO-th of the LUTs and of the
    banks x copies (the note gives both costs: the user weighs the trade)."""
    ours = better.cost
    logic = WASTE_RATIO * ours.lut < kept.lut
    return better.proof.conflict_free and (
        (ours < kept and (ours.bram18k < kept.bram18k or logic))
        or (logic and WASTE_RATIO * ours.physical_banks < kept.physical_banks))


def _waste_note(array, kept: Cost, better: _Found, bound: int) -> str:
    return warning_text(array.partitions[0].coord, (
        f"the array_partition pragmas of {array.name} use {kept.physical_banks} banks "
        f"({scheme_from_pragmas(array).describe().split(':')[0]}) and cost "
        f"{kept.bram18k} BRAM18K and {kept.lut} LUTs (fitted model); "
        f"{better.banking.describe()}, with {better.cost.physical_banks} banks (lower "
        f"bound {bound}), costs {better.cost.bram18k} BRAM18K and {better.cost.lut} "
        "LUTs; --replace-partitions uses it, or one memory where the emitted code's "
        "II is no lower with banks"))


def _ii_text(achieved: Iterable[tuple[str, int]]) -> str:
    """Per-loop IIs in prose: ``4 in loop L95``, ``2 in loop a, 32 in loop b``."""
    return ", ".join(f"{ii} in loop {loop}" for loop, ii in achieved)


def _hardware(cost: Cost) -> Cost:
    """``cost`` without the scheduling rule's lanes: what the banks themselves cost."""
    return replace(cost, rule_lanes=0, phased_lanes=0)


def _flat_note(am: ArrayModel, search: _Search, banking: Banking, proof: Proof,
               options: _Options) -> list[str]:
    """The note on a pragma-only array whose per_dim ``banking`` costs more banks and
    logic than a flat scheme would if its text could change: the cheapest banking of
    the array freed of that (not pragma-only: the emission would route its lanes),
    compared without the scheduling rule's lanes, within :data:`NOTE_CANDIDATES`
    pre-checked candidates and :data:`NOTE_PROOFS` proven."""
    kept = _hardware(search.cost(banking))
    # a flat scheme has two banks or more (one bank is no scheme of its own)
    if proof.conflict_free and kept < _hardware(search.flat_floor(max(search.bound, 2))):
        return []
    array = am.array
    free_array = replace(array, interface=False, functions=(), header=False,
                         file_scope=False, kept_reference=None, member=None)
    try:
        free = _Search(replace(am, array=free_array), search.shapes, search.bound,
                       options, NOTE_PROOFS).run(options.families, budget=NOTE_CANDIDATES)
    except (ProofTimeout, _TimeUp):
        return []  # the note compares with a flat scheme; the banking stands
    if (free.banking.scheme.kind != "flat" or not free.proof.conflict_free
            or (proof.conflict_free and kept <= _hardware(free.cost))):
        return []
    if array.kept_reference is not None:
        kept_text = f"its references stay as written ({array.kept_reference}), and that is"
    elif array.interface:
        kept_text = "the top function's signature is"
    elif array.functions:
        kept_text = f"the text of {', '.join(array.functions)}, shared by every call, is"
    elif array.member is not None:
        kept_text = "the struct that declares it as a field is"
    elif array.header:
        kept_text = "its declaration in a header is"
    else:
        kept_text = "its declaration at file scope, which other functions may use, is"
    return [warning_text(array.coord, (
        f"{'interface ' if array.interface else ''}array {array.name} keeps a per_dim "
        f"scheme ({banking.describe()}) so {kept_text} unchanged; a flat scheme would be "
        f"cheaper ({free.banking.describe()})"))]


def _copies_evidence(am: ArrayModel, banking: Banking) -> str:
    """How the reads pick their copy, per read reference (by its location)."""
    if banking.copies == 1:
        return ""
    where = {a.ref_id: a.coord for g in am.groups for a in g.accesses if a.kind == "read"}
    reads = [f"{where[r]} reads copy {E.pretty(e)}" for r, e in banking.read_copy if r in where]
    return f"; {banking.copies} copies, writes to all: " + ", ".join(reads)


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


Batch = tuple[Callable[[int], Banking], np.ndarray]  # (make candidate k, excess II scores)


class _Search:
    """One array's candidate search (state local to one :func:`solve` call: the
    pre-check lane sets and isl verdicts of this array, computed once).  A search at
    targets raised from those of a ``base`` search (:func:`_banked_at`) takes its
    proofs from that one's (:meth:`prove`)."""

    def __init__(self, am: ArrayModel, shapes: list[GroupShape], bound: int,
                 options: _Options, proofs: int | None = None, base: _Search | None = None):
        self.am, self.shapes, self.bound, self.options = am, shapes, bound, options
        self.proofs_left = proofs  # candidates :meth:`_confirm` may still try (None: any)
        self.base = base
        self.varying = frozenset().union(*(s.varying for s in shapes))
        self.ceiling = search_ceiling(options.max_banks, options.bram_budget, bound,
                                      shapes, am.array.shape)
        lanes = [a for s in shapes for a in s.lanes]
        self.duplicable = not am.array.written_by_reference and (
            may_be_multi_port_rom(am) if am.array.pragma_only else sum(
                a.kind == "read" for a in lanes) > sum(_writes(s) for s in shapes))
        self.refs = read_refs(shapes, in_time=self.duplicable and may_be_multi_port_rom(am))
        self.uniform = [s for s in shapes if s.uniform]
        self.loads = [(len({a.read_key(tuple(d)) for d, a in zip(s.offsets, s.lanes)
                            if a.kind == "read"}),
                       _writes(s), s.group.target_ii)
                      for s in self.uniform]
        self.lane_sets: dict[tuple, list[list[LaneSet]]] = {}
        self.isl_ok: dict[Banking, bool] = {}
        self.proofs: dict[Banking, Proof] = {}
        self.per_dim_scores: dict[Banking, int] = {}
        # families and their floors do not depend on the targets: shared with ``base``
        self.family_memo: dict[tuple, tuple[Family, ...]] = (
            {} if base is None else base.family_memo)
        self.overload_memo: dict[tuple, bool] = {}  # wild and shared overloads
        self.served_overload_memo: dict[tuple, bool] = {}
        self.loads_memo: dict[tuple, list[tuple[int, int, int]]] = {}
        self.served_memo: dict[tuple, list[list[list[int]]]] = {}
        self.partly_irregular = any(None in a.index and not all(e is None for e in a.index)
                                    for a in lanes)
        self.samples = [sample_group(s) for s in shapes if not s.uniform]
        self.routed_memo: dict[Banking, dict[str, int]] = {}
        self.routed_refuted = 0  # candidates set aside for their routed sites
        self.sample_memo: dict[int, object] = {}
        self.cost_memo: dict[Banking, Cost] = {}

    # ------------------------------------------------------------ driver

    def run(self, families: tuple[str, ...], *, report: bool = False,
            budget: int | None = None) -> _Found:
        """The cheapest proven banking: the first tier that has one
        (:meth:`_first_tier`), then cheaper per_dim bankings with more banks
        (:meth:`_refine`).  With ``report`` (the search for the banking the array
        gets) the first tier's is reported as found before the refinement.  With a
        ``budget`` (a note's search, which compares conflict-free bankings only), past
        that many candidates pre-checked, or when no candidate is conflict-free, the
        first tier raises :class:`_TimeUp`."""
        found = self._first_tier(families, budget)
        if not found.proof.conflict_free:
            return found
        if report:
            self.options.found(Found(found.banking, complete=False))
        try:
            return self._refine(found)
        except (ProofTimeout, _TimeUp):
            return replace(found, cut_short=True)

    def _first_tier(self, families: tuple[str, ...], budget: int | None = None) -> _Found:
        """Tiers from the lower bound up; in a tier the per_dim families (cheap to
        pre-check) first, then the flat ones in the order of their :meth:`_gate`
        floors; a pending candidate cheaper than every family still to visit is
        proved, and the first proven wins.  When none is, the fallback with the least
        excess II is kept, or one memory (:meth:`_kept_when_missed`)."""
        fallback, tried = None, [0]
        for tier in range(min(self.bound, self.ceiling), self.ceiling + 1):
            pending: list[_Pending] = []
            tier_families = list(self.families(tier, families))
            flat = [f for f in tier_families if f.kind == "flat"]
            flat_floor = min((f.floor for f in flat), default=None)
            for family in sorted((f for f in tier_families if f.kind != "flat"),
                                 key=lambda f: f.floor):
                bar = family.floor if flat_floor is None else min(family.floor, flat_floor)
                found, fallback = self._visit(family, bar, pending, fallback, tier, tried,
                                              budget)
                if found is not None:
                    return _Found(*found, tried[0])
            for bar, family in sorted(((self._gate(f, pending), f) for f in flat),
                                      key=lambda p: p[0]):
                found, fallback = self._visit(family, bar, pending, fallback, tier, tried,
                                              budget)
                if found is not None:
                    return _Found(*found, tried[0])
            found, fallback = self._confirm(pending, None, fallback, tier, tried[0])
            if found is not None:
                return _Found(*found, tried[0])
        if budget is not None:
            raise _TimeUp  # (proving the fallback and one memory would tell it nothing)
        banking = self._kept_when_missed(fallback)
        return _Found(banking, self.prove(banking), self.cost(banking), tried[0])

    def _kept_when_missed(self, fallback: _Fallback | None) -> Banking:
        """The banking kept when none reaches the target: ``fallback``, unless one
        memory, proven, reaches an II no larger in any of its loops.  Banks that miss
        the target by as much buy nothing with their selects (a bank that varies with
        an outer loop's iterator takes a port of every bank under the scheduling
        rule); the pre-check's scores do not tell, so both are proven."""
        alone = Banking(self.am.array.name, none_scheme(self.am.array.shape))
        if fallback is None:
            return alone
        kept = dict(self.prove(fallback.banking).achieved_ii)
        if all(ii <= kept.get(loop, ii) for loop, ii in self.prove(alone).achieved_ii):
            return alone
        return fallback.banking

    def _visit(self, family: Family, bar: Cost, pending: list[_Pending],
               fallback: _Fallback | None, tier: int, tried: list[int],
               budget: int | None = None):
        """Prove the pending candidates cheaper than ``bar`` (no family still to visit
        costs less), then pre-check ``family`` into ``pending``; ``tried[0]`` counts
        the candidates pre-checked (:class:`_TimeUp` when it reaches ``budget``).
        Returns (proven or None, fallback)."""
        found, fallback = self._confirm(pending, bar, fallback, tier, tried[0])
        if found is not None:
            return found, fallback
        if fallback is not None and fallback.excess_ii <= self._least_excess(tier) \
                and fallback.cost < bar:
            return None, fallback
        for make, scores in self._batches(family):
            self._check_time(tier, tried[0])
            if budget is not None and tried[0] >= budget:
                raise _TimeUp(f"{tried[0]} candidates pre-checked, the budget")
            tried[0] += len(scores)
            passed = []
            for banking in map(make, np.flatnonzero(scores == 0)):
                self._check_time(tier, tried[0])  # a sampled rule check may take 0.1 s
                if self._routable(banking):
                    passed.append(banking)
            for entry in self._priced(family, passed, len(pending)):
                heapq.heappush(pending, entry)
            if len(scores) and scores.min() > 0:
                fallback = self._better(fallback, int(scores.min()),
                                        make(int(np.argmin(scores))))
        return None, fallback

    def _gate(self, family: Family, pending: list[_Pending]) -> Cost:
        """The floor a family is pre-checked at.  A flat family's is raised to the cost
        of a pre-checked per_dim banking it cannot beat on what a flat scheme changes:
        no fewer rule lanes or lanes on a select (``Family.crossbar``), and no less
        padding.  Such a flat scheme stores as many words per bank and serves as many
        lanes, and the selects dominate the fitted LUTs, so it is taken to cost no
        less (a heuristic, not a bound: it may spread the lanes over the ports
        differently), and the per_dim banking is proved before any flat candidate is
        pre-checked (the search's expensive part; issue 14: a per_dim banking at the
        bound stops the search)."""
        floor = family.floor
        if family.kind != "flat":
            return floor
        rivals = [self.cost(e.banking) for e in pending
                  if e.banking.scheme.kind != "flat" and e.cost.rule_lanes <= floor.rule_lanes
                  and e.cost.storage_overhead <= floor.storage_overhead
                  and crossbar_lanes(e.banking.scheme, self.shapes) <= family.crossbar]
        if not rivals:
            return floor
        return max(floor, replace(min(rivals), interface_ports=floor.interface_ports,
                                  physical_banks=floor.physical_banks,
                                  storage_overhead=floor.storage_overhead,
                                  family=floor.family, key=()))

    def _refine(self, best: _Found) -> _Found:
        """Banks cost only their BRAM and logic: past the first proven tier, up to the
        largest bounding box of a uniform group's offsets (:meth:`horizon`), per_dim
        bankings that cost less than ``best`` are proved in cost order, the first
        proven wins.  A tier is only searched when one of its per_dim partitions has
        fewer rule lanes than ``best`` (more banks may give a lane one bank), when the
        tier's BRAM18K floor (:meth:`tier_floor`) is below ``best``'s (banks small
        enough for LUT RAM, or each served by one port where two make a bank true
        dual-port), or when it is a uniform group's bounding box: cyclic over the box
        gives every lane a constant bank (a loop unrolled by U on cyclic U), no select
        between banks.  Other tiers may save a few LUTs, not worth searching each for.
        Flat schemes and read copies stay at the first tier, whose pre-check is the
        search's expensive part.

        Best first over every such tier: the families in the order of their floors,
        a family pre-checked only when no pending candidate that costs less than its
        floor is proven (nothing in it, nor in the families after it, costs less)."""
        first, tried = best.cost.physical_banks, best.tried
        families = sorted((f for tier in self._refine_tiers(best)
                           for f in self.families(tier, ("per_dim",), copies=1)
                           if f.floor < best.cost), key=lambda f: f.floor)
        pending: list[_Pending] = []
        for family in families:
            found, _ = self._confirm(pending, family.floor, None, first, tried)
            if found is not None:
                return _Found(*found, tried)
            self._check_time(family.banks, tried)
            for make, scores in self._batches(family):
                tried += len(scores)
                passed = [b for b in map(make, np.flatnonzero(scores == 0))
                          if self._routable(b)]
                for entry in self._priced(family, passed, len(pending)):
                    heapq.heappush(pending, entry)
        found, _ = self._confirm(pending, best.cost, None, first, tried)
        return _Found(*found, tried) if found is not None else replace(best, tried=tried)

    def _refine_tiers(self, best: _Found) -> Iterator[int]:
        """The tiers :meth:`_refine` searches (see there), of those whose BRAM18K floor
        is below ``best``'s only the first :data:`LEVEL_TIERS` at each new lowest floor:
        past them, more banks at the same floor add banks, selects and address bits
        (thousands of LUT-RAM tiers for a 16384-word array, each priced by the fitted
        model, were most of its search), and tiers that change a lane's bank (boxes,
        fewer rule lanes) are searched anyway.  Pricing a tier's families is the
        refinement's cost before any pre-check (a thousand tiers for an array with a
        thousand lanes), so the deadline is read at each tier."""
        first = best.cost.physical_banks
        boxes = {_box(s, self.am.array.shape) for s in self.uniform}
        level, level_start = best.cost.bram18k, first
        for tier in range(first + 1, self.horizon(best.banking, best.cost.bram18k) + 1):
            self._check_time(tier, best.tried)
            floor = min(self.tier_floor(tier), self.options.bram_budget + 1)
            if floor < level:
                level, level_start = floor, tier
            if (tier in boxes or (floor == level < best.cost.bram18k
                                  and tier < level_start + LEVEL_TIERS)
                    or self._fewer_rule_lanes(
                        tier, (best.cost.rule_lanes, best.cost.phased_lanes))):
                yield tier

    def _fewer_rule_lanes(self, tier: int, lanes: tuple[int, int]) -> bool:
        """Some per_dim partition into ``tier`` banks has fewer rule lanes than
        ``lanes`` (rotating, phased: :func:`.space.rule_lanes`), counted without the
        fitted model, whose pricing of every partition of every tier was most of the
        refinement's time on large arrays.  Phased lanes count for an array of at most
        :data:`MAX_REGISTER_ELEMENTS`: its registers are tried where a phase switch was
        the best so far (the emission may not be able to write one); a larger one's
        phase switch stands against registers."""
        array = self.am.array
        width = 2 if array.size <= MAX_REGISTER_ELEMENTS else 1
        return lanes[:width] > (0, 0)[:width] and any(
            rule_lanes(per_dim_scheme(array.shape, dims), self.shapes,
                       array.pragma_only)[:width] < lanes[:width]
            for dims in per_dim_partitions(array.shape, self.varying, tier))

    def prove(self, banking: Banking) -> Proof:
        """isl's proof of ``banking`` (:func:`.proof.prove`), made once per search; in a
        search at raised targets, the ``base`` search's proof at its targets read at
        the raised ones (:func:`.proof.at_raised_targets`): the raise-and-bisect of
        :func:`_cheapest_at_reached_ii` proves each banking it finds at the real
        targets anyway, and meets the same bankings at several raises."""
        if banking not in self.proofs:
            found = None if self.base is None else at_raised_targets(
                self.base.prove(banking), self.am.groups)
            if found is None:
                found = prove(self.am, banking, deadline=self.options.deadline)
            self.proofs[banking] = found
        return self.proofs[banking]

    def _dims_refuted(self, family: Family, bank_dims: np.ndarray) -> np.ndarray:
        """Per row of ``bank_dims`` (booleans: the dimensions a candidate's bank
        formula reads), 1 when no candidate of ``family`` whose formula reads those
        dimensions serves the groups, else 0: :meth:`_wild_overload` (lanes
        irregular in a bank dimension may hit any element) or
        :meth:`_shared_overload` (lanes that agree on the bank dimensions share a
        bank)."""
        if not self.partly_irregular and not self.samples:
            return np.zeros(len(bank_dims), dtype=np.int64)
        patterns, which = np.unique(bank_dims, axis=0, return_inverse=True)
        found = []
        for pattern in patterns:
            dims = frozenset(np.flatnonzero(pattern).tolist())
            found.append(self._wild_overload(family.banks, family.copies,
                                             family.assignment, dims)
                         or self._shared_overload(family.copies, family.assignment, dims))
        return np.array(found, dtype=np.int64)[which.reshape(-1)]

    def _shared_overload(self, copies: int, assignment: tuple,
                         bank_dims: frozenset[int]) -> bool:
        """Some sampled cycle of a non-uniform group overloads a bank under every
        banking whose formula reads only ``bank_dims``
        (:func:`.sampling.shared_banks_overloaded`).  Candidates of one family
        differ in their formula, not in this, so a family whose formulas read such
        dimensions is refuted once rather than candidate by candidate."""
        key = ("shared", copies, assignment, bank_dims)
        if key not in self.overload_memo:
            self.overload_memo[key] = any(
                self._served_overloaded(n, served, bank_dims)
                for n, per_copy in enumerate(self._served(copies, assignment))
                for served in per_copy)
        return self.overload_memo[key]

    def _served_overloaded(self, n: int, served: list[int],
                           bank_dims: frozenset[int]) -> bool:
        """:func:`.sampling.shared_banks_overloaded` on the ``n``-th sample serving
        ``served``, made once per version of the sample (copy assignments of one
        search give many copies the same lanes)."""
        sample = self.samples[n]
        key = (n, sample.learned, tuple(served), bank_dims)
        if key not in self.served_overload_memo:
            self.served_overload_memo[key] = shared_banks_overloaded(
                sample, served, bank_dims, self.am.ports, self.am.array.shape)
        return self.served_overload_memo[key]

    def _served(self, copies: int, assignment: tuple) -> list[list[list[int]]]:
        """Per sampled group and copy, the lanes its banks serve: every write and the
        copy's reads (the same for every bank-dimension pattern: made once)."""
        key = (copies, assignment)
        if key not in self.served_memo:
            self.served_memo[key] = [_served_by_copy(sample.shape.lanes, copies, assignment)
                                     for sample in self.samples]
        return self.served_memo[key]

    def rule_risky(self, banking: Banking) -> bool:
        """Some group whose references the emitted code keeps as written (every group
        of a pragma-only array, a ``direct`` one of another) has lanes that change
        bank and overload it under the scheduling rule (uniform groups:
        :func:`.space.rule_overloaded`; the others on their samples:
        :func:`.sampling.sampled_rule_ii`): advice to use this banking could lower no
        II."""
        kept = self.am.array.pragma_only
        return rule_overloaded(banking.scheme, self.uniform, kept, self.am.ports) or any(
            self._sampled_rule_missed(sample, banking) for sample in self.samples
            if kept or sample.shape.group.direct)

    def _sampled_rule_missed(self, sample, banking: Banking) -> bool:
        """The scheduling rule leaves ``sample``'s group above its target."""
        return sampled_rule_ii(sample, banking, self.am.ports) > sample.shape.group.target_ii

    def reached(self, banking: Banking, proof: Proof, *,
                as_written: bool = False) -> dict[str, int]:
        """Per loop of the array's groups, the II ``banking`` leaves it in the emitted
        code: the proof's (against the ideal port model), raised to the scheduling
        rule's for groups whose references the emission keeps as written
        (:func:`.space.rule_ii`; sampled non-uniform groups:
        :func:`.sampling.sampled_rule_ii`).  A pragma-only array's banks that rotate
        with a short period are made constant by the emission's phase switches
        (:func:`.space.phased`).  ``as_written``: every reference stays as written and
        no phase switch is emitted (the user's pragmas, kept;
        :func:`.space.as_written_ii`)."""
        kept = self.am.array.pragma_only
        reached = {g.loop: g.target_ii for g in self.am.groups} | dict(proof.achieved_ii)
        rule = [(s.group.loop, as_written_ii(banking.scheme, s, self.am.ports) if as_written
                 else rule_ii(banking.scheme, s, self.am.ports, kept))
                for s in self.uniform] + [
            (sample.shape.group.loop, sampled_rule_ii(sample, banking, self.am.ports))
            for sample in self.samples if as_written or (
                (kept or sample.shape.group.direct)
                and not (kept and phased(banking.scheme, sample.shape)))]
        if not (as_written or kept):
            rule += list(self.routed(banking).items())
        for loop, ii in rule:
            reached[loop] = max(reached[loop], ii)
        return reached

    def routed(self, banking: Banking) -> dict[str, int]:
        """Per loop of a group whose lanes the emission routes (not ``direct``, of an
        array that is not pragma-only, its lanes overloading a bank as written), the
        II its bank-centric code reaches under the scheduling rule
        (:func:`.sampling.routed_ii`)."""
        if banking in self.routed_memo:
            return self.routed_memo[banking]
        found: dict[str, int] = {}
        ports = self.am.ports
        for shape in ([] if self.am.array.pragma_only else self.shapes):
            target = shape.group.target_ii
            if shape.group.direct or (
                    as_written_ii(banking.scheme, shape, ports) <= target if shape.uniform
                    else sampled_rule_ii(self._sample(shape), banking, ports) <= target):
                continue  # kept as written, or fits as written: nothing is routed
            ii = routed_ii(self._sample(shape), banking, ports)
            found[shape.group.loop] = max(found.get(shape.group.loop, 0), ii)
        self.routed_memo[banking] = found
        return found

    def _sample(self, shape: GroupShape):
        """The sampled cycles of ``shape``'s group (a uniform one's made on demand)."""
        key = id(shape)
        if key not in self.sample_memo:
            self.sample_memo[key] = next(
                (s for s in self.samples if s.shape is shape), None) or sample_group(shape)
        return self.sample_memo[key]

    def _routable(self, banking: Banking) -> bool:
        """The emitted code keeps the banking's II under the scheduling rule: the
        bank-centric emission routes lanes that change bank within one copy only, so
        a banking with read copies must give every lane a constant bank; and the
        sampled cycles of a ``direct`` non-uniform group of an array the emission may
        route (:meth:`_rule_ii` prices the uniform ones) are not refuted under the rule
        (:func:`.sampling.sampled_rule_ii`).  Asked before a candidate is priced (the
        routed groups' sites are asked before its proof: :meth:`_routed_ok`)."""
        if banking.copies > 1 and crossbar_lanes(banking.scheme, self.shapes) > 0:
            return False
        return self.am.array.pragma_only or not any(
            self._sampled_rule_missed(sample, banking)
            for sample in self.samples if sample.shape.group.direct)

    def _routed_ok(self, banking: Banking) -> bool:
        """The sites of the groups the emission routes fit their targets
        (:meth:`routed`); asked when a candidate comes up for its proof, for the first
        :data:`MAX_ROUTED_REFUTED` refuted ones only: where no routing keeps the target
        (a read and a write site per bank on one port), the search would otherwise
        walk every tier to its deadline, and the emitted code's schedule, banked again
        where it misses (:func:`arraypart.api._retry`), decides instead."""
        if self.routed_refuted >= MAX_ROUTED_REFUTED:
            return True
        targets = {g.loop: g.target_ii for g in self.am.groups}
        if any(ii > targets[loop] for loop, ii in self.routed(banking).items()):
            self.routed_refuted += 1
            return False
        return True

    def horizon(self, best: Banking, best_bram18k: int) -> int:
        """The most banks x copies :meth:`_refine` tries past ``best``: the largest
        bounding box of a uniform group's offsets (per_dim cyclic over it gives every
        lane a bank of its own, so more banks only split them further), within the
        search ceiling.  Read copies that take block RAM extend it to twice their banks
        x copies: one copy in that many banks needs fewer BRAM18K (each bank holds
        1/(2·banks) of the array, not all of it) and may serve the lanes the copies do.
        A group's :func:`.space.static_box`, the most banks that leave each of its
        lanes on one bank, extends it (``dst[i]``, ``dst[i + 2]`` with ``i += 4``:
        cyclic 4 keeps them apart and static, past the offsets' box of 3).  When
        ``best``'s rotating lanes miss a target under the scheduling rule
        (:func:`.space.rule_overloaded`), an array of at most
        :data:`MAX_ROTATING_REGISTER_ELEMENTS` and :data:`MAX_ROTATING_REGISTER_BITS` (an
        interface array, or a wider one, of at most :data:`MAX_REGISTER_ELEMENTS`) may
        become registers, which take no port; a larger one is searched up to the
        ceiling short of registers, where a block partition may hold each lane in one
        bank (lane c of ``a[i]``, ``i`` from ``max(t, 8c)`` to ``8c + 7``, under block 8:
        :meth:`_refine_tiers` takes only the tiers with fewer rotating lanes)."""
        array = self.am.array
        physical = best.scheme.banks * best.copies
        box = max([physical * (2 if best.copies > 1 and best_bram18k > 0 else 1)]
                  + [_box(s, array.shape) for s in self.uniform]
                  + [static_box(s, array.shape) for s in self.shapes])
        most = (MAX_REGISTER_ELEMENTS if array.interface
                or array.size * array.elem_bits > MAX_ROTATING_REGISTER_BITS
                else MAX_ROTATING_REGISTER_ELEMENTS)
        if rule_overloaded(best.scheme, self.shapes, array.pragma_only, self.am.ports):
            box = max(box, array.size if array.size <= most else array.size - 1)
        return min(self.ceiling, box)

    def tier_floor(self, tier: int) -> int:
        """No banking of one copy with ``tier`` banks needs fewer BRAM18K: each bank
        holds at least ceil(elements / banks) words (:func:`.bounds.bram18k`, any port
        use)."""
        array = self.am.array
        return bram18k(-(-array.size // tier), array.elem_bits, tier, 1, array.storage_impl)

    def _least_excess(self, tier: int) -> int:
        """A lower bound on the excess II (summed over uniform groups, as the pre-check
        scores it) of any banking with ``tier`` physical banks: a group with R distinct
        reads and W writes needs an II at which ``counting_bound`` fits ``tier``."""
        total = 0
        for reads, writes, target in self.loads:
            ii = target
            while counting_bound(self.am.ports, reads, writes, ii) > tier:
                ii += 1
            total += ii - target
        return total

    def copies_note(self) -> str:
        """Why read copies were not offered, when the device's BRAM is the reason."""
        array = self.am.array
        banks = max(1, self.bound // 2)
        need = bram18k(-(-array.size // banks), array.elem_bits, banks, 2, array.storage_impl)
        if not self.duplicable or need <= self.options.bram_budget:
            return ""
        return (f" (two read copies would need {need} BRAM18K, more than the device's "
                f"{self.options.bram_budget})")

    def cost(self, banking: Banking) -> Cost:
        """``banking``'s cost (made once per search: :meth:`_gate` asks it of every
        pending per_dim candidate for each flat family)."""
        if banking not in self.cost_memo:
            self.cost_memo[banking] = self.within_budget(
                cost_of(banking, self.am, self.shapes))
        return self.cost_memo[banking]

    def within_budget(self, cost: Cost) -> Cost:
        """``cost`` with BRAM18K counted up to one past the device's budget: beyond it
        no banking fits, and a few blocks fewer out of millions decide nothing (issue
        14: BRAM18K first within the device's budget).  The cap keeps floors floors."""
        return replace(cost, bram18k=min(cost.bram18k, self.options.bram_budget + 1))

    def flat_floor(self, banks: int, copies: int = 1) -> Cost:
        """No flat scheme with ``banks`` banks and ``copies`` copies costs less."""
        if not self.varying or banks < 2:
            return Cost(interface_ports=interface_ports(self.am, banks * copies), bram18k=0,
                        physical_banks=banks * copies, family=1)
        return min(f.floor for f in self._flat_families(banks, copies, ()))

    def _better(self, current: _Fallback | None, score: int, banking: Banking) -> _Fallback:
        candidate = _Fallback(score, cost_floor(banking, self.am, self.shapes),
                              copy_key(banking.read_copy), banking)
        return candidate if current is None or candidate < current else current

    def _priced(self, family: Family, bankings: list[Banking], start: int) -> list[_Pending]:
        """Pending entries for pre-checked candidates at a floor of their cost, priced
        exactly when they come first: a per_dim candidate at its family's floor, flat
        ones at their BRAM18K and LUT/FF floors computed together
        (:func:`arraypart.rtl.cost.flat_floors`)."""
        if family.kind == "per_dim" or not bankings:
            return [_Pending(family.floor, copy_key(b.read_copy), start + k, False, b)
                    for k, b in enumerate(bankings)]
        table = lane_table(self.am, family.copies, family.assignment)
        schemes = [b.scheme for b in bankings]
        if table.affine.all():
            floors = flat_floors(table, np.array([s.alpha for s in schemes]), family.banks,
                                 family.block, np.array([s.bank_depth for s in schemes]))
        else:
            floors = scheme_floors(table, schemes)
        costs = _model_floors(bankings, self.am, self.shapes, *floors)
        return [_Pending(self.within_budget(cost), copy_key(b.read_copy), start + k, False, b)
                for k, (b, cost) in enumerate(zip(bankings, costs))]

    def _confirm(self, pending: list[_Pending], floor: Cost | None,
                 fallback: _Fallback | None, tier: int, tried: int):
        """Prove the pre-checked candidates cheaper than ``floor`` (all when None) in
        cost order; the first proven one wins.  ``pending`` is a heap; an entry priced
        by a floor is priced exactly when it comes first (its cost is not below the
        floor, so the first exact entry is the cheapest).  Refuted ones leave
        ``pending`` and may become the fallback.  Returns ((banking, proof, cost) or
        None, fallback)."""
        while pending and (floor is None or pending[0].cost < floor):
            entry = heapq.heappop(pending)
            if not entry.exact:
                heapq.heappush(pending, replace(entry, cost=self.cost(entry.banking),
                                                exact=True))
                continue
            self._check_time(tier, tried)
            self._spend_proof(tier, tried)
            if self._routed_ok(entry.banking) and self._isl_groups_ok(entry.banking):
                proof = self.prove(entry.banking)
                if proof.conflict_free:
                    return (entry.banking, proof, entry.cost), fallback
            fallback = self._better(fallback, 1, entry.banking)
        return None, fallback

    def _spend_proof(self, tier: int, tried: int) -> None:
        if self.proofs_left is not None:
            self.proofs_left -= 1
            if self.proofs_left < 0:
                raise _TimeUp(f"{tried} candidates pre-checked, at {tier} banks, "
                              "its candidates to prove spent")

    def _check_time(self, tier: int, tried: int) -> None:
        if perf_counter() > self.options.deadline:
            raise _TimeUp(f"{tried} candidates pre-checked, at {tier} banks")

    def _isl_groups_ok(self, banking: Banking) -> bool:
        """Non-uniform groups fit at their target II: refuted by counting irregular
        lanes or on samples, else isl (cached per banking)."""
        if any(refuted(sample, banking, self.am.ports) for sample in self.samples):
            return False
        if banking not in self.isl_ok:
            self.isl_ok[banking] = all(self._fits_at_target(n, banking)
                                       for n in range(len(self.samples)))
        return self.isl_ok[banking]

    def _fits_at_target(self, n: int, banking: Banking) -> bool:
        """isl's verdict on the ``n``-th non-uniform group at its target II; the
        colliding cycle of a refutation joins the group's sample
        (:func:`.sampling.with_point`)."""
        group = self.samples[n].shape.group
        verdict = prove_group(self.am, group, banking, max_ii=group.target_ii,
                              deadline=self.options.deadline)
        if verdict.ii != group.target_ii and verdict.point is not None:
            self.samples[n] = with_point(self.samples[n], verdict.point)
        return verdict.ii == group.target_ii

    def _wild_overload(self, banks: int, copies: int, assignment: tuple,
                       bank_dims: frozenset[int] | None = None) -> bool:
        """Some group's lanes that may hit any element and run at every P may pick
        distinct elements of one bank (some bank holds at least ceil(size / banks)
        elements): when that many reads and writes do not fit one bank at the target
        II, no banking with ``banks`` banks per copy (reads spread by ``assignment``:
        a read lane counts in the copy its reference reads in that lane) whose bank
        formula reads ``bank_dims`` serves the group.  A lane may hit any element when
        one of its irregular dimensions is a bank dimension
        (:func:`.islsets.lane_terms`); with ``bank_dims`` None (any banking), when it
        is irregular in every dimension.  More bank dimensions make more lanes hit any
        element, so a dimension refuted alone is refuted with any others (the flat
        families leave it out of their alphas)."""
        key = (banks, copies, assignment, bank_dims)
        if key not in self.overload_memo:
            self.overload_memo[key] = self._wild_overloaded(banks, copies, assignment,
                                                            bank_dims)
        return self.overload_memo[key]

    def _wild_overloaded(self, banks, copies, assignment, bank_dims) -> bool:
        elements = -(-self.am.array.size // banks)
        return any(not self.am.ports.fits(min(reads, elements), writes, target)
                   for reads, writes, target in self._wild_loads(copies, assignment,
                                                                 bank_dims))

    def _wild_loads(self, copies: int, assignment: tuple,
                    bank_dims: frozenset[int] | None) -> list[tuple[int, int, int]]:
        """(reads, writes, target II) per group and copy of its lanes that may hit any
        element (:func:`_anywhere`) and run at every P, where there are two or more;
        the same for every bank count (made once per search: an array with a
        thousand lanes and a thousand tiers counted them a million times)."""
        key = (copies, assignment, bank_dims)
        if key not in self.loads_memo:
            loads = []
            for shape in self.shapes:
                everywhere = [a for k, a in enumerate(shape.lanes) if _anywhere(a, bank_dims)
                              and k not in shape.group.merged_writes
                              and a.domain.is_equal(shape.group.domain)]
                for copy in range(copies):
                    wild = [a for a in everywhere if a.kind == "write"
                            or lane_copy(assignment, a.ref_id, a.copy_lane) == copy]
                    if len(wild) >= 2:
                        writes = sum(a.kind == "write" for a in wild)
                        loads.append((len(wild) - writes, writes, shape.group.target_ii))
            self.loads_memo[key] = loads
        return self.loads_memo[key]

    # ------------------------------------------------------------ candidates

    def families(self, tier: int, families: tuple[str, ...],
                 copies: int | None = None) -> Iterator[Family]:
        """The families with banks x copies = ``tier`` (only ``copies`` copies when
        given), with their cost floors.  Copies are only offered while their BRAM fits
        the device (each copy stores the whole array), and only for arrays read more
        often than written."""
        array = self.am.array
        for copies in [copies] if copies else range(1, tier + 1):
            banks = tier // copies
            if tier % copies or (copies > 1 and not self.duplicable):
                continue
            if copies > 1 and bram18k(-(-array.size // banks), array.elem_bits, banks,
                                      copies, array.storage_impl) > self.options.bram_budget:
                continue
            for assignment in ([()] if copies == 1 else copy_assignments(self.refs, copies)):
                if self._wild_overload(banks, copies, assignment):
                    continue
                yield from self._per_dim_families(banks, copies, assignment)
                if ("flat" in families and banks > 1 and self.varying
                        and not by_lane_number(assignment)):
                    yield from self._flat_families(banks, copies, assignment)

    def _per_dim_families(self, banks: int, copies: int,
                          assignment: tuple) -> tuple[Family, ...]:
        """One family per per_dim partition of ``banks`` banks, its floor from the
        fitted model (all partitions priced in one batch; made once per search)."""
        key = ("per_dim", banks, copies, assignment)
        if key not in self.family_memo:
            shape, name = self.am.array.shape, self.am.array.name
            partitions = per_dim_partitions(shape, self.varying, banks)
            bankings = [Banking(name, per_dim_scheme(shape, dims), copies, assignment)
                        for dims in partitions]
            found: tuple[Family, ...] = ()
            if bankings:
                table = lane_table(self.am, copies, assignment)
                floors = scheme_floors(table, [b.scheme for b in bankings])
                costs = _model_floors(bankings, self.am, self.shapes, *floors)
                found = tuple(Family("per_dim", banks, copies, assignment,
                                     self.within_budget(floor), dims=dims)
                              for dims, floor in zip(partitions, costs))
            self.family_memo[key] = found
        return self.family_memo[key]

    def _flat_families(self, banks: int, copies: int,
                       assignment: tuple) -> tuple[Family, ...]:
        """One flat family per block B (every alpha), with its floor (made once per
        search)."""
        key = ("flat", banks, copies, assignment)
        if key not in self.family_memo:
            floors = flat_block_floors(self.am, self.varying, banks, copies, FLAT_BLOCKS,
                                       self.shapes, assignment)
            self.family_memo[key] = tuple(
                Family("flat", banks, copies, assignment, self.within_budget(floor), block,
                       crossbar=flat_crossbar(self.varying, banks, block, self.shapes))
                for block, floor in zip(FLAT_BLOCKS, floors))
        return self.family_memo[key]

    def _batches(self, family: Family) -> Iterator[Batch]:
        if family.kind == "per_dim":
            yield from self._per_dim_batch(family)
        else:
            yield from self._flat_batches(family)

    def _per_dim_batch(self, family: Family) -> Iterator[Batch]:
        shape = self.am.array.shape
        banking = Banking(self.am.array.name, per_dim_scheme(shape, family.dims),
                          family.copies, family.assignment)
        if banking not in self.per_dim_scores:
            sets = self._lane_sets(family.copies, family.assignment)
            dims = np.array([[p.type != "none" for p in family.dims]])
            self.per_dim_scores[banking] = sum(
                max(per_dim_ii(ls, banking.scheme, self.am.ports, s.group.target_ii),
                    self._rule_ii(banking.scheme, s))
                - s.group.target_ii for ls, s in zip(sets, self.uniform)
            ) + int(self._dims_refuted(family, dims)[0])
        yield (lambda k: banking), np.array([self.per_dim_scores[banking]], dtype=np.int64)

    def _flat_batches(self, family: Family) -> Iterator[Batch]:
        name, shape = self.am.array.name, self.am.array.shape
        banks, block = family.banks, family.block
        sets = self._lane_sets(family.copies, family.assignment)
        varying = frozenset(d for d in self.varying if not self._wild_overload(
            banks, family.copies, family.assignment, frozenset([d])))
        if self._every_formula_refuted(family, varying):
            return
        rows_iter = alpha_rows(len(shape), varying, banks, block)
        while True:
            rows = np.array([r for _, r in zip(range(ALPHA_BATCH), rows_iter)],
                            dtype=np.int64).reshape(-1, len(shape))
            if not len(rows):
                return
            yield (lambda k, rows=rows: Banking(
                name, flat_scheme(shape, tuple(int(a) for a in rows[k]), banks, block),
                family.copies, family.assignment)), self._flat_scores(family, sets, rows)

    def _flat_scores(self, family: Family, sets: list[list[LaneSet]],
                     rows: np.ndarray) -> np.ndarray:
        """The pre-check's excess II of each alpha of ``rows`` (:meth:`_flat_excess`),
        exact where it is 0 and everywhere when none is 0 (the fallback takes the
        least); elsewhere 1, a lower bound.  For B > 1 the rows that miss a target
        already at the residue t = 0 (:meth:`_flat_may_pass`, B times cheaper) are
        not counted at every residue unless none passes, and none is counted twice:
        most rows (a 15x15 window at N = 113, B = 4: all but 480 of 201,600)."""
        if family.block == 1:
            return self._flat_excess(family, sets, rows)
        may = self._flat_may_pass(family, sets, rows)
        scores = np.ones(len(rows), dtype=np.int64)
        if may.any():
            scores[may] = self._flat_excess(family, sets, rows[may])
            if scores[may].min() == 0:
                return scores
        if not may.all():  # none passes: every excess exact, the fallback takes the least
            scores[~may] = self._flat_excess(family, sets, rows[~may])
        return scores

    def _flat_excess(self, family: Family, sets: list[list[LaneSet]],
                     rows: np.ndarray) -> np.ndarray:
        """Per alpha of ``rows``: the excess II over the uniform groups' targets of
        :func:`.precheck.flat_ii`, under the scheduling rule where the emission keeps
        the references, plus 1 where :meth:`_dims_refuted` refutes its bank
        dimensions."""
        banks, block = family.banks, family.block
        scores = self._dims_refuted(family, rows != 0)
        for ls, s in zip(sets, self.uniform):
            target = s.group.target_ii
            ideal = flat_ii(ls, rows, banks, block, self.am.ports, target,
                            tick=lambda: self._check_time(banks, len(rows)))
            if self.am.array.pragma_only:
                scores += ideal - target
            else:
                rule = direct_flat_rule_ii(rows, banks * block, s, self.am.ports)
                scores += np.maximum(ideal, rule) - target
        return scores

    def _flat_may_pass(self, family: Family, sets: list[list[LaneSet]],
                       rows: np.ndarray) -> np.ndarray:
        """Per alpha of ``rows``: whether :meth:`_flat_excess` may be 0: no bank
        dimension refuted, and every uniform group meets its target at the residue
        t = 0 (:func:`.precheck.flat_fits_at_zero`) and under the scheduling rule."""
        banks, block = family.banks, family.block
        may = self._dims_refuted(family, rows != 0) == 0
        for ls, s in zip(sets, self.uniform):
            target = s.group.target_ii
            may &= flat_fits_at_zero(ls, rows, banks, block, self.am.ports, target,
                                     tick=lambda: self._check_time(banks, len(rows)))
            if not self.am.array.pragma_only:
                may &= direct_flat_rule_ii(rows, banks * block, s, self.am.ports) == target
        return may

    def _every_formula_refuted(self, family: Family, varying: frozenset[int]) -> bool:
        """:meth:`_dims_refuted` refutes every set of ``varying`` dimensions a flat
        formula of ``family`` may read: none of its candidates is worth enumerating
        (none passes, and its per_dim rivals stand in as the fallback)."""
        ndims = len(self.am.array.shape)
        masks = [[d in dims for d in range(ndims)]
                 for size in range(1, len(varying) + 1)
                 for dims in itertools.combinations(sorted(varying), size)]
        return bool(masks) and bool(self._dims_refuted(family, np.array(masks)).all())

    def _rule_ii(self, scheme, shape: GroupShape) -> int:
        """What the pre-check charges a group for the scheduling rule: a ``direct``
        group of an array whose references the emission routes when it can (not a
        pragma-only one, whose rotating lanes are priced by ``Cost.rule_lanes`` and
        may be phased) gets :func:`.space.rule_ii`."""
        if self.am.array.pragma_only:
            return shape.group.target_ii
        return rule_ii(scheme, shape, self.am.ports)

    def _lane_sets(self, copies: int, assignment: tuple) -> list[list[LaneSet]]:
        """Per uniform group, per copy: the lanes its banks serve."""
        key = (copies, assignment)
        if key not in self.lane_sets:
            self.lane_sets[key] = [_copy_lane_sets(s, copies, assignment)
                                   for s in self.uniform]
        return self.lane_sets[key]


def _served_by_copy(lanes, copies: int, assignment: tuple) -> list[list[int]]:
    """Per copy, the positions in ``lanes`` of every write and of the copy's reads."""
    copy_ids = [lane_copy(assignment, a.ref_id, a.copy_lane) for a in lanes]
    return [[k for k, a in enumerate(lanes) if a.kind == "write" or copy_ids[k] == copy]
            for copy in range(copies)]


def _copy_lane_sets(shape: GroupShape, copies: int, assignment: tuple) -> list[LaneSet]:
    """Per copy, the lanes of a uniform group its banks serve: every write (those
    that are one write, ``CycleGroup.merged_writes``, once) and the copy's reads."""
    is_write = np.array([a.kind == "write" for a in shape.lanes], dtype=bool)
    copy_ids = np.array([lane_copy(assignment, a.ref_id, a.copy_lane) for a in shape.lanes])
    counted = np.array([k not in shape.group.merged_writes for k in range(len(shape.lanes))],
                       dtype=bool)
    epochs = np.array([a.epoch for a in shape.lanes], dtype=np.int64)
    return [lane_set(shape.offsets[mask], is_write[mask], epochs[mask])
            for mask in ((is_write | (copy_ids == c)) & counted for c in range(copies))]


def _writes(shape: GroupShape) -> int:
    """The writes of a group's iteration, those that are one write
    (``CycleGroup.merged_writes``) once."""
    return sum(a.kind == "write" for a in shape.lanes) - len(shape.group.merged_writes)


def _anywhere(lane: LaneAccess, bank_dims: frozenset[int] | None) -> bool:
    """Whether ``lane`` may hit any element under a banking whose bank formula reads
    ``bank_dims`` (None: under any banking)."""
    irregular = {d for d, e in enumerate(lane.index) if e is None}
    if bank_dims is None:
        return len(irregular) == len(lane.index)
    return bool(irregular & bank_dims)


def _what_fails(am: ArrayModel) -> str:
    """What no banking reached: conflict-free ports, or, where the emitted code keeps
    some loop's references as written (``CycleGroup.direct``), the targets under the
    scheduling rule (a lane whose bank changes with the iteration there takes a port
    of every bank, so a banking conflict-free in ports alone may miss them; every
    loop of a pragma-only array)."""
    direct = sorted({g.loop for g in am.groups if g.direct or am.array.pragma_only})
    if not direct:
        return "is conflict-free"
    return (f"reaches every target II where the HLS tool sees the references as written "
            f"(loop {', '.join(direct)}: a lane whose bank changes with the iteration "
            "takes a port of every bank)")
