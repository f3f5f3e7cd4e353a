"""Small editing tools over pycparser's C AST, used only on code generation's deep copy.

pycparser nodes have no parent links; :func:`walk_slots` yields every child together
with the slot that holds it, so a rewrite can put a new node in its place.  Raw C text
enters the tree as an ``ID`` whose name is the text (the generator prints it verbatim).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Iterator

from pycparser import c_ast, c_generator

from ..errors import Coord

_SLOT = re.compile(r"^(\w+)(?:\[(\d+)\])?$")


class Comment(c_ast.Pragma):
    """A ``// text`` line (a statement-level node printed like a pragma)."""


class Line(c_ast.Pragma):
    """A statement-level line of C printed verbatim (after the current indentation)."""


class Generator(c_generator.CGenerator):
    """pycparser's generator that also prints :class:`Comment` and :class:`Line`."""

    def visit_Comment(self, n: Comment) -> str:
        return "// " + n.string

    def visit_Line(self, n: Line) -> str:
        return n.string

    def visit_LaneRef(self, n: c_ast.ID) -> str:
        return n.name


def generate(node: c_ast.Node) -> str:
    return Generator().visit(node)


@dataclass(frozen=True, slots=True)
class Slot:
    """Where a child lives: ``parent.field`` or ``parent.field[index]``."""

    parent: c_ast.Node
    field: str
    index: int | None

    def set(self, node: c_ast.Node) -> None:
        if self.index is None:
            setattr(self.parent, self.field, node)
        else:
            getattr(self.parent, self.field)[self.index] = node


def child_slots(node: c_ast.Node) -> Iterator[tuple[Slot, c_ast.Node]]:
    for name, child in node.children():
        field, index = _SLOT.match(name).groups()
        yield Slot(node, field, None if index is None else int(index)), child


def walk_slots(node: c_ast.Node) -> Iterator[tuple[Slot, c_ast.Node]]:
    """Every descendant of ``node`` with its slot, in pre-order."""
    for slot, child in child_slots(node):
        yield slot, child
        yield from walk_slots(child)


def transform_post_order(node: c_ast.Node,
                         rewrite: Callable[[c_ast.Node, Slot], c_ast.Node | None]) -> None:
    """Visit every descendant children-first; ``rewrite(child, slot)`` returns a
    replacement for it (or None to keep it)."""
    for slot, child in list(child_slots(node)):
        transform_post_order(child, rewrite)
        replacement = rewrite(child, slot)
        if replacement is not None:
            slot.set(replacement)


def raw(text: str) -> c_ast.ID:
    """A node that prints as ``text``."""
    return c_ast.ID(text)


def coord_of(node: c_ast.Node, fallback: Coord) -> Coord:
    c = getattr(node, "coord", None)
    if c is None:
        return fallback
    return Coord(c.file or fallback.file, c.line or 0, c.column or 0)


def ref_base_and_subscripts(ref: c_ast.ArrayRef) -> tuple[c_ast.Node, list[c_ast.Node]]:
    """``A[e0][e1]`` -> (``A``, [e0, e1])."""
    subscripts = []
    node: c_ast.Node = ref
    while isinstance(node, c_ast.ArrayRef):
        subscripts.append(node.subscript)
        node = node.name
    return node, subscripts[::-1]


def ref_name(ref: c_ast.ArrayRef) -> str | None:
    base, _ = ref_base_and_subscripts(ref)
    return base.name if isinstance(base, c_ast.ID) else None


def has_side_effects(node: c_ast.Node) -> bool:
    """Whether evaluating ``node`` may change state (assignment, ++/--, a call)."""
    if isinstance(node, (c_ast.Assignment, c_ast.FuncCall)):
        return True
    if isinstance(node, c_ast.UnaryOp) and node.op in ("++", "--", "p++", "p--"):
        return True
    return any(has_side_effects(child) for _, child in node.children())


def array_decl_dims(decl_type: c_ast.Node) -> tuple[list[c_ast.ArrayDecl], c_ast.Node]:
    """The ``ArrayDecl`` chain of a declared type (outermost first) and the element
    type node under it."""
    dims = []
    node = decl_type
    while isinstance(node, c_ast.ArrayDecl):
        dims.append(node)
        node = node.type
    return dims, node


def find_local_decl(body: c_ast.Compound, name: str) -> tuple[Slot, c_ast.Decl] | None:
    """The declaration of the local array ``name`` in a function body."""
    for slot, node in walk_slots(body):
        if (isinstance(node, c_ast.Decl) and node.name == name
                and isinstance(node.type, c_ast.ArrayDecl)):
            return slot, node
    return None


def identifiers(node: c_ast.Node) -> set[str]:
    """Every identifier and declared name under ``node``."""
    names = set()
    for _, n in walk_slots(node):
        if isinstance(n, c_ast.ID):
            names.add(n.name)
        elif isinstance(n, (c_ast.Decl, c_ast.TypeDecl)):
            names.add(getattr(n, "name", None) or getattr(n, "declname", None))
    names.discard(None)
    return names
