"""Store forwarding and dead stores within one pipeline iteration (issue 13).

The HLS tool keeps an element that one iteration writes in a register: a read of it
after the write, with no write of the array between that may alias it (one a constant
away never does), takes no port, nor does a store a later one overwrites with no read
between that takes one and may alias it (:mod:`arraypart.poly.forwarding`).  The model, the checker and the trace's replay
apply the rule each on their own; every access it does not cover still counts."""

import pytest

import arraypart
from arraypart import check

from conftest import assert_the_testbench_passes, assert_the_trace_agrees, needs_gxx, write

# SDAccel's cpu_to_fpga/04_partition_c (Vitis reaches II 1): lc[i][j] is written by
# its init and by each of 64 unrolled lanes, and read by each lane.
ACC = """\
#define N 64
void acc(const int a[N][N], const int b[N][N], int c[N][N]) {
    int la[N][N], lb[N][N], lc[N][N];
#pragma HLS ARRAY_PARTITION variable=la dim=2 complete
#pragma HLS ARRAY_PARTITION variable=lb dim=1 complete
#pragma HLS ARRAY_PARTITION variable=lc dim=2 complete
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
#pragma HLS PIPELINE II=1
            la[i][j] = a[i][j];
            lb[i][j] = b[i][j];
        }
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
#pragma HLS PIPELINE II=1
            lc[i][j] = 0;
            for (int k = 0; k < N; k++) {
#pragma HLS UNROLL
                lc[i][j] += la[i][k] * lb[k][j];
            }
        }
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
#pragma HLS PIPELINE II=1
            c[i][j] = lc[i][j];
        }
}
"""

# One pipelined loop over a one-port local array; BODY is the iteration.
SMALL = """\
void k(const int x[16], const int idx[16], int y[16]) {
  DECL a[32];
  for (int i = 0; i < 32; i++) a[i] = 0;
  for (int i = 0; i < 16; i++) {
#pragma HLS PIPELINE II=1
BODY
  }
}
"""

# a[i] written, read back, written again, read back: one write takes a port
FORWARDED = "a[i] = x[i];\na[i] = a[i] + 1;\ny[i] = a[i];"


def _loop_iis(report) -> list[int]:
    return [loop["achieved_ii"] for loop in report.to_json()["loops"]]


def _ports_taken(compiled_once, body: str, decl: str = "int") -> tuple[int, int, int]:
    """The pipelined loop's accesses of ``a`` in the model, the checker's II and the
    scheduling rule's II with ``a`` one single-port memory (each access a cycle)."""
    return _ports_taken_in(compiled_once, SMALL.replace("DECL", decl), body)


def _ports_taken_in(compiled_once, text: str, body: str = FORWARDED) -> tuple[int, int, int]:
    """:func:`_ports_taken` of the kernel ``text`` (its DECL filled in), compiled once
    in the module with one port (the trace tests share the compile)."""
    report = compiled_once("k.cpp", text.replace("BODY", body), ports=1).report
    loop = report.model.loops[1].name
    model = max(len(g.accesses) for g in report.model.array("a").groups if g.loop == loop)
    one = check.as_written_bankings(report.kernel)
    iis = [check.check_kernel(report.kernel, one, ports=1, rule=rule).loops[1].achieved_ii
           for rule in (False, True)]
    return model, *iis


def test_the_accumulated_element_takes_one_write_port(compiled_once):
    compiled = compiled_once("acc.cpp", ACC)
    assert _loop_iis(compiled.report) == [1, 1, 1]
    lc = compiled.report.model.array("lc").groups
    (group,) = [g for g in lc if g.loop == "L14"]
    assert [a.kind for a in group.accesses] == ["write"]
    assert len(group.free) == 64 + 64  # the init and 63 lanes' writes, 64 reads
    checked = check.check_kernel(compiled.report.kernel, compiled.report.solution.bankings(),
                                 rule=True)
    assert [lp.achieved_ii for lp in checked.loops] == [1, 1, 1]
    as_written = check.check_kernel(compiled.report.kernel,
                                    check.as_written_bankings(compiled.report.kernel),
                                    rule=True)
    assert [lp.achieved_ii for lp in as_written.loops] == [1, 1, 1]
    # a write followed by an access of the same element is never routed bank by bank
    # (codegen.bankcentric): the tool sees the text it forwards in
    assert "lc[i][j] += la[i][k] * lb[k][j];" in compiled.files["acc.cpp"]


@needs_gxx
def test_the_accumulator_traces_and_computes_as_the_original(compiled_once, tmp_path):
    compiled = compiled_once("acc.cpp", ACC)
    judged = assert_the_trace_agrees(compiled, tmp_path, ports=2)
    assert [loop.traced_ii for loop in judged.replay.loops] == [1, 1, 1]
    assert_the_testbench_passes(compiled, tmp_path)


@pytest.mark.parametrize("body, taken", [
    (FORWARDED, (1, 1, 1)),
    # a dead store: the read between is forwarded
    ("a[i] = 1;\ny[i] = a[i];\na[i] = x[i];", (1, 1, 1)),
    # a read before any write still reads, once (two reads of one element)
    ("y[i] = a[i] + a[i];\na[i] = 1;\na[i] = x[i];", (3, 2, 2)),
    # a write a constant away never aliases the read: forwarded past it (3 before)
    ("a[i] = x[i];\na[i + 1] = 5;\ny[i] = a[i];", (2, 2, 2)),
    ("a[i + 3] = x[i];\na[i] = 5;\na[i + 1] = 6;\ny[i] = a[i + 3];", (3, 3, 3)),
    # nor does a read a constant away keep the first store alive (3 before)
    ("a[i] = 1;\ny[i] = a[i + 1];\na[i] = x[i];", (2, 2, 2)),
    # the read between is forwarded past a[i + 1]: the first store of a[i] is dead
    ("a[i] = 1;\na[i + 1] = 2;\ny[i] = a[i];\na[i] = x[i];", (2, 2, 2)),
    # a write of the element in a data-dependent if between: whichever ran last, the
    # read takes its value from a register (3 before), and the element leaves in one
    # store (LLVM's SimplifyCFG makes a store after a store of its address a select:
    # 2 before probe 42 F1)
    ("a[i] = 0;\nif (x[i] > 0) a[i] = 1;\ny[i] = a[i];", (1, 1, 1)),
    ("a[i] = x[i];\ny[i] = a[i];\nif (x[i] > 0) a[i] = 1;", (1, 1, 1)),
    # and one a later plain write overwrites is dead: the read between loads only
    # where it did not run (AutoSA's accumulator init; 3 before)
    ("if (x[i] > 0) a[i] = 0;\na[i] = a[i] + 1;", (2, 2, 2)),
    ("if (x[i] > 0) a[i] = 0;\na[i] = a[i] + 1;\ny[i] = a[i];", (2, 2, 2)),
])
def test_forwarded_reads_and_dead_stores_take_no_port(compiled_once, body, taken):
    assert _ports_taken(compiled_once, body) == taken


@pytest.mark.parametrize("blocked, taken", [
    # a write at an irregular subscript between may be the element
    ("a[i] = x[i];\na[idx[i] & 31] = 5;\ny[i] = a[i];", (3, 3, 3)),
    # another variable part between may alias (a[2i] is a[i] at i = 0): it blocks
    ("a[i] = x[i];\na[2 * i] = 5;\ny[i] = a[i];", (3, 3, 3)),
    ("a[i] = x[i];\na[i / 2] = 5;\ny[i] = a[i];", (3, 3, 3)),
    # C writes a[idx[i] & 31] before it reads a[i] in one statement
    ("a[i] = x[i];\na[idx[i] & 31] = 5, y[i] = a[i];", (3, 3, 3)),
    # a read that may alias the first store between keeps it
    ("a[i] = 1;\ny[i] = a[2 * i];\na[i] = x[i];", (3, 3, 3)),
    ("a[i] = 1;\ny[i] = a[idx[i] & 31];\na[i] = x[i];", (3, 3, 3)),
    # a constant-offset write after a conditional one of the element: the trace, with
    # no shape for a site that runs in some steps only, could not see past it (the
    # conditional store leaves with the plain one before it: 4 before probe 42 F1)
    ("a[i] = x[i];\nif (x[i] > 0) a[i] = 1;\na[i + 1] = 5;\ny[i] = a[i];", (3, 3, 3)),
    # a write in a data-dependent if at another subscript may alias: it blocks
    ("a[i] = x[i];\nif (x[i] > 0) a[i + 1] = 1;\ny[i] = a[i];", (3, 3, 3)),
    # one of the element with no plain write before: the read loads where it did not
    # run, and the write stays, no later plain write overwrites it
    ("if (x[i] > 0) a[i] = 1;\ny[i] = a[i];", (2, 2, 2)),
    # a read that may alias the plain store between it and the conditional one
    ("a[i] = x[i];\ny[i] = a[idx[i] & 31];\nif (x[i] > 0) a[i] = 1;", (3, 3, 3)),
    # an operand of ?: the data decides
    ("a[i] = x[i];\nx[i] > 0 ? (a[i] = 2) : 0;\ny[i] = a[i];", (3, 3, 3)),
])
def test_what_may_not_be_forwarded_is_counted(compiled_once, blocked, taken):
    assert _ports_taken(compiled_once, FORWARDED) == (1, 1, 1)
    assert _ports_taken(compiled_once, blocked) == taken


def test_a_volatile_array_makes_every_access(compiled_once):
    """A volatile array's accesses are all made.  Its two reads of a[i] are two loads:
    a write of a lies between them (probe 36 F1; they counted as one before
    2026-12-07)."""
    assert _ports_taken(compiled_once, FORWARDED) == (1, 1, 1)
    assert _ports_taken(compiled_once, FORWARDED, "volatile int") == (4, 4, 4)


# The SMALL kernel's array a, which only plain subscripts of the top name, declared so
# that no other name may reach it (issue 13: LLVM's GlobalsAA, C's restrict): the
# kernel's text with DECL and BODY filled in.
UNALIASED = {
    "static local": SMALL.replace("DECL", "static int"),
    "static file-scope": "static int a[32];\n" + SMALL.replace("  DECL a[32];\n", ""),
    "restrict argument": SMALL.replace("int y[16]) {\n  DECL a[32];",
                                       "int y[16], int *__restrict a) {"),
    # Vitis takes different arguments of the top for independent channels (UG1399,
    # pragma HLS alias): (4, 2, 2) before probe 42 F1
    "unqualified argument": SMALL.replace("int y[16]) {\n  DECL a[32];",
                                          "int y[16], int *a) {"),
}

# The same arrays where another name may reach them: every access is made (four
# cycles of one port; the pointer argument's memory has two).
ALIASED = {
    "static local whose element a callee binds": (
        "int *kept;\nvoid keep(int &v) { kept = &v; }\n"
        + SMALL.replace("DECL a[32];", "static int a[32];\n  keep(a[0]);"), (4, 4, 4)),
    "static file-scope whose address a global holds": (
        "static int a[32];\nint *const escaped = a;\n"
        + SMALL.replace("  DECL a[32];\n", ""), (4, 4, 4)),
    "static file-scope another function returns": (
        "static int a[32];\nint *leak() { return a; }\n"
        + SMALL.replace("  DECL a[32];\n", ""), (4, 4, 4)),
    "file-scope with external linkage": (
        "int a[32];\n" + SMALL.replace("  DECL a[32];\n", ""), (4, 4, 4)),
}


@pytest.mark.parametrize("case", sorted(UNALIASED))
def test_an_array_no_other_name_reaches_is_forwarded(compiled_once, case):
    """A static array that only plain subscripts of the top name (an internal global
    whose address is not taken: LLVM's GlobalsAA), or an argument beside another
    written argument (y), is forwarded as a local is: one write takes a port (it took
    four before issue 13's fix, as an array a pointer argument may alias)."""
    assert _ports_taken_in(compiled_once, UNALIASED[case]) == (1, 1, 1)


@pytest.mark.parametrize("case", sorted(ALIASED))
def test_an_array_another_name_may_reach_makes_every_access(compiled_once, case):
    """Where the array's address (or an element's) leaves the top, another function
    names it, or it has external linkage (a caller may pass its address), a pointer
    argument may be it: every access is made."""
    text, taken = ALIASED[case]
    assert _ports_taken_in(compiled_once, text) == taken


# A static array's references: whether they keep it unaliased (no address of it or of
# an element leaves the top; a function of the kernel's text could keep one it is given
# by reference, a library's keeps none).
REFERENCES = """\
#include <ap_int.h>
int twice(int v) { return 2 * v; }
int peek(const int &v) { return v; }
RESULT k(const int x[16], int y[16]) {
  static TYPE a[32];
  for (int i = 0; i < 16; i++) {
#pragma HLS PIPELINE II=1
    a[i] = x[i];
    USE
  }
  RETURN
}
"""


@pytest.mark.parametrize("element, use, unaliased", [
    ("int", "y[i] = twice(a[i]);", True),  # by value
    ("int", "y[i] = peek(a[i]);", False),  # bound to a reference the callee could keep
    ("int", "y[i] = sizeof(a);", False),  # the array itself, not an element
    ("ap_int<12>", "a[i] += x[i];\n    y[i] = a[i];", True),  # the ap_int operators
])
def test_which_references_keep_a_static_array_unaliased(tmp_path, element, use, unaliased):
    text = REFERENCES.replace("TYPE", element).replace("USE", use)
    path = write(tmp_path, "k.cpp", text.replace("RESULT", "void").replace("RETURN", ""))
    assert arraypart.analyze(path).kernel.array("a").unaliased is unaliased


def test_an_element_returned_by_value_keeps_a_static_array_unaliased(tmp_path):
    text = REFERENCES.replace("TYPE", "int").replace("USE", "")
    path = write(tmp_path, "k.cpp", text.replace("RESULT", "int").replace(
        "RETURN", "return a[0];"))
    assert arraypart.analyze(path).kernel.array("a").unaliased


@needs_gxx
@pytest.mark.parametrize("case", sorted(UNALIASED))
def test_an_unaliased_array_traces_and_computes_as_the_original(compiled_once, tmp_path,
                                                                case):
    compiled = compiled_once("k.cpp", UNALIASED[case].replace("BODY", FORWARDED), ports=1)
    assert _loop_iis(compiled.report)[1] == 1
    judged = assert_the_trace_agrees(compiled, tmp_path, ports=1)
    assert judged.replay.loops[1].traced_ii == 1
    assert_the_testbench_passes(compiled, tmp_path)


def test_an_interface_array_is_forwarded_beside_other_arguments(tmp_path):
    """Vitis takes different arguments of the top for independent channels (UG1399,
    pragma HLS alias): an interface array is forwarded as a local is (4 accesses
    before probe 42 F1)."""
    text = SMALL.replace("DECL a[32];", "int a[32];").replace("BODY", FORWARDED)
    local = arraypart.analyze(write(tmp_path, "k.cpp", text), ports=1)
    interface = arraypart.analyze(write(tmp_path, "k.cpp", text.replace(
        "int y[16]) {\n  int a[32];", "int y[16], int a[32]) {")), ports=1)
    counts = [max(len(g.accesses) for g in r.model.array("a").groups if g.loop == loop)
              for r in (local, interface) for loop in [r.model.loops[1].name]]
    assert counts == [1, 1]


@needs_gxx
def test_the_trace_agrees_on_what_is_forwarded(compiled_once, tmp_path):
    for n, (body, ii) in enumerate([
            (FORWARDED, 1),
            ("a[i] = x[i];\na[idx[i] & 31] = 5;\ny[i] = a[i];", None),
            ("a[i] = 0;\nif (x[i] > 0) a[i] = 1;\ny[i] = a[i];", 1),
            ("a[i] = x[i];\nif (x[i] > 0) a[i] = 1;\na[i + 1] = 5;\ny[i] = a[i];", None),
            ("if (x[i] > 0) a[i] = 0;\na[i] = a[i] + 1;\ny[i] = a[i];", 2)]):
        folder = tmp_path / str(n)
        folder.mkdir()
        compiled = compiled_once("k.cpp", SMALL.replace("DECL", "int").replace("BODY", body),
                                 ports=1)
        judged = assert_the_trace_agrees(compiled, folder, ports=1)
        traced = judged.replay.loops[1]
        assert traced.traced_ii == (ii or traced.claim.claimed_ii), body
        assert_the_testbench_passes(compiled, folder)


# UG1399: a non-volatile pointer's accesses in one call merge into one write (m_axi, as
# the kernel flow makes it: without the pragma it is the Vivado flow's register port)
POINTER = """\
const int tab[8] = {3, 1, 4, 1, 5, 9, 2, 6};
void k(int x, int *out) {
#pragma HLS INTERFACE m_axi port=out depth=1
#pragma HLS PIPELINE II=1
  *out = 0;
  for (int i = 0; i < 8; i++) {
#pragma HLS UNROLL
    *out += tab[i] * x;
  }
}
"""

# The same accumulation in a pipelined loop over an m_axi array.
OFF_CHIP = """\
const int tab[8] = {3, 1, 4, 1, 5, 9, 2, 6};
void kl(int x, int out[16]) {
#pragma HLS INTERFACE m_axi port=out offset=slave bundle=gmem0 depth=16
  for (int j = 0; j < 16; j++) {
#pragma HLS PIPELINE II=1
    out[j] = 0;
    for (int i = 0; i < 8; i++) {
#pragma HLS UNROLL
      out[j] += tab[i] * (x + j);
    }
  }
}
"""


def test_a_pointer_argument_alone_is_forwarded(tmp_path):
    compiled = arraypart.compile_kernel(write(tmp_path, "k.cpp", POINTER))
    assert _loop_iis(compiled.report) == [1]


@needs_gxx
def test_an_off_chip_accumulator_takes_one_write_and_traces(compiled_once, tmp_path):
    compiled = compiled_once("kl.cpp", OFF_CHIP)
    assert _loop_iis(compiled.report) == [1]
    judged = assert_the_trace_agrees(compiled, tmp_path, ports=2)
    assert [loop.traced_ii for loop in judged.replay.loops] == [1]
    assert_the_testbench_passes(compiled, tmp_path)


def test_a_global_an_argument_may_point_into_makes_every_access(compiled_once, tmp_path):
    """A read of a global between two stores of an argument may read the first one
    (the argument may point into it); another argument may not (Vitis takes them for
    independent channels: II 9 before probe 42 F1)."""
    forwarded = compiled_once("kl.cpp", OFF_CHIP).report
    reading = OFF_CHIP.replace("(x + j)", "x[j]")
    argument, global_ = (arraypart.analyze(write(tmp_path, "kl.cpp", text)) for text in (
        reading.replace("void kl(int x, int out[16]) {",
                        "void kl(const int x[16], int out[16]) {"),
        "int x[16];\n" + reading.replace("void kl(int x, ", "void kl(")))
    assert [_loop_iis(r) for r in (forwarded, argument, global_)] == [[1], [1], [9]]


# probe 36b: three false claims the first rule made
RETURNS = """\
void k(int x, int out[64]) {
#pragma HLS PIPELINE II=1
  out[1] = x;
  EXIT
  out[1] = x * 3;
}
"""


@pytest.mark.parametrize("exit_", ["if (x < 0) return;",
                                   "switch (x & 3) { case 0: return; default: break; }"],
                         ids=["if-return", "switch-return"])
def test_a_return_in_a_pipelined_function_keeps_the_first_store(tmp_path, exit_):
    """Where the call returns between them, the first store is the final value: it is
    no dead store (probe 36b F3, II 1 claimed on ram_1p)."""
    path = write(tmp_path, "k.cpp", RETURNS.replace("EXIT", exit_))
    report = arraypart.analyze(path, ports=1)
    assert _loop_iis(report) == [2]
    ruled = check.check_kernel(report.kernel, report.solution.bankings(), ports=1)
    assert [loop.achieved_ii for loop in ruled.loops] == [2]


REFERENCED = """\
void k(int a[32], int &s) {
  for (int i = 0; i < 32; i++) {
#pragma HLS PIPELINE II=1
    a[i] = i;
    s += 1;
    a[i] = 2 * i;
  }
}
"""


def test_a_reference_parameter_may_name_an_element_of_an_argument(tmp_path):
    """``k(a, a[3])`` binds ``s`` to an element of ``a``, so a write of ``s`` between
    two stores of ``a[i]`` keeps both (probe 36b F1, II 1 claimed); a value
    parameter names nothing of the caller's."""
    referenced = arraypart.analyze(write(tmp_path, "k.cpp", REFERENCED), ports=1)
    by_value = arraypart.analyze(write(tmp_path, "k.cpp", REFERENCED.replace(
        "int &s", "int s")), ports=1)
    assert (_loop_iis(referenced), _loop_iis(by_value)) == ([2], [1])


def test_volatile_through_a_typedef_makes_every_access(tmp_path):
    """``typedef volatile int vint; vint a[32];`` is volatile as the direct spelling
    is (probe 36b F2: the typedef's qualifier was not seen, II 1 claimed)."""
    path = write(tmp_path, "k.cpp", "typedef volatile int vint;\n"
                 + SMALL.replace("DECL", "vint").replace("BODY", FORWARDED))
    assert arraypart.analyze(path).kernel.array("a").volatile


# A write a constant away from a read between it and the write of its element (issue 13,
# probe 37 F9): LLVM's BasicAA proves the two apart, so the read is forwarded.  Each
# kernel's array ``a`` is one single-port memory (max_banks 1): the II is the accesses
# of ``a`` that take a port.
PAST = {
    "1-D": ("""\
void k(const int x[16], int y[16]) {
  int a[32];
  for (int i = 0; i < 32; i++) a[i] = 0;
  for (int i = 0; i < 16; i++) {
#pragma HLS PIPELINE II=1
    a[i] = x[i];
    a[i + 1] = 5;
    y[i] = a[i];
  }
}
""", 2, 3),
    # row-major: a[i][3] and a[i + 1][0] are 4i + 3 and 4i + 4
    "2-D": ("""\
void k(const int x[16], int y[16]) {
  int a[17][4];
  for (int i = 0; i < 17; i++)
    for (int j = 0; j < 4; j++) a[i][j] = i + j;
  for (int i = 0; i < 16; i++) {
#pragma HLS PIPELINE II=1
    a[i][3] = x[i];
    a[i + 1][0] = 5;
    a[i][2] = 6;
    y[i] = a[i][3] + a[i][2];
  }
}
""", 3, 5),
    # lane 0 writes lane 1's element: lane 1's store overwrites it, and each lane's
    # read is forwarded past the write a constant away (6 before: 4 writes, 2 reads)
    "unrolled lanes": ("""\
void k(const int x[16], int y[32]) {
  int a[33];
  for (int i = 0; i < 33; i++) a[i] = 0;
  for (int i = 0; i < 16; i++) {
#pragma HLS PIPELINE II=1
    for (int u = 0; u < 2; u++) {
#pragma HLS UNROLL
      a[2 * i + u] = x[i] + u;
      a[2 * i + u + 1] = 5;
      y[2 * i + u] = a[2 * i + u];
    }
  }
}
""", 3, 6),
    # lane 0's write is the element lane 1 reads next: lane 1's read is forwarded from
    # it, as before (one read, two writes)
    "lane hitting another lane's element": ("""\
void k(const int x[16], int y[16]) {
  int a[33];
  for (int i = 0; i < 33; i++) a[i] = i;
  for (int i = 0; i < 16; i++) {
#pragma HLS PIPELINE II=1
    int s = x[i];
    for (int u = 0; u < 2; u++) {
#pragma HLS UNROLL
      s += a[i + 1];
      a[i + u + 1] = s;
    }
    y[i] = s;
  }
}
""", 3, 3),
    # after the unrolled loop: lane 0's a[u * i + 16] is a[16], another variable part
    # than a[i] (it may be a[i]), and blocks; the control beside it has a[i + u + 16]
    "lanes of another variable part": ("""\
void k(const int x[16], int y[16]) {
  int a[33];
  for (int i = 0; i < 33; i++) a[i] = 0;
  for (int i = 0; i < 16; i++) {
#pragma HLS PIPELINE II=1
    a[i] = x[i];
    for (int u = 0; u < 2; u++) {
#pragma HLS UNROLL
      a[u * i + 16] = 5;
    }
    y[i] = a[i];
  }
}
""", 4, 4),
    "lanes a constant away": ("""\
void k(const int x[16], int y[16]) {
  int a[33];
  for (int i = 0; i < 33; i++) a[i] = 0;
  for (int i = 0; i < 16; i++) {
#pragma HLS PIPELINE II=1
    a[i] = x[i];
    for (int u = 0; u < 2; u++) {
#pragma HLS UNROLL
      a[i + u + 16] = 5;
    }
    y[i] = a[i];
  }
}
""", 3, 4),
    # a read a constant away between two stores of a[i] leaves the first dead; one of
    # another variable part (a[2i] is a[i] at i = 0) keeps it
    "dead store": ("""\
void k(const int x[16], int y[16]) {
  int a[32];
  for (int i = 0; i < 32; i++) a[i] = i;
  for (int i = 0; i < 16; i++) {
#pragma HLS PIPELINE II=1
    a[i] = 1;
    y[i] = a[i + 1];
    a[i] = x[i];
  }
}
""", 2, 3),
    "dead store kept": ("""\
void k(const int x[16], int y[16]) {
  int a[32];
  for (int i = 0; i < 32; i++) a[i] = i;
  for (int i = 0; i < 16; i++) {
#pragma HLS PIPELINE II=1
    a[i] = 1;
    y[i] = a[2 * i];
    a[i] = x[i];
  }
}
""", 3, 3),
    # a data-decided write, a write of another variable part, a conditional write:
    # each may alias a[i], and the read takes a port as before
    "data-decided": ("""\
void k(const int x[16], const int idx[16], int y[16]) {
  int a[32];
  for (int i = 0; i < 32; i++) a[i] = 0;
  for (int i = 0; i < 16; i++) {
#pragma HLS PIPELINE II=1
    a[i] = x[i];
    a[idx[i] & 31] = 5;
    y[i] = a[i];
  }
}
""", 3, 3),
    "another variable part": ("""\
void k(const int x[16], int y[16]) {
  int a[32];
  for (int i = 0; i < 32; i++) a[i] = 0;
  for (int i = 0; i < 16; i++) {
#pragma HLS PIPELINE II=1
    a[i] = x[i];
    a[31 - i] = 5;
    y[i] = a[i];
  }
}
""", 3, 3),
    "conditional": ("""\
void k(const int x[16], int y[16]) {
  int a[32];
  for (int i = 0; i < 32; i++) a[i] = 0;
  for (int i = 0; i < 16; i++) {
#pragma HLS PIPELINE II=1
    a[i] = x[i];
    if (x[i] > 0) a[i + 1] = 5;
    y[i] = a[i];
  }
}
""", 3, 3),
}


def _past_iis(compiled_once, case: str) -> tuple[int, int]:
    """The pipelined loop's II in ``compile`` and in the checker's scheduling rule."""
    compiled = compiled_once("k.cpp", PAST[case][0], ports=1, max_banks=1)
    ruled = check.check_kernel(compiled.report.kernel, compiled.report.solution.bankings(),
                               ports=1, rule=True)
    return _loop_iis(compiled.report)[-1], ruled.loops[-1].achieved_ii


@pytest.mark.parametrize("case", sorted(PAST))
def test_a_write_a_constant_away_does_not_block_forwarding(compiled_once, case):
    _, ii, _ = PAST[case]
    assert _past_iis(compiled_once, case) == (ii, ii)


@needs_gxx
@pytest.mark.parametrize("case", sorted(PAST))
def test_forwarding_past_a_constant_offset_traces_and_computes(compiled_once, tmp_path, case):
    """check --trace finds the II the model claims from the run's addresses (a read
    and a write of one shape at another address never alias), and the testbench
    compares the compiled kernel with the original."""
    text, ii, _ = PAST[case]
    compiled = compiled_once("k.cpp", text, ports=1, max_banks=1)
    judged = assert_the_trace_agrees(compiled, tmp_path, ports=1)
    assert judged.replay.loops[-1].traced_ii == ii
    assert_the_testbench_passes(compiled, tmp_path)


# probe 38 MEDIUM-4 (pp4fpgas-cn huffman's create_codeword): a pipelined loop of a
# function the top calls writes fc[i] and reads it back; the read is forwarded as in
# the top (it took a port: II 2 as written, and compile partitioned fc).
CALLEE_LOCAL = """\
static void cw(const int hist[32], int out[32]) {
  int fc[32];
  fc[0] = 0;
  for (int i = 1; i < 32; i++) {
#pragma HLS pipeline II=1
    fc[i] = (fc[i - 1] + hist[i - 1]) << 1;
    int c = fc[i];
    out[i] = c;
  }
}
void k(const int hist[32], int out[32]) {
  int h2[32];
  for (int i = 0; i < 32; i++) h2[i] = hist[i];
  cw(h2, out);
}
"""


def test_a_callee_local_is_forwarded(compiled_once):
    compiled = compiled_once("k.cpp", CALLEE_LOCAL)
    assert _loop_iis(compiled.report) == [1, 1]
    banking = compiled.report.solution.banking("fc")
    assert (banking.scheme.banks, banking.copies) == (1, 1)
    as_written = check.check_kernel(compiled.report.kernel,
                                    check.as_written_bankings(compiled.report.kernel),
                                    rule=True)
    assert [lp.achieved_ii for lp in as_written.loops] == [1, 1]


@needs_gxx
def test_a_callee_local_traces_and_computes_as_the_original(compiled_once, tmp_path):
    compiled = compiled_once("k.cpp", CALLEE_LOCAL)
    judged = assert_the_trace_agrees(compiled, tmp_path, ports=2)
    assert [loop.traced_ii for loop in judged.replay.loops] == [1, 1]
    assert_the_testbench_passes(compiled, tmp_path)


# A function whose text names two arrays, given rows of the top's arrays: the HLS
# tool forwards in its text only where no other name of it may reach the memory
# (q[i + 16] may be p[i] when both are one array).  The II of f's loop with each
# array one single-port memory is the accesses of a that take a port.
TWO_PARAMETERS = """\
static void f(int p[32], int q[32], const int x[16], int y[16]) {
  for (int i = 0; i < 16; i++) {
#pragma HLS PIPELINE II=1
    p[i] = x[i];
    q[i + 16] = 5;
    p[i] = p[i] + 1;
    y[i] = p[i];
  }
}
void k(const int x[16], int y[16]) {
  int a[2][32], c[2][32];
  for (int i = 0; i < 32; i++) {
    a[0][i] = 0; a[1][i] = 0; c[0][i] = 0; c[1][i] = 0;
  }
  f(ARGUMENTS, x, y);
}
"""


@pytest.mark.parametrize("arguments, taken", [
    ("a[0], c[0]", 1),  # two arrays: one write of a takes a port
    ("a[0], a[0]", 5),  # one row for both: every access
    ("a[0], a[1]", 5),  # rows of one array: every access
])
def test_a_callee_forwards_only_what_one_name_reaches(tmp_path, arguments, taken):
    path = write(tmp_path, "k.cpp", TWO_PARAMETERS.replace("ARGUMENTS", arguments))
    report = arraypart.analyze(path, ports=1)
    (loop,) = [lp.name for lp in report.model.loops if lp.name.startswith("f/")]
    model = max(len(g.accesses) for g in report.model.array("a").groups if g.loop == loop)
    one = check.as_written_bankings(report.kernel)
    iis = [check.check_kernel(report.kernel, one, ports=1, rule=rule).loops[-1].achieved_ii
           for rule in (False, True)]
    assert (model, *iis) == (taken, taken, taken)


# A processing element in the shape AutoSA emits for a matrix multiply (our own
# kernel): the SIMD lanes c8 accumulate into local_C[c7][c6], which the first pass over
# k (c2 == 0) zeroes before the update and the last pass drains.  Vitis forwards the
# init's store to the update's read and drops it (LLVM's load PRE and dead-store
# elimination): per iteration one read (where the init did not run) and one write.
# TARGET: the element the lanes update; SIMD: the lanes.
PE = """\
void pe(const int a[8][2], const int b[8][2], int out[4][4]) {
  int local_C[4][4];
#pragma HLS bind_storage variable=local_C type=ram_2p
  for (int c2 = 0; c2 < 8; c2++)
    for (int c6 = 0; c6 < 4; c6++)
      for (int c7 = 0; c7 < 4; c7++) {
#pragma HLS PIPELINE II=1
        for (int c8 = 0; c8 < SIMD; c8++) {
#pragma HLS UNROLL
          if (c2 == 0)
            local_C[c7][c6] = 0;
          local_C[TARGET] = local_C[TARGET] + a[c2][c8] * b[c2][c8];
        }
        if (c2 == 7)
          out[c7][c6] = local_C[c7][c6];
      }
}
"""
PE_SAME = PE.replace("TARGET", "c7][c6").replace("SIMD", "2")
# the update of another element (the same one on the diagonal only): both writes stay
PE_APART = PE.replace("TARGET", "c6][c7").replace("SIMD", "1")


def _pe_accesses(report) -> list[str]:
    (group,) = report.model.array("local_C").groups
    return sorted(a.kind for a in group.accesses)


def _as_written_iis(report) -> list[int]:
    """The II of each loop with every array one memory (local_C's ram_2p: one port
    that reads or writes, one that reads), under the scheduling rule."""
    checked = check.check_kernel(report.kernel, check.as_written_bankings(report.kernel),
                                 rule=True)
    return [lp.achieved_ii for lp in checked.loops]


def test_an_init_the_update_overwrites_takes_no_port(compiled_once):
    report = compiled_once("pe.cpp", PE_SAME, max_banks=1).report
    assert _pe_accesses(report) == ["read", "write"]  # were 2 inits, 2 reads, 2 updates
    assert _loop_iis(report) == [1]  # was II 4 as one memory (16 registers for II 1)
    checked = check.check_kernel(report.kernel, report.solution.bankings(), rule=True)
    assert [lp.achieved_ii for lp in checked.loops] == [1]
    assert _as_written_iis(report) == [1]


def test_an_init_of_an_element_the_update_may_not_touch_takes_a_port(compiled_once):
    report = compiled_once("pe.cpp", PE_APART, max_banks=1).report
    # the init, the update's read and write, the drain's read (past the update's
    # write of local_C[c6][c7], which may alias it)
    assert _pe_accesses(report) == ["read", "read", "write", "write"]
    assert _loop_iis(report) == _as_written_iis(report) == [2]  # one write port


@needs_gxx
@pytest.mark.parametrize("text, ii", [(PE_SAME, 1), (PE_APART, 2)], ids=["same", "apart"])
def test_an_overwritten_init_traces_and_computes_as_the_original(compiled_once, tmp_path,
                                                                 text, ii):
    """As one memory: in the steps of c2 == 0 the run writes local_C twice; the
    init's write is dead only where the update writes its address."""
    compiled = compiled_once("pe.cpp", text, max_banks=1)
    judged = assert_the_trace_agrees(compiled, tmp_path, ports=2)
    assert [loop.traced_ii for loop in judged.replay.loops] == [ii]
    assert_the_testbench_passes(compiled, tmp_path)


# A ?: operand under an affine condition is an `if` of the IR after the statement's
# other accesses; its read of a[i] still runs before the statement's store of a[i].
GUARDED_OPERAND = """void top(const int in[64], int out[64]) {
  int a[64];
  for (int i = 0; i < 64; i++) a[i] = in[i];
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    a[i] = (i < 32) ? a[i] + 1 : 0;
    out[i] = a[i] + a[(i + 1) & 63];
  }
}
"""


@needs_gxx
def test_a_guarded_operands_read_is_no_read_of_its_statements_store(tmp_path):
    """The operand's a[i] is a load (on the steps where it runs), a[i]'s store, the
    later a[i] its store's value, a[i + 1] a load: three accesses of a on one
    single-port memory, II 3 in the model, the checker and the trace (the IR put the
    store before the operand's read, which was taken as forwarded from it: II 2
    claimed, 3 traced)."""
    compiled = arraypart.compile_kernel(write(tmp_path, "top.cpp", GUARDED_OPERAND),
                                        max_banks=1, ports=1)
    report = compiled.report
    checked = check.check_kernel(report.kernel, report.solution.bankings(), ports=1)
    judged = assert_the_trace_agrees(compiled, tmp_path, ports=1)
    assert (_loop_iis(report)[1], checked.loops[1].achieved_ii,
            judged.replay.loops[1].traced_ii) == (3, 3, 3)


# probe 42 F1: an FIR accumulating in place, its taps k unrolled.  The stores of the
# element one iteration updates leave in one, so h and r are banked for II 1 (the
# scalar-sum form s += h[k] * r[j + k]; y[j] = s reached it already): on the
# interface y itself (II 33 before: another argument was taken to alias y), on a local
# v after an affine break (II 33: no loop with a break was forwarded in), and on a
# local v beside the phase switch of r (II 16: the switch's cases guard the lanes, and
# their stores were counted).
FIR_ARGUMENTS = "void fir(float h[8], float r[72], float y[64]) {\n"
FIR_COPY = "  for (int j = 0; j < 64; j++) y[j] = v[j];\n"
FIR_LOOP = """\
  for (int j = 0; j < 64; j++) {
#pragma HLS pipeline II=1
    ACC[j] = 0;
    for (int k = 0; k < 8; k++) {
      BODY
    }
  }
"""
FIR = {
    "interface": FIR_ARGUMENTS + FIR_LOOP.replace("ACC", "y").replace(
        "BODY", "y[j] += h[k] * r[j + k];") + "}\n",
    "local after a break": FIR_ARGUMENTS + "  float v[64];\n" + FIR_LOOP.replace(
        "ACC", "v").replace("BODY", "if (j - k < 0) break;\n      v[j] += h[k] * r[j - k];")
    + FIR_COPY + "}\n",
    "local beside a phase switch": FIR_ARGUMENTS + "  float v[64];\n" + FIR_LOOP.replace(
        "ACC", "v").replace("BODY", "v[j] += h[k] * r[j + k];") + FIR_COPY + "}\n",
}
# a store of v[k], which may be v[j], after each lane's update: no store merges past
# it, nor is a later lane's read forwarded (v one memory: the init, 8 stores of v[k],
# lane 0's update forwarded and merged or overwriting the init, 7 reads and 7 stores:
# 23 accesses, II 12 on two ports; after the break it was 25 and II 13 before probe
# 42 F1, which forwarded nothing in a loop with a break; without it, as before)
FIR_BETWEEN = {
    "after a break": FIR["local after a break"].replace(
        "r[j - k];", "r[j - k];\n      v[k] = h[k];"),
    "without a break": FIR["local beside a phase switch"].replace(
        "r[j + k];", "r[j + k];\n      v[k] = h[k];"),
}


def _banked(report, name: str) -> bool:
    (solved,) = [a for a in report.solution.arrays if a.array.name == name]
    return solved.banking.scheme.banks > 1


@pytest.mark.parametrize("case", sorted(FIR))
def test_an_accumulated_element_takes_one_store(compiled_once, case):
    report = compiled_once("fir.cpp", FIR[case]).report
    assert set(_loop_iis(report)) == {1}
    assert _banked(report, "h") and _banked(report, "r")
    checked = check.check_kernel(report.kernel, report.solution.bankings())
    assert {lp.achieved_ii for lp in checked.loops} == {1}


def test_the_phase_switch_holds_the_accumulated_local(compiled_once):
    """The emitted code the checker read back has v's update in each case of r's
    switch (the scheduling rule's II 1 above is that code's)."""
    text = compiled_once("fir.cpp", FIR["local beside a phase switch"]).files["fir.cpp"]
    assert "switch (j % " in text and text.count("v[j] += h[k] * r[") > 1


@pytest.mark.parametrize("case", sorted(FIR_BETWEEN))
def test_a_store_that_may_alias_between_keeps_the_updates(compiled_once, case):
    report = compiled_once("fir.cpp", FIR_BETWEEN[case], max_banks=1).report
    (group,) = [g for g in report.model.array("v").groups if g.loop == "L3"]
    assert len(group.accesses) == 23
    checked = check.check_kernel(report.kernel, report.solution.bankings())
    assert _loop_iis(report) == [lp.achieved_ii for lp in checked.loops] == [12, 1]


@needs_gxx
@pytest.mark.parametrize("case", sorted(FIR) + sorted(FIR_BETWEEN))
def test_an_accumulated_element_traces_and_computes_as_the_original(compiled_once,
                                                                    tmp_path, case):
    compiled = (compiled_once("fir.cpp", FIR[case]) if case in FIR
                else compiled_once("fir.cpp", FIR_BETWEEN[case], max_banks=1))
    judged = assert_the_trace_agrees(compiled, tmp_path, ports=2)
    assert [lp.traced_ii for lp in judged.replay.loops] == _loop_iis(compiled.report)
    assert_the_testbench_passes(compiled, tmp_path)
