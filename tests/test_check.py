"""The cycle-level checker on hand-built IR: exact first conflicts and achieved IIs."""

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arraypart import api
from arraypart import expr as E
from arraypart import ir
from arraypart.check import (CheckReport, as_written_bankings, auto_partition_notes,
                             check_kernel, check_map)
from arraypart.errors import Coord, KernelError
from arraypart.frontend import parse_kernel
from arraypart.report import check_json
from arraypart.scheme import (COMPLETE_THRESHOLD, Banking, DimPartition, flat_scheme,
                              none_scheme, per_dim_scheme)

from conftest import CHAINED_LANES

FILE = "k.c"


def at(line, col=1):
    return Coord(FILE, line, col)


def aff(constant=0, **coeffs):
    return E.affine(coeffs, constant)


def acc(array, index, kind="read", ref=0, line=10, col=1):
    return ir.Access(array, tuple(index), kind, ref, at(line, col))


def stmt(*accesses, line=10):
    return ir.Stmt(tuple(accesses), at(line))


def loop(var, lo, hi, body, *, step=1, name=None, line=5, ii=None, unroll=None):
    """``for (var = lo; var <= hi; var += step)`` (inclusive bound, as the IR)."""
    lo = lo if isinstance(lo, tuple) else (lo,)
    hi = hi if isinstance(hi, tuple) else (hi,)
    lo = tuple(aff(x) if isinstance(x, int) else x for x in lo)
    hi = tuple(aff(x) if isinstance(x, int) else x for x in hi)
    return ir.Loop(var, lo, hi, step, tuple(body), name or f"L{line}", at(line, 3),
                   pipeline_ii=ii, unroll=unroll)


def array(name, shape, storage=None, partitions=(), const=False):
    return ir.Array(name, tuple(shape), "int", 32, False, at(1), const=const,
                    storage=storage, partitions=tuple(partitions))


def kernel(arrays, body):
    return ir.Kernel("k", "k", FILE, tuple(arrays), tuple(body), at(1))


def cyclic(shape, *factors):
    return per_dim_scheme(shape, tuple(DimPartition("cyclic", f) if f > 1
                                       else DimPartition("none", 1) for f in factors))


def banked(name, scheme, **kw):
    return {name: Banking(name, scheme, **kw)}


# ---------------------------------------------------------------- DENOISE cross

N = 16
CROSS = ((0, 1), (1, 0), (1, 2), (2, 1))


def cross_kernel(storage="ram_1p"):
    reads = [acc("buf", (aff(di, i=1), aff(dj, j=1)), ref=k, line=7, col=10 + 10 * k)
             for k, (di, dj) in enumerate(CROSS)]
    write = acc("out", (aff(i=1), aff(j=1)), "write", ref=4, line=7, col=3)
    inner = loop("j", 0, N - 3, [stmt(*reads, write, line=7)], line=6, ii=1, name="col")
    return kernel([array("buf", (N, N), storage), array("out", (N, N))],
                  [loop("i", 0, N - 3, [inner], line=5, name="row")])


def test_cross_cyclic_2x2_on_single_port_needs_ii_2():
    k = cross_kernel()
    report = check_kernel(k, banked("buf", cyclic((N, N), 2, 2)))
    (lp,) = report.loops
    assert (lp.name, lp.target_ii, lp.achieved_ii) == ("col", 1, 2)
    steps = (N - 2) * (N - 2)
    assert (lp.trip_count, lp.iterations, lp.cycles, lp.stall_cycles) == (
        N - 2, steps, 2 * steps, steps)
    c = lp.first_conflict
    assert (c.iteration, c.cycle, c.point) == (0, 0, (("i", 0), ("j", 0)))
    assert (c.array, c.copy, c.bank, c.reads, c.writes, c.ports) == (
        "buf", 0, 1, 2, 0, "ram_1p")
    assert [(a.kind, str(a.coord), a.address) for a in c.accesses] == [
        ("read", "k.c:7:10", (0, 1)), ("read", "k.c:7:40", (2, 1))]
    assert report.accesses_checked == 5 * steps
    assert not report.ok


def test_cross_block_cyclic_flat_scheme_fits_in_4_banks():
    scheme = flat_scheme((N, N), (1, 3), 4, 2)
    report = check_kernel(cross_kernel(), banked("buf", scheme))
    (lp,) = report.loops
    assert scheme.banks == 4
    assert (lp.achieved_ii, lp.stall_cycles, lp.first_conflict) == (1, 0, None)
    assert report.ok and report.maps[0].ok


def test_cross_one_memory_true_dual_port():
    report = check_kernel(cross_kernel(storage=None), {}, ports=2)
    (lp,) = report.loops
    assert lp.achieved_ii == 2
    c = lp.first_conflict
    assert (c.bank, c.reads, c.ports, len(c.accesses)) == (0, 4, "ram_t2p", 4)
    assert report.maps == ()


def test_first_conflict_later_in_execution_order():
    # Reads A[2i] and A[2i+4] under cyclic 4 collide only once i >= 3 (where the
    # second read is guarded in): iteration 3, cycle 3 * II.
    body = [stmt(acc("A", (aff(i=2),), ref=0, line=8)),
            ir.If(((ir.Constraint(aff(-3, i=1), ">="),),),
                  (stmt(acc("A", (aff(4, i=2),), ref=1, line=9), line=9),), (), at(8))]
    k = kernel([array("A", (64,), "ram_1p")], [loop("i", 0, 29, body, ii=3, line=6)])
    (lp,) = check_kernel(k, banked("A", cyclic((64,), 4))).loops
    assert (lp.target_ii, lp.achieved_ii) == (3, 3)
    assert lp.first_conflict is None
    (lp,) = check_kernel(k, banked("A", cyclic((64,), 4)), ports=1).loops
    assert lp.first_conflict is None
    k1 = kernel([array("A", (64,), "ram_1p")], [loop("i", 0, 29, body, ii=1, line=6)])
    (lp,) = check_kernel(k1, banked("A", cyclic((64,), 4))).loops
    c = lp.first_conflict
    assert (lp.achieved_ii, c.iteration, c.cycle, c.point) == (2, 3, 3, (("i", 3),))
    assert (c.bank, [a.address for a in c.accesses]) == (2, [(6,), (10,)])
    assert [a.coord.line for a in c.accesses] == [8, 9]


# ---------------------------------------------------------------- port semantics


def rw_kernel(storage):
    """``A[i] = A[i] + 1``: a read and a write of one element per iteration."""
    s = stmt(acc("A", (aff(i=1),), "read", ref=0, col=8),
             acc("A", (aff(i=1),), "write", ref=0, col=1))
    return kernel([array("A", (32,), storage)], [loop("i", 0, 31, [s], ii=1)])


@pytest.mark.parametrize("storage,ii", [("ram_1p", 2), ("ram_t2p", 1), ("ram_s2p", 1),
                                        ("ram_2p", 1)])
def test_read_and_write_of_one_element(storage, ii):
    (lp,) = check_kernel(rw_kernel(storage), {}).loops
    assert lp.achieved_ii == ii
    if ii > 1:
        c = lp.first_conflict
        assert (c.iteration, c.reads, c.writes, c.ports) == (0, 1, 1, storage)
        assert [(a.kind, a.address) for a in c.accesses] == [("read", (0,)), ("write", (0,))]


def test_broadcast_reads_are_one_access():
    # B[i] read by 4 unrolled lanes of j and twice per lane: one access per step.
    s = stmt(acc("B", (aff(i=1),), ref=0), acc("B", (aff(i=1),), ref=1),
             acc("C", (aff(j=1),), ref=2))
    inner = loop("j", 0, 3, [s], line=7)
    k = kernel([array("B", (8,), "ram_1p"), array("C", (8,), "ram_1p")],
               [loop("i", 0, 7, [inner], ii=1, line=6)])
    report = check_kernel(k, banked("C", cyclic((8,), 4)))
    (lp,) = report.loops
    assert (lp.achieved_ii, lp.first_conflict) == (1, None)
    assert report.accesses_checked == 8 * 4 * 3
    (lp,) = check_kernel(k, {}).loops
    c = lp.first_conflict
    assert (lp.achieved_ii, c.array, c.reads) == (4, "C", 4)


def test_writes_are_never_merged():
    s = stmt(acc("A", (aff(0),), "write", ref=0), acc("A", (aff(0),), "write", ref=1))
    k = kernel([array("A", (4,), "ram_t2p")], [loop("i", 0, 3, [s], ii=1)])
    assert check_kernel(k, {}).loops[0].achieved_ii == 1
    k = kernel([array("A", (4,), "ram_1p")], [loop("i", 0, 3, [s], ii=1)])
    assert check_kernel(k, {}).loops[0].first_conflict.writes == 2


def test_rom_np_serves_any_number_of_reads():
    reads = [acc("T", (aff(d, i=1),), ref=d) for d in range(8)]
    k = kernel([array("T", (64,), "rom_np")], [loop("i", 0, 55, [stmt(*reads)], ii=1)])
    assert check_kernel(k, {}).loops[0].achieved_ii == 1


def test_write_to_read_only_storage_is_located_error():
    s = stmt(acc("T", (aff(i=1),), "write", line=12, col=5))
    k = kernel([array("T", (8,), "rom_1p")], [loop("i", 0, 7, [s], ii=1)])
    with pytest.raises(KernelError) as info:
        check_kernel(k, {})
    assert str(info.value).startswith("k.c:12:5: error: write to 'T'")


# ---------------------------------------------------------------- lanes and steps


def test_remainder_lanes_do_not_execute():
    # 10 iterations unrolled by 4 inside a pipeline: steps of 4, 4, 2 lanes.
    s = stmt(acc("A", (aff(i=1),), ref=0))
    k = kernel([array("A", (10,), "ram_1p")],
               [loop("i", 0, 9, [s], ii=1, unroll=4)])
    report = check_kernel(k, banked("A", cyclic((10,), 4)))
    (lp,) = report.loops
    assert (lp.trip_count, lp.iterations, lp.achieved_ii) == (3, 3, 1)
    assert report.accesses_checked == 10
    # cyclic 2: lanes i, i+1, i+2, i+3 put two reads per bank; the last step has 2.
    (lp,) = check_kernel(k, banked("A", cyclic((10,), 2))).loops
    assert (lp.achieved_ii, lp.first_conflict.point) == (2, (("i", 0),))


def test_negative_step_order_and_values():
    # i = 9, 7, 5, 3, 1; reads A[i] and A[i-1] on cyclic 2 fit; on cyclic 4 with
    # A[i] and A[i-4] they collide from the first iteration (i = 9).
    s = stmt(acc("A", (aff(i=1),), ref=0), acc("A", (aff(-1, i=1),), ref=1))
    k = kernel([array("A", (10,), "ram_1p")], [loop("i", 9, 0, [s], step=-2, ii=1)])
    (lp,) = check_kernel(k, banked("A", cyclic((10,), 2))).loops
    assert (lp.iterations, lp.achieved_ii) == (5, 1)
    s = stmt(acc("A", (aff(i=1),), ref=0), acc("A", (aff(-4, i=1),), ref=1))
    body = [ir.If(((ir.Constraint(aff(-5, i=1), ">="),),), (s,), (), at(9))]
    k = kernel([array("A", (10,), "ram_1p")], [loop("i", 9, 0, body, step=-2, ii=1)])
    (lp,) = check_kernel(k, banked("A", cyclic((10,), 4))).loops
    c = lp.first_conflict
    assert (c.iteration, c.point, [a.address for a in c.accesses]) == (
        0, (("i", 9),), [(9,), (5,)])
    assert lp.iterations == 5


def test_if_else_guards_split_lanes():
    # Unroll 2: the even lane reads A[j], the odd lane writes A[j]; one memory gets a
    # read and a write per step, cyclic 2 splits them.
    even = ir.Constraint(E.mod(aff(j=1), 2), "==")
    s_then = stmt(acc("A", (aff(j=1),), ref=0))
    s_else = stmt(acc("A", (aff(j=1),), "write", ref=1))
    guard = ir.If(((even,),), (s_then,), (s_else,), at(8))
    k = kernel([array("A", (9,), "ram_1p")], [loop("j", 0, 7, [guard], ii=1, unroll=2)])
    (lp,) = check_kernel(k, {}).loops
    c = lp.first_conflict
    assert (lp.achieved_ii, c.reads, c.writes) == (2, 1, 1)
    assert [(a.kind, a.address) for a in c.accesses] == [("read", (0,)), ("write", (1,))]
    (lp,) = check_kernel(k, banked("A", cyclic((9,), 2))).loops
    assert (lp.achieved_ii, lp.iterations) == (1, 4)


def test_an_unknown_condition_runs_one_branch_per_iteration():
    """A pipelined iteration takes one branch (``ir.branch_paths``); the lanes of a
    loop unrolled by 2 each take their own, so A[0] and A[1] may meet there."""
    guard = ir.If(None, (stmt(acc("A", (aff(0),), ref=0)),),
                  (stmt(acc("A", (aff(1),), ref=1)),), at(8))
    k = kernel([array("A", (2,), "ram_1p")], [loop("i", 0, 3, [guard], ii=1)])
    assert check_kernel(k, {}).loops[0].achieved_ii == 1
    k = kernel([array("A", (2,), "ram_1p")], [loop("i", 0, 3, [guard], ii=1, unroll=2)])
    assert check_kernel(k, {}).loops[0].achieved_ii == 2


def unrolled_with_sequential_inner_kernel():
    """for i < 4 unroll 2 { S0: A[i][0]; for k < 4 (sequential) { A[i][k] }; S1: B[i] }"""
    s0 = stmt(acc("A", (aff(i=1), aff(0)), ref=0, line=7), line=7)
    inner = loop("k", 0, 3, [stmt(acc("A", (aff(i=1), aff(k=1)), ref=1, line=9), line=9)],
                 line=8)
    s1 = stmt(acc("B", (aff(i=1),), ref=2, line=10), line=10)
    return kernel([array("A", (4, 4), "ram_1p"), array("B", (4,), "ram_1p")],
                  [loop("i", 0, 3, [s0, inner, s1], unroll=2, line=6)])


def test_unrolled_loop_outside_pipeline_with_sequential_inner_loop():
    # Steps per block of 2 i-lanes in lockstep: S0, 4 k-steps, S1 (6).
    k = unrolled_with_sequential_inner_kernel()
    report = check_kernel(k, {"A": Banking("A", cyclic((4, 4), 2, 1))})
    (lp,) = report.loops
    assert (lp.target_ii, lp.trip_count, lp.iterations) == (1, 2, 12)
    c = lp.first_conflict
    # S0 and the k steps fit (A rows i, i+1 in different banks); S1 hits one B bank.
    assert (c.iteration, c.array, c.point) == (5, "B", (("i", 0),))
    assert [a.address for a in c.accesses] == [(0,), (1,)]
    assert (lp.achieved_ii, lp.cycles) == (2, 24)


def test_inner_loops_of_a_pipeline_are_fully_unrolled():
    # pipeline over i; for j < 4 { for k < 2 { A[j][k] } }: 8 concurrent reads.
    body = loop("j", 0, 3, [loop("k", 0, 1, [stmt(acc("A", (aff(j=1), aff(k=1))))],
                                 line=8)], line=7)
    k = kernel([array("A", (4, 2), "ram_t2p")], [loop("i", 0, 9, [body], ii=1)])
    assert check_kernel(k, {}).loops[0].achieved_ii == 4
    scheme = per_dim_scheme((4, 2), (DimPartition("complete", 4), DimPartition("none", 1)))
    assert check_kernel(k, banked("A", scheme)).loops[0].achieved_ii == 1


def test_outer_bounds_depend_on_outer_iterator():
    # Triangular nest: for i < 6, pipeline j in i..5: 21 steps.
    s = stmt(acc("A", (aff(j=1),), ref=0), acc("A", (aff(1, j=1),), ref=1))
    k = kernel([array("A", (8,), "ram_1p")],
               [loop("i", 0, 5, [loop("j", aff(i=1), 5, [s], ii=1, line=6)], line=5)])
    (lp,) = check_kernel(k, {}).loops
    assert (lp.iterations, lp.trip_count, lp.achieved_ii) == (21, 6, 2)
    c = lp.first_conflict
    assert c.point == (("i", 0), ("j", 0))


# ---------------------------------------------------------------- copies, irregular


def test_read_copies_split_reads_and_writes_reach_every_copy():
    reads = [acc("A", (aff(d, i=1),), ref=d) for d in range(4)]
    k = kernel([array("A", (16,), "ram_1p")], [loop("i", 0, 11, [stmt(*reads)], ii=1)])
    copies = Banking("A", cyclic((16,), 2), copies=2, read_copy=((2, E.const(1)), (3, E.const(1))))
    # copy 0 serves A[i], A[i+1]; copy 1 A[i+2], A[i+3]: one read per bank.
    assert check_kernel(k, {"A": copies}).loops[0].achieved_ii == 1
    same = Banking("A", cyclic((16,), 2), copies=2, read_copy=((1, E.const(1)), (3, E.const(1))))
    (lp,) = check_kernel(k, {"A": same}).loops
    c = lp.first_conflict
    assert (lp.achieved_ii, c.copy, c.bank, [a.address for a in c.accesses]) == (
        2, 0, 0, [(0,), (2,)])
    w = stmt(acc("A", (aff(i=1),), "write", ref=5))
    kw = kernel([array("A", (16,), "ram_1p")],
                [loop("i", 0, 11, [stmt(*reads[:2]), w], ii=1)])
    onecopy = Banking("A", cyclic((16,), 2), copies=2, read_copy=((1, E.const(1)),))
    (lp,) = check_kernel(kw, {"A": onecopy}).loops
    c = lp.first_conflict
    assert (c.copy, c.bank, c.reads, c.writes) == (0, 0, 1, 1)


def test_irregular_access_counts_against_every_bank():
    irr = acc("A", (None,), ref=1, line=11)
    k = kernel([array("A", (16,), "ram_1p")],
               [loop("i", 0, 7, [stmt(acc("A", (aff(i=2),), ref=0), irr)], ii=1)])
    (lp,) = check_kernel(k, banked("A", cyclic((16,), 4))).loops
    c = lp.first_conflict
    assert (lp.achieved_ii, c.bank, c.reads) == (2, 0, 2)
    assert [a.address for a in c.accesses] == [(0,), (None,)]
    alone = kernel([array("A", (16,), "ram_t2p")],
                   [loop("i", 0, 7, [stmt(irr, irr, irr)], ii=1)])
    (lp,) = check_kernel(alone, banked("A", cyclic((16,), 4))).loops
    assert (lp.achieved_ii, lp.first_conflict.bank, lp.first_conflict.reads) == (2, 0, 3)


def test_a_row_known_with_its_column_unknown_stays_in_its_rows_bank():
    """``buf[i][c]`` (c from the data) for rows 0..3 under ``complete dim=1``: the bank
    is the row, known, so the four reads hit four banks.  An access irregular in one
    dimension was taken as irregular in all (every read in every bank, II 2)."""
    reads = [acc("buf", (aff(r), None), ref=r, col=r + 1) for r in range(4)]
    write = acc("buf", (aff(0), None), "write", ref=4, col=9)
    k = kernel([array("buf", (4, 64))], [loop("n", 0, 7, [stmt(*reads, write)], ii=1)])
    rows = per_dim_scheme((4, 64), (DimPartition("complete", 4), DimPartition("none", 1)))
    (lp,) = check_kernel(k, banked("buf", rows)).loops
    assert (lp.achieved_ii, lp.first_conflict) == (1, None)
    # two unknown columns of row 0 and the write there: three accesses on two ports
    crowded = kernel([array("buf", (4, 64))],
                     [loop("n", 0, 7, [stmt(*reads, reads[0], write)], ii=1)])
    (lp,) = check_kernel(crowded, banked("buf", rows)).loops
    c = lp.first_conflict
    assert (lp.achieved_ii, c.bank, c.reads, c.writes) == (2, 0, 2, 1)


def test_irregular_reads_cannot_exceed_the_elements_of_a_bank():
    # A LUT read at 9 data-dependent places per step: a bank of e elements serves at
    # most e distinct reads, so a complete partition (registers) needs no extra cycle.
    lut = [acc("T", (None,), ref=k, col=k + 1) for k in range(9)]
    k = kernel([array("T", (16,), const=True)], [loop("i", 0, 3, [stmt(*lut)], ii=1)])
    complete = per_dim_scheme((16,), (DimPartition("complete", 16),))
    assert check_kernel(k, banked("T", complete)).loops[0].achieved_ii == 1
    (lp,) = check_kernel(k, {}).loops
    assert (lp.achieved_ii, lp.first_conflict.reads, lp.first_conflict.ports) == (
        5, 9, "rom_2p")
    (lp,) = check_kernel(k, banked("T", cyclic((16,), 8)), ports=1).loops
    c = lp.first_conflict
    assert (lp.achieved_ii, c.bank, c.reads, len(c.accesses)) == (2, 0, 2, 9)


# ---------------------------------------------------------------- differential


def reference_needs(refs, shape, scheme, model, n_i, n_j, u):
    """Plain-Python simulation: per step (i, j block), per bank, distinct reads and
    all writes, and the least II that fits; banks looked up in ``scheme.maps()``.
    The step's lanes run one after another, each reading before it writes; two reads
    of one element are one only with no write between that may alias them
    (:func:`_may_alias`)."""
    bank_map = scheme.maps()[0]
    needs = []
    for i in range(n_i):
        for jb in range(0, n_j, u):
            reads, writes = {}, {}
            written = []  # the step's writes so far, by their flat forms
            for j in range(jb, min(jb + u, n_j)):
                forms = [_flat_form(ref, shape, j - jb) for ref in refs]
                for ref, form in zip(refs, forms):
                    x = (ref[0] * i + ref[1], ref[2] * j + ref[3])
                    if ref[4] == "read":
                        epoch = frozenset(n for n, w in enumerate(written)
                                          if _may_alias(w, form))
                        reads.setdefault(int(bank_map[x]), set()).add((x, epoch))
                for ref, form in zip(refs, forms):
                    if ref[4] == "write":
                        b = int(bank_map[(ref[0] * i + ref[1], ref[2] * j + ref[3])])
                        writes[b] = writes.get(b, 0) + 1
                        written.append(form)
            ii = 1
            for b in set(reads) | set(writes):
                r, w = len(reads.get(b, ())), writes.get(b, 0)
                while not model.fits(r, w, ii):
                    ii += 1
            needs.append(ii)
    return needs


def _flat_form(ref, shape, lane):
    """The row-major offset of ``A[ci*i + di][cj*j + dj]`` in lane ``lane`` of a
    step, ``j`` = the step's first j + ``lane``: (its coefficients of i and of that
    first j, its constant)."""
    ci, di, cj, dj, _ = ref
    return (ci * shape[1], cj), di * shape[1] + cj * lane + dj


def _may_alias(write, read) -> bool:
    """LLVM's BasicAA as the checker reads it: two offsets are apart only with one
    variable part and different constants."""
    return write[0] != read[0] or write[1] == read[1]


ref_strategy = st.tuples(st.integers(0, 2), st.integers(0, 3), st.integers(0, 2),
                         st.integers(0, 3), st.sampled_from(["read", "write"]))


@st.composite
def scheme_strategy(draw, shape):
    if draw(st.booleans()):
        types = [draw(st.sampled_from(["none", "cyclic", "block"])) for _ in shape]
        dims = tuple(DimPartition(t, 1 if t == "none" else draw(st.integers(2, 3)))
                     for t in types)
        return per_dim_scheme(shape, dims)
    alpha = (draw(st.integers(0, 3)), draw(st.integers(1, 3)))
    return flat_scheme(shape, alpha, draw(st.integers(1, 5)), draw(st.integers(1, 2)))


@settings(max_examples=60, deadline=None)
@given(refs=st.lists(ref_strategy, min_size=1, max_size=4), n_i=st.integers(1, 4),
       n_j=st.integers(1, 9), u=st.integers(1, 3), target=st.integers(1, 2),
       storage=st.sampled_from(["ram_1p", "ram_2p", "ram_s2p", "ram_t2p"]),
       data=st.data())
def test_matches_plain_python_reference(refs, n_i, n_j, u, target, storage, data):
    shape = (2 * n_i + 4, 2 * n_j + 4)
    scheme = data.draw(scheme_strategy(shape))
    accesses = [acc("A", (aff(di, i=ci), aff(dj, j=cj)), kind, ref=k, col=k + 1)
                for k, (ci, di, cj, dj, kind) in enumerate(refs)]
    inner = loop("j", 0, n_j - 1, [stmt(*accesses)], ii=target, unroll=u if u > 1 else None,
                 line=6)
    k = kernel([array("A", shape, storage)], [loop("i", 0, n_i - 1, [inner])])
    (lp,) = check_kernel(k, banked("A", scheme)).loops
    needs = reference_needs(refs, shape, scheme, ir.PORT_MODELS[storage], n_i, n_j, u)
    assert lp.iterations == len(needs)
    assert lp.achieved_ii == max([target] + needs)
    late = [t for t, need in enumerate(needs) if need > target]
    assert (lp.first_conflict.iteration if lp.first_conflict else None) == (
        late[0] if late else None)


# ---------------------------------------------------------------- maps, report, misc


@pytest.mark.parametrize("scheme", [
    none_scheme((6, 10)),
    cyclic((6, 10), 2, 3),
    per_dim_scheme((6, 10), (DimPartition("block", 4), DimPartition("cyclic", 3))),
    per_dim_scheme((6, 10), (DimPartition("complete", 6), DimPartition("none", 1))),
    flat_scheme((6, 10), (1, 3), 4, 2),
    flat_scheme((6, 10), (2, 1), 6, 1),
    flat_scheme((6, 10), (0, 3), 5, 1),
])
def test_map_check_every_scheme_kind(scheme):
    m = check_map(array("A", (6, 10)), Banking("A", scheme))
    assert m.ok, m.message
    assert f"{scheme.banks} bank(s) x {scheme.bank_depth} words" in m.message


def test_map_check_reports_shared_slot_and_range():
    from arraypart.check.maps import _problem
    s = cyclic((4,), 2)
    linear = np.arange(4)
    assert _problem(s, linear, np.array([0, 1, 0, 1]), np.array([0, 0, 0, 1])) == (
        "elements (0,) and (2,) share bank 0 offset 0")
    assert "bank 2, outside 0..1" in _problem(s, linear, np.array([0, 2, 0, 1]),
                                              np.zeros(4, int))


def test_large_array_map_is_sampled(monkeypatch):
    import arraypart.check.maps as maps
    monkeypatch.setattr(maps, "MAP_FULL_LIMIT", 100)
    monkeypatch.setattr(maps, "MAP_SAMPLE", 50)
    m = check_map(array("A", (20, 20)), Banking("A", flat_scheme((20, 20), (1, 3), 4, 2)))
    assert m.ok and "a sample of" in m.message


def test_as_written_bankings_follow_pragmas():
    p = ir.PartitionPragma("cyclic", 2, 0, at(3))
    k = cross_kernel()
    k = kernel([array("buf", (N, N), "ram_1p", (p,)), array("out", (N, N))], k.body)
    written = as_written_bankings(k)
    assert written["buf"].scheme == cyclic((N, N), 2, 2)
    assert written["out"].scheme.kind == "none"
    report = check_kernel(k, written)
    assert report.loops[0].achieved_ii == 2 and len(report.maps) == 2


def test_report_json_and_text_name_every_access():
    report = check_kernel(cross_kernel(), banked("buf", cyclic((N, N), 2, 2)))
    data = json.loads(json.dumps(report.to_json()))
    assert data["ok"] is False
    conflict = data["loops"][0]["first_conflict"]
    assert conflict["point"] == {"i": 0, "j": 0}
    assert conflict["accesses"][1] == {"kind": "read", "address": [2, 1],
                                       "coord": {"file": FILE, "line": 7, "col": 40}}
    text = report.format()
    assert "k.c:6:3: loop col: CONFLICT: target II 1, achieved II 2" in text
    assert "k.c:7:10: read buf[0][1]" in text and "k.c:7:40: read buf[2][1]" in text


def test_out_of_bounds_index_is_noted():
    s = stmt(acc("A", (aff(1, i=1),), ref=0, line=9, col=4))
    report = check_kernel(kernel([array("A", (8,))], [loop("i", 0, 7, [s], ii=1)]), {})
    assert report.notes == ("k.c:9:4: warning: index 0 of 'A' takes values 1..8 "
                            "outside 0..7",)


def test_sequential_kernel_has_nothing_to_check():
    s = stmt(acc("A", (aff(i=1),)), acc("A", (aff(1, i=1),)))
    report = check_kernel(kernel([array("A", (9,), "ram_1p")], [loop("i", 0, 7, [s])]), {})
    assert (report.loops, report.accesses_checked, report.ok) == ((), 0, True)
    assert isinstance(report, CheckReport)


def test_chunks_give_the_same_verdict(monkeypatch):
    import arraypart.check.driver as driver
    k = cross_kernel()
    whole = check_kernel(k, banked("buf", cyclic((N, N), 2, 2)))
    seq = unrolled_with_sequential_inner_kernel()
    seq_whole = check_kernel(seq, {})
    monkeypatch.setattr(driver, "CHUNK_CELLS", 5)
    assert check_kernel(k, banked("buf", cyclic((N, N), 2, 2))) == whole
    monkeypatch.setattr(driver, "CHUNK_CELLS", 1)
    assert check_kernel(seq, {}) == seq_whole


# ---------------------------------------------------------------- kernel files
# (each suite kernel on one memory per array: test_end_to_end, on its one compile)

def test_denoise_file_conflicts_on_one_memory():
    path = Path(__file__).resolve().parent.parent / "kernels" / "denoise.c"
    report = check_kernel(parse_kernel(str(path)), {})
    fill, stencil = report.loops
    assert (fill.achieved_ii, stencil.achieved_ii) == (1, 4)
    c = stencil.first_conflict
    assert (c.iteration, c.array, c.reads, c.ports) == (0, "buf", 4, "ram_1p")
    assert sorted(a.address for a in c.accesses) == [(0, 1), (1, 0), (1, 2), (2, 1)]
    assert all(a.coord.file.endswith("denoise.c") and a.coord.line in (18, 19)
               for a in c.accesses)


# Sequential loops around a pipelined one: t and u are read by nothing below them (the
# walk enters their first iteration only), r is (the guard and the index).  The loop
# gets a third read from r = 2 on, so its first conflict comes after 2 * n * 8 steps.
COLLAPSIBLE = """
void frames(const int a[64], int out[64], int n) {
  for (int t = 0; t < 3; t++)
    for (int r = 0; r < 4; r++)
      for (int u = 0; u < n; u++) {
#pragma HLS LOOP_TRIPCOUNT max=5
        L: for (int i = 0; i < 8; i++) {
#pragma HLS pipeline II=1
          int s = a[r * 8 + i] + a[r * 8 + i + 1];
          if (r >= 2) s += a[r * 8 + i + 2];
          out[i] = s;
        }
      }
}
"""


@pytest.mark.parametrize("rule", [False, True])
def test_collapsed_loops_give_the_whole_runs_counts_and_first_conflict(monkeypatch, rule):
    """Entering only the first iteration of the loops nothing below reads gives the
    same verdict, the same iteration and access counts and the same first conflict
    (its step counted in the whole run's execution order) as walking them all."""
    from arraypart import frontend, poly
    from arraypart.check import driver, frames, walk
    kernel = poly.bound_sizes(frontend.parse_source(COLLAPSIBLE, "frames.c",
                                                    pipeline_loops=False))
    region = next(walk.regions(kernel))
    assert walk.collapsed(region) == (True, False, True)
    collapsed = check_kernel(kernel, {}, ports=2, rule=rule)
    every = lambda region: (False,) * len(region.path)
    monkeypatch.setattr(walk, "collapsed", every)
    monkeypatch.setattr(driver, "collapsed", every)
    walked = check_kernel(kernel, {}, ports=2, rule=rule)
    assert collapsed == walked
    loop = collapsed.loops[0]
    n_values = frames.checked_values(next(p for p in kernel.params if p.name == "n"))
    assert loop.iterations == sum(3 * 4 * n * 8 for n in n_values)
    assert loop.achieved_ii == 2 and loop.first_conflict is not None
    first_n = next(n for n in n_values if n > 0)
    assert loop.first_conflict.iteration == 2 * first_n * 8
    assert dict(loop.first_conflict.point)["r"] == 2


@st.composite
def sequential_nests(draw):
    """A pipelined loop inside 1-3 sequential loops of 1-3 trips, some of whose
    iterators the body reads (in an index or in a guard that adds a read), some not."""
    depth = draw(st.integers(1, 3))
    loops = [(f"t{d}", draw(st.integers(1, 3)), draw(st.booleans())) for d in range(depth)]
    read = [v for v, _, used in loops if used] or ["0"]
    shift = " + ".join(read)
    guard = draw(st.sampled_from(read))
    cut = draw(st.integers(0, 2))
    header = "".join(f"for (int {v} = 0; {v} < {n}; {v}++)\n" for v, n, _ in loops)
    return f"""
void nest(const int a[32], int out[8]) {{
{header}    L: for (int i = 0; i < 8; i++) {{
#pragma HLS pipeline II=1
      int s = a[i + {shift}] + a[i + 1];
      if ({guard} >= {cut}) s += a[i + 2 + {shift}];
      out[i] = s;
    }}
}}
"""


@settings(max_examples=25, deadline=None, derandomize=True)
@given(sequential_nests(), st.sampled_from((1, 2)), st.booleans())
def test_collapsing_unread_loops_changes_no_check_result(source, ports, rule):
    from arraypart import frontend, poly
    from arraypart.check import driver, walk
    kernel = poly.bound_sizes(frontend.parse_source(source, "nest.c", pipeline_loops=False))
    collapsed = check_kernel(kernel, {}, ports=ports, rule=rule)
    every = lambda region: (False,) * len(region.path)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(walk, "collapsed", every)
        patch.setattr(driver, "collapsed", every)
        walked = check_kernel(kernel, {}, ports=ports, rule=rule)
    assert collapsed == walked


# Unread, read, unread around a pipelined loop of 64: the first collapsed loop's trip
# column keeps the one row of the top frame while the read loop multiplies the rows.
UNREAD_READ_UNREAD = """
void coll(const int in[64], int out[8][64]) {
  for (int t = 0; t < 3; t++)
    for (int r = 0; r < 8; r++)
      for (int s = 0; s < 2; s++)
        for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
          out[r][i] = in[i] + r;
        }
}
"""


@pytest.mark.parametrize("rule", [False, True])
def test_collapsed_trip_columns_of_one_row_weigh_every_row(monkeypatch, rule):
    """The entries' weights broadcast a one-row trip column over the rows (an internal
    error before, on every compile of such a nest: Merlin's cnn kernel)."""
    from arraypart import frontend, poly
    from arraypart.check import driver, walk
    kernel = poly.bound_sizes(frontend.parse_source(UNREAD_READ_UNREAD, "coll.c",
                                                    pipeline_loops=False))
    assert walk.collapsed(next(walk.regions(kernel))) == (True, False, True)
    collapsed = check_kernel(kernel, {}, ports=2, rule=rule)
    assert collapsed.loops[0].iterations == 3 * 8 * 2 * 64
    every = lambda region: (False,) * len(region.path)
    monkeypatch.setattr(walk, "collapsed", every)
    monkeypatch.setattr(driver, "collapsed", every)
    assert check_kernel(kernel, {}, ports=2, rule=rule) == collapsed


def test_check_reports_the_emitted_code_at_the_users_lines(compiled_once):
    """`check` replays the emitted code (comments and pragmas added above the loops),
    but names the positions of the user's file: the loop at 4:5, the references at
    8:13, 8:34 and 8:51.  They were the emitted text's (loop L11 at 11:5), under the
    user's file name."""
    report = compiled_once("chained.c", CHAINED_LANES).report  # test_search's too
    path, result = report.kernel.path, report.scheduled  # what `check` reports
    assert [(lp.name, lp.coord.line, lp.coord.col) for lp in result.loops] == [
        ("L3", 3, 5), ("L4", 4, 5), ("L11", 11, 5)]
    missed = result.loops[1]
    assert missed.achieved_ii > 1
    sites = {(str(path), 8, 13), (str(path), 8, 34), (str(path), 8, 51)}
    assert {(a.coord.file, a.coord.line, a.coord.col)
            for a in missed.first_conflict.accesses} <= sites
    assert {(d.coord.file, d.coord.line, d.coord.col) for d in missed.dynamic_sites} <= sites


def test_the_emitted_codes_loops_keep_the_original_names(tmp_path):
    """The emitted file starts with two comment lines, so its loops stand two lines
    lower; a sub-function's loop was reported as ``pack/L6`` by check and as
    ``pack/L4`` by compile (probe 27b, item 7)."""
    path = tmp_path / "k.cpp"
    path.write_text("void pack(int buf[16], const int in[64]) {\n"
                    "  for (int i = 0; i < 16; i++) {\n#pragma HLS pipeline II=1\n"
                    "    buf[i] = in[4 * i] + in[4 * i + 1] + in[4 * i + 2];\n  }\n}\n"
                    "void k(const int in[64], int out[16]) {\n  int buf[16];\n"
                    "  pack(buf, in);\n"
                    "  for (int i = 0; i < 16; i++) {\n#pragma HLS pipeline II=1\n"
                    "    out[i] = buf[i];\n  }\n}\n")
    report = api.analyze(str(path))
    assert [loop.name for loop in report.scheduled.loops] == ["pack/L2", "L10"]
    assert [loop.name for loop in report.scheduled.loops] == [
        loop.name for loop in report.model.loops]


# Reads of a local array's elements that nothing wrote (probe 38 L2).
UNWRITTEN = """void unwritten(float out[32], const float img[32], const int pick[32]) {
  float temp[32];
  float zeros[32] = {0};
  static float kept[32];
  float sum[32];
  float full[32];
  for (int j = 1; j < 15; j++) {
#pragma HLS pipeline
    temp[2 * j] = img[j];
    temp[2 * j + 1] = img[j] + img[j + 1];
  }
  for (int j = 0; j < 32; j++) full[j] = img[j];
  for (int j = 0; j < 32; j++) {
#pragma HLS pipeline
    sum[j] += img[j];
    out[j] = temp[j] + temp[(j + 1) % 32] + zeros[j] + kept[j] + sum[j] + full[j];
    if (pick[j] > 0) out[j] += temp[0];
  }
}
"""


def test_reads_before_any_write_of_a_local_are_located_warnings(tmp_path):
    """At analysis time, with no testbench run: temp[0], temp[1], temp[30] and
    temp[31] are read and never written, and each sum[j] is read by ``+=`` before
    its own write (the testbench compared whatever the two kernels' stacks held and
    could print PASS).  An initialized, a static and a fully written local are not
    warned about, nor is a read under a data-dependent if (it may never run)."""
    path = tmp_path / "unwritten.c"
    path.write_text(UNWRITTEN)
    report = api.analyze(path)
    found = [w for w in report.warnings if "before anything writes it" in w]
    assert [w.split(": warning: ")[0] + " " + w.split(" reads ")[1].split()[0]
            for w in found] == [f"{path}:16:14 temp[0]", f"{path}:16:24 temp[0]",
                                f"{path}:15:5 sum[0]"]
    assert "sum[j] reads sum[0] before anything writes it (the kernel declares sum " \
           "without an initializer)" in found[2]


def test_the_testbench_pass_names_the_reads_of_undefined_elements(tmp_path):
    """The testbench's PASS was silent where the original reads elements nothing wrote
    (probe 38 L2): both kernels may compare the same undefined value.  It now names
    those reads; a kernel without them prints PASS alone."""
    path = tmp_path / "unwritten.c"
    path.write_text(UNWRITTEN)
    tb = api.compile_kernel(path).files["unwritten_tb.cpp"]
    assert '"(at 16:14, 16:24, 15:5 of the kernel file)' in tb
    path.write_text(UNWRITTEN.replace("  float temp[32];", "  float temp[32] = {0};")
                    .replace("  float sum[32];", "  static float sum[32];"))
    assert "note: the original reads" not in api.compile_kernel(path).files["unwritten_tb.cpp"]


# Three reads of a three-element local per cycle: one memory would need II 2.
TAPS = """void taps(const int in[16], int out[14]) {
  int w[3];
  for (int i = 0; i < 3; i++) w[i] = in[i] + 1;
  for (int i = 0; i < 14; i++) {
#pragma HLS pipeline II=1
    int a = in[i];
    out[i] = w[0] * a + w[1] * a + w[2] * a;
  }
}
"""
TINY_NOTE = ("Vitis partitions this array completely (3 elements < config_array_partition "
             "-complete_threshold 4)")


def test_as_written_models_vitis_complete_partition_of_tiny_locals(tmp_path):
    """Vitis partitions a local array of fewer than ``complete_threshold`` (4) elements
    completely on its own (UG1399, config_array_partition): ``check --as-written`` took
    w[3] for one memory, a false conflict at II 2 (probe 38 L4).  Bound by the user's
    pragma, or static, it stays the memory written."""
    path = tmp_path / "taps.c"
    path.write_text(TAPS)
    report, bankings, checked = api.check_kernel(path, as_written=True)
    assert bankings["w"].scheme.registers and [lp.achieved_ii for lp in checked.loops] == [1, 1]
    assert auto_partition_notes(report.kernel, COMPLETE_THRESHOLD) == {"w": TINY_NOTE}
    out = check_json(report, checked, bankings, as_written=True,
                     automatic=auto_partition_notes(report.kernel, COMPLETE_THRESHOLD))
    assert [a["vitis_partition"] for a in out["arrays"]] == [None, None, TINY_NOTE]
    path.write_text(TAPS.replace(
        "  int w[3];\n", "  int w[3];\n#pragma HLS bind_storage variable=w type=ram_2p\n"))
    report, bankings, checked = api.check_kernel(path, as_written=True)
    assert bankings["w"].scheme.banks == 1 and [lp.achieved_ii for lp in checked.loops] == [1, 2]
    assert auto_partition_notes(report.kernel, COMPLETE_THRESHOLD) == {}
    path.write_text(TAPS.replace("  int w[3];", "  static int w[3];"))  # a global to LLVM
    assert auto_partition_notes(parse_kernel(path), COMPLETE_THRESHOLD) == {}


def test_a_loop_no_replayed_size_runs_is_said_unchecked_not_ok(tmp_path):
    """A loop under ``if (n > 100)`` with n at most 50 runs no step in the replay: it
    was printed ``ok ... 0 iterations`` (probe 39b M2); it is now said not checked."""
    path = tmp_path / "g2.c"
    path.write_text("""void g2(unsigned n, const int in[64], int out[64]) {
  int buf[16];
  for (int i = 0; i < 16; i++) buf[i] = in[i];
  if (n > 100) {
    for (int i = 0; i < 16; i++) {
#pragma HLS pipeline II=1
      out[i] = buf[i] + buf[15 - i];
    }
  }
}
""")
    report = api.analyze(path, defines=(("ARRAYPART_MAX_n", 50),))
    result = check_kernel(report.kernel, report.solution.bankings())
    ran, never = result.loops
    assert ran.iterations == 16 and ": ok: " in ran.format()
    assert never.iterations == 0 and never.ok
    assert ": not run at the sizes replayed, so not checked" in never.format()
