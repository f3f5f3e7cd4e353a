"""The ``arraypart`` command line (DESIGN §4): parse arguments, call the API, print.

Exit codes: 0 success; 1 the kernel is valid but a goal is missed (a loop misses its
target II, the time limit was reached); 2 bad input or usage (one
``file:line:col: error: ...`` line, no traceback, no partial output); 3 an internal
error (a bug in arraypart); 128 + signal when interrupted (130 Ctrl-C, 143 SIGTERM).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from . import api, bench, check, interrupts
from .frontend import clangtu
from .frontend.pipelining import PIPELINE_LOOPS
from .errors import KernelError
from .limits import MemoryLimit, TimeLimit, default_memory_limit, memory_limit
from .report import check_json
from .supervisor import Resume

#: Table width when output is not a terminal (logs, pipes): wide enough for one array
#: per line.
TABLE_WIDTH = 132

EXIT_OK, EXIT_GOAL_MISSED, EXIT_BAD_INPUT, EXIT_INTERNAL = 0, 1, 2, 3


STANDARDS = clangtu.STANDARDS


def _define(text: str) -> tuple[str, int]:
    name, sep, value = text.partition("=")
    if not name.isidentifier():
        raise argparse.ArgumentTypeError(f"-D {text!r}: expected NAME=VALUE")
    try:
        return name, int(value, 0) if sep else 1
    except ValueError:
        raise argparse.ArgumentTypeError(f"-D {text!r}: VALUE must be an integer") from None


_SIZE_UNITS = {"": 1 << 20, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def _size(text: str) -> int:
    """``4G``, ``512M``, ``65536K`` or a number of MiB, in bytes."""
    number, unit = text.strip().upper().rstrip("B").rstrip("I"), ""
    if number[-1:] in _SIZE_UNITS:
        number, unit = number[:-1], number[-1]
    try:
        size = float(number) * _SIZE_UNITS[unit]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--memory-limit {text!r}: expected a size such as 4G or 512M") from None
    if size < 1 << 20:
        raise argparse.ArgumentTypeError(f"--memory-limit {text!r}: at least 1M")
    return int(size)


def _kernel_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("kernel", help="the kernel's C or C++ file")
    parser.add_argument("--top", help="the top function (default: the only function, "
                                      "or the one named like the file)")
    parser.add_argument("--ports", type=int, choices=(1, 2), default=2,
                        help="default bank ports: 1 = ram_1p, 2 = ram_t2p (default 2)")
    parser.add_argument("--max-banks", type=int, default=None, metavar="N",
                        help="most banks x copies per array the search tries "
                             "(default: from --part's BRAM18K count)")
    parser.add_argument("--part", default=api.codegen.DEFAULT_PART,
                        help="FPGA part: its BRAM sets the bank budget "
                             f"(default {api.codegen.DEFAULT_PART})")
    parser.add_argument("--schemes", choices=("all", "vitis"), default="all",
                        help="vitis: only per-dimension schemes (pragma-only output)")
    parser.add_argument("--replace-partitions", action="store_true",
                        help="replace the kernel's own array_partition pragmas")
    parser.add_argument("--time-limit", type=float, default=30.0, metavar="S",
                        help="solver time budget in seconds (default 30)")
    parser.add_argument("--memory-limit", type=_size, default=None, metavar="SIZE",
                        help="the most memory the run may take, e.g. 4G (default: 3/4 of "
                             "the machine's)")
    parser.add_argument("-D", dest="defines", type=_define, action="append", default=[],
                        metavar="NAME=VALUE", help="define a constant (wins over #define)")
    parser.add_argument("-I", dest="include_dirs", action="append", default=[],
                        metavar="DIR", help="search DIR for #include (the kernel's own "
                                            "folder is always searched)")
    parser.add_argument("--std", choices=STANDARDS, default=None,
                        help="language standard (default: c99 for .c files, else c++14)")
    parser.add_argument("--directives", metavar="FILE.tcl", default=None,
                        help="read set_directive_* commands from a Vitis Tcl file (as the "
                             "pragmas they stand for)")
    parser.add_argument("--hls-include", metavar="DIR", default=None,
                        help="Vitis HLS include folder (default: $XILINX_HLS/include, "
                             "else arraypart's stand-in headers)")
    parser.add_argument("--no-auto-pipeline", dest="auto_pipeline", action="store_false",
                        help="do not pipeline loops that no pragma pipelines (Vitis HLS "
                             "pipelines them at II=1 by default); as --pipeline-loops 0")
    parser.add_argument("--pipeline-loops", type=int, default=PIPELINE_LOOPS, metavar="N",
                        help="Vitis's config_compile -pipeline_loops threshold (default "
                             f"{PIPELINE_LOOPS}, as Vitis's): the parent of an innermost "
                             "loop of at most N trips is pipelined in its place; the "
                             "emitted project sets it; 0 pipelines no loop by default")
    parser.add_argument("--timings", action="store_true",
                        help="report the solver's time (solve_seconds; else 0.0, so that "
                             "identical inputs give identical reports)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="arraypart",
        description="Partition on-chip arrays of an HLS C kernel into conflict-free banks.")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("compile", help="bank the arrays and emit a Vitis HLS project")
    _kernel_options(p)
    p.add_argument("-o", dest="outdir", help="output directory (default build/<kernel>)")
    p.add_argument("--force", action="store_true",
                   help="write into an output folder that holds other files (only "
                        "arraypart's own files, listed in its manifest, are replaced)")
    p.add_argument("--dump-maps", action="store_true",
                   help="write maps/<array>.npz with each element's bank and offset")
    p.add_argument("--clock", type=float, default=api.codegen.DEFAULT_CLOCK_NS,
                   metavar="NS", help="clock period in ns")
    p.add_argument("--synth", action="store_true",
                   help="synthesize each array's RTL model with yosys for report.json")

    p = sub.add_parser("analyze", help="report the banking; writes nothing")
    _kernel_options(p)
    p.add_argument("--json", action="store_true", help="print report.json")

    p = sub.add_parser("check", help="cycle-level checker and linter")
    _kernel_options(p)
    p.add_argument("--as-written", action="store_true",
                   help="check the kernel's own array_partition pragmas")
    p.add_argument("--trace", action="store_true",
                   help="run the original kernel, compiled by g++ and instrumented, and "
                        "replay its recorded accesses against the banking (instead of "
                        "simulating the model)")
    p.add_argument("--sanitize", action="store_true",
                   help="with --trace: build the original with g++'s undefined-behaviour "
                        "sanitizer and stop at its first report (a signed overflow, an "
                        "index past a local array)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")

    p = sub.add_parser("bench", help="the kernel suite against the published baselines")
    p.add_argument("dirs", nargs="*", default=["kernels"], metavar="DIR")
    p.add_argument("--json", dest="json_file", metavar="FILE", help="write rows as JSON")
    p.add_argument("--ports", type=int, choices=(1, 2), default=2)
    p.add_argument("--synth", action="store_true",
                   help="measure every method's RTL model with yosys (slow; cached)")
    p.add_argument("--markdown", action="store_true",
                   help="also print the per-method resource table as Markdown")
    return parser


def _options(args: argparse.Namespace) -> api.Options:
    extra = {}
    if args.command == "compile":
        extra = {"clock_ns": args.clock, "dump_maps": args.dump_maps, "synth": args.synth}
    return api.Options(top=args.top, ports=args.ports, max_banks=args.max_banks,
                       part=args.part,
                       schemes=args.schemes, defines=tuple(args.defines),
                       include_dirs=tuple(args.include_dirs), std=args.std,
                       hls_include=args.hls_include, directives=args.directives,
                       replace_partitions=args.replace_partitions,
                       time_limit=args.time_limit, timings=args.timings,
                       auto_pipeline=args.auto_pipeline,
                       pipeline_loops=args.pipeline_loops, **extra)


def _print_warnings(report, console: Console) -> None:
    for w in report.warnings:
        console.print(w, markup=False, highlight=False)


def _array_table(report) -> Table:
    table = Table(title=f"{escape(report.kernel.name)}: arrays")
    for col in ("array", "shape", "kind", "ports", "conc.", "scheme", "banks",
                "bound", "overhead", "BRAM18K", "ok"):
        table.add_column(col, justify="left" if col in ("array", "scheme", "kind") else "right")
    for a in report.solution.arrays:
        s = a.banking.scheme
        copies = f" x{a.banking.copies}" if a.banking.copies > 1 else ""
        table.add_row(a.array.name, "x".join(map(str, a.array.shape)), _kind(a.array),
                      a.ports.name,
                      str(a.max_concurrent), s.describe().split(":")[0], f"{s.banks}{copies}",
                      str(a.lower_bound), f"{s.storage_overhead:.0%}", str(a.bram18k),
                      "yes" if a.conflict_free else "NO")
    return table


def _kind(array) -> str:
    kind = (f"m_axi {array.bundle}" if array.bundle is not None else array.fifo
            or (array.register and f"register {array.register}")
            or ("interface" if array.interface else "local"))
    return kind if array.stencil is None else f"{kind}, stencil {array.stencil}"


def _loop_table(report) -> Table:
    table = Table(title=f"{escape(report.kernel.name)}: pipelined / unrolled loops")
    for col in ("loop", "line", "target II", "achieved II", "trip count", "arrays"):
        table.add_column(col, justify="left" if col in ("loop", "arrays") else "right")
    for n, loop in enumerate(report.model.loops):
        achieved = report.loop_achieved_ii(n, loop.name, loop.target_ii)
        table.add_row(loop.name, str(loop.coord.line), str(loop.target_ii), str(achieved),
                      str(loop.trip_count), ", ".join(loop.arrays))
    return table


@contextmanager
def _banking_status(err: Console):
    """A status line on the terminal while arrays are banked (nothing in logs)."""
    with err.status("banking") as status:
        yield lambda index, count, name: status.update(
            f"banking {name} ({index + 1}/{count})")


def _run_analyze(args, out: Console, err: Console) -> int:
    with _banking_status(err) as progress:
        report = api.analyze(args.kernel, args.options, progress=progress)
    if args.json:
        print(json.dumps(report.to_json(timings=args.timings), indent=2))
    else:
        _print_warnings(report, err)
        out.print(_array_table(report))
        if report.model.loops:
            out.print(_loop_table(report))
    return EXIT_OK if report.goals_met else EXIT_GOAL_MISSED


def _run_compile(args, out: Console, err: Console) -> int:
    with _banking_status(err) as progress:
        compiled = api.compile_kernel(args.kernel, args.options, progress=progress)
    outdir = api.write_project(compiled, args.outdir or api.default_outdir(args.kernel),
                               force=args.force)
    args.written = outdir
    report = compiled.report
    _print_warnings(report, err)
    out.print(_array_table(report))
    if report.model.loops:
        out.print(_loop_table(report))
    out.print(f"wrote {outdir}: " + ", ".join(sorted(compiled.files)) +
              (", maps/" if compiled.maps else ""), highlight=False, markup=False)
    if report.time_limited:
        err.print("arraypart: the time limit ended a stage (see the warnings)")
    if _loops_missed(report):
        err.print("arraypart: some loop misses its target II (see the loop table and "
                  "`arraypart check`)")
    return EXIT_OK if report.goals_met else EXIT_GOAL_MISSED


def _loops_missed(report) -> bool:
    """Some array has a conflict or some loop reaches a larger II than its target."""
    return not report.conflict_free or any(
        report.loop_achieved_ii(n, loop.name, loop.target_ii) > loop.target_ii
        for n, loop in enumerate(report.model.loops))


def _run_check(args, out: Console, err: Console) -> int:
    if args.trace:
        return _run_trace(args, err)
    try:
        with _banking_status(err) as progress:
            report, bankings, result = api.check_kernel(args.kernel, args.options,
                                                        as_written=args.as_written,
                                                        progress=progress)
    except api.CheckTimeLimit as limit:
        if args.json:
            print(json.dumps({**limit.report.to_json(timings=args.timings),
                              "checked": None, "ok": None, "time_limit_reached": True},
                             indent=2))
        else:
            _print_warnings(limit.report, err)
        err.print(f"arraypart: {limit}", markup=False, highlight=False)
        return EXIT_GOAL_MISSED
    automatic = (check.auto_partition_notes(report.kernel,
                                            api.vitis_complete_threshold(args.options))
                 if args.as_written else {})
    if args.json:
        print(json.dumps(check_json(report, result, bankings, as_written=args.as_written,
                                    timings=args.timings, automatic=automatic), indent=2))
    else:
        _print_warnings(report, err)
        print(result.format())
        for name, note in automatic.items():
            print(f"{name}: {note}")
        if args.as_written:
            print("arraypart would choose:")
            for a in report.solution.arrays:
                print(f"  {a.array.name}: {a.banking.scheme.describe()}"
                      + (f", {a.banking.copies} copies" if a.banking.copies > 1 else ""))
    missed = (any(loop.achieved_ii > loop.target_ii for loop in result.loops)
              or report.time_limited)
    return EXIT_GOAL_MISSED if missed else EXIT_OK


def _run_trace(args, err: Console) -> int:
    """``check --trace``: exit 1 when the traced run disagrees with the model, when it
    checked nothing (no modelled loop recorded an access) or, as ``check``, when a
    loop misses its target II."""
    with _banking_status(err) as progress:
        report, result = api.trace_kernel(args.kernel, args.options,
                                          as_written=args.as_written,
                                          sanitize=args.sanitize, progress=progress)
    if args.json:
        print(json.dumps(result.to_json(), indent=2))
    else:
        _print_warnings(report, err)
        print(result.format())
    missed = any(loop.traced_ii > loop.claim.target_ii for loop in result.replay.loops
                 if loop.claim) or report.solution.time_limited
    failed = result.disagreements or result.checked_nothing
    return EXIT_GOAL_MISSED if failed or missed else EXIT_OK


def _run_bench(args, out: Console, err: Console) -> int:
    return bench.main([Path(d) for d in args.dirs], json_file=args.json_file,
                      ports=args.ports, console=out, synth=args.synth,
                      markdown=args.markdown)


COMMANDS = {"analyze": _run_analyze, "compile": _run_compile, "check": _run_check,
            "bench": _run_bench}


class _NoThread(RuntimeError):
    """A thread's stack (the progress display's) did not fit in the memory limit."""


@contextmanager
def _threads_need_memory():
    """Python says a thread whose stack the memory limit refuses "can't start new
    thread": that is the memory limit too."""
    try:
        yield
    except RuntimeError as error:
        if "can't start new thread" in str(error):
            raise _NoThread(str(error)) from None
        raise


def main(argv: list[str] | None = None, resume: Resume | None = None) -> int:
    """The command's exit status.  ``resume``: the supervisor's hand-over after it
    killed a run inside one call of the solver (:mod:`arraypart.supervisor`): the run
    is made again with the bankings that one had found (``Options.best_found``)."""
    interrupts.install()
    parser = build_parser()
    args = parser.parse_args(argv)
    args.written = None
    if args.command != "bench":
        try:
            args.options = _options(args)
        except ValueError as error:
            parser.error(str(error))
        if getattr(args, "sanitize", False) and not args.trace:
            parser.error("--sanitize builds the traced original: it needs --trace")
        if resume is not None:
            found = resume.values()
            args.options = replace(args.options,
                                   best_found=tuple(found[name] for name in sorted(found)))
    width = shutil.get_terminal_size((TABLE_WIDTH, 24)).columns
    # messages are never wrapped: a file:line:col must stay on one line for editors;
    # no emoji codes either (rich reads ":100:" in "k.c:100:3" as one)
    out = Console(width=width, emoji=False)
    err = Console(stderr=True, width=width, soft_wrap=True, emoji=False)
    limit = getattr(args, "memory_limit", None) or default_memory_limit()
    try:
        with memory_limit(limit), _threads_need_memory():
            return COMMANDS[args.command](args, out, err)
    except KernelError as error:
        print(error, file=sys.stderr)
        return EXIT_BAD_INPUT
    except TimeLimit as limit:
        print(f"arraypart: {getattr(args, 'kernel', 'bench')}: time limit of "
              f"{limit.seconds:g} s reached while "
              f"{limit.stage}; nothing was written (--time-limit S gives it more time)",
              file=sys.stderr)
        return EXIT_GOAL_MISSED
    except (MemoryLimit, MemoryError, _NoThread) as error:
        stage = f" while {error.stage}" if isinstance(error, MemoryLimit) else ""
        done = (f"{args.written} was written whole" if args.written is not None
                else "nothing was written")
        size = (f"{limit / (1 << 30):.1f} GiB" if limit >= 1 << 30
                else f"{limit >> 20} MiB")
        print(f"arraypart: {getattr(args, 'kernel', 'bench')}: memory limit of {size} "
              f"reached{stage}; {done} (--memory-limit SIZE gives it more)",
              file=sys.stderr)
        return EXIT_GOAL_MISSED
    except KeyboardInterrupt as error:
        done = (f"{args.written} was written whole" if args.written is not None
                else "nothing was written")
        print(f"arraypart: interrupted; {done}", file=sys.stderr)
        return interrupts.exit_status(error)
    except Exception as error:  # noqa: BLE001 - the last line of defence against tracebacks
        print(f"arraypart: internal error: {type(error).__name__}: {error} "
              "(please report this with the kernel)", file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
