"""Kernels whose code is spread over files they include (CHStone's layout: aes.c
includes aes.h, which declares the functions and defines the globals, then the
``.c`` files that define them).

The testbench and the trace driver copy the original into ``namespace original``; a
file that defines objects is included in place there, a header that only declares is
included above it.  The original must run its own helpers on its own globals, and the
project (kernel and testbench, two translation units) must link (probe 41, F1, F1b)."""

import pytest

import arraypart
from arraypart.errors import KernelError

from conftest import assert_the_testbench_passes, assert_the_trace_agrees, needs_gxx

LOOPS = """\
void top(int a[66], int b[64]) {
  for (int i = 0; i < 66; i++) {
#pragma HLS pipeline II=1
    g[i] = a[i] * 3;
  }
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    b[i] = sum2(i);
  }
}
"""

# name -> files (the kernel is top.c)
LAYOUTS = {
    # the header declares, a.c calls, b.c defines, reading the kernel file's global:
    # the original's sum2 called the header's ::get, the banked kernel's (the
    # testbench failed a correct kernel; the trace driver did not link)
    "declared_in_a_header_defined_in_an_included_file": {
        "p.h": "int get(int i);\nint sum2(int i);\n",
        "a.c": "int sum2(int i) { return get(i) + get(i + 1); }\n",
        "b.c": "int get(int i) { return g[i]; }\n",
        "top.c": '#include "p.h"\nint g[66];\n#include "a.c"\n#include "b.c"\n' + LOOPS,
    },
    # the same, b.c included by a.c (after a system header, whose text the preamble
    # reads above the copy: no function of its is the copy's)
    "defined_in_a_file_an_included_file_includes": {
        "p.h": "int get(int i);\nint sum2(int i);\n",
        "a.c": '#include <stdlib.h>\n#include "b.c"\n'
               "int sum2(int i) { return abs(get(i) - get(i + 1)); }\n",
        "b.c": "int get(int i) { return g[i]; }\n",
        "top.c": '#include "p.h"\nint g[66];\n#include "a.c"\n' + LOOPS,
    },
    # a header that defines the global (C's tentative definition): it was repeated
    # above the copy, in the testbench beside the banked kernel, which did not link
    "global_defined_in_a_header": {
        "g.h": "int g[66];\nint sum2(int i);\n",
        "top.c": '#include "g.h"\nint sum2(int i) { return g[i] + g[i + 2]; }\n' + LOOPS,
    },
    # a struct argument: argument-dependent lookup finds the header's ::span beside
    # the copy's, so the copy renames span (by a macro: b.c's text is not edited)
    "struct_argument_of_an_included_definition": {
        "p.h": "typedef struct { int lo; int hi; } pair_t;\nint span(pair_t p);\n",
        "b.c": "int span(pair_t p) { return p.hi - p.lo; }\n",
        "top.c": '#include "p.h"\n#include "b.c"\n'
                 "void top(int a[64], int b[64]) {\n"
                 "  for (int i = 0; i < 64; i++) {\n#pragma HLS pipeline II=1\n"
                 "    pair_t p = {a[i], 2 * a[i]};\n    b[i] = span(p);\n  }\n}\n",
    },
    # the kernel file defines scale, which an included file calls: renamed in the
    # file's text only, the included call went to the header's ::scale
    "included_file_calls_the_files_function": {
        "p.h": "int scale(int x);\nint use(int x);\n",
        "a.c": "int use(int x) { return scale(x) + g; }\n",
        "top.c": '#include "p.h"\nint g = 5;\n#include "a.c"\n'
                 "int scale(int x) { g++; return 3 * x; }\n"
                 "void top(int a[64], int b[64]) {\n"
                 "  for (int i = 0; i < 64; i++) {\n#pragma HLS pipeline II=1\n"
                 "    b[i] = use(a[i]);\n  }\n}\n",
    },
}


def _written(tmp_path, files: dict[str, str]):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return tmp_path / "top.c"


@needs_gxx
@pytest.mark.parametrize("name", LAYOUTS)
def test_included_sources_run_the_originals_own_helpers_and_globals(tmp_path, name):
    """The project builds (kernel and testbench apart, as csim does) and passes, and
    the trace driver links and agrees."""
    compiled = arraypart.compile_kernel(str(_written(tmp_path, LAYOUTS[name])))
    assert_the_testbench_passes(compiled, tmp_path)
    assert_the_trace_agrees(compiled, tmp_path, ports=2)


def test_an_included_definition_the_copy_cannot_tell_apart_is_a_located_error(tmp_path):
    """span is also a member's name, so no macro may rename it, and its struct
    argument would make the copy's call ambiguous: compile says where and what to
    change instead of writing a testbench that does not build."""
    path = _written(tmp_path, {
        "p.h": "typedef struct { int lo; int span; } pair_t;\nint span(pair_t *p);\n",
        "b.c": "int span(pair_t *p) { return p->span - p->lo; }\n",
        "top.c": '#include "p.h"\n#include "b.c"\n'
                 "void top(int a[64], int b[64]) {\n"
                 "  for (int i = 0; i < 64; i++) {\n#pragma HLS pipeline II=1\n"
                 "    pair_t p = {a[i], 2 * a[i]};\n    b[i] = span(&p);\n  }\n}\n"})
    with pytest.raises(KernelError) as error:
        arraypart.compile_kernel(str(path))
    assert str(error.value).startswith(f"{tmp_path / 'b.c'}:1:5: error: 'span' is declared")
    assert "declare the function in the file that defines it" in str(error.value)


def test_a_signature_type_of_a_header_defining_a_global_is_a_located_error(tmp_path):
    """g.h defines g, so the testbench includes it inside namespace original, and with
    it pt: the banked top's declaration there would take original::pt, which no
    function takes (the project did not link, as one would with g.h above the copy).
    Analysis, which writes no testbench, goes on."""
    path = _written(tmp_path, {
        "g.h": "typedef struct { int v; } pt;\nint g[64];\n",
        "top.c": '#include "g.h"\nvoid top(pt a[64], int b[64]) {\n'
                 "  for (int i = 0; i < 64; i++) {\n#pragma HLS pipeline II=1\n"
                 "    g[i] = a[i].v;\n    b[i] = g[i] + g[63 - i];\n  }\n}\n"})
    assert arraypart.analyze(path).kernel.top == "top"
    with pytest.raises(KernelError) as error:
        arraypart.compile_kernel(str(path))
    assert str(error.value).startswith(
        f"{tmp_path / 'g.h'}:1:9: error: 'pt', which the top's signature names, is defined")
    assert "move the type to a header that defines no variable" in str(error.value)
