"""The bundled stand-in Vitis headers (arraypart/include): each compiles on its own, a
test program built with g++ -std=c++14 runs its checks (wrap-around, fixed-point
quantization, stream FIFO order, ...), libclang parses the same program (test_wheel.py:
the wheel ships them)."""

import subprocess
import sys

import pytest

import arraypart
from arraypart.check import trace
from arraypart.errors import KernelError
from arraypart.frontend import clangtu

from conftest import (ROOT, assert_the_testbench_passes, assert_the_trace_agrees, needs_gxx,
                      write)

INCLUDE = ROOT / "arraypart" / "include"
HEADERS = ("ap_int.h", "ap_fixed.h", "hls_stream.h", "hls_vector.h", "hls_math.h",
           "ap_axi_sdata.h", "ap_common.h", "ap_concat.h", "hls_half.h")
PROGRAM = ROOT / "tests" / "cpp" / "standin_headers_test.cpp"


def test_every_promised_header_is_bundled():
    assert sorted(p.name for p in INCLUDE.glob("*.h")) == sorted(HEADERS)


@needs_gxx
@pytest.mark.parametrize("header", HEADERS)
def test_each_header_compiles_on_its_own(header, tmp_path):
    source = tmp_path / "only.cpp"
    # the fixed-width types come with every header, as with Vitis's (AFOCL's nonmax
    # kernel includes hls_stream.h and hls_vector.h alone: probe 26, item 14)
    source.write_text(f'#include "{header}"\n#include "{header}"\n'
                      'int main() { uint16_t x = 0; return (int)x; }\n')
    done = subprocess.run(["g++", "-std=c++14", "-Wall", "-Wextra", "-Werror", "-fsyntax-only",
                           f"-I{INCLUDE}", str(source)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


#: Names kernels #define before including the headers (``#define N 11`` in an FIR):
#: the headers' own names are reserved ones (``_AP_W``), as Xilinx's are.
USER_MACROS = ("N", "W", "I", "T", "S", "R", "NW", "A", "B", "D", "DEPTH")


@needs_gxx
@pytest.mark.parametrize("macro", USER_MACROS)
def test_a_kernels_macro_does_not_reach_the_headers_names(macro, tmp_path):
    source = tmp_path / "macro.cpp"
    source.write_text(f"#define {macro} 11\n" + "".join(f'#include "{h}"\n' for h in HEADERS)
                      + "ap_fixed<12, 4> f(ap_int<7> a) { return a * ap_fixed<12, 4>(0.5); }\n"
                      "int main() { hls::stream<int> s; s.write(1); return s.read() - 1; }\n")
    done = subprocess.run(["g++", "-std=c++14", "-Wall", "-Werror", "-fsyntax-only",
                           f"-I{INCLUDE}", str(source)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]


@needs_gxx
def test_program_builds_and_runs_with_gxx(tmp_path):
    binary = tmp_path / "standin_headers_test"
    built = subprocess.run(["g++", "-std=c++14", "-Wall", "-Wextra", "-Werror", f"-I{INCLUDE}",
                            str(PROGRAM), "-o", str(binary)], capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    ran = subprocess.run([str(binary)], capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert ran.stdout.strip().endswith("all checks passed")


def test_program_parses_with_libclang():
    cindex = pytest.importorskip("clang.cindex")
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        from corpus import compiler_builtin_include
    finally:
        sys.path.remove(str(ROOT / "bench"))
    builtin = compiler_builtin_include()
    args = ["-x", "c++", "-std=c++14", f"-I{INCLUDE}"] + (["-isystem", builtin] if builtin else [])
    tu = cindex.Index.create().parse(str(PROGRAM), args=args)
    errors = [f"{d.location.file}:{d.location.line}:{d.location.column}: {d.spelling}"
              for d in tu.diagnostics if d.severity >= cindex.Diagnostic.Error]
    assert errors == []


CONCAT_KERNEL = """\
#include <ap_int.h>
void k(const int in[16], int out[16]) {
  int buf[16];
  for (int i = 0; i < 4; i++) {
    for (int j = 0; j < 4; j++) {
#pragma HLS PIPELINE II=1
      ap_uint<2> hi = i, lo = j;
      ap_uint<4> idx = (hi, lo);
      buf[idx] = in[4 * i + j];
    }
  }
  for (int k = 0; k < 16; k++) out[k] = buf[k];
}
"""


@needs_gxx
def test_a_concatenation_runs_as_vitis_runs_it(tmp_path):
    """``(hi, lo)`` of ap integers is Vitis' bit concatenation, not C's comma (which
    yields ``lo``, so only buf[0..3] were written and the testbench compared two
    kernels that both read undefined elements; probe 34 F11): the traced run writes
    every element before it is read. The analysis takes the subscript as irregular."""
    compiled = arraypart.compile_kernel(write(tmp_path, "k.cpp", CONCAT_KERNEL))
    assert any("k.cpp:9:7: warning: buf[?]" in w for w in compiled.report.warnings)
    judged = assert_the_trace_agrees(compiled, tmp_path, ports=2)
    assert not judged.unwritten
    assert_the_testbench_passes(compiled, tmp_path)


RANGE_OF_FIXED = """\
#include <ap_fixed.h>
#include <cstdio>
int main() {
  ap_uint<32> w = 0;
  w.range(15, 0) = ap_fixed<16, 5>(-2.75);  // integer part, toward zero: -2
  w.range(31, 16) = ap_ufixed<8, 4>(3.5);
  std::printf("%08x\\n", w.to_uint());
  return 0;
}
"""


@needs_gxx
def test_a_fixed_point_value_assigned_to_a_range_gives_its_integer_part(tmp_path):
    """``x.range(hi, lo) = f`` of an ``ap_[u]fixed`` ``f`` compiles (it was a located
    error, 'no viable overloaded =') and sets the bits to ``f.to_ap_int_base()``,
    as Xilinx's headers do."""
    source = write(tmp_path, "range_fixed.cpp", RANGE_OF_FIXED)
    binary = tmp_path / "range_fixed"
    built = subprocess.run(["g++", "-std=c++14", "-Wall", "-Wextra", "-Werror", f"-I{INCLUDE}",
                            str(source), "-o", str(binary)], capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    ran = subprocess.run([str(binary)], capture_output=True, text=True, timeout=60)
    assert ran.stdout.strip() == "0003fffe"


MISSING_MEMBER = """\
#include <ap_int.h>
ap_uint<32> m(ap_uint<32> x) {
  ap_uint<32> t = x;
  t.rrotate(7);
  t.frobnicate(7);
  return t;
}
"""


def test_a_member_the_standins_lack_points_to_hls_include(tmp_path):
    """Valid Vitis code may use a member the stand-ins do not declare: the error says
    so and names --hls-include rather than clang's bare message (probe 34 F11)."""
    with pytest.raises(KernelError) as info:
        arraypart.analyze(write(tmp_path, "m.cpp", MISSING_MEMBER))
    assert (info.value.coord.line, info.value.coord.col) == (5, 5)
    assert "no member named 'frobnicate' in 'ap_uint<32>'" in info.value.message
    assert "stand-in Vitis headers" in info.value.message
    assert "--hls-include" in info.value.message


@needs_gxx
def test_gxx_missing_a_member_of_the_standins_points_to_hls_include(tmp_path):
    """Code only C simulation compiles (``#ifndef __SYNTHESIS__``) reaches g++ alone in
    ``check --trace``: its message for a member the stand-ins lack says the same."""
    path = write(tmp_path, "m2.cpp", "#include <ap_int.h>\nvoid m2(int a[8]) {\n"
                 "#ifndef __SYNTHESIS__\n  ap_uint<8> t = 3;\n  t.frobnicate();\n#endif\n"
                 "  for (int i = 0; i < 8; i++) {\n#pragma HLS PIPELINE\n    a[i] = i;\n  }\n}\n")
    compiled = arraypart.compile_kernel(path)
    with pytest.raises(KernelError) as info:
        trace.record(compiled.report.kernel, clangtu.Options(), tmp_path)
    assert (info.value.coord.line, info.value.coord.col) == (5, 5)
    assert "frobnicate" in info.value.message and "--hls-include" in info.value.message


#: Function-like macros kernels define before including the headers, as Vitis's own
#: headers allow (they include no library header while synthesizing): UCLA cs-259 lab 4
#: defines max(X, Y); cs-133 lab 5 defines printf and fprintf under __SYNTHESIS__
#: (probe 41 F2).
FUNCTION_MACROS = ("#ifdef __SYNTHESIS__\n#define printf(fmt, ...) (0)\n"
                   "#define fprintf(f, fmt, ...) (0)\n#endif\n"
                   "#define max(X, Y) ((X) > (Y) ? (X) : (Y))\n"
                   "#define min(X, Y) ((X) < (Y) ? (X) : (Y))\n")


@needs_gxx
@pytest.mark.parametrize("view", ("-D__SYNTHESIS__", "-U__SYNTHESIS__"))
def test_a_kernels_function_like_macro_survives_every_header(view, tmp_path):
    source = tmp_path / "macros.cpp"
    source.write_text(FUNCTION_MACROS + "".join(f'#include "{h}"\n' for h in HEADERS)
                      + "int clip(int a) { return max(0, min(a, 7)); }\n"
                      "int main() { return clip(3) + (hls::max)(1, 2) - 6; }\n")
    done = subprocess.run(["g++", "-std=c++14", "-Wall", "-Werror", "-fsyntax-only", view,
                           f"-I{INCLUDE}", str(source)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]


MACRO_KERNEL = """\
{before}#include <ap_int.h>
{after}void clip(int a[16], ap_int<8> b[16]) {{
  for (int i = 0; i < 16; i++) {{
#pragma HLS pipeline II=1
    b[i] = max(0, a[i]) + 1;
    printf("%d\\n", i);
  }}
}}
"""


@pytest.mark.parametrize("macros_first", (True, False))
def test_a_kernel_defining_max_and_printf_before_or_after_ap_int_is_read(macros_first,
                                                                         tmp_path):
    """The macros defined above ``#include <ap_int.h>`` (rejected before: stdio.h's
    declaration of printf met the macro, and libstdc++ #undef'd max) or below it."""
    text = MACRO_KERNEL.format(before=FUNCTION_MACROS if macros_first else "",
                               after="" if macros_first else FUNCTION_MACROS)
    if not macros_first:  # printf needs a declaration in C simulation
        text = "#ifndef __SYNTHESIS__\n#include <cstdio>\n#endif\n" + text
    report = arraypart.analyze(write(tmp_path, "clip.cpp", text))
    assert report.goals_met and len(report.model.loops) == 1
