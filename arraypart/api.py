"""The Python API: the passes chained, and the compiled project written atomically.

    frontend.parse_kernel -> poly.build_model -> banking.solve -> codegen.emit / check

``analyze`` and ``compile_kernel`` raise :class:`arraypart.KernelError` (with file, line
and column) on bad input and return a :class:`Report`.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

import numpy as np

from . import banking, check, codegen, frontend, poly, rtl
from .errors import Coord, KernelError
from .report import Report

#: ``--dump-maps`` refuses arrays above this many elements: two int64 maps of 2^24
#: elements are 256 MiB, about what a user expects a dump to cost at most.
MAX_DUMP_ELEMENTS = 1 << 24


@dataclass(frozen=True)
class Options:
    """Every option of ``analyze`` / ``compile`` / ``check`` (DESIGN §4)."""

    top: str | None = None
    ports: int = 2
    max_banks: int = 64
    schemes: str = "all"
    defines: tuple[tuple[str, int], ...] = ()
    replace_partitions: bool = False
    time_limit: float = 30.0
    part: str = codegen.DEFAULT_PART
    clock_ns: float = codegen.DEFAULT_CLOCK_NS
    dump_maps: bool = False
    synth: bool = False

    def __post_init__(self):
        if self.ports not in (1, 2):
            raise ValueError(f"--ports must be 1 or 2, not {self.ports}")
        if self.max_banks < 1:
            raise ValueError(f"--max-banks must be at least 1, not {self.max_banks}")
        if self.schemes not in ("all", "vitis"):
            raise ValueError(f"--schemes must be all or vitis, not {self.schemes!r}")
        if not self.time_limit > 0:
            raise ValueError(f"--time-limit must be positive, not {self.time_limit}")
        if not self.clock_ns > 0:
            raise ValueError(f"--clock must be positive, not {self.clock_ns}")


@dataclass(frozen=True, eq=False)
class Compiled:
    """What ``compile_kernel`` produced: the report and every emitted file's text
    (``maps`` holds the ``.npz`` bytes of ``--dump-maps``, by array name)."""

    report: Report
    files: dict[str, str]
    maps: dict[str, bytes] = field(default_factory=dict)


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
    """``analyze`` plus the emitted HLS project (texts only; see :func:`write_project`)."""
    opts = _options(options, overrides)
    report, files = _run(path, opts, progress)
    if opts.synth:
        report = replace(report, measured=_synthesized(report))
    files["report.json"] = json.dumps(report.to_json(), indent=2) + "\n"
    maps = _dump_maps(report) if opts.dump_maps else {}
    return Compiled(report, files, maps)


def _run(path: str | os.PathLike, opts: Options,
         progress: Progress | None) -> tuple[Report, dict[str, str]]:
    """The passes: the kernel banked, emitted, and the emitted kernel parsed back and
    checked under the scheduling rule (DESIGN §2)."""
    kernel = frontend.parse_kernel(path, defines=dict(opts.defines), top=opts.top)
    model = poly.build_model(kernel, ports=opts.ports)
    solution = banking.solve(model, max_banks=opts.max_banks, schemes=opts.schemes,
                             time_limit=opts.time_limit,
                             replace_partitions=opts.replace_partitions, progress=progress)
    files = codegen.emit(kernel, solution, part=opts.part, clock_ns=opts.clock_ns)
    scheduled = schedule_emitted(kernel, files, opts.ports)
    crossbars = codegen.crossbars(kernel, solution)
    return Report(kernel, model, solution, scheduled, crossbars), files


def schedule_emitted(kernel, files: dict[str, str], ports: int) -> check.CheckReport:
    """The emitted kernel, read back by the front end, under the scheduling rule with
    the banking its own pragmas and bank arrays describe."""
    name = f"{kernel.name}.cpp"
    emitted = frontend.parse_source(files[name], name, top=kernel.top)
    return check.check_kernel(emitted, check.as_written_bankings(emitted), ports=ports,
                              rule=True)


def check_kernel(path: str | os.PathLike, options: Options | None = None, *,
                 as_written: bool = False, progress: Progress | None = None, **overrides):
    """The cycle-level checker on arraypart's banking, or with ``as_written`` on the
    banking the kernel's own pragmas describe.  Returns ``(report, bankings,
    check_report)``: arraypart's report (to say what it would do instead), the bankings
    checked, and the checker's verdict."""
    opts = _options(options, overrides)
    report = analyze(path, opts, progress=progress)
    if not as_written:
        return report, report.solution.bankings(), report.scheduled
    bankings = check.as_written_bankings(report.kernel)
    return report, bankings, check.check_kernel(report.kernel, bankings, ports=opts.ports,
                                                rule=True)


def _synthesized(report: Report) -> dict[str, rtl.Resources]:
    """yosys' resources of every array's RTL model (``compile --synth``)."""
    names = [a.array.name for a in report.solution.arrays]
    mems = [rtl.memory(report.model.array(a.array.name), a.banking)
            for a in report.solution.arrays]
    try:
        return dict(zip(names, rtl.synthesize_many(mems)))
    except rtl.SynthesisError as error:
        raise KernelError(Coord(report.kernel.path), f"--synth: {error}") from None


def _dump_maps(report: Report) -> dict[str, bytes]:
    out = {}
    for sol in report.solution.arrays:
        scheme = sol.banking.scheme
        if scheme.size > MAX_DUMP_ELEMENTS:
            raise KernelError(sol.array.coord,
                              f"--dump-maps: array {sol.array.name} has {scheme.size} "
                              f"elements, over the limit of {MAX_DUMP_ELEMENTS}")
        bank, offset = scheme.maps()
        buffer = io.BytesIO()
        np.savez(buffer, bank=bank, offset=offset)
        out[sol.array.name] = buffer.getvalue()
    return out


def default_outdir(path: str | os.PathLike) -> Path:
    return Path("build") / Path(path).stem


def write_project(compiled: Compiled, outdir: str | os.PathLike) -> Path:
    """Write every file into ``outdir`` whole or not at all.

    Files go to a temporary sibling directory first, which then replaces ``outdir``
    by rename; on any failure (Ctrl-C included) the temporary directory is removed and
    an existing ``outdir`` is left as it was.
    """
    target = Path(outdir).resolve()
    if target.exists() and not target.is_dir():
        raise KernelError(Coord(str(outdir)), "the output path exists and is not a directory")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    except OSError as error:
        raise KernelError(Coord(str(outdir)), f"cannot write the output here: "
                                              f"{error.strerror or error}") from None
    backup = target.parent / f"{staging.name}.old"
    try:
        for name, text in compiled.files.items():
            (staging / name).write_text(text)
        if compiled.maps:
            (staging / "maps").mkdir()
            for array, data in compiled.maps.items():
                (staging / "maps" / f"{array}.npz").write_bytes(data)
        if target.exists():
            os.replace(target, backup)
        os.replace(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        if backup.exists() and not target.exists():
            os.replace(backup, target)
        raise
    shutil.rmtree(backup, ignore_errors=True)
    return target

