"""Unroll, pipeline and stencil pragmas of a loop, and what they can claim.

The pragmas a loop's header holds (``unroll``, ``pipeline``, ``loop_tripcount``), the
stencil directive over its iterations, the check that a pipelined loop's inner loops
unroll (:func:`check_unrollable`), and how many bounds of a nest are inexact
(:func:`imprecision`).  Part of :class:`.loops.LoopLowering`.
"""

from __future__ import annotations

from dataclasses import replace

from .. import expr as E
from ..errors import Coord, KernelError, warning_text
from ..ir import If, Loop, Node, accesses
from . import cnodes as N
from . import fresh as F
from . import stencil
from .pipelining import INFERRED_II
from .pragmas import LOOP_DIRECTIVES



class LoopPragmaLowering:
    """A loop's pragmas and stencils (a :class:`.loops.LoopLowering` part)."""


    def _stencils(self, loop: Loop, header: list[N.Pragma], node: N.For) -> Loop:
        """``loop`` with the reads of each array its ``array_stencil`` pragmas name
        marked as window reads where Vitis applies the pragma (:mod:`.stencil`); a
        located warning for each pragma it does not apply."""
        parsed = (self._pragmas.parse(n) for n in header)
        for pragma in (one for p in parsed if p is not None
                       for one in self._pragmas.each_variable(p)):
            if (pragma.kind != stencil.DIRECTIVE
                    or self._pragmas.off(pragma)):
                continue
            c_name = pragma.option("variable")
            why = self._stencil_refusal(loop, c_name, node)
            if why is None:
                array = self._visible[c_name].array
                loop = replace(loop, body=stencil.windowed(loop.body, array))
                if not self._followed:
                    self._windows[array] = loop.name
            elif not self._followed:
                self._warnings.append(warning_text(self._pragmas.coord(pragma, "variable"), (
                    f"array_stencil on {c_name or 'nothing'} is not modelled: {why}; Vitis "
                    "HLS applies it only to its canonical form (UG1399), so its reads "
                    "count as written")))
        return loop

    def _stencil_refusal(self, loop: Loop, c_name: str | None, node: N.For) -> str | None:
        """Why ``c_name``'s reads in ``loop`` are no window (:func:`.stencil.refusal`)."""
        binding = self._visible.get(c_name)
        if c_name is None:
            return "it names no variable= array"
        if len(self._calls) > 1:
            return "its loop is not in the top function"
        if binding is None or not self._arrays[binding.array].interface:
            return f"'{c_name}' is not an array argument of the top function"
        array = self._arrays[binding.array]
        if loop.pipeline_ii != 1:
            return f"loop {loop.name} is not pipelined at II 1"
        if array.partitions or array.reshapes:
            return f"{c_name} is partitioned or reshaped, and Vitis then ignores the stencil"
        if array.name in self._windows and self._windows[array.name] != loop.name:
            return f"{c_name} already has a window in loop {self._windows[array.name]}"
        if not stencil.perfect_nest(self._func.body, node):
            return "its loop nest is not perfect"
        if stencil.passed_to_a_call(node, c_name):
            return f"a function called in loop {loop.name} takes {c_name}"
        ends = [self._ends[v] for v in self._iterators]
        return stencil.refusal(loop, array.name, ends)

    def _loop_pragmas(self, header: list[N.Pragma], *, unroll: bool = True,
                      at: Coord | None = None) -> tuple[int | None, int | None, bool]:
        """``(pipeline II, unroll, pipeline off)`` from the pragmas that open a loop
        body (a function body, without ``unroll``: only ``pipeline``); the loop at
        ``at`` is not pipelined when it is one Vitis cannot pipeline
        (:class:`Unpipelinable`), and is pipelined at II 1 when Vitis pipelines it by
        itself for a short loop inside it (``_raised``, :mod:`.pipelining`)."""
        found: dict[str, int | None] = {}
        off = False
        for node in header:
            pragma = self._pragmas.parse(node)
            if pragma is None or pragma.kind not in LOOP_DIRECTIVES:
                continue
            if pragma.kind == "unroll" and not unroll:
                raise KernelError(self._pragmas.coord(pragma),
                                  "#pragma HLS unroll must open a loop body (be its "
                                  "first statement)")
            if pragma.kind in found:
                raise KernelError(self._pragmas.coord(pragma),
                                  f"duplicate #pragma HLS {pragma.kind} in one loop")
            read = self._pragmas.pipeline_ii if pragma.kind == "pipeline" else self._pragmas.unroll
            found[pragma.kind] = read(pragma)
            off = off or (pragma.kind == "pipeline" and self._pragmas.off(pragma))
        if at in self._unpipelined:
            found.pop("pipeline", None)
        elif at in self._raised and not found and not self._pipelines:
            found["pipeline"] = INFERRED_II
        return found.get("pipeline"), found.get("unroll"), off



class Unpipelinable(KernelError):
    """A pipelined loop (at ``pipelined``) holds a loop whose trip count is no constant:
    Vitis cannot unroll that loop, so it does not pipeline the outer one
    (:func:`.lower.lower_function` lowers the function again without that pipeline)."""

    def __init__(self, coord: Coord, message: str, pipelined: Coord, warning: str):
        super().__init__(coord, message)
        self.pipelined = pipelined
        self.warning = warning


def check_unrollable(pipelined: Loop, nodes: tuple[Node, ...],
                     unrolled: frozenset[str] = frozenset()) -> None:
    """Every loop inside a pipelined loop is fully unrolled, so its trip count
    ``(bound - init) / step + 1`` must be a constant in each unrolled copy: one start,
    one bound, and ``bound - init`` a constant or a quasi-affine form of the iterators
    of the unrolled loops around it (``for (k = 0; k <= j; k++)``, or odd-even
    transposition's ``for (k = s % 2; ...)`` in an unrolled s)."""
    for node in nodes:
        if isinstance(node, Loop):
            span = E.add(node.bound[0], E.scale(-1, node.init[0]))
            if (len(node.init) != 1 or len(node.bound) != 1
                    or not E.variables(span) <= unrolled):
                raise Unpipelinable(node.coord, (
                    f"loop '{node.name}' inside pipelined loop '{pipelined.name}' is fully "
                    "unrolled, so its trip count must be a constant (Vitis cannot unroll "
                    f"it either, and leaves '{pipelined.name}' unpipelined): give it a "
                    "constant bound and test the variable one inside (for (k = 0; k < MAX; "
                    f"k++) if (k < n) ...), or pipeline '{node.name}' instead"),
                    pipelined.coord, warning_text(pipelined.coord, (
                        f"loop '{pipelined.name}' is not pipelined: it holds loop "
                        f"'{node.name}' ({node.coord.line}:{node.coord.col}), whose trip "
                        "count is not a constant, so Vitis cannot unroll it and ignores the "
                        "pipeline (give that loop a constant bound and test the variable "
                        "one inside, or pipeline it instead)")))
            check_unrollable(pipelined, node.body, unrolled | {node.var})
        elif isinstance(node, If):
            check_unrollable(pipelined, node.then + node.orelse, unrolled)


def imprecision(nodes: tuple[Node, ...]) -> int:
    """How far ``nodes`` fall short of exact: the irregular dimensions of their
    accesses, their data-dependent conditions and their loop ends that are fresh sizes
    (:mod:`.fresh`)."""
    return sum(e is None for a in accesses(nodes) for e in a.index) + _inexact_ends(nodes)


def _inexact_ends(nodes: tuple[Node, ...]) -> int:
    count = 0
    for node in nodes:
        if isinstance(node, If):
            count += (node.cond is None) + _inexact_ends(node.then + node.orelse)
        elif isinstance(node, Loop):
            ends = node.init + node.bound
            count += any(F.NAME_MARK in v for e in ends for v in E.variables(e))
            count += _inexact_ends(node.body)
    return count
