"""memcpy, memmove and memset: one access per element, all in one step of the pipeline
around them (Vitis HLS unrolls a routine of constant size), in the model, the checker,
the emitted project and check --trace (probe 34: a pipelined memcpy of 16 words per
iteration was claimed at II 1, its accesses uncounted)."""

import re

import pytest

import arraypart
from arraypart import KernelError, api, check
from arraypart import expr as E
from arraypart.check import trace
from arraypart.frontend import clangtu

from conftest import assert_the_testbench_passes, assert_the_trace_agrees, needs_gxx, write

COPIED = """#include <string.h>
void copied(int in[64], int out[64]) {
  int buf[64];
  for (int i = 0; i < 4; i++) {
#pragma HLS pipeline II=1
    memcpy(&buf[16 * i], &in[16 * i], 16 * sizeof(int));
  }
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    out[i] = buf[i] + 1;
  }
}
"""

FILLED = """#include <string.h>
void filled(int in[64], int out[64]) {
  int buf[64];
  for (int i = 0; i < 8; i++) {
#pragma HLS pipeline II=1
    memset(buf + 8 * i, 0, 8 * sizeof(int));
  }
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    buf[i] += in[i];
    out[i] = buf[i];
  }
}
"""

ROWS = """#include <string.h>
void rows(int in[8][16], int out[8][16]) {
  int A[8][16];
  for (int i = 0; i < 8; i++) {
#pragma HLS pipeline II=1
    memcpy(A[i], in[i], sizeof(A[i]));
  }
  for (int i = 0; i < 8; i++) {
    for (int j = 0; j < 16; j++) {
#pragma HLS pipeline II=1
      out[i][j] = A[i][j] * 2;
    }
  }
}
"""

# Each copy starts in the middle of row i and runs on into row i + 1.
ACROSS_ROWS = """#include <string.h>
void across(int in[32], int out[4][8]) {
  int A[4][8];
  for (int i = 0; i < 3; i++) {
#pragma HLS pipeline II=1
    memcpy(&A[i][4], &in[8 * i], 8 * sizeof(int));
  }
  memcpy(&A[0][0], &in[24], 4 * sizeof(int));
  memcpy(&A[3][4], &in[28], 4 * sizeof(int));
  for (int i = 0; i < 4; i++) {
    for (int j = 0; j < 8; j++) {
#pragma HLS pipeline II=1
      out[i][j] = A[i][j];
    }
  }
}
"""

# 30 bytes: 15 shorts of buf, and 7.5 ints of in (the 8th read in part).
PARTIAL = """#include <string.h>
#include <stdint.h>
void partial(int in[64], int16_t out[128]) {
  int16_t buf[128];
  for (int i = 0; i < 128; i++) buf[i] = 0;
  for (int i = 0; i < 8; i++) {
#pragma HLS pipeline II=1
    memcpy(&buf[16 * i], &in[8 * i], 30);
  }
  for (int i = 0; i < 128; i++) {
#pragma HLS pipeline II=1
    out[i] = buf[i];
  }
}
"""

# The routine in a sub-function, and in the lanes of a loop the pipeline unrolls.
IN_A_CALLEE = """#include <string.h>
static void load(int dst[16], const int *src) {
  for (int u = 0; u < 2; u++) memmove(dst + 8 * u, src + 8 * u, 8 * sizeof(int));
}
void callee(int in[64], int out[64]) {
  int buf[4][16];
  for (int i = 0; i < 4; i++) {
#pragma HLS pipeline II=1
    load(buf[i], in + 16 * i);
  }
  for (int i = 0; i < 4; i++) {
    for (int j = 0; j < 16; j++) {
#pragma HLS pipeline II=1
      out[16 * i + j] = buf[i][j];
    }
  }
}
"""

# std::memcpy of struct and ap_uint elements, and of a struct's array field (an access
# of the struct element r[i], which the argument itself reads).
TYPED = """#include <cstring>
#include "ap_int.h"
struct pt { int x, y; };
struct rec { int buf[4]; short tag; };
void typed(const pt in[16], pt out[16], const ap_uint<8> bytes[32], ap_uint<8> obytes[32],
           rec r[4], int res[16]) {
  pt a[16];
  ap_uint<8> b[32];
  for (int i = 0; i < 4; i++) {
#pragma HLS pipeline II=1
    std::memcpy(a + 4 * i, in + 4 * i, 4 * sizeof(pt));
    std::memcpy(&b[8 * i], &bytes[8 * i], 8 * sizeof(ap_uint<8>));
    std::memcpy(&res[4 * i], r[i].buf, sizeof(r[i].buf));
  }
  for (int i = 0; i < 16; i++) {
#pragma HLS pipeline II=1
    out[i] = a[i];
  }
  for (int i = 0; i < 32; i++) {
#pragma HLS pipeline II=1
    obytes[i] = b[i];
  }
}
"""

BURST = """#include <string.h>
void burst(int *in, int *out) {
#pragma HLS INTERFACE m_axi port=in offset=slave bundle=gmem
#pragma HLS INTERFACE m_axi port=out offset=slave bundle=gmem
  int buf[256];
  memcpy(buf, in, 256 * sizeof(int));
  for (int i = 0; i < 255; i++) {
#pragma HLS pipeline II=1
    buf[i] = buf[i] + buf[i + 1];
  }
  memcpy(out, buf, 256 * sizeof(int));
}
"""


def as_written_iis(report) -> list[int]:
    """The II each loop reaches on the kernel's own banking (one memory per array)."""
    checked = check.check_kernel(report.kernel, check.as_written_bankings(report.kernel),
                                 ports=2, rule=True)
    return [loop.achieved_ii for loop in checked.loops]


def traced_as_written(report, tmp_path) -> list[int]:
    """check --trace --as-written: the II the recorded accesses of each loop need,
    their addresses those of the model."""
    tmp_path.mkdir()
    recorded = trace.record(report.kernel, clangtu.Options(), tmp_path,
                            report.solution.emitted_bankings())
    judged = api.judge_trace(report, recorded, as_written=True, ports=2)
    assert judged.disagreements == () and judged.addresses.compared, judged.format()
    return [loop.traced_ii for loop in judged.replay.loops]


def loop_accesses(report, loop: str) -> list[tuple[str, str, str]]:
    """(array, kind, index) of every lane access of ``loop``'s iterations."""
    return sorted((a.array, a.kind, ",".join(E.pretty(e) for e in a.index))
                  for am in report.model.arrays for g in am.groups if g.loop == loop
                  for a in g.accesses)


def test_a_pipelined_memcpy_reads_and_writes_each_element_in_one_iteration(compiled_once):
    """16 reads of in and 16 writes of buf per iteration: II 8 on one true dual-port
    memory each."""
    report = compiled_once("copied.cpp", COPIED).report
    assert loop_accesses(report, "L4") == sorted(
        [("in", "read", f"16*i + {k}" if k else "16*i") for k in range(16)]
        + [("buf", "write", f"16*i + {k}" if k else "16*i") for k in range(16)])
    assert as_written_iis(report) == [8, 1]


@needs_gxx
def test_banking_a_memcpy_reaches_ii_1_and_the_emitted_copy_computes_the_same(compiled_once, tmp_path):
    """Eight banks of each array serve the 16 accesses per iteration; buf keeps its
    declaration and its memcpy (a pointer code generation does not rewrite), the
    partition pragma carrying the banking; the trace records the copy's elements
    (no 'buf[0] read before written') and agrees."""
    compiled = compiled_once("copied.cpp", COPIED)
    assert [(lp.achieved_ii, lp.target_ii) for lp in compiled.report.scheduled.loops] == [
        (1, 1), (1, 1)]
    banked = {a.array.name: a for a in compiled.report.solution.arrays}
    assert banked["in"].banking.scheme.banks >= 8 <= banked["buf"].banking.scheme.banks
    assert all(a.conflict_free for a in banked.values())
    kernel = compiled.files["copied.cpp"]
    assert "memcpy(&buf[16 * i], &in[16 * i], 16 * sizeof(int));" in kernel
    assert "#pragma HLS array_partition variable=buf type=cyclic" in kernel
    assert_the_testbench_passes(compiled, tmp_path)
    (tmp_path / "trace").mkdir()
    judged = assert_the_trace_agrees(compiled, tmp_path / "trace", ports=2)
    assert judged.unwritten == ()
    assert traced_as_written(compiled.report, tmp_path / "written") == [8, 1]


@needs_gxx
def test_a_pipelined_memset_writes_each_element(tmp_path):
    """8 writes of buf per iteration: II 4 on one memory; the testbench passes.  The
    second loop reads buf[i], writes it and reads it again: the second read is a load
    of its own (a write between, probe 36 F1's rule), and buf, which a routine writes,
    is forwarded nowhere, so one dual-port memory takes II 2 (it took II 1, the two
    reads counted as one, before 2026-12-07)."""
    compiled = arraypart.compile_kernel(write(tmp_path, "filled.cpp", FILLED))
    assert as_written_iis(compiled.report) == [4, 2]
    assert all(lp.achieved_ii == 1 for lp in compiled.report.scheduled.loops)
    assert_the_testbench_passes(compiled, tmp_path)
    assert traced_as_written(compiled.report, tmp_path / "trace") == [4, 2]


@needs_gxx
def test_a_routine_a_macro_writes_is_not_traced_and_its_writes_count(tmp_path):
    """``COPY(d, s)`` expands to a memcpy the instrumentation cannot edit: it is listed
    as not traced, and the elements it writes are not called unwritten."""
    path = write(tmp_path, "copied.cpp", COPIED.replace(
        "#include <string.h>\n",
        "#include <string.h>\n#define COPY(d, s) memcpy(d, s, 16 * sizeof(int))\n").replace(
        "memcpy(&buf[16 * i], &in[16 * i], 16 * sizeof(int));",
        "COPY(&buf[16 * i], &in[16 * i]);"))
    report = arraypart.analyze(path)
    (tmp_path / "trace").mkdir()
    recorded = trace.record(report.kernel, clangtu.Options(), tmp_path / "trace",
                            report.solution.emitted_bankings())
    judged = api.judge_trace(report, recorded, ports=2)
    assert judged.disagreements == () and judged.unwritten == ()
    assert f"  {path}:7:5: access written in a macro, not traced" in judged.format()


def test_a_row_copied_is_the_row_elements(tmp_path):
    """``memcpy(A[i], in[i], sizeof(A[i]))``: the 16 elements of row i of each."""
    report = arraypart.analyze(write(tmp_path, "rows.cpp", ROWS))
    assert loop_accesses(report, "L4") == sorted(
        [(name, kind, f"i,{k}") for name, kind in (("A", "write"), ("in", "read"))
         for k in range(16)])
    assert as_written_iis(report) == [8, 1]


# memcpy in a function template of the element type: clang leaves the call unresolved
# (an overload set of memcpy), which the trace took for no routine (probe 34b F7).
IN_A_TYPE_TEMPLATE = """#include <cstring>
template <typename T> void copyn(T *d, const T *s) { memcpy(d, s, 8 * sizeof(T)); }
void p2c(const short in[64], short out[64]) {
  short A[64], B[64];
  for (int i = 0; i < 64; i++) A[i] = in[i];
  for (int i = 0; i < 8; i++) {
#pragma HLS pipeline II=1
    copyn<short>(&B[(7 - i) * 8], &A[i * 8]);
  }
  for (int i = 0; i < 8; i++) {
#pragma HLS pipeline II=1
    copyn<short>(&out[i * 8], &B[i * 8]);
  }
}
"""


# The compiler's built-in forms and std:: names are the same routines (g++ and clang
# turn ``memcpy`` into ``__builtin_memcpy``; some HLS code calls that directly).
SPELLED = """#include <cstring>
void spelled(const int in[64], int out[64]) {
  int buf[16];
  for (int r = 0; r < 4; r++) {
#pragma HLS pipeline II=1
    __builtin_memcpy(buf, in + 16 * r, 16 * sizeof(int));
    std::memset(out + 16 * r, 0, 8 * sizeof(int));
    __builtin_memmove(out + 16 * r + 8, buf + 4, 8 * sizeof(int));
  }
}
"""


@needs_gxx
@pytest.mark.parametrize("name, text, iis", [
    ("rows", ROWS, [8, 1]), ("across", ACROSS_ROWS, [4, 1]),
    ("partial", PARTIAL, [1, 8, 1]), ("callee", IN_A_CALLEE, [8, 1]),
    ("typed", TYPED, [4, 1, 1]), ("template", IN_A_TYPE_TEMPLATE, [1, 4, 4]),
    ("spelled", SPELLED, [12])],
    ids=["rows", "across-rows", "partial-element", "callee-lanes", "struct-ap-field",
         "type-template", "builtin-and-std"])
def test_the_trace_of_a_routine_agrees_with_the_model(tmp_path, name, text, iis):
    """Rows, a copy that runs on into the next row (C's layout: A[i][4..7] then
    A[i + 1][0..3]), bytes that cover an element in part (8 reads of in, 15 writes
    of buf), a memmove in a sub-function's unrolled loop: g++'s addresses are the
    model's, the II the rule gives the trace is the checker's, and the banked kernel
    computes the same; struct and ap_uint elements, a struct's array field; the
    ``__builtin_`` and ``std::`` spellings."""
    compiled = arraypart.compile_kernel(write(tmp_path, f"{name}.cpp", text))
    assert as_written_iis(compiled.report) == iis
    assert traced_as_written(compiled.report, tmp_path / "trace") == iis
    assert_the_testbench_passes(compiled, tmp_path)


def test_a_copy_across_rows_carries_into_the_next_row(tmp_path):
    """Element k of ``&A[i][4]`` is A[i][4 + k] while in the row, then row i + 1."""
    report = arraypart.analyze(write(tmp_path, "across.cpp", ACROSS_ROWS))
    written = [index for array, kind, index in loop_accesses(report, "L4")
               if array == "A"]
    assert written == sorted([f"i,{k}" for k in range(4, 8)]
                             + [f"i + 1,{k}" for k in range(4)])


def test_a_count_that_is_no_constant_in_a_pipeline_is_refused(tmp_path):
    path = write(tmp_path, "varying.cpp", COPIED.replace(
        "16 * sizeof(int));", "n * sizeof(int));").replace(
        "int out[64])", "int out[64], int n)"))
    with pytest.raises(KernelError) as error:
        arraypart.analyze(path)
    assert (error.value.coord.line, error.value.coord.col) == (6, 5)
    assert "cannot tell how many elements it reaches (a byte count that is not a " \
           "constant, on 'in' and 'buf')" in error.value.message


def test_a_count_that_is_no_constant_outside_pipelines_reaches_any_element(tmp_path):
    path = write(tmp_path, "varying.cpp", BURST.replace(
        "256 * sizeof(int));", "n * sizeof(int));").replace(
        "int *out)", "int *out, int n)").replace("bundle=gmem", "bundle=gmem depth=256"))
    report = arraypart.analyze(path)
    assert any(w.startswith(f"{path}:6:3: warning: 'memcpy': arraypart cannot tell how "
                            "many elements it reaches") for w in report.warnings)
    assert [a.index for a in report.kernel.body[0].accesses] == [(None,), (None,)]


@needs_gxx
def test_an_off_chip_copy_outside_pipelines_gives_the_pointer_its_extent(tmp_path):
    """memcpy from an m_axi pointer without depth: 256 elements are read (its extent
    was unknown, an error); the banked kernel computes the same."""
    compiled = arraypart.compile_kernel(write(tmp_path, "burst.cpp", BURST))
    assert compiled.report.kernel.array("in").shape == (256,)
    assert_the_testbench_passes(compiled, tmp_path)


def test_an_off_chip_copy_in_a_pipeline_counts_as_transfers_on_its_bundle(tmp_path):
    """16 reads of an m_axi pointer per iteration: its bundle serves one a cycle."""
    path = write(tmp_path, "burst.cpp", COPIED.replace(
        "void copied(int in[64], int out[64]) {",
        "void copied(int *in, int out[64]) {\n"
        "#pragma HLS INTERFACE m_axi port=in bundle=gmem depth=64"))
    report = arraypart.analyze(path)
    assert [lp.bundle_ii for lp in report.model.loops] == [16, 1]


def test_sizeof_folds_to_the_bytes_clang_gives_it(tmp_path):
    """``i < sizeof(buf) / sizeof(buf[0])`` is 64 trips, a constant (it was a run-time
    size that the checker replayed at 96 trips)."""
    path = write(tmp_path, "sized.cpp", """void sized(int in[64], int out[64]) {
  int buf[64];
  for (unsigned i = 0; i < sizeof(buf) / sizeof(buf[0]); i++) {
#pragma HLS pipeline II=1
    buf[i] = in[i];
  }
  for (int i = 0; i < 64; i++) out[i] = buf[i];
}
""")
    report = arraypart.analyze(path)
    assert report.kernel.params == ()
    assert [(lp.name, lp.trip_count) for lp in report.model.loops] == [("L3", 64), ("L7", 64)]


# A dereference through a cast to a wider type reads every element it covers, as a
# memcpy of its bytes does (probe 39 H3: one read counted, II 1 claimed for four
# reads a cycle of one dual-port memory; M5: past a row of a 2-D array it was a bounds
# error that memcpy of the same span is not).
WIDE_READ = """void castwide(short A[64], long long out[16]) {
    for (int i = 0; i < 16; i++) {
#pragma HLS pipeline II=1
        out[i] = *reinterpret_cast<long long *>(&A[4 * i]);
    }
}
"""
WIDE_LOCAL = """void castlocal(const short in[64], long long out[16]) {
    short buf[64];
    for (int i = 0; i < 16; i++) {
#pragma HLS pipeline II=1
        for (int u = 0; u < 4; u++)
            buf[4 * i + u] = in[4 * i + u] + 1;
    }
    for (int i = 0; i < 16; i++) {
#pragma HLS pipeline II=1
        out[i] = *(long long *)&buf[4 * i];
    }
}
"""
WIDE_UPDATE = """void castupd(short A[64], const int in[32]) {
    for (int i = 0; i < 16; i++) {
#pragma HLS pipeline II=1
        *(int *)(A + 4 * i) += in[2 * i];
    }
}
"""
WIDE_ACROSS_ROWS = """#include <ap_int.h>
typedef ap_uint<128> wide_t;
void widecast(short K[4][16], ap_uint<16> out[64]) {
    for (int i = 0; i < 4 * 16; i += 8) {
#pragma HLS pipeline II=1
        wide_t t = *reinterpret_cast<wide_t *>(&K[0][i]);
        for (int ii = 0; ii < 8; ii++) {
#pragma HLS unroll
            out[i + ii] = t.range(16 * ii + 15, 16 * ii);
        }
    }
}
"""


def test_a_read_through_a_wider_cast_is_each_element_it_covers(tmp_path):
    """``*reinterpret_cast<long long *>(&A[4 * i])`` on a short A reads A[4i] to
    A[4i + 3]: II 2 on one dual-port memory; ``*(long long *)&A[...]`` alike."""
    report = arraypart.analyze(write(tmp_path, "castwide.cpp", WIDE_READ))
    assert loop_accesses(report, "L2") == sorted(
        [("A", "read", f"4*i + {k}" if k else "4*i") for k in range(4)]
        + [("out", "write", "i")])
    assert as_written_iis(report) == [2]
    c_cast = arraypart.analyze(write(tmp_path, "c_cast.cpp", WIDE_READ.replace(
        "*reinterpret_cast<long long *>(&A[4 * i])", "*(long long *)&A[4 * i]")))
    assert as_written_iis(c_cast) == [2]


def test_a_copy_through_a_wider_cast_runs_on_into_the_next_row(tmp_path):
    """``&K[0][i]`` with i up to 56 and 8 shorts a read: K[i / 16][i % 16 + k], as
    memcpy of those 16 bytes reaches them (the row ends are no bounds error)."""
    report = arraypart.analyze(write(tmp_path, "widecast.cpp", WIDE_ACROSS_ROWS))
    assert len([a for a in loop_accesses(report, "L4") if a[0] == "K"]) == 8
    assert as_written_iis(report) == [4]


@needs_gxx
@pytest.mark.parametrize("name, text, iis", [
    ("castwide", WIDE_READ, [2]), ("castlocal", WIDE_LOCAL, [2, 2]),
    ("castupd", WIDE_UPDATE, [2]), ("widecast", WIDE_ACROSS_ROWS, [4])],
    ids=["interface", "local", "update", "across-rows"])
def test_the_trace_of_a_wide_cast_agrees_with_the_model(tmp_path, name, text, iis):
    """g++ records each element the wide object covers (an update: each read, then
    written), the II the rule gives the trace is the checker's, and the banked kernel,
    whose arrays keep the cast as written, computes the same."""
    compiled = arraypart.compile_kernel(write(tmp_path, f"{name}.cpp", text))
    assert traced_as_written(compiled.report, tmp_path / "trace") == iis
    assert as_written_iis(compiled.report) == iis
    assert all(lp.achieved_ii == 1 for lp in compiled.report.scheduled.loops)
    assert_the_testbench_passes(compiled, tmp_path)


@pytest.mark.parametrize("byte", ["*(char *)&A[i]", "((char *)&A[i])[3]"])
def test_a_read_through_a_narrower_cast_is_the_element_that_holds_it(tmp_path, byte):
    """``*(char *)&A[i]`` on an int A reads one byte of A[i]: one access; so does a
    byte view of it, ``((char *)&A[i])[3]``."""
    report = arraypart.analyze(write(tmp_path, "narrow.cpp", WIDE_READ.replace(
        "short A[64], long long out[16]", "int A[16], char out[16]").replace(
        "*reinterpret_cast<long long *>(&A[4 * i])", byte)))
    assert loop_accesses(report, "L2") == [("A", "read", "i"), ("out", "write", "i")]


NARROW_WRITE = """void narrowin(const unsigned char v[16], int A[16]) {
#pragma HLS bind_storage variable=A type=ram_1p
    for (int i = 0; i < 16; i++) {
#pragma HLS pipeline II=1
        *(unsigned char *)&A[i] = v[i];
    }
}
"""


@needs_gxx
@pytest.mark.parametrize("name, text", [
    ("narrowin", NARROW_WRITE),
    ("bytecopy", NARROW_WRITE.replace("narrowin", "bytecopy").replace(
        "*(unsigned char *)&A[i] = v[i];", "memcpy(&A[i], &v[i], 1);")),
    ("byteview", NARROW_WRITE.replace("narrowin", "byteview").replace(
        "*(unsigned char *)&A[i] = v[i];", "((unsigned char *)&A[i])[1] = v[i];"))],
    ids=["narrow-cast", "memcpy", "byte-view"])
def test_a_write_of_part_of_an_element_reads_and_writes_it(tmp_path, name, text):
    """One rule (``routines.partial_write``): a store of one byte of an int element,
    through a narrower cast, a byte view (``((unsigned char *)&A[i])[1]``: refused
    before 2026-12-08) or memcpy's partial element, keeps the other bytes with a
    read-modify-write (the HLS tool's memories have no byte enables): A[i] is read and
    written, II 2 on its one port, in the model and in the trace (the cast counted one
    write, II 1, before 2026-12-07)."""
    text = "#include <string.h>\n" + text
    report = arraypart.analyze(write(tmp_path, f"{name}.cpp", text))
    assert [a for a in loop_accesses(report, "L4") if a[0] == "A"] == [
        ("A", "read", "i"), ("A", "write", "i")]
    assert as_written_iis(report) == [2]
    assert traced_as_written(report, tmp_path / "trace") == [2]


# a[i] written whole, a byte of it written, a[i] read whole: to the tool the byte's
# store is no store of the element (LLVM forwards a load from one store that covers
# it), so nothing is forwarded across it and nothing is dead.
BYTE_BETWEEN = """void between(const int x[16], const unsigned char y[16], int out[16]) {
    int a[16];
    for (int i = 0; i < 16; i++) {
#pragma HLS pipeline II=1
        a[i] = x[i];
        BYTE = y[i];
        out[i] = a[i];
    }
}
"""


@needs_gxx
@pytest.mark.parametrize("byte", ["*(unsigned char *)&a[i]", "((unsigned char *)&a[i])[2]"],
                         ids=["narrow-cast", "byte-view"])
def test_a_write_of_part_of_an_element_takes_no_part_in_store_forwarding(tmp_path, byte):
    """The write, the byte's read and write and the read each take a port of a's one
    memory: II 2 on two ports in the model, the checker and the trace (the model
    forwarded across the narrow store before 2026-12-08, claiming II 1 where the
    trace saw II 2)."""
    report = arraypart.analyze(write(tmp_path, "between.cpp",
                                     BYTE_BETWEEN.replace("BYTE", byte)))
    assert [a for a in loop_accesses(report, "L3") if a[0] == "a"] == [
        ("a", "read", "i"), ("a", "read", "i"), ("a", "write", "i"), ("a", "write", "i")]
    assert as_written_iis(report) == [2]
    assert traced_as_written(report, tmp_path / "trace") == [2]


@pytest.mark.parametrize("read, why, col", [
    ("(*(S *)&A[2 * i]).a", "reaches 6 bytes through a pointer cast, over elements of 4",
     19),
    ("*(long long *)((char *)A + 8 * i + 1)", "steps by another element type", 18),
    ("((long long *)A)[i]", "a subscript on a pointer cast of an array", 18),
    # a byte view past its element, or at a byte the data decides
    ("((char *)&A[i])[4]", "a subscript on a pointer cast of an array", 18),
    ("((char *)&A[i])[i & 3]", "a subscript on a pointer cast of an array", 18)],
    ids=["no-whole-elements", "byte-stepped", "subscripted-cast", "byte-view-past",
         "byte-view-varying"])
def test_a_cast_whose_elements_are_unknown_is_a_located_error(tmp_path, read, why, col):
    """A width that is no whole number of elements (a 6-byte struct over ints), an
    address stepped by bytes (``(char *)A + 8 * i + 1`` was read as A[8i + 1]), and a
    subscript on a cast array, are errors where they are written."""
    path = write(tmp_path, "odd.cpp", f"""struct S {{ short a, b, c; }};
void odd(int A[64], long long out[8]) {{
    for (int i = 0; i < 8; i++) {{
#pragma HLS pipeline II=1
        out[i] = {read};
    }}
}}
""")
    with pytest.raises(KernelError, match=re.escape(why)) as caught:
        arraypart.analyze(path)
    assert (caught.value.coord.line, caught.value.coord.col) == (5, col)


# A struct variable's array field is a memory of its own, of the field's elements: a
# copy's bytes were divided by the struct's size (8 bytes of w.buf were one element).
FIELD_COPY = """#include <string.h>
struct W { short buf[64]; int n; };
void fieldcopy(const short in[64], long long out[16]) {
    W w;
    for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
        w.buf[i] = in[i];
    }
    for (int i = 0; i < 16; i++) {
#pragma HLS pipeline II=1
        long long v;
        memcpy(&v, &w.buf[4 * i], 8);
        out[i] = v + *(long long *)&w.buf[60 - 4 * i];
    }
}
"""


@needs_gxx
def test_a_struct_fields_elements_are_counted_by_the_fields_size(tmp_path):
    """memcpy of 8 bytes and a ``long long`` read of ``w.buf`` (shorts) are 4 reads
    each: II 4 on one dual-port memory; the trace records the copy's elements too (a
    struct variable's field is no struct element's: it recorded nothing there) and
    agrees; the banked kernel computes the same."""
    compiled = arraypart.compile_kernel(write(tmp_path, "fieldcopy.cpp", FIELD_COPY))
    report = compiled.report
    reads = [index for array, kind, index in loop_accesses(report, "L9") if array == "w.buf"]
    assert reads == sorted([f"4*i + {k}" if k else "4*i" for k in range(4)]
                           + [f"-4*i + {60 + k}" for k in range(4)])
    assert as_written_iis(report) == [1, 4]
    assert traced_as_written(report, tmp_path / "trace") == [1, 4]
    assert_the_testbench_passes(compiled, tmp_path)


# Spector's matrix_mul shifts by ``int(log2(M))``: folded as g++ folds it, the rows it
# selects are regular (probe 42 F5: every C[t*M + j] was irregular, II 512).
LOG2_SHIFT = """#include <cmath>
#define M 64
void shifted(int C[64 * 64], int out[64]) {
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    int t = (i * 64) >> int(log2(M));
    int u = (int)std::floor(std::sqrt(SQ));
    int s = 0;
    for (int j = 0; j < 4; j++) s += C[t * M + 4 * j + u];
    out[i] = s;
  }
}
"""


@pytest.mark.parametrize("square, regular", [(50, True), (-1, False)])
def test_cmath_calls_over_constants_fold(tmp_path, square, regular):
    """``int(log2(64))`` is 6 and ``(int)floor(sqrt(50))`` 7; ``sqrt(-1)`` is no
    number, so that subscript stays irregular."""
    path = write(tmp_path, "shifted.cpp", LOG2_SHIFT.replace("SQ", str(square)))
    report = arraypart.analyze(path)
    irregular = [w for w in report.warnings if "not affine" in w]
    assert (not irregular) == regular, irregular
    if regular:
        assert report.loop_achieved_ii(0, "L4", 1) == 1
