"""Vitis's automatic pipelining threshold (``config_compile -pipeline_loops``, default
64): an innermost loop of at most that many trips is unrolled into its parent, which
is pipelined in its place (arraypart.frontend.pipelining); issue #13, probe 37 F1."""

import json

import pytest

import arraypart
from arraypart import api, cli, frontend

from conftest import (assert_the_testbench_passes, assert_the_trace_agrees, array,
                      needs_gxx, write)

# vconv's shape (Vitis_Accel_Examples dependence_inter): 11 taps under a row loop of
# run-time length
TAPS = """\
void taps(const int in[704], int out[64], int n) {
    int buf[704];
    for (int k = 0; k < 704; k++) buf[k] = in[k];
    for (int r = 0; r < n; r++) {
        int acc = 0;
        for (int i = 0; i < TAPS; i++) acc += buf[r * 11 + i] * (i + 1);
        out[r] = acc;
    }
}
"""

# two levels of short loops under a long one: the pipeline climbs twice
TILES = """\
void tiles(const int in[3200], int out[200]) {
    int buf[3200];
    for (int k = 0; k < 3200; k++) buf[k] = in[k];
    for (int t = 0; t < 200; t++) {
        int acc = 0;
        for (int a = 0; a < 4; a++) {
            for (int b = 0; b < 4; b++) acc += buf[t * 16 + a * 4 + b];
        }
        out[t] = acc;
    }
}
"""

# the parent also holds a loop of 200 trips, which it cannot unroll: no climb
SIBLING = """\
void sibling(const int in[800], int out[200], int n) {
    int buf[800];
    int acc[200];
    for (int k = 0; k < 800; k++) buf[k] = in[k];
    for (int r = 0; r < n; r++) {
        int s = 0;
        for (int i = 0; i < 8; i++) s += buf[r * 8 + i];
        for (int j = 0; j < 200; j++) acc[j] = s + j;
        out[r] = acc[r];
    }
}
"""

# a single short loop: no parent, so it is pipelined whatever its trip count
SINGLE = """\
void single(const int in[5], int out[5]) {
    for (int i = 0; i < 5; i++) out[i] = in[i] * 3;
}
"""


# the climb from c would reach a, unrolling 64 x 32 = 2048 copies of the body: past
# MAX_RAISED_LANES (1024) it stops at b, with a warning
WIDE = """\
void wide(const int in[2048], int out[8]) {
    int buf[2048];
    for (int k = 0; k < 2048; k++) buf[k] = in[k];
    for (int a = 0; a < 8; a++) {
        int acc = 0;
        for (int b = 0; b < 64; b++) {
            for (int c = 0; c < 32; c++) acc += buf[b * 32 + c] * a;
        }
        out[a] = acc;
    }
}
"""


def pipelined(compiled) -> list[tuple[str, bool]]:
    """report.json's pipelined loops: (name, pipeline_inferred)."""
    loops = json.loads(compiled.files["report.json"])["loops"]
    return [(loop["name"], loop["pipeline_inferred"]) for loop in loops]


def memories(compiled, name: str) -> int:
    """How many memories array ``name`` becomes: banks times copies."""
    banking = array(compiled.report, name).banking
    return banking.scheme.banks * banking.copies


def checked(compiled, tmp_path, **options) -> dict[str, int]:
    """``check``'s II per loop (the scheduling rule on the emitted code), which must
    equal compile's claims; and ``check --trace`` must agree."""
    report, _, result = api.check_kernel(compiled.report.kernel.path, **options)
    iis = {loop.name: loop.achieved_ii for loop in result.loops}
    claimed = {l["name"]: l["achieved_ii"]
               for l in json.loads(compiled.files["report.json"])["loops"]}
    assert iis == claimed
    assert_the_trace_agrees(compiled, tmp_path, ports=2)
    return iis


@needs_gxx
@pytest.mark.parametrize("taps", [11, 16])
def test_a_short_inner_loop_is_unrolled_into_its_pipelined_parent(tmp_path, taps):
    path = write(tmp_path, "taps.c", TAPS.replace("TAPS", str(taps)))
    compiled = arraypart.compile_kernel(path)
    assert pipelined(compiled) == [("L3", True), ("L4", True)]
    (row,) = [loop for loop in compiled.report.kernel.body if loop.name == "L4"]
    (inner,) = [n for n in row.body if getattr(n, "name", None) == "L6"]
    assert inner.pipeline_ii is None  # a lane loop of the row's pipeline
    # taps reads of buf a cycle on two ports: at least taps / 2 memories (one memory
    # before: the inner loop was pipelined with one read a cycle)
    assert memories(compiled, "buf") >= taps // 2
    assert checked(compiled, tmp_path) == {"L3": 1, "L4": 1}
    assert_the_testbench_passes(compiled, tmp_path)


@needs_gxx
def test_a_long_inner_loop_stays_the_pipelined_one(tmp_path):
    path = write(tmp_path, "taps.c", TAPS.replace("TAPS", "100").replace("704", "6400")
                 .replace("r * 11", "r * 100"))
    compiled = arraypart.compile_kernel(path)
    assert pipelined(compiled) == [("L3", True), ("L6", True)]
    assert memories(compiled, "buf") == 1
    assert checked(compiled, tmp_path) == {"L3": 1, "L6": 1}
    assert_the_testbench_passes(compiled, tmp_path)


@needs_gxx
def test_a_short_loop_with_no_parent_is_pipelined(tmp_path):
    compiled = arraypart.compile_kernel(write(tmp_path, "single.c", SINGLE))
    assert pipelined(compiled) == [("L2", True)]
    assert checked(compiled, tmp_path) == {"L2": 1}
    assert_the_testbench_passes(compiled, tmp_path)


@needs_gxx
def test_the_pipeline_climbs_past_two_short_loops(tmp_path):
    compiled = arraypart.compile_kernel(write(tmp_path, "tiles.c", TILES))
    assert pipelined(compiled) == [("L3", True), ("L4", True)]
    # 16 reads of buf a cycle on two ports
    assert memories(compiled, "buf") >= 8
    assert checked(compiled, tmp_path) == {"L3": 1, "L4": 1}
    assert_the_testbench_passes(compiled, tmp_path)


@needs_gxx
def test_a_parent_holding_a_long_loop_is_not_pipelined(tmp_path):
    compiled = arraypart.compile_kernel(write(tmp_path, "sibling.c", SIBLING))
    assert pipelined(compiled) == [("L4", True), ("L7", True), ("L8", True)]
    assert checked(compiled, tmp_path) == {"L4": 1, "L7": 1, "L8": 1}
    assert_the_testbench_passes(compiled, tmp_path)


def test_the_threshold_is_an_option_and_the_project_sets_it(tmp_path):
    path = write(tmp_path, "taps.c", TAPS.replace("TAPS", "11"))
    default = arraypart.compile_kernel(path)
    assert "config_compile -pipeline_loops 64\n" in default.files["run_hls.tcl"]
    assert "syn.compile.pipeline_loops=64\n" in default.files["hls_config.cfg"]
    args = cli.build_parser().parse_args(["compile", str(path), "--pipeline-loops", "4"])
    low = arraypart.compile_kernel(path, cli._options(args))
    # 11 trips > 4: the inner loop is pipelined itself, with one read a cycle
    assert pipelined(low) == [("L3", True), ("L6", True)]
    assert memories(low, "buf") == 1
    assert "config_compile -pipeline_loops 4\n" in low.files["run_hls.tcl"]
    assert "syn.compile.pipeline_loops=4\n" in low.files["hls_config.cfg"]
    _, _, result = api.check_kernel(path, pipeline_loops=4)
    assert {loop.name: loop.achieved_ii for loop in result.loops} == {"L3": 1, "L6": 1}


def test_no_auto_pipeline_sets_a_threshold_of_zero(tmp_path):
    path = write(tmp_path, "taps.c", TAPS.replace("TAPS", "11"))
    args = cli.build_parser().parse_args(["analyze", str(path), "--no-auto-pipeline"])
    compiled = arraypart.compile_kernel(path, cli._options(args))
    assert pipelined(compiled) == []
    assert "config_compile -pipeline_loops 0\n" in compiled.files["run_hls.tcl"]
    assert "syn.compile.pipeline_loops=0\n" in compiled.files["hls_config.cfg"]
    zero = arraypart.compile_kernel(path, pipeline_loops=0)
    assert pipelined(zero) == []


# the inner loop's trip count is a run-time value: LOOP_TRIPCOUNT is for reports only
VARIABLE = """\
void variable(const int in[704], int out[64], int n, int m) {
    int buf[704];
    for (int k = 0; k < 704; k++) buf[k] = in[k];
    for (int r = 0; r < n; r++) {
        int acc = 0;
        for (int i = 0; i < m; i++) {
#pragma HLS loop_tripcount min=1 max=11
            acc += buf[r * 11 + i];
        }
        out[r] = acc;
    }
}
"""


def test_a_loop_tripcount_pragma_does_not_make_a_trip_count_constant(tmp_path):
    compiled = arraypart.compile_kernel(write(tmp_path, "variable.c", VARIABLE))
    assert pipelined(compiled) == [("L3", True), ("L6", True)]


def test_the_climb_stops_short_of_unrolling_more_than_it_models(tmp_path):
    kernel = frontend.parse_kernel(write(tmp_path, "wide.c", WIDE))
    (outer,) = [loop for loop in kernel.body if loop.name == "L4"]
    (middle,) = [n for n in outer.body if getattr(n, "name", None) == "L6"]
    assert (outer.pipeline_ii, middle.pipeline_ii, middle.pipeline_inferred) == (None, 1, True)
    (warning,) = [w for w in kernel.warnings if "Vitis may pipeline" in w]
    assert warning.startswith(f"{tmp_path / 'wide.c'}:6:9: warning: Vitis may pipeline "
                              "loop 'L4' (4:5) in place of loop 'L6'")
    assert "unrolling 2048 copies" in warning


def test_a_negative_threshold_is_refused():
    with pytest.raises(ValueError, match="--pipeline-loops"):
        api.Options(pipeline_loops=-1)
