"""The trace's epochs: which recorded reads of one element are one load.

The HLS tool (LLVM's GVN) merges a load with an earlier load of the same address
only when no store that *may alias* lies between them (``x = X[lo]; X[hi] = i;
y = X[lo];`` is load, store, load: probe 36 F1); BasicAA proves a store apart when
its offset and the load's have one variable part and different constants
(``X[i + 1] = v`` between two reads of ``X[i]``).  The replay decides this from the
run's own addresses, not from the model's forms (``poly.aliasing``) nor the
checker's (``check.epochs``):

- a *key* is one (loop, site, lane) of the records; it has a *shape* when its site is
  a plain regular reference (the site table's ``regular``: no ``if``, ``?:`` or
  condition around it, every subscript affine, no member, no reshaped array) and it
  made at most one record a step.  Two keys have one shape when they ran in the same
  steps and their addresses differ by one constant in every one of them (checked by
  a hash over the steps: with ``R(s)`` a 64-bit mix of (loop, step),
  ``G = sum R(s)`` and ``H = sum R(s) * (flat(s) - flat(first step))``, modulo 2^64,
  are equal; :class:`Shapes`);
- a write never aliases a read when both have one shape and their addresses differ
  (then by the same nonzero constant in every step); any other write may alias it.
  A data-decided subscript has no shape, so a run whose data happened to keep two
  addresses a constant apart merges nothing;
- two reads of one address in a step are one load (one *epoch*,
  :func:`record_epochs`) when no write between them may alias either;
- the replay's store forwarding and dead stores (``replay.free_records``) ask the
  same of the writes between a write and a read of its address, and of the reads
  between two writes of one address (:func:`may_alias_before`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

import numpy as np

READ, WRITE = 0, 1
_MASK64 = (1 << 64) - 1
# splitmix64's constants (Steele, Lea and Flood, OOPSLA 2014): a step's weight R(s)
_GOLDEN, _MIX1, _MIX2 = 0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB
_STEP_BITS = 40  # a loop's steps below 2^40: (loop, step) is one 64-bit word


@dataclass(frozen=True)
class Shapes:
    """Per key (``keys``, packed by :meth:`_pack` over ``sites`` and ``lanes``,
    sorted), its shape's number (``shape``; -1: none)."""

    keys: np.ndarray
    shape: np.ndarray
    sites: int
    lanes: int

    @staticmethod
    def of(chunks: Iterable[np.ndarray], regular: np.ndarray) -> "Shapes":
        """The shapes of the records in ``chunks`` (the run, in order); ``regular[site]``:
        the site is a plain regular reference."""
        sums: dict[tuple[int, int, int], list[int]] = {}  # key -> [G, H, first flat, ok]
        for rows in chunks:
            mine = rows[flag(regular, rows["site"]) & (rows["loop"] >= 0)]
            if mine.size:
                _accumulate(mine, sums)
        lanes = 1 + max((k[2] for k in sums), default=0)
        signatures: dict[tuple[int, int], int] = {}
        keys, shape = [], []
        for (loop, site, lane), (g, h, first, ok) in sorted(sums.items()):
            keys.append((loop * regular.size + site) * lanes + lane)
            signature = (g, (h - first * g) & _MASK64)
            shape.append(signatures.setdefault(signature, len(signatures)) if ok else -1)
        return Shapes(np.array(keys, np.int64), np.array(shape, np.int64),
                      regular.size, lanes)

    def of_records(self, rows: np.ndarray) -> np.ndarray:
        """Each record's shape (-1: none)."""
        if not self.keys.size:
            return np.full(rows.size, -1, np.int64)
        packed = ((rows["loop"].astype(np.int64) * self.sites + rows["site"]) * self.lanes
                  + rows["lane"])
        at = np.minimum(np.searchsorted(self.keys, packed), self.keys.size - 1)
        known = ((rows["site"] >= 0) & (rows["site"] < self.sites) & (rows["lane"] >= 0)
                 & (rows["lane"] < self.lanes) & (self.keys[at] == packed))
        return np.where(known, self.shape[at], -1)


def _accumulate(rows: np.ndarray, sums: dict) -> None:
    """Add the records' step weights and weighted addresses to ``sums`` per key; a
    key with two records in one step loses its shape."""
    loop = rows["loop"].astype(np.int64)
    step = rows["step"].astype(np.int64)
    weight = _mix(((loop << _STEP_BITS) + step).astype(np.uint64))
    columns = (loop, rows["site"].astype(np.int64), rows["lane"].astype(np.int64))
    packed, _ = _packed(columns)
    _, first, inverse = np.unique(packed, return_index=True, return_inverse=True)
    inverse = inverse.reshape(-1)
    count = first.size
    g = np.zeros(count, np.uint64)
    h = np.zeros(count, np.uint64)
    np.add.at(g, inverse, weight)
    np.add.at(h, inverse, weight * rows["flat"].astype(np.int64).astype(np.uint64))
    twice = np.zeros(count, bool)
    pairs = np.unique(_packed((inverse.astype(np.int64), step))[0])
    per_key = pairs // (int(step.max()) + 1) if step.size else pairs
    twice[np.flatnonzero(np.bincount(per_key, minlength=count)
                         < np.bincount(inverse, minlength=count))] = True
    flats = rows["flat"][first].tolist()
    keys = np.stack([c[first] for c in columns])
    for n, key in enumerate(map(tuple, keys.T.tolist())):
        known = sums.get(key)
        if known is None:
            sums[key] = [int(g[n]), int(h[n]), flats[n], not twice[n]]
        else:
            known[0] = (known[0] + int(g[n])) & _MASK64
            known[1] = (known[1] + int(h[n])) & _MASK64
            known[3] = known[3] and not twice[n]


def _packed(columns: tuple[np.ndarray, ...]) -> tuple[np.ndarray, tuple[int, ...]]:
    """Non-negative integer columns as one int64 per row, ordered as the rows are
    lexicographically (``np.ravel_multi_index`` over each column's extent, which the
    trace's loop, site, lane and step counts keep far below 2^63)."""
    shape = tuple(int(c.max()) + 1 if c.size else 1 for c in columns)
    return np.ravel_multi_index(columns, shape), shape


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64 of each word (wrapping uint64 arithmetic)."""
    with np.errstate(over="ignore"):
        z = x + np.uint64(_GOLDEN)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(_MIX1)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(_MIX2)
        return z ^ (z >> np.uint64(31))


def record_epochs(rows: np.ndarray, shapes: np.ndarray | None = None) -> np.ndarray:
    """Per record of ``rows`` (in execution order, no step split), its epoch: reads
    of one address in one (loop, step, array) share one exactly when no write
    between them may alias either (module doc); ``shapes``: each record's shape
    (:meth:`Shapes.of_records`; None: none has one, every write separates).
    Meaningful only between reads of one address; writes get 0."""
    out = np.zeros(rows.size, np.int64)
    if not rows.size:
        return out
    order, new, _ = step_arrays(rows)
    r = rows[order]
    group = np.cumsum(new) - 1
    write = r["kind"] == WRITE
    flat = r["flat"].astype(np.int64)
    shape = distinct_shapes(None if shapes is None else shapes[order], r.size)
    writes_before = np.cumsum(write) - write
    aliasing = may_alias_before(group, shape, flat, write)
    reads = np.flatnonzero(~write)
    if not reads.size:
        return out
    chain = reads[np.lexsort((reads, flat[reads], group[reads]))]
    later, earlier = chain[1:], chain[:-1]
    same = (group[later] == group[earlier]) & (flat[later] == flat[earlier])
    # between two reads of one shape and address, the writes that may alias both
    between = np.where(shape[later] == shape[earlier], aliasing[later] - aliasing[earlier],
                       writes_before[later] - writes_before[earlier])
    cut = np.concatenate([[True], ~same | (between > 0)])
    starts = np.concatenate([[True], ~same])
    count = np.cumsum(cut)
    epoch = count - count[np.maximum.accumulate(np.where(starts, np.arange(chain.size), 0))]
    sorted_epoch = np.zeros(r.size, np.int64)
    sorted_epoch[chain] = epoch
    out[order] = sorted_epoch
    return out


def distinct_shapes(shapes: np.ndarray | None, n: int) -> np.ndarray:
    """Each of ``n`` records' shape, a record with none (-1, or ``shapes`` None)
    given one of its own."""
    shape = np.full(n, -1, np.int64) if shapes is None else shapes.astype(np.int64)
    return np.where(shape >= 0, shape, shape.max(initial=0) + 1 + np.arange(n))


def may_alias_before(group: np.ndarray, shape: np.ndarray, flat: np.ndarray,
                     counted: np.ndarray) -> np.ndarray:
    """Per record (grouped by ``group``, in execution order within one), how many
    ``counted`` records of its group before it may alias it: all but those of its
    shape (:func:`distinct_shapes`) at another address.  Two records of one shape
    and address see the same ones, so the difference of their counts is the number
    between them that may alias either."""
    return (_writes_before((group,), counted) - _writes_before((group, shape), counted)
            + _writes_before((group, shape, flat), counted))


def aliasing_between(group: np.ndarray, shape: np.ndarray, flat: np.ndarray,
                     counted: np.ndarray, source: np.ndarray) -> np.ndarray:
    """Per record x, the ``counted`` records from ``source[x]`` (at x's address, in
    its group, before it) up to x that may alias x: those that may alias either,
    where the two have one shape (:func:`may_alias_before`), else every one."""
    aliasing = may_alias_before(group, shape, flat, counted)
    before = np.cumsum(counted) - counted
    return np.where(shape[source] == shape, aliasing - aliasing[source],
                    before - before[source])


def _writes_before(keys: tuple[np.ndarray, ...], write: np.ndarray) -> np.ndarray:
    """Per record, the ``write`` records before it (in position) with its values of
    ``keys``."""
    n = write.size
    order = np.lexsort((np.arange(n),) + tuple(reversed(keys)))
    new = np.ones(n, bool)
    new[1:] = np.any([k[order][1:] != k[order][:-1] for k in keys], axis=0)
    w = write[order].astype(np.int64)
    before = np.cumsum(w) - w
    start = np.maximum.accumulate(np.where(new, np.arange(n), 0))
    out = np.zeros(n, np.int64)
    out[order] = before - before[start]
    return out


def last_before(group: np.ndarray, flat: np.ndarray, counted: np.ndarray) -> np.ndarray:
    """Per record, the position of the last ``counted`` record of its group before it
    at its address (``flat``); -1: none."""
    n = counted.size
    order = np.lexsort((np.arange(n), flat, group))
    new = np.ones(n, bool)
    new[1:] = (group[order][1:] != group[order][:-1]) | (flat[order][1:] != flat[order][:-1])
    start = np.maximum.accumulate(np.where(new, np.arange(n), 0))
    seen = np.maximum.accumulate(np.where(counted[order], np.arange(n), -1))
    previous = np.concatenate([[-1], seen[:-1]])
    out = np.full(n, -1, np.int64)
    out[order] = np.where(previous >= start, order[np.maximum(previous, 0)], -1)
    return out


def step_arrays(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``rows`` grouped by (loop, step, array), execution order kept within a group:
    the sorting ``order``, and per sorted record whether it is ``new`` (its group's
    first) and the position of its group's first (``start``)."""
    order = np.lexsort((np.arange(rows.size), rows["array"], rows["step"], rows["loop"]))
    r = rows[order]
    new = np.ones(r.size, bool)
    new[1:] = ((r["loop"][1:] != r["loop"][:-1]) | (r["step"][1:] != r["step"][:-1])
               | (r["array"][1:] != r["array"][:-1]))
    start = np.maximum.accumulate(np.where(new, np.arange(r.size), 0))
    return order, new, start


def flag(table: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """``table[ids]``, False where an id lies outside the table."""
    ids = ids.astype(np.int64)
    inside = (ids >= 0) & (ids < table.size)
    return inside & table[np.where(inside, ids, 0)] if table.size else inside
