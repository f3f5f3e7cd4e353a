"""Bounded resources (issue 13, point 4): work and memory that grow with the input
only as they must.  Sizes are small but telling; no wall-clock assertions."""

import tracemalloc

import numpy as np

import arraypart
from arraypart import codegen
from arraypart.frontend import cnodes

from conftest import alarm


def separate_arrays(n: int) -> str:
    lines = ["void sep(int in[4], int out[4]) {"]
    lines += [f"  int a{a}[4];" for a in range(n)]
    lines += [f"  for (int i = 0; i < 4; i++) {{ a{a}[i] = in[i]; }}" for a in range(n)]
    lines.append("  for (int i = 0; i < 4; i++) { out[i] = a0[i] + a1[3 - i]; }")
    return "\n".join(lines + ["}"]) + "\n"


def test_codegen_is_linear_in_the_number_of_arrays(tmp_path, monkeypatch):
    """Code generation visits the tree a bounded number of times per array: doubling
    the arrays (and the tree) must not quadruple the visits."""
    visits = {"n": 0}  # analyze emits too: only the emit below is counted
    original = cnodes.walk

    def counting(node):
        for visited in original(node):
            visits["n"] += 1
            yield visited

    monkeypatch.setattr(cnodes, "walk", counting)
    for n in (40, 80):
        path = tmp_path / f"sep{n}.c"
        path.write_text(separate_arrays(n))
        report = arraypart.analyze(path)
        visits["n"] = 0
        with alarm(120):
            codegen.emit(report.kernel, report.solution)
        visits[n] = visits["n"]
    assert visits[80] < 2.5 * visits[40], visits


def test_dump_maps_holds_one_arrays_maps_at_a_time(tmp_path):
    arrays, side = 4, 256
    lines = [f"void dm(int in[{side}][{side}], int out[{side}][{side}]) {{"]
    lines += [f"  int a{a}[{side}][{side}];" for a in range(arrays)]
    for a in range(arrays):
        lines += [f"  for (int i = 0; i < {side}; i++) for (int j = 0; j < {side}; j++) {{",
                  "#pragma HLS pipeline II=1",
                  f"    a{a}[i][j] = in[i][j]; }}"]
    lines += [f"  for (int i = 0; i < {side}; i++) for (int j = 0; j < {side}; j++) {{",
              "#pragma HLS pipeline II=1",
              "    out[i][j] = " + " + ".join(f"a{a}[i][j]" for a in range(arrays)) + "; }",
              "}"]
    path = tmp_path / "dm.c"
    path.write_text("\n".join(lines) + "\n")
    one_array = 2 * side * side * np.dtype(np.int64).itemsize  # bank and offset maps
    tracemalloc.start()
    try:
        compiled = arraypart.compile_kernel(path, dump_maps=True)
        tracemalloc.reset_peak()  # the maps are computed while they are written
        out = arraypart.write_project(compiled, tmp_path / "out")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # Six arrays' .npz files held at once are 6 * one_array (their maps as much
    # again); streamed, the peak is about one array's maps.
    assert peak < 6 * one_array, (peak, one_array)
    assert len(list((out / "maps").glob("*.npz"))) == arrays + 2
    with np.load(out / "maps" / "a3.npz") as maps:
        assert maps["bank"].shape == (side, side) and maps["offset"].shape == (side, side)
