"""``#pragma HLS allocation function instances=f limit=N`` (UG1399, "pragma HLS
allocation"; the older order ``allocation instances=f limit=N function`` too).

By default each call site of a function the HLS tool keeps is an RTL instance of its
own (and an inlined call a copy of its text), so each call has its own local arrays
(``ir.PerCall``).  The pragma, written in the body of a function, a loop or a region,
makes the calls of ``f`` there share N instances: their operations, and the local
arrays of ``f``, are one instance's.

arraypart reads the pragma where a function's body holds it, at any depth, as
applying to every call of ``f`` in that function's own text (a loop's or a region's
scope is inside it: more calls shared, never fewer).  Which call an instance serves
is the scheduler's choice, so every such call's arrays are counted as one memory
with all the calls' accesses (``ir.PerCall.shared``), the most that one instance's
memory may get, whatever N is.  Calls of one pipelined iteration beyond N wait for an
instance, so the loop's II is at least ``ceil(calls / N)``: the model counts the calls
by the copies whose own arrays they access (``ir.PerCall``'s call and iterators,
:attr:`arraypart.poly.model.LoopInfo.instance_ii`), and the lowering warns where a
function without such arrays is limited in a pipelined or unrolled loop.  Vitis
ignores the pragma for a function it inlines; arraypart shares its arrays all the
same (more accesses counted, never fewer).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import Coord
from . import cnodes as N
from .pragmas import PragmaReader

#: The flag that makes an ``allocation`` pragma limit functions (not operations).
FUNCTION_TYPE = "function"


@dataclass(frozen=True, slots=True)
class Limit:
    """An ``allocation`` pragma's limit on one function: ``instances`` RTL instances
    serve its calls; ``coord``: where the pragma's ``limit=`` is written."""

    instances: int
    coord: Coord


def limits(func: N.FuncDef, pragmas: PragmaReader) -> dict[str, Limit]:
    """The functions whose instances an ``allocation function`` pragma in ``func``'s
    body limits, by the name ``instances=`` gives (a list names several); a pragma
    without ``limit=`` limits nothing."""
    found: dict[str, Limit] = {}
    for node in func.nodes:
        pragma = pragmas.parse(node) if isinstance(node, N.Pragma) else None
        if pragma is None or pragma.kind != "allocation" or FUNCTION_TYPE not in \
                pragma.flags or pragma.option("limit") is None:
            continue
        limit = Limit(pragmas.positive_int(pragma, "limit"), pragmas.coord(pragma, "limit"))
        found.update((one.option("instances"), limit)
                     for one in pragmas.each_variable(pragma, "instances")
                     if one.option("instances"))
    return found
