"""The checker's epochs: reads of one element count once only with no write between
that may alias them.

The HLS tool (LLVM) merges a load with an earlier load of the same address only when
no store that may alias lies between them, so ``x = X[lo]; X[hi] = i; y = X[lo];`` is
load, store, load (probe 36 F1), while ``X[i + 1] = v`` between two reads of ``X[i]``
is no obstacle: BasicAA proves two offsets off one base apart when they have one
variable part and different constants (:mod:`.aliasing`: the checker's own reading
of the IR's subscripts; a reshaped array's words always may alias).  An access
instance's *epoch* names the set of write instances of its array that come before
it in the program order of one step (:func:`.forwarding.instance_orders`: lanes in
turn, a statement's reads before its writes) and may alias it, over every path
through the loop's data-dependent ``if``s (a write on another path still separates,
as in the model: ``poly.build.with_epochs``).  The port counts give each epoch its
own addresses (:func:`.ports.element_addresses`), and reads of one
``ir.Access.same_value`` are one cell only within one epoch.  Only reads of an array
the step writes need one (elsewhere it is 0).
"""

from __future__ import annotations

from typing import Mapping

import numpy as np

from .. import ir
from .aliasing import Aliasing, flat
from .forwarding import element_instances
from .walk import Emitted


def read_epochs(iteration: list[Emitted], arrays: Mapping[str, ir.Array],
                cache: dict | None = None) -> dict[int, np.ndarray]:
    """Per ``id(access)`` of a read of an array that ``iteration`` (every path's
    emissions of the same steps) writes, its epoch per lane column (0 where it never
    runs); other accesses have epoch 0 and are left out.  An access emitted more than
    once has no one place: it gets an epoch of its own, past every other, so it
    shares an address with no other access (conservative).  ``arrays``: the
    kernel's, by name; ``cache``: results by the places and live columns of those
    accesses (one for every chunk of a loop whose lanes all run)."""
    written = {a.array for e in iteration for a in e.accesses if a.kind == "write"}
    mine = [(e, k, a, e.frame.mask.any(axis=0)) for e in iteration
            for k, a in enumerate(e.accesses) if a.array in written]
    key = tuple((id(a), e.at, e.widths, live.tobytes()) for e, _, a, live in mine)
    if cache is not None and key in cache:
        return cache[key]
    out = _epochs(mine, arrays)
    if cache is not None:
        cache[key] = out
    return out


def _epochs(mine: list[tuple], arrays: Mapping[str, ir.Array]) -> dict[int, np.ndarray]:
    """:func:`read_epochs` of the (emission, position, access, live columns) of the
    written arrays."""
    writes: dict[str, dict[tuple, tuple | None]] = {}  # array -> order -> flat form
    reads: dict[int, list[tuple]] = {}  # access -> (order, column, lanes, flat form)
    seen: dict[int, int] = {}
    arrays_of: dict[int, str] = {}
    elements: dict = {}
    for e, k, a, _ in mine:
        array = arrays[a.array]
        found = [(order, column, lanes, flat(element, array))
                 for order, _, column, lanes, element, _ in element_instances(e, k, a, elements)]
        if a.kind == "write":
            writes.setdefault(a.array, {}).update((o, form) for o, _, _, form in found)
            continue
        seen[id(a)] = seen.get(id(a), 0) + 1
        arrays_of[id(a)] = a.array
        reads.setdefault(id(a), []).extend(found)
    aliasing = {name: Aliasing(sorted(orders.items())) for name, orders in writes.items()}
    sets = {access: [aliasing[arrays_of[access]].before(order)
                     & aliasing[arrays_of[access]].aliasing(form)
                     for order, _, _, form in instances]
            for access, instances in reads.items()}
    numbers: dict[str, dict[int, int]] = {}
    for access, masks in sets.items():
        numbers.setdefault(arrays_of[access], {}).update(dict.fromkeys(masks, 0))
    for known in numbers.values():  # the empty set (no write) is epoch 0
        known.update((mask, n) for n, mask in enumerate(sorted(known)))
    apart = sum(map(len, numbers.values())) + 1
    out: dict[int, np.ndarray] = {}
    for n, (access, instances) in enumerate(reads.items()):
        if not instances:
            continue
        epoch = np.zeros(max(lanes for _, _, lanes, _ in instances), np.int64)
        if seen[access] > 1:
            epoch[:] = apart + n
        else:
            for (_, column, _, _), mask in zip(instances, sets[access]):
                epoch[column] = numbers[arrays_of[access]][mask]
        out[access] = epoch
    return out
