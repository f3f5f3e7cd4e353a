"""The banked kernel: the input translation unit with arraypart's banking applied.

Works on a deep copy of ``kernel.source`` (the input AST is never changed):

- per_dim schemes become ``#pragma HLS array_partition`` lines (one per partitioned
  dimension) after the array's declaration, or at the top of the function body for an
  interface array, plus ``bind_storage`` for local arrays;
- flat schemes and replicated arrays become explicit bank arrays (:mod:`.layout`);
- the user's own ``array_partition`` pragmas on these arrays (and ``bind_storage`` on
  the local ones) are dropped, replaced by ours; every other pragma stays;
- each array gets a one-line comment with its scheme.
"""

from __future__ import annotations

import copy
import re

from pycparser import c_ast

from ..banking.solution import ArraySolution, Solution
from ..cast import outer_array_refs
from ..errors import KernelError
from ..ir import Kernel
from . import ranges
from .astedit import Comment, generate, identifiers, walk_slots
from .layout import Explicit, rewrite_explicit

_PRAGMA_KIND = re.compile(r"^\s*HLS\s+(\w+)", re.IGNORECASE)
_PRAGMA_VARIABLE = re.compile(r"(\bvariable\s*=\s*)(\w+)", re.IGNORECASE)
_BANK_SUFFIX = "_bank"


def banked_source(kernel: Kernel, solution: Solution) -> str:
    """C text of the whole translation unit with the banking applied."""
    ast, func = copy.deepcopy((kernel.source.ast, kernel.source.func))
    body = func.body
    refs = outer_array_refs(body)
    taken = identifiers(ast)
    explicit = {s.array.name: _explicit(s, taken) for s in solution.arrays
                if _needs_explicit(s)}
    rewrite_explicit(body, refs, explicit, ranges.ref_contexts(kernel.body), kernel.coord)
    _edit_pragmas(body, solution, explicit)
    interface_lines = []
    parents = _decl_parents(body)
    for s in solution.arrays:
        interface_lines += _annotate(parents, s, explicit.get(s.array.name))
    body.block_items = interface_lines + list(body.block_items or [])
    return generate(ast).rstrip() + "\n"



def _needs_explicit(s: ArraySolution) -> bool:
    return s.banking.scheme.kind == "flat" or s.banking.copies > 1


def _explicit(s: ArraySolution, taken: set[str]) -> Explicit:
    if s.array.interface:
        raise KernelError(s.array.coord,
                          f"interface array '{s.array.name}' cannot take a flat or "
                          f"replicated banking: the top function's signature must stay")
    name = s.array.name + _BANK_SUFFIX
    n = 1
    while name in taken:
        name = f"{s.array.name}{_BANK_SUFFIX}{n}"
        n += 1
    taken.add(name)
    return Explicit(s.array, s.banking, name)


def _pragma_target(p: c_ast.Pragma) -> tuple[str, str] | None:
    """(kind, variable) of ``#pragma HLS kind variable=V ...``, lower-case kind."""
    kind = _PRAGMA_KIND.match(p.string or "")
    var = _PRAGMA_VARIABLE.search(p.string or "")
    if kind is None or var is None:
        return None
    return kind.group(1).lower(), var.group(2)


def _edit_pragmas(body: c_ast.Compound, solution: Solution,
                  explicit: dict[str, Explicit]) -> None:
    """Drop the user's pragmas that ours replace; point the rest of the pragmas on an
    explicit array at its banks."""
    handled = {s.array.name: s.array for s in solution.arrays}
    compounds = [body] + [n for _, n in walk_slots(body) if isinstance(n, c_ast.Compound)]
    for compound in compounds:
        kept = []
        for item in compound.block_items or []:
            target = _pragma_target(item) if isinstance(item, c_ast.Pragma) else None
            if target is not None and target[1] in handled:
                kind, name = target
                if kind == "array_partition" or (
                        kind == "bind_storage" and not handled[name].interface):
                    continue
                if name in explicit:
                    item.string = _PRAGMA_VARIABLE.sub(
                        lambda m: m.group(1) + explicit[name].bank_name, item.string)
            kept.append(item)
        compound.block_items = kept


def _decl_parents(body: c_ast.Compound) -> dict[str, tuple[list, c_ast.Decl]]:
    """Local array name -> (the item list holding its declaration, the declaration),
    found in one walk (a walk per array made code generation quadratic)."""
    found: dict[str, tuple[list, c_ast.Decl]] = {}
    for slot, node in walk_slots(body):
        if (isinstance(node, c_ast.Decl) and isinstance(node.type, c_ast.ArrayDecl)
                and node.name not in found and slot.index is not None):
            found[node.name] = (getattr(slot.parent, slot.field), node)
    return found


def _annotate(parents: dict[str, tuple[list, c_ast.Decl]], s: ArraySolution,
              ex: Explicit | None) -> list[c_ast.Node]:
    """Insert the scheme comment and our pragmas after a local array's declaration;
    for an interface array, return them (they go to the top of the body)."""
    lines = [Comment(_comment(s, ex))] + [c_ast.Pragma(p) for p in _pragmas(s, ex)]
    if s.array.interface:
        return lines
    name = ex.bank_name if ex is not None else s.array.name
    if name not in parents:
        raise KernelError(s.array.coord, f"no local declaration of array '{name}'")
    items, decl = parents[name]
    at = next(i for i, item in enumerate(items) if item is decl)
    items[at:at + 1] = [lines[0], decl] + lines[1:]
    return []


def _comment(s: ArraySolution, ex: Explicit | None) -> str:
    text = f"arraypart: {s.array.name}: {s.banking.scheme.describe()}"
    if s.banking.copies > 1:
        text += f"; {s.banking.copies} copies"
    if ex is not None:
        text += f"; stored as {ex.declaration_text()}"
    return text


def _pragmas(s: ArraySolution, ex: Explicit | None) -> list[str]:
    """Our pragma strings (without ``#pragma``) for one array."""
    out = []
    if ex is not None:
        # every dimension but the words of a bank; a single bank needs no partition
        count = len(ex.dims) - 1 - (ex.banking.scheme.banks == 1)
        out += [f"HLS array_partition variable={ex.bank_name} type=complete dim={d}"
                for d in range(1, count + 1)]
    elif s.banking.scheme.kind == "per_dim":
        for d, part in enumerate(s.banking.scheme.dims, start=1):
            if part.type == "complete":
                out.append(f"HLS array_partition variable={s.array.name} "
                           f"type=complete dim={d}")
            elif part.type != "none":
                out.append(f"HLS array_partition variable={s.array.name} "
                           f"type={part.type} factor={part.factor} dim={d}")
    if not s.array.interface:
        name = ex.bank_name if ex is not None else s.array.name
        impl = f" impl={s.array.storage_impl}" if s.array.storage_impl else ""
        out.append(f"HLS bind_storage variable={name} type={s.ports.name}{impl}")
    return out
