"""report.json (DESIGN §5): the facts of one run, assembled from the passes' results."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from .banking.solution import ArraySolution, Solution, solved_model
from .check import CheckReport
from . import ir
from .ir import Kernel
from .poly.model import ArrayModel, PolyModel
from .errors import warning_text
from .frontend.carried import carried_message
from .poly.recurrences import recurrence_warning
from .rtl import Resources, estimate
from .scheme import Banking

OFF_CHIP = "off-chip"  # the resources' source for an m_axi array: none on the chip
FIFO = "fifo"  # the resources' source for a FIFO interface: no memory
REGISTER = "register"  # the resources' source for a register port: no memory


@dataclass(frozen=True, eq=False)
class Report:
    """The report of ``analyze`` / ``compile``: the kernel, its model, the banking
    chosen for every array.  ``to_json()`` gives the stable keys of DESIGN §5.
    ``measured``: yosys' resources per array (``compile --synth``); the other arrays'
    resources come from the fitted cost model."""

    kernel: Kernel
    model: PolyModel
    solution: Solution
    scheduled: CheckReport | None = None
    crossbars: dict[str, tuple[int, int]] = field(default_factory=dict)
    measured: dict[str, Resources] = field(default_factory=dict)
    limited: tuple[str, ...] = ()  # warnings of stages past --time-limit (not the solver)

    @property
    def warnings(self) -> tuple[str, ...]:
        """Every pass's warnings, in order, each text once: a function inlined at
        several calls warns of its text (same place, same words) at each of them."""
        return tuple(dict.fromkeys(self.model.warnings + self._recurrence_warnings()
                                   + self.solution.warnings + self.limited))

    def _recurrence_warnings(self) -> tuple[str, ...]:
        """The model's recurrences through arrays that stay memories, and through
        registers of floating-point elements: a register is read in the cycle it is
        written, but a float's update from its last value still waits for the
        previous iteration's (several cycles: :func:`.frontend.carried.carried_message`;
        an integer's fits in one, as Vitis schedules ``*p += a[i]`` at II 1)."""
        registers = {a.array.name: a.array for a in self.solution.arrays
                     if a.banking.scheme.registers}
        targets = {lp.name: lp.target_ii for lp in self.model.loops}
        out = []
        for r in self.model.recurrences:
            array = registers.get(r.array)
            if array is None:
                out.append(recurrence_warning(r))
            elif array.floating:
                what = r.array if array.size == 1 else f"an element of {r.array}"
                out.append(warning_text(r.write, carried_message(r.loop, what,
                                                                 targets[r.loop])))
        return tuple(out)

    @property
    def time_limited(self) -> bool:
        """Some stage (the solver, the scheduling-rule check) passed --time-limit."""
        return self.solution.time_limited or bool(self.limited)

    @property
    def conflict_free(self) -> bool:
        return all(a.conflict_free for a in self.solution.arrays)

    @property
    def goals_met(self) -> bool:
        """Every array conflict-free, every stage within the time limit, every loop at
        its target II (under the scheduling rule on the emitted code when it was
        checked); else exit 1."""
        return self.conflict_free and not self.time_limited and all(
            self.loop_achieved_ii(n, loop.name, loop.target_ii) <= loop.target_ii
            for n, loop in enumerate(self.model.loops))

    def loop_achieved_ii(self, position: int, loop: str, target_ii: int) -> int:
        """The II the ``position``-th concurrent loop reaches: what its memories allow
        (:meth:`memory_ii`), never below what its ``allocation`` limits allow
        (``LoopInfo.instance_ii``)."""
        return max(self.model.loops[position].instance_ii,
                   self.memory_ii(position, loop, target_ii))

    def memory_ii(self, position: int, loop: str, target_ii: int) -> int:
        """The II the ``position``-th concurrent loop's memories allow: under the
        scheduling rule on the emitted code when it was checked (``scheduled``; its
        loops are the model's, in the same order), else the largest II its arrays'
        bankings allow; never below what its m_axi bundles allow
        (``LoopInfo.bundle_ii``)."""
        bundle_ii = self.model.loops[position].bundle_ii
        if self.scheduled is not None:
            return max(bundle_ii, self.scheduled.loops[position].memory_ii)
        return max(bundle_ii, self.planned_ii(loop, target_ii))

    def planned_ii(self, loop: str, target_ii: int) -> int:
        """The II the bankings allow a loop in the ideal port model (what the banking
        pass proved): the largest over its arrays."""
        iis = [ii for a in self.solution.arrays for name, ii in a.achieved_ii if name == loop]
        return max(iis, default=target_ii)

    def to_json(self, *, timings: bool = False) -> dict:
        """The report's JSON form.  ``solve_seconds`` is 0.0 unless ``timings``, so
        that identical inputs give byte-identical reports (DESIGN §4)."""
        models = {m.array.name: m for m in self.model.arrays}  # model.array is linear
        return {
            "kernel": self.kernel.name,
            "top": self.kernel.top,
            "source": self.kernel.path,
            "solve_seconds": round(self.solution.seconds, 6) if timings else 0.0,
            "arrays": [_array_json(a, solved_model(models[a.array.name], a),
                                   self.crossbars.get(a.array.name, (0, 0)),
                                   self.measured.get(a.array.name))
                       for a in self.solution.arrays],
            "loops": [{"name": loop.name, "file": loop.coord.file, "line": loop.coord.line,
                       "target_ii": loop.target_ii,
                       "achieved_ii": self.loop_achieved_ii(n, loop.name, loop.target_ii),
                       "trip_count": loop.trip_count,
                       "params": self._loop_params(loop.name),
                       "arrays": list(loop.arrays),
                       "pipeline_inferred": loop.pipeline_inferred}
                      for n, loop in enumerate(self.model.loops)],
            "params": {p.name: {"range": _range(p), "bound_by": p.source}
                       for p in self.kernel.params},
            "warnings": list(self.warnings),
            "time_limit_reached": self.time_limited,
        }


    def _loop_params(self, loop: str) -> dict[str, list[int]]:
        """The run-time sizes a loop's iterations depend on, with the range its
        banking is proven for."""
        used = {v for a in self.model.arrays for g in a.groups if g.loop == loop
                for v in g.time_vars}
        return {p.name: _range(p) for p in self.kernel.params if p.name in used}


def _range(p: ir.Param) -> list[int]:
    """The values of a run-time size its banking is proven for: every value from
    ``low`` up for an unbounded one (:data:`arraypart.ir.UNBOUNDED_REPORTED`)."""
    return [p.low, ir.UNBOUNDED_REPORTED if p.unbounded else p.high]


def check_json(report: Report, result, bankings: dict[str, Banking], *,
               as_written: bool, timings: bool = False,
               automatic: Mapping[str, str] | None = None) -> dict:
    """The report of ``arraypart check --json``: report.json (DESIGN §5) whose loops
    carry the checker's fields (achieved II, cycles, stall cycles, first conflict), each
    array the scheme that was checked (``checked_scheme``: arraypart's, or with
    ``as_written`` the kernel's own pragmas', and ``vitis_partition``, what
    ``automatic`` says of an array Vitis partitions on its own, else null), and the
    checker's map verdicts."""
    automatic = automatic or {}
    out = report.to_json(timings=timings)
    checked = result.to_json()
    out["checked"] = "as_written" if as_written else "arraypart"
    for array in out["arrays"]:
        scheme = bankings[array["name"]].scheme
        array["checked_scheme"] = {**scheme.to_report(), "formula": scheme.describe()}
        array["vitis_partition"] = automatic.get(array["name"])
    out["loops"] = checked["loops"]
    out["maps"] = checked["maps"]
    out["accesses_checked"] = checked["accesses_checked"]
    out["ok"] = checked["ok"]
    return out


def _array_json(sol: ArraySolution, array_model: ArrayModel, crossbar: tuple[int, int],
                measured: Resources | None) -> dict:
    array, banking = sol.array, sol.banking
    if not array.memory:  # no on-chip memory logic
        resources = Resources(0, 0, 0, 0, FIFO if array.fifo is not None else
                              REGISTER if array.register is not None else OFF_CHIP)
    else:
        resources = measured or estimate(banking, array_model)
    scheme = banking.scheme
    return {
        "name": array.name,
        "shape": list(array.shape),
        "elem_bits": array.elem_bits,
        "interface": array.interface,
        "bundle": array.bundle,
        "stencil": array.stencil,
        "fifo": array.fifo,
        "register": array.register,
        "ports": sol.ports.name,
        "loops": sorted({g.loop for g in array_model.groups}),
        "scheme": scheme.to_report(),
        "formula": scheme.describe(),
        "banks": scheme.banks,
        "copies": banking.copies,
        # the copies are a multi-port ROM: bind_storage type=rom_np on the array as declared
        "multi_port_rom": sol.multi_port_rom,
        "bank_depth": scheme.bank_depth,
        "storage_overhead": round(scheme.storage_overhead, 6),
        "max_concurrent": sol.max_concurrent,
        "lower_bound_banks": sol.lower_bound,
        "conflict_free": sol.conflict_free,
        "bram18k": sol.bram18k,
        # the selects of bank-centric code: lanes routed to banks (0, 0: none needed)
        "crossbar": {"lanes": crossbar[0], "banks": crossbar[1]},
        "resources": resources.to_json(),
        "proof": sol.proof,
    }
