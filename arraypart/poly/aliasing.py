"""Which writes of an array may alias a read of it in one iteration (the model's side).

The HLS tool merges a load with an earlier load of the same address only when no
store that *may alias* lies between them (LLVM's GVN asks BasicAA), forwards a store
to a later load of its address only when no store between may alias the load, and
drops a store that a later one overwrites only when no load between may alias it.
BasicAA proves two accesses off one base apart when their (row-major) offsets have
one variable part and different constants: ``a[4*i + 5]`` and ``a[4*i + 2]``,
``X[i][j]`` and ``X[i][j + 1]``.  So a write and a read of one array never alias when
both lane accesses :func:`qualifies` (plain, regular, run wherever their lane runs)
and their flat addresses

    flat(x) = sum_d x_d * prod(shape[d+1:])

are affine forms over the group's time variables with equal coefficients and
different constants (each lane's unrolled iterators already substituted, so a lane-0
write of ``X[i + 1]`` and a lane-1 read of ``X[i + 1]`` do alias).  Anything else
(a floor or mod, an irregular dimension, an ``if`` or ``?:`` around it, a struct
member, a callee's subscript) may alias.  :class:`Writes` is the one place the model
asks it: for the read epochs (``build.with_epochs``) and for store forwarding and
dead stores (:func:`.forwarding.free_accesses`).  The checker (``check.aliasing``)
and the trace (``check.traced_epochs``) decide the same question on their own.
"""

from __future__ import annotations

from bisect import bisect_left
from math import prod
from typing import Sequence

from .. import expr as E
from .lanes import Found


def qualifies(f: Found) -> bool:
    """A plain, regular lane access that runs on its frame's whole domain."""
    return (f.plain and f.access.regular
            and f.access.domain.is_equal(f.frame.domain))


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


class Writes:
    """The writes of one array in one concurrent loop, sorted by ``order``, as bits
    (bit n: the n-th write): which of them may alias an access (:meth:`aliasing`),
    which come before a place in the iteration (:meth:`before`)."""

    def __init__(self, writes: Sequence[Found], shape: tuple[int, ...]) -> None:
        self.shape = shape
        self.orders = [w.order for w in writes]
        self.everything = (1 << len(writes)) - 1
        self.by_part: dict[tuple, int] = {}  # variable part -> its writes' bits
        self.by_form: dict[tuple, int] = {}
        for n, w in enumerate(writes):
            form = flat_form(w, shape)
            if form is not None:
                self.by_part[form[0]] = self.by_part.get(form[0], 0) | 1 << n
                self.by_form[form] = self.by_form.get(form, 0) | 1 << n

    def aliasing(self, f: Found) -> int:
        """The writes that may alias ``f``: all but those whose
        :func:`flat_form` has ``f``'s variable part and another constant."""
        form = flat_form(f, self.shape)
        if form is None:
            return self.everything
        return self.everything & ~(self.by_part.get(form[0], 0)
                                   & ~self.by_form.get(form, 0))

    def before(self, order: tuple[int, ...]) -> int:
        """The writes whose ``order`` comes before ``order``."""
        return (1 << bisect_left(self.orders, order)) - 1
