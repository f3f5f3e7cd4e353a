"""The isl proof that a banking serves every cycle group within its ports.

For lanes a, b of a group (one copy's competitors: every write, which goes to every
copy, and the read lanes that read this copy: ``Banking.copy_of`` of the lane's
reference at the lane's unrolled iterator values, a constant per lane, so two reads
in different copies never compete) let

    S_ab = { P in dom_a ∩ dom_b : bank(f_a(P)) = bank(f_b(P))
                                  and not (a, b reads of one epoch and f_a(P) = f_b(P)) }.

(``LaneAccess.epoch``: a write of the array that may alias them, between two reads,
makes the tool load the element again.)  At a cycle P the accesses of one bank that
count (reads of one address in one epoch are one) are
a clique C of the *may-collide* graph (edges: nonempty S_ab) with P in the joint set
J(C) = ∩_{a,b in C} S_ab (for |C| = 1, dom_a).  An irregular index is an extra
dimension of every set, bounded by the array, so J(C) fixes it once per lane.
Reads with the same index expression (and copy and epoch), and writes that are one write
(``CycleGroup.merged_writes``), are merged first (one access wherever one of them
runs, on the union of their domains), and two lanes whose banks are
constants are decided without isl.  The banking fits at II k iff every
clique whose composition does not fit ``PortModel.fits(reads, writes, k)`` has an
empty J(C).  A depth-first walk over cliques in increasing lane order computes J
incrementally, prunes at an empty J (no superset can be realized) and at a clique
whose every extension fits; so single-port banks at II 1 need exactly the emptiness
of the S_ab, and a richer port model only walks the cliques that really co-occur.

Pair sets involving an irregular lane enter J(C) only as edges, not as intersected
sets: their pairwise "different address" conditions are disjunctions over free
dimensions, and intersecting many of them grows isl sets exponentially.  The joint set
computed is then a superset of the true one, so the proof stays sound (it may report a
conflict that cannot happen, never the opposite).  What keeps it sharp is counting:
the reads of one epoch in a clique have pairwise different addresses in one bank, and
a bank holds at most ``bank_depth`` elements, so a clique with more reads of one epoch
than that is empty.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from time import perf_counter
from typing import Callable

import islpy as isl
import numpy as np

from .. import expr as E
from ..ir import PortModel, point_words
from ..poly import isl_glue as G
from ..poly.model import ArrayModel, CycleGroup
from ..scheme import Banking, DimPartition, Scheme, index_var, per_dim_scheme
from . import islsets as S
from .precheck import INFEASIBLE_II


# Lanes of a group up to which every pair's distance class is numbered at once
# (:class:`_ClassTable`: lanes^2 entries per dimension, 16 MB at this many); larger
# groups number each lane's row when the clique walk asks for it.
MAX_CLASS_TABLE_LANES = 1024
# An isl proof keeps one set dimension per irregular index value (so one lane's unknown
# index is the same in every set); past this many the sets are too large to build in
# reasonable time and the group is judged by counting (_counted_verdict).
MAX_IRREGULAR_DIMS = 32
# In one memory every pair of lanes collides, so the clique walk meets every subset
# that does not fit (exponential in the lanes); past this many lanes one memory is
# judged by counting its distinct index expressions (exact when they never meet).
MAX_WALKED_ONE_BANK = 64
# isl operations one step of the clique walk (an intersection, an emptiness test) may
# take, about 2 s: past them the group is judged by counting (_counted_verdict), sound
# and coarse.  Lanes that always share an element, with floor and mod terms (probe 31b's
# dup.c, ``a[(i + u) >> 2][(i + u) % 3]``), made one intersection run for a minute.
MAX_STEP_OPERATIONS = 5_000_000


@dataclass(frozen=True, slots=True)
class Proof:
    """isl's verdict on a banking: conflict-free at every loop's target II; the least
    II each loop achieves (``INFEASIBLE_II``: none); one colliding cycle when not
    conflict-free; the number of isl emptiness checks made; the least II of each
    group (in the array model's order; empty when not recorded)."""

    conflict_free: bool
    achieved_ii: tuple[tuple[str, int], ...]
    counterexample: str | None
    isl_checks: int
    group_ii: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class GroupVerdict:
    """The least II (>= target) at which a group fits, or ``INFEASIBLE_II`` (also when
    the scan stopped at ``max_ii``); a colliding cycle at the target II, and its time
    point when isl found it (None when counting did)."""

    ii: int
    counterexample: str | None
    isl_checks: int
    point: tuple[int, ...] | None = None


class ProofTimeout(Exception):
    """The clique walk passed its deadline (it is exponential in the worst case)."""


def prove(array_model: ArrayModel, banking: Banking, *,
          deadline: float | None = None) -> Proof:
    """Prove ``banking`` on every cycle group of ``array_model`` (see module doc);
    raises :class:`ProofTimeout` past ``deadline`` (a ``perf_counter`` time)."""
    achieved: dict[str, int] = {}
    counterexample, checks, free, least = None, 0, True, []
    for group in array_model.groups:
        verdict = prove_group(array_model, group, banking, deadline=deadline)
        checks += verdict.isl_checks
        least.append(verdict.ii)
        achieved[group.loop] = max(achieved.get(group.loop, 0), verdict.ii)
        if verdict.ii > group.target_ii:
            free = False
            counterexample = counterexample or verdict.counterexample
    return Proof(free, tuple(sorted(achieved.items())), counterexample, checks, tuple(least))


def at_raised_targets(proof: Proof, raised: tuple[CycleGroup, ...]) -> Proof | None:
    """What :func:`prove` finds at the targets of ``raised`` (the groups ``proof`` was
    made for, in order, each target no lower), from ``proof``'s least II per group,
    without isl.  A group that fits at II k fits at every larger II (a clique of
    accesses that does not fit at k + 1 does not fit at k), so from a target t its
    least II is max(t, k).  Its counterexample, when it is not conflict-free, is
    ``proof``'s (a real colliding cycle, at the lower targets); it counts no isl check.
    None when ``proof`` recorded no least II per group or some group fits at no II
    its scan reached (that scan ended below the raised one's end)."""
    if len(proof.group_ii) != len(raised) or INFEASIBLE_II in proof.group_ii:
        return None
    least = tuple(max(g.target_ii, ii) for g, ii in zip(raised, proof.group_ii))
    achieved: dict[str, int] = {}
    for group, ii in zip(raised, least):
        achieved[group.loop] = max(achieved.get(group.loop, 0), ii)
    free = all(ii == g.target_ii for g, ii in zip(raised, least))
    return Proof(free, tuple(sorted(achieved.items())),
                 None if free else proof.counterexample, 0, least)


def counted_proof(array_model: ArrayModel, banking: Banking) -> Proof:
    """:func:`prove` by counting alone (no isl, so it ends at once): sound, coarse;
    exact enough for one memory, where every access meets in the one bank."""
    achieved: dict[str, int] = {}
    counterexample, free = None, True
    for group in array_model.groups:
        limit = group.target_ii + len(group.accesses)
        verdict = _counted_verdict(array_model, group, banking, limit)
        achieved[group.loop] = max(achieved.get(group.loop, 0), verdict.ii)
        if verdict.ii > group.target_ii:
            free = False
            counterexample = counterexample or verdict.counterexample
    return Proof(free, tuple(sorted(achieved.items())), counterexample, 0)


def prove_group(array_model: ArrayModel, group: CycleGroup, banking: Banking,
                max_ii: int | None = None, *, deadline: float | None = None) -> GroupVerdict:
    """The least II in [target, max_ii] at which ``group`` fits under ``banking``
    (``max_ii`` None: up to the II at which any bank serves all the group's lanes)."""
    if banking.scheme.registers:
        return GroupVerdict(group.target_ii, None, 0)
    limit = group.target_ii + len(group.accesses) if max_ii is None else max_ii
    bank_dims = banking.scheme.bank_dims()
    kept = _known_digits(group, banking)
    irregular_dims = sum(len(S.lane_terms(a, (), 0, array_model.array.shape, bank_dims,
                                          kept).exists)
                         for a in group.accesses if not a.regular)
    if irregular_dims > MAX_IRREGULAR_DIMS or (
            banking.scheme.banks * banking.copies == 1
            and len(group.accesses) > MAX_WALKED_ONE_BANK):
        return _counted_verdict(array_model, group, banking, limit)
    try:
        with G.operation_budget(MAX_STEP_OPERATIONS) as restart:
            return _walked_verdict(_GroupProver(array_model, group, banking, deadline,
                                                restart), group, limit)
    except isl.Error as error:
        if not G.out_of_operations(error):
            raise
        return _counted_verdict(array_model, group, banking, limit)


def _walked_verdict(prover: "_GroupProver", group: CycleGroup, limit: int) -> GroupVerdict:
    """The least II in [target, limit] at which the clique walk finds no collision."""
    first_failure = None
    for ii in range(group.target_ii, limit + 1):
        failure = prover.failure_at(ii)
        if failure is None:
            return GroupVerdict(ii, first_failure, prover.checks, prover.first_point)
        first_failure = first_failure or failure
    return GroupVerdict(INFEASIBLE_II, first_failure, prover.checks, prover.first_point)


def _known_digits(group: CycleGroup, banking: Banking) -> frozenset[int]:
    """The dimensions every irregular lane of ``group`` knows (:func:`.islsets.lane_terms`
    keeps them, as the checker counts such a lane: ``Scheme.known_digits``)."""
    return banking.scheme.known_digits(a.index for a in group.accesses if not a.regular)


def _counted_verdict(array_model: ArrayModel, group: CycleGroup, banking: Banking,
                     limit: int) -> GroupVerdict:
    """The verdict by counting alone, for groups with too many irregular values for
    isl or too many lanes in one memory.  Per copy and bank, the accesses that may
    meet there are those whose bank is that one at every P (:func:`_fixed_bank`: the
    index is a constant in every bank dimension, ``in[co][h + i][w + j]`` with ``co``
    unrolled) and every access whose bank is not known; its distinct reads are at
    most its ``bank_depth`` elements per epoch, and writes that are one write count once.
    Sound (no bank can carry more), coarse."""
    needed, failure = group.target_ii, None
    if banking.scheme.registers:
        return GroupVerdict(needed, None, 0)
    depth = banking.scheme.bank_depth
    banks = [_fixed_bank(banking.scheme, a) for a in group.accesses]
    for copy in range(banking.copies):
        mine = [k for k, a in enumerate(group.accesses) if k not in group.merged_writes
                and (a.kind == "write" or banking.copy_of(a.ref_id, a.copy_lane) == copy)]
        for bank in sorted({banks[k] for k in mine}, key=lambda b: (b is None, b or 0)):
            lanes = [group.accesses[k] for k in mine if banks[k] in (bank, None)]
            writes = sum(a.kind == "write" for a in lanes)
            regular = {a.read_key(a.index) for a in lanes
                       if a.kind == "read" and a.regular}
            irregular = sum(a.kind == "read" and not a.regular for a in lanes)
            epochs = len({a.epoch for a in lanes if a.kind == "read"})
            reads = min(len(regular) + irregular, depth * epochs)
            ii = next((k for k in range(group.target_ii, limit + 1)
                       if array_model.ports.fits(reads, writes, k)), INFEASIBLE_II)
            if ii > group.target_ii and failure is None:
                failure = (f"loop {group.loop}: by counting, {reads} reads and {writes} "
                           f"writes may meet in one bank (copy {copy}; {irregular} of "
                           f"the accesses irregular)")
            needed = max(needed, ii)
    return GroupVerdict(needed, failure, 0)


def _fixed_bank(scheme: Scheme, access) -> int | None:
    """The bank ``access`` reaches at every P when its index is a constant in every
    dimension the bank formula reads; None otherwise (it may reach any bank)."""
    values = {}
    for d in scheme.bank_dims():
        e = access.index[d]
        if not isinstance(e, E.Const):
            return None
        values[index_var(d)] = e.value
    return int(E.evaluate(scheme.bank_expr(), values))


class _GroupProver:
    """Pair sets of one group under one banking, built lazily and kept for the
    II scan (local to one :func:`prove_group` call)."""

    def __init__(self, array_model: ArrayModel, group: CycleGroup, banking: Banking,
                 deadline: float | None, restart: Callable[[], None] = lambda: None):
        self.group = group
        self.deadline = deadline
        self.restart = restart  # isl's operation budget, for one step of the walk
        self.banking = banking
        self.ports: PortModel = array_model.ports
        shape = array_model.array.shape
        bank_dims = banking.scheme.bank_dims()
        kept = _known_digits(group, banking)
        self.terms = [S.lane_terms(a, group.time_vars, k, shape, bank_dims, kept)
                      for k, a in enumerate(group.accesses)]
        self.domains, self.members = [], []
        representative: dict[tuple, int] = {}
        irregular = S.irregular_dims(self.terms)
        for k, a in enumerate(group.accesses):
            self._check_deadline()  # one set per lane: thousands for a big unroll
            domain, self.names = S.with_irregular(S.plain(a.domain), irregular)
            self.domains.append(domain)
            key = (a.read_key(a.index), banking.copy_of(a.ref_id, a.copy_lane))
            mergeable = a.kind == "read" and a.regular
            first = group.merged_writes.get(k, representative.get(key) if mergeable else None)
            if first is not None:
                self.domains[first] = self.domains[first].union(domain)
                continue
            if mergeable:
                representative[key] = k
            self.members.append(k)
        self.bank_expr = banking.scheme.bank_expr()
        self.shape = shape
        self.forms = _constant_forms(self.terms)
        self.first_point: tuple[int, ...] | None = None
        self.asked: dict[tuple, bool] = {}
        self.class_table: _ClassTable | None = None
        self.form_arrays: tuple[np.ndarray, np.ndarray] | None = None
        self.dim_verdicts: dict[int, np.ndarray] = {}
        self.lane_banks: dict[int, E.Expr] = {}
        self.functions: dict[int, S.LaneFunctions] = {}
        self.pair_sets: dict[tuple[int, int], isl.Set] = {}
        self.nonempty: dict[tuple[int, int], bool] = {}
        self.checks = 0

    def _copy(self, k: int) -> int:
        """The copy read lane ``k`` reads."""
        lane = self.group.accesses[k]
        return self.banking.copy_of(lane.ref_id, lane.copy_lane)

    def _is_write(self, k: int) -> bool:
        return self.group.accesses[k].kind == "write"

    def _fits_in_bank(self, clique: list[int]) -> bool:
        """Whether one bank holds enough elements for the clique's reads, which
        have different addresses within each epoch."""
        reads = Counter(self.group.accesses[k].epoch for k in clique
                        if not self._is_write(k))
        return max(reads.values(), default=0) <= self.banking.scheme.bank_depth

    def _one_read(self, a: int, b: int) -> bool:
        """Lanes ``a`` and ``b`` are reads of one epoch: at one address, one access."""
        first, second = self.group.accesses[a], self.group.accesses[b]
        return (first.kind == second.kind == "read") and first.epoch == second.epoch

    def _regular(self, k: int) -> bool:
        return self.group.accesses[k].regular

    def _check_deadline(self) -> None:
        """Raise :class:`ProofTimeout` past the deadline; else a new step begins, with
        isl's operation budget afresh."""
        if self.deadline is not None and perf_counter() > self.deadline:
            raise ProofTimeout
        self.restart()

    def _empty(self, points: isl.Set) -> bool:
        self._check_deadline()
        self.checks += 1
        return points.is_empty()

    def pair(self, a: int, b: int) -> isl.Set:
        if (a, b) not in self.pair_sets:
            both_reads = self._one_read(a, b)
            domain = self.domains[a].intersect(self.domains[b])
            delta = self._difference(a, b)
            if delta is not None:
                decided = (not both_reads) if not any(delta) else (
                    False if self._apart(delta) else None)
            else:
                decided = self._constant_collision(a, b, both_reads)
            if decided is not None:
                self.pair_sets[a, b] = domain if decided else isl.Set.empty(domain.space)
                return self.pair_sets[a, b]
            self.pair_sets[a, b] = S.collision_set(domain, self._functions(a),
                                                   self._functions(b), both_reads)
        return self.pair_sets[a, b]

    def _functions(self, k: int) -> S.LaneFunctions:
        """Lane ``k``'s bank and index as isl functions, built once per proof."""
        if k not in self.functions:
            self.functions[k] = S.lane_functions(self.names, self.terms[k], self.bank_expr)
        return self.functions[k]

    def _difference(self, a: int, b: int) -> tuple[int, ...] | None:
        """``f_b - f_a`` when both lanes are ``L·P + d`` with the same ``L``."""
        fa, fb = self.forms[a], self.forms[b]
        if fa is None or fb is None or fa[0] != fb[0]:
            return None
        return tuple(y - x for x, y in zip(fa[1], fb[1]))

    def _apart(self, delta: tuple[int, ...]) -> bool:
        """Lanes at the constant nonzero distance ``delta`` never share a bank: U_delta
        (module doc of islsets) is empty.  One isl check serves every pair at that
        distance (a *distance class*).  For per_dim schemes bank equality is a
        conjunction over dimensions and U_delta a box, so U_delta is the product of
        the one-dimensional U_{delta_d}: one tiny check per dimension and distance."""
        key = max(delta, tuple(-s for s in delta))
        scheme = self.banking.scheme
        if scheme.kind == "per_dim":
            return any(self._dim_apart(d, s) for d, s in enumerate(key) if s)
        return self._ask((scheme, key), lambda: shift_apart(scheme, key))

    def _dim_apart(self, d: int, step: int) -> bool:
        """U_step of dimension ``d`` alone is empty (its size and partition decide it,
        so schemes that share them share the verdict)."""
        key = (self.shape[d], self.banking.scheme.dims[d], abs(step))
        return self._ask(key, lambda: dim_apart(*key))

    def _ask(self, key: tuple, verdict) -> bool:
        """isl's verdict on a distance class (``verdict()``, memoised for the whole
        process), counted as one check the first time this proof asks it."""
        if key not in self.asked:
            self._check_deadline()
            self.checks += 1
            self.asked[key] = verdict()
        return self.asked[key]

    def apart_rows(self, k: int, others: list[int]) -> np.ndarray:
        """Vectorized :meth:`_apart` of lane ``k`` against ``others``: True where the
        two lanes differ by a constant nonzero vector whose class is apart.  Each
        class is asked of isl the first time a pair of it is looked at
        (:class:`_ClassTable` numbers the classes once per proof)."""
        if not others:
            return np.zeros(0, dtype=bool)
        if len(self.forms) > MAX_CLASS_TABLE_LANES:
            return self._apart_row(k, others)
        if self.class_table is None:
            self.class_table = _ClassTable(self.forms, self.banking.scheme.kind == "per_dim")
        table = self.class_table
        js = np.array(others, dtype=np.int64)
        same = table.same[k, js]
        if not same.any():
            return same
        if table.per_dim:
            apart = np.zeros(len(js), dtype=bool)
            for d, (ids, values, verdict) in enumerate(table.dims):
                row = ids[k, js]
                self._decide(verdict, row[same & (verdict[row] < 0)],
                             lambda c, d=d, values=values: self._dim_apart(d, int(values[c])))
                apart |= verdict[row] == 1
        else:
            ids, classes, verdict = table.vectors
            row = ids[k, js]
            self._decide(verdict, row[same & (verdict[row] < 0)],
                         lambda c: self._apart(tuple(int(x) for x in classes[c])))
            apart = verdict[row] == 1
        return same & apart

    def _apart_row(self, k: int, others: list[int]) -> np.ndarray:
        """:meth:`apart_rows` computed for this row alone (groups too large for a
        table of every pair)."""
        out = np.zeros(len(others), dtype=bool)
        if self.form_arrays is None:
            self.form_arrays = _form_arrays(self.forms, len(self.shape))
        linear, offsets = self.form_arrays
        if linear[k] < 0:
            return out
        js = np.asarray(others, dtype=np.int64)
        rows = np.flatnonzero(linear[js] == linear[k])
        if not len(rows):
            return out
        deltas = offsets[js[rows]] - offsets[k]
        if self.banking.scheme.kind == "per_dim":
            apart = np.zeros(len(rows), dtype=bool)
            for d in range(deltas.shape[1]):
                steps = np.abs(deltas[:, d])
                verdict = self._dim_verdicts(d, int(steps.max(initial=0)))
                unknown = steps[verdict[steps] < 0]
                for v in np.unique(unknown).tolist():
                    verdict[v] = int(self._dim_apart(d, v))
                apart |= verdict[steps] == 1
        else:
            classes, inverse = np.unique(deltas, axis=0, return_inverse=True)
            verdict = np.array([any(c) and self._apart(tuple(int(x) for x in c))
                                for c in classes], dtype=bool)
            apart = verdict[inverse.reshape(-1)]
        out[rows] = apart
        return out

    def _dim_verdicts(self, d: int, largest: int) -> np.ndarray:
        """Per distance ``s`` along dimension ``d`` (0 <= s <= ``largest`` at least):
        1 when lanes that far apart there never share a bank, 0 when they may, -1 not
        yet asked (a distance of 0 is never apart)."""
        table = self.dim_verdicts.get(d)
        if table is None or len(table) <= largest:
            grown = np.full(max(self.shape[d], largest + 1), -1, dtype=np.int8)
            grown[0] = 0
            if table is not None:
                grown[:len(table)] = table
            self.dim_verdicts[d] = table = grown
        return table

    @staticmethod
    def _decide(verdict: np.ndarray, unknown: np.ndarray, apart) -> None:
        """Fill ``verdict`` (1 apart, 0 not) for the class numbers ``unknown``."""
        for c in np.unique(unknown).tolist():
            verdict[c] = int(apart(c))

    def _constant_collision(self, a: int, b: int, both_reads: bool) -> bool | None:
        """Whether two lanes with constant banks (and, for reads, constant indices)
        collide whenever both run; None when it depends on P."""
        banks = [self._lane_bank(k) for k in (a, b)]
        if not all(isinstance(x, E.Const) for x in banks):
            return None
        if banks[0] != banks[1]:
            return False
        if not both_reads:
            return True
        index = [self.terms[k].index for k in (a, b)]
        if not all(isinstance(x, E.Const) for x in index[0] + index[1]):
            return None
        return index[0] != index[1]

    def _lane_bank(self, k: int) -> E.Expr:
        if k not in self.lane_banks:
            self.lane_banks[k] = S.bank_of(self.bank_expr, self.terms[k])
        return self.lane_banks[k]

    def edge(self, a: int, b: int) -> bool:
        if (a, b) not in self.nonempty:
            self.nonempty[a, b] = not self._empty(self.pair(a, b))
        return self.nonempty[a, b]

    def failure_at(self, ii: int) -> str | None:
        """A colliding cycle at II ``ii`` for some copy, or None."""
        for copy in range(self.banking.copies):
            lanes = [k for k in self.members if self._is_write(k)
                     or self._copy(k) == copy]
            writes = sum(self._is_write(k) for k in lanes)
            if self.ports.fits(len(lanes) - writes, writes, ii):
                continue
            failure = self._walk(lanes, ii)
            if failure is not None:
                return failure
        return None

    def _neighbours(self, k: int, others: list[int]) -> list[int]:
        """The lanes of ``others`` that may share a bank with ``k`` (distance classes
        proved apart are dropped in one vectorized pass, the rest asked one by one)."""
        apart = self.apart_rows(k, others)
        return [j for j, off in zip(others, apart) if not off and self.edge(k, j)]

    def _walk(self, lanes: list[int], ii: int) -> str | None:
        for pos, k in enumerate(lanes):
            if self._empty(self.domains[k]):
                continue
            rest = self._neighbours(k, lanes[pos + 1:])
            failure = self._extend([k], self.domains[k], rest, ii)
            if failure is not None:
                return failure
        return None

    def _extend(self, clique: list[int], joint: isl.Set, rest: list[int],
                ii: int) -> str | None:
        """Depth-first over cliques ``clique + ...`` whose joint set is nonempty."""
        writes = sum(self._is_write(k) for k in clique)
        if not self.ports.fits(len(clique) - writes, writes, ii):
            return self._describe(clique, joint)
        all_writes = writes + sum(self._is_write(k) for k in rest)
        if self.ports.fits(len(clique) + len(rest) - all_writes, all_writes, ii):
            return None
        for pos, k in enumerate(rest):
            if not self._fits_in_bank(clique + [k]):
                continue
            self._check_deadline()
            grown = joint
            for j in clique:
                if self._regular(j) and self._regular(k):
                    grown = grown.intersect(self.pair(j, k))
            if self._empty(grown):
                continue
            later = self._neighbours(k, rest[pos + 1:])
            failure = self._extend(clique + [k], grown, later, ii)
            if failure is not None:
                return failure
        return None

    def _describe(self, clique: list[int], joint: isl.Set) -> str:
        """The colliding cycle as text; the first one's time point is kept."""
        point = S.sample(joint)[:len(self.group.time_vars)]
        self.first_point = self.first_point or point
        at = point_words(zip(self.group.time_vars, point))
        parts = []
        for k in clique:
            lane, terms = self.group.accesses[k], self.terms[k]
            index = "".join(f"[{S.evaluate_at(e, point)}]" if not E.variables(e) & set(
                terms.exists) else "[?]" for e in terms.index)
            parts.append(f"{lane.kind} {lane.array}{index} ({lane.coord})")
        bank = S.bank_of(self.bank_expr, self.terms[clique[0]])
        bank_text = ("?" if E.variables(bank) & set(self.terms[clique[0]].exists)
                     else str(S.evaluate_at(bank, point)))
        return (f"loop {self.group.loop}, iteration ({at}): " + ", ".join(parts)
                + f" hit bank {bank_text} together")


class _ClassTable:
    """The distance classes of a group's lane pairs, numbered once per proof.

    Lanes a, b with indices ``L·P + d_a`` and ``L·P + d_b`` (the same ``L``: ``same``)
    differ by ``d_b - d_a`` at every P.  per_dim: per dimension d, ``dims[d]`` is
    (class number of |d_b - d_a|_d per pair, the values, a verdict per value); flat:
    ``vectors`` is (class number of d_b - d_a per pair, the vectors, a verdict per
    class).  A verdict is -1 until isl is asked, then 1 (apart) or 0; the zero
    distance is never apart (it is 0 from the start)."""

    def __init__(self, forms: list[tuple[tuple, tuple[int, ...]] | None], per_dim: bool):
        linear: dict[tuple, int] = {}
        ids = np.array([-1 if f is None else linear.setdefault(f[0], len(linear))
                        for f in forms], dtype=np.int64)
        width = max((len(f[1]) for f in forms if f is not None), default=0)
        consts = np.array([f[1] if f is not None else (0,) * width for f in forms],
                          dtype=np.int64).reshape(len(forms), width)
        self.same = (ids[:, None] == ids[None, :]) & (ids[:, None] >= 0)
        self.per_dim = per_dim
        deltas = consts[None, :, :] - consts[:, None, :]
        n = len(forms)
        if per_dim:
            self.dims = []
            for d in range(width):
                values, inverse = np.unique(np.abs(deltas[:, :, d]), return_inverse=True)
                self.dims.append((inverse.reshape(n, n), values, _verdicts(values == 0)))
        else:
            classes, inverse = np.unique(deltas.reshape(n * n, width), axis=0,
                                         return_inverse=True)
            self.vectors = (inverse.reshape(n, n), classes,
                            _verdicts(~classes.any(axis=1)))


@lru_cache(maxsize=1 << 16)
def dim_apart(size: int, part: DimPartition, step: int) -> bool:
    """No two elements ``step`` apart in a dimension of ``size`` share a bank under
    ``part``: U_step (:func:`.islsets.shift_collision_set`) is empty (pure, so it is
    asked of isl once per process)."""
    bank = per_dim_scheme((size,), (part,)).bank_expr()
    return S.shift_collision_set((size,), bank, (step,)).is_empty()


@lru_cache(maxsize=1 << 16)
def shift_apart(scheme: Scheme, delta: tuple[int, ...]) -> bool:
    """No two elements ``delta`` apart share a bank under ``scheme``: U_delta is empty
    (pure, asked of isl once per process)."""
    return S.shift_collision_set(scheme.shape, scheme.bank_expr(), delta).is_empty()


def _verdicts(zero: np.ndarray) -> np.ndarray:
    """-1 (not yet asked) per class, 0 for the zero distance."""
    return np.where(zero, 0, -1).astype(np.int8)


def _form_arrays(forms: list[tuple[tuple, tuple[int, ...]] | None], dims: int
                 ) -> tuple[np.ndarray, np.ndarray]:
    """The lanes' forms as arrays: a number per distinct ``L`` (-1: no form) and the
    offsets ``d``, one row per lane."""
    numbers: dict[tuple, int] = {}
    linear = np.full(len(forms), -1, dtype=np.int64)
    offsets = np.zeros((len(forms), dims), dtype=np.int64)
    for k, form in enumerate(forms):
        if form is not None:
            linear[k] = numbers.setdefault(form[0], len(numbers))
            offsets[k] = form[1]
    return linear, offsets


def _constant_forms(terms: list[S.LaneTerms]) -> list[tuple[tuple, tuple[int, ...]] | None]:
    """Per lane ``(L, d)`` with index ``L·P + d`` (None: not affine or irregular)."""
    forms = []
    for t in terms:
        parts = [None if t.exists else E.affine_form(e) for e in t.index]
        if any(p is None for p in parts):
            forms.append(None)
            continue
        linear = tuple(tuple(sorted(p[0].items())) for p in parts)
        forms.append((linear, tuple(p[1] for p in parts)))
    return forms
