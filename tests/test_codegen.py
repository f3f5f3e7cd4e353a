"""Code generation: banked HLS C++, testbench, Tcl and cfg.

Kernels here are parsed by the front end for their source text only and given
hand-built IR and solutions, so these tests do not depend on lowering or the solver.  The differential tests build the
emitted kernel together with its testbench under g++ and run it: the testbench compares
the banked kernel with the original one on random inputs.
"""

import re
import shutil
import subprocess

import pytest
import arraypart
from arraypart import api, cli, ir
from arraypart import expr as E
from arraypart.check import trace
from arraypart.banking.solution import ArraySolution, Solution
from arraypart.codegen import DEFAULT_CLOCK_NS, DEFAULT_PART, emit
from arraypart.errors import Coord, KernelError
from arraypart.frontend import clangtu, parse_source
from arraypart.frontend.redeclared import Redeclared
from arraypart.scheme import Banking, DimPartition, flat_scheme, none_scheme, per_dim_scheme

from conftest import assert_the_testbench_passes, assert_the_trace_agrees, run_testbench, write

needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")
needs_tclsh = pytest.mark.skipif(shutil.which("tclsh") is None, reason="tclsh is not installed")

HERE = Coord("k.c", 1, 1)


# ---------------------------------------------------------------- fixtures


def array(name, shape, interface, elem="int", **kw):
    return ir.Array(name, shape, elem, 32, interface, HERE, **kw)


def kernel_of(name, text, arrays, body=()):
    """The source unit of ``text`` (parsed as C) with hand-built arrays and loops."""
    source = parse_source(text, f"{name}.c", top=name).source
    return ir.Kernel(name, name, f"{name}.c", tuple(arrays), tuple(body), HERE,
                     source=source)


def logical_lines(cpp):
    """The lines of ``cpp`` with the statements that codegen broke (at 100 columns)
    joined again."""
    out = []
    for line in cpp.splitlines():
        prev = out[-1].rstrip() if out else ""
        if (prev and prev[-1] not in ";{})" and line.strip()
                and not prev.lstrip().startswith(("#", "//"))):
            out[-1] = prev + " " + line.strip()
        else:
            out.append(line)
    return out


def solution_of(*entries):
    """entries: (array, scheme[, copies, read_copy])."""
    out = []
    for a, scheme, *rest in entries:
        copies = rest[0] if rest else 1
        read_copy = (tuple((r, E.const(c)) for r, c in sorted(rest[1].items()))
                     if len(rest) > 1 else ())
        out.append(ArraySolution(a, ir.PORT_MODELS["ram_1p"],
                                 Banking(a.name, scheme, copies, read_copy),
                                 lower_bound=1, conflict_free=True, achieved_ii=(),
                                 bram18k=1, max_concurrent=1, seconds=0.0))
    return Solution(tuple(out), (), 0.0)


def cyclic(shape, *factors):
    return per_dim_scheme(shape, tuple(DimPartition("cyclic", f) if f > 1 else
                                       DimPartition("none", 1) for f in factors))


def loop(var, lo, hi, *body, pipeline=None):
    return ir.Loop(var, (E.const(lo),), (E.const(hi),), 1, tuple(body), f"L_{var}", HERE,
                   pipeline_ii=pipeline)


def access(name, kind, ref_id, *index):
    return ir.Access(name, tuple(index), kind, ref_id, HERE)


def build_and_run(files, name, tmp_path):
    for file_name, text in files.items():
        (tmp_path / file_name).write_text(text)
    binary = tmp_path / "tb"
    build = subprocess.run(["g++", "-std=c++14", "-Wall", "-Wno-unknown-pragmas",
                            "-o", str(binary), str(tmp_path / f"{name}.cpp"),
                            str(tmp_path / f"{name}_tb.cpp"), "-lm"],
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-3000:]
    return subprocess.run([str(binary)], capture_output=True, text=True, timeout=60)


# ---------------------------------------------------------------- kernels

STENCIL = r"""
void stencil(float in[8][8], float out[8][8], float gain) {
#pragma HLS INTERFACE mode=ap_memory port=in
#pragma HLS array_partition variable=in type=block factor=2 dim=1
  float buf[8][8];
#pragma HLS array_partition variable=buf type=complete dim=0
#pragma HLS bind_storage variable=buf type=ram_2p
  for (int i = 0; i < 8; i++)
    for (int j = 0; j < 8; j++) {
#pragma HLS pipeline II=1
      buf[i][j] = in[i][j] * gain;
    }
  for (int i = 1; i < 7; i++)
    for (int j = 1; j < 7; j++) {
#pragma HLS pipeline II=1
      out[i][j] = buf[i-1][j] + buf[i+1][j] + buf[i][j-1] + buf[i][j+1];
    }
}
"""


def stencil_kernel(buf_scheme):
    arrays = (array("in", (8, 8), True, "float"), array("out", (8, 8), True, "float"),
              array("buf", (8, 8), False, "float"))
    k = kernel_of("stencil", STENCIL, arrays)
    sol = solution_of((arrays[0], cyclic((8, 8), 2, 1)),
                      (arrays[1], none_scheme((8, 8))),
                      (arrays[2], buf_scheme))
    return k, sol


# Unrolled lanes 4*i + k: banks must come out as the lane constant k.
LANES = r"""
#include <stdint.h>
void lanes(int32_t in[16], int32_t out[16]) {
  int32_t buf[16];
  for (int i = 0; i < 4; i++) {
#pragma HLS pipeline II=1
    for (int k = 0; k < 4; k++) {
      buf[4*i + k] = in[4*i + k] * 3;
    }
  }
  for (int i = 0; i < 16; i++) {
    out[i] = buf[i] + buf[15 - i];
  }
}
"""


def lanes_kernel():
    arrays = (array("in", (16,), True, "int32_t"), array("out", (16,), True, "int32_t"),
              array("buf", (16,), False, "int32_t"))
    lane = E.affine({"i": 4, "k": 1})
    i = E.var("i")
    body = (loop("i", 0, 3, loop("k", 0, 3, ir.Stmt((
                access("in", "read", 1, lane), access("buf", "write", 0, lane)), HERE)),
                 pipeline=1),
            loop("i", 0, 15, ir.Stmt((
                access("buf", "read", 3, i), access("buf", "read", 4, E.affine({"i": -1}, 15)),
                access("out", "write", 2, i)), HERE)))
    k = kernel_of("lanes", LANES, arrays, body)
    sol = solution_of((arrays[0], cyclic((16,), 4)), (arrays[1], none_scheme((16,))),
                      (arrays[2], flat_scheme((16,), (1,), 4)))
    return k, sol


# A replicated table: compound assignments, ++ in both forms, an assignment used as a
# value, an index array, a brace-elided initializer and a return value.
TABLE = r"""
int table_k(int data[32], unsigned char idx[32], int out[2][4]) {
  int table[2][4] = {1, 2, 3, 4, {5, 6}};
  int total = 0;
  for (int i = 0; i < 32; i++) {
#pragma HLS pipeline II=1
    table[i % 2][idx[i] % 4] += data[i];
    table[1][(i + 3) % 4]++;
    total += table[i % 2][i % 4] * table[1 - i % 2][3 - i % 4];
  }
  for (int j = 0; j < 4; j++) {
    out[0][j] = table[0][j];
    ++table[1][j];
    out[1][j] = (table[0][j] = table[1][j] * 2);
  }
  return total;
}
"""


def table_kernel(scheme, copies=2, read_copy=None):
    arrays = (array("data", (32,), True), array("idx", (32,), True, "unsigned char"),
              array("out", (2, 4), True), array("table", (2, 4), False))
    k = kernel_of("table_k", TABLE, arrays)
    # refs: 0 table, 1 idx, 2 data, 3 table, 4 table, 5 table, 6 out, 7 table,
    # 8 table, 9 out, 10 table, 11 table
    sol = solution_of((arrays[0], none_scheme((32,))), (arrays[1], none_scheme((32,))),
                      (arrays[2], none_scheme((2, 4))),
                      (arrays[3], scheme, copies,
                       read_copy if read_copy is not None else {0: 1, 5: 1, 11: 1}))
    return k, sol


# ---------------------------------------------------------------- per_dim


def test_per_dim_pragmas_replace_the_users_and_keep_other_pragmas():
    k, sol = stencil_kernel(cyclic((8, 8), 2, 2))
    cpp = emit(k, sol)["stencil.cpp"]
    pragmas = [line.strip() for line in cpp.splitlines()
               if line.strip().startswith("#pragma HLS")]
    assert pragmas == [
        "#pragma HLS array_partition variable=in type=cyclic factor=2 dim=1",
        "#pragma HLS INTERFACE mode=ap_memory port=in",
        "#pragma HLS array_partition variable=buf type=cyclic factor=2 dim=1",
        "#pragma HLS array_partition variable=buf type=cyclic factor=2 dim=2",
        "#pragma HLS bind_storage variable=buf type=ram_1p",
        "#pragma HLS pipeline II=1",
        "#pragma HLS pipeline II=1",
    ]
    assert "void stencil(float in[8][8], float out[8][8], float gain)" in cpp
    # the local's pragmas follow its declaration
    assert cpp.index("float buf[8][8];") < cpp.index("variable=buf type=cyclic")


def test_complete_partition_has_no_factor():
    scheme = per_dim_scheme((8, 8), (DimPartition("complete", 8), DimPartition("none", 1)))
    k, sol = stencil_kernel(scheme)
    assert "#pragma HLS array_partition variable=buf type=complete dim=1\n" in (
        emit(k, sol)["stencil.cpp"])


def test_every_banked_array_carries_its_scheme_as_a_comment():
    k, sol = stencil_kernel(flat_scheme((8, 8), (1, 2), 5))
    cpp = emit(k, sol)["stencil.cpp"]
    assert max(len(line) for line in cpp.splitlines()) <= 100
    unwrapped = re.sub(r"\n\s*//   ", " ", cpp)  # a long comment goes on over lines
    for a in sol.arrays:
        assert f"// arraypart: {a.array.name}: {a.banking.scheme.describe()}" in unwrapped
    assert "stored as buf_bank[5][" in cpp


@needs_gxx
def test_per_dim_kernel_matches_the_original(tmp_path):
    k, sol = stencil_kernel(cyclic((8, 8), 2, 4))
    run = build_and_run(emit(k, sol), "stencil", tmp_path)
    assert run.returncode == 0, run.stdout
    assert run.stdout.strip().splitlines()[-1].startswith("PASS")


# ---------------------------------------------------------------- flat


def test_flat_scheme_becomes_explicit_banks():
    scheme = flat_scheme((8, 8), (1, 2), 5)
    k, sol = stencil_kernel(scheme)
    cpp = emit(k, sol)["stencil.cpp"]
    assert f"float buf_bank[5][{scheme.bank_depth}];" in cpp
    assert "#pragma HLS array_partition variable=buf_bank type=complete dim=1" in cpp
    assert "#pragma HLS bind_storage variable=buf_bank type=ram_1p" in cpp
    assert "dim=2" not in cpp
    # the user's pragmas on buf are gone, no reference to buf is left
    assert re.search(r"\bbuf\[", cpp) is None
    assert "variable=buf " not in cpp


@needs_gxx
def test_flat_kernel_matches_the_original(tmp_path):
    k, sol = stencil_kernel(flat_scheme((8, 8), (1, 3), 4, block=2))
    run = build_and_run(emit(k, sol), "stencil", tmp_path)
    assert run.returncode == 0, run.stdout


def test_static_lane_banks_are_constants():
    k, sol = lanes_kernel()
    cpp = emit(k, sol)["lanes.cpp"]
    # buf[4*i + k] under cyclic 4: bank k, offset i; buf[15 - i]: not static
    assert "buf_bank[k][i] = in[4*i + k] * 3;" in cpp
    bare = re.sub(r"[()\s]", "", cpp)
    assert ("out[i]=buf_bank[unsignedi%4u][unsignedi/4u]"
            "+buf_bank[unsigned-1*i+15%4u][unsigned-1*i+15/4u];") in bare


@needs_gxx
def test_lanes_kernel_matches_the_original(tmp_path):
    k, sol = lanes_kernel()
    files = emit(k, sol)
    assert "#include <stdint.h>" in files["lanes.cpp"].splitlines()
    run = build_and_run(files, "lanes", tmp_path)
    assert run.returncode == 0, run.stdout


@needs_gxx
def test_a_wrong_offset_is_caught_by_the_testbench(tmp_path):
    k, sol = lanes_kernel()
    files = emit(k, sol)
    good = "buf_bank[k][i] = "
    assert good in files["lanes.cpp"]
    files["lanes.cpp"] = files["lanes.cpp"].replace(good, "buf_bank[k][(i + 1) % 4] = ")
    run = build_and_run(files, "lanes", tmp_path)
    assert run.returncode == 1
    lines = run.stdout.splitlines()
    assert lines[-2].startswith("FAIL: lanes:") and "check --trace" in lines[-1]
    assert re.match(r"  out\[\d+\]: expected -?\d+, got -?\d+", lines[0])


# ---------------------------------------------------------------- copies


def test_writes_update_every_copy_and_reads_use_their_copy():
    k, sol = table_kernel(cyclic((2, 4), 1, 2))
    cpp = emit(k, sol)["table_k.cpp"]
    # {1, 2, 3, 4, {5, 6}} fills rows (1 2 3 4) (5 6 0 0); cyclic 2 on dim 2 puts the
    # even columns in bank 0; every copy starts equal
    banks = "{{1, 3, 5, 0}, {2, 4, 6, 0}}"
    assert f"int table_bank[2][2][4] = {{{banks}, {banks}}};" in cpp
    assert "#pragma HLS array_partition variable=table_bank type=complete dim=2" in cpp
    # ref 0 (compound, read copy 1): both copies stored, old value read from copy 1
    stmt = next(line.strip() for line in logical_lines(cpp) if "data[i]" in line)
    assert stmt.startswith("table_bank[0][")
    assert "] = table_bank[1][" in stmt
    assert stmt.count("table_bank[1][") == 2 and stmt.endswith("+ data[i];")
    # post-increment in statement context: both copies
    inc = next(line.strip() for line in logical_lines(cpp) if "(i + 3)" in line)
    assert inc.count("table_bank[0]") == 2 and inc.count("table_bank[1]") == 1
    assert inc.endswith("+ 1;")


@needs_gxx
@pytest.mark.parametrize("scheme", [cyclic((2, 4), 1, 2), flat_scheme((2, 4), (1, 1), 3)],
                         ids=["per_dim", "flat"])
def test_replicated_kernel_matches_the_original(tmp_path, scheme):
    k, sol = table_kernel(scheme)
    files = emit(k, sol)
    assert "random_int<unsigned char>(0, 4)" in files["table_k_tb.cpp"]  # idx indexes dim 2
    run = build_and_run(files, "table_k", tmp_path)
    assert run.returncode == 0, run.stdout


@needs_gxx
def test_a_store_that_misses_a_copy_is_caught(tmp_path):
    k, sol = table_kernel(cyclic((2, 4), 1, 2), read_copy={5: 1})
    files = emit(k, sol)
    cpp = "\n".join(logical_lines(files["table_k.cpp"])) + "\n"
    stmt = next(line for line in cpp.splitlines() if "++" not in line and "(i + 3)" in line)
    # drop the store into copy 1: later reads of copy 1 then see stale values
    broken = re.sub(r"= table_bank\[1\]\[[^=]*\] = ", "= ", stmt)
    assert broken != stmt
    files["table_k.cpp"] = cpp.replace(stmt, broken)
    run = build_and_run(files, "table_k", tmp_path)
    assert run.returncode == 1 and "FAIL" in run.stdout


def test_a_used_post_increment_of_a_replicated_array_is_rejected():
    text = TABLE.replace("++table[1][j];", "out[1][j] = table[1][j]++;")
    k, sol = table_kernel(cyclic((2, 4), 1, 2))
    k = kernel_of("table_k", text, k.arrays)
    with pytest.raises(KernelError) as err:
        emit(k, sol)
    assert (err.value.coord.line, err.value.coord.col) == (13, 17)
    assert "post-increment" in err.value.message


def test_a_flat_scheme_on_an_interface_array_is_rejected():
    k, sol = stencil_kernel(cyclic((8, 8), 2, 2))
    bad = solution_of((k.arrays[0], flat_scheme((8, 8), (1, 2), 5)))
    with pytest.raises(KernelError, match="interface array 'in'"):
        emit(k, bad)


@pytest.mark.parametrize("use, col, message", [
    ("*buf[i-1]", 20, "indexed with 1 subscript"),
    ("sizeof(buf)", 26, "used other than through full subscripts")])
def test_a_banked_array_used_whole_is_rejected(use, col, message):
    text = STENCIL.replace("out[i][j] = buf[i-1][j]", f"out[i][j] = {use} + buf[i-1][j]")
    k, sol = stencil_kernel(flat_scheme((8, 8), (1, 2), 5))
    with pytest.raises(KernelError, match=message) as err:  # front end or codegen
        emit(kernel_of("stencil", text, k.arrays), sol)
    assert (err.value.coord.line, err.value.coord.col) == (16, col)


# ---------------------------------------------------------------- testbench


def test_testbench_holds_the_original_kernel_and_compares_everything():
    k, sol = table_kernel(cyclic((2, 4), 1, 2))
    tb = emit(k, sol)["table_k_tb.cpp"]
    original = tb[tb.index("namespace original {"):tb.index("}  // namespace original")]
    body = TABLE[TABLE.index("int table_k"):].strip()
    # renamed, so that no call in the file also finds the banked one (ADL)
    assert body.replace("table_k", "arraypart_original_table_k", 1) in original
    assert "int table_k(int data[32], unsigned char idx[32], int out[2][4]);" in tb
    assert "int expected_return = original::arraypart_original_table_k(expected_data, " \
           "expected_idx, expected_out);" in tb
    for name in ("data", "idx", "out"):
        assert f'compare("{name}"' in tb
    assert 'compare("return value", &expected_return, &actual_return' in tb


@needs_gxx
def test_the_original_renames_the_sub_functions_only_its_file_defines(tmp_path):
    """The original's copy renames a sub-function that a header declares (ADL would
    also find the header's global one, the banked kernel's) and declares it first as
    the header does, with its default argument; ``twice`` keeps its name, as the
    header declares an overload of it that the file does not define (renamed, a call
    of that one would find nothing)."""
    write(tmp_path, "k.h", "#define LIMIT 8\nvoid helper(int a[8], int n = LIMIT);\n"
                           "void twice(int a[8]);\nvoid twice(float x);\n"
                           "void k(int a[8]);\n")
    path = write(tmp_path, "k.cpp", """\
#include "k.h"
void k(int a[8]) {
  helper(a);
  twice(a);
}
void helper(int a[8], int n) {
  for (int i = 0; i < n; i++) a[i] += 1;
}
void twice(int a[8]) {
  for (int i = 0; i < 8; i++) a[i] *= 2;
}
""")
    compiled = arraypart.compile_kernel(path)
    assert compiled.report.kernel.source.redeclared == (
        Redeclared("helper", "void helper(int a[8], int n = LIMIT);", True, name_at=5),
        Redeclared("twice", "void twice(int a[8]);", False, name_at=5))
    tb = compiled.files["k_tb.cpp"]
    original = tb[tb.index("namespace original {"):tb.index("}  // namespace original")]
    assert original.startswith("namespace original {\n"
                               "void arraypart_original_helper(int a[8], int n = LIMIT);\n"
                               "void twice(int a[8]);\n")
    assert "  arraypart_original_helper(a);\n  twice(a);\n" in original
    assert_the_testbench_passes(compiled, tmp_path)


@needs_gxx
def test_a_main_that_synthesis_skips_is_made_weak_too(tmp_path):
    """A test ``main`` under ``#ifndef __SYNTHESIS__``: the reading with
    ``__SYNTHESIS__`` does not see it, yet the testbench's build compiles it, so the
    emitted kernel makes it weak as a visible one ("multiple definition of `main'"
    before); a ``main`` in a comment is none."""
    text = ("void k(int a[8]) { for (int i = 0; i < 8; i++) {\n"
            "#pragma HLS pipeline II=1\n    a[i] += 1; } }\n"
            "#ifndef __SYNTHESIS__\n/* main() { */ static int probe() { return 0; }\n"
            "int\nmain() { int a[8] = {0}; k(a); return a[0] - 1; }\n#endif\n")
    path = write(tmp_path, "k.c", text)
    compiled = arraypart.compile_kernel(str(path))
    emitted = compiled.files["k.cpp"]
    assert ("#ifndef __SYNTHESIS__\n/* main() { */ static int probe() { return 0; }\n"
            "// arraypart: weak, so that the testbench's main links beside it\n"
            "__attribute__((weak)) int\nmain() {") in emitted
    assert_the_testbench_passes(compiled, tmp_path)
    alone = subprocess.run(["g++", "-std=c++14", "-w", "-o", str(tmp_path / "alone"),
                            str(tmp_path / "out" / "k.cpp")], capture_output=True, text=True)
    assert alone.returncode == 0, alone.stderr
    assert subprocess.run([str(tmp_path / "alone")]).returncode == 0


@needs_gxx
def test_a_top_named_like_its_namespace_renames_the_function_alone(tmp_path):
    """``namespace fc { void fc(...) }``: the copy renames the function where clang
    declares and references it (its definition, a call through a macro's body, a
    qualified call in C simulation's code, which the reading with
    ``__SYNTHESIS__`` skips), never the namespace ``fc`` or a member named alike, so
    ``original::fc::arraypart_original_fc`` exists; the testbench passes and ``check
    --trace`` (whose driver includes the same copy) builds it and agrees (it was exit
    3)."""
    path = write(tmp_path, "nsame.cpp", """\
#define TWICE(a, b) fc(a, b); fc(a, b)
namespace fc {
struct fc_t { int fc; };
void fc(const int in[64], int out[64]) {
    int buf[64];
    for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
        buf[i] = in[i] * 2;
    }
    for (int i = 0; i < 32; i++) {
#pragma HLS pipeline II=1
        out[i] = buf[2 * i] + buf[2 * i + 1];
    }
}
void again(const int in[64], int out[64]) { TWICE(in, out); }
}
#ifndef __SYNTHESIS__
int selftest() {
    int in[64] = {0}, out[64];
    fc::fc_t t = {1};
    fc::fc(in, out);
    return out[0] + t.fc;
}
#endif
""")
    compiled = arraypart.compile_kernel(path, top="fc")
    tb = compiled.files["nsame_tb.cpp"]
    original = tb[tb.index("namespace original {"):tb.index("}  // namespace original")]
    assert "#define TWICE(a, b) arraypart_original_fc(a, b); arraypart_original_fc(a, b)" \
        in original
    assert "namespace fc {\nstruct fc_t { int fc; };\nvoid arraypart_original_fc(" in original
    assert "    fc::arraypart_original_fc(in, out);\n    return out[0] + t.fc;" in original
    assert "original::fc::arraypart_original_fc(expected_in, expected_out);" in tb
    assert_the_testbench_passes(compiled, tmp_path)
    assert cli.main(["check", str(path), "--top", "fc", "--trace"]) == 0


@needs_gxx
def test_a_header_named_like_the_top_keeps_its_name(tmp_path):
    """``gsum.c`` includes ``gsum.h``, which holds the kernel's table: the testbench
    includes that header, not one renamed like the top (which nobody writes), and
    ``check --trace`` builds (it was exit 3)."""
    write(tmp_path, "gsum.h", "#define N 64\nint tab[N] = {1, 2, 3};\n")
    path = write(tmp_path, "gsum.c", """\
#include "gsum.h"
int gsum(void) {
    int s = 0;
    for (int i = 0; i < N; i += 2) {
#pragma HLS pipeline II=1
        s += tab[i] + tab[i + 1];
    }
    return s;
}
""")
    compiled = arraypart.compile_kernel(path)
    tb = compiled.files["gsum_tb.cpp"]
    assert '#include "gsum.h"\nint arraypart_original_gsum(void) {' in tb
    assert_the_testbench_passes(compiled, tmp_path)
    assert cli.main(["check", str(path), "--trace"]) == 0


def test_scalar_parameters_get_fixed_values():
    k, sol = stencil_kernel(cyclic((8, 8), 2, 2))
    tb = emit(k, sol)["stencil_tb.cpp"]
    assert "float expected_gain(0.5);" in tb
    assert "stencil(actual_in, actual_out, actual_gain);" in tb
    assert "random_unit<float>()" in tb
    assert 'compare("gain"' not in tb  # by value: no output to compare


def test_the_source_is_not_mutated():
    k, sol = table_kernel(flat_scheme((2, 4), (1, 1), 3))
    before = k.source.text
    refs_before = repr(k.source.func)
    emit(k, sol)
    assert k.source.text == before == TABLE
    assert repr(k.source.func) == refs_before


# ---------------------------------------------------------------- project files


def test_config_file_keys():
    k, sol = lanes_kernel()
    cfg = emit(k, sol, part="xcvu9p-flga2104-2-i", clock_ns=4.0)["hls_config.cfg"]
    lines = [line for line in cfg.splitlines() if line]
    assert lines[0] == "part=xcvu9p-flga2104-2-i"
    assert lines[1] == "[hls]"
    keys = dict(line.split("=", 1) for line in lines[2:])
    assert keys == {"flow_target": "vivado", "clock": "4ns", "syn.file": "lanes.cpp",
                    "syn.top": "lanes", "tb.file": "lanes_tb.cpp",
                    "syn.compile.pipeline_loops": "64"}


def test_defaults():
    k, sol = lanes_kernel()
    cfg = emit(k, sol)["hls_config.cfg"]
    assert f"part={DEFAULT_PART}\n" in cfg and f"clock={DEFAULT_CLOCK_NS:g}ns\n" in cfg


STUBS = r"""
set calls {}
foreach name {open_project set_top add_files open_solution set_part create_clock
              config_compile csim_design csynth_design} {
    proc $name {args} "lappend ::calls \[linsert \$args 0 $name\]"
}
rename exit real_exit
proc exit {args} { lappend ::calls exit }
source run_hls.tcl
foreach call $calls { puts $call }
"""


@needs_tclsh
def test_tcl_script_runs_the_vitis_flow(tmp_path):
    k, sol = lanes_kernel()
    (tmp_path / "run_hls.tcl").write_text(emit(k, sol, clock_ns=3.3)["run_hls.tcl"])
    (tmp_path / "stubs.tcl").write_text(STUBS)
    run = subprocess.run(["tclsh", "stubs.tcl"], cwd=tmp_path, capture_output=True,
                         text=True, timeout=30)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == [
        "open_project -reset lanes_prj",
        "set_top lanes",
        "add_files lanes.cpp",
        "add_files -tb lanes_tb.cpp",
        "open_solution -reset sol1 -flow_target vivado",
        f"set_part {DEFAULT_PART}",
        "create_clock -period 3.3 -name default",
        "config_compile -pipeline_loops 64",
        "csim_design",
        "csynth_design",
        "exit",
    ]


# ---------------------------------------------------------------- through the front end

FRONT_END_KERNEL = r"""
#include <math.h>
#define N 16
float kern(float in[N][N], int idx[N], float out[N][N], float gain) {
  float buf[N][N];
  const float w[3] = {0.25f, 0.5f, 0.25f};
  float total = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
#pragma HLS pipeline II=1
      buf[i][j] = in[i][j] * gain;
    }
  for (int i = 1; i < N - 1; i++)
    for (int j = 1; j < N - 1; j++) {
#pragma HLS pipeline II=1
      float s = 0;
      for (int k = 0; k < 3; k++)
        s += w[k] * (buf[i - 1 + k][j] + buf[i][j - 1 + k]);
      out[i][j] = fabsf(s);
      total += s;
    }
  out[0][0] = in[idx[0]][idx[1]];
  return total;
}
"""


@needs_gxx
def test_front_end_and_solver_output_round_trips(tmp_path):
    from arraypart.banking import solve
    from arraypart.frontend import parse_kernel
    from arraypart.poly.build import build_model

    path = tmp_path / "kern.c"
    path.write_text(FRONT_END_KERNEL)
    k = parse_kernel(path)
    sol = solve(build_model(k, ports=1))
    files = emit(k, sol)
    assert files["kern.cpp"].count("#include <math.h>") == 1
    assert "random_int<int>(0, 16)" in files["kern_tb.cpp"]  # idx subscripts in[16][16]
    build_dir = tmp_path / "out"
    build_dir.mkdir()
    run = build_and_run(files, "kern", build_dir)
    assert run.returncode == 0, run.stdout


ROW_PICK = """
void pick(int sel[16], int table[4 * 8], int out[4][16]) {
  for (int r = 0; r < 4; r++)
    for (int t = 0; t < 16; t++) {
#pragma HLS pipeline II=1
      out[r][t] = table[r * 8 + sel[t]] + table[(sel[t]) + 8 * r];
    }
}
"""


@needs_gxx
def test_random_indices_added_to_a_row_stay_in_the_row(tmp_path):
    """``table[r * 8 + sel[t]]`` (a flattened 2-D lookup, MachSuite viterbi's idiom):
    the testbench draws ``sel`` below the row length 8, not below the 32 elements of
    ``table``, so the original never reads out of bounds on its random inputs."""
    from arraypart.banking import solve
    from arraypart.frontend import parse_kernel
    from arraypart.poly.build import build_model

    path = tmp_path / "pick.c"
    path.write_text(ROW_PICK)
    k = parse_kernel(path)
    files = emit(k, solve(build_model(k)))
    assert "random_int<int>(0, 8)" in files["pick_tb.cpp"]
    build_dir = tmp_path / "out"
    build_dir.mkdir()
    run = build_and_run(files, "pick", build_dir)
    assert run.returncode == 0, run.stdout


def test_random_indices_loaded_into_a_scalar_stay_in_bounds(tmp_path):
    """``j = nl[i]; ... pos[j]`` (MachSuite md_knn's neighbour list): the index goes
    through a scalar, and the testbench still draws ``nl`` within ``pos``."""
    from arraypart.banking import solve
    from arraypart.frontend import parse_kernel
    from arraypart.poly.build import build_model

    path = tmp_path / "near.c"
    path.write_text("""
void near(int nl[32], double pos[16], double out[32]) {
  for (int i = 0; i < 32; i++) {
#pragma HLS pipeline II=1
    int j = nl[i];
    out[i] = pos[j] * 2.0;
  }
}
""")
    k = parse_kernel(path)
    files = emit(k, solve(build_model(k)))
    assert "random_int<int>(0, 16)" in files["near_tb.cpp"]


# ---------------------------------------------------------------- C-simulation-only code

# Three copies of buf (every read of the window needs its own on ram_1p): buf is stored as
# explicit banks.  An assert in the pipeline reads it through the macro's argument, and
# code that Vitis does not synthesize reads and stores it; both are rewritten where written.
CSIM_ONLY = """#include <cassert>
#include <cstdio>
void csim(const int in[16][16], int out[15][15]) {
    int buf[16][16];
#pragma HLS bind_storage variable=buf type=ram_1p
    for (int i = 0; i < 16; i++)
        for (int j = 0; j < 16; j++) buf[i][j] = in[i][j] & 0xff;
#ifndef __SYNTHESIS__
    buf[3][4] = 7;
#endif
    for (int i = 0; i < 15; i++)
        for (int j = 0; j < 15; j++) {
#pragma HLS pipeline II=1
            assert(buf[i][j] >= 0);
            out[i][j] = buf[i][j] + buf[i][j+1] + buf[i+1][j];
        }
#ifndef __SYNTHESIS__
    for (int k = 0; k < 4; k++) printf("%d %d\\n", buf[k][k + 1], buf [k] [010]);
#endif
}
"""


@needs_gxx
@pytest.mark.parametrize("asserted, copies", [(True, 1), (False, 3)],
                         ids=["flat-banks", "three-copies"])
def test_c_simulation_code_reads_and_stores_explicit_banks(tmp_path, asserted, copies):
    text = CSIM_ONLY if asserted else CSIM_ONLY.replace("assert(buf[i][j] >= 0);", "")
    # threshold 8: the copy's inner loop of 16 is pipelined itself, one write a cycle (at
    # Vitis's 64 the copy's outer loop is, with 16 writes of buf a cycle, and buf is banked
    # for them rather than copied)
    compiled = arraypart.compile_kernel(write(tmp_path, "csim.cpp", text), ports=1,
                                        pipeline_loops=8)
    cpp = compiled.files["csim.cpp"]
    assert "buf_bank" in cpp and re.search(r"\bbuf\s*\[", cpp) is None
    assert ("assert(buf_" in cpp) == asserted
    stores = next(line for line in cpp.splitlines() if line.rstrip().endswith("= 7;"))
    assert stores.count("buf_bank[") == copies  # each copy
    assert_the_testbench_passes(compiled, tmp_path)
    assert_the_trace_agrees(compiled, tmp_path, ports=1)


def test_an_update_in_place_in_c_simulation_code_is_a_located_error(tmp_path):
    text = CSIM_ONLY.replace("buf[3][4] = 7;", "buf[3][4] += 7;")
    with pytest.raises(KernelError, match="updates banked array 'buf' in place") as err:
        arraypart.compile_kernel(write(tmp_path, "csim.cpp", text), ports=1)
    assert (err.value.coord.line, err.value.coord.col) == (9, 5)


@pytest.mark.parametrize("use", ["SHOW(buf, 3);", "printf(\"%zu\\n\", sizeof(buf));"])
def test_a_banked_array_named_whole_in_c_simulation_code_is_a_located_error(tmp_path, use):
    """A macro's argument or ``sizeof`` names the array without subscripts: the error
    says so (it said a reference must subscript both dimensions, of text that did)."""
    text = ("#define SHOW(arr, k) printf(\"%d\\n\", arr[k][k])\n"
            + CSIM_ONLY.replace("    buf[3][4] = 7;\n", f"    {use}\n"))
    with pytest.raises(KernelError, match="names it whole here") as err:
        arraypart.compile_kernel(write(tmp_path, "csim.cpp", text), ports=1)
    assert err.value.coord.line == 10


def test_dead_code_is_rewritten_where_it_can_be_and_else_left_alone(tmp_path):
    """Under ``#if 0`` nothing runs: a label named like the array (Vitis_Accel_Examples'
    critical_path) and a whole use stay as written, without an error.  The ``#else``
    of ``#ifdef __SYNTHESIS__`` is C-simulation code: its reference is rewritten."""
    blocks = ("#ifdef __SYNTHESIS__\n    ;\n#else\n    buf[3][4] = 7;\n#endif\n"
              "#if 0\nbuf:\n    use(buf);\n    buf[1] = 2;\n#endif\n")
    text = CSIM_ONLY.replace("#ifndef __SYNTHESIS__\n    buf[3][4] = 7;\n#endif\n", blocks)
    assert blocks in text
    compiled = arraypart.compile_kernel(write(tmp_path, "csim.cpp", text), ports=1)
    cpp = compiled.files["csim.cpp"]
    assert "#ifdef __SYNTHESIS__\n    ;\n#else\n    buf_bank[" in cpp
    assert "#if 0\nbuf:\n    use(buf);\n    buf[1] = 2;\n#endif" in cpp
    assert_the_testbench_passes(compiled, tmp_path)


# A loop with a geometric step (s >>= 1) holds one copy of its body per value of s: the
# first steps i by 8, the last by 1.  A flat bank formula (x0 + 2*x1) mod 4 may use what
# holds of i in every copy (i's range), never what holds in the first alone (i a
# multiple of 8, so that i mod 4 would be 0).
HALVING = r"""
void halving(const int in[16][16], int out[16][16]) {
    int buf[16][16];
    for (int i = 0; i < 16; i++)
        for (int j = 0; j < 16; j++) buf[i][j] = in[i][j];
    for (int s = 8; s > 0; s >>= 1)
        for (int i = 0; i < 16; i += s)
            for (int j = 0; j < 16; j++) {
#pragma HLS pipeline II=1
                out[i][j] += buf[i][j];
            }
}
"""


@needs_gxx
def test_a_reference_in_every_copy_of_a_geometric_loop_uses_what_holds_in_all(tmp_path):
    # threshold 8: the copy's inner loop of 16 is pipelined itself, so the banking below
    # (4 banks) takes its one write a cycle; at Vitis's 64 its outer loop would be, with
    # 16 writes a cycle that this hand-made solution does not price
    k = parse_source(HALVING, "halving.c", top="halving", pipeline_loops=8)
    sol = solution_of((k.array("in"), none_scheme((16, 16))),
                      (k.array("out"), none_scheme((16, 16))),
                      (k.array("buf"), flat_scheme((16, 16), (1, 2), 4)))
    files = emit(k, sol, pipeline_loops=8)
    assert "buf_bank[" in files["halving.cpp"]
    run = build_and_run(files, "halving", tmp_path)
    assert run.returncode == 0, run.stdout


EXIT_AFTER_A_WRITE = """\
void exits(const int in[32], int out[32], int last[32]) {
  int t[68];
  for (int i = 0; i < 68; i++) t[i] = i;
  for (int i = 0; i < 32; i++) {
#pragma HLS pipeline II=1
    int x = in[i];
    t[i + 36] = x;
    if (x & 1) EXIT;
    out[i] = t[i] + t[i + 1] + t[i + 2] + t[i + 3];
  }
  for (int i = 0; i < 32; i++) last[i] = t[i + 36];
}
"""

BREAK_IN_BLOCKS = """\
void exits(const int in[64], int out[64], int lim) {
  int t[64];
  for (int i = 0; i < 64; i++) t[i] = in[i];
  for (int i = 0; i < 64; i++) out[i] = 0;
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
#pragma HLS unroll factor=4
    if (t[i] > lim) break;
    out[i] = t[i] + t[63 - i];
  }
}
"""


@needs_gxx
@pytest.mark.parametrize("text", [EXIT_AFTER_A_WRITE.replace("EXIT", "continue"),
                                  EXIT_AFTER_A_WRITE.replace("EXIT", "break"),
                                  BREAK_IN_BLOCKS], ids=["continue", "break", "blocks"])
def test_an_exit_keeps_the_writes_before_it(tmp_path, text):
    """Bank-centric code writes the banks at the end of the body, where a
    ``continue`` or ``break`` taken after ``t[i + 36] = x`` skipped the write (17
    values differed); a loop unrolled by a factor, written as blocks of lanes, turned
    its ``break`` into one of the lane loop (22 values differed).  Such writes keep
    their references (here on read copies, each lane on its copy: II 1 still), and
    such a loop is not written as blocks."""
    compiled = arraypart.compile_kernel(write(tmp_path, "exits.c", text))
    assert all(loop["achieved_ii"] == 1 for loop in compiled.report.to_json()["loops"])
    assert_the_testbench_passes(compiled, tmp_path)


RETURN_IN_BLOCKS = BREAK_IN_BLOCKS.replace("break;", "return;").replace(
    "out[i] = t[i] + t[63 - i];", "out[i] = t[i] + t[63 - i];\n    t[i] = 0;")

WRITES_AFTER_A_SEARCH = """\
void exits(const int in[256], int out[192], int key) {
  int w[192];
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    int pos = 0;
    for (int k = 0; k < 4; k++) {
#pragma HLS unroll
      if (in[4 * i + k] == key) break;
      pos++;
    }
    for (int u = 0; u < 3; u++) {
#pragma HLS unroll
      w[3 * i + u] = pos + u;
    }
  }
  for (int j = 0; j < 192; j++) out[j] = w[j];
}
"""


@needs_gxx
def test_only_writes_an_exit_may_skip_keep_their_references(tmp_path):
    """A ``return`` in a loop written as blocks leaves the function from the lane loop
    as from the loop (only a ``break`` would end the block alone): it is written as
    blocks again.  The writes after an inner loop's ``break`` run in every iteration:
    routed, on cyclic 2 (they took cyclic 3 when every write of the loop was kept)."""
    compiled = arraypart.compile_kernel(write(tmp_path, "exits.c", RETURN_IN_BLOCKS))
    assert "for (int i_blk = 0; i_blk < 16; i_blk++)" in compiled.files["exits.cpp"]
    assert_the_testbench_passes(compiled, tmp_path)
    (tmp_path / "w").mkdir()
    compiled = arraypart.compile_kernel(write(tmp_path / "w", "exits.c",
                                              WRITES_AFTER_A_SEARCH))
    w = next(s for s in compiled.report.solution.arrays if s.array.name == "w")
    assert w.banking.scheme.describe().startswith("per_dim cyclic 2:")
    assert all(loop["achieved_ii"] == 1 for loop in compiled.report.to_json()["loops"])
    assert_the_testbench_passes(compiled, tmp_path / "w")


RETURN_BEFORE_A_LOOP = """\
#define N 32
void exits(int in[N], int out[N]) {
  L: for (int i = 0; i < N; i++) {
#pragma HLS pipeline II=1
    if (in[i] < 0) return;
    out[i] = in[i] + 1;
  }
  M: for (int i = 0; i < N; i++) {
#pragma HLS pipeline II=1
    out[i] += 2;
  }
}
"""


@needs_gxx
def test_the_trace_allows_the_loops_a_return_skips(tmp_path):
    """A ``return`` in loop L leaves the function, so loop M may never run; the
    model runs it anyway (a superset), and ``check --trace`` said the program did not
    make M's accesses: a false disagreement, exit 1."""
    compiled = arraypart.compile_kernel(write(tmp_path, "exits.c", RETURN_BEFORE_A_LOOP))
    assert compiled.report.kernel.returns_early
    recorded = trace.record(compiled.report.kernel, clangtu.Options(), tmp_path,
                            compiled.report.solution.emitted_bankings())
    judged = api.judge_trace(compiled.report, recorded, ports=2)
    assert judged.disagreements == () and not judged.addresses.mismatches, judged.format()


# SDx-era kernels open a loop body with a block of its own (SDAccel's linear search).
BLOCK_BODIES = """void blocks(const int in[64], int out[64]) {
  int buf[64];
  for (int i = 0; i < 64; i++) {
    { buf[i] = in[i]; }
  }
  for (int i = 0; i < 61; i++) {
    {
#pragma HLS PIPELINE II=1
      out[i] = buf[i] + buf[i + 1] + buf[i + 2] + buf[i + 3];
    }
  }
  for (int i = 0; i < 64; i++) {
    {
#pragma HLS PIPELINE II=1
#pragma HLS UNROLL factor=4
      buf[i] = 2 * buf[i];
    }
  }
}
"""


def test_a_block_that_is_a_loops_only_statement_is_its_body(tmp_path):
    """``for (...) { { #pragma HLS PIPELINE ... } }``: the block stands for the loop's
    body, so its pragmas are the loop's (they were refused as standing "in a block
    inside it", probe 33 F6); the routed reads and the unrolled loop's lanes are
    written inside that block, and the emitted code computes what the original
    does."""
    compiled = arraypart.compile_kernel(write(tmp_path, "blocks.cpp", BLOCK_BODIES))
    loops = compiled.report.to_json()["loops"]
    assert [(lp["target_ii"], lp["achieved_ii"]) for lp in loops] == [(1, 1)] * 3
    cpp = compiled.files["blocks.cpp"]
    assert "      for (int i_u = 0; i_u < 4; i_u++) {" in cpp  # inside the inner block
    if shutil.which("g++"):
        assert_the_testbench_passes(compiled, tmp_path)


# The same body in a sub-function, whose banks rotate: the emission writes the
# statement once per bank phase (probe 33b F1: the whole block, pragma included, went
# into each case, and the emitted file did not parse).
PHASED_BLOCK = """#define N 64
static void stage(int a[N], int b[N]) {
  for (int i = 0; i < N - 4; i++) { {
#pragma HLS pipeline II=1
    b[i] = a[i] + a[i + 1] + a[i + 2] + a[i + 3];
  } }
}
void phased(int in[N], int out[N]) {
  int a[N];
  for (int i = 0; i < N; i++) a[i] = in[i];
  stage(a, out);
}
"""


def test_a_block_body_of_a_phased_loop_is_switched_statement_by_statement(tmp_path):
    compiled = arraypart.compile_kernel(write(tmp_path, "phased.cpp", PHASED_BLOCK))
    assert [lp["achieved_ii"] for lp in compiled.report.to_json()["loops"]] == [1, 1]
    assert compiled.files["phased.cpp"].count("#pragma HLS pipeline II=1") == 1
    if shutil.which("g++"):
        assert_the_testbench_passes(compiled, tmp_path)


def test_a_c_header_kept_in_place_is_searched_by_the_project(tmp_path):
    """A C header that defines an object (a ``const`` table: external linkage in C)
    stays where it is included rather than in the testbench's preamble; the output
    folder's Vitis project must still search the kernel's folder for it (its flags
    were empty, and csim could not find the header)."""
    source = tmp_path / "src"
    source.mkdir()
    (source / "tab.h").write_text("const unsigned char tab[2][2] = {{1, 9}, {2, 3}};\n")
    path = source / "k.c"
    path.write_text('#include "tab.h"\nvoid k(int o[4]) {\n  for (int i = 0; i < 4; i++) {\n'
                    "#pragma HLS pipeline II=1\n    o[i] = tab[i >> 1][i & 1];\n  }\n}\n")
    files = arraypart.compile_kernel(str(path)).files
    assert f"add_files k.cpp -cflags -I{source}" in files["run_hls.tcl"]
    assert f"syn.file_cflags=k.cpp,-I{source}" in files["hls_config.cfg"]


ASAN = ("-fsanitize=address", "-fno-omit-frame-pointer")


@pytest.mark.parametrize("text", [
    # A gather through an offset index: idx values stay below 16 - 2.
    "void k(int buf[16], int idx[8], int out[8]) {\n"
    "  for (int i = 0; i < 8; i++) {\n#pragma HLS pipeline II=1\n"
    "    out[i] = buf[idx[i] + 2]; } }\n",
    # CSR: ptr[i], ptr[i + 1] start and end a loop over val[12]; they are drawn in
    # [0, 12] and sorted, so no row runs past val or backwards over the next.
    "void k(int ptr[5], int val[12], int out[4]) {\n"
    "  for (int i = 0; i < 4; i++) {\n    int sum = 0;\n"
    "    int begin = ptr[i];\n    int end = ptr[i + 1];\n"
    "    for (int j = begin; j < end; j++) {\n#pragma HLS pipeline II=1\n"
    "      sum += val[j]; }\n    out[i] = sum; } }\n",
], ids=["offset_gather", "csr"])
def test_index_and_bound_arrays_keep_the_original_in_bounds_under_asan(text, tmp_path):
    """Input arrays whose values subscript an array or bound a loop over one are drawn
    within its extent: the original runs clean under ASan and the banked kernel
    computes what it computes."""
    compiled = arraypart.compile_kernel(str(write(tmp_path, "k.c", text)))
    run = run_testbench(compiled, tmp_path, ASAN)
    assert run.returncode == 0 and "PASS" in run.stdout, (run.stdout + run.stderr)[-3000:]


def test_csr_start_and_end_arrays_are_sorted(tmp_path):
    text = ("void k(int ptr[5], int val[12], int out[4]) {\n"
            "  for (int i = 0; i < 4; i++) { int sum = 0;\n"
            "    for (int j = ptr[i]; j <= ptr[i + 1] - 1; j++) sum += val[j];\n"
            "    out[i] = sum; } }\n")
    tb = arraypart.compile_kernel(str(write(tmp_path, "k.c", text))).files["k_tb.cpp"]
    fill = tb[tb.index("expected_ptr;"):]
    assert "random_int<int>(0, 12)" in fill[:300]
    assert "ascending(values, 5);" in fill[:400]
