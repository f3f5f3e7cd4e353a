"""The search's candidates and their pre-check: :class:`Screen`.

For one array, the families of candidates with banks x copies = t
(:meth:`Screen.families`: per_dim partitions and flat ``floor(alpha·x/B) mod N``
for each B, at each copy count and read assignment), each with a floor of its cost,
and the candidates of a family in batches (:meth:`Screen.batches`) with their
pre-check scores: the excess II over the targets, summed over the uniform groups
(exact residue counts, :mod:`.precheck`), plus 1 where the non-uniform groups' lanes
that may hit any element, or that share a bank on a sampled cycle, refute the bank
dimensions a candidate's formula reads (:mod:`.sampling`).

Invariants: a score of 0 is exact (the candidate may pass; isl decides); a positive
score is exact where every score of its batch is positive, else a lower bound.  Every
memo is a pure function of the array, its groups and the options, so a search at
raised targets shares the families (whose floors do not depend on the targets) with
the search it was raised from.
"""

from __future__ import annotations

import itertools
from dataclasses import replace
from functools import partial
from typing import Callable, Iterator

import numpy as np

from ..poly.model import ArrayModel, LaneAccess
from ..rtl.closed import lane_table
from ..rtl.cost import scheme_floors
from ..scheme import Banking, by_lane_number, flat_scheme, lane_copy, per_dim_scheme
from .bounds import bram18k, counting_bound
from .groups import GroupShape, read_refs
from .options import Options, check_deadline
from .precheck import LaneSet, flat_fits_at_zero, flat_ii, lane_set, per_dim_ii
from .sampling import GroupSample, shared_banks_overloaded
from .space import (FLAT_BLOCKS, Cost, Family, alpha_rows, copy_assignments,
                    cost_floor, direct_flat_rule_ii, flat_block_floors, flat_crossbar,
                    interface_ports, per_dim_partitions, rule_ii)

# Alpha candidates handed to the pre-check at once (it splits them further to stay
# within its memory budget); keeps a batch's bankings cheap to build lazily.
ALPHA_BATCH = 4096

Batch = tuple[Callable[[int], Banking], np.ndarray]  # (make candidate k, excess II scores)


class Screen:
    """One array's candidates and their pre-check (state local to one search: lane
    sets, scores and family floors, computed once).  ``samples``: the sampled cycles
    of the non-uniform groups, the search's own list (its isl refutations add the
    colliding cycles to it: :meth:`.search.Search._fits_at_target`).
    ``family_memo``: the families of the search this one's targets were raised from
    (None: none).  ``floor_memo``: the model's floors of the per_dim partitions
    (:meth:`_partition_floors`) of a search of the same accesses, whatever its targets
    or its array's flags (None: none)."""

    def __init__(self, am: ArrayModel, shapes: list[GroupShape], options: Options,
                 samples: list[GroupSample], family_memo: dict | None = None,
                 floor_memo: dict | None = None):
        self.am, self.shapes, self.options, self.samples = am, shapes, options, samples
        self.varying = frozenset().union(*(s.varying for s in shapes))
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
        self.per_dim_scores: dict[Banking, int] = {}
        # families and their floors do not depend on the targets: shared when raised
        self.family_memo: dict[tuple, tuple[Family, ...]] = (
            {} if family_memo is None else family_memo)
        self.floor_memo: dict[tuple, tuple[np.ndarray, ...]] = (
            {} if floor_memo is None else floor_memo)
        self.overload_memo: dict[tuple, bool] = {}  # wild and shared overloads
        self.served_overload_memo: dict[tuple, bool] = {}
        self.loads_memo: dict[tuple, list[tuple[int, int, int]]] = {}
        self.served_memo: dict[tuple, list[list[list[int]]]] = {}
        self.partly_irregular = any(None in a.index and not all(e is None for e in a.index)
                                    for a in lanes)

    def least_excess(self, tier: int) -> int:
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

    def within_budget(self, cost: Cost) -> Cost:
        """``cost`` with BRAM18K counted up to one past the device's budget: beyond it
        no banking fits, and a few blocks fewer out of millions decide nothing (issue
        14: BRAM18K first within the device's budget).  The cap keeps floors floors."""
        return replace(cost, bram18k=min(cost.bram18k, self.options.bram_budget + 1))

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
                                      copies, self.am.ports.name, array.storage_impl
                                      ) > self.options.bram_budget:
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
                costs = model_floors(bankings, self.am, self.shapes,
                                     *self._partition_floors(banks, copies, assignment,
                                                             bankings))
                found = tuple(Family("per_dim", banks, copies, assignment,
                                     self.within_budget(floor), dims=dims)
                              for dims, floor in zip(partitions, costs))
            self.family_memo[key] = found
        return self.family_memo[key]

    def _partition_floors(self, banks: int, copies: int, assignment: tuple,
                          bankings: list[Banking]) -> tuple[np.ndarray, ...]:
        """The model's (BRAM18K, LUT, FF) floors of ``bankings``, the per_dim partitions
        of ``banks`` banks (:func:`arraypart.rtl.cost.scheme_floors`): a pure function
        of the array's shape, its accesses (their lane table) and the varying
        dimensions, none of which a search's targets or its array's flags change, so
        made once for the searches that share ``floor_memo`` (the flat note's prices
        the partitions its pragma-only array's search priced)."""
        key = (banks, copies, assignment)
        if key not in self.floor_memo:
            self.floor_memo[key] = scheme_floors(lane_table(self.am, copies, assignment),
                                                 [b.scheme for b in bankings])
        return self.floor_memo[key]

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

    def flat_floor(self, banks: int, copies: int = 1) -> Cost:
        """No flat scheme with ``banks`` banks and ``copies`` copies costs less."""
        if not self.varying or banks < 2:
            return Cost(interface_ports=interface_ports(self.am, banks * copies), bram18k=0,
                        physical_banks=banks * copies, family=1)
        return min(f.floor for f in self._flat_families(banks, copies, ()))

    def batches(self, family: Family) -> Iterator[Batch]:
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
            dims = frozenset(d for d, p in enumerate(family.dims) if p.type != "none")
            self.per_dim_scores[banking] = sum(
                max(per_dim_ii(ls, banking.scheme, self.am.ports, s.group.target_ii),
                    self._rule_ii(banking.scheme, s))
                - s.group.target_ii for ls, s in zip(sets, self.uniform)
            ) + int(self._refutes(family, dims))
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
        tick = partial(check_deadline, self.options, banks, len(rows))
        for ls, s in zip(sets, self.uniform):
            target = s.group.target_ii
            ideal = flat_ii(ls, rows, banks, block, self.am.ports, target, tick=tick)
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
        tick = partial(check_deadline, self.options, banks, len(rows))
        for ls, s in zip(sets, self.uniform):
            target = s.group.target_ii
            may &= flat_fits_at_zero(ls, rows, banks, block, self.am.ports, target,
                                     tick=tick)
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
        found = [self._refutes(family, frozenset(np.flatnonzero(pattern).tolist()))
                 for pattern in patterns]
        return np.array(found, dtype=np.int64)[which.reshape(-1)]

    def _refutes(self, family: Family, bank_dims: frozenset[int]) -> bool:
        """:meth:`_dims_refuted` of one set of bank dimensions (a per_dim family's, one
        set: asked without ``np.unique``, which cost more than the answer)."""
        if not self.partly_irregular and not self.samples:
            return False
        return (self._wild_overload(family.banks, family.copies, family.assignment,
                                    bank_dims)
                or self._shared_overload(family.copies, family.assignment, bank_dims))

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


def may_be_multi_port_rom(am: ArrayModel) -> bool:
    """A pragma-only array keeps the text that uses it, so its read copies can only be
    a multi-port ROM (``bind_storage type=rom_np``: the scheduler gives every read a
    port; the copies its lanes read stand for what that costs): an on-chip array
    that no reference writes, with no storage of the user's."""
    array = am.array
    return (am.read_only and array.partitionable and not array.interface
            and array.storage is None)


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


def model_floors(bankings: list[Banking], am: ArrayModel, shapes: list[GroupShape],
                 bram: np.ndarray, lut: np.ndarray, ff: np.ndarray) -> list[Cost]:
    """:func:`.space.cost_floor` of each banking with the model's BRAM18K and LUT and
    FF floors filled in."""
    return [replace(cost_floor(b, am, shapes), bram18k=int(bram[k]), lut=int(lut[k]),
                    ff=int(ff[k])) for k, b in enumerate(bankings)]
