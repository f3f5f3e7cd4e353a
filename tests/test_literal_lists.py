"""Brace lists of number literals read from their text (frontend.literal_lists): the
same nodes as the cursor walk, and the values g++ gives."""

from __future__ import annotations

import dataclasses
import random
import subprocess

import clang.cindex as ci
import pytest

from arraypart.errors import Coord
from arraypart.frontend import cnodes as N
from arraypart.frontend import clangtu, literal_lists, parse_source
from arraypart.frontend.cexpr import fold

from conftest import needs_gxx

# Every literal form, in C (narrowing constants are C's to convert; C++ refuses them).
C_TABLES = """\
#include <stdbool.h>
#include "tab.h"
/* é: a line that is not ASCII */ const unsigned char u8[6] = {0, 255, 256, -1, 0x1FF, 07};
const signed char s8[4] = {127, 128, -128, -129};
const short s16[2][3] = {{1, -2, 3}, {40000, 0xFFFF, -0x8000}};
const int i32[5] = {2147483647, 2147483648, 4294967295u, -2147483648, -2u};
const unsigned u32[5] = {1u, -1, 0xFFFFFFFF, 4294967296, 5ul};
const long long i64[4] = {9223372036854775807, 0x8000000000000000, 1ll, -1LL};
const unsigned long long u64[3] = {18446744073709551615ull, 0xFFFFFFFFFFFFFFFFu, 3};
const float f32[4] = {1, -2.5f, 3e1, .5};
const double f64[2][2] = {1.0, 2, 3, -4e-2};
const char c8[3] = {'a', -1, 20};
const bool flags[3] = {0, 1, 2};
const int trailing[3] = {1, /* two */ 2,
    3, };  // a comment
#define FOUR 4
const int named[2] = {FOUR, 5};
"""
CXX_TABLES = """\
#include "tab.h"
const unsigned char u8[2][3] = {{0, 255, 7}, {1, 2, 3}};
const int bits[3] = {0b101, 0B11, -0x10};
const long wide[2] = {2147483648, -1l};
const bool flags[2] = {0, 1};
const double f64[3] = {1, 2.5, 0x1p3};
"""
HEADER = "const unsigned char htab[2][3] = {\n  {1, 2, 3},\n  {4, /* five */ 5, 6}};\n"
READ_FROM_TEXT = {  # the lists read from their text; the others go through the cursors
    "c": {"u8", "s8", "s16", "i32", "u32", "i64", "u64", "f32", "f64", "flags",
          "trailing", "htab"},
    "cpp": {"u8", "bits", "wide", "flags", "f64", "htab"}}


TWO_DIMENSIONS = {"c": {"s16", "f64", "htab"}, "cpp": {"u8", "htab"}}


def _kernel(tables: str, names: list[str], rows: set[str]) -> str:
    reads = " + ".join(f"{name}[i][0]" if name in rows else f"{name}[i]" for name in names)
    return tables + f"void k(double out[2]) {{\n  for (int i = 0; i < 2; i++)\n" \
                    f"    out[i] = {reads};\n}}\n"


def flat(value):
    """A node tree as nested tuples (every field: coordinates, offsets, types)."""
    if isinstance(value, N.Node):
        return (type(value).__name__,) + tuple(
            (f.name, flat(getattr(value, f.name))) for f in dataclasses.fields(value))
    if isinstance(value, tuple):
        return tuple(flat(v) for v in value)
    return value


def _initializers(path, monkeypatch, *, from_text: bool):
    """The kernel, the flattened initializer of each of its file-scope arrays, and how
    many lists were read from their text."""
    read = literal_lists.read
    texted = []

    def recording(unit, cursor, rank):
        listed = read(unit, cursor, rank) if from_text else None
        if listed is not None:
            texted.append(listed)
        return listed

    monkeypatch.setattr(literal_lists, "read", recording)
    kernel = parse_source(path.read_text(), str(path))
    monkeypatch.undo()
    found = {d.name: flat(d.init) for d in kernel.source.globals if d.init is not None}
    return kernel, found, len(texted)


@pytest.mark.parametrize("suffix, tables", [("c", C_TABLES), ("cpp", CXX_TABLES)],
                         ids=["c", "cpp"])
def test_a_literal_list_reads_as_the_cursor_walk_does(suffix, tables, tmp_path, monkeypatch):
    names = sorted(READ_FROM_TEXT[suffix] | ({"c8", "named"} if suffix == "c" else set()))
    (tmp_path / "tab.h").write_text(HEADER)
    path = tmp_path / f"k.{suffix}"
    path.write_text(_kernel(tables, names, TWO_DIMENSIONS[suffix]))
    _, walked, none = _initializers(path, monkeypatch, from_text=False)
    _, texted, lists = _initializers(path, monkeypatch, from_text=True)
    assert none == 0 and lists == len(READ_FROM_TEXT[suffix])
    assert set(walked) >= set(names)
    assert texted == walked


@pytest.mark.parametrize("text, rank", [
    ("const int t[2] = {1, (2)};", 1),           # parentheses: a cursor
    ("const int t[2] = {1, +2};", 1),            # a unary plus
    ("const int t[2] = {1, - -2};", 1),          # two minus signs
    ("const int t[2][2] = {1, {2}, 3};", 2),     # braces that do not follow the shape
    ("const int t[2] = {1, 2\\\n};", 1),         # a line splice
    ("const int t[2] = {1, 0x2 ??! 0};", 1),     # a trigraph (C99 reads them)
    ("const long long t[1] = {18446744073709551615};", 1),  # no C type holds it
])
def test_a_list_this_module_does_not_read_goes_through_the_cursors(text, rank, tmp_path):
    path = tmp_path / "k.c"
    read = "t[0][0]" if rank == 2 else "t[0]"
    path.write_text(text + f"\nvoid k(int o[2]) {{ o[0] = {read}; }}\n")
    unit = clangtu.parse(path.read_text(), str(path), clangtu.Options())
    cursor = next(c for c in unit.tu.cursor.walk_preorder()
                  if c.kind == ci.CursorKind.INIT_LIST_EXPR)
    assert literal_lists.read(unit, cursor, rank) is None
    kernel = parse_source(path.read_text(), str(path))
    assert isinstance(next(d for d in kernel.source.globals if d.name == "t").init,
                      N.InitList)


def test_a_header_line_ended_by_cr_alone_goes_through_the_cursors(tmp_path, monkeypatch):
    """clang ends a line at a lone CR, which the front end leaves in a header."""
    (tmp_path / "cr.h").write_bytes(b"const int h[3] = {1,\r  2,\r  3};\n")
    path = tmp_path / "k.c"
    path.write_text('#include "cr.h"\nvoid k(int o[3]) { o[0] = h[2]; }\n')
    _, found, lists = _initializers(path, monkeypatch, from_text=True)
    assert lists == 0
    assert found["h"][-1][1][-1][1] == ("coord", Coord(str(tmp_path / "cr.h"), 3, 3))


def _big_table(seed: int, rows: int, cols: int) -> str:
    """A ``short`` table of every literal form C converts: decimal, hex, octal,
    negative, suffixed, wider than the element (wrapped)."""
    spell = random.Random(seed)
    forms = (str, hex, lambda v: f"0{v:o}", lambda v: f"{v}u", lambda v: f"{v}l")

    def element() -> str:
        value = spell.randrange(1 << 17)
        text = spell.choice(forms)(value)
        return f"-{text}" if spell.random() < 0.3 else text
    body = ",\n".join("{" + ", ".join(element() for _ in range(cols)) + "}"
                      for _ in range(rows))
    return f"const short big[{rows}][{cols}] = {{\n{body}}};\n"


@needs_gxx
def test_a_big_header_table_holds_the_values_gcc_gives(tmp_path, monkeypatch):
    rows, cols = 128, 64  # (the cursor walk it is compared with takes a second)
    (tmp_path / "big.h").write_text(_big_table(7, rows, cols))
    path = tmp_path / "k.c"
    path.write_text('#include "big.h"\nvoid k(int out[128]) {\n'
                    "  for (int i = 0; i < 128; i++) out[i] = big[i][i % 64];\n}\n")
    kernel, texted, lists = _initializers(path, monkeypatch, from_text=True)
    assert lists == 1
    init = next(d.init for d in kernel.source.globals if d.name == "big")
    values = [fold(e) for row in init.exprs for e in row.exprs]
    printer = tmp_path / "print.c"
    printer.write_text('#include <stdio.h>\n#include "big.h"\nint main(void) {\n'
                       f"  for (int i = 0; i < {rows}; i++) for (int j = 0; j < {cols}; j++)\n"
                       '    printf("%d\\n", big[i][j]);\n  return 0;\n}\n')
    binary = tmp_path / "print"
    subprocess.run(["g++", "-x", "c", "-w", "-o", str(binary), str(printer)], check=True)
    printed = subprocess.run([str(binary)], capture_output=True, text=True, check=True)
    assert values == [int(v) for v in printed.stdout.split()]
    _, walked, _ = _initializers(path, monkeypatch, from_text=False)
    assert texted["big"] == walked["big"]


def test_a_header_list_is_read_once_for_every_reading(tmp_path):
    """``compile`` reads the kernel and then the emitted code, which includes the same
    header: its tables are converted once."""
    (tmp_path / "tab.h").write_text(HEADER)
    path = tmp_path / "k.cpp"
    path.write_text('#include "tab.h"\nvoid k(int o[2]) {\n'
                    "  for (int i = 0; i < 2; i++) o[i] = htab[i][1];\n}\n")
    first, again = (next(d.init for d in parse_source(path.read_text(), str(path))
                         .source.globals if d.name == "htab") for _ in range(2))
    assert isinstance(first, N.InitList) and again is first
