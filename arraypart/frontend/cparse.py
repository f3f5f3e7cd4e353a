"""Parsing the preprocessed text with pycparser, and choosing the top function.

Standard headers are not opened (see :mod:`.preprocess`); a prelude of typedefs for
the standard integer types is parsed before the user's text, which a ``#line 1``
marker numbers from 1 again, then removed from the tree.  The file's name is never
written into the text, so any name (quotes, backslashes, newlines) locates errors.
Every syntax error becomes one :class:`KernelError` at the token where the parser
stopped.
"""

from __future__ import annotations

from pathlib import Path

from pycparser import c_ast, c_lexer, c_parser

from ..errors import Coord, KernelError

PRELUDE_TYPEDEFS = (
    ("signed char", "int8_t"), ("short", "int16_t"), ("int", "int32_t"),
    ("long long", "int64_t"), ("unsigned char", "uint8_t"), ("unsigned short", "uint16_t"),
    ("unsigned int", "uint32_t"), ("unsigned long long", "uint64_t"), ("_Bool", "bool"),
    ("unsigned long", "size_t"), ("long", "ptrdiff_t"), ("long", "intptr_t"),
    ("unsigned long", "uintptr_t"),
)
# The passes and pycparser's code generator walk the tree recursively, about five
# Python frames per level, within Python's default limit of 1000 frames.  C99's
# minimum translation limits (5.2.4.1: 127 nested blocks, 63 nested parentheses)
# fit below it.
MAX_TREE_DEPTH = 150
PRELUDE = "".join(f"typedef {base} {name};\n" for base, name in PRELUDE_TYPEDEFS)
USER_MARKER = "#line 1\n"  # the only line directive the C parser obeys
# Words C++ (to C++20) reserves that C does not: the kernel is C, its output C++, so a
# C name spelled like one of these would make output that does not compile.
CPP_ONLY_KEYWORDS = frozenset("""
    alignas alignof and and_eq asm bitand bitor catch char8_t char16_t char32_t class
    compl concept consteval constexpr constinit const_cast co_await co_return co_yield
    decltype delete dynamic_cast explicit export false friend mutable namespace new
    noexcept not not_eq nullptr operator or or_eq private protected public
    reinterpret_cast requires static_assert static_cast template this thread_local
    throw true try typeid typename using virtual wchar_t xor xor_eq""".split())
# The testbench defines ``main``; a kernel function of that name would clash with it
# (and C++ requires ``int main``).
RESERVED_FUNCTIONS = frozenset({"main"})


class _KernelLexer(c_lexer.CLexer):
    """pycparser's lexer obeying only the front end's own line markers: it would take
    a ``#line`` anywhere (one that a line continuation or a macro put mid-line too)
    and report positions in another file or line."""

    trusted_markers: frozenset[int] = frozenset()  # offsets just after their '#'

    def _handle_ppline(self):
        if self._pos not in self.trusted_markers:
            where = Coord(self.filename, self._lineno, self._pos - self._line_start)
            raise KernelError(where, "#line directives are not supported: arraypart reports "
                                     "positions in the kernel file itself")
        super()._handle_ppline()


class _LocatingParser(c_parser.CParser):
    """pycparser whose errors always carry a line and column: pycparser reports some
    (``Invalid expression``, ``At end of input``) with the file name only; those are
    located at the next unread token, or at the end of the user's text."""

    def __init__(self, end: Coord, trusted_markers: frozenset[int]):
        super().__init__(lexer=_KernelLexer)
        self.clex.trusted_markers = trusted_markers
        self._end = end

    def _parse_error(self, msg, coord):
        if isinstance(coord, c_parser.Coord) and coord.line:
            where = Coord(coord.file, coord.line, coord.column or 0)
        else:
            tok = self._peek()
            where = self._end if tok is None else Coord(
                self.clex.filename, tok.lineno, tok.column)
        raise KernelError(where, f"syntax error: {_wording(msg)}")

    def _pop_scope(self):
        # The lexer closes a scope just after reading each '}' (so the brace ends
        # at its position); pycparser only asserts that a scope is open.
        if len(self._scope_stack) <= 1:
            lexer = self.clex
            raise KernelError(Coord(lexer.filename, lexer._lineno,
                                    lexer._pos - lexer._line_start),
                              "syntax error: unexpected '}' (no block is open)")
        super()._pop_scope()


def _wording(msg: str) -> str:
    if msg.startswith("before: "):
        return f"unexpected '{msg[len('before: '):]}'"
    return msg[0].lower() + msg[1:] if msg else "invalid input"


def parse_c(text: str, filename: str, user_lines: list[str]) -> c_ast.FileAST:
    """The user's ``FileAST`` (prelude removed) of preprocessed ``text``."""
    filled = [n for n, line in enumerate(user_lines, 1) if line.strip()]
    last = filled[-1] if filled else 1
    end = Coord(filename, last, len(user_lines[last - 1]) + 1 if filled else 1)
    parser = _LocatingParser(end, frozenset((len(PRELUDE) + 1,)))
    try:
        full = parser.parse(f"{PRELUDE}{USER_MARKER}{text}", filename)
    except RecursionError:
        lexer = parser.clex
        raise KernelError(Coord(filename, lexer._lineno, lexer._pos - lexer._line_start),
                          "nested too deeply for the C parser (split the expression or "
                          "the blocks)") from None
    ast = c_ast.FileAST(full.ext[len(PRELUDE_TYPEDEFS):], full.coord)
    _check_depth(ast, filename)
    _check_cpp_names(ast, filename)
    _destringize_pragmas(ast)
    return ast


def _check_depth(ast: c_ast.FileAST, filename: str) -> None:
    """Reject a tree deeper than MAX_TREE_DEPTH at its deepest located node (found
    without recursion, so the check itself cannot overflow the stack)."""
    stack = [(ast, 0, None)]
    while stack:
        node, depth, coord = stack.pop()
        coord = node.coord or coord
        if depth > MAX_TREE_DEPTH:
            where = Coord(filename, 1, 1) if coord is None else Coord(
                coord.file, coord.line, coord.column or 0)
            raise KernelError(where, f"nested more than {MAX_TREE_DEPTH} levels deep (a "
                                     "chain of binary operators counts one level per "
                                     "operator): split it with temporaries")
        stack.extend((child, depth + 1, coord) for _, child in node.children())


def _check_cpp_names(ast: c_ast.FileAST, filename: str) -> None:
    """Reject a name that the emitted C++ could not carry: a C++ keyword (``class``,
    ``new``) or a function named ``main``, at its first occurrence."""
    stack = [ast]
    while stack:
        node = stack.pop()
        name = getattr(node, "name", None) if not isinstance(node, c_ast.Pragma) else None
        if isinstance(name, str) and (name in CPP_ONLY_KEYWORDS or (
                name in RESERVED_FUNCTIONS and isinstance(node, c_ast.Decl)
                and isinstance(node.type, c_ast.FuncDecl))):
            coord = node.coord
            where = Coord(filename, 1, 1) if coord is None else Coord(
                filename, coord.line, coord.column or 0)
            why = ("is a C++ keyword" if name in CPP_ONLY_KEYWORDS
                   else "names the testbench's own function")
            raise KernelError(where, f"'{name}' {why}: the emitted C++ would not compile "
                                     "(rename it)")
        stack.extend(child for _, child in reversed(node.children()))


def _destringize_pragmas(ast: c_ast.FileAST) -> None:
    """Give each ``_Pragma("...")`` the text of the ``#pragma`` it stands for (C99
    6.10.9: the quotes dropped, ``\\"`` and ``\\\\`` unescaped), as pycparser gives
    a ``#pragma`` line; the tree is this parse's own."""
    stack = [ast]
    while stack:
        node = stack.pop()
        if isinstance(node, c_ast.Pragma) and isinstance(node.string, c_ast.Constant):
            node.string = node.string.value[1:-1].replace('\\"', '"').replace("\\\\", "\\")
        stack.extend(child for _, child in node.children())


def node_coord(node: c_ast.Node) -> Coord:
    """The arraypart coordinate of a pycparser node."""
    c = node.coord
    return Coord(c.file, c.line, c.column or 0)


def choose_top(ast: c_ast.FileAST, filename: str, top: str | None) -> c_ast.FuncDef:
    """The top function: ``top`` if given, else the only function definition, else
    the one named like the file's stem."""
    funcs = [n for n in ast.ext if isinstance(n, c_ast.FuncDef)]
    for f in funcs:
        if not isinstance(f.decl.type, c_ast.FuncDecl):
            # pycparser accepts a body after any declarator: 'v { ... }', 'int v[3] {'.
            raise KernelError(node_coord(f.decl), f"'{f.decl.name}' is not a function: "
                                                  "a function body needs a parameter list")
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
