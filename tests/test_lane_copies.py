"""Read copies per unrolled lane: one read reference inside a fully unrolled loop (the
watermark table of Vitis_Accel_Examples' apply_watermark.cpp, read 16 times per
pipelined iteration at data-dependent indices) spread over copies by its lane's
iterator, proved by isl, replayed by the checker and the trace, built by g++."""

from dataclasses import replace
from textwrap import dedent

import pytest

import arraypart
from arraypart import check
from arraypart import expr as E
from arraypart.banking.groups import ReadRef, _read_ref
from arraypart.banking.proof import prove
from arraypart.banking.space import copy_assignments
from arraypart.scheme import Banking

from conftest import array, assert_the_testbench_passes, assert_the_trace_agrees, needs_gxx
from conftest import run_testbench, write

LANES = 16
TABLE_INIT = "{" + ", ".join("{" + ", ".join(str((7 * r + 3 * c) % 23) for c in range(LANES))
                             + "}" for r in range(LANES)) + "}"
# An image row of 16 pixels per pipelined iteration; each pixel looks up the table at
# indices taken from its own value (irregular: any element).
KERNEL = """\
#define ROWS 8
#ifndef LANES
#define LANES 16
#endif
void lanes(const int in[ROWS][16], int out[ROWS][16]) {
  int table[16][16] = %s;
rows:
  for (int r = 0; r < ROWS; r++) {
#pragma HLS pipeline II=1
  pixel:
    for (int u = 0; u < LANES; u++) {
#pragma HLS unroll
      int key = in[r][u];
      out[r][u] = key + table[(key >> 4) & 15][key & 15];%s
    }
  }
}
""" % (TABLE_INIT, "%s")
WRITTEN = "\n      table[u][r] = key;"


def kernel(tmp_path, written=False):
    return write(tmp_path, "lanes.c", KERNEL % (WRITTEN if written else ""))


def test_a_reference_whose_lanes_share_an_iterator_is_spread_by_lane():
    ref = ReadRef(3, E.var("u"), 1, tuple(range(LANES)),
                  tuple((("u", v),) for v in range(LANES)))
    ways = copy_assignments((ref,), 8)
    u = E.var("u")
    assert ((3, E.mod(u, 8)),) in ways
    assert ((3, E.mod(E.floordiv(u, 2), 8)),) in ways
    assert copy_assignments((ReadRef(3),), 8) == []


def test_references_of_different_loops_are_spread_by_lane_over_fewer_copies():
    """Two loops read the table through one reference each, four lanes a cycle (probe
    35 F6): by reference each loop keeps to one copy, so the lanes must spread;
    as many references as copies no longer rules that out when no loop reads them
    all (3 copies were taken where 2 serve)."""
    lanes = tuple((("j'", v),) for v in range(4))
    refs = (ReadRef(1, E.var("j'"), 1, tuple(range(4)), lanes, frozenset({0})),
            ReadRef(2, E.var("j'"), 1, tuple(range(4)), lanes, frozenset({1})))
    spread = ((1, E.mod(E.var("j'"), 2)), (2, E.mod(E.var("j'"), 2)))
    assert spread in copy_assignments(refs, 2)
    together = tuple(replace(r, groups=frozenset({0})) for r in refs)
    assert spread not in copy_assignments(together, 2)


@pytest.fixture(scope="module", params=[2, 1], ids=["ram_t2p", "ram_1p"])
def compiled(request, tmp_path_factory):
    path = kernel(tmp_path_factory.mktemp("lanes"))
    return request.param, arraypart.compile_kernel(path, ports=request.param)


def test_lanes_read_their_own_copy_and_reach_ii_1(compiled):
    ports, result = compiled
    report = result.report
    table = array(report, "table")
    copies = LANES // (2 if ports == 2 else 1)
    assert (table.banking.scheme.banks, table.banking.copies) == (1, copies)
    assert table.lower_bound == copies and table.conflict_free
    assert table.achieved_ii == (("rows", 1),)
    assert all(not isinstance(e, E.Const) for _, e in table.banking.read_copy)
    assert "reads copy" in table.proof and f"mod {copies}" in table.proof
    assert f"% {copies}u" in result.files["lanes.cpp"]


def test_isl_proves_the_lane_rule_and_refutes_one_copy_for_all(compiled):
    """Reads in different copies never compete: the spread proves; every lane in copy
    0 (the same storage, one reference, one copy) is refuted with a colliding cycle."""
    _, result = compiled
    report = result.report
    spread = array(report, "table").banking
    am = report.model.array("table")
    assert prove(am, spread).conflict_free
    together = prove(am, Banking("table", spread.scheme, spread.copies))
    assert not together.conflict_free and "table[?][?]" in together.counterexample


def test_the_checker_replays_each_lane_in_its_copy(compiled):
    ports, result = compiled
    report = result.report
    checked = check.check_kernel(report.kernel, report.solution.bankings(), ports=ports)
    assert [(lp.achieved_ii, lp.first_conflict) for lp in checked.loops] == [(1, None)]
    spread = array(report, "table").banking
    one = {"table": Banking("table", spread.scheme, spread.copies)}
    (lp,) = check.check_kernel(report.kernel, {**report.solution.bankings(), **one},
                               ports=ports).loops
    assert lp.achieved_ii > 1 and lp.first_conflict.copy == 0


@needs_gxx
def test_emitted_kernel_and_trace_agree_with_the_original(compiled, tmp_path):
    ports, result = compiled
    run = run_testbench(result, tmp_path)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    judged = assert_the_trace_agrees(result, tmp_path, ports=ports)
    assert [loop.traced_ii for loop in judged.replay.loops] == [1]


@pytest.mark.parametrize("written, copies", [(False, 2), (True, 1)])
def test_a_table_written_in_the_lanes_gets_no_copies(tmp_path, written, copies):
    """Four lanes (cheap to prove): their reads take two copies of the read-only table,
    none once the lanes write it (every write would go to every copy).  Written, no
    banking reaches II 1 and the search for a better one runs to its time limit,
    which 2 s keeps short (the copies are ruled out before)."""
    report = arraypart.analyze(kernel(tmp_path, written), defines={"LANES": 4},
                               time_limit=2)
    assert array(report, "table").banking.copies == copies


# A 3x3 window whose nine lanes look a weight up at data-dependent indices (the range
# kernel of a bilateral filter): one read reference under two unrolled loops.
WINDOW = """\
void window(const int in[6][9], int out[6]) {
  static const int weight[16] = {16, 15, 13, 11, 9, 7, 5, 4, 3, 2, 2, 1, 1, 1, 1, 1};
rows:
  for (int r = 0; r < 6; r++) {
#pragma HLS pipeline II=1
    int sum = 0;
    for (int di = 0; di < 3; di++) {
      for (int dj = 0; dj < 3; dj++) {
        sum += weight[in[r][3 * di + dj] & 15];
      }
    }
    out[r] = sum;
  }
}
"""


def test_the_lanes_of_two_unrolled_loops_are_numbered_in_mixed_radix():
    """di in {0, 1, 2} and dj in {0, 2, 4} (gcd 2): lane number 3*di + floor(dj/2),
    distinct for the nine lanes, so five copies read by ``n mod 5`` hold at most two
    lanes each."""
    lanes = [(("di", di), ("dj", dj)) for di in range(3) for dj in (0, 2, 4)]
    (ref,) = [_read_ref(7, lanes)]
    assert ref.lane_index == E.add(E.scale(3, E.var("di")), E.floordiv(E.var("dj"), 2))
    assert ref.values == tuple(range(9))
    ways = copy_assignments((ref,), 5)
    assert ((7, E.mod(ref.lane_index, 5)),) in ways


def test_nine_window_lanes_read_their_own_copies_at_ii_1(tmp_path):
    """Under the scheduling rule a site whose bank is not a compile-time value takes a
    port of every bank, so banks cannot serve the nine irregular reads; copies picked
    by each lane's number can (five dual-port copies, two lanes each)."""
    compiled = arraypart.compile_kernel(write(tmp_path, "window.c", WINDOW))
    weight = array(compiled.report, "weight")
    assert (weight.banking.scheme.banks, weight.banking.copies) == (1, 5)
    assert [loop["achieved_ii"] for loop in compiled.report.to_json()["loops"]] == [1]


# A header table read through an inline function at eight data-dependent indices per
# cycle (face detection's bank and offset mappings): the header's declaration and the
# function's text stay, so its copies can only be a multi-port ROM.
TABLE_HEADER = "static int table[64] = {%s};\n" % ", ".join(str((7 * k) % 31)
                                                           for k in range(64))
LOOKUP = """\
#include "table.h"

static int look(int x) {
#pragma HLS inline
    return table[x & 63];
}

void lookup(const int in[32][8], int out[32][8]) {
    for (int r = 0; r < 32; r++) {
#pragma HLS pipeline II=1
        for (int u = 0; u < 8; u++) {
            out[r][u] = look(in[r][u]);%s
        }
    }
}
"""


@needs_gxx
def test_a_read_only_header_table_becomes_a_multi_port_rom(tmp_path):
    """Eight reads a cycle of a table nothing writes: four dual-port copies in the
    model, emitted as ``bind_storage type=rom_np`` (a port for every read) on the
    unchanged declaration; II 1 under the scheduling rule, the testbench and the
    trace (replayed against the ROM) agree."""
    (tmp_path / "table.h").write_text(TABLE_HEADER)
    compiled = arraypart.compile_kernel(write(tmp_path, "lookup.cpp", LOOKUP % ""))
    table = array(compiled.report, "table")
    assert table.multi_port_rom and table.banking.copies == 4 and table.conflict_free
    (entry,) = [a for a in compiled.report.to_json()["arrays"] if a["name"] == "table"]
    assert entry["multi_port_rom"] and entry["copies"] == 4
    text = compiled.files["lookup.cpp"]
    assert "#pragma HLS bind_storage variable=table type=rom_np" in text
    assert "static int table" not in text and "table[x & 63]" in text
    assert [loop["achieved_ii"] for loop in compiled.report.to_json()["loops"]] == [1]
    run = run_testbench(compiled, tmp_path)
    assert run.returncode == 0 and "PASS" in run.stdout, run.stdout + run.stderr
    assert_the_trace_agrees(compiled, tmp_path, ports=2)


IN_TIME_LOOKUP = """\
#include "table.h"

void lookup(const unsigned char idx[256], int out[256]) {%s
    for (int j = 0; j < 256; j++) {
#pragma HLS pipeline
#pragma HLS unroll factor=8
        out[j] = %s[idx[j] & 63];
    }
}
"""
LOCAL_TABLE = "\n    static const int local[64] = {%s};" % ", ".join(
    str((5 * k) % 29) for k in range(64))


@needs_gxx
@pytest.mark.parametrize("declared, name", [("", "table"), (LOCAL_TABLE, "local")],
                         ids=["header-table", "top-local-static-const"])
def test_lanes_unrolled_in_time_spread_over_a_multi_port_rom(tmp_path, declared, name):
    """``unroll factor=8`` on the pipelined loop itself (CSE237's DFT coefficient
    lookups): its eight lanes share one reference, which stays as written in the
    emitted loop, so only a multi-port ROM spreads them, a header's table or a local
    one alike; numbered by their lane ``j'`` they read four dual-port copies (II 4 on
    one memory before)."""
    (tmp_path / "table.h").write_text(TABLE_HEADER)
    compiled = arraypart.compile_kernel(write(tmp_path, "lookup.cpp",
                                              IN_TIME_LOOKUP % (declared, name)))
    table = array(compiled.report, name)
    assert table.multi_port_rom and table.banking.copies == 4 and table.conflict_free
    assert "j' is the lane's number in j's unroll factor" in table.banking.describe()
    text = compiled.files["lookup.cpp"]
    assert f"#pragma HLS bind_storage variable={name} type=rom_np" in text
    assert f"out[j] = {name}[idx[j] & 63];" in text
    assert [loop["achieved_ii"] for loop in compiled.report.to_json()["loops"]] == [1]
    assert_the_testbench_passes(compiled, tmp_path)
    assert_the_trace_agrees(compiled, tmp_path, ports=2)


def test_a_header_table_that_is_written_gets_no_rom(tmp_path):
    (tmp_path / "table.h").write_text(TABLE_HEADER)
    written = LOOKUP % "\n            table[u] = r;"
    report = arraypart.analyze(write(tmp_path, "lookup.cpp", written))
    table = array(report, "table")
    assert table.banking.copies == 1 and not table.multi_port_rom


@needs_gxx
def test_a_lane_term_that_is_not_affine_stays_in_the_copy_read(tmp_path):
    """``buf[i*i + (r & 1)]`` with i unrolled: the frontend evaluates i*i per lane, so
    the first lane's subscript (i = 0) is no subscript of the reference.  The emitted
    read used it and dropped the i*i term: every lane read buf[r & 1]."""
    compiled = arraypart.compile_kernel(write(tmp_path, "squares.c", dedent("""\
        void squares(int in[16], int out[8]) {
            int buf[16];
            for (int i = 0; i < 16; i++) buf[i] = in[i];
            for (int r = 0; r < 8; r++) {
        #pragma HLS pipeline II=1
                int s = 0;
                for (int i = 0; i < 4; i++)
                    s += buf[i * i + (r & 1)];
                out[r] = s;
            }
        }
        """)))
    assert array(compiled.report, "buf").banking.copies == 2
    assert "[(i * i + (r & 1))]" in compiled.files["squares.cpp"]
    assert_the_testbench_passes(compiled, tmp_path)


@needs_gxx
def test_a_member_written_in_a_replicated_struct_array_is_written_in_every_copy(
        tmp_path):
    """``c[i].re = v`` where c is stored as read copies: the store was emitted into
    copy 0 alone, so reads through the other copies saw stale members."""
    compiled = arraypart.compile_kernel(write(tmp_path, "members.c", dedent("""\
        typedef struct { short re; short im; } cpx;
        void members(short in[128], int out[64]) {
            cpx c[64];
            for (int i = 0; i < 64; i++) {
                c[i].re = in[2 * i];
                c[i].im = in[2 * i + 1];
            }
            for (int i = 0; i < 32; i++) {
        #pragma HLS pipeline II=1
                cpx a = c[2 * i], b = c[2 * i + 1];
                c[2 * i].re += b.re;
                c[2 * i + 1].im = a.im - b.im;
                out[i] = c[63 - i].re * c[i].im;
            }
            for (int i = 0; i < 32; i++) out[32 + i] = c[i].re + c[i + 32].im;
        }
        """)))
    c = array(compiled.report, "c")
    assert c.banking.copies > 1 and c.conflict_free
    stores = " = ".join(f"c_bank[{k}][0][2*i].re" for k in range(c.banking.copies))
    assert stores in " ".join(compiled.files["members.cpp"].split())
    assert_the_testbench_passes(compiled, tmp_path)
    assert_the_trace_agrees(compiled, tmp_path, ports=2)


SBOX_ROUNDS = """\
static const int T[256] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17};
void rounds(const unsigned char d[16][40], int out[16]) {
  for (int i = 0; i < 16; i++) {
#pragma HLS pipeline II=1
    int s = 0;
    for (int k = 0; k < 5; k++) {
      s ^= T[d[i][8 * k + 0]] ^ T[d[i][8 * k + 1]] ^ T[d[i][8 * k + 2]] ^ T[d[i][8 * k + 3]];
      s ^= T[d[i][8 * k + 4]] ^ T[d[i][8 * k + 5]] ^ T[d[i][8 * k + 6]] ^ T[d[i][8 * k + 7]];
    }
    out[i] = s;
  }
}
"""


def test_references_and_lanes_interleave_over_the_copies_of_a_rom(tmp_path):
    """Eight references in five unrolled lanes (an AES round's table lookups), 40
    reads a cycle on dual-port copies: by reference the 8 copies took five reads each
    (warned II 3, while the emitted ``rom_np`` loop was scheduled at II 1 and exit 1);
    interleaved, ``(8*k + r) mod 20`` gives each of 20 copies two reads, proven."""
    compiled = arraypart.compile_kernel(write(tmp_path, "rounds.c", SBOX_ROUNDS))
    table = array(compiled.report, "T")
    assert table.multi_port_rom and table.conflict_free and table.banking.copies == 20
    assert "(8*k + 1) mod 20" in table.proof
    assert not any("no banking of T" in w for w in compiled.report.warnings)


# A table read by references in lanes of different counts: one fixed read, two
# references in five lanes, one in three (14 reads a cycle).
UNEVEN_LANES = """\
static const int T[256] = {137,582,867,821,782,64,261,120,507,779,460,483,667,388,807,214,96,499,29,914,855,399,443,622,780,785,2,712,456,272,738,821,234,605,967,104,923,325,31,22,26,665,554,9,961,902,390,702,221,992,432,743,29,540,227,782,448,961,507,566,238,353,236,693,224,779,470,975,296,948,22,426,857,938,569,944,657,102,190,644,741,880,303,123,760,340,917,738,996,728,512,958,990,432,519,849,932,686,194,310,290,601,996,903,511,866,963,517,402,603,873,35,491,248,761,816,413,424,680,177,375,561,903,719,794,690,755,383,88,449,679,520,110,797,167,533,860,402,379,501,750,30,480,44,315,720,868,629,607,592,403,662,174,172,514,232,12,789,204,552,942,880,561,237,414,526,352,975,867,591,361,470,931,275,675,561,623,980,746,5,392,802,877,840,977,907,960,758,524,828,132,531,796,574,210,436,972,57,492,890,373,583,567,204,963,516,423,496,832,365,424,354,1,551,553,638,805,627,339,469,614,28,823,235,650,181,563,598,185,881,93,817,564,816,871,836,953,261,33,861,966,689,72,85,888,17,463,14,772,773,287,255,275,112,816,639};
void uneven(unsigned char in[64][8], int out[64]) {
  L: for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    int s = T[in[i][7]];
    for (int u = 0; u < 5; u++) {
      s += T[in[i][u]] ^ T[(in[i][u] + 1) & 255];
    }
    for (int v = 0; v < 3; v++) {
      s += T[(in[i][v] * 3) & 255];
    }
    out[i] = s;
  }
}
"""


@pytest.mark.parametrize("ports, copies", [(1, 14), (2, 7)])
def test_lanes_of_uneven_counts_pack_the_copies_of_a_rom(tmp_path, ports, copies):
    """Packed, each reference takes a run of copies as long as its lanes: 14 reads on
    14 one-port or 7 two-port copies, the lower bound.  No other way reached it: on
    one port 10 copies were warned at II 2 while the emitted rom_np loop was
    scheduled at II 1 (probe 24c, F5)."""
    compiled = arraypart.compile_kernel(write(tmp_path, "uneven.c", UNEVEN_LANES),
                                        ports=ports)
    table = array(compiled.report, "T")
    assert table.multi_port_rom and table.conflict_free and table.banking.copies == copies
    assert not any("no banking of T" in w for w in compiled.report.warnings)


DATAFLOW_ROM = """\
static const int ta[64] = {%s};
static void p1(const unsigned char idx[256], int out[256]) {
    for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
        for (int u = 0; u < 4; u++) {
#pragma HLS unroll
            out[4*i+u] = ta[idx[4*i+u] & 63];
        }
    }
}
static void p2(const unsigned char idx[256], int out[256]) {
    for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
        for (int u = 0; u < 4; u++) {
#pragma HLS unroll
            out[4*i+u] = ta[(idx[4*i+u] >> 1) & 63] + ta[(idx[4*i+u] >> 2) & 63];
        }
    }
}
void k(const unsigned char a[256], const unsigned char b[256], int out[256], int o2[256]) {%s
    p1(a, out);
    p2(b, o2);
}
""" % (", ".join(str((5 * k) % 29) for k in range(64)), "%s")


@needs_gxx
@pytest.mark.parametrize("region, copies, bram18k, concurrent", [
    ("\n#pragma HLS dataflow", 6, 12, 12), ("", 4, 8, 8)], ids=["dataflow", "sequential"])
def test_dataflow_processes_read_copies_of_their_own(tmp_path, region, copies, bram18k,
                                                     concurrent):
    """Two processes read a multi-port ROM 4 and 8 times a cycle.  Under ``dataflow``
    they run at once, so the ROM serves 12 reads a cycle: 2 + 4 dual-port copies,
    12 BRAM18K (the copies of the busiest loop, 4, were reported before: probe 35b
    F3).  Called one after the other, the loops share the busiest one's 4 copies.
    The II is 1 either way, the trace agrees."""
    compiled = arraypart.compile_kernel(write(tmp_path, "k.cpp", DATAFLOW_ROM % region))
    ta = array(compiled.report, "ta")
    assert ta.multi_port_rom and ta.conflict_free
    assert (ta.banking.copies, ta.bram18k, ta.lower_bound, ta.max_concurrent) == (
        copies, bram18k, copies, concurrent)
    (entry,) = [a for a in compiled.report.to_json()["arrays"] if a["name"] == "ta"]
    assert (entry["copies"], entry["bram18k"]) == (copies, bram18k)
    assert f"a multi-port ROM (rom_np), as {copies} copies of rom_2p" in compiled.files["k.cpp"]
    assert [loop["achieved_ii"] for loop in compiled.report.to_json()["loops"]] == [1, 1]
    assert_the_trace_agrees(compiled, tmp_path, ports=2)
