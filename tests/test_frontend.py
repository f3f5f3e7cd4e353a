"""Front end: C text -> IR.  Structural dumps, every construct, located errors."""

from __future__ import annotations

import glob
import os
from pathlib import Path

import pytest

from arraypart import expr as E
from arraypart.errors import KernelError
from arraypart.frontend import clangtu
from arraypart.frontend import cnodes as N
from arraypart.frontend import parse_kernel, parse_source
from arraypart.ir import If, Loop, Stmt, accesses

DATA = Path(__file__).parent / "data" / "frontend"


# ---------------------------------------------------------------- flattening


def flat_access(a):
    index = ",".join("?" if e is None else E.pretty(e) for e in a.index)
    return f"{a.kind} {a.array}[{index}] #{a.ref_id} @{a.coord.line}:{a.coord.col}"


def flat_cond(cond):
    if cond is None:
        return None
    return tuple(tuple(f"{E.pretty(c.expr)} {c.op} 0" for c in conj) for conj in cond)


def flat(node):
    """A node as nested tuples of strings and numbers, for one-assertion comparisons."""
    if isinstance(node, Loop):
        return ("loop", node.name, node.var, tuple(map(E.pretty, node.init)),
                tuple(map(E.pretty, node.bound)), node.step, node.pipeline_ii, node.unroll,
                tuple(flat(n) for n in node.body))
    if isinstance(node, If):
        return ("if", flat_cond(node.cond), tuple(map(flat_access, node.cond_accesses)),
                tuple(flat(n) for n in node.then), tuple(flat(n) for n in node.orelse))
    assert isinstance(node, Stmt)
    return ("stmt", node.coord.line, tuple(map(flat_access, node.accesses)))


def body_of(src, **kw):
    """The loop tree as the pragmas write it (Vitis's default pipelining of innermost
    loops is tested in test_real_semantics.py)."""
    kw.setdefault("pipeline_loops", False)
    return tuple(flat(n) for n in parse_source(src, "k.c", **kw).body)


def error_of(src, filename="k.c", **kw):
    with pytest.raises(KernelError) as info:
        parse_source(src, filename, **kw)
    return info.value


# ---------------------------------------------------------------- structure


def test_loop_forms_structure():
    # Columns are clang's: in the text as written (macros unexpanded).
    k = parse_kernel(DATA / "loops.c", pipeline_loops=False)
    assert k.name == "loops" and k.top == "loops"
    assert tuple(flat(n) for n in k.body) == (
        ("stmt", 9, ()),
        ("loop", "outer", "i", ("0",), ("15",), 1, None, None, (
            ("loop", "L11", "j", ("0", "i - 2"), ("15", "i + 2", "12"), 1, None, None, (
                ("stmt", 12, ("read x[j] #1 @12:18", "read A[i,j] #0 @12:7",
                              "write A[i,j] #0 @12:7")),)),)),
        ("loop", "L14", "i", ("15",), ("0",), -1, None, None, (
            ("stmt", 14, ("read x[i mod 8] #3 @14:43", "read x[floor(i/2)] #4 @14:54",
                          "write x[i] #2 @14:36")),)),
        ("loop", "L15", "i", ("0",), ("15",), 1, None, None, (
            ("stmt", 15, ("read idx[i] #6 @15:49", "read x[?] #5 @15:47")),)),
        ("loop", "L16", "i", ("16",), ("2",), -3, None, None, (
            ("stmt", 16, ("read x[i mod 3] #8 @16:45", "write x[floor(i/2)] #7 @16:34")),)),
        ("loop", "L17", "i", ("0",), ("15",), 4, None, None, (
            ("stmt", 17, ("read A[i,?] #10 @17:49", "write x[2*i + 1] #9 @17:34")),)),
        ("loop", "L18", "i", ("0",), ("15",), 1, None, None, (
            ("loop", "L19", "j", ("i",), ("15", "i + 3"), 1, None, None, (
                ("stmt", 20, ("read x[i] #12 @20:17", "read x[j] #13 @20:28",
                              "read x[-1*j + 15] #14 @20:35", "write A[i,j] #11 @20:7")),
                ("stmt", 21, ("read x[j] #15 @21:7", "write x[j] #15 @21:7")))),)),
    )
    assert [(a.name, a.shape, a.elem_type, a.elem_bits, a.interface) for a in k.arrays] == [
        ("A", (16, 16), "int32_t", 32, True), ("x", (16,), "float", 32, True),
        ("idx", (16,), "int", 32, True)]
    assert k.defines == (("N", 16),)
    assert k.source.preamble == ("#include <stdint.h>",)


def test_stencil_pragmas_and_conditions():
    k = parse_kernel(DATA / "stencil.c")
    arrays = {a.name: a for a in k.arrays}
    assert [(p.type, p.factor, p.dim, p.coord.line) for p in arrays["in"].partitions] == [
        ("cyclic", 3, 2, 8)]
    assert arrays["in"].const and not arrays["in"].static
    assert (arrays["out"].storage, arrays["out"].storage_impl) == ("ram_1p", "bram")
    coeff = arrays["coeff"]
    assert (coeff.interface, coeff.static, coeff.shape) == (False, True, (3, 3))
    assert [(p.type, p.factor, p.dim) for p in coeff.partitions] == [("complete", 0, 0)]
    rows = k.body[0]
    cols = rows.body[0]
    assert (rows.name, cols.name, cols.pipeline_ii, rows.pipeline_ii) == ("rows", "cols", 2, None)
    assert flat(cols.body[2]) == (
        "if", (("i - 2 >= 0", "-1*j + 5 >= 0"), ("i - 2 >= 0", "i - 1*j - 1 >= 0"),
               ("i - 2 >= 0", "-1*i + j - 1 >= 0")), (),
        (("stmt", 20, ("write out[i,j] #2 @20:9",)),),
        (("if", None, (), (("stmt", 22, ("write out[i,j] #3 @22:9",)),), ()),))
    pragmas = [n.line.text for n in k.source.func.body.items if isinstance(n, N.Pragma)]
    assert pragmas[0] == "HLS INTERFACE mode=m_axi port=in"


def test_source_unit():
    k = parse_kernel(DATA / "stencil.c")
    unit = k.source
    assert unit.preamble == ("#include <math.h>",)
    assert unit.func.name == "stencil" and not unit.cxx
    assert unit.text == (DATA / "stencil.c").read_text()
    body = unit.text.encode()[unit.func.body.start:unit.func.body.end]
    assert body.startswith(b"{") and body.endswith(b"}")


def test_accesses_evaluation_order():
    src = """void k(int A[8], int B[8], int C[8][8]) {
  for (int i = 0; i < 8; i++) {
    A[i] += B[i];
    A[B[i]]++;
    C[i][B[i]] = A[i] ? B[i + 1] : C[0][i];
    ++A[i];
  }
}"""
    (loop,) = body_of(src)
    assert loop[-1] == (
        ("stmt", 3, ("read B[i] #1 @3:13", "read A[i] #0 @3:5", "write A[i] #0 @3:5")),
        ("stmt", 4, ("read B[i] #3 @4:7", "read A[?] #2 @4:5", "write A[?] #2 @4:5")),
        ("stmt", 5, ("read A[i] #6 @5:18", "read B[i + 1] #7 @5:25", "read C[0,i] #8 @5:36",
                     "read B[i] #5 @5:10", "write C[i,?] #4 @5:5")),
        ("stmt", 6, ("read A[i] #9 @6:7", "write A[i] #9 @6:7")),
    )


def test_quasi_affine_and_irregular_indices():
    src = """#define M 8
int g(int);
void k(int A[64], int B[64], int n) {
  const int SH = 2;
  for (int i = 0; i < 8; i++)
    for (int j = 0; j < 8; j++) {
      A[(i * M + j) & 63] = A[i << SH] + A[(j + 3) / 4] + A[(i + j) % 5];
      B[i * j] = B[n] + B[g(i)] + B[(int)i] + B[-i + 63] + B[(i >> 1) * 2];
    }
}"""
    inner = body_of(src, top="k")[1][-1][0][-1]
    assert inner == (
        ("stmt", 7, ("read A[4*i] #1 @7:29", "read A[floor((j + 3)/4)] #2 @7:42",
                     "read A[(i + j) mod 5] #3 @7:59", "write A[(8*i + j) mod 64] #0 @7:7")),
        ("stmt", 8, ("read B[n] #5 @8:18", "read B[?] #6 @8:25", "read B[i] #7 @8:35",
                     "read B[-1*i + 63] #8 @8:47", "read B[2*floor(i/2)] #9 @8:60",
                     "write B[?] #4 @8:7")),
    )


def test_loop_normalization_variants():
    src = """#define min(a, b) ((a) < (b) ? (a) : (b))
int max(int, int);
void k(int A[100]) {
  int i;
  for (i = 99; i > 10; i -= 1) A[i] = 0;
  for (int j = 0; j < min(min(50, 60), 70); j += 5) A[j] = 0;
  for (int j = max(3, 4); j <= (100 / 2) * 2 - 1; j = 1 + j) A[j] = 0;
  for (int j = 20; j != 0; --j) A[j] = 0;
  for (int j = 0; j < 10; j++) {
    for (int m = max(j, 2); m < min(j + 5, 10); m++) A[m] = 0;
  }
}"""
    loops = body_of(src)
    assert [(l[2], l[3], l[4], l[5]) for l in loops] == [
        ("i", ("99",), ("11",), -1), ("j", ("0",), ("49",), 5), ("j", ("4",), ("99",), 1),
        ("j", ("20",), ("1",), -1), ("j", ("0",), ("9",), 1)]
    assert loops[-1][-1][0][2:6] == ("m", ("j", "2"), ("j + 4", "9"), 1)


def test_if_conditions():
    src = """void k(int A[16], int f) {
  for (int i = 0; i < 16; i++) {
    if (!(i < 4 || i >= 12)) A[i] = 1;
    if (i % 2 == 0) A[i] = 2;
    if (i != 3) A[i] = 3;
    if (A[i] > f) A[i] = 4; else A[0] = 5;
    if (1) A[i] = 6;
  }
}"""
    ifs = body_of(src)[0][-1]
    assert [i[1] for i in ifs] == [
        (("i - 4 >= 0", "-1*i + 11 >= 0"),), (("i mod 2 == 0",),),
        (("i - 4 >= 0",), ("-1*i + 2 >= 0",)), None, ((),)]
    assert ifs[3][2:] == (("read A[i] #3 @6:9",), (("stmt", 6, ("write A[i] #4 @6:19",)),),
                          (("stmt", 6, ("write A[0] #5 @6:34",)),))


def test_switch_is_an_else_if_chain():
    """Affine subject: ``x == c`` conditions, labels written together or'ed, the
    default the last else; a data-dependent subject: conditions None, its read once at
    the head.  A scalar keeps a value every path leaves equal (without a default, the
    path through no arm counts; an arm that returns does not), and one of the constants
    paths leave by cases."""
    src = """void k(int A[16], int B[16]) {
  for (int i = 0; i < 16; i++) {
    int t = 0, u = 0;
    switch (i % 4) {
    case 0: case 1: A[i] = 1; t = 2; u = 2; break;
    case 2: { A[i + 1] = 2; t = 2; break; }
    default: t = 2;
    }
    switch (B[i]) { case 5: A[0] = t; break; case 6: u = 1; return; }
    A[t] = A[u];
  }
}"""
    body = body_of(src)[0][-1]
    assert body[2] == ("if", (("i mod 4 == 0",), ("i mod 4 - 1 == 0",)), (),
                       (("stmt", 5, ("write A[i] #0 @5:21",)), ("stmt", 5, ()),
                        ("stmt", 5, ())),
                       (("if", (("i mod 4 - 2 == 0",),), (),
                         (("stmt", 6, ("write A[i + 1] #1 @6:15",)), ("stmt", 6, ())),
                         (("stmt", 7, ()),)),))
    assert body[3] == ("if", None, ("read B[i] #2 @9:13",),
                       (("stmt", 9, ("write A[0] #3 @9:29",)),),
                       (("if", None, (), (("stmt", 9, ()),), ()),))
    # u is 0 or 2 (a constant on every path past the switch: the arm that sets it to
    # 1 returns): A[u] by cases (frontend.cases)
    assert body[4] == ("if", None, (), (("stmt", 10, ("read A[0] #5 @10:12",
                                                      "write A[2] #4 @10:5")),),
                       (("stmt", 10, ("read A[2] #5 @10:12", "write A[2] #4 @10:5")),))


def test_switch_break_is_no_loop_escape():
    """A switch's own ``break`` leaves the loop's trip count (and so ``n``'s exit value)
    known; a ``break`` of a loop inside a case is that loop's."""
    src = """void k(int A[16]) {
  int n = 0;
  for (int i = 0; i < 16; i++) {
    switch (A[i]) {
    case 0: for (int j = 0; j < 4; j++) { if (A[j]) break; A[j] = 1; } break;
    default: A[i] = 2; break;
    }
    n++;
  }
  A[n] = 0;
}"""
    body = body_of(src)
    assert body[1][-1][0][3][0][1] == "L5"
    assert body[2] == ("stmt", 10, ("write A[16] #4 @10:3",))


def test_loop_pragmas():
    src = """#define U 4
void k(int A[64]) {
  for (int i = 0; i < 8; i++) {
#pragma HLS PIPELINE
#pragma hls unroll factor = U
    for (int j = 0; j < 8; j++) {
#pragma HLS unroll
#pragma HLS loop_tripcount min=8 max=8
      A[j] = i;
    }
  }
  for (int i = 0; i < 8; i++) {
#pragma HLS pipeline II=3 rewind
#pragma HLS unroll factor=1
    A[i] = 0;
  }
  for (int i = 0; i < 8; i++) {
#pragma HLS pipeline off
#pragma HLS unroll off
    A[i] = 0;
  }
  for (int i = 0; i < 8; i++) {
#pragma HLS pipeline off=true
#pragma HLS unroll off=true
    A[i] = 0;
  }
  for (int i = 0; i < 8; i++) {
#pragma HLS pipeline off=false
#pragma HLS unroll factor=2 off=false
    A[i] = 0;
  }
}"""
    loops = parse_source(src, "k.c").body
    assert [(l.pipeline_ii, l.unroll) for l in loops] == [(1, 4), (3, None), (None, None),
                                                          (None, None), (1, 2)]
    assert (loops[0].body[0].pipeline_ii, loops[0].body[0].unroll) == (None, 0)


def test_array_declarations_and_types():
    src = """typedef unsigned short pix_t;
typedef pix_t pixel;
static const int table[] = {1, 2, 3};
void k(char a[2], unsigned b[2], long long c[2], double d[2], uint8_t e[2], bool f[2],
       pixel g[2], short int h[2], unsigned long i[2], int n, int *p) {
  int loc[4][3];
  const float cf[2] = {0.5f, 1.5f};
  for (int q = 0; q < 2; q++) loc[q][q] = table[q] + a[q] + cf[q];
}"""
    k = parse_source("#include <stdint.h>\n#include <stdbool.h>\n" + src, "k.c")
    assert [(a.name, a.shape, a.elem_type, a.elem_bits, a.interface, a.const, a.static)
            for a in k.arrays] == [
        ("a", (2,), "char", 8, True, False, False),
        ("b", (2,), "unsigned int", 32, True, False, False),
        ("c", (2,), "long long", 64, True, False, False),
        ("d", (2,), "double", 64, True, False, False),
        ("e", (2,), "uint8_t", 8, True, False, False),
        ("f", (2,), "bool", 1, True, False, False),
        ("g", (2,), "unsigned short", 16, True, False, False),
        ("h", (2,), "short", 16, True, False, False),
        ("i", (2,), "unsigned long", 64, True, False, False),
        ("p", (1,), "int", 32, True, False, False),  # unused: extent 1
        ("table", (3,), "int", 32, False, True, True),
        ("loc", (4, 3), "int", 32, False, False, False),
        ("cf", (2,), "float", 32, False, True, False)]
    assert k.source.preamble == ("#include <stdint.h>", "#include <stdbool.h>")


def test_preprocessor_defines_conditionals_and_overrides():
    src = """#define N 8
#define TWICE(x) (2 * (x))
#ifdef WIDE
#define M 32
#else
#define M 16
#endif
#define NAME "k"
void k(int A[N][M]) {
  for (int i = 0; i < N; i++) /* a comment
     over two lines */ A[i][TWICE(i)] = 0;
}"""
    k = parse_source(src, "k.c")
    assert k.array("A").shape == (8, 16) and k.defines == (("M", 16), ("N", 8))
    stmt = k.body[0].body[0]
    assert (stmt.coord.line, stmt.coord.col) == (11, 24)
    assert E.pretty(stmt.accesses[0].index[1]) == "2*i"
    k = parse_source(src, "k.c", defines={"N": 4, "WIDE": 1})
    assert k.array("A").shape == (4, 32)
    assert k.defines == (("M", 32), ("N", 4), ("WIDE", 1))
    assert k.body[0].bound == (E.const(3),)


def test_pragma_value_from_define_and_old_partition_syntax():
    src = """#define F 4
void k(int A[16][16], int B[16]) {
#pragma HLS array_partition variable=A cyclic factor=F dim=2
#pragma HLS ARRAY_PARTITION variable=A block factor=2
#pragma HLS array_partition variable=B type=complete
  for (int i = 0; i < 16; i++) A[i][i] = B[i];
}"""
    k = parse_source(src, "k.c")
    assert [(p.type, p.factor, p.dim) for p in k.array("A").partitions] == [
        ("cyclic", 4, 2), ("block", 2, 1)]
    assert [(p.type, p.factor, p.dim) for p in k.array("B").partitions] == [("complete", 0, 1)]


def test_top_function_selection():
    two = "void helper(int A[4]) { A[0] = 1; }\nvoid main_k(int A[4]) { A[1] = 2; }\n"
    assert parse_source(two, "main_k.c").top == "main_k"
    assert parse_source(two, "x.c", top="helper").top == "helper"
    assert parse_source("void f(int A[4]) { A[0] = 1; }", "other.c").top == "f"


# ---------------------------------------------------------------- located errors

LOOP_OK = "void k(int A[8]) {\n"
ERRORS = [
    ("syntax", "void k(int A[8]) {\n  A[0] = ;\n}\n", 2, 10, "expected expression"),
    ("syntax-end", "void k(int A[8]) {\n  A[0] = 1;\n", 2, 12, "expected '}'"),
    ("syntax-token", "void k(int A[8]) {\n  A[0] = 1 2;\n}\n", 2, 11,
     "expected ';' after expression"),
    ("goto", LOOP_OK + "  x: A[0] = 1;\n  goto x;\n}\n", 3, 3, "'goto'"),
    ("switch-fall-through", LOOP_OK + "  switch (A[0]) {\n  case 0: A[1] = 0;\n"
     "  case 1: A[2] = 0; break;\n  }\n}\n", 4, 3,
     "fall-through into this case from the case at k.c:3:3"),
    ("switch-inner-break", LOOP_OK + "  switch (A[0]) {\n  case 0: if (A[1]) break; "
     "A[2] = 0; break;\n  }\n}\n", 3, 21, "'break' inside a case of a switch, before"),
    ("switch-continue", LOOP_OK + "  for (int i = 0; i < 8; i++)\n    switch (A[i]) {\n"
     "    case 0: A[1] = 0; continue;\n    default: break;\n    }\n}\n", 4, 23,
     "'continue' inside a case of a switch"),
    ("switch-nested-label", LOOP_OK + "  switch (A[0]) {\n  case 0: if (A[1]) { case 1: "
     "A[2] = 0; } break;\n  }\n}\n", 3, 23, "case label inside a nested statement"),
    ("switch-dead-code", LOOP_OK + "  switch (A[0]) {\n  A[3] = 1;\n  case 1: A[2] = 0; "
     "break;\n  }\n}\n", 3, 3, "statement before the first case label"),
    ("II=0", LOOP_OK + "  for (int i = 0; i < 8; i++) {\n  #pragma HLS pipeline II=0\n"
     "    A[i] = 0;\n  }\n}\n", 3, 24, "II"),
    ("factor=-3", LOOP_OK + "  for (int i = 0; i < 8; i++) {\n#pragma HLS unroll factor=-3\n"
     "    A[i] = 0;\n  }\n}\n", 3, 20, "factor"),
    ("factor=abc", LOOP_OK + "#pragma HLS array_partition variable=A cyclic factor=abc\n}\n",
     2, 47, "'abc'"),
    ("dim", LOOP_OK + "#pragma HLS array_partition variable=A complete dim=2\n}\n", 2, 49,
     "dim=2"),
    ("unknown-var", LOOP_OK + "#pragma HLS array_partition variable=Q complete\n}\n", 2, 29,
     "unknown array 'Q'"),
    ("unknown-var-storage", LOOP_OK + "#pragma HLS bind_storage variable=Q type=ram_1p\n}\n",
     2, 26, "unknown array 'Q'"),
    ("storage-type", LOOP_OK + "#pragma HLS bind_storage variable=A type=ram_9p\n}\n", 2, 37,
     "unknown storage type 'ram_9p'"),
    ("storage-unmodelled", LOOP_OK + "#pragma HLS bind_storage variable=A type=fifo\n}\n",
     2, 37, "storage type 'fifo' (a FIFO) has no port model in arraypart yet"),
    ("subscripts", "void k(int A[8][8]) {\n  A[1] = 0;\n}\n", 2, 8, "is not assignable"),
    ("subscripts-extra", LOOP_OK + "  A[1][2] = 0;\n}\n", 2, 7,
     "subscripted value is not an array"),
    ("pointer", "void k(int *p, int q[4]) {\n  p[q[0]] = 1;\n}\n", 1, 13,
     "pointer parameter 'p': its extent is unknown"),
    ("unsized-param", "void k(int A[][4], int q[4]) {\n  A[q[0]][0] = 1;\n}\n", 1, 12,
     "'#pragma HLS INTERFACE m_axi port=A depth=<rows>'"),  # depth counts rows
    ("pipeline-misplaced", LOOP_OK + "  if (A[0]) {\n#pragma HLS pipeline\n  A[1] = 1;\n  }\n}\n",
     3, 1, "must stand in a loop body itself"),
    ("pipeline-in-block", LOOP_OK + "  for (int i = 0; i < 8; i++) {\n    A[i] = 0;\n"
     "    {\n#pragma HLS pipeline II=1\n    }\n  }\n}\n", 5, 1, "must stand in a loop body itself"),
    ("loop-direction", LOOP_OK + "  for (int i = 0; i < 8; i--) A[i] = 0;\n}\n", 2, 19,
     "does not match"),
    ("loop-ne-step", LOOP_OK + "  for (int i = 0; i != 8; i += 2) A[i] = 0;\n}\n", 2, 19,
     "'!='"),
    ("loop-start", "void k(int A[8], int n) {\n  for (int i = n * n; i < 8; i++) {"
     " A[i] = 0; n--; }\n}\n", 2, 16, "loop start 'n * n' is not affine and the loop "
     "changes 'n'"),
    ("loop-init", LOOP_OK + "  for (; ; ) A[0] = 0;\n}\n", 2, 3, "needs a condition"),
    ("size", "void k(int A[0]) {\n  A[0] = 1;\n}\n", 1, 14, "positive integer constant"),
    ("elem-type", "void k(int *A[4]) {\n  A[0] = 0;\n}\n", 1, 13,
     "unsupported element type 'int *'"),
    ("error-directive", "#ifndef N\n  #error N is required\n#endif\n", 2, 4,
     "#error N is required"),
    ("empty", "  \n\n", 1, 1, "empty file"),
    ("no-function", "#define N 3\nint x;\n", 1, 1, "no function"),
]


@pytest.mark.parametrize("src,line,col,message", [e[1:] for e in ERRORS],
                         ids=[e[0] for e in ERRORS])
def test_located_errors(src, line, col, message):
    err = error_of(src)
    assert (err.coord.file, err.coord.line, err.coord.col) == ("k.c", line, col)
    assert message in err.message
    assert str(err).startswith(f"k.c:{line}:{col}: error: ")


VARIABLE_TRIPS = {
    "while": "    while (A[i]) A[i]--;\n",
    "do": "    do { A[i]--; } while (A[i] > 0);\n",
    "inner-trip": "    for (int j = 0; j < i; j++) A[j] = 0;\n",
}


@pytest.mark.parametrize("inner", sorted(VARIABLE_TRIPS))
def test_a_pipeline_around_a_loop_of_variable_trip_count_is_dropped(inner):
    """Vitis cannot unroll a loop whose trip count is no constant, so it ignores the
    pipeline of the loop around it (it was a located error): the outer loop is not
    pipelined, with a warning at it, and the inner one is left to Vitis' default."""
    kernel = parse_source(LOOP_OK + "  for (int i = 0; i < 8; i++) {\n"
                          "#pragma HLS pipeline\n" + VARIABLE_TRIPS[inner] + "  }\n}\n",
                          "k.c")
    (outer,) = [n for n in kernel.body if isinstance(n, Loop)]
    assert outer.pipeline_ii is None
    (warning,) = kernel.warnings
    assert warning.startswith("k.c:2:3: warning: loop 'L2' is not pipelined: it holds "
                              "loop 'L4' (4:5), whose trip count is not a constant")


def test_top_function_errors():
    two = "int x;\nvoid a(int A[4]) { A[0] = 1; }\nvoid b(int A[4]) { A[1] = 2; }\n"
    err = error_of(two)
    assert (err.coord.line, err.coord.col) == (2, 6)
    assert "ambiguous" in err.message and "a, b" in err.message
    err = error_of(two, top="c")
    assert (err.coord.line, err.coord.col) == (2, 6)
    assert "unknown top function 'c'" in err.message and "a, b" in err.message
    assert "no other function calls" not in error_of(two).message  # two roots
    chain = two.replace("A[1] = 2; }", "A[1] = 2; a(A); }")
    err = error_of(chain + "int main() { int A[4]; b(A); return 0; }\n")
    assert err.message.endswith(
        "name one with --top (b is the only one no other function calls)"), err.message


def test_file_errors(tmp_path):
    with pytest.raises(KernelError) as info:
        parse_kernel(tmp_path / "missing.c")
    assert info.value.coord.file == str(tmp_path / "missing.c")
    assert "cannot read" in info.value.message
    binary = tmp_path / "bin.c"
    binary.write_bytes(b"void k() {}\nint \x00x;\n")
    with pytest.raises(KernelError) as info:
        parse_kernel(binary)
    assert (info.value.coord.line, info.value.coord.col) == (2, 5)
    latin = tmp_path / "latin.c"
    latin.write_bytes(b"void k() {}\nint caf\xe9;\n")  # clang accepts it in comments only
    with pytest.raises(KernelError) as info:
        parse_kernel(latin)
    assert (info.value.coord.line, info.value.coord.col) == (2, 8)
    assert "not valid UTF-8" in info.value.message
    empty = tmp_path / "empty.c"
    empty.write_text("")
    with pytest.raises(KernelError) as info:
        parse_kernel(empty)
    assert (info.value.coord.file, info.value.coord.line) == (str(empty), 1)


def test_too_many_initializers_is_a_located_error():
    src = "void k(int out[2]) {\n  int t[2] = {1, 2, 3};\n  out[0] = t[0];\n}\n"
    err = error_of(src)
    assert (err.coord.line, err.coord.col) == (2, 14)
    assert "too many initializers for 't': 3 for 2 elements" in err.message
    elided = "void k(int out[2]) {\n  int t[2][2] = {1, 2, 3, 4};\n  out[0] = t[1][1];\n}\n"
    assert parse_source(elided, "k.c").array("t").shape == (2, 2)


# ---------------------------------------------------------------- C++ and clang

CXX_KERNEL = """#include "ap_int.h"
#include <cstdint>
using namespace std;
namespace cfg { constexpr int N = 16; }
struct px { int16_t r; int8_t g; };
enum { TILE = 4 };
template <int F> struct Scale { static const int value = 2 * F; };
template <int F> int times(int x) { return F * x; }
extern "C" {
void cx(ap_int<12> A[cfg::N], int B[cfg::N], px P[4], int &n) {
  constexpr int M = cfg::N / 2;
  ap_uint<5> loc[M];
  for (auto i = 0; i < M; i++) {
#pragma HLS pipeline II=1
    loc[i] = A[2 * i] + A[int(2 * i + 1)].to_int();
    B[i] = loc[i].to_int() + TILE + n;
    B[i + Scale<4>::value] = times<3>(static_cast<int>(loc[i].to_int()));
  }
  P[0].r = 1;
}
}
"""


def test_cxx_constructs():
    k = parse_source(CXX_KERNEL, "cx.cpp")
    assert k.top == "cx" and k.source.cxx and k.source.func.extern_c
    assert [(a.name, a.shape, a.elem_type, a.elem_bits) for a in k.arrays] == [
        ("A", (16,), "ap_int<12>", 12), ("B", (16,), "int", 32), ("P", (4,), "px", 24),
        ("loc", (8,), "ap_uint<5>", 5)]
    assert tuple(flat(n) for n in k.body) == (
        ("stmt", 11, ()),
        ("loop", "L13", "i", ("0",), ("7",), 1, 1, None, (
            ("stmt", 15, ("read A[2*i] #1 @15:14", "read A[2*i + 1] #2 @15:25",
                          "write loc[i] #0 @15:5")),
            ("stmt", 16, ("read loc[i] #4 @16:12", "write B[i] #3 @16:5")),
            ("stmt", 8, ()),  # times<3>, inlined: its return statement
            ("stmt", 17, ("read loc[i] #6 @17:56", "write B[i + 8] #5 @17:5")))),
        ("stmt", 19, ("write P[0] #7 @19:3",)))


def test_namespaces_and_local_headers(tmp_path):
    (tmp_path / "sizes.h").write_text("#define ROWS 4\ntypedef short pixel;\n")
    (tmp_path / "k.cpp").write_text(
        '#include "sizes.h"\nnamespace hw {\nvoid k(pixel A[ROWS]) {\n'
        "  for (int i = 0; i < ROWS; i++) A[i] = 0;\n}\n}\n")
    k = parse_kernel(tmp_path / "k.cpp")
    assert (k.top, k.source.func.namespaces, k.array("A").shape) == ("k", ("hw",), (4,))
    assert k.array("A").elem_type == "short" and k.source.preamble == ('#include "sizes.h"',)


def test_command_line_defines_rewrite_the_files_own():
    src = "#define N 8\nvoid k(int A[N]) {\n  A[0] = N;\n}\n"
    k = parse_source(src, "k.c", defines={"N": 4, "EXTRA": 2})
    assert k.array("A").shape == (4,)
    assert k.source.text.startswith("#define N 4\n")
    assert k.source.extra_defines == (("EXTRA", 2),)


@pytest.mark.parametrize("guarded", [False, True])
def test_a_headers_unguarded_define_of_a_command_line_name_is_a_located_warning(
        tmp_path, guarded):
    """Spector's params.h writes #define W 1920 unguarded: -D W=1922 lost to it without
    a word (probe 42 F4).  The header is not rewritten, so its value holds after it, as
    in the C preprocessor, for the analysis and the emitted code alike; the warning says
    so at the header's #define.  Under #ifndef N, -D sets it and nothing is said."""
    define = "#ifndef N\n#define N 10\n#endif\n" if guarded else "#define N 10\n"
    (tmp_path / "p.h").write_text(define)
    (tmp_path / "k.cpp").write_text('#include "p.h"\nvoid k(int a[N]) {\n  a[0] = 1;\n}\n')
    k = parse_kernel(tmp_path / "k.cpp", defines={"N": 12})
    said = [w for w in k.warnings if "-D N=12" in w]
    assert k.array("a").shape == ((12,) if guarded else (10,)) and k.overridden == tuple(said)
    assert said == ([] if guarded else [
        f"{tmp_path / 'p.h'}:1:9: warning: #define N 10 overrides -D N=12 for the code "
        "after it, as in the C preprocessor: the analysis and the emitted kernel and "
        "testbench (which include this header after their -D lines) use the header's N; "
        "to have -D set it, write the definition as #ifndef N ... #endif"])


def test_pragma_macros_as_vitis_examples_write_them():
    src = """#define PRAGMA_SUB(x) _Pragma (#x)
#define DO_PRAGMA(x) PRAGMA_SUB(x)
#define U 4
void k(int A[64]) {
  for (int i = 0; i < 8; i++) {
    DO_PRAGMA(HLS pipeline II=2)
    A[i] = 0;
  }
  for (int i = 0; i < 8; i++) {
    _Pragma("HLS unroll factor=U")
    A[i] = 1;
  }
#if 0
#pragma HLS array_partition variable=A complete
#endif
  /* #pragma HLS array_partition variable=A complete */
}"""
    k = parse_source(src, "k.c", pipeline_loops=False)
    assert [(l.pipeline_ii, l.unroll) for l in k.body] == [(2, None), (None, 4)]
    assert k.array("A").partitions == ()


def test_pragma_macros_of_a_header_as_spector_hls_writes_them(tmp_path):
    """``PRAGMA_HLS`` defined in an included ``params.h`` (Spector-HLS), with a factor
    another header defines: every pragma written through it was dropped with no word,
    and a factor naming a header's macro was refused (probe 30 F2); a macro passing
    its parameter on (``UNR(f)``) kept ``f`` unsubstituted (probe 30c f09)."""
    (tmp_path / "params.h").write_text(
        "#define PRAGMA_SUB(x) _Pragma (#x)\n#define PRAGMA_HLS(x) PRAGMA_SUB(x)\n"
        "#define UNR(f) PRAGMA_HLS(HLS unroll factor=f)\n")
    (tmp_path / "uf.h").write_text("#define UF 4\n")
    (tmp_path / "k.cpp").write_text("""#include "params.h"
#include "uf.h"
void k(int a[64], int b[64]) {
  int buf[64];
PRAGMA_HLS(HLS array_partition variable=buf type=block factor=2)
  for (int i = 0; i < 64; i++) {
UNR(UF)
    buf[i] = a[i];
  }
  for (int i = 0; i < 64; i++) {
PRAGMA_HLS(HLS pipeline II=2)
    b[i] = buf[i];
  }
}
""")
    k = parse_kernel(tmp_path / "k.cpp", pipeline_loops=False)
    assert [(l.pipeline_ii, l.unroll) for l in k.body if isinstance(l, Loop)] == [
        (None, 4), (2, None)]
    assert [(p.type, p.factor) for p in k.array("buf").partitions] == [("block", 2)]



# A loop whose pragmas come from the macro OPT, on its own line in the body.
MACRO_LOOP = """void k(int a[64], int b[64]) {
  for (int i = 0; i < 64; i++) {
    OPT
    b[i] = a[i];
  }
}
"""


@pytest.mark.parametrize("in_header", [False, True])
def test_a_macro_of_several_pragmas_gives_each(tmp_path, in_header):
    """A macro that expands to two ``_Pragma``s, directly or through other pragma
    macros: only the first was read, so a loop pipelined and unrolled by 4 was
    modelled at one lane, II 1 claimed (probe 30c f10)."""
    macros = ('#define PRAGMA_SUB(x) _Pragma (#x)\n'
              '#define PIPE_UNROLL(f) _Pragma("HLS pipeline II=1") '
              'PRAGMA_SUB(HLS unroll factor=f)\n'
              '#define BOTH PIPE_UNROLL(4) \\\n  PRAGMA_SUB(HLS loop_tripcount max=64)\n')
    if in_header:
        (tmp_path / "p.h").write_text(macros)
        macros = '#include "p.h"\n'
    (tmp_path / "k.cpp").write_text(macros + MACRO_LOOP.replace("OPT", "BOTH"))
    k = parse_kernel(tmp_path / "k.cpp", pipeline_loops=False)
    assert [(l.pipeline_ii, l.unroll) for l in k.body] == [(1, 4)]


MACRO_IN_FORCE = {
    "header-sequence": ('#include "p.h"\n', '#define PIPE _Pragma("HLS pipeline II=1")\n'
                        '#define UNR4 _Pragma("HLS unroll factor=4")\n'
                        '#define OPT PIPE UNR4\n'),
    "skipped-else": ('#ifndef SLOW\n#define OPT _Pragma("HLS pipeline II=1") '
                     '_Pragma("HLS unroll factor=4")\n#else\n'
                     '#define OPT _Pragma("HLS pipeline II=1")\n#endif\n', ""),
    "redefined-after": ('#define OPT _Pragma("HLS pipeline II=1") _Pragma("HLS unroll '
                        'factor=4")\n', ""),
    "variadic": ('#define PRAGMA(...) _Pragma(#__VA_ARGS__)\n#define OPT PRAGMA(HLS '
                 'pipeline II=1) PRAGMA(HLS unroll factor=4)\n', ""),
}


@pytest.mark.parametrize("case", sorted(MACRO_IN_FORCE))
def test_a_pragma_macro_is_read_as_the_preprocessor_expands_it(tmp_path, case):
    """The definition in force where the macro is used, not the file's last one (a
    skipped ``#else`` or a redefinition after the top), a header's macro whose body
    names other pragma macros, and a variadic one: each was dropped or misread, the
    unroll lost and II 1 claimed (probe 31b F3, F6, F7)."""
    head, header = MACRO_IN_FORCE[case]
    (tmp_path / "p.h").write_text(header)
    tail = ('#undef OPT\n#define OPT _Pragma("HLS pipeline II=1")\n'
            if case == "redefined-after" else "")
    (tmp_path / "k.cpp").write_text(head + MACRO_LOOP + tail)
    k = parse_kernel(tmp_path / "k.cpp", pipeline_loops=False)
    assert [(l.pipeline_ii, l.unroll) for l in k.body] == [(1, 4)]


CXX_ERRORS = [
    ("reference", "struct S { int x; };\nvoid k(S A[4]) {\n  int &r = A[1].x;\n  r = 2;\n}\n",
     3, 8, "reference 'r' to an element of array 'A'"),
    ("element-reference-address", "struct S { int x; };\nvoid k(S A[4]) {\n  S &r = A[1];\n"
     "  S *p = &r;\n  p->x = 2;\n}\n", 4, 10, "the address of a reference bound to an array"),
    ("undeclared", "void k(int A[4]) {\n  A[0] = q;\n}\n", 2, 10,
     "use of undeclared identifier 'q'"),
    ("missing-header", '#include "nowhere.h"\nvoid k(int A[4]) {}\n', 1, 10,
     "'nowhere.h' file not found"),
]


@pytest.mark.parametrize("src,line,col,message", [e[1:] for e in CXX_ERRORS],
                         ids=[e[0] for e in CXX_ERRORS])
def test_located_cxx_errors(src, line, col, message):
    err = error_of(src, "k.cpp")
    assert (err.coord.file, err.coord.line, err.coord.col) == ("k.cpp", line, col)
    assert message in err.message


def test_pragma_value_naming_a_header_constant(tmp_path):
    """``factor=NAME`` where NAME is a ``const`` of an included header (as Rosetta
    writes it): clang gives its value, as Vitis reads it."""
    (tmp_path / "sizes.h").write_text("const unsigned int WIDE = 64 / 16;\n")
    path = tmp_path / "k.cpp"
    path.write_text('#include "sizes.h"\nvoid k(int in[64], int out[64]) {\n'
                    "  int buf[64];\n"
                    "#pragma HLS array_partition variable=buf cyclic factor=WIDE\n"
                    "  for (int i = 0; i < 64; i++) { buf[i] = in[i]; }\n"
                    "  for (int i = 0; i < 64; i++) { out[i] = buf[i]; }\n}\n")
    buf = parse_kernel(path).array("buf")
    assert [(p.type, p.factor) for p in buf.partitions] == [("cyclic", 4)]


def test_code_for_c_simulation_only_is_not_read():
    """Vitis defines __SYNTHESIS__ while synthesizing: file output under
    ``#ifndef __SYNTHESIS__`` (a call of a function defined nowhere in the kernel)
    is not part of the hardware, so arraypart does not read it either."""
    src = """void log_values(int *v);
void k(int a[8], int b[8]) {
  for (int i = 0; i < 8; i++) {
#pragma HLS pipeline II=1
    b[i] = a[i] + 1;
#ifndef __SYNTHESIS__
    log_values(b);
#endif
  }
}
"""
    assert "log_values" in error_of(src.replace("#ifndef", "#ifdef")).message
    kernel = parse_source(src, "k.c")
    assert sorted(a.name for a in kernel.arrays) == ["a", "b"]


def test_loop_directives_may_stand_anywhere_in_the_body():
    """Vitis reads a loop's pipeline, unroll and LOOP_TRIPCOUNT pragmas anywhere in its
    body (Xilinx's own examples put pipeline after the loads), and a function's
    pipeline pragma anywhere in the function's body."""
    late = ("void k(int A[8], int B[8]) {\n  for (int i = 0; i < 8; i++) {\n"
            "    int a = A[i];\n#pragma HLS pipeline II=2\n    B[i] = a;\n  }\n}\n")
    (loop,) = parse_source(late, "k.c", pipeline_loops=False).body
    assert loop.pipeline_ii == 2 and len(loop.body) == 2
    whole = ("void k(int A[8], int B[8]) {\n  B[0] = A[0];\n#pragma HLS pipeline II=1\n"
             "  for (int i = 1; i < 8; i++) B[i] = A[i];\n}\n")
    (function,) = parse_source(whole, "k.c").body
    assert (function.name, function.pipeline_ii) == ("k", 1)


@pytest.mark.skipif(not glob.glob(os.path.join(clangtu.GCC_BUILTIN_HEADERS, "omp.h")),
                    reason="GCC's omp.h is not installed")
def test_gccs_own_headers_parse_where_a_kernel_includes_them():
    """GCC's folder of compiler headers stands in for clang's: its omp.h names a
    deallocator in ``__malloc__(f)``, which clang refused (exit 2 on a kernel that
    includes it when present, as parallel CPU versions of HLS kernels do)."""
    kernel = parse_source("""#if __has_include(<omp.h>)
#include <omp.h>
#endif
void k(int a[16], int b[16]) {
  for (int i = 0; i < 16; i++) b[i] = a[i] + a[15 - i];
}
""", "k.cpp")
    assert [a.name for a in kernel.arrays] == ["a", "b"]


# A std::array's operator[] is a call, no subscript: its reads are not modelled, and a
# loop reading four of them per cycle was claimed at II 1 without a word.
STD_ARRAYS = """#include <array>
typedef std::array<std::array<float, 4>, 4> tile_t;
struct S { std::array<int, 8> v; };
void f(const std::array<int, 64> &in, int out[16]) {
    tile_t t = {};
    S s = {};
    int plain[4] = {0, 1, 2, 3};
    for (int i = 0; i < 16; i++) {
#pragma HLS pipeline II=1
        out[i] = in[4*i] + in[4*i+1] + (int)t[i%4][0] + s.v[i % 8] + plain[i % 4];
    }
}
"""


def test_each_std_array_declaration_is_a_located_warning():
    kernel = parse_source(STD_ARRAYS, "std.cpp")
    warned = [(w.split(":")[1], w.split("'")[1]) for w in kernel.warnings]
    assert warned == [("3", "v"), ("4", "in"), ("5", "t")], kernel.warnings
    assert all("is a std::array: arraypart does not model its accesses" in w
               for w in kernel.warnings)
    assert [a.name for a in kernel.arrays] == ["out", "plain"]


# Lea-Fu/fpga-parallelism's arr_t: an array member read and written through the
# class's own operator[], a call.  Nothing was said: the loop was claimed at II 1 with
# 16 reads and 16 writes a cycle of one memory (probe 29, F1).
OPERATOR_INDEX = """template <int size> struct arr_t {
    int a[size];
    int &operator[](int i) { return a[i]; }
};
struct plain_t { int a[16]; int get(int i) { return a[i]; } };
void top(int in[16], int out[16]) {
    arr_t<16> v;
    plain_t p;
    for (int i = 0; i < 16; i++) v[i] = in[i];
    for (int i = 0; i < 16; i++) p.a[i] = in[i];
    for (int i = 0; i < 16; i++) {
#pragma HLS pipeline II=1
        out[i] = v[i] + p.get(i);
    }
}
"""


def test_an_array_member_behind_a_user_operator_index_is_a_located_warning():
    kernel = parse_source(OPERATOR_INDEX, "opindex.cpp")
    said = [w for w in kernel.warnings if "operator[]" in w]
    assert len(said) == 1 and said[0].startswith("opindex.cpp:7:") and "'a'" in said[0], \
        kernel.warnings


def test_a_static_const_member_defined_after_its_class_keeps_its_value():
    """``const unsigned cfg::n;`` after the class (hls4ml writes it, as C++11 wants for
    an odr-used member) is the declaration a use names, without the initializer: the
    bound was no constant, so the function pipeline was dropped with a warning."""
    kernel = parse_source("struct cfg { static const unsigned n = 4; };\n"
                          "const unsigned cfg::n;\n"
                          "void k(int a[4], int b[4]) {\n#pragma HLS pipeline\n"
                          "  for (unsigned i = 0; i < cfg::n; i++) b[i] = a[i] * 2;\n}\n",
                          "cfg.cpp")
    assert kernel.warnings == ()
    (call,) = kernel.body  # the function pipeline: one step per call
    (loop,) = call.body
    assert call.pipeline_ii is not None and loop.bound == (E.const(3),)


def test_a_cursor_kind_the_clang_bindings_leave_out_is_read():
    """libclang 18's Python bindings name no flag_enum attribute (cursor kind 437, a
    child of the enum): reading its kind raised ValueError, an internal error; every
    kind below the enumeration's bound now has a name (clangtu.MISSING_KINDS)."""
    body = body_of("enum __attribute__((flag_enum)) F { A = 1, B = 2 };\n"
                   "void k(const int in[8], int out[8]) {\n"
                   "  for (int i = 0; i < 8; i++)\n    out[i] = in[i] + (A | B);\n}\n")
    assert body == (("loop", "L3", "i", ("0",), ("7",), 1, None, None, (
        ("stmt", 4, ("read in[i] #1 @4:14", "write out[i] #0 @4:5")),)),)


# cms-L1TK DuplicateRemoval's element references (probe 39 M4), in an unrolled loop.
ELEMENT_REFERENCES = """\
struct P { int a; int b; };
void elemref(const int in[8], int out[8]) {
    static P s[9];
    for (int i = 0; i < 8; i++) {
#pragma HLS unroll
        const P &next = s[i + 1];
        P &cur = s[i];
        cur.a = next.a + in[i];
        cur.b = next.b;
        out[i] = cur.a;
        int &whole = out[i];
        whole += 1;
    }
}
"""


def test_a_reference_to_an_element_is_that_element_where_it_is_used():
    """Each use of ``next`` and ``cur`` is an access of s[i + 1] and s[i] (of the field
    it names), each of ``whole`` one of out[i] (``+=``: a read and a write); the
    declarations access nothing, and s keeps its references as written (their
    subscripts stay in the declarations)."""
    k = parse_source(ELEMENT_REFERENCES, "elemref.cpp")
    found = [(a.array, a.kind, E.pretty(a.index[0]), a.field, a.coord.line)
             for a in accesses(k.body)]
    assert found == [("s", "read", "i + 1", "a", 8), ("in", "read", "i", None, 8),
                     ("s", "write", "i", "a", 8), ("s", "read", "i + 1", "b", 9),
                     ("s", "write", "i", "b", 9), ("s", "read", "i", "a", 10),
                     ("out", "write", "i", None, 10), ("out", "read", "i", None, 12),
                     ("out", "write", "i", None, 12)]
    assert "reference 'next'" in k.array("s").kept_reference


def test_a_method_called_on_an_element_reference_runs_on_the_element():
    """``cur.inc()`` is inlined on s[i] (its ``a++`` a read and a write of s[i].a), as
    ``s[i].inc()`` is; it was inlined on a struct variable 'cur' of no memory."""
    k = parse_source("struct P { int a; int b; void inc() { a++; } };\n"
                     "void meth(P s[8], int out[8]) {\n"
                     "  for (int i = 0; i < 8; i++) {\n"
                     "    P &cur = s[i];\n    cur.inc();\n    out[i] = cur.b;\n  }\n}\n",
                     "meth.cpp")
    found = [(a.array, a.kind, E.pretty(a.index[0]), a.field) for a in accesses(k.body)]
    assert found == [("s", "read", "i", "a"), ("s", "write", "i", "a"),
                     ("s", "read", "i", "b"), ("out", "write", "i", None)]
