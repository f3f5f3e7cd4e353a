"""Read copies of a multi-port ROM that concurrent dataflow processes read.

Loops never run in one cycle, so one set of read copies serves them all: the search
gives a ROM the copies of the loop that needs most (README: the port per reader of the
busiest loop).  The processes of a ``#pragma HLS dataflow`` region (``ir.Loop.process``)
run at the same time, so each reads copies of its own and the ROM costs the sum of
theirs: a process whose loop reads 4 times a cycle and one whose loop reads 8 times
take 2 + 4 dual-port copies, not 4 (probe 35b F3).  Which copy a read takes only
stands for the cost of a ``bind_storage type=rom_np`` array, whose text stays, so
placing the processes' copies side by side changes no II.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Mapping

from .. import expr as E
from ..poly.build import group_concurrency
from ..poly.model import ArrayModel, CycleGroup
from ..scheme import Banking, Scheme
from .solution import ArraySolution

# The block of an array's groups that no dataflow region runs.
OUTSIDE = None

Key = tuple[int, int] | None  # (region, k): the k-th process of a region; or OUTSIDE


def blocks(am: ArrayModel) -> dict[Key, tuple[CycleGroup, ...]]:
    """``am``'s groups by the outermost dataflow process that runs them (OUTSIDE for
    the groups of no region)."""
    out: dict[Key, list[CycleGroup]] = {}
    for g in am.groups:
        out.setdefault(g.process[0] if g.process else OUTSIDE, []).append(g)
    return {k: tuple(v) for k, v in out.items()}


def read_concurrently(am: ArrayModel) -> bool:
    """Two processes of one dataflow region access ``am``'s array."""
    regions = [k[0] for k in blocks(am) if k is not OUTSIDE]
    return len(regions) > len(set(regions))


def block_model(am: ArrayModel, groups: tuple[CycleGroup, ...]) -> ArrayModel:
    """``am`` with only ``groups``, as if no other loop touched the array."""
    return replace(am, groups=groups, max_concurrent=max(map(group_concurrency, groups)))


@dataclass(frozen=True)
class SideBySide:
    """A multi-port ROM's banking with each concurrent process on copies of its own,
    and what a cycle sees: its lower bound and concurrent accesses, a region's
    processes counted together."""

    banking: Banking
    lower_bound: int
    max_concurrent: int


def side_by_side(am: ArrayModel, whole: ArraySolution,
                 solve: Callable[[ArrayModel], ArraySolution]) -> SideBySide | None:
    """``whole``, a multi-port ROM banking of ``am``, with each concurrent process
    reading copies of its own: the copies ``solve`` gives the process's groups alone
    when that banking has ``whole``'s scheme and II on its loops, else ``whole``'s
    (proven for them too).  The processes of one region take consecutive copies, and
    regions and the loops outside them (which never run with each other) share copy 0
    on.  None when no region has two processes on the array."""
    if not (whole.multi_port_rom and read_concurrently(am)):
        return None
    alone = {k: solve(block_model(am, groups)) for k, groups in blocks(am).items()}
    regions = _regions(alone)
    banking = _placed(am, whole.banking.array, whole.banking.scheme, regions,
                      {k: _part(whole, a) for k, a in alone.items()})
    if not whole.banking.copies_by_lane_number or banking.copies_by_lane_number:
        return _counted(banking, regions, alone)
    # a lane number's copies, which only a multi-port ROM realizes: keep its reads
    return _counted(_placed(am, whole.banking.array, whole.banking.scheme, regions,
                            {k: whole.banking for k in alone}), regions, alone)


def _counted(banking: Banking, regions: Mapping[int | None, list[Key]],
             alone: Mapping[Key, ArraySolution]) -> SideBySide:
    """``banking`` with the bounds and concurrent accesses of the blocks ``alone``."""
    return SideBySide(banking, _together(regions, {k: a.lower_bound for k, a in alone.items()}),
                      _together(regions, {k: a.max_concurrent for k, a in alone.items()}))


def _part(whole: ArraySolution, alone: ArraySolution) -> Banking:
    """``alone``'s banking where it banks like ``whole`` (its scheme, and ``whole``'s
    II on each of its loops), else ``whole``'s."""
    ii = dict(whole.achieved_ii)
    same = (alone.banking.scheme == whole.banking.scheme
            and all(ii.get(loop) == reached for loop, reached in alone.achieved_ii))
    return alone.banking if same else whole.banking


def _regions(parts: Mapping[Key, ArraySolution]) -> dict[int | None, list[Key]]:
    """The blocks by region (None: OUTSIDE), each region's in process order."""
    regions: dict[int | None, list[Key]] = {}
    for k in sorted(parts, key=lambda k: (-1, -1) if k is OUTSIDE else k):
        regions.setdefault(None if k is OUTSIDE else k[0], []).append(k)
    return regions


def _placed(am: ArrayModel, array: str, scheme: Scheme, regions: Mapping[int | None, list[Key]],
            parts: Mapping[Key, Banking]) -> Banking:
    """Each block's reads on its part's copies, placed after those of the processes
    before it in its region."""
    offsets: dict[Key, int] = {}
    for keys in regions.values():
        at = 0
        for k in keys:
            offsets[k] = at
            at += parts[k].copies
    copies = max(offsets[k] + parts[k].copies for k in parts)
    reads = blocks(am)
    read_copy = {}
    for k, part in parts.items():
        mine = {r for g in reads[k] for a in g.accesses if a.kind == "read"
                for r in (a.ref_id, *a.aliases)}
        for ref in sorted(mine):
            read_copy[ref] = _shifted(part.copy_expr(ref), offsets[k], part.copies, copies)
    return Banking(array, scheme, copies, tuple(
        (ref, e) for ref, e in sorted(read_copy.items()) if e != E.const(0)))


def _shifted(e: E.Expr, offset: int, copies: int, total: int) -> E.Expr:
    """Copy expression ``e`` (over ``copies`` copies) moved ``offset`` copies on, as a
    copy of ``total``: ``(e + offset) mod total``, which is ``e + offset`` there."""
    if isinstance(e, E.Const):
        return E.const(e.value + offset)
    return e if offset == 0 and copies == total else E.mod(E.add(e, E.const(offset)), total)


def _together(regions: Mapping[int | None, list[Key]], value: Mapping[Key, int]) -> int:
    """The most of ``value`` any cycle sees: a region's processes add up, the loops
    outside every region count alone."""
    return max(sum(value[k] for k in keys) if region is not None else max(
        value[k] for k in keys) for region, keys in regions.items())
