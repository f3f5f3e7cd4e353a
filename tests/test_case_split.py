"""A scalar that holds one of a few constants (``int S = flag ? 2 : 1``) is modelled by
cases (:mod:`arraypart.frontend.cases`): ``in[S*oh + kh]`` is ``oh + kh`` or ``2*oh +
kh``, each case banked exactly, the II the worst case's.  A scalar the loop writes
stays irregular."""

import pytest

import arraypart
from arraypart import check

from conftest import array, assert_the_testbench_passes, assert_the_trace_agrees, \
    needs_gxx, write

STRIDED = """\
void strided(int flag, const int in[64], int out[16]) {
  int S = flag ? 2 : 1;
  for (int oh = 0; oh < 16; oh++) {
#pragma HLS pipeline II=1
    int acc = 0;
    for (int kh = 0; kh < 4; kh++) {
#pragma HLS unroll
      acc += in[S*oh + kh];
    }
    out[oh] = acc;
  }
}
"""

# The brief's kernel: a local copy, S set by ?: between the two loops.
CONV = """\
void conv(int flag, const int in[64], int out[16]) {
  int buf[64];
  for (int i = 0; i < 64; i++) buf[i] = in[i];
  int S = flag ? 2 : 1;
  for (int oh = 0; oh < 16; oh++) {
#pragma HLS pipeline II=1
    int acc = 0;
    for (int kh = 0; kh < 3; kh++) {
#pragma HLS unroll
      acc += buf[S*oh + kh];
    }
    out[oh] = acc;
  }
}
"""

# S = 4 reads 4*oh, 4*oh + 4, ... (one bank under any 4 of cyclic or block), S = 1
# four neighbours: no banking within 4 banks serves both at II 1.
WORST = """\
void worst(int flag, const int in[64], int out[13]) {
  int S = flag ? 4 : 1;
  for (int oh = 0; oh < 13; oh++) {
#pragma HLS pipeline II=1
    int acc = 0;
    for (int kh = 0; kh < 4; kh++) {
#pragma HLS unroll
      acc += in[4*oh + S*kh];
    }
    out[oh] = acc;
  }
}
"""


def _iis(report):
    return [loop["achieved_ii"] for loop in report.to_json()["loops"]]


def _not_affine(report):
    return [w for w in report.warnings if "not affine" in w]


def test_a_two_valued_stride_banks_each_case(tmp_path):
    report = arraypart.analyze(write(tmp_path, "strided.c", STRIDED), ports=1)
    assert _not_affine(report) == []
    banking = array(report, "in").banking
    assert (banking.describe().split(":")[0], _iis(report)) == ("per_dim cyclic 4", [1])
    checked = check.check_kernel(report.kernel, report.solution.bankings(), ports=1)
    assert [(loop.achieved_ii, loop.ok) for loop in checked.loops] == [(1, True)]


def test_if_else_constants_and_a_scalar_declared_from_them_are_cases(tmp_path):
    text = STRIDED.replace("  int S = flag ? 2 : 1;\n",
                           "  int S;\n  if (flag) S = 2;\n  else S = 1;\n").replace(
        "      acc += in[S*oh + kh];\n", "      int i = S*oh + kh;\n      acc += in[i];\n")
    report = arraypart.analyze(write(tmp_path, "strided.c", text), ports=1)
    assert _not_affine(report) == [] and _iis(report) == [1]
    assert array(report, "in").banking.scheme.banks == 4


def test_the_worst_case_sets_the_ii(tmp_path):
    report = arraypart.analyze(write(tmp_path, "worst.c", WORST), ports=1, max_banks=4)
    assert _iis(report) == [2]  # irregular, every read took a port of each bank: II 4
    # the conflict named is the case S = 4's (S = 1 alone reaches II 1 in 4 banks)
    assert any("read in[48]" in w and "read in[60]" in w for w in report.warnings)
    checked = check.check_kernel(report.kernel, report.solution.bankings(), ports=1)
    assert [loop.achieved_ii for loop in checked.loops] == [2]
    alone = arraypart.analyze(write(tmp_path, "one.c", WORST.replace("flag ? 4 : 1", "1")),
                              ports=1, max_banks=4)
    assert _iis(alone) == [1]


def test_a_scalar_the_loop_writes_stays_irregular(tmp_path):
    text = STRIDED.replace("    out[oh] = acc;\n", "    out[oh] = acc;\n    S = acc ? 3 : 1;\n")
    report = arraypart.analyze(write(tmp_path, "strided.c", text), ports=1)
    assert any("in[?]" in w for w in report.warnings)


def test_a_scalar_set_in_each_lane_is_no_case(tmp_path):
    """Lanes of one iteration may hold different values: one key for all would hide
    their conflicts."""
    text = STRIDED.replace("  int S = flag ? 2 : 1;\n", "").replace(
        "      acc += in[S*oh + kh];\n",
        "      int S = in[kh] ? 2 : 1;\n      acc += in[S*oh + kh];\n")
    report = arraypart.analyze(write(tmp_path, "strided.c", text), ports=1)
    assert any("in[?]" in w for w in report.warnings)


@needs_gxx
@pytest.mark.parametrize("name, text", [("strided.c", STRIDED), ("conv.c", CONV)],
                         ids=["strided", "conv"])
def test_cases_build_run_and_trace_with_both_flag_values(tmp_path, name, text):
    compiled = arraypart.compile_kernel(write(tmp_path, name, text), ports=1)
    assert set(_iis(compiled.report)) == {1}
    tb = next(text for path, text in compiled.files.items() if path.endswith("_tb.cpp"))
    assert "(call == 1 ? 0 : call == 2 ? 1 : 2)" in tb  # flag 0 runs S = 1, 1 S = 2
    assert_the_testbench_passes(compiled, tmp_path)
    assert_the_trace_agrees(compiled, tmp_path, ports=1)


# A ?: in a subscript: in[4*i + k + 4] where m holds, in[4*i + k] where it fails, each
# four neighbours (cyclic 4); read as any index, one memory at II 4.
OFFSET = """\
void offset(int m, const int in[68], int out[16]) {
  for (int i = 0; i < 16; i++) {
#pragma HLS pipeline II=1
    int acc = 0;
    for (int k = 0; k < 4; k++) {
#pragma HLS unroll
      acc += in[4*i + k + (m ? 4 : 0)];
    }
    out[i] = acc;
  }
}
"""

CHOSEN = OFFSET.replace("in[68]", "in[65]").replace(
    "in[4*i + k + (m ? 4 : 0)]", "in[m ? 4*i + k : 4*i + k + 1]")


@pytest.mark.parametrize("text", [OFFSET, CHOSEN], ids=["offset", "chosen"])
def test_a_choice_in_a_subscript_banks_each_arm(tmp_path, text):
    report = arraypart.analyze(write(tmp_path, "offset.c", text), ports=1)
    assert _not_affine(report) == []
    banking = array(report, "in").banking
    assert (banking.describe().split(":")[0], _iis(report)) == ("per_dim cyclic 4", [1])
    checked = check.check_kernel(report.kernel, report.solution.bankings(), ports=1)
    assert [(loop.achieved_ii, loop.ok) for loop in checked.loops] == [(1, True)]


def test_a_choice_on_each_lanes_data_takes_both_arms(tmp_path):
    """c differs from lane to lane: lane 0 may read in[4i + 1] as lane 1 does, so no
    key joins the lanes' arms and every arm counts (a superset, not irregular)."""
    text = CHOSEN.replace("      acc += in[m ?", "      int c = out[k];\n      acc += in[c ?")
    report = arraypart.analyze(write(tmp_path, "offset.c", text), ports=1, max_banks=4)
    assert _not_affine(report) == [] and _iis(report) == [2]
    checked = check.check_kernel(report.kernel, report.solution.bankings(), ports=1)
    assert [loop.achieved_ii for loop in checked.loops] == [2]


@needs_gxx
@pytest.mark.parametrize("text", [OFFSET, CHOSEN], ids=["offset", "chosen"])
def test_both_arms_build_run_and_trace(tmp_path, text):
    compiled = arraypart.compile_kernel(write(tmp_path, "offset.c", text), ports=1)
    assert set(_iis(compiled.report)) == {1}
    tb = next(text for path, text in compiled.files.items() if path.endswith("_tb.cpp"))
    assert "(call == 1 ? 0 : call == 2 ? 1 : 2)" in tb  # m is 0, then not
    assert_the_testbench_passes(compiled, tmp_path)
    assert_the_trace_agrees(compiled, tmp_path, ports=1)


# A test on S: where S is 1 four lanes read in[8*oh + kh], where S is 2 two lanes read
# in[8*oh + 2*kh] (banks 0 and 2 of 4).  Taken as any S in [1, 2], S = 2 read in[8*oh
# + 6] in lane 3 too, so cyclic 4 gave II 2.
TESTED = """\
void tested(int flag, const int in[128], int out[16]) {
  int S = flag ? 2 : 1;
  for (int oh = 0; oh < 16; oh++) {
#pragma HLS pipeline II=1
    int acc = 0;
    for (int kh = 0; kh < 4; kh++) {
#pragma HLS unroll
      if (S == 1 || kh < 2) acc += in[8*oh + S*kh];
    }
    out[oh] = acc;
  }
}
"""


def test_an_if_on_a_scalar_with_cases_is_lowered_per_case(compiled_once):
    report = compiled_once("tested.c", TESTED, ports=1, max_banks=4).report
    assert report.warnings == ()
    banking = array(report, "in").banking
    assert (banking.describe().split(":")[0], _iis(report)) == ("per_dim cyclic 4", [1])
    checked = check.check_kernel(report.kernel, report.solution.bankings(), ports=1)
    assert [(loop.achieved_ii, loop.ok) for loop in checked.loops] == [(1, True)]


def test_a_scalar_an_if_on_cases_sets_has_cases_after_it(tmp_path):
    """The if is lowered once per case of S: in case S = 1 it leaves W 1, in case S =
    2 4; after it W is one of (1, 4) as after an if on data, in[W*oh + kh] exact in
    each (a scalar each case leaves a different origin of constants gets one of its
    own)."""
    text = STRIDED.replace("  int S = flag ? 2 : 1;\n",
                           "  int S = flag ? 2 : 1;\n  int W = 1;\n  if (S == 2) W = 4;\n"
                           ).replace("in[S*oh + kh]", "in[W*oh + kh]").replace(
        "oh < 16", "oh < 15")
    report = arraypart.analyze(write(tmp_path, "strided.c", text), ports=1)
    assert _not_affine(report) == [] and _iis(report) == [1]
    assert array(report, "in").banking.scheme.banks == 4


@needs_gxx
def test_an_if_on_cases_builds_runs_and_traces(compiled_once, tmp_path):
    compiled = compiled_once("tested.c", TESTED, ports=1, max_banks=4)
    assert_the_testbench_passes(compiled, tmp_path)
    assert_the_trace_agrees(compiled, tmp_path, ports=1)


# An unrolled loop bounded by S: one lane where S is 1, two where it is 2 (cyclic 2).
# Without cases its trip count is no constant, which a loop unrolled inside a pipeline
# needs: a located error.
BOUNDED = """\
void bounded(int flag, const int in[64], int out[16]) {
  int S = flag ? 2 : 1;
  for (int oh = 0; oh < 16; oh++) {
#pragma HLS pipeline II=1
    int acc = 0;
    for (int kh = 0; kh < S; kh++) {
#pragma HLS unroll
      acc += in[4*oh + kh];
    }
    out[oh] = acc;
  }
}
"""


def test_a_loop_bounded_by_a_scalar_with_cases_unrolls_per_case(compiled_once):
    report = compiled_once("bounded.c", BOUNDED, ports=1).report
    assert report.warnings == ()
    banking = array(report, "in").banking
    assert (banking.describe().split(":")[0], _iis(report)) == ("per_dim cyclic 2", [1])
    checked = check.check_kernel(report.kernel, report.solution.bankings(), ports=1)
    assert [(loop.achieved_ii, loop.ok) for loop in checked.loops] == [(1, True)]


def test_a_pipelined_loop_bounded_by_cases_is_not_copied(tmp_path):
    """A loop outside a pipeline keeps one schedule: its bound stays a size."""
    text = BOUNDED.replace("oh < 16", "oh < 8*S").replace("out[16]", "out[16]")
    report = arraypart.analyze(write(tmp_path, "bounded.c", text), ports=1)
    assert [loop["name"] for loop in report.to_json()["loops"]] == ["L3"]


@needs_gxx
def test_a_loop_bounded_by_cases_builds_runs_and_traces(compiled_once, tmp_path):
    compiled = compiled_once("bounded.c", BOUNDED, ports=1)
    assert_the_testbench_passes(compiled, tmp_path)
    assert_the_trace_agrees(compiled, tmp_path, ports=1)


# S set by a switch on mode: the testbench must drive 16 and 32 (and a default value),
# not 0, 1, 2, which run the default arm only.
MODES = """\
void modes(int mode, const int in[64], int out[16]) {
  int S;
  switch (mode) {
  case 16: S = 1; break;
  case 32: S = 2; break;
  default: S = 4; break;
  }
  for (int oh = 0; oh < 13; oh++) {
#pragma HLS pipeline II=1
    int acc = 0;
    for (int kh = 0; kh < 4; kh++) {
#pragma HLS unroll
      acc += in[S*oh + kh];
    }
    out[oh] = acc;
  }
}
"""

EIGHT_ARMS = "".join(f"  case {m}: S = {m % 2 + 1}; break;\n" for m in range(8))
EIGHT = MODES.replace(
    "  case 16: S = 1; break;\n  case 32: S = 2; break;\n  default: S = 4; break;\n",
    EIGHT_ARMS + "  default: S = 4; break;\n")


# A relational test gives S its cases on either side of a boundary: the testbench
# drives both sides (3 and 4, 7 and 8), where 0, 1, 2 ran one side only.
BELOW = MODES.replace("  switch (mode) {\n  case 16: S = 1; break;\n  case 32: S = 2; break;\n"
                      "  default: S = 4; break;\n  }\n",
                      "  if (mode < 4) S = 1;\n  else S = 2;\n")
AT_LEAST = BELOW.replace("  int S;\n  if (mode < 4) S = 1;\n  else S = 2;\n",
                         "  int S = 8 <= mode ? 2 : 1;\n")
# A masked switch: each label lifted to a value of mode whose masked bits are it (16
# and 32 of mode & 0x30), and one that is no label (0, the default arm).
MASKED = MODES.replace("switch (mode)", "switch (mode & 0x30)")
MASKED_LOW = MODES.replace("switch (mode)", "switch ((mode >> 2) & 3)").replace(
    "case 16:", "case 1:").replace("case 32:", "case 3:")
# A relational ?: in a subscript, and a data-dependent if in the pipelined loop (both
# branches counted by the model): each side runs too.
CHOICE_BELOW = """\
void modes(int mode, const int in[68], int out[16]) {
  for (int i = 0; i < 16; i++) {
#pragma HLS pipeline II=1
    int acc = 0;
    for (int k = 0; k < 4; k++) {
#pragma HLS unroll
      acc += in[4*i + k + (mode < 4 ? 4 : 0)];
    }
    out[i] = acc;
  }
}
"""
BRANCH_BELOW = CHOICE_BELOW.replace(
    "      acc += in[4*i + k + (mode < 4 ? 4 : 0)];\n",
    "      if (mode < 8) acc += in[4*i + k];\n      else acc -= in[4*i + k];\n")


@needs_gxx
@pytest.mark.parametrize("text, values", [
    (MODES, (0, 16, 32)), (EIGHT, tuple(range(9))), (BELOW, (3, 4, 3)),
    (AT_LEAST, (7, 8, 7)), (MASKED, (0, 16, 32)), (MASKED_LOW, (0, 4, 12)),
    (CHOICE_BELOW, (3, 4, 3)), (BRANCH_BELOW, (7, 8, 7))],
    ids=["16-32", "0-7", "below", "at-least", "masked", "masked-shifted", "choice-below",
         "branch-below"])
def test_every_case_of_a_test_on_a_parameter_runs_in_the_testbench(tmp_path, text, values):
    compiled = arraypart.compile_kernel(write(tmp_path, "modes.c", text), ports=1)
    assert set(_iis(compiled.report)) == {1}
    tb = next(text for path, text in compiled.files.items() if path.endswith("_tb.cpp"))
    driven = " : ".join(f"call == {call} ? {value}" for call, value in enumerate(values[:-1], 1))
    assert f"const int kCalls = {len(values)};" in tb and f"({driven} : {values[-1]})" in tb
    assert_the_testbench_passes(compiled, tmp_path)
    assert_the_trace_agrees(compiled, tmp_path, ports=1)


# S passed to a helper that subscripts with it: in[4*S*oh + kh] is four neighbours in
# each case, each lane in one bank of cyclic 4 (no phase switch needed in the helper's
# text).  Without cases the helper's parameter was irregular: one memory, II 4.
CALLED = """\
static int window(const int in[128], int oh, int S) {
  int acc = 0;
  for (int kh = 0; kh < 4; kh++) {
#pragma HLS unroll
    acc += in[4*S*oh + kh];
  }
  return acc;
}

void called(int flag, const int in[128], int out[16]) {
  int S = flag ? 2 : 1;
  for (int oh = 0; oh < 15; oh++) {
#pragma HLS pipeline II=1
    out[oh] = window(in, oh, S);
  }
}
"""


def test_a_scalar_with_cases_passed_to_a_helper_keeps_them(compiled_once):
    report = compiled_once("called.c", CALLED, ports=1).report
    assert report.warnings == ()
    banking = array(report, "in").banking
    assert (banking.describe().split(":")[0], _iis(report)) == ("per_dim cyclic 4", [1])
    checked = check.check_kernel(report.kernel, report.solution.bankings(), ports=1)
    assert [(loop.achieved_ii, loop.ok) for loop in checked.loops] == [(1, True)]


def test_a_helper_called_with_a_value_each_lane_computes_has_no_cases(tmp_path):
    """The argument is no scalar with cases of one origin: the parameter stays
    irregular."""
    text = CALLED.replace("window(in, oh, S)", "window(in, oh, out[oh] ? 2 : 1)")
    report = arraypart.analyze(write(tmp_path, "called.c", text), ports=1)
    assert any("in[?]" in w for w in report.warnings)


@needs_gxx
def test_cases_passed_to_a_helper_build_run_and_trace(compiled_once, tmp_path):
    compiled = compiled_once("called.c", CALLED, ports=1)
    assert_the_testbench_passes(compiled, tmp_path)
    assert_the_trace_agrees(compiled, tmp_path, ports=1)


# S passed by a const reference the helper only reads: its argument's cases, as by
# value (the caller's S was taken as written by the call: no cases, in[?] in the helper,
# complete).
BY_REFERENCE = CALLED.replace("int oh, int S)", "int oh, const int &S)")


def test_a_scalar_with_cases_passed_by_const_reference_keeps_them(compiled_once):
    report = compiled_once("called.cpp", BY_REFERENCE, ports=1).report
    assert report.warnings == ()
    banking = array(report, "in").banking
    assert (banking.describe().split(":")[0], _iis(report)) == ("per_dim cyclic 4", [1])
    checked = check.check_kernel(report.kernel, report.solution.bankings(), ports=1)
    assert [(loop.achieved_ii, loop.ok) for loop in checked.loops] == [(1, True)]


@needs_gxx
def test_cases_passed_by_const_reference_build_run_and_trace(compiled_once, tmp_path):
    compiled = compiled_once("called.cpp", BY_REFERENCE, ports=1)
    assert_the_testbench_passes(compiled, tmp_path)
    assert_the_trace_agrees(compiled, tmp_path, ports=1)


# Cases the model does not follow are said so where a subscript reads them: through a
# pointer (the callee may write S) or a file-scope variable (no write of one is
# followed); the subscript is irregular, never one case.
BY_POINTER = CALLED.replace("int oh, int S)", "int oh, const int *S)").replace(
    "in[4*S*oh + kh]", "in[4*(*S)*oh + kh]").replace("window(in, oh, S)",
                                                      "window(in, oh, &S)")
FILE_SCOPE = CALLED.replace("static int window(const int in[128], int oh, int S)",
                            "static int S;\n\nstatic int window(const int in[128], int oh)"
                            ).replace("  int S = flag ? 2 : 1;\n",
                                      "  S = flag ? 2 : 1;\n").replace(
    "window(in, oh, S)", "window(in, oh)")


@pytest.mark.parametrize("text, why", [
    (BY_POINTER, "'S' points at 'S' (arraypart follows a scalar into a call by value or "
                 "by a const reference the callee only reads)"),
    (FILE_SCOPE, "'S' is a file-scope variable, whose values arraypart does not follow "
                 "(declare it in the top and pass it to the functions that read it) at "
                 "{tmp}/called.c:1:12")], ids=["pointer", "file-scope"])
def test_cases_the_model_does_not_follow_are_named_where_read(tmp_path, text, why):
    why = why.format(tmp=tmp_path)
    report = arraypart.analyze(write(tmp_path, "called.c", text), ports=1)
    assert any(why in w and "so this subscript is not affine" in w
               for w in report.warnings), report.warnings
    assert any("in[?]" in w for w in report.warnings)


# in[S*oh + kh] in a helper on the top's 64-word array: each case's lanes rotate over
# cyclic 4 in the helper's text, which no phase switch serves, so every memory banking
# keeps II 4 under the scheduling rule; registers (complete) reach II 1, as they did
# while the helper's S was irregular (one memory at II 4 once it kept its cases).
ROTATING = CALLED.replace("in[128]", "in[64]").replace("in[4*S*oh + kh]", "in[S*oh + kh]")


def test_lanes_no_phase_switch_serves_leave_registers_to_the_tops_array(compiled_once):
    report = compiled_once("called.c", ROTATING, ports=1).report
    assert report.warnings == ()
    banking = array(report, "in").banking
    assert (banking.describe().split(":")[0], _iis(report)) == ("per_dim complete", [1])
    checked = check.check_kernel(report.kernel, report.solution.bankings(), ports=1)
    assert [(loop.achieved_ii, loop.ok) for loop in checked.loops] == [(1, True)]


@needs_gxx
def test_registers_for_rotating_cases_build_run_and_trace(compiled_once, tmp_path):
    compiled = compiled_once("called.c", ROTATING, ports=1)
    assert_the_testbench_passes(compiled, tmp_path)
    assert_the_trace_agrees(compiled, tmp_path, ports=1)
