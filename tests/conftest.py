"""Shared fixtures: the kernel suite and tool availability."""

import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
KERNELS = sorted((ROOT / "kernels").glob("*.c"))
HAVE_GXX = shutil.which("g++") is not None

needs_gxx = pytest.mark.skipif(not HAVE_GXX, reason="g++ is not installed")
