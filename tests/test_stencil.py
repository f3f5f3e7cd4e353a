"""``#pragma HLS array_stencil``: Vitis reads the array through a window buffer, one
element per pipeline iteration, where its canonical form holds (UG1399); arraypart
models the window there and counts the reads as written, with a located warning, where
it does not (:mod:`arraypart.frontend.stencil`).  Kernels in the style of Vitis HLS's
own examples (``Modeling/using_array_stencil_1d`` and ``_2d``)."""

from textwrap import dedent

import pytest

import arraypart
from arraypart import check

from conftest import assert_the_testbench_passes, assert_the_trace_agrees, needs_gxx

# A 1 x 3 window over rows (using_array_stencil_1d), its array on single-port block RAM:
# three reads of `in` per iteration would need II 3 in one memory.
ROW_WINDOW = """
void blur(float in[20][20], float out[16][18]) {
%(declarations)s
#pragma HLS bind_storage variable=in type=ram_1p
  for (int i = 0; i < 16; i++) {
    for (int j = 0; j < 18; j++) {
#pragma HLS pipeline II=%(ii)s
#pragma HLS array_stencil variable=%(variable)s
      out[i][j] = %(reads)s;
    }
  }
}
"""
READS = "in[i][j] + in[i][j + 1] + in[i][j + 2]"

# A 3 x 3 window clamped at the image's edges (using_array_stencil_2d): every read under
# an affine if, the window's lanes two unrolled loops inside the pipelined one.
CLAMPED_WINDOW = """
void filter(const unsigned char src[12][16], const char coeffs[3][3], int dst[12][16]) {
#pragma HLS interface mode=m_axi port=src bundle=gmem
#pragma HLS interface mode=m_axi port=dst bundle=gmem
  for (int y = 0; y < 12; ++y) {
    for (int x = 0; x < 16; ++x) {
#pragma HLS pipeline II=1
#pragma HLS array_stencil variable=src
      int sum = 0;
      for (int row = 0; row < 3; row++) {
        for (int col = 0; col < 3; col++) {
          int xo = x + col - 1;
          int yo = y + row - 1;
          unsigned char pixel;
          if (xo < 0 || xo >= 16 || yo < 0 || yo >= 12)
            pixel = 0;
          else
            pixel = src[yo][xo];
          sum += pixel * coeffs[row][col];
        }
      }
      dst[y][x] = sum;
    }
  }
}
"""


def row_window(tmp_path, **changes):
    fields = {"declarations": "", "ii": "1", "variable": "in", "reads": READS, **changes}
    path = tmp_path / "blur.c"
    path.write_text(dedent(ROW_WINDOW % fields))
    return arraypart.compile_kernel(path)


def array_of(compiled, name):
    return next(a for a in compiled.report.solution.arrays if a.array.name == name)


def checked_iis(compiled):
    """Each loop's II under the independent checker (the ideal port model)."""
    report = compiled.report
    result = check.check_kernel(report.kernel, report.solution.bankings(), ports=2)
    return {loop.name: loop.achieved_ii for loop in result.loops}


def test_a_window_costs_its_array_one_read_per_iteration(tmp_path):
    """Three reads of one single-port memory in one cycle: II 1 through the window,
    which the checker confirms, the array kept whole (a partition would drop the
    window) and named as the stencil's."""
    compiled = row_window(tmp_path)
    window = array_of(compiled, "in")
    assert window.array.stencil == "L6" and not window.array.partitionable
    assert (window.banking.scheme.banks, window.conflict_free) == (1, True)
    assert checked_iis(compiled) == {"L6": 1}
    assert compiled.report.loop_achieved_ii(0, "L6", 1) == 1
    assert not any("array_stencil" in w for w in compiled.report.model.warnings)


def test_without_the_pragma_the_reads_count_as_written(tmp_path):
    """The same loop, its pragma off: three reads, the array banked to reach II 1."""
    compiled = row_window(tmp_path, variable="in off")
    window = array_of(compiled, "in")
    assert window.array.stencil is None and window.banking.scheme.banks == 3
    assert window.max_concurrent == 3


@pytest.mark.parametrize("changes, reason", [
    ({"ii": "2"}, "loop L6 is not pipelined at II 1"),
    ({"declarations": "#pragma HLS array_partition variable=in type=cyclic factor=3 dim=2"},
     "in is partitioned or reshaped, and Vitis then ignores the stencil"),
    ({"declarations": "#pragma HLS array_reshape variable=in type=cyclic factor=3 dim=2"},
     "in is partitioned or reshaped"),
    ({"reads": "in[i][j] + in[i][j + 1] + (in[i][j + 2] = 0)"}, "loop L6 writes in"),
    ({"reads": "in[i][j] + in[j][i]"}, "is not in one window with the read at"),
    ({"reads": "in[i][j / 2] + in[i][j / 2 + 1]"}, "is not affine"),
    ({"reads": "in[j][i] + in[j + 1][i]"}, "reads are not continuous"),
    ({"declarations": "float tmp[20][20] = {0};", "variable": "tmp",
      "reads": "tmp[i][j] + in[i][j]"}, "'tmp' is not an array argument of the top function"),
])
def test_a_pragma_outside_the_canonical_form_is_named_and_not_modelled(tmp_path, changes,
                                                                       reason):
    """Vitis applies array_stencil only to its canonical form: elsewhere the warning,
    at the pragma, says which rule fails, and every read counts."""
    compiled = row_window(tmp_path, **changes)
    warned = [w for w in compiled.report.model.warnings if "array_stencil on" in w]
    assert len(warned) == 1 and reason in warned[0] and "blur.c:8:" in warned[0], warned
    assert all(a.array.stencil is None for a in compiled.report.solution.arrays)


def test_an_imperfect_nest_is_not_modelled(tmp_path):
    source = dedent(ROW_WINDOW % {"declarations": "", "ii": "1", "variable": "in",
                                  "reads": READS})
    source = source.replace("  for (int i = 0; i < 16; i++) {\n",
                            "  for (int i = 0; i < 16; i++) {\n    out[i][0] = 0;\n")
    path = tmp_path / "blur.c"
    path.write_text(source)
    warned = [w for w in arraypart.compile_kernel(path).report.model.warnings
              if "array_stencil on" in w]
    assert len(warned) == 1 and "its loop nest is not perfect" in warned[0], warned


def test_a_clamped_two_dimensional_window_keeps_its_bundle_at_ii_1(tmp_path):
    """Nine reads of an m_axi array under the edge tests: one read of the bundle per
    iteration (the write of dst has the bundle's write channel)."""
    path = tmp_path / "filter.c"
    path.write_text(dedent(CLAMPED_WINDOW))
    compiled = arraypart.compile_kernel(path)
    loop = next(m for m in compiled.report.model.loops if m.name == "L6")
    assert loop.bundle_ii == 1 and array_of(compiled, "src").array.stencil == "L6"
    assert checked_iis(compiled)["L6"] == 1


@needs_gxx
@pytest.mark.parametrize("kernel", ["row", "clamped"])
def test_a_window_builds_runs_and_the_trace_agrees(tmp_path, kernel):
    """The emitted kernel computes what the original does, and the compiled original's
    recorded run, replayed, reads each window's array once per step (its addresses are
    named as not compared)."""
    if kernel == "row":
        compiled = row_window(tmp_path)
    else:
        path = tmp_path / "filter.c"
        path.write_text(dedent(CLAMPED_WINDOW))
        compiled = arraypart.compile_kernel(path)
    assert_the_testbench_passes(compiled, tmp_path)
    (tmp_path / "trace").mkdir()
    judged = assert_the_trace_agrees(compiled, tmp_path / "trace", ports=2)
    assert "come from its array_stencil window" in judged.format()


def test_a_window_over_a_flattened_pointer_is_one_read(tmp_path):
    """``in[i * 100 + j + q]`` on an m_axi pointer: one dimension, whose linear part
    (i * 100 + j) is the same in each read and steps by 1 with the pipelined j."""
    path = tmp_path / "rows.cpp"
    path.write_text(dedent("""
    void rows(float *in, float out[20][20]) {
      for (int i = 0; i < 20; i++) {
        for (int j = 0; j < 16; j++) {
    #pragma HLS pipeline II=1
    #pragma HLS array_stencil variable=in
          float tmp = 0.0;
          for (int q = 0; q < 5; q++)
            tmp += in[i * 20 + j + q];
          out[i][j] = tmp;
        }
      }
    }"""))
    compiled = arraypart.compile_kernel(path)
    assert array_of(compiled, "in").array.stencil == "L4"
    assert compiled.report.model.loops[0].bundle_ii == 1 and checked_iis(compiled) == {"L4": 1}


def test_a_pragma_outside_a_loop_body_is_named(tmp_path):
    """Vitis ignores array_stencil at a function's top: the warning says so."""
    compiled = row_window(tmp_path, declarations="#pragma HLS array_stencil variable=in",
                          variable="in off")
    warned = [w for w in compiled.report.model.warnings if "array_stencil" in w]
    assert len(warned) == 1 and "blur.c:3:1: warning: array_stencil stands outside a loop" \
        in warned[0], warned


def test_a_window_read_through_pointer_arithmetic_is_one_read(tmp_path):
    """``*(in + i * 20 + j)`` is a read of the loop's own text: its reference numbers
    after the top's subscripts, as an inlined callee's do, and must not be taken for
    one (calls are found in the loop's text instead)."""
    path = tmp_path / "deref.c"
    path.write_text(dedent("""
    void deref(float *in, float out[16][16]) {
    #pragma HLS interface m_axi port=in depth=400
      for (int i = 0; i < 16; i++)
        for (int j = 0; j < 16; j++) {
    #pragma HLS pipeline II=1
    #pragma HLS array_stencil variable=in
          out[i][j] = *(in + i * 20 + j) + *(in + i * 20 + j + 1);
        }
    }"""))
    compiled = arraypart.compile_kernel(path)
    assert array_of(compiled, "in").array.stencil == "L5"
    assert compiled.report.model.loops[0].bundle_ii == 1


def test_an_array_passed_to_a_call_in_the_loop_is_no_window(tmp_path):
    """A callee that takes the array may access it in any order: no window (the first
    version let it through, its reads numbered like the top's)."""
    path = tmp_path / "passed.c"
    path.write_text(dedent("""
    float get(float *p, int k) { return p[k]; }
    void passed(float in[400], float out[16][16]) {
      for (int i = 0; i < 16; i++)
        for (int j = 0; j < 16; j++) {
    #pragma HLS pipeline II=1
    #pragma HLS array_stencil variable=in
          out[i][j] = get(in, i * 20 + j) + in[i * 20 + j + 1];
        }
    }"""))
    report = arraypart.analyze(path, top="passed")
    warned = [w for w in report.warnings if "array_stencil on in" in w]
    assert len(warned) == 1 and "a function called in loop L5 takes in" in warned[0]
