"""The checker's epochs: reads of one element count once only with no write between.

The HLS tool (LLVM) merges a load with an earlier load of the same address only when
no store that may alias lies between them, so ``x = X[lo]; X[hi] = i; y = X[lo];`` is
load, store, load (probe 36 F1).  An access instance's *epoch* is how many write
instances of its array come before it in the program order of one step
(:func:`.forwarding.instance_orders`: lanes in turn, a statement's reads before its
writes), over every path through the loop's data-dependent ``if``s (a write on
another path still separates, as in the model: ``poly.build.with_epochs``).  The port
counts give each epoch its own addresses (:func:`.ports.element_addresses`), and
reads of one ``ir.Access.same_value`` are one cell only within one epoch.
"""

from __future__ import annotations

from bisect import bisect_left

import numpy as np

from .forwarding import instance_orders
from .walk import Emitted


def read_epochs(iteration: list[Emitted]) -> dict[int, np.ndarray]:
    """Per ``id(access)`` of ``iteration`` (every path's emissions of the same steps),
    its epoch per lane column (0 where it never runs).  An access emitted more than
    once has no one place: it gets an epoch of its own, past every other, so it
    shares an address with no other access (conservative)."""
    placed: dict[int, list[tuple[tuple, int, int]]] = {}  # access -> (order, column, lanes)
    arrays: dict[int, str] = {}
    writes: dict[str, set[tuple]] = {}
    seen: dict[int, int] = {}
    for e in iteration:
        for k, a in enumerate(e.accesses):
            seen[id(a)] = seen.get(id(a), 0) + 1
            arrays[id(a)] = a.array
            orders = instance_orders(e, k, a)
            placed.setdefault(id(a), []).extend((o, c, e.frame.lanes) for o, c in orders)
            if a.kind == "write":
                writes.setdefault(a.array, set()).update(o for o, _ in orders)
    ordered = {name: sorted(orders) for name, orders in writes.items()}
    apart = sum(map(len, ordered.values())) + 1
    out: dict[int, np.ndarray] = {}
    for n, (key, instances) in enumerate(placed.items()):
        if not instances:
            continue
        epoch = np.zeros(max(lanes for _, _, lanes in instances), np.int64)
        if seen[key] > 1:
            epoch[:] = apart + n
        elif arrays[key] in ordered:
            for order, column, _ in instances:
                epoch[column] = bisect_left(ordered[arrays[key]], order)
        out[key] = epoch
    return out
