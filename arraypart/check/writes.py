"""Writes of one subscript in exclusive branches count as one write.

The checker's side of ``poly.model.merged_writes``, from the walk's own records
(:class:`.walk.Emitted`).  In one scope the frame's columns are the lanes of one loop
entry, so writes of one subscript as written and one member write one address in a
cell (row, lane).  Those that lie in different branches of one data-dependent ``if``
never run in one iteration, and the HLS tool makes them one store (UG1399: mutually
exclusive operations share a port).  Per cell, the most of them that one path through
the branches runs is

    most(items) = sum of the masks of the items without branches
                + sum over the ``if``s first entered of (max over their sides of
                  most(the items' remaining branches)),

and the writes count as that many instances of the first one: where most >= 1, where
most >= 2, ...  Writes of different subscripts count apart, as the banking pass
counts them.
"""

from __future__ import annotations

from functools import reduce

import numpy as np

from .. import ir

Marks = tuple[tuple[int, str], ...]


def subscript_key(access: ir.Access, scope: int, marks: Marks) -> tuple | None:
    """The class of a regular write under a data-dependent ``if`` of its scope:
    (scope, index as written, member); None for any other access."""
    if access.kind != "write" or not marks or any(e is None for e in access.index):
        return None
    return scope, access.index, access.field


def one_write(cs: list, keys: list[tuple | None], marks: list[Marks]) -> list:
    """``cs`` (cells with ``mask`` and ``masked``) with the writes of each key
    (:func:`subscript_key`, one per cell) replaced, where the first of them stands,
    by the first one's cells where :func:`most_per_cell` is at least 1, 2, ..."""
    members: dict[tuple, list[int]] = {}
    for k, key in enumerate(keys):
        if key is not None:
            members.setdefault(key, []).append(k)
    out = []
    for k, c in enumerate(cs):
        mine = members.get(keys[k], [k])
        if len(mine) == 1:
            out.append(c)
        elif mine[0] == k:
            most = most_per_cell([(cs[m].mask, marks[m]) for m in mine])
            out += [c.masked(most >= n) for n in range(1, int(most.max(initial=0)) + 1)]
    return out


def most_per_cell(items: list[tuple[np.ndarray, Marks]]) -> np.ndarray:
    """Per cell, the most of ``items`` (mask, branches outermost first) that one path
    through the branches runs (module doc)."""
    total = np.zeros(np.broadcast_shapes(*(mask.shape for mask, _ in items)), np.int64)
    sides: dict[int, dict[str, list[tuple[np.ndarray, Marks]]]] = {}
    for mask, marks in items:
        if marks:
            (node, side), tail = marks[0], marks[1:]
            sides.setdefault(node, {}).setdefault(side, []).append((mask, tail))
        else:
            total = total + mask
    for by_side in sides.values():
        total = total + reduce(np.maximum, (most_per_cell(tails) for tails in by_side.values()))
    return total
