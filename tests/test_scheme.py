"""Scheme formulas: (bank, offset) is a bijection into [0, banks) x [0, bank_depth)."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from arraypart.errors import Coord
from arraypart.ir import Array, PartitionPragma
from arraypart.scheme import (DimPartition, flat_scheme, none_scheme, per_dim_scheme,
                              scheme_from_pragmas)


def assert_bijection(scheme):
    bank, offset = scheme.maps()
    assert bank.shape == scheme.shape
    assert bank.min() >= 0 and bank.max() < scheme.banks
    assert offset.min() >= 0 and offset.max() < scheme.bank_depth
    slots = bank.ravel() * scheme.bank_depth + offset.ravel()
    assert np.unique(slots).size == scheme.size
    padded = int(np.prod(scheme.padded_shape))
    assert padded >= scheme.size
    assert scheme.banks * scheme.bank_depth >= scheme.size


shapes = st.lists(st.integers(1, 9), min_size=1, max_size=3).map(tuple)


@settings(max_examples=200, deadline=None)
@given(shapes, st.data())
def test_flat_schemes_are_bijections(shape, data):
    alpha = tuple(data.draw(st.integers(0, 7)) for _ in shape)
    if not any(alpha):
        alpha = alpha[:-1] + (1,)
    scheme = flat_scheme(shape, alpha, data.draw(st.integers(1, 9)), data.draw(st.integers(1, 4)))
    assert_bijection(scheme)


@settings(max_examples=200, deadline=None)
@given(shapes, st.data())
def test_per_dim_schemes_are_bijections(shape, data):
    dims = []
    for n in shape:
        kind = data.draw(st.sampled_from(["none", "cyclic", "block", "complete"]))
        factor = 1 if kind == "none" else data.draw(st.integers(1, 9))
        dims.append(DimPartition(kind, factor))
    assert_bijection(per_dim_scheme(shape, tuple(dims)))


def test_block_cyclic_denoise_scheme_has_no_padding_on_a_multiple_of_eight():
    scheme = flat_scheme((64, 64), (1, 3), 4, 2)
    assert scheme.banks == 4 and scheme.storage_overhead == 0.0
    assert scheme.to_report() == {"kind": "flat", "banks": 4, "alpha": [1, 3], "block": 2,
                                  "padded_shape": [64, 64]}
    assert_bijection(scheme)


def test_cyclic_padding_is_reported():
    scheme = per_dim_scheme((10, 7), (DimPartition("cyclic", 4), DimPartition("none", 1)))
    assert scheme.padded_shape == (12, 7)
    assert scheme.storage_overhead == pytest.approx((12 - 10) / 10)


def test_pragmas_as_written():
    coord = Coord("k.c", 3, 1)
    array = Array("A", (8, 8), "int", 32, False, coord, partitions=(
        PartitionPragma("cyclic", 2, 0, coord), PartitionPragma("complete", 0, 2, coord)))
    scheme = scheme_from_pragmas(array)
    assert [(p.type, p.factor) for p in scheme.dims] == [("cyclic", 2), ("complete", 8)]
    assert scheme_from_pragmas(Array("B", (4,), "int", 32, False, coord)) == none_scheme((4,))
