"""Vitis HLS Tcl directives (``--directives FILE.tcl``): ``set_directive_*`` commands.

Many projects keep their directives in a Tcl file rather than in pragmas
(``set_directive_pipeline gemm/inner``, ``set_directive_array_partition -type cyclic
-factor 4 gemm m1``).  Each command is read as the pragma it stands for
(UG1399: every ``set_directive_X [OPTIONS] <location> [<variable>]`` has the pragma
``#pragma HLS X [OPTIONS] [variable=<variable>]`` written at that location):

    location ``func``        -> first statement of ``func``'s body
    location ``func/label``  -> first statement of the body of the loop labelled ``label``

``config_array_partition -complete_threshold N`` is read too (:func:`complete_threshold`):
the size under which Vitis partitions a local array completely on its own.

Options ``-name value`` become ``name=value``; a word from :data:`FLAGS` (``-off``,
``-rewind``, ...) stands alone.  Only the commands are read, never evaluated: a line that
is not a ``set_directive_*`` command (``open_project``, ``set_part``, a comment) is skipped,
and the rest of the Tcl language (variables, ``[...]``, ``{...}`` lists) is an error at
the word that uses it.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import clang.cindex as ci

from ..errors import Coord, KernelError
from .clangtu import Unit
from .pragmatext import PragmaLine

COMMAND_PREFIX = "set_directive_"
ARRAY_PARTITION_CONFIG = "config_array_partition"
THRESHOLD_OPTION = "-complete_threshold"
# Options of set_directive_* that take no value (UG1399's command reference).
FLAGS = frozenset({"off", "rewind", "enable_flush", "skip_exit_check", "region",
                   "recursive", "register", "disable_start_propagation"})
# Directives whose last word names a variable (``port`` for interfaces).
VARIABLE_KEY = {"array_partition": "variable", "array_reshape": "variable",
                "bind_storage": "variable", "bind_op": "variable", "resource": "variable",
                "stream": "variable", "aggregate": "variable", "disaggregate": "variable",
                "interface": "port"}  # set_directive_dependence names it by -variable
# The -mode values of set_directive_interface on a function's return port alone.
BLOCK_PROTOCOLS = frozenset({"ap_ctrl_none", "ap_ctrl_hs", "ap_ctrl_chain", "s_axilite"})
# Directives on an array that arraypart's banking replaces (dropped from the output's
# directives for the arrays it banks, as their pragmas are).
ARRAY_DIRECTIVES = ("array_partition", "bind_storage", "resource")
_WORD = re.compile(r'"((?:\\.|[^"\\])*)"|(\S+)')
_TCL_SPECIAL = re.compile(r"[\[\]${}]")


@dataclass(frozen=True, slots=True)
class Directive:
    """One ``set_directive_<kind>`` command: its ``options`` (``-name value``, names as
    written: Vitis reads them in any case), bare ``flags``, location (``function`` and an optional loop ``label``),
    the ``variable`` it names (for array and interface directives), where it is written
    and its text as written (one line)."""

    kind: str
    options: tuple[tuple[str, str], ...]
    flags: tuple[str, ...]
    function: str
    label: str | None
    variable: str | None
    coord: Coord
    text: str

    @property
    def location(self) -> str:
        return self.function if self.label is None else f"{self.function}/{self.label}"

    def pragma_text(self) -> str:
        """``HLS <kind> key=value ... flag ... variable=<v>``: the pragma it stands for."""
        words = ["HLS", self.kind] + [f"{k}={v}" for k, v in self.options] + list(self.flags)
        if self.variable is not None:
            words.append(f"{VARIABLE_KEY[self.kind]}={self.variable}")
        return " ".join(words)

    def cfg_line(self) -> str:
        """The directive in the ``v++ --mode hls`` config file's syntax
        (``syn.directive.<kind>=<location> [<variable>] key=value ... flag ...``)."""
        words = [self.location] + ([self.variable] if self.variable is not None else [])
        words += [f"{k}={v}" for k, v in self.options] + list(self.flags)
        return f"syn.directive.{self.kind}={' '.join(words)}"


def read_directives(path: str | Path) -> tuple[Directive, ...]:
    """Every ``set_directive_*`` command of the Tcl file at ``path``, in order."""
    return parse_directives(_read(path), str(path))


def read_complete_threshold(path: str | Path, default: int) -> int:
    """The ``complete_threshold`` that the Tcl file at ``path`` sets (its last
    ``config_array_partition -complete_threshold N``), else ``default``."""
    return complete_threshold(_read(path), str(path), default)


def _read(path: str | Path) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise KernelError(Coord(str(path)), f"cannot read the directives file: "
                                            f"{getattr(exc, 'strerror', None) or exc}")


def complete_threshold(text: str, name: str, default: int) -> int:
    """The last ``config_array_partition -complete_threshold N`` of the Tcl text
    ``text`` (file ``name``), else ``default``; a value that is no count is a located
    error."""
    found = default
    for command, coord in _commands(text, name, ARRAY_PARTITION_CONFIG):
        words = _words(command, coord)
        if THRESHOLD_OPTION in words:
            value = words[words.index(THRESHOLD_OPTION) + 1:][:1]
            if not (value and value[0].isdigit()):
                raise KernelError(coord, f"{ARRAY_PARTITION_CONFIG} {THRESHOLD_OPTION} "
                                         "needs a count of elements")
            found = int(value[0])
    return found


def parse_directives(text: str, name: str) -> tuple[Directive, ...]:
    """Every ``set_directive_*`` command of the Tcl text ``text`` (file ``name``)."""
    return tuple(_directive(command, coord)
                 for command, coord in _commands(text, name, COMMAND_PREFIX))


def _commands(text: str, name: str, prefix: str) -> Iterator[tuple[str, Coord]]:
    """Each logical line of the Tcl text ``text`` (file ``name``) that begins with
    ``prefix``, blanks stripped, and where it is written."""
    for number, line in enumerate(_logical_lines(text), start=1):
        stripped = line.strip()
        if stripped.startswith(prefix):
            yield stripped, Coord(name, number, len(line) - len(line.lstrip()) + 1)


def _logical_lines(text: str) -> list[str]:
    """The file's lines with backslash continuations joined onto their first line (the
    lines they swallow become empty, so numbering stays the file's)."""
    lines = text.split("\n")
    out: list[str] = []
    carry = None
    for line in lines:
        if carry is not None:
            out[carry] = out[carry][:-1] + " " + line
            out.append("")
            if not line.endswith("\\"):
                carry = None
            continue
        out.append(line)
        if line.endswith("\\"):
            carry = len(out) - 1
    return out


def _directive(command: str, coord: Coord) -> Directive:
    words = _words(command, coord)
    kind = words[0][len(COMMAND_PREFIX):].lower()
    options, flags, positional = [], [], []
    rest = iter(words[1:])
    for word in rest:
        if word.startswith("-") and len(word) > 1:
            key = word[1:]
            if key.lower() in FLAGS:
                flags.append(key.lower())
                continue
            value = next(rest, None)
            if value is None:
                raise KernelError(coord, f"{words[0]}: option {word} needs a value")
            options.append((key, value))
        else:
            positional.append(word)
    want = 2 if kind in VARIABLE_KEY else 1
    if kind == "interface" and len(positional) == 1:
        # the block-level protocol, as Vivado HLS writes it: the function's ``return``
        mode = next((v for k, v in options if k.lower() == "mode"), None)
        if mode not in BLOCK_PROTOCOLS:
            raise KernelError(coord, f"{words[0]}: -mode {mode or '(none)'} names no port; "
                                     "a location alone takes a block protocol ("
                                     + ", ".join(sorted(BLOCK_PROTOCOLS)) + ")")
        positional.append("return")
    if len(positional) != want:
        shape = "<location> <variable>" if want == 2 else "<location>"
        raise KernelError(coord, f"{words[0]}: expected {shape} after the options, got "
                                 f"{' '.join(positional) or 'nothing'}")
    function, _, label = positional[0].partition("/")
    return Directive(kind, tuple(options), tuple(flags), function, label or None,
                     positional[1] if want == 2 else None, coord, command)


def _words(command: str, coord: Coord) -> list[str]:
    """The command's words: blank-separated, ``"..."`` quoting one word."""
    words = []
    for m in _WORD.finditer(command):
        word = m.group(1) if m.group(1) is not None else m.group(2)
        if word.startswith("#"):
            break  # a comment after ``;#``-less text is not Tcl, but common
        if _TCL_SPECIAL.search(word):
            raise KernelError(coord, f"{word!r}: Tcl variables, commands and lists are not "
                                     "read in a directives file (write the value itself)")
        words.append(word.rstrip(";"))
    return words


def anchored(unit: Unit, directives: tuple[Directive, ...],
             user_end: int) -> tuple[list[PragmaLine], list[str]]:
    """Each directive as a pragma line placed where its location is in the kernel's text
    (just inside the opening brace of the function's or the labelled loop's body), and
    a located warning for each directive whose location the kernel does not have (it is
    ignored, as Vitis ignores it, with the nearest location the kernel has)."""
    bodies = _bodies(unit, user_end)
    lines, warnings = [], []
    for d in directives:
        at = bodies.get((d.function, d.label))
        if at is not None:
            lines.append(PragmaLine(d.pragma_text(), at, at, d.coord, directive=True))
            continue
        what = (f"function '{d.function}'" if d.label is None
                else f"loop labelled '{d.label}' in function '{d.function}'")
        known = ["/".join(filter(None, k)) for k in bodies]
        near = difflib.get_close_matches(d.location, known, n=1)
        hint = f" (did you mean {near[0]}?)" if near else ""
        warnings.append(f"{d.coord}: warning: set_directive_{d.kind} ignored: no {what} "
                        f"in {unit.filename}{hint}")
    return lines, warnings


def _bodies(unit: Unit, user_end: int) -> dict[tuple[str, str | None], int]:
    """(function, label or None) -> the byte offset just inside the ``{`` of the body of
    that function (label None) or of the loop under that label."""
    K = ci.CursorKind
    found: dict[tuple[str, str | None], int] = {}
    stack = list(unit.own_top)
    while stack:
        c = stack.pop()
        if not unit.in_main(c.location) or c.location.offset >= user_end:
            continue
        if c.kind in (K.NAMESPACE, K.LINKAGE_SPEC, K.UNEXPOSED_DECL):
            stack.extend(c.get_children())
        elif c.kind in (K.FUNCTION_DECL, K.CXX_METHOD, K.FUNCTION_TEMPLATE) \
                and c.is_definition():
            body = next((k for k in c.get_children() if k.kind == K.COMPOUND_STMT), None)
            if body is not None:
                found.setdefault((c.spelling, None), body.extent.start.offset + 1)
                for label, at in _labelled_loop_bodies(body):
                    found.setdefault((c.spelling, label), at)
    return found


def _labelled_loop_bodies(body: ci.Cursor):
    K = ci.CursorKind
    loops = (K.FOR_STMT, K.WHILE_STMT, K.DO_STMT)
    stack = [body]
    while stack:
        c = stack.pop()
        kids = list(c.get_children())
        if c.kind == K.LABEL_STMT and kids and kids[0].kind in loops:
            at = _body_start(kids[0])
            if at is not None:
                yield c.spelling, at
        stack.extend(kids)


def _body_start(loop: ci.Cursor) -> int | None:
    """Where a directive on ``loop`` applies: just inside the ``{`` of its body, or at
    the start of a ``for`` or ``while`` body written without braces (the front end
    takes a directive there as the body's leading pragma)."""
    K = ci.CursorKind
    kids = list(loop.get_children())
    body = kids[0] if loop.kind == K.DO_STMT else kids[-1]
    if body.kind == K.COMPOUND_STMT:
        return body.extent.start.offset + 1
    return None if loop.kind == K.DO_STMT else body.extent.start.offset
