"""The banking pass: for every array, the cheapest banking isl proves conflict-free.

Search (per array): tiers of physical banks t = banks x copies, from the lower bound
up to ``max_banks`` (only ``max_banks`` when the bound exceeds it: then the least II
is sought).  A tier's candidates are pre-checked in numpy on uniform groups (:mod:`.precheck`, exact up to residue
reachability), the survivors are sorted by :class:`.space.Cost`, non-uniform groups
are checked with isl at the target II, and the first survivor that :func:`.prove`
confirms wins: no cheaper tier had a conflict-free candidate, and within the tier
nothing cheaper survived.  When no tier succeeds, the candidate with the least
(pre-checked) II wins and the report says so.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable
from time import perf_counter

import numpy as np

from ..errors import KernelError, warning_text
from ..poly.model import ArrayModel, PolyModel
from ..scheme import Banking, flat_scheme, none_scheme, per_dim_scheme, scheme_from_pragmas
from .bounds import bram18k, lower_bound_of
from .groups import GroupShape, analyze_group, read_refs
from .precheck import LaneSet, flat_ii, lane_set, per_dim_ii
from .proof import Proof, ProofTimeout, prove, prove_group
from .sampling import refuted, sample_group
from .solution import ArraySolution, Solution
from .space import (FLAT_BLOCKS, Cost, alpha_matrix, copy_assignments, cost_of,
                    per_dim_tiers)

FAMILIES = ("per_dim", "flat")
SCHEME_CHOICES = {"all": FAMILIES, "vitis": ("per_dim",)}
# Alpha candidates handed to the pre-check at once (it splits them further to stay
# within its memory budget); keeps a batch's bankings cheap to build lazily.
ALPHA_BATCH = 4096


def solve(model: PolyModel, *, max_banks: int = 64, schemes: str = "all",
          time_limit: float = 30.0, replace_partitions: bool = False,
          progress: Callable[[int, int, str], None] | None = None) -> Solution:
    """Bank every array of ``model`` (DESIGN §3); see the module doc.  ``progress``,
    when given, is told ``(index, count, array name)`` before each array."""
    if schemes not in SCHEME_CHOICES:
        raise ValueError(f"schemes must be one of {sorted(SCHEME_CHOICES)}")
    start = perf_counter()
    options = _Options(max_banks, SCHEME_CHOICES[schemes], start + time_limit, time_limit,
                       replace_partitions)
    arrays = []
    for index, am in enumerate(model.arrays):
        if progress is not None:
            progress(index, len(model.arrays), am.array.name)
        arrays.append(_solve_within_time(am, options))
    arrays = tuple(arrays)
    warnings = tuple(note for a in arrays for note in a.notes)
    return Solution(arrays, warnings, perf_counter() - start)


@dataclass(frozen=True, slots=True)
class _Options:
    max_banks: int
    families: tuple[str, ...]
    deadline: float
    time_limit: float
    replace_partitions: bool


@dataclass(frozen=True, slots=True)
class _Found:
    """A search's answer: the banking, its proof, its cost, candidates pre-checked."""

    banking: Banking
    proof: Proof
    cost: Cost
    tried: int


def _solve_within_time(am: ArrayModel, options: _Options) -> ArraySolution:
    try:
        return _solve_array(am, options)
    except ProofTimeout:
        raise KernelError(am.array.coord, (
            f"solver time limit of {options.time_limit:g} s exceeded while proving a "
            f"banking of {am.array.name}")) from None


def _solve_array(am: ArrayModel, options: _Options) -> ArraySolution:
    start = perf_counter()
    array = am.array
    shapes = [analyze_group(g, len(array.shape)) for g in am.groups]
    if not shapes:
        banking = Banking(array.name, none_scheme(array.shape))
        return _solution(am, banking, Proof(True, (), None, 0), 1, start,
                         "no concurrent accesses")
    bound = lower_bound_of(am.ports, shapes, am.array.size)
    search = _Search(am, shapes, bound, options)
    notes: list[str] = []
    families = ("per_dim",) if array.interface else options.families
    kept = bool(array.partitions) and not options.replace_partitions
    if kept:
        banking = Banking(array.name, scheme_from_pragmas(array))
        proof, tried = prove(am, banking, deadline=options.deadline), 0
        if not proof.conflict_free:
            better = search.run(families)
            tried = better.tried
            notes.append(warning_text(array.partitions[0].coord, (
                f"the array_partition pragmas of {array.name} ({banking.scheme.describe()}) "
                f"conflict: {proof.counterexample}; a better banking is "
                f"{_text(better.banking)}")))
    else:
        found = search.run(families)
        banking, proof, tried = found.banking, found.proof, found.tried
        flat_floor = Cost(bound, 0, 0, 1, 0, ())
        if array.interface and "flat" in options.families and not (
                proof.conflict_free and found.cost < flat_floor):
            notes += _interface_note(am, found, search.run(options.families))
        if not proof.conflict_free:
            notes.append(warning_text(array.coord, (
                f"no banking of {array.name} within {options.max_banks} banks is "
                f"conflict-free; using {_text(banking)}, achieved II "
                f"{dict(proof.achieved_ii)}: {proof.counterexample}")))
    evidence = (f"{tried} candidates pre-checked, {proof.isl_checks} isl checks, "
                f"lower bound {bound}")
    return replace(_solution(am, banking, proof, bound, start, evidence, tuple(notes)),
                   kept=kept)


def _interface_note(am: ArrayModel, kept: _Found, free: _Found) -> list[str]:
    if not free.proof.conflict_free or (kept.proof.conflict_free and kept.cost <= free.cost):
        return []
    return [warning_text(am.array.coord, (
        f"interface array {am.array.name} keeps a per_dim scheme ({_text(kept.banking)}) "
        f"so the top function's signature is unchanged; a flat scheme would be "
        f"cheaper ({_text(free.banking)})"))]


def _text(banking: Banking) -> str:
    copies = f" x {banking.copies} copies" if banking.copies > 1 else ""
    return f"{banking.scheme.describe()}{copies}"


def _solution(am: ArrayModel, banking: Banking, proof: Proof, bound: int, start: float,
              evidence: str, notes: tuple[str, ...] = ()) -> ArraySolution:
    scheme = banking.scheme
    return ArraySolution(
        array=am.array, ports=am.ports, banking=banking, lower_bound=bound,
        conflict_free=proof.conflict_free, achieved_ii=proof.achieved_ii,
        bram18k=bram18k(scheme.bank_depth, am.array.elem_bits, scheme.banks,
                        banking.copies),
        max_concurrent=am.max_concurrent, seconds=perf_counter() - start,
        proof=evidence + (f"; counterexample: {proof.counterexample}"
                          if proof.counterexample else ""),
        notes=notes)


class _Search:
    """One array's candidate search (state local to one :func:`solve` call)."""

    def __init__(self, am: ArrayModel, shapes: list[GroupShape], bound: int,
                 options: _Options):
        self.am, self.shapes, self.bound, self.options = am, shapes, bound, options
        self.varying = frozenset().union(*(s.varying for s in shapes))
        self.per_dim = per_dim_tiers(am.array.shape, self.varying, options.max_banks)
        self.refs = read_refs(shapes)
        lanes = [a for s in shapes for a in s.lanes]
        # an interface array keeps the top function's signature: no copies
        self.duplicable = not am.array.interface and sum(
            a.kind == "read" for a in lanes) > sum(a.kind == "write" for a in lanes)
        self.lane_sets: dict[tuple, list[list[LaneSet]]] = {}
        self.isl_ok: dict[Banking, bool] = {}
        self.samples = [sample_group(s) for s in shapes if not s.uniform]

    # ------------------------------------------------------------ driver

    def run(self, families: tuple[str, ...]) -> _Found:
        tried, fallback = 0, None
        if self._hopeless():
            banking = Banking(self.am.array.name, none_scheme(self.am.array.shape))
            proof = prove(self.am, banking, deadline=self.options.deadline)
            return _Found(banking, proof, cost_of(banking, self.shapes), tried)
        for tier in range(1, self.options.max_banks + 1):
            pending: list[tuple[Cost, Banking]] = []
            for floor, batches in self._tier(tier, families):
                found, fallback = self._confirm(pending, floor, fallback, tier, tried)
                if found is not None:
                    return _Found(*found, tried)
                for make, scores in batches():
                    self._check_time(tier, tried)
                    tried += len(scores)
                    pending += [(cost_of(b, self.shapes), b)
                                for b in map(make, np.flatnonzero(scores == 0))]
                    if len(scores) and scores.min() > 0:
                        fallback = _better(fallback, self, int(scores.min()),
                                           make(int(np.argmin(scores))))
            found, fallback = self._confirm(pending, None, fallback, tier, tried)
            if found is not None:
                return _Found(*found, tried)
        banking = fallback[1] if fallback else Banking(
            self.am.array.name, none_scheme(self.am.array.shape))
        proof = prove(self.am, banking, deadline=self.options.deadline)
        return _Found(banking, proof, cost_of(banking, self.shapes), tried)

    def _hopeless(self) -> bool:
        """No banking within the budget fits: without copies, a group's irregular
        accesses may all hit one bank, and every bank of at most ``max_banks`` holds at
        least as many elements as there are such accesses, more than its ports serve."""
        capacity = self.am.ports.capacity
        if self.duplicable or capacity is None:
            return False
        least_elements = -(-self.am.array.size // self.options.max_banks)
        for shape in self.shapes:
            irregular = sum(not a.regular for a in shape.lanes)
            if capacity * shape.group.target_ii < irregular <= least_elements:
                return True
        return False

    def _confirm(self, pending: list[tuple[Cost, Banking]], floor: Cost | None,
                 fallback, tier: int, tried: int):
        """Prove the pre-checked candidates cheaper than ``floor`` (all when None) in
        cost order; the first proven one wins.  Refuted ones leave ``pending`` and
        may become the fallback.  Returns ((banking, proof, cost) or None, fallback)."""
        pending.sort(key=lambda p: (p[0], p[1].read_copy))
        while pending and (floor is None or pending[0][0] < floor):
            cost, banking = pending.pop(0)
            self._check_time(tier, tried)
            if self._isl_groups_ok(banking):
                proof = prove(self.am, banking, deadline=self.options.deadline)
                if proof.conflict_free:
                    return (banking, proof, cost), fallback
            fallback = _better(fallback, self, 1, banking)
        return None, fallback

    def _check_time(self, tier: int, tried: int) -> None:
        if perf_counter() > self.options.deadline:
            name = self.am.array.name
            raise KernelError(self.am.array.coord, (
                f"solver time limit of {self.options.time_limit:g} s exceeded while "
                f"banking {name} ({tried} candidates pre-checked, at {tier} banks)"))

    def _isl_groups_ok(self, banking: Banking) -> bool:
        """Non-uniform groups fit at their target II: refuted on samples, else isl
        (cached per banking)."""
        if any(refuted(sample, banking, self.am.ports) for sample in self.samples):
            return False
        if banking not in self.isl_ok:
            self.isl_ok[banking] = all(
                prove_group(self.am, s.group, banking, max_ii=s.group.target_ii,
                            deadline=self.options.deadline).ii
                == s.group.target_ii for s in self.shapes if not s.uniform)
        return self.isl_ok[banking]

    # ------------------------------------------------------------ candidates

    def _tier(self, tier: int, families: tuple[str, ...]):
        """Families of candidates with banks x copies = ``tier``, each as ``(floor,
        batches)``: ``floor`` is a cost no member beats (so a tier whose pre-checked
        survivors are all final can skip it), ``batches()`` yields ``(make, scores)``:
        ``make(k)`` builds candidate k, whose score is its pre-checked excess II summed
        over uniform groups (0: passes)."""
        if tier < min(self.bound, self.options.max_banks):
            return
        for copies in range(1, tier + 1):
            banks = tier // copies
            if tier % copies or (copies > 1 and not self.duplicable):
                continue
            for assignment in ([()] if copies == 1 else copy_assignments(self.refs, copies)):
                yield (Cost(tier, copies - 1, 0, 0, 0, ()),
                       lambda b=banks, c=copies, a=assignment: self._per_dim_batch(b, c, a))
                if "flat" in families and banks > 1:
                    yield (Cost(tier, copies - 1, 0, 1, 0, ()),
                           lambda b=banks, c=copies, a=assignment: self._flat_batches(b, c, a))

    def _per_dim_batch(self, banks: int, copies: int, assignment: tuple):
        name, shape = self.am.array.name, self.am.array.shape
        bankings = [Banking(name, per_dim_scheme(shape, dims), copies, assignment)
                    for dims in self.per_dim.get(banks, [])]
        if bankings:
            sets = self._lane_sets(copies, assignment)
            scores = []
            for b in bankings:
                self._check_time(banks * copies, len(scores))
                scores.append(sum(per_dim_ii(ls, b.scheme, self.am.ports, s.group.target_ii)
                                  - s.group.target_ii for ls, s in zip(sets, self._uniform())))
            yield bankings.__getitem__, np.array(scores, dtype=np.int64)

    def _flat_batches(self, banks: int, copies: int, assignment: tuple):
        name, shape = self.am.array.name, self.am.array.shape
        sets = self._lane_sets(copies, assignment)
        for block in FLAT_BLOCKS:
            alphas = alpha_matrix(len(shape), self.varying, banks, block)
            for lo in range(0, len(alphas), ALPHA_BATCH):
                rows = alphas[lo:lo + ALPHA_BATCH]
                scores = np.zeros(len(rows), dtype=np.int64)
                for ls, s in zip(sets, self._uniform()):
                    target = s.group.target_ii
                    scores += flat_ii(ls, rows, banks, block, self.am.ports, target) - target
                yield (lambda k, rows=rows, block=block: Banking(
                    name, flat_scheme(shape, tuple(int(a) for a in rows[k]), banks, block),
                    copies, assignment)), scores

    def _uniform(self) -> list[GroupShape]:
        return [s for s in self.shapes if s.uniform]

    def _lane_sets(self, copies: int, assignment: tuple) -> list[list[LaneSet]]:
        """Per uniform group, per copy: the lanes its banks serve."""
        key = (copies, assignment)
        if key not in self.lane_sets:
            copy_of = dict(assignment)
            self.lane_sets[key] = [
                [lane_set(s.offsets[mask], is_write[mask]) for mask in
                 (is_write | (copy_ids == c) for c in range(copies))]
                for s in self._uniform()
                for is_write, copy_ids in [(
                    np.array([a.kind == "write" for a in s.lanes]),
                    np.array([copy_of.get(a.ref_id, 0) for a in s.lanes]))]]
        return self.lane_sets[key]


def _better(current, search: _Search, score: int, banking: Banking):
    """The fallback with the least excess II, then the least cost."""
    key = (score, cost_of(banking, search.shapes), banking.read_copy)
    return (key, banking) if current is None or key < current[0] else current
