"""The banking pass's isl glue: every isl set it builds is made here.

Sets live in an anonymous space ``[p0, p1, ...]`` (the group's time vector, renamed
so that no C identifier can clash with isl syntax).  Each irregular index dimension d
of lane k becomes a variable ``z<k>_<d>`` ranging over it: an extra
set dimension in the proof (:func:`with_irregular`), an existential elsewhere.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import islpy as isl
import numpy as np

from .. import expr as E
from ..poly.model import LaneAccess
from ..poly import isl_glue as G
from ..scheme import index_var


def time_names(count: int) -> tuple[str, ...]:
    return tuple(f"p{t}" for t in range(count))


def plain(domain: isl.Set) -> isl.Set:
    """``domain`` without its tuple name, so it meets the sets built here."""
    return domain.reset_tuple_id() if domain.has_tuple_id() else domain


@dataclass(frozen=True, slots=True)
class LaneTerms:
    """A lane's index over ``p*`` names, its existentials and their extents (each
    ranges over ``0 <= z < extent``)."""

    index: tuple[E.Expr, ...]
    exists: tuple[str, ...]
    extents: tuple[int, ...]


def lane_terms(lane: LaneAccess, time_vars: tuple[str, ...], tag: int,
               shape: tuple[int, ...], bank_dims: frozenset[int] = frozenset(),
               kept: frozenset[int] = frozenset()) -> LaneTerms:
    """An irregular index may be any index of its dimension (DESIGN §1).  A lane
    whose irregular dimensions are none of ``bank_dims`` (those the bank formula
    reads) keeps its regular ones, and so its bank (``A[i][idx[j]]`` banked on
    dimension 0 stays in row i); any other lane with an irregular dimension may hit
    any element whose index in ``kept`` is its own (under a per_dim scheme, the
    dimensions every irregular lane of the group knows: ``buf[v][idx][i]`` reaches the
    banks of its ``v``).  The checker and the scheduling rule make the same assumption
    (:func:`arraypart.check.ports.by_class`)."""
    rename = {v: E.var(p) for v, p in zip(time_vars, time_names(len(time_vars)))}
    irregular = {d for d, e in enumerate(lane.index) if e is None}
    if irregular & bank_dims:
        irregular = set(range(len(lane.index))) - kept
    index, exists, extents = [], [], []
    for d, e in enumerate(lane.index):
        if d in irregular:
            name = f"z{tag}_{d}"
            index.append(E.var(name))
            exists.append(name)
            extents.append(shape[d])
        else:
            index.append(E.substitute(e, rename))
    return LaneTerms(tuple(index), tuple(exists), tuple(extents))


def bank_of(bank_expr: E.Expr, terms: LaneTerms) -> E.Expr:
    """The bank formula with the element index replaced by the lane's index."""
    return E.substitute(bank_expr, {index_var(d): e for d, e in enumerate(terms.index)})


@dataclass(frozen=True, slots=True)
class Irregular:
    """Every lane's irregular index values as extra set dimensions: their ``names``
    and their ``extents``: each ranges over its array dimension."""

    names: tuple[str, ...]
    extents: tuple[int, ...]


def irregular_dims(terms: list[LaneTerms]) -> Irregular:
    return Irregular(tuple(n for t in terms for n in t.exists),
                     tuple(x for t in terms for x in t.extents))


def with_irregular(domain: isl.Set, extra: Irregular) -> tuple[isl.Set, tuple[str, ...]]:
    """``domain`` times the ranges of every lane's irregular index values (``extra``,
    :func:`irregular_dims`), as extra set dimensions (so that one lane's unknown index
    is the same value in every set that mentions it), and the names of all
    dimensions."""
    names = time_names(domain.dim(isl.dim_type.set)) + extra.names
    if not extra.names:
        return domain, names
    wider = domain.add_dims(isl.dim_type.set, len(extra.names))
    return _meet(wider, _box(names, extra.names, extra.extents)), names


@lru_cache(maxsize=64)
def _box(names: tuple[str, ...], ranged: tuple[str, ...],
         extents: tuple[int, ...]) -> isl.Set:
    """{ [names] : 0 <= ranged[k] < extents[k] } (one per group's lanes: every lane's
    domain meets it)."""
    space = G.set_space(names)
    box = isl.Set.universe(space)
    for name, extent in zip(ranged, extents):
        box = box.intersect(G.range_set(space, name, 0, extent - 1))
    return box


@dataclass(frozen=True, slots=True)
class LaneFunctions:
    """A lane's bank and index as isl functions over the dimensions ``names`` of a
    proof's sets (:func:`lane_functions`)."""

    bank: isl.PwAff
    index: tuple[isl.PwAff, ...]


def lane_functions(names: tuple[str, ...], terms: LaneTerms,
                   bank_expr: E.Expr) -> LaneFunctions:
    """``terms``' bank under ``bank_expr`` and its index, as isl functions: built
    once per lane of a proof, not once per pair (a 256-lane group's proof built
    them 50,000 times)."""
    space = G.set_space(names)
    return LaneFunctions(G.pw_aff(bank_of(bank_expr, terms), space),
                         tuple(G.pw_aff(x, space) for x in terms.index))


def collision_set(domain: isl.Set, a: LaneFunctions, b: LaneFunctions,
                  both_reads: bool) -> isl.Set:
    """S_ab = { P in domain : bank(f_a(P)) = bank(f_b(P)) and
    not (both reads and f_a(P) = f_b(P)) }, over the dimensions the functions are
    built on (:func:`lane_functions`); ``both_reads``: a and b are reads of one epoch
    (``LaneAccess.epoch``: reads with a write that may alias them between are
    two accesses)."""
    found = a.bank.eq_set(b.bank)
    if both_reads:
        differ = isl.Set.empty(a.bank.get_domain_space())
        for x, y in zip(a.index, b.index):
            differ = differ.union(x.ne_set(y))
        found = found.intersect(differ)
    return _meet(domain, found)


def shift_collision_set(shape: tuple[int, ...], bank_expr: E.Expr,
                        delta: tuple[int, ...]) -> isl.Set:
    """U_delta = { x : x and x + delta in the array, bank(x) = bank(x + delta) }.

    Two regular lanes whose indices differ by the constant delta != 0 collide only at
    some x in U_delta (their addresses always differ), so an empty U_delta proves
    every such pair apart at once, whatever the group's domain.  Built from isl
    functions on the space ``[x0, x1, ...]`` (no text)."""
    names = [index_var(d) for d in range(len(shape))]
    space = G.set_space(names)
    moved = E.substitute(bank_expr, {n: E.add(E.var(n), E.const(s))
                                     for n, s in zip(names, delta)})
    points = G.pw_aff(bank_expr, space).eq_set(G.pw_aff(moved, space))
    for n, size, s in zip(names, shape, delta):
        for x in (E.var(n), E.add(E.var(n), E.const(s))):
            f = G.pw_aff(x, space)
            points = points.intersect(f.ge_set(G.constant(space, 0)))
            points = points.intersect(f.le_set(G.constant(space, size - 1)))
    return points


def constant_difference(a: LaneTerms, b: LaneTerms) -> tuple[int, ...] | None:
    """``f_b - f_a`` when it is the same constant vector at every P, else None."""
    if a.exists or b.exists:
        return None
    delta = []
    for x, y in zip(a.index, b.index):
        diff = E.add(y, E.scale(-1, x))
        if not isinstance(diff, E.Const):
            return None
        delta.append(diff.value)
    return tuple(delta)


def all_differ_set(domain: isl.Set, terms: list[LaneTerms]) -> isl.Set:
    """{ P in domain : the lanes' indices are pairwise different }.

    A pair that differs by a nonzero constant in some dimension differs everywhere
    and adds no constraint; the other pairs add the disjunction over the dimensions
    whose difference is not constant (identical disjunctions once)."""
    names = time_names(domain.dim(isl.dim_type.set))
    conds: dict[str, None] = {}
    for k, a in enumerate(terms):
        for b in terms[k + 1:]:
            differences = [E.add(y, E.scale(-1, x)) for x, y in zip(a.index, b.index)]
            if any(isinstance(d, E.Const) and d.value for d in differences):
                continue
            differ = [f"{E.to_isl(x)} != {E.to_isl(y)}"
                      for x, y, d in zip(a.index, b.index, differences)
                      if not isinstance(d, E.Const)]
            conds["(" + " or ".join(differ) + ")" if differ else "false"] = None
    exists = tuple(n for t in terms for n in t.exists)
    bounds = tuple(f"0 <= {n} < {x}" for t in terms for n, x in zip(t.exists, t.extents))
    return _meet(domain, isl.Set(_set_text(names, exists, bounds + tuple(conds))))


# Sample points of a cell whose lanes' addresses witness distinct accesses: boxes of this
# side in its two innermost dimensions, at its lexicographic minimum and maximum.
WITNESS_SPAN = 4


def addresses_at_points(domain: isl.Set, terms: list[LaneTerms]
                        ) -> list[list[tuple[int, ...]]]:
    """The lanes' indices (in lane order) at a few real points of ``domain``
    (:func:`points_near_extremes`), found without isl's sets of pairwise disjunctions,
    which grow exponentially; none when an index is not a function of the time vector
    alone."""
    count = domain.dim(isl.dim_type.set)
    names = set(time_names(count))
    if any(t.exists or not E.variables(e) <= names for t in terms for e in t.index):
        return []
    spans = tuple(WITNESS_SPAN if k >= count - 2 else 1 for k in range(count))
    return [[tuple(evaluate_at(e, point) for e in t.index) for t in terms]
            for point in points_near_extremes(domain, spans)]


def same_everywhere(domain: isl.Set, a: LaneTerms, b: LaneTerms) -> bool:
    """Whether two regular lanes address one element at every P of ``domain``."""
    return domain.is_subset(same_address_set(domain, a, b))


def same_address_set(domain: isl.Set, a: LaneTerms, b: LaneTerms) -> isl.Set:
    """{ P in domain : f_a(P) = f_b(P) } for two regular lanes."""
    space = G.set_space(time_names(domain.dim(isl.dim_type.set)))
    found = isl.Set.universe(space)
    for x, y in zip(a.index, b.index):
        found = found.intersect(G.pw_aff(x, space).eq_set(G.pw_aff(y, space)))
    return _meet(domain, found)


def image(domain: isl.Set, rows: tuple[E.Expr, ...]) -> isl.Set:
    """{ (rows(P)) : P in domain } for affine ``rows`` over ``p*``."""
    names = time_names(domain.dim(isl.dim_type.set))
    return domain.apply(_affine_map(names, rows))


def translate(points: isl.Set, shift: tuple[int, ...]) -> isl.Set:
    """{ x - shift : x in points }."""
    names = tuple(f"x{d}" for d in range(len(shift)))
    return points.apply(_affine_map(names, tuple(
        E.add(E.var(n), E.const(-s)) for n, s in zip(names, shift))))


def _affine_map(names: tuple[str, ...], rows: tuple[E.Expr, ...]) -> isl.Map:
    """{ [names] -> [rows(names)] }, built from isl functions (as poly's access maps)."""
    space = G.set_space(names)
    result = isl.Map.from_domain_and_range(isl.Set.universe(space), G.universe([]))
    for row in rows:
        result = result.flat_range_product(isl.Map.from_pw_aff(G.pw_aff(row, space)))
    return result


def sample(points: isl.Set) -> tuple[int, ...]:
    """One point of a nonempty set."""
    pt = points.sample_point()
    return tuple(pt.get_coordinate_val(isl.dim_type.set, k).to_python()
                 for k in range(points.dim(isl.dim_type.set)))


def evaluate_at(e: E.Expr, point: tuple[int, ...]) -> int:
    env = {p: np.int64(v) for p, v in zip(time_names(len(point)), point)}
    return int(E.evaluate(e, env))


def _set_text(names: tuple[str, ...], exists: tuple[str, ...],
              conds: tuple[str, ...]) -> str:
    body = " and ".join(conds) if conds else "true"
    if exists:
        body = f"exists ({', '.join(exists)} : {body})"
    return f"{{ [{', '.join(names)}] : {body} }}"


def _meet(domain: isl.Set, constraint: isl.Set) -> isl.Set:
    """``domain`` ∩ ``constraint`` (a set on the space of ``domain``'s dimensions by
    position, without its parameters)."""
    if domain.dim(isl.dim_type.param):
        constraint = constraint.align_params(domain.get_space())
    return domain.intersect(constraint)


def points_near_extremes(domain: isl.Set, spans: tuple[int, ...]) -> list[tuple[int, ...]]:
    """The points of ``domain`` in the boxes of side ``spans[k]`` in dimension k at its
    lexicographic minimum and maximum (a small, deterministic sample of real
    iterations: at most 2 * prod(spans) points)."""
    if domain.is_empty():
        return []
    names = time_names(domain.dim(isl.dim_type.set))
    space = G.set_space(names)
    found: set[tuple[int, ...]] = set()
    for corner, sign in ((sample(domain.lexmin()), 1), (sample(domain.lexmax()), -1)):
        box = plain(domain)
        for n, c, span in zip(names, corner, spans):
            low, high = (c, c + span - 1) if sign > 0 else (c - span + 1, c)
            f = G.pw_aff(E.var(n), space)
            box = box.intersect(f.ge_set(G.constant(space, low))).intersect(
                f.le_set(G.constant(space, high)))
        G.each_point(box, lambda pt: found.add(tuple(
            pt.get_coordinate_val(isl.dim_type.set, k).to_python()
            for k in range(len(names)))))
    return sorted(found)
