"""``#pragma HLS array_reshape``: the user's wide words, kept as written and counted per
word (``ir.Array.word_index``) by the model, the checker and ``check --trace``.  Before,
arraypart ignored the pragma, counted every element and added an ``array_partition`` on
top of the reshape (which conflicts with it in Vitis)."""

from textwrap import dedent

import pytest

import arraypart
from arraypart import check

from conftest import assert_the_testbench_passes, assert_the_trace_agrees, needs_gxx

# Parallel Programming for FPGAs, ch. 7: a row of A and a column of B in one word each.
MATMUL = """
#define N 32
void matrixmul(int A[N][N], int B[N][N], int AB[N][N]) {
  #pragma HLS ARRAY_RESHAPE variable=A complete dim=2
  #pragma HLS ARRAY_RESHAPE variable=B complete dim=1
  row: for (int i = 0; i < N; ++i) {
    col: for (int j = 0; j < N; ++j) {
      #pragma HLS PIPELINE II=1
      int ABij = 0;
      product: for (int k = 0; k < N; ++k)
        ABij += A[i][k] * B[k][j];
      AB[i][j] = ABij;
    }
  }
}
"""

# Four reads per iteration of an array reshaped into words of four (or eight) elements.
WORDS = """
void words(int x[64], int out[16]) {
#pragma HLS array_reshape variable=x type=%(type)s factor=%(factor)d dim=1
#pragma HLS bind_storage variable=x type=ram_1p
  for (int i = 0; i < %(trips)d; i++) {
#pragma HLS pipeline II=1
    out[i] = %(reads)s;
  }
}
"""


def checked_iis(result):
    report = result.report
    verdict = check.check_kernel(report.kernel, report.solution.bankings(), ports=2)
    return [loop.achieved_ii for loop in verdict.loops]


def test_a_reshaped_row_is_one_word_and_no_partition_is_added(compiled_once):
    result = compiled_once("matrixmul.c", MATMUL)
    arrays = {a.array.name: a for a in result.report.solution.arrays}
    for name in ("A", "B"):
        a = arrays[name]
        assert a.array.reshapes and not a.array.partitionable
        assert (a.banking.scheme.banks, a.max_concurrent, a.conflict_free) == (1, 1, True)
        assert a.bram18k == 29  # 32 words of 32 x 32 bits: 29 RAMB18 side by side
    assert checked_iis(result) == [1]
    assert "array_partition" not in result.files["matrixmul.cpp"]


@pytest.mark.parametrize("kind, factor, trips, reads, ii", [
    ("cyclic", 4, 16, "x[4 * i] + x[4 * i + 1] + x[4 * i + 2] + x[4 * i + 3]", 1),
    ("cyclic", 4, 15, "x[4 * i] + x[4 * i + 4]", 2),
    ("cyclic", 4, 15, "x[4 * i + 3] + x[4 * i + 4]", 2),
    ("block", 2, 16, "x[i] + x[i + 32]", 1),
    ("block", 4, 15, "x[i] + x[i + 1]", 2),
])
def test_reads_count_once_per_word(compiled_once, kind, factor, trips, reads, ii):
    """cyclic F puts x[F*w .. F*w + F-1] in word w, block F puts x[w], x[w + n/F], ...
    in word w: on one single-port memory, one word per cycle."""
    fields = {"type": kind, "factor": factor, "trips": trips, "reads": reads}
    result = compiled_once("words.c", WORDS % fields)
    x = next(a for a in result.report.solution.arrays if a.array.name == "x")
    assert x.banking.scheme.banks == 1 and dict(x.achieved_ii) == {"L5": ii}
    assert checked_iis(result) == [ii]


@needs_gxx
@pytest.mark.parametrize("kernel", ["matmul", "two_words"])
def test_a_reshaped_kernel_builds_runs_and_traces(compiled_once, tmp_path, kernel):
    if kernel == "matmul":
        result = compiled_once("matrixmul.c", MATMUL)
    else:
        result = compiled_once("words.c", WORDS % {
            "type": "cyclic", "factor": 4, "trips": 15, "reads": "x[4 * i] + x[4 * i + 4]"})
    assert_the_testbench_passes(result, tmp_path)
    (tmp_path / "trace").mkdir()
    judged = assert_the_trace_agrees(result, tmp_path / "trace", ports=2)
    assert "is reshaped, so the model counts its words" in judged.format()
    assert [loop.traced_ii for loop in judged.replay.loops] == checked_iis(result)


def test_a_reshape_of_a_parameter_reshapes_the_array_passed(compiled_once):
    """Vitis carries an array_reshape of a sub-function's parameter to the caller's
    array, as it does an array_partition: the words of four reach II 1 on ram_1p."""
    result = compiled_once("passed.c", """
    void sum4(int v[64], int out[16]) {
    #pragma HLS array_reshape variable=v cyclic factor=4
      for (int i = 0; i < 16; i++) {
    #pragma HLS pipeline II=1
        out[i] = v[4 * i] + v[4 * i + 1] + v[4 * i + 2] + v[4 * i + 3];
      }
    }
    void passed(int a[64], int out[16]) {
    #pragma HLS bind_storage variable=a type=ram_1p
      sum4(a, out);
    }""")
    a = next(s for s in result.report.solution.arrays if s.array.name == "a")
    assert [(r.type, r.factor) for r in a.array.reshapes] == [("cyclic", 4)]
    assert (a.banking.scheme.banks, a.max_concurrent, a.conflict_free) == (1, 1, True)
    assert checked_iis(result) == [1]


def test_a_partition_beside_a_reshape_is_kept(compiled_once):
    """A reshape of dimension 1 and the user's cyclic partition of dimension 2 (Vitis
    applies both): four banks of words of two rows, the four reads of a row one per
    bank at II 1; the partition stays in the output (it was dropped)."""
    result = compiled_once("both.c", """
    void both(int a[8][16], int out[8]) {
    #pragma HLS array_reshape variable=a cyclic factor=2 dim=1
    #pragma HLS array_partition variable=a cyclic factor=4 dim=2
      for (int i = 0; i < 8; i++) {
    #pragma HLS pipeline II=1
        out[i] = a[i][0] + a[i][1] + a[i][2] + a[i][3];
      }
    }""")
    a = next(s for s in result.report.solution.arrays if s.array.name == "a")
    assert a.banking.scheme.describe().startswith("per_dim none x cyclic 4")
    assert a.conflict_free and checked_iis(result) == [1]
    text = result.files["both.cpp"]
    assert "array_partition variable=a type=cyclic factor=4 dim=2" in text
    assert "array_reshape variable=a cyclic factor=2 dim=1" in text


def test_a_reshape_of_an_interface_port_is_ignored_with_a_warning(tmp_path):
    """An m_axi pointer is no on-chip memory to reshape: the pragma is named as
    ignored and the reads count on the bundle."""
    path = tmp_path / "port.c"
    path.write_text(dedent("""
    void port(int *a, int out[16]) {
    #pragma HLS interface m_axi port=a depth=64
    #pragma HLS array_reshape variable=a cyclic factor=4
      for (int i = 0; i < 16; i++) {
    #pragma HLS pipeline II=1
        out[i] = a[4 * i] + a[4 * i + 1];
      }
    }"""))
    report = arraypart.analyze(path)
    a = next(s for s in report.solution.arrays if s.array.name == "a")
    assert a.array.reshapes == () and a.array.bundle == "gmem0"
    assert any("array_reshape of a, which is an interface port" in w and "port.c:4:1" in w
               for w in report.warnings), report.warnings
    assert report.model.loops[0].bundle_ii == 2


def test_a_conflict_on_a_reshaped_array_says_its_subscripts_are_words(compiled_once):
    """``x[4 * i]`` and ``x[4 * i + 4]`` are words ``i`` and ``i + 1`` of a cyclic-4
    reshape: the conflict listed ``x[0]`` and ``x[1]`` as if they were the elements
    read, which the kernel never reads together."""
    fields = {"type": "cyclic", "factor": 4, "trips": 15, "reads": "x[4 * i] + x[4 * i + 4]"}
    result = compiled_once("words.c", WORDS % fields)
    report = result.report
    bankings = check.as_written_bankings(report.kernel)
    verdict = check.check_kernel(report.kernel, bankings, ports=2)
    (loop,) = verdict.loops
    assert "(reshaped: the subscripts below number its words)" in loop.first_conflict.format()
    (note,) = [w for w in report.warnings if "is reshaped" in w]
    assert note.endswith("(the subscripts number its words)")


# ARC-2015's HLS SHA-3 designs (Keccak, Groestl, BLAKE, Skein) reshape their state into
# one word and write every element of it in each round.
ONE_WORD = """
void rounds(int in[64][8], int out[64]) {
  int s[8];
#pragma HLS ARRAY_RESHAPE variable=s complete dim=1
  for (int t = 0; t < 64; t++) {
#pragma HLS PIPELINE II=1
    for (int i = 0; i < 8; i++) s[i] = in[t][i] + 1;
    int acc = 0;
    for (int i = 0; i < 8; i++) acc += s[i];
    out[t] = acc;
  }
}
"""


def test_an_array_reshaped_into_one_word_is_a_register(compiled_once):
    """A one-word array is a register, which takes no port: its eight element writes
    a step were counted as eight writes of one word (II 5, with a warning that "one
    element" was written eight times; probe 33c F1).  The reshape stays as written,
    with no partition or storage binding added."""
    result = compiled_once("rounds.c", ONE_WORD)
    (s,) = [a for a in result.report.solution.arrays if a.array.name == "s"]
    assert s.banking.scheme.registers and s.conflict_free and s.bram18k == 0
    assert [lp["achieved_ii"] for lp in result.report.to_json()["loops"]] == [1]
    assert checked_iis(result) == [1]
    text = result.files["rounds.cpp"]
    assert "ARRAY_RESHAPE variable=s complete dim=1" in text
    assert "array_partition variable=s" not in text and "bind_storage variable=s" not in text


def test_a_variable_list_is_one_pragma_per_array(compiled_once):
    """``variable=din,dout`` (Xilinx's SSR FIR app note): Vitis HLS's front end splits
    the list into one pragma per array (``getSubExprOfVariable`` in its
    ParseXlxPragma.cpp); it was rejected as "unknown array 'din,dout'"."""
    result = compiled_once("fir.c", """
    void fir(int din[4], int dout[4]) {
    #pragma HLS PIPELINE II=1
    #pragma HLS ARRAY_RESHAPE variable=din, dout complete
      for (int i = 0; i < 4; i++) dout[i] = din[i] * 3;
    }""")
    arrays = {s.array.name: s.array for s in result.report.solution.arrays}
    assert [r.type for r in arrays["din"].reshapes] == ["complete"]
    assert [r.type for r in arrays["dout"].reshapes] == ["complete"]
    assert "#pragma HLS ARRAY_RESHAPE variable=din, dout complete" in result.files["fir.cpp"]


def test_a_list_pragma_is_split_where_one_array_loses_it(compiled_once):
    """``bind_storage variable=in,a``: arraypart writes its own bind_storage of the
    local ``a``, so the user's keeps only ``in`` (the whole line was dropped, losing
    ``in``'s ram_1p)."""
    result = compiled_once("two.c", """
    void two(int in[64], int out[16]) {
      int a[64];
    #pragma HLS bind_storage variable=in,a type=ram_1p
      for (int i = 0; i < 64; i++) a[i] = in[i];
      for (int i = 0; i < 16; i++) {
    #pragma HLS pipeline II=1
        out[i] = a[4 * i] + a[4 * i + 1] + in[i];
      }
    }""")
    arrays = {s.array.name: s.array for s in result.report.solution.arrays}
    assert arrays["in"].storage == arrays["a"].storage == "ram_1p"
    text = result.files["two.cpp"]
    assert "#pragma HLS bind_storage variable=in type=ram_1p" in text
    assert "variable=in,a" not in text and text.count("bind_storage variable=a ") == 1


def test_a_partition_of_a_reshaped_dimension_is_dropped_with_a_warning(tmp_path):
    """``array_partition block 2`` and ``array_reshape cyclic 2`` of one dimension: the
    emitted kernel kept only the reshape while the report, the kernel's comment and the
    model gave the partition (block 2 applied to the words, bank 1 never used; probe 36
    F4).  Now the partition is dropped with a warning at its line, and every output
    says the same: one memory of words, ram_1p, II 2 for two distinct words."""
    path = tmp_path / "pr3.c"
    path.write_text(dedent("""
    void pr3(const int in[256], int out[64]) {
        int a[256];
    #pragma HLS bind_storage variable=a type=ram_1p
    #pragma HLS array_partition variable=a type=block factor=2
    #pragma HLS array_reshape variable=a type=cyclic factor=2
        for (int t = 0; t < 256; t++) {
    #pragma HLS pipeline
            a[t] = in[t];
        }
        for (int i = 0; i < 64; i++) {
    #pragma HLS pipeline
            out[i] = a[2 * i] + a[2 * i + 1] + a[2 * i + 128] + a[2 * i + 129];
        }
    }"""))
    result = arraypart.compile_kernel(path)
    report = result.report
    (dropped,) = [w for w in report.warnings if "array_partition of a is dropped" in w]
    assert dropped.startswith(f"{path}:5:1:") and "array_reshape at" in dropped
    a = next(s for s in report.solution.arrays if s.array.name == "a")
    assert a.array.partitions == () and a.banking.scheme.banks == 1
    text = result.files["pr3.cpp"]
    assert "array_partition" not in text and "// arraypart: a: none" in text
    achieved = [report.loop_achieved_ii(n, loop.name, loop.target_ii)
                for n, loop in enumerate(report.model.loops)]
    assert achieved == [1, 2] == checked_iis(result)
    written = check.check_kernel(report.kernel, check.as_written_bankings(report.kernel),
                                 ports=2)
    assert [loop.achieved_ii for loop in written.loops] == [1, 2]


def test_of_a_reshaped_arrays_partitions_only_the_reshaped_dimensions_go(tmp_path):
    """The partition of dimension 2 stays beside a reshape of dimension 1, as written;
    another of dimension 1 goes, from the kernel and from a ``--directives`` file."""
    path = tmp_path / "both.c"
    path.write_text(dedent("""
    void both(int a[8][16], int out[8]) {
      for (int i = 0; i < 8; i++) {
    #pragma HLS pipeline II=1
        out[i] = a[i][0] + a[i][1] + a[i][2] + a[i][3];
      }
    }"""))
    tcl = tmp_path / "dirs.tcl"
    tcl.write_text("set_directive_array_reshape -type cyclic -factor 2 -dim 1 both a\n"
                   "set_directive_array_partition -type cyclic -factor 4 -dim 2 both a\n"
                   "set_directive_array_partition -type block -factor 2 -dim 1 both a\n")
    result = arraypart.compile_kernel(path, directives=tcl)
    a = next(s for s in result.report.solution.arrays if s.array.name == "a")
    assert [(p.type, p.dim) for p in a.array.partitions] == [("cyclic", 2)]
    assert any(w.startswith(f"{tcl}:3:1: warning: array_partition of a is dropped")
               for w in result.report.warnings), result.report.warnings
    kernel, tcl_out = result.files["both.cpp"], result.files["directives.tcl"]
    assert "array_partition variable=a type=cyclic factor=4 dim=2" in kernel
    assert "block" not in kernel and "array_partition" not in tcl_out
    assert checked_iis(result) == [1]
