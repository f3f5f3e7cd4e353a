"""The bundled stand-in Vitis headers (arraypart/include): each compiles on its own, a
test program built with g++ -std=c++14 runs its checks (wrap-around, fixed-point
quantization, stream FIFO order, ...), libclang parses the same program, and the wheel
ships the headers."""

import subprocess
import sys
import zipfile

import pytest

from conftest import ROOT, needs_gxx

INCLUDE = ROOT / "arraypart" / "include"
HEADERS = ("ap_int.h", "ap_fixed.h", "hls_stream.h", "hls_vector.h", "hls_math.h",
           "ap_axi_sdata.h", "ap_common.h", "hls_half.h")
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


def test_wheel_ships_the_headers(tmp_path):
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps",
                    "--no-build-isolation", "-q", "-w", str(tmp_path)],
                   check=True, capture_output=True, cwd=tmp_path)
    wheel = next(tmp_path.glob("arraypart-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {f"arraypart/include/{h}" for h in HEADERS} <= names
