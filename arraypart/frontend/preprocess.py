"""Preprocessing with pcpp: macros, ``-D`` overrides, conditional compilation.

The output keeps the user's line numbers (pcpp's line markers become blank lines, so
the C parser need obey no ``#line`` but the front end's own, see :mod:`.cparse`)
and, outside macro expansions, the user's columns: comments are replaced by
blanks of the same layout instead of one space.  ``#include`` lines are never opened:
they pass through, are recorded verbatim and blanked, so the C parser sees only the
user's code (the standard types come from the parser's typedef prelude).  ``#pragma``
lines pass through unchanged.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from typing import Mapping

import pcpp

from ..errors import Coord, KernelError

INCLUDE_DIRECTIVE = "include"
LINE_DIRECTIVE = "line"
LINE_MARKER = "#\0line"  # pcpp's "#line N" markers, in a spelling no user text has (NUL)
DEFINE_DIRECTIVES = ("define", "undef")
# Directives pcpp indexes the first argument of without checking that there is one.
NEEDS_ARGUMENT = {"define": "a macro name", "undef": "a macro name",
                  "ifdef": "a macro name", "ifndef": "a macro name",
                  "if": "an expression", "elif": "an expression"}
NULL_DIRECTIVES = ("pragma",)  # legal without arguments: passed through as written
# pcpp raises these (instead of reporting) on directives it cannot read.
PCPP_FAILURES = (IndexError, KeyError, AttributeError, TypeError, ValueError)
# Macros may expand exponentially (#define B (A+A), C (B+B), ...).  A kernel's macros
# expand to a few hundred tokens; pcpp expands about 100,000 per second.
MAX_EXPANDED_TOKENS = 20_000
# String and character literals, whose brackets do not nest (for the include check).
LITERALS = re.compile(r"\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*'")
OPENERS, CLOSERS = "{([", "})]"


@dataclass(frozen=True, slots=True)
class Preprocessed:
    """The preprocessed text, the ``#include`` lines in order, and the object-like
    macros the file or the command line defined, as their expanded token text."""

    text: str
    includes: tuple[str, ...]
    macro_texts: tuple[tuple[str, str], ...]


class _Preprocessor(pcpp.Preprocessor):
    """pcpp with located errors, pass-through includes and command-line overrides."""

    def __init__(self, source: str, filename: str, overrides: Mapping[str, int]):
        super().__init__()
        self.line_directive = LINE_MARKER
        self._source = source
        self._filename = filename
        self._overrides = frozenset(overrides)
        self.user_macros: list[str] = list(overrides)
        self.last_directive: Coord | None = None
        self._expanded_tokens = 0
        for name, value in overrides.items():
            self.define(f"{name} {value}")

    def parsegen(self, input, source=None, abssource=None):
        # Without an absolute path pcpp names the file exactly as given (it would
        # otherwise make it absolute, then relative to the working directory).
        return super().parsegen(input, source, None)

    def on_error(self, file, line, msg):
        raise KernelError(Coord(self._filename, line, 1), f"preprocessor: {msg.strip()}")

    def on_file_open(self, is_system_include, includepath):
        raise IOError(f"{includepath}: includes are not opened")

    def on_include_not_found(self, is_malformed, is_system_include, curdir, includepath):
        raise pcpp.OutputDirective(pcpp.Action.IgnoreAndPassThrough)

    def expand_macros(self, tokens, expanding_from=()):
        if expanding_from:  # a macro's replacement, not the file's own text
            self._expanded_tokens += len(tokens)
        if self._expanded_tokens > MAX_EXPANDED_TOKENS:
            # pcpp's linemacro: the line whose macro use is being expanded.
            raise KernelError(Coord(self._filename, self.linemacro, 1),
                              f"preprocessor: macro expansion exceeds "
                              f"{MAX_EXPANDED_TOKENS} tokens (exponential macros?)")
        return super().expand_macros(tokens, list(expanding_from))

    def on_comment(self, tok):
        # Blank the comment but keep its newlines and width, so lines and columns hold.
        tok.value = "".join(c if c == "\n" else " " for c in tok.value)
        return True

    def on_directive_handle(self, directive, toks, ifpassthru, precedingtoks):
        self.last_directive = self._directive_coord(directive)
        if not toks and directive.value in NEEDS_ARGUMENT:
            raise KernelError(self.last_directive, f"preprocessor: #{directive.value} "
                                                   f"needs {NEEDS_ARGUMENT[directive.value]}")
        if not toks and directive.value in NULL_DIRECTIVES:
            raise pcpp.OutputDirective(pcpp.Action.IgnoreAndPassThrough)
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
        if directive.value == LINE_DIRECTIVE or directive.value.isdigit():
            # The C parser would obey it and report positions in another file or line.
            raise KernelError(self._directive_coord(directive),
                              "#line directives are not supported: arraypart reports "
                              "positions in the kernel file itself")
        return None

    def _directive_coord(self, directive) -> Coord:
        line_start = self._source.rfind("\n", 0, directive.lexpos) + 1
        hash_col = self._source.find("#", line_start) - line_start + 1
        return Coord(self._filename, directive.lineno, max(hash_col, 1))


def preprocess(text: str, filename: str, overrides: Mapping[str, int]) -> Preprocessed:
    """Run pcpp over ``text``; raise :class:`KernelError` on a preprocessor error."""
    pp = _Preprocessor(text, filename, overrides)
    out = io.StringIO()
    try:
        # No includes are opened, so every position is in ``filename``; pcpp's name
        # for it only appears in __FILE__ and in line markers, which hold one line.
        pp.parse(text, " ".join(filename.splitlines()))
        pp.write(out)
    except PCPP_FAILURES as exc:
        where = pp.last_directive or Coord(filename, 1, 1)
        raise KernelError(where, "preprocessor: cannot read this directive "
                                 f"({type(exc).__name__} in pcpp)") from exc
    except RecursionError:
        raise KernelError(Coord(filename, max(pp.linemacro, 1), 1),
                          "preprocessor: macros nested too deeply") from None
    lines, includes = [], []
    depth, last = 0, ";"
    for line in out.getvalue().split("\n"):
        if line.startswith(LINE_MARKER):
            # "<marker> N "file"": the next line is line N; pcpp only skips forward.
            lines.extend([""] * (int(line.split()[1]) - 1 - len(lines)))
        elif _is_include(line):
            _check_include(line, Coord(filename, len(lines) + 1, line.find("#") + 1),
                           depth, last)
            includes.append(line.strip())
            lines.append("")
        else:
            lines.append(line)
            if not line.lstrip().startswith("#"):
                code = LITERALS.sub('""', line).strip()
                depth += sum(map(code.count, OPENERS)) - sum(map(code.count, CLOSERS))
                last = code[-1:] or last
    macros = _macro_texts(pp)
    text = "\n".join(lines)
    _check_self_reference(pp, macros, text, filename)
    return Preprocessed(text, tuple(includes), macros)


def _check_include(line: str, coord: Coord, depth: int, last: str) -> None:
    """arraypart never opens includes: it keeps each ``#include`` line for the output.
    That is only right for a literal header name at file scope, between declarations."""
    target = line.lstrip()[1:].lstrip()[len(INCLUDE_DIRECTIVE):].strip()
    if not (target.startswith("<") or target.startswith('"')):
        raise KernelError(coord, "#include names its file through a macro: arraypart "
                                 'keeps includes as written, so write <file> or "file"')
    if depth or last not in (";", "}"):
        raise KernelError(coord, "#include inside a declaration or function: arraypart "
                                 "does not open includes, so it cannot keep the text it "
                                 "stands for (include at file scope, or paste the text)")


def _check_self_reference(pp: _Preprocessor, macros: tuple[tuple[str, str], ...],
                          text: str, filename: str) -> None:
    """A macro whose expansion still holds a macro's name refers to itself (directly
    or through others): C leaves that name unexpanded, an undeclared identifier.  Its
    first use is an error."""
    names = {name for name, _ in macros}
    for name, expansion in macros:
        stuck = names.intersection(re.findall(r"[A-Za-z_]\w*", expansion))
        use = re.search(rf"\b{name}\b", text) if stuck else None
        if use is not None:
            line = text.count("\n", 0, use.start()) + 1
            col = use.start() - text.rfind("\n", 0, use.start())
            raise KernelError(Coord(filename, line, col), (
                f"macro {name} refers to itself through {', '.join(sorted(stuck))}: "
                f"its expansion ({expansion}) is not C"))


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
