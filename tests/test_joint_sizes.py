"""Issue 13: run-time sizes bounded one at a time, checked together (poly/cover.py).

The sizes that nothing bounds are bounded by the arrays they index, one size at a time,
to a box of ranges; the calls that keep every reference inside its array need not form
a box (``buf[a + b]``).  Each test's kernel has calls outside the box whose accesses,
in a pipelined loop, differ from those of every call inside it: arraypart used to
claim a banking proven over the box only, which the checker, replaying the box's
banking at such a call, shows false.  Now a located error names the call; where the
calls outside make only accesses that the box makes, nothing changes; nor where each
cycle they make, array by array, makes the addresses of some cycle of the box (a window
read at a size offset)."""

from dataclasses import replace

import pytest

import arraypart
from arraypart import KernelError, check, ir
from arraypart.check import frames

from conftest import assert_the_trace_agrees, needs_gxx, write

# a + b <= 15 (buf[a + b]) is a triangle: one size at a time gives a in 0..14, b in
# 0..1, and the branch b > 2, two reads of a single-port memory, runs at a = 0, b = 3.
TRIANGLE = """\
#include <assert.h>
void tri(unsigned a, unsigned b, const int in[16], int out[16]) {
  int buf[16];
#pragma HLS bind_storage variable=buf type=ram_1p
%s  for (int i = 0; i < 16; i++) buf[i] = in[i];
  out[0] = buf[a + b];
  for (int i = 0; i < 4; i++) {
#pragma HLS pipeline II=1
    if (b > 2) out[i] = buf[i] + buf[i + 4];
    else out[i] = buf[i];
  }
}
"""

# The brief's window, partly inside the box: a in -20..42, b in 0..1 run the guard
# a > 10 && b < 1 at b = 0 with two reads, but b < -3 (a + b + 20 inside buf) adds a
# third, which the box's banking (block 4: 16 words a bank) puts in the bank of buf[i].
WINDOW = """\
#include <assert.h>
void win(int a, int b, const int in[64], int out[64]) {
  int buf[64];
#pragma HLS bind_storage variable=buf type=ram_1p
%s  for (int i = 0; i < 64; i++) buf[i] = in[i];
  out[0] = buf[a + b + 20];
  for (int i = 0; i < 16; i++) {
#pragma HLS pipeline II=1
    if (a > 10 && b < 1) {
      int t = buf[i] + buf[i + 16];
      if (b < -3) t += buf[i + 8];
      out[i] = t;
    } else out[i] = buf[i];
  }
}
"""


def _at(kernel, point: dict[str, int]):
    """``kernel`` with each size held at its value in ``point``: the checker then
    replays that call only."""
    return replace(kernel, params=tuple(replace(p, low=point[p.name], high=point[p.name])
                                        for p in kernel.params))


@pytest.mark.parametrize("text, box, place, point, advice", [
    (TRIANGLE, "  assert(a <= 14 && b <= 1);\n", "9:25", {"a": 0, "b": 3}, "b <= <largest>"),
    (WINDOW, "  assert(a >= -20 && a <= 42 && b >= 0 && b <= 1);\n", "11:24",
     {"a": 11, "b": -4}, "b >= <least>"),
], ids=["triangle", "window partly inside"])
def test_a_call_outside_the_box_whose_accesses_differ_is_a_located_error(
        tmp_path, text, box, place, point, advice):
    """The error is at the access that the box never makes, and names the nearest
    call that makes it.  The banking the box proves (the same kernel with an assert
    that states the box) is one the checker, at that call, finds a conflict in: the
    claim the error replaces was false there."""
    path = write(tmp_path, "k.c", text % "")
    with pytest.raises(KernelError) as caught:
        arraypart.analyze(path)
    at = ", ".join(f"{name} = {value}" for name, value in point.items())
    assert str(caught.value).startswith(f"{path}:{place}: error: at {at}, a call in which "
                                        "every reference stays inside its array, loop L7 "
                                        "makes this access to buf, which no call in the ranges"), \
        str(caught.value)
    assert str(caught.value).endswith(
        f"state the range of each size the kernel takes (an assert such as assert({advice}), "
        "-D ARRAYPART_MAX_<size>=, or a guard that returns)")
    boxed = arraypart.analyze(write(tmp_path, "boxed.c", text % box), ports=1)
    bankings = boxed.solution.bankings()
    inside = check.check_kernel(boxed.kernel, bankings, ports=1)
    assert [loop.achieved_ii for loop in inside.loops] == [1, 1]
    outside = check.check_kernel(_at(boxed.kernel, point), bankings, ports=1)
    conflict = outside.loops[1].first_conflict
    assert outside.loops[1].achieved_ii == 2 and conflict.array == "buf", outside.loops


def test_a_transfer_of_an_off_chip_bundle_outside_the_box_is_a_located_error(tmp_path):
    """An m_axi bundle counts transfers whatever their addresses: the branch b > 2
    reads p twice an iteration (II 2 on one bundle) at a = 0, b = 3, which the box
    (a in 0..14, b in 0..1) never runs; it was claimed at II 1."""
    path = write(tmp_path, "maxi.c", TRIANGLE.replace(
        "const int in[16]", "const int *p").replace(
        "#pragma HLS bind_storage variable=buf type=ram_1p\n",
        "#pragma HLS interface m_axi port=p bundle=gmem\n").replace(
        "buf[i] = in[i]", "buf[i] = i").replace(
        "buf[i] + buf[i + 4]", "p[i] + p[i + 4]").replace(
        "else out[i] = buf[i]", "else out[i] = p[i]") % "")
    with pytest.raises(KernelError) as caught:
        arraypart.analyze(path)
    assert str(caught.value).startswith(f"{path}:9:25: error: at a = 0, b = 3, a call in "
                                        "which every reference stays inside its array, "
                                        "loop L7 makes this access to p, which"), \
        str(caught.value)


def test_calls_outside_the_box_that_make_the_boxs_accesses_change_nothing(tmp_path):
    """Without the third read, a call outside the box (a = 11, b = -4) makes the
    accesses its clamp into the box (a = 11, b = 0) makes: no error, and the banking
    of the two reads is the one the box proves."""
    two = WINDOW.replace("      if (b < -3) t += buf[i + 8];\n", "")
    report = arraypart.analyze(write(tmp_path, "two.c", two % ""), ports=1)
    assert [(p.name, p.low, p.high) for p in report.kernel.params] == [
        ("a", -20, 42), ("b", 0, 1)]
    bankings = report.solution.bankings()
    boxed = arraypart.analyze(write(tmp_path, "boxed.c", two % (
        "  assert(a >= -20 && a <= 42 && b >= 0 && b <= 1);\n")), ports=1)
    assert bankings["buf"] == boxed.solution.bankings()["buf"]
    assert bankings["buf"].scheme.banks > 1  # the two reads, on a single-port memory
    outside = check.check_kernel(_at(report.kernel, {"a": 11, "b": -4}), bankings, ports=1)
    assert [loop.achieved_ii for loop in outside.loops] == [1, 1]
    assert all(loop.first_conflict is None for loop in outside.loops)


def test_the_checker_replays_the_probe_points_not_their_product_with_the_usual_values():
    """Three sizes with two probes each: every combination of the least, middle and
    largest values (27) and the two probe points, 29 points, where each probe's
    values combined with every value of the others made (3 + 2)^3 = 125."""
    at = ir.Coord("k.c", 1, 1)
    params = (ir.Param("a", 0, 10, at, None, probes=(3, 7)),
              ir.Param("b", -4, 4, at, None, probes=(1, -3)),
              ir.Param("c", 0, 2, at, None, probes=(2, 0)))
    points = frames.checked_points(params)
    assert points.shape == (29, 3)
    assert {tuple(row) for row in points} >= {(3, 1, 2), (7, -3, 0), (0, -4, 0), (10, 4, 2)}
    assert [tuple(row) for row in points] == sorted(tuple(row) for row in points)
    assert frames.top_frame(params).rows == 29
    assert frames.checked_points(()).shape == (1, 0)


# off + n <= 63 is a triangle again: one size at a time, off in 0..62 and n in 0..1.
# At off = 0, n = 2 the clamp (0, 1) drops iteration 1, whose reads buf[1], buf[2] are
# those of the box's call off = 1, n = 1; out[i] is one access a cycle.
SLIDING = """\
%svoid k(const int in[64], int out[64], int off, int n) {
  int buf[64];
%s  for (int i = 0; i < 64; i++) buf[i] = in[i];
  for (int i = 0; i < n; i++) {
#pragma HLS pipeline II=1
%s  }
}
"""
PAIR = "    out[i] = buf[off + i] + buf[off + i + 1];\n"
LANES = ("    int t = 0;\n    for (int k = 0; k < 2; k++) t += buf[off + i + k];\n"
         "    out[i] = t;\n")
STATED = ("#include <assert.h>\n",
          "  assert(off >= 0 && off <= 31 && n >= 0 && n <= 32);\n")


@pytest.mark.parametrize("body", [PAIR, LANES], ids=["two reads", "unrolled lanes"])
def test_a_window_at_a_size_offset_is_covered_cycle_by_cycle(tmp_path, body):
    """Each cycle's pair of reads of buf, at any call that keeps them inside, is the
    pair of a call in the box: no error, the banking and II of the kernel whose assert
    states a box holding longer runs, and the checker, replaying that banking at a
    call far outside the box (off = 0, n = 32), finds it free of conflicts at II 1."""
    report = arraypart.analyze(write(tmp_path, "k.c", SLIDING % ("", "", body)), ports=1)
    assert [(p.name, p.low, p.high) for p in report.kernel.params] == [
        ("off", 0, 62), ("n", 0, 1)]
    stated = arraypart.analyze(write(tmp_path, "s.c", SLIDING % (*STATED, body)), ports=1)
    bankings = report.solution.bankings()
    assert bankings["buf"] == stated.solution.bankings()["buf"]
    assert bankings["buf"].scheme.banks == 2  # the two reads, on a single-port memory
    assert [(loop.target_ii, loop.achieved_ii) for loop in report.scheduled.loops] == [
        (loop.target_ii, loop.achieved_ii) for loop in stated.scheduled.loops] == [(1, 1)] * 2
    outside = check.check_kernel(_at(report.kernel, {"off": 0, "n": 32}), bankings, ports=1)
    assert [loop.achieved_ii for loop in outside.loops] == [1, 1]
    assert all(loop.first_conflict is None for loop in outside.loops)


@needs_gxx
def test_the_trace_of_the_window_at_a_size_offset_agrees(compiled_once, tmp_path):
    """check --trace runs the original on the box's calls and finds the accesses and
    the II the model claims."""
    compiled = compiled_once("k.c", SLIDING % ("", "", PAIR), ports=1)
    assert_the_trace_agrees(compiled, tmp_path, ports=1)


def test_a_cycle_whose_tuple_no_call_in_the_box_makes_is_still_an_error(tmp_path):
    """buf[off + i] beside buf[2 * i]: at off = 0, n = 2 iteration 1 reads (1, 2), a
    pair that no call of the box (n <= 1: i = 0 only, pairs (off, 0)) reads in one
    cycle, nor any pair one address apart in that order, whatever the banking.
    (Beside buf[i] it read (1, 1), one read, as the box's (0, 0): that is covered.)"""
    path = write(tmp_path, "k.c", SLIDING % ("", "", PAIR.replace("off + i + 1", "2 * i")))
    with pytest.raises(KernelError) as caught:
        arraypart.analyze(path)
    assert str(caught.value).startswith(f"{path}:6:14: error: at off = 0, n = 2, a call "), \
        str(caught.value)


# Two writes a cycle to an interface array, at 2*i and 2*i + 1 (k unrolled): in[off + i]
# bounds off + n <= 64, so one size at a time gives off in 0..63, n in 0..1, and the
# box makes the pair (0, 1) only; a call with n > 1 makes (2, 3), (4, 5), .., which
# cyclic 2 puts in banks (0, 1) as it does (0, 1).
UNROLLED = """\
void k(const int in[64], int out[64], int off, int n) {
  for (int i = 0; i < n; i++) {
#pragma HLS pipeline II=1
    for (int k = 0; k < 2; k++) {
#pragma HLS unroll
      %s = in[off + i];
    }
  }
}
"""


@pytest.mark.parametrize("pipeline", ["II=1", "off"], ids=["pipelined", "unrolled alone"])
def test_unrolled_writes_outside_the_box_are_covered_by_their_banks(tmp_path, pipeline):
    """The pairs of writes that calls outside the box make are no pair the box makes,
    but under the banking found they take the banks of the box's pair, one address
    apart: no error, and the checker, replaying that banking far outside the box
    (off = 0, n = 32; off = 10, n = 20), finds it free of conflicts at II 1.  So too
    where the loop around is not pipelined: the unrolled loop's lanes are the cycle."""
    text = (UNROLLED % "out[2*i + k]").replace("pipeline II=1", f"pipeline {pipeline}")
    report = arraypart.analyze(write(tmp_path, "k.c", text), ports=1)
    assert [(p.name, p.low, p.high) for p in report.kernel.params] == [
        ("off", 0, 63), ("n", 0, 1)]
    bankings = report.solution.bankings()
    assert bankings["out"].scheme.banks == 2  # two writes, on a single-port memory
    assert [loop.achieved_ii for loop in report.scheduled.loops] == [1]
    for point in ({"off": 0, "n": 32}, {"off": 10, "n": 20}):
        outside = check.check_kernel(_at(report.kernel, point), bankings, ports=1)
        assert [(loop.achieved_ii, loop.first_conflict) for loop in outside.loops] == [
            (1, None)], point


# out[i] beside out[2*i + 1]: the box (off in 0..63, n in 0..1) writes (0, 1).
SPREAD = """\
%svoid k(const int in[64], int out[64], int off, int n) {
%s  for (int i = 0; i < n; i++) {
#pragma HLS pipeline II=1
    out[i] = in[off + i];
    out[2*i + 1] = in[off + i];
  }
}
"""


def test_writes_whose_banks_outside_the_box_conflict_are_still_an_error(tmp_path):
    """At off = 0, n = 2 iteration 1 writes (1, 3), addresses 2 apart, which no cycle
    of the box (one address apart) makes, and one bank under the cyclic 2 the box
    needs: the located error, after the search.  The box's banking (the kernel whose
    assert states the box) conflicts there."""
    path = write(tmp_path, "k.c", SPREAD % ("", ""))
    with pytest.raises(KernelError) as caught:
        arraypart.analyze(path, ports=1)
    assert str(caught.value).startswith(f"{path}:4:5: error: at off = 0, n = 2, a call "
                                        "in which every reference stays inside its array, "
                                        "loop L2 makes this access to out"), str(caught.value)
    boxed = arraypart.analyze(write(tmp_path, "boxed.c", SPREAD % (
        "#include <assert.h>\n", "  assert(off <= 63 && n <= 1);\n")), ports=1)
    bankings = boxed.solution.bankings()
    assert bankings["out"].scheme.banks == 2
    outside = check.check_kernel(_at(boxed.kernel, {"off": 0, "n": 2}), bankings, ports=1)
    assert outside.loops[0].achieved_ii == 2 and outside.loops[0].first_conflict.array == "out"


# buf[off + i + 1] written, buf[off + i] read: the box (off in 0..62, n in 0..1) runs one
# iteration, and every cycle's pair (x + 1, x) is one the box makes; from n = 2 on the
# next iteration reads what the one before wrote.
CARRIED = """\
%svoid k(const int in[64], int out[64], int off, int n) {
  int buf[64];
%s  for (int i = 0; i < 64; i++) buf[i] = in[i];
  for (int i = 0; i < n; i++) {
#pragma HLS pipeline II=1
%s  }
  for (int i = 0; i < 64; i++) out[i] = buf[i];
}
"""
FORWARD = "    buf[off + i + 1] = buf[off + i] + 1;\n"


def test_a_recurrence_only_outside_the_box_is_a_located_warning(tmp_path):
    """The model finds the recurrences of the box's calls only: this one, made at
    every call with n >= 2, is warned of at the read, with the nearest such call."""
    path = write(tmp_path, "k.c", CARRIED % ("", "", FORWARD))
    report = arraypart.analyze(path)
    assert [(p.name, p.low, p.high) for p in report.kernel.params] == [
        ("off", 0, 62), ("n", 0, 1)]
    carried = [w for w in report.warnings if "recurrence" in w]
    assert carried == [
        f"{path}:6:24: warning: loop L4: at off = 0, n = 2, a call outside the ranges "
        "arraypart found for the run-time sizes, buf is read here at the element that the "
        "previous iteration writes at 6:5 (a recurrence through memory, which no call in "
        "the ranges makes): the HLS tool issues the read after that write, so the II may "
        "exceed the one the ports allow there, whatever the banking; state the range of "
        "each size the kernel takes if it never takes such calls"]


@pytest.mark.parametrize("stated, body, expected", [
    (STATED, FORWARD, "previous iteration writes at 8:5 (a recurrence through memory): "),
    (("", ""), "    buf[off + i] = buf[off + i + 1] + 1;\n", None),
], ids=["in the box", "none"])
def test_a_recurrence_the_box_makes_or_none_is_not_warned_of_as_outside(
        tmp_path, stated, body, expected):
    """An assert stating a box of longer runs (n up to 32) puts the recurrence in the
    box: the model's own warning, once.  A read of buf[off + i + 1] beside a write of
    buf[off + i] reads what the next iteration, not the one before, writes: no
    warning at any call."""
    report = arraypart.analyze(write(tmp_path, "k.c", CARRIED % (*stated, body)))
    carried = [w for w in report.warnings if "recurrence" in w]
    assert [expected in w for w in carried] == ([True] if expected else []), carried


def test_accesses_outside_pipelined_and_unrolled_loops_carry_no_claim_to_check(tmp_path):
    """The triangle's branch b > 2 in a loop that is not pipelined (nor one of its
    statements outside loops): no cycle group holds its accesses (DESIGN §2: only a
    pipeline's iteration and an unrolled loop's lanes share cycles), so the report
    claims no II and no ports for it, at any call, and the calls outside the box need
    no check (poly/cover.py, module doc)."""
    text = TRIANGLE.replace("#pragma HLS pipeline II=1", "#pragma HLS pipeline off")
    report = arraypart.analyze(write(tmp_path, "k.c", text % ""), ports=1)
    assert [(p.name, p.low, p.high) for p in report.kernel.params] == [
        ("a", 0, 14), ("b", 0, 1)]
    assert [loop.name for loop in report.model.loops] == ["L5"]  # the copy loop only
    assert report.kernel.uncovered == report.kernel.outside_recurrences == ()
