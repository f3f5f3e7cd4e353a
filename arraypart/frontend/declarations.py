"""Declarations of the top function: its arrays, element types and named constants.

Sizes and element types come from clang's types: ``int A[N][M]`` has the constant
array type ``int[8][16]`` once the preprocessor and clang have folded ``N`` and ``M``.
An element is W bits: C scalars by their size (``bool`` 1), ``ap_[u]int<W>`` and
``ap_[u]fixed<W, I>`` W, a struct the sum of its fields.
"""

from __future__ import annotations

import math

import clang.cindex as ci

from ..errors import Coord, KernelError
from ..ir import Array
from . import clangtu  # also registers the type kinds HALF_KINDS names
from . import cnodes as N
from .cexpr import Scope, fold

T = ci.TypeKind
FIXED_WIDTH_NAMES = ("int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t",
                     "uint32_t", "uint64_t", "size_t")
HALF_KINDS = (T.HALF, T.FLOAT16, T.BFLOAT16)  # FLOAT16, BFLOAT16: clangtu registers them
FLOATING_KINDS = frozenset((T.FLOAT, T.DOUBLE, T.LONGDOUBLE, T.FLOAT128, *HALF_KINDS))
SCALAR_KINDS = N.INTEGER_TYPE_KINDS | FLOATING_KINDS | {T.ENUM}
BITS_PER_BYTE = 8
BOOL_BITS = 1
# Vitis's arbitrary-precision types: the first template argument is the width W.
AP_TYPES = ("ap_int", "ap_uint", "ap_fixed", "ap_ufixed")
MAX_ARRAY_ELEMENTS = 2 ** 63 - 1  # element counts and flat offsets fit numpy's int64
QUALIFIERS = ("const ", "volatile ")
# g++ refuses objects over PTRDIFF_MAX (2^63 - 1) bytes.  Banked output may pad an
# array and copy it; 2^48 bytes (256 TiB, 10^5 times any FPGA's on-chip memory)
# leaves it a factor of 2^15 below that limit, so the output always compiles.
MAX_ARRAY_BYTES = 2 ** 48


def _unqualified(spelling: str) -> str:
    changed = True
    while changed:
        changed = False
        for q in QUALIFIERS:
            if spelling.startswith(q):
                spelling, changed = spelling[len(q):], True
    return spelling


def element_type(t: ci.Type, name: str, coord: Coord) -> tuple[str, int]:
    """``(type name, bits)`` of an array's element type ``t``."""
    written = _unqualified(t.spelling)
    canonical = t.get_canonical()
    if canonical.kind == T.BOOL:
        return "bool", BOOL_BITS
    if canonical.kind in SCALAR_KINDS:
        # a 16-bit float keeps its name (Vitis's half; _Float16 is g++'s)
        keep = written in FIXED_WIDTH_NAMES or canonical.kind in HALF_KINDS
        shown = written if keep else _unqualified(canonical.spelling)
        return shown, canonical.get_size() * BITS_PER_BYTE
    if canonical.kind == T.RECORD:
        bits = record_bits(canonical)
        if bits is not None:
            return written, bits
    raise KernelError(coord, f"array '{name}': unsupported element type '{written}' "
                             "(expected an integer, floating-point, bool, ap_[u]int, "
                             "ap_[u]fixed or struct type)")


def record_bits(t: ci.Type) -> int | None:
    """W of ``ap_int<W>`` and friends; the sum of the fields of a plain struct."""
    decl = t.get_declaration()
    base = decl.spelling
    if base in AP_TYPES and t.get_num_template_arguments() > 0:
        width = decl.get_template_argument_value(0)
        return width if width > 0 else None
    total = 0
    for f in t.get_fields():
        ft = f.type.get_canonical()
        count = 1
        while ft.kind == T.CONSTANTARRAY:
            count *= ft.get_array_size()
            ft = ft.element_type.get_canonical()
        if ft.kind == T.BOOL:
            bits = BOOL_BITS
        elif ft.kind in SCALAR_KINDS:
            bits = ft.get_size() * BITS_PER_BYTE
        elif ft.kind == T.RECORD:
            bits = record_bits(ft)
        else:
            bits = None
        if bits is None:
            return None
        total += bits * count
    return total or None


def array_decl(decl: N.Decl, *, interface: bool, extent: int | None = None) -> Array:
    """An array declaration, before its pragmas; sizes must be positive constants.
    ``extent`` is the first dimension of a pointer or unsized parameter (``int *a``,
    ``int a[][N]``): the dimensions after it must still be constants."""
    coord = decl.coord
    shape = []
    t = decl.ctype.clang if decl.ctype is not None else None
    if t is not None and t.kind in (T.LVALUEREFERENCE, T.RVALUEREFERENCE):
        t = t.get_pointee()  # int (&a)[16]: the array it names
    d = 0
    if extent is not None:
        shape.append(extent)
        t = t.get_pointee() if t.kind == T.POINTER else t.element_type
        d = 1
    while t.kind in N.ARRAY_TYPE_KINDS:
        dim = decl.dims[d] if d < len(decl.dims) else None
        where = dim.coord if dim is not None else coord
        if t.kind == T.INCOMPLETEARRAY:
            what = "array parameter" if interface else "array"
            raise KernelError(coord, f"{what} '{decl.name}' needs a fixed size")
        if t.kind != T.CONSTANTARRAY or t.get_array_size() <= 0:
            raise KernelError(where, f"size of array '{decl.name}' must be a positive "
                                     "integer constant")
        shape.append(t.get_array_size())
        t = t.element_type
        d += 1
    _check_initializer_count(decl, shape)
    if math.prod(shape) > MAX_ARRAY_ELEMENTS:
        raise KernelError(coord, f"array '{decl.name}' has {math.prod(shape)} elements, "
                                 f"more than the {MAX_ARRAY_ELEMENTS} supported")
    elem_type, bits = element_type(t, decl.name, coord)
    size_bytes = math.prod(shape) * -(-bits // 8)
    if size_bytes > MAX_ARRAY_BYTES:
        raise KernelError(coord, f"array '{decl.name}' takes {size_bytes} bytes, more than "
                                 f"the {MAX_ARRAY_BYTES} (2^48) a compiler accepts with "
                                 "room for banking")
    # qualifiers a typedef carries (typedef volatile int vint) are the canonical type's
    canonical = t.get_canonical()
    return Array(decl.name, tuple(shape), elem_type, bits, interface, coord,
                 const=t.is_const_qualified() or canonical.is_const_qualified(),
                 static=decl.static,
                 volatile=t.is_volatile_qualified() or canonical.is_volatile_qualified(),
                 floating=canonical.kind in FLOATING_KINDS)


# How deep :func:`struct_fields` looks into structs within structs.
MAX_MEMBER_DEPTH = 4


def struct_fields(decl: N.Decl) -> tuple[tuple[str, ci.Type], ...]:
    """``(path, type)`` of each array field of the struct variable ``decl`` (not an
    array, pointer or reference of one), and of the struct fields within it
    (``buf``, ``in.buf``): its memories once Vitis disaggregates it (UG1399,
    "Structs").  An ``ap_`` number or ``hls::stream`` is no struct here; an array of
    structs inside it is one array field (its elements' members are its views)."""
    t = decl.ctype.clang if decl.ctype is not None else None
    if t is None or t.get_canonical().kind != T.RECORD or decl.is_array:
        return ()
    return tuple(_array_fields(t.get_canonical(), "", 0))


def holds_arrays(t: ci.Type) -> bool:
    """A variable of type ``t`` is a struct with array fields (:func:`struct_fields`)."""
    canonical = t.get_canonical()
    return canonical.kind == T.RECORD and any(_array_fields(canonical, "", 0))


def _hands_out_elements(record: ci.Type) -> bool:
    """Some method of the struct returns a reference or a pointer to something other
    than the struct (``int &operator[](int i) { return a[i]; }``, ``int *data()``):
    its caller then reads or writes the fields' elements where arraypart sees only the
    method's ``return``, so the fields are not modelled (said where they are
    reached)."""
    for c in clangtu.record_members(record):
        result = c.result_type if c.kind == ci.CursorKind.CXX_METHOD else None
        if result is not None and result.get_canonical().kind in _HANDLES and (
                result.get_pointee().get_canonical().get_declaration()
                != record.get_declaration()):
            return True
    return False


_HANDLES = (T.LVALUEREFERENCE, T.RVALUEREFERENCE, T.POINTER)


def _array_fields(record: ci.Type, prefix: str, depth: int):
    if record.get_declaration().spelling in AP_TYPES or depth > MAX_MEMBER_DEPTH \
            or record.spelling.startswith(("hls::", "std::")) \
            or record.get_declaration().kind == ci.CursorKind.UNION_DECL \
            or _hands_out_elements(record):
        return  # a union's fields share one storage: no memory of its own each
    for f in record.get_fields():
        ft = f.type.get_canonical()
        if ft.kind == T.CONSTANTARRAY:
            yield prefix + f.spelling, f.type
        elif ft.kind == T.RECORD:
            yield from _array_fields(ft, f"{prefix}{f.spelling}.", depth + 1)


def field_array(decl: N.Decl, path: str, t: ci.Type, name: str) -> Array:
    """The array field ``path`` (of type ``t``) of the struct variable ``decl``, as the
    array ``name`` (:attr:`arraypart.ir.Array.member`)."""
    shape = []
    written = f"{decl.name}.{path}"
    while t.get_canonical().kind == T.CONSTANTARRAY:
        shape.append(t.get_canonical().get_array_size())
        t = t.get_canonical().element_type
    elem_type, bits = element_type(t, written, decl.coord)
    canonical = t.get_canonical()
    struct = decl.ctype.clang
    return Array(name, tuple(shape), elem_type, bits, False, decl.coord,
                 const=struct.is_const_qualified() or canonical.is_const_qualified(),
                 static=decl.static, member=path,
                 volatile=struct.is_volatile_qualified() or canonical.is_volatile_qualified())


def _check_initializer_count(decl: N.Decl, shape: list[int]) -> None:
    """More initializers than elements is an error in C++ (and a constraint violation
    in C); braced rows count against dimension 0, elided braces against all elements."""
    if not isinstance(decl.init, N.InitList):
        return
    items = decl.init.exprs
    braced = all(isinstance(e, N.InitList) for e in items)
    room = shape[0] if braced else math.prod(shape)
    if len(items) > room:
        raise KernelError(decl.init.coord, (
            f"too many initializers for '{decl.name}': {len(items)} for {room} "
            f"{'rows' if braced and len(shape) > 1 else 'elements'}"))


def integer_constant(decl: N.Decl, scope: Scope) -> int | None:
    """The value of ``const <integer type> NAME = <constant expression>;``, else None."""
    init = _const_integer_init(decl)
    return None if init is None else fold(init, scope)


def _const_integer_init(decl: N.Decl) -> N.Node | None:
    """The initializer of ``const <integer type> NAME = ...;``, else None."""
    t = decl.ctype.clang if decl.ctype is not None else None
    if t is None or decl.init is None or not t.is_const_qualified():
        return None
    if t.get_canonical().kind not in N.INTEGER_TYPE_KINDS:
        return None
    return decl.init


def refuse_array_typedefs(func: N.FuncDef) -> None:
    """An array that ``func`` (a parameter, a local) declares through a name for its
    array type (``typedef int img_t[4][8]; img_t buf;``) is a located error: arraypart
    reads an array's dimensions, and emits its banks, where the array is declared."""
    for decl in [*func.params, *N.walk(func.body)]:
        if isinstance(decl, N.Decl):
            _refuse_array_typedef(decl)


def _refuse_array_typedef(decl: N.Decl) -> None:
    if decl.ctype is not None and decl.ctype.array_typedef:
        spelled = decl.ctype.canonical_spelling
        element, _, dims = spelled.partition("[")
        raise KernelError(decl.coord, (
            f"'{decl.name}' is declared through a name for an array type "
            f"('{decl.ctype.spelling}' is {spelled}): arraypart reads an array's "
            "dimensions where it is declared; write them out "
            f"({element.strip()} {decl.name}[{dims})"))
