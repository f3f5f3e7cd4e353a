"""The RTL model of banked memories (one pass: banking -> Verilog + measured cost).

:func:`memory` builds the model of one array's banking and lanes, :func:`render` its
Verilog, :func:`synthesize` counts it with yosys, :func:`simulate` (``.sim``) runs it
in iverilog against the checker's iterations, and :func:`estimate` predicts the count
without synthesis (milliseconds) from the fitted model in ``cost_model.json``.
"""

from .cost import estimate, estimate_memory
from .model import Memory, memory
from .synth import Resources, SynthesisError, synthesize, synthesize_many
from .verilog import render

__all__ = ["Memory", "Resources", "SynthesisError", "estimate", "estimate_memory", "memory",
           "render", "synthesize", "synthesize_many"]
