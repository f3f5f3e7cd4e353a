"""The solver's options and how its time limit is shared out among the arrays.

:class:`Options` is one frozen value handed down from :func:`.driver.solve` to every
array's search; only its ``deadline`` changes, array by array (:func:`share`).
Invariants: ``deadline`` is a ``perf_counter`` time, never later than the run's
(``start + time_limit``); a search that passes it raises :class:`TimeUp`, and the
caller keeps the best banking proven by then.  The arrays are banked easiest first
(:func:`easiest_first`), each given an equal share of what remains, so a hard array
cannot spend the time an easy one needs.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from time import perf_counter
from typing import Callable

from ..poly.model import ArrayModel
from .solution import Found

FAMILIES = ("per_dim", "flat")
SCHEME_CHOICES = {"all": FAMILIES, "vitis": ("per_dim",)}


def ignore(found: Found) -> None:
    """The ``found`` hook of a caller that keeps nothing."""


@dataclass(frozen=True, slots=True)
class Options:
    max_banks: int | None
    bram_budget: int
    families: tuple[str, ...]
    deadline: float
    time_limit: float
    replace_partitions: bool
    found: Callable[[Found], None] = ignore
    shared_loops: frozenset[str] = frozenset()  # loops of more than one array


class TimeUp(Exception):
    """The solver's deadline passed during the search."""


def easiest_first(arrays: tuple[ArrayModel, ...]) -> list[int]:
    """The arrays' indices, fewest accesses per cycle first: an array that needs no
    search is banked before a hard one can spend the time limit."""
    return sorted(range(len(arrays)), key=lambda k: (arrays[k].max_concurrent, k))


def share_time(options: Options, left: int) -> Options:
    """The options of the next of ``left`` arrays still to bank: an equal share of
    the time that remains (what an array leaves unused goes to those after it)."""
    now = perf_counter()
    return replace(options, deadline=min(options.deadline,
                                         now + max(0.0, options.deadline - now) / left))


def check_deadline(options: Options, tier: int, tried: int) -> None:
    """Raise :class:`TimeUp` once ``options.deadline`` has passed (``tried`` candidates
    pre-checked, at ``tier`` banks, say where)."""
    if perf_counter() > options.deadline:
        raise TimeUp(f"{tried} candidates pre-checked, at {tier} banks")
