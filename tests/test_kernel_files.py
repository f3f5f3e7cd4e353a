"""The kernel suite (kernels/*.c): every file is a kernel of the language of DESIGN §1.

Checked here without arraypart itself: the header comment, the top function named like
the file, C99 (gcc) and C++ (g++) syntax, pragma placement, the exact offsets of the
eight reference stencils of DESIGN §7, and in-bounds indices at run time (each kernel
runs once on small random inputs under AddressSanitizer and UBSan's bounds checks).
"""

from __future__ import annotations

import io
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from pcpp import Preprocessor
from pycparser import c_ast, c_generator, c_parser

KERNEL_DIR = Path(__file__).resolve().parents[1] / "kernels"
KERNELS = sorted(KERNEL_DIR.glob("*.c"))
MIN_KERNELS = 25
GCC = shutil.which("gcc")
GXX = shutil.which("g++")
needs_gcc = pytest.mark.skipif(GCC is None, reason="gcc not installed")
needs_gxx = pytest.mark.skipif(GXX is None, reason="g++ not installed")
# Vitis pragmas are unknown to gcc; every other warning is an error.
WARNING_FLAGS = ("-Wall", "-Wno-unknown-pragmas", "-Werror")
SANITIZE_FLAGS = ("-fsanitize=address,undefined", "-fsanitize=bounds",
                  "-fno-sanitize-recover=all", "-g")
# Random input values stay in [0, INPUT_RANGE): small, so no integer overflow.
INPUT_RANGE = 17

# DESIGN §7: (row, col) offsets that one stencil iteration reads around (i, j).
REFERENCE_STENCILS = {
    "denoise": {(0, 1), (1, 0), (1, 2), (2, 1)},
    "deconv": {(0, 1), (1, 0), (1, 1), (1, 2), (2, 1)},
    "denoise_ur": {(0, 1), (0, 2), (1, 0), (1, 1), (1, 2), (1, 3), (2, 1), (2, 2)},
    "bicubic": {(0, 0), (0, 2), (2, 0), (2, 2)},
    "sobel": {(a, b) for a in range(3) for b in range(3)},
    "motion_lv": {(a, 0) for a in range(6)},
    "motion_lh": {(0, a) for a in range(6)},
    "motion_c": {(0, 0), (0, 1), (1, 0), (1, 1)},
}

PIPELINE = re.compile(r"^\s*#pragma HLS pipeline\b")
UNROLL = re.compile(r"^\s*#pragma HLS unroll\b")
LOOP_HEAD = re.compile(r"^\s*for\s*\(.*\)\s*\{\s*$")


def ids(path: Path) -> str:
    return path.stem


def parse(path: Path) -> c_ast.FileAST:
    """The kernel preprocessed by pcpp (as the front end does) and parsed by pycparser."""
    pre = Preprocessor()
    pre.line_directive = None
    pre.parse(path.read_text(), str(path))
    out = io.StringIO()
    pre.write(out)
    return c_parser.CParser().parse(out.getvalue(), str(path))


def functions(ast: c_ast.FileAST) -> list[c_ast.FuncDef]:
    return [e for e in ast.ext if isinstance(e, c_ast.FuncDef)]


def test_suite_has_enough_kernels_and_every_reference_stencil():
    stems = {p.stem for p in KERNELS}
    assert len(KERNELS) >= MIN_KERNELS
    assert set(REFERENCE_STENCILS) <= stems


@pytest.mark.parametrize("path", KERNELS, ids=ids)
def test_first_line_is_a_one_line_comment(path):
    first = path.read_text().splitlines()[0]
    assert first.startswith("// ") and len(first) > len("// x: ")
    assert first[3:].startswith(path.stem)


@pytest.mark.parametrize("path", KERNELS, ids=ids)
def test_only_function_is_named_like_the_file(path):
    assert [f.decl.name for f in functions(parse(path))] == [path.stem]


@pytest.mark.parametrize("path", KERNELS, ids=ids)
def test_pipeline_pragma_is_first_line_of_a_loop_body(path):
    lines = path.read_text().splitlines()
    pipelines = [n for n, line in enumerate(lines) if PIPELINE.match(line)]
    assert pipelines, "every kernel has a pipelined loop"
    for n in pipelines:
        assert LOOP_HEAD.match(lines[n - 1]), f"line {n + 1}"
    for n, line in enumerate(lines):
        if UNROLL.match(line):
            assert PIPELINE.match(lines[n - 1]) or LOOP_HEAD.match(lines[n - 1]), f"line {n + 1}"


@needs_gcc
@pytest.mark.parametrize("path", KERNELS, ids=ids)
def test_compiles_as_c99(path):
    run = subprocess.run([GCC, "-std=c99", "-fsyntax-only", *WARNING_FLAGS, str(path)],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr


@needs_gxx
@pytest.mark.parametrize("path", KERNELS, ids=ids)
def test_compiles_as_cxx(path):
    """The g++ testbench compiles the original kernel next to the generated C++."""
    run = subprocess.run([GXX, "-std=c++14", "-x", "c++", "-fsyntax-only", *WARNING_FLAGS,
                          str(path)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr


def _subscripts(ref: c_ast.ArrayRef) -> tuple[str, list[c_ast.Node]]:
    subs = []
    while isinstance(ref, c_ast.ArrayRef):
        subs.insert(0, ref.subscript)
        ref = ref.name
    return ref.name, subs


def _offset(node: c_ast.Node, var: str) -> int:
    """c in ``var + c`` (or ``var``)."""
    if isinstance(node, c_ast.ID) and node.name == var:
        return 0
    assert isinstance(node, c_ast.BinaryOp) and node.op == "+", node
    assert isinstance(node.left, c_ast.ID) and node.left.name == var
    return int(node.right.value)


class _OuterRefs(c_ast.NodeVisitor):
    def __init__(self):
        self.refs: list[c_ast.ArrayRef] = []

    def visit_ArrayRef(self, node):
        self.refs.append(node)


@pytest.mark.parametrize("stem", sorted(REFERENCE_STENCILS))
def test_reference_stencil_reads_exactly_its_pattern(stem):
    (func,) = functions(parse(KERNEL_DIR / f"{stem}.c"))
    body = func.body.block_items
    decls = [n for n in body if isinstance(n, c_ast.Decl)]
    pragmas = [n.string for n in body if isinstance(n, c_ast.Pragma)]
    loops = [n for n in body if isinstance(n, c_ast.For)]
    assert [d.name for d in decls] == ["buf"]
    assert pragmas == ["HLS bind_storage variable=buf type=ram_1p"]
    assert len(loops) == 2
    visitor = _OuterRefs()
    visitor.visit(loops[1])
    offsets, written = set(), set()
    for ref in visitor.refs:
        name, subs = _subscripts(ref)
        if name == "buf":
            offsets.add((_offset(subs[0], "i"), _offset(subs[1], "j")))
        else:
            written.add(name)
    assert offsets == REFERENCE_STENCILS[stem]
    assert written == {"out"}


def _driver(path: Path, func: c_ast.FuncDef) -> str:
    """A C main that calls the kernel once on small random arguments."""
    gen = c_generator.CGenerator()
    decls, fills, args = [], [], []
    for n, param in enumerate(func.decl.type.args.params):
        name, dims, node = f"arg{n}", "", param.type
        while isinstance(node, c_ast.ArrayDecl):
            dims += f"[{gen.visit(node.dim)}]"
            node = node.type
        base = " ".join(node.type.names)
        if dims:
            decls.append(f"static {base} {name}{dims};")
            fills.append(f"for (size_t k = 0; k < sizeof({name}) / sizeof({base}); k++) "
                         f"(({base} *){name})[k] = ({base})(rand() % {INPUT_RANGE});")
        else:
            decls.append(f"static {base} {name} = ({base})3;")
        args.append(name)
    return "\n".join([
        "#include <stdlib.h>", f'#include "{path}"', *decls,
        "int main(void)", "{", "    srand(1);", *fills,
        f"    {func.decl.name}({', '.join(args)});", "    return 0;", "}", ""])


@needs_gcc
@pytest.mark.parametrize("path", KERNELS, ids=ids)
def test_runs_in_bounds_under_sanitizers(path, tmp_path):
    (func,) = functions(parse(path))
    source = tmp_path / "driver.c"
    source.write_text(_driver(path, func))
    exe = tmp_path / "driver"
    build = subprocess.run([GCC, "-std=c99", "-O1", *SANITIZE_FLAGS, "-Wno-unknown-pragmas",
                            str(source), "-o", str(exe)], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
