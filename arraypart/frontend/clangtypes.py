"""clang's types read as data: :class:`TypeInfo`, the plain record of a declared type that
outlives the translation unit, and the integer types (C's, ``ap_[u]int<W>``) that the
converter (:mod:`.convert`) annotates nodes with (:class:`.cnodes.IntType`).
"""

from __future__ import annotations

import re

import clang.cindex as ci

from .cnodes import (ARRAY_TYPE_KINDS, INTEGER_TYPE_KINDS, POINTER_TYPE_KINDS,
                     REFERENCE_TYPE_KINDS, IntType)

K = ci.CursorKind
WIDE_UNSIGNED = 64  # C's unsigned long long, size_t, uint64_t; ap_uint<64> and wider
SIGNED_KINDS = frozenset((ci.TypeKind.CHAR_S, ci.TypeKind.SCHAR, ci.TypeKind.SHORT,
                          ci.TypeKind.INT, ci.TypeKind.LONG, ci.TypeKind.LONGLONG))
_QUALIFIERS = r"(?:(?:const|volatile)\s+)*"  # an operand's type: const ap_int_base<8, true>
_AP_WIDTH = re.compile(_QUALIFIERS + r"ap_(u?)int<\s*(\d+)\s*>")
# The result type of ap_[u]int arithmetic, as the stand-in and Vitis's headers name it.
_AP_BASE = re.compile(_QUALIFIERS + r"ap_int_base<\s*(\d+)\s*,\s*(true|false)\s*>")


class TypeInfo:
    """A declared type as plain data (kinds and spellings), plus clang's ``Type`` in
    ``clang`` for the lowering only: :meth:`release` drops it once the IR is built, so
    that no kept tree holds the translation unit (and its memory) alive.  ``referent``
    is the referenced type of a reference (None for any other type); ``ap_number``: the
    type is an ``ap_[u]int`` or ``ap_[u]fixed``; ``const``: it is const-qualified;
    ``integer``: the :class:`IntType` it is, if any; ``array_typedef``: through
    arrays and pointers it reaches a name that stands for an array type;
    ``element_struct``: its elements (through arrays, pointers and references) are
    structs other than those, whose direct fields ``element_fields`` lists as
    ``(name, by_value)``: integers, enums and bit-fields compare by value, anything else
    (floating point, arrays, structs) bit for bit; padding is no field (its bytes are
    indeterminate after a copy); ``array_fields``: some direct field is an array;
    ``stream_fields``: for an ``hls::stream`` of such structs (:func:`_streamed_record`),
    their fields;
    ``element_ap_fields`` and ``stream_ap_fields``: the ``ap_`` number and ``bool``
    fields of those structs (:func:`_ap_fields`), which random bytes would fill past
    their width;
    ``element_initialized``: such a struct sets fields of its own when default
    constructed (a default member initializer, or a default constructor the user wrote);
    ``enumerators``: for an enum, the values of its enumerators, in order."""

    __slots__ = ("clang", "kind", "canonical_kind", "spelling", "canonical_spelling",
                 "element_struct", "element_fields", "element_spelling", "referent",
                 "ap_number", "const", "integer", "array_typedef", "array_fields",
                 "stream_fields", "element_ap_fields", "stream_ap_fields",
                 "element_initialized", "enumerators")

    def __init__(self, t: ci.Type):
        canonical = t.get_canonical()
        self.clang = t
        self.kind = t.kind
        self.canonical_kind = canonical.kind
        self.spelling = t.spelling
        self.canonical_spelling = canonical.spelling
        element = canonical
        while element.kind in ARRAY_TYPE_KINDS + POINTER_TYPE_KINDS:
            element = (element.element_type if element.kind in ARRAY_TYPE_KINDS
                       else element.get_pointee()).get_canonical()
        ap_record = (element.kind == ci.TypeKind.RECORD
                     and element.get_declaration().spelling in AP_TYPE_NAMES)
        self.element_struct = element.kind == ci.TypeKind.RECORD and not ap_record
        self.element_fields = _fields(element) if self.element_struct else ()
        self.element_ap_fields = _ap_fields(element) if self.element_struct else ()
        self.array_fields = self.element_struct and any(
            f.type.get_canonical().kind in ARRAY_TYPE_KINDS for f in element.get_fields())
        self.element_initialized = self.element_struct and _initializes_itself(element)
        self.element_spelling = element.spelling
        self.ap_number = ap_record and element == canonical
        self.const = t.is_const_qualified()
        self.referent = (TypeInfo(t.get_pointee()) if t.kind in REFERENCE_TYPE_KINDS
                         else None)
        self.integer = int_type(t)
        self.array_typedef = _names_an_array(t)
        streamed = _streamed_record(element)
        self.stream_fields = _fields(streamed) if streamed is not None else ()
        self.stream_ap_fields = _ap_fields(streamed) if streamed is not None else ()
        self.enumerators = tuple(
            c.enum_value for c in canonical.get_declaration().get_children()
            if c.kind == K.ENUM_CONSTANT_DECL) if canonical.kind == ci.TypeKind.ENUM else ()

    def release(self) -> None:
        self.clang = None
        if self.referent is not None:
            self.referent.release()


def points_at_elements(ctype: TypeInfo) -> bool:
    """``ctype`` is a pointer (not a reference) to something other than an array: its
    subscript indexes one dimension."""
    canonical = ctype.clang.get_canonical()
    return (canonical.kind == ci.TypeKind.POINTER
            and canonical.get_pointee().kind not in ARRAY_TYPE_KINDS)


AP_TYPE_NAMES = ("ap_int", "ap_uint", "ap_fixed", "ap_ufixed")


def _initializes_itself(record: ci.Type) -> bool:
    """Whether default construction of the struct ``record`` sets some field: one has
    a default member initializer (``int sum = 0;``), or the user wrote its default
    constructor (not ``= default``)."""
    if any(any(c.kind.is_expression() for c in f.get_children())
           for f in record.get_fields()):
        return True
    return any(c.kind == K.CONSTRUCTOR and c.is_default_constructor()
               and not c.is_default_method() and not c.is_deleted_method()
               for c in record.get_declaration().get_children())


def _streamed_record(element: ci.Type) -> ci.Type | None:
    """The struct an ``hls::stream`` type ``element`` carries, if it carries one (not a
    number or an ``ap_`` type)."""
    if (element.kind != ci.TypeKind.RECORD or not element.spelling.startswith("hls::stream<")
            or element.get_num_template_arguments() < 1):
        return None
    value = element.get_template_argument_type(0).get_canonical()
    if value.kind != ci.TypeKind.RECORD or value.get_declaration().spelling in AP_TYPE_NAMES:
        return None
    return value


#: How deep :func:`_ap_fields` looks into structs within structs.
MAX_FIELD_DEPTH = 4


_PUBLIC = (ci.AccessSpecifier.PUBLIC, ci.AccessSpecifier.INVALID)


def _ap_fields(record: ci.Type, prefix: str = "", dims: tuple[int, ...] = (),
               depth: int = 0) -> tuple[tuple[str, str, tuple[int, ...]], ...]:
    """``(element, type, dims)`` of the ``ap_`` number and ``bool`` fields of the struct
    ``record``, public and not const, also in its public base classes and struct fields:
    ``element`` names one element, indexed by ``k0``, ``k1``, ... (``parts[k0].idx``,
    ``data[k0]``), ``dims`` the ranges of those indices, ``type`` the element type
    (``ap_uint<8>``).  The testbench sets them to values of their width (0 or 1 for a
    ``bool``) after filling the struct's bytes."""
    found = []
    for base in record.get_declaration().get_children():
        if (base.kind == K.CXX_BASE_SPECIFIER and base.access_specifier in _PUBLIC
                and depth < MAX_FIELD_DEPTH):
            found.extend(_ap_fields(base.type.get_canonical(), prefix, dims, depth + 1))
    for f in record.get_fields():
        if not f.spelling or f.access_specifier not in _PUBLIC:
            continue
        t, own = f.type.get_canonical(), []
        while t.kind == ci.TypeKind.CONSTANTARRAY:
            own.append(t.element_count)
            t = t.element_type.get_canonical()
        if t.kind not in (ci.TypeKind.RECORD, ci.TypeKind.BOOL) or t.is_const_qualified():
            continue
        element = prefix + f.spelling + "".join(f"[k{len(dims) + d}]" for d in range(len(own)))
        if t.kind == ci.TypeKind.BOOL:  # a byte other than 0 or 1 is no bool
            found.append((element, "bool", dims + tuple(own)))
        elif t.get_declaration().spelling in AP_TYPE_NAMES:
            found.append((element, t.spelling, dims + tuple(own)))
        elif depth < MAX_FIELD_DEPTH:
            found.extend(_ap_fields(t, element + ".", dims + tuple(own), depth + 1))
    return tuple(found)


def _fields(record: ci.Type) -> tuple[tuple[str, bool], ...]:
    """``(name, by_value)`` of a struct's direct fields (:class:`TypeInfo`); none for a
    class with a field that is not public (``hls::vector``: code outside cannot name
    it)."""
    fields = list(record.get_fields())
    if any(f.access_specifier not in _PUBLIC for f in fields):
        return ()
    by_value_kinds = INTEGER_TYPE_KINDS | {ci.TypeKind.ENUM}
    return tuple((f.spelling, f.is_bitfield()
                  or f.type.get_canonical().kind in by_value_kinds) for f in fields)


def _names_an_array(t: ci.Type) -> bool:
    """Whether ``t``, through its arrays and pointers, reaches a type name (a typedef,
    ``using``) that stands for an array type (``img_t`` for ``int[4][8]``)."""
    while True:
        if t.kind in ARRAY_TYPE_KINDS:
            t = t.element_type
        elif t.kind == ci.TypeKind.POINTER:
            t = t.get_pointee()
        else:
            canonical = t.get_canonical()
            return canonical.kind != t.kind and canonical.kind in ARRAY_TYPE_KINDS


def bytes_of(t: ci.Type) -> int | None:
    """``sizeof`` a type; None where clang cannot tell (a template's parameter)."""
    size = t.get_canonical().get_size()
    return size if size > 0 else None


def int_type(t: ci.Type) -> IntType | None:
    """The integer type ``t`` is (typedefs and ``ap_[u]int<W>`` seen through), or None."""
    canonical = t.get_canonical()
    if canonical.kind == ci.TypeKind.BOOL:
        return IntType(1, False, boolean=True)
    if canonical.kind in INTEGER_TYPE_KINDS:
        return IntType(8 * canonical.get_size(), canonical.kind in SIGNED_KINDS)
    return ap_type(t)


def wide_unsigned(types) -> IntType | None:
    """The widest unsigned integer type of ``WIDE_UNSIGNED`` bits or more among the
    operand types ``types`` (as C converts them: both operands of a built-in operator
    have the usual arithmetic conversions' common type), else None.  The front end
    keeps such a type's values unreduced (:func:`.cexpr.converted`), so a negative
    value there stands for itself + 2^w."""
    wide = [t for t in map(int_type, types)
            if t is not None and not t.signed and t.width >= WIDE_UNSIGNED]
    return max(wide, key=lambda t: t.width, default=None)


def ap_type(t: ci.Type) -> IntType | None:
    """The integer type of an ``ap_int<W>``, ``ap_uint<W>`` or ``ap_int_base<W, S>``
    (typedefs seen through), or None for any other type."""
    spelling = t.get_canonical().spelling
    ap = _AP_WIDTH.fullmatch(spelling)
    if ap is not None:
        return IntType(int(ap.group(2)), not ap.group(1))
    base = _AP_BASE.fullmatch(spelling)
    return None if base is None else IntType(int(base.group(1)), base.group(2) == "true")


def mutable_reference(t: ci.Type) -> bool:
    """``T &`` with T not const, or ``T &&``: the callee may write what it names."""
    return t.kind == ci.TypeKind.RVALUEREFERENCE or (
        t.kind == ci.TypeKind.LVALUEREFERENCE and not t.get_pointee().is_const_qualified())
