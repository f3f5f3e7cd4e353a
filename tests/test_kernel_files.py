"""The kernel suite (kernels/*.c): every file is a kernel of the language of DESIGN §1.

Checked here without arraypart itself: the header comment, the top function named like
the file, C99 (gcc) and C++ (g++) syntax, pragma placement, the exact offsets of the
eight reference stencils of DESIGN §7, and in-bounds indices at run time (each kernel
runs once on small random inputs under AddressSanitizer and UBSan's bounds checks).
"""

from __future__ import annotations

import glob
import re
import shutil
import subprocess
from pathlib import Path

import clang.cindex as ci
import pytest

KERNEL_DIR = Path(__file__).resolve().parents[1] / "kernels"
KERNELS = sorted(KERNEL_DIR.glob("*.c"))
MIN_KERNELS = 25
GCC = shutil.which("gcc")
GXX = shutil.which("g++")
needs_gcc = pytest.mark.skipif(GCC is None, reason="gcc not installed")
needs_gxx = pytest.mark.skipif(GXX is None, reason="g++ not installed")
# Vitis pragmas are unknown to gcc; every other warning is an error.
WARNING_FLAGS = ("-Wall", "-Wno-unknown-pragmas", "-Werror")
# Unoptimized: every access the C makes is made and checked (an optimizer may drop a
# load whose value is unused), and the build takes a third of -O1's time.
SANITIZE_FLAGS = ("-O0", "-fsanitize=address,undefined", "-fsanitize=bounds",
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


K = ci.CursorKind
# GCC's freestanding headers stand in for clang's, which the libclang wheel lacks.
BUILTIN_HEADERS = sorted(glob.glob("/usr/lib/gcc/*/*/include"))[-1:]


def parse(path: Path) -> ci.TranslationUnit:
    """The kernel parsed by clang as C99."""
    args = ["-x", "c", "-std=c99"] + [f"-isystem{d}" for d in BUILTIN_HEADERS]
    tu = ci.Index.create().parse(str(path), args=args)
    errors = [d for d in tu.diagnostics if d.severity >= ci.Diagnostic.Error]
    assert not errors, errors[0].spelling
    return tu


def functions(tu: ci.TranslationUnit) -> list[ci.Cursor]:
    return [c for c in tu.cursor.get_children()
            if c.kind == K.FUNCTION_DECL and c.is_definition()
            and c.location.file is not None and c.location.file.name == tu.spelling]


def _body(func: ci.Cursor) -> ci.Cursor:
    return next(c for c in func.get_children() if c.kind == K.COMPOUND_STMT)


def _top_level_pragmas(path: Path, body: ci.Cursor) -> list[str]:
    """The pragma lines directly in ``body`` (not inside one of its statements)."""
    data = path.read_bytes()
    inner = [(c.extent.start.offset, c.extent.end.offset) for c in body.get_children()]
    found = []
    for m in re.finditer(rb"^[ \t]*#pragma[ \t]+([^\n]*)", data, re.MULTILINE):
        at = m.start(1)
        if (body.extent.start.offset < at < body.extent.end.offset
                and not any(lo <= at < hi for lo, hi in inner)):
            found.append(m.group(1).decode().strip())
    return found


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
    assert [f.spelling for f in functions(parse(path))] == [path.stem]


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


def _plain(c: ci.Cursor) -> ci.Cursor:
    while c.kind in (K.UNEXPOSED_EXPR, K.PAREN_EXPR):
        c = next(c.get_children())
    return c


def _subscripts(ref: ci.Cursor) -> tuple[str, list[ci.Cursor]]:
    subs = []
    while ref.kind == K.ARRAY_SUBSCRIPT_EXPR:
        base, index = list(ref.get_children())
        subs.insert(0, index)
        ref = _plain(base)
    return ref.spelling, subs


def _offset(node: ci.Cursor, var: str) -> int:
    """c in ``var + c`` (or ``var``)."""
    words = [t.spelling for t in node.get_tokens()]
    if words == [var]:
        return 0
    assert len(words) == 3 and words[:2] == [var, "+"], words
    return int(words[2])


def _outer_refs(node: ci.Cursor, out: list[ci.Cursor], is_base: bool = False) -> None:
    if node.kind == K.ARRAY_SUBSCRIPT_EXPR and not is_base:
        out.append(node)
    kids = list(node.get_children())
    for k, child in enumerate(kids):
        base = node.kind == K.ARRAY_SUBSCRIPT_EXPR and k == 0
        _outer_refs(child, out, base or (is_base and node.kind in (K.UNEXPOSED_EXPR,
                                                                   K.PAREN_EXPR)))


@pytest.mark.parametrize("stem", sorted(REFERENCE_STENCILS))
def test_reference_stencil_reads_exactly_its_pattern(stem):
    path = KERNEL_DIR / f"{stem}.c"
    (func,) = functions(parse(path))
    body = _body(func)
    items = list(body.get_children())
    decls = [v.spelling for n in items if n.kind == K.DECL_STMT for v in n.get_children()]
    loops = [n for n in items if n.kind == K.FOR_STMT]
    assert decls == ["buf"]
    assert _top_level_pragmas(path, body) == ["HLS bind_storage variable=buf type=ram_1p"]
    assert len(loops) == 2
    refs: list[ci.Cursor] = []
    _outer_refs(loops[1], refs)
    offsets, written = set(), set()
    for ref in refs:
        name, subs = _subscripts(ref)
        if name == "buf":
            offsets.add((_offset(subs[0], "i"), _offset(subs[1], "j")))
        else:
            written.add(name)
    assert offsets == REFERENCE_STENCILS[stem]
    assert written == {"out"}


def _driver(path: Path, func: ci.Cursor) -> str:
    """A C main that calls the kernel once on small random arguments."""
    decls, fills, args = [], [], []
    for n, param in enumerate(func.get_arguments()):
        name, dims, t = f"arg{n}", "", param.type
        while t.kind == ci.TypeKind.CONSTANTARRAY:
            dims += f"[{t.get_array_size()}]"
            t = t.element_type
        base = t.get_canonical().spelling.removeprefix("const ")
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
        f"    {func.spelling}({', '.join(args)});", "    return 0;", "}", ""])


@needs_gcc
@pytest.mark.parametrize("path", KERNELS, ids=ids)
def test_runs_in_bounds_under_sanitizers(path, tmp_path):
    (func,) = functions(parse(path))
    source = tmp_path / "driver.c"
    source.write_text(_driver(path, func))
    exe = tmp_path / "driver"
    build = subprocess.run([GCC, "-std=c99", *SANITIZE_FLAGS, "-Wno-unknown-pragmas",
                            str(source), "-o", str(exe)], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
