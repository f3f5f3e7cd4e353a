"""Solve time against size for the kernel shapes that stress the banking search.

Each family is a generator of C kernels (one array ``buf`` or ``w`` whose banking is
timed); for every size the kernel is analyzed ``--runs`` times and the median solve
time of the whole kernel (every array, ``Solution.seconds``) is printed with the
lower bound and the banks x copies found for the timed array.

    python bench/scaling.py [--runs 3] [--time-limit 30] [--family window ...]
        [--max-banks N] [--json FILE]

Families (issue 14):
- ``window``   k x k window ``buf[i+a][j+b]`` on ``ram_1p`` (a, b unrolled, j pipelined)
- ``matmul``   U x U output tile ``c[i+ii][j+jj] += a[i+ii][k] * b[k][j+jj]`` (k pipelined);
               the timed array is ``c`` (U*U reads and U*U writes per cycle)
- ``weight4d`` ``w[16][3][3][16]`` read as ``w[o+a][kh][kw][c+u]``, a, u < L unrolled
               (L = 2: 36 reads per cycle), on ``ram_1p``
- ``ndlanes``  a D-dimensional array read with two lanes per dimension (2^D reads) on
               ``ram_1p``
- ``lanes``    L overlapping lanes ``buf[i+u]``, u < L, i pipelined (dual-port banks)
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from itertools import product
from pathlib import Path

import arraypart
from arraypart.errors import KernelError


def window(k: int) -> tuple[str, str]:
    n = 64
    return "buf", f"""
#define N {n}
#define K {k}
void window(float in[N][N], float out[N][N]) {{
  float buf[N][N];
#pragma HLS bind_storage variable=buf type=ram_1p
  for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) {{
#pragma HLS pipeline II=1
    buf[i][j] = in[i][j]; }}
  for (int i = 0; i < N - K + 1; i++) for (int j = 0; j < N - K + 1; j++) {{
#pragma HLS pipeline II=1
    float s = 0;
    for (int a = 0; a < K; a++) for (int b = 0; b < K; b++) s += buf[i + a][j + b];
    out[i][j] = s;
  }}
}}
"""


def matmul(u: int) -> tuple[str, str]:
    n = 64
    return "c", f"""
#define N {n}
#define U {u}
void matmul(float a[N][N], float b[N][N], float out[N][N]) {{
  float c[N][N];
  for (int i = 0; i < N; i += U) for (int j = 0; j < N; j += U) {{
    for (int k = 0; k < N; k++) {{
#pragma HLS pipeline II=1
      for (int ii = 0; ii < U; ii++) for (int jj = 0; jj < U; jj++)
        c[i + ii][j + jj] += a[i + ii][k] * b[k][j + jj];
    }}
  }}
  for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) {{
#pragma HLS pipeline II=1
    out[i][j] = c[i][j]; }}
}}
"""


def weight4d(lanes: int) -> tuple[str, str]:
    return "w", f"""
#define L {lanes}
void weight4d(float win[16][3][3][16], float in[16][3][3][16], float out[16][16]) {{
  float w[16][3][3][16];
#pragma HLS bind_storage variable=w type=ram_1p
  for (int o = 0; o < 16; o++) for (int kh = 0; kh < 3; kh++)
    for (int kw = 0; kw < 3; kw++) for (int c = 0; c < 16; c++) {{
#pragma HLS pipeline II=1
      w[o][kh][kw][c] = win[o][kh][kw][c]; }}
  for (int o = 0; o < 16 - L + 1; o += L) for (int c = 0; c < 16 - L + 1; c += L) {{
#pragma HLS pipeline II=1
    float s = 0;
    for (int a = 0; a < L; a++) for (int kh = 0; kh < 3; kh++)
      for (int kw = 0; kw < 3; kw++) for (int u = 0; u < L; u++)
        s += w[o + a][kh][kw][c + u] * in[a][kh][kw][u];
    out[o][c] = s;
  }}
}}
"""


def ndlanes(dims: int) -> tuple[str, str]:
    n = 16
    shape = "".join(f"[{n}]" for _ in range(dims))
    its = [f"i{d}" for d in range(dims)]
    loops = " ".join(f"for (int {v} = 0; {v} < {n}; {v}++)" for v in its)
    inner = " ".join(f"for (int {v} = 0; {v} < {n - 1}; {v}++)" for v in its)
    lanes = " + ".join("buf" + "".join(f"[{v} + {o}]" for v, o in zip(its, offs))
                       for offs in product((0, 1), repeat=dims))
    first = "".join(f"[{v}]" for v in its)
    return "buf", f"""
void ndlanes(float in{shape}, float out{shape}) {{
  float buf{shape};
#pragma HLS bind_storage variable=buf type=ram_1p
  {loops} {{
#pragma HLS pipeline II=1
    buf{first} = in{first}; }}
  {inner} {{
#pragma HLS pipeline II=1
    out{first} = {lanes};
  }}
}}
"""


def lanes(count: int) -> tuple[str, str]:
    n = 1024
    return "buf", f"""
#define N {n}
#define L {count}
void lanes(int in[N], int out[N]) {{
  int buf[N];
  for (int i = 0; i < N; i++) {{
#pragma HLS pipeline II=1
    buf[i] = in[i]; }}
  for (int i = 0; i < N - L + 1; i++) {{
#pragma HLS pipeline II=1
    int s = 0;
    for (int u = 0; u < L; u++) s += buf[i + u];
    out[i] = s;
  }}
}}
"""


FAMILIES = {
    "window": (window, (3, 5, 7, 9, 11)),
    "matmul": (matmul, (4, 8, 16)),
    "weight4d": (weight4d, (1, 2, 4)),
    "ndlanes": (ndlanes, (2, 3, 4)),
    "lanes": (lanes, (16, 32, 64, 65, 128, 129)),
}


def measure(family: str, size: int, *, runs: int, **options) -> dict:
    """Median solve seconds over ``runs`` analyses of one generated kernel, with the
    timed array's lower bound, banks x copies and conflict-freedom."""
    make, _ = FAMILIES[family]
    name, text = make(size)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"{family}.c"
        path.write_text(text)
        seconds, result = [], {}
        for _ in range(runs):
            try:
                report = arraypart.analyze(path, **options)
            except KernelError as error:
                return {"family": family, "size": size, "error": str(error).splitlines()[0]}
            seconds.append(report.solution.seconds)
            a = next(a for a in report.solution.arrays if a.array.name == name)
            result = {"array": name, "lower_bound": a.lower_bound,
                      "banks": a.banking.scheme.banks * a.banking.copies,
                      "scheme": a.banking.scheme.describe().split(":")[0],
                      "conflict_free": a.conflict_free}
    return {"family": family, "size": size, "seconds": statistics.median(seconds), **result}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--time-limit", type=float, default=30.0)
    parser.add_argument("--max-banks", type=int, default=None)
    parser.add_argument("--schemes", choices=("all", "vitis"), default="all")
    parser.add_argument("--family", action="append", choices=sorted(FAMILIES))
    parser.add_argument("--size", type=int, action="append",
                        help="only these sizes (default: the family's list)")
    parser.add_argument("--json", dest="json_file")
    args = parser.parse_args(argv)
    options = {"time_limit": args.time_limit, "schemes": args.schemes}
    if args.max_banks is not None:
        options["max_banks"] = args.max_banks
    rows = []
    print(f"{'family':10} {'size':>5} {'seconds':>8} {'bound':>6} {'banks':>6}  scheme")
    for family in args.family or list(FAMILIES):
        for size in args.size or FAMILIES[family][1]:
            row = measure(family, size, runs=args.runs, **options)
            rows.append(row)
            if "error" in row:
                print(f"{family:10} {size:>5} {'-':>8} {'-':>6} {'-':>6}  {row['error']}")
            else:
                mark = "" if row["conflict_free"] else "  (NOT conflict-free)"
                print(f"{family:10} {size:>5} {row['seconds']:8.3f} {row['lower_bound']:>6} "
                      f"{row['banks']:>6}  {row['scheme']}{mark}", flush=True)
    if args.json_file:
        Path(args.json_file).write_text(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
