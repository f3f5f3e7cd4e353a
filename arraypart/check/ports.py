"""Port counting: per step, per copy and bank, the least II at which a bank keeps up.

For one array in one run (a table of ``rows`` steps), every executed access instance
becomes a key

    key = ((copy * banks + bank) * 2 + kind) * 2**shift + address     (kind: 0 read, 1 write)

where ``address`` < 2**shift is the row-major index of the element over the index
ranges seen (so distinct elements get distinct keys, in bounds or not), one range
per epoch (:mod:`.epochs`: a read after a write that may alias it is a new access).
Sorting each row's keys groups them by (copy, bank); within a group, reads = distinct read
keys (a broadcast is one access), writes = all write keys.  The checker gives each
access as the ports see it (``ir.Array.counted_index``: the window reads of an
``array_stencil`` one element, a reshaped array's accesses their words).  A write goes
to every copy; a read of reference
r to copy ``Banking.copy_expr(r)`` evaluated at the instance's own iterator values (a
constant, or a function of the unrolled iterators: each lane its copy).  An irregular
dimension (an index of None) may be any index there.  An access whose bank formula
reads only its regular dimensions (``A[i][idx[j]]`` banked on dimension 0) has a bank,
and an address of its own that no other access shares.  Any other irregular access may
hit any bank of its copy: it is added to every bank of that copy, in the worst case on
an element not yet read, so a bank holding ``e`` elements gets

    reads = min(regular distinct reads + irregular reads, max(e, regular distinct reads))

(a fully partitioned array's register is read once however many lanes pick it).  The step's need is the
largest over its groups of ``min { ii >= 1 : PortModel.fits(reads, writes, ii) }``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from math import prod

import numpy as np

from .. import expr as E
from .. import ir
from ..scheme import Banking, index_var
from .frames import Frame, values
from .maps import MAP_FULL_LIMIT
from .report import ConflictAccess

# Marks a cell whose lane does not execute; sorts after every real key.
UNUSED = np.iinfo(np.int64).max


@dataclass(frozen=True, eq=False)
class Cells:
    """The instances of one access in one run: ``mask`` ``(rows, lanes)``, ``index``
    per dimension (None: irregular), ``bank`` (None when irregular), ``copy`` (the
    copy a read instance reads), broadcastable;
    ``ranges[d]``: (min, max) of the executed indices of dimension d (None when the
    dimension is irregular or no lane runs); ``full``: every lane runs; ``epoch``:
    per lane, the writes of the array before it in the step (:mod:`.epochs`), whose
    addresses are its own (:func:`element_addresses`); ``owner``: the copy of a called
    function whose own array it accesses (``ir.Access.per_call``: its call, and its
    lanes' offsets of the call's iterators from the first lane's), a memory apart from
    another copy's."""

    access: ir.Access
    mask: np.ndarray
    index: tuple[np.ndarray | None, ...]
    bank: np.ndarray | None
    ranges: tuple[tuple[int, int] | None, ...]
    full: bool
    copy: np.ndarray
    layers: tuple[np.ndarray, ...] | None = None
    epoch: np.ndarray | int = 0
    owner: tuple = ()

    @property
    def count(self) -> int:
        return self.mask.size if self.full else int(np.count_nonzero(self.mask))

    def masked(self, mask: np.ndarray) -> "Cells":
        """These cells where ``mask`` holds (indices and banks are known in every
        cell of the frame, run or not)."""
        full = bool(mask.all())
        return replace(self, mask=mask, full=full,
                       ranges=tuple(_index_range(x, mask, full) for x in self.index))


def cells(access: ir.Access, frame: Frame, banking: Banking) -> Cells:
    index = tuple(None if e is None else values(frame, e) for e in access.index)
    bank = None
    if all(index[d] is not None for d in banking.scheme.bank_dims()):
        env = {index_var(d): x for d, x in enumerate(index) if x is not None}
        bank = np.broadcast_to(E.evaluate(banking.scheme.bank_expr(), env), frame.mask.shape)
    full = bool(frame.mask.all())
    ranges = tuple(_index_range(x, frame.mask, full) for x in index)
    return Cells(access, frame.mask, index, bank, ranges, full,
                 read_copies(access, frame, banking))


def read_either(a, b):
    """One read's cells (:class:`Cells` or the rule's site cells) where ``a`` or ``b``
    runs: two reads of one element in one step and lane (``ir.Access.same_value``);
    None when they read different copies, which the ports count apart."""
    shape = a.mask.shape
    if not np.array_equal(np.broadcast_to(a.copy, shape), np.broadcast_to(b.copy, shape)):
        return None
    mask = a.mask | b.mask
    if not isinstance(a, Cells):
        return replace(a, mask=mask)
    full = bool(mask.all())
    return replace(a, mask=mask, full=full,
                   ranges=tuple(_index_range(x, mask, full) for x in a.index))


def read_copies(access: ir.Access, frame: Frame, banking: Banking) -> np.ndarray:
    """The copy each instance of ``access`` reads, ``(rows, lanes)``: its reference's
    copy expression at the frame's iterator values."""
    return values(frame, banking.copy_expr(access.ref_id))


def _index_range(x: np.ndarray | None, mask: np.ndarray,
                 full: bool) -> tuple[int, int] | None:
    if x is None or x.size == 0 or not (full or mask.any()):
        return None
    seen = x if full else x[mask]
    return int(seen.min()), int(seen.max())


def copies_of(c: Cells, banking: Banking) -> tuple[np.ndarray, ...]:
    """The copies the instances of ``c`` use, one ``(rows, lanes)`` layer each: a write
    every copy, a read the copy each instance reads (the layers :func:`by_class` gave
    it, when it did)."""
    if c.layers is not None:
        return c.layers
    if c.access.kind == "write":
        return tuple(np.broadcast_to(np.int64(k), c.mask.shape) for k in range(banking.copies))
    return (c.copy,)


@dataclass(frozen=True)
class Grid:
    """The (layer, bank) grid the counts run over: ``copies`` layers of ``banks``
    banks.  Without classes a layer is a copy and a bank the scheme's; with ``count``
    classes (:func:`by_class`) layer ``copy * count + class`` holds the class's banks,
    numbered row-major over the digits outside it."""

    banking: Banking
    banks: int
    copies: int
    count: int = 1
    kept: tuple[tuple[int, int, int], ...] = ()  # (d, factor, stride) of class digits
    free: tuple[tuple[int, int, int], ...] = ()  # the same of the other digits

    def layers(self, c) -> tuple[np.ndarray, ...]:
        return copies_of(c, self.banking)

    def original(self, layer, bank):
        """The (copy, bank) of the scheme that ``(layer, bank)`` of this grid is (ints
        or arrays alike)."""
        if self.count == 1:
            return layer, bank
        copy, klass = divmod(layer, self.count)
        return copy, compose_digits(klass, self.kept) + compose_digits(bank, self.free)


def compose_digits(index, digits: tuple[tuple[int, int, int], ...]):
    """The scheme bank part of ``index`` (an int or an array), read row-major over the
    factors of ``digits`` (``(d, factor, stride)``): sum of digit * stride."""
    bank = 0
    for _, factor, stride in reversed(digits):
        index, digit = divmod(index, factor)
        bank = bank + digit * stride
    return bank


def _row_major(values: list, factors: list[int]):
    out = 0
    for value, factor in zip(values, factors):
        out = out * factor + value
    return out


def by_class(cs: list, banking: Banking, dims: frozenset[int]) -> tuple[list, Grid]:
    """Under a per_dim scheme, ``cs`` (:class:`Cells` or the rule's site cells) over the
    classes of the digits of ``dims``: an access whose index is known in those
    dimensions reaches only the banks with its digits there (Vitis selects the
    sub-array of those indices), so each class counts as a copy of its own.  Each
    cell's bank is renumbered within its class, its layers become ``copy * count +
    class``; the grid is unchanged when ``dims`` holds no partitioned dimension or some
    cell lacks a class digit."""
    plain = Grid(banking, banking.scheme.banks, banking.copies)
    digits = banking.scheme.bank_digits()
    kept = [(d, f, s) for d, f, s, _ in digits if d in dims]
    free = [(d, f, s) for d, f, s, _ in digits if d not in dims]
    if not kept or any(c.index[d] is None for c in cs for d, _, _ in kept):
        return cs, plain
    count = prod(f for _, f, _ in kept)
    grid = Grid(banking, banking.scheme.banks // count, banking.copies * count, count,
                tuple(kept), tuple(free))
    exprs = {d: e for d, _, _, e in digits}
    out = []
    for c in cs:
        value = {d: np.broadcast_to(E.evaluate(exprs[d], {index_var(d): c.index[d]}),
                                    c.mask.shape)
                 for d, _, _ in kept + free if c.index[d] is not None}
        klass = _row_major([value[d] for d, _, _ in kept], [f for _, f, _ in kept])
        bank = None if c.bank is None else np.broadcast_to(
            _row_major([value[d] for d, _, _ in free], [f for _, f, _ in free]),
            c.mask.shape)
        layers = tuple(layer * count + klass for layer in copies_of(c, banking))
        out.append(replace(c, bank=bank, layers=layers))
    return out, grid


def min_ii(model: ir.PortModel, reads: int, writes: int) -> int:
    """Least ii >= 1 with ``model.fits(reads, writes, ii)`` (it is monotone in ii)."""
    if writes and not model.writable:
        raise ValueError(f"{model.name} cannot be written")
    ii = 1
    while not model.fits(reads, writes, ii):
        ii += 1
    return ii


def min_iis(model: ir.PortModel, reads: np.ndarray, writes: np.ndarray) -> np.ndarray:
    """:func:`min_ii` of each (reads, writes) pair, computed once per distinct pair."""
    width = int(writes.max(initial=0)) + 1
    keys = reads * width + writes
    present = np.flatnonzero(np.bincount(keys)) if keys.size else keys
    table = np.ones(int(keys.max(initial=0)) + 1, np.int64)
    for k in present.tolist():
        table[k] = min_ii(model, k // width, k % width)
    return table[keys]


def irregular_counts(cs: list[Cells], grid: Grid, rows: int):
    """``(reads, writes)`` ``(rows, layers)`` of the irregular accesses per layer of
    ``grid`` (a copy, or a copy's class)."""
    reads = np.zeros((rows, grid.copies), np.int64)
    writes = np.zeros((rows, grid.copies), np.int64)
    for c in cs:
        counts = writes if c.access.kind == "write" else reads
        for layer in grid.layers(c):
            for copy in range(grid.copies):
                counts[:, copy] += np.count_nonzero(c.mask & (layer == copy), axis=1)
    return reads, writes


def _irregular_knows(cs: list[Cells], banking: Banking) -> frozenset[int]:
    """The dimensions every irregular access of ``cs`` knows (``Scheme.known_digits``;
    the proof reads such a lane so too)."""
    return banking.scheme.known_digits(c.index for c in cs if c.bank is None)


def bank_sizes(banking: Banking) -> np.ndarray:
    """Elements each bank holds, from the scheme's bank map; above MAP_FULL_LIMIT
    elements (no map is materialized) the bound ``bank_depth``, which only makes the
    irregular-read cap less generous, never optimistic."""
    scheme = banking.scheme
    if scheme.size > MAP_FULL_LIMIT:
        return np.full(scheme.banks, scheme.bank_depth, dtype=np.int64)
    return np.bincount(scheme.maps()[0].ravel(), minlength=scheme.banks)


def capped_reads(regular: np.ndarray | int, irregular: np.ndarray | int,
                 elements: np.ndarray | int) -> np.ndarray:
    """Distinct reads of a bank of ``elements`` elements (module doc)."""
    return np.minimum(regular + irregular, np.maximum(elements, regular))


def row_needs(cs: list[Cells], banking: Banking, model: ir.PortModel, rows: int,
              sizes: np.ndarray | None) -> np.ndarray:
    """The least II each of ``rows`` steps needs for this array (module doc);
    ``sizes``: :func:`bank_sizes`, needed only when some access is irregular."""
    cs, grid = by_class(cs, banking, _irregular_knows(cs, banking))
    regular = [c for c in cs if c.bank is not None]
    irr_reads, irr_writes = irregular_counts([c for c in cs if c.bank is None], grid, rows)
    need = np.ones(rows, np.int64)
    if irr_reads.any() or irr_writes.any():
        largest = int(sizes.max())
        for copy in range(grid.copies):
            reads = capped_reads(0, irr_reads[:, copy], largest)
            need = np.maximum(need, min_iis(model, reads, irr_writes[:, copy]))
    if regular and rows:
        need = np.maximum(need, _regular_needs(regular, grid, model, rows,
                                               (irr_reads, irr_writes, sizes)))
    return need


def transfer_counts(cs: list[Cells], banking: Banking, rows: int,
                    sizes: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Per step, the distinct reads and the writes of a one-memory array (one bank,
    one copy: an off-chip array, whose bundle's channels its counts share), counted as
    :func:`row_needs` counts them."""
    assert banking.scheme.banks == 1 and banking.copies == 1, "a banked off-chip array"
    grid = Grid(banking, 1, 1)
    regular = [c for c in cs if c.bank is not None]
    irr_reads, irr_writes = irregular_counts([c for c in cs if c.bank is None], grid, rows)
    reads, writes = np.zeros(rows, np.int64), np.zeros(rows, np.int64)
    if regular and rows:
        key, shift = _key_matrix(regular, grid, rows)
        groups = key_groups(key, shift, {c.access.kind for c in regular})
        np.add.at(reads, groups.row, groups.reads)
        np.add.at(writes, groups.row, groups.writes)
    if irr_reads.any():
        reads = capped_reads(reads, irr_reads[:, 0], int(sizes.max()))
    return reads, writes + irr_writes[:, 0]


def row_accesses(cs: list[Cells], row: int) -> list[ConflictAccess]:
    """The accesses ``cs`` make in step ``row``, for a conflict's listing."""
    return [ConflictAccess(c.access.kind, c.access.coord, address)
            for c in cs for _, address, _ in _instances(c, row)]


def _address_radix(cs: list[Cells], ndim: int) -> tuple[list[int], list[int]]:
    """Per dimension, the smallest index seen and the extent of the indices seen."""
    lows, extents = [], []
    for d in range(ndim):
        seen = [c.ranges[d] for c in cs if c.ranges[d] is not None]
        lo = min((r[0] for r in seen), default=0)
        hi = max((r[1] for r in seen), default=0)
        lows.append(lo)
        extents.append(hi - lo + 1)
    return lows, extents


def element_addresses(cs, lows: list[int], extents: list[int]) -> tuple[list, int]:
    """Per cell (its ``index``, ``mask`` and ``epoch``), its ``(rows, lanes)`` row-major
    address over the box of indices from ``lows`` of ``extents``, one box per epoch
    (reads of one element with a write that may alias it between are two accesses,
    :mod:`.epochs`); a cell with an irregular dimension gets one address of its own
    per lane, past the boxes, so it never merges with another access.  Also the size
    of the address space."""
    strides = [prod(extents[d + 1:]) for d in range(len(extents))]
    box = prod(extents)
    out, spare = [], box * (1 + max((int(np.max(c.epoch)) for c in cs), default=0))
    for c in cs:
        if all(x is not None for x in c.index):
            out.append(sum((x - lo) * s for x, lo, s in zip(c.index, lows, strides))
                       + c.epoch * box)
        else:
            lanes = c.mask.shape[1]
            out.append(np.broadcast_to(np.arange(spare, spare + lanes), c.mask.shape))
            spare += lanes
    return out, spare


def _key_matrix(cs: list[Cells], grid: Grid, rows: int) -> tuple[np.ndarray, int]:
    """Each row's keys (module doc, a layer of ``grid`` for a copy), with ``span``
    rounded up to ``2**shift`` so that the kind and the group are bit fields; returns
    the keys and ``shift``."""
    lows, extents = _address_radix(cs, len(grid.banking.scheme.shape))
    addresses, spare = element_addresses(cs, lows, extents)
    shift = max(0, (spare - 1).bit_length())
    banks = grid.banks
    if ((banks * grid.copies * 2 + 1) << shift) >= UNUSED:
        raise ValueError("address keys overflow int64")
    columns = sum(c.mask.shape[1] * len(grid.layers(c)) for c in cs)
    key = np.empty((rows, columns), np.int64)
    col = 0
    for c, address in zip(cs, addresses):
        base = ((c.bank * 2 + (c.access.kind == "write")) << shift) + address
        width = c.mask.shape[1]
        for copy in grid.layers(c):
            value = base + ((copy * banks * 2) << shift)
            key[:, col:col + width] = value if c.full else np.where(c.mask, value, UNUSED)
            col += width
    return key, shift


def _regular_needs(cs, grid: Grid, model, rows, irregular) -> np.ndarray:
    key, shift = _key_matrix(cs, grid, rows)
    groups = key_groups(key, shift, {c.access.kind for c in cs})
    reads, writes = groups.reads, groups.writes
    irr_reads, irr_writes, sizes = irregular
    if irr_reads.any() or irr_writes.any():
        copy = np.where(groups.used, groups.group // grid.banks, 0)
        bank = np.where(groups.used, groups.group % grid.banks, 0)
        reads = capped_reads(reads, irr_reads[groups.row, copy],
                             sizes[grid.original(copy, bank)[1]])
        writes = writes + irr_writes[groups.row, copy]
    return groups.row_max(min_iis(model, reads, writes))


@dataclass(frozen=True, eq=False)
class KeyGroups:
    """A key matrix sorted per row and cut into (copy, bank) groups: per group its
    row, its ``group`` number (copy * banks + bank), whether it is a real group
    (``used``), and its distinct reads and its writes."""

    row: np.ndarray
    group: np.ndarray
    used: np.ndarray
    reads: np.ndarray
    writes: np.ndarray
    row_starts: np.ndarray

    def row_max(self, per_group: np.ndarray) -> np.ndarray:
        return np.maximum.reduceat(per_group, self.row_starts)


def key_groups(key: np.ndarray, shift: int, kinds: set[str]) -> KeyGroups:
    """``key`` (module doc's layout: kind at bit ``shift``, the group above it; UNUSED
    for lanes that do not run) sorted in place per row and cut into groups."""
    columns = key.shape[1]
    key.sort(axis=1)
    flat = key.ravel()
    group = flat >> (shift + 1)
    new_group = np.empty(flat.size, bool)
    new_group[0] = True
    np.not_equal(group[1:], group[:-1], out=new_group[1:])
    new_group[::columns] = True
    starts = np.flatnonzero(new_group)
    reads, writes = _group_counts(kinds, flat, starts, columns, shift)
    used = flat[starts] != UNUSED
    return KeyGroups(starts // columns, group[starts], used, reads * used, writes * used,
                     np.flatnonzero(starts % columns == 0))


def _group_counts(kinds, flat, starts, columns, shift) -> tuple[np.ndarray, np.ndarray]:
    """Per group: distinct read keys and write keys (a group's reads sort first)."""
    new_key = np.empty(flat.size, bool)
    new_key[0] = True
    np.not_equal(flat[1:], flat[:-1], out=new_key[1:])
    new_key[::columns] = True
    if kinds == {"read"}:
        return np.add.reduceat(new_key, starts, dtype=np.int64), np.zeros(starts.size, np.int64)
    sizes = np.diff(np.append(starts, flat.size))
    if kinds == {"write"}:
        return np.zeros(starts.size, np.int64), sizes
    is_write = ((flat >> shift) & 1).astype(bool)
    reads = np.add.reduceat(new_key & ~is_write, starts, dtype=np.int64)
    writes = np.add.reduceat(is_write, starts, dtype=np.int64)
    return reads, writes


# ---------------------------------------------------------------- one step in detail


@dataclass(frozen=True)
class BankUse:
    """What one bank of one copy serves in one step."""

    copy: int
    bank: int
    reads: int
    writes: int
    accesses: tuple[ConflictAccess, ...]


def _instances(c: Cells, row: int):
    """(lane, address, bank) of each executed lane of ``c`` in ``row``."""
    for lane in np.flatnonzero(c.mask[row]).tolist():
        address = tuple(None if x is None else int(x[row, lane]) for x in c.index)
        yield lane, address, (None if c.bank is None else int(c.bank[row, lane]))


def first_overfull_bank(cs: list[Cells], banking: Banking, model: ir.PortModel,
                        row: int, ii: int, sizes: np.ndarray | None) -> BankUse | None:
    """The first (copy, bank) whose accesses in step ``row`` do not fit at ``ii`` (an
    irregular access in every bank of its layer: :func:`by_class`; reads of one
    address count once per epoch, ``Cells.epoch``)."""
    cs, grid = by_class(cs, banking, _irregular_knows(cs, banking))
    slots: dict[tuple[int, int], list] = {}
    anywhere: dict[int, list] = {c: [] for c in range(grid.copies)}
    for c in cs:
        epochs = np.broadcast_to(c.epoch, c.mask.shape[1:])
        for lane, address, bank in _instances(c, row):
            item = (ConflictAccess(c.access.kind, c.access.coord, address), int(epochs[lane]))
            for layer in copies_of(c, banking):
                copy = int(layer[row, lane])
                target = anywhere[copy] if bank is None else slots.setdefault((copy, bank), [])
                target.append(item)
    for copy, bank in _candidate_banks(slots, anywhere, grid, sizes):
        regular = slots.get((copy, bank), [])
        items = list(dict.fromkeys(a for a, _ in regular + anywhere[copy]))
        reads = len({(epoch, a.address) if None not in a.address else k
                     for k, (a, epoch) in enumerate(regular) if a.kind == "read"})
        if anywhere[copy]:
            reads = int(capped_reads(reads, sum(a.kind == "read" for a, _ in anywhere[copy]),
                                     int(sizes[grid.original(copy, bank)[1]])))
        writes = sum(a.kind == "write" for a, _ in regular + anywhere[copy])
        if not model.fits(reads, writes, ii):
            return BankUse(*grid.original(copy, bank), reads, writes, tuple(items))
    return None


def _candidate_banks(slots, anywhere, grid: Grid, sizes) -> list[tuple[int, int]]:
    """Banks hit by regular accesses, plus, per layer with irregular accesses, the
    largest bank no regular access hits (the lowest such); in (layer, bank) order."""
    found = set(slots)
    for copy, items in anywhere.items():
        if items:
            hit = {b for c, b in slots if c == copy}
            free = [b for b in range(grid.banks) if b not in hit]
            if free:
                found.add((copy, max(free, key=lambda b: (
                    sizes[grid.original(copy, b)[1]], -b))))
    return sorted(found)
