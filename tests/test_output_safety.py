"""Output safety (DESIGN §4): -o writes only arraypart's own files, whole or not at all,
and no name or option reaches Tcl, cfg or C++ as code."""

import os
import shutil
import signal
import stat
import subprocess
import sys
import time

import pytest

import arraypart
from arraypart import cli, output

from conftest import ROOT, alarm, needs_gxx, suite_kernel

DENOISE = ROOT / "kernels" / "denoise.c"
BICUBIC = ROOT / "kernels" / "bicubic.c"


def run(argv, capsys):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def snapshot(folder):
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


def leftovers(*folders):
    return [p for folder in folders for p in folder.iterdir()
            if p.name.startswith(output.TEMP_MARK)]


def test_a_folder_with_other_files_is_refused_and_left_alone(tmp_path, capsys):
    kernel = tmp_path / "denoise.c"
    kernel.write_bytes(DENOISE.read_bytes())
    (tmp_path / "notes.txt").write_text("mine")
    before = snapshot(tmp_path)
    code, _, err = run(["compile", kernel, "-o", tmp_path], capsys)
    assert code == 2 and err.startswith(f"{tmp_path}:") and "denoise.c, notes.txt" in err
    assert "--force" in err and snapshot(tmp_path) == before


def test_force_replaces_only_arraypart_files_and_keeps_the_folder(tmp_path, capsys):
    out = tmp_path / "out"
    assert run(["compile", DENOISE, "-o", out, "--dump-maps"], capsys)[0] == 0
    first = snapshot(out)
    assert {"maps/buf.npz", "denoise.cpp", output.MANIFEST} <= first.keys()
    (out / "denoise_prj").mkdir()
    (out / "denoise_prj" / "vitis.log").write_text("a synthesis run")
    first["denoise_prj/vitis.log"] = b"a synthesis run"
    out.chmod(0o751)
    code, _, err = run(["compile", DENOISE, "-o", out], capsys)
    assert code == 2 and "denoise_prj" in err and snapshot(out) == first
    assert run(["compile", BICUBIC, "-o", out, "--force"], capsys)[0] == 0
    after = snapshot(out)
    assert after["denoise_prj/vitis.log"] == b"a synthesis run"
    assert "bicubic.cpp" in after and "denoise.cpp" not in after
    assert not (out / "maps").exists()  # only the old maps filled it
    assert stat.S_IMODE(out.stat().st_mode) == 0o751
    assert sorted(output.read_manifest(out)) == sorted(
        k for k in after if k not in (output.MANIFEST, "denoise_prj/vitis.log"))


def test_an_edited_output_file_counts_as_the_users(tmp_path, capsys):
    out = tmp_path / "out"
    assert run(["compile", DENOISE, "-o", out], capsys)[0] == 0
    (out / "run_hls.tcl").write_text("# my own flow\n")
    code, _, err = run(["compile", DENOISE, "-o", out], capsys)
    assert code == 2 and "run_hls.tcl" in err
    assert (out / "run_hls.tcl").read_text() == "# my own flow\n"
    assert run(["compile", DENOISE, "-o", out], capsys)[0] == 2
    assert run(["compile", DENOISE, "-o", out, "--force"], capsys)[0] == 0
    assert (out / "run_hls.tcl").read_text().startswith("# Vitis HLS flow")


def test_a_file_arraypart_did_not_write_is_never_overwritten(tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (out / "denoise.cpp").write_text("// the user's own denoise.cpp\n")
    code, _, err = run(["compile", DENOISE, "-o", out, "--force"], capsys)
    assert code == 2 and "denoise.cpp" in err and "not even with --force" in err
    assert sorted(p.name for p in out.iterdir()) == ["denoise.cpp"]


def test_a_new_folder_gets_the_usual_mode_and_an_empty_one_is_used(tmp_path, capsys):
    previous = os.umask(0o022)
    try:
        assert run(["compile", DENOISE, "-o", tmp_path / "new"], capsys)[0] == 0
    finally:
        os.umask(previous)
    assert stat.S_IMODE((tmp_path / "new").stat().st_mode) == 0o755
    empty = tmp_path / "empty"
    empty.mkdir(mode=0o700)
    assert run(["compile", DENOISE, "-o", empty], capsys)[0] == 0
    assert stat.S_IMODE(empty.stat().st_mode) == 0o700 and (empty / "denoise.cpp").exists()
    assert leftovers(tmp_path, tmp_path / "new", empty) == []


def test_an_existing_folder_is_never_renamed(tmp_path, capsys, monkeypatch):
    """A mount point cannot be renamed (EBUSY): the output folder itself never is."""
    out = tmp_path / "mnt"
    out.mkdir()
    real_rename, real_replace = os.rename, os.replace

    def refuse_target(rename):
        def guarded(source, destination, *args, **kwargs):
            if os.path.abspath(source) == str(out):
                raise OSError(16, "Device or resource busy")
            return rename(source, destination, *args, **kwargs)
        return guarded

    monkeypatch.setattr(os, "rename", refuse_target(real_rename))
    monkeypatch.setattr(os, "replace", refuse_target(real_replace))
    assert run(["compile", DENOISE, "-o", out], capsys)[0] == 0
    assert run(["compile", DENOISE, "-o", out], capsys)[0] == 0
    assert (out / "denoise.cpp").exists() and leftovers(tmp_path, out) == []


def test_a_signal_during_the_commit_waits_for_it(tmp_path, monkeypatch):
    compiled = suite_kernel("denoise")
    out = tmp_path / "out"
    arraypart.write_project(suite_kernel("bicubic"), out)
    real_replace = os.replace

    def interrupted_replace(source, destination):
        os.kill(os.getpid(), signal.SIGINT)
        return real_replace(source, destination)

    monkeypatch.setattr(os, "replace", interrupted_replace)
    with pytest.raises(KeyboardInterrupt):
        arraypart.write_project(compiled, out)
    monkeypatch.undo()
    assert snapshot(out) == snapshot(arraypart.write_project(compiled, tmp_path / "again"))
    assert leftovers(tmp_path, out) == []


def test_a_signal_while_the_staging_folder_is_made_leaves_none(tmp_path, monkeypatch):
    """An interruption that arrives during the staging folder's mkdir is raised when it
    returns: it left the empty folder behind (seen under load in the test below, the
    signal landing there).  The old output stays, or none; no staging folder either
    way."""
    compiled = suite_kernel("denoise")
    out = tmp_path / "out"
    arraypart.write_project(suite_kernel("bicubic"), out)
    before = snapshot(out)
    made = output._new_dir

    def interrupted(parent, prefix):
        folder = made(parent, prefix)
        os.kill(os.getpid(), signal.SIGINT)
        return folder

    monkeypatch.setattr(output, "_new_dir", interrupted)
    for folder in (out, tmp_path / "new"):
        with pytest.raises(KeyboardInterrupt):
            arraypart.write_project(compiled, folder)
    assert snapshot(out) == before and not (tmp_path / "new").exists()
    assert leftovers(tmp_path, out) == []


def test_an_error_during_the_commit_restores_the_old_output(tmp_path, monkeypatch):
    out = tmp_path / "out"
    arraypart.write_project(suite_kernel("bicubic"), out)
    before = snapshot(out)
    real_replace, calls = os.replace, []

    def failing_replace(source, destination):
        calls.append(source)
        if len(calls) == 4:
            raise OSError(28, "No space left on device")
        return real_replace(source, destination)

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(arraypart.KernelError, match="No space left"):
        arraypart.write_project(suite_kernel("denoise"), out)
    assert snapshot(out) == before and leftovers(tmp_path, out) == []


def handlers_installed(pid):
    """Whether process ``pid`` catches SIGTERM yet (arraypart.launch has started)."""
    with open(f"/proc/{pid}/status") as status:
        caught = next(line for line in status if line.startswith("SigCgt:"))
    return bool(int(caught.split()[1], 16) >> (signal.SIGTERM - 1) & 1)


COMMAND = (sys.executable, "-m", "arraypart", "compile")


@pytest.fixture(scope="module")
def old_and_new(tmp_path_factory):
    """The folders the command line writes for bicubic (the old output) and denoise
    (the new one), each compiled once: identical inputs give identical output."""
    folder = tmp_path_factory.mktemp("outputs")
    for kernel, name in ((BICUBIC, "old"), (DENOISE, "new")):
        subprocess.run([*COMMAND, kernel, "-o", folder / name], check=True,
                       capture_output=True)
    return folder / "old", folder / "new"


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="needs Linux /proc")
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_signals_at_any_moment_leave_old_or_new_output(tmp_path, old_and_new, signum):
    """The command line signalled at several moments from the first line arraypart
    runs to its last: exit 0 or 128 + signal, no traceback, old or new output whole.
    Before each signal the folder holds the old output (a copy of it)."""
    out = tmp_path / "out"
    old, new = (snapshot(folder) for folder in old_and_new)
    for delay in (0.0, 0.1, 0.6, 1.5):
        if not out.exists() or snapshot(out) != old:
            shutil.rmtree(out, ignore_errors=True)
            shutil.copytree(old_and_new[0], out)
        process = subprocess.Popen([*COMMAND, DENOISE, "-o", out, "--force"],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        with alarm(30):
            while process.poll() is None and not handlers_installed(process.pid):
                time.sleep(0.001)
        time.sleep(delay)
        process.send_signal(signum)
        _, err = process.communicate(timeout=60)
        assert process.returncode in (0, 128 + signum), (delay, err)
        assert b"Traceback" not in err and (process.returncode == 0 or b"interrupted" in err)
        assert snapshot(out) in (old, new) and leftovers(tmp_path, out) == []


def test_hostile_file_names_never_become_code(tmp_path, capsys):
    for stem in ("x[exec touch PWNED]", "a b", "nl\nint x;", "x;y", 'q"', "d$x", "b{c}"):
        kernel = tmp_path / f"{stem}.c"
        kernel.write_bytes(DENOISE.read_bytes())
        code, _, err = run(["compile", kernel, "-o", tmp_path / "out"], capsys)
        assert code == 2 and "rename the file" in err and err.count("\n") == 1, stem
        assert not (tmp_path / "out").exists()
    assert not any(p.name == "PWNED" for p in tmp_path.rglob("*"))


@needs_gxx
def test_a_newline_in_the_folder_name_stays_in_a_comment(tmp_path, capsys):
    folder = tmp_path / "d\nint broken;\n"
    folder.mkdir()
    kernel = folder / "denoise.c"
    kernel.write_bytes(DENOISE.read_bytes())
    out = tmp_path / "out"
    assert run(["compile", kernel, "-o", out], capsys)[0] == 0
    text = (out / "denoise.cpp").read_text()
    assert "int broken;" in text.splitlines()[0] and "\nint broken;" not in text
    subprocess.run(["g++", "-std=c++14", "-fsyntax-only", out / "denoise.cpp"], check=True)


def test_part_and_clock_are_validated(capsys):
    for option in (["--part", "x}; exec touch PWNED; #"], ["--part", "a b"],
                   ["--part", "x\ny"], ["--clock", "inf"], ["--clock", "nan"]):
        with pytest.raises(SystemExit) as usage:
            cli.main(["compile", str(DENOISE), *option])
        err = capsys.readouterr().err
        assert usage.value.code == 2 and option[0] in err and "Traceback" not in err


def test_tcl_words_are_literal():
    from arraypart.codegen.project import tcl_word
    assert tcl_word("xcu250-figd2104-2L-e") == "xcu250-figd2104-2L-e"
    assert tcl_word("a b[c]$d;") == "{a b[c]$d;}"
    for bad in ("a{b", "a}b", "a\\b", "a\nb"):
        with pytest.raises(ValueError):
            tcl_word(bad)


def test_the_tcl_and_cfg_hold_the_validated_part(tmp_path, capsys):
    out = tmp_path / "out"
    assert run(["compile", DENOISE, "-o", out, "--part", "xilinx.com:au250:part0:1.3"],
               capsys)[0] == 0
    assert "set_part xilinx.com:au250:part0:1.3\n" in (out / "run_hls.tcl").read_text()
    assert "part=xilinx.com:au250:part0:1.3\n" in (out / "hls_config.cfg").read_text()


def test_identical_inputs_give_byte_identical_output(tmp_path, capsys):
    """solve_seconds is 0.0 without --timings; map archives carry no timestamps."""
    outputs = []
    for name in ("one", "two"):
        if outputs:
            time.sleep(1.1)  # a zip timestamp has a resolution of two seconds
        assert run(["compile", DENOISE, "-o", tmp_path / name, "--dump-maps"], capsys)[0] == 0
        outputs.append(snapshot(tmp_path / name))
    assert outputs[0] == outputs[1] and "maps/buf.npz" in outputs[0]
    code, out, _ = run(["analyze", DENOISE, "--json", "--timings"], capsys)
    assert code == 0 and '"solve_seconds": 0.0,' not in out
