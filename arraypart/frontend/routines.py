"""Library routines that copy or fill memory: part of :class:`.lower._Lowering`.

``memcpy(dst, src, n)`` and ``memmove(dst, src, n)`` read the elements of ``src`` and
write those of ``dst`` that their ``n`` bytes cover; ``memset(dst, v, n)`` writes those
of ``dst``.  Vitis HLS turns a routine whose byte count is a constant into one access
per element, all in one step of the pipeline around it (a fully unrolled copy), and
so does the model: a memory argument of array A (:func:`.calls.memory_argument`)
makes ``ceil(n / sizeof(A's element))`` accesses of A (the two arrays need not share
an element type: each counts its own elements), the elements ``0, 1, ...`` past its
start in C's row-major layout (:func:`element_index`).  A written element that the
bytes cover in part is read and written (:func:`partial_write`).  An argument that
is no array of the kernel (a scalar's address) is a value: its own reads only.

A count that does not fold to a constant (or more than :data:`MAX_ROUTINE_ELEMENTS`
elements, or an argument that a written pointer cast steps by another type:
``(char *)buf + 3``) is a located error inside a pipelined or unrolled loop, whose II
would depend on it; outside them the routine's accesses share no cycle with others,
and the elements it reaches are left open (an irregular access of each array, and a
warning).

Code generation rewrites an array's references by their subscripts, never a memory
argument, so an array that a routine touches keeps its references as written (its
partition pragmas carry the banking: :meth:`.accesses.AccessLowering._keep_as_written`).

A dereference through a pointer cast to a wider type, ``*(long long *)&A[4 * i]`` or
``*reinterpret_cast<T *>(&K[0][i])``, reads or writes ``sizeof(T)`` bytes: it is the
memcpy of them (:meth:`RoutineLowering._wide_dereference`), k = sizeof(T) /
sizeof(element) accesses A[e], ..., A[e + k - 1] in C's layout, its array kept as
written; a narrower one is the element that holds it, written in part
(:func:`partial_write`) where it is written.  A width that is no whole number
of elements, or an address a cast steps by other than the array's elements, is a
located error (before 2026-12-07 such a '*' was one access: probe 39 H3).
"""

from __future__ import annotations

from math import prod
from typing import Mapping

import clang.cindex as ci

from .. import expr as E
from ..errors import KernelError
from ..ir import Access
from . import calls
from . import cnodes as N
from .calls import Binding
from .cexpr import Bound, interval, quasi_affine

T = ci.TypeKind
#: The routines that read their second argument's memory (``memset`` reads a value).
COPYING = frozenset(("memcpy", "memmove"))
#: The most elements one routine call is modelled element by element: past it, a copy
#: inside a pipeline is refused (an iteration of that many accesses is no design), and
#: one outside is left open (the model holds an access per element: a copy of 16 K
#: elements each way outside pipelines adds about 2 s to building the model).
MAX_ROUTINE_ELEMENTS = 1 << 14
_POINTING = (T.POINTER, T.LVALUEREFERENCE, T.RVALUEREFERENCE)
_ARRAYS = (T.CONSTANTARRAY, T.INCOMPLETEARRAY, T.VARIABLEARRAY, T.DEPENDENTSIZEDARRAY)


def element_index(binding: Binding, shape: tuple[int, ...], k: int,
                  ranges: Mapping[str, Bound]) -> tuple[E.Expr | None, ...]:
    """The index of the element ``k`` elements past the start of ``binding`` (an
    array, a row ``A[i]``, a pointer ``&A[i][j]``) in row-major order.  From an
    array's or a row's start the copy runs along the dimensions after the prefix
    (``A`` + k is ``A[k // C][k % C]``); from a pointer into a row, ``A[i][j + k]`` while
    ``j + k`` stays in the row for every value of the iterators in ``ranges``, else the
    index of the flat position ``L = i * C + j + k`` (``floor(L / C)``, ``L mod C``):
    C's layout, which the copy runs along across rows."""
    prefix, rest = binding.prefix, shape[len(binding.prefix):]
    first = None if binding.offset is None else E.add(binding.offset,
                                                      E.const(k // prod(rest[1:])))
    digits = tuple(E.const(k // prod(rest[d + 1:]) % rest[d]) for d in range(1, len(rest)))
    index = prefix + (first,) + digits
    if not prefix or (first is not None and _within(first, rest[0], ranges)):
        return index
    return _carried(index, shape)


def _within(e: E.Expr, size: int, ranges: Mapping[str, Bound]) -> bool:
    low, high = interval(e, ranges)
    return low is not None and high is not None and 0 <= low and high < size


def _carried(index: tuple[E.Expr | None, ...], shape: tuple[int, ...]
             ) -> tuple[E.Expr | None, ...]:
    """``index`` with each dimension's overflow carried into the one before it, as
    the flat position it names in C's layout (any index where one is unknown)."""
    if any(e is None for e in index):
        return (None,) * len(shape)
    strides = [prod(shape[d + 1:]) for d in range(len(shape))]
    flat = E.add(*(E.scale(s, e) for s, e in zip(strides, index)))
    return (E.floordiv(flat, strides[0]),) + tuple(
        E.mod(E.floordiv(flat, strides[d]), shape[d]) for d in range(1, len(shape)))


def _cast_stepped(arg: N.Node, size: int) -> bool:
    """``(char *)buf + k``: pointer arithmetic on a written pointer cast to elements of
    other than ``size`` bytes steps by the cast type's elements, not by the array's
    (its element is not ``buf[k]``)."""
    node = arg
    while isinstance(node, N.Cast):
        node = node.expr
    if not (isinstance(node, N.BinaryOp) and node.op in ("+", "-")):
        return False
    return any((_written_pointer_cast(side) and side.points_to != size)
               or _cast_stepped(side, size)
               for side in (node.left, node.right))


def partial_write(kinds: tuple[str, ...]) -> tuple[str, ...]:
    """What a store that covers part of an element (a memcpy's or memset's last
    element, ``*(char *)&A[i] = v``) does to its memory: ``kinds`` with a read where
    they write.  The HLS tool's memories write whole words, one write enable per port
    and no byte enables (UG1399, "Port-Level I/O: Memory Interface Protocol": word
    addressing, one write-enable; no bind_storage type of DESIGN §2 adds them), so
    keeping the element's other bytes is a read-modify-write: a read and a write of
    the element, both on its bank's ports."""
    return ("read", "write") if "write" in kinds else kinds


def _written_pointer_cast(node: N.Node) -> bool:
    """A cast written in the text to a type that is no integer (a pointer's)."""
    return isinstance(node, N.Cast) and not node.implicit and node.to is None


def _casts_pointer(address: N.Node) -> bool:
    """Whether a written pointer cast stands in ``address``: around it or around a
    term of its sum (``(T *)&A[k]``, ``(T *)(A + k)``, ``(T *)A + k``)."""
    node = address
    while isinstance(node, N.Cast):
        if _written_pointer_cast(node):
            return True
        node = node.expr
    return (isinstance(node, N.BinaryOp) and node.op in ("+", "-")
            and (_casts_pointer(node.left) or _casts_pointer(node.right)))


def element_bytes(t: ci.Type) -> int | None:
    """``sizeof`` the element of the array (or pointer, or reference to either) of
    type ``t``; None when clang cannot tell (a template's dependent type)."""
    t = t.get_canonical()
    while t.kind in _POINTING + _ARRAYS:
        t = (t.get_pointee() if t.kind in _POINTING else t.element_type).get_canonical()
    size = t.get_size()
    return size if size > 0 else None


def field_bytes(struct: ci.Type, path: str) -> int | None:
    """``sizeof`` an element of the array field ``path`` (``buf``, ``in.buf``) of the
    struct type ``struct`` (or of what it points to); None when clang cannot tell."""
    t = struct.get_canonical()
    while t.kind in _POINTING + _ARRAYS:
        t = (t.get_pointee() if t.kind in _POINTING else t.element_type).get_canonical()
    for name in path.split("."):
        field = next((f for f in t.get_fields() if f.spelling == name), None)
        if field is None:
            return None
        t = field.type.get_canonical()
    return element_bytes(t)


class RoutineLowering:
    """The accesses of ``memcpy``, ``memmove`` and ``memset`` calls (module doc)."""

    def _memory_routine(self, call: N.FuncCall, out: list[Access]) -> None:
        """The accesses of the routine ``call``: its arguments' own reads, then the
        source's elements read, then the destination's written."""
        if len(call.args) != 3:
            raise KernelError(call.coord, f"'{call.name}' with {len(call.args)} "
                                          "argument(s): expected 3")
        copying = calls.memory_routine(call.name) in COPYING
        dst, src, count = call.args
        memories = [calls.memory_argument(arg, self._visible, self._arrays)
                    if copying or arg is dst else None for arg in (dst, src)]
        for arg, memory in zip(call.args, memories + [None]):
            for node in (arg,) if memory is None else memory.nodes():
                self._collect(node, out)
        size = quasi_affine(count, self._scope())
        n_bytes = size.value if isinstance(size, E.Const) else None
        touched = [(arg, memory.binding(self._scope()), kind, memory.base.prefix)
                   for arg, memory, kind in ((src, memories[1], "read"),
                                             (dst, memories[0], "write"))
                   if memory is not None]
        unknown = {binding.array: why for arg, binding, _, _ in touched
                   for count, why in [self._element_count(binding, arg, n_bytes)]
                   if count is None}
        if unknown:
            self._open_routine(call, unknown)
        for arg, binding, kind, base in touched:
            self._keep_as_written(binding.array, (
                f"'{call.name}' at {call.coord} reaches it through a pointer, which "
                "arraypart does not rewrite"))
            self._routine_elements(arg, binding, kind, base, n_bytes, out)

    def _element_count(self, binding: Binding, arg: N.Node, n_bytes: int | None
                       ) -> tuple[int | None, str]:
        """How many elements of ``binding`` the routine's ``n_bytes`` cover (the
        whole struct element for an array field, whose bytes are part of its value);
        None, and why, when that is unknown or past :data:`MAX_ROUTINE_ELEMENTS`."""
        if binding.field:
            return 1, ""
        size = self._element_bytes(binding.array)
        if n_bytes is None:
            return None, "a byte count that is not a constant"
        if size is None or _cast_stepped(arg, size):
            return None, "a pointer cast to another element type, stepped"
        count = -(-n_bytes // size)
        if count > MAX_ROUTINE_ELEMENTS:
            return None, f"{count} elements (over {MAX_ROUTINE_ELEMENTS})"
        return count, ""

    def _element_bytes(self, array: str) -> int | None:
        """``sizeof`` an element of ``array``; of a struct variable's array field
        (``w.buf``), the field's, not the struct's."""
        declared, member = self._array_decls[array].ctype.clang, self._arrays[array].member
        return element_bytes(declared) if member is None else field_bytes(declared, member)

    def _routine_elements(self, arg: N.Node, binding: Binding, kind: str,
                          base: tuple, n_bytes: int | None, out: list[Access]) -> None:
        """The accesses of one memory argument ``arg`` that denotes ``binding`` (the
        caller's part ``base`` of its prefix), ``kind`` what the routine does with its
        elements: one per element, a written one that the bytes cover in part read
        and written (so is a field's struct element); one at any element when their
        number is unknown."""
        ref_id, shape = self._node_ref(arg), self._arrays[binding.array].shape
        count, _ = self._element_count(binding, arg, n_bytes)
        if count is None:
            self._add_element(Access(binding.array, (None,) * len(shape), kind, ref_id,
                                     arg.coord), (kind,), out)
            return
        partial = binding.field or n_bytes % self._element_bytes(binding.array) != 0
        last = partial_write((kind,)) if partial else (kind,)
        self._span(binding, base, [(kind,)] * (count - 1) + [last], ref_id, arg.coord, out)

    def _span(self, binding: Binding, base: tuple, kinds: list[tuple[str, ...]],
              ref_id: int, coord, out: list[Access]) -> None:
        """The accesses of the ``len(kinds)`` elements from the start of ``binding``
        (:func:`element_index`; a field's: its struct element), the k-th one's
        ``kinds[k]``; ``base``: the caller's part of the binding's prefix."""
        shape = self._arrays[binding.array].shape
        for k, each in enumerate(kinds):
            index = (binding.index(()) if binding.field
                     else element_index(binding, shape, k, self._ranges))
            foreign = self._foreign_dims(index, 0) - frozenset(range(len(base)))
            self._add_element(Access(binding.array, index, each[0], ref_id, coord,
                                     foreign=foreign), each, out)

    def _cast_width(self, node: N.UnaryOp) -> tuple[calls.MemoryArgument, int] | None:
        """The memory that ``*(T *)&A[e]`` reaches through a written pointer cast and
        the bytes of A's element; None for a dereference of an address that no written
        cast gives another type, or of a struct element's array field."""
        memory = calls.memory_argument(node.expr, self._visible, self._arrays)
        if memory is None or memory.field is not None or not _casts_pointer(node.expr):
            return None
        return memory, self._element_bytes(memory.base.array)

    def _narrow_dereference(self, node: N.UnaryOp) -> bool:
        """Whether ``*(T *)&A[e]`` reaches part of one element of A (T narrower)."""
        cast = self._cast_width(node)
        return (cast is not None and None not in (node.size, cast[1])
                and node.size < cast[1])

    def _byte_view(self, base: N.Node, subscript: N.Node) -> tuple[N.Node, str] | None:
        """The element that ``((T *)&A[e])[k]`` reaches in part, and its array:
        ``A[e]``, when T is narrower than A's element and the constant k keeps the
        bytes it names inside it (``0 <= k`` and ``(k + 1) * sizeof(T) <=
        sizeof(element)``: a byte of an int); None for any other subscript of a cast
        (``base``: what is subscripted, ``subscript``: k)."""
        cast = base
        while isinstance(cast, N.Cast) and not _written_pointer_cast(cast):
            cast = cast.expr
        address = N.without_casts(base)
        if not (isinstance(cast, N.Cast) and _written_pointer_cast(cast)
                and isinstance(address, N.UnaryOp) and address.op == "&"
                and isinstance(address.expr, N.ArrayRef)
                and isinstance(subscript, N.Constant) and subscript.value is not None):
            return None
        memory = calls.memory_argument(base, self._visible, self._arrays)
        if memory is None or memory.field is not None:
            return None
        size, width = self._element_bytes(memory.base.array), cast.points_to
        k = subscript.value
        if size is None or width is None or not (width < size and 0 <= k
                                                 and (k + 1) * width <= size):
            return None
        return address.expr, memory.base.array

    def _wide_dereference(self, node: N.UnaryOp) -> calls.MemoryArgument | None:
        """The memory that ``*(T *)&A[e]`` (``*(T *)(A + e)``,
        ``*reinterpret_cast<T *>(...)``) reads or writes when T is wider than A's
        element: ``sizeof(T) = k * sizeof(element)``, k > 1 elements, those that memcpy
        of ``sizeof(T)`` bytes from there reaches.  None for any other dereference: of
        an address that no written pointer cast gives another type, of a struct
        element's array field (the element), or to a narrower T (a byte of an int:
        the element that holds it, as ``A[e]``).  A width that is no whole number of
        elements or that clang cannot tell, and an address that a cast steps by other
        than the array's elements (``(char *)A + 3``), are located errors: counted as
        one element, the access would drop the others (probe 39 H3)."""
        cast = self._cast_width(node)
        if cast is None:
            return None
        memory, size = cast
        name = memory.base.array
        if node.size is None or size is None or (node.size > size and node.size % size):
            width = "an unknown number of" if node.size is None else str(node.size)
            raise KernelError(node.coord, (
                f"'*' reaches {width} bytes through a pointer cast, over elements of "
                f"{size or 'unknown'} bytes of array '{name}': arraypart counts such an "
                "access as the whole elements it covers, and cannot tell them here; "
                "cast to a type whose size is a multiple of the element's, or copy "
                "with memcpy"))
        if _cast_stepped(node.expr, size):
            raise KernelError(node.coord, (
                f"'*' through a pointer cast that steps by another element type than "
                f"array '{name}''s: arraypart cannot tell which of its elements it "
                f"reaches; cast the element's address (*(T *)&{name}[k])"))
        return memory if node.size > size else None

    def _wide_elements(self, node: N.UnaryOp, memory: calls.MemoryArgument,
                       kinds: tuple[str, ...], out: list[Access]) -> None:
        """The accesses of a wide dereference (:meth:`_wide_dereference`): the reads
        of its address's subscripts, then each of its elements accessed as ``kinds``
        say.  Its array keeps its references as written (its pragmas carry the
        banking), as a memory routine's does."""
        for part in memory.nodes():
            self._collect(part, out)
        binding = memory.binding(self._scope())
        self._keep_as_written(binding.array, (
            f"'*' at {node.coord} reaches it through a pointer cast, which arraypart "
            "does not rewrite"))
        count = node.size // self._element_bytes(binding.array)
        self._span(binding, memory.base.prefix, [kinds] * count, self._node_ref(node),
                   node.coord, out)

    def _open_routine(self, call: N.FuncCall, unknown: Mapping[str, str]) -> None:
        """A routine that reaches an unknown number of elements of the arrays
        ``unknown`` (each with why, :meth:`_element_count`): an error inside a
        pipelined or unrolled loop, whose II would depend on it; elsewhere a
        warning."""
        reasons: dict[str, list[str]] = {}
        for array, reason in unknown.items():
            reasons.setdefault(reason, []).append(f"'{array}'")
        why = "; ".join(f"{reason}, on {' and '.join(arrays)}"
                        for reason, arrays in reasons.items())
        if self._pipelines or self._function_pipeline is not None or self._unrolled:
            raise KernelError(call.coord, (
                f"'{call.name}' inside a pipelined or unrolled loop: arraypart cannot "
                f"tell how many elements it reaches ({why}), and Vitis makes it one "
                "access per element, so the loop's II depends on it; give it a "
                "constant byte count (n * sizeof(T)), or write the copy as a loop"))
        self._warn_once(call.coord, (
            f"'{call.name}': arraypart cannot tell how many elements it reaches ({why}) "
            "and assumes it may reach any (outside a pipelined loop, it shares no "
            "cycle with other accesses)"))
