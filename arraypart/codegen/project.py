"""``emit``: the HLS project files for one banked kernel, rendered from jinja2 templates
(:mod:`arraypart.templating`)."""

from __future__ import annotations

import re
import jinja2

from ..banking.solution import Solution
from ..errors import Coord, KernelError
from ..ir import Kernel
from ..templating import environment
from ..frontend.directives import ARRAY_DIRECTIVES
from ..frontend.pipelining import PIPELINE_LOOPS
from .kernel import banked_source, blocked_directives, kept_partition, verbatim_arrays
from .testbench import testbench_context

# A current AMD part (Alveo U250, UltraScale+) that Vitis examples and the banking
# literature target, with ample BRAM, so synthesis results stay comparable.
DEFAULT_PART = "xcu250-figd2104-2L-e"
# Vitis HLS's own default period (UG1702: "a default period of 10 ns is used"), so the
# generated project schedules like an unconfigured one.
DEFAULT_CLOCK_NS = 10.0

# The kernel's name (its file's stem) becomes file names, Tcl words and cfg values:
# letters, digits and _ . + - only, so no shell, Tcl or cfg reader splits or runs it.
KERNEL_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]*")
# What a Tcl word may hold unquoted: no spaces, no [ ] $ { } " \\ ; or newline.
TCL_BARE = re.compile(r"[A-Za-z0-9_.+:/@%=,-]+")
# Characters a line comment must not carry: line breaks and other control characters
# would end the comment and make the rest of a file name code.
COMMENT_UNSAFE = re.compile(r"[\x00-\x1f\x7f\x85\u2028\u2029]")

DIRECTIVES_FILE = "directives.tcl"
_TEMPLATES = {
    "{kernel}.cpp": "kernel.cpp.j2",
    "{kernel}_tb.cpp": "testbench.cpp.j2",
    "run_hls.tcl": "run_hls.tcl.j2",
    "hls_config.cfg": "hls_config.cfg.j2",
}


def tcl_word(text: str) -> str:
    """``text`` as one literal Tcl word: bare when it holds nothing Tcl reads
    specially, else in braces (literal in Tcl when they hold no brace, backslash or
    newline, which :func:`check_names` keeps out)."""
    if TCL_BARE.fullmatch(text):
        return text
    if re.search(r"[{}\\\n]", text):
        raise ValueError(f"no literal Tcl word for {text!r}")
    return "{" + text + "}"


def comment_text(text: str) -> str:
    """``text`` safe inside a ``//`` comment (and not at its end): control characters
    written as escapes (``\\n``), so a hostile file name cannot end the comment."""
    return COMMENT_UNSAFE.sub(lambda m: m.group().encode("unicode_escape").decode(), text)


def check_names(kernel: Kernel) -> None:
    """Raise a located error when the kernel's name cannot become file names and
    Tcl/cfg words safely."""
    if not KERNEL_NAME.fullmatch(kernel.name):
        raise KernelError(Coord(kernel.path, 1, 1), (
            f"the kernel's file name {kernel.name!r} names the emitted files and the "
            "Vitis project: use only letters, digits and _ . + - (rename the file)"))


def _environment() -> jinja2.Environment:
    return environment((("tcl", tcl_word), ("comment", comment_text)))


def render(template: str, context: dict) -> str:
    """One of arraypart's templates rendered with ``context``."""
    return _environment().get_template(template).render(context)


def emit(kernel: Kernel, solution: Solution, *, part: str = DEFAULT_PART,
         clock_ns: float = DEFAULT_CLOCK_NS, pipeline_loops: int = PIPELINE_LOOPS,
         undefined_reads: tuple[Coord, ...] = ()) -> dict[str, str]:
    """Relative file name -> text: ``<kernel>.cpp`` (the banked top function),
    ``<kernel>_tb.cpp`` (the C-simulation testbench), ``run_hls.tcl`` and
    ``hls_config.cfg``; both set Vitis's automatic pipelining threshold to the
    ``pipeline_loops`` the model assumed (:mod:`arraypart.frontend.pipelining`), so
    that the tool pipelines the loops the banking was made for whatever its
    release's default.  ``undefined_reads``: where the kernel may read a local's
    element before anything writes it (``PolyModel.undefined_reads``): the
    testbench's PASS names them, since it may compare undefined values there.
    Raises :class:`arraypart.errors.KernelError` when a banking cannot be written for
    this source."""
    check_names(kernel)
    directives = kept_directives(kernel, solution)
    context = {
        "kernel": kernel.name,
        "top": kernel.top,
        "source": kernel.path,
        "code": banked_source(kernel, solution),
        "part": part,
        "clock": f"{clock_ns:g}",
        "pipeline_loops": pipeline_loops,
        "cflags": _cflags(kernel),
        "directives_file": DIRECTIVES_FILE if directives else None,
        "directive_lines": [d.cfg_line() for d in directives],
    }
    context.update(testbench_context(kernel))
    context["undefined_reads"] = undefined_places(kernel, undefined_reads)
    env = _environment()
    files = {pattern.format(kernel=kernel.name): env.get_template(template).render(context)
             for pattern, template in _TEMPLATES.items()}
    if directives:
        files[DIRECTIVES_FILE] = "".join(f"{d.text}\n" for d in directives)
    return files


def undefined_places(kernel: Kernel, coords: tuple[Coord, ...]) -> str:
    """``line:col`` of each of ``coords`` in the kernel file (digits only: safe in a C
    string), ``in an included file`` for the others; empty when there are none."""
    places = dict.fromkeys(f"{c.line}:{c.col}" if c.file == kernel.path
                           else "in an included file" for c in coords)
    return ", ".join(places)


def kept_directives(kernel: Kernel, solution: Solution) -> tuple:
    """The kernel's ``--directives`` commands that the output keeps: all but those that
    arraypart's banking replaces (``array_partition`` on an array it banks, unless it
    keeps them as written, and ``bind_storage`` / ``resource`` on such an array when it
    is local), as for pragmas, and the unroll of a loop written as blocks of lanes."""
    handled = {s.array.name: s.array for s in solution.arrays}
    blocked = blocked_directives(kernel, solution)
    verbatim = verbatim_arrays(kernel, solution)

    def replaced(d) -> bool:
        if d.coord in blocked:
            return True
        array = handled.get(d.variable) if d.function == kernel.top else None
        if array is None:
            return False
        if d.kind == "array_partition":
            return not kept_partition(d.coord, d.variable, handled, verbatim)
        return d.kind in ARRAY_DIRECTIVES and not array.interface

    return tuple(d for d in kernel.source.directives if not replaced(d))


def _cflags(kernel: Kernel) -> str:
    """``-I`` flags for the folders the kernel's includes were searched in, so that the
    output folder's copy compiles in Vitis (none when it includes no local header, at
    the file's head or kept in place: a C header that defines objects); a
    folder whose name Tcl or the cfg reader would split is an error."""
    source = kernel.source
    local = any(line.split("include", 1)[1].lstrip().startswith('"')
                for line in source.preamble + source.nested_includes
                if re.match(r"#\s*include", line))
    folders = source.include_dirs if local else source.include_dirs[1:]
    for folder in folders:
        if not TCL_BARE.fullmatch(folder):
            raise KernelError(Coord(kernel.path, 1, 1), (
                f"include folder {folder!r} holds characters that the Vitis Tcl and cfg "
                "flags cannot carry (use a folder name of letters, digits and _ . + - /)"))
    return " ".join(f"-I{folder}" for folder in folders)
