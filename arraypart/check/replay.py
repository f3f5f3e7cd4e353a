"""Replay a recorded run (:mod:`.trace`) step by step against bankings.

Every record is one access the compiled original made (:mod:`.records`), the
recorded calls of the top one run (:func:`.records.run_chunks`).  For each pipeline
step (loop, step) and each (array, copy, bank) its accesses use (DESIGN §2), leaving
out those that store forwarding and dead stores free (:func:`.traced_epochs.
free_records`):

    reads  = number of distinct flat addresses read    (identical reads count once,
             when no write that may alias them lies between:
             :meth:`.traced_epochs.StepAccesses.epochs`)
    writes = number of writes
    need   = min { ii >= 1 : PortModel.fits(reads, writes, ii) }

and a loop's traced II is ``max(target, max need over its steps)``.  A read of site s
uses the copy of the reference written at s (``Banking.copy_expr``: a constant, or
when it varies with the lane the copy the run recorded with the access, its own
iterator values put in the expression), a write every copy.
Two port models, the checker's (:mod:`.driver`):

- *ideal* (``rule=False``): an access uses a port of its element's bank, what the
  bank-centric code ``compile`` emits gets;
- *rule* (``rule=True``, the scheduling rule): a (loop, site, lane, kind) whose bank is
  one value over the whole run, of every call of the loop together (one piece of code
  to the HLS tool), is static and uses its bank; any other takes a port of
  EVERY bank of its copy, under a per_dim scheme of every bank with its digits in the
  dimensions whose digit every such key of the array keeps over the run (the rule's
  sub-arrays, :func:`.ports.by_class`).

In both, an array whose every bank holds one element is registers (no ports).  A
reshaped array's elements of one word are one address, and so are the window reads of
an ``array_stencil`` in one step (:func:`_as_counted`).

Records are read in chunks that never split a step, :data:`CHUNK_RECORDS` port uses
each (under the rule a record may use a port of every bank of its copy: the chunk then
holds as many fewer records, :func:`chunk_records`).  Steps are counted from every
record, the ends of runs (:data:`.records.RUN_END`) included, so a run whose last
steps access no array (or only in a macro's text) counts them.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from math import prod
from pathlib import Path
from typing import Callable, Iterator, Mapping, Sequence

import numpy as np

from .. import expr as E
from .. import ir
from ..errors import Coord
from ..scheme import Banking, index_var
from .instrument import Site
from .ports import compose_digits, min_ii
from .records import (CHUNK_RECORDS, READ, RUN_END, WRITE, no_checkpoint, run_chunks,
                      selected)
from .traced_epochs import (Forwarding, Shapes, StepAccesses, free_records, packed,
                            stable_order)

#: A site's copy in ``read_copies`` when each record carries it (its ``copy`` field).
RECORDED = -1


@dataclass(frozen=True, slots=True)
class Memory:
    """An array as replayed: its banking and the ports of each bank; ``per_call``: a
    called function's own array (``ir.Access.per_call``), one memory per call (each
    registration of it, a record's ``instance``)."""

    array: ir.Array
    banking: Banking
    model: ir.PortModel
    per_call: bool = False


@dataclass(frozen=True, slots=True)
class Claim:
    """What the model says of a loop: it reaches ``claimed_ii`` (target ``target_ii``);
    ``emitted_ii``: the II the emitted code reaches under the scheduling rule, where
    the claim is the banking proof's in the ideal port model (references the emission
    keeps as written may raise it, and so may an m_axi bundle that several arrays
    share; None when the claim is the rule's own); ``bundle_ii``: the II the loop's
    m_axi bundles allow (:class:`..poly.model.LoopInfo`), at most ``claimed_ii``;
    ``allocations``: (function, limit) of each ``allocation`` pragma that limits the
    instances of a function the loop calls, and ``instance_ii`` the II those limits
    allow (``LoopInfo.instance_ii``): calls that wait for an instance take no port, so
    the replay, which counts ports, cannot check them."""

    name: str
    coord: Coord
    target_ii: int
    claimed_ii: int
    emitted_ii: int | None = None
    bundle_ii: int = 1
    allocations: tuple[tuple[str, int], ...] = ()
    instance_ii: int = 1


@dataclass(frozen=True, slots=True)
class TracedAccess:
    coord: Coord
    kind: str
    array: str
    index: tuple[int, ...]

    def format(self) -> str:
        return f"{self.coord}: {self.kind} {self.array}" + "".join(f"[{x}]" for x in self.index)


@dataclass(frozen=True, slots=True)
class Overfull:
    """The first step of a loop whose ports do not fit the claimed II: ``step`` is its
    ordinal in the loop's run, ``cycle = step * claimed II``; ``bundle``: the m_axi
    bundle whose channels its arrays share (None: one array's bank)."""

    step: int
    cycle: int
    array: str
    copy: int
    bank: int
    reads: int
    writes: int
    ports: str
    accesses: tuple[TracedAccess, ...]
    bundle: str | None = None

    def memory(self) -> str:
        """What is overfull, for a message."""
        if self.bundle is not None:
            return f"m_axi bundle {self.bundle} ({self.ports})"
        return f"{self.array} copy {self.copy} bank {self.bank} ({self.ports})"


@dataclass(frozen=True, slots=True)
class LoopReplay:
    """One traced loop: its claim (None: the model has no such loop), steps run,
    traced II and the first step above the claim; ``accesses``: the array accesses the
    run recorded in it (0 where its steps ran text the trace does not instrument)."""

    coord: Coord
    claim: Claim | None
    steps: int
    traced_ii: int
    first: Overfull | None
    accesses: int = 0

    @property
    def agrees(self) -> bool:
        return self.claim is None or self.traced_ii <= self.claim.claimed_ii


@dataclass(frozen=True, slots=True)
class OutOfBounds:
    coord: Coord
    array: str
    flat: int


@dataclass(frozen=True, slots=True)
class Replay:
    loops: tuple[LoopReplay, ...]
    out_of_bounds: tuple[OutOfBounds, ...]
    records: int


def replay(paths: Sequence[Path], sites: tuple[Site, ...], loops: tuple[Coord, ...],
           memories: Mapping[int, Memory], read_copies: np.ndarray,
           claims: Mapping[int, Claim], *, rule: bool,
           site_fields: tuple[str | None, ...] = (),
           checkpoint: Callable[[], None] = no_checkpoint,
           windows: np.ndarray | None = None,
           sources: np.ndarray | None = None,
           moving: np.ndarray | None = None,
           forwarding: Forwarding | None = None,
           regular: np.ndarray | None = None) -> Replay:
    """Replay the records at ``paths`` (one file per recorded call of the top, one run:
    :func:`run_chunks`); ``memories`` by array id (arrays missing are
    not counted), ``read_copies[site]`` the copy a site's reads use (``RECORDED``:
    the record's own), ``claims`` by loop id, ``site_fields[site]`` the struct member
    a site names (``ir.Access.field``; empty: none does); ``windows``: the
    :func:`window_key` of each (loop, site) whose reads come from an array_stencil
    window, all of them one read of the buffer's feed in a step (``ir.Access.window``);
    ``sources[loop]``: the loop's text, one for the calls a loop is split into (by
    default each loop its own); ``moving``: sites whose subscript differs between the
    calls of one text where the bank reads it (``buf[v]`` at v = 0 and 2), dynamic
    under the rule whatever values a run shows; ``forwarding``: where the records that
    take no port are left out (:func:`free_records`; None: nowhere); ``regular[site]``:
    the site is a plain regular reference, whose writes may be told apart from a
    read by the run's addresses (:mod:`.traced_epochs`; None: no site, every write
    of the array separates two reads).  The arrays of one m_axi bundle count
    together (:func:`counting_units`)."""
    counted = {a: m for a, m in memories.items() if not m.banking.scheme.registers}
    if sources is None:
        sources = np.arange(len(loops), dtype=np.int64)
    moving = np.zeros(0, np.int64) if moving is None else moving
    dynamic = _Dynamic.of(paths, counted, sources, moving, checkpoint) if rule else None
    state = _State(len(loops), claims, counting_units(counted))
    # the ends of runs are no regular site's: Shapes leaves them out
    shapes = None if regular is None or not regular.any() else Shapes.of(
        run_chunks(paths, checkpoint=checkpoint, run_ends=True), regular)
    outside: dict[tuple[int, int], OutOfBounds] = {}
    total = 0
    for rows in run_chunks(paths, chunk_records(counted, rule), checkpoint=checkpoint,
                           run_ends=True):
        state.count_steps(rows)
        accesses = rows["site"] != RUN_END
        state.count_accesses(rows["loop"][accesses])
        total += int(accesses.sum())
        # an end of a run lies in no array (array -1): _inside leaves it out
        rows = _as_counted(_inside(rows, memories, sites, outside), memories, windows)
        steps = StepAccesses.of(rows, None if shapes is None else shapes.of_records(rows))
        epochs = steps.epochs()
        if forwarding is not None:
            taken = ~free_records(steps, forwarding)
            rows, epochs = selected(rows, taken), epochs[taken]
        uses = _uses(rows, counted, read_copies, dynamic, site_fields, epochs)
        if uses["loop"].size:
            state.add(uses, counted, sites)
    return Replay(tuple(state.result(loops)), tuple(outside.values()), total)


def counting_units(memories: Mapping[int, Memory]) -> dict[int, int]:
    """Per array id, the memory whose ports its accesses take: its own, or for the
    arrays of an m_axi bundle that several of them share, the bundle's (named by its
    first array's id): one read and one write a cycle for all of them (DESIGN §2)."""
    members: dict[str, list[int]] = {}
    for a, m in sorted(memories.items()):
        if m.array.bundle is not None:
            members.setdefault(m.array.bundle, []).append(a)
    units = {a: a for a in memories}
    for ids in members.values():
        units.update((a, ids[0]) for a in ids)
    return units


def chunk_records(memories: Mapping[int, Memory], rule: bool) -> int:
    """Records per chunk: :data:`CHUNK_RECORDS`, divided under the rule by the most
    port uses one record may make (every bank of every copy: :func:`_uses`); 96 banks
    made 7 GB of a 2^20-record chunk."""
    if not rule:
        return CHUNK_RECORDS
    most = max((m.banking.scheme.banks * m.banking.copies for m in memories.values()),
               default=1)
    return max(1, CHUNK_RECORDS // most)


def _inside(rows: np.ndarray, memories: Mapping[int, Memory], sites: tuple[Site, ...],
            outside: dict) -> np.ndarray:
    """The records whose element lies in its array; the others noted per site."""
    sizes = np.zeros(int(rows["array"].max(initial=0)) + 1, np.int64)
    for a, m in memories.items():
        if a < sizes.size:
            sizes[a] = m.array.size
    known = np.isin(rows["array"], list(memories))
    size = np.where(known, sizes[np.clip(rows["array"], 0, sizes.size - 1)], 0)
    ok = (rows["flat"] >= 0) & (rows["flat"] < size)
    bad = selected(rows, known & ~ok)
    _, first = np.unique(bad["site"], return_index=True)
    for r in bad[first]:
        key = (int(r["site"]), int(r["array"]))
        outside.setdefault(key, OutOfBounds(sites[key[0]].coord,
                                            memories[key[1]].array.name, int(r["flat"])))
    return selected(rows, ok)


def _as_counted(rows: np.ndarray, memories: Mapping[int, Memory],
                windows: np.ndarray | None) -> np.ndarray:
    """``rows`` with the addresses the ports see: each element of a reshaped array
    replaced by its word's first element (``ir.Array.word_index``: the elements of one
    word are one address), every window read of a step by element 0 (the buffer's one
    feed read, ``ir.Access.window``)."""
    for a, m in memories.items():
        if m.array.reshapes:
            mine = rows["array"] == a
            rows["flat"][mine] = word_flat(m.array, rows["flat"][mine])
    if windows is not None and windows.size:
        rows["flat"][np.isin(window_key(rows["loop"], rows["site"]), windows)] = 0
    return rows


def word_flat(array: ir.Array, flat: np.ndarray) -> np.ndarray:
    """The row-major offset of the word each element offset lies in, as an element
    offset of the array (its index in every dimension the word's)."""
    index = np.unravel_index(flat, array.shape)
    env = {index_var(d): x.astype(np.int64) for d, x in enumerate(index)}
    element = tuple(E.var(index_var(d)) for d in range(len(array.shape)))
    words = [np.broadcast_to(np.asarray(E.evaluate(e, env), np.int64), flat.shape)
             for e in array.word_index(element)]
    return np.ravel_multi_index(words, array.shape).astype(np.int64)


def bank_of(banking: Banking, flat: np.ndarray) -> np.ndarray:
    """The bank of each row-major element offset (the scheme's bank formula)."""
    index = np.unravel_index(flat, banking.scheme.shape)
    env = {index_var(d): x.astype(np.int64) for d, x in enumerate(index)}
    bank = E.evaluate(banking.scheme.bank_expr(), env)
    return np.broadcast_to(np.asarray(bank, np.int64), flat.shape)


#: Bits of a record's site and lane in its site key (4 M sites, 4 M lanes per step).
SITE_BITS = LANE_BITS = 22


def window_key(loop, site):
    """(loop, site) as one integer (numpy arrays or ints)."""
    return (np.asarray(loop, np.int64) << SITE_BITS) | site


def _site_keys(rows, sources: np.ndarray) -> np.ndarray:
    """(loop's text, site, lane, kind) of each record (``rows``: records, or their
    columns by name) as one integer."""
    key = (sources[rows["loop"]].astype(np.int64) << SITE_BITS) | rows["site"]
    return (((key << LANE_BITS) | rows["lane"]) << 1) | rows["kind"]


@dataclass(frozen=True)
class _Dynamic:
    """Per array, the site keys (loop's text, site, lane, kind, :func:`_site_keys`)
    whose bank takes more than one value in the run, sorted, and the partitioned
    dimensions whose digit each of them keeps over the run (``(d, factor, stride)``,
    as ``Scheme.bank_digits``)."""

    keys: dict[int, np.ndarray]
    kept: dict[int, tuple[tuple[int, int, int], ...]]
    sources: np.ndarray
    moving: np.ndarray

    @staticmethod
    def of(paths: Sequence[Path], memories: Mapping[int, Memory], sources: np.ndarray,
           moving: np.ndarray, checkpoint: Callable[[], None]) -> "_Dynamic":
        # (array, key, -1 bank or d) -> [lo, hi]
        spans: dict[tuple[int, int, int], list[int]] = {}
        unknowing: set[int] = set()  # arrays a moving site reaches: no digit is kept
        for rows in run_chunks(paths, checkpoint=checkpoint):
            for a, m in memories.items():
                mine = selected(rows, (rows["array"] == a) & (rows["flat"] >= 0)
                                & (rows["flat"] < m.array.size))
                if not mine.size:
                    continue
                if np.isin(mine["site"], moving).any():
                    unknowing.add(a)
                keys, inverse = np.unique(_site_keys(mine, sources), return_inverse=True)
                values = [(-1, bank_of(m.banking, mine["flat"]))] + [
                    (d, x) for d, x in digits_of(m.banking, mine["flat"])]
                for d, value in values:
                    lo = np.full(keys.size, np.iinfo(np.int64).max)
                    hi = np.full(keys.size, -1)
                    np.minimum.at(lo, inverse, value)
                    np.maximum.at(hi, inverse, value)
                    for key, a_lo, a_hi in zip(keys.tolist(), lo.tolist(), hi.tolist()):
                        span = spans.setdefault((a, key, d), [a_lo, a_hi])
                        span[0], span[1] = min(span[0], a_lo), max(span[1], a_hi)
        dynamic: dict[int, list[int]] = {a: [] for a in memories}
        for (a, k, d), (lo, hi) in spans.items():
            if d == -1 and lo != hi:
                dynamic[a].append(k)
        kept: dict[int, tuple[tuple[int, int, int], ...]] = {}
        for a, m in memories.items():
            mine = dynamic[a]
            kept[a] = tuple((d, f, stride) for d, f, stride, _ in
                            m.banking.scheme.bank_digits() if mine and a not in unknowing
                            and all(spans[a, k, d][0] == spans[a, k, d][1] for k in mine))
        return _Dynamic({a: np.array(sorted(ks), np.int64) for a, ks in dynamic.items()},
                        kept, sources, moving)

    def banks(self, a: int, banking: Banking, flat: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray, Callable[[np.ndarray], np.ndarray]]:
        """For dynamic records of array ``a`` (elements ``flat``): how many banks each
        takes a port of, its bank's part from its own digits in the kept dimensions,
        and the part of its k-th port's bank from the other digits (all values)."""
        kept = self.kept.get(a, ())
        fixed = np.zeros(flat.shape, np.int64)
        known = dict(digits_of(banking, flat)) if kept else {}
        for d, _, stride in kept:
            fixed = fixed + known[d] * stride
        free = tuple((d, f, stride) for d, f, stride, _ in banking.scheme.bank_digits()
                     if (d, f, stride) not in kept) or ((0, banking.scheme.banks, 1),)
        count = banking.scheme.banks // prod(f for _, f, _ in kept)
        return (np.full(flat.shape, count, np.int64), fixed,
                lambda ramp: compose_digits(ramp, free))


def digits_of(banking: Banking, flat: np.ndarray) -> list[tuple[int, np.ndarray]]:
    """Per partitioned dimension of a per_dim scheme, the digit of each row-major
    element offset (``Scheme.bank_digits``)."""
    digits = banking.scheme.bank_digits()
    if not digits:
        return []
    index = np.unravel_index(flat, banking.scheme.shape)
    return [(d, np.broadcast_to(np.asarray(E.evaluate(expr, {index_var(d): index[d].astype(
        np.int64)}), np.int64), flat.shape)) for d, _, _, expr in digits]


def _member_views(array: ir.Array, site: np.ndarray, site_fields: tuple[str | None, ...]
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Per record, the first member view it reaches and how many (``ir.member_views``:
    a record of member f reaches f's view, one of the whole element every view)."""
    fields = ir.member_arrays(array, [site_fields[s] if s < len(site_fields) else None
                                      for s in np.unique(site).tolist()])
    if not fields:
        return np.zeros(site.size, np.int64), np.ones(site.size, np.int64)
    code = np.array([fields.index(f) if f in fields else -1 for f in site_fields]
                    + [-1], np.int64)[np.minimum(site, len(site_fields))]
    return np.maximum(code, 0), np.where(code < 0, len(fields), 1)


def _uses(rows: np.ndarray, memories: Mapping[int, Memory], read_copies: np.ndarray,
          dynamic: "_Dynamic | None", site_fields: tuple[str | None, ...] = (),
          epochs: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Port uses as columns: a record per member view it reaches, per copy it reaches
    (writes: all), and under the rule a dynamic record per bank of its copy; each
    with its epoch (``epochs``, per record: :meth:`.traced_epochs.StepAccesses.epochs`;
    None: all 0) and its call's ``instance`` where the array is one per call (0
    elsewhere)."""
    parts = []
    if epochs is None:
        epochs = np.zeros(rows.size, np.int64)
    for a, m in memories.items():
        chosen = rows["array"] == a
        if not chosen.any():
            continue
        cols = {k: rows[k][chosen].astype(np.int64)
                for k in ("loop", "step", "flat", "kind", "site", "lane", "copy",
                          "instance")}
        first_view, views = _member_views(m.array, cols["site"], site_fields)
        write = cols["kind"] == WRITE
        fixed = read_copies[cols["site"]]
        cols.update(epoch=epochs[chosen], view=first_view, bank=bank_of(m.banking, cols["flat"]),
                    copy=np.where(write, 0, np.where(fixed == RECORDED, cols["copy"], fixed)),
                    array=np.full(write.size, a, np.int64))
        if not m.per_call:  # per_call: each call's copy of the array, memories apart
            cols["instance"] = np.zeros(write.size, np.int64)
        if dynamic is not None:
            cols["spread"] = (np.isin(_site_keys(cols, dynamic.sources), dynamic.keys[a])
                              | np.isin(cols["site"], dynamic.moving))
        cols = _repeated(cols, views, "view")
        cols = _repeated(cols, np.where(cols["kind"] == WRITE, m.banking.copies, 1), "copy")
        if dynamic is not None:
            reach, fixed, rest = dynamic.banks(a, m.banking, cols["flat"])
            banks = np.where(cols["spread"], reach, 1)
            cols = _repeated({**cols, "fixed": fixed}, banks)
            cols["bank"] = np.where(cols["spread"], cols["fixed"] + rest(_ramp(banks)),
                                    cols["bank"])
        parts.append(cols)
    names = ("loop", "step", "array", "instance", "view", "copy", "bank", "kind", "flat",
             "site", "epoch")
    if not parts:
        return {k: np.empty(0, np.int64) for k in names}
    return {k: np.concatenate([p[k] for p in parts]) for k in names}


def _repeated(columns: dict[str, np.ndarray], counts: np.ndarray, ramped: str | None = None
              ) -> dict[str, np.ndarray]:
    """Each row of ``columns`` repeated ``counts`` times, the column ``ramped`` plus
    0, 1, ... over a row's repeats (``columns`` itself where every count is 1)."""
    if (counts == 1).all():
        return columns
    out = {k: np.repeat(v, counts) for k, v in columns.items()}
    if ramped is not None:
        out[ramped] = out[ramped] + _ramp(counts)
    return out


def _ramp(counts: np.ndarray) -> np.ndarray:
    """0, 1, ..., c-1 for each count c, concatenated."""
    counts = np.asarray(counts, np.int64)
    starts = np.repeat(np.cumsum(counts) - counts, counts)
    return np.arange(int(counts.sum())) - starts


def least_ii(model: ir.PortModel, reads: np.ndarray, writes: np.ndarray) -> np.ndarray:
    """Elementwise ``min { ii >= 1 : model.fits(reads, writes, ii) }``, each distinct
    pair computed once."""
    if not reads.size:
        return np.ones(0, np.int64)
    width = int(writes.max()) + 1
    pairs, inverse = np.unique(reads * width + writes, return_inverse=True)
    table = np.array([min_ii(model, p // width, p % width) for p in pairs.tolist()],
                     np.int64)
    return table[inverse]


GROUP = ("loop", "step", "unit", "instance", "view", "copy", "bank")
ELEMENT = ("array", "epoch", "kind", "flat")


class _State:
    """Per loop: steps seen, largest need, first step above its claim (the replay's
    accumulator over chunks); ``units``: :func:`counting_units`."""

    def __init__(self, loops: int, claims: Mapping[int, Claim],
                 units: Mapping[int, int]) -> None:
        self.claims = claims
        self.units = np.zeros(max(units, default=0) + 1, np.int64)
        self.units[list(units)] = list(units.values())
        self.shared = {u for u, n in Counter(units.values()).items() if n > 1}
        self.limit = np.array([claims[n].claimed_ii if n in claims else np.iinfo(np.int64).max
                               for n in range(loops)], np.int64)
        self.need = np.ones(loops, np.int64)
        self.steps = np.zeros(loops, np.int64)
        self.accesses = np.zeros(loops, np.int64)
        self.first: dict[int, Overfull] = {}

    def add(self, uses: dict[str, np.ndarray], memories: Mapping[int, Memory],
            sites: tuple[Site, ...]) -> None:
        uses = {**uses, "unit": self.units[uses["array"]]}
        group = packed([uses[k] for k in GROUP])
        element = packed([uses[k] for k in ELEMENT])
        both = None if group is None or element is None else packed([group, element])
        if group is None or element is None:
            order = np.lexsort(tuple(uses[k] for k in reversed(GROUP + ELEMENT)))
        elif both is None:
            order = np.lexsort((element, group))
        else:
            order = stable_order(both)
        u = {k: v[order] for k, v in uses.items()}
        new = np.ones(order.size, bool)
        if group is None:
            new[1:] = np.any([u[k][1:] != u[k][:-1] for k in GROUP], axis=0)
        else:
            sorted_group = group[order]
            new[1:] = sorted_group[1:] != sorted_group[:-1]
        starts = np.flatnonzero(new)
        read = u["kind"] == READ
        fresh_read = read.copy()
        fresh_read[1:] &= (new[1:] | (u["flat"][1:] != u["flat"][:-1])
                           | (u["array"][1:] != u["array"][:-1])
                           | (u["epoch"][1:] != u["epoch"][:-1]) | ~read[:-1])
        reads = np.add.reduceat(fresh_read.astype(np.int64), starts)
        writes = np.add.reduceat((~read).astype(np.int64), starts)
        need = np.ones(starts.size, np.int64)
        group_array = u["unit"][starts]
        for a, m in memories.items():
            mine = group_array == a
            need[mine] = least_ii(m.model, reads[mine], writes[mine])
        loop = u["loop"][starts]
        np.maximum.at(self.need, loop, need)
        self._first(u, starts, loop, need, reads, writes, memories, sites)

    def count_steps(self, rows: np.ndarray) -> None:
        """Steps seen, from every record (those of register arrays and of arrays that
        are not counted included: a loop touching only registers still runs)."""
        np.maximum.at(self.steps, rows["loop"], rows["step"] + 1)

    def count_accesses(self, loop: np.ndarray) -> None:
        """Array accesses recorded, per loop (``loop``: each access record's)."""
        inside = loop[loop >= 0]
        self.accesses += np.bincount(inside, minlength=self.accesses.size)[:self.accesses.size]

    def _first(self, u, starts, loop, need, reads, writes, memories, sites) -> None:
        for g in np.flatnonzero(need > self.limit[loop]).tolist():
            lid = int(loop[g])
            if lid in self.first:
                continue
            end = starts[g + 1] if g + 1 < starts.size else u["loop"].size
            unit = int(u["unit"][starts[g]])
            m = memories[unit]
            accesses = dict.fromkeys(
                TracedAccess(sites[s].coord, "write" if k == WRITE else "read",
                             memories[a].array.name, tuple(int(x) for x in np.unravel_index(
                                 f, memories[a].banking.scheme.shape)))
                for s, k, a, f in zip(u["site"][starts[g]:end].tolist(),
                                      u["kind"][starts[g]:end].tolist(),
                                      u["array"][starts[g]:end].tolist(),
                                      u["flat"][starts[g]:end].tolist()))
            step = int(u["step"][starts[g]])
            self.first[lid] = Overfull(step, step * self.claims[lid].claimed_ii,
                                       m.array.name, int(u["copy"][starts[g]]),
                                       int(u["bank"][starts[g]]), int(reads[g]),
                                       int(writes[g]), m.model.name, tuple(accesses),
                                       m.array.bundle if unit in self.shared else None)

    def result(self, loops: tuple[Coord, ...]) -> Iterator[LoopReplay]:
        for lid, coord in enumerate(loops):
            claim = self.claims.get(lid)
            target = claim.target_ii if claim else 1
            yield LoopReplay(coord, claim, int(self.steps[lid]),
                             max(target, int(self.need[lid])), self.first.get(lid),
                             int(self.accesses[lid]))
