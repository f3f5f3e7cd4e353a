"""``check --trace``'s run: the original kernel, instrumented, built by g++ and run.

The driver (``templates/trace_driver.cpp.j2``) holds the instrumented original
(:mod:`.instrument`) in ``namespace original``, fills the interface arrays with the
testbench's own random inputs (``templates/tb_inputs.cpp.j2``, the same stream and
generators as the emitted testbench), registers every array and calls the top function
as the testbench does: once, or where a scalar argument changes with the call (a
run-time size at both ends of its range and midway, a mode flag stepped), in each of
the testbench's calls (:func:`..codegen.testbench.call_sizes`), so that a loop that
one call's sizes leave empty or short runs long in another.  g++ builds it; each
call's run writes a records file (:mod:`.records`) that :mod:`.trace` judges.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

from .. import expr as E
from .. import ir
from ..codegen.project import render
from ..codegen.testbench import call_sizes, original_text, testbench_context
from ..errors import Coord, KernelError
from ..frontend import clangtu
from ..limits import Deadline, TimeLimit
from ..poly.sizes import FRESH_MARK
from ..scheme import Banking
from ..sourcetext import KEEP_BYTES
from .inserts import NAMESPACE
from .instrument import Instrumented, instrument

COMPILER = "g++"
#: The driver is built once and run once on small suites: -O1 compiles about as fast as
#: -O0 and runs the loops several times faster.
COMPILE_FLAGS = ("-std=c++14", "-O1", "-w")
#: ``check --trace --sanitize``: g++'s undefined-behaviour sanitizer, the run stopped at
#: the first report.  Not AddressSanitizer: its shadow memory (terabytes of address
#: space) cannot be mapped under the worker's --memory-limit (RLIMIT_DATA).
SANITIZE_FLAGS = ("-fsanitize=undefined", "-fno-sanitize-recover=undefined")
#: The folder of ``workdir`` that holds the driver's source and the instrumented copies
#: of the files it includes.
DRIVER_FOLDER = "driver"
#: The stage :func:`record` is, as a time-limit message names it.
STAGE = "building and running the instrumented kernel (check --trace)"
#: Longest a traced run may take (seconds) when no deadline is given: a kernel the
#: testbench can run at all finishes far sooner; a hang must not hold ``check`` forever.
RUN_TIMEOUT = 600.0
#: Longest g++ may take on the driver (seconds) when no deadline is given.
BUILD_TIMEOUT = 300.0
#: The g++ diagnostics shown when the driver does not build (last characters).
SHOWN_DIAGNOSTICS = 3000


@dataclass(frozen=True, slots=True)
class Trace:
    """A recorded run: ``paths`` hold the records, one file per call of the top
    (:func:`size_values`); ``instrumented`` names their sites and loops; timings in
    seconds."""

    paths: tuple[Path, ...]
    instrumented: Instrumented
    build_seconds: float
    run_seconds: float


def driver_source(kernel: ir.Kernel, instrumented: Instrumented) -> str:
    """The driver's C++ text for ``kernel`` instrumented as ``instrumented``."""
    context = testbench_context(kernel)
    registered = [(n, f"expected_{a.name}") for n, a in enumerate(kernel.arrays)
                  if a.interface and not a.stream]  # a stream's transfers are no addresses
    registered += [(n, name if name.startswith("::") else f"original::{name}")
                   for n, name in instrumented.globals]
    context.update(kernel=kernel.name, original=original_text(instrumented.text, kernel.source),
                   array_count=max(1, len(kernel.arrays)),
                   loop_count=len(instrumented.loops), registered=registered)
    return render("trace_driver.cpp.j2", context)


def record(kernel: ir.Kernel, options: clangtu.Options, workdir: Path,
           bankings: Mapping[str, Banking] | None = None, *,
           deadline: Deadline | None = None, sanitize: bool = False) -> Trace:
    """Instrument, build and run ``kernel`` in ``workdir``, each read recording the
    copy ``bankings`` give it (:func:`copy_texts`); raises KernelError when g++ is
    missing, the original does not compile as C simulation reads it (without
    ``__SYNTHESIS__``) or crashes on the random inputs, RuntimeError when
    the driver does not build or run otherwise (a bug), and
    :class:`TimeLimit` (stage :data:`STAGE`) when ``deadline`` passes first.  Nothing
    that g++ or the driver started outlives the call (:func:`_run`).  With
    ``sanitize`` the driver is built with :data:`SANITIZE_FLAGS`, and undefined
    behaviour of the original on the inputs (a signed overflow, a shift too far, an
    index past a local array) is a KernelError at its line."""
    if shutil.which(COMPILER) is None:
        raise KernelError(Coord(kernel.path), f"check --trace needs {COMPILER} on the PATH")
    instrumented = instrument(kernel, options, copy_texts(kernel, bankings or {}))
    # the driver beside the instrumented copies of the files it includes (.included),
    # in a folder of its own: ``workdir`` may be the kernel's
    source = workdir / DRIVER_FOLDER / f"{kernel.name}_trace.cpp"
    for text, path in [(driver_source(kernel, instrumented), source)] + [
            (s.text, source.parent / s.path) for s in instrumented.sources]:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", errors=KEEP_BYTES)
    binary = workdir.resolve() / "trace_driver"
    records = tuple(workdir.resolve() / f"trace.{call + 1}.bin"
                    for call in range(len(size_values(kernel))))
    started = time.monotonic()
    try:
        _run([COMPILER, *COMPILE_FLAGS, *(SANITIZE_FLAGS if sanitize else ()),
              *_include_flags(kernel, options), "-o", str(binary), str(source), "-lm"],
             workdir, BUILD_TIMEOUT, deadline, "g++ on the trace driver")
    except RuntimeError as failure:
        _check_the_original_builds(kernel, options, workdir, deadline)
        _check_every_call_is_defined(kernel, str(failure))
        raise
    built = time.monotonic()
    _run([str(binary), *map(str, records)], workdir, RUN_TIMEOUT, deadline,
         "the trace driver", kernel=kernel, cwd=workdir)
    return Trace(records, instrumented, built - started, time.monotonic() - built)


_GXX_ERROR = re.compile(r"^(.+?):(\d+):(\d+): error: (.*)$", re.MULTILINE)


def _check_the_original_builds(kernel: ir.Kernel, options: clangtu.Options, workdir: Path,
                               deadline: Deadline | None) -> None:
    """A KernelError at g++'s first error when the kernel file itself does not compile
    as C++ without ``__SYNTHESIS__`` (code only C simulation reads, which arraypart
    never parsed): the user's fault, not the driver's."""
    probe = workdir / "original_only.cpp"
    probe.write_text(kernel.source.text, encoding="utf-8", errors=KEEP_BYTES)
    try:
        _run([COMPILER, *COMPILE_FLAGS, "-fsyntax-only", *_include_flags(kernel, options),
              str(probe)], workdir, BUILD_TIMEOUT, deadline, "g++ on the kernel")
    except RuntimeError as failure:
        found = _GXX_ERROR.search(str(failure))
        line, col, message = ((int(found[2]), int(found[3]), found[4]) if found is not None
                              else (0, 0, "it does not compile"))
        hint = clangtu.standin_hint(message, clangtu.hls_include_dir(options.hls_include))
        raise KernelError(Coord(kernel.path, line, col), (
            f"g++ does not compile the kernel as C simulation reads it (without "
            f"__SYNTHESIS__): {message}{hint}")) from None


_UNDEFINED = re.compile(r"undefined reference to [`']([^'`]+)'")
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)


def _check_every_call_is_defined(kernel: ir.Kernel, failure: str) -> None:
    """A KernelError at the first mention (outside comments) of a function or
    variable that the kernel uses and declares but does not define (an RTL black box,
    a function of another file), when that is why the driver does not link: the
    user's code, not the driver."""
    found = _UNDEFINED.search(failure)
    if found is None:
        return
    symbol = re.sub(r"<.*>", "", found[1].split("(")[0]).split()  # ns::f<int>(int)
    name = symbol[-1].rsplit("::", 1)[-1] if symbol else ""
    text = _uncommented(kernel.source.text)
    mention = re.search((r"\b" if name[:1].isalnum() or name[:1] == "_" else "")
                        + re.escape(name), text) if name else None
    if mention is None:
        return
    line = text.count("\n", 0, mention.start()) + 1
    col = len(text[:mention.start()].rsplit("\n", 1)[-1].encode(errors=KEEP_BYTES)) + 1
    raise KernelError(Coord(kernel.path, line, col), (
        f"check --trace runs the original, which uses '{name}': the kernel file "
        "declares it but no file arraypart reads defines it (a black box, or a function "
        "of another file); define it in the kernel file or a header it includes"))


def _include_flags(kernel: ir.Kernel, options: clangtu.Options) -> list[str]:
    """The folders the kernel's includes are searched in, and its ``-D`` names (a
    header may test one that the kernel text never defines)."""
    folder = os.path.dirname(os.path.abspath(kernel.path))
    dirs = [folder, *options.include_dirs, clangtu.hls_include_dir(options.hls_include)]
    return [f"-I{d}" for d in dirs] + [f"-D{name}={value}" for name, value in options.defines]


def _run(command: list[str], workdir: Path, cap: float, deadline: Deadline | None,
         what: str, kernel: ir.Kernel | None = None, cwd: Path | None = None) -> None:
    """Run ``command`` in a process group of its own (g++ starts cc1plus and as), its
    temporary files in ``workdir``.  Past ``deadline`` (:class:`TimeLimit`) or ``cap``
    seconds (RuntimeError: a hang), or when interrupted, the whole group is killed
    and waited for, so nothing it started outlives the call.  A run of the compiled
    ``kernel`` that a signal ends is the kernel's fault on the random inputs (a
    KernelError located at it), any other failure a bug (RuntimeError).  ``cwd``: the
    folder it runs in (the driver runs in ``workdir``: files the kernel itself writes,
    such as a log, never land in the user's folder)."""
    left = cap if deadline is None else min(cap, max(0.0, deadline.at - deadline.clock()))
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, start_new_session=True, cwd=cwd,
                               env={**os.environ, "TMPDIR": str(workdir)})
    try:
        out, err = process.communicate(timeout=left)
    except subprocess.TimeoutExpired:
        _kill_group(process)
        if left < cap:
            raise TimeLimit(STAGE, deadline.seconds) from None
        raise RuntimeError(f"check --trace: {what} ran past {cap:g} s") from None
    except BaseException:
        _kill_group(process)
        raise
    if process.returncode < 0 and kernel is not None:
        asserted = _failed_assert(err)
        if asserted is not None:
            raise KernelError(_assert_coord(kernel, asserted), (
                f"check --trace: the kernel's own assert({asserted}) failed on the "
                "testbench's inputs (values it draws at random, or scalars whose asserts "
                "arraypart cannot read); nothing was replayed"))
        name = signal.Signals(-process.returncode).name
        raise KernelError(kernel.coord, f"check --trace: the compiled original ended with "
                                        f"{name} on the testbench's random inputs (an access "
                                        "outside an array, most likely: the original overruns "
                                        "one on such data); nothing was replayed")
    undefined = _UNDEFINED_BEHAVIOUR.search(err) if kernel is not None else None
    if process.returncode != 0 and undefined is not None:
        raise KernelError(_driver_line_in_kernel(kernel, undefined[1], int(undefined[2])), (
            f"check --trace --sanitize: the original's behaviour is undefined on the "
            f"testbench's inputs: {undefined[3]}; a testbench comparison there proves "
            "nothing; nothing was replayed"))
    if process.returncode != 0:
        raise RuntimeError(f"check --trace: {what} failed (exit {process.returncode}): "
                           + (err + out)[-SHOWN_DIAGNOSTICS:])


# What a failed assert prints: glibc's "f.c:3: g: Assertion `x > 0' failed.", macOS's
# "Assertion failed: (x > 0), function g, file f.c, line 3."
_ASSERT_MESSAGES = (re.compile(r"Assertion `(.*)' failed\."),
                    re.compile(r"Assertion failed: \((.*)\), function "))
_ASSERT_CALL = re.compile(r"\bassert\s*\(")
_LOGGING_CALL = re.compile(re.escape(NAMESPACE) + r"\w+\(")


# UBSan's report: "path:line:col: runtime error: signed integer overflow: ..."
_UNDEFINED_BEHAVIOUR = re.compile(r"^(.+?):(\d+):\d+: runtime error: (.*)$", re.MULTILINE)


def _driver_line_in_kernel(kernel: ir.Kernel, path: str, line: int) -> Coord:
    """The kernel file's line that the driver's ``line`` of ``path`` holds (the
    driver's logging calls taken out, blanks aside), at its first word; the top's
    coordinate when no line of the kernel file reads so."""
    try:
        lines = Path(path).read_text(encoding="utf-8", errors=KEEP_BYTES).split("\n")
    except OSError:
        return kernel.coord
    wanted = "".join(_uninstrumented(lines[line - 1] if 0 < line <= len(lines) else "")
                     .split())
    for number, text in enumerate(kernel.source.text.split("\n"), start=1):
        if wanted and "".join(text.split()) == wanted:
            indent = text[:len(text) - len(text.lstrip())]
            return Coord(kernel.path, number, len(indent.encode(errors=KEEP_BYTES)) + 1)
    return kernel.coord


def _failed_assert(err: str) -> str | None:
    """The condition of the assert whose failure ``err`` (the run's stderr) reports."""
    found = next((m for p in _ASSERT_MESSAGES if (m := p.search(err))), None)
    return None if found is None else _uninstrumented(found[1])


def _uninstrumented(text: str) -> str:
    """``text`` with each logging call the driver wraps an access in,
    ``::arraypart_trace::at(SITE, KIND, COPY, BASE, E)``, back to ``E`` as written."""
    while (call := _LOGGING_CALL.search(text)) is not None:
        inner = _parenthesized(text, call.end())
        depth, last = 0, 0
        for k, ch in enumerate(inner):
            depth += (ch in "([{") - (ch in ")]}")
            if ch == "," and depth == 0:
                last = k + 1
        text = text[:call.start()] + inner[last:].strip() + text[call.end() + len(inner) + 1:]
    return text


def _uncommented(text: str) -> str:
    """``text`` with its comments blanked, every line where it was."""
    return _COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m[0]), text)


def _assert_coord(kernel: ir.Kernel, condition: str) -> Coord:
    """Where the kernel file writes ``assert(condition)`` (blanks aside: the message
    spells the condition as the preprocessor does), else the top's coordinate."""
    text = _uncommented(kernel.source.text)
    wanted = "".join(condition.split())
    for call in _ASSERT_CALL.finditer(text):
        if "".join(_parenthesized(text, call.end()).split()) == wanted:
            line = text.count("\n", 0, call.start()) + 1
            before = text[:call.start()].rsplit("\n", 1)[-1]
            return Coord(kernel.path, line, len(before.encode(errors=KEEP_BYTES)) + 1)
    return kernel.coord


def _parenthesized(text: str, start: int) -> str:
    """The text from ``start`` to the parenthesis that closes the one before it."""
    depth = 1
    for end in range(start, len(text)):
        depth += (text[end] == "(") - (text[end] == ")")
        if depth == 0:
            return text[start:end]
    return text[start:]


def _kill_group(process: subprocess.Popen) -> None:
    """Kill ``process``'s group (it leads it) and reap ``process``."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass  # the group has ended already
    process.communicate()


def size_values(kernel: ir.Kernel) -> tuple[dict[str, int | None], ...]:
    """Per recorded call of the top, each run-time size's value: a size argument's as
    the testbench passes it, another size's where its expression reads only the
    arguments (:func:`..codegen.testbench.call_sizes`); a size that the data choose (a
    loop bound read from memory) has none."""
    return tuple({p.name: passed.get(p.name) for p in kernel.params}
                 for passed in call_sizes(kernel))


def modelled_sizes(kernel: ir.Kernel, sizes: Sequence[Mapping[str, int | None]]
                    ) -> tuple[tuple[dict[str, int | None], ...], tuple[str, ...]]:
    """Per recorded call, ``sizes`` with each value outside its size's range (one the
    testbench could not keep inside: a size the top computes from its arguments)
    made unknown, as a size the data chose: that call runs outside the model's domain,
    whose steps do not hold it; and a located warning per such size.  A size nothing
    bounds (``Param.unbounded``) holds every value."""
    params = {p.name: p for p in kernel.params if not p.unbounded}
    kept = tuple({name: None if name in params and value is not None
                  and not params[name].holds(value) else value
                  for name, value in at.items()} for at in sizes)
    warnings = []
    for name, p in params.items():
        out = [(call + 1, at[name]) for call, (at, mine) in enumerate(zip(sizes, kept))
               if at.get(name) is not None and mine[name] is None]
        if out:
            warnings.append(
                f"{p.coord}: warning: the testbench gives {ir.size_words(name)} "
                + ", ".join(f"the value {v} in the top's call {c} of {len(sizes)}"
                            for c, v in out)
                + f", outside the range {p.low}..{p.high} the model holds ({p.source}): "
                "the run leaves the modelled domain there, so the loops it bounds are not "
                "compared with the model's addresses in those calls (their II is still "
                "replayed)")
    return kept, tuple(warnings)


def widening(param: ir.Param) -> bool:
    """A fresh size that ends its loop's iterations (not a start): the domain for a
    larger value holds the domain for a smaller one (:mod:`..frontend.fresh`)."""
    return (FRESH_MARK in param.name and not param.lower_end and param.high is not None
            and not param.unbounded)


def copy_texts(kernel: ir.Kernel, bankings: Mapping[str, Banking]
               ) -> dict[Coord, str]:
    """The coordinate of each read reference whose copy varies with its lane -> the C text
    of its copy expression (``Banking.copy_expr`` over the loop iterators), which the
    recorded run evaluates at each access."""
    out = {}
    for access in ir.accesses(kernel.body):
        banking = bankings.get(access.array)
        copy = banking.copy_expr(access.ref_id) if banking is not None else E.const(0)
        if access.kind == "read" and not isinstance(copy, E.Const):
            out[access.coord] = copy_text(copy)
    return out


def copy_text(copy: E.Expr) -> str:
    """C text of a copy expression, every floor and mod in the exact signed form (an
    iterator the recorded run evaluates it at may be negative)."""
    return E.to_c(copy, str, interval=lambda arg: None)
