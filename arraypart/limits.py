"""Deadlines of the stages that may run long (``--time-limit``, DESIGN §4).

Every stage whose work grows with the input (model building, the solver, the
scheduling-rule check of the emitted code, ``check``) gets ``--time-limit`` seconds
of its own (the stages other than the search at least :data:`STAGE_FLOOR_S` of CPU
time, :func:`stage_deadline`), measured on a clock that tests may replace.  A stage asks
:meth:`Deadline.check` between bounded pieces of work (a chunk of the checker, a
batch of candidates), so it stops within about one piece of its limit; a passed
deadline is a :class:`TimeLimit`, which the API turns into exit 1 with a warning,
never into an unproven claim.  A stage run under :func:`stage` is also announced to
the command line's supervisor (:mod:`arraypart.supervisor`), which ends the run when
one call the checks cannot see into (isl, clang) runs past the deadline.
"""

from __future__ import annotations

import os
import resource
from contextlib import contextmanager
from dataclasses import dataclass
from time import perf_counter, process_time
from typing import Callable

from . import supervisor

#: The least CPU time reading the kernel, building the model and replaying the emitted
#: code get, whatever ``--time-limit`` says: every answer needs the model, and the
#: replay is what confirms the II, so a limit chosen to cut the search short must not
#: leave an ordinary kernel without a report.  The largest suite kernel (a 64-wide
#: unrolled window) builds its model in 0.1 s and replays in 0.2 s of CPU: ten times
#: that is still a bound a user waits for (it was 30 s, which ``--time-limit 1`` on a
#: pathological kernel turned into half a minute).
STAGE_FLOOR_S = 2.0


class TimeLimit(Exception):
    """``stage`` passed its deadline of ``seconds`` seconds."""

    def __init__(self, stage: str, seconds: float):
        super().__init__(f"{stage}: time limit of {seconds:g} s reached")
        self.stage = stage
        self.seconds = seconds


class MemoryLimit(Exception):
    """``stage`` needed more memory than the run's limit (:func:`memory_limit`)."""

    def __init__(self, stage: str):
        super().__init__(f"{stage}: memory limit reached")
        self.stage = stage


#: The share of the machine's memory a command may use by default: past it a run ends
#: with a message rather than swapping or meeting the kernel's OOM killer.
DEFAULT_MEMORY_SHARE = 0.75


def default_memory_limit() -> int:
    """:data:`DEFAULT_MEMORY_SHARE` of the machine's physical memory, in bytes."""
    return int(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
               * DEFAULT_MEMORY_SHARE)


@contextmanager
def memory_limit(limit: int):
    """The block runs with its process's data memory (heap and anonymous mappings:
    numpy's arrays, isl's and clang's allocations) limited to ``limit`` bytes, or to
    the hard limit when that is lower: an allocation past it fails (``MemoryError``
    in Python) instead of swapping the machine.  The soft limit is restored after."""
    soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
    wanted = limit if hard == resource.RLIM_INFINITY else min(limit, hard)
    resource.setrlimit(resource.RLIMIT_DATA, (wanted, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_DATA, (soft, hard))


@dataclass(frozen=True)
class Deadline:
    """The time ``at`` (on ``clock``'s scale) past which a stage of ``seconds``
    seconds stops."""

    at: float
    seconds: float
    clock: Callable[[], float] = perf_counter

    @classmethod
    def after(cls, seconds: float, clock: Callable[[], float] = perf_counter) -> Deadline:
        return cls(clock() + seconds, seconds, clock)

    def passed(self) -> bool:
        return self.clock() > self.at

    def check(self, stage: str) -> None:
        """Raise :class:`TimeLimit` for ``stage`` once the deadline has passed."""
        if self.passed():
            raise TimeLimit(stage, self.seconds)


def stage_deadline(time_limit: float) -> Deadline:
    """The deadline of a stage other than the search: ``max(time_limit,
    STAGE_FLOOR_S)`` seconds of this process's CPU time (a loaded machine slows the
    stage down, it does not cut it short)."""
    return Deadline.after(max(time_limit, STAGE_FLOOR_S), clock=process_time)


def child_stage_deadline(time_limit: float) -> Deadline:
    """The deadline of a stage whose work runs in child processes (``check --trace``'s
    g++ build and traced run), whose CPU time is not this process's: ``max(time_limit,
    STAGE_FLOOR_S)`` seconds on the wall clock."""
    return Deadline.after(max(time_limit, STAGE_FLOOR_S))


@contextmanager
def stage(name: str, deadline: Deadline, where: str, *, resumable: bool = False):
    """Run the block as stage ``name`` (of the kernel ``where``) under ``deadline``:
    the supervisor, when there is one, ends the run a moment past the deadline if
    the block has not (see :mod:`arraypart.supervisor`), or with ``resumable``
    resumes it in a fresh worker handed what the block kept
    (:func:`arraypart.supervisor.keep`).  Deadlines on a clock the supervisor cannot
    read (a test's) are not announced."""
    cpu = deadline.clock is process_time
    if cpu or deadline.clock is perf_counter:
        supervisor.announce({"stage": name, "where": where, "seconds": deadline.seconds,
                             "clock": "cpu" if cpu else "wall",
                             "left": deadline.at - deadline.clock(),
                             "resumable": resumable})
    try:
        yield deadline
    except MemoryError:
        raise MemoryLimit(name) from None
    finally:
        supervisor.announce({"stage": None})
