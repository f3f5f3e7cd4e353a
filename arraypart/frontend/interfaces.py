"""The top function's parameters as Vitis sees them: memories, FIFOs and sizes.

Per UG1399 ("Interfaces", "M_AXI Bundles"):

- ``#pragma HLS INTERFACE [mode=]<mode> port=<name> [bundle=B] [depth=N]`` sets a
  parameter's interface (``s_axilite`` beside ``m_axi`` on one port, in either order,
  carries the m_axi offset: the port stays ``m_axi``); without one, pointer and unsized array parameters (``int *a``,
  ``int a[]``, ``int a[][N]``) are ``m_axi`` (the kernel flow's default) and fixed-size
  arrays ``ap_memory``;
- ``storage_type=`` (``ap_memory``) names the port model of the on-chip memory, as
  ``bind_storage type=`` does for a local array;
- ``m_axi``: off-chip memory behind the bundle's adapter (``gmem0`` unless ``bundle=``),
  never partitioned; ``ap_memory`` / ``bram``: on-chip block RAM, partitionable when the
  parameter is an array (a pointer keeps one memory);
- ``ap_fifo`` and ``axis`` array arguments are FIFO ports: their accesses count one
  element per cycle on the port, no memory to bank; a pointer may step through one
  (``*p++``), each access then an element the model does not know (irregular);
- ``hls::stream`` parameters, and arrays of streams, are FIFOs: no memory to bank;
- a pointer that the program only dereferences (``*p``, ``p[0]``), without an
  INTERFACE pragma making it memory, is a register port of the emitted project's
  Vivado IP flow ("Default Interfaces for Vivado IP Flow": ``ap_none`` for an input,
  ``ap_vld`` for an output, ``ap_ovld`` for both; :func:`register_mode`);
- an integer scalar passed by value that the body never assigns is a run-time size:
  it may bound loops and appear in indices (:class:`arraypart.ir.Param`).

Run-time sizes are bounded by ``#pragma HLS LOOP_TRIPCOUNT max=M`` on a loop they bound
(see :func:`tripcount_bound`) or by ``-D ARRAYPART_MAX_<name>=V``.  ``depth=`` and
``max=`` are read as integers, ``#define`` or const names, or products of them; a value
arraypart cannot read (a name from a header's ``constexpr``) bounds nothing, as Vitis
uses both only for reports and co-simulation.
"""

from __future__ import annotations

from dataclasses import dataclass


import clang.cindex as ci

from .. import expr as E
from ..errors import Coord, KernelError
from . import cnodes as N
from . import scalars as S
from .cexpr import Bound, Scope, fold, interval
from .pragmas import HlsPragma, PragmaReader, pragma_int

T = ci.TypeKind
OFF_CHIP_MODES = ("m_axi",)
FIFO_MODES = ("ap_fifo", "axis")  # streaming ports: one element per cycle, no memory
STREAM_MODE = "axis"  # an hls::stream argument's port without an INTERFACE pragma
REGISTER_MODE = "s_axilite"  # beside m_axi: where the offset goes (offset=slave)
REMOVED_MODES = ("ap_bus",)  # Vivado HLS modes Vitis HLS no longer has
# the port-level protocols of one value (UG1399, "Port-Level Protocols for Vivado IP
# Flow"), and an AXI4-Lite register: a port of a scalar pointer that holds no memory
REGISTER_MODES = ("ap_none", "ap_stable", "ap_vld", "ap_ack", "ap_hs", "ap_ovld",
                  REGISTER_MODE)
# the Vivado IP flow's default port of a scalar pointer, by what the program does with it
DEFAULT_REGISTER_MODES = {frozenset({"read"}): "ap_none", frozenset({"write"}): "ap_vld",
                          frozenset({"read", "write"}): "ap_ovld"}
DEFAULT_BUNDLE = "gmem0"  # UG1399: m_axi ports without bundle= share gmem0
DEFAULT_UNSIZED_MODE = "m_axi"
DEFAULT_SIZED_MODE = "ap_memory"
MAX_DEFINE_PREFIX = "ARRAYPART_MAX_"
# What C's headers make a failed assert call, by library (glibc, macOS, MSVC, newlib).
ASSERT_FAILURES = frozenset({"__assert_fail", "__assert_rtn", "_assert", "__assert_func"})
# A comparison with its operands swapped.
MIRRORED = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "=="}
STREAM_TYPE_PREFIX = "hls::stream<"
ASSIGNING_UNARY = ("p++", "++", "p--", "--", "&")
# A size's type bounds it when the type is this narrow at most: its largest value is then
# a range the checker can replay (2^16 iterations); a wider type (int) bounds nothing
# useful, and its size stays open.
TYPE_BOUND_BITS = 16


@dataclass(frozen=True, slots=True)
class Interface:
    """One parameter's INTERFACE pragma (or Vitis's default for it)."""

    mode: str
    bundle: str | None
    depth: int | None
    coord: Coord | None
    unread_depth: str | None = None  # a depth= value arraypart cannot read
    storage: str | None = None  # ap_memory's storage_type=: the port model of its banks

    @property
    def off_chip(self) -> bool:
        return self.mode in OFF_CHIP_MODES

    @property
    def fifo(self) -> bool:
        return self.mode in FIFO_MODES


def interface_pragmas(func: N.FuncDef, reader: PragmaReader) -> dict[str, Interface]:
    """The INTERFACE pragmas of the top function's body, by port name (each name of a
    ``port=a,b`` list its own)."""
    found: dict[str, Interface] = {}
    for node in N.walk(func.body):
        parsed = reader.parse(node) if isinstance(node, N.Pragma) else None
        if parsed is None or parsed.kind != "interface":
            continue
        for pragma in reader.each_variable(parsed, "port"):
            _read_interface(pragma, reader, found)
    return found


def _read_interface(pragma: HlsPragma, reader: PragmaReader,
                    found: dict[str, Interface]) -> None:
    """One port's INTERFACE pragma (``port=`` names one), into ``found``."""
    port = pragma.option("port")
    mode = pragma.option("mode") or next(iter(pragma.flags), None)
    if port is None or mode is None:
        return  # Vitis itself reports an incomplete INTERFACE pragma
    written = pragma.option("depth")
    depth = None if written is None else pragma_int(written, reader.constants)
    bundle = pragma.option("bundle")
    mode = mode.lower()
    if mode in REMOVED_MODES:
        raise KernelError(reader.coord(pragma), (
            f"INTERFACE mode {mode} of '{port}' is not supported by Vitis HLS (UG1399, "
            "Unsupported Features: the INTERFACE pragma no longer has it); use m_axi for "
            "memory behind a bus"))
    if mode in OFF_CHIP_MODES and bundle is None:
        bundle = DEFAULT_BUNDLE
    unread = written if written is not None and depth is None else None
    if mode == REGISTER_MODE and port in found and found[port].off_chip:
        return  # the m_axi port's offset register, the memory stays off-chip
    found[port] = Interface(mode, bundle, depth, reader.coord(pragma), unread,
                            reader.storage_type(pragma, "storage_type"))


def default_interface(decl: N.Decl) -> Interface:
    """Vitis's interface for a parameter without an INTERFACE pragma."""
    if is_unsized(decl):
        return Interface(DEFAULT_UNSIZED_MODE, DEFAULT_BUNDLE, None, None)
    return Interface(DEFAULT_SIZED_MODE, None, None, None)


def register_mode(given: Interface | None, kinds: frozenset[str]) -> str | None:
    """The register port of a pointer that the program only dereferences, making the
    accesses ``kinds`` (``read``, ``write``): the mode of its INTERFACE pragma
    (``given``) when that is a register mode, the Vivado IP flow's default without a
    pragma; None when the pragma makes it memory or a FIFO (``m_axi``, ``ap_memory``,
    ``axis``...), or it is never accessed."""
    if given is not None:
        return given.mode if given.mode in REGISTER_MODES and kinds else None
    return DEFAULT_REGISTER_MODES.get(kinds)


def is_stream(decl: N.Decl) -> bool:
    """An ``hls::stream`` (by reference or pointer) or an array of them."""
    t = decl.ctype.clang if decl.ctype is not None else None
    while t is not None and t.kind in N.ARRAY_TYPE_KINDS + (
            T.POINTER, T.LVALUEREFERENCE, T.RVALUEREFERENCE):
        t = t.element_type if t.kind in N.ARRAY_TYPE_KINDS else t.get_pointee()
    return t is not None and t.get_canonical().spelling.startswith(STREAM_TYPE_PREFIX)


def stream_member(decl: N.Decl) -> str | None:
    """The path (``s_in``, ``inner.s``) of an ``hls::stream`` member of the struct
    that ``decl`` holds (by value, reference, pointer or array), None when there is
    none."""
    t = decl.ctype.clang if decl.ctype is not None else None
    return None if t is None else _stream_field(t, 0)


def _stream_field(t: ci.Type, depth: int) -> str | None:
    while t.kind in N.ARRAY_TYPE_KINDS + (T.POINTER, T.LVALUEREFERENCE, T.RVALUEREFERENCE):
        t = t.element_type if t.kind in N.ARRAY_TYPE_KINDS else t.get_pointee()
    t = t.get_canonical()
    if t.kind != T.RECORD or t.spelling.startswith(STREAM_TYPE_PREFIX) or depth > 8:
        return None
    for field in t.get_fields():
        if field.type.get_canonical().spelling.startswith(STREAM_TYPE_PREFIX):
            return field.spelling
        inner = _stream_field(field.type, depth + 1)
        if inner is not None:
            return f"{field.spelling}.{inner}"
    return None


def stream_value_type(decl: N.Decl) -> tuple[ci.Type, tuple[int, ...]] | None:
    """``T`` of the ``hls::stream<T>`` that ``decl`` names (by reference or pointer),
    and the sizes of the array of them it is (``()`` for one stream); None for
    anything else (an array of streams of an unsized first dimension too)."""
    t = decl.ctype.clang if decl.ctype is not None else None
    if t is not None and t.kind in (T.POINTER, T.LVALUEREFERENCE, T.RVALUEREFERENCE):
        t = t.get_pointee()
    sizes = []
    while t is not None and t.kind == T.CONSTANTARRAY:
        sizes.append(t.get_array_size())
        t = t.element_type
    if t is None or not t.get_canonical().spelling.startswith(STREAM_TYPE_PREFIX):
        return None
    canonical = t.get_canonical()
    if canonical.get_num_template_arguments() <= 0:
        return None
    return canonical.get_template_argument_type(0), tuple(sizes)


def is_unsized(decl: N.Decl) -> bool:
    """A pointer or an array whose first dimension has no size (``int a[]``)."""
    kind = decl.ctype.kind if decl.ctype is not None else None
    return kind in (T.POINTER, T.INCOMPLETEARRAY)


def is_size_candidate(decl: N.Decl, body: N.Node) -> bool:
    """An integer (C or ``ap_[u]int<W>``) passed by value that ``body`` never assigns,
    takes the address of, binds to a reference it may write through (``int &r = n;``)
    or shadows: a run-time size."""
    if decl.ctype is None or decl.ctype.integer is None:
        return False
    for node in N.walk(body):
        if isinstance(node, N.Decl) and (node.name == decl.name
                                         or decl.name in S.reference_bound(node)):
            return False
        if isinstance(node, N.Assignment) and _names(node.lvalue, decl.name):
            return False
        if isinstance(node, N.UnaryOp) and node.op in ASSIGNING_UNARY and _names(
                node.expr, decl.name):
            return False
    return True


def type_bound(decl: N.Decl) -> int | None:
    """The largest value of a size's type when it is at most :data:`TYPE_BOUND_BITS`
    wide (``ap_uint<5>``: 31, ``unsigned char``: 255), else None."""
    integer = decl.ctype.integer
    return None if integer is None or integer.width > TYPE_BOUND_BITS else integer.high


def _names(node: N.Node, name: str) -> bool:
    return isinstance(node, N.Id) and node.name == name


def define_bounds(defines: dict[str, int], names: list[str]) -> dict[str, int]:
    """``-D ARRAYPART_MAX_<name>=V`` for the given size parameters."""
    return {n: defines[MAX_DEFINE_PREFIX + n] for n in names
            if MAX_DEFINE_PREFIX + n in defines}


def assert_bounds(body: N.Compound, constants: dict[str, int],
                  names: list[str]) -> dict[str, tuple[int | None, int | None, Coord]]:
    """The (low, high) that the ``assert`` statements among a function's own
    statements give the sizes ``names``, with where the high is asserted:
    ``assert(w <= 64 && h > 0)``
    gives w at most 64 and h at least 1, as Vitis reads an assert as range
    information.  Only comparisons of a size with a constant, joined by ``&&``,
    count."""
    found: dict[str, tuple[int | None, int | None, Coord]] = {}
    for item in body.items:
        for name, low, high in _comparisons(_asserted(item), constants, names):
            known_low, known_high, where = found.get(name, (None, None, item.coord))
            if high is not None and (known_high is None or high < known_high):
                where = item.coord
            found[name] = (extreme(max, low, known_low), extreme(min, high, known_high),
                           where)
    return found


def extreme(pick, a: int | None, b: int | None) -> int | None:
    """``pick(a, b)`` of those given (None when neither is): the tighter of two
    bounds, ``None`` standing for no bound."""
    given = [x for x in (a, b) if x is not None]
    return pick(given) if given else None


def _asserted(node: N.Node) -> N.Node | None:
    """The condition of ``assert(c)``, which C's headers expand to
    ``c ? (void)0 : __assert_fail(...)``; None for any other statement."""
    if not isinstance(node, N.TernaryOp):
        return None
    failing = N.without_casts(node.iffalse)
    if isinstance(failing, N.FuncCall) and failing.name in ASSERT_FAILURES:
        return N.without_casts(node.cond)
    return None


def _comparisons(node: N.Node | None, constants: dict[str, int], names: list[str]):
    """(size, low, high) of each ``size op constant`` (or ``constant op size``) in
    the ``&&`` conjunction ``node``."""
    if not isinstance(node, N.BinaryOp):
        return
    if node.op == "&&":
        yield from _comparisons(N.without_casts(node.left), constants, names)
        yield from _comparisons(N.without_casts(node.right), constants, names)
        return
    left, right = N.without_casts(node.left), N.without_casts(node.right)
    op = node.op
    if isinstance(right, N.Id) and right.name in names:
        left, right, op = right, left, MIRRORED.get(op, op)
    if not (isinstance(left, N.Id) and left.name in names) or op not in MIRRORED:
        return
    value = fold(right, Scope(frozenset(), constants))
    if value is None:
        return
    yield {"<": (left.name, None, value - 1), "<=": (left.name, None, value),
           ">": (left.name, value + 1, None), ">=": (left.name, value, None),
           "==": (left.name, value, value)}[op]


def tripcount(reader: PragmaReader, header: list[N.Node]) -> tuple[int, HlsPragma] | None:
    """``max=`` of the ``LOOP_TRIPCOUNT`` pragma among a loop body's opening pragmas
    (None: no such pragma, or a value arraypart cannot read)."""
    for node in header:
        pragma = reader.parse(node)
        if pragma is not None and pragma.kind == "loop_tripcount" and pragma.option("max"):
            trips = pragma_int(pragma.option("max"), reader.constants)
            return None if trips is None else (trips, pragma)
    return None


def tripcount_bound(span: E.Expr, param: str, step: int, trips: int,
                    ranges: dict[str, Bound]) -> Bound | None:
    """The values of ``param`` for which a loop runs at most ``trips`` times wherever
    it is reached, as ``(low, high)`` with one end None, or None when ``span`` is not
    of the form handled.

    The loop runs ``floor(span / |step|) + 1`` times (``span``: last bound minus start,
    mirrored for a negative step).  With ``span = a*param + rest`` (``rest`` free of
    ``param``) that is at most ``trips`` iff ``a*param + rest <= trips*|step| - 1``; it
    holds for every value ``rest`` takes when ``param <= floor((trips*|step| - 1 -
    max(rest)) / a)`` for ``a > 0``, and ``param >= ceil((max(rest) - trips*|step| + 1)
    / -a)`` for ``a < 0`` (``i < 20 - n`` run at most 8 times: n >= 12).
    """
    form = E.affine_form(span)
    if form is None or form[0].get(param, 0) == 0:
        return None
    a = form[0][param]
    rest = E.simplify(E.substitute(span, {param: E.const(0)}))
    high = interval(rest, ranges)[1]
    if high is None:
        return None
    if a > 0:
        return None, (trips * abs(step) - 1 - high) // a
    return -((trips * abs(step) - 1 - high) // -a), None


def unknown_extent(name: str, coord: Coord, iface: Interface, rows: bool) -> KernelError:
    """The extent of pointer ``name`` is unknown; ``rows``: it points to rows
    (``a[][N]``), which its depth counts."""
    if iface.unread_depth is not None:
        return KernelError(coord, (
            f"pointer parameter '{name}': its extent is unknown and its depth="
            f"{iface.unread_depth} is not an integer arraypart can read (write a literal, "
            "a #define or a product of them)"))
    return KernelError(coord, (
        f"pointer parameter '{name}': its extent is unknown (an index that is not affine "
        f"in loop iterators and bounded sizes, or a use other than {name}[...] and "
        f"*{name}); give it with '#pragma HLS INTERFACE {iface.mode} port={name} "
        f"depth=<{'rows' if rows else 'elements'}>', or bound the sizes its index uses with "
        f"LOOP_TRIPCOUNT max= or -D {MAX_DEFINE_PREFIX}<size>"))
