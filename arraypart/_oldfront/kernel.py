"""The front end's driver: a kernel file (or text) -> :class:`arraypart.ir.Kernel`."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Mapping

from ..errors import Coord, KernelError
from ..ir import Kernel, SourceUnit
from .cexpr import fold
from .cparse import choose_top, node_coord, parse_c
from .lower import lower_function
from .preprocess import preprocess

BYTE_ORDER_MARK = "\ufeff"
DEFINE_PROBE = "int __arraypart_define = ({text});"
# Kernels, tables included, are tens of kilobytes; pycparser reads about 100 kB per
# second, so the limit also bounds the time of one parse.
MAX_SOURCE_BYTES = 2 ** 20
BLANK_BREAKS = str.maketrans("\v\f", "  ")  # blanks in C, line breaks to Python
FOREIGN_BREAKS = re.compile("[\x1c\x1d\x1e\x85\u2028\u2029]")  # line breaks to Python


def parse_kernel(path: str | Path, *, defines: Mapping[str, int] | None = None,
                 top: str | None = None) -> Kernel:
    """Read the kernel file at ``path`` and build its IR (kernel name: the file's stem).

    ``defines`` are ``-D NAME=VALUE`` overrides; they win over the file's ``#define``.
    """
    return parse_source(read_source(path), str(path), defines=defines, top=top)


def read_source(path: str | Path) -> str:
    """The text of a C source file; a missing, binary, non-UTF-8 or oversized file (or
    an endless one, such as a device) is an error."""
    name = str(path)
    try:
        with open(path, "rb") as stream:
            data = stream.read(MAX_SOURCE_BYTES + 1)
    except OSError as exc:
        raise KernelError(Coord(name), f"cannot read the kernel: {exc.strerror or exc}")
    if len(data) > MAX_SOURCE_BYTES:
        raise _too_large(name)
    nul = data.find(b"\0")
    if nul >= 0:
        raise KernelError(_byte_coord(name, data, nul),
                          "binary file (NUL byte): expected C source text")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise KernelError(_byte_coord(name, data, exc.start),
                          "not UTF-8 text: expected C source text")


def _too_large(name: str) -> KernelError:
    return KernelError(Coord(name, 1, 1), f"larger than {MAX_SOURCE_BYTES} bytes: "
                                          "expected a C kernel")


def _normalize_lines(text: str, filename: str) -> str:
    """``text`` with the line ends C compilers accept (``\\r\\n``, ``\\r``) made ``\\n``
    and form feeds and vertical tabs (blanks in C) made spaces, so that every tool
    counts lines alike; other characters that Python takes for line breaks are no C
    and are rejected where they stand."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = text.translate(BLANK_BREAKS)
    found = FOREIGN_BREAKS.search(text)
    if found is not None:
        stray = found.start()
        line_start = text.rfind("\n", 0, stray) + 1
        raise KernelError(Coord(filename, text.count("\n", 0, stray) + 1,
                                stray - line_start + 1),
                          f"illegal character U+{ord(text[stray]):04X} in C source")
    return text


def _byte_coord(name: str, data: bytes, offset: int) -> Coord:
    line_start = data.rfind(b"\n", 0, offset) + 1
    return Coord(name, data.count(b"\n", 0, offset) + 1, offset - line_start + 1)


def parse_source(text: str, filename: str, *, defines: Mapping[str, int] | None = None,
                 top: str | None = None) -> Kernel:
    """Build the IR of the C kernel ``text``, read from ``filename`` (for coordinates
    and the kernel's name, the file's stem)."""
    if len(text) > MAX_SOURCE_BYTES:
        raise _too_large(filename)
    text = text.removeprefix(BYTE_ORDER_MARK)
    nul = text.find("\0")
    if nul >= 0:
        raise KernelError(_byte_coord(filename, text.encode(), len(text[:nul].encode())),
                          "binary file (NUL byte): expected C source text")
    if not text.strip():
        raise KernelError(Coord(filename, 1, 1), "empty file: expected a C kernel")
    text = _normalize_lines(text, filename)
    pre = preprocess(text, filename, dict(defines or {}))
    lines = text.split("\n")
    ast = parse_c(pre.text, filename, lines)
    func = choose_top(ast, filename, top)
    values = _define_values(pre.macro_texts, filename)
    arrays, body = lower_function(func, ast, filename, lines, values)
    source = SourceUnit(pre.text, ast, func, pre.includes)
    return Kernel(Path(filename).stem, func.decl.name, filename, arrays, body,
                  node_coord(func.decl), tuple(sorted(values.items())), source)


def _define_values(macro_texts, filename: str) -> dict[str, int]:
    """The integer value of every object-like macro whose expansion is an integer
    constant expression (others, such as strings or empty macros, are left out)."""
    values = {}
    for name, text in macro_texts:
        try:
            value = fold(parse_c(DEFINE_PROBE.format(text=text), filename, []).ext[0].init)
        except KernelError:
            continue  # an error in a macro is reported where the macro is used
        if value is not None:
            values[name] = value
    return values
