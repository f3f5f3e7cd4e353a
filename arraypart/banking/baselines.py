"""The published banking methods the benchmark compares arraypart against.

Each baseline is a pure function ``(ArrayModel) -> Banking`` computed from the same
concurrent accesses arraypart sees (one :class:`CycleGroup` per pipelined loop), as the
original method would compute it.  None of them looks at irregular references (an
index that may be anything): no published method handles them.  A baseline that finds
nothing conflict-free returns its best attempt; the benchmark measures conflicts itself.

- :func:`vitis_manual`: what an HLS user writes by hand: per dimension, cyclic with
  factor = the span (max - min + 1) of the constant offsets the accesses of one cycle
  have in that dimension; the largest over the loops.
- :func:`scalehls`: ScaleHLS's per-dimension rule (Ye et al., HPCA'22, ``ArrayPartition``
  pass), which ignores ports: with ``n`` distinct indices, ``dmax`` the largest constant
  distance between two of them plus one and ``g`` the gcd of those distances, the
  dimension gets cyclic ``dmax`` if ``n >= dmax``; else cyclic ``dmax`` raised to a
  multiple of ``g`` if ``g > 1``; else block ``n``.  When some distance is not constant
  (a multiplexer is needed) the factor falls back to the largest of 3, 2, 1 dividing it.
  Over several loops the largest factor wins.
- :func:`ltb`: linear-transformation banking (Wang, Li, Zhang, Zhang, Cong, DAC'13):
  ``bank = (alpha·x) mod N``.  Two accesses at constant distance d collide iff
  ``alpha·d ≡ 0 (mod N)``.  N grows from ``ceil(m / port capacity)``; for each N every
  alpha in ``[0, N)^D`` is tried in lexicographic order.
- :func:`gmp`: generalized memory partitioning (Wang, Li, Cong, FPGA'14):
  ``bank = floor(alpha·x / B) mod N`` with multi-port banks, the smallest N, then the
  smallest B in ``[1, MAX_BLOCK]``, then alpha in ``[0, N)^D`` as for LTB.  Whether two
  accesses collide depends on ``alpha·x mod N·B`` of the iteration, so every reachable
  residue is enumerated.

A search that fails up to ``MAX_BANKS`` returns the candidate whose busiest shared
bank serves the fewest accesses (the II it would reach), then with fewest overloads.

LTB and GMP only reason about accesses at a constant distance from each other: the
accesses of one cycle are split into *clusters* of pairwise constant differences, and
pairs from different clusters are not checked (the method's blind spot).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from math import gcd
from typing import Callable

import numpy as np

from .. import expr as E
from ..poly.model import ArrayModel, CycleGroup
from ..scheme import (Banking, DimPartition, Scheme, flat_scheme, none_scheme,
                      per_dim_scheme)

MAX_BANKS = 64  # a method that finds nothing up to 64 banks has failed (its best attempt)
# GMP's block sizes tried for each N: B = 2 already reaches the published optima
# (DENOISE, BICUBIC); every extra B multiplies the residues enumerated by B.
MAX_BLOCK = 4
# ScaleHLS: a partition whose bank cannot be resolved statically is kept to at most
# 3 banks (the multiplexer it needs otherwise breaks the pipeline).
MUX_FACTORS = (3, 2, 1)
# Bank loads are counted in chunks of at most this many (alpha, residue, access) cells.
CHUNK_CELLS = 1 << 21


# ---------------------------------------------------------------- index algebra


def _split(e: E.Expr) -> tuple[tuple[str, ...], tuple[tuple[str, int], ...], int]:
    """``e`` as (non-affine terms, affine coefficients, constant), comparable."""
    form = E.affine_form(e)
    if form is not None:
        return (), tuple(sorted(form[0].items())), form[1]
    if isinstance(e, E.Add):
        others: list[str] = []
        coeffs: dict[str, int] = {}
        constant = 0
        for term in e.terms:
            t_others, t_coeffs, t_const = _split(term)
            others.extend(t_others)
            for v, k in t_coeffs:
                coeffs[v] = coeffs.get(v, 0) + k
            constant += t_const
        return (tuple(sorted(others)), tuple(sorted((v, k) for v, k in coeffs.items() if k)),
                constant)
    return (repr(e),), (), 0


def difference(a: E.Expr, b: E.Expr) -> int | None:
    """``a - b`` when it is the same integer at every iteration, else None."""
    a_others, a_coeffs, a_const = _split(a)
    b_others, b_coeffs, b_const = _split(b)
    if a_others != b_others or a_coeffs != b_coeffs:
        return None
    return a_const - b_const


def _dim_exprs(group: CycleGroup, d: int) -> list[E.Expr]:
    return [a.index[d] for a in group.accesses if a.index[d] is not None]


def _constant_classes(exprs: list[E.Expr]) -> list[list[int]]:
    """The expressions split into classes of constant mutual difference: for each
    class, every member's offset from the class's first member."""
    bases: list[E.Expr] = []
    classes: list[list[int]] = []
    for e in exprs:
        for base, offsets in zip(bases, classes):
            delta = difference(e, base)
            if delta is not None:
                offsets.append(delta)
                break
        else:
            bases.append(e)
            classes.append([0])
    return classes


# ---------------------------------------------------------------- per-dimension methods


def _partition(kind: str, factor: int, size: int) -> DimPartition:
    """A dimension's partition as Vitis applies it: factor >= size is complete."""
    if factor <= 1:
        return DimPartition("none", 1)
    if factor >= size:
        return DimPartition("complete", size)
    return DimPartition(kind, factor)


def _per_dim(model: ArrayModel, parts: list[tuple[str, int]]) -> Banking:
    shape = model.array.shape
    dims = tuple(_partition(kind, f, n) for (kind, f), n in zip(parts, shape))
    return Banking(model.array.name, per_dim_scheme(shape, dims))


def vitis_manual(model: ArrayModel) -> Banking:
    """Per dimension d: cyclic, factor = max over groups and constant-difference classes
    of (max offset - min offset + 1); 1 (none) where the indices never differ."""
    factors = [1] * len(model.array.shape)
    for group in model.groups:
        for d in range(len(factors)):
            for offsets in _constant_classes(_dim_exprs(group, d)):
                factors[d] = max(factors[d], max(offsets) - min(offsets) + 1)
    return _per_dim(model, [("cyclic", f) for f in factors])


def _scalehls_dim(exprs: list[E.Expr]) -> tuple[str, int, bool]:
    """ScaleHLS's (kind, factor, needs a multiplexer) for one dimension of one loop."""
    unique = list(dict.fromkeys(exprs))
    max_distance, common, mux = 0, 0, False
    for a, b in itertools.combinations(unique, 2):
        delta = difference(b, a)
        if delta is None:
            mux = True
            continue
        max_distance = max(max_distance, abs(delta))
        common = gcd(common, abs(delta))
    span = max_distance + 1
    if span == 1:
        return "none", 1, mux
    if len(unique) >= span:
        return "cyclic", span, mux
    if common > 1:
        return "cyclic", -(-span // common) * common, mux
    return "block", len(unique), mux


def scalehls(model: ArrayModel) -> Banking:
    """ScaleHLS's rule (module doc), the largest factor over the loops; ports ignored."""
    parts = [("none", 1) for _ in model.array.shape]
    for group in model.groups:
        for d in range(len(parts)):
            kind, factor, mux = _scalehls_dim(_dim_exprs(group, d))
            if factor > parts[d][1]:
                if mux:
                    factor = next(f for f in MUX_FACTORS if factor % f == 0)
                parts[d] = (kind, factor)
    return _per_dim(model, parts)


# ---------------------------------------------------------------- clusters for LTB / GMP


@dataclass(frozen=True)
class _Cluster:
    """Accesses of one cycle at constant distances from ``base`` (an index vector).

    ``offsets[k]`` is the k-th distinct address minus ``base``; ``reads[k]`` is 1 when it
    is read (reads of one address in one cycle are one access), ``writes[k]`` counts its
    writes (those that are one write, ``CycleGroup.merged_writes``, once).
    ``fits[r, w]``: r reads and w writes fit one bank in the group's II ``ii``.
    """

    base: tuple[E.Expr, ...]
    ii: int
    offsets: np.ndarray
    reads: np.ndarray
    writes: np.ndarray
    fits: np.ndarray


def _clusters(model: ArrayModel) -> list[_Cluster]:
    """Every group's constant-difference clusters of at least two addresses."""
    clusters = []
    for group in model.groups:
        accesses = [a for k, a in enumerate(group.accesses)
                    if a.regular and k not in group.merged_writes]
        members: list[tuple[tuple[E.Expr, ...], dict[tuple[int, ...], list[int]]]] = []
        for a in accesses:
            for base, addresses in members:
                delta = [difference(x, b) for x, b in zip(a.index, base)]
                if None not in delta:
                    break
            else:
                base, addresses = a.index, {}
                members.append((base, addresses))
                delta = [0] * len(base)
            counts = addresses.setdefault(tuple(delta), [0, 0])
            counts[a.kind == "write"] += 1
        for base, addresses in members:
            cluster = _cluster(model, group, base, addresses)
            if cluster is not None:
                clusters.append(cluster)
    return clusters


def _cluster(model: ArrayModel, group: CycleGroup, base: tuple[E.Expr, ...],
             addresses: dict[tuple[int, ...], list[int]]) -> _Cluster | None:
    """The cluster of ``addresses`` (offset -> [reads, writes]); None for one address,
    which no banking can split."""
    ports, ii = model.ports, group.target_ii
    kept = {o: (min(r, 1), w) for o, (r, w) in sorted(addresses.items())}
    if len(kept) < 2:
        return None
    reads = np.array([r for r, _ in kept.values()], dtype=np.int64)
    writes = np.array([w for _, w in kept.values()], dtype=np.int64)
    fits = np.array([[ports.fits(r, w, ii) for w in range(int(writes.sum()) + 1)]
                     for r in range(int(reads.sum()) + 1)], dtype=bool)
    offsets = np.array(list(kept), dtype=np.int64)
    return _Cluster(base, ii, offsets, reads, writes, fits)


def _start_banks(model: ArrayModel, clusters: list[_Cluster]) -> int:
    """ceil(m / port capacity): m distinct addresses of a cluster, capacity over its II."""
    capacity = model.ports.capacity
    if capacity is None:
        return 1
    return max(-(-len(c.offsets) // (capacity * c.ii)) for c in clusters)


# ---------------------------------------------------------------- LTB / GMP search


def _alpha_grid(banks: int, relevant: list[int], rank: int) -> np.ndarray:
    """Every alpha in [0, banks) on the relevant dimensions (0 elsewhere), not all 0,
    lexicographic; one unit vector when banks = 1."""
    if banks == 1:
        grid = np.zeros((1, len(relevant)), dtype=np.int64)
        grid[0, -1] = 1
    else:
        grid = np.indices((banks,) * len(relevant), dtype=np.int64).reshape(
            len(relevant), -1).T[1:]
    full = np.zeros((len(grid), rank), dtype=np.int64)
    full[:, relevant] = grid
    return full


def _reachable(cluster: _Cluster, alphas: np.ndarray, period: int) -> np.ndarray:
    """(alphas, period) mask: residue r of alpha·base mod period occurs.

    alpha·base = sum_v c_v v + c0 over the time variables v, so it takes the residues
    c0 + gcd(period, c_v ...)·t (assuming each v spans a full period); all residues
    when the base is not affine."""
    forms = [E.affine_form(e) for e in cluster.base]
    residues = np.arange(period, dtype=np.int64)
    if any(f is None for f in forms):
        return np.ones((len(alphas), period), dtype=bool)
    names = sorted(set().union(*(f[0] for f in forms)))
    coeffs = np.array([[f[0].get(v, 0) for v in names] for f in forms],
                      dtype=np.int64).reshape(len(forms), len(names))
    constant = alphas @ np.array([f[1] for f in forms], dtype=np.int64)
    step = np.gcd.reduce(np.concatenate(
        [np.full((len(alphas), 1), period, dtype=np.int64), alphas @ coeffs], axis=1), axis=1)
    return (residues[None, :] - constant[:, None]) % step[:, None] == 0


def _overloads(cluster: _Cluster, alphas: np.ndarray, banks: int,
               block: int) -> tuple[np.ndarray, np.ndarray]:
    """Per alpha: the number of (reachable residue, bank) pairs where two or more
    addresses of one cycle share the bank, bank = floor((r + alpha·o) / B) mod N, and
    do not fit its ports; and the most accesses such a shared bank gets.  An address
    alone in its bank is no conflict between accesses (a read and a write of one
    address on a 1-port bank: no banking helps)."""
    if block == 1:
        # (r + alpha·o) mod N: a shift by r permutes the banks, so r = 0 decides.
        residues = np.zeros(1, dtype=np.int64)
        reachable = np.ones((len(alphas), 1), dtype=bool)
    else:
        residues = np.arange(banks * block, dtype=np.int64)
        reachable = _reachable(cluster, alphas, banks * block)
    k, cells = len(cluster.offsets), len(residues) * banks
    step = max(1, CHUNK_CELLS // (len(residues) * k))
    count = np.empty(len(alphas), dtype=np.int64)
    worst = np.empty(len(alphas), dtype=np.int64)
    for lo in range(0, len(alphas), step):
        chunk = alphas[lo:lo + step]
        linear = chunk @ cluster.offsets.T
        bank = ((residues[None, :, None] + linear[:, None, :]) // block) % banks
        slot = (np.arange(len(chunk))[:, None, None] * len(residues)
                + np.arange(len(residues))[None, :, None]) * banks + bank
        size = len(chunk) * cells
        occupancy = np.bincount(slot.ravel(), minlength=size)
        reads = np.bincount(slot.ravel(), np.broadcast_to(cluster.reads, bank.shape).ravel(),
                            size).astype(np.int64)
        writes = np.bincount(slot.ravel(), np.broadcast_to(cluster.writes, bank.shape).ravel(),
                             size).astype(np.int64)
        shape = (len(chunk), len(residues), banks)
        shared = (occupancy >= 2).reshape(shape) & reachable[lo:lo + step, :, None]
        bad = ~cluster.fits[reads, writes].reshape(shape) & shared
        count[lo:lo + step] = bad.sum(axis=(1, 2))
        worst[lo:lo + step] = np.where(shared, (reads + writes).reshape(shape), 0).max(
            axis=(1, 2))
    return count, worst


@dataclass(frozen=True)
class _Candidate:
    """bank = floor(alpha·x / block) mod banks; its (residue, bank) overloads and the
    most accesses a shared bank gets (what a failed attempt minimizes first)."""

    worst: int
    overloads: int
    banks: int
    block: int
    alpha: tuple[int, ...]

    def scheme(self, shape: tuple[int, ...]) -> Scheme:
        return flat_scheme(shape, self.alpha, self.banks, self.block)


def _flat_search(model: ArrayModel, blocks: range) -> Banking:
    """The smallest N, then B in ``blocks``, then the first alpha, under which no
    cluster overloads a bank; else the candidate whose busiest shared bank is least
    busy, then with the fewest overloads."""
    array = model.array
    clusters = _clusters(model)
    relevant = sorted({d for c in clusters for d in np.flatnonzero(c.offsets.any(axis=0))})
    if not relevant:
        return Banking(array.name, none_scheme(array.shape))
    start = _start_banks(model, clusters)
    if start > MAX_BANKS:
        # Beyond the limit the method has failed whatever it tries: one cheap attempt.
        start, blocks = MAX_BANKS, range(1, 2)
    best: _Candidate | None = None
    for banks in range(start, MAX_BANKS + 1):
        alphas = _alpha_grid(banks, relevant, len(array.shape))
        for block in blocks:
            results = [_overloads(c, alphas, banks, block) for c in clusters]
            overloads = np.sum([count for count, _ in results], axis=0)
            worst = np.max([w for _, w in results], axis=0)
            free = np.flatnonzero(overloads == 0)
            pick = int(free[0]) if len(free) else int(np.lexsort((overloads, worst))[0])
            found = _Candidate(int(worst[pick]), int(overloads[pick]), banks, block,
                               tuple(int(a) for a in alphas[pick]))
            if found.overloads == 0:
                return Banking(array.name, found.scheme(array.shape))
            if best is None or (found.worst, found.overloads) < (best.worst, best.overloads):
                best = found
    return Banking(array.name, best.scheme(array.shape))


def ltb(model: ArrayModel) -> Banking:
    """Linear-transformation banking: bank = (alpha·x) mod N (module doc)."""
    return _flat_search(model, range(1, 2))


def gmp(model: ArrayModel) -> Banking:
    """Block-cyclic banking: bank = floor(alpha·x / B) mod N, B in [1, MAX_BLOCK]."""
    return _flat_search(model, range(1, MAX_BLOCK + 1))


BASELINES: dict[str, Callable[[ArrayModel], Banking]] = {
    "vitis_manual": vitis_manual,
    "scalehls": scalehls,
    "ltb": ltb,
    "gmp": gmp,
}
