"""Shape of a cycle group, computed once per solve: which lanes differ by constants.

A group is *uniform* when every lane is regular and affine and all lanes share the
linear part of their index: ``index_k(P) = L·P + d_k`` with constant vectors ``d_k``.
Then which lanes share a bank depends only on residues of ``L·P`` (see
:mod:`.precheck`), and the lower bound reasons on the offset set ``D = {d_k}``.
Other groups (``A[i][j]`` with ``A[j][i]``, ``A[2*i]`` with ``A[i]``, quasi-affine or
irregular indices) are left to isl.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property, reduce
from math import gcd

import islpy as isl
import numpy as np

from .. import expr as E
from ..poly import isl_glue as G
from ..poly.model import CycleGroup, LaneAccess

Linear = tuple[tuple[tuple[str, int], ...], ...]


@dataclass(frozen=True, eq=False)
class GroupShape:
    """``linear[d]``: the coefficients of ``L`` in row d (sorted ``(var, k)`` pairs), or
    None when the group is not uniform; ``offsets[k]``: ``d_k`` (shape lanes x dims,
    meaningful only when uniform); ``varying``: dimensions in which two lanes may
    differ at one P; ``strides[t]``: the step between consecutive values of time
    variable t in the domain (isl's stride; 0 when t takes one value)."""

    group: CycleGroup
    linear: Linear | None
    offsets: np.ndarray
    varying: frozenset[int]
    strides: tuple[int, ...] = ()

    @property
    def uniform(self) -> bool:
        return self.linear is not None

    @property
    def lanes(self) -> tuple[LaneAccess, ...]:
        return self.group.accesses

    @cached_property
    def instanced_lanes(self) -> tuple[LaneAccess, ...]:
        """The lanes whose site has a subscript of its own in other instances of its
        loop's text (``LaneAccess.instances``): the others agree under any scheme."""
        return tuple(a for a in self.lanes if a.instances)

    @cached_property
    def may_be_negative(self) -> tuple[bool, ...]:
        """Per time variable, whether it takes a negative value over the domain (C's
        ``%`` of it is then no floor: no phase switch is written over it)."""
        domain = self.group.domain
        if domain.is_empty():
            return (False,) * len(self.group.time_vars)
        return tuple(G.smallest(domain, v) is None or G.smallest(domain, v) < 0
                     for v in self.group.time_vars)

    @cached_property
    def linear_ranges(self) -> tuple[tuple[int, int] | None, ...]:
        """Per dimension, the least and greatest value of ``L·P`` over the domain
        (None: unbounded, or the group is empty or not uniform)."""
        if not self.uniform:
            return ()
        if self.group.domain.is_empty():
            return (None,) * len(self.linear)
        return tuple(_range(self.group.domain, row) for row in self.linear)


def analyze_group(group: CycleGroup, ndims: int) -> GroupShape:
    """Split every lane index into linear part and constant; uniform iff all agree."""
    forms = [affine_index(a) for a in group.accesses]
    varying = frozenset(d for d in range(ndims) if _dim_varies(group.accesses, d))
    strides = _strides(group)
    if not forms or any(f is None for f in forms):
        return GroupShape(group, None, np.zeros((0, ndims), np.int64), varying, strides)
    linears = {f[0] for f in forms}
    if len(linears) != 1:
        return GroupShape(group, None, np.zeros((0, ndims), np.int64), varying, strides)
    offsets = np.array([f[1] for f in forms], dtype=np.int64).reshape(len(forms), ndims)
    return GroupShape(group, linears.pop(), offsets, varying, strides)


def _strides(group: CycleGroup) -> tuple[int, ...]:
    """isl's stride of each time variable when its offset is a constant (t = c + s*y);
    1 when the offset depends on other variables (the lattice is not a box); 0 when
    it takes one constant value (the block start of ``unroll factor=16`` over 16
    trips: isl's stride is 1 there, yet no lane's bank moves with it)."""
    domain = group.domain
    count = len(group.time_vars)
    if domain.is_empty():
        return (1,) * count
    strides = []
    for t in range(count):
        if G.one_value(domain, t):
            strides.append(0)
            continue
        info = domain.get_stride_info(t)
        offset = info.get_offset()
        boxed = (not offset.involves_dims(isl.dim_type.in_, 0, count)
                 and offset.dim(isl.dim_type.div) == 0)
        strides.append(abs(info.get_stride().to_python()) if boxed else 1)
    return tuple(strides)


def _range(domain: isl.Set, row: tuple[tuple[str, int], ...]) -> tuple[int, int] | None:
    """min and max of ``sum k*v`` over ``domain`` (None when either is infinite)."""
    if not row:
        return (0, 0)
    f = G.pw_aff(E.add(*(E.scale(k, E.var(v)) for v, k in row)), domain.space)
    f = f.intersect_domain(domain)
    low, high = f.min_val(), f.max_val()
    if not (low.is_int() and high.is_int()):
        return None
    return low.to_python(), high.to_python()


def affine_index(access: LaneAccess) -> tuple[Linear, tuple[int, ...]] | None:
    rows, consts = [], []
    for e in access.index:
        form = None if e is None else E.affine_form(e)
        if form is None:
            return None
        rows.append(tuple(sorted((v, k) for v, k in form[0].items() if k)))
        consts.append(form[1])
    return tuple(rows), tuple(consts)


def _dim_varies(lanes: tuple[LaneAccess, ...], d: int) -> bool:
    exprs = {E.simplify(a.index[d]) if a.index[d] is not None else None for a in lanes}
    return None in exprs or len(exprs) > 1


@dataclass(frozen=True, slots=True)
class ReadRef:
    """A read reference of an array and how its lanes may be spread over copies.

    The unrolled iterators u_1..u_m (nesting order) that are constants ``>= 0`` in
    every lane of the reference and take at least two values there number its lanes:
    with g_v the gcd of v's values and r_v = floor(max_v/g_v) - floor(min_v/g_v) + 1,

        lane_index = sum_v w_v * floor(u_v / g_v),   w_v = prod_{later v'} r_v'

    (mixed radix, so distinct lanes get distinct numbers); with one such iterator it is
    u itself and ``step`` g (so ``floor(lane_index / step)`` numbers consecutively).
    ``values``: lane_index over the lanes (sorted, at least two); ``lanes``: the
    lanes' iterator values.  None and empty when no iterator qualifies.  ``groups``:
    the cycle groups (by position) it reads in."""

    ref_id: int
    lane_index: E.Expr | None = None
    step: int = 1
    values: tuple[int, ...] = ()
    lanes: tuple[tuple[tuple[str, int], ...], ...] = ()
    groups: frozenset[int] = frozenset()


def read_refs(shapes: list[GroupShape], *, in_time: bool) -> tuple[ReadRef, ...]:
    """The read references of an array, in ``ref_id`` order; with ``in_time`` (a
    multi-port ROM, whose copies no emitted code selects) the lanes of loops unrolled in
    time number them too (``LaneAccess.copy_lane``)."""
    lanes: dict[int, list[tuple[tuple[str, int], ...]]] = {}
    groups: dict[int, set[int]] = {}
    for g, s in enumerate(shapes):
        for a in s.lanes:
            if a.kind == "read":
                lanes.setdefault(a.ref_id, []).append(a.copy_lane if in_time else a.lane)
                groups.setdefault(a.ref_id, set()).add(g)
    return tuple(replace(_read_ref(r, lanes[r]), groups=frozenset(groups[r]))
                 for r in sorted(lanes))


def _read_ref(ref_id: int, lanes: list[tuple[tuple[str, int], ...]]) -> ReadRef:
    envs = [dict(lane) for lane in lanes]
    shared = set.intersection(*(set(env) for env in envs))
    seen = {v: sorted({env[v] for env in envs}) for v in shared}
    usable = [v for v, _ in lanes[0] if v in shared and len(seen[v]) > 1
              and seen[v][0] >= 0]
    if not usable:
        return ReadRef(ref_id)
    if len(usable) == 1:
        index, step = E.var(usable[0]), reduce(gcd, seen[usable[0]])
    else:
        terms, weight = [], 1
        for v in reversed(usable):
            g = reduce(gcd, seen[v])
            terms.append(E.scale(weight, E.floordiv(E.var(v), g)))
            weight *= seen[v][-1] // g - seen[v][0] // g + 1
        index, step = E.add(*terms), 1
    values = tuple(sorted({int(E.evaluate(index, env)) for env in envs}))
    return ReadRef(ref_id, index, step, values, tuple(sorted(set(lanes))))
