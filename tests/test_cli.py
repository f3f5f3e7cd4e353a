"""The command line contract (DESIGN §4): outputs, exit codes, located errors, atomicity."""

import json
import subprocess
import sys

import numpy as np
import pytest

from arraypart import cli

from conftest import ROOT

# The suite kernels' analyses, made once per test process (nothing here patches them).
pytestmark = pytest.mark.usefixtures("analyses_shared")

DENOISE = str(ROOT / "kernels" / "denoise.c")
REPORT_KEYS = {"kernel", "top", "source", "solve_seconds", "arrays", "loops", "warnings"}
ARRAY_KEYS = {"name", "shape", "elem_bits", "interface", "ports", "scheme", "banks", "copies",
              "bank_depth", "storage_overhead", "max_concurrent", "lower_bound_banks",
              "conflict_free", "bram18k"}
LOOP_KEYS = {"name", "file", "line", "target_ii", "achieved_ii", "trip_count"}


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


HAND_PARTITIONED = """\
// a 4-point cross on a buffer the user partitioned by hand (cyclic 2 x cyclic 2)
void cross(float in[32][32], float out[32][32]) {
  float buf[32][32];
#pragma HLS array_partition variable=buf type=cyclic factor=2 dim=1
#pragma HLS array_partition variable=buf type=cyclic factor=2 dim=2
#pragma HLS bind_storage variable=buf type=ram_1p
  for (int i = 0; i < 32; i++)
    for (int j = 0; j < 32; j++) {
#pragma HLS pipeline II=1
      buf[i][j] = in[i][j];
    }
  for (int i = 0; i < 30; i++)
    for (int j = 0; j < 30; j++) {
#pragma HLS pipeline II=1
      out[i][j] = buf[i][j + 1] + buf[i + 1][j] + buf[i + 1][j + 2] + buf[i + 2][j + 1];
    }
}
"""


def test_hand_written_partitions_are_kept_with_a_warning_or_replaced(tmp_path, capsys):
    kernel = tmp_path / "cross.c"
    kernel.write_text(HAND_PARTITIONED)
    code, _, err = run(["compile", str(kernel), "-o", str(tmp_path / "kept")], capsys)
    assert code == 1
    assert "cross.c:4:" in err and "warning" in err and "flat" in err
    kept = (tmp_path / "kept" / "cross.cpp").read_text()
    assert "type=cyclic factor=2 dim=1" in kept and "buf_bank" not in kept
    report = json.loads((tmp_path / "kept" / "report.json").read_text())
    # conflict-free at II 2 on paper, but the banks rotate with j: under the
    # scheduling rule each of the four reads takes the port of every bank
    assert max(loop["achieved_ii"] for loop in report["loops"]) == 4

    code, _, _ = run(["compile", str(kernel), "-o", str(tmp_path / "replaced"),
                      "--replace-partitions"], capsys)
    assert code == 0
    replaced = json.loads((tmp_path / "replaced" / "report.json").read_text())
    buf = next(a for a in replaced["arrays"] if a["name"] == "buf")
    assert buf["banks"] == 4 and buf["conflict_free"]
    assert all(loop["achieved_ii"] == 1 for loop in replaced["loops"])

    code, out, _ = run(["check", str(kernel), "--as-written"], capsys)
    assert code == 1 and "achieved II 4" in out and "arraypart would choose" in out


UNPIPELINED_PARTITION = """\
void d(const int in[1024], int out[1024]) {
#pragma HLS ARRAY_PARTITION variable=out type=cyclic dim=1 factor=16
  for (int i = 0; i < 1024; i++) {
#pragma HLS PIPELINE OFF
    out[i] = in[i] * 3;
  }
}
"""


def test_a_partition_no_concurrent_loop_uses_is_kept_with_a_note(tmp_path, capsys):
    """No pipelined or unrolled loop touches ``out``: the user's cyclic 16 (which
    shapes the top's ports) stays as written, and a note says it lowers no II
    (HLStrans cordic's and gaussian_blur's partitions were dropped silently, probe 35
    F2); --replace-partitions makes it one memory."""
    kernel = tmp_path / "d.cpp"
    kernel.write_text(UNPIPELINED_PARTITION)
    code, _, err = run(["compile", str(kernel), "-o", str(tmp_path / "kept")], capsys)
    assert code == 0
    assert "d.cpp:2:1: warning: the array_partition pragmas of out (per_dim cyclic 16" in err
    assert "lower no II" in err
    assert ("#pragma HLS ARRAY_PARTITION variable=out type=cyclic dim=1 factor=16\n"
            in (tmp_path / "kept" / "d.cpp").read_text())
    code, _, err = run(["compile", str(kernel), "-o", str(tmp_path / "replaced"),
                        "--replace-partitions"], capsys)
    assert code == 0 and "lower no II" not in err
    assert "array_partition" not in (tmp_path / "replaced" / "d.cpp").read_text()


KEPT_UNNORMALISED = """\
void p03(const int in[64], int out[64]) {
  int buf[64];
#pragma HLS array_partition variable=buf type=cyclic factor=128 dim=1
  int sq[4][4];
#pragma HLS array_partition variable=sq complete dim=0
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline off
    buf[i] = in[i] + 1;
    sq[i % 4][i / 16] = in[i];
  }
  for (int i = 0; i < 64; i++) {
#pragma HLS pipeline off
    out[i] = buf[63 - i] + sq[i % 4][i / 16];
  }
}
"""


def test_a_kept_partition_keeps_its_text(tmp_path, capsys):
    """A partition kept as written keeps the user's text: ``cyclic factor=128`` on a
    64-element array and ``complete dim=0`` came out as ``type=complete dim=1`` (probe
    35b F4), equivalent but not what the warning said was kept; so does a
    ``--directives`` command, which the output's directives file keeps in place of a
    pragma of ours."""
    kernel = tmp_path / "p03.cpp"
    kernel.write_text(KEPT_UNNORMALISED)
    code, _, err = run(["compile", str(kernel), "-o", str(tmp_path / "out")], capsys)
    assert code == 0 and err.count("lower no II") == 2
    text = (tmp_path / "out" / "p03.cpp").read_text()
    assert [l for l in text.splitlines() if "array_partition" in l] == [
        "#pragma HLS array_partition variable=buf type=cyclic factor=128 dim=1",
        "#pragma HLS array_partition variable=sq complete dim=0"]
    tcl = tmp_path / "d.tcl"
    tcl.write_text('set_directive_array_partition -type cyclic -factor 128 -dim 1 "p03" buf\n')
    kernel.write_text(KEPT_UNNORMALISED.replace(
        "#pragma HLS array_partition variable=buf type=cyclic factor=128 dim=1\n", ""))
    code, _, err = run(["compile", str(kernel), "--directives", str(tcl),
                        "-o", str(tmp_path / "tcl")], capsys)
    assert code == 0 and err.count("lower no II") == 2
    assert "array_partition variable=buf" not in (tmp_path / "tcl" / "p03.cpp").read_text()
    assert (tmp_path / "tcl" / "directives.tcl").read_text() == tcl.read_text()


UNROLL_FIRST = """\
void s07(const int a[256], int out[256]) {
    for (int j = 0; j < 256; j++) {
#pragma HLS unroll factor=4
#pragma HLS pipeline II=1
        out[j] = a[j] * 3;
    }
}
"""


def test_check_names_a_loop_written_as_blocks_as_compile_does(tmp_path, capsys):
    """The emitted loop header ``for (int j_blk ...`` replaces the original's header
    and its unroll pragma: check located it at the pragma (L3 at 3:20) while compile
    and the trace said L2 (probe 35b F2)."""
    kernel = tmp_path / "s07.cpp"
    kernel.write_text(UNROLL_FIRST)
    code, out, _ = run(["check", str(kernel), "--json"], capsys)
    assert code == 0
    assert [(loop["name"], loop["line"]) for loop in json.loads(out)["loops"]] == [("L2", 2)]


def test_check_json_is_the_report_with_the_checkers_loop_fields(capsys):
    code, out, _ = run(["check", DENOISE, "--as-written", "--json"], capsys)
    assert code == 1
    report = json.loads(out)
    assert REPORT_KEYS <= report.keys() and report["checked"] == "as_written"
    buf = next(a for a in report["arrays"] if a["name"] == "buf")
    assert buf["checked_scheme"]["kind"] == "none" and buf["scheme"]["kind"] == "flat"
    stencil = max(report["loops"], key=lambda loop: loop["achieved_ii"])
    assert LOOP_KEYS <= stencil.keys()
    assert stencil["achieved_ii"] == 4 and stencil["stall_cycles"] == 3 * stencil["iterations"]
    conflict = stencil["first_conflict"]
    assert conflict["array"] == "buf" and conflict["cycle"] == 0 and conflict["reads"] == 4
    assert [a["coord"]["line"] for a in conflict["accesses"]] == [18, 18, 19, 19]


def test_an_unwritable_output_directory_is_a_clean_error(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    code, _, err = run(["compile", DENOISE, "-o", str(blocker / "out")], capsys)
    assert code == 2 and "cannot write the output" in err and "Traceback" not in err
    assert blocker.read_text() == "not a directory"


def test_an_output_path_that_is_a_file_is_never_replaced(tmp_path, capsys):
    target = tmp_path / "report.txt"
    target.write_text("keep me")
    code, _, err = run(["compile", DENOISE, "-o", str(target)], capsys)
    assert code == 2 and "not a directory" in err
    assert target.read_text() == "keep me" and sorted(tmp_path.iterdir()) == [target]


def test_a_warning_at_line_100_keeps_its_location(tmp_path, capsys):
    """rich printed ``k.c:100:7`` as ``k.c💯7`` (its emoji code ``:100:``), also when
    piped (probe 32, F6); and the warning gave the loop's II as a Python dict (F7)."""
    path = tmp_path / "k.c"
    path.write_text("void k(const int in[16], int out[16]) {\n" + "\n" * 98
                    + "  int buf[16];\n"
                    "  for (int i = 0; i < 16; i++) buf[i] = in[i];\n"
                    "  for (int i = 0; i < 16; i++) {\n"
                    "#pragma HLS pipeline II=1\n"
                    "    out[i] = buf[i] + buf[15 - i];\n"
                    "  }\n}\n")
    cli.main(["analyze", str(path), "--ports", "1", "--max-banks", "1"])
    err = capsys.readouterr().err
    assert f"{path}:100:7: warning: no banking of buf" in err
    assert "achieved II 1 in loop L101, 2 in loop L102:" in err and "{" not in err
