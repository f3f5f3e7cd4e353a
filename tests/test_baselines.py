"""The published baselines (arraypart.banking.baselines) on hand-built cycle groups and
on the kernel suite.

The bank counts asserted are the ones the papers publish for the reference stencils
(DESIGN §7).  Every scheme a search method returns as conflict-free is re-checked here
by brute force: its bank map (numpy) is indexed at every iteration of the stencil, so
the check shares nothing with the search's modular reasoning.
"""

from __future__ import annotations

from pathlib import Path

import islpy as isl
import numpy as np
import pytest

from arraypart import expr as E
from arraypart.banking.baselines import (BASELINES, difference, gmp, ltb, scalehls,
                                         vitis_manual)
from arraypart.errors import Coord
from arraypart.ir import PORT_MODELS, Array
from arraypart.poly.model import ArrayModel, CycleGroup, LaneAccess

SIZE = 64
COORD = Coord("stencil.c", 1, 1)
KERNEL_DIR = Path(__file__).resolve().parents[1] / "kernels"

# DESIGN §7: offsets (row, col) and the banks each method needs with 1-port banks.
STENCILS = {
    "denoise": [(0, 1), (1, 0), (1, 2), (2, 1)],
    "deconv": [(0, 1), (1, 0), (1, 1), (1, 2), (2, 1)],
    "denoise_ur": [(0, 1), (0, 2), (1, 0), (1, 1), (1, 2), (1, 3), (2, 1), (2, 2)],
    "bicubic": [(0, 0), (0, 2), (2, 0), (2, 2)],
    "sobel": [(a, b) for a in range(3) for b in range(3)],
    "motion_lv": [(a, 0) for a in range(6)],
    "motion_lh": [(0, a) for a in range(6)],
    "motion_c": [(0, 0), (0, 1), (1, 0), (1, 1)],
}
LTB_BANKS = {"denoise": 5, "deconv": 5, "denoise_ur": 8, "bicubic": 5, "sobel": 9,
             "motion_lv": 6, "motion_lh": 6, "motion_c": 4}
GMP_BANKS = {"denoise": 4, "bicubic": 4}


# ---------------------------------------------------------------- hand-built models


def lane(di: int, dj: int, kind: str = "read", rows: str = "i", cols: str = "j",
         ref: int = 0, domain: isl.Set | None = None) -> LaneAccess:
    index = (E.affine({rows: 1}, di), E.affine({cols: 1}, dj))
    return LaneAccess("buf", kind, index, ref, COORD, (), domain or _domain())


def _domain(extent: int = SIZE - 8) -> isl.Set:
    return isl.Set(f"{{ [i, j] : 0 <= i < {extent} and 0 <= j < {extent} }}")


def group(lanes, ii: int = 1, loop: str = "L1") -> CycleGroup:
    domain = _domain()
    return CycleGroup(loop, COORD, ii, ("i", "j"), domain, tuple(lanes), SIZE - 8,
                      (SIZE - 8) ** 2)


def model(*groups: CycleGroup, ports: str = "ram_1p") -> ArrayModel:
    array = Array("buf", (SIZE, SIZE), "float", 32, False, COORD, storage=ports)
    concurrent = max(len({tuple(a.index) for a in g.accesses}) for g in groups)
    return ArrayModel(array, PORT_MODELS[ports], tuple(groups), concurrent)


def stencil(name: str, ports: str = "ram_1p", ii: int = 1) -> ArrayModel:
    lanes = [lane(di, dj, ref=n) for n, (di, dj) in enumerate(STENCILS[name])]
    return model(group(lanes, ii=ii), ports=ports)


def max_bank_load(banking, offsets, transpose: bool = False) -> int:
    """Brute force: the most reads one bank serves in one iteration (i, j), over every
    iteration of a stencil with these offsets (rows and columns swapped if asked)."""
    bank, _ = banking.scheme.maps()
    extent = SIZE - 8
    hits = np.stack([bank[di:di + extent, dj:dj + extent] if not transpose
                     else bank[dj:dj + extent, di:di + extent] for di, dj in offsets])
    counts = np.stack([(hits == b).sum(axis=0) for b in range(banking.scheme.banks)])
    return int(counts.max())


# ---------------------------------------------------------------- index differences


def test_difference_is_constant_only_when_every_iteration_agrees():
    i, j = E.var("i"), E.var("j")
    assert difference(E.add(i, E.const(3)), i) == 3
    assert difference(E.add(E.scale(2, i), j), E.add(E.scale(2, i), j, E.const(-1))) == 1
    assert difference(i, j) is None
    quarter = E.floordiv(i, 4)
    assert difference(E.add(quarter, E.const(2)), quarter) == 2
    assert difference(quarter, E.floordiv(i, 2)) is None


# ---------------------------------------------------------------- LTB and GMP


@pytest.mark.parametrize("name", sorted(STENCILS))
def test_ltb_needs_the_published_bank_counts(name):
    banking = ltb(stencil(name))
    assert banking.array == "buf"
    assert banking.scheme.banks == LTB_BANKS[name]
    assert banking.scheme.kind == "flat" and banking.scheme.block == 1
    assert max_bank_load(banking, STENCILS[name]) == 1


def test_ltb_denoise_needs_five_because_no_alpha_separates_it_mod_four():
    scheme = ltb(stencil("denoise")).scheme
    alpha = np.array(scheme.alpha)
    offsets = np.array(STENCILS["denoise"])
    assert len(set((offsets @ alpha) % 5)) == 4
    for a0 in range(4):
        for a1 in range(4):
            assert len(set((offsets @ np.array([a0, a1])) % 4)) < 4


@pytest.mark.parametrize("name", sorted(STENCILS))
def test_gmp_is_conflict_free_and_never_worse_than_ltb(name):
    banking = gmp(stencil(name))
    assert banking.scheme.banks == GMP_BANKS.get(name, LTB_BANKS[name])
    assert max_bank_load(banking, STENCILS[name]) == 1


@pytest.mark.parametrize("name", sorted(GMP_BANKS))
def test_gmp_reaches_four_banks_with_blocks_of_two(name):
    scheme = gmp(stencil(name)).scheme
    assert (scheme.banks, scheme.block) == (4, 2)


def test_dual_port_banks_halve_the_ltb_search_start():
    banking = ltb(stencil("denoise", ports="ram_t2p"))
    assert banking.scheme.banks == 2
    assert max_bank_load(banking, STENCILS["denoise"]) == 2


def test_a_larger_ii_lets_one_bank_serve_several_accesses():
    assert ltb(stencil("denoise", ii=2)).scheme.banks == 2
    assert ltb(stencil("sobel", ii=9)).scheme.banks == 1


def test_one_banking_serves_a_row_loop_and_a_column_loop():
    rows = group([lane(0, d, ref=d) for d in range(4)], loop="rows")
    cols = group([lane(d, 0, ref=d) for d in range(4)], loop="cols")
    both = model(rows, cols)
    for method in (ltb, gmp):
        banking = method(both)
        assert banking.scheme.banks == 4
        row_offsets = [(0, d) for d in range(4)]
        assert max_bank_load(banking, row_offsets) == 1
        assert max_bank_load(banking, row_offsets, transpose=True) == 1
    assert vitis_manual(both).scheme.banks == 16


def test_read_and_write_of_one_address_do_not_stop_the_search():
    """tmp[i+a][j+b] += ..., a 2x2 block per cycle on 1-port banks: each address is
    read and written (no banking helps that); the four still go to four banks."""
    offsets = [(a, b) for a in range(2) for b in range(2)]
    lanes = [lane(a, b, kind=k, ref=2 * a + b) for a, b in offsets for k in ("read", "write")]
    for method in (ltb, gmp):
        banking = method(model(group(lanes)))
        assert banking.scheme.banks == 4
        assert max_bank_load(banking, offsets) == 1


def test_non_constant_differences_are_left_unchecked():
    """a[i][k] and a[j][k], k unrolled 0..3: only the k offsets are constant."""
    lanes = [lane(0, k, rows=rows, cols="k", ref=n)
             for n, (rows, k) in enumerate((r, k) for r in ("i", "j") for k in range(4))]
    domain = isl.Set("{ [i, j, k] : 0 <= j <= i < 32 and k = 0 }")
    grp = CycleGroup("L1", COORD, 1, ("i", "j", "k"), domain, tuple(lanes), 32, 528)
    both = model(grp)
    assert ltb(both).scheme.banks == 4
    assert ltb(both).scheme.alpha[0] == 0
    assert [p.type for p in vitis_manual(both).scheme.dims] == ["none", "cyclic"]
    assert [(p.type, p.factor) for p in scalehls(both).scheme.dims] == [
        ("none", 1), ("cyclic", 4)]


def test_irregular_lanes_are_ignored_by_every_method():
    regular = stencil("denoise")
    wild = LaneAccess("buf", "read", (None, E.var("j")), 9, COORD, (), _domain())
    lanes = regular.groups[0].accesses + (wild,)
    with_wild = model(group(lanes))
    for name, method in BASELINES.items():
        assert method(with_wild).scheme == method(regular).scheme, name


def test_a_failed_search_returns_its_least_loaded_attempt():
    """A 9x9 window (81 reads) cannot fit 64 single-port banks: the best attempt at
    the limit puts at most ceil(81 / 64) = 2 of them in one bank."""
    window = [(a, b) for a in range(9) for b in range(9)]
    lanes = [lane(a, b, ref=n) for n, (a, b) in enumerate(window)]
    for method in (ltb, gmp):
        banking = method(model(group(lanes)))
        assert banking.scheme.banks == 64
        assert max_bank_load(banking, window) == 2


def test_one_address_per_cycle_needs_no_banks():
    single = model(group([lane(0, 0), lane(0, 0, ref=1)]))
    for method in BASELINES.values():
        assert method(single).scheme.kind == "none"


# ---------------------------------------------------------------- per-dimension rules


def test_vitis_manual_partitions_each_dimension_by_its_span():
    scheme = vitis_manual(stencil("denoise")).scheme
    assert [(p.type, p.factor) for p in scheme.dims] == [("cyclic", 3), ("cyclic", 3)]
    assert scheme.banks == 9
    lv = vitis_manual(stencil("motion_lv")).scheme
    assert [(p.type, p.factor) for p in lv.dims] == [("cyclic", 6), ("none", 1)]
    assert max_bank_load(vitis_manual(stencil("sobel")), STENCILS["sobel"]) == 1


def test_scalehls_cyclic_rule_for_contiguous_indices():
    scheme = scalehls(stencil("denoise_ur")).scheme
    assert [(p.type, p.factor) for p in scheme.dims] == [("cyclic", 3), ("cyclic", 4)]


def test_scalehls_raises_the_factor_to_a_multiple_of_the_stride():
    """BICUBIC: indices i, i+2 (two of them, distance 2): cyclic 3 raised to 4."""
    scheme = scalehls(stencil("bicubic")).scheme
    assert [(p.type, p.factor) for p in scheme.dims] == [("cyclic", 4), ("cyclic", 4)]


def test_scalehls_uses_block_for_scattered_indices():
    """j, j+3, j+4: three indices over a span of five, distances without common
    divisor: block partition by the number of indices."""
    scheme = scalehls(model(group([lane(0, d, ref=d) for d in (0, 3, 4)]))).scheme
    assert [(p.type, p.factor) for p in scheme.dims] == [("none", 1), ("block", 3)]


def test_scalehls_falls_back_to_small_factors_behind_a_multiplexer():
    """Offsets 0..5 in k plus an unrelated index: cyclic 6 needs a mux, so 3."""
    lanes = [lane(0, k, cols="k", ref=k) for k in range(6)] + [lane(0, 0, cols="j", ref=6)]
    domain = isl.Set("{ [i, j, k] : 0 <= i < 8 and 0 <= j < 8 and k = 0 }")
    grp = CycleGroup("L1", COORD, 1, ("i", "j", "k"), domain, tuple(lanes), 8, 64)
    scheme = scalehls(model(grp)).scheme
    assert [(p.type, p.factor) for p in scheme.dims] == [("none", 1), ("cyclic", 3)]


def test_factors_beyond_the_dimension_become_complete_partitions():
    lanes = [lane(0, d, ref=d) for d in range(SIZE)]
    scheme = vitis_manual(model(group(lanes))).scheme
    assert [(p.type, p.factor) for p in scheme.dims] == [("none", 1), ("complete", SIZE)]


# ---------------------------------------------------------------- the kernel suite


def _kernel_models(stem: str, ports: int = 1) -> dict[str, ArrayModel]:
    from arraypart.frontend import parse_kernel
    from arraypart.poly import build_model
    poly = build_model(parse_kernel(KERNEL_DIR / f"{stem}.c"), ports=ports)
    return {a.array.name: a for a in poly.arrays}


@pytest.mark.parametrize("name", sorted(STENCILS))
def test_published_counts_on_the_stencil_kernels(name):
    buf = _kernel_models(name)["buf"]
    assert ltb(buf).scheme.banks == LTB_BANKS[name]
    assert gmp(buf).scheme.banks == GMP_BANKS.get(name, LTB_BANKS[name])
    if name == "denoise":
        assert vitis_manual(buf).scheme.banks == 9


@pytest.mark.parametrize("stem", sorted(p.stem for p in KERNEL_DIR.glob("*.c")))
def test_every_baseline_banks_every_array_of_the_suite_deterministically(stem):
    for name, array_model in _kernel_models(stem, ports=2).items():
        for method in BASELINES.values():
            first, again = method(array_model), method(array_model)
            assert first.array == name
            assert first.scheme == again.scheme
            assert 1 <= first.scheme.banks <= 64 or first.scheme.kind == "per_dim"


def test_transpose_kernel_needs_sixteen_banks_by_hand_and_four_by_ltb():
    buf = _kernel_models("transpose")["buf"]
    assert vitis_manual(buf).scheme.banks == 16
    assert ltb(buf).scheme.banks == 4
