"""The RTL model of banked memories: Verilog, simulation, synthesis and a fitted cost."""

from .model import Memory, memory
from .verilog import render

__all__ = ["Memory", "memory", "render"]
