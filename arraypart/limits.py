"""Deadlines of the stages that may run long (``--time-limit``, DESIGN §4).

Every stage whose work grows with the input (model building, the solver, the
scheduling-rule check of the emitted code, ``check``) gets ``--time-limit`` seconds
of its own, measured on a clock that tests may replace.  A stage asks
:meth:`Deadline.check` between bounded pieces of work (a chunk of the checker, a
batch of candidates), so it stops within about one piece of its limit; a passed
deadline is a :class:`TimeLimit`, which the API turns into exit 1 with a warning,
never into an unproven claim.
"""

from __future__ import annotations

from dataclasses import dataclass
from time import perf_counter
from typing import Callable


class TimeLimit(Exception):
    """``stage`` passed its deadline of ``seconds`` seconds."""

    def __init__(self, stage: str, seconds: float):
        super().__init__(f"{stage}: time limit of {seconds:g} s reached")
        self.stage = stage
        self.seconds = seconds


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
