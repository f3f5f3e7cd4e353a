"""Interruptible at any moment (issue 13, point 4): Ctrl-C, SIGTERM and the time limit
end a run within about a second even inside one long isl call, which holds the GIL
(arraypart.supervisor).  Bounded waits only, no assertions on speed."""

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time

import islpy as isl
import pytest

from arraypart import api
from arraypart.banking import Found
from arraypart.poly.isl_glue import each_point
from arraypart.scheme import Banking, none_scheme

from conftest import alarm, bench_module

bounded = bench_module("bounded")

pytestmark = pytest.mark.skipif(not os.path.exists("/proc/self/status"),
                                reason="needs Linux /proc")

#: How long a stopped run may take to end: generous for a loaded machine, and far
#: below the minute the isl call of bench/bounded.py's ``coupled(6, 60)`` takes.
STOP_BOUND_S = 20
#: How long a run under ``--time-limit 1`` may take in all: the import, and the model's
#: CPU-time floor (:data:`arraypart.limits.STAGE_FLOOR_S`) at a loaded machine's pace.
LIMITED_RUN_BOUND_S = 40
#: The worker's CPU time when the signal is sent: it has imported the passes and read
#: the kernel (about a second of CPU time), and is inside the isl count.  CPU time, not
#: the wall clock: on a loaded machine a fixed wait may end before the count begins.
SIGNAL_AT_CPU_S = 1.5


def handlers_installed(pid):
    """Whether process ``pid`` catches SIGTERM yet (its supervisor has started)."""
    with open(f"/proc/{pid}/status") as status:
        caught = next(line for line in status if line.startswith("SigCgt:"))
    return bool(int(caught.split()[1], 16) >> (signal.SIGTERM - 1) & 1)


def start(args, **options):
    process = subprocess.Popen([sys.executable, "-m", "arraypart", *map(str, args)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, **options)
    with alarm(30):
        while process.poll() is None and not handlers_installed(process.pid):
            time.sleep(0.001)
    return process


def finish(process, bound: float = STOP_BOUND_S) -> tuple[int, str]:
    _, err = process.communicate(timeout=bound)
    return process.returncode, err.decode()


@pytest.fixture
def nest(tmp_path):
    path = tmp_path / "coupled.c"
    path.write_text(bounded.coupled(6, 60))
    return path


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_inside_a_long_isl_call_ends_the_run(nest, tmp_path, signum):
    """Sent while isl counts the nest: status 128 + signal, the usual message, no
    traceback, and the output folder as it was (no staging folder left)."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("the user's")
    process = start(["compile", nest, "-o", out, "--force"])
    worker = None
    with alarm(60):
        while process.poll() is None and (worker is None
                                          or _cpu_seconds(worker) < SIGNAL_AT_CPU_S):
            worker = worker or _child(process.pid)
            time.sleep(0.02)
    process.send_signal(signum)
    code, err = finish(process)
    assert code == 128 + signum, err
    assert err.strip().endswith("arraypart: interrupted; nothing was written")
    assert "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["coupled.c", "out"]
    assert [p.name for p in out.iterdir()] == ["keep.txt"]


def test_the_time_limit_ends_a_long_isl_call(nest):
    """The model's deadline passes inside the count: exit 1 (a time limit is a missed
    goal, never bad input) with the stage and the kernel named."""
    code, err = finish(start(["analyze", nest, "--time-limit", "1"]), LIMITED_RUN_BOUND_S)
    assert code == 1, err
    assert f"arraypart: {nest}: time limit of " in err
    assert "reached while building the polyhedral model" in err
    assert "Traceback" not in err


SUPERVISED = textwrap.dedent("""
    import os, signal, sys, tempfile, time
    from arraypart import interrupts, supervisor

    def work(resume):
        interrupts.install(once=True)
        supervisor.unblock()
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # deaf, as inside an isl call
        scratch = tempfile.mkdtemp()  # the worker's own temporary files
        if sys.argv[1] == "write":
            with supervisor.unkillable():
                print(scratch, flush=True)
                time.sleep(2)
                open(os.path.join(scratch, "written"), "w").close()
        else:
            print(scratch, flush=True)
            time.sleep(30)
        return 0

    sys.exit(supervisor.supervise(work))
""")


@pytest.mark.parametrize("phase", ["work", "write"])
def test_a_deaf_worker_is_killed_unless_it_writes_the_output(phase):
    """A worker that does not answer a signal is killed (128 + signal, a message),
    except once it was granted the output folder: it then finishes its writing.
    Its temporary files go either way."""
    process = subprocess.Popen([sys.executable, "-c", SUPERVISED, phase],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    with alarm(30):
        scratch = process.stdout.readline().strip().decode()
    assert os.path.basename(os.path.dirname(scratch)).startswith("arraypart-")
    process.send_signal(signal.SIGINT)
    code, err = finish(process)
    assert not os.path.exists(os.path.dirname(scratch))
    if phase == "write":
        assert code == 0 and err == ""
    else:
        assert code == 130 and err == "arraypart: interrupted; nothing was written\n"


def state(pid: int) -> str:
    """Process ``pid``'s state letter (``T``: stopped)."""
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().rsplit(")", 1)[1].split()[0]


def wait_for(condition) -> None:
    with alarm(STOP_BOUND_S):
        while not condition():
            time.sleep(0.01)


def test_ctrl_z_stops_the_worker_too_and_continuing_continues_both():
    """SIGTSTP to the supervisor (what Ctrl-Z sends to its process group, which the
    worker has left) stops the worker's group, then the supervisor; SIGCONT to the
    supervisor (what ``fg`` sends) continues both."""
    process = subprocess.Popen([sys.executable, "-c", SUPERVISED, "work"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    with alarm(30):
        process.stdout.readline()
    [worker] = (int(pid) for pid in os.listdir("/proc")
                if pid.isdigit() and _parent(int(pid)) == process.pid)
    assert os.getpgid(worker) == worker
    process.send_signal(signal.SIGTSTP)
    wait_for(lambda: state(worker) == "T" and state(process.pid) == "T")
    process.send_signal(signal.SIGCONT)
    wait_for(lambda: state(worker) != "T" and state(process.pid) != "T")
    process.send_signal(signal.SIGINT)
    assert finish(process)[0] == 130


@pytest.mark.parametrize("phase", ["work", "write"])
def test_a_worker_ends_with_its_killed_supervisor_unless_it_writes_the_output(phase):
    """SIGKILL to the supervisor (a harness's timeout), which no handler sees: the
    worker does not run on unwatched (the kernel kills it), except once it was
    granted the output folder: it then finishes its writing."""
    process = subprocess.Popen([sys.executable, "-c", SUPERVISED, phase],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    with alarm(30):
        scratch = process.stdout.readline().strip().decode()
    [worker] = (int(pid) for pid in os.listdir("/proc")
                if pid.isdigit() and _parent(int(pid)) == process.pid)
    process.kill()
    process.wait()  # not communicate(): the worker holds the pipes' write ends
    process.stdout.close()
    process.stderr.close()
    wait_for(lambda: _ended(worker))
    assert os.path.exists(os.path.join(scratch, "written")) == (phase == "write")
    shutil.rmtree(os.path.dirname(scratch), ignore_errors=True)


def _ended(pid: int) -> bool:
    """Process ``pid`` is gone or a zombie (its new parent may not reap it)."""
    try:
        return state(pid) == "Z"
    except OSError:
        return True


def _child(pid: int) -> int | None:
    """A child of process ``pid`` (the supervisor's worker), None while it has none."""
    return next((int(p) for p in os.listdir("/proc")
                 if p.isdigit() and _parent(int(p)) == pid), None)


def _cpu_seconds(pid: int) -> float:
    """The CPU time process ``pid`` has used (user and system; 0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _parent(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return int(stat.read().rsplit(")", 1)[1].split()[1])
    except OSError:
        return None  # it has ended meanwhile


def test_a_solver_winding_down_past_its_deadline_is_not_killed(tmp_path):
    """Past the solver's deadline every remaining array is banked as one memory, in
    Python between isl calls: that is progress, not a stuck call, and ends in the
    report of a time limit (exit 1), however long the arrays take together."""
    path = tmp_path / "sep.c"
    path.write_text(bounded.many_arrays(300))
    code, err = finish(start(["analyze", path, "--time-limit", "0.01"]),
                       LIMITED_RUN_BOUND_S)
    assert code == 1, err
    assert "proven by counting" in err and "nothing was written" not in err


RESUMED = textwrap.dedent("""
    import sys, time
    from arraypart import interrupts, limits, supervisor

    def work(resume):
        interrupts.install(once=True)
        supervisor.unblock()
        if resume is not None:
            print(resume.stage, resume.values(), flush=True)
        supervisor.keep("x", 41)
        supervisor.keep("x", 42)  # replaces 41
        with limits.stage("searching", limits.Deadline.after(0.01), "k.c",
                          resumable=True):
            time.sleep(30)  # stands in for one isl call that does not return in time
        return 0

    sys.exit(supervisor.supervise(work))
""")


def test_a_worker_killed_in_a_resumable_stage_is_resumed_once_with_what_it_kept():
    """The stage runs past its deadline and grace: a fresh worker gets the last value
    kept under each key; when it is stuck too, the run ends as any stuck run does."""
    done = subprocess.run([sys.executable, "-c", RESUMED], capture_output=True,
                          text=True, timeout=STOP_BOUND_S)
    code, err = done.returncode, done.stderr
    assert code == 1, err
    assert done.stdout == "searching {'x': 42}\n"
    first, second = err.splitlines()
    assert first.endswith("; finishing with the best it had found")
    assert second.endswith("; nothing was written (--time-limit S gives it more time)")


STUCK_SOLVER = textwrap.dedent("""
    import sys, time
    from arraypart import launch
    from arraypart.banking.search import Search

    refine = Search._refine

    def stuck(self, best):
        if self.am.array.name == "b":
            time.sleep(600)  # stands in for one isl call that does not return in time
        return refine(self, best)

    Search._refine = stuck
    launch.main()
""")

#: ``b`` needs three single-port banks: its search proves cyclic 3 in its first tier,
#: then hangs in the refinement (``STUCK_SOLVER``); ``a`` and the interfaces are done.
TWO_ARRAYS = """void two(int in[64], int out[64]) {
  int a[64];
  int b[64];
  for (int i = 0; i < 64; i++) {
    a[i] = in[i];
    b[i] = in[i];
  }
  for (int i = 0; i < 62; i++) {
#pragma HLS pipeline II=1
    out[i] = a[i] + b[i] + b[i + 1] + b[i + 2];
  }
}
"""


def test_a_solver_killed_inside_one_call_still_writes_its_best_banking(tmp_path):
    """Issue 13 point 5: the supervisor kills the solver stuck past its deadline and
    a fresh worker compiles with the bankings found by then, proven again: exit 1,
    the output whole, the report holding b's banking (proven) and the loops' II, and
    a warning naming the stage."""
    path = tmp_path / "two.c"
    path.write_text(TWO_ARRAYS)
    out = tmp_path / "out"
    process = subprocess.Popen([sys.executable, "-c", STUCK_SOLVER, "compile", path, "-o",
                                out, "--ports", "1", "--time-limit", "1"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    code, err = finish(process, LIMITED_RUN_BOUND_S)
    assert code == 1, err
    assert "reached while banking the arrays (inside one call that cannot be " \
           "interrupted); finishing with the best it had found" in err
    assert "Traceback" not in err
    report = json.loads((out / "report.json").read_text())
    b = next(a for a in report["arrays"] if a["name"] == "b")
    assert (b["scheme"]["kind"], b["banks"], b["conflict_free"]) == ("per_dim", 3, True)
    assert [loop["achieved_ii"] for loop in report["loops"]] == [1, 1]
    assert report["time_limit_reached"] is True
    [warning] = [w for w in report["warnings"] if "while banking b:" in w]
    assert "solver time limit of 1 s reached inside one call that cannot be " \
           "interrupted while banking b: it keeps per_dim cyclic 3" in warning
    assert "the best banking found when time ran out, proven again" in warning
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "two.c"]


def test_a_resumed_run_proves_the_bankings_it_is_handed_again(tmp_path):
    """Nothing unproven is reported: a banking handed over as the best found (here
    one memory for b, which needs three single-port banks) is proven again, and its
    conflict shows; the run counts as time-limited."""
    path = tmp_path / "two.c"
    path.write_text(TWO_ARRAYS)
    one_memory = Banking("b", none_scheme((64,)))
    report = api.analyze(path, ports=1, best_found=(Found(one_memory, complete=True),))
    b = next(a for a in report.solution.arrays if a.array.name == "b")
    assert b.banking == one_memory and not b.conflict_free
    assert dict(b.achieved_ii)["L8"] == 3
    assert report.time_limited and not report.goals_met


def test_an_interruption_inside_an_isl_point_walk_stays_an_interruption(capfd):
    """islpy turns an exception raised in a callback into a failed isl call: a Ctrl-C
    that landed while isl walked a set's points ended the run as an internal error
    (exit 3, not 130; seen with ``python bench/bounded.py --case syr2k4096
    --interrupt 3``).  islpy also printed its traceback, which a fresh-clone CI run
    caught in the output of an interrupted compile."""
    seen = []

    def take(point):
        seen.append(point)
        if len(seen) == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        each_point(isl.Set("{ [i] : 0 <= i < 100 }"), take)
    assert len(seen) == 3
    assert "Traceback" not in capfd.readouterr().err


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_while_the_supervisor_is_imported_ends_without_a_traceback(signum):
    """The console script installs its handlers as its first statement: a Ctrl-C
    some 70 ms after start, while the supervisor was being imported, printed a
    traceback (the issue-13 audit).  Here the signal comes right after that import,
    before any handler of the supervisor's own is installed."""
    code = ("import os, signal, time\n"
            "import arraypart.launch\n"
            f"os.kill(os.getpid(), {int(signum)})\n"
            "time.sleep(5)\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 128 + signum
    assert "Traceback" not in run.stderr
    assert run.stderr.startswith("arraypart: interrupted before the run began")


def test_a_sigint_the_caller_ignores_stays_ignored(tmp_path):
    """bash starts a script's background jobs with SIGINT ignored; the handlers the
    console script installs first replaced that, and such a run was killed by a
    Ctrl-C meant for the script (probe 25c, item 9)."""
    code = ("import os, signal, sys\n"
            "import arraypart.launch\n"
            "os.kill(os.getpid(), signal.SIGINT)\n"
            "sys.exit(7)\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    assert run.returncode == 7 and run.stderr == ""
