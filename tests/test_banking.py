"""The banking solver: fewest banks, proven conflict-free, checked against brute force.

Cycle groups are built by hand (the poly pass is tested on its own); every solver
answer is re-checked here by enumerating each P of the domain in numpy, independent of
isl and of the solver's residue pre-check.
"""

from __future__ import annotations

import itertools
import random
from math import ceil
from time import perf_counter

import islpy as isl
import numpy as np
import pytest

from arraypart import expr as E
from arraypart.banking import Proof, bram18k, driver, lower_bound, prove, solve
from arraypart.banking.fixed import time_limited
from arraypart.banking.options import Options, TimeUp, easiest_first, share_time
from arraypart.banking.search import Search
from arraypart.errors import Coord
from arraypart.ir import PORT_MODELS, Array, PartitionPragma
from arraypart.poly.model import ArrayModel, CycleGroup, LaneAccess, PolyModel
from arraypart.scheme import (Banking, DimPartition, flat_scheme, none_scheme,
                              per_dim_scheme)

COORD = Coord("k.c", 3, 5)

STENCILS = {
    "DENOISE": ([(0, 1), (1, 0), (1, 2), (2, 1)], 4),
    "DECONV": ([(0, 1), (1, 0), (1, 2), (2, 1), (1, 1)], 5),
    "DENOISE_UR": ([(0, 1), (0, 2), (1, 0), (1, 1), (1, 2), (1, 3), (2, 1), (2, 2)], 8),
    "BICUBIC": ([(0, 0), (0, 2), (2, 0), (2, 2)], 4),
    "SOBEL": ([(a, b) for a in range(3) for b in range(3)], 9),
    "MOTION_LV": ([(a, 0) for a in range(6)], 6),
    "MOTION_LH": ([(0, a) for a in range(6)], 6),
    "MOTION_C": ([(a, b) for a in range(2) for b in range(2)], 4),
}
RING = [(a, b) for a in range(3) for b in range(3) if (a, b) != (1, 1)]


# ---------------------------------------------------------------- builders


def lane(kind, index, ref_id, domain, array="A"):
    return LaneAccess(array, kind, tuple(index), ref_id, Coord("k.c", 10 + ref_id, 7),
                      (), domain)


def group(domain_text, time_vars, lanes_spec, ii=1, loop="L1"):
    """lanes_spec: (kind, index exprs) per lane; ref_id = position."""
    domain = isl.Set(domain_text)
    lanes = tuple(lane(kind, index, k, domain) for k, (kind, index) in enumerate(lanes_spec))
    return CycleGroup(loop, COORD, ii, tuple(time_vars), domain, lanes, 1, 1)


def stencil_group(offsets, height, width, kinds=None, ii=1, loop="L1"):
    """Lanes A[i+di][j+dj] on { [i,j] : 0 <= i < H-2 and 0 <= j < W-2 } (shrunk
    further when an offset exceeds 2, so every access stays in bounds)."""
    kinds = kinds or ["read"] * len(offsets)
    spec = [(kind, (E.affine({"i": 1}, di), E.affine({"j": 1}, dj)))
            for kind, (di, dj) in zip(kinds, offsets)]
    rows = height - max(2, max(di for di, _ in offsets))
    cols = width - max(2, max(dj for _, dj in offsets))
    return group(f"{{ [i, j] : 0 <= i < {rows} and 0 <= j < {cols} }}",
                 ("i", "j"), spec, ii, loop)


def array_model(groups, shape=(32, 32), ports="ram_1p", **array_fields):
    array = Array("A", tuple(shape), "int", 32, coord=COORD,
                  **{"interface": False, **array_fields})
    return ArrayModel(array, PORT_MODELS[ports], tuple(groups),
                      max(len(g.accesses) for g in groups) if groups else 0)


def stencil_model(offsets, ports="ram_1p", ii=1, size=32, **array_fields):
    return array_model([stencil_group(offsets, size, size, ii=ii)], (size, size), ports,
                       **array_fields)


def solve_one(am, **options):
    solution = solve(PolyModel((am,), (), ()), **options)
    return solution, solution.arrays[0]


# ---------------------------------------------------------------- brute force


def points_of(domain):
    found = []
    domain.foreach_point(lambda p: found.append(
        [p.get_coordinate_val(isl.dim_type.set, k).to_python()
         for k in range(domain.dim(isl.dim_type.set))]))
    return np.array(sorted(found), dtype=np.int64)


def traces(am):
    """Per group: every P of its domain, and per lane its indices, flat addresses and
    where it runs (numpy, from the domain's points; no isl reasoning)."""
    result = []
    for g in am.groups:
        points = points_of(g.domain)
        env = {v: points[:, t] for t, v in enumerate(g.time_vars)}
        lanes = []
        for a in g.accesses:
            idx = tuple(np.broadcast_to(E.evaluate(e, env), (len(points),)) for e in a.index)
            inside = {tuple(p) for p in points_of(a.domain)}
            lanes.append((idx, np.ravel_multi_index(idx, am.array.shape),
                          np.array([tuple(p) in inside for p in points])))
        result.append(lanes)
    return result


def enumerated_ii(am, banking, traced=None):
    """Per group, the least II >= target at which every cycle fits, by evaluating every
    P of the domain with numpy (no isl reasoning, no residues)."""
    bank_map, _ = banking.scheme.maps()
    result = []
    for g, lanes in zip(am.groups, traced or traces(am)):
        banks = [bank_map[idx] for idx, _, _ in lanes]
        addrs = [addr for _, addr, _ in lanes]
        active = [on for _, _, on in lanes]
        need = g.target_ii
        for copy in range(banking.copies):
            chosen = [k for k, a in enumerate(g.accesses)
                      if a.kind == "write" or banking.copy_of(a.ref_id, a.lane) == copy]
            need = max(need, _worst_ii(am.ports, g, chosen, banks, addrs, active))
        result.append(need)
    return result


def _worst_ii(ports, g, lanes, banks, addrs, active):
    worst = g.target_ii
    for k in lanes:
        reads = np.zeros(len(banks[k]), dtype=np.int64)
        writes = np.zeros(len(banks[k]), dtype=np.int64)
        for pos, j in enumerate(lanes):
            here = active[k] & active[j] & (banks[j] == banks[k])
            if g.accesses[j].kind == "write":
                writes += here
                continue
            first = here.copy()
            for j2 in lanes[:pos]:
                if g.accesses[j2].kind == "read":
                    first &= ~(active[j2] & (addrs[j2] == addrs[j]))
            reads += first
        for r, w in set(zip(reads[active[k]], writes[active[k]])):
            ii = g.target_ii
            while not ports.fits(int(r), int(w), ii):
                ii += 1
            worst = max(worst, ii)
    return worst


def enumerated_ok(am, banking, traced=None):
    return all(ii == g.target_ii
               for ii, g in zip(enumerated_ii(am, banking, traced), am.groups))


def routed_ok(am, banking, traced=None):
    """The bank-centric code of each group whose lanes change bank keeps its target:
    per bank as many read sites as the most distinct reads and as many write sites as
    the most writes any bank takes at any P (every site issues in every iteration)."""
    bank_map, _ = banking.scheme.maps()
    for g, lanes in zip(am.groups, traced or traces(am)):
        banks = [bank_map[idx] for idx, _, _ in lanes]
        if all(len(set(b[on].tolist())) <= 1 for b, (_, _, on) in zip(banks, lanes)):
            continue  # every lane on one bank: nothing is routed
        most = {"read": 0, "write": 0}
        for point in range(len(banks[0])):
            for bank in range(banking.scheme.banks):
                here = [k for k, (_, _, on) in enumerate(lanes)
                        if on[point] and banks[k][point] == bank]
                reads = {int(lanes[k][1][point]) for k in here
                         if g.accesses[k].kind == "read"}
                writes = sum(g.accesses[k].kind == "write" for k in here)
                most["read"] = max(most["read"], len(reads))
                most["write"] = max(most["write"], writes)
        if not am.ports.fits(most["read"], most["write"], g.target_ii):
            return False
    return True


def brute_candidates(shape, max_banks):
    dims = [[DimPartition("none", 1)] + [DimPartition(t, f) for t in ("cyclic", "block")
                                         for f in range(2, max_banks + 1)]
            for _ in shape]
    for combo in itertools.product(*dims):
        if np.prod([p.factor for p in combo]) <= max_banks:
            yield per_dim_scheme(shape, combo)
    for banks in range(2, max_banks + 1):
        for block in (1, 2):
            for alpha in itertools.product(range(banks * block), repeat=len(shape)):
                if any(alpha):
                    yield flat_scheme(shape, alpha, banks, block)


def brute_minimum(am, max_banks):
    """The fewest banks of a candidate that meets every target, None if none does: the
    candidates are tried by their number of banks, fewest first, up to the first count
    that has one."""
    traced = traces(am)
    candidates = sorted(brute_candidates(am.array.shape, max_banks), key=lambda s: s.banks)
    for banks, schemes in itertools.groupby(candidates, key=lambda s: s.banks):
        if any(enumerated_ok(am, Banking("A", s), traced)
               and routed_ok(am, Banking("A", s), traced) for s in schemes):
            return banks
    return None


# ---------------------------------------------------------------- reference stencils


@pytest.mark.parametrize("name", sorted(STENCILS))
def test_reference_stencil_single_port_reaches_lower_bound(name):
    offsets, expected = STENCILS[name]
    am = stencil_model(offsets)
    _, sol = solve_one(am)
    assert sol.banking.scheme.banks * sol.banking.copies == expected
    assert sol.lower_bound == expected
    assert sol.conflict_free and sol.achieved_ii == (("L1", 1),)
    assert enumerated_ok(am, sol.banking)


@pytest.mark.parametrize("name", sorted(STENCILS))
def test_reference_stencil_dual_port_needs_about_half(name):
    offsets, single = STENCILS[name]
    am = stencil_model(offsets, ports="ram_t2p")
    _, sol = solve_one(am)
    assert sol.banking.scheme.banks * sol.banking.copies == ceil(single / 2) == sol.lower_bound
    assert sol.conflict_free and enumerated_ok(am, sol.banking)


def test_denoise_uses_block_cyclic():
    _, sol = solve_one(stencil_model(STENCILS["DENOISE"][0]))
    scheme = sol.banking.scheme
    assert (scheme.kind, scheme.flat_banks, scheme.block) == ("flat", 4, 2)
    assert "isl checks" in sol.proof


def test_ring_without_centre_needs_nine():
    am = stencil_model(RING)
    assert lower_bound(am) == 9
    _, sol = solve_one(am)
    assert sol.banking.scheme.banks == 9 and sol.conflict_free


def test_lower_bound_counts_ports_and_ii():
    assert lower_bound(stencil_model(STENCILS["SOBEL"][0], ports="ram_t2p")) == 5
    assert lower_bound(stencil_model(STENCILS["SOBEL"][0], ii=3)) == 3
    assert lower_bound(stencil_model(STENCILS["SOBEL"][0], ports="rom_np")) == 1


def test_target_ii_three_spreads_sobel_over_three_banks():
    am = stencil_model(STENCILS["SOBEL"][0], ii=3)
    _, sol = solve_one(am)
    assert sol.banking.scheme.banks == 3 and sol.achieved_ii == (("L1", 3),)
    assert enumerated_ok(am, sol.banking)


# ---------------------------------------------------------------- several loops


def row_write_column_read_model():
    """Loop 1 writes buf[i][4*j+k], loop 2 reads buf[4*i+k][j] (k unrolled by 4)."""
    rows = group("{ [i, j] : 0 <= i < 16 and 0 <= j < 4 }", ("i", "j"),
                 [("write", (E.var("i"), E.affine({"j": 4}, k))) for k in range(4)],
                 loop="L1")
    cols = group("{ [i, j] : 0 <= i < 4 and 0 <= j < 16 }", ("i", "j"),
                 [("read", (E.affine({"i": 4}, k), E.var("j"))) for k in range(4)],
                 loop="L2")
    return array_model([rows, cols], (16, 16))


def test_row_write_and_column_read_share_four_banks():
    am = row_write_column_read_model()
    _, sol = solve_one(am)
    scheme = sol.banking.scheme
    assert (scheme.kind, scheme.flat_banks, scheme.block, scheme.alpha) == (
        "flat", 4, 1, (1, 1))
    assert sol.lower_bound == 4
    assert sol.achieved_ii == (("L1", 1), ("L2", 1)) and enumerated_ok(am, sol.banking)


def test_vitis_schemes_need_sixteen_for_row_and_column():
    am = row_write_column_read_model()
    _, sol = solve_one(am, schemes="vitis")
    assert sol.banking.scheme.kind == "per_dim" and sol.banking.scheme.banks == 16
    assert enumerated_ok(am, sol.banking)


# ---------------------------------------------------------------- isl paths


def transpose_model():
    """A[i][j] and A[j][i] read in one cycle: a difference that depends on P."""
    spec = [("read", (E.var("i"), E.var("j"))), ("read", (E.var("j"), E.var("i")))]
    return array_model([group("{ [i, j] : 0 <= i < 8 and 0 <= j < 8 }", ("i", "j"), spec)],
                       (8, 8))


def test_transposed_reads_are_duplicated():
    am = transpose_model()
    _, sol = solve_one(am)
    assert (sol.banking.scheme.banks, sol.banking.copies) == (1, 2)
    assert sol.banking.read_copy == ((0, E.const(0)), (1, E.const(1)))
    assert sol.conflict_free and sol.lower_bound == 2 and enumerated_ok(am, sol.banking)


def test_prove_transpose_finds_the_colliding_iteration():
    am = transpose_model()
    proof = prove(am, Banking("A", flat_scheme((8, 8), (1, 0), 2)))
    assert not proof.conflict_free and proof.achieved_ii == (("L1", 2),)
    assert proof.counterexample.startswith("loop L1, iteration (i=")
    assert "hit bank" in proof.counterexample and proof.isl_checks > 0
    diagonal_ok = prove(am, Banking("A", per_dim_scheme((8, 8), (
        DimPartition("complete", 8), DimPartition("none", 1)))))
    assert diagonal_ok.conflict_free


def test_irregular_read_goes_to_its_own_copy():
    domain = "{ [i] : 0 <= i < 16 }"
    spec = [("read", (E.var("i"),)), ("read", (None,))]
    am = array_model([group(domain, ("i",), spec)], (16,))
    _, sol = solve_one(am)
    assert (sol.banking.scheme.banks, sol.banking.copies) == (1, 2) and sol.conflict_free
    one_memory = prove(am, Banking("A", none_scheme((16,))))
    assert not one_memory.conflict_free and "[?]" in one_memory.counterexample


def test_a_read_regular_in_its_row_is_banked_by_its_row():
    """The line buffer of Vitis-Tutorials' Window2D: rows 0..3 read at a column the
    data choose, row 0 written there.  The row keeps each read in one bank, so 3 banks
    serve the 5 accesses on two ports (4 copies of the whole buffer were chosen
    when a lane irregular in one dimension counted as irregular in all), and
    ``complete dim=1`` is proved conflict-free."""
    spec = [("read", (E.const(r), None)) for r in range(4)] + [("write", (E.const(0), None))]
    am = array_model([group("{ [n] : 0 <= n < 64 }", ("n",), spec)], (4, 64), "ram_t2p")
    _, sol = solve_one(am)
    assert sol.conflict_free and sol.banking.scheme.banks * sol.banking.copies == 3
    rows = per_dim_scheme((4, 64), (DimPartition("complete", 4), DimPartition("none", 1)))
    assert prove(am, Banking("A", rows)).conflict_free
    cyclic_2 = per_dim_scheme((4, 64), (DimPartition("cyclic", 2), DimPartition("none", 1)))
    refuted = prove(am, Banking("A", cyclic_2))
    assert not refuted.conflict_free and "[0][?]" in refuted.counterexample


def test_read_modify_write_of_one_address_needs_both_ports():
    spec = [("read", (E.var("i"),)), ("write", (E.var("i"),))]
    am = array_model([group("{ [i] : 0 <= i < 16 }", ("i",), spec)], (16,))
    assert prove(am, Banking("A", none_scheme((16,)))).achieved_ii == (("L1", 2),)
    dual = array_model(am.groups, (16,), "ram_t2p")
    assert prove(dual, Banking("A", none_scheme((16,)))).conflict_free


# ---------------------------------------------------------------- proof API


def test_prove_reports_ii_of_one_memory():
    am = stencil_model(STENCILS["DENOISE"][0])
    proof = prove(am, Banking("A", none_scheme((32, 32))))
    assert isinstance(proof, Proof)
    assert (proof.conflict_free, proof.achieved_ii) == (False, (("L1", 4),))
    dual = stencil_model(STENCILS["DENOISE"][0], ports="ram_t2p")
    assert prove(dual, Banking("A", none_scheme((32, 32)))).achieved_ii == (("L1", 2),)


def test_prove_agrees_with_enumeration_on_fixed_schemes():
    am = stencil_model(STENCILS["DECONV"][0], size=12)
    for scheme in [flat_scheme((12, 12), (1, 2), 5), flat_scheme((12, 12), (1, 1), 5),
                   per_dim_scheme((12, 12), (DimPartition("cyclic", 3),
                                             DimPartition("block", 2)))]:
        banking = Banking("A", scheme)
        assert [ii for _, ii in prove(am, banking).achieved_ii] == enumerated_ii(am, banking)


# ---------------------------------------------------------------- brute force


def random_cases(count, seed=2024):
    rng = random.Random(seed)
    box = [(a, b) for a in range(3) for b in range(3)]
    for _ in range(count):
        offsets = rng.sample(box, rng.randint(2, 5))
        kinds = ["write" if k == 0 and rng.random() < 0.3 else "read"
                 for k in range(len(offsets))]
        yield offsets, kinds, rng.choice(["ram_1p", "ram_t2p", "ram_s2p"])


@pytest.mark.parametrize("offsets,kinds,ports", list(random_cases(24)))
def test_solver_matches_brute_force(offsets, kinds, ports):
    size, max_banks = 14, 6
    am = array_model([stencil_group(offsets, size, size, kinds)], (size, size), ports)
    _, sol = solve_one(am, max_banks=max_banks)
    best = brute_minimum(am, max_banks)
    if best is not None:
        assert sol.conflict_free
        assert sol.banking.scheme.banks * sol.banking.copies <= best
    if sol.conflict_free:  # the bound is of bankings that meet the target
        assert enumerated_ok(am, sol.banking) and routed_ok(am, sol.banking)
        assert sol.lower_bound <= sol.banking.scheme.banks * sol.banking.copies


def test_solver_matches_brute_force_on_non_uniform_group():
    """A[i][j], A[i][j+1] and A[j][i]: differences depend on P (isl path)."""
    spec = [("read", (E.var("i"), E.var("j"))), ("read", (E.var("i"), E.affine({"j": 1}, 1))),
            ("write", (E.var("j"), E.var("i")))]
    domain = "{ [i, j] : 0 <= i < 7 and 0 <= j < 7 }"
    for ports in ("ram_1p", "ram_t2p"):
        am = array_model([group(domain, ("i", "j"), spec)], (8, 8), ports)
        _, sol = solve_one(am, max_banks=6)
        best = brute_minimum(am, 6)
        if best is not None:
            assert sol.conflict_free
            assert sol.banking.scheme.banks * sol.banking.copies <= best
        assert enumerated_ok(am, sol.banking) == sol.conflict_free


# ---------------------------------------------------------------- selection rules


def test_interface_array_keeps_per_dim_and_says_flat_is_cheaper():
    solution, sol = solve_one(stencil_model(STENCILS["DENOISE"][0], interface=True))
    assert sol.banking.scheme.kind == "per_dim" and sol.conflict_free
    assert len(sol.notes) == 1 and sol.notes[0].startswith("k.c:3:5: warning: interface")
    assert "flat N=4" in sol.notes[0] and solution.warnings == sol.notes


def test_vitis_mode_on_interface_array_has_no_note():
    _, sol = solve_one(stencil_model(STENCILS["DENOISE"][0], interface=True),
                       schemes="vitis")
    assert sol.banking.scheme.kind == "per_dim" and sol.notes == ()


def test_user_partition_is_kept_and_warned_when_it_conflicts():
    pragma = PartitionPragma("cyclic", 2, 1, Coord("k.c", 2, 9))
    am = stencil_model(STENCILS["DENOISE"][0], partitions=(pragma,))
    _, kept = solve_one(am)
    assert kept.banking.scheme.describe().startswith("per_dim cyclic 2 x none")
    assert not kept.conflict_free and kept.achieved_ii == (("L1", 2),)
    assert kept.notes[0].startswith("k.c:2:9: warning: the array_partition pragmas of A")
    assert "flat N=4 B=2" in kept.notes[0]
    _, replaced = solve_one(am, replace_partitions=True)
    assert replaced.banking.scheme.banks == 4 and replaced.conflict_free


def test_user_partition_that_fits_is_kept_and_its_rotating_banks_are_named():
    """Cyclic 6 over the six rows is conflict-free and kept; its references stay as
    written and their banks rotate with the row, so the note gives the scheduling
    rule's II and the banking that --replace-partitions routes instead."""
    pragma = PartitionPragma("cyclic", 6, 1, Coord("k.c", 2, 9))
    _, sol = solve_one(stencil_model(STENCILS["MOTION_LV"][0], partitions=(pragma,)))
    assert sol.conflict_free and sol.banking.scheme.banks == 6
    assert len(sol.notes) == 1 and "Vitis schedules L1 at II 6; --replace-partitions" in (
        sol.notes[0])


def test_no_conflict_free_scheme_within_limit_picks_least_ii():
    _, sol = solve_one(stencil_model(STENCILS["SOBEL"][0]), max_banks=4)
    assert not sol.conflict_free and sol.achieved_ii == (("L1", 3),)
    assert sol.banking.scheme.banks * sol.banking.copies <= 4
    assert "within 4 banks" in sol.notes[0]


def test_time_limit_keeps_one_memory_proven_by_counting():
    """DESIGN §4: a time limit is a missed goal (exit 1) with the best banking proven
    so far: with no time at all, one memory, whose II counting proves (9 reads on
    one single-port bank: II 9)."""
    solution, sol = solve_one(stencil_model(STENCILS["SOBEL"][0]), time_limit=1e-9)
    assert solution.time_limited and sol.time_limited and not sol.conflict_free
    assert sol.banking.scheme.banks == 1 and sol.achieved_ii == (("L1", 9),)
    assert sol.notes[0].startswith("k.c:3:5: warning: solver time limit of 1e-09 s reached")


@pytest.mark.parametrize("reshaped", [False, True])
def test_time_limit_keeps_the_users_pragmas(reshaped):
    """A time limit keeps what the user wrote, proven by counting, rather than one
    memory that drops it: a partition (unless --replace-partitions), and a reshaped
    array's partition even then (a reshape is always kept)."""
    pragma = PartitionPragma("cyclic", 3, 2, Coord("k.c", 2, 9))
    fields = {"partitions": (pragma,)} | (
        {"reshapes": (PartitionPragma("block", 2, 1, Coord("k.c", 3, 9)),),
         "partitionable": False} if reshaped else {})
    solution, sol = solve_one(stencil_model(STENCILS["SOBEL"][0], **fields),
                              time_limit=1e-9, replace_partitions=reshaped)
    assert solution.time_limited and sol.time_limited and sol.kept == (not reshaped)
    assert sol.banking.scheme.banks == 3
    assert "keeps its pragmas as written (per_dim" in sol.notes[0]
    replaced = solve_one(stencil_model(STENCILS["SOBEL"][0], partitions=(pragma,)),
                         time_limit=1e-9, replace_partitions=True)[1]
    assert replaced.banking.scheme.banks == 1 and not replaced.kept


def test_untouched_array_is_one_memory():
    solution = solve(PolyModel((array_model([], (8,)),), (), ()))
    sol = solution.arrays[0]
    assert sol.banking.scheme.kind == "none" and sol.lower_bound == 1 and sol.conflict_free


def test_solve_is_deterministic():
    am = stencil_model(STENCILS["DENOISE_UR"][0])
    first = solve_one(am)[1].banking
    assert all(solve_one(am)[1].banking == first for _ in range(2))


# ---------------------------------------------------------------- BRAM estimate


def test_bram18k_picks_the_best_aspect_ratio():
    assert bram18k(1024, 32, 4, 1, "ram_2p") == 8        # 1K x 18 twice per bank
    assert bram18k(2048, 9, 1, 3, "ram_2p") == 3         # 2K x 9 exactly, three copies
    assert bram18k(4096, 1, 2, 1, "ram_2p") == 2         # 4K x 4, one per bank
    assert bram18k(20000, 1, 1, 1, "ram_2p") == 2        # deeper than 16K x 1
    assert bram18k(32, 32, 16, 1, "ram_2p") == 0         # 1 Kb banks: LUTRAM


def test_bram18k_honours_the_users_impl():
    """bind_storage impl= names the primitive every bank becomes, whatever its size
    (probe 34 F9): impl=bram makes even a 1 Kb bank a block RAM; lutram and uram
    banks are no BRAM18K."""
    assert bram18k(32, 32, 16, 1, "ram_2p", "bram") == 16
    assert bram18k(8, 32, 16, 2, "ram_2p", "bram") == 32
    assert bram18k(1024, 32, 4, 1, "ram_2p", "lutram") == 0
    assert bram18k(1024, 32, 4, 1, "ram_2p", "uram") == 0
    assert bram18k(1024, 32, 4, 1, "ram_2p", "auto") == 8


def test_true_dual_port_banks_are_block_ram_whatever_their_size():
    """Vitis builds ram_t2p only in block RAM or UltraRAM (a LUT RAM has one write
    port; probe 42 F7): a 1 Kb t2p bank is a block RAM, unless impl=uram."""
    assert bram18k(32, 32, 16, 1, "ram_t2p") == 16
    assert bram18k(32, 32, 16, 1, "ram_1p") == bram18k(32, 32, 16, 1, "ram_s2p") == 0
    assert bram18k(32, 32, 16, 1, "ram_t2p", "uram") == 0
    assert bram18k(1, 32, 64, 1, "ram_t2p") == 0  # a complete partition: registers




def test_time_limit_past_the_first_tier_keeps_its_proven_banking(monkeypatch):
    """A deadline that ends the search for a cheaper banking than the first proven
    one keeps that one (proven, conflict-free), says so, and is a time limit (exit 1)."""
    def out_of_time(self, best):
        raise TimeUp("at the next tier")

    monkeypatch.setattr(Search, "_refine", out_of_time)
    solution, sol = solve_one(stencil_model(STENCILS["SOBEL"][0]))
    assert solution.time_limited and sol.time_limited and sol.conflict_free
    assert sol.banking.scheme.banks >= sol.lower_bound
    assert "looking for a cheaper banking" in sol.notes[-1]



def test_the_time_limit_is_shared_out_easiest_array_first():
    """An array with fewer accesses per cycle is banked first and each array gets an
    equal share of the time left, so a hard array cannot starve one that needs no
    search; the solution keeps the model's array order."""
    hard = stencil_model(STENCILS["SOBEL"][0])
    easy = array_model([], (8,))
    assert easiest_first((hard, easy, hard)) == [1, 0, 2]
    budget = Options(None, 100, ("per_dim",), perf_counter() + 30.0, 30.0, False)
    assert share_time(budget, 3).deadline - perf_counter() <= 10.0
    solution = solve(PolyModel((hard, easy), (), ()))
    assert [a.array for a in solution.arrays] == [hard.array, easy.array]


def test_one_element_banks_are_registers_with_no_port_limit(tmp_path):
    """DESIGN §2: an array whose every bank holds one element is registers, so a
    write, a read and a second write of one element in one iteration fit at II 1
    (as banks of one port they would need II 3); the bound never exceeds the
    element count and the checker agrees with the proof."""
    src = tmp_path / "reg.c"
    src.write_text("""void reg(int in[64], int out[64]) {
  int d[8];
#pragma HLS bind_storage variable=d type=ram_1p
  for (int t = 0; t < 64; t++) {
#pragma HLS pipeline II=1
    for (int u = 0; u < 8; u++) d[u] = in[t] + u;
    for (int u = 0; u < 8; u++) d[u] = d[u] * 2;
    out[t] = d[0] + d[7];
  }
}
""")
    import arraypart
    report = arraypart.analyze(str(src))
    d = next(a for a in report.solution.arrays if a.array.name == "d")
    assert d.banking.scheme.registers and d.conflict_free
    assert d.lower_bound == 8 and d.banking.scheme.banks == 8
    from arraypart import check
    bankings = report.solution.bankings()
    for rule in (False, True):
        checked = check.check_kernel(report.kernel, bankings, ports=2, rule=rule)
        assert [lp.achieved_ii for lp in checked.loops] == [1]


def test_an_array_whose_share_of_the_time_ran_out_is_banked_again(monkeypatch):
    """Each array gets an equal share of the time left; one that needs more (an array
    read by 600 loops, first in line, had 1/602 of the limit) was reported as the
    time limit reached although most of it was left (the issue-13 audit).  It is
    banked again with what the others left."""
    first_tries: set[str] = set()
    solve_within_time = driver._solve_within_time

    def share_ran_out_once(am, options):
        if am.array.name not in first_tries:
            first_tries.add(am.array.name)
            return time_limited(am, options, 0.0)
        return solve_within_time(am, options)

    monkeypatch.setattr(driver, "_solve_within_time", share_ran_out_once)
    solution, sol = solve_one(stencil_model(STENCILS["DENOISE"][0]))
    assert not solution.time_limited and not sol.time_limited
    assert sol.conflict_free and sol.banking.scheme.banks == 4
