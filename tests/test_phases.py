"""Phase switches: an array whose text stays (pragma-only) gets compile-time bank
indices where its banks rotate with a pipelined loop's iterator (codegen/phases.py).

The kernel unpacks 64-bit words into a buffer four lanes at a time, in a sub-function's
text, while another sub-function reads sixteen elements per cycle: two ports per bank
need cyclic 8, under which the unpacking lanes' banks ``(4*i + j) mod 8`` rotate with
period 2.  As written, each of the eight lane sites (4 reads, 4 writes: ``+=``) would
take a port of every bank (II 4); one case per phase gives each bank one read and one
write site (II 1)."""

import pytest

import arraypart

from conftest import assert_the_trace_agrees, needs_gxx, run_testbench

# buf is bound to ram_2p: on the ram_t2p default its 8-word banks are block RAM (Vitis
# builds RAM_T2P in no other), so 64 registers, which need no phase switch, rank first.
UNPACK = """\
#define N 64

static void unpack(const unsigned long long words[N / 4], int buf[N]) {
    UNPACK: for (int i = 0; i < N / 4; i++) {
#pragma HLS pipeline II=1
        unsigned long long w = words[i];
        LANES: for (int j = 0; j < 4; j++)
            buf[4 * i + j] += (int)((w >> (16 * j)) & 0xffff);
    }
}

static int sum16(const int buf[N]) {
    int s = 0;
    SUM: for (int k = 0; k < N / 16; k++) {
#pragma HLS pipeline II=1
        for (int j = 0; j < 16; j++)
            s += buf[16 * k + j];
    }
    return s;
}

void unpack_sum(const unsigned long long words[N / 4], int out[1]) {
    int buf[N];
#pragma HLS bind_storage variable=buf type=ram_2p
    INIT: for (int i = 0; i < N; i++)
        buf[i] = i;
    unpack(words, buf);
    out[0] = sum16(buf);
}
"""


def _compile(tmp_path, text: str):
    path = tmp_path / "unpack_sum.c"
    path.write_text(text)
    return arraypart.compile_kernel(str(path), top="unpack_sum")


def _iis(compiled) -> dict[str, int]:
    return {loop["name"]: loop["achieved_ii"] for loop in compiled.report.to_json()["loops"]}


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    return _compile(tmp_path_factory.mktemp("phases"), UNPACK)


def test_rotating_lanes_in_shared_text_get_one_case_per_phase(compiled):
    buf = next(a for a in compiled.report.solution.arrays if a.array.name == "buf")
    assert buf.array.pragma_only
    assert buf.banking.scheme.describe().startswith("per_dim cyclic 8:")
    text = compiled.files["unpack_sum.cpp"]
    assert "switch (i % 2) {" in text and "case 1: {" in text
    assert "8*(i / 2) + 4 + ((4 * i + j) - 4*i)" in text  # phase 1: banks 4..7
    assert "LANES_p1: for" in text and text.count("LANES: for") == 1
    body = text[text.index("static void unpack"):text.index("static int sum16")]
    assert max(len(line) for line in body.splitlines()) <= 100
    assert _iis(compiled) == {"INIT": 1, "unpack/UNPACK": 1, "sum16/SUM": 1}


@needs_gxx
def test_the_phased_kernel_computes_what_the_original_does(compiled, tmp_path):
    run = run_testbench(compiled, tmp_path)
    assert run.returncode == 0 and "PASS" in run.stdout, run.stdout + run.stderr
    assert_the_trace_agrees(compiled, tmp_path, ports=2)


@needs_gxx
def test_a_statement_touching_another_pragma_only_array_is_phased(tmp_path):
    """``bias[j]``, an interface array, keeps its text: it is copied into each case as
    written (one site per case, one case per iteration), and the unpacking loop
    reaches II 1 with the banks of ``buf`` compile-time values."""
    text = UNPACK.replace("void unpack(const unsigned long long words[N / 4], int buf[N])",
                          "void unpack(const unsigned long long words[N / 4], int buf[N],"
                          " const int bias[4])")
    text = text.replace("& 0xffff);", "& 0xffff) + bias[j];")
    text = text.replace("void unpack_sum(const unsigned long long words[N / 4], int out[1])",
                        "void unpack_sum(const unsigned long long words[N / 4], "
                        "const int bias[4], int out[1])")
    text = text.replace("unpack(words, buf);", "unpack(words, buf, bias);")
    compiled = _compile(tmp_path, text)
    emitted = compiled.files["unpack_sum.cpp"]
    assert "switch (i % 2) {" in emitted and emitted.count("+ bias[j];") == 2
    assert _iis(compiled) == {"INIT": 1, "unpack/UNPACK": 1, "sum16/SUM": 1}
    run = run_testbench(compiled, tmp_path)
    assert run.returncode == 0 and "PASS" in run.stdout, run.stdout + run.stderr
    assert_the_trace_agrees(compiled, tmp_path, ports=2)


REWRITTEN_BESIDE = """\
void beside(const int a[72], const int c[64], int out[64]) {
  int w[64];
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    w[i] = c[i] * 3;
  }
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    int s = 0;
    for (int j = 0; j < 8; j++) {
#pragma HLS unroll
      s += a[i + j] * w[(i + j) % 64];
    }
    out[i] = s;
  }
}
"""


def test_a_statement_whose_other_references_are_rewritten_keeps_its_text(tmp_path):
    """``w[(i + j) % 64]`` becomes a read of bank-centric registers, an edit inside the
    statement that a switch would copy over: no switch, and the rotating reads of the
    interface ``a`` cost the loop its II, as the report says."""
    path = tmp_path / "beside.c"
    path.write_text(REWRITTEN_BESIDE)
    compiled = arraypart.compile_kernel(str(path))
    emitted = compiled.files["beside.cpp"]
    assert "switch" not in emitted and "w_rv[j]" in emitted
    assert _iis(compiled)["L7"] > 1


def test_a_loop_whose_iterator_may_be_negative_is_not_phased(tmp_path, monkeypatch):
    """C's ``%`` of a negative iterator is negative: no case would match.  The search
    prices no switch there either, so no second search is needed to undo one."""
    retried = []
    monkeypatch.setattr(arraypart.api, "_retry", lambda *a, **k: retried.append(a[3]))
    text = UNPACK.replace("for (int i = 0; i < N / 4; i++) {\n#pragma HLS pipeline II=1\n"
                          "        unsigned long long w = words[i];",
                          "for (int i = -1; i < N / 4 - 1; i++) {\n"
                          "#pragma HLS pipeline II=1\n"
                          "        unsigned long long w = words[i + 1];")
    text = text.replace("buf[4 * i + j] +=", "buf[4 * i + 4 + j] +=")
    compiled = _compile(tmp_path, text)
    assert "switch" not in compiled.files["unpack_sum.cpp"]
    assert retried == []
    assert not any(s.phased_loops for s in compiled.report.solution.arrays)


CROSS_FROM_MINUS_ONE = """\
void cross(const int img[32][32], int out[32][32]) {
    for (int i = 1; i < 31; i++)
        for (int j = -1; j < 29; j++) {
#pragma HLS pipeline II=1
            out[i][j + 2] = img[i][j + 2] + img[i - 1][j + 2] + img[i + 1][j + 2]
                            + img[i][j + 1] + img[i][j + 3];
        }
}
"""


@needs_gxx
def test_a_negative_iterator_leaves_the_switch_to_one_that_is_not(tmp_path):
    """img, an interface array on two ports, read five times a cycle as written.  A
    switch over j, which starts at -1, cannot be written, and the search no longer
    prices one (it did, no switch was emitted, and img kept one memory at II 3):
    cyclic 2 on the rows rotates with i only, whose switch is written: three reads
    on one bank, II 2."""
    path = tmp_path / "cross.c"
    path.write_text(CROSS_FROM_MINUS_ONE)
    compiled = arraypart.compile_kernel(str(path))
    img = next(s for s in compiled.report.solution.arrays if s.array.name == "img")
    assert img.banking.scheme.describe().startswith("per_dim cyclic 2 x none")
    assert img.phased_loops == ("L3",)
    assert "switch (i % 2) {" in compiled.files["cross.cpp"]
    assert _iis(compiled) == {"L3": 2}
    run = run_testbench(compiled, tmp_path)
    assert run.returncode == 0 and "PASS" in run.stdout, run.stdout + run.stderr


SLIDING = """\
void sliding(const int a[72], int out[64]) {
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    int s = 0;
    for (int j = 0; j < 8; j++) {
#pragma HLS unroll
      s += a[i + j];
    }
    out[i] = s;
  }
}
"""


@needs_gxx
def test_a_sliding_window_on_an_interface_array_reaches_ii_1(tmp_path):
    """An interface keeps its signature and its references, so its eight window reads
    ``a[i + j]`` rotate over any cyclic banks (II 4 under the rule, as one memory).
    Under cyclic 4 the rotation has period 4: one case per phase gives each bank two
    reads with compile-time bank indices (II 1)."""
    path = tmp_path / "sliding.c"
    path.write_text(SLIDING)
    compiled = arraypart.compile_kernel(str(path))
    a = next(s for s in compiled.report.solution.arrays if s.array.name == "a")
    assert a.array.interface and a.banking.scheme.banks == 4 and a.conflict_free
    assert "switch (i % 4) {" in compiled.files["sliding.cpp"]
    assert _iis(compiled) == {"L2": 1}
    run = run_testbench(compiled, tmp_path)
    assert run.returncode == 0 and "PASS" in run.stdout, run.stdout + run.stderr


STENCIL_2D = """\
void stencil(const float a[34][34], float b[34][34]) {
  int i, j;
  for (i = 1; i < 33; i++)
    for (j = 1; j < 33; j++)
      b[i][j] = 0.2f * (a[i][j] + a[i][j - 1] + a[i][j + 1] + a[i + 1][j] + a[i - 1][j]);
}
"""


@needs_gxx
def test_a_stencil_rotating_with_two_iterators_gets_a_case_per_phase_pair(tmp_path):
    """PolyBench's jacobi-2d on interface arrays (at a threshold of 16 Vitis pipelines
    the 32-trip ``j`` loop; at its default 64 it pipelines ``i``, ``j`` unrolled): five reads on two ports need cyclic 2 x cyclic 2, whose banks rotate with
    ``i`` (the loop around) and ``j``; a case per (i % 2, j % 2) makes every bank a
    compile-time value, and the loop reaches II 1 (II 3 as written)."""
    path = tmp_path / "stencil.c"
    path.write_text(STENCIL_2D)
    compiled = arraypart.compile_kernel(str(path), pipeline_loops=16)
    a = next(s for s in compiled.report.solution.arrays if s.array.name == "a")
    assert a.banking.scheme.describe().startswith("per_dim cyclic 2 x cyclic 2:")
    emitted = compiled.files["stencil.cpp"]
    assert "switch ((i % 2) * 2 + j % 2) {" in emitted and "case 3: {" in emitted
    assert "((i - 1) - i)][2*(j / 2) + 1 + ((j) - j)]" in emitted  # case 3
    assert _iis(compiled) == {"L4": 1}
    run = run_testbench(compiled, tmp_path)
    assert run.returncode == 0 and "PASS" in run.stdout, run.stdout + run.stderr
    assert_the_trace_agrees(compiled, tmp_path, ports=2)


def test_an_iterator_of_a_loop_in_the_caller_is_not_phased(tmp_path):
    """The ``i`` loop is in the top function, the stencil's text in a sub-function that
    cannot name it: no switch."""
    path = tmp_path / "rows.c"
    path.write_text("static void row(const float a[34][34], float b[34][34], int r) {\n"
                    "  for (int j = 1; j < 33; j++)\n"
                    "    b[r][j] = 0.2f * (a[r][j] + a[r][j - 1] + a[r][j + 1] + a[r + 1][j]"
                    " + a[r - 1][j]);\n}\n"
                    "void rows(const float a[34][34], float b[34][34]) {\n"
                    "  for (int i = 1; i < 33; i++) row(a, b, i);\n}\n")
    compiled = arraypart.compile_kernel(str(path))
    assert "switch" not in compiled.files["rows.cpp"]


GATHER = """\
void gather(const int offset[40], const int b[40], int out[36]) {
  int c[64];
  for (int i = 0; i < 64; i++) c[i] = 3 * i;
  for (int i = 0; i < 36; i++) {
#pragma HLS pipeline II=1
    out[i] = b[i] + b[i + 1] + b[i + 2] + c[offset[i] & 63];
  }
}
"""


@needs_gxx
def test_references_nested_in_a_copied_reference_stay_as_written(tmp_path):
    """``c[offset[i] & 63]`` is copied into each case as written, the reference inside
    it too (an edit for each would overlap: Merlin's loop_parallel test_pattern1 hit
    that); only b's subscripts change."""
    path = tmp_path / "gather.c"
    path.write_text(GATHER)
    compiled = arraypart.compile_kernel(str(path))
    emitted = compiled.files["gather.cpp"]
    assert "switch (i % 2) {" in emitted and emitted.count("c[offset[i] & 63]") == 2
    assert _iis(compiled)["L4"] == 1
    run = run_testbench(compiled, tmp_path)
    assert run.returncode == 0 and "PASS" in run.stdout, run.stdout + run.stderr


SHADOWED = """\
void shadowed(int a[64], int b[64], int n) {
#pragma HLS resource variable=a core=RAM_1P_BRAM
  for (int i = 0; i < 63; i++) {
#pragma HLS pipeline II=1
    {
      int t = i;
      {
        int i = t + 1;
        b[t] = a[i - 1] + a[63 - t];
      }
    }
  }
}
"""


@needs_gxx
def test_a_body_that_declares_the_iterator_again_gets_no_phase_switch(tmp_path):
    """The phased subscripts name the pipelined loop's iterator, which the inner
    ``int i`` hides: the switch read the inner one, and the banked kernel indexed past
    ``a`` (ASan) with a wrong result.  Such a loop keeps its references."""
    path = tmp_path / "shadowed.c"
    path.write_text(SHADOWED)
    compiled = arraypart.compile_kernel(str(path))
    assert "switch" not in compiled.files["shadowed.cpp"]
    run = run_testbench(compiled, tmp_path)
    assert run.returncode == 0 and "PASS" in run.stdout, run.stdout + run.stderr


WINDOW_DECLARED = """\
void window(const int a[72], int out[64], int n) {
#pragma HLS resource variable=a core=RAM_1P_BRAM
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    int s = a[i] + a[i + 1] + a[i + 2] + a[i + 3] + a[i + 4] + a[i + 5] + a[i + 6]
          + a[i + 7];
    int t = 0;
    for (int k = 0; k < 8; k++) {
      if (k > n) continue;
      t += a[i + k];
    }
    out[i] = s - t;
  }
}
"""


@needs_gxx
def test_a_declaration_and_a_loop_that_continues_itself_are_phased(tmp_path):
    """``int s = <window>;`` is split (``int s;`` before the switch, ``s = ...`` in
    each case: the name outlives the cases), and the inner loop's ``continue`` stays
    its own inside a case.  Both statements used to be refused a switch, which left
    the interface as one memory at II 8."""
    path = tmp_path / "window.c"
    path.write_text(WINDOW_DECLARED)
    compiled = arraypart.compile_kernel(str(path))
    emitted = compiled.files["window.cpp"]
    assert emitted.count("switch (i % ") == 2 and "    int s;\n" in emitted
    assert _iis(compiled) == {"L3": 1}  # 8 elements read, one per one-port bank
    run = run_testbench(compiled, tmp_path)
    assert run.returncode == 0 and "PASS" in run.stdout, run.stdout + run.stderr
    assert_the_trace_agrees(compiled, tmp_path, ports=2)


UNROLLED_WINDOW = """\
void window(const int a[81], int out[64]) {
#pragma HLS resource variable=a core=RAM_1P_BRAM
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
#pragma HLS unroll factor=2
    int s = 0;
    for (int t = 0; t < 17; t++) s += a[i + t];
    out[i] = s;
  }
}
"""


def test_a_window_unrolled_by_two_keeps_its_lanes_on_cyclic_2(tmp_path):
    """A 17-tap window unrolled by 2 on a one-port interface: its loop gets no phase
    switch, so every banking but one whose lanes stay on their bank rotates to II 18.
    Targets raised 1, 2, 4, 8, ... reach cyclic 2 at the raised target 9, where each
    lane ``i + u + t`` (``i`` even) keeps bank ``(u + t) mod 2``: II 9 (the targets
    raised by 1, 2 and then the whole gap found only one memory, II 18)."""
    path = tmp_path / "window.c"
    path.write_text(UNROLLED_WINDOW)
    compiled = arraypart.compile_kernel(str(path))
    a = next(s for s in compiled.report.solution.arrays if s.array.name == "a")
    assert a.banking.scheme.describe().startswith("per_dim cyclic 2:")
    assert _iis(compiled) == {"L3": 9}


UNROLLED_3X3 = """\
void top(float A[64][64], float B[64][64], float f[9]) {
#pragma HLS INTERFACE mode=ap_memory port=A storage_type=ram_s2p
#pragma HLS INTERFACE mode=ap_memory port=B storage_type=ram_s2p
#pragma HLS INTERFACE mode=ap_memory port=f storage_type=ram_s2p
#pragma HLS ARRAY_PARTITION variable=A type=cyclic factor=4 dim=2
  for (int r = 0; r < 62; r++) {
    lp2: for (int c = 0; c < 62; c++) {
#pragma HLS PIPELINE
#pragma HLS UNROLL factor=4
      float t = 0;
      for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
          t += f[3 * a + b] * A[r + a][c + b];
      B[r][c] = t;
    }
  }
}
"""


def test_replacing_partitions_finds_the_ii_between_two_raised_targets(tmp_path):
    """A 3x3 window unrolled by 4 on interfaces (hierarchical-gnn-for-hls's stencil
    directives): the user's cyclic 4 on A keeps every lane on its bank, 6 reads a
    bank, II 6.  ``--replace-partitions`` raised the targets to 2, 3, 5 (missed) and
    9, where it took the cheaper cyclic 2: II 9, worse than the pragmas it replaced
    (probe 29 F5).  A bisection between 5 and 9 reaches cyclic 4 at II 6."""
    path = tmp_path / "window.c"
    path.write_text(UNROLLED_3X3)
    kept = arraypart.compile_kernel(str(path))
    replaced = arraypart.compile_kernel(str(path), replace_partitions=True)
    assert _iis(kept) == _iis(replaced) == {"lp2": 6}
    a = next(s for s in replaced.report.solution.arrays if s.array.name == "A")
    assert a.banking.scheme.describe().startswith("per_dim none x cyclic 4:")


TABLE_IN_A_CALLEE = """\
static int win4(const int h[35], int i) { return h[i] + h[i + 1] + h[i + 2] + h[i + 3]; }
void window(int in[35], int out[32]) {
  int h[35];
  for (int i = 0; i < 35; i++) h[i] = in[i];
  for (int i = 0; i < 32; i++) {
#pragma HLS pipeline II=1
    out[i] = win4(h, i);
  }
}
"""


def test_a_switch_the_emission_cannot_write_is_searched_without(tmp_path):
    """``h``'s four reads are in a sub-function's text, where no phase switch is
    written: cyclic 4, chosen for its period-4 rotation, left II 2 under the rule.  The
    search again without phase switches in that loop takes registers: II 1."""
    path = tmp_path / "window.c"
    path.write_text(TABLE_IN_A_CALLEE)
    compiled = arraypart.compile_kernel(str(path))
    h = next(s for s in compiled.report.solution.arrays if s.array.name == "h")
    assert h.banking.scheme.registers
    assert set(_iis(compiled).values()) == {1}


PRECEDENCE = """\
#define N 8
void precedence(int a[48], int b[16]) {
  for (int i = 0; i < 16; i++) {
#pragma HLS pipeline II=1
    b[i] = a[i << 1] + a[(i << 1) + 1] + a[(i << 1) + 2] + a[(i << 1) + 3]
         + a[N > 4 ? i : i + 1] + a[i + 32];
  }
}
"""


@needs_gxx
def test_a_phased_subscript_keeps_its_operators_precedence(tmp_path):
    """The phase of ``a[i << 1]`` was written ``(i << 1 - 2*i)``, a shift by a
    negative amount (SEGV), and that of ``a[N > 4 ? i : i + 1]`` ``(N > 4 ? i : i + 1
    - i)``: the subscript as written now goes in parentheses."""
    path = tmp_path / "precedence.c"
    path.write_text(PRECEDENCE)
    compiled = arraypart.compile_kernel(str(path))
    emitted = compiled.files["precedence.cpp"]
    assert "((i << 1) + 1) - 2*i)" in emitted and "((N > 4 ? i : i + 1) - i)" in emitted
    run = run_testbench(compiled, tmp_path)
    assert run.returncode == 0 and "PASS" in run.stdout, run.stdout + run.stderr


PIPELINED_FUNCTION = """\
static void step(const int a[68], int out[64], int i) {
#pragma HLS pipeline II=1
  out[i] = a[i] + a[i + 1] + a[i + 2] + a[i + 3];
}
void top(const int a[68], int out[64]) {
#pragma HLS resource variable=a core=RAM_1P_BRAM
  for (int i = 0; i < 64; i++) {
    step(a, out, i);
  }
}
"""

LABELLED_DECLARATION = """\
void window(const int a[72], int out[64]) {
#pragma HLS resource variable=a core=RAM_1P_BRAM
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    here: int s = a[i] + a[i + 1] + a[i + 2] + a[i + 3];
    out[i] = s;
  }
}
"""


@needs_gxx
@pytest.mark.parametrize("name, text", [("top.c", PIPELINED_FUNCTION),
                                        ("window.cpp", LABELLED_DECLARATION)])
def test_statements_no_switch_can_hold_keep_their_text(tmp_path, name, text):
    """A pipelined function's body has no ``for`` whose iterator a switch could read
    (an internal error), and C++'s ``here: int s = ...;`` declares ``s`` for the
    statements after it (the switch hid it from ``out[i] = s``: the emitted kernel
    did not compile).  Both keep their references as written."""
    path = tmp_path / name
    path.write_text(text)
    compiled = arraypart.compile_kernel(str(path))
    assert "switch (" not in compiled.files[name.split(".")[0] + ".cpp"]
    run = run_testbench(compiled, tmp_path)
    assert run.returncode == 0 and "PASS" in run.stdout, run.stdout + run.stderr


def test_a_time_limit_during_the_raised_searches_is_reported(tmp_path):
    """A 257-tap window unrolled by 2: the searches at raised targets outlast a 2 s
    limit.  They ended silently (``time_limit_reached`` false, no warning), and the
    banking they left became one memory with only the note that its banks lowered
    nothing."""
    path = tmp_path / "window.c"
    path.write_text(UNROLLED_WINDOW.replace("a[81]", "a[321]").replace("t < 17", "t < 257"))
    report = arraypart.analyze(str(path), time_limit=2)
    assert report.to_json()["time_limit_reached"] is True
    assert any("solver time limit" in w for w in report.warnings)


@needs_gxx
def test_an_ap_number_declaration_is_split_too(tmp_path):
    """``ap_uint<5> s = ...;``: clang's initializer of a class type starts at the
    name, so the split found no ``=`` between them and refused it (II 4)."""
    path = tmp_path / "window.cpp"
    path.write_text("#include <ap_int.h>\n" + WINDOW_DECLARED.replace(
        "int s = ", "ap_uint<5> s = "))
    compiled = arraypart.compile_kernel(str(path))
    assert "    ap_uint<5> s;\n" in compiled.files["window.cpp"]
    assert _iis(compiled) == {"L4": 1}
    run = run_testbench(compiled, tmp_path)
    assert run.returncode == 0 and "PASS" in run.stdout, run.stdout + run.stderr


SHORT_LOOP_AROUND = """\
void taps(const int x[34][34], int y[32][32]) {
  for (int kw = 0; kw < 3; kw++)
    for (int i = 0; i < 32; i++) {
#pragma HLS pipeline II=1
      for (int j = 0; j < 32; j++)
        y[i][j] += x[i][j + kw];
    }
}
"""


def test_a_loop_shorter_than_its_period_gets_a_case_per_reached_phase(tmp_path):
    """Depthwise convolution's taps: 32 lanes on interface ``x`` take cyclic 16, whose
    banks rotate with ``kw`` (period 16).  ``kw`` only takes 0..2: the switch had 16
    cases, 13 of which no iteration reaches (probe 25, item 13)."""
    path = tmp_path / "taps.c"
    path.write_text(SHORT_LOOP_AROUND)
    compiled = arraypart.compile_kernel(str(path))
    emitted = compiled.files["taps.cpp"]
    assert "switch (kw % 16) {" in emitted
    assert [c for c in range(16) if f"case {c}: {{" in emitted] == [0, 1, 2]
    run = run_testbench(compiled, tmp_path)
    assert run.returncode == 0 and "PASS" in run.stdout, run.stdout + run.stderr


MACRO_ARGUMENTS = """\
#define ADD3(a, b, c) ((a) + (b) + (c))
void sum3(const int buf[66], int out[64]) {
#pragma HLS bind_storage variable=buf type=ram_1p
  L: for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    out[i] = ADD3(buf[i], buf[i + 1], buf[i + 2]);
  }
}
"""


def test_references_in_a_macros_arguments_keep_their_text(tmp_path):
    """clang may place the parts of a reference written as a macro's argument in the
    expansion: their text was pasted as empty, ``ADD3([3*(i / 3) + (() - i)], ...)``,
    and the emitted kernel did not parse (exit 3; probe 25b, item 4)."""
    path = tmp_path / "sum3.c"
    path.write_text(MACRO_ARGUMENTS)
    compiled = arraypart.compile_kernel(str(path))
    assert "ADD3(buf[i], buf[i + 1], buf[i + 2])" in compiled.files["sum3.cpp"]
    run = run_testbench(compiled, tmp_path)
    assert run.returncode == 0 and "PASS" in run.stdout, run.stdout + run.stderr


COUNTED_DOWN = """\
void counted(const int in[64], int out[64]) {
  int buf[64], rev[65];
  int w = 63, r = 64;
  L: for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    buf[w--] = in[i];
    rev[--r] = in[i] * 2;
  }
  M: for (int i = 0; i < 32; i++) {
#pragma HLS pipeline II=1
    out[2 * i] = buf[2 * i] + buf[2 * i + 1] + rev[i] + w;
    out[2 * i + 1] = rev[63 - i] + rev[i + 32] + r;
  }
}
"""


def test_a_loop_without_the_stepped_subscript_keeps_its_phase_switch(tmp_path):
    """``rev[--r]`` keeps rev's references as written, and its own statement gets no
    phase switch; loop M, which does not step r, still does: it went from II 1 to
    II 2 when every loop of such an array lost its switches (probe 25c, item 8)."""
    path = tmp_path / "counted.c"
    path.write_text(COUNTED_DOWN)
    compiled = arraypart.compile_kernel(str(path))
    assert compiled.files["counted.cpp"].count("switch (") >= 1
    assert _iis(compiled) == {"L": 1, "M": 1}
    run = run_testbench(compiled, tmp_path)
    assert run.returncode == 0 and "PASS" in run.stdout, run.stdout + run.stderr


STEPPED_FILL = """\
static void fill(int va[256]) {
  for (int i = 0; i < 256; i += 32) {
#pragma HLS pipeline II=1
    for (int ii = 0; ii < 32; ii++) {
#pragma HLS unroll
      va[i + ii] = (i + ii) * 3; } } }
void rot2(int out[256]) { int va[256];
#pragma HLS array_partition variable=va type=cyclic factor=128 dim=1
  fill(va); for (int i = 0; i < 256; i++) {
#pragma HLS pipeline II=1
      out[i] = va[i]; } }
"""

STEPPED_FILL_2D = """\
static void fill(int va[4][256]) {
  for (int r = 0; r < 4; r++)
  for (int i = 0; i < 256; i += 32) {
#pragma HLS pipeline II=1
    for (int ii = 0; ii < 32; ii++) {
#pragma HLS unroll
      va[r][i + ii] = (i + ii) * 3 + r; } } }
void rot2(int out[4][256]) { int va[4][256];
#pragma HLS array_partition variable=va type=cyclic factor=128 dim=2
  fill(va); for (int r = 0; r < 4; r++) for (int i = 0; i < 256; i++) {
#pragma HLS pipeline II=1
      out[r][i] = va[r][i]; } }
"""


@needs_gxx
@pytest.mark.parametrize("text", [STEPPED_FILL, STEPPED_FILL_2D], ids=["1d", "2d"])
def test_a_stepped_iterator_is_phased_by_the_iterations_it_takes(tmp_path, text):
    """Probe 40 (issue #13): cyclic 128 on a callee's ``va[i + ii]``, ``i += 32``: the
    banks repeat every 4 iterations, as the search priced (II 1), but the emission
    took the period in values of ``i`` for one in iterations, ``128 / gcd(1, 128)``
    phases, past its limit, and wrote none: II 16.  The switch is over ``i % 128``
    with a case for each of the 4 residues ``i`` takes."""
    path = tmp_path / "rot2.cpp"
    path.write_text(text)
    compiled = arraypart.compile_kernel(str(path))
    emitted = compiled.files["rot2.cpp"]
    assert "switch (i % 128) {" in emitted
    assert [c for c in range(128) if f"case {c}: {{" in emitted] == [0, 32, 64, 96]
    assert set(_iis(compiled).values()) == {1}
    written = tmp_path / "emitted" / "rot2.cpp"
    written.parent.mkdir()
    written.write_text(emitted)
    _, _, as_written = arraypart.api.check_kernel(written, as_written=True)
    assert {loop.achieved_ii for loop in as_written.loops} == {1}
    run = run_testbench(compiled, tmp_path)
    assert run.returncode == 0 and "PASS" in run.stdout, run.stdout + run.stderr


STARTED_BY_AN_ITERATOR = """\
static void fill(int va[512]) {
  for (int r = 0; r < 4; r++)
  for (int i = 32 * r; i < 256; i += 32) {
#pragma HLS pipeline II=1
    for (int ii = 0; ii < 32; ii++) {
#pragma HLS unroll
      va[i + ii] += (i + ii) * 3 + r; } } }
void rot2(int out[256]) { int va[512];
#pragma HLS array_partition variable=va type=cyclic factor=128 dim=1
  for (int i = 0; i < 512; i++) va[i] = 0;
  fill(va); for (int i = 0; i < 256; i++) {
#pragma HLS pipeline II=1
      out[i] = va[i]; } }
"""


@needs_gxx
def test_a_loop_started_by_an_outer_iterator_gets_the_switch_the_search_priced(tmp_path):
    """Issue #13: ``i`` starts at ``32*r``, steps by 32, under cyclic 128: the search
    priced a switch of 4 phases, but the emission took every residue of ``i % 128``
    as reached (its start is no constant), 128 cases past its limit, and wrote none:
    II 32.  ``i`` is 0 modulo 32 whatever ``r``: the 4 cases 0, 32, 64, 96."""
    path = tmp_path / "rot2.cpp"
    path.write_text(STARTED_BY_AN_ITERATOR)
    compiled = arraypart.compile_kernel(str(path))
    emitted = compiled.files["rot2.cpp"]
    assert "switch (i % 128) {" in emitted
    assert [c for c in range(128) if f"case {c}: {{" in emitted] == [0, 32, 64, 96]
    assert set(_iis(compiled).values()) == {1}
    run = run_testbench(compiled, tmp_path)
    assert run.returncode == 0 and "PASS" in run.stdout, run.stdout + run.stderr


@pytest.mark.parametrize("name, text, phased", [
    ("unpack_sum", UNPACK, {"unpack/UNPACK"}),
    ("rot2", STARTED_BY_AN_ITERATOR, {"fill/L3"}),
    ("rot2", STEPPED_FILL, {"fill/L2"}),
    ("rot2", STEPPED_FILL_2D, {"fill/L3"}),
], ids=["unpack", "started", "stepped", "stepped_2d"])
def test_the_searchs_phase_switches_are_the_ones_emitted(tmp_path, name, text, phased):
    """The loops whose rotating lanes the search priced with a phase switch (among
    them ``phased``; INIT's one lane needs none) reach that II in the emitted code:
    none reaches a larger II than the search priced it at."""
    path = tmp_path / f"{name}.c"
    path.write_text(text)
    report = arraypart.compile_kernel(str(path), top=name).report
    assert phased <= {loop for s in report.solution.arrays for loop in s.phased_loops}
    assert all(report.memory_ii(n, loop.name, loop.target_ii)
               <= report.planned_ii(loop.name, loop.target_ii)
               for n, loop in enumerate(report.model.loops))



# A window at a run-time offset on an interface array (Spector's histogram reads
# data[count + offset + m]): under cyclic B lane m's bank is (offset + m) mod B, the
# same in every iteration, but no compile-time value.  It was kept one memory at II 4
# (probe 42 F2); a switch over offset % B gives each lane a compile-time bank.
OFFSET_WINDOW = """\
void off(int data[1024], int out[64], unsigned char offset) {
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    int s = 0;
    for (int m = 0; m < 8; m++)
      s += data[8 * i + offset + m];
    out[i] = s;
  }
}
"""


def test_a_run_time_offset_gets_a_phase_switch(compiled_once):
    """Eight reads a cycle on two ports a bank: cyclic 4, one case per residue of
    offset % 4, II 1 in the model and in the emitted code's schedule."""
    compiled = compiled_once("off.cpp", OFFSET_WINDOW, top="off")
    data = next(a for a in compiled.report.solution.arrays if a.array.name == "data")
    assert data.banking.scheme.describe().startswith("per_dim cyclic 4")
    assert data.phased_loops == ("L2",)
    assert "switch (offset % 4) {" in compiled.files["off.cpp"]
    assert _iis(compiled) == {"L2": 1}
    assert [loop.achieved_ii for loop in compiled.report.scheduled.loops] == [1]


@needs_gxx
def test_the_offset_switch_computes_what_the_original_does(compiled_once, tmp_path):
    compiled = compiled_once("off.cpp", OFFSET_WINDOW, top="off")
    run = run_testbench(compiled, tmp_path)
    assert run.returncode == 0 and "PASS" in run.stdout, run.stdout[-2000:]
    judged = assert_the_trace_agrees(compiled, tmp_path, ports=2)
    assert [loop.traced_ii for loop in judged.replay.loops] == [1]


def test_a_bank_moved_by_a_run_time_offset_is_named_with_its_fix(compiled_once):
    """An offset that may be negative gets no switch (C's % of it is no floor): the
    warning blamed 'a lane whose bank changes with the iteration' (probe 42 F2),
    which it does not; it names the run-time value and the fix."""
    signed = OFFSET_WINDOW.replace("unsigned char offset", "signed char offset").replace(
        "offset + m]", "offset + m + 128]")
    report = compiled_once("off.cpp", signed, top="off").report
    missed = [w for w in report.warnings if "no banking of data" in w]
    assert len(missed) == 1 and "run-time value of 'offset'" in missed[0] and \
        "one case per residue of 'offset'" in missed[0], missed


def test_an_int_offset_that_only_the_arrays_bound_is_told_to_be_unsigned(compiled_once):
    """``int offset``, bounded by data's extent alone: the emitted ``offset / 4`` would
    read back as a truncation of any sign, so no switch is written, the loop keeps
    II 4, and the warning says what would give the banks compile-time values."""
    compiled = compiled_once("off.cpp", OFFSET_WINDOW.replace("unsigned char offset",
                                                              "int offset"), top="off")
    assert "switch" not in compiled.files["off.cpp"]
    assert _iis(compiled) == {"L2": 4}
    said = [w for w in compiled.report.warnings if "data keeps one memory" in w]
    assert len(said) == 1 and "run-time value of 'offset'" in said[0] and \
        "only for an unsigned argument" in said[0], said
