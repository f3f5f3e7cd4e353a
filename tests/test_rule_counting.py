"""The scheduling rule's port count (check/rule.py) against a plain-Python reference.

The reference applies DESIGN §2 literally, one use at a time: a static site takes a
port of its own bank, any other site one port of every bank of its copy; per step and
(copy, bank), distinct read addresses and all writes are counted, and the step needs
the least II at which the busiest bank fits.  Random small cases (seeded, so every
run sees the same ones) mix static and dynamic lanes, reads and writes, copies,
irregular dimensions, idle lanes and several key blocks.
"""

import numpy as np
import pytest

from arraypart import expr as E
from arraypart import ir
from arraypart.check import rule
from arraypart.errors import Coord
from arraypart.scheme import Banking, DimPartition, flat_scheme, index_var, per_dim_scheme

CASES = 150
MODELS = ("ram_1p", "ram_2p", "ram_s2p", "ram_t2p", "rom_np", "ram_1wnr")


def reference_needs(cs, banking, model, rows, static):
    """Per step, the least II under the rule, by brute force over every use; an array
    whose every bank holds one element is registers (no port limit)."""
    if banking.scheme.registers:
        return [1] * rows
    banks = banking.scheme.banks
    needs = []
    for r in range(rows):
        reads, writes = {}, {}
        for i, c in enumerate(cs):
            for lane in range(c.mask.shape[1]):
                if not c.mask[r, lane]:
                    continue
                fixed = c.bank is not None and (id(c.access), lane) in static
                targets = [int(c.bank[r, lane])] if fixed else range(banks)
                address = (tuple(int(x[r, lane]) for x in c.index)
                           if all(x is not None for x in c.index) else ("unknown", i, lane))
                copies = (range(banking.copies) if c.access.kind == "write"
                          else [int(c.copy[r, lane])])
                for copy in copies:
                    for bank in targets:
                        if c.access.kind == "write":
                            writes[copy, bank] = writes.get((copy, bank), 0) + 1
                        else:
                            reads.setdefault((copy, bank), set()).add(address)
        ii = 1
        for slot in set(reads) | set(writes):
            while not model.fits(len(reads.get(slot, ())), writes.get(slot, 0), ii):
                ii += 1
        needs.append(ii)
    return needs


def random_scheme(rng, shape):
    if rng.random() < 0.5:
        types = [str(t) for t in rng.choice(["none", "cyclic", "block"], len(shape))]
        dims = tuple(DimPartition(t, 1 if t == "none" else int(rng.integers(2, 5)))
                     for t in types)
        return per_dim_scheme(shape, dims)
    alpha = tuple(int(a) for a in rng.integers(1, 4, len(shape)))
    return flat_scheme(shape, alpha, int(rng.integers(2, 7)), int(rng.integers(1, 3)))


def random_cells(rng, banking, rows, writable, steady):
    """A few accesses' cells: random indices (some dimensions irregular), masks, copies;
    ``steady``: every lane keeps one index and copy, as bank-centric code has."""
    shape = banking.scheme.shape
    out = []
    for ref in range(int(rng.integers(1, 5))):
        lanes = int(rng.integers(1, 6))
        kind = "write" if writable and rng.random() < 0.4 else "read"
        access = ir.Access("A", (None,) * len(shape), kind, ref, Coord("k.c", 1, ref + 1))
        index = tuple(None if rng.random() < 0.15
                      else rng.integers(0, n, (rows, lanes)) for n in shape)
        if steady or rng.random() < 0.3:  # one bank per lane, as static sites have
            index = tuple(None if x is None else np.broadcast_to(x[:1], x.shape)
                          for x in index)
        bank = None
        if all(index[d] is not None for d in banking.scheme.bank_dims()):
            env = {index_var(d): x for d, x in enumerate(index) if x is not None}
            bank = np.broadcast_to(E.evaluate(banking.scheme.bank_expr(), env), (rows, lanes))
        mask = rng.random((rows, lanes)) < 0.8
        copy = rng.integers(0, banking.copies, (1 if steady else rows, lanes))
        copy = np.broadcast_to(copy, (rows, lanes))
        out.append(rule.SiteCells(access, mask, index, bank, copy))
    return out


def random_static(rng, cs, steady):
    return frozenset((id(c.access), lane) for c in cs for lane in range(c.mask.shape[1])
                     if steady or rng.random() < 0.5)


@pytest.mark.parametrize("seed", range(CASES))
def test_rule_needs_match_the_reference(seed, monkeypatch):
    rng = np.random.default_rng(seed)
    shape = tuple(int(n) for n in rng.integers(2, 7, int(rng.integers(1, 3))))
    banking = Banking("A", random_scheme(rng, shape), copies=int(rng.integers(1, 3)))
    model = ir.PORT_MODELS[MODELS[seed % len(MODELS)]]
    rows = int(rng.integers(1, 12))
    steady = seed % 4 == 1  # every site static: the count without a sort
    cs = random_cells(rng, banking, rows, model.writable, steady)
    static = random_static(rng, cs, steady)
    if seed % 3 == 0:  # several key blocks per call
        monkeypatch.setattr(rule, "BLOCK_KEYS", int(rng.integers(1, 20)))
    got = rule.rule_needs(cs, banking, model, rows, static)
    assert got.tolist() == reference_needs(cs, banking, model, rows, static)
