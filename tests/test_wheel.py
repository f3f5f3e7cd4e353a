"""The product installs as a wheel and compiles a kernel from there (templates are
package data, not files of the source checkout); the wheel ships the stand-in Vitis
headers."""

import site
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

from conftest import ROOT


def test_wheel_installs_into_a_fresh_venv_and_compiles(tmp_path):
    wheel_dir = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps",
                    "--no-build-isolation", "-q", "-w", str(wheel_dir)],
                   check=True, capture_output=True, cwd=tmp_path)
    wheel = next(wheel_dir.glob("arraypart-*.whl"))
    headers = {f"arraypart/include/{p.name}" for p in (ROOT / "arraypart" / "include").glob("*.h")}
    assert headers and headers <= set(zipfile.ZipFile(wheel).namelist())
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=False)  # the running pip installs into it (--python)
    python = env_dir / "bin" / "python"
    # The running environment's packages provide the dependencies (no network): its
    # site directories go on the new venv's path after the venv's own, as plain path
    # entries (so the editable install of the checkout is not picked up).
    inner_site = subprocess.run([str(python), "-c", "import sysconfig; "
                                 "print(sysconfig.get_paths()['purelib'])"],
                                capture_output=True, text=True, check=True).stdout.strip()
    outer_sites = [*site.getsitepackages(), sysconfig.get_paths()["purelib"]]
    (Path(inner_site) / "outer_env.pth").write_text("\n".join(dict.fromkeys(outer_sites)))
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q",
                    "--no-deps", "--no-index", str(wheel)], check=True, capture_output=True)
    where = subprocess.run([str(python), "-c", "import arraypart; print(arraypart.__file__)"],
                           capture_output=True, text=True, cwd=tmp_path, check=True)
    assert str(env_dir) in where.stdout
    done = subprocess.run([str(env_dir / "bin" / "arraypart"), "compile",
                           str(ROOT / "kernels" / "denoise.c"), "-o", str(tmp_path / "out")],
                          capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out" / "denoise.cpp").read_text().count("denoise") >= 1
    assert (tmp_path / "out" / "run_hls.tcl").exists()
