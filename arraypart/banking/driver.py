"""The banking pass's entry point: :func:`solve` banks every array of a model.

The arrays are banked one at a time, easiest first, each within its share of the time
limit (:mod:`.options`).  An array that no search decides (a register port, an off-chip
or reshaped array, one no concurrent loop touches, ...) keeps a fixed banking, proven
(:mod:`.fixed`); every other array gets the cheapest banking that :class:`.search.Search`
finds and isl proves conflict-free, or, when none reaches the targets, the one that
misses them least (:mod:`.missed`), with the notes of :mod:`.notes`.  A target that
address sharing makes impossible is relaxed to the least possible II first
(:mod:`.feasible`); the processes of a dataflow region that read one ROM at once get
copies of their own (:mod:`.dataflow`).

Invariant: every :class:`.solution.ArraySolution` reported carries the proof of its
banking (isl's, or a count where the time limit left no other), never a claim unproven.
"""

from __future__ import annotations

from dataclasses import replace
from time import perf_counter
from typing import Callable, Mapping

from ..errors import warning_text
from ..ir import DEFAULT_PORTS, PORT_MODELS
from ..poly.model import ArrayModel, PolyModel
from ..rtl.cost import estimate
from ..scheme import Banking, none_scheme, scheme_from_pragmas
from . import dataflow
from .bounds import lower_bound_of
from .device import bram_budget
from .feasible import least_feasible_ii, relaxed
from .fixed import (as_registers, keeps_partitions, register_port, reshaped, solution_of,
                    text_banking, time_limited, unpartitioned, without_concurrency)
from .groups import analyze_group
from .missed import cheapest_at_reached_ii
from .notes import copies_evidence, ii_text, partition_notes, search_notes
from .options import SCHEME_CHOICES, Options, TimeUp, easiest_first, ignore, share_time
from .proof import Proof, ProofTimeout, prove
from .search import MAX_REGISTER_ELEMENTS, Search
from .solution import ArraySolution, Found, Solution, solved_model, with_ports
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
            ended = solved[index] = _banked(am, share)
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
        ended = solved[index] = _banked(am, share)
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
    if not cost_of(banking, am, shapes) < cost_of(chosen.banking, solved_model(am, chosen),
                                                  shapes):
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
    return replace(solution_of(am, banking, proof, chosen.lower_bound, start,
                               f"one memory, proven: {why}", kept),
                   time_limited=chosen.time_limited)


def _banked(am: ArrayModel, options: Options) -> ArraySolution:
    """``am``'s array banked within ``options``' time: searched, its dataflow
    processes apart, on the narrowest port model that serves it best."""
    return _narrowed(am, _searched_apart(am, options), options)


def _searched_apart(am: ArrayModel, options: Options) -> ArraySolution:
    """``am``'s array searched, its dataflow processes apart."""
    return _processes_apart(am, _solve_within_time(am, options), options)


def _narrowed(am: ArrayModel, solution: ArraySolution, options: Options) -> ArraySolution:
    """``solution``, or the banking searched on ram_2p banks (then on ram_1p banks when
    isl proves that banking there at the same IIs) where it costs less
    (:class:`.space.Cost`) at no larger II, for an on-chip array on the ``--ports 2``
    default ram_t2p whose banks are block RAM: Vitis builds ram_t2p only in block RAM
    (:func:`arraypart.bram.ram_style`), a port model with one write port also in LUT
    RAM, so more banks of LUT RAM may replace block RAMs (probe 42 F7).  Not where a
    lane's bank rotates in code kept as written (``Cost.rule_lanes``): it takes a port
    of every bank, and fewer ports per bank raise the II the emitted code reaches."""
    array = am.array
    if not (am.ports == PORT_MODELS[DEFAULT_PORTS[2]] and array.storage is None
            and array.memory and not array.interface and solution.bram18k):
        return solution
    shapes = [analyze_group(g, len(array.shape)) for g in am.groups]
    two = with_ports(am, PORT_MODELS["ram_2p"])
    narrow = _searched_apart(two, replace(options, found=ignore))  # the default's stays kept
    reached, cost = dict(solution.achieved_ii), cost_of(narrow.banking, two, shapes)
    if (narrow.time_limited or narrow.multi_port_rom or cost.rule_lanes
            or any(ii > reached.get(loop, ii) for loop, ii in narrow.achieved_ii)
            or not cost < cost_of(solution.banking, am, shapes)):
        return solution
    narrow = replace(narrow, proof=f"{narrow.proof}; on ram_2p banks, which LUT RAM can "
                                  f"build (ram_t2p: block RAM only)")
    one = with_ports(am, PORT_MODELS["ram_1p"])
    try:
        proof = prove(one, narrow.banking, deadline=options.deadline)
    except ProofTimeout:
        return narrow
    if proof.achieved_ii != narrow.achieved_ii or cost < cost_of(narrow.banking, one, shapes):
        return narrow
    return replace(narrow, ports=one.ports, bram18k=estimate(narrow.banking, one).bram18k,
                   proof=f"{narrow.proof}; ram_1p banks serve it too")


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
        return as_registers(am, start)
    if floors and _kept_registers(am, options):
        floors = {}  # the floors bind memory banks: the user's registers take no port
    try:
        solution = _solve_array(relaxed(am, floors) if floors else am, options)
    except (ProofTimeout, TimeUp):
        return time_limited(am, options, start)
    except MemoryError:
        solution = None  # out of the handler: its traceback holds the search's memory
    if solution is None:
        return time_limited(am, options, start, out_of_memory=True)
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
    return (keeps_partitions(am.array, options)
            and scheme_from_pragmas(am.array).registers)


def _registers_within_reach(am: ArrayModel, options: Options) -> bool:
    """A small array may become registers (one bank per element, within the bank
    cap), which take no port: the one way to meet an II that sharing one address
    makes impossible for memory banks."""
    cap = min(MAX_REGISTER_ELEMENTS, options.max_banks or MAX_REGISTER_ELEMENTS)
    return am.array.partitionable and am.array.size <= cap


def _resumed(am: ArrayModel, found: Found | None, options: Options) -> ArraySolution:
    """The banking an earlier run had found for ``am`` when the time limit ended it
    inside one call, proven again here (nothing unproven is reported): as its search
    left it, with its warnings, when that search had ended, else with a warning that
    it is the best found by then; one memory proven by counting when there is none or
    its proof passes the deadline."""
    start = perf_counter()
    if found is None:
        return time_limited(am, options, start)
    banking, array = found.banking, am.array
    try:
        proof = prove(am, banking, deadline=options.deadline)
    except ProofTimeout:
        return time_limited(am, options, start)
    shapes = [analyze_group(g, len(array.shape)) for g in am.groups]
    bound = lower_bound_of(am.ports, shapes, array, exhaustive=False) if shapes else 1
    notes = found.notes if found.complete else (warning_text(array.coord, (
        f"solver time limit of {options.time_limit:g} s reached inside one call that "
        f"cannot be interrupted while banking {array.name}: it keeps {banking.describe()}, "
        f"the best banking found when time ran out, proven again (achieved II "
        f"{ii_text(proof.achieved_ii)})")),)
    kept = (keeps_partitions(array, options)
            and banking == Banking(array.name, scheme_from_pragmas(array)))
    solution = solution_of(am, banking, proof, bound, start,
                           "found before the time limit ended the search; proven again",
                           notes)
    return replace(solution, kept=kept, time_limited=not found.complete)


def _solve_array(am: ArrayModel, options: Options) -> ArraySolution:
    """``am``'s array banked: a fixed banking where what the array is decides it
    (:mod:`.fixed`), else the search's (:func:`_searched`)."""
    start = perf_counter()
    array = am.array
    shapes = [analyze_group(g, len(array.shape)) for g in am.groups]
    if array.register is not None:
        return register_port(am, start)
    if array.kept_banking is not None:
        return text_banking(am, shapes, start)
    if not shapes:
        return without_concurrency(am, options, start)
    bound = lower_bound_of(am.ports, shapes, am.array)
    if array.reshapes:
        return reshaped(am, bound, start, options)
    if not array.partitionable:
        return unpartitioned(am, bound, start, options)
    return _searched(Search(am, shapes, bound, options), start)


def _searched(search: Search, start: float) -> ArraySolution:
    """The search's banking of its array, or the user's partition pragmas beside it
    when the array keeps them (:func:`.fixed.keeps_partitions`), with the notes and
    the evidence (candidates pre-checked, isl checks, lower bound, copies)."""
    am, options = search.am, search.options
    array = am.array
    families = ("per_dim",) if array.pragma_only else options.families
    kept = keeps_partitions(array, options)
    banking, proof, tried, cut_short, notes = (
        _beside_pragmas if kept else _own_banking)(search, families)
    evidence = (f"{tried} candidates pre-checked, {proof.isl_checks} isl checks, "
                f"lower bound {search.bound}" + copies_evidence(am, banking))
    solution = solution_of(am, banking, proof, search.bound, start, evidence, tuple(notes))
    return replace(solution, kept=kept, time_limited=cut_short,
                   phased_loops=phased_loops(banking.scheme, search.shapes,
                                             array.pragma_only))


def _beside_pragmas(search: Search, families: tuple[str, ...]
                    ) -> tuple[Banking, Proof, int, bool, list[str]]:
    """The user's partition pragmas, proven, and the notes that compare them with the
    search's own banking: (banking, proof, candidates pre-checked, False, notes)."""
    array = search.am.array
    banking = Banking(array.name, scheme_from_pragmas(array))
    proof = search.prove(banking)
    search.options.found(Found(banking, complete=False))
    better = search.run(families)
    return banking, proof, better.tried, False, partition_notes(search, banking, proof,
                                                                better)


def _own_banking(search: Search, families: tuple[str, ...]
                 ) -> tuple[Banking, Proof, int, bool, list[str]]:
    """The search's banking, the one that misses the targets least when none meets
    them (:func:`.missed.cheapest_at_reached_ii`): (banking, proof, candidates
    pre-checked, whether the time limit cut the search short, notes)."""
    found = search.run(families, report=True)
    banking, proof, cut_short = found.banking, found.proof, found.cut_short
    if not cut_short:
        banking, proof, cut_short = cheapest_at_reached_ii(
            search.am, search, banking, proof, families, search.options)
    return banking, proof, found.tried, cut_short, search_notes(search, banking, proof,
                                                                cut_short)
