"""``simulate``: run a memory's Verilog in iverilog on the iterations the checker walks.

For every cycle group of the array, steps of its pipelined loop are taken from the
cycle-level checker's walk (:mod:`arraypart.check.walk`: the same iteration vectors, in
execution order; a few rows of the loops around it at the start, middle and end, then
evenly spaced steps).  Per step the testbench drives the loop's iterators, each lane's
enable (the step lies in the domain of one of its accesses), random irregular indices
and write data, and prints every enabled lane's bank and offset; those must equal the
scheme's numpy evaluation at the lane's element (:meth:`arraypart.scheme.Scheme.maps`).

Every word of every bank starts holding its element's row-major index (mod 2^width);
writes store that same value, so the content never changes and every read must return
its element's index one cycle later.  Read data is compared on the steps where every
bank's requests fit its ports (``PortModel.fits`` at II 1): a mis-routed address, port
or select shows up as a wrong value.
"""

from __future__ import annotations

import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import islpy as isl
import numpy as np

from .. import expr as E
from .. import ir
from ..check import frames as F
from ..check import walk as W
from ..ir import PORT_MODELS
from ..poly.isl_glue import each_point
from ..poly.model import ArrayModel
from .model import Memory, irregular_port
from ..templating import environment
from .verilog import module_name, port_list, render

#: Steps simulated per cycle group: enough to pass every lane through several banks.
SAMPLE_STEPS = 48
#: Rows of the loops around a pipelined loop walked at its start, middle and end.
EDGE_ROWS = 3
#: Banks x depth x copies above which the content is not loaded (no read-data check).
MAX_LOADED_WORDS = 1 << 18
#: Fixed seed: the same stimulus on every run.
SEED = 14


@dataclass(frozen=True)
class SimResult:
    """``checked``: lane-steps whose bank and offset were compared; ``reads_checked``:
    read values compared; ``mismatches``: the first few differences, as text."""

    checked: int
    reads_checked: int
    mismatches: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.mismatches


@dataclass(frozen=True)
class _Step:
    group: int
    values: dict[str, int]
    enabled: tuple[int, ...]
    elements: dict[int, tuple[int, ...]]
    irregular: dict[str, int]


def simulate(kernel: ir.Kernel, array_model: ArrayModel, mem: Memory, *,
             steps: int = SAMPLE_STEPS, workdir: str | Path | None = None) -> SimResult:
    """Simulate ``mem`` (the RTL model of ``array_model``'s array) with iverilog, on
    at most ``steps`` steps per cycle group."""
    rng = np.random.default_rng(SEED)
    sample = steps
    steps = []
    for g, group in enumerate(array_model.groups):
        steps.extend(_group_steps(kernel, g, group, mem, rng, sample))
    scheme = mem.banking.scheme
    bank_map, offset_map = scheme.maps()
    loaded = mem.banks * mem.depth * mem.copies <= MAX_LOADED_WORDS
    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        tmp = Path(tmp)
        init = _content_files(mem, bank_map, offset_map, tmp) if loaded else {}
        (tmp / "mem.v").write_text(render(mem, observe=True, init=init))
        (tmp / "tb.v").write_text(_testbench(mem, steps))
        subprocess.run(["iverilog", "-g2005", "-o", str(tmp / "sim"), str(tmp / "mem.v"),
                        str(tmp / "tb.v")], check=True, capture_output=True, text=True)
        out = subprocess.run(["vvp", "-n", str(tmp / "sim")], check=True,
                             capture_output=True, text=True, cwd=tmp).stdout
    return _compare(mem, steps, out, bank_map, offset_map, loaded)


def _group_steps(kernel: ir.Kernel, g: int, group, mem: Memory, rng,
                 sample: int) -> list[_Step]:
    points = _checker_points(kernel, group)
    if points is None:
        points = _domain_points(group)
    if len(points) > sample:
        keep = np.linspace(0, len(points) - 1, sample).round().astype(int)
        points = [points[i] for i in sorted(set(keep))]
    lanes = [(k, lane) for k, lane in enumerate(mem.lanes) if lane.group == g]
    domains = {k: _project_params(_union(group.accesses[a].domain for a in lane.accesses))
               for k, lane in lanes}
    steps = []
    for point in points:
        values = mem.groups[g].values(point)
        enabled, elements, irregular = [], {}, {}
        for k, lane in lanes:
            if not _contains(domains[k], group.time_vars, point):
                continue
            env = dict(values)
            for d, e in enumerate(lane.index):
                name = irregular_port(g, lane.accesses[0], d)
                if name in mem.ranges:
                    irregular[name] = env[name] = int(rng.integers(0, mem.shape[d]))
            x = tuple(int(E.evaluate(e, env)) for e in lane.index)
            if all(0 <= v < n for v, n in zip(x, mem.shape)):
                enabled.append(k)
                elements[k] = x
        steps.append(_Step(g, values, tuple(enabled), elements, irregular))
    return steps


def _checker_points(kernel: ir.Kernel, group) -> list[dict[str, int]] | None:
    """Iteration vectors of ``group``'s loop as the checker's walk produces them."""
    region = next((r for r in W.regions(kernel) if r.loop.name == group.loop), None)
    if region is None:
        return None
    rows = region.entry.rows
    starts = sorted({0, max(0, rows // 2 - EDGE_ROWS // 2), max(0, rows - EDGE_ROWS)})
    points: list[dict[str, int]] = []
    for lo in starts:
        hi = min(rows, lo + EDGE_ROWS)
        root, emitted = W.walk(region, F.take_rows(region.entry, lo, hi))
        for frame in [root] + [e.frame for e in emitted]:
            names = tuple(v for v, _ in frame.point)
            if set(names) == set(group.time_vars) and len(names) == len(group.time_vars):
                columns = dict(frame.point)
                for row in range(frame.rows):
                    point = {v: int(columns[v][row]) for v in names}
                    if point not in points:
                        points.append(point)
                break
        else:
            return None
    return points


def _domain_points(group, limit: int = 4 * SAMPLE_STEPS) -> list[dict[str, int]]:
    """The first points of the group's domain in lexicographic order (fallback)."""
    points: list[dict[str, int]] = []
    domain = _project_params(group.domain)

    def take(point: isl.Point) -> None:
        if len(points) < limit:
            points.append({v: point.get_coordinate_val(isl.dim_type.set, d).to_python()
                           for d, v in enumerate(group.time_vars)})
    each_point(domain, take)
    return points


def _project_params(s: isl.Set) -> isl.Set:
    n = s.dim(isl.dim_type.param)
    return s.project_out(isl.dim_type.param, 0, n) if n else s


def _union(sets) -> isl.Set:
    out = None
    for s in sets:
        out = s if out is None else out.union(s)
    return out


def _contains(domain: isl.Set, names: tuple[str, ...], point: dict[str, int]) -> bool:
    pt = isl.Point.zero(domain.space)
    for d, v in enumerate(names):
        pt = pt.set_coordinate_val(isl.dim_type.set, d, point[v])
    return not domain.intersect(isl.Set.from_point(pt)).is_empty()


def _content(mem: Memory, x: tuple[int, ...]) -> int:
    flat = 0
    for v, n in zip(x, mem.shape):
        flat = flat * n + v
    return flat % (1 << mem.elem_bits)


def _content_files(mem: Memory, bank_map, offset_map, tmp: Path) -> dict[tuple[int, int], str]:
    words = np.zeros((mem.banks, mem.depth), dtype=np.int64)
    flat = np.arange(bank_map.size, dtype=np.int64) % (1 << min(mem.elem_bits, 62))
    words[bank_map.ravel(), offset_map.ravel()] = flat
    files = {}
    for c in range(mem.copies):
        for b in range(mem.banks):
            path = tmp / f"c{c}_b{b}.hex"
            path.write_text("".join(f"{int(w):x}\n" for w in words[b]))
            files[c, b] = path.name
    return files


def _testbench(mem: Memory, steps: list[_Step]) -> str:
    ports = port_list(mem, observe=True)
    assigns = []
    for step in steps:
        lines = [f"{port} = {value};" for port, value in step.values.items()]
        for k, lane in enumerate(mem.lanes):
            on = k in step.elements
            lines.append(f"en{k} = {int(on)};")
            if lane.kind == "write":
                value = _content(mem, step.elements[k]) if on else 0
                lines.append(f"wd{k} = {value};")
        lines += [f"{name} = {value};" for name, value in step.irregular.items()]
        assigns.append({"n": len(assigns), "lines": lines, "lanes": list(step.enabled),
                        "reads": [k for k in step.enabled if mem.lanes[k].kind == "read"]})
    return environment().get_template("memory_tb.v.j2").render(
        top=module_name(mem), ports=ports, steps=assigns)


def _compare(mem: Memory, steps: list[_Step], out: str, bank_map, offset_map,
             loaded: bool) -> SimResult:
    seen: dict[tuple[str, int, int], tuple[int, ...]] = {}
    for line in out.splitlines():
        words = line.split()
        if words and words[0] in ("B", "R"):
            seen[words[0], int(words[1]), int(words[2])] = tuple(
                int(w) if w.lstrip("-").isdigit() else -1 for w in words[3:])
    model = PORT_MODELS[mem.ports]
    problems, checked, reads = [], 0, 0
    for n, step in enumerate(steps):
        for k in step.enabled:
            x = step.elements[k]
            want = (int(bank_map[x]), int(offset_map[x]))
            got = seen.get(("B", n, k))
            checked += 1
            if got != want:
                problems.append(f"step {n} {step.values} lane {k} element {x}: "
                                f"RTL bank, offset {got}, scheme {want}")
        if not loaded or not _fits(mem, step, bank_map, offset_map, model):
            continue
        for k in step.enabled:
            if mem.lanes[k].kind != "read":
                continue
            reads += 1
            want = (_content(mem, step.elements[k]),)
            got = seen.get(("R", n, k))
            if got != want:
                problems.append(f"step {n} {step.values} lane {k} element "
                                f"{step.elements[k]}: RTL read {got}, expected {want}")
    return SimResult(checked, reads, tuple(problems[:10]))


def _fits(mem: Memory, step: _Step, bank_map, offset_map, model: ir.PortModel) -> bool:
    use: dict[tuple[int, int], tuple[set, int]] = {}
    for k in step.enabled:
        lane, x = mem.lanes[k], step.elements[k]
        for c in lane.copies:
            reads, writes = use.get((c, int(bank_map[x])), (set(), 0))
            if lane.kind == "read":
                reads = reads | {int(offset_map[x])}
            else:
                writes += 1
            use[c, int(bank_map[x])] = (reads, writes)
    return all(model.fits(len(r), w, 1) for r, w in use.values())
