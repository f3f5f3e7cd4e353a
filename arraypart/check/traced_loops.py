"""The loops the trace steps (:mod:`.instrument`): the pipelined loops and functions of
the kernel text, those the model pipelines found by coordinate, their unroll factors as
the instrumented text evaluates them, those that code only synthesis compiles stands in;
and the insertions that open a step (``Scope``, ``iter``) or count a lane (``bump``).
"""

from __future__ import annotations

import re

import clang.cindex as ci

from .. import ir
from ..errors import Coord
from ..frontend import clangtu
from .element_accesses import FUNCTIONS, is_element, walk
from .inserts import NAMESPACE, Insert

K = ci.CursorKind
# The loops a pipeline may be, by the keyword that starts them.
LOOP_KINDS = {K.FOR_STMT: b"for", K.WHILE_STMT: b"while", K.DO_STMT: b"do"}
_PIPELINE = re.compile(r"HLS\s+pipeline\b(?!.*\boff\b)", re.IGNORECASE)
# An unroll pragma's factor: an integer expression of numbers and names (a template's
# parameters, macros, ``CONFIG_T::n / 2``) that the instrumented text evaluates in
# place, so each instantiation of a template steps by its own factor; it ends where
# the pragma's next option begins.
_UNROLL_FACTOR = re.compile(
    r"HLS\s+unroll\b.*\bfactor\s*=\s*([\w:()+\-*/% ]+?)\s*"
    r"(?=$|\s(?:skip_exit_check|off)\b|\s\w+\s*=)", re.IGNORECASE)
_TERMINATOR = re.compile(rb"(?:\s|/\*.*?\*/|//[^\n]*\n)*;", re.DOTALL)


def model_pipelines(nodes: tuple[ir.Node, ...]) -> dict[Coord, int]:
    """The coordinate of each loop the model pipelines -> iterations per step."""
    found: dict[Coord, int] = {}
    for n in nodes:
        if isinstance(n, ir.Loop):
            if n.pipeline_ii is not None:
                found[n.coord] = n.unroll if (n.unroll or 0) > 1 else 1
            found.update(model_pipelines(n.body))
        elif isinstance(n, ir.If):
            found.update(model_pipelines(n.then))
            found.update(model_pipelines(n.orelse))
    return found


def traced_loops(unit: clangtu.Unit, model: dict[Coord, int]
                 ) -> dict[int, tuple[ci.Cursor, str]]:
    """Start offset of each pipelined ``for`` (in text order) -> (its cursor, its
    unroll factor); a pragma belongs to the innermost ``for`` that holds it in its
    region (:func:`_pragma_region`),
    and a ``for`` at a coordinate of ``model`` (the model's pipelined loops) is one too;
    so is a function the model pipelines as a whole (:func:`_pipelined_functions`);
    a pipelined ``for`` inside another is not (Vitis unrolls it into the outer one's
    steps, as the model does), unless the outer one's pipeline is only its pragma's and
    the inner one is the model's (Vitis could not unroll a loop between them)."""
    fors = [c for c in clangtu.own_cursors(unit) if c.kind in LOOP_KINDS
            and unit.in_main(c.location) and written_loop(c, unit.data)]
    regions = [(c, _pragma_region(c)) for c in fors]
    owners = []
    for pragma in unit.pragmas:
        around = [(c, r) for c, r in regions if r[0] < pragma.start < r[1]]
        if around:
            owners.append((pragma.text, max(around, key=lambda cr: cr[1][0])[0]))
    pipelined = {loop.extent.start.offset: loop for text, loop in owners
                 if _PIPELINE.match(text)}
    templates = _template_parameters(unit)
    factors = {loop.extent.start.offset: factor for text, loop in owners
               for m in [_UNROLL_FACTOR.match(text.strip())] if m
               for factor in [_factor_text(m.group(1), loop, templates)] if factor}
    modelled = {}
    for c in fors:
        at = unit.coord(c.extent.start.offset)
        if at in model:
            modelled[c.extent.start.offset] = c
            pipelined.setdefault(c.extent.start.offset, c)
            # a factor the pragma spells otherwise (an expression) is the model's
            factors.setdefault(c.extent.start.offset, str(model[at]))
    for key, function in _pipelined_functions(unit, model).items():
        modelled[key] = pipelined[key] = function
    # a pragma's pipeline around one the model has is one Vitis could not unroll (a
    # loop of variable trip count inside): its pragma is ignored, as the model ignores it
    pipelined = {key: c for key, c in pipelined.items() if key in modelled or not any(
        key < inner.extent.start.offset and inner.extent.end.offset <= c.extent.end.offset
        for inner in modelled.values())}
    outermost = {key: c for key, c in pipelined.items() if not any(
        other.extent.start.offset < key and c.extent.end.offset <= other.extent.end.offset
        for other in pipelined.values())}  # a pipeline inside one is unrolled into it
    return {key: (outermost[key], factors.get(key, "1")) for key in sorted(outermost)}


def _pipelined_functions(unit: clangtu.Unit, model: dict[Coord, int]
                         ) -> dict[int, ci.Cursor]:
    """Start offset of each function definition of the kernel text that the model
    pipelines as a whole (a loop of one iteration at the function's name: each call
    one step) -> its cursor."""
    return {c.extent.start.offset: c for c in clangtu.own_cursors(unit)
            if c.kind in FUNCTIONS and c.is_definition() and unit.in_main(c.location)
            for at in [unit.location_coord(c.location)] if at in model}


def _factor_text(written: str, loop: ci.Cursor,
                 templates: list[tuple[int, int, frozenset[str]]]) -> str | None:
    """A factor as the instrumented text writes it: a number as it is; an expression
    of the parameters of the function template around ``loop`` (``F``,
    ``CONFIG_T::n / 2``) in parentheses, evaluated per instantiation; None for any
    other (a name declared in the body, a macro that ``__SYNTHESIS__`` changes: the
    model's value, which synthesis sees, stands)."""
    if written.isdigit():
        return written
    at = loop.extent.start.offset
    names = {n for start, end, params in templates if start <= at < end for n in params}
    used = set(re.findall(r"(?<![\w:])[A-Za-z_]\w*", written))
    return f"({written})" if used and used <= names else None


def _template_parameters(unit: clangtu.Unit) -> list[tuple[int, int, frozenset[str]]]:
    """(start, end, parameter names) of each function template of the kernel text."""
    kinds = (K.TEMPLATE_TYPE_PARAMETER, K.TEMPLATE_NON_TYPE_PARAMETER,
             K.TEMPLATE_TEMPLATE_PARAMETER)
    return [(c.extent.start.offset, c.extent.end.offset,
             frozenset(p.spelling for p in c.get_children() if p.kind in kinds))
            for c in clangtu.own_cursors(unit)
            if c.kind == K.FUNCTION_TEMPLATE and unit.in_main(c.location)]


def _pragma_region(loop: ci.Cursor) -> tuple[int, int]:
    """Where a pragma of ``loop`` may be written: inside its body's braces, or for a
    body without braces, between its header and its statement (the loop's start
    stands for the header's end: a pragma line cannot be inside the header)."""
    body = _loop_body(loop)
    if body.kind == K.COMPOUND_STMT:
        return body.extent.start.offset, body.extent.end.offset
    return loop.extent.start.offset, body.extent.end.offset


def written_loop(cursor: ci.Cursor, data: bytes) -> bool:
    """Whether the loop's keyword is written in the kernel's text (not by a macro,
    whose header has no place there to edit: such a loop is not traced)."""
    return data[cursor.extent.start.offset:].startswith(LOOP_KINDS[cursor.kind])


def _loop_body(cursor: ci.Cursor) -> ci.Cursor:
    """The statement a loop repeats (a ``do``'s comes before its condition)."""
    children = list(cursor.get_children())
    return children[0] if cursor.kind == K.DO_STMT else children[-1]


def loop_edits(cursor: ci.Cursor, loops: dict, data: bytes,
               read: frozenset[tuple[str, int]], first: int = 0) -> list[Insert]:
    """A traced loop's step openers (its id: ``first`` plus its rank in ``loops``, the
    traced loops of its file), else the ``bump`` of a ``for``."""
    start, end = cursor.extent.start.offset, cursor.extent.end.offset
    if start in loops:
        loop_id = first + list(loops).index(start)
        call = f"{NAMESPACE}iter({loop_id}, {loops[start][1]})"
        step = f" {call};"
        body = _loop_body(cursor)
        end = _statement_end(data, end)
        around = [Insert(start, True, -end, "{ " + NAMESPACE + "Scope trace_scope; "),
                  Insert(end, False, -start, " }")]
        condition = _reading_condition(cursor, read)
        if condition is not None:
            # a step is one check of the condition and the body it lets run
            first, last = condition
            return around + [Insert(first, True, -last - 1, f"({call}, "),
                             Insert(last, False, -first + 1, ")")]
        if body.kind == K.COMPOUND_STMT:
            return around + [Insert(body.extent.start.offset + 1, True, 0, step)]
        first = body.extent.start.offset
        return around + [Insert(first, True, -end, "{" + step + " "),
                         Insert(end, False, -first, " }")]
    where = _increment_at(cursor) if cursor.kind == K.FOR_STMT else None
    if where is None:
        return []
    offset, empty = where
    return [Insert(offset, True, 0, f" {NAMESPACE}bump()" + ("" if empty else ","))]


def function_edits(cursor: ci.Cursor, loops: dict, first: int = 0) -> list[Insert]:
    """A pipelined function's body opens with a ``Scope`` and one ``iter``: each call
    is one step (the destructor ends it at any ``return``); its id as
    :func:`loop_edits`'s."""
    loop_id = first + list(loops).index(cursor.extent.start.offset)
    body = next(c for c in cursor.get_children() if c.kind == K.COMPOUND_STMT)
    return [Insert(body.extent.start.offset + 1, True, 0,
                   f" {NAMESPACE}Scope trace_scope; {NAMESPACE}iter({loop_id}, 1);")]


def _reading_condition(loop: ci.Cursor, read: frozenset[tuple[str, int]]
                       ) -> tuple[int, int] | None:
    """The span of a ``for``'s or ``while``'s condition when it accesses an array
    element.  The condition that lets iteration k + 1 run is evaluated after body k,
    in the pipeline step of iteration k + 1 (a pipelined ``while (j > 0 && A[j - 1] >
    x)`` reads A[j - 1] once per iteration, with its body): the step starts there."""
    if loop.kind == K.WHILE_STMT:
        condition = next(iter(loop.get_children()), None)
    elif loop.kind == K.FOR_STMT:
        condition = _for_condition(loop)
    else:
        return None
    if condition is None or condition.kind == K.VAR_DECL or not any(
            is_element(c, parents, read) for c, parents in walk(condition, (condition,))):
        return None
    return condition.extent.start.offset, condition.extent.end.offset


def _for_condition(loop: ci.Cursor) -> ci.Cursor | None:
    """The child of a ``for`` written between the two ``;`` of its header (clang
    leaves absent parts out of the children)."""
    semicolons = _header_semicolons(loop)
    if len(semicolons) < 2:
        return None
    return next((c for c in loop.get_children()
                 if semicolons[0] <= c.extent.start.offset < semicolons[1]), None)


def _statement_end(data: bytes, end: int) -> int:
    """The end of the statement whose extent ends at ``end``: past its ``;`` when
    clang's extent stops before it (an expression statement's does)."""
    tail = _TERMINATOR.match(data, end)
    return tail.end() if tail else end


def _increment_at(cursor: ci.Cursor) -> tuple[int, bool] | None:
    """Offset just after the header's second ``;`` and whether the increment is
    empty (None when the header is not plain tokens)."""
    semicolons = _header_semicolons(cursor)
    if len(semicolons) < 2:
        return None
    tokens = list(cursor.get_tokens())
    after = next((t.spelling for t in tokens if t.extent.start.offset > semicolons[1]), "")
    return semicolons[1] + 1, after == ")"


def _header_semicolons(cursor: ci.Cursor) -> list[int]:
    """Offsets of the ``;`` of a ``for`` header, in the header's parentheses."""
    depth, found = 0, []
    for token in cursor.get_tokens():
        spelling = token.spelling
        if spelling in ("(", "[", "{"):
            depth += 1
        elif spelling in (")", "]", "}"):
            depth -= 1
            if depth == 0:
                break
        elif spelling == ";" and depth == 1:
            found.append(token.extent.start.offset)
    return found


def synthesis_only_loops(unit: clangtu.Unit, loops: dict,
                         ranges: list[tuple[int, int]]) -> set[int]:
    """The keys of ``loops`` in whose text, or in that of a function they call (at any
    depth), code only synthesis reads stands (``ranges``), or that name a variable
    declared there (``int buf[64]`` under ``#ifdef __SYNTHESIS__``, a ``malloc``'d
    pointer for C simulation: SDAccel's linear search)."""
    if not ranges:
        return set()

    def within(c: ci.Cursor) -> bool:
        return any(lo < c.extent.end.offset and c.extent.start.offset < hi
                   for lo, hi in ranges)

    def holds(c: ci.Cursor) -> bool:
        return within(c) or any(
            n.kind == K.DECL_REF_EXPR and n.referenced is not None
            and n.referenced.kind == K.VAR_DECL and unit.in_main(n.referenced.location)
            and within(n.referenced) for n in c.walk_preorder())

    functions = [c for c in clangtu.own_cursors(unit) if c.kind in FUNCTIONS
                 and c.is_definition() and unit.in_main(c.location)]
    tainted = {f.spelling for f in functions if holds(f)}
    grown = True
    while grown:
        found = {f.spelling for f in functions if f.spelling not in tainted
                 and _calls_any(f, tainted)}
        tainted |= found
        grown = bool(found)
    return {key for key, (c, _) in loops.items() if holds(c) or _calls_any(c, tainted)}


def _calls_any(cursor: ci.Cursor, names: set[str]) -> bool:
    return any(n.kind == K.CALL_EXPR and n.spelling in names for n in cursor.walk_preorder())
