"""``check --trace``: the recorded run of the original (:mod:`.recording`) judged.

Its records are replayed step by step against the bankings (:mod:`.replay`: the II
each pipelined loop really needs) and their addresses compared with the polyhedral
model's (:mod:`.addresses`); a traced ``for`` is matched to the model's concurrent
loops at its coordinate, one that runs in several calls split into them
(:mod:`.calls`).  The verdict (:class:`TraceCheck`) disagrees, located, wherever the
model is optimistic.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Iterator, Mapping, Sequence

import numpy as np

from .. import expr as E
from .. import ir
from ..errors import Coord
from ..limits import Deadline
from ..poly.lanes import plain_reference
from ..poly.model import CycleGroup
from ..scheme import Banking, none_scheme
from . import calls
from .addresses import AddressCheck, compare
from .forwarding import affine_in_every_lane, forwarded_arrays, lane_ordinals
from .instrument import Instrumented, Site
from .recording import (STAGE, Trace, copy_text, driver_source, modelled_sizes, record,
                        size_values, widening)
from .records import no_checkpoint
from .replay import RECORDED, Claim, LoopReplay, Memory, Replay, replay, window_key
from .traced_epochs import Forwarding
from .unwritten import uninitialized_locals, unwritten_reads
from .walk import regions

__all__ = ["STAGE", "Claim", "TraceCheck", "Trace", "check_trace", "driver_source", "record",
           "size_values"]

#: The stage :func:`check_trace` is.
REPLAY_STAGE = "replaying the recorded run (check --trace)"


@dataclass(frozen=True, slots=True)
class TraceCheck:
    """The verdict of ``check --trace``: the recorded run, its replay under the ideal
    port model or the scheduling ``rule``, and what the model could not be compared on;
    ``labels``: per replayed loop, which call of its text it is ("" when it runs in
    one call or its calls were not told apart)."""

    trace: Trace
    replay: Replay
    addresses: AddressCheck
    rule: bool
    untraced: tuple[Claim, ...]
    labels: tuple[str, ...] = ()
    unwritten: tuple[str, ...] = ()  # warnings: reads of undefined local elements
    in_headers: tuple[Coord, ...] = ()  # untraced loops of a header's text
    header_accesses: tuple[Coord, ...] = ()  # accesses of a header's functions
    outside: tuple[str, ...] = ()  # warnings: sizes a call gives outside their ranges
    # per replayed loop, whether the model counts array accesses in it
    modelled: tuple[bool, ...] = ()

    @property
    def disagreements(self) -> tuple[str, ...]:
        out = [_overfull_text(loop, label)
               for loop, label in zip(self.replay.loops, self._labels()) if not loop.agrees]
        out += [f"{o.coord}: error: on the testbench's inputs the program accesses "
                f"{o.array} element {o.flat} (row-major), outside the array"
                for o in self.replay.out_of_bounds]
        return tuple(out) + self.addresses.mismatches

    @property
    def checked_nothing(self) -> bool:
        """The model pipelines some loop and no modelled loop recorded an array access:
        the run checked nothing of the banking."""
        modelled = bool(self.untraced) or any(
            loop.claim is not None and counted
            for loop, counted in zip(self.replay.loops, self._modelled()))
        return modelled and not any(loop.accesses for loop in self.replay.loops
                                    if loop.claim is not None)

    def to_json(self) -> dict:
        loops = [{"coord": str(loop.coord), "call": label or None, "steps": loop.steps,
                  "accesses": loop.accesses,
                  "traced_ii": loop.traced_ii,
                  "name": loop.claim.name if loop.claim else None,
                  "claimed_ii": loop.claim.claimed_ii if loop.claim else None,
                  "emitted_ii": loop.claim.emitted_ii if loop.claim else None,
                  "agrees": loop.agrees}
                 for loop, label in zip(self.replay.loops, self._labels())]
        return {"records": self.replay.records, "port_model": "rule" if self.rule else "ideal",
                "build_seconds": round(self.trace.build_seconds, 3),
                "run_seconds": round(self.trace.run_seconds, 3), "loops": loops,
                "untraced": [str(c.coord) for c in self.untraced],
                "addresses_compared": [str(c) for c in self.addresses.compared],
                "unwritten_reads": list(self.unwritten),
                "sizes_outside": list(self.outside) + list(self.addresses.beyond),
                "unrecorded": self._unrecorded(), "checked_nothing": self.checked_nothing,
                "disagreements": list(self.disagreements)}

    def format(self) -> str:
        model = "the scheduling rule" if self.rule else "the ideal port model"
        lines = [f"check --trace: {self.replay.records} accesses recorded by the compiled "
                 f"original (g++ build {self.trace.build_seconds:.1f} s, run "
                 f"{self.trace.run_seconds:.2f} s), replayed under {model}"]
        for loop, label in zip(self.replay.loops, self._labels()):
            where = f"{loop.coord}, {label}" if label else str(loop.coord)
            if loop.claim is None and loop.steps == 0:
                continue  # a pipelined loop of a function the run never calls
            if loop.claim is None:
                lines.append(f"  {loop.coord}: a pipelined loop the model does not have "
                             f"({loop.steps} steps, traced II {loop.traced_ii})")
                continue
            if loop.steps == 0:
                continue  # a warning below
            verdict = "agrees" if loop.agrees else "DISAGREES"
            lines.append(f"  {loop.claim.name} ({where}): {loop.steps} steps, model "
                         f"II {loop.claim.claimed_ii}, traced II {loop.traced_ii}: {verdict}"
                         + _emitted_note(loop.claim) + _below_note(loop, self._untraced())
                         + _allocation_note(loop.claim))
        differing = set(self.trace.instrumented.synthesis_only)
        lines += [f"  {c.name} ({c.coord}): not traced (" + (
                  "code only synthesis reads stands in it, in a declaration it names or "
                  "in a function it calls, #ifdef __SYNTHESIS__, which g++ does not "
                  "compile" if c.coord in differing
                  else "it lies in a header's text: the trace instruments the kernel "
                  "file and the files it includes from its folder only"
                  if c.coord in self.in_headers
                  else
                  "no pipelined `for` of the kernel's text there: a pipelined function, "
                  "or a loop unrolled outside a pipeline, whose lanes the program runs one "
                  "after another") + ")" for c in self.untraced]
        lines += [f"  {coord}: access written in a macro, not traced"
                  for coord in dict.fromkeys(self.trace.instrumented.skipped)]
        lines += [f"  {coord}: access in a file a function body includes, not traced"
                  for coord in dict.fromkeys(self.trace.instrumented.included)]
        lines += [f"  {coord}: access in a function a header defines, not traced"
                  for coord in self.header_accesses]
        idle = {loop.coord for loop in self.replay.loops if loop.steps == 0}
        lines.append(f"  addresses compared with the polyhedral model in "
                     f"{len([c for c in self.addresses.compared if c not in idle])} "
                     "loop(s)")
        lines += ["  " + note for note in self.addresses.skipped]
        return "\n".join(lines + list(self.outside) + list(self.addresses.beyond)
                          + self._idle() + self._unrecorded() + list(self.unwritten)
                          + list(self.disagreements) + self._nothing())

    def _unrecorded(self) -> list[str]:
        """A warning per modelled loop that ran steps but recorded no array access
        where the model counts some: its accesses lie in text the trace does not
        instrument, so nothing of it is checked."""
        return [f"{loop.coord}: warning: loop {loop.claim.name}"
                + (f" ({label})" if label else "")
                + f" ran {loop.steps} steps but recorded no array access, where the model "
                "counts some: nothing of it is checked (its accesses lie in text the trace "
                "does not instrument, listed above as not traced)"
                for loop, label, modelled in zip(self.replay.loops, self._labels(),
                                                 self._modelled())
                if loop.claim is not None and loop.steps and not loop.accesses and modelled]

    def _nothing(self) -> list[str]:
        """The line that says the run checked nothing (:attr:`checked_nothing`)."""
        if not self.checked_nothing:
            return []
        return ["error: check --trace checked nothing: no pipelined loop of the model "
                "recorded an array access in the run (see the loops listed above as not "
                "traced or as recording none)"]

    def _modelled(self) -> tuple[bool, ...]:
        return self.modelled or (True,) * len(self.replay.loops)

    def _idle(self) -> list[str]:
        """A warning per modelled loop that ran no step in any recorded call."""
        calls = len(self.trace.paths)
        runs = "the testbench's first call" if calls == 1 else f"the testbench's {calls} calls"
        return [f"{loop.coord}: warning: loop {loop.claim.name}"
                + (f" ({label})" if label else "")
                + f" never ran in {runs} of the top, so nothing of it is checked (its "
                "scalar arguments or data skip it)"
                for loop, label in zip(self.replay.loops, self._labels())
                if loop.claim is not None and loop.steps == 0]

    def _untraced(self) -> bool:
        """Some access of the kernel is listed as not traced (in a macro, an included
        file, a header's function)."""
        inst = self.trace.instrumented
        return bool(inst.skipped or inst.included or self.header_accesses)

    def _labels(self) -> tuple[str, ...]:
        return self.labels or ("",) * len(self.replay.loops)


def _below_note(loop: LoopReplay, untraced: bool) -> str:
    """Why a traced II below the model's confirms only that the model is not
    optimistic: the trace records no FIFO transfer (``hls::stream``: probe 33c F4,
    model II 8 from eight stream writes a step, traced II 1 from no access at all) nor
    an access in a macro's text or a header's function; and
    the model may count more than a run makes (a read through an index it cannot read
    is a distinct element of any bank, even one that another read of the same
    subscript reads: probe 34 F7; an m_axi bundle's transfers in every arm a run may
    take); ``untraced``: some access is listed as not traced, which the bundle's
    count may hold."""
    if not loop.agrees or loop.traced_ii >= loop.claim.claimed_ii:
        return ""
    if loop.claim.bundle_ii >= loop.claim.claimed_ii:
        return (f" (below the model's: the model counts the transfers of the loop's m_axi "
                f"bundle, whose arrays share one read and one write a cycle, at "
                f"II {loop.claim.bundle_ii}, for accesses this run does not all make"
                + (" or that are listed below as not traced" if untraced else "") + ")")
    return (" (below the model's: the trace records no FIFO transfer nor an access "
            "listed below as not traced, and the model may count accesses this run does not make, or count reads through an index "
            "it cannot read as reads of distinct elements)")


def _overfull_text(loop: LoopReplay, label: str) -> str:
    claim, first = loop.claim, loop.first
    call = f" ({label})" if label else ""
    head = (f"{loop.coord}: error: trace disagrees with the model: loop {claim.name}{call} "
            f"reaches II {loop.traced_ii}, the model claims II {claim.claimed_ii}")
    if first is None:
        return head
    return "\n".join([head + f"; first at step {first.step} (cycle {first.cycle}): "
                      f"{first.memory()} "
                      f"gets {first.reads} read(s) and {first.writes} write(s)"]
                     + ["  " + a.format() for a in first.accesses])


def _moving_sites(sites: Sequence[Site], groups: Sequence[CycleGroup],
                  bankings: Mapping[str, Banking]) -> np.ndarray:
    """The sites at a reference whose subscript differs between the instances of its
    loop's text where the bank reads it (``LaneAccess.instances``,
    ``Scheme.same_subscript``): the run shows each call's values, not that the text's
    bank is a run-time value there."""
    places = {a.coord for g in groups for a in g.accesses if a.array in bankings
              and not bankings[a.array].scheme.same_in_every_instance(a.index, a.instances)}
    return np.array([n for n, site in enumerate(sites) if site.coord in places], np.int64)


def _sources(coords: Sequence[Coord], members: Sequence[Sequence[int]],
             groups: Sequence[CycleGroup]) -> np.ndarray:
    """Per loop id, the first id of its text (its coordinate and the model's
    ``CycleGroup.text`` of its instances): the calls a loop is split into are one
    piece of code unless a pragma or a template gives each its own (the scheduling
    rule's static sites span every call of one text)."""
    text = {g.instance: g.text for g in groups}
    keys = [(c, text.get(mine[0], ()) if mine else ()) for c, mine in zip(coords, members)]
    first: dict = {}
    return np.array([first.setdefault(k, n) for n, k in enumerate(keys)], np.int64)


def check_trace(kernel: ir.Kernel, trace: Trace, bankings: Mapping[str, Banking],
                claims: Sequence[Claim], groups: Sequence[CycleGroup], *, ports: int = 2,
                storage: Mapping[str, ir.PortModel] | None = None, rule: bool = False,
                deadline: Deadline | None = None) -> TraceCheck:
    """Replay ``kernel``'s recorded run against ``bankings`` (missing arrays: one
    memory; ``storage``: port models that replace the kernel's) with the ``claims``
    of its concurrent loops (in program order, as ``PolyModel.loops``) and compare its
    addresses with the model's cycle ``groups``.  A traced ``for`` is matched to the
    concurrent loops at its coordinate; one that runs in several calls is split into
    its calls (:mod:`.calls`).  ``deadline`` is asked before each chunk of records
    (raises :class:`TimeLimit`)."""
    checkpoint = no_checkpoint if deadline is None else (
        lambda: deadline.check(REPLAY_STAGE))
    inst = trace.instrumented
    storage = storage or {}
    per_call = {a.array for a in ir.accesses(kernel.body)
                if a.per_call is not None and a.per_call.shared is None}
    memories = {n: Memory(a, bankings.get(a.name) or Banking(a.name, none_scheme(a.shape)),
                          storage.get(a.name) or ir.port_model(a, ports), a.name in per_call)
                for n, a in enumerate(kernel.arrays)}
    guarded = tuple(_data_guarded(kernel.body))
    skipping = frozenset(place for is_loop, place in guarded if is_loop)
    if kernel.returns_early:  # a return may skip any loop: each matched run by run
        skipping |= {lp.coord for lp in ir.loops(kernel.body)}
    passed = size_values(kernel)
    sizes, outside = modelled_sizes(kernel, passed)
    # the sizes whose values no call tells: the steps their highest values allow bound a run
    widest = {p.name: p.high for p in kernel.params if widening(p)
              and all(at.get(p.name) is None for at in passed)}
    if len(sizes) != len(trace.paths):
        raise ValueError(f"{len(trace.paths)} recorded calls for {len(sizes)} calls' sizes")
    loops = _traced_loops(kernel, inst, groups, skipping, sizes)
    if len(claims) != len(loops.instances):
        raise ValueError(f"{len(claims)} claims for {len(loops.instances)} concurrent loops")
    paths = trace.paths
    if loops.splits:
        paths = tuple(path.with_name(f"calls.{n + 1}.bin") for n, path in enumerate(paths))
        for n, (source, into) in enumerate(zip(trace.paths, paths)):
            calls.rewrite(source, into, {lid: (first, cuts[n]) for lid, (first, cuts)
                                         in loops.splits.items()}, loops.renumber, checkpoint)
    claimed = {n: _claim([claims[m] for m in members])
               for n, members in enumerate(loops.members) if members}
    for n, (outer, _) in loops.nested.items():
        # steps of its own run and lanes of the outer loop, not told apart: each is
        # held to its loop's claim, so together to the larger one
        if claims[outer].claimed_ii > claimed[n].claimed_ii:
            claimed[n] = replace(claimed[n], claimed_ii=claims[outer].claimed_ii)
    windows = window_places(kernel)
    header_accesses = _header_accesses(kernel, inst)
    result = replay(paths, inst.sites, loops.coords, memories,
                    _read_copies(kernel, inst, memories), claimed, rule=rule,
                    site_fields=_site_fields(kernel, inst), checkpoint=checkpoint,
                    windows=_window_keys(windows, loops.coords, inst),
                    sources=_sources(loops.coords, loops.members, groups),
                    moving=_moving_sites(inst.sites, groups, bankings),
                    forwarding=_forwarding(kernel, inst.sites, loops.coords,
                                           frozenset(loops.nested)),
                    regular=_regular_sites(kernel, inst.sites))
    # Every path of a loop holds its accesses outside data-dependent ifs, compared on
    # the first path's groups; those inside them are looked up on every path's.
    exiting, ended = _early_exits(kernel.body)
    by_loop = {n: mine for n, members in enumerate(loops.members) if len(members) == 1
               if n not in loops.nested
               if loops.coords[n] not in ended
               if (mine := [g for g in groups if g.instance == members[0]])}
    directions = {n: loops.instances[members[0]].signs
                  for n, members in enumerate(loops.members) if len(members) == 1}
    addresses = compare(paths, inst.sites, loops.coords, by_loop, directions,
                        [(a.name, a.shape) for a in kernel.arrays],
                        frozenset(place for is_loop, place in guarded if not is_loop)
                        | exiting,
                        skipping, checkpoint, loops.labels,
                        frozenset(inst.skipped + inst.included)
                        | {site for _, site in windows} | _reshaped_places(kernel)
                        | _irregular_places(kernel) | _initialized_places(kernel)
                        | set(header_accesses), sizes, widest)
    shared = tuple(f"{coord}: its text runs in {len(members)} calls, whose steps were not "
                   "told apart (a call under a data-dependent if, or one the model cannot "
                   "enumerate): addresses not compared"
                   for coord, members in zip(loops.coords, loops.members) if len(members) > 1)
    nested = tuple(f"{loops.coords[n]}: its text also runs as steps of the concurrent loop "
                   f"{name}, which holds it (in its body or in a function it calls), "
                   "whose steps the trace records under this `for`: addresses not "
                   "compared, and its II held to the larger of the two loops' claims"
                   for n, (_, name) in loops.nested.items())
    stencils = tuple(f"{a.coord}: {a.name}'s reads in loop {a.stencil} come from its "
                     "array_stencil window (one read of the array per step): addresses "
                     "not compared" for a in kernel.arrays if a.stencil is not None)
    reshaped = tuple(f"{a.coord}: {a.name} is reshaped, so the model counts its words: "
                     "addresses not compared" for a in kernel.arrays if a.reshapes)
    early = tuple(f"{coord}: a break or return may end it before its last iteration: "
                  "addresses not compared" for coord in loops.coords
                  if coord in ended)
    addresses = replace(addresses, skipped=addresses.skipped + shared + nested + stencils
                        + reshaped + early)
    claimed_places = {loops.instances[m].place for members in loops.members for m in members}
    untraced = tuple({i.place: c for c, i in zip(claims, loops.instances)
                      if i.place not in claimed_places}.values())
    unwritten = tuple(
        f"{inst.sites[u.site].coord}: warning: on the testbench's inputs this reads "
        f"{u.array}{''.join(f'[{x}]' for x in u.index)} before anything writes it: its "
        "value is undefined, so the original and the banked kernel may differ there"
        for u in unwritten_reads(trace.paths, uninitialized_locals(
            kernel, frozenset(inst.skipped)), checkpoint))
    in_headers = tuple(c.coord for c in untraced if c.coord.file != kernel.coord.file)
    accessing = {g.instance for g in groups if g.accesses}
    modelled = tuple(bool(accessing.intersection(members)) for members in loops.members)
    return TraceCheck(trace, result, addresses, rule, untraced, loops.labels, unwritten,
                      in_headers, header_accesses, outside, modelled)


@dataclass(frozen=True, slots=True)
class _TracedLoops:
    """The loops the replay sees: per loop, its coordinate, the concurrent loops
    (indices into ``instances``) it stands for and a label naming its call;
    ``renumber[lid]`` the loop of the trace's loop ``lid`` and ``splits`` those split
    into calls (:func:`calls.rewrite`), a split per recorded call of the top; ``nested``: the loops whose text also runs
    inside another concurrent loop (by loop, that loop's index among ``instances``
    and its name)."""

    instances: tuple[calls.Instance, ...]
    coords: tuple[Coord, ...]
    members: tuple[tuple[int, ...], ...]
    labels: tuple[str, ...]
    renumber: np.ndarray
    splits: dict[int, tuple[int, tuple[calls.Split, ...]]]
    nested: dict[int, tuple[int, str]]


def _traced_loops(kernel: ir.Kernel, inst: Instrumented, groups: Sequence[CycleGroup],
                  skipping: frozenset[Coord],
                  sizes: Sequence[Mapping[str, int | None]]) -> _TracedLoops:
    """Each traced ``for``, matched to the concurrent loops at its coordinate; one
    that runs in several calls becomes one loop per call where :func:`calls.split`
    tells their steps apart in every recorded call of the top (``sizes``: each one's;
    not under a data-dependent ``if``: a call may then run fewer steps than the
    model's)."""
    instances = calls.instances(kernel)
    at: dict[Coord, list[int]] = {}
    for n, i in enumerate(instances):
        at.setdefault(i.place, []).append(n)
    coords, members, labels, splits, nested = [], [], [], {}, {}
    inside = _nested_places(kernel, frozenset(t.coord for t in inst.loops))
    renumber = np.zeros(max(1, len(inst.loops)), np.int64)
    for lid, loop in enumerate(inst.loops):
        place = loop.coord
        mine = tuple(at.get(place, ()))
        cuts = (tuple(calls.split(mine, instances, groups, s) for s in sizes)
                if len(mine) > 1 and place not in skipping and place not in inside
                else (None,))
        renumber[lid] = len(coords)
        if place in inside:
            nested[len(coords)] = inside[place]
        if None in cuts:
            coords.append(loop.coord)
            # a text that only runs inside a concurrent loop is judged by its claim: one
            # lane's step uses no more ports than the step of every lane together
            members.append(mine or ((inside[place][0],) if place in inside else ()))
            labels.append("a loop of its body" if not mine and place in inside else "")
            continue
        splits[lid] = (len(coords), cuts)
        for k, m in enumerate(mine):
            coords.append(loop.coord)
            members.append((m,))
            labels.append(f"call {k + 1} of {len(mine)}")
    return _TracedLoops(instances, tuple(coords), tuple(members), tuple(labels), renumber,
                        splits, nested)


def _nested_places(kernel: ir.Kernel, traced: frozenset[Coord]
                   ) -> dict[Coord, tuple[int, str]]:
    """The coordinate of every loop inside a concurrent loop that is not traced (a
    pipelined loop of a function called in an unrolled loop's body), with that
    concurrent loop's index among :func:`calls.instances` and its name: the program
    runs it as a ``for`` of its own, the model as steps of the enclosing loop.  Inside
    a traced loop (``traced``: their coordinate) the trace counts it as the model
    does, as lanes of the enclosing loop's step (``Scope`` in trace_driver.cpp.j2)."""
    found: dict[Coord, tuple[int, str]] = {}
    for n, region in enumerate(regions(kernel)):
        if region.loop.coord in traced:
            continue
        for node in ir.loops(region.loop.body):
            found.setdefault(node.coord, (n, region.loop.name))
    return found


def window_places(kernel: ir.Kernel) -> frozenset[tuple[Coord, Coord]]:
    """(coordinate of a concurrent loop, coordinate of a window read in it)
    (``ir.Access.window``)."""
    return frozenset((r.loop.coord, a.coord)
                     for r in regions(kernel) for a in ir.accesses(r.loop.body) if a.window)


def _reshaped_places(kernel: ir.Kernel) -> frozenset[Coord]:
    """The coordinate of every access of a reshaped array (the model addresses words)."""
    reshaped = {a.name for a in kernel.arrays if a.reshapes}
    return frozenset(a.coord for a in ir.accesses(kernel.body)
                     if a.array in reshaped)


def _initialized_places(kernel: ir.Kernel) -> frozenset[Coord]:
    """The coordinate of each local array declaration with an initializer, whose element
    writes the model counts (in a pipeline) and the run does not record."""
    return frozenset(d.coord for d in kernel.source.local_decls.values()
                     if d.init is not None)


def _header_accesses(kernel: ir.Kernel, inst: Instrumented) -> tuple[Coord, ...]:
    """The accesses of functions a header defines (:attr:`ir.Array.kept_banking`),
    which the run does not record: the instrumentation edits the kernel file and the
    files it includes from its folder (:mod:`.included`) only."""
    edited = {kernel.coord.file} | {s.name for s in inst.sources}
    return tuple(dict.fromkeys(a.coord for a in ir.accesses(kernel.body)
                               if a.coord.file not in edited))


def _irregular_places(kernel: ir.Kernel) -> frozenset[Coord]:
    """The coordinate of every access with an irregular dimension, which the model's
    groups leave out where it merged reads of one element (``LaneAccess.aliases``)."""
    return frozenset(a.coord for a in ir.accesses(kernel.body)
                     if not a.regular)


def _window_keys(places, loops: Sequence[Coord], inst: Instrumented) -> np.ndarray:
    """The (loop, site) keys (:func:`.replay.window_key`) of the window reads."""
    keys = [window_key(lid, s) for lid, c in enumerate(loops)
            for s, site in enumerate(inst.sites)
            if (c, site.coord) in places]
    return np.array(keys, np.int64)


def _emitted_note(claim: Claim) -> str:
    """What the emitted code reaches, where it is above the banking proof's II that the
    trace checks (references kept as written whose banks rotate); the II compile
    reports."""
    if claim.emitted_ii is None or claim.emitted_ii <= claim.claimed_ii:
        return ""
    return (f" (the banking's proof; the emitted code keeps references whose banks "
            f"rotate, and reaches II {claim.emitted_ii} under the scheduling rule: "
            "arraypart check)")


def _allocation_note(claim: Claim) -> str:
    """That the trace checks no ``allocation`` limit of the loop's calls: it replays
    the memories' ports, and a call waiting for an instance takes none."""
    if not claim.allocations:
        return ""
    limits = ", ".join(f"'{function}' limit={limit}" for function, limit in claim.allocations)
    return (f" (not checked: the allocation limit{'s' if len(claim.allocations) > 1 else ''}"
            f" on {limits}, which alone holds the loop to II {claim.instance_ii} or more; "
            "the trace replays the memories' ports, and a call waiting for an instance "
            "takes none)")


def _claim(claims: Sequence[Claim]) -> Claim:
    """The claim a loop is held to: its own, or for calls whose steps were not told
    apart the strictest of theirs (a false alarm rather than a missed one)."""
    return min(claims, key=lambda c: c.claimed_ii)


def _site_fields(kernel: ir.Kernel, inst: Instrumented) -> tuple[str | None, ...]:
    """Per site, the struct member of the IR reference written there (None: the whole
    element, or no reference)."""
    refs = {a.coord: a.field for a in ir.accesses(kernel.body)}
    return tuple(refs.get(site.coord) for site in inst.sites)


def _read_copies(kernel: ir.Kernel, inst: Instrumented,
                 memories: Mapping[int, Memory]) -> np.ndarray:
    """Per site, the copy its reads use (that of the IR reference written there), or
    RECORDED when it varies with the lane and each record carries it; raises
    ValueError when the run did not record the copy expression of the banking."""
    refs = {a.coord: a for a in ir.accesses(kernel.body)}
    copies = np.zeros(max(1, len(inst.sites)), np.int64)
    banking = {m.array.name: m.banking for m in memories.values()}
    for n, site in enumerate(inst.sites):
        access = refs.get(site.coord)
        if access is None:
            continue
        copy = banking[access.array].copy_expr(access.ref_id)
        if isinstance(copy, E.Const):
            copies[n] = copy.value
        elif site.copy == copy_text(copy):
            copies[n] = RECORDED
        else:
            raise ValueError(f"{site.coord}: the run recorded read copy {site.copy}, the "
                             f"banking reads copy {copy_text(copy)}: record it with them")
    return copies


def _forwarding(kernel: ir.Kernel, sites: Sequence[Site], coords: Sequence[Coord],
                nested: frozenset[int]) -> Forwarding:
    """Where the replay leaves out the records that take no port (``Forwarding``):
    per traced loop (not one whose steps a concurrent loop around shares), the arrays
    the checker forwards there (:func:`.forwarding.forwarded_arrays`); the sites at
    whose place every reference is plain in such a loop (``lanes.plain_reference``,
    regular, in no ``if``) and the site itself conditional on no ``?:`` or ``&&``; the
    sites that are so but perhaps in an ``if`` (``poly.forwarding.named``)."""
    forwarded = {c: names for c, names in forwarded_arrays(kernel).items()}
    ids = {a.name: n for n, a in enumerate(kernel.arrays)}
    places = [_plain_places(kernel, lambda loop: loop.coord
                            in forwarded, guarded=guarded) for guarded in (False, True)]
    pairs = np.zeros((len(coords), len(kernel.arrays)), bool)
    for n, c in enumerate(coords):
        if n not in nested:
            pairs[n, [ids[name] for name in forwarded.get(c, ())]] = True
    return Forwarding(pairs, *(_site_flags(sites, place_ok) for place_ok in places))


def _regular_sites(kernel: ir.Kernel, sites: Sequence[Site]) -> np.ndarray:
    """Per site, whether it is a plain regular reference wherever its place is
    (``lanes.plain_reference``, every subscript affine in each lane, in no ``if`` but
    perhaps in the condition of one, which runs wherever the ``if`` does; conditional
    on no ``?:`` or ``&&``) of an array that is not reshaped: the run's addresses may
    tell its writes apart from a read (:mod:`.traced_epochs`)."""
    arrays = {a.name: a for a in kernel.arrays}
    reshaped = {a.coord for a in ir.accesses(kernel.body)
                if arrays[a.array].reshapes}
    place_ok = _plain_places(kernel, lambda loop: True, conditions=True)
    return _site_flags(sites, {p: ok and p not in reshaped for p, ok in place_ok.items()})


def _plain_places(kernel: ir.Kernel, fits: Callable[[ir.Loop], bool], *,
                  conditions: bool = False, guarded: bool = False
                  ) -> dict[Coord, bool]:
    """Per coordinate of an access in a concurrent loop, whether every
    reference there is plain (``lanes.plain_reference``, regular, in no ``if``, or
    with ``conditions`` in the condition of an ``if`` that is in none, or with
    ``guarded`` in any ``if``) and affine in each lane
    (:func:`.forwarding.affine_in_every_lane`) in a loop that ``fits``."""
    place_ok: dict[Coord, bool] = {}
    ordinals: dict[tuple[int, ...], list | None] = {}
    for region in regions(kernel):
        loop_fits = fits(region.loop)
        for a, lanes, plain in _placed_accesses(region.loop.body,
                                                region.loop.pipeline_ii is not None,
                                                conditions):
            where = a.coord
            place_ok[where] = place_ok.get(where, True) and loop_fits and (
                plain or guarded) and (
                plain_reference(a) and a.regular
                and affine_in_every_lane(a, lanes, _ordinals(lanes, ordinals)))
    return place_ok


def _ordinals(lanes: tuple[ir.Loop, ...], known: dict[tuple[int, ...], list | None]
              ) -> list[tuple[int, ...]] | None:
    """:func:`.forwarding.lane_ordinals` of ``lanes``, made once per tuple of the
    kernel's loops (``known``: by their ids, which the kernel keeps alive)."""
    key = tuple(map(id, lanes))
    if key not in known:
        known[key] = lane_ordinals(lanes)
    return known[key]


def _site_flags(sites: Sequence[Site], place_ok: dict[Coord, bool]) -> np.ndarray:
    """Per site, not conditional and its place ok."""
    return np.array([not s.conditional and place_ok.get(s.coord, False)
                     for s in sites], bool)


def _placed_accesses(nodes: tuple[ir.Node, ...], pipelined: bool, conditions: bool,
                     lanes: tuple[ir.Loop, ...] = (), plain: bool = True
                     ) -> Iterator[tuple[ir.Access, tuple[ir.Loop, ...], bool]]:
    """Each access in ``nodes`` (a concurrent loop's body) with the loops around it
    there that run as lanes, fully unrolled (:mod:`.walk`: inside a pipelined loop or
    unrolled without a factor), and whether no ``if`` holds it (nor, unless
    ``conditions``, its condition)."""
    for n in nodes:
        if isinstance(n, ir.Stmt):
            yield from ((a, lanes, plain) for a in n.accesses)
        elif isinstance(n, ir.If):
            yield from ((a, lanes, plain and conditions) for a in n.cond_accesses)
            yield from _placed_accesses(n.then + n.orelse, pipelined, conditions, lanes,
                                        False)
        else:
            yield from _placed_accesses(
                n.body, pipelined or n.pipeline_ii is not None, conditions,
                lanes + (n,) if pipelined or n.unroll == 0 else lanes, plain)


def _early_exits(nodes: tuple[ir.Node, ...]
                 ) -> tuple[frozenset[Coord], frozenset[Coord]]:
    """The coordinate of every access inside a loop that a ``break``,
    ``continue`` or ``return`` may leave early (``Loop.early_exit``), which may not run
    where the model says it does (looked up, not summed); and of every loop that one
    may end before its last iteration (its runs are shorter than the model's)."""
    exiting, ended = set(), set()
    for loop in ir.loops(nodes):
        if loop.early_exit is not None:
            exiting |= {a.coord for a in ir.accesses(loop.body)}
        if loop.early_exit == "loop":
            ended.add(loop.coord)
    return frozenset(exiting), frozenset(ended)


def _data_guarded(nodes: tuple[ir.Node, ...], guarded: bool = False, inside: bool = False
                  ) -> Iterator[tuple[bool, Coord]]:
    """``(is_loop, coordinate)`` of each access under an ``if`` whose condition is
    not affine inside its concurrent loop (it runs on the steps the data picks), and of
    each loop under such an ``if`` (it may run fewer steps than the model's)."""
    for n in nodes:
        if isinstance(n, ir.Stmt):
            yield from ((False, a.coord) for a in n.accesses if guarded)
        elif isinstance(n, ir.If):
            yield from ((False, a.coord) for a in n.cond_accesses
                        if guarded)
            yield from _data_guarded(n.then + n.orelse, guarded or n.cond is None, inside)
        else:
            if guarded:
                yield True, n.coord
            root = not inside and ir.concurrent(n)
            yield from _data_guarded(n.body, guarded and not root, inside or root)
