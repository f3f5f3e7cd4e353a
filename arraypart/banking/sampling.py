"""Cheap refutation of candidates on non-uniform groups, before isl.

A few real iterations P of the group (near the lexicographic ends of its domain)
are evaluated in numpy: the lanes' banks and addresses give each bank's reads (one
per distinct address) and writes.  Irregular lanes may pick any element (DESIGN §1,
as the proof assumes): ``k`` irregular reads add min(k, elements of the bank not yet
read) and every irregular write adds one.  Every load counted is realized by some
cycle, so a load that does not fit refutes the candidate; passing proves nothing
(isl decides).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import expr as E
from ..ir import PortModel
from ..scheme import Banking, index_var
from ..poly import isl_glue as G
from . import islsets as S
from .groups import GroupShape
from .precheck import least_ii

# About this many iterations are sampled near each end of a domain.
SAMPLE_POINTS = 64
# Irregular lanes are only placed when the bank sizes are cheap to count (a bank map
# over the whole array per candidate).
MAX_COUNTED_ELEMENTS = 1 << 16
# The address of a lane that does not run at a sampled P (real addresses are >= 0).
INACTIVE = -1
# Colliding cycles that isl found for earlier candidates, kept per group sample.
MAX_LEARNED_POINTS = 256


@dataclass(frozen=True, eq=False)
class GroupSample:
    """``index[k]``: lane k's index arrays over the sampled P (None: not fully
    regular); ``active[k]``: where lane k runs; ``wild[k]``: lane k is irregular;
    ``learned``: how many of the P are colliding cycles isl found (:func:`with_point`)."""

    shape: GroupShape
    index: tuple[tuple[np.ndarray, ...] | None, ...]
    active: tuple[np.ndarray, ...]
    wild: tuple[bool, ...]
    learned: int = 0


def sample_group(shape: GroupShape) -> GroupSample:
    group = shape.group
    span = max(2, round(SAMPLE_POINTS ** (1 / max(1, len(group.time_vars)))))
    points = S.points_near_extremes(S.plain(group.domain), span)
    grid = np.array(points, dtype=np.int64).reshape(len(points), len(group.time_vars))
    env = {p: grid[:, t] for t, p in enumerate(S.time_names(len(group.time_vars)))}
    index, active, wild = [], [], []
    for k, lane in enumerate(group.accesses):
        inside = set(S.points_near_extremes(S.plain(lane.domain), span))
        active.append(np.array([p in inside for p in points], dtype=bool))
        wild.append(not lane.regular)
        if lane.regular:
            terms = S.lane_terms(lane, group.time_vars, k, ())
            index.append(tuple(np.broadcast_to(E.evaluate(e, env), (len(points),))
                               for e in terms.index))
        else:
            index.append(None)
    return GroupSample(shape, tuple(index), tuple(active), tuple(wild))


def with_point(sample: GroupSample, point: tuple[int, ...]) -> GroupSample:
    """``sample`` with one more P: a cycle where isl found a collision for some
    candidate.  The same coincidences of addresses (``path[i][k]`` and ``path[k][j]``
    at ``i == k``) refute many candidates, which this P then refutes without isl;
    past ``MAX_LEARNED_POINTS`` the sample stays as it is."""
    if sample.learned >= MAX_LEARNED_POINTS:
        return sample
    group = sample.shape.group
    env = {p: np.array([x], dtype=np.int64)
           for p, x in zip(S.time_names(len(point)), point)}
    index, active = [], []
    for k, lane in enumerate(group.accesses):
        inside = not G.fixed(S.plain(lane.domain), point).is_empty()
        active.append(np.append(sample.active[k], inside))
        if sample.index[k] is None:
            index.append(None)
            continue
        terms = S.lane_terms(lane, group.time_vars, k, ())
        index.append(tuple(np.append(old, np.broadcast_to(E.evaluate(e, env), (1,)))
                           for old, e in zip(sample.index[k], terms.index)))
    return GroupSample(sample.shape, tuple(index), tuple(active), sample.wild,
                       sample.learned + 1)


def refuted(sample: GroupSample, banking: Banking, ports: PortModel) -> bool:
    """Some sampled cycle overloads a bank (see module doc)."""
    lanes = sample.shape.lanes
    if not sample.active or not len(sample.active[0]):
        return False
    scheme = banking.scheme
    shape = scheme.shape
    bank_expr = scheme.bank_expr()
    sizes = None
    if any(sample.wild) and scheme.size <= MAX_COUNTED_ELEMENTS:
        sizes = np.bincount(scheme.maps()[0].ravel(), minlength=scheme.banks)
    for copy in range(banking.copies):
        chosen = [k for k, a in enumerate(lanes)
                  if a.kind == "write" or banking.copy_of(a.ref_id, a.lane) == copy]
        reads, writes = _regular_loads(sample, chosen, bank_expr, shape, scheme.banks)
        if sizes is not None:
            wild_reads = sum(sample.active[k] for k in chosen
                             if sample.wild[k] and lanes[k].kind == "read")
            wild_writes = sum(sample.active[k] for k in chosen
                              if sample.wild[k] and lanes[k].kind == "write")
            free = np.maximum(sizes[None, :] - reads, 0)
            reads = reads + np.minimum(np.asarray(wild_reads)[..., None], free)
            writes = writes + np.where(sizes[None, :] > 0,
                                       np.asarray(wild_writes)[..., None], 0)
        target = sample.shape.group.target_ii
        if (least_ii(ports, reads, writes, target) > target).any():
            return True
    return False


def _regular_loads(sample: GroupSample, chosen: list[int], bank_expr: E.Expr,
                   shape: tuple[int, ...], banks: int) -> tuple[np.ndarray, np.ndarray]:
    """Per sampled P and bank: distinct read addresses and writes of regular lanes.

    A read counts where it is the first active lane of its row with its address (the
    lanes' addresses are sorted per row, so this is O(lanes log lanes) per row)."""
    count = len(sample.active[0])
    reads = np.zeros((count, banks), dtype=np.int64)
    writes = np.zeros((count, banks), dtype=np.int64)
    rows = np.arange(count)
    read_addr, read_bank = [], []
    for k in chosen:
        if sample.index[k] is None:
            continue
        idx = sample.index[k]
        bank = np.broadcast_to(E.evaluate(bank_expr, {index_var(d): v for d, v in
                                                      enumerate(idx)}), (count,))
        here = sample.active[k]
        if sample.shape.lanes[k].kind == "write":
            np.add.at(writes, (rows[here], bank[here]), 1)
            continue
        addr = np.ravel_multi_index(idx, shape, mode="clip")
        read_addr.append(np.where(here, addr, INACTIVE))
        read_bank.append(bank)
    if read_addr:
        addr = np.stack(read_addr, axis=1)
        order = np.argsort(addr, axis=1, kind="stable")
        ordered = np.take_along_axis(addr, order, axis=1)
        first = ordered != INACTIVE
        first[:, 1:] &= ordered[:, 1:] != ordered[:, :-1]
        row, col = np.nonzero(first)
        bank = np.take_along_axis(np.stack(read_bank, axis=1), order, axis=1)
        np.add.at(reads, (row, bank[row, col]), 1)
    return reads, writes
