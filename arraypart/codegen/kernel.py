"""The banked kernel: the input translation unit with arraypart's banking applied.

Works on a deep copy of ``kernel.source`` (the input AST is never changed):

- per_dim schemes become ``#pragma HLS array_partition`` lines (one per partitioned
  dimension) after the array's declaration, or at the top of the function body for an
  interface array, plus ``bind_storage`` for local arrays;
- flat schemes and replicated arrays become explicit bank arrays (:mod:`.layout`), and
  so do local per_dim arrays whose banks rotate in a pipelined loop;
- in such loops the array's references become bank-centric code (:mod:`.bankcentric`),
  so that every bank is reached through sites with a compile-time bank index;
- the user's own ``array_partition`` pragmas on these arrays (and ``bind_storage`` on
  the local ones) are dropped, replaced by ours; every other pragma stays;
- each array gets a one-line comment with its scheme.
"""

from __future__ import annotations

import copy
import re
import textwrap

from pycparser import c_ast

from ..banking.solution import ArraySolution, Solution
from ..cast import outer_array_refs
from ..errors import KernelError
from ..ir import Kernel
from . import bankcentric
from .astedit import (Comment, Line, coord_of, generate, identifiers,
                      raw, walk_slots)
from .layout import Explicit, rewrite_explicit

_PRAGMA_KIND = re.compile(r"^\s*HLS\s+(\w+)", re.IGNORECASE)
_PRAGMA_VARIABLE = re.compile(r"(\bvariable\s*=\s*)(\w+)", re.IGNORECASE)
_BANK_SUFFIX = "_bank"
# Scheme comments wrap at this width so that, indented, no line passes 100 characters.
COMMENT_WIDTH = 84


def banked_source(kernel: Kernel, solution: Solution) -> str:
    """C text of the whole translation unit with the banking applied."""
    ast, func = copy.deepcopy((kernel.source.ast, kernel.source.func))
    body = func.body
    refs = outer_array_refs(body)
    taken = identifiers(ast)
    for_nodes = _for_nodes(body, kernel)
    declared = {coord for coord, node in for_nodes.items() if _declares_iterator(node)}
    plan = bankcentric.plan(kernel, solution, taken, declared, set(_decl_parents(body)))
    groups, contexts = plan.groups, plan.contexts
    rotating = {g.array.name for g in groups}
    explicit = {s.array.name: _explicit(s, taken) for s in solution.arrays
                if _needs_explicit(s) or s.array.name in rotating}
    names = {id(g): _names(g, explicit[g.array.name], taken) for g in groups}
    lane_refs: dict[int, tuple[str | None, str | None]] = {}
    for g in groups:
        for site in g.reads + g.writes:
            read, write = lane_refs.get(site.access.ref_id, (None, None))
            text = bankcentric.reference(g, site, names[id(g)])
            lane_refs[site.access.ref_id] = ((text, write) if site.access.kind == "read"
                                             else (read, text))
    rewrite_explicit(body, refs, explicit, contexts, kernel.coord, lane_refs)
    for unrolled in plan.unrolled:
        _write_blocks(for_nodes[unrolled.loop.coord], unrolled)
    _insert_groups(for_nodes, groups, names, contexts)
    _edit_pragmas(body, solution, explicit)
    interface_lines = []
    parents = _decl_parents(body)
    after: dict[int, tuple[list, list]] = {}
    for s in solution.arrays:
        interface_lines += _annotate(parents, s, explicit.get(s.array.name), after)
    _splice(parents, after)
    body.block_items = interface_lines + list(body.block_items or [])
    return generate(ast).rstrip() + "\n"


def crossbars(kernel: Kernel, solution: Solution) -> dict[str, tuple[int, int]]:
    """Per array with bank-centric code: (lanes, banks) of its widest select network,
    lanes counting reads and writes of one pipeline iteration."""
    func = kernel.source.func
    declared = {coord for coord, node in _for_nodes(func.body, kernel).items()
                if _declares_iterator(node)}
    plan = bankcentric.plan(kernel, solution, identifiers(kernel.source.ast), declared,
                            set(_decl_parents(func.body)))
    out: dict[str, tuple[int, int]] = {}
    for g in plan.groups:
        lanes = g.read_lanes + g.write_lanes
        if lanes > out.get(g.array.name, (0, 0))[0]:
            out[g.array.name] = (lanes, g.banking.scheme.banks)
    return out


def _names(group: bankcentric.Group, ex: Explicit, taken: set[str]) -> bankcentric.Names:
    """Register names ``<array>_rb`` etc., suffixed until none is a user's name."""
    suffixes = ("ra", "rb", "ro", "rp", "rf", "rv", "q", "wa", "wb", "wo", "wp", "wv")
    prefix, n = group.array.name, 1
    while any(f"{prefix}_{x}" in taken for x in suffixes):
        prefix = f"{group.array.name}{n}"
        n += 1
    taken.update(f"{prefix}_{x}" for x in suffixes)  # the front end wants unique arrays
    counters = []
    for base in ("k", "l", "m", "s"):
        name, n = base, 1
        while name in taken:
            name, n = f"{base}{n}", n + 1
        counters.append(name)
    return bankcentric.Names(ex.bank_name, prefix, tuple(counters))


def _for_nodes(body: c_ast.Compound, kernel: Kernel) -> dict:
    """Every ``for`` statement of the function, by its coordinate (the IR loop's)."""
    return {coord_of(node, kernel.coord): node for _, node in walk_slots(body)
            if isinstance(node, c_ast.For)}


def _declares_iterator(node: c_ast.For) -> bool:
    """``for (T v = ...; ...)`` with T a plain type name."""
    init = node.init
    return (isinstance(init, c_ast.DeclList) and len(init.decls) == 1
            and isinstance(init.decls[0].type, c_ast.TypeDecl)
            and isinstance(init.decls[0].type.type, c_ast.IdentifierType))


def _write_blocks(node: c_ast.For, unrolled: bankcentric.Unrolled) -> None:
    """Rewrite a pipelined, partially unrolled loop as blocks (``bankcentric.Unrolled``):
    the header walks the blocks, the body runs once per lane of a block with the user's
    iterator redeclared as a constant."""
    loop = unrolled.loop
    type_name = " ".join(node.init.decls[0].type.type.names)
    block, lane, factor = unrolled.block_var, unrolled.lane_var, unrolled.factor
    items = list(node.stmt.block_items) if isinstance(node.stmt, c_ast.Compound) else [
        node.stmt]
    lead = 0
    while lead < len(items) and isinstance(items[lead], c_ast.Pragma):
        lead += 1
    header = [p for p in items[:lead] if not _is_unroll_pragma(p)]
    start, step = loop.init[0].value, loop.step
    position = f"{factor}*{block} + {lane}"
    value = position if step == 1 else f"{step}*({position})"
    value = value if start == 0 else f"{start} + {value}"
    body = items[lead:]
    if unrolled.remainder:
        compare = "<=" if step > 0 else ">="
        body = [c_ast.If(raw(f"{loop.var} {compare} {loop.bound[0].value}"),
                         c_ast.Compound(body), None)]
    inner_items = [c_ast.Pragma("HLS unroll"),
                   Line(f"const {type_name} {loop.var} = {value};")] + body
    inner = c_ast.For(raw(f"{type_name} {lane} = 0"), raw(f"{lane} < {factor}"),
                      raw(f"{lane}++"), c_ast.Compound(inner_items))
    node.init = raw(f"{type_name} {block} = 0")
    node.cond = raw(f"{block} < {unrolled.blocks}")
    node.next = raw(f"{block}++")
    node.stmt = c_ast.Compound(header + [inner])


def _is_unroll_pragma(p: c_ast.Pragma) -> bool:
    return re.match(r"^\s*HLS\s+unroll\b", p.string or "", re.IGNORECASE) is not None


def _insert_groups(for_nodes: dict, groups, names, contexts) -> None:
    """Each group's prologue after the leading pragmas of its loop's body, and its
    epilogue at the end."""
    for g in groups:
        node = for_nodes.get(g.loop.coord)
        if node is None:
            raise KernelError(g.loop.coord, f"loop {g.loop.name} not found for rewriting")
        if not isinstance(node.stmt, c_ast.Compound):
            node.stmt = c_ast.Compound([node.stmt])
        items = list(node.stmt.block_items or [])
        lead = 0
        while lead < len(items) and isinstance(items[lead], c_ast.Pragma):
            lead += 1
        head = [Line(t) for t in bankcentric.prologue(g, names[id(g)], contexts)]
        tail = [Line(t) for t in bankcentric.epilogue(g, names[id(g)])]
        node.stmt.block_items = items[:lead] + head + items[lead:] + tail


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
              ex: Explicit | None, after: dict[int, tuple[list, list]]) -> list[c_ast.Node]:
    """Note in ``after`` (by the declaration's id) the scheme comment to put before a
    local array's declaration and our pragmas to put after it (:func:`_splice`); for an
    interface or file-scope array, return them (they go to the top of the body)."""
    comments = [Comment(text) for text in textwrap.wrap(
        _comment(s, ex), COMMENT_WIDTH, subsequent_indent="  ", break_on_hyphens=False)]
    pragmas = [c_ast.Pragma(p) for p in _pragmas(s, ex)]
    name = ex.bank_name if ex is not None else s.array.name
    if s.array.interface or (ex is None and name not in parents):
        return comments + pragmas
    if name not in parents:
        raise KernelError(s.array.coord, f"no local declaration of array '{name}'")
    after[id(parents[name][1])] = (comments, pragmas)
    return []


def _splice(parents: dict[str, tuple[list, c_ast.Decl]],
            after: dict[int, tuple[list, list]]) -> None:
    """Put the noted comments and pragmas around their declarations, rebuilding each
    item list once (finding and splicing per array was quadratic in the arrays)."""
    lists = {id(items): items for items, decl in parents.values() if id(decl) in after}
    for items in lists.values():
        spliced: list = []
        for item in items:
            before, behind = after.get(id(item), ((), ()))
            spliced += [*before, item, *behind]
        items[:] = spliced


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
