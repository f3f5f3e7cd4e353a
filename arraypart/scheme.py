"""Banking schemes (DESIGN §3): which bank and which offset each array element gets.

A scheme's formulas are written here once, as :mod:`arraypart.expr` trees over the
element's index variables ``x0, x1, ...``; isl (proofs), numpy (maps, checker) and C
(codegen) all render these trees.

``per_dim`` (what Vitis' ``array_partition`` expresses), per dimension d of size D:

    none      bank_d = 0                  offset_d = x_d               depth_d = D
    cyclic f  bank_d = x_d mod f          offset_d = floor(x_d / f)    depth_d = ceil(D/f)
    block f   bank_d = floor(x_d / s)     offset_d = x_d mod s         depth_d = s = ceil(D/f)
    complete  bank_d = x_d                offset_d = 0                 depth_d = 1

    bank = row-major index of (bank_0, ...) over the factors, offset = row-major index of
    (offset_0, ...) over the depths.

``flat`` (linear-transformation / block-cyclic, GMP and Spatial):

    bank   = floor(alpha·x / B) mod N
    offset = B * w(x) + (alpha·x mod B),
    w(x)   = floor(x_d / P) + W * rowmajor(x without x_d),   P = N*B / gcd(N*B, alpha_d),
             W = ceil(D_d / P)

for one "fence" dimension d with alpha_d != 0.  Bijection: if x, y share bank and offset
they share w, so they differ only in dimension d and by less than P; equal bank and equal
``alpha·x mod B`` give alpha·x ≡ alpha·y (mod N*B), i.e. alpha_d*(x_d - y_d) ≡ 0
(mod N*B), so P divides x_d - y_d, hence x = y.  Padding: dimension d grows to W*P;
each window of P elements uses P of the N*B slots (none wasted when gcd(N*B, alpha_d) = 1).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from math import gcd, prod
from typing import Iterator

import numpy as np

from . import expr as E
from .ir import Array

SCHEME_KINDS = ("none", "per_dim", "flat")
DIM_TYPES = ("none", "cyclic", "block", "complete")


def index_var(d: int) -> str:
    """Name of the element index variable of dimension d in scheme formulas."""
    return f"x{d}"


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


@dataclass(frozen=True, slots=True)
class DimPartition:
    """One dimension of a per_dim scheme; ``factor`` is its number of banks."""

    type: str
    factor: int

    def __post_init__(self):
        if self.type not in DIM_TYPES or self.factor < 1:
            raise ValueError(f"dimension partition {self.type} {self.factor}")
        if self.type == "none" and self.factor != 1:
            raise ValueError("type none has factor 1")


@dataclass(frozen=True, slots=True)
class Scheme:
    """A banking of an array of ``shape``.  Build with :func:`none_scheme`,
    :func:`per_dim_scheme` or :func:`flat_scheme`; the formulas are in the module doc."""

    kind: str
    shape: tuple[int, ...]
    dims: tuple[DimPartition, ...] = ()
    alpha: tuple[int, ...] = ()
    block: int = 1
    flat_banks: int = 1
    fence_dim: int = -1

    def __post_init__(self):
        if self.kind not in SCHEME_KINDS:
            raise ValueError(f"scheme kind {self.kind!r}")
        if self.kind == "per_dim" and len(self.dims) != len(self.shape):
            raise ValueError("per_dim scheme needs one partition per dimension")
        if self.kind == "flat":
            if len(self.alpha) != len(self.shape) or self.block < 1 or self.flat_banks < 1:
                raise ValueError("flat scheme: alpha, block or banks")
            if min(self.alpha) < 0 or not 0 <= self.fence_dim < len(self.shape):
                raise ValueError("flat scheme: negative alpha or bad fence dimension")
            if self.alpha[self.fence_dim] == 0:
                raise ValueError("flat scheme: alpha is 0 on the fence dimension")

    # -------------------------------------------------------------- sizes

    @property
    def banks(self) -> int:
        if self.kind == "per_dim":
            return prod(p.factor for p in self.dims)
        if self.kind == "flat":
            return self.flat_banks
        return 1

    @property
    def size(self) -> int:
        return prod(self.shape)

    def _dim_depths(self) -> tuple[int, ...]:
        return tuple(_dim_depth(p, n) for p, n in zip(self.dims, self.shape))

    @property
    def _fence_period(self) -> int:
        nb = self.flat_banks * self.block
        return nb // gcd(nb, self.alpha[self.fence_dim])

    @property
    def _fence_windows(self) -> int:
        return _ceil_div(self.shape[self.fence_dim], self._fence_period)

    @property
    def bank_depth(self) -> int:
        """Words per bank: offsets lie in [0, bank_depth)."""
        if self.kind == "per_dim":
            return prod(self._dim_depths())
        if self.kind == "flat":
            others = prod(n for d, n in enumerate(self.shape) if d != self.fence_dim)
            return self.block * self._fence_windows * others
        return self.size

    @property
    def registers(self) -> bool:
        """Every bank of a per_dim scheme holds one element (each dimension complete
        or cut into single elements): Vitis makes each a register, which takes no
        port, so any access pattern fits (DESIGN §2)."""
        return self.kind == "per_dim" and self.bank_depth == 1

    @property
    def padded_shape(self) -> tuple[int, ...]:
        if self.kind == "per_dim":
            return tuple(p.factor * k for p, k in zip(self.dims, self._dim_depths()))
        if self.kind == "flat":
            d = self.fence_dim
            padded = self._fence_windows * self._fence_period
            return self.shape[:d] + (padded,) + self.shape[d + 1:]
        return self.shape

    @property
    def storage_overhead(self) -> float:
        """Unused words / elements: (banks * bank_depth - elements) / elements."""
        return (self.banks * self.bank_depth - self.size) / self.size

    # -------------------------------------------------------------- formulas

    @lru_cache(maxsize=4096)
    def bank_expr(self) -> E.Expr:
        """The bank formula (made once per scheme: the search, its proofs and the cost
        model all read it, thousands of times in a suite)."""
        if self.kind == "per_dim":
            parts = [_dim_bank(p, n, index_var(d))
                     for d, (p, n) in enumerate(zip(self.dims, self.shape))]
            return _row_major(parts, [p.factor for p in self.dims])
        if self.kind == "flat":
            linear = _alpha_dot_x(self.alpha)
            return E.mod(E.floordiv(linear, self.block), self.flat_banks)
        return E.const(0)

    def bank_digits(self) -> tuple[tuple[int, int, int, E.Expr], ...]:
        """Per partitioned dimension d of a per_dim scheme, ``(d, factor, stride,
        digit)``: ``bank = sum stride * digit`` with ``digit`` (over ``x_d``) in
        ``[0, factor)`` and the strides row-major over the factors; () otherwise."""
        if self.kind != "per_dim":
            return ()
        factors = [p.factor for p in self.dims]
        return tuple((d, p.factor, prod(factors[d + 1:]), _dim_bank(p, n, index_var(d)))
                     for d, (p, n) in enumerate(zip(self.dims, self.shape))
                     if p.type != "none")

    def known_digits(self, indexes) -> frozenset[int]:
        """The partitioned dimensions (:meth:`bank_digits`) in which every index of
        ``indexes`` (tuples, None where irregular) is known; empty when there are no
        indexes.  Under a per_dim scheme an access knowing them reaches only the banks
        of its digits there, its sub-array."""
        dims = None
        for index in indexes:
            if dims is None:
                dims = frozenset(d for d, *_ in self.bank_digits())
            dims = frozenset(d for d in dims if index[d] is not None)
        return dims or frozenset()

    def same_subscript(self, x: tuple, y: tuple) -> bool:
        """Whether indexes ``x`` and ``y`` (tuples of expressions, None where
        irregular) are one expression in every dimension the bank reads: only then
        does the HLS tool, given one text for both (a function called twice, a
        geometric loop's copies), know the bank at compile time.  ``buf[v]`` at
        ``v = 0`` and ``v = 2`` under cyclic 2 reach one bank, but through
        ``v % 2``, a run-time value in that text."""
        return len(x) == len(y) and all(x[d] == y[d] and x[d] is not None
                                        for d in self.bank_dims())

    def same_in_every_instance(self, index: tuple, instances: tuple) -> bool:
        """:meth:`same_subscript` of ``index`` and each of ``instances`` (a lane's
        subscripts in the other instances of its loop's text)."""
        return all(self.same_subscript(index, other) for other in instances)

    def bank_dims(self) -> frozenset[int]:
        """The index dimensions the bank formula may read (a superset of its
        variables: per_dim, the partitioned dimensions; flat, those of nonzero alpha)."""
        if self.kind == "per_dim":
            return frozenset(d for d, p in enumerate(self.dims) if p.type != "none")
        return frozenset(d for d, a in enumerate(self.alpha) if a)

    @lru_cache(maxsize=4096)
    def offset_expr(self) -> E.Expr:
        """The offset formula (made once per scheme, as :meth:`bank_expr`)."""
        if self.kind == "per_dim":
            parts = [_dim_offset(p, n, index_var(d))
                     for d, (p, n) in enumerate(zip(self.dims, self.shape))]
            return _row_major(parts, list(self._dim_depths()))
        if self.kind == "flat":
            d = self.fence_dim
            window_parts = [E.var(index_var(t)) for t in range(len(self.shape)) if t != d]
            window_sizes = [n for t, n in enumerate(self.shape) if t != d]
            window_parts.append(E.floordiv(E.var(index_var(d)), self._fence_period))
            window_sizes.append(self._fence_windows)
            window = _row_major(window_parts, window_sizes)
            within = E.mod(_alpha_dot_x(self.alpha), self.block)
            return E.add(E.scale(self.block, window), within)
        return _row_major([E.var(index_var(d)) for d in range(len(self.shape))],
                          list(self.shape))

    def maps(self, rows: tuple[int, int] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``(bank, offset)`` int64 arrays of the array's shape (evaluates the formulas);
        with ``rows = (lo, hi)`` only the slab ``lo <= x_0 < hi`` of the first
        dimension (so a large array's maps can be made a slab at a time)."""
        lo, hi = rows if rows is not None else (0, self.shape[0] if self.shape else 1)
        shape = (hi - lo,) + tuple(self.shape[1:]) if self.shape else ()
        grid = np.indices(shape, dtype=np.int64)
        if self.shape:
            grid[0] += lo
        env = {index_var(d): grid[d] for d in range(len(self.shape))}
        full = np.zeros(shape, dtype=np.int64)
        return (full + E.evaluate(self.bank_expr(), env),
                full + E.evaluate(self.offset_expr(), env))

    def slabs(self, elements: int) -> Iterator[tuple[int, int]]:
        """Ranges ``(lo, hi)`` of the first dimension holding about ``elements``
        elements each (at least one row), covering the array in order."""
        if not self.shape:
            yield 0, 1
            return
        row = max(1, prod(self.shape[1:]))
        step = max(1, elements // row)
        for lo in range(0, self.shape[0], step):
            yield lo, min(self.shape[0], lo + step)

    # -------------------------------------------------------------- presentation

    def describe(self) -> str:
        """One line: the scheme and its formulas, for reports and code comments."""
        if self.kind == "none":
            return "none: one memory"
        head = ("per_dim " + " x ".join(
            p.type if p.type in ("none", "complete") else f"{p.type} {p.factor}"
            for p in self.dims)) if self.kind == "per_dim" else (
            f"flat N={self.flat_banks} B={self.block} alpha={list(self.alpha)}")
        return (f"{head}: bank = {E.pretty(self.bank_expr())}, "
                f"offset = {E.pretty(self.offset_expr())}")

    def to_report(self) -> dict:
        """The ``scheme`` object of report.json (DESIGN §5)."""
        out: dict = {"kind": self.kind, "banks": self.banks}
        if self.kind == "per_dim":
            out["dims"] = [{"type": p.type, "factor": p.factor} for p in self.dims]
        if self.kind == "flat":
            out.update(alpha=list(self.alpha), block=self.block)
        out["padded_shape"] = list(self.padded_shape)
        return out


def _dim_depth(p: DimPartition, n: int) -> int:
    if p.type == "none":
        return n
    if p.type == "complete":
        return 1
    return _ceil_div(n, p.factor)


def _dim_bank(p: DimPartition, n: int, x: str) -> E.Expr:
    if p.type == "none":
        return E.const(0)
    if p.type == "cyclic":
        return E.mod(E.var(x), p.factor)
    if p.type == "block":
        return E.floordiv(E.var(x), _ceil_div(n, p.factor))
    return E.var(x)


def _dim_offset(p: DimPartition, n: int, x: str) -> E.Expr:
    if p.type == "none":
        return E.var(x)
    if p.type == "cyclic":
        return E.floordiv(E.var(x), p.factor)
    if p.type == "block":
        return E.mod(E.var(x), _ceil_div(n, p.factor))
    return E.const(0)


def _row_major(parts: list[E.Expr], sizes: list[int]) -> E.Expr:
    """sum_t parts[t] * prod(sizes[t+1:])."""
    terms = [E.scale(prod(sizes[t + 1:]), part) for t, part in enumerate(parts)]
    return E.add(*terms) if terms else E.const(0)


def _alpha_dot_x(alpha: tuple[int, ...]) -> E.Expr:
    return E.affine({index_var(d): a for d, a in enumerate(alpha)})


# ---------------------------------------------------------------- constructors


def none_scheme(shape: tuple[int, ...]) -> Scheme:
    return Scheme("none", tuple(shape))


def per_dim_scheme(shape: tuple[int, ...], dims: tuple[DimPartition, ...]) -> Scheme:
    """A per_dim scheme; a complete partition's factor is the dimension's size."""
    fixed = tuple(DimPartition("complete", n) if p.type == "complete" else p
                  for p, n in zip(dims, shape))
    if all(p.type == "none" for p in fixed):
        return none_scheme(shape)
    return Scheme("per_dim", tuple(shape), dims=fixed)


def flat_scheme(shape: tuple[int, ...], alpha: tuple[int, ...], banks: int,
                block: int = 1) -> Scheme:
    """bank = floor(alpha·x / block) mod banks, fenced on the dimension that pads least
    (ties: the last such dimension)."""
    shape, alpha = tuple(shape), tuple(int(a) for a in alpha)
    if banks == 1:
        return none_scheme(shape)
    candidates = [Scheme("flat", shape, alpha=alpha, block=block, flat_banks=banks,
                         fence_dim=d) for d in range(len(shape)) if alpha[d] != 0]
    if not candidates:
        raise ValueError("flat scheme with alpha = 0")
    return min(candidates, key=lambda s: (s.bank_depth, -s.fence_dim))


def scheme_from_pragmas(array: Array) -> Scheme:
    """The per_dim scheme that ``array``'s own ``array_partition`` pragmas describe
    (Vitis semantics: ``dim=0`` applies to every dimension, a later pragma on a dimension
    overrides an earlier one, a factor is clipped to the dimension's size, ``off=true``
    leaves the dimension whole); no pragma is one memory.  An array whose
    ``array_reshape complete`` (with complete partitions) leaves each bank one wide word
    is registers, complete on every dimension.  A FIFO port is as its interface makes
    it (:func:`fifo_scheme`), a register port a register."""
    if array.fifo is not None:
        return fifo_scheme(array)
    if array.register is not None:
        return registers_scheme(array.shape)
    dims = [DimPartition("none", 1) for _ in array.shape]
    for pragma in array.partitions:
        targets = range(len(array.shape)) if pragma.dim == 0 else [pragma.dim - 1]
        for d in targets:
            n = array.shape[d]
            if pragma.off:
                dims[d] = DimPartition("none", 1)
            elif pragma.type == "complete" or pragma.factor >= n:
                dims[d] = DimPartition("complete", n)
            elif pragma.factor > 1:
                dims[d] = DimPartition(pragma.type, pragma.factor)
    whole = array.reshaped_dims("complete")
    if whole and all(d in whole or p.type == "complete" for d, p in enumerate(dims)):
        # each bank is one wide word, which Vitis makes a register (no port), as it
        # makes registers of one-element banks
        return registers_scheme(array.shape)
    return per_dim_scheme(array.shape, tuple(dims))


# Vitis's default config_array_partition -complete_threshold (UG1399, "config_array_partition"
# and "Array Partition Configuration": arrays with fewer elements than it are completely
# partitioned, global arrays excepted).
COMPLETE_THRESHOLD = 4


def auto_partitioned(array: Array, complete_threshold: int) -> bool:
    """Whether Vitis partitions ``array`` completely on its own: a local, not global,
    on-chip memory with fewer than ``complete_threshold`` elements that no pragma of
    the user partitions, reshapes or binds (an explicit directive overrides the
    configuration; a bound one, and a ``static`` one, which LLVM makes a global, are
    kept memories: the safe reading, never a false conflict-free claim)."""
    return (array.size < complete_threshold and array.memory and not array.interface
            and not (array.file_scope or array.header or array.stream or array.static)
            and not (array.partitions or array.reshapes) and array.storage is None)


def registers_scheme(shape: tuple[int, ...]) -> Scheme:
    """One register per element: complete on every dimension (:attr:`Scheme.registers`)."""
    return per_dim_scheme(shape, tuple(DimPartition("complete", n) for n in shape))


def fifo_scheme(array: Array) -> Scheme:
    """A FIFO's: one FIFO (a bank of one port per direction) per stream of an array of
    streams (its dimensions but the last, the elements a stream carries); one for a
    single stream, a FIFO pointer or an ``ap_fifo`` / ``axis`` array argument, whose
    elements of every dimension pass through one port in order (UG1399, "FIFO
    Interfaces", "AXI4-Stream Interfaces")."""
    if not array.stream:
        return none_scheme(array.shape)
    return per_dim_scheme(array.shape, tuple(DimPartition("complete", n)
                                             for n in array.shape[:-1])
                          + (DimPartition("none", 1),))


def lane_number(var: str) -> str:
    """The name of a lane's number ``0 <= l < u`` in the unroll in time of the loop
    over ``var`` (``unroll factor=u`` on a pipelined loop, ``LaneAccess.in_time``):
    ``var'``, which names nothing in C."""
    return f"{var}'"


def is_lane_number(name: str) -> bool:
    """``name`` is a :func:`lane_number`."""
    return name.endswith("'")


@dataclass(frozen=True, slots=True)
class Banking:
    """The storage arraypart gives one array: a scheme, replicated ``copies`` times.

    Every write goes to every copy.  A lane of the read reference with ``ref_id`` r
    reads copy ``read_copy[r](u)``, an expression over the fully unrolled iterators u
    around r that is a compile-time value in each lane: a constant c (one copy for the
    whole reference) or ``floor(u / run) mod copies`` (the lanes of r spread over the
    copies).  u may include a lane's number in a loop unrolled in time
    (:func:`lane_number`), which only a multi-port ROM realizes.  References not
    listed read copy 0.
    """

    array: str
    scheme: Scheme
    copies: int = 1
    read_copy: tuple[tuple[int, E.Expr], ...] = ()

    def __post_init__(self):
        if self.copies < 1:
            raise ValueError("copies < 1")
        for _, e in self.read_copy:
            constant = isinstance(e, E.Const) and 0 <= e.value < self.copies
            if not (constant or isinstance(e, E.Mod) and e.modulus == self.copies):
                raise ValueError(f"read copy {E.pretty(e)} is not a copy in [0, {self.copies})")

    def describe(self) -> str:
        """The scheme, its copies and how the unrolled lanes pick theirs, for messages:
        ``per_dim cyclic 2: ... x 2 copies (unrolled lanes read copy i mod 2)``."""
        copies = f" x {self.copies} copies" if self.copies > 1 else ""
        rules = self.lane_rules()
        lanes = f" (unrolled lanes read {', '.join(rules)})" if rules else ""
        numbered = sorted({v for _, e in self.read_copy for v in E.variables(e)
                           if is_lane_number(v)})
        if numbered:
            lanes = lanes[:-1] + "; " + ", ".join(
                f"{v} is the lane's number in {v[:-1]}'s unroll factor" for v in numbered) + ")"
        return f"{self.scheme.describe()}{copies}{lanes}"

    @property
    def copies_by_lane_number(self) -> bool:
        """Some read's copy depends on a lane's number in a loop unrolled in time
        (:func:`lane_number`): no emitted code can name it, so only a multi-port ROM,
        whose text stays, realizes these copies."""
        return by_lane_number(self.read_copy)

    def copy_expr(self, ref_id: int) -> E.Expr:
        """The copy the read reference ``ref_id`` reads, over its unrolled iterators."""
        return copy_expr(self.read_copy, ref_id)

    def lane_rules(self) -> tuple[str, ...]:
        """The copy expressions that vary with the lane (``copy floor(i/2) mod 8``)."""
        return tuple(sorted({f"copy {E.pretty(e)}" for _, e in self.read_copy
                             if not isinstance(e, E.Const)}))

    def copy_of(self, ref_id: int, lane: tuple[tuple[str, int], ...]) -> int:
        """The copy the read reference ``ref_id`` reads in the lane whose unrolled
        iterators take the values ``lane`` (``LaneAccess.lane``)."""
        return lane_copy(self.read_copy, ref_id, lane)


def copy_expr(read_copy: tuple[tuple[int, E.Expr], ...], ref_id: int) -> E.Expr:
    """``read_copy[ref_id]`` (:class:`Banking`), copy 0 when it is not listed."""
    return dict(read_copy).get(ref_id, E.const(0))


def by_lane_number(read_copy: tuple[tuple[int, E.Expr], ...]) -> bool:
    """Some copy of ``read_copy`` (:class:`Banking`) depends on a :func:`lane_number`."""
    return any(is_lane_number(v) for _, e in read_copy for v in E.variables(e))


def lane_copy(read_copy: tuple[tuple[int, E.Expr], ...], ref_id: int,
              lane: tuple[tuple[str, int], ...]) -> int:
    """The copy a lane of read reference ``ref_id`` reads under ``read_copy``, the
    lane's unrolled iterators taking the values ``lane``."""
    return int(E.evaluate(copy_expr(read_copy, ref_id), dict(lane)))
