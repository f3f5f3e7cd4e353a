"""Lower bound on banks (DESIGN §2) and the BRAM18K estimate.

For one cycle with R distinct read addresses and W writes, a bank serves at most
``k*c`` accesses at II k with c ports (``k*(rw+ro)`` reads, ``k*(rw+wo)`` writes), so
at least ceil((R+W)/(k*c)), ceil(R/(k*(rw+ro))) and ceil(W/(k*(rw+wo))) banks are
needed.  With one access per bank and cycle (k*c = 1) no two elements that some
cycle accesses together may share a bank, so a clique of that *conflict graph* is a
bound too (Escobedo and Lin, FPGA'18: the 3×3 ring without its centre needs 9).  For
a uniform group, elements u, v are co-accessed iff u - v ∈ D - D (D: the offsets)
*and* the base that puts them there is reachable; a clique is accepted only after
isl finds one translation at which every base it needs is reachable.  A larger
capacity weakens the pairwise argument (three pairwise co-accessed elements may
never meet in one cycle), so then only the counting bound is used.
"""

from __future__ import annotations

import itertools
from math import ceil, prod

import islpy as isl
import networkx as nx
import numpy as np

from .. import expr as E
from ..bram import BRAM18K_ASPECTS, LUTRAM_BITS, bram18k  # noqa: F401 (re-exported)
from ..ir import Array, PortModel
from ..poly.model import ArrayModel, LaneAccess
from . import islsets as S
from .groups import GroupShape, affine_index, analyze_group

# Proving that n regular lanes are pairwise distinct takes one isl disjunction per
# pair: fast up to here (syr2k has 64 lanes), minutes for a thousand.  Past this many
# lanes only the lanes that differ by constants are counted (a valid under-count).
MAX_DIFFER_LANES = 64
# Exact maximum clique is exponential; beyond this many cells of the pattern's
# bounding box the offset set D itself (always a clique) is used.
MAX_CLIQUE_CELLS = 64

def lower_bound(array_model: ArrayModel) -> int:
    """No banking of any family serves every group with fewer banks x copies."""
    ndims = len(array_model.array.shape)
    shapes = [analyze_group(g, ndims) for g in array_model.groups]
    return lower_bound_of(array_model.ports, shapes, array_model.array)


def lower_bound_of(ports: PortModel, shapes: list[GroupShape], array: Array, *,
                   exhaustive: bool = True) -> int:
    """The bound over every group of ``array``, never above its element count when it
    may be partitioned: one register per element serves any pattern (DESIGN §2).
    Without ``exhaustive``, lanes count as distinct addresses only where they differ
    by constants or at a sample point, never by an isl search that may take minutes
    (a weaker bound, for a run that the time limit already ended once)."""
    bound = max([1] + [_group_bound(ports, s, array.size, exhaustive) for s in shapes])
    return min(bound, array.size) if array.partitionable else bound


def counting_bound(ports: PortModel, reads: int, writes: int, ii: int) -> int:
    bounds = [1]
    if ports.capacity is not None:
        bounds.append(ceil((reads + writes) / (ii * ports.capacity)))
        if reads and ports.read_write + ports.read_only:
            bounds.append(ceil(reads / (ii * (ports.read_write + ports.read_only))))
    if writes and ports.read_write + ports.write_only:
        bounds.append(ceil(writes / (ii * (ports.read_write + ports.write_only))))
    return max(bounds)


def _group_bound(ports: PortModel, shape: GroupShape, elements: int,
                 exhaustive: bool) -> int:
    ii = shape.group.target_ii
    single = ports.capacity is not None and ii * ports.capacity == 1
    best = 1
    for cell, lanes in _cells(shape):
        reads, writes = _distinct_accesses(shape, cell, lanes, elements, exhaustive)
        best = max(best, counting_bound(ports, reads, writes, ii))
        if single and shape.uniform:
            best = max(best, _clique_bound(shape, cell, lanes))
    return best


def _cells(shape: GroupShape) -> list[tuple[isl.Set, tuple[int, ...]]]:
    """The group's domain split by which lanes run: (cell, active lanes), nonempty."""
    domains = [S.plain(a.domain) for a in shape.lanes]
    cells = [(S.plain(shape.group.domain), ())]
    for k, dom in enumerate(domains):
        split = []
        for cell, lanes in cells:
            inside, outside = cell.intersect(dom), cell.subtract(dom)
            split += [(c, l) for c, l in ((inside, lanes + (k,)), (outside, lanes))
                      if not c.is_empty()]
        cells = split
    return [(c, l) for c, l in cells if l]


def _distinct_accesses(shape: GroupShape, cell: isl.Set, lanes: tuple[int, ...],
                       elements: int, exhaustive: bool) -> tuple[int, int]:
    """(distinct read addresses, writes) at some P of ``cell`` (a valid under-count;
    ``exhaustive``: :func:`lower_bound_of`).

    An irregular read may be steered by the data to any element, so the irregular
    reads add their number of distinct addresses, up to the array's size; writes that
    are one write (``CycleGroup.merged_writes``) count once."""
    writes = sum(shape.lanes[k].kind == "write" and k not in shape.group.merged_writes
                 for k in lanes)
    reads = [k for k in lanes if shape.lanes[k].kind == "read"]
    if shape.uniform:
        return len({tuple(shape.offsets[k]) for k in reads}), writes
    irregular = sum(not shape.lanes[k].regular for k in reads)
    regular = {tuple(shape.lanes[k].index): k for k in reads if shape.lanes[k].regular}
    distinct = max(min(len(regular), 1),
                   _distinct_offsets([shape.lanes[k] for k in regular.values()]))
    if 2 <= len(regular) <= MAX_DIFFER_LANES:
        group = shape.group
        terms = [S.lane_terms(shape.lanes[k], group.time_vars, k, ())
                 for k in regular.values()]
        distinct = max(distinct, _distinct_regular(cell, terms, exhaustive))
    return min(distinct + irregular, elements), writes


def _distinct_regular(cell: isl.Set, terms: list[S.LaneTerms], exhaustive: bool) -> int:
    """The most distinct addresses of the regular lanes ``terms`` at one P of ``cell``
    that is shown without an isl search of minutes, or with it when ``exhaustive``.

    At a few sample points the lanes' distinct addresses are witnesses.  Lanes that
    meet at all of them and at every P (isl: one small set per such pair) are one
    address; when a witness has as many as there are such classes, no P has more.
    Otherwise only the exhaustive search, on one lane per class, shows whether all
    classes differ somewhere."""
    samples = S.addresses_at_points(cell, terms)
    witness = max([1] + [len(set(at)) for at in samples])
    if witness == len(terms):
        return witness
    # without samples (an index reads a run-time size) no pair is known to meet
    classes = _address_classes(cell, terms, samples) if samples else terms
    if witness == len(classes):
        return witness
    if exhaustive and not S.all_differ_set(cell, classes).is_empty():
        return len(classes)
    return witness


def _address_classes(cell: isl.Set, terms: list[S.LaneTerms],
                     samples: list[list[tuple[int, ...]]]) -> list[S.LaneTerms]:
    """One lane of each class of lanes that address one element at every P of
    ``cell`` (only lanes that meet at every sample point may)."""
    kept: list[int] = []
    for k, t in enumerate(terms):
        if not any(all(at[j] == at[k] for at in samples)
                   and S.same_everywhere(cell, terms[j], t) for j in kept):
            kept.append(k)
    return [terms[k] for k in kept]


def _distinct_offsets(lanes: list[LaneAccess]) -> int:
    """The most affine lanes that share a linear part ``L`` with pairwise different
    constants ``d``: ``L·P + d`` differ at every P, so they are distinct addresses."""
    constants: dict[tuple, set[tuple[int, ...]]] = {}
    for lane in lanes:
        form = affine_index(lane)
        if form is not None:
            constants.setdefault(form[0], set()).add(form[1])
    return max([0] + [len(c) for c in constants.values()])


def _clique_bound(shape: GroupShape, cell: isl.Set, lanes: tuple[int, ...]) -> int:
    """A verified clique of the conflict graph, at least the distinct offsets."""
    offsets = np.unique(shape.offsets[list(lanes)], axis=0)
    clique = _max_clique(offsets)
    if len(clique) <= len(offsets) or not _realizable(shape, cell, offsets, clique):
        return len(offsets)
    return len(clique)


def _max_clique(offsets: np.ndarray) -> list[tuple[int, ...]]:
    """Maximum clique of {v in bbox(D)} with v ~ w iff v - w ∈ D - D."""
    low, high = offsets.min(0), offsets.max(0)
    if prod(int(h - l + 1) for l, h in zip(low, high)) > MAX_CLIQUE_CELLS:
        return [tuple(int(x) for x in v) for v in offsets]
    diffs = {tuple(int(x) for x in a - b) for a in offsets for b in offsets}
    cells = list(itertools.product(*(range(int(l), int(h) + 1) for l, h in zip(low, high))))
    graph = nx.Graph()
    graph.add_nodes_from(cells)
    graph.add_edges_from((u, v) for u, v in itertools.combinations(cells, 2)
                         if tuple(a - b for a, b in zip(u, v)) in diffs)
    clique, _ = nx.max_weight_clique(graph, weight=None)
    return sorted(clique)


def _realizable(shape: GroupShape, cell: isl.Set, offsets: np.ndarray,
                clique: list[tuple[int, ...]]) -> bool:
    """Some translation t puts every base the clique needs (u - d_a for an edge u, w
    with u - w = d_a - d_b) into the reachable bases L·P, P in ``cell``."""
    by_diff = {}
    for a in offsets:
        for b in offsets:
            by_diff.setdefault(tuple(int(x) for x in a - b), tuple(int(x) for x in a))
    needed = {tuple(u_d - a_d for u_d, a_d in zip(u, by_diff[tuple(x - y for x, y in zip(u, w))]))
              for u, w in itertools.permutations(clique, 2)}
    names = S.time_names(len(shape.group.time_vars))
    rename = {v: E.var(p) for v, p in zip(shape.group.time_vars, names)}
    rows = tuple(E.substitute(E.affine(dict(row)), rename) for row in shape.linear)
    bases = S.image(cell, rows)
    meet = None
    for base in sorted(needed):
        moved = S.translate(bases, base)
        meet = moved if meet is None else meet.intersect(moved)
    return meet is not None and not meet.is_empty()
