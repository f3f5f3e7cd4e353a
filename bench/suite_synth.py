"""yosys against the cost model on the suite's arrays, and the fit of the model to both.

    python bench/suite_synth.py run [--shared 24] [--jobs 2] [--out bench/suite_synth.jsonl]
    python bench/suite_synth.py fit [--write]
    python bench/suite_synth.py report

``run`` banks every suite kernel (``arraypart bench``'s rows: arraypart and
``vitis_manual``, the per-dimension partition users write by hand), keeps the arrays
where both are conflict-free at the same II under the scheduling rule (the set the
bench's ``resources_vs_vitis_manual`` sums over), and synthesizes with yosys every
array whose two bankings differ (both memories) and ``--shared`` of the arrays where
they are the same (one memory, evenly spaced over the model's LUTs); one JSON line per
memory, appended (a rerun synthesizes only what is new; yosys results are cached).

``fit`` refits the LUT and FF coefficients (``arraypart.rtl.cost.nnls``) on the
synthetic sweep (``bench/rtl_sweep.jsonl``, its own held-out 25%) and the suite's
memories (a seeded 25% of the kernels held out), prints the median relative error of
the shipped and the refitted model on each held-out set, and with ``--write`` ships the
coefficients (``arraypart/rtl/cost_model.json``).

``report`` prints, over the synthesized same-II arrays, yosys' and the model's LUTs of
arraypart and vitis_manual and the reduction ``1 - arraypart / vitis_manual``, and the
per-memory model error.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from functools import lru_cache
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import rtl_sweep  # noqa: E402

from arraypart import api, bench, rtl  # noqa: E402
from arraypart.banking.baselines import BASELINES  # noqa: E402
from arraypart.rtl import cost, synth  # noqa: E402

REFERENCE = "vitis_manual"
METHODS = ("arraypart", REFERENCE)
DATA = ROOT / "bench" / "suite_synth.jsonl"
#: Memories per yosys run (the cell library is read once per run).
BATCH = 4
#: Share of the suite's kernels held out of the fit (by a hash of the name).
HOLD_OUT = 0.25
PORTS = 2


def held_out(kernel: str) -> bool:
    """Whether ``kernel``'s memories are held out of the fit (a fixed hash, so the
    split does not move when kernels are added)."""
    digest = hashlib.sha256(kernel.encode()).digest()
    return digest[0] < 256 * HOLD_OUT


@lru_cache(maxsize=None)
def bankings(kernel: str) -> dict:
    """(array, method) -> (array model, banking) of one suite kernel."""
    report = api.analyze(ROOT / "kernels" / f"{kernel}.c", ports=PORTS)
    out = {}
    for sol in report.solution.arrays:
        model = report.model.array(sol.array.name)
        if model.groups:
            out[sol.array.name, "arraypart"] = (model, sol.banking)
            out[sol.array.name, REFERENCE] = (model, BASELINES[REFERENCE](model))
    return out


def same_ii_rows() -> list[bench.Row]:
    """The bench's rows of the suite where arraypart and vitis_manual are both
    conflict-free at one II under the scheduling rule."""
    rows = []
    for path in sorted((ROOT / "kernels").glob("*.c")):
        for row in bench.bench_kernel(path, ports=PORTS).rows:
            ours, theirs = row.methods["arraypart"], row.methods[REFERENCE]
            if ours.conflict_free and theirs.conflict_free and ours.rule_ii == theirs.rule_ii:
                rows.append(row)
    return rows


def _same(row: bench.Row) -> bool:
    ours, theirs = (bankings(row.kernel)[row.array, m][1] for m in METHODS)
    return ours == theirs


def chosen(rows: list[bench.Row], shared: int) -> list[tuple[str, str, str]]:
    """(kernel, array, method) to synthesize: both methods where the bankings differ,
    ``both`` for ``shared`` arrays of one banking, evenly spaced over the model's LUTs."""
    differ = [(r.kernel, r.array, m) for r in rows if not _same(r) for m in METHODS]
    same = sorted((r for r in rows if _same(r)), key=lambda r: r.methods["arraypart"].lut)
    picks = sorted(set(np.linspace(0, len(same) - 1, min(shared, len(same))).round()
                       .astype(int).tolist())) if same else []
    return differ + [(same[i].kernel, same[i].array, "both") for i in picks]


def run(shared: int, out: Path, jobs: int) -> None:
    """Synthesize what :func:`chosen` picks and ``out`` lacks, cheapest arrays first
    (by the model's LUTs), in batches over ``jobs`` processes."""
    rows = same_ii_rows()
    done = set()
    if out.exists():
        done = {(d["kernel"], d["array"], d["method"]) for d in map(json.loads,
                                                                   out.read_text().splitlines())}
    size = {(r.kernel, r.array): max(res.lut for res in r.methods.values()) for r in rows}
    todo = sorted((key for key in chosen(rows, shared) if key not in done),
                  key=lambda key: size[key[:2]])
    print(f"{len(rows)} arrays at the same II; {len(todo)} memories to synthesize", flush=True)
    mems = [rtl.memory(*bankings(k)[a, "arraypart" if m == "both" else m]) for k, a, m in todo]
    batches = [list(range(i, min(i + BATCH, len(todo)))) for i in range(0, len(todo), BATCH)]
    with ProcessPoolExecutor(jobs) as pool, out.open("a") as sink:
        for batch, (measured, seconds) in zip(batches, pool.map(
                _synthesize, [[synth.design(mems[i]) for i in b] for b in batches])):
            for i, found in zip(batch, measured):
                (k, a, m), mem = todo[i], mems[i]
                line = {"kernel": k, "array": a, "method": m,
                        "scheme": mem.banking.scheme.describe(), "copies": mem.copies,
                        "measured": found.to_json(), "seconds": seconds}
                sink.write(json.dumps(line) + "\n")
                print(k, a, m, found.lut, found.ff, found.bram18k, seconds, flush=True)
            sink.flush()


def _synthesize(designs: list) -> tuple[list, float]:
    """yosys' counts of ``designs`` (one run) and the CPU seconds per design."""
    begin = time.process_time() + os.times().children_user
    found = synth.synthesize_designs(designs)
    spent = time.process_time() + os.times().children_user - begin
    return found, round(spent / len(designs), 2)


def suite_points(data: Path) -> list[dict]:
    """The recorded memories whose banking is still the one the suite gives (a method's
    banking may change with the model: such lines are stale until ``run`` again)."""
    points = []
    for d in map(json.loads, data.read_text().splitlines()):
        found = bankings(d["kernel"]).get((d["array"], "arraypart" if d["method"] == "both"
                                           else d["method"]))
        if found is None:
            continue
        model, banking = found
        if banking.scheme.describe() != d["scheme"] or banking.copies != d["copies"]:
            continue
        points.append({**d, "features": cost.feature_vector(rtl.memory(model, banking))})
    return points


def _sweep_points() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Features, LUTs, FFs and held-out flags of ``bench/rtl_sweep.jsonl`` (its split)."""
    rows = [json.loads(line) for line in rtl_sweep.DATA.read_text().splitlines()
            if line.strip()]
    rows = [r for r in rows if "error" not in r["measured"]]
    feats = np.array([cost.feature_vector(rtl_sweep.build(r)) for r in rows], dtype=float)
    lut = np.array([r["measured"]["lut"] for r in rows], dtype=float)
    ff = np.array([r["measured"]["ff"] for r in rows], dtype=float)
    test = np.random.default_rng(rtl_sweep.SEED).random(len(rows)) < rtl_sweep.HOLD_OUT
    return feats, lut, ff, test


def _errors(pred: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.abs(pred - y) / np.maximum(y, 1)


def _summary(rel: np.ndarray) -> dict:
    if not len(rel):
        return {"points": 0}
    return {"points": int(len(rel)), "median_rel_error": round(float(np.median(rel)), 4),
            "p90_rel_error": round(float(np.percentile(rel, 90)), 4)}


def fit(data: Path, write: bool) -> None:
    sf, slut, sff, stest = _sweep_points()
    points = suite_points(data)
    uf = np.array([p["features"] for p in points], dtype=float)
    ulut = np.array([p["measured"]["lut"] for p in points], dtype=float)
    uff = np.array([p["measured"]["ff"] for p in points], dtype=float)
    utest = np.array([held_out(p["kernel"]) for p in points])
    feats = np.vstack([sf, uf])
    test = np.concatenate([stest, utest])
    suite = np.concatenate([np.zeros(len(sf), bool), np.ones(len(uf), bool)])
    shipped = cost._coefficients()
    report: dict = {"points": {"sweep": {"train": int((~stest).sum()), "heldout": int(stest.sum())},
                               "suite": {"train": int((~utest).sum()),
                                         "heldout": int(utest.sum())}}}
    coef = {}
    for name, y in (("lut", np.concatenate([slut, ulut])), ("ff", np.concatenate([sff, uff]))):
        c = cost.nnls(feats[~test], y[~test])
        coef[name] = [round(float(v), 6) for v in c]
        for label, vector in (("shipped", shipped[name]), ("refit", c)):
            rel = _errors(feats @ vector, y)
            report.setdefault(name, {})[label] = {
                "heldout": _summary(rel[test]), "train": _summary(rel[~test]),
                "suite_heldout": _summary(rel[test & suite]),
                "sweep_heldout": _summary(rel[test & ~suite]),
                "suite_all": _summary(rel[suite])}
    print(json.dumps(report, indent=2))
    if write:
        model = json.loads(cost.MODEL_PATH.read_text())
        model.update({"lut": coef["lut"], "ff": coef["ff"],
                      "fit": {"lut": report["lut"]["refit"], "ff": report["ff"]["refit"],
                              "points": report["points"],
                              "data": ["bench/rtl_sweep.jsonl", "bench/suite_synth.jsonl"],
                              "script": "bench/suite_synth.py fit --write"}})
        cost.MODEL_PATH.write_text(json.dumps(model, indent=2) + "\n")
        print(f"wrote {cost.MODEL_PATH}")


def report(data: Path) -> None:
    """yosys' and the model's LUTs of both methods over the synthesized same-II arrays."""
    points = suite_points(data)
    by_array: dict[tuple[str, str], dict[str, dict]] = {}
    for p in points:
        for m in (METHODS if p["method"] == "both" else (p["method"],)):
            model = rtl.estimate(bankings(p["kernel"])[p["array"], m][1],
                                 bankings(p["kernel"])[p["array"], m][0])
            by_array.setdefault((p["kernel"], p["array"]), {})[m] = {
                "yosys": p["measured"]["lut"], "model": model.lut}
    complete = {key: v for key, v in by_array.items() if len(v) == 2}
    out: dict = {"arrays": len(complete),
                 "arrays_with_different_bankings": sum(
                     1 for p in points if p["method"] == "arraypart")}
    for source in ("yosys", "model"):
        ours = sum(v["arraypart"][source] for v in complete.values())
        theirs = sum(v[REFERENCE][source] for v in complete.values())
        out[source] = {"arraypart": ours, REFERENCE: theirs,
                       "fewer": round(1 - ours / theirs, 4) if theirs else 0.0}
    rel = [abs(p["model"] - p["yosys"]) / max(p["yosys"], 1)
           for v in complete.values() for p in v.values()]
    out["model_median_rel_error"] = round(float(np.median(rel)), 4) if rel else None
    for (k, a), v in sorted(complete.items()):
        print(f"{k}/{a}: " + ", ".join(f"{m} yosys {v[m]['yosys']} model {v[m]['model']}"
                                      for m in METHODS))
    print(json.dumps(out, indent=2))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("run")
    p.add_argument("--shared", type=int, default=24,
                   help="arrays of one banking to synthesize (evenly spaced by LUTs)")
    p.add_argument("--out", type=Path, default=DATA)
    p.add_argument("--jobs", type=int, default=2)
    p = sub.add_parser("fit")
    p.add_argument("--data", type=Path, default=DATA)
    p.add_argument("--write", action="store_true")
    p = sub.add_parser("report")
    p.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args()
    if args.command == "run":
        run(args.shared, args.out, args.jobs)
    elif args.command == "fit":
        fit(args.data, args.write)
    else:
        report(args.data)


if __name__ == "__main__":
    main()
