"""Reads of a local array's elements that nothing wrote before, in a recorded run.

A local array without an initializer (and not ``static``, which C zero-fills, nor of a
struct whose default construction sets its fields) holds
undefined values until written: a read of such an element gives the original kernel
and the banked one whatever their memories held, so the testbench may report a
difference that is the kernel's, not the banking's.  In the records' order (the
program's), a read of element x at position p is *unwritten* when no write of x comes
before p:

    unwritten(p) = kind(p) = read  and  not written_before_chunk[x]
                   and first_write_in_chunk[x] > p

and after each chunk every element it writes joins ``written``, which starts with the
elements that writes the run does not record (outside the pipelined loops) may
write.  The first such read of each site is kept (the run's first call shows it;
later calls of a function, and of the top, see what earlier ones left, as its locals
are then, in practice, too).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping, Sequence

import numpy as np

from .. import ir
from ..errors import Coord
from ..poly.domains import AccessRelation, access_relations
from ..poly.order import undefined_at_start
from ..poly.points import lex_points
from .records import READ, WRITE, no_checkpoint, run_chunks


@dataclass(frozen=True, slots=True)
class UnwrittenRead:
    """The first read at ``site`` of an element of ``array`` that nothing wrote."""

    site: int
    array: str
    index: tuple[int, ...]


@dataclass(frozen=True, eq=False)
class UndefinedLocal:
    """A local array that starts undefined, and ``presumed_written``: per flat element,
    whether a write the run does not record may write it (taken as written from the
    start: a read of it is never called unwritten, a read of any other element still is)."""

    array: ir.Array
    presumed_written: np.ndarray


def uninitialized_locals(kernel: ir.Kernel, skipped: frozenset[Coord]
                         ) -> dict[int, UndefinedLocal]:
    """The kernel's local arrays (by array id) that start undefined (declared without
    an initializer, not ``static``, and of no struct that initializes itself).  The
    driver records the accesses of the loops the model pipelines only, and none in a
    file a function body includes: the
    elements that other writes (``buf[0] = x;`` before a loop, a store in a ``.inc``)
    may write are presumed written, and so are those of the writes at ``skipped``, the
    coordinate of the accesses the instrumentation leaves alone (written in a macro);
    an array such a write reaches at an index the data choose is left out, as is an
    array named whole (``memset(buf, 0, n)``), which a call may fill."""
    unrecorded = _unrecorded_writes(kernel, skipped)
    undefined = undefined_at_start(kernel)
    found = {}
    for n, array in enumerate(kernel.arrays):
        if array.name not in undefined:
            continue
        presumed = _presumed_written(array, unrecorded.get(array.name, ()))
        if presumed is not None:
            found[n] = UndefinedLocal(array, presumed)
    return found


def _unrecorded_writes(kernel: ir.Kernel, skipped: frozenset[Coord]
                       ) -> dict[str, list[AccessRelation]]:
    """Per array, the relations of its writes that the run does not record: outside
    every pipelined loop, in a file a function body includes, or at ``skipped``."""
    outside = {id(a) for a in _writes_outside_pipelines(kernel.body, False)}
    found: dict[str, list[AccessRelation]] = {}
    for relation in access_relations(kernel):
        a = relation.access
        if a.kind != "read" and (id(a) in outside or a.coord.file != kernel.path
                                 or a.coord in skipped):
            found.setdefault(a.array, []).append(relation)
    return found


def _writes_outside_pipelines(nodes: tuple[ir.Node, ...], pipelined: bool
                              ) -> list[ir.Access]:
    """The writes of ``nodes`` outside every pipelined loop."""
    found: list[ir.Access] = []
    for n in nodes:
        if isinstance(n, ir.Stmt):
            found += [a for a in n.accesses if a.kind != "read" and not pipelined]
        elif isinstance(n, ir.If):
            found += [a for a in n.cond_accesses if a.kind != "read" and not pipelined]
            found += _writes_outside_pipelines(n.then + n.orelse, pipelined)
        else:
            found += _writes_outside_pipelines(n.body, pipelined or n.pipeline_ii is not None)
    return found


def _presumed_written(array: ir.Array, relations) -> np.ndarray | None:
    """Per flat element of ``array``, whether one of ``relations`` writes it somewhere
    in its domain (the image of the domain, enumerated); None when one writes at an
    index the data choose, or its image is too large to enumerate."""
    presumed = np.zeros(array.size, bool)
    for relation in relations:
        if not relation.access.regular:
            return None
        points = lex_points(relation.access_map.range(), array.size)
        if points is None:
            return None
        inside = np.all((points >= 0) & (points < np.array(array.shape)), axis=1)
        presumed[np.ravel_multi_index(points[inside].T, array.shape)] = True
    return presumed


def unwritten_reads(paths: Sequence[Path], arrays: Mapping[int, UndefinedLocal],
                    checkpoint: Callable[[], None] = no_checkpoint
                    ) -> tuple[UnwrittenRead, ...]:
    """The first unwritten read of each site (module doc) of ``arrays`` in the records
    at ``paths`` (the recorded calls of the top, in order: an element one call writes
    stays written in the next), in site order."""
    written = {a: local.presumed_written.copy() for a, local in arrays.items()}
    found: dict[int, UnwrittenRead] = {}
    for rows in run_chunks(paths, checkpoint=checkpoint):
        for a, local in arrays.items():
            array = local.array
            mine = rows[(rows["array"] == a) & (rows["flat"] >= 0)
                        & (rows["flat"] < array.size)]
            for site, flat in _unwritten(mine, written[a]):
                found.setdefault(site, UnwrittenRead(
                    site, array.name, tuple(int(x) for x in np.unravel_index(
                        flat, array.shape))))
    return tuple(found[s] for s in sorted(found))


def _unwritten(rows: np.ndarray, written: np.ndarray) -> list[tuple[int, int]]:
    """(site, flat) of the first unwritten read of each site in ``rows`` (one array's
    records in program order); marks the elements they write in ``written``."""
    if not rows.size:
        return []
    flat, is_write = rows["flat"], rows["kind"] == WRITE
    order = np.arange(rows.size)
    first_write = np.full(written.size, rows.size)
    np.minimum.at(first_write, flat[is_write], order[is_write])
    bad = (rows["kind"] == READ) & ~written[flat] & (first_write[flat] > order)
    written[flat[is_write]] = True
    sites, first = np.unique(rows["site"][bad], return_index=True)
    return [(int(s), int(flat[bad][k])) for s, k in zip(sites, first)]
