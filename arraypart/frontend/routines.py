"""Library routines that copy or fill memory: part of :class:`.lower._Lowering`.

``memcpy(dst, src, n)`` and ``memmove(dst, src, n)`` read the elements of ``src`` and
write those of ``dst`` that their ``n`` bytes cover; ``memset(dst, v, n)`` writes those
of ``dst``.  Vitis HLS turns a routine whose byte count is a constant into one access
per element, all in one step of the pipeline around it (a fully unrolled copy), and
so does the model: a memory argument of array A (:func:`.calls.memory_argument`)
makes ``ceil(n / sizeof(A's element))`` accesses of A (the two arrays need not share
an element type: each counts its own elements), the elements ``0, 1, ...`` past its
start in C's row-major layout (:func:`element_index`).  A written element that the
bytes cover in part keeps its other bytes: it is read and written.  An argument that
is no array of the kernel (a scalar's address) is a value: its own reads only.

A count that does not fold to a constant (or more than :data:`MAX_ROUTINE_ELEMENTS`
elements) is a located error inside a pipelined or unrolled loop, whose II would
depend on it; outside them the routine's accesses share no cycle with others, and
the elements it reaches are left open (an irregular access of each array).

Code generation rewrites an array's references by their subscripts, never a memory
argument, so an array that a routine touches keeps its references as written (its
partition pragmas carry the banking: :meth:`.accesses.AccessLowering._keep_as_written`).
"""

from __future__ import annotations

from math import prod
from typing import Mapping

import clang.cindex as ci

from .. import expr as E
from ..errors import KernelError, warning_text
from ..ir import Access
from . import calls
from . import cnodes as N
from .calls import Binding, MemoryArgument
from .cexpr import Bound, interval, quasi_affine

T = ci.TypeKind
#: The routines that read their second argument's memory (``memset`` reads a value).
COPYING = frozenset(("memcpy", "memmove"))
#: The most elements one routine call is modelled element by element: past it, a copy
#: inside a pipeline is refused (an iteration of that many accesses is no design), and
#: one outside is left open (the model would hold an access per element).
MAX_ROUTINE_ELEMENTS = 1 << 14
_POINTING = (T.POINTER, T.LVALUEREFERENCE, T.RVALUEREFERENCE)
_ARRAYS = (T.CONSTANTARRAY, T.INCOMPLETEARRAY, T.VARIABLEARRAY, T.DEPENDENTSIZEDARRAY)


def element_index(binding: Binding, shape: tuple[int, ...], k: int,
                  ranges: Mapping[str, Bound]) -> tuple[E.Expr | None, ...]:
    """The index of the element ``k`` elements past the start of ``binding`` (an
    array, a row ``A[i]``, a pointer ``&A[i][j]``) in row-major order.  From a row's
    start the copy runs along the dimensions after the prefix (``A[i]`` + k is
    ``A[i + k // C][k % C]``); from a pointer into a row, ``A[i][j + k]`` while
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


def _cast_stepped(arg: N.Node) -> bool:
    """``(char *)buf + k``: pointer arithmetic on a written pointer cast steps by the
    cast type's elements, not by the array's (its element is not ``buf[k]``)."""
    node = arg
    while isinstance(node, N.Cast):
        node = node.expr
    if not (isinstance(node, N.BinaryOp) and node.op in ("+", "-")):
        return False
    return any((isinstance(side, N.Cast) and not side.implicit and side.to is None)
               or _cast_stepped(side) for side in (node.left, node.right))


def element_bytes(t: ci.Type) -> int | None:
    """``sizeof`` the element of the array (or pointer, or reference to either) of
    type ``t``; None when clang cannot tell (a template's dependent type)."""
    t = t.get_canonical()
    while t.kind in _POINTING + _ARRAYS:
        t = (t.get_pointee() if t.kind in _POINTING else t.element_type).get_canonical()
    size = t.get_size()
    return size if size > 0 else None


class RoutineLowering:
    """The accesses of ``memcpy``, ``memmove`` and ``memset`` calls (module doc)."""

    def _memory_routine(self, call: N.FuncCall, out: list[Access]) -> None:
        """The accesses of the routine ``call``: its arguments' own reads, then the
        source's elements read, then the destination's written."""
        if len(call.args) != 3:
            raise KernelError(call.coord, f"'{call.name}' with {len(call.args)} "
                                          "argument(s): expected 3")
        copying = call.name.rsplit("::", 1)[-1] in COPYING
        dst, src, count = call.args
        memories = [calls.memory_argument(arg, self._visible, self._arrays)
                    if copying or arg is dst else None for arg in (dst, src)]
        for arg, memory in zip(call.args, memories + [None]):
            for node in (arg,) if memory is None else memory.nodes():
                self._collect(node, out)
        size = quasi_affine(count, self._scope())
        n_bytes = size.value if isinstance(size, E.Const) else None
        for arg, memory, kind in ((src, memories[1], "read"), (dst, memories[0], "write")):
            if memory is not None:
                self._routine_elements(call, arg, memory, kind, n_bytes, out)

    def _routine_elements(self, call: N.FuncCall, arg: N.Node, memory: MemoryArgument,
                          kind: str, n_bytes: int | None, out: list[Access]) -> None:
        """The accesses of one memory argument ``arg`` of ``call`` (``kind``: what the
        routine does with its elements), ``n_bytes`` the count (None: not a
        constant)."""
        binding = memory.binding(self._scope())
        array = self._arrays[binding.array]
        self._keep_as_written(binding.array, (
            f"'{call.name}' at {call.coord} reaches it through a pointer, which "
            "arraypart does not rewrite"))
        if id(arg) not in self._ref_ids:
            self._ref_ids[id(arg)] = self._next_ref
            self._next_ref += 1
        ref_id = self._ref_ids[id(arg)]
        size = None if binding.field or _cast_stepped(arg) else element_bytes(
            self._array_decls[binding.array].ctype.clang)
        count = None if size is None or n_bytes is None else -(-n_bytes // size)
        if binding.field:
            count = 1  # a field's bytes are part of the struct element's value
        elif count is not None and count > MAX_ROUTINE_ELEMENTS:
            count = None
        if count is None:
            self._open_routine(call, arg, binding, kind, ref_id, out)
            return
        partial = size is not None and n_bytes is not None and n_bytes % size != 0
        for k in range(count):
            index = (binding.index(()) if binding.field
                     else element_index(binding, array.shape, k, self._ranges))
            kinds = (("read", "write") if kind == "write" and (
                binding.field or (partial and k == count - 1)) else (kind,))
            foreign = self._foreign_dims(index, 0) - frozenset(range(len(
                memory.base.prefix)))
            self._add_element(Access(binding.array, index, kinds[0], ref_id, arg.coord,
                                     foreign=foreign), kinds, out)

    def _open_routine(self, call: N.FuncCall, arg: N.Node, binding: Binding, kind: str,
                      ref_id: int, out: list[Access]) -> None:
        """A routine whose count in elements is unknown or past
        :data:`MAX_ROUTINE_ELEMENTS`: an error inside a pipelined or unrolled loop;
        elsewhere one access of ``kind`` at any element of the array, and a warning."""
        if self._pipelines or self._function_pipeline is not None or self._unrolled:
            raise KernelError(call.args[2].coord, (
                f"'{call.name}' inside a pipelined or unrolled loop copies a number of "
                "elements that is not a constant (or over "
                f"{MAX_ROUTINE_ELEMENTS}): Vitis unrolls it into one access per "
                "element, so the loop's II depends on it; give it a constant byte count "
                "(n * sizeof(T)), or write the copy as a loop"))
        rank = len(self._arrays[binding.array].shape)
        self._add_element(Access(binding.array, (None,) * rank, kind, ref_id, arg.coord),
                          (kind,), out)
        text = warning_text(arg.coord, (
            f"'{call.name}' copies a number of elements of '{binding.array}' that is not "
            f"a constant (or over {MAX_ROUTINE_ELEMENTS}): arraypart assumes it may "
            "reach any element (outside a pipeline, it shares no cycle with other "
            "accesses)"))
        if text not in self._warnings:
            self._warnings.append(text)
