"""The HLS scheduling rule (DESIGN §2): how a scheduler that sees only the source uses
the ports of a partitioned array.

A *site* is one access of the IR in one lane of its loop's frame (a fully unrolled
inner loop, or an unroll block of the loop itself, gives one site per lane).  Over one
run of a concurrent loop:

- a site whose bank is the same value in every step where it executes is *static*: it
  takes one port of that bank;
- any other site is *dynamic* (its bank varies, or depends on an irregular index): the
  scheduler reads every bank and multiplexes, so it takes one port of EVERY bank of its
  copy;
- identical reads of one element in one step count once (equal keys below) when no
  write that may alias them lies between (each epoch has addresses of its own,
  :mod:`.epochs`);
- an array whose every bank holds one element is registers: no port limit.

The bank of a site needs only the index dimensions its scheme's bank formula uses, so
``A[i][idx[j]]`` under ``cyclic`` on dimension 0 alone still has a bank.  In one step,
a (copy c, bank b) then serves the distinct read addresses and all the writes of the
static uses there and of every dynamic use of c (they reach every bank of c)::

    reads(c, b)  = |DR_c ∪ SR_cb|        writes(c, b) = DW_c + SW_cb

with DR_c the dynamic read addresses of copy c, DW_c its dynamic writes, SR_cb and
SW_cb the static ones of (c, b); a bank no static use reaches serves (|DR_c|, DW_c),
which every bank of c serves at least (``PortModel.fits`` is monotone in reads and
writes, so that bank needs no more than any other).  The step's need is the largest,
over these banks, least II at which the bank's ports serve its reads and writes.
An address lies in one bank (its bank is a function of its index), so a dynamic read
of an address in SR_cb has *home* bank b and
|DR_c ∪ SR_cb| = |DR_c| + (addresses of SR_cb that no dynamic read of home b reads):
each use becomes one key at its home bank (:class:`_KeyLayout`; a dynamic use whose
bank is unknown gets a home of its own), never one per bank, and a row's sorted keys
give every count above.  Addresses that are unknown (an irregular dimension) get keys
of their own, so they never merge with another access.

Under a per_dim scheme a dynamic site reaches only the banks whose digits it keeps:
after unrolling, ``buf[v][b][i]`` with ``v`` a lane constant and ``b`` from the data
selects among the sub-arrays of its ``v`` alone (FINN's MMV window generator).  When
every dynamic site of an array keeps the digits of some dimensions D over the whole
run (:meth:`BankSpan.fixed`), the banks split into classes by those digits, each a
copy of its own for the counts above: a class's dynamic uses take a port of each bank
of that class only (:func:`.ports.by_class`).  Dimensions some dynamic site does not keep
are left out of D, which can only count more ports.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, Iterable, Mapping

import numpy as np

from .. import expr as E
from .. import ir
from ..scheme import Banking, index_var
from .frames import Frame, values
from .ports import (UNUSED, BankUse, Grid, by_class, element_addresses,
                    key_groups, min_iis, read_copies)
from .report import ConflictAccess

#: Keys built at once per block of rows (rows x port uses), about 32 MB of int64.
BLOCK_KEYS = 1 << 22

SiteKey = tuple[int, int]  # (id of the ir.Access, lane column)


@dataclass(frozen=True, eq=False)
class SiteCells:
    """The instances of one access in one run under the rule: ``bank`` is None when a
    dimension the bank formula reads is irregular; ``address`` is the row-major
    element index (None when some dimension is irregular); ``copy`` the copy a read
    instance reads (:func:`.ports.read_copies`); ``layers``, set by :func:`.ports.by_class`,
    the (copy, class) layers its instances use, each ``(rows, lanes)``; ``epoch``,
    ``owner``: ``.ports.Cells``'."""

    access: ir.Access
    mask: np.ndarray
    index: tuple[np.ndarray | None, ...]
    bank: np.ndarray | None
    copy: np.ndarray
    layers: tuple[np.ndarray, ...] | None = None
    epoch: np.ndarray | int = 0
    owner: tuple = ()

    @property
    def count(self) -> int:
        return int(np.count_nonzero(self.mask))

    def masked(self, mask: np.ndarray) -> "SiteCells":
        """These cells where ``mask`` holds (indices and banks are known in every
        cell of the frame, run or not)."""
        return replace(self, mask=mask)

    @property
    def ranges(self) -> tuple[tuple[int, int] | None, ...]:
        """Per dimension, (min, max) of the executed indices (None: irregular/none)."""
        run = self.mask.any()
        return tuple(None if x is None or not run else
                     (int(x[self.mask].min()), int(x[self.mask].max())) for x in self.index)


def site_cells(access: ir.Access, frame: Frame, banking: Banking) -> SiteCells:
    index = tuple(None if e is None else values(frame, e) for e in access.index)
    bank = None
    if all(index[d] is not None for d in banking.scheme.bank_dims()):
        env = {index_var(d): x for d, x in enumerate(index) if x is not None}
        bank = np.broadcast_to(E.evaluate(banking.scheme.bank_expr(), env), frame.mask.shape)
    return SiteCells(access, frame.mask, index, bank, read_copies(access, frame, banking))


def moves_with_sizes(access: ir.Access, banking: Banking, sizes: frozenset[str]) -> bool:
    """Whether ``access``'s bank under ``banking`` moves with a run-time size: its bank
    formula over the access's index changes, at some point, when a size in it steps
    by one (:func:`.expr.difference`; a move it cannot tell counts)."""
    dims = banking.scheme.bank_dims()
    if any(access.index[d] is None for d in dims):
        return False  # irregular: dynamic already
    bank = E.substitute(banking.scheme.bank_expr(),
                        {index_var(d): access.index[d] for d in dims})
    return any(E.difference(bank, name, 1) != 0 for name in E.variables(bank) & sizes)


@dataclass(frozen=True)
class RuleSites:
    """What a region's whole run tells of its sites: the static ones, and per array
    the dimensions whose digits its dynamic sites keep (:meth:`BankSpan.fixed`)."""

    static: frozenset[SiteKey]
    kept: Mapping[str, frozenset[int]]

    def kept_by(self, array: str) -> frozenset[int]:
        return self.kept.get(array, frozenset())


@dataclass
class BankSpan:
    """Smallest and largest bank each site took so far (over every chunk of a run),
    and under a per_dim scheme the same of each partitioned dimension's digit (keyed
    ``(site, d)``), with the arrays of each site (a function's reference reaches
    each array a call wires to it)."""

    low: dict[SiteKey, int] = field(default_factory=dict)
    high: dict[SiteKey, int] = field(default_factory=dict)
    unknown: set[SiteKey] = field(default_factory=set)
    digits: "BankSpan | None" = None
    arrays: dict[SiteKey, set[str]] = field(default_factory=dict)

    def add(self, c: SiteCells, banking: Banking | None = None,
            site: int | None = None) -> None:
        """Widen the spans by the banks ``c``'s running lanes take (one numpy
        reduction per access, then a dict update per running lane); with
        ``banking``, also by the digits of its bank's dimensions.  ``site`` names the
        access in the keys (default ``id(c.access)``): one name for the access in
        every instance of its loop makes the spans theirs together."""
        ran = np.flatnonzero(c.mask.any(axis=0)).tolist()
        site = id(c.access) if site is None else site
        keys = [(site, lane) for lane in ran]
        self._widen(keys, ran, c.mask, c.bank)
        if banking is None:
            return
        for key in keys:
            self.arrays.setdefault(key, set()).add(c.access.array)
        if self.digits is None:
            self.digits = BankSpan()
        for d, _, _, digit in banking.scheme.bank_digits():
            # a digit the source spells as a constant may be a run-time value to the
            # HLS tool (a geometric loop's copy, an inlined call's argument): only an
            # index over the lanes' iterators keeps one it sees
            x = c.index[d] if E.variables(c.access.index[d] or E.const(0)) else None
            value = None if x is None else np.broadcast_to(
                E.evaluate(digit, {index_var(d): x}), c.mask.shape)
            self.digits._widen([(key, d) for key in keys], ran, c.mask, value)

    def _widen(self, keys: list, ran: list[int], mask: np.ndarray,
               value: np.ndarray | None) -> None:
        if value is None:
            self.unknown.update(keys)
            return
        lows = np.where(mask, value, UNUSED).min(axis=0, initial=UNUSED)[ran].tolist()
        highs = np.where(mask, value, -1).max(axis=0, initial=-1)[ran].tolist()
        for key, lo, hi in zip(keys, lows, highs):
            self.low[key] = min(lo, self.low.get(key, lo))
            self.high[key] = max(hi, self.high.get(key, hi))

    def static(self) -> frozenset[SiteKey]:
        return frozenset(k for k, lo in self.low.items()
                         if k not in self.unknown and self.high[k] == lo)

    def fixed(self, static: frozenset[SiteKey], bankings: Mapping[str, Banking],
              moving: set[int]) -> dict[str, frozenset[int]]:
        """Per array with dynamic sites: the partitioned dimensions whose digit every
        one of them keeps over the run (module doc); a site whose bank moves with a
        run-time size (``moving``, by access) keeps none at compile time."""
        kept = self.digits.static() if self.digits is not None else frozenset()
        out: dict[str, frozenset[int]] = {}
        for key, arrays in self.arrays.items():
            if key in static:
                continue
            for array in arrays:
                dims = out.get(array)
                if dims is None:
                    dims = frozenset(d for d, *_ in bankings[array].scheme.bank_digits())
                out[array] = frozenset(d for d in dims
                                       if (key, d) in kept and key[0] not in moving)
        return {array: dims for array, dims in out.items() if dims}


def _addresses(cs: list[SiteCells], shape: tuple[int, ...]) -> tuple[list, int]:
    """Per cell, its (rows, lanes) address or None; and the address space size.

    Regular addresses are row-major over the index ranges seen; the space leaves one
    extra slot per (cell, lane) so unknown addresses get keys of their own."""
    lows, extents = [], []
    for d in range(len(shape)):
        seen = [(int(c.index[d][c.mask].min()), int(c.index[d][c.mask].max()))
                for c in cs if c.index[d] is not None and c.mask.any()]
        lo = min((s[0] for s in seen), default=0)
        lows.append(lo)
        extents.append(max((s[1] for s in seen), default=0) - lo + 1)
    return element_addresses(cs, lows, extents)


def _port_uses(cs: list[SiteCells], space: Grid, static: frozenset[SiteKey]):
    """Per (cell, lane, layer: ``(rows, lanes)`` layers): None for a static site (a
    port of its own bank), else the banks it takes a port of (all of its layer's)."""
    for i, c in enumerate(cs):
        for lane in range(c.mask.shape[1]):
            fixed = c.bank is not None and (id(c.access), lane) in static
            for copy in space.layers(c):
                targets = None if fixed else range(space.banks)
                yield i, lane, copy, targets


@dataclass(frozen=True)
class _KeyLayout:
    """The bit fields of a use's key, most significant first::

        key = ((((copy * homes + home) * 2 + kind) << shift) + address) * 2 + fixed

    ``home`` is the bank the address lies in (``banks`` when unknown, so ``homes =
    banks + 1``), ``kind`` 1 for a write, ``fixed`` 1 for a static use.  Sorted, a
    row's keys run by (copy, home) group, then kind, then address, dynamic uses of an
    address before static ones; UNUSED (a lane that does not run) sorts last."""

    banks: int
    copies: int
    shift: int

    def __post_init__(self):
        if (self.copies * self.homes) << (self.shift + 2) > UNUSED:
            raise ValueError("scheduling-rule keys overflow int64")

    @property
    def homes(self) -> int:
        return self.banks + 1

    def group(self, key: np.ndarray) -> np.ndarray:
        return key >> (self.shift + 2)

    def write(self, key: np.ndarray) -> np.ndarray:
        return (key >> (self.shift + 1)) & 1


def rule_needs(cs: list[SiteCells], banking: Banking, model: ir.PortModel, rows: int,
               static: frozenset[SiteKey], kept: frozenset[int] = frozenset(),
               checkpoint: Callable[[], None] | None = None) -> np.ndarray:
    """The least II each of ``rows`` steps needs for this array under the rule (module
    doc; ``kept``: the dimensions whose digits its dynamic sites keep), ``BLOCK_KEYS``
    keys at a time; ``checkpoint`` runs before each block."""
    if banking.scheme.registers or not cs or not rows:
        return np.ones(rows, np.int64)
    cs, grid = by_class(cs, banking, kept)
    addresses, space = _addresses(cs, banking.scheme.shape)
    layout = _KeyLayout(grid.banks, grid.copies, max(1, (space - 1).bit_length()))
    fixed = [_fixed_lanes(c, static) for c in cs]
    columns = sum(c.mask.shape[1] * len(grid.layers(c)) for c in cs)
    dynamic = not all(f.all() for f in fixed)
    kinds = {c.access.kind for c in cs}
    steady = None if dynamic else _lane_groups(cs, grid)
    need = np.ones(rows, np.int64)
    block = max(1, BLOCK_KEYS // columns)
    for lo in range(0, rows, block):
        if checkpoint is not None:
            checkpoint()
        here = slice(lo, min(rows, lo + block))
        if steady is not None:
            need[here] = steady.needs(cs, grid, model, here)
            continue
        key = _block_keys(cs, addresses, fixed, grid, layout, here, columns)
        need[here] = (_block_needs(key, layout, model) if dynamic
                      else _static_needs(key, layout, model, kinds))
    return need


def _block_keys(cs: list[SiteCells], addresses: list, fixed: list[np.ndarray],
                grid: Grid, layout: _KeyLayout, rows: slice, columns: int
                ) -> np.ndarray:
    """Every use's key in ``rows`` (:class:`_KeyLayout`), ``(rows, columns)``."""
    key = np.empty((rows.stop - rows.start, columns), np.int64)
    col = 0
    for c, address, lanes in zip(cs, addresses, fixed):
        for part in _use_keys(c, address, lanes, grid, layout, rows):
            key[:, col:col + part.shape[1]] = part
            col += part.shape[1]
    return key


def _fixed_lanes(c: SiteCells, static: frozenset[SiteKey]) -> np.ndarray:
    """Per lane of ``c``: whether it is a static site (its bank one known value)."""
    lanes = range(c.mask.shape[1])
    return np.array([c.bank is not None and (id(c.access), lane) in static
                     for lane in lanes], bool)


def _use_keys(c: SiteCells, address: np.ndarray, fixed: np.ndarray, grid: Grid,
              layout: _KeyLayout, rows: slice):
    """The keys of ``c``'s uses in ``rows``, one ``(rows, lanes)`` block per copy
    layer (:class:`_KeyLayout`)."""
    home = layout.banks if c.bank is None else c.bank[rows]
    kind = int(c.access.kind == "write")
    low = (((home * 2 + kind) << layout.shift) + address[rows]) * 2 + fixed
    for copy in grid.layers(c):
        value = low + ((copy[rows] * layout.homes * 2) << (layout.shift + 1))
        yield np.where(c.mask[rows], value, UNUSED)


def _run_starts(values: np.ndarray, columns: int) -> np.ndarray:
    """Over a flattened sorted ``(rows, columns)`` matrix: True where a run of equal
    ``values`` starts (a row's first cell always starts one)."""
    starts = np.empty(values.size, bool)
    starts[0] = True
    np.not_equal(values[1:], values[:-1], out=starts[1:])
    starts[::columns] = True
    return starts


@dataclass(frozen=True, eq=False)
class _LaneGroups:
    """Static uses whose (copy, bank) is one value per column (cell, copy layer,
    lane) wherever it runs, at most one read column per (copy, bank): a group's reads
    are then its running read columns (no two can share an address) and its writes
    its running write columns, with no sort.  ``order`` puts each group's columns
    together, starting at ``starts``; ``is_read`` per column, in key column order."""

    order: np.ndarray
    starts: np.ndarray
    is_read: np.ndarray

    def needs(self, cs: list[SiteCells], grid: Grid, model: ir.PortModel,
              rows: slice) -> np.ndarray:
        """Per row in ``rows``: the least II at which every group fits."""
        running = np.concatenate([c.mask[rows] for c in cs for _ in grid.layers(c)],
                                 axis=1)
        running = running[:, self.order]
        reads = np.add.reduceat(running & self.is_read, self.starts, axis=1, dtype=np.int64)
        writes = np.add.reduceat(running & ~self.is_read, self.starts, axis=1, dtype=np.int64)
        return min_iis(model, reads.ravel(), writes.ravel()).reshape(reads.shape).max(axis=1)


def _lane_groups(cs: list[SiteCells], grid: Grid) -> _LaneGroups | None:
    """The :class:`_LaneGroups` of all-static ``cs``, or None when some column's
    (copy, bank) varies or two read columns share one (then keys are sorted)."""
    groups, is_read = [], []
    for c in cs:
        for copy in grid.layers(c):
            group = copy * grid.banks + c.bank
            low = np.where(c.mask, group, UNUSED).min(axis=0, initial=UNUSED)
            high = np.where(c.mask, group, -1).max(axis=0, initial=-1)
            ran = high >= 0
            if (low[ran] != high[ran]).any():
                return None
            groups.append(np.where(ran, high, -1))
            is_read.append(np.full(high.size, c.access.kind == "read"))
    group, is_read = np.concatenate(groups), np.concatenate(is_read)
    read_groups = group[is_read & (group >= 0)]
    if np.unique(read_groups).size < read_groups.size:
        return None
    order = np.argsort(group, kind="stable")
    starts = np.flatnonzero(_run_starts(group[order], group.size))
    return _LaneGroups(order, starts, is_read[order])


def _static_needs(key: np.ndarray, layout: _KeyLayout, model: ir.PortModel,
                  kinds: set[str]) -> np.ndarray:
    """:func:`_block_needs` when every use is static: each (copy, bank) serves its
    own distinct reads and writes, which :func:`.ports.key_groups` counts (the fixed
    bit, 1 on every key, reads as one more address bit)."""
    groups = key_groups(key, layout.shift + 1, kinds)
    return groups.row_max(min_iis(model, groups.reads, groups.writes))


def _block_needs(key: np.ndarray, layout: _KeyLayout, model: ir.PortModel) -> np.ndarray:
    """Per row of ``key`` (every use of one step, UNUSED where a lane does not run),
    the least II at which every (copy, bank) serves its uses (module doc)."""
    rows, columns = key.shape
    key.sort(axis=1)
    flat = key.ravel()
    new_group = _run_starts(layout.group(flat), columns)
    starts = np.flatnonzero(new_group)
    used = flat[starts] != UNUSED
    uses = _group_uses(flat, new_group, used, columns, layout)
    cell = (starts // columns) * layout.copies + np.where(
        used, layout.group(flat[starts]) // layout.homes, 0)
    dyn_reads, dyn_writes = (_cell_totals(cell, x, rows * layout.copies)
                             for x in (uses.dyn_reads, uses.dyn_writes))
    group_need = min_iis(model, np.where(uses.static, dyn_reads[cell] + uses.extra, 0),
                         np.where(uses.static, dyn_writes[cell] + uses.static_writes, 0))
    copy_need = min_iis(model, dyn_reads, dyn_writes)
    row_need = np.maximum.reduceat(group_need, np.flatnonzero(starts % columns == 0))
    return np.maximum(row_need, copy_need.reshape(rows, layout.copies).max(axis=1))


@dataclass(frozen=True, eq=False)
class _GroupUses:
    """Per (copy, home) group of a block's sorted keys: ``dyn_reads`` the distinct
    addresses dynamic uses read, ``dyn_writes`` the dynamic writes, ``extra`` the
    distinct addresses only static uses read, ``static_writes``, and ``static``
    whether any static use is in the group (0 / False for UNUSED groups)."""

    dyn_reads: np.ndarray
    dyn_writes: np.ndarray
    extra: np.ndarray
    static_writes: np.ndarray
    static: np.ndarray


def _group_uses(flat: np.ndarray, new_group: np.ndarray, used: np.ndarray, columns: int,
                layout: _KeyLayout) -> _GroupUses:
    """The counts of :class:`_GroupUses` over the flattened sorted keys.  An address
    run's first key is dynamic iff a dynamic use of the group reads it, since dynamic
    keys sort first; so first keys count distinct addresses of each sort."""
    groups = used.size
    first = _run_starts(flat >> 1, columns)
    kind = first * 4 + (flat & 1) * 2 + layout.write(flat)  # first key, static, write
    n = np.bincount(kind * groups + (np.cumsum(new_group) - 1),
                    minlength=8 * groups).reshape(8, groups) * used
    return _GroupUses(n[4], n[1] + n[5], n[6], n[3] + n[7], (n[2] + n[3] + n[6] + n[7]) > 0)


def _cell_totals(cell: np.ndarray, per_group: np.ndarray, cells: int) -> np.ndarray:
    """Sums of ``per_group`` over each (row, copy) cell's groups."""
    return np.bincount(cell, weights=per_group, minlength=cells).astype(np.int64)


def overfull_bank(cs: list[SiteCells], banking: Banking, model: ir.PortModel, row: int,
                  ii: int, static: frozenset[SiteKey], kept: frozenset[int] = frozenset()
                  ) -> BankUse | None:
    """The first (copy, bank) whose port uses in step ``row`` do not fit at ``ii``.  A
    dynamic use takes a port of every bank of its copy (of its class, with ``kept``
    digits: :func:`.ports.by_class`): it is kept once per layer and joins each bank's own
    uses when that bank is judged (reads of one address count once, whichever sites
    make them)."""
    cs, grid = by_class(cs, banking, kept)
    addresses, _ = _addresses(cs, banking.scheme.shape)
    own: dict[tuple[int, int], list[tuple[int, ConflictAccess, int]]] = {}
    roaming: dict[int, list[tuple[int, ConflictAccess, int]]] = {}
    for order, (i, lane, copy, targets) in enumerate(_port_uses(cs, grid, static)):
        c = cs[i]
        if not c.mask[row, lane]:
            continue
        address = tuple(None if x is None else int(x[row, lane]) for x in c.index)
        use = (order, ConflictAccess(c.access.kind, c.access.coord, address),
               int(addresses[i][row, lane]))
        layer = int(copy[row, lane])
        if targets is None:
            own.setdefault((layer, int(c.bank[row, lane])), []).append(use)
        else:
            roaming.setdefault(layer, []).append(use)
    shared = {layer: ({a for _, item, a in uses if item.kind == "read"},
                      sum(item.kind == "write" for _, item, _ in uses))
              for layer, uses in roaming.items()}
    slots = set(own) | {(layer, bank) for layer in roaming for bank in range(grid.banks)}
    for copy, bank in sorted(slots):
        mine = own.get((copy, bank), [])
        reads_roaming, writes_roaming = shared.get(copy, (set(), 0))
        reads = len({a for _, item, a in mine if item.kind == "read"} | reads_roaming)
        writes = sum(item.kind == "write" for _, item, _ in mine) + writes_roaming
        if not model.fits(reads, writes, ii):
            uses = sorted(mine + roaming.get(copy, []), key=lambda u: u[0])
            shown = tuple(dict.fromkeys(item for _, item, _ in uses))
            return BankUse(*grid.original(copy, bank), reads, writes, shown)
    return None


def sites_summary(cs: Iterable[SiteCells], static: frozenset[SiteKey]
                  ) -> Mapping[ir.Access, tuple[int, int]]:
    """Per access: (static lanes, dynamic lanes) that executed."""
    out: dict[ir.Access, tuple[int, int]] = {}
    for c in cs:
        ran = c.mask.any(axis=0)
        if not ran.any():
            continue
        fixed = int(np.count_nonzero(ran & _fixed_lanes(c, static)))
        s, d = out.get(c.access, (0, 0))
        out[c.access] = (s + fixed, d + int(np.count_nonzero(ran)) - fixed)
    return out

