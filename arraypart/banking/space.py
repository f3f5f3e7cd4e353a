"""The search space, as data (Spatial style): families, their generators, the cost.

Each axis is a small generator: per-dimension partitions, flat bank counts N, blocks
B, alpha vectors, copy counts and read-to-copy assignments.  The driver takes their
product one *tier* (banks x copies) at a time and orders a tier by :class:`Cost`.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from math import gcd, prod

import numpy as np

from ..scheme import Banking, DimPartition, Scheme
from .groups import GroupShape

# Blocks B of the block-cyclic family: 1 (linear transformation) and the small powers
# of two GMP reports (B = 2 reaches the optimum of DENOISE and BICUBIC); each doubling
# of B doubles the alpha residues to pre-check, for patterns few kernels have.
FLAT_BLOCKS = (1, 2, 4)
# Up to this N*B every alpha residue is tried; above it alpha is drawn from 0, 1,
# powers of two, values up to SMALL_ALPHA and values coprime to N (Spatial's menu).
FULL_ALPHA_RANGE = 16
SMALL_ALPHA = 8


@dataclass(frozen=True, order=True)
class Cost:
    """Selection order of DESIGN §3, most significant first: physical banks (banks x
    copies), storage overhead (words of all banks and copies / elements - 1), lanes needing a crossbar (their
    bank varies with the iteration), family (per_dim before flat), operands that are
    not powers of two (N, B and alpha need a divider or multiplier), then the scheme's
    parameters for determinism."""

    physical_banks: int
    storage_overhead: float
    crossbar_lanes: int
    family: int
    odd_operands: int
    key: tuple


def is_power_of_two(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


def cost_of(banking: Banking, shapes: list[GroupShape]) -> Cost:
    scheme = banking.scheme
    if scheme.kind == "flat":
        operands = (scheme.flat_banks, scheme.block) + tuple(a for a in scheme.alpha if a)
    else:
        operands = tuple(p.factor for p in scheme.dims if p.type in ("cyclic", "block"))
    odd = sum(not is_power_of_two(n) for n in operands)
    crossbar = sum(len(s.lanes) for s in shapes if not _static(scheme, s))
    overhead = banking.copies * (1 + scheme.storage_overhead) - 1
    return Cost(scheme.banks * banking.copies, round(overhead, 9), crossbar,
                int(scheme.kind == "flat"), odd, _scheme_key(scheme))


def _scheme_key(scheme: Scheme) -> tuple:
    return (tuple((p.type, p.factor) for p in scheme.dims), scheme.alpha, scheme.block,
            scheme.fence_dim)


def _static(scheme: Scheme, shape: GroupShape) -> bool:
    """Every lane's bank is the same at every P (so it needs no crossbar)."""
    if scheme.kind == "none":
        return True
    if not shape.uniform:
        return False
    if scheme.kind == "flat":
        modulus = scheme.flat_banks * scheme.block
        coeff: dict[str, int] = {}
        for a, row in zip(scheme.alpha, shape.linear):
            for v, k in row:
                coeff[v] = coeff.get(v, 0) + a * k
        return all(k % modulus == 0 for k in coeff.values())
    for p, row in zip(scheme.dims, shape.linear):
        if p.type == "cyclic" and any(k % p.factor for _, k in row):
            return False
        if p.type in ("block", "complete") and row:
            return False
    return True


# ---------------------------------------------------------------- per_dim


def dim_options(size: int, max_banks: int) -> list[DimPartition]:
    """Partitions of one dimension: cyclic and block below the size (block only when
    the factor is the number of blocks it really makes), complete when small enough."""
    options = [DimPartition("cyclic", f) for f in range(2, min(size, max_banks + 1))]
    options += [DimPartition("block", f) for f in range(2, min(size, max_banks + 1))
                if -(-size // -(-size // f)) == f]
    if size <= max_banks:
        options.append(DimPartition("complete", size))
    return options


def per_dim_tiers(shape: tuple[int, ...], varying: frozenset[int],
                  max_banks: int) -> dict[int, list[tuple[DimPartition, ...]]]:
    """Every per_dim partition of the varying dimensions, by number of banks."""
    none = DimPartition("none", 1)
    axes = [[none] + dim_options(n, max_banks) if d in varying else [none]
            for d, n in enumerate(shape)]
    tiers: dict[int, list[tuple[DimPartition, ...]]] = {}
    for dims in _bounded_product(axes, max_banks):
        tiers.setdefault(prod(p.factor for p in dims), []).append(dims)
    return tiers


def _bounded_product(axes: list[list[DimPartition]], limit: int):
    if not axes:
        yield ()
        return
    for head in axes[0]:
        if head.factor <= limit:
            for tail in _bounded_product(axes[1:], limit // head.factor):
                yield (head,) + tail


# ---------------------------------------------------------------- flat


def alpha_values(banks: int, block: int) -> list[int]:
    """Candidate alpha residues mod N*B for one dimension."""
    modulus = banks * block
    if modulus <= FULL_ALPHA_RANGE:
        return list(range(modulus))
    menu = {0, 1} | set(range(2, SMALL_ALPHA + 1))
    menu |= {1 << k for k in range(modulus.bit_length())}
    menu |= {a for a in range(1, modulus) if gcd(a, banks) == 1}
    return sorted(a % modulus for a in menu)


def alpha_matrix(ndims: int, varying: frozenset[int], banks: int, block: int) -> np.ndarray:
    """Alpha vectors (rows): 0 on dimensions where no lane differs.  For B = 1 the
    bank permutation x -> u·x (u a unit mod N) is a symmetry, so the first varying
    coefficient is normalized to a divisor of N."""
    values = alpha_values(banks, block)
    order = sorted(varying)
    rows = []
    for combo in itertools.product(values, repeat=len(order)):
        nonzero = [a for a in combo if a]
        if not nonzero:
            continue
        if block == 1 and combo[0] and banks % combo[0]:
            continue
        alpha = [0] * ndims
        for d, a in zip(order, combo):
            alpha[d] = a
        rows.append(alpha)
    return np.array(rows, dtype=np.int64).reshape(-1, ndims)


# ---------------------------------------------------------------- copies


def copy_assignments(refs: tuple[int, ...], copies: int) -> list[tuple[tuple[int, int], ...]]:
    """Ways to spread the read references over copies: round robin and contiguous
    runs (in ``ref_id`` order), without duplicates."""
    if copies > len(refs):
        return []
    run = -(-len(refs) // copies)
    ways = [tuple((r, k % copies) for k, r in enumerate(refs)),
            tuple((r, k // run) for k, r in enumerate(refs))]
    return sorted(set(w for w in ways if len({c for _, c in w}) == copies))
