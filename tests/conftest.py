"""Shared fixtures: the kernel suite and tool availability."""

import shutil
import signal
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
KERNELS = sorted((ROOT / "kernels").glob("*.c"))
HAVE_GXX = shutil.which("g++") is not None

needs_gxx = pytest.mark.skipif(not HAVE_GXX, reason="g++ is not installed")


@contextmanager
def alarm(seconds: float):
    """Raise ``TimeoutError`` if the block runs longer than ``seconds`` (a hang)."""
    def expire(signum, frame):
        raise TimeoutError(f"no answer after {seconds} s")
    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
