"""Which writes of an array may alias a read of it in one iteration (the model's side).

The HLS tool merges a load with an earlier load of the same address only when no
store that *may alias* lies between them (LLVM's GVN asks BasicAA).  BasicAA proves
two accesses off one base apart when their (row-major) offsets have one variable part
and different constants: ``a[4*i + 5]`` and ``a[4*i + 2]``, ``X[i][j]`` and
``X[i][j + 1]``.  So a write separates two reads of one element unless, for both the
write and the read, the lane access qualifies (:func:`.forwarding.qualifies`: plain,
regular, run wherever its lane runs) and their flat addresses

    flat(x) = sum_d x_d * prod(shape[d+1:])

are affine forms over the group's time variables with equal coefficients and
different constants (each lane's unrolled iterators already substituted, so a lane-0
write of ``X[i + 1]`` and a lane-1 read of ``X[i + 1]`` do alias).  Anything else
(a floor or mod, an irregular dimension, an ``if`` or ``?:`` around it, a struct
member, a callee's subscript) may alias.  The checker (``check.epochs``) and the
trace (``check.replay.record_epochs``) decide the same question on their own.
"""

from __future__ import annotations

from math import prod

from .. import expr as E
from .forwarding import qualifies
from .lanes import Found


def flat_form(f: Found, shape: tuple[int, ...]) -> tuple[tuple, int] | None:
    """The row-major offset of ``f``'s element as (sorted nonzero coefficients,
    constant), or None when ``f`` does not :func:`qualifies` or a subscript is not
    affine."""
    if not qualifies(f):
        return None
    coeffs: dict[str, int] = {}
    constant = 0
    for d, e in enumerate(f.access.index):
        form = E.affine_form(e)
        if form is None:
            return None
        stride = prod(shape[d + 1:])
        for v, k in form[0].items():
            coeffs[v] = coeffs.get(v, 0) + k * stride
        constant += form[1] * stride
    return tuple(sorted((v, k) for v, k in coeffs.items() if k)), constant

