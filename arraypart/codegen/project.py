"""``emit``: the HLS project files for one banked kernel, rendered from jinja2 templates.

The templates ship as the package ``arraypart.templates`` (the repository's
``templates/`` folder) and are read through :mod:`importlib.resources`, so they load
from an installed wheel as well as from a checkout.
"""

from __future__ import annotations

from importlib import resources

import jinja2

from ..banking.solution import Solution
from ..ir import Kernel
from .kernel import banked_source
from .testbench import testbench_context

# A current AMD part (Alveo U250, UltraScale+) that Vitis examples and the banking
# literature target, with ample BRAM, so synthesis results stay comparable.
DEFAULT_PART = "xcu250-figd2104-2L-e"
# Vitis HLS's own default period (UG1702: "a default period of 10 ns is used"), so the
# generated project schedules like an unconfigured one.
DEFAULT_CLOCK_NS = 10.0

_TEMPLATES = {
    "{kernel}.cpp": "kernel.cpp.j2",
    "{kernel}_tb.cpp": "testbench.cpp.j2",
    "run_hls.tcl": "run_hls.tcl.j2",
    "hls_config.cfg": "hls_config.cfg.j2",
}


def _load(name: str) -> str:
    return resources.files("arraypart.templates").joinpath(name).read_text(encoding="utf-8")


def _environment() -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.FunctionLoader(_load),
                              undefined=jinja2.StrictUndefined, trim_blocks=True,
                              lstrip_blocks=True, keep_trailing_newline=True,
                              autoescape=False)


def emit(kernel: Kernel, solution: Solution, *, part: str = DEFAULT_PART,
         clock_ns: float = DEFAULT_CLOCK_NS) -> dict[str, str]:
    """Relative file name -> text: ``<kernel>.cpp`` (the banked top function),
    ``<kernel>_tb.cpp`` (the C-simulation testbench), ``run_hls.tcl`` and
    ``hls_config.cfg``.  Raises :class:`arraypart.errors.KernelError` when a banking
    cannot be written for this source."""
    context = {
        "kernel": kernel.name,
        "top": kernel.top,
        "source": kernel.path,
        "code": banked_source(kernel, solution),
        "part": part,
        "clock": f"{clock_ns:g}",
    }
    context.update(testbench_context(kernel))
    env = _environment()
    return {pattern.format(kernel=kernel.name): env.get_template(template).render(context)
            for pattern, template in _TEMPLATES.items()}
