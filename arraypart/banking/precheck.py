"""Exact residue pre-check of uniform groups, in numpy, without isl.

In a uniform group lane k accesses ``x_k = x + d_k`` with a common base ``x = L·P``.
Whether two lanes share a bank depends only on a residue of the base:

    flat:        bank_k = floor((r + alpha·d_k) / B) mod N,   r = alpha·x mod N*B
                 (r is a multiple of g = gcd(alpha, N*B): only those residues count)
    cyclic f:    bank_k,d = (r_d + d_k,d) mod f,              r_d = x_d mod f
    block s:     bank_k,d = q + floor((r_d + d_k,d) / s),     r_d = x_d mod s
                 (q common; the relative bank only changes at r_d = -d_k,d mod s)
    complete:    bank_k,d = x_d + d_k,d                       (one residue)

Taking every residue as reachable over-approximates the cycles (and so does taking
every lane as active), so a candidate that passes here is conflict-free; one that
fails may still be fine on a small domain, which only costs optimality.  Per residue
and bank, reads of one offset are one access and every write counts.
"""

from __future__ import annotations

import numpy as np

from ..ir import PortModel
from ..scheme import Scheme

INFEASIBLE_II = 1 << 30  # "no II fits" (a write to a read-only bank)
# Candidates x residues x lanes x lanes booleans evaluated at once: bounds the
# temporaries (int64 sums are 8x this) to a few tens of MB.
ELEMENT_BUDGET = 1 << 22

LaneSet = tuple[np.ndarray, np.ndarray]  # (offsets: lanes x dims, is_write: lanes)


def lane_set(offsets: np.ndarray, is_write: np.ndarray) -> LaneSet:
    """The accesses one copy's banks serve: distinct read offsets plus every write."""
    reads = np.unique(offsets[~is_write], axis=0) if (~is_write).any() else offsets[:0]
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


def _needed_ii(ports: PortModel, eq: np.ndarray, is_write: np.ndarray,
               target: int) -> np.ndarray:
    """``eq[..., k, j]``: lanes k and j share a bank.  The least II at which every bank
    fits, maximized over the residue axes: shape ``eq.shape[:-3]``."""
    reads = (eq & ~is_write).sum(-1)
    writes = (eq & is_write).sum(-1)
    needed = least_ii(ports, reads, writes, target)
    return needed.reshape(*eq.shape[:-3], -1).max(-1)


def flat_ii(lane_sets: list[LaneSet], alphas: np.ndarray, banks: int, block: int,
            ports: PortModel, target: int) -> np.ndarray:
    """Least II per row of ``alphas`` (candidates x dims) for bank = floor(alpha·x/B)
    mod N, over every copy's lane set."""
    residues = np.arange(banks * block, dtype=np.int64)
    worst = np.full(len(alphas), target, dtype=np.int64)
    for offsets, is_write in lane_sets:
        if len(offsets) < 2 and not is_write.any():
            continue
        rows = max(1, ELEMENT_BUDGET // (len(residues) * len(offsets) ** 2))
        for lo in range(0, len(alphas), rows):
            part = alphas[lo:lo + rows]
            step = np.gcd.reduce(np.concatenate(
                [part, np.full((len(part), 1), banks * block)], axis=1), axis=1)
            reachable = residues[None, :] % step[:, None] == 0
            shift = part @ offsets.T
            bank = ((residues[None, :, None] + shift[:, None, :]) // block) % banks
            eq = (bank[..., :, None] == bank[..., None, :]) & reachable[:, :, None, None]
            worst[lo:lo + rows] = np.maximum(worst[lo:lo + rows],
                                             _needed_ii(ports, eq, is_write, target))
    return worst


def per_dim_ii(lane_sets: list[LaneSet], scheme: Scheme, ports: PortModel,
               target: int) -> int:
    """Least II of a per_dim (or none) scheme over every copy's lane set."""
    worst = target
    for offsets, is_write in lane_sets:
        if len(offsets) < 2 and not is_write.any():
            continue
        eq = np.ones((1, len(offsets), len(offsets)), dtype=bool)
        for d, part in enumerate(_parts(scheme, offsets.shape[1])):
            rel = _relative_banks(part, scheme.shape[d], offsets[:, d])
            eq_d = rel[:, :, None] == rel[:, None, :]
            eq = (eq[:, None] & eq_d[None, :]).reshape(-1, len(offsets), len(offsets))
        worst = max(worst, int(_needed_ii(ports, eq[None], is_write, target)[0]))
    return worst


def _parts(scheme: Scheme, ndims: int) -> list[tuple[str, int]]:
    if scheme.kind == "none":
        return [("none", 1)] * ndims
    return [(p.type, p.factor) for p in scheme.dims]


def _relative_banks(part: tuple[str, int], size: int, d: np.ndarray) -> np.ndarray:
    """Residues x lanes: the bank in one dimension, up to a shift common to all lanes."""
    kind, factor = part
    if kind == "none":
        return np.zeros((1, len(d)), dtype=np.int64)
    if kind == "complete":
        return d[None, :]
    if kind == "cyclic":
        return (np.arange(factor)[:, None] + d[None, :]) % factor
    span = -(-size // factor)
    starts = np.unique(np.concatenate([[0], (-d) % span]))
    return (starts[:, None] + d[None, :]) // span
