"""The search's shape: families in cost-floor order, floors that are true lower bounds,
the device budget, and the kernel families of ``bench/scaling.py`` at the lower bound.

Wall-clock figures are not asserted here (``bench/scaling.py`` prints them); these
tests pin what the search finds, and that the emitted schemes are proved and replayed.
"""

from __future__ import annotations

import importlib.util
import itertools
import json
import math
import random
from pathlib import Path

import numpy as np
import pytest

import arraypart
from arraypart import api, banking, check, codegen, frontend, poly, rtl
from arraypart.banking.baselines import vitis_manual
from arraypart.banking.solution import solved_model
from arraypart.banking.device import DEFAULT_SEARCH_BANKS, bram_budget, part_bram18k
from arraypart.banking import feasible, precheck, sampling
from arraypart.banking.groups import analyze_group
from arraypart.banking.precheck import INFEASIBLE_II
from arraypart.banking.proof import prove_group
from arraypart.banking.space import (FLAT_BLOCKS, cost_of, crossbar_lanes, flat_floor,
                                     per_dim_partitions, static_alpha_exists)
from arraypart.errors import Coord
from arraypart.ir import PORT_MODELS, PartitionPragma
from arraypart.report import Report
from arraypart.scheme import Banking, DimPartition, flat_scheme, per_dim_scheme

from conftest import CHAINED_LANES, ROOT, suite_kernel, write
from test_banking import STENCILS, solve_one, stencil_model

spec = importlib.util.spec_from_file_location("scaling", ROOT / "bench" / "scaling.py")
scaling = importlib.util.module_from_spec(spec)
spec.loader.exec_module(scaling)


def bank_family(compiled_once, family, size, **options):
    name, text = scaling.FAMILIES[family][0](size)
    report = compiled_once(f"{family}{size}.c", text, **options).report
    return report, next(a for a in report.solution.arrays if a.array.name == name)


@pytest.mark.parametrize("family,size,bound", [
    ("window", 3, 9), ("window", 5, 25), ("window", 9, 81), ("window", 11, 121),
    ("matmul", 4, 16), ("matmul", 8, 64), ("matmul", 16, 256), ("weight4d", 2, 36),
    ("ndlanes", 3, 8), ("ndlanes", 4, 16), ("lanes", 65, 33), ("lanes", 128, 64),
    ("lanes", 129, 65)])
def test_scaling_families_reach_the_lower_bound(compiled_once, family, size, bound):
    report, a = bank_family(compiled_once, family, size)
    assert a.lower_bound == bound
    assert a.conflict_free and a.banking.scheme.banks * a.banking.copies == bound
    replay = check.check_kernel(report.kernel, report.solution.bankings(), ports=2)
    assert all(loop.achieved_ii == loop.target_ii for loop in replay.loops)


def test_explicit_max_banks_still_caps_the_search(compiled_once):
    # the answer, not the speed, is under test (a loaded machine must not time out)
    _, a = bank_family(compiled_once, "window", 9, max_banks=64, time_limit=600)
    assert not a.conflict_free and a.banking.scheme.banks <= 64
    assert max(ii for _, ii in a.achieved_ii) == 2


def test_read_copies_in_block_ram_give_way_to_banks_that_need_none(tmp_path):
    """Four reads a cycle in four separate eighths of buf, through masks: four copies
    (4 BRAM18K, each holds all 64 words) reach the lower bound, but block 8 serves the
    same reads from eight banks of eight words, in LUT RAM.  BRAM18K rank first, and
    the refinement used to stop at the copies' four physical banks."""
    path = tmp_path / "masks.c"
    path.write_text("""
        void masks(const int in[64], int out[64]) {
            int buf[64];
        #pragma HLS bind_storage variable=buf type=ram_1p
            for (int i = 0; i < 64; i++) buf[i] = in[i];
            for (int a = 0; a < 64; a++) {
        #pragma HLS pipeline II=1
                out[a] = buf[(a >> 3) & 7] + buf[(a & 7) + 8] + buf[16 + 2 * (a & 1)]
                         + buf[a % 8 + 24];
            }
        }""")
    report = arraypart.analyze(path, ports=2)
    buf = next(a for a in report.solution.arrays if a.array.name == "buf")
    assert buf.conflict_free and buf.banking.copies == 1 and buf.bram18k == 0
    assert buf.banking.scheme.to_report()["dims"][0]["type"] == "block"


def test_a_small_device_caps_copies_and_banks():
    assert part_bram18k("xcu250-figd2104-2L-e") == 5376
    assert part_bram18k("XC7Z020-clg400-1") == 280
    assert part_bram18k("xcu50-fsvh2104-2-e") == 2688
    assert part_bram18k("xcunknown") is None and bram_budget("xcunknown") == DEFAULT_SEARCH_BANKS
    assert bram_budget(None) == part_bram18k(codegen.DEFAULT_PART) == 5376


def test_per_dim_partitions_are_the_factorizations_of_the_bank_count():
    parts = per_dim_partitions((64, 64), frozenset({0, 1}), 6)
    assert {tuple(p.factor for p in dims) for dims in parts} == {(1, 6), (2, 3), (3, 2),
                                                                  (6, 1)}
    assert all(len(dims) == 2 for dims in parts)
    assert per_dim_partitions((4,), frozenset({0}), 8) == ()
    assert [p.type for p in per_dim_partitions((4,), frozenset({0}), 4)[0]] == ["complete"]


def test_static_alpha_exists_follows_the_smith_form():
    assert not static_alpha_exists(((1, 0), (0, 1)), 9)     # window: no static alpha
    assert static_alpha_exists(((4, 0), (0, 4)), 16)        # 4x4 tile stepping by 4
    assert not static_alpha_exists(((4, 0), (0, 4)), 9)     # ... but not mod 9
    assert not static_alpha_exists(((1, 1),), 5)            # one dimension, two times
    assert static_alpha_exists(((1,), (1,)), 5)             # alpha = (1, 4)
    assert static_alpha_exists(((2,), (2,)), 7)             # rank 1 < 2 rows


def brute_static(matrix, modulus):
    return any(any(alpha) and all(sum(a * row[t] for a, row in zip(alpha, matrix)) % modulus
                                  == 0 for t in range(len(matrix[0])))
               for alpha in itertools.product(range(modulus), repeat=len(matrix)))


def test_static_alpha_exists_matches_brute_force():
    rng = random.Random(14)
    for _ in range(200):
        rows, cols, modulus = rng.randint(1, 3), rng.randint(1, 3), rng.randint(2, 9)
        matrix = tuple(tuple(rng.randint(-4, 4) for _ in range(cols)) for _ in range(rows))
        assert static_alpha_exists(matrix, modulus) == brute_static(matrix, modulus), matrix


@pytest.mark.parametrize("offsets", [STENCILS["DENOISE"][0], STENCILS["SOBEL"][0],
                                     STENCILS["BICUBIC"][0]])
def test_flat_floor_is_below_every_flat_candidate(offsets):
    am = stencil_model(offsets, size=30)
    shapes = [analyze_group(g, 2) for g in am.groups]
    for banks, block in itertools.product((3, 4, 9), (1, 2)):
        floor = flat_floor(am, frozenset({0, 1}), banks, 1, block, shapes)
        for alpha in itertools.product(range(banks * block), repeat=2):
            if any(alpha):
                banking = Banking("A", flat_scheme(am.array.shape, alpha, banks, block))
                assert not cost_of(banking, am, shapes) < floor, (alpha, banks)


def test_per_dim_at_the_bound_is_accepted_before_any_flat_candidate():
    _, sol = solve_one(stencil_model(STENCILS["SOBEL"][0]))
    assert sol.banking.scheme.kind == "per_dim" and sol.banking.scheme.banks == 9
    # per_dim partitions only (with and without read copies): fewer candidates than
    # the 81 alphas of one flat family of N = 9
    assert int(sol.proof.split()[0]) < 81


def test_flat_is_still_searched_when_per_dim_misses_the_bound():
    _, sol = solve_one(stencil_model(STENCILS["DENOISE"][0]))
    assert sol.banking.scheme.kind == "flat" and sol.banking.scheme.banks == 4


def test_wasteful_user_partition_is_reported_with_the_cheaper_banking():
    pragma = PartitionPragma("complete", 0, 0, Coord("k.c", 2, 9))
    am = stencil_model(STENCILS["MOTION_LV"][0], size=16, partitions=(pragma,))
    _, sol = solve_one(am)
    assert sol.conflict_free and sol.banking.scheme.banks == 256
    assert len(sol.notes) == 1 and sol.notes[0].startswith("k.c:2:9: warning:")
    # six read copies reach the bound with 6 BRAM18K; eight banks need none
    assert "use 256 banks" in sol.notes[0]
    assert ("cyclic 8 x none: bank = x0 mod 8, offset = 16*floor(x0/8) + x1, with 8 banks "
            "(lower bound 6), costs 0 BRAM18K") in sol.notes[0]
    assert "--replace-partitions" in sol.notes[0]
    # both costs, from the fitted model: the user's registers against arraypart's banking
    kept = rtl.estimate(sol.banking, am)
    assert f"cost {kept.bram18k} BRAM18K and {kept.lut} LUTs" in sol.notes[0]


def test_strided_tile_lanes_need_no_crossbar(compiled_once):
    report, a = bank_family(compiled_once, "matmul", 4)
    model = report.model.array("c")
    shapes = [analyze_group(g, 2) for g in model.groups]
    tile = next(s for s in shapes if len(s.lanes) > 1)
    assert tile.strides[:2] == (4, 4)
    assert crossbar_lanes(a.banking.scheme, [tile]) == 0


def test_cli_part_sets_the_budget_of_analyze(tmp_path, capsys):
    from arraypart import cli
    path = tmp_path / "window9.c"
    path.write_text(scaling.window(9)[1])
    assert cli.main(["analyze", str(path), "--part", "xc7z020-clg400-1", "--json"]) == 0
    buf = next(a for a in json.loads(capsys.readouterr().out)["arrays"] if a["name"] == "buf")
    assert buf["banks"] == 81 and buf["conflict_free"] and buf["bram18k"] <= 280
    assert cli.main(["analyze", str(path), "--max-banks", "64"]) == 1


def test_scaling_script_prints_time_against_size(capsys):
    assert scaling.main(["--family", "ndlanes", "--size", "3", "--runs", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:5] == ["family", "size", "seconds", "bound", "banks"]
    assert lines[1].split()[:2] == ["ndlanes", "3"] and lines[1].split()[3:5] == ["8", "8"]


def test_banks_pay_off_when_they_save_bram18k():
    """doitgen's c4_buf (32 reads per cycle, dual-port): 16 banks of 64 words are true
    dual-port block RAM (32 BRAM18K); 32 banks of 32 words on a port model LUT RAM
    builds (ram_2p or ram_1p, not the default ram_t2p) are LUT RAM (none), which the
    ranking prefers, as the per-dim Vitis-style baseline has it."""
    report = suite_kernel("doitgen").report
    sol = next(a for a in report.solution.arrays if a.array.name == "c4_buf")
    default = report.model.array("c4_buf")
    am = solved_model(default, sol)
    assert sol.ports.name in ("ram_1p", "ram_2p") and default.ports.name == "ram_t2p"
    assert sol.lower_bound == 16 and sol.banking.scheme.banks == 32 and sol.conflict_free
    assert sol.bram18k == rtl.estimate(sol.banking, am).bram18k == 0
    sixteen = Banking("c4_buf", flat_scheme(am.array.shape, (1, 0), 16))
    assert rtl.estimate(sixteen, default).bram18k == 32
    assert sol.bram18k <= rtl.estimate(vitis_manual(default), default).bram18k


IMPL_BRAM = """void k(const int in[128], int out[8]) {
  int buf[128];
#pragma HLS bind_storage variable=buf type=ram_2p impl=bram
  for (int i = 0; i < 128; i++) {
#pragma HLS PIPELINE II=1
    buf[i] = in[i];
  }
  for (int i = 0; i < 8; i++) {
#pragma HLS PIPELINE II=1
    int s = 0;
    for (int u = 0; u < 16; u++) s += buf[16 * i + u];
    out[i] = s;
  }
}
"""


@pytest.mark.parametrize("pragma", ["bind_storage variable=buf type=ram_2p impl=bram",
                                    "resource variable=buf core=RAM_2P_BRAM"])
def test_a_users_impl_bram_is_costed_as_block_ram(tmp_path, compiled_once, pragma):
    """With impl=bram (kept in the emitted kernel) every bank is a block RAM however
    small: 16 banks of 8 words were priced as LUT RAM and reported as 0 BRAM18K (probe
    34 F9); priced as block RAM, cyclic 8 (ram_2p: two reads per bank) meets II 1
    with half the banks, and the report counts its block RAMs."""
    path = tmp_path / "k.cpp"
    path.write_text(IMPL_BRAM.replace("bind_storage variable=buf type=ram_2p impl=bram", pragma))
    report = arraypart.analyze(path)
    sol = next(a for a in report.solution.arrays if a.array.name == "buf")
    assert sol.banking.scheme.banks == 8 and sol.conflict_free
    assert sol.bram18k == rtl.estimate(sol.banking, report.model.array("buf")).bram18k > 0
    entry = next(a for a in report.to_json()["arrays"] if a["name"] == "buf")
    assert entry["bram18k"] == entry["resources"]["bram18k"] == sol.bram18k
    plain = compiled_once("k.cpp", IMPL_BRAM.replace(" impl=bram", ""))  # both pragmas'
    default = next(a for a in plain.report.solution.arrays if a.array.name == "buf")
    assert default.bram18k == 0  # no impl: small banks are LUT RAM, as before


def test_a_bank_per_lane_is_tried_where_it_costs_fewer_luts():
    """atax's x_buf: 5 reads per cycle (j unrolled by 5, dual-port), bound 3 banks.
    Cyclic 3 rotates each lane over the banks (a select per lane); cyclic 5, the
    lanes' bounding box, keeps each on one bank.  Both are registers (no BRAM18K), so
    the LUTs decide, and the bounding box's tier is searched although it saves none."""
    report = suite_kernel("atax").report
    sol = next(a for a in report.solution.arrays if a.array.name == "x_buf")
    am = solved_model(report.model.array("x_buf"), sol)  # LUT RAM: ram_2p or ram_1p
    assert sol.lower_bound == 3 and sol.banking.scheme.banks == 5 and sol.conflict_free
    cyclic3 = rtl.estimate(Banking("x_buf", per_dim_scheme(am.array.shape,
                                                            (DimPartition("cyclic", 3),))), am)
    ours = rtl.estimate(sol.banking, am)
    assert ours.bram18k == cyclic3.bram18k == 0 and ours.lut < cyclic3.lut


def test_lanes_the_emission_keeps_direct_stay_on_one_bank():
    """tri_matvec's loop is pipelined and unrolled by 5 over a triangular domain, so
    its references stay as written: a bank that rotates would be a port of every bank
    under the scheduling rule.  The ranking counts those lanes first, so the emitted
    code reaches II 1 (cyclic 5 keeps each lane on one bank)."""
    report = suite_kernel("tri_matvec").report
    l_buf = next(a for a in report.solution.arrays if a.array.name == "l_buf")
    assert l_buf.banking.scheme.banks == 5
    assert all(loop.achieved_ii == loop.target_ii for loop in report.scheduled.loops)


@pytest.mark.parametrize("ports", [1, 2])
def test_floored_lanes_that_keep_their_bank_are_not_rotating(tmp_path, ports):
    """``out[i / 2]`` with ``i += 2`` unrolled by 3 on an interface array: the lanes
    ``floor((i + 2u) / 2)`` move by 3 per step, so cyclic 3 gives each a constant
    bank.  Counted as rotating (the group is not uniform), two ports did worse than
    one: cyclic 3 was never searched past the bound of 2 banks and one memory was
    kept at II 2 (the long fuzz of test_random_kernels)."""
    path = tmp_path / "halves.c"
    path.write_text(
        "void halves(int in[34], int out[17]) {\n"
        "  for (int i = 0; i < 34; i += 2) {\n"
        "#pragma HLS pipeline II=1\n"
        "#pragma HLS unroll factor=3\n"
        "    out[i / 2] = in[i];\n"
        "  }\n"
        "}\n")
    report = arraypart.analyze(path, ports=ports)
    out = next(a for a in report.solution.arrays if a.array.name == "out")
    assert out.banking.scheme.describe().startswith("per_dim cyclic 3")
    assert all(loop.achieved_ii == loop.target_ii == 1 for loop in report.scheduled.loops)


@pytest.mark.parametrize("step,unroll,banks", [(3, 3, 9), (2, 2, 4)])
def test_strided_lanes_find_the_banks_that_keep_them_static(tmp_path, step, unroll, banks):
    """``dst[i]`` with ``i += step`` unrolled by ``unroll`` on interface arrays (their
    references stay as written): lanes ``i + step*u`` move by step*unroll per
    iteration, so cyclic step*unroll keeps each on one bank.  The refinement stopped
    at the offsets' box (step*(unroll-1) + 1 banks, which rotate) and the loop ran
    at II 3 or 2 (probe 26b, item 10)."""
    path = tmp_path / "strided.c"
    path.write_text(
        f"void strided(int src[54], int dst[54]) {{\n"
        f"  for (int i = 0; i < 54 - {step * unroll}; i += {step}) {{\n"
        "#pragma HLS pipeline II=1\n"
        f"#pragma HLS unroll factor={unroll}\n"
        "    dst[i] = src[i] + 1;\n"
        "  }\n"
        "}\n")
    report = arraypart.analyze(path, ports=1)
    dst = next(a for a in report.solution.arrays if a.array.name == "dst")
    assert dst.banking.scheme.describe().startswith(f"per_dim cyclic {banks}")
    assert all(loop.achieved_ii == loop.target_ii == 1 for loop in report.scheduled.loops)


def _first_emission(path: Path):
    """The first banking of ``path`` on two ports, its emitted code scheduled, and the
    loops that code leaves above the banking's II."""
    kernel = frontend.parse_kernel(path)
    model = poly.build_model(kernel, ports=2)
    first = banking.solve(model)
    scheduled = api.schedule_emitted(kernel, codegen.emit(kernel, first), 2)
    return first, scheduled, api._missed_loops(Report(kernel, model, first, scheduled, {}))


def _integral_image_by_2(tmp_path: Path) -> Path:
    path = tmp_path / "integral_image.c"
    path.write_text((ROOT / "kernels" / "integral_image.c").read_text().replace(
        "unroll factor=4", "unroll factor=2"))
    return path


def test_the_sites_of_routed_lanes_are_priced_before_emission(tmp_path):
    """integral_image unrolled by 2: cyclic 3 over the rows of sat gives each bank two
    reads or two writes a cycle, which ram_t2p serves at II 1 in the ideal port model;
    its bank-centric code holds two read and two write sites per bank, each issuing
    every iteration: II 2 under the scheduling rule.  The search prices the sites
    (:func:`arraypart.banking.sampling.routed_ii`), so the first emission keeps II 1."""
    first, scheduled, missed = _first_emission(_integral_image_by_2(tmp_path))
    assert not missed and all(loop.achieved_ii == 1 for loop in scheduled.loops)
    sat = next(a for a in first.arrays if a.array.name == "sat").banking.scheme
    assert sat != per_dim_scheme((48, 64), (DimPartition("cyclic", 3),
                                            DimPartition("none", 1)))


def test_loops_the_emission_slows_are_banked_again(tmp_path, monkeypatch):
    """With the routed sites unpriced (as a search that missed them would), the
    cheapest banking of sat rotates in a loop whose emitted code reaches II 2.  The
    emitted code is checked, the loop banked again with its rotating lanes priced as
    the rule prices them, and the code that keeps II 1 is the one kept."""
    monkeypatch.setattr(banking.search, "routed_ii",
                        lambda sample, banking, ports: sample.shape.group.target_ii)
    path = _integral_image_by_2(tmp_path)
    first, scheduled, missed = _first_emission(path)
    assert missed and max(loop.achieved_ii for loop in scheduled.loops) == 2
    report = arraypart.analyze(path)
    assert all(loop.achieved_ii == loop.target_ii for loop in report.scheduled.loops)
    banked = {a.array.name: a.banking.scheme for a in report.solution.arrays}
    assert banked["sat"] != {a.array.name: a.banking.scheme for a in first.arrays}["sat"]


def brute_flat_ii(lane_sets, alpha, banks, block, ports, target):
    """The pre-check's flat verdict over every residue r = alpha·x mod N*B that a
    multiple of gcd(alpha, N*B) reaches (no rotation classes): the reference."""
    modulus = banks * block
    step = math.gcd(*alpha, modulus)
    worst = target
    for offsets, is_write in lane_sets:
        for r in range(0, modulus, step):
            loads = {}
            for d, writing in zip(offsets.tolist(), is_write.tolist()):
                bank = (r + sum(a * x for a, x in zip(alpha, d))) // block % banks
                loads.setdefault(bank, [0, 0])[writing] += 1
            for reads, writes in loads.values():
                if reads + writes <= 1 and (not writes or ports.writable):
                    continue
                worst = max(worst, next((ii for ii in range(target, target + reads + writes + 1)
                                         if ports.fits(reads, writes, ii)), INFEASIBLE_II))
    return worst


def random_lane_sets(rng, dims):
    offsets = np.array([[rng.randint(-3, 5) for _ in range(dims)]
                        for _ in range(rng.randint(2, 14))], dtype=np.int64)
    is_write = np.array([rng.random() < 0.2 for _ in offsets], dtype=bool)
    return [precheck.lane_set(offsets, is_write, np.zeros(len(offsets), np.int64))]


def test_flat_pre_check_needs_one_residue_per_rotation_class():
    rng = random.Random(4)
    for trial in range(150):
        dims, banks, block = rng.randint(1, 3), rng.randint(2, 8), rng.choice(FLAT_BLOCKS)
        ports = list(PORT_MODELS.values())[trial % len(PORT_MODELS)]
        sets, target = random_lane_sets(rng, dims), rng.randint(1, 2)
        alphas = np.array([[rng.randrange(banks * block) for _ in range(dims)]
                           for _ in range(8)], dtype=np.int64)
        got = precheck.flat_ii(sets, alphas, banks, block, ports, target)
        assert got.tolist() == [brute_flat_ii(sets, tuple(a), banks, block, ports, target)
                                for a in alphas.tolist()]


def test_per_dim_pre_check_tally_agrees_with_the_numpy_count(monkeypatch):
    rng = random.Random(5)
    for trial in range(40):
        dims = rng.randint(1, 3)
        shape = tuple(rng.randint(3, 12) for _ in range(dims))
        ports = list(PORT_MODELS.values())[trial % len(PORT_MODELS)]
        sets, target = random_lane_sets(rng, dims), rng.randint(1, 2)
        for banks in (2, 3, 4, 6):
            for dims_part in per_dim_partitions(shape, frozenset(range(dims)), banks):
                scheme = per_dim_scheme(shape, dims_part)
                monkeypatch.setattr(precheck, "PYTHON_TALLY", 1 << 30)
                tallied = precheck.per_dim_ii(sets, scheme, ports, target)
                monkeypatch.setattr(precheck, "PYTHON_TALLY", 0)
                assert precheck.per_dim_ii(sets, scheme, ports, target) == tallied, scheme


GEMM_COLUMN = """
#define N 16
void gemm(float m1[N*N], float m2[N*N], float prod[N*N]) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
#pragma HLS pipeline II=1
      float sum = 0;
      for (int k = 0; k < N; k++) sum += m1[i*N + k] * m2[k*N + j];
      prod[i*N + j] = sum;
    }
}
"""


def test_a_block_a_lane_never_leaves_is_a_constant_bank(tmp_path):
    """``m2[k*16 + j]`` (k unrolled, j pipelined over 0..15) under a block partition
    of 32 elements keeps each lane in block k/2 for every j: a constant bank, so the
    interface array's references as written reach II 1 under the scheduling rule;
    blocks of 8 split each row, and the lanes' banks change with j."""
    from arraypart.banking.space import rule_lanes
    from arraypart.scheme import DimPartition
    path = tmp_path / "gemm.c"
    path.write_text(GEMM_COLUMN)
    model = poly.build_model(frontend.parse_kernel(path), ports=2)
    am = next(a for a in model.arrays if a.array.name == "m2")
    shapes = [analyze_group(g, 1) for g in am.groups]
    lanes = {banks: rule_lanes(per_dim_scheme((256,), (DimPartition("block", banks),)),
                               shapes, True)[0] for banks in (8, 16, 32)}
    assert lanes == {8: 0, 16: 0, 32: 16}


CROSS = """\
void cross(const int img[32][32], int out[32][32]) {
    for (int i = 1; i < 31; i++)
        for (int j = 1; j < 31; j++) {
#pragma HLS pipeline II=1
            out[i][j] = img[i][j] + img[i - 1][j] + img[i + 1][j] + img[i][j - 1]
                        + img[i][j + 1];
        }
}
"""


@pytest.mark.parametrize("budget", ["NOTE_CANDIDATES", "NOTE_PROOFS"])
def test_the_flat_note_of_an_interface_array_has_a_candidate_budget(compiled_once, monkeypatch,
                                                                       budget):
    """The search gives an interface array a per_dim banking (cyclic 3 x cyclic 3 for a
    cross on one port) and a note that names the cheaper flat one (N = 5), found
    within the note's budgets of pre-checked and of proven candidates.  With either
    spent the note is dropped and the banking stays: the budgets bound only the
    comparison behind the note (proofs were unbounded: 2,130 of them, 8 s, for no note
    on a depthwise convolution).  (The references stay as written and their banks rotate with j, so under the
    scheduling rule the compiled kernel keeps one memory: see the next test.)"""
    model = compiled_once("cross.c", CROSS, ports=1).report.model

    def img_and_notes():
        """The search on the model (no budget touches the model itself)."""
        img = next(a for a in banking.solve(model).arrays if a.array.name == "img")
        return img.banking, [w for w in img.notes if "a flat scheme would be" in w]

    kept, notes = img_and_notes()
    assert kept.scheme.kind == "per_dim" and kept.scheme.banks == 9
    assert len(notes) == 1 and "flat N=5" in notes[0]
    monkeypatch.setattr(banking.notes, budget, 0)
    assert img_and_notes() == (kept, [])


# The cross with its references in a macro's text: the search prices a phase switch
# for img's rotating banks, but a reference a macro's text holds keeps its text
# (codegen/phases.py), so the emitted code has none.  (The column loop from -1 served
# here until the search learnt that a negative iterator gets no switch either: see
# test_phases.py, which phases that one over its rows.)
CROSS_IN_A_MACRO = "#define PX(r, c) img[r][c]\n" + CROSS.replace(
    "out[i][j] = img[i][j] + img[i - 1][j] + img[i + 1][j] + img[i][j - 1]\n"
    "                        + img[i][j + 1];",
    "out[i][j] = PX(i, j) + PX(i - 1, j) + PX(i + 1, j) + PX(i, j - 1)\n"
    "                        + PX(i, j + 1);")


def test_notes_on_banks_set_aside_give_way_to_the_reason(tmp_path):
    """Under the scheduling rule the cross's five rotating reads take a port of every
    bank of img: cyclic 3 x cyclic 3 reaches II 5, as one memory does, so img keeps one
    memory; the notes that named the banking set aside (the flat comparison) give way
    to the one that says why."""
    assert "PX(i + 1, j)" in CROSS_IN_A_MACRO
    path = tmp_path / "cross.c"
    path.write_text(CROSS_IN_A_MACRO)
    report = arraypart.analyze(path, ports=1)
    img = next(a for a in report.solution.arrays if a.array.name == "img")
    assert img.banking.scheme.kind == "none" and not img.conflict_free
    (note,) = img.notes
    assert "img keeps one memory: per_dim cyclic 3 x cyclic 3" in note
    assert [lp.achieved_ii for lp in report.scheduled.loops] == [5]


FLOYD_WARSHALL = """
void fw(int path[16][16]) {
  for (int k = 0; k < 16; k++)
    for (int i = 0; i < 16; i++)
      for (int j = 0; j < 16; j++) {
#pragma HLS pipeline II=1
        path[i][j] = path[i][j] < path[i][k] + path[k][j] ? path[i][j] : path[i][k] + path[k][j];
      }
}
"""


def test_where_no_banking_reaches_the_target_one_memory_wins_a_tie(tmp_path):
    """Floyd-Warshall reads path[i][j], path[i][k] and path[k][j] and writes path[i][j]
    in each cycle: no banking within 2 banks reaches II 1, and each misses it by as
    much as one memory does (II 2), so the solver keeps one memory rather than banks
    that buy nothing (before, a 2-bank fallback was kept and only the scheduling-rule
    check of the emitted code, which passes its time limit at 500x500, undid it)."""
    path = tmp_path / "fw.c"
    path.write_text(FLOYD_WARSHALL)
    model = poly.build_model(frontend.parse_kernel(path), ports=2)
    chosen = banking.solve(model, max_banks=2).arrays[0]
    assert chosen.banking.scheme.kind == "none"
    assert dict(chosen.achieved_ii) == {"L5": 2}
    assert any("using none: one memory, achieved II 2 in loop L5" in n for n in chosen.notes)


def test_a_colliding_cycle_isl_found_refutes_later_candidates_without_isl(tmp_path):
    """The flat candidates with 5 banks all pass Floyd-Warshall's initial sample
    (iterations near the ends of its domain); isl refutes the first at a cycle where
    ``path[i][k]``, ``path[k][j]`` and ``path[i][j]`` meet, and that cycle, learned
    into the sample, refutes each of the others, as isl does."""
    path = tmp_path / "fw.c"
    path.write_text(FLOYD_WARSHALL)
    am = poly.build_model(frontend.parse_kernel(path), ports=2).arrays[0]
    (group,) = [analyze_group(g, 2) for g in am.groups]
    sample = sampling.sample_group(group)
    first, *others = [Banking("path", flat_scheme((16, 16), (a, b), 5))
                      for a in range(1, 5) for b in range(1, 5)]
    assert not any(sampling.refuted(sample, b, am.ports) for b in [first] + others)
    verdict = prove_group(am, group.group, first, max_ii=1)
    assert verdict.ii > 1 and verdict.point is not None
    learned = sampling.with_point(sample, verdict.point)
    assert learned.learned == 1
    assert all(sampling.refuted(learned, b, am.ports) for b in others)
    assert all(prove_group(am, group.group, b, max_ii=1).ii > 1 for b in others[:4])


def test_the_rule_is_missed_exactly_where_its_sampled_ii_is_above_the_target(tmp_path):
    """``sampled_rule_missed`` (one overload test per sub-array, what the search asks
    of every candidate) says what ``sampled_rule_ii`` above the target says, on
    Floyd-Warshall's sampled cycles: its banks that rotate miss the target, the one
    memory and the banks that stay fixed do not."""
    path = tmp_path / "fw.c"
    path.write_text(FLOYD_WARSHALL)
    am = poly.build_model(frontend.parse_kernel(path), ports=2).arrays[0]
    (group,) = [analyze_group(g, 2) for g in am.groups]
    sample = sampling.sample_group(group)
    candidates = [Banking("path", flat_scheme((16, 16), (a, b), n))
                  for n in (2, 5) for a in range(4) for b in range(4) if a or b] + [
        Banking("path", per_dim_scheme((16, 16), dims)) for dims in (
            (DimPartition("none", 1), DimPartition("none", 1)),
            (DimPartition("cyclic", 2), DimPartition("none", 1)),
            (DimPartition("none", 1), DimPartition("block", 4)))]
    missed = [sampling.sampled_rule_missed(sample, b, am.ports) for b in candidates]
    assert missed == [sampling.sampled_rule_ii(sample, b, am.ports) > 1 for b in candidates]
    assert any(missed) and not all(missed)


def test_registers_that_reach_the_target_are_kept_over_one_memory(tmp_path):
    """``d`` is written 40 times per cycle and read at table-chosen indices: memory
    banks cannot serve that, registers can, though the pre-check scores them as
    missing the target (it counts ports); one memory is preferred only where it is
    proven to reach an II no larger (here 28 against 1)."""
    path = tmp_path / "r.c"
    path.write_text("""
void r(int in[512], int out[512], int rev[8]) {
  int d[8];
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline II=1
    for (int k = 0; k < 8; k++) d[k] = in[8 * i + k];
    for (int s = 0; s < 4; s++)
      for (int k = 0; k < 4; k++) {
        int t = d[k];
        d[k] = t + d[k + 4];
        d[k + 4] = t - d[k + 4];
      }
    for (int k = 0; k < 8; k++) out[8 * i + k] = d[rev[k]];
  }
}
""")
    model = poly.build_model(frontend.parse_kernel(path), ports=2)
    chosen = {a.array.name: a for a in banking.solve(model).arrays}["d"]
    assert chosen.banking.scheme.registers and chosen.conflict_free
    assert dict(chosen.achieved_ii) == {"L4": 1}


def test_a_loop_that_cannot_be_routed_gets_the_cheapest_banking_at_its_ii(compiled_once):
    """Lane 3 reads buf[4i + 5], which lane 0 writes in the same iteration, so the
    reads cannot move above the writes and the references stay as written.  Cyclic 6
    (conflict-free at II 1 on paper) rotates with i: each lane took a port of every
    bank, II 5.  Banked again, a rotating candidate is now scored at the rule's II in
    the pre-check, and the search that misses the target is run once more at the II
    it reaches: cyclic 4 keeps every lane on one bank, II 2, no block RAM (on the way,
    a flat scheme with 400% padding in 10 BRAM18K reached II 2 too).  Lane 2's read
    of buf[4i + 2] after lane 0's and lane 1's writes of buf[4i + 5] and buf[4i + 6]
    is lane 0's load of that element: the writes are a constant away, so they alias
    no read of buf[4i + 2] (under the first one-epoch rule of 2026-12-07, any write
    of buf between made it a load of its own, and no banking was conflict-free at
    II 1 even on paper)."""
    report = compiled_once("chained.c", CHAINED_LANES).report
    buf = next(a for a in report.solution.arrays if a.array.name == "buf")
    assert buf.banking.scheme.describe().startswith("per_dim cyclic 4")
    assert buf.bram18k == 0
    assert [loop.achieved_ii for loop in report.scheduled.loops] == [1, 2, 1]
    # cyclic 6 is conflict-free in ports: the warning says what no banking reaches
    said = [w for w in buf.notes if "no banking of buf" in w]
    assert len(said) == 1 and "reaches every target II where the HLS tool sees the " \
        "references as written (loop L4" in said[0]


def test_the_sample_of_a_deep_nest_stays_small(tmp_path):
    """A 20-deep nest of two-trip loops sampled near its two lexicographic ends: at
    most 2 * SAMPLE_POINTS points (the box of side 2 in every dimension held 2^20
    points per end, and a 20-deep kernel took 78 s to bank one memory)."""
    depth = 20
    loops = "".join(f"for (int i{k} = 0; i{k} < 2; i{k}++)\n" for k in range(depth))
    index = " + ".join(f"i{k}" for k in range(depth))
    path = tmp_path / "deep.c"
    path.write_text(f"void deep(int out[64]) {{\n  int buf[64];\n"
                    f"  for (int i = 0; i < 64; i++) buf[i] = i;\n{loops}"
                    f"  {{\n#pragma HLS pipeline II=1\n    out[{index}] = buf[{index}];\n  }}\n}}\n")
    am = next(a for a in poly.build_model(frontend.parse_kernel(path), ports=2).arrays
              if a.array.name == "buf")
    deep = max(am.groups, key=lambda g: len(g.time_vars))
    sample = sampling.sample_group(analyze_group(deep, 1))
    assert len(deep.time_vars) == depth
    assert 2 <= len(sample.active[0]) <= 2 * sampling.SAMPLE_POINTS
    assert sampling.sample_spans(3) == (4, 4, 4)


ROWS_OF_LANES = """
void rows(const int idx[18], int out[16]) {
  int a[4][16];
  for (int s = 0; s < 4; s++)
    for (int j = 0; j < 16; j++) {
#pragma HLS pipeline II=1
      a[s][j] = s * j;
    }
  for (int t = 0; t < 16; t++) {
#pragma HLS pipeline II=1
    int sum = 0;
    for (int s = 0; s < 4; s++) {
#pragma HLS unroll
      sum += a[s][idx[t]] + a[s][idx[t + 1]] + a[s][idx[t + 2]];
    }
    out[t] = sum;
  }
}
"""


def test_lanes_that_share_a_row_refute_every_formula_of_the_row_at_once(
        tmp_path, monkeypatch):
    """Each lane s reads three elements of row s at table-chosen columns: under any
    bank formula that reads the row alone, the three share a bank, three reads on
    two ports.  That is decided once per family (the sampled cycles, grouped by
    their rows), where each such flat candidate was refuted on the sample one by one
    (15,000 of them took 24 s for the stages of an FFT); every single-copy candidate
    the search still samples reads the column (read copies may serve the lanes too)."""
    path = tmp_path / "rows.c"
    path.write_text(ROWS_OF_LANES)
    am = next(a for a in poly.build_model(frontend.parse_kernel(path), ports=2).arrays
              if a.array.name == "a")
    (group,) = [analyze_group(g, 2) for g in am.groups if len(g.accesses) > 1]
    sample = sampling.sample_group(group)
    lanes = list(range(len(group.lanes)))
    assert sampling.shared_banks_overloaded(sample, lanes, frozenset({0}), am.ports,
                                            (4, 16))
    assert all(sampling.refuted(sample, Banking("a", flat_scheme((4, 16), (a, 0), n)),
                                am.ports) for a in range(1, 4) for n in range(2, 9))
    # lanes irregular in a bank dimension are the wild count's, not placed here
    assert not sampling.shared_banks_overloaded(sample, lanes, frozenset({0, 1}), am.ports,
                                                (4, 16))
    sampled = []
    original = banking.search.refuted
    monkeypatch.setattr(banking.search, "refuted", lambda sample, b, ports: (
        sampled.append((b.scheme.bank_dims(), b.copies)), original(sample, b, ports))[1])
    chosen = solve_one(am)[1]
    assert chosen.conflict_free and (1 in chosen.banking.scheme.bank_dims()
                                     or chosen.banking.copies > 1)
    assert sampled and all(1 in dims for dims, copies in sampled if copies == 1)


def test_a_missed_target_is_traded_for_fewer_cycles(tmp_path):
    """``top`` is written 40 lanes a step for 16 steps (i += 40) and updated 16 lanes
    a step for 1,280 steps (n += 16): no banking reaches II 1 in both.  Cyclic 20 kept
    the short loop at II 1 and the long one at II 16 (20,496 cycles), because targets
    were only ever raised in the loops that missed; cyclic 16 costs the short loop
    II 2 and gives the long one II 1 (1,312 cycles; probe 26, item 5).  Since the
    phase switches count n's period in the iterations it takes (n += 16 under cyclic
    20: 5 phases, issue #13), cyclic 20 reaches II 1 in both (1,296 cycles)."""
    path = tmp_path / "rot.c"
    path.write_text(
        "void rot(int top[640]) {\n"
        "  for (int i = 0; i < 640; i += 40) {\n#pragma HLS pipeline\n"
        "    for (int j = 0; j < 40; j++) top[i + j] = i + j;\n  }\n"
        "  for (int n = 0; n < 640; n += 16) {\n"
        "    for (int c = 0; c < 32; c++) {\n#pragma HLS pipeline\n"
        "      for (int nn = 0; nn < 16; nn++) top[n + nn] += c * nn;\n    }\n  }\n}\n")
    report = arraypart.analyze(path)
    top = next(a for a in report.solution.arrays if a.array.name == "top")
    assert top.banking.scheme.describe().startswith("per_dim cyclic 20")
    assert [(loop.achieved_ii, loop.iterations) for loop in report.scheduled.loops] == [
        (1, 16), (1, 1280)]


@pytest.mark.parametrize("replace", [False, True])
def test_lanes_on_a_constant_bank_are_counted_on_their_own_bank(tmp_path, replace):
    """BlockPU's DW_CONV3x3: lane co reads in[co][h + i][w + j] with counters for h, w,
    i, j (irregular there).  With 16 lanes at two sites isl is past its irregular
    budget and counting put all of them in one bank: the user's complete dim=1 was
    called conflicting and --replace-partitions fell back to one memory at II 16.
    Each lane's bank (co) is a constant, so each bank counts its own two reads."""
    text = """void dw(const int in[16][10][10], const int w8[16][3][3], int out[16][4][4]) {
#pragma HLS array_partition variable=in dim=1 complete
#pragma HLS array_partition variable=w8 dim=1 complete
  unsigned short i = 0, j = 0, h = 0, w = 0;
  for (unsigned short cnt = 0; cnt < 144; cnt++) {
#pragma HLS pipeline II=1
    for (int co = 0; co < 16; co++) {
#pragma HLS unroll
      if (cnt % 9 == 0) out[co][h][w] = w8[co][i][j] * in[co][h + i][w + j];
      else out[co][h][w] = w8[co][i][j] + in[co][h + i][w + j];
    }
    if (j == 2) { j = 0; if (i == 2) { i = 0; if (w == 3) { w = 0; h++; } else w++; }
                  else i++; } else j++;
  }
}
"""
    report = arraypart.analyze(write(tmp_path, "dw.c", text),
                               replace_partitions=replace)
    for name in ("in", "w8"):
        sol = next(s for s in report.solution.arrays if s.array.name == name)
        assert sol.conflict_free and sol.achieved_ii == (("L5", 1),)
        # replaced: a lane's two reads, in the exclusive arms of an affine if, read one
        # element (probe 34 F7), so two lanes share a two-port bank
        assert sol.banking.scheme.describe().startswith(
            "per_dim block 8 x none x none" if replace else "per_dim complete x none x none")
        assert not sol.notes
    checked = check.check_kernel(report.kernel, report.solution.bankings())
    assert [(loop.achieved_ii, loop.ok) for loop in checked.loops] == [(1, True)]


def test_one_element_updated_in_every_unrolled_lane_sets_a_floor(tmp_path):
    """BlockPU's CONV1x1 shape: ``out[c] += in[tn][c] * w[tn]`` in 8 unrolled lanes
    updates one element 8 times a cycle.  The floor grouped the writes by lane as well
    as by address, so it saw one write per lane, and the search ended at one memory
    with II 5, blaming 'a lane whose bank changes with the iteration' (probe 27 item
    5).  By address alone that was II 5 (8 writes); since probe 42 F1 the chain is
    forwarded (in and w are other arguments, which Vitis takes as independent: UG1399),
    one read and one write of out[c], so there is no floor and out reaches II 1."""
    path = write(tmp_path, "acc.cpp", """void acc(int in[8][16], int w[8], int out[16]) {
  for (int c = 0; c < 16; c++) {
#pragma HLS pipeline II=1
    for (int tn = 0; tn < 8; tn++) {
#pragma HLS unroll
      out[c] += in[tn][c] * w[tn];
    }
  }
}
""")
    model = poly.build_model(frontend.parse_kernel(path), ports=2)
    floors = feasible.least_feasible_ii(model.array("out"))
    assert list(floors.values()) == []
    report = arraypart.analyze(path)
    out = next(s for s in report.solution.arrays if s.array.name == "out")
    assert out.conflict_free and out.achieved_ii == (("L2", 1),)


def test_an_interface_array_takes_the_fewest_banks_that_serve_it(tmp_path):
    """Each bank of an interface array is a port of the IP and a memory the caller
    provides: a 24x36 array that a function pipelined at II 36 reads whole took 864
    register banks (864 scalar ports) because they cost the fewest LUTs inside the IP,
    where 24 memories serve (probe 28, F5: GlobalCorrelator_HLS's bhv_find_pv)."""
    path = tmp_path / "hist.cpp"
    path.write_text("int hist_top(int hist[24][36]) {\n#pragma HLS pipeline II=36\n"
                    "#pragma HLS bind_storage variable=hist type=ram_1p\n  int best = 0;\n"
                    "  for (int i = 0; i < 36; ++i) {\n    int sum = 0;\n"
                    "    for (int s = 0; s < 24; ++s) sum += hist[s][i] & 511;\n"
                    "    if (sum > best) best = sum;\n  }\n  return best;\n}\n")
    report = arraypart.analyze(path)
    hist = next(a for a in report.solution.arrays if a.array.name == "hist")
    assert hist.conflict_free and hist.banking.scheme.banks * hist.banking.copies == 24
