"""Every kernel of the suite through every pass: analyzed, banked (isl-proved), checked
cycle by cycle by the independent checker, emitted, built with g++ and shown to
compute what the original C computes on random inputs; the RTL model of each banking
simulated against the scheme's maps.  Each kernel is compiled once
(the module fixture, from conftest's one compile per test process); every pass's own suite-wide checks (front end, model, banking,
checker) assert on that one compile's kernel, model and solution, which are what
``parse_kernel``, ``build_model`` and ``banking.solve`` give the file."""

import difflib
import json
import re
from pathlib import Path

import pytest

import arraypart
from arraypart import api, check, frontend, rtl
from arraypart.banking import prove
from arraypart.check import trace
from arraypart.frontend import clangtu
from arraypart.rtl import sim
from arraypart.scheme import Banking, none_scheme

from conftest import (KERNELS, assert_the_testbench_passes, compiled_file, needs_gxx,
                      needs_iverilog)

IDS = [k.stem for k in KERNELS]
# The stencils of DESIGN §7: their banks rotate with j, so only bank-centric code (one
# read site per bank, with a constant bank index) keeps them at II 1.
STENCILS = ("denoise", "deconv", "denoise_ur", "bicubic", "sobel", "motion_lv",
            "motion_lh", "motion_c")


@pytest.fixture(scope="module", params=KERNELS, ids=IDS)
def compiled(request):
    return compiled_file(request.param)


def test_the_kernel_is_the_files_one_function_with_arrays_and_a_body(compiled):
    kernel = compiled.report.kernel
    assert kernel.arrays and kernel.body
    assert kernel.name == Path(kernel.path).stem


def test_the_model_has_every_array_and_each_group_holds_its_accesses(compiled):
    kernel, model = compiled.report.kernel, compiled.report.model
    assert [a.array.name for a in model.arrays] == [a.name for a in kernel.arrays]
    assert model.loops, "every suite kernel has a pipelined loop"
    for array_model in model.arrays:
        for group in array_model.groups:
            assert all(a.domain.is_subset(group.domain) for a in group.accesses)
            assert group.total_iterations >= group.trip_count >= 1


def test_every_array_is_proved_conflict_free_and_meets_its_bound(compiled):
    for a in compiled.report.solution.arrays:
        assert a.conflict_free, f"{a.array.name}: {a.banking.scheme.describe()}"
        assert a.banking.scheme.banks * a.banking.copies >= a.lower_bound


def test_each_banking_proved_again_from_its_model_keeps_its_verdict(compiled):
    model, solution = compiled.report.model, compiled.report.solution
    assert [a.array for a in model.arrays] == [s.array for s in solution.arrays]
    for sol, array_model in zip(solution.arrays, model.arrays):
        assert prove(array_model, sol.banking).conflict_free == sol.conflict_free


def test_the_checker_on_one_memory_per_array_counts_its_conflicts(compiled):
    """Every array one memory: a loop reaches its target II exactly when the checker
    finds no conflict, and takes II cycles per iteration."""
    kernel = compiled.report.kernel
    result = check.check_kernel(kernel, {a.name: Banking(a.name, none_scheme(a.shape))
                                         for a in kernel.arrays})
    for loop in result.loops:
        assert loop.achieved_ii >= loop.target_ii
        assert (loop.first_conflict is None) == (loop.achieved_ii == loop.target_ii)
        assert loop.cycles == loop.iterations * loop.achieved_ii
    assert all(m.ok for m in result.maps)


def test_the_checker_agrees_cycle_by_cycle(compiled):
    report = compiled.report
    result = check.check_kernel(report.kernel, report.solution.bankings(), ports=2)
    for loop in result.loops:
        assert loop.first_conflict is None, loop
        assert loop.achieved_ii == loop.target_ii
    assert all(m.ok for m in result.maps)


@needs_iverilog
def test_simulated_banks_and_offsets_agree_with_the_scheme(compiled, tmp_path):
    """The RTL model of every array's banking (:mod:`arraypart.rtl`), simulated with
    iverilog: per step of the checker's walk, each enabled lane's RTL bank and offset
    equal the scheme's numpy maps, and reads return the element they address."""
    report = compiled.report
    simulated = 0
    for sol in report.solution.arrays:
        array_model = report.model.array(sol.array.name)
        if not array_model.groups:
            continue
        mem = rtl.memory(array_model, sol.banking)
        result = sim.simulate(report.kernel, array_model, mem, steps=12, workdir=tmp_path)
        assert result.ok, (array_model.array.name, result.mismatches)
        assert result.checked > 0
        simulated += 1
    assert simulated > 0


@needs_gxx
def test_emitted_kernel_computes_what_the_original_computes(compiled, tmp_path):
    assert_the_testbench_passes(compiled, tmp_path)


@needs_gxx
def test_the_traced_original_agrees_with_the_model(compiled, tmp_path):
    """check --trace: the original, built by g++ once, run on the testbench's inputs;
    its accesses replayed against arraypart's banking (ideal ports) and the kernel's own
    pragmas (scheduling rule) never need more than the model claims, every pipelined
    loop is traced and every address is the polyhedral model's."""
    report = compiled.report
    recorded = trace.record(report.kernel, clangtu.Options(), tmp_path,
                            report.solution.bankings())
    for as_written in (False, True):
        result = api.judge_trace(report, recorded, as_written=as_written)
        assert result.disagreements == (), result.format()
        assert not result.untraced and all(loop.claim for loop in result.replay.loops)
        assert len(result.addresses.compared) == len(result.replay.loops), result.format()
        assert all(loop.traced_ii == loop.claim.claimed_ii for loop in result.replay.loops)


HEADER_LINES = 2  # the emitted kernel's two-line header comment
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")


def logical_lines(lines):
    """Lines with the statements codegen broke at 100 columns joined again."""
    out = []
    for line in lines:
        prev = out[-1].rstrip() if out else ""
        if (prev and prev[-1] not in ";{})" and line.strip()
                and not prev.lstrip().startswith(("#", "//"))):
            out[-1] = prev + " " + line.strip()
        else:
            out.append(line)
    return out


def test_emitted_kernel_is_the_source_with_banking_edits_only(compiled):
    """Outside the banking edits the emitted kernel is the user's text, line for line:
    a changed line is one of arraypart's pragmas or comments, a brace of an inserted
    block, or code naming something arraypart introduced (banks, lane registers) or in
    a block that does; a
    removed line is a pragma arraypart replaces, the header of a loop it writes as
    blocks, a row of a re-laid initializer, or code naming an array it restored."""
    kernel = compiled.report.kernel
    source = kernel.source.text.splitlines()
    emitted = compiled.files[f"{kernel.name}.cpp"].splitlines()
    written = set(source)
    assert all(len(line) <= 100 for line in emitted[HEADER_LINES:] if line not in written)
    emitted = logical_lines(emitted[HEADER_LINES:])
    source = logical_lines(source)
    known = set(_IDENTIFIER.findall(kernel.source.text))
    restored = {a.array.name for a in compiled.report.solution.arrays}
    matcher = difflib.SequenceMatcher(None, source, emitted, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            continue
        block = [line.strip() for line in emitted[j1:j2]]
        ours = [text.startswith(("#pragma HLS", "// arraypart", "//   "))
                or text in ("", "{", "}") or bool(set(_IDENTIFIER.findall(text)) - known)
                for text in block]
        # arraypart's own lines; a block it inserts (bank-centric code, a re-laid
        # initializer) may hold lines of plain C around them
        assert all(ours) or (any(ours) and any(t.startswith("// arraypart") or "_bank" in t
                                               for t in block)), block
        for line in source[i1:i2]:
            text = line.strip()
            assert (text.startswith(("#pragma HLS", "for (", "{", "}")) or not text
                    or set(_IDENTIFIER.findall(text)) & restored), line


def test_emitted_code_read_back_keeps_the_reported_ii(compiled, tmp_path):
    """The .cpp on disk, read back by the front end, gets under the HLS scheduling rule
    the II report.json states, never better than the ideal model the banking was proved
    in; the rotating stencils keep II 1 through bank-centric code."""
    name = compiled.report.kernel.name
    outdir = arraypart.write_project(compiled, tmp_path / name)
    report = json.loads((outdir / "report.json").read_text())
    emitted = frontend.parse_kernel(outdir / f"{name}.cpp", top=report["top"])
    ruled = check.check_kernel(emitted, check.as_written_bankings(emitted), rule=True)
    stated = [loop["achieved_ii"] for loop in report["loops"]]
    assert [loop.achieved_ii for loop in ruled.loops] == stated
    model = compiled.report.model
    planned = [compiled.report.planned_ii(loop.name, loop.target_ii) for loop in model.loops]
    assert all(s >= p for s, p in zip(stated, planned))
    if name in STENCILS:
        assert stated == planned == [1] * len(planned)
        assert "#pragma HLS unroll" in compiled.files[f"{name}.cpp"]
