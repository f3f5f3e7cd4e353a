"""Robustness sweep: ``arraypart compile`` on every C/C++ file under a folder.

Public HLS code that is not in the corpus (a compiler's regression kernels, a benchmark
suite) is the quickest way to find inputs that crash arraypart.  Each file is compiled
in its own process, its top function the one after a ``--top-marker`` line when the
file has one (Merlin's regression kernels mark it with ``#pragma ACCEL kernel``), else
arraypart's own choice.  An outcome is ``ok`` (exit 0), ``missed`` (exit 1: a target II
or a time limit), ``error`` (exit 2: a located error) or ``crash`` (anything else, a
traceback, or an error without a location); crashes are printed in full.

Usage::

    python bench/sweep.py FOLDER [--top-marker REGEX] [--time-limit S] [--errors]

``--errors`` also prints each located error's first line and each missed file.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

OUTCOMES = {0: "ok", 1: "missed", 2: "error"}
#: Seconds one compile may take before it counts as a crash (a hang).
TIMEOUT_S = 600
_LOCATED = re.compile(r"^\S+:\d+:\d+: error: ", re.MULTILINE)


def top_after(text: str, marker: str) -> str | None:
    """The name of the first function defined after a line matching ``marker``."""
    found = re.search(marker + r"[^\n]*\n(?:\s*(?://[^\n]*|#[^\n]*)\n)*\s*"
                      r"(?:extern\s+\"C\"\s*\{?\s*)?(?:static\s+)?[\w:<>]+\s+(\w+)\s*\(",
                      text)
    return found.group(1) if found else None


def compile_one(path: Path, top: str | None, time_limit: float, out: Path
                ) -> tuple[str, str]:
    """(outcome, what arraypart printed on stderr) for one file."""
    command = [sys.executable, "-m", "arraypart", "compile", str(path), "-o", str(out),
               "--force", "--time-limit", str(time_limit)] + (["--top", top] if top else [])
    try:
        run = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return "crash", f"no answer within {TIMEOUT_S} s"
    outcome = OUTCOMES.get(run.returncode, "crash")
    if "Traceback" in run.stderr or "internal error" in run.stderr or (
            outcome == "error" and not _LOCATED.search(run.stderr)):
        outcome = "crash"
    return outcome, run.stderr


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--top-marker", default=r"#pragma\s+ACCEL\s+kernel",
                        help="regex of the line before the top function")
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--errors", action="store_true",
                        help="also print each located error's first line and each "
                             "missed file")
    args = parser.parse_args(argv)
    files = sorted(p for p in args.folder.rglob("*") if p.suffix in (".c", ".cpp"))
    counts: Counter[str] = Counter()
    with tempfile.TemporaryDirectory() as work:
        for path in files:
            text = path.read_text(errors="replace")
            outcome, stderr = compile_one(path, top_after(text, args.top_marker),
                                          args.time_limit, Path(work) / "out")
            counts[outcome] += 1
            if outcome == "crash":
                print(f"CRASH {path}\n{stderr[-2000:]}", flush=True)
            elif outcome == "error" and args.errors:
                print(_LOCATED.search(stderr) and next(
                    line for line in stderr.splitlines() if ": error: " in line), flush=True)
            elif outcome == "missed" and args.errors:
                print(f"MISSED {path}", flush=True)
    print(", ".join(f"{counts[o]} {o}" for o in ("ok", "missed", "error", "crash")),
          f"of {len(files)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
