"""Vitis HLS's automatic loop pipelining, as a pass ``kernel body -> kernel body``.

Vitis pipelines a loop that no pragma pipelines once the user's directives are applied
(UG1399, "Automatic Loop Pipelining" and ``config_compile -pipeline_loops``, whose
threshold defaults to 64).  It starts from every innermost loop, that is a loop with no
loop inside it other than fully unrolled ones (they disappear first), unless
``#pragma HLS pipeline off`` opens it, it is fully unrolled itself, or it lies inside a
pipelined loop (which unrolls it).  While that candidate's trip count is at most the
threshold and it has a parent loop, the parent is pipelined instead and the candidate
is unrolled into it; the climb then repeats from the parent.  The final candidate gets
``#pragma HLS pipeline II=1``, every loop inside it fully unrolled, exactly as that
pragma written there would do.

The guide's versions word this differently.  The ``config_compile`` reference of
2020.2-2022.1 says that an innermost loop whose trip count exceeds the threshold is
pipelined, that otherwise its parent is, and that an innermost loop with no parent is
pipelined whatever its trip count; from 2023.1 the guide says the tool starts at the
innermost loop and moves up the nest, unrolling the inner loop into its parent and
marking the parent, then repeats at the next parent, and that loops above the threshold
are pipelined.  Read together (and as Xilinx's own matmul_partition example comments:
its 16-trip inner loop is unrolled into the pipelined loop above), the climb goes on
while the trip count is at most the threshold.  The 2021.2-2022.2 pages' "below this
limit" sentence and their example (an innermost loop of 5 pipelined at threshold 6)
contradict the reference of the same releases and are not followed; so is the 2020.2
reference's aside that the default pipelines loops "of 64, or greater" (its own rule
moves past a loop of exactly 64 trips, as arraypart does).

The climb stops, leaving the current candidate pipelined, at a loop whose trip count is
not a compile-time constant (Vitis compares the trip count it can prove:
``LOOP_TRIPCOUNT`` is for reports only, UG1399 says it does not change synthesis, so it
plays no part here), at a loop that a ``break`` or ``return`` may end early (a loop with
an unroll factor counts its blocks of iterations: the directive applies first), and
where the parent is not one the candidate can be unrolled into: one of another function
(calls are inlined before this pass, yet Vitis does not unroll a callee's loops into the
caller's pipeline by default), one that ``pipeline off`` opens or a pragma unrolls, or
one holding another loop that is not fully unrollable at once (every loop of the
parent's body must have a constant trip count, at most the threshold unless a pragma
fully unrolls it, and no pragma pipelining it or turning it off).  A threshold of 0
pipelines nothing by itself (``--no-auto-pipeline``; Vivado HLS's guide, UG902, gave 0
as "no automatic loop pipelining").

A parent the climb reaches must be lowered as a pipelined loop (its inner loops are
lanes), so :func:`raised_pipelines` finds them on a first lowering, the function is
lowered again with them pipelined (:func:`.lower.lower_function`), and
:func:`auto_pipeline` then marks them and pipelines the innermost loops left.  A loop of
an inlined function is raised only where the climb reaches it in every inlined copy
(elsewhere its short loops stay pipelined themselves).  A trip count is the one the
front end finds, which may follow an inlined call's constant argument where Vitis, for
a function it does not inline, would see a run-time value.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from .. import expr as E
from ..errors import Coord, warning_text
from ..ir import If, Loop, Node

INFERRED_II = 1  # the II Vitis asks of a loop it pipelines by itself
PIPELINE_LOOPS = 64  # Vitis's default config_compile -pipeline_loops threshold
# The most copies of the innermost bodies a parent the climb reaches may unroll: past
# it the banking search and the checker do not finish in their time limits (MachSuite's
# blocked gemm would unroll 32,768), so the climb stops there, with a warning.
MAX_RAISED_LANES = 1024


def auto_pipeline(body: tuple[Node, ...], raised: frozenset[Coord] = frozenset()
                  ) -> tuple[Node, ...]:
    """``body`` with Vitis's default pipelining made explicit (``pipeline_inferred``):
    the loops at ``raised`` (lowered as pipelined already) are marked, and every
    innermost loop outside them is pipelined."""
    return tuple(_infer(n, raised) for n in body)


def _infer(node: Node, raised: frozenset[Coord]) -> Node:
    if isinstance(node, If):
        return replace(node, then=auto_pipeline(node.then, raised),
                       orelse=auto_pipeline(node.orelse, raised))
    if not isinstance(node, Loop):
        return node
    if node.pipeline_ii is not None:
        return replace(node, pipeline_inferred=True) if node.coord in raised else node
    loop = replace(node, body=auto_pipeline(node.body, raised))
    if loop.pipeline_off or loop.unroll == 0 or _has_loop(loop.body):
        return loop
    return replace(loop, pipeline_ii=INFERRED_II, pipeline_inferred=True)


def raised_pipelines(body: tuple[Node, ...], threshold: int
                     ) -> tuple[frozenset[Coord], tuple[str, ...]]:
    """Where the climb from an innermost loop of at most ``threshold`` trips ends at an
    enclosing loop (see the module's rule): those loops' coordinates, each only when
    the climb ends there in every copy of it; and a warning at each loop where the
    climb stopped short of unrolling more than :data:`MAX_RAISED_LANES` copies."""
    copies: dict[Coord, list[int]] = {}
    ends: set[int] = set()
    capped: dict[Coord, str] = {}
    for nest, candidate in _candidates(body, ()):
        final, wider = _climb(nest, candidate, threshold)
        if final is not candidate:
            ends.add(id(final))
        if wider is not None:
            capped[final.coord] = warning_text(final.coord, (
                f"Vitis may pipeline loop '{wider.name}' ({wider.coord.line}:"
                f"{wider.coord.col}) in place of loop '{final.name}' (its trip counts are "
                f"at most the pipeline_loops threshold, {threshold}), unrolling "
                f"{_lanes(wider.body)} copies of the body; arraypart models at most "
                f"{MAX_RAISED_LANES} and banks for '{final.name}' pipelined, which may "
                "not be what Vitis builds (add #pragma HLS pipeline where you want it)"))
    for loop in _unpipelined_loops(body):
        copies.setdefault(loop.coord, []).append(id(loop))
    return (frozenset(coord for coord, ids in copies.items() if all(i in ends for i in ids)),
            tuple(capped.values()))


def _candidates(nodes: tuple[Node, ...], nest: tuple[Loop, ...]
                ) -> Iterator[tuple[tuple[Loop, ...], Loop]]:
    """``(enclosing loops, innermost loop)`` for each loop that :func:`_infer` would
    pipeline, outside every pipelined loop."""
    for node in nodes:
        if isinstance(node, If):
            yield from _candidates(node.then + node.orelse, nest)
        elif isinstance(node, Loop) and node.pipeline_ii is None:
            yield from _candidates(node.body, nest + (node,))
            if not (node.pipeline_off or node.unroll == 0 or _has_loop(node.body)):
                yield nest, node


def _unpipelined_loops(nodes: tuple[Node, ...]) -> Iterator[Loop]:
    """The loops outside every pipelined loop."""
    for node in nodes:
        if isinstance(node, If):
            yield from _unpipelined_loops(node.then + node.orelse)
        elif isinstance(node, Loop) and node.pipeline_ii is None:
            yield node
            yield from _unpipelined_loops(node.body)


def _climb(nest: tuple[Loop, ...], candidate: Loop, threshold: int
           ) -> tuple[Loop, Loop | None]:
    """The loop Vitis pipelines for the innermost loop ``candidate`` inside the loops
    ``nest`` (outermost first), as modelled; and the parent the climb would have gone
    on to but for :data:`MAX_RAISED_LANES` (None when it did not stop there)."""
    for parent in reversed(nest):
        if not (_short(candidate, threshold) and _takes(parent, candidate, threshold)):
            break
        if _lanes(parent.body) > MAX_RAISED_LANES:
            return candidate, parent
        candidate = parent
    return candidate, None


def _lanes(nodes: tuple[Node, ...]) -> int:
    """How many copies of the innermost bodies in ``nodes`` fully unrolling every loop
    there makes (a loop without a constant trip count counts once)."""
    total = 0
    for node in nodes:
        if isinstance(node, If):
            total += _lanes(node.then + node.orelse)
        elif isinstance(node, Loop):
            total += (_trip_count(node) or 1) * _lanes(node.body)
    return max(total, 1)


def _short(loop: Loop, threshold: int) -> bool:
    """A loop the climb moves past: a constant trip count of at most ``threshold`` once
    its unroll factor, applied first, has made blocks of its iterations (the emitted
    code writes those blocks as a loop of that many trips), and no ``break`` or
    ``return`` that may end it early."""
    trips = _trip_count(loop)
    if trips is not None and loop.unroll:
        trips = -(-trips // loop.unroll)
    return trips is not None and trips <= threshold and loop.early_exit != "loop"


def _takes(parent: Loop, candidate: Loop, threshold: int) -> bool:
    """Whether ``parent`` can be pipelined with ``candidate`` and every other loop of
    its body fully unrolled into it."""
    if (parent.pipeline_off or parent.unroll is not None
            or _function(parent) != _function(candidate)):
        return False
    return all(_unrollable(loop, threshold)
               for loop in _inner_loops(parent.body, candidate))


def _inner_loops(nodes: tuple[Node, ...], skipped: Loop) -> Iterator[Loop]:
    """Every loop in ``nodes`` at any depth, but ``skipped`` and the loops inside it."""
    for node in nodes:
        if isinstance(node, If):
            yield from _inner_loops(node.then + node.orelse, skipped)
        elif isinstance(node, Loop) and node is not skipped:
            yield node
            yield from _inner_loops(node.body, skipped)


def _unrollable(loop: Loop, threshold: int) -> bool:
    """A loop of a parent's body that the parent's pipeline fully unrolls, as the climb
    from it would: fully unrolled by a pragma with a constant trip count, or short."""
    if loop.pipeline_ii is not None or loop.pipeline_off:
        return False
    if loop.unroll == 0:
        return _trip_count(loop) is not None
    return _short(loop, threshold)


def _function(loop: Loop) -> str:
    """The function whose body holds ``loop``: the front end names an inlined
    function's loops ``<function>/<label>`` (Vitis's location syntax), the top
    function's by their label alone."""
    return loop.name.rpartition("/")[0]


def _trip_count(loop: Loop) -> int | None:
    """The number of iterations of ``loop`` when it is a compile-time constant, else
    None."""
    if len(loop.init) != 1 or len(loop.bound) != 1:
        return None
    start, end = loop.init[0], loop.bound[0]
    if not (isinstance(start, E.Const) and isinstance(end, E.Const)):
        return None
    span = (end.value - start.value) * (1 if loop.step > 0 else -1)
    return max(0, span // abs(loop.step) + 1)


def _has_loop(nodes: tuple[Node, ...]) -> bool:
    """Whether a loop that stays a loop (not fully unrolled) lies in ``nodes``."""
    for node in nodes:
        if isinstance(node, If) and _has_loop(node.then + node.orelse):
            return True
        if isinstance(node, Loop) and (node.unroll != 0 or _has_loop(node.body)):
            return True
    return False
