"""The polyhedral model: domains, access maps, bounds errors, cycle groups."""

import time
from pathlib import Path

import islpy as isl
import pytest

import arraypart
from arraypart import check, frontend, ir
from arraypart import expr as E
from arraypart.errors import Coord, KernelError
from arraypart.poly import access_relations, build_model

ROOT = Path(__file__).resolve().parent.parent
F = "k.c"


# ---------------------------------------------------------------- IR builders


def at(line, col=1):
    return Coord(F, line, col)


def aff(const=0, **coeffs):
    return E.affine(coeffs, const)


def v(name):
    return E.var(name)


def c(value):
    return E.const(value)


def loop(var, init, bound, body, step=1, name=None, line=1, ii=None, unroll=None):
    """``for (var = init; var <= bound; var += step)`` (init/bound: Expr or tuple)."""
    init = init if isinstance(init, tuple) else (init,)
    bound = bound if isinstance(bound, tuple) else (bound,)
    return ir.Loop(var, init, bound, step, tuple(body), name or f"L{line}", at(line),
                   pipeline_ii=ii, unroll=unroll)


def acc(array, *index, kind="read", ref=0, line=1, col=1):
    return ir.Access(array, tuple(index), kind, ref, at(line, col))


def stmt(*accesses, line=1):
    return ir.Stmt(tuple(accesses), at(line))


def ge(e):
    return ir.Constraint(e, ">=")


def eq(e):
    return ir.Constraint(e, "==")


def array(name, *shape, storage=None):
    return ir.Array(name, tuple(shape), "int", 32, False, at(1), storage=storage)


def kernel(arrays, *body):
    return ir.Kernel("k", "k", F, tuple(arrays), tuple(body), at(1))


def the_domain(k):
    (relation,) = access_relations(k)
    return relation.domain


def same(s, text):
    return s.is_equal(isl.Set(text))


# ---------------------------------------------------------------- domains and maps


def test_3d_array_domain_and_access_map():
    k = kernel([array("A", 4, 5, 6)],
               loop("i", c(0), c(3), [loop("j", c(0), c(4), [loop("k", c(0), c(5), [
                   stmt(acc("A", v("i"), v("j"), v("k"), kind="write"))])])]))
    (relation,) = access_relations(k)
    assert same(relation.domain, "{[i,j,k] : 0 <= i <= 3 and 0 <= j <= 4 and 0 <= k <= 5}")
    expected = isl.Map("{[i,j,k] -> A[i,j,k] : 0 <= i <= 3 and 0 <= j <= 4 and 0 <= k <= 5}")
    assert relation.access_map.is_equal(expected)


def test_triangular_nest():
    k = kernel([array("A", 8, 8)],
               loop("i", c(0), c(7), [loop("j", c(0), v("i"), [
                   stmt(acc("A", v("i"), v("j")))])]))
    assert same(the_domain(k), "{[i,j] : 0 <= i <= 7 and 0 <= j <= i}")
    assert build_model(k).array("A").max_concurrent == 1


def test_stride_and_negative_steps():
    k = kernel([array("A", 32)],
               loop("i", c(2), c(20), [stmt(acc("A", v("i")))], step=3),
               loop("j", c(10), c(0), [stmt(acc("A", v("j"), ref=1))], step=-2),
               loop("m", c(9), c(0), [stmt(acc("A", v("m"), ref=2))], step=-1))
    strided, downward, down1 = access_relations(k)
    assert same(strided.domain, "{[i] : 2 <= i <= 20 and (i - 2) mod 3 = 0}")
    assert same(downward.domain, "{[j] : 0 <= j <= 10 and j mod 2 = 0}")
    assert same(down1.domain, "{[m] : 0 <= m <= 9}")


def test_min_max_bounds():
    k = kernel([array("A", 10, 10)],
               loop("i", c(0), c(9), [loop("j", (c(0), aff(-1, i=1)), (c(9), aff(1, i=1)), [
                   stmt(acc("A", v("i"), v("j")))])]))
    assert same(the_domain(k),
                "{[i,j] : 0 <= i <= 9 and 0 <= j <= 9 and i - 1 <= j <= i + 1}")


def test_if_guards_then_and_else():
    # if (i < 3 || (i >= 7 && i == j)) A[...] else B[...]
    cond = ((ge(aff(2, i=-1)),), (ge(aff(-7, i=1)), eq(aff(i=1, j=-1))))
    guarded = ir.If(cond, (stmt(acc("A", v("i"))),), (stmt(acc("B", v("j"), ref=1)),), at(3))
    k = kernel([array("A", 10), array("B", 10)],
               loop("i", c(0), c(9), [loop("j", c(0), c(9), [guarded])]))
    then_rel, else_rel = access_relations(k)
    box = "0 <= i <= 9 and 0 <= j <= 9"
    assert same(then_rel.domain, f"{{[i,j] : {box} and (i <= 2 or (i >= 7 and j = i))}}")
    assert same(else_rel.domain, f"{{[i,j] : {box} and i >= 3 and (i <= 6 or j != i)}}")


def test_non_affine_guard_restricts_nothing():
    guarded = ir.If(None, (stmt(acc("A", v("i"))),), (stmt(acc("A", v("i"), ref=1)),), at(2),
                    cond_accesses=(acc("B", v("i"), ref=2),))
    k = kernel([array("A", 4), array("B", 4)], loop("i", c(0), c(3), [guarded]))
    domains = [r.domain for r in access_relations(k)]
    assert [r.access.array for r in access_relations(k)] == ["B", "A", "A"]
    assert all(same(d, "{[i] : 0 <= i <= 3}") for d in domains)


def test_quasi_affine_mask_index_and_guard():
    # for k < 1000: if (k % 4 == 0) A[k & 127] = ...
    guard = ir.If(((eq(E.mod(v("k"), 4)),),), (stmt(acc("A", E.mod(v("k"), 128))),), (), at(2))
    k = kernel([array("A", 128)], loop("k", c(0), c(999), [guard]))
    (relation,) = access_relations(k)
    assert same(relation.domain, "{[k] : 0 <= k <= 999 and k mod 4 = 0}")
    expected = "{[k] -> A[k mod 128] : 0 <= k <= 999 and k mod 4 = 0}"
    assert relation.access_map.is_equal(isl.Map(expected))
    build_model(k)  # in bounds: no error


def test_irregular_dimension_is_unconstrained_and_warned():
    k = kernel([array("A", 8, 16)],
               loop("i", c(0), c(7), [stmt(acc("A", v("i"), None, line=4, col=9))]))
    (relation,) = access_relations(k)
    assert relation.access_map.is_equal(isl.Map("{[i] -> A[i, x] : 0 <= i <= 7}"))
    model = build_model(k)
    assert model.warnings == ("k.c:4:9: warning: A[i][?]: the index in dimension 1 of A "
                              "is not affine; assuming it may be any index there",)


# ---------------------------------------------------------------- bounds check


def test_out_of_bounds_names_reference_dimension_and_example():
    k = kernel([array("A", 64)],
               loop("i", c(0), c(63), [stmt(acc("A", aff(1, i=1), line=5, col=12))]))
    with pytest.raises(KernelError) as info:
        build_model(k)
    assert info.value.coord == Coord(F, 5, 12)
    assert str(info.value) == ("k.c:5:12: error: A[i + 1] leaves A (dimension 0 has size "
                               "64): at i = 63 the index is 64")


def test_out_of_bounds_negative_in_second_dimension():
    k = kernel([array("A", 8, 8)],
               loop("i", c(0), c(7), [loop("j", c(0), c(7), [
                   stmt(acc("A", v("i"), aff(-1, j=1), line=7, col=3))])]))
    with pytest.raises(KernelError) as info:
        build_model(k)
    assert info.value.message == ("A[i][j - 1] leaves A (dimension 1 has size 8): "
                                  "at i = 0, j = 0 the index is -1")


def test_guard_and_zero_trip_loops_make_bounds_safe():
    guard = ir.If(((ge(aff(62, i=-1)),),), (stmt(acc("A", aff(1, i=1))),), (), at(2))
    empty_loop = loop("j", c(5), c(4), [stmt(acc("A", aff(100, j=1), ref=1))])
    k = kernel([array("A", 64)], loop("i", c(0), c(63), [guard]), empty_loop)
    model = build_model(k)
    assert model.array("A").max_concurrent == 1


# ---------------------------------------------------------------- cycle groups


def _stencil(offsets, rows=64, cols=64, ii=1):
    reads = [acc("buf", aff(di, i=1), aff(dj, j=1), ref=n, line=10, col=n + 1)
             for n, (di, dj) in enumerate(offsets)]
    body = [stmt(*reads, acc("out", v("i"), v("j"), kind="write", ref=len(offsets)))]
    last_i = rows - 1 - max(di for di, _ in offsets)
    last_j = cols - 1 - max(dj for _, dj in offsets)
    return kernel([array("buf", rows, cols, storage="ram_1p"), array("out", rows, cols)],
                  loop("i", c(0), c(last_i), [
                      loop("j", c(0), c(last_j), body, name="col", line=9, ii=ii)]))


def test_denoise_group_lanes():
    offsets = [(0, 1), (1, 0), (1, 2), (2, 1)]
    model = build_model(_stencil(offsets))
    buf = model.array("buf")
    assert buf.ports.name == "ram_1p" and buf.max_concurrent == 4
    (group,) = buf.groups
    assert (group.loop, group.time_vars, group.target_ii) == ("col", ("i", "j"), 1)
    assert [a.index for a in group.accesses] == [
        (aff(di, i=1), aff(dj, j=1)) for di, dj in offsets]
    assert same(group.domain, "{[i,j] : 0 <= i <= 61 and 0 <= j <= 61}")
    assert (group.trip_count, group.total_iterations) == (62, 62 * 62)
    assert model.array("out").max_concurrent == 1
    assert [(l.name, l.trip_count, l.arrays) for l in model.loops] == [
        ("col", 62, ("buf", "out"))]


def test_sobel_inner_loops_are_unrolled_into_lanes():
    # for i, j (pipelined): for a < 3: for b < 3: acc += buf[i+a][j+b]; buf[i+1][j+1] again
    window = loop("a", c(0), c(2), [loop("b", c(0), c(2), [
        stmt(acc("buf", aff(i=1, a=1), aff(j=1, b=1)))])], line=4)
    centre = stmt(acc("buf", aff(1, i=1), aff(1, j=1), ref=1))
    k = kernel([array("buf", 64, 64)], loop("i", c(0), c(61), [
        loop("j", c(0), c(61), [window, centre], ii=2, name="pipe")]))
    (group,) = build_model(k).array("buf").groups
    lanes = [a.lane for a in group.accesses]
    assert lanes[:9] == [(("a", a), ("b", b)) for a in range(3) for b in range(3)]
    assert group.accesses[5].index == (aff(1, i=1), aff(2, j=1))
    assert group.target_ii == 2
    assert build_model(k).array("buf").max_concurrent == 9


def test_partial_unroll_remainder_lanes():
    # for i in 0..9, pipelined and unrolled by 4: the last block holds i = 8, 9 only
    k = kernel([array("A", 10)], loop("i", c(0), c(9), [stmt(acc("A", v("i")))],
                                      ii=1, unroll=4, name="u"))
    (group,) = build_model(k).array("A").groups
    assert same(group.domain, "{[i] : i = 0 or i = 4 or i = 8}")
    # i is a time variable (a lane's value depends on its block): not recorded
    assert [a.lane for a in group.accesses] == [()] * 4
    assert [a.index for a in group.accesses] == [(aff(n, i=1),) for n in range(4)]
    full, last = "{[i] : i = 0 or i = 4 or i = 8}", "{[i] : i = 0 or i = 4}"
    assert [same(a.domain, full) for a in group.accesses] == [True, True, False, False]
    assert all(same(a.domain, last) for a in group.accesses[2:])
    assert (group.trip_count, group.total_iterations) == (3, 3)
    assert build_model(k).array("A").max_concurrent == 4


def test_unroll_outside_pipeline_with_sequential_inner_loop():
    # for i < 8 (unroll 2): { A[i] = 0; for j < 5: B[i][j] += 1 }
    inner = loop("j", c(0), c(4), [stmt(acc("B", v("i"), v("j"), ref=1),
                                        acc("B", v("i"), v("j"), kind="write", ref=1))],
                 name="seq")
    k = kernel([array("A", 8), array("B", 8, 5)],
               loop("i", c(0), c(7), [stmt(acc("A", v("i"), kind="write")), inner],
                    unroll=2, name="par"))
    model = build_model(k)
    (a_group,) = model.array("A").groups
    (b_group,) = model.array("B").groups
    assert a_group.time_vars == ("i",) and b_group.time_vars == ("i", "j")
    assert same(b_group.domain, "{[i,j] : 0 <= i <= 6 and i mod 2 = 0 and 0 <= j <= 4}")
    assert [(a.kind, a.index) for a in b_group.accesses] == [
        (kind, (aff(n, i=1), aff(j=1))) for kind in ("read", "write") for n in range(2)]
    assert model.array("B").max_concurrent == 2
    assert (a_group.loop, a_group.target_ii, a_group.trip_count) == ("par", 1, 4)
    assert b_group.total_iterations == 20


def test_trip_count_is_the_longest_entry_of_a_triangular_pipeline():
    # for i < 64: for j <= i (pipelined, unroll 5): acc += L[i][j] * x[j]
    body = [stmt(acc("L", v("i"), v("j")), acc("x", v("j"), ref=1))]
    k = kernel([array("L", 64, 64), array("x", 64)], loop("i", c(0), c(63), [
        loop("j", c(0), v("i"), body, ii=1, unroll=5, name="dot")]))
    model = build_model(k)
    (group,) = model.array("L").groups
    assert group.trip_count == 13 and model.loops[0].trip_count == 13
    assert group.total_iterations == sum(-(-(i + 1) // 5) for i in range(64))
    assert same(group.accesses[4].domain,
                "{[i,j] : 0 <= i <= 63 and 0 <= j and j + 4 <= i and j mod 5 = 0}")
    assert model.array("x").max_concurrent == 5


def test_complete_unroll_outside_pipeline():
    k = kernel([array("A", 4)], loop("i", c(0), c(3), [stmt(acc("A", v("i")))], unroll=0))
    (group,) = build_model(k).array("A").groups
    assert group.time_vars == () and group.total_iterations == 1
    assert [a.index for a in group.accesses] == [(c(n),) for n in range(4)]
    assert [a.lane for a in group.accesses] == [(("i", n),) for n in range(4)]


def test_inner_loop_start_affine_in_time_vector():
    # for i (pipelined): for k = i; k < i + 3: A[k]
    k = kernel([array("A", 12)], loop("i", c(0), c(9), [
        loop("k", v("i"), aff(2, i=1), [stmt(acc("A", v("k")))])], ii=1))
    (group,) = build_model(k).array("A").groups
    assert [a.index for a in group.accesses] == [(aff(n, i=1),) for n in range(3)]
    # k starts at i: no lane's value is a constant, so none is recorded
    assert [a.lane for a in group.accesses] == [()] * 3


def test_non_constant_inner_trip_count_is_an_error():
    inner = loop("j", c(0), v("i"), [stmt(acc("A", v("j")))], line=6, name="tri")
    k = kernel([array("A", 8)], loop("i", c(0), c(7), [inner], ii=1, name="p"))
    with pytest.raises(KernelError) as info:
        build_model(k)
    assert info.value.coord == at(6)
    assert info.value.message == ("loop tri has no constant trip count (between 1 and 8), "
                                  "but inside pipelined loop p it is fully unrolled")


def test_guarded_lanes_and_exclusive_branches():
    # pipelined i: if (i < 5) { A[i]; A[i+1]; A[i] } else { A[i+2] }
    branch = ir.If(((ge(aff(4, i=-1)),),),
                   (stmt(acc("A", v("i")), acc("A", aff(1, i=1), ref=1), acc("A", v("i"), ref=2)),),
                   (stmt(acc("A", aff(2, i=1), ref=3)),), at(3))
    k = kernel([array("A", 12)], loop("i", c(0), c(9), [branch], ii=1))
    (group,) = build_model(k).array("A").groups
    assert [same(a.domain, "{[i] : 0 <= i <= 4}") for a in group.accesses] == [
        True, True, True, False]
    assert same(group.accesses[3].domain, "{[i] : 5 <= i <= 9}")
    assert build_model(k).array("A").max_concurrent == 2


def test_irregular_lanes_each_count_once():
    k = kernel([array("A", 16), array("C", 4)], loop("i", c(0), c(3), [
        stmt(acc("A", None), acc("A", None, ref=1), acc("A", v("i"), ref=2))], ii=1))
    model = build_model(k)
    assert model.array("A").max_concurrent == 3
    assert model.array("C").max_concurrent == 0 and model.array("C").groups == ()
    assert len(model.warnings) == 2


def test_huge_domain_is_counted_symbolically():
    k = kernel([array("A", 100000, 100000)], loop("i", c(0), c(99999), [
        loop("j", c(0), c(99999), [stmt(acc("A", v("i"), v("j")))], ii=1)]))
    start = time.process_time()
    (group,) = build_model(k).array("A").groups
    assert group.total_iterations == 10**10 and group.trip_count == 100000
    assert time.process_time() - start < 5


# ---------------------------------------------------------------- the kernel suite

DENOISE = [(0, 1), (1, 0), (1, 2), (2, 1)]
PATTERNS = {  # DESIGN §7, offsets (row, col) around (i, j)
    "denoise": DENOISE, "deconv": DENOISE + [(1, 1)],
    "denoise_ur": [(0, 1), (0, 2), (1, 0), (1, 1), (1, 2), (1, 3), (2, 1), (2, 2)],
    "bicubic": [(0, 0), (0, 2), (2, 0), (2, 2)],
    "sobel": [(a, b) for a in range(3) for b in range(3)] + [(0, 0), (1, 1)],
    "motion_lv": [(a, 0) for a in range(6)], "motion_lh": [(0, a) for a in range(6)],
    "motion_c": [(0, 0), (0, 1), (1, 0), (1, 1)]}

SUITE = {"denoise": 4, "deconv": 5, "denoise_ur": 8, "bicubic": 4, "sobel": 9,
         "motion_lv": 6, "motion_lh": 6, "motion_c": 4}


@pytest.mark.parametrize("name", sorted(SUITE))
def test_reference_patterns_max_concurrent(name):
    model = build_model(_stencil(PATTERNS[name], rows=70, cols=70))
    assert model.array("buf").max_concurrent == SUITE[name]


@pytest.mark.parametrize("name", sorted(SUITE))
def test_suite_max_concurrent(name):
    model = build_model(frontend.parse_kernel(ROOT / "kernels" / f"{name}.c"))
    assert model.array("buf").max_concurrent == SUITE[name]


def test_out_of_bounds_from_c_source_is_located():
    text = ("void k(int A[64], int B[64])\n"
            "{\n"
            "    for (int i = 0; i < 64; i++) {\n"
            "#pragma HLS pipeline II=1\n"
            "        B[i] = A[i + 1];\n"
            "    }\n"
            "}\n")
    with pytest.raises(KernelError) as info:
        build_model(frontend.parse_source(text, "oob.c"))
    assert (info.value.coord.file, info.value.coord.line) == ("oob.c", 5)
    assert info.value.message == ("A[i + 1] leaves A (dimension 0 has size 64): "
                                  "at i = 63 the index is 64")


DIAGONAL_COPIES = """\
void diagonal(int logit[16][16], int out[16][16]) {
  for (int k = 0; k < 46; ++k)
    for (int c = 4; c > 0; --c) {
#pragma HLS unroll
      for (int i = c * 4 - 1; i > (c - 1) * 4 - 1; --i) {
#pragma HLS pipeline II=1
        for (int j = 15; j >= 0; --j)
          out[i][j] = (k - i - j >= 0 && k - i - j < 16) ? logit[i][k - i - j] : 0;
      }
    }
}
"""


def test_concurrency_of_lockstep_copies_is_the_busiest_step():
    """The 4 copies of the pipelined ``i`` loop run in lockstep at i = 4c - 1 - s;
    copy c reads 16 - |k - i - 15| elements of ``logit`` in row i, at most 16, and
    the four together at most 64 - 16 = 48 (k - 3 + s in [7, 11]).  Their 64 lanes
    live on 28 distinct domains, which the concurrency refines exactly (it used to
    count every lane past 16 domains: 64)."""
    model = build_model(frontend.parse_source(DIAGONAL_COPIES, "diagonal.c"))
    assert model.array("logit").max_concurrent == 48
    assert model.array("out").max_concurrent == 64


ROWS_AROUND_A_PIPELINE = """
void ell(const int nz[100], int out[10]) {
#pragma HLS array_partition variable=out type=block factor=2
    for (int i = 0; i < 10; i++) {
#pragma HLS unroll factor=2
        int sum = out[i];
        for (int j = 0; j < 10; j++) {
#pragma HLS pipeline
            sum += nz[j + i * 10];
        }
        out[i] = sum;
    }
}
"""


@pytest.mark.parametrize("ports, ii", [(2, 1), (1, 2)])
def test_statements_either_side_of_a_timed_loop_are_not_one_cycle(tmp_path, ports, ii):
    """The two lanes of ``i`` read ``out[i]`` and ``out[i + 1]`` (bank 0 of block 2
    at i = 0) before their pipelined ``j`` loop and write them after it: the reads
    and the writes are steps of their own, as the checker's runs have them, so
    block 2 serves the reads on its two ports (probe 36 F2, MachSuite spmv/ellpack:
    the model lumped them into one cycle, three accesses of bank 0, and failed the
    user's partition that the checker passed); on one port it misses, in both."""
    kernel = frontend.parse_source(ROWS_AROUND_A_PIPELINE, "ell.c")
    model = build_model(kernel, ports=ports)
    out = model.array("out")
    assert sorted(sorted(a.kind for a in g.accesses) for g in out.groups) == [
        ["read", "read"], ["write", "write"]]
    assert out.max_concurrent == 2
    path = tmp_path / "ell.c"
    path.write_text(ROWS_AROUND_A_PIPELINE)
    report = arraypart.analyze(path, ports=ports)
    solved = next(a for a in report.solution.arrays if a.array.name == "out")
    assert solved.banking.scheme.describe().startswith("per_dim block 2")
    assert solved.conflict_free == (ii == 1)
    assert [lp["achieved_ii"] for lp in report.to_json()["loops"]] == [ii]
    checked = check.check_kernel(report.kernel, report.solution.bankings(), ports=ports)
    assert [loop.achieved_ii for loop in checked.loops] == [ii]


def test_an_off_chip_array_read_either_side_of_a_timed_loop_is_two_steps(tmp_path):
    """Each of two lanes reads ``p`` before its pipelined loop and again after it:
    two reads of the bundle per step, II 2 in the bundle count, the loop table and
    the checker (the bundle count took the four reads as one cycle: II 4)."""
    path = tmp_path / "mx.c"
    path.write_text(ROWS_AROUND_A_PIPELINE.replace(
        "void ell(const int nz[100], int out[10]) {",
        "void ell(const int *p, const int nz[100], int out[10]) {\n"
        "#pragma HLS INTERFACE m_axi port=p depth=64 bundle=gmem").replace(
        "int sum = out[i];", "int sum = p[i];").replace(
        "out[i] = sum;", "out[i] = sum + p[i + 20];"))
    report = arraypart.analyze(path)
    assert [loop.bundle_ii for loop in report.model.loops] == [2]
    assert [lp["achieved_ii"] for lp in report.to_json()["loops"]] == [2]
    checked = check.check_kernel(report.kernel, report.solution.bankings())
    assert [loop.achieved_ii for loop in checked.loops] == [2]
