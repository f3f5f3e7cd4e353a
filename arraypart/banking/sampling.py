"""Cheap refutation of candidates on non-uniform groups, before isl.

A few real iterations P of the group (near the lexicographic ends of its domain)
are evaluated in numpy: the lanes' banks and addresses give each bank's reads (one
per distinct address of one epoch, ``LaneAccess.epoch``) and writes.  A lane with an irregular dimension is taken as
the proof takes it (:func:`.islsets.lane_terms`): when the bank formula reads none of
its irregular dimensions it stays in the bank of its regular ones, as an access of
its own (an address no other lane shares); otherwise it may pick any element
(DESIGN §1): ``k`` such reads add min(k, elements of the bank not yet read) and every
such write adds one.  Every load counted is realized by some cycle, so a load that
does not fit refutes the candidate; passing proves nothing (isl decides).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod
from typing import Iterator

import numpy as np

from .. import expr as E
from ..ir import PortModel
from ..scheme import Banking, index_var
from ..poly import isl_glue as G
from ..poly.model import CycleGroup
from . import islsets as S
from .groups import GroupShape
from .space import lane_agrees, sub_arrays
from .precheck import least_ii, overloaded

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
    """``index[k][d]``: lane k's index array in dimension d over the sampled P (None:
    irregular there); ``active[k]``: where lane k runs (never, for a write that is
    one write with an earlier one, which runs for it: :func:`_one_write`);
    ``learned``: how many of the P are colliding cycles isl found
    (:func:`with_point`); ``grid[d]``: every lane's index in dimension d (lanes x P,
    0 where irregular) and ``running``: the ``active`` rows stacked (lanes x P), for
    many lanes at once (:func:`_group_sample` makes both)."""

    shape: GroupShape
    index: tuple[tuple[np.ndarray | None, ...], ...]
    active: tuple[np.ndarray, ...]
    learned: int
    grid: tuple[np.ndarray, ...]
    running: np.ndarray


def _group_sample(shape: GroupShape, index: list, active: tuple[np.ndarray, ...],
                  learned: int = 0) -> GroupSample:
    count = len(active[0]) if active else 0
    grid = tuple(np.array([np.zeros(count, np.int64) if idx[d] is None
                           else np.broadcast_to(idx[d], (count,)) for idx in index],
                          np.int64).reshape(len(index), count)
                 for d in range(len(index[0]) if index else 0))
    running = np.array(active, bool).reshape(len(index), count)
    return GroupSample(shape, tuple(index), active, learned, grid, running)


def sample_group(shape: GroupShape) -> GroupSample:
    group = shape.group
    spans = sample_spans(len(group.time_vars))
    domain = S.plain(group.domain)
    points = S.points_near_extremes(domain, spans)
    grid = np.array(points, dtype=np.int64).reshape(len(points), len(group.time_vars))
    env = {p: grid[:, t] for t, p in enumerate(S.time_names(len(group.time_vars)))}
    index, active = [], []
    # by domain: lanes mostly share a few, most often the group's own
    near: dict[str, frozenset] = {str(domain): frozenset(points)}
    for lane in group.accesses:
        domain = S.plain(lane.domain)
        key = str(domain)
        if key not in near:
            near[key] = frozenset(S.points_near_extremes(domain, spans))
        active.append(np.array([p in near[key] for p in points], dtype=bool))
        index.append(_evaluated(lane, group.time_vars, env, len(points)))
    return _group_sample(shape, index, _one_write(group, active))


def _one_write(group: CycleGroup, active: list[np.ndarray]) -> tuple[np.ndarray, ...]:
    """``active`` with each write that is one write with an earlier one
    (``CycleGroup.merged_writes``) never active, its first write active wherever
    one of them runs: every load counts it once."""
    for k, first in group.merged_writes.items():
        active[first] = active[first] | active[k]
        active[k] = np.zeros_like(active[k])
    return tuple(active)


def sample_spans(depth: int) -> tuple[int, ...]:
    """The box sides per time dimension: the innermost v = min(depth, log2
    SAMPLE_POINTS) dimensions vary over s = max(2, round(SAMPLE_POINTS^(1/v))) values
    each, the outer ones stay at the corner, so a box holds at most about
    SAMPLE_POINTS points however deep the nest (2^depth before)."""
    varied = min(depth, SAMPLE_POINTS.bit_length() - 1)
    side = max(2, round(SAMPLE_POINTS ** (1 / max(1, varied))))
    return (1,) * (depth - varied) + (side,) * varied


def _evaluated(lane, time_vars, env, count: int) -> tuple[np.ndarray | None, ...]:
    """The lane's index arrays at the points of ``env`` (None where irregular)."""
    rename = {v: E.var(p) for v, p in zip(time_vars, S.time_names(len(time_vars)))}
    return tuple(None if e is None else
                 np.broadcast_to(E.evaluate(E.substitute(e, rename), env), (count,))
                 for e in lane.index)


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
        added = _evaluated(lane, group.time_vars, env, 1)
        index.append(tuple(None if old is None else np.append(old, new)
                           for old, new in zip(sample.index[k], added)))
    return _group_sample(sample.shape, index, _one_write(group, active),
                         sample.learned + 1)


def refuted(sample: GroupSample, banking: Banking, ports: PortModel) -> bool:
    """Some sampled cycle overloads a bank (see module doc)."""
    lanes = sample.shape.lanes
    if not sample.active or not len(sample.active[0]):
        return False
    scheme = banking.scheme
    bank_dims = scheme.bank_dims()
    wild = [any(sample.index[k][d] is None for d in bank_dims) for k in range(len(lanes))]
    bank = _bank_rows(sample, scheme)
    sizes = None
    if any(wild) and scheme.size <= MAX_COUNTED_ELEMENTS:
        sizes = np.bincount(scheme.maps()[0].ravel(), minlength=scheme.banks)
    for copy in range(banking.copies):
        chosen = [k for k, a in enumerate(lanes)
                  if a.kind == "write" or banking.copy_of(a.ref_id, a.copy_lane) == copy]
        regular = [k for k in chosen if not wild[k]]
        reads, writes = _regular_loads(sample, regular, bank[regular], scheme.shape,
                                       scheme.banks)
        if sizes is not None:
            wild_reads = sum(sample.active[k] for k in chosen
                             if wild[k] and lanes[k].kind == "read")
            wild_writes = sum(sample.active[k] for k in chosen
                              if wild[k] and lanes[k].kind == "write")
            free = np.maximum(sizes[None, :] - reads, 0)
            reads = reads + np.minimum(np.asarray(wild_reads)[..., None], free)
            writes = writes + np.where(sizes[None, :] > 0,
                                       np.asarray(wild_writes)[..., None], 0)
        target = sample.shape.group.target_ii
        if overloaded(ports, reads, writes, target):
            return True
    return False


def sampled_rule_ii(sample: GroupSample, banking: Banking, ports: PortModel) -> int:
    """The II the scheduling rule leaves a ``direct`` group, whose references the
    emission keeps as written (DESIGN §2), in its sampled cycles: a lane whose bank
    differs between them (or whose formula reads an irregular dimension) takes a port
    of every bank, the others a port of their own bank, so bank b serves its constant
    lanes' distinct reads and writes plus every varying lane's (as
    :func:`.space.every_lane_ii` counts a uniform group whose lanes all rotate), a
    varying lane only of the banks of its sub-array (:func:`.space.sub_arrays`).
    Registers take no port.  A constant bank over the samples proves nothing (the
    group's target): the emitted code's schedule decides (:mod:`arraypart.check`)."""
    target = sample.shape.group.target_ii
    return max([target] + [int(least_ii(ports, reads, writes, target).max(initial=target))
                           for reads, writes in _rule_loads(sample, banking)
                           if overloaded(ports, reads, writes, target)])


def sampled_rule_missed(sample: GroupSample, banking: Banking, ports: PortModel) -> bool:
    """:func:`sampled_rule_ii` is above the group's target: some bank's load does not
    fit there (fitting is monotone in II), found without the least II's search and
    at the first such sub-array."""
    target = sample.shape.group.target_ii
    return any(overloaded(ports, reads, writes, target)
               for reads, writes in _rule_loads(sample, banking))


def _rule_loads(sample: GroupSample, banking: Banking
                ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Per sub-array with a lane whose bank varies, the (P x banks) distinct reads and
    writes the scheduling rule gives each bank (:func:`sampled_rule_ii`), lazily."""
    scheme = banking.scheme
    if scheme.registers or scheme.banks == 1 or not len(sample.active[0]):
        return
    bank = _bank_rows(sample, scheme)
    varies = _banks_vary(sample, scheme, bank)
    if not varies.any():
        return
    for lanes in sub_arrays(scheme, sample.shape):
        varying = [k for k in lanes if varies[k]]
        if not varying:
            continue
        constant = [k for k in lanes if not varies[k]]
        reads, writes = _regular_loads(sample, constant, bank[constant], scheme.shape,
                                       scheme.banks)
        every_reads, every_writes = _regular_loads(sample, varying, 0 * bank[varying],
                                                   scheme.shape, 1)
        yield reads + every_reads, writes + every_writes


def routed_ii(sample: GroupSample, banking: Banking, ports: PortModel) -> int:
    """The II the scheduling rule leaves a group whose lanes the emission routes
    (:mod:`arraypart.codegen.bankcentric`), in its sampled cycles: each bank gets as
    many read sites as the most distinct reads, and as many write sites as the most
    writes, any bank takes in one cycle, and every site issues in every iteration, so
    the two maxima add up even where no cycle meets both (``m[i] = f(m[i - 2]) +
    m[i - 7] + ...`` under cyclic 3: a bank takes two reads, or a read and the write,
    yet holds 2 + 1 sites).  Its target when no lane changes bank (nothing is routed),
    with read copies (the emission routes within one copy only) or an irregular lane
    (whose references stay as written: :func:`sampled_rule_ii` prices them)."""
    scheme = banking.scheme
    target = sample.shape.group.target_ii
    if (scheme.registers or scheme.banks == 1 or banking.copies > 1
            or not len(sample.active[0])
            or any(v is None for idx in sample.index for v in idx)):
        return target
    bank = _bank_rows(sample, scheme)
    if not _banks_vary(sample, scheme, bank).any():
        return target
    reads, writes = _regular_loads(sample, list(range(len(sample.shape.lanes))), bank,
                                   scheme.shape, scheme.banks)
    return int(least_ii(ports, reads.max(initial=0), writes.max(initial=0), target))


def _bank_rows(sample: GroupSample, scheme) -> np.ndarray:
    """Every lane's bank at the sampled P (lanes x P), all evaluated at once; a lane
    irregular in a bank dimension gets the bank of index 0 there, which nothing
    reads."""
    env = {index_var(d): sample.grid[d] for d in scheme.bank_dims()}
    return np.broadcast_to(E.evaluate(scheme.bank_expr(), env), sample.running.shape)


def _banks_vary(sample: GroupSample, scheme, bank: np.ndarray) -> np.ndarray:
    """Per lane, whether its bank (``bank``: :func:`_bank_rows`) is not one value over
    the sampled cycles where it runs (a lane irregular in a bank dimension, or whose
    bank differs between the instances of its loop: always)."""
    dims = scheme.bank_dims()
    varies = np.array([any(sample.index[k][d] is None for d in dims)
                       or not lane_agrees(scheme, lane)
                       for k, lane in enumerate(sample.shape.lanes)], dtype=bool)
    regular = np.flatnonzero(~varies)
    here = sample.running[regular]
    mine = bank[regular]
    first = mine[np.arange(len(regular)), here.argmax(axis=1)]
    varies[regular] = ((mine != first[:, None]) & here).any(axis=1)
    return varies


def _regular_loads(sample: GroupSample, chosen: list[int], bank: np.ndarray,
                   shape: tuple[int, ...], banks: int) -> tuple[np.ndarray, np.ndarray]:
    """Per sampled P and bank: distinct read addresses and writes of the ``chosen``
    lanes, whose banks over the P are the rows of ``bank``.

    A read counts once per distinct (P, address) where its lane runs (lanes that read
    one address read one bank), an address of each epoch (``LaneAccess.epoch``) its
    own; a lane with an irregular dimension has an address of its own,
    ``INACTIVE - 1 - k``."""
    count = len(sample.active[0])
    reads = np.zeros((count, banks), dtype=np.int64)
    writes = np.zeros((count, banks), dtype=np.int64)
    lanes = sample.shape.lanes
    chosen = np.array(chosen, np.int64)
    here = sample.running[chosen]
    write = np.array([lanes[k].kind == "write" for k in chosen], bool)
    lane, p = np.nonzero(here[write])
    np.add.at(writes, (p, bank[write][lane, p]), 1)
    mine = chosen[~write]
    if len(mine):
        own = np.array([any(v is None for v in sample.index[k]) for k in mine], bool)
        epoch = np.array([lanes[k].epoch for k in mine], np.int64)
        addr = (np.ravel_multi_index(tuple(g[mine] for g in sample.grid), shape, mode="clip")
                + epoch[:, None] * prod(shape))
        addr = np.where(own[:, None], (INACTIVE - 1 - mine)[:, None], addr)
        lane, p = np.nonzero(here[~write])
        _, first = np.unique(row_ids(np.stack([p, addr[lane, p]], axis=1)),
                             return_index=True)
        lane, p = lane[first], p[first]
        np.add.at(reads, (p, bank[~write][lane, p]), 1)
    return reads, writes


def shared_banks_overloaded(sample: GroupSample, chosen: list[int],
                            bank_dims: frozenset[int], ports: PortModel,
                            array_shape: tuple[int, ...]) -> bool:
    """Some sampled cycle overloads a bank under every banking whose bank formula
    reads only ``bank_dims``, serving the ``chosen`` lanes.

    Lanes regular in those dimensions whose coordinates there agree at P share a
    bank, whatever the formula makes of the coordinates; reads count once per
    distinct address (a lane irregular in another dimension is an address of its
    own), writes each.  That bank holds every element that agrees with them on
    ``bank_dims``, F = prod(array_shape[d], d not in bank_dims) at least, so the
    ``k`` reads of lanes irregular in a bank dimension (they may hit any element,
    :func:`.islsets.lane_terms`) add min(k, F - reads) and their writes add one
    each: every load counted is realized."""
    lanes = sample.shape.lanes
    wild = [k for k in chosen if any(sample.index[k][d] is None for d in bank_dims)]
    placed = [k for k in chosen if k not in wild]
    if not placed or len(placed) + len(wild) < 2:
        return False
    dims, count = sorted(bank_dims), len(sample.active[0])
    fiber = prod(n for d, n in enumerate(array_shape) if d not in bank_dims)
    wild_reads, wild_writes = (
        sum((sample.active[k].astype(np.int64) for k in wild if lanes[k].kind == kind),
            np.zeros(count, np.int64)) for kind in ("read", "write"))
    reads, writes = _placed_accesses(sample, placed, dims)
    # the (P, bank coordinates) cells, with each one's distinct reads and its writes
    both = np.concatenate([reads, writes])
    _, first, inverse = np.unique(row_ids(both), return_index=True, return_inverse=True)
    read_count = np.bincount(inverse[:len(reads)], minlength=len(first))
    write_count = np.bincount(inverse[len(reads):], minlength=len(first))
    p = both[first, 0]
    load = read_count + np.minimum(wild_reads[p], np.maximum(0, fiber - read_count))
    target = sample.shape.group.target_ii
    return overloaded(ports, load, write_count + wild_writes[p], target)


def _placed_accesses(sample: GroupSample, placed: list[int], dims: list[int]
                     ) -> tuple[np.ndarray, np.ndarray]:
    """The accesses of the ``placed`` lanes at the sampled P where they run, as rows
    ``(P, index in dims...)``: one per distinct read and one per write.  A read is
    the element's index in its epoch (``LaneAccess.epoch``); a lane irregular in some
    dimension reads an address of its own at each P.  All lanes at once, from the
    sample's grid."""
    lanes = sample.shape.lanes
    chosen = np.array(placed, np.int64)
    row, p = np.nonzero(sample.running[chosen])
    k = chosen[row]
    cells = np.stack([p] + [sample.grid[d][k, p] for d in dims], axis=1)
    write = np.array([lanes[j].kind == "write" for j in placed], bool)[row]
    # a read's identity: (P, tag, element index); tag -epoch, or k + 1 for a lane
    # irregular somewhere, whose index columns are then 0
    own = np.array([any(v is None for v in sample.index[j]) for j in placed], bool)[row]
    tag = np.where(own, k + 1,
                   -np.array([lanes[j].epoch for j in placed], np.int64)[row])
    identity = np.stack([p, tag] + [np.where(own, 0, column[k, p])
                                    for column in sample.grid], axis=1)[~write]
    _, distinct = np.unique(row_ids(identity), return_index=True)
    return cells[~write][distinct], cells[write]


def row_ids(rows: np.ndarray) -> np.ndarray:
    """Per row of the integer matrix ``rows``, an int64 equal for equal rows only: the
    columns shifted to start at 0 and read as the digits of a mixed-radix number, the
    digits so far renumbered densely (``np.unique``) where the next radix would take
    the number past 2^62.  Sorting these is far cheaper than ``np.unique(axis=0)``'s
    sort of byte rows (most of the pre-check's time on samples)."""
    ids, bound = np.zeros(len(rows), np.int64), 1
    if not len(rows):
        return ids
    for column in rows.T:
        low = int(column.min())
        span = int(column.max()) - low + 1
        if bound * span >= 1 << 62:
            distinct, ids = np.unique(ids, return_inverse=True)
            ids, bound = ids.reshape(-1), len(distinct)
        ids = ids * span + (column.astype(np.int64) - low)
        bound *= span
    return ids
