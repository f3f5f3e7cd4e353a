"""Issue 11: loops the front end cannot count exactly, modelled by a superset.

A loop start or bound that is not affine becomes a fresh size (frontend.fresh), ranged by
interval arithmetic, LOOP_TRIPCOUNT or the arrays it indexes; the proof holds for every
value in the range and the checker replays some of them.  Each test is a tiny kernel:
the ranges, the banking, the checker, and that a real conflict is still reported."""

import pytest

import arraypart
from arraypart import KernelError, check, ir
from arraypart import expr as E

from conftest import array, searched, write


def checked(report, bankings=None):
    return check.check_kernel(report.kernel, bankings or report.solution.bankings(), ports=1)


# A scalar with two values (a chunk cut short at the end) bounds two inner loops.
CHUNKS = """void chunks(const int a[256], int out[256], int size) {
  int buf[16];
  for (int i = 0; i < size; i += 16) {
#pragma HLS LOOP_TRIPCOUNT max=16
    int len = 16;
    if (i + 16 > size) len = size - i;
    for (int j = 0; j < len; j++) {
#pragma HLS pipeline II=1
      buf[j] = a[i + j];
    }
    for (int j = 0; j < len; j++) {
#pragma HLS pipeline II=1
      out[i + j] = buf[j] + buf[(j + 1) % 16];
    }
  }
}
"""


def test_a_scalar_with_two_values_bounds_its_loops_as_a_fresh_size(tmp_path):
    report = arraypart.analyze(write(tmp_path, "chunks.c", CHUNKS), ports=1)
    params = report.to_json()["params"]
    assert params["len@7:25"]["range"] == [0, 16]  # buf[j] stays inside buf[16]
    assert params["len@11:25"]["range"] == [0, 16]
    buf = array(report, "buf")
    assert buf.conflict_free and buf.banking.scheme.banks * buf.banking.copies == 2
    result = checked(report)
    assert all(l.first_conflict is None and l.achieved_ii == 1 for l in result.loops)
    # one memory cannot serve two reads a cycle with one port: the checker sees it
    one = check.check_kernel(report.kernel, check.as_written_bankings(report.kernel),
                             ports=1)
    assert one.loops[1].achieved_ii == 2 and one.loops[1].first_conflict is not None


# The odd-even sort of Vitis' median filter tutorial: k is 0 or 1 on two paths.
ODD_EVEN = """#define N 9
void oddeven(const int in[N], int out[N]) {
  int z[N];
  TYPE i, k, stage;
  for (i = 0; i < N; i++) z[i] = in[i];
  for (stage = 1; stage <= N; stage++) {
    if ((stage % 2) == 1) k = 0;
    if ((stage % 2) == 0) k = 1;
    for (i = k; i < N - 1; i = i + 2) {
#pragma HLS PIPELINE II=1
      int a = z[i], b = z[i + 1];
      z[i] = a < b ? a : b;
      z[i + 1] = a < b ? b : a;
    }
  }
  for (i = 0; i < N; i++) out[i] = z[i];
}
"""


@pytest.mark.parametrize("ctype", ["int", "char"])
def test_a_start_read_from_an_opaque_scalar_ranges_over_its_values(tmp_path, ctype):
    """A start that is a scalar the paths set to 0 or 1 ranges over the scalar's value
    range, [0, 1]; it was left to the arrays, which gave [0, 0] with a warning that
    larger values were fine, so the model held only the even passes (probe 33 F5).
    A ``char`` (as in the tutorial) is assigned the conversion of 0 and 1, which keeps
    them."""
    report = arraypart.analyze(write(tmp_path, "oddeven.cpp",
                                     ODD_EVEN.replace("TYPE", ctype)))
    params = report.to_json()["params"]
    assert params["k@9:14"]["range"] == [0, 1]
    assert params["k@9:14"]["bound_by"] == "the values 'k' takes"
    assert not any("is taken as" in w for w in report.to_json()["warnings"])
    assert {l.name: l.achieved_ii for l in checked(report).loops}["L9"] == 1


def test_a_computed_bound_is_ranged_by_interval_arithmetic(tmp_path):
    text = """void blocks(const int a[64], int out[64], int size) {
  for (int b = 0; b < (size - 1) / 16 + 1; b++) {
#pragma HLS pipeline II=1
    out[b] = a[4 * b] + a[4 * b + 1];
  }
  for (int i = 0; i < size; i++) {
#pragma HLS LOOP_TRIPCOUNT max=64
    out[i] = 0;
  }
}
"""
    report = arraypart.analyze(write(tmp_path, "blocks.c", text), ports=1)
    params = report.to_json()["params"]
    assert params["size"]["range"] == [0, 64]
    # (size - 1) / 16 + 1 for size up to 64: C truncates -1 / 16 to 0, so 1 at size 0,
    # and the signed size may be negative, -16 / 16 + 1 = 0 at -15 (0 iterations below)
    assert params["(size - 1) / 16 + 1@2:23"]["range"] == [0, 4]
    assert array(report, "a").banking.scheme.banks == 2 and array(report, "a").conflict_free
    assert all(l.first_conflict is None for l in checked(report).loops)


def test_data_dependent_start_and_end_range_over_what_stays_in_bounds(tmp_path):
    text = """void rows(const int starts[9], const int vals[32], int out[8]) {
  for (int r = 0; r < 8; r++) {
    int begin = starts[r];
    int end = starts[r + 1];
    int sum = 0;
    for (int e = begin; e < end; e++) {
#pragma HLS pipeline II=1
      sum += vals[e];
    }
    out[r] = sum;
  }
}
"""
    report = arraypart.analyze(write(tmp_path, "rows.c", text), ports=1)
    params = report.to_json()["params"]
    # vals[e] for e from begin up to end - 1: end <= 32 (begin at its least, 0, where
    # the loop is longest; a larger begin only shortens it, so nothing else is needed)
    assert params["end@6:29"]["range"] == [0, 32] and params["begin@6:18"]["range"] == [0, 0]
    result = checked(report)
    assert all(l.first_conflict is None and l.achieved_ii == 1 for l in result.loops)


def test_a_bound_read_from_an_array_counts_as_reads(tmp_path):
    text = """void rows(const int lens[8], int vals[8][16]) {
  for (int r = 0; r < 8; r++) {
    for (int e = 0; e < lens[r]; e++) {
#pragma HLS pipeline II=1
      vals[r][e] = vals[r][15 - e] + lens[7 - r];
    }
  }
}
"""
    report = arraypart.analyze(write(tmp_path, "lens.c", text), ports=1)
    (param,) = report.kernel.params
    assert (param.low, param.high) == (0, 16)
    reads = [a for a in report.kernel.body[0].body[0].accesses]
    assert [(a.array, a.kind) for a in reads] == [("lens", "read")]  # on entry
    lens = searched(report, "lens")  # lens[r] and lens[7 - r] in one iteration, one port
    assert lens.lower_bound == 2 and lens.max_concurrent == 2 and lens.conflict_free


@pytest.mark.parametrize("start", ["4", "a[0] & 31"])
def test_a_bound_the_loop_changes_counts_trips_as_a_data_dependent_condition(tmp_path,
                                                                            start):
    """C tests ``i < len`` again after every iteration: when the body changes ``len``
    (affine on entry or not) the loop runs a fresh number of trips over its regular
    iterator, bounded by the arrays (never just the entry value: 4 trips were
    modelled where up to 63 run)."""
    text = f"""void grow(int a[64], int out[64]) {{
  int len = {start};
  for (int i = 0; i < len; i++) {{
#pragma HLS pipeline II=1
    out[i] = a[i];
    len = a[i + 1] & 31;
  }}
}}
"""
    report = arraypart.analyze(write(tmp_path, "grow.c", text), ports=1)
    (trips,) = [p for p in report.kernel.params if p.name.startswith("trips")]
    assert (trips.low, trips.high) == (0, 63)
    a = searched(report, "a")
    assert a.conflict_free and a.banking.scheme.banks * a.banking.copies == 2
    assert all(e is not None for acc in _accesses(report.kernel.body) for e in acc.index)


def _accesses(nodes):
    from arraypart import ir
    return list(ir.accesses(nodes))


def test_a_fresh_bound_inside_a_pipeline_leaves_the_outer_loop_unpipelined(tmp_path):
    text = """void inner(int a[64], const int lens[8]) {
  for (int r = 0; r < 8; r++) {
#pragma HLS pipeline II=1
    for (int e = 0; e < lens[r]; e++) a[8 * r + e] = 0;
  }
}
"""
    report = arraypart.analyze(write(tmp_path, "inner.c", text))
    assert [(loop.name, loop.pipeline_inferred) for loop in report.model.loops] == [
        ("L4", True)]
    assert any(": warning: loop 'L2' is not pipelined: it holds loop 'L4' (4:5)" in w
               for w in report.warnings)


def test_a_header_declaration_may_shadow_an_enclosing_iterator(tmp_path):
    text = """void shadow(const int a[64], int out[16]) {
  for (int i = 0; i < 16; i++) {
#pragma HLS pipeline II=1
    int acc = a[4 * i];
    for (int i = 0; i < 2; i++) acc += a[4 * i + 1];
    out[i] = acc;
  }
}
"""
    report = arraypart.analyze(write(tmp_path, "shadow.cpp", text), ports=1)
    inner = report.kernel.body[0].body[1]
    assert inner.var == "i_1" and report.kernel.body[0].body[2].accesses[0].index[0] == (
        report.kernel.body[0].body[0].accesses[0].index[0].arg)  # out[i]: the outer i
    assert array(report, "a").conflict_free


# ---------------------------------------------------------------- loops without a count

def test_a_data_dependent_condition_counts_trips_over_a_regular_iterator(tmp_path):
    text = """void scan(const int a[64], int out[64]) {
  for (int i = 0; a[i] != 0; i++) {
#pragma HLS pipeline II=1
    out[i] = a[i] + a[i + 1];
  }
}
"""
    report = arraypart.analyze(write(tmp_path, "scan.c", text), ports=1)
    (trips,) = report.kernel.params
    # i = trips - 1 at most, and a[i + 1] stays inside a[64]: at most 63 trips
    assert (trips.name, trips.low, trips.high) == ("trips of loop@2:3", 0, 63)
    (loop,) = [n for n in report.kernel.body if hasattr(n, "var")]
    # every check reads a[i] and every iteration a[i + 1]: both stay inside a
    (guard,) = loop.body
    assert {(E.pretty(c.expr), c.op) for (conj,) in [guard.cond] for c in conj} >= {
        ("i", ">="), ("-1*i + 63", ">="), ("-1*i + 62", ">=")}
    cond, stmt = guard.then
    assert [(a.array, a.index) for a in cond.accesses] == [("a", (E.var("i"),))]
    assert all(e is not None for a in stmt.accesses for e in a.index)  # still regular
    a = searched(report, "a")
    assert a.conflict_free and a.banking.scheme.banks * a.banking.copies == 2
    result = checked(report, {**report.solution.bankings(), "a": a.banking})
    assert all(l.first_conflict is None and l.achieved_ii == 1 for l in result.loops)
    one = check.check_kernel(report.kernel, check.as_written_bankings(report.kernel),
                             ports=1)
    assert one.loops[0].achieved_ii == 2  # the conflict of one memory is still found


def test_while_do_break_and_odd_steps_run_over_a_counter_of_their_own(tmp_path):
    text = """void walk(const int next[32], int hits[32], int out[4]) {
  int q = 0;
  while (q >= 0 && q < 32) {
    hits[q] += 1;
    q = next[q];
    if (q == 5) break;
  }
  int k = 8;
  do {
    out[0] += k;
    k = k >> 1;
  } while (k > 0);
  for (int s = 16; s > 0; s >>= 1) {
    if (s == 2) continue;
    out[1] += hits[s];
  }
}
"""
    report = arraypart.analyze(write(tmp_path, "walk.c", text), ports=2)
    params = report.to_json()["params"]
    assert params["trips of loop@3:3"]["range"] == [0, 2**63 - 1]  # nothing bounds it
    assert params["trips of do@9:3"]["range"] == [1, 2**63 - 1]  # a do runs at least once
    assert params["trips of loop@13:3"]["range"] == [0, 2**63 - 1]
    assert any("'q' changes in loop 'L3', whose iterations arraypart cannot count" in w
               for w in report.warnings)
    loops = [n for n in report.kernel.body if hasattr(n, "var")]
    assert [l.var for l in loops] == ["loop_n3", "do_n9", "loop_n13"]
    hits = [a for a in loops[0].body[0].accesses if a.array == "hits"]
    assert [a.index for a in hits] == [(None,), (None,)]  # q is opaque: any element
    # hits[q] += 1 reads and writes any element: two ports of one memory serve it
    result = check.check_kernel(report.kernel, report.solution.bankings(), ports=2)
    assert [l.achieved_ii for l in result.loops] == [
        l["achieved_ii"] for l in report.to_json()["loops"]] == [1, 1, 1]


def test_a_continue_stops_induction(tmp_path):
    text = """void skip(const int a[64], int out[64]) {
  int k = 0;
  for (int i = 0; i < 32; i++) {
    if (a[i] < 0) continue;
    out[k] = a[2 * i];
    k += 2;
  }
}
"""
    report = arraypart.analyze(write(tmp_path, "skip.c", text), ports=1)
    (loop,) = report.kernel.body[1:]
    (guard, store, _) = loop.body
    # without the continue, k = 2*i; a skipped iteration leaves k behind, so k is opaque
    assert [a.index for a in store.accesses if a.array == "out"] == [(None,)]


def test_a_fresh_bound_the_arrays_leave_no_iteration_is_a_located_error(tmp_path):
    """LOOP_TRIPCOUNT lets ``size`` reach 64 chunks of 16 = 1024, but ``a`` holds 256:
    with ``size`` anywhere in that range no chunk length keeps ``a[i + j]`` inside, so
    narrowing ``len`` by the arrays would leave its loop no iteration (a loop the
    program runs, gone from the model): a located error, not an empty model."""
    text = CHUNKS.replace("#pragma HLS LOOP_TRIPCOUNT max=16", "#pragma HLS LOOP_TRIPCOUNT max=64")
    with pytest.raises(KernelError) as info:
        arraypart.analyze(write(tmp_path, "chunks.c", text), ports=1)
    assert (info.value.coord.line, info.value.coord.col) == (7, 25)
    assert "leaves its loop no iteration" in info.value.message
    assert "size in [0, 1024]" in info.value.message


# A bound read from a table (an array nothing writes, initialized with constants),
# declared in a header that the function body includes, as Rosetta's face detection does.
TABLE_HEADER = "static int counts[4] = {3, 5, 2};\n"
TABLE = """void table(int a[4][64], int out[4]) {
  for (int i = 0; i < 4; i++) {
#include "counts.h"
    int s = 0;
    for (int j = 0; j < counts[i]; j++) {
#pragma HLS pipeline II=1
      s += a[i][j];
    }
    out[i] = s;
  }
}
"""


def test_a_bound_read_from_a_table_ranges_over_its_values(tmp_path):
    (tmp_path / "counts.h").write_text(TABLE_HEADER)
    report = arraypart.analyze(write(tmp_path, "table.c", TABLE), ports=1)
    params = report.to_json()["params"]
    assert params["counts[i]@5:25"]["range"] == [0, 5]  # 0 fills the fourth element
    written = TABLE.replace("    out[i] = s;", "    out[i] = s;\n    counts[i] = 1;")
    report = arraypart.analyze(write(tmp_path, "table.c", written), ports=1)
    assert report.to_json()["params"]["counts[i]@5:25"]["range"] == [0, 64]  # by a[i][j]


@pytest.mark.parametrize("bound, name", [("2 * (m * m)", "m*m*2"),
                                         ("3 + lim[0]", "(3 + lim[0])@2:23")])
def test_a_size_whose_text_starts_with_a_number_gets_a_name_isl_takes(tmp_path, bound,
                                                                      name):
    """isl refuses a dimension name that strtol reads a number from: the product's
    identifier comes first, an expression's text goes in parentheses (both were
    internal errors; Merlin's loop_tiling tests bound loops by ``4*n``)."""
    path = write(tmp_path, "num.c", (
        "void num(const int a[64], int c[64], const int lim[1], int m) {\n"
        f"  for (int j = 0; j < {bound}; j++) {{\n#pragma HLS pipeline II=1\n"
        "#pragma HLS LOOP_TRIPCOUNT max=32\n    c[j] = a[j] + a[j + 1];\n  }\n}\n"))
    report = arraypart.analyze(path)
    assert [p.name for p in report.kernel.params] == [name]
    assert [lp.achieved_ii for lp in report.scheduled.loops] == [1]


def test_a_nest_whose_sizes_are_not_yet_known_says_nothing_of_another(tmp_path):
    """Two CSR-style nests (HLSFactory's ece8893 lab 3): the second one's row bounds
    Q[r]..Q[r + 1] index nothing, so before they were bounded its B[k] could leave B
    for any value of the first nest's start P[r], which was then refused ('exceeded
    for every value from 0 up').  Only extents whose bad sizes depend on P[r] bound
    it; a start that no on-chip access depends on and nothing bounds below is
    replayed at its anchor, with a warning."""
    path = tmp_path / "csr.cpp"
    path.write_text(
        "void csr(int P[65], int Q[65], int C[65], int A[4096], int B[4096],\n"
        "         int y[64], int z[64]) {\n"
        "  for (int r = 0; r < 64; r++) {\n    int sum = 0;\n"
        "    for (int j = P[r]; j < P[r + 1]; ++j) sum += A[j];\n    y[r] = sum;\n  }\n"
        "  for (int r = 0; r < 64; r++) {\n    int c = 0;\n"
        "    for (int j = Q[r]; j < Q[r + 1]; ++j)\n"
        "      for (int k = C[r]; k < C[r + 1]; ++k) c += B[k];\n    z[r] = c;\n  }\n}\n")
    report = arraypart.analyze(path)
    sizes = {p.name.split("@")[0]: p for p in report.kernel.params}
    assert (sizes["P[r]"].low, sizes["P[r + 1]"].high) == (0, 4096)
    assert sizes["Q[r]"].unbounded and any(
        "loop start 'Q[r]' at 10:18" in w and "banking holds for every value" in w
        for w in report.warnings)


def test_a_halved_index_in_a_loop_condition_bounds_its_trips(tmp_path):
    """``b[k >> 1]`` read by every check keeps 0 <= k < 66: the trip count was left
    unbounded (exit 2, "nothing bounds it")."""
    text = """void halved(const int in[32], const int c[4], int *s) {
  int b[33];
  for (int k = 0; k < 32; k++) b[k] = in[k] | 1;
  b[32] = 0;
  for (int k = 0; b[k >> 1] != 0; k++) {
#pragma HLS pipeline II=1
    if (k >= 10) *s += c[0] + c[1] + c[2];
  }
}
"""
    report = arraypart.analyze(write(tmp_path, "halved.c", text))
    (trips,) = report.kernel.params
    assert (trips.low, trips.high) == (0, 66)
    assert array(report, "c").conflict_free


def test_an_iteration_a_return_may_end_takes_no_guard_from_its_statements(tmp_path):
    """``out[4 * i + k]`` is not written in an iteration that returns first: its
    extents guard no whole iteration, only the write itself, and the trip count is
    the longest run in which it may be made (i = 0: 40 trips)."""
    text = """void early(const int a[8], int out[40]) {
  for (int i = 0; i < 8; i++) {
    unsigned x = (unsigned)a[i] & 0xfffu;
    for (int k = 0; x != 0; k++) {
#pragma HLS pipeline II=1
      if (x == 5u) return;
      out[i * 4 + k] = (int)(x & 1u);
      x = x >> 1;
    }
  }
}
"""
    report = arraypart.analyze(write(tmp_path, "early.c", text))
    (trips,) = report.kernel.params
    assert trips.source.startswith(ir.GUARD_SOURCE) and trips.high == 40
    (outer,) = [n for n in report.kernel.body if hasattr(n, "var")]
    inner = next(n for n in outer.body if hasattr(n, "var"))
    assert not any(hasattr(n, "then") and n.coord == inner.coord for n in inner.body)
    (write_guard,) = [n for n in inner.body if hasattr(n, "then") and n.coord.line == 7]
    assert [a.array for s in write_guard.then for a in s.accesses] == ["out"]


@pytest.mark.parametrize("ctype", ["unsigned char", "unsigned short", "unsigned"])
def test_an_unsigned_scalar_bounds_a_loop_by_its_value_range(tmp_path, ctype):
    """``u8 total_round = last ? 41 : 21`` in Groestl (ARC-2015 SHA-3 designs) bounds
    the round loop: unsigned scalars have value ranges too, [21, 41] here; they had
    none, so nothing bounded the size and the kernel was refused (probe 33c F2)."""
    report = arraypart.analyze(write(tmp_path, "rounds.c", f"""typedef {ctype} u8;
void rounds(u8 data[8], u8 out[8], int last) {{
  u8 s[8];
  u8 round, total_round;
  for (int i = 0; i < 8; i++) s[i] = data[i];
  if (last == 1)
    total_round = 41;
  else
    total_round = 21;
  for (round = 0; round < total_round; round++)
    for (int i = 0; i < 8; i++) {{
#pragma HLS UNROLL
      s[i] ^= round;
    }}
  for (int i = 0; i < 8; i++) out[i] = s[i];
}}
"""))
    assert report.to_json()["params"]["total_round@10:27"]["range"] == [21, 41]


def test_a_csr_row_start_is_held_at_its_least_value_without_a_false_reason(tmp_path):
    """``for (k = rowPtr[0]; k < rowPtr[1]; k++)``: the start is modelled at 0, the
    least value the arrays allow, which covers every larger start (it only shortens
    the loop).  A warning said start 1 "takes an access outside its array" (false)
    and advised ``-D ARRAYPART_MAX_rowPtr[0]@2:18=...``, which the command line
    refuses (probe 36 F7)."""
    path = write(tmp_path, "one.cpp", """void one(const int values[9], int out[9],
         const int rowPtr[2]) {
  for (int k = rowPtr[0]; k < rowPtr[1]; k++) {
#pragma HLS pipeline
    out[k] = values[k];
  }
}
""")
    report = arraypart.analyze(path)
    assert not [w for w in report.warnings if "rowPtr" in w], report.warnings
    params = report.to_json()["params"]
    start = params["rowPtr[0]@3:16"]
    assert start["range"] == [0, 0]
    assert start["bound_by"].startswith("its least value (a larger start only shortens")
    assert "below which the extent of values at" in start["bound_by"]
    assert params["rowPtr[1]@3:31"]["range"] == [0, 9]


# Probe 39b, LOW-8: LOOP_TRIPCOUNT max=8 on a loop whose bound is computed from n.
COMPUTED_BOUND = """void computed(int n, const int in[64], int out[64]) {{
  int buf[16];
  for (int i = 0; i < 16; i++) buf[i] = in[i];
  int m = {bound};
  for (int i = 0; i < m; i++) {{
#pragma HLS LOOP_TRIPCOUNT max=8
#pragma HLS pipeline II=1
    out[i] = buf[2 * i] + buf[2 * i + 1];
  }}
}}
"""


@pytest.mark.parametrize("bound, size, low, high", [
    ("20 - n", "n", 12, 20), ("n * n", "m@5:23", 0, 8)])
def test_a_tripcount_bounds_a_computed_bound_affine_or_fresh(bound, size, low, high,
                                                             tmp_path):
    """LOOP_TRIPCOUNT max=8 is the user's word that the loop runs at most 8 times, taken
    alike where its bound is affine in the size (``m = 20 - n``: n >= 12, the size then
    settles above 19 where the loop no longer runs) and where it is a fresh size (``m =
    n * n``: m <= 8).  The affine one ignored it, and buf[2*i] left buf at n = 0."""
    report = arraypart.analyze(write(tmp_path, "computed.c", COMPUTED_BOUND.format(
        bound=bound)))
    (p,) = report.kernel.params
    assert (p.name, p.low, p.high) == (size, low, high)
    assert [l["trip_count"] for l in report.to_json()["loops"]] == [16, 8]
    assert array(report, "buf").conflict_free
    result = check.check_kernel(report.kernel, report.solution.bankings(), ports=2)
    assert all(l.first_conflict is None for l in result.loops)


def test_a_size_written_in_an_included_file_is_named_by_its_place(tmp_path):
    """A loop bound in a function of an included .c file (CHStone aes): its text is
    not in the kernel file, and messages named it 'expression@110:20', an internal
    name whose line did not say which file (probe 41 F8).  The name holds the file,
    and the words say where the expression is; a colliding iteration names it so too."""
    write(tmp_path, "body.c", "int steps(int k[4], int out[16]) {\n  int s = 0;\n"
          "  for (int r = 0; r < k[0] * k[1]; r++) {\n    s += r;\n  }\n"
          "  for (int i = 0; i < 16; i++) {\n#pragma HLS pipeline II=1\n"
          "    out[i] = s + i;\n  }\n  return s;\n}\n")
    path = write(tmp_path, "top.c", '#include "body.c"\n'
                 "void top(int k[4], int out[16]) {\n  steps(k, out);\n}\n")
    report = arraypart.analyze(path)
    assert [p.name for p in report.kernel.params] == ["expression@body.c:3:23"]
    assert any(w.startswith(f"{tmp_path / 'body.c'}:3:23: warning: run-time size (the "
                            "expression at body.c:3:23): nothing bounds it") for w in
               report.warnings), report.warnings
    assert not any("@" in w for w in report.warnings)


def test_the_words_for_a_size():
    assert ir.size_words("n") == "'n'"
    assert ir.size_words("round_val + 9@110:20") == "'round_val + 9' at 110:20"
    assert ir.size_words("expression@aes_enc.c:110:20") == "(the expression at aes_enc.c:110:20)"
