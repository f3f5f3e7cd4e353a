"""Which write instances of an array may alias an access of it in one step (the
checker's side of ``poly.aliasing``).

The HLS tool (LLVM's BasicAA) proves two accesses off one base apart when their
row-major offsets have one variable part and different constants (``X[i + 1]`` and
``X[i]``).  The checker decides that from its own reading of the IR's subscripts
(:func:`.forwarding.element_instances`: each lane's unrolled iterators substituted,
one affine form per dimension, for a plain regular reference in no ``if`` that runs
in every step): a write instance may alias another access instance unless both have
such forms whose row-major sums (:func:`flat`) have equal coefficients and
different constants.  :class:`Aliasing` is the one place the checker asks it: for
the read epochs (:mod:`.epochs`) and for store forwarding and dead stores
(:mod:`.forwarding`).
"""

from __future__ import annotations

from bisect import bisect_left
from math import prod

from .. import ir


def flat(element: tuple | None, array: ir.Array) -> tuple[tuple, int] | None:
    """The row-major offset of an element (``.forwarding``'s (member, per-dimension
    forms)) as (sorted nonzero coefficients, constant); None unless every dimension
    is affine (a reshaped array's words: never)."""
    if element is None or array.reshapes or any(
            form[0] != "affine" for form in element[1]):
        return None
    coeffs: dict[str, int] = {}
    constant = 0
    for d, (_, terms, c) in enumerate(element[1]):
        stride = prod(array.shape[d + 1:])
        for v, k in terms:
            coeffs[v] = coeffs.get(v, 0) + k * stride
        constant += c * stride
    return tuple(sorted((v, k) for v, k in coeffs.items() if k)), constant


class Aliasing:
    """The write instances of one array in one step, in program order, as bits (bit
    n: the n-th), from their (order, :func:`flat` form): which may alias an access
    (:meth:`aliasing`), which come before a place in the step (:meth:`before`)."""

    def __init__(self, writes: list[tuple[tuple, tuple | None]]) -> None:
        self.orders = [o for o, _ in writes]
        self.everything = (1 << len(writes)) - 1
        self.by_part: dict[tuple, int] = {}  # variable part -> its writes' bits
        self.by_form: dict[tuple, int] = {}
        for n, (_, form) in enumerate(writes):
            if form is not None:
                self.by_part[form[0]] = self.by_part.get(form[0], 0) | 1 << n
                self.by_form[form] = self.by_form.get(form, 0) | 1 << n

    def aliasing(self, form: tuple | None) -> int:
        """The writes that may alias an access of flat form ``form``: all but those
        with ``form``'s variable part and another constant."""
        if form is None:
            return self.everything
        return self.everything & ~(self.by_part.get(form[0], 0)
                                   & ~self.by_form.get(form, 0))

    def before(self, order: tuple) -> int:
        """The writes before ``order``."""
        return (1 << bisect_left(self.orders, order)) - 1
