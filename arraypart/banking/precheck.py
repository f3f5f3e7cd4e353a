"""Exact residue pre-check of uniform groups, in numpy, without isl.

In a uniform group lane k accesses ``x_k = x + d_k`` with a common base ``x = L·P``.
Whether two lanes share a bank depends only on a residue of the base:

    flat:        bank_k = floor((r + alpha·d_k) / B) mod N,   r = alpha·x mod N*B
                 (r is a multiple of g = gcd(alpha, N*B): only those residues count)
    cyclic f:    bank_k,d = (r_d + d_k,d) mod f,              r_d = x_d mod f
    block s:     bank_k,d = q + floor((r_d + d_k,d) / s),     r_d = x_d mod s
                 (q common; the relative bank only changes at r_d = -d_k,d mod s)
    complete:    bank_k,d = x_d + d_k,d                       (one residue)

Residues that differ by a rotation of the banks give every bank the same load, so
one residue per class is enough: cyclic needs r_d = 0 alone, and flat needs
t = r mod B alone (r = q*B + t gives floor((r + s)/B) = q + floor((t + s)/B), the
banks at t rotated by q), with t a multiple of gcd(g, B) (the t that some multiple
r of g reaches): B residues per candidate instead of N*B.

Taking every residue as reachable over-approximates the cycles (and so does taking
every lane as active), so a candidate that passes here is conflict-free; one that
fails may still be fine on a small domain, which only costs optimality.  Per residue
and bank, reads of one offset in one epoch (``LaneAccess.epoch``: no write of the
array that may alias them between) are one access and every write counts; the loads are
counted per (residue, bank) bucket, so a candidate costs O(residues x (lanes + banks)),
linear in the accesses.
"""

from __future__ import annotations

import itertools
from math import prod
from typing import Callable

import numpy as np

from ..ir import PortModel
from ..scheme import Scheme

INFEASIBLE_II = 1 << 30  # "no II fits" (a write to a read-only bank)
# Candidates x residues x (lanes + banks) evaluated at once: bounds the int64
# temporaries to a few tens of MB.
ELEMENT_BUDGET = 1 << 22

# Residue rows x lanes up to which a per_dim candidate is tallied in plain Python
# (:func:`_tallied_ii`): below it numpy's fixed cost per call is the larger one.
PYTHON_TALLY = 4096

LaneSet = tuple[np.ndarray, np.ndarray]  # (offsets: lanes x dims, is_write: lanes)


def lane_set(offsets: np.ndarray, is_write: np.ndarray, epochs: np.ndarray) -> LaneSet:
    """The accesses one copy's banks serve: distinct read offsets of each epoch
    (``epochs``, per lane) plus every write."""
    distinct = sorted({(epoch, *row) for row, epoch in zip(offsets[~is_write].tolist(),
                                                           epochs[~is_write].tolist())})
    reads = np.array([row[1:] for row in distinct], dtype=np.int64).reshape(
        len(distinct), offsets.shape[1])
    writes = offsets[is_write]
    both = np.concatenate([reads, writes]).reshape(-1, offsets.shape[1])
    kinds = np.concatenate([np.zeros(len(reads), bool), np.ones(len(writes), bool)])
    return both, kinds


def least_ii(ports: PortModel, reads: np.ndarray, writes: np.ndarray,
             target: int) -> np.ndarray:
    """The least II >= target at which one bank serves ``reads`` and ``writes``
    (elementwise), ``INFEASIBLE_II`` when none does (a write to a read-only bank).

    ``PortModel.fits`` is monotone in II and II = target + reads + writes fits any
    bank that can serve each kind, so a vectorized binary search over
    [target, target + reads + writes] finds it in log2(lanes) numpy passes."""
    reads, writes = np.asarray(reads, np.int64), np.asarray(writes, np.int64)
    low = np.full(np.broadcast(reads, writes).shape, target, dtype=np.int64)
    high = low + reads + writes
    feasible = _fits(ports, reads, writes, high)
    while True:
        pending = low < high
        if not pending.any():
            break
        middle = (low + high) // 2
        ok = _fits(ports, reads, writes, middle)
        high = np.where(pending & ok, middle, high)
        low = np.where(pending & ~ok, middle + 1, low)
    return np.where(feasible, low, INFEASIBLE_II)


def overloaded(ports: PortModel, reads: np.ndarray, writes: np.ndarray,
               target: int) -> bool:
    """Some bank of ``reads`` and ``writes`` (elementwise) does not fit at ``target``:
    :func:`least_ii` is above it there (fitting is monotone in II), without its
    search."""
    reads, writes = np.asarray(reads, np.int64), np.asarray(writes, np.int64)
    return not _fits(ports, reads, writes, np.int64(target)).all()


def _fits(ports: PortModel, reads: np.ndarray, writes: np.ndarray,
          ii: np.ndarray) -> np.ndarray:
    """``PortModel.fits`` elementwise (same formula, see ir.PortModel)."""
    extra_writes = np.maximum(0, writes - ii * ports.write_only)
    if ports.read_only is None:
        used = extra_writes
    else:
        used = extra_writes + np.maximum(0, reads - ii * ports.read_only)
    ok = used <= ii * ports.read_write
    return ok & (writes == 0) if not ports.writable else ok


def _bank_loads_ii(ports: PortModel, banks: np.ndarray, is_write: np.ndarray,
                   weight: np.ndarray, nbanks: int, target: int) -> np.ndarray:
    """The least II at which every bank fits, per row: ``banks[row, k]`` is the bank
    (in [0, nbanks)) lane k hits, ``weight[row]`` 0 drops a row (an unreachable residue).

    Counting, not pairwise tables: each (row, bank) bucket's reads and writes are
    summed with one ``bincount`` over rows x lanes, so a row costs O(lanes + nbanks)."""
    rows = len(banks)
    size = rows * nbanks
    slot = np.arange(rows, dtype=np.int64)[:, None] * nbanks + banks
    slot = np.where(weight.astype(bool)[:, None], slot, size)
    reads = np.bincount(_columns(slot, ~is_write), minlength=size + 1)[:size]
    writes = np.bincount(_columns(slot, is_write), minlength=size + 1)[:size]
    needed = np.full(size, target, dtype=np.int64)
    busy = np.flatnonzero((reads + writes > 1) | ((writes > 0) & (not ports.writable)))
    over = busy[~_fits(ports, reads[busy], writes[busy], np.int64(target))]
    if len(over):
        needed[over] = least_ii(ports, reads[over], writes[over], target)
    return needed.reshape(rows, nbanks).max(1)


def _columns(table: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The columns of ``table`` that ``mask`` selects, flattened (``np.take`` by
    position: many times faster than a boolean index on a wide table)."""
    return np.take(table, np.flatnonzero(mask), axis=1).ravel()


def flat_ii(lane_sets: list[LaneSet], alphas: np.ndarray, banks: int, block: int,
            ports: PortModel, target: int, *,
            tick: Callable[[], None] = lambda: None) -> np.ndarray:
    """Least II per row of ``alphas`` (candidates x dims) for bank = floor(alpha·x/B)
    mod N, over every copy's lane set.  ``tick()`` is called before each chunk (the
    caller's clock check: it may raise to stop a long batch)."""
    modulus = banks * block
    residues = np.arange(block, dtype=np.int64)
    worst = np.full(len(alphas), target, dtype=np.int64)
    for offsets, is_write in lane_sets:
        if len(offsets) < 2 and not is_write.any():
            continue
        rows = max(1, ELEMENT_BUDGET // (block * (len(offsets) + banks)))
        for lo in range(0, len(alphas), rows):
            tick()
            part = alphas[lo:lo + rows]
            step = np.gcd.reduce(np.concatenate(
                [part, np.full((len(part), 1), modulus)], axis=1), axis=1)
            reachable = residues[None, :] % np.gcd(step, block)[:, None] == 0
            shift = part @ offsets.T
            bank = ((residues[None, :, None] + shift[:, None, :]) // block) % banks
            needed = _bank_loads_ii(ports, bank.reshape(-1, len(offsets)), is_write,
                                    reachable.ravel(), banks, target)
            worst[lo:lo + rows] = np.maximum(worst[lo:lo + rows],
                                             needed.reshape(len(part), block).max(1))
    return worst


def flat_fits_at_zero(lane_sets: list[LaneSet], alphas: np.ndarray, banks: int, block: int,
                     ports: PortModel, target: int, *,
                     tick: Callable[[], None] = lambda: None) -> np.ndarray:
    """Per row of ``alphas``: whether bank = floor(alpha·x/B) mod N serves every copy's
    lane set at the ``target`` II at the residue t = 0 alone (always reachable).  A
    necessary condition of :func:`flat_ii` returning ``target``, B times cheaper, and
    without its search for the least II of each bank."""
    fits = np.ones(len(alphas), dtype=bool)
    for offsets, is_write in lane_sets:
        if len(offsets) < 2 and not is_write.any():
            continue
        rows = max(1, ELEMENT_BUDGET // (len(offsets) + banks))
        for lo in range(0, len(alphas), rows):
            tick()
            bank = (alphas[lo:lo + rows] @ offsets.T // block) % banks
            fits[lo:lo + rows] &= _banks_fit(ports, bank, is_write, banks, target)
    return fits


def _banks_fit(ports: PortModel, banks: np.ndarray, is_write: np.ndarray, nbanks: int,
               target: int) -> np.ndarray:
    """Per row of ``banks`` (as :func:`_bank_loads_ii` takes them, every row reachable):
    whether every bank fits at ``target`` (:func:`_bank_loads_ii`'s value is
    ``target``)."""
    rows = len(banks)
    size = rows * nbanks
    slot = np.arange(rows, dtype=np.int64)[:, None] * nbanks + banks
    reads = np.bincount(_columns(slot, ~is_write), minlength=size)
    writes = np.bincount(_columns(slot, is_write), minlength=size)
    table = _fit_table(ports, int(reads.max(initial=0)), int(writes.max(initial=0)), target)
    return table[reads, writes].reshape(rows, nbanks).all(1)


def _fit_table(ports: PortModel, most_reads: int, most_writes: int,
               target: int) -> np.ndarray:
    """``fit[r, w]``: whether a bank with r reads and w writes fits at ``target`` as
    :func:`_bank_loads_ii` decides it (one access alone, not a write to a read-only
    bank, always does); looked up per bank rather than computed per bank."""
    reads = np.arange(most_reads + 1, dtype=np.int64)[:, None]
    writes = np.arange(most_writes + 1, dtype=np.int64)[None, :]
    busy = (reads + writes > 1) | ((writes > 0) & (not ports.writable))
    return ~busy | _fits(ports, reads, writes, np.int64(target))


def per_dim_ii(lane_sets: list[LaneSet], scheme: Scheme, ports: PortModel,
               target: int) -> int:
    """Least II of a per_dim (or none) scheme over every copy's lane set: the residue
    combinations of the dimensions are the rows, a lane's bank the mixed-radix index
    of its relative per-dimension banks (:func:`_relative_banks`)."""
    worst = target
    parts = _parts(scheme, len(scheme.shape))
    for offsets, is_write in lane_sets:
        if len(offsets) < 2 and not is_write.any():
            continue
        residues = [_residues(part, scheme.shape[d], offsets[:, d])
                    for d, part in enumerate(parts)]
        if prod(map(len, residues)) * len(offsets) <= PYTHON_TALLY:
            worst = max(worst, _tallied_ii(offsets, is_write, scheme, residues, ports,
                                           target))
            continue
        bank = np.zeros((1, len(offsets)), dtype=np.int64)
        for d, part in enumerate(parts):
            rel = _relative_banks(part, scheme.shape[d], offsets[:, d])
            rel = rel - rel.min()
            width = int(rel.max()) + 1
            bank = (bank[:, None, :] * width + rel[None, :, :]).reshape(-1, len(offsets))
        _, inverse = np.unique(bank, return_inverse=True)
        bank = inverse.reshape(bank.shape)
        nbanks = int(bank.max()) + 1
        needed = _bank_loads_ii(ports, bank, is_write, np.ones(len(bank), bool), nbanks,
                                target)
        worst = max(worst, int(needed.max()))
    return worst


def _residues(part: tuple[str, int], size: int, d: np.ndarray) -> list[int]:
    """The residues of one dimension's base that :func:`_relative_banks` uses."""
    kind, factor = part
    if kind != "block":
        return [0]
    span = -(-size // factor)
    return sorted({0} | set(((-d) % span).tolist()))


def _tallied_ii(offsets: np.ndarray, is_write: np.ndarray, scheme: Scheme,
                residues: list[list[int]], ports: PortModel, target: int) -> int:
    """:func:`per_dim_ii` of one lane set counted in plain Python, for small sets
    (numpy's per-call cost dominates there): at each combination of the dimensions'
    residues a lane's bank is the tuple of its per-dimension banks (none 0, cyclic
    d mod f, complete d, block floor((r + d) / s)), each bank's reads and writes are
    tallied, and the least II of the fullest bank is the answer, as
    :func:`_bank_loads_ii` finds it."""
    parts = [(kind, -(-size // factor) if kind == "block" else factor)
             for (kind, factor), size in zip(_parts(scheme, len(scheme.shape)), scheme.shape)]
    rows = list(zip(offsets.tolist(), is_write.tolist()))
    worst = target
    for base in itertools.product(*residues):
        loads: dict[tuple[int, ...], list[int]] = {}
        for row, write in rows:
            bank = tuple(0 if kind == "none" else x % factor if kind == "cyclic"
                         else x if kind == "complete" else (r + x) // factor
                         for (kind, factor), r, x in zip(parts, base, row))
            loads.setdefault(bank, [0, 0])[write] += 1
        worst = max([worst] + [_least_ii_one(ports, reads, writes, target)
                               for reads, writes in loads.values()])
    return worst


def _least_ii_one(ports: PortModel, reads: int, writes: int, target: int) -> int:
    """:func:`least_ii` of one bank, with :func:`_bank_loads_ii`'s rule that a bank
    with one access and no write to a read-only bank fits at the target."""
    if reads + writes <= 1 and (not writes or ports.writable):
        return target
    return next((ii for ii in range(target, target + reads + writes + 1)
                 if ports.fits(reads, writes, ii)), INFEASIBLE_II)


def _parts(scheme: Scheme, ndims: int) -> list[tuple[str, int]]:
    if scheme.kind == "none":
        return [("none", 1)] * ndims
    return [(p.type, p.factor) for p in scheme.dims]


def _relative_banks(part: tuple[str, int], size: int, d: np.ndarray) -> np.ndarray:
    """Residues x lanes: the bank in one dimension, up to a relabelling of the banks
    common to all lanes.  Cyclic f needs one residue: at residue r the banks are
    (r + d) mod f, a rotation of the banks at r = 0, so every bank's load is the
    same; block needs the residues where some lane crosses a block edge."""
    kind, factor = part
    if kind == "none":
        return np.zeros((1, len(d)), dtype=np.int64)
    if kind == "complete":
        return d[None, :]
    if kind == "cyclic":
        return (d % factor)[None, :]
    span = -(-size // factor)
    starts = np.unique(np.concatenate([[0], (-d) % span]))
    return (starts[:, None] + d[None, :]) // span
