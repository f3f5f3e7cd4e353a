"""Declarations of the top function: its arrays, element types and named constants."""

from __future__ import annotations

import math

from pycparser import c_ast

from .. import expr as E
from ..errors import Coord, KernelError
from ..ir import Array
from .cexpr import Scope, fold, quasi_affine
from .cparse import node_coord

SIGN_WORDS = ("signed", "unsigned")
FIXED_WIDTH_BITS = {
    "int8_t": 8, "int16_t": 16, "int32_t": 32, "int64_t": 64,
    "uint8_t": 8, "uint16_t": 16, "uint32_t": 32, "uint64_t": 64,
    "bool": 1, "_Bool": 1, "size_t": 64,
}
# Widths on the LP64 targets HLS tools model: words of the type without signedness
# (and without ``int`` when another word is present) -> bits.
BASIC_TYPE_BITS = {
    (): 32, ("int",): 32, ("char",): 8, ("short",): 16, ("long",): 64,
    ("long", "long"): 64, ("float",): 32, ("double",): 64,
}
MAX_TYPEDEF_DEPTH = 32  # a typedef chain longer than this is a cycle or abuse
MAX_ARRAY_ELEMENTS = 2 ** 63 - 1  # element counts and flat offsets fit numpy's int64
# g++ refuses objects over PTRDIFF_MAX (2^63 - 1) bytes.  Banked output may pad an
# array and copy it; 2^48 bytes (256 TiB, 10^5 times any FPGA's on-chip memory)
# leaves it a factor of 2^15 below that limit, so the output always compiles.
MAX_ARRAY_BYTES = 2 ** 48


def type_bits(names: list[str]) -> int | None:
    """Bits of a basic or fixed-width type spelled by ``names`` (None: not one)."""
    if len(names) == 1 and names[0] in FIXED_WIDTH_BITS:
        return FIXED_WIDTH_BITS[names[0]]
    words = tuple(w for w in names if w not in SIGN_WORDS)
    if len(words) > 1 and "int" in words:
        words = tuple(w for w in words if w != "int")
    return BASIC_TYPE_BITS.get(words)


def element_type(decl_type: c_ast.Node, typedefs: dict, name: str,
                 coord: Coord) -> tuple[str, int]:
    """``(type name, bits)`` of an array's element, through the file's typedefs."""
    t = decl_type
    for _ in range(MAX_TYPEDEF_DEPTH):
        if not (isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.IdentifierType)):
            break
        names = t.type.names
        bits = type_bits(names)
        if bits is not None:
            return " ".join(names), bits
        if len(names) != 1 or names[0] not in typedefs:
            break
        t = typedefs[names[0]]
    else:
        raise KernelError(coord, f"array '{name}': element type is a chain of more than "
                                 f"{MAX_TYPEDEF_DEPTH} typedefs")
    raise KernelError(coord, f"array '{name}': unsupported element type (expected an "
                             "integer, floating-point or bool type)")


def array_dims(decl: c_ast.Decl) -> tuple[list[c_ast.Node | None], c_ast.Node]:
    """The dimension expressions of an array declaration and its element type node."""
    dims, t = [], decl.type
    while isinstance(t, c_ast.ArrayDecl):
        dims.append(t.dim)
        t = t.type
    return dims, t


def is_array_decl(node: c_ast.Node) -> bool:
    return isinstance(node, c_ast.Decl) and isinstance(node.type, c_ast.ArrayDecl)


def array_decl(decl: c_ast.Decl, *, interface: bool, typedefs: dict,
               scope: Scope) -> Array:
    """An array declaration, before its pragmas; sizes must fold to positive
    constants."""
    coord = node_coord(decl)
    dims, elem = array_dims(decl)
    shape = []
    for d, dim in enumerate(dims):
        if dim is None:
            if d == 0 and isinstance(decl.init, c_ast.InitList) and not interface:
                shape.append(len(decl.init.exprs))
                continue
            what = "array parameter" if interface else "array"
            raise KernelError(coord, f"{what} '{decl.name}' needs a fixed size")
        size = fold(dim, scope)
        if size is None or size <= 0:
            raise KernelError(node_coord(dim), f"size of array '{decl.name}' must be a "
                                               "positive integer constant")
        shape.append(size)
    _check_initializer_count(decl, shape)
    if math.prod(shape) > MAX_ARRAY_ELEMENTS:
        raise KernelError(coord, f"array '{decl.name}' has {math.prod(shape)} elements, "
                                 f"more than the {MAX_ARRAY_ELEMENTS} supported")
    elem_type, bits = element_type(elem, typedefs, decl.name, coord)
    size_bytes = math.prod(shape) * -(-bits // 8)
    if size_bytes > MAX_ARRAY_BYTES:
        raise KernelError(coord, f"array '{decl.name}' takes {size_bytes} bytes, more than "
                                 f"the {MAX_ARRAY_BYTES} (2^48) a compiler accepts with "
                                 "room for banking")
    return Array(decl.name, tuple(shape), elem_type, bits, interface, coord,
                      const="const" in (elem.quals or ()) or "const" in decl.quals,
                      static="static" in decl.storage)


def _check_initializer_count(decl: c_ast.Decl, shape: list[int]) -> None:
    """More initializers than elements is an error in C++ (and a constraint violation
    in C); braced rows count against dimension 0, elided braces against all elements."""
    if not isinstance(decl.init, c_ast.InitList):
        return
    items = decl.init.exprs
    braced = all(isinstance(e, c_ast.InitList) for e in items)
    room = shape[0] if braced else math.prod(shape)
    if len(items) > room:
        raise KernelError(node_coord(decl.init), (
            f"too many initializers for '{decl.name}': {len(items)} for {room} "
            f"{'rows' if braced and len(shape) > 1 else 'elements'}"))


def integer_constant(decl: c_ast.Decl, scope: Scope) -> int | None:
    """The value of ``const <integer type> NAME = <constant expression>;``, else None."""
    init = _const_integer_init(decl)
    return None if init is None else fold(init, scope)


def affine_temporary(decl: c_ast.Decl, scope: Scope) -> E.Expr | None:
    """``const <integer type> NAME = <quasi-affine expression>;``: the expression, which
    then stands for NAME in indices (a const cannot change, so substituting it is
    exact); None for anything else."""
    init = _const_integer_init(decl)
    return None if init is None else quasi_affine(init, scope)


def _const_integer_init(decl: c_ast.Decl) -> c_ast.Node | None:
    """The initializer of ``const <integer type> NAME = ...;``, else None."""
    t = decl.type
    if not (isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.IdentifierType)):
        return None
    if "const" not in (decl.quals or ()) or decl.init is None:
        return None
    bits = type_bits(t.type.names)
    if bits is None or "float" in t.type.names or "double" in t.type.names:
        return None
    return decl.init


def walk(node: c_ast.Node):
    """Every node below ``node`` (itself included), pre-order."""
    yield node
    for _, child in node.children():
        yield from walk(child)
