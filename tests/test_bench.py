"""``arraypart bench`` on a few kernels: the JSON's structure and every row's status."""

import json

import pytest

from arraypart import cli
from arraypart.banking.baselines import BASELINES

from conftest import ROOT, bench_module

# The suite kernels' analyses, made once per test process (nothing here patches them).
pytestmark = pytest.mark.usefixtures("analyses_shared")

METHOD_KEYS = {"banks", "copies", "conflict_free", "storage_overhead", "bram18k", "seconds",
               "lut", "ff", "rtl_bram18k", "resources_source"}
KERNELS = ["denoise.c", "bicubic.c", "transpose.c", "syr2k.c"]


def test_bench_json_rows_and_totals(tmp_path, capsys):
    out = tmp_path / "bench.json"
    code = cli.main(["bench", *[str(ROOT / "kernels" / k) for k in KERNELS], "--json", str(out)])
    capsys.readouterr()
    assert code == 0
    data = json.loads(out.read_text())
    rows, totals = data["rows"], data["totals"]
    assert {r["kernel"] for r in rows} == {k[:-2] for k in KERNELS}
    for row in rows:
        assert {"kernel", "array", "lower_bound", "arraypart", *BASELINES} <= row.keys()
        for method in ("arraypart", *BASELINES):
            assert METHOD_KEYS <= row[method].keys()
        ours = row["arraypart"]
        assert ours["conflict_free"] is True
        assert ours["banks"] * ours["copies"] >= row["lower_bound"]
        for method in BASELINES:
            theirs = row[method]
            if theirs["conflict_free"] and theirs["rule_ii"] <= ours["rule_ii"]:
                # ranked by hardware: never more BRAM18K, and at equal BRAM18K no more
                # LUTs, than a baseline that keeps the II; an interface array's banks
                # (its ports) first
                ports = [r["banks"] * r["copies"] if row["interface"] else 0
                         for r in (ours, theirs)]
                assert (ports[0], ours["rtl_bram18k"], ours["lut"]) <= (
                    ports[1], theirs["rtl_bram18k"], theirs["lut"]), (row, method)
    stencil = next(r for r in rows if r["kernel"] == "denoise" and r["array"] == "buf")
    assert stencil["arraypart"]["banks"] == 4 and stencil["ltb"]["banks"] == 5
    assert stencil["vitis_manual"]["banks"] == 9
    assert totals["arraypart_conflict_free"] and totals["checker_disagrees"] == []
    assert totals["worse_than_a_conflict_free_baseline"] == []
    assert totals["rtl_bram18k_above_a_baseline_at_the_same_ii"] == []
    assert totals["kernels"] == len(KERNELS) and totals["arrays"] == len(rows)
    assert stencil["arraypart"]["resources_source"] == "model"
    assert stencil["arraypart"]["lut"] > 0 and stencil["vitis_manual"]["lut"] > 0
    same = totals["resources_vs_vitis_manual"]
    assert same["arrays"] >= 1 and set(same["lut"]) == {"arraypart", "vitis_manual", "fewer"}
    assert totals["arraypart"]["lut"] == sum(r["arraypart"]["lut"] for r in rows)


def test_same_ii_script_compares_with_the_per_dim_search(tmp_path):
    """``bench/same_ii.py`` on DENOISE: arraypart's 4 flat banks and the per-dimension
    search's 9 (3 x 3 cyclic) reach II 1 alike; the totals count the array and the
    flat banking's lower LUT and BRAM18K."""
    same_ii = bench_module("same_ii")
    rows = same_ii.array_costs(ROOT / "kernels" / "denoise.c", ports=1)
    buf = next(r for r in rows if r["array"] == "buf")
    assert (buf["ours"]["banks"], buf["per_dim"]["banks"]) == (4, 9)
    assert buf["ours"]["ii"] == buf["per_dim"]["ii"] == 1
    summary = same_ii.totals(rows)
    assert summary["same_ii"] == len(rows)
    assert summary["lut"]["ours"] < summary["lut"]["per_dim"]
    assert summary["bram18k"]["ours"] < summary["bram18k"]["per_dim"]
