"""A ``switch`` statement's arms, for lowering it as an if / else-if chain.

C's switch jumps to the label that matches and runs on, through later labels, until a
``break``.  arraypart models the switches whose arms do not run into each other:

    switch (x) { case 1: case 2: S1; break;  case 3: S2; return v;  default: S3; }

is ``if (x == 1 || x == 2) S1 else if (x == 3) S2 else S3``.  The rules:

- the block's statements are arms: each starts at one or more labels written together
  (``case 1: case 2:``) and takes the statements up to the next label;
- every arm but the last ends in ``break`` (dropped) or ``return`` (kept; like any
  return it ends nothing else in the model: what follows counts as run, a superset);
  an arm that runs on into the next label is *fall-through*, an error;
- ``break`` elsewhere in an arm (in an ``if``), ``continue`` anywhere in it outside a
  loop of its own, and a label inside a nested statement (Duff's device) are errors;
  a ``break`` or ``continue`` inside a loop or switch within an arm is that one's;
- ``default`` is the chain's final else, wherever it is written; without one no arm may
  run.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..errors import KernelError
from . import cnodes as N

TERMINATORS = ("break",)
ESCAPES = {
    "break": "'break' inside a case of a switch, before the case's end: arraypart "
             "lowers a switch whose cases run to one closing 'break'; put the "
             "statements it skips in an else instead",
    "continue": "'continue' inside a case of a switch: arraypart lowers a switch whose "
                "cases run to a closing 'break'; put the rest of the loop body in an "
                "else instead",
}


@dataclass(frozen=True, slots=True)
class Arm:
    """One arm: its ``case`` values (label nodes), whether ``default`` labels it too,
    and its statements without the closing ``break``."""

    values: tuple[N.Node, ...]
    default: bool
    items: tuple[N.Node, ...]
    label: N.Case


def switch_arms(node: N.Switch) -> tuple[Arm, ...]:
    """The arms of ``node`` in written order (the rules in the module docstring)."""
    body = node.body
    if not isinstance(body, N.Compound):
        raise KernelError(node.coord, "a switch needs a block of cases: "
                                      "switch (x) { case 1: ...; break; ... }")
    arms: list[Arm] = []
    current: Arm | None = None
    for item in body.items:
        if isinstance(item, N.Case):
            if current is not None and current.items:
                arms.append(_closed(current, item))
                current = None
            current = _labelled(current, item)
        elif isinstance(item, N.Pragma) and current is None:
            continue
        elif current is None:
            raise KernelError(item.coord, "statement before the first case label of a "
                                          "switch: it never runs; remove it")
        else:
            current = replace(current, items=current.items + (item,))
    if current is not None:
        arms.append(_closed(current, None))
    for arm in arms:
        _check_escapes(arm.items)
    return tuple(arms)


def _labelled(current: Arm | None, case: N.Case) -> Arm:
    """``current`` (None: a new arm) with the labels of ``case`` added: its chain
    ``case 1: case 2: stmt`` as clang nests it, then ``stmt`` as the first item."""
    values, default = (current.values, current.default) if current else ((), False)
    node: N.Node | None = case
    while isinstance(node, N.Case):
        if node.value is None:
            default = True
        else:
            values += (node.value,)
        node = node.stmt
    items = () if node is None or isinstance(node, N.Empty) else (node,)
    return Arm(values, default, items, current.label if current else case)


def _closed(arm: Arm, following: N.Case | None) -> Arm:
    """``arm`` without its closing ``break``; one that would run on into the label
    ``following`` is fall-through (an error); the last arm may end without one."""
    items = _without_break(arm.items)
    if items is not None:
        return replace(arm, items=items)
    last = arm.items[-1] if arm.items else None
    if isinstance(last, N.Unsupported) and last.keyword in ESCAPES:
        raise KernelError(last.coord, ESCAPES[last.keyword])
    if following is None or ends_in_return(arm.items):
        return arm
    raise KernelError(following.coord, f"fall-through into this case from the case at "
                                       f"{arm.label.coord}: arraypart lowers a switch "
                                       "whose cases end in 'break' (or 'return'); end "
                                       "that case with 'break', or repeat its statements "
                                       "here")


def _without_break(items: tuple[N.Node, ...]) -> tuple[N.Node, ...] | None:
    """``items`` without the ``break`` that ends them (also as the last statement of a
    trailing block), or None when they do not end in one."""
    last = items[-1] if items else None
    if isinstance(last, N.Unsupported) and last.keyword in TERMINATORS:
        return items[:-1]
    if isinstance(last, N.Compound):
        inner = _without_break(last.items)
        if inner is not None:
            return items[:-1] + (replace(last, items=inner),)
    return None


def ends_in_return(items: tuple[N.Node, ...]) -> bool:
    """The last of ``items`` (inside blocks) is a ``return``: nothing after them runs."""
    last = items[-1] if items else None
    if isinstance(last, N.Compound):
        return ends_in_return(last.items)
    return isinstance(last, N.Return)


def _check_escapes(items: tuple[N.Node, ...]) -> None:
    """No ``break`` or ``continue`` of the switch itself, nor a label, is left inside
    an arm (those of a nested loop or switch are its own)."""
    stack = list(items)
    while stack:
        n = stack.pop()
        if isinstance(n, N.Unsupported) and n.keyword in ESCAPES:
            raise KernelError(n.coord, ESCAPES[n.keyword])
        if isinstance(n, N.Case):
            raise KernelError(n.coord, "case label inside a nested statement of a switch: "
                                       "arraypart lowers a switch whose labels stand in "
                                       "its own block")
        if not isinstance(n, (N.For, N.Switch)):
            stack.extend(c for c in n.children() if c is not None)
