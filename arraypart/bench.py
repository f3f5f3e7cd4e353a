"""``arraypart bench``: the kernel suite against the published baselines, in one run.

For every array that a pipelined or unrolled loop touches, arraypart's banking and each
baseline's (:data:`arraypart.banking.baselines.BASELINES`) are computed from the same
cycle groups; every baseline is proved or refuted by the same isl proof as arraypart's
(``banking.prove``), and arraypart's whole solution is also replayed by the cycle-level
checker.  Totals compare banks x copies; ratios are against ``vitis_manual``, the
per-dimension cyclic partitioning users write by hand.

``rule_ii`` is the II a method's banking gets under the HLS scheduling rule (DESIGN §2):
for a baseline, its banking applied to the kernel as written (a rotating bank index is
a port of every bank, which is how pragma-only and direct-indexing tools emit code);
for arraypart, the II of its emitted code read back.  Per array it is the worst loop
that touches the array.

Each method's banking also goes through the same RTL model (:mod:`arraypart.rtl`): LUT,
FF and BRAM18K from the fitted cost model, or with ``--synth`` from yosys.
"""

from __future__ import annotations

import json
import statistics
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from . import api, check, rtl
from .banking import prove
from .banking.baselines import BASELINES
from .banking.solution import solved_model
from .errors import Coord, KernelError

REFERENCE_BASELINE = "vitis_manual"


@dataclass(frozen=True)
class MethodResult:
    """One method's banking of one array."""

    banks: int
    copies: int
    conflict_free: bool
    storage_overhead: float
    bram18k: int
    seconds: float
    rule_ii: int = 1
    lut: int = 0
    ff: int = 0
    rtl_bram18k: int = 0
    resources_source: str = "model"

    @property
    def cost(self) -> int:
        return self.banks * self.copies


@dataclass(frozen=True)
class Row:
    kernel: str
    array: str
    lower_bound: int
    methods: dict[str, MethodResult]
    interface: bool = False

    def order(self, result: MethodResult) -> tuple:
        """How the solver ranks ``result`` (``banking.space.Cost``): an interface
        array's banks (its ports) first, then BRAM18K, then LUTs."""
        return (result.cost if self.interface else 0, result.rtl_bram18k, result.lut)

    def to_json(self) -> dict:
        return {"kernel": self.kernel, "array": self.array, "lower_bound": self.lower_bound,
                "interface": self.interface,
                **{name: asdict(result) for name, result in self.methods.items()}}


@dataclass(frozen=True)
class KernelBench:
    name: str
    rows: tuple[Row, ...]
    solve_seconds: float
    checker_agrees: bool


def _result(banking, array_model, seconds: float, conflict_free: bool) -> MethodResult:
    scheme = banking.scheme
    cost = rtl.estimate(banking, array_model)
    return MethodResult(
        banks=scheme.banks, copies=banking.copies, conflict_free=conflict_free,
        storage_overhead=round(scheme.storage_overhead, 6),
        bram18k=cost.bram18k, seconds=round(seconds, 6), lut=cost.lut, ff=cost.ff,
        rtl_bram18k=cost.bram18k)


def _synthesized(rows: list[Row], chosen: dict[str, dict], models: dict[str, object]
                 ) -> list[Row]:
    """``rows`` with every method's LUT/FF/BRAM18K measured by yosys (one run);
    ``chosen[method][array]`` is the method's banking."""
    keys = [(r.array, m) for r in rows for m in r.methods]
    mems = [rtl.memory(models[a], chosen[m][a]) for a, m in keys]
    measured = dict(zip(keys, rtl.synthesize_many(mems)))
    out = []
    for r in rows:
        methods = {m: replace(res, lut=measured[r.array, m].lut, ff=measured[r.array, m].ff,
                              rtl_bram18k=measured[r.array, m].bram18k,
                              resources_source="yosys")
                   for m, res in r.methods.items()}
        out.append(replace(r, methods=methods))
    return out


def bench_kernel(path: Path, *, ports: int, synth: bool = False) -> KernelBench:
    """Bank one kernel with arraypart and every baseline; prove each result; with
    ``synth``, measure every method's RTL model with yosys."""
    report = api.analyze(path, ports=ports)
    kernel, model, solution = report.kernel, report.model, report.solution
    solve_seconds = solution.seconds
    replay = check.check_kernel(kernel, solution.bankings(), ports=ports,
                                storage=solution.emitted_ports())
    checker_agrees = all(loop.achieved_ii <= loop.target_ii for loop in replay.loops) == (
        all(a.conflict_free for a in solution.arrays))
    ours_ii = {loop.name: report.loop_achieved_ii(n, loop.name, loop.target_ii)
               for n, loop in enumerate(model.loops)}
    chosen: dict[str, dict] = {"arraypart": {}}
    rows, models = [], {}
    for sol in solution.arrays:
        array_model = solved_model(model.array(sol.array.name), sol)
        if not array_model.groups:
            continue
        models[sol.array.name] = array_model
        chosen["arraypart"][sol.array.name] = sol.banking
        methods = {"arraypart": _result(sol.banking, array_model, sol.seconds,
                                        sol.conflict_free)}
        for name, baseline in BASELINES.items():
            begin = time.perf_counter()
            banking = baseline(array_model)
            seconds = time.perf_counter() - begin
            chosen.setdefault(name, {})[sol.array.name] = banking
            methods[name] = _result(banking, array_model, seconds,
                                    prove(array_model, banking).conflict_free)
        rows.append(Row(kernel.name, sol.array.name, sol.lower_bound, methods,
                        sol.array.interface))
    rule_iis = {name: _rule_iis(kernel, bankings, ports) for name, bankings in chosen.items()
                if name != "arraypart"}
    rule_iis["arraypart"] = ours_ii
    rows = [replace(row, methods={
        m: replace(res, rule_ii=max((rule_iis[m].get(g.loop, 1)
                                     for g in model.array(row.array).groups), default=1))
        for m, res in row.methods.items()}) for row in rows]
    if synth and rows:
        rows = _synthesized(rows, chosen, models)
    return KernelBench(kernel.name, tuple(rows), solve_seconds, checker_agrees)


def _rule_iis(kernel, bankings, ports: int) -> dict[str, int]:
    """Loop name -> II under the scheduling rule with ``bankings`` on the kernel as
    written."""
    result = check.check_kernel(kernel, bankings, ports=ports, rule=True)
    return {loop.name: loop.achieved_ii for loop in result.loops}


def totals(benches: list[KernelBench], suite_seconds: float) -> dict:
    """Suite totals: banks x copies per method (all rows, and conflict-free rows), how
    often arraypart meets the lower bound, the arrays where a conflict-free baseline
    needs fewer BRAM18K (at any II, and at an II under the scheduling rule no worse
    than arraypart's) or is cheaper by arraypart's own ranking (BRAM18K, then LUTs, at
    such an II), the reduction against ``vitis_manual``, and solve times."""
    rows = [row for b in benches for row in b.rows]
    methods = ["arraypart", *BASELINES]
    out: dict = {"kernels": len(benches), "arrays": len(rows),
                 "suite_seconds": round(suite_seconds, 3)}
    for m in methods:
        out[m] = {"banks_x_copies": sum(r.methods[m].cost for r in rows),
                  "bram18k": sum(r.methods[m].bram18k for r in rows),
                  "arrays_at_ii_1_under_rule": sum(r.methods[m].rule_ii == 1 for r in rows),
                  "conflict_free_arrays": sum(r.methods[m].conflict_free for r in rows),
                  "lut": sum(r.methods[m].lut for r in rows),
                  "ff": sum(r.methods[m].ff for r in rows),
                  "rtl_bram18k": sum(r.methods[m].rtl_bram18k for r in rows)}
    ours = out["arraypart"]["banks_x_copies"]
    ref = out[REFERENCE_BASELINE]["banks_x_copies"]
    out["fewer_banks_than_" + REFERENCE_BASELINE] = round(1 - ours / ref, 4) if ref else 0.0
    out["resources_source"] = rows[0].methods["arraypart"].resources_source if rows else ""
    out["resources_vs_" + REFERENCE_BASELINE] = _same_ii_resources(rows)
    out["rtl_bram18k_above_a_baseline"] = _above(rows, lambda ours, res: (
        res.conflict_free and res.rtl_bram18k < ours.rtl_bram18k))
    out["rtl_bram18k_above_a_baseline_at_the_same_ii"] = _above(rows, lambda ours, res: (
        res.conflict_free and res.rule_ii <= ours.rule_ii
        and res.rtl_bram18k < ours.rtl_bram18k))
    out["at_lower_bound"] = sum(r.methods["arraypart"].cost == r.lower_bound for r in rows)
    out["at_lower_bound_fraction"] = round(out["at_lower_bound"] / len(rows), 4) if rows else 1.0
    out["more_banks_than_a_conflict_free_baseline"] = _above(rows, lambda ours, res: (
        res.conflict_free and res.cost < ours.cost))
    out["worse_than_a_conflict_free_baseline"] = [
        f"{r.kernel}/{r.array}" for r in rows
        if any(res.conflict_free and res.rule_ii <= r.methods["arraypart"].rule_ii
               and r.order(res) < r.order(r.methods["arraypart"])
               for m, res in r.methods.items() if m != "arraypart")]
    out["arraypart_conflict_free"] = all(r.methods["arraypart"].conflict_free for r in rows)
    out["checker_disagrees"] = [b.name for b in benches if not b.checker_agrees]
    solve_times = [b.solve_seconds for b in benches]
    out["median_solve_seconds"] = round(statistics.median(solve_times), 4) if solve_times else 0.0
    out["max_solve_seconds"] = round(max(solve_times, default=0.0), 4)
    return out


def _above(rows: list[Row], beaten) -> list[str]:
    """``kernel/array`` of the rows where ``beaten(ours, baseline)`` holds for some
    baseline."""
    return [f"{r.kernel}/{r.array}" for r in rows
            if any(beaten(r.methods["arraypart"], res)
                   for m, res in r.methods.items() if m != "arraypart")]


def _same_ii_resources(rows: list[Row]) -> dict:
    """LUT/FF/BRAM18K of arraypart and vitis_manual over the arrays where both are
    conflict-free and reach the same II under the scheduling rule, and arraypart's
    reduction."""
    same = [r for r in rows if r.methods["arraypart"].conflict_free
            and r.methods[REFERENCE_BASELINE].conflict_free
            and r.methods["arraypart"].rule_ii == r.methods[REFERENCE_BASELINE].rule_ii]
    out: dict = {"arrays": len(same)}
    for key in ("lut", "ff", "rtl_bram18k"):
        ours = sum(getattr(r.methods["arraypart"], key) for r in same)
        ref = sum(getattr(r.methods[REFERENCE_BASELINE], key) for r in same)
        out[key] = {"arraypart": ours, REFERENCE_BASELINE: ref,
                    "fewer": round(1 - ours / ref, 4) if ref else 0.0}
    return out


def _table(benches: list[KernelBench], summary: dict) -> Table:
    methods = ["arraypart", *BASELINES]
    table = Table(title="banks x copies per array (x: not conflict-free; /n: II n under "
                        "the scheduling rule)")
    for col in ("kernel", "array", "lower bound", *methods, "BRAM18K", "LUT", "FF",
                "solve s"):
        table.add_column(col, justify="left" if col in ("kernel", "array") else "right")
    for b in benches:
        for r in b.rows:
            cells = [f"{r.methods[m].cost}{'' if r.methods[m].conflict_free else ' x'}"
                     + (f" /{r.methods[m].rule_ii}" if r.methods[m].rule_ii > 1 else "")
                     for m in methods]
            ours = r.methods["arraypart"]
            table.add_row(r.kernel, r.array, str(r.lower_bound), *cells, str(ours.bram18k),
                          str(ours.lut), str(ours.ff), f"{ours.seconds:.3f}")
    table.add_section()
    table.add_row("total", "", "", *[str(summary[m]["banks_x_copies"]) for m in methods],
                  str(summary["arraypart"]["bram18k"]), str(summary["arraypart"]["lut"]),
                  str(summary["arraypart"]["ff"]), "")
    return table


def resources_table(summary: dict) -> str:
    """The README's table: per method, banks x copies, conflict-free arrays, BRAM18K,
    LUT and FF of the RTL model (fitted model or yosys, as ``resources_source`` says)."""
    lines = ["| method | banks x copies | conflict-free arrays | BRAM18K | LUT | FF |",
             "|---|---|---|---|---|---|"]
    for m in ["arraypart", *BASELINES]:
        t = summary[m]
        lines.append(f"| {m} | {t['banks_x_copies']} | {t['conflict_free_arrays']} | "
                     f"{t['rtl_bram18k']} | {t['lut']} | {t['ff']} |")
    return "\n".join(lines)


def kernel_files(dirs: list[Path]) -> list[Path]:
    files: list[Path] = []
    for d in dirs:
        files.extend(sorted(d.glob("*.c")) if d.is_dir() else [d])
    return files


def main(dirs: list[Path], *, json_file: str | None, ports: int, console: Console,
         synth: bool = False, markdown: bool = False) -> int:
    """Run the suite; print the table and totals; exit 1 when arraypart's banking of
    some array is not conflict-free or the checker disagrees with a proof."""
    files = kernel_files(dirs)
    if not files:
        raise KernelError(Coord(str(dirs[0]) if dirs else "."), "no kernel (.c file) found")
    benches: list[KernelBench] = []
    start = time.perf_counter()
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("banking", total=len(files))
        for path in files:
            progress.update(task, description=path.name)
            benches.append(bench_kernel(path, ports=ports, synth=synth))
            progress.advance(task)
    summary = totals(benches, time.perf_counter() - start)
    console.print(_table(benches, summary))
    console.print_json(json.dumps(summary))
    if markdown:
        console.print(resources_table(summary), markup=False, highlight=False)
    if json_file:
        Path(json_file).write_text(json.dumps(
            {"rows": [r.to_json() for b in benches for r in b.rows], "totals": summary},
            indent=2) + "\n")
    ok = summary["arraypart_conflict_free"] and not summary["checker_disagrees"]
    return 0 if ok else 1

