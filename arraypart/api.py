"""The Python API: the passes chained, and the compiled project written atomically.

    frontend.parse_kernel -> poly.build_model -> banking.solve -> codegen.emit / check

``analyze`` and ``compile_kernel`` raise :class:`arraypart.KernelError` (with file, line
and column) on bad input and return a :class:`Report`.  Each stage gets ``time_limit``
seconds of its own (reading, model and replay at least
:data:`arraypart.limits.STAGE_FLOOR_S`): the solver and the scheduling-rule check then
report what they have (exit 1); the model has no partial answer, so past its limit
they raise :class:`arraypart.limits.TimeLimit`.  Every stage is announced to the
command line's supervisor (:func:`arraypart.limits.stage`), which ends a run stuck
past a deadline inside one isl or clang call.
"""

from __future__ import annotations

import json
import math
import os
import re
import tempfile
import zipfile
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from time import perf_counter
from typing import BinaryIO, Callable

import numpy as np

from . import banking, check, codegen, frontend, ir, output, poly, rtl, supervisor
from .check import trace
from .codegen import textedit
from .poly import build
from .frontend import clangtu
from .frontend.pipelining import PIPELINE_LOOPS
from .errors import Coord, KernelError, warning_text
from .limits import Deadline, TimeLimit, child_stage_deadline, stage, stage_deadline
from .report import Report
from .scheme import COMPLETE_THRESHOLD
from .sourcetext import KEEP_BYTES

#: ``--dump-maps`` refuses arrays above this many elements: two int64 maps of 2^24
#: elements are 256 MiB, about what a user expects a dump to cost at most.
MAX_DUMP_ELEMENTS = 1 << 24
#: Elements of one array's maps computed and written at once by ``--dump-maps``: two
#: int64 maps of 2^20 elements are 16 MiB (with numpy's temporaries, some tens).
DUMP_SLAB_ELEMENTS = 1 << 20
#: An FPGA part name as AMD spells them (``xcu250-figd2104-2L-e``,
#: ``xilinx.com:au250:part0:1.3``): it reaches Tcl and the cfg file, so nothing else.
#: The zip timestamp of every member of a maps file (the earliest a zip can hold).
NPZ_TIMESTAMP = (1980, 1, 1, 0, 0, 0)
PART_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}")
#: The stages, as a time-limit message names them.
MODELLING = build.STAGE
READING, SOLVING = "reading the kernel", "banking the arrays"
SCHEDULING = "checking the emitted code under the scheduling rule"
CHECKING = "checking the kernel's own banking"
TRACING = trace.STAGE
REPLAYING = trace.REPLAY_STAGE


@dataclass(frozen=True)
class Options:
    """Every option of ``analyze`` / ``compile`` / ``check`` (DESIGN §4)."""

    top: str | None = None
    ports: int = 2
    max_banks: int | None = None  # None: from the part's BRAM (banking.device)
    schemes: str = "all"
    defines: tuple[tuple[str, int], ...] = ()
    include_dirs: tuple[str, ...] = ()
    std: str | None = None
    hls_include: str | None = None
    directives: str | None = None  # a Tcl file of set_directive_* commands
    replace_partitions: bool = False
    time_limit: float = 30.0
    part: str = codegen.DEFAULT_PART
    clock_ns: float = codegen.DEFAULT_CLOCK_NS
    dump_maps: bool = False
    timings: bool = False
    synth: bool = False
    auto_pipeline: bool = True  # pipeline loops as Vitis does by default
    #: Vitis's ``config_compile -pipeline_loops`` threshold (frontend.pipelining)
    pipeline_loops: int = PIPELINE_LOOPS
    #: The bankings that an earlier run had proven when the time limit ended its
    #: solver inside one call (the supervisor resumes such a run with them): no
    #: search, each proven again; arrays not named keep one memory; exit 1.
    best_found: tuple[banking.Found, ...] | None = None

    def __post_init__(self):
        if self.ports not in (1, 2):
            raise ValueError(f"--ports must be 1 or 2, not {self.ports}")
        if self.max_banks is not None and self.max_banks < 1:
            raise ValueError(f"--max-banks must be at least 1, not {self.max_banks}")
        if self.schemes not in ("all", "vitis"):
            raise ValueError(f"--schemes must be all or vitis, not {self.schemes!r}")
        if self.pipeline_loops < 0:
            raise ValueError(f"--pipeline-loops must be at least 0, not {self.pipeline_loops}")
        if not self.time_limit > 0:
            raise ValueError(f"--time-limit must be positive, not {self.time_limit}")
        if not (self.clock_ns > 0 and math.isfinite(self.clock_ns)):
            raise ValueError(f"--clock must be a positive number of ns, not {self.clock_ns}")
        if not PART_NAME.fullmatch(self.part):
            raise ValueError(f"--part {self.part!r}: expected a part name such as "
                             f"{codegen.DEFAULT_PART} (letters, digits, _ . : -)")

    @property
    def pipeline_threshold(self) -> int:
        """The ``pipeline_loops`` threshold the model assumes and the emitted project
        sets: 0 (no loop pipelined by default) under ``--no-auto-pipeline``."""
        return self.pipeline_loops if self.auto_pipeline else 0


class CheckTimeLimit(Exception):
    """``check`` passed its time limit before every cycle was simulated: there is no
    verdict (``report`` is arraypart's own, for what it would do)."""

    def __init__(self, report: Report, seconds: float):
        super().__init__(f"the checker passed the time limit of {seconds:g} s before "
                         f"every cycle was simulated: no verdict (--time-limit S gives "
                         f"it more time)")
        self.report = report


class EmittedCodeError(RuntimeError):
    """The banked kernel arraypart wrote does not parse although its input did: a fault
    of the emission (an internal error, exit 3), never the user's input."""


@dataclass(frozen=True, eq=False)
class Compiled:
    """What ``compile_kernel`` produced: the report and every emitted file's text.
    ``maps`` holds, by array name, a writer of the array's ``--dump-maps`` ``.npz``
    (``maps[name](stream)``): each array's maps are computed only while its file is
    written, so one array's maps are in memory at a time."""

    report: Report
    files: dict[str, str]
    maps: dict[str, Callable[[BinaryIO], None]] = field(default_factory=dict)


def _options(options: Options | None, overrides: dict) -> Options:
    base = options or Options()
    if "defines" in overrides and isinstance(overrides["defines"], dict):
        overrides["defines"] = tuple(sorted(overrides["defines"].items()))
    return Options(**{**base.__dict__, **overrides}) if overrides else base


Progress = Callable[[int, int, str], None]


def analyze(path: str | os.PathLike, options: Options | None = None, *,
            progress: Progress | None = None, **overrides) -> Report:
    """Parse, model and bank a kernel; writes nothing.  ``progress(index, count,
    array)`` is called before each array is banked (for a status line).  The loops'
    achieved II is what the scheduling rule gives on the code ``compile`` emits."""
    return _run(path, _options(options, overrides), progress)[0]


def compile_kernel(path: str | os.PathLike, options: Options | None = None, *,
                   progress: Progress | None = None, **overrides) -> Compiled:
    """``analyze`` plus the emitted HLS project (texts only; see :func:`write_project`).
    Raises :class:`KernelError` where its testbench would not link against its kernel
    (``SourceUnit.unlinkable``: ``analyze`` and ``check`` go on, the trace links no
    banked kernel)."""
    opts = _options(options, overrides)
    report, files = _run(path, opts, progress)
    if report.kernel.source.unlinkable:
        raise KernelError(*report.kernel.source.unlinkable)
    if opts.synth:
        report = replace(report, measured=_synthesized(report))
    files["report.json"] = json.dumps(report.to_json(timings=opts.timings), indent=2) + "\n"
    maps = _dump_maps(report) if opts.dump_maps else {}
    return Compiled(report, files, maps)


def _run(path: str | os.PathLike, opts: Options,
         progress: Progress | None) -> tuple[Report, dict[str, str]]:
    """The passes: the kernel banked, emitted, and the emitted kernel parsed back and
    checked under the scheduling rule (DESIGN §2); a located error where calls
    outside the sizes' ranges make cycles whose banks under the final banking no call
    inside makes (:func:`poly.check_banked`)."""
    directives = frontend.read_directives(opts.directives) if opts.directives else ()
    with stage(READING, stage_deadline(opts.time_limit), str(path)):
        kernel = frontend.parse_kernel(path, defines=dict(opts.defines), top=opts.top,
                                       include_dirs=opts.include_dirs, std=opts.std,
                                       hls_include=opts.hls_include, directives=directives,
                                       pipeline_loops=opts.pipeline_threshold)
    try:
        return _banked(kernel, opts, progress)
    except KernelError as error:
        if not kernel.overridden:
            raise
        # the sizes in the error may be a header's, not the -D values the user gave
        raise KernelError(error.coord, error.message, "\n".join(
            filter(None, (error.context,) + kernel.overridden))) from error


def _banked(kernel: ir.Kernel, opts: Options,
            progress: Progress | None) -> tuple[Report, dict[str, str]]:
    """:func:`_run`'s passes after reading."""
    with stage(MODELLING, stage_deadline(opts.time_limit), kernel.path) as deadline:
        kernel = poly.bound_sizes(kernel)
        model = poly.build_model(kernel, ports=opts.ports, deadline=deadline)
    solution = _solve(model, opts, progress, kernel.path)
    files = codegen.emit(kernel, solution, part=opts.part, clock_ns=opts.clock_ns,
                         pipeline_loops=opts.pipeline_threshold,
                         undefined_reads=model.undefined_reads)
    # one deadline for every replay of the run: a retry and the idle-bank check share
    # what the first replay left (before, each had the whole limit again)
    scheduling = stage_deadline(opts.time_limit)
    try:
        scheduled, limited = _scheduled(kernel, files, opts, scheduling), ()
    except TimeLimit as limit:
        scheduled, limited = None, (_unscheduled_note(kernel, limit),)
    missed = () if scheduled is None else _missed_loops(
        Report(kernel, model, solution, scheduled, {}))
    if missed and opts.best_found is None:
        model, solution, files, scheduled = _retry(kernel, model, solution, missed, opts,
                                                   (files, scheduled), scheduling)
    if scheduled is not None:
        solution, files, scheduled = _without_idle_banks(kernel, model, solution, opts,
                                                         (files, scheduled), scheduling)
    poly.check_banked(kernel, solution.bankings())
    crossbars = codegen.crossbars(kernel, solution)
    return Report(kernel, model, solution, scheduled, crossbars, limited=limited), files


def _solve(model: poly.PolyModel, opts: Options, progress: Progress | None, where: str):
    """The banking search; its own deadline is ``time_limit`` from its start, which
    the supervisor also watches.  Past it the search banks each remaining array as one
    memory, a bounded piece of work per array: each array is a sign of life.  Each
    proven banking that is its array's best so far is kept with the supervisor, which
    resumes a run killed inside one call of the search with them (``best_found``)."""
    def banking_array(index: int, count: int, name: str) -> None:
        supervisor.alive()
        if progress is not None:
            progress(index, count, name)

    def found(proven: banking.Found) -> None:
        supervisor.keep(proven.banking.array, proven)

    fixed = None if opts.best_found is None else {
        proven.banking.array: proven for proven in opts.best_found}
    with stage(SOLVING, Deadline.after(opts.time_limit), where, resumable=fixed is None):
        return banking.solve(model, max_banks=opts.max_banks, part=opts.part,
                             schemes=opts.schemes, time_limit=opts.time_limit,
                             replace_partitions=opts.replace_partitions,
                             progress=banking_array, found=found, best_found=fixed)


def _missed_loops(report: Report) -> frozenset[str]:
    """Loops whose emitted code reaches a larger II under the scheduling rule than the
    banking pass proved (the emission kept a reference whose bank rotates)."""
    return frozenset(loop.name for n, loop in enumerate(report.model.loops)
                     if report.memory_ii(n, loop.name, loop.target_ii)
                     > report.planned_ii(loop.name, loop.target_ii))


def _retry(kernel, model, solution, missed: frozenset[str], opts: Options, first,
           scheduling: Deadline):
    """Bank again with the lanes that change bank in ``missed`` priced as the
    scheduling rule prices them, and with no phase switch assumed for the arrays
    whose II there relied on one (:func:`poly.with_direct_loops`; not when it changes
    nothing), and keep whichever
    emitted code reaches the smaller total II (the first on a tie).  Kept, the first
    takes the retry's notes on the arrays that lost a phase switch and are banked
    alike by both: those notes price the lanes as the emitted code has them, so they
    say when a kept pragma is what costs the II (probe 39 L5).  Both searches count
    in ``solve_seconds``."""
    unphased = frozenset((s.array.name, loop) for s in solution.arrays
                         for loop in s.phased_loops if loop in missed)
    retry_model = poly.with_direct_loops(model, missed, unphased)
    if retry_model is model:
        return model, solution, *first  # the search priced those lanes already
    retry = _solve(retry_model, opts, None, kernel.path)
    files = codegen.emit(kernel, retry, part=opts.part, clock_ns=opts.clock_ns,
                         pipeline_loops=opts.pipeline_threshold,
                         undefined_reads=model.undefined_reads)
    try:
        scheduled = _scheduled(kernel, files, opts, scheduling)
    except TimeLimit:
        return model, solution, *first  # the retry is not confirmed: keep the first
    seconds = solution.seconds + retry.seconds
    total = [sum(loop.achieved_ii for loop in s.loops) for s in (first[1], scheduled)]
    if total[1] < total[0]:
        return retry_model, replace(retry, seconds=seconds), files, scheduled
    renoted = _notes_from(solution, retry, frozenset(name for name, _ in unphased))
    return model, replace(renoted, seconds=seconds), *first


def _notes_from(solution, retry, names: frozenset[str]):
    """``solution`` with the notes ``retry`` gives each array of ``names`` that both
    bank alike."""
    theirs = {a.array.name: a for a in retry.arrays}
    arrays = tuple(replace(a, notes=theirs[a.array.name].notes)
                   if a.array.name in names and theirs[a.array.name].banking == a.banking
                   else a for a in solution.arrays)
    return replace(solution, arrays=arrays,
                   warnings=tuple(note for a in arrays for note in a.notes))


def _kept_reason(array) -> str:
    """Why an array that is not an interface keeps its references as written, for a
    note on the II they leave (empty when nothing the user wrote decides it)."""
    if array.kept_reference is None:
        return ""
    return f" (its references stay as written: {array.kept_reference})"


def _signed_sizes_reason(kernel, model, chosen) -> str:
    """Why no phase switch gave the banks of ``chosen``'s array compile-time values
    where a run-time size moves them (:func:`banking.moving_sizes`): the emission
    phases the top's unsigned arguments only (:func:`.codegen.phases.SizeVar`)."""
    signed = {d.name for d in kernel.source.func.params if d.ctype is not None
              and d.ctype.integer is not None and d.ctype.integer.signed}
    scheme = chosen.banking.scheme
    cyclic = frozenset(d for d, p in enumerate(scheme.dims) if p.type == "cyclic")
    named = [f"'{s}'" for s in banking.moving_sizes(model.array(chosen.array.name).groups,
                                                    cyclic) if s in signed]
    if not named:
        return ""
    return (f" (its banks move with the run-time value of {' and '.join(named)}: arraypart "
            "writes a switch over its residue, which makes them compile-time values, "
            "only for an unsigned argument, in statements that call none of the file's "
            "functions)")


def _without_idle_banks(kernel, model, solution, opts: Options, first, scheduling: Deadline):
    """Arrays whose banks lower no loop's II become one memory (issue 12: no array gets
    banks that leave its II unchanged).  An array with a loop that misses its target
    under the scheduling rule is examined, proven in the ideal port model or not (lanes
    whose banks rotate in code kept as written take a port of every bank, so banks
    the search proved may buy nothing).  It is idle when one memory, proven by isl,
    allows each of its loops the II the emitted code reaches anyway (its own rotating
    lanes, another array or an m_axi bundle hold a missed loop; the others reach their
    targets with one memory too); the one-memory code is emitted and checked under the
    scheduling rule again, and kept only when no loop's II grows.  Banks that cost less
    than one memory (LUT RAM instead of a block RAM) are kept: they are the cheaper
    memory."""
    files, scheduled = first
    report = Report(kernel, model, solution, scheduled, {})
    reached: dict[str, int] = {}
    missing: set[str] = set()
    for n, loop in enumerate(model.loops):
        ii = report.loop_achieved_ii(n, loop.name, loop.target_ii)
        reached[loop.name] = min(ii, reached.get(loop.name, ii))
        if ii > loop.target_ii:
            missing.add(loop.name)
    idle = {}
    for chosen in solution.arrays:
        loops = {name for name, _ in chosen.achieved_ii}
        if (chosen.kept or not loops & missing or not chosen.array.partitionable
                or chosen.banking.scheme.banks * chosen.banking.copies == 1):
            continue
        one = banking.cheaper_one_memory(model, chosen, (
            f"{chosen.array.name} keeps one memory: {chosen.banking.describe()} "
            f"would not lower the II of {', '.join(sorted(loops))} under the scheduling "
            "rule" + _kept_reason(chosen.array) + _signed_sizes_reason(kernel, model, chosen)),
            deadline=perf_counter() + scheduling.at - scheduling.clock())
        if one is not None and all(ii <= reached[name] for name, ii in one.achieved_ii):
            idle[chosen.array.name] = one
    if not idle:
        return solution, files, scheduled
    arrays = tuple(idle.get(a.array.name, a) for a in solution.arrays)
    candidate = replace(solution, arrays=arrays,
                        warnings=tuple(note for a in arrays for note in a.notes))
    candidate_files = codegen.emit(kernel, candidate, part=opts.part, clock_ns=opts.clock_ns,
                                   pipeline_loops=opts.pipeline_threshold,
                                   undefined_reads=model.undefined_reads)
    try:
        checked = _scheduled(kernel, candidate_files, opts, scheduling)
    except TimeLimit:
        return solution, files, scheduled  # not confirmed: keep the banks
    if all(b.achieved_ii <= a.achieved_ii for a, b in zip(scheduled.loops, checked.loops)):
        return candidate, candidate_files, checked
    return solution, files, scheduled


def _scheduled(kernel, files: dict[str, str], opts: Options,
               deadline: Deadline) -> check.CheckReport:
    with stage(SCHEDULING, deadline, kernel.path):
        return schedule_emitted(kernel, files, opts.ports, opts, deadline=deadline)


def schedule_emitted(kernel, files: dict[str, str], ports: int,
                     opts: Options | None = None, *,
                     deadline: Deadline | None = None) -> check.CheckReport:
    """The emitted kernel, read back by the front end, under the scheduling rule with
    the banking its own pragmas and bank arrays describe (its includes found where the
    kernel's were).  Raises :class:`TimeLimit` when ``deadline`` passes."""
    name = f"{kernel.name}.cpp"
    opts = opts or Options()
    folder = os.path.dirname(os.path.abspath(kernel.path))
    # named in the kernel's folder: clang looks for a quoted include there first
    emitted_path = os.path.join(folder, name)
    try:
        emitted = frontend.parse_source(files[name], emitted_path, top=kernel.top,
                                        include_dirs=(folder,) + opts.include_dirs,
                                        hls_include=opts.hls_include,
                                        directives=frontend.parse_directives(
                                            files.get(codegen.DIRECTIVES_FILE, ""),
                                            codegen.DIRECTIVES_FILE),
                                        pipeline_loops=opts.pipeline_threshold)
    except KernelError as error:  # the input parsed: the fault is the emission's
        raise EmittedCodeError(f"the emitted {name} does not parse ({error})") from error
    emitted = poly.with_sizes_of(emitted, kernel)  # replayed at the same sizes
    # Vitis's own complete partitions of tiny locals left out: the solver's proofs and
    # the trace's replay of the emitted bankings do not count them either
    result = check.check_kernel(emitted, check.as_written_bankings(emitted,
                                                                   complete_threshold=0),
                                ports=ports, rule=True, deadline=deadline)
    return check.relocated(result, partial(_in_original, kernel, emitted_path,
                                           textedit.origins(kernel.source.text,
                                                            files[name])))


def _in_original(kernel, emitted_name: str, origin, coord: Coord) -> Coord:
    """A coordinate of the emitted text as the kernel's own file has it (the emitted
    code is checked, but the user reads and edits the original)."""
    if coord.file != emitted_name:
        return coord
    line, col = origin(coord.line, coord.col)
    return Coord(kernel.coord.file, line, col)


def _unscheduled_note(kernel, limit: TimeLimit) -> str:
    return warning_text(kernel.coord, (
        f"the scheduling-rule check of the emitted code passed the time limit of "
        f"{limit.seconds:g} s: the loops' achieved II is the one the banking proof gives "
        f"(every access on the port of its own bank), not confirmed under the scheduling "
        f"rule; `arraypart check` with a larger --time-limit confirms it"))


def check_kernel(path: str | os.PathLike, options: Options | None = None, *,
                 as_written: bool = False, progress: Progress | None = None, **overrides):
    """The cycle-level checker on arraypart's banking, or with ``as_written`` on the
    banking the kernel's own pragmas describe.  Returns ``(report, bankings,
    check_report)``: arraypart's report (to say what it would do instead), the bankings
    checked, and the checker's verdict."""
    opts = _options(options, overrides)
    report = analyze(path, opts, progress=progress)
    if not as_written:
        if report.scheduled is None:
            raise CheckTimeLimit(report, opts.time_limit)
        return report, report.solution.bankings(), report.scheduled
    bankings = check.as_written_bankings(report.kernel,
                                         complete_threshold=vitis_complete_threshold(opts))
    poly.check_banked(report.kernel, bankings)
    try:
        with stage(CHECKING, stage_deadline(opts.time_limit), report.kernel.path) as deadline:
            result = check.check_kernel(report.kernel, bankings, ports=opts.ports,
                                        rule=True, deadline=deadline)
    except TimeLimit as limit:
        raise CheckTimeLimit(report, limit.seconds) from None
    return report, bankings, result


def vitis_complete_threshold(opts: Options) -> int:
    """The ``config_array_partition -complete_threshold`` Vitis builds the kernel with:
    the ``--directives`` file's, else Vitis's default."""
    return (frontend.read_complete_threshold(opts.directives, COMPLETE_THRESHOLD)
            if opts.directives else COMPLETE_THRESHOLD)


def trace_kernel(path: str | os.PathLike, options: Options | None = None, *,
                 as_written: bool = False, sanitize: bool = False,
                 progress: Progress | None = None,
                 **overrides) -> tuple[Report, trace.TraceCheck]:
    """``check --trace``: the original kernel compiled by g++, instrumented, run on the
    testbench's inputs, and its recorded accesses replayed (see :func:`judge_trace`);
    with ``sanitize`` under g++'s undefined-behaviour sanitizer (:func:`trace.record`).
    The build and the run are a stage on the wall clock (their CPU time is g++'s and
    the driver's): past it they are killed and :class:`TimeLimit` is raised."""
    opts = _options(options, overrides)
    report = analyze(path, opts, progress=progress)
    reading = clangtu.Options(opts.defines, opts.include_dirs, opts.std, opts.hls_include)
    with tempfile.TemporaryDirectory(prefix="arraypart-trace-") as work:
        with stage(TRACING, child_stage_deadline(opts.time_limit),
                   report.kernel.path) as deadline:
            recorded = trace.record(report.kernel, reading, Path(work),
                                    report.solution.emitted_bankings(), deadline=deadline,
                                    sanitize=sanitize)
        with stage(REPLAYING, stage_deadline(opts.time_limit),
                   report.kernel.path) as deadline:
            return report, judge_trace(report, recorded, as_written=as_written,
                                       ports=opts.ports, deadline=deadline,
                                       complete_threshold=vitis_complete_threshold(opts))


def judge_trace(report: Report, recorded: trace.Trace, *, as_written: bool = False,
                ports: int = 2, deadline: Deadline | None = None,
                complete_threshold: int = COMPLETE_THRESHOLD) -> trace.TraceCheck:
    """A recorded run replayed against arraypart's banking as emitted (a multi-port ROM
    serves every read: :meth:`.Solution.emitted_bankings`) in the ideal port model
    (claims: the II each loop's bankings were proved for), or with ``as_written``
    against the kernel's own pragmas under the scheduling rule (claims: the II the
    checker's memories allow, ``LoopCheck.memory_ii``: a trace sees ports, not the
    calls an ``allocation`` limit delays; arrays under ``complete_threshold``
    registers, as Vitis makes them); its addresses compared with the polyhedral model.  Past ``deadline``
    (asked between chunks) it raises :class:`TimeLimit`."""
    kernel = report.kernel
    storage = {}
    if as_written:
        bankings = check.as_written_bankings(kernel, complete_threshold=complete_threshold)
        checked = check.check_kernel(kernel, bankings, ports=ports, rule=True,
                                     deadline=deadline)
        model = {loop.coord: loop for loop in report.model.loops}
        claims = [replace(_limits(model[loop.coord]), name=loop.name,
                          target_ii=loop.target_ii, claimed_ii=loop.memory_ii)
                  if loop.coord in model else
                  trace.Claim(loop.name, loop.coord, loop.target_ii, loop.memory_ii)
                  for loop in checked.loops]
    else:
        bankings, storage = (report.solution.emitted_bankings(),
                             report.solution.emitted_ports())
        claims = [_ideal_claim(report, n, loop) for n, loop in enumerate(report.model.loops)]
    groups = [g for a in report.model.arrays for g in a.groups]
    return trace.check_trace(kernel, recorded, bankings, claims, groups, ports=ports,
                             storage=storage, rule=as_written, deadline=deadline)


def _ideal_claim(report: Report, position: int, loop) -> trace.Claim:
    """The claim of the ``position``-th loop in the ideal port model: the II its
    banking proofs give, or the II the emitted code reaches under the scheduling rule
    (checked: never below the ideal port model's) where that is less, and at least the
    II its m_axi bundles allow, which the replay counts too.  A proof by
    counting, after a time limit, is a coarse bound (cyclic 64 counted at II 33 where
    the checker finds II 1, probe 30 F4): the replay would accept anything up to it."""
    planned = report.planned_ii(loop.name, loop.target_ii)
    emitted = report.memory_ii(position, loop.name, loop.target_ii)
    banked = min(planned, emitted) if report.scheduled is not None else planned
    return replace(_limits(loop), claimed_ii=max(banked, loop.bundle_ii), emitted_ii=emitted)


def _limits(loop) -> trace.Claim:
    """A claim of the model's ``loop`` (a :class:`poly.LoopInfo`) with what bounds its
    II besides the memories: its m_axi bundles and its calls' ``allocation`` limits;
    ``claimed_ii`` its target, for the caller to set."""
    return trace.Claim(loop.name, loop.coord, loop.target_ii, loop.target_ii,
                       bundle_ii=loop.bundle_ii,
                       allocations=tuple((shared.function, shared.instances)
                                         for shared, _ in loop.instances),
                       instance_ii=loop.instance_ii)


def _synthesized(report: Report) -> dict[str, rtl.Resources]:
    """yosys' resources of every on-chip array's RTL model (``compile --synth``)."""
    on_chip = [a for a in report.solution.arrays if a.array.memory]
    names = [a.array.name for a in on_chip]
    mems = [rtl.memory(banking.solved_model(report.model.array(a.array.name), a), a.banking)
            for a in on_chip]
    try:
        return dict(zip(names, rtl.synthesize_many(mems)))
    except rtl.SynthesisError as error:
        raise KernelError(Coord(report.kernel.path), f"--synth: {error}") from None


def _dump_maps(report: Report) -> dict[str, Callable[[BinaryIO], None]]:
    out = {}
    for sol in report.solution.arrays:
        scheme = sol.banking.scheme
        if scheme.size > MAX_DUMP_ELEMENTS:
            raise KernelError(sol.array.coord,
                              f"--dump-maps: array {sol.array.name} has {scheme.size} "
                              f"elements, over the limit of {MAX_DUMP_ELEMENTS}")
        out[sol.array.name] = partial(_write_npz, scheme)
    return out


def _write_npz(scheme, stream: BinaryIO) -> None:
    """``np.savez`` of the scheme's ``bank`` and ``offset`` maps, byte-identical from
    run to run (``np.savez`` stamps each member with the current time).  Each member
    is written a slab of :data:`DUMP_SLAB_ELEMENTS` elements at a time (the maps are
    evaluated per slab, twice: once per member), so memory does not grow with the
    array."""
    header = {"descr": np.lib.format.dtype_to_descr(np.dtype(np.int64)),
              "fortran_order": False, "shape": tuple(scheme.shape)}
    with zipfile.ZipFile(stream, "w", zipfile.ZIP_STORED, allowZip64=True) as archive:
        for which, name in enumerate(("bank", "offset")):
            member = zipfile.ZipInfo(f"{name}.npy", date_time=NPZ_TIMESTAMP)
            with archive.open(member, "w", force_zip64=True) as entry:
                np.lib.format.write_array_header_1_0(entry, header)
                for rows in scheme.slabs(DUMP_SLAB_ELEMENTS):
                    values = scheme.maps(rows)[which]
                    entry.write(np.ascontiguousarray(values, dtype="<i8").tobytes())


def default_outdir(path: str | os.PathLike) -> Path:
    return Path("build") / Path(path).stem


def write_project(compiled: Compiled, outdir: str | os.PathLike, *,
                  force: bool = False) -> Path:
    """Write every file into ``outdir``, whole or not at all, touching only arraypart's
    own files there (see :mod:`arraypart.output`); ``force`` writes into a folder that
    holds other files too (they stay)."""
    files: dict[str, output.Content] = {name: text.encode(errors=KEEP_BYTES)
                                        for name, text in compiled.files.items()}
    files.update({f"maps/{array}.npz": data for array, data in compiled.maps.items()})
    return output.write_tree(files, outdir, force=force)
