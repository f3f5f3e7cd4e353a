"""A pipelined loop whose text runs in several calls: the trace's steps split by call.

The front end inlines a function at each of its calls, so a pipelined ``for`` of the
callee is one loop of the source text (one trace loop id, whose steps the driver numbers
in execution order across calls) but several concurrent loops of the model, its
*instances* (``CycleGroup.instance``).  Every step of every instance runs in the
lexicographic order of its 2d+1 schedule

    (pos(L_0), s_0 * t_0, pos(L_1), s_1 * t_1, ..., pos(L_k), s_k * t_k)

``L_0 .. L_k`` the sequential loops around the instance and the instance itself
(outermost first), ``t`` the step's time vector, ``s`` the loops' step signs and
``pos`` a loop's pre-order position in the kernel's IR: two instances part at the
first loop they do not share, and there two distinct subtrees of one body compare in
text order.  Sorting the instances' points by it gives, for trace step ``g``, the
instance that runs it (``owner[g]``) and its step there (``local[g]``); the trace is
then rewritten with one loop id per instance, so that the replay and the address
comparison see each call as a loop of its own.  Steps past the model's last (a run that
disagrees) stay with the last instance, numbered on from its end.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Mapping, Sequence

import numpy as np

from .. import ir
from ..errors import Coord
from ..poly.model import CycleGroup
from .addresses import run_points, run_sizes
from .records import chunks, no_checkpoint
from .walk import regions

#: Steps per loop text the split enumerates (isl points, a few microseconds each).
MAX_SPLIT_STEPS = 1 << 20


@dataclass(frozen=True, slots=True)
class Instance:
    """A concurrent loop of the model in program order: its ``for`` statement's place
    coordinate, and per loop around it and of itself (outermost first) the pre-order
    ``positions`` in the IR and the step ``signs``."""

    place: Coord
    positions: tuple[int, ...]
    signs: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Split:
    """Trace step g of one loop text is step ``local[g]`` of instance ``owner[g]``
    (an index into ``instances``)."""

    instances: tuple[int, ...]
    owner: np.ndarray
    local: np.ndarray


def instances(kernel: ir.Kernel) -> tuple[Instance, ...]:
    """Every concurrent loop of ``kernel`` in program order (that of
    ``PolyModel.loops``)."""
    position = {id(node): n for n, node in enumerate(_preorder(kernel.body))}
    out = []
    for region in regions(kernel):
        loops = [node for node, _ in region.path if isinstance(node, ir.Loop)] + [region.loop]
        out.append(Instance(region.loop.coord,
                            tuple(position[id(n)] for n in loops),
                            tuple(1 if n.step > 0 else -1 for n in loops)))
    return tuple(out)


def _preorder(nodes: tuple[ir.Node, ...]) -> Iterator[ir.Node]:
    for n in nodes:
        yield n
        if isinstance(n, ir.Loop):
            yield from _preorder(n.body)
        elif isinstance(n, ir.If):
            yield from _preorder(n.then + n.orelse)


def split(members: Sequence[int], all_instances: Sequence[Instance],
          groups: Sequence[CycleGroup], sizes: Mapping[str, int | None]) -> Split | None:
    """The split of one loop text run by the instances ``members`` at the run's
    ``sizes`` (:func:`.addresses.run_points`); None when some instance has no cycle
    group (no access to give its steps), time variables that are not one per loop, a
    size the data chose, or too many points."""
    keys, owners, width = [], [], 2 * max(len(all_instances[m].signs) for m in members)
    for k, member in enumerate(members):
        mine = [g for g in groups if g.instance == member and g.path == 0]
        instance = all_instances[member]
        lead = run_sizes(mine[0].time_vars, sizes) if mine else None
        if lead is None or len(mine[0].time_vars) != lead + len(instance.signs):
            return None
        points = run_points(mine[0].domain, mine[0].time_vars, sizes, MAX_SPLIT_STEPS)
        if points is None:
            return None
        points = points[:, lead:]
        signed = points * np.array(instance.signs, np.int64)
        key = np.zeros((len(points), width), np.int64)
        key[:, 0:2 * len(instance.signs):2] = instance.positions
        key[:, 1:2 * len(instance.signs):2] = signed
        keys.append(key[np.lexsort(key.T[::-1])])
        owners.append(np.full(len(points), k, np.int64))
    key = np.concatenate(keys)
    owner = np.concatenate(owners)
    local = np.concatenate([np.arange(len(k), dtype=np.int64) for k in keys])
    if len(key) > MAX_SPLIT_STEPS:
        return None
    order = np.lexsort(key.T[::-1])
    return Split(tuple(members), owner[order], local[order])


def rewrite(path: Path, into: Path, splits: Mapping[int, tuple[int, Split]],
            renumber: np.ndarray, checkpoint: Callable[[], None] = no_checkpoint) -> None:
    """Copy the records at ``path`` to ``into`` with loop ``lid`` renumbered
    ``renumber[lid]``, and each split loop's records (``splits``: lid -> (first new
    id, split)) given to its instances, new ids ``first + owner`` in instance order."""
    with open(into, "wb") as out:
        for rows in chunks(path, checkpoint=checkpoint, run_ends=True):
            loop = rows["loop"].astype(np.int64)
            new_loop, new_step = renumber[loop], rows["step"].copy()
            for lid, (first, s) in splits.items():
                mine = np.flatnonzero(loop == lid)
                if not mine.size:
                    continue
                step = rows["step"][mine]
                inside = step < s.owner.size
                last = len(s.instances) - 1
                at = np.minimum(step, s.owner.size - 1)
                new_loop[mine] = first + np.where(inside, s.owner[at], last)
                beyond = int(np.count_nonzero(s.owner == last)) + step - s.owner.size
                new_step[mine] = np.where(inside, s.local[at], beyond)
            rows = rows.copy()
            rows["loop"], rows["step"] = new_loop, new_step
            rows.tofile(out)
