"""Value ranges of opaque scalars (:mod:`arraypart.frontend.scalars`), with g++ as the
oracle: random loop bodies write two scalars through literals, the iterator, each other,
``+ - *``, ``?:`` over data and increments, some under data-dependent ``if``s.  Probes
``if (x < r)`` / ``if (x > r)`` over an unrolled ``r`` make the front end state the range
it proved (the affine guard it wraps each branch in: ``r >= lo + 1`` and ``r <= hi - 1``);
the compiled program, run on random data, must never give the scalar a value outside it.
"""

from __future__ import annotations

import os
import random
import subprocess
from dataclasses import dataclass

import pytest

from arraypart import expr as E
from arraypart import frontend, ir

from conftest import needs_gxx

EXAMPLES = int(os.environ.get("ARRAYPART_EXAMPLES", "12"))
NAMES = ("x", "y")
PROBE = 64  # the probes' r runs over [-PROBE, PROBE)
RUNS = 40  # random data arrays the program runs on

OBSERVER = """
#include <stdio.h>
#include <stdlib.h>
static long seen_low[2] = {1L << 40, 1L << 40}, seen_high[2] = {-(1L << 40), -(1L << 40)};
static void see(int k, long v) {
    if (v < seen_low[k]) seen_low[k] = v;
    if (v > seen_high[k]) seen_high[k] = v;
}
#define SEEN(x, y) (see(0, x), see(1, y))
"""
DRIVER = """
int main(void) {
    int d[8];
    int sink[%(width)d];
    srand(7);
    for (int run = 0; run < %(runs)d; run++) {
        for (int k = 0; k < 8; k++) d[k] = rand() %% 11 - 5;
        f(d, sink);
    }
    printf("%%ld %%ld %%ld %%ld\\n", seen_low[0], seen_high[0], seen_low[1], seen_high[1]);
    return 0;
}
"""


def random_expression(rng: random.Random, depth: int = 2) -> str:
    """A literal, the iterator, a scalar, or (at ``depth`` > 0) ``+ - *``, ``& % >>`` by
    a literal or a ``?:`` over data of smaller ones."""
    kind = rng.choice(("literal", "iterator", "scalar") + (
        ("sum", "scale", "select", "select", "bits") if depth else ()))
    if kind == "literal":
        return str(rng.randint(-9, 9))
    if kind == "iterator":
        return "i"
    if kind == "scalar":
        return rng.choice(NAMES)
    if kind == "sum":
        return (f"({random_expression(rng, depth - 1)} {rng.choice('+-')} "
                f"{random_expression(rng, depth - 1)})")
    if kind == "scale":
        return f"({rng.randint(-3, 3)} * {random_expression(rng, depth - 1)})"
    if kind == "bits":
        op, k = rng.choice((("&", rng.randint(0, 15)), ("%", rng.choice((-5, -3, 2, 4, 7))),
                            (">>", rng.randint(0, 3))))
        return f"({random_expression(rng, depth - 1)} {op} {k})"
    return (f"(d[i] > {rng.randint(-5, 5)} ? {random_expression(rng, depth - 1)} : "
            f"{random_expression(rng, depth - 1)})")


def random_statement(rng: random.Random) -> str:
    target = rng.choice(NAMES)
    kind = rng.choice(("assign", "assign", "guarded", "step", "increment"))
    if kind == "assign":
        return f"{target} = {random_expression(rng)};"
    if kind == "guarded":
        return f"if (d[i] > {rng.randint(-5, 5)}) {target} = {random_expression(rng)};"
    if kind == "step":
        return f"{target} += {rng.randint(-4, 4)};"
    return f"{target}{rng.choice(('++', '--'))};"


@dataclass(frozen=True)
class Program:
    starts: tuple[int, int]
    trips: int
    body: tuple[str, ...]

    def source(self) -> str:
        """The kernel: the scalars' writes, then the probes; ``SEEN`` is empty for
        arraypart and records the values for the oracle."""
        lines = ["#ifndef SEEN", "#define SEEN(x, y)", "#endif",
                 f"void f(const int d[8], int sink[{2 * PROBE}]) {{",
                 f"    int x = {self.starts[0]}, y = {self.starts[1]};",
                 "    SEEN(x, y);",
                 f"    for (int i = 0; i < {self.trips}; i++) {{"]
        for stmt in self.body:
            lines += [f"        {stmt}", "        SEEN(x, y);"]
        lines += [f"        for (int r = -{PROBE}; r < {PROBE}; r++) {{",
                  "#pragma HLS unroll"]
        for name in NAMES:
            lines += [f"            if ({name} < r) sink[r + {PROBE}] = 1;",
                      f"            if ({name} > r) sink[r + {PROBE}] = 2;"]
        lines += ["        }", "    }", "}"]
        return "\n".join(lines) + "\n"


def random_program(seed: int) -> Program:
    rng = random.Random(seed)
    return Program((rng.randint(-9, 9), rng.randint(-9, 9)), rng.randint(1, 6),
                   tuple(random_statement(rng) for _ in range(rng.randint(1, 5))))


def proven_ranges(program: Program) -> dict[str, tuple[int | None, int | None]]:
    """The range the front end proved for each scalar, read off the affine guards it
    wrapped the probes' branches in (None: no bound on that side, or the scalar has
    an affine value there, so its probe is no data-dependent if)."""
    source = program.source()
    kernel = frontend.parse_source(source, "f.c", top="f", pipeline_loops=False)
    probes = {node.coord.line: node for node in _probe_ifs(kernel.body)}
    lines = source.splitlines()
    found = {}
    for name in NAMES:
        bounds = []
        for side, text in enumerate((f"if ({name} < r)", f"if ({name} > r)")):
            line = next(n for n, l in enumerate(lines, 1) if l.strip().startswith(text))
            bounds.append(_bound(probes.get(line), side))
        found[name] = tuple(bounds)
    return found


def _bound(probe: ir.If | None, side: int) -> int | None:
    """``r - lo - 1 >= 0`` (side 0, ``x < r``) gives lo; ``hi - r - 1 >= 0`` (side 1)
    gives hi.  A probe of a scalar with cases (:mod:`arraypart.frontend.cases`) is a
    chain of ifs keyed by case, each case's test affine: the extreme of theirs."""
    if probe is not None and probe.lane_key is not None and probe.lane_key[0] == "case":
        found = [_bound_in_case(branch[-1], side) for branch in (probe.then, probe.orelse)]
        return None if None in found else (min, max)[side](found)
    if probe is None or probe.cond is not None or not probe.then \
            or not isinstance(probe.then[0], ir.If):
        return None
    return _bound_in_case(probe.then[0], side)


def _bound_in_case(test: ir.If, side: int) -> int | None:
    if test.lane_key is not None and test.lane_key[0] == "case":
        return _bound(test, side)
    ((constraint,),) = test.cond
    coeffs, constant = E.affine_form(constraint.expr)
    assert coeffs == {"r": 1 if side == 0 else -1}, test.cond
    return -(constant + 1) if side == 0 else constant + 1


def _probe_ifs(nodes) -> list[ir.If]:
    """The ifs of the probe loop ``r``."""
    for node in nodes:
        if isinstance(node, ir.Loop) and node.var == "r":
            return [n for n in node.body if isinstance(n, ir.If)]
        if isinstance(node, ir.Loop):
            found = _probe_ifs(node.body)
            if found:
                return found
    return []


def observed_ranges(program: Program, tmp_path) -> dict[str, tuple[int, int]]:
    source = tmp_path / "f.c"
    source.write_text(OBSERVER + program.source()
                      + DRIVER % {"width": 2 * PROBE, "runs": RUNS})
    binary = tmp_path / "f"
    subprocess.run(["gcc", "-O0", "-fwrapv", "-w", "-o", str(binary), str(source)],
                   check=True, capture_output=True)
    out = subprocess.run([str(binary)], check=True, capture_output=True, text=True)
    lo_x, hi_x, lo_y, hi_y = map(int, out.stdout.split())
    return {"x": (lo_x, hi_x), "y": (lo_y, hi_y)}


@needs_gxx
@pytest.mark.parametrize("seed", range(EXAMPLES))
def test_every_value_a_scalar_takes_lies_in_its_proven_range(tmp_path, seed):
    program = random_program(seed)
    proven = proven_ranges(program)
    seen = observed_ranges(program, tmp_path)
    for name in NAMES:
        low, high = proven[name]
        assert low is None or seen[name][0] >= low, (program.source(), name, proven, seen)
        assert high is None or seen[name][1] <= high, (program.source(), name, proven, seen)


def test_a_sentinel_and_an_iterator_give_a_tight_range():
    """x: 1000 at first, then i (in [0, 3]), itself or 2000; y: 0, then y + 1 in some
    iterations, a range that grows at each round of the fixpoint: unbounded."""
    program = Program((1000, 0), 4, ("x = (d[i] > 0 ? i : x);",
                                     "if (d[i] > 3) x = (d[i] > 4 ? x : 2000);",
                                     "if (d[i] > 0) y++;"))
    assert proven_ranges(program) == {"x": (0, 2000), "y": (None, None)}


def test_masks_remainders_and_shifts_bound_a_scalar():
    """``& 7`` gives [0, 7] whatever x was; ``% 5`` of a value of either sign gives
    [-4, 4]; ``>> 2`` of [0, 9] gives [0, 2]."""
    program = Program((0, 0), 4, ("x = (d[i] > 0 ? (d[i] & 7) : (y % 5));",
                                  "y = (d[i] > 1 ? ((i + 6) >> 2) : (d[i] % 5));"))
    assert proven_ranges(program) == {"x": (-4, 7), "y": (-4, 4)}
