"""The trace's epochs and free records: which recorded reads of one element are one
load, which accesses take no port.

The HLS tool (LLVM's GVN) merges a load with an earlier load of the same address
only when no store that *may alias* lies between them (``x = X[lo]; X[hi] = i;
y = X[lo];`` is load, store, load: probe 36 F1); BasicAA proves a store apart when
its offset and the load's have one variable part and different constants
(``X[i + 1] = v`` between two reads of ``X[i]``).  The replay decides this from the
run's own addresses, not from the model's forms (``poly.aliasing``) nor the
checker's (``check.epochs``):

- a *key* is one (loop, site, lane) of the records; it has a *shape* when its site is
  a plain regular reference (the site table's ``regular``: no ``if`` (its condition
  runs wherever it does), ``?:`` or ``&&`` around it, every subscript affine, no
  member, no reshaped array) and it made at most one record a step.  Two keys have
  one shape when they ran in the same steps and their addresses differ by one
  constant in every one of them (checked by a hash over the steps: with ``R(s)`` a
  64-bit mix of (loop, step), ``G = sum R(s)`` and
  ``H = sum R(s) * (flat(s) - flat(first step))``, modulo 2^64, are equal;
  :class:`Shapes`);
- a write never aliases a read when both have one shape and their addresses differ
  (then by the same nonzero constant in every step); any other write may alias it.
  A data-decided subscript has no shape, so a run whose data happened to keep two
  addresses a constant apart merges nothing;
- two reads of one address in a step are one load (one *epoch*,
  :meth:`StepAccesses.epochs`) when no write between them may alias either, judged
  for the two neighbours in the step's reads of it, and for each read and the last
  one of its shape before it;
- store forwarding and dead stores (:func:`free_records`) ask the same of the writes
  between a write and a read of its address, and of the reads between two writes of
  one address (:meth:`StepAccesses.may_alias_before`).

Each chunk of records is grouped once by (loop, step, array) and sorted once by each
key these questions count over (:class:`StepAccesses`): every count is then one
cumulative sum in one of those orders.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

from .records import READ, WRITE

__all__ = ["READ", "WRITE", "Forwarding", "Shapes", "StepAccesses", "flag", "free_records",
           "packed", "runs", "stable_order"]

_MASK64 = (1 << 64) - 1
# splitmix64's constants (Steele, Lea and Flood, OOPSLA 2014): a step's weight R(s)
_GOLDEN, _MIX1, _MIX2 = 0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB
_STEP_BITS = 40  # a loop's steps below 2^40: (loop, step) is one 64-bit word
_PACKED_BITS = 62  # packed keys stay below 2^62 (:func:`packed`)


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
        """The shapes of the records in ``chunks`` (the run, in order: each loop's steps
        never decrease); ``regular[site]``: the site is a plain regular reference."""
        sums: dict[tuple[int, int, int], list[int]] = {}  # key -> [G, H, first flat, ok]
        for rows in chunks:
            mine = flag(regular, rows["site"]) & (rows["loop"] >= 0)
            if mine.any():
                _accumulate({k: rows[k][mine] for k in ("loop", "site", "lane", "step",
                                                        "flat")}, sums)
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


def _accumulate(rows: dict[str, np.ndarray], sums: dict) -> None:
    """Add the records' (columns of ``rows``) step weights and weighted addresses to
    ``sums`` per key; a key with two records in one step loses its shape (its records,
    in execution order, have steps that never decrease: two in one step are
    neighbours)."""
    loop = rows["loop"].astype(np.int64)
    step = rows["step"].astype(np.int64)
    columns = (loop, rows["site"].astype(np.int64), rows["lane"].astype(np.int64))
    order, new = runs(columns)
    starts = np.flatnonzero(new)
    weight = _mix(((loop[order] << _STEP_BITS) + step[order]).astype(np.uint64))
    with np.errstate(over="ignore"):
        g = np.add.reduceat(weight, starts)
        h = np.add.reduceat(weight * rows["flat"][order].astype(np.uint64), starts)
    twice = np.zeros(starts.size, bool)
    sorted_step = step[order]
    repeated = ~new[1:] & (sorted_step[1:] == sorted_step[:-1])
    twice[(np.cumsum(new) - 1)[1:][repeated]] = True
    first = order[starts]
    flats = rows["flat"][first].tolist()
    keys = np.stack([c[first] for c in columns])
    for n, k in enumerate(map(tuple, keys.T.tolist())):
        known = sums.get(k)
        if known is None:
            sums[k] = [int(g[n]), int(h[n]), flats[n], not twice[n]]
        else:
            known[0] = (known[0] + int(g[n])) & _MASK64
            known[1] = (known[1] + int(h[n])) & _MASK64
            known[3] = known[3] and not twice[n]


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64 of each word (wrapping uint64 arithmetic)."""
    with np.errstate(over="ignore"):
        z = x + np.uint64(_GOLDEN)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(_MIX1)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(_MIX2)
        return z ^ (z >> np.uint64(31))


def packed(columns: Sequence[np.ndarray]) -> np.ndarray | None:
    """One int64 key per row that orders the rows as ``columns`` do lexicographically
    (mixed radix over each column's span in these rows), so one sort replaces
    several; None when the spans' product passes 2^62."""
    key = np.zeros(columns[0].size, np.int64)
    room = 1
    for column in columns:
        if not column.size:
            return key
        low = int(column.min())
        span = int(column.max()) - low + 1
        room *= span
        if room > 1 << _PACKED_BITS:
            return None
        # in place: key = key * span + (column - low), no chunk-sized temporary
        key *= span
        key += column
        key -= low
    return key


def runs(columns: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The order of the rows by ``columns`` lexicographically, ties in row order (one
    stable sort of their :func:`packed` key, or numpy's lexsort when it does not fit),
    and per sorted row whether it begins a run of equal ones."""
    key = packed(columns)
    new = np.ones(columns[0].size, bool)
    if key is None:
        order = np.lexsort(tuple(reversed(columns)))
        new[1:] = np.any([c[order][1:] != c[order][:-1] for c in columns], axis=0)
    else:
        order = stable_order(key)
        sorted_key = key[order]
        new[1:] = sorted_key[1:] != sorted_key[:-1]
    return order, new


def stable_order(key: np.ndarray) -> np.ndarray:
    """The order that sorts ``key`` (none negative), ties in row order: a stable sort
    of the key in the narrowest unsigned type that holds it (numpy's stable sort of 8-
    and 16-bit integers is a radix sort, one pass, and a 32-bit key moves half the
    bytes of a 64-bit one)."""
    top = int(key.max(initial=0))
    narrow = next((key.astype(kind) for kind in (np.uint8, np.uint16, np.uint32)
                   if top <= np.iinfo(kind).max), key)
    return np.argsort(narrow, kind="stable")


@dataclass(frozen=True, eq=False)
class _Runs:
    """Positions sorted by a key, ties in position order (``order``), and per sorted
    position the first sorted position of its key's run (``start``)."""

    order: np.ndarray
    start: np.ndarray

    @staticmethod
    def of(order: np.ndarray, new: np.ndarray) -> "_Runs":
        """From :func:`runs`' order and run beginnings."""
        return _Runs(order, np.maximum.accumulate(np.where(new, np.arange(order.size), 0)))

    def before(self, counted: np.ndarray) -> np.ndarray:
        """Per position, the ``counted`` positions before it in its run."""
        c = counted[self.order].astype(np.int64)
        running = np.cumsum(c) - c
        out = np.empty(c.size, np.int64)
        out[self.order] = running - running[self.start]
        return out

    def next(self, counted: np.ndarray) -> np.ndarray:
        """Per position, the first ``counted`` position after it in its run; -1: none."""
        size = counted.size
        ahead = np.minimum.accumulate(np.where(counted[self.order], np.arange(size),
                                               size)[::-1])[::-1]
        following = np.concatenate([ahead[1:], [size]])
        inside = following < size
        inside[inside] = self.start[following[inside]] == self.start[inside]
        out = np.empty(size, np.int64)
        out[self.order] = np.where(inside, self.order[np.where(inside, following, 0)], -1)
        return out

    def last(self, counted: np.ndarray) -> np.ndarray:
        """Per position, the last ``counted`` position before it in its run; -1: none."""
        seen = np.maximum.accumulate(np.where(counted[self.order], np.arange(counted.size),
                                              -1))
        previous = np.concatenate([[-1], seen[:-1]])
        out = np.empty(counted.size, np.int64)
        out[self.order] = np.where(previous >= self.start,
                                   self.order[np.maximum(previous, 0)], -1)
        return out


def _may_alias_before(by_group: _Runs, by_shape: _Runs, by_address: _Runs,
                      counted: np.ndarray) -> np.ndarray:
    """:meth:`StepAccesses.may_alias_before`: the ``counted`` positions before one in
    its group, less those of its shape, plus those of its shape and address."""
    return by_group.before(counted) - by_shape.before(counted) + by_address.before(counted)


@dataclass(frozen=True, eq=False)
class StepAccesses:
    """One chunk's records (in execution order, no step split) grouped by (loop, step,
    array), each group in execution order: ``order`` sorts the records so, and every
    other field is per sorted record (a *position*): its ``group``'s number, its
    ``shape`` (:class:`Shapes`; a record with none its own), ``flat`` and whether it
    is a ``write``; the positions sorted within each group by shape, by (shape,
    address) and by address count what lies before a position (:meth:`before` and the
    methods after it); ``writes_before`` and ``aliasing_writes``: per position, the
    writes of its group before it, and those of them that may alias it
    (:meth:`may_alias_before`), which every chunk's epochs and forwarding ask."""

    order: np.ndarray
    group: np.ndarray
    shape: np.ndarray
    flat: np.ndarray
    write: np.ndarray
    site: np.ndarray
    loop: np.ndarray
    array: np.ndarray
    by_group: _Runs
    by_shape: _Runs
    by_address: _Runs
    by_flat: _Runs
    writes_before: np.ndarray
    aliasing_writes: np.ndarray

    @staticmethod
    def of(rows: np.ndarray, shapes: np.ndarray | None = None) -> "StepAccesses":
        """``rows`` grouped; ``shapes``: each record's shape (:meth:`Shapes.of_records`;
        None: none has one)."""
        loop = rows["loop"].astype(np.int64)
        array = rows["array"].astype(np.int64)
        order, new = runs((loop, rows["step"].astype(np.int64), array))
        group = np.cumsum(new) - 1
        shape = (np.full(rows.size, -1, np.int64) if shapes is None
                 else shapes[order].astype(np.int64))
        shape = np.where(shape >= 0, shape, shape.max(initial=0) + 1 + np.arange(rows.size))
        flat = rows["flat"][order].astype(np.int64)
        write = rows["kind"][order] == WRITE
        by_group = _Runs.of(np.arange(rows.size), new)
        by_shape, by_address = _Runs.of(*runs((group, shape))), _Runs.of(*runs((group, shape,
                                                                                  flat)))
        return StepAccesses(order, group, shape, flat, write, rows["site"][order],
                            loop[order], array[order], by_group, by_shape, by_address,
                            _Runs.of(*runs((group, flat))), by_group.before(write),
                            _may_alias_before(by_group, by_shape, by_address, write))

    def may_alias_before(self, counted: np.ndarray) -> np.ndarray:
        """Per position, how many ``counted`` positions of its group before it may
        alias it: all but those of its shape at another address.  Two positions of one
        shape and address see the same ones, so the difference of their counts is the
        number between them that may alias either."""
        return _may_alias_before(self.by_group, self.by_shape, self.by_address, counted)

    def aliasing_between(self, source: np.ndarray, counted: np.ndarray | None = None,
                         at: np.ndarray | None = None) -> np.ndarray:
        """Per position x (per entry of ``at``: x = ``at[k]``), the ``counted``
        positions (None: the writes) from ``source[x]`` (``source[k]``; at x's address,
        in its group, before it) up to x that may alias x: those that may alias
        either, where the two have one shape (:meth:`may_alias_before`), else every
        one."""
        if counted is None:
            aliasing, before = self.aliasing_writes, self.writes_before
        else:
            aliasing, before = self.may_alias_before(counted), self.by_group.before(counted)
        x = slice(None) if at is None else at
        return np.where(self.shape[source] == self.shape[x],
                        aliasing[x] - aliasing[source], before[x] - before[source])

    def last_before(self, counted: np.ndarray) -> np.ndarray:
        """Per position, the last ``counted`` position of its group before it at its
        address; -1: none."""
        return self.by_flat.last(counted)

    def next_after(self, counted: np.ndarray) -> np.ndarray:
        """Per position, the first ``counted`` position of its group after it at its
        address; -1: none."""
        return self.by_flat.next(counted)

    def epochs(self) -> np.ndarray:
        """Per record (in the chunk's own order), its epoch: the load whose value a read
        takes.  A read takes an earlier read's load when both are of one address in one
        group and no write between them may alias either: the read just before it at
        its address (module doc), or the last one of its own shape there, past reads
        of another shape (``if (X[j] > m) m = X[j]; ... X[j] = X[j] - m``: the
        condition's read and the later one are one load whatever the branch's read
        saw).  Reads that take loads in turn take the first one's: the epoch is that
        read's rank among its address's reads.  Meaningful only between reads of one
        address; writes get 0."""
        out = np.zeros(self.order.size, np.int64)
        chain = self.by_flat.order[~self.write[self.by_flat.order]]  # reads by address
        if not chain.size:
            return out
        aliasing, writes_before = self.aliasing_writes, self.writes_before
        later, earlier = chain[1:], chain[:-1]
        same = ((self.group[later] == self.group[earlier])
                & (self.flat[later] == self.flat[earlier]))
        # between two reads of one shape and address, the writes that may alias both
        between = np.where(self.shape[later] == self.shape[earlier],
                           aliasing[later] - aliasing[earlier],
                           writes_before[later] - writes_before[earlier])
        taker = np.arange(self.order.size)  # per position, the read whose load it takes
        merged = same & (between == 0)
        taker[later[merged]] = earlier[merged]
        own = self.by_address.last(~self.write)[chain]  # last read of its shape there
        kept = (own >= 0) & (aliasing[chain] == aliasing[np.maximum(own, 0)])
        taker[chain[kept]] = np.minimum(taker[chain[kept]], own[kept])
        while True:  # positions only decrease along taker: jump to the first load
            jumped = taker[taker]
            if np.array_equal(jumped, taker):
                break
            taker = jumped
        rank = np.zeros(self.order.size, np.int64)
        starts = np.concatenate([[True], ~same])
        rank[chain] = np.arange(chain.size) - np.maximum.accumulate(
            np.where(starts, np.arange(chain.size), 0))
        out[self.order[chain]] = rank[taker[chain]]
        return out


@dataclass(frozen=True, slots=True)
class Forwarding:
    """Where the replay applies store forwarding and dead stores (:func:`free_records`):
    ``pairs[lid, array]``, the loop forwards the array's elements (``poly.forwarding``:
    a loop pipelined with no unroll factor and no early exit, an array no other name
    may reach there); ``sites[site]``, a plain reference (no ``if``, ``?:`` or
    condition around it in its loop); ``named[site]``, a regular reference to a whole
    element, plain or in an ``if`` (``poly.forwarding.named``)."""

    pairs: np.ndarray
    sites: np.ndarray
    named: np.ndarray


def free_records(steps: StepAccesses, forwarding: Forwarding) -> np.ndarray:
    """Which records of ``steps`` (in the chunk's own order) take no port, per step of
    a loop and array that ``forwarding`` admits, from the addresses the run made: a
    read of a named site whose array's last write in the step before it that may
    alias it is a named site's write of the same address (forwarded: a write in an
    ``if`` forwards where it ran); a named site's write that a later plain write of
    the same address in the step overwrites with no read of the array between that
    takes a port and may alias it (a dead store), or that an earlier plain write of
    the address takes into one store, no write between that may alias it at another
    address, no read between that takes a port and may alias it (merged: the tool
    stores the address's last value once).  A write or read of the record's shape at
    another address never aliases it (module doc), any other may; a record
    of another shape than the write it would forward from or be overwritten by sees
    every access between.  Other conditional sites only block, and only where they
    ran: the run sees no branch it did not take, so this may find more than the
    model, never less on the same accesses."""
    out = np.zeros(steps.order.size, bool)
    loops, arrays = forwarding.pairs.shape
    inside = ((steps.loop >= 0) & (steps.loop < loops) & (steps.array >= 0)
              & (steps.array < arrays))
    chosen = inside & forwarding.pairs[np.where(inside, steps.loop, 0),
                                       np.where(inside, steps.array, 0)]
    if not chosen.any():  # a chosen (loop, array) holds whole groups: counts stay in them
        return out
    plain = flag(forwarding.sites, steps.site)
    named = plain | flag(forwarding.named, steps.site)
    write = steps.write
    # the last write of each record's address before it, within its step and array
    source = steps.last_before(write)
    found = source >= 0
    source = np.maximum(source, 0)
    writes = steps.aliasing_between(source)
    forwarded = chosen & ~write & named & found & named[source] & (writes == 1)
    # a named write's next plain write of its address, which overwrites it when no
    # read that takes a port and may alias it lies between
    later = steps.next_after(write & plain)
    (earlier,) = np.nonzero(chosen & write & named & (later >= 0))
    dead = np.zeros(write.size, bool)
    kept = steps.aliasing_between(earlier, ~write & ~forwarded, at=later[earlier]) > 0
    dead[earlier[~kept]] = True
    # a named write in an ``if`` that the last plain write of its address takes into
    # one store: every write between that may alias it is of its address, and no read
    # between that takes a port may alias it
    first = steps.last_before(write & plain)
    (merging,) = np.nonzero(chosen & write & named & ~plain & (first >= 0))
    source = first[merging]
    at_address = steps.by_flat.before(write)
    others = (steps.aliasing_between(source, at=merging)
              - (at_address[merging] - at_address[source]))
    reads = steps.aliasing_between(source, ~write & ~forwarded, at=merging)
    dead[merging[(others == 0) & (reads == 0)]] = True
    out[steps.order] = forwarded | dead
    return out


def flag(table: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """``table[ids]``, False where an id lies outside the table."""
    ids = ids.astype(np.int64)
    inside = (ids >= 0) & (ids < table.size)
    return inside & table[np.where(inside, ids, 0)] if table.size else inside
