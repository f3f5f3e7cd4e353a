"""Reads of a local array's elements that nothing wrote before, in a recorded run.

A local array without an initializer (and not ``static``, which C zero-fills) holds
undefined values until written: a read of such an element gives the original kernel
and the banked one whatever their memories held, so the testbench may report a
difference that is the kernel's, not the banking's.  In the records' order (the
program's), a read of element x at position p is *unwritten* when no write of x comes
before p:

    unwritten(p) = kind(p) = read  and  not written_before_chunk[x]
                   and first_write_in_chunk[x] > p

and after each chunk every element it writes joins ``written``.  The first such read
of each site is kept (the run's first call shows it; later calls of a function see
what earlier ones left, as its locals are then, in practice, too).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping

import numpy as np

from .. import ir
from .replay import READ, WRITE, chunks, no_checkpoint


@dataclass(frozen=True, slots=True)
class UnwrittenRead:
    """The first read at ``site`` of an element of ``array`` that nothing wrote."""

    site: int
    array: str
    index: tuple[int, ...]


def uninitialized_locals(kernel: ir.Kernel) -> dict[int, ir.Array]:
    """The kernel's local arrays (by array id) that start undefined (declared without
    an initializer and not ``static``) and whose every write the run records: the
    driver records the accesses of the loops the model pipelines only, and none in a
    file a function body includes, so a write elsewhere (``buf[0] = x;`` before a
    loop, a store in a ``.inc``) would leave its reads called unwritten."""
    decls = kernel.source.local_decls
    unrecorded = _written_outside_pipelines(kernel.body, False) | {
        a.array for a in ir.accesses(kernel.body)
        if a.kind != "read" and a.coord.file != kernel.path}  # in an included file
    return {n: a for n, a in enumerate(kernel.arrays)
            if a.name in decls and decls[a.name].init is None
            and not (a.static or decls[a.name].static) and a.name not in unrecorded}


def _written_outside_pipelines(nodes: tuple[ir.Node, ...], pipelined: bool) -> set[str]:
    """The arrays that ``nodes`` write outside every pipelined loop."""
    found: set[str] = set()
    for n in nodes:
        if isinstance(n, ir.Stmt):
            if not pipelined:
                found.update(a.array for a in n.accesses if a.kind != "read")
        elif isinstance(n, ir.If):
            if not pipelined:
                found.update(a.array for a in n.cond_accesses if a.kind != "read")
            found |= _written_outside_pipelines(n.then + n.orelse, pipelined)
        else:
            found |= _written_outside_pipelines(n.body, pipelined or n.pipeline_ii is not None)
    return found


def unwritten_reads(path: Path, arrays: Mapping[int, ir.Array],
                    checkpoint: Callable[[], None] = no_checkpoint
                    ) -> tuple[UnwrittenRead, ...]:
    """The first unwritten read of each site (module doc) of ``arrays`` in the records
    at ``path``, in site order."""
    written = {a: np.zeros(array.size, bool) for a, array in arrays.items()}
    found: dict[int, UnwrittenRead] = {}
    for rows in chunks(path, checkpoint=checkpoint):
        for a, array in arrays.items():
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
