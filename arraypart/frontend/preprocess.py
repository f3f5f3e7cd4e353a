"""Preprocessing with pcpp: macros, ``-D`` overrides, conditional compilation.

The output keeps the user's line numbers (pcpp writes ``#line`` markers that pycparser
reads) and, outside macro expansions, the user's columns: comments are replaced by
blanks of the same layout instead of one space.  ``#include`` lines are never opened:
they pass through, are recorded verbatim and blanked, so the C parser sees only the
user's code (the standard types come from the parser's typedef prelude).  ``#pragma``
lines pass through unchanged.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Mapping

import pcpp

from ..errors import Coord, KernelError

INCLUDE_DIRECTIVE = "include"
DEFINE_DIRECTIVES = ("define", "undef")


@dataclass(frozen=True, slots=True)
class Preprocessed:
    """The preprocessed text, the ``#include`` lines in order, and the object-like
    macros the file or the command line defined, as their expanded token text."""

    text: str
    includes: tuple[str, ...]
    macro_texts: tuple[tuple[str, str], ...]


class _Preprocessor(pcpp.Preprocessor):
    """pcpp with located errors, pass-through includes and command-line overrides."""

    def __init__(self, source: str, overrides: Mapping[str, int]):
        super().__init__()
        self.line_directive = "#line"
        self._source = source
        self._overrides = frozenset(overrides)
        self.user_macros: list[str] = list(overrides)
        for name, value in overrides.items():
            self.define(f"{name} {value}")

    def on_error(self, file, line, msg):
        raise KernelError(Coord(file, line, 1), f"preprocessor: {msg}")

    def on_file_open(self, is_system_include, includepath):
        raise IOError(f"{includepath}: includes are not opened")

    def on_include_not_found(self, is_malformed, is_system_include, curdir, includepath):
        raise pcpp.OutputDirective(pcpp.Action.IgnoreAndPassThrough)

    def on_comment(self, tok):
        # Blank the comment but keep its newlines and width, so lines and columns hold.
        tok.value = "".join(c if c == "\n" else " " for c in tok.value)
        return True

    def on_directive_handle(self, directive, toks, ifpassthru, precedingtoks):
        super().on_directive_handle(directive, toks, ifpassthru, precedingtoks)
        if directive.value in DEFINE_DIRECTIVES and toks:
            name = toks[0].value
            if name in self._overrides:
                # The command line wins over the file's own #define / #undef.
                raise pcpp.OutputDirective(pcpp.Action.IgnoreAndRemove)
            if directive.value == "define":
                self.user_macros.append(name)
        return True

    def on_directive_unknown(self, directive, toks, ifpassthru, precedingtoks):
        if directive.value == "error":
            message = "".join(t.value for t in toks).strip()
            raise KernelError(self._directive_coord(directive), f"#error {message}")
        if directive.value == "warning":
            return True
        return None

    def _directive_coord(self, directive) -> Coord:
        line_start = self._source.rfind("\n", 0, directive.lexpos) + 1
        hash_col = self._source.find("#", line_start) - line_start + 1
        return Coord(directive.source, directive.lineno, max(hash_col, 1))


def preprocess(text: str, filename: str, overrides: Mapping[str, int]) -> Preprocessed:
    """Run pcpp over ``text``; raise :class:`KernelError` on a preprocessor error."""
    pp = _Preprocessor(text, overrides)
    pp.parse(text, filename)
    out = io.StringIO()
    pp.write(out)
    lines, includes = [], []
    for line in out.getvalue().split("\n"):
        if _is_include(line):
            includes.append(line.strip())
            lines.append("")
        else:
            lines.append(line)
    return Preprocessed("\n".join(lines), tuple(includes), _macro_texts(pp))


def _is_include(line: str) -> bool:
    stripped = line.lstrip()
    return stripped.startswith("#") and stripped[1:].lstrip().startswith(INCLUDE_DIRECTIVE)


def _macro_texts(pp: _Preprocessor) -> tuple[tuple[str, str], ...]:
    """``(name, expansion)`` of every object-like macro the user defined, by name."""
    found = {}
    for name in sorted(set(pp.user_macros)):
        macro = pp.macros.get(name)
        if macro is None or macro.arglist is not None:
            continue
        expanded = pp.expand_macros(pp.tokenize(name))
        found[name] = "".join(t.value for t in expanded).strip()
    return tuple(found.items())
