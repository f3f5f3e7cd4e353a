"""Where ``arraypart compile`` spends its time on the suite kernels.

Each kernel (``kernels/*.c``, ``*.cpp``, or those named) is compiled ``--runs`` times
in this process (after one warm-up compile: imports, libclang) and its median wall and
CPU seconds are printed; then one more pass over them runs under cProfile and the
functions with the most cumulative time are printed.  Nothing is written.

    python bench/profile_compile.py [--runs 3] [--top 40] [--stats FILE] [KERNEL ...]
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import statistics
import time
from pathlib import Path

from arraypart import api

KERNELS = Path(__file__).resolve().parent.parent / "kernels"


def _seconds(kernel: Path, runs: int) -> tuple[float, float]:
    """The median wall and CPU seconds of ``runs`` compiles of ``kernel``."""
    wall, cpu = [], []
    for _ in range(runs):
        started, used = time.perf_counter(), time.process_time()
        api.compile_kernel(kernel)
        wall.append(time.perf_counter() - started)
        cpu.append(time.process_time() - used)
    return statistics.median(wall), statistics.median(cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kernels", nargs="*", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--stats", help="also write the profile (pstats) here")
    args = parser.parse_args()
    kernels = args.kernels or sorted(p for p in KERNELS.iterdir()
                                     if p.suffix in (".c", ".cpp"))
    api.compile_kernel(kernels[0])
    totals = [0.0, 0.0]
    for kernel in kernels:
        wall, cpu = _seconds(kernel, args.runs)
        totals = [totals[0] + wall, totals[1] + cpu]
        print(f"{kernel.stem:20s} {wall:8.3f} s wall {cpu:8.3f} s CPU", flush=True)
    print(f"{'total':20s} {totals[0]:8.3f} s wall {totals[1]:8.3f} s CPU")
    profile = cProfile.Profile()
    profile.enable()
    for kernel in kernels:
        api.compile_kernel(kernel)
    profile.disable()
    if args.stats:
        profile.dump_stats(args.stats)
    pstats.Stats(profile).sort_stats("cumulative").print_stats(args.top)


if __name__ == "__main__":
    main()
