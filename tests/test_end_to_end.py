"""Every kernel of the suite through every pass: analyzed, banked (isl-proved), checked
cycle by cycle by the independent checker, emitted, built with g++ and shown to
compute what the original C computes on random inputs."""

import subprocess

import pytest

import arraypart
from arraypart import check

from conftest import KERNELS, needs_gxx

IDS = [k.stem for k in KERNELS]


@pytest.fixture(scope="module", params=KERNELS, ids=IDS)
def compiled(request):
    return arraypart.compile_kernel(request.param)


def test_every_array_is_proved_conflict_free_and_meets_its_bound(compiled):
    for a in compiled.report.solution.arrays:
        assert a.conflict_free, f"{a.array.name}: {a.banking.scheme.describe()}"
        assert a.banking.scheme.banks * a.banking.copies >= a.lower_bound


def test_the_checker_agrees_cycle_by_cycle(compiled):
    report = compiled.report
    result = check.check_kernel(report.kernel, report.solution.bankings(), ports=2)
    for loop in result.loops:
        assert loop.first_conflict is None, loop
        assert loop.achieved_ii == loop.target_ii
    assert all(m.ok for m in result.maps)


@needs_gxx
def test_emitted_kernel_computes_what_the_original_computes(compiled, tmp_path):
    name = compiled.report.kernel.name
    outdir = arraypart.write_project(compiled, tmp_path / name)
    binary = tmp_path / "tb"
    build = subprocess.run(
        ["g++", "-std=c++14", "-O1", "-w", "-o", str(binary),
         str(outdir / f"{name}.cpp"), str(outdir / f"{name}_tb.cpp"), "-lm"],
        capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-3000:]
    run = subprocess.run([str(binary)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
