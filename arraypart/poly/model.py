"""The polyhedral model's output: what one pipeline cycle accesses, per loop and array.

A *cycle group* belongs to a pipelined loop L (or an unrolled loop outside any
pipeline).  Its *time vector* P holds the iterators of the loops around L and L's own
iterator (the first value of an unroll block when L is unrolled by u: then
L's iterator steps by u*step).  One value of P is one pipeline iteration, issued in
``target_ii`` cycles.  Everything inside L is unrolled into *lanes*: a lane access is a
reference at fixed values of the unrolled iterators, so its index is a quasi-affine
function of P alone, valid on a sub-domain of P (remainder lanes and if-guards).

Invariant: for every P in ``domain`` the concurrent accesses are exactly the lane
accesses whose ``domain`` contains P.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from itertools import zip_longest

import islpy as isl

from ..errors import Coord
from ..expr import Expr
from ..ir import Array, PortModel, SharedInstances


@dataclass(frozen=True, eq=False)
class LaneAccess:
    """One reference at one unrolled lane.

    ``index[d]`` is a quasi-affine expression over the group's time variables (None: the
    dimension is irregular, any index).  ``lane`` holds the values of the fully
    unrolled iterators, in loop order, that are one constant in this lane (``()`` when
    there are none): compile-time values after unrolling, which a read copy may use.
    ``domain`` is an isl set over the group's time space: the P where the lane runs.
    ``field``: the struct member it reads or writes (``ir.Access.field``); ``window``:
    a read of an ``array_stencil`` window (``ir.Access.window``), addressed as the
    buffer's one feed read (:func:`.build.counted_addresses`).  ``branches``: per
    data-dependent ``if`` around it in the iteration that the group's path does not
    decide (one inside unrolled lanes), the ``if``'s instance in this lane and the
    branch taken: two lanes with one instance and different branches never run in one
    iteration (:func:`exclusive`).  ``subscript``: the innermost loop around the
    reference within its concurrent loop (its id) and the reference's index as
    written (``ir.Access.index``): writes of one subscript in different branches of
    one ``if`` instance are one write (:func:`merged_writes`).
    ``instances``: where the site's subscript is not one expression in every
    instance of its loop's text (a loop with a geometric step lowered once per value,
    a function's loop inlined once per call; :func:`.build.site_instances`), one index
    with None in those dimensions: the HLS tool has one piece of code for all of them,
    so a bank constant in each instance but not the same in all is no compile-time
    value.  ``same_value``: ``ir.Access.same_value`` with the lane's values of the
    unrolled iterators (None where the access has none); ``aliases``: the read references
    of this lane that read the same element (one ``same_value``, the same branches),
    merged into this one (:func:`.build.one_read_per_element`): they read its copy.
    ``in_time``: per loop unrolled in time around it (``unroll factor=u`` on a
    pipelined loop), the lane's number ``0 <= l < u`` there, named ``v'`` after the
    loop's iterator v (:mod:`.lanes`).  ``scope_from``: ``branches[scope_from:]``
    are the ``if``s inside the subscript's loop (``scope_branches``; the checker
    marks only these, :class:`..check.walk.Emitted`).  ``epoch``: the set of writes
    of the array that lie before it in the program order of one iteration, on any
    path, and may alias it (:mod:`.aliasing`), numbered (:func:`.build.with_epochs`):
    reads of one address are one access only within one epoch (:meth:`read_key`),
    since a write between may change the element and the HLS tool loads it again.
    ``copy_of``: for an array of a called function's own (``ir.Access.per_call``),
    its call and the lane's values of the iterators around that call: another call
    site, or lanes with other values, run other copies of the function, whose arrays
    are memories apart (one group each, :func:`.build.build_model`), banked alike;
    where an ``allocation`` pragma makes the calls share instances
    (``ir.PerCall.shared``), the scope they share them in.  ``instance``: then the
    limit (``ir.SharedInstances``) and the copy the lane's call would be without it:
    the calls one iteration makes (:attr:`LoopInfo.instance_ii`).
    """

    array: str
    kind: str
    index: tuple[Expr | None, ...]
    ref_id: int
    coord: Coord
    lane: tuple[tuple[str, int], ...]
    domain: isl.Set
    field: str | None = None
    window: bool = False
    branches: tuple[tuple[object, str], ...] = ()
    subscript: tuple = ()
    instances: tuple[tuple[Expr | None, ...], ...] = ()
    same_value: tuple | None = None
    aliases: tuple[int, ...] = ()
    in_time: tuple[tuple[str, int], ...] = ()
    scope_from: int = 0
    epoch: int = 0
    copy_of: tuple = ()
    instance: tuple = ()

    def read_key(self, address: object) -> tuple:
        """What makes two reads one access: one ``address`` (an index, an offset)
        in one epoch."""
        return self.epoch, address

    @property
    def scope_branches(self) -> tuple[tuple[object, str], ...]:
        return self.branches[self.scope_from:]

    @property
    def copy_lane(self) -> tuple[tuple[str, int], ...]:
        """``lane`` and ``in_time``: the values a read copy rule may use (only a
        multi-port ROM's rule uses ``in_time``, which no emitted code names)."""
        return self.lane + self.in_time

    @property
    def regular(self) -> bool:
        return all(e is not None for e in self.index)


def exclusive(a: LaneAccess, b: LaneAccess) -> bool:
    """``a`` and ``b`` lie in different branches of one instance of a data-dependent
    ``if``: they never run in one iteration."""
    sides = dict(a.branches)
    return any(sides.get(instance, side) != side for instance, side in b.branches)


def merged_writes(accesses: tuple[LaneAccess, ...]) -> dict[int, int]:
    """Each regular write that is one write with an earlier one, by position in
    ``accesses``, mapped to that one's position.

    Writes of one subscript and member (``LaneAccess.subscript``: one expression in
    one loop, so one address in one lane, and one ``if`` instance under that loop
    holds one lane) in different branches of one ``if`` instance never run in one
    iteration, and the HLS tool if-converts them into one store (UG1399: mutually
    exclusive operations share a port).  Of such writes, at most as many run in one
    iteration as :func:`_exclusive_classes` makes classes; each class counts as its
    first member, which runs wherever one of them runs (where the members' domains
    differ, a class may count at a P where only members exclusive with another
    class's run: pessimistic, never below the checker's count per cell).  Writes of
    different subscripts in exclusive branches still count apart (pessimistic; the
    checker, :mod:`arraypart.check.writes`, counts alike)."""
    by_subscript: dict[tuple, list[tuple[int, tuple]]] = {}
    for k, a in enumerate(accesses):
        if a.kind == "write" and a.regular and a.branches and a.subscript:
            by_subscript.setdefault((a.subscript, a.field), []).append((k, a.branches))
    return {k: min(c) for items in by_subscript.values() if len(items) > 1
            for c in _exclusive_classes(items) for k in c if k != min(c)}


def most_on_one_path(marks: list[tuple]) -> int:
    """The most of the accesses whose branches (outermost first) ``marks`` lists
    that one path through their data-dependent ``if``s runs: per ``if`` instance, the
    most of one side (:func:`_exclusive_classes`)."""
    return len(_exclusive_classes(list(enumerate(marks))))


def _exclusive_classes(items: list[tuple[int, tuple]]) -> list[list[int]]:
    """A partition of the positions of ``items`` (position, branches outermost first)
    into the fewest classes of pairwise exclusive items, as many as the most items
    one path through the branches runs: an item without branches is a class of its
    own; the items under one ``if`` instance do not meet those under another (their
    counts add), and under one instance the i-th classes of its sides merge (the
    most of one side runs).  (Dropping each item exclusive with one kept before it
    undercounts: w1 in A-then, w2 in A-else/B-then, w3 in A-else/C-then run two.)"""
    classes = [[k] for k, marks in items if not marks]
    sides: dict[object, dict[str, list[tuple[int, tuple]]]] = {}
    for k, marks in items:
        if marks:
            (instance, side), tail = marks[0], marks[1:]
            sides.setdefault(instance, {}).setdefault(side, []).append((k, tail))
    for by_side in sides.values():
        per_side = [_exclusive_classes(tails) for tails in by_side.values()]
        classes += [[k for c in merged for k in c]
                    for merged in zip_longest(*per_side, fillvalue=[])]
    return classes


@dataclass(frozen=True, eq=False)
class CycleGroup:
    """The accesses of one pipeline iteration of ``loop`` to one array.

    ``domain`` is the isl set of time vectors, over the variables ``time_vars``
    (outermost first).  ``trip_count`` is the number of pipeline iterations per entry
    of the loop (its own trip count divided by its unroll factor, rounded up; the
    largest over the outer iterations when it varies), ``total_iterations`` the
    number of points of ``domain``.  ``direct``: the loop is pipelined with an unroll
    factor of its own, so the emitted code keeps its references as written (no
    bank-centric routing): under the scheduling rule a lane whose bank changes with
    the iteration takes a port of every bank; so does a loop the IR holds more than
    once (a geometric loop's copies, a function's loop in each call), whose one text
    the emission keeps.  ``phasable``: the emission may write
    phase switches for a pragma-only array's references in the loop
    (:mod:`arraypart.codegen.phases`: not in a loop with an unroll factor, not where a
    subscript changes state, whose phased text, ``(w++) - i``, is constant only to a
    tool that proves w = i, nor once its emitted code was found to keep them
    rotating).  ``path``: which path through the
    loop's data-dependent ifs the group holds (:func:`ir.branch_paths`; a loop with
    several paths has one group per path and array, and a banking must serve each).
    A disaggregated struct array has one group per member (``ir.member_views``).
    ``instance``: the ordinal of ``loop`` among the kernel's concurrent loops in program
    order (:attr:`PolyModel.loops`); a function's loop, inlined at each call, has one
    instance per call, all of one name and coordinate.  ``descending``: the last time
    variable falls from one iteration to the next (the loop counts down).  ``sizes``:
    the time variables that are run-time sizes (one value per run, but none at compile
    time: a bank that moves with one is no compile-time value, and only a phase
    switch over an unsigned argument of the top makes it one:
    :mod:`arraypart.codegen.phases`).  ``text``: the loop's ``ir.Loop.text`` (``()``:
    its function's one text); the groups of one coordinate and text are one
    piece of code to the HLS tool (``LaneAccess.instances``).  ``process``: the
    loop's dataflow processes (``ir.Loop.process``).  ``free``: the lane
    accesses that take no port (:mod:`.forwarding`: reads the iteration forwards from
    its own write, stores a later one overwrites), left out of ``accesses``, which
    every port count, proof and recurrence reads; the trace's address check compares
    them too (:attr:`issued`).
    """

    loop: str
    coord: Coord
    target_ii: int
    time_vars: tuple[str, ...]
    domain: isl.Set
    accesses: tuple[LaneAccess, ...]
    trip_count: int
    total_iterations: int
    direct: bool = False
    phasable: bool = True
    path: int = 0
    instance: int = 0
    descending: bool = False
    sizes: frozenset[str] = frozenset()
    text: tuple = ()
    process: tuple[tuple[int, int], ...] = ()
    free: tuple[LaneAccess, ...] = ()

    @property
    def issued(self) -> tuple[LaneAccess, ...]:
        """Every lane access the program makes in an iteration, ``free`` ones too."""
        return self.accesses + self.free

    @cached_property
    def merged_writes(self) -> dict[int, int]:
        """:func:`merged_writes` of ``accesses``: every counter of ports skips these
        writes (their lanes stay, for the code, the RTL and the recurrences)."""
        return merged_writes(self.accesses)


@dataclass(frozen=True, eq=False)
class ArrayModel:
    """An array, the port model of its banks, and every cycle group that touches it;
    ``read_only``: no reference of the kernel writes it (its initializer fills it)."""

    array: Array
    ports: PortModel
    groups: tuple[CycleGroup, ...]
    max_concurrent: int
    read_only: bool = False


@dataclass(frozen=True, eq=False)
class LoopInfo:
    """A pipelined loop (or unrolled loop outside pipelines) for the report.

    ``pipeline_inferred``: pipelined by Vitis's default, not by a pragma.

    ``bundle_ii`` is the least II its off-chip accesses allow: an m_axi bundle serves
    one read and one write per cycle for all its arrays together, so
    ``bundle_ii = max over bundles of max(reads, writes)`` per iteration (distinct
    addresses of the bundle's arrays, every lane counted: an upper bound).

    ``instances``: per function whose instances an ``allocation`` pragma limits to N
    (``ir.SharedInstances``), the most calls k of it that one iteration makes on one
    path through its data-dependent ``if``s, counted by the copies whose own arrays it
    accesses (``LaneAccess.instance``): calls beyond N wait for an instance, so
    ``instance_ii = max ceil(k / N)``, whatever the banking (UG1399, "pragma HLS
    allocation")."""

    name: str
    coord: Coord
    target_ii: int
    trip_count: int
    arrays: tuple[str, ...]
    pipeline_inferred: bool = False
    bundle_ii: int = 1
    instances: tuple[tuple[SharedInstances, int], ...] = ()

    @property
    def instance_ii(self) -> int:
        return max((shared.cycles(k) for shared, k in self.instances), default=1)


@dataclass(frozen=True, slots=True)
class Recurrence:
    """In pipelined loop ``loop``, the reference at ``read`` reads an element of
    ``array`` that the previous iteration wrote through the reference at ``write``
    (:mod:`.recurrences`); ``possible``: one of the two indices is irregular, so
    the element may be the written one (the HLS tool, which cannot tell either,
    assumes it is); ``outside``: the call (each size and its value) at which it
    occurs where no call in the sizes' ranges makes it (:mod:`.cover`; ``()``: found
    in the ranges)."""

    loop: str
    array: str
    read: Coord
    write: Coord
    possible: bool = False
    outside: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True, eq=False)
class PolyModel:
    """The whole kernel's model: per array and per concurrent loop, plus warnings
    (irregular references, located), the recurrences through memory and
    ``undefined_reads``, the reads that may take a local's element before anything
    writes it (:mod:`.order`).  ``loops`` are in program order: a cycle group's
    ``instance`` indexes them."""

    arrays: tuple[ArrayModel, ...]
    loops: tuple[LoopInfo, ...]
    warnings: tuple[str, ...]
    recurrences: tuple[Recurrence, ...] = ()
    undefined_reads: tuple[Coord, ...] = ()

    def array(self, name: str) -> ArrayModel:
        for a in self.arrays:
            if a.array.name == name:
                return a
        raise KeyError(name)


def with_direct_loops(model: PolyModel, loops: frozenset[str],
                      unphased: frozenset[tuple[str, str]] = frozenset()) -> PolyModel:
    """``model`` with the cycle groups of ``loops`` marked ``direct``: the banking
    search then prices lanes that change bank there as the scheduling rule does (a
    pragma-only array's are priced so already: its references all stay as written);
    and those of the (array, loop) pairs ``unphased`` not ``phasable``: the search
    assumes no phase switch there (the emission wrote none).  ``model`` itself when
    no group changes."""
    def new_group(a: ArrayModel, g: CycleGroup) -> CycleGroup:
        direct = g.direct or (g.loop in loops and not a.array.pragma_only)
        phasable = g.phasable and (a.array.name, g.loop) not in unphased
        if (direct, phasable) == (g.direct, g.phasable):
            return g
        return replace(g, direct=direct, phasable=phasable)

    def marked(a: ArrayModel) -> ArrayModel:
        groups = tuple(new_group(a, g) for g in a.groups)
        return a if all(new is old for new, old in zip(groups, a.groups)) else replace(
            a, groups=groups)
    arrays = tuple(marked(a) for a in model.arrays)
    if all(new is old for new, old in zip(arrays, model.arrays)):
        return model
    return replace(model, arrays=arrays)
