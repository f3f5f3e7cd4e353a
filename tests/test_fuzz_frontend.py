"""Robustness of the front end: bad, extreme and adversarial kernels.

The contract under test: whatever text reaches :func:`parse_source` (or whatever bytes
reach :func:`parse_kernel`), the outcome is an :class:`ir.Kernel` or a
:class:`KernelError` located in that file (line >= 1, col >= 0), never another exception
and never a hang.  A hypothesis fuzzer mutates the kernel suite with C and pragma tokens;
``ARRAYPART_FUZZ_EXAMPLES`` raises its sample size for long local runs (CI keeps the
default, derandomized).  Minimized crashers live in ``tests/data/fuzz`` as regression
inputs; extreme but valid kernels check that parsing does no per-element work.
"""

from __future__ import annotations

import os
import re
import tempfile
import time
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arraypart import expr as E
from arraypart.errors import KernelError
from arraypart.frontend import parse_kernel, parse_source
from arraypart.ir import Kernel

from conftest import alarm

ROOT = Path(__file__).resolve().parent.parent
KERNEL_TEXTS = tuple(p.read_text() for p in sorted((ROOT / "kernels").glob("*.c")))
CRASHERS = Path(__file__).parent / "data" / "fuzz"
FILENAME = "fuzz.c"

DEFAULT_EXAMPLES = 75  # keeps the whole file well under the CI budget of ~40 s
EXAMPLES = int(os.environ.get("ARRAYPART_FUZZ_EXAMPLES", DEFAULT_EXAMPLES))
# One parse of a kernel-sized input takes milliseconds; a second means a hang or
# per-element work.  The alarm turns a real hang into a failure instead of a stall.
TIME_LIMIT_S = 1.0  # CPU seconds of this process (a loaded machine cannot fail it)
ALARM_S = 10.0
FUZZ_SETTINGS = settings(
    max_examples=EXAMPLES, deadline=None,
    derandomize="ARRAYPART_FUZZ_EXAMPLES" not in os.environ,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    database=None)

VOCABULARY = (
    "for", "while", "do", "if", "else", "return", "goto", "break", "continue", "switch",
    "(", ")", "{", "}", ";", "[", "]", ",", "=", "+=", "-=", "++", "--", "?", ":",
    "+", "-", "*", "/", "%", "&", "|", "^", "~", "!", "<", ">", "<=", ">=", "==", "!=",
    ">>", "<<", "&&", "||", "/ 0", "% 0", ">> 70", "<< 99999", "<< -1", "-1", "0",
    "999999999999999999999", "0x", "0xFFFFFFFFFFFFFFFFFF", "1e309", "'a'", "'", '"', "\\",
    "int", "float", "const", "static", "unsigned", "long", "void", "struct", "typedef",
    "sizeof", "min(", "max(", "i", "j", "k", "A", "N",
    "\n#pragma HLS pipeline II=0\n", "\n#pragma HLS pipeline\n", "\n#pragma HLS unroll\n",
    "\n#pragma HLS unroll factor=-3\n", "\n#pragma HLS unroll factor=128\n",
    "\n#pragma HLS pipeline II=999999999999999999999\n",
    "\n#pragma HLS array_partition variable=A cyclic factor=0 dim=9\n",
    "\n#pragma HLS array_partition variable=\n", "\n#pragma HLS bind_storage type=\n",
    "\n#pragma HLS\n", "\n#pragma\n", "\n#define N\n", "\n#define N N\n",
    "\n#define N 999999999999999999999\n", "\n#define N (1 << 200)\n", "\n#undef N\n",
    "\n#if\n", "\n#endif\n", "\n#else\n", "\n#ifdef N\n", "\n#include <stdint.h>\n",
    "\n#include\n", "\n#error boom\n", "\n#line 0\n", "\n#line 99 \"other.c\"\n", "\n#\n",
    "\n#define L # line 5\n", "\n#define P _Pragma(\"HLS pipeline\")\n", "P",
    "_Pragma(\"HLS unroll\")", "#line 3", "\\\n", "??=", "??/",
    "/*", "*/", "//", "\0", "\ufeff", "\x7f", "\u00e9", "\u2028", "\x85", "\r", "\f",
    "\t", "@", "$", "`",
)
NUMBERS = ("0", "1", "-1", "2", "-3", "64", "128", "1024", "100000", "2147483648",
           "9223372036854775807", "18446744073709551615", "18446744073709551616",
           "999999999999999999999", "0x7fffffffffffffff", "077", "08", "1u", "1.5")
IDENTIFIERS = ("i", "j", "k", "A", "N", "min", "max", "for", "int", "float", "main",
               "int8_t", "bool", "x1", "_", "__arraypart_define", "sizeof", "HLS")


# ---------------------------------------------------------------- the contract


def outcome(call, filename: str, line_count: int) -> Kernel | KernelError:
    """Run ``call``; fail the test unless it returns a Kernel or raises a KernelError
    located in ``filename`` within its ``line_count`` lines, in under TIME_LIMIT_S."""
    start = time.process_time()
    try:
        with alarm(ALARM_S):
            result = call()
    except KernelError as exc:
        result = exc
    elapsed = time.process_time() - start
    assert elapsed < TIME_LIMIT_S, f"took {elapsed:.2f} s"
    if isinstance(result, KernelError):
        c = result.coord
        assert c.file == filename, str(result)
        assert 1 <= c.line <= line_count + 1 and c.col >= 0, str(result)
        assert result.message and "\n" not in result.message, str(result)
    else:
        assert isinstance(result, Kernel)
    return result


def check_text(text: str) -> Kernel | KernelError:
    lines = len(re.split("\r\n|\r|\n", text))  # the line ends C compilers accept
    return outcome(lambda: parse_source(text, FILENAME), FILENAME, lines)


def check_bytes(data: bytes, directory: str) -> Kernel | KernelError:
    path = Path(directory) / FILENAME
    path.write_bytes(data)
    lines = len(re.split(b"\r\n|\r|\n", data))
    return outcome(lambda: parse_kernel(path), str(path), lines)


# ---------------------------------------------------------------- mutations


def _cut(text, draw):
    """Delete up to 40 characters anywhere."""
    a = draw(st.integers(0, len(text)))
    b = draw(st.integers(a, min(len(text), a + 40)))
    return text[:a] + text[b:]


def _insert(text, draw):
    """Insert a vocabulary token or a few random characters anywhere."""
    at = draw(st.integers(0, len(text)))
    token = draw(st.sampled_from(VOCABULARY) | st.text(max_size=4))
    padding = " " if draw(st.booleans()) else ""
    return f"{text[:at]}{padding}{token}{padding}{text[at:]}"


def _lines(text, draw):
    """Delete a range of lines, or duplicate, swap or move a line."""
    lines = text.split("\n")
    a = draw(st.integers(0, len(lines) - 1))
    b = draw(st.integers(0, len(lines) - 1))
    op = draw(st.sampled_from(("delete", "duplicate", "swap", "move")))
    if op == "delete":
        del lines[min(a, b):max(a, b) + 1]
    elif op == "duplicate":
        lines.insert(b, lines[a])
    elif op == "swap":
        lines[a], lines[b] = lines[b], lines[a]
    else:
        lines.insert(b, lines.pop(a))
    return "\n".join(lines)


def _replace_all(text, draw, kind, choices):
    """Replace one (or every) occurrence of a number or identifier."""
    pattern = r"\b\d+[uUlL]*\b" if kind == "number" else r"\b[A-Za-z_]\w*\b"
    found = list(re.finditer(pattern, text))
    if not found:
        return text
    target = draw(st.sampled_from(found))
    new = draw(st.sampled_from(choices))
    if draw(st.booleans()):
        return re.sub(rf"\b{re.escape(target.group())}\b", new, text)
    return text[:target.start()] + new + text[target.end():]


def _number(text, draw):
    return _replace_all(text, draw, "number", NUMBERS)


def _rename(text, draw):
    return _replace_all(text, draw, "identifier", IDENTIFIERS)


def _truncate(text, draw):
    """Cut the file short anywhere (empty included)."""
    return text[:draw(st.integers(0, len(text)))]


MUTATIONS = (_cut, _insert, _insert, _lines, _number, _number, _rename, _truncate)


@st.composite
def mutated_kernels(draw):
    text = draw(st.sampled_from(KERNEL_TEXTS))
    for mutate in draw(st.lists(st.sampled_from(MUTATIONS), min_size=1, max_size=4)):
        text = mutate(text, draw)
    return text


# ---------------------------------------------------------------- fuzzing


def test_suite_kernels_parse():
    for text in KERNEL_TEXTS:
        assert isinstance(check_text(text), Kernel)


@FUZZ_SETTINGS
@given(mutated_kernels())
def test_fuzz_mutated_kernels(text):
    check_text(text)


@FUZZ_SETTINGS
@given(st.sampled_from(KERNEL_TEXTS), st.data())
def test_fuzz_bytes(text, data):
    """Files with NUL bytes, invalid UTF-8, byte-order marks, CR line ends, cut anywhere."""
    raw = bytearray(text.encode())
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.integers(0, len(raw)))
        junk = data.draw(st.sampled_from(
            (b"\0", b"\xff", b"\xc3", b"\xe2\x82", b"\xef\xbb\xbf", b"\r", b"\r\n", b""))
            | st.binary(max_size=3))
        raw[at:at] = junk
    raw = raw[:data.draw(st.integers(0, len(raw)))] if data.draw(st.booleans()) else raw
    with tempfile.TemporaryDirectory() as directory:
        check_bytes(bytes(raw), directory)


@FUZZ_SETTINGS
@given(st.text(max_size=60))
def test_fuzz_arbitrary_text(text):
    check_text(text)


TOKENS = VOCABULARY + NUMBERS + IDENTIFIERS + ("A[i]", "A[N]", "for (int i = 0; i < N; i++)")


@FUZZ_SETTINGS
@given(st.lists(st.sampled_from(TOKENS), max_size=40), st.dictionaries(
    st.sampled_from(("N", "M", "i")), st.sampled_from((0, -1, 8, 2 ** 64, 10 ** 30)),
    max_size=2))
def test_fuzz_token_soup(tokens, defines):
    """Token sequences inside a kernel's body, reaching the lowering with odd trees."""
    text = "#define N 8\nvoid k(int A[N], int B[N][N]) {\n" + " ".join(tokens) + "\n}\n"
    lines = text.count("\n") + sum(t.count("\r") for t in tokens) + 1
    outcome(lambda: parse_source(text, FILENAME, defines=defines), FILENAME, lines)


# ---------------------------------------------------------------- minimized crashers

# Each input once crashed or hung the front end; now: (line, col, message fragment) of
# its located error, or None when it is a valid kernel.
CRASHER_OUTCOMES = {
    "unmatched_brace.c": (1, 1, "extraneous closing brace ('}')"),
    "if_without_expression.c": (1, 4, "expected value in expression"),
    "elif_without_expression.c": (2, 6, "expected value in expression"),
    "define_without_name.c": (1, 8, "macro name missing"),
    "null_pragma.c": None,
    "unterminated_ifdef.c": (1, 2, "unterminated conditional directive"),
    "line_directive.c": (2, 1, "#line directives are not supported"),
    "line_marker.c": (1, 1, "#line directives are not supported"),
    "shift_bomb.c": (2, 5, "shift count 1099511627776 is out of range (0..63)"),
    "shift_bomb_size.c": (1, 14, "size of array 'A' must be a positive integer constant"),
    "shift_symbolic.c": (3, 7, "shift count 99999999999 is out of range"),
    "huge_literal_size.c": (1, 14, "integer literal is too large"),
    "huge_literal_body.c": (2, 17, "integer literal is too large"),
    "huge_define.c": (2, 14, "integer literal is too large"),
    "overflow_product.c": (4, 7, "overflows 64 bits"),
    "division_by_zero.c": (2, 23, "division by zero ('/ 0')"),
    "modulo_zero.c": (3, 7, "division by zero ('% 0')"),
    "huge_ii.c": (3, 22, "II= of pipeline must be a positive integer of at most"),
    "underscore_factor.c": (2, 47, "got '1_0'"),
    "too_many_elements.c": (1, 15, "array is too large (1099511627776 elements)"),
    "deep_parens.c": (2, None, "bracket nesting level exceeded maximum of 256"),
    "deep_blocks.c": (2, None, "bracket nesting level exceeded maximum of 256"),
    "long_sum.c": (3, None, "nested more than 150 levels deep"),
    "macro_bomb.c": (14, 1, "macro 'N13' expands to more than 20000 tokens"),
    "macro_chain.c": None,  # 2000 macros defined through each other: clang reads them
    "pragma_operator.c": None,
    "body_without_parameters.c": (1, 2, "expected ';' after top level declarator"),
}


def test_crasher_table_matches_directory():
    assert sorted(CRASHER_OUTCOMES) == sorted(p.name for p in CRASHERS.glob("*.c"))


@pytest.mark.parametrize("name", sorted(CRASHER_OUTCOMES))
def test_minimized_crashers(name):
    path = CRASHERS / name
    data = path.read_bytes()
    result = outcome(lambda: parse_kernel(path), str(path), data.count(b"\n") + 1)
    expected = CRASHER_OUTCOMES[name]
    if expected is None:
        assert isinstance(result, Kernel)
        return
    line, col, fragment = expected
    assert isinstance(result, KernelError), f"expected an error, got {result}"
    assert result.coord.line == line and col in (None, result.coord.col), str(result)
    assert fragment in result.message


def test_pragma_operator_pipelines_the_loop():
    k = parse_kernel(CRASHERS / "pragma_operator.c")
    assert (k.body[0].pipeline_ii, k.body[0].unroll) == (2, None)


@pytest.mark.parametrize("filename", ['a"b.c', "back\\slash.c", "new\nline.c", "sp ace.c"])
def test_unusual_file_names(filename):
    """Names that a ``#line`` marker cannot quote still locate errors in that file."""
    k = parse_source("void k(int A[2]) { A[0] = 1; }", filename)
    assert k.path == filename and k.body[0].coord.file == filename
    error = outcome(lambda: parse_source("void k(int A[2]) {\n  A[0] = ;\n}", filename),
                    filename, 3)
    assert (error.coord.file, error.coord.line, error.coord.col) == (filename, 2, 10)
    error = outcome(lambda: parse_source("#if\n", filename), filename, 2)
    assert (error.coord.file, error.coord.line) == (filename, 1)


# ---------------------------------------------------------------- extreme but valid

# Extreme kernels still parse in about a second: libclang's Python bindings cost some
# 0.2 ms per syntax node (0.5 s sufficed for pycparser; loaded CI machines need margin).
PARSE_BUDGET_S = 1.0
PEAK_MEMORY_BYTES = 20 * 2 ** 20  # far below one byte per element of the 10^10 array
TRACEMALLOC_SLOWDOWN = 3  # tracing every allocation slows parsing down about this much


def parse_within_budget(src: str) -> Kernel:
    tracemalloc.start()
    try:
        start = time.process_time()
        kernel = parse_source(src, "extreme.c")
        elapsed = time.process_time() - start
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert elapsed < PARSE_BUDGET_S * TRACEMALLOC_SLOWDOWN, f"{elapsed:.2f} s"
    assert peak < PEAK_MEMORY_BYTES, f"peak {peak} bytes"
    return kernel


def nest(depth: int, trip: int, body: str, pragma: str = "") -> str:
    """``depth`` nested loops over i0..i{depth-1}, ``pragma`` opening the innermost."""
    head = "".join(f"for (int i{d} = 0; i{d} < {trip}; i{d}++) {{\n" for d in range(depth))
    return head + pragma + body + "}\n" * depth


def test_huge_arrays_need_no_per_element_work():
    src = ("void k(int A[100000][100000], int B[100000][100000]) {\n"
           + nest(2, 100000, "B[i0][i1] = A[i0][i1] + A[i1][i0];\n",
                  "#pragma HLS pipeline II=1\n") + "}\n")
    k = parse_within_budget(src)
    assert k.array("A").shape == (100000, 100000) and k.array("A").size == 10 ** 10


def test_eight_dimensions_eight_loops():
    index = "".join(f"[i{d}]" for d in range(8))
    src = ("void k(float A[2][3][2][3][2][3][2][3], float B[2][3][2][3][2][3][2][3]) {\n"
           + nest(8, 2, f"B{index} = A{index} * 2.0f;\n", "#pragma HLS pipeline\n") + "}\n")
    k = parse_within_budget(src)
    loop = k.body[0]
    for d in range(1, 8):
        loop = loop.body[0]
        assert loop.var == f"i{d}"
    assert loop.pipeline_ii == 1
    assert [E.pretty(e) for e in loop.body[0].accesses[0].index] == [f"i{d}" for d in range(8)]


def test_sixty_four_references_in_one_pipelined_body():
    reads = " + ".join(f"A[i][{j}]" for j in range(64))
    src = ("#define N 1024\nvoid k(int A[N][64], int B[N]) {\n"
           + nest(1, 1024, f"B[i0] = {reads.replace('[i]', '[i0]')};\n",
                  "#pragma HLS pipeline II=1\n") + "}\n")
    k = parse_within_budget(src)
    accesses = k.body[0].body[0].accesses
    assert len(accesses) == 65 and len({a.ref_id for a in accesses}) == 65
    assert [E.pretty(a.index[1]) for a in accesses[:64]] == [str(j) for j in range(64)]


def test_unroll_factor_128():
    src = ("void k(int A[4096]) {\n"
           + nest(1, 4096, "A[i0] = A[i0] + 1;\n", "#pragma HLS unroll factor=128\n") + "}\n")
    assert parse_within_budget(src).body[0].unroll == 128


def test_long_expressions_up_to_the_depth_limit():
    terms = 140  # a chain of binary operators is one tree level per operator
    src = ("void k(int A[256], int B[256]) {\n"
           + nest(1, 100, "B[i0] = " + " + ".join(f"A[i0 + {t}]" for t in range(terms))
                  + ";\n") + "}\n")
    stmt = parse_within_budget(src).body[0].body[0]
    assert len(stmt.accesses) == terms + 1
    assert E.pretty(stmt.accesses[terms - 1].index[0]) == f"i0 + {terms - 1}"


def test_long_index_expression_folds():
    index = " + ".join(["i0"] * 100) + " - " + " - ".join(["i0"] * 40)
    src = "void k(int A[100000]) {\n" + nest(1, 10, f"A[{index}] = 0;\n") + "}\n"
    access = parse_within_budget(src).body[0].body[0].accesses[0]
    assert access.index[0] == E.scale(60, E.var("i0"))


@pytest.mark.parametrize("literal", [
    "18446744073709551616", "0x10000000000000000", "99999999999999999999u", "0" + "7" * 23])
def test_literals_beyond_64_bits_are_located_errors(literal):
    for src in (f"void k(int A[{literal}]) {{\n  A[0] = 1;\n}}\n",
                f"#define BIG {literal}\nvoid k(int A[BIG]) {{\n  A[0] = 1;\n}}\n",
                f"void k(float A[2]) {{\n  A[0] = A[1] * {literal};\n}}\n"):
        error = check_text(src)
        assert isinstance(error, KernelError) and "too large" in error.message
        line = src.split("\n")[error.coord.line - 1]
        assert error.coord.col == line.index(literal if literal in line else "BIG") + 1


def test_largest_64_bit_literals_are_accepted():
    k = check_text("void k(char A[2]) {\n  A[18446744073709551615u % 2] = 1;\n"
                   "  A[0x7fffffffffffffff & 1] = 0;\n}\n")
    assert isinstance(k, Kernel)
    assert [a.index[0] for a in k.body[0].accesses + k.body[1].accesses] == [
        E.const(1), E.const(1)]


# ---------------------------------------------------------------- located diagnostics

BODY = "void k(int A[64]) {\n  for (int i = 0; i < 8; i++) {\n"
DIAGNOSTICS = [
    ("shift-64", BODY + "    A[1 << 64] = 0;\n  }\n}\n", 3, 7, "shift count 64"),
    ("shift-negative", BODY + "    A[i >> -1] = 0;\n  }\n}\n", 3, 7, "shift count -1"),
    ("shift-symbolic", BODY + "    A[i << 64] = 0;\n  }\n}\n", 3, 7, "shift count 64"),
    ("divide-zero", BODY + "    A[i / 0] = 0;\n  }\n}\n", 3, 7, "division by zero ('/ 0')"),
    ("negative-overflow", BODY + "    A[-(1 << 63) * 2] = 0;\n  }\n}\n", 3, 7,
     "overflows 64 bits"),
    ("coefficient-overflow", BODY + "    A[i * 4294967296 * 4294967296] = 0;\n  }\n}\n",
     3, 7, "overflows 64 bits"),
    ("unroll-huge", BODY + "#pragma HLS unroll factor=4294967296\n    A[i] = 0;\n  }\n}\n",
     3, 20, "at most 2147483647"),
    # '#' after a line continuation, or from a macro, is no directive: clang rejects it
    ("continued-line", BODY + "    A[i] = 0; \\\n#line 7 \"x.c\"\n  }\n}\n", 3, 15,
     "expected expression"),
    ("macro-line", "#define L # line 5 \"x.c\"\n" + BODY + "L\n  }\n}\n", 4, 1,
     "expected expression"),
    ("line-separator", BODY + "    A[i] = 0;\u2028\n  }\n}\n", 3, 14, "U+2028"),
]


def test_typedef_chains_are_read_through():
    src = ("typedef int T0;\n" + "".join(f"typedef T{n - 1} T{n};\n" for n in range(1, 40))
           + "void k(T39 A[2]) { A[0] = 1; }\n")
    assert check_text(src).array("A").elem_type == "int"


@pytest.mark.parametrize("src, line, col, fragment", [d[1:] for d in DIAGNOSTICS],
                         ids=[d[0] for d in DIAGNOSTICS])
def test_located_diagnostics(src, line, col, fragment):
    error = check_text(src)
    assert isinstance(error, KernelError), "expected an error"
    assert (error.coord.line, error.coord.col) == (line, col), str(error)
    assert fragment in error.message


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_line_ends_and_blanks_keep_coordinates(newline):
    src = newline.join(["// k", "void k(int A[8]) {", "\f\v  A[0] = ;", "}", ""])
    error = check_text(src)
    assert (error.coord.line, error.coord.col) == (3, 12), str(error)
    k = check_text(src.replace("= ;", "= 1;"))
    assert (k.body[0].coord.line, k.body[0].coord.col) == (3, 5)


def test_endless_and_oversized_inputs():
    """A device that never ends and a megabyte of text are refused, quickly."""
    error = outcome(lambda: parse_kernel("/dev/zero"), "/dev/zero", 1)
    assert "larger than" in error.message
    error = check_text("int x;\n" * (2 ** 20 // 7 + 1))
    assert (error.coord.line, error.coord.col) == (1, 1) and "larger than" in error.message
