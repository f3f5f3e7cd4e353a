"""The checker's verdict: frozen values with a JSON form and a human form.

The human form names every access by ``file:line:col`` so an editor can jump to it;
the JSON form (``to_json()`` returns JSON-ready dicts and lists) has stable keys.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

from ..errors import Coord
from ..ir import point_words


def _coord_json(coord: Coord) -> dict:
    return {"file": coord.file, "line": coord.line, "col": coord.col}


def _address_text(address: tuple[int | None, ...]) -> str:
    return "".join(f"[{'?' if x is None else x}]" for x in address)


@dataclass(frozen=True, slots=True)
class ConflictAccess:
    """One access in a conflicting bank; ``address`` is its index vector (None in an
    irregular dimension: any index); ``array``: its array, when the conflict is a
    bundle's that several arrays share (else the conflict's)."""

    kind: str
    coord: Coord
    address: tuple[int | None, ...]
    array: str | None = None

    def to_json(self) -> dict:
        return {"kind": self.kind, "coord": _coord_json(self.coord),
                "address": list(self.address)} | (
                    {} if self.array is None else {"array": self.array})

    def format(self, array: str) -> str:
        return (f"{self.coord}: {self.kind} {self.array or array}"
                f"{_address_text(self.address)}")


@dataclass(frozen=True, slots=True)
class Conflict:
    """The first step that does not fit its bank's ports at the target II.

    ``iteration`` is the step's ordinal in execution order over the whole kernel run,
    ``cycle = iteration * target_ii``; ``point`` the iterators' values (lane 0 at the
    step's start); ``reads`` (distinct addresses) and ``writes`` what ``bank`` of
    ``copy`` of ``array`` must serve, with ports ``ports``; ``words``: the array is
    reshaped, so the accesses' subscripts number its wide words, not elements;
    ``shared``: ``array`` names an m_axi bundle whose arrays share its channels (no
    copy or bank), each access naming its own array; ``on_one_path``: ``reads`` and
    ``writes`` are the most that one path through the data-dependent ``if``s makes
    (an off-chip array, whose exclusive arms in one lane share a transfer), fewer than
    the accesses listed; ``limit`` (0: a conflict of ports): the step starts ``calls``
    calls of the function ``array``, whose instances an ``allocation`` pragma limits to
    ``limit``, so calls wait for an instance (no copy, bank, read or write).
    """

    iteration: int
    cycle: int
    point: tuple[tuple[str, int], ...]
    array: str
    copy: int
    bank: int
    accesses: tuple[ConflictAccess, ...]
    reads: int
    writes: int
    ports: str
    words: bool = False
    shared: bool = False
    on_one_path: bool = False
    calls: int = 0
    limit: int = 0

    def to_json(self) -> dict:
        return {"iteration": self.iteration, "cycle": self.cycle,
                "point": {v: x for v, x in self.point}, "array": self.array,
                "copy": self.copy, "bank": self.bank, "reads": self.reads,
                "writes": self.writes, "ports": self.ports,
                "accesses": [a.to_json() for a in self.accesses]} | (
                    {"calls": self.calls, "limit": self.limit} if self.limit else {})

    def format(self) -> str:
        point = point_words(self.point) or "-"
        where = f"first conflict: iteration {self.iteration} (cycle {self.cycle}), {point}: "
        if self.limit:
            return (where + f"{self.calls} calls of '{self.array}' in one iteration, "
                    f"allocation limit {self.limit}")
        head = (where
                + (f"{self.array} ({self.ports}) " if self.shared else
                   f"{self.array} copy {self.copy} bank {self.bank} ({self.ports}) ")
                + f"gets {self.reads} read(s) and {self.writes} write(s)"
                + (" on one path through its data-dependent ifs" if self.on_one_path
                   else "")
                + (" (reshaped: the subscripts below number its words)" if self.words
                   else ""))
        return "\n".join([head] + ["  " + a.format(self.array) for a in self.accesses])


@dataclass(frozen=True, slots=True)
class DynamicSite:
    """Under the scheduling rule: an access whose bank varies in ``lanes`` of its
    lanes, so that each of them takes a port of every bank of ``array``."""

    array: str
    kind: str
    coord: Coord
    lanes: int

    def to_json(self) -> dict:
        return {"array": self.array, "kind": self.kind, "coord": _coord_json(self.coord),
                "lanes": self.lanes}

    def format(self) -> str:
        return (f"{self.coord}: {self.kind} of {self.array}: bank varies with the "
                f"iteration in {self.lanes} lane(s): a port of every bank each (of its "
                "constant indices' sub-array, under per-dimension pragmas)")


@dataclass(frozen=True, slots=True)
class LoopCheck:
    """One concurrent loop: ``iterations`` steps over the whole run, each taking
    ``achieved_ii`` cycles; ``memory_ii`` (at most ``achieved_ii``): the II its
    memories and bundles allow, without what ``allocation`` limits cost (what a
    recorded trace, which sees ports only, can measure); ``trip_count`` steps per
    entry of the loop (the largest).
    ``text_call``: (k, n) when the II and conflict are those of the k-th of the n
    instances of the loop's one text (:func:`.driver.one_ii_per_text`)."""

    name: str
    coord: Coord
    target_ii: int
    achieved_ii: int
    memory_ii: int
    trip_count: int
    iterations: int
    cycles: int
    stall_cycles: int
    first_conflict: Conflict | None
    dynamic_sites: tuple[DynamicSite, ...] = ()
    text_call: tuple[int, int] | None = None

    @property
    def ok(self) -> bool:
        return self.first_conflict is None

    def to_json(self) -> dict:
        return {"name": self.name, "coord": _coord_json(self.coord), "file": self.coord.file,
                "line": self.coord.line,
                "target_ii": self.target_ii, "achieved_ii": self.achieved_ii,
                "trip_count": self.trip_count, "iterations": self.iterations,
                "cycles": self.cycles, "stall_cycles": self.stall_cycles,
                "first_conflict": (self.first_conflict.to_json()
                                   if self.first_conflict else None),
                "dynamic_sites": [d.to_json() for d in self.dynamic_sites]}

    def format(self) -> str:
        verdict = "CONFLICT" if not self.ok else "ok" if self.iterations else (
            "not run at the sizes replayed, so not checked (its II is the isl proof's)")
        head = (f"{self.coord}: loop {self.name}: {verdict}: target II {self.target_ii}, "
                f"achieved II {self.achieved_ii}, {self.iterations} iterations, "
                f"{self.cycles} cycles ({self.stall_cycles} stall)")
        lines = [head]
        if self.text_call is not None:
            k, n = self.text_call
            lines.append(f"  one piece of code with call {k} of {n} of this loop, whose "
                         "conflict below sets the II of all")
        if self.first_conflict is not None:
            lines += ["  " + line for line in self.first_conflict.format().splitlines()]
        if self.dynamic_sites and not self.ok:
            lines.append("  the scheduler cannot see a constant bank at these sites:")
            lines += ["    " + d.format() for d in self.dynamic_sites]
        return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class MapCheck:
    """Whether ``array``'s (bank, offset) map is a bijection into its banks' slots."""

    array: str
    ok: bool
    message: str

    def to_json(self) -> dict:
        return {"array": self.array, "ok": self.ok, "message": self.message}

    def format(self) -> str:
        return f"map {self.array}: {'ok' if self.ok else 'BROKEN'}: {self.message}"


@dataclass(frozen=True, slots=True)
class CheckReport:
    """Every concurrent loop (program order), every banked array's map check, the
    number of access instances simulated, and notes (e.g. out-of-bounds indices)."""

    loops: tuple[LoopCheck, ...]
    maps: tuple[MapCheck, ...]
    accesses_checked: int
    notes: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        """No conflict at any target II and every map a bijection."""
        return all(lp.ok for lp in self.loops) and all(m.ok for m in self.maps)

    def to_json(self) -> dict:
        return {"ok": self.ok, "loops": [lp.to_json() for lp in self.loops],
                "maps": [m.to_json() for m in self.maps],
                "accesses_checked": self.accesses_checked, "notes": list(self.notes)}

    def format(self) -> str:
        lines = [lp.format() for lp in self.loops] or ["no pipelined or unrolled loop"]
        lines += [m.format() for m in self.maps]
        lines += list(self.notes)
        lines.append(f"{self.accesses_checked} accesses checked: "
                     f"{'no conflict' if self.ok else 'conflicts found'}")
        return "\n".join(lines)


def relocated(report: CheckReport, where: Callable[[Coord], Coord]) -> CheckReport:
    """``report`` with every loop and access coordinate passed through ``where`` (the
    emitted code's positions as the user's file has them); a loop named after its line
    (``L<line>``, ``f/L<line>`` in a sub-function) is named after the new one."""
    def loop(lp: LoopCheck) -> LoopCheck:
        coord = where(lp.coord)
        scope, _, own = lp.name.rpartition("/")
        name = (f"{scope}/" if scope else "") + f"L{coord.line}" \
            if own == f"L{lp.coord.line}" else lp.name
        conflict = lp.first_conflict
        if conflict is not None:
            conflict = replace(conflict, accesses=tuple(
                replace(a, coord=where(a.coord)) for a in conflict.accesses))
        return replace(lp, name=name, coord=coord, first_conflict=conflict,
                       dynamic_sites=tuple(replace(d, coord=where(d.coord))
                                           for d in lp.dynamic_sites))
    return replace(report, loops=tuple(loop(lp) for lp in report.loops))
