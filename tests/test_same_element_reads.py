"""Reads of one element through one irregular subscript in one iteration count once
(DESIGN §2: identical reads of a step are one port use; the HLS tool loads the element
once), as regular ones always did (probe 34 F7: an FFT's ``X[i]`` and ``X[lo]``, each
read twice, held every stage at II 2)."""

import numpy as np
import pytest

import arraypart
from arraypart import check

from conftest import (array, assert_the_testbench_passes, assert_the_trace_agrees,
                      needs_gxx, write)

# X[lo] twice and X[i] twice, lo and i unchanged between: two elements a step.
BUTTERFLY = """void k(const float X[64], float O[64]) {
  int i = 0;
  for (int j = 0; j < 32; j++) {
#pragma HLS PIPELINE II=1
    int lo = i + 1;
    float t = X[lo] * 2.0f + X[lo];
    O[lo] = X[i] - t;
    O[i] = X[i] + t;
    i = (i >= 60) ? i - 59 : i + 2;
  }
}
"""

# Three elements of buf a step, five reads: two copies of a two-port memory.
THREE_OF_FIVE = """void d(const int in[64], const int idx[32], int out[32]) {
  int buf[64];
  for (int i = 0; i < 64; i++) {
#pragma HLS PIPELINE II=1
    buf[i] = in[i] * 3;
  }
  for (int j = 0; j < 32; j++) {
#pragma HLS PIPELINE II=1
    int a = idx[j] & 63;
    int b = (idx[j] >> 6) & 63;
    int e = (idx[j] >> 12) & 63;
    out[j] = buf[e] - buf[a] * buf[b] + buf[a] + buf[b];
  }
}
"""


def _loop_iis(report) -> list[int]:
    return [loop["achieved_ii"] for loop in report.to_json()["loops"]]


def test_reads_of_one_irregular_element_count_once(compiled_once):
    report = compiled_once("k.cpp", BUTTERFLY).report
    assert _loop_iis(report) == [1]
    x = array(report, "X")
    assert x.max_concurrent == 2 and x.banking.scheme.banks == 1 and x.conflict_free
    checked = check.check_kernel(report.kernel, report.solution.bankings())
    assert [(loop.achieved_ii, loop.ok) for loop in checked.loops] == [(1, True)]


def test_a_write_between_two_reads_makes_them_two_elements(tmp_path):
    text = BUTTERFLY.replace("    O[lo] = X[i] - t;\n",
                             "    O[lo] = X[i] - t;\n    i = i ^ 5;\n")
    report = arraypart.analyze(write(tmp_path, "k.cpp", text))
    assert array(report, "X").max_concurrent == 3
    one_port = arraypart.analyze(write(tmp_path, "k.cpp", BUTTERFLY), ports=1)
    assert _loop_iis(one_port) == [2]  # X[lo] and X[i]: two elements on one port
    assert check.check_kernel(one_port.kernel, one_port.solution.bankings(),
                              ports=1).loops[0].achieved_ii == 2


def test_reads_of_one_element_read_one_copy(compiled_once):
    compiled = compiled_once("d.cpp", THREE_OF_FIVE)
    assert _loop_iis(compiled.report) == [1, 1]
    buf = array(compiled.report, "buf").banking
    assert buf.copies == 2
    refs = {a.coord.col: a.ref_id for a in arraypart.ir.accesses(compiled.report.kernel.body)
            if a.array == "buf" and a.kind == "read"}
    first_a, first_b, second_a, second_b = refs[23], refs[32], refs[41], refs[50]
    assert buf.copy_expr(second_a) == buf.copy_expr(first_a)
    assert buf.copy_expr(second_b) == buf.copy_expr(first_b)
    assert buf.copy_expr(first_a) != buf.copy_expr(first_b)  # one of them is not copy 0
    checked = check.check_kernel(compiled.report.kernel, compiled.report.solution.bankings())
    assert [loop.achieved_ii for loop in checked.loops] == [1, 1]


@needs_gxx
def test_merged_reads_build_run_and_trace(compiled_once, tmp_path):
    for name, text in (("k.cpp", BUTTERFLY), ("d.cpp", THREE_OF_FIVE)):
        folder = tmp_path / name.split(".")[0]
        folder.mkdir()
        compiled = compiled_once(name, text)
        assert_the_testbench_passes(compiled, folder)
        assert_the_trace_agrees(compiled, folder, ports=2)


def test_a_scalar_written_through_its_address_gives_no_match(tmp_path):
    """``*p = ...`` writes k under another name: the two reads of X[k] around it may
    read two elements, as may reads through a pointer's target or a member."""
    text = """void k(const float X[64], const int idx[32], float O[32]) {
  int k = 0;
  int *p = &k;
  for (int j = 0; j < 32; j++) {
#pragma HLS PIPELINE II=1
    k = idx[j] & 63;
    float t = X[k];
    *p = (k * 7) & 63;
    O[j] = t + X[k];
  }
}
"""
    plain_text = text.replace("  int *p = &k;\n", "").replace("    *p = (k * 7) & 63;\n", "")
    for name, source, elements in (("k.cpp", text, 2), ("plain.cpp", plain_text, 1)):
        report = arraypart.analyze(write(tmp_path, name, source), ports=1)
        assert array(report, "X").max_concurrent == elements
        as_written = check.check_kernel(report.kernel,
                                        check.as_written_bankings(report.kernel), ports=1)
        assert as_written.loops[0].achieved_ii == elements  # on one rom_1p


# Two reads of A whose subscripts read alike but whose elements may differ: a helper
# before the top, the statements of one pipelined iteration (probe 34b F1-F3).
DIFFERENT_ELEMENTS = {
    "a callee's calls": ("int rd(const int *A, int k) { return A[k]; }\n",
                         "out[i] = rd(A, a[i] & 63) + rd(A, b[i] & 63);"),
    "a pointer bound anew": ("int rd0(const int *p) { return p[0]; }\n",
                             "int j = a[i] & 63; int t = rd0(A + j); j = b[i] & 63;\n"
                             "    out[i] = t + rd0(A + j);"),
    "a struct member": ("struct S { int k; };\n",
                        "S s; s.k = a[i] & 63; int t = A[s.k]; s.k = b[i] & 63;\n"
                        "    out[i] = t + A[s.k];"),
    "a comma": ("", "int k = a[i] & 63; int t;\n"
                    "    out[i] = (t = A[k], k = b[i] & 63, t + A[k]);"),
    "a flipped condition": ("", "int k = a[i] & 63; int m = b[i] & 63; bool c = in[i] > 0;\n"
                                "    int t = A[c ? k : m]; c = !c; out[i] = t + A[c ? k : m];"),
    "a global a callee reads": ("int g; int rdg(const int *A) { return A[g]; }\n",
                                "g = a[i] & 63; int t = rdg(A); g = b[i] & 63;\n"
                                "    out[i] = t + rdg(A);"),
    "a reference": ("", "int k = a[i] & 63; int &r = k; int t = A[k]; r = b[i] & 63;\n"
                        "    out[i] = t + A[k];"),
    # probe 34c: a file's own MIN by reference, float literals, an array's initializer
    "the file's own MIN": ("static int MIN(int &x, int y) { x = y; return x; }\n",
                           "int k = a[i] & 63; int t = A[k]; MIN(k, b[i] & 63);\n"
                           "    out[i] = t + A[k];"),
    "float literals": ("", "out[i] = A[(int)(i * 1.5f) & 63] + A[(int)(i * 2.5f) & 63];"),
    "an array's initializer": ("", "int k = a[i] & 63; int t = A[k];\n"
                                   "    int tmp[1] = {(k = b[i] & 63)};\n"
                                   "    out[i] = t + A[k];"),
}


@pytest.mark.parametrize("case", sorted(DIFFERENT_ELEMENTS))
def test_reads_that_may_differ_are_never_one(tmp_path, case):
    helper, body = DIFFERENT_ELEMENTS[case]
    text = (helper + "void K(const int a[64], const int b[64], const int in[64], "
            "int out[64]) {\n  int A[64];\n"
            "  for (int i = 0; i < 64; i++) A[i] = in[i] * 3;\n"
            "  for (int i = 0; i < 64; i++) {\n#pragma HLS pipeline II=1\n"
            f"    {body}\n  }}\n}}\n")
    report = arraypart.analyze(write(tmp_path, "K.cpp", text), ports=1)
    assert array(report, "A").max_concurrent == 2
    one = check.check_kernel(report.kernel, check.as_written_bankings(report.kernel), ports=1)
    assert one.loops[1].achieved_ii == 2  # A as one memory on one port: two elements a step


@needs_gxx
def test_a_scalar_a_stream_extracts_into_is_written(tmp_path):
    """``in >> k`` writes k through hls::stream's operator>>, which takes it by
    reference: X[k] and X[k ^ 1] before and after are four elements (probe 34c F4:
    two, and II 2 on one port where the trace measured 4)."""
    text = """#include "hls_stream.h"
void strm2(int X[1024], hls::stream<int> &in, int out[128]) {
  int k = 0;
  for (int j = 0; j < 128; j++) {
#pragma HLS pipeline II=1
    in >> k;
    k &= 1023;
    int a = X[k] + X[k ^ 1];
    in >> k;
    k &= 1023;
    out[j] = a + X[k] + X[k ^ 1];
  }
}
"""
    compiled = arraypart.compile_kernel(write(tmp_path, "strm2.cpp", text), ports=1)
    assert array(compiled.report, "X").max_concurrent == 4
    assert_the_trace_agrees(compiled, tmp_path, ports=1)


def test_reads_in_a_local_arrays_initializer_are_counted(tmp_path):
    """``int w[3] = {in[i], in[i + 1], in[i + 2]};`` in a pipeline reads three elements
    of in and writes w's three (probe 34c F5: in showed no access at all)."""
    text = """void winit(const int in[1026], int out[1024]) {
  for (int i = 0; i < 1024; i++) {
#pragma HLS pipeline II=1
    int w[3] = {in[i], in[i + 1], in[i + 2]};
    out[i] = w[0] + 2 * w[1] + w[2];
  }
}
"""
    report = arraypart.analyze(write(tmp_path, "winit.cpp", text))
    assert array(report, "in").max_concurrent == 3 and array(report, "w").max_concurrent == 3
    one = check.check_kernel(report.kernel, check.as_written_bankings(
        report.kernel, complete_threshold=0))
    assert one.loops[0].achieved_ii == 3  # w as one memory: three writes, three reads
    # as Vitis builds it, w (3 elements < 4) is partitioned completely: in's three reads
    vitis = check.check_kernel(report.kernel, check.as_written_bankings(report.kernel))
    assert vitis.loops[0].achieved_ii == 2
    # w becomes registers; in's reads rotate over any banks, and a declaration's
    # initializer is no statement the emitted code rewrites: II 2, as the rule gives
    assert _loop_iis(report) == [2]


# x = X[lo]; X[hi] = i; y = X[lo]: X[hi] may be X[lo], so the second read is a load of
# its own (the HLS tool cannot merge it with the first across a store that may alias).
READ_WRITE_READ = """void rwr(const int lo_in[64], const int hi_in[64], const int init[64],
         int out[64]) {
    int X[64];
STORAGE
    for (int t = 0; t < 64; t++) {
#pragma HLS pipeline
        X[t] = init[t];
    }
    for (int i = 0; i < 64; i++) {
#pragma HLS pipeline
#pragma HLS dependence variable=X type=inter dependent=false
        int lo = lo_in[i] & 63;
        int hi = hi_in[i] & 63;
        BODY
    }
}
"""
RWR = "int x = X[lo];\n        X[hi] = i;\n        int y = X[lo];\n        out[i] = x + y;"
RAM_1P = "#pragma HLS bind_storage variable=X type=ram_1p"


def _rwr(tmp_path, body: str = RWR, storage: str = ""):
    """The kernel with X one memory (``max_banks=1``), compiled; and the loop's II in
    the model, in the checker on the emitted bankings, and in the trace."""
    text = READ_WRITE_READ.replace("STORAGE", storage).replace("BODY", body)
    compiled = arraypart.compile_kernel(write(tmp_path, "rwr.cpp", text), max_banks=1)
    report = compiled.report
    checked = check.check_kernel(report.kernel, report.solution.bankings())
    judged = assert_the_trace_agrees(compiled, tmp_path, ports=2)
    return compiled, (_loop_iis(report)[1], checked.loops[1].achieved_ii,
                      judged.replay.loops[1].traced_ii)


@needs_gxx
@pytest.mark.parametrize("storage, ii", [("", 2), (RAM_1P, 3)])
def test_a_write_of_the_array_between_two_reads_makes_them_two_loads(tmp_path, storage, ii):
    """Probe 36 F1: read, write, read of X is three port uses (II 2 on ram_t2p, 3 on
    ram_1p); the two X[lo] counted as one read gave II 1 and 2, in the model, the
    checker and the trace alike."""
    compiled, iis = _rwr(tmp_path, storage=storage)
    assert iis == (ii, ii, ii)
    assert_the_testbench_passes(compiled, tmp_path)


@needs_gxx
@pytest.mark.parametrize("storage, ii", [("", 1), (RAM_1P, 2)])
def test_two_reads_with_no_write_between_still_count_once(tmp_path, storage, ii):
    """The negative control: x = X[lo] + X[lo] reads one element once (II 1), and so
    do two reads after the write, in one epoch (the write and one read: II ``ii``);
    with the write between them, they are two loads again."""
    assert _rwr(tmp_path, "out[i] = X[lo] + X[lo];", storage)[1] == (1, 1, 1)
    after = "X[hi] = i;\n        out[i] = X[lo] + X[lo];"
    assert _rwr(tmp_path, after, storage)[1] == (ii, ii, ii)
    between = "int x = X[lo];\n        X[hi] = i;\n        out[i] = x + X[lo];"
    assert _rwr(tmp_path, between, storage)[1] == (ii + 1,) * 3


# Regular subscripts, and a callee's write: at i == 32 (hi_in[i] == i) y must see it.
REGULAR = """void rwr_reg(const int init[64], int out[64]) {
    int X[64];
    for (int t = 0; t < 64; t++) {
#pragma HLS pipeline
        X[t] = init[t];
    }
    for (int i = 0; i < 64; i++) {
#pragma HLS pipeline
        int x = X[i];
        X[32] = i;
        int y = X[i];
        out[i] = x + y;
    }
}
"""
CALLEE = """static void poke(int X[64], int k, int v) {
#pragma HLS inline
    X[k] = v;
}
void rwr_call(const int init[64], const int hi_in[64], int out[64]) {
    int X[64];
    for (int t = 0; t < 64; t++) {
#pragma HLS pipeline
        X[t] = init[t];
    }
    for (int i = 0; i < 64; i++) {
#pragma HLS pipeline
#pragma HLS dependence variable=X type=inter dependent=false
        int x = X[i];
        poke(X, hi_in[i] & 63, i);
        int y = X[i];
        out[i] = x + y;
    }
}
"""


@needs_gxx
@pytest.mark.parametrize("name, text", [("rwr_reg", REGULAR), ("rwr_call", CALLEE)])
def test_a_write_between_two_regular_reads_makes_them_two_loads(tmp_path, name, text):
    """Probe 36 F1 with X[i] read twice around a write of X[32], or of X[k] in an
    inlined callee: no banking separates X[i] from itself, so X keeps one memory at
    II 2 (the merged reads claimed II 1)."""
    compiled = arraypart.compile_kernel(write(tmp_path, f"{name}.cpp", text))
    report = compiled.report
    assert _loop_iis(report) == [1, 2]
    checked = check.check_kernel(report.kernel, report.solution.bankings())
    assert [loop.achieved_ii for loop in checked.loops] == [1, 2]
    judged = assert_the_trace_agrees(compiled, tmp_path, ports=2)
    assert [loop.traced_ii for loop in judged.replay.loops] == [1, 2]
    assert_the_testbench_passes(compiled, tmp_path)


# x = X[f]; X[f + c] = v; y = X[f] with c a nonzero constant: LLVM's BasicAA proves the
# store apart from the loads (one variable part, two constants), so GVN merges them.
APART = """void apart(const int init[SIZE], int out[64]) {
    int X[SIZE];
    for (int t = 0; t < SIZE; t++) {
#pragma HLS pipeline
        X[t] = init[t];
    }
    for (int i = 0; i < 64; i++) {
#pragma HLS pipeline
#pragma HLS dependence variable=X type=inter dependent=false
        int x = X[READ];
        X[WRITE] = x + i;
        int y = X[READ];
        out[i] = x + y;
    }
}
"""
APART_2D = """void apart(const int init[8][9], int out[8][8]) {
    int X[8][9];
    for (int r = 0; r < 8; r++) {
        for (int t = 0; t < 9; t++) {
#pragma HLS pipeline
            X[r][t] = init[r][t];
        }
    }
    for (int i = 0; i < 8; i++) {
        for (int j = 0; j < 8; j++) {
#pragma HLS pipeline
#pragma HLS dependence variable=X type=inter dependent=false
            int x = X[i][j];
            X[i][j + 1] = x + j;
            int y = X[i][j];
            out[i][j] = x + y;
        }
    }
}
"""
# Two lanes, each reading X[2i + u] twice around its write of X[2i + u + 2]: no write
# names an element either lane reads, so two loads and two stores, not four and two.
APART_LANES = """void apart(int X[130], int out[64]) {
    for (int i = 0; i < 64; i++) {
#pragma HLS pipeline
#pragma HLS dependence variable=X type=inter dependent=false
        int s = 0;
        for (int u = 0; u < 2; u++) {
#pragma HLS unroll
            int x = X[2 * i + u];
            X[2 * i + u + 2] = x + u;
            s += x + X[2 * i + u];
        }
        out[i] = s;
    }
}
"""
APART_CASES = {
    "1-D": (APART.replace("SIZE", "65").replace("READ", "i").replace("WRITE", "i + 1"),
            (1, 1, 1)),
    "stride 2": (APART.replace("SIZE", "128").replace("READ", "2 * i")
                 .replace("WRITE", "2 * i + 1"), (1, 1, 1)),
    "2-D": (APART_2D, (1, 1, 1)),
    "lanes": (APART_LANES, (2, 2, 2)),
}


def _iis(compiled, tmp_path, ports: int = 2) -> tuple[int, int, int]:
    """The last loop's II in the model, in the checker on the emitted bankings, and in
    the trace (which must agree)."""
    report = compiled.report
    checked = check.check_kernel(report.kernel, report.solution.bankings(), ports=ports)
    judged = assert_the_trace_agrees(compiled, tmp_path, ports=ports)
    return (_loop_iis(report)[-1], checked.loops[-1].achieved_ii,
            judged.replay.loops[-1].traced_ii)


@needs_gxx
@pytest.mark.parametrize("case", sorted(APART_CASES))
def test_a_write_a_constant_away_does_not_separate_two_reads(tmp_path, case):
    """X[i + 1], X[2i + 1], X[i][j + 1] or lane u's X[2i + u + 2] written between two
    reads of X[i], X[2i], X[i][j] or X[2i + u] names another element in every
    iteration, as the HLS tool's alias analysis proves: the reads are one load, so X
    as one dual-port memory reaches II 1 (the lanes: two loads and two stores, II 2),
    where every write of X separating them gave II 2 (the lanes: 3), in the model,
    the checker and the trace alike."""
    text, iis = APART_CASES[case]
    compiled = arraypart.compile_kernel(write(tmp_path, "apart.cpp", text), max_banks=1)
    assert _iis(compiled, tmp_path) == iis
    assert_the_testbench_passes(compiled, tmp_path)


# X[i + 1] updated (a read and a write) between a read or a write of X[i] and a read of
# it, on one single-port memory: the update is a constant away from X[i] in every
# step, so the second read is the first's load, or the first write's value forwarded.
UPDATED_BETWEEN = {
    "+= between two reads": ("int x = X[i];", "X[i + 1] += i;", "out[i] = x + X[i];"),
    "++ between a write and a read": ("X[i] = init[i];", "X[i + 1]++;", "out[i] = X[i];"),
}


@needs_gxx
@pytest.mark.parametrize("case", sorted(UPDATED_BETWEEN))
def test_an_update_a_constant_away_does_not_separate_two_accesses(tmp_path, case):
    """Two loads (or a store and a load) of X[i] and X[i + 1]'s load and store: three
    port uses, II 3 in the model, the checker and the trace.  The trace gave the
    update's read and write one site, whose records (two a step) had no shape, so
    X[i + 1]'s write might alias X[i]: II 4, a false disagreement (probe 37c F1)."""
    text = APART.replace("SIZE", "65").replace(
        "int x = X[READ];\n        X[WRITE] = x + i;\n        int y = X[READ];\n"
        "        out[i] = x + y;", "\n        ".join(UPDATED_BETWEEN[case]))
    compiled = arraypart.compile_kernel(write(tmp_path, "updated.cpp", text), max_banks=1,
                                        ports=1)
    assert _iis(compiled, tmp_path, ports=1) == (3, 3, 3)


# The index through an integer narrower than 32 bits: LLVM's alias analysis sees the
# truncation as an opaque value, so the write may alias the reads (probe 37b F3).
NARROWED_CASES = {
    "cast to unsigned char": ("i", "(unsigned char)(i + 1)"),
    "cast to short": ("i", "(short)(i + 1)"),
    "the read's own cast": ("(unsigned char)i", "i + 1"),
    "uint8_t variable": ("i", "j"),
}
FORWARDED_THROUGH_A_CAST = """void fwd(const int init[64], int out[64]) {
    int X[64];
    for (int t = 0; t < 64; t++) {
#pragma HLS pipeline
        X[t] = init[t];
    }
    for (int i = 0; i < 64; i++) {
#pragma HLS pipeline
#pragma HLS dependence variable=X type=inter dependent=false
        X[(unsigned char)i] = init[i] + 1;
        out[i] = X[i];
    }
}
"""


@needs_gxx
@pytest.mark.parametrize("case", sorted(NARROWED_CASES))
def test_an_index_through_a_narrow_integer_may_alias(tmp_path, case):
    """X[(unsigned char)(i + 1)] is X[i + 1] (the ranges make the conversion exact),
    but the HLS tool's alias analysis cannot see through the truncation: the write
    separates the two reads of X[i] (II 2 on one dual-port memory; they were merged
    at II 1 in the model, the checker and the trace)."""
    read, written = NARROWED_CASES[case]
    text = APART.replace("SIZE", "65").replace("READ", read).replace("WRITE", written)
    text = text.replace("int x = X[", "unsigned char j = i + 1;\n        int x = X[")
    compiled = arraypart.compile_kernel(write(tmp_path, "narrow.cpp", text), max_banks=1)
    assert _iis(compiled, tmp_path) == (2, 2, 2)
    assert_the_testbench_passes(compiled, tmp_path)


@needs_gxx
def test_a_store_through_a_narrow_index_is_not_forwarded(tmp_path):
    """X[(unsigned char)i] = v; out[i] = X[i]: to the tool two pointers that may
    differ, so the read is a load after the store (II 2 on one ram_1p; it was taken
    as forwarded, II 1)."""
    compiled = arraypart.compile_kernel(write(tmp_path, "fwd.cpp", FORWARDED_THROUGH_A_CAST),
                                        max_banks=1, ports=1)
    assert _iis(compiled, tmp_path, ports=1) == (2, 2, 2)
    assert_the_testbench_passes(compiled, tmp_path)


# Lane 0 writes X[i + 1 + OFFSET - 1]; both lanes read X[i + 1] first.  OFFSET 1: lane
# 0's write is the element lane 1 reads next, a second load (X is a global, which the
# argument out may point into, so nothing is forwarded); OFFSET 2: another element, one
# load.
LANE_HIT = """int X[67];
void hit(int out[64]) {
    for (int i = 0; i < 64; i++) {
#pragma HLS pipeline
#pragma HLS dependence variable=X type=inter dependent=false
        int s = 0;
        for (int u = 0; u < 2; u++) {
#pragma HLS unroll
            s += X[i + 1];
            X[i + u + OFFSET] = s;
        }
        out[i] = s;
    }
}
"""


@needs_gxx
@pytest.mark.parametrize("offset, ii", [(1, 4), (2, 3)])
def test_a_lane_whose_write_hits_another_lanes_read_separates_it(tmp_path, offset, ii):
    """With the lanes' unrolled iterators in place, lane 0's X[i + 1] and lane 1's
    X[i + 1] are one element: two loads and two stores on one single-port memory,
    II 4; lane 0 writing X[i + 2] instead leaves one load, II 3."""
    text = LANE_HIT.replace("OFFSET", str(offset))
    compiled = arraypart.compile_kernel(write(tmp_path, "hit.cpp", text), max_banks=1,
                                        ports=1)
    assert _iis(compiled, tmp_path, ports=1) == (ii, ii, ii)
    assert_the_testbench_passes(compiled, tmp_path)


def _records(read_flats, write_flats):
    """One step per entry: site 0 reads, site 1 writes, site 2 reads."""
    from arraypart.check.records import RECORD, READ, WRITE
    rows = []
    for step, (r, w) in enumerate(zip(read_flats, write_flats)):
        rows += [(0, 0, 0, 0, READ, 0, step, r, 0), (1, 0, 0, 0, WRITE, 0, step, w, 0),
                 (2, 0, 0, 0, READ, 0, step, r, 0)]
    return np.array(rows, RECORD)


@pytest.mark.parametrize("writes, regular, one_load", [
    ([1, 2, 3], True, True),     # always one element further: apart
    ([1, 2, 4], True, False),    # a varying distance: may alias
    ([1, 2, 3], False, False),   # a data-decided write site: may alias, whatever its run
    ([0, 1, 2], True, False),    # the read's own element
])
def test_the_trace_tells_a_write_apart_only_by_one_distance_over_the_run(
        writes, regular, one_load):
    """The replay's epochs (``check.traced_epochs``): a read, a write and a read of the
    read's element per step; the reads are one load only when the write's site is a
    plain regular reference whose address stayed one nonzero distance from the
    read's in every step."""
    from arraypart.check.traced_epochs import Shapes, StepAccesses
    rows = _records([0, 1, 2], writes)
    shapes = Shapes.of([rows], np.array([True, regular, True]))
    epochs = StepAccesses.of(rows, shapes.of_records(rows)).epochs()
    assert epochs.tolist() == [0, 0, 0 if one_load else 1] * 3


@pytest.mark.parametrize("kinds", ["write, write, read", "write, read, write"])
@pytest.mark.parametrize("others, regular, free", [
    ([1, 2, 3], True, True),     # always one element further: never aliases
    ([1, 2, 4], True, False),    # a varying distance: may alias
    ([1, 2, 3], False, False),   # a data-decided site: may alias, whatever its run
])
def test_the_trace_forwards_past_an_access_only_one_distance_away(kinds, others, regular,
                                                                   free):
    """The replay's store forwarding and dead stores (``check.traced_epochs.free_records``)
    ask the epochs' question: per step, site 0 and site 2 access the step's element,
    site 1 another address.  A write at site 1 between a write and a read of the
    element lets the read be forwarded, and a read at site 1 between two writes of
    it lets the first be dead, only when site 1 is a plain regular site whose
    address stayed one nonzero distance away in every step."""
    from arraypart.check.records import RECORD, READ, WRITE
    from arraypart.check.traced_epochs import Forwarding, Shapes, StepAccesses, free_records
    kind = [{"write": WRITE, "read": READ}[k] for k in kinds.split(", ")]
    rows = np.array([(site, 0, 0, 0, kind[site], 0, step, flat, 0)
                     for step, other in enumerate(others)
                     for site, flat in enumerate([step, other, step])], RECORD)
    shapes = Shapes.of([rows], np.array([True, regular, True]))
    forwarding = Forwarding(np.ones((1, 1), bool), np.ones(3, bool), np.ones(3, bool))
    taken = ~free_records(StepAccesses.of(rows, shapes.of_records(rows)), forwarding)
    # site 2's read (forwarded) or site 0's write (dead) takes no port
    expected = [True, True, False] if kinds.endswith("read") else [False, True, True]
    assert taken.tolist() == (expected if free else [True, True, True]) * 3


# A row's maximum, then the row less it (HLSFactory's softmax): in one pipelined step
# the condition reads m[i][j], the branch perhaps again, the second loop once more
# before it writes m[i][j]; m[i][j - 1]'s write in between is a constant away.
ROW_MAX = """void smx(int m[4][4]) {
  for (int i = 0; i < 4; ++i) {
#pragma HLS pipeline II=1
    int mx = 0;
    for (int j = 0; j < 4; ++j) {
      if (m[i][j] > mx) mx = TAKEN;
    }
    for (int j = 0; j < 4; ++j) {
      m[i][j] = m[i][j] - mx;
    }
  }
}
"""


@needs_gxx
@pytest.mark.parametrize("taken", ["m[i][j]", "j"])
def test_an_ifs_condition_and_a_later_read_are_one_load(tmp_path, taken):
    """m's columns as banks of two ports: each takes one load and one store a step,
    II 1, in the model, the checker and the trace.  The trace gave the condition's
    read no shape (it sat in an ``if``), so the write of m[i][j - 1] might alias it,
    and it merged a read only with the one just before it at its address, never past
    the branch's read, which has none: II 2, a false disagreement."""
    compiled = arraypart.compile_kernel(
        write(tmp_path, "smx.cpp", ROW_MAX.replace("TAKEN", taken)))
    assert _iis(compiled, tmp_path) == (1, 1, 1)


@pytest.mark.parametrize("writes, one_load", [([1, 2, 3], True), ([1, 2, 4], False)])
def test_a_read_takes_the_last_load_of_its_shape_past_other_reads(writes, one_load):
    """Per step: site 0 reads the step's element, site 1 (no shape) reads it again,
    site 2 writes another element, site 3 reads the step's element again: site 3 is
    site 0's load when site 2 stayed one distance away (site 1 having none does not
    matter), else a load of its own."""
    from arraypart.check.records import RECORD, READ, WRITE
    from arraypart.check.traced_epochs import Shapes, StepAccesses
    rows = np.array([(site, 0, 0, 0, kind, 0, step, flat, 0)
                     for step, other in enumerate(writes)
                     for site, kind, flat in [(0, READ, step), (1, READ, step),
                                              (2, WRITE, other), (3, READ, step)]], RECORD)
    shapes = Shapes.of([rows], np.array([True, False, True, True]))
    epochs = StepAccesses.of(rows, shapes.of_records(rows)).epochs().reshape(3, 4)
    assert (epochs[:, 1] == epochs[:, 0]).all()
    assert (epochs[:, 3] == epochs[:, 0]).all() == one_load
