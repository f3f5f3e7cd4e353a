"""Helpers over pycparser's C AST shared by the front end and code generation."""

from __future__ import annotations

from pycparser import c_ast


def outer_array_refs(node: c_ast.Node) -> list[c_ast.ArrayRef]:
    """Every outermost ``ArrayRef`` below ``node`` in pre-order (children in pycparser's
    field order).  ``A[i][j]`` is one reference: the inner ``A[i]`` node (its ``name``)
    is not listed, but references inside subscripts (``A[idx[i]]``: ``idx[i]``) are.
    The position in this list is an access's ``ref_id``.
    """
    found: list[c_ast.ArrayRef] = []

    def walk(n: c_ast.Node, is_name_of_ref: bool) -> None:
        if isinstance(n, c_ast.ArrayRef) and not is_name_of_ref:
            found.append(n)
        for child_name, child in n.children():
            walk(child, isinstance(n, c_ast.ArrayRef) and child_name == "name")

    walk(node, False)
    return found
