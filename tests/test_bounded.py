"""Bounded resources (issue 13, point 4): work and memory that grow with the input
only as they must.  Sizes are small but telling; no wall-clock assertions."""

import subprocess
import time
import sys
import tracemalloc
from functools import partial

import islpy as isl
import numpy as np
import pytest

import arraypart
from arraypart import api, banking, check, cli, codegen, frontend, poly
from arraypart.banking import bounds
from arraypart.check import driver, maps, trace
from arraypart.check import frames as F
from arraypart.frontend import clangtu, cnodes
from arraypart import limits
from arraypart.limits import Deadline, TimeLimit
from arraypart.poly import isl_glue as G
from arraypart.scheme import Scheme, flat_scheme

from conftest import alarm, bench_module, needs_gxx

bounded = bench_module("bounded")

FOUR_READS = """void k(const int in[64], int out[16]) {
  int buf[64];
  for (int i = 0; i < 64; i++) buf[i] = in[i];
  for (int i = 0; i < 16; i++) {
#pragma HLS pipeline II=1
    out[i] = buf[4 * i] + buf[4 * i + 1] + buf[4 * i + 2] + buf[4 * i + 3];
  }
}
"""


def test_codegen_is_linear_in_the_number_of_arrays(tmp_path, monkeypatch):
    """Code generation visits the tree a bounded number of times per array: doubling
    the arrays (and the tree) must not quadruple the visits."""
    visits = {"n": 0}  # analyze emits too: only the emit below is counted
    original = cnodes.walk

    def counting(node, **options):
        for visited in original(node, **options):
            visits["n"] += 1
            yield visited

    monkeypatch.setattr(cnodes, "walk", counting)
    for n in (40, 80):
        path = tmp_path / f"sep{n}.c"
        path.write_text(bounded.many_arrays(n))
        report = arraypart.analyze(path)
        visits["n"] = 0
        with alarm(120):
            codegen.emit(report.kernel, report.solution)
        visits[n] = visits["n"]
    assert visits[80] < 2.5 * visits[40], visits


def test_dump_maps_holds_one_arrays_maps_at_a_time(tmp_path):
    arrays, side = 4, 256
    lines = [f"void dm(int in[{side}][{side}], int out[{side}][{side}]) {{"]
    lines += [f"  int a{a}[{side}][{side}];" for a in range(arrays)]
    for a in range(arrays):
        lines += [f"  for (int i = 0; i < {side}; i++) for (int j = 0; j < {side}; j++) {{",
                  "#pragma HLS pipeline II=1",
                  f"    a{a}[i][j] = in[i][j]; }}"]
    lines += [f"  for (int i = 0; i < {side}; i++) for (int j = 0; j < {side}; j++) {{",
              "#pragma HLS pipeline II=1",
              "    out[i][j] = " + " + ".join(f"a{a}[i][j]" for a in range(arrays)) + "; }",
              "}"]
    path = tmp_path / "dm.c"
    path.write_text("\n".join(lines) + "\n")
    one_array = 2 * side * side * np.dtype(np.int64).itemsize  # bank and offset maps
    tracemalloc.start()
    try:
        compiled = arraypart.compile_kernel(path, dump_maps=True)
        tracemalloc.reset_peak()  # the maps are computed while they are written
        out = arraypart.write_project(compiled, tmp_path / "out")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # Six arrays' .npz files held at once are 6 * one_array (their maps as much
    # again); streamed, the peak is about one array's maps.
    assert peak < 6 * one_array, (peak, one_array)
    assert len(list((out / "maps").glob("*.npz"))) == arrays + 2
    with np.load(out / "maps" / "a3.npz") as maps:
        assert maps["bank"].shape == (side, side) and maps["offset"].shape == (side, side)


# ---------------------------------------------------------------- deep nests

def test_counting_a_deep_nest_scans_no_product(monkeypatch):
    """isl's count_val scans every point of all dimensions but the last (2^49 for 50
    nested loops, in one call Ctrl-C cannot stop): a box is counted as a product of
    one-dimensional counts instead."""
    scanned = []
    original = isl.Set.count_val

    def counting(s):
        scanned.append(s.dim(isl.dim_type.set))
        return original(s)

    monkeypatch.setattr(isl.Set, "count_val", counting)
    names = [f"i{k}" for k in range(16)]
    box = isl.Set("{ [%s] : %s }" % (", ".join(names),
                                     " and ".join(f"0 <= {v} < 2" for v in names)))
    assert G.count(box) == 2 ** 16
    assert max(scanned) == 1
    triangle = isl.Set("{ [t, i, j] : 0 <= t < 3 and 0 <= i < 10 and 0 <= j <= i "
                       "and (j mod 2) = 0 }")
    scanned.clear()
    assert G.count(triangle) == 3 * sum(i // 2 + 1 for i in range(10))
    assert max(scanned) == 2  # t splits off; i and j are coupled


# ---------------------------------------------------------------- the checker

LONG_LOOP = """void ll(int in[64], int out[1]) {
  int buf[64];
  for (int i = 0; i < 64; i++) buf[i] = in[i];
  int s = 0;
  for (int t = 0; t < 1000; t++) {
#pragma HLS pipeline II=1
    s += buf[t % 64] + buf[(t + 1) % 64];
  }
  out[0] = s;
}
"""

WIDE_STEP = """void ws(int in[16][16], int out[16][16]) {
  int buf[16][16];
  for (int i = 0; i < 16; i++) for (int j = 0; j < 16; j++) buf[i][j] = in[i][j];
  for (int i = 0; i < 12; i++) for (int j = 0; j < 12; j++) {
#pragma HLS pipeline II=1
    int s = 0;
    for (int a = 0; a < 5; a++) for (int b = 0; b < 5; b++) s += buf[i + a][j + b];
    out[i][j] = s;
  }
}
"""


def _recording_walks(monkeypatch):
    """Record (steps, table cells) of every chunk the checker walks."""
    walks = []
    original = driver.walk_steps

    def recording(region, steps):
        emitted, cells = original(region, steps)
        walks.append((region.loop.name, steps.rows, cells))
        return emitted, cells

    monkeypatch.setattr(driver, "walk_steps", recording)
    return walks


def test_checker_splits_one_long_loop_into_chunks(monkeypatch):
    """A pipelined loop entered once is one row of the entry frame: its 1,000 steps
    must still come in chunks (4x10^8 steps were one table before), with the same
    verdict as in one piece."""
    kernel = frontend.parse_source(LONG_LOOP, "ll.c", pipeline_loops=False)
    whole = check.check_kernel(kernel, {}, ports=1)
    monkeypatch.setattr(driver, "CHUNK_CELLS", 64)
    walks = _recording_walks(monkeypatch)
    chunked = check.check_kernel(kernel, {}, ports=1)
    assert chunked == whole
    assert whole.loops[0].iterations == 1000 and whole.loops[0].achieved_ii == 2
    long_walks = [(rows, cells) for name, rows, cells in walks if name == "L5"]
    assert len(long_walks) > 10
    assert all(cells <= 64 or rows == 1 for rows, cells in long_walks), long_walks


def test_checker_chunks_count_lanes_not_steps(monkeypatch):
    """A step of a 5x5 unrolled window is 25 lanes: a chunk holds fewer steps than a
    chunk of one-lane steps (the 24x24 window was 331,776 lanes a step and ran out of
    memory with chunks counted in steps)."""
    kernel = frontend.parse_source(WIDE_STEP, "ws.c", pipeline_loops=False)
    whole = check.check_kernel(kernel, {}, ports=2)
    monkeypatch.setattr(driver, "CHUNK_CELLS", 200)
    walks = _recording_walks(monkeypatch)
    assert check.check_kernel(kernel, {}, ports=2) == whole
    window = [(rows, cells) for _, rows, cells in walks]
    assert window and max(rows for rows, _ in window) < 200 // 25
    assert all(cells <= 200 or rows == 1 for rows, cells in window), window


class _Ticks:
    """A clock that advances one second each time it is read."""

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        self.now += 1.0
        return self.now


def test_checker_honours_its_deadline_between_chunks(monkeypatch):
    kernel = frontend.parse_source(LONG_LOOP, "ll.c", pipeline_loops=False)
    monkeypatch.setattr(driver, "CHUNK_CELLS", 64)
    ticks = _Ticks()
    deadline = Deadline.after(5, clock=ticks)  # read once here: passes at the 5th chunk
    with pytest.raises(TimeLimit):
        check.check_kernel(kernel, {}, ports=1, deadline=deadline)
    assert ticks.now == 7  # one read to set it, one per chunk until past 6


def test_scheduling_check_past_its_time_limit_is_exit_1_not_a_claim(tmp_path, monkeypatch,
                                                                     capsys):
    path = tmp_path / "ll.c"
    path.write_text(LONG_LOOP)
    checker = check.check_kernel

    def passed(kernel, bankings, *, deadline=None, **options):
        assert deadline is not None  # both the compile and `check --as-written` set one
        return checker(kernel, bankings, deadline=Deadline(-1.0, 0.5), **options)

    monkeypatch.setattr(check, "check_kernel", passed)
    report = arraypart.analyze(path)
    assert report.scheduled is None and report.time_limited and not report.goals_met
    assert any("scheduling-rule check of the emitted code passed the time limit" in w
               for w in report.warnings)
    assert report.to_json()["time_limit_reached"] is True
    assert cli.main(["analyze", str(path)]) == 1
    assert cli.main(["check", str(path)]) == 1
    assert "no verdict" in capsys.readouterr().err
    assert cli.main(["check", "--as-written", str(path)]) == 1


# ---------------------------------------------------------------- maps

class _GivenMaps:
    """A scheme stand-in whose maps are given arrays; records the slabs asked for."""

    def __init__(self, bank, offset, banks, depth):
        self.bank, self.offset, self.banks, self.bank_depth = bank, offset, banks, depth
        self.shape, self.size = bank.shape, bank.size
        self.asked = []

    def maps(self, rows=None):
        lo, hi = rows or (0, self.shape[0])
        self.asked.append(hi - lo)
        return self.bank[lo:hi], self.offset[lo:hi]

    def slabs(self, elements):
        return Scheme.slabs(self, elements)


@pytest.mark.parametrize("seed", range(12))
def test_map_check_streams_slabs_with_the_whole_maps_verdict(seed, monkeypatch):
    """The map check evaluates a few rows at a time (2^24 elements were 1 GB of maps
    and sort keys at once) and finds what the whole-map check finds."""
    rng = np.random.default_rng(seed)
    banks, depth = 4, 10
    slots = rng.permutation(banks * depth)[:36].reshape(6, 6)
    bank, offset = slots // depth, slots % depth
    if seed % 3 == 1:  # two elements share a slot
        a, b = rng.choice(36, 2, replace=False)
        bank.flat[b], offset.flat[b] = bank.flat[a], offset.flat[a]
    if seed % 3 == 2:  # a bank or an offset out of range
        bank.flat[rng.integers(36)] = banks if seed % 2 else -1
        offset.flat[rng.integers(36)] = depth
    whole = maps._problem(_GivenMaps(bank, offset, banks, depth), np.arange(36),
                          bank.ravel(), offset.ravel())
    monkeypatch.setattr(maps, "MAP_SLAB", 12)
    given = _GivenMaps(bank, offset, banks, depth)
    assert maps._streamed_problem(given) == whole
    assert (whole == "") == (seed % 3 == 0)
    assert max(given.asked) == 2  # rows of 6 elements, 12 at a time


def test_dump_maps_writes_slabs(tmp_path, monkeypatch):
    """Each .npz member is written a slab at a time: the peak is a slab's maps, not
    the array's (8 arrays of 4096x4096 were 2.8 GB), and the file is the same."""
    side = 1024
    scheme = flat_scheme((side, side), (1, 3), 5, 2)
    compiled = api.Compiled(None, {}, {"buf": partial(api._write_npz, scheme)})
    whole = arraypart.write_project(compiled, tmp_path / "whole")
    monkeypatch.setattr(api, "DUMP_SLAB_ELEMENTS", 4 * side)
    one_array = 2 * side * side * np.dtype(np.int64).itemsize
    tracemalloc.start()
    try:
        sliced = arraypart.write_project(compiled, tmp_path / "sliced")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < one_array / 4, (peak, one_array)  # the manifest reads 1 MiB chunks
    data = (sliced / "maps" / "buf.npz").read_bytes()
    assert data == (whole / "maps" / "buf.npz").read_bytes()
    with np.load(sliced / "maps" / "buf.npz") as m:
        bank, offset = scheme.maps()
        assert (m["bank"] == bank).all() and (m["offset"] == offset).all()


def test_model_building_honours_its_deadline(tmp_path, capsys, monkeypatch):
    kernel = frontend.parse_source(WIDE_STEP, "ws.c", pipeline_loops=False)
    ticks = _Ticks()
    with pytest.raises(TimeLimit) as limit:
        poly.build_model(kernel, deadline=Deadline.after(10, clock=ticks))
    assert limit.value.stage == "building the polyhedral model"
    assert ticks.now == 12  # 25 lane accesses and more were left when it stopped
    path = tmp_path / "ws.c"
    path.write_text(WIDE_STEP)
    assert cli.main(["analyze", str(path), "--time-limit", "1e-9"]) == 1  # the search
    assert "polyhedral model" not in capsys.readouterr().err  # the model has its floor
    monkeypatch.setattr(limits, "STAGE_FLOOR_S", 0.0)
    assert cli.main(["analyze", str(path), "--time-limit", "1e-9"]) == 1
    err = capsys.readouterr().err
    assert "time limit of 1e-09 s reached while building the polyhedral model" in err


def deep_nest(depth: int) -> str:
    its = [f"i{d}" for d in range(depth)]
    loops = " ".join(f"for (int {v} = 0; {v} < 2; {v}++)" for v in its)
    index = " + ".join(its)
    return f"""void deep(int in[{depth + 1}], int out[{depth + 1}]) {{
  int buf[{depth + 1}];
  for (int i = 0; i < {depth + 1}; i++) buf[i] = in[i];
  {loops} {{
#pragma HLS pipeline II=1
    out[{index}] += buf[{index}];
  }}
}}
"""


def test_deep_nest_entry_pieces_shrink_with_depth(monkeypatch):
    """Every level of a nest of sequential loops holds one piece of its frame at a
    time, each with columns per enclosing loop: pieces shrink with the square of the
    depth (50 loops held 600 MB), and the verdict does not change."""
    depth = 10
    kernel = frontend.parse_source(deep_nest(depth), "deep.c", pipeline_loops=False)
    whole = check.check_kernel(kernel, {}, ports=2)
    cells = 3 * (depth + 1) ** 2 * 8
    monkeypatch.setattr(driver, "CHUNK_CELLS", cells)
    pieces = []
    original = F.enter_pieces

    def recording(frame, loop, width, **options):
        for piece in original(frame, loop, width, **options):
            if loop.pipeline_ii is None:  # a sequential loop around the pipeline
                pieces.append(piece.rows)
            yield piece

    monkeypatch.setattr(F, "enter_pieces", recording)
    assert check.check_kernel(kernel, {}, ports=2) == whole
    assert whole.loops[0].iterations == 2 ** depth
    assert pieces and max(pieces) <= 8, max(pieces)


SIZES_OF_TWO_LOOPS = """
void two(int a[64], int b[64], int n, int m) {
#pragma HLS LOOP_TRIPCOUNT max=64
  L1: for (int i = 0; i < n; i++) {
#pragma HLS pipeline II=1
#pragma HLS LOOP_TRIPCOUNT max=64
    a[i] = a[i] + 1;
  }
  L2: for (int j = 0; j < m; j++) {
#pragma HLS pipeline II=1
#pragma HLS LOOP_TRIPCOUNT max=64
    b[j] = b[j] + a[j];
  }
}
"""


def test_checker_replays_only_the_sizes_a_loop_reads():
    """Each loop is replayed over the checked values of the sizes that it or the path
    to it reads: the values of the other loop's size give the same steps again (3d-
    rendering replayed each loop 9 times over, 45 s of its scheduling check)."""
    kernel = poly.bound_sizes(frontend.parse_source(SIZES_OF_TWO_LOOPS, "two.c",
                                                    pipeline_loops=False))
    by_name = {p.name: p for p in kernel.params}
    assert set(by_name) == {"n", "m"}
    result = check.check_kernel(kernel, {}, ports=2)
    for loop, size in zip(result.loops, ("n", "m")):
        assert loop.iterations == sum(F.checked_values(by_name[size])), loop
        assert loop.achieved_ii == 1


def test_a_deep_nest_is_lowered_once_per_loop(monkeypatch):
    """Each loop of a nest whose loops declare their own iterators is lowered once: an
    inner iterator is the body's own scalar, which no iteration carries to the next,
    so no loop's body is followed for its scalars' steps (it was, at every level: 2^d
    lowerings, depth 20 past a 10 s limit while reading the kernel)."""
    from arraypart.frontend import loops
    lowered = []
    original = loops.LoopLowering._loop

    def counting(self, node, label):
        lowered.append(node.coord.line)
        return original(self, node, label)

    monkeypatch.setattr(loops.LoopLowering, "_loop", counting)
    depth = 12
    kernel = frontend.parse_source(deep_nest(depth), "deep.c", pipeline_loops=False)
    assert len(lowered) == depth + 1  # the copy loop and the nest
    assert kernel.body[-1].var == "i0"


def test_an_array_whose_search_runs_out_of_memory_keeps_one_memory(tmp_path, monkeypatch):
    """An allocation past the memory limit (``MemoryError``) in one array's search
    ends that search as the time limit does: one memory, proven by counting, a
    warning, exit 1; the other arrays are banked as usual."""
    from arraypart.banking import driver as solver
    searched = solver._solve_array

    def hungry(am, options):
        if am.array.name == "buf":
            raise MemoryError
        return searched(am, options)

    monkeypatch.setattr(solver, "_solve_array", hungry)
    path = tmp_path / "k.c"
    path.write_text(FOUR_READS)
    report = arraypart.analyze(path)
    buf = next(a for a in report.solution.arrays if a.array.name == "buf")
    assert buf.banking.scheme.banks == 1 and buf.time_limited
    assert any("memory limit (--memory-limit) reached while banking buf" in note
               for note in buf.notes)
    assert report.time_limited and not report.goals_met


def test_past_the_memory_limit_a_run_ends_with_exit_1_and_writes_nothing(tmp_path):
    """``--memory-limit`` bounds the worker's data memory: past it the run ends with a
    one-line message and exit 1, writes nothing, and prints no traceback."""
    path = tmp_path / "k.c"
    path.write_text(FOUR_READS)
    run = subprocess.run([sys.executable, "-m", "arraypart", "compile", str(path), "-o",
                          str(tmp_path / "out"), "--memory-limit", "40M"],
                         capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == 1, run.stderr
    assert "memory limit of 40 MiB reached" in run.stderr and "Traceback" not in run.stderr
    assert not (tmp_path / "out").exists()
    assert cli._size("4G") == 4 << 30 and cli._size("512m") == 512 << 20


def test_every_replay_of_a_run_shares_one_deadline(tmp_path, monkeypatch):
    """The scheduling rule's replay runs again after a retry and for the idle-bank
    check; each had the whole ``--time-limit`` (probe 28: 41 s at the default 30 s on a
    512x512 matrix product).  Every replay of one run now gets the same deadline
    (BOX3 on single-port banks is retried; so are the chained lanes it used before,
    except under the first one-epoch rule of 2026-12-07, which banked their reads
    across writes a constant away as loads of their own)."""
    from test_schedule_rule import BOX3
    deadlines = []
    replay = api.schedule_emitted

    def spy(*args, deadline=None, **kwargs):
        deadlines.append(deadline)
        return replay(*args, deadline=deadline, **kwargs)

    monkeypatch.setattr(api, "schedule_emitted", spy)
    path = tmp_path / "box3.c"
    path.write_text(BOX3)
    api.analyze(path, ports=1)
    assert len(deadlines) == 2  # the first replay and the retry's
    assert deadlines[0] is deadlines[1]


MASKED_ACCUMULATOR = """void acc(const int size, int out[32]) {
  int buf[32];
  for (int i = 0; i < size; i++) {
#pragma HLS LOOP_TRIPCOUNT max=1024
#pragma HLS unroll factor=32
    buf[i & 31] += 1;
  }
  for (int j = 0; j < 32; j++) out[j] = buf[j];
}
"""


def _refuse_all_differ(monkeypatch) -> None:
    """The lower bound's exhaustive isl search, made an error."""
    def refuse(*_):
        raise AssertionError("all_differ_set built")
    monkeypatch.setattr(bounds.S, "all_differ_set", refuse)


def _buf_model(trips: int, reads: str):
    """The one-port model of ``buf`` in a kernel copying ``in`` to it, then summing
    ``reads`` of it per pipelined iteration over ``i < trips``."""
    source = (f"void k(const int in[64], int out[64]) {{\n  int buf[64];\n"
              f"  for (int i = 0; i < 64; i++) buf[i] = in[i];\n"
              f"  for (int i = 0; i < {trips}; i++) {{\n#pragma HLS pipeline II=1\n"
              f"    out[i] = {reads};\n  }}\n}}\n")
    kernel = frontend.parse_source(source, "k.c")
    return next(am for am in poly.build_model(kernel, ports=1).arrays
                if am.array.name == "buf")


def test_lanes_distinct_at_a_sample_point_need_no_isl_disjunction(tmp_path, monkeypatch):
    """``buf[i & 31] += 1`` under unroll factor 32 (ACRi's simple-accum): the lower
    bound proved the 32 lanes pairwise distinct with one isl set of 496 disjunctions
    per cell of the run-time bound, 1.4 s each, so the default time limit ended the
    run with nothing written (probe 31 F1).  One sample point where they differ is a
    witness: the set is never built, and the bound is still 32."""
    _refuse_all_differ(monkeypatch)
    path = tmp_path / "acc.c"
    path.write_text(MASKED_ACCUMULATOR)
    report = arraypart.analyze(path)
    model = next(am for am in report.model.arrays if am.array.name == "buf")
    assert bounds.lower_bound(model) == 32


def test_a_bound_without_search_never_asks_isl(monkeypatch):
    """``buf[i]`` and ``buf[i / 2 * 2]`` meet at every even i, so unless isl's sample
    point is odd only isl shows them distinct; a run the time limit ended once asks
    for no such search (``exhaustive=False``): its bound may be the weaker one."""
    model = _buf_model(32, "buf[i] + buf[i / 2 * 2]")
    shapes = [bounds.analyze_group(g, 1) for g in model.groups]
    assert bounds.lower_bound_of(model.ports, shapes, model.array) == 2
    _refuse_all_differ(monkeypatch)
    assert bounds.lower_bound_of(model.ports, shapes, model.array, exhaustive=False) in (1, 2)


def test_the_idle_bank_check_gives_up_at_its_deadline(tmp_path):
    """Whether one memory would reach the II the banks reach is an isl proof run after
    the search, within the scheduling stage's time; it had no deadline, so a kernel of
    floor and mod subscripts (probe 31b F4) was killed there and nothing was written.
    Past its deadline the check keeps the banks (None), before it one memory is
    proven (the control)."""
    path = tmp_path / "four.c"
    path.write_text(FOUR_READS.replace("64", "4096").replace("16", "1024"))
    report = arraypart.analyze(path, ports=1)
    chosen = next(a for a in report.solution.arrays if a.array.name == "buf")
    assert chosen.banking.scheme.banks > 1
    one = banking.cheaper_one_memory(report.model, chosen, "why")
    assert one is not None and one.banking.scheme.banks == 1
    past = time.perf_counter() - 1
    assert banking.cheaper_one_memory(report.model, chosen, "why", deadline=past) is None


def test_lanes_that_always_meet_are_one_address_of_the_bound(monkeypatch):
    """``buf[i]`` and ``buf[(i + 8) % 8]`` meet at every i in 0..7, ``buf[7 - i]``
    never meets them (i = 7 - i has no integer solution): two distinct addresses a
    cycle, so one port needs two banks.  All three were required to differ, so the
    bound was 1, found by an isl search of pairwise disjunctions that hung on floor
    and mod subscripts (probe 31b F4); sample points and one small isl set per
    meeting pair give 2 without it."""
    model = _buf_model(8, "buf[i] + buf[(i + 8) % 8] + buf[7 - i]")
    _refuse_all_differ(monkeypatch)
    assert bounds.lower_bound(model) == 2


# probe 31b's dup.c: lanes u = 0 and u = 3 of the second read always meet, and the
# floor and mod terms of eight lanes made one intersection of the one-memory proof's
# clique walk run for about a minute, inside one isl call the deadline cannot reach.
ALWAYS_MEETING = """void dup(int a[64][8], int b[64]) {
  for (int i = 0; i < 64; i += 4) {
#pragma HLS pipeline II=1
    for (int u = 0; u < 4; u++) {
#pragma HLS unroll
      b[i + u] = a[(i + u) / 3][(i + u) % 8] + a[(i + u) >> 2][(i + u) % 3];
    }
  }
}
"""


def test_a_proof_step_past_isls_operation_budget_is_judged_by_counting(tmp_path,
                                                                       monkeypatch):
    """isl counts its elementary operations; a step of the clique walk past
    ``MAX_STEP_OPERATIONS`` fails instead of running on, and the group is judged by
    counting (sound, coarse: the eight reads of one memory on two ports need II 4).
    isl's own limit is restored after, and a budget that is not spent changes no
    verdict (the control: the same proof with the default budget on a simple
    group)."""
    from arraypart.banking import proof
    from arraypart.scheme import Banking, none_scheme
    path = tmp_path / "dup.c"
    path.write_text(ALWAYS_MEETING)
    built = poly.build_model(frontend.parse_kernel(str(path)))
    model = built.array("a")
    (group,) = model.groups
    one = Banking("a", none_scheme((64, 8)))
    monkeypatch.setattr(proof, "MAX_STEP_OPERATIONS", 1000)
    verdict = proof.prove_group(model, group, one)
    assert verdict.ii == 4 and "by counting, 8 reads" in verdict.counterexample
    assert isl.DEFAULT_CONTEXT.get_max_operations() == 0
    thirds = isl.Set("{ [i, j] : exists (e, f: i = 3e + 1 and j = 5f + 2 and "
                     "0 <= i < 1000 and 0 <= j < 1000) }")
    sevenths = isl.Set("{ [i, j] : exists (e: i + j = 7e + 3) and i < j }")
    with G.operation_budget(10):
        with pytest.raises(isl.Error) as error:
            thirds.intersect(sevenths)
    assert G.out_of_operations(error.value)
    monkeypatch.setattr(proof, "MAX_STEP_OPERATIONS", 5_000_000)
    b_model = built.array("b")
    walked = proof.prove_group(b_model, b_model.groups[0], Banking("b", none_scheme((64,))))
    assert walked.ii == 2 and walked.isl_checks > 0


# probe 33 F1: a 2-D array complete on its rows, filled row by row: under the rule each
# write's bank changes with the iteration, so it takes a port of every one of 32 banks.
FILLED_ROWS = """void rows(const int image[32 * 64], int out[64]) {
  int lcl[32][64];
#pragma HLS ARRAY_PARTITION variable=lcl complete dim=1
  for (int i = 0; i < 32; i++)
    for (int j = 0; j < 64; j++) {
#pragma HLS PIPELINE II=1
      lcl[i][j] = image[i * 64 + j];
    }
  for (int x = 0; x < 64; x++) {
#pragma HLS PIPELINE II=1
    int s = 0;
    for (int c = 0; c < 32; c++) s += lcl[c][x];
    out[x] = s;
  }
}
"""


@needs_gxx
def test_the_rule_replay_holds_a_chunk_of_port_uses_not_of_records(tmp_path,
                                                                    monkeypatch):
    """Under the scheduling rule a record whose bank moves becomes a port use of
    every bank of its copy: chunks of records grew 32-fold here (96 banks over 280k
    steps took 7 GB).  A chunk now holds CHUNK_RECORDS port uses (past one step), with
    the verdict of the unchunked replay."""
    from arraypart.check import replay
    path = tmp_path / "rows.cpp"
    path.write_text(FILLED_ROWS)
    report = api.analyze(path)
    recorded = trace.record(report.kernel, clangtu.Options(), tmp_path,
                            report.solution.emitted_bankings())
    whole = api.judge_trace(report, recorded, as_written=True, ports=2)
    monkeypatch.setattr(replay, "CHUNK_RECORDS", 256)
    sizes = []
    uses = replay._uses
    monkeypatch.setattr(replay, "_uses", lambda *a, **k: sizes.append(
        len(uses(*a, **k)["loop"])) or uses(*a, **k))
    chunked = api.judge_trace(report, recorded, as_written=True, ports=2)
    assert [l.traced_ii for l in chunked.replay.loops] == [
        l.traced_ii for l in whole.replay.loops]
    assert len(sizes) > 100 and max(sizes) <= 256 + 32
