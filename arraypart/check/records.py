"""The records of a traced run (:mod:`.trace`) and how they are read.

Every record is one access the compiled original made inside a pipelined loop, 40
bytes as ``templates/trace_driver.cpp.j2`` writes them: (site, lane, loop, array,
kind, copy, step, flat, instance), ``flat`` the row-major offset g++ computed, ``copy``
the read copy the site's copy expression gave, ``instance`` how many times the array
had been registered (a called function's own array: once per call, its copy).  Each recorded call of the top writes a file of
its own, its steps counted from 0; a run of a loop ends with a record of no access
(site :data:`RUN_END`) at its last step, so a run whose last steps access no array
counts them.  Files are read in chunks that never split a step (:func:`chunks`), so
memory stays bounded by the chunk and the largest step.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Iterator, Sequence

import numpy as np

RECORD = np.dtype([("site", "<i4"), ("lane", "<i4"), ("loop", "<i4"), ("array", "<i2"),
                   ("kind", "i1"), ("copy", "i1"), ("step", "<i8"), ("flat", "<i8"),
                   ("instance", "<i8")])
#: A record's ``kind``.
READ, WRITE = 0, 1
#: Records read at once: 2^20 records are 32 MB, with the sort's copies about 200 MB.
CHUNK_RECORDS = 1 << 20
#: The site of the record that ends a run of a loop (no access).
RUN_END = -1


def no_checkpoint() -> None:
    """A checkpoint that never stops the work (no deadline)."""


def chunks(path: Path, size: int = CHUNK_RECORDS,
           checkpoint: Callable[[], None] = no_checkpoint, *,
           run_ends: bool = False) -> Iterator[np.ndarray]:
    """The records of ``path`` in chunks of about ``size`` that end on step boundaries
    (a step's records are consecutive: one iteration runs before the next; records
    outside every traced loop, loop -1, belong to no step and are cut anywhere);
    ``checkpoint`` is called before each chunk (a deadline's check); the records that
    end runs (:data:`RUN_END`) only with ``run_ends``."""
    for rows in _chunks(path, size, checkpoint):
        yield rows if run_ends else without_run_ends(rows)


def without_run_ends(rows: np.ndarray) -> np.ndarray:
    """``rows`` without the ends of runs (a few a chunk: most chunks are kept whole)."""
    ends = rows["site"] == RUN_END
    return selected(rows, ~ends) if ends.any() else rows


#: A record as raw bytes: numpy copies a structured array field by field, record by
#: record, and raw bytes whole (a mask over 2^20 records: 0.1 s, 0.02 s).
_RAW = np.dtype((np.void, RECORD.itemsize))


def selected(rows: np.ndarray, which: np.ndarray) -> np.ndarray:
    """``rows[which]`` (a mask or indices), copied as raw records."""
    return rows.view(_RAW)[which].view(RECORD)


def run_chunks(paths: Sequence[Path], size: int = CHUNK_RECORDS,
               checkpoint: Callable[[], None] = no_checkpoint, *,
               run_ends: bool = False) -> Iterator[np.ndarray]:
    """:func:`chunks` of each recorded call's file in turn, each loop's steps numbered
    on from the calls before: one run whose steps are the calls' in order."""
    offset = np.zeros(1, np.int64)  # per loop: its steps in the calls before
    for path in paths:
        ran = np.zeros_like(offset)
        for rows in chunks(path, size, checkpoint, run_ends=True):
            if len(paths) > 1:
                loop = rows["loop"].astype(np.int64)
                inside = loop >= 0
                grow = int(loop.max(initial=-1)) + 1 - offset.size
                if grow > 0:
                    offset, ran = np.pad(offset, (0, grow)), np.pad(ran, (0, grow))
                np.maximum.at(ran, loop[inside], rows["step"][inside] + 1)
                rows["step"][inside] += offset[loop[inside]]
            yield rows if run_ends else without_run_ends(rows)
        offset += ran


def _chunks(path: Path, size: int, checkpoint: Callable[[], None]) -> Iterator[np.ndarray]:
    """Each chunk is read into a buffer of its own behind the records carried from
    the one before (those of its unfinished step): no chunk is copied whole."""
    carry = np.empty(0, RECORD)
    with open(path, "rb") as stream:
        while True:
            rows = np.empty(carry.size + size, RECORD)
            rows[:carry.size] = carry
            read = stream.readinto(memoryview(rows[carry.size:].view(np.uint8)))
            if read < RECORD.itemsize:
                break
            rows = rows[:carry.size + read // RECORD.itemsize]
            # outside every traced loop (loop -1): no step to keep whole
            cut = rows.size if rows[-1]["loop"] < 0 else _last_step_start(rows)
            if cut:
                checkpoint()
                yield rows[:cut]
            carry = rows[cut:]
    if carry.size:
        checkpoint()
        yield carry


#: Records first searched back from a chunk's end for its last step's start (then
#: eight times as many, and so on): a step holds few records.
_TAIL = 64


def _last_step_start(rows: np.ndarray) -> int:
    """Where the step of the last of ``rows`` begins (its records are consecutive);
    0 when every record is of that step."""
    loop, step = rows["loop"], rows["step"]
    last_loop, last_step = loop[-1], step[-1]
    width = _TAIL
    while True:
        low = max(0, rows.size - width)
        other = np.flatnonzero((loop[low:] != last_loop) | (step[low:] != last_step))
        if other.size or low == 0:
            return low + int(other[-1]) + 1 if other.size else 0
        width *= 8
