"""Throughput of the cycle-level checker: checked accesses per second.

The kernel is a 1024 x 1024 five-point stencil (a pipelined loop over j inside a loop
over i, reading buf[i][j], buf[i-1][j], buf[i+1][j], buf[i][j-1], buf[i][j+1]), built
directly as IR so the front end's time is not measured.  Each scheme is checked
``--runs`` times; the median wall time gives accesses/s.

    python bench/check_throughput.py [--size 1024] [--runs 5]
"""

from __future__ import annotations

import argparse
import statistics
import time

from arraypart import expr as E
from arraypart import ir
from arraypart.check import check_kernel
from arraypart.errors import Coord
from arraypart.scheme import Banking, DimPartition, flat_scheme, none_scheme, per_dim_scheme

FILE = "stencil5.c"
OFFSETS = ((0, 0), (-1, 0), (1, 0), (0, -1), (0, 1))
# The throughput the checker must reach on the 2-core reference machine.
TARGET_ACCESSES_PER_SECOND = 5_000_000


def stencil_kernel(n: int) -> ir.Kernel:
    reads = tuple(ir.Access("buf", (E.affine({"i": 1}, di), E.affine({"j": 1}, dj)),
                            "read", k, Coord(FILE, 7, 10 + 12 * k))
                  for k, (di, dj) in enumerate(OFFSETS))
    body = (ir.Stmt(reads, Coord(FILE, 7, 3)),)
    inner = ir.Loop("j", (E.const(1),), (E.const(n - 2),), 1, body, "col",
                    Coord(FILE, 6, 5), pipeline_ii=1)
    outer = ir.Loop("i", (E.const(1),), (E.const(n - 2),), 1, (inner,), "row",
                    Coord(FILE, 5, 3))
    buf = ir.Array("buf", (n, n), "float", 32, False, Coord(FILE, 3, 5))
    return ir.Kernel("stencil5", "stencil5", FILE, (buf,), (outer,), Coord(FILE, 1, 1))


def schemes(n: int) -> dict[str, Banking]:
    shape = (n, n)
    return {
        "none": Banking("buf", none_scheme(shape)),
        "cyclic 2 x cyclic 2": Banking("buf", per_dim_scheme(
            shape, (DimPartition("cyclic", 2), DimPartition("cyclic", 2)))),
        "flat alpha=(1,2) N=5": Banking("buf", flat_scheme(shape, (1, 2), 5)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1024)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    kernel = stencil_kernel(args.size)
    for name, banking in schemes(args.size).items():
        times = []
        for _ in range(args.runs):
            start = time.perf_counter()
            report = check_kernel(kernel, {"buf": banking}, ports=2)
            times.append(time.perf_counter() - start)
        median = statistics.median(times)
        rate = report.accesses_checked / median
        verdict = "meets" if rate >= TARGET_ACCESSES_PER_SECOND else "MISSES"
        print(f"{name:22s} achieved II {report.loops[0].achieved_ii}: "
              f"{report.accesses_checked} accesses in {median:.3f} s (median of "
              f"{args.runs}) = {rate / 1e6:.2f} M accesses/s ({verdict} the "
              f"{TARGET_ACCESSES_PER_SECOND / 1e6:.0f} M/s target)")


if __name__ == "__main__":
    main()
