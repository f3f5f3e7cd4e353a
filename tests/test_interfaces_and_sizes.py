"""Issue 12, points 1 and 2: top-function interfaces (m_axi pointers off-chip, on-chip
ap_memory arrays, streams) and run-time sizes (loop bounds that are scalar arguments,
bounded by LOOP_TRIPCOUNT, -D or the arrays they index), each on a small kernel: the
report, the proof over every size, the checker at several sizes, and the emitted
project built with g++ and compared with the original."""

import dataclasses

import pytest

import arraypart
from arraypart import KernelError, check, ir
from arraypart import expr as E
from arraypart.check.frames import checked_values
from arraypart.codegen.drive import driven_values
from arraypart.frontend import parse_kernel, parse_source
from arraypart.poly import sizes

from conftest import (HAVE_GXX, array, assert_the_testbench_passes, assert_the_trace_agrees,
                      needs_gxx, run_testbench, searched, write)

# Four reads of one array per iteration: off-chip, they queue on the bundle's one read
# channel; on-chip, a banking serves them in one cycle.
FOUR_READS = """extern "C" {{
void four(const int *a, int *out, int size) {{
#pragma HLS INTERFACE {mode} port=a {extra}
  for (int i = 0; i < size; i++) {{
#pragma HLS LOOP_TRIPCOUNT min=1 max=64
#pragma HLS pipeline II=1
    out[i] = a[4 * i] + a[4 * i + 1] + a[4 * i + 2] + a[4 * i + 3];
  }}
}}
}}
"""

FOUR_READS_ON_CHIP = """void four(const int a[256], int out[64], int size) {
#pragma HLS INTERFACE ap_memory port=a
  for (int i = 0; i < size; i++) {
#pragma HLS LOOP_TRIPCOUNT min=1 max=64
#pragma HLS pipeline II=1
    out[i] = a[4 * i] + a[4 * i + 1] + a[4 * i + 2] + a[4 * i + 3];
  }
}
"""

# A vector kernel as the Vitis kernel flow writes it: pointers in bundles, a run-time
# size, and a local window buffer that needs banking.
WINDOW = """extern "C" {
void window(const int *in, int *out, int n) {
#pragma HLS INTERFACE m_axi port=in bundle=gmem0
#pragma HLS INTERFACE m_axi port=out bundle=gmem1
#pragma HLS INTERFACE s_axilite port=n
  int buf[128];
  for (int i = 0; i < n; i++) {
#pragma HLS LOOP_TRIPCOUNT min=4 max=128
#pragma HLS pipeline II=1
    buf[i] = in[i];
  }
  for (int i = 0; i < n - 3; i++) {
#pragma HLS LOOP_TRIPCOUNT min=1 max=125
#pragma HLS pipeline II=1
    out[i] = buf[i] + buf[i + 1] + buf[i + 2] + buf[i + 3];
  }
}
}
"""

# A stream in, an array of streams out, a local buffer read four times per iteration.
STREAMS = """#include "hls_stream.h"
void split(hls::stream<int> &in, hls::stream<int> lanes[4], int n) {
  int buf[64];
  for (int i = 0; i < n; i++) {
#pragma HLS LOOP_TRIPCOUNT max=64
#pragma HLS pipeline II=1
    buf[i] = in.read();
  }
  for (int i = 0; i < n / 4; i++) {
#pragma HLS LOOP_TRIPCOUNT max=16
#pragma HLS pipeline II=1
    for (int k = 0; k < 4; k++) lanes[k].write(buf[4 * i + k]);
  }
}
"""


def loop_ii(report) -> list[int]:
    return [l["achieved_ii"] for l in report.to_json()["loops"]]


# ---------------------------------------------------------------- 1. interfaces


def test_m_axi_pointer_is_off_chip_and_never_partitioned(tmp_path):
    path = write(tmp_path, "four.cpp", FOUR_READS.format(mode="m_axi", extra=""))
    compiled = arraypart.compile_kernel(path)
    report = compiled.report
    a = array(report, "a")
    assert (a.array.bundle, a.banking.scheme.kind, a.bram18k) == ("gmem0", "none", 0)
    # extent: i < size <= 64 (the tripcount), so a[4*i + 3] reaches 255
    assert a.array.shape == (256,)
    assert "array_partition variable=a " not in compiled.files["four.cpp"]
    # four reads queue on the one read channel of gmem0
    assert loop_ii(report) == [4]
    assert not report.goals_met
    entry = next(x for x in report.to_json()["arrays"] if x["name"] == "a")
    assert entry["bundle"] == "gmem0" and entry["ports"] == "m_axi"
    assert any("m_axi" in w and "need II 4" in w for w in report.warnings)


def test_a_pointer_that_is_m_axi_by_default_is_stated_m_axi_in_the_emitted_kernel(tmp_path):
    """The model gives an indexed pointer without an INTERFACE pragma the kernel
    flow's m_axi; the project's Vivado flow would make it ap_memory, so the emitted
    kernel says m_axi (probe 34 F6) with a depth in the pointer's own elements (rows
    of ``rows[][16]``); a pointer with a pragma keeps its own; ``*last``, only
    dereferenced, is the Vivado flow's register port, with no pragma."""
    text = """void p(const int *x, int *z, int *last, const int rows[][16]) {
#pragma HLS INTERFACE m_axi port=z bundle=out offset=slave
  for (int i = 0; i < 64; i++) {
#pragma HLS PIPELINE II=1
    z[i] = x[i] + rows[i][3];
  }
  *last = x[63];
}
"""
    compiled = arraypart.compile_kernel(write(tmp_path, "p.cpp", text))
    emitted = compiled.files["p.cpp"]
    assert "#pragma HLS INTERFACE m_axi port=x bundle=gmem0 depth=64\n" in emitted
    assert "port=last" not in emitted
    assert "#pragma HLS INTERFACE m_axi port=rows bundle=gmem0 depth=64\n" in emitted
    assert emitted.count("port=z") == 1
    assert "-flow_target vivado" in compiled.files["run_hls.tcl"]
    again = arraypart.analyze(write(tmp_path, "again.cpp", emitted))
    assert [(a.name, a.bundle, a.shape) for a in again.kernel.arrays] == [
        (a.name, a.bundle, a.shape) for a in compiled.report.kernel.arrays]



# radar-hls-python's BUTTERFLY_TOP: a pipelined function writing two outputs through
# pointers; with an accumulator read and written, an input read, an indexed pointer and
# pointers whose pragmas say m_axi and s_axilite.
SCALAR_POINTERS = """#include <stdint.h>
void bfly(uint32_t a, uint32_t b, uint32_t *x1, uint32_t *y1) {
#pragma HLS PIPELINE
#pragma HLS INTERFACE ap_ctrl_none port=return
  *x1 = a + b;
  *y1 = a - b;
}
"""
POINTER_MODES = """void modes(const int in[16], int *acc, const int *gain, int *idx, int *p, int *q,
           volatile int *v) {
#pragma HLS INTERFACE m_axi port=p depth=1
#pragma HLS INTERFACE s_axilite port=q
  for (int i = 0; i < 16; i++) {
#pragma HLS pipeline II=1
    *acc += in[i] * *gain;
    idx[i] = i;
  }
  *p = in[0];
  q[0] = in[1];
  *v = in[2];
}
"""


def test_a_pointer_only_dereferenced_is_a_register_port_of_the_vivado_flow(tmp_path):
    """The emitted project's Vivado IP flow makes a pointer that the program only
    dereferences a register port (UG1399, "Default Interfaces for Vivado IP Flow"):
    no memory, so two outputs written in one pipelined call take no bundle's write
    channel (before 2026-12-07: m_axi gmem0, II 2, exit 1, and an INTERFACE m_axi
    pragma emitted for each)."""
    compiled = arraypart.compile_kernel(write(tmp_path, "bfly.cpp", SCALAR_POINTERS))
    report = compiled.report
    assert loop_ii(report) == [1] and report.goals_met
    entries = {x["name"]: x for x in report.to_json()["arrays"]}
    assert [(entries[n]["register"], entries[n]["ports"], entries[n]["bundle"])
            for n in ("x1", "y1")] == [("ap_vld", "register", None)] * 2
    assert array(report, "x1").banking.scheme.registers
    emitted = compiled.files["bfly.cpp"]
    assert "INTERFACE m_axi" not in emitted and "array_partition" not in emitted
    assert "// arraypart: x1: a register port (ap_vld), no memory" in emitted


def test_a_register_ports_mode_follows_its_use_and_its_pragma(compiled_once):
    """Read: ap_none; read and written: ap_ovld; an INTERFACE register mode names
    its own; an indexed pointer, one whose pragma says m_axi and a volatile one (each
    access a transfer) stay off-chip."""
    report = compiled_once("modes.cpp", POINTER_MODES).report
    assert {a.name: a.register or a.bundle for a in report.kernel.arrays
            if a.name != "in"} == {"acc": "ap_ovld", "gain": "ap_none", "idx": "gmem0",
                                   "p": "gmem0", "q": "s_axilite", "v": "gmem0"}


@needs_gxx
def test_register_ports_build_match_the_original_and_the_trace(compiled_once, tmp_path):
    """The loop's one transfer a cycle is idx's write: II 1, where *acc and *gain on
    gmem0 beside it made II 2."""
    compiled = compiled_once("modes.cpp", POINTER_MODES)
    assert loop_ii(compiled.report) == [1]
    assert_the_testbench_passes(compiled, tmp_path)
    assert_the_trace_agrees(compiled, tmp_path, ports=2)


@pytest.mark.parametrize("order", ["m_axi first", "s_axilite first"])
def test_s_axilite_beside_m_axi_keeps_the_array_off_chip(tmp_path, order):
    """``s_axilite port=a`` beside ``m_axi port=a`` (Vitis' offset=slave idiom) only
    places the offset register: ``a[4][16]`` stays off-chip, its reads queue."""
    pragmas = ["#pragma HLS INTERFACE m_axi port=a offset=slave bundle=gmem",
               "#pragma HLS INTERFACE s_axilite port=a bundle=control"]
    if order == "s_axilite first":
        pragmas.reverse()
    text = ("void k(int a[4][16], int out[4][14]) {\n" + "\n".join(pragmas) + """
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 14; j++) {
#pragma HLS pipeline II=1
      out[i][j] = a[i][j] + a[i][j + 1] + a[i][j + 2];
    }
}
""")
    report = arraypart.analyze(write(tmp_path, "k.cpp", text))
    a = array(report, "a")
    assert a.array.bundle == "gmem" and a.banking.scheme.kind == "none"
    assert loop_ii(report) == [3]


def test_user_partition_of_an_off_chip_array_is_dropped_with_a_warning(tmp_path):
    text = FOUR_READS.format(mode="m_axi", extra="").replace(
        "port=a \n", "port=a\n#pragma HLS array_partition variable=a type=cyclic factor=4\n")
    compiled = arraypart.compile_kernel(write(tmp_path, "four.cpp", text))
    assert "array_partition variable=a " not in compiled.files["four.cpp"]
    assert any(":4:1: warning: array_partition of a is dropped" in w
               for w in compiled.report.warnings)


def test_ap_memory_array_is_on_chip_and_banked_per_dimension(tmp_path):
    path = write(tmp_path, "four.cpp", FOUR_READS_ON_CHIP)
    report = arraypart.analyze(path, ports=1)
    a = array(report, "a")
    assert a.array.bundle is None and a.array.interface
    assert a.banking.scheme.kind == "per_dim" and a.banking.scheme.banks == 4
    assert a.conflict_free and loop_ii(report) == [1]


NEIGHBOURS = """void neighbours(float out[64], float img[64]) {
#pragma HLS INTERFACE mode = ap_memory port = img storage_type = %s
  for (int i = 1; i < 63; i++) {
#pragma HLS pipeline II=1
    out[i] = img[i - 1] + img[i + 1];
  }
}
"""


@pytest.mark.parametrize("storage, banks", [("ram_1p", 2), ("ram_2p", 1)])
def test_the_storage_type_of_an_ap_memory_port_is_its_port_model(tmp_path, storage, banks):
    """UG1399's ``storage_type=`` on an ap_memory INTERFACE: two reads per cycle of a
    single-port ``img`` need two banks (it was taken as true dual-port, one memory at a
    claimed II 1)."""
    path = write(tmp_path, "n.cpp", NEIGHBOURS % storage)
    report = arraypart.analyze(path, ports=2)
    img = array(report, "img")
    assert img.array.storage == storage and img.banking.scheme.banks >= banks
    assert (img.banking.scheme.banks == 1) == (banks == 1) and loop_ii(report) == [1]


def test_an_unknown_storage_type_of_a_port_is_a_located_error(tmp_path):
    path = write(tmp_path, "n.cpp", NEIGHBOURS % "ram_9p")
    with pytest.raises(KernelError, match="unknown storage type 'ram_9p'") as raised:
        arraypart.analyze(path)
    assert (raised.value.coord.line, raised.value.coord.col) == (2, 51)


def test_pointer_with_ap_memory_stays_one_memory(tmp_path):
    """Vitis cannot partition a pointer: on-chip, it keeps one memory and its II."""
    path = write(tmp_path, "four.cpp", FOUR_READS.format(mode="ap_memory", extra=""))
    report = arraypart.analyze(path, ports=1)
    a = array(report, "a")
    assert a.array.bundle is None and not a.array.partitionable
    assert a.banking.scheme.kind == "none" and loop_ii(report) == [4]


def test_bundles_share_their_channel(tmp_path):
    shared = """extern "C" {{
void add(const int *x, const int *y, int *z, int n) {{
#pragma HLS INTERFACE m_axi port=x bundle=gmem0
#pragma HLS INTERFACE m_axi port=y bundle={y}
#pragma HLS INTERFACE m_axi port=z bundle=gmem0
  for (int i = 0; i < n; i++) {{
#pragma HLS LOOP_TRIPCOUNT max=32
#pragma HLS pipeline II=1
    z[i] = x[i] + y[i];
  }}
}}
}}
"""
    one = arraypart.analyze(write(tmp_path, "one.cpp", shared.format(y="gmem0")))
    two = arraypart.analyze(write(tmp_path, "two.cpp", shared.format(y="gmem1")))
    assert loop_ii(one) == [2]  # x and y: two reads on gmem0's read channel
    assert loop_ii(two) == [1]  # a read and a write per bundle: one cycle
    # the checker counts the bundle too, on its own: compile and check agree
    checked = check.check_kernel(one.kernel, one.solution.bankings())
    loop = checked.loops[0]
    assert loop.achieved_ii == 2 and not loop.ok
    conflict = loop.first_conflict
    assert (conflict.array, conflict.reads, conflict.writes) == ("bundle gmem0", 2, 1)
    assert {a.array for a in conflict.accesses} == {"x", "y", "z"}
    assert "bundle gmem0 (m_axi) gets 2 read(s) and 1 write(s)" in conflict.format()
    assert "read y[0]" in conflict.format()
    checked = check.check_kernel(two.kernel, two.solution.bankings())
    assert checked.loops[0].achieved_ii == 1 and checked.loops[0].ok


def test_exclusive_branches_take_one_transfer_of_their_bundle(tmp_path):
    """Two writes through an irregular index in the two arms of an ``if`` on the
    iterators: one runs per iteration, so the bundle's write channel takes one a cycle
    (probe 34 F8: II 2 from compile, II 1 from check)."""
    text = """void k(const float *in, float *out, int w) {
#pragma HLS INTERFACE m_axi port=in depth=4096 bundle=g0
#pragma HLS INTERFACE m_axi port=out depth=4096 bundle=g0
  for (int r = 0; r < 8; r++) {
    for (int c = 0; c < 8; c++) {
#pragma HLS PIPELINE II=1
      int index = r * w + c;
      float v = in[index];
      if (c == 0)
        out[index] = 0;
      else
        out[index] = v;
    }
  }
}
"""
    report = arraypart.analyze(write(tmp_path, "k.cpp", text), ports=1,
                               defines=(("ARRAYPART_MAX_w", 64),))
    assert loop_ii(report) == [1]
    assert [loop.bundle_ii for loop in report.model.loops] == [1]
    checked = check.check_kernel(report.kernel, report.solution.bankings())
    assert checked.loops[0].achieved_ii == 1 and checked.loops[0].ok
    both = text.replace("      if (c == 0)\n        out[index] = 0;\n      else\n", "      out[index + 1] = 0;\n")
    report = arraypart.analyze(write(tmp_path, "both.cpp", both), ports=1,
                               defines=(("ARRAYPART_MAX_w", 64),))
    assert loop_ii(report) == [2]


# rpao[v] and rpao[v + 1], each read twice in one iteration (bfs's bfs_stage2, probe 36
# F3); STORE is a statement of the loop body after the reads.
REREAD_OFF_CHIP = """#include <hls_stream.h>
void dup(int *rpao, hls::stream<int> &in, hls::stream<long> &out, int n) {
#pragma HLS INTERFACE m_axi port=rpao depth=1024 offset=slave bundle=gmem3
  for (int t = 0; t < n; t++) {
#pragma HLS pipeline
#pragma HLS LOOP_TRIPCOUNT max=64
    int v = in.read();
    long item = rpao[v] + ((long)rpao[v + 1] << 32);
STORE
    int dist = rpao[v + 1] - rpao[v];
    out << item + dist;
  }
}
"""


def test_reads_of_one_off_chip_element_are_one_transfer(tmp_path):
    """Four reads of two elements of a read-only m_axi array: two transfers, so II 2 in
    the loop table, the bundle warning and the checker alike (probe 36 F3: the table
    said II 4, the checker II 2)."""
    path = write(tmp_path, "dup.cpp", REREAD_OFF_CHIP.replace("STORE\n", ""))
    report = arraypart.analyze(path)
    assert loop_ii(report) == [2]
    assert [loop.bundle_ii for loop in report.model.loops] == [2]
    assert any("off-chip (m_axi) accesses need II 2" in w for w in report.warnings)
    checked = check.check_kernel(report.kernel, report.solution.bankings())
    assert checked.loops[0].achieved_ii == 2


def test_a_store_keeps_off_chip_reads_of_one_element_apart(tmp_path):
    """Where the loop also stores to the array, a read after the store may see it, so
    the bundle reads the element again: the four reads are four transfers, in the
    model and the checker alike (probe 36 F1's rule, kept for the bundle)."""
    path = write(tmp_path, "dup.cpp", REREAD_OFF_CHIP.replace("STORE", "    rpao[v ^ 3] = t;"))
    report = arraypart.analyze(path)
    assert [loop.bundle_ii for loop in report.model.loops] == [4]
    assert loop_ii(report) == [4]
    checked = check.check_kernel(report.kernel, report.solution.bankings())
    assert checked.loops[0].achieved_ii == 4


# b and c share gmem0; each unrolled lane of the loop body BODY reads one of them.
LANES_ON_ONE_BUNDLE = """void k(const int *b, const int *c, const int f[64], int out[64]) {
  int fl[64];
  for (int i = 0; i < 64; i++) fl[i] = f[i];
  for (int i = 0; i < 32; i++) {
#pragma HLS pipeline II=1
    for (int u = 0; u < 2; u++) {
      int s = 0;
BODY
      out[2 * i + u] = s;
    }
  }
}
"""


@pytest.mark.parametrize("body, ii", [
    # one transfer per lane: exclusive arms of each lane's own ``if`` (probe 34b F9: 4)
    ("if (fl[2 * i + u] > 0) s = b[2 * i + u]; else s = c[2 * i + u];", 2),
    # one arm reads two: two per lane
    ("if (fl[2 * i + u] > 0) s = b[2 * i + u] + c[2 * i + u]; else s = c[64 - u];", 4),
    # a loop inside an arm: its reads lie outside the arm for both counts (the
    # checker marks branches within one loop's lanes), three a lane
    ("if (fl[2 * i + u] > 0) { for (int k = 0; k < 2; k++) s += b[2 * (2 * i + u) + k]; }"
     " else s = c[2 * i + u];", 6),
])
def test_exclusive_arms_share_a_transfer_per_unrolled_lane(tmp_path, body, ii):
    """A data-dependent ``if`` in each unrolled lane of a pipeline runs one arm per
    lane: the arms' accesses on one bundle count as the most one path runs, per ``if``
    instance, and compile and check agree."""
    path = write(tmp_path, "k.cpp", LANES_ON_ONE_BUNDLE.replace("BODY", body))
    report = arraypart.analyze(path)
    assert [loop.bundle_ii for loop in report.model.loops] == [1, ii]
    assert loop_ii(report) == [1, ii]
    checked = check.check_kernel(report.kernel, report.solution.bankings())
    assert [loop.achieved_ii for loop in checked.loops] == [1, ii]


# Each of two unrolled lanes writes z[x] or z[x + 64] (reads b[x] or b[63 - x]) in the
# arms of a data-dependent if: one array alone on its bundle (probe 35b F1).
SAME_ARRAY_ARMS = {
    "lanes.cpp": """void lanes(const int f[64], int *z) {
  for (int i = 0; i < 32; i++) {
#pragma HLS pipeline II=1
    for (int u = 0; u < 2; u++) {
      int x = 2 * i + u;
      if (f[x] > 0) z[x] = 1; else z[x + 64] = 2;
    }
  }
}
""",
    "lanes_b.cpp": """void lanes_b(const int f[64], const int *b, int out[64]) {
  for (int i = 0; i < 32; i++) {
#pragma HLS pipeline II=1
    for (int u = 0; u < 2; u++) {
      int x = 2 * i + u;
      int s;
      if (f[x] > 0) s = b[x]; else s = b[63 - x];
      out[x] = s;
    }
  }
}
""",
}


@pytest.mark.parametrize("name", sorted(SAME_ARRAY_ARMS))
def test_exclusive_arms_on_one_off_chip_array_share_a_transfer(compiled_once, name):
    """The per-array count of an off-chip array takes one arm per lane, as its bundle
    count does: II 2 for two lanes (both arms may run, in different lanes), in the
    array's proof, the loop table and the checker."""
    report = compiled_once(name, SAME_ARRAY_ARMS[name]).report
    off_chip = next(a for a in report.solution.arrays if a.array.bundle is not None)
    assert off_chip.achieved_ii == (("L2", 2),)
    assert [loop.bundle_ii for loop in report.model.loops] == [2]
    assert loop_ii(report) == [2]
    checked = check.check_kernel(report.kernel, report.solution.bankings())
    assert [loop.achieved_ii for loop in checked.loops] == [2]
    conflict = checked.loops[0].first_conflict
    assert (conflict.reads + conflict.writes, conflict.on_one_path) == (2, True)


@needs_gxx
@pytest.mark.parametrize("name", sorted(SAME_ARRAY_ARMS))
def test_exclusive_arms_on_one_off_chip_array_agree_with_the_trace(compiled_once, tmp_path, name):
    compiled = compiled_once(name, SAME_ARRAY_ARMS[name])
    (tmp_path / "trace").mkdir()
    judged = assert_the_trace_agrees(compiled, tmp_path / "trace", ports=2)
    assert [(loop.claim.claimed_ii, loop.traced_ii) for loop in judged.replay.loops] == [(2, 2)]


def test_exclusive_arms_share_a_transfer_per_lane_outside_a_pipeline(tmp_path):
    """Sixteen lanes of an unrolled loop, each reading b or c of one bundle: sixteen
    transfers, not 32 (probe 34b F9)."""
    text = """void k(const int *b, const int *c, const int f[64], int out[64]) {
  for (int i = 0; i < 16; i++) {
#pragma HLS unroll
    int s;
    if (f[i] > 0) s = b[i]; else s = c[i];
    out[i] = s;
  }
}
"""
    report = arraypart.analyze(write(tmp_path, "k.cpp", text))
    assert [loop.bundle_ii for loop in report.model.loops] == [16]
    checked = check.check_kernel(report.kernel, report.solution.bankings())
    assert [loop.achieved_ii for loop in checked.loops] == [16]

def test_pointer_extent_from_depth(tmp_path):
    path = write(tmp_path, "four.cpp", FOUR_READS.format(mode="m_axi", extra="depth=1000"))
    assert array(arraypart.analyze(path), "a").array.shape == (1000,)


def test_pointer_without_extent_is_a_located_error(tmp_path):
    text = """void gather(const int *a, const int idx[8], int out[8]) {
  for (int i = 0; i < 8; i++)
    out[i] = a[idx[i]];
}
"""
    with pytest.raises(KernelError) as info:
        arraypart.analyze(write(tmp_path, "gather.c", text))
    assert (info.value.coord.line, info.value.coord.col) == (1, 24)
    assert "depth=<elements>" in str(info.value) and "port=a" in str(info.value)


def test_streams_are_fifos_not_memories(compiled_once):
    """A stream argument is a FIFO port, no memory: never banked, no BRAM; an array of
    streams is none of the kernel's memories."""
    report = compiled_once("split.cpp", STREAMS, ports=1).report
    assert [a.array.name for a in report.solution.arrays] == ["in", "lanes", "buf"]
    fifo = array(report, "in")
    assert (fifo.array.fifo, fifo.banking.scheme.kind, fifo.bram18k) == ("axis", "none", 0)
    assert array(report, "buf").banking.scheme.banks == 4 and loop_ii(report) == [1, 1]


TWO_TRANSFERS = """#include "hls_stream.h"
void twice(hls::stream<int> &in, hls::stream<int> &out) {
  int buf[64];
  for (int i = 0; i < 64; i += 2) {
#pragma HLS pipeline II=1
    buf[i] = in.read();
    in >> buf[i + 1];
  }
  for (int i = 0; i < 64; i += 2) {
#pragma HLS pipeline II=1
    if (buf[i] > 0) out.write(buf[i]); else out << buf[i + 1];
  }
  for (int i = 0; i < 64; i += 2) {
#pragma HLS pipeline II=1
    put(out, buf[i] + buf[i + 1]);
  }
}
"""


def test_a_stream_transfers_one_element_per_cycle(tmp_path):
    """Two reads of one stream in an iteration need two cycles, as two ``*in++`` of an
    axis pointer do: the stream's transfers were no accesses and the loop claimed II 1
    (exit 0).  One write in each branch of a data-dependent ``if`` is one per cycle;
    a callee's writes are the stream its argument names."""
    text = TWO_TRANSFERS.replace("void twice", """static void put(hls::stream<int> &s, int v) {
  s.write(v);
  s.write(-v);
}
void twice""")
    report = arraypart.analyze(write(tmp_path, "twice.cpp", text))
    assert loop_ii(report) == [2, 1, 2]
    assert [a.kind for a in report.kernel.body[0].body[0].accesses] == ["read", "write"]


# Two transfers in per iteration from a FIFO pointer stepped as stream code writes it.
FIFO_PAIRS = """void pairs(int *in, int *out) {
#pragma HLS INTERFACE ap_fifo port=in depth=128
#pragma HLS INTERFACE axis port=out depth=64
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    int a = *in++;
    int b = *in++;
    *out++ = a + b;
  }
}
"""


@pytest.mark.parametrize("mode", ["ap_fifo", "axis"])
def test_fifo_interfaces_are_ports_not_memories(tmp_path, mode):
    """An ap_fifo or axis array moves one element per cycle: four reads of it in one
    iteration need II 4, which no partition changes (it is no memory: no BRAM)."""
    text = FOUR_READS_ON_CHIP.replace("ap_memory", mode)
    report = arraypart.analyze(write(tmp_path, "four.c", text))
    a = array(report, "a")
    assert (a.array.fifo, a.array.partitionable, a.banking.scheme.kind) == (mode, False, "none")
    assert a.bram18k == 0 and a.ports.name == "fifo" and loop_ii(report) == [4]
    entry = next(x for x in report.to_json()["arrays"] if x["name"] == "a")
    assert entry["fifo"] == mode and entry["resources"]["source"] == "fifo"
    assert any(f"a FIFO interface ({mode}): one element per cycle" in w
               for w in report.warnings)


# A two-dimensional array on an AXI4-Stream port, read row by row (probe 38 L3).
AXIS_ROWS = """void rows(int x[16][4], int y[16]) {
#pragma HLS INTERFACE mode=axis register_mode=both port=x
  for (int i = 0; i < 16; i++) {
#pragma HLS pipeline II=1
    int s = 0;
    for (int j = 0; j < 4; j++) s += x[i][j];
    y[i] = s;
  }
}
"""


def test_an_axis_array_of_two_dimensions_is_one_stream(tmp_path):
    """An axis (or ap_fifo) array argument is one port that every element passes
    through, whatever its dimensions: no bank per row (probe 38 L3: ``x[16][4]`` was
    reported as "per_dim complete x none", 16 banks, and the four reads of a row as
    conflicting in bank 15), so four reads per iteration need II 4, in the report and
    in ``check --as-written``."""
    path = write(tmp_path, "rows.c", AXIS_ROWS)
    report = arraypart.analyze(path)
    x = array(report, "x")
    assert (x.banking.scheme.kind, x.banking.scheme.banks, loop_ii(report)) == ("none", 1, [4])
    _, bankings, checked = arraypart.check_kernel(path, as_written=True)
    assert bankings["x"].scheme.banks == 1 and [lp.achieved_ii for lp in checked.loops] == [4]


@pytest.mark.parametrize("reads, where, what", [
    ("x[2 * i] + x[2 * i + 1]", None, None),
    ("x[2 * i + 1] + x[2 * i]", "6:12", "x[2*i + 1] is its first read there"),
    ("x[2 * i] + x[2 * i]", "6:23", "x[2*i] does not read the element after"),
    ("x[63 - 2 * i] + x[62 - 2 * i]", "6:12", "x[-2*i + 63] is its first read there")],
    ids=["in-order", "swapped", "twice", "backwards"])
def test_a_fifo_arrays_accesses_out_of_order_are_located_warnings(tmp_path, reads, where,
                                                                   what):
    """An axis array streams its elements in order (UG1399: Vitis stops on accesses it
    sees out of order, and the RTL mismatches the C on those it cannot see): a read
    out of order is a warning at that read (probe 38 L3: none was given)."""
    text = ("void pairs(int x[64], int y[32]) {\n#pragma HLS INTERFACE axis port=x\n"
            "  for (int i = 0; i < 32; i++) {\n#pragma HLS pipeline II=2\n"
            f"    int s = 0;\n    y[i] = {reads};\n  }}\n}}\n")
    path = write(tmp_path, "pairs.c", text)
    found = [w for w in arraypart.analyze(path).warnings if "must be read in order" in w]
    if where is None:
        assert found == []
    else:
        assert len(found) == 1 and found[0].startswith(f"{path}:{where}: warning: x is an "
                                                       "axis port") and what in found[0]


def test_an_axis_array_read_and_written_is_a_located_warning(tmp_path):
    text = ("void rw(int x[8]) {\n#pragma HLS INTERFACE axis port=x\n"
            "  for (int i = 0; i < 8; i++) x[i] = x[i] + 1;\n}\n")
    path = write(tmp_path, "rw.c", text)
    assert any(w.startswith(f"{path}:1:13: warning: x is an axis port, which streams its "
                            "elements one way, but the kernel both reads and writes it")
               for w in arraypart.analyze(path).warnings)


def test_a_fifo_pointer_may_step_and_each_access_is_a_transfer(compiled_once):
    """``*in++`` twice per iteration: two transfers on ``in``'s port, II 2, and no
    warning about the elements the model does not follow."""
    report = compiled_once("pairs.c", FIFO_PAIRS).report
    assert loop_ii(report) == [2] and array(report, "out").conflict_free
    assert not any("not affine" in w for w in report.warnings), report.warnings


def test_a_stepped_pointer_that_is_no_fifo_is_still_an_error(tmp_path):
    text = FIFO_PAIRS.replace("ap_fifo port=in", "m_axi port=in")
    with pytest.raises(KernelError, match="cannot tell which element this"):
        arraypart.analyze(write(tmp_path, "pairs.c", text))


@needs_gxx
def test_fifo_kernel_builds_matches_the_original_and_its_trace(compiled_once, tmp_path):
    compiled = compiled_once("pairs.c", FIFO_PAIRS)
    assert_the_testbench_passes(compiled, tmp_path)
    (tmp_path / "trace").mkdir()
    assert_the_trace_agrees(compiled, tmp_path / "trace", ports=2)


@needs_gxx
def test_stream_kernel_builds_and_matches_the_original(compiled_once, tmp_path):
    compiled = compiled_once("split.cpp", STREAMS, ports=1)
    run = run_testbench(compiled, tmp_path)
    assert run.returncode == 0 and "PASS" in run.stdout, run.stdout + run.stderr


@needs_gxx
def test_streams_passed_by_pointer_are_passed_by_address(tmp_path):
    """``hls::stream<int> *in``: the testbench passed the stream objects themselves,
    so neither it nor the trace driver built."""
    compiled = arraypart.compile_kernel(write(tmp_path, "reverse.cpp", """\
#include <hls_stream.h>
void reverse(hls::stream<int> *in, hls::stream<int> *out) {
  int buf[8];
  for (int i = 0; i < 8; i++) buf[i] = in->read();
  for (int i = 0; i < 8; i++) {
#pragma HLS pipeline II=1
    out->write(buf[7 - i] + buf[i]);
  }
}
"""))
    assert "reverse(&expected_in, &expected_out);" in compiled.files["reverse_tb.cpp"]
    assert_the_testbench_passes(compiled, tmp_path)
    assert_the_trace_agrees(compiled, tmp_path, ports=2)


@needs_gxx
def test_a_top_a_header_declares_may_be_called_in_its_file(tmp_path):
    """A header declares the top function and its struct; a test in the kernel file
    calls the top.  In the testbench that call found the original and, through the
    struct's namespace (ADL), the banked one: an ambiguous call, no build."""
    (tmp_path / "bump.h").write_text("struct pt { int v; };\n"
                                     "void bump(pt a[8], pt b[8]);\n")
    compiled = arraypart.compile_kernel(write(tmp_path, "bump.cpp", """\
#include "bump.h"
void bump(pt a[8], pt b[8]) {
  for (int i = 0; i < 8; i++) {
#pragma HLS pipeline II=1
    b[i].v = a[i].v + a[7 - i].v;
  }
}
int self_test() {
  pt a[8], b[8];
  for (int i = 0; i < 8; i++) a[i].v = i;
  bump(a, b);
  return b[7].v;
}
"""))
    assert_the_testbench_passes(compiled, tmp_path)
    assert_the_trace_agrees(compiled, tmp_path, ports=2)


# Streams written without hls:: (``using namespace hls``), one with a depth, and a
# scalar output by reference that a callee writes through a pointer.
UNQUALIFIED_STREAMS = """#include "hls_stream.h"
using namespace hls;
typedef int data_t;
static void sum4(const data_t buf[16], data_t *out) {
  data_t acc = 0;
  for (int i = 0; i < 4; i++) {
#pragma HLS pipeline II=1
    acc += buf[4 * i] + buf[4 * i + 1] + buf[4 * i + 2] + buf[4 * i + 3];
  }
  *out = acc;
}
void unq(stream<data_t> &in, stream<int, 4> lanes[2], data_t &out) {
  data_t buf[16];
  for (int i = 0; i < 16; i++) buf[i] = in.read();
  for (int k = 0; k < 2; k++) lanes[k].write(buf[k]);
  sum4(buf, &out);
}
"""


@needs_gxx
def test_unqualified_streams_and_an_output_written_by_a_callee(tmp_path):
    compiled = arraypart.compile_kernel(write(tmp_path, "unq.cpp", UNQUALIFIED_STREAMS),
                                        ports=1)
    assert [a.array.name for a in compiled.report.solution.arrays] == ["in", "lanes", "buf"]
    assert array(compiled.report, "buf").banking.scheme.banks == 4
    tb = compiled.files["unq_tb.cpp"]
    assert "hls::stream<int> expected_in;" in tb
    assert "hls::stream<int, 4> expected_lanes[2];" in tb
    assert 'compare("out", &expected_out' in tb
    run = run_testbench(compiled, tmp_path)
    assert run.returncode == 0 and "PASS" in run.stdout, run.stdout + run.stderr


# A stream of AXI packets: a struct, though its name starts with ap_.
PACKETS = """#include "ap_axi_sdata.h"
#include "hls_stream.h"
typedef ap_axis<32, 2, 5, 6> packet;
void side(hls::stream<packet> &A, hls::stream<packet> &B) {
  for (int i = 0; i < 4; i++) {
    packet tmp = A.read();
    tmp.data = tmp.data + 5;
    B.write(tmp);
  }
}
"""


@needs_gxx
def test_a_stream_of_packets_gets_random_bytes_and_fields_of_their_width(tmp_path):
    compiled = arraypart.compile_kernel(write(tmp_path, "side.cpp", PACKETS))
    tb = compiled.files["side_tb.cpp"]
    assert ("ap_axis<32, 2, 5, 6> value = random_bytes<ap_axis<32, 2, 5, 6>>(); "
            "value.data = random_int<ap_int<32>>(") in tb
    run = run_testbench(compiled, tmp_path)
    assert run.returncode == 0 and "PASS" in run.stdout, run.stdout + run.stderr


# ap_uint fields of packets and structs that index a table: random bytes set bits past
# their width, and histo[p.data] read far outside histo (probe 32, F1: a SEGV of a
# correct kernel, which check --trace blamed on the kernel).  A base's field hidden by
# a derived one of the same name (shadow::part::idx) keeps its random bytes, which the
# stand-in reads as 4 bits, as Vitis' C simulation lays them out (probe 32c F5).
AP_FIELD_INDEX = """#include "ap_axi_sdata.h"
#include "hls_stream.h"
struct base { ap_uint<4> tag; bool on; };
struct part { int w; ap_uint<4> idx; };
struct hit : base { int w; struct { ap_uint<4> idx[2]; } at; part parts[2]; };
struct shadow : part { ap_uint<8> idx; };
void fields(hls::stream<ap_axiu<8, 1, 1, 1> > &in, const hit hits[16], int histo[256],
            int bins[16], const shadow shadows[16]) {
  for (int i = 0; i < 16; i++) {
#pragma HLS pipeline II=1
    ap_axiu<8, 1, 1, 1> p = in.read();
    histo[p.data] += 1;
    bins[hits[i].at.idx[1]] += 1;
    histo[hits[i].parts[1].idx + 16 * hits[i].tag] += 2;
    bins[shadows[i].part::idx] += 3;
  }
}
"""


@needs_gxx
def test_ap_fields_of_packets_and_structs_get_values_of_their_width(tmp_path):
    path = write(tmp_path, "fields.cpp", AP_FIELD_INDEX)
    compiled = arraypart.compile_kernel(path)
    tb = compiled.files["fields_tb.cpp"]
    assert "for (long k0 = 0; k0 < 2; ++k0) value.at.idx[k0] = random_int<ap_uint<4>>(" in tb
    assert "value.tag = random_int<ap_uint<4>>(" in tb  # a base class's (probe 32b F1)
    assert "value.on = random_int<bool>(0, 2);" in tb  # a byte past 1 is no bool (32c F6)
    assert "for (long k0 = 0; k0 < 2; ++k0) value.parts[k0].idx = random_int<" in tb
    run = run_testbench(compiled, tmp_path)
    assert run.returncode == 0 and "PASS" in run.stdout, run.stdout + run.stderr
    (tmp_path / "trace").mkdir()
    assert_the_trace_agrees(compiled, tmp_path / "trace", ports=2)


# A local array of streams whose elements are passed by reference, and the whole array
# to a template, as dataflow stages do.
STREAM_STAGES = """#include "hls_stream.h"
static void load(const int in[16], hls::stream<int> &s) {
  for (int i = 0; i < 16; i++) s << in[i];
}
static void add(hls::stream<int> &a, hls::stream<int> &b, int incr) {
  for (int i = 0; i < 16; i++) b << a.read() + incr;
}
template <int N> static void chain(hls::stream<int> s[N + 1], int incr) {
  for (int k = 0; k < N; k++) {
#pragma HLS unroll
    add(s[k], s[k + 1], incr);
  }
}
static void store(hls::stream<int> &s, int out[8]) {
  int buf[16];
  for (int i = 0; i < 16; i++) buf[i] = s.read();
  for (int i = 0; i < 8; i++) {
#pragma HLS pipeline II=1
    out[i] = buf[2 * i] + buf[2 * i + 1];
  }
}
void stages(const int in[16], int out[8], int incr) {
#pragma HLS dataflow
  static hls::stream<int> fifo[3];
  load(in, fifo[0]);
  chain<2>(fifo, incr);
  store(fifo[2], out);
}
"""


@needs_gxx
def test_stream_array_elements_passed_to_callees(tmp_path):
    compiled = arraypart.compile_kernel(write(tmp_path, "stages.cpp", STREAM_STAGES),
                                        ports=1)
    assert sorted(a.array.name for a in compiled.report.solution.arrays
                  if a.array.memory) == ["buf", "in", "out"]
    assert array(compiled.report, "fifo").array.fifo == "ap_fifo"  # the top's channels
    assert array(compiled.report, "buf").banking.scheme.banks == 2
    run = run_testbench(compiled, tmp_path)
    assert run.returncode == 0 and "PASS" in run.stdout, run.stdout + run.stderr
    assert_the_trace_agrees(compiled, tmp_path, ports=1)  # its driver fills the streams


@needs_gxx
def test_off_chip_kernel_builds_and_matches_the_original(compiled_once, tmp_path):
    compiled = compiled_once("window.cpp", WINDOW, ports=1)
    buf = array(compiled.report, "buf")
    assert buf.banking.scheme.banks == 4 and buf.conflict_free
    run = run_testbench(compiled, tmp_path)
    assert run.returncode == 0 and "PASS" in run.stdout, run.stdout + run.stderr


# ---------------------------------------------------------------- 2. run-time sizes


def test_tripcount_bounds_the_size_and_the_report_states_it(compiled_once):
    report = compiled_once("window.cpp", WINDOW, ports=1).report
    out = report.to_json()
    # n <= 128 from the first loop, n - 3 <= 125 from the second: the tighter is kept
    assert out["params"]["n"]["range"] == [0, 128]
    assert "LOOP_TRIPCOUNT max=128" in out["params"]["n"]["bound_by"]
    assert [l["params"] for l in out["loops"]] == [{"n": [0, 128]}, {"n": [0, 128]}]
    assert [l["trip_count"] for l in out["loops"]] == [128, 125]


def test_banking_is_proven_for_every_size_and_checked_at_several(compiled_once):
    report = compiled_once("window.cpp", WINDOW, ports=1).report
    groups = report.model.array("buf").groups
    assert all(g.time_vars[0] == "n" for g in groups)  # the proof's domain spans n
    (n,) = report.kernel.params
    assert checked_values(n) == (0, 64, 128)
    result = check.check_kernel(report.kernel, report.solution.bankings(), ports=1)
    assert all(l.first_conflict is None and l.achieved_ii == 1 for l in result.loops)
    # one memory conflicts, and the checker finds it at some size
    one = check.check_kernel(report.kernel, check.as_written_bankings(report.kernel),
                             ports=1)
    assert one.loops[1].achieved_ii == 4


def test_define_bounds_a_size(tmp_path):
    text = """void scale(int a[256], int n) {
  for (int i = 0; i < n; i++) {
#pragma HLS pipeline II=1
    a[i] = 2 * a[i];
  }
}
"""
    report = arraypart.analyze(write(tmp_path, "scale.c", text),
                               defines=(("ARRAYPART_MAX_n", 100),))
    assert report.to_json()["params"]["n"] == {"range": [0, 100],
                                               "bound_by": "-D ARRAYPART_MAX_n"}


@needs_gxx
def test_asserts_of_the_top_bound_its_sizes(tmp_path):
    """Vitis reads ``assert`` as range information; the testbench drove a size the
    asserts exclude (Vitis-Tutorials' Filter2D: height 65535 past its maximum), so the
    original kernel aborted."""
    text = """#include <assert.h>
void frame(const int in[4096], int out[4096], int width, int height) {
  assert(width <= 64 && height < 33);
  assert(1 <= width);
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) {
#pragma HLS pipeline II=1
      out[y * width + x] = in[y * width + x] * 2;
    }
}
"""
    compiled = arraypart.compile_kernel(write(tmp_path, "frame.c", text))
    params = compiled.report.to_json()["params"]
    assert params["width"] == {"range": [1, 64], "bound_by": f"the assert at {tmp_path}"
                                                           "/frame.c:3:3"}
    assert params["height"]["range"] == [0, 32]
    tb = compiled.files["frame_tb.cpp"]
    # each call another value in the range: the largest, the least, midway
    assert "expected_width((call == 1 ? 64 : call == 2 ? 1 : 32));" in tb
    assert "expected_height((call == 1 ? 32 : call == 2 ? 0 : 16));" in tb
    assert_the_testbench_passes(compiled, tmp_path)


def test_array_extent_bounds_a_size(tmp_path):
    text = """void scale(int a[256], int n) {
  for (int i = 0; i < n; i++) {
#pragma HLS pipeline II=1
    a[i] = 2 * a[i];
  }
}
"""
    params = arraypart.analyze(write(tmp_path, "scale.c", text)).to_json()["params"]
    assert params["n"]["range"] == [0, 256]
    assert params["n"]["bound_by"].startswith("the extent of a at ")


LEAST_VALUE = """void tree(const int in[255], int depth[255], int n) {
  depth[n - 2] = 1;
  for (int i = n - 3; i >= 0; i--) {
#pragma HLS pipeline II=1
    depth[i] = depth[i + 1] + in[i];
  }
}
"""


def test_a_size_whose_least_values_leave_an_array_starts_where_they_stop(compiled_once):
    """``depth[n - 2]`` gives n = 0 and 1 no meaning (Kastner's Huffman tree depth):
    the size starts at 2, the extent bounding it on both sides, and the kernel is
    banked, built and checked over that range."""
    params = compiled_once("tree.c", LEAST_VALUE).report.to_json()["params"]
    assert params["n"]["range"] == [2, 256]
    assert params["n"]["bound_by"].startswith("the extent of depth at ")


@needs_gxx
def test_a_size_that_starts_above_zero_builds_and_matches_the_original(compiled_once, tmp_path):
    compiled = compiled_once("tree.c", LEAST_VALUE)
    run = run_testbench(compiled, tmp_path)
    assert run.returncode == 0 and "PASS" in run.stdout, run.stdout + run.stderr


def test_the_extents_of_one_array_bound_the_sizes_of_a_nest(tmp_path):
    """At their least values (0) each size empties the other's loop; from the next
    value up the image's rows bound one and its columns the other (face-detection's
    sum_row and sum_col)."""
    text = """void copy2d(const int img[24][32], int out[24][32], int rows, int cols) {
  for (int y = 0; y < rows; y++)
    for (int x = 0; x < cols; x++) {
#pragma HLS pipeline II=1
      out[y][x] = img[y][x];
    }
}
"""
    params = arraypart.analyze(write(tmp_path, "copy2d.c", text)).to_json()["params"]
    assert (params["rows"]["range"], params["cols"]["range"]) == ([0, 24], [0, 32])


def test_unbounded_size_is_a_located_error_when_an_on_chip_access_depends_on_it(
        tmp_path):
    text = """int count(int n) {
  int s = 0;
  int ring[8] = {0};
  for (int i = 0; i < n; i++) {
#pragma HLS pipeline II=1
    s += ring[i % 8];
  }
  return s;
}
"""
    with pytest.raises(KernelError) as info:
        arraypart.analyze(write(tmp_path, "count.c", text))
    assert (info.value.coord.line, info.value.coord.col) == (1, 15)
    assert "LOOP_TRIPCOUNT" in str(info.value) and "ARRAYPART_MAX_n" in str(info.value)


def test_an_access_that_leaves_its_array_at_the_sizes_least_values_is_the_error_place(
        tmp_path):
    """H.264's predict_intra4x4 (probe 26 item 12): the guards of S[sx][sy - 1] and
    S[sx + 7][sy - 1] are data dependent (``av``, a flag only ``if``s read, is no size:
    probe 30 F1), so at sy = 0 they read row -1.  The error blamed 'av', the first
    size, at its declaration; it is the first such access, at these values."""
    text = """void b3(unsigned char out[2], const unsigned char S[64][64], unsigned char av,
        unsigned sx, unsigned sy, unsigned blk) {
  unsigned char d = 0, e, i;
  if (av & 1) d = S[sx][sy - 1];
  if (blk == 3 || !(av & 1) || sx + 4 >= 64 || sy == 0) e = d;
  else e = S[sx + 7][sy - 1];
  if (av & 2) i = S[sx - 1][sy]; else i = 128;
  out[0] = e; out[1] = i;
}
"""
    with pytest.raises(KernelError) as info:
        arraypart.analyze(write(tmp_path, "b3.cpp", text))
    assert (info.value.coord.line, info.value.coord.col) == (4, 19)
    assert "may leave S with the run-time sizes that nothing bounds at the least " \
           "values they may take (sx = 0, sy = 0)" in str(info.value)
    # signed, their least values are no longer 0: S bounds them below as above
    signed = text.replace("unsigned sx, unsigned sy", "short sx, int sy")
    params = arraypart.analyze(write(tmp_path, "b3s.cpp", signed)).to_json()["params"]
    assert (params["sx"]["range"], params["sy"]["range"]) == ([1, 56], [1, 63])


@pytest.mark.parametrize("loop", [
    "for (int j = n; j < 8; j++)",  # said "replay it from 0 up to 0": n = 0 only
    "for (int j = 0; j < n; j++) for (int i = 0; i < 8; i++)",  # "up to 1"
])
def test_a_size_only_a_streams_guards_read_is_replayed_as_no_on_chip_access_needs(
        tmp_path, loop):
    """A stream-only kernel: the guard ``j == 3`` (``i == j``) reads the size through
    the iterator, so its accesses were said to settle "above -1" and it was replayed
    from its least value up to 0 (1): no on-chip access depends on it, which the
    warning now says, and it is replayed up to 16 as such a size is."""
    guard = "i == j" if "i <" in loop else "j == 3"
    text = ("#include <hls_stream.h>\n"
            "void only(hls::stream<int> &in, hls::stream<int> &out, int n) {\n"
            f"  {loop} {{\n#pragma HLS pipeline II=1\n"
            f"    if ({guard}) out.write(in.read());\n  }}\n}}\n")
    report = arraypart.analyze(write(tmp_path, "only.cpp", text))
    (said,) = [w for w in report.warnings if "'n'" in w]
    assert said.endswith("run-time size 'n': nothing bounds it, but no on-chip access "
                         "depends on it, so the banking holds for every value from 0 up; "
                         "the checker and the testbench replay it up to 16 (add "
                         "LOOP_TRIPCOUNT max= to bound it)"), said
    (n,) = report.kernel.params
    assert (n.low, n.high) == (0, 16)


def test_a_size_no_on_chip_access_depends_on_may_stay_unbounded(tmp_path):
    text = """void reps(const int a[64], int out[16], int *far, int reps, int n) {
  int buf[16];
  for (int r = 0; r < reps; r++) {
    for (int i = 0; i < 16; i++) {
#pragma HLS pipeline II=1
      buf[i] = a[4 * i] + a[4 * i + 1];
    }
    for (int i = 0; i < n; i++) {
#pragma HLS pipeline II=1
      far[i] = buf[3];
    }
  }
  for (int i = 0; i < 16; i++) out[i] = buf[i];
}
"""
    report = arraypart.analyze(write(tmp_path, "reps.c", text), ports=1)
    params = report.to_json()["params"]
    # reps only repeats the cycles; n bounds only an off-chip pointer's extent
    assert params["reps"]["range"] == [0, 2**63 - 1] and params["n"]["range"] == [0, 2**63 - 1]
    assert "no on-chip access depends on it" in params["reps"]["bound_by"]
    assert any("'reps': nothing bounds it" in w and "up to 16" in w
               for w in report.warnings)
    assert report.kernel.array("far").shape == (16,)  # replayed up to n = 16
    assert array(report, "a").banking.scheme.banks == 2 and array(report, "a").conflict_free
    assert checked_values(report.kernel.params[0]) == (0, 8, 16)
    result = check.check_kernel(report.kernel, report.solution.bankings(), ports=1)
    assert all(l.first_conflict is None and l.achieved_ii == 1 for l in result.loops)
    one = check.check_kernel(report.kernel, check.as_written_bankings(report.kernel),
                             ports=1)
    assert one.loops[0].achieved_ii == 2  # a real conflict is still found


# rodinia-hls nw_3_unroll's batch loop (probe 38 HIGH-1): n bounds only the outer loop,
# which four unrolled calls inside read buf through, a read of each row every cycle.
BATCHES = """static void pe(int a[64], int out[64]) {
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    out[i] = a[i] * 2;
  }
}
void batches(INPUT, int out[4][64], unsigned n) {
  int buf[4][64];
  for (int b = 0; b < BATCH; b++) {
    for (int j = 0; j < 4; j++)
      for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
        buf[j][i] = READ + b;
      }
    for (int j = 0; j < 4; j++) {
#pragma HLS unroll
      pe(buf[j], out[j]);
    }
  }
}
"""


def batches_text(batch: str, pointer: bool = False) -> str:
    return BATCHES.replace("BATCH", batch).replace(
        "INPUT", "const int *in" if pointer else "int in[4][64]").replace(
        "READ", "in[b * 64 + i]" if pointer else "in[j][i]")


@pytest.mark.parametrize("batch, sample", [("n / 32", 32), ("n / 17", 17),
                                           ("n - 100", 101), ("(n >> 6)", 64)])
def test_a_size_nothing_bounds_is_replayed_where_its_loops_run(tmp_path, batch, sample):
    """The batch loop never ran at the old sample, n up to 16: buf was one memory, proven
    "for every value" and checked clean, though from n = 32 up the four lanes read it
    four times a cycle.  The sample is now the least n at which the loop runs (once: its
    iterations run one after another, each the same)."""
    report = arraypart.analyze(write(tmp_path, "batches.cpp", batches_text(batch)))
    (n,) = report.kernel.params
    assert n.unbounded and (n.low, n.high) == (0, sample)
    assert any(f"replay it up to {sample}" in w for w in report.warnings)
    buf = array(report, "buf")
    assert buf.banking.scheme.banks >= 2 and buf.conflict_free
    result = check.check_kernel(report.kernel, report.solution.bankings())
    assert all(l.first_conflict is None and l.iterations > 0 for l in result.loops)
    one = check.check_kernel(report.kernel, check.as_written_bankings(report.kernel))
    assert max(l.achieved_ii for l in one.loops) == 2  # the lanes' reads are replayed


def test_a_replayed_size_stops_where_a_loop_would_run_too_long(tmp_path):
    """``i < (n >> 20)`` runs from n = 2^20 on, and showed its cycles at n = 16 << 20,
    where ``j < n`` beside it made 16M iterations: check took 26 s and the trace ran
    past its limit.  n is now replayed up to 65536, where j's loop makes
    ``REPLAY_TRIPS`` (65536), with a warning that says why and what is not replayed;
    the banking stays proven for every n."""
    text = """void cap(int n, const int in[16], int out[16]) {
  int buf[16];
  for (int i = 0; i < 16; i++) buf[i] = in[i];
  int acc = 0;
  for (int i = 0; i < (n >> 20); i++) {
#pragma HLS pipeline II=1
    acc += buf[3] + buf[5];
  }
  for (int j = 0; j < n; j++) {
#pragma HLS pipeline II=1
    acc += buf[2] + buf[7];
  }
  out[0] = acc;
}
"""
    report = arraypart.analyze(write(tmp_path, "cap.c", text))
    (n,) = report.kernel.params
    assert n.unbounded and (n.low, n.high) == (0, sizes.REPLAY_TRIPS) == (0, 65536)
    assert [l["trip_count"] for l in report.to_json()["loops"]] == [16, 0, 65536]
    assert any("'n' is replayed up to 65536, not up to 16777216, the least value at "
               "which loop L5 makes the iterations that show its cycles: past 65536 "
               "loop L9 makes more than 65536 iterations" in w for w in report.warnings)
    assert array(report, "buf").conflict_free


@needs_gxx
def test_a_pointer_a_sampled_size_reaches_is_sized_at_that_sample(tmp_path):
    """The pointer's extent follows n's sample (a batch of 64), where the front end
    fixed n at 16 and the extent at 1; the testbench (with ASan) and the trace run the
    batch."""
    compiled = arraypart.compile_kernel(
        write(tmp_path, "batches.cpp", batches_text("n / 32", pointer=True)))
    kernel = compiled.report.kernel
    assert kernel.params[0].high == 32 and kernel.array("in").shape == (64,)
    assert array(compiled.report, "buf").banking.scheme.banks >= 2
    run = run_testbench(compiled, tmp_path, ("-fsanitize=address", "-g"))
    assert run.returncode == 0 and "PASS" in run.stdout, run.stdout + run.stderr
    judged = assert_the_trace_agrees(compiled, tmp_path, ports=2)
    assert "never ran" not in judged.format()


def test_a_pointer_follows_a_size_that_an_on_chip_array_bounds(tmp_path):
    """k indexes buf[64] and a pointer without a depth: buf bounds it to 64, and the
    pointer's extent follows.  The front end fixed k at 16 for the pointer, and the
    polyhedral pass then said that nothing bounds it."""
    text = """void copy(const int *p, int out[64], int k) {
  int buf[64];
  for (int i = 0; i < k; i++) {
#pragma HLS pipeline II=1
    buf[i] = p[i];
  }
  for (int i = 0; i < 64; i++) out[i] = buf[i];
}
"""
    report = arraypart.analyze(write(tmp_path, "copy.c", text))
    assert report.to_json()["params"]["k"]["range"] == [0, 64]
    assert report.kernel.array("p").shape == (64,)


def test_a_size_that_reaches_on_chip_accesses_only_through_mods_is_replayed_over_its_period(
        tmp_path):
    """``(start + i) & 15`` is ``(start + i) mod 16``: the values ``v`` and ``v + 16``
    of ``start`` give the same accesses, so one period of it proves every value."""
    text = """void ring(const int in[64], int out[64], int start, unsigned n) {
  int buf[16];
  for (int i = 0; i < 16; i++) buf[i] = in[i];
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    out[i] = buf[(start + i) & 15] + buf[(start + 2 * i + 1) & 15];
  }
  for (int i = 0; i < n; i++) {
#pragma HLS pipeline II=1
    buf[(2 * i + n) % 4] = i;
  }
}
"""
    path = write(tmp_path, "ring.c", text)
    report = arraypart.analyze(path, ports=1, defines={"ARRAYPART_MAX_n": "30"})
    params = report.to_json()["params"]
    assert params["start"]["range"] == [0, 2**63 - 1]
    assert "repeat every 16 values" in params["start"]["bound_by"]
    assert any("'start': nothing bounds it" in w and "up to 16" in w
               for w in report.warnings)
    assert params["n"]["range"] == [0, 30]  # n also moves buf's index: not periodic
    result = check.check_kernel(report.kernel, report.solution.bankings(), ports=1)
    assert all(l.first_conflict is None for l in result.loops)
    one = check.check_kernel(report.kernel, check.as_written_bankings(report.kernel),
                             ports=1)
    assert one.loops[1].achieved_ii == 2  # two reads of one single-port memory
    with pytest.raises(KernelError, match="nothing bounds it"):
        arraypart.analyze(path, ports=1)  # n's period is not one


def test_a_narrow_parameter_type_bounds_its_size(tmp_path):
    text = """int pick(const int a[64], unsigned char count) {
  int s = 0;
  for (int x = 0; x < count; x++) {
#pragma HLS pipeline II=1
    s += a[x / 4] + a[x / 4 + 1];
  }
  return s;
}
"""
    report = arraypart.analyze(write(tmp_path, "pick.c", text), ports=1)
    params = report.to_json()["params"]
    assert params["count"]["range"] == [0, 252]  # a[x / 4 + 1] is tighter than 255
    ap = """#include "ap_int.h"
typedef ap_uint<5> sel_t;
int pick(const int a[64], sel_t width) {
  int s = 0;
  for (int x = 0; x < width; x++) s += a[2 * x];
  return s;
}
"""
    (width,) = parse_kernel(write(tmp_path, "ap.cpp", ap)).params
    assert (width.low, width.high, width.source) == (0, 31, "its type sel_t (ap_uint<5>)")


@needs_gxx
def test_runtime_bound_kernel_builds_and_matches_the_original(tmp_path):
    text = """#define N 64
void rev(const int a[N], int b[N], int n) {
  int t[N];
  for (int i = 0; i < n; i++) {
#pragma HLS pipeline II=1
    t[i] = a[n - 1 - i];
  }
  for (int i = 0; i < n - 1; i++) {
#pragma HLS pipeline II=1
    b[i] = t[i] + t[i + 1];
  }
}
"""
    compiled = arraypart.compile_kernel(write(tmp_path, "rev.c", text), ports=1)
    assert compiled.report.to_json()["params"]["n"]["range"] == [0, 64]
    assert array(compiled.report, "t").banking.scheme.banks == 2
    run = run_testbench(compiled, tmp_path)
    assert run.returncode == 0 and "PASS" in run.stdout, run.stdout + run.stderr


@needs_gxx
def test_the_testbench_keeps_sizes_of_scalar_expressions_inside_their_range(tmp_path):
    """A product and a fresh size over the top's scalars are replayed up to 16, which
    sizes p; the scalars, stepped 3, 4, 5 by call, are lowered where an expression would
    pass 16 (5 * 5, 5 * 5 * 5 / 4), so neither run reads past the buffer (probe 33c F3)."""
    text = """void sums(const int *p, int out[2], int H, int W, int n) {
#pragma HLS INTERFACE m_axi port=p offset=slave
  int acc = 0, part = 0;
  for (int i = 0; i < H * W; i++) {
#pragma HLS pipeline II=1
    acc += p[i];
  }
  for (int i = 0; i < n * n * n / 4; i++) {
#pragma HLS pipeline II=1
    part += p[i];
  }
  out[0] = acc;
  out[1] = part;
}
"""
    compiled = arraypart.compile_kernel(write(tmp_path, "sums.c", text), ports=1)
    kernel = compiled.report.kernel
    assert kernel.array("p").shape == (16,)
    assert driven_values(kernel, frozenset({"H", "W", "n"}), 3, 3).scalars == {
        "H": (3, 4, 4), "W": (3, 4, 4), "n": (3, 4, 4)}
    # H is no stepped scalar
    assert driven_values(kernel, frozenset({"W"}), 3, 3).scalars == {}
    run = run_testbench(compiled, tmp_path, ("-fsanitize=address", "-g"))
    assert run.returncode == 0 and "PASS" in run.stdout, run.stdout + run.stderr


def test_a_clamped_end_is_driven_above_its_clamped_start(tmp_path):
    """lo and hi, clamped by the top, are sizes of their own (lo@, hi@) that the
    testbench cannot drive, only the scalars: stepped alike, lo = hi = 3, 4, 5, and the
    loop never ran in the testbench or the trace (probe 38b F5); the end now runs
    ``calls`` above."""
    text = """void t9(const int in[64], int out[64], int lo, int hi) {
  int buf[64];
  for (int i = 0; i < 64; i++) buf[i] = in[i];
  if (lo < 0) lo = 0;
  if (hi > 63) hi = 63;
  for (int i = lo; i < hi; i++) {
#pragma HLS pipeline II=1
    out[i] = buf[i] + buf[i + 1];
  }
}
"""
    kernel = arraypart.analyze(write(tmp_path, "t9.c", text)).kernel
    assert driven_values(kernel, frozenset({"lo", "hi"}), 3, 3).scalars == {"hi": (6, 7, 8)}


@needs_gxx
def test_sizes_a_product_reads_are_lowered_together(tmp_path):
    """H and W are each at most 32, their product at most 256: the testbench passed 32
    and 32, and the H * W loop overran buf (probe 34b F4); they now run at 16 x 16 in
    the first call (then 0 x 0 and midway, 16 x 16), and the trace replays the model
    at each call's values."""
    text = """void r4(const int *a, int *b, int H, int W) {
#pragma HLS INTERFACE m_axi port=a depth=256
#pragma HLS INTERFACE m_axi port=b depth=256
  int buf[256];
  for (int i = 0; i < H * W; i++) {
#pragma HLS LOOP_TRIPCOUNT max=256
#pragma HLS pipeline II=1
    buf[i] = a[i];
  }
  for (int y = 0; y < H; y++) {
#pragma HLS LOOP_TRIPCOUNT max=32
    for (int x = 0; x < W; x++) {
#pragma HLS LOOP_TRIPCOUNT max=32
#pragma HLS pipeline II=1
      b[y * W + x] = buf[y * W + x] + 1;
    }
  }
}
"""
    compiled = arraypart.compile_kernel(write(tmp_path, "r4.cpp", text))
    assert driven_values(compiled.report.kernel, frozenset(), 3, 3).scalars == {
        "H": (16, 0, 16), "W": (16, 0, 16)}
    run = run_testbench(compiled, tmp_path, ("-fsanitize=address", "-g"))
    assert run.returncode == 0 and "PASS" in run.stdout, run.stdout + run.stderr
    judged = assert_the_trace_agrees(compiled, tmp_path, ports=2)
    assert "512 steps" in judged.format()  # 16 x 16 in the first and third calls


def test_a_size_only_guards_use_stays_a_data_dependent_condition(tmp_path):
    text = """void head(int a[64], int b[64], int n) {
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    if (i < n) b[i] = a[i] + a[63 - i];
  }
}
"""
    report = arraypart.analyze(write(tmp_path, "head.c", text), ports=1)
    assert report.kernel.params == () and report.to_json()["params"] == {}
    (guard,) = report.kernel.body[0].body
    assert guard.cond is None  # both branches may run, for every n
    a = searched(report, "a")
    assert a.banking.scheme.banks == 2 and a.conflict_free


def test_a_product_of_sizes_is_a_size_of_its_own(tmp_path):
    text = """void flat(const int a[1025], int b[1024], int dim) {
  int t[1025];
  for (int i = 0; i < dim * dim; i++) {
#pragma HLS LOOP_TRIPCOUNT max=1024
#pragma HLS pipeline II=1
    t[i] = a[i] + a[i + 1];
  }
  for (int i = 0; i < dim * dim; i++) {
#pragma HLS pipeline II=1
    b[i] = t[i];
  }
}
"""
    report = arraypart.analyze(write(tmp_path, "flat.c", text), ports=1)
    assert report.to_json()["params"]["dim*dim"]["range"] == [0, 1024]
    assert [l["trip_count"] for l in report.to_json()["loops"]] == [1024, 1024]
    a = searched(report, "a")
    assert a.banking.scheme.banks == 2 and a.conflict_free
    text = text.replace("#pragma HLS LOOP_TRIPCOUNT max=1024\n", "").replace(
        "1025", "4097").replace("b[1024]", "b[8192]")
    params = arraypart.analyze(write(tmp_path, "flat.c", text), ports=1).to_json()["params"]
    assert params["dim*dim"]["range"] == [0, 4096]  # a[i + 1] stays inside a[4097]



def test_a_tripcount_written_with_spaces_around_its_product_bounds_by_the_product(tmp_path):
    """``max = c * c`` (Vitis' own examples space it so) is 1024, not 32: a bound read
    short would size the pointers too small for the loop that reads them; sums and C's
    truncating quotients of literals and constants are read too."""
    text = """const unsigned int c = 32;
extern "C" void copy(const int *in, int *out, int size) {
  for (int i = 0; i < size * size; i++) {
#pragma HLS LOOP_TRIPCOUNT min = c * c max = c * c
    out[i] = in[i];
  }
}
"""
    report = arraypart.analyze(write(tmp_path, "copy.cpp", text))
    assert report.to_json()["params"]["size*size"]["range"] == [0, 1024]
    assert array(report, "in").array.shape == (1024,)
    # Vitis' burst_rw writes a quotient: 4096 * 4096 / (64 * 64) is 4096 trips
    quotient = text.replace("max = c * c", "max = 0x40 * c * 2 / (c / 16 * 2) - 8 / 3u")
    report = arraypart.analyze(write(tmp_path, "copy.cpp", quotient))
    assert report.to_json()["params"]["size*size"]["range"] == [0, 1022]


def test_depth_products_and_unreadable_pragma_values(tmp_path):
    text = """#define W 16
#define H 8
static const int kTrips = 64;
void copy(const int *src, int dst[128], int n) {
#pragma HLS INTERFACE m_axi port=src depth=W*H
  for (int i = 0; i < n; i++) {
#pragma HLS LOOP_TRIPCOUNT max=kTripsFromAHeader
#pragma HLS pipeline II=1
    dst[i] = src[i];
  }
}
"""
    report = arraypart.analyze(write(tmp_path, "copy.c", text))
    assert array(report, "src").array.shape == (128,)
    # the tripcount names nothing arraypart can read: dst's extent bounds n instead
    assert report.to_json()["params"]["n"]["range"] == [0, 128]
    text = text.replace("depth=W*H", "depth=DEPTH_FROM_A_HEADER").replace("i < n", "i < 128")
    with pytest.raises(KernelError) as info:
        arraypart.analyze(write(tmp_path, "copy.c", text.replace("src[i]", "src[dst[i]]")))
    assert "depth=DEPTH_FROM_A_HEADER is not an integer arraypart can read" in str(info.value)


def test_a_bound_that_leaves_a_size_no_value_is_a_located_error(tmp_path):
    text = """void scale(int a[256], unsigned n) {
  for (int i = 0; i < n + 10; i++) {
#pragma HLS LOOP_TRIPCOUNT max=5
#pragma HLS pipeline II=1
    a[i] = 2 * a[i];
  }
}
"""
    with pytest.raises(KernelError) as info:
        arraypart.analyze(write(tmp_path, "scale.c", text))
    assert (info.value.coord.line, info.value.coord.col) == (1, 33)
    assert "LOOP_TRIPCOUNT max=5" in str(info.value) and "no value from 0 up" in str(info.value)
    # a signed n is not assumed at least 0: n + 10 <= 5 down to -10, below which the
    # loop runs no more
    signed = write(tmp_path, "signed.c", text.replace("unsigned n", "int n"))
    assert arraypart.analyze(signed).to_json()["params"]["n"]["range"] == [-10, -5]


def test_a_shadowed_argument_is_no_size(tmp_path):
    text = """void shadow(int a[16], int i) {
  for (int i = 0; i < 16; i++) {
#pragma HLS pipeline II=1
    a[i] = a[i] + 1;
  }
}
"""
    assert arraypart.analyze(write(tmp_path, "shadow.c", text)).kernel.params == ()


# ---------------------------------------------------------------- 3. scalar interfaces

# Scalars of every kind the testbench drives: an ap_fixed by value, an ap_uint by const
# reference, outputs by reference (ap_int, int) and through a pointer, and an ap_fixed
# return value.
SCALARS = """#include "ap_fixed.h"
#include "ap_int.h"
typedef ap_fixed<12, 4> gain_t;
gain_t scale(gain_t gain, const ap_uint<4> &shift, ap_int<10> &peak, int &total,
             ap_uint<8> *last) {
  ap_int<10> buf[16];
  for (int i = 0; i < 16; i++) buf[i] = i << shift;
  int sum = 0;
  for (int i = 0; i < 8; i++) {
#pragma HLS pipeline II=1
    sum += buf[2 * i] + buf[2 * i + 1];
  }
  peak = buf[15];
  total = sum;
  *last = sum;
  return gain * sum;
}
"""


@needs_gxx
def test_scalar_parameters_and_outputs_are_driven_and_compared(compiled_once, tmp_path):
    compiled = compiled_once("scale.cpp", SCALARS, ports=1)
    assert array(compiled.report, "buf").banking.scheme.banks == 2
    assert loop_ii(compiled.report) == [1, 1]
    tb = compiled.files["scale_tb.cpp"]
    # a scalar that is no run-time size changes with the call
    assert "ap_uint<4> expected_shift((3 + call - 1));" in tb
    assert "gain_t expected_return" in tb
    compared = {name for name in ("gain", "shift", "peak", "total", "last")
                if f'compare("{name}"' in tb}
    assert compared == {"peak", "total", "last"}  # inputs by value or const & aside
    run = run_testbench(compiled, tmp_path)
    assert run.returncode == 0 and "PASS" in run.stdout, run.stdout + run.stderr


# Structs by value, by reference and returned (random bytes in), an enum by value
# (extern "C": the testbench's prototype names the types of its own copy of the
# kernel, which C++ linkage would mangle apart from the banked kernel's).
STRUCT_SCALARS = """struct acc { int sum; int count; };
enum mode { ADD, NEGATE, KEEP };
extern "C" acc tally(const int in[8], acc &a, acc seed, mode m) {
  int buf[8];
  for (int i = 0; i < 8; i++) buf[i] = in[i];
  int s = 0;
  for (int i = 0; i < 4; i++) {
#pragma HLS pipeline II=1
    s += buf[2 * i] + buf[2 * i + 1];
  }
  a.sum = m == NEGATE ? -s : s;
  acc r = {s, seed.count};
  return r;
}
"""


@needs_gxx
def test_struct_scalars_get_random_bytes_and_are_compared(tmp_path):
    compiled = arraypart.compile_kernel(write(tmp_path, "tally.cpp", STRUCT_SCALARS),
                                        ports=1)
    tb = compiled.files["tally_tb.cpp"]
    assert "acc expected_seed(random_bytes<acc>());" in tb
    assert "mode expected_m(mode(0));" in tb  # an enumerator: KEEP is 2
    assert 'compare("a", &expected_a' in tb and 'compare("seed"' not in tb
    assert 'compare("return value", &expected_return' in tb
    run = run_testbench(compiled, tmp_path)
    assert run.returncode == 0 and "PASS" in run.stdout, run.stdout + run.stderr


ENUM_INDEX = """enum Mode { ADD, SUB };
void en(const int a[8], Mode m, int out[8]) {
  int buf[2][8];
  for (int i = 0; i < 8; i++) { buf[0][i] = a[i]; buf[1][i] = -a[i]; }
  for (int i = 0; i < 8; i++) {
#pragma HLS pipeline II=1
    out[i] = buf[m][i] + buf[1 - m][i] + buf[0][7 - i];
  }
}
"""


@needs_gxx
def test_an_enum_parameter_takes_one_of_its_enumerators(tmp_path):
    """A mode that selects a row: the testbench and the trace passed Mode(3), no value
    of the enum, and the original itself indexed outside ``buf`` (a false FAIL)."""
    compiled = arraypart.compile_kernel(write(tmp_path, "en.cpp", ENUM_INDEX))
    assert "Mode expected_m(Mode(1));" in compiled.files["en_tb.cpp"]
    assert_the_testbench_passes(compiled, tmp_path)
    assert_the_trace_agrees(compiled, tmp_path, ports=2)


# The top's types defined in the kernel file, with C++ linkage: the testbench defines
# them once, outside its ``namespace original``, so that the original top and the banked
# one take the same types (else the banked top's declaration names types of the copy, and
# the testbench does not link).  With a constant, an enum, a nested struct, a namespace
# and a stream of the kernel's own struct.
OWN_TYPES = """#include <hls_stream.h>
const int W = 4;
enum mode_t { ADD, SUB };
struct inner { short v[W]; };
struct px { inner in; int a; mode_t m; };
namespace k {
struct acc { int s; };
void f(px in[16], mode_t m, acc &out, hls::stream<acc> &extra) {
  int buf[16];
  for (int i = 0; i < 16; i++) {
#pragma HLS pipeline II=1
    buf[i] = in[i].a + in[i].in.v[i % W];
  }
  int s = extra.read().s;
  for (int i = 0; i < 8; i++) {
#pragma HLS pipeline II=1
    s += (m == ADD) ? buf[2 * i] + buf[2 * i + 1] : buf[2 * i] - buf[2 * i + 1];
  }
  out.s = s;
}
}
"""

# C: an anonymous struct named by a typedef.
TYPEDEF_STRUCT = """typedef struct { int a; short b; } px;
void g(px in[16], int out[8]) {
  int buf[16];
  for (int i = 0; i < 16; i++) {
#pragma HLS pipeline II=1
    buf[i] = in[i].a + in[i].b;
  }
  for (int i = 0; i < 8; i++) {
#pragma HLS pipeline II=1
    out[i] = buf[2 * i] + buf[2 * i + 1];
  }
}
"""


# A global top naming a struct of a namespace as ``img::Pix``: its prototype, after
# ``using namespace original``, found ``img`` in two places (g++ rejected the testbench).
QUALIFIED_TYPE = """namespace img {
struct Pix { short r, g; };
}
void sig(const img::Pix in[16], int out[8]) {
  for (int i = 0; i < 8; i++) {
#pragma HLS pipeline II=1
    out[i] = in[2 * i].r + in[2 * i + 1].g;
  }
}
"""


@needs_gxx
@pytest.mark.parametrize("name, text", [("own.cpp", OWN_TYPES), ("tdef.c", TYPEDEF_STRUCT),
                                        ("sig.cpp", QUALIFIED_TYPE)],
                         ids=["cpp-namespace-stream", "c-typedef", "cpp-qualified"])
def test_the_tops_own_types_are_shared_with_the_banked_kernel(tmp_path, name, text):
    compiled = arraypart.compile_kernel(write(tmp_path, name, text), ports=1)
    assert compiled.report.kernel.warnings == ()
    assert_the_testbench_passes(compiled, tmp_path)
    assert_the_trace_agrees(compiled, tmp_path, ports=1)


# References to arrays of fixed size are array parameters (they were "only arrays
# declared with a fixed size can be indexed").
ARRAY_REFERENCES = """void g(const int (&a)[16], int (&out)[4][4]) {
  int buf[16];
  for (int i = 0; i < 16; i++) buf[i] = a[i];
  for (int i = 0; i < 4; i++) {
#pragma HLS pipeline II=1
    for (int j = 0; j < 4; j++) {
#pragma HLS unroll
      out[i][j] = buf[4 * i + j] + a[(4 * i + j + 1) % 16];
    }
  }
}
"""


@needs_gxx
def test_references_to_arrays_are_array_parameters(tmp_path):
    compiled = arraypart.compile_kernel(write(tmp_path, "refs.cpp", ARRAY_REFERENCES))
    assert array(compiled.report, "a").array.shape == (16,)
    assert array(compiled.report, "out").array.shape == (4, 4)
    assert array(compiled.report, "out").array.interface
    assert_the_testbench_passes(compiled, tmp_path)
    assert_the_trace_agrees(compiled, tmp_path, ports=2)


# A reference to a row (const float (&r)[8] = buf[i]) denotes that row, as a pointer
# to it would: r[k] is buf[i][k] (it was "arraypart cannot follow accesses through
# it").  A sub-function's local and an interface array may be so named; a local of the
# top, whose references the output may rewrite, is a located error saying so.
ROW_REFERENCES = """static void sum_rows(const float m[8][8], float out[8]) {
  float buf[8][8];
  for (int i = 0; i < 8; i++)
    for (int j = 0; j < 8; j++) buf[i][j] = m[i][j];
  for (int i = 0; i < 8; i++) {
#pragma HLS pipeline II=1
    const float (&r)[8] = buf[i];
    out[i] = r[0] + r[1] + r[2] + r[3];
  }
}
void rows(const float in[8][8], float out[8]) {
  const float (&top)[8] = in[2];
  sum_rows(in, out);
  out[0] += top[1];
}
"""


@needs_gxx
def test_a_reference_to_a_row_denotes_the_row(tmp_path):
    # threshold 4: the copy's 8-trip j loop is pipelined itself (at Vitis's 64 the
    # copy's i loop is, with 8 writes of buf a cycle, and buf is banked for those)
    compiled = arraypart.compile_kernel(write(tmp_path, "rows.cpp", ROW_REFERENCES),
                                        pipeline_loops=4)
    buf = next(a for a in compiled.report.solution.arrays if a.array.name.endswith("buf"))
    assert buf.banking.scheme.banks == 2 and buf.conflict_free  # 4 reads of one row
    reads = [a.index for a in ir.accesses(compiled.report.kernel.body)
             if a.array == "in" and a.kind == "read" and a.index[0] == E.const(2)]
    assert reads, "top[1] is in[2][1]"
    assert_the_testbench_passes(compiled, tmp_path)
    assert_the_trace_agrees(compiled, tmp_path, ports=2)


def test_a_reference_into_a_local_of_the_top_is_a_located_error():
    text = ROW_REFERENCES.replace("static void sum_rows", "void rows")
    text = text[:text.index("void rows(const float in")]
    with pytest.raises(KernelError, match="reference 'r' into local array 'buf': write "
                                          r"buf\[\.\.\.\]") as err:
        parse_source(text, "rows.cpp")
    assert (err.value.coord.line, err.value.coord.col) == (7, 19)


# Public kernels whose testbench did not build (a probe of pp4fpgas, hir-dev and
# Vitis examples), each reduced: a line comment between the top's ')' and '{' (the
# prototype's ';' went into it), a stream of the file's own struct, a top in a namespace
# whose size is a constant of that namespace, a struct array whose field indexes memory
# (random_int<S>), and ap_int bit references assigned an unsigned or a long (ambiguous
# in the stand-in ap_common.h).
UNBUILT = {
    "comment": """void comment(int a[4], int b[4])  // note
{
  for (int i = 0; i < 4; i++) b[i] = a[i];
}
""",
    "stream": """#include "hls_stream.h"
struct pkt { int data; bool last; };
void stream(hls::stream<pkt> &in, hls::stream<pkt> &out) { pkt p = in.read(); out.write(p); }
""",
    "spaced": """namespace acc { const int N = 4;
void spaced(int a[N], int b[N]) { for (int i = 0; i < N; i++) b[i] = a[N - 1 - i]; } }
""",
    "fields": """struct S { int v; int w; };
void fields(S in[8], int out[16]) {
  for (int i = 0; i < 8; i++) out[in[i].v & 15] = i;
}
""",
    "bits": """#include "ap_int.h"
void bits(ap_int<2> out[4]) {
  for (int i = 0; i < 4; i++) {
    ap_int<2> d = 0; unsigned v = i & 1; long w = i >> 1;
    d[1] = v; d[0] = w; out[i] = d;
  }
}
"""}


@needs_gxx
@pytest.mark.parametrize("name", sorted(UNBUILT))
def test_the_testbench_builds_and_passes(tmp_path, name):
    compiled = arraypart.compile_kernel(write(tmp_path, f"{name}.cpp", UNBUILT[name]))
    assert_the_testbench_passes(compiled, tmp_path)


# A method defined outside its class would be defined twice if the class left
# ``namespace original``: the class stays, and the user is told the testbench cannot link.
OUTSIDE_METHOD = """struct pt { int a; int get() const; };
int pt::get() const { return a; }
void f(const int in[16], pt p, int out[16]) {
  for (int i = 0; i < 16; i++) out[i] = in[i] + p.get();
}
"""


def test_a_type_that_cannot_be_shared_is_a_located_warning():
    kernel = parse_source(OUTSIDE_METHOD, "pt.cpp")
    assert any(":2:" in w and "'pt::get' is defined outside its class" in w
               and "will not link" in w for w in kernel.warnings), kernel.warnings


# A top and its struct in one extern "C" block: the struct stays in the original's
# copy, and the testbench's C-linkage prototype links against the banked top anyway.
EXTERN_C_BLOCK = """extern "C" {
struct px_t { float v[4]; };
void ec(px_t *in, px_t *out) {
#pragma HLS INTERFACE m_axi port=in depth=16
#pragma HLS INTERFACE m_axi port=out depth=16
  for (int i = 0; i < 16; i++) {
#pragma HLS PIPELINE II=1
    out[i] = in[i];
  }
}
}
"""


def test_a_c_linkage_top_whose_types_stay_links_without_a_warning(tmp_path):
    """The block's struct cannot leave ``namespace original``, which was warned as a
    testbench that "will not link" (a scope named ''); a C-linkage top links by name,
    so the testbench links and passes (probe 33c F8)."""
    compiled = arraypart.compile_kernel(write(tmp_path, "ec.cpp", EXTERN_C_BLOCK))
    assert not any("will not link" in w for w in compiled.report.warnings)
    if HAVE_GXX:
        assert_the_testbench_passes(compiled, tmp_path)


# A pointer to structs (off-chip): its elements get random bytes, as an array's do.
STRUCT_POINTER = """struct rgb { unsigned char r, g, b; };
extern "C" void gray(const rgb *in, unsigned char out[16]) {
  for (int i = 0; i < 16; i++) {
#pragma HLS pipeline II=1
    out[i] = (in[i].r + in[i].g + in[i].b) / 3;
  }
}
"""


@needs_gxx
def test_a_pointer_to_structs_gets_random_bytes(tmp_path):
    compiled = arraypart.compile_kernel(write(tmp_path, "gray.cpp", STRUCT_POINTER))
    assert array(compiled.report, "in").array.shape == (16,)
    assert "values[k] = random_bytes<rgb>();" in compiled.files["gray_tb.cpp"]
    run = run_testbench(compiled, tmp_path)
    assert run.returncode == 0 and "PASS" in run.stdout, run.stdout + run.stderr


@needs_gxx
def test_a_scalar_output_that_differs_fails_the_testbench(compiled_once, tmp_path):
    compiled = compiled_once("scale.cpp", SCALARS, ports=1)
    banked = compiled.files["scale.cpp"]
    assert banked.count("total = sum;") == 1
    wrong = {**compiled.files, "scale.cpp": banked.replace("total = sum;", "total = sum + 1;")}
    run = run_testbench(dataclasses.replace(compiled, files=wrong), tmp_path)
    assert run.returncode == 1 and "  total: expected" in run.stdout, run.stdout



# Struct outputs with a padding byte, copied from a local whose padding C leaves
# indeterminate (Vitis_Accel_Examples' custom_datatype: a testbench comparing bytes
# failed at random).
PADDED = """struct px { unsigned char h, s, v; } __attribute__((aligned(4)));
extern "C" void shade(const px *in, px out[8]) {
  for (int i = 0; i < 8; i++) {
#pragma HLS pipeline II=1
    px p;
    p.h = in[i].h;
    p.s = in[i].s + 1;
    p.v = in[i].v + 2;
    out[i] = p;
  }
}
"""


@needs_gxx
def test_struct_elements_compare_field_by_field_not_their_padding(tmp_path):
    """The two runs leave different bytes in the padding (set here: 0 in the original,
    0x5a in the banked kernel); the testbench compares the fields and passes, and still
    fails when a field differs."""
    compiled = arraypart.compile_kernel(write(tmp_path, "shade.cpp", PADDED))
    tb, banked = compiled.files["shade_tb.cpp"], compiled.files["shade.cpp"]
    assert tb.count("bool same(const px& a, const px& b) { return a.h == b.h && "
                    "a.s == b.s && a.v == b.v; }") == 1  # px and const px: one type
    compiled.files["shade_tb.cpp"] = tb.replace(
        "px p;", "px p; __builtin_memset(&p, 0, sizeof p);")
    compiled.files["shade.cpp"] = banked.replace(
        "px p;", "px p; __builtin_memset(&p, 0x5a, sizeof p);")
    run = run_testbench(compiled, tmp_path / "padding")
    assert run.returncode == 0 and "PASS" in run.stdout, run.stdout + run.stderr
    compiled.files["shade.cpp"] = compiled.files["shade.cpp"].replace(
        "p.v = in[i].v + 2;", "p.v = in[i].v + 3;")
    run = run_testbench(compiled, tmp_path / "field")
    assert run.returncode == 1 and "  out[0]: the element differs" in run.stdout, run.stdout

# ---------------------------------------------------------------- 4. struct fields

# Array fields of structs: of a local copy of an element (a.foo[k]: no memory access of
# its own) and of an element itself (r[i].foo[k]: an access of r[i]).
STRUCT_FIELDS = """struct rec { int foo[3]; short bar; };
int fields(const int in[16], int out[4]) {
  rec r[16];
  for (int i = 0; i < 16; i++) {
    rec t;
    t.foo[0] = in[i];
    t.foo[1] = 2 * in[i];
    t.foo[2] = -in[i];
    t.bar = i;
    r[i] = t;
  }
  int total = 0;
  for (int i = 0; i < 4; i++) {
#pragma HLS pipeline II=1
    auto a = r[4 * i];
    int s = a.foo[0] + a.foo[2] + r[4 * i + 1].foo[1] + r[4 * i + 2].bar + r[4 * i + 3].foo[0];
    out[i] = s;
    total += s;
  }
  return total;
}
"""


def test_an_array_field_is_part_of_its_struct_value(compiled_once):
    report = compiled_once("fields.cpp", STRUCT_FIELDS, ports=1).report
    pipelined = [n for n in report.kernel.body if isinstance(n, ir.Loop)][-1]
    reads = [(a.array, a.kind, a.coord.col) for a in ir.accesses(pipelined.body)
             if a.array == "r"]
    assert reads == [("r", "read", 14), ("r", "read", 35), ("r", "read", 57),
                     ("r", "read", 76)]
    r = array(report, "r")
    assert r.banking.scheme.banks == 4 and r.conflict_free and loop_ii(report) == [1, 1]


@needs_gxx
def test_struct_fields_kernel_matches_the_original_and_its_trace(compiled_once, tmp_path):
    compiled = compiled_once("fields.cpp", STRUCT_FIELDS, ports=1)
    run = run_testbench(compiled, tmp_path)
    assert run.returncode == 0 and "PASS" in run.stdout, run.stdout + run.stderr


# A class whose fields are private (the stand-in hls::vector): compared bit for bit.
VECTORS = """#include "hls_vector.h"
typedef hls::vector<int, 4> int4;
void twice(const int4 in[8], int4 out[8]) {
  for (int i = 0; i < 8; i++) {
#pragma HLS pipeline II=1
    out[i] = in[i] + in[i];
  }
}
"""


@needs_gxx
def test_classes_with_private_fields_compare_bit_for_bit(tmp_path):
    compiled = arraypart.compile_kernel(write(tmp_path, "twice.cpp", VECTORS))
    assert "bool same(const int4&" not in compiled.files["twice_tb.cpp"]
    run = run_testbench(compiled, tmp_path)
    assert run.returncode == 0 and "PASS" in run.stdout, run.stdout + run.stderr


def test_an_m_axi_cache_is_said_to_be_unmodelled(tmp_path):
    """``#pragma HLS cache`` changes how many transfers a bundle makes, which arraypart
    does not model: the II it reports for the loop may be worse than Vitis gets."""
    path = write(tmp_path, "c.cpp", """void c(const int *in, int out[64]) {
#pragma HLS interface m_axi port=in depth=66
#pragma HLS cache port=in lines=1 depth=128
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    out[i] = in[i] + in[i + 1] + in[i + 2];
  }
}
""")
    report = arraypart.analyze(path)
    assert any(w.startswith(f"{path}:3:1: warning: the cache of port 'in' is not modelled")
               for w in report.warnings) and loop_ii(report) == [3]


def test_a_loop_merge_is_said_to_be_unmodelled(tmp_path):
    """Vitis merges the two loops of a ``loop_merge`` scope into one, whose iteration
    reads buf[i] and buf[63 - i] on one port (II 2); arraypart banks them as two
    loops, so it says that the IIs it reports need not hold."""
    path = write(tmp_path, "m.cpp", """void m(int in[64], int out[64], int out2[64]) {
    int buf[64];
#pragma HLS bind_storage variable=buf type=ram_1p
    for (int i = 0; i < 64; i++) buf[i] = in[i];
    {
#pragma HLS loop_merge
        A: for (int i = 0; i < 64; i++) out[i] = buf[i];
        B: for (int i = 0; i < 64; i++) out2[i] = buf[63 - i];
    }
}
""")
    report = arraypart.analyze(path)
    assert any(w.startswith(f"{path}:6:1: warning: loop_merge is not modelled")
               for w in report.warnings)
    path.write_text(path.read_text().replace("loop_merge", "loop_merge off"))
    assert not any("loop_merge" in w for w in arraypart.analyze(path).warnings)


def test_an_array_map_is_said_to_be_unmodelled(tmp_path):
    """``ARRAY_MAP ... horizontal`` makes a and b one memory in Vivado HLS, so each loop
    makes two accesses of one ram_1p memory per cycle (II 2); arraypart banks them as
    two memories and reports II 1, so it says at each pragma that the II need not hold
    (probe 34 F2), and keeps the pragma."""
    path = write(tmp_path, "am.cpp", """void am(const int in[64], int out[64]) {
  int a[64], b[64];
#pragma HLS ARRAY_MAP variable=a instance=ab horizontal
#pragma HLS ARRAY_MAP variable=b instance=ab horizontal
  for (int i = 0; i < 64; i++) {
#pragma HLS PIPELINE II=1
    a[i] = in[i];
    b[i] = in[i] + 1;
  }
  for (int i = 0; i < 64; i++) {
#pragma HLS PIPELINE II=1
    out[i] = a[i] * b[i];
  }
}
""")
    compiled = arraypart.compile_kernel(path, ports=1)
    assert [w.split(" is not")[0] for w in compiled.report.warnings if "array_map" in w] == [
        f"{path}:3:1: warning: array_map of 'a' into 'ab'",
        f"{path}:4:1: warning: array_map of 'b' into 'ab'"]
    assert compiled.files["am.cpp"].count("#pragma HLS ARRAY_MAP") == 2


CHANNEL = """#include "hls_stream.h"
static void produce(const int in[64], hls::stream<int> &s) {
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    s.write(in[i]);
  }
}
static void consume(hls::stream<int> &s, int out[32]) {
  for (int i = 0; i < 32; i++) {
#pragma HLS pipeline II=1
    int a = s.read();
    int b = s.read();
    out[i] = a + b;
  }
}
void channel(const int in[64], int out[32]) {
#pragma HLS dataflow
  hls::stream<int> s("s");
  produce(in, s);
  consume(s, out);
}
"""


@needs_gxx
def test_a_stream_between_dataflow_processes_transfers_one_element_per_cycle(tmp_path):
    """The top's own stream, a channel between two processes, is a FIFO as a stream
    argument is: consume reads it twice an iteration (II 2).  It was no array, and
    both loops were claimed at II 1."""
    compiled = arraypart.compile_kernel(write(tmp_path, "channel.cpp", CHANNEL))
    assert loop_ii(compiled.report) == [1, 2]
    s = array(compiled.report, "s")
    assert (s.array.fifo, s.array.interface, s.banking.scheme.kind) == ("ap_fifo", False,
                                                                        "none")
    assert "variable=s" not in compiled.files["channel.cpp"]
    assert_the_testbench_passes(compiled, tmp_path)


SUB_CHANNEL = CHANNEL.replace("void channel(", "static void stage(") + """void channel(const int in[64], int out[32], int s[1]) {
  s[0] = in[0];
  stage(in, out);
}
"""


@needs_gxx
def test_a_stream_a_sub_function_declares_transfers_one_element_per_cycle(tmp_path):
    """The same channel declared in a dataflow sub-function: it was no array, and
    consume's two reads an iteration were claimed at II 1 (exit 0, no warning).  Its
    FIFO takes the callee's name after its own where the top's argument ``s`` has
    it."""
    compiled = arraypart.compile_kernel(write(tmp_path, "channel.cpp", SUB_CHANNEL))
    assert loop_ii(compiled.report) == [1, 2]
    fifo = array(compiled.report, "s_stage")
    assert (fifo.array.fifo, fifo.array.interface) == ("ap_fifo", False)
    assert any("s_stage is a stream the kernel declares" in w
               for w in compiled.report.warnings)
    assert_the_testbench_passes(compiled, tmp_path)


STREAM_THEN_ARRAY = """#include "hls_stream.h"
static void f1(const int in[64], int out[32]) {
#pragma HLS dataflow
  hls::stream<int> buf;
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    buf.write(in[i]);
  }
  for (int i = 0; i < 32; i++) {
#pragma HLS pipeline II=1
    out[i] = buf.read();
  }
}
static void f2(const int in[66], int out[32]) {
  int buf[66];
  for (int i = 0; i < 66; i++) buf[i] = in[i];
  for (int i = 0; i < 32; i++) {
#pragma HLS pipeline II=1
    out[i] = buf[2*i] + buf[2*i+1] + buf[2*i+2] + buf[2*i+3];
  }
}
void top(const int in[66], int out[32], int o2[32]) {
  f1(in, out);
  f2(in, o2);
}
"""


@needs_gxx
def test_a_stream_name_is_its_own_functions(tmp_path):
    """f1's stream ``buf`` made every later ``buf[...]`` a FIFO transfer, so f2's own
    array lost its four reads a cycle (one memory claimed at II 1, exit 0).  Stream
    names are now each function's own."""
    compiled = arraypart.compile_kernel(write(tmp_path, "top.cpp", STREAM_THEN_ARRAY))
    buf = array(compiled.report, "buf_f2")
    assert buf.banking.scheme.banks == 2 and dict(buf.achieved_ii)["f2/L17"] == 1
    assert_the_testbench_passes(compiled, tmp_path)


BLOCKS_OF_ONE_NAME = """#include "hls_stream.h"
#define N 64
void blocks(int a[N], int o[N], hls::stream<int> &out) {
  {
    hls::stream<int> tmp;
    W: for (int i = 0; i < N; i++) {
#pragma HLS pipeline II=1
      tmp.write(a[i]);
    }
    X: for (int i = 0; i < N; i++) {
#pragma HLS pipeline II=1
      out.write(tmp.read());
    }
  }
  {
    int tmp[N];
    for (int i = 0; i < N; i++) tmp[i] = a[i] * 3;
    R: for (int i = 0; i < N / 4; i++) {
#pragma HLS pipeline II=1
      o[i] = tmp[4 * i] + tmp[4 * i + 1] + tmp[4 * i + 2] + tmp[4 * i + 3];
    }
  }
}
"""


@needs_gxx
@pytest.mark.parametrize("top", [True, False], ids=["top", "callee"])
def test_a_stream_and_an_array_of_one_name_in_two_blocks(tmp_path, top):
    """A stream ``tmp`` in one block and an array ``tmp`` in the next: in the top the
    array's declaration was an internal error (the stream held its name), in a callee
    its four reads a cycle were dropped as FIFO transfers (II 1 claimed on one
    memory), and the emitted pragma of the array was skipped as a stream's."""
    text = BLOCKS_OF_ONE_NAME if top else BLOCKS_OF_ONE_NAME.replace(
        "void blocks(", "static void f(") + (
        "void blocks(int a[N], int o[N], hls::stream<int> &out) { f(a, o, out); }\n")
    compiled = arraypart.compile_kernel(write(tmp_path, "blocks.cpp", text))
    banked = [a for a in compiled.report.solution.arrays
              if a.array.name.startswith("tmp") and not a.array.stream]
    assert len(banked) == 1 and banked[0].banking.scheme.banks == 2
    assert all(loop["achieved_ii"] == 1 for loop in compiled.report.to_json()["loops"])
    assert_the_testbench_passes(compiled, tmp_path)


def test_a_cascade_of_the_tops_streams_is_no_recurrence(tmp_path):
    """Vitis's dataflow_stream_array: stage k reads s[k] and writes s[k + 1] in an
    unrolled loop.  Counted as FIFOs, the streams' transfers read what an earlier lane
    wrote, which the recurrence check took for memory read back (a missed II); a
    stream is a channel."""
    text = """#include "hls_stream.h"
static void add(hls::stream<int> &in, hls::stream<int> &out, int n) {
  for (int i = 0; i < n; i++) {
#pragma HLS pipeline II=1
    out.write(in.read() + 1);
  }
}
void cascade(const int a[16], int b[16]) {
#pragma HLS dataflow
  static hls::stream<int> s[4];
  for (int i = 0; i < 16; i++) s[0].write(a[i]);
  for (int k = 0; k < 3; k++) {
#pragma HLS unroll
    add(s[k], s[k + 1], 16);
  }
  for (int i = 0; i < 16; i++) b[i] = s[3].read();
}
"""
    report = arraypart.analyze(write(tmp_path, "cascade.cpp", text))
    assert not [w for w in report.warnings if "recurrence" in w or "reads what" in w]
    assert report.goals_met


def test_a_struct_holding_a_stream_is_a_located_error(tmp_path):
    """UG1399's auto-disaggregation example: a top argument whose struct holds an
    hls::stream.  Its transfers went uncounted and the testbench, which copies the
    struct, did not compile (the check --trace driver failed with an internal
    error)."""
    path = write(tmp_path, "agg.cpp", """#include "hls_stream.h"
struct A { hls::stream<int> s_in; long arr[10]; };
long agg(A &d) {
  long sum = 0;
  for (int i = 0; i < 4; i++) sum += d.s_in.read();
  for (unsigned i = 0; i < 10; i++) sum += d.arr[i];
  return sum;
}
""")
    with pytest.raises(KernelError, match=r"'d' holds an hls::stream \(d.s_in\)") as raised:
        arraypart.analyze(path)
    assert str(raised.value).startswith(f"{path}:3:13: error:")


def test_an_ap_bus_interface_is_a_located_error(tmp_path):
    """Vitis HLS has no ap_bus (UG1399, Unsupported Features); it was taken for an
    on-chip two-port memory."""
    path = write(tmp_path, "bus.cpp", """void bus(int a[64], int out[64]) {
#pragma HLS interface ap_bus port=a
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    out[i] = a[i] + a[63 - i];
  }
}
""")
    with pytest.raises(KernelError, match="INTERFACE mode ap_bus of 'a' is not supported"
                       ) as raised:
        arraypart.analyze(path)
    assert str(raised.value).startswith(f"{path}:2:1: error:")


@pytest.mark.parametrize("signature, setup, first", [
    ("hls::stream<int> *in", "", "(*in).read()"),
    ("hls::stream<int> *in", "", "in[0].read()"),
    ("hls::stream<int> &in", "hls::stream<int> &s = in;", "s.read()"),
    ("hls::stream<int> &in", "hls::stream<int> *p = &in;", "p->read()"),
], ids=["deref", "index-0", "reference", "pointer"])
def test_a_stream_named_another_way_transfers_one_element_per_cycle(
        tmp_path, signature, setup, first):
    """The transfers through ``*p``, ``p[0]``, or a local reference or pointer to a
    stream argument are its transfers: they were not counted, and two reads per
    iteration claimed II 1."""
    text = f"""#include "hls_stream.h"
void named({signature}, hls::stream<int> &out) {{
  {setup}
  for (int i = 0; i < 16; i++) {{
#pragma HLS pipeline II=1
    int a = {first};
    out.write(a + in{"->" if "*" in signature else "."}read());
  }}
}}
"""
    report = arraypart.analyze(write(tmp_path, "named.cpp", text))
    assert loop_ii(report) == [2]


@pytest.mark.parametrize("read, ii", [("in[u]", 1), ("in[0]", 4), ("in[u / 2]", 2)])
def test_an_array_of_streams_is_one_fifo_per_stream(tmp_path, read, ii):
    """Each stream of ``hls::stream<int> in[4]`` is a FIFO of its own: four lanes
    reading four streams keep II 1, four reads of one stream need four cycles.  The
    transfers of an array of streams were not counted: II 1 either way."""
    text = f"""#include "hls_stream.h"
void lanes(hls::stream<int> in[4], hls::stream<int> out[4]) {{
  for (int i = 0; i < 16; i++) {{
#pragma HLS pipeline II=1
    for (int u = 0; u < 4; u++) out[u].write({read}.read() + 1);
  }}
}}
"""
    report = arraypart.analyze(write(tmp_path, "lanes.cpp", text))
    assert loop_ii(report) == [ii]
    assert array(report, "in").banking.scheme.banks == 4


GUARD_FLAG = """
void flag(int A[64], int v[16], FLAG left, int x) {
  for (int i = 0; i < 16; i++) {
#pragma HLS pipeline
    v[i] = A[x + i];
    if (GUARD)
      v[i] += A[x - 1];
  }
}
"""


@pytest.mark.parametrize("flag_type, guard", [("bool", "left"),
                                              ("unsigned char", "left % 2")])
def test_a_flag_that_only_guards_is_no_size_the_arrays_narrow(tmp_path, flag_type, guard):
    """``if (left) v[i] += A[x - 1]``: ``left`` bounded by its type only, and guarding
    a reference past A at x = 0, was narrowed to [0, 0]; the branch left the model and
    a one-port A was claimed at II 1 (probe 30 F1, H.264's ``avaiMode``).  A scalar
    that no loop bound or subscript uses is no size: its ``if`` is data dependent,
    both branches count, and x is narrowed instead: two reads of A a cycle, II 2."""
    path = tmp_path / "flag.cpp"
    path.write_text(GUARD_FLAG.replace("FLAG", flag_type).replace("GUARD", guard))
    compiled = arraypart.compile_kernel(str(path), ports=1)
    assert [p.name for p in compiled.report.kernel.params] == ["x"]
    assert compiled.report.kernel.params[0].low == 1
    assert compiled.report.to_json()["loops"][0]["achieved_ii"] == 2
    # the testbench drives both branches: a bool true, false, true; a char 3, 4, 5
    tb = compiled.files["flag_tb.cpp"]
    assert ("expected_left((call % 2 == 1))" if flag_type == "bool"
            else "expected_left((3 + call - 1))") in tb
    if HAVE_GXX:
        assert_the_testbench_passes(compiled, tmp_path)
        assert_the_trace_agrees(compiled, tmp_path, ports=1)


SCALARS_WITH_PRECONDITIONS = """#include <assert.h>
#include "ap_int.h"
void pre(int in[64], int out[64], int scale, ap_uint<1> half) {
  assert(scale > 1);
  int d = half + 0;
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    out[i] = in[i] * scale / d;
  }
}
"""


@needs_gxx
def test_scalars_that_change_by_call_keep_to_their_least_value(tmp_path):
    """The first version of scalars that change by call passed 3, 1, 2: a kernel
    asserting ``scale > 1`` aborted in the second call, and a one-bit divisor was 0
    in the third (probe 30c f07, f08).  Integers take 3, 4, 5; one of at most two
    bits keeps 3."""
    compiled = arraypart.compile_kernel(write(tmp_path, "pre.cpp", SCALARS_WITH_PRECONDITIONS))
    tb = compiled.files["pre_tb.cpp"]
    assert "int expected_scale((3 + call - 1));" in tb
    assert "ap_uint<1> expected_half(3);" in tb
    run = run_testbench(compiled, tmp_path)
    assert run.returncode == 0 and "PASS" in run.stdout, run.stdout + run.stderr


def test_a_size_cut_short_by_a_gap_of_bad_values_is_named(tmp_path):
    """``for (i = 0; i < n; i += 2)`` with lanes reading ``A[n - 1 - i - u]``: odd n
    read A[-1], so n is taken as [0, 0], although every even n up to 128 is a valid
    call; nothing said so (probe 31b F5).  A size whose range stops at the first bad
    value, with good ones past it, is named with an example."""
    text = """void param(int A[128], int B[128], int n) {
  for (int i = 0; i < n; i += 2) {
#pragma HLS pipeline II=1
    for (int u = 0; u < 2; u++) {
#pragma HLS unroll
      B[i + u] = A[n - 1 - i - u] + A[i + u];
    }
  }
}
"""
    report = arraypart.analyze(write(tmp_path, "param.c", text))
    assert report.to_json()["params"]["n"]["range"] == [0, 0]
    assert [w for w in report.warnings
            if "'n' is taken as [0, 0]" in w and "larger values such as 2" in w]
    whole = text.replace("A[n - 1 - i - u]", "A[127 - i - u]")  # n in [0, 128]
    assert not [w for w in arraypart.analyze(write(tmp_path, "whole.c", whole)).warnings
                if "is taken as" in w]


HUGE_DEPTH = """void huge(float *mem, float out[1]) {
#pragma HLS INTERFACE m_axi port=mem depth=2147483648 offset=slave
  float acc = 0;
  for (int i = 0; i < 64; i++) {
#pragma HLS PIPELINE II=1
    acc += mem[i] * mem[64 + i];
  }
  out[0] = acc;
}
"""


def test_a_depth_no_testbench_can_declare_gives_way_to_the_indices_reached(tmp_path):
    """``depth=2147483648`` (ECE1373 assignment kernels): the testbench declared an
    8 GB buffer and did not link, and the trace spent half a minute on it and read
    wrapped addresses (probe 33c F6).  Past MAX_DECLARED_DEPTH, where every access's
    largest index is known, the extent is one past it; the user's pragma stays."""
    compiled = arraypart.compile_kernel(write(tmp_path, "huge.cpp", HUGE_DEPTH))
    (mem,) = [a for a in compiled.report.solution.arrays if a.array.name == "mem"]
    assert mem.array.shape == (128,)
    assert "depth=2147483648" in compiled.files["huge.cpp"]
    if HAVE_GXX:
        assert_the_testbench_passes(compiled, tmp_path)


def test_a_bound_for_a_size_the_kernel_lacks_is_a_warning(tmp_path):
    """``-D ARRAYPART_MAX_<name>`` bounds the size ``name``; one naming no run-time
    size (misspelt, or a scalar no loop uses) changed nothing without a word."""
    path = write(tmp_path, "k.cpp", "void k(const int a[64], int b[64], int n) {\n"
                 "  for (int i = 0; i < n; i++) {\n#pragma HLS pipeline II=1\n"
                 "    b[i] = a[i];\n  }\n}\n")
    said = [w for w in parse_kernel(
        path, defines={"ARRAYPART_MAX_lo": 8, "ARRAYPART_MAX_n": 64}).warnings
        if "ARRAYPART_MAX" in w]
    assert said == [f"{path}: warning: -D ARRAYPART_MAX_lo=8 bounds no run-time size of "
                    "the kernel (its sizes: n): it changes nothing"]


def test_an_interface_pragma_may_name_several_ports(tmp_path):
    """``port=a,b`` is one INTERFACE pragma per port, as Vitis's front end splits the
    list: a and b share bundle shared (two reads a cycle on one bundle, II 2), c has
    gmem1."""
    path = write(tmp_path, "k.cpp", """\
void k(const int *a, const int *b, int *c) {
#pragma HLS INTERFACE mode=m_axi port=a, b bundle=shared depth=64
#pragma HLS INTERFACE mode=m_axi port=c bundle=gmem1 depth=64
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    c[i] = a[i] + b[i];
  }
}
""")
    report = arraypart.analyze(path)
    assert {a.name: (a.bundle, a.shape) for a in report.kernel.arrays} == {
        "a": ("shared", (64,)), "b": ("shared", (64,)), "c": ("gmem1", (64,))}
    assert loop_ii(report) == [2]


ASSERTED_SCALAR = """#include <assert.h>
void scaled(const int a[64], int b[64], int scale, int shift) {
  assert(scale > 0 && scale < 4);
  assert(shift >= 8);
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    b[i] = (a[i] * scale) >> shift;
  }
}
"""


@needs_gxx
def test_the_testbench_drives_scalars_within_the_kernels_asserts(tmp_path):
    """``scale`` was driven 3, 4, 5 in the three calls although the kernel asserts
    ``scale < 4``: the testbench aborted in the original's assert (probe 38 L1).  An
    assert on a scalar is a constraint on the inputs, as a guard is: scale takes 3, 1,
    2 and shift 8, 9, 10, and the testbench passes."""
    compiled = arraypart.compile_kernel(write(tmp_path, "scaled.c", ASSERTED_SCALAR))
    tb = compiled.files["scaled_tb.cpp"]
    assert "expected_scale((call == 1 ? 3 : call == 2 ? 1 : 2))" in tb
    assert "expected_shift((call == 1 ? 8 : call == 2 ? 9 : 10))" in tb
    assert_the_testbench_passes(compiled, tmp_path)


# Issue 13, M5: a run-time scalar that only an enclosing guard bounds.
GUARDED_READ = """void guarded(int s, const int in[64], int out[64]) {{
  int buf[16];{storage}
  for (int i = 0; i < 16; i++) buf[i] = in[i];
  if ({guard}) {{
    for (int i = 0; i < 16; i++) {{
#pragma HLS pipeline II=1
      out[i] = buf[s] + buf[i];
    }}
  }}{orelse}
}}
"""
RAM_1P = "\n#pragma HLS bind_storage variable=buf type=ram_1p"
OTHER_BRANCH = """ else {
    for (int i = 0; i < 16; i++) {
#pragma HLS pipeline II=1
      out[i] = buf[i] + buf[15 - i];
    }
  }"""


@pytest.mark.parametrize("guard, orelse, low", [
    ("s >= 0 && s <= 15", "", -1), ("!(s < 0 || s > 15)", "", -1),
    ("s <= 15", OTHER_BRANCH, 0)])
def test_a_guard_bounds_a_size_where_the_accesses_use_it(guard, orelse, low, tmp_path):
    """``if (s >= 0 && s <= 15)`` around the only read of ``buf[s]``: above 15 no
    on-chip access changes with s, so s is unbounded, proven and replayed from -1 to 16,
    inside the guard and past it on both sides (every value below -1 makes the
    accesses -1 makes: none); it was refused ("nothing bounds it", exit 2).  Without
    the guard below, buf[-1] bounds the signed s from 0."""
    text = GUARDED_READ.format(storage="", guard=guard, orelse=orelse)
    report = arraypart.analyze(write(tmp_path, "guarded.c", text))
    (s,) = report.kernel.params
    assert (s.low, s.high, s.unbounded) == (low, 16, True)
    # the checker replays both sides of 15 (and of 0)
    assert checked_values(s) == (low, (low + 16) // 2, 16)
    assert report.to_json()["params"]["s"] == {
        "range": [low, 2**63 - 1], "bound_by": "nothing (no on-chip access changes with "
                                               "it above 15)"}
    assert any("'s': nothing bounds it, but no on-chip access changes with it above 15"
               in w for w in report.warnings)
    assert [(l["trip_count"], l["achieved_ii"]) for l in report.to_json()["loops"]][1:] \
        == [(16, 1)] * (1 + bool(orelse))
    buf = array(report, "buf")
    assert buf.conflict_free and buf.banking.scheme.banks * buf.banking.copies == 1
    result = check.check_kernel(report.kernel, report.solution.bankings(), ports=2)
    assert all(l.first_conflict is None and l.achieved_ii == 1 for l in result.loops)


def test_an_early_return_guards_the_statements_after_it(tmp_path):
    """``if (s < 0 || s > 15) return;`` before the loop reading ``buf[s]``: the rest of
    the block runs only where the condition fails, so s settles above 15 and below 0 as
    under an enclosing ``if``; the model ran the loop for every s, and buf's extent
    bounded s to [0, 15], never driven past the guard."""
    text = """void early(int s, const int in[64], int out[64]) {
  int buf[16];
  for (int i = 0; i < 16; i++) buf[i] = in[i];
  if (s < 0 || s > 15) return;
  for (int i = 0; i < 16; i++) {
#pragma HLS pipeline II=1
    out[i] = buf[s] + buf[i];
  }
}
"""
    report = arraypart.analyze(write(tmp_path, "early.c", text))
    (s,) = report.kernel.params
    assert (s.low, s.high, s.unbounded) == (-1, 16, True)
    guard = report.kernel.body[-1]
    assert isinstance(guard, ir.If) and not guard.then and guard.orelse[-1].var == "i"
    assert array(report, "buf").conflict_free


def test_a_loop_after_an_early_return_keeps_its_fresh_trips(tmp_path):
    """The sizes are narrowed after ``if (n > 16) return;`` (n <= 16 there) and set back
    after it; a loop there that arraypart cannot count (``unsigned i = n`` with an int
    n that may be negative: 2^32 - 1 at n = -1) adds a trip count of its own, which
    setting the whole table back dropped: an internal error (KeyError)."""
    text = """void v1(int n, const int in[64], int out[64]) {
  int buf[16];
  for (int i = 0; i < 16; i++) buf[i] = in[i];
  if (n > 16) return;
  for (unsigned i = n; i-- > 0; ) {
#pragma HLS pipeline II=1
    out[i & 63] = buf[i & 15];
  }
}
"""
    report = arraypart.analyze(write(tmp_path, "v1.c", text))
    assert [p.name for p in report.kernel.params] == ["trips of loop@5:3"]
    assert any("whose iterations arraypart cannot count at" in w for w in report.warnings)


def test_a_size_that_settles_into_a_period_is_replayed_over_one(tmp_path):
    """Probe 39b, MEDIUM-5: a callee reads ``buf[s]`` after ``if (s > 15) return;``,
    the top ``buf[s & 15]`` after ``if (s < 0) return;``.  Neither settles (s & 15
    changes at every value) nor repeats (buf[s] does not) alone, and s was refused
    ("nothing bounds it"); above 15 the accesses at s and s + 16 agree, so the banking
    proven from the least value up to 31 (one period past 15) holds for every s."""
    text = """static void h(int s, int buf[16], int out[64]) {
  if (s > 15) return;
  for (int i = 0; i < 16; i++) {
#pragma HLS pipeline II=1
    out[i] = buf[s] + buf[i];
  }
}
void g3(int s, const int in[64], int out[64]) {
  int buf[16];
  for (int i = 0; i < 16; i++) buf[i] = in[i];
  if (s < 0) return;
  h(s, buf, out);
  for (int i = 0; i < 16; i++) {
#pragma HLS pipeline II=1
    out[i + 16] = buf[i] + buf[s & 15] + buf[15 - i];
  }
}
"""
    report = arraypart.analyze(write(tmp_path, "g3.c", text))
    (s,) = report.kernel.params
    assert (s.low, s.high, s.unbounded) == (-1, 31, True)
    assert report.to_json()["params"]["s"]["bound_by"] == (
        "nothing (above 15 the on-chip accesses repeat every 16 values of it)")
    assert any("above 15 the on-chip accesses repeat every 16 values of it" in w
               for w in report.warnings)
    assert array(report, "buf").conflict_free
    result = check.check_kernel(report.kernel, report.solution.bankings(), ports=2)
    assert all(l.first_conflict is None and l.achieved_ii == 1 for l in result.loops)


# Issue 13: a signed offset, valid C from -8 up (off = -4 reads buf[4]).
SIGNED_OFFSET = """void neg(TYPE off, const int in[64], int out[64]) {
  int buf[16];
#pragma HLS bind_storage variable=buf type=ram_1p
  for (int i = 0; i < 16; i++) buf[i] = in[i];
  for (int i = 0; i < 8; i++) {
#pragma HLS pipeline II=1
    out[i] = buf[i] + buf[off + 8];
  }
}
"""


def test_a_signed_size_is_bounded_below_as_above(tmp_path):
    """A signed size was taken from 0 up: off in [0, 7] gave buf two blocks, buf[i] in
    the first, buf[off + 8] in the second, yet off = -4 reads buf[4] with buf[i] in
    the first bank.  Its least value is now the arrays' too, -8 (buf[-9 + 8] leaves
    buf), the banking holds from -8 and the checker replays -8, -1 and 7; unsigned,
    0 stays its least value and two blocks are right."""
    report = arraypart.analyze(write(tmp_path, "neg.c",
                                     SIGNED_OFFSET.replace("TYPE", "int")))
    (off,) = report.kernel.params
    assert (off.low, off.high) == (-8, 7) and checked_values(off) == (-8, -1, 7)
    buf = array(report, "buf")
    assert buf.conflict_free and buf.banking.scheme.banks * buf.banking.copies == 2
    result = check.check_kernel(report.kernel, report.solution.bankings(), ports=2)
    assert all(l.first_conflict is None and l.achieved_ii == 1 for l in result.loops)
    unsigned = arraypart.analyze(write(tmp_path, "neg_u.c",
                                       SIGNED_OFFSET.replace("TYPE", "unsigned")))
    assert unsigned.to_json()["params"]["off"]["range"] == [0, 7]
    assert array(unsigned, "buf").banking.scheme.dims[0].factor == 2


@needs_gxx
def test_a_signed_size_is_driven_and_traced_below_0(tmp_path):
    """The testbench drives off at 7, -8 and -1 (it floored sizes at 0), the original
    computes the same and the trace agrees with the model at each value."""
    compiled = arraypart.compile_kernel(write(tmp_path, "neg.c",
                                              SIGNED_OFFSET.replace("TYPE", "int")))
    assert driven_values(compiled.report.kernel, frozenset(), 3, 1).scalars == {
        "off": (7, -8, -1)}
    assert_the_testbench_passes(compiled, tmp_path)
    (tmp_path / "trace").mkdir()
    assert_the_trace_agrees(compiled, tmp_path / "trace", ports=2)


@pytest.mark.parametrize("header, body, low", [
    ("int n", "for (int i = 0; i < n - 1; i++) out[i] = buf[i] + buf[i + 1];", 1),
    ("unsigned n", "for (int i = 0; i < n - 1; i++) out[i] = buf[i] + buf[i + 1];", 0),
    ("int n", "assert(n >= -4); out[0] = buf[n + 8];", -4),
    ("int n", "for (int i = 0; i < n; i++) out[i] = buf[i];", 0)])
def test_a_signed_size_starts_where_its_accesses_stop_changing(header, body, low,
                                                               tmp_path):
    """Where no access leaves its array below, a signed size's least value is the one
    every smaller value behaves like: n - 1 iterations run none from n = 1 down (so
    1), n from 0 down (so 0); unsigned it is 0, and an assert keeps its meaning."""
    text = (f"#include <assert.h>\nvoid s({header}, const int in[64], int out[64]) {{\n"
            f"  int buf[16];\n  for (int i = 0; i < 16; i++) buf[i] = in[i];\n"
            f"  {body}\n}}\n")
    params = arraypart.analyze(write(tmp_path, "s.c", text)).to_json()["params"]
    assert params["n"]["range"][0] == low


def test_a_signed_size_whose_accesses_change_at_ever_smaller_values_is_refused(tmp_path):
    """``for (i = n; i < 0; i++)`` over ``buf[i & 15]``: every access stays inside buf
    and each smaller n runs one more iteration, so no value stands for those below
    it: a located error that asks for its least value."""
    text = """void ev(int n, const int in[64], int out[16]) {
  int buf[16];
  for (int i = 0; i < 16; i++) buf[i] = in[i];
  for (int i = n; i < 0; i++) {
#pragma HLS pipeline II=1
    buf[i & 15] += buf[(i + 1) & 15];
  }
  for (int i = 0; i < 16; i++) out[i] = buf[i];
}
"""
    with pytest.raises(KernelError, match="'n' is signed and nothing bounds it below") as e:
        arraypart.analyze(write(tmp_path, "ev.c", text))
    assert (e.value.coord.line, e.value.coord.col) == (1, 13)
    unsigned = write(tmp_path, "ev_u.c", text.replace("int n", "unsigned n"))
    assert arraypart.analyze(unsigned).to_json()["params"]["n"]["range"][0] == 0


def test_two_signed_sizes_bound_each_other_below(tmp_path):
    """``for (i = start; i < n; i++)`` over ``buf[i + 8]`` and ``buf[n + 7]``: with
    start open, every n had some start that left buf (refused); held together at 0,
    start goes down to -8 (buf[-9 + 8] leaves buf), and with start there n = -7 runs
    (buf[0]), so n's least value is the -8 below which nothing runs, not the 0 it had
    while start was taken from 0 up."""
    text = """void two(int n, int start, const int in[64], int out[64]) {
  int buf[16];
  for (int i = 0; i < 16; i++) buf[i] = in[i];
  for (int i = start; i < n; i++) {
#pragma HLS pipeline II=1
    out[i + 8] = buf[i + 8] + buf[n + 7];
  }
}
"""
    report = arraypart.analyze(write(tmp_path, "two.c", text))
    params = report.to_json()["params"]
    assert params["n"]["range"] == [-8, 8] and params["start"]["range"][0] == -8
    result = check.check_kernel(report.kernel, report.solution.bankings(), ports=2)
    assert all(l.first_conflict is None for l in result.loops)


def test_a_size_whose_accesses_change_at_every_value_is_still_refused(tmp_path):
    """A guard that bounds s only below leaves a loop growing with s: nothing bounds
    it (the located error stays)."""
    text = """void grows(int s, const int in[64], int out[64]) {
  int buf[16];
  for (int i = 0; i < 16; i++) buf[i] = in[i];
  if (s >= 1) {
    for (int i = 0; i < s; i++) {
#pragma HLS pipeline II=1
      out[i & 63] = buf[i & 15];
    }
  }
}
"""
    with pytest.raises(KernelError, match="'s' bounds loops or indices but nothing") as e:
        arraypart.analyze(write(tmp_path, "grows.c", text))
    assert (e.value.coord.line, e.value.coord.col) == (1, 16)


@needs_gxx
def test_a_guarded_size_on_single_port_banks_is_proven_and_computes_the_same(tmp_path):
    """On ram_1p banks ``buf[s]`` and ``buf[i]`` need two ports per cycle: two copies
    (the bound, 2); as written, one memory reaches only II 2.  The testbench drives s
    at 16, -1 and 7 (past the guard on both sides and inside it), and the traced
    original agrees."""
    text = GUARDED_READ.format(storage=RAM_1P, guard="s >= 0 && s <= 15", orelse="")
    compiled = arraypart.compile_kernel(write(tmp_path, "guarded.c", text))
    report = compiled.report
    buf = array(report, "buf")
    assert buf.conflict_free and buf.banking.scheme.banks * buf.banking.copies == 2
    assert buf.lower_bound == 2
    assert driven_values(report.kernel, frozenset(), 3, 1).scalars == {"s": (16, -1, 7)}
    one = check.check_kernel(report.kernel, check.as_written_bankings(report.kernel),
                             ports=2)
    assert one.loops[1].achieved_ii == 2
    assert_the_testbench_passes(compiled, tmp_path)
    (tmp_path / "trace").mkdir()
    assert_the_trace_agrees(compiled, tmp_path / "trace", ports=2)


@pytest.mark.parametrize("binding, size", [("int &r = n; r = 40;", False),
                                           ("const int &r = n; (void)r;", True)])
def test_a_reference_that_may_write_a_scalar_keeps_it_from_being_a_size(
        binding, size, tmp_path):
    """``int &r = n; r = 40;`` before ``for (i < n)``: n was a run-time size, the
    argument unchanged, so the model ran the loop n (at most 6) times where C runs it 40
    (tc39's finding).  A reference it may be written through now keeps n from being a
    size, as ``&n`` did: the loop's bound is a fresh size.  A const reference writes
    nothing."""
    text = f"""void aliased(const int a[64], int out[64], int n) {{
  {binding}
  for (int i = 0; i < n; i++) {{
#pragma HLS LOOP_TRIPCOUNT max=6
#pragma HLS pipeline II=1
    out[i] = a[i] + a[i + 1];
  }}
}}
"""
    params = arraypart.analyze(write(tmp_path, "aliased.cpp", text)).to_json()["params"]
    assert ("n" in params) == size
    assert size or "n@3:23" in params
