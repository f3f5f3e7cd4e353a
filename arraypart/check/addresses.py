"""Do the recorded addresses match what the polyhedral model predicts?

For a traced loop and the model's cycle groups of the same ``for``: the model's steps
are the points p of the groups' time domain in lexicographic order of
``(sign_0 * p_0, sign_1 * p_1, ...)``, ``sign_d`` the direction of the d-th loop around
(and of) the pipelined one: the k-th point is the loop's k-th pipeline step in
execution order.  At point p a lane access
runs iff p lies in its domain, touching ``flat = sum_d index_d(p) * stride_d`` of its
array.  The trace gives each step's (array, kind, flat) as g++ computed them.  Both
sides become per-step fingerprints

    F[k] = sum of mix(flat, array, kind) over step k's accesses  (mod 2**64),
    N[k] = number of step k's accesses

(``mix``: SplitMix64's finalizer; irregular references, whose index the model leaves
open, are left out on both sides) and the first step where F, N or the number of steps
differ is reported with both sides' accesses.  Memory: a few words per step.

A *may* place (a reference under a data-dependent ``if`` or in a branch of ``?:``) runs
on some of the steps where the model says it may, so it cannot join the sums; instead
every access the program makes there must be one the model allows at that step: its key
``(step, place, flat, array, kind)`` is looked up among the keys of the may lanes of
every path at the steps of their domains (one word per distinct such access of the
model; past :data:`MAX_MAY_KEYS` of them the loop's may places are not looked up, and
the loop is named).

A loop that is itself under a data-dependent ``if`` runs some of its *entries* (the
model's steps with one value of the loops around it: whole, consecutive runs of steps)
and skips the others.  Its trace must then be the concatenation of a subsequence of the
model's entries: walking the entries in order, each one whose fingerprints equal the
trace's next steps' is taken (greedy leftmost matching finds an embedding whenever one
exists), and the first trace step no remaining entry matches is reported.  The taken
entries give each traced step its model step, at which its may places are looked up.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping, Sequence

import islpy as isl
import numpy as np

from .. import expr as E
from ..errors import Coord
from ..ir import point_words
from ..poly import isl_glue as G
from ..poly.model import CycleGroup
from ..poly.points import lex_points
from .instrument import Site
from .records import READ, RUN_END, WRITE, chunks, no_checkpoint

#: Steps per loop the model's side enumerates (isl points, a few microseconds each).
MAX_MODEL_STEPS = 1 << 20
#: Accesses of may lanes per loop whose keys are held for lookups (8 bytes each, and
#: the sort's copies while they are made unique).
MAX_MAY_KEYS = 1 << 23
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
#: Accesses listed per side in a mismatch message.
SHOWN = 6


def mix(flat: np.ndarray, array: np.ndarray, kind: np.ndarray, arrays: int) -> np.ndarray:
    """SplitMix64's finalizer of ``(flat * arrays + array) * 2 + kind``."""
    with np.errstate(over="ignore"):
        z = ((flat.astype(np.int64) * arrays + array) * 2 + kind).astype(np.uint64)
        z = z + _GOLDEN
        z = (z ^ (z >> np.uint64(30))) * _MIX1
        z = (z ^ (z >> np.uint64(27))) * _MIX2
        return z ^ (z >> np.uint64(31))


def run_points(domain: isl.Set, time_vars: tuple[str, ...], sizes: Mapping[str, int | None],
               limit: int) -> np.ndarray | None:
    """The points of a cycle group's ``domain`` in lexicographic order, its leading
    time variables that are run-time sizes (the context's first dimensions) fixed at
    the values the run gave them (``sizes``: the testbench's, None where the run
    chose: a size of the data); None when one is unknown or past ``limit`` points."""
    if run_sizes(time_vars, sizes) is None:
        return None
    return lex_points(_at_sizes(domain, time_vars, sizes), limit)


def run_sizes(time_vars: tuple[str, ...], sizes: Mapping[str, int | None]) -> int | None:
    """How many leading time variables are run-time sizes, None when the run's value
    of one is not known."""
    lead = 0
    while lead < len(time_vars) and time_vars[lead] in sizes:
        if sizes[time_vars[lead]] is None:
            return None
        lead += 1
    return lead


@dataclass(frozen=True, slots=True)
class _Lane:
    """One lane access of the model: what it touches (its index over the time
    variables) at the points of its ``domain`` (sizes fixed at the run's values)."""

    coord: Coord
    array: int
    kind: int
    index: tuple[E.Expr, ...]
    domain: isl.Set


@dataclass(frozen=True, slots=True)
class _Model:
    """A loop's steps, the fingerprints ``sums``/``counts`` of its compared lanes per
    step (module doc), those lanes (to list one step's accesses in a message), and the
    keys (:func:`_may_keys`) of every access a *may* lane (under a data-dependent
    ``if`` or in a branch of ``?:``) makes at each step it may run (None: more than
    :data:`MAX_MAY_KEYS`, not looked up).  Memory: a few
    words per step and one per may access, never one per compared access (a loop of a
    million steps and hundreds of lanes)."""

    points: np.ndarray
    time_vars: tuple[str, ...]
    sums: np.ndarray
    counts: np.ndarray
    lanes: tuple[_Lane, ...]
    may_keys: np.ndarray | None


@dataclass(frozen=True, slots=True)
class AddressCheck:
    """The loops compared and the first mismatch of each loop (located messages);
    ``skipped``: loops the model side could not enumerate, with the reason;
    ``beyond``: warnings, a loop that a call ran for more steps than the model's domain
    holds at any value of its sizes (:func:`_beyond`)."""

    compared: tuple[Coord, ...]
    mismatches: tuple[str, ...]
    skipped: tuple[str, ...]
    beyond: tuple[str, ...] = ()


def compare(paths: Sequence[Path], sites: Sequence[Site], loops: Sequence[Coord],
            groups: Mapping[int, Sequence[CycleGroup]],
            directions: Mapping[int, tuple[int, ...]],
            arrays: Sequence[tuple[str, tuple[int, ...]]],
            may_places: frozenset[Coord],
            skipping: frozenset[Coord] = frozenset(),
            checkpoint: Callable[[], None] = no_checkpoint,
            labels: Sequence[str] = (),
            unrecorded: frozenset[Coord] = frozenset(),
            sizes: Sequence[Mapping[str, int | None]] = ({},),
            widest: Mapping[str, int] = {}) -> AddressCheck:
    """Compare the records at ``paths`` (one file per recorded call of the top, each
    compared with the model at its own ``sizes``: the run's value of each run-time
    size, None where the data chose it or the call gave it outside its range) with the
    model's ``groups`` by traced loop id; ``directions``: by loop id, the step signs of
    the loops around it and its own (outermost first); ``arrays``: (name, shape) by
    array id.  Left out of the sums on
    both sides: irregular references, conditional sites and the coordinate in
    ``may_places`` (under a data-dependent ``if`` inside their loop), which the model
    takes as running whenever they may: the regular ones are looked up instead; the
    loops at ``skipping`` (under a data-dependent ``if`` themselves) are matched run by
    run (module doc).  ``checkpoint`` is called before each chunk of records read;
    ``labels``: by loop id, the call of its text it is (:mod:`.calls`; "" or missing:
    the only one); ``widest``: the ``high`` of each size whose larger values only widen
    the domain (a fresh upper end), at which a loop not enumerated for want of its value
    bounds the call's steps (:func:`_beyond`); ``unrecorded``: the coordinate of
    accesses the run does not record
    (written in a macro's text), left out of the model's side too.  A loop is
    compared when it is in some call, and its first mismatch is named."""
    irregular = {a.coord for gs in groups.values() for g in gs
                 for a in g.issued if not a.regular}
    conditional = {s.coord for s in sites if s.conditional}
    left_out = may_places | irregular | conditional | unrecorded
    may = {place: code for code, place in enumerate(sorted(
        (may_places | conditional) - irregular, key=lambda c: (c.file, c.line, c.col)))}
    kept = np.array([s.coord not in left_out for s in sites] or [True])
    site_codes = np.array([may.get(s.coord, -1) for s in sites]
                          or [-1], np.int64)
    ids = {name: n for n, (name, _) in enumerate(arrays)}
    shapes = [shape for _, shape in arrays]
    compared: set[int] = set()
    mismatches: dict[int, str] = {}  # a loop's first, in the first call that has one
    skipped: dict[str, None] = {}
    beyond: list[str] = []
    for call, (path, at) in enumerate(zip(paths, sizes)):
        models, unenumerated = {}, []
        for lid, gs in groups.items():
            model = _model(gs, directions.get(lid), ids, shapes, left_out, may, at)
            if model is None:
                unenumerated.append(lid)
                skipped[f"{loops[lid]}: the model's steps were not enumerated (a size "
                        f"the data chose or a call gave outside its range, loops not "
                        f"matched, or over {MAX_MODEL_STEPS} steps)"] = None
            else:
                models[lid] = model
        skipped.update((f"{loops[lid]}: the accesses under its data-dependent ifs were not "
                        f"looked up (over {MAX_MAY_KEYS} of them)", None)
                       for lid, model in models.items() if model.may_keys is None)
        runs = {lid for lid in models if loops[lid] in skipping}
        traced, unforeseen, ran = _trace_side(path, models, unenumerated, kept, site_codes,
                                              len(arrays), checkpoint, runs)
        beyond += [text for lid in unenumerated
                   for text in _beyond(ran[lid], loops[lid], groups[lid], at, widest,
                                       f"the top's call {call + 1} of {len(paths)}")]
        found = _mismatches(path, models, runs, traced, unforeseen, loops, kept,
                            site_codes, sites, arrays, checkpoint)
        compared |= set(models)
        for lid, text in found:
            if lid in mismatches:
                continue
            label = ", ".join(
                ([labels[lid]] if lid < len(labels) and labels[lid] else [])
                + ([f"the top's call {call + 1} of {len(paths)} ({_named(at)})"]
                   if len(paths) > 1 else []))
            mismatches[lid] = (text.replace(": error: ", f": error: in {label}, ", 1)
                               if label else text)
    return AddressCheck(tuple(loops[lid] for lid in sorted(compared)),
                        tuple(mismatches.values()), tuple(skipped), tuple(beyond))


def _beyond(ran: int, coord: Coord, groups: Sequence[CycleGroup],
            sizes: Mapping[str, int | None], widest: Mapping[str, int],
            call: str) -> list[str]:
    """A located warning when one call's records run the loop at ``coord`` for ``ran``
    steps, more than its model has with each size whose value the run did not tell
    at its ``widest`` value: the domain at that value holds the domain at every
    smaller one, so such a run left the modelled domain (the testbench's arguments
    gave the size a value past its range).  Nothing where another size is unknown."""
    unknown = sorted(name for name, value in sizes.items() if value is None)
    if not unknown or not set(unknown) <= set(widest):
        return []
    points = run_points(groups[0].domain, groups[0].time_vars,
                        {**sizes, **{name: widest[name] for name in unknown}},
                        MAX_MODEL_STEPS)
    if points is None or ran <= len(points):
        return []
    at = point_words((name, widest[name]) for name in unknown)
    return [f"{coord}: warning: in {call} the run makes {ran} steps of this loop, more "
            f"than the model's domain holds at the largest values of its sizes ({at}: "
            f"{len(points)} steps): the testbench's arguments take it outside the "
            "modelled domain there, where its addresses are not compared"]


def _named(sizes: Mapping[str, int | None]) -> str:
    """A call's sizes, for a message."""
    return point_words((name, value) for name, value in sizes.items()
                       if value is not None) or "no run-time size"


def _mismatches(path: Path, models: Mapping[int, "_Model"], runs: set[int], traced,
                unforeseen: dict[int, np.void], loops: Sequence[Coord], kept: np.ndarray,
                site_codes: np.ndarray, sites: Sequence[Site],
                arrays: Sequence[tuple[str, tuple[int, ...]]],
                checkpoint: Callable[[], None]) -> list[tuple[int, str]]:
    """(loop id, located text) of the first mismatch of each loop of ``models`` in the
    records at ``path`` (one call's; ``traced`` and ``unforeseen``: its
    :func:`_trace_side`), those of ``runs`` matched run by run."""
    out = []
    for lid, model in models.items():
        if lid in runs:
            text, steps_of = _embedding(path, lid, loops[lid], model, traced[lid], kept,
                                        sites, arrays, checkpoint)
            if text is None and model.may_keys is not None and model.may_keys.size:
                record = _unforeseen_in_runs(path, lid, model, steps_of, site_codes,
                                             len(arrays), checkpoint)
                if record is not None:
                    unforeseen[lid] = record
        else:
            text = _first_mismatch(path, lid, loops[lid], model, traced[lid], kept, sites,
                                   arrays, checkpoint)
        if text is None and lid in unforeseen:
            text = _unforeseen(loops[lid], model, unforeseen[lid], sites, arrays)
        if text is not None:
            out.append((lid, text))
    return out


def _model(groups: Sequence[CycleGroup], directions: tuple[int, ...] | None,
           arrays: Mapping[str, int], shapes: Sequence[tuple[int, ...]],
           left_out: set[Coord], may: Mapping[Coord, int],
           sizes: Mapping[str, int | None]) -> _Model | None:
    """The model side of one loop at the run's ``sizes`` (:func:`run_points`): the
    lanes of the first path's groups outside ``left_out``, and the keys of the lanes of
    every path at the places of ``may`` (place -> its code); None when some domain has
    too many points or a size's value is not known."""
    time_vars = groups[0].time_vars
    sizes = _free_sizes_fixed([groups[0].domain] + [lane.domain for g in groups
                                                    for lane in g.issued], sizes)
    lead = run_sizes(time_vars, sizes)
    if len({g.time_vars for g in groups}) != 1 or directions is None or lead is None \
            or lead + len(directions) != len(time_vars):
        return None
    directions = (1,) * lead + tuple(directions)
    points = run_points(groups[0].domain, time_vars, sizes, MAX_MODEL_STEPS)
    if points is None:
        return None
    signs = np.array(directions, np.int64)
    signed = points * signs
    low = signed.min(axis=0) if len(points) else np.zeros(len(signs), np.int64)
    extent = (signed.max(axis=0) - low + 1) if len(points) else low + 1
    strides = np.concatenate([np.cumprod(extent[::-1])[::-1][1:], [1]]).astype(np.int64)
    order = np.argsort((signed - low) @ strides, kind="stable")
    points = points[order]
    codes = (points * signs - low) @ strides
    cache: dict[str, np.ndarray | None] = {str(groups[0].domain): points}
    sums, counts = np.zeros(len(points), np.uint64), np.zeros(len(points), np.int64)
    lanes, may_keys, may_total = [], [], 0
    seen: set[int] = set()
    for g in groups:
        for lane in g.issued:
            place = lane.coord
            compared = g.path == 0 and place not in left_out and id(lane) not in seen
            if not compared and place not in may:
                continue  # a whole-element access is in every member view's group
            seen.add(id(lane))
            key = str(lane.domain)
            if key not in cache:
                cache[key] = run_points(lane.domain, time_vars, sizes, MAX_MODEL_STEPS)
            mine = cache[key]
            if mine is None:
                return None
            steps = np.searchsorted(codes, (mine * signs - low) @ strides)
            env = {v: mine[:, d] for d, v in enumerate(g.time_vars)}
            shape = shapes[arrays[lane.array]]
            flat = np.asarray(sum(np.asarray(E.evaluate(e, env), np.int64)
                                  * int(np.prod(shape[d + 1:]))
                                  for d, e in enumerate(lane.index)), np.int64)
            flat = np.broadcast_to(flat, steps.shape)
            code = WRITE if lane.kind == "write" else READ
            array, kind = np.full(steps.size, arrays[lane.array]), np.full(steps.size, code)
            if compared:
                lanes.append(_Lane(lane.coord, arrays[lane.array], code, lane.index,
                                   _at_sizes(lane.domain, time_vars, sizes)))
                s, c = _fingerprints(steps, flat, array, kind, len(points), len(shapes))
                sums += s
                counts += c
            elif may_keys is not None:
                may_total += steps.size
                if may_total > MAX_MAY_KEYS:
                    may_keys = None
                else:
                    may_keys.append(_may_keys(steps, np.full(steps.size, may[place]), flat,
                                              array, kind, len(shapes)))
    keys = (None if may_keys is None else np.unique(np.concatenate(may_keys)) if may_keys
            else np.empty(0, np.uint64))
    return _Model(points, groups[0].time_vars, sums, counts, tuple(lanes), keys)


def _free_sizes_fixed(domains: Sequence[isl.Set],
                      sizes: Mapping[str, int | None]) -> Mapping[str, int | None]:
    """``sizes`` with each one the data chose (None) fixed at its least value where no
    domain of ``domains`` depends on it: every value gives the same steps (a loop
    that a data-dependent loop elsewhere leaves alone is still compared)."""
    chosen = [name for name, value in sizes.items() if value is None]
    if not chosen:
        return sizes
    fixed = dict(sizes)
    for name in chosen:
        if all(_independent(d, name) for d in domains) and not domains[0].is_empty():
            fixed[name] = G.first_point(G.project_onto(domains[0], name))[name]
    return fixed


def _independent(domain: isl.Set, name: str) -> bool:
    """``domain`` is the product of its values in dimension ``name`` and those of the
    others: no constraint ties ``name`` to them."""
    at = domain.space.find_dim_by_name(isl.dim_type.set, name)
    if at < 0:
        return True
    n = domain.dim(isl.dim_type.set)
    alone = domain.eliminate(isl.dim_type.set, at + 1, n - at - 1).eliminate(
        isl.dim_type.set, 0, at)
    return domain.eliminate(isl.dim_type.set, at, 1).intersect(alone).is_equal(domain)


def _at_sizes(domain: isl.Set, time_vars: tuple[str, ...],
              sizes: Mapping[str, int | None]) -> isl.Set:
    """``domain`` with its leading run-time sizes fixed at the run's values."""
    return G.fixed(domain, [sizes[v] for v in time_vars[:run_sizes(time_vars, sizes) or 0]])


def _may_keys(steps: np.ndarray, codes: np.ndarray, flat: np.ndarray, array: np.ndarray,
              kind: np.ndarray, arrays: int) -> np.ndarray:
    """One 64-bit key per access of a may place: ``mix`` of (flat, array, kind), xor
    ``mix`` of (step, place code) shifted by an odd multiplier (collisions have
    probability about n**2 / 2**64)."""
    with np.errstate(over="ignore"):
        where = mix(steps, codes, np.zeros_like(steps), 1 << 20) * _MIX1
        return mix(flat, array, kind, arrays) ^ where


def _fingerprints(steps: np.ndarray, flat: np.ndarray, array: np.ndarray, kind: np.ndarray,
                  size: int, arrays: int) -> tuple[np.ndarray, np.ndarray]:
    sums = np.zeros(size, np.uint64)
    counts = np.zeros(size, np.int64)
    inside = steps < size
    np.add.at(sums, steps[inside], mix(flat[inside], array[inside], kind[inside], arrays))
    np.add.at(counts, steps[inside], 1)
    return sums, counts


def _trace_side(path: Path, models: Mapping[int, _Model], unenumerated: Sequence[int],
                kept: np.ndarray, site_codes: np.ndarray, arrays: int,
                checkpoint: Callable[[], None], runs: set[int]):
    """In one reading of the records: per loop of ``models``, the trace's fingerprints
    over the model's steps and its step count; per loop but those in ``runs`` (whose
    steps are not yet the model's), the first record of a may place whose key no may
    lane has; and the step count of each loop of ``models`` and ``unenumerated``."""
    sums = {lid: np.zeros(len(m.points), np.uint64) for lid, m in models.items()}
    counts = {lid: np.zeros(len(m.points), np.int64) for lid, m in models.items()}
    unforeseen: dict[int, np.void] = {}
    ran = dict.fromkeys([*models, *unenumerated], 0)
    for rows in chunks(path, checkpoint=checkpoint, run_ends=True):
        loop, site = rows["loop"], rows["site"]
        access = site != RUN_END
        site = np.where(access, site, 0)
        compared, may = access & kept[site], access & (site_codes[site] >= 0)
        for lid in ran:
            mine = loop == lid
            if not mine.any():
                continue
            ran[lid] = max(ran[lid], int(rows["step"][mine].max()) + 1)
            model = models.get(lid)
            if model is None:
                continue
            if (lid not in unforeseen and lid not in runs and model.may_keys is not None
                    and (mine & may).any()):
                first = _first_unforeseen(rows[mine & may], model, site_codes, arrays)
                if first is not None:
                    unforeseen[lid] = first
            mine &= compared
            s, c = _fingerprints(rows["step"][mine], rows["flat"][mine], rows["array"][mine],
                                 rows["kind"][mine], sums[lid].size, arrays)
            sums[lid] += s
            counts[lid] += c
    traced = {lid: (sums[lid], counts[lid], ran[lid]) for lid in models}
    return traced, unforeseen, ran


def _first_unforeseen(rows: np.ndarray, model: _Model, site_codes: np.ndarray,
                      arrays: int) -> np.void | None:
    """The first of ``rows`` at a may place (a code of its own) that the model's may
    lanes do not make at its step."""
    codes = site_codes[rows["site"]]
    at_may = (codes >= 0) & (rows["step"] < len(model.points))
    mine = rows[at_may]
    if not mine.size:
        return None
    keys = _may_keys(mine["step"].astype(np.int64), codes[at_may],
                     mine["flat"].astype(np.int64), mine["array"].astype(np.int64),
                     mine["kind"].astype(np.int64), arrays)
    # may_keys is sorted and unique: a binary search per key, no sort of the model's keys
    where = np.minimum(np.searchsorted(model.may_keys, keys), max(model.may_keys.size - 1, 0))
    found = (model.may_keys[where] == keys) if model.may_keys.size else np.zeros(keys.size, bool)
    missing = np.flatnonzero(~found)
    return mine[missing[0]] if missing.size else None


def _unforeseen(coord: Coord, model: _Model, record: np.void, sites: Sequence[Site],
                arrays: Sequence[tuple[str, tuple[int, ...]]]) -> str:
    step = int(record["step"])
    point = point_words((v, int(x)) for v, x in zip(model.time_vars, model.points[step]))
    name, shape = arrays[int(record["array"])]
    index = _unravel(int(record["flat"]), shape)
    return (f"{coord}: error: trace disagrees with the model at step {step} ({point}):\n"
            f"  {sites[int(record['site'])].coord}: the program {_KINDS[int(record['kind'])]} "
            f"{name}{_index(index)}, which no access the model allows there makes")


def _first_mismatch(path: Path, lid: int, coord: Coord, model: _Model, traced,
                    kept: np.ndarray, sites: Sequence[Site],
                    arrays: Sequence[tuple[str, tuple[int, ...]]],
                    checkpoint: Callable[[], None]) -> str | None:
    sums, counts, steps = traced
    differ = np.flatnonzero((sums != model.sums) | (counts != model.counts))
    if not differ.size:
        return None if steps == len(model.points) else _step_count_text(coord, steps, model)
    step = int(differ[0])
    point = point_words((v, int(x)) for v, x in zip(model.time_vars, model.points[step]))
    want = Counter(_model_accesses(model, step, arrays))
    got = Counter(_traced_accesses(path, lid, step, kept, sites, arrays, checkpoint))
    lines = [f"{coord}: error: trace disagrees with the model's addresses at step {step} "
             f"({point})"]
    lines += [f"  {c}: the program {k} {a}{_index(x)}, the model does not"
              for c, k, a, x in list((got - want).elements())[:SHOWN]]
    lines += [f"  {c}: the model predicts it {k} {a}{_index(x)}, the program does not"
              for c, k, a, x in list((want - got).elements())[:SHOWN]]
    return "\n".join(lines)


def _step_count_text(coord: Coord, steps: int, model: _Model) -> str:
    return (f"{coord}: error: trace disagrees with the model: the program runs "
            f"{steps} steps of this loop, the model {len(model.points)}")


def _run_starts(points: np.ndarray) -> np.ndarray:
    """The first step of each run of a loop: the steps (rows of ``points``, in execution
    order) where the loops around it (every column but the last) take new values."""
    if not len(points):
        return np.zeros(0, np.int64)
    new = np.ones(len(points), bool)
    new[1:] = np.any(points[1:, :-1] != points[:-1, :-1], axis=1)
    return np.flatnonzero(new)


def _embedding(path: Path, lid: int, coord: Coord, model: _Model, traced, kept: np.ndarray,
               sites: Sequence[Site], arrays: Sequence[tuple[str, tuple[int, ...]]],
               checkpoint: Callable[[], None]) -> tuple[str | None, np.ndarray]:
    """A loop the run may skip, run by run: the model step of each traced step when the
    trace is a concatenation of whole runs of the model taken in order (greedy leftmost
    matching of the runs' fingerprints), else the located text of the first traced
    step that begins no run the model has left."""
    sums, counts, steps = traced
    if steps > len(model.points):
        return _step_count_text(coord, steps, model), np.zeros(0, np.int64)
    want_sums, want_counts = model.sums, model.counts
    starts = _run_starts(model.points)
    ends = np.append(starts[1:], len(model.points))
    steps_of = np.zeros(steps, np.int64)
    at = 0
    for first, end in zip(starts.tolist(), ends.tolist()):
        if at == steps:
            break
        size = end - first
        if at + size <= steps and np.array_equal(sums[at:at + size], want_sums[first:end]) \
                and np.array_equal(counts[at:at + size], want_counts[first:end]):
            steps_of[at:at + size] = np.arange(first, end)
            at += size
    if at == steps:
        return None, steps_of
    got = Counter(_traced_accesses(path, lid, at, kept, sites, arrays, checkpoint))
    lines = [f"{coord}: error: trace disagrees with the model: under its data-dependent "
             f"if the loop runs whole runs of the model's steps (one per iteration of the "
             f"loops around it), but the program's step {at} begins none of those left"]
    lines += [f"  {c}: the program {k} {a}{_index(x)}"
              for c, k, a, x in list(got.elements())[:SHOWN]]
    return "\n".join(lines), steps_of


def _unforeseen_in_runs(path: Path, lid: int, model: _Model, steps_of: np.ndarray,
                        site_codes: np.ndarray, arrays: int,
                        checkpoint: Callable[[], None]) -> np.void | None:
    """:func:`_first_unforeseen` of a loop matched run by run, its records renumbered to
    the model's steps (``steps_of``)."""
    for rows in chunks(path, checkpoint=checkpoint):
        mine = rows[rows["loop"] == lid].copy()
        if not mine.size:
            continue
        mine["step"] = steps_of[mine["step"]]
        first = _first_unforeseen(mine, model, site_codes, arrays)
        if first is not None:
            return first
    return None


def _index(x: tuple[int, ...]) -> str:
    return "".join(f"[{v}]" for v in x)


def _model_accesses(model: _Model, step: int, arrays: Sequence[tuple[str, tuple]]):
    """The compared lanes' accesses at ``step``: those whose domain holds its point."""
    values = model.points[step].tolist()
    point = dict(zip(model.time_vars, values))
    for lane in model.lanes:
        if not G.fixed(lane.domain, values).is_empty():
            yield (lane.coord, _KINDS[lane.kind], arrays[lane.array][0],
                   tuple(int(E.evaluate(e, point)) for e in lane.index))


_KINDS = {READ: "reads", WRITE: "writes"}


def _traced_accesses(path: Path, lid: int, step: int, kept: np.ndarray,
                     sites: Sequence[Site], arrays: Sequence[tuple[str, tuple]],
                     checkpoint: Callable[[], None]):
    for rows in chunks(path, checkpoint=checkpoint):
        mine = rows[(rows["loop"] == lid) & (rows["step"] == step)]
        for r in mine[kept[mine["site"]]]:
            name, shape = arrays[int(r["array"])]
            yield (sites[int(r["site"])].coord, _KINDS[int(r["kind"])], name,
                   _unravel(int(r["flat"]), shape))


def _unravel(flat: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    """The index of a recorded row-major offset (the offset itself when it lies
    outside the array)."""
    if 0 <= flat < int(np.prod(shape)):
        return tuple(int(x) for x in np.unravel_index(flat, shape))
    return (flat,)
