"""Parsing the preprocessed text with pycparser, and choosing the top function.

Standard headers are not opened (see :mod:`.preprocess`); a prelude of typedefs for
the standard integer types is parsed before the user's text under its own file name,
then removed from the tree.  Every syntax error becomes one :class:`KernelError` at
the token where the parser stopped.
"""

from __future__ import annotations

from pathlib import Path

from pycparser import c_ast, c_parser

from ..errors import Coord, KernelError

PRELUDE_FILE = "<arraypart-prelude>"
PRELUDE_TYPEDEFS = (
    ("signed char", "int8_t"), ("short", "int16_t"), ("int", "int32_t"),
    ("long long", "int64_t"), ("unsigned char", "uint8_t"), ("unsigned short", "uint16_t"),
    ("unsigned int", "uint32_t"), ("unsigned long long", "uint64_t"), ("_Bool", "bool"),
    ("unsigned long", "size_t"), ("long", "ptrdiff_t"), ("long", "intptr_t"),
    ("unsigned long", "uintptr_t"),
)
PRELUDE = f'#line 1 "{PRELUDE_FILE}"\n' + "".join(
    f"typedef {base} {name};\n" for base, name in PRELUDE_TYPEDEFS)


class _LocatingParser(c_parser.CParser):
    """pycparser whose errors always carry a line and column: pycparser reports some
    (``Invalid expression``, ``At end of input``) with the file name only; those are
    located at the next unread token, or at the end of the user's text."""

    def __init__(self, end: Coord):
        super().__init__()
        self._end = end

    def _parse_error(self, msg, coord):
        if isinstance(coord, c_parser.Coord) and coord.line:
            where = Coord(coord.file, coord.line, coord.column or 0)
        else:
            tok = self._peek()
            where = self._end if tok is None else Coord(
                self.clex.filename, tok.lineno, tok.column)
        raise KernelError(where, f"syntax error: {_wording(msg)}")


def _wording(msg: str) -> str:
    if msg.startswith("before: "):
        return f"unexpected '{msg[len('before: '):]}'"
    return msg[0].lower() + msg[1:] if msg else "invalid input"


def parse_c(text: str, filename: str, user_lines: list[str]) -> c_ast.FileAST:
    """The user's ``FileAST`` (prelude removed) of preprocessed ``text``."""
    filled = [n for n, line in enumerate(user_lines, 1) if line.strip()]
    last = filled[-1] if filled else 1
    end = Coord(filename, last, len(user_lines[last - 1]) + 1 if filled else 1)
    full = _LocatingParser(end).parse(f'{PRELUDE}#line 1 "{filename}"\n{text}', filename)
    user = [n for n in full.ext if n.coord is None or n.coord.file != PRELUDE_FILE]
    return c_ast.FileAST(user, full.coord)


def node_coord(node: c_ast.Node) -> Coord:
    """The arraypart coordinate of a pycparser node."""
    c = node.coord
    return Coord(c.file, c.line, c.column or 0)


def choose_top(ast: c_ast.FileAST, filename: str, top: str | None) -> c_ast.FuncDef:
    """The top function: ``top`` if given, else the only function definition, else
    the one named like the file's stem."""
    funcs = [n for n in ast.ext if isinstance(n, c_ast.FuncDef)]
    if not funcs:
        raise KernelError(Coord(filename, 1, 1), "no function definition in the file")
    names = ", ".join(f.decl.name for f in funcs)
    if top is not None:
        chosen = [f for f in funcs if f.decl.name == top]
        if not chosen:
            raise KernelError(node_coord(funcs[0].decl),
                              f"unknown top function '{top}' (candidates: {names})")
        return chosen[0]
    if len(funcs) == 1:
        return funcs[0]
    stem = Path(filename).stem
    chosen = [f for f in funcs if f.decl.name == stem]
    if not chosen:
        raise KernelError(node_coord(funcs[0].decl),
                          f"ambiguous top function: none is named '{stem}' "
                          f"(candidates: {names}); name one with --top")
    return chosen[0]
