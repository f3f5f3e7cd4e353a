"""Code generation: IR + banking -> Vitis HLS C++, C-simulation testbench, Tcl and cfg."""

from .kernel import crossbars
from .project import DEFAULT_CLOCK_NS, DEFAULT_PART, DIRECTIVES_FILE, emit

__all__ = ["DEFAULT_CLOCK_NS", "DEFAULT_PART", "DIRECTIVES_FILE", "crossbars", "emit"]
