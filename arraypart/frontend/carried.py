"""Floating-point values that a pipelined loop carries from one iteration to the next.

An iteration that updates a floating-point scalar from the value the previous iteration
left (``s += a[i] * a[i]``, ``p = p * x``) cannot start that update before the previous
one ends: the HLS tool schedules the loop at an II no lower than the latency of the
operation chain on that path (several cycles for a floating-point add or multiply; UG1448,
HLS 200-880 "Unable to enforce a carried dependence constraint"), whatever the memories
allow.  The II that arraypart reports counts memory ports, so each such loop gets a
located warning at the update.

Found on the kernel file's text with libclang: in the body of a pipelined loop, a
compound assignment ``s op= e`` (op in ``+ - * /``) or an assignment ``s = e`` whose
``e`` reads ``s``, of a floating-point variable declared outside the loop (or
``static``); unless one of the body's own statements sets ``s`` from a value that does
not read it (before the update, each iteration starts afresh; after it, the next one
does).  Not found (no warning, a miss): a carry through a temporary, a struct member,
``std::complex`` or a callee's reference parameter.
"""

from __future__ import annotations

from typing import Iterator

import clang.cindex as ci

from .. import ir
from ..errors import warning_text
from . import clangtu
from .declarations import FLOATING_KINDS

K = ci.CursorKind
_UPDATES = frozenset(("+=", "-=", "*=", "/="))
_LOOPS = {K.FOR_STMT: -1, K.WHILE_STMT: -1, K.DO_STMT: 0}  # where the body is
_WRAPPERS = frozenset((K.UNEXPOSED_EXPR, K.PAREN_EXPR))


def carried_warnings(unit: clangtu.Unit, user_end: int,
                     body: tuple[ir.Node, ...]) -> tuple[str, ...]:
    """One located warning per pipelined loop of ``body`` (the IR, its coordinates
    those of the kernel file's loops) and floating-point scalar it carries."""
    pipelined = {(lp.coord.line, lp.coord.col): lp for lp in ir.loops(body)
                 if lp.pipeline_ii is not None}
    out: list[str] = []
    for loop_cursor in _loop_cursors(unit, user_end):
        coord = unit.location_coord(loop_cursor.location)
        loop = pipelined.get((coord.line, coord.col))
        if loop is None:
            continue
        body_cursor = list(loop_cursor.get_children())[_LOOPS[loop_cursor.kind]]
        for name, at in _carried(body_cursor):
            text = warning_text(unit.location_coord(at.location),
                                carried_message(loop.name, name, loop.pipeline_ii))
            if text not in out:
                out.append(text)
    return tuple(out)


def carried_message(loop: str, value: str, ii: int) -> str:
    """The warning that pipelined loop ``loop`` (at II ``ii``) carries the
    floating-point ``value`` from one iteration to the next."""
    return (f"loop {loop}: {value} is a floating-point value carried from one "
            "iteration to the next: the HLS tool starts this update only when the "
            "previous iteration's has ended, several cycles later for floating "
            f"point (HLS 200-880), so II {ii} holds only if that "
            "operation fits in it; the II reported counts memory ports only "
            "(accumulate into several partial sums to reach it)")


def _loop_cursors(unit: clangtu.Unit, user_end: int) -> Iterator[ci.Cursor]:
    return (c for c in unit.own_cursors(user_end)
            if c.kind in _LOOPS and unit.in_main(c.location))


def _carried(body: ci.Cursor) -> Iterator[tuple[str, ci.Cursor]]:
    """(variable, update) for each floating-point variable declared outside ``body``
    (or static) that an update in ``body`` reads, unless one of the body's own
    statements sets it afresh: before the update each iteration starts from that
    value, after it the next iteration does."""
    statements = list(body.get_children()) if body.kind == K.COMPOUND_STMT else [body]
    fresh = {variable.get_usr() for variable in map(_set_afresh, statements)
             if variable is not None}
    for statement in statements:
        for cursor in statement.walk_preorder():
            variable = _updated(cursor, body)
            if variable is not None and variable.get_usr() not in fresh:
                yield variable.spelling, cursor


def _updated(cursor: ci.Cursor, body: ci.Cursor) -> ci.Cursor | None:
    """The variable ``cursor`` updates from its own value, when it is a floating-point
    variable that lives across iterations of the loop whose body is ``body``."""
    if cursor.kind == K.COMPOUND_ASSIGNMENT_OPERATOR:
        if clangtu.binary_operator(cursor) not in _UPDATES:
            return None
    elif cursor.kind != K.BINARY_OPERATOR or clangtu.binary_operator(cursor) != "=":
        return None
    kids = list(cursor.get_children())
    if len(kids) != 2:
        return None
    variable = _variable(kids[0])
    if variable is None or not _floating(variable) or not _outlives(variable, body):
        return None
    if cursor.kind == K.BINARY_OPERATOR and not _reads(kids[1], variable):
        return None
    return variable


def _set_afresh(statement: ci.Cursor) -> ci.Cursor | None:
    """The variable a statement ``v = e`` sets from a value ``e`` that does not read it."""
    while statement.kind in _WRAPPERS:
        statement = next(statement.get_children(), statement)
    if statement.kind != K.BINARY_OPERATOR or clangtu.binary_operator(statement) != "=":
        return None
    kids = list(statement.get_children())
    variable = _variable(kids[0]) if len(kids) == 2 else None
    return None if variable is None or _reads(kids[1], variable) else variable


def _variable(expression: ci.Cursor) -> ci.Cursor | None:
    """The variable or parameter an lvalue names directly (not a member or element)."""
    while expression.kind in _WRAPPERS:
        kids = list(expression.get_children())
        if len(kids) != 1:
            return None
        expression = kids[0]
    if expression.kind != K.DECL_REF_EXPR:
        return None
    declared = expression.referenced
    if declared is None or declared.kind not in (K.VAR_DECL, K.PARM_DECL):
        return None
    return declared


def _floating(variable: ci.Cursor) -> bool:
    return clangtu.referred(variable.type).kind in FLOATING_KINDS


def _outlives(variable: ci.Cursor, body: ci.Cursor) -> bool:
    """Declared outside ``body``, or ``static``: its value outlives an iteration."""
    at = variable.location.offset
    inside = (variable.location.file is not None and body.location.file is not None
              and variable.location.file.name == body.location.file.name
              and body.extent.start.offset <= at < body.extent.end.offset)
    return not inside or variable.storage_class == ci.StorageClass.STATIC


def _reads(expression: ci.Cursor, variable: ci.Cursor) -> bool:
    return any(c.kind == K.DECL_REF_EXPR and c.referenced is not None
               and c.referenced.get_usr() == variable.get_usr()
               for c in expression.walk_preorder())
