"""check --trace: the original kernel compiled by g++, its accesses recorded and replayed.

The suite's kernels are traced in test_end_to_end.py (sharing its compiled reports);
here: the instrumentation's structure, and negative tests (a banking with too few
banks, a model whose addresses are wrong) that the replay must report, located."""

import dataclasses
import os
import re
import subprocess
import tempfile
import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import arraypart
from arraypart import api, check, cli, frontend, ir
from arraypart import expr as E
from arraypart.banking.solution import Solution
from arraypart.check import addresses, instrument, trace
from arraypart.errors import KernelError
from arraypart.frontend import clangtu
from arraypart.limits import STAGE_FLOOR_S, Deadline, TimeLimit
from arraypart.scheme import Banking, DimPartition, per_dim_scheme

from conftest import (HAVE_GXX, ROOT, STANDINS, assert_the_testbench_passes,
                      assert_the_trace_agrees, needs_gxx, run_testbench, suite_kernel, write)
from kernelgen import random_kernels
from test_c_division import div_kernels

DENOISE = ROOT / "kernels" / "denoise.c"
WINDOW_LOOP = f"{DENOISE}:16:9"
# Random kernels through --trace in the default run: one of each generator (the
# fuzzers' own tests run many more without g++).
EXAMPLES = int(os.environ.get("ARRAYPART_TRACE_EXAMPLES", "1"))

SNIPPET = """\
#define AT(i) m[i]
int g[4];
void top(int a[8], int b[8], int n[8]) {
  int m[8];
  for (int i = 0; i < 8; i++) {
#pragma HLS pipeline II=1
#pragma HLS unroll factor=2
    m[i] = a[i];
    b[i] += n[i] > 0 ? a[i] : AT(i);
    for (int k = 0; k < 2; k++) { g[k]++; }
  }
  int *p = &a[1];
}
"""


@pytest.fixture(scope="module")
def denoise():
    return suite_kernel("denoise").report


@pytest.fixture(scope="module")
def denoise_trace(denoise, tmp_path_factory):
    if not HAVE_GXX:
        pytest.skip("g++ is not installed")
    return trace.record(denoise.kernel, clangtu.Options(), tmp_path_factory.mktemp("tr"))


def test_instrumentation_finds_accesses_loops_and_lanes(tmp_path):
    path = tmp_path / "top.c"
    path.write_text(SNIPPET)
    kernel = frontend.parse_kernel(path)
    inst = instrument.instrument(kernel, clangtu.Options())
    assert [(s.coord.line, s.coord.col, s.kind, s.conditional) for s in inst.sites] == [
        (8, 5, "write", False), (8, 12, "read", False), (9, 5, "read", False),
        (9, 5, "write", False), (9, 13, "read", False), (9, 24, "read", True),
        (10, 35, "read", False), (10, 35, "write", False)]  # an update: two sites
    assert inst.skipped == (arraypart.errors.Coord(str(path), 9, 31),)  # AT(i): a macro
    assert [(loop.coord.line, loop.unroll) for loop in inst.loops] == [(5, "2")]
    assert "::arraypart_trace::iter(0, 2);" in inst.text
    assert "k < 2; ::arraypart_trace::bump(), k++" in inst.text
    assert "int m[8]; ::arraypart_trace::Scoped arraypart_scope_" in inst.text
    assert "&a[1]" in inst.text  # an address taken is not an access


STREAM_READS = """#include "hls_stream.h"
void sread(hls::stream<int> &s, int out[64]) {
  int buf[64];
  for (int i = 0; i < 32; i++) {
#pragma HLS pipeline II=1
    s >> buf[2 * i];
    s.read(buf[2 * i + 1]);
  }
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    out[i] = buf[i];
  }
}
"""


def test_a_stream_read_into_an_element_is_traced_as_its_write(tmp_path):
    """``s >> buf[i]`` and ``s.read(buf[i])`` store into ``buf[i]``, as the model says;
    the trace took them as reads, so ``check --trace`` reported addresses the model
    does not predict and reads before any write (probe 33 F2, SDAccel's sketch)."""
    path = tmp_path / "sread.cpp"
    path.write_text(STREAM_READS)
    kernel = frontend.parse_kernel(path)
    inst = instrument.instrument(kernel, clangtu.Options())
    assert [(s.coord.line, s.kind) for s in inst.sites] == [
        (6, "write"), (7, "write"), (11, "write"), (11, "read")]
    if HAVE_GXX:
        compiled = arraypart.compile_kernel(path)
        judged = assert_the_trace_agrees(compiled, tmp_path, ports=2)
        assert not judged.unwritten


@needs_gxx
def test_a_banking_with_too_few_banks_is_a_traced_conflict(denoise, denoise_trace):
    """Two cyclic banks on the columns of a ram_1p buffer read four times a cycle: the
    replay finds the first step over II 1, names the loop, step, cycle, bank and reads."""
    report = denoise
    buf = report.kernel.array("buf")
    two = Banking("buf", per_dim_scheme(buf.shape, (DimPartition("none", 1),
                                                    DimPartition("cyclic", 2))))
    claims = _at_targets(report)
    groups = [g for a in report.model.arrays for g in a.groups]
    result = trace.check_trace(report.kernel, denoise_trace, {"buf": two}, claims, groups)
    (text,) = result.disagreements
    assert text.startswith(f"{WINDOW_LOOP}: error: trace disagrees with the model: loop "
                           "L16 reaches II 2, the model claims II 1; first at step 0 "
                           "(cycle 0): buf copy 0 bank 0 (ram_1p) gets 2 read(s)")
    assert text.endswith(f"\n  {DENOISE}:18:50: read buf[1][0]\n"
                         f"  {DENOISE}:19:32: read buf[1][2]")
    assert result.addresses.mismatches == ()
    assert [loop["agrees"] for loop in result.to_json()["loops"]] == [True, False]


@needs_gxx
@pytest.mark.parametrize("as_written", [False, True])
def test_the_replay_stops_at_its_deadline(denoise, denoise_trace, as_written):
    """Replaying a recorded run is a stage of its own under --time-limit: the deadline
    is asked between chunks of records (and by the as-written check), so a long trace
    ends with a TimeLimit naming the replay, not an unbounded wait."""
    asked = []

    def clock():
        asked.append(None)
        return float(len(asked))

    deadline = Deadline(at=1.0, seconds=1.0, clock=clock)  # passes at the second ask
    with pytest.raises(TimeLimit) as stopped:
        api.judge_trace(denoise, denoise_trace, as_written=as_written, deadline=deadline)
    assert stopped.value.stage in (trace.REPLAY_STAGE, "checker")
    assert len(asked) == 2
    whole = api.judge_trace(denoise, denoise_trace, as_written=as_written)
    assert whole.replay.records > 0


@needs_gxx
def test_addresses_other_than_the_model_predicts_are_reported(denoise, denoise_trace):
    """A model whose first read of the window loop is one row off (as a floor taken
    for C's truncating division would be) disagrees with the program at step 0."""
    report = denoise
    groups = []
    for a in report.model.arrays:
        for g in a.groups:
            if g.loop == "L16" and a.array.name == "buf":
                first = g.accesses[0]
                wrong = (E.add(first.index[0], E.const(1)),) + first.index[1:]
                g = dataclasses.replace(g, accesses=(dataclasses.replace(first, index=wrong),)
                                        + g.accesses[1:])
            groups.append(g)
    claims = _at_targets(report)
    result = trace.check_trace(report.kernel, denoise_trace, report.solution.bankings(),
                               claims, groups)
    (text,) = result.disagreements
    assert text.splitlines() == [
        f"{WINDOW_LOOP}: error: trace disagrees with the model's addresses at step 0 "
        "(i=0, j=0)",
        f"  {DENOISE}:18:34: the program reads buf[0][1], the model does not",
        f"  {DENOISE}:18:34: the model predicts it reads buf[1][1], the program does not"]


@needs_gxx
def test_the_command_line_exits_1_on_a_disagreement(monkeypatch, capsys, analyses_shared):
    assert cli.main(["check", "--trace", str(DENOISE)]) == 0
    assert "L16 (" in capsys.readouterr().out

    def one_memory(self):
        return {a.array.name: Banking(a.array.name, per_dim_scheme(a.array.shape, tuple(
            DimPartition("none", 1) for _ in a.array.shape))) for a in self.arrays}
    monkeypatch.setattr(Solution, "emitted_bankings", one_memory)
    assert cli.main(["check", "--trace", str(DENOISE)]) == 1
    out = capsys.readouterr().out
    assert f"{WINDOW_LOOP}: error: trace disagrees with the model" in out
    assert "L16 (" in out and "DISAGREES" in out


@needs_gxx
def test_a_call_of_a_function_defined_elsewhere_is_a_located_error(tmp_path, capsys):
    """UG1399's rtl_as_blackbox: ext_model is declared, defined in no file the
    kernel includes, so the trace driver cannot link; that was an internal error."""
    path = tmp_path / "ext.cpp"
    path.write_text("void ext_model(int a, int b, int &z);\n"
                    "void ext(int a, int b, int &sigma) {\n"
                    "  int t;\n  ext_model(a, b, t);\n  sigma = t + 1;\n}\n")
    assert cli.main(["check", "--trace", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:1:6: error: check --trace runs the original, which uses 'ext_model'" in err


@needs_gxx
def test_a_function_defined_elsewhere_links_against_the_users_definition(tmp_path):
    """The testbench compiled the prototype inside ``namespace original``, where
    nothing could ever define it: it never linked, even with the defining file.  Moved
    out, the original's call reaches the user's definition."""
    path = tmp_path / "ext.cpp"
    path.write_text("void ext_model(int a, int b, int &z);\n"
                    "void ext(int a, int b, int &sigma) {\n"
                    "  int t;\n  ext_model(a, b, t);\n  sigma = t + 1;\n}\n")
    compiled = arraypart.compile_kernel(path)
    assert any(w.startswith(f"{path}:1:6: warning: 'ext_model' is defined in no file")
               for w in compiled.report.warnings)
    outdir = arraypart.write_project(compiled, tmp_path / "out")
    definition = tmp_path / "model.cpp"
    definition.write_text("void ext_model(int a, int b, int &z) { z = a * b - 3; }\n")
    binary = tmp_path / "tb"
    subprocess.run(["g++", "-std=c++14", "-w", f"-I{STANDINS}", "-o", str(binary),
                    str(outdir / "ext.cpp"), str(outdir / "ext_tb.cpp"), str(definition)],
                   check=True)
    run = subprocess.run([str(binary)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and "PASS" in run.stdout, run.stdout


def test_a_function_a_header_only_declares_is_warned_about(tmp_path):
    """The same prototype in one of the user's headers, called by another function of
    the file: no warning, and the testbench did not link (probe 28, F8)."""
    (tmp_path / "helper.hpp").write_text("void helper_elsewhere(unsigned d[], unsigned n);\n"
                                         "struct S { int m(int x); };\n")
    path = tmp_path / "uh.cpp"
    path.write_text('#include "helper.hpp"\n'
                    "void uh(int in[16], int out[16]) {\n"
                    "  for (int i = 0; i < 16; i++) out[i] = in[i] + 1;\n}\n"
                    "int self_test() {\n  unsigned d[4] = {3, 2, 1, 0};\n"
                    "  helper_elsewhere(d, 4);\n  S s;\n  return d[0] + s.m(1);\n}\n")
    report = arraypart.analyze(path, top="uh")
    assert [w for w in report.warnings if "'helper_elsewhere' is defined in no file" in w] == [
        next(w for w in report.warnings if w.startswith(f"{path}:7:3: warning: "))]
    # a method the header only declares, too (probe 28b)
    assert any(w.startswith(f"{path}:9:")
               and "'m' is defined in no file" in w for w in report.warnings)


UNROLLED_CALLS = """void step(int in[16], int out[16]) {
  for (int i = 0; i < 16; i++) {
#pragma HLS pipeline II=1
    out[i] = in[i] + in[15 - i];
  }
}
void unrolled_calls(int A[16], int B[16]) {
  int temp[3][16];
#pragma HLS array_partition variable=temp complete dim=1
  step(A, temp[0]);
  for (int s = 1; s < 3; s++) {
#pragma HLS unroll
    step(temp[s - 1], temp[s]);
  }
  step(temp[2], B);
}
"""


@needs_gxx
def test_a_callee_loop_that_also_runs_as_lanes_is_held_to_both_claims(tmp_path, capsys):
    """step's pipelined loop runs on its own and as lanes of the unrolled L11 (pp4fpgas
    merge_sort_parallel): the trace records all of it under step's ``for``, and held
    those steps to step/L2's II 1 where L11's as written is 2, a false disagreement
    (probe 28, F2).  The steps are held to the larger claim."""
    path = tmp_path / "unrolled_calls.cpp"
    path.write_text(UNROLLED_CALLS)
    cli.main(["check", "--trace", "--as-written", str(path)])  # 1: temp's pragmas conflict
    out, err = capsys.readouterr()
    assert "step/L2 (" in out and "traced II 2: agrees" in out
    assert "DISAGREES" not in out and "trace disagrees" not in out + err


# inc's loop has a pipeline of its own, and k calls inc in its pipelined loop.
PIPELINED_CALLEE = """\
static void inc(int a[4]) {
    for (int i = 0; i < 4; i++) {
#pragma HLS PIPELINE
        a[i] = a[i] + 1;
    }
}

void k(int a[4]) {
    for (int r = 0; r < 8; r++) {
#pragma HLS PIPELINE
        inc(a);
    }
}
"""


@needs_gxx
def test_a_pipelined_callee_loop_inside_a_pipeline_is_lanes_of_its_step(tmp_path):
    """Vitis unrolls a pipelined loop into the pipeline that calls it, as the model
    does; the trace recorded inc's accesses as steps of inc's own ``for``, so k's
    steps looked empty: "trace disagrees with the model's addresses" (probe 35, F1,
    HLStrans AES_Encrypt).  They are lanes of k's step, compared with the model."""
    path = tmp_path / "pipelined_callee.cpp"
    path.write_text(PIPELINED_CALLEE)
    judged = assert_the_trace_agrees(arraypart.compile_kernel(path, top="k"), tmp_path,
                                     ports=2)
    assert [loop.steps for loop in judged.replay.loops if loop.steps] == [8]
    assert judged.replay.records == 8 * 4 * 2 and judged.addresses.skipped == ()


# A function pipelined as a whole, called from two places in a loop, and a top that is.
PIPELINED_FUNCTIONS = """\
static void acc(const int a[32], int out[32], int k) {
#pragma HLS pipeline II=1
#pragma HLS inline off
    int s = 0;
    for (int u = 0; u < 4; u++) s += a[(k + u) % 32];
    out[k % 32] = s;
}

void twice(const int in[32], int out[32], int o2[32]) {
    int a[32];
    for (int i = 0; i < 32; i++) a[i] = in[i];
    for (int k = 0; k < 28; k++) {
        acc(a, out, k);
        acc(a, o2, k + 1);
    }
}
"""
PIPELINED_TOP = """\
void whole(const int a[64], int out[2]) {
#pragma HLS pipeline II=1
    int s = 0;
    for (int u = 0; u < 8; u++) s += a[u * 8];
    out[0] = s;
    out[1] = a[3] + a[5];
}
"""


@needs_gxx
@pytest.mark.parametrize("name, text, expected", [
    ("twice", PIPELINED_FUNCTIONS, [(1, 28, 1, 2), (1, 28, 1, 2), (11, 32, 1, 1)]),
    ("whole", PIPELINED_TOP, [(1, 1, 1, 5)]),
], ids=["called_twice", "top"])
def test_a_pipelined_function_is_traced_call_by_call(tmp_path, name, text, expected):
    """Each call of a function the model pipelines as a whole is one step of its own
    traced loop (it was listed as not traced): per traced loop, (line, steps, traced
    II with arraypart's banking, traced II as written: acc's four reads of a on two
    ports, whole's ten reads of a), each call told apart and compared by address."""
    path = tmp_path / f"{name}.cpp"
    path.write_text(text)
    banked, written = _agreeing(path, 2)
    assert [(loop.coord.line, loop.steps, loop.traced_ii, w.traced_ii)
            for loop, w in zip(banked.replay.loops, written.replay.loops)] == expected
    assert len(banked.addresses.compared) == len(expected)


# Members reached through a pointer's arrow, as MachSuite's aes reaches its context.
ARROW_MEMBERS = """\
struct ctx_t {
    int key[16];
    int enc[16];
    int round;
};

void arrow(ctx_t *ctx, const int k[16], int out[16]) {
#pragma HLS INTERFACE m_axi port=ctx
    for (int i = 0; i < 16; i++) {
        ctx->enc[i] = ctx->key[i] = k[i];
    }
    for (int i = 0; i < 16; i++) {
        out[i] = ctx->enc[i] + ctx->round + (*ctx).key[15 - i];
    }
}
"""


@needs_gxx
def test_a_member_reached_through_an_arrow_is_an_access_of_its_element(tmp_path):
    """``ctx->enc[i]`` is an access of ``*ctx`` as ``(*ctx).enc[i]`` is: the model
    counts it, and the trace recorded nothing there (MachSuite aes: "the model
    predicts it writes ctx[0], the program does not").  The two writes of L8 are two
    transfers of one m_axi element (II 2), in the model and in the run."""
    path = tmp_path / "arrow.cpp"
    path.write_text(ARROW_MEMBERS)
    for judged in _agreeing(path, 2):
        assert [loop.traced_ii for loop in judged.replay.loops] == [2, 1]
        assert len(judged.addresses.compared) == 2


STATIC_MEMBER = """\
struct T {
  static int tab[64];
};
int T::tab[64];
void members(const int in[64], int out[64]) {
  for (int k = 0; k < 64; k++) {
#pragma HLS pipeline II=1
    T::tab[k] = in[k];
  }
  for (int k = 0; k < 64; k++) {
#pragma HLS pipeline II=1
    out[k] = T::tab[k] + T::tab[(k + 1) % 64];
  }
}
"""


@needs_gxx
def test_a_static_member_array_is_found_by_its_qualified_name(tmp_path):
    """The driver registers ``T::tab`` under its class's name (it named ``tab`` alone,
    and g++ refused the driver: an internal error, probe 37b F5)."""
    path = tmp_path / "members.cpp"
    path.write_text(STATIC_MEMBER)
    for judged in _agreeing(path, 1):
        assert [loop.steps for loop in judged.replay.loops] == [64, 64]


ARROW_CHAIN = """\
struct S { int x; int y; };
struct H { S *q; };
static int f(S *p) { return p->x + p->y; }
static int g(H *h) { return h->q->x; }
void chain(const int in[64], int out[64]) {
  S s[16];
  for (int k = 0; k < 16; k++) { s[k].x = in[k]; s[k].y = in[k + 1]; }
  for (int k = 0; k < 64; k++) {
#pragma HLS pipeline II=1
    H h; h.q = &s[(k + 2) % 16];
    out[k] = f(&s[k % 16]) + f(&s[(k + 5) % 16]) + g(&h);
  }
}
"""


@needs_gxx
def test_a_field_reached_through_a_pointer_field_is_traced(tmp_path):
    """``h->q->x`` reads the element ``*h->q`` (s[(k + 2) % 16]): the trace recorded
    nothing there and said the program never reads it (exit 1, probe 37b F6)."""
    path = tmp_path / "chain.cpp"
    path.write_text(ARROW_CHAIN)
    for judged in _agreeing(path, 1):
        assert len(judged.addresses.compared) == 2


def _at_targets(report) -> list:
    """Claims that every loop of ``report`` reaches its target II."""
    return [trace.Claim(loop.name, loop.coord, loop.target_ii, loop.target_ii)
            for loop in report.model.loops]


@pytest.fixture(scope="module")
def recording(tmp_path_factory):
    """``recording(name, text, **options)``: ``text`` written as ``name``, analysed
    with ``options``, and its original run recorded (one memory per array): (path,
    report, trace).  Made once per kernel text in this module: the parametrized tests
    judge one recording against models they change, and each g++ build and run of the
    same original was waste.  A test that judges no banking of the report analyses
    with ``max_banks=1``: the model is the same, and the banking search was most of
    its time (14 of some.c's 15 s)."""
    made: dict[tuple, tuple] = {}

    def record(name: str, text: str, **options):
        key = (name, text, tuple(sorted(options.items())))
        if key not in made:
            folder = tmp_path_factory.mktemp("recorded")
            path = folder / name
            path.write_text(text)
            report = arraypart.analyze(path, **options)
            made[key] = path, report, trace.record(report.kernel, clangtu.Options(), folder)
        return made[key]
    return record


def _agreeing(path, ports, shown: str = ""):
    """The kernel at ``path`` traced and judged against arraypart's banking and as
    written, each judgement without a disagreement (``shown`` leads the message)."""
    report = api.analyze(path, ports=ports)
    recorded = trace.record(report.kernel, clangtu.Options(), path.parent,
                            report.solution.emitted_bankings())
    results = [api.judge_trace(report, recorded, as_written=w, ports=ports)
               for w in (False, True)]
    for result in results:
        assert result.disagreements == (), shown + result.format()
    return results


TRACE_SETTINGS = settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
                          suppress_health_check=list(HealthCheck))


@needs_gxx
@TRACE_SETTINGS
@given(random_kernels(max_accesses=6), st.sampled_from((1, 2)))
def test_a_random_affine_kernel_traces_as_modelled(tmp_path_factory, kernel, ports):
    path = tmp_path_factory.mktemp("rk") / "rk.c"
    path.write_text(kernel.source())
    for result in _agreeing(path, ports, kernel.source()):
        assert all(loop.claim for loop in result.replay.loops)


def _negative_dividends(kernel) -> bool:
    return any(a * i + b < 0 for _, a, b, _ in kernel.terms for i in kernel.iterations)


@needs_gxx
@TRACE_SETTINGS
@given(div_kernels().filter(_negative_dividends))
def test_a_random_kernel_with_negative_dividends_traces_as_modelled(tmp_path_factory,
                                                                     kernel):
    """C's truncating division, with g++'s own arithmetic as the oracle: the banking
    arraypart proved for one port holds for the addresses the program really takes."""
    path = tmp_path_factory.mktemp("dk") / "dk.c"
    path.write_text(kernel.source())
    _agreeing(path, 1, kernel.source())


COUNTING_DOWN = """\
#define N 12
void down(int in[N][N], int out[N][N]) {
  int buf[N][N];
  for (int i = N - 1; i >= 0; i--) {
    for (int j = 0; j < N; j++) {
#pragma HLS pipeline II=1
      buf[i][j] = in[i][j];
    }
  }
  for (int i = 0; i < N; i++) {
    for (int j = N - 1; j >= 1; j--) {
#pragma HLS pipeline II=1
      out[i][j] = buf[i][j] + buf[i][j - 1];
    }
  }
}
"""

# A value-returning call in a pipelined loop: the front end keeps none of the callee's
# accesses (issue 12), so the model claims II 1 while the program reads coef three
# times a cycle from a two-port ROM.
CALL_IN_PIPELINE = """\
#define N 16
const int coef[4] = {1, 2, 3, 4};
static int tap(const int b[N][N], int i, int j) {
  int s = 0;
  for (int t = 0; t < 3; t++) { s += b[i][j + t] * coef[t]; }
  return s;
}
void calls(int in[N][N], int out[N][N]) {
  int buf[N][N];
  for (int i = 0; i < N; i++) {
    for (int j = 0; j < N; j++) {
#pragma HLS pipeline II=1
      buf[i][j] = in[i][j];
    }
  }
  for (int i = 0; i < N; i++) {
    for (int j = 0; j < N - 2; j++) {
#pragma HLS pipeline II=1
      out[i][j] = tap(buf, i, j);
    }
  }
}
"""


@needs_gxx
def test_loops_that_count_down_are_compared_in_execution_order(tmp_path):
    path = tmp_path / "down.c"
    path.write_text(COUNTING_DOWN)
    for result in _agreeing(path, 2):
        assert len(result.addresses.compared) == 2


@needs_gxx
def test_a_loop_under_a_data_dependent_if_may_run_fewer_steps(tmp_path):
    """The model runs the guarded loop whenever it may; the run never takes the
    branch (``in[0]`` cannot be both negative and positive), so it records no step of
    that loop, which is no disagreement."""
    path = tmp_path / "skip.c"
    path.write_text("void skip(const int in[32], int out[32]) {\n"
                    "  if (in[0] < 0 && in[0] > 0) {\n"
                    "    for (int i = 0; i < 32; i++) {\n#pragma HLS pipeline II=1\n"
                    "      out[i] = in[i];\n    }\n    return;\n  }\n"
                    "  for (int i = 0; i < 32; i++) {\n#pragma HLS pipeline II=1\n"
                    "    out[i] = 2 * in[i];\n  }\n}\n")
    for result in _agreeing(path, 2):
        assert len(result.addresses.compared) == 2


SOME_RUNS = """\
void some(const int flag[8], const int in[8][16], int out[8][16]) {
  int buf[8][16];
  for (int t = 0; t < 8; t++)
    for (int i = 0; i < 16; i++) buf[t][i] = in[t][i];
  for (int t = 0; t < 8; t++) {
    if (flag[t] > 0) {
      for (int i = 0; i < 15; i++) {
#pragma HLS pipeline II=1
        int v = buf[t][i] + buf[t][i + 1];
        if (in[t][i] > 0) v += buf[t][15 - i];
        out[t][i] = v;
      }
    }
  }
}
"""


def _moved(report, line: int, column: int, shift: int):
    """The model's groups with the reference at ``line:column`` moved ``shift``
    elements along its last dimension."""
    def moved(x):
        if (x.coord.line, x.coord.col) != (line, column):
            return x
        return dataclasses.replace(x, index=x.index[:-1] + (E.add(x.index[-1],
                                                                   E.const(shift)),))
    return [dataclasses.replace(g, accesses=tuple(moved(x) for x in g.accesses))
            for a in report.model.arrays for g in a.groups]


@needs_gxx
@pytest.mark.parametrize("moved", [None, (9, 17), (10, 32)])
def test_a_loop_the_data_skips_is_compared_run_by_run(recording, moved):
    """The pipelined loop runs for the ``t`` whose flag is positive: its trace is the
    model's runs for those ``t``, in order, and is compared with them (summed
    fingerprints outside the inner ``if``, look-ups inside).  A model whose read is
    one element off, outside or inside the inner ``if``, disagrees."""
    path, report, recorded = recording("some.c", SOME_RUNS, max_banks=1)
    claims = _at_targets(report)
    groups = [g for a in report.model.arrays for g in a.groups]
    result = trace.check_trace(report.kernel, recorded, {}, claims,
                               _moved(report, *moved, 1) if moved else groups)
    steps = result.replay.loops[1].steps
    assert 0 < steps < 8 * 15 and steps % 15 == 0  # some runs taken, some skipped
    if moved is None:
        assert result.addresses.mismatches == () and len(result.addresses.compared) == 2, \
            result.format()
        return
    (text,) = result.addresses.mismatches
    if moved == (9, 17):
        assert text.startswith(f"{path}:7:7: error: trace disagrees with the model: under "
                               "its data-dependent if the loop runs whole runs of the "
                               "model's steps"), text
    else:
        assert re.match(rf"{path}:7:7: error: trace disagrees with the model at step "
                        rf"\d+ \(t=\d, i=\d+\):\n  {path}:10:32: the program reads "
                        r"buf\[\d\]\[\d+\], which no access the model allows", text), text


@needs_gxx
def test_a_name_only_the_command_line_defines_reaches_the_traced_build(tmp_path):
    """``-D`` names reach g++ too: the header tests one that the kernel never defines
    (Rosetta's typedefs.h and ``-DSDSOC``)."""
    (tmp_path / "cfg.h").write_text("#ifdef WIDE\ntypedef long word;\n#endif\n")
    path = tmp_path / "wide.c"
    path.write_text('#include "cfg.h"\nvoid wide(const word in[32], word out[32]) {\n'
                    "  for (int i = 0; i < 31; i++) {\n#pragma HLS pipeline II=1\n"
                    "    out[i] = in[i] + in[i + 1];\n  }\n}\n")
    report = api.analyze(path, defines={"WIDE": 1}, ports=2)
    recorded = trace.record(report.kernel, clangtu.Options((("WIDE", 1),)), tmp_path,
                            report.solution.bankings())
    result = api.judge_trace(report, recorded, as_written=False, ports=2)
    assert result.disagreements == (), result.format()
    assert result.replay.records == 31 * 3


@needs_gxx
def test_macros_of_the_kernel_and_its_header_leave_the_generated_code_alone(tmp_path):
    """``#define T`` and ``count(x)`` in the kernel's header, ``S`` in its text: the
    testbench and the trace driver name template parameters T and S and a parameter
    count, so g++ failed on both (an internal error from check --trace)."""
    (tmp_path / "params.h").write_text("#define T 16\n#define count(x) (x)\n")
    path = tmp_path / "macros.c"
    path.write_text('#include "params.h"\n#define S 2\n'
                    "void macros(const int in[T], int out[T]) {\n"
                    "  for (int i = 0; i < T - 1; i++) {\n#pragma HLS pipeline II=1\n"
                    "    out[i] = count(in[i]) * S + in[i + 1];\n  }\n}\n")
    compiled = arraypart.compile_kernel(path)
    run = run_testbench(compiled, tmp_path)
    assert run.returncode == 0 and "PASS" in run.stdout, run.stdout
    assert_the_trace_agrees(compiled, tmp_path, ports=2)


EXITS = """\
int exits(const int in[32], int out[32]) {
  for (int i = 0; i < 32; i++) {
#pragma HLS pipeline II=1
    %s
    out[i] = in[i] * 2;
  }
  return -1;
}
"""


@needs_gxx
@pytest.mark.parametrize("exit, ends", [
    ("if (in[i] < 0) continue;", False),
    ("for (int k = 0; k < 4; k++) { if (in[(i + k) % 32] < 0) break; out[i] += k; }",
     False),
    ("if (in[i] == 7) break;", True),
    ("if (in[i] == 7) return i;", True),
])
def test_accesses_after_an_early_exit_may_not_run(tmp_path, exit, ends):
    """The model runs every iteration to the end of its body (a superset): after a
    continue the program skips what the model predicts, after a break or return its
    loop ends early.  The trace called both a disagreement; now the accesses after an
    exit are looked up, and a loop an exit may end is named, not compared."""
    path = tmp_path / "exits.c"
    path.write_text(EXITS % exit)
    for result in _agreeing(path, 2):
        note = [s for s in result.addresses.skipped if "may end it before" in s]
        assert bool(note) == ends and len(result.addresses.compared) == (not ends)


@needs_gxx
def test_a_loop_over_registers_counts_its_steps(tmp_path):
    """A loop that touches only a completely partitioned array (registers, no ports)
    still runs its steps; the replay used to count them from port uses alone (0)."""
    path = tmp_path / "regs.c"
    path.write_text("void regs(const int in[8], int out[8]) {\n  int r[4];\n"
                    "#pragma HLS array_partition variable=r complete\n"
                    "  for (int i = 0; i < 4; i++) {\n#pragma HLS pipeline II=1\n"
                    "    r[i] = 3 * i;\n  }\n"
                    "  for (int i = 0; i < 8; i++) {\n#pragma HLS pipeline II=1\n"
                    "    out[i] = in[i] + r[i % 4];\n  }\n}\n")
    for result in _agreeing(path, 2):
        assert [loop.steps for loop in result.replay.loops] == [4, 8]


@needs_gxx
def test_each_instantiation_of_a_template_steps_by_its_own_factor(tmp_path):
    """``unroll factor=F`` in a template called as add<2> and add<4>: the traced
    steps of each call are F iterations (4 and 2 steps).  The driver took one factor
    for both, so every step landed in the first call and the trace disagreed."""
    path = tmp_path / "tmpl.cpp"
    path.write_text("""template <int F>
void add(int a[8], int z[8]) {
  L: for (int i = 0; i < 8; i++) {
#pragma HLS pipeline II=1
#pragma HLS unroll factor=F
    z[i] = a[i] + 1;
  }
}
void tmpl(int a[8], int b[8], int z[8], int y[8]) { add<2>(a, z); add<4>(b, y); }
""")
    for result in _agreeing(path, 2):
        assert [loop.steps for loop in result.replay.loops] == [4, 2]


@needs_gxx
def test_a_factor_declared_in_the_loop_body_is_the_models(tmp_path):
    """``const int U = 4; unroll factor=U`` in a template's loop: the name is
    declared after the step's start, so the driver takes the model's value (pasting the
    name there did not compile: an internal error)."""
    path = tmp_path / "body.cpp"
    path.write_text("""template <int R>
void add(int a[16], int z[16]) {
  L: for (int i = 0; i < 16; i++) {
    const int U = 16 / R;
#pragma HLS pipeline II=1
#pragma HLS unroll factor=U
    z[i] = a[i] + 1;
  }
}
void body(int a[16], int z[16]) { add<4>(a, z); }
""")
    for result in _agreeing(path, 2):
        assert [loop.steps for loop in result.replay.loops] == [4]


@needs_gxx
def test_accesses_in_a_called_function_are_modelled(tmp_path):
    path = tmp_path / "calls.cpp"
    path.write_text(CALL_IN_PIPELINE)
    _agreeing(path, 2)


@needs_gxx
def test_a_table_of_the_kernels_header_is_traced(tmp_path):
    """A file-scope table of the kernel's own header is registered with the recorded
    run (from the global namespace, where the driver includes headers), so its reads
    are recorded and compared, not reported as missing."""
    (tmp_path / "taps.h").write_text("static const int taps[8] = {1, 2, 3, 4, 5, 6, 7, 8};\n")
    path = tmp_path / "table.c"
    path.write_text('#include "taps.h"\nvoid table(const int in[32], int out[32]) {\n'
                    "  for (int i = 0; i < 32; i++) {\n#pragma HLS pipeline II=1\n"
                    "    int s = 0;\n    for (int k = 0; k < 4; k++)\n"
                    "      s += in[i] * taps[(i + k) % 8];\n    out[i] = s;\n  }\n}\n")
    for result in _agreeing(path, 2):
        assert result.addresses.compared and result.replay.records == 32 * 9


@needs_gxx
@pytest.mark.parametrize("after", ["", "#pragma HLS inline off\n"])
def test_a_table_a_function_body_includes_is_traced(tmp_path, after):
    """A header included inside the function body declares a local table (Rosetta's
    face detection does this): its registration goes on a line of its own after the
    ``#include`` line, the header's text staying as written, so its reads are recorded
    and compared.  A preprocessor line right after the ``#include`` stays one (it was
    joined to the registration: face detection's driver did not build)."""
    (tmp_path / "tbl.h").write_text("static const int tbl[8] = {3, 1, 4, 1, 5, 9, 2, 6};\n")
    path = tmp_path / "body.c"
    path.write_text('void body(const int in[8], int out[8]) {\n#include "tbl.h"\n' + after
                    + "  for (int i = 0; i < 8; i++) {\n#pragma HLS pipeline II=1\n"
                    "    out[i] = in[i] + tbl[i] + tbl[7 - i];\n  }\n}\n")
    for result in _agreeing(path, 2):
        assert result.addresses.compared and result.replay.records == 8 * 4


CLASS_TYPES = """\
#include "ap_int.h"
#define N 16
struct px { short r; short g; };
namespace k {
void apk(ap_uint<12> a[N], px p[N], ap_uint<12> out[N]) {
  ap_uint<12> buf[N];
  px pb[N];
  for (int i = 0; i < N; i++) {
#pragma HLS pipeline II=1
    buf[i] = a[i];
    pb[i].r = p[i].r;
    out[i] += 1;
  }
  for (int i = 1; i < N - 1; i++) {
#pragma HLS pipeline II=1
    out[i] = buf[i - 1] + buf[i + 1] + pb[i].r;
  }
}
}
"""


def _site_kinds(path, text: str) -> list[tuple[int, str]]:
    """(line, kind) of each access the instrumentation records in ``text``."""
    path.write_text(text)
    inst = instrument.instrument(frontend.parse_kernel(path), clangtu.Options())
    return [(s.coord.line, s.kind) for s in inst.sites]


def test_overloaded_assignments_are_writes_and_updates(tmp_path):
    assert _site_kinds(tmp_path / "apk.cpp", CLASS_TYPES)[:6] == [
        (10, "write"), (10, "read"), (11, "write"), (11, "read"), (12, "read"),
        (12, "write")]  # out[i] += 1: an update, a read site and a write site


MEMBER_ARRAYS = """\
struct P { int v[4]; int w; };
void members(int in[64], int out[64], int idx[16]) {
  P ps[16];
  for (int i = 0; i < 16; i++) {
    for (int j = 0; j < 4; j++) ps[i].v[j] = in[4 * i + j];
    ps[i].w = i;
  }
  for (int i = 0; i < 15; i++) {
#pragma HLS pipeline II=1
    ps[i].v[3] += 1;
    out[i] = ps[i].v[1] + ps[i + 1].v[2] + in[ps[i].v[0] & 63];
  }
}
"""


def test_a_member_array_written_through_its_element_is_a_write(tmp_path):
    """ps[i].v[j] = x writes ps[i] (the model's write; the instrumentation called it a
    read, and check --trace reported a disagreement on correct code)."""
    kinds = _site_kinds(tmp_path / "members.cpp", MEMBER_ARRAYS)
    assert [k for k in kinds if k[0] in (5, 10, 11)] == [
        (5, "write"), (5, "read"), (10, "read"), (10, "write"), (11, "write")] + [
        (11, "read")] * 4


@needs_gxx
@pytest.mark.parametrize("name, text, ports", [("apk.cpp", CLASS_TYPES, 2),
                                               ("members.cpp", MEMBER_ARRAYS, 1)])
def test_class_elements_and_member_arrays_trace_as_modelled(name, text, ports, tmp_path):
    """Class element types in a namespace, and arrays inside struct elements."""
    path = tmp_path / name
    path.write_text(text)
    _agreeing(path, ports)


WHILE_PIPELINES = """\
void whiles(int in[64], int out[64]) {
  int buf[64];
#pragma HLS bind_storage variable=buf type=ram_1p
  for (int i = 0; i < 64; i++) buf[i] = in[i];
  int n = 32;
  while (n--) {
#pragma HLS pipeline II=1
    out[n] = buf[n] + buf[n + 32];
  }
  int m = 10;
  do {
#pragma HLS pipeline II=1
    out[m + 40] = buf[m] + buf[m + 1];
  } while (--m);
}
"""


@needs_gxx
def test_pipelined_while_and_do_loops_are_traced(tmp_path):
    """Only pipelined ``for`` loops were traced: a ``while`` or ``do`` pipeline was
    'not traced', so its II had no second opinion."""
    path = tmp_path / "whiles.c"
    path.write_text(WHILE_PIPELINES)
    for result in _agreeing(path, 1):
        steps = {loop.coord.line: loop.steps for loop in result.replay.loops}
        assert steps == {4: 64, 6: 32, 11: 10}, steps

INFERRED_PIPELINES = """\
void inferred(int a[64], int b[64], int c[16][8]) {
  int buf[64];
  for (int i = 0; i < 64; i++) buf[i] = a[i] * 3;
  for (int i = 1; i < 63; i++) /* unbraced */ b[i] = buf[i - 1] + buf[i + 1] ;
  for (int r = 0; r < 16; r++) {
    for (int k = 0; k < 8; k++) {
      c[r][k] = buf[r + k] + buf[r + k + 1];
    }
  }
}
"""


@needs_gxx
def test_loops_vitis_pipelines_by_default_are_traced(tmp_path):
    """Loops pipelined by Vitis' default (no pragma in the text), braced or not, are
    traced at the model's coordinates and replay at the model's II; the row loop is
    pipelined in place of its 8-trip inner loop (threshold 64), with 8 lanes."""
    path = tmp_path / "inferred.c"
    path.write_text(INFERRED_PIPELINES)
    kernel = frontend.parse_kernel(path)
    inst = instrument.instrument(kernel, clangtu.Options())
    assert [loop.coord.line for loop in inst.loops] == [3, 4, 5]
    for result in _agreeing(path, 1):
        assert not result.untraced, result.format()
        assert [loop.claim.name for loop in result.replay.loops] == ["L3", "L4", "L5"]
        assert all(loop.traced_ii == loop.claim.claimed_ii
                   for loop in result.replay.loops), result.format()


#: A compiler that hangs, and starts a process of its own that hangs too.
HANGING_COMPILER = """#!/bin/sh
sleep 60 &
echo $! > "{pidfile}"
wait
"""

TINY = """void tiny(int in[8], int out[8]) {
  for (int i = 0; i < 8; i++) {
#pragma HLS pipeline II=1
    out[i] = in[i];
  }
}
"""


def _gone(pid: int) -> bool:
    """Process ``pid`` has ended (or is a zombie, waiting to be reaped)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def _stopped_at_the_time_limit(tmp_path, monkeypatch, capsys, name: str, text: str):
    """``check --trace`` on ``text`` (written as ``name``) at the shortest time limit,
    temporary files under ``tmp_path / "tmp"``: exit 1, the stage named."""
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    kernel = tmp_path / name
    kernel.write_text(text)
    assert cli.main(["check", "--trace", str(kernel), "--time-limit", "0.1"]) == 1
    assert (f"arraypart: {kernel}: time limit of {STAGE_FLOOR_S:g} s reached while "
            f"building and running the instrumented kernel (check --trace)"
            in capsys.readouterr().err)


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="needs Linux /proc")
def test_a_build_past_the_time_limit_is_killed_with_what_it_started(tmp_path, monkeypatch,
                                                                    capsys):
    """The g++ build obeys --time-limit (at least the floor of a stage): exit 1, the
    stage named, the compiler's own children killed, the work folder removed."""
    pidfile, compiler = tmp_path / "pid", tmp_path / "slow-g++"
    compiler.write_text(HANGING_COMPILER.format(pidfile=pidfile))
    compiler.chmod(0o755)
    monkeypatch.setattr("arraypart.check.recording.COMPILER", str(compiler))
    _stopped_at_the_time_limit(tmp_path, monkeypatch, capsys, "tiny.c", TINY)
    sleeper = int(pidfile.read_text())
    deadline = time.monotonic() + 20
    while not _gone(sleeper) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert _gone(sleeper)
    assert list((tmp_path / "tmp").iterdir()) == []


SPINNING = """\
void spin(const int in[8], int out[8]) {
  volatile int turns = 0;
  while (in[0] != 123456789) turns = turns + 1;
  for (int i = 0; i < 8; i++) {
#pragma HLS pipeline II=1
    out[i] = in[i];
  }
}
"""


def _running(marker: str) -> list[int]:
    """The processes whose command line holds ``marker``."""
    found = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                if marker.encode() in cmdline.read() and not _gone(int(entry)):
                    found.append(int(entry))
        except (FileNotFoundError, ProcessLookupError, NotADirectoryError, ValueError):
            continue
    return found


@needs_gxx
@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="needs Linux /proc")
def test_a_traced_run_that_never_ends_is_stopped_at_the_time_limit(tmp_path, monkeypatch,
                                                                   capsys):
    """The real thing, not a stand-in: g++ builds the driver, whose original spins
    on the random inputs (``in[0]`` is never the value it waits for).  At the stage's
    time limit the run is killed: exit 1, the stage named, no driver left running, the
    work folder removed."""
    _stopped_at_the_time_limit(tmp_path, monkeypatch, capsys, "spin.c", SPINNING)
    assert _running(str(tmp_path / "tmp")) == []
    assert list((tmp_path / "tmp").iterdir()) == []


GUARDED = """\
void clip(const int in[64], int out[64]) {
  int buf[64];
  for (int i = 0; i < 64; i++) buf[i] = in[63 - i];
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    int v = in[i];
    if (v > 0) out[i] = buf[i] + v;
    else out[i] = -v;
  }
}
"""


def _guarded_lane_moved(report, shift: int):
    """The model's groups with the guarded read ``buf[i]`` (line 7) moved by ``shift``
    elements in every path."""
    groups = []
    for a in report.model.arrays:
        for g in a.groups:
            accesses = tuple(
                dataclasses.replace(x, index=(E.add(x.index[0], E.const(shift)),))
                if x.array == "buf" and x.coord.line == 7 else x for x in g.accesses)
            groups.append(dataclasses.replace(g, accesses=accesses))
    return groups


@needs_gxx
@pytest.mark.parametrize("shift", [0, 1])
def test_accesses_under_a_data_dependent_if_are_looked_up(recording, shift):
    """The reads and writes under ``if (v > 0)`` run on the steps the data picks, so
    they are not summed per step: each one the program makes must be one the model
    allows at its step.  A model whose guarded read is one element off disagrees."""
    path, report, recorded = recording("clip.c", GUARDED)
    claims = _at_targets(report)
    result = trace.check_trace(report.kernel, recorded, report.solution.bankings(),
                               claims, _guarded_lane_moved(report, shift))
    if not shift:
        assert result.disagreements == () and result.addresses.compared, result.format()
        return
    (text,) = result.disagreements
    lines = text.splitlines()
    assert lines[0].startswith(f"{path}:4:3: error: trace disagrees with the model at step ")
    assert re.fullmatch(rf"  {path}:7:25: the program reads buf\[\d+\], which no access "
                        "the model allows there makes", lines[1])


@needs_gxx
def test_accesses_under_a_data_dependent_if_past_the_key_budget_are_named_not_judged(
        recording, monkeypatch):
    """Past :data:`addresses.MAX_MAY_KEYS` the may lanes' keys are not held (memory
    stays bounded on loops of a million steps): the loop is named among those whose
    guarded accesses were not looked up, its other accesses are still compared, and no
    guarded access the program makes is called one the model does not allow (even
    from a model one element off there)."""
    monkeypatch.setattr(addresses, "MAX_MAY_KEYS", 4)
    path, report, recorded = recording("clip.c", GUARDED)
    result = trace.check_trace(report.kernel, recorded, report.solution.bankings(),
                               _at_targets(report), _guarded_lane_moved(report, 1))
    assert result.disagreements == () and result.addresses.compared, result.format()
    assert result.addresses.skipped == (
        f"{path}:4:3: the accesses under its data-dependent ifs were not looked up "
        "(over 4 of them)",)


CALLED_TWICE = """\
static void scale(const int a[16], int b[16]) {
  for (int i = 0; i < 16; i++) {
#pragma HLS pipeline II=1
    b[i] = 2 * a[i] + a[(i + 1) % 16];
  }
}

void twice(const int x[16], int y[16], int z[16]) {
  int t[16];
  int u[16];
#pragma HLS bind_storage variable=u type=ram_1p
  scale(x, t);
  for (int r = 0; r < 3; r++) {
    scale(t, u);
    scale(u, t);
  }
  for (int i = 0; i < 16; i++) z[i] = t[i] + y[i];
}
"""


@needs_gxx
def test_a_loop_whose_text_runs_in_several_calls_is_compared_call_by_call(tmp_path):
    """The trace numbers the steps of every call of ``scale`` as one loop's; they are
    told apart by the calls' schedule (the first call, then the two calls of each
    ``r`` in turn), so each call is replayed against its own claim and compared with
    its own groups.  As written, the calls reading ``u`` (one port) reach II 2, the
    first II 1: one claim for all would have been wrong for one of them."""
    path = tmp_path / "twice.c"
    path.write_text(CALLED_TWICE)
    compiled = arraypart.compile_kernel(str(path))
    judged = assert_the_trace_agrees(compiled, tmp_path, ports=2)
    assert judged.labels[:3] == ("call 1 of 3", "call 2 of 3", "call 3 of 3")
    assert [loop.steps for loop in judged.replay.loops] == [16, 48, 48, 16]
    assert len(judged.addresses.compared) == 4 and judged.addresses.skipped == ()
    report = compiled.report
    recorded = trace.record(report.kernel, clangtu.Options(), tmp_path)
    written = api.judge_trace(report, recorded, as_written=True, ports=2)
    assert written.disagreements == (), written.format()
    assert [loop.traced_ii for loop in written.replay.loops] == [1, 1, 2, 1]
    assert "scale/L2 (twice.c:2:3, call 3 of 3): 48 steps, model II 2, traced II 2: " \
           "agrees" in written.format().replace(f"{tmp_path}/", "")


def _call_moved(report, instance: int):
    """The model's groups with the write of ``scale``'s ``instance``-th call (0-based
    among the kernel's loops) moved one element on."""
    return [dataclasses.replace(g, accesses=tuple(
        dataclasses.replace(x, index=(E.add(x.index[0], E.const(1)),))
        if g.instance == instance and x.kind == "write" else x for x in g.accesses))
        for a in report.model.arrays for g in a.groups]


@needs_gxx
@pytest.mark.parametrize("instance", [0, 1, 2])
def test_a_call_whose_model_is_wrong_is_named(recording, instance):
    path, report, recorded = recording("twice.c", CALLED_TWICE, max_banks=1)
    claims = _at_targets(report)
    result = trace.check_trace(report.kernel, recorded, {}, claims,
                               _call_moved(report, instance))
    (text,) = result.addresses.mismatches
    assert text.startswith(f"{path}:2:3: error: in call {instance + 1} of 3, trace "
                           "disagrees with the model's addresses at step 0 ("), text


@needs_gxx
def test_calls_under_a_data_dependent_if_are_not_told_apart(tmp_path):
    """A call the data may skip runs fewer steps than the model's: the split would
    misplace the other calls' steps, so the loop is named among the skipped and held
    to the strictest of its calls' claims."""
    path = tmp_path / "twice.c"
    path.write_text(CALLED_TWICE.replace("  scale(x, t);", "  if (x[0] > 0) scale(x, t);"))
    compiled = arraypart.compile_kernel(str(path))
    judged = assert_the_trace_agrees(compiled, tmp_path, ports=2)
    assert judged.addresses.skipped == (
        f"{path}:2:3: its text runs in 3 calls, whose steps were not told apart (a call "
        "under a data-dependent if, or one the model cannot enumerate): addresses not "
        "compared",)


@needs_gxx
def test_accesses_in_a_macros_arguments_are_recorded_and_compared(tmp_path):
    """``MUL(a_x[j], ...)``, as MachSuite's FFT writes its complex products: an access
    written in a macro's argument is recorded where it is written, and the model's
    access there is compared with it (once, neither side had it)."""
    path = tmp_path / "cmul.c"
    path.write_text("#define MUL(a, b, c, d) ((a) * (c) - (b) * (d))\n"
                    "void cmul(const float x[32], const float y[32], float z[32]) {\n"
                    "  float t[32];\n"
                    "  for (int i = 0; i < 32; i++) t[i] = x[i];\n"
                    "  for (int i = 0; i < 31; i++) {\n#pragma HLS pipeline II=1\n"
                    "    z[i] = MUL(t[i], t[i + 1], y[i], y[i + 1]) + t[i];\n  }\n}\n")
    for result in _agreeing(path, 2):
        assert len(result.addresses.compared) == 2
        assert result.trace.instrumented.skipped == ()
        sites = {(s.coord.line, s.coord.col) for s in result.trace.instrumented.sites}
        assert {(7, 16), (7, 22), (7, 32), (7, 38)} <= sites


@needs_gxx
@pytest.mark.parametrize("body", ["if (i < 10) out[i] = a[i];", "if (i >= 6) out[i] = a[i];"])
def test_steps_that_access_nothing_still_count(tmp_path, body):
    """A loop whose last (or first) steps touch no array runs all of them: the trace
    counts 16 steps, not the 10 its accesses are on (it reported that the program ran
    10 steps and disagreed with the model's 16)."""
    path = tmp_path / "part.c"
    path.write_text("void part(const int a[16], int out[16]) {\n"
                    "  for (int i = 0; i < 16; i++) {\n#pragma HLS pipeline II=1\n"
                    f"    {body}\n  }}\n}}\n")
    for result in _agreeing(path, 2):
        assert [loop.steps for loop in result.replay.loops] == [16]


@needs_gxx
def test_a_macro_access_read_and_written_is_named_once(tmp_path):
    """``XOR(i)`` expands to ``s[i] ^= k[i]``, written in the macro's body: one place
    the run does not record, listed once although it is a read and a write."""
    path = tmp_path / "xored.c"
    path.write_text("#define XOR(j) s[j] ^= k[j]\n"
                    "void xored(int s[16], const int k[16]) {\n"
                    "  for (int i = 0; i < 16; i++) {\n#pragma HLS pipeline II=1\n"
                    "    XOR(i);\n  }\n}\n")
    for result in _agreeing(path, 2):
        skipped = result.trace.instrumented.skipped
        text = result.format()
        assert len(skipped) > len(set(skipped)), skipped
        for coord in set(skipped):
            assert text.count(f"{coord}: access written in a macro") == 1, text


@needs_gxx
def test_an_access_right_after_a_percent_sign_builds(tmp_path):
    """``a[i]%d[i]``: the logging call put before ``d[i]`` must not make ``%:``, the
    digraph of ``#`` (Rosetta 3d-rendering's ``k%max_min[4]``)."""
    path = tmp_path / "modulo.c"
    path.write_text("""\
void modulo(const int a[8], int out[8]) {
  const int d[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  for (int i = 0; i < 8; i++) {
#pragma HLS pipeline II=1
    out[i] = a[i]%d[i];
  }
}
""")
    compiled = arraypart.compile_kernel(str(path))
    assert_the_trace_agrees(compiled, tmp_path, ports=2)


@needs_gxx
def test_a_pipeline_pragma_inside_a_pipelined_loop_is_part_of_its_steps(tmp_path):
    """Vitis unrolls a loop inside a pipelined one, whatever its own pragma says (as
    MachSuite gemm_ncubed's directives pipeline both ``middle`` and ``inner``): its
    accesses belong to the outer loop's steps, as in the model."""
    path = tmp_path / "nest.c"
    path.write_text("""\
void nest(const int a[8][8], int out[8]) {
  for (int i = 0; i < 8; i++) {
#pragma HLS pipeline II=1
    int s = 0;
    for (int j = 0; j < 8; j++) {
#pragma HLS pipeline II=1
      s += a[i][j];
    }
    out[i] = s;
  }
}
""")
    compiled = arraypart.compile_kernel(str(path))
    judged = assert_the_trace_agrees(compiled, tmp_path, ports=2)
    assert not judged.untraced and judged.replay.records == 8 * 9


@needs_gxx
def test_an_original_that_crashes_on_the_random_inputs_is_a_located_error(tmp_path):
    """The compiled original reads far outside ``a`` for every input (as Rosetta
    3d-rendering overruns ``fragment`` on random triangles): a located error that
    names the signal at the top function (it was placed at ``wild.c:0:0``, probe 33c),
    not an internal error.  The offset (2^62 bytes and more) leaves
    the canonical x86-64 addresses, so the read faults whatever the memory layout
    (``idx[i] | 0x10000000`` could land in mapped memory and pass, rarely)."""
    path = tmp_path / "wild.c"
    path.write_text("""\
void wild(const int a[8], const int idx[8], int out[8]) {
  for (int i = 0; i < 8; i++) {
#pragma HLS pipeline II=1
    out[i] = a[(long long)(idx[i] & 0xffff) * 4096 + 0x1000000000000000LL];
  }
}
""")
    report = arraypart.analyze(path)
    with pytest.raises(KernelError, match=r"wild\.c:1:6: error: check --trace: the compiled "
                       "original ended with SIG(SEGV|BUS) on the testbench's random inputs"):
        trace.record(report.kernel, clangtu.Options(), tmp_path)


@needs_gxx
def test_a_failed_assert_of_the_kernel_is_named_at_the_assert(tmp_path):
    """The original stops at its own assert on the random inputs (``a[i]`` is 3 at
    some i): the error names the assert as written, at its line (probe 38 L1: it
    blamed "an access outside an array, most likely"), with the driver's logging
    calls taken out of its condition."""
    path = tmp_path / "picky.c"
    path.write_text("""\
#include <assert.h>
void picky(const int a[64], int out[64]) {
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    assert(a[i]  % 64 != 3);
    out[i] = a[i];
  }
}
""")
    report = arraypart.analyze(path)
    with pytest.raises(KernelError, match=re.escape(
            "picky.c:5:5: error: check --trace: the kernel's own assert(a[i] % 64 != 3) "
            "failed on the testbench's inputs")):
        trace.record(report.kernel, clangtu.Options(), tmp_path)


@needs_gxx
def test_sanitize_stops_at_undefined_behaviour_of_the_original(tmp_path):
    """``x + x`` overflows an int for every input: the two kernels compute the same
    wrapped value and the testbench prints PASS (probe 38 L2).  Under ``--sanitize``
    g++'s undefined-behaviour sanitizer stops the traced original there, a located
    error at the line as the kernel file writes it."""
    path = tmp_path / "ovf.c"
    path.write_text("""\
void ovf(const int a[16], int out[16]) {
  for (int i = 0; i < 16; i++) {
#pragma HLS pipeline II=1
    int x = (a[i] & 0xff) | 0x40000000;
    out[i] = x + x;
  }
}
""")
    report = arraypart.analyze(path)
    trace.record(report.kernel, clangtu.Options(), tmp_path)
    with pytest.raises(KernelError, match=re.escape(
            "ovf.c:5:5: error: check --trace --sanitize: the original's behaviour is "
            "undefined on the testbench's inputs: signed integer overflow")):
        trace.record(report.kernel, clangtu.Options(), tmp_path, sanitize=True)
    with pytest.raises(SystemExit) as usage:
        cli.main(["check", str(path), "--sanitize"])  # it builds the traced original
    assert usage.value.code == 2


@needs_gxx
def test_a_sub_function_a_header_declares_and_the_file_defines_later_is_traced(tmp_path):
    """Vitis' simple_fifos style: the header declares the sub-functions, the kernel
    file defines the top first.  In ``namespace original`` the top's calls must reach
    the original's own definitions, not the header's global declarations (which the
    trace driver does not define: it did not link)."""
    (tmp_path / "stages.h").write_text("void stage(const int in[8], int out[8]);\n"
                                       "void stages(const int in[8], int out[8]);\n")
    path = tmp_path / "stages.cpp"
    path.write_text("""\
#include "stages.h"

void stages(const int in[8], int out[8]) {
    stage(in, out);
}

void stage(const int in[8], int out[8]) {
    for (int i = 0; i < 8; i++) {
#pragma HLS pipeline II=1
        out[i] = 3 * in[i];
    }
}
""")
    compiled = arraypart.compile_kernel(str(path), top="stages")
    judged = assert_the_trace_agrees(compiled, tmp_path, ports=2)
    assert judged.replay.records == 16
    run = run_testbench(compiled, tmp_path)
    assert run.returncode == 0 and "PASS" in run.stdout, run.stdout + run.stderr


# The "header declares every function" layout with arguments of a global class (an
# ap_int, a C struct): in namespace original, argument-dependent lookup also found the
# header's global declaration of the sub-function (the banked kernel's), and g++ called
# the original's call ambiguous (2 of 11 real kernels, probe 34 F3).  Beside it, what
# a header may give a sub-function: a default argument, static linkage, a template
# defined after its call.
HEADER_DECLARED = {
    "ap_int": ("k.cpp", """\
#include <ap_int.h>
typedef ap_int<16> data_t;
void helper(data_t a[8], data_t *o);
void k(data_t a[8], data_t *o);
""", """\
#include "k.h"
void helper(data_t a[8], data_t *o) {
  data_t s = 0;
  for (int i = 0; i < 8; i++) {
#pragma HLS pipeline II=1
    s += a[i];
  }
  *o = s;
}
void k(data_t a[8], data_t *o) { helper(a, o); }
"""),
    "c_struct": ("k.c", """\
typedef struct { int v; } pt;
void helper(pt a[8], pt *o);
void k(pt a[8], pt *o);
""", """\
#include "k.h"
void k(pt a[8], pt *o) { helper(a, o); }
void helper(pt a[8], pt *o) {
  int s = 0;
  for (int i = 0; i < 8; i++) {
#pragma HLS pipeline II=1
    s += a[i].v;
  }
  o->v = s;
}
"""),
    "default_static_template": ("k.cpp", """\
#include <ap_fixed.h>
typedef ap_fixed<16, 8> data_t;
void scale(data_t a[8], int by = 3);
static void bump(data_t a[8]);
template <int N> void total(const data_t a[N], data_t *o);
void k(data_t a[8], data_t *o);
""", """\
#include "k.h"
void k(data_t a[8], data_t *o) {
  scale(a);
  bump(a);
  total<8>(a, o);
}
template <int N> void total(const data_t a[N], data_t *o) {
  data_t s = 0;
  for (int i = 0; i < N; i++) {
#pragma HLS pipeline II=1
    s += a[i];
  }
  *o = s;
}
void scale(data_t a[8], int by) {
  for (int i = 0; i < 8; i++) {
#pragma HLS pipeline II=1
    a[i] = a[i] * by;
  }
}
static void bump(data_t a[8]) {
  for (int i = 0; i < 8; i++) {
#pragma HLS pipeline II=1
    a[i] += 1;
  }
}
"""),
    # a header class's method defined in the file: not in namespace original (34b F6)
    "header_class_method": ("k.cpp", """\
struct Acc { int v; int get() const; };
void k(const int in[64], int out[64]);
""", """\
#include "k.h"
int Acc::get() const { return v + 1; }
void k(const int in[64], int out[64]) {
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    Acc a{in[i]};
    out[i] = a.get();
  }
}
"""),
    # the copy's original::util::clip needs the header's default too (probe 34b F5)
    "namespaced_default": ("k.cpp", """namespace util { int clip(int x, int hi = 100); }
void k(const int in[64], int out[64]);
""", """#include "k.h"
namespace util { int clip(int x, int hi) { return x > hi ? hi : x; } }
void k(const int in[64], int out[64]) {
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    out[i] = util::clip(in[i]);
  }
}
"""),
}


@needs_gxx
@pytest.mark.parametrize("name", HEADER_DECLARED)
def test_sub_functions_a_header_declares_run_the_originals_own(tmp_path, name):
    """The original's copy renames the sub-functions a header declares, as it renames
    the top, and declares them first as the header does: the testbench builds and
    passes, and the trace (which links no banked kernel) runs."""
    filename, header, text = HEADER_DECLARED[name]
    (tmp_path / "k.h").write_text(header)
    path = tmp_path / filename
    path.write_text(text)
    compiled = arraypart.compile_kernel(str(path), top="k")
    assert_the_testbench_passes(compiled, tmp_path)
    assert_the_trace_agrees(compiled, tmp_path, ports=2)


@needs_gxx
def test_header_prototypes_stay_out_of_a_template_head(tmp_path):
    """The file's first definition is a template: the prototype of the sub-function
    the header declares went between ``template <int N>`` and its function, and
    neither the testbench nor the trace driver compiled (FPGA-ANNS' vadd.cpp, probe 34
    F4)."""
    (tmp_path / "k.h").write_text("void helper(int a[16]);\nvoid k(int a[16]);\n")
    path = tmp_path / "k.cpp"
    path.write_text("""\
#include "k.h"
// scales by 3
template <int N> void scale(int a[N]) {
  for (int i = 0; i < N; i++) {
#pragma HLS pipeline II=1
    a[i] = a[i] * 3;
  }
}
void helper(int a[16]) {
  for (int i = 0; i < 16; i++) {
#pragma HLS pipeline II=1
    a[i] += 1;
  }
}
void k(int a[16]) {
  scale<16>(a);
  helper(a);
}
""")
    compiled = arraypart.compile_kernel(str(path), top="k")
    assert_the_testbench_passes(compiled, tmp_path)
    assert_the_trace_agrees(compiled, tmp_path, ports=2)


@needs_gxx
def test_files_the_kernel_writes_land_in_the_scratch_folder(tmp_path, monkeypatch):
    """Vitis HLS' hier_func4 writes ``Out_apb_006.dat`` as it runs: the trace driver
    runs in its own folder, so nothing lands in (or overwrites) the user's."""
    path = tmp_path / "logged.cpp"
    path.write_text("""\
#include <stdio.h>

void logged(const int a[8], int out[8]) {
    for (int i = 0; i < 8; i++) {
#pragma HLS pipeline II=1
        out[i] = a[i] + 1;
    }
    FILE *log = fopen("side.dat", "w");
    if (log) { fprintf(log, "done\\n"); fclose(log); }
}
""")
    user = tmp_path / "user"
    user.mkdir()
    monkeypatch.chdir(user)
    report = arraypart.analyze(path)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    trace.record(report.kernel, clangtu.Options(), scratch)
    assert list(user.iterdir()) == []
    assert (scratch / "side.dat").read_text() == "done\n"


SIZED = """\
void sized(const int a[64], int out[64], int n) {
  int buf[64];
  for (int i = 0; i < n; i++) {
#pragma HLS LOOP_TRIPCOUNT max=60
    buf[i] = a[i];
  }
  for (int i = 0; i < n - 2; i++) {
#pragma HLS pipeline II=1
#pragma HLS LOOP_TRIPCOUNT max=58
    out[i] = buf[n - 1 - i] + buf[i + 2];
  }
}
"""


@needs_gxx
@pytest.mark.parametrize("shift", [0, 1])
def test_a_loop_bounded_by_a_size_argument_is_compared_at_the_runs_size(recording, shift):
    """The model's steps run over every value of ``n``; the testbench passes 60, 0
    and 30 in its three calls, each traced, so the domains are taken at each and the
    addresses compared (they were skipped as parameterized).  A model whose
    ``buf[n - 1 - i]`` is one element off disagrees, named in the first call."""
    path, report, recorded = recording("sized.c", SIZED)
    assert [(p.name, p.high) for p in report.kernel.params] == [("n", 60)]
    result = trace.check_trace(report.kernel, recorded, report.solution.bankings(),
                               _at_targets(report), _moved(report, 10, 14, shift))
    assert len(result.addresses.compared) == 2 and result.addresses.skipped == ()
    assert [loop.steps for loop in result.replay.loops] == [60 + 30, 58 + 28]
    if not shift:
        assert result.addresses.mismatches == (), result.format()
        return
    (text,) = result.addresses.mismatches
    assert text.startswith(f"{path}:7:3: error: in the top's call 1 of 3 (n=60), trace "
                           "disagrees with the model's addresses at step 0 (n=60, i=0)"), text


# A loop from one size argument to another: at both sizes' largest values (all the
# trace ran before) it runs no step.
STARTED = """\
#include <assert.h>
void started(const int a[64], int out[64], int start, int n) {
  assert(start < 64 && n < 64);
  for (int i = start; i < n; i++) {
#pragma HLS pipeline II=1
    out[i] = a[i] + a[i + 1];
  }
}
"""


@needs_gxx
@pytest.mark.parametrize("shift", [0, 1])
def test_a_loop_that_a_size_argument_starts_runs_in_a_traced_call(recording, shift):
    """The trace runs the testbench's three calls, whose sizes run the loops longest
    first (a start at its least value, an end at its largest: start 0, n 63), then
    shortest, then midway; it ran the first call alone, with every size at its
    largest, so the loop ran no step and nothing was checked (probe 37 F6).  A model
    whose ``a[i + 1]`` is one element off now disagrees."""
    path, report, recorded = recording("started.c", STARTED, max_banks=1)
    assert trace.size_values(report.kernel) == (
        {"start": 0, "n": 63}, {"start": 63, "n": 0}, {"start": 31, "n": 31})
    result = trace.check_trace(report.kernel, recorded, {}, _at_targets(report),
                               _moved(report, 6, 21, shift))
    assert [loop.steps for loop in result.replay.loops] == [63]
    assert len(result.addresses.compared) == 1
    if not shift:
        assert result.disagreements == (), result.format()
        return
    (text,) = result.addresses.mismatches
    assert text.startswith(f"{path}:4:3: error: in the top's call 1 of 3 (start=0, n=63), "
                           "trace disagrees with the model's addresses at step 0"), text


@needs_gxx
def test_a_pipelined_loop_without_array_accesses_is_traced(tmp_path):
    """A loop that touches no array (a scalar sum, a stream) has no cycle group and
    records no access, only the end of its run (so its 16 steps count): it is left
    out of the address comparison (a crash before)."""
    path = tmp_path / "scalars.c"
    path.write_text("void scalars(const int a[16], int out[2]) {\n  int s = 0;\n"
                    "  for (int i = 0; i < 16; i++) {\n#pragma HLS pipeline II=1\n"
                    "    s += i * i;\n  }\n"
                    "  for (int i = 0; i < 16; i++) {\n#pragma HLS pipeline II=1\n"
                    "    s += a[i];\n  }\n  out[0] = s;\n}\n")
    for result in _agreeing(path, 2):
        assert [loop.steps for loop in result.replay.loops] == [16, 16]
        assert len(result.addresses.compared) == 1


def test_records_outside_every_traced_loop_are_read_in_bounded_chunks(tmp_path):
    """Records of sequential code (loop -1) belong to no step, so the reader may cut
    them anywhere: a long stretch of them stays in chunks of the asked size (it was one
    chunk: Rosetta digit-recognition's run held gigabytes at once), and a traced
    loop's step is still never split."""
    from arraypart.check.records import RECORD, chunks
    rows = np.zeros(10_000, RECORD)
    rows["loop"] = -1
    rows["loop"][9_000:] = 0
    rows["step"][9_000:] = np.repeat(np.arange(10), 100)
    path = tmp_path / "trace.bin"
    rows.tofile(path)
    sizes = [c.size for c in chunks(path, 1_000)]
    assert sum(sizes) == 10_000 and max(sizes) <= 1_100
    for c in chunks(path, 150):
        inside = c[c["loop"] == 0]
        assert inside.size % 100 == 0  # whole steps only


CONSTEXPR_HELPER = """\
constexpr int span(int n) {
  int total = 0;
  for (int k = 0; k < n; ++k) total += k;
  return total;
}

void windows(const int in[64], int out[32]) {
  int buf[64];
#pragma HLS bind_storage variable=buf type=ram_1p
  for (int i = 0; i < 64; i++) buf[i] = in[i];
  constexpr int shift = span(4);
  for (int i = 0; i < 32; i++) {
#pragma HLS pipeline II=1
    out[i] = buf[i] + buf[i + shift + 26];
  }
}
"""


@needs_gxx
def test_a_constexpr_helper_is_left_uninstrumented(tmp_path):
    """g++ may run a constexpr function while compiling, where a recording call or a
    loop Scope is not allowed: the trace driver failed to build (an internal error on
    AMD's TSP tutorial kernel, whose factorial() is one)."""
    path = tmp_path / "windows.cpp"
    path.write_text(CONSTEXPR_HELPER)
    for result in _agreeing(path, 1):
        steps = {loop.coord.line: loop.steps for loop in result.replay.loops}
        assert steps[12] == 32


@needs_gxx
def test_a_pipeline_pragma_of_a_loop_without_braces_is_its_own(tmp_path):
    """``#pragma HLS pipeline`` between the header of a ``for`` without braces and its
    statement pipelines that loop, in the trace as in the model (it was given to the
    enclosing braced loop: a pipelined loop the model does not have, and nothing
    compared)."""
    path = tmp_path / "unbraced.cpp"
    path.write_text("""void unbraced(float a[32][32], float b[32][32]) {
  for (int t = 0; t < 2; t++) {
    for (int i = 0; i < 32; i++)
      for (int j = 0; j < 32; j++)
#pragma HLS pipeline
        a[i][j] = b[i][j] + a[i][j];
  }
}
""")
    judged, _ = _agreeing(path, 2)
    assert [loop.claim.name for loop in judged.replay.loops] == ["L4"]
    assert len(judged.addresses.compared) == 1 and judged.untraced == ()


@needs_gxx
def test_reads_of_local_elements_nothing_wrote_are_warnings(tmp_path):
    """temp[0], temp[1] (and temp[30], temp[31]) are read but never written: their values
    are undefined, so a testbench difference there is the kernel's.  The trace says so
    at the first such read of each reference; an initialized or static local, and
    elements written first, are not reported."""
    path = tmp_path / "unwritten.cpp"
    path.write_text("""void unwritten(float out[32], float img[32]) {
  float temp[32];
  float zeros[32] = {0};
  static float kept[32];
  for (int j = 1; j < 15; j++) {
#pragma HLS pipeline
    temp[2 * j] = img[j];
    temp[2 * j + 1] = img[j] + img[j + 1];
  }
  for (int j = 0; j < 32; j++) {
#pragma HLS pipeline
    out[j] = temp[j] + temp[(j + 1) % 32] + zeros[j] + kept[j];
  }
}
""")
    judged, _ = _agreeing(path, 2)
    assert judged.unwritten == tuple(
        f"{path}:12:{col}: warning: on the testbench's inputs this reads {element} before "
        "anything writes it: its value is undefined, so the original and the banked "
        "kernel may differ there" for col, element in ((14, "temp[0]"), (24, "temp[1]")))
    assert judged.to_json()["unwritten_reads"] == list(judged.unwritten)


@needs_gxx
@pytest.mark.parametrize("first", [
    "  buf[0] = in[0];\n",
    "  for (int i = 0; i < 1; i++) {\n    f(i);\n    buf[i] = in[i];\n  }\n",
    "  memset(buf, 0, sizeof(buf));\n  buf[1] = in[1];\n"],
    ids=["straight-line", "loop-with-a-call", "memset"])
def test_a_local_written_where_the_run_records_nothing_is_not_called_unwritten(tmp_path,
                                                                               first):
    """The driver records the accesses of pipelined loops only: buf[0], written before
    them, was reported read before anything wrote it (public kernels: harris, optical
    flow, unsharp mask).  Such an array is left out of that warning, and so is one a
    call may fill (``memset``; with a store after it, the other elements were called
    unwritten: probe 27b, item 5)."""
    path = tmp_path / "prefix.cpp"
    path.write_text("#include <string.h>\n"
                    "int f(int x) { int r = 0; for (int b = 0; b < 2; b++) r += x; return r; }\n"
                    "void prefix(const int in[4], int out[4]) {\n  int buf[4];\n" + first +
                    "  for (int i = 1; i < 4; i++) buf[i] = buf[i - 1] + in[i];\n"
                    "  for (int i = 0; i < 4; i++) out[i] = buf[i];\n}\n")
    judged, _ = _agreeing(path, 2)
    assert judged.unwritten == ()


@needs_gxx
def test_a_write_the_run_does_not_record_hides_only_the_elements_it_writes(tmp_path):
    """line[65] = 7 (outside the pipelines) made the whole of line unchecked, and the
    testbench's unwritten line[0] and line[64] went unnamed (AFOCL's sobel): now only
    the elements such writes may write are presumed written."""
    path = tmp_path / "lines.cpp"
    path.write_text("""void lines(const int in[64], int out[65]) {
  int line[66];
  for (int i = 0; i < 21; i++) {
#pragma HLS pipeline II=1
    for (int k = 0; k < 3; k++) line[3 * i + k + 1] = in[3 * i + k];
  }
  line[65] = 7;
  for (int r = 0; r < 2; r++) line[r + 63] = r;
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    out[i] = line[i] + line[i + 2];
  }
  out[64] = line[65];
}
""")
    judged, _ = _agreeing(path, 2)
    assert [u.split(" warning: ")[0] + " " + u.split(" reads ")[1].split()[0]
            for u in judged.unwritten] == [f"{path}:11:14: line[0]"]


@needs_gxx
@pytest.mark.parametrize("struct, named", [
    ("struct acc_t { int sum = 0; bool seen = false; };", False),
    ("struct acc_t { int sum; bool seen; acc_t() : sum(0), seen(false) {} };", False),
    ("struct acc_t { int sum; bool seen; acc_t() = default; };", True),
    ("struct acc_t { int sum; bool seen; };", True)],
    ids=["member-initializers", "constructor", "defaulted", "plain"])
def test_a_struct_that_initializes_itself_is_no_unwritten_read(tmp_path, struct, named):
    """acc[k].sum += x reads what the struct's default construction set: no undefined
    value (probe 26 item 13); a struct that sets nothing on construction still is."""
    path = tmp_path / "acc.cpp"
    path.write_text(struct + """
void acc(const int in[64], int out[8]) {
  acc_t acc[8];
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    acc[i % 8].sum += in[i];
    acc[i % 8].seen = true;
  }
  for (int k = 0; k < 8; k++) out[k] = acc[k].seen ? acc[k].sum : -1;
}
""")
    judged, _ = _agreeing(path, 2)
    assert bool(judged.unwritten) == named


@needs_gxx
def test_c_simulation_code_that_g_plus_plus_rejects_is_a_located_error(tmp_path):
    """Code under #ifndef __SYNTHESIS__ is never parsed by arraypart; when g++ rejects
    it, the trace driver does not build: that is the kernel's error, at g++'s place
    (it was an internal error)."""
    path = tmp_path / "csim.cpp"
    path.write_text("void csim(int a[4]) {\n#ifndef __SYNTHESIS__\n  assert(a);\n#endif\n"
                    "  for (int i = 0; i < 4; i++) a[i] = i;\n}\n")
    compiled = arraypart.compile_kernel(str(path))
    with pytest.raises(KernelError, match="g\\+\\+ does not compile the kernel as C "
                                          "simulation reads it") as err:
        trace.record(compiled.report.kernel, clangtu.Options(), tmp_path)
    assert (err.value.coord.line, err.value.coord.col) == (3, 3)


@needs_gxx
@pytest.mark.parametrize("text", [
    "template <int N> struct V { int a[N]; int &operator[](int i) { return a[i]; } };\n"
    "template <int N> void f(V<N> &v, const int in[N]) {\n"
    "  for (int i = 0; i < N; i++) v[i] = in[i];\n}\n"
    "void k(const int in[8], int out[8]) {\n  V<8> v;\n  f(v, in);\n"
    "  for (int i = 0; i < 8; i++) out[i] = v[i];\n}\n",
    "#include \"ap_int.h\"\n"
    "template <typename T> T neg() { T x = 0; x[3] = 1; return x; }\n"
    "void k(ap_int<8> out[4]) {\n  for (int i = 0; i < 4; i++) out[i] = neg<ap_int<8> >();\n}\n"],
    ids=["operator-brackets", "bit-reference"])
def test_a_subscript_whose_type_a_template_decides_builds(tmp_path, text):
    """In a template, ``v[i]`` on a V<N> and ``x[3]`` on an ap_int are subscripts until
    instantiated: the recorder got a struct as the array's address, or a temporary bit
    reference as the element, and the driver did not build (an internal error; finn's
    MVAU, hls4ml's padding).  They are recorded by address, and a temporary is none."""
    path = tmp_path / "k.cpp"
    path.write_text(text)
    _agreeing(path, 2)


@needs_gxx
def test_a_pipelined_loop_of_a_function_never_called_is_not_listed(tmp_path):
    """The trace instruments every pipelined loop of the file; one of a function the top
    never calls runs 0 steps and is no loop of the model: nothing to say of it (it was
    listed as a pipelined loop the model does not have)."""
    path = tmp_path / "uncalled.cpp"
    path.write_text("""void spare(int a[8]) {
  for (int i = 0; i < 8; i++) {
#pragma HLS pipeline II=1
    a[i] = a[i] + 1;
  }
}
void uncalled(int a[8], int b[8]) {
  for (int i = 0; i < 8; i++) {
#pragma HLS pipeline II=1
    b[i] = a[i] * 2;
  }
}
""")
    report = arraypart.analyze(path, top="uncalled")
    recorded = trace.record(report.kernel, clangtu.Options(), tmp_path)
    judged = api.judge_trace(report, recorded)
    assert [loop.steps for loop in judged.replay.loops] == [0, 8]
    assert "does not have" not in judged.format() and judged.disagreements == ()


@needs_gxx
def test_a_pipeline_vitis_cannot_build_is_not_traced_as_one(tmp_path, analyses_shared):
    """``L4``'s pragma pipelines a loop that holds ``L7``, whose trip count the data
    choose: Vitis cannot unroll ``L7`` and ignores that pipeline, the model does too
    (``L7`` pipelined by default), and so does the trace (it took ``L4`` as the
    pipeline, ``L7`` as untraced)."""
    path = tmp_path / "variable.cpp"
    path.write_text("""void variable(const int in[64], int out[64], const int len[64]) {
  int buf[64];
  for (int i = 0; i < 64; i++) buf[i] = in[i];
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    int s = 0;
    for (int k = 0; k < len[i] % 64; k++) s += buf[k];
    out[i] = s;
  }
}
""")
    judged, _ = _agreeing(path, 2)
    assert [loop.claim.name for loop in judged.replay.loops] == ["L3", "L7"]
    assert judged.untraced == ()
    compiled = arraypart.compile_kernel(path)
    run = run_testbench(compiled, tmp_path)
    assert run.returncode == 0 and "PASS" in run.stdout, run.stdout


INSERTION_SORT = """\
void isort(int A[16]) {
  for (int i = 1; i < 16; i++) {
    int item = A[i];
    int j = i;
    %s {
#pragma HLS pipeline II=1
      A[j] = A[j - 1];
      %s
    }
    A[j] = item;
  }
}
"""


@needs_gxx
@pytest.mark.parametrize("head, step", [
    ("while (j > 0 && A[j - 1] > item)", "j--;"),
    ("for (; j > 0 && A[j - 1] > item; j--)", ""),
])
def test_a_condition_that_reads_the_array_is_in_the_step_it_lets_run(tmp_path, head,
                                                                       step):
    """The insertion sort of pp4fpgas: each step reads A[j - 1] in its condition and
    its body (one read) and writes A[j], on two ports.  The condition that lets the
    next iteration run was recorded in the step before it, two reads and a write,
    and the trace disagreed with the model (II 2 against 1; as a ``for`` the model
    takes ``j`` as irregular and claims II 2 as written)."""
    path = tmp_path / "isort.c"
    path.write_text(INSERTION_SORT % (head, step))
    for result in _agreeing(path, 2):
        (loop,) = result.replay.loops
        assert loop.traced_ii == 1


SYNTHESIS_ONLY = """\
#include <cstdio>
void csim(const int a[8], int out[8]) {
  int buf[8];
  for (int i = 0; i < 8; i++) buf[i] = a[i];
  for (int i = 0; i < 4; i++) {
#pragma HLS pipeline II=1
#ifndef __SYNTHESIS__
    printf("%d\\n", buf[2 * i]);
#else
    out[7 - i] = buf[7 - i];
#endif
    out[i] = buf[2 * i] + buf[2 * i + 1];
  }
  for (int i = 0; i < 8; i++) {
#pragma HLS pipeline II=1
#ifndef __SYNTHESIS__
    if (i == 0) printf("start\\n");
#endif
    out[i] += buf[i];
  }
}
"""


@needs_gxx
def test_a_loop_whose_synthesized_text_g_plus_plus_skips_is_not_traced(tmp_path):
    """The model reads what Vitis synthesizes (``__SYNTHESIS__`` defined), g++ what C
    simulation compiles: in the loop at line 5 the ``#else`` branch of ``#ifndef
    __SYNTHESIS__`` is synthesis only, and each of its accesses was reported as one
    the program does not make (exit 1).  That loop is named and not traced; the one
    that only adds a printf under ``#ifndef`` still is."""
    path = tmp_path / "csim.cpp"
    path.write_text(SYNTHESIS_ONLY)
    for result in _agreeing(path, 2):
        assert [str(c.coord).rsplit(":", 2)[-2] for c in result.untraced] == ["5"]
        assert "g++ does not compile" in result.format()
        assert len(result.addresses.compared) == 2


@needs_gxx
def test_a_size_the_data_chose_leaves_the_loops_it_does_not_bound_compared(tmp_path):
    """``m *= 2`` with no loop in its body runs over a counter of a fresh trip count,
    whose value the run chooses: every group's domain has that size as a dimension,
    and no loop's addresses were compared.  The copies around it do not depend on it."""
    path = tmp_path / "plain.cpp"
    path.write_text("void plain(const int in[16], int out[16]) {\n  int buf[16];\n"
                    "  for (int i = 0; i < 16; i++) buf[i] = in[i];\n"
                    "  for (int m = 1; m < 16; m *= 2) buf[m] += 1;\n"
                    "  for (int i = 0; i < 16; i++) out[i] = buf[i];\n}\n")
    for result in _agreeing(path, 2):
        assert sorted(c.line for c in result.addresses.compared) == [3, 5]
        assert any("plain.cpp:4:3: the model's steps were not enumerated" in s
                   for s in result.addresses.skipped)


@needs_gxx
def test_synthesis_only_code_in_a_called_function_leaves_the_loop_untraced(tmp_path):
    """The same where the ``#ifdef __SYNTHESIS__`` stands in a function the pipelined
    loop calls: the model's three reads of ``c`` were reported as not made (exit 1)."""
    path = tmp_path / "callee.cpp"
    path.write_text("static int get(const int c[8], int i) {\n#ifdef __SYNTHESIS__\n"
                    "  return c[i & 7] + c[(i + 1) & 7] + c[(i + 2) & 7];\n#else\n"
                    "  return c[i & 7];\n#endif\n}\n"
                    "void callee(int a[32], int c[8], int out[32]) {\n"
                    "  for (int i = 0; i < 32; i++) {\n#pragma HLS pipeline II=1\n"
                    "    out[i] = a[i] + get(c, i);\n  }\n}\n")
    for result in _agreeing(path, 2):
        assert [c.coord.line for c in result.untraced] == [9]
        assert "in a function it calls" in result.format()


@needs_gxx
def test_a_loop_naming_a_synthesis_only_declaration_is_left_untraced(tmp_path):
    """``int buf[64]`` under ``#ifdef __SYNTHESIS__``, a ``malloc``'d pointer in C
    simulation (SDAccel's linear search): the loops that name ``buf`` hold no
    synthesis-only code, so they were traced, every access the model predicts was
    reported as not made (exit 1), and the loops were said to agree (probe 33 F3).
    The loop that names only the interface arrays is still traced."""
    path = tmp_path / "decl.cpp"
    path.write_text("#include <stdlib.h>\n"
                    "void decl(const int in[64], int out[64], int copy[64]) {\n"
                    "#ifdef __SYNTHESIS__\n  int buf[64];\n#else\n"
                    "  int *buf = (int *)malloc(64 * sizeof(int));\n#endif\n"
                    "  for (int i = 0; i < 64; i++) {\n#pragma HLS pipeline II=1\n"
                    "    buf[i] = in[i];\n  }\n"
                    "  for (int i = 0; i < 64; i++) {\n#pragma HLS pipeline II=1\n"
                    "    out[i] = buf[i];\n  }\n"
                    "  for (int i = 0; i < 64; i++) {\n#pragma HLS pipeline II=1\n"
                    "    copy[i] = in[i];\n  }\n"
                    "#ifndef __SYNTHESIS__\n  free(buf);\n#endif\n}\n")
    for result in _agreeing(path, 2):
        assert [c.coord.line for c in result.untraced] == [8, 12]
        assert "in a declaration it names" in result.format()
        assert [c.line for c in result.addresses.compared] == [16]


SWAPS = """#include <algorithm>
#define N 16
void swaps(const int in[N], int out[N]) {
  int buf[N];
  for (int i = 0; i < N; i++) {
#pragma HLS pipeline II=1
    buf[i] = in[i];
  }
  for (int s = 0; s < N; s++) {
#pragma HLS pipeline II=1
    for (int k = (s & 1); k + 1 < N; k += 2) {
      std::swap(buf[k], buf[k + 1]);
    }
  }
  for (int i = 0; i < N; i++) {
#pragma HLS pipeline II=1
    out[i] = buf[i];
  }
}
"""


CAS = """static void cas(int &a, int &b) {
  if (a > b) { int t = a; a = b; b = t; }
}
"""


@needs_gxx
@pytest.mark.parametrize("swap, cols", [("std::swap", (17, 25)), ("cas", (11, 19))])
def test_an_element_a_call_takes_by_reference_is_read_and_written(tmp_path, swap, cols):
    """``std::swap(buf[k], buf[k + 1])`` writes both elements.  The front end read them
    as values (two reads) and so did the trace: one memory at II 1 was claimed and
    agreed with, where two reads and two writes a cycle need II 2 of its two ports.
    Both now count each such argument as read and written; so does the kernel's own
    compare-and-swap ``cas(int &a, int &b)``, which was a located error, and a loop
    passing an element by reference keeps its references (a routed read register
    took the callee's writes)."""
    path = tmp_path / "swaps.cpp"
    path.write_text(SWAPS.replace("std::swap", swap).replace("#define N 16\n",
                                                             "#define N 16\n" + CAS))
    compiled = arraypart.compile_kernel(path)
    swap_line = [(a.kind, a.coord.col) for a in ir.accesses(compiled.report.kernel.body)
                 if a.coord.line == 15]
    assert swap_line == [("read", cols[0]), ("write", cols[0]),
                         ("read", cols[1]), ("write", cols[1])]
    assert_the_testbench_passes(compiled, tmp_path)
    recorded = trace.record(compiled.report.kernel, clangtu.Options(), tmp_path,
                            compiled.report.solution.emitted_bankings())
    judged = api.judge_trace(compiled.report, recorded, as_written=True, ports=2)
    assert [loop.traced_ii for loop in judged.replay.loops] == [1, 2, 1]


@needs_gxx
def test_a_loop_the_testbench_never_runs_is_said_to_be_unchecked(tmp_path):
    """A loop that the testbench's scalar arguments skip (mode is 3, 4 and 5 in its
    three calls) was reported '0 steps, model II 1, traced II 1: agrees' (probe 25,
    item 11): nothing had been checked.  It is a located warning."""
    path = tmp_path / "moded.c"
    path.write_text("""\
void moded(const int in[32], int out[32], int mode) {
  if (mode == 7) {
    M: for (int i = 0; i < 31; i++) {
#pragma HLS pipeline II=1
      out[i] = in[i] + in[i + 1];
    }
  }
  R: for (int i = 0; i < 32; i++) {
#pragma HLS pipeline II=1
    out[i] += 1;
  }
}
""")
    judged = assert_the_trace_agrees(arraypart.compile_kernel(str(path)), tmp_path,
                                     ports=2)
    said = judged.format().replace(f"{tmp_path}/", "")
    assert ("moded.c:3:8: warning: loop M never ran in the testbench's 3 calls of the "
            "top, so nothing of it is checked") in said
    assert "R (moded.c:8:6): 96 steps, model II 1, traced II 1: agrees" in said  # 3 calls
    assert "addresses compared with the polyhedral model in 1 loop(s)" in said


@needs_gxx
def test_the_trace_names_the_ii_the_emitted_code_reaches(tmp_path):
    """A user's cyclic 8 kept, with lanes stepping by 4: the banking's proof (the
    ideal port model, which the trace checks) gives II 1, the references kept as
    written rotate and compile reports II 3.  The trace said "model II 1 ... agrees"
    alone (probe 26, item 2); it now names the emitted code's II as well."""
    path = tmp_path / "tm.c"
    path.write_text(
        "void tm(const int in[64], int out[64]) {\n  int buf[72];\n"
        "#pragma HLS array_partition variable=buf cyclic factor=8\n"
        "  for (int i = 0; i < 72; i++) buf[i] = i < 64 ? in[i] : 0;\n"
        "  for (int i = 0; i < 64; i += 4) {\n#pragma HLS pipeline II=1\n"
        "    for (int k = 0; k < 4; k++) out[i + k] = buf[i + k] + buf[i + k + 1];\n"
        "  }\n}\n")
    report, result = api.trace_kernel(path)
    (emitted,) = [loop["emitted_ii"] for loop in result.to_json()["loops"]
                  if loop["coord"].endswith(":5:3")]
    assert emitted == 3 == report.loop_achieved_ii(1, "L5", 1)
    assert "reaches II 3 under the scheduling rule" in result.format()
    assert result.disagreements == ()


@needs_gxx
def test_a_store_in_an_included_file_is_no_unwritten_read(tmp_path):
    """The loop that fills ``buf`` includes its store from ``body.inc``, which the
    trace does not record: its reads were then said to read elements nothing wrote
    (probe 26b, item 8)."""
    (tmp_path / "body.inc").write_text("      buf[i * 4 + u] = in[i * 4 + u] * 3;\n")
    path = tmp_path / "inc.cpp"
    path.write_text(
        "void inc(const int in[64], int out[64]) {\n  int buf[64];\n"
        "  for (int i = 0; i < 16; i++) {\n#pragma HLS pipeline II=1\n"
        "    for (int u = 0; u < 4; u++) {\n#include \"body.inc\"\n    }\n  }\n"
        "  for (int i = 0; i < 16; i++) {\n#pragma HLS pipeline II=1\n"
        "    for (int u = 0; u < 4; u++) out[i * 4 + u] = buf[i * 4 + u] + 1;\n  }\n}\n")
    _, traced = api.trace_kernel(str(path))
    assert traced.unwritten == () and traced.disagreements == (), traced.format()
    assert traced.trace.instrumented.included


@needs_gxx
def test_an_argument_a_macro_expands_twice_is_left_out_of_both_sides(tmp_path):
    """``MAX(in[i], in[i + 1])`` expands each argument twice, in the condition and in
    a branch: the trace records one of them at the argument's place, the model both,
    and check --trace called the difference a disagreement (probe 26b, item 7)."""
    path = tmp_path / "mx.cpp"
    path.write_text(
        "#define MAX(p, q) ((p) > (q) ? (p) : (q))\n"
        "void mx(int in[32], int o2[16]) {\n  for (int i = 0; i < 32; i += 2) {\n"
        "#pragma HLS pipeline II=1\n    o2[i / 2] = MAX(in[i], in[i + 1]);\n  }\n}\n")
    _, traced = api.trace_kernel(str(path))
    assert traced.disagreements == (), traced.format()


KEPT_AT_THE_TIME_LIMIT = """
void k(int A[64], int out[32]) {
  int buf[64];
#pragma HLS array_partition variable=buf cyclic factor=2
  for (int i = 0; i < 64; i++) buf[i] = A[i];
  for (int i = 0; i < 32; i++) {
#pragma HLS pipeline II=1
    out[i] = buf[2 * i] + buf[2 * i + 1];
  }
}
"""


def test_a_pragma_kept_at_the_time_limit_is_claimed_at_what_the_code_reaches(tmp_path):
    """At the time limit buf keeps its cyclic 2, proven by counting, which cannot
    tell that ``buf[2 * i]`` and ``buf[2 * i + 1]`` stay on banks 0 and 1: II at most
    2 on ram_1p, while the emitted code reaches II 1.  The replay held the loop to
    the coarse 2, so a run at II 2 would have agreed (probe 30 F4, AFOCL's nonmax at
    33 for II 1); the claim is now the lesser, and the warning says it is a bound."""
    path = tmp_path / "k.c"
    path.write_text(KEPT_AT_THE_TIME_LIMIT)
    compiled = arraypart.compile_kernel(str(path), time_limit=1e-9, ports=1)
    report = compiled.report
    buf = next(a for a in report.solution.arrays if a.array.name == "buf")
    assert max(dict(buf.achieved_ii).values()) == 2 and "II at most" in buf.notes[0]
    assert [c.claimed_ii for c in (api._ideal_claim(report, n, loop)
                                   for n, loop in enumerate(report.model.loops))] == [1, 1]


def test_packed_replay_keys_order_rows_as_the_columns_do():
    """The replay sorts a chunk by (loop, step, array, view, copy, bank) and then by
    (kind, flat), each packed into one key in mixed radix; the order is the eight-column
    lexicographic one, and spans too wide to pack give None (the eight-key sort);
    ``runs`` orders by packed columns, ties in row order, or by lexsort when too wide."""
    from arraypart.check import replay
    from arraypart.check.traced_epochs import packed, runs
    rng = np.random.default_rng(7)
    names = replay.GROUP + ("kind", "flat")
    columns = {k: rng.integers(-3, 4, 500).astype(np.int64) for k in names}
    full = np.lexsort(tuple(columns[k] for k in reversed(names)))
    two = np.lexsort((packed([columns[k] for k in ("kind", "flat")]),
                      packed([columns[k] for k in replay.GROUP])))
    assert (two == full).all()
    assert (runs([columns[k] for k in names])[0] == full).all()
    wide = [np.array([0, 1 << 40, 0]), np.array([0, 1 << 30, 0])]
    assert packed(wide) is None
    order, new = runs(wide)
    assert order.tolist() == [0, 2, 1] and new.tolist() == [True, False, True]


@needs_gxx
def test_a_traced_ii_below_the_models_says_what_the_trace_does_not_see(tmp_path):
    """Eight stream writes a step hold the loop at II 8; the trace records no FIFO
    transfer, so it measured II 1 from no access, and said only "agrees" (probe 33c
    F4).  The line now says why a lower traced II confirms only that the model is not
    optimistic."""
    path = tmp_path / "fifo.cpp"
    path.write_text('#include "hls_stream.h"\n'
                    "void fifo(const int in[16], hls::stream<int> &s) {\n"
                    "  for (int i = 0; i < 16; i++) {\n#pragma HLS pipeline II=1\n"
                    "    for (int k = 0; k < 8; k++) s.write(in[i] + k);\n  }\n}\n")
    text = _judged_text(path, tmp_path)
    assert "model II 8, traced II 1: agrees (below the model's: the trace records no " \
           "FIFO transfer" in text


def _judged_text(path, tmp_path) -> str:
    """The kernel at ``path`` analysed, traced with its banking and judged on two
    ports: the judgement's text."""
    report = api.analyze(path)
    recorded = trace.record(report.kernel, clangtu.Options(), tmp_path,
                            report.solution.emitted_bankings())
    return api.judge_trace(report, recorded, ports=2).format()


@needs_gxx
def test_a_bundle_below_the_models_names_the_accesses_not_traced(tmp_path):
    """Two reads of an m_axi pointer a step, in a function of a header outside the
    kernel's folder (the trace instruments those in it): the model's bundle needs II
    2, the trace records neither read.  The note said only "for accesses this run does
    not all make" (probe 37 F4), though the run makes them."""
    (tmp_path / "pair.h").write_text(
        "static void pair(const int *p, int *q, int i) { q[i] = p[2 * i] + p[2 * i + 1]; }\n")
    (tmp_path / "k").mkdir()
    path = tmp_path / "k" / "hp.cpp"
    path.write_text('#include "../pair.h"\nvoid hp(const int *p, int *q) {\n'
                    "  for (int i = 0; i < 32; i++) {\n#pragma HLS pipeline II=1\n"
                    "    pair(p, q, i);\n  }\n}\n")
    text = _judged_text(path, tmp_path)
    assert ("model II 2, traced II 1: agrees (below the model's: the model counts the "
            "transfers of the loop's m_axi bundle, whose arrays share one read and one "
            "write a cycle, at II 2, for accesses this run does not all make or that are "
            "listed below as not traced)") in text
    assert "pair.h:1:56: access in a function a header defines, not traced" in text


@needs_gxx
def test_writes_to_an_array_of_streams_in_a_template_are_no_memory_accesses(tmp_path):
    """``out[j].write(v)`` on an array of streams that a template takes by reference:
    its subscript's type is dependent, so it was recorded as an access of the stream
    array, every lane at one flat address of its first stream, and FPGA-ANNS'
    broadcast loop was traced at II 32 against the model's II 1 (probe 34).  A stream
    is a FIFO, whose transfers the trace does not record."""
    path = tmp_path / "b.cpp"
    path.write_text('#include "hls_stream.h"\n'
                    "template <int N, int S>\n"
                    "void spread(const float *src, hls::stream<float> (&out)[S]) {\n"
                    "  for (int i = 0; i < N / S; i++) {\n#pragma HLS PIPELINE II=1\n"
                    "    for (int j = 0; j < S; j++)\n#pragma HLS UNROLL\n"
                    "      out[j].write(src[i * S + j] * 2.0f);\n  }\n}\n"
                    "void b(const float src[64], float dst[64]) {\n"
                    "  hls::stream<float> lanes[8];\n"
                    "#pragma HLS array_partition variable=lanes dim=1\n"
                    "  spread<64, 8>(src, lanes);\n"
                    "  for (int i = 0; i < 8; i++)\n    for (int j = 0; j < 8; j++)\n"
                    "      dst[i * 8 + j] = lanes[j].read();\n}\n")
    judged, _ = _agreeing(path, 2)
    assert "128 accesses recorded" in judged.format()  # src and dst: no stream transfer


SHARED_BUNDLE = """\
void shared(const int *x, const int *y, int *z) {
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    z[i] = x[i] + (i % 4 == 0 ? y[i] : 0);
  }
}
"""


@needs_gxx
def test_the_arrays_of_one_bundle_share_its_channels_in_the_replay(recording):
    """x and y are both in gmem0 (the kernel flow's default), whose adapter serves one
    read a cycle for both: the run reads both in every fourth step, so the replay
    needs II 2 there, disagrees with a claim of II 1, names the bundle and lists the
    step's transfers (z's write too); it agrees with the model's claim (II 2: the model counts the arm y is read
    in), and says that the run made fewer transfers than the model counts."""
    path, report, recorded = recording("shared.c", SHARED_BUNDLE)
    groups = [g for a in report.model.arrays for g in a.groups]
    result = trace.check_trace(report.kernel, recorded, {}, _at_targets(report), groups)
    assert [loop.traced_ii for loop in result.replay.loops] == [2]
    (text,) = result.disagreements
    assert "first at step 0 (cycle 0): m_axi bundle gmem0 (m_axi) gets 2 read(s)" in text
    assert [line.split(": ", 1)[1] for line in text.splitlines()[1:]] == [
        "read x[0]", "read y[0]", "write z[0]"]
    modelled = arraypart.api.judge_trace(report, recorded)
    assert modelled.disagreements == () and "traced II 2: agrees" in modelled.format()


@needs_gxx
def test_a_clamped_size_beside_a_by_call_scalar_is_run_inside_its_range(tmp_path):
    """n, clamped by the top, is a size of its own (n@, at most 1 beside s up to 79);
    the testbench passed n = 3, 4, 5, past that range, while the model, replayed at
    each call's s, had n@ = 1: a false disagreement (probe 38b F2).  n, the loop's end,
    is now stepped at most its size's high.  Since the early return guards the loop
    (issue 13), s settles above 15 and below 0 and n@ runs to 64: n is driven 6, 7, 8
    beside s = 16 and -1 (the loop does not run: past the guard on both sides) and 7."""
    path = tmp_path / "t3.cpp"
    path.write_text("void t3(const int in[64], int out[64], int s, int n) {\n"
                    "  int buf[80];\n"
                    "  for (int i = 0; i < 80; i++) buf[i] = in[i % 64];\n"
                    "  if (s < 0 || s > 15) return;\n  if (n > 64) n = 64;\n"
                    "  for (int i = 0; i < n; i++) {\n#pragma HLS pipeline II=1\n"
                    "    out[i] = buf[i] + buf[i + s];\n  }\n}\n")
    text = _judged_text(path, tmp_path)
    assert "t3.cpp:6:3): 8 steps, model II 1, traced II 1: agrees" in text
    assert "disagrees" not in text


def _rewritten(name: str, rewrite: str) -> str:
    """A top that rewrites its by-reference n (``rewrite``) before a loop to n that
    LOOP_TRIPCOUNT bounds at 6."""
    return (f"void {name}(const int a[64], int out[64], int &n) {{\n  {rewrite}\n"
            "  for (int i = 0; i < n; i++) {\n#pragma HLS LOOP_TRIPCOUNT max=6\n"
            "#pragma HLS pipeline II=1\n    out[i] = a[i] + a[i + 1];\n  }\n}\n")


@needs_gxx
def test_a_size_the_top_computes_from_its_arguments_is_driven_inside_its_range(tmp_path):
    """n = n * 2 + 1 reaches the loop's end, a fresh size n@3:23 that LOOP_TRIPCOUNT
    holds in 0..6: the testbench passed n = 6 in every call (13 steps), outside the
    model's domain, and the trace compared no address ("not enumerated", probe M8/F3).
    The straight-line write is now followed: n = 2 (5 steps), the size's value reaches
    the trace, which compares the addresses."""
    path = tmp_path / "twice.cpp"
    path.write_text(_rewritten("twice", "n = n * 2 + 1;"))
    report = api.analyze(path)
    assert trace.size_values(report.kernel) == ({"n@3:23": 5},) * 3
    recorded = trace.record(report.kernel, clangtu.Options(), tmp_path,
                            report.solution.emitted_bankings())
    judged = api.judge_trace(report, recorded, ports=2)
    assert judged.disagreements == () and judged.outside == (), judged.format()
    assert [loop.steps for loop in judged.replay.loops] == [15]
    assert [str(c) for c in judged.addresses.compared] == [f"{path}:3:3"]


def test_a_local_the_top_computes_from_an_argument_is_driven_inside_its_range(tmp_path):
    """int m = n * n; bounds a loop at most 10 times: n = 3, 4, 5 gave m = 9, 16, 25;
    n is now lowered to 3 in every call.  A write in a branch leaves m unknown (the
    testbench keeps its default, the trace its value None)."""
    text = ("void sq(const int a[64], int out[64], int n) {{\n  int m = n * n;\n  {}\n"
            "  for (int i = 0; i < m; i++) {{\n#pragma HLS LOOP_TRIPCOUNT max=10\n"
            "#pragma HLS pipeline II=1\n    out[i] = a[i] + a[i + 1];\n  }}\n}}\n")
    path = write(tmp_path, "sq.c", text.format("n++;"))
    assert trace.size_values(arraypart.analyze(path).kernel) == ({"m@4:23": 9},) * 3
    path = write(tmp_path, "sq.c", text.format("if (a[0] > 0) m = 1;"))
    assert trace.size_values(arraypart.analyze(path).kernel) == ({"m@4:23": None},) * 3


@needs_gxx
def test_a_size_the_testbench_cannot_keep_in_range_is_a_located_warning(tmp_path):
    """n = 20 - n needs n >= 14 for the loop's 6 steps at most; the testbench only
    lowers arguments, so each call runs 14 steps, outside the model's domain: a
    disagreement (the model's domain at n@ = 14 has no step), now a warning at the
    size that names the calls, whose addresses are not compared."""
    path = tmp_path / "less.cpp"
    path.write_text(_rewritten("less", "n = 20 - n;"))
    text = _judged_text(path, tmp_path)
    assert "error" not in text and "42 steps" in text, text
    assert (f"{path}:3:23: warning: the testbench gives 'n' at 3:23 the value 14 in the top's "
            "call 1 of 3, the value 14 in the top's call 2 of 3, the value 14 in the "
            "top's call 3 of 3, outside the range 0..6 the model holds (LOOP_TRIPCOUNT "
            f"max=6 at {path}:4:1)") in text, text
    assert "addresses compared with the polyhedral model in 0 loop(s)" in text


# Two lanes of one pipeline step update one element: lane 1 reads acc[o] after lane 0
# wrote it.
UPDATED_TWICE = """void upd(const int in[32], int out[16]) {
  int acc[16];
#pragma HLS bind_storage variable=acc type=ram_1p
  for (int k = 0; k < 16; k++) acc[k] = 0;
  for (int i = 0; i < 32; i++) {
#pragma HLS pipeline II=1
#pragma HLS unroll factor=2
    acc[i / 2] += in[i];
  }
  for (int k = 0; k < 16; k++) out[k] = acc[k];
}
"""


@needs_gxx
def test_the_lanes_of_an_unroll_factor_run_one_after_another_in_a_step(tmp_path):
    """No store forwarding in a loop with an unroll factor (``poly.forwarding``), so
    lane 1's read of acc[o] after lane 0's write of it is a load of its own (probe 36
    F1's rule): two reads and two writes, II 4 on ram_1p, as the banking proof and the
    trace count.  The checker put the step's lanes side by side in program order (lane
    1's read before lane 0's write), merged the two reads and claimed II 3: report
    and trace disagreed (model II 3, traced II 4; model II 5, traced II 6 with one more
    read of acc)."""
    path = write(tmp_path, "upd.cpp", UPDATED_TWICE)
    report, judged = api.trace_kernel(path, as_written=True)
    assert [loop.achieved_ii for loop in check.check_kernel(
        report.kernel, {}, rule=True).loops] == [1, 4, 1]
    assert judged.disagreements == (), judged.format()
    assert [loop.traced_ii for loop in judged.replay.loops] == [1, 4, 1]


@needs_gxx
def test_a_mod_of_the_loops_iterator_may_alias_in_the_trace_as_in_the_model(tmp_path):
    """Lane 0 writes acc[i % 16], lane 1 then reads acc[(i + 1) % 16]: one apart in
    every step of the run, yet no affine form tells them apart, so they may alias
    (LLVM's BasicAA, the model and the checker alike) and lane 1's read is a load of
    its own beside lane 0's read of that element: four reads and two writes, II 6 on
    ram_1p.  The trace took the run's constant distance and merged them (II 5, below
    the model's: more lenient than the rule)."""
    path = write(tmp_path, "modded.cpp", UPDATED_TWICE.replace("upd", "modded").replace(
        "acc[i / 2] += in[i];", "acc[i % 16] += in[i] + acc[(i + 1) % 16];"))
    report, judged = api.trace_kernel(path, as_written=True)
    assert judged.disagreements == (), judged.format()
    assert [(loop.claim.claimed_ii, loop.traced_ii) for loop in judged.replay.loops] == [
        (1, 1), (6, 6), (1, 1)]


@needs_gxx
def test_a_loop_run_past_every_value_of_its_unknown_size_is_a_located_warning(tmp_path):
    """A callee doubles its len in a branch, so the model's fresh size len@ (at most
    6) has no value the testbench knows, and the trace compared nothing and said
    nothing while n = 3, 4, 5 ran 7, 9 and 11 steps.  The model's domain at len@'s
    largest value holds every smaller one's, so each call past its 6 steps is a
    warning at the loop."""
    path = write(tmp_path, "half.cpp", (
        "static void sub(const int a[64], int out[64], int len) {\n"
        "  if (a[0] > -100) len = len * 2 + 1;\n  for (int i = 0; i < len; i++) {\n"
        "#pragma HLS LOOP_TRIPCOUNT max=6\n#pragma HLS pipeline II=1\n"
        "    out[i] = a[i] + a[i + 1];\n  }\n}\n"
        "void half(const int a[64], int out[64], int n) {\n  sub(a, out, n);\n}\n"))
    text = _judged_text(path, tmp_path)
    assert "error" not in text, text
    assert [line.split(" the run makes ")[1].split(" steps")[0] for line in text.splitlines()
            if line.startswith(f"{path}:3:3: warning: in the top's call")] == [
        "7", "9", "11"], text
    assert ("than the model's domain holds at the largest values of its sizes ('len' at 3:23=6: "
            "6 steps)") in text


# A callee's local array, then another callee's scalar that memcpy writes, likely on the
# stack slot the ended array had (probe 39 M3, from HLSFactory's symbolic kernel).
STACK_REUSE = """#include <string.h>
#include <ap_int.h>
void stage(const float in[16], float out[8]) {
  for (int j = 0; j < 8; j++) {
#pragma HLS pipeline II=1
    float st[2];
#pragma HLS array_partition variable=st complete
    st[0] = in[2 * j];
    st[1] = in[2 * j + 1];
    out[j] = st[0] + st[1];
  }
}
void pack(const float v[8], ap_uint<256> &w) {
  for (int l = 0; l < 1; l++) {
#pragma HLS pipeline II=1
    for (int i = 0; i < 8; i++) {
      ap_uint<32> tmp;
      memcpy(&tmp, &v[i], sizeof(float));
      w.range(32 * i + 31, 32 * i) = tmp;
    }
  }
}
void stackreuse(const float in[16], ap_uint<256> &w) {
  float mid[8];
  stage(in, mid);
  pack(mid, w);
}
"""


@needs_gxx
def test_a_block_s_end_ends_its_arrays_registration(tmp_path):
    """``memcpy(&tmp, ...)`` in pack wrote where stage's ended ``st`` had lain, and the
    trace took it for a write of st[1] the model does not make: a false disagreement.
    A local array's registration now ends with its block."""
    report = api.analyze(write(tmp_path, "stackreuse.cpp", STACK_REUSE))
    recorded = trace.record(report.kernel, clangtu.Options(), tmp_path,
                            report.solution.emitted_bankings())
    text = api.judge_trace(report, recorded, ports=2).format()
    assert "disagrees" not in text and "the program writes st" not in text, text
    assert "pack/L14 (" in text and "3 steps, model II 1, traced II 1: agrees" in text
    assert "Scoped arraypart_scope_" in recorded.instrumented.text


# A pipelined loop in a window of a size (issue 13 point 2): buf[s] under s in 0..15
# puts s's least value at -1, so the usual values -1, 531, 1064 miss 1001..1063.
WINDOWED = """\
void windowed(int s, const int in[16], int out[16]) {
  int buf[16];
  for (int i = 0; i < 16; i++) buf[i] = in[i];
  if (s >= 0 && s <= 15) for (int i = 0; i < 16; i++) {
#pragma HLS pipeline II=1
    out[i] = buf[s] + buf[i];
  }
  if (s > 1000 && s < 1064) for (int i = 0; i < 16; i++) {
#pragma HLS pipeline II=1
    out[i] = buf[(s >> 2) & 15] + buf[i] + buf[15 - i];
  }
}
"""

# Two sizes whose joint window no usual point (each size at its least, middle or
# largest value together) reaches: a in 0..100 and b in -20..20 miss a > 50, b < -3.
TWO_SIZES = """\
#include <assert.h>
void two(int a, int b, const int in[16], int out[16]) {
  assert(a >= 0 && a <= 100);
  assert(b >= -20 && b <= 20);
  int buf[16];
  for (int i = 0; i < 16; i++) buf[i] = in[i];
  if (a > 50 && b < -3) for (int i = 0; i < 16; i++) {
#pragma HLS pipeline II=1
    out[i] = buf[(a + b) & 15] + buf[i];
  }
}
"""

# The brief's kernel: s from 1000 up to 1064, whose middle value runs the loop.
IN_WINDOW = """\
void z(int s, const int in[16], int out[16]) {
  int buf[16];
  for (int i = 0; i < 16; i++) buf[i] = in[i];
  if (s > 1000 && s < 1064) for (int i = 0; i < 16; i++) {
#pragma HLS pipeline II=1
    out[i] = buf[(s >> 2) & 15] + buf[i];
  }
}
"""


@needs_gxx
@pytest.mark.parametrize("name, text, probes, checked", [
    ("windowed.c", WINDOWED, {"s": (7, 1032)},
     ["L3: ok: target II 1, achieved II 1, 16 iterations",
      "L4: ok: target II 1, achieved II 1, 16 iterations",
      "L8: ok: target II 1, achieved II 1, 16 iterations"]),
    ("two.c", TWO_SIZES, {"a": (75,), "b": (-12,)},
     ["L7: ok: target II 1, achieved II 1, 32 iterations"]),  # at 100/-20 and 75/-12
    ("z.c", IN_WINDOW, {"s": ()}, ["L4: ok: target II 1, achieved II 1, 16 iterations"]),
], ids=["one size", "two sizes", "run midway"])
def test_a_pipelined_loop_in_a_window_of_the_sizes_runs_at_a_probe(
        tmp_path, capsys, analyses_shared, name, text, probes, checked):
    """Each pipelined loop whose sizes' window the usual values (least, middle,
    largest) miss gets a probe, a middle point of its domain projected onto the sizes:
    the testbench drives it in one more call and the checker replays it, so both run
    the loop (before, check said it was not run and the trace that it never ran in
    the testbench's 3 calls).  A loop the usual values run adds none."""
    path = write(tmp_path, name, text)
    report = api.analyze(path)
    assert {p.name: p.probes for p in report.kernel.params} == probes
    assert cli.main(["check", str(path)]) == 0
    out = capsys.readouterr().out
    for loop in checked:
        assert loop in out, out
    assert "not run" not in out
    judged = _judged_text(path, tmp_path)
    assert "never ran" not in judged and "disagrees" not in judged, judged
    loops = [line for line in judged.splitlines() if "model II" in line]
    assert loops and all("model II 1, traced II 1: agrees" in line for line in loops)
    calls = 3 + len(next(iter(probes.values())))
    assert len(trace.size_values(report.kernel)) == calls


@needs_gxx
def test_a_size_window_of_the_testbench_is_its_probe_in_its_last_calls(tmp_path):
    """The testbench's calls drive the sizes at their usual values, then at each probe
    (all sizes together): a in 0..100 and b in -20..20 at 100/20, 0/-20, 50/0, then at
    the probe 75/-12 inside a > 50, b < -3."""
    report = api.analyze(write(tmp_path, "two.c", TWO_SIZES))
    assert trace.size_values(report.kernel) == (
        {"a": 100, "b": 20}, {"a": 0, "b": -20}, {"a": 50, "b": 0}, {"a": 75, "b": -12})


def test_a_loop_that_runs_only_outside_the_ranges_found_is_a_located_error(tmp_path):
    """With no assert, a and b were bounded one at a time, the other held at 0, where
    the guard a > 50 && b < -3 never holds: both came out 0..0 and buf (ram_1p, two
    reads a cycle) one memory at II 1, a false claim for a = 60, b = -5.  The loop
    runs at values the sizes' types allow, outside the ranges: a located error at the
    access, naming the nearest such call (poly/cover.py)."""
    path = write(tmp_path, "ab.c", (
        "void ab(int a, int b, const int in[16], int out[16]) {\n  int buf[16];\n"
        "#pragma HLS bind_storage variable=buf type=ram_1p\n"
        "  for (int i = 0; i < 16; i++) buf[i] = in[i];\n"
        "  if (a > 50 && b < -3) for (int i = 0; i < 16; i++) {\n"
        "#pragma HLS pipeline II=1\n    out[i] = buf[(a + b) & 15] + buf[i];\n  }\n}\n"))
    with pytest.raises(KernelError) as caught:
        api.analyze(path)
    assert str(caught.value).startswith(f"{path}:7:14: error: at a = 51, b = -4, a call "
                                        "in which every reference stays inside its "
                                        "array, loop L5 makes this access to buf, which")


def test_a_pipelined_loop_no_size_in_its_range_runs_is_a_dead_code_warning(tmp_path):
    """A loop no value of the sizes in their ranges runs (s > 1000, then s < 900) gets
    no probe, and one located warning says it is dead code there.  No on-chip access
    changes with s (buf[s & 15] is in the dead loop), so s is replayed up to 16 (it
    was 0..0)."""
    path = write(tmp_path, "dead.c", (
        "void dead(int s, const int in[16], int out[16]) {\n  int buf[16];\n"
        "  for (int i = 0; i < 16; i++) buf[i] = in[i];\n"
        "  if (s > 1000) { if (s < 900) for (int i = 0; i < 16; i++) {\n"
        "#pragma HLS pipeline II=1\n    out[i] = buf[s & 15] + buf[i];\n  } }\n}\n"))
    kernel = api.analyze(path).kernel
    assert [p.probes for p in kernel.params] == [()]
    dead = [w for w in kernel.warnings if "dead code" in w]
    assert dead == [f"{path}:4:32: warning: loop L4 runs at no value of the run-time "
                    "sizes in their ranges (s in 0..16): it is dead code there, and "
                    "neither the testbench nor the checker runs it (its II is the isl "
                    "proof's)"]
