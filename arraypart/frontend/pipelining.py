"""Vitis HLS's automatic loop pipelining, as a pass ``kernel body -> kernel body``.

Vitis pipelines a loop that no pragma pipelines once the user's directives are applied
(UG1399, "Automatic Loop Pipelining"): every innermost loop, that is a loop with no loop
inside it other than fully unrolled ones (they disappear first), gets
``#pragma HLS pipeline II=1`` unless ``#pragma HLS pipeline off`` opens it, it is fully
unrolled itself, or it lies inside a pipelined loop (which unrolls it).  Vitis's
``pipeline_loops`` trip-count threshold is not modelled: every such loop is pipelined.
Calls are inlined before this pass, so a loop whose callee holds loops is not innermost
(Vitis does not unroll a callee's loops into the caller's pipeline by default).
"""

from __future__ import annotations

from dataclasses import replace

from ..ir import If, Loop, Node

INFERRED_II = 1  # the II Vitis asks of a loop it pipelines by itself


def auto_pipeline(body: tuple[Node, ...]) -> tuple[Node, ...]:
    """``body`` with Vitis's default pipelining made explicit (``pipeline_inferred``)."""
    return tuple(_infer(n) for n in body)


def _infer(node: Node) -> Node:
    if isinstance(node, If):
        return replace(node, then=auto_pipeline(node.then), orelse=auto_pipeline(node.orelse))
    if not isinstance(node, Loop) or node.pipeline_ii is not None:
        return node
    loop = replace(node, body=auto_pipeline(node.body))
    if loop.pipeline_off or loop.unroll == 0 or _has_loop(loop.body):
        return loop
    return replace(loop, pipeline_ii=INFERRED_II, pipeline_inferred=True)


def _has_loop(nodes: tuple[Node, ...]) -> bool:
    """Whether a loop that stays a loop (not fully unrolled) lies in ``nodes``."""
    for node in nodes:
        if isinstance(node, If) and _has_loop(node.then + node.orelse):
            return True
        if isinstance(node, Loop) and (node.unroll != 0 or _has_loop(node.body)):
            return True
    return False
