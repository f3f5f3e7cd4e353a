"""A struct variable's array field stored apart from its struct (issues #13, #14;
:mod:`arraypart.frontend.routed`): where the top's text reaches ``w.buf`` only through
its full subscripts, the emission declares its banks beside ``w`` and routes every
reference as a plain local's, so any scheme is open to it; where ``w`` is copied,
passed, pointed to or otherwise reached whole, ``w.buf`` keeps a per_dim scheme and the
note that says so."""

from pathlib import Path
from textwrap import dedent

import pytest

import arraypart
from arraypart import api
from arraypart.check import trace
from arraypart.frontend import clangtu

from conftest import (array, assert_the_testbench_passes, assert_the_trace_agrees, needs_gxx,
                      suite_kernel)

# The DENOISE stencil of kernels/denoise.c with its buffer a field of a local struct.
STRUCT_DENOISE = """
    #define H 64
    #define W 64
    struct Win { float buf[H][W]; int n; };
    {helpers}
    void sd(float in[H][W], float out[H][W]) {
        {declaration}
    #pragma HLS bind_storage variable=w.buf type=ram_1p
        for (int i = 0; i < H; i++)
            for (int j = 0; j < W; j++) {
    #pragma HLS pipeline II=1
                w.buf[i][j] = in[i][j];
            }
        for (int i = 0; i < H - 2; i++)
            for (int j = 0; j < W - 2; j++) {
    #pragma HLS pipeline II=1
                out[i][j] = 0.25f * (w.buf[i][j + 1] + w.buf[i + 1][j]
                                 + w.buf[i + 1][j + 2] + w.buf[i + 2][j + 1]);
            }
        {tail}
    }"""
PER_DIM_NOTE = "keeps a per_dim scheme"


def struct_denoise(tmp_path: Path, helpers: str = "", declaration: str = "Win w;",
                   tail: str = "", struct: str | None = None) -> Path:
    """:data:`STRUCT_DENOISE` written as ``sd.cpp`` with these parts."""
    text = dedent(STRUCT_DENOISE)
    if struct is not None:
        text = text.replace("struct Win { float buf[H][W]; int n; };", struct)
    for key, value in (("helpers", helpers), ("declaration", declaration), ("tail", tail)):
        text = text.replace("{" + key + "}", value)
    path = tmp_path / "sd.cpp"
    path.write_text(text)
    return path


@pytest.fixture(scope="module")
def routed(tmp_path_factory):
    return arraypart.compile_kernel(struct_denoise(tmp_path_factory.mktemp("routed")))


def test_a_routed_field_is_banked_as_the_plain_local_is(routed):
    """w.buf took per_dim cyclic 3 x cyclic 3 (9 banks) so that the struct stayed as
    written; stored apart, it gets denoise.c's flat banking of the plain local, fewer
    banks, proved conflict-free, with no note."""
    buf = array(routed.report, "w.buf")
    plain = array(suite_kernel("denoise").report, "buf")
    assert buf.array.member_routed and not buf.array.pragma_only
    assert buf.banking.scheme.kind == "flat" and buf.banking.scheme.banks < 9
    assert buf.banking.describe() == plain.banking.describe()
    assert buf.conflict_free and buf.banking.scheme.banks == buf.lower_bound
    assert not [w for w in routed.report.warnings if PER_DIM_NOTE in w]
    code = [line for line in routed.files["sd.cpp"].splitlines()
            if not line.lstrip().startswith("//")]
    assert code[code.index("    Win w;") + 1] == "    float w_buf_bank[4][1024];"
    assert not [line for line in code if "w.buf" in line]


@needs_gxx
def test_the_routed_field_computes_what_the_original_does(routed, tmp_path):
    assert_the_testbench_passes(routed, tmp_path)


@needs_gxx
def test_check_and_its_trace_agree_on_the_routed_field(routed, tmp_path):
    """``check`` replays the banking at II 1 in both loops, and ``check --trace``
    records the original's accesses of w.buf where the model puts them."""
    report, _, checked = api.check_kernel(routed.report.kernel.path)
    assert [(lp.achieved_ii, lp.first_conflict) for lp in checked.loops] == [(1, None)] * 2
    judged = assert_the_trace_agrees(routed, tmp_path, ports=2)
    assert [lp.traced_ii for lp in judged.replay.loops] == [1, 1]


@pytest.mark.parametrize("parts", [
    dict(helpers="static float first(const Win &v) { return v.buf[0][0]; }",
         tail="out[0][0] += first(w);"),
    dict(tail="Win v = w; out[0][0] = v.buf[1][1];"),
    dict(tail="Win *p = &w; out[0][0] = p->buf[2][2];"),
    dict(helpers="static float head(const float *row) { return row[1]; }",
         tail="out[0][0] = head(w.buf[3]);"),
    dict(tail="float *e = &w.buf[2][3]; out[0][0] = *e;"),
    dict(struct="struct Win { float buf[H][W]; int n; int get() const { return n; } };"),
    dict(declaration="Win w = {};"),
    dict(struct="struct Win { float buf[H][W] = {}; int n; };"),
    dict(tail="{ Win w; w.n = 1; out[1][1] = w.n; }"),
    dict(helpers="#include <cstdio>",
         tail="#ifndef __SYNTHESIS__\n    printf(\"%f\\n\", w.buf[0][0]);\n#endif"),
], ids=["passed", "copied", "pointed-to", "row", "element-address", "method",
        "initialized", "member-initializer", "name-redeclared", "simulation-code"])
def test_a_field_reached_otherwise_keeps_a_per_dim_scheme(tmp_path, parts):
    """Banks beside ``w`` would miss what a call, a copy, a pointer, a row, a method,
    an initializer or C-simulation code does with the struct's own field, and a
    reference rewritten by name could be another ``w``'s: w.buf stays in the struct,
    per_dim, and the note says what a flat scheme would save."""
    report = arraypart.analyze(struct_denoise(tmp_path, **parts))
    buf = array(report, "w.buf")
    assert not buf.array.member_routed and buf.array.pragma_only
    assert buf.banking.scheme.kind == "per_dim" and buf.conflict_free
    (note,) = [w for w in report.warnings if PER_DIM_NOTE in w]
    assert "a flat scheme would be cheaper" in note, note


def test_a_struct_a_header_defines_keeps_a_per_dim_scheme(tmp_path):
    (tmp_path / "win.h").write_text(
        "#define H 64\n#define W 64\nstruct Win { float buf[H][W]; int n; };\n")
    path = struct_denoise(tmp_path, struct='#include "win.h"')
    buf = array(arraypart.analyze(path), "w.buf")
    assert not buf.array.member_routed and buf.banking.scheme.kind == "per_dim"


NESTED = """
    #define N 16
    struct Rows { float buf[N][N]; };
    struct Win { Rows in; float acc[N][N]; int n; };
    void nested(const float x[N][N], float out[N][N]) {
        static Win w;
    #pragma HLS bind_storage variable=w.in.buf type=ram_1p
    #pragma HLS bind_storage variable=w.acc type=ram_1p
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++) {
    #pragma HLS pipeline II=1
                (&w)->in.buf[i][j] = x[i][j] + w.n;
                w.acc[i][j] = x[j][i];
            }
        w.n++;
        for (int i = 0; i < N - 2; i++)
            for (int j = 0; j < N - 2; j++) {
    #pragma HLS pipeline II=1
                out[i][j] = w.in.buf[i][j + 1] + w.in.buf[i + 1][j] + w.in.buf[i + 1][j + 2]
                            + w.in.buf[i + 2][j + 1] + w.acc[i][j] + w.acc[i + 2][j + 2];
            }
    }"""


@needs_gxx
def test_nested_and_sibling_fields_of_a_static_struct_are_routed(tmp_path):
    """A field of a struct inside the struct (``w.in.buf``, once spelled
    ``(&w)->in.buf``) and a sibling field of one static variable: each gets banks of
    its own, static as the variable is (its values kept from call to call, which the
    testbench's repeated calls compare), replicated where copies are cheaper (every
    copy written); the scalar field stays in the struct."""
    path = tmp_path / "nested.cpp"
    path.write_text(dedent(NESTED))
    compiled = arraypart.compile_kernel(path)
    fields = [a for a in compiled.report.solution.arrays if a.array.member is not None]
    assert sorted(a.array.name for a in fields if a.array.member_routed) == [
        "w.acc", "w.in.buf"]
    assert any(a.banking.copies > 1 for a in fields) and all(a.conflict_free for a in fields)
    emitted = compiled.files["nested.cpp"]
    assert "    static float w_in_buf_bank[" in emitted
    assert "    static float w_acc_bank[" in emitted
    assert_the_testbench_passes(compiled, tmp_path)
    recorded = trace.record(compiled.report.kernel, clangtu.Options(), tmp_path,
                            compiled.report.solution.emitted_bankings())
    judged = api.judge_trace(compiled.report, recorded)
    assert judged.disagreements == () and judged.addresses.compared, judged.format()


@needs_gxx
def test_a_field_of_ap_numbers_is_routed_past_the_implicit_construction(tmp_path):
    """``Win w;`` of a struct whose field holds ``ap_uint`` numbers is, to clang, a call
    of Win's implicit constructor (no initializer written): it default-initializes
    the field's elements as the banks' own declaration does, so the field is routed."""
    text = """
        #include <ap_int.h>
        struct Win { ap_uint<12> buf[16][16]; int n; };
        void apw(const ap_uint<12> in[16][16], ap_uint<14> out[16][16]) {
            Win w;
            for (int i = 0; i < 16; i++)
                for (int j = 0; j < 16; j++) {
        #pragma HLS pipeline II=1
                    w.buf[i][j] = in[i][j];
                }
            for (int i = 0; i < 14; i++)
                for (int j = 0; j < 14; j++) {
        #pragma HLS pipeline II=1
                    out[i][j] = w.buf[i][j + 1] + w.buf[i + 1][j] + w.buf[i + 1][j + 2]
                                + w.buf[i + 2][j + 1];
                }
        }"""
    path = tmp_path / "apw.cpp"
    path.write_text(dedent(text))
    compiled = arraypart.compile_kernel(path)
    assert array(compiled.report, "w.buf").array.member_routed
    assert "    ap_uint<12> w_buf_bank[" in compiled.files["apw.cpp"]
    assert_the_testbench_passes(compiled, tmp_path)
