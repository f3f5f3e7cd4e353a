"""The console script's supervisor: a run that stops within a second at any moment.

islpy holds the GIL inside isl (as clang does inside a parse and the front end while
interruptions are held back), so a Python signal handler runs only when the call
returns: minutes later for a deep nest.  A thread cannot help (it needs the GIL too),
and isl's own operation quota is unsound here (measured: ``count_val`` under a quota
returns a wrong count, no error).  So the command runs in a forked *worker* and this
process, which never enters isl, clang or numpy, watches it:

- SIGINT, SIGTERM or SIGHUP is passed on to the worker, which ends as an interrupted
  run does (message, status 128 + signal).  When it has not ended
  :data:`SIGNAL_GRACE_S` later (it is inside one long call), it is killed and this
  process says "interrupted; nothing was written" and exits 128 + signal.
- A stage the worker announced (:func:`arraypart.limits.stage`) that runs its grace
  (:data:`DEADLINE_GRACE_S`, or a quarter of a longer limit) past its deadline, or
  past its last sign of life (:func:`alive`) once the deadline has passed, is inside
  one call the stage's own checks cannot see into: it is killed the same way, exit 1,
  stage and kernel named.
- A stage announced as *resumable* (the solver) keeps its best results with this
  process as it finds them (:func:`keep`).  When such a stage must be killed, a fresh
  worker runs the command again, once, handed what the killed one kept
  (:class:`Resume`); the solver then proves and emits those results without a search.
- The worker writes the output folder only once this process has granted it
  (:func:`unkillable`); from then on the worker is never killed, so the output folder
  holds the old output or the new one (:mod:`arraypart.output`).
- When this process is killed outright (SIGKILL, which no handler sees), the kernel
  kills the worker too, unless it was granted the output, which it then finishes.
- The worker leads a process group of its own (with the compilers it starts): a kill
  takes them all, and SIGTSTP (Ctrl-Z, which the terminal sends to this process's
  group only) stops the worker's group before this process stops itself; when this
  process is continued it continues the worker's group.

Invariant: the worker is killed only before it was granted the output, so a killed
worker leaves nothing in the output folder; a resumed worker writes only what it
proved itself.  Its announcements are JSON lines on a pipe; the grant is one byte on
another.  Cost: one fork of a process that has not
imported the passes yet (12 ms measured with fork, exit and wait on a loaded 2-core
machine, where a whole ``analyze`` of a suite kernel takes about 2.5 s).
"""

from __future__ import annotations

import base64
import ctypes
import json
import os
import pickle
import select
import shutil
import signal
import sys
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from typing import Callable, NoReturn

_PR_SET_PDEATHSIG = 1  # prctl(2)
#: How long the worker may take to end after a signal was passed on: a Python-level
#: handler runs within milliseconds, so a worker still running is inside one call.
SIGNAL_GRACE_S = 0.5
#: How long past a stage's deadline the worker may run: the stage's own checks stop
#: it within one piece of work and then keep what is proven (the solver's best
#: banking), which is worth a little more time than a signal's stop.
DEADLINE_GRACE_S = 1.0
#: ... and at least this share of the stage's own limit: a stage's checks run between
#: pieces of work that grow with the input (a chunk of the replay, one isl proof), and
#: a stage that stops itself keeps its work (the solver's proven banking, the emitted
#: code with a warning that the rule check was cut short) where a kill keeps nothing.
DEADLINE_GRACE_SHARE = 0.25
#: How often the watch looks at the clocks while nothing else happens.
POLL_S = 0.05
#: The signals passed on to the worker (the same as :data:`arraypart.interrupts.HANDLED`,
#: which imports nothing heavy either, but this module must not import the passes).
FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
GRANT = b"K"
#: The exit status of a run the time limit ended (DESIGN §4: a missed goal).
EXIT_TIME_LIMIT = 1
EXIT_INTERNAL = 3

#: In the worker, its two pipe ends (announcements out, the grant in); None in any
#: other process (the API in a user's program, the test suite): every hook is then a
#: no-op.  Module state because a fork gives one worker one channel for its life.
_channel: _Channel | None = None


@dataclass
class _Channel:
    out: int
    grant: int
    granted: bool = False


@dataclass(frozen=True)
class Resume:
    """What a worker killed inside the resumable stage ``stage`` (of ``seconds``
    seconds) had kept (:func:`keep`): by key, each value pickled and base64-encoded.
    The values pass through the supervisor opaque (it must not import the classes they
    belong to); pickle is safe here since they go from one fork of this program to
    another, never across a trust boundary."""

    stage: str
    seconds: float
    kept: tuple[tuple[str, str], ...] = ()

    def values(self) -> dict[str, object]:
        """The kept values, by key (in a worker, which has the classes imported)."""
        return {key: pickle.loads(base64.b64decode(data)) for key, data in self.kept}


def announce(message: dict) -> None:
    """Tell the supervisor ``message`` (no-op without one)."""
    if _channel is not None:
        os.write(_channel.out, (json.dumps(message) + "\n").encode())


def alive() -> None:
    """Tell the supervisor that the current stage is back in Python between bounded
    pieces of work: past its deadline it is winding down (the solver banking each
    remaining array as one memory), not stuck, so the grace counts from now."""
    announce({"alive": True})


def keep(key: str, value: object) -> None:
    """Tell the supervisor ``value`` (picklable), the best result so far under
    ``key``, which replaces an earlier one: a worker resumed after this one was killed
    inside a resumable stage gets it (:class:`Resume`).  No-op without a supervisor."""
    if _channel is not None:
        data = base64.b64encode(pickle.dumps(value)).decode("ascii")
        announce({"keep": key, "value": data})


@contextmanager
def unkillable():
    """Run the block (the writing of the output folder) only once the supervisor has
    promised never to kill this worker; it may kill it while the promise is awaited,
    which is before anything was written.  No-op without a supervisor."""
    if _channel is not None and not _channel.granted:
        announce({"write": True})
        if os.read(_channel.grant, 1) != GRANT:
            raise KeyboardInterrupt  # the supervisor is gone: nobody waits for us
        _channel.granted = True
        _parent_death_signal(0)  # the writing ends even if the supervisor does not
    yield


def supervise(work: Callable[[Resume | None], int]) -> int:
    """Run ``work(None)`` in a forked worker and return its exit status (in this
    process; the worker never returns from here), or the status of ``work(resume)``
    in a second worker when the first was killed inside a resumable stage.  The
    worker's temporary files (``check --trace``'s g++ builds, yosys runs) go to a
    folder this process removes when the workers have ended, killed or not."""
    scratch = tempfile.mkdtemp(prefix="arraypart-")
    signal.pthread_sigmask(signal.SIG_BLOCK, FORWARDED)
    try:
        return _Watch(partial(_start, work, scratch)).run()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


@dataclass(frozen=True)
class _Worker:
    """A running worker: its pid (also its process group) and this process's ends of
    its pipes (announcements in, the grant out)."""

    pid: int
    messages: int
    grants: int

    def close(self) -> None:
        os.close(self.messages)
        os.close(self.grants)


def _start(work: Callable[[Resume | None], int], scratch: str,
           resume: Resume | None) -> _Worker:
    """Fork a worker running ``work(resume)`` in a process group of its own.  The
    forwarded signals and SIGTSTP are blocked across the fork, so the worker installs
    its own handlers before it sees one (this process's handlers would write to its
    wake-up pipe)."""
    messages, worker_out = os.pipe()
    worker_grant, grants = os.pipe()
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, FORWARDED + (signal.SIGTSTP,))
    supervisor = os.getpid()
    pid = os.fork()
    if pid == 0:
        os.close(messages)
        os.close(grants)
        _become_worker(_Channel(worker_out, worker_grant), scratch, supervisor)
        end(work(resume))  # work() installs its handlers and unblocks the signals
    _lead_group(pid)
    signal.pthread_sigmask(signal.SIG_SETMASK, previous)
    os.close(worker_out)
    os.close(worker_grant)
    return _Worker(pid, messages, grants)


def _become_worker(channel: _Channel, scratch: str, supervisor: int) -> None:
    """In the forked worker: its own process group, killed with the supervisor (which
    may itself be killed, by SIGKILL, where no handler runs), the supervisor's signal
    plumbing undone (Ctrl-Z stops it as usual), its channel and temporary folder set."""
    global _channel
    _parent_death_signal(signal.SIGKILL)
    if os.getppid() != supervisor:
        os._exit(128 + signal.SIGKILL)  # it ended before the signal was set
    _lead_group(0)
    signal.set_wakeup_fd(-1)
    if signal.getsignal(signal.SIGTSTP) != signal.SIG_IGN:
        signal.signal(signal.SIGTSTP, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, (signal.SIGTSTP,))
    _channel = channel
    os.environ["TMPDIR"] = tempfile.tempdir = scratch  # g++ and yosys read TMPDIR


def _parent_death_signal(signum: int) -> None:
    """Linux: the signal the kernel sends this process when its parent ends (0: none).
    Until the output is granted, a worker whose supervisor was killed is killed too,
    instead of running on unwatched; elsewhere a no-op."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, ctypes.c_ulong(signum), 0, 0, 0)


def _lead_group(pid: int) -> None:
    """Make the worker ``pid`` (0: this process) lead its own process group; both
    sides do it, so it holds before either goes on (the shells' way)."""
    try:
        os.setpgid(pid, 0)
    except (PermissionError, ProcessLookupError):
        pass  # it has already done so itself, or has already ended


def end(status: int) -> NoReturn:
    """End this process now with ``status``, its output flushed.  Python's shutdown
    restores the default signal actions before the process ends, so a Ctrl-C in that
    moment would kill it (status -2) after a run that succeeded."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass  # a closed pipe: nobody reads the rest
    os._exit(status)


def unblock() -> None:
    """Let the forwarded signals in (the worker, once its handlers are installed)."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, FORWARDED)


@dataclass
class _Stage:
    """An announced stage: past ``at`` on its clock (the worker's CPU time or the
    monotonic clock) plus its grace (:data:`DEADLINE_GRACE_S`, or
    :data:`DEADLINE_GRACE_SHARE` of ``seconds`` when longer), the worker is stuck.
    A ``resumable`` stage's worker is then replaced (:class:`Resume`)."""

    name: str
    where: str
    seconds: float
    cpu: bool
    at: float
    resumable: bool = False

    def grace(self) -> float:
        return max(DEADLINE_GRACE_S, DEADLINE_GRACE_SHARE * self.seconds)


@dataclass
class _Watch:
    """The watch over the current worker.  Invariants: ``kept`` holds what the
    current worker kept; a worker is resumed at most once (``resumed``)."""

    start: Callable[[Resume | None], _Worker]
    worker: _Worker | None = None
    wake: int = -1
    pending: bytes = b""
    stage: _Stage | None = None
    signum: int | None = None
    signalled: float = 0.0
    granted: bool = False
    kept: dict[str, str] = field(default_factory=dict)
    resumed: bool = False

    def run(self) -> int:
        """Watch until the worker ends; its status, or the one of the stop that
        ended it."""
        self.worker = self.start(None)
        wake, self.wake = os.pipe()
        os.set_blocking(self.wake, False)
        for signum in FORWARDED + (signal.SIGTSTP,):
            if signal.getsignal(signum) != signal.SIG_IGN:
                signal.signal(signum, _noted)
        signal.set_wakeup_fd(self.wake, warn_on_full_buffer=False)
        unblock()
        while True:
            ready, _, _ = select.select([self.worker.messages, wake], [], [], POLL_S)
            if wake in ready:
                self._signalled(os.read(wake, 64))
            if self.worker.messages in ready and not self._read():
                return self._ended()
            stopped = self._stuck()
            if stopped is not None:
                return stopped

    def _signalled(self, signums: bytes) -> None:
        """Ctrl-Z stops the worker and then this process; of the other signals the
        first is passed on (later ones add nothing: the run is stopping)."""
        for signum in signums:
            if signum == signal.SIGTSTP:
                self._pause()
            elif self.signum is None:
                self.signum, self.signalled = signum, time.monotonic()
                _kill(self.worker.pid, self.signum)

    def _pause(self) -> None:
        """Stop the worker's group, then this process; once continued, continue the
        worker's group.  The time stopped does not count against a wall-clock stage
        (the worker's own clock may still see it pass: the stage then stops itself)."""
        _kill(self.worker.pid, signal.SIGTSTP)
        stopped = time.monotonic()
        os.kill(os.getpid(), signal.SIGSTOP)  # returns once continued
        _kill(self.worker.pid, signal.SIGCONT)
        if self.stage is not None and not self.stage.cpu:
            self.stage.at += time.monotonic() - stopped

    def _read(self) -> bool:
        """Handle the worker's announcements; False once it closed its end."""
        data = os.read(self.worker.messages, 1 << 16)
        lines = (self.pending + data).split(b"\n")
        self.pending = lines.pop()
        for line in lines:
            self._handle(json.loads(line))
        return bool(data)

    def _handle(self, message: dict) -> None:
        if message.get("write"):
            self.granted = True
            os.write(self.worker.grants, GRANT)
        elif message.get("alive"):
            if self.stage is not None:
                self.stage.at = max(self.stage.at, self._clock(self.stage.cpu))
        elif "keep" in message:
            self.kept[message["keep"]] = message["value"]
        elif message.get("stage") is None:
            self.stage = None
        else:
            cpu = message["clock"] == "cpu"
            self.stage = _Stage(message["stage"], message["where"], message["seconds"],
                                cpu, self._clock(cpu) + message["left"],
                                message.get("resumable", False))

    def _clock(self, cpu: bool) -> float:
        if cpu:
            spent = _cpu_seconds(self.worker.pid)
            if spent is not None:
                return spent
        return time.monotonic()

    def _stuck(self) -> int | None:
        """Kill a worker that a signal or its stage's deadline did not stop in time
        (never once it may write the output); the exit status, else None (also when
        a fresh worker resumes the killed one's stage)."""
        if self.granted:
            return None
        if self.signum is not None and time.monotonic() > self.signalled + SIGNAL_GRACE_S:
            self._kill()
            _say("interrupted; nothing was written")
            return 128 + self.signum
        stage = self.stage
        if stage is None or self._clock(stage.cpu) <= stage.at + stage.grace():
            return None
        self._kill()
        stuck = (f"{stage.where}: time limit of {stage.seconds:g} s reached while "
                 f"{stage.name} (inside one call that cannot be interrupted)")
        if stage.resumable and not self.resumed:
            _say(f"{stuck}; finishing with the best it had found")
            self._resume(stage)
            return None
        _say(f"{stuck}; nothing was written (--time-limit S gives it more time)")
        return EXIT_TIME_LIMIT

    def _resume(self, stage: _Stage) -> None:
        """A fresh worker in place of the killed one, handed what it kept."""
        resume = Resume(stage.name, stage.seconds, tuple(sorted(self.kept.items())))
        self.worker.close()
        self.worker = self.start(resume)
        self.resumed, self.kept, self.pending, self.stage = True, {}, b"", None

    def _kill(self) -> None:
        _kill(self.worker.pid, signal.SIGKILL)
        os.waitpid(self.worker.pid, 0)
        if os.isatty(2):  # the worker's status line may have hidden the cursor
            os.write(2, b"\r\x1b[2K\x1b[?25h")

    def _ended(self) -> int:
        """The worker closed its pipe: its exit status (an internal error when a
        signal other than the one passed on ended it, e.g. a crash in isl)."""
        _, status = os.waitpid(self.worker.pid, 0)
        code = os.waitstatus_to_exitcode(status)
        if code >= 0:
            return code
        if -code == self.signum:
            return 128 + self.signum
        _say(f"internal error: the run ended by {signal.Signals(-code).name} "
             "(please report this with the kernel)")
        return EXIT_INTERNAL


def _noted(signum, frame) -> None:
    """The supervisor's handler: the wake-up pipe carries the signal to the watch."""


def _kill(pid: int, signum: int) -> None:
    """Send ``signum`` to the worker ``pid`` and its process group (the compilers it
    runs)."""
    try:
        os.killpg(pid, signum)
    except ProcessLookupError:
        pass  # it has just ended: the pipe says so next


def _say(text: str) -> None:
    print(f"arraypart: {text}", file=sys.stderr, flush=True)


def _cpu_seconds(pid: int) -> float | None:
    """Process ``pid``'s CPU time (user + system, what its ``time.process_time``
    reads) from Linux's /proc; None elsewhere (the monotonic clock stands in)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
