"""``arraypart bench`` on a few kernels: the JSON's structure and every row's status."""

import json

from arraypart import cli
from arraypart.banking.baselines import BASELINES

from conftest import ROOT

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
                # LUTs, than a baseline that keeps the II
                assert (ours["rtl_bram18k"], ours["lut"]) <= (theirs["rtl_bram18k"],
                                                            theirs["lut"]), (row, method)
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
