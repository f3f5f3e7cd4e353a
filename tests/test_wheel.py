"""The product installs as a wheel and compiles a kernel from there (templates are
package data, not files of the source checkout)."""

import subprocess
import sys
import venv

from conftest import ROOT


def test_wheel_installs_into_a_fresh_venv_and_compiles(tmp_path):
    wheel_dir = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps",
                    "--no-build-isolation", "-q", "-w", str(wheel_dir)],
                   check=True, capture_output=True, cwd=tmp_path)
    wheel = next(wheel_dir.glob("arraypart-*.whl"))
    env_dir = tmp_path / "venv"
    # System site packages provide the dependencies (no network); the wheel's own
    # arraypart comes first on the venv's path.
    venv.create(env_dir, system_site_packages=True, with_pip=True)
    python = env_dir / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index",
                    str(wheel)], check=True, capture_output=True)
    where = subprocess.run([str(python), "-c", "import arraypart; print(arraypart.__file__)"],
                           capture_output=True, text=True, cwd=tmp_path, check=True)
    assert str(env_dir) in where.stdout
    done = subprocess.run([str(env_dir / "bin" / "arraypart"), "compile",
                           str(ROOT / "kernels" / "denoise.c"), "-o", str(tmp_path / "out")],
                          capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out" / "denoise.cpp").read_text().count("denoise") >= 1
    assert (tmp_path / "out" / "run_hls.tcl").exists()
