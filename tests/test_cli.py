"""The command line contract (DESIGN §4): outputs, exit codes, located errors, atomicity."""

import json
import subprocess
import sys

import numpy as np
import pytest

from arraypart import cli

from conftest import ROOT

DENOISE = str(ROOT / "kernels" / "denoise.c")
REPORT_KEYS = {"kernel", "top", "source", "solve_seconds", "arrays", "loops", "warnings"}
ARRAY_KEYS = {"name", "shape", "elem_bits", "interface", "ports", "scheme", "banks", "copies",
              "bank_depth", "storage_overhead", "max_concurrent", "lower_bound_banks",
              "conflict_free", "bram18k"}
LOOP_KEYS = {"name", "line", "target_ii", "achieved_ii", "trip_count"}


def run(argv, capsys):
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_analyze_json_has_the_stable_report_keys(capsys):
    code, out, _ = run(["analyze", DENOISE, "--json"], capsys)
    assert code == 0
    report = json.loads(out)
    assert REPORT_KEYS <= report.keys()
    assert report["top"] == "denoise" and report["kernel"] == "denoise"
    for array in report["arrays"]:
        assert ARRAY_KEYS <= array.keys()
    assert all(LOOP_KEYS <= loop.keys() for loop in report["loops"])
    buffers = [a for a in report["arrays"] if not a["interface"]]
    assert buffers and buffers[0]["ports"] == "ram_1p"
    assert buffers[0]["banks"] == buffers[0]["lower_bound_banks"] == 4


def test_compile_writes_the_whole_project(tmp_path, capsys):
    out_dir = tmp_path / "out"
    code, out, _ = run(["compile", DENOISE, "-o", str(out_dir), "--dump-maps",
                        "--part", "xcvu9p-flga2104-2-i", "--clock", "4"], capsys)
    assert code == 0
    names = {p.name for p in out_dir.iterdir()}
    assert {"denoise.cpp", "denoise_tb.cpp", "run_hls.tcl", "hls_config.cfg",
            "report.json", "maps"} <= names
    report = json.loads((out_dir / "report.json").read_text())
    assert REPORT_KEYS <= report.keys()
    assert "xcvu9p-flga2104-2-i" in (out_dir / "run_hls.tcl").read_text()
    for array in report["arrays"]:
        maps = np.load(out_dir / "maps" / f"{array['name']}.npz")
        assert maps["bank"].shape == tuple(array["shape"])
        assert maps["offset"].shape == tuple(array["shape"])
        assert maps["bank"].max() < array["banks"]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_bad_input_is_one_located_line_and_leaves_existing_output_alone(tmp_path, capsys):
    bad = tmp_path / "bad.c"
    bad.write_text("void bad(int A[8]) {\n  for (int i = 0; i < 8; i++) {\n    A[i] = \n  }\n}\n")
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    (out_dir / "keep.txt").write_text("old")
    code, out, err = run(["compile", str(bad), "-o", str(out_dir)], capsys)
    assert code == 2
    lines = err.strip().splitlines()
    assert lines[0].startswith(f"{bad}:4:") and ": error: " in lines[0]
    assert "Traceback" not in err
    assert [p.name for p in out_dir.iterdir()] == ["keep.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.c", "out"]


def test_missing_file_is_a_located_error(tmp_path, capsys):
    code, _, err = run(["analyze", str(tmp_path / "nope.c")], capsys)
    assert code == 2 and "nope.c" in err and "error:" in err


def test_usage_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as stop:
        cli.main(["compile", DENOISE, "--ports", "3"])
    assert stop.value.code == 2
    with pytest.raises(SystemExit) as stop:
        cli.main(["analyze", DENOISE, "-D", "N=abc"])
    assert stop.value.code == 2


def test_define_on_the_command_line_wins(capsys):
    code, out, _ = run(["analyze", DENOISE, "--json", "-D", "H=16", "-D", "W=24"], capsys)
    assert code == 0
    shapes = {tuple(a["shape"]) for a in json.loads(out)["arrays"]}
    assert (16, 24) in shapes


def test_check_as_written_finds_the_conflict_and_says_what_arraypart_would_do(capsys):
    code, out, _ = run(["check", DENOISE, "--as-written"], capsys)
    assert code == 1
    assert "arraypart would choose" in out
    code, out, _ = run(["check", DENOISE], capsys)
    assert code == 0


def test_python_dash_m_and_console_script():
    done = subprocess.run([sys.executable, "-m", "arraypart", "analyze", DENOISE, "--json"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["top"] == "denoise"
