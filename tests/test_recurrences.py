"""Recurrences through memory (poly/recurrences.py): an element that one pipeline
iteration writes and the next reads is reported, located, next to the II the ports
allow; a window refilled before it is read is not, nor an array of registers."""

import arraypart
from arraypart import frontend
from arraypart.poly import build_model
from arraypart.poly.recurrences import recurrence_warning


def _warnings(text: str) -> list[str]:
    kernel = frontend.parse_source(text, "k.c")
    return [recurrence_warning(r) for r in build_model(kernel).recurrences]


def test_a_read_of_the_previous_iterations_write_is_a_recurrence():
    """nw's fill_in in small: m[i] from m[i - 1], written the iteration before."""
    found = _warnings("""\
void k(const int x[64], int out[64]) {
  int m[64];
  m[0] = 0;
  for (int i = 1; i < 64; i++) {
#pragma HLS pipeline II=1
    int left = m[i - 1] + 1;
    m[i] = left > x[i] ? left : x[i];
  }
  for (int i = 0; i < 64; i++) out[i] = m[i];
}
""")
    assert len(found) == 1
    assert found[0].startswith("k.c:6:16: warning: loop L4: m is read here at the element "
                               "that the previous iteration writes at 7:5")


SHIFT = """\
void k(const int x[64], int out[64]) {
  int sr[16] = {0};
  for (int n = 0; n < 64; n++) {
    for (int %s) {
#pragma HLS pipeline II=1
      sr[i] = sr[i %s 1]%s;
    }
    sr[0] = x[n];
    out[n] = sr[15];
  }
}
"""


def test_the_next_iteration_of_a_loop_that_counts_down_is_the_smaller_index():
    """A shift register: counting down, each iteration reads what no iteration has
    written yet (no recurrence); counting up, it reads what the one before wrote.  The
    next iteration was taken as the next larger index whatever the step, so the first
    was warned of and the second was not."""
    down = ("i = 15; i > 0; i--", "-", "")
    up = ("i = 1; i < 16; i++", "-", "")
    up_from_above = ("i = 0; i < 15; i++", "+", " * 3")
    down_from_above = ("i = 14; i >= 0; i--", "+", " * 3")
    assert _warnings(SHIFT % down) == _warnings(SHIFT % up_from_above) == []
    for case in (up, down_from_above):
        found = _warnings(SHIFT % case)
        assert len(found) == 1 and found[0].startswith("k.c:6:15: warning: loop L4")


def test_an_accumulator_in_memory_is_a_recurrence():
    found = _warnings("""\
void k(const int x[64], int out[1]) {
  int acc[1] = {0};
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    acc[0] += x[i];
  }
  out[0] = acc[0];
}
""")
    assert [w.split(": warning: ")[0] for w in found] == ["k.c:5:5"]


def test_a_window_refilled_before_it_is_read_is_no_recurrence():
    """Every element of win read in an iteration was written earlier in that same
    iteration: the previous iteration's values are never read."""
    assert _warnings("""\
void k(const int x[66], int out[64]) {
  int win[3];
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    for (int d = 0; d < 3; d++) win[d] = x[i + d];
    out[i] = win[0] + win[1] + win[2];
  }
}
""") == []


def test_the_previous_rows_elements_are_no_recurrence():
    """a[i - 1][j] was written a whole row of iterations before, not the previous one."""
    assert _warnings("""\
void k(int a[8][8]) {
  for (int i = 1; i < 8; i++)
    for (int j = 0; j < 8; j++) {
#pragma HLS pipeline II=1
      a[i][j] = a[i - 1][j] + 1;
    }
}
""") == []


ACCUMULATE_ROWS = """\
void k(const int x[8][64], int out[8]) {
  int acc[8];
%s
  for (int r = 0; r < 8; r++) acc[r] = 0;
  for (int r = 0; r < 8; r++)
    for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
      acc[r] += x[r][i];
    }
  for (int r = 0; r < 8; r++) out[r] = acc[r];
}
"""


def test_the_report_warns_of_recurrences_through_memories_not_registers(tmp_path):
    """An accumulator in memory updated every cycle: each read waits for the previous
    iteration's write; partitioned completely (registers), it does not, and the
    report says nothing."""
    path = tmp_path / "k.c"
    path.write_text(ACCUMULATE_ROWS % "")
    report = arraypart.analyze(path)
    acc = next(a for a in report.solution.arrays if a.array.name == "acc")
    assert not acc.banking.scheme.registers
    assert [w.split(": warning: ")[0] for w in report.warnings
            if "recurrence through memory" in w] == [f"{path}:8:7"]
    path.write_text(ACCUMULATE_ROWS % "#pragma HLS array_partition variable=acc complete")
    report = arraypart.analyze(path)
    assert next(a for a in report.solution.arrays
                if a.array.name == "acc").banking.scheme.registers
    assert not any("recurrence through memory" in w for w in report.warnings)


HISTOGRAM = """\
void k(const int feature[256], const int weight[256], int out[64]) {
  int hist[64];
  for (int b = 0; b < 64; b++) hist[b] = 0;
  for (int i = 0; i < 256; i++) {
#pragma HLS pipeline II=1
%s
    int m = feature[i] & 63;
    hist[m] = hist[m] + weight[i];
  }
  for (int b = 0; b < 64; b++) out[b] = hist[b];
}
"""


def test_a_read_and_write_at_indices_the_data_choose_may_be_a_recurrence():
    """The histogram: iteration i + 1 may read the bin iteration i writes; the HLS tool
    cannot tell, so it orders them (II 2 in Vitis unless told otherwise). arraypart
    said nothing: the pair was left out as irregular."""
    (found,) = _warnings(HISTOGRAM % "")
    assert found.startswith("k.c:8:15: warning: loop L4: hist is read here and written "
                            "at 8:5, one of them at an index arraypart does not follow")
    assert "dependence variable=hist type=inter dependent=false" in found


def test_a_dependence_pragma_says_the_bins_never_meet():
    for pragma in ("#pragma HLS dependence variable=hist inter false",
                   "#pragma HLS dependence variable=hist type=inter dependent=false"):
        assert _warnings(HISTOGRAM % pragma) == [], pragma
    assert len(_warnings(HISTOGRAM % "#pragma HLS dependence variable=hist intra false")) == 1
