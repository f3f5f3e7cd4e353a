"""The integer points of a bounded isl set as a numpy table (for comparisons with
concrete runs: ``check --trace``).

The points are found in numpy: every point of the set's bounding box is tested against
the constraints of each basic set,

    sum_d a_d x_d + sum_k b_k q_k + c >= 0   (or == 0),   q_k = floor(aff_k(x, q_<k)),

with the existential divisions ``q_k`` evaluated from their isl definitions, so no
Python callback runs per point.
"""

from __future__ import annotations

from fractions import Fraction

import islpy as isl
import numpy as np

from .isl_glue import count, each_point

SET, DIV, IN = isl.dim_type.set, isl.dim_type.div, isl.dim_type.in_
#: Bounding-box points tested per point of the set at most (a sparse set, say one
#: point in a hundred, is enumerated by isl instead), and at most in all (2^22 rows of
#: a few int64 columns: about 100 MB).
BOX_PER_POINT = 64
MAX_BOX = 1 << 22


def lex_points(s: isl.Set, limit: int) -> np.ndarray | None:
    """The points of the parameter-free bounded set ``s``, one row per point in
    lexicographic order (columns: the set's dimensions); None when ``s`` has
    parameters or more than ``limit`` points."""
    dims = s.dim(SET)
    if s.dim(isl.dim_type.param):
        return None
    points = count(s)
    if points > limit:
        return None
    if points == 0 or dims == 0:
        return np.empty((points, dims), np.int64)
    low = [s.dim_min_val(d).to_python() for d in range(dims)]
    high = [s.dim_max_val(d).to_python() for d in range(dims)]
    box = int(np.prod([h - lo + 1 for lo, h in zip(low, high)]))
    table = (_box_points(s, low, high) if box <= min(BOX_PER_POINT * points, MAX_BOX)
             else _isl_points(s, dims))
    return table[np.lexsort(table.T[::-1])]


def _box_points(s: isl.Set, low: list[int], high: list[int]) -> np.ndarray:
    axes = [np.arange(lo, h + 1, dtype=np.int64) for lo, h in zip(low, high)]
    grid = np.stack([g.ravel() for g in np.meshgrid(*axes, indexing="ij")], axis=1)
    inside = np.zeros(len(grid), bool)
    for bset in s.get_basic_sets():
        inside |= _members(bset, grid)
    return grid[inside]


def _rational(v: isl.Val) -> Fraction:
    return Fraction(v.get_num_si(), v.get_den_val().to_python())


def _members(bset: isl.BasicSet, grid: np.ndarray) -> np.ndarray:
    """Which rows of ``grid`` satisfy the basic set's constraints."""
    dims = grid.shape[1]
    divs: list[np.ndarray] = []
    for k in range(bset.dim(DIV)):
        aff = bset.get_div(k)
        den = _rational(aff.get_denominator_val())
        num = sum(int(_rational(aff.get_coefficient_val(IN, d)) * den) * grid[:, d]
                  for d in range(dims))
        num = num + sum(int(_rational(aff.get_coefficient_val(DIV, j)) * den) * divs[j]
                        for j in range(k))
        num = num + int(_rational(aff.get_constant_val()) * den)
        divs.append(np.floor_divide(np.asarray(num, np.int64), int(den)))
    ok = np.ones(len(grid), bool)
    for c in bset.get_constraints():
        value = sum(int(c.get_coefficient_val(SET, d).to_python()) * grid[:, d]
                    for d in range(dims))
        value = value + sum(int(c.get_coefficient_val(DIV, k).to_python()) * divs[k]
                            for k in range(len(divs)))
        value = np.asarray(value + int(c.get_constant_val().to_python()), np.int64)
        ok &= (value == 0) if c.is_equality() else (value >= 0)
    return ok


def _isl_points(s: isl.Set, dims: int) -> np.ndarray:
    rows: list[list[int]] = []
    each_point(s, lambda p: rows.append(
        [p.get_coordinate_val(SET, d).to_python() for d in range(dims)]))
    return np.array(rows, np.int64).reshape(len(rows), dims)
