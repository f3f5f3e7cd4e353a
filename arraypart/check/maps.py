"""Map check: a banking's (bank, offset) must be a bijection from the array's elements
into its slots.

With ``N`` banks of depth ``W`` the slot of element x is ``bank(x) * W + offset(x)``;
the map is valid iff ``0 <= bank(x) < N``, ``0 <= offset(x) < W`` for every x and no
two elements share a slot.  (Copies replicate the whole map, so they need no check.)
"""

from __future__ import annotations

import numpy as np

from .. import expr as E
from .. import ir
from ..scheme import Banking, Scheme, index_var
from .report import MapCheck

# Arrays larger than this are checked on a sample: the full maps cost two int64 words
# per element (256 MiB at 2^24 elements), more than a linter should allocate.
MAP_FULL_LIMIT = 1 << 24
# Elements whose maps are evaluated at once by the full check (16 MiB of int64 maps).
MAP_SLAB = 1 << 20
# Elements evaluated for a sampled check: a few hundred milliseconds of numpy work.
MAP_SAMPLE = 1 << 20
# Fixed seed: the sample, hence the verdict, is the same on every run.
MAP_SAMPLE_SEED = 2024


def check_map(array: ir.Array, banking: Banking) -> MapCheck:
    """Check ``banking``'s map over every element (or a fixed sample of a large array)."""
    scheme = banking.scheme
    if array.size <= MAP_FULL_LIMIT:
        problem = _streamed_problem(scheme)
        scope = f"all {array.size} elements"
    else:
        linear, bank, offset = _sampled_maps(scheme)
        problem = _problem(scheme, linear, bank, offset)
        scope = f"a sample of {bank.size} of {array.size} elements (array too large)"
    if problem:
        return MapCheck(array.name, False, f"{scheme.describe()}: {problem}")
    return MapCheck(array.name, True,
                    f"{scheme.describe()}: bijective onto {scheme.banks} bank(s) x "
                    f"{scheme.bank_depth} words, {scope} checked")


def _problem(scheme: Scheme, linear: np.ndarray, bank: np.ndarray,
             offset: np.ndarray) -> str:
    """What is wrong with the (bank, offset) of the distinct elements whose row-major
    indices are ``linear`` ("" if nothing)."""
    depth = scheme.bank_depth

    def element(i: int) -> str:
        return str(tuple(int(x) for x in np.unravel_index(int(linear[i]), scheme.shape)))

    bad = np.flatnonzero((bank < 0) | (bank >= scheme.banks))
    if bad.size:
        i = int(bad[0])
        return f"element {element(i)} maps to bank {int(bank[i])}, outside 0..{scheme.banks - 1}"
    bad = np.flatnonzero((offset < 0) | (offset >= depth))
    if bad.size:
        i = int(bad[0])
        return f"element {element(i)} maps to offset {int(offset[i])}, outside 0..{depth - 1}"
    slot = bank * depth + offset
    order = np.argsort(slot, kind="stable")
    same = np.flatnonzero(slot[order][1:] == slot[order][:-1])
    if same.size:
        first, second = int(order[same[0]]), int(order[same[0] + 1])
        return (f"elements {element(first)} and {element(second)} share bank "
                f"{int(bank[first])} offset {int(offset[first])}")
    return ""


def _streamed_problem(scheme: Scheme) -> str:
    """:func:`_problem` over every element, evaluated a slab of :data:`MAP_SLAB`
    elements at a time with one byte per slot of memory besides: the first element
    whose bank, then whose offset, is out of range, else the pair of elements that
    share the lowest shared slot (the same answer as :func:`_problem` on the whole
    maps)."""
    depth = scheme.bank_depth
    seen = np.zeros(scheme.banks * depth, dtype=bool)
    bad_bank = bad_offset = clash = None
    start = 0
    for rows in scheme.slabs(MAP_SLAB):
        bank, offset = (m.ravel() for m in scheme.maps(rows))
        linear = np.arange(start, start + bank.size, dtype=np.int64)
        start += bank.size
        wrong = np.flatnonzero((bank < 0) | (bank >= scheme.banks))
        if wrong.size and bad_bank is None:
            bad_bank = _problem(scheme, linear[wrong[:1]], bank[wrong[:1]], offset[wrong[:1]])
        wrong = np.flatnonzero((offset < 0) | (offset >= depth))
        if wrong.size and bad_offset is None:
            bad_offset = _problem(scheme, linear[wrong[:1]], bank[wrong[:1]],
                                  offset[wrong[:1]])
        if bad_bank is not None or bad_offset is not None:
            continue
        slot = np.sort(bank * depth + offset)
        shared = np.concatenate([slot[1:][slot[1:] == slot[:-1]], slot[seen[slot]]])
        if shared.size:
            clash = int(shared.min()) if clash is None else min(clash, int(shared.min()))
        seen[slot] = True
    if bad_bank is not None or bad_offset is not None:
        return bad_bank or bad_offset
    if clash is None:
        return ""
    first: list[int] = []
    start = 0
    for rows in scheme.slabs(MAP_SLAB):
        bank, offset = (m.ravel() for m in scheme.maps(rows))
        first += [start + int(i) for i in np.flatnonzero(bank * depth + offset == clash)]
        start += bank.size
        if len(first) >= 2:
            break
    pair = np.array(first[:2], dtype=np.int64)
    bank, offset = divmod(clash, depth)
    return _problem(scheme, pair, np.full(2, bank), np.full(2, offset))


def _sampled_maps(scheme: Scheme) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(row-major index, bank, offset) of up to MAP_SAMPLE distinct elements drawn with
    a fixed seed."""
    rng = np.random.default_rng(MAP_SAMPLE_SEED)
    linear = np.unique(rng.integers(0, scheme.size, MAP_SAMPLE, dtype=np.int64))
    index = np.unravel_index(linear, scheme.shape)
    env = {index_var(d): x.astype(np.int64) for d, x in enumerate(index)}
    full = np.zeros(linear.size, np.int64)
    return (linear, full + E.evaluate(scheme.bank_expr(), env),
            full + E.evaluate(scheme.offset_expr(), env))
