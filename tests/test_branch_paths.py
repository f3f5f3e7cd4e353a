"""Paths through data-dependent ifs (DESIGN §2 as the issues amend it, UG1399): in one
pipelined iteration the two branches of a data-dependent ``if`` never both run, so
their accesses share a port.  The model has one cycle group per path, the proof and
the checker take the worst path, and the recorded run agrees."""

import pytest

import arraypart
from arraypart import check, ir
from arraypart.poly import model

from conftest import (array, assert_the_testbench_passes, assert_the_trace_agrees, needs_gxx,
                      run_testbench, write)

# One row of Needleman-Wunsch's fill (MachSuite's nw writes its traceback pointer in
# the three arms of one if-chain), written for this test.
ALIGN = r"""
#define N 32
void align(const int diag[N], const int up[N], const int left[N], char ptr[N],
           int score[N]) {
fill:
  for (int j = 0; j < N; j++) {
#pragma HLS pipeline II=1
    int d = diag[j] + 1, u = up[j] - 1, l = left[j] - 1;
    int best = d > u ? d : u;
    best = l > best ? l : best;
    score[j] = best;
    if (best == l) {
      ptr[j] = '<';
    } else if (best == u) {
      ptr[j] = '^';
    } else {
      ptr[j] = '\\';
    }
  }
}
"""

# A store in one branch and a load in the other (UG1399, "Limitations of Pipelining
# with Static Variables": II 1 on one port).
STORE_OR_LOAD = """
#define N 64
void keep(const int sel[N], const int in[N], int out[N]) {
  int mem[N];
  for (int i = 0; i < N; i++) mem[i] = i;
  for (int i = 0; i < N; i++) {
#pragma HLS pipeline II=1
    if (sel[i] > 0) mem[i] = in[i];
    else out[i] = mem[N - 1 - i];
  }
}
"""


def _ifs(count: int) -> str:
    """``count`` data-dependent ifs in a row, each writing one element of ``mem`` in
    both branches: 2**count paths."""
    arms = "".join(f"    if (sel[i] > {k}) mem[i] = {k}; else mem[i] = -{k};\n"
                   for k in range(count))
    return f"""
#define N 64
void many(const int sel[N], int out[N]) {{
  int mem[N];
  for (int i = 0; i < N; i++) {{
#pragma HLS pipeline II=1
{arms}    out[i] = mem[i];
  }}
}}
"""


@pytest.fixture(scope="module")
def aligned(tmp_path_factory):
    path = write(tmp_path_factory.mktemp("align"), "align.c", ALIGN)
    return arraypart.compile_kernel(path, ports=1)


def _achieved(report, name):
    """The II loop ``name`` reaches (under the scheduling rule when it was checked)."""
    position, loop = next((k, lp) for k, lp in enumerate(report.model.loops)
                          if lp.name == name)
    return report.loop_achieved_ii(position, name, loop.target_ii)


def test_each_path_is_a_group_with_one_write_of_ptr(aligned):
    groups = aligned.report.model.array("ptr").groups
    assert sorted(g.path for g in groups) == [0, 1, 2]
    assert all([a.kind for a in g.accesses] == ["write"] for g in groups)


def test_writes_in_exclusive_arms_share_one_port(aligned):
    ptr = array(aligned.report, "ptr")
    assert ptr.banking.scheme.banks == 1 and ptr.lower_bound == 1 and ptr.conflict_free
    assert _achieved(aligned.report, "fill") == 1


def test_the_checker_takes_the_worst_path(aligned):
    report = aligned.report
    checked = check.check_kernel(report.kernel, report.solution.bankings(), ports=1)
    fill = next(lp for lp in checked.loops if lp.name == "fill")
    assert (fill.achieved_ii, fill.first_conflict) == (1, None)


@needs_gxx
def test_emitted_kernel_and_recorded_run_agree(aligned, tmp_path):
    run = run_testbench(aligned, tmp_path)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    judged = assert_the_trace_agrees(aligned, tmp_path, ports=1)
    assert max(loop.traced_ii for loop in judged.replay.loops) == 1


def test_a_store_and_a_load_in_exclusive_arms_need_one_bank(tmp_path):
    report = arraypart.analyze(write(tmp_path, "keep.c", STORE_OR_LOAD), ports=1)
    mem = array(report, "mem")
    assert mem.banking.scheme.banks == 1 and mem.conflict_free


def test_the_same_accesses_outside_the_arms_need_two_banks(tmp_path):
    """The control: one store and one load in every iteration need more than one
    bank.  The store under a data-dependent ``if`` keeps its reference as written,
    so banks that change with the iteration would take a port of each bank (two
    blocks of 32 gave II 2): the search now knows before it emits, and the banking
    it picks keeps II 1 under the scheduling rule."""
    text = STORE_OR_LOAD.replace("else out[i]", "out[i]")
    report = arraypart.analyze(write(tmp_path, "keep.c", text), ports=1)
    mem = array(report, "mem")
    assert mem.banking.scheme.banks > 1 and mem.conflict_free
    assert [loop["achieved_ii"] for loop in report.to_json()["loops"]] == [1, 1]


@pytest.mark.parametrize("count, paths", [(2, 4), (4, 16), (5, 1)])
def test_paths_are_enumerated_up_to_the_limit(tmp_path, count, paths):
    """Past MAX_BRANCH_PATHS the loop is one group holding every branch; each if's
    two writes of one element are still one write (``merged_writes``), as in every
    run."""
    assert ir.MAX_BRANCH_PATHS == 16
    report = arraypart.analyze(write(tmp_path, "many.c", _ifs(count)), ports=2)
    groups = report.model.array("mem").groups
    assert len(groups) == paths
    writes = max(sum(a.kind == "write" for a in g.accesses) for g in groups)
    assert writes == (count if paths > 1 else 2 * count)
    assert all(len(g.merged_writes) == (0 if paths > 1 else count) for g in groups)
    # every access is to mem[i]: the count writes and the read take
    # ceil((count + 1) / 2) cycles
    loop = report.model.loops[0].name
    assert _achieved(report, loop) == -(-(count + 1) // 2)


# BlockPU's DW_CONV3x3 shape: every unrolled channel co either starts (=) or adds to
# (+=) its accumulator, on a counter the whole iteration shares.
CHANNELS = """
void channels(const int in[16][8], int out[16][8]) {
  unsigned short phase = 0, h = 0;
  for (unsigned short t = 0; t < 72; t++) {
#pragma HLS pipeline II=1
    BEFORE
    for (int co = 0; co < 16; co++) {
#pragma HLS unroll
      DECLARE
      if (COND) out[co][h] = in[co][h];
      else out[co][h] += in[co][h];
    }
    if (phase == 8) { phase = 0; h++; } else phase++;
  }
}
"""


@needs_gxx
@pytest.mark.parametrize("declare, cond, exclusive", [
    ("", "phase == 0", True),
    ("", "phase == 0 && t > 3", True),
    ("", "phase == co", False),  # an iterator of the lanes
    ("int x = in[co][0];", "x > 0", False),  # a scalar each lane declares
    ("phase += co;", "phase == 0", False),  # a scalar the lanes write
    ("", "in[co][0] > 0", False),  # an array read
    ("r ^= co;", "phase == 0", False),  # through a reference bound before the lanes
    ("*p ^= co;", "phase == 0", False),  # through a pointer
    ("static_cast<unsigned short &>(phase) ^= co;", "phase == 0", False)],  # a cast target
    ids=["shared", "shared-conjunction", "iterator", "lane-local", "lane-written", "read",
         "reference", "pointer", "cast"])
def test_a_condition_all_lanes_share_makes_their_branches_exclusive(
        tmp_path, declare, cond, exclusive):
    """One value of the condition in every lane: each lane runs the same branch, so
    per channel a write, or a read and a write: II 1 on two ports with one bank per
    channel.  A condition that may differ between lanes leaves every branch counted
    (II 2 on those banks), and the checker agrees with each claim."""
    before = ("unsigned short &r = phase;" if "r ^=" in declare else
              "unsigned short *p = &phase;" if "*p" in declare else "")
    text = CHANNELS.replace("BEFORE", before).replace("DECLARE", declare).replace(
        "COND", cond)
    compiled = arraypart.compile_kernel(write(tmp_path, "channels.cpp", text),
                                        replace_partitions=True)
    report = compiled.report
    out = array(report, "out")
    assert out.conflict_free == exclusive
    if exclusive:
        assert out.banking.scheme.banks == 16  # one bank per channel
    checked = check.check_kernel(report.kernel, report.solution.bankings(), ports=2)
    assert [lp.achieved_ii for lp in checked.loops] == [
        1 if exclusive else max(ii for _, ii in out.achieved_ii)]
    run = run_testbench(compiled, tmp_path)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    judged = assert_the_trace_agrees(compiled, tmp_path, ports=2)
    assert max(loop.traced_ii for loop in judged.replay.loops) == 1


RELU6 = """
void relu6(const int in[64], int out[64]) {
  int buf[64];
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
#pragma HLS unroll factor=2
    int x = in[i];
    if (x > 6) buf[i] = 6;
    else if (x < 0) buf[i] = 0;
    else buf[i] = x;
  }
  for (int i = 0; i < 64; i++) out[i] = buf[i];
}
"""


def test_writes_in_exclusive_branches_of_a_lane_set_no_floor(tmp_path):
    """In each lane of ``unroll factor=2`` one of the three writes of buf[i] runs: the
    floor called II 1 impossible for memory banks ('written 3 times in one
    iteration').  The lanes carry their branches, and the floors count only writes
    that may run together; those of different lanes still do."""
    report = arraypart.analyze(write(tmp_path, "relu6.cpp", RELU6))
    assert not any("impossible" in w for w in report.warnings)
    am = report.model.array("buf")
    group = next(g for g in am.groups if len(g.accesses) == 6)
    writes = [a for a in group.accesses if a.kind == "write"]
    by_lane = {}
    for a in writes:  # lane 0 writes buf[i], lane 1 buf[i + 1]
        by_lane.setdefault(a.index, []).append(a)
    assert sorted(len(lane) for lane in by_lane.values()) == [3, 3]
    first, second = by_lane.values()
    assert all(model.exclusive(a, b) for lane in (first, second)
               for a in lane for b in lane if a is not b)
    assert not any(model.exclusive(a, b) for a in first for b in second)


# Members of a local struct array (Rosetta's 3d-rendering writes three members of
# one pixel per cycle): Vitis makes each member an array of its own.
PIXELS = """
#define N 64
struct Pixel { short x; short y; unsigned char color; };
void paint(const short xs[N], const short ys[N], const unsigned char cs[N], short out[N]) {
  Pixel pixels[N];
fill:
  for (int i = 0; i < N; i++) {
#pragma HLS pipeline II=1
    pixels[i].x = xs[i];
    pixels[i].y = ys[i];
    pixels[i].color = cs[i];
  }
sum:
  for (int i = 0; i < N; i++) {
#pragma HLS pipeline II=1
    out[i] = pixels[i].x + pixels[i].y + pixels[i].color;
  }
}
"""


@pytest.fixture(scope="module")
def painted(tmp_path_factory):
    path = write(tmp_path_factory.mktemp("paint"), "paint.cpp", PIXELS)
    return arraypart.compile_kernel(path, ports=1)


def test_members_of_a_local_struct_array_are_memories_of_their_own(painted):
    report = painted.report
    groups = report.model.array("pixels").groups
    fill = [g for g in groups if g.loop == "fill"]
    assert sorted(a.field for g in fill for a in g.accesses) == ["color", "x", "y"]
    assert len(fill) == 3
    pixels = array(report, "pixels")
    assert pixels.banking.scheme.banks == 1 and pixels.conflict_free
    assert _achieved(report, "fill") == 1
    checked = check.check_kernel(report.kernel, report.solution.bankings(), ports=1)
    assert [(lp.achieved_ii, lp.first_conflict) for lp in checked.loops] == [(1, None)] * 2


def test_a_top_level_struct_argument_stays_one_wide_memory(tmp_path):
    """Top-level struct arguments are aggregated: three member writes of one element
    are three writes of one word."""
    text = PIXELS.replace("short out[N]) {\n  Pixel pixels[N];", "short out[N],\n"
                          "           Pixel pixels[N]) {")
    report = arraypart.analyze(write(tmp_path, "paint.cpp", text), ports=1)
    assert len([g for g in report.model.array("pixels").groups if g.loop == "fill"]) == 1
    assert _achieved(report, "fill") == 3


@needs_gxx
def test_the_recorded_run_counts_members_apart(painted, tmp_path):
    judged = assert_the_trace_agrees(painted, tmp_path, ports=1)
    assert max(loop.traced_ii for loop in judged.replay.loops) == 1


NESTED = """\
struct Pair { short lo; short hi; };
struct Cell { short tag; Pair v; };

void nested(const short xs[8], Cell cells[8]) {
fill:
  for (int i = 0; i < 8; i++) {
#pragma HLS pipeline II=1
    cells[i].v.lo = xs[i];
    cells[i].v.hi = xs[i] + 1;
  }
}
"""


def test_a_member_of_a_member_assigned_is_a_write(compiled_once):
    """``cells[i].v.lo = x`` writes the element (Vitis HLS's nested structs example);
    it was taken for a read of ``v``, which merged with the other member's: two writes
    of one word on one port need II 2 as one memory."""
    report = compiled_once("nested.cpp", NESTED, ports=1).report
    cells = [(a.kind, a.field) for g in report.model.array("cells").groups
             for a in g.accesses]
    assert cells == [("write", "v"), ("write", "v")]
    as_written = check.check_kernel(report.kernel, check.as_written_bankings(report.kernel),
                                    ports=1)
    assert [lp.achieved_ii for lp in as_written.loops] == [2]


@needs_gxx
def test_nested_member_writes_trace_as_modelled(compiled_once, tmp_path):
    compiled = compiled_once("nested.cpp", NESTED, ports=1)
    assert_the_trace_agrees(compiled, tmp_path, ports=1)


# probe 30 F3 (issue #13): H.264's predict_intra16x16_luma_NonField clamps each pixel
# of predL in an if / else if / else, inside an unrolled loop, so ir.branch_paths
# keeps one group and the lanes record their branches.
CLAMP = """
void clamp(int out[64][4], int in[64][4]) {
  for (int k = 0; k < 64; k++) {
#pragma HLS pipeline
    for (int j = 0; j < LANES; j++) {
      int tmp = in[k][0] * (j + 1) - 3;
      if (tmp < 0) out[k][j] = 0;
      else if (tmp > 255) out[k][j] = 255;
      else out[k][j] = tmp;
    }
  }
}
"""


def _write_lanes(report, name: str) -> list:
    """The groups of ``name`` with writes, one per path."""
    return [g for g in report.model.array(name).groups
            if any(a.kind == "write" for a in g.accesses)]


@needs_gxx
@pytest.mark.parametrize("lanes, ports, banks", [(1, 2, 1), (4, 2, 2), (4, 1, 4)])
def test_clamp_writes_of_one_subscript_are_one_write(tmp_path, lanes, ports, banks):
    """Per lane one of the three writes of out[k][j] runs, which Vitis makes one store
    of a select: the lanes' writes are ``lanes`` writes of different elements, so
    ceil(lanes / ports) banks reach II 1 (the bound); the model, the checker of the
    emitted code, the ideal checker and the recorded run all say II 1, and no warning
    says the clamp's writes hit a bank together."""
    text = CLAMP.replace("LANES", str(lanes))
    compiled = arraypart.compile_kernel(write(tmp_path, "clamp.cpp", text), ports=ports)
    report = compiled.report
    (group,) = _write_lanes(report, "out")
    assert len(group.merged_writes) == 2 * lanes
    out = array(report, "out")
    assert out.conflict_free and (out.lower_bound, out.banking.scheme.banks) == (banks, banks)
    assert _achieved(report, "L3") == 1
    checked = check.check_kernel(report.kernel, report.solution.bankings(), ports=ports)
    assert [(lp.achieved_ii, lp.first_conflict) for lp in checked.loops] == [(1, None)]
    assert checked.accesses_checked == 64 * lanes * 4  # every reference still counted
    assert not any("together" in w for w in report.warnings)
    assert_the_testbench_passes(compiled, tmp_path)
    judged = assert_the_trace_agrees(compiled, tmp_path, ports=ports)
    assert max(loop.traced_ii for loop in judged.replay.loops) == 1


# w1 in A-then, w2 in A-else and B-then, w3 in A-else and C-then, one subscript: w2
# and w3 run together when A fails and B and C hold.  Keeping a write unless it is
# exclusive with one kept before it would keep w1 only.
NESTED_BRANCHES = """
void nested(const int a[64], const int b[64], const int c[64], int out[64][1]) {
  for (int k = 0; k < 64; k++) {
#pragma HLS pipeline
    for (int j = 0; j < 1; j++) {
      if (a[k] + j > 0) {
        out[k][j] = 1;
      } else {
        if (b[k] + j > 0) out[k][j] = 2;
        if (c[k] + j > 0) out[k][j] = 3;
      }
    }
  }
}
"""


def test_two_writes_one_path_runs_stay_two(tmp_path):
    """On one port the most writes of out[k][0] one path runs, two, need II 2: the
    model merges w2 into w1 only, and the checker counts the same."""
    report = arraypart.analyze(write(tmp_path, "branches.cpp", NESTED_BRANCHES), ports=1)
    (group,) = _write_lanes(report, "out")
    writes = [k for k, a in enumerate(group.accesses) if a.kind == "write"]
    assert group.merged_writes == {writes[1]: writes[0]}
    assert dict(array(report, "out").achieved_ii) == {"L3": 2}
    assert _achieved(report, "L3") == 2
    checked = check.check_kernel(report.kernel, report.solution.bankings(), ports=1)
    assert [lp.achieved_ii for lp in checked.loops] == [2]


def _twice(tmp_path, body: str):
    """The clamp kernel with two lanes and ``body`` for the j loop's, analyzed on one
    port, its write group and the ideal checker's II."""
    text = CLAMP.replace("LANES", "2")
    start = text.index("      int tmp")
    end = text.index("    }\n  }\n}")
    report = arraypart.analyze(write(tmp_path, "twice.cpp", text[:start] + body + text[end:]),
                               ports=1)
    (group,) = _write_lanes(report, "out")
    checked = check.check_kernel(report.kernel, report.solution.bankings(), ports=1)
    return report, group, [lp.achieved_ii for lp in checked.loops]


def test_writes_of_one_subscript_outside_exclusive_branches_stay_two(tmp_path):
    """The control: ``if (c) x = 1; x = 2;`` may run both writes, which no branch
    merges; the first is a dead store (:mod:`arraypart.poly.forwarding`: ``in``, another
    argument, shares no memory with ``out``), so each lane makes one, in a bank of its
    own: II 1 (2 before probe 42 F1, which took ``in`` to alias ``out``)."""
    report, group, checked = _twice(tmp_path, "      if (in[k][j] > 0) out[k][j] = 1;\n"
                                              "      out[k][j] = 2;\n")
    assert group.merged_writes == {}
    assert dict(array(report, "out").achieved_ii) == {"L3": 1} and checked == [1]


def test_exclusive_writes_of_two_subscripts_stay_two(tmp_path):
    """out[k][j] and out[k][2 * j] are one element in lane j = 0, in exclusive
    branches, so at most one runs; but they are two subscripts, and the model and the
    checker count both (pessimistic, in agreement): II 2 on one port."""
    report, group, checked = _twice(tmp_path, "      if (in[k][j] > 0) out[k][j] = 1;\n"
                                              "      else out[k][2 * j] = 2;\n")
    assert group.merged_writes == {}
    assert dict(array(report, "out").achieved_ii) == {"L3": 2} and checked == [2]


# CHStone aes KeySchedule's shape: a switch gives nk its value, its default returns.
SWITCH_RETURNS = """\
int w[64];
static int ks(int type, const int key[16]) {
  int nk;
  switch (type) {
  case 1: nk = 4; break;
  case 2: nk = %s; break;
  default: return -1;
  }
  for (int j = nk; j < 40; ++j) {
#pragma HLS pipeline II=1
    w[j] = w[j - nk] + key[j %% 16];
  }
  return 0;
}
void switched(const int key[16], int out[4]) {
  ks(1, key);
  for (int i = 0; i < 4; i++) out[i] = w[i];
}
"""


@needs_gxx
def test_a_switch_arm_that_returns_gives_no_value_after_the_switch(tmp_path):
    """The default arm returns, so after the switch nk is 4 on every path that gets
    there: an affine subscript, not 'nk is declared without a value' (probe 41 F8: the
    returning path's state was merged into what follows); the trace agrees."""
    path = write(tmp_path, "switched.c", SWITCH_RETURNS % "4")
    compiled = arraypart.compile_kernel(path)
    assert not any("nk" in w for w in compiled.report.warnings), compiled.report.warnings
    assert_the_trace_agrees(compiled, tmp_path, ports=2)
    differs = arraypart.analyze(write(tmp_path, "differs.c", SWITCH_RETURNS % "6"),
                                top="switched")
    assert any("'nk' takes different values on the branches of the switch at " in w
               for w in differs.warnings), differs.warnings
