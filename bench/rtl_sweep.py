"""Sweep of yosys syntheses of banked memories, and the fit of arraypart's cost model.

    python bench/rtl_sweep.py run [--points 160] [--jobs 2] [--out bench/rtl_sweep.jsonl]
    python bench/rtl_sweep.py run --registers --points 40
    python bench/rtl_sweep.py run --buffers --points 24
    python bench/rtl_sweep.py fit [--data bench/rtl_sweep.jsonl]

``run`` draws design points (seeded): array shapes (1-D, 2-D, 3-D, powers of two and
not), schemes (per_dim cyclic/block, flat with N, B, alpha), window-shaped lanes (up to
16, optionally one written, optionally strided like unrolled lanes), port models and
element widths (``--registers``: small arrays whose banks hold fewer words than one LUT
RAM, so they are built of flip-flops, filled by a loop of their own and then read and
written by the window's lanes; ``--buffers``: a kernel's local buffer of registers,
filled by one loop, read and updated by a loop unrolled U times, copied out by a
third); builds each
memory's RTL (``arraypart.rtl``), synthesizes it with yosys
(cached, so a rerun only synthesizes new points) and appends one JSON line per point.

``fit`` computes every point's features (``arraypart.rtl.cost.features``), fits the
LUT and FF coefficients by non-negative least squares on a seeded 75% of the points,
prints the median relative error on the held-out 25% (and BRAM18K's exact-match rate).
The shipped coefficients are fitted to these points and the suite's syntheses together
(``bench/suite_synth.py fit --write``, which keeps this split).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arraypart.rtl import cost  # noqa: E402
from arraypart.rtl.model import stencil_memory  # noqa: E402
from arraypart.rtl.synth import synthesize_many  # noqa: E402
from arraypart.scheme import (Banking, DimPartition, flat_scheme,  # noqa: E402
                              none_scheme, per_dim_scheme)

SEED = 2026
SHAPES = {1: [(256,), (1000,), (4096,)],
          2: [(32, 32), (64, 64), (48, 100), (128, 64), (20, 30)],
          3: [(16, 16, 16), (8, 12, 20)]}
PORTS = ["ram_1p", "ram_t2p", "ram_t2p", "ram_s2p", "ram_2p", "rom_2p"]
WIDTHS = [8, 16, 32]
MAX_LANES = 16
MAX_BANKS = 16
#: Shapes of the register regime (``--registers``).
SMALL_SHAPES = {1: [(16,), (48,), (120,)], 2: [(8, 8), (6, 10), (16, 12)], 3: [(4, 4, 4)]}
#: Buffer lengths, unroll factors and port models of the buffer regime (``--buffers``).
BUFFER_LENGTHS = [24, 40, 48, 64, 96, 120]
BUFFER_UNROLL = [2, 3, 4, 5, 6]
BUFFER_PORTS = ["ram_t2p", "ram_t2p", "ram_2p", "ram_s2p", "ram_1p"]
HOLD_OUT = 0.25
DATA = ROOT / "bench" / "rtl_sweep.jsonl"
#: Points per yosys run: the cell library is read once per run.
BATCH = 6


def draw(rng: np.random.Generator, registers: bool = False) -> dict:
    """One design point as plain data; with ``registers``, one whose banks are built of
    flip-flops (fewer words than ``LUTRAM_MIN_DEPTH``), filled first (``fill``), and
    written by up to two of the window's lanes."""
    while True:
        point = _draw(rng, SMALL_SHAPES if registers else SHAPES)
        if not registers:
            return point
        if build(point).ram_style == "registers" and not point["ports"].startswith("rom"):
            point["writes"] = int(rng.choice([0, 1, 2]))
            point["fill"] = True
            return point


def draw_buffer(rng: np.random.Generator) -> dict:
    """One point of the buffer regime, the suite's register arrays (atax ``y_buf``,
    jacobi_1d ``a_buf``): a 1-D buffer of N words filled one a cycle (``fill``), read by
    a loop unrolled U times at ``U*i + o`` for a window of K >= U offsets, its first U
    lanes written back half the time (``y[j] += ...``), and read out one a cycle
    (``drain``); cyclic F banks with F = U (static lanes), U + 1 or K (lanes that reach
    every bank), kept only where a bank holds fewer words than one LUT RAM."""
    while True:
        n = int(rng.choice(BUFFER_LENGTHS))
        u = int(rng.choice(BUFFER_UNROLL))
        k = u + int(rng.choice([0, 0, 2]))
        f = int(rng.choice([u, u, u + 1, k]))
        rmw = bool(rng.random() < 0.5)
        offsets = ([[o] for o in range(u)] if rmw else []) + [[o] for o in range(k)]
        point = {"shape": [n], "scheme": {"kind": "per_dim", "dims": [["cyclic", f]]},
                 "ports": str(rng.choice(BUFFER_PORTS)), "elem_bits": int(rng.choice([16, 32])),
                 "offsets": offsets, "writes": u if rmw else 0, "steps": [u],
                 "fill": True, "drain": True}
        if build(point).ram_style == "registers":
            return point


def _draw(rng: np.random.Generator, shapes: dict) -> dict:
    ndim = int(rng.choice([1, 2, 2, 2, 3]))
    shape = shapes[ndim][int(rng.integers(len(shapes[ndim])))]
    extent = [int(rng.integers(1, {1: 9, 2: 5, 3: 3}[ndim])) for _ in shape]
    window = [tuple(int(v) for v in o) for o in np.ndindex(*extent)]
    if len(window) > 2 and rng.random() < 0.3:
        keep = rng.choice(len(window), size=int(rng.integers(2, len(window))), replace=False)
        window = [window[i] for i in sorted(keep)]
    window = window[:MAX_LANES]
    ports = PORTS[int(rng.integers(len(PORTS)))]
    writes = 0 if ports.startswith("rom") or rng.random() < 0.5 else 1
    steps = [1] * ndim
    if rng.random() < 0.2:
        steps[-1] = int(rng.choice([2, 4]))
    kind = rng.choice(["none", "per_dim", "per_dim", "flat", "flat"])
    if kind == "per_dim":
        dims = []
        budget = MAX_BANKS
        for n in shape:
            f = int(rng.integers(1, min(budget, n) + 1))
            t = "none" if f == 1 else str(rng.choice(["cyclic", "cyclic", "block"]))
            dims.append((t, f))
            budget //= max(f, 1)
        scheme = {"kind": "per_dim", "dims": dims}
    elif kind == "flat":
        n = int(rng.integers(2, MAX_BANKS + 1))
        alpha = [int(rng.integers(0, n)) for _ in shape]
        alpha[-1] = max(alpha[-1], 1)
        scheme = {"kind": "flat", "banks": n, "block": int(rng.choice([1, 1, 2, 4])),
                  "alpha": alpha}
    else:
        scheme = {"kind": "none"}
    return {"shape": list(shape), "scheme": scheme, "ports": ports,
            "elem_bits": int(rng.choice(WIDTHS)), "offsets": window, "writes": writes,
            "steps": steps}


def build(point: dict):
    shape = tuple(point["shape"])
    s = point["scheme"]
    if s["kind"] == "per_dim":
        scheme = per_dim_scheme(shape, tuple(DimPartition(t, f) for t, f in s["dims"]))
    elif s["kind"] == "flat":
        scheme = flat_scheme(shape, tuple(s["alpha"]), s["banks"], s["block"])
    else:
        scheme = none_scheme(shape)
    return stencil_memory("sweep", shape, Banking("sweep", scheme), point["ports"],
                          point["elem_bits"], tuple(tuple(o) for o in point["offsets"]),
                          writes=point["writes"], steps=tuple(point["steps"]),
                          fill=point.get("fill", False), drain=point.get("drain", False))


def _synth(batch: list[dict]) -> list[dict]:
    """Synthesize a batch of points in one yosys run (one point alone on failure)."""
    start = time.perf_counter()
    try:
        results = [r.to_json() for r in synthesize_many([build(p) for p in batch])]
    except Exception:  # noqa: BLE001 - a failed point is recorded, not fatal
        results = []
        for p in batch:
            try:
                results.append(synthesize_many([build(p)])[0].to_json())
            except Exception as error:  # noqa: BLE001
                results.append({"error": f"{type(error).__name__}: {error}"[:300]})
    seconds = round((time.perf_counter() - start) / len(batch), 2)
    return [{**p, "measured": r, "seconds": seconds} for p, r in zip(batch, results)]


def run(points: int, jobs: int, out: Path, registers: bool = False,
        buffers: bool = False) -> None:
    rng = np.random.default_rng([SEED, 2] if buffers else [SEED, 1] if registers else SEED)
    todo = []
    seen = set()
    while len(todo) < points:
        p = draw_buffer(rng) if buffers else draw(rng, registers)
        key = json.dumps(p, sort_keys=True)
        if key not in seen:
            seen.add(key)
            todo.append(p)
    rng.shuffle(todo)
    done = set()
    if out.exists():
        done = {json.dumps({k: v for k, v in json.loads(line).items()
                            if k not in ("measured", "seconds")}, sort_keys=True)
                for line in out.read_text().splitlines() if line.strip()}
    todo = [p for p in todo if json.dumps(p, sort_keys=True) not in done]
    print(f"{len(todo)} points to synthesize", flush=True)
    batches = [todo[i:i + BATCH] for i in range(0, len(todo), BATCH)]
    with ProcessPoolExecutor(jobs) as pool, out.open("a") as sink:
        for rows in pool.map(_synth, batches):
            for row in rows:
                sink.write(json.dumps(row) + "\n")
                print(row["measured"], row["seconds"], flush=True)
            sink.flush()


def fit(data: Path) -> None:
    rows = [json.loads(line) for line in data.read_text().splitlines() if line.strip()]
    rows = [r for r in rows if "error" not in r["measured"]]
    mems = [build(r) for r in rows]
    feats = np.array([cost.feature_vector(m) for m in mems], dtype=float)
    registers = np.array([m.ram_style == "registers" for m in mems])
    lut = np.array([r["measured"]["lut"] for r in rows], dtype=float)
    ff = np.array([r["measured"]["ff"] for r in rows], dtype=float)
    bram = np.array([r["measured"]["bram18k"] for r in rows])
    rng = np.random.default_rng(SEED)
    test = rng.random(len(rows)) < HOLD_OUT
    report = {}
    regimes = {}
    for name, y in (("lut", lut), ("ff", ff)):
        c = cost.nnls(feats[~test], y[~test])
        pred = feats @ c
        rel = np.abs(pred - y) / np.maximum(y, 1)
        report[name] = {"median_rel_error_heldout": round(float(np.median(rel[test])), 4),
                        "median_rel_error_train": round(float(np.median(rel[~test])), 4),
                        "p90_rel_error_heldout": round(float(np.percentile(rel[test], 90)), 4)}
        for regime, mask in (("memory", ~registers), ("registers", registers)):
            regimes.setdefault(regime, {"heldout": int((test & mask).sum())})[
                f"{name}_median_rel_error_heldout"] = round(float(np.median(rel[test & mask])), 4)
    bram_est = np.array([cost.bram18k(m) for m in mems])
    report["bram18k_exact"] = round(float(np.mean(bram_est == bram)), 4)
    report["points"] = {"train": int((~test).sum()), "heldout": int(test.sum())}
    report["by_regime"] = regimes
    print(json.dumps(report, indent=2))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("run")
    p.add_argument("--points", type=int, default=160)
    p.add_argument("--registers", action="store_true",
                   help="draw from the register regime (small banks, written lanes)")
    p.add_argument("--buffers", action="store_true",
                   help="draw from the buffer regime (filled, updated, drained registers)")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--out", type=Path, default=DATA)
    p = sub.add_parser("fit")
    p.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args()
    if args.command == "run":
        run(args.points, args.jobs, args.out, args.registers, args.buffers)
    else:
        fit(args.data)


if __name__ == "__main__":
    main()
