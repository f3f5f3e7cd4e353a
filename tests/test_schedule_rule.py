"""The HLS scheduling rule (DESIGN §2) on user pragmas and on arraypart's own output.

An access site takes one port of its bank only when the bank index is a compile-time
value in every iteration; otherwise it takes a port of every bank.  These tests check
that ``check --as-written`` reports what the scheduler really gets, that emitted code
read back from its text keeps the II that report.json states, and that stencils whose
banks rotate with the iteration get bank-centric code that keeps their II.
"""

from __future__ import annotations

import pytest

from arraypart import api, check, frontend
from arraypart.banking import prove
from arraypart.scheme import Banking, scheme_from_pragmas
from arraypart.cli import main

from conftest import assert_the_testbench_passes, needs_gxx

# A test that checks a kernel through the API and again on the command line (check
# --trace) analyses it once.
pytestmark = pytest.mark.usefixtures("analyses_shared")

BOX3 = """\
// a 3x3 box filter with the usual hand partitioning: cyclic 3 on both dimensions
#define H 32
#define W 32
void box3(float in[H][W], float out[H][W])
{
    float buf[H][W];
#pragma HLS bind_storage variable=buf type=ram_1p
#pragma HLS array_partition variable=buf type=cyclic factor=3 dim=1
#pragma HLS array_partition variable=buf type=cyclic factor=3 dim=2
    for (int i = 0; i < H; i++)
        for (int j = 0; j < W; j++) {
#pragma HLS pipeline II=1
            buf[i][j] = in[i][j];
        }
    for (int i = 0; i < H - 2; i++)
        for (int j = 0; j < W - 2; j++) {
#pragma HLS pipeline II=1
            float s = 0;
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++)
                    s += buf[i + a][j + b];
            out[i][j] = s;
        }
}
"""

def _box3(tmp_path):
    path = tmp_path / "box3.c"
    path.write_text(BOX3)
    return path


def test_as_written_cyclic_partition_is_serialized_by_the_scheduler(tmp_path):
    kernel = frontend.parse_kernel(_box3(tmp_path))
    bankings = check.as_written_bankings(kernel)
    ideal = check.check_kernel(kernel, bankings, ports=2)
    assert [lp.achieved_ii for lp in ideal.loops] == [1, 1]  # conflict-free on paper
    ruled = check.check_kernel(kernel, bankings, ports=2, rule=True)
    fill, window = ruled.loops
    assert fill.achieved_ii == 1  # one write: a port of every bank is still enough
    assert window.achieved_ii == 9
    (site,) = window.dynamic_sites
    assert (site.array, site.kind, site.lanes) == ("buf", "read", 9)
    assert (site.coord.line, site.coord.col) == (21, 26)


def test_check_as_written_names_the_sites_and_arraypart_keeps_ii_1(tmp_path, capsys):
    path = _box3(tmp_path)
    code = main(["check", str(path), "--as-written"])
    out = capsys.readouterr().out
    assert code == 1
    assert "achieved II 9" in out and "box3.c:21:26: read of buf" in out
    assert main(["check", str(path), "--replace-partitions"]) == 0
    out = capsys.readouterr().out
    assert "achieved II 9" not in out and "CONFLICT" not in out
    report = api.analyze(path, replace_partitions=True)
    assert [report.loop_achieved_ii(n, lp.name, lp.target_ii)
            for n, lp in enumerate(report.model.loops)] == [1, 1]


def test_registers_take_no_ports(tmp_path):
    text = BOX3.replace("type=cyclic factor=3 dim=1", "type=complete dim=0")
    text = text.replace("#pragma HLS array_partition variable=buf type=cyclic factor=3 "
                        "dim=2\n", "").replace("H 32", "H 4").replace("W 32", "W 4")
    path = tmp_path / "box3.c"
    path.write_text(text)
    kernel = frontend.parse_kernel(path)
    result = check.check_kernel(kernel, check.as_written_bankings(kernel), rule=True)
    assert all(lp.achieved_ii == 1 for lp in result.loops)


# An FIR filter on an interface array whose taps are a macro's arguments: the search
# prices a phase switch for a's rotating banks, but a reference written as a macro's
# argument keeps its text (codegen/phases.py), so the emitted code gets none.  (A
# window loop from -4 served here until the search learnt that a negative iterator
# gets no switch either: it no longer prices one there.)
SLIDING = """\
#define TAP(k) a[i + (k)] * c[k]
void sliding(const int a[72], const int c[8], int out[64]) {
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    int s = 0;
    for (int j = 0; j < 8; j++) {
#pragma HLS unroll
      s += TAP(j);
    }
    out[i] = s;
  }
}
"""


def test_banks_that_lower_no_ii_under_the_rule_give_way_to_one_memory(tmp_path):
    """a is an interface array: its references stay as written, so each of the 8
    sliding reads rotates over any banks and takes a port of each.  With at most 2
    banks the search proves no banking at II 1; its best, cyclic 2, leaves L3 at II 4
    under the rule, as one memory does (8 reads, 2 ports): the array keeps one memory,
    with a note, and the emitted code is checked again at II 4."""
    path = tmp_path / "sliding.c"
    path.write_text(SLIDING)
    report = api.analyze(path, max_banks=2)
    a = next(s for s in report.solution.arrays if s.array.name == "a")
    assert a.banking.scheme.kind == "none"
    assert [loop.achieved_ii for loop in report.scheduled.loops] == [4]
    assert any("a keeps one memory: per_dim cyclic 2" in w
               and "would not lower the II of L3 under the scheduling rule" in w
               for w in report.warnings)
    first = api.banking.solve(report.model, max_banks=2)
    assert next(s for s in first.arrays if s.array.name == "a").banking.scheme.banks == 2


def test_banks_proven_in_the_ideal_model_give_way_too(tmp_path):
    """Within the default budget cyclic 4 is proven at II 1 in the ideal port model,
    but the emitted code keeps a's references as written, so L3 reaches II 4 with it
    as with one memory: a keeps one memory (issue 12: no array gets banks that leave
    its II unchanged)."""
    path = tmp_path / "sliding.c"
    path.write_text(SLIDING)
    report = api.analyze(path)
    first = api.banking.solve(report.model)
    proven = next(s for s in first.arrays if s.array.name == "a")
    assert proven.conflict_free and proven.banking.scheme.banks == 4
    a = next(s for s in report.solution.arrays if s.array.name == "a")
    assert a.banking.scheme.kind == "none" and not a.conflict_free
    assert [loop.achieved_ii for loop in report.scheduled.loops] == [4]


def test_banks_that_lower_a_missed_ii_are_kept(tmp_path):
    """With at most 2 banks, 8 reads a cycle of a local buffer miss II 1 either way,
    but cyclic 2 gives each read one bank (II 2) where one memory gives II 4: the
    banks stay."""
    path = tmp_path / "rows.c"
    path.write_text("""\
void rows(const int in[64], int out[8]) {
  int buf[64];
  for (int i = 0; i < 64; i++) buf[i] = in[i];
  for (int i = 0; i < 8; i++) {
#pragma HLS pipeline II=1
    int s = 0;
    for (int j = 0; j < 8; j++) {
#pragma HLS unroll
      s += buf[8 * i + j];
    }
    out[i] = s;
  }
}
""")
    report = api.analyze(path, max_banks=2)
    buf = next(s for s in report.solution.arrays if s.array.name == "buf")
    assert buf.banking.scheme.banks == 2
    assert max(loop.achieved_ii for loop in report.scheduled.loops) == 2
    assert not any("keeps one memory" in w for w in report.warnings)


TILE = """\
#define N 32
#define U 4
void tile(float a[N][N], float b[N][N], float out[N][N]) {
  float c[N][N];
  for (int i = 0; i < N; i += U) for (int j = 0; j < N; j += U) {
    for (int k = 0; k < N; k++) {
#pragma HLS pipeline II=1
      for (int ii = 0; ii < U; ii++) for (int jj = 0; jj < U; jj++)
        c[i + ii][j + jj] += a[i + ii][k] * b[k][j + jj];
    }
  }
  for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) {
#pragma HLS pipeline II=1
    out[i][j] = c[i][j]; }
}
"""


def test_a_tile_origin_stepping_by_the_factor_gives_each_lane_a_constant_bank(tmp_path):
    """i and j step by 4, so under cyclic 4 the bank of c[i + ii][j + jj] is (ii, jj):
    the emission keeps the reference as written (a per_dim pragma) and the tile's
    sixteen read-modify-writes reach II 1 under the rule."""
    from arraypart.codegen import ranges
    from arraypart import expr as E
    i, ii = E.var("i"), E.var("ii")
    bank = E.mod(E.add(i, ii), 4)
    assert ranges.reduce(bank, {"i": (0, 28), "ii": (0, 3)}, {"i": (E.const(0), 4)}) == ii
    assert ranges.reduce(bank, {"i": (0, 28), "ii": (0, 3)}, {"i": (E.const(0), 2)}) == bank
    path = tmp_path / "tile.c"
    path.write_text(TILE)
    compiled = api.compile_kernel(path)
    c = next(a for a in compiled.report.solution.arrays if a.array.name == "c")
    assert c.banking.scheme.describe().startswith("per_dim cyclic 4 x cyclic 4")
    assert "c_bank" not in compiled.files["tile.cpp"]
    assert [lp["achieved_ii"] for lp in compiled.report.to_json()["loops"]] == [1, 1]


def test_bank_centric_sites_are_measured_over_the_iterators_of_the_subscripts(tmp_path):
    """The outer t (a thousand values) is in no subscript: the banks' sites are counted
    over i alone, one read and one write per bank, so the rotating read-modify-write
    keeps II 1 (a count over t x i was too large to make, and two sites of each kind
    per dual-port bank gave II 2)."""
    path = tmp_path / "rmw.c"
    path.write_text("""\
void rmw(const int in[1024], int out[1024]) {
  int a[1024];
  for (int i = 0; i < 1024; i++) {
#pragma HLS pipeline II=1
    a[i] = in[i];
  }
  for (int t = 0; t < 1000; t++) {
    for (int i = 0; i < 1020; i++) {
#pragma HLS pipeline II=1
      for (int u = 0; u < 4; u++) {
        a[i + u] = a[i + u] + t;
      }
    }
  }
  for (int i = 0; i < 1024; i++) {
#pragma HLS pipeline II=1
    out[i] = a[i];
  }
}
""")
    compiled = api.compile_kernel(path)
    assert "a_bank" in compiled.files["rmw.cpp"]
    assert [lp["achieved_ii"] for lp in compiled.report.to_json()["loops"]] == [1, 1, 1]


WRAPPED_WRITES = """
void wrapped(const int in[64], int out[64]) {
    int buf[64];
#pragma HLS bind_storage variable=buf type=ram_s2p
    for (int i = 0; i < 16; i++) {
#pragma HLS pipeline II=1
        for (int u = 0; u < 4; u++) {
#pragma HLS unroll
            buf[(4 * i + u + 1) % 64] = in[4 * i + u];
        }
    }
    for (int i = 0; i < 64; i++) out[i] = buf[i];
}
"""


def test_a_bank_of_a_wrapped_subscript_is_a_constant(tmp_path):
    """((4i + u + 1) mod 64) mod 4 = (u + 1) mod 4, a constant in each lane under
    cyclic 4: the references stay as written, with no routing logic, at II 1.  The
    nested mod was taken for a rotating bank and the writes were routed."""
    from arraypart.codegen import ranges
    from arraypart import expr as E
    i, u = E.var("i"), E.var("u")
    wrapped = E.mod(E.add(E.scale(4, i), u, E.const(1)), 64)
    assert ranges.reduce(E.mod(wrapped, 4), {"i": (0, 15), "u": (0, 3)}) == E.mod(
        E.add(u, E.const(1)), 4)
    assert ranges.reduce(E.mod(wrapped, 48), {"i": (0, 15), "u": (0, 3)}) == E.mod(wrapped, 48)
    path = tmp_path / "wrapped.c"
    path.write_text(WRAPPED_WRITES)
    compiled = api.compile_kernel(path)
    assert "routed" not in compiled.files["wrapped.cpp"]
    assert "#pragma HLS array_partition variable=buf type=cyclic factor=4" in \
        compiled.files["wrapped.cpp"]
    assert [loop.achieved_ii for loop in compiled.report.scheduled.loops] == [1, 1]


STRUCT_MEMBERS = """
#define N 16
#define M 4
struct S { int a; int b; };
void members(const int in[N][M], int out[N]) {
  S buf[N][M];
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) {
#pragma HLS pipeline II=1
      buf[i][j].a = in[i][j];
      buf[i][j].b = in[i][j] >> 2;
    }
  for (int i = 1; i < 13; i += 2) {
#pragma HLS pipeline II=1
    for (int u = 0; u < 2; u++) {
      int x = i + u;
      out[x] = buf[(x + 5) % N][x % M].b + buf[x][x % M].b + buf[x >> 1][1].a
               + buf[(x + 3) % N][1].a;
    }
  }
}
"""


@needs_gxx
def test_a_struct_array_counted_per_member_is_not_routed_as_whole_elements(tmp_path):
    """Each member of ``buf`` is a memory of its own, banked and counted apart: a bank
    served two ``.a`` and two ``.b`` reads of different elements in one cycle.  The
    bank-centric code routed whole elements through two sites per bank, so a third
    element's rank indexed past the site registers (ASan: stack-buffer-overflow) and
    the outputs differed.  Such loops keep their references; the emitted code's own
    schedule then decides the banking."""
    path = tmp_path / "members.cpp"
    path.write_text(STRUCT_MEMBERS)
    compiled = api.compile_kernel(path)
    assert_the_testbench_passes(compiled, tmp_path)
    assert "buf_q" not in compiled.files["members.cpp"]
    assert [lp["achieved_ii"] for lp in compiled.report.to_json()["loops"]] == [1, 1]


GUARDED_LANES = """
#define N 64
void guarded(const int in[N], const int sel[N], int out[N]) {
  int buf[N];
  int acc[N];
  for (int i = 0; i < N; i++) {
#pragma HLS pipeline II=1
    buf[i] = in[i];
    acc[i] = 0;
  }
  for (int i = 0; i < N; i += 4) {
#pragma HLS pipeline II=1
    for (int k = 0; k < 4; k++) {
      int a = buf[(i + k + 3) % N];
      if (sel[i + k] > 0)
        acc[(i + k + 1) % N] = a + buf[i + k];
      else
        acc[(i + k + 2) % N] = a - buf[(i + 63 - k) % N];
    }
  }
  for (int i = 0; i < N; i++) {
#pragma HLS pipeline II=1
    out[i] = acc[i];
  }
}
"""


@needs_gxx
def test_lanes_under_a_data_dependent_if_are_banked_for_the_references_kept(tmp_path):
    """The reads of ``buf`` under a data-dependent ``if`` keep their references (the
    emission routes lanes under affine guards only), and their subscripts wrap
    (``% N``), so the group is sampled, not uniform.  The search knew neither: it
    chose ``cyclic 8``, whose banks change with ``i``, and the emitted loop ran at
    II 6, even after the retry that prices such lanes (samples never did).  The
    user's own ``complete`` drew the advice that 8 banks suffice; the advice it draws
    now (read copies, each lane on its own) keeps II 1."""
    path = tmp_path / "guarded.c"
    path.write_text(GUARDED_LANES)
    compiled = api.compile_kernel(path)
    assert [lp["achieved_ii"] for lp in compiled.report.to_json()["loops"]] == [1, 1, 1]
    assert_the_testbench_passes(compiled, tmp_path)
    path.write_text(GUARDED_LANES.replace(
        "int buf[N];", "int buf[N];\n#pragma HLS array_partition variable=buf complete"))
    report, _, _ = api.check_kernel(path, as_written=True)
    assert not any("suffice" in w and "cyclic" in w for w in report.warnings)
    advised = api.compile_kernel(path, replace_partitions=True)
    assert [lp["achieved_ii"] for lp in advised.report.to_json()["loops"]] == [1, 1, 1]


ONE_ELEMENT_THRICE = """
#define N 16
void thrice(const int A[N][N], const int B[N][N], int out[N][N]) {
  volatile int C[N][N];
#pragma HLS array_partition variable=C dim=2 complete
  for (int i = 0; i < N; i++) {
#pragma HLS pipeline II=1
    for (int j = 0; j < N; j++) {
      C[i][j] = 0;
      for (int k = 0; k < 4; k++) C[i][j] = C[i][j] + A[i][k] * B[k][j];
    }
  }
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
#pragma HLS pipeline II=1
      out[i][j] = C[i][j];
    }
}
"""


def test_pragmas_no_banking_improves_get_no_banking_advised(tmp_path):
    """``C[i][j]`` is written five times and read four times in one iteration, each
    access made (C is volatile: no store forwarding): no banking separates accesses of
    one element.  The note advised a flat N=48 over a
    dimension of 16, which conflicted as much; the floor now says that memory banks
    cannot reach II 1 (the writes of the unrolled ``k`` lanes count together) and no
    banking is advised."""
    path = tmp_path / "thrice.c"
    path.write_text(ONE_ELEMENT_THRICE)
    report, _, _ = api.check_kernel(path, as_written=True)
    notes = [w for w in report.warnings if " C " in w or "of C" in w]
    assert any("written 5 times in one iteration" in w
               and "II 1 is impossible for memory banks" in w for w in notes), notes
    assert not any("flat" in w or "--replace-partitions" in w for w in notes), notes


SWITCHED_OFF = """
#define N 32
void switched(const int in[N], int out[N]) {
  int buf[N];
#pragma HLS array_partition variable=buf type=cyclic factor=2 dim=1
#pragma HLS array_partition variable=buf type=complete dim=1 OFF
  for (int i = 0; i < N; i++) {
#pragma HLS pipeline II=1
    buf[i] = in[i];
  }
  for (int i = 0; i < N - 3; i++) {
#pragma HLS pipeline II=1
    out[i] = buf[i] + buf[i + 1] + buf[i + 2] + buf[i + 3];
  }
}
"""


@pytest.mark.parametrize("off", ["off=true", "off"])
def test_a_partition_switched_off_leaves_one_memory(tmp_path, off):
    """``off=true`` (or the bare flag) switches the dimension's partition off, the
    earlier ``cyclic 2`` with it: one memory, four reads, II 2.  It was read as the
    partition it switches off (``complete``), and the check said II 1."""
    path = tmp_path / "switched.c"
    path.write_text(SWITCHED_OFF.replace("OFF", off))
    kernel = frontend.parse_kernel(path)
    ruled = check.check_kernel(kernel, check.as_written_bankings(kernel), ports=2, rule=True)
    assert [lp.achieved_ii for lp in ruled.loops] == [1, 2]
    # compile's banking is the pragmas' (one memory), so they stay as written, and
    # Vitis's automatic partitioning stays off there (the switch was dropped once)
    emitted = api.compile_kernel(path).files["switched.cpp"]
    assert ("#pragma HLS array_partition variable=buf type=cyclic factor=2 dim=1\n"
            f"#pragma HLS array_partition variable=buf type=complete dim=1 {off}\n"
            in emitted)


DATA_CHOSEN_ROW = """
void rows(int in[4][203], int sel[24], int out[24]) {
  int a[4][203];
#pragma HLS bind_storage variable=a type=ram_1p
  for (int r = 0; r < 4; r++)
    for (int i = 0; i < 203; i++) a[r][i] = in[r][i];
  for (int i = 0; i < 24; i++) {
#pragma HLS pipeline II=1
    int r = sel[i] & 3;
    int v = a[r][8*i + 2] + a[r][8*i + 3] + a[r][8*i + 1];
    a[r][8*i + 2] = v;
    out[i] = v;
  }
}
"""


def test_a_missed_target_keeps_the_least_ii_a_banking_reaches(tmp_path):
    """No banking of ``a`` reaches II 1 (one element read and written on ram_1p), and
    the search, which knows only missed or met for a group with a data-chosen row,
    kept one memory at II 4 where two banks reach II 2 (the user's cyclic 4 did, so
    --replace-partitions made the II worse).  Targets raised one step at a time find
    it."""
    path = tmp_path / "rows.c"
    path.write_text(DATA_CHOSEN_ROW)
    report = api.analyze(path)
    assert [lp["achieved_ii"] for lp in report.to_json()["loops"]] == [1, 2]


WINDOW17 = """\
#define N 64
#define T 17
void win17(const int a[N + T], int out[N]) {
#pragma HLS resource variable=a core=RAM_1P_BRAM
  for (int i = 0; i < N; i++) {
#pragma HLS pipeline II=1
    int s = 0;
    for (int t = 0; t < T; t++) s += a[i + t];
    out[i] = s;
  }
}
"""


@needs_gxx
def test_a_target_met_on_paper_only_is_raised_under_the_rule(tmp_path):
    """17 reads a cycle of an interface array on ram_1p: cyclic 17 serves them on
    paper, but its banks rotate with i with period 17, more phases than the emission
    writes, so the references kept as written take a port of every bank (II 17, and
    one memory was kept).  The search now knows the II the rule leaves and raises
    the target: cyclic 9 rotates with period 9, and its phase switch gives each read
    a constant bank, two reads per bank at II 2."""
    path = tmp_path / "win17.c"
    path.write_text(WINDOW17)
    compiled = api.compile_kernel(path)
    a = next(s for s in compiled.report.solution.arrays if s.array.name == "a")
    assert a.banking.scheme.describe().startswith("per_dim cyclic 9")
    assert [lp["achieved_ii"] for lp in compiled.report.to_json()["loops"]] == [2]
    assert "switch (i % 9)" in compiled.files["win17.cpp"]
    assert_the_testbench_passes(compiled, tmp_path)


MIRRORED = """\
void mirrored(int a[64], int b[64], int n) {
#pragma HLS resource variable=a core=RAM_1P_BRAM
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    if (i < n) b[i] = a[i] + a[63 - i];
  }
}
"""


@needs_gxx
def test_banks_a_phase_switch_fixes_come_before_banks_that_rotate(tmp_path):
    """a[i] and a[63 - i] under a data-dependent guard, on ram_1p: block 2 and cyclic
    2 both serve them on paper and both rotate with i, but cyclic 2 only with period
    2, which a phase switch makes constant.  The search took block 2, which the rule
    leaves at II 2 (so one memory was kept); counting the lanes a phase switch fixes
    apart from those that rotate, it takes cyclic 2 at II 1."""
    path = tmp_path / "mirrored.c"
    path.write_text(MIRRORED)
    compiled = api.compile_kernel(path)
    a = next(s for s in compiled.report.solution.arrays if s.array.name == "a")
    assert a.banking.scheme.describe().startswith("per_dim cyclic 2")
    assert [lp["achieved_ii"] for lp in compiled.report.to_json()["loops"]] == [1]
    assert_the_testbench_passes(compiled, tmp_path)


ROTATING_CALLEE = """\
static int tap(int h[32], int x, int i) {
    int r = h[i] + h[i + 16];
    h[i] = x;
    h[i + 3] += 1;
    return r;
}
void rot(int in[64], int out[64]) {
    int hist[32];
    for (int i = 0; i < 32; i++) hist[i] = 0;
    for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
        out[i] = tap(hist, in[i], i % 16);
    }
}
"""


@needs_gxx
def test_a_callees_rotating_array_of_32_becomes_registers(tmp_path):
    """tap's text is shared, so hist's references stay as written and its banks
    rotate with i % 16: any memory banks leave the loop at II 3 (three reads and two
    writes, every one on every bank).  32 registers take no port: II 1, as the hand
    partition `complete` gets (registers were tried up to 16 elements)."""
    path = tmp_path / "rot.cpp"
    path.write_text(ROTATING_CALLEE)
    compiled = api.compile_kernel(path)
    hist = next(s for s in compiled.report.solution.arrays if s.array.name == "hist")
    assert hist.banking.scheme.registers
    assert [lp["achieved_ii"] for lp in compiled.report.to_json()["loops"]] == [1, 1]
    assert_the_testbench_passes(compiled, tmp_path)


SKIPPING = """\
void skipping(int a[16], int b[16], int n) {
#pragma HLS resource variable=a core=RAM_1P_BRAM
  for (int i = 0; i < 16; i++) {
#pragma HLS pipeline II=1
    if (i >= n) continue; else b[i] = a[i] + a[15 - i];
  }
}
"""


def test_a_small_array_gets_registers_rather_than_a_phase_switch(tmp_path):
    """cyclic 2 serves a[i] and a[15 - i] with a phase switch of period 2, which the
    emission cannot write around a ``continue``: ranked first, it left one memory at
    II 2.  Registers, which need no switch, come before it for an array of 16."""
    path = tmp_path / "skipping.c"
    path.write_text(SKIPPING)
    report = api.analyze(path)
    a = next(s for s in report.solution.arrays if s.array.name == "a")
    assert a.banking.scheme.registers
    assert [lp["achieved_ii"] for lp in report.to_json()["loops"]] == [1]


RUN_TIME_OFFSET = """
void offset(int S[64], const int v[16], int sy) {
#pragma HLS array_partition variable=S type=cyclic factor=2
    for (int i = 0; i < 4; i++) {
#pragma HLS pipeline II=1
        for (int j = 0; j < 4; j++) {
            S[sy + 4 * i + j] = v[4 * i + j];
        }
    }
}
"""


@pytest.mark.parametrize("pragma", [True, False])
def test_a_bank_that_moves_with_a_run_time_size_is_no_compile_time_value(tmp_path, pragma):
    """``S[sy + 4*i + j]`` under cyclic 2: each lane's bank, ``(sy + j) mod 2``, is one
    value in a run, but not at compile time, so each of the four sites takes a port of
    both banks (II 2).  The model took it for phase-switched (the emission switches
    over iterators only) and the checker for static, both claiming II 1 (probe 26,
    item 1)."""
    path = tmp_path / "offset.c"
    path.write_text(RUN_TIME_OFFSET if pragma else RUN_TIME_OFFSET.replace(
        "#pragma HLS array_partition variable=S type=cyclic factor=2\n", ""))
    report, _, checked = api.check_kernel(path, as_written=pragma)
    assert [loop.achieved_ii for loop in checked.loops] == [2]
    assert [lp["achieved_ii"] for lp in report.to_json()["loops"]] == [2]


LANE_OWN_BANKS = """
void lanes(int in[64], int sel[64], int out[64]) {
  int buf[2][2][64];
#pragma HLS array_partition variable=buf complete dim=1
#pragma HLS array_partition variable=buf complete dim=2
#pragma HLS bind_storage variable=buf type=ram_1p
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    int b = sel[i] & 1;
    for (int v = 0; v < 2; v++) {
#pragma HLS unroll
      buf[V][b][i] = in[i] + v;
    }
  }
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    out[i] = buf[0][0][i] + buf[1][1][i];
  }
}
"""


@pytest.mark.parametrize("lane, ii", [("v", 1), ("0", 2)], ids=["own-banks", "shared"])
def test_a_rotating_site_takes_ports_only_of_the_banks_its_constant_digits_allow(
        tmp_path, capsys, lane, ii):
    """``buf[v][b][i]``, v unrolled, b from the data, under complete x complete: each
    lane reaches the two banks of its v alone, as Vitis selects among the sub-arrays
    of a constant first index; the rule gave each a port of all four banks and judged
    the user's pragmas II 2 (probe 28, F4: FINN's MMV window generator).  Both lanes
    on buf[0][b][i] share their two banks (II 2 on ram_1p): the control."""
    path = tmp_path / "lanes.c"
    path.write_text(LANE_OWN_BANKS.replace("buf[V]", f"buf[{lane}]"))
    report, _, checked = api.check_kernel(path, as_written=True)
    assert [loop.achieved_ii for loop in checked.loops] == [ii, 1]
    # the proof of the user's pragmas reads the lanes so too: the irregular b leaves
    # each write in the banks of its v (it took every dimension as irregular, and
    # called the pragmas conflicting: "hit bank ? together")
    model = report.model.array("buf")
    kept = prove(model, Banking("buf", scheme_from_pragmas(model.array)))
    assert kept.conflict_free == (ii == 1)
    assert not any("pragmas of buf" in w and "conflict" in w and ii == 1
                   for w in report.warnings)
    # the recorded run, replayed under the rule, counts the sub-arrays alike
    main(["check", "--trace", "--as-written", str(path)])
    out, err = capsys.readouterr()
    assert "traced II" in out and "DISAGREES" not in out and "disagrees" not in err


GEOMETRIC_COPIES = """
void copies(int in[64], int sel[64], int out[64]) {
  int buf[8][2][64];
#pragma HLS array_partition variable=buf complete dim=1
#pragma HLS array_partition variable=buf complete dim=2
#pragma HLS bind_storage variable=buf type=ram_1p
  for (int m = 1; m < 8; m += m) {
    for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
      int b = sel[i] & 1;
      buf[m][b][i] = in[i];
      buf[m - 1][b][i] = in[i] + 1;
    }
  }
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    out[i] = buf[0][0][i] + buf[1][1][i];
  }
}
"""


def test_a_constant_of_a_geometric_loops_copy_selects_no_sub_array(tmp_path):
    """``buf[m][b][i]`` in a loop ``m += m`` that the HLS tool does not unroll: m is
    a constant in each of arraypart's copies, but a run-time value to the scheduler,
    so each write takes a port of all 16 banks (II 2 on ram_1p; the first version of
    the sub-array rule claimed II 1, probe 28b)."""
    path = tmp_path / "copies.c"
    path.write_text(GEOMETRIC_COPIES)
    _, _, checked = api.check_kernel(path, as_written=True)
    assert [loop.achieved_ii for loop in checked.loops] == [2, 2, 2, 1]


STATIC_IN_EACH_COPY = """
void each(int in[64], int out[64]) {
  int buf[8][64];
#pragma HLS array_partition variable=buf complete dim=1
#pragma HLS bind_storage variable=buf type=ram_1p
  for (int m = 1; m < 8; m += m) {
    for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
      buf[m][i] = in[i];
      buf[m - 1][i] = in[i] + 1;
    }
  }
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    out[i] = buf[0][i] + buf[1][i];
  }
}
"""


def test_a_bank_constant_in_each_geometric_copy_but_not_in_all_moves(tmp_path, capsys):
    """``buf[m][i]`` and ``buf[m - 1][i]`` under ``m += m``: each copy writes two
    fixed banks, but the HLS tool has one loop body in which m is a run-time value:
    both writes take a port of all 8 banks, II 2 on ram_1p.  The checker, the solver
    and the replay of the recorded run all claimed II 1 (probe 28b, f2.c)."""
    path = tmp_path / "each.c"
    path.write_text(STATIC_IN_EACH_COPY)
    _, _, checked = api.check_kernel(path, as_written=True)
    assert [loop.achieved_ii for loop in checked.loops] == [2, 2, 2, 1]
    main(["check", "--trace", "--as-written", str(path)])
    out, err = capsys.readouterr()
    assert out.count("traced II 2: agrees") == 3 and "disagrees" not in err
    assert "pragmas of buf" in err and "L7 at II 2" in err
    # the cheaper banking keeps the text as written too (one text for three copies)
    compiled = api.compile_kernel(path, replace_partitions=True)
    assert [loop.achieved_ii for loop in compiled.report.scheduled.loops][:3] == [2, 2, 2]


# one function text that writes rows v and v + 1 of its array
WR = """
static void wr(int buf[4][64], const int in[64], int v) {
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    buf[v][i] = in[i];
    buf[v + 1][i] = in[i] + 1;
  }
}
"""

CALLS = WR + """void calls(int in[64], int out[64]) {
  int buf[4][64];
#pragma HLS array_partition variable=buf TYPE dim=1
#pragma HLS bind_storage variable=buf type=ram_1p
  wr(buf, in, 0);
  wr(buf, in, SECOND);
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    out[i] = buf[0][i] + buf[3][i];
  }
}
"""


@pytest.mark.parametrize("partition, second, ii", [
    ("complete", 2, 2), ("cyclic factor=2", 2, 2), ("complete", 0, 1)],
    ids=["moves", "same-banks", "same-subscript"])
def test_a_function_loop_is_one_site_in_every_call(tmp_path, capsys, partition, second,
                                                   ii):
    """``wr(buf, in, 0); wr(buf, in, 2)`` with ``buf[v]`` and ``buf[v + 1]``: under
    complete dim=1 the calls write banks 0, 1 and 2, 3, so v's bank is a run-time
    value in the one text of wr (II 2 on ram_1p).  Under cyclic 2 both calls write
    banks 0 and 1, but through ``v % 2``, a run-time value in that text too (the
    first version called it II 1, probe 29b item 2).  Called twice with 0, the text's
    v is the constant both calls give: II 1 (the control)."""
    path = tmp_path / "calls.c"
    path.write_text(CALLS.replace("TYPE", partition).replace("SECOND", str(second)))
    _, _, checked = api.check_kernel(path, as_written=True)
    assert [loop.achieved_ii for loop in checked.loops] == [ii, ii, 1]
    main(["check", "--trace", "--as-written", str(path)])
    out, err = capsys.readouterr()
    assert out.count(f"traced II {ii}: agrees") >= 2 and "disagrees" not in err


INLINED_CALLS = """
#ifdef TEMPLATE
template <int v>
static void wr(int buf[4][64], const int in[64]) {
#else
static void wr(int buf[4][64], const int in[64], int v) {
#endif
  PRAGMA
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    buf[v][i] = in[i];
    buf[v + 1][i] = in[i] + 1;
  }
}
void calls(int in[64], int out[64]) {
  int buf[4][64];
#pragma HLS array_partition variable=buf complete dim=1
#pragma HLS bind_storage variable=buf type=ram_1p
#ifdef TEMPLATE
  wr<0>(buf, in);
  wr<2>(buf, in);
#else
  wr(buf, in, 0);
  wr(buf, in, 2);
#endif
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    out[i] = buf[0][i] + buf[3][i];
  }
}
"""


@pytest.mark.parametrize("head, pragma", [
    ("", "#pragma HLS inline"), ("", "#pragma HLS function_instantiate variable=v"),
    ("#define TEMPLATE\n", "")], ids=["inline", "function_instantiate", "template"])
def test_a_call_the_tool_copies_is_a_text_of_its_own(tmp_path, capsys, head, pragma):
    """A function inlined by pragma or instantiated per call, and each instantiation
    of a template, is its own text with v a constant: buf[v] and buf[v + 1] are fixed
    banks in each, II 1 on ram_1p.  The first version of the one-text rule merged
    them and claimed II 2 (probe 29b, items 4-5)."""
    path = tmp_path / "calls.cpp"
    path.write_text(head + INLINED_CALLS.replace("PRAGMA", pragma))
    _, _, checked = api.check_kernel(path, as_written=True)
    assert [loop.achieved_ii for loop in checked.loops] == [1, 1, 1]
    main(["check", "--trace", "--as-written", str(path)])
    out, err = capsys.readouterr()
    assert out.count("traced II 1: agrees") == 3 and "disagrees" not in err


SOME_CALLS = """
static void rd(int buf[4][64], int out[64], int v, int n, int extra) {
  for (int i = 0; i < n; i++) {
#pragma HLS pipeline II=1
#pragma HLS loop_tripcount max=64
    int s = buf[0][i];
    if (extra) s += buf[v][i];
    out[i] = s;
  }
}
void some(int in[64], int o1[64], int o2[64]) {
  int buf[4][64];
#pragma HLS array_partition variable=buf complete dim=1
#pragma HLS bind_storage variable=buf type=ram_1p
  for (int i = 0; i < 64; i++)
    for (int r = 0; r < 4; r++) buf[r][i] = in[i] + r;
  rd(buf, o1, 1, 64, 1);
  rd(buf, o2, 3, SECOND);
}
"""


@pytest.mark.parametrize("second, site, ii", [
    ("64, 0", "buf[v][i]", 2), ("0, 1", "buf[v][i]", 2), ("64, 0", "buf[2][i]", 1),
    ("0, 1", "buf[2][i]", 1)],
    ids=["pruned", "zero-trip", "pruned-literal", "zero-trip-literal"])
def test_a_site_that_runs_in_one_call_only_is_a_run_time_bank(tmp_path, capsys, second,
                                                              site, ii):
    """``buf[v][i]`` runs in the first call only: an ``if`` on a constant argument
    prunes it from the second, or the second's loop runs no iteration.  Its bank is 1
    wherever it runs, but rd's one text holds ``buf[v]`` with v a run-time value: it
    takes a port of every bank, bank 0 gets it and ``buf[0][i]``, II 2 on ram_1p,
    and the one schedule serves both calls.  The checker and the replay claimed
    II 1 (probe 29b item 1).  The IR of the second call still holds the site (v = 3
    there), and a literal ``buf[2][i]`` is one subscript in both: II 1 (the first fix
    called it a run-time bank, probe 30b F1)."""
    path = tmp_path / "some.c"
    path.write_text(SOME_CALLS.replace("SECOND", second).replace("buf[v][i]", site))
    _, _, checked = api.check_kernel(path, as_written=True)
    assert [loop.achieved_ii for loop in checked.loops] == [1, ii, ii]
    if ii == 2:
        assert "one piece of code with call 1 of 2" in checked.loops[2].format()
    main(["check", "--trace", "--as-written", str(path)])
    out, err = capsys.readouterr()
    assert f"traced II {ii}: agrees" in out and "disagrees" not in err
    compiled = api.compile_kernel(path, replace_partitions=True)
    assert [loop.achieved_ii for loop in compiled.report.scheduled.loops][1:] == [ii, ii]


TWO_ARRAYS = WR + """void two(int in[64], int out[64]) {
  int a[4][64];
  int b[4][64];
#pragma HLS array_partition variable=a complete dim=1
#pragma HLS array_partition variable=b complete dim=1
#pragma HLS bind_storage variable=a type=ram_1p
#pragma HLS bind_storage variable=b type=ram_1p
  wr(a, in, 0);
  wr(b, in, SECOND);
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    out[i] = a[0][i] + a[1][i] + b[2][i] + b[3][i];
  }
}
"""


@pytest.mark.parametrize("second, ii", [(2, 2), (0, 1)], ids=["moves", "same-subscript"])
def test_one_function_text_is_one_site_whichever_array_it_is_given(tmp_path, capsys,
                                                                   second, ii):
    """``wr(a, in, 0); wr(b, in, 2)``: one text of wr, whose ``buf[v]`` is a run-time
    bank whichever array the call wires to it, as for ``wr(buf, 0); wr(buf, 2)``:
    II 2 on ram_1p.  Each call was judged alone per array and claimed II 1 (probe
    29b item 3).  With v = 0 in both calls the text's v is that constant: II 1."""
    path = tmp_path / "two.c"
    path.write_text(TWO_ARRAYS.replace("SECOND", str(second)))
    _, _, checked = api.check_kernel(path, as_written=True)
    assert [loop.achieved_ii for loop in checked.loops] == [ii, ii, 1]
    main(["check", "--trace", "--as-written", str(path)])
    out, err = capsys.readouterr()
    for call in (1, 2):
        assert f"call {call} of 2): 64 steps, model II {ii}, traced II {ii}: agrees" in out
    assert "disagrees" not in err


UNROLLED_CALLS = WR + """void calls(int in[64], int out[64]) {
  int buf[4][64];
#pragma HLS array_partition variable=buf complete dim=1
#pragma HLS bind_storage variable=buf type=ram_1p
  for (int v = 0; v < 4; v += 2) {
#pragma HLS unroll
    CALL;
  }
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    out[i] = buf[0][i] + buf[3][i];
  }
}
"""


@pytest.mark.parametrize("call, ii", [("wr(buf, in, v)", 4), ("wr(buf, in, 0)", 2)],
                         ids=["lane-argument", "constant-argument"])
def test_a_call_in_unrolled_lanes_is_one_text_for_them(tmp_path, capsys, call, ii):
    """``wr(buf, in, v)`` in a loop over v = 0, 2 unrolled: each lane's v is a
    constant, but wr's one text has v on a port, so ``buf[v]`` and ``buf[v + 1]``
    take a port of every bank in both lanes, which run together: 4 writes a bank, II
    4 on ram_1p.  Each lane was judged with its own v: II 1, where the replay of the
    calls one after another found II 2 (probe 29b item 6, probe 30b F4).  With a
    constant argument the text's v is that constant: the lanes' two writes meet on
    banks 0 and 1, II 2 (the control, the same before)."""
    path = tmp_path / "calls.c"
    path.write_text(UNROLLED_CALLS.replace("CALL", call))
    _, _, checked = api.check_kernel(path, as_written=True)
    assert [loop.achieved_ii for loop in checked.loops] == [ii, 1]
    main(["check", "--trace", "--as-written", str(path)])
    out, err = capsys.readouterr()
    assert "disagrees" not in err and "DISAGREES" not in out


THROUGH_CONTROL = """
static void wr(int buf[4][64], const int in[64], int v) {
  BODY
}
void calls(int in[64], int out[64]) {
  int buf[4][64];
#pragma HLS array_partition variable=buf complete dim=1
#pragma HLS bind_storage variable=buf type=ram_1p
  for (int v = 0; v < 2; v++) {
#pragma HLS unroll
    wr(buf, in, v);
  }
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    out[i] = buf[0][i] + buf[1][i];
  }
}
"""


@pytest.mark.parametrize("body", [
    """for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    if (v == 0) buf[0][i] = in[i]; else buf[1][i] = in[i] + 1;
  }""",
    """for (int i = v; i < 64; i += 2) {
#pragma HLS pipeline II=1
    buf[i % 2][i] = in[i];
  }"""], ids=["if", "loop-start"])
def test_a_lane_value_that_reaches_a_shared_text_through_control_is_run_time(
        tmp_path, body):
    """The lane's v reaches wr's one text through ``if (v == 0)`` or a loop start
    ``i = v``, not a subscript: each lane's copy wrote one fixed bank, so II 1 was
    claimed (probe 30c f01, f02).  In the one text v is a run-time value: the ``if``
    is data dependent and ``i % 2`` a run-time bank, so the lanes meet on a bank: II
    2 on ram_1p."""
    path = tmp_path / "calls.c"
    path.write_text(THROUGH_CONTROL.replace("BODY", body))
    _, _, checked = api.check_kernel(path, as_written=True)
    assert [loop.achieved_ii for loop in checked.loops] == [2, 1]


RENAMED_ITERATOR = """
static void wr(int buf[64], const int in[64]) {
  for (int i = 0; i < 32; i++) {
#pragma HLS pipeline II=1
    buf[2 * i] = in[i];
    buf[2 * i + 1] = in[i] + 1;
  }
}
void calls(int in[64], int out[64]) {
  int buf[64];
#pragma HLS array_partition variable=buf cyclic factor=2
#pragma HLS bind_storage variable=buf type=ram_1p
  wr(buf, in);
  for (int i = 0; i < 2; i++) {
    wr(buf, in);
  }
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    out[i] = buf[i];
  }
}
"""


def test_a_callee_iterator_renamed_in_one_call_is_the_same_subscript(tmp_path, capsys):
    """Called inside a caller's loop over ``i``, wr's iterator is renamed ``i_1``:
    ``buf[2 * i]`` and ``buf[2 * i_1]`` were two subscripts of one text, a run-time
    bank, II 2 (probe 30c f05).  The text's own iterators are compared by their place
    in its nest: banks 0 and 1 in both calls, II 1."""
    path = tmp_path / "calls.c"
    path.write_text(RENAMED_ITERATOR)
    _, _, checked = api.check_kernel(path, as_written=True)
    assert [loop.achieved_ii for loop in checked.loops] == [1, 1, 1]
    main(["check", "--trace", "--as-written", str(path)])
    out, err = capsys.readouterr()
    assert "disagrees" not in err and "DISAGREES" not in out


# rd's text reaches a row through its arguments: written in the subscript, through a
# local, or through the caller's expression (mid's one text passes v - w on).
ARGUMENT_TEXTS = {
    "direct": """
static void rd(int buf[4][64], int out[64], int v, int w) {
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    out[i] = buf[0][i] + buf[v - w][i];
  }
}
#define CALL rd
""",
    "local": """
static void rd(int buf[4][64], int out[64], int v, int w) {
  int k = v - w;
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    out[i] = buf[0][i] + buf[k][i];
  }
}
#define CALL rd
""",
    "caller": """
static void rd(int buf[4][64], int out[64], int k) {
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    out[i] = buf[0][i] + buf[k][i];
  }
}
static void mid(int buf[4][64], int out[64], int v, int w) { rd(buf, out, v - w); }
#define CALL mid
"""}
ARGUMENTS_TOP = """
void args(int in[64], int o1[64], int o2[64]) {
  int buf[4][64];
#pragma HLS array_partition variable=buf complete dim=1
#pragma HLS bind_storage variable=buf type=ram_1p
  for (int i = 0; i < 64; i++)
    for (int r = 0; r < 4; r++) buf[r][i] = in[i] + r;
  CALL(buf, o1, 3, 1);
  CALL(buf, o2, SECOND);
}
"""


@pytest.mark.parametrize("text", sorted(ARGUMENT_TEXTS))
@pytest.mark.parametrize("second, ii", [("4, 2", 2), ("3, 1", 1)],
                         ids=["other-arguments", "same-arguments"])
def test_calls_whose_arguments_differ_are_two_subscripts_of_one_text(tmp_path, capsys,
                                                                     text, second, ii):
    """``rd(buf, o1, 3, 1); rd(buf, o2, 4, 2)`` reading ``buf[v - w]``: both calls read
    row 2, but rd's one text has v and w on ports, a run-time bank that takes a port
    of row 0's bank as well: II 2 (claimed II 1, probe 30b F3).  So through a local
    (``int k = v - w``) or the caller's expression (``rd(buf, out, v - w)`` in mid's
    one text; probe 31b F1).  The same arguments twice are one constant subscript:
    II 1 (the control).  The trace agrees."""
    path = tmp_path / "args.c"
    path.write_text(ARGUMENT_TEXTS[text] + ARGUMENTS_TOP.replace("SECOND", second))
    _, _, checked = api.check_kernel(path, as_written=True)
    assert sorted(loop.achieved_ii for loop in checked.loops) == [1, ii, ii]
    main(["check", "--trace", "--as-written", str(path)])
    out, err = capsys.readouterr()
    assert out.count(f"traced II {ii}: agrees") >= 2 and "disagrees" not in err


ROW_TIMES_COLUMN = """
void mm(const int a[256], const int b[256], int c[256]) {
    int A[256], B[256];
#pragma HLS ARRAY_PARTITION variable=A dim=1 cyclic factor=16
#pragma HLS ARRAY_PARTITION variable=B dim=1 block factor=16
    for (int i = 0; i < 256; i++) {
#pragma HLS PIPELINE II=1
        A[i] = a[i];
        B[i] = b[i];
    }
    for (int i = 0; i < 16; i++) {
        for (int j = 0; j < 16; j++) {
            int r = 0;
            inner: for (int k = 0; k < 16; k++) {
#pragma HLS UNROLL factor=FACTOR
#pragma HLS PIPELINE II=1
                r += A[i * 16 + k] * B[k * 16 + j];
            }
            c[i * 16 + j] = r;
        }
    }
}
"""


@pytest.mark.parametrize("factor, ii", [(16, 1), (8, 4)])
def test_an_unroll_factor_that_covers_the_trip_count_keeps_each_lanes_bank(
        tmp_path, factor, ii):
    """``unroll factor=16`` over 16 trips: k's block start is 0 alone, so lane l reads
    ``A[16i + l]``, bank l of cyclic 16, and ``B[16l + j]``, block l, in every
    iteration: the note on the kept pragmas, the loop table and ``check --as-written``
    all say II 1 (probe 36 F6: the note said Vitis schedules inner at II 8, taking the
    block start for a variable that moves by 1).  With factor 8 the block start takes
    0 and 8, the banks rotate, and all three say II 4."""
    path = tmp_path / "mm.c"
    path.write_text(ROW_TIMES_COLUMN.replace("FACTOR", str(factor)))
    compiled = api.compile_kernel(path)
    loops = {lp["name"]: lp["achieved_ii"] for lp in compiled.report.to_json()["loops"]}
    assert loops["inner"] == ii
    scheduled = [w for w in compiled.report.warnings if "Vitis schedules" in w]
    assert [w.split("Vitis schedules ")[1].split(";")[0] for w in scheduled] == (
        [] if ii == 1 else [f"inner at II {ii}"] * 2)
    _, _, checked = api.check_kernel(path, as_written=True)
    assert {loop.name: loop.achieved_ii for loop in checked.loops}["inner"] == ii
