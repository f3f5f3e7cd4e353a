"""Shared fixtures: the kernel suite and tool availability."""

import importlib.util
import shutil
import signal
import subprocess
import sys
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from textwrap import dedent

import os

import pytest
from hypothesis import Phase, settings

import arraypart
from arraypart import api
from arraypart.check import trace
from arraypart.frontend import clangtu

# The long fuzzing runs, behind these variables (README, "Tests"), report a failure
# as found, unshrunk: shrinking a kernel re-runs the compiler and g++ for each
# smaller candidate, and could take longer than the run itself.  The default run
# (few examples, derandomized) shrinks as Hypothesis does.
LONG_FUZZING = ("ARRAYPART_EXAMPLES", "ARRAYPART_FUZZ_EXAMPLES", "ARRAYPART_TRACE_EXAMPLES")
settings.register_profile("arraypart", phases=tuple(
    p for p in Phase if p != Phase.shrink or not any(v in os.environ for v in LONG_FUZZING)))
settings.load_profile("arraypart")

# The files that take longest (`--durations=0`, 2026-12-08), collected first: xdist's
# loadfile hands whole files to its workers in collection order, and a long file
# handed out last keeps one worker busy while the other idles (longest first keeps the
# two within a few seconds; alphabetical order cost about 10 s on 2 cores).
LONGEST_FILES = ("test_real_semantics.py", "test_trace.py", "test_c_conversions.py",
                 "test_search.py", "test_end_to_end.py", "test_interfaces_and_sizes.py",
                 "test_forwarding.py", "test_schedule_rule.py", "test_fuzz_pipeline.py",
                 "test_interruptible.py", "test_branch_paths.py", "test_phases.py")


def pytest_collection_modifyitems(items):
    rank = {name: n for n, name in enumerate(LONGEST_FILES)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))


ROOT = Path(__file__).resolve().parent.parent
STANDINS = ROOT / "arraypart" / "include"
KERNELS = sorted((ROOT / "kernels").glob("*.c"))
HAVE_GXX = shutil.which("g++") is not None
HAVE_IVERILOG = shutil.which("iverilog") is not None and shutil.which("vvp") is not None
HAVE_YOSYS = shutil.which("yosys") is not None

needs_gxx = pytest.mark.skipif(not HAVE_GXX, reason="g++ is not installed")
needs_iverilog = pytest.mark.skipif(not HAVE_IVERILOG, reason="iverilog is not installed")
needs_yosys = pytest.mark.skipif(not HAVE_YOSYS, reason="yosys is not installed")


@contextmanager
def alarm(seconds: float):
    """Raise ``TimeoutError`` if the block runs longer than ``seconds`` (a hang)."""
    def expire(signum, frame):
        raise TimeoutError(f"no answer after {seconds} s")
    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def bench_module(name: str):
    """The script ``bench/<name>.py`` as a module (the benchmarks are not part of the
    package), registered under ``name``: dataclasses and worker processes look it up
    by its name."""
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def write(tmp_path: Path, name: str, text: str) -> Path:
    """``text`` written to ``tmp_path / name``; the path."""
    path = tmp_path / name
    path.write_text(text)
    return path


# The passes of ``analyze`` and ``compile`` (``api._run``: the report and the emitted
# files) by kernel path, file text and options, run once per test process (each xdist
# worker is one) for the tests that share them: see _run_once.
_PASSES = api._run
_RUNS: dict[tuple[str, bytes, str], tuple] = {}


def _run_once(path, opts, progress):
    """``api._run``, made once per test process for each path, file text and options;
    each call gets its own copy of the dicts (the emitted files, the report's
    ``crossbars`` and ``measured``): a test that edits them edits a copy; the rest of
    the report is frozen."""
    try:
        key = (str(path), Path(path).read_bytes(), repr(opts))
    except OSError:  # the passes say what is wrong with the path
        return _PASSES(path, opts, progress)
    if key not in _RUNS:
        _RUNS[key] = _PASSES(path, opts, progress)
    report, files = _RUNS[key]
    return replace(report, crossbars=dict(report.crossbars),
                   measured=dict(report.measured)), dict(files)


@pytest.fixture
def analyses_shared(monkeypatch):
    """The test's ``analyze``, ``compile`` and ``check`` runs, through the API or the
    command line, share their passes with every other such run on the same file text
    and options (:func:`_run_once`): a check through the API and ``check --trace`` on
    the command line, say, analyse the kernel once; all that follows runs as usual.
    Only for tests that patch nothing the passes run."""
    monkeypatch.setattr(api, "_run", _run_once)


def compiled_file(path, **options):
    """``arraypart.compile_kernel(path, **options)`` on passes made once per test
    process (:func:`_run_once`): every module that asserts on one kernel's model,
    report or emitted files, or builds it, shares one analysis (``analyze``'s report
    is the compile's)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(api, "_run", _run_once)
        return arraypart.compile_kernel(path, **options)


def suite_kernel(name: str, **options):
    """:func:`compiled_file` of the suite kernel ``kernels/<name>.c``."""
    return compiled_file(ROOT / "kernels" / f"{name}.c", **options)


@pytest.fixture(scope="session")
def compiled_once(tmp_path_factory):
    """``compiled_once(filename, text, **options)``: :func:`compiled_file` of ``text``
    (dedented) written as ``filename`` in a folder of its own, written once per test
    process for each filename and text (the folder is read only: a test writes its
    project under its own ``tmp_path``)."""
    written = {}

    def compile_once(filename: str, text: str, **options):
        text = dedent(text)
        if (filename, text) not in written:
            folder = tmp_path_factory.mktemp(Path(filename).stem)
            written[filename, text] = write(folder, filename, text)
        return compiled_file(written[filename, text], **options)
    return compile_once


def array(report, name):
    """The solution of array ``name`` in ``report``."""
    return next(a for a in report.solution.arrays if a.array.name == name)


def searched(report, name):
    """The banking pass's own answer for array ``name`` of ``report``'s model: what the
    search proves in the ideal port model, before the scheduling rule on the emitted
    code sets aside banks that lower no loop's II (``api._without_idle_banks``)."""
    from arraypart import banking
    return next(a for a in banking.solve(report.model).arrays if a.array.name == name)


#: g++'s flags for an emitted kernel and its testbench: C simulation's, which Vitis
#: compiles unoptimized unless asked (``csim_design -O``).  The build only has to compute
#: the right answer, which -O0 builds in two thirds of -O1's time (a kernel without headers).
TESTBENCH_FLAGS = ("-std=c++14", "-O0", "-w")


def run_testbench(compiled, tmp_path: Path,
                  flags: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    """The compiled project written under ``tmp_path``, its kernel and testbench built
    with g++ and ``flags`` (which must succeed; the kernel's own folder on the include
    path, as in run_hls.tcl) and run."""
    outdir = arraypart.write_project(compiled, tmp_path / "out")
    folder = Path(compiled.report.kernel.path).resolve().parent
    return run_testbench_in(outdir, compiled.report.kernel.name, tmp_path, flags, folder)


def run_testbench_in(outdir: Path, name: str, tmp_path: Path, flags: tuple[str, ...] = (),
                     folder: Path | None = None) -> subprocess.CompletedProcess:
    """The project ``outdir`` holds for kernel ``name``: its kernel and testbench built
    with g++ (:data:`TESTBENCH_FLAGS` and ``flags``, the stand-in headers and then
    ``folder`` on the include path; the build must succeed) into ``tmp_path`` and run."""
    binary = tmp_path / "tb"
    folders = [f"-I{folder}"] if folder is not None else []
    build = subprocess.run(
        ["g++", *TESTBENCH_FLAGS, *flags, f"-I{STANDINS}", *folders, "-o", str(binary),
         str(outdir / f"{name}.cpp"), str(outdir / f"{name}_tb.cpp"), "-lm"],
        capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-3000:]
    return subprocess.run([str(binary)], capture_output=True, text=True, timeout=120)


def assert_the_testbench_passes(compiled, tmp_path: Path) -> None:
    """:func:`run_testbench`, which must print PASS: the banked kernel computes what
    the original does in every call."""
    run = run_testbench(compiled, tmp_path)
    assert run.returncode == 0 and "PASS" in run.stdout, run.stdout[-3000:]


def judged_trace(compiled, tmp_path: Path, *, ports: int = 2,
                 defines: dict[str, int] | None = None):
    """check --trace on the compiled kernel (read with ``defines``), as
    :func:`arraypart.api.trace_kernel` judges it without analysing the kernel again:
    the original, built and run on the testbench's inputs in ``tmp_path``, replayed
    against the banking as emitted."""
    options = clangtu.Options(tuple(sorted((defines or {}).items())))
    recorded = trace.record(compiled.report.kernel, options, tmp_path,
                            compiled.report.solution.emitted_bankings())
    return api.judge_trace(compiled.report, recorded, ports=ports)


def assert_the_trace_agrees(compiled, tmp_path: Path, *, ports: int):
    """check --trace: the original, run on the testbench's inputs, makes the accesses
    the model predicts; the judgement, for further assertions."""
    judged = judged_trace(compiled, tmp_path, ports=ports)
    assert judged.disagreements == () and judged.addresses.compared, judged.format()
    return judged


# A pipelined loop whose lane 3 reads buf[4i + 5], which lane 0 writes in the same
# iteration: its reads cannot move above its writes, so its references stay as written.
CHAINED_LANES = """\
void chained(const int in[72], int out[72]) {
    int buf[72];
    for (int i = 0; i < 72; i++) buf[i] = in[i];
    for (int i = 0; i < 16; i++) {
#pragma HLS pipeline II=1
        for (int u = 0; u < 4; u++) {
#pragma HLS unroll
            buf[4 * i + u + 5] = buf[4 * i + u] + buf[4 * i + u + 2];
        }
    }
    for (int i = 0; i < 72; i++) out[i] = buf[i];
}
"""
