"""The one place where arraypart's expressions and constraints become isl objects.

isl objects are built from spaces and piecewise quasi-affine functions (``isl.PwAff``),
never by formatting isl text, so variable names need no quoting and isl's keywords
(``mod``, ``floor``, ``min``, ...) can be iterator names.  Every set here lives in a
*set space* whose dimensions are named after loop iterators (or time variables),
outermost first, after the run-time sizes; there are no isl parameters (constants are
folded by the front end, sizes are dimensions: :mod:`.domains`).

A loop ``for (var = init; var <cmp> bound; var += step)`` normalized as in
:class:`arraypart.ir.Loop` and walked with stride ``s = factor*step`` (``factor`` > 1
when the loop is unrolled into blocks) contributes, for step > 0,

    var >= max(init)  and  var <= min(bound)  and  (var - max(init)) mod s == 0

and for step < 0 the mirror image ``var <= min(init)``, ``var >= max(bound)``,
``(min(init) - var) mod |s| == 0``.  Its trip count from a given outer point is
``max(0, floor((min(bound) - max(init)) / s) + 1)`` (mirrored for step < 0).
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Callable, Iterable, Iterator, Sequence

import islpy as isl

from .. import expr as E
from ..ir import Conjunction, Constraint, Loop

SET = isl.dim_type.set
#: What isl's error says when a call ran past :func:`operation_budget`'s limit.
OUT_OF_OPERATIONS = "maximal number of operations exceeded"


@contextmanager
def operation_budget(limit: int) -> Iterator[Callable[[], None]]:
    """Within the block an isl call that runs more than ``limit`` of isl's elementary
    operations since the last ``restart()`` (the value yielded) fails with
    :class:`isl.Error` (:func:`out_of_operations`) instead of running on: isl cannot be
    interrupted inside a call, and one intersection of sets with many floor and mod
    terms can take minutes.  The context's own limit is restored after."""
    ctx = isl.DEFAULT_CONTEXT
    previous = ctx.get_max_operations()
    ctx.set_max_operations(limit)
    ctx.reset_operations()
    try:
        yield ctx.reset_operations
    finally:
        ctx.set_max_operations(previous)
        ctx.reset_operations()


def out_of_operations(error: isl.Error) -> bool:
    """``error`` is :func:`operation_budget`'s, not a fault."""
    return OUT_OF_OPERATIONS in str(error)


def each_point(s: isl.Set, take: Callable[[isl.Point], None]) -> None:
    """``s.foreach_point(take)``, except that an exception ``take`` raises (Ctrl-C
    among them) propagates once the walk ends: raised inside the callback, islpy
    would print its traceback and turn it into a failed isl call (an interruption
    would end the run as an internal error), so the callback keeps it and passes over
    the points that remain."""
    raised: list[BaseException] = []

    def guarded(point: isl.Point) -> None:
        if raised:
            return
        try:
            take(point)
        except BaseException as error:
            raised.append(error)

    s.foreach_point(guarded)
    if raised:
        raise raised[0]


def set_space(names: Sequence[str]) -> isl.Space:
    """The set space ``[n0, n1, ...]`` (no parameters)."""
    return isl.Space.create_from_names(isl.DEFAULT_CONTEXT, set=list(names))


def universe(names: Sequence[str]) -> isl.Set:
    return isl.Set.universe(set_space(names))


def empty(names: Sequence[str]) -> isl.Set:
    return isl.Set.empty(set_space(names))


def dim_names(space_or_set) -> tuple[str, ...]:
    """The names of the set dimensions of a set or set space."""
    space = space_or_set if isinstance(space_or_set, isl.Space) else space_or_set.space
    return tuple(space.get_dim_name(SET, k) for k in range(space.dim(SET)))


def add_dim(domain: isl.Set, name: str) -> isl.Set:
    """``domain`` × ℤ with the new innermost dimension called ``name`` (unconstrained)."""
    n = domain.dim(SET)
    return domain.add_dims(SET, 1).set_dim_name(SET, n, name)


def constant(space: isl.Space, value: int) -> isl.PwAff:
    ls = isl.LocalSpace.from_space(space)
    return isl.PwAff.from_aff(isl.Aff.zero_on_domain(ls).set_constant_val(_val(value)))


def pw_aff(e: E.Expr, space: isl.Space) -> isl.PwAff:
    """The quasi-affine function ``e`` on the set space ``space`` (its variables are
    the space's dimensions; an unknown variable is a ValueError: a front-end bug)."""
    if isinstance(e, E.Const):
        return constant(space, e.value)
    if isinstance(e, E.Var):
        pos = space.find_dim_by_name(SET, e.name)
        if pos < 0:
            raise ValueError(f"variable {e.name!r} is not one of {dim_names(space)}")
        ls = isl.LocalSpace.from_space(space)
        return isl.PwAff.from_aff(isl.Aff.var_on_domain(ls, SET, pos))
    if isinstance(e, E.Add):
        total = pw_aff(e.terms[0], space)
        for t in e.terms[1:]:
            total = total.add(pw_aff(t, space))
        return total
    if isinstance(e, E.Scale):
        return pw_aff(e.arg, space).scale_val(_val(e.factor))
    if isinstance(e, E.FloorDiv):
        return pw_aff(e.arg, space).scale_down_val(_val(e.divisor)).floor()
    return pw_aff(e.arg, space).mod_val(_val(e.modulus))


def _val(k: int) -> isl.Val:
    """``k`` as an isl value, of any size (C's ``SIZE_MAX`` is past a C long, which is
    all ``int_from_si`` and the bindings' own conversion take)."""
    k = int(k)
    if -2 ** 63 <= k < 2 ** 63:
        return isl.Val.int_from_si(isl.DEFAULT_CONTEXT, k)
    return isl.Val(str(k))


def range_set(space: isl.Space, name: str, low: int | None,
              high: int | None) -> isl.Set:
    """``{x : low <= x[name] <= high}`` (no bound on a side given as None)."""
    v = pw_aff(E.var(name), space)
    found = isl.Set.universe(space)
    if low is not None:
        found = found.intersect(v.ge_set(constant(space, low)))
    if high is not None:
        found = found.intersect(v.le_set(constant(space, high)))
    return found


def project_onto(s: isl.Set, name: str) -> isl.Set:
    """The values of dimension ``name`` over the points of ``s``."""
    pos = s.space.find_dim_by_name(SET, name)
    return s.project_out(SET, pos + 1, s.dim(SET) - pos - 1).project_out(SET, 0, pos)


def constraint_set(c: Constraint, space: isl.Space) -> isl.Set:
    """``{x : expr(x) >= 0}`` or ``{x : expr(x) == 0}``."""
    f = pw_aff(c.expr, space)
    return f.nonneg_set() if c.op == ">=" else f.zero_set()


def conjunction_set(conj: Conjunction, space: isl.Space) -> isl.Set:
    result = isl.Set.universe(space)
    for c in conj:
        result = result.intersect(constraint_set(c, space))
    return result


def dnf_set(cond: Iterable[Conjunction], space: isl.Space) -> isl.Set:
    """The union of the conjunctions (an empty disjunction is the empty set)."""
    result = isl.Set.empty(space)
    for conj in cond:
        result = result.union(conjunction_set(conj, space))
    return result


def _extremum(exprs: Sequence[E.Expr], space: isl.Space, use_max: bool) -> isl.PwAff:
    result = pw_aff(exprs[0], space)
    for e in exprs[1:]:
        other = pw_aff(e, space)
        result = result.max(other) if use_max else result.min(other)
    return result


def loop_start(loop: Loop, space: isl.Space, inits: Sequence[E.Expr]) -> isl.PwAff:
    """The first value: max(init) for step > 0, min(init) for step < 0."""
    return _extremum(inits, space, use_max=loop.step > 0)


def loop_end(loop: Loop, space: isl.Space, bounds: Sequence[E.Expr]) -> isl.PwAff:
    """The inclusive last admissible value: min(bound) for step > 0, else max(bound)."""
    return _extremum(bounds, space, use_max=loop.step < 0)


def loop_set(loop: Loop, space: isl.Space, var: str, inits: Sequence[E.Expr],
             bounds: Sequence[E.Expr], factor: int = 1) -> isl.Set:
    """The values of ``var`` (a dimension of ``space``) walking ``loop`` with stride
    ``factor*step`` from its start (module doc); ``inits``/``bounds`` are the loop's
    bounds already expressed over ``space``."""
    v = pw_aff(E.var(var), space)
    start = loop_start(loop, space, inits)
    end = loop_end(loop, space, bounds)
    stride = abs(loop.step) * factor
    if loop.step > 0:
        result = v.ge_set(start).intersect(v.le_set(end))
        distance = v.sub(start)
    else:
        result = v.le_set(start).intersect(v.ge_set(end))
        distance = start.sub(v)
    if stride > 1:
        result = result.intersect(distance.mod_val(_val(stride)).zero_set())
    return result


def trip_count(loop: Loop, space: isl.Space, inits: Sequence[E.Expr],
               bounds: Sequence[E.Expr], factor: int = 1) -> isl.PwAff:
    """``max(0, floor(|end - start| / (factor*|step|)) + 1)`` as a function on ``space``
    (the number of blocks of ``factor`` iterations; module doc)."""
    start = loop_start(loop, space, inits)
    end = loop_end(loop, space, bounds)
    span = end.sub(start) if loop.step > 0 else start.sub(end)
    blocks = span.scale_down_val(_val(abs(loop.step) * factor)).floor().add(constant(space, 1))
    return blocks.max(constant(space, 0))


def value_range(f: isl.PwAff, domain: isl.Set) -> tuple[int, int] | None:
    """(min, max) of ``f`` over ``domain`` (None when the domain is empty)."""
    if domain.is_empty():
        return None
    g = f.intersect_domain(domain)
    return g.min_val().to_python(), g.max_val().to_python()


def stride(s: isl.Set, name: str) -> int:
    """The largest ``k`` such that every value of dimension ``name`` over ``s`` is
    congruent to one constant modulo ``k`` (1 when isl finds no stride)."""
    info = s.get_stride_info(s.find_dim_by_name(SET, name))
    return max(1, info.get_stride().to_python())


def one_value(s: isl.Set, position: int) -> bool:
    """Set dimension ``position`` of ``s`` takes one constant value over ``s``, the
    same whatever the parameters (``k = 0``; not ``k = N``)."""
    count = s.dim(SET)
    alone = s.project_out(SET, position + 1, count - position - 1).project_out(
        SET, 0, position)
    return not alone.detect_equalities().plain_get_val_if_fixed(SET, 0).is_nan()


def fixed(domain: isl.Set, values: Sequence[int]) -> isl.Set:
    """``domain`` with its first ``len(values)`` dimensions fixed at ``values``."""
    for d, value in enumerate(values):
        domain = domain.fix_val(isl.dim_type.set, d, isl.Val.int_from_si(domain.get_ctx(),
                                                                          int(value)))
    return domain


def first_point(s: isl.Set) -> dict[str, int]:
    """The lexicographically smallest point of a non-empty bounded set, by name."""
    point = s.lexmin().sample_point()
    return {name: point.get_coordinate_val(SET, k).to_python()
            for k, name in enumerate(dim_names(s))}


def last_point(s: isl.Set) -> dict[str, int]:
    """The lexicographically largest point of a non-empty set bounded above, by name."""
    point = s.lexmax().sample_point()
    return {name: point.get_coordinate_val(SET, k).to_python()
            for k, name in enumerate(dim_names(s))}


def count(s: isl.Set) -> int:
    """The number of integer points of a bounded set.

    isl's ``count_val`` scans every point of all dimensions but the innermost (2^49
    for a nest of 50 loops of two iterations, in one uninterruptible C call), so the
    set is first split where it is a product: if ``s == head × tail`` (its projections
    on the outer ``k + 1`` dimensions and on the rest), ``|s| = |head| * |tail|``.  A
    rectangular nest is counted one loop at a time; only coupled dimensions (a
    triangular nest) are scanned, and only over the loops they couple.  Before that,
    dimensions that no constraint ties together (a fresh size and the loop it bounds,
    beside another size and its loop) are counted apart (:func:`_components`)."""
    parts = _components(s)
    if len(parts) > 1:
        n = s.dim(SET)
        total = 1
        for part in parts:
            others = [k for k in range(n) if k not in part]
            piece = s
            for k in reversed(others):
                piece = piece.project_out(SET, k, 1)
            total *= _count_nested(piece)
        return total
    return _count_nested(s)


def _components(s: isl.Set) -> list[list[int]]:
    """The dimensions of ``s`` grouped by the constraints that tie them (with the
    divisions they use), when ``s`` is one basic set; else one group of all."""
    n = s.dim(SET)
    whole = [list(range(n))]
    basics = s.coalesce().get_basic_sets()
    if n < 2 or len(basics) != 1:
        return whole
    bset = basics[0]
    divs = bset.dim(isl.dim_type.div)
    parent = list(range(n + divs))

    def find(k: int) -> int:
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    for c in bset.get_constraints():
        used = [k for k in range(n) if not c.get_coefficient_val(SET, k).is_zero()]
        used += [n + j for j in range(divs)
                 if not c.get_coefficient_val(isl.dim_type.div, j).is_zero()]
        for k in used[1:]:
            parent[find(k)] = find(used[0])
    groups: dict[int, list[int]] = {}
    for k in range(n):
        groups.setdefault(find(k), []).append(k)
    return list(groups.values()) if len(groups) > 1 else whole


def _count_nested(s: isl.Set) -> int:
    """:func:`count` of a set whose dimensions are tied together."""
    n = s.dim(SET)
    for k in range(n - 1):
        head = s.project_out(SET, k + 1, n - k - 1)
        tail = s.project_out(SET, 0, k + 1)
        if head.flat_product(tail).is_equal(s):
            return head.count_val().to_python() * _count_nested(tail)
    return s.count_val().to_python()


def access_map(domain: isl.Set, index: Sequence[E.Expr | None], array: str) -> isl.Map:
    """``{ x -> array[index(x)] : x in domain }``; an irregular (None) dimension of the
    index is unconstrained."""
    space = domain.space
    result = isl.Map.from_domain_and_range(isl.Set.universe(space), universe([]))
    for e in index:
        if e is None:
            dim = isl.Map.from_domain_and_range(isl.Set.universe(space), universe(["_"]))
        else:
            dim = isl.Map.from_pw_aff(pw_aff(e, space))
        result = result.flat_range_product(dim)
    return result.intersect_domain(domain).set_tuple_name(isl.dim_type.out, array)


def lane_set(loop: Loop, space: isl.Space, var: str, bounds: Sequence[E.Expr],
             offset: int) -> isl.Set:
    """The block starts ``var`` whose lane ``var + offset`` still satisfies the loop's
    end bound (``var + offset <= min(bound)``, or ``>= max(bound)`` for step < 0)."""
    lane = pw_aff(E.var(var), space).add(constant(space, offset))
    end = loop_end(loop, space, bounds)
    return lane.le_set(end) if loop.step > 0 else lane.ge_set(end)


def equal_set(e: E.Expr, f: isl.PwAff) -> isl.Set:
    """Where the expression ``e`` equals the function ``f`` (on f's space)."""
    return pw_aff(e, f.get_domain_space()).eq_set(f)


def changes(m: isl.Map, name: str, by: int = 1) -> isl.Set:
    """The values ``v`` of the domain dimension ``name`` at which ``m`` changes from
    one value to the one ``by`` further: ``{v : m restricted to name = v differs from m
    restricted to name = v + by}``, the other dimensions (iterations and the other
    sizes) and the range compared as they are.  Bounded above by ``c``, every value
    above ``c`` gives ``m`` the image of the value ``by`` further."""
    space = m.get_space().domain()
    step = shifted(space, space.find_dim_by_name(SET, name), by)
    following = m.preimage_domain_multi_aff(step)
    return project_onto(m.subtract(following).union(following.subtract(m)).domain(), name)


def shifted(space: isl.Space, pos: int, by: int = 1) -> isl.MultiAff:
    """``x -> x + by * e_pos`` on the set ``space``: its dimension ``pos`` ``by``
    larger, the others as they are."""
    step = isl.MultiAff.identity_on_domain_space(space)
    return step.set_at(pos, step.get_at(pos).add_constant_val(_val(by)))


def depends_on(m: isl.Map, name: str) -> bool:
    """Whether the map ``m`` constrains its domain dimension ``name``: some two
    points that differ in it alone have different images (or one has none)."""
    pos = m.space.find_dim_by_name(isl.dim_type.in_, name)
    return not m.eliminate(isl.dim_type.in_, pos, 1).is_equal(m)


def clamped(space: isl.Space, box: dict[str, tuple[int | None, int | None]]
            ) -> isl.MultiPwAff:
    """``x -> c(x)`` on the set ``space``: each dimension named in ``box`` moved to the
    nearest value of its range, ``c(x)[d] = max(low, min(high, x[d]))`` (an open end
    clamps nothing), the others as they are."""
    moved = isl.MultiPwAff.from_multi_aff(isl.MultiAff.identity_on_domain_space(space))
    for name, (low, high) in box.items():
        pos = space.find_dim_by_name(SET, name)
        value = moved.get_at(pos)
        if high is not None:
            value = value.min(constant(space, high))
        if low is not None:
            value = value.max(constant(space, low))
        moved = moved.set_at(pos, value)
    return moved


def largest(s: isl.Set, name: str) -> int | None:
    """The largest value of dimension ``name`` over the non-empty set ``s`` (None when
    it has none)."""
    top = pw_aff(E.var(name), s.space).intersect_domain(s).max_val()
    return None if top.is_infty() else top.to_python()


def smallest(s: isl.Set, name: str) -> int | None:
    """The smallest value of dimension ``name`` over the non-empty set ``s`` (None when
    it has none)."""
    bottom = pw_aff(E.var(name), s.space).intersect_domain(s).min_val()
    return None if bottom.is_neginfty() else bottom.to_python()
