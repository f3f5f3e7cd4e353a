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
- identical reads of one element in one step count once (equal keys below);
- an array whose every bank holds one element is registers: no port limit.

The bank of a site needs only the index dimensions its scheme's bank formula uses, so
``A[i][idx[j]]`` under ``cyclic`` on dimension 0 alone still has a bank.  A step's
need is then computed like the ideal model's (:mod:`.ports`): every port use becomes a
key ``((copy*banks + bank)*2 + kind) << shift | address``, a row's sorted keys group
by (copy, bank), distinct read keys and all write keys are counted, and the need is
the least II at which the bank's ports serve them.  Addresses that are unknown (an
irregular dimension) get keys of their own, so they never merge with another access.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping

import numpy as np

from .. import expr as E
from .. import ir
from ..scheme import Banking, index_var
from .frames import Frame, values
from .ports import UNUSED, BankUse, copies_of, needs_from_keys, read_copies
from .report import ConflictAccess

#: Keys built at once per block of rows (rows x port uses), about 32 MB of int64.
BLOCK_KEYS = 1 << 22

SiteKey = tuple[int, int]  # (id of the ir.Access, lane column)


def bank_dims(banking: Banking) -> frozenset[int]:
    """The index dimensions the bank formula reads."""
    return frozenset(int(v[1:]) for v in E.variables(banking.scheme.bank_expr()))


@dataclass(frozen=True, eq=False)
class SiteCells:
    """The instances of one access in one run under the rule: ``bank`` is None when a
    dimension the bank formula reads is irregular; ``address`` is the row-major
    element index (None when some dimension is irregular); ``copy`` the copy a read
    instance reads (:func:`.ports.read_copies`)."""

    access: ir.Access
    mask: np.ndarray
    index: tuple[np.ndarray | None, ...]
    bank: np.ndarray | None
    copy: np.ndarray

    @property
    def count(self) -> int:
        return int(np.count_nonzero(self.mask))

    @property
    def ranges(self) -> tuple[tuple[int, int] | None, ...]:
        """Per dimension, (min, max) of the executed indices (None: irregular/none)."""
        run = self.mask.any()
        return tuple(None if x is None or not run else
                     (int(x[self.mask].min()), int(x[self.mask].max())) for x in self.index)


def site_cells(access: ir.Access, frame: Frame, banking: Banking) -> SiteCells:
    index = tuple(None if e is None else values(frame, e) for e in access.index)
    bank = None
    if all(index[d] is not None for d in bank_dims(banking)):
        env = {index_var(d): x for d, x in enumerate(index) if x is not None}
        bank = np.broadcast_to(E.evaluate(banking.scheme.bank_expr(), env), frame.mask.shape)
    return SiteCells(access, frame.mask, index, bank, read_copies(access, frame, banking))


@dataclass
class BankSpan:
    """Smallest and largest bank each site took so far (over every chunk of a run)."""

    low: dict[SiteKey, int] = field(default_factory=dict)
    high: dict[SiteKey, int] = field(default_factory=dict)
    unknown: set[SiteKey] = field(default_factory=set)

    def add(self, c: SiteCells) -> None:
        for lane in range(c.mask.shape[1]):
            key = (id(c.access), lane)
            rows = c.mask[:, lane]
            if not rows.any():
                continue
            if c.bank is None:
                self.unknown.add(key)
                continue
            seen = c.bank[:, lane][rows]
            lo, hi = int(seen.min()), int(seen.max())
            self.low[key] = min(lo, self.low.get(key, lo))
            self.high[key] = max(hi, self.high.get(key, hi))

    def static(self) -> frozenset[SiteKey]:
        return frozenset(k for k, lo in self.low.items()
                         if k not in self.unknown and self.high[k] == lo)


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
    strides = [int(np.prod(extents[d + 1:])) for d in range(len(shape))]
    regular_space = int(np.prod(extents))
    out, spare = [], regular_space
    for c in cs:
        if all(x is not None for x in c.index):
            out.append(sum((x - lo) * s for x, lo, s in zip(c.index, lows, strides)))
        else:
            lanes = c.mask.shape[1]
            out.append(np.broadcast_to(np.arange(spare, spare + lanes), c.mask.shape))
            spare += lanes
    return out, spare


def _port_uses(cs: list[SiteCells], banking: Banking, static: frozenset[SiteKey]):
    """Per (cell, lane, copy layer: ``(rows, lanes)`` copies): None for a static site
    (a port of its own bank), else the banks it takes a port of (all of them)."""
    banks = banking.scheme.banks
    for i, c in enumerate(cs):
        for lane in range(c.mask.shape[1]):
            fixed = c.bank is not None and (id(c.access), lane) in static
            for copy in copies_of(c, banking):
                targets = None if fixed else range(banks)
                yield i, lane, copy, targets


def rule_needs(cs: list[SiteCells], banking: Banking, model: ir.PortModel, rows: int,
               static: frozenset[SiteKey],
               checkpoint: Callable[[], None] | None = None) -> np.ndarray:
    """The least II each of ``rows`` steps needs for this array under the rule.
    ``checkpoint`` runs before each lane's columns: a rotating lane takes a column per
    bank, so one row of a thousand lanes over a thousand banks is seconds of work."""
    if banking.scheme.registers or not cs or not rows:
        return np.ones(rows, np.int64)
    addresses, space = _addresses(cs, banking.scheme.shape)
    shift = max(1, (space - 1).bit_length())
    uses = list(_port_uses(cs, banking, static))
    columns = sum(1 if t is None else len(t) for *_, t in uses)
    banks = banking.scheme.banks
    kinds = {c.access.kind for c in cs}
    need = np.ones(rows, np.int64)
    block = max(1, BLOCK_KEYS // max(1, columns))
    for lo in range(0, rows, block):
        hi = min(rows, lo + block)
        key = np.empty((hi - lo, columns), np.int64)
        col = 0
        for i, lane, copy, targets in uses:
            if checkpoint is not None:
                checkpoint()
            c = cs[i]
            mask = c.mask[lo:hi, lane]
            address = addresses[i][lo:hi, lane]
            kind = int(c.access.kind == "write")
            bank_columns = ([c.bank[lo:hi, lane]] if targets is None
                            else [np.int64(b) for b in targets])
            for bank in bank_columns:
                value = (((copy[lo:hi, lane] * banks + bank) * 2 + kind) << shift) + address
                key[:, col] = np.where(mask, value, UNUSED)
                col += 1
        need[lo:hi] = needs_from_keys(key, shift, kinds, model)
    return need


def overfull_bank(cs: list[SiteCells], banking: Banking, model: ir.PortModel, row: int,
                  ii: int, static: frozenset[SiteKey]) -> BankUse | None:
    """The first (copy, bank) whose port uses in step ``row`` do not fit at ``ii``."""
    slots: dict[tuple[int, int], list[tuple[ConflictAccess, object]]] = {}
    addresses, _ = _addresses(cs, banking.scheme.shape)
    for i, lane, copy, targets in _port_uses(cs, banking, static):
        c = cs[i]
        if not c.mask[row, lane]:
            continue
        address = tuple(None if x is None else int(x[row, lane]) for x in c.index)
        item = ConflictAccess(c.access.kind, c.access.coord, address)
        banks: Iterable[int] = [int(c.bank[row, lane])] if targets is None else targets
        for bank in banks:
            slots.setdefault((int(copy[row, lane]), bank), []).append((item, int(addresses[i][row, lane])))
    for (copy, bank), items in sorted(slots.items()):
        reads = len({a for item, a in items if item.kind == "read"})
        writes = sum(item.kind == "write" for item, _ in items)
        if not model.fits(reads, writes, ii):
            shown = tuple(dict.fromkeys(item for item, _ in items))
            return BankUse(copy, bank, reads, writes, shown)
    return None


def sites_summary(cs: Iterable[SiteCells], static: frozenset[SiteKey]
                  ) -> Mapping[ir.Access, tuple[int, int]]:
    """Per access: (static lanes, dynamic lanes) that executed."""
    out: dict[ir.Access, tuple[int, int]] = {}
    for c in cs:
        for lane in range(c.mask.shape[1]):
            if not c.mask[:, lane].any():
                continue
            s, d = out.get(c.access, (0, 0))
            fixed = c.bank is not None and (id(c.access), lane) in static
            out[c.access] = (s + fixed, d + (not fixed))
    return out

