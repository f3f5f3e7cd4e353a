"""Memory logic against the cheapest per-dimension partition at the same II.

``arraypart bench`` compares arraypart with ``vitis_manual`` (the cyclic factors a user
writes by hand) only on the arrays where both reach the same II; on the others the hand
partition misses the II and is cheaper for it.  Here the per-dimension baseline is the
strongest one: arraypart's own search restricted to Vitis-expressible schemes
(``--schemes vitis``), which reaches the targets wherever a per-dimension partition can.
For every suite array both bankings go through the same RTL model (fitted LUT/FF/BRAM18K,
``rtl.estimate``); an array counts when both are conflict-free at one II under the
scheduling rule.

    python bench/same_ii.py [--ports 2] [--json FILE] [KERNEL.c ...]

Prints the arrays whose costs differ and the totals, ``fewer = 1 - ours / per_dim``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from arraypart import api, rtl

ROOT = Path(__file__).resolve().parent.parent


def array_costs(path: Path, ports: int) -> list[dict]:
    """Per array of ``path``: II, banks x copies, LUT, FF and BRAM18K of arraypart's
    banking (``ours``) and of the per-dimension search's (``per_dim``)."""
    reports = {"ours": api.analyze(path, ports=ports),
               "per_dim": api.analyze(path, ports=ports, schemes="vitis")}
    rows: dict[str, dict] = {}
    for method, report in reports.items():
        iis = {loop.name: report.loop_achieved_ii(n, loop.name, loop.target_ii)
               for n, loop in enumerate(report.model.loops)}
        for sol in report.solution.arrays:
            model = report.model.array(sol.array.name)
            if not model.groups:
                continue
            cost = rtl.estimate(sol.banking, model)
            rows.setdefault(sol.array.name, {"kernel": path.stem, "array": sol.array.name})[
                method] = {"ii": max(iis.get(g.loop, 1) for g in model.groups),
                           "conflict_free": sol.conflict_free,
                           "banks": sol.banking.scheme.banks * sol.banking.copies,
                           "lut": cost.lut, "ff": cost.ff, "bram18k": cost.bram18k}
    return list(rows.values())


def totals(rows: list[dict]) -> dict:
    same = [r for r in rows if r["ours"]["ii"] == r["per_dim"]["ii"]
            and r["ours"]["conflict_free"] and r["per_dim"]["conflict_free"]]
    out: dict = {"arrays": len(rows), "same_ii": len(same)}
    for key in ("lut", "ff", "bram18k"):
        ours = sum(r["ours"][key] for r in same)
        theirs = sum(r["per_dim"][key] for r in same)
        out[key] = {"ours": ours, "per_dim": theirs,
                    "fewer": round(1 - ours / theirs, 4) if theirs else 0.0}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kernels", nargs="*", type=Path)
    parser.add_argument("--ports", type=int, default=2, choices=(1, 2))
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    paths = args.kernels or sorted((ROOT / "kernels").glob("*.c"))
    rows = [row for path in paths for row in array_costs(path, args.ports)]
    for r in rows:
        ours, theirs = r["ours"], r["per_dim"]
        if (ours["ii"], ours["lut"], ours["bram18k"]) != (theirs["ii"], theirs["lut"],
                                                          theirs["bram18k"]):
            print(f"{r['kernel']}/{r['array']}: II {ours['ii']} vs {theirs['ii']}, "
                  f"banks {ours['banks']} vs {theirs['banks']}, LUT {ours['lut']} vs "
                  f"{theirs['lut']}, BRAM18K {ours['bram18k']} vs {theirs['bram18k']}")
    summary = totals(rows)
    print(json.dumps(summary))
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "totals": summary}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
