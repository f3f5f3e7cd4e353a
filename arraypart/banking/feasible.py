"""The least II any banking can reach, from accesses that share one address.

Banking separates different elements, never one element from itself: when a cycle
reads element x and writes it (or writes it twice), x's bank must serve those
accesses whatever the scheme, copies included (every write goes to every copy).  So
a group whose lanes a, b meet at one address at some P,

    M_ab = { P in dom_a ∩ dom_b : f_a(P) = f_b(P) }  nonempty,

needs an II k with ``ports.fits(reads, writes, k)`` for that address alone (reads of
one address are one access).  Only pairs are examined: a valid under-estimate of the
least II, so a target above it is proven impossible before any search.
"""

from __future__ import annotations

from dataclasses import replace

from ..ir import PortModel
from ..poly.model import ArrayModel, CycleGroup, LaneAccess, exclusive
from . import islsets as S

# Each pair costs one isl emptiness check; a pipeline iteration with more pairs than
# this (hundreds of lanes) is left to the search, which finds its II anyway.
MAX_PAIRS = 4096
# The largest II examined: far beyond any port model's need for two accesses.
MAX_II = 64


def least_feasible_ii(array_model: ArrayModel) -> dict[int, tuple[int, str]]:
    """For each group (by position) whose target II no banking can reach: the least
    II the address-sharing pairs allow and a sentence saying why."""
    out = {}
    # a reshaped array's lanes address its words (ir.Array.counted_index)
    unit = "word" if array_model.array.reshapes else "element"
    for position, group in enumerate(array_model.groups):
        found = _group_floor(array_model.ports, group, array_model.array.shape, unit)
        found += _updated_in_place(array_model.ports, group)
        found += _written_many_times(array_model.ports, group, unit)
        if found:
            out[position] = max(found, key=lambda n: n[0])
    return out


def relaxed(array_model: ArrayModel, floors: dict[int, tuple[int, str]]) -> ArrayModel:
    """``array_model`` with each listed group's target II raised to its floor."""
    groups = tuple(replace(g, target_ii=floors[k][0]) if k in floors else g
                   for k, g in enumerate(array_model.groups))
    return replace(array_model, groups=groups)


def _group_floor(ports: PortModel, group: CycleGroup, shape: tuple[int, ...],
                 unit: str = "element") -> list[tuple[int, str]]:
    """The floors of the pairs of regular lanes that meet at one address."""
    lanes = [a for a in group.accesses if a.regular]
    writes = [k for k, a in enumerate(lanes) if a.kind == "write"]
    # each write pairs with every other lane except the writes after it
    count = len(writes) * (len(lanes) - 1) - len(writes) * (len(writes) - 1) // 2
    if not writes or count > MAX_PAIRS:
        return []
    pairs = [(a, b) for b in writes for a in range(len(lanes))
             if a != b and not (lanes[a].kind == "write" and a > b)
             and not exclusive(lanes[a], lanes[b])]
    terms = [S.lane_terms(a, group.time_vars, k, shape) for k, a in enumerate(lanes)]
    needed = []
    for a, b in pairs:
        reads = int(lanes[a].kind == "read")
        if ports.fits(reads, 2 - reads, group.target_ii):
            continue
        delta = S.constant_difference(terms[a], terms[b])
        if delta is not None and any(delta):
            continue
        domain = S.plain(lanes[a].domain).intersect(S.plain(lanes[b].domain))
        if delta is None:
            domain = S.same_address_set(domain, terms[a], terms[b])
        if domain.is_empty():
            continue
        ii = _least_ii(ports, reads, 2 - reads, group.target_ii)
        what = "read and written" if reads else "written twice"
        needed.append((ii, f"loop {group.loop}: one {unit} of {lanes[b].array}"
                           f"{_members(lanes[a], lanes[b])} is {what} in one iteration "
                           f"({_sites(lanes[a], lanes[b])}), which no banking separates "
                           f"on {ports.name}"))
    return needed


def _members(first: LaneAccess, second: LaneAccess) -> str:
    """The struct members two lanes of one element reach, as a parenthesis: ``(members
    a and b)``, or ``(member word)`` for one (whose own subscripts, ``word[j]``, are
    parts of that one element), else ''."""
    fields = sorted({first.field, second.field}, key=str)
    if None in fields:
        return ""
    return f" (member{'s' if len(fields) == 2 else ''} {' and '.join(fields)})"


def _sites(first: LaneAccess, second: LaneAccess) -> str:
    """Where two lanes are: their two places, or one reference's place and the values
    of the unrolled iterators in each lane (``k.c:7:7 at j = 0 and at j = 1``: one
    place twice said nothing, probe 42 F8)."""
    if first.coord != second.coord or first.copy_lane == second.copy_lane:
        return f"{first.coord} and {second.coord}"
    return f"{first.coord} at {_values(first)} and at {_values(second)}"


def _values(lane: LaneAccess) -> str:
    """``j = 0, k = 1``: the lane's values of the unrolled iterators."""
    return ", ".join(f"{name} = {value}" for name, value in lane.copy_lane)


def _written_many_times(ports: PortModel, group: CycleGroup,
                        unit: str = "element") -> list[tuple[int, str]]:
    """The floors of the elements that more than two lanes of one subscript (equal
    index expressions, so one address at every P, whichever unrolled lane they are
    in) write in one iteration where all of them run (``ret[4*j] = ...; ret[4*j] ^=
    ...``, ``out[c] += ...`` in every lane of an unrolled loop): that element's bank
    serves its writes and one read, which pairs alone undercount.  Writes that are
    one write with another (``CycleGroup.merged_writes``: ``if (c) x[i] = a; else
    x[i] = b;``) count once."""
    classes: dict[tuple, list[int]] = {}
    for k, a in enumerate(group.accesses):
        if a.regular:
            classes.setdefault(a.index, []).append(k)
    needed = []
    for positions in classes.values():
        lanes = [group.accesses[k] for k in positions]
        writes = sum(lanes[n].kind == "write" and k not in group.merged_writes
                     for n, k in enumerate(positions))
        reads = int(any(a.kind == "read" for a in lanes))
        if writes < 3 or ports.fits(reads, writes, group.target_ii):
            continue
        domain = S.plain(lanes[0].domain)
        for a in lanes[1:]:
            domain = domain.intersect(S.plain(a.domain))
        if domain.is_empty():
            continue
        ii = _least_ii(ports, reads, writes, group.target_ii)
        needed.append((ii, f"loop {group.loop}: one {unit} of {lanes[0].array} is written "
                           f"{writes} times in one iteration (at {lanes[0].coord}), which no "
                           f"banking separates on {ports.name}"))
    return needed


def _updated_in_place(ports: PortModel, group: CycleGroup) -> list[tuple[int, str]]:
    """The floors of irregular elements that one reference reads and writes (``++h[d]``
    with ``d`` from the data, its read perhaps merged into another read of the element,
    ``LaneAccess.aliases``): its read and write lanes of one unrolled lane share an
    address whatever it is, so that element's bank serves both."""
    if ports.fits(1, 1, group.target_ii):
        return []
    reads = {(ref, a.lane, a.index) for a in group.accesses
             if a.kind == "read" and not a.regular for ref in (a.ref_id,) + a.aliases}
    updated = [a for a in group.accesses if a.kind == "write" and not a.regular
               and (a.ref_id, a.lane, a.index) in reads]
    if not updated:
        return []
    why = (f"loop {group.loop}: the element of {updated[0].array} that "
           f"{updated[0].coord} updates is read and written in one iteration, which no "
           f"banking separates on {ports.name}")
    return [(_least_ii(ports, 1, 1, group.target_ii), why)]


def _least_ii(ports: PortModel, reads: int, writes: int, target: int) -> int:
    """The least II from ``target`` up (at most :data:`MAX_II`) at which one bank's
    ports serve ``reads`` reads and ``writes`` writes of one element."""
    return next((k for k in range(target, MAX_II + 1) if ports.fits(reads, writes, k)),
                MAX_II)
