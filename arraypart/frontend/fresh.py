"""Loop ends the front end cannot write as affine expressions, as fresh sizes.

A banking proof stays sound when the model holds MORE iterations than the kernel runs:
every (cycle, access) pair the kernel executes is then among those the proof covers.
So a loop start or bound that is not affine (``chunk_size`` after an ``if`` gave it two
values, ``(size - 1) / 16 + 1``, ``rowDelimiters[i + 1]``) becomes a *fresh size*: a
run-time size of its own (:class:`arraypart.ir.Param`), named by its source text and
place (``chunk_size@24:29``), whose range holds every value the expression takes:

- interval arithmetic over the expression where every leaf has a known range
  (constants, bounded sizes, scalars with affine values, ``+ - * / % >> <<``,
  ``min``/``max``, ``?:``, and an element of a *table*: an array that nothing in the
  kernel writes, initialized with integer constants, any of whose values it may be);
- else the loop's ``LOOP_TRIPCOUNT max=`` bounds it (as any size), or the arrays that
  the iterator indexes (:mod:`arraypart.poly.sizes`: C gives an access outside its
  array no meaning).

Only the end that can widen the domain needs a sound range: an upper end (the bound of
a loop counting up, the start of one counting down) needs its largest value, as the
domain for a larger value holds the domain for a smaller one; so its least value may be
taken as 0 (the domains of negative values are among that of 0).  A lower end (the
start of a loop counting up) needs its least value; when nothing gives it, the
polyhedral pass finds it from the arrays as well.

The expression must not change while the loop runs (no variable or array it reads is
written by the loop's body or header): then one value holds for the whole loop, and a
loop executing with that value is a point of the model.
"""

from __future__ import annotations

import os
from typing import Mapping

from ..ir import SIZE_MARK, UNKNOWN_TEXT
from ..sourcetext import KEEP_BYTES
from . import cnodes as N
from . import scalars as S
from .cexpr import MAX_NAMES, MIN_NAMES, Bound, Scope, fold, interval, quasi_affine

NAME_MARK = SIZE_MARK  # a size's text and its place: never a C identifier
ARITHMETIC = ("+", "-", "*", "/", "%", ">>", "<<")
WIDEST_SHIFT = 63


def size_name(node: N.Node, source: bytes) -> str:
    """``<text>@<line>:<col>``: the expression's source text (blanks squeezed) and
    where it stands; text that starts like a number (``4*n``) in parentheses, since
    isl refuses a name that ``strtol`` would read a number from.  An expression whose
    text is not in ``source`` (one of an included file) is ``expression@<file>:<line>:
    <col>`` (:data:`arraypart.ir.UNKNOWN_TEXT`): its file's name keeps it apart from
    one at the same line and column of another file."""
    place = f"{node.coord.line}:{node.coord.col}"
    if not 0 <= node.start < node.end <= len(source):
        file = os.path.basename(node.coord.file or "")
        return f"{UNKNOWN_TEXT}{NAME_MARK}{file + ':' if file else ''}{place}"
    text = " ".join(source[node.start:node.end].decode(errors=KEEP_BYTES).split())
    if text[:1].isdigit() or text[:1] in ("+", "-", "."):
        text = f"({text})"
    return f"{text or UNKNOWN_TEXT}{NAME_MARK}{place}"


def node_interval(node: N.Node, scope: Scope, ranges: Mapping[str, Bound],
                  tables: Mapping[str, Bound] = {}) -> Bound:
    """An interval holding every value of the C expression ``node`` (None: unknown);
    ``tables``: the arrays (by their names in ``node``) that are tables, with the
    interval of their values (:func:`table_interval`)."""
    affine = quasi_affine(node, scope)
    if affine is not None:
        return interval(affine, ranges)
    if isinstance(node, N.ArrayRef) and N.ref_name(node) in tables:
        return tables[N.ref_name(node)]
    if isinstance(node, N.Cast) and node.to is not None:  # as cexpr.converted reads it
        inner = node_interval(node.expr, scope, ranges, tables)
        return node.to.converted(*inner)
    if isinstance(node, N.TernaryOp):
        a = node_interval(node.iftrue, scope, ranges, tables)
        b = node_interval(node.iffalse, scope, ranges, tables)
        return (None if None in (a[0], b[0]) else min(a[0], b[0]),
                None if None in (a[1], b[1]) else max(a[1], b[1]))
    if isinstance(node, N.FuncCall) and node.name in MIN_NAMES + MAX_NAMES and len(
            node.args) == 2:
        a, b = (node_interval(arg, scope, ranges, tables) for arg in node.args)
        pick = min if node.name in MIN_NAMES else max
        return (None if None in (a[0], b[0]) else pick(a[0], b[0]),
                None if None in (a[1], b[1]) else pick(a[1], b[1]))
    if isinstance(node, N.BinaryOp) and node.op in ARITHMETIC:
        return _binary(node.op, node_interval(node.left, scope, ranges, tables),
                       node_interval(node.right, scope, ranges, tables))
    return None, None


def table_interval(init: N.Node | None, elements: int) -> Bound:
    """``(least, largest)`` of the values an array of ``elements`` elements that
    nothing writes holds: those of its initializer ``init``, a brace list of integer
    constants, and 0 when the list leaves elements out (C zero-fills them); unknown
    without such an initializer."""
    if not isinstance(init, N.InitList):
        return None, None
    values = _initial_values(init)
    if None in values:
        return None, None
    if len(values) < elements:
        values.append(0)
    return min(values), max(values)


def _initial_values(init: N.Node) -> list[int | None]:
    """The leaves of a brace list, in order, folded (None: not a constant)."""
    if isinstance(init, N.InitList):
        return [v for e in init.exprs for v in _initial_values(e)]
    return [fold(init)]


def _binary(op: str, a: Bound, b: Bound) -> Bound:
    """Interval arithmetic for C's integer operators (truncating ``/``, ``%``)."""
    if None in a or None in b:
        if op == "%" and None not in b and b[0] > 0 and a[0] is not None and a[0] >= 0:
            return 0, b[1] - 1
        return _half_open(op, a, b)
    if op == "+":
        return a[0] + b[0], a[1] + b[1]
    if op == "-":
        return a[0] - b[1], a[1] - b[0]
    if op == "*":
        corners = [x * y for x in a for y in b]
        return min(corners), max(corners)
    if op == "/" and b[0] > 0:
        corners = [_c_div(x, y) for x in a for y in b]
        return min(corners), max(corners)
    if op == "%" and b[0] > 0 and a[0] >= 0:
        return 0, min(a[1], b[1] - 1)
    if op in (">>", "<<") and a[0] >= 0 and 0 <= b[0] and b[1] <= WIDEST_SHIFT:
        if op == ">>":
            return a[0] >> b[1], a[1] >> b[0]
        return a[0] << b[0], a[1] << b[1]
    return None, None


def _half_open(op: str, a: Bound, b: Bound) -> Bound:
    """``a op b`` where ``b`` is known and ``a`` known at one end (a signed size up to
    its largest value): ``+``, ``-`` and ``/`` by a positive constant move each end of
    ``a`` on its own, as they grow with it."""
    if None in b:
        return None, None
    if op == "+":
        return tuple(None if x is None else x + y for x, y in zip(a, b))
    if op == "-":
        return tuple(None if x is None else x - y for x, y in zip(a, reversed(b)))
    if op == "/" and b[0] == b[1] > 0:
        return tuple(None if x is None else _c_div(x, b[0]) for x in a)
    return None, None


def _c_div(x: int, y: int) -> int:
    q = abs(x) // abs(y)
    return q if (x >= 0) == (y > 0) else -q


def changed_names(node: N.Node, body: list[N.Node], scalars: frozenset[str],
                  callees: Mapping[str, N.FuncDef | None]) -> list[str]:
    """The variables and arrays ``node`` reads that ``body`` (a loop's statements and
    header steps) may write, sorted."""
    ids = N.identifiers(node)
    arrays = {N.ref_name(r) for r in N.outer_array_refs(node)} | {
        n.parts[0].name for n in N.walk(node)
        if isinstance(n, N.Other) and n.parts and isinstance(n.parts[0], N.Id)}
    arrays.discard(None)
    changed: set[str] = set()
    for part in body:
        changed |= S.written(part, frozenset(ids), callees)
        changed |= _written_memories(part, arrays)
    return sorted(changed)


def _written_memories(node: N.Node, names: set[str]) -> set[str]:
    """The arrays (or structs) of ``names`` whose elements or fields ``node`` may write:
    assignment and increment targets, and any call argument naming one."""
    found: set[str] = set()
    for n in N.walk(node):
        targets = []
        if isinstance(n, N.Assignment):
            targets = [n.lvalue]
        elif isinstance(n, N.UnaryOp) and n.op in S.INCREMENT_STEPS:
            targets = [n.expr]
        elif isinstance(n, N.FuncCall) or (isinstance(n, N.Other)
                                           and n.what.startswith("call of")):
            targets = list(n.children())
        for target in targets:
            base = _base_name(target)
            if base in names:
                found.add(base)
    return found


def _base_name(node: N.Node | None) -> str | None:
    """The variable at the root of ``a[i].f[j]`` (None for other expressions)."""
    while True:
        if isinstance(node, N.Id):
            return node.name
        if isinstance(node, N.ArrayRef):
            node = node.name
        elif isinstance(node, N.Other) and node.parts:
            node = node.parts[0]
        elif isinstance(node, (N.Cast,)):
            node = node.expr
        else:
            return None
