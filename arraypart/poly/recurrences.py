"""Recurrences through memory: an element that one pipeline iteration writes and the
next one reads.

The scheduling rule (DESIGN §2) counts ports; it does not see that a read must wait
for the previous iteration's write of the same element.  The HLS tool issues that read
only after the write, so with the write in pipeline stage ``s_w`` and the read in stage
``s_r`` the loop needs ``II >= s_w - s_r + 1``: more than 1 as soon as anything is
computed between them (MachSuite's ``nw``: ``M[row + a_idx - 1]`` read, the maximum of
three sums written to ``M[row + a_idx]``).  No banking changes that, so these pairs are
reported next to the II the ports allow, never folded into it (the report warns of
those whose array stays a memory: registers, read in the cycle they are written, add
no latency of their own).

For a cycle group with time vector ``P`` (outer iterators first, the loop's own last)
and domain ``S``::

    next(P) = lexmin { P' in S : P'_k = P_k (k < last), P'_last > P_last }

(``lexmax`` over ``P'_last < P_last`` for a loop that counts down: the next iteration
is the next smaller value of its iterator).

A write ``W`` and a read ``R`` of one array (each a reference: the union of its lanes)
form a recurrence of distance 1 when the (iteration, element) pairs

    { Q -> index_R(Q) : Q = next(P), P in S_W, Q in S_R, index_W(P) = index_R(Q) }
        minus { Q -> index_V(Q) : Q in S_V }  for each write lane V before R

are not empty: a write earlier in the same iteration (in the group's evaluation order:
a window refilled before it is read) hands the read its own value instead.  isl
decides it.  A pair with an irregular index (``hist[m] = hist[m] + w``, m read from
data) may meet: it is a *possible* recurrence, which the HLS tool assumes too.  An
array the user declares free of such dependences (``dependence ... inter false``,
``ir.Array.independent``) has none, nor does a stream (``ir.Array.stream``), whose
"elements" are transfers, no memory that a later iteration reads back.
"""

from __future__ import annotations

from typing import Callable, Iterator

import islpy as isl

from ..errors import warning_text
from .isl_glue import access_map
from .model import ArrayModel, CycleGroup, LaneAccess, Recurrence

#: Most (write, read) reference pairs examined per group: beyond, a wide unrolled body
#: whose pairs would cost more isl work than the model itself.
MAX_PAIRS = 256
#: Most lane accesses of a group examined (each adds a piece to the unions).
MAX_LANES = 512


def recurrences(arrays: tuple[ArrayModel, ...],
                tick: Callable[[], None] = lambda: None) -> tuple[Recurrence, ...]:
    """Every (loop, read reference, write reference) in a recurrence of distance 1
    (module doc)."""
    out: dict[tuple, Recurrence] = {}
    for am in arrays:
        if am.array.independent or am.array.stream:
            continue  # a stream's transfers are a channel's, no memory read back
        for group in am.groups:
            for write, read in _recurrences(group, tick):
                found = Recurrence(group.loop, am.array.name, read.coord, write.coord)
                out.setdefault((group.loop, read.coord, write.coord), found)
            for write, read in _possible(group):
                found = Recurrence(group.loop, am.array.name, read.coord, write.coord,
                                   possible=True)
                out.setdefault((group.loop, read.coord, write.coord), found)
    return tuple(out.values())


def recurrence_warning(r: Recurrence) -> str:
    if r.possible:
        return warning_text(r.read, (
            f"loop {r.loop}: {r.array} is read here and written at {r.write.line}:"
            f"{r.write.col}, one of them at an index arraypart does not follow (the data "
            "choose it, or C arithmetic such as a truncating division), so this read may "
            "be of the element the previous iteration writes (a possible recurrence "
            "through memory): the HLS tool assumes it is and "
            "issues the read after that write, so the II may exceed the one the ports "
            f"allow; if they never meet, say so (#pragma HLS dependence variable="
            f"{r.array} type=inter dependent=false)"))
    if r.outside:
        at = ", ".join(f"{name} = {value}" for name, value in r.outside)
        return warning_text(r.read, (
            f"loop {r.loop}: at {at}, a call outside the ranges arraypart found for the "
            f"run-time sizes, {r.array} is read here at the element that the previous "
            f"iteration writes at {r.write.line}:{r.write.col} (a recurrence through "
            "memory, which no call in the ranges makes): the HLS tool issues the read "
            "after that write, so the II may exceed the one the ports allow there, "
            "whatever the banking; state the range of each size the kernel takes if it "
            "never takes such calls"))
    return warning_text(r.read, (
        f"loop {r.loop}: {r.array} is read here at the element that the previous "
        f"iteration writes at {r.write.line}:{r.write.col} (a recurrence through "
        "memory): the HLS tool issues the read after that write, so the II may exceed "
        "the one the ports allow, whatever the banking"))


def _recurrences(group: CycleGroup, tick) -> Iterator[tuple[LaneAccess, LaneAccess]]:
    """(first write lane, first read lane) of each pair of references in a recurrence;
    a reference's lanes are taken together (one union of access maps)."""
    writes = _by_reference(a for a in group.accesses if a.kind == "write" and a.regular)
    reads = _by_reference(a for a in group.accesses if a.kind == "read" and a.regular)
    if not writes or not reads or len(writes) * len(reads) > MAX_PAIRS \
            or len(group.accesses) > MAX_LANES:
        return
    following = next_iteration(group.domain, group.descending)
    order = {id(a): k for k, a in enumerate(group.accesses)}  # evaluation order
    maps = {ref: _union(lanes) for ref, lanes in writes.items()}
    read_maps = {ref: _union(lanes) for ref, lanes in reads.items()}
    before = {ref: _union([w for ws in writes.values() for w in ws
                           if order[id(w)] < order[id(lanes[0])]])
              for ref, lanes in reads.items()}  # the writes earlier in the iteration
    for write_ref, write_lanes in writes.items():
        for read_ref, read_lanes in reads.items():
            tick()
            if not met(following, maps[write_ref], read_maps[read_ref],
                       before[read_ref]).is_empty():
                yield write_lanes[0], read_lanes[0]


def _possible(group: CycleGroup) -> Iterator[tuple[LaneAccess, LaneAccess]]:
    """(first write lane, first read lane) of each pair of references of which one is
    irregular (module doc), a reference's lanes taken together."""
    writes = _by_reference(a for a in group.accesses if a.kind == "write")
    reads = _by_reference(a for a in group.accesses if a.kind == "read")
    for write_lanes in writes.values():
        for read_lanes in reads.values():
            if not (write_lanes[0].regular and read_lanes[0].regular):
                yield write_lanes[0], read_lanes[0]


def _by_reference(lanes) -> dict[int, list[LaneAccess]]:
    out: dict[int, list[LaneAccess]] = {}
    for lane in lanes:
        out.setdefault(lane.ref_id, []).append(lane)
    return out


def next_iteration(domain: isl.Set, descending: bool) -> isl.Map:
    """``P -> next(P)`` on ``domain``: the same outer iterators, the loop's next value
    (the next smaller one when it counts down)."""
    last = domain.dim(isl.dim_type.set) - 1
    order = isl.Map.lex_gt if descending else isl.Map.lex_lt
    after = order(domain.get_space())
    for k in range(last):
        after = after.equate(isl.dim_type.in_, k, isl.dim_type.out, k)
    after = after.intersect_domain(domain).intersect_range(domain)
    return after.lexmax() if descending else after.lexmin()


def _union(lanes: list[LaneAccess]) -> isl.Map | None:
    """``{ P -> element }`` over ``lanes`` (a reference's; None when there are none)."""
    result = None
    for lane in lanes:
        m = access_map(lane.domain, lane.index, lane.array)
        result = m if result is None else result.union(m)
    return result


def met(following: isl.Map, written: isl.Map, read: isl.Map,
        before: isl.Map | None) -> isl.Map:
    """The pairs (iteration, element) at which the iteration reads (``read``) an
    element that the one before wrote (``written``), and none of the writes ``before``
    the read in that iteration (None: there are none) has written the element again."""
    reached = following.reverse().apply_range(written).intersect(read)  # P' -> element
    if before is not None and not reached.is_empty():
        reached = reached.subtract(before)
    return reached
