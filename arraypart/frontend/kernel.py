"""The front end's driver: a kernel file (or text) -> :class:`arraypart.ir.Kernel`."""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

from ..errors import Coord, KernelError
from ..ir import Kernel, SourceUnit
from .cexpr import fold
from .cparse import node_coord, parse_c, choose_top
from .lower import lower_function
from .preprocess import preprocess

BYTE_ORDER_MARK = "\ufeff"
DEFINE_PROBE = "int __arraypart_define = ({text});"


def parse_kernel(path: str | Path, *, defines: Mapping[str, int] | None = None,
                 top: str | None = None) -> Kernel:
    """Read the kernel file at ``path`` and build its IR (kernel name: the file's stem).

    ``defines`` are ``-D NAME=VALUE`` overrides; they win over the file's ``#define``.
    """
    return parse_source(read_source(path), str(path), defines=defines, top=top)


def read_source(path: str | Path) -> str:
    """The text of a C source file; a missing, binary or non-UTF-8 file is an error."""
    name = str(path)
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise KernelError(Coord(name), f"cannot read the kernel: {exc.strerror or exc}")
    nul = data.find(b"\0")
    if nul >= 0:
        raise KernelError(_byte_coord(name, data, nul),
                          "binary file (NUL byte): expected C source text")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise KernelError(_byte_coord(name, data, exc.start),
                          "not UTF-8 text: expected C source text")


def _byte_coord(name: str, data: bytes, offset: int) -> Coord:
    line_start = data.rfind(b"\n", 0, offset) + 1
    return Coord(name, data.count(b"\n", 0, offset) + 1, offset - line_start + 1)


def parse_source(text: str, filename: str, *, defines: Mapping[str, int] | None = None,
                 top: str | None = None) -> Kernel:
    """Build the IR of the C kernel ``text``, read from ``filename`` (for coordinates
    and the kernel's name, the file's stem)."""
    text = text.removeprefix(BYTE_ORDER_MARK)
    nul = text.find("\0")
    if nul >= 0:
        raise KernelError(_byte_coord(filename, text.encode(), len(text[:nul].encode())),
                          "binary file (NUL byte): expected C source text")
    if not text.strip():
        raise KernelError(Coord(filename, 1, 1), "empty file: expected a C kernel")
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
            probe = parse_c(DEFINE_PROBE.format(text=text), filename, [])
        except KernelError:
            continue
        value = fold(probe.ext[0].init)
        if value is not None:
            values[name] = value
    return values
