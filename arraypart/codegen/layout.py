"""Explicit bank arrays: a local array ``T A[D0][D1]`` stored as ``T A_bank[N][depth]``
(``T A_bank[C][N][depth]`` with C copies).

Used for flat schemes and for replicated arrays, which ``array_partition`` cannot
express.  Every full reference ``A[e0][e1]`` becomes ``A_bank[c][bank][offset]`` with
``bank = bank_expr(x := e)`` and ``offset = offset_expr(x := e)`` (:mod:`.ranges`
simplifies them when the subscripts are affine in loop iterators).  With copies a read
uses its ``read_copy`` and a write stores the same value into every copy:

    A[e] = v     ->  A_bank[0][b][o] = A_bank[1][b][o] = v
    A[e] op= v   ->  A_bank[0][b][o] = A_bank[1][b][o] = A_bank[c][b][o] op (v)
    ++A[e]       ->  A_bank[0][b][o] = A_bank[1][b][o] = A_bank[c][b][o] + 1

so the right side is evaluated once (a chained assignment stores one converted value).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from math import prod

from pycparser import c_ast

from .. import expr as E
from ..errors import Coord, KernelError
from ..ir import Array
from ..scheme import Banking, index_var
from . import ranges
from .astedit import (Slot, array_decl_dims, coord_of, find_local_decl, generate,
                      has_side_effects, raw, ref_base_and_subscripts, ref_name,
                      transform_post_order, walk_slots)

INCREMENTS = {"++": "+", "p++": "+", "--": "-", "p--": "-"}
# Slots whose expression's value is discarded: a post-increment there may be rewritten
# like a pre-increment.
_STATEMENT_SLOTS = {"block_items", "stmts", "iftrue", "iffalse", "stmt", "next"}
_PLACEHOLDER = "@"


class LaneRef(c_ast.ID):
    """A reference routed through bank-centric lane registers (``read`` and ``write``
    texts; either may be None).  It prints as its read register; as the target of an
    assignment it becomes the write register (:func:`_rewrite_write`)."""

    def __init__(self, read: str | None, write: str | None):
        super().__init__(read or write)
        self.read, self.write = read, write


@dataclass(frozen=True, slots=True)
class Explicit:
    """One array stored as explicit banks named ``bank_name``."""

    array: Array
    banking: Banking
    bank_name: str

    @property
    def dims(self) -> tuple[int, ...]:
        scheme = self.banking.scheme
        lead = (self.banking.copies,) if self.banking.copies > 1 else ()
        return lead + (scheme.banks, scheme.bank_depth)

    def declaration_text(self) -> str:
        return self.bank_name + "".join(f"[{n}]" for n in self.dims)


@dataclass(frozen=True, slots=True)
class _Address:
    """A rewritten reference: its array, bank and offset C text, and read copy."""

    explicit: Explicit
    bank: str
    offset: str
    read_copy: int

    def element(self, copy_index: int) -> c_ast.ArrayRef:
        node: c_ast.Node = c_ast.ID(self.explicit.bank_name)
        lead = [str(copy_index)] if self.explicit.banking.copies > 1 else []
        for text in lead + [self.bank, self.offset]:
            node = c_ast.ArrayRef(node, raw(text))
        return node

    def store(self, value: c_ast.Node) -> c_ast.Node:
        """Assign ``value`` to every copy, evaluating it once."""
        for c in reversed(range(self.explicit.banking.copies)):
            value = c_ast.Assignment("=", self.element(c), value)
        return value


def rewrite_explicit(body: c_ast.Compound, refs: list[c_ast.ArrayRef],
                     explicit: dict[str, Explicit],
                     contexts: dict[int, ranges.RefContext], where: Coord,
                     lane_refs: dict[int, tuple[str | None, str | None]]) -> None:
    """Rewrite every reference to, and the declaration of, each explicit array; a
    reference in ``lane_refs`` (by ref_id: its read and write registers) becomes a
    :class:`LaneRef`."""
    if not explicit:
        return
    ref_ids = {id(ref): rid for rid, ref in enumerate(refs)}
    addresses: dict[int, _Address] = {}

    def rewrite(node: c_ast.Node, slot: Slot) -> c_ast.Node | None:
        if isinstance(node, c_ast.ArrayRef) and id(node) in ref_ids:
            name = ref_name(node)
            if ref_ids[id(node)] in lane_refs:
                return LaneRef(*lane_refs[ref_ids[id(node)]])
            if name in explicit:
                address = _address(node, ref_ids[id(node)], explicit[name],
                                   contexts.get(ref_ids[id(node)]), where)
                new = address.element(address.read_copy)
                addresses[id(new)] = address
                return new
            return None
        return _rewrite_write(node, slot, addresses, where)

    transform_post_order(body, rewrite)
    _check_no_other_use(body, explicit, where)
    for ex in explicit.values():
        _rewrite_declaration(body, ex, where)


def _address(ref: c_ast.ArrayRef, ref_id: int, ex: Explicit,
             context: ranges.RefContext | None, where: Coord) -> _Address:
    _, subscripts = ref_base_and_subscripts(ref)
    shape = ex.array.shape
    if len(subscripts) != len(shape):
        raise KernelError(coord_of(ref, where),
                          f"array '{ex.array.name}' is banked: a reference must "
                          f"subscript all {len(shape)} dimensions")
    if any(has_side_effects(s) for s in subscripts):
        raise KernelError(coord_of(ref, where),
                          f"a subscript of banked array '{ex.array.name}' has side "
                          f"effects; it would be evaluated more than once")
    texts = [generate(s) for s in subscripts]
    env = context.env() if context is not None else {}
    index = context.index if context is not None else ()
    mapping: dict[str, E.Expr] = {}
    for d, n in enumerate(shape):
        e = index[d] if len(index) == len(shape) else None
        if e is not None and E.variables(e) <= env.keys():
            mapping[index_var(d)] = e
        else:
            mapping[index_var(d)] = E.var(f"{_PLACEHOLDER}{d}")
            env[f"{_PLACEHOLDER}{d}"] = (0, n - 1)

    def name_of(v: str) -> str:
        return f"({texts[int(v[1:])]})" if v.startswith(_PLACEHOLDER) else v

    scheme = ex.banking.scheme
    bank = ranges.reduce(E.substitute(scheme.bank_expr(), mapping), env)
    offset = ranges.reduce(E.substitute(scheme.offset_expr(), mapping), env)
    return _Address(ex, E.to_c(bank, name_of), E.to_c(offset, name_of),
                    ex.banking.copy_of(ref_id))


def _rewrite_write(node: c_ast.Node, slot: Slot, addresses: dict[int, _Address],
                   where: Coord) -> c_ast.Node | None:
    """Stores into replicated arrays (see the module doc) and into lane registers;
    None leaves ``node``."""
    lane = _rewrite_lane_write(node, slot, where)
    if lane is not None:
        return lane
    if isinstance(node, c_ast.Assignment) and id(node.lvalue) in addresses:
        address = addresses[id(node.lvalue)]
        if address.explicit.banking.copies == 1:
            return None
        value = node.rvalue
        if node.op != "=":
            value = c_ast.BinaryOp(node.op[:-1], address.element(address.read_copy), value)
        return address.store(value)
    if isinstance(node, c_ast.UnaryOp) and id(node.expr) in addresses:
        address = addresses[id(node.expr)]
        if node.op == "&":
            raise KernelError(coord_of(node, where),
                              f"the address of an element of banked array "
                              f"'{address.explicit.array.name}' is taken")
        if node.op not in INCREMENTS or address.explicit.banking.copies == 1:
            return None
        if node.op.startswith("p") and slot.field not in _STATEMENT_SLOTS:
            raise KernelError(coord_of(node, where),
                              f"the value of a post-increment of replicated array "
                              f"'{address.explicit.array.name}' is used")
        one = c_ast.Constant("int", "1")
        return address.store(c_ast.BinaryOp(INCREMENTS[node.op],
                                            address.element(address.read_copy), one))
    return None


def _rewrite_lane_write(node: c_ast.Node, slot: Slot, where: Coord) -> c_ast.Node | None:
    """``A[e] = v`` -> ``w = v``; ``A[e] op= v`` -> ``w = r op (v)``; ``++A[e]`` ->
    ``w = r + 1`` (w, r: the reference's write and read registers)."""
    if isinstance(node, c_ast.Assignment) and isinstance(node.lvalue, LaneRef):
        lane = node.lvalue
        value = node.rvalue if node.op == "=" else c_ast.BinaryOp(
            node.op[:-1], raw(lane.read), node.rvalue)
        return c_ast.Assignment("=", raw(lane.write), value)
    if (isinstance(node, c_ast.UnaryOp) and isinstance(node.expr, LaneRef)
            and node.op in INCREMENTS):
        if node.op.startswith("p") and slot.field not in _STATEMENT_SLOTS:
            raise KernelError(coord_of(node, where), "the value of a post-increment of a "
                                                     "bank-routed element is used")
        lane = node.expr
        return c_ast.Assignment("=", raw(lane.write), c_ast.BinaryOp(
            INCREMENTS[node.op], raw(lane.read), c_ast.Constant("int", "1")))
    return None


def _check_no_other_use(body: c_ast.Compound, explicit: dict[str, Explicit],
                        where: Coord) -> None:
    for slot, node in walk_slots(body):
        if (isinstance(node, c_ast.ID) and node.name in explicit
                and not (isinstance(slot.parent, c_ast.StructRef) and slot.field == "field")):
            raise KernelError(coord_of(node, where),
                              f"banked array '{node.name}' is used other than through "
                              f"full subscripts (passed, sized or aliased)")


# ---------------------------------------------------------------- declarations


def _rewrite_declaration(body: c_ast.Compound, ex: Explicit, where: Coord) -> None:
    found = find_local_decl(body, ex.array.name)
    if found is None:
        raise KernelError(ex.array.coord,
                          f"no local declaration of banked array '{ex.array.name}'")
    slot, decl = found
    _, elem = array_decl_dims(decl.type)
    elem = copy.deepcopy(elem)
    elem.declname = ex.bank_name
    node: c_ast.Node = elem
    for n in reversed(ex.dims):
        node = c_ast.ArrayDecl(node, c_ast.Constant("int", str(n)), [])
    init = _relaid_init(decl, ex, where) if decl.init is not None else None
    slot.set(c_ast.Decl(ex.bank_name, decl.quals, decl.align, decl.storage,
                        decl.funcspec, node, init, decl.bitsize, decl.coord))


def _relaid_init(decl: c_ast.Decl, ex: Explicit, where: Coord) -> c_ast.InitList:
    """The initializer in bank order: element x goes to [bank(x)][offset(x)] of every
    copy; padding words are 0."""
    if not isinstance(decl.init, c_ast.InitList):
        raise KernelError(coord_of(decl, where),
                          f"banked array '{ex.array.name}' needs a brace initializer")
    shape = ex.array.shape
    elements, used = _fill(decl.init.exprs, 0, shape, decl, where)
    if used != len(decl.init.exprs):
        raise KernelError(coord_of(decl, where),
                          f"too many initializers for '{ex.array.name}'")
    bank, offset = ex.banking.scheme.maps()
    scheme = ex.banking.scheme
    slots: list[list[c_ast.Node | None]] = [[None] * scheme.bank_depth
                                            for _ in range(scheme.banks)]
    for flat, (b, o) in enumerate(zip(bank.ravel(), offset.ravel())):
        slots[int(b)][int(o)] = elements[flat]
    banks = [_init_row(row) for row in slots]
    if ex.banking.copies == 1:
        return c_ast.InitList(banks)
    return c_ast.InitList([c_ast.InitList(copy.deepcopy(banks))
                           for _ in range(ex.banking.copies)])


def _init_row(row: list[c_ast.Node | None]) -> c_ast.InitList:
    return c_ast.InitList([copy.deepcopy(v) if v is not None else c_ast.Constant("int", "0")
                           for v in row])


def _fill(items: list[c_ast.Node], start: int, shape: tuple[int, ...],
          decl: c_ast.Decl, where: Coord) -> tuple[list[c_ast.Node | None], int]:
    """C's initialization of an array of ``shape`` from ``items[start:]`` with brace
    elision: row-major element list (None = zero) and the index of the next item."""
    out: list[c_ast.Node | None] = []
    pos = start
    sub_size = prod(shape[1:])
    for _ in range(shape[0]):
        if pos >= len(items):
            out.extend([None] * sub_size)
            continue
        item = items[pos]
        if isinstance(item, c_ast.NamedInitializer):
            raise KernelError(coord_of(item, where),
                              "designated initializers of a banked array are not supported")
        if len(shape) == 1:
            out.append(item.exprs[0] if isinstance(item, c_ast.InitList) else item)
            pos += 1
        elif isinstance(item, c_ast.InitList):
            sub, used = _fill(item.exprs, 0, shape[1:], decl, where)
            if used != len(item.exprs):
                raise KernelError(coord_of(item, where), "too many initializers")
            out.extend(sub)
            pos += 1
        else:
            sub, pos = _fill(items, pos, shape[1:], decl, where)
            out.extend(sub)
    return out, pos
