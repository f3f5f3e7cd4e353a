"""The checker's epochs: reads of one element count once only with no write between.

The HLS tool (LLVM) merges a load with an earlier load of the same address only when
no store that may alias lies between them, so ``x = X[lo]; X[hi] = i; y = X[lo];`` is
load, store, load (probe 36 F1).  An access instance's *epoch* is how many write
instances of its array come before it in the program order of one step
(:func:`.forwarding.instance_orders`: lanes in turn, a statement's reads before its
writes), over every path through the loop's data-dependent ``if``s (a write on
another path still separates, as in the model: ``poly.build.with_epochs``).  The port
counts give each epoch its own addresses (:func:`.ports.element_addresses`), and
reads of one ``ir.Access.same_value`` are one cell only within one epoch.  Only reads
of an array the step writes need one (a write always counts; elsewhere it is 0).
"""

from __future__ import annotations

from bisect import bisect_left

import numpy as np

from .forwarding import instance_orders
from .walk import Emitted


def read_epochs(iteration: list[Emitted], cache: dict | None = None
                ) -> dict[int, np.ndarray]:
    """Per ``id(access)`` of a read of an array that ``iteration`` (every path's
    emissions of the same steps) writes, its epoch per lane column (0 where it never
    runs); other accesses have epoch 0 and are left out.  An access emitted more than
    once has no one place: it gets an epoch of its own, past every other, so it
    shares an address with no other access (conservative).  ``cache``: results by
    the places and live columns of those accesses (one for every chunk of a loop
    whose lanes all run)."""
    written = {a.array for e in iteration for a in e.accesses if a.kind == "write"}
    mine = [(e, k, a, e.frame.mask.any(axis=0)) for e in iteration
            for k, a in enumerate(e.accesses) if a.array in written]
    key = tuple((id(a), e.at, e.widths, live.tobytes()) for e, _, a, live in mine)
    if cache is not None and key in cache:
        return cache[key]
    out = _epochs(mine)
    if cache is not None:
        cache[key] = out
    return out


def _epochs(mine: list[tuple]) -> dict[int, np.ndarray]:
    """:func:`read_epochs` of the (emission, position, access, live columns) of the
    written arrays."""
    writes: dict[str, list[tuple]] = {}
    reads: dict[int, list[tuple[tuple, int, int]]] = {}  # access -> (order, column, lanes)
    seen: dict[int, int] = {}
    arrays: dict[int, str] = {}
    for e, k, a, _ in mine:
        orders = instance_orders(e, k, a)
        if a.kind == "write":
            writes.setdefault(a.array, []).extend(o for o, _ in orders)
            continue
        seen[id(a)] = seen.get(id(a), 0) + 1
        arrays[id(a)] = a.array
        reads.setdefault(id(a), []).extend((o, c, e.frame.lanes) for o, c in orders)
    ordered = {name: sorted(set(orders)) for name, orders in writes.items()}
    apart = sum(map(len, ordered.values())) + 1
    out: dict[int, np.ndarray] = {}
    for n, (access, instances) in enumerate(reads.items()):
        if not instances:
            continue
        epoch = np.zeros(max(lanes for _, _, lanes in instances), np.int64)
        if seen[access] > 1:
            epoch[:] = apart + n
        else:
            for order, column, _ in instances:
                epoch[column] = bisect_left(ordered[arrays[access]], order)
        out[access] = epoch
    return out
