"""Time, peak memory and Ctrl-C latency of the bounded-resources cases of issue 13.

Each case is a generated kernel run through the ``arraypart`` command line in a child
process under a wall-clock cap and an address-space cap (so that a case that still
grows without bound cannot take the shared machine down).  Printed per case: the exit
status, wall seconds, CPU seconds (the machine may be shared), peak RSS (``ru_maxrss``
of the child) and, with ``--interrupt S``, how long the child took to exit after SIGINT
was sent S seconds into the run.

    python bench/bounded.py [--case NAME ...] [--cap-seconds 300] [--cap-gb 8]
        [--interrupt S] [--tree DIR] [--list]

``--tree DIR`` runs the arraypart package found in DIR (e.g. an export of an older
commit: ``git archive main | tar -x -C /tmp/before``) instead of the installed one.
"""

from __future__ import annotations

import argparse
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ARRAYPART = [sys.executable, "-m", "arraypart"]


def deep(depth: int) -> str:
    """``depth`` nested loops of two iterations each, the innermost pipelined."""
    its = [f"i{d}" for d in range(depth)]
    loops = "\n".join(f"{'  ' * d}for (int {v} = 0; {v} < 2; {v}++)"
                      for d, v in enumerate(its))
    index = " + ".join(its)
    return f"""void deep(int in[{depth + 1}], int out[{depth + 1}]) {{
  int buf[{depth + 1}];
  for (int i = 0; i < {depth + 1}; i++) buf[i] = in[i];
{loops} {{
#pragma HLS pipeline II=1
    out[{index}] += buf[{index}];
  }}
}}
"""


def coupled(depth: int, n: int) -> str:
    """``depth`` nested loops each running to the one outside it: isl counts the
    iterations point by point in one call (a minute for 6 x 60), which no signal
    handler can interrupt (tests/test_interruptible.py runs it)."""
    its = [f"i{k}" for k in range(depth)]
    loops = "\n".join(f"for (int {v} = 0; {v} < {n if k == 0 else its[k - 1] + ' + 1'}; "
                      f"{v}++)" for k, v in enumerate(its))
    last = its[-1]
    return f"""void coupled(int in[{n + 2}], int out[{n + 2}]) {{
  int buf[{n + 2}];
  for (int i = 0; i < {n + 2}; i++) buf[i] = in[i];
{loops} {{
#pragma HLS pipeline II=1
    out[{last}] += buf[{last}] + buf[{last} + 1];
  }}
}}
"""


def many_arrays(n: int) -> str:
    lines = ["void sep(int in[4], int out[4]) {"]
    lines += [f"  int a{a}[4];" for a in range(n)]
    lines += [f"  for (int i = 0; i < 4; i++) {{ a{a}[i] = in[i]; }}" for a in range(n)]
    lines.append("  for (int i = 0; i < 4; i++) { out[i] = a0[i] + a1[3 - i]; }")
    return "\n".join(lines + ["}"]) + "\n"


def dump_arrays(arrays: int, side: int = 4096) -> str:
    lines = [f"void dm(int in[{side}][{side}], int out[{side}][{side}]) {{"]
    lines += [f"  static int a{a}[{side}][{side}];" for a in range(arrays)]
    for a in range(arrays):
        lines += [f"  for (int i = 0; i < {side}; i++) for (int j = 0; j < {side}; j++) {{",
                  "#pragma HLS pipeline II=1",
                  f"    a{a}[i][j] = in[i][j]; }}"]
    lines += [f"  for (int i = 0; i < {side}; i++) for (int j = 0; j < {side}; j++) {{",
              "#pragma HLS pipeline II=1",
              "    out[i][j] = " + " + ".join(f"a{a}[i][j]" for a in range(arrays)) + "; }",
              "}"]
    return "\n".join(lines) + "\n"


def long_loop(trip: int) -> str:
    """One pipelined loop of ``trip`` iterations (one row of the checker's entry)."""
    return f"""void longloop(int in[1024], int out[1]) {{
  int buf[1024];
  for (int i = 0; i < 1024; i++) buf[i] = in[i];
  int s = 0;
  for (long t = 0; t < {trip}L; t++) {{
#pragma HLS pipeline II=1
    s += buf[t % 1024] + buf[(t + 1) % 1024];
  }}
  out[0] = s;
}}
"""


def kernel_file(name: str) -> str:
    return (Path(__file__).resolve().parent.parent / "kernels" / name).read_text()


def stencil3(side: int) -> str:
    return kernel_file("sobel.c").replace("#define H 64", f"#define H {side}").replace(
        "#define W 64", f"#define W {side}")


def syr2k(n: int) -> str:
    return kernel_file("syr2k.c").replace("#define N 32", f"#define N {n}").replace(
        "#define M 32", f"#define M {n}")


def window(k: int) -> str:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from scaling import window as make
    return make(k)[1]


def matmul(u: int) -> str:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from scaling import matmul as make
    return make(u)[1]


#: name -> (kernel text factory, command, extra arguments)
CASES = {
    "deep12": (lambda: deep(12), "analyze", ["--time-limit", "10"]),
    "deep26": (lambda: deep(26), "analyze", ["--time-limit", "10"]),
    "deep50": (lambda: deep(50), "analyze", ["--time-limit", "10"]),
    "coupled6x60": (lambda: coupled(6, 60), "analyze", ["--time-limit", "10"]),
    "arrays1000": (lambda: many_arrays(1000), "compile", []),
    "arrays4000": (lambda: many_arrays(4000), "compile", []),
    "dump8x4096": (lambda: dump_arrays(8), "compile", ["--dump-maps"]),
    "check2^24": (lambda: long_loop(1 << 24), "check", []),
    "check4e8": (lambda: long_loop(400_000_000), "check", []),
    "stencil2048": (lambda: stencil3(2048), "check", []),
    "syr2k1024": (lambda: syr2k(1024), "check", []),
    "syr2k4096": (lambda: syr2k(4096), "check", []),
    "window24": (lambda: window(24), "analyze", ["--time-limit", "30"]),
    "matmul16": (lambda: matmul(16), "analyze", ["--time-limit", "30"]),
}


def run(name: str, cap_seconds: float, cap_bytes: int, interrupt: float | None,
        tree: str | None = None) -> dict:
    make, command, extra = CASES[name]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"{name.replace('^', '_')}.c"
        path.write_text(make())
        argv = ARRAYPART + [command, str(path)] + extra
        if command == "compile":
            argv += ["-o", str(Path(folder) / "out")]

        def limits():
            resource.setrlimit(resource.RLIMIT_AS, (cap_bytes, cap_bytes))

        start = time.perf_counter()
        env = dict(os.environ, PYTHONPATH=tree) if tree else None
        child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                 preexec_fn=limits, cwd=folder, env=env)
        latency = None
        status = None
        try:
            if interrupt is not None:
                try:
                    status = child.wait(timeout=interrupt)
                except subprocess.TimeoutExpired:
                    child.send_signal(signal.SIGINT)
                    sent = time.perf_counter()
                    status = child.wait(timeout=cap_seconds)
                    latency = time.perf_counter() - sent
            else:
                status = child.wait(timeout=cap_seconds)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
            status = "cap"
        seconds = time.perf_counter() - start
        err = child.stderr.read().decode(errors="replace").strip().splitlines()
        child.stderr.close()
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    peak = usage.ru_maxrss * 1024
    return {"case": name, "status": status, "seconds": seconds, "peak": peak,
            "cpu": usage.ru_utime + usage.ru_stime,
            "latency": latency, "last": err[-1][:100] if err else ""}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", action="append", choices=sorted(CASES))
    parser.add_argument("--cap-seconds", type=float, default=300)
    parser.add_argument("--cap-gb", type=float, default=8)
    parser.add_argument("--interrupt", type=float, default=None, metavar="S")
    parser.add_argument("--tree", default="", metavar="DIR")
    parser.add_argument("--list", action="store_true")
    args = parser.parse_args(argv)
    if args.list:
        print("\n".join(CASES))
        return 0
    print(f"{'case':12} {'exit':>5} {'seconds':>8} {'cpu s':>8} {'peak MB':>8} "
          f"{'SIGINT s':>8}  last line")
    for name in args.case or list(CASES):
        # RUSAGE_CHILDREN's ru_maxrss is the largest child so far: one case per process.
        out = subprocess.run([sys.executable, __file__, "--one", name,
                              str(args.cap_seconds), str(args.cap_gb),
                              str(args.interrupt), args.tree], capture_output=True,
                             text=True)
        print(out.stdout.rstrip() or out.stderr.rstrip()[-300:], flush=True)
    return 0


def one(name: str, cap_seconds: str, cap_gb: str, interrupt: str, tree: str = "") -> int:
    row = run(name, float(cap_seconds), int(float(cap_gb) * (1 << 30)),
              None if interrupt == "None" else float(interrupt), tree or None)
    latency = "-" if row["latency"] is None else f"{row['latency']:.2f}"
    print(f"{row['case']:12} {row['status']!s:>5} {row['seconds']:8.1f} {row['cpu']:8.1f} "
          f"{row['peak'] / 2**20:8.0f} {latency:>8}  {row['last']}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--one":
        sys.exit(one(*sys.argv[2:7]))
    sys.exit(main())
