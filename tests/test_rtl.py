"""The RTL model of banked memories: Verilog arithmetic, simulation against the scheme on
every suite kernel, yosys counts, and the fitted cost model."""

import functools
import json
import random
import re
import subprocess

import numpy as np
import pytest

from arraypart import cli, expr as E, frontend, poly, rtl
from arraypart.banking import solve
from arraypart.banking.baselines import BASELINES
from arraypart.rtl import closed, cost, sim
from arraypart.rtl.model import stencil_memory
from arraypart.rtl.synth import count_cells
from arraypart.scheme import Banking, DimPartition, flat_scheme, none_scheme, per_dim_scheme

from conftest import ROOT, needs_iverilog, needs_yosys, suite_kernel

RANGES = {"i": (0, 37), "j": (0, 21)}


def _random_expr(rng: random.Random, depth: int = 3) -> E.Expr:
    if depth == 0 or rng.random() < 0.3:
        return E.const(rng.randint(-20, 20)) if rng.random() < 0.3 else E.var(rng.choice("ij"))
    kind = rng.choice(["add", "scale", "floordiv", "mod"])
    inner = _random_expr(rng, depth - 1)
    if kind == "add":
        return E.add(inner, _random_expr(rng, depth - 1))
    if kind == "scale":
        return E.scale(rng.choice([-7, -3, -2, -1, 2, 3, 5, 6, 12, 100]), inner)
    lo, _ = E.bounds(inner, RANGES)
    inner = E.add(inner, E.const(-lo)) if lo < 0 else inner  # floor/mod need >= 0
    divisor = rng.randint(1, 13)
    return E.floordiv(inner, divisor) if kind == "floordiv" else E.mod(inner, divisor)


@needs_iverilog
def test_verilog_rendering_matches_numpy_on_every_input(tmp_path):
    rng = random.Random(5)
    exprs = [_random_expr(rng) for _ in range(40)]
    lines = ["module t;", "reg [5:0] i; reg [4:0] j;"]
    shown = []
    for n, e in enumerate(exprs):
        v = E.to_verilog(e, RANGES, prefix=f"e{n}_")
        lines.extend(v.wires)
        shown.append(f"$signed({{1'b0, {v.result}}})" if v.lo >= 0 else f"$signed({v.result})")
    fmt = " ".join(["%0d"] * len(exprs))
    lines.append("integer a, b; initial begin for (a = 0; a < 38; a = a + 1) "
                 "for (b = 0; b < 22; b = b + 1) begin i = a; j = b; #1 "
                 f'$display("{fmt}", {", ".join(shown)}); end end')
    lines.append("endmodule")
    (tmp_path / "t.v").write_text("\n".join(lines))
    subprocess.run(["iverilog", "-o", str(tmp_path / "t"), str(tmp_path / "t.v")], check=True)
    out = subprocess.run(["vvp", "-n", str(tmp_path / "t")], capture_output=True, text=True,
                         check=True).stdout.split("\n")
    got = np.array([[int(w) for w in line.split()] for line in out if line.strip()])
    grid_i, grid_j = np.meshgrid(np.arange(38), np.arange(22), indexing="ij")
    for n, e in enumerate(exprs):
        want = np.zeros(grid_i.shape, np.int64) + E.evaluate(e, {"i": grid_i, "j": grid_j})
        assert got[:, n].tolist() == want.ravel().tolist(), E.pretty(e)


def test_reciprocal_division_is_exact_up_to_the_bound():
    for d in (3, 5, 6, 7, 11, 13, 100):
        for largest in (10, 255, 1000, 4095):
            shift, m = E._reciprocal(d, largest)
            a = np.arange(largest + 1)
            assert ((a * m) >> shift).tolist() == (a // d).tolist()


@functools.cache
def _kernel_arrays(path) -> tuple:
    """(kernel, array model, banking) of each array of the kernel at ``path`` that has
    accesses, banked for two ports; solved once per path in this module (the suite
    kernels some tests look at again are not solved again)."""
    kernel = frontend.parse_kernel(path)
    model = poly.build_model(kernel, ports=2)
    solution = solve(model)
    return tuple((kernel, model.array(sol.array.name), sol.banking)
                 for sol in solution.arrays if model.array(sol.array.name).groups)


@needs_iverilog
def test_simulation_catches_a_wrong_offset(tmp_path, monkeypatch):
    kernel, array_model, banking = next(
        t for t in _kernel_arrays(ROOT / "kernels" / "denoise.c") if t[1].array.name == "buf")
    mem = rtl.memory(array_model, banking)
    render = sim.render

    def broken(*args, **kwargs):
        return re.sub(r"(wire \[\d+:0\] l1_off = )", r"\g<1>1 + ", render(*args, **kwargs))
    monkeypatch.setattr(sim, "render", broken)
    result = sim.simulate(kernel, array_model, mem, steps=8, workdir=tmp_path)
    assert not result.ok
    assert "lane 1" in result.mismatches[0]


def test_static_lanes_reach_one_bank_and_dynamic_ones_their_interval():
    shape = (16, 16)
    cyclic_cols = per_dim_scheme(shape, (DimPartition("none", 1), DimPartition("cyclic", 2)))
    strided = stencil_memory("a", shape, Banking("a", cyclic_cols), "ram_1p", 8,
                             ((0, 0), (0, 1)), steps=(1, 2))
    assert [(lane.static, lane.reach) for lane in strided.lanes] == [(True, (0,)),
                                                                     (True, (1,))]
    blocks = per_dim_scheme(shape, (DimPartition("block", 4), DimPartition("none", 1)))
    window = stencil_memory("a", shape, Banking("a", blocks), "ram_1p", 8, ((0, 0), (3, 0)))
    assert [lane.static for lane in window.lanes] == [False, False]
    assert window.lanes[0].reach == (0, 1, 2, 3)
    assert "l0_bank == " in rtl.render(window) and "l0_bank == " not in rtl.render(strided)


def test_a_complete_partition_read_at_a_stride_reaches_every_stride_th_register():
    """Probe 41 F10: lanes ``8n + u`` of a 64-word array partitioned completely reach
    the eight registers of their residue, not the 57 of their interval (synthesis folds
    the others' bank comparisons to constants); the two ports of a one-word register
    bank read the same flip-flops, so each register is one source of the read select.
    The closed form agrees."""
    complete = per_dim_scheme((64,), (DimPartition("complete", 64),))
    mem = stencil_memory("a", (64,), Banking("a", complete), "ram_t2p", 32,
                         tuple((u,) for u in range(8)), steps=(8,), fill=True)
    reads = [lane for lane in mem.lanes if lane.kind == "read"]
    assert [lane.reach for lane in reads] == [tuple(range(u, 64, 8)) for u in range(8)]
    assert mem.ram_style == "registers" and mem.depth == 1
    found = cost.features(mem)
    assert found["rb_mux"] == 8 * 32 * (8 - 1) and found["regfile"] == 0
    strided = per_dim_scheme((64,), (DimPartition("block", 8),))
    blocks = stencil_memory("a", (64,), Banking("a", strided), "ram_1p", 32, ((0,),),
                            steps=(16,))
    assert blocks.lanes[0].reach == (0, 2, 4, 6)


STAT = """
=== ap_mem_a ===
   Number of cells:                 12
     CARRY4                          1
     FDRE                            5
     FDSE                            1
     LUT2                            2
     LUT6                            3
     RAM64M8                         1
     RAMB18E2                        1
     RAMB36E2                        2
     DSP48E2                         1
"""


def test_cells_are_counted_like_vivados_utilization():
    assert count_cells(STAT) == rtl.Resources(lut=13, ff=6, bram18k=5, dsp=1, source="yosys")


def _stencil_memory():
    shape = (64, 64)
    scheme = flat_scheme(shape, (1, 3), 4, 2)
    return stencil_memory("s", shape, Banking("s", scheme), "ram_1p", 32,
                          ((1, 1), (0, 1), (1, 0), (1, 2), (2, 1)), writes=1)


def _wnr_memory():
    """Three readers and a writer of one 1024-word bank."""
    shape = (1024,)
    return stencil_memory("s", shape, Banking("s", flat_scheme(shape, (1,), 1)), "ram_1wnr",
                          32, ((0,), (1,), (2,), (3,)), writes=1)


TWO_LOOPS_OF_READERS = """
void readers(const int in[1024], int out[512]) {
    int buf[1024];
#pragma HLS bind_storage variable=buf type=ram_1wnr
    for (int i = 0; i < 1024; i++) buf[i] = in[i];
    for (int i = 0; i < 256; i++) {
#pragma HLS pipeline II=1
        out[i] = buf[i] + buf[1023 - i];
    }
    for (int i = 0; i < 256; i++) {
#pragma HLS pipeline II=1
        out[i + 256] = buf[2 * i] - buf[2 * i + 512];
    }
}
"""


def _readers(folder):
    """``buf`` of TWO_LOOPS_OF_READERS, one memory: (array model, banking, memory)."""
    path = folder / "readers.c"
    path.write_text(TWO_LOOPS_OF_READERS)
    [(_, am, _)] = [t for t in _kernel_arrays(path) if t[1].array.name == "buf"]
    banking = Banking("buf", none_scheme((1024,)))
    return am, banking, rtl.memory(am, banking)


RUN_TIME_TRIPS = """
void fresh(int A[64], int out[64], int len[1]) {
  int n = len[0];
  for (int i = 0; i < n; i++) {
#pragma HLS pipeline II=1
#pragma HLS loop_tripcount max=32
    out[i] = A[2 * i] + A[2 * i + 1];
  }
}
"""


def _fresh(folder):
    """``A`` of RUN_TIME_TRIPS in two banks: (array model, memory)."""
    path = folder / "fresh.c"
    path.write_text(RUN_TIME_TRIPS)
    [(_, am, _)] = [t for t in _kernel_arrays(path) if t[1].array.name == "A"]
    return am, rtl.memory(am, Banking("A", flat_scheme((64,), (1,), 2)))


@pytest.fixture(scope="module")
def synthesized(tmp_path_factory):
    """The yosys counts of this file's memories, from one yosys run (its start, which
    reads the cell library, costs seconds), and the cache folder they went to."""
    folder = tmp_path_factory.mktemp("synth")
    mems = {"stencil": _stencil_memory(), "wnr": _wnr_memory(),
            "readers": _readers(folder)[2], "fresh": _fresh(folder)[1]}
    counts = rtl.synthesize_many(list(mems.values()), cache=folder)
    return dict(zip(mems, counts)), folder


@needs_yosys
def test_synthesis_counts_and_caches(synthesized):
    counts, cache = synthesized
    first = counts["stencil"]
    assert first.source == "yosys" and first.lut > 0 and first.dsp == 0
    assert first.bram18k == cost.bram18k(_stencil_memory()) == 8
    entries = list((cache / "synth").glob("*.json"))
    assert len(entries) == len(counts)
    assert rtl.synthesize(_stencil_memory(), cache=cache) == first
    assert first.to_json() in [json.loads(e.read_text())["resources"] for e in entries]


def test_the_shipped_cost_model_meets_its_error_target():
    """Held out: a quarter of the synthetic sweep and of the suite's kernels
    (``bench/suite_synth.py fit``)."""
    fit = cost.model_fit()
    assert fit["points"]["suite"]["heldout"] >= 10 and fit["points"]["sweep"]["heldout"] >= 10
    for name in ("lut", "ff"):
        assert fit[name]["heldout"]["median_rel_error"] < 0.15
        assert fit[name]["suite_heldout"]["median_rel_error"] < 0.15


def test_estimate_grows_with_the_crossbar():
    shape = (64, 64)
    scheme = per_dim_scheme(shape, (DimPartition("cyclic", 3), DimPartition("cyclic", 3)))
    window = tuple((a, b) for a in range(3) for b in range(3))
    small = stencil_memory("e", shape, Banking("e", scheme), "ram_1p", 32, window[:3])
    large = stencil_memory("e", shape, Banking("e", scheme), "ram_1p", 32, window)
    a, b = cost.estimate_memory(small), cost.estimate_memory(large)
    assert a.source == b.source == "model"
    assert 0 < a.lut < b.lut and a.bram18k == b.bram18k
    narrow = stencil_memory("e", shape, Banking("e", scheme), "ram_1p", 8, window)
    assert cost.estimate_memory(narrow).lut < b.lut


def test_report_json_resources_come_from_the_model(capsys):
    assert cli.main(["analyze", str(ROOT / "kernels" / "transpose.c"), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    for array in report["arrays"]:
        res = array["resources"]
        assert set(res) == {"lut", "ff", "bram18k", "dsp", "source"}
        assert res["source"] == "model" and res["lut"] >= 0


@needs_yosys
def test_compile_synth_writes_yosys_counts(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("ARRAYPART_CACHE", str(tmp_path / "cache"))
    out, kernel = tmp_path / "out", tmp_path / "pairs.c"
    kernel.write_text("void pairs(const int in[32], int out[16]) {\n  int buf[32];\n"
                      "  for (int i = 0; i < 32; i++) buf[i] = in[i];\n"
                      "  for (int i = 0; i < 16; i++) {\n#pragma HLS pipeline II=1\n"
                      "    out[i] = buf[2 * i] + buf[2 * i + 1];\n  }\n}\n")
    code = cli.main(["compile", str(kernel), "-o", str(out), "--synth"])
    capsys.readouterr()
    assert code == 0
    report = json.loads((out / "report.json").read_text())
    for array in report["arrays"]:
        assert array["resources"]["source"] == "yosys"
    buf = next(a for a in report["arrays"] if a["name"] == "buf")
    assert buf["resources"]["lut"] > 0
    assert list((tmp_path / "cache" / "synth").glob("*.json"))


DIFFERENTIAL_KERNELS = ["denoise", "doitgen", "heat_3d", "tri_matvec"]


@pytest.mark.parametrize("name", DIFFERENTIAL_KERNELS)
def test_closed_form_features_equal_the_rtl_models(name):
    """The search's estimate (:mod:`arraypart.rtl.closed`, no RTL model built) gives
    the features and BRAM18K of the RTL model itself, for arraypart's banking and
    every baseline's, one and two ports."""
    for ports in (1, 2):
        report = suite_kernel(name, ports=ports).report
        for sol in report.solution.arrays:
            am = report.model.array(sol.array.name)
            if not am.groups:
                continue
            for banking in [sol.banking] + [method(am) for method in BASELINES.values()]:
                mem = rtl.memory(am, banking)
                table = closed.lane_table(am, banking.copies, banking.read_copy)
                assert closed.features(banking, table) == pytest.approx(cost.features(mem))
                assert closed.bram18k(banking, table) == cost.bram18k(mem)
                assert rtl.estimate(banking, am) == cost.estimate_memory(mem)


def test_flat_candidates_priced_together_equal_one_at_a_time():
    """:func:`closed.flat_features` over many alphas = :func:`closed.features` of each
    (without the arithmetic, which the batch leaves to the exact estimate)."""
    rng = random.Random(14)
    report = suite_kernel("heat_3d", ports=2).report
    am = report.model.array("a_buf")
    table = closed.lane_table(am, 1, ())
    for banks, block in ((3, 1), (4, 2), (5, 1), (8, 4)):
        alphas = [a for a in (tuple(rng.randrange(banks * block) for _ in range(3))
                              for _ in range(20)) if any(a)]
        schemes = [flat_scheme(am.array.shape, a, banks, block) for a in alphas]
        f, bram = closed.flat_features(table, np.array(alphas), banks, block,
                                       np.array([s.bank_depth for s in schemes]))
        for row, b, scheme in zip(f, bram, schemes):
            banking = Banking("a_buf", scheme)
            one = closed.features(banking, table)
            one["arith"] = one["divider"] = 0.0
            assert dict(zip(closed.FEATURES, row)) == pytest.approx(one)
            assert b == closed.bram18k(banking, table)


def test_interval_counts_and_sums_equal_the_dense_tables():
    """The difference-array counts of :func:`closed._batch_features` against the dense
    (candidates x lanes x copies x banks) table they replace, on random intervals and
    steps (every step-th bank from ``first``; ``first > last`` reaches no bank)."""
    rng = np.random.default_rng(1)
    for _ in range(200):
        m, k, c, banks = (int(x) for x in rng.integers(1, [5, 9, 4, 12]))
        first, last = rng.integers(0, banks, (m, k)), rng.integers(0, banks, (m, k))
        step = rng.integers(1, 5, (m, k))
        in_copy, static = rng.random((k, c)) < 0.6, rng.random((m, k)) < 0.4
        per_bank = rng.integers(0, 3, (m, c, banks))
        b = np.arange(banks)
        hits = ((b >= first[:, :, None]) & (b <= last[:, :, None])
                & ((b - first[:, :, None]) % step[:, :, None] == 0))
        reached = in_copy[None, :, :, None] & hits[:, :, None, :]
        weight = in_copy[None] & ~static[:, :, None]
        assert (closed._interval_counts(first, last, weight, banks, step)
                == (reached & ~static[:, :, None, None]).sum(1)).all()
        assert (closed._interval_sums(first, last, in_copy, per_bank, step)
                == np.einsum("mkcb,mcb->mk", reached, per_bank)).all()


def test_lanes_of_a_loop_unrolled_by_the_cyclic_factor_reach_one_bank_each():
    """bicg's column loop is unrolled by 6 and s_buf is cyclic 6: j steps by 6, so lane
    u's bank (j + u) mod 6 is u in every cycle, as HLS sees it after unrolling; the
    iteration counter is the input (j = 6n) and the sweep's step model applies."""
    kernel, array_model, banking = next(
        t for t in _kernel_arrays(ROOT / "kernels" / "bicg.c") if t[1].array.name == "s_buf")
    assert banking.scheme.dims == (DimPartition("cyclic", 6),)
    mem = rtl.memory(array_model, banking)
    unrolled = [lane for lane in mem.lanes if mem.groups[lane.group].lattice[-1] == (6, 0)]
    assert len(unrolled) == 12
    assert sorted((lane.kind, lane.reach) for lane in unrolled) == sorted(
        (kind, (u,)) for kind in ("read", "write") for u in range(6))
    assert mem.groups[unrolled[0].group].values({"i": 3, "j": 18}) == {"g1_i": 3, "g1_j": 3}


# ---------------------------------------------------------------- ram_1wnr

# Three reads and a write of buf per cycle in L6, two writes in L11: ram_1wnr serves
# any reads and one write per bank and cycle, so cyclic 2 (for L11's writes) is enough.
ONE_WRITE_N_READS = """
void wnr(const int in[64], int out[64]) {
    int buf[64];
#pragma HLS bind_storage variable=buf type=ram_1wnr
    for (int i = 0; i < 64; i++) buf[i] = in[i];
    for (int i = 0; i < 32; i++) {
#pragma HLS pipeline II=1
        out[i] = buf[i] + buf[i + 32] + buf[63 - i];
        buf[i + 32] = out[i];
    }
    for (int i = 0; i < 32; i += 2) {
#pragma HLS pipeline II=1
        buf[i] = in[i];
        buf[i + 1] = in[i + 1];
    }
    for (int i = 0; i < 64; i++) out[i] += buf[i];
}
"""


def _wnr_arrays(tmp_path):
    path = tmp_path / "wnr.c"
    path.write_text(ONE_WRITE_N_READS)
    return [t for t in _kernel_arrays(path) if t[1].array.name == "buf"]


@needs_iverilog
def test_a_ram_1wnr_memory_simulates_like_the_scheme(tmp_path):
    [(kernel, array_model, banking)] = _wnr_arrays(tmp_path)
    assert array_model.ports.name == "ram_1wnr" and banking.scheme.banks == 2
    mem = rtl.memory(array_model, banking)
    # a read port per reading lane of the loop with the most (as for rom_np): L6's
    # three; the last loop's read shares the first of them (loops never overlap)
    assert {mem.roles(0, b) for b in range(2)} == {("w", "r", "r", "r")}
    assert all(len(mem.port_lanes(0, b)[1]) == 2 for b in range(2))
    result = sim.simulate(kernel, array_model, mem, steps=12, workdir=tmp_path)
    assert result.ok and result.checked > 0, result.mismatches


def test_closed_form_features_equal_the_rtl_models_on_ram_1wnr(tmp_path):
    [(_, am, banking)] = _wnr_arrays(tmp_path)
    for candidate in [banking] + [method(am) for method in BASELINES.values()]:
        mem = rtl.memory(am, candidate)
        table = closed.lane_table(am, candidate.copies, candidate.read_copy)
        assert closed.features(candidate, table) == pytest.approx(cost.features(mem))
        assert closed.bram18k(candidate, table) == cost.bram18k(mem)


@needs_yosys
def test_ram_1wnr_keeps_a_block_ram_per_read_port(synthesized):
    """Three readers and a writer of one 1024-word bank: three simple dual-port copies
    of two BRAM18K each, as yosys maps the memory's three read ports."""
    mem = _wnr_memory()
    assert mem.roles(0, 0) == ("w", "r", "r", "r")
    assert cost.bram18k(mem) == synthesized[0]["wnr"].bram18k == 6


@needs_yosys
def test_ram_1wnr_loops_share_their_read_ports(tmp_path, synthesized):
    """Two loops with two readers each: two read ports, not four (the loops never
    run in one cycle), so two simple dual-port copies of two BRAM18K each, as yosys
    maps them; the closed form, which the solver ranks by, agrees."""
    am, banking, mem = _readers(tmp_path)
    assert mem.roles(0, 0) == ("w", "r", "r")
    table = closed.lane_table(am, banking.copies, banking.read_copy)
    assert closed.bram18k(banking, table) == cost.bram18k(mem) == 4
    assert synthesized[0]["readers"].bram18k == 4


@needs_yosys
def test_a_run_time_trip_count_is_a_verilog_port(tmp_path, synthesized):
    """A loop bound read from memory is a fresh size named ``n@...``; its name went
    into the RTL model's port list as written, so yosys rejected the Verilog and
    ``compile --synth`` exited 2 at line 0 (probe 30b F5).  Ports are escaped."""
    am, _ = _fresh(tmp_path)
    assert any("@" in v for g in am.groups for v in g.time_vars)
    assert synthesized[0]["fresh"].source == "yosys"
